use graphlancer_model::Node;

use super::*;

fn one_column(values: Vec<Value>) -> ResultSet {
    ResultSet::new(vec!["x".into()], values.into_iter().map(|v| vec![v]).collect())
}

#[test]
fn numbers_where_the_other_engine_has_entities_are_one_name() {
    let node = Value::Node(Node { labels: vec!["L2".into()], properties: [("gid".into(), Value::Int(3))].into() });
    let ids = one_column(vec![Value::List(vec![Value::Int(0)]), Value::Int(7)]);
    let entities = one_column(vec![Value::List(vec![node.clone()]), node.clone()]);
    assert_eq!(entity_as_number(&ids, &entities), Some(0));
    assert_eq!(entity_as_number(&entities, &ids), Some(1));
    // Different counts, or entities on both sides, or another difference
    // beside the entity: not this bug.
    assert_eq!(entity_as_number(&one_column(vec![Value::Int(1)]), &one_column(vec![Value::Int(2)])), None);
    assert_eq!(entity_as_number(&entities, &entities), None);
    let other = one_column(vec![Value::List(vec![Value::Int(0), Value::Int(1)]), Value::Int(7)]);
    assert_eq!(entity_as_number(&other, &entities), None);
    assert_eq!(entity_as_number(&one_column(vec![Value::Int(0)]), &entities), None);
    // A null where the other engine has an entity is not a number.
    let nulls = one_column(vec![Value::List(vec![Value::Null]), Value::Null]);
    assert_eq!(entity_as_number(&nulls, &entities), None);
}

#[test]
fn constant_grouping_keys_are_one_kind_and_change_no_group() {
    use graphlancer_cypher::ast::BinOp;
    let schema = Schema { keys: Vec::new(), labels: Vec::new(), rel_types: Vec::new() };
    let int = |i: i64| Expr::lit(Value::Int(i));
    let product = Expr::binary(BinOp::Mul, int(14), int(33));
    assert_eq!(keys(&[], [int(0)].iter(), &schema), "constant");
    assert_eq!(keys(&[], [product.clone(), Expr::lit(Value::Float(0.5))].iter(), &schema), "constant");
    let x = Expr::var("x");
    assert_eq!(keys(&[], [x.clone(), product].iter(), &schema), keys(&[], [x].iter(), &schema));
}

#[test]
fn a_grouping_answer_with_two_rows_of_equal_keys_repeats_them() {
    use graphlancer_model::{ResultSet, Value};
    let query =
        graphlancer_cypher::parse::parse("MATCH (n) RETURN n.k AS p, true AS b, count(*) AS c").expect("parses");
    let answer = |rows: Vec<Vec<Value>>| Outcome::Rows(ResultSet::new(vec!["p".into(), "b".into(), "c".into()], rows));
    let row = |p: Value, c: i64| vec![p, Value::Bool(true), Value::Int(c)];
    // A NULL key twice: one group split in two.
    assert!(repeats_keys(&query, &answer(vec![row(Value::Null, 1), row(Value::Null, 1), row(Value::Int(1), 2)])));
    assert!(!repeats_keys(&query, &answer(vec![row(Value::Null, 2), row(Value::Int(1), 2)])));
    // Rows that differ only in an aggregate are repeated keys too.
    assert!(repeats_keys(&query, &answer(vec![row(Value::Int(1), 1), row(Value::Int(1), 2)])));
    // Float keys one ULP apart are two groups, as the engine made them
    // (FalkorDB's percentileCont of [c, c] is c + 1 ULP in one plan).
    let c = 0.125f64.cos();
    let ulp = f64::from_bits(c.to_bits() + 1);
    assert!(!repeats_keys(&query, &answer(vec![row(Value::Float(c), 1), row(Value::Float(ulp), 1)])));
    assert!(repeats_keys(&query, &answer(vec![row(Value::Float(c), 1), row(Value::Float(c), 1)])));
    // Without grouping, equal rows are just rows.
    let plain = graphlancer_cypher::parse::parse("MATCH (n) RETURN n.k AS p, true AS b, 1 AS c").expect("parses");
    assert!(!repeats_keys(&plain, &answer(vec![row(Value::Null, 1), row(Value::Null, 1)])));
    // A DISTINCT merges rows as a grouping does.
    let distinct =
        graphlancer_cypher::parse::parse("MATCH (n) RETURN DISTINCT n.k AS p, true AS b, 1 AS c").expect("parses");
    assert!(repeats_keys(&distinct, &answer(vec![row(Value::Null, 1), row(Value::Null, 1)])));
}

#[test]
fn a_case_is_named_by_the_types_it_can_give() {
    let schema = Schema { keys: Vec::new(), labels: Vec::new(), rel_types: Vec::new() };
    let name = |text: &str| {
        let q = graphlancer_cypher::parse::parse(&format!("UNWIND [1, null] AS x RETURN {text} AS c")).expect("parses");
        let Clause::Return(r) = q.parts[0].clauses.last().expect("a RETURN") else { panic!("not a RETURN") };
        kind_with_operands(&q.parts[0].clauses[..1], &r.items[0].0, &schema)
    };
    let searched = name("CASE WHEN x > 0 THEN 1 END");
    assert_eq!(searched, "case(Int)");
    // An ELSE of the same type, or another form of CASE: the same name.
    assert_eq!(name("CASE WHEN x > 0 THEN 1 ELSE x END"), searched);
    assert_eq!(name("CASE x WHEN 1 THEN 2 WHEN 3 THEN 4 END"), searched);
    // Results of other types are another CASE.
    assert_eq!(name("CASE WHEN x > 0 THEN 'a' ELSE 1.5 END"), "case(Float,String)");
}

#[test]
fn grouping_keys_are_named_by_their_classes() {
    let schema = Schema { keys: Vec::new(), labels: Vec::new(), rel_types: Vec::new() };
    let q = graphlancer_cypher::parse::parse("MATCH (n)-[r]->(m) UNWIND [1.5] AS f RETURN 0").expect("parses");
    let before = &q.parts[0].clauses[..2];
    let named = |texts: &[&str]| {
        let exprs: Vec<Expr> = texts
            .iter()
            .map(|t| {
                let q = graphlancer_cypher::parse::parse(&format!("RETURN {t} AS k")).expect("parses");
                let Clause::Return(r) = &q.parts[0].clauses[0] else { panic!("not a RETURN") };
                r.items[0].0.clone()
            })
            .collect();
        keys(before, exprs.iter(), &schema)
    };
    // Relationships alone, however many and beside whatever values.
    assert_eq!(named(&["r"]), "Rel");
    assert_eq!(named(&["r", "r"]), "Rel");
    assert_eq!(named(&["f", "r", "f + 1.0"]), "Rel;value");
    // Values are alike, whatever computes them; entities and maps are not.
    assert_eq!(named(&["f"]), named(&["f * 2.0"]));
    assert_eq!(named(&["n", "r"]), "Node;Rel");
    assert_eq!(named(&["{a: f}"]), "Map");
    assert_eq!(named(&["0", "f"]), "value");
}
