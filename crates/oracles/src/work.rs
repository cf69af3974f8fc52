//! How much work a query asks of an engine on a given graph, estimated from
//! the graph the tool generated: the most intermediate rows any clause can
//! produce. A timeout on a query that asks for millions of rows is an
//! expensive query, not a hang: the 10-minute triages found FalkorDB taking
//! 30–49 s over 22 million rows of two cross products, and LadybugDB 5 s
//! over 1.4 million rows of paths, on a machine busy with other work.
//!
//! The estimate is an upper bound in the spirit of a planner's worst case:
//! every pattern part not anchored on a bound variable multiplies the rows
//! by the nodes its labels allow, every hop by the average degree of its
//! types (to the power of its length for a variable-length hop), and
//! property constraints and WHERE are assumed to filter nothing.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Direction, Expr, PathPattern, Query, SingleQuery};
use graphlancer_model::{Graph, Value};

/// Rows a second every engine here manages even on a loaded machine (the
/// triaged timeouts ran at 3–7 × 10^5 rows a second): a query that needs
/// more rows than this times its timeout may time out without hanging.
pub const ROWS_PER_SECOND: f64 = 1e5;

/// Intermediate rows from which a timeout of `timeout` counts as an
/// expensive query: 10^6 for the default 10 s.
pub fn expensive(timeout: std::time::Duration) -> f64 {
    timeout.as_secs_f64() * ROWS_PER_SECOND
}

/// The largest number of rows any clause of `query` may produce on `graph`,
/// counting the pattern expansions its expressions make per row.
pub fn estimate(query: &Query, graph: &Graph) -> f64 {
    let stats = Stats::of(graph);
    query.parts.iter().map(|p| stats.single(p, 1.0, BTreeSet::new())).sum()
}

/// Node and relationship counts the estimate reads.
struct Stats<'g> {
    graph: &'g Graph,
    nodes: f64,
}

impl Stats<'_> {
    fn of(graph: &Graph) -> Stats<'_> {
        Stats { graph, nodes: graph.nodes.len().max(1) as f64 }
    }

    /// The work of `q` entered with `rows` rows and `bound` variables.
    fn single(&self, q: &SingleQuery, mut rows: f64, mut bound: BTreeSet<String>) -> f64 {
        let mut work = rows;
        for clause in &q.clauses {
            let mut per_row = 0.0;
            match clause {
                Clause::Match { optional, patterns, guard, predicate } => {
                    let mut factor = 1.0;
                    for p in patterns {
                        factor *= self.pattern(p, &bound);
                        bind(p, &mut bound);
                    }
                    rows = if *optional { rows * factor.max(1.0) } else { rows * factor };
                    per_row += guard.iter().chain(predicate).map(|e| self.expr(e, &bound)).sum::<f64>();
                }
                Clause::Unwind { list, alias } => {
                    per_row += self.expr(list, &bound);
                    rows *= length(list);
                    bound.insert(alias.clone());
                }
                Clause::With(p) | Clause::Return(p) => {
                    let exprs =
                        p.items.iter().map(|(e, _)| e).chain(&p.predicate).chain(p.order_by.iter().map(|(e, _)| e));
                    per_row += exprs.map(|e| self.expr(e, &bound)).sum::<f64>();
                    let grouped = p.items.iter().any(|(e, _)| e.has_aggregate());
                    if grouped && p.items.iter().all(|(e, _)| e.has_aggregate()) {
                        rows = 1.0;
                    }
                    if let Some(limit) = p.limit {
                        rows = rows.min(f64::from(limit));
                    }
                    if !p.star {
                        bound = p.items.iter().map(|(_, a)| a.clone()).collect();
                    }
                }
                Clause::Create { patterns } => patterns.iter().for_each(|p| bind(p, &mut bound)),
                Clause::Merge { pattern, .. } => {
                    per_row += self.pattern(pattern, &bound);
                    bind(pattern, &mut bound);
                }
                Clause::Set { .. } | Clause::Remove { .. } | Clause::Delete { .. } => {}
                Clause::Foreach { list, .. } => per_row += self.expr(list, &bound) + length(list),
                Clause::Call { imports, body, union_all } => {
                    let inner: BTreeSet<String> = imports.iter().cloned().collect();
                    let body_work: f64 =
                        std::iter::once(body).chain(union_all).map(|b| self.single(b, 1.0, inner.clone())).sum();
                    per_row += body_work;
                    rows *= body_work.max(1.0);
                    if let Some(Clause::Return(p)) = body.clauses.last() {
                        bound.extend(p.items.iter().map(|(_, a)| a.clone()));
                    }
                }
            }
            work = work.max(rows).max(rows * per_row);
        }
        work
    }

    /// Rows one pattern part yields per incoming row.
    fn pattern(&self, p: &PathPattern, bound: &BTreeSet<String>) -> f64 {
        let anchored = p.start.variable.as_ref().is_some_and(|v| bound.contains(v));
        let mut rows = if anchored { 1.0 } else { self.labelled(&p.start.labels) };
        for (rel, _) in &p.hops {
            let typed =
                self.graph.relationships.iter().filter(|r| rel.types.is_empty() || rel.types.contains(&r.rel_type));
            let mut degree = typed.count() as f64 / self.nodes;
            if rel.direction == Direction::Both {
                degree *= 2.0;
            }
            let (lo, hi) = rel.length.unwrap_or((1, 1));
            rows *= (lo..=hi).map(|k| degree.powi(k as i32)).sum::<f64>().max(1.0);
        }
        rows
    }

    fn labelled(&self, labels: &[String]) -> f64 {
        let n = self.graph.nodes.iter().filter(|n| labels.iter().all(|l| n.labels.contains(l))).count();
        n.max(1) as f64
    }

    /// Pattern expansions an expression makes per row.
    fn expr(&self, e: &Expr, bound: &BTreeSet<String>) -> f64 {
        let mut cost = 0.0;
        e.walk(&mut |e| match e {
            Expr::PatternPredicate(p) | Expr::ExistsSubquery(p, _) => cost += self.pattern(p, bound),
            Expr::PatternComprehension { pattern, .. } => cost += self.pattern(pattern, bound),
            _ => {}
        });
        cost
    }
}

fn bind(p: &PathPattern, bound: &mut BTreeSet<String>) {
    bound.extend(p.name.iter().cloned());
    bound.extend(p.start.variable.iter().cloned());
    for (r, n) in &p.hops {
        bound.extend(r.variable.iter().cloned());
        bound.extend(n.variable.iter().cloned());
    }
}

/// How many elements a list expression has: exact for literals and
/// `range` over literals, a guess of 10 otherwise.
fn length(list: &Expr) -> f64 {
    match list {
        Expr::List(items) => items.len() as f64,
        Expr::Literal(Value::List(items)) => items.len() as f64,
        Expr::Function(f, args) if f.eq_ignore_ascii_case("range") => match args.as_slice() {
            [Expr::Literal(Value::Int(a)), Expr::Literal(Value::Int(b)), ..] => (b - a + 1).max(0) as f64,
            _ => 10.0,
        },
        _ => 10.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphlancer_cypher::ast::{NodePattern, Projection, RelPattern};
    use graphlancer_model::GraphConfig;

    fn work(clauses: Vec<Clause>) -> f64 {
        let graph = graphlancer_model::generate(1, &GraphConfig::default()).expect("generates");
        assert_eq!((graph.nodes.len(), graph.relationships.len()), (30, 60));
        estimate(&Query { parts: vec![SingleQuery { clauses }], union_all: false }, &graph)
    }

    fn node(v: &str) -> NodePattern {
        NodePattern { variable: Some(v.into()), labels: Vec::new(), properties: Vec::new() }
    }

    /// `(from)-[*lo..hi]-(to)`, or `(from)-[]->(to)` without a length.
    fn path(from: &str, to: &str, length: Option<(u32, u32)>) -> PathPattern {
        let direction = if length.is_some() { Direction::Both } else { Direction::Out };
        let rel = RelPattern { variable: None, types: Vec::new(), direction, length, properties: Vec::new() };
        PathPattern { name: None, start: node(from), hops: vec![(rel, node(to))] }
    }

    fn matching(patterns: Vec<PathPattern>, predicate: Option<Expr>) -> Clause {
        Clause::Match { optional: false, patterns, guard: None, predicate }
    }

    fn nodes(vars: &[&str]) -> Clause {
        matching(vars.iter().map(|v| PathPattern { name: None, start: node(v), hops: Vec::new() }).collect(), None)
    }

    fn ret(v: &str) -> Clause {
        Clause::Return(Projection::of(vec![(Expr::var(v), v.into())]))
    }

    #[test]
    fn cross_products_multiply_and_anchored_parts_do_not() {
        assert_eq!(work(vec![nodes(&["a"]), ret("a")]), 30.0);
        assert_eq!(work(vec![nodes(&["a", "b", "c"]), ret("a")]), 27_000.0);
        // The second MATCH starts from a bound node: as many rows as relationships.
        assert_eq!(work(vec![nodes(&["a"]), matching(vec![path("a", "b", None)], None), ret("b")]), 60.0);
        assert!(work(vec![nodes(&["a", "b", "c", "d", "e"]), ret("a")]) >= 1e6);
    }

    #[test]
    fn variable_length_hops_grow_with_their_length() {
        let short = work(vec![matching(vec![path("a", "b", Some((1, 2)))], None), ret("b")]);
        let long = work(vec![matching(vec![path("a", "b", Some((1, 8)))], None), ret("b")]);
        assert!(short < 1_000.0, "{short}");
        assert!(long >= 1e6, "{long}");
    }

    #[test]
    fn a_pattern_predicate_costs_per_row_and_limit_caps_the_rows() {
        let plain = work(vec![nodes(&["a", "b"]), ret("a")]);
        let predicate = Expr::PatternPredicate(Box::new(path("a", "x", Some((1, 3)))));
        let filtered = work(vec![matching(vec![path("a", "b", None)], Some(predicate)), ret("a")]);
        assert_eq!(plain, 900.0);
        assert!(filtered > 60.0 * 60.0, "{filtered}");
        let mut limited = Projection::of(vec![(Expr::var("a"), "a".into())]);
        limited.limit = Some(2);
        assert_eq!(work(vec![nodes(&["a"]), Clause::With(limited), nodes(&["b"]), ret("b")]), 60.0);
        let unwind = |list: Expr, alias: &str| Clause::Unwind { list, alias: alias.into() };
        let range = Expr::Function("range".into(), vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(5))]);
        let pair = Expr::List(vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(2))]);
        assert_eq!(work(vec![unwind(range, "x"), unwind(pair, "y"), ret("x")]), 10.0);
    }
}
