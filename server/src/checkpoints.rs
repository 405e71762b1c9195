//! Checkpoint memory in the editor: what the backward derivatives that a
//! file's `bwd_diff` uses generate save per thread ([`checkpoints`], the
//! compile worker's code lenses), and the edits that make one save less,
//! measured by the same code generation on the edited text before they
//! are offered ([`measured_fixes`], code actions).

use slang_analysis::ide::{self, Assist, AssistKind, Definition};
use slang_analysis::{RootDatabase, SourceFile, TextRange, TextSize};

/// What a function's backward derivative saves for its backward pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The function's name, in semantic-tree offsets of its file.
    pub name_range: TextRange,
    pub bytes: u32,
    pub values: u32,
}

/// The context sizes of the backward derivatives that `file`'s
/// `bwd_diff(f)` uses generate (`f`'s and its callees'), for the functions
/// declared in `file`: the numbers of `derive`'s `bwd` view (the largest
/// where several uses differ). Uses whose code cannot be generated are
/// left out.
pub fn checkpoints(db: &RootDatabase, file: SourceFile) -> Vec<Checkpoint> {
    crate::generated::expanded(db, file, |db, file| {
        let mut out: Vec<Checkpoint> = Vec::new();
        for root in slang_analysis::ide::backward_roots(db, file) {
            let Ok(sizes) = slang_codegen::backward_context_sizes(db, root) else { continue };
            for (def, bytes, values) in sizes {
                if def.file(db) != file {
                    continue;
                }
                let Some(nav) = slang_analysis::ide::nav_target(db, &slang_analysis::ide::Definition::Item(def)) else {
                    continue;
                };
                match out.iter_mut().find(|c| c.name_range == nav.focus_range) {
                    Some(c) if c.bytes < bytes => (c.bytes, c.values) = (bytes, values),
                    Some(_) => {}
                    None => out.push(Checkpoint { name_range: nav.focus_range, bytes, values }),
                }
            }
        }
        out.sort_by_key(|c| c.name_range.start());
        out
    })
}

/// The checkpoint edits at `range` ([`ide::checkpoint_fixes`]) that make
/// the backward derivative of the function there save less, as quick
/// fixes titled with the size they give (code generation of the edited
/// text, on a database of its own).
pub fn measured_fixes(db: &RootDatabase, file: SourceFile, range: TextRange) -> Vec<Assist> {
    let fixes = ide::checkpoint_fixes(db, file, range);
    if fixes.is_empty() {
        return Vec::new();
    }
    let before = checkpoints(db, file);
    let mut out = Vec::new();
    for fix in fixes {
        let Some(nav) = ide::nav_target(db, &Definition::Item(fix.function)) else { continue };
        // (Not differentiated in reverse mode by this file: nothing to
        // measure.)
        let Some(old) = before.iter().find(|c| c.name_range == nav.focus_range) else { continue };
        let edit = &fix.edit;
        let mut text = slang_analysis::expansion::semantic_text(db, edit.file).to_string();
        text.replace_range(usize::from(edit.range.start())..usize::from(edit.range.end()), &edit.text);
        let (edited_db, edited) = db.with_file_text(edit.file, &text);
        let this = if edit.file == file { Some(edited) } else { edited_db.file_by_path(file.path(db)) };
        let Some(this) = this else { continue };
        // The function's name after the edit.
        let grown = TextSize::of(edit.text.as_str());
        let shift = |p: TextSize| {
            if edit.file == file && p >= edit.range.end() {
                p + grown - edit.range.len()
            } else {
                p
            }
        };
        let moved = TextRange::new(shift(nav.focus_range.start()), shift(nav.focus_range.end()));
        let Some(new) = checkpoints(&edited_db, this).into_iter().find(|c| c.name_range == moved) else { continue };
        if new.bytes < old.bytes {
            out.push(Assist {
                title: format!("{}: `{}` saves {} B/thread (now {})", fix.what, nav.name, new.bytes, old.bytes),
                kind: AssistKind::QuickFix,
                edits: vec![fix.edit],
                fixes: None,
            });
        }
    }
    out
}
