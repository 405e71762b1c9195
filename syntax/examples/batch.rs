//! Parse many files (paths on stdin, one a line) and print each file's first
//! syntax error: `... | cargo run --release -p slang-syntax --example batch`.
fn main() {
    use std::io::BufRead;
    let (mut n, mut clean, mut bytes, mut micros) = (0usize, 0usize, 0usize, 0u128);
    for line in std::io::stdin().lock().lines() {
        let path = line.unwrap();
        let Ok(raw) = std::fs::read(&path) else { continue };
        let text = slang_syntax::decode_source(&raw);
        let t = std::time::Instant::now();
        let parse = slang_syntax::parse(&text);
        micros += t.elapsed().as_micros();
        bytes += raw.len();
        n += 1;
        if parse.syntax_node().text() != text.as_str() {
            println!("{path}: NOT LOSSLESS");
        }
        match parse.errors().first() {
            None => clean += 1,
            Some(e) => {
                let (l, _) = slang_syntax::line_col(&text, e.range.start());
                println!("{path}\t{l}\t{}", e.message);
            }
        }
    }
    eprintln!("{clean}/{n} clean; {:.1} MB/s", bytes as f64 / micros.max(1) as f64);
}
