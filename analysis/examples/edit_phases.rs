//! Where an edit's re-check spends its time, phase by phase, on the
//! language-server latency bench's file (`server/benches/lsp_latency.rs`:
//! the valid corpus concatenated to ~5,000 lines, one literal edited in a
//! function at the end). Each phase is asked for in the order the
//! diagnostics need it, so its time is what it adds.
//! `cargo run --release -p slang-analysis --example edit_phases [EDITS]`

use std::time::{Duration, Instant};

use slang_analysis::{file_diagnostics, RootDatabase, SourceFile};

#[path = "../../tests/bench_file.rs"]
mod bench_file;
use bench_file::big_file;

type Phase = (&'static str, Box<dyn Fn(&RootDatabase, SourceFile)>);

fn phase(name: &'static str, run: impl Fn(&RootDatabase, SourceFile) + 'static) -> Phase {
    (name, Box::new(run))
}

fn phases() -> Vec<Phase> {
    use slang_analysis::*;
    let mut phases = vec![
        phase("raw_parse", |db, f| {
            expansion::raw_parse(db, f);
        }),
        phase("parse_options", |db, f| {
            expansion::parse_options(db, f);
        }),
        phase("source_parse", |db, f| {
            source_parse(db, f);
        }),
        phase("expansion", |db, f| {
            expansion::expansion(db, f);
        }),
        phase("parse", |db, f| {
            parse(db, f);
        }),
        phase("item_tree", |db, f| {
            item_tree::item_tree(db, f);
        }),
        phase("global_scope", |db, f| {
            name_res::global_scope(db, f);
        }),
        phase("unresolved_names", |db, f| {
            name_res::unresolved_names(db, f);
        }),
    ];
    // The per-file checks, each alone, in the order the diagnostics ask.
    for (name, check) in diagnostics::FILE_CHECKS {
        phases.push(phase(name, move |db, f| {
            check(db, f);
        }));
    }
    phases.extend([
        // Inference; the per-function attribute and array-length checks
        // fall in `expanded_diagnostics`.
        phase("functions (infer)", |db, f| {
            for &d in infer::file_functions(db, f) {
                infer::infer(db, d);
            }
        }),
        phase("expanded_diagnostics", |db, f| {
            diagnostics::expanded_diagnostics(db, f);
        }),
        phase("file_diagnostics", |db, f| {
            file_diagnostics(db, f);
        }),
        phase("related_information", |db, f| {
            for d in file_diagnostics(db, f) {
                ide::related_information(db, f, d);
            }
        }),
    ]);
    phases
}

fn main() {
    let edits: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(40);
    let text = big_file();
    let mut db = RootDatabase::new();
    let path = "/bench/big.slang";
    let f = db.set_file(path, &text);
    let t = Instant::now();
    let n = file_diagnostics(&db, f).len();
    println!("{} lines; first check {:.1} ms ({n} diagnostics)", text.lines().count(), ms(t.elapsed()));
    if std::env::var_os("TOP").is_some() {
        // The top-level syntax that is not a declaration of the item tree.
        let root = slang_analysis::parse(&db, f).syntax_node();
        let map = slang_analysis::item_tree::item_source_map(&db, f);
        let ranges: std::collections::HashSet<_> = slang_analysis::item_tree::item_tree(&db, f)
            .items
            .iter()
            .filter_map(|i| map.get(i.ast_index as usize).map(|p| p.text_range()))
            .collect();
        let mut kinds: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for c in root.children() {
            if !ranges.contains(&c.text_range()) {
                let e = kinds.entry(format!("{:?}", c.kind())).or_default();
                e.0 += 1;
                e.1 += c.descendants().count();
            }
        }
        println!("top-level children: {}; not items (kind: count, nodes): {kinds:?}", root.children().count());
    }
    let at = text.find("float k = 1.0;").unwrap() + "float k = ".len();
    let phases = phases();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); phases.len() + 2];
    let log = std::env::var_os("LOG").is_some();
    if log {
        db.start_logging_executions();
    }
    for i in 0..edits {
        let edited = format!("{}{}.5{}", &text[..at], i % 10, &text[at + 3..]);
        let t0 = Clock::now();
        db.set_file(path, &edited);
        times[0].push(t0.elapsed());
        for (k, (_, run)) in phases.iter().enumerate() {
            let t = Clock::now();
            run(&db, f);
            times[k + 1].push(t.elapsed());
        }
        times[phases.len() + 1].push(t0.elapsed());
        if log && i == edits - 1 {
            let all = db.take_executions();
            if std::env::var_os("SEQ").is_some() {
                // In order, without the many `decl_green` and `decl_type_ref`.
                let seq: Vec<&String> =
                    all.iter().filter(|e| !e.starts_with("decl_green") && !e.starts_with("decl_type_ref")).collect();
                println!("sequence: {seq:?}");
            }
            let mut ran: Vec<String> = all.into_iter().map(|e| e.split('(').next().unwrap_or("").to_string()).collect();
            ran.sort();
            let mut counts: Vec<(String, usize)> = Vec::new();
            for r in ran {
                match counts.last_mut() {
                    Some((n, c)) if *n == r => *c += 1,
                    _ => counts.push((r, 1)),
                }
            }
            println!("ran (last edit): {counts:?}");
        } else if log {
            db.take_executions();
        }
    }
    let names: Vec<&str> =
        std::iter::once("set_file").chain(phases.iter().map(|p| p.0)).chain(std::iter::once("total")).collect();
    for (name, v) in names.iter().zip(&mut times) {
        v.sort();
        let mean = v.iter().sum::<Duration>() / v.len() as u32;
        println!(
            "{name:<24} mean {:>7.2} ms   median {:>7.2} ms   p95 {:>7.2} ms",
            ms(mean),
            ms(v[v.len() / 2]),
            ms(v[(v.len() - 1) * 95 / 100])
        );
    }
}

/// Time this thread has run (from `/proc/thread-self/schedstat`): on a
/// loaded machine, what wall-clock time would be without waiting for a CPU.
/// `WALL=1`: wall-clock time instead.
#[derive(Clone, Copy)]
struct Clock(Option<Instant>, u64);

impl Clock {
    fn now() -> Clock {
        if std::env::var_os("WALL").is_some() {
            return Clock(Some(Instant::now()), 0);
        }
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
        Clock(None, s.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0))
    }

    fn elapsed(&self) -> Duration {
        match self.0 {
            Some(t) => t.elapsed(),
            None => Duration::from_nanos(Clock::now().1 - self.1),
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
