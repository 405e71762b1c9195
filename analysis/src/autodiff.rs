//! The facts of automatic differentiation: which functions are
//! differentiable, which types are, their `Differential` types, and the
//! signatures of `fwd_diff(f)` / `bwd_diff(f)` (the user guide's reference
//! rules, section "fwd_diff" and "bwd_diff").

use std::collections::HashMap;
use std::fmt;

use slang_syntax::ast::AstNode;

use crate::hir::DefId;
use crate::infer::{fn_sig, is_core, item_of, DeclCtx};
use crate::item_tree::ItemKind;
use crate::name_res::core_def;
use crate::ty::{Scalar, Ty, TypeResolver};
use crate::{Db, SourceFile};

pub use crate::func_extension::{func_extension_for, func_extension_of, func_extensions, ExtensionKind, FuncExtension};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Forward,
    Backward,
}

impl Mode {
    pub fn operator(self) -> &'static str {
        match self {
            Mode::Forward => "fwd_diff",
            Mode::Backward => "bwd_diff",
        }
    }
}

/// How far a function is differentiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Differentiability {
    No,
    /// `[ForwardDifferentiable]` or only a forward derivative.
    Forward,
    /// `[Differentiable]`, `[BackwardDifferentiable]`, or a backward
    /// derivative: both modes.
    Backward,
}

impl Differentiability {
    pub fn allows(self, mode: Mode) -> bool {
        match mode {
            Mode::Forward => self != Differentiability::No,
            Mode::Backward => self == Differentiability::Backward,
        }
    }
}

/// The names that `[ForwardDerivativeOf(f)]` / `[BackwardDerivativeOf(f)]`
/// and `__func_extension`s in `file` attach derivatives to, with the mode.
#[salsa::tracked(returns(ref))]
pub fn derivative_of_targets(db: &dyn Db, file: SourceFile) -> Vec<(String, Mode)> {
    let mut out = Vec::new();
    // Only the declarations carrying such an attribute are read (their
    // own syntax, which edits elsewhere do not change).
    let tree = crate::item_tree::item_tree(db, file);
    let carriers: Vec<DefId> = tree
        .walk()
        .filter(|i| {
            i.attrs
                .iter()
                .any(|a| a == "ForwardDerivativeOf" || a == "BackwardDerivativeOf" || a == "PrimalSubstituteOf")
        })
        .map(|i| DefId::new(db, file, i.ast_index))
        .collect();
    let attrs = carriers
        .iter()
        .filter_map(|&d| crate::hir::decl_syntax(db, d))
        .flat_map(|n| n.children().filter(|c| c.kind() == slang_syntax::SyntaxKind::ATTRIBUTE).collect::<Vec<_>>());
    for attr in attrs {
        let name = attr
            .children()
            .find(|c| c.kind() == slang_syntax::SyntaxKind::PATH)
            .map(|p| p.text().to_string())
            .unwrap_or_default();
        let mode = match name.as_str() {
            "ForwardDerivativeOf" => Mode::Forward,
            // A primal substitute is differentiated in place of the primal.
            "BackwardDerivativeOf" | "PrimalSubstituteOf" => Mode::Backward,
            _ => continue,
        };
        let target = attr
            .children()
            .find(|c| c.kind() == slang_syntax::SyntaxKind::ATTRIBUTE_ARGS)
            .and_then(|a| {
                a.descendants_with_tokens()
                    .filter_map(|e| e.into_token())
                    .filter(|t| t.kind() == slang_syntax::SyntaxKind::IDENT)
                    .last()
            })
            .map(|t| t.text().to_string());
        if let Some(t) = target {
            out.push((t, mode));
        }
    }
    for ext in func_extensions(db, file) {
        let mode = match ext.kind {
            ExtensionKind::Forward => Mode::Forward,
            ExtensionKind::Backward | ExtensionKind::Apply => Mode::Backward,
        };
        out.push((ext.target.clone(), mode));
    }
    out
}

/// How far `def` is differentiable, as seen from `from` (where
/// `[…DerivativeOf(f)]` attributes may attach derivatives to it).
pub fn fn_differentiability(db: &dyn Db, from: SourceFile, def: DefId) -> Differentiability {
    let Some(item) = item_of(db, def) else { return Differentiability::No };
    let has = |a: &str| item.has_attr(a);
    let name = item.name.clone().unwrap_or_default();
    let files: Vec<SourceFile> = crate::module_graph::module_of(db, from)
        .iter()
        .chain(crate::module_graph::imported_files(db, from))
        .chain(crate::module_graph::module_of(db, def.file(db)).iter())
        .copied()
        .collect();
    let attached: Vec<Mode> = files
        .iter()
        .flat_map(|&f| derivative_of_targets(db, f).iter())
        .filter(|(t, _)| *t == name)
        .map(|(_, m)| *m)
        .collect();
    if attached.contains(&Mode::Backward) {
        return Differentiability::Backward;
    }
    if has("Differentiable")
        || has("BackwardDifferentiable")
        || has("BackwardDerivative")
        || has("TreatAsDifferentiable")
        || has("PrimalSubstitute")
        || has("__BackwardDifferentiable")
    {
        Differentiability::Backward
    } else if has("ForwardDifferentiable") || has("ForwardDerivative") || !attached.is_empty() {
        Differentiability::Forward
    } else {
        Differentiability::No
    }
}

/// Whether the `set` accessor of property or `__subscript` `def` is
/// differentiable: marked so itself, or the whole declaration is (an
/// attribute on the `get` accessor makes only the getter differentiable).
pub fn setter_differentiable(db: &dyn Db, def: DefId) -> bool {
    use slang_syntax::ast::{self, HasAttributes};
    use slang_syntax::SyntaxKind;
    let Some(node) = crate::hir::def_node(db, def) else { return false };
    let marks = |a: ast::Attribute| {
        a.name().is_some_and(|n| {
            matches!(
                n.as_str(),
                "Differentiable" | "BackwardDifferentiable" | "ForwardDifferentiable" | "TreatAsDifferentiable"
            )
        })
    };
    let (mut own, accessors): (Box<dyn Iterator<Item = ast::Attribute>>, Vec<ast::Accessor>) =
        if let Some(p) = ast::Property::cast(node.clone()) {
            (p.attributes(), p.accessors().collect())
        } else if let Some(s) = ast::Subscript::cast(node) {
            (s.attributes(), s.accessors().collect())
        } else {
            return false;
        };
    own.any(marks) || accessors.iter().any(|a| a.kind() == Some(SyntaxKind::SET_KW) && a.attributes().any(marks))
}

/// Whether a type takes part in differentiation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeDiff {
    /// Conforms to `IDifferentiable`.
    Value,
    /// Conforms to `IDifferentiablePtrType`.
    Ptr,
    No,
    /// Cannot be told here (unresolved types, macros).
    Unknown,
}

pub fn type_diff(db: &dyn Db, file: SourceFile, ty: &Ty) -> TypeDiff {
    match ty {
        Ty::Scalar(s) | Ty::Vector(s, _) | Ty::Matrix(s, _, _) => {
            if matches!(s, Scalar::Half | Scalar::Float | Scalar::Double) {
                TypeDiff::Value
            } else {
                TypeDiff::No
            }
        }
        Ty::Array(e, _) => match type_diff(db, file, e) {
            TypeDiff::Value => TypeDiff::Value,
            other => other,
        },
        Ty::Void | Ty::String => TypeDiff::No,
        Ty::Adt { def, name, args } => {
            if is_core(db, def.file(db)) {
                return match name.as_str() {
                    "DifferentialPair" => TypeDiff::Value,
                    // `extension<each T : IDifferentiable> Tuple<T…>`.
                    "Tuple" | "Array" => elements_diff(db, file, args),
                    _ => TypeDiff::No,
                };
            }
            if item_of(db, *def).is_some_and(|i| i.kind == ItemKind::Enum) {
                return TypeDiff::No;
            }
            // A value of an interface type: differentiable when the
            // interface is (`interface IModel : IDifferentiable`).
            if item_of(db, *def).is_some_and(|i| i.kind == ItemKind::Interface) {
                let mut closure = std::collections::HashSet::new();
                crate::generics::interface_closure(db, *def, &mut closure);
                return if core_def(db, "IDifferentiable").is_some_and(|d| closure.contains(&d)) {
                    TypeDiff::Value
                } else if core_def(db, "IDifferentiablePtrType").is_some_and(|d| closure.contains(&d)) {
                    TypeDiff::Ptr
                } else {
                    TypeDiff::No
                };
            }
            let (Some(value), Some(ptr)) = (core_def(db, "IDifferentiable"), core_def(db, "IDifferentiablePtrType"))
            else {
                return TypeDiff::Unknown;
            };
            match crate::generics::conformance(db, file, ty, value) {
                Some(true) => TypeDiff::Value,
                _ => match crate::generics::conformance(db, file, ty, ptr) {
                    Some(true) => TypeDiff::Ptr,
                    Some(false) => TypeDiff::No,
                    None => TypeDiff::Unknown,
                },
            }
        }
        Ty::Tuple(items) => elements_diff(db, file, items),
        Ty::Param { def, .. } => {
            let Some(ifaces) = crate::generics::constraint_interfaces(db, *def) else { return TypeDiff::Unknown };
            let mut closure = std::collections::HashSet::new();
            for i in ifaces {
                crate::generics::interface_closure(db, i, &mut closure);
            }
            if core_def(db, "IDifferentiable").is_some_and(|d| closure.contains(&d)) {
                TypeDiff::Value
            } else if core_def(db, "IDifferentiablePtrType").is_some_and(|d| closure.contains(&d)) {
                TypeDiff::Ptr
            } else {
                TypeDiff::No
            }
        }
        _ => TypeDiff::Unknown,
    }
}

/// A tuple is differentiable when all its elements are.
fn elements_diff(db: &dyn Db, file: SourceFile, items: &[Ty]) -> TypeDiff {
    let diffs: Vec<TypeDiff> =
        items.iter().filter(|t| !matches!(t, Ty::Const(_))).map(|t| type_diff(db, file, t)).collect();
    if diffs.iter().all(|d| *d == TypeDiff::Value) {
        TypeDiff::Value
    } else if diffs.contains(&TypeDiff::Unknown) {
        TypeDiff::Unknown
    } else {
        TypeDiff::No
    }
}

/// `T.Differential`: the type of `T`'s derivatives.
pub fn differential_of(db: &dyn Db, ty: &Ty) -> Ty {
    match ty {
        Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) => ty.clone(),
        Ty::Array(e, n) => Ty::Array(std::sync::Arc::new(differential_of(db, e)), *n),
        Ty::Adt { def, args, name } if name == "DifferentialPair" && is_core(db, def.file(db)) => {
            Ty::Adt { def: *def, name: name.clone(), args: args.iter().map(|a| differential_of(db, a)).collect() }
        }
        Ty::Adt { def, args, .. } if !is_core(db, def.file(db)) && args.is_empty() => {
            // A synthesized `Differential` with the same fields is the type
            // itself.
            if let Some(fields) = synthesized_differential(db, def.file(db), *def) {
                if fields.is_self {
                    return ty.clone();
                }
            }
            // A written `typealias Differential = X;`.
            if let Some(item) = item_of(db, *def) {
                if let Some(m) =
                    item.members.iter().find(|m| m.name.as_deref() == Some("Differential") && m.kind.is_type())
                {
                    let mdef = DefId::new(db, def.file(db), m.ast_index);
                    if let Some(t) = crate::infer::decl_type_ref(db, mdef) {
                        let resolved = DeclCtx::for_def(db, mdef).resolve(t);
                        if !resolved.is_unknown() {
                            return resolved;
                        }
                    }
                }
            }
            Ty::Assoc(std::sync::Arc::new(ty.clone()), "Differential".to_string())
        }
        Ty::Unknown => Ty::Unknown,
        _ => Ty::Assoc(std::sync::Arc::new(ty.clone()), "Differential".to_string()),
    }
}

/// The `Differential` that Slang synthesizes for a user struct conforming
/// to `IDifferentiable` without writing one: a field for each
/// differentiable, non-`no_diff` field, of that field's `Differential`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SynthesizedDifferential {
    pub fields: Vec<(String, Ty)>,
    /// Same fields and types as the struct: the struct is its own
    /// `Differential`.
    pub is_self: bool,
}

fn no_synthesized_differential(_: &dyn Db, _: salsa::Id, _: SourceFile, _: DefId) -> Option<SynthesizedDifferential> {
    None
}

/// `None` when the struct writes its own `Differential`, is not
/// `IDifferentiable`, or has fields whose differentiability is unknown
/// (also when a field's type contains the struct itself, which only
/// broken code does: the cycle's fallback).
#[salsa::tracked(returns(ref), cycle_result = no_synthesized_differential)]
pub fn synthesized_differential(db: &dyn Db, file: SourceFile, def: DefId) -> Option<SynthesizedDifferential> {
    if item_of(db, def).is_some_and(|i| !i.generic_params.is_empty()) {
        return None;
    }
    synthesized_differential_of(db, file, def, &[])
}

/// Whether the field `m` (`mdef`) is declared `no_diff`.
pub(crate) fn field_is_no_diff(db: &dyn Db, m: &crate::item_tree::Item, mdef: DefId) -> bool {
    m.modifiers.contains(&slang_syntax::SyntaxKind::NO_DIFF_KW)
        || crate::hir::decl_syntax(db, mdef).is_some_and(|n| {
            n.parent()
                .is_some_and(|p| p.children_with_tokens().any(|e| e.kind() == slang_syntax::SyntaxKind::NO_DIFF_KW))
        })
}

/// [`synthesized_differential`] of the instance `def<args>` of a struct
/// (generic or not).
pub fn synthesized_differential_of(
    db: &dyn Db,
    file: SourceFile,
    def: DefId,
    args: &[Ty],
) -> Option<SynthesizedDifferential> {
    let item = item_of(db, def)?;
    if !matches!(item.kind, ItemKind::Struct | ItemKind::Class)
        || item.members.iter().any(|m| m.name.as_deref() == Some("Differential"))
        || item.generic_params.len() != args.len()
        || args.iter().any(|a| a.is_unknown())
    {
        return None;
    }
    let bindings: std::collections::HashMap<String, Ty> =
        item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
    let this = Ty::Adt { def, name: item.name.clone().unwrap_or_default(), args: args.to_vec() };
    if type_diff(db, file, &this) != TypeDiff::Value {
        return None;
    }
    let mut fields = Vec::new();
    let mut all = true;
    let mut same_types = true;
    for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
        let mdef = DefId::new(db, def.file(db), m.ast_index);
        let no_diff = field_is_no_diff(db, m, mdef);
        let ty = crate::infer::decl_type_ref(db, mdef)
            .clone()
            .map(|t| DeclCtx::specialized(db, mdef, &bindings).resolve(&t))
            .unwrap_or(Ty::Unknown);
        match (no_diff, type_diff(db, file, &ty)) {
            (true, _) | (false, TypeDiff::No | TypeDiff::Ptr) => all = false,
            (false, TypeDiff::Value) => {
                let d = differential_of(db, &ty);
                same_types &= d == ty;
                fields.push((m.name.clone().unwrap_or_default(), d));
            }
            (false, TypeDiff::Unknown) => return None,
        }
    }
    Some(SynthesizedDifferential { fields, is_self: all && same_types })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    In,
    Out,
    InOut,
}

impl Dir {
    /// The direction of a declared parameter.
    fn of(p: &crate::hir::Param) -> Dir {
        match (p.is_out, p.is_inout) {
            (false, _) => Dir::In,
            (true, true) => Dir::InOut,
            (true, false) => Dir::Out,
        }
    }

    /// `out `, `inout ` or nothing, as written before a parameter.
    pub fn keyword(self) -> &'static str {
        match self {
            Dir::In => "",
            Dir::Out => "out ",
            Dir::InOut => "inout ",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivParam {
    pub name: String,
    pub ty: Ty,
    pub dir: Dir,
    /// Whether the parameter takes part in differentiation (of the
    /// original function; kept through higher orders).
    pub diff: TypeDiff,
}

/// The signature of `fwd_diff(f)` or `bwd_diff(f)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivSig {
    /// The operators, innermost first.
    pub modes: Vec<Mode>,
    pub function: String,
    pub generic_params: Vec<String>,
    /// The implicit `this` of a method of a differentiable type (not
    /// `[NoDiffThis]`), transformed like a parameter; shown first, not
    /// passed explicitly.
    pub this_param: Option<DerivParam>,
    pub params: Vec<DerivParam>,
    pub ret: Ty,
}

impl fmt::Display for DerivSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut callee = self.function.clone();
        for m in &self.modes {
            callee = format!("{}({callee})", m.operator());
        }
        write!(f, "{} {callee}", self.ret)?;
        if !self.generic_params.is_empty() {
            write!(f, "<{}>", self.generic_params.join(", "))?;
        }
        let params: Vec<String> = self
            .this_param
            .iter()
            .chain(&self.params)
            .map(|p| format!("{}{} {}", p.dir.keyword(), p.ty, p.name))
            .collect();
        write!(f, "({})", params.join(", "))
    }
}

fn pair(db: &dyn Db, name: &str, t: Ty) -> Ty {
    match core_def(db, name) {
        Some(def) => Ty::Adt { def, name: name.to_string(), args: vec![t] },
        None => Ty::Unknown,
    }
}

/// The derivative signature of function `def` in `mode`, by the user
/// guide's rules. Parameters whose differentiability cannot be told keep
/// an unknown type (so that nothing is reported about them).
pub fn derivative_signature(db: &dyn Db, def: DefId, mode: Mode) -> DerivSig {
    higher_order_signature(db, def, &[mode])
}

/// Whether `def` is given derivatives by a `__func_extension` alone (no
/// attribute makes it differentiable). Then the values of a generic
/// parameter's type may be differentiable whatever its constraints: the
/// extension may be of one instance (`f<float>`) or constrain it itself.
pub fn differentiable_by_extension_only(db: &dyn Db, def: DefId) -> bool {
    let Some(item) = item_of(db, def) else { return false };
    let Some(name) = item.name.as_deref() else { return false };
    !item.attrs.iter().any(|a| a.contains("Differentiable") || a.contains("Derivative") || a == "PrimalSubstitute")
        && crate::module_graph::module_of(db, def.file(db))
            .iter()
            .any(|&f| func_extensions(db, f).iter().any(|e| e.target == name))
}

/// `fwd_diff(fwd_diff(f))`, `bwd_diff(fwd_diff(f))` …: `modes` from the
/// innermost operator out. Each step applies the same rules to the
/// previous step's signature (a pair of a differentiable type is itself
/// differentiable).
pub fn higher_order_signature(db: &dyn Db, def: DefId, modes: &[Mode]) -> DerivSig {
    let file = def.file(db);
    let sig = fn_sig(db, def);
    let mut ctx = DeclCtx::for_def(db, def);
    let item = item_of(db, def);
    let function = item.as_ref().and_then(|i| i.name.clone()).unwrap_or_default();
    let ret_no_diff = crate::hir::decl_syntax(db, def)
        .is_some_and(|n| n.children_with_tokens().any(|e| e.kind() == slang_syntax::SyntaxKind::NO_DIFF_KW));
    let extended_only = differentiable_by_extension_only(db, def);
    let type_diff = |db: &dyn Db, file: SourceFile, ty: &Ty| match type_diff(db, file, ty) {
        TypeDiff::No if extended_only && matches!(ty, Ty::Param { .. }) => TypeDiff::Unknown,
        d => d,
    };
    let ret_ty = ctx.resolve(&sig.ret);
    let mut ret = (ret_ty.clone(), if ret_no_diff { TypeDiff::No } else { type_diff(db, file, &ret_ty) });
    let mut params: Vec<DerivParam> = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let ty = ctx.resolve(&p.ty);
        let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
        let dir = Dir::of(p);
        let diff = if p.no_diff { TypeDiff::No } else { type_diff(db, file, &ty) };
        params.push(DerivParam { name, ty, dir, diff });
    }
    // The implicit `this` of a non-static method of a differentiable type.
    let mut this_param = item.as_ref().filter(|i| !i.is_static && !i.has_attr("NoDiffThis")).and_then(|i| {
        let parent = crate::infer::parent_of(db, def)?;
        let p = item_of(db, parent)?;
        let (this, diff) = match p.kind {
            // A requirement of a differentiable interface: `this` is the
            // conforming type, `This`.
            ItemKind::Interface => {
                let mut closure = std::collections::HashSet::new();
                crate::generics::interface_closure(db, parent, &mut closure);
                if !core_def(db, "IDifferentiable").is_some_and(|d| closure.contains(&d)) {
                    return None;
                }
                (Ty::Param { def: parent, name: "This".to_string() }, TypeDiff::Value)
            }
            ItemKind::Struct | ItemKind::Class => {
                let this = match &ctx.this {
                    t @ Ty::Adt { def, .. } if *def == parent => t.clone(),
                    _ => Ty::Adt { def: parent, name: p.name.clone().unwrap_or_default(), args: Vec::new() },
                };
                let diff = match type_diff(db, file, &this) {
                    d @ (TypeDiff::Value | TypeDiff::Ptr) => d,
                    // A `__func_extension` of a method of a type that is
                    // not differentiable takes `this` as an ordinary first
                    // parameter.
                    _ if extended_only => TypeDiff::No,
                    _ => return None,
                };
                (this, diff)
            }
            _ => return None,
        };
        let mutating = i.has_attr("mutating") || i.modifiers.contains(&slang_syntax::SyntaxKind::MUTATING_KW);
        let dir = if mutating { Dir::InOut } else { Dir::In };
        Some(DerivParam { name: "this".to_string(), ty: this, dir, diff })
    });
    for &mode in modes {
        let mut next = Vec::new();
        for p in params {
            next.extend(transform_param(db, p, mode));
        }
        this_param = this_param.and_then(|p| {
            let dir = if mode == Mode::Backward && p.diff == TypeDiff::Value { Dir::InOut } else { p.dir };
            transform_param(db, DerivParam { dir, ..p }, mode)
        });
        let (ret_ty, ret_diff) = ret;
        ret = match (mode, ret_diff) {
            (Mode::Forward, TypeDiff::Value) => (pair(db, "DifferentialPair", ret_ty), TypeDiff::Value),
            (Mode::Forward, TypeDiff::Unknown) => (Ty::Unknown, TypeDiff::Unknown),
            (Mode::Forward, d) => (ret_ty, d),
            (Mode::Backward, d) => {
                match d {
                    TypeDiff::Value => next.push(DerivParam {
                        name: "dResult".to_string(),
                        ty: differential_of(db, &ret_ty),
                        dir: Dir::In,
                        diff: TypeDiff::Value,
                    }),
                    TypeDiff::Unknown => next.push(DerivParam {
                        name: "dResult".to_string(),
                        ty: Ty::Unknown,
                        dir: Dir::In,
                        diff: TypeDiff::Unknown,
                    }),
                    _ => {}
                }
                (Ty::Void, TypeDiff::No)
            }
        };
        params = next;
    }
    DerivSig {
        modes: modes.to_vec(),
        function,
        generic_params: sig.generic_params.clone(),
        this_param,
        params,
        ret: ret.0,
    }
}

/// One parameter through one derivative operator (the reference rules).
fn transform_param(db: &dyn Db, p: DerivParam, mode: Mode) -> Option<DerivParam> {
    let DerivParam { name, ty, dir, diff } = p;
    match (mode, diff, dir) {
        (_, TypeDiff::Unknown, _) => Some(DerivParam { name, ty: Ty::Unknown, dir, diff }),
        (Mode::Forward, TypeDiff::Value, _) => {
            Some(DerivParam { name, ty: pair(db, "DifferentialPair", ty), dir, diff })
        }
        (_, TypeDiff::Ptr, _) => Some(DerivParam { name, ty: pair(db, "DifferentialPtrPair", ty), dir, diff }),
        (Mode::Forward, TypeDiff::No, _) => Some(DerivParam { name, ty, dir, diff }),
        (Mode::Backward, TypeDiff::Value, Dir::In | Dir::InOut) => {
            Some(DerivParam { name, ty: pair(db, "DifferentialPair", ty), dir: Dir::InOut, diff })
        }
        (Mode::Backward, TypeDiff::Value, Dir::Out) => {
            Some(DerivParam { name, ty: differential_of(db, &ty), dir: Dir::In, diff })
        }
        (Mode::Backward, TypeDiff::No, Dir::In | Dir::InOut) => Some(DerivParam { name, ty, dir: Dir::In, diff }),
        (Mode::Backward, TypeDiff::No, Dir::Out) => None,
    }
}

/// The functions of `file` named `name` (free functions and methods; a
/// `Type.method` or `Type::method` name selects methods of that type).
pub fn functions_named(db: &dyn Db, file: SourceFile, name: &str) -> Vec<DefId> {
    let (owner, fname) = match name.rsplit_once("::").or_else(|| name.rsplit_once('.')) {
        Some((o, f)) => (Some(o), f),
        None => (None, name),
    };
    let tree = crate::item_tree::item_tree(db, file);
    let mut out = Vec::new();
    fn walk(
        db: &dyn Db,
        file: SourceFile,
        items: &[crate::item_tree::Item],
        parent: Option<&str>,
        owner: Option<&str>,
        fname: &str,
        out: &mut Vec<DefId>,
    ) {
        for i in items {
            if i.kind == ItemKind::Fn && i.name.as_deref() == Some(fname) && (owner.is_none() || owner == parent) {
                out.push(DefId::new(db, file, i.ast_index));
            }
            if !i.members.is_empty() {
                walk(db, file, &i.members, i.name.as_deref(), owner, fname, out);
            }
        }
    }
    walk(db, file, &tree.items, None, owner, fname, &mut out);
    out
}

/// Autodiff checks that read declarations: loops in backward-
/// differentiable functions without an iteration bound the compiler can
/// see (E30510), and derivative attributes naming functions that do not
/// exist.
#[salsa::tracked(returns(ref))]
pub fn autodiff_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<crate::diagnostics::Diagnostic> {
    use slang_syntax::SyntaxKind as K;
    let tree = crate::item_tree::item_tree(db, file);
    let mut out = Vec::new();
    if tree.has_item_macros {
        return out;
    }
    let scope = crate::name_res::global_scope(db, file);
    for item in tree.walk().filter(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)) {
        check_manual_differential(db, file, item, &mut out);
        crate::autodiff_checks::written_differential(db, file, item, &mut out);
    }
    // Function and loop attributes on types and variables.
    let restricted = |a: &String| function_only(a) || LOOP_ATTRIBUTES.contains(&a.as_str()) || a == "DerivativeMember";
    for item in tree.walk().filter(|i| {
        matches!(i.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum | ItemKind::Var)
            && i.attrs.iter().any(restricted)
    }) {
        let def = DefId::new(db, file, item.ast_index);
        let Some(node) = crate::hir::def_node(db, def) else { continue };
        let holder = if node.kind() == K::DECLARATOR { node.parent() } else { Some(node) };
        let Some(holder) = holder else { continue };
        for attr in holder.children().filter(|c| c.kind() == K::ATTRIBUTE) {
            for path in attr.children().filter(|c| c.kind() == K::PATH) {
                if let Some(message) = misplaced_attribute(&path.text().to_string(), &holder) {
                    out.push(crate::diagnostics::Diagnostic {
                        range: path.text_range(),
                        severity: crate::diagnostics::Severity::Error,
                        code: "attribute-placement",
                        message,
                    });
                }
            }
        }
    }
    for item in tree.walk().filter(|i| i.kind == ItemKind::Fn) {
        let def = DefId::new(db, file, item.ast_index);
        let derivative_attrs = DERIVATIVE_ATTRIBUTES;
        let backward = item.has_attr("Differentiable") || item.has_attr("BackwardDifferentiable");
        let forward = item.has_attr("ForwardDifferentiable");
        if !backward && !forward && !item.attrs.iter().any(|a| derivative_attrs.contains(&a.as_str())) {
            continue;
        }
        let Some(node) = crate::hir::def_node(db, def) else { continue };
        let start = node.text_range().start();
        let Some(local) = crate::hir::decl_syntax(db, def) else { continue };
        // Derivative attributes: the named function must exist.
        for attr in local.children().filter(|c| c.kind() == K::ATTRIBUTE) {
            let name = attr.children().find(|c| c.kind() == K::PATH).map(|p| p.text().to_string()).unwrap_or_default();
            if !derivative_attrs.contains(&name.as_str()) {
                continue;
            }
            let Some(args) = attr.children().find(|c| c.kind() == K::ATTRIBUTE_ARGS) else { continue };
            let idents: Vec<_> = args
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == K::IDENT)
                .collect();
            let Some(first) = idents.first() else { continue };
            let target = parse_deriv_target(args.text().to_string().trim_matches(|c| c == '(' || c == ')'));
            let name_tok = idents.iter().find(|t| t.text() == target.name).unwrap_or(first);
            let range = name_tok.text_range() + start;
            let candidates = derivative_candidates(db, def, &target);
            if let Some(problem) = candidates.as_deref().and_then(|c| derivative_mismatch(db, def, &name, c)) {
                out.push(crate::diagnostics::Diagnostic {
                    range,
                    severity: crate::diagnostics::Severity::Error,
                    code: "derivative-signature",
                    message: problem,
                });
            }
            let macro_named = tree.macro_fragments.contains(&target.name);
            match (&target.qualifier, &candidates) {
                (None, Some(c)) if c.is_empty() && scope.lookup(&target.name).is_none() && !macro_named => {
                    out.push(crate::diagnostics::Diagnostic {
                        range,
                        severity: crate::diagnostics::Severity::Error,
                        code: "unresolved-name",
                        message: format!("cannot find `{}` (named by `[{name}]`) in this scope", target.name),
                    })
                }
                (Some(q), Some(c)) if c.is_empty() && !macro_named => out.push(crate::diagnostics::Diagnostic {
                    range,
                    severity: crate::diagnostics::Severity::Error,
                    code: "unresolved-name",
                    message: format!("`{q}` has no method `{}` (named by `[{name}]`)", target.name),
                }),
                (Some(q), Some(c)) if q != "This" && !c.is_empty() && c.iter().all(|d| is_instance_method(db, *d)) => {
                    out.push(crate::diagnostics::Diagnostic {
                        range,
                        severity: crate::diagnostics::Severity::Error,
                        code: "non-static-through-type",
                        message: format!(
                            "`{q}.{n}` names a non-static method through its type: write `{n}` (or make it `static`)",
                            n = target.name
                        ),
                    })
                }
                _ => {}
            }
        }
        if backward || forward {
            crate::autodiff_checks::differentiable_fn(db, file, def, &local, start, &mut out);
        }
        if item.has_attr("PrimalSubstituteOf") {
            crate::autodiff_checks::primal_substitute(db, def, item, &local, start, &mut out);
        }
        // Loops (the reference compiler asks for a bound in forward-only
        // functions too).
        for lp in local.descendants().filter(|n| matches!(n.kind(), K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT)) {
            let attributed = lp.parent().is_some_and(|p| {
                p.kind() == K::ATTRIBUTED_STMT
                    && p.children().filter(|c| c.kind() == K::ATTRIBUTE).any(|a| {
                        let t = a.text().to_string();
                        t.contains("MaxIters") || t.contains("ForceUnroll") || t.contains("unroll")
                    })
            });
            if attributed || (lp.kind() == K::FOR_STMT && for_is_bounded(db, file, &lp)) {
                continue;
            }
            let keyword = lp.first_token().map(|t| t.text_range()).unwrap_or(lp.text_range());
            out.push(crate::diagnostics::Diagnostic {
                range: keyword + start,
                severity: crate::diagnostics::Severity::Error,
                code: "unbounded-loop",
                message: format!(
                    "this loop in the differentiable function `{}` has no iteration bound the compiler can see: \
                     add `[MaxIters(n)]` (or `[ForceUnroll]`) before it",
                    item.name.as_deref().unwrap_or("")
                ),
            });
        }
        if !backward {
            continue;
        }
        // `IDifferentiablePtrType` values only as inputs (the user guide:
        // "will result in a compile-time diagnostic error"; the reference
        // compiler does not report it yet, hence a warning).
        let sig = fn_sig(db, def);
        let mut ctx = DeclCtx::for_def(db, def);
        let fn_node = ast_fn(&local);
        let ptr_at = |what: &str, range: slang_syntax::TextRange| crate::diagnostics::Diagnostic {
            range: range + start,
            severity: crate::diagnostics::Severity::Warning,
            code: "differentiable-ptr-output",
            message: format!(
                "{what} of an `IDifferentiablePtrType` type in a differentiable function: such values can only be \
                 inputs"
            ),
        };
        if let Some(f) = &fn_node {
            let params: Vec<_> = f.param_list().map(|l| l.params().collect()).unwrap_or_default();
            for (p, ast_p) in sig.params.iter().zip(params) {
                if p.is_out && type_diff(db, file, &ctx.resolve(&p.ty)) == TypeDiff::Ptr {
                    out.push(ptr_at("an `out`/`inout` parameter", ast_p.syntax().text_range()));
                }
            }
            if type_diff(db, file, &ctx.resolve(&sig.ret)) == TypeDiff::Ptr {
                if let Some(t) = f.return_type() {
                    out.push(ptr_at("a return value", t.syntax().text_range()));
                }
            }
        }
    }
    out
}

/// Why the location an assignment in a differentiable function writes
/// (`lhs`) cannot hold a derivative, when it cannot: a global
/// (`static` or `groupshared`), a `no_diff` `out`/`inout` parameter, or a
/// part of a value whose type is not differentiable (`obj.f` with `obj` a
/// struct that is not `IDifferentiable`). A store of a derivative-carrying
/// value there is the reference compiler's E41031. `local` tells whether a
/// name is a local of the body (`Some(true)` for a parameter). `None` when
/// the location can hold one or cannot be told.
pub(crate) fn location_without_derivative(
    db: &dyn Db,
    file: SourceFile,
    body: &crate::hir::Body,
    types: &[Ty],
    lhs: crate::hir::ExprId,
    local: &dyn Fn(&str) -> Option<bool>,
) -> Option<String> {
    use crate::hir::Expr;
    let mut e = lhs;
    loop {
        match body.expr(e) {
            Expr::Member { receiver, .. } => {
                let ty = types.get(receiver.0 as usize)?;
                if let Ty::Adt { def, name, .. } = ty {
                    let user_struct = !is_core(db, def.file(db))
                        && item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class));
                    if user_struct && type_diff(db, file, ty) == TypeDiff::No {
                        return Some(format!("a field of a `{name}`, a type that is not differentiable"));
                    }
                }
                e = *receiver;
            }
            // Elements of arrays, vectors and matrices (not subscripts of
            // other types, which go through accessors).
            Expr::Index { base, .. } => {
                if !matches!(types.get(base.0 as usize)?, Ty::Array(..) | Ty::Vector(..) | Ty::Matrix(..)) {
                    return None;
                }
                e = *base;
            }
            Expr::Path(segs, false) if segs.len() == 1 => {
                let name = segs[0].name.as_str();
                return match local(name) {
                    Some(true) => body
                        .params
                        .iter()
                        .any(|p| p.name.as_deref() == Some(name) && p.no_diff && p.is_out)
                        .then(|| format!("the `no_diff` parameter `{name}`")),
                    Some(false) => None,
                    None => {
                        let scope = crate::name_res::global_scope(db, file);
                        let defs = scope.lookup(name)?;
                        let [d] = defs.as_slice() else { return None };
                        if d.kind != ItemKind::Var {
                            return None;
                        }
                        let item = item_of(db, DefId::new(db, d.file, d.ast_index))?;
                        use slang_syntax::SyntaxKind as K;
                        if item.modifiers.contains(&K::GROUPSHARED_KW) {
                            Some(format!("the `groupshared` variable `{name}`"))
                        } else if item.modifiers.contains(&K::STATIC_KW) {
                            Some(format!("the global `{name}`"))
                        } else {
                            None
                        }
                    }
                };
            }
            _ => return None,
        }
    }
}

/// A struct that writes its own `IDifferentiable` parts: `dzero`, `dadd`
/// and `dmul` must be `[Differentiable]` (E38110), and each
/// `[DerivativeMember(Differential.x)]` must name a field of the
/// `Differential` (E30027).
fn check_manual_differential(
    db: &dyn Db,
    file: SourceFile,
    item: &crate::item_tree::Item,
    out: &mut Vec<crate::diagnostics::Diagnostic>,
) {
    use slang_syntax::SyntaxKind as K;
    // Only types that write such parts (most do not; this runs on every
    // edit of the file).
    let writes_parts = item
        .members
        .iter()
        .any(|m| matches!(m.name.as_deref(), Some("dzero" | "dadd" | "dmul")) || m.has_attr("DerivativeMember"));
    if !writes_parts {
        return;
    }
    let def = DefId::new(db, file, item.ast_index);
    let this = Ty::Adt { def, name: item.name.clone().unwrap_or_default(), args: Vec::new() };
    if type_diff(db, file, &this) != TypeDiff::Value {
        return;
    }
    for m in &item.members {
        let mdef = DefId::new(db, file, m.ast_index);
        let Some(node) = crate::hir::def_node(db, mdef) else { continue };
        let start = node.text_range().start();
        let Some(local) = crate::hir::decl_syntax(db, mdef) else { continue };
        let name_range = || {
            local.children().find(|c| c.kind() == K::NAME).map(|n| n.text_range() + start).unwrap_or(node.text_range())
        };
        if m.kind == ItemKind::Fn
            && matches!(m.name.as_deref(), Some("dzero" | "dadd" | "dmul"))
            && fn_differentiability(db, file, mdef) == Differentiability::No
        {
            out.push(crate::diagnostics::Diagnostic {
                range: name_range(),
                severity: crate::diagnostics::Severity::Error,
                code: "not-differentiable",
                message: format!(
                    "`{}` implements `IDifferentiable` for `{}` and must be `[Differentiable]`",
                    m.name.as_deref().unwrap_or(""),
                    item.name.as_deref().unwrap_or("")
                ),
            });
        }
        if m.kind != ItemKind::Var || !m.has_attr("DerivativeMember") {
            continue;
        }
        // The attribute sits on the declaration around the declarator.
        let holder = local.clone();
        let attrs: Vec<_> = node
            .parent()
            .filter(|p| p.kind() == K::VAR_DECL)
            .map(|p| p.children().filter(|c| c.kind() == K::ATTRIBUTE).collect())
            .unwrap_or_else(|| holder.children().filter(|c| c.kind() == K::ATTRIBUTE).collect());
        for attr in attrs {
            if !attr.children().any(|c| c.kind() == K::PATH && c.text() == "DerivativeMember") {
                continue;
            }
            let Some(field) =
                attr.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
            else {
                continue;
            };
            let diff = differential_of(db, &this);
            let Ty::Adt { def: ddef, name: dname, .. } = &diff else { continue };
            if is_core(db, ddef.file(db)) {
                continue;
            }
            let Some(ditem) = item_of(db, *ddef) else { continue };
            if !ditem.members.iter().any(|f| f.name.as_deref() == Some(field.text())) {
                out.push(crate::diagnostics::Diagnostic {
                    range: field.text_range(),
                    severity: crate::diagnostics::Severity::Error,
                    code: "no-such-member",
                    message: format!("`[DerivativeMember]`: no member named `{}` in `{dname}`", field.text()),
                });
            }
        }
    }
}

/// A derivative attribute's argument: `g`, `S.g`, `S::g`, `g<T>`.
pub(crate) struct DerivTarget {
    qualifier: Option<String>,
    pub(crate) name: String,
}

pub(crate) fn parse_deriv_target(text: &str) -> DerivTarget {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let text = text.split('<').next().unwrap_or("");
    match text.rsplit_once("::").or_else(|| text.rsplit_once('.')) {
        Some((q, n)) => DerivTarget { qualifier: Some(q.to_string()), name: n.to_string() },
        None => DerivTarget { qualifier: None, name: text.to_string() },
    }
}

/// The functions a derivative attribute on `holder` can name: the
/// methods of the named type (`S.g`), or the enclosing type's methods and
/// the global functions (`g`). `None`: the qualifier is not a type we
/// know (nothing is said then).
pub(crate) fn derivative_candidates(db: &dyn Db, holder: DefId, target: &DerivTarget) -> Option<Vec<DefId>> {
    let file = holder.file(db);
    let parent = crate::infer::parent_of(db, holder)
        .filter(|p| item_of(db, *p).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)));
    let members_named = |ty: DefId| -> Vec<DefId> {
        item_of(db, ty)
            .map(|i| {
                i.members
                    .iter()
                    .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(target.name.as_str()))
                    .map(|m| DefId::new(db, ty.file(db), m.ast_index))
                    .collect()
            })
            .unwrap_or_default()
    };
    let scope = crate::name_res::global_scope(db, file);
    match &target.qualifier {
        Some(q) => {
            let ty = if q == "This"
                || parent.and_then(|p| item_of(db, p)).and_then(|i| i.name.clone()).as_deref() == Some(q)
            {
                parent?
            } else {
                let d = scope.lookup(q)?.iter().find(|d| matches!(d.kind, ItemKind::Struct | ItemKind::Class))?;
                DefId::new(db, d.file, d.ast_index)
            };
            Some(members_named(ty))
        }
        None => {
            let mut out = parent.map(members_named).unwrap_or_default();
            if let Some(defs) = scope.lookup(&target.name) {
                out.extend(defs.iter().filter(|d| d.kind == ItemKind::Fn).map(|d| DefId::new(db, d.file, d.ast_index)));
            }
            Some(out)
        }
    }
}

/// Whether `def` is a non-static method of a struct or class.
pub(crate) fn is_instance_method(db: &dyn Db, def: DefId) -> bool {
    item_of(db, def).is_some_and(|i| !i.is_static)
        && crate::infer::parent_of(db, def)
            .and_then(|p| item_of(db, p))
            .is_some_and(|p| matches!(p.kind, ItemKind::Struct | ItemKind::Class))
}

/// `T.Differential` of a concrete `T` written out; the rest unchanged.
fn normalize_differentials(db: &dyn Db, t: &Ty) -> Ty {
    use std::sync::Arc;
    match t {
        Ty::Assoc(base, n) if n == "Differential" => {
            let base = normalize_differentials(db, base);
            if matches!(base, Ty::Param { .. } | Ty::Assoc(..)) {
                Ty::Assoc(Arc::new(base), n.clone())
            } else {
                differential_of(db, &base)
            }
        }
        Ty::Adt { def, name, args } => Ty::Adt {
            def: *def,
            name: name.clone(),
            args: args.iter().map(|a| normalize_differentials(db, a)).collect(),
        },
        Ty::Array(e, n) => Ty::Array(Arc::new(normalize_differentials(db, e)), *n),
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|a| normalize_differentials(db, a)).collect()),
        _ => t.clone(),
    }
}

/// Whether a derivative's declared type `actual` is the `expected` one
/// (generic parameters matched by position through `rename`). Types we
/// cannot tell (unknown, associated types of concrete types) match.
fn same_deriv_type(expected: &Ty, actual: &Ty, rename: &HashMap<String, String>) -> bool {
    match (expected, actual) {
        (Ty::Unknown, _) | (_, Ty::Unknown) => true,
        (Ty::Assoc(b, _), _) | (_, Ty::Assoc(b, _)) if !matches!(**b, Ty::Param { .. } | Ty::Assoc(..)) => true,
        (Ty::Param { name: e, .. }, Ty::Param { name: a, .. }) => rename.get(a).unwrap_or(a) == e,
        (Ty::Assoc(eb, en), Ty::Assoc(ab, an)) => en == an && same_deriv_type(eb, ab, rename),
        (Ty::Adt { def: ed, args: ea, .. }, Ty::Adt { def: ad, args: aa, .. }) => {
            ed == ad && ea.len() == aa.len() && ea.iter().zip(aa).all(|(e, a)| same_deriv_type(e, a, rename))
        }
        (Ty::Array(e, en), Ty::Array(a, an)) => {
            (en.is_none() || an.is_none() || en == an) && same_deriv_type(e, a, rename)
        }
        (Ty::Tuple(e), Ty::Tuple(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| same_deriv_type(e, a, rename))
        }
        (Ty::Const(_), _) | (_, Ty::Const(_)) => true,
        (e, a) => e == a,
    }
}

/// Why function `deriv` cannot be the `mode` derivative of `primal`, if
/// it cannot: a message naming the expected signature.
fn derivative_pair_problem(db: &dyn Db, primal: DefId, deriv: DefId, mode: Mode) -> Option<String> {
    let psig = fn_sig(db, primal);
    let dsig = fn_sig(db, deriv);
    let pname = item_of(db, primal).and_then(|i| i.name.clone()).unwrap_or_default();
    let dname = item_of(db, deriv).and_then(|i| i.name.clone()).unwrap_or_default();
    // A derivative has the generic parameters of its function.
    if psig.generic_params.len() != dsig.generic_params.len() {
        let count = |n: usize| match n {
            0 => "no generic parameters".to_string(),
            1 => "1 generic parameter".to_string(),
            n => format!("{n} generic parameters"),
        };
        return Some(format!(
            "`{dname}` has {} but `{pname}` has {}; a derivative takes the same generic parameters as its function",
            count(dsig.generic_params.len()),
            count(psig.generic_params.len())
        ));
    }
    let expected = derivative_signature(db, primal, mode);
    let instance_primal = is_instance_method(db, primal);
    let instance_deriv = is_instance_method(db, deriv);
    if expected.this_param.is_some() && instance_deriv {
        return Some(format!(
            "`{dname}` must be `static` and take the derivative of `this` as its first parameter: expected \
             `static {expected}`"
        ));
    }
    if expected.this_param.is_none() && instance_primal && !instance_deriv {
        return Some(format!(
            "`{pname}` is a method without a differentiable `this`, so `{dname}` must be a non-static method of the \
             same type: expected `{expected}`"
        ));
    }
    let rename: HashMap<String, String> =
        dsig.generic_params.iter().cloned().zip(psig.generic_params.iter().cloned()).collect();
    let mut ctx = DeclCtx::for_def(db, deriv);
    let actual: Vec<(Dir, Ty)> =
        dsig.params.iter().map(|p| (Dir::of(p), normalize_differentials(db, &ctx.resolve(&p.ty)))).collect();
    let ret = normalize_differentials(db, &ctx.resolve(&dsig.ret));
    let wanted: Vec<&DerivParam> = expected.this_param.iter().chain(&expected.params).collect();
    let fits = actual.len() == wanted.len()
        && actual
            .iter()
            .zip(&wanted)
            .all(|((dir, ty), e)| *dir == e.dir && same_deriv_type(&normalize_differentials(db, &e.ty), ty, &rename))
        && same_deriv_type(&normalize_differentials(db, &expected.ret), &ret, &rename);
    // (A type this model cannot work out, say `vector<float, N>` of a
    // `__generic<let N : int>` function: nothing to compare with.)
    let open = |t: &Ty| t.to_string().contains("{unknown}");
    let unsure = wanted.iter().any(|e| open(&e.ty)) || open(&expected.ret);
    if fits || unsure {
        return None;
    }
    let shown = if expected.this_param.is_some() { format!("static {expected}") } else { expected.to_string() };
    Some(format!("`{dname}` does not have the signature of `{}({pname})`: expected `{shown}`", mode.operator()))
}

/// For `[ForwardDerivative(g)]` on `f` (or `[ForwardDerivativeOf(f)]` on
/// `g`, and the backward forms): a message if no function that `g` names
/// has the signature that `fwd_diff(f)` / `bwd_diff(f)` would have.
fn derivative_mismatch(db: &dyn Db, def: DefId, attr: &str, named: &[DefId]) -> Option<String> {
    let (mode, of) = match attr {
        "ForwardDerivative" => (Mode::Forward, false),
        "BackwardDerivative" => (Mode::Backward, false),
        "ForwardDerivativeOf" => (Mode::Forward, true),
        "BackwardDerivativeOf" => (Mode::Backward, true),
        _ => return None,
    };
    let mut first_problem = None;
    for &other in named {
        let (primal, deriv) = if of { (other, def) } else { (def, other) };
        match derivative_pair_problem(db, primal, deriv, mode) {
            None => return None,
            Some(p) => {
                first_problem.get_or_insert(p);
            }
        }
    }
    first_problem
}

fn ast_fn(node: &slang_syntax::SyntaxNode) -> Option<slang_syntax::ast::Fn> {
    slang_syntax::ast::Fn::cast(node.clone())
}

/// `for (int i = …; i < 8; …)`: a loop the compiler bounds by itself (the
/// bound a literal, a constant or a generic value parameter).
fn for_is_bounded(db: &dyn Db, file: SourceFile, lp: &slang_syntax::SyntaxNode) -> bool {
    use slang_syntax::SyntaxKind as K;
    let Some(cond) = lp.children().find(|c| c.kind() == K::BIN_EXPR) else { return false };
    let is_cmp = cond.children_with_tokens().any(|e| {
        matches!(e.kind(), K::L_ANGLE | K::R_ANGLE | K::LTEQ | K::GTEQ | K::NEQ)
            || e.as_token().is_some_and(|t| matches!(t.text(), ">=" | "<=" | "<" | ">" | "!="))
    });
    if !is_cmp || !crate::autodiff_checks::one_induction_variable(lp, &cond) {
        return false;
    }
    let operands: Vec<_> = cond.children().collect();
    operands.iter().any(|o| is_constant_expr(db, file, lp, o))
}

/// Whether `o` (in loop `lp`) is a constant the compiler can evaluate:
/// literals, `const` globals and locals, generic value parameters, and
/// arithmetic of them.
fn is_constant_expr(
    db: &dyn Db,
    file: SourceFile,
    lp: &slang_syntax::SyntaxNode,
    o: &slang_syntax::SyntaxNode,
) -> bool {
    use slang_syntax::SyntaxKind as K;
    let evaluates = |o: &slang_syntax::SyntaxNode| evaluates_in(db, file, o);
    match o.kind() {
        K::LITERAL => true,
        K::PAREN_EXPR | K::BIN_EXPR | K::PREFIX_EXPR => {
            let parts: Vec<_> = o.children().collect();
            !parts.is_empty() && parts.iter().all(|p| is_constant_expr(db, file, lp, p))
        }
        K::PATH_EXPR => {
            let name = o.text().to_string();
            let name = name.trim();
            let scope = crate::name_res::global_scope(db, file);
            let global_const = scope.lookup(name).and_then(|d| d.first()).is_some_and(|d| {
                let def = DefId::new(db, d.file, d.ast_index);
                item_of(db, def).is_some_and(|i| {
                    i.kind == ItemKind::Var && i.modifiers.contains(&slang_syntax::SyntaxKind::CONST_KW)
                })
            });
            // A generic value parameter (`let N : int`) of an enclosing
            // declaration: its text is a short capitalized name, looked up
            // among the function's ancestors' generic parameters.
            let generic_value = lp.ancestors().any(|a| {
                a.children()
                    .filter(|c| c.kind() == K::GENERIC_PARAM_LIST)
                    .any(|l| l.descendants().filter(|n| n.kind() == K::NAME).any(|n| n.text() == name))
            });
            // A `const` local of the function.
            let local_const = {
                let body = lp.ancestors().find(|a| a.kind() == K::FN);
                body.is_some_and(|b| {
                    b.descendants().filter(|n| n.kind() == K::VAR_DECL).any(|d| {
                        d.children_with_tokens().any(|t| t.kind() == K::CONST_KW)
                            && d.descendants()
                                .filter(|n| n.kind() == K::NAME)
                                .any(|n| n.text() == name && n.text_range().end() <= lp.text_range().start())
                    })
                })
            };
            global_const || generic_value || local_const || evaluates(o)
        }
        // `S.K`: a `static const` member.
        K::MEMBER_EXPR | K::CALL_EXPR => evaluates(o),
        _ => false,
    }
}

/// Whether `o` is a constant integer expression of globals and type
/// members (see [`DeclCtx::eval_const`]).
fn evaluates_in(db: &dyn Db, file: SourceFile, o: &slang_syntax::SyntaxNode) -> bool {
    slang_syntax::ast::Expr::cast(o.clone()).is_some_and(|e| DeclCtx::new(db, file).eval_const(&e).is_some())
}

/// The `Differential` descriptions (see [`hover_facts`]) of the user
/// struct types among a function's parameter and return types.
pub fn differential_facts_of_signature(db: &dyn Db, from: SourceFile, def: DefId) -> Vec<String> {
    let sig = fn_sig(db, def);
    let mut ctx = DeclCtx::for_def(db, def);
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for t in sig.params.iter().map(|p| &p.ty).chain([&sig.ret]) {
        if let Ty::Adt { def: tdef, .. } = ctx.resolve(t) {
            if !is_core(db, tdef.file(db)) && !seen.contains(&tdef) {
                seen.push(tdef);
                out.extend(hover_facts(db, from, tdef));
            }
        }
    }
    out
}

/// What an editor shows about a declaration's autodiff facts (plain text,
/// Slang syntax): for a differentiable function its derivative
/// signatures; for a differentiable struct its `Differential`.
pub fn hover_facts(db: &dyn Db, from: SourceFile, def: DefId) -> Option<String> {
    let item = item_of(db, def)?;
    match item.kind {
        ItemKind::Fn => {
            let d = fn_differentiability(db, from, def);
            if d == Differentiability::No {
                return None;
            }
            let mut lines = vec![derivative_signature(db, def, Mode::Forward).to_string()];
            if d.allows(Mode::Backward) {
                lines.push(derivative_signature(db, def, Mode::Backward).to_string());
            } else {
                lines.push("bwd_diff: not available (forward-differentiable only)".to_string());
            }
            Some(lines.join("\n"))
        }
        ItemKind::Struct | ItemKind::Class => {
            let name = item.name.clone().unwrap_or_default();
            let this = Ty::Adt { def, name: name.clone(), args: Vec::new() };
            match synthesized_differential(db, from, def) {
                Some(s) if s.is_self => Some(format!("typealias {name}.Differential = {name}; // synthesized")),
                Some(s) => {
                    let fields: Vec<String> = s.fields.iter().map(|(n, t)| format!("    {t} {n};")).collect();
                    Some(format!("struct {name}.Differential // synthesized\n{{\n{}\n}}", fields.join("\n")))
                }
                None if type_diff(db, from, &this) == TypeDiff::Value => {
                    let d = differential_of(db, &this);
                    Some(format!("typealias {name}.Differential = {d};"))
                }
                None => None,
            }
        }
        _ => None,
    }
}

/// Attributes that take exactly one argument, checked wherever they are
/// written (the reference compiler's E31001).
const ONE_ARGUMENT_ATTRIBUTES: [&str; 8] = [
    "MaxIters",
    "ForwardDerivative",
    "BackwardDerivative",
    "ForwardDerivativeOf",
    "BackwardDerivativeOf",
    "PrimalSubstitute",
    "PrimalSubstituteOf",
    "DerivativeMember",
];

/// Attributes naming a derivative or primal substitute.
pub(crate) const DERIVATIVE_ATTRIBUTES: [&str; 6] = [
    "ForwardDerivative",
    "BackwardDerivative",
    "PrimalSubstitute",
    "ForwardDerivativeOf",
    "BackwardDerivativeOf",
    "PrimalSubstituteOf",
];

/// Attributes that only functions take (besides the derivative ones).
const FUNCTION_ATTRIBUTES: [&str; 6] = [
    "Differentiable",
    "ForwardDifferentiable",
    "BackwardDifferentiable",
    "PreferRecompute",
    "PreferCheckpoint",
    "NoDiffThis",
];

fn function_only(name: &str) -> bool {
    FUNCTION_ATTRIBUTES.contains(&name) || DERIVATIVE_ATTRIBUTES.contains(&name)
}

/// Attributes that only loops take.
const LOOP_ATTRIBUTES: [&str; 2] = ["MaxIters", "ForceUnroll"];

/// Where an attribute may not stand (the reference compiler's E31002):
/// a message, or `None` when `name` is fine on what `holder` declares.
fn misplaced_attribute(name: &str, holder: &slang_syntax::SyntaxNode) -> Option<String> {
    use slang_syntax::SyntaxKind as K;
    let target = if holder.kind() == K::ATTRIBUTED_STMT {
        holder.children().find(|c| c.kind() != K::ATTRIBUTE).map(|c| c.kind())?
    } else {
        holder.kind()
    };
    let is_loop = matches!(target, K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT);
    let is_fn = target == K::FN;
    let what = match target {
        K::FN => "a function",
        K::STRUCT | K::CLASS => "a type",
        K::ENUM => "an enum",
        K::VAR_DECL => "a variable",
        K::IF_STMT => "an `if` statement",
        K::SWITCH_STMT => "a `switch` statement",
        _ if is_loop => "a loop",
        _ => return None,
    };
    if LOOP_ATTRIBUTES.contains(&name) && !is_loop {
        return Some(format!("`[{name}]` applies to loops (`for`, `while`, `do`), not to {what}"));
    }
    if function_only(name) && !is_fn {
        return Some(format!("`[{name}]` applies to functions, not to {what}"));
    }
    if name == "DerivativeMember" && target != K::VAR_DECL {
        return Some(format!("`[DerivativeMember]` applies to fields, not to {what}"));
    }
    if name == "DerivativeMember" && holder.parent().is_none_or(|p| p.kind() != K::MEMBER_LIST) {
        return Some("`[DerivativeMember]` applies to fields of a struct, not to other variables".to_string());
    }
    None
}

/// Attribute argument counts and placements in one declaration (a
/// function's own attributes and those of its statements; a type's or
/// variable's own), relative to the declaration's start. Tracked per
/// declaration, so an edit re-checks only the edited one.
#[salsa::tracked(returns(ref))]
pub fn function_attribute_problems(db: &dyn Db, def: DefId) -> Vec<(slang_syntax::TextRange, &'static str, String)> {
    use slang_syntax::SyntaxKind as K;
    let mut out = Vec::new();
    let Some(local) = crate::hir::decl_syntax(db, def) else { return out };
    // A type's members are declarations of their own.
    let attrs: Vec<_> = if matches!(local.kind(), K::FN) {
        local.descendants().filter(|n| n.kind() == K::ATTRIBUTE).collect()
    } else {
        local.children().filter(|n| n.kind() == K::ATTRIBUTE).collect()
    };
    for attr in attrs {
        // `[A, B(x)]`: each path with the arguments that follow it.
        let children: Vec<_> = attr.children().collect();
        for (i, c) in children.iter().enumerate() {
            if c.kind() != K::PATH {
                continue;
            }
            let name = c.text().to_string();
            if let Some(problem) = attr.parent().and_then(|h| misplaced_attribute(&name, &h)) {
                out.push((c.text_range(), "attribute-placement", problem));
            }
            if !ONE_ARGUMENT_ATTRIBUTES.contains(&name.as_str()) {
                continue;
            }
            let args = children.get(i + 1).filter(|n| n.kind() == K::ATTRIBUTE_ARGS);
            let count = args.map_or(0, |a| {
                let commas = a.children_with_tokens().filter(|e| e.kind() == K::COMMA).count();
                let empty = a.children().next().is_none();
                if empty {
                    0
                } else {
                    commas + 1
                }
            });
            if count != 1 {
                out.push((
                    c.text_range(),
                    "attribute-arguments",
                    format!("`[{name}]` takes one argument, {count} given (write `[{name}(…)]`)"),
                ));
            }
        }
    }
    out
}
