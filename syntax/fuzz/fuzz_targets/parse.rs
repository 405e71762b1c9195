//! Any bytes: the parser must not panic or hang, the tree must reproduce
//! the input, and every error must lie inside it.
//!
//! `cd syntax/fuzz && cargo fuzz run parse -- -max_total_time=300`
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parse = slang_syntax::parse(&text);
    assert_eq!(parse.syntax_node().text().to_string(), text.as_ref());
    let len = slang_syntax::TextSize::of(text.as_ref());
    for e in parse.errors() {
        assert!(e.range.end() <= len);
    }
    // The typed layer must not panic on any tree either.
    for item in parse.tree().items() {
        let _ = format!("{item:?}");
    }
});
