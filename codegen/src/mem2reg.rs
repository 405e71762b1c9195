//! Promotion of local variables to SSA values (placeholder until written).

use crate::ir::Module;

/// Promote the variables of every function.
pub fn run(_module: &mut Module) {}
