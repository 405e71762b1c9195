//! How many files parse without an `ERROR`/`MISSING` node: paths on stdin,
//! one a line (`... | cargo run --release -p tree-sitter-slang --example
//! suite_rate`). Prints each file with errors and its first error's line.
use std::io::BufRead;

fn main() {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_slang::LANGUAGE.into()).unwrap();
    let (mut n, mut clean) = (0usize, 0usize);
    for line in std::io::stdin().lock().lines() {
        let path = line.unwrap();
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let text = slang_syntax::decode_source(&bytes);
        let tree = parser.parse(&text, None).unwrap();
        n += 1;
        let root = tree.root_node();
        if !root.has_error() {
            clean += 1;
            continue;
        }
        let mut node = root;
        'outer: loop {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if child.is_error() || child.is_missing() {
                    node = child;
                    break 'outer;
                }
                if child.has_error() {
                    node = child;
                    continue 'outer;
                }
            }
            break;
        }
        println!("{path}\t{}\t{}", node.start_position().row + 1, if node.is_missing() { "MISSING" } else { "ERROR" });
    }
    eprintln!("{clean}/{n} without errors ({:.1}%)", 100.0 * clean as f64 / n.max(1) as f64);
}
