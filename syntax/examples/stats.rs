//! Count node and token kinds in a parsed file (for tuning the tree shape).
fn main() {
    let path = std::env::args().nth(1).expect("usage: stats FILE");
    let text = std::fs::read_to_string(path).unwrap();
    let parse = slang_syntax::parse(&text);
    let mut counts = std::collections::HashMap::new();
    let (mut nodes, mut tokens) = (0, 0);
    for e in parse.syntax_node().descendants_with_tokens() {
        *counts.entry(e.kind()).or_insert(0usize) += 1;
        if e.as_node().is_some() {
            nodes += 1
        } else {
            tokens += 1
        }
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    println!("bytes {} nodes {nodes} tokens {tokens}", text.len());
    for (k, n) in v.iter().take(25) {
        println!("{k:?} {n}");
    }
}
