//! Hover and go-to-definition on a macro's use: both land on its
//! `#define`. Unlike the other IDE features these take and give offsets of
//! the files' own text (a macro's name is not in the expanded text).

use slang_syntax::ast::AstNode;
use slang_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};

use super::{HoverResult, NavTarget};
use crate::{Db, SourceFile};

/// The `#define` of the macro used at `offset` (of `file`'s text): in the
/// file before the use, else in the files of its module (`#include`d).
pub fn macro_definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<NavTarget> {
    let (name, _) = macro_use_at(db, file, offset)?;
    find_define(db, file, &name, Some(offset))
        .or_else(|| {
            crate::module_graph::module_of(db, file)
                .iter()
                .filter(|&&f| f != file)
                .find_map(|&f| find_define(db, f, &name, None))
        })
        .map(|(f, node, focus)| NavTarget { file: f, full_range: node.text_range(), focus_range: focus, name })
}

/// The macro's definition and what this use expands to.
pub fn macro_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let (name, range) = macro_use_at(db, file, offset)?;
    let e = crate::expansion::expansion(db, file).clone()?;
    let u = e.use_at_source(offset)?;
    let mut md = String::new();
    if let Some(t) = macro_definition(db, file, offset) {
        let def = t.file.text(db)[t.full_range].trim_end().to_string();
        md.push_str(&format!("```slang\n{def}\n```\n"));
    } else {
        md.push_str(&format!("macro `{name}` (predefined)\n"));
    }
    let expanded = e.text[u.expanded].trim();
    if !expanded.is_empty() {
        md.push_str(&format!("\nExpands to:\n```slang\n{expanded}\n```\n"));
    } else {
        md.push_str("\nExpands to nothing.\n");
    }
    Some(HoverResult { range, markdown: md })
}

/// The name and its range, when `offset` is on the name of a macro's use.
fn macro_use_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(String, TextRange)> {
    let e = crate::expansion::expansion(db, file).as_ref()?;
    let i = e.uses.partition_point(|u| u.name_range.end() < offset);
    let u = e.uses.get(i).filter(|u| u.name_range.contains_inclusive(offset))?;
    Some((u.name.clone(), u.name_range))
}

/// The last active `#define NAME` of `file` (before `before`).
fn find_define(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    before: Option<TextSize>,
) -> Option<(SourceFile, SyntaxNode, TextRange)> {
    let parse = crate::source_parse(db, file);
    let mut found = None;
    for node in parse.syntax_node().descendants().filter(|n| n.kind() == SyntaxKind::PP_DEFINE) {
        if before.is_some_and(|b| node.text_range().start() > b) || !parse.is_active(node.text_range().start()) {
            continue;
        }
        let Some(n) = slang_syntax::ast::PpDefine::cast(node.clone()).and_then(|d| d.name()) else {
            continue;
        };
        if n.syntax().text() == name {
            found = Some((file, node.clone(), n.syntax().text_range()));
        }
    }
    found
}
