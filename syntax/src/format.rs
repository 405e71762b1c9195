//! A whitespace-only formatter for Slang, driven by the syntax tree.
//!
//! The formatter keeps the user's line structure: it never adds or removes a
//! line break between two tokens (it only collapses runs of blank lines), and
//! it never changes a character that is not a space, a tab or a line break.
//! Comments, string literals, preprocessor directive lines and the text of
//! `#if` branches that are not taken are never touched inside. What it does:
//!
//! - indentation at the start of each line: one level per open `{`, `(` or
//!   `[` from earlier lines (brackets opened on the same line count once, and
//!   a line that starts with closing brackets lines up with the line that
//!   opened them); one more level for the statements of a `case`, for the
//!   body of an `if`/`else`/`for`/`while`/`do` that is not a block, and for
//!   the continuation lines of a statement or declaration;
//! - spaces inside a line: one around binary and assignment operators, after
//!   `,` and `;`, between words, after `if`/`for`/`while`/`switch`/`catch`;
//!   none before `,` `;` `)` `]`, after `(` `[`, around `.` and `::`, in
//!   generic argument lists, after a prefix and before a postfix operator,
//!   between a function's name and its `(`. Where the tree does not say what
//!   a token is (and inside attributes, `spirv_asm` blocks and erroneous
//!   code), existing spacing is kept (several spaces become one);
//! - trailing whitespace is removed, runs of blank lines are collapsed to
//!   [`FormatOptions::max_blank_lines`], and the file ends with one newline.
//!
//! The result is idempotent, and formatting never joins two tokens into one:
//! a space is only removed where the lexer would still see the same tokens.

use crate::lexer;
use crate::SyntaxKind::{self, *};
use crate::{NodeOrToken, SyntaxElement, SyntaxNode, SyntaxToken, TextRange, TextSize, WalkEvent};

/// How to indent, and how many blank lines to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatOptions {
    /// Spaces per indentation level (when not using tabs).
    pub indent_width: u32,
    /// Indent with one tab per level.
    pub use_tabs: bool,
    /// Longer runs of blank lines are collapsed to this many.
    pub max_blank_lines: u32,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions { indent_width: 4, use_tabs: false, max_blank_lines: 1 }
    }
}

/// A replacement of the text in `range`.
pub type TextEdit = (TextRange, String);

/// The whitespace edits that format `text` (whose tree is `root`): sorted,
/// non-overlapping, and empty when the text is already formatted. With
/// `range`, only whitespace on the lines that `range` touches is edited.
pub fn format_edits(text: &str, root: &SyntaxNode, opts: &FormatOptions, range: Option<TextRange>) -> Vec<TextEdit> {
    if TextSize::of(text) != root.text_range().end() {
        return Vec::new();
    }
    let (items, col0_sensitive) = collect_items(root);
    let mut f = Formatter {
        col0_sensitive,
        text,
        opts,
        eol: eol_style(text),
        items: &items,
        stack: Vec::new(),
        line_level: 0,
        known_transparent: None,
        glue: Vec::new(),
        edits: Vec::new(),
    };
    f.run(root);
    let mut edits = f.edits;
    if let Some(range) = range {
        let lines = line_span(text, range);
        edits.retain(|(r, _)| r.start() <= lines.end() && r.end() >= lines.start());
    }
    edits
}

/// Parse and format a whole file.
pub fn format(text: &str, opts: &FormatOptions) -> String {
    let parse = crate::parse(text);
    let edits = format_edits(text, &parse.syntax_node(), opts, None);
    apply_edits(text, &edits)
}

/// Apply sorted, non-overlapping edits to `text`.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut pos = 0usize;
    for (range, new) in edits {
        let (start, end) = (usize::from(range.start()), usize::from(range.end()));
        out.push_str(&text[pos..start]);
        out.push_str(new);
        pos = end;
    }
    out.push_str(&text[pos..]);
    out
}

/// From the start of the first line of `range` to the end of its last line
/// (before the line break).
fn line_span(text: &str, range: TextRange) -> TextRange {
    let start = usize::from(range.start()).min(text.len());
    let end = usize::from(range.end()).min(text.len()).max(start);
    let bytes = text.as_bytes();
    let line_start = bytes[..start].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
    let line_end = bytes[end..].iter().position(|&b| b == b'\n' || b == b'\r').map_or(text.len(), |i| end + i);
    TextRange::new(TextSize::from(line_start as u32), TextSize::from(line_end as u32))
}

fn eol_style(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

// ---------------------------------------------------------------------------
// Items: everything that is not whitespace, in order.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    Token,
    Comment,
    /// A whole preprocessor directive line.
    Directive,
    /// Text of an `#if` branch that is not taken.
    Disabled,
}

struct Item {
    range: TextRange,
    kind: ItemKind,
    /// The token, for `Token` and `Comment` items.
    token: Option<SyntaxToken>,
    /// Inside erroneous or verbatim code: spacing around it is kept.
    keep: bool,
    /// The start of the attribute this token is inside, if any.
    attribute: Option<TextSize>,
}

/// Nodes whose inside is kept as written.
fn is_verbatim(kind: SyntaxKind) -> bool {
    matches!(kind, ERROR | SPIRV_ASM_BODY | ASM_STMT | FN_BODY_ASM | IGNORED_BLOCK | OPERATOR_NAME)
}

/// The items of the tree, and whether a block lacks its `}` (see
/// [`Formatter::col0_sensitive`]).
fn collect_items(root: &SyntaxNode) -> (Vec<Item>, bool) {
    let mut items = Vec::new();
    let mut unclosed_block = false;
    let mut verbatim_depth = 0u32;
    let mut attributes: Vec<TextSize> = Vec::new();
    let mut walk = root.preorder_with_tokens();
    while let Some(event) = walk.next() {
        match event {
            WalkEvent::Enter(NodeOrToken::Node(n)) => {
                let kind = n.kind();
                if kind.is_pp_directive() {
                    // (A directive at the end of the file holds the
                    // whitespace after it.)
                    let mut last = n.last_token();
                    while let Some(t) = last.as_ref().filter(|t| t.kind() == WHITESPACE) {
                        last = t.prev_token().filter(|p| n.text_range().contains_range(p.text_range()));
                    }
                    let end = last.map_or(n.text_range().end(), |t| t.text_range().end());
                    items.push(Item {
                        range: TextRange::new(n.text_range().start(), end),
                        kind: ItemKind::Directive,
                        token: None,
                        keep: true,
                        attribute: None,
                    });
                    walk.skip_subtree();
                } else if is_verbatim(kind) {
                    verbatim_depth += 1;
                } else if kind == ATTRIBUTE {
                    attributes.push(n.text_range().start());
                } else if kind == BLOCK && !unclosed_block {
                    unclosed_block = n.last_child_or_token().is_none_or(|e| e.kind() != R_CURLY);
                }
            }
            WalkEvent::Leave(NodeOrToken::Node(n)) => {
                let kind = n.kind();
                if is_verbatim(kind) {
                    verbatim_depth -= 1;
                } else if kind == ATTRIBUTE {
                    attributes.pop();
                }
            }
            WalkEvent::Enter(NodeOrToken::Token(t)) => {
                let kind = match t.kind() {
                    WHITESPACE => continue,
                    COMMENT => ItemKind::Comment,
                    DISABLED_TEXT => ItemKind::Disabled,
                    _ => ItemKind::Token,
                };
                if t.text_range().is_empty() {
                    continue;
                }
                items.push(Item {
                    range: t.text_range(),
                    kind,
                    keep: verbatim_depth > 0 || t.kind() == ERROR_TOKEN || kind != ItemKind::Token,
                    attribute: attributes.last().copied(),
                    token: Some(t),
                });
            }
            WalkEvent::Leave(NodeOrToken::Token(_)) => {}
        }
    }
    (items, unclosed_block)
}

// ---------------------------------------------------------------------------
// The formatter.

/// An open bracket, and the indentation level of the line it was opened on.
struct Open {
    kind: SyntaxKind,
    level: u32,
    parent: Option<SyntaxNode>,
}

/// How far down the bracket stack a closing bracket looks for its opener.
const MAX_BRACKET_SEARCH: usize = 64;

struct Formatter<'a> {
    /// A block of the tree lacks its `}`: the parser may have ended it at a
    /// declaration in column 0, so lines in column 0 stay there (indenting
    /// them could change how the file parses).
    col0_sensitive: bool,
    text: &'a str,
    opts: &'a FormatOptions,
    eol: &'static str,
    items: &'a [Item],
    stack: Vec<Open>,
    /// The indentation level of the line being written.
    line_level: u32,
    /// See [`only_transparent_before`].
    known_transparent: Option<SyntaxElement>,
    /// Items (indices) written with no space between them, most recent last
    /// (at most `GLUE` of them): what a removed space could join.
    glue: Vec<usize>,
    edits: Vec<TextEdit>,
}

const GLUE: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Space {
    /// No space.
    None,
    /// One space.
    One,
    /// Keep the whitespace exactly as it is.
    Keep,
    /// Keep whether there is a space, but make it one space.
    Norm,
}

impl Formatter<'_> {
    fn run(&mut self, root: &SyntaxNode) {
        let text = self.text;
        let start = if text.starts_with('\u{feff}') { TextSize::from(3) } else { TextSize::from(0) };
        if self.items.is_empty() {
            let rest = &text[usize::from(start)..];
            if !rest.is_empty() && is_plain(rest) {
                self.edit(TextRange::new(start, TextSize::of(text)), String::new());
            }
            return;
        }
        let mut prev_end = start;
        for i in 0..self.items.len() {
            let gap = TextRange::new(prev_end, self.items[i].range.start());
            let gap_text = &text[gap];
            let breaks = line_breaks(gap_text);
            let mut glued = false;
            if i == 0 || breaks > 0 {
                let (level, trusted) = self.compute_level(i);
                self.line_level = level;
                if is_plain(gap_text) {
                    self.line_start_gap(i, gap, breaks, trusted.then_some(level));
                }
            } else {
                glued = self.inline_gap(i, gap);
            }
            self.open_close(i);
            if glued && self.items[i].kind == ItemKind::Token {
                if self.glue.len() == GLUE {
                    self.glue.remove(0);
                }
                self.glue.push(i);
            } else {
                self.glue.clear();
                if self.items[i].kind == ItemKind::Token {
                    self.glue.push(i);
                }
            }
            prev_end = self.items[i].range.end();
        }
        // The end of the file: exactly one line break.
        let gap = TextRange::new(prev_end, TextSize::of(text));
        let gap_text = &text[gap];
        if is_plain(gap_text) && self.ends_cleanly(root) {
            let last = &text[self.items[self.items.len() - 1].range];
            let want = if last.ends_with(['\n', '\r']) { "" } else { self.eol };
            if gap_text != want {
                self.edit(gap, want.to_string());
            }
        }
    }

    /// Whether a line break after the last token would stay outside it (not
    /// so after an unterminated block comment or raw string, or in an `#if`
    /// branch not taken).
    fn ends_cleanly(&self, root: &SyntaxNode) -> bool {
        let mut last = root.last_token();
        while let Some(t) = last.as_ref().filter(|t| t.kind() == WHITESPACE) {
            last = t.prev_token();
        }
        let Some(last) = last else { return true };
        if last.kind() == DISABLED_TEXT {
            return false;
        }
        let alone = lexer::lex(last.text()).tokens;
        let with_eol = lexer::lex(&format!("{}{}", last.text(), self.eol)).tokens;
        with_eol.len() == alone.len() + 1 && alone.iter().zip(&with_eol).all(|(a, b)| a == b)
    }

    fn edit(&mut self, range: TextRange, new: String) {
        self.edits.push((range, new));
    }

    fn indent(&self, level: u32) -> String {
        if self.opts.use_tabs {
            "\t".repeat(level as usize)
        } else {
            " ".repeat((level * self.opts.indent_width) as usize)
        }
    }

    /// The whitespace before the first item of a line (or of the file).
    /// `level` is `None` where the brackets and the tree disagree (in
    /// erroneous code): the indentation is kept.
    fn line_start_gap(&mut self, i: usize, gap: TextRange, breaks: usize, level: Option<u32>) {
        let text = &self.text[gap];
        let item = &self.items[i];
        let first_break = text.find(['\n', '\r']).unwrap_or(0);
        let last_break_end = text.rfind(['\n', '\r']).map_or(0, |j| j + 1);
        let at = |offset: usize| gap.start() + TextSize::from(offset as u32);
        if i == 0 {
            // Nothing before the first item but the indentation.
            if last_break_end > 0 {
                self.edit(TextRange::new(at(0), at(last_break_end)), String::new());
            }
        } else {
            // (Not after a `\`: it would become an escaped line break.)
            let after_backslash = self.text[self.items[i - 1].range].ends_with('\\');
            if first_break > 0 && !after_backslash {
                self.edit(TextRange::new(at(0), at(first_break)), String::new());
            }
            let keep = breaks.min(self.opts.max_blank_lines as usize + 1);
            let want = self.eol.repeat(keep);
            if text[first_break..last_break_end] != want {
                self.edit(TextRange::new(at(first_break), at(last_break_end)), want);
            }
        }
        // Directive lines, `#if` text and multi-line block comments keep
        // their indentation (the lines after the first cannot move).
        let keep_indent = match item.kind {
            ItemKind::Directive | ItemKind::Disabled => true,
            ItemKind::Comment => self.text[item.range].contains(['\n', '\r']),
            ItemKind::Token => false,
        };
        let keep_col0 = self.col0_sensitive && last_break_end == text.len();
        if let Some(level) = level.filter(|_| !keep_indent && !keep_col0) {
            let want = self.indent(level);
            if text[last_break_end..] != want {
                self.edit(TextRange::new(at(last_break_end), gap.end()), want);
            }
        }
    }

    /// Whitespace between two items on one line; returns whether the output
    /// has no space there.
    fn inline_gap(&mut self, i: usize, gap: TextRange) -> bool {
        let text = &self.text[gap];
        if !is_plain(text) {
            return false;
        }
        let (l, r) = (&self.items[i - 1], &self.items[i]);
        let same_attribute = l.attribute.is_some() && l.attribute == r.attribute;
        let space = if l.keep || r.keep || same_attribute {
            Space::Keep
        } else {
            match (&l.token, &r.token) {
                (Some(lt), Some(rt)) => spacing(lt, rt),
                _ => Space::Keep,
            }
        };
        let want = match space {
            Space::Keep => text,
            Space::One => " ",
            Space::Norm if text.is_empty() => "",
            Space::Norm => " ",
            Space::None if text.is_empty() || self.can_join(i) => "",
            Space::None => " ",
        };
        if text != want {
            self.edit(gap, want.to_string());
        }
        want.is_empty()
    }

    /// Whether the item `i` can follow the glued items before it with no
    /// space, and still lex (and parse) as the same tokens.
    fn can_join(&self, i: usize) -> bool {
        let r = &self.text[self.items[i].range];
        let Some(&last) = self.glue.last() else {
            return false;
        };
        if last != i - 1 {
            return false;
        }
        let l = &self.text[self.items[last].range];
        // The parser glues `>` `>` and `>` `=` that touch.
        if l.ends_with('>') && r.starts_with(['>', '=']) {
            return false;
        }
        let mut joined = String::new();
        for &g in &self.glue {
            joined.push_str(&self.text[self.items[g].range]);
        }
        let before = lexer::lex(&joined).tokens;
        joined.push_str(r);
        let after = lexer::lex(&joined).tokens;
        after.len() == before.len() + 1
            && after.last().is_some_and(|t| t.len as usize == r.len())
            && before.iter().zip(&after).all(|(a, b)| a.len == b.len && a.kind == b.kind)
    }
}

/// Whitespace the formatter may rewrite: spaces, tabs and line breaks (not
/// escaped line breaks, form feeds or a byte-order mark).
fn is_plain(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// `\r\n`, `\n` and a lone `\r` each count as one line break.
fn line_breaks(text: &str) -> usize {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))).count()
}

// ---------------------------------------------------------------------------
// Indentation.

fn opener_of(kind: SyntaxKind) -> Option<SyntaxKind> {
    match kind {
        R_PAREN => Some(L_PAREN),
        R_BRACK => Some(L_BRACK),
        R_CURLY => Some(L_CURLY),
        _ => None,
    }
}

/// The index in `stack[..below]` of the nearest open bracket of `kind`.
fn find_open(stack: &[Open], below: usize, kind: SyntaxKind) -> Option<usize> {
    (below.saturating_sub(MAX_BRACKET_SEARCH)..below).rev().find(|&j| stack[j].kind == kind)
}

impl Formatter<'_> {
    /// Push or pop the bracket stack for item `i`.
    fn open_close(&mut self, i: usize) {
        let item = &self.items[i];
        let Some(token) = item.token.as_ref().filter(|_| item.kind == ItemKind::Token) else {
            return;
        };
        let kind = token.kind();
        if matches!(kind, L_PAREN | L_BRACK | L_CURLY) {
            self.stack.push(Open { kind, level: self.line_level, parent: token.parent() });
        } else if let Some(open) = opener_of(kind) {
            if let Some(j) = find_open(&self.stack, self.stack.len(), open) {
                self.stack.truncate(j);
            }
        }
    }

    fn is_line_start(&self, i: usize) -> bool {
        i == 0
            || self.text[TextRange::new(self.items[i - 1].range.end(), self.items[i].range.start())]
                .contains(['\n', '\r'])
    }

    /// The indentation level of the line that starts with item `i`, and
    /// whether the tree agrees with the brackets about where the line is.
    fn compute_level(&mut self, i: usize) -> (u32, bool) {
        // A line that starts with closing brackets lines up with the line
        // that opened the outermost of them.
        let mut below = self.stack.len();
        let mut agrees = true;
        let mut k = i;
        while let Some(item) = self.items.get(k) {
            if k > i && self.is_line_start(k) {
                break;
            }
            let Some(open) =
                item.token.as_ref().filter(|_| item.kind == ItemKind::Token).and_then(|t| opener_of(t.kind()))
            else {
                break;
            };
            if let Some(j) = find_open(&self.stack, below, open) {
                below = j;
                agrees &= self.stack[j].parent == item.token.as_ref().and_then(|t| t.parent());
            }
            k += 1;
        }
        if below < self.stack.len() {
            return (self.stack[below].level, agrees);
        }
        let innermost = self.stack.last();
        let base = innermost.map_or(0, |o| o.level + 1);
        match &self.items[i].token {
            Some(t) => match extra_indent(t, innermost.and_then(|o| o.parent.as_ref()), &mut self.known_transparent) {
                Some(extra) => (base + extra, true),
                None => (base, false),
            },
            None => (base, true),
        }
    }
}

/// Statements, declarations and members: a line inside one that does not
/// start it is a continuation line.
fn is_unit(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        EXPR_STMT
            | DECL_STMT
            | IF_STMT
            | FOR_STMT
            | COMPILE_TIME_FOR_STMT
            | WHILE_STMT
            | DO_WHILE_STMT
            | SWITCH_STMT
            | CASE_CLAUSE
            | BREAK_STMT
            | CONTINUE_STMT
            | RETURN_STMT
            | DISCARD_STMT
            | DEFER_STMT
            | THROW_STMT
            | TRY_STMT
            | EMPTY_STMT
            | LABELED_STMT
            | TARGET_SWITCH_STMT
            | TARGET_CASE
            | ATTRIBUTED_STMT
            | ASM_STMT
            | MODULE_DECL
            | IMPLEMENTING_DECL
            | IMPORT_DECL
            | INCLUDE_DECL
            | USING_DECL
            | STRUCT
            | CLASS
            | ENUM
            | ENUM_CASE
            | INTERFACE
            | EXTENSION
            | TYPEALIAS
            | TYPEDEF
            | NAMESPACE
            | ASSOCIATED_TYPE
            | PROPERTY
            | ACCESSOR
            | SUBSCRIPT
            | INIT
            | FN
            | VAR_DECL
            | CBUFFER
            | GLSL_BLOCK
            | MACRO_CALL
            | PRECISION_DECL
            | EMPTY_ITEM
            | STATIC_ASSERT
            | IGNORED_BLOCK
            | TRANSPARENT_BLOCK
            | FILE_DECL_BLOCK
    )
}

/// What may come before the first token of a declaration on lines of its
/// own without making that token a continuation: attributes, comments,
/// directives.
fn is_transparent(kind: SyntaxKind) -> bool {
    matches!(kind, WHITESPACE | COMMENT | DISABLED_TEXT | ATTRIBUTE | LAYOUT_MODIFIER) || kind.is_pp_directive()
}

/// Spelled like a macro (`BEGIN_NAMESPACE`): a word before a declaration
/// on a line of its own is not what the declaration continues.
fn is_macro_like(text: &str) -> bool {
    text.len() >= 2
        && text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && text.bytes().any(|b| b.is_ascii_uppercase())
}

/// The extra indentation of a body (`Some(0)` for bodies that are not
/// indented, such as blocks): the statement of an `if` without braces, the
/// statements of a `case`.
fn body_indent(parent: &SyntaxNode, child: &SyntaxElement) -> Option<u32> {
    let child_kind = child.kind();
    let is_node = child.as_node().is_some();
    let unless_block = |also: SyntaxKind| u32::from(child_kind != BLOCK && child_kind != also);
    match parent.kind() {
        IF_STMT if is_node && child_kind != ELSE_BRANCH => Some(unless_block(BLOCK)),
        ELSE_BRANCH if is_node => Some(unless_block(IF_STMT)),
        FOR_STMT | COMPILE_TIME_FOR_STMT | WHILE_STMT | DO_WHILE_STMT if is_node => Some(unless_block(BLOCK)),
        LABELED_STMT | ATTRIBUTED_STMT | DEFER_STMT if is_node && !matches!(child_kind, NAME | ATTRIBUTE) => Some(0),
        CASE_CLAUSE | TARGET_CASE => {
            let colon = parent.children_with_tokens().find(|e| e.kind() == COLON)?;
            (child.text_range().start() >= colon.text_range().end()).then_some(1)
        }
        _ => None,
    }
}

/// Lines that start a part of a statement that is not a continuation:
/// `else`, `catch`, the `while` of a `do` (and any `{`, see
/// [`extra_indent`]).
fn starts_own_line(parent: &SyntaxNode, child: &SyntaxElement) -> bool {
    matches!(child.kind(), ELSE_BRANCH | CATCH_CLAUSE) || (parent.kind() == DO_WHILE_STMT && child.kind() == WHILE_KW)
}

/// Whether only attributes, comments and the like come before `element` in
/// its parent. `known` is an element for which that holds and which is
/// itself transparent: consecutive comment lines are checked in constant
/// time each.
fn only_transparent_before(element: &SyntaxElement, known: &mut Option<SyntaxElement>) -> bool {
    let transparent = |e: &SyntaxElement| {
        is_transparent(e.kind()) || e.as_token().is_some_and(|t| t.kind() == IDENT && is_macro_like(t.text()))
    };
    let mut prev = element.prev_sibling_or_token();
    while let Some(e) = prev {
        if known.as_ref() == Some(&e) {
            break;
        }
        if !transparent(&e) {
            return false;
        }
        prev = e.prev_sibling_or_token();
    }
    *known = if transparent(element) { Some(element.clone()) } else { element.prev_sibling_or_token() };
    true
}

/// Indentation that the tree adds to a line starting with `token`, between
/// the token and `container` (the node of the innermost open bracket);
/// `None` if the container is not an ancestor of the token.
fn extra_indent(token: &SyntaxToken, container: Option<&SyntaxNode>, known: &mut Option<SyntaxElement>) -> Option<u32> {
    let mut extra = 0;
    // A `{` that starts a line is never a continuation.
    let mut decided = token.kind() == L_CURLY;
    let mut at_start = true;
    let mut child: SyntaxElement = token.clone().into();
    let mut node = token.parent();
    while let Some(parent) = node {
        if Some(&parent) == container {
            return Some(extra);
        }
        if let Some(add) = body_indent(&parent, &child) {
            extra += add;
            decided = true;
        } else if !decided {
            let starts_child = at_start;
            at_start = starts_child && only_transparent_before(&child, known);
            if is_unit(parent.kind()) {
                decided = true;
                let own_line = starts_child && starts_own_line(&parent, &child);
                if !at_start && !own_line {
                    extra += 1;
                }
            }
        }
        node = parent.parent();
        child = parent.into();
    }
    container.is_none().then_some(extra)
}

// ---------------------------------------------------------------------------
// Spacing inside a line.

fn is_word(kind: SyntaxKind) -> bool {
    kind.is_keyword() || matches!(kind, IDENT | INT_NUMBER | FLOAT_NUMBER | STRING | CHAR)
}

fn is_generic_list(kind: Option<SyntaxKind>) -> bool {
    matches!(kind, Some(GENERIC_ARG_LIST | GENERIC_PARAM_LIST))
}

/// Nodes whose `(` follows a name with no space: calls, declarations,
/// `sizeof(`, `register(` …
fn is_call_like(kind: Option<SyntaxKind>) -> bool {
    matches!(
        kind,
        Some(
            ARG_LIST
                | PARAM_LIST
                | ATTRIBUTE_ARGS
                | MODIFIER_CALL
                | LAYOUT_MODIFIER
                | REGISTER_BINDING
                | PACKOFFSET
                | SIZEOF_EXPR
                | DIFF_EXPR
                | MACRO_CALL
                | MACRO_TYPE
        )
    )
}

/// Colons with a space on both sides: `struct S : I`, `T : I`, `x : SV_Target`,
/// `a ? b : c` …
fn is_spaced_colon(kind: Option<SyntaxKind>) -> bool {
    matches!(
        kind,
        Some(
            INHERITANCE_LIST
                | BIT_FIELD
                | SEMANTIC
                | REGISTER_BINDING
                | PACKOFFSET
                | GENERIC_TYPE_PARAM
                | TYPE_BOUND
                | WHERE_PRED
                | TERNARY_EXPR
        )
    )
}

/// Colons after a label: `case 1:`, `default:`, `label:`.
fn is_label_colon(kind: Option<SyntaxKind>) -> bool {
    matches!(kind, Some(CASE_CLAUSE | TARGET_CASE | LABELED_STMT))
}

/// Binary and assignment operators, and the `?` of a conditional.
fn is_binary_op(token: &SyntaxToken, parent: Option<SyntaxKind>) -> bool {
    let kind = token.kind();
    match kind {
        EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ | AMPEQ | PIPEEQ | CARETEQ | SHLEQ | SHREQ | FAT_ARROW => {
            true
        }
        QUESTION => parent == Some(TERNARY_EXPR),
        _ => parent == Some(BIN_EXPR) && !is_word(kind) && kind.is_punct(),
    }
}

/// The operator of a prefix expression (`-x`, `!x`, `++x`, `*p`).
fn is_prefix_op(token: &SyntaxToken, parent: Option<&SyntaxNode>) -> bool {
    parent
        .is_some_and(|p| p.kind() == PREFIX_EXPR && token.kind().is_punct() && p.first_token().as_ref() == Some(token))
}

fn is_postfix_op(token: &SyntaxToken, parent: Option<&SyntaxNode>) -> bool {
    parent.is_some_and(|p| p.kind() == POSTFIX_EXPR && matches!(token.kind(), PLUS2 | MINUS2))
}

fn is_control_keyword(kind: SyntaxKind) -> bool {
    matches!(kind, IF_KW | FOR_KW | WHILE_KW | SWITCH_KW | CATCH_KW)
}

/// The space between two tokens on one line.
fn spacing(l: &SyntaxToken, r: &SyntaxToken) -> Space {
    let (lk, rk) = (l.kind(), r.kind());
    let (l_parent, r_parent) = (l.parent(), r.parent());
    let (lp, rp) = (l_parent.as_ref().map(|p| p.kind()), r_parent.as_ref().map(|p| p.kind()));

    if matches!(rk, SEMICOLON | COMMA) || matches!(lk, L_PAREN | L_BRACK) || matches!(rk, R_PAREN | R_BRACK) {
        return Space::None;
    }
    if matches!(lk, COMMA | SEMICOLON) {
        return Space::One;
    }
    if lk == DOT || rk == DOT {
        return Space::None;
    }
    if lk == COLON2 {
        return Space::None;
    }
    if rk == COLON2 {
        return if matches!(lk, IDENT | THIS_TYPE_KW) || (lk == R_ANGLE && is_generic_list(lp)) {
            Space::None
        } else {
            Space::Norm
        };
    }
    if lk == THIN_ARROW || rk == THIN_ARROW {
        return match if lk == THIN_ARROW { lp } else { rp } {
            Some(MEMBER_EXPR) => Space::None,
            Some(RETURN_TYPE) => Space::One,
            _ => Space::Norm,
        };
    }
    // Generic lists: `vector<float, 3>`, `f<T>(x)`.
    if matches!(rk, L_ANGLE | R_ANGLE) && is_generic_list(rp) {
        return if matches!(lk, IDENT | THIS_TYPE_KW) || rk == R_ANGLE { Space::None } else { Space::Norm };
    }
    if lk == L_ANGLE && is_generic_list(lp) {
        return Space::None;
    }
    if lk == R_ANGLE && is_generic_list(lp) {
        if matches!(rk, L_PAREN | L_BRACK | R_ANGLE) {
            return Space::None;
        }
        if is_word(rk) {
            return Space::One;
        }
    }
    if is_binary_op(l, lp) || is_binary_op(r, rp) {
        return Space::One;
    }
    if is_prefix_op(l, l_parent.as_ref()) || is_postfix_op(r, r_parent.as_ref()) {
        return Space::None;
    }
    if rk == COLON {
        return if is_label_colon(rp) {
            Space::None
        } else if is_spaced_colon(rp) {
            Space::One
        } else {
            Space::Norm
        };
    }
    if lk == COLON {
        return if is_label_colon(lp) || is_spaced_colon(lp) { Space::One } else { Space::Norm };
    }
    if rk == L_PAREN {
        return if is_control_keyword(lk) {
            Space::One
        } else if is_call_like(rp)
            && (is_word(lk) || matches!(lk, R_PAREN | R_BRACK) || (lk == R_ANGLE && is_generic_list(lp)))
        {
            Space::None
        } else {
            Space::Norm
        };
    }
    if rk == L_BRACK && matches!(rp, Some(INDEX_EXPR | ARRAY_SUFFIX | ARRAY_TYPE)) {
        return Space::None;
    }
    if rk == L_CURLY {
        return if lk == L_CURLY { Space::Norm } else { Space::One };
    }
    if lk == L_CURLY || rk == R_CURLY {
        return if lp == Some(INIT_LIST) || rp == Some(INIT_LIST) || (lk == L_CURLY && rk == R_CURLY) {
            Space::Norm
        } else {
            Space::One
        };
    }
    if lk == R_CURLY {
        return if rp == Some(INIT_LIST) || lp == Some(INIT_LIST) { Space::Norm } else { Space::One };
    }
    if is_word(rk) && (is_word(lk) || lk == R_BRACK || (lk == R_PAREN && lp != Some(CAST_EXPR))) {
        return Space::One;
    }
    if lk.is_keyword() && !matches!(lk, THIS_KW | THIS_TYPE_KW | TRUE_KW | FALSE_KW | NONE_KW | NULLPTR_KW) {
        return if rk == L_PAREN { Space::Norm } else { Space::One };
    }
    Space::Norm
}
