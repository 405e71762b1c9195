//! A small FileCheck for `filecheck-buffer=<PREFIX>` tests: the printed
//! output buffer is checked against the test file's `<PREFIX>:` lines, in
//! the manner of LLVM's FileCheck.
//!
//! Supported: `P:` (the pattern occurs after the previous match), `P-NEXT:`
//! (on the line after the previous match), `P-SAME:` (on the same line),
//! `P-NOT:` (does not occur between its neighbouring matches), `P-EMPTY:`
//! (the next line is empty), `P-LABEL:` (as `P:`), and `{{regex}}` inside
//! patterns. Runs of spaces match any horizontal whitespace, as FileCheck
//! canonicalizes them. `P-DAG:`, `P-COUNT-n:` and `[[VAR]]` captures are
//! reported as unsupported.

use regex_lite::Regex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Check,
    Next,
    Same,
    Not,
    Empty,
}

/// One directive from the test file.
#[derive(Debug)]
struct Directive {
    kind: Kind,
    /// 1-based line in the test file.
    line: usize,
    text: String,
    regex: Regex,
}

/// Read the `<prefix>` directives of `source`.
fn directives(source: &str, prefix: &str) -> Result<Vec<Directive>, String> {
    let mut out = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let mut from = 0;
        while let Some(found) = line[from..].find(prefix) {
            let start = from + found;
            from = start + prefix.len();
            // The prefix must not be the tail of a longer word.
            let before = line[..start].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                continue;
            }
            let rest = &line[start + prefix.len()..];
            let (kind, pattern) = if let Some(p) = rest.strip_prefix(':') {
                (Kind::Check, p)
            } else if let Some(p) = rest.strip_prefix("-NEXT:") {
                (Kind::Next, p)
            } else if let Some(p) = rest.strip_prefix("-SAME:") {
                (Kind::Same, p)
            } else if let Some(p) = rest.strip_prefix("-NOT:") {
                (Kind::Not, p)
            } else if let Some(p) = rest.strip_prefix("-EMPTY:") {
                (Kind::Empty, p)
            } else if let Some(p) = rest.strip_prefix("-LABEL:") {
                (Kind::Check, p)
            } else if rest.starts_with("-DAG:") || rest.starts_with("-COUNT") {
                let what = rest.split(':').next().unwrap_or(rest);
                return Err(format!("line {}: `{prefix}{what}:` is not supported", index + 1));
            } else {
                continue;
            };
            let text = pattern.trim().to_string();
            let regex = pattern_regex(&text).map_err(|e| format!("line {}: {e}", index + 1))?;
            out.push(Directive { kind, line: index + 1, text, regex });
            break;
        }
    }
    if out.is_empty() {
        return Err(format!("no `{prefix}:` lines in the test file"));
    }
    Ok(out)
}

/// The regex of a FileCheck pattern: literal text, `{{regex}}` parts, any
/// run of whitespace matching any run of horizontal whitespace.
fn pattern_regex(pattern: &str) -> Result<Regex, String> {
    if pattern.contains("[[") {
        return Err(format!("`{pattern}`: FileCheck variables ([[...]]) are not supported"));
    }
    let mut re = String::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("{{") {
            let end = after.find("}}").ok_or_else(|| format!("`{pattern}`: unclosed {{{{"))?;
            re.push_str(&format!("(?:{})", &after[..end]));
            rest = &after[end + 2..];
        } else {
            let end = rest.find("{{").unwrap_or(rest.len());
            let mut in_space = false;
            for c in rest[..end].chars() {
                if c == ' ' || c == '\t' {
                    if !in_space {
                        re.push_str("[ \\t]+");
                    }
                    in_space = true;
                } else {
                    re.push_str(&regex_lite::escape(c.encode_utf8(&mut [0; 4])));
                    in_space = false;
                }
            }
            rest = &rest[end..];
        }
    }
    Regex::new(&re).map_err(|e| format!("`{pattern}`: {e}"))
}

/// Check `output` (the printed buffer) against the `<prefix>` lines of the
/// test file `source`; `Err` tells the first directive that failed.
pub fn check(output: &str, source: &str, prefix: &str) -> Result<(), String> {
    let directives = directives(source, prefix)?;
    let lines: Vec<&str> = output.lines().collect();
    // Position after the previous match: (line, byte column).
    let mut cursor = (0usize, 0usize);
    let mut matched_any = false;
    let mut pending_not: Vec<&Directive> = Vec::new();
    let show = |d: &Directive| format!("`{prefix}{}: {}` (line {})", suffix(d.kind), d.text, d.line);
    let line_at = |i: usize| lines.get(i).map_or("<end of output>".to_string(), |l| format!("`{l}`"));
    for d in &directives {
        let found = match d.kind {
            Kind::Not => {
                pending_not.push(d);
                continue;
            }
            Kind::Check => (cursor.0..lines.len()).find_map(|i| {
                let from = if i == cursor.0 { cursor.1 } else { 0 };
                d.regex.find_at(lines[i], from).map(|m| (i, m.start(), m.end()))
            }),
            Kind::Next | Kind::Empty => {
                let next = if matched_any { cursor.0 + 1 } else { 0 };
                let found = match (d.kind, lines.get(next)) {
                    (Kind::Empty, Some(l)) if l.trim().is_empty() => Some((next, 0, 0)),
                    (Kind::Next, Some(l)) => d.regex.find(l).map(|m| (next, m.start(), m.end())),
                    _ => None,
                };
                if found.is_none() {
                    return Err(format!("{} did not match output line {}: {}", show(d), next + 1, line_at(next)));
                }
                found
            }
            Kind::Same => {
                lines.get(cursor.0).and_then(|l| d.regex.find_at(l, cursor.1)).map(|m| (cursor.0, m.start(), m.end()))
            }
        };
        let Some((line, start, end)) = found else {
            return Err(format!("{} not found after output line {}: {}", show(d), cursor.0 + 1, line_at(cursor.0)));
        };
        check_not(&pending_not, &lines, cursor, (line, start), &show)?;
        pending_not.clear();
        cursor = (line, end);
        matched_any = true;
    }
    check_not(&pending_not, &lines, cursor, (lines.len(), 0), &show)
}

/// No `-NOT` pattern occurs in the output between `from` and `to`.
fn check_not(
    nots: &[&Directive],
    lines: &[&str],
    from: (usize, usize),
    to: (usize, usize),
    show: &dyn Fn(&Directive) -> String,
) -> Result<(), String> {
    for d in nots {
        let last = to.0.min(lines.len().saturating_sub(1));
        for (i, text) in lines.iter().enumerate().take(last + 1).skip(from.0) {
            let start = if i == from.0 { from.1.min(text.len()) } else { 0 };
            let end = if i == to.0 { to.1.min(text.len()) } else { text.len() };
            if start < end && d.regex.is_match(&text[start..end]) {
                return Err(format!("{} matched output line {}: `{text}`", show(d), i + 1));
            }
        }
    }
    Ok(())
}

fn suffix(kind: Kind) -> &'static str {
    match kind {
        Kind::Check => "",
        Kind::Next => "-NEXT",
        Kind::Same => "-SAME",
        Kind::Not => "-NOT",
        Kind::Empty => "-EMPTY",
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    const OUT: &str = "type: float\n1.000000\n2.500000\n-3.000000\n";

    #[test]
    fn passes() {
        let src = "//TEST(compute):COMPARE_COMPUTE(filecheck-buffer=CHECK):-output-using-type\n\
                   // CHECK: type: float\n// CHECK-NEXT: 1.0\n// CHECK-NOT: 7.0\n// CHECK: -3\n// CHECK-NOT: 2.5";
        assert_eq!(check(OUT, src, "CHECK"), Ok(()));
        assert_eq!(check(OUT, "// BUF: {{^2\\.5}}\n// BUF-SAME: 000", "BUF"), Ok(()));
        assert_eq!(check(OUT, "// CHECK: type:   float", "CHECK"), Ok(()));
    }

    #[test]
    fn fails() {
        let e = check(OUT, "// CHECK: 1.0\n// CHECK-NEXT: -3.0", "CHECK").unwrap_err();
        assert!(e.contains("CHECK-NEXT: -3.0") && e.contains("`2.500000`"), "{e}");
        let e = check(OUT, "// CHECK: 2.5\n// CHECK: 1.0", "CHECK").unwrap_err();
        assert!(e.contains("not found"), "{e}");
        let e = check(OUT, "// CHECK: 1.0\n// CHECK-NOT: 2.5\n// CHECK: -3.0", "CHECK").unwrap_err();
        assert!(e.contains("CHECK-NOT: 2.5"), "{e}");
        assert!(check(OUT, "// OTHER: 1", "CHECK").unwrap_err().contains("no `CHECK:` lines"));
        assert!(check(OUT, "// CHECK-DAG: 1", "CHECK").unwrap_err().contains("not supported"));
        assert!(check(OUT, "// CHECK: [[X:.*]]", "CHECK").unwrap_err().contains("not supported"));
    }
}
