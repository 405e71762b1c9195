//! Lossless, error-resilient syntax trees for Slang.
//!
//! [`parse`] never fails: it returns a rowan tree whose text is exactly the
//! input, plus a list of errors. The pipeline is
//!
//! 1. [`lexer`]: text → tokens (bad bytes become `ERROR_TOKEN`s);
//! 2. [`preprocessor`]: directive lines and `#if` branches (see the module
//!    docs for the strategy: the taken branch is parsed, the others become
//!    `DISABLED_TEXT`; directive lines are nodes that stand where trivia
//!    stands);
//! 3. [`parser`]: recursive descent over the significant tokens of active
//!    code, building the green tree as it goes (no event list);
//! 4. the tree builder's sink: puts trivia, directive lines and disabled
//!    text back between the parser's tokens, so the tree is lossless.
//!
//! Beside the tree, [`macros`] and [`macro_expand`]: the C macro engine
//! and the expanded text that the semantic model and code generation read.
//!
//! On top of the tree, three syntax-only IDE services: [`format`] (a
//! whitespace-only formatter), [`folding`] and [`selection`].
//!
//! The crate knows nothing of files, salsa, types or LSP.

pub mod ast;
pub mod folding;
pub mod format;
pub mod lexer;
pub mod macro_expand;
pub mod macros;
mod parser;
pub mod preprocessor;
mod reparse;
pub mod selection;
mod syntax_kind;
mod tree_builder;

pub use macro_expand::{Expansion, MacroUse};
pub use parser::ParseError;
pub use preprocessor::{ConditionalBranch, IncludedMacros, MacroNames, ParseOptions};
pub use rowan::{Direction, GreenNode, NodeOrToken, TextRange, TextSize, WalkEvent};
pub use syntax_kind::SyntaxKind;

/// Rowan language tag for Slang.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlangLanguage {}

impl rowan::Language for SlangLanguage {
    type Kind = SyntaxKind;
    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        SyntaxKind::from(raw.0)
    }
    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        rowan::SyntaxKind(kind.into())
    }
}

pub type SyntaxNode = rowan::SyntaxNode<SlangLanguage>;
pub type SyntaxToken = rowan::SyntaxToken<SlangLanguage>;
pub type SyntaxElement = rowan::SyntaxElement<SlangLanguage>;
/// A position-independent pointer to a node: kind and range, resolved
/// against a tree of the same text.
pub type SyntaxNodePtr = rowan::ast::SyntaxNodePtr<SlangLanguage>;

/// A syntax error (from the lexer, the preprocessor or the parser).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    pub range: TextRange,
    pub message: String,
    pub source: ErrorSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorSource {
    Lexer,
    Preprocessor,
    Parser,
    /// A malformed numeric literal (`0LUL`, `1.0ff`): the file parses, but
    /// the literal has no value; an error for the checker, not the parser.
    Literal,
}

impl SyntaxError {
    /// A stable code for the kind of error, for `--json` output and LSP.
    pub fn code(&self) -> &'static str {
        match self.source {
            ErrorSource::Lexer => "lex",
            ErrorSource::Preprocessor if self.message.starts_with("#error") => "error-directive",
            ErrorSource::Preprocessor if self.message.starts_with("#warning") => "warning-directive",
            ErrorSource::Preprocessor => "preprocessor",
            ErrorSource::Parser => "syntax",
            ErrorSource::Literal => "invalid-literal",
        }
    }
}

/// The result of parsing one file: a tree, errors, and the preprocessor's
/// view of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parse {
    green: GreenNode,
    errors: Vec<SyntaxError>,
    warnings: Vec<SyntaxError>,
    branches: Vec<ConditionalBranch>,
    macros: MacroNames,
}

impl Parse {
    pub fn syntax_node(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    pub fn green(&self) -> &GreenNode {
        &self.green
    }

    pub fn tree(&self) -> ast::SourceFile {
        ast::SourceFile { syntax: self.syntax_node() }
    }

    /// All errors, sorted by position.
    pub fn errors(&self) -> &[SyntaxError] {
        &self.errors
    }

    /// Warnings, sorted by position: `#warning` lines, `#error` lines
    /// reached with the current defines (they mean the file needs defines
    /// from its build, not that its text is malformed), and malformed
    /// numeric literals (code `invalid-literal`: not syntax errors, as for
    /// the reference compiler, but errors for a checker).
    pub fn warnings(&self) -> &[SyntaxError] {
        &self.warnings
    }

    /// Every branch of every `#if` group, in source order.
    pub fn conditional_branches(&self) -> &[ConditionalBranch] {
        &self.branches
    }

    /// Whether `offset` is in code that was parsed (not in a branch of an
    /// `#if` that is not taken).
    pub fn is_active(&self, offset: TextSize) -> bool {
        !self.branches.iter().any(|b| !b.active && b.body.contains(offset))
    }

    /// Macros defined by the file's `#define`s (in active code).
    pub fn macros(&self) -> &MacroNames {
        &self.macros
    }

    /// The tree as indented text, for tests and debugging.
    pub fn debug_tree(&self) -> String {
        debug_tree(&self.syntax_node())
    }
}

/// The text of a source file from its bytes. UTF-16 files (little or big
/// endian, recognized by their byte-order mark, which is kept as U+FEFF)
/// are decoded, as the reference compiler does; anything else is read as
/// UTF-8, with invalid sequences replaced (so a stray byte gives a located
/// error rather than an unreadable file).
pub fn decode_source(bytes: &[u8]) -> String {
    let utf16 = |le: bool| {
        let units = bytes.chunks_exact(2).map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        let mut s: String = char::decode_utf16(units).map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)).collect();
        if bytes.len() % 2 == 1 {
            s.push(char::REPLACEMENT_CHARACTER);
        }
        s
    };
    match bytes {
        [0xFF, 0xFE, ..] => utf16(true),
        [0xFE, 0xFF, ..] => utf16(false),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Parse Slang source text with the default options.
pub fn parse(text: &str) -> Parse {
    parse_with(text, &ParseOptions::default())
}

/// Parse Slang source text with predefined macros.
pub fn parse_with(text: &str, options: &ParseOptions) -> Parse {
    tree_builder::parse_text(text, options)
}

/// Indented `KIND@start..end` lines, tokens with their text.
pub fn debug_tree(node: &SyntaxNode) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut indent = 0usize;
    for event in node.preorder_with_tokens() {
        match event {
            WalkEvent::Enter(element) => {
                for _ in 0..indent {
                    out.push_str("  ");
                }
                match element {
                    NodeOrToken::Node(n) => {
                        let _ = writeln!(out, "{:?}@{:?}", n.kind(), n.text_range());
                    }
                    NodeOrToken::Token(t) => {
                        let _ = writeln!(out, "{:?}@{:?} {:?}", t.kind(), t.text_range(), t.text());
                    }
                }
                indent += 1;
            }
            WalkEvent::Leave(_) => indent -= 1,
        }
    }
    out
}

/// 1-based line and column (in chars) of an offset, for messages.
pub fn line_col(text: &str, offset: TextSize) -> (u32, u32) {
    let offset = usize::from(offset).min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() as u32 + 1;
    (line, col)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
