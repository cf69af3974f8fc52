//! The dynamic relations: a count before and after a change the same query
//! makes (a node added or deleted, a property updated, an irrelevant change).

use graphlancer_cypher::Feature;
use graphlancer_cypher::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, SingleQuery,
};
use graphlancer_model::{ID_PROPERTY, Value};
use rand::Rng;

use crate::oracle::CaseQuery;

use super::{Draw, Relation};

impl Draw<'_, '_, '_, '_> {
    /// A dynamic relation: the count before, the count after a change made
    /// in the same query, and the difference the generated graph predicts.
    pub(super) fn change(&mut self, relation: Relation) -> Option<(Vec<CaseQuery>, i64)> {
        use graphlancer_cypher::ast::SetItem;
        let graph = self.cx.graph;
        // A node with a label and a property of that label, which the count is about.
        let labelled: Vec<&graphlancer_model::GraphNode> = graph
            .nodes
            .iter()
            .filter(|n| n.labels.first().is_some_and(|l| n.properties.keys().any(|k| self.key_of(l, k))))
            .collect();
        if labelled.is_empty() {
            return None;
        }
        let x = labelled[self.rng.random_range(0..labelled.len())];
        let label = x.labels[0].clone();
        let keys: Vec<&String> = x.properties.keys().filter(|k| self.key_of(&label, k)).collect();
        let key = keys[self.rng.random_range(0..keys.len())].clone();
        let value = x.properties[&key].clone();
        if matches!(value, Value::Float(f) if f.is_nan()) {
            return None;
        }
        let counted = |n: &graphlancer_model::GraphNode, v: &Value| {
            n.labels.contains(&label) && n.properties.get(&key).is_some_and(|w| w == v)
        };
        // `MATCH (y:L) WHERE y.k = v RETURN count(y) AS c`, after `prefix`.
        let counting = |prefix: Vec<Clause>, v: &Value| {
            let y = NodePattern { variable: Some("y".into()), labels: vec![label.clone()], properties: Vec::new() };
            let is =
                Expr::binary(BinOp::Eq, Expr::Property(Box::new(Expr::var("y")), key.clone()), Expr::lit(v.clone()));
            let clauses = vec![
                Clause::Match {
                    optional: false,
                    patterns: vec![PathPattern { name: None, start: y, hops: Vec::new() }],
                    guard: None,
                    predicate: Some(is),
                },
                Clause::Return(Projection::of(vec![(Expr::aggregate("count", false, Expr::var("y")), "c".into())])),
            ];
            Self::after(
                prefix,
                Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            )
        };
        let before = counting(Vec::new(), &value);
        let (prefix, probe, delta) = match relation {
            Relation::AddedNode => {
                if !self.has(Feature::Create) {
                    return None;
                }
                let next = graph.nodes.iter().map(|n| n.id).chain(graph.relationships.iter().map(|r| r.id)).max()? + 1;
                let props = vec![
                    (ID_PROPERTY.to_owned(), Expr::lit(Value::Int(next))),
                    (key.clone(), Expr::lit(value.clone())),
                ];
                let node = NodePattern { variable: Some("x".into()), labels: vec![label.clone()], properties: props };
                (
                    vec![Clause::Create { patterns: vec![PathPattern { name: None, start: node, hops: Vec::new() }] }],
                    value.clone(),
                    1,
                )
            }
            Relation::DeletedNode => {
                if !self.has(Feature::DetachDelete) {
                    return None;
                }
                let delete = Clause::Delete { detach: true, variables: vec!["x".into()] };
                (vec![Self::find("x", x.id), delete], value.clone(), -1)
            }
            Relation::DeletedRelationship => {
                if !self.has(Feature::Delete) || graph.relationships.is_empty() {
                    return None;
                }
                let r = &graph.relationships[self.rng.random_range(0..graph.relationships.len())];
                let (s, rel) = self.rel(Vec::new(), Direction::Out);
                let (_, a) = self.node("n");
                let (_, b) = self.node("n");
                let m = Clause::Match {
                    optional: false,
                    patterns: vec![PathPattern { name: None, start: a, hops: vec![(rel, b)] }],
                    guard: None,
                    predicate: Some(Self::is(&s, r.id)),
                };
                let delete = Clause::Delete { detach: false, variables: vec![s] };
                // Counts relationships of r's type instead of nodes.
                let t = r.rel_type.clone();
                let count_rels = |prefix: Vec<Clause>, s: &mut Self| {
                    let (v, rel) = s.rel(vec![t.clone()], Direction::Out);
                    let (_, a) = s.node("n");
                    let (_, b) = s.node("n");
                    let pattern = PathPattern { name: None, start: a, hops: vec![(rel, b)] };
                    let q = s.query(
                        pattern,
                        std::slice::from_ref(&v),
                        None,
                        vec![(Expr::aggregate("count", false, Expr::var(&v)), "c".into())],
                    );
                    Self::after(prefix, q)
                };
                let before = count_rels(Vec::new(), self);
                let after = count_rels(vec![m, delete], self);
                return Some((vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)], -1));
            }
            Relation::Updated => {
                if !self.has(Feature::SetProperty) {
                    return None;
                }
                // Another value the key takes somewhere in the graph.
                let others: Vec<&Value> = graph
                    .nodes
                    .iter()
                    .filter(|n| n.labels.contains(&label))
                    .filter_map(|n| n.properties.get(&key))
                    .filter(|v| !matches!(v, Value::Float(f) if f.is_nan()))
                    .collect();
                let v2 = others[self.rng.random_range(0..others.len())].clone();
                let set =
                    Clause::Set { items: vec![SetItem::Property("x".into(), key.clone(), Expr::lit(v2.clone()))] };
                let delta = i64::from(!counted(x, &v2));
                (vec![Self::find("x", x.id), set], v2, delta)
            }
            Relation::Irrelevant => {
                // A node without the label, given the value: the count of L cannot see it.
                if !self.has(Feature::SetProperty) {
                    return None;
                }
                let outside: Vec<&graphlancer_model::GraphNode> = graph
                    .nodes
                    .iter()
                    .filter(|n| !n.labels.contains(&label) && n.labels.first().is_some_and(|l| self.key_of(l, &key)))
                    .collect();
                if outside.is_empty() {
                    return None;
                }
                let z = outside[self.rng.random_range(0..outside.len())];
                let set =
                    Clause::Set { items: vec![SetItem::Property("x".into(), key.clone(), Expr::lit(value.clone()))] };
                (vec![Self::find("x", z.id), set], value.clone(), 0)
            }
            // Not a dynamic relation: no case, rather than another relation's.
            _ => return None,
        };
        let before = if probe == value { before } else { counting(Vec::new(), &probe) };
        let after = counting(prefix, &probe);
        Some((vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)], delta))
    }

    /// Whether nodes labelled `label` may carry `key` (the schema says so).
    pub(super) fn key_of(&self, label: &str, key: &str) -> bool {
        self.cx.graph.schema.labels.iter().any(|l| l.name == label && l.keys.iter().any(|k| k == key))
    }
}
