//! GSlicer's graph-cutting relation: the matches of a pattern in a graph,
//! counted over the whole graph and over the parts of a split of its nodes.
//!
//! The case takes the generated query's first MATCH (one path pattern,
//! with its WHERE) and counts its rows, once as it is and once per part
//! with every node of the pattern kept to that part (`n.gid IN [...]`, in a
//! WITH after the MATCH, so the MATCH itself is the same in every query and
//! the reducer can shrink it in all of them at once).
//! - `split`: the nodes are dealt into parts at random. A match whose nodes
//!   all lie in one part is a match of the whole graph, and lies in no other
//!   part, so the whole count is at least the sum of the parts' counts.
//! - `components`: each connected component of the graph goes to one part.
//!   A path pattern is connected, so every match lies inside one component
//!   and so inside one part: the whole count equals the sum. Removing nodes
//!   or relationships only splits components further, so the relation
//!   still holds on a reduced graph.

use std::collections::BTreeMap;

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::{BinOp, Clause, Expr, Projection, Query, SingleQuery};
use graphlancer_cypher::context::Names;
use graphlancer_engines::Outcome;
use graphlancer_model::{CaseRng, Graph, ID_PROPERTY, Value};
use petgraph::unionfind::UnionFind;
use rand::Rng;
use rand::seq::SliceRandom;

use crate::oracle::relation::{NO_ROWS, NOT_A_COUNT, broken, count, rows_of};
use crate::oracle::{BuildCx, CaseQuery, JudgeCx, Oracle, OracleKind, TestCase, Verdict};

/// GSlicer's graph cutting.
pub struct GraphCut;

const KIND: OracleKind = OracleKind::named("graph-cut");

/// The splits, by name (`--oracle graph-cut:components`).
const RELATIONS: [&str; 2] = ["components", "split"];

/// At most this many parts: each part is a query of the case.
const MAX_PARTS: usize = 3;

impl Oracle for GraphCut {
    fn kind(&self) -> OracleKind {
        KIND
    }

    fn about(&self) -> &'static str {
        "GSlicer's graph cutting: a pattern's count over the graph against the sum over the parts of a split"
    }

    // Named with `--oracle graph-cut`: the default campaigns stay as
    // they were measured.
    fn runs_by_default(&self, _: usize) -> bool {
        false
    }

    fn relations(&self) -> &'static [&'static str] {
        &RELATIONS
    }

    fn build(&self, source: &Generated, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Result<TestCase, &'static str> {
        let q = &source.query;
        if q.parts.len() != 1 {
            return Err("UNION");
        }
        let Some(Clause::Match { optional: false, patterns, guard, predicate }) = q.parts[0].clauses.first() else {
            return Err("no MATCH first");
        };
        let [pattern] = patterns.as_slice() else { return Err("not one path pattern") };
        if cx.graph.nodes.len() < 2 {
            return Err("a graph of fewer than two nodes");
        }
        let mut names = Names::after(&source.text);
        let mut pattern = pattern.clone();
        let mut nodes: Vec<String> = Vec::new();
        for n in std::iter::once(&mut pattern.start).chain(pattern.hops.iter_mut().map(|(_, n)| n)) {
            let v = n.variable.get_or_insert_with(|| names.fresh("n")).clone();
            if !nodes.contains(&v) {
                nodes.push(v);
            }
        }
        let matched = Clause::Match {
            optional: false,
            patterns: vec![pattern],
            guard: guard.clone(),
            predicate: predicate.clone(),
        };
        for name in cx.order(&RELATIONS, rng) {
            let parts = match name {
                "components" => by_components(cx.graph, rng),
                _ => at_random(cx.graph, rng),
            };
            let Some(parts) = parts else { continue };
            let mut queries = vec![CaseQuery::new("whole", counted(&matched, &nodes, None), None)];
            for (i, part) in parts.iter().enumerate() {
                queries.push(CaseQuery::new(format!("part {i}"), counted(&matched, &nodes, Some(part)), None));
            }
            return Ok(TestCase::group(&format!("{KIND}:{name}"), queries));
        }
        Err("no split of this graph")
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let name = case.relation.strip_prefix("graph-cut:").unwrap_or(&case.relation);
        for (e, engine) in cx.names.iter().enumerate() {
            let Some(rows) = rows_of(outcomes, e) else { return NO_ROWS };
            let Some(counts) = rows.iter().map(|r| count(r)).collect::<Option<Vec<i64>>>() else {
                return NOT_A_COUNT;
            };
            let [whole, parts @ ..] = counts.as_slice() else { return Verdict::Skip("a group of another size") };
            let sum: i64 = parts.iter().sum();
            let held = if name == "components" { *whole == sum } else { *whole >= sum };
            if !held {
                let shown: Vec<String> = parts.iter().map(i64::to_string).collect();
                return broken(
                    KIND,
                    engine,
                    name,
                    "violated",
                    None,
                    format!("{engine}: {whole} matches in the graph, {} in its parts ({})", sum, shown.join(" + ")),
                    words(name).to_owned(),
                );
            }
        }
        Verdict::Pass
    }
}

/// The relation in words a maintainer reads.
fn words(name: &str) -> &'static str {
    if name == "components" {
        "The graph's nodes are split along its connected components, and a path pattern's matches each lie in one \
         component, so the pattern's count over the graph equals the sum of its counts over the parts."
    } else {
        "The graph's nodes are split into parts, and a match whose nodes all lie in one part is a match in the graph \
         and in no other part, so the pattern's count over the graph is at least the sum of its counts over the parts."
    }
}

/// `matched`, then `WITH nodes WHERE each node is in part` when a part is
/// given, then `RETURN count(*)`.
fn counted(matched: &Clause, nodes: &[String], part: Option<&[i64]>) -> Query {
    let mut clauses = vec![matched.clone()];
    if let Some(part) = part {
        let ids = Expr::lit(Value::List(part.iter().map(|&id| Value::Int(id)).collect()));
        let inside = nodes.iter().map(|v| {
            Expr::binary(BinOp::In, Expr::Property(Box::new(Expr::var(v)), ID_PROPERTY.into()), ids.clone())
        });
        let mut keep = Projection::of(nodes.iter().map(|v| (Expr::var(v), v.clone())).collect());
        keep.predicate = Expr::and_all(inside);
        clauses.push(Clause::With(keep));
    }
    clauses.push(Clause::Return(Projection::of(vec![(Expr::count_star(), "c".into())])));
    Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
}

/// The graph's connected components dealt into two or three parts, each
/// part's node ids sorted; `None` for a connected graph.
fn by_components(graph: &Graph, rng: &mut CaseRng) -> Option<Vec<Vec<i64>>> {
    let index: BTreeMap<i64, usize> = graph.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut sets = UnionFind::<usize>::new(graph.nodes.len());
    for r in &graph.relationships {
        if let (Some(&a), Some(&b)) = (index.get(&r.start), index.get(&r.end)) {
            sets.union(a, b);
        }
    }
    let mut components: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        components.entry(sets.find(i)).or_default().push(n.id);
    }
    let mut components: Vec<Vec<i64>> = components.into_values().collect();
    if components.len() < 2 {
        return None;
    }
    components.shuffle(rng);
    Some(deal(components, rng))
}

/// The graph's nodes dealt into two or three parts at random.
fn at_random(graph: &Graph, rng: &mut CaseRng) -> Option<Vec<Vec<i64>>> {
    let mut singles: Vec<Vec<i64>> = graph.nodes.iter().map(|n| vec![n.id]).collect();
    singles.shuffle(rng);
    Some(deal(singles, rng))
}

/// Deals `groups` (at least two) into parts: one each to start, so no part
/// is empty, then each to a part at random.
fn deal(groups: Vec<Vec<i64>>, rng: &mut CaseRng) -> Vec<Vec<i64>> {
    let k = rng.random_range(2..=MAX_PARTS).min(groups.len());
    let mut parts: Vec<Vec<i64>> = vec![Vec::new(); k];
    for (i, group) in groups.into_iter().enumerate() {
        let at = if i < k { i } else { rng.random_range(0..k) };
        parts[at].extend(group);
    }
    for part in &mut parts {
        part.sort_unstable();
    }
    parts
}


#[cfg(test)]
mod tests {
    use graphlancer_model::ResultSet;

    use super::*;

    fn graph() -> Graph {
        graphlancer_model::generate(3, &graphlancer_model::GraphConfig { nodes: 12, relationships: 6, ..Default::default() })
            .expect("valid config")
    }

    #[test]
    fn a_split_along_components_cuts_no_relationship_and_leaves_no_part_empty() {
        let g = graph();
        let mut rng = graphlancer_model::derive_rng(1, &[0]);
        let parts = by_components(&g, &mut rng).expect("a sparse graph is not connected");
        assert!((2..=MAX_PARTS).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty()));
        let part_of = |id: i64| parts.iter().position(|p| p.contains(&id)).expect("every node in a part");
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), g.nodes.len());
        for r in &g.relationships {
            assert_eq!(part_of(r.start), part_of(r.end), "relationship {} is cut", r.id);
        }
    }

    #[test]
    fn every_part_keeps_the_match_as_it_is_and_each_node_to_the_part_after_it() {
        let q = graphlancer_cypher::parse::parse("MATCH (n0)-[r0]->(n1) WHERE n0.k0 > 1 RETURN n0").expect("parses");
        let matched = q.parts[0].clauses[0].clone();
        let nodes = ["n0".to_owned(), "n1".to_owned()];
        let whole = graphlancer_cypher::render(&counted(&matched, &nodes, None));
        let part = graphlancer_cypher::render(&counted(&matched, &nodes, Some(&[4, 7])));
        let prefix = whole.strip_suffix(" RETURN count(*) AS c").expect("counts rows");
        assert!(part.starts_with(prefix), "{part}");
        let rest = &part[prefix.len()..];
        assert!(rest.starts_with(" WITH n0, n1 WHERE "), "{part}");
        assert!(rest.contains("n0.gid IN [4, 7]") && rest.contains("n1.gid IN [4, 7]"), "{part}");
        assert!(rest.ends_with(" RETURN count(*) AS c"), "{part}");
    }

    #[test]
    fn the_whole_count_is_held_to_the_parts_sum() {
        let names = vec!["e".to_owned()];
        let schema = graph().schema;
        let cx = JudgeCx { names: &names, schema: &schema };
        let counts = |cs: &[i64]| -> Vec<Vec<Outcome>> {
            cs.iter().map(|&c| vec![Outcome::Rows(ResultSet::new(vec!["c".into()], vec![vec![Value::Int(c)]]))]).collect()
        };
        let case = |name: &str| TestCase::group(&format!("graph-cut:{name}"), Vec::new());
        assert_eq!(GraphCut.judge(&cx, &case("components"), &counts(&[5, 2, 3])), Verdict::Pass);
        assert!(matches!(GraphCut.judge(&cx, &case("components"), &counts(&[5, 2, 2])), Verdict::Finding(_)));
        assert_eq!(GraphCut.judge(&cx, &case("split"), &counts(&[5, 2, 2])), Verdict::Pass);
        assert!(matches!(GraphCut.judge(&cx, &case("split"), &counts(&[3, 2, 2])), Verdict::Finding(_)));
    }
}
