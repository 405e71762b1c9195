//! The Slang grammar for [tree-sitter](https://tree-sitter.github.io/), and
//! its queries.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_slang::LANGUAGE.into()).unwrap();
//! let tree = parser.parse("[Differentiable] float f(float x) { return x * x; }", None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! The queries use the standard capture names of `tree-sitter highlight`.
//! Editor-specific variants (Neovim, Helix) live in `editors/` at the root of
//! the repository.

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_slang() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for Slang.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_slang) };

/// The content of the [`node-types.json`] file for this grammar.
///
/// [`node-types.json`]: https://tree-sitter.github.io/tree-sitter/using-parsers/6-static-node-types
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// Syntax highlighting (`@keyword`, `@function`, `@type` …).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// Scopes, definitions and references.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// Languages embedded in Slang (none but comments today).
pub const INJECTIONS_QUERY: &str = include_str!("../../queries/injections.scm");

/// Foldable regions.
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");

/// Indentation.
pub const INDENTS_QUERY: &str = include_str!("../../queries/indents.scm");

/// Text objects (`@function.outer`, `@class.inner` …).
pub const TEXTOBJECTS_QUERY: &str = include_str!("../../queries/textobjects.scm");

/// Code navigation tags (`@definition.function`, `@reference.call` …).
pub const TAGS_QUERY: &str = include_str!("../../queries/tags.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn loads_the_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&super::LANGUAGE.into()).expect("Error loading the Slang parser");
    }
}
