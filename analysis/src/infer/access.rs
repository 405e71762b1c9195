//! Access control: visibilities as an order (private < internal <
//! public, with the default depending on the module's kind) and whether a
//! member can be used from a function ([`accessible`]). Inference reports
//! inaccessible uses; `crate::visibility` checks declarations with the
//! same rules.

use super::*;
use crate::name_res::is_legacy_module;

/// Visibility as an order: private < internal < public.
pub(crate) fn rank(db: &dyn Db, file: SourceFile, v: Visibility) -> u8 {
    match v {
        Visibility::Private => 0,
        Visibility::Internal => 1,
        Visibility::Default if is_legacy_module(db, file) => 2,
        Visibility::Default => 1,
        Visibility::Public => 2,
    }
}

pub(crate) fn word(r: u8) -> &'static str {
    ["private", "internal", "public"][r as usize]
}

/// How visibility `v` of a declaration of `file` reads in a message.
pub(crate) fn visibility_word(db: &dyn Db, file: SourceFile, v: Visibility) -> &'static str {
    word(rank(db, file, v))
}

/// Whether member `member` (of visibility `vis`) can be used from inside
/// function `from`: `private` inside its type (and the type's extensions),
/// `internal` (the default outside legacy modules) inside its module.
pub fn accessible(db: &dyn Db, from: DefId, member: DefId, vis: Visibility) -> bool {
    match vis {
        Visibility::Public => true,
        Visibility::Private => {
            let Some(owner) = parent_of(db, member) else { return true };
            let owner_name = item_of(db, owner).and_then(|i| i.name.clone());
            let mut cur = Some(from);
            while let Some(d) = cur {
                if d == owner {
                    return true;
                }
                if let Some(i) = item_of(db, d) {
                    // An extension of the type (by name; resolving the
                    // target is not worth it here).
                    if i.kind == ItemKind::Extension {
                        let target = crate::hir::decl_syntax(db, d)
                            .and_then(ast::Extension::cast)
                            .and_then(|e| e.target())
                            .map(|t| t.syntax().text().to_string())
                            .unwrap_or_default();
                        if Some(target.split('<').next().unwrap_or("").trim().to_string()) == owner_name {
                            return true;
                        }
                    }
                }
                cur = parent_of(db, d);
            }
            false
        }
        Visibility::Internal | Visibility::Default => {
            let file = member.file(db);
            if vis == Visibility::Default && crate::name_res::is_legacy_module(db, file) {
                return true;
            }
            is_core(db, file) || crate::module_graph::module_of(db, from.file(db)).contains(&file)
        }
    }
}
