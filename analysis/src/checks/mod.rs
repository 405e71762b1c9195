//! Checks of declarations beside inference, each in a file named for what
//! it checks. They read the syntax and the module's scope, and stay quiet
//! where a name may mean something they cannot see (a macro, a generic
//! parameter, a member of an enclosing type).
//!
//! Each top-level declaration is checked on its own ([`decl_checks`], a
//! query over the declaration's position-free syntax, like inference): an
//! edit inside one function re-checks only that function. What a check
//! needs from the rest of the file (the file's structs) comes from small
//! queries of their own that stay equal after such an edit.

pub mod addressable;
pub mod attributes;
pub mod constraints;
pub mod entry_points;
pub mod placement;
pub mod ray_payload;
pub mod statements;
pub mod system_values;
pub mod type_args;

use std::collections::HashMap;

use slang_syntax::{SyntaxKind, SyntaxNode, TextRange};

use crate::diagnostic::Diagnostic;
use crate::hir::{DeclGreen, DefId};
use crate::name_res::GlobalScope;
use crate::{parse, Db, SourceFile};

/// The diagnostics of every check here, for `file`.
pub fn check_diagnostics(db: &dyn Db, file: SourceFile) -> impl Iterator<Item = Diagnostic> + '_ {
    file_checks(db, file).iter().cloned()
}

/// What the checks found in a declaration (or the file), one list per
/// check, each in the order of the syntax.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Found {
    pub placement: Vec<Diagnostic>,
    pub addressable: Vec<Diagnostic>,
    pub entry_points: Vec<Diagnostic>,
    pub constraints: Vec<Diagnostic>,
    pub type_args: Vec<Diagnostic>,
    pub attributes: Vec<Diagnostic>,
    pub statements: Vec<Diagnostic>,
    pub system_values: Vec<Diagnostic>,
    pub ray_payload: Vec<Diagnostic>,
}

impl Found {
    fn lists_mut(&mut self) -> [&mut Vec<Diagnostic>; 9] {
        [
            &mut self.placement,
            &mut self.addressable,
            &mut self.entry_points,
            &mut self.constraints,
            &mut self.type_args,
            &mut self.attributes,
            &mut self.statements,
            &mut self.system_values,
            &mut self.ray_payload,
        ]
    }

    fn lists(&self) -> [&Vec<Diagnostic>; 9] {
        [
            &self.placement,
            &self.addressable,
            &self.entry_points,
            &self.constraints,
            &self.type_args,
            &self.attributes,
            &self.statements,
            &self.system_values,
            &self.ray_payload,
        ]
    }

    /// Appends `other`'s diagnostics, moved by `shift`.
    fn extend_shifted(&mut self, other: &Found, shift: slang_syntax::TextSize) {
        for (mine, theirs) in self.lists_mut().into_iter().zip(other.lists()) {
            mine.extend(theirs.iter().map(|d| Diagnostic { range: d.range + shift, ..d.clone() }));
        }
    }
}

/// What every check reads beside the syntax it checks.
pub(crate) struct Cx<'db> {
    pub db: &'db dyn Db,
    pub file: SourceFile,
    /// GLSL-flavoured files follow other rules: most checks stay quiet.
    pub glsl: bool,
    pub scope: &'db GlobalScope,
}

impl<'db> Cx<'db> {
    fn new(db: &'db dyn Db, file: SourceFile) -> Self {
        Cx { db, file, glsl: *crate::name_res::is_glsl_file(db, file), scope: crate::name_res::global_scope(db, file) }
    }
}

/// The kind of a node's parent. A node without one is the root of a
/// top-level declaration's own tree (see [`crate::hir::decl_syntax`]):
/// its parent is the file.
pub(crate) fn parent_kind(node: &SyntaxNode) -> SyntaxKind {
    node.parent().map_or(SyntaxKind::SOURCE_FILE, |p| p.kind())
}

/// Runs every check on `node` (a top-level declaration, on its own or in
/// the file's tree) and what it contains.
fn check_subtree(cx: &Cx, node: &SyntaxNode, found: &mut Found) {
    placement::check(cx, node, &mut found.placement);
    addressable::check(cx, node, &mut found.addressable);
    entry_points::check(cx, node, &mut found.entry_points);
    constraints::check(cx, node, &mut found.constraints);
    type_args::check(cx, node, &mut found.type_args);
    attributes::check(cx, node, &mut found.attributes);
    statements::check(cx, node, &mut found.statements);
    system_values::check(cx, node, &mut found.system_values);
    ray_payload::check(cx, node, &mut found.ray_payload);
}

/// The checks of one top-level declaration, at offsets from its start.
/// Reads the declaration's syntax only through [`crate::hir::decl_green`]
/// (equal after an edit elsewhere) and the file-level facts below, so it
/// is not re-run when another declaration is edited.
#[salsa::tracked(returns(ref))]
pub fn decl_checks(db: &dyn Db, def: DefId) -> Found {
    let mut found = Found::default();
    if let Some(node) = crate::hir::decl_syntax(db, def) {
        check_subtree(&Cx::new(db, def.file(db)), &node, &mut found);
    }
    found
}

/// The file's top-level declarations checked on their own (by
/// [`decl_checks`]): range to kind and `ast_index`. `None` when the file's top
/// level holds a list or block (error recovery), whose names the checks
/// look at from everywhere: then the whole file is checked at once.
pub(crate) fn top_level_decls(db: &dyn Db, file: SourceFile) -> Option<HashMap<TextRange, (SyntaxKind, u32)>> {
    let root = parse(db, file).syntax_node();
    if root
        .children()
        .any(|c| matches!(c.kind(), SyntaxKind::BLOCK | SyntaxKind::MEMBER_LIST | SyntaxKind::GENERIC_PARAM_LIST))
    {
        return None;
    }
    let map = crate::item_tree::item_source_map(db, file);
    Some(
        crate::item_tree::item_tree(db, file)
            .items
            .iter()
            .filter_map(|i| {
                let ptr = map.get(i.ast_index as usize)?;
                // A variable's items are its declarators, not the
                // declaration: checked with the file.
                (ptr.kind() != SyntaxKind::VAR_DECL && ptr.kind() != SyntaxKind::DECLARATOR)
                    .then(|| (ptr.text_range(), (ptr.kind(), i.ast_index)))
            })
            .collect(),
    )
}

/// The diagnostics of every check, in the order of the checks and, within
/// each, of the syntax.
#[salsa::tracked(returns(ref))]
fn file_checks(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parse = parse(db, file);
    let root = parse.syntax_node();
    let cx = Cx::new(db, file);
    let top = top_level_decls(db, file);
    let mut found = Found::default();
    // (Struct fields that entry points use: found over the file.)
    system_values::check_struct_fields(&cx, &root, &mut found.system_values);
    let Some(top) = top else {
        for child in root.children() {
            check_subtree(&cx, &child, &mut found);
        }
        return found.into_list();
    };
    for child in root.children() {
        // What the declaration's own tree cannot see: its next sibling.
        placement::check_top_level(&cx, &child, &mut found.placement);
        let start = child.text_range().start();
        match top.get(&child.text_range()).filter(|(kind, _)| *kind == child.kind()) {
            Some(&(_, index)) => found.extend_shifted(decl_checks(db, DefId::new(db, file, index)), start),
            None => {
                // (On a tree of its own too, so that looking around a
                // node stops at the declaration, as in `decl_checks`.)
                let mut own = Found::default();
                check_subtree(&cx, &SyntaxNode::new_root(child.green().into_owned()), &mut own);
                found.extend_shifted(&own, start);
            }
        }
    }
    found.into_list()
}

impl Found {
    /// The diagnostics in the order of the checks.
    fn into_list(self) -> Vec<Diagnostic> {
        let Found {
            placement,
            addressable,
            entry_points,
            constraints,
            type_args,
            attributes,
            statements,
            system_values,
            ray_payload,
        } = self;
        placement
            .into_iter()
            .chain(addressable)
            .chain(entry_points)
            .chain(constraints)
            .chain(type_args)
            .chain(attributes)
            .chain(statements)
            .chain(system_values)
            .chain(ray_payload)
            .collect()
    }
}

/// The file's top-level structs, in order: name and syntax (equal after
/// an edit elsewhere).
#[salsa::tracked(returns(ref))]
pub fn top_level_structs(db: &dyn Db, file: SourceFile) -> Vec<(String, DeclGreen)> {
    parse(db, file)
        .syntax_node()
        .children()
        .filter(|n| n.kind() == SyntaxKind::STRUCT)
        .filter_map(|n| {
            let name = n.children().find(|c| c.kind() == SyntaxKind::NAME)?.text().to_string();
            Some((name, DeclGreen(Some(n.green().into_owned()))))
        })
        .collect()
}
