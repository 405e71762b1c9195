//! Per-pass compile times, for finding the slow pass of a large kernel:
//! with `SLANG_ANALYZER_PASS_TIMES` set, every pass run through [`pass`]
//! prints its name and wall time to stderr (one line per run; sum them by
//! name for a total).

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("SLANG_ANALYZER_PASS_TIMES").is_some())
}

/// Run the pass `name` (`f`), timing it when asked.
pub(crate) fn pass<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let result = f();
    eprintln!("pass {name:<16} {:>10.3} ms", start.elapsed().as_secs_f64() * 1e3);
    result
}
