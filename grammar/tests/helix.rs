//! The Helix configuration (`editors/helix/languages.toml`) parses and
//! refers to this grammar, its queries and the language server.

mod common;

use common::{read, repo_root};

#[test]
fn helix_languages_toml_is_valid() {
    let root = repo_root();
    let text = read(&root.join("editors/helix/languages.toml"));
    let doc: toml::Table = text.parse().expect("languages.toml parses");

    let languages = doc["language"].as_array().expect("[[language]]");
    let slang = languages.iter().find(|l| l["name"].as_str() == Some("slang")).expect("a `slang` language");
    assert_eq!(slang["scope"].as_str(), Some("source.slang"));
    assert_eq!(slang["grammar"].as_str(), Some("slang"));
    assert_eq!(slang["comment-token"].as_str(), Some("//"));
    let file_types: Vec<_> = slang["file-types"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(file_types, ["slang", "slangh"]);
    let block = slang["block-comment-tokens"].as_table().unwrap();
    assert_eq!((block["start"].as_str(), block["end"].as_str()), (Some("/*"), Some("*/")));
    assert!(slang["indent"]["unit"].as_str().is_some());
    let servers: Vec<_> = slang["language-servers"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(servers, ["slang-analyzer"]);

    let roots: Vec<_> = slang["roots"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert!(roots.contains(&"slang-analyzer.json"), "{roots:?}");

    let server = &doc["language-server"]["slang-analyzer"];
    assert_eq!(server["command"].as_str(), Some("slang-analyzer"));
    assert!(server["config"]["slang"]["predefinedMacros"].is_array());

    let grammars = doc["grammar"].as_array().expect("[[grammar]]");
    let grammar = grammars.iter().find(|g| g["name"].as_str() == Some("slang")).expect("a `slang` grammar");
    let source = grammar["source"].as_table().unwrap();
    let path_ok = source.get("path").and_then(|p| p.as_str()).is_some_and(|p| p.ends_with("/grammar"));
    let git_ok = source.get("subpath").and_then(|p| p.as_str()) == Some("grammar");
    assert!(path_ok || git_ok, "the grammar source must point at the `grammar/` folder: {source:?}");

    // The runtime folder has the queries Helix looks for.
    let queries = root.join("editors/helix/runtime/queries/slang");
    for q in ["highlights.scm", "locals.scm", "injections.scm", "indents.scm", "textobjects.scm"] {
        assert!(queries.join(q).is_file(), "missing {q}");
    }
    // And the grammar folder is what `hx --grammar build` compiles.
    assert!(root.join("grammar/src/parser.c").is_file());
    assert!(root.join("grammar/src/scanner.c").is_file());
}

/// The generated standard and Helix highlight queries are up to date with
/// the Neovim query they are derived from (`grammar/scripts/gen_queries.py`):
/// every capture name of the Neovim query has its counterpart.
#[test]
fn derived_highlight_queries_have_as_many_patterns() {
    let root = repo_root();
    let count = |p: &str| {
        let q = tree_sitter::Query::new(&common::language(), &read(&root.join(p))).unwrap();
        q.pattern_count()
    };
    let nvim = count("editors/neovim/queries/slang/highlights.scm");
    assert_eq!(count("grammar/queries/highlights.scm"), nvim, "run grammar/scripts/gen_queries.py");
    assert_eq!(count("editors/helix/runtime/queries/slang/highlights.scm"), nvim, "run grammar/scripts/gen_queries.py");
}

/// The editor query files that are copies of the standard ones (same
/// capture names there) stay copies: a change to one is a change to all.
#[test]
fn copied_queries_stay_identical() {
    let root = repo_root();
    let copies = [
        ("injections", "editors/neovim/queries/slang"),
        ("injections", "editors/helix/runtime/queries/slang"),
        ("folds", "editors/neovim/queries/slang"),
        ("indents", "editors/neovim/queries/slang"),
        ("textobjects", "editors/neovim/queries/slang"),
        ("locals", "editors/helix/runtime/queries/slang"),
    ];
    for (name, dir) in copies {
        let standard = read(&root.join(format!("grammar/queries/{name}.scm")));
        let copy = read(&root.join(format!("{dir}/{name}.scm")));
        assert!(standard == copy, "{dir}/{name}.scm differs from grammar/queries/{name}.scm: copy it over");
    }
}
