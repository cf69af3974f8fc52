//! The graph a query runs on: the generated graph, copied, with what the
//! query creates, changes and deletes.

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_model::{Graph, ID_PROPERTY, Value};

use crate::Failure;
use crate::value::V;

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
                return Err(Failure::runtime("cannot delete a node that still has relationships"));
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
