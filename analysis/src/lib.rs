//! The semantic model of Slang programs: a salsa database over file texts,
//! item trees, name resolution, types and the autodiff facts.
//!
//! Not built yet (issue 3). This crate deliberately exports nothing, so that no
//! caller can mistake it for a working semantic layer.
