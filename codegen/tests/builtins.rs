//! Code generation's table of built-in functions (`slang_codegen::builtins`)
//! against the core module's declarations: every row names a global
//! function of the core module with that arity, differentiable exactly
//! when an overload of it says so (`[Differentiable]`), element-wise
//! exactly when it is declared `[__elementwise]`; and every differentiable
//! function of `math.slang` has a row; exactly the differentiable
//! intrinsics have a forward rule.

use std::collections::BTreeMap;

use slang_analysis::{ItemKind, RootDatabase};
use slang_codegen::builtins::{Expanded, Intrinsic, Row, Rule, Shape};

/// One core-module declaration of a global function.
#[derive(Debug)]
struct Decl {
    arity: usize,
    differentiable: bool,
    elementwise: bool,
    in_math: bool,
}

fn core_functions() -> BTreeMap<String, Vec<Decl>> {
    let db = RootDatabase::new();
    let mut out: BTreeMap<String, Vec<Decl>> = BTreeMap::new();
    for file in slang_analysis::core_files(&db) {
        let in_math = file.path(&db).ends_with("math.slang");
        for item in &slang_analysis::item_tree::item_tree(&db, file).items {
            let (ItemKind::Fn, Some(name)) = (item.kind, &item.name) else { continue };
            out.entry(name.clone()).or_default().push(Decl {
                arity: item.params.len(),
                differentiable: item.has_attr("Differentiable"),
                elementwise: item.has_attr("__elementwise"),
                in_math,
            });
        }
    }
    out
}

fn rows() -> Vec<Row> {
    Intrinsic::ALL.iter().map(|i| i.row()).chain(Expanded::ALL.iter().map(|x| x.row())).collect()
}

#[test]
fn every_row_agrees_with_the_core_module() {
    let core = core_functions();
    let mut problems = Vec::new();
    for row in rows() {
        if row.name.starts_with("__") {
            continue;
        }
        let decls: Vec<&Decl> =
            core.get(row.name).map(|d| d.iter().filter(|d| d.arity == row.arity).collect()).unwrap_or_default();
        if decls.is_empty() {
            problems.push(format!("`{}` of {} arguments: no such core-module function", row.name, row.arity));
            continue;
        }
        let differentiable = decls.iter().any(|d| d.differentiable);
        if differentiable != row.differentiable {
            problems.push(format!(
                "`{}`: the table says {}differentiable, the core module {}",
                row.name,
                if row.differentiable { "" } else { "not " },
                if differentiable { "[Differentiable]" } else { "no [Differentiable]" }
            ));
        }
        let elementwise = decls.iter().any(|d| d.elementwise);
        if row.shape != Shape::Other && elementwise != (row.shape == Shape::Elementwise) {
            problems.push(format!(
                "`{}`: the table says {:?}, the core module {}",
                row.name,
                row.shape,
                if elementwise { "[__elementwise]" } else { "not element-wise" }
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_differentiable_math_function_has_a_row() {
    let rows = rows();
    let differentiable: Vec<(String, Vec<Decl>)> = core_functions()
        .into_iter()
        .filter(|(name, decls)| !name.starts_with("__") && decls.iter().any(|d| d.in_math && d.differentiable))
        .collect();
    assert!(differentiable.len() > 40, "too few differentiable math functions: {}", differentiable.len());
    let missing: Vec<String> = differentiable
        .into_iter()
        .filter(|(name, _)| !rows.iter().any(|r| r.name == name && r.differentiable))
        .map(|(name, _)| name)
        .collect();
    assert!(missing.is_empty(), "differentiable core functions without a differentiable row: {missing:?}");
}

#[test]
fn names_are_unique() {
    let rows = rows();
    for (k, r) in rows.iter().enumerate() {
        assert!(!rows[..k].iter().any(|s| s.name == r.name), "`{}` has two rows", r.name);
    }
}

/// Every differentiable intrinsic has a forward rule, and nothing else
/// has one (an expanded function's derivative follows from its parts');
/// a rule's partial derivatives are one per argument.
#[test]
fn exactly_the_differentiable_intrinsics_have_a_rule() {
    let mut problems = Vec::new();
    for i in Intrinsic::ALL {
        let row = i.row();
        match (row.differentiable, row.rule) {
            (true, None) => problems.push(format!("`{}` is differentiable and has no rule", row.name)),
            (false, Some(_)) => problems.push(format!("`{}` is not differentiable and has a rule", row.name)),
            (true, Some(Rule::Partials(p))) if p.len() != row.arity => {
                problems.push(format!("`{}`: {} partial derivatives for {} arguments", row.name, p.len(), row.arity))
            }
            (true, Some(Rule::Linear)) if row.arity != 1 => {
                problems.push(format!("`{}`: a linear rule for {} arguments", row.name, row.arity))
            }
            (true, Some(Rule::Bilinear)) if row.arity != 2 => {
                problems.push(format!("`{}`: a bilinear rule for {} arguments", row.name, row.arity))
            }
            _ => {}
        }
    }
    for x in Expanded::ALL {
        if x.row().rule.is_some() {
            problems.push(format!("`{}` is expanded and has a rule", x.name()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
