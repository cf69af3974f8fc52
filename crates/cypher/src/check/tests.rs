use graphlancer_model::{GraphConfig, Value, generate};

use crate::ast::{NodePattern, Projection, Query, SingleQuery};

use super::*;

fn schema() -> Schema {
    generate(3, &GraphConfig::default()).expect("graph").schema
}

fn node(v: &str, label: &str) -> PathPattern {
    PathPattern {
        name: None,
        start: NodePattern { variable: Some(v.into()), labels: vec![label.into()], properties: Vec::new() },
        hops: Vec::new(),
    }
}

fn ret(items: Vec<(Expr, &str)>) -> Clause {
    Clause::Return(Projection {
        distinct: false,
        star: false,
        items: items.into_iter().map(|(e, a)| (e, a.to_owned())).collect(),
        predicate: None,
        order_by: Vec::new(),
        skip: None,
        limit: None,
    })
}

fn query(clauses: Vec<Clause>) -> Query {
    Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
}

fn prop(v: &str, k: &str) -> Expr {
    Expr::Property(Box::new(Expr::var(v)), k.into())
}

/// `MATCH (n:L) <clauses> RETURN <item>` for the schema's first label.
fn with_match(middle: Vec<Clause>, item: Expr) -> (Query, Schema) {
    let s = schema();
    let label = s.labels[0].name.clone();
    let mut clauses =
        vec![Clause::Match { optional: false, patterns: vec![node("n", &label)], guard: None, predicate: None }];
    clauses.extend(middle);
    clauses.push(ret(vec![(item, "a")]));
    (query(clauses), s)
}

#[test]
fn a_valid_query_passes() {
    let s = schema();
    let key = s.labels[0].keys[0].clone();
    let (q, s) = with_match(Vec::new(), prop("n", &key));
    assert_eq!(check(&q, &s), Ok(()));
}

#[test]
fn a_read_right_after_a_write_is_refused() {
    let s = schema();
    let label = s.labels[0].name.clone();
    let read = Clause::Match { optional: false, patterns: vec![node("m", &label)], guard: None, predicate: None };
    let delete = Clause::Delete { detach: true, variables: vec!["n".into()] };
    let (q, s) = with_match(vec![delete.clone(), read.clone()], Expr::var("m"));
    assert_eq!(check(&q, &s), Err("a read after a write needs a WITH between them".into()));
    let with = Clause::With(Projection::of(vec![(Expr::lit(Value::Int(0)), "x".into())]));
    let (q, s) = with_match(vec![delete, with, read], Expr::var("m"));
    assert_eq!(check(&q, &s), Ok(()));
}

#[test]
fn a_pattern_may_not_bind_a_variable_that_is_always_null() {
    let s = schema();
    let label = s.labels[0].name.clone();
    let null = Clause::With(Projection::of(vec![(Expr::lit(Value::Null), "m".into())]));
    let read = Clause::Match { optional: false, patterns: vec![node("m", &label)], guard: None, predicate: None };
    let (q, s) = with_match(vec![null, read], Expr::var("m"));
    assert_eq!(check(&q, &s), Err("'m' is always null, bound by a pattern".into()));
}

#[test]
fn out_of_scope_variables_are_refused() {
    let (q, s) = with_match(Vec::new(), Expr::var("m"));
    assert!(check(&q, &s).is_err());
}

#[test]
fn a_pattern_predicate_may_not_introduce_a_variable() {
    let s = schema();
    let label = s.labels[0].name.clone();
    let bound = Expr::PatternPredicate(Box::new(node("n", &label)));
    let (q, s) = with_match(Vec::new(), bound);
    assert_eq!(result_types(&q, &s), Ok(vec![Some(Ty::Bool)]));
    let fresh = Expr::PatternPredicate(Box::new(node("m", &label)));
    let (q, s) = with_match(Vec::new(), fresh);
    assert_eq!(check(&q, &s), Err("a pattern predicate introduces 'm'".into()));
}

#[test]
fn wrong_types_are_refused() {
    let (q, s) = with_match(Vec::new(), Expr::Not(Box::new(Expr::lit(Value::Int(1)))));
    assert!(check(&q, &s).is_err());
    let (q, s) = with_match(
        Vec::new(),
        Expr::binary(BinOp::And, Expr::lit(Value::String("a".into())), Expr::lit(Value::Bool(true))),
    );
    assert!(check(&q, &s).is_err());
}

#[test]
fn calls_are_typed_by_the_function_table() {
    let int = || Expr::lit(Value::Int(1));
    let text = || Expr::lit(Value::String("a".into()));
    let typed = |e: Expr| {
        let (q, s) = with_match(Vec::new(), e);
        result_types(&q, &s)
    };
    assert_eq!(typed(Expr::Function("left".into(), vec![text(), int()])), Ok(vec![Some(Ty::String)]));
    assert_eq!(typed(Expr::Function("head".into(), vec![Expr::List(vec![int()])])), Ok(vec![Some(Ty::Int)]));
    assert_eq!(typed(Expr::Function("abs".into(), vec![Expr::lit(Value::Float(1.5))])), Ok(vec![Some(Ty::Float)]));
    assert!(typed(Expr::Function("toUpper".into(), vec![int()])).is_err(), "a wrong argument type");
    assert!(typed(Expr::Function("left".into(), vec![text()])).is_err(), "a missing argument");
    assert!(typed(Expr::Function("coalesce".into(), vec![int(), text()])).is_err(), "mixed coalesce");
    assert!(typed(Expr::Function("nosuch".into(), vec![])).is_err(), "an unknown function");
}

#[test]
fn unknown_keys_are_refused() {
    let (q, s) = with_match(Vec::new(), prop("n", "no_such_key"));
    assert!(check(&q, &s).is_err());
}

#[test]
fn reads_after_delete_are_refused() {
    let delete = Clause::Delete { detach: true, variables: vec!["n".into()] };
    let (q, s) = with_match(vec![delete], Expr::var("n"));
    assert!(check(&q, &s).is_err());
}

#[test]
fn every_clause_of_a_foreach_body_is_checked() {
    let s = schema();
    let label = s.labels[0].name.clone();
    let body = vec![Clause::Delete { detach: true, variables: vec!["nobody".into()] }];
    let each = Clause::Foreach { variable: "x".into(), list: Expr::List(vec![Expr::lit(Value::Int(1))]), body };
    let (q, s) = with_match(vec![each], Expr::lit(Value::Int(1)));
    assert!(check(&q, &s).is_err(), "a DELETE of an unknown variable in FOREACH");
    let body = vec![Clause::Create { patterns: vec![node("c", &label)] }];
    let each = Clause::Foreach { variable: "x".into(), list: Expr::List(vec![Expr::lit(Value::Int(1))]), body };
    let (q, s) = with_match(vec![each], Expr::lit(Value::Int(1)));
    assert_eq!(check(&q, &s), Ok(()));
}
