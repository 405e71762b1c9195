//! Buffer memory layout: gives the contents of every buffer (storage and
//! constant buffers) the memory form the reference compiler gives them for
//! Vulkan, and rewrites the accesses to convert between the logical types
//! the program computes with and that memory form.
//!
//! * Matrices are stored column by column (Slang's default,
//!   `column_major`): the memory form of Slang's `float RxC` is `C`
//!   columns of `R` elements, the IR matrix `CxR`, read back with a
//!   `transpose`.
//! * Structured and byte-address buffers follow `std430`, which is the
//!   natural layout of the memory types (vectors of 3 aligned as 4).
//! * Constant buffers follow `std140`: array elements take 16 bytes
//!   (scalars and short vectors are widened to a 4-vector), structs are
//!   16-byte aligned and sized, matrix columns take 16 bytes. Struct
//!   members are placed where `std140` puts them by explicit padding
//!   fields (`uint`s without a name), so that the natural (WGSL) layout of the memory type is the
//!   `std140` one and every backend writes it without layout attributes.
//!
//! A pointer into a buffer points to the memory form; a row of a matrix
//! has no address there, so such pointers are kept as (column pointer
//! base, row) pairs until a load or store reads or writes the row one
//! element at a time.

use rustc_hash::FxHashMap as HashMap;

use slang_analysis::ty::Scalar;

use crate::ir::{
    AddressSpace, BlockId, Const, Function, Intrinsic, Module, Op, Type, TypeId, Types, Value, ValueId, ValueKind,
};

/// The layout rules of a kind of buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rules {
    /// Structured and byte-address buffers.
    Std430,
    /// Constant buffers.
    Std140,
    /// Every type aligned to its scalars' width (a `float3` is 12 bytes,
    /// alone or in an array): no buffer uses it; it is how the reference
    /// compiler counts the bytes a backward pass saves
    /// ([`crate::autodiff::checkpoint::save_bytes`]).
    Scalar,
}

impl Rules {
    fn of(space: AddressSpace) -> Option<Rules> {
        match space {
            AddressSpace::Storage { .. } => Some(Rules::Std430),
            AddressSpace::Uniform => Some(Rules::Std140),
            _ => None,
        }
    }
}

fn round_up(x: u32, align: u32) -> u32 {
    x.div_ceil(align) * align
}

/// Alignment and size in bytes of a type under `rules`.
pub fn align_size(types: &Types, t: TypeId, rules: Rules) -> (u32, u32) {
    let width = |s: &Scalar| match s {
        Scalar::Half => 2,
        Scalar::Double | Scalar::Int64 | Scalar::UInt64 => 8,
        _ => 4,
    };
    let vector_align = |n: u8, w: u32| {
        if n == 2 {
            2 * w
        } else if n == 1 {
            w
        } else {
            4 * w
        }
    };
    match types.get(t) {
        Type::Scalar(s) => (width(s), width(s)),
        Type::Vector(s, n) if rules == Rules::Scalar => (width(s), width(s) * *n as u32),
        Type::Vector(s, n) => (vector_align(*n, width(s)), width(s) * *n as u32),
        Type::Matrix { scalar, rows, cols } => {
            let column = match rules {
                Rules::Std430 => vector_align(*rows, 4),
                Rules::Std140 => 16,
                Rules::Scalar => return (width(scalar), width(scalar) * *rows as u32 * *cols as u32),
            };
            (column, column * *cols as u32)
        }
        Type::Array(e, n) => {
            let stride = array_stride(types, *e, rules);
            let (align, _) = align_size(types, *e, rules);
            let align = if rules == Rules::Std140 { round_up(align, 16) } else { align };
            (align, stride * n)
        }
        Type::RuntimeArray(e) => (align_size(types, *e, rules).0, 0),
        Type::Struct { fields, .. } => {
            let mut offset = 0;
            let mut align = match rules {
                Rules::Std140 => 16,
                Rules::Std430 => 4,
                Rules::Scalar => 1,
            };
            for (_, f) in fields {
                let (a, s) = align_size(types, *f, rules);
                offset = round_up(offset, a) + s;
                align = align.max(a);
            }
            (align, round_up(offset, align))
        }
        Type::Void | Type::Ptr(..) | Type::DifferentialPair { .. } | Type::Texture(..) | Type::Sampler => (4, 0),
    }
}

/// The distance between elements of an array of `e`.
pub fn array_stride(types: &Types, e: TypeId, rules: Rules) -> u32 {
    let (align, size) = align_size(types, e, rules);
    let stride = round_up(size, align);
    match rules {
        Rules::Std140 => round_up(stride, 16),
        Rules::Std430 | Rules::Scalar => stride,
    }
}

/// The size in bytes of one element of a structured buffer of `t`.
pub fn size_of(types: &Types, t: TypeId, rules: Rules) -> u32 {
    let (align, size) = align_size(types, t, rules);
    round_up(size, align)
}

/// Give every buffer its memory layout (see the module documentation).
pub fn run(module: &mut Module) {
    let mut forms = Forms::default();
    let mut changed = HashMap::default();
    for (i, g) in module.globals.iter_mut().enumerate() {
        if let Some(rules) = Rules::of(g.space) {
            let mem = forms.memory(&mut module.types, g.ty, rules);
            if mem != g.ty {
                changed.insert(i as u32, (g.ty, mem, rules));
                g.ty = mem;
            }
        }
    }
    if changed.is_empty() {
        return;
    }
    for f in &mut module.functions {
        Rewrite {
            types: &mut module.types,
            forms: &mut forms,
            func: f,
            ptrs: HashMap::default(),
            replace: HashMap::default(),
        }
        .run(&changed);
    }
}

/// Memory forms of logical types, and where each logical field of a
/// struct went in its memory form.
#[derive(Default)]
struct Forms {
    memory: HashMap<(TypeId, Rules), TypeId>,
    fields: HashMap<TypeId, Vec<u32>>,
}

impl Forms {
    /// The memory form of `t` under `rules`.
    fn memory(&mut self, types: &mut Types, t: TypeId, rules: Rules) -> TypeId {
        if let Some(&m) = self.memory.get(&(t, rules)) {
            return m;
        }
        let m = match types.get(t).clone() {
            Type::Matrix { scalar, rows, cols } => {
                let stored_rows = if rules == Rules::Std140 && rows == 2 { 4 } else { rows };
                types.intern(Type::Matrix { scalar, rows: cols, cols: stored_rows })
            }
            Type::Array(e, n) => {
                let mut me = self.memory(types, e, rules);
                if rules == Rules::Std140 {
                    if let Type::Scalar(s) | Type::Vector(s, 2 | 3) = *types.get(me) {
                        me = types.intern(Type::Vector(s, 4));
                    }
                }
                types.intern(Type::Array(me, n))
            }
            Type::RuntimeArray(e) => {
                let me = self.memory(types, e, rules);
                types.intern(Type::RuntimeArray(me))
            }
            Type::Struct { name, fields } => self.memory_struct(types, t, &name, &fields, rules),
            _ => t,
        };
        self.memory.insert((t, rules), m);
        m
    }

    fn memory_struct(
        &mut self,
        types: &mut Types,
        t: TypeId,
        name: &str,
        fields: &[(String, TypeId)],
        rules: Rules,
    ) -> TypeId {
        let mem_fields: Vec<TypeId> = fields.iter().map(|(_, f)| self.memory(types, *f, rules)).collect();
        if rules == Rules::Std430 {
            if mem_fields.iter().zip(fields).all(|(m, (_, f))| m == f) {
                return t;
            }
            let out = fields.iter().zip(&mem_fields).map(|((n, _), m)| (n.clone(), *m)).collect();
            let m = types.intern(Type::Struct { name: format!("{name}_std430"), fields: out });
            self.fields.insert(m, (0..fields.len() as u32).collect());
            return m;
        }
        // std140: pad to each member's offset; `natural` is where the
        // memory type's natural layout would put the next member.
        let word = types.intern(Type::Scalar(Scalar::UInt32));
        let mut out = Vec::new();
        let mut map = Vec::new();
        let (mut offset, mut natural) = (0u32, 0u32);
        for ((fname, f), m) in fields.iter().zip(&mem_fields) {
            let (align, size) = align_size(types, *f, Rules::Std140);
            let (natural_align, _) = align_size(types, *m, Rules::Std430);
            offset = round_up(offset, align);
            while round_up(natural, natural_align) < offset {
                out.push((String::new(), word));
                natural += 4;
            }
            map.push(out.len() as u32);
            out.push((fname.clone(), *m));
            offset += size;
            natural = round_up(natural, natural_align) + size;
        }
        let (_, total) = align_size(types, t, Rules::Std140);
        while natural < total {
            out.push((String::new(), word));
            natural += 4;
        }
        let m = types.intern(Type::Struct { name: format!("{name}_std140"), fields: out });
        self.fields.insert(m, map);
        m
    }

    /// The memory field holding logical field `i` of a memory struct.
    fn field(&self, mem: TypeId, i: u32) -> u32 {
        self.fields.get(&mem).map_or(i, |map| map[i as usize])
    }
}

/// An index into an aggregate: a constant or a value.
#[derive(Clone, Copy)]
enum Index {
    Const(u32),
    Value(ValueId),
}

/// What a pointer into a buffer points to, when it is not its logical
/// type.
#[derive(Clone, Copy)]
enum Ptr {
    /// `mem`, the memory form of `logical`.
    Mem { logical: TypeId, mem: TypeId },
    /// Row `row` (of type `logical`) of the matrix in memory form that
    /// `matrix` points to.
    Row { matrix: ValueId, row: Index, logical: TypeId },
}

struct Rewrite<'a> {
    types: &'a mut Types,
    forms: &'a mut Forms,
    func: &'a mut Function,
    ptrs: HashMap<ValueId, Ptr>,
    /// Loads replaced by the converted value.
    replace: HashMap<ValueId, ValueId>,
}

impl Rewrite<'_> {
    fn run(mut self, changed: &HashMap<u32, (TypeId, TypeId, Rules)>) {
        let mut order = self.func.reverse_post_order();
        let reached: Vec<BlockId> = order.clone();
        order.extend(self.func.block_ids().filter(|b| !reached.contains(b)));
        for b in order {
            let insts = std::mem::take(&mut self.func.blocks[b.index()].insts);
            let mut out = Vec::new();
            for v in insts {
                self.inst(v, changed, &mut out);
            }
            self.func.blocks[b.index()].insts = out;
        }
        let replace = std::mem::take(&mut self.replace);
        if replace.is_empty() {
            return;
        }
        let resolve = |v: ValueId| replace.get(&v).copied().unwrap_or(v);
        for block in &mut self.func.blocks {
            for &v in &block.insts {
                if let ValueKind::Inst(op) = &mut self.func.values[v.index()].kind {
                    op.map_operands(resolve);
                }
            }
            block.term.map_operands(resolve);
        }
    }

    fn op(&self, v: ValueId) -> Option<Op> {
        self.func.op(v).cloned()
    }

    fn space(&self, p: ValueId) -> AddressSpace {
        self.types.pointee(self.func.value(p).ty).map_or(AddressSpace::Function, |(_, s)| s)
    }

    fn set(&mut self, v: ValueId, op: Op, ty: TypeId) {
        self.func.values[v.index()].kind = ValueKind::Inst(op);
        self.func.values[v.index()].ty = ty;
    }

    fn new_inst(&mut self, op: Op, ty: TypeId, like: ValueId, out: &mut Vec<ValueId>) -> ValueId {
        let v = ValueId(self.func.values.len() as u32);
        let span = self.func.value(like).span;
        self.func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
        out.push(v);
        v
    }

    fn inst(&mut self, v: ValueId, changed: &HashMap<u32, (TypeId, TypeId, Rules)>, out: &mut Vec<ValueId>) {
        let Some(op) = self.op(v) else { return };
        match op {
            Op::Global(g) => {
                if let Some(&(logical, mem, _)) = changed.get(&g.0) {
                    let space = self.space(v);
                    let ty = self.types.intern(Type::Ptr(mem, space));
                    self.func.values[v.index()].ty = ty;
                    self.ptrs.insert(v, Ptr::Mem { logical, mem });
                }
                out.push(v);
            }
            Op::FieldAddr(p, i) if self.ptrs.contains_key(&p) => self.address(v, p, Index::Const(i), out),
            Op::ElementAddr(p, i) if self.ptrs.contains_key(&p) => self.address(v, p, Index::Value(i), out),
            Op::Load(p) => match self.ptrs.get(&p).copied() {
                Some(Ptr::Mem { logical, mem }) => {
                    let loaded = self.new_inst(Op::Load(p), mem, v, out);
                    let value = self.logical_value(loaded, logical, mem, v, out);
                    self.replace.insert(v, value);
                }
                Some(Ptr::Row { matrix, row, logical }) => {
                    let cols = match *self.types.get(logical) {
                        Type::Vector(_, n) => n,
                        _ => 1,
                    };
                    let scalar = self.types.scalar_of(logical).unwrap_or(Scalar::Float);
                    let st = self.types.intern(Type::Scalar(scalar));
                    let parts: Vec<ValueId> = (0..cols)
                        .map(|c| {
                            let e = self.element(matrix, Index::Const(c as u32), row, v, out);
                            self.new_inst(Op::Load(e), st, v, out)
                        })
                        .collect();
                    let value = self.new_inst(Op::Construct(parts), logical, v, out);
                    self.replace.insert(v, value);
                }
                None => out.push(v),
            },
            Op::Store { ptr, value } => match self.ptrs.get(&ptr).copied() {
                Some(Ptr::Mem { logical, mem }) => {
                    let value = self.resolve(value);
                    let m = self.memory_value(value, logical, mem, v, out);
                    self.set(v, Op::Store { ptr, value: m }, self.func.value(v).ty);
                    out.push(v);
                }
                Some(Ptr::Row { matrix, row, logical }) => {
                    let value = self.resolve(value);
                    let cols = match *self.types.get(logical) {
                        Type::Vector(_, n) => n,
                        _ => 1,
                    };
                    let scalar = self.types.scalar_of(logical).unwrap_or(Scalar::Float);
                    let st = self.types.intern(Type::Scalar(scalar));
                    let void = self.func.value(v).ty;
                    for c in 0..cols {
                        let e = self.element(matrix, Index::Const(c as u32), row, v, out);
                        let part = self.new_inst(Op::Extract(value, c as u32), st, v, out);
                        self.new_inst(Op::Store { ptr: e, value: part }, void, v, out);
                    }
                }
                None => out.push(v),
            },
            _ => out.push(v),
        }
    }

    fn resolve(&self, v: ValueId) -> ValueId {
        self.replace.get(&v).copied().unwrap_or(v)
    }

    /// `v` = a pointer to part `index` of what `p` points to.
    fn address(&mut self, v: ValueId, p: ValueId, index: Index, out: &mut Vec<ValueId>) {
        let space = self.space(p);
        let op_of = |base: ValueId, index: Index| match index {
            Index::Const(i) => Op::FieldAddr(base, i),
            Index::Value(i) => Op::ElementAddr(base, i),
        };
        match self.ptrs[&p] {
            Ptr::Mem { logical, mem } => match self.types.get(logical).clone() {
                Type::Matrix { scalar, cols, .. } => {
                    let row = self.types.intern(Type::Vector(scalar, cols));
                    self.ptrs.insert(v, Ptr::Row { matrix: p, row: index, logical: row });
                }
                Type::Struct { fields, .. } => {
                    let Index::Const(i) = index else { return out.push(v) };
                    let j = self.forms.field(mem, i);
                    let (lf, mf) = (fields[i as usize].1, self.element_type(mem, j));
                    let ty = self.types.intern(Type::Ptr(mf, space));
                    self.set(v, Op::FieldAddr(p, j), ty);
                    self.track(v, lf, mf);
                    out.push(v);
                }
                Type::Array(le, _) | Type::RuntimeArray(le) => {
                    let me = self.element_type(mem, 0);
                    let ty = self.types.intern(Type::Ptr(me, space));
                    self.set(v, op_of(p, index), ty);
                    self.track(v, le, me);
                    out.push(v);
                }
                // Components of a widened vector are where they were.
                _ => out.push(v),
            },
            Ptr::Row { matrix, row, .. } => {
                let e = self.element(matrix, index, row, v, out);
                self.replace.insert(v, e);
            }
        }
    }

    /// A pointer to element `row` of column `column` of the matrix (in
    /// memory form) that `matrix` points to.
    fn element(
        &mut self,
        matrix: ValueId,
        column: Index,
        row: Index,
        like: ValueId,
        out: &mut Vec<ValueId>,
    ) -> ValueId {
        let space = self.space(matrix);
        let (mem, _) = self.types.pointee(self.func.value(matrix).ty).expect("a matrix pointer");
        let col_ty = self.element_type(mem, 0);
        let scalar = self.types.scalar_of(col_ty).unwrap_or(Scalar::Float);
        let col_ptr = self.types.intern(Type::Ptr(col_ty, space));
        let st = self.types.intern(Type::Scalar(scalar));
        let elem_ptr = self.types.intern(Type::Ptr(st, space));
        let col = match column {
            Index::Const(c) => self.new_inst(Op::FieldAddr(matrix, c), col_ptr, like, out),
            Index::Value(c) => self.new_inst(Op::ElementAddr(matrix, c), col_ptr, like, out),
        };
        match row {
            Index::Const(r) => self.new_inst(Op::FieldAddr(col, r), elem_ptr, like, out),
            Index::Value(r) => self.new_inst(Op::ElementAddr(col, r), elem_ptr, like, out),
        }
    }

    fn track(&mut self, v: ValueId, logical: TypeId, mem: TypeId) {
        if logical != mem {
            self.ptrs.insert(v, Ptr::Mem { logical, mem });
        }
    }

    fn element_type(&mut self, t: TypeId, i: u32) -> TypeId {
        let e = self.types.element(t, i).expect("a part of an aggregate");
        self.types.intern(e)
    }

    fn konst(&mut self, c: Const, ty: TypeId, like: ValueId, out: &mut Vec<ValueId>) -> ValueId {
        self.new_inst(Op::Const(c), ty, like, out)
    }

    /// The logical value of `m`, a value of the memory form `mem`.
    fn logical_value(
        &mut self,
        m: ValueId,
        logical: TypeId,
        mem: TypeId,
        like: ValueId,
        out: &mut Vec<ValueId>,
    ) -> ValueId {
        if logical == mem {
            return m;
        }
        let part = |s: &mut Self, t: TypeId, i: u32, out: &mut Vec<ValueId>| {
            let pt = s.element_type(t, i);
            (s.new_inst(Op::Extract(m, i), pt, like, out), pt)
        };
        match self.types.get(logical).clone() {
            Type::Matrix { scalar, rows, cols } => {
                if matches!(*self.types.get(mem), Type::Matrix { cols: stored, .. } if stored == rows) {
                    return self.new_inst(Op::Intrinsic(Intrinsic::Transpose, vec![m]), logical, like, out);
                }
                let st = self.types.intern(Type::Scalar(scalar));
                let row_ty = self.types.intern(Type::Vector(scalar, cols));
                let columns: Vec<ValueId> = (0..cols).map(|c| part(self, mem, c as u32, out).0).collect();
                let rows_v: Vec<ValueId> = (0..rows)
                    .map(|r| {
                        let elems = columns
                            .iter()
                            .map(|&col| self.new_inst(Op::Extract(col, r as u32), st, like, out))
                            .collect();
                        self.new_inst(Op::Construct(elems), row_ty, like, out)
                    })
                    .collect();
                self.new_inst(Op::Construct(rows_v), logical, like, out)
            }
            Type::Scalar(_) => self.new_inst(Op::Extract(m, 0), logical, like, out),
            Type::Vector(_, n) => self.new_inst(Op::Swizzle(m, (0..n).collect()), logical, like, out),
            Type::Array(le, n) => {
                let parts = (0..n)
                    .map(|k| {
                        let (p, pt) = part(self, mem, k, out);
                        self.logical_value(p, le, pt, like, out)
                    })
                    .collect();
                self.new_inst(Op::Construct(parts), logical, like, out)
            }
            Type::Struct { fields, .. } => {
                let parts = fields
                    .iter()
                    .enumerate()
                    .map(|(i, (_, lf))| {
                        let j = self.forms.field(mem, i as u32);
                        let (p, pt) = part(self, mem, j, out);
                        self.logical_value(p, *lf, pt, like, out)
                    })
                    .collect();
                self.new_inst(Op::Construct(parts), logical, like, out)
            }
            _ => m,
        }
    }

    /// The memory form `mem` of `v`, a value of type `logical`.
    fn memory_value(
        &mut self,
        v: ValueId,
        logical: TypeId,
        mem: TypeId,
        like: ValueId,
        out: &mut Vec<ValueId>,
    ) -> ValueId {
        if logical == mem {
            return v;
        }
        let zero = |s: &mut Self, t: TypeId, out: &mut Vec<ValueId>| {
            let c = if s.types.scalar_of(t).is_some_and(|x| x.is_float()) { Const::Float(0.0) } else { Const::Int(0) };
            s.konst(c, t, like, out)
        };
        match (self.types.get(logical).clone(), self.types.get(mem).clone()) {
            (Type::Matrix { scalar, rows, cols }, Type::Matrix { cols: stored, .. }) => {
                if stored == rows {
                    return self.new_inst(Op::Intrinsic(Intrinsic::Transpose, vec![v]), mem, like, out);
                }
                let st = self.types.intern(Type::Scalar(scalar));
                let col_ty = self.types.intern(Type::Vector(scalar, stored));
                let row_ty = self.types.intern(Type::Vector(scalar, cols));
                let rows_v: Vec<ValueId> =
                    (0..rows).map(|r| self.new_inst(Op::Extract(v, r as u32), row_ty, like, out)).collect();
                let columns = (0..cols)
                    .map(|c| {
                        let mut elems: Vec<ValueId> = rows_v
                            .iter()
                            .map(|&row| self.new_inst(Op::Extract(row, c as u32), st, like, out))
                            .collect();
                        while elems.len() < stored as usize {
                            elems.push(zero(self, st, out));
                        }
                        self.new_inst(Op::Construct(elems), col_ty, like, out)
                    })
                    .collect();
                self.new_inst(Op::Construct(columns), mem, like, out)
            }
            (Type::Scalar(_) | Type::Vector(..), Type::Vector(s, n)) => {
                let st = self.types.intern(Type::Scalar(s));
                let mut parts = vec![v];
                let have = match *self.types.get(logical) {
                    Type::Vector(_, k) => k,
                    _ => 1,
                };
                for _ in have..n {
                    parts.push(zero(self, st, out));
                }
                self.new_inst(Op::Construct(parts), mem, like, out)
            }
            (Type::Array(le, n), Type::Array(me, _)) => {
                let parts = (0..n)
                    .map(|k| {
                        let p = self.new_inst(Op::Extract(v, k), le, like, out);
                        self.memory_value(p, le, me, like, out)
                    })
                    .collect();
                self.new_inst(Op::Construct(parts), mem, like, out)
            }
            (Type::Struct { fields, .. }, Type::Struct { fields: mem_fields, .. }) => {
                let mut parts: Vec<Option<ValueId>> = vec![None; mem_fields.len()];
                for (i, (_, lf)) in fields.iter().enumerate() {
                    let j = self.forms.field(mem, i as u32);
                    let p = self.new_inst(Op::Extract(v, i as u32), *lf, like, out);
                    parts[j as usize] = Some(self.memory_value(p, *lf, mem_fields[j as usize].1, like, out));
                }
                let parts = parts
                    .into_iter()
                    .zip(&mem_fields)
                    .map(|(p, (_, t))| p.unwrap_or_else(|| zero(self, *t, out)))
                    .collect();
                self.new_inst(Op::Construct(parts), mem, like, out)
            }
            _ => v,
        }
    }
}
