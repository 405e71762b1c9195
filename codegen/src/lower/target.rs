//! Target-specific code: `__target_switch` (the case for our targets is
//! lowered, the others are not) and `__intrinsic_asm` text naming a
//! built-in function of the chosen case.
//!
//! One IR feeds every backend (naga's module is WGSL-shaped, and the
//! runner executes its SPIR-V on Vulkan), so a target switch takes
//! `case wgsl`, else `case spirv`, else `default` — skipping a case written
//! in SPIR-V assembly (`spirv_asm`), which is not lowered.

use super::*;

/// The cases a target switch may take, by preference.
const TARGETS: [&str; 3] = ["wgsl", "spirv", "default"];

impl FnLower<'_, '_> {
    /// `__target_switch { case …: … }`: the statements of the case
    /// chosen for our targets. An empty case (`case wgsl: case spirv:
    /// body`) shares the next one's body.
    pub(super) fn target_switch(&mut self, cases: &[TargetCase]) -> R<()> {
        let chosen = TARGETS.iter().find_map(|want| {
            let at = cases.iter().position(|c| c.label == *want)?;
            let body = cases[at..].iter().find(|c| !c.stmts.is_empty())?;
            (!body.spirv_asm).then_some(body)
        });
        let Some(chosen) = chosen else {
            return self.error(
                "this `__target_switch` has no case code generation can take (`case wgsl`, `case spirv` without `spirv_asm`, or `default`)",
            );
        };
        for &st in &chosen.stmts.clone() {
            self.stmt(st)?;
        }
        Ok(())
    }

    /// `__intrinsic_asm "f";` or `__intrinsic_asm "f($0, $1)";` in the
    /// body of a function: it returns the built-in function `f` of the
    /// function's parameters (all of them, in order, for a bare name).
    pub(super) fn intrinsic_asm(&mut self, text: &str) -> R<()> {
        let text = text.to_string();
        let params = self.b.func.params.clone();
        let (name, indices): (&str, Vec<usize>) = match text.split_once('(') {
            None => (text.as_str(), (0..params.len()).collect()),
            Some((name, rest)) => {
                let Some(list) = rest.trim_end().strip_suffix(')') else {
                    return self
                        .error(format!("`__intrinsic_asm \"{text}\"` is not a call code generation understands"));
                };
                let mut indices = Vec::new();
                for a in list.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                    match a.strip_prefix('$').and_then(|k| k.parse::<usize>().ok()) {
                        Some(k) if k < params.len() => indices.push(k),
                        _ => {
                            return self.error(format!(
                            "`__intrinsic_asm \"{text}\"`: only parameters (`$0`, `$1`, …) are understood as arguments"
                        ))
                        }
                    }
                }
                (name.trim(), indices)
            }
        };
        let Some(i) = Intrinsic::from_name(name) else {
            return self.error(format!(
                "`__intrinsic_asm \"{text}\"` does not name a built-in function code generation knows"
            ));
        };
        if indices.len() != i.arity() {
            return self.error(format!("`{name}` takes {} arguments", i.arity()));
        }
        let ret = self.b.func.ret;
        let mut args = Vec::new();
        for k in indices {
            let p = &params[k];
            if p.dir != ParamDir::In {
                return self.error("`__intrinsic_asm` of an `out` or `inout` parameter is not supported");
            }
            let Some(ptr) = self.scopes.iter().flatten().find(|l| l.name == p.name).map(|l| l.ptr) else {
                return self.error(format!("the parameter `{}` is not known here", p.name));
            };
            args.push(self.load(ptr));
        }
        if matches!(self.ty(ret), Type::Void) {
            return self.error("`__intrinsic_asm` in a function returning nothing is not supported");
        }
        let v = self.emit(Op::Intrinsic(i, args), ret);
        self.terminate(Terminator::Return(Some(v)));
        Ok(())
    }
}
