//! The crate's top-level modules depend on each other without a cycle.
//!
//! A module is a top-level module of `analysis/src` (a directory module
//! with everything under it counts as one). It depends on another when one
//! of its files names it: `crate::m`, `use crate::{m, …}`, `super::m`
//! reaching the crate root, or a name `lib.rs` re-exports from `m`
//! (`crate::Db` is `db`'s). Names defined in `lib.rs` itself belong to the
//! root, `lib.rs`, which depends on the modules its own code names.
//! Comments are left out: a doc link is no dependency.
//!
//! When this fails it prints a cycle with one reference for each step:
//! move what one side needs to the module that owns it (a leaf module for
//! plain data everyone shares), so that dependencies point one way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `(module, file)` for every `.rs` file under `src`.
fn source_files(src: &Path) -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(src).unwrap();
            let first = rel.components().next().unwrap().as_os_str().to_str().unwrap();
            (first.trim_end_matches(".rs").to_string(), p)
        })
        .collect()
}

/// The text without `//` comments (a `//` inside a string literal cuts
/// the rest of its line too, which at worst hides a reference).
fn without_comments(text: &str) -> String {
    text.lines().map(|l| l.find("//").map_or(l, |i| &l[..i])).collect::<Vec<_>>().join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first names of a `{ … }` group's elements (`{a::b, c, d::{e}}`:
/// `a`, `c`, `d`); `s` starts after the `{`.
fn group_heads(s: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                heads.push(ident_at(s[start..i].trim_start()));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(ident_at(s[start..i].trim_start()));
                start = i + 1;
            }
            _ => {}
        }
    }
    heads.into_iter().filter(|h| !h.is_empty()).collect()
}

/// The names of the crate root a file's code refers to, with their line
/// numbers. `depth`: how many `super::` reach the root from the file (an
/// inline `mod tests` is one deeper: what its `super::` names, the caller
/// counts only when it is a module or a re-export).
fn root_names(text: &str, depth: usize) -> Vec<(String, usize, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    // The whole text, not line by line: a `use` group may span lines.
    while let Some(i) = [text[at..].find("crate::"), text[at..].find("super::")].into_iter().flatten().min() {
        let i = at + i;
        let line = text[..i].matches('\n').count() + 1;
        let preceded = text[..i].chars().last().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        let mut after = &text[i..];
        let mut at_root = true;
        let via_super = after.starts_with("super::");
        if via_super {
            let mut k = 0;
            while let Some(r) = after.strip_prefix("super::") {
                after = r;
                k += 1;
            }
            at_root = k >= depth;
        } else {
            after = &after["crate::".len()..];
        }
        if !preceded && at_root {
            let names = match after.strip_prefix('{') {
                Some(group) => group_heads(group),
                None => vec![ident_at(after)],
            };
            let names = names.into_iter().filter(|n| !n.is_empty() && *n != "self");
            out.extend(names.map(|s| (s.to_string(), line, via_super)));
        }
        at = i + 1;
    }
    out
}

/// What `lib.rs` re-exports from a module: name → module.
fn reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(path) = stmt.trim_start().strip_prefix("pub use ") else { continue };
        let module = ident_at(path).to_string();
        if !modules.contains(&module) {
            continue;
        }
        match path.find('{') {
            Some(i) => {
                for n in group_heads(&path[i + 1..]) {
                    out.insert(n.to_string(), module.clone());
                }
            }
            None => {
                let last = path.rsplit("::").next().unwrap().trim();
                out.insert(ident_at(last).to_string(), module.clone());
            }
        }
    }
    out
}

type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// Module → module it depends on → one reference (`file:line name`).
fn module_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = source_files(&src);
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).filter(|m| m != "lib").collect();
    let lib = without_comments(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let reexported = reexports(&lib, &modules);
    let mut graph: Graph = BTreeMap::new();
    for (module, path) in &files {
        let rel = path.strip_prefix(&src).unwrap();
        let text = without_comments(&std::fs::read_to_string(path).unwrap());
        let from = if module == "lib" { "lib.rs".to_string() } else { module.clone() };
        let mut refs = if module == "lib" {
            // The root's own code: `m::f` outside `mod` and `use` lines.
            let mut refs = Vec::new();
            for (n, line) in text.lines().enumerate() {
                let l = line.trim_start();
                if l.starts_with("mod ")
                    || l.starts_with("pub mod ")
                    || l.starts_with("pub use ")
                    || l.starts_with("use ")
                {
                    continue;
                }
                for m in &modules {
                    let pat = format!("{m}::");
                    if line
                        .match_indices(&pat)
                        .any(|(i, _)| !line[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    {
                        refs.push((m.clone(), n + 1, false));
                    }
                }
            }
            refs
        } else {
            // `src/m.rs` and `src/m/mod.rs` are at depth 1, `src/m/x.rs` at 2.
            let depth = rel.components().count() - usize::from(rel.ends_with("mod.rs"));
            root_names(&text, depth)
        };
        refs.sort();
        for (name, line, via_super) in refs {
            let to = if modules.contains(&name) {
                name.clone()
            } else if let Some(m) = reexported.get(&name) {
                m.clone()
            } else if via_super {
                continue;
            } else {
                "lib.rs".to_string()
            };
            if to != from {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| format!("{}:{line} {name}", rel.display()));
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(v: &str, graph: &Graph, state: &mut BTreeMap<String, u8>, stack: &mut Vec<String>) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        stack.push(v.to_string());
        for w in graph.get(v).into_iter().flat_map(|e| e.keys()) {
            match state.get(w.as_str()) {
                Some(1) => {
                    let i = stack.iter().position(|s| s == w).unwrap();
                    let mut cycle = stack[i..].to_vec();
                    cycle.push(w.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(w, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in graph.keys() {
        if !state.contains_key(v) {
            if let Some(c) = visit(v, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let graph = module_graph();
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> =
            cycle.windows(2).map(|w| format!("  {} -> {}   ({})", w[0], w[1], graph[&w[0]][&w[1]])).collect();
        panic!("the modules of analysis/src depend on each other in a cycle:\n{}", steps.join("\n"));
    }
}

#[test]
fn the_graph_sees_references() {
    // The scanner itself: `use` groups, paths, re-exports, the root.
    let graph = module_graph();
    let deps = |m: &str| graph.get(m).map(|e| e.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    assert!(deps("infer").contains(&"hir".to_string()), "{:?}", deps("infer"));
    assert!(deps("lib.rs").contains(&"item_tree".to_string()), "{:?}", deps("lib.rs"));
    // `crate::autodiff` is `lib.rs`'s `pub use infer::autodiff`.
    assert!(deps("autodiff_checks").contains(&"infer".to_string()), "{:?}", deps("autodiff_checks"));
    assert!(deps("item_tree").contains(&"db".to_string()), "{:?}", deps("item_tree"));
    assert_eq!(group_heads("a::b, c, d::{e, f}}; x"), ["a", "c", "d"]);
    assert_eq!(root_names("use super::super::x::y;", 2), [("x".to_string(), 1, true)]);
    assert_eq!(root_names("use super::x;", 2), []);
    let group = root_names("use crate::{\n    a::b,\n    c,\n};", 1);
    assert_eq!(group, [("a".to_string(), 1, false), ("c".to_string(), 1, false)]);
}
