//! The recursive-descent parser.
//!
//! The parser reads only significant tokens of active code (trivia,
//! directive lines and disabled text are filtered out). As in
//! rust-analyzer, grammar rules open a [`Marker`] where a node may start and
//! complete it with a kind once they know it, and a completed node can be
//! wrapped later (`precede`, for left-recursive forms like `a + b`). Here a
//! marker is a checkpoint into the [`Sink`]'s stack of finished children, so
//! the green tree is built directly while parsing, with no intermediate
//! event list; the sink puts trivia, directive lines and disabled text back
//! between the tokens, so the tree is lossless.
//!
//! Termination is guaranteed: every loop in the grammar either consumes a
//! token or breaks, and as a backstop too many lookahead steps without
//! consuming a token make the parser report end of input. Recursion is bounded by [`MAX_DEPTH`].

mod grammar;

use std::cell::Cell;

use crate::preprocessor::MacroNames;
use crate::tree_builder::Sink;
use crate::SyntaxKind::{self, *};
use text_size::{TextRange, TextSize};

pub(crate) const MAX_DEPTH: u32 = 400;

/// The significant tokens the parser sees.
pub(crate) struct Input<'a> {
    pub text: &'a str,
    /// The kind of each token (hard keyword kind or `IDENT`); kept apart
    /// from the rest because lookahead scans it most.
    pub kinds: Vec<SyntaxKind>,
    pub info: Vec<SigInfo>,
    pub macros: &'a MacroNames,
}

/// Everything else the parser and the sink need about a significant token.
#[derive(Clone, Copy)]
pub(crate) struct SigInfo {
    pub start: u32,
    pub len: u32,
    /// Index of the token in the raw token list.
    pub raw: u32,
    /// The soft-keyword kind of an identifier (`IDENT` if none).
    pub contextual: SyntaxKind,
    /// `JOINT | LINE_START | COL0` bits.
    pub flags: u8,
}

impl Input<'_> {
    /// No trivia, directive or disabled text between this token and the
    /// previous one.
    pub const JOINT: u8 = 1;
    /// First significant token on its line.
    pub const LINE_START: u8 = 2;
    /// Starts at column 0.
    pub const COL0: u8 = 4;

    pub fn end(&self, i: usize) -> u32 {
        self.info[i].start + self.info[i].len
    }

    fn flag(&self, i: usize, flag: u8) -> bool {
        self.info.get(i).is_some_and(|t| t.flags & flag != 0)
    }

    /// Whether token `i` is the first on its line.
    pub fn line_start(&self, i: usize) -> bool {
        self.flag(i, Input::LINE_START)
    }

    #[inline]
    pub fn contextual(&self, i: usize) -> SyntaxKind {
        self.info.get(i).map_or(EOF, |t| t.contextual)
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }
    pub fn text(&self, i: usize) -> &str {
        if i >= self.len() {
            return "";
        }
        &self.text[self.info[i].start as usize..self.end(i) as usize]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub range: TextRange,
    pub message: String,
}

pub(crate) struct Parser<'t> {
    pub(crate) input: &'t Input<'t>,
    pos: usize,
    pub(crate) sink: Sink<'t>,
    pub(crate) errors: Vec<ParseError>,
    steps: Cell<u32>,
    depth: u32,
}

const MAX_ERRORS: usize = 1000;
const MAX_STEPS_WITHOUT_PROGRESS: u32 = 1_000_000;

impl<'t> Parser<'t> {
    pub(crate) fn new(input: &'t Input<'t>, sink: Sink<'t>) -> Parser<'t> {
        Parser { input, pos: 0, sink, errors: Vec::new(), steps: Cell::new(0), depth: 0 }
    }

    /// Counts lookahead steps since the last consumed token; a grammar bug
    /// that loops without consuming ends at a fake end of input instead of
    /// hanging.
    #[inline]
    fn tick(&self) -> bool {
        let steps = self.steps.get();
        if steps >= MAX_STEPS_WITHOUT_PROGRESS {
            return false;
        }
        self.steps.set(steps + 1);
        true
    }

    /// Kind of the token `n` ahead (hard kind or IDENT).
    #[inline]
    pub(crate) fn nth(&self, n: usize) -> SyntaxKind {
        if !self.tick() {
            return EOF;
        }
        self.input.kinds.get(self.pos + n).copied().unwrap_or(EOF)
    }

    #[inline]
    pub(crate) fn current(&self) -> SyntaxKind {
        self.nth(0)
    }

    /// Whether the token `n` ahead is `kind`, also matching soft keywords
    /// and the glued operators `>>`, `>=`, `>>=`.
    #[inline]
    pub(crate) fn nth_at(&self, n: usize, kind: SyntaxKind) -> bool {
        let i = self.pos + n;
        let cur = self.nth(n);
        if cur == kind {
            return true;
        }
        match kind {
            SHR => cur == R_ANGLE && self.joint_kind(i + 1, R_ANGLE),
            GTEQ => cur == R_ANGLE && self.joint_kind(i + 1, EQ),
            SHREQ => cur == R_ANGLE && self.joint_kind(i + 1, R_ANGLE) && self.joint_kind(i + 2, EQ),
            _ => cur == IDENT && self.input.contextual(i) == kind,
        }
    }

    fn joint_kind(&self, i: usize, kind: SyntaxKind) -> bool {
        i < self.input.len() && self.input.kinds[i] == kind && self.input.flag(i, Input::JOINT)
    }

    #[inline]
    pub(crate) fn at(&self, kind: SyntaxKind) -> bool {
        self.nth_at(0, kind)
    }

    pub(crate) fn at_ts(&self, set: &[SyntaxKind]) -> bool {
        set.iter().any(|&k| self.at(k))
    }

    pub(crate) fn nth_text(&self, n: usize) -> &str {
        self.input.text(self.pos + n)
    }

    pub(crate) fn at_eof(&self) -> bool {
        self.current() == EOF
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Whether the current token begins a line at column 0.
    pub(crate) fn at_col0(&self) -> bool {
        self.input.flag(self.pos, Input::COL0)
    }

    pub(crate) fn at_line_start(&self) -> bool {
        self.input.flag(self.pos, Input::LINE_START)
    }

    #[inline]
    pub(crate) fn raw_kind(&self, i: usize) -> SyntaxKind {
        self.input.kinds.get(i).copied().unwrap_or(EOF)
    }

    pub(crate) fn raw_at(&self, i: usize, kind: SyntaxKind) -> bool {
        let k = self.raw_kind(i);
        k == kind || (k == IDENT && self.input.contextual(i) == kind)
    }

    pub(crate) fn start(&mut self) -> Marker {
        let checkpoint = self.sink.checkpoint(self.pos);
        Marker { checkpoint }
    }

    /// Consume the current token if it is `kind` (re-tagging soft keywords).
    pub(crate) fn eat(&mut self, kind: SyntaxKind) -> bool {
        if !self.at(kind) {
            return false;
        }
        let n_raw = match kind {
            SHR | GTEQ if self.current() == R_ANGLE => 2,
            SHREQ if self.current() == R_ANGLE => 3,
            _ => 1,
        };
        self.do_bump(kind, n_raw);
        true
    }

    pub(crate) fn bump(&mut self, kind: SyntaxKind) {
        let ok = self.eat(kind);
        debug_assert!(ok, "bump({kind:?}) at {:?}", self.current());
        if !ok {
            self.bump_any();
        }
    }

    pub(crate) fn bump_any(&mut self) {
        let kind = self.current();
        if kind == EOF {
            return;
        }
        self.do_bump(kind, 1);
    }

    /// Consume the current token as `kind` (e.g. an identifier as a keyword).
    pub(crate) fn bump_remap(&mut self, kind: SyntaxKind) {
        if self.current() == EOF {
            return;
        }
        self.do_bump(kind, 1);
    }

    fn do_bump(&mut self, kind: SyntaxKind, n_raw: u8) {
        self.sink.token(self.pos, kind, n_raw as usize);
        self.pos += n_raw as usize;
        self.steps.set(0);
    }

    /// An error about something missing: a zero-width range.
    ///
    /// Placed, like the reference compiler's "expected `;`", at the start of
    /// the token found instead (or at the end of the text), so both tools
    /// name the same line.
    pub(crate) fn error(&mut self, message: impl Into<String>) {
        let at = if self.pos < self.input.len() {
            self.input.info[self.pos].start
        } else {
            TextSize::of(self.input.text).into()
        };
        self.push_error(TextRange::empty(TextSize::new(at)), message.into());
    }

    /// An error about the current token.
    pub(crate) fn error_here(&mut self, message: impl Into<String>) {
        let range = if self.pos < self.input.len() {
            TextRange::new(TextSize::new(self.input.info[self.pos].start), TextSize::new(self.input.end(self.pos)))
        } else {
            TextRange::empty(TextSize::of(self.input.text))
        };
        self.push_error(range, message.into());
    }

    fn push_error(&mut self, range: TextRange, message: String) {
        // The lexer has already reported a bad character; one error is enough.
        if self.input.kinds.get(self.pos) == Some(&ERROR_TOKEN) {
            return;
        }
        if self.errors.len() < MAX_ERRORS {
            // One error per position is enough.
            if self.errors.last().is_some_and(|e| e.range.start() == range.start()) {
                return;
            }
            self.errors.push(ParseError { range, message });
        }
    }

    pub(crate) fn expect(&mut self, kind: SyntaxKind) -> bool {
        if self.eat(kind) {
            return true;
        }
        let what = kind.static_text().map(|t| format!("`{t}`")).unwrap_or_else(|| format!("{kind:?}"));
        self.error(format!("expected {what}"));
        false
    }

    /// Report an error and wrap the current token in an `ERROR` node.
    pub(crate) fn err_and_bump(&mut self, message: &str) {
        if self.at_eof() {
            self.error(message);
            return;
        }
        self.error_here(message);
        let m = self.start();
        self.bump_any();
        m.complete(self, ERROR);
    }

    /// Like `err_and_bump`, but does not consume a token in `recovery`.
    pub(crate) fn err_recover(&mut self, message: &str, recovery: &[SyntaxKind]) {
        if self.at_ts(recovery) || self.at(L_CURLY) || self.at(R_CURLY) || self.at_eof() {
            self.error(message);
            return;
        }
        self.err_and_bump(message);
    }

    /// Enter a recursive grammar rule; `false` if nesting is too deep (the
    /// caller must then not recurse).
    pub(crate) fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            return false;
        }
        self.depth += 1;
        true
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(crate) fn too_deep(&mut self) {
        self.error_here("nesting too deep");
        // Skip a whole balanced group so the outer rules can resynchronize.
        let m = self.start();
        let mut level = 0i32;
        loop {
            match self.current() {
                EOF => break,
                L_PAREN | L_BRACK | L_CURLY => level += 1,
                R_PAREN | R_BRACK | R_CURLY => {
                    level -= 1;
                    if level < 0 {
                        break;
                    }
                }
                _ => {}
            }
            self.bump_any();
            if level == 0 {
                break;
            }
        }
        m.complete(self, ERROR);
    }
}

pub(crate) struct Marker {
    /// Index in the sink's children stack where the node's children begin.
    checkpoint: usize,
}

impl Marker {
    pub(crate) fn complete(self, p: &mut Parser<'_>, kind: SyntaxKind) -> CompletedMarker {
        let at = p.sink.complete(self.checkpoint, kind);
        CompletedMarker { checkpoint: at, kind }
    }

    /// Give up on the node: its children stay where they are.
    pub(crate) fn abandon(self, _p: &mut Parser<'_>) {}
}

#[derive(Clone, Copy)]
pub(crate) struct CompletedMarker {
    checkpoint: usize,
    kind: SyntaxKind,
}

impl CompletedMarker {
    /// Start a new node that becomes the parent of this one.
    pub(crate) fn precede(self, _p: &mut Parser<'_>) -> Marker {
        Marker { checkpoint: self.checkpoint }
    }

    pub(crate) fn kind(&self) -> SyntaxKind {
        self.kind
    }
}

/// What to parse the input as.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    SourceFile,
    /// A single `{ ... }` block (incremental reparsing).
    Block,
}

pub(crate) fn parse_input<'t>(input: &'t Input<'t>, sink: Sink<'t>, entry: Entry) -> (Sink<'t>, Vec<ParseError>) {
    let mut p = Parser::new(input, sink);
    match entry {
        Entry::SourceFile => grammar::source_file(&mut p),
        Entry::Block => grammar::block_entry(&mut p),
    }
    (p.sink, p.errors)
}
