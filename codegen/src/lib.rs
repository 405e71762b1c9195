//! Lowering to SSA IR, automatic differentiation passes and naga backends.
//!
//! Not built yet (issues 6 and 7). This crate deliberately exports nothing.
