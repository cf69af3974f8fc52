//! What the generator indexes of one graph before it writes a query: the
//! values each key holds, the keys each label and type has, and the steps
//! the schema allows. Built once per graph; every part of the generator
//! reads them.

use std::collections::BTreeMap;

use graphlancer_model::{Graph, Value};

use crate::ast::Direction;

/// Values that occur in the graph, per property key and per (label or
/// relationship type, key), so predicates compare with values that exist.
#[derive(Debug, Clone, Default)]
pub(super) struct ValueIndex {
    pub(super) by_key: BTreeMap<String, Vec<Value>>,
    pub(super) by_owner: BTreeMap<(String, String), Vec<Value>>,
}

impl ValueIndex {
    /// `plain_strings`: leave out strings with control characters, whose
    /// escapes some engine of the profile reads differently (Kuzu).
    pub(super) fn new(graph: &Graph, plain_strings: bool) -> Self {
        let mut index = Self::default();
        let mut add = |owner: &str, props: &BTreeMap<String, Value>| {
            for (k, v) in props {
                if plain_strings && matches!(v, Value::String(s) if s.chars().any(char::is_control)) {
                    continue;
                }
                index.by_key.entry(k.clone()).or_default().push(v.clone());
                index.by_owner.entry((owner.to_owned(), k.clone())).or_default().push(v.clone());
            }
        };
        for n in &graph.nodes {
            for l in &n.labels {
                add(l, &n.properties);
            }
        }
        for r in &graph.relationships {
            add(&r.rel_type, &r.properties);
        }
        index
    }
}

/// Property keys per label and per relationship type, and over all of them,
/// sorted: property key safety asks for them at every property access.
#[derive(Debug, Clone, Default)]
pub(super) struct KeyIndex {
    pub(super) by_label: BTreeMap<String, Vec<String>>,
    pub(super) by_type: BTreeMap<String, Vec<String>>,
    pub(super) all_node: Vec<String>,
    pub(super) all_rel: Vec<String>,
}

impl KeyIndex {
    pub(super) fn new(schema: &graphlancer_model::Schema) -> Self {
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v.dedup();
            v
        };
        Self {
            by_label: schema.labels.iter().map(|l| (l.name.clone(), sorted(l.keys.clone()))).collect(),
            by_type: schema.rel_types.iter().map(|t| (t.name.clone(), sorted(t.keys.clone()))).collect(),
            all_node: sorted(schema.labels.iter().flat_map(|l| l.keys.clone()).collect()),
            all_rel: sorted(schema.rel_types.iter().flat_map(|t| t.keys.clone()).collect()),
        }
    }
}

/// One step of a pattern drawn from the schema: a type, its label pair and
/// the direction it is walked in.
#[derive(Debug, Clone)]
pub(super) struct Step {
    pub(super) rel_type: String,
    pub(super) near: String,
    pub(super) far: String,
    pub(super) direction: Direction,
}

/// Every step the schema allows, and those leaving each label.
#[derive(Debug, Clone, Default)]
pub(super) struct Steps {
    pub(super) all: Vec<Step>,
    pub(super) by_near: BTreeMap<String, Vec<usize>>,
}

impl Steps {
    pub(super) fn new(schema: &graphlancer_model::Schema) -> Self {
        let mut all = Vec::new();
        for t in &schema.rel_types {
            for (a, b) in &t.endpoints {
                all.push(Step { rel_type: t.name.clone(), near: a.clone(), far: b.clone(), direction: Direction::Out });
                all.push(Step { rel_type: t.name.clone(), near: b.clone(), far: a.clone(), direction: Direction::In });
            }
        }
        let mut by_near: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, s) in all.iter().enumerate() {
            by_near.entry(s.near.clone()).or_default().push(i);
        }
        Self { all, by_near }
    }
}
