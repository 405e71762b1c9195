//! Typed wrappers over the untyped tree. Thin and macro-made: each wrapper
//! is a `SyntaxNode` of a known kind, and every getter returns `Option` (or
//! an iterator), because trees under edit are incomplete.

use crate::{SyntaxKind, SyntaxKind::*, SyntaxNode, SyntaxToken};

pub trait AstNode: Sized {
    fn can_cast(kind: SyntaxKind) -> bool;
    fn cast(node: SyntaxNode) -> Option<Self>;
    fn syntax(&self) -> &SyntaxNode;
}

fn child<N: AstNode>(parent: &SyntaxNode) -> Option<N> {
    parent.children().find_map(N::cast)
}

fn children<N: AstNode>(parent: &SyntaxNode) -> impl Iterator<Item = N> {
    parent.children().filter_map(N::cast)
}

fn token(parent: &SyntaxNode, kind: SyntaxKind) -> Option<SyntaxToken> {
    parent.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == kind)
}

macro_rules! ast_nodes {
    ($($name:ident => $kind:ident,)*) => {$(
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name {
            pub(crate) syntax: SyntaxNode,
        }
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                kind == $kind
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                (node.kind() == $kind).then(|| $name { syntax: node })
            }
            fn syntax(&self) -> &SyntaxNode {
                &self.syntax
            }
        }
    )*};
}

macro_rules! ast_enums {
    ($($name:ident { $($variant:ident),* $(,)? })*) => {$(
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant($variant),)*
        }
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                $($variant::can_cast(kind))||*
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                $(if $variant::can_cast(node.kind()) {
                    return Some($name::$variant($variant { syntax: node }));
                })*
                None
            }
            fn syntax(&self) -> &SyntaxNode {
                match self {
                    $($name::$variant(it) => &it.syntax,)*
                }
            }
        }
    )*};
}

ast_nodes! {
    SourceFile => SOURCE_FILE,
    Name => NAME,
    OperatorName => OPERATOR_NAME,
    Path => PATH,
    ModuleDecl => MODULE_DECL,
    ImplementingDecl => IMPLEMENTING_DECL,
    ImportDecl => IMPORT_DECL,
    IncludeDecl => INCLUDE_DECL,
    UsingDecl => USING_DECL,
    Struct => STRUCT,
    Class => CLASS,
    Enum => ENUM,
    EnumBody => ENUM_BODY,
    EnumCase => ENUM_CASE,
    Interface => INTERFACE,
    Extension => EXTENSION,
    Typealias => TYPEALIAS,
    Typedef => TYPEDEF,
    Namespace => NAMESPACE,
    AssociatedType => ASSOCIATED_TYPE,
    Property => PROPERTY,
    Accessor => ACCESSOR,
    AccessorList => ACCESSOR_LIST,
    Subscript => SUBSCRIPT,
    Init => INIT,
    Fn => FN,
    VarDecl => VAR_DECL,
    Declarator => DECLARATOR,
    Cbuffer => CBUFFER,
    GlslBlock => GLSL_BLOCK,
    MacroCall => MACRO_CALL,
    EmptyItem => EMPTY_ITEM,
    StaticAssert => STATIC_ASSERT,
    IgnoredBlock => IGNORED_BLOCK,
    TransparentBlock => TRANSPARENT_BLOCK,
    FileDeclBlock => FILE_DECL_BLOCK,
    MemberList => MEMBER_LIST,
    InheritanceList => INHERITANCE_LIST,
    ReturnType => RETURN_TYPE,
    ThrowsClause => THROWS_CLAUSE,
    ParamList => PARAM_LIST,
    Param => PARAM,
    GenericParamList => GENERIC_PARAM_LIST,
    GenericTypeParam => GENERIC_TYPE_PARAM,
    GenericValueParam => GENERIC_VALUE_PARAM,
    WhereClause => WHERE_CLAUSE,
    WherePred => WHERE_PRED,
    GenericArgList => GENERIC_ARG_LIST,
    GenericArg => GENERIC_ARG,
    ArraySuffix => ARRAY_SUFFIX,
    Attribute => ATTRIBUTE,
    AttributeArgs => ATTRIBUTE_ARGS,
    ModifierCall => MODIFIER_CALL,
    LayoutModifier => LAYOUT_MODIFIER,
    Semantic => SEMANTIC,
    RegisterBinding => REGISTER_BINDING,
    Packoffset => PACKOFFSET,
    BitField => BIT_FIELD,
    PathType => PATH_TYPE,
    ArrayType => ARRAY_TYPE,
    PointerType => POINTER_TYPE,
    ModifiedType => MODIFIED_TYPE,
    FuncType => FUNC_TYPE,
    ExpandType => EXPAND_TYPE,
    EachType => EACH_TYPE,
    TupleType => TUPLE_TYPE,
    AnonStructType => ANON_STRUCT_TYPE,
    MacroType => MACRO_TYPE,
    Block => BLOCK,
    ExprStmt => EXPR_STMT,
    IfStmt => IF_STMT,
    ElseBranch => ELSE_BRANCH,
    LetCondition => LET_CONDITION,
    ForStmt => FOR_STMT,
    CompileTimeForStmt => COMPILE_TIME_FOR_STMT,
    WhileStmt => WHILE_STMT,
    DoWhileStmt => DO_WHILE_STMT,
    SwitchStmt => SWITCH_STMT,
    SwitchBody => SWITCH_BODY,
    CaseClause => CASE_CLAUSE,
    BreakStmt => BREAK_STMT,
    ContinueStmt => CONTINUE_STMT,
    ReturnStmt => RETURN_STMT,
    DiscardStmt => DISCARD_STMT,
    DeferStmt => DEFER_STMT,
    ThrowStmt => THROW_STMT,
    TryStmt => TRY_STMT,
    CatchClause => CATCH_CLAUSE,
    EmptyStmt => EMPTY_STMT,
    LabeledStmt => LABELED_STMT,
    TargetSwitchStmt => TARGET_SWITCH_STMT,
    TargetCase => TARGET_CASE,
    AttributedStmt => ATTRIBUTED_STMT,
    AsmStmt => ASM_STMT,
    Literal => LITERAL,
    PathExpr => PATH_EXPR,
    ParenExpr => PAREN_EXPR,
    CastExpr => CAST_EXPR,
    CallExpr => CALL_EXPR,
    ArgList => ARG_LIST,
    IndexExpr => INDEX_EXPR,
    MemberExpr => MEMBER_EXPR,
    PrefixExpr => PREFIX_EXPR,
    PostfixExpr => POSTFIX_EXPR,
    BinExpr => BIN_EXPR,
    TernaryExpr => TERNARY_EXPR,
    InitList => INIT_LIST,
    IsExpr => IS_EXPR,
    AsExpr => AS_EXPR,
    NewExpr => NEW_EXPR,
    LambdaExpr => LAMBDA_EXPR,
    SizeofExpr => SIZEOF_EXPR,
    ThisExpr => THIS_EXPR,
    DiffExpr => DIFF_EXPR,
    NoDiffExpr => NO_DIFF_EXPR,
    TryExpr => TRY_EXPR,
    ExpandExpr => EXPAND_EXPR,
    EachExpr => EACH_EXPR,
    SpirvAsmExpr => SPIRV_ASM_EXPR,
    PpDefine => PP_DEFINE,
    PpInclude => PP_INCLUDE,
}

ast_enums! {
    Item {
        ModuleDecl, ImplementingDecl, ImportDecl, IncludeDecl, UsingDecl, Struct, Class, Enum, Interface,
        Extension, Typealias, Typedef, Namespace, AssociatedType, Property, Subscript, Init, Fn, VarDecl,
        Cbuffer, GlslBlock, MacroCall, EmptyItem, StaticAssert, IgnoredBlock, TransparentBlock, FileDeclBlock,
    }
    Type {
        PathType, ArrayType, PointerType, ModifiedType, FuncType, ExpandType, EachType, TupleType, AnonStructType,
        MacroType,
    }
    Expr {
        Literal, PathExpr, ParenExpr, CastExpr, CallExpr, IndexExpr, MemberExpr, PrefixExpr, PostfixExpr,
        BinExpr, TernaryExpr, InitList, IsExpr, AsExpr, NewExpr, LambdaExpr, SizeofExpr, ThisExpr, DiffExpr,
        NoDiffExpr, TryExpr, ExpandExpr, EachExpr, SpirvAsmExpr,
    }
    Stmt {
        Block, ExprStmt, IfStmt, ForStmt, CompileTimeForStmt, WhileStmt, DoWhileStmt, SwitchStmt, BreakStmt, ContinueStmt,
        ReturnStmt, DiscardStmt, DeferStmt, ThrowStmt, TryStmt, EmptyStmt, LabeledStmt, TargetSwitchStmt,
        AttributedStmt, AsmStmt,
        // Declarations used as statements.
        VarDecl, Struct, Class, Enum, Interface, Typedef, Typealias, Fn, StaticAssert,
    }
    GenericParam {
        GenericTypeParam, GenericValueParam,
    }
}

// ---------------------------------------------------------------------------
// Shared capabilities.

pub trait HasName: AstNode {
    fn name(&self) -> Option<Name> {
        child(self.syntax())
    }
}

pub trait HasAttributes: AstNode {
    fn attributes(&self) -> Box<dyn Iterator<Item = Attribute>> {
        Box::new(children(self.syntax()))
    }
    /// Whether an attribute with this (last path segment) name is present.
    fn has_attribute(&self, name: &str) -> bool {
        self.attributes().any(|a| a.name().as_deref() == Some(name))
    }
    /// Modifier keyword tokens (`static`, `in`, `no_diff` …), in order.
    fn modifiers(&self) -> Vec<SyntaxToken> {
        self.syntax()
            .children_with_tokens()
            .take_while(|e| {
                e.kind().is_keyword()
                    || e.kind().is_trivia()
                    || matches!(e.kind(), ATTRIBUTE | MODIFIER_CALL | LAYOUT_MODIFIER | IDENT)
            })
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind().is_keyword())
            .collect()
    }
    fn has_modifier(&self, kind: SyntaxKind) -> bool {
        self.modifiers().iter().any(|t| t.kind() == kind)
    }
}

pub trait HasGenericParams: AstNode {
    fn generic_param_list(&self) -> Option<GenericParamList> {
        child(self.syntax())
    }
    fn where_clauses(&self) -> Box<dyn Iterator<Item = WhereClause>> {
        Box::new(children(self.syntax()))
    }
}

pub trait HasDocComments: AstNode {
    /// The text of the `///` or `/** */` comments directly before the node,
    /// without comment markers.
    fn doc_comment(&self) -> Option<String> {
        let mut lines = Vec::new();
        for e in self.syntax().children_with_tokens() {
            match e.kind() {
                WHITESPACE => continue,
                COMMENT => {
                    let t = e.into_token()?;
                    let text = t.text();
                    if let Some(rest) = text.strip_prefix("///") {
                        lines.push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
                    } else if let Some(rest) = text.strip_prefix("/**") {
                        let body = rest.strip_suffix("*/").unwrap_or(rest);
                        for l in body.lines() {
                            let l = l.trim();
                            let l = l.strip_prefix('*').map(|s| s.strip_prefix(' ').unwrap_or(s)).unwrap_or(l);
                            lines.push(l.to_string());
                        }
                    }
                }
                _ => break,
            }
        }
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        while lines.first().is_some_and(|l| l.is_empty()) {
            lines.remove(0);
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

macro_rules! impl_traits {
    ($tr:ident: $($ty:ident),*) => { $(impl $tr for $ty {})* };
}
impl_traits!(HasName: Struct, Class, Enum, EnumCase, Interface, Typealias, Typedef, Namespace, AssociatedType,
    Property, Fn, Declarator, Cbuffer, GlslBlock, Param, GenericTypeParam, GenericValueParam, ModuleDecl, LabeledStmt);
impl_traits!(HasAttributes: Struct, Class, Enum, EnumCase, Interface, Extension, Typealias, Typedef, Namespace,
    AssociatedType, Property, Accessor, Subscript, Init, Fn, VarDecl, Cbuffer, GlslBlock, Param, ImportDecl,
    GenericTypeParam, GenericValueParam);
impl_traits!(HasGenericParams: Struct, Class, Interface, Extension, Typealias, Fn, Subscript, Init, AssociatedType);
impl_traits!(HasDocComments: Struct, Class, Enum, EnumCase, Interface, Extension, Typealias, Typedef, Namespace,
    AssociatedType, Property, Subscript, Init, Fn, VarDecl, Cbuffer);

// ---------------------------------------------------------------------------
// Node-specific getters.

impl SourceFile {
    pub fn items(&self) -> impl Iterator<Item = Item> {
        children(&self.syntax)
    }
    /// Every `#define` line (active or not) in the file.
    pub fn defines(&self) -> impl Iterator<Item = PpDefine> {
        self.syntax.descendants().filter_map(PpDefine::cast)
    }
    pub fn includes(&self) -> impl Iterator<Item = PpInclude> {
        self.syntax.descendants().filter_map(PpInclude::cast)
    }
}

impl Name {
    pub fn ident(&self) -> Option<SyntaxToken> {
        self.syntax.first_token()
    }
    /// The name, with line splices (`\` + newline) removed.
    pub fn text(&self) -> String {
        unsplice(&self.syntax.text().to_string())
    }
}

/// Remove escaped line breaks from an identifier's text.
pub fn unsplice(text: &str) -> String {
    if text.contains('\\') {
        text.replace("\\\r\n", "").replace("\\\n", "")
    } else {
        text.to_string()
    }
}

/// One name of a path, with its generic arguments: `Foo<int>` in
/// `a::Foo<int>.Bar`. The name is an `IDENT` (or `This`) token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    pub ident: SyntaxToken,
    pub generic_arg_list: Option<GenericArgList>,
}

impl Segment {
    pub fn text(&self) -> &str {
        self.ident.text()
    }
}

fn segments_of(node: &SyntaxNode) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for e in node.children_with_tokens() {
        match e {
            rowan::NodeOrToken::Token(t) if matches!(t.kind(), IDENT | THIS_TYPE_KW) => {
                out.push(Segment { ident: t, generic_arg_list: None })
            }
            rowan::NodeOrToken::Node(n) if n.kind() == GENERIC_ARG_LIST => {
                if let Some(last) = out.last_mut() {
                    last.generic_arg_list = Some(GenericArgList { syntax: n });
                }
            }
            _ => {}
        }
    }
    out
}

/// Nodes that hold a path's names directly: `PATH`, `PATH_TYPE`,
/// `PATH_EXPR`.
pub trait HasPath: AstNode {
    fn segments(&self) -> Vec<Segment> {
        segments_of(self.syntax())
    }
    /// Whether the path starts with `::` (global scope).
    fn is_global(&self) -> bool {
        self.syntax().children_with_tokens().find(|e| !e.kind().is_trivia()).is_some_and(|e| e.kind() == COLON2)
    }
    /// The last name (`Bar` in `a::Foo<int>.Bar`).
    fn last_name(&self) -> Option<String> {
        self.segments().last().map(|s| s.text().to_string())
    }
}
impl_traits!(HasPath: Path, PathType, PathExpr);

impl GenericArgList {
    pub fn args(&self) -> impl Iterator<Item = GenericArg> {
        children(&self.syntax)
    }
}

impl GenericArg {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl Attribute {
    pub fn path(&self) -> Option<Path> {
        child(&self.syntax)
    }
    /// The last segment of the attribute's name (`binding` in `vk::binding`).
    pub fn name(&self) -> Option<String> {
        self.path()?.last_name()
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        self.syntax
            .children()
            .filter_map(AttributeArgs::cast)
            .flat_map(|a| a.syntax.children().filter_map(Expr::cast).collect::<Vec<_>>())
    }
    /// `[[...]]` rather than `[...]`.
    pub fn is_double_bracket(&self) -> bool {
        let mut toks =
            self.syntax.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia());
        matches!((toks.next(), toks.next()), (Some(a), Some(b)) if a.kind() == L_BRACK && b.kind() == L_BRACK)
    }
}

impl Fn {
    pub fn return_type(&self) -> Option<Type> {
        // C style: the type before the name; `func`/`->` style: RETURN_TYPE.
        if let Some(rt) = child::<ReturnType>(&self.syntax) {
            return child(&rt.syntax);
        }
        child(&self.syntax)
    }
    pub fn operator_name(&self) -> Option<OperatorName> {
        child(&self.syntax)
    }
    pub fn param_list(&self) -> Option<ParamList> {
        child(&self.syntax)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.syntax)
    }
    pub fn semantics(&self) -> impl Iterator<Item = Semantic> {
        children(&self.syntax)
    }
}

impl Init {
    pub fn param_list(&self) -> Option<ParamList> {
        child(&self.syntax)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.syntax)
    }
}

impl Subscript {
    pub fn param_list(&self) -> Option<ParamList> {
        child(&self.syntax)
    }
    pub fn return_type(&self) -> Option<Type> {
        child::<ReturnType>(&self.syntax).and_then(|rt| child(&rt.syntax))
    }
    pub fn accessors(&self) -> impl Iterator<Item = Accessor> {
        child::<AccessorList>(&self.syntax).into_iter().flat_map(|l| children(&l.syntax).collect::<Vec<_>>())
    }
}

impl Property {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn accessors(&self) -> impl Iterator<Item = Accessor> {
        child::<AccessorList>(&self.syntax).into_iter().flat_map(|l| children(&l.syntax).collect::<Vec<_>>())
    }
}

impl Accessor {
    /// `GET_KW`, `SET_KW`, `REF_KW` or `MODIFY_KW`.
    pub fn kind(&self) -> Option<SyntaxKind> {
        self.syntax
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .map(|t| t.kind())
            .find(|k| matches!(k, GET_KW | SET_KW | REF_KW | MODIFY_KW))
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.syntax)
    }
}

impl ParamList {
    /// The parameters; none for C's `(void)`.
    pub fn params(&self) -> impl Iterator<Item = Param> {
        let mut all = children::<Param>(&self.syntax).peekable();
        let c_void = self.syntax.children().filter(|n| n.kind() == PARAM).count() == 1
            && all.peek().is_some_and(|p| p.name().is_none() && p.ty().is_some_and(|t| t.syntax().text() == "void"));
        all.filter(move |_| !c_void)
    }
}

impl Param {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn default_value(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn array_suffixes(&self) -> impl Iterator<Item = ArraySuffix> {
        children(&self.syntax)
    }
    pub fn semantics(&self) -> impl Iterator<Item = Semantic> {
        children(&self.syntax)
    }
}

impl VarDecl {
    /// The declared type, for C-style declarations (`float a, b;`).
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn declarators(&self) -> impl Iterator<Item = Declarator> {
        children(&self.syntax)
    }
    /// `let` rather than `var` or a C-style declaration.
    pub fn is_let(&self) -> bool {
        token(&self.syntax, LET_KW).is_some()
    }
}

impl Declarator {
    /// The `: Type` of a `let`/`var` declarator.
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn initializer(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn array_suffixes(&self) -> impl Iterator<Item = ArraySuffix> {
        children(&self.syntax)
    }
    pub fn semantics(&self) -> impl Iterator<Item = Semantic> {
        children(&self.syntax)
    }
}

impl ArraySuffix {
    pub fn size(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl Semantic {
    pub fn name(&self) -> Option<SyntaxToken> {
        token(&self.syntax, IDENT)
    }
}

macro_rules! impl_member_list {
    ($($ty:ident),*) => {$(
        impl $ty {
            pub fn member_list(&self) -> Option<MemberList> {
                child(&self.syntax)
            }
            pub fn members(&self) -> impl Iterator<Item = Item> {
                self.member_list().into_iter().flat_map(|l| l.items().collect::<Vec<_>>())
            }
        }
    )*};
}
impl_member_list!(Struct, Class, Interface, Extension, Namespace, Cbuffer, GlslBlock, TransparentBlock, FileDeclBlock);

macro_rules! impl_inheritance {
    ($($ty:ident),*) => {$(
        impl $ty {
            pub fn inheritance_list(&self) -> Option<InheritanceList> {
                child(&self.syntax)
            }
            pub fn supertypes(&self) -> impl Iterator<Item = Type> {
                self.inheritance_list().into_iter().flat_map(|l| children(&l.syntax).collect::<Vec<_>>())
            }
        }
    )*};
}
impl_inheritance!(Struct, Class, Interface, Extension, Enum);

impl MemberList {
    pub fn items(&self) -> impl Iterator<Item = Item> {
        children(&self.syntax)
    }
}

impl Extension {
    /// The extended type.
    pub fn target(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl Enum {
    pub fn cases(&self) -> impl Iterator<Item = EnumCase> {
        child::<EnumBody>(&self.syntax).into_iter().flat_map(|b| children(&b.syntax).collect::<Vec<_>>())
    }
}

impl EnumCase {
    pub fn value(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl Typealias {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl Typedef {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl AssociatedType {
    pub fn bounds(&self) -> impl Iterator<Item = Type> {
        children(&self.syntax)
    }
}

impl Namespace {
    pub fn names(&self) -> impl Iterator<Item = Name> {
        children(&self.syntax)
    }
}

macro_rules! impl_module_ref {
    ($($ty:ident),*) => {$(
        impl $ty {
            pub fn path(&self) -> Option<Path> {
                child(&self.syntax)
            }
            /// The string form: `import "file.slang";`.
            pub fn string(&self) -> Option<Literal> {
                child(&self.syntax)
            }
        }
    )*};
}
impl_module_ref!(ImportDecl, IncludeDecl, ImplementingDecl, UsingDecl);

impl ImportDecl {
    pub fn is_exported(&self) -> bool {
        token(&self.syntax, EXPORTED_KW).is_some()
    }
}

impl GenericParamList {
    pub fn params(&self) -> impl Iterator<Item = GenericParam> {
        children(&self.syntax)
    }
}

impl GenericTypeParam {
    pub fn is_pack(&self) -> bool {
        token(&self.syntax, EACH_KW).is_some()
    }
    /// The constraints after `:` (and the default after `=` last).
    pub fn types(&self) -> impl Iterator<Item = Type> {
        children(&self.syntax)
    }
}

impl GenericValueParam {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn default_value(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl WhereClause {
    pub fn predicates(&self) -> impl Iterator<Item = WherePred> {
        children(&self.syntax)
    }
}

impl WherePred {
    /// The constrained type, then the bound(s) or the equal type.
    pub fn types(&self) -> impl Iterator<Item = Type> {
        children(&self.syntax)
    }
    /// A value constraint: `where nonempty(T)`, `where countof(T) == N`.
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn is_equality(&self) -> bool {
        token(&self.syntax, EQ2).is_some()
    }
    pub fn is_optional(&self) -> bool {
        token(&self.syntax, OPTIONAL_KW).is_some()
    }
}

impl ArrayType {
    pub fn element(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn size(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl PointerType {
    pub fn pointee(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl ModifiedType {
    pub fn modifier(&self) -> Option<SyntaxToken> {
        self.syntax.first_token()
    }
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl Block {
    pub fn stmts(&self) -> impl Iterator<Item = Stmt> {
        children(&self.syntax)
    }
}

impl ExprStmt {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl IfStmt {
    pub fn condition(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn let_condition(&self) -> Option<LetCondition> {
        child(&self.syntax)
    }
    pub fn then_branch(&self) -> Option<Stmt> {
        child(&self.syntax)
    }
    pub fn else_branch(&self) -> Option<Stmt> {
        child::<ElseBranch>(&self.syntax).and_then(|e| child(&e.syntax))
    }
}

impl LetCondition {
    pub fn name(&self) -> Option<Name> {
        child(&self.syntax)
    }
    pub fn value(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl ForStmt {
    /// Init, condition and step are the statement and expressions in order
    /// inside the parentheses; the body is the last statement.
    pub fn init(&self) -> Option<Stmt> {
        child(&self.syntax)
    }
    pub fn body(&self) -> Option<Stmt> {
        children::<Stmt>(&self.syntax).last()
    }
}

impl WhileStmt {
    pub fn condition(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn body(&self) -> Option<Stmt> {
        child(&self.syntax)
    }
}

impl DoWhileStmt {
    pub fn body(&self) -> Option<Stmt> {
        child(&self.syntax)
    }
    pub fn condition(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl SwitchStmt {
    pub fn scrutinee(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn cases(&self) -> impl Iterator<Item = CaseClause> {
        child::<SwitchBody>(&self.syntax).into_iter().flat_map(|b| children(&b.syntax).collect::<Vec<_>>())
    }
}

impl CaseClause {
    /// `None` for `default:`.
    pub fn value(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn stmts(&self) -> impl Iterator<Item = Stmt> {
        children(&self.syntax)
    }
}

impl ReturnStmt {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl BreakStmt {
    pub fn label(&self) -> Option<SyntaxToken> {
        token(&self.syntax, IDENT)
    }
}

impl ContinueStmt {
    pub fn label(&self) -> Option<SyntaxToken> {
        token(&self.syntax, IDENT)
    }
}

impl AttributedStmt {
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> {
        children(&self.syntax)
    }
    pub fn stmt(&self) -> Option<Stmt> {
        child(&self.syntax)
    }
}

impl Literal {
    pub fn token(&self) -> Option<SyntaxToken> {
        self.syntax.first_token()
    }
}

impl ParenExpr {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl CastExpr {
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl CallExpr {
    pub fn callee(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn arg_list(&self) -> Option<ArgList> {
        child(&self.syntax)
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        self.arg_list().into_iter().flat_map(|a| a.args().collect::<Vec<_>>())
    }
}

impl ArgList {
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        children(&self.syntax)
    }
}

impl IndexExpr {
    pub fn base(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn index(&self) -> Option<Expr> {
        children(&self.syntax).nth(1)
    }
}

impl MemberExpr {
    pub fn receiver(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    /// The member's name (an `IDENT` token; a tuple index like `0` is
    /// re-tagged as `IDENT` too).
    pub fn name(&self) -> Option<SyntaxToken> {
        token(&self.syntax, IDENT)
    }
    pub fn generic_arg_list(&self) -> Option<GenericArgList> {
        child(&self.syntax)
    }
    /// `->` rather than `.`.
    pub fn is_arrow(&self) -> bool {
        token(&self.syntax, THIN_ARROW).is_some()
    }
}

fn operator_token(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| !t.kind().is_trivia())
}

impl PrefixExpr {
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl PostfixExpr {
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl BinExpr {
    pub fn lhs(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn rhs(&self) -> Option<Expr> {
        children(&self.syntax).nth(1)
    }
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.syntax)
    }
    pub fn op_kind(&self) -> Option<SyntaxKind> {
        self.op().map(|t| t.kind())
    }
}

impl TernaryExpr {
    pub fn condition(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn then_expr(&self) -> Option<Expr> {
        children(&self.syntax).nth(1)
    }
    pub fn else_expr(&self) -> Option<Expr> {
        children(&self.syntax).nth(2)
    }
}

impl InitList {
    pub fn elements(&self) -> impl Iterator<Item = Expr> {
        children(&self.syntax)
    }
}

impl IsExpr {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl AsExpr {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn ty(&self) -> Option<Type> {
        child(&self.syntax)
    }
}

impl LambdaExpr {
    pub fn param_list(&self) -> Option<ParamList> {
        child(&self.syntax)
    }
    pub fn body_expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
    pub fn body_block(&self) -> Option<Block> {
        child(&self.syntax)
    }
}

impl DiffExpr {
    /// `FWD_DIFF_KW` / `FWD_DIFF2_KW` (forward) or `BWD_DIFF_KW` /
    /// `BWD_DIFF2_KW` (backward).
    pub fn keyword(&self) -> Option<SyntaxToken> {
        self.syntax.first_token()
    }
    pub fn is_forward(&self) -> bool {
        self.keyword().is_some_and(|t| matches!(t.kind(), FWD_DIFF_KW | FWD_DIFF2_KW))
    }
    /// The function being differentiated.
    pub fn function(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl NoDiffExpr {
    pub fn expr(&self) -> Option<Expr> {
        child(&self.syntax)
    }
}

impl PpDefine {
    pub fn name(&self) -> Option<Name> {
        child(&self.syntax)
    }
    pub fn is_function_like(&self) -> bool {
        self.syntax.children().any(|n| n.kind() == PP_MACRO_PARAMS)
    }
    /// The replacement text.
    pub fn body(&self) -> Option<String> {
        self.syntax.children().find(|n| n.kind() == PP_BODY).map(|n| n.text().to_string())
    }
}

impl PpInclude {
    /// The file named by `#include "file"` (or `<file>`).
    pub fn target(&self) -> Option<String> {
        let text = self.syntax.text().to_string();
        let after = text.trim_start().trim_start_matches('#').trim_start().strip_prefix("include")?.trim();
        let inner = after
            .strip_prefix('"')
            .and_then(|s| s.split('"').next())
            .or_else(|| after.strip_prefix('<').and_then(|s| s.split('>').next()))?;
        Some(inner.to_string())
    }
}
