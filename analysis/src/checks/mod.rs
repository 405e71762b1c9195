//! Checks of declarations beside inference, each in a file named for what
//! it checks. They read the syntax and the module's scope, and stay quiet
//! where a name may mean something they cannot see (a macro, a generic
//! parameter, a member of an enclosing type).

pub mod addressable;
pub mod attributes;
pub mod constraints;
pub mod entry_points;
pub mod placement;
pub mod type_args;

use crate::diagnostics::Diagnostic;
use crate::{Db, SourceFile};

/// The diagnostics of every check here, for `file`.
pub fn check_diagnostics(db: &dyn Db, file: SourceFile) -> impl Iterator<Item = Diagnostic> + '_ {
    placement::placement_diagnostics(db, file)
        .iter()
        .chain(addressable::addressable_diagnostics(db, file))
        .chain(entry_points::entry_point_diagnostics(db, file))
        .chain(constraints::constraint_diagnostics(db, file))
        .chain(type_args::type_arg_diagnostics(db, file))
        .chain(attributes::attribute_diagnostics(db, file))
        .cloned()
}
