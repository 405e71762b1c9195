//! From text to a lossless rowan tree: lexing, the preprocessor pass, the
//! parser's input, and the [`Sink`] that builds green nodes as the parser
//! completes them.
//!
//! Trivia (whitespace, comments), directive lines and disabled text are
//! placed between the parser's tokens. Comments directly before a
//! declaration (no blank line between) go inside the declaration's node, so
//! doc comments belong to what they document; other nodes start at their
//! first token.

use rowan::{GreenNode, GreenToken, NodeOrToken};
use text_size::{TextRange, TextSize};

use crate::lexer::{lex, Token};
use crate::parser::{parse_input, Entry, Input, ParseError, SigInfo};
use crate::preprocessor::{self, Directive, MacroNames, Role};
use crate::SyntaxKind::{self, *};
use crate::{ErrorSource, Parse, ParseOptions, SyntaxError};

pub(crate) fn parse_text(text: &str, options: &ParseOptions) -> Parse {
    let lexed = lex(text);
    let tokens = lexed.tokens;
    let offsets = token_offsets(&tokens);
    let pp = preprocessor::process(text, &tokens, &offsets, options);
    let (green, parse_errors) =
        build_tree(text, &tokens, &offsets, &pp.roles, &pp.directives, &pp.macros, Entry::SourceFile);

    // Text in a branch not taken, and the free text of `#error`, `#warning`
    // and `#pragma` lines, need not lex cleanly (`#if 0` around prose with
    // an apostrophe is common).
    let free_text = |offset: u32| {
        let i = offsets.partition_point(|&o| o <= offset).saturating_sub(1).min(tokens.len().saturating_sub(1));
        match pp.roles.get(i) {
            Some(Role::Disabled) => true,
            Some(Role::Directive) => pp
                .directives
                .iter()
                .find(|d| d.start <= i && i < d.end)
                .is_some_and(|d| matches!(d.kind, PP_ERROR | PP_WARNING | PP_PRAGMA | PP_UNKNOWN)),
            _ => false,
        }
    };
    let mut errors: Vec<SyntaxError> = Vec::with_capacity(lexed.errors.len() + pp.errors.len() + parse_errors.len());
    let mut warnings = Vec::new();
    for e in lexed.errors.into_iter().filter(|e| !free_text(e.offset)) {
        let range = TextRange::at(TextSize::new(e.offset), TextSize::new(e.len));
        if e.literal {
            warnings.push(SyntaxError { range, message: e.message, source: ErrorSource::Literal });
        } else {
            errors.push(SyntaxError { range, message: e.message, source: ErrorSource::Lexer });
        }
    }
    for e in pp.errors {
        let e_is_warning = e.is_warning;
        let diag = SyntaxError { range: e.range, message: e.message, source: ErrorSource::Preprocessor };
        if e_is_warning {
            warnings.push(diag);
        } else {
            errors.push(diag);
        }
    }
    errors.extend(parse_errors.into_iter().map(|e| SyntaxError {
        range: e.range,
        message: e.message,
        source: ErrorSource::Parser,
    }));
    errors.sort_by_key(|e| e.range.start());
    warnings.sort_by_key(|e| e.range.start());

    Parse { green, errors, warnings, branches: pp.branches, macros: pp.macros }
}

pub(crate) fn token_offsets(tokens: &[Token]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(tokens.len() + 1);
    let mut pos = 0u32;
    for t in tokens {
        offsets.push(pos);
        pos += t.len;
    }
    offsets.push(pos);
    offsets
}

/// Parse raw tokens (with their preprocessor roles) into a green tree.
pub(crate) fn build_tree(
    text: &str,
    tokens: &[Token],
    offsets: &[u32],
    roles: &[Role],
    directives: &[Directive],
    macros: &MacroNames,
    entry: Entry,
) -> (GreenNode, Vec<ParseError>) {
    // The parser's view: significant tokens of active code.
    let estimate = tokens.len() / 2 + 16;
    let mut input = Input { text, kinds: Vec::with_capacity(estimate), info: Vec::with_capacity(estimate), macros };
    let mut joint = false;
    let mut line_start = true;
    let mut col0 = true;
    let check_empty_macros = !macros.empty.is_empty();
    for (i, t) in tokens.iter().enumerate() {
        let role = roles[i];
        let empty_macro = check_empty_macros
            && t.kind == IDENT
            && macros.is_empty_macro(&text[offsets[i] as usize..offsets[i + 1] as usize]);
        if role != Role::Code || t.kind.is_trivia() || empty_macro {
            joint = false;
            if t.kind == WHITESPACE || role != Role::Code {
                let s = &text[offsets[i] as usize..offsets[i + 1] as usize];
                if let Some(nl) = s.bytes().rposition(|b| b == b'\n' || b == b'\r') {
                    line_start = true;
                    col0 = nl + 1 == s.len();
                } else if role == Role::Code {
                    col0 = false;
                }
            } else {
                // A comment or an empty macro: the next token is not at
                // column 0, but keep the line-start flag.
                col0 = false;
            }
            continue;
        }
        input.kinds.push(t.kind);
        input.info.push(SigInfo {
            start: offsets[i],
            len: t.len,
            raw: i as u32,
            contextual: t.contextual,
            flags: ((joint as u8) * Input::JOINT)
                | ((line_start as u8) * Input::LINE_START)
                | (((line_start && col0) as u8) * Input::COL0),
        });
        joint = true;
        line_start = false;
        col0 = false;
    }

    let sink = Sink {
        text,
        tokens,
        offsets,
        roles,
        directives,
        sig: &input.info,
        raw_pos: 0,
        next_directive: 0,
        cache: TokenCache::take(),
        root: None,
    };
    let (mut sink, parse_errors) = parse_input(&input, sink, entry);
    let green =
        sink.root.take().unwrap_or_else(|| GreenNode::new(rowan::SyntaxKind(SOURCE_FILE.into()), std::iter::empty()));
    sink.cache.put_back();
    (green, parse_errors)
}

/// Green tokens kept from one parse to the next on the same thread, so that
/// the tokens every file has (keywords, punctuation, common identifiers and
/// indentation) are allocated once rather than once per file, and no table
/// is built per parse. Trees share tokens as they share them within one
/// tree; a token's identity is never observable (green elements compare by
/// value).
pub(crate) struct TokenCache {
    /// The stack of finished children (reused for its capacity).
    children: Vec<Element>,
    /// Tokens with a fixed text (punctuation, keywords), one per kind.
    static_tokens: Vec<Option<GreenToken>>,
    /// The most common whitespace: spaces, or a newline and an indentation.
    indentation: Vec<Option<GreenToken>>,
    /// Short tokens (whitespace, identifiers, numbers): a direct-mapped
    /// cache indexed by a hash of kind and text (a slot holds the last token
    /// that hashed there, so the table never grows).
    interned: Vec<Option<GreenToken>>,
}

/// log2 of the number of slots of [`TokenCache::interned`].
const INTERNED_BITS: u32 = 12;

thread_local! {
    static TOKEN_CACHE: std::cell::Cell<Option<Box<TokenCache>>> = const { std::cell::Cell::new(None) };
}

impl TokenCache {
    fn take() -> Box<TokenCache> {
        // (`None` on a nested parse on the same thread, or at thread exit.)
        let cached = TOKEN_CACHE.try_with(|c| c.take()).ok().flatten();
        let mut cache = cached.unwrap_or_else(|| {
            Box::new(TokenCache {
                children: Vec::with_capacity(256),
                static_tokens: vec![None; SyntaxKind::__LAST as usize],
                indentation: vec![None; 2 * MAX_INDENT],
                interned: vec![None; 1 << INTERNED_BITS],
            })
        });
        cache.children.clear();
        cache
    }

    #[cold]
    fn static_token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        self.static_tokens[kind as usize].insert(GreenToken::new(rowan::SyntaxKind(kind.into()), text)).clone()
    }

    /// A token of a kind without a fixed text: shared if it is short.
    fn shared_token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        let raw_kind = rowan::SyntaxKind(kind.into());
        if let Some(slot) = indentation_slot(kind, text) {
            self.indentation[slot].get_or_insert_with(|| GreenToken::new(raw_kind, text)).clone()
        } else if text.len() <= 24 {
            let slot = &mut self.interned[token_slot(kind, text)];
            match slot {
                Some(t) if t.kind() == raw_kind && t.text() == text => t.clone(),
                _ => slot.insert(GreenToken::new(raw_kind, text)).clone(),
            }
        } else {
            GreenToken::new(raw_kind, text)
        }
    }

    fn put_back(self: Box<Self>) {
        let _ = TOKEN_CACHE.try_with(|c| c.set(Some(self)));
    }
}

type Element = NodeOrToken<GreenNode, GreenToken>;

/// Builds the green tree as the parser goes: finished children wait on a
/// stack until the node that owns them is completed.
pub(crate) struct Sink<'a> {
    text: &'a str,
    tokens: &'a [Token],
    offsets: &'a [u32],
    roles: &'a [Role],
    directives: &'a [Directive],
    sig: &'a [SigInfo],
    /// The next raw token to put in the tree.
    raw_pos: usize,
    /// Directives are emitted in source order; the next one to emit.
    next_directive: usize,
    /// The stack of finished children and the shared tokens.
    cache: Box<TokenCache>,
    root: Option<GreenNode>,
}

const MAX_INDENT: usize = 64;

/// A slot for whitespace of the form `" "*n` or `"\n" + " "*n` (n < 64).
fn indentation_slot(kind: SyntaxKind, text: &str) -> Option<usize> {
    if kind != WHITESPACE || text.len() > MAX_INDENT {
        return None;
    }
    let bytes = text.as_bytes();
    let (newline, rest) = match bytes.first() {
        Some(b'\n') => (1, &bytes[1..]),
        _ => (0, bytes),
    };
    (rest.len() < MAX_INDENT && rest.iter().all(|&b| b == b' ')).then(|| newline * MAX_INDENT + rest.len())
}

/// The slot of a short token in [`TokenCache::interned`].
fn token_slot(kind: SyntaxKind, text: &str) -> usize {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u16(kind as u16);
    h.write(text.as_bytes());
    (h.finish() >> (64 - INTERNED_BITS)) as usize
}

/// Nodes that take the comments right before them (doc comments).
fn attaches_leading_comments(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        FN | STRUCT
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
            | SUBSCRIPT
            | INIT
            | VAR_DECL
            | CBUFFER
            | MODULE_DECL
            | IMPORT_DECL
            | GLSL_BLOCK
    )
}

fn is_trivia_element(e: &Element) -> bool {
    match e {
        NodeOrToken::Token(t) => SyntaxKind::from(t.kind().0).is_trivia(),
        NodeOrToken::Node(_) => false,
    }
}

impl<'a> Sink<'a> {
    /// Where a node starting at the parser's token `sig` begins: trivia
    /// before it goes to the parent, except a trailing block of comments,
    /// which stays pending so that a declaration can take it.
    pub(crate) fn checkpoint(&mut self, sig: usize) -> usize {
        let next = self.sig.get(sig).map_or(self.tokens.len(), |t| t.raw as usize);
        if next == self.raw_pos {
            return self.cache.children.len();
        }
        let until = self.attached_comments_start(next);
        self.flush_until(until);
        self.cache.children.len()
    }

    /// Turn the children from `checkpoint` on into a node; returns the index
    /// of the new node (for `precede`).
    pub(crate) fn complete(&mut self, checkpoint: usize, kind: SyntaxKind) -> usize {
        let mut start = checkpoint.min(self.cache.children.len());
        if !attaches_leading_comments(kind) {
            while start < self.cache.children.len() && is_trivia_element(&self.cache.children[start]) {
                start += 1;
            }
        }
        let node = GreenNode::new(rowan::SyntaxKind(kind.into()), self.cache.children.drain(start..));
        self.cache.children.push(NodeOrToken::Node(node));
        start
    }

    /// Consume `n_raw` significant tokens starting at the parser's token
    /// `sig`, as one tree token of `kind`.
    pub(crate) fn token(&mut self, sig: usize, kind: SyntaxKind, n_raw: usize) {
        let first = self.sig[sig].raw as usize;
        if self.raw_pos < first {
            self.flush_until(first);
        }
        let last = self.sig[sig + n_raw - 1].raw as usize;
        let text = &self.text[self.offsets[first] as usize..self.offsets[last + 1] as usize];
        self.push_token(kind, text);
        self.raw_pos = last + 1;
    }

    /// Everything left goes into the root node.
    pub(crate) fn finish_root(&mut self) {
        self.flush_until(self.tokens.len());
        self.root = Some(GreenNode::new(rowan::SyntaxKind(SOURCE_FILE.into()), self.cache.children.drain(..)));
    }

    #[inline]
    fn push_token(&mut self, kind: SyntaxKind, text: &'a str) {
        let token = if kind.has_static_text() {
            // Punctuation and keywords, the most common tokens.
            debug_assert_eq!(kind.static_text(), Some(text));
            match &self.cache.static_tokens[kind as usize] {
                Some(t) => t.clone(),
                None => self.cache.static_token(kind, text),
            }
        } else {
            self.cache.shared_token(kind, text)
        };
        self.cache.children.push(NodeOrToken::Token(token));
    }

    /// The raw index from which comments attach to a node whose first token
    /// is at raw index `next_sig`.
    fn attached_comments_start(&self, next_sig: usize) -> usize {
        let mut start = next_sig;
        let mut i = next_sig;
        while i > self.raw_pos {
            let j = i - 1;
            if self.roles[j] != Role::Code {
                break;
            }
            match self.tokens[j].kind {
                COMMENT => start = j,
                WHITESPACE => {
                    if self.raw_text(j).bytes().filter(|&b| b == b'\n').nth(1).is_some() {
                        break;
                    }
                }
                _ => break,
            }
            i = j;
        }
        start
    }

    fn raw_text(&self, i: usize) -> &'a str {
        &self.text[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    fn flush_until(&mut self, until: usize) {
        while self.raw_pos < until {
            let i = self.raw_pos;
            match self.roles[i] {
                Role::Code => {
                    // Trivia, or an empty macro the parser skipped, or (only
                    // if the parser gave up early) a token it did not consume.
                    let kind = self.tokens[i].kind;
                    self.push_token(kind, self.raw_text(i));
                    self.raw_pos += 1;
                }
                Role::Disabled => {
                    let mut j = i;
                    while j < until && self.roles[j] == Role::Disabled {
                        j += 1;
                    }
                    let text = &self.text[self.offsets[i] as usize..self.offsets[j] as usize];
                    self.push_token(DISABLED_TEXT, text);
                    self.raw_pos = j;
                }
                Role::Directive => {
                    let d = self.next_directive;
                    self.next_directive += 1;
                    self.directive(d);
                }
            }
        }
    }

    fn directive(&mut self, idx: usize) {
        let d = &self.directives[idx];
        let (start, end, name_tok, macro_name, params, rest, kind) =
            (d.start, d.end, d.name_tok, d.macro_name, d.params, d.rest, d.kind);
        let node_start = self.cache.children.len();
        let mut i = start;
        // `#`, the directive name, and the macro name.
        let head_end = macro_name.unwrap_or(name_tok.map_or(start + 1, |n| n + 1));
        while i < head_end.min(end) {
            self.push_raw(i);
            i += 1;
        }
        if let Some(m) = macro_name {
            let at = self.cache.children.len();
            self.push_token(IDENT, self.raw_text(m));
            if kind == PP_DEFINE {
                self.wrap(at, NAME);
            }
            i = m + 1;
        }
        if let Some((ps, pe)) = params {
            let at = self.cache.children.len();
            for j in ps..pe {
                self.push_raw(j);
            }
            self.wrap(at, PP_MACRO_PARAMS);
            i = pe;
        }
        let _ = rest;
        // Leading whitespace stays outside the body/condition node.
        while i < end && self.tokens[i].kind == WHITESPACE {
            self.push_raw(i);
            i += 1;
        }
        let wrap = match kind {
            PP_DEFINE => Some(PP_BODY),
            PP_IF | PP_ELIF => Some(PP_CONDITION),
            _ => None,
        };
        if i < end {
            // Trailing whitespace stays outside too.
            let mut body_end = end;
            while body_end > i && self.tokens[body_end - 1].kind == WHITESPACE {
                body_end -= 1;
            }
            let at = self.cache.children.len();
            for j in i..body_end {
                self.push_raw(j);
            }
            if let Some(w) = wrap {
                self.wrap(at, w);
            }
            for j in body_end..end {
                self.push_raw(j);
            }
        }
        self.wrap(node_start, kind);
        self.raw_pos = end;
    }

    fn push_raw(&mut self, i: usize) {
        let kind = self.tokens[i].kind;
        self.push_token(kind, self.raw_text(i));
    }

    fn wrap(&mut self, at: usize, kind: SyntaxKind) {
        let node = GreenNode::new(rowan::SyntaxKind(kind.into()), self.cache.children.drain(at..));
        self.cache.children.push(NodeOrToken::Node(node));
    }
}
