//! The three parses of a file and the macro expansion between them.
//!
//! * [`raw_parse`]: the text with the workspace's defines only; it says
//!   which macros the file defines and which files it `#include`s.
//! * [`source_parse`]: the lossless tree of what the user wrote, with the
//!   macros of the `#include`d files known (so `#if` conditions that use
//!   them are decided right). Syntax-level features (folding, formatting,
//!   selection) read it.
//! * [`parse`]: the tree of the *expanded* text
//!   ([`slang_syntax::macro_expand`]): every macro use replaced by its
//!   expansion. Everything semantic reads it: item trees, HIR, inference,
//!   diagnostics, IDE features. Its offsets are those of the expanded
//!   text; [`to_source_range`] and [`to_expanded_offset`] convert at the
//!   edges (the server's and the CLI's conversions to lines and columns).
//!   A file that uses no macro has no expansion: the three trees are one.

use std::collections::HashSet;
use std::sync::Arc;

use slang_syntax::macros::{DefineLine, MacroDef};
use slang_syntax::{Expansion, IncludedMacros, ParseOptions, SyntaxKind, SyntaxNode, TextRange, TextSize};

use crate::db::CachedExpansion;
use crate::import_paths::{files_by_path, import_candidates, Import, ImportKind};
use crate::{Db, RootDatabase, SourceFile, Workspace};

/// The parse with the workspace's defines only.
// `no_eq`: a new text always gives a new tree, and comparing trees
// walks them (most of the file, for an edit near its end).
#[salsa::tracked(returns(ref), no_eq)]
pub fn raw_parse(db: &dyn Db, file: SourceFile) -> slang_syntax::Parse {
    let defines = Workspace::get(db).defines(db);
    if defines.is_empty() && crate::core_module::is_core_path(file.path(db)) {
        if let Some(p) = crate::core_module::cached_parse(file.path(db), file.text(db)) {
            return p;
        }
    }
    db.reparse_cache().parse(0, file, file.text(db), &ParseOptions::with_defines(defines.clone()))
}

/// What the file does to the macros, in order (from [`raw_parse`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum MacroEvent {
    Define(String, Arc<MacroDef>),
    Undef(String),
    /// `#include`: the name as written, and the file it names.
    Include(String, Option<SourceFile>),
}

#[salsa::tracked(returns(ref))]
fn macro_events(db: &dyn Db, file: SourceFile) -> Vec<MacroEvent> {
    if crate::core_module::is_core_path(file.path(db)) {
        return Vec::new();
    }
    let parse = raw_parse(db, file);
    let mut out = Vec::new();
    for node in directive_nodes(&parse.syntax_node(), file.text(db)) {
        if !matches!(node.kind(), SyntaxKind::PP_DEFINE | SyntaxKind::PP_UNDEF | SyntaxKind::PP_INCLUDE)
            || !parse.is_active(node.text_range().start())
        {
            continue;
        }
        let line = node.text().to_string();
        if node.kind() == SyntaxKind::PP_INCLUDE {
            let rest = line.trim_start().trim_start_matches('#').trim_start();
            if let Some(spelling) = rest.strip_prefix("include").and_then(slang_syntax::preprocessor::include_spelling)
            {
                let import = Import {
                    kind: ImportKind::PpInclude,
                    target: spelling.to_string(),
                    is_path: true,
                    exported: false,
                    range: node.text_range(),
                };
                let by_path = files_by_path(db);
                let target = import_candidates(db, file, &import).iter().find_map(|p| by_path.get(p).copied());
                out.push(MacroEvent::Include(spelling.to_string(), target));
            }
            continue;
        }
        match slang_syntax::macros::parse_define_line(&line) {
            Some(DefineLine::Define(n, d)) => out.push(MacroEvent::Define(n, Arc::new(d))),
            Some(DefineLine::Undef(n)) => out.push(MacroEvent::Undef(n)),
            None => {}
        }
    }
    out
}

/// The preprocessor-directive nodes of a tree, in order: found from the
/// lines of `text` (the tree's text) that start with `#`, so that an edit
/// does not walk the whole tree. A `#` line that is not a directive (in a
/// comment, or a continued `#define`) finds no new directive node.
fn directive_nodes(root: &SyntaxNode, text: &str) -> Vec<SyntaxNode> {
    let mut out: Vec<SyntaxNode> = Vec::new();
    let mut line_start = 0usize;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if !line[indent..].starts_with('#') {
            continue;
        }
        let offset = TextSize::new((start + indent) as u32);
        let Some(token) = root.token_at_offset(offset).right_biased() else { continue };
        let Some(node) = token.parent_ancestors().find(|n| n.kind().is_pp_directive()) else { continue };
        if out.last().is_none_or(|last| last.text_range().start() < node.text_range().start()) {
            out.push(node);
        }
    }
    out
}

/// The macro definitions `file` leaves behind, its own `#include`s
/// followed (each file once).
fn collect_effects(
    db: &dyn Db,
    file: SourceFile,
    visited: &mut Vec<SourceFile>,
    out: &mut Vec<(String, Option<Arc<MacroDef>>)>,
) {
    if visited.contains(&file) {
        return;
    }
    visited.push(file);
    for e in macro_events(db, file) {
        match e {
            MacroEvent::Define(n, d) => out.push((n.clone(), Some(d.clone()))),
            MacroEvent::Undef(n) => out.push((n.clone(), None)),
            MacroEvent::Include(_, Some(t)) => collect_effects(db, *t, visited, out),
            MacroEvent::Include(_, None) => {}
        }
    }
}

/// The options a file is parsed with: the workspace's defines and the
/// macros of the files it `#include`s.
#[salsa::tracked(returns(ref))]
pub fn parse_options(db: &dyn Db, file: SourceFile) -> ParseOptions {
    let mut options = ParseOptions::with_defines(Workspace::get(db).defines(db).clone());
    for e in macro_events(db, file) {
        if let MacroEvent::Include(spelling, Some(target)) = e {
            let mut effects = Vec::new();
            collect_effects(db, *target, &mut vec![file], &mut effects);
            if !effects.is_empty() && !options.includes.iter().any(|(s, _)| s == spelling) {
                let effects: IncludedMacros = Arc::new(effects);
                options.includes.push((spelling.clone(), effects));
            }
        }
    }
    options
}

/// The tree the semantic model reads: the file with its macros expanded
/// (see the module's docs; for a file that uses no macro, the tree of its
/// text). A query: re-parses only when the text, the predefined macros or
/// the macros of included files change.
// `no_eq`: a new text always gives a new tree, and comparing trees
// walks them (most of the file, for an edit near its end).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse(db: &dyn Db, file: SourceFile) -> slang_syntax::Parse {
    expanded_parse(db, file)
}

/// The lossless tree of the file as written (see the module's docs).
// `no_eq`: a new text always gives a new tree, and comparing trees
// walks them (most of the file, for an edit near its end).
#[salsa::tracked(returns(ref), no_eq)]
pub fn source_parse(db: &dyn Db, file: SourceFile) -> slang_syntax::Parse {
    let options = parse_options(db, file);
    if options.includes.is_empty() {
        return raw_parse(db, file).clone();
    }
    db.reparse_cache().parse(1, file, file.text(db), options)
}

/// The file's text with its macro uses expanded, and the map between the
/// two texts; `None` when the file uses no macro.
#[salsa::tracked(returns(ref))]
pub fn expansion(db: &dyn Db, file: SourceFile) -> Option<Arc<Expansion>> {
    if crate::core_module::is_core_path(file.path(db)) {
        return None;
    }
    let (text, parse, options) = (file.text(db), source_parse(db, file), parse_options(db, file));
    let cache = &db.reparse_cache().expansions;
    let previous = cache.lock().unwrap().get(&file).cloned();
    let expansion = previous
        .and_then(|p| p.after_edit(text, parse, options))
        .unwrap_or_else(|| slang_syntax::macro_expand::expand_file(text, parse, options).map(Arc::new));
    cache.lock().unwrap().insert(
        file,
        CachedExpansion {
            text: text.as_str().into(),
            parse: parse.clone(),
            options: options.clone(),
            expansion: expansion.clone(),
        },
    );
    expansion
}

impl RootDatabase {
    /// For code generation: when `file` uses macros, a database like this
    /// one (same files, search paths and defines) in which `file`'s text is
    /// its expanded text (this module's; the semantic trees are the
    /// same, and offsets are those of the text), and the file in it; `None`
    /// when there is nothing to expand.
    pub fn with_macros_expanded(&self, file: SourceFile) -> Option<(RootDatabase, SourceFile)> {
        let expanded = expansion(self, file).as_ref()?.text.clone();
        Some(self.with_file_text(file, &expanded))
    }
}

impl CachedExpansion {
    /// The expansion of `text` (parsed as `parse` with `options`) made from
    /// this one by copying the edit, when the edit is certainly no business
    /// of the macros: it changes only plain tokens (names that are no
    /// macro's, numbers, operators, spaces) outside every macro use and
    /// directive, after no macro's name, on lines without `#` or `\`, and
    /// no parenthesis, bracket or comma (which could complete a use).
    /// Then the expanded text is the old one with the same edit (text
    /// outside uses is copied as it is), and the uses after it move.
    /// `None`: expand the file again.
    fn after_edit(
        &self,
        text: &str,
        parse: &slang_syntax::Parse,
        options: &ParseOptions,
    ) -> Option<Option<Arc<Expansion>>> {
        if self.options != *options {
            return None;
        }
        let (old, new) = (self.text.as_bytes(), text.as_bytes());
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let max_suffix = old.len().min(new.len()) - prefix;
        let suffix = old.iter().rev().zip(new.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
        let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
        if old_end == prefix && new_end == prefix {
            return Some(self.expansion.clone());
        }
        // ASCII around the edit (so that every offset used is a character
        // boundary), on lines without `#` or `\`.
        let line = |t: &[u8], start: usize, end: usize| {
            let from = t[..start].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            let to = t[end..].iter().position(|&c| c == b'\n').map_or(t.len(), |i| end + i);
            (from, to)
        };
        for (t, end) in [(old, old_end), (new, new_end)] {
            let (from, to) = line(t, prefix, end);
            if t[from..to].iter().any(|&c| !c.is_ascii() || c == b'#' || c == b'\\') {
                return None;
            }
        }
        let size = |n: usize| TextSize::from(n as u32);
        let window = |len: usize, end: usize| TextRange::new(size(prefix.saturating_sub(1)), size((end + 1).min(len)));
        let mut names = macro_names(&self.parse, options);
        names.extend(macro_names(parse, options));
        let old_window = window(old.len(), old_end);
        if !plain_tokens(&self.parse.syntax_node(), old_window, &names)
            || !plain_tokens(&parse.syntax_node(), window(new.len(), new_end), &names)
        {
            return None;
        }
        let Some(e) = &self.expansion else { return Some(None) };
        // No use touches the edit; the text between the uses around it is
        // copied as it is.
        let after = e.uses.partition_point(|u| u.source.end() < old_window.start());
        if e.uses.get(after).is_some_and(|u| u.source.start() <= old_window.end()) {
            return None;
        }
        let expanded_end = match e.uses.get(after) {
            Some(u) => u.source.start().checked_sub(size(old_end)).and_then(|d| u.expanded.start().checked_sub(d))?,
            None => size(e.text.len()).checked_sub(size(old.len() - old_end))?,
        };
        let expanded_start = expanded_end.checked_sub(size(old_end - prefix))?;
        let (expanded_start, expanded_end) = (usize::from(expanded_start), usize::from(expanded_end));
        if e.text.get(expanded_start..expanded_end) != self.text.get(prefix..old_end) {
            return None;
        }
        let mut out = String::with_capacity(e.text.len() + new_end - prefix);
        out.push_str(&e.text[..expanded_start]);
        out.push_str(&text[prefix..new_end]);
        out.push_str(&e.text[expanded_end..]);
        let grow = |r: TextRange| -> TextRange {
            let (start, end) = (u32::from(r.start()) as i64, u32::from(r.end()) as i64);
            let d = new_end as i64 - old_end as i64;
            TextRange::new(TextSize::from((start + d) as u32), TextSize::from((end + d) as u32))
        };
        let uses = e
            .uses
            .iter()
            .enumerate()
            .map(|(i, u)| {
                if i < after {
                    return u.clone();
                }
                slang_syntax::MacroUse {
                    name: u.name.clone(),
                    name_range: grow(u.name_range),
                    source: grow(u.source),
                    expanded: grow(u.expanded),
                    arg_tokens: u.arg_tokens.iter().map(|&r| grow(r)).collect(),
                }
            })
            .collect();
        Some(Some(Arc::new(Expansion { text: out, uses })))
    }
}

/// Every name a macro may have in a file: its own `#define`s, `-D`, the
/// built-in ones and those of the files it includes.
fn macro_names(parse: &slang_syntax::Parse, options: &ParseOptions) -> HashSet<String> {
    let m = parse.macros();
    let mut names: HashSet<String> = m.function_like.iter().chain(&m.object_like).cloned().collect();
    names.extend(options.initial_macros().into_keys());
    for (_, effects) in &options.includes {
        names.extend(effects.iter().map(|(n, _)| n.clone()));
    }
    names
}

/// Whether every token touching `window` is plain code that expansion
/// copies as it is whatever is around it, and so is the code token before
/// them (a function-like macro's name there could take a `(` after the
/// edit as its use's).
fn plain_tokens(root: &slang_syntax::SyntaxNode, window: TextRange, names: &HashSet<String>) -> bool {
    let named = |t: &slang_syntax::SyntaxToken| names.contains(t.text());
    let mut first = None;
    let covering = match root.covering_element(window) {
        slang_syntax::NodeOrToken::Node(n) => n,
        slang_syntax::NodeOrToken::Token(t) => match t.parent() {
            Some(p) => p,
            None => return false,
        },
    };
    for t in covering.descendants_with_tokens().filter_map(|e| e.into_token()) {
        let r = t.text_range();
        if r.end() <= window.start() || r.start() >= window.end() {
            continue;
        }
        first.get_or_insert_with(|| t.clone());
        let text = t.text();
        let plain = match t.kind() {
            SyntaxKind::WHITESPACE => !text.contains(['\n', '\r']),
            SyntaxKind::INT_NUMBER | SyntaxKind::FLOAT_NUMBER => true,
            SyntaxKind::COMMENT | SyntaxKind::DISABLED_TEXT => false,
            _ if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => !named(&t),
            _ => text.chars().all(|c| "+-*/%=<>!&|^~?:;.".contains(c)),
        };
        if !plain || t.parent_ancestors().any(|n| n.kind().is_pp_directive()) {
            return false;
        }
    }
    let Some(first) = first else { return false };
    let mut before = first.prev_token();
    while let Some(t) = before.as_ref().filter(|t| t.kind().is_trivia()) {
        before = t.prev_token();
    }
    !before.is_some_and(|t| named(&t))
}

/// The tree the semantic model reads: of the expanded text.
pub(crate) fn expanded_parse(db: &dyn Db, file: SourceFile) -> slang_syntax::Parse {
    match expansion(db, file) {
        Some(e) => db.reparse_cache().parse(2, file, &e.text, parse_options(db, file)),
        None => source_parse(db, file).clone(),
    }
}

/// A range of the semantic tree ([`crate::parse`]) as a range of the
/// file's text.
pub fn to_source_range(db: &dyn Db, file: SourceFile, range: TextRange) -> TextRange {
    match expansion(db, file) {
        Some(e) => e.to_source(file.text(db), range),
        None => range,
    }
}

/// An offset of the file's text as an offset of the semantic tree.
pub fn to_expanded_offset(db: &dyn Db, file: SourceFile, offset: TextSize) -> TextSize {
    match expansion(db, file) {
        Some(e) => e.to_expanded(file.text(db), offset),
        None => offset,
    }
}

/// A range of the file's text as a range of the semantic tree.
pub fn to_expanded_range(db: &dyn Db, file: SourceFile, range: TextRange) -> TextRange {
    match expansion(db, file) {
        Some(e) => {
            let start = e.to_expanded(file.text(db), range.start());
            let end = e.to_expanded(file.text(db), range.end()).max(start);
            TextRange::new(start, end)
        }
        None => range,
    }
}

/// The macro use a range of the semantic tree comes from, if it lies in
/// one's expansion: for diagnostics to say which macro.
pub fn macro_use_at(db: &dyn Db, file: SourceFile, range: TextRange) -> Option<slang_syntax::MacroUse> {
    expansion(db, file).as_ref()?.use_at_expanded(range).cloned()
}

/// The text the semantic tree ([`crate::parse`]) is the tree of: the
/// expanded text, or the file's own when it uses no macro. Offsets of IDE
/// features index it.
pub fn semantic_text(db: &dyn Db, file: SourceFile) -> &str {
    match expansion(db, file) {
        Some(e) => e.text.as_str(),
        None => file.text(db).as_str(),
    }
}
