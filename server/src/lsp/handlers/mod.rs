//! The server's handlers, called by the `LanguageServer` implementation
//! (and the custom requests) in `lsp/mod.rs`.

pub mod notifications;
pub mod requests;
