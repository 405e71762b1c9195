//! Which queries re-run, and how long each phase takes, when one function
//! body of a big file changes (a diagnostic aid for the `check` bench).
//! `cargo run --release -p slang-analysis --example recheck_probe -- FILE...`

use std::time::Instant;

use slang_analysis::{file_diagnostics, RootDatabase};

fn main() {
    let mut text = String::new();
    for p in std::env::args().skip(1) {
        text.push_str(&std::fs::read_to_string(p).unwrap());
        text.push('\n');
    }
    text.push_str("\nfloat benchEdited(float x)\n{\n    return x;\n}\n");
    let mut db = RootDatabase::new();
    let f = db.set_file("/probe/big.slang", &text);
    file_diagnostics(&db, f);
    db.start_logging_executions();
    let n_edits: usize = std::env::var("EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    for i in 0..n_edits {
        // Only the appended function changes (the last `return x;`).
        let at = text.rfind("    return x;\n}\n").unwrap();
        let edited = format!("{}    return x * {i}.0;\n}}\n{}", &text[..at], &text[at + "    return x;\n}\n".len()..]);
        let t0 = Instant::now();
        db.set_file("/probe/big.slang", &edited);
        let t1 = Instant::now();
        let n = file_diagnostics(&db, f).len();
        let t2 = Instant::now();
        let related: usize =
            file_diagnostics(&db, f).iter().map(|d| slang_analysis::ide::related_information(&db, f, d).len()).sum();
        let t3 = Instant::now();
        let imports = slang_analysis::file_imports(&db, f).len();
        let t4 = Instant::now();
        let mut ran: Vec<String> =
            db.take_executions().into_iter().map(|e| e.split('(').next().unwrap_or("").to_string()).collect();
        ran.sort();
        let mut counts: Vec<(String, usize)> = Vec::new();
        for r in ran {
            match counts.last_mut() {
                Some((n, c)) if *n == r => *c += 1,
                _ => counts.push((r, 1)),
            }
        }
        let ran = counts;
        eprintln!(
            "edit {i}: set_file {:?}, diagnostics {:?} ({n}), related {:?} ({related}), imports {:?} ({imports}); ran: {ran:?}",
            t1 - t0,
            t2 - t1,
            t3 - t2,
            t4 - t3
        );
    }
}
