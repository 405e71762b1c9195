//! Print the syntax tree and errors of a file: `cargo run -p slang-syntax --example dump FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let parse = slang_syntax::parse(&text);
    if std::env::var("TREE").is_ok() {
        print!("{}", parse.debug_tree());
    }
    for e in parse.errors() {
        let (l, c) = slang_syntax::line_col(&text, e.range.start());
        println!("{path}:{l}:{c}: {}", e.message);
    }
    assert_eq!(parse.syntax_node().text().to_string(), text);
}
