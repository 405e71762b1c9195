//! The standard modules shipped with the compiler (`import slang.neural;`),
//! as Slang source bundled into the binary. They are ordinary modules:
//! their files get paths under [`STANDARD_MODULE_DIR`], a folder that
//! exists only here, which every import searches last (after the importing
//! file's folder and the search paths), and the host reads them from
//! [`standard_module_text`] instead of the disk.
//!
//! The sources are in `standard_modules/` (see its files' module
//! comments); a module's main file is `slang/<name>.slang`, and the files
//! it `__include`s sit in `slang/<name>/`.

/// The folder the standard modules' files are in (no such folder exists
/// on disk).
pub const STANDARD_MODULE_DIR: &str = "/@slang-standard-modules";

/// `(path below STANDARD_MODULE_DIR, text)` of every standard module file.
const FILES: &[(&str, &str)] = &[
    ("slang/neural.slang", include_str!("standard_modules/neural.slang")),
    ("slang/neural/shared_memory.slang", include_str!("standard_modules/neural/shared_memory.slang")),
    ("slang/neural/storage.slang", include_str!("standard_modules/neural/storage.slang")),
    ("slang/neural/vector.slang", include_str!("standard_modules/neural/vector.slang")),
    ("slang/neural/layers.slang", include_str!("standard_modules/neural/layers.slang")),
];

/// The text of the standard module file at `path` (a full path under
/// [`STANDARD_MODULE_DIR`]), if there is one.
pub fn standard_module_text(path: &str) -> Option<&'static str> {
    let rel = path.strip_prefix(STANDARD_MODULE_DIR)?.strip_prefix('/')?;
    FILES.iter().find(|(p, _)| *p == rel).map(|(_, t)| *t)
}

/// Whether `path` is a standard module's file.
pub fn is_standard_module_file(path: &str) -> bool {
    standard_module_text(path).is_some()
}
