//! The graph a query runs on: the generated graph, copied, with what the
//! query creates, changes and deletes.

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_model::{Graph, ID_PROPERTY, Value};

use crate::value::V;
use crate::{ErrorClass, Failure};

/// A node: labels, properties (the generated identity among them), and
/// whether the query deleted it.
#[derive(Debug, Clone)]
pub(crate) struct NodeRec {
    pub labels: BTreeSet<String>,
    pub props: BTreeMap<String, V>,
    pub deleted: bool,
}

/// A relationship.
#[derive(Debug, Clone)]
pub(crate) struct RelRec {
    pub start: usize,
    pub end: usize,
    pub rel_type: String,
    pub props: BTreeMap<String, V>,
    pub deleted: bool,
}

/// Nodes and relationships by index; deleted ones keep their slot.
#[derive(Debug, Clone, Default)]
pub struct Store {
    pub(crate) nodes: Vec<NodeRec>,
    pub(crate) rels: Vec<RelRec>,
    /// The relationships at each node (a self-loop once), in creation order.
    pub(crate) incident: Vec<Vec<usize>>,
    /// Why the graph cannot be read (a property value the reference does
    /// not model): then no query has an answer.
    pub(crate) unreadable: Option<Failure>,
}

pub(crate) fn from_value(v: &Value) -> Result<V, Failure> {
    Ok(match v {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(*b),
        Value::Int(i) => V::Int(*i),
        Value::Float(f) => V::Float(*f),
        Value::String(s) => V::Str(s.clone()),
        Value::List(l) => V::List(l.iter().map(from_value).collect::<Result<_, _>>()?),
        Value::Map(m) => V::Map(m.iter().map(|(k, v)| Ok((k.clone(), from_value(v)?))).collect::<Result<_, _>>()?),
        other => return Err(Failure::unsupported(format!("a literal {other:?}"))),
    })
}

impl Store {
    /// The generated graph, as every engine loads it: its identity is the
    /// property `gid`.
    pub fn of(graph: &Graph) -> Self {
        let index: BTreeMap<i64, usize> = graph.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        let values = graph.nodes.iter().map(|n| &n.properties).chain(graph.relationships.iter().map(|r| &r.properties));
        let unreadable = values.flat_map(BTreeMap::values).find_map(|v| from_value(v).err());
        let props = |id: i64, p: &BTreeMap<String, Value>| {
            let mut out: BTreeMap<String, V> =
                p.iter().map(|(k, v)| (k.clone(), from_value(v).unwrap_or(V::Null))).collect();
            out.insert(ID_PROPERTY.to_owned(), V::Int(id));
            out
        };
        let mut store = Store {
            incident: Vec::new(),
            unreadable,
            nodes: graph
                .nodes
                .iter()
                .map(|n| NodeRec {
                    labels: n.labels.iter().cloned().collect(),
                    props: props(n.id, &n.properties),
                    deleted: false,
                })
                .collect(),
            rels: graph
                .relationships
                .iter()
                .map(|r| RelRec {
                    start: index[&r.start],
                    end: index[&r.end],
                    rel_type: r.rel_type.clone(),
                    props: props(r.id, &r.properties),
                    deleted: false,
                })
                .collect(),
        };
        store.incident = vec![Vec::new(); store.nodes.len()];
        for (i, r) in store.rels.iter().enumerate() {
            store.incident[r.start].push(i);
            if r.end != r.start {
                store.incident[r.end].push(i);
            }
        }
        store
    }

    /// Adds a node, giving its index.
    pub(crate) fn add_node(&mut self, node: NodeRec) -> usize {
        self.nodes.push(node);
        self.incident.push(Vec::new());
        self.nodes.len() - 1
    }

    /// Adds a relationship, giving its index.
    pub(crate) fn add_rel(&mut self, rel: RelRec) -> usize {
        let (start, end) = (rel.start, rel.end);
        self.rels.push(rel);
        let i = self.rels.len() - 1;
        self.incident[start].push(i);
        if end != start {
            self.incident[end].push(i);
        }
        i
    }

    pub(crate) fn node(&self, i: usize) -> Result<&NodeRec, Failure> {
        match self.nodes.get(i) {
            Some(n) if !n.deleted => Ok(n),
            _ => Err(Failure::unsupported("a read of a deleted node")),
        }
    }

    pub(crate) fn rel(&self, i: usize) -> Result<&RelRec, Failure> {
        match self.rels.get(i) {
            Some(r) if !r.deleted => Ok(r),
            _ => Err(Failure::unsupported("a read of a deleted relationship")),
        }
    }

    /// A deleted node must have lost all its relationships by the end of
    /// the query.
    pub(crate) fn check_no_dangling(&self) -> Result<(), Failure> {
        for r in self.rels.iter().filter(|r| !r.deleted) {
            if self.nodes[r.start].deleted || self.nodes[r.end].deleted {
                return Err(Failure::raised(
                    ErrorClass::Constraint,
                    "cannot delete a node that still has relationships",
                ));
            }
        }
        Ok(())
    }

    fn props_out(&self, props: &BTreeMap<String, V>) -> Result<BTreeMap<String, Value>, Failure> {
        props.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| Ok((k.clone(), self.output(v)?))).collect()
    }

    fn node_out(&self, i: usize) -> Result<graphlancer_model::Node, Failure> {
        let n = self.node(i)?;
        Ok(graphlancer_model::Node {
            labels: n.labels.iter().cloned().collect(),
            properties: self.props_out(&n.props)?,
        })
    }

    fn rel_out(&self, i: usize) -> Result<graphlancer_model::Relationship, Failure> {
        let r = self.rel(i)?;
        let gid = |n: usize| match self.nodes[n].props.get(ID_PROPERTY) {
            Some(V::Int(g)) => Some(*g),
            _ => None,
        };
        Ok(graphlancer_model::Relationship {
            rel_type: r.rel_type.clone(),
            properties: self.props_out(&r.props)?,
            start: gid(r.start),
            end: gid(r.end),
        })
    }

    /// `v` as engines return it.
    pub(crate) fn output(&self, v: &V) -> Result<Value, Failure> {
        Ok(match v {
            V::Null => Value::Null,
            V::Bool(b) => Value::Bool(*b),
            V::Int(i) => Value::Int(*i),
            V::Float(f) => Value::Float(*f),
            V::Str(s) => Value::String(s.clone()),
            V::List(l) => Value::List(l.iter().map(|v| self.output(v)).collect::<Result<_, _>>()?),
            V::Map(m) => Value::Map(m.iter().map(|(k, v)| Ok((k.clone(), self.output(v)?))).collect::<Result<_, _>>()?),
            V::Node(i) => Value::Node(self.node_out(*i)?),
            V::Rel(i) => Value::Relationship(self.rel_out(*i)?),
            V::Path(ns, rs) => Value::Path(graphlancer_model::Path {
                nodes: ns.iter().map(|n| self.node_out(*n)).collect::<Result<_, _>>()?,
                relationships: rs.iter().map(|r| self.rel_out(*r)).collect::<Result<_, _>>()?,
            }),
        })
    }
}

/// What a query changed, counted as the openCypher TCK counts side effects:
/// entities by identity, labels by name, properties as (entity, key, value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    nodes: BTreeSet<usize>,
    rels: BTreeSet<usize>,
    labels: BTreeSet<String>,
    properties: BTreeSet<(bool, usize, String, String)>,
}

impl State {
    /// The side effects from `self` to `after`, by the TCK's names
    /// (`+nodes`, `-properties`, ...), leaving out the zeros.
    pub fn effects(&self, after: &State) -> BTreeMap<String, usize> {
        fn diff<T: Ord>(out: &mut BTreeMap<String, usize>, what: &str, before: &BTreeSet<T>, after: &BTreeSet<T>) {
            for (sign, n) in [("+", after.difference(before).count()), ("-", before.difference(after).count())] {
                if n > 0 {
                    out.insert(format!("{sign}{what}"), n);
                }
            }
        }
        let mut out = BTreeMap::new();
        diff(&mut out, "nodes", &self.nodes, &after.nodes);
        diff(&mut out, "relationships", &self.rels, &after.rels);
        diff(&mut out, "labels", &self.labels, &after.labels);
        diff(&mut out, "properties", &self.properties, &after.properties);
        out
    }
}

impl Store {
    /// The store's state, to count a query's side effects against.
    pub fn state(&self) -> State {
        let mut s = State::default();
        for (i, n) in self.nodes.iter().enumerate().filter(|(_, n)| !n.deleted) {
            s.nodes.insert(i);
            s.labels.extend(n.labels.iter().cloned());
            s.properties.extend(n.props.iter().map(|(k, v)| (true, i, k.clone(), format!("{v:?}"))));
        }
        for (i, r) in self.rels.iter().enumerate().filter(|(_, r)| !r.deleted) {
            s.rels.insert(i);
            s.properties.extend(r.props.iter().map(|(k, v)| (false, i, k.clone(), format!("{v:?}"))));
        }
        s
    }

    /// The store as a graph every engine can load: nodes numbered from 0,
    /// then relationships, a schema read off the data.
    ///
    /// # Errors
    /// A property the schema cannot type (a list, or one key holding two
    /// types), which the engines' loaders cannot take.
    pub fn to_graph(&self) -> Result<Graph, String> {
        use graphlancer_model::{
            GraphNode, GraphRelationship, LabelDef, PropertyKeyDef, PropertyType, RelTypeDef, Schema,
        };
        let mut keys: BTreeMap<String, PropertyType> = BTreeMap::new();
        let mut props = |p: &BTreeMap<String, V>| -> Result<BTreeMap<String, Value>, String> {
            let mut out = BTreeMap::new();
            for (k, v) in p {
                let (ty, value) = match v {
                    V::Null => continue,
                    V::Int(i) => (PropertyType::Int, Value::Int(*i)),
                    V::Float(f) => (PropertyType::Float, Value::Float(*f)),
                    V::Str(s) => (PropertyType::String, Value::String(s.clone())),
                    V::Bool(b) => (PropertyType::Bool, Value::Bool(*b)),
                    other => return Err(format!("the property {k} holds a {}", other.kind())),
                };
                if *keys.entry(k.clone()).or_insert(ty) != ty {
                    return Err(format!("the property {k} holds two types"));
                }
                out.insert(k.clone(), value);
            }
            Ok(out)
        };
        let live: Vec<usize> = (0..self.nodes.len()).filter(|&i| !self.nodes[i].deleted).collect();
        let id_of: BTreeMap<usize, i64> = live.iter().enumerate().map(|(new, &old)| (old, new as i64)).collect();
        let mut labels: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut nodes = Vec::new();
        for &i in &live {
            let n = &self.nodes[i];
            let properties = props(&n.props)?;
            for l in &n.labels {
                labels.entry(l.clone()).or_default().extend(properties.keys().cloned());
            }
            nodes.push(GraphNode { id: id_of[&i], labels: n.labels.iter().cloned().collect(), properties });
        }
        // Per type: its keys and its (start label, end label) pairs.
        type Seen = (BTreeSet<String>, BTreeSet<(String, String)>);
        let mut types: BTreeMap<String, Seen> = BTreeMap::new();
        let mut relationships = Vec::new();
        for r in self.rels.iter().filter(|r| !r.deleted) {
            let properties = props(&r.props)?;
            let first = |n: usize| self.nodes[n].labels.iter().next().cloned().unwrap_or_default();
            let entry = types.entry(r.rel_type.clone()).or_default();
            entry.0.extend(properties.keys().cloned());
            entry.1.insert((first(r.start), first(r.end)));
            relationships.push(GraphRelationship {
                id: (nodes.len() + relationships.len()) as i64,
                rel_type: r.rel_type.clone(),
                start: id_of[&r.start],
                end: id_of[&r.end],
                properties,
            });
        }
        let schema = Schema {
            keys: keys.into_iter().map(|(name, ty)| PropertyKeyDef { name, ty }).collect(),
            labels: labels
                .into_iter()
                .map(|(name, keys)| LabelDef { name, keys: keys.into_iter().collect() })
                .collect(),
            rel_types: types
                .into_iter()
                .map(|(name, (keys, ends))| RelTypeDef {
                    name,
                    keys: keys.into_iter().collect(),
                    endpoints: ends.into_iter().collect(),
                })
                .collect(),
        };
        Ok(Graph { schema, nodes, relationships })
    }
}
