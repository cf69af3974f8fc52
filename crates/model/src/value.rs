//! The values a query can return, engine-neutral. Adapters decode each
//! engine's wire format into these; the comparison in `compare` reads them.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::literal::{format_float, quote_string};

/// The property that carries every node's and relationship's generated
/// identity, so results can be matched across engines whose internal ids differ.
pub const ID_PROPERTY: &str = "gid";

/// A Cypher or Gremlin value as graphlancer sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// The absent value.
    Null,
    /// A boolean.
    Bool(bool),
    /// A 64-bit signed integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// A UTF-8 string.
    String(String),
    /// An ordered list.
    List(Vec<Value>),
    /// A map with string keys; ordered so that rendering is deterministic.
    Map(BTreeMap<String, Value>),
    /// A node.
    Node(Node),
    /// A relationship.
    Relationship(Relationship),
    /// A path: nodes joined by relationships.
    Path(Path),
    /// A date, time, datetime or duration, as ISO 8601 text of its kind.
    Temporal(Temporal),
}

/// A temporal value: its kind and its ISO 8601 text, which is how two
/// engines' values compare (equal text, equal value).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Temporal {
    /// `date`, `time`, `localtime`, `datetime`, `localdatetime` or `duration`.
    pub kind: String,
    /// ISO 8601, e.g. `2024-02-29`, `12:00:00+01:00`, `P1M2DT3.5S`.
    pub text: String,
}

/// A node as returned by an engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Labels, sorted.
    pub labels: Vec<String>,
    /// Properties with non-null values, including the generated identity.
    pub properties: BTreeMap<String, Value>,
}

/// A relationship as returned by an engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relationship {
    /// The relationship type.
    #[serde(rename = "type")]
    pub rel_type: String,
    /// Properties with non-null values, including the generated identity.
    pub properties: BTreeMap<String, Value>,
    /// Generated identity of the start node, when the adapter could resolve it.
    pub start: Option<i64>,
    /// Generated identity of the end node, when the adapter could resolve it.
    pub end: Option<i64>,
}

/// A path as returned by an engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// The nodes, from the start of the path to its end.
    pub nodes: Vec<Node>,
    /// The relationships between consecutive nodes.
    pub relationships: Vec<Relationship>,
}

impl Value {
    /// Whether the value holds a node or relationship without a generated
    /// identity (one a query created): two such entities with the same
    /// labels and properties cannot be told apart by their values.
    pub fn has_anonymous_entity(&self) -> bool {
        match self {
            Value::Node(n) => n.identity().is_none(),
            Value::Relationship(r) => r.identity().is_none(),
            Value::Path(p) => {
                p.nodes.iter().any(|n| n.identity().is_none()) || p.relationships.iter().any(|r| r.identity().is_none())
            }
            Value::List(items) => items.iter().any(Value::has_anonymous_entity),
            Value::Map(m) => m.values().any(Value::has_anonymous_entity),
            _ => false,
        }
    }
}

fn identity_of(properties: &BTreeMap<String, Value>) -> Option<i64> {
    match properties.get(ID_PROPERTY) {
        Some(Value::Int(id)) => Some(*id),
        _ => None,
    }
}

impl Node {
    /// Builds a node, sorting the labels and dropping null properties, which
    /// Cypher treats as absent.
    pub fn new(mut labels: Vec<String>, properties: BTreeMap<String, Value>) -> Self {
        labels.sort();
        let properties = properties.into_iter().filter(|(_, v)| *v != Value::Null).collect();
        Self { labels, properties }
    }

    /// The identity graphlancer generated for this node, if it has one.
    pub fn identity(&self) -> Option<i64> {
        identity_of(&self.properties)
    }
}

impl Relationship {
    /// Builds a relationship, dropping null properties.
    pub fn new(rel_type: String, properties: BTreeMap<String, Value>, start: Option<i64>, end: Option<i64>) -> Self {
        let properties = properties.into_iter().filter(|(_, v)| *v != Value::Null).collect();
        Self { rel_type, properties, start, end }
    }

    /// The identity graphlancer generated for this relationship, if it has one.
    pub fn identity(&self) -> Option<i64> {
        identity_of(&self.properties)
    }
}

impl Value {
    /// A short name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Node(_) => "node",
            Value::Relationship(_) => "relationship",
            Value::Path(_) => "path",
            Value::Temporal(_) => "temporal",
        }
    }
}

impl std::fmt::Display for Value {
    /// Renders the value the way a result table shows it: Cypher-like, with
    /// strings quoted so that `'1'` and `1` stay apart.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn props(f: &mut std::fmt::Formatter<'_>, p: &BTreeMap<String, Value>) -> std::fmt::Result {
            if p.is_empty() {
                return Ok(());
            }
            f.write_str(" {")?;
            for (i, (k, v)) in p.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{k}: {v}")?;
            }
            f.write_str("}")
        }
        fn node(f: &mut std::fmt::Formatter<'_>, n: &Node) -> std::fmt::Result {
            f.write_str("(")?;
            for l in &n.labels {
                write!(f, ":{l}")?;
            }
            props(f, &n.properties)?;
            f.write_str(")")
        }
        fn rel(f: &mut std::fmt::Formatter<'_>, r: &Relationship) -> std::fmt::Result {
            write!(f, "[:{}", r.rel_type)?;
            props(f, &r.properties)?;
            f.write_str("]")
        }
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => f.write_str(&format_float(*x)),
            Value::String(s) => f.write_str(&quote_string(s)),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Node(n) => node(f, n),
            Value::Relationship(r) => rel(f, r),
            Value::Temporal(t) => write!(f, "{}('{}')", t.kind, t.text),
            Value::Path(p) => {
                for (i, n) in p.nodes.iter().enumerate() {
                    if i > 0 {
                        f.write_str("-")?;
                        if let Some(r) = p.relationships.get(i - 1) {
                            rel(f, r)?;
                        }
                        f.write_str("-")?;
                    }
                    node(f, n)?;
                }
                Ok(())
            }
        }
    }
}

// JSON form: scalars, lists and strings as plain JSON (integers without a
// fraction, floats always with one, so the two never blur); maps, graph
// entities and non-finite floats as one-key objects naming their kind.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(x) if x.is_finite() => s.serialize_f64(*x),
            Value::Float(x) => {
                let text = if x.is_nan() {
                    "NaN"
                } else if *x > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                tagged(s, "float", text)
            }
            Value::String(t) => s.serialize_str(t),
            Value::List(items) => s.collect_seq(items),
            Value::Map(m) => tagged(s, "map", m),
            Value::Node(n) => tagged(s, "node", n),
            Value::Relationship(r) => tagged(s, "relationship", r),
            Value::Path(p) => tagged(s, "path", p),
            Value::Temporal(t) => tagged(s, "temporal", t),
        }
    }
}

fn tagged<S: Serializer, T: Serialize + ?Sized>(s: S, tag: &str, inner: &T) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(tag, inner)?;
    m.end()
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let json = serde_json::Value::deserialize(d)?;
        Value::from_json(json).map_err(D::Error::custom)
    }
}

impl Value {
    fn from_json(json: serde_json::Value) -> Result<Self, String> {
        use serde_json::Value as J;
        Ok(match json {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(b),
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else if n.is_u64() {
                    return Err(format!("integer {n} does not fit in 64 signed bits"));
                } else {
                    Value::Float(n.as_f64().ok_or_else(|| format!("bad number {n}"))?)
                }
            }
            J::String(s) => Value::String(s),
            J::Array(items) => Value::List(items.into_iter().map(Value::from_json).collect::<Result<_, _>>()?),
            J::Object(obj) => {
                let mut entries = obj.into_iter();
                let (Some((tag, inner)), None) = (entries.next(), entries.next()) else {
                    return Err("an object value must have exactly one key naming its kind".into());
                };
                let err = |e: serde_json::Error| format!("bad {tag}: {e}");
                match tag.as_str() {
                    "map" => Value::Map(serde_json::from_value(inner).map_err(err)?),
                    "node" => Value::Node(serde_json::from_value(inner).map_err(err)?),
                    "relationship" => Value::Relationship(serde_json::from_value(inner).map_err(err)?),
                    "path" => Value::Path(serde_json::from_value(inner).map_err(err)?),
                    "temporal" => Value::Temporal(serde_json::from_value(inner).map_err(err)?),
                    "float" => match inner.as_str() {
                        Some("NaN") => Value::Float(f64::NAN),
                        Some("inf") => Value::Float(f64::INFINITY),
                        Some("-inf") => Value::Float(f64::NEG_INFINITY),
                        _ => return Err(format!("bad non-finite float {inner}")),
                    },
                    other => return Err(format!("unknown value kind '{other}'")),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &Value) -> Value {
        let text = serde_json::to_string(v).expect("serializes");
        serde_json::from_str(&text).expect("parses")
    }

    #[test]
    fn json_keeps_ints_floats_and_signs_apart() {
        assert_eq!(serde_json::to_string(&Value::Float(1.0)).expect("ser"), "1.0");
        assert_eq!(serde_json::to_string(&Value::Int(1)).expect("ser"), "1");
        let neg_zero = roundtrip(&Value::Float(-0.0));
        let Value::Float(x) = neg_zero else { panic!("not a float: {neg_zero:?}") };
        assert!(x == 0.0 && x.is_sign_negative());
        assert!(matches!(roundtrip(&Value::Float(f64::NAN)), Value::Float(x) if x.is_nan()));
        assert_eq!(roundtrip(&Value::Float(f64::NEG_INFINITY)), Value::Float(f64::NEG_INFINITY));
        assert_eq!(roundtrip(&Value::Int(i64::MIN)), Value::Int(i64::MIN));
    }

    #[test]
    fn json_roundtrips_nested_entities() {
        let n = Node::new(
            vec!["B".into(), "A".into()],
            BTreeMap::from([("gid".into(), Value::Int(3)), ("x".into(), Value::Null)]),
        );
        assert_eq!(n.labels, ["A", "B"]);
        assert!(!n.properties.contains_key("x"));
        let r = Relationship::new("T".into(), BTreeMap::new(), Some(3), None);
        let v = Value::List(vec![
            Value::Path(Path { nodes: vec![n.clone(), n.clone()], relationships: vec![r] }),
            Value::Map(BTreeMap::from([("k".into(), Value::String("it's".into()))])),
            Value::Node(n),
        ]);
        assert_eq!(roundtrip(&v), v);
    }

    #[test]
    fn json_rejects_ambiguous_objects() {
        assert!(serde_json::from_str::<Value>(r#"{"a": 1, "b": 2}"#).is_err());
        assert!(serde_json::from_str::<Value>(r#"{"nope": 1}"#).is_err());
        assert!(serde_json::from_str::<Value>("18446744073709551615").is_err());
    }
}
