//! A diagnostic as plain data: range, severity, a stable code, message.
//! Every check makes them; [`crate::diagnostics`] gathers a file's.

use slang_syntax::TextRange;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub range: TextRange,
    pub severity: Severity,
    /// A stable code (`unresolved-name`, `syntax` …).
    pub code: &'static str,
    pub message: String,
}
