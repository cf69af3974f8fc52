//! Decoding of FalkorDB's compact reply format into graphlancer values.
//!
//! A reply is `[header, rows, stats]`, or `[stats]` for a write without
//! RETURN. Each cell is `[type, value]`; labels, relationship types and
//! property keys arrive as numeric ids into the graph's catalog, and doubles
//! arrive as text with 15 significant digits.

use std::collections::BTreeMap;

use graphlancer_model::{Node, Path, Relationship, ResultSet, Value};
use redis::Value as R;

/// Whether a reply's statistics say the query may have changed the graph:
/// only a reply whose every statistic is a timing or a zero count says it
/// did not. A reply of another shape (an error, say) counts as a change.
pub(crate) fn changed_graph(reply: &R) -> bool {
    const TIMINGS: [&str; 2] = ["Cached execution", "Query internal execution time"];
    let R::Array(parts) = reply else { return true };
    let Some(R::Array(stats)) = parts.last() else { return true };
    if parts.iter().any(|p| matches!(p, R::ServerError(_))) {
        return true;
    }
    stats.iter().any(|line| {
        let Ok(line) = text(line) else { return true };
        let Some((name, value)) = line.split_once(':') else { return true };
        !TIMINGS.contains(&name.trim()) && value.trim().parse::<f64>() != Ok(0.0)
    })
}

/// Names for the numeric ids of one graph, in id order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Catalog {
    pub(crate) labels: Vec<String>,
    pub(crate) types: Vec<String>,
    pub(crate) keys: Vec<String>,
}

/// Why a reply could not be decoded.
#[derive(Debug)]
pub(crate) enum DecodeError {
    /// An id the catalog does not know yet: refresh the catalog and retry.
    UnknownId,
    /// A reply of a shape or cell type this decoder does not handle.
    Malformed(String),
}

type Decoded<T> = Result<T, DecodeError>;

fn malformed<T>(what: impl Into<String>) -> Decoded<T> {
    Err(DecodeError::Malformed(what.into()))
}

/// What the cells of the reply need besides the catalog: generated identities
/// of nodes by internal id, to resolve relationship endpoints.
pub(crate) struct Decoder<'a> {
    pub(crate) catalog: &'a Catalog,
    pub(crate) identities: &'a BTreeMap<i64, i64>,
}

impl Decoder<'_> {
    /// Decodes a whole reply; a server error inside it is passed back as text.
    pub(crate) fn reply(&self, reply: &R) -> Decoded<Result<ResultSet, String>> {
        self.reply_with(reply, true)
    }

    /// As [`Self::reply`]; without `values`, rows come back with no cells.
    pub(crate) fn reply_with(&self, reply: &R, values: bool) -> Decoded<Result<ResultSet, String>> {
        let R::Array(parts) = reply else { return malformed(format!("reply is not an array: {reply:?}")) };
        if let Some(R::ServerError(e)) = parts.iter().find(|p| matches!(p, R::ServerError(_))) {
            return Ok(Err(server_error_text(e)));
        }
        match parts.as_slice() {
            [_stats] => Ok(Ok(ResultSet::default())),
            [R::Array(header), R::Array(rows), _stats] => {
                let columns = header
                    .iter()
                    .map(|h| match h {
                        R::Array(pair) if pair.len() == 2 => text(&pair[1]),
                        other => malformed(format!("header entry {other:?}")),
                    })
                    .collect::<Decoded<Vec<String>>>()?;
                if !values {
                    return Ok(Ok(ResultSet::new(columns, vec![Vec::new(); rows.len()])));
                }
                let rows = rows
                    .iter()
                    .map(|row| match row {
                        R::Array(cells) => cells.iter().map(|c| self.cell(c)).collect(),
                        other => malformed(format!("row {other:?}")),
                    })
                    .collect::<Decoded<Vec<Vec<Value>>>>()?;
                Ok(Ok(ResultSet::new(columns, rows)))
            }
            _ => malformed(format!("reply with {} parts", parts.len())),
        }
    }

    /// Decodes one `[type, value]` cell.
    pub(crate) fn cell(&self, cell: &R) -> Decoded<Value> {
        let R::Array(pair) = cell else { return malformed(format!("cell {cell:?}")) };
        let [R::Int(ty), v] = pair.as_slice() else { return malformed(format!("cell {cell:?}")) };
        self.typed(*ty, v)
    }

    fn typed(&self, ty: i64, v: &R) -> Decoded<Value> {
        Ok(match ty {
            1 => Value::Null,
            2 => Value::String(text(v)?),
            3 => Value::Int(int(v)?),
            4 => match text(v)?.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => return malformed(format!("boolean {other:?}")),
            },
            5 => Value::Float(double(&text(v)?)?),
            6 => Value::List(items(v)?.iter().map(|c| self.cell(c)).collect::<Decoded<_>>()?),
            7 => Value::Relationship(self.edge(v)?),
            8 => Value::Node(self.node(v)?),
            9 => {
                let [nodes, edges] = items(v)? else { return malformed("path without two parts") };
                let nodes = match self.cell(nodes)? {
                    Value::List(ns) => ns
                        .into_iter()
                        .map(|n| if let Value::Node(n) = n { Ok(n) } else { malformed("path node") })
                        .collect::<Decoded<_>>()?,
                    _ => return malformed("path nodes"),
                };
                let relationships = match self.cell(edges)? {
                    Value::List(rs) => rs
                        .into_iter()
                        .map(|r| if let Value::Relationship(r) = r { Ok(r) } else { malformed("path edge") })
                        .collect::<Decoded<_>>()?,
                    _ => return malformed("path edges"),
                };
                Value::Path(Path { nodes, relationships })
            }
            10 => {
                let flat = items(v)?;
                let mut map = BTreeMap::new();
                for kv in flat.chunks(2) {
                    let [k, cell] = kv else { return malformed("map with an odd number of items") };
                    map.insert(text(k)?, self.cell(cell)?);
                }
                Value::Map(map)
            }
            other => return malformed(format!("graphlancer cannot decode FalkorDB value type {other} yet")),
        })
    }

    fn node(&self, v: &R) -> Decoded<Node> {
        let [_id, R::Array(labels), props] = items(v)? else { return malformed("node shape") };
        let labels = labels.iter().map(|l| name(&self.catalog.labels, int(l)?)).collect::<Decoded<Vec<_>>>()?;
        Ok(Node::new(labels, self.properties(props)?))
    }

    fn edge(&self, v: &R) -> Decoded<Relationship> {
        let [_id, ty, src, dst, props] = items(v)? else { return malformed("edge shape") };
        let rel_type = name(&self.catalog.types, int(ty)?)?;
        let start = self.identities.get(&int(src)?).copied();
        let end = self.identities.get(&int(dst)?).copied();
        Ok(Relationship::new(rel_type, self.properties(props)?, start, end))
    }

    fn properties(&self, props: &R) -> Decoded<BTreeMap<String, Value>> {
        items(props)?
            .iter()
            .map(|p| {
                let [key, ty, value] = items(p)? else { return malformed("property shape") };
                Ok((name(&self.catalog.keys, int(key)?)?, self.typed(int(ty)?, value)?))
            })
            .collect()
    }
}

fn items(v: &R) -> Decoded<&[R]> {
    match v {
        R::Array(items) => Ok(items),
        other => malformed(format!("expected an array, got {other:?}")),
    }
}

fn int(v: &R) -> Decoded<i64> {
    match v {
        R::Int(i) => Ok(*i),
        other => malformed(format!("expected an integer, got {other:?}")),
    }
}

fn text(v: &R) -> Decoded<String> {
    match v {
        R::BulkString(bytes) => {
            String::from_utf8(bytes.clone()).or_else(|e| malformed(format!("string is not UTF-8: {e}")))
        }
        R::SimpleString(s) => Ok(s.clone()),
        other => malformed(format!("expected a string, got {other:?}")),
    }
}

fn double(s: &str) -> Decoded<f64> {
    match s {
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        "nan" | "-nan" => Ok(f64::NAN),
        _ => s.parse().or_else(|_| malformed(format!("double {s:?}"))),
    }
}

fn name(names: &[String], id: i64) -> Decoded<String> {
    usize::try_from(id).ok().and_then(|i| names.get(i)).cloned().ok_or(DecodeError::UnknownId)
}

/// The text of a server error reply: its code word and its detail.
pub(crate) fn server_error_text(e: &redis::ServerError) -> String {
    match e.details() {
        Some(d) => format!("{} {d}", e.code()),
        None => e.code().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_zero_counts_leave_the_graph_unchanged() {
        let stats = |lines: &[&str]| {
            redis::Value::Array(vec![redis::Value::Array(
                lines.iter().map(|l| redis::Value::BulkString(l.as_bytes().to_vec())).collect(),
            )])
        };
        let timing = "Query internal execution time: 0.05 milliseconds";
        assert!(!super::changed_graph(&stats(&["Cached execution: 1", timing])));
        assert!(!super::changed_graph(&stats(&["Properties set: 0", timing])));
        assert!(super::changed_graph(&stats(&["Nodes created: 1", timing])));
        assert!(super::changed_graph(&stats(&["Indices created: 1"])));
        assert!(super::changed_graph(&stats(&["something new"])));
        assert!(super::changed_graph(&redis::Value::Nil));
    }

    use super::*;

    fn bulk(s: &str) -> R {
        R::BulkString(s.as_bytes().to_vec())
    }

    fn cell(ty: i64, v: R) -> R {
        R::Array(vec![R::Int(ty), v])
    }

    #[test]
    fn decodes_entities_by_catalog_and_identity() {
        let catalog =
            Catalog { labels: vec!["A".into()], types: vec!["T".into()], keys: vec!["gid".into(), "x".into()] };
        let identities = BTreeMap::from([(10, 0), (11, 1)]);
        let d = Decoder { catalog: &catalog, identities: &identities };
        let props = |gid: i64| R::Array(vec![R::Array(vec![R::Int(0), R::Int(3), R::Int(gid)])]);
        let node = |id: i64, gid: i64| cell(8, R::Array(vec![R::Int(id), R::Array(vec![R::Int(0)]), props(gid)]));
        let edge = cell(7, R::Array(vec![R::Int(5), R::Int(0), R::Int(10), R::Int(11), props(2)]));
        let path = cell(
            9,
            R::Array(vec![cell(6, R::Array(vec![node(10, 0), node(11, 1)])), cell(6, R::Array(vec![edge.clone()]))]),
        );
        let Value::Path(p) = d.cell(&path).expect("decodes") else { panic!("not a path") };
        assert_eq!(p.nodes.len(), 2);
        assert_eq!(p.nodes[1].identity(), Some(1));
        assert_eq!((p.relationships[0].start, p.relationships[0].end), (Some(0), Some(1)));
        let unknown = cell(8, R::Array(vec![R::Int(1), R::Array(vec![R::Int(7)]), R::Array(vec![])]));
        assert!(matches!(d.cell(&unknown), Err(DecodeError::UnknownId)));
    }

    #[test]
    fn decodes_scalars_maps_and_text_floats() {
        let catalog = Catalog::default();
        let identities = BTreeMap::new();
        let d = Decoder { catalog: &catalog, identities: &identities };
        assert_eq!(d.cell(&cell(5, bulk("0.3"))).expect("float"), Value::Float(0.3));
        assert_eq!(d.cell(&cell(5, bulk("-inf"))).expect("float"), Value::Float(f64::NEG_INFINITY));
        assert_eq!(d.cell(&cell(4, bulk("false"))).expect("bool"), Value::Bool(false));
        let map = cell(10, R::Array(vec![bulk("a"), cell(3, R::Int(1)), bulk("b"), cell(1, R::Nil)]));
        assert_eq!(
            d.cell(&map).expect("map"),
            Value::Map(BTreeMap::from([("a".into(), Value::Int(1)), ("b".into(), Value::Null)]))
        );
        assert!(matches!(d.cell(&cell(13, R::Int(0))), Err(DecodeError::Malformed(_))));
    }
}
