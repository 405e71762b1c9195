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
    ("resources2.slang", include_str!("core_module/resources2.slang")),
    ("resources3.slang", include_str!("core_module/resources3.slang")),
    ("resources4.slang", include_str!("core_module/resources4.slang")),
    ("intrinsics.slang", include_str!("core_module/intrinsics.slang")),
    ("intrinsics2.slang", include_str!("core_module/intrinsics2.slang")),
    ("coop.slang", include_str!("core_module/coop.slang")),
    ("glsl.slang", include_str!("core_module/glsl.slang")),
    ("glsl_textures.slang", include_str!("core_module/glsl_textures.slang")),
    ("cuda.slang", include_str!("core_module/cuda.slang")),
];

/// The core files parsed once per process (they never change), shared by
/// every database.
pub fn cached_parse(path: &str, text: &str) -> Option<slang_syntax::Parse> {
    static PARSES: std::sync::OnceLock<Vec<(String, slang_syntax::Parse)>> = std::sync::OnceLock::new();
    // In parallel: this is most of a command-line run's start-up.
    let parses = PARSES.get_or_init(|| {
        std::thread::scope(|s| {
            let parsing: Vec<_> = CORE_FILES
                .iter()
                .map(|(name, text)| (core_path(name), s.spawn(move || slang_syntax::parse(text))))
                .collect();
            parsing.into_iter().filter_map(|(path, h)| Some((path, h.join().ok()?))).collect()
        })
    });
    let (name, _) = CORE_FILES.iter().find(|(name, t)| core_path(name) == path && *t == text)?;
    parses.iter().find(|(p, _)| *p == core_path(name)).map(|(_, parse)| parse.clone())
}

pub fn core_path(name: &str) -> String {
    format!("{CORE_DIR}/{name}")
}

pub fn is_core_path(path: &str) -> bool {
    path.starts_with(CORE_DIR)
}
