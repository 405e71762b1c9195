//! The last autodiff pass: `DifferentialPair<T>` becomes a plain struct
//! `DiffPair_T { p: T, d: T.Differential }` (its `Construct`/`Extract`
//! instructions already read as a struct's), and `detach` markers are
//! replaced by their operands. The type table is rebuilt, so no pair type
//! reaches the backend.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Module, Op, Type, TypeId, Types, ValueId, ValueKind};

/// Lower the pairs and drop the `detach` markers of every function.
pub fn run(module: &mut Module) {
    let mut lowered = Types::default();
    let mut map: HashMap<TypeId, TypeId> = HashMap::default();
    let old: Vec<TypeId> = module.types.iter().map(|(id, _)| id).collect();
    for id in old {
        lower_type(&module.types, &mut lowered, &mut map, id);
    }
    module.types = lowered;
    for g in &mut module.globals {
        g.ty = map[&g.ty];
    }
    for f in &mut module.functions {
        f.ret = map[&f.ret];
        for p in &mut f.params {
            p.ty = map[&p.ty];
        }
        for v in &mut f.values {
            v.ty = map[&v.ty];
        }
        remove_detach(f);
    }
}

/// The id of `id`'s lowered form in `out`.
fn lower_type(old: &Types, out: &mut Types, map: &mut HashMap<TypeId, TypeId>, id: TypeId) -> TypeId {
    if let Some(&t) = map.get(&id) {
        return t;
    }
    let mut sub = |t: TypeId| lower_type(old, out, map, t);
    let ty = match old.get(id).clone() {
        t @ (Type::Void
        | Type::Scalar(_)
        | Type::Vector(..)
        | Type::Matrix { .. }
        | Type::Texture(..)
        | Type::Sampler) => t,
        Type::Array(e, n) => Type::Array(sub(e), n),
        Type::RuntimeArray(e) => Type::RuntimeArray(sub(e)),
        Type::Struct { name, fields } => {
            Type::Struct { name, fields: fields.into_iter().map(|(n, t)| (n, sub(t))).collect() }
        }
        Type::Ptr(t, space) => Type::Ptr(sub(t), space),
        Type::DifferentialPair { primal, diff } => {
            let name = format!("DiffPair_{}", identifier(&old.display(primal)));
            Type::Struct { name, fields: vec![("p".to_string(), sub(primal)), ("d".to_string(), sub(diff))] }
        }
    };
    let t = out.intern(ty);
    map.insert(id, t);
    t
}

/// A type's spelling as an identifier (`DifferentialPair<float3>` →
/// `DiffPair_float3`, `float[4]` → `float_4`).
fn identifier(text: &str) -> String {
    let text = text.replace("DifferentialPair<", "DiffPair_").replace(['>', ']'], "");
    text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// Replace every use of a `detach` by its operand and delete it.
fn remove_detach(f: &mut crate::ir::Function) {
    let mut replace: HashMap<ValueId, ValueId> = HashMap::default();
    for (i, v) in f.values.iter().enumerate() {
        if let ValueKind::Inst(Op::Detach(a)) = v.kind {
            replace.insert(ValueId(i as u32), a);
        }
    }
    if replace.is_empty() {
        return;
    }
    let resolve = |mut v: ValueId| {
        while let Some(&a) = replace.get(&v) {
            v = a;
        }
        v
    };
    for v in &mut f.values {
        if let ValueKind::Inst(op) = &mut v.kind {
            op.map_operands(resolve);
        }
    }
    for b in &mut f.blocks {
        b.term.map_operands(resolve);
        b.insts.retain(|v| !replace.contains_key(v));
    }
}
