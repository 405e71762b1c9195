//! The inputs of the database.

/// One source file. `path` is the host's name for it, with `/` separators
/// (a real path for files on disk; the core module's is
/// `<builtin>/core.slang`). The id is opaque and stable while the file is
/// open.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub text: String,
}

/// The core-module files (never change; kept apart from [`Workspace`] so
/// that adding a file does not invalidate what depends only on them).
#[salsa::input(singleton, debug)]
pub struct CoreModule {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

/// The configuration and the set of files the host knows. A singleton:
/// there is one workspace per database.
#[salsa::input(singleton, debug)]
pub struct Workspace {
    /// Every known file, the core module first.
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    /// Folders searched by `import`, `__include` and `#include` (`-I`).
    #[returns(ref)]
    pub search_paths: Vec<String>,
    /// Predefined macros (`-D NAME=VALUE`).
    #[returns(ref)]
    pub defines: Vec<(String, String)>,
}
