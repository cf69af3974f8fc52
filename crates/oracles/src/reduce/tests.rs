use graphlancer_cypher::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, RelPattern, SingleQuery,
};
use graphlancer_model::Value;

use super::name::*;
use super::rename::*;
use super::*;
use crate::edit::*;

fn node(v: &str) -> NodePattern {
    NodePattern { variable: Some(v.into()), labels: Vec::new(), properties: Vec::new() }
}

fn hop(r: &str, n: &str) -> (RelPattern, NodePattern) {
    let rel = RelPattern {
        variable: Some(r.into()),
        types: Vec::new(),
        direction: Direction::Out,
        length: None,
        properties: Vec::new(),
    };
    (rel, node(n))
}

/// `MATCH (a)-[r0]->(b), (b)-[r1]->(c)-[r2]->(d) WHERE r0 <> r1 AND r0 <> r2 AND r1 <> r2 RETURN a`.
fn guarded() -> Query {
    let ne = |a: &str, b: &str| Expr::binary(BinOp::Ne, Expr::var(a), Expr::var(b));
    let patterns = vec![
        PathPattern { name: None, start: node("a"), hops: vec![hop("r0", "b")] },
        PathPattern { name: None, start: node("b"), hops: vec![hop("r1", "c"), hop("r2", "d")] },
    ];
    let guard = Expr::and_all(vec![ne("r0", "r1"), ne("r0", "r2"), ne("r1", "r2")]);
    let clauses = vec![
        Clause::Match { optional: false, patterns, guard, predicate: None },
        Clause::Return(Projection::of(vec![(Expr::var("a"), "a".into())])),
    ];
    Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
}

/// `text` parsed, edited by `edit` and written again.
fn edited(text: &str, edit: fn(&mut Query)) -> String {
    let mut q = graphlancer_cypher::parse::parse(text).expect("parses");
    edit(&mut q);
    graphlancer_cypher::render(&q)
}

#[test]
fn computed_return_columns_lose_their_aliases_where_nothing_names_them() {
    let unalias = |text: &str| edited(text, unaliased);
    assert_eq!(
        unalias("MATCH (n) RETURN n AS n, count(*) AS a0, n.k AS a1, 0 AS a2 ORDER BY a1"),
        "MATCH (n) RETURN n, count(*), n.k AS a1, 0 ORDER BY a1"
    );
    // Two columns of one text would share a name; a UNION's parts must name theirs alike.
    assert_eq!(unalias("RETURN 0 AS a0, 0 AS a1"), "RETURN 0, 0 AS a1");
    assert_eq!(unalias("RETURN 0 AS a0 UNION RETURN 1 AS a0"), "RETURN 0 AS a0 UNION RETURN 1 AS a0");
    // A WITH's aliases are names later clauses use.
    assert_eq!(unalias("WITH 1 AS a0 RETURN a0 + 1 AS a1"), "WITH 1 AS a0 RETURN a0 + 1");
}

#[test]
fn pattern_variables_used_nowhere_else_lose_their_names() {
    let unname = |text: &str| edited(text, unnamed);
    assert_eq!(
        unname("MATCH (n0)-[r0:T0]->(n1), (n1)-[r1]->(n2) SET r0.k = 1 RETURN n2"),
        "MATCH ()-[r0:T0]->(n1), (n1)-[]->(n2) SET r0.k = 1 RETURN n2"
    );
    assert_eq!(unname("MATCH p0 = (n0)-[:T0]->(n1) RETURN n0"), "MATCH (n0)-[:T0]->() RETURN n0");
    assert_eq!(unname("MATCH (n0) WHERE n0.k > 1 RETURN 0"), "MATCH (n0) WHERE n0.k > 1 RETURN 0");
    // `WITH *` groups by every name in scope, however it is spelled.
    let mut all =
        graphlancer_cypher::parse::parse("MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0").expect("parses");
    all.spelling.return_all = true;
    let before = graphlancer_cypher::render(&all);
    assert!(before.contains("WITH ALL *"), "{before}");
    unnamed(&mut all);
    assert_eq!(graphlancer_cypher::render(&all), before);
    assert_eq!(
        unname("MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0"),
        "MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0"
    );
}

fn guard_text(c: &(Query, Option<Vec<usize>>)) -> String {
    graphlancer_cypher::render(&c.0)
}

#[test]
fn a_guard_about_a_relationship_no_longer_matched_goes_with_it() {
    let c = guarded();
    let hop_gone = apply(&c, &c, &None, &Edit::Clause(0, ClauseEdit::LastHop(1))).expect("applies");
    assert_eq!(guard_text(&hop_gone), "MATCH (a)-[r0]->(b), (b)-[r1]->(c) WHERE r0 <> r1 RETURN a",);
    let part_gone = apply(&c, &c, &None, &Edit::Clause(0, ClauseEdit::Pattern(1))).expect("applies");
    assert_eq!(guard_text(&part_gone), "MATCH (a)-[r0]->(b) RETURN a");
}

#[test]
fn literals_shrink_toward_zero_and_lists_element_by_element() {
    let lit = |v: Value| Expr::Literal(v);
    assert!(replacements(&lit(Value::Int(0))).is_empty(), "0 is as small as it gets");
    assert_eq!(replacements(&lit(Value::Bool(true))), vec![lit(Value::Int(0))]);
    assert_eq!(replacements(&lit(Value::Null)).len(), 6);
    let list = Expr::List(vec![lit(Value::Int(1)), Expr::var("x"), lit(Value::Int(2))]);
    let r = replacements(&list);
    assert!(r.contains(&Expr::List(vec![lit(Value::Int(1)), lit(Value::Int(2))])));
    assert!(r.contains(&Expr::List(vec![Expr::var("x"), lit(Value::Int(2))])));
}

#[test]
fn a_call_subquery_is_inlined_and_an_undirected_hop_directed() {
    let undirected = RelPattern {
        variable: None,
        types: Vec::new(),
        direction: Direction::Both,
        length: None,
        properties: Vec::new(),
    };
    let pattern = PathPattern { name: None, start: node("a"), hops: vec![(undirected, node("b"))] };
    let body = SingleQuery {
        clauses: vec![
            Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None },
            Clause::Return(Projection::of(vec![(Expr::count_star(), "c".into())])),
        ],
    };
    let clauses = vec![
        Clause::Call { imports: Vec::new(), body, union_all: Vec::new() },
        Clause::Return(Projection::of(vec![(Expr::var("c"), "c".into())])),
    ];
    let c = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() };
    let inline = Edit::Clause(0, ClauseEdit::Inline);
    assert!(edits(&c).contains(&inline));
    let (inlined, _) = apply(&c, &c, &None, &inline).expect("applies");
    assert_eq!(graphlancer_cypher::render(&inlined), "MATCH (a)-[]-(b) WITH *, count(*) AS c RETURN c");
    let directed = Edit::Clause(0, ClauseEdit::Directed(0, 0));
    assert!(edits(&inlined).contains(&directed));
    assert_eq!(
        guard_text(&apply(&inlined, &inlined, &None, &directed).expect("applies")),
        "MATCH (a)-[]->(b) WITH *, count(*) AS c RETURN c"
    );
}

/// Each operand of an operator or function is made non-null in turn,
/// outermost operations first (never a literal, or what is merely
/// returned, or what coalesce already guards), named by the operation
/// and the operand's type.
#[test]
fn null_operands_are_pinned_one_at_a_time_outermost_first() {
    use graphlancer_model::PropertyType;
    let schema = crate::tests::schema();
    let key = |ty| schema.keys.iter().find(|k| k.ty == ty).map(|k| k.name.clone()).expect("a key of the type");
    let (s, i) = (key(PropertyType::String), key(PropertyType::Int));
    let text = format!(
        "MATCH (n0) WHERE (((trim(n0.{s}) + '')) STARTS WITH 'a') \
         RETURN n0.{s} AS a0, coalesce(n0.{i}, 1) AS a1, abs(n0.{i}) AS a2"
    );
    let query = graphlancer_cypher::parse::parse(&text).expect("parses");
    let pinned = |target| {
        let mut q = query.clone();
        pin_null_operand(&mut q, target, &schema).map(|p| (p.kind, graphlancer_cypher::render(&q)))
    };
    let expected = [
        ("op:STARTS WITH(null String)", format!("coalesce((trim(n0.{s}) + ''), '') STARTS WITH")),
        ("op:+(null String)", format!("(coalesce(trim(n0.{s}), '') + '')")),
        ("fn:trim(null String)", format!("trim(coalesce(n0.{s}, ''))")),
        ("fn:abs(null Int)", format!("abs(coalesce(n0.{i}, 0))")),
    ];
    for (target, (kind, text)) in expected.iter().enumerate() {
        let (k, q) = pinned(target).expect("an operand");
        assert_eq!(k, *kind);
        assert!(q.contains(text.as_str()), "{q}");
    }
    assert_eq!(pinned(expected.len()), None);
}

#[test]
fn a_crash_in_a_projection_is_named_alike_in_a_with_and_a_return() {
    let agg = Expr::aggregate("count", true, Expr::lit(Value::Int(0)));
    let mut p = Projection::of(vec![(agg, "a".into())]);
    assert_eq!(crash_site_name(&Clause::With(p.clone())), "projection");
    assert_eq!(crash_site_name(&Clause::Return(p.clone())), "projection");
    p.distinct = true;
    assert_eq!(crash_site_name(&Clause::Return(p)), "projection,DISTINCT");
    let pattern = PathPattern { name: None, start: node("a"), hops: Vec::new() };
    let matched = Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None };
    assert_eq!(crash_site_name(&matched), "MATCH");
}

#[test]
fn leading_clauses_go_together_and_merge_actions_one_by_one() {
    let node =
        |v: &str, l: &str| NodePattern { variable: Some(v.into()), labels: vec![l.into()], properties: Vec::new() };
    let pattern = PathPattern { name: None, start: node("a", "L0"), hops: Vec::new() };
    let set = |k: &str| graphlancer_cypher::ast::SetItem::Property("a".into(), k.into(), Expr::Literal(Value::Int(1)));
    let clauses = vec![
        Clause::Match { optional: false, patterns: vec![pattern.clone()], guard: None, predicate: None },
        Clause::With(Projection::of(vec![(Expr::count_star(), "c".into())])),
        Clause::Merge { pattern, on_create: vec![set("k0")], on_match: vec![set("k1")] },
        Clause::Return(Projection::of(vec![(Expr::var("a"), "a".into())])),
    ];
    let c = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() };
    let all = edits(&c);
    assert!(all.contains(&Edit::Prefix(2)));
    let text = |e: &Edit| guard_text(&apply(&c, &c, &None, e).expect("applies"));
    assert_eq!(text(&Edit::Prefix(2)), "MERGE (a:L0) ON CREATE SET a.k0 = 1 ON MATCH SET a.k1 = 1 RETURN a");
    assert_eq!(
        text(&Edit::Clause(2, ClauseEdit::SetItem(0))),
        "MATCH (a:L0) WITH count(*) AS c MERGE (a:L0) ON MATCH SET a.k1 = 1 RETURN a"
    );
    assert!(all.contains(&Edit::Clause(2, ClauseEdit::SetItem(1))));
}

#[test]
fn a_union_is_edited_inside_each_part_and_column_by_column() {
    let part = |label: &str| {
        let pattern = PathPattern {
            name: None,
            start: NodePattern { variable: Some("a".into()), labels: vec![label.into()], properties: Vec::new() },
            hops: Vec::new(),
        };
        SingleQuery {
            clauses: vec![
                Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None },
                Clause::Return(Projection::of(vec![
                    (Expr::var("a"), "a".into()),
                    (Expr::Literal(Value::Int(1)), "b".into()),
                ])),
            ],
        }
    };
    let c = Query { parts: vec![part("L0"), part("L1")], union_all: false, spelling: Default::default() };
    let all = edits(&c);
    let text = |e: &Edit| guard_text(&apply(&c, &c, &None, e).expect("applies"));
    assert_eq!(text(&Edit::Part(1)), "MATCH (a:L1) RETURN a, 1 AS b");
    assert!(all.contains(&Edit::UnionColumn(1)));
    assert_eq!(text(&Edit::UnionColumn(1)), "MATCH (a:L0) RETURN a UNION MATCH (a:L1) RETURN a");
    let unlabel = Edit::InPart(1, Box::new(Edit::Clause(0, ClauseEdit::Label { part: 0, node: 0, label: 0 })));
    assert!(all.contains(&unlabel));
    assert_eq!(text(&unlabel), "MATCH (a:L0) RETURN a, 1 AS b UNION MATCH (a) RETURN a, 1 AS b");
}

#[test]
fn each_guard_conjunct_is_an_edit_known_as_one() {
    let c = guarded();
    let all = edits(&c);
    assert_eq!(all.iter().filter(|e| matches!(e, Edit::Clause(_, ClauseEdit::Guard(_)))).count(), 3);
    assert_eq!(all.iter().filter(|e| is_guard_edit(e)).count(), 3);
    assert!(is_guard_edit(&Edit::InPart(1, Box::new(Edit::Clause(0, ClauseEdit::Guard(0))))));
    let dropped = apply(&c, &c, &None, &Edit::Clause(0, ClauseEdit::Guard(1))).expect("applies");
    assert_eq!(
        guard_text(&dropped),
        "MATCH (a)-[r0]->(b), (b)-[r1]->(c)-[r2]->(d) WHERE (r0 <> r1) AND (r1 <> r2) RETURN a",
    );
}
