//! The IR: typed SSA with block parameters and structured control flow.
//!
//! The shape follows the Slang compiler's IR, so the forward- and
//! reverse-mode passes can be written over it as that compiler's are:
//!
//! * A [`Module`] holds interned [`Type`]s, global shader parameters and
//!   [`Function`]s. Everything is plain data in vectors indexed by ids.
//! * A function's values ([`ValueId`]) are block parameters and
//!   instructions; every value has a type and (for instructions) the Slang
//!   source range it came from, so that late errors point at user code.
//!   The parameters of the entry block are the function's parameters;
//!   `out`/`inout` parameters are pointers.
//! * Blocks end in one [`Terminator`]. Control flow is *structured*: an
//!   `If` names its merge block, a `Loop` its header, break and continue
//!   blocks, a `Switch` its break block. The targets of `If` and `Switch`
//!   take no arguments and have no other predecessor; values flow into
//!   merge, break, continue and header blocks as branch arguments.
//! * Local variables start as memory (`Var`, `Load`, `Store`,
//!   `FieldAddr`/`ElementAddr`); [`crate::mem2reg`] then promotes the ones
//!   whose address does not escape into SSA values and block parameters.
//!
//! [`crate::validate`] states the invariants; [`crate::print`] prints it.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use slang_analysis::ty::Scalar;
use slang_analysis::TextRange;

pub use crate::builtins::Intrinsic;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id!(
    /// An interned type of a [`Module`].
    TypeId,
    "t"
);
id!(
    /// A value (block parameter or instruction) of a [`Function`].
    ValueId,
    "%"
);
id!(
    /// A block of a [`Function`]; block 0 is the entry.
    BlockId,
    "b"
);
id!(
    /// A function of a [`Module`].
    FuncId,
    "f"
);
id!(
    /// A global shader parameter of a [`Module`].
    GlobalId,
    "g"
);

/// Where a pointer points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    /// Local variables and `out`/`inout` parameters.
    Function,
    /// Structured and byte-address buffers (`writable` for the `RW`
    /// ones).
    Storage { writable: bool },
    /// Constant buffers: `ConstantBuffer<T>`, `cbuffer` blocks, and the
    /// default buffers of `uniform` globals and entry-point parameters.
    Uniform,
    /// `groupshared` variables, one per thread group.
    Workgroup,
    /// `static` globals, one per thread.
    Private,
    /// Textures and samplers (opaque handles: loading the global gives
    /// the handle).
    Handle,
}

impl AddressSpace {
    /// Memory the host sees (buffers), whose layout rules
    /// [`crate::layout`] applies.
    pub fn is_host_shared(self) -> bool {
        matches!(self, AddressSpace::Storage { .. } | AddressSpace::Uniform)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    /// Slang's `TRxC`: `rows` vectors of `cols` elements; `m[i]` is row `i`.
    Matrix {
        scalar: Scalar,
        rows: u8,
        cols: u8,
    },
    Array(TypeId, u32),
    /// The contents of a structured buffer.
    RuntimeArray(TypeId),
    Struct {
        name: String,
        fields: Vec<(String, TypeId)>,
    },
    Ptr(TypeId, AddressSpace),
    /// `DifferentialPair<T>`: an aggregate of a primal (part 0, `.p`) and
    /// its differential (part 1, `.d`, of type `T.Differential`), built
    /// with `Construct` and read with `Extract` like a struct; lowered to
    /// a plain struct before code generation
    /// ([`crate::autodiff::pairs`]).
    DifferentialPair {
        primal: TypeId,
        diff: TypeId,
    },
    /// A texture (`Texture2D<T>` …) of `scalar` texels (up to four
    /// components; reads give four). Writable ones (`RWTexture2D<T>` …,
    /// storage images) have `Some` of the texel's number of components,
    /// which gives their format (`float` → r32float, `float4` →
    /// rgba32float …).
    Texture(TextureShape, Scalar, Option<u8>),
    /// `SamplerState`.
    Sampler,
}

/// The dimensions of a texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureShape {
    D1,
    D2,
    D3,
    Cube,
    /// Arrays of 2D textures and of cubes: their operations take a layer
    /// (an `int`) after their other operands.
    D2Array,
    CubeArray,
}

impl TextureShape {
    /// Components of a sampling coordinate (`float2` for `D2` …), of a
    /// size query (`uint2` …).
    pub fn coordinate_size(self) -> u8 {
        match self {
            TextureShape::D1 => 1,
            TextureShape::D2 | TextureShape::D2Array => 2,
            TextureShape::D3 | TextureShape::Cube | TextureShape::CubeArray => 3,
        }
    }

    /// Components of a size query (a cube's faces are 2D).
    pub fn size_dims(self) -> u8 {
        match self {
            TextureShape::Cube | TextureShape::CubeArray => 2,
            s => s.coordinate_size(),
        }
    }

    /// Whether this is an array of textures.
    pub fn is_array(self) -> bool {
        matches!(self, TextureShape::D2Array | TextureShape::CubeArray)
    }

    /// Whether this is a cube (whose texels are not loaded by index).
    pub fn is_cube(self) -> bool {
        matches!(self, TextureShape::Cube | TextureShape::CubeArray)
    }

    /// The Slang type name.
    pub fn name(self) -> &'static str {
        match self {
            TextureShape::D1 => "Texture1D",
            TextureShape::D2 => "Texture2D",
            TextureShape::D3 => "Texture3D",
            TextureShape::Cube => "TextureCube",
            TextureShape::D2Array => "Texture2DArray",
            TextureShape::CubeArray => "TextureCubeArray",
        }
    }
}

/// What an [`Op::Texture`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureOp {
    /// `(texture, sampler, coordinate, level)`: the filtered texel at an
    /// explicit mip level (`SampleLevel`; `Sample` in compute shaders is
    /// level 0); four components.
    SampleLevel,
    /// `(texture, integer coordinate, level)`: one texel (`Load`,
    /// `t[i]`); four components.
    Load,
    /// `(texture, level)`: the size of a mip level (`uint`s).
    Size,
    /// `(texture)`: the number of mip levels.
    Levels,
    /// `(texture, integer coordinate, texel)`: write one texel of a
    /// writable texture (four components); no value.
    Store,
    /// `(texture)`: the number of layers of an array.
    Layers,
}

/// The synthesized `Differential` of a struct: its type and, for each
/// field of the struct, the index of the field holding its derivative
/// (`None`: the field is not differentiable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDiff {
    pub ty: TypeId,
    pub fields: Vec<Option<u32>>,
}

/// The module's types, interned: equal types have equal ids; and the
/// `Differential` of each differentiable struct.
#[derive(Debug, Clone, Default)]
pub struct Types {
    types: Vec<Type>,
    ids: HashMap<Type, TypeId>,
    struct_diffs: HashMap<TypeId, StructDiff>,
    /// `IDifferentiablePtrType` structs: their `DifferentialPtrPair<T>`
    /// (a struct of `p: T` and `d: T.Differential`).
    ptr_pairs: HashMap<TypeId, TypeId>,
}

impl Types {
    pub fn intern(&mut self, ty: Type) -> TypeId {
        if let Some(&id) = self.ids.get(&ty) {
            return id;
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(ty.clone());
        self.ids.insert(ty, id);
        id
    }

    pub fn get(&self, id: TypeId) -> &Type {
        &self.types[id.index()]
    }

    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &Type)> {
        self.types.iter().enumerate().map(|(i, t)| (TypeId(i as u32), t))
    }

    /// The scalar of a scalar, vector or matrix type.
    pub fn scalar_of(&self, id: TypeId) -> Option<Scalar> {
        match *self.get(id) {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => Some(s),
            _ => None,
        }
    }

    /// What a pointer type points to.
    pub fn pointee(&self, id: TypeId) -> Option<(TypeId, AddressSpace)> {
        match *self.get(id) {
            Type::Ptr(t, space) => Some((t, space)),
            _ => None,
        }
    }

    /// The id of a type, if it was interned.
    pub fn find(&self, ty: &Type) -> Option<TypeId> {
        self.ids.get(ty).copied()
    }

    /// Make every `half` a `float` (for targets without 16-bit floats:
    /// naga's GLSL writer has none). Ids stay valid; types that become
    /// equal keep their own ids.
    pub fn widen_half(&mut self) {
        for t in &mut self.types {
            match t {
                Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } if *s == Scalar::Half => {
                    *s = Scalar::Float
                }
                _ => {}
            }
        }
        self.ids.clear();
        for (i, t) in self.types.iter().enumerate() {
            self.ids.entry(t.clone()).or_insert(TypeId(i as u32));
        }
    }

    /// Record the `Differential` of the struct `ty`.
    pub fn set_struct_diff(&mut self, ty: TypeId, diff: StructDiff) {
        self.struct_diffs.insert(ty, diff);
    }

    /// Make `pair` the `DifferentialPtrPair<T>` of the pointer-like
    /// differentiable type `ty`.
    pub fn set_ptr_pair(&mut self, ty: TypeId, pair: TypeId) {
        self.ptr_pairs.insert(ty, pair);
    }

    /// The `DifferentialPtrPair<T>` of an `IDifferentiablePtrType` struct:
    /// such a value is passed to derivatives with its derivative location
    /// (an input in both modes).
    pub fn ptr_pair(&self, ty: TypeId) -> Option<TypeId> {
        self.ptr_pairs.get(&ty).copied()
    }

    /// The `Differential` of a differentiable struct.
    pub fn struct_diff(&self, ty: TypeId) -> Option<&StructDiff> {
        self.struct_diffs.get(&ty)
    }

    /// `T.Differential`, or `None` when `T` is not differentiable: float
    /// scalars, vectors and matrices are their own; arrays and pairs take
    /// their parts'; structs have a synthesized one.
    pub fn differential(&mut self, id: TypeId) -> Option<TypeId> {
        match self.get(id).clone() {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => s.is_float().then_some(id),
            Type::Array(e, n) => {
                let d = self.differential(e)?;
                Some(self.intern(Type::Array(d, n)))
            }
            Type::Struct { .. } => self.struct_diff(id).map(|d| d.ty),
            Type::DifferentialPair { diff, .. } => self.pair(diff),
            Type::Void | Type::RuntimeArray(_) | Type::Ptr(..) | Type::Texture(..) | Type::Sampler => None,
        }
    }

    /// `DifferentialPair<T>`, when `T` is differentiable.
    pub fn pair(&mut self, primal: TypeId) -> Option<TypeId> {
        let diff = self.differential(primal)?;
        Some(self.intern(Type::DifferentialPair { primal, diff }))
    }

    /// The type of the `index`th element, field, component or row (any
    /// index for runtime arrays).
    pub fn element(&self, id: TypeId, index: u32) -> Option<Type> {
        Some(match self.get(id) {
            Type::Vector(s, n) if index < *n as u32 => Type::Scalar(*s),
            Type::Matrix { scalar, rows, cols } if index < *rows as u32 => Type::Vector(*scalar, *cols),
            Type::Array(e, n) if index < *n => self.get(*e).clone(),
            Type::RuntimeArray(e) => self.get(*e).clone(),
            Type::Struct { fields, .. } => self.get(fields.get(index as usize)?.1).clone(),
            Type::DifferentialPair { primal, .. } if index == 0 => self.get(*primal).clone(),
            Type::DifferentialPair { diff, .. } if index == 1 => self.get(*diff).clone(),
            _ => return None,
        })
    }

    /// Slang spelling of a type.
    pub fn display(&self, id: TypeId) -> String {
        match self.get(id) {
            Type::Void => "void".into(),
            Type::Scalar(s) => s.name().into(),
            Type::Vector(s, n) => format!("{}{n}", s.name()),
            Type::Matrix { scalar, rows, cols } => format!("{}{rows}x{cols}", scalar.name()),
            Type::Array(e, n) => format!("{}[{n}]", self.display(*e)),
            Type::RuntimeArray(e) => format!("{}[]", self.display(*e)),
            Type::Struct { name, .. } => name.clone(),
            Type::Ptr(t, AddressSpace::Function) => format!("Ptr<{}>", self.display(*t)),
            Type::Ptr(t, AddressSpace::Storage { writable }) => {
                format!("Ptr<{}, {}>", self.display(*t), if *writable { "storage" } else { "storage_read" })
            }
            Type::Ptr(t, AddressSpace::Uniform) => format!("Ptr<{}, uniform>", self.display(*t)),
            Type::Ptr(t, AddressSpace::Workgroup) => format!("Ptr<{}, groupshared>", self.display(*t)),
            Type::Ptr(t, AddressSpace::Private) => format!("Ptr<{}, static>", self.display(*t)),
            Type::DifferentialPair { primal, .. } => format!("DifferentialPair<{}>", self.display(*primal)),
            Type::Texture(shape, s, None) => format!("{}<{}>", shape.name(), s.name()),
            Type::Texture(shape, s, Some(n)) => format!("RW{}<{}{}>", shape.name(), s.name(), n),
            Type::Sampler => "SamplerState".into(),
            Type::Ptr(t, AddressSpace::Handle) => format!("Ptr<{}, handle>", self.display(*t)),
        }
    }
}

/// A scalar constant; its type is the instruction's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Const {
    Bool(bool),
    Int(i64),
    Float(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    /// Logical not (of `bool`s).
    Not,
    BitNot,
}

/// Binary operators. Both operands have the result's type (comparisons:
/// the same type, the result `bool`-shaped), except shifts (the amount is
/// `uint`-shaped). On matrices every operator works element-wise; the
/// matrix product is [`Intrinsic::Mul`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Element-wise (no short circuit: `&&`/`||` on scalars lower to
    /// control flow).
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
        }
    }
}

/// What a [`Op::Barrier`] waits for, besides every thread of the group
/// reaching it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Barrier {
    /// `GroupMemoryBarrierWithGroupSync`: `groupshared` memory.
    Group,
    /// `DeviceMemoryBarrierWithGroupSync`: buffers.
    Device,
    /// `AllMemoryBarrierWithGroupSync`: both.
    All,
    /// `GroupMemoryBarrierWithWaveSync`: `groupshared` memory, among the
    /// threads of one subgroup (wave).
    Wave,
}

/// What an [`Op::Subgroup`] combines over the subgroup's active threads
/// (`WaveActiveAllTrue`, `WaveActiveSum`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubgroupOp {
    All,
    Any,
    Sum,
    Product,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
}

/// Whether an [`Op::Subgroup`] gives every thread the whole subgroup's
/// result, or the result over the threads before it (`WavePrefixSum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubgroupScope {
    Reduce,
    ExclusivePrefix,
}

/// The read-modify-write an [`Op::Atomic`] does (`InterlockedAdd` …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    And,
    Or,
    Xor,
    Min,
    Max,
    Exchange,
    /// Store the value if the current one equals the comparand.
    CompareExchange,
}

/// What an instruction computes.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Const(Const),
    Unary(UnaryOp, ValueId),
    Binary(BinaryOp, ValueId, ValueId),
    /// A vector, matrix (from rows), array or struct from its parts; a
    /// vector may also be built from smaller vectors.
    Construct(Vec<ValueId>),
    /// A scalar repeated into a vector or matrix.
    Splat(ValueId),
    /// Element, field, component or row `index` of an aggregate value.
    Extract(ValueId, u32),
    /// Element or component at a dynamic index.
    ExtractDynamic(ValueId, ValueId),
    /// The number of elements of the runtime array a storage pointer
    /// points to (a `uint`).
    ArrayLength(ValueId),
    /// A thread-group barrier (`GroupMemoryBarrierWithGroupSync()` and
    /// the like); `void`.
    Barrier(Barrier),
    /// A subgroup (wave) operation on the operand over the subgroup's
    /// active threads; every active thread must reach it.
    Subgroup(SubgroupOp, SubgroupScope, ValueId),
    /// Components of a vector (`v.zyx`).
    Swizzle(ValueId, Vec<u8>),
    /// Numeric conversion to the result type (same shape).
    Convert(ValueId),
    /// `cond ? a : b`, element-wise for a vector condition; both sides
    /// are evaluated.
    Select(ValueId, ValueId, ValueId),
    Intrinsic(Intrinsic, Vec<ValueId>),
    Call(FuncId, Vec<ValueId>),
    /// A local variable; the result is a pointer to it.
    Var,
    /// A pointer to a global shader parameter.
    Global(GlobalId),
    Load(ValueId),
    Store {
        ptr: ValueId,
        value: ValueId,
    },
    /// A pointer to field, row or component `index` of the pointee.
    FieldAddr(ValueId, u32),
    /// A pointer to the element at a dynamic index.
    ElementAddr(ValueId, ValueId),
    /// The operand, whose derivative is dropped (`detach(x)`, the results
    /// of `no_diff` calls); removed after differentiation.
    Detach(ValueId),
    /// An atomic read-modify-write of the scalar `ptr` points to (a buffer
    /// element or `groupshared` variable); the result is the old value.
    /// `compare` is [`AtomicOp::CompareExchange`]'s comparand.
    Atomic {
        op: AtomicOp,
        ptr: ValueId,
        value: ValueId,
        compare: Option<ValueId>,
    },
    /// A texture read or query; operands as [`TextureOp`] says.
    Texture(TextureOp, Vec<ValueId>),
}

impl Op {
    /// Instructions kept even when nothing uses their value.
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            Op::Store { .. }
                | Op::Call(..)
                | Op::Barrier(_)
                | Op::Subgroup(..)
                | Op::Atomic { .. }
                | Op::Texture(TextureOp::Store, _)
        )
    }

    /// Arithmetic on values alone (no memory, calls, built-ins or
    /// constants): the same operands always give the same result.
    pub fn is_value_arithmetic(&self) -> bool {
        matches!(
            self,
            Op::Unary(..)
                | Op::Binary(..)
                | Op::Construct(_)
                | Op::Splat(_)
                | Op::Extract(..)
                | Op::ExtractDynamic(..)
                | Op::Swizzle(..)
                | Op::Convert(_)
                | Op::Select(..)
                | Op::Detach(_)
        )
    }

    /// The values the instruction reads.
    pub fn operands(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(v));
        out
    }

    /// Call `f` on each operand, in order (without allocating).
    pub fn for_each_operand(&self, mut f: impl FnMut(ValueId)) {
        match self {
            Op::Const(_) | Op::Var | Op::Global(_) | Op::Barrier(_) => {}
            Op::Unary(_, a)
            | Op::Splat(a)
            | Op::Extract(a, _)
            | Op::Swizzle(a, _)
            | Op::Convert(a)
            | Op::Load(a)
            | Op::Detach(a)
            | Op::ArrayLength(a)
            | Op::Subgroup(_, _, a)
            | Op::FieldAddr(a, _) => f(*a),
            Op::Binary(_, a, b) | Op::ExtractDynamic(a, b) | Op::ElementAddr(a, b) => {
                f(*a);
                f(*b);
            }
            Op::Store { ptr, value } => {
                f(*ptr);
                f(*value);
            }
            Op::Atomic { ptr, value, compare, .. } => {
                f(*ptr);
                f(*value);
                if let Some(c) = compare {
                    f(*c);
                }
            }
            Op::Select(a, b, c) => {
                f(*a);
                f(*b);
                f(*c);
            }
            Op::Construct(args) | Op::Intrinsic(_, args) | Op::Call(_, args) | Op::Texture(_, args) => {
                args.iter().for_each(|&a| f(a));
            }
        }
    }

    /// Replace every operand through `f`.
    pub fn map_operands(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        match self {
            Op::Const(_) | Op::Var | Op::Global(_) | Op::Barrier(_) => {}
            Op::Unary(_, a)
            | Op::Splat(a)
            | Op::Extract(a, _)
            | Op::Swizzle(a, _)
            | Op::Convert(a)
            | Op::Load(a)
            | Op::Detach(a)
            | Op::ArrayLength(a)
            | Op::Subgroup(_, _, a)
            | Op::FieldAddr(a, _) => *a = f(*a),
            Op::Binary(_, a, b) | Op::ExtractDynamic(a, b) | Op::ElementAddr(a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Store { ptr, value } => {
                *ptr = f(*ptr);
                *value = f(*value);
            }
            Op::Atomic { ptr, value, compare, .. } => {
                *ptr = f(*ptr);
                *value = f(*value);
                if let Some(c) = compare {
                    *c = f(*c);
                }
            }
            Op::Select(a, b, c) => {
                *a = f(*a);
                *b = f(*b);
                *c = f(*c);
            }
            Op::Construct(args) | Op::Intrinsic(_, args) | Op::Call(_, args) | Op::Texture(_, args) => {
                for a in args {
                    *a = f(*a);
                }
            }
        }
    }
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    Return(Option<ValueId>),
    /// Jump to `target`, passing its block parameters.
    Branch {
        target: BlockId,
        args: Vec<ValueId>,
    },
    /// Two-way branch; both sides meet again at `merge` (which is never
    /// reached when both sides leave the construct).
    If {
        cond: ValueId,
        then: BlockId,
        els: BlockId,
        merge: BlockId,
    },
    /// Enter a loop at `header` (passing its parameters). `continue`
    /// branches to `cont`, whose code runs before the next iteration and
    /// ends with a branch back to `header` (or, for `do … while`, an `If`
    /// between a block branching to `header` and one branching to
    /// `brk`); `break` branches to `brk`, where the code after the loop
    /// starts.
    Loop {
        header: BlockId,
        brk: BlockId,
        cont: BlockId,
        args: Vec<ValueId>,
    },
    Switch {
        value: ValueId,
        cases: Vec<(i64, BlockId)>,
        default: BlockId,
        brk: BlockId,
    },
    /// Control never gets here (after a call that does not return, or at
    /// the end of a function whose every path returns).
    Unreachable,
}

impl Terminator {
    /// The blocks control can go to next, each once (labels that share a
    /// case body, `case 1: case 2:`, are one edge).
    pub fn successors(&self) -> Successors {
        let few = |blocks: &[BlockId]| {
            let mut inline = [BlockId(0); 2];
            inline[..blocks.len()].copy_from_slice(blocks);
            Successors::Few(inline, blocks.len() as u8)
        };
        match self {
            Terminator::Return(_) | Terminator::Unreachable => few(&[]),
            Terminator::Branch { target, .. } => few(&[*target]),
            Terminator::If { then, els, .. } => few(&[*then, *els]),
            Terminator::Loop { header, .. } => few(&[*header]),
            Terminator::Switch { cases, default, .. } => {
                let mut out: Vec<BlockId> = Vec::new();
                for b in cases.iter().map(|c| c.1).chain([*default]) {
                    if !out.contains(&b) {
                        out.push(b);
                    }
                }
                Successors::Many(out)
            }
        }
    }

    /// The values the terminator reads.
    pub fn operands(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(v));
        out
    }

    /// Call `f` on each operand (without allocating).
    pub fn for_each_operand(&self, mut f: impl FnMut(ValueId)) {
        match self {
            Terminator::Return(Some(v)) | Terminator::If { cond: v, .. } | Terminator::Switch { value: v, .. } => f(*v),
            Terminator::Branch { args, .. } | Terminator::Loop { args, .. } => args.iter().for_each(|&a| f(a)),
            Terminator::Return(None) | Terminator::Unreachable => {}
        }
    }

    pub fn map_operands(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        match self {
            Terminator::Return(Some(v)) | Terminator::If { cond: v, .. } | Terminator::Switch { value: v, .. } => {
                *v = f(*v)
            }
            Terminator::Branch { args, .. } | Terminator::Loop { args, .. } => {
                for a in args {
                    *a = f(*a);
                }
            }
            Terminator::Return(None) | Terminator::Unreachable => {}
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    /// The `index`th parameter of `block`.
    Param {
        block: BlockId,
        index: u32,
    },
    Inst(Op),
}

/// A terminator's successor blocks ([`Terminator::successors`]): a slice
/// (through `Deref`) and an iterator, allocated only for a `switch` (the
/// passes ask for them once per block, and more).
#[derive(Debug, Clone)]
pub enum Successors {
    /// Up to two blocks: the first `n`.
    Few([BlockId; 2], u8),
    Many(Vec<BlockId>),
}

impl std::ops::Deref for Successors {
    type Target = [BlockId];

    fn deref(&self) -> &[BlockId] {
        match self {
            Successors::Few(blocks, n) => &blocks[..*n as usize],
            Successors::Many(blocks) => blocks,
        }
    }
}

impl IntoIterator for Successors {
    type Item = BlockId;
    type IntoIter = SuccessorsIter;

    fn into_iter(self) -> SuccessorsIter {
        SuccessorsIter { blocks: self, next: 0 }
    }
}

/// The iterator of [`Successors`].
#[derive(Debug, Clone)]
pub struct SuccessorsIter {
    blocks: Successors,
    next: usize,
}

impl Iterator for SuccessorsIter {
    type Item = BlockId;

    fn next(&mut self) -> Option<BlockId> {
        let b = self.blocks.get(self.next).copied();
        self.next += 1;
        b
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub ty: TypeId,
    pub kind: ValueKind,
    /// The Slang source this value was lowered from.
    pub span: Option<TextRange>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub params: Vec<ValueId>,
    pub insts: Vec<ValueId>,
    pub term: Terminator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamDir {
    In,
    Out,
    InOut,
}

/// System values an entry point can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `SV_DispatchThreadID` (`uint3`).
    DispatchThreadId,
    /// `SV_GroupThreadID` (`uint3`).
    GroupThreadId,
    /// `SV_GroupID` (`uint3`).
    GroupId,
    /// `SV_GroupIndex` (`uint`).
    GroupIndex,
}

impl Builtin {
    pub fn from_semantic(name: &str) -> Option<Builtin> {
        Some(match name.to_ascii_lowercase().as_str() {
            "sv_dispatchthreadid" => Builtin::DispatchThreadId,
            "sv_groupthreadid" => Builtin::GroupThreadId,
            "sv_groupid" => Builtin::GroupId,
            "sv_groupindex" => Builtin::GroupIndex,
            _ => return None,
        })
    }

    pub fn semantic(self) -> &'static str {
        match self {
            Builtin::DispatchThreadId => "SV_DispatchThreadID",
            Builtin::GroupThreadId => "SV_GroupThreadID",
            Builtin::GroupId => "SV_GroupID",
            Builtin::GroupIndex => "SV_GroupIndex",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub dir: ParamDir,
    /// The value's type; a pointer for `out` and `inout`.
    pub ty: TypeId,
    pub builtin: Option<Builtin>,
    /// Declared `no_diff`: left out of differentiation.
    pub no_diff: bool,
}

/// How forward-mode differentiation treats a function, from its
/// attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Derivative {
    /// Not differentiable: its calls carry no derivative.
    #[default]
    None,
    /// Differentiable: the derivative is transcribed from the body.
    Transcribe,
    /// `[ForwardDerivative(g)]` / `[ForwardDerivativeOf(f)]`: `g` is the
    /// forward derivative.
    Custom(FuncId),
    /// `[PrimalSubstitute(s)]` / `[PrimalSubstituteOf(f)]`: derivatives
    /// are those of `s`.
    Substitute(FuncId),
    /// `[TreatAsDifferentiable]`: derivatives are zero.
    Zero,
}

/// A compute entry point's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryPoint {
    pub workgroup_size: [u32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: TypeId,
    pub values: Vec<Value>,
    pub blocks: Vec<Block>,
    pub entry_point: Option<EntryPoint>,
    pub span: Option<TextRange>,
    pub derivative: Derivative,
    /// The result is declared `no_diff`.
    pub ret_no_diff: bool,
    /// An upper bound on the iterations of loops (by header block), from
    /// `[MaxIters(n)]` or a literal `for` bound: what reverse mode sizes
    /// the values it saves per iteration by.
    pub max_iters: Vec<(BlockId, u32)>,
    /// `[BackwardDerivative(g)]` / `[BackwardDerivativeOf(f)]`: `g` is the
    /// backward derivative.
    pub backward: Option<FuncId>,
    /// `[PreferRecompute]`: a caller's backward derivative recomputes this
    /// function's primal instead of keeping its context.
    pub prefer_recompute: bool,
    /// `[PreferCheckpoint]`: its backward derivative saves every primal
    /// value its backward part reads instead of recomputing the cheap
    /// ones.
    pub prefer_checkpoint: bool,
    /// Loops marked `[ForceUnroll]` (by header block), the loop's source
    /// range, and whether an iteration bound was written
    /// (`[ForceUnroll(n)]`): [`crate::unroll`] unrolls them.
    pub force_unroll: Vec<(BlockId, Option<TextRange>, bool)>,
}

impl Function {
    pub const ENTRY: BlockId = BlockId(0);

    pub fn value(&self, v: ValueId) -> &Value {
        &self.values[v.index()]
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    pub fn op(&self, v: ValueId) -> Option<&Op> {
        match &self.value(v).kind {
            ValueKind::Inst(op) => Some(op),
            ValueKind::Param { .. } => None,
        }
    }

    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    /// The block defining each value (`None`: defined nowhere, e.g. left
    /// over after a pass removed its instruction).
    pub fn def_blocks(&self) -> Vec<Option<BlockId>> {
        let mut out = vec![None; self.values.len()];
        for b in self.block_ids() {
            let block = self.block(b);
            for &v in block.params.iter().chain(&block.insts) {
                out[v.index()] = Some(b);
            }
        }
        out
    }

    /// The value of an integer constant that fits an index (`None`: not
    /// a constant, or negative).
    pub fn const_index(&self, v: ValueId) -> Option<u32> {
        match self.op(v) {
            Some(Op::Const(Const::Int(i))) => u32::try_from(*i).ok(),
            _ => None,
        }
    }

    /// Replace every use (operand or terminator argument) of a key of
    /// `replaced` by its value.
    pub fn replace_uses<S: std::hash::BuildHasher>(
        &mut self,
        replaced: &std::collections::HashMap<ValueId, ValueId, S>,
    ) {
        let map = |v: ValueId| replaced.get(&v).copied().unwrap_or(v);
        for value in &mut self.values {
            if let ValueKind::Inst(op) = &mut value.kind {
                op.map_operands(map);
            }
        }
        for block in &mut self.blocks {
            block.term.map_operands(map);
        }
    }

    /// Drop the values no block holds any more (instructions removed by
    /// a pass stay in [`Function::values`]) and number the rest densely,
    /// in block order; a value still read but held by no block (invalid
    /// IR, for the validator to report) is kept. Returns the new id of
    /// each old value (`None`: dropped).
    pub fn compact(&mut self) -> Vec<Option<ValueId>> {
        fn keep(v: ValueId, new_id: &mut [Option<ValueId>], order: &mut Vec<ValueId>) {
            if let Some(slot @ None) = new_id.get_mut(v.index()) {
                *slot = Some(ValueId(order.len() as u32));
                order.push(v);
            }
        }
        let mut new_id: Vec<Option<ValueId>> = vec![None; self.values.len()];
        let mut order: Vec<ValueId> = Vec::new();
        for block in &self.blocks {
            for &v in block.params.iter().chain(&block.insts) {
                keep(v, &mut new_id, &mut order);
            }
        }
        for block in &self.blocks {
            block.term.for_each_operand(|o| keep(o, &mut new_id, &mut order));
        }
        let mut i = 0;
        while i < order.len() {
            if let ValueKind::Inst(op) = &self.values[order[i].index()].kind {
                op.for_each_operand(|o| keep(o, &mut new_id, &mut order));
            }
            i += 1;
        }
        let mut old = std::mem::take(&mut self.values);
        let placeholder = || Value { ty: TypeId(0), kind: ValueKind::Inst(Op::Var), span: None };
        self.values = order.iter().map(|v| std::mem::replace(&mut old[v.index()], placeholder())).collect();
        let map = |v: ValueId| new_id.get(v.index()).copied().flatten().unwrap_or(v);
        for value in &mut self.values {
            if let ValueKind::Inst(op) = &mut value.kind {
                op.map_operands(map);
            }
        }
        for block in &mut self.blocks {
            for v in block.params.iter_mut().chain(&mut block.insts) {
                *v = map(*v);
            }
            block.term.map_operands(map);
        }
        new_id
    }

    /// The predecessors of each block, one entry per edge.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for b in self.block_ids() {
            for s in self.block(b).term.successors() {
                if let Some(p) = preds.get_mut(s.index()) {
                    p.push(b);
                }
            }
        }
        preds
    }

    /// Blocks reachable from the entry, in reverse post-order (none for a
    /// function without blocks: a derivative not transcribed yet).
    pub fn reverse_post_order(&self) -> Vec<BlockId> {
        if self.blocks.is_empty() {
            return Vec::new();
        }
        let mut seen = vec![false; self.blocks.len()];
        let mut order = Vec::new();
        // Iterative DFS: (block, next successor to visit).
        let mut stack = vec![(Self::ENTRY, 0usize)];
        seen[0] = !self.blocks.is_empty();
        while let Some((b, i)) = stack.pop() {
            let succs = self.block(b).term.successors();
            if let Some(&s) = succs.get(i) {
                stack.push((b, i + 1));
                if s.index() < seen.len() && !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        order
    }
}

/// A global variable: a shader parameter (a buffer), or a `static` or
/// `groupshared` variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Global {
    pub name: String,
    /// The contents: a runtime array of the element type for structured
    /// and byte-address buffers (of `uint`s), a struct for constant
    /// buffers, the variable's type for the others.
    pub ty: TypeId,
    pub space: AddressSpace,
    /// `(descriptor set, binding)` of shader parameters.
    pub binding: Option<(u32, u32)>,
    /// The initial value of a `static` global (zero when absent).
    pub init: Option<ConstValue>,
    pub span: Option<TextRange>,
}

/// A constant of any type: a scalar, or the parts of a vector (its
/// scalars), matrix (its rows), array or struct.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    Scalar(Const),
    Composite(Vec<ConstValue>),
}

#[derive(Debug, Clone, Default)]
pub struct Module {
    pub types: Types,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, f: FuncId) -> &Function {
        &self.functions[f.index()]
    }

    pub fn global(&self, g: GlobalId) -> &Global {
        &self.globals[g.index()]
    }
}

/// Appends values and blocks to a function under construction.
pub struct FunctionBuilder {
    pub func: Function,
}

impl FunctionBuilder {
    pub fn new(name: String, ret: TypeId, span: Option<TextRange>) -> Self {
        let func = Function {
            name,
            params: Vec::new(),
            ret,
            values: Vec::new(),
            blocks: Vec::new(),
            entry_point: None,
            span,
            derivative: Derivative::None,
            ret_no_diff: false,
            max_iters: Vec::new(),
            backward: None,
            prefer_recompute: false,
            prefer_checkpoint: false,
            force_unroll: Vec::new(),
        };
        FunctionBuilder { func }
    }

    pub fn new_block(&mut self) -> BlockId {
        let id = BlockId(self.func.blocks.len() as u32);
        self.func.blocks.push(Block { params: Vec::new(), insts: Vec::new(), term: Terminator::Unreachable });
        id
    }

    pub fn add_block_param(&mut self, block: BlockId, ty: TypeId, span: Option<TextRange>) -> ValueId {
        let index = self.func.blocks[block.index()].params.len() as u32;
        let v = ValueId(self.func.values.len() as u32);
        self.func.values.push(Value { ty, kind: ValueKind::Param { block, index }, span });
        self.func.blocks[block.index()].params.push(v);
        v
    }

    /// Append an instruction to `block`.
    pub fn inst(&mut self, block: BlockId, op: Op, ty: TypeId, span: Option<TextRange>) -> ValueId {
        let v = ValueId(self.func.values.len() as u32);
        self.func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
        self.func.blocks[block.index()].insts.push(v);
        v
    }

    pub fn terminate(&mut self, block: BlockId, term: Terminator) {
        self.func.blocks[block.index()].term = term;
    }

    pub fn ty(&self, v: ValueId) -> TypeId {
        self.func.values[v.index()].ty
    }

    pub fn finish(self) -> Function {
        self.func
    }
}
