//! The three parses of a file and the macro expansion between them.
//!
//! * [`raw_parse`]: the text with the workspace's defines only; it says
//!   which macros the file defines and which files it `#include`s.
//! * [`source_parse`]: the lossless tree of what the user wrote, with the
//!   macros of the `#include`d files known (so `#if` conditions that use
//!   them are decided right). Syntax-level features (folding, formatting,
//!   selection) read it.
//! * [`parse`](crate::parse): the tree of the *expanded* text
//!   ([`slang_syntax::macro_expand`]): every macro use replaced by its
//!   expansion. Everything semantic reads it: item trees, HIR, inference,
//!   diagnostics, IDE features. Its offsets are those of the expanded
//!   text; [`to_source_range`] and [`to_expanded_offset`] convert at the
//!   edges (the server's and the CLI's conversions to lines and columns).
//!   A file that uses no macro has no expansion: the three trees are one.

use std::sync::Arc;

use slang_syntax::macros::{DefineLine, MacroDef};
use slang_syntax::{Expansion, IncludedMacros, ParseOptions, SyntaxKind, TextRange, TextSize};

use crate::module_graph::{import_candidates, Import, ImportKind};
use crate::{Db, SourceFile, Workspace};

/// The parse with the workspace's defines only.
#[salsa::tracked(returns(ref))]
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
    for node in parse.syntax_node().descendants() {
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
                let by_path = crate::module_graph::files_by_path(db);
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

/// The lossless tree of the file as written (see the module's docs).
#[salsa::tracked(returns(ref))]
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
    slang_syntax::macro_expand::expand_file(file.text(db), source_parse(db, file), parse_options(db, file))
        .map(Arc::new)
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
