//! The core module: Slang source declaring the built-in types, interfaces
//! and functions (with their differentiability and derivatives), loaded as
//! built-in files so hover and goto-definition can land in them.

pub const CORE_DIR: &str = "<builtin>";

/// `(file name, text)` of each core-module file.
pub const CORE_FILES: &[(&str, &str)] = &[
    ("types.slang", include_str!("core_module/types.slang")),
    ("operators.slang", include_str!("core_module/operators.slang")),
    ("autodiff.slang", include_str!("core_module/autodiff.slang")),
    ("math.slang", include_str!("core_module/math.slang")),
    ("resources.slang", include_str!("core_module/resources.slang")),
    ("intrinsics.slang", include_str!("core_module/intrinsics.slang")),
];

pub fn core_path(name: &str) -> String {
    format!("{CORE_DIR}/{name}")
}

pub fn is_core_path(path: &str) -> bool {
    path.starts_with(CORE_DIR)
}
