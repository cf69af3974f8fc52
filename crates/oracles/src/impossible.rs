//! Patterns no relationship of the schema can match. A graph whose nodes
//! have one label each and whose relationship types join given label
//! pairs (Kuzu's tables) makes some hops unmatchable: `(a:L0)-[:T1]->()`
//! where T1 never starts at L0, or a node that two hops pin to different
//! labels. Such a pattern matches nothing, and Kuzu 0.6.0 crashes on it in
//! a MATCH, an OPTIONAL MATCH, an EXISTS or a SET after it: one bug that
//! came as seven crash sites. A crash at the clause whose pattern first
//! becomes unmatchable is named by that.

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_cypher::ast::{Clause, Direction, Expr, PathPattern};
use graphlancer_model::{Graph, Schema};

/// Whether every node of `graph` has exactly one label: what the label
/// reasoning here assumes.
pub fn one_label_each(graph: &Graph) -> bool {
    graph.nodes.iter().all(|n| n.labels.len() == 1)
}

/// Whether some pattern of `clauses` (in a MATCH, or in an expression: an
/// EXISTS, a pattern predicate or comprehension) can match no relationship
/// of `schema`, nodes of one variable being one node throughout.
pub fn impossible(clauses: &[Clause], schema: &Schema) -> bool {
    let mut patterns: Vec<PathPattern> = Vec::new();
    for clause in clauses {
        if let Clause::Match { patterns: p, .. } = clause {
            patterns.extend(p.iter().cloned());
        }
        let mut clause = clause.clone();
        for slot in crate::edit::slots(&mut clause) {
            slot.walk(&mut |e| match e {
                Expr::ExistsSubquery(p, _) | Expr::PatternPredicate(p) => patterns.push((**p).clone()),
                Expr::PatternComprehension { pattern, .. } => patterns.push((**pattern).clone()),
                _ => {}
            });
        }
    }
    unmatchable(&patterns, schema)
}

/// Whether the label each node of `patterns` may have, narrowed by its own
/// labels and by the hops at it until nothing changes, is none for some node.
fn unmatchable(patterns: &[PathPattern], schema: &Schema) -> bool {
    let all: BTreeSet<&str> = schema.labels.iter().map(|l| l.name.as_str()).collect();
    let mut labels: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    // Each node occurrence by its variable, or a name of its own.
    let key = |v: &Option<String>, at: usize| v.clone().unwrap_or_else(|| format!("#{at}"));
    let mut hops = Vec::new();
    let mut at = 0;
    for p in patterns {
        let mut nodes = vec![&p.start];
        nodes.extend(p.hops.iter().map(|(_, n)| n));
        let mut keys = Vec::new();
        for n in nodes {
            at += 1;
            if n.labels.len() > 1 {
                return false;
            }
            let k = key(&n.variable, at);
            let own: BTreeSet<&str> = match n.labels.first() {
                Some(l) => all.iter().copied().filter(|a| a == l).collect(),
                None => all.clone(),
            };
            let set = labels.entry(k.clone()).or_insert_with(|| all.clone());
            *set = set.intersection(&own).copied().collect();
            keys.push(k);
        }
        for (i, (rel, _)) in p.hops.iter().enumerate() {
            // A variable length may be zero hops, or reach any node.
            if rel.length.is_some() {
                continue;
            }
            let pairs: Vec<(&str, &str)> = schema
                .rel_types
                .iter()
                .filter(|t| rel.types.is_empty() || rel.types.contains(&t.name))
                .flat_map(|t| t.endpoints.iter().map(|(a, b)| (a.as_str(), b.as_str())))
                .collect();
            hops.push((keys[i].clone(), keys[i + 1].clone(), rel.direction, pairs));
        }
    }
    loop {
        let mut changed = false;
        for (a, b, direction, pairs) in &hops {
            let joins = |x: &str, y: &str| {
                pairs.iter().any(|&(s, e)| match direction {
                    Direction::Out => (s, e) == (x, y),
                    Direction::In => (s, e) == (y, x),
                    Direction::Both => (s, e) == (x, y) || (s, e) == (y, x),
                })
            };
            let (sa, sb) = (labels[a].clone(), labels[b].clone());
            let na: BTreeSet<&str> = sa.iter().copied().filter(|x| sb.iter().any(|y| joins(x, y))).collect();
            let nb: BTreeSet<&str> = sb.iter().copied().filter(|y| na.iter().any(|x| joins(x, y))).collect();
            changed |= na != sa || nb != sb;
            labels.insert(a.clone(), na);
            labels.insert(b.clone(), nb);
        }
        if labels.values().any(BTreeSet::is_empty) {
            return true;
        }
        if !changed {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use graphlancer_model::{LabelDef, RelTypeDef};

    use super::*;

    fn schema() -> Schema {
        let label = |n: &str| LabelDef { name: n.into(), keys: Vec::new() };
        let rel = |n: &str, ends: &[(&str, &str)]| RelTypeDef {
            name: n.into(),
            keys: Vec::new(),
            endpoints: ends.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        };
        Schema {
            keys: Vec::new(),
            labels: vec![label("L0"), label("L1"), label("L2")],
            rel_types: vec![rel("T0", &[("L0", "L2")]), rel("T1", &[("L2", "L1"), ("L0", "L0")])],
        }
    }

    fn judged(text: &str) -> bool {
        let q = graphlancer_cypher::parse::parse(text).expect("parses");
        impossible(&q.parts[0].clauses, &schema())
    }

    #[test]
    fn a_hop_no_relationship_type_joins_is_impossible() {
        // T0 only starts at L0, and leads to L2, where only T1 to L1 starts.
        assert!(judged("MATCH (a:L1)-[:T0]->() RETURN 0"));
        assert!(judged("MATCH (:L0)-[:T0]->(b) MATCH (b)-[:T1]->(:L0) RETURN 0"));
        assert!(judged("MATCH (a:L0)-[:T0]->(b) RETURN EXISTS { MATCH (b)<-[:T1]-(:L1) }"));
        assert!(judged("MATCH (a:L1) OPTIONAL MATCH (a)-[r]->() RETURN r"));
    }

    #[test]
    fn a_hop_some_relationship_can_match_is_not() {
        assert!(!judged("MATCH (a:L0)-[:T0]->(b)-[:T1]->(c:L1) RETURN 0"));
        assert!(!judged("MATCH (a:L2)-[:T0]-(b) RETURN 0"));
        assert!(!judged("MATCH (a:L1)-[*1..2]->(b) RETURN 0"));
        assert!(!judged("MATCH (a)-[r]->(b) RETURN 0"));
        // Two labels on one node: not reasoned about.
        assert!(!judged("MATCH (a:L0:L1)-[:T0]->() RETURN 0"));
    }
}
