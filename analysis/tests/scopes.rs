//! One scope resolver (`slang_analysis::hir::scope`) answers "which local does
//! this name mean" for every feature: go to definition, hover, completion,
//! find references, document highlights, rename, semantic tokens and the
//! unresolved-name check must agree at every use.
//!
//! The fixture's declarations of `v` are marked `v/*#N*/` and its uses
//! `v/*@N*/` (N: the declaration the use means under Slang's scoping rules;
//! the reference compiler accepts the program, `slangc -no-codegen`). Each
//! declaration has its own type, so that hover and completion (which show
//! types) tell which one they found.

mod common;

use common::fixture;
use slang_analysis::ide::{self, CompletionKind, TokenKind};
use slang_analysis::{SourceFile, TextRange, TextSize};

const SHADOWING: &str = r#"
RWStructuredBuffer<float> o;
Optional<int> maybe(int k) { if (k > 0) return k; return none; }
[numthreads(1,1,1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    float v/*#1*/ = 1.0;
    {
        int v/*#2*/ = 2;
        o[0] = float(v/*@2*/);
    }
    o[1] = v/*@1*/;
    if (let v/*#3*/ = maybe(int(v/*@1*/)))
    {
        o[2] = float(v/*@3*/);
    }
    for (uint v/*#4*/ = 0; v/*@4*/ < 4; v/*@4*/++)
        o[3] += float(v/*@4*/);
    switch (tid.x)
    {
    case 0:
        half v/*#5*/ = half(v/*@1*/);
        o[4] = float(v/*@5*/);
        break;
    default:
        break;
    }
    let f = (double v/*#6*/) => float(v/*@6*/);
    o[5] = f(double(v/*@1*/));
}
"#;

/// The declared type of each declaration `#N`.
const TYPES: [&str; 7] = ["", "float", "int", "int", "uint", "half", "double"];

/// The markers `v/*#N*/` or `v/*@N*/`: (range of `v`, N).
fn markers(text: &str, tag: char) -> Vec<(TextRange, usize)> {
    let pat = format!("v/*{tag}");
    text.match_indices(&pat)
        .map(|(i, _)| {
            let n = text[i + pat.len()..].chars().next().unwrap().to_digit(10).unwrap() as usize;
            (TextRange::at(TextSize::from(i as u32), TextSize::from(1)), n)
        })
        .collect()
}

fn sorted(mut v: Vec<TextRange>) -> Vec<TextRange> {
    v.sort_by_key(|r| r.start());
    v.dedup();
    v
}

#[test]
fn every_feature_agrees_on_which_local_a_name_means() {
    let fx = fixture(SHADOWING);
    let (db, file): (_, SourceFile) = (&fx.db, fx.files[0]);
    let text = file.text(db).to_string();
    let decls = markers(&text, '#');
    let uses = markers(&text, '@');
    assert_eq!(decls.len(), 6);
    assert_eq!(uses.len(), 11);
    let decl_of = |n: usize| decls.iter().find(|(_, m)| *m == n).unwrap().0;
    // Every occurrence of declaration N: its name and its uses.
    let occurrences = |n: usize| {
        sorted(std::iter::once(decl_of(n)).chain(uses.iter().filter(|(_, m)| *m == n).map(|u| u.0)).collect())
    };
    let tokens = ide::semantic_tokens(db, file, None);
    for &(at, n) in &uses {
        let offset = at.start();
        let line = text[..usize::from(offset)].matches('\n').count() + 1;
        let ctx = format!("the use of `v` on line {line} (declaration #{n})");

        let defs = ide::goto_definition(db, file, offset);
        assert_eq!(defs.iter().map(|d| d.focus_range).collect::<Vec<_>>(), vec![decl_of(n)], "goto: {ctx}");

        let hover = ide::hover(db, file, offset).unwrap_or_else(|| panic!("hover: {ctx}"));
        assert!(hover.markdown.contains(&format!("{} v", TYPES[n])), "hover: {ctx}: {}", hover.markdown);

        let refs = sorted(ide::find_references(db, file, offset, true).into_iter().map(|r| r.range).collect());
        assert_eq!(refs, occurrences(n), "references: {ctx}");

        let highlights = sorted(ide::document_highlights(db, file, offset).into_iter().map(|(r, _)| r).collect());
        assert_eq!(highlights, occurrences(n), "highlights: {ctx}");

        let edits = ide::rename(db, file, offset, "w").unwrap_or_else(|e| panic!("rename: {ctx}: {e}"));
        assert_eq!(sorted(edits.into_iter().map(|(_, r, _)| r).collect()), occurrences(n), "rename: {ctx}");

        let completion = ide::completions(db, file, at.end());
        let local = completion.iter().find(|c| c.label == "v" && c.kind == CompletionKind::Local);
        let detail = local.and_then(|c| c.detail.clone()).unwrap_or_default();
        assert!(detail.contains(TYPES[n]), "completion: {ctx}: {detail:?}");

        let token = tokens.iter().find(|t| t.range == at).unwrap_or_else(|| panic!("token: {ctx}"));
        let kind = if n == 6 { TokenKind::Parameter } else { TokenKind::Variable };
        assert_eq!(token.kind, kind, "semantic token: {ctx}");
    }
    // The unresolved-name check sees each use (and nothing else) as
    // resolved.
    let diags = slang_analysis::file_diagnostics(db, file);
    let unresolved: Vec<_> = diags.iter().filter(|d| d.code.starts_with("unresolved")).collect();
    assert!(unresolved.is_empty(), "{unresolved:?}");
}

/// Names used where no binding of them is visible: after the block, loop,
/// `if (let …)` or lambda that declares them, and in a local's own
/// initializer (the reference compiler: "undefined identifier" at each).
#[test]
fn every_feature_agrees_where_a_name_is_not_visible() {
    let text = r#"
RWStructuredBuffer<float> o;
Optional<int> maybe(int k) { if (k > 0) return k; return none; }
[numthreads(1,1,1)]
void main()
{
    { float a = 1.0; o[0] = a; }
    o[1] = a/*?*/;
    for (int b = 0; b < 2; b++) { o[2] = float(b); }
    o[3] = float(b/*?*/);
    if (let c = maybe(1)) { o[4] = float(c); }
    o[5] = float(c/*?*/);
    let f = (float d) => d;
    o[6] = f(d/*?*/);
    float e = e/*?*/ + 1.0;
    o[7] = e;
}
"#;
    let fx = fixture(text);
    let (db, file) = (&fx.db, fx.files[0]);
    let text = file.text(db).to_string();
    let missing: Vec<TextRange> = text
        .match_indices("/*?*/")
        .map(|(i, _)| TextRange::at(TextSize::from(i as u32 - 1), TextSize::from(1)))
        .collect();
    assert_eq!(missing.len(), 5);
    let unresolved: Vec<TextRange> = slang_analysis::file_diagnostics(db, file)
        .iter()
        .filter(|d| d.code == "unresolved-name")
        .map(|d| d.range)
        .collect();
    assert_eq!(unresolved, missing);
    for at in missing {
        let name = &text[at];
        assert!(ide::goto_definition(db, file, at.start()).is_empty(), "goto `{name}`");
        let refs = ide::find_references(db, file, at.start(), true);
        assert!(refs.iter().all(|r| r.range == at), "references of `{name}`: {refs:?}");
        let completion = ide::completions(db, file, at.end());
        assert!(
            !completion.iter().any(|c| c.label == name && c.kind == CompletionKind::Local),
            "completion offers `{name}`"
        );
    }
}

/// Local type aliases are bindings of the same resolver: visible in their
/// whole block (before their statement too), an inner block's hiding an
/// outer one (the reference compiler accepts the program). The alias
/// declarations are marked `A/*#N*/` and their uses `A/*@N*/`.
#[test]
fn every_feature_agrees_on_local_type_aliases() {
    let text = r#"
RWStructuredBuffer<float> o;
[numthreads(1,1,1)]
void main()
{
    A/*@1*/ x = 1;
    typedef int A/*#1*/;
    {
        typealias A/*#2*/ = float2;
        A/*@2*/ y = A/*@2*/(1.0, 2.0);
        o[0] = y.x + float(x);
    }
    o[1] = float((A/*@1*/)2.5);
}
"#;
    let fx = fixture(text);
    let (db, file) = (&fx.db, fx.files[0]);
    let text = file.text(db).to_string();
    let marked = |tag: char| -> Vec<(TextRange, usize)> {
        let pat = format!("A/*{tag}");
        text.match_indices(&pat)
            .map(|(i, _)| {
                let n = text[i + pat.len()..].chars().next().unwrap().to_digit(10).unwrap() as usize;
                (TextRange::at(TextSize::from(i as u32), TextSize::from(1)), n)
            })
            .collect()
    };
    let (decls, uses) = (marked('#'), marked('@'));
    assert_eq!((decls.len(), uses.len()), (2, 4));
    let decl_of = |n: usize| decls.iter().find(|(_, m)| *m == n).unwrap().0;
    let occurrences = |n: usize| {
        sorted(std::iter::once(decl_of(n)).chain(uses.iter().filter(|(_, m)| *m == n).map(|u| u.0)).collect())
    };
    let hovers = ["", "typedef int A", "typealias A = float2"];
    let tokens = ide::semantic_tokens(db, file, None);
    for &(at, n) in &uses {
        let ctx = format!("the use of `A` at {at:?} (declaration #{n})");
        let defs = ide::goto_definition(db, file, at.start());
        assert_eq!(defs.iter().map(|d| d.focus_range).collect::<Vec<_>>(), vec![decl_of(n)], "goto: {ctx}");
        let hover = ide::hover(db, file, at.start()).unwrap_or_else(|| panic!("hover: {ctx}"));
        assert!(hover.markdown.contains(hovers[n]), "hover: {ctx}: {}", hover.markdown);
        let refs = sorted(ide::find_references(db, file, at.start(), true).into_iter().map(|r| r.range).collect());
        assert_eq!(refs, occurrences(n), "references: {ctx}");
        let edits = ide::rename(db, file, at.start(), "B").unwrap_or_else(|e| panic!("rename: {ctx}: {e}"));
        assert_eq!(sorted(edits.into_iter().map(|(_, r, _)| r).collect()), occurrences(n), "rename: {ctx}");
        let token = tokens.iter().find(|t| t.range == at).unwrap_or_else(|| panic!("token: {ctx}"));
        assert_eq!(token.kind, TokenKind::Type, "semantic token: {ctx}");
    }
    let diags = slang_analysis::file_diagnostics(db, file);
    assert!(diags.iter().all(|d| d.severity != slang_analysis::Severity::Error), "{diags:?}");
}
