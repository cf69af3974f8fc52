//! What a finding's query is made of, for its signature: the constructs
//! left after reduction are the ones the finding needs.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Expr, PathPattern, Query};
use graphlancer_model::Value;

/// The constructs a query uses, as a sorted set: clause kinds and their
/// modifiers, pattern shapes, functions, aggregates and operators (labels,
/// types, keys and literal values left out, guards too). After a reduction
/// to a fixpoint every construct left is one the finding needs, so this
/// set names a root cause where the clause sequence of the generated query
/// named one query: signatures key on it.
pub fn constructs(query: &Query) -> String {
    let mut out: BTreeSet<String> = BTreeSet::new();
    if query.parts.len() > 1 {
        out.insert(if query.union_all { "UNION ALL" } else { "UNION" }.into());
    }
    for part in &query.parts {
        clause_constructs(&part.clauses, &mut out, true);
    }
    out.into_iter().collect::<Vec<_>>().join(",")
}

/// What one clause is made of without its expressions: its kind, its
/// modifiers and its pattern shapes, `WHERE` when it filters. Where rows
/// first part after a clause whose expressions both engines evaluate
/// alike, this names the clause's fault; the operators would only tell
/// reports of one fault apart.
pub fn clause_shape(clause: &Clause) -> String {
    let mut out: BTreeSet<String> = BTreeSet::new();
    clause_constructs(std::slice::from_ref(clause), &mut out, false);
    if let Clause::Match { predicate: Some(_), .. } = clause {
        out.insert("WHERE".into());
    }
    out.into_iter().collect::<Vec<_>>().join(",")
}

fn clause_constructs(clauses: &[Clause], out: &mut BTreeSet<String>, expressions: bool) {
    let mut add = |s: &str| {
        out.insert(s.to_owned());
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    let mut patterns: Vec<&PathPattern> = Vec::new();
    let mut bodies: Vec<&[Clause]> = Vec::new();
    for c in clauses {
        match c {
            Clause::Match { optional, patterns: ps, predicate, .. } => {
                add(if *optional { "OPTIONAL MATCH" } else { "MATCH" });
                if ps.len() > 1 {
                    add("pattern:parts");
                }
                patterns.extend(ps);
                exprs.extend(predicate);
            }
            Clause::Unwind { list, .. } => {
                add("UNWIND");
                exprs.push(list);
            }
            Clause::Procedure { name, predicate, .. } => {
                add(&format!("CALL {name}()"));
                exprs.extend(predicate);
            }
            Clause::With(p) | Clause::Return(p) => {
                add(if matches!(c, Clause::With(_)) { "WITH" } else { "RETURN" });
                for (on, name) in [
                    (p.distinct, "DISTINCT"),
                    (p.star, "*"),
                    (!p.order_by.is_empty(), "ORDER BY"),
                    (p.skip.is_some(), "SKIP"),
                    (p.limit.is_some(), "LIMIT"),
                    (p.predicate.is_some() && matches!(c, Clause::With(_)), "WITH WHERE"),
                ] {
                    if on {
                        add(name);
                    }
                }
                exprs.extend(p.items.iter().map(|(e, _)| e));
                exprs.extend(&p.predicate);
                exprs.extend(p.order_by.iter().map(|(e, _)| e));
            }
            Clause::Create { patterns: ps } => {
                add("CREATE");
                patterns.extend(ps);
            }
            Clause::Merge { pattern, on_create, on_match } => {
                add("MERGE");
                if !on_create.is_empty() {
                    add("ON CREATE");
                }
                if !on_match.is_empty() {
                    add("ON MATCH");
                }
                patterns.push(pattern);
            }
            Clause::Set { items } => {
                use graphlancer_cypher::ast::SetItem;
                for i in items {
                    add(match i {
                        SetItem::Property(..) => "SET property",
                        SetItem::MergeMap(..) => "SET +=",
                        SetItem::ReplaceMap(..) => "SET =",
                        SetItem::Label(..) => "SET label",
                    });
                }
            }
            Clause::Remove { items } => {
                use graphlancer_cypher::ast::RemoveItem;
                for i in items {
                    add(if matches!(i, RemoveItem::Label(..)) { "REMOVE label" } else { "REMOVE property" });
                }
            }
            Clause::Delete { detach, .. } => add(if *detach { "DETACH DELETE" } else { "DELETE" }),
            Clause::Foreach { list, body, .. } => {
                add("FOREACH");
                exprs.push(list);
                bodies.push(body);
            }
            Clause::Call { body, union_all, .. } => {
                add("CALL");
                if !union_all.is_empty() {
                    add("UNION ALL");
                }
                bodies.extend(std::iter::once(body).chain(union_all).map(|b| b.clauses.as_slice()));
            }
        }
    }
    for b in bodies {
        clause_constructs(b, out, expressions);
    }
    for p in patterns {
        pattern_constructs(p, out, expressions);
    }
    if expressions {
        for e in exprs {
            expr_constructs(e, out);
        }
    }
}

fn pattern_constructs(p: &PathPattern, out: &mut BTreeSet<String>, expressions: bool) {
    use graphlancer_cypher::ast::Direction;
    if p.name.is_some() {
        out.insert("pattern:named path".into());
    }
    if p.hops.len() > 1 {
        out.insert("pattern:hops".into());
    }
    let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
    let mut props: Vec<&Expr> = nodes.flat_map(|n| n.properties.iter().map(|(_, e)| e)).collect();
    for (r, _) in &p.hops {
        if r.length.is_some() {
            out.insert("pattern:variable length".into());
        }
        if r.direction == Direction::Both {
            out.insert("pattern:undirected".into());
        }
        if r.types.len() > 1 {
            out.insert("pattern:type alternatives".into());
        }
        props.extend(r.properties.iter().map(|(_, e)| e));
    }
    if !props.is_empty() {
        out.insert("pattern:properties".into());
    }
    if expressions {
        for e in props {
            expr_constructs(e, out);
        }
    }
}

fn expr_constructs(e: &Expr, out: &mut BTreeSet<String>) {
    let mut nested: Vec<PathPattern> = Vec::new();
    e.walk(&mut |x| {
        let name = match x {
            Expr::Literal(Value::Null) => "null".to_owned(),
            Expr::Literal(_) | Expr::Variable(_) | Expr::Property(..) => return,
            Expr::Binary(op, ..) => format!("op:{}", op.text()),
            Expr::Not(_) => "op:NOT".into(),
            Expr::Negate(_) => "op:-".into(),
            Expr::IsNull { negated, .. } => if *negated { "IS NOT NULL" } else { "IS NULL" }.into(),
            Expr::Function(f, _) => format!("fn:{f}"),
            Expr::Aggregate { name, distinct, .. } => format!("agg:{name}{}", if *distinct { " DISTINCT" } else { "" }),
            Expr::Case { subject, .. } => if subject.is_some() { "CASE subject" } else { "CASE" }.into(),
            Expr::List(_) => "list".into(),
            Expr::Index(..) => "index".into(),
            Expr::Slice(..) => "slice".into(),
            Expr::ListComprehension { .. } => "list comprehension".into(),
            Expr::PatternComprehension { pattern, .. } => {
                nested.push(pattern.as_ref().clone());
                "pattern comprehension".into()
            }
            Expr::Quantified { quantifier, .. } => format!("{quantifier:?}").to_lowercase(),
            Expr::Reduce { .. } => "reduce".into(),
            Expr::Map(_) => "map".into(),
            Expr::MapProjection(..) => "map projection".into(),
            Expr::MapProjectionWith { .. } => "map projection with entries".into(),
            Expr::ExistsSubquery(p, _) => {
                nested.push(p.as_ref().clone());
                "EXISTS".into()
            }
            Expr::PatternPredicate(p) => {
                nested.push(p.as_ref().clone());
                "pattern predicate".into()
            }
            Expr::ShortestPath(p) => {
                nested.push(p.as_ref().clone());
                "shortestPath".into()
            }
            Expr::HasLabels(..) => "label predicate".into(),
        };
        out.insert(name);
    });
    for p in &nested {
        pattern_constructs(p, out, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphlancer_cypher::ast::{BinOp, NodePattern, Projection};

    fn query(label: &str, value: i64, function: &str) -> Query {
        let node = NodePattern { variable: Some("n".into()), labels: vec![label.into()], properties: Vec::new() };
        let predicate = Expr::binary(
            BinOp::Gt,
            Expr::Function(function.into(), vec![Expr::Property(Box::new(Expr::var("n")), "k0".into())]),
            Expr::lit(Value::Int(value)),
        );
        let matching = Clause::Match {
            optional: true,
            patterns: vec![PathPattern { name: None, start: node, hops: Vec::new() }],
            guard: Some(Expr::lit(Value::Bool(true))),
            predicate: Some(predicate),
        };
        let ret = Clause::Return(Projection::of(vec![(Expr::count_star(), "c".into())]));
        Query {
            parts: vec![graphlancer_cypher::ast::SingleQuery { clauses: vec![matching, ret] }],
            union_all: false,
            spelling: Default::default(),
        }
    }

    #[test]
    fn data_does_not_count_and_constructs_do() {
        let a = constructs(&query("L0", 1, "abs"));
        assert_eq!(a, "OPTIONAL MATCH,RETURN,agg:count,fn:abs,op:>");
        assert_eq!(a, constructs(&query("L2", 7, "abs")), "labels and literals are data");
        assert_ne!(a, constructs(&query("L0", 1, "sign")));
    }

    #[test]
    fn a_clause_shape_leaves_its_expressions_out() {
        let q = graphlancer_cypher::parse::parse(
            "MATCH (a)-[r:T0|T1 {k: abs(1)}]-(b) WHERE a.k CONTAINS '' MERGE (c {k: 1}) ON CREATE SET c.k = 2 RETURN 0",
        )
        .expect("parses");
        let clauses = &q.parts[0].clauses;
        assert_eq!(
            clause_shape(&clauses[0]),
            "MATCH,WHERE,pattern:properties,pattern:type alternatives,pattern:undirected"
        );
        assert_eq!(clause_shape(&clauses[1]), "MERGE,ON CREATE,pattern:properties");
        assert_eq!(clause_shape(&query("L0", 1, "abs").parts[0].clauses[0]), "OPTIONAL MATCH,WHERE");
    }
}
