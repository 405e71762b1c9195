//! Events + raw tokens → a lossless rowan tree.
//!
//! Trivia (whitespace, comments), directive lines and disabled text are
//! placed between the parser's tokens. Comments directly before a
//! declaration (no blank line between) go inside the declaration's node, so
//! doc comments belong to what they document.

use rowan::GreenNodeBuilder;
use text_size::{TextRange, TextSize};

use crate::lexer::{lex, Token};
use crate::parser::{parse_source_file, Event, Input};
use crate::preprocessor::{self, Directive, Role};
use crate::SyntaxKind::{self, *};
use crate::{ErrorSource, Parse, ParseOptions, SyntaxError};

pub(crate) fn parse_text(text: &str, options: &ParseOptions) -> Parse {
    let lexed = lex(text);
    let tokens = lexed.tokens;
    let mut offsets = Vec::with_capacity(tokens.len() + 1);
    let mut pos = 0u32;
    for t in &tokens {
        offsets.push(pos);
        pos += t.len;
    }
    offsets.push(pos);

    let pp = preprocessor::process(text, &tokens, &offsets, options);

    // The parser's view: significant tokens of active code.
    let mut sig_to_raw = Vec::with_capacity(tokens.len() / 2);
    let mut input = Input {
        text,
        kinds: Vec::with_capacity(tokens.len() / 2),
        contextual: Vec::with_capacity(tokens.len() / 2),
        starts: Vec::with_capacity(tokens.len() / 2),
        ends: Vec::with_capacity(tokens.len() / 2),
        joint: Vec::with_capacity(tokens.len() / 2),
        line_start: Vec::with_capacity(tokens.len() / 2),
        col0: Vec::with_capacity(tokens.len() / 2),
        macros: &pp.macros,
    };
    let mut joint = false;
    let mut line_start = true;
    let mut col0 = true;
    for (i, t) in tokens.iter().enumerate() {
        let role = pp.roles[i];
        let empty_macro = t.kind == IDENT
            && !pp.macros.empty.is_empty()
            && pp
                .macros
                .is_empty_macro(&text[offsets[i] as usize..offsets[i + 1] as usize]);
        if role != Role::Code || t.kind.is_trivia() || empty_macro {
            joint = false;
            if t.kind == WHITESPACE || role != Role::Code {
                let s = &text[offsets[i] as usize..offsets[i + 1] as usize];
                if let Some(nl) = s.rfind(['\n', '\r']) {
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
        sig_to_raw.push(i);
        input.kinds.push(t.kind);
        input.contextual.push(t.contextual);
        input.starts.push(offsets[i]);
        input.ends.push(offsets[i + 1]);
        input.joint.push(joint);
        input.line_start.push(line_start);
        input.col0.push(line_start && col0);
        joint = true;
        line_start = false;
        col0 = false;
    }

    let (events, parse_errors) = parse_source_file(&input);

    let mut builder = Builder {
        text,
        tokens: &tokens,
        offsets: &offsets,
        roles: &pp.roles,
        directives: &pp.directives,
        sig_to_raw: &sig_to_raw,
        raw_pos: 0,
        sig_pos: 0,
        inner: GreenNodeBuilder::new(),
        depth: 0,
    };
    builder.run(events);
    let green = builder.inner.finish();

    let mut errors: Vec<SyntaxError> =
        Vec::with_capacity(lexed.errors.len() + pp.errors.len() + parse_errors.len());
    errors.extend(lexed.errors.into_iter().map(|e| SyntaxError {
        range: TextRange::at(TextSize::new(e.offset), TextSize::new(e.len)),
        message: e.message,
        source: ErrorSource::Lexer,
    }));
    errors.extend(pp.errors.into_iter().map(|e| SyntaxError {
        range: e.range,
        message: e.message,
        source: ErrorSource::Preprocessor,
    }));
    errors.extend(parse_errors.into_iter().map(|e| SyntaxError {
        range: e.range,
        message: e.message,
        source: ErrorSource::Parser,
    }));
    errors.sort_by_key(|e| e.range.start());

    Parse {
        green,
        errors,
        branches: pp.branches,
        macros: pp.macros,
    }
}

struct Builder<'a> {
    text: &'a str,
    tokens: &'a [Token],
    offsets: &'a [u32],
    roles: &'a [Role],
    directives: &'a [Directive],
    sig_to_raw: &'a [usize],
    raw_pos: usize,
    sig_pos: usize,
    inner: GreenNodeBuilder<'static>,
    depth: usize,
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

impl<'a> Builder<'a> {
    fn run(&mut self, mut events: Vec<Event>) {
        let mut forward_parents = Vec::new();
        for i in 0..events.len() {
            match std::mem::replace(&mut events[i], Event::Tombstone) {
                Event::Start {
                    kind,
                    forward_parent,
                } => {
                    // Collect the chain of nodes that `precede` this one and
                    // start them outermost first.
                    forward_parents.push(kind);
                    let mut idx = i;
                    let mut fp = forward_parent;
                    while let Some(delta) = fp {
                        idx += delta as usize;
                        fp = match std::mem::replace(&mut events[idx], Event::Tombstone) {
                            Event::Start {
                                kind,
                                forward_parent,
                            } => {
                                forward_parents.push(kind);
                                forward_parent
                            }
                            _ => None,
                        };
                    }
                    for kind in forward_parents.drain(..).rev() {
                        self.start_node(kind);
                    }
                }
                Event::Finish => self.finish_node(),
                Event::Token { kind, n_raw } => self.token(kind, n_raw as usize),
                Event::Tombstone => {}
            }
        }
    }

    fn start_node(&mut self, kind: SyntaxKind) {
        if self.depth > 0 {
            let next_sig = self
                .sig_to_raw
                .get(self.sig_pos)
                .copied()
                .unwrap_or(self.tokens.len());
            let until = if attaches_leading_comments(kind) {
                self.attached_comments_start(next_sig)
            } else {
                next_sig
            };
            self.flush_until(until);
        }
        self.inner.start_node(rowan::SyntaxKind(kind.into()));
        self.depth += 1;
    }

    fn finish_node(&mut self) {
        if self.depth == 1 {
            // Root: everything left (trailing trivia, directives) goes in.
            self.flush_until(self.tokens.len());
        }
        self.inner.finish_node();
        self.depth -= 1;
    }

    fn token(&mut self, kind: SyntaxKind, n_raw: usize) {
        let first = self.sig_to_raw[self.sig_pos];
        self.flush_until(first);
        let last = self.sig_to_raw[self.sig_pos + n_raw - 1];
        let text = &self.text[self.offsets[first] as usize..self.offsets[last + 1] as usize];
        self.inner.token(rowan::SyntaxKind(kind.into()), text);
        self.sig_pos += n_raw;
        self.raw_pos = last + 1;
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
                    let s = self.raw_text(j);
                    if s.matches('\n').count() > 1 {
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
                    // Trivia, or (only if the parser gave up early) a
                    // significant token it did not consume.
                    let kind = self.tokens[i].kind;
                    self.inner
                        .token(rowan::SyntaxKind(kind.into()), self.raw_text(i));
                    self.raw_pos += 1;
                }
                Role::Disabled => {
                    let mut j = i;
                    while j < until && self.roles[j] == Role::Disabled {
                        j += 1;
                    }
                    let text = &self.text[self.offsets[i] as usize..self.offsets[j] as usize];
                    self.inner
                        .token(rowan::SyntaxKind(DISABLED_TEXT.into()), text);
                    self.raw_pos = j;
                }
                Role::Directive(d) => {
                    self.directive(d as usize);
                }
            }
        }
    }

    fn directive(&mut self, idx: usize) {
        let d = &self.directives[idx];
        let tok = |b: &mut Self, i: usize| {
            let kind = b.tokens[i].kind;
            b.inner.token(rowan::SyntaxKind(kind.into()), b.raw_text(i));
        };
        self.inner.start_node(rowan::SyntaxKind(d.kind.into()));
        let mut i = d.start;
        // `#`, the directive name, and the macro name.
        let head_end = d
            .macro_name
            .map_or(d.name_tok.map_or(d.start + 1, |n| n + 1), |m| m);
        while i < head_end.min(d.end) {
            tok(self, i);
            i += 1;
        }
        if let Some(m) = d.macro_name {
            let node = if d.kind == PP_DEFINE { NAME } else { NAME_REF };
            self.inner.start_node(rowan::SyntaxKind(node.into()));
            self.inner
                .token(rowan::SyntaxKind(IDENT.into()), self.raw_text(m));
            self.inner.finish_node();
            i = m + 1;
        }
        if let Some((ps, pe)) = d.params {
            self.inner
                .start_node(rowan::SyntaxKind(PP_MACRO_PARAMS.into()));
            for j in ps..pe {
                tok(self, j);
            }
            self.inner.finish_node();
            i = pe;
        }
        // Leading whitespace stays outside the body/condition node.
        while i < d.end && self.tokens[i].kind == WHITESPACE {
            tok(self, i);
            i += 1;
        }
        let wrap = match d.kind {
            PP_DEFINE => Some(PP_BODY),
            PP_IF | PP_ELIF => Some(PP_CONDITION),
            _ => None,
        };
        if i < d.end {
            // Trailing whitespace stays outside too.
            let mut end = d.end;
            while end > i && self.tokens[end - 1].kind == WHITESPACE {
                end -= 1;
            }
            if let Some(w) = wrap {
                self.inner.start_node(rowan::SyntaxKind(w.into()));
            }
            for j in i..end {
                tok(self, j);
            }
            if wrap.is_some() {
                self.inner.finish_node();
            }
            for j in end..d.end {
                tok(self, j);
            }
        }
        self.inner.finish_node();
        self.raw_pos = d.end;
    }
}
