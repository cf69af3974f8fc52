use crate::render;

use super::*;

#[test]
fn a_rendered_query_parses_back_to_itself() {
    let text = "MATCH (n0:L0)-[r0:T1|T2*1..2]->(n1 {k0: 3}) WHERE (n0.k1 > -3) \
                WITH n0, count(DISTINCT n1) AS c ORDER BY c DESC SKIP 1 LIMIT 2 RETURN n0.k0 AS a, c";
    let q = parse(text).expect("a value");
    assert_eq!(parse(&render(&q)).expect("a value"), q);
    let Clause::With(w) = &q.parts[0].clauses[1] else { panic!("{q:?}") };
    assert_eq!((w.skip, w.limit, w.order_by.len()), (Some(1), Some(2), 1));
}

#[test]
fn shortest_paths_and_unbounded_lengths_parse_back_to_themselves() {
    let text = "MATCH (a), (b) RETURN length(shortestPath((a)-[:T0|T1*0..]->(b))) AS l, \
                shortestPath((b)<-[*1..3]-(a)) IS NULL AS n";
    let q = parse(text).expect("a value");
    let Clause::Return(r) = &q.parts[0].clauses[1] else { panic!("{q:?}") };
    let Expr::Function(_, args) = &r.items[0].0 else { panic!("{r:?}") };
    let Expr::ShortestPath(p) = &args[0] else { panic!("{args:?}") };
    assert_eq!(p.hops[0].0.length, Some((0, u32::MAX)));
    assert!(render(&q).contains("length(shortestPath((a)-[:T0|T1*0..]->(b)))"), "{}", render(&q));
    assert_eq!(parse(&render(&q)).expect("a value"), q);
}

#[test]
fn floats_not_spelled_with_exponents_have_none() {
    let q = parse("RETURN 1e-7 AS a, [-2.5e16, 0.5] AS b, 5e-324 AS c").expect("a value");
    let text = render(&q);
    assert!(!text.contains('e'), "{text}");
    assert!(text.contains("0.0000001 AS a") && text.contains("[-25000000000000000.0, 0.5] AS b"), "{text}");
    assert_eq!(parse(&text).expect("a value"), q, "{text}");
    // Spelled with a leading point, a small float has no exponent either.
    let mut spelled = q.clone();
    spelled.spelling.float_leading_point = true;
    let text = render(&spelled);
    assert!(!text.contains('e') && text.contains(".0000001 AS a"), "{text}");
    assert_eq!(parse(&text).expect("a value"), q, "{text}");
}

#[test]
fn a_number_with_a_unary_plus_is_the_number() {
    let q = parse("RETURN +5 AS a, -+5 AS b, +2.5 AS c").expect("a value");
    let Clause::Return(r) = &q.parts[0].clauses[0] else { panic!("{q:?}") };
    assert_eq!(r.items[0].0, Expr::lit(Value::Int(5)));
    assert_eq!(r.items[1].0, Expr::Negate(Box::new(Expr::lit(Value::Int(5)))));
    assert_eq!(r.items[2].0, Expr::lit(Value::Float(2.5)));
    assert!(matches!(parse("RETURN +'a' AS a"), Err(ParseError::Outside(_))));
    // Spelled with unary plus, a negated number keeps one sign: Neo4j 5
    // refuses `-+5` (its grammar takes one sign before a number).
    let mut spelled = q.clone();
    spelled.spelling.unary_plus = true;
    let text = render(&spelled);
    assert!(text.contains("AS a") && text.contains("+5 AS a") && text.contains("(-5) AS b"), "{text}");
    assert!(!text.contains("-+"), "{text}");
}

#[test]
fn only_a_querys_own_return_names_a_column_by_its_text() {
    let mut q = parse("MATCH (n) WITH n.k0 AS a CALL { WITH n RETURN n.k1 AS b } RETURN n.k2 AS c").expect("a value");
    let Clause::With(w) = &mut q.parts[0].clauses[1] else { panic!("{q:?}") };
    w.items[0].1 = "n.k0".into();
    let Clause::Call { body, .. } = &mut q.parts[0].clauses[2] else { panic!("{q:?}") };
    let Some(Clause::Return(inner)) = body.clauses.last_mut() else { panic!("{q:?}") };
    inner.items[0].1 = "n.k1".into();
    let Some(Clause::Return(r)) = q.parts[0].clauses.last_mut() else { panic!("{q:?}") };
    r.items[0].1 = "n.k2".into();
    assert_eq!(render(&q), "MATCH (n) WITH n.k0 AS `n.k0` CALL { WITH n RETURN n.k1 AS `n.k1` } RETURN n.k2");
}

#[test]
fn map_projections_with_entries_parse_back_to_themselves() {
    let text = "MATCH (n) WITH n, 1 AS x RETURN n{.k0, m0: (x + 1), x} AS m";
    let q = parse(text).expect("a value");
    let Clause::Return(r) = &q.parts[0].clauses[2] else { panic!("{q:?}") };
    let Expr::MapProjectionWith { keys, entries, .. } = &r.items[0].0 else { panic!("{r:?}") };
    assert_eq!((keys.len(), entries.len()), (1, 2));
    assert_eq!(render(&q), text);
}

#[test]
fn quantified_relationships_parenthesized_paths_and_when_lists_spell_back() {
    let text = "MATCH (a)-[:T0]->(b)-[:T1*1..3]->(c) WHERE (a.k0 > 1) RETURN CASE a.k1 WHEN 'x' THEN 1 \
                WHEN 'y' THEN 1 ELSE 2 END AS c";
    let mut q = parse(text).expect("a value");
    q.spelling.quantified = true;
    q.spelling.parenthesized = true;
    q.spelling.when_list = true;
    let spelled = render(&q);
    assert_eq!(
        spelled,
        "MATCH ((a)-[:T0]->(b)-[:T1]->{1,3}(c) WHERE a.k0 > 1) RETURN CASE a.k1 WHEN 'x', 'y' THEN 1 ELSE 2 END AS c"
    );
    let mut back = parse(&spelled.replace(" WHEN 'x', 'y' THEN", " WHEN 'x' THEN 1 WHEN 'y' THEN")).expect("a value");
    back.spelling = q.spelling;
    assert_eq!(back, q);
}

#[test]
fn label_expressions_are_label_tests_and_spell_back() {
    let text = "MATCH (a:L0&L1) WHERE ((a:L0|L2) AND (a:!L3)) AND (a:L0&L1) RETURN a";
    let q = parse(text).expect("a value");
    let Clause::Match { patterns, predicate: Some(p), .. } = &q.parts[0].clauses[0] else { panic!("{q:?}") };
    assert_eq!(patterns[0].start.labels, ["L0", "L1"]);
    let has = |l: &[&str]| Expr::HasLabels("a".into(), l.iter().map(|s| (*s).to_owned()).collect());
    let either = Expr::binary(BinOp::Or, has(&["L0"]), has(&["L2"]));
    let expected = Expr::and_all([either, Expr::Not(Box::new(has(&["L3"]))), has(&["L0", "L1"])]);
    assert_eq!(Some(p), expected.as_ref());
    assert_eq!(render(&q), "MATCH (a:L0:L1) WHERE (((a:L0) OR (a:L2)) AND (NOT (a:L3))) AND (a:L0:L1) RETURN a");
    let mut spelled = q.clone();
    spelled.spelling.label_and = true;
    spelled.spelling.label_or = true;
    spelled.spelling.label_not = true;
    assert_eq!(render(&spelled), text);
}

#[test]
fn where_inside_pattern_elements_is_a_conjunct_of_the_match_where() {
    // The elements with a WHERE last: the open-cypher crate takes any
    // `(b)-->(c)` after a node's WHERE for a pattern expression.
    let text = "MATCH (b)-[s:T1*1..2]->(c), (a:L0)-[r:T0]->(b) WHERE a.k0 > 1 AND r.k1 = 2 AND a.k0 < b.k0 \
                AND size(s) > 0 RETURN a";
    let mut q = parse(text).expect("a value");
    q.spelling.node_where = true;
    q.spelling.rel_where = true;
    let (spelled, used) = crate::render::render_spelled(&q);
    assert!(
        spelled.starts_with(
            "MATCH (b)-[s:T1*1..2]->(c), (a:L0 WHERE (a.k0 > 1))-[r:T0 WHERE (r.k1 = 2)]->(b) \
             WHERE (a.k0 < b.k0) AND (size(s) > 0)"
        ),
        "{spelled}"
    );
    assert!(used.contains(&crate::Feature::NodeWhere) && used.contains(&crate::Feature::RelWhere));
    // The same patterns and the same conjuncts, in the same order.
    let back = parse(&spelled).expect("a value");
    let parts = |q: &Query| match &q.parts[0].clauses[0] {
        Clause::Match { patterns, predicate: Some(p), .. } => {
            (patterns.clone(), p.conjuncts().into_iter().cloned().collect::<Vec<_>>())
        }
        c => panic!("{c:?}"),
    };
    assert_eq!(parts(&back), parts(&q));
    assert!(matches!(parse("CREATE (a WHERE a.k = 1)"), Err(ParseError::Outside(_) | ParseError::Syntax(_))));
}

#[test]
fn call_subqueries_parse_though_the_grammar_lacks_them() {
    let text = "UNWIND [1] AS y CALL { WITH y CALL { RETURN 5 AS z } RETURN y + z AS x \
                UNION ALL WITH y RETURN 0 AS x } RETURN x AS x, '} CALL {' AS s";
    let q = parse(text).expect("a value");
    let Clause::Call { imports, body, union_all } = &q.parts[0].clauses[1] else { panic!("{q:?}") };
    assert_eq!(imports, &["y".to_owned()]);
    assert!(matches!(body.clauses[0], Clause::Call { .. }), "{body:?}");
    assert_eq!(union_all.len(), 1);
    assert_eq!(parse(&render(&q)).expect("a value"), q);
    let Clause::Return(r) = &q.parts[0].clauses[2] else { panic!("{q:?}") };
    assert_eq!(r.items[1].0, Expr::lit(Value::String("} CALL {".into())), "a string keeps its braces");
    assert!(matches!(parse("CALL { RETURN 1 AS x"), Err(ParseError::Syntax(_))));
    assert!(matches!(parse("CALL graphlancer_subquery_0()"), Err(ParseError::Outside(_))), "no such subquery");
}

#[test]
fn an_unaliased_return_item_is_named_by_its_text() {
    let q = parse("RETURN 1 + 2, toupper('a')").expect("a value");
    let Clause::Return(r) = &q.parts[0].clauses[0] else { panic!() };
    assert_eq!(r.items[0].1, "1 + 2");
    assert_eq!(r.items[1].0, Expr::Function("toUpper".into(), vec![Expr::lit(Value::String("a".into()))]));
}

#[test]
fn what_the_ast_cannot_hold_is_named_not_approximated() {
    for (text, expected) in [
        ("RETURN $p", "a parameter"),
        ("CALL db.labels()", "a procedure call"),
        ("CALL db.indexes() YIELD name", "the procedure db.indexes"),
        ("MATCH p = SHORTEST 1 (a)-->+(b) RETURN p", "a path selector"),
        ("RETURN 'a' || 'b'", "the || operator"),
    ] {
        let err = parse(text).expect_err("an error");
        assert!(matches!(&err, ParseError::Outside(m) if m.contains(expected)), "{text}: {err}");
    }
    assert!(matches!(parse("RETURN 9223372036854775808"), Err(ParseError::Syntax(_))));
    assert!(matches!(parse("MATCH (n RETURN n"), Err(ParseError::Syntax(_))));
    assert!(matches!(parse("WITH 1 + 1 RETURN 1"), Err(ParseError::Syntax(_))));
}

/// The short form `EXISTS { p }` means `EXISTS { MATCH p }` (Neo4j 5), a
/// labelled node included, which the grammar we parse with refuses in the
/// short form. Inside a string nothing is rewritten.
#[test]
fn short_subquery_forms_read_as_their_match_forms() {
    for (short, long) in [
        (
            "MATCH (n) WHERE EXISTS { (n)<-[:T1]-(:L1) } RETURN n",
            "MATCH (n) WHERE EXISTS { MATCH (n)<-[:T1]-(:L1) } RETURN n",
        ),
        ("MATCH (n) RETURN exists {(m:L0)--(n)} AS e", "MATCH (n) RETURN EXISTS { MATCH (m:L0)--(n) } AS e"),
    ] {
        assert_eq!(parse(short).unwrap_or_else(|e| panic!("{short}: {e}")), parse(long).expect("the long form parses"));
    }
    let q = parse("RETURN 'EXISTS { (n) }' AS s").expect("a value");
    assert!(render(&q).contains("'EXISTS { (n) }'"), "{}", render(&q));
}
