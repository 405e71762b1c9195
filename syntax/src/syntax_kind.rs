//! The kinds of every token and node in the Slang syntax tree.
//!
//! Words are lexed as `IDENT`; the parser re-tags an identifier with its
//! keyword kind where it is used as a keyword (Slang has almost no reserved
//! words: `float`, `vector`, `module`, `set` … are all ordinary identifiers in
//! most positions).

/// For each first byte, a bit `min(len, 63)` for each keyword's length.
const fn keyword_filter(words: &[&str]) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_bytes();
        let len = if w.len() < 63 { w.len() } else { 63 };
        table[w[0] as usize] |= 1u64 << len;
        i += 1;
    }
    table
}

macro_rules! syntax_kinds {
    (
        punct { $($p_tok:literal => $p_name:ident,)* }
        keywords { $($k_tok:literal => $k_name:ident,)* }
        tokens { $($t_name:ident,)* }
        nodes { $($n_name:ident,)* }
    ) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(u16)]
        pub enum SyntaxKind {
            $($p_name,)*
            $($k_name,)*
            $($t_name,)*
            $($n_name,)*
            #[doc(hidden)]
            __LAST,
        }

        impl SyntaxKind {
            /// The keyword kind for `text`, if `text` is a word the parser may
            /// treat as a keyword somewhere.
            pub fn from_keyword(text: &str) -> Option<SyntaxKind> {
                // Most words are not keywords: a table by first byte and
                // length rejects them before the string match.
                const FILTER: [u64; 256] = keyword_filter(&[$($k_tok,)*]);
                let first = text.as_bytes().first().copied().unwrap_or(0);
                if FILTER[first as usize] & (1u64 << text.len().min(63)) == 0 {
                    return None;
                }
                match text {
                    $($k_tok => Some(SyntaxKind::$k_name),)*
                    _ => None,
                }
            }

            pub fn is_keyword(self) -> bool {
                matches!(self, $(SyntaxKind::$k_name)|*)
            }

            /// Punctuation and keywords: the text is always `static_text()`.
            #[inline]
            pub fn has_static_text(self) -> bool {
                (self as u16) < (SyntaxKind::ERROR_TOKEN as u16)
            }

            pub fn is_punct(self) -> bool {
                matches!(self, $(SyntaxKind::$p_name)|*)
            }

            /// The fixed text of a punctuation or keyword token.
            pub fn static_text(self) -> Option<&'static str> {
                match self {
                    $(SyntaxKind::$p_name => Some($p_tok),)*
                    $(SyntaxKind::$k_name => Some($k_tok),)*
                    _ => None,
                }
            }

            /// Every kind, for exhaustive tests and tables.
            pub const ALL: &'static [SyntaxKind] = &[
                $(SyntaxKind::$p_name,)*
                $(SyntaxKind::$k_name,)*
                $(SyntaxKind::$t_name,)*
                $(SyntaxKind::$n_name,)*
            ];
        }
    };
}

syntax_kinds! {
    punct {
        ";" => SEMICOLON,
        "," => COMMA,
        "(" => L_PAREN,
        ")" => R_PAREN,
        "{" => L_CURLY,
        "}" => R_CURLY,
        "[" => L_BRACK,
        "]" => R_BRACK,
        "<" => L_ANGLE,
        ">" => R_ANGLE,
        "@" => AT,
        "#" => POUND,
        "##" => POUND2,
        "~" => TILDE,
        "?" => QUESTION,
        "$" => DOLLAR,
        "&" => AMP,
        "|" => PIPE,
        "+" => PLUS,
        "*" => STAR,
        "/" => SLASH,
        "^" => CARET,
        "%" => PERCENT,
        "." => DOT,
        "..." => DOT3,
        ":" => COLON,
        "::" => COLON2,
        "=" => EQ,
        "==" => EQ2,
        "=>" => FAT_ARROW,
        "!" => BANG,
        "!=" => NEQ,
        "-" => MINUS,
        "->" => THIN_ARROW,
        "<=" => LTEQ,
        ">=" => GTEQ,
        "+=" => PLUSEQ,
        "-=" => MINUSEQ,
        "*=" => STAREQ,
        "/=" => SLASHEQ,
        "%=" => PERCENTEQ,
        "&=" => AMPEQ,
        "|=" => PIPEEQ,
        "^=" => CARETEQ,
        "<<" => SHL,
        ">>" => SHR,
        "<<=" => SHLEQ,
        ">>=" => SHREQ,
        "&&" => AMP2,
        "||" => PIPE2,
        "++" => PLUS2,
        "--" => MINUS2,
        "\\" => BACKSLASH,
    }
    keywords {
        "struct" => STRUCT_KW,
        "class" => CLASS_KW,
        "enum" => ENUM_KW,
        "interface" => INTERFACE_KW,
        "extension" => EXTENSION_KW,
        "__extension" => UNDERSCORE_EXTENSION_KW,
        "typealias" => TYPEALIAS_KW,
        "typedef" => TYPEDEF_KW,
        "namespace" => NAMESPACE_KW,
        "using" => USING_KW,
        "module" => MODULE_KW,
        "implementing" => IMPLEMENTING_KW,
        "import" => IMPORT_KW,
        "__import" => UNDERSCORE_IMPORT_KW,
        "__include" => INCLUDE_KW,
        "__exported" => EXPORTED_KW,
        "associatedtype" => ASSOCIATEDTYPE_KW,
        "type_param" => TYPE_PARAM_KW,
        "__generic_value_param" => GENERIC_VALUE_PARAM_KW,
        "typename" => TYPENAME_KW,
        "precision" => PRECISION_KW,
        "property" => PROPERTY_KW,
        "get" => GET_KW,
        "set" => SET_KW,
        "ref" => REF_KW,
        "modify" => MODIFY_KW,
        "__subscript" => SUBSCRIPT_KW,
        "__init" => INIT_KW,
        "operator" => OPERATOR_KW,
        "func" => FUNC_KW,
        "cbuffer" => CBUFFER_KW,
        "tbuffer" => TBUFFER_KW,
        "register" => REGISTER_KW,
        "packoffset" => PACKOFFSET_KW,
        "layout" => LAYOUT_KW,
        "__generic" => GENERIC_KW,
        "__func_extension" => FUNC_EXTENSION_KW,
        "__constraint" => CONSTRAINT_KW,
        "attribute_syntax" => ATTRIBUTE_SYNTAX_KW,
        "where" => WHERE_KW,
        "optional" => OPTIONAL_KW,
        "each" => EACH_KW,
        "expand" => EXPAND_KW,
        "let" => LET_KW,
        "var" => VAR_KW,
        "if" => IF_KW,
        "else" => ELSE_KW,
        "for" => FOR_KW,
        "while" => WHILE_KW,
        "do" => DO_KW,
        "switch" => SWITCH_KW,
        "case" => CASE_KW,
        "default" => DEFAULT_KW,
        "break" => BREAK_KW,
        "continue" => CONTINUE_KW,
        "return" => RETURN_KW,
        "discard" => DISCARD_KW,
        "defer" => DEFER_KW,
        "try" => TRY_KW,
        "catch" => CATCH_KW,
        "throw" => THROW_KW,
        "throws" => THROWS_KW,
        "__target_switch" => TARGET_SWITCH_KW,
        "__stage_switch" => STAGE_SWITCH_KW,
        "spirv_asm" => SPIRV_ASM_KW,
        "__intrinsic_asm" => INTRINSIC_ASM_KW,
        "__ignored_block" => IGNORED_BLOCK_KW,
        "__transparent_block" => TRANSPARENT_BLOCK_KW,
        "__file_decl" => FILE_DECL_KW,
        "true" => TRUE_KW,
        "false" => FALSE_KW,
        "none" => NONE_KW,
        "nullptr" => NULLPTR_KW,
        "this" => THIS_KW,
        "This" => THIS_TYPE_KW,
        "is" => IS_KW,
        "as" => AS_KW,
        "new" => NEW_KW,
        "sizeof" => SIZEOF_KW,
        "alignof" => ALIGNOF_KW,
        "countof" => COUNTOF_KW,
        "fwd_diff" => FWD_DIFF_KW,
        "bwd_diff" => BWD_DIFF_KW,
        "__fwd_diff" => FWD_DIFF2_KW,
        "__bwd_diff" => BWD_DIFF2_KW,
        "no_diff" => NO_DIFF_KW,
        "dyn" => DYN_KW,
        "functype" => FUNCTYPE_KW,
        "static_assert" => STATIC_ASSERT_KW,
        // Modifiers.
        "public" => PUBLIC_KW,
        "private" => PRIVATE_KW,
        "internal" => INTERNAL_KW,
        "static" => STATIC_KW,
        "const" => CONST_KW,
        "constexpr" => CONSTEXPR_KW,
        "in" => IN_KW,
        "out" => OUT_KW,
        "inout" => INOUT_KW,
        "constref" => CONSTREF_KW,
        "__ref" => UNDERSCORE_REF_KW,
        "__constref" => UNDERSCORE_CONSTREF_KW,
        "uniform" => UNIFORM_KW,
        "varying" => VARYING_KW,
        "groupshared" => GROUPSHARED_KW,
        "shared" => SHARED_KW,
        "buffer" => BUFFER_KW,
        "extern" => EXTERN_KW,
        "export" => EXPORT_KW,
        "inline" => INLINE_KW,
        "override" => OVERRIDE_KW,
        "nointerpolation" => NOINTERPOLATION_KW,
        "noperspective" => NOPERSPECTIVE_KW,
        "linear" => LINEAR_KW,
        "centroid" => CENTROID_KW,
        "sample" => SAMPLE_KW,
        "precise" => PRECISE_KW,
        "volatile" => VOLATILE_KW,
        "coherent" => COHERENT_KW,
        "globallycoherent" => GLOBALLYCOHERENT_KW,
        "readonly" => READONLY_KW,
        "writeonly" => WRITEONLY_KW,
        "restrict" => RESTRICT_KW,
        "row_major" => ROW_MAJOR_KW,
        "column_major" => COLUMN_MAJOR_KW,
        "snorm" => SNORM_KW,
        "unorm" => UNORM_KW,
        "mutating" => MUTATING_KW,
        "nonmutating" => NONMUTATING_KW,
        "highp" => HIGHP_KW,
        "mediump" => MEDIUMP_KW,
        "lowp" => LOWP_KW,
        "flat" => FLAT_KW,
        "smooth" => SMOOTH_KW,
        "triangle" => TRIANGLE_KW,
        "point" => POINT_KW,
        "line" => LINE_KW,
        "lineadj" => LINEADJ_KW,
        "triangleadj" => TRIANGLEADJ_KW,
        "indices" => INDICES_KW,
        "vertices" => VERTICES_KW,
        "primitives" => PRIMITIVES_KW,
        "payload" => PAYLOAD_KW,
        "dynamic_uniform" => DYNAMIC_UNIFORM_KW,
        "__prefix" => PREFIX_KW,
        "__postfix" => POSTFIX_KW,
        "__extern_cpp" => EXTERN_CPP_KW,
        "__global" => UNDERSCORE_GLOBAL_KW,
        "__builtin" => UNDERSCORE_BUILTIN_KW,
        "__intrinsic_op" => INTRINSIC_OP_KW,
        "__target_intrinsic" => TARGET_INTRINSIC_KW,
        "__specialized_for_target" => SPECIALIZED_FOR_TARGET_KW,
        "__glsl_extension" => GLSL_EXTENSION_KW,
        "__glsl_version" => GLSL_VERSION_KW,
        "__spirv_version" => SPIRV_VERSION_KW,
        "__cuda_sm_version" => CUDA_SM_VERSION_KW,
        "__implicit_conversion" => IMPLICIT_CONVERSION_KW,
        "__attributeTarget" => ATTRIBUTE_TARGET_KW,
        "__builtin_type" => BUILTIN_TYPE_KW,
        "__magic_type" => MAGIC_TYPE_KW,
        "__intrinsic_type" => INTRINSIC_TYPE_KW,
        "__requiresNVAPI" => REQUIRES_NVAPI_KW,
        "__readNone" => READ_NONE_KW,
        "__unsafeForceInlineEarly" => UNSAFE_FORCE_INLINE_EARLY_KW,
        "__noinline" => NOINLINE_KW,
        "__forceinline" => FORCEINLINE_KW,
    }
    tokens {
        ERROR_TOKEN,
        IDENT,
        INT_NUMBER,
        FLOAT_NUMBER,
        STRING,
        CHAR,
        WHITESPACE,
        COMMENT,
        // DISABLED_TEXT: text inside a preprocessor branch that is not taken.
        DISABLED_TEXT,
        // PP_TEXT: raw text kept as one token.
        PP_TEXT,
        EOF,
    }
    nodes {
        SOURCE_FILE,
        ERROR,

        // Preprocessor directive lines (one node per line).
        PP_DEFINE,
        PP_UNDEF,
        PP_IF,
        PP_IFDEF,
        PP_IFNDEF,
        PP_ELIF,
        PP_ELSE,
        PP_ENDIF,
        PP_INCLUDE,
        PP_PRAGMA,
        PP_LINE,
        PP_ERROR,
        PP_WARNING,
        PP_VERSION,
        PP_EXTENSION,
        PP_LANGUAGE,
        PP_UNKNOWN,
        PP_MACRO_PARAMS,
        PP_BODY,
        PP_CONDITION,

        // Names and paths.
        NAME,
        OPERATOR_NAME,
        PATH,

        // Items and members.
        MODULE_DECL,
        IMPLEMENTING_DECL,
        IMPORT_DECL,
        INCLUDE_DECL,
        USING_DECL,
        STRUCT,
        CLASS,
        ENUM,
        ENUM_BODY,
        ENUM_CASE,
        INTERFACE,
        EXTENSION,
        TYPEALIAS,
        TYPEDEF,
        NAMESPACE,
        ASSOCIATED_TYPE,
        PROPERTY,
        ACCESSOR,
        SUBSCRIPT,
        INIT,
        FN,
        VAR_DECL,
        DECLARATOR,
        INITIALIZER,
        CBUFFER,
        GLSL_BLOCK,
        MACRO_CALL,
        PRECISION_DECL,
        EMPTY_ITEM,
        STATIC_ASSERT,
        IGNORED_BLOCK,
        TRANSPARENT_BLOCK,
        FILE_DECL_BLOCK,
        MEMBER_LIST,
        ACCESSOR_LIST,
        INHERITANCE_LIST,
        RETURN_TYPE,
        THROWS_CLAUSE,
        FN_BODY_ASM,
        // FUNC_EXTENSION: `__func_extension fwd_diff(f)(params) -> R { ... }`,
        // a derivative (or `__apply`) given for an existing function.
        FUNC_EXTENSION,
        // CONSTRAINT_DECL: `__constraint A.B : IFoo;` in an interface.
        CONSTRAINT_DECL,
        // ATTRIBUTE_SYNTAX_DECL: `attribute_syntax [Name(p: T)] : Class;`.
        ATTRIBUTE_SYNTAX_DECL,

        // Parameters and generics.
        PARAM_LIST,
        PARAM,
        GENERIC_PARAM_LIST,
        GENERIC_TYPE_PARAM,
        GENERIC_VALUE_PARAM,
        TYPE_BOUND,
        WHERE_CLAUSE,
        WHERE_PRED,
        GENERIC_ARG_LIST,
        GENERIC_ARG,
        ARRAY_SUFFIX,

        // Attributes, modifiers, semantics.
        ATTRIBUTE,
        ATTRIBUTE_ARGS,
        MODIFIER_CALL,
        LAYOUT_MODIFIER,
        SEMANTIC,
        REGISTER_BINDING,
        PACKOFFSET,
        BIT_FIELD,

        // Types.
        PATH_TYPE,
        ARRAY_TYPE,
        POINTER_TYPE,
        MODIFIED_TYPE,
        FUNC_TYPE,
        EXPAND_TYPE,
        EACH_TYPE,
        TUPLE_TYPE,
        ANON_STRUCT_TYPE,
        // TYPE_CALL: a built-in type-level function of packs:
        // `__packBranch(T, A, B)`, `__first(T)`, `__trimFirst(T)`.
        TYPE_CALL,
        // MACRO_TYPE: a macro invocation in type position: `CONST(float) x;`.
        MACRO_TYPE,

        // Statements.
        BLOCK,
        EXPR_STMT,
        DECL_STMT,
        IF_STMT,
        ELSE_BRANCH,
        LET_CONDITION,
        FOR_STMT,
        COMPILE_TIME_FOR_STMT,
        WHILE_STMT,
        DO_WHILE_STMT,
        SWITCH_STMT,
        SWITCH_BODY,
        CASE_CLAUSE,
        BREAK_STMT,
        CONTINUE_STMT,
        RETURN_STMT,
        DISCARD_STMT,
        DEFER_STMT,
        THROW_STMT,
        TRY_STMT,
        CATCH_CLAUSE,
        EMPTY_STMT,
        LABELED_STMT,
        TARGET_SWITCH_STMT,
        TARGET_CASE,
        ATTRIBUTED_STMT,
        ASM_STMT,

        // Expressions.
        LITERAL,
        PATH_EXPR,
        PAREN_EXPR,
        TUPLE_EXPR,
        CAST_EXPR,
        CALL_EXPR,
        ARG_LIST,
        INDEX_EXPR,
        MEMBER_EXPR,
        PREFIX_EXPR,
        POSTFIX_EXPR,
        BIN_EXPR,
        TERNARY_EXPR,
        INIT_LIST,
        IS_EXPR,
        AS_EXPR,
        NEW_EXPR,
        LAMBDA_EXPR,
        SIZEOF_EXPR,
        THIS_EXPR,
        DIFF_EXPR,
        NO_DIFF_EXPR,
        TRY_EXPR,
        EXPAND_EXPR,
        EACH_EXPR,
        SPIRV_ASM_EXPR,
        SPIRV_ASM_BODY,
    }
}

impl SyntaxKind {
    pub fn is_trivia(self) -> bool {
        matches!(self, SyntaxKind::WHITESPACE | SyntaxKind::COMMENT)
    }

    /// Nodes that are directive lines: they stand where trivia stands.
    pub fn is_pp_directive(self) -> bool {
        (SyntaxKind::PP_DEFINE as u16..=SyntaxKind::PP_UNKNOWN as u16).contains(&(self as u16))
    }

    pub fn is_literal(self) -> bool {
        matches!(
            self,
            SyntaxKind::INT_NUMBER
                | SyntaxKind::FLOAT_NUMBER
                | SyntaxKind::STRING
                | SyntaxKind::CHAR
                | SyntaxKind::TRUE_KW
                | SyntaxKind::FALSE_KW
                | SyntaxKind::NONE_KW
                | SyntaxKind::NULLPTR_KW
        )
    }
}

impl From<u16> for SyntaxKind {
    fn from(d: u16) -> SyntaxKind {
        assert!(d < SyntaxKind::__LAST as u16);
        // SAFETY: `SyntaxKind` is `repr(u16)` with contiguous discriminants
        // starting at zero, and `d` was checked to be in range.
        unsafe { std::mem::transmute::<u16, SyntaxKind>(d) }
    }
}

impl From<SyntaxKind> for u16 {
    fn from(k: SyntaxKind) -> u16 {
        k as u16
    }
}

/// `T![;]`, `T![struct]` … : the kind of a punctuation token or keyword.
#[macro_export]
macro_rules! T {
    [;] => { $crate::SyntaxKind::SEMICOLON };
    [,] => { $crate::SyntaxKind::COMMA };
    ['('] => { $crate::SyntaxKind::L_PAREN };
    [')'] => { $crate::SyntaxKind::R_PAREN };
    ['{'] => { $crate::SyntaxKind::L_CURLY };
    ['}'] => { $crate::SyntaxKind::R_CURLY };
    ['['] => { $crate::SyntaxKind::L_BRACK };
    [']'] => { $crate::SyntaxKind::R_BRACK };
    [<] => { $crate::SyntaxKind::L_ANGLE };
    [>] => { $crate::SyntaxKind::R_ANGLE };
    [@] => { $crate::SyntaxKind::AT };
    [#] => { $crate::SyntaxKind::POUND };
    [~] => { $crate::SyntaxKind::TILDE };
    [?] => { $crate::SyntaxKind::QUESTION };
    [&] => { $crate::SyntaxKind::AMP };
    [|] => { $crate::SyntaxKind::PIPE };
    [+] => { $crate::SyntaxKind::PLUS };
    [*] => { $crate::SyntaxKind::STAR };
    [/] => { $crate::SyntaxKind::SLASH };
    [^] => { $crate::SyntaxKind::CARET };
    [%] => { $crate::SyntaxKind::PERCENT };
    [.] => { $crate::SyntaxKind::DOT };
    [...] => { $crate::SyntaxKind::DOT3 };
    [:] => { $crate::SyntaxKind::COLON };
    [::] => { $crate::SyntaxKind::COLON2 };
    [=] => { $crate::SyntaxKind::EQ };
    [==] => { $crate::SyntaxKind::EQ2 };
    [=>] => { $crate::SyntaxKind::FAT_ARROW };
    [!] => { $crate::SyntaxKind::BANG };
    [!=] => { $crate::SyntaxKind::NEQ };
    [-] => { $crate::SyntaxKind::MINUS };
    [->] => { $crate::SyntaxKind::THIN_ARROW };
    [<=] => { $crate::SyntaxKind::LTEQ };
    [>=] => { $crate::SyntaxKind::GTEQ };
    [+=] => { $crate::SyntaxKind::PLUSEQ };
    [-=] => { $crate::SyntaxKind::MINUSEQ };
    [*=] => { $crate::SyntaxKind::STAREQ };
    [/=] => { $crate::SyntaxKind::SLASHEQ };
    [%=] => { $crate::SyntaxKind::PERCENTEQ };
    [&=] => { $crate::SyntaxKind::AMPEQ };
    [|=] => { $crate::SyntaxKind::PIPEEQ };
    [^=] => { $crate::SyntaxKind::CARETEQ };
    [<<] => { $crate::SyntaxKind::SHL };
    [>>] => { $crate::SyntaxKind::SHR };
    [<<=] => { $crate::SyntaxKind::SHLEQ };
    [>>=] => { $crate::SyntaxKind::SHREQ };
    [&&] => { $crate::SyntaxKind::AMP2 };
    [||] => { $crate::SyntaxKind::PIPE2 };
    [++] => { $crate::SyntaxKind::PLUS2 };
    [--] => { $crate::SyntaxKind::MINUS2 };
    [struct] => { $crate::SyntaxKind::STRUCT_KW };
    [class] => { $crate::SyntaxKind::CLASS_KW };
    [enum] => { $crate::SyntaxKind::ENUM_KW };
    [interface] => { $crate::SyntaxKind::INTERFACE_KW };
    [extension] => { $crate::SyntaxKind::EXTENSION_KW };
    [typealias] => { $crate::SyntaxKind::TYPEALIAS_KW };
    [typedef] => { $crate::SyntaxKind::TYPEDEF_KW };
    [namespace] => { $crate::SyntaxKind::NAMESPACE_KW };
    [let] => { $crate::SyntaxKind::LET_KW };
    [var] => { $crate::SyntaxKind::VAR_KW };
    [if] => { $crate::SyntaxKind::IF_KW };
    [else] => { $crate::SyntaxKind::ELSE_KW };
    [for] => { $crate::SyntaxKind::FOR_KW };
    [while] => { $crate::SyntaxKind::WHILE_KW };
    [do] => { $crate::SyntaxKind::DO_KW };
    [switch] => { $crate::SyntaxKind::SWITCH_KW };
    [case] => { $crate::SyntaxKind::CASE_KW };
    [default] => { $crate::SyntaxKind::DEFAULT_KW };
    [break] => { $crate::SyntaxKind::BREAK_KW };
    [continue] => { $crate::SyntaxKind::CONTINUE_KW };
    [return] => { $crate::SyntaxKind::RETURN_KW };
    [where] => { $crate::SyntaxKind::WHERE_KW };
    [this] => { $crate::SyntaxKind::THIS_KW };
    [This] => { $crate::SyntaxKind::THIS_TYPE_KW };
}
