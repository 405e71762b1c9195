//! Parse files repeatedly (for profiling): `parse_bench N FILE...`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().expect("usage: parse_bench N FILE...").parse().unwrap();
    let texts: Vec<String> = args.map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let start = std::time::Instant::now();
    for _ in 0..n {
        for t in &texts {
            std::hint::black_box(slang_syntax::parse(t));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{:.1} MB/s", (bytes * n) as f64 / secs / 1e6);
}
