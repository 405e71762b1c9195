//! The facts of automatic differentiation: which functions are
//! differentiable, which types are, their `Differential` types, and the
//! signatures of `fwd_diff(f)` / `bwd_diff(f)` (the user guide's reference
//! rules, section "fwd_diff" and "bwd_diff"), the derivative attributes'
//! targets and hover text. Part of the type system: type references and
//! these facts are mutually recursive (`T.Differential`), so they live with
//! inference, and the crate names them `crate::autodiff`. The checks built
//! on them are in `autodiff_checks.rs`; the `__func_extension`s in
//! `func_extension.rs`.

use std::fmt;

use slang_syntax::ast::AstNode;

use crate::hir::DefId;
use crate::infer::{fn_sig, is_core, item_of, DeclCtx};
use crate::item_tree::ItemKind;
use crate::name_res::core_def;
use crate::ty::{Scalar, Ty, TypeResolver};
use crate::{Db, SourceFile};

pub use super::func_extension::{
    accessor_func_extension, func_extension_for, func_extension_of, func_extensions, ExtensionKind, FuncExtension,
};

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
            i.attr_names()
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
    let files: Vec<SourceFile> = crate::module_graph::visible_files(db, from)
        .iter()
        .chain(crate::module_graph::module_of(db, def.file(db)))
        .copied()
        .collect();
    let mut attached: Vec<Mode> = files
        .iter()
        .flat_map(|&f| derivative_of_targets(db, f).iter())
        .filter(|(t, _)| *t == name)
        .map(|(_, m)| *m)
        .collect();
    // A getter named by `__func_extension fwd_diff(S::__subscript::get)`.
    for (kind, mode) in [(ExtensionKind::Forward, Mode::Forward), (ExtensionKind::Backward, Mode::Backward)] {
        if item.kind == ItemKind::Subscript
            && super::func_extension::accessor_func_extension(db, def, false, kind).is_some()
        {
            attached.push(mode);
        }
    }
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
    own.any(marks)
        || accessors.iter().any(|a| a.kind() == Some(SyntaxKind::SET_KW) && a.attributes().any(marks))
        || crate::infer::func_extension::setter_has_func_extension(db, def)
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
                    // `CoopVec<T, N> : IDifferentiable` (its `Differential`
                    // is itself): as differentiable as its element.
                    "CoopVec" => match args.first().map(|e| type_diff(db, file, e)) {
                        Some(TypeDiff::Value) => TypeDiff::Value,
                        Some(TypeDiff::Unknown) | None => TypeDiff::Unknown,
                        Some(_) => TypeDiff::No,
                    },
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
        Ty::Param { def, .. } => constrained_diff(db, *def),
        // `T::Params` of `associatedtype Params : IParams` in `T`'s
        // interfaces: as its constraints say. (`T.Differential` is left
        // unknown.)
        Ty::Assoc(base, name) if name != "Differential" => {
            let Ty::Param { def, .. } = &**base else { return TypeDiff::Unknown };
            let Some(ifaces) = crate::generics::constraint_interfaces(db, *def) else { return TypeDiff::Unknown };
            let mut closure = std::collections::HashSet::new();
            for i in ifaces {
                crate::generics::interface_closure(db, i, &mut closure);
            }
            let mut closure: Vec<DefId> = closure.into_iter().collect();
            closure.sort_by_key(|d| (d.file(db).path(db).clone(), d.ast_index(db)));
            let assoc = closure.iter().find_map(|&i| {
                let m = item_of(db, i)?
                    .members
                    .iter()
                    .find(|m| m.kind == ItemKind::AssociatedType && m.name.as_deref() == Some(name.as_str()))?
                    .ast_index;
                Some(DefId::new(db, i.file(db), m))
            });
            match assoc {
                Some(a) => constrained_diff(db, a),
                None => TypeDiff::Unknown,
            }
        }
        _ => TypeDiff::Unknown,
    }
}

/// Whether values of the generic parameter (or associated type) `def` are
/// differentiable, from the interfaces that constrain it.
fn constrained_diff(db: &dyn Db, def: DefId) -> TypeDiff {
    let Some(ifaces) = crate::generics::constraint_interfaces(db, def) else { return TypeDiff::Unknown };
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
        Ty::Adt { def, args, .. } if !is_core(db, def.file(db)) => {
            // A synthesized `Differential` with the same fields is the type
            // itself.
            if args.is_empty() {
                if let Some(fields) = synthesized_differential(db, def.file(db), *def) {
                    if fields.is_self {
                        return ty.clone();
                    }
                }
            }
            // A written `typealias Differential = X;`, in the struct (its
            // generic parameters bound to `args`) or in an extension of it
            // that applies (`extension<T : I> S<T>`: `T` bound by matching).
            let find = |d: DefId| {
                item_of(db, d)?
                    .members
                    .iter()
                    .find(|m| m.name.as_deref() == Some("Differential") && m.kind.is_type())
                    .map(|m| DefId::new(db, d.file(db), m.ast_index))
            };
            let mut found = find(*def).map(|m| {
                let names = item_of(db, *def).map(|i| i.generic_params.clone()).unwrap_or_default();
                let bound: Vec<(String, Ty)> =
                    names.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
                (m, bound)
            });
            if found.is_none() {
                found = crate::infer::applicable_extensions(db, *def, args).into_iter().find_map(|ext| {
                    let m = find(ext)?;
                    let mut bound = Vec::new();
                    if let Ty::Adt { args: pattern, .. } = DeclCtx::for_def(db, ext).this {
                        for (p, a) in pattern.iter().zip(args) {
                            if let Ty::Param { name, .. } = p {
                                bound.push((name.clone(), a.clone()));
                            }
                        }
                    }
                    Some((m, bound))
                });
            }
            if let Some((mdef, bound)) = found {
                if let Some(t) = crate::infer::decl_type_ref(db, mdef) {
                    let mut ctx = DeclCtx::for_def(db, mdef);
                    ctx.generics.extend(bound.into_iter().filter(|(_, t)| !t.is_unknown()));
                    let resolved = ctx.resolve(t);
                    if !resolved.is_unknown() {
                        return resolved;
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

/// Whether the field `m` is declared `no_diff`.
pub fn field_is_no_diff(m: &crate::item_tree::Item) -> bool {
    m.modifiers.contains(&crate::item_tree::Modifier::NoDiff)
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
        let no_diff = field_is_no_diff(m);
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
    pub(crate) fn of(p: &crate::hir::Param) -> Dir {
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
    !item.attr_names().any(|a| a.contains("Differentiable") || a.contains("Derivative") || a == "PrimalSubstitute")
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
    let ret_no_diff = item.as_ref().is_some_and(|i| i.modifiers.contains(&crate::item_tree::Modifier::NoDiff));
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
        let mutating = i.has_attr("mutating") || i.modifiers.contains(&crate::item_tree::Modifier::Mutating);
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
            // (A pointer-like result comes back as a `DifferentialPtrPair`.)
            (Mode::Forward, TypeDiff::Ptr) => (pair(db, "DifferentialPtrPair", ret_ty), TypeDiff::Ptr),
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
                        if item.modifiers.contains(&crate::item_tree::Modifier::Groupshared) {
                            Some(format!("the `groupshared` variable `{name}`"))
                        } else if item.modifiers.contains(&crate::item_tree::Modifier::Static) {
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

/// Attributes naming a derivative or primal substitute.
pub(crate) const DERIVATIVE_ATTRIBUTES: [&str; 6] = [
    "ForwardDerivative",
    "BackwardDerivative",
    "PrimalSubstitute",
    "ForwardDerivativeOf",
    "BackwardDerivativeOf",
    "PrimalSubstituteOf",
];

/// A derivative attribute's argument: `g`, `S.g`, `S::g`, `g<T>`.
pub(crate) struct DerivTarget {
    pub(crate) qualifier: Option<String>,
    pub(crate) name: String,
    /// The generic arguments written (`float` of `d_f<float>`).
    pub(crate) generic_args: Vec<String>,
}

pub(crate) fn parse_deriv_target(text: &str) -> DerivTarget {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let generic_args = match (text.find('<'), text.rfind('>')) {
        (Some(a), Some(b)) if a < b => text[a + 1..b].split(',').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let text = text.split('<').next().unwrap_or("");
    match text.rsplit_once("::").or_else(|| text.rsplit_once('.')) {
        Some((q, n)) => DerivTarget { qualifier: Some(q.to_string()), name: n.to_string(), generic_args },
        None => DerivTarget { qualifier: None, name: text.to_string(), generic_args },
    }
}

/// The functions a derivative attribute on `holder` can name: the
/// methods of the named type (`S.g`), or the enclosing type's methods and
/// the global functions (`g`). `None`: the qualifier is not a type we
/// know (nothing is said then).
pub(crate) fn derivative_candidates(db: &dyn Db, holder: DefId, target: &DerivTarget) -> Option<Vec<DefId>> {
    let file = holder.file(db);
    // The type whose methods the holder sees: its struct or class, or the
    // type an `extension` holding it extends.
    let holder_parent = crate::infer::parent_of(db, holder);
    let parent = holder_parent.and_then(|p| match item_of(db, p)?.kind {
        ItemKind::Struct | ItemKind::Class => Some(p),
        ItemKind::Extension => match DeclCtx::for_def(db, p).this {
            Ty::Adt { def, .. } => Some(def),
            _ => None,
        },
        _ => None,
    });
    // An extension's own methods (also of `extension<T : I> T`, which
    // extends no one type).
    let extension = holder_parent.filter(|p| item_of(db, *p).is_some_and(|i| i.kind == ItemKind::Extension));
    // Its own methods and those its extensions add.
    let members_named = |ty: DefId| -> Vec<DefId> {
        let mut out: Vec<DefId> = item_of(db, ty)
            .map(|i| {
                i.members
                    .iter()
                    .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(target.name.as_str()))
                    .map(|m| DefId::new(db, ty.file(db), m.ast_index))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(name) = item_of(db, ty).and_then(|i| i.name.clone()) {
            let adt = Ty::Adt { def: ty, name, args: Vec::new() };
            for d in crate::infer::extension_methods(db, file, &adt, &target.name) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
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
            for d in extension.map(members_named).unwrap_or_default() {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
            // Free functions, in the holder's namespaces first.
            let defs = DeclCtx::for_def(db, holder).lookup_global(&target.name);
            out.extend(defs.iter().filter(|d| d.kind == ItemKind::Fn).map(|d| DefId::new(db, d.file, d.ast_index)));
            Some(out)
        }
    }
}

/// Whether `def` is a non-static method of a struct or class (or of an
/// extension of one).
pub(crate) fn is_instance_method(db: &dyn Db, def: DefId) -> bool {
    item_of(db, def).is_some_and(|i| !i.is_static)
        && crate::infer::parent_of(db, def).and_then(|p| item_of(db, p)).is_some_and(|p| match p.kind {
            ItemKind::Struct | ItemKind::Class => true,
            ItemKind::Extension => crate::infer::parent_of(db, def).is_some_and(|e| {
                matches!(DeclCtx::for_def(db, e).this, Ty::Adt { def, .. }
                    if item_of(db, def).is_some_and(|t| matches!(t.kind, ItemKind::Struct | ItemKind::Class)))
            }),
            _ => false,
        })
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
