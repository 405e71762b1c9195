//! Printing the IR: the textual form (one line per instruction, for
//! snapshots and debugging passes) and a Slang-like view of a function
//! (structured statements, for showing generated code to users).

use std::fmt::Write;

use crate::ir::{
    AddressSpace, BlockId, Const, Function, Module, Op, ParamDir, Terminator, TextureOp, Type, Types, UnaryOp, ValueId,
    ValueKind,
};
use crate::structure::{structure, Node};

/// The whole module in textual form.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    for (i, g) in module.globals.iter().enumerate() {
        let space = match g.space {
            AddressSpace::Storage { writable: true } => "read_write",
            AddressSpace::Storage { writable: false } => "read",
            AddressSpace::Uniform => "uniform",
            AddressSpace::Workgroup => "groupshared",
            AddressSpace::Private => "static",
            AddressSpace::Function => "function",
            AddressSpace::Handle => "handle",
        };
        let binding = g.binding.map(|(set, b)| format!("set {set}, binding {b}, ")).unwrap_or_default();
        writeln!(out, "global g{i} {}: {} [{binding}{space}]", g.name, module.types.display(g.ty)).unwrap();
    }
    for f in &module.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&print_function(&module.types, module, f));
    }
    out
}

/// One function in textual form.
pub fn print_function(types: &Types, module: &Module, func: &Function) -> String {
    let mut out = String::new();
    if let Some(ep) = func.entry_point {
        let [x, y, z] = ep.workgroup_size;
        writeln!(out, "[numthreads({x}, {y}, {z})]").unwrap();
    }
    let params: Vec<String> = func
        .params
        .iter()
        .map(|p| {
            let dir = match p.dir {
                ParamDir::In => "",
                ParamDir::Out => "out ",
                ParamDir::InOut => "inout ",
            };
            let sem = p.builtin.map(|b| format!(" : {}", b.semantic())).unwrap_or_default();
            format!("{dir}{}: {}{sem}", p.name, types.display(p.ty))
        })
        .collect();
    writeln!(out, "func {}({}) -> {} {{", func.name, params.join(", "), types.display(func.ret)).unwrap();
    for b in func.block_ids() {
        let block = func.block(b);
        let params: Vec<String> =
            block.params.iter().map(|&p| format!("{p}: {}", types.display(func.value(p).ty))).collect();
        if params.is_empty() {
            writeln!(out, "{b}:").unwrap();
        } else {
            writeln!(out, "{b}({}):", params.join(", ")).unwrap();
        }
        for &v in &block.insts {
            let value = func.value(v);
            let ValueKind::Inst(op) = &value.kind else { continue };
            let text = op_text(module, op);
            if matches!(types.get(value.ty), Type::Void) {
                writeln!(out, "  {text}").unwrap();
            } else {
                writeln!(out, "  {v}: {} = {text}", types.display(value.ty)).unwrap();
            }
        }
        writeln!(out, "  {}", term_text(&block.term)).unwrap();
    }
    out.push_str("}\n");
    out
}

fn list(values: &[ValueId]) -> String {
    values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

pub(crate) fn op_text(module: &Module, op: &Op) -> String {
    match op {
        Op::Const(c) => format!("const {}", const_text(*c)),
        Op::Unary(u, a) => format!("{} {a}", unary_name(*u)),
        Op::Binary(b, x, y) => format!("{} {x}, {y}", format!("{b:?}").to_lowercase()),
        Op::Construct(args) => format!("construct {}", list(args)),
        Op::Splat(a) => format!("splat {a}"),
        Op::Extract(a, i) => format!("extract {a}, {i}"),
        Op::ExtractDynamic(a, i) => format!("extract {a}, {i}"),
        Op::ArrayLength(p) => format!("array_length {p}"),
        Op::Barrier(b) => format!("barrier {}", format!("{b:?}").to_lowercase()),
        Op::Subgroup(o, s, a) => {
            format!("subgroup {} {} {a}", format!("{o:?}").to_lowercase(), format!("{s:?}").to_lowercase())
        }
        Op::Swizzle(a, comps) => format!("swizzle {a}, {}", swizzle_text(comps)),
        Op::Convert(a) => format!("convert {a}"),
        Op::Select(c, a, b) => format!("select {c}, {a}, {b}"),
        Op::Intrinsic(i, args) => format!("{}({})", i.name(), list(args)),
        Op::Call(f, args) => {
            format!("call {}({})", module.functions.get(f.index()).map_or("?", |f| &f.name), list(args))
        }
        Op::Var => "var".to_string(),
        Op::Global(g) => format!("global {}", module.globals.get(g.index()).map_or("?", |g| &g.name)),
        Op::Load(p) => format!("load {p}"),
        Op::Store { ptr, value } => format!("store {ptr}, {value}"),
        Op::FieldAddr(p, i) => format!("field_addr {p}, {i}"),
        Op::ElementAddr(p, i) => format!("element_addr {p}, {i}"),
        Op::Detach(a) => format!("detach {a}"),
        Op::Texture(op, args) => format!("texture_{} {}", format!("{op:?}").to_lowercase(), list(args)),
        Op::Atomic { op, ptr, value, compare } => match compare {
            Some(c) => format!("atomic {} {ptr}, {c}, {value}", format!("{op:?}").to_lowercase()),
            None => format!("atomic {} {ptr}, {value}", format!("{op:?}").to_lowercase()),
        },
    }
}

fn unary_name(u: UnaryOp) -> &'static str {
    match u {
        UnaryOp::Neg => "neg",
        UnaryOp::Not => "not",
        UnaryOp::BitNot => "bitnot",
    }
}

fn const_text(c: Const) -> String {
    match c {
        Const::Bool(b) => b.to_string(),
        Const::Int(i) => i.to_string(),
        Const::Float(f) => format!("{f:?}"),
    }
}

fn swizzle_text(comps: &[u8]) -> String {
    comps.iter().map(|&c| ['x', 'y', 'z', 'w'][c as usize & 3]).collect()
}

fn term_text(t: &Terminator) -> String {
    let edge = |b: BlockId, args: &[ValueId]| {
        if args.is_empty() {
            b.to_string()
        } else {
            format!("{b}({})", list(args))
        }
    };
    match t {
        Terminator::Return(None) => "return".into(),
        Terminator::Return(Some(v)) => format!("return {v}"),
        Terminator::Branch { target, args } => format!("br {}", edge(*target, args)),
        Terminator::If { cond, then, els, merge } => format!("if {cond} then {then} else {els} merge {merge}"),
        Terminator::Loop { header, brk, cont, args } => {
            format!("loop {} break {brk} continue {cont}", edge(*header, args))
        }
        Terminator::Switch { value, cases, default, brk } => {
            let cases: Vec<String> = cases.iter().map(|(v, b)| format!("{v} => {b}")).collect();
            format!("switch {value} [{}] default {default} break {brk}", cases.join(", "))
        }
        Terminator::Unreachable => "unreachable".into(),
    }
}

/// A function shown as Slang-like code: structured statements, one
/// variable per instruction, block parameters as variables assigned on
/// the edges that pass them.
pub fn print_function_as_slang(module: &Module, func: &Function) -> String {
    let mut p = SlangPrinter { module, func, out: String::new(), indent: 1 };
    let mut header = String::new();
    if let Some(ep) = func.entry_point {
        let [x, y, z] = ep.workgroup_size;
        writeln!(header, "[numthreads({x}, {y}, {z})]").unwrap();
    }
    let entry_params = &func.block(Function::ENTRY).params;
    let params: Vec<String> = func
        .params
        .iter()
        .zip(entry_params)
        .map(|(param, &v)| {
            let (dir, ty) = match (param.dir, module.types.pointee(param.ty)) {
                (ParamDir::Out, Some((t, _))) => ("out ", t),
                (ParamDir::InOut, Some((t, _))) => ("inout ", t),
                _ => ("", param.ty),
            };
            let sem = param.builtin.map(|b| format!(" : {}", b.semantic())).unwrap_or_default();
            format!("{dir}{} {}{sem}", module.types.display(ty), p.name(v))
        })
        .collect();
    writeln!(header, "{} {}({})", module.types.display(func.ret), func.name, params.join(", ")).unwrap();
    header.push_str("{\n");
    // Block parameters are variables of the whole function.
    for b in func.block_ids().skip(1) {
        for &v in &func.block(b).params {
            writeln!(header, "    {} {};", module.types.display(func.value(v).ty), p.name(v)).unwrap();
        }
    }
    match structure(func) {
        Ok(nodes) => p.nodes(&nodes),
        Err(why) => writeln!(p.out, "    // control flow is not structured: {why}").unwrap(),
    }
    header.push_str(&p.out);
    header.push_str("}\n");
    header
}

struct SlangPrinter<'a> {
    module: &'a Module,
    func: &'a Function,
    out: String,
    indent: usize,
}

impl SlangPrinter<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn name(&self, v: ValueId) -> String {
        match &self.func.value(v).kind {
            ValueKind::Param { block: BlockId(0), index } => {
                self.func.params.get(*index as usize).map_or_else(|| format!("_{}", v.0), |p| p.name.clone())
            }
            _ => format!("_{}", v.0),
        }
    }

    /// A value as an expression: pointers print as the place they name.
    fn expr(&self, v: ValueId) -> String {
        match self.func.op(v) {
            Some(Op::Global(g)) => self.module.global(*g).name.clone(),
            Some(Op::Const(c)) => const_text(*c),
            Some(Op::FieldAddr(p, i)) => {
                let (pointee, _) = self
                    .module
                    .types
                    .pointee(self.func.value(*p).ty)
                    .unwrap_or((self.func.value(*p).ty, AddressSpace::Function));
                match self.module.types.get(pointee) {
                    Type::Struct { fields, .. } => format!("{}.{}", self.expr(*p), fields[*i as usize].0),
                    Type::Vector(..) => format!("{}.{}", self.expr(*p), swizzle_text(&[*i as u8])),
                    Type::DifferentialPair { .. } => format!("{}.{}", self.expr(*p), if *i == 0 { "p" } else { "d" }),
                    _ => format!("{}[{i}]", self.expr(*p)),
                }
            }
            Some(Op::ElementAddr(p, i)) => format!("{}[{}]", self.expr(*p), self.expr(*i)),
            _ => self.name(v),
        }
    }

    fn nodes(&mut self, nodes: &[Node]) {
        for n in nodes {
            self.node(n);
        }
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Block(b) => {
                for &v in &self.func.block(*b).insts {
                    self.inst(v);
                }
            }
            Node::Assign { target, args } => {
                let params = self.func.block(*target).params.clone();
                for (p, a) in params.iter().zip(args) {
                    let text = format!("{} = {};", self.name(*p), self.expr(*a));
                    self.line(&text);
                }
            }
            Node::If { cond, then, els } => {
                let text = format!("if ({})", self.expr(*cond));
                self.line(&text);
                self.braced(then);
                if !els.is_empty() {
                    self.line("else");
                    self.braced(els);
                }
            }
            Node::Loop { body, continuing, break_if } => {
                self.line("for (;;)");
                self.line("{");
                self.indent += 1;
                self.nodes(body);
                if !continuing.is_empty() || break_if.is_some() {
                    self.line("// continue:");
                    self.nodes(continuing);
                    if let Some((c, exit_when)) = break_if {
                        let c = if *exit_when { self.expr(*c) } else { format!("!{}", self.expr(*c)) };
                        self.line(&format!("if ({c}) break;"));
                    }
                }
                self.indent -= 1;
                self.line("}");
            }
            Node::Switch { value, cases, default } => {
                let text = format!("switch ({})", self.expr(*value));
                self.line(&text);
                self.line("{");
                for (values, body) in cases {
                    for v in values {
                        self.line(&format!("case {v}:"));
                    }
                    self.braced(body);
                }
                self.line("default:");
                self.braced(default);
                self.line("}");
            }
            Node::Break => self.line("break;"),
            Node::Continue => self.line("continue;"),
            Node::Return(None) => self.line("return;"),
            Node::Return(Some(v)) => {
                let text = format!("return {};", self.expr(*v));
                self.line(&text);
            }
            Node::Unreachable => {}
        }
    }

    fn braced(&mut self, nodes: &[Node]) {
        self.line("{");
        self.indent += 1;
        self.nodes(nodes);
        self.indent -= 1;
        self.line("}");
    }

    fn inst(&mut self, v: ValueId) {
        let value = self.func.value(v);
        let ValueKind::Inst(op) = &value.kind else { return };
        let types = &self.module.types;
        let e = |x: &ValueId| self.expr(*x);
        let rhs = match op {
            // Places and constants are printed where they are used.
            Op::Global(_) | Op::FieldAddr(..) | Op::ElementAddr(..) | Op::Const(_) => return,
            Op::Var => {
                let ty = types.pointee(value.ty).map_or(value.ty, |(t, _)| t);
                let text = format!("{} {};", types.display(ty), self.name(v));
                self.line(&text);
                return;
            }
            Op::Store { ptr, value } => {
                let text = format!("{} = {};", e(ptr), e(value));
                self.line(&text);
                return;
            }
            Op::Load(p) => e(p),
            Op::Unary(u, a) => {
                let sym = match u {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                };
                format!("{sym}{}", e(a))
            }
            Op::Binary(b, x, y) => format!("{} {} {}", e(x), b.symbol(), e(y)),
            Op::Construct(args) | Op::Intrinsic(_, args) | Op::Call(_, args) => {
                let callee = match op {
                    Op::Intrinsic(i, _) => i.name().to_string(),
                    Op::Call(f, _) => self.module.function(*f).name.clone(),
                    _ if matches!(types.get(value.ty), Type::DifferentialPair { .. }) => "diffPair".to_string(),
                    _ => types.display(value.ty),
                };
                format!("{callee}({})", args.iter().map(e).collect::<Vec<_>>().join(", "))
            }
            Op::Splat(a) | Op::Convert(a) => format!("{}({})", types.display(value.ty), e(a)),
            Op::Extract(a, i) => match types.get(self.func.value(*a).ty) {
                Type::Struct { fields, .. } => format!("{}.{}", e(a), fields[*i as usize].0),
                Type::DifferentialPair { .. } => format!("{}.{}", e(a), if *i == 0 { "p" } else { "d" }),
                Type::Vector(..) => format!("{}.{}", e(a), swizzle_text(&[*i as u8])),
                _ => format!("{}[{i}]", e(a)),
            },
            Op::ExtractDynamic(a, i) => format!("{}[{}]", e(a), e(i)),
            Op::ArrayLength(p) => format!("{}.getCount()", e(p)),
            Op::Barrier(b) => format!("{b:?}MemoryBarrierWithGroupSync()"),
            Op::Subgroup(o, s, a) => format!("{}({})", subgroup_function(*o, *s), e(a)),
            Op::Texture(op, args) => {
                let a: Vec<String> = args.iter().map(e).collect();
                match op {
                    TextureOp::SampleLevel => format!("{}.SampleLevel({}, {}, {})", a[0], a[1], a[2], a[3]),
                    TextureOp::Load => format!("{}.Load({}, {})", a[0], a[1], a[2]),
                    TextureOp::Size => format!("{}.GetDimensions({})", a[0], a[1]),
                    TextureOp::Levels => format!("{}.GetLevels()", a[0]),
                    TextureOp::Store => format!("{}[{}] = {}", a[0], a[1], a[2]),
                    TextureOp::Layers => format!("{}.GetLayers()", a[0]),
                }
            }
            Op::Atomic { op, ptr, value, compare } => {
                let compare = compare.map(|c| format!("{}, ", e(&c))).unwrap_or_default();
                format!("Interlocked{op:?}({}, {compare}{})", e(ptr), e(value))
            }
            Op::Swizzle(a, comps) => format!("{}.{}", e(a), swizzle_text(comps)),
            Op::Detach(a) => format!("detach({})", e(a)),
            Op::Select(c, a, b) => format!("select({}, {}, {})", e(c), e(a), e(b)),
        };
        let text = if matches!(types.get(value.ty), Type::Void) {
            format!("{rhs};")
        } else {
            format!("{} {} = {rhs};", types.display(value.ty), self.name(v))
        };
        self.line(&text);
    }
}

/// The HLSL name of a subgroup operation (`WaveActiveSum`).
fn subgroup_function(op: crate::ir::SubgroupOp, scope: crate::ir::SubgroupScope) -> String {
    use crate::ir::SubgroupOp as S;
    let name = match op {
        S::All => "AllTrue",
        S::Any => "AnyTrue",
        S::Sum => "Sum",
        S::Product => "Product",
        S::Min => "Min",
        S::Max => "Max",
        S::BitAnd => "BitAnd",
        S::BitOr => "BitOr",
        S::BitXor => "BitXor",
    };
    match scope {
        crate::ir::SubgroupScope::Reduce => format!("WaveActive{name}"),
        crate::ir::SubgroupScope::ExclusivePrefix => format!("WavePrefix{name}"),
    }
}
