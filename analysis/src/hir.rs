//! HIR: function bodies and type references lowered from syntax into plain
//! data without text positions.
//!
//! A [`Body`] holds the expressions and statements of one function in
//! arenas; its [`BodySourceMap`] maps them back to syntax. Because a body
//! has no positions, an edit in another function (which shifts this one's
//! text) yields an equal body, and this function's inference is not re-run.
//!
//! [`scope`] lists each declaration's local bindings and where each is
//! visible: the one answer to which local a name means. [`consteval`] is
//! the one constant evaluator; [`ops`] the operators.
//!
//! Code generation reads source facts only through here and the item
//! tree: what it needs of a statement, parameter or expression is data of
//! the HIR (not syntax kinds), and ranges come from [`def_range`],
//! [`expr_range`], [`stmt_range`] and [`param_range`].

pub mod consteval;
pub mod ops;
pub mod packs;
pub mod scope;

pub use ops::{BinOp, PostfixOp, PrefixOp};

use std::sync::Arc;

use slang_syntax::ast::{self, AstNode, HasName, HasPath};
use slang_syntax::{SyntaxKind, SyntaxNode, SyntaxNodePtr, TextSize};

use crate::item_tree::item_source_map;
use crate::{parse, Db, SourceFile};

/// A declaration, named by its file and its index in the file's item
/// source map. Interned so that queries can take it as a key.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct DefId {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(copy)]
    pub ast_index: u32,
}

/// The syntax node of a declaration.
pub fn def_node(db: &dyn Db, def: DefId) -> Option<SyntaxNode> {
    let file = def.file(db);
    let root = parse(db, file).syntax_node();
    let ptr = item_source_map(db, file).get(def.ast_index(db) as usize)?;
    Some(ptr.to_node(&root))
}

// ---------------------------------------------------------------------------
// Type references.

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// `a::B<int>.C` — each segment with its generic arguments.
    Path(Vec<PathSegment>),
    /// `T[N]` (`None`: unsized or not a literal).
    Array(Box<TypeRef>, ArrayLen),
    Pointer(Box<TypeRef>),
    Tuple(Vec<TypeRef>),
    /// `This`
    This,
    /// `expand P`: the pattern `P` once per element of the packs its
    /// `each T` name (a type pack when substituted).
    Expand(Box<TypeRef>),
    /// `each T`: the element of pack `T` the enclosing `expand` is at.
    Each(Box<TypeRef>),
    /// Element `index` of the pack `T` (`each T` inside an `expand` once
    /// the pack's length is known: [`packs::expand_packs`]).
    PackElem(Box<TypeRef>, u32),
    /// Function types … (not modelled yet).
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArrayLen {
    Unsized,
    Known(u32),
    /// A named constant (`kCount`), evaluated when resolved.
    Named(String),
    /// A constant expression we do not evaluate.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathSegment {
    pub name: String,
    pub args: Vec<GenericArgRef>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GenericArgRef {
    Type(TypeRef),
    /// A value argument: its value when it is an integer literal.
    Value(Option<i64>),
}

pub fn lower_type(ty: Option<ast::Type>) -> TypeRef {
    let Some(ty) = ty else { return TypeRef::Unknown };
    match ty {
        ast::Type::PathType(p) => {
            let segs = p.segments();
            if segs.len() == 1 && segs[0].ident.kind() == SyntaxKind::THIS_TYPE_KW {
                return TypeRef::This;
            }
            TypeRef::Path(
                segs.iter()
                    .map(|s| PathSegment {
                        name: s.text().to_string(),
                        args: s
                            .generic_arg_list
                            .as_ref()
                            .map(|l| l.args().map(lower_generic_arg).collect())
                            .unwrap_or_default(),
                    })
                    .collect(),
            )
        }
        ast::Type::ArrayType(a) => TypeRef::Array(Box::new(lower_type(a.element())), size_len(a.size())),
        ast::Type::PointerType(p) => TypeRef::Pointer(Box::new(lower_type(p.pointee()))),
        ast::Type::ModifiedType(m) => lower_type(m.ty()),
        ast::Type::TupleType(t) => {
            TypeRef::Tuple(t.syntax().children().filter_map(ast::Type::cast).map(|t| lower_type(Some(t))).collect())
        }
        ast::Type::ExpandType(t) => {
            TypeRef::Expand(Box::new(lower_type(t.syntax().children().find_map(ast::Type::cast))))
        }
        ast::Type::EachType(t) => TypeRef::Each(Box::new(lower_type(t.syntax().children().find_map(ast::Type::cast)))),
        _ => TypeRef::Unknown,
    }
}

/// The type a `typedef` or `typealias` declaration names (with the
/// array suffixes of `typedef float F[4];`).
pub fn alias_target(node: &SyntaxNode) -> Option<TypeRef> {
    match node.kind() {
        SyntaxKind::TYPEALIAS => Some(lower_type(ast::Typealias::cast(node.clone())?.ty())),
        SyntaxKind::TYPEDEF => {
            let t = ast::Typedef::cast(node.clone())?;
            let mut ty = lower_type(t.ty());
            for s in node.children().filter_map(ast::ArraySuffix::cast).collect::<Vec<_>>().into_iter().rev() {
                ty = TypeRef::Array(Box::new(ty), array_len(&s));
            }
            Some(ty)
        }
        _ => None,
    }
}

fn lower_generic_arg(arg: ast::GenericArg) -> GenericArgRef {
    if let Some(t) = arg.ty() {
        // A lone name may be a type or a constant; a number is a value.
        return GenericArgRef::Type(lower_type(Some(t)));
    }
    let expr = arg.expr();
    // `vector<T.Element, 4>`: a member chain of names parses as an
    // expression, but may name an associated type.
    if let Some(segs) = expr.as_ref().and_then(name_chain) {
        return GenericArgRef::Type(TypeRef::Path(segs));
    }
    GenericArgRef::Value(expr.as_ref().and_then(const_int))
}

/// `a.b.c` (names only) as path segments.
fn name_chain(e: &ast::Expr) -> Option<Vec<PathSegment>> {
    match e {
        ast::Expr::MemberExpr(m) if !m.is_arrow() && m.generic_arg_list().is_none() => {
            let mut segs = name_chain(&m.receiver()?)?;
            segs.push(PathSegment { name: m.name()?.text().to_string(), args: Vec::new() });
            Some(segs)
        }
        ast::Expr::PathExpr(p) if !p.is_global() => {
            let segs = p.segments();
            let [seg] = segs.as_slice() else { return None };
            seg.generic_arg_list.is_none().then(|| vec![PathSegment { name: seg.text().to_string(), args: Vec::new() }])
        }
        _ => None,
    }
}

/// The value of a constant integer expression written with literals
/// (`4`, `-1`, `1 << 3`): the constant evaluator without names.
pub fn const_int(e: &ast::Expr) -> Option<i64> {
    let (body, id) = lower_expr(e);
    consteval::eval_int(&body, id, &mut consteval::NoNames)
}

/// An expression on its own, lowered into a body of its own (for
/// constants written where there is no body: array lengths, attribute
/// arguments).
pub fn lower_expr(e: &ast::Expr) -> (Body, ExprId) {
    let mut lower = LowerBody { start: e.syntax().text_range().start(), ..LowerBody::default() };
    let id = lower.expr(e.clone());
    (lower.body, id)
}

/// A floating-point literal's value (`1.5`, `2.f`, `1e-3h`, `0.5lf`).
pub fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("lf").trim_end_matches(['f', 'h', 'l', 'd']);
    t.parse::<f64>().ok()
}

pub fn parse_int_literal(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    let t = t.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok().or_else(|| u64::from_str_radix(h, 16).ok().map(|v| v as i64));
    }
    if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        return i64::from_str_radix(b, 2).ok();
    }
    t.parse::<i64>().ok()
}

// ---------------------------------------------------------------------------
// Bodies.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LiteralKind {
    Int {
        unsigned: bool,
        wide: bool,
        value: Option<i64>,
    },
    /// `value`: the bits of the `f64` written (`None`: malformed).
    Float {
        half: bool,
        double: bool,
        value: Option<u64>,
    },
    Bool(bool),
    String,
    Char,
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Arith(BinOp),
    Compare(BinOp),
    Logic(BinOp),
    Bit(BinOp),
    Shift(BinOp),
    /// `=` (`None`) or a compound assignment with its operator.
    Assign(Option<BinOp>),
    Comma,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    Missing,
    Literal(LiteralKind),
    /// A (possibly qualified) name: `x`, `a::b`, `float3`, `f<int>`.
    Path(Vec<PathSegment>, bool /* global `::` */),
    Call {
        callee: ExprId,
        args: Vec<ExprId>,
    },
    Member {
        receiver: ExprId,
        name: String,
        arrow: bool,
        generic_args: Vec<GenericArgRef>,
    },
    Index {
        base: ExprId,
        index: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    Prefix {
        op: PrefixOp,
        expr: ExprId,
    },
    Postfix {
        op: PostfixOp,
        expr: ExprId,
    },
    Ternary {
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    },
    Cast {
        ty: TypeRef,
        expr: ExprId,
    },
    InitList(Vec<ExprId>),
    This,
    Diff {
        forward: bool,
        func: ExprId,
    },
    NoDiff(ExprId),
    Is {
        expr: ExprId,
        ty: TypeRef,
    },
    As {
        expr: ExprId,
        ty: TypeRef,
    },
    /// `sizeof(x)`, `countof(x)`, `alignof(x)` (`keyword`): of an
    /// expression (`subs`; a bare name is lowered as one) or of a type.
    SizeOf {
        keyword: String,
        subs: Vec<ExprId>,
        ty: Option<TypeRef>,
    },
    /// `expand e`: `e` once per element of the packs its `each x` name
    /// (a list of values: an argument of a call).
    Expand(ExprId),
    /// `each x`: the element of the value pack `x` the enclosing
    /// `expand` is at.
    Each(ExprId),
    /// Element `index` of the value pack `pack` (`each x` inside an
    /// `expand` once the pack's length is known: [`packs::expand_packs`]).
    PackElem {
        pack: ExprId,
        index: u32,
    },
    /// Lambdas, `spirv_asm`, `new` … (not typed yet);
    /// sub-expressions are kept so that names in them are still checked.
    Other(Vec<ExprId>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LocalDecl {
    pub name: String,
    /// Declared type (C-style type with array suffixes, or `let x : T`).
    pub ty: Option<TypeRef>,
    pub init: Option<ExprId>,
    /// `let` and `const` locals cannot be assigned.
    pub immutable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stmt {
    Expr(ExprId),
    Decl(Vec<LocalDecl>),
    Block(Vec<StmtId>),
    If {
        cond: Option<ExprId>,
        let_binding: Option<(String, ExprId)>,
        then: Option<StmtId>,
        els: Option<StmtId>,
    },
    Loop {
        init: Option<StmtId>,
        cond: Option<ExprId>,
        step: Option<ExprId>,
        body: Option<StmtId>,
        kind: LoopKind,
    },
    Switch {
        scrutinee: Option<ExprId>,
        cases: Vec<(Option<ExprId>, Vec<StmtId>)>,
    },
    Return(Option<ExprId>),
    /// `break` (with the label it names: `break outer;`).
    Break(Option<String>),
    Continue,
    /// `name: stmt`
    Labeled {
        label: String,
        stmt: Option<StmtId>,
    },
    /// `[ForceUnroll] stmt`, `[MaxIters(n)] stmt`.
    Attributed {
        attrs: Vec<StmtAttr>,
        stmt: Option<StmtId>,
    },
    /// `;`
    Empty,
    /// `__target_switch { case wgsl: … default: … }`, its cases in order.
    TargetSwitch(Vec<TargetCase>),
    /// `__intrinsic_asm "text";` (the text without quotes).
    IntrinsicAsm(String),
    /// `discard`, `defer`, local type declarations … (what it is, as a
    /// phrase, and its statements).
    Other(&'static str, Vec<StmtId>),
}

/// One case of a [`Stmt::TargetSwitch`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TargetCase {
    /// The target named (`"default"` for `default:`).
    pub label: String,
    /// Whether the case's code uses `spirv_asm`.
    pub spirv_asm: bool,
    /// Its statements (none: it shares the next case's).
    pub stmts: Vec<StmtId>,
}

/// Which loop statement a [`Stmt::Loop`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoopKind {
    For,
    While,
    /// `do body while (cond);`: the body runs before the first test.
    DoWhile,
    /// `$for (i in Range(a, b))`: `cond` is the range.
    CompileTimeFor,
}

/// An attribute of a statement: its name (last segment) and arguments,
/// expressions of the body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StmtAttr {
    pub name: String,
    pub args: Vec<ExprId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: Option<String>,
    pub ty: TypeRef,
    /// `out`/`inout` (written by the callee).
    pub is_out: bool,
    /// `inout` (or `__ref`): read and written; `is_out` without this is
    /// `out`.
    pub is_inout: bool,
    /// `no_diff`: excluded from differentiation.
    pub no_diff: bool,
    /// `const`: the body cannot change it.
    pub is_const: bool,
    /// `uniform` (an entry point's parameter read from a constant
    /// buffer).
    pub uniform: bool,
    /// The first semantic (`: SV_DispatchThreadID`).
    pub semantic: Option<String>,
    /// The default value (`float k = 2.0`), an expression of the body
    /// that does not see the parameters.
    pub default: Option<ExprId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Body {
    pub exprs: Vec<Expr>,
    pub stmts: Vec<Stmt>,
    pub params: Vec<Param>,
    pub root: Option<StmtId>,
    /// A property's or `__subscript`'s `set` accessor: its block and the
    /// value it stores (`set(T v)`, or the implicit `newValue`).
    pub setter: Option<Setter>,
}

/// The `set` accessor of a property or `__subscript` (whose [`Body`]'s
/// root is the getter: both share one body, so that one inference types
/// them and one source map maps them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setter {
    pub root: StmtId,
    pub value: Param,
}

impl Body {
    /// The initial value of a global, field or enum case (whose body is
    /// that expression).
    pub fn initializer(&self) -> Option<ExprId> {
        match self.stmt(self.root?) {
            Stmt::Expr(e) => Some(*e),
            _ => None,
        }
    }

    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id.0 as usize]
    }
    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.0 as usize]
    }
}

/// Where each expression and statement of a [`Body`] is in the syntax tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BodySourceMap {
    pub exprs: Vec<SyntaxNodePtr>,
    pub stmts: Vec<SyntaxNodePtr>,
    /// The expression lowered from a syntax node.
    pub expr_by_ptr: std::collections::HashMap<SyntaxNodePtr, ExprId>,
}

/// A declaration's green node. Equal (by pointer, cheaply) after an edit
/// elsewhere in the file, because incremental reparsing keeps the green
/// nodes of untouched declarations: queries that read only this do not
/// re-run.
#[derive(Debug, Clone, Eq)]
pub struct DeclGreen(pub Option<rowan::GreenNode>);

impl PartialEq for DeclGreen {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::ptr::eq::<rowan::GreenNodeData>(&**a, &**b) || a == b,
            (None, None) => true,
            _ => false,
        }
    }
}

#[salsa::tracked(returns(ref))]
pub fn decl_green(db: &dyn Db, def: DefId) -> DeclGreen {
    DeclGreen(def_node(db, def).map(|n| n.green().into_owned()))
}

/// A declaration's syntax as a tree of its own (offsets from its start).
pub fn decl_syntax(db: &dyn Db, def: DefId) -> Option<SyntaxNode> {
    decl_green(db, def).0.clone().map(SyntaxNode::new_root)
}

/// The body of a function (or `__init`, or accessor).
#[salsa::tracked(returns(ref))]
pub fn body(db: &dyn Db, def: crate::hir::DefId) -> Arc<Body> {
    body_with_source_map(db, def).0.clone()
}

/// The body and its source map. The map's pointers are relative to the
/// declaration's start (see [`decl_syntax`]), so that the map, too, stays
/// equal when text before the declaration changes.
#[salsa::tracked(returns(ref))]
pub fn body_with_source_map(db: &dyn Db, def: DefId) -> (Arc<Body>, Arc<BodySourceMap>) {
    let mut lower = LowerBody::default();
    if let Some(node) = decl_syntax(db, def) {
        lower.function(&node);
    }
    (Arc::new(lower.body), Arc::new(lower.map))
}

/// The absolute range of an expression of `def`'s body.
pub fn expr_range(db: &dyn Db, def: DefId, expr: ExprId) -> Option<(slang_syntax::TextRange, SyntaxNode)> {
    let (_, map) = body_with_source_map(db, def);
    let ptr = map.exprs.get(expr.0 as usize)?;
    let local = ptr.to_node(&decl_syntax(db, def)?);
    let start = def_node(db, def)?.text_range().start();
    Some((local.text_range() + start, local))
}

/// The absolute range of a statement of `def`'s body.
pub fn stmt_range(db: &dyn Db, def: DefId, stmt: StmtId) -> Option<slang_syntax::TextRange> {
    let (_, map) = body_with_source_map(db, def);
    let ptr = map.stmts.get(stmt.0 as usize)?;
    let local = ptr.to_node(&decl_syntax(db, def)?);
    let start = def_node(db, def)?.text_range().start();
    Some(local.text_range() + start)
}

/// The expression of `def`'s body lowered from `node` (a node of the file's
/// tree).
pub fn expr_of_node(db: &dyn Db, def: DefId, node: &SyntaxNode) -> Option<ExprId> {
    let start = def_node(db, def)?.text_range().start();
    let range = node.text_range().checked_sub(start)?;
    let local_root = decl_syntax(db, def)?;
    let local =
        local_root.covering_element(range).ancestors().find(|n| n.text_range() == range && n.kind() == node.kind())?;
    let (_, map) = body_with_source_map(db, def);
    map.expr_by_ptr.get(&SyntaxNodePtr::new(&local)).copied()
}

#[derive(Default)]
struct LowerBody {
    body: Body,
    map: BodySourceMap,
    /// The statement or expression being lowered (for missing parts).
    current: Option<SyntaxNodePtr>,
    /// The declaration's local bindings (offsets from its start).
    scopes: scope::ExprScopes,
    start: slang_syntax::TextSize,
    /// The local type aliases, by their declaration's range (offsets from
    /// `start`): their targets as written.
    aliases: std::collections::HashMap<slang_syntax::TextRange, TypeRef>,
}

fn param_is_out(p: &ast::Param) -> bool {
    p.syntax()
        .children_with_tokens()
        .filter_map(|e| e.into_token())
        .any(|t| matches!(t.kind(), SyntaxKind::OUT_KW | SyntaxKind::INOUT_KW | SyntaxKind::UNDERSCORE_REF_KW))
}

impl LowerBody {
    fn function(&mut self, node: &SyntaxNode) {
        self.scopes = scope::ExprScopes::build(node);
        self.start = node.text_range().start();
        self.local_aliases(node);
        if let Some(list) = node.children().find_map(ast::ParamList::cast) {
            for p in list.params() {
                let mut ty = lower_type(p.ty());
                for s in p.array_suffixes().collect::<Vec<_>>().into_iter().rev() {
                    ty = TypeRef::Array(Box::new(ty), array_len(&s));
                }
                let has = |k: SyntaxKind| {
                    p.syntax().children_with_tokens().filter_map(|e| e.into_token()).any(|t| t.kind() == k)
                };
                let default = p.default_value().map(|e| self.expr(e));
                self.body.params.push(Param {
                    default,
                    name: p.name().map(|n| n.text()),
                    ty,
                    is_out: param_is_out(&p),
                    is_inout: has(SyntaxKind::INOUT_KW) || has(SyntaxKind::UNDERSCORE_REF_KW),
                    no_diff: has(SyntaxKind::NO_DIFF_KW),
                    is_const: has(SyntaxKind::CONST_KW),
                    uniform: has(SyntaxKind::UNIFORM_KW),
                    semantic: p.semantics().find_map(|s| s.name()).map(|n| n.text().to_string()),
                });
            }
        }
        if let Some(block) = node.children().find_map(ast::Block::cast) {
            let root = self.block(&block);
            self.body.root = Some(root);
        } else if let Some(p) = ast::Property::cast(node.clone()) {
            // A property's body is its getter's (and its setter's).
            self.accessors(p.accessors(), p.ty());
        } else if let Some(s) = ast::Subscript::cast(node.clone()) {
            // So is a `__subscript`'s.
            self.accessors(s.accessors(), s.return_type());
        } else if let Some(init) = ast::Declarator::cast(node.clone()).and_then(|d| d.initializer()) {
            // A global variable's body is its initial value (code
            // generation evaluates those that are not constants).
            let e = self.expr(init.clone());
            let root = self.alloc_stmt(Stmt::Expr(e), init.syntax());
            self.body.root = Some(root);
        } else if let Some(value) = ast::EnumCase::cast(node.clone()).and_then(|c| c.value()) {
            // So is an enum case's (its value).
            let e = self.expr(value.clone());
            let root = self.alloc_stmt(Stmt::Expr(e), value.syntax());
            self.body.root = Some(root);
        }
    }

    /// The getter's block as the root, and the setter.
    fn accessors(&mut self, accessors: impl Iterator<Item = ast::Accessor>, ty: Option<ast::Type>) {
        for a in accessors {
            let Some(block) = a.body() else { continue };
            match a.kind() {
                Some(SyntaxKind::GET_KW) if self.body.root.is_none() => {
                    let root = self.block(&block);
                    self.body.root = Some(root);
                }
                Some(SyntaxKind::SET_KW) if self.body.setter.is_none() => {
                    let declared = a.syntax().children().find_map(ast::ParamList::cast).and_then(|l| l.params().next());
                    let value = Param {
                        name: Some(declared.as_ref().and_then(|p| p.name()).map_or("newValue".into(), |n| n.text())),
                        ty: lower_type(declared.and_then(|p| p.ty()).or(ty.clone())),
                        is_out: false,
                        is_inout: false,
                        no_diff: false,
                        is_const: false,
                        uniform: false,
                        semantic: None,
                        default: None,
                    };
                    let root = self.block(&block);
                    self.body.setter = Some(Setter { root, value });
                }
                _ => {}
            }
        }
    }

    fn alloc_expr(&mut self, e: Expr, node: &SyntaxNode) -> ExprId {
        let e = self.expr_aliases(e, node);
        let id = ExprId(self.body.exprs.len() as u32);
        self.body.exprs.push(e);
        let ptr = SyntaxNodePtr::new(node);
        self.map.exprs.push(ptr);
        self.map.expr_by_ptr.insert(ptr, id);
        id
    }

    fn alloc_stmt(&mut self, s: Stmt, node: &SyntaxNode) -> StmtId {
        let id = StmtId(self.body.stmts.len() as u32);
        self.body.stmts.push(s);
        self.map.stmts.push(SyntaxNodePtr::new(node));
        id
    }

    fn block(&mut self, block: &ast::Block) -> StmtId {
        let stmts = block.syntax().children().filter_map(|c| self.stmt_node(&c)).collect();
        self.alloc_stmt(Stmt::Block(stmts), block.syntax())
    }

    /// Lower a child of a block if it is a statement.
    fn stmt_node(&mut self, node: &SyntaxNode) -> Option<StmtId> {
        let stmt = ast::Stmt::cast(node.clone())?;
        Some(self.stmt(stmt))
    }

    fn opt_stmt(&mut self, s: Option<ast::Stmt>) -> Option<StmtId> {
        s.map(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: ast::Stmt) -> StmtId {
        let node = stmt.syntax().clone();
        self.current = Some(SyntaxNodePtr::new(&node));
        let s = match stmt {
            ast::Stmt::Block(b) => return self.block(&b),
            ast::Stmt::ExprStmt(e) => Stmt::Expr(self.opt_expr(e.expr())),
            ast::Stmt::VarDecl(v) => Stmt::Decl(self.var_decl(&v)),
            ast::Stmt::IfStmt(i) => {
                let let_binding = i
                    .let_condition()
                    .map(|l| (l.name().map(|n| n.text()).unwrap_or_default(), self.opt_expr(l.value())));
                let cond = if let_binding.is_none() { Some(self.opt_expr(i.condition())) } else { None };
                let then = self.opt_stmt(i.then_branch());
                let els = self.opt_stmt(i.else_branch());
                Stmt::If { cond, let_binding, then, els }
            }
            ast::Stmt::ForStmt(f) => {
                // `for ( init ; cond ; step ) body`, following the tokens.
                let (mut init, mut cond, mut step, mut body) = (None, None, None, None);
                let mut state = 0;
                for e in f.syntax().children_with_tokens() {
                    match e {
                        rowan::NodeOrToken::Token(t) => match (state, t.kind()) {
                            (0, SyntaxKind::L_PAREN) => state = 1,
                            (1 | 2, SyntaxKind::SEMICOLON) => state += 1,
                            (3, SyntaxKind::R_PAREN) => state = 4,
                            _ => {}
                        },
                        rowan::NodeOrToken::Node(n) => {
                            if state == 1 {
                                if let Some(st) = ast::Stmt::cast(n) {
                                    init = Some(self.stmt(st));
                                    state = 2;
                                }
                            } else if let Some(ex) = ast::Expr::cast(n.clone()) {
                                let id = self.expr(ex);
                                if state == 2 {
                                    cond = Some(id);
                                } else {
                                    step = Some(id);
                                }
                            } else if let Some(st) = ast::Stmt::cast(n) {
                                body = Some(self.stmt(st));
                            }
                        }
                    }
                }
                Stmt::Loop { init, cond, step, body, kind: LoopKind::For }
            }
            ast::Stmt::WhileStmt(w) => {
                let cond = Some(self.opt_expr(w.condition()));
                let body = self.opt_stmt(w.body());
                Stmt::Loop { init: None, cond, step: None, body, kind: LoopKind::While }
            }
            ast::Stmt::DoWhileStmt(d) => {
                let body = self.opt_stmt(d.body());
                let cond = Some(self.opt_expr(d.condition()));
                Stmt::Loop { init: None, cond, step: None, body, kind: LoopKind::DoWhile }
            }
            ast::Stmt::CompileTimeForStmt(f) => {
                let exprs: Vec<ExprId> =
                    f.syntax().children().filter_map(ast::Expr::cast).map(|e| self.expr(e)).collect();
                let body = f.syntax().children().filter_map(ast::Stmt::cast).last().map(|s| self.stmt(s));
                Stmt::Loop {
                    init: None,
                    cond: exprs.first().copied(),
                    step: None,
                    body,
                    kind: LoopKind::CompileTimeFor,
                }
            }
            ast::Stmt::SwitchStmt(s) => {
                let scrutinee = Some(self.opt_expr(s.scrutinee()));
                let cases = s
                    .cases()
                    .map(|c| {
                        let v = c.value().map(|e| self.expr(e));
                        let stmts = c.stmts().map(|s| self.stmt(s)).collect();
                        (v, stmts)
                    })
                    .collect();
                Stmt::Switch { scrutinee, cases }
            }
            ast::Stmt::ReturnStmt(r) => Stmt::Return(r.expr().map(|e| self.expr(e))),
            ast::Stmt::BreakStmt(b) => Stmt::Break(
                b.syntax()
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .find(|t| t.kind() == SyntaxKind::IDENT)
                    .map(|t| t.text().to_string()),
            ),
            ast::Stmt::ContinueStmt(_) => Stmt::Continue,
            ast::Stmt::AttributedStmt(a) => {
                let attrs = a
                    .attributes()
                    .map(|at| StmtAttr {
                        name: at.name().unwrap_or_default(),
                        args: at.args().map(|e| self.expr(e)).collect(),
                    })
                    .collect();
                let stmt = self.opt_stmt(a.stmt());
                Stmt::Attributed { attrs, stmt }
            }
            ast::Stmt::LabeledStmt(l) => {
                let label = l.syntax().children().find(|c| c.kind() == SyntaxKind::NAME).map(|c| c.text().to_string());
                let stmt = l.syntax().children().find_map(ast::Stmt::cast).map(|s| self.stmt(s));
                Stmt::Labeled { label: label.unwrap_or_default(), stmt }
            }
            ast::Stmt::EmptyStmt(_) => Stmt::Empty,
            ast::Stmt::DeferStmt(d) => {
                let inner = d.syntax().children().find_map(ast::Stmt::cast).map(|s| self.stmt(s));
                Stmt::Other("defer stmt", inner.into_iter().collect())
            }
            ast::Stmt::TryStmt(t) => {
                let inner = t.syntax().children().filter_map(ast::Stmt::cast).map(|s| self.stmt(s)).collect();
                Stmt::Other("try stmt", inner)
            }
            ast::Stmt::ThrowStmt(t) => {
                let e = t.syntax().children().find_map(ast::Expr::cast).map(|e| self.expr(e));
                Stmt::Expr(e.unwrap_or_else(|| self.alloc_expr(Expr::Missing, t.syntax())))
            }
            ast::Stmt::TargetSwitchStmt(t) => {
                let mut cases = Vec::new();
                for case in t.syntax().children().filter(|c| c.kind() == SyntaxKind::TARGET_CASE) {
                    let label = case
                        .children_with_tokens()
                        .filter_map(|t| t.into_token())
                        .find_map(|t| match t.kind() {
                            SyntaxKind::DEFAULT_KW => Some("default".to_string()),
                            SyntaxKind::IDENT => Some(t.text().to_string()),
                            _ => None,
                        })
                        .unwrap_or_default();
                    let spirv_asm = case.descendants().any(|n| n.kind() == SyntaxKind::SPIRV_ASM_EXPR);
                    let stmts = case.children().filter_map(ast::Stmt::cast).map(|s| self.stmt(s)).collect();
                    cases.push(TargetCase { label, spirv_asm, stmts });
                }
                Stmt::TargetSwitch(cases)
            }
            ast::Stmt::DiscardStmt(_) => Stmt::Other("discard stmt", Vec::new()),
            ast::Stmt::AsmStmt(a) => {
                let text = a
                    .syntax()
                    .children_with_tokens()
                    .filter_map(|t| t.into_token())
                    .find(|t| t.kind() == SyntaxKind::STRING)
                    .map(|t| t.text().trim_matches('"').trim().to_string());
                match text {
                    Some(text) => Stmt::IntrinsicAsm(text),
                    None => Stmt::Other("asm stmt", Vec::new()),
                }
            }
            ast::Stmt::StaticAssert(_) => Stmt::Other("static assert", Vec::new()),
            ast::Stmt::Fn(_) => Stmt::Other("fn", Vec::new()),
            // A local type alias runs nothing; where it is named, its
            // target is written instead.
            ast::Stmt::Typedef(_) | ast::Stmt::Typealias(_) => Stmt::Empty,
            _ => Stmt::Other("type declaration", Vec::new()),
        };
        self.alloc_stmt(s, &node)
    }

    fn var_decl(&mut self, v: &ast::VarDecl) -> Vec<LocalDecl> {
        let base = v.ty().map(|t| lower_type(Some(t)));
        let immutable = v.is_let()
            || v.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::CONST_KW && e.as_token().is_some());
        v.declarators()
            .map(|d| {
                let mut ty = d.ty().map(|t| lower_type(Some(t))).or_else(|| base.clone());
                for s in d.array_suffixes().collect::<Vec<_>>().into_iter().rev() {
                    ty = ty.map(|t| TypeRef::Array(Box::new(t), array_len(&s)));
                }
                let ty = ty.map(|t| self.local_type(t, v.syntax()));
                let init = d.initializer().map(|e| self.expr(e));
                LocalDecl { name: d.name().map(|n| n.text()).unwrap_or_default(), ty, init, immutable }
            })
            .collect()
    }

    fn opt_expr(&mut self, e: Option<ast::Expr>) -> ExprId {
        match e {
            Some(e) => self.expr(e),
            None => {
                // A missing expression points at the node it is missing from.
                let id = ExprId(self.body.exprs.len() as u32);
                self.body.exprs.push(Expr::Missing);
                let ptr = self.current.expect("opt_expr outside a statement");
                self.map.exprs.push(ptr);
                id
            }
        }
    }

    fn expr(&mut self, expr: ast::Expr) -> ExprId {
        let node = expr.syntax().clone();
        self.current = Some(SyntaxNodePtr::new(&node));
        let e = match expr {
            ast::Expr::Literal(l) => Expr::Literal(literal_kind(&l)),
            ast::Expr::PathExpr(p) => {
                let segs = p
                    .segments()
                    .iter()
                    .map(|s| PathSegment {
                        name: s.text().to_string(),
                        args: s
                            .generic_arg_list
                            .as_ref()
                            .map(|l| l.args().map(lower_generic_arg).collect())
                            .unwrap_or_default(),
                    })
                    .collect::<Vec<PathSegment>>();
                // A lambda's parameter (lambdas are not typed yet): not
                // the outer local it may hide.
                let at = node.text_range().start() - self.start;
                let lambda_param = !p.is_global()
                    && segs.first().is_some_and(|s| {
                        let b = self.scopes.resolve(&s.name, at, |b| b.kind != scope::BindingKind::GenericParam);
                        b.is_some_and(|b| b.kind == scope::BindingKind::LambdaParam)
                    });
                if lambda_param {
                    Expr::Other(Vec::new())
                } else {
                    Expr::Path(segs, p.is_global())
                }
            }
            ast::Expr::ParenExpr(p) => return self.opt_expr(p.expr()),
            ast::Expr::CallExpr(c) => {
                let callee = self.opt_expr(c.callee());
                let args = c.args().map(|a| self.expr(a)).collect();
                Expr::Call { callee, args }
            }
            ast::Expr::MemberExpr(m) => {
                let receiver = self.opt_expr(m.receiver());
                let generic_args =
                    m.generic_arg_list().map(|l| l.args().map(lower_generic_arg).collect()).unwrap_or_default();
                Expr::Member {
                    receiver,
                    name: m.name().map(|n| n.text().to_string()).unwrap_or_default(),
                    arrow: m.is_arrow(),
                    generic_args,
                }
            }
            ast::Expr::IndexExpr(i) => {
                let base = self.opt_expr(i.base());
                let index = self.opt_expr(i.index());
                Expr::Index { base, index }
            }
            ast::Expr::BinExpr(b) => {
                let lhs = self.opt_expr(b.lhs());
                let rhs = self.opt_expr(b.rhs());
                let op = b.op_kind().map(binary_op).unwrap_or(BinaryOp::Comma);
                Expr::Binary { op, lhs, rhs }
            }
            ast::Expr::PrefixExpr(p) => {
                let op = p.op().and_then(|t| PrefixOp::from_token(t.kind())).unwrap_or(PrefixOp::Plus);
                Expr::Prefix { op, expr: self.opt_expr(p.expr()) }
            }
            ast::Expr::PostfixExpr(p) => {
                let op = match p.op().map(|t| t.kind()) {
                    Some(SyntaxKind::MINUS2) => PostfixOp::Dec,
                    _ => PostfixOp::Inc,
                };
                Expr::Postfix { op, expr: self.opt_expr(p.expr()) }
            }
            ast::Expr::TernaryExpr(t) => {
                let cond = self.opt_expr(t.condition());
                let then = self.opt_expr(t.then_expr());
                let els = self.opt_expr(t.else_expr());
                Expr::Ternary { cond, then, els }
            }
            ast::Expr::CastExpr(c) => {
                let ty = lower_type(c.ty());
                Expr::Cast { ty, expr: self.opt_expr(c.expr()) }
            }
            ast::Expr::InitList(l) => Expr::InitList(l.elements().map(|e| self.expr(e)).collect()),
            ast::Expr::ThisExpr(_) => Expr::This,
            ast::Expr::DiffExpr(d) => {
                let forward = d.is_forward();
                Expr::Diff { forward, func: self.opt_expr(d.function()) }
            }
            ast::Expr::NoDiffExpr(n) => Expr::NoDiff(self.opt_expr(n.expr())),
            ast::Expr::IsExpr(i) => {
                let ty = lower_type(i.ty());
                Expr::Is { expr: self.opt_expr(i.expr()), ty }
            }
            ast::Expr::AsExpr(a) => {
                let ty = lower_type(a.ty());
                Expr::As { expr: self.opt_expr(a.expr()), ty }
            }
            ast::Expr::ExpandExpr(x) => Expr::Expand(self.opt_expr(x.syntax().children().find_map(ast::Expr::cast))),
            ast::Expr::EachExpr(x) => Expr::Each(self.opt_expr(x.syntax().children().find_map(ast::Expr::cast))),
            ast::Expr::TryExpr(t) => {
                return match t.syntax().children().find_map(ast::Expr::cast) {
                    Some(e) => self.expr(e),
                    None => self.opt_expr(None),
                }
            }
            other => {
                let mut subs = Vec::new();
                for c in other.syntax().children() {
                    if let Some(e) = ast::Expr::cast(c.clone()) {
                        subs.push(self.expr(e));
                    } else if c.kind() == SyntaxKind::PATH_TYPE && other.syntax().kind() == SyntaxKind::SIZEOF_EXPR {
                        // `sizeof(x)` / `countof(x)`: a bare name may be a
                        // variable rather than a type.
                        let idents: Vec<_> = c.children_with_tokens().filter_map(|t| t.into_token()).collect();
                        // (`countof(Tuple<int, float>)` names a type.)
                        let generic = c.children().next().is_some();
                        if let ([t], false) = (idents.as_slice(), generic) {
                            if t.kind() == SyntaxKind::IDENT {
                                let seg = PathSegment { name: t.text().to_string(), args: Vec::new() };
                                subs.push(self.alloc_expr(Expr::Path(vec![seg], false), &c));
                            }
                        }
                    }
                }
                if other.syntax().kind() == SyntaxKind::SIZEOF_EXPR {
                    let keyword = other.syntax().first_token().map(|t| t.text().to_string()).unwrap_or_default();
                    let ty = other.syntax().children().find_map(ast::Type::cast).map(|t| lower_type(Some(t)));
                    Expr::SizeOf { keyword, subs, ty }
                } else {
                    Expr::Other(subs)
                }
            }
        };
        self.alloc_expr(e, &node)
    }
}

/// Local type aliases (`typedef T Name;`, `typealias Name = T;` in a
/// body): the scope resolver says which one a name means; lowering writes
/// its target there, so that the body's types name no local alias.
impl LowerBody {
    /// Records the targets of the local aliases of `root` (a generic one is
    /// not modelled: its uses stay unknown).
    fn local_aliases(&mut self, root: &SyntaxNode) {
        for n in root.descendants() {
            let local = n.parent().is_some_and(|p| scope::is_local_scope(p.kind()));
            let generic = n.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST);
            if !matches!(n.kind(), SyntaxKind::TYPEDEF | SyntaxKind::TYPEALIAS) || !local || generic {
                continue;
            }
            if let (Some(target), Some(range)) = (alias_target(&n), n.text_range().checked_sub(self.start)) {
                self.aliases.insert(range, target);
            }
        }
    }

    /// `ty`, written at `node`, with the local aliases visible there
    /// replaced by their targets.
    fn local_type(&self, ty: TypeRef, node: &SyntaxNode) -> TypeRef {
        match node.text_range().start().checked_sub(self.start) {
            Some(at) if !self.aliases.is_empty() => self.subst_type(ty, at, 0),
            _ => ty,
        }
    }

    fn expr_aliases(&self, e: Expr, node: &SyntaxNode) -> Expr {
        let Some(at) = node.text_range().start().checked_sub(self.start).filter(|_| !self.aliases.is_empty()) else {
            return e;
        };
        match e {
            Expr::Path(segs, false) => match self.subst_path(segs, at, 0) {
                TypeRef::Path(segs) => Expr::Path(segs, false),
                // (An alias of an array or pointer type named as a value.)
                _ => Expr::Missing,
            },
            Expr::Path(segs, true) => Expr::Path(self.subst_segments(segs, at, 0), true),
            Expr::Member { receiver, name, arrow, generic_args } => {
                Expr::Member { receiver, name, arrow, generic_args: self.subst_args(generic_args, at, 0) }
            }
            Expr::Cast { ty, expr } => Expr::Cast { ty: self.subst_type(ty, at, 0), expr },
            Expr::Is { expr, ty } => Expr::Is { expr, ty: self.subst_type(ty, at, 0) },
            Expr::As { expr, ty } => Expr::As { expr, ty: self.subst_type(ty, at, 0) },
            Expr::SizeOf { keyword, subs, ty } => {
                Expr::SizeOf { keyword, subs, ty: ty.map(|t| self.subst_type(t, at, 0)) }
            }
            e => e,
        }
    }

    /// (`depth`: aliases followed so far; a cycle, an error of the
    /// reference compiler, ends as an unknown type.)
    fn subst_type(&self, ty: TypeRef, at: TextSize, depth: u32) -> TypeRef {
        let sub = |t: Box<TypeRef>| Box::new(self.subst_type(*t, at, depth));
        match ty {
            TypeRef::Path(segs) => self.subst_path(segs, at, depth),
            TypeRef::Array(t, n) => TypeRef::Array(sub(t), n),
            TypeRef::Pointer(t) => TypeRef::Pointer(sub(t)),
            TypeRef::Tuple(ts) => TypeRef::Tuple(ts.into_iter().map(|t| self.subst_type(t, at, depth)).collect()),
            TypeRef::Expand(t) => TypeRef::Expand(sub(t)),
            TypeRef::Each(t) => TypeRef::Each(sub(t)),
            TypeRef::PackElem(t, i) => TypeRef::PackElem(sub(t), i),
            t @ (TypeRef::This | TypeRef::Unknown) => t,
        }
    }

    /// A path whose first name is a local alias: the alias's target (its
    /// own aliases replaced where it is written), then the path's other
    /// names (`Alias.Member`).
    fn subst_path(&self, segs: Vec<PathSegment>, at: TextSize, depth: u32) -> TypeRef {
        let mut segs = self.subst_segments(segs, at, depth);
        let alias = segs.first().filter(|s| s.args.is_empty()).and_then(|s| {
            let b = self.scopes.resolve(&s.name, at, |_| true)?;
            (b.kind == scope::BindingKind::TypeAlias)
                .then(|| Some((b.decl.start(), self.aliases.get(&b.decl)?)))
                .flatten()
        });
        let Some((decl_at, target)) = alias else { return TypeRef::Path(segs) };
        if depth > 16 {
            return TypeRef::Unknown;
        }
        let target = self.subst_type(target.clone(), decl_at, depth + 1);
        let rest = segs.split_off(1);
        match target {
            TypeRef::Path(mut t) => {
                t.extend(rest);
                TypeRef::Path(t)
            }
            t if rest.is_empty() => t,
            _ => TypeRef::Unknown,
        }
    }

    fn subst_segments(&self, segs: Vec<PathSegment>, at: TextSize, depth: u32) -> Vec<PathSegment> {
        segs.into_iter().map(|s| PathSegment { name: s.name, args: self.subst_args(s.args, at, depth) }).collect()
    }

    fn subst_args(&self, args: Vec<GenericArgRef>, at: TextSize, depth: u32) -> Vec<GenericArgRef> {
        args.into_iter()
            .map(|a| match a {
                GenericArgRef::Type(t) => GenericArgRef::Type(self.subst_type(t, at, depth)),
                v => v,
            })
            .collect()
    }
}

/// The length written in `[…]` of an array declarator or type.
pub fn array_len(s: &ast::ArraySuffix) -> ArrayLen {
    size_len(s.size())
}

fn size_len(size: Option<ast::Expr>) -> ArrayLen {
    match size {
        None => ArrayLen::Unsized,
        Some(e) => match const_int(&e) {
            Some(n) if (0..=u32::MAX as i64).contains(&n) => ArrayLen::Known(n as u32),
            // `float a[kCount]`, `float a[S.N * 2]`: a constant
            // expression, evaluated with the scopes.
            _ => match &e {
                ast::Expr::PathExpr(_)
                | ast::Expr::MemberExpr(_)
                | ast::Expr::BinExpr(_)
                | ast::Expr::ParenExpr(_)
                | ast::Expr::CallExpr(_) => ArrayLen::Named(e.syntax().text().to_string().trim().to_string()),
                _ => ArrayLen::Unknown,
            },
        },
    }
}

fn literal_kind(l: &ast::Literal) -> LiteralKind {
    let Some(tok) = l.token() else { return LiteralKind::Int { unsigned: false, wide: false, value: None } };
    let text = tok.text().to_ascii_lowercase();
    match tok.kind() {
        SyntaxKind::INT_NUMBER => {
            let digits = text.trim_start_matches("0x").trim_start_matches("0b");
            let suffix: String = digits.chars().rev().take_while(|c| matches!(c, 'u' | 'l' | 'z')).collect();
            let value = parse_int_literal(tok.text());
            // A literal too large for 32 bits is a 64-bit one (as in
            // slangc: `3000000000` is an `int64_t`); hexadecimal ones fill
            // the 32 bits first.
            let hex = text.starts_with("0x") || text.starts_with("0b");
            let limit = if hex || suffix.contains('u') { u32::MAX as i64 } else { i32::MAX as i64 };
            LiteralKind::Int {
                unsigned: suffix.contains('u'),
                wide: suffix.contains('l') || value.is_some_and(|v| v > limit),
                value,
            }
        }
        SyntaxKind::FLOAT_NUMBER => LiteralKind::Float {
            half: text.ends_with('h'),
            double: text.ends_with("lf") || text.ends_with('l') || text.ends_with('d'),
            value: parse_float(&text).map(f64::to_bits),
        },
        SyntaxKind::STRING => LiteralKind::String,
        SyntaxKind::CHAR => LiteralKind::Char,
        SyntaxKind::TRUE_KW | SyntaxKind::FALSE_KW => LiteralKind::Bool(tok.kind() == SyntaxKind::TRUE_KW),
        SyntaxKind::NULLPTR_KW | SyntaxKind::NONE_KW => LiteralKind::Null,
        _ => LiteralKind::Int { unsigned: false, wide: false, value: None },
    }
}

fn binary_op(k: SyntaxKind) -> BinaryOp {
    use SyntaxKind::*;
    let compound = match k {
        EQ => return BinaryOp::Assign(None),
        PLUSEQ => PLUS,
        MINUSEQ => MINUS,
        STAREQ => STAR,
        SLASHEQ => SLASH,
        PERCENTEQ => PERCENT,
        AMPEQ => AMP,
        PIPEEQ => PIPE,
        CARETEQ => CARET,
        SHLEQ => SHL,
        SHREQ => SHR,
        _ => {
            use BinOp::*;
            return match BinOp::from_token(k) {
                Some(op @ (Add | Sub | Mul | Div | Rem)) => BinaryOp::Arith(op),
                Some(op @ (Eq | Ne | Lt | Gt | Le | Ge)) => BinaryOp::Compare(op),
                Some(op @ (And | Or)) => BinaryOp::Logic(op),
                Some(op @ (BitAnd | BitOr | BitXor)) => BinaryOp::Bit(op),
                Some(op @ (Shl | Shr)) => BinaryOp::Shift(op),
                None => BinaryOp::Comma,
            };
        }
    };
    BinaryOp::Assign(BinOp::from_token(compound))
}

/// The absolute range of a declaration.
pub fn def_range(db: &dyn Db, def: DefId) -> Option<slang_syntax::TextRange> {
    def_node(db, def).map(|n| n.text_range())
}

/// The absolute range of parameter `i` of function `def`.
pub fn param_range(db: &dyn Db, def: DefId, i: usize) -> Option<slang_syntax::TextRange> {
    let list = def_node(db, def)?.children().find_map(ast::ParamList::cast)?;
    Some(list.params().nth(i)?.syntax().text_range())
}

/// The types a struct, enum, interface or extension declares after `:`
/// (its bases, the interfaces it conforms to, an enum's underlying type).
pub fn supertypes(db: &dyn Db, def: DefId) -> Vec<TypeRef> {
    let Some(node) = decl_syntax(db, def) else { return Vec::new() };
    node.children()
        .filter(|c| c.kind() == SyntaxKind::INHERITANCE_LIST)
        .flat_map(|l| l.children().filter_map(ast::Type::cast).collect::<Vec<_>>())
        .map(|t| lower_type(Some(t)))
        .collect()
}
