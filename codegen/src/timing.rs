//! Per-pass compile times, for finding the slow pass of a large kernel:
//! with `SLANG_ANALYZER_PASS_TIMES` set, every pass run through [`pass`]
//! prints its name and time to stderr (one line per run; sum them by
//! name for a total): the CPU time of the thread where Linux tells it
//! (`/proc/thread-self/schedstat`, up to date to a scheduler tick, a few
//! milliseconds: sum many runs; on a busy machine wall time also counts
//! waiting for a core), wall time elsewhere.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("SLANG_ANALYZER_PASS_TIMES").is_some())
}

/// Nanoseconds this thread has run on a CPU, if known.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Run the pass `name` (`f`), timing it when asked.
pub(crate) fn pass<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let (start, cpu) = (Instant::now(), thread_cpu_ns());
    let result = f();
    let ms = match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e6,
        _ => start.elapsed().as_secs_f64() * 1e3,
    };
    eprintln!("pass {name:<16} {ms:>10.3} ms");
    result
}
