//! Seeded property graphs over a [`Schema`]: nodes and relationships with a
//! unique generated identity each, and property values that include the edge
//! cases engines tend to get wrong.

use std::collections::BTreeMap;

use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};

use crate::rng::{CaseRng, derive_rng, stream};
use crate::schema::{ConfigError, PropertyType, Schema, SchemaConfig};
use crate::value::{ID_PROPERTY, Node, Relationship, Value};

/// A node of a generated graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    /// Generated identity, unique across nodes and relationships.
    pub id: i64,
    /// Labels, in schema order.
    pub labels: Vec<String>,
    /// Properties other than the identity.
    pub properties: BTreeMap<String, Value>,
}

/// A relationship of a generated graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphRelationship {
    /// Generated identity, unique across nodes and relationships.
    pub id: i64,
    /// The relationship type.
    #[serde(rename = "type")]
    pub rel_type: String,
    /// Identity of the start node.
    pub start: i64,
    /// Identity of the end node.
    pub end: i64,
    /// Properties other than the identity.
    pub properties: BTreeMap<String, Value>,
}

/// A generated property graph together with its schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// The schema the graph was generated from.
    pub schema: Schema,
    /// Nodes, in identity order.
    pub nodes: Vec<GraphNode>,
    /// Relationships, in identity order.
    pub relationships: Vec<GraphRelationship>,
}

/// How large generated graphs are and which values they hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphConfig {
    /// The schema's shape.
    pub schema: SchemaConfig,
    /// Number of nodes.
    pub nodes: usize,
    /// Number of relationships.
    pub relationships: usize,
    /// Chance that a node carries a second label (0 gives one label per node,
    /// as Kuzu requires).
    pub second_label_probability: f64,
    /// Chance that a key the schema allows is present; the rest are missing on purpose.
    pub property_probability: f64,
    /// Chance that a value is drawn from the edge cases rather than the common range.
    pub edge_value_probability: f64,
    /// Whether integers may be `i64::MAX` and `i64::MIN + 1`. Off by default:
    /// any arithmetic on them overflows, and engines disagree on overflow.
    pub extreme_integers: bool,
    /// Whether a relationship may start and end at one node. Off where an
    /// engine matches such a loop twice in an undirected pattern by design
    /// (Kuzu): every such query would differ from openCypher's answer.
    pub self_loops: bool,
}

impl Default for GraphConfig {
    fn default() -> Self {
        Self {
            schema: SchemaConfig::default(),
            nodes: 30,
            relationships: 60,
            second_label_probability: 0.2,
            property_probability: 0.8,
            edge_value_probability: 0.25,
            extreme_integers: false,
            self_loops: true,
        }
    }
}

impl GraphConfig {
    /// Checks every field; generation assumes a validated config.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.schema.validate()?;
        for (name, p) in [
            ("second_label_probability", self.second_label_probability),
            ("property_probability", self.property_probability),
            ("edge_value_probability", self.edge_value_probability),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(ConfigError(format!("{name}: {p} is not a probability in [0, 1]")));
            }
        }
        if self.relationships > 0 && self.nodes == 0 {
            return Err(ConfigError("relationships need at least one node".into()));
        }
        const LIMIT: usize = 10_000_000;
        if self.nodes > LIMIT || self.relationships > LIMIT {
            return Err(ConfigError(format!("at most {LIMIT} nodes and relationships")));
        }
        Ok(())
    }
}

/// Generates the schema and graph for `seed`: a pure function of its inputs.
pub fn generate(seed: u64, config: &GraphConfig) -> Result<Graph, ConfigError> {
    config.validate()?;
    let schema = Schema::generate(&config.schema, &mut derive_rng(seed, &[stream::SCHEMA]));
    Ok(Graph::generate(schema, config, &mut derive_rng(seed, &[stream::GRAPH])))
}

impl Graph {
    /// Generates a graph over `schema`.
    pub fn generate(schema: Schema, config: &GraphConfig, rng: &mut CaseRng) -> Graph {
        let values = ValuePools::new(config);
        let mut nodes = Vec::with_capacity(config.nodes);
        for i in 0..config.nodes {
            // The first nodes take each label in turn, so every label has a node.
            let first = if i < schema.labels.len() { i } else { rng.random_range(0..schema.labels.len()) };
            let mut label_ids = vec![first];
            if schema.labels.len() > 1 && rng.random_bool(config.second_label_probability) {
                let mut second = rng.random_range(0..schema.labels.len() - 1);
                if second >= first {
                    second += 1;
                }
                label_ids.push(second);
                label_ids.sort();
            }
            let mut keys: Vec<&str> =
                label_ids.iter().flat_map(|&l| schema.labels[l].keys.iter().map(String::as_str)).collect();
            keys.sort();
            keys.dedup();
            let properties = values.properties(&schema, &keys, config, rng);
            let labels = label_ids.iter().map(|&l| schema.labels[l].name.clone()).collect();
            nodes.push(GraphNode { id: i as i64, labels, properties });
        }

        // Every (type, endpoint pair) that has nodes on both ends.
        let has = |label: &str| -> Vec<i64> {
            nodes.iter().filter(|n| n.labels.iter().any(|l| l == label)).map(|n| n.id).collect()
        };
        let mut feasible: Vec<(usize, Vec<Endpoints>)> = Vec::new();
        for (t, def) in schema.rel_types.iter().enumerate() {
            let pairs: Vec<_> = def
                .endpoints
                .iter()
                .map(|(a, b)| (has(a), has(b)))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .collect();
            if !pairs.is_empty() {
                feasible.push((t, pairs));
            }
        }
        let mut relationships = Vec::with_capacity(config.relationships);
        if !feasible.is_empty() {
            for j in 0..config.relationships {
                let (t, pairs) = feasible.choose(rng).expect("feasible is not empty");
                let (starts, ends) = pairs.choose(rng).expect("pairs are not empty");
                let start = *starts.choose(rng).expect("start candidates are not empty");
                let mut end = *ends.choose(rng).expect("end candidates are not empty");
                if !config.self_loops && end == start {
                    let others: Vec<i64> = ends.iter().copied().filter(|&e| e != start).collect();
                    match others.choose(rng) {
                        Some(&other) => end = other,
                        None => continue,
                    }
                }
                let def = &schema.rel_types[*t];
                let keys: Vec<&str> = def.keys.iter().map(String::as_str).collect();
                let properties = values.properties(&schema, &keys, config, rng);
                relationships.push(GraphRelationship {
                    id: (config.nodes + j) as i64,
                    rel_type: def.name.clone(),
                    start,
                    end,
                    properties,
                });
            }
        }
        Graph { schema, nodes, relationships }
    }

    /// The node with generated identity `id`: at position `id` in a
    /// generated graph, found by its identity in a reduced one (nodes keep
    /// their identities, in order, when others are taken out).
    pub fn node(&self, id: i64) -> Option<&GraphNode> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.nodes.get(i))
            .filter(|n| n.id == id)
            .or_else(|| self.nodes.iter().find(|n| n.id == id))
    }
}

impl GraphNode {
    /// The node as an engine should return it.
    pub fn to_value(&self) -> Value {
        let mut properties = self.properties.clone();
        properties.insert(ID_PROPERTY.to_owned(), Value::Int(self.id));
        Value::Node(Node::new(self.labels.clone(), properties))
    }
}

impl GraphRelationship {
    /// The relationship as an engine should return it.
    pub fn to_value(&self) -> Value {
        let mut properties = self.properties.clone();
        properties.insert(ID_PROPERTY.to_owned(), Value::Int(self.id));
        Value::Relationship(Relationship::new(self.rel_type.clone(), properties, Some(self.start), Some(self.end)))
    }
}

/// Candidate start and end nodes of one label pair.
type Endpoints = (Vec<i64>, Vec<i64>);

/// The values properties are drawn from.
struct ValuePools {
    ints: Vec<i64>,
}

// Strings that stress quoting, escaping and Unicode handling.
const EDGE_STRINGS: &[&str] = &[
    "",
    " ",
    "'",
    "it's",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "naïve",
    "日本語",
    "😀",
    "NULL",
    "0",
];

// Floats with fractions, signed zero and magnitudes that print in exponent form.
const EDGE_FLOATS: &[f64] = &[0.0, -0.0, 0.5, -0.5, 0.1, -1.25, 1e-7, 1e15, -2.5e16, 3.0];

impl ValuePools {
    fn new(config: &GraphConfig) -> Self {
        // i64::MIN is left out: its literal `-9223372036854775808` negates a
        // positive number that does not fit, which most parsers reject.
        let mut ints = vec![
            0,
            1,
            -1,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            i64::from(i32::MAX) + 1,
            i64::from(i32::MIN) - 1,
            1 << 53,
            -(1 << 53),
        ];
        if config.extreme_integers {
            ints.extend([i64::MAX, i64::MIN + 1]);
        }
        Self { ints }
    }

    fn properties(
        &self,
        schema: &Schema,
        keys: &[&str],
        config: &GraphConfig,
        rng: &mut CaseRng,
    ) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for &key in keys {
            if !rng.random_bool(config.property_probability) {
                continue;
            }
            let ty = schema.key_type(key).expect("owner keys come from the schema");
            let edge = rng.random_bool(config.edge_value_probability);
            out.insert(key.to_owned(), self.value(ty, edge, rng));
        }
        out
    }

    fn value(&self, ty: PropertyType, edge: bool, rng: &mut CaseRng) -> Value {
        match (ty, edge) {
            (PropertyType::Int, true) => Value::Int(*self.ints.choose(rng).expect("pool is not empty")),
            // A small range, so equality predicates find matches.
            (PropertyType::Int, false) => Value::Int(rng.random_range(-20..=100)),
            (PropertyType::Float, true) => Value::Float(*EDGE_FLOATS.choose(rng).expect("pool is not empty")),
            (PropertyType::Float, false) => {
                let cents = rng.random_range(-10_000..=10_000);
                Value::Float(f64::from(cents) / 100.0)
            }
            (PropertyType::String, true) => {
                Value::String((*EDGE_STRINGS.choose(rng).expect("pool is not empty")).to_owned())
            }
            (PropertyType::String, false) => {
                // Short words over a small alphabet repeat, which predicates need.
                let len = rng.random_range(1..=3);
                Value::String((0..len).map(|_| char::from(b'a' + rng.random_range(0..4u8))).collect())
            }
            (PropertyType::Bool, _) => Value::Bool(rng.random_bool(0.5)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphs_are_deterministic_and_seeds_differ() {
        let c = GraphConfig::default();
        let a = serde_json::to_string(&generate(5, &c).expect("valid")).expect("ser");
        let b = serde_json::to_string(&generate(5, &c).expect("valid")).expect("ser");
        let other = serde_json::to_string(&generate(6, &c).expect("valid")).expect("ser");
        assert_eq!(a, b);
        assert_ne!(a, other);
    }

    #[test]
    fn graphs_respect_their_schema() {
        let c = GraphConfig::default();
        for seed in 0..100 {
            let g = generate(seed, &c).expect("valid");
            assert_eq!(g.nodes.len(), 30);
            assert_eq!(g.relationships.len(), 60);
            let mut ids: Vec<i64> = g.nodes.iter().map(|n| n.id).chain(g.relationships.iter().map(|r| r.id)).collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), 90, "identities are unique");
            for n in &g.nodes {
                for (k, v) in &n.properties {
                    assert!(n.labels.iter().any(|l| g.schema.label(l).is_some_and(|d| d.keys.contains(k))));
                    assert_eq!(Some(v.type_name()), g.schema.key_type(k).map(type_name));
                }
            }
            for r in &g.relationships {
                let def = g.schema.rel_type(&r.rel_type).expect("type exists");
                let (s, e) = (g.node(r.start).expect("start"), g.node(r.end).expect("end"));
                assert!(def.endpoints.iter().any(|(a, b)| s.labels.contains(a) && e.labels.contains(b)));
                assert!(r.properties.keys().all(|k| def.keys.contains(k)));
            }
        }
    }

    fn type_name(t: PropertyType) -> &'static str {
        match t {
            PropertyType::Int => "integer",
            PropertyType::Float => "float",
            PropertyType::String => "string",
            PropertyType::Bool => "boolean",
        }
    }

    #[test]
    fn graphs_without_self_loops_keep_their_size_and_seeded_graphs_keep_theirs() {
        let loops = |g: &Graph| g.relationships.iter().filter(|r| r.start == r.end).count();
        let with = generate(3, &GraphConfig { nodes: 6, relationships: 200, ..GraphConfig::default() }).expect("valid");
        assert!(loops(&with) > 0, "a small dense graph has self-loops by default");
        let config = GraphConfig { nodes: 6, relationships: 200, self_loops: false, ..GraphConfig::default() };
        let without = generate(3, &config).expect("valid");
        assert_eq!(loops(&without), 0);
        assert!(without.relationships.len() > 150, "only loops with no other end are dropped");
        assert_eq!(with.nodes, without.nodes, "the switch changes relationships only");
    }

    #[test]
    fn some_properties_are_missing_and_edge_values_appear() {
        let g = generate(1, &GraphConfig { nodes: 300, relationships: 0, ..GraphConfig::default() }).expect("valid");
        let allowed: usize = g
            .nodes
            .iter()
            .map(|n| {
                let mut k: Vec<&String> =
                    n.labels.iter().flat_map(|l| &g.schema.label(l).expect("label").keys).collect();
                k.sort();
                k.dedup();
                k.len()
            })
            .sum();
        let present: usize = g.nodes.iter().map(|n| n.properties.len()).sum();
        assert!(present < allowed, "some properties are missing");
        let all: Vec<&Value> = g.nodes.iter().flat_map(|n| n.properties.values()).collect();
        assert!(all.iter().any(|v| matches!(v, Value::String(s) if s.contains('\''))));
        assert!(all.iter().any(|v| matches!(v, Value::Int(i) if *i == i64::from(i32::MAX))));
    }

    #[test]
    fn single_label_graphs_when_asked() {
        let c = GraphConfig { second_label_probability: 0.0, ..GraphConfig::default() };
        assert!(generate(3, &c).expect("valid").nodes.iter().all(|n| n.labels.len() == 1));
        assert!(GraphConfig { property_probability: 1.5, ..GraphConfig::default() }.validate().is_err());
    }
}
