//! Semantic types and how type references resolve to them.

use std::fmt;
use std::sync::Arc;

use crate::hir::{ArrayLen, DefId, GenericArgRef, TypeRef};

pub use crate::scalar::Scalar;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    /// Not known (an error elsewhere, or something not modelled): never the
    /// cause of a diagnostic.
    Unknown,
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    Matrix(Scalar, u8, u8),
    Array(Arc<Ty>, Option<u32>),
    /// A struct, class, enum, interface or built-in resource type.
    Adt {
        def: DefId,
        name: String,
        args: Vec<Ty>,
    },
    /// A generic type parameter.
    Param {
        def: DefId,
        name: String,
    },
    /// `T.Differential` and other associated types.
    Assoc(Arc<Ty>, String),
    String,
    Tuple(Vec<Ty>),
    Pointer(Arc<Ty>),
    /// An overload set (a function name used as a value).
    Func(Vec<DefId>),
    /// `fwd_diff(f)` / `bwd_diff(f)` of an overload set.
    /// `modes`: whether each operator is `fwd_diff`, innermost first
    /// (`bwd_diff(fwd_diff(f))` is `[true, false]`).
    DiffFunc {
        defs: Vec<DefId>,
        modes: Vec<bool>,
    },
    /// A type in expression position (`float3(1, 2, 3)`, `S.staticMember`).
    TypeValue(Arc<Ty>),
    Namespace(String),
    /// A generic value argument bound during inference (`N = 3`).
    Const(i64),
    /// The types a pack parameter (`each T`) is bound to (a generic
    /// type's argument for its pack parameter: `IFunc<int, int, bool>`
    /// has `int` and the pack `int, bool`), and the type of a value pack.
    Pack(Vec<Ty>),
}

impl Ty {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) | Ty::Vector(s, _) | Ty::Matrix(s, _, _) => Some(*s),
            _ => None,
        }
    }

    pub fn is_numeric(&self) -> bool {
        self.scalar().is_some()
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Ty::Unknown)
    }

    /// The same shape (scalar/vector/matrix) with another element type.
    pub fn with_scalar(&self, s: Scalar) -> Ty {
        match self {
            Ty::Vector(_, n) => Ty::Vector(s, *n),
            Ty::Matrix(_, r, c) => Ty::Matrix(s, *r, *c),
            _ => Ty::Scalar(s),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unknown => write!(f, "{{unknown}}"),
            Ty::Void => write!(f, "void"),
            Ty::Scalar(s) => write!(f, "{}", s.name()),
            Ty::Vector(s, n) => write!(f, "{}{n}", vector_base(*s)),
            Ty::Matrix(s, r, c) => write!(f, "{}{r}x{c}", vector_base(*s)),
            Ty::Array(e, Some(n)) => write!(f, "{e}[{n}]"),
            Ty::Array(e, None) => write!(f, "{e}[]"),
            Ty::Adt { name, args, .. } => {
                write!(f, "{name}")?;
                if !args.is_empty() {
                    write!(f, "<")?;
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        write!(f, "{a}")?;
                    }
                    write!(f, ">")?;
                }
                Ok(())
            }
            Ty::Param { name, .. } => write!(f, "{name}"),
            Ty::DiffFunc { modes, .. } => {
                let mut s = "…".to_string();
                for m in modes {
                    s = format!("{}({s})", if *m { "fwd_diff" } else { "bwd_diff" });
                }
                write!(f, "{s}")
            }
            Ty::Assoc(base, name) => write!(f, "{base}.{name}"),
            Ty::String => write!(f, "String"),
            Ty::Tuple(items) => {
                write!(f, "Tuple<")?;
                for (i, a) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ">")
            }
            Ty::Pointer(t) => write!(f, "{t}*"),
            Ty::Func(_) => write!(f, "{{function}}"),
            Ty::TypeValue(t) => write!(f, "{t}"),
            Ty::Namespace(n) => write!(f, "namespace {n}"),
            Ty::Const(n) => write!(f, "{n}"),
            Ty::Pack(items) => {
                for (i, a) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                Ok(())
            }
        }
    }
}

/// `float3`, `int2`, `uint4x4` … — the scalar name used in vector aliases.
fn vector_base(s: Scalar) -> &'static str {
    s.name()
}

/// How [`crate::infer`] resolves named types: a callback from a type
/// name (with generic arguments) to a type, supplied by the inference
/// context, which knows the scopes.
pub trait TypeResolver {
    fn resolve_named(&mut self, segments: &[crate::hir::PathSegment]) -> Ty;
    fn this_type(&self) -> Ty;
    /// The value of a named integer constant, if known.
    fn const_value(&mut self, _name: &str) -> Option<i64> {
        None
    }

    fn resolve(&mut self, tref: &TypeRef) -> Ty {
        match tref {
            TypeRef::Path(segs) => self.resolve_named(segs),
            TypeRef::Array(elem, len) => {
                let e = self.resolve(elem);
                let n = match len {
                    ArrayLen::Known(n) => Some(*n),
                    ArrayLen::Named(name) => self.const_value(name).and_then(|v| u32::try_from(v).ok()),
                    _ => None,
                };
                Ty::Array(Arc::new(e), n)
            }
            TypeRef::Pointer(t) => Ty::Pointer(Arc::new(self.resolve(t))),
            TypeRef::Tuple(items) => Ty::Tuple(items.iter().map(|t| self.resolve(t)).collect()),
            TypeRef::This => self.this_type(),
            // `expand P`: `P` per element of the packs it names.
            TypeRef::Expand(pattern) => {
                let mut names = Vec::new();
                crate::hir::packs::type_each_names(pattern, &mut names);
                let seg = |n: &String| crate::hir::PathSegment { name: n.clone(), args: Vec::new() };
                let len = names.iter().find_map(|n| match self.resolve_named(&[seg(n)]) {
                    Ty::Pack(items) => Some(items.len()),
                    _ => None,
                });
                match len {
                    Some(n) => {
                        Ty::Pack((0..n as u32).map(|i| self.resolve(&crate::hir::packs::type_at(pattern, i))).collect())
                    }
                    None => Ty::Unknown,
                }
            }
            TypeRef::Each(x) => self.resolve(x),
            TypeRef::PackElem(x, i) => match self.resolve(x) {
                Ty::Pack(items) => items.get(*i as usize).cloned().unwrap_or(Ty::Unknown),
                _ => Ty::Unknown,
            },
            TypeRef::Unknown => Ty::Unknown,
        }
    }

    /// `vector<T, N>` / `matrix<T, R, C>` with literal sizes and a scalar
    /// element (`vector<float4, 2>`, a vector of vectors, is not modelled:
    /// unknown).
    fn builtin_generic(&mut self, name: &str, args: &[GenericArgRef]) -> Option<Ty> {
        let elem = |r: &mut Self, a: &GenericArgRef| match a {
            GenericArgRef::Type(t) => match r.resolve(t) {
                Ty::Scalar(s) => Some(s),
                _ => None,
            },
            GenericArgRef::Value(_) => None,
        };
        let size = |r: &mut Self, a: &GenericArgRef| match a {
            GenericArgRef::Value(Some(n)) if (1..=4).contains(n) => Some(*n as u8),
            GenericArgRef::Type(t) => match r.resolve(t) {
                Ty::Const(n) if (1..=4).contains(&n) => Some(n as u8),
                _ => None,
            },
            _ => None,
        };
        match (name, args) {
            ("vector", [t, n]) => match (elem(self, t), size(self, n)) {
                (Some(s), Some(n)) => Some(Ty::Vector(s, n)),
                _ => Some(Ty::Unknown),
            },
            ("matrix", [t, r, c]) => match (elem(self, t), size(self, r), size(self, c)) {
                (Some(s), Some(r), Some(c)) => Some(Ty::Matrix(s, r, c)),
                _ => Some(Ty::Unknown),
            },
            _ => None,
        }
    }
}

/// `float3` → vector of float, 3; `int2x3` → matrix. For names the core
/// module declares as aliases.
pub fn parse_vector_alias(name: &str) -> Option<Ty> {
    Some(match Scalar::parse_alias(name)? {
        (s, n, None) => Ty::Vector(s, n),
        (s, r, Some(c)) => Ty::Matrix(s, r, c),
    })
}
