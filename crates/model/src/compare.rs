//! The canonical comparison of two result sets: a bag of rows unless the query
//! fixes an order, then ordered on the sort keys only, with ties free to
//! permute. Floats match within a relative tolerance; nodes and relationships
//! match on labels or type, properties (which carry the generated identity)
//! and resolved endpoints, never on engine-internal ids.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::result::ResultSet;
use crate::value::{Node, Relationship, Value};

/// How the rows of a result are ordered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RowOrder {
    /// No order: rows compare as a multiset.
    Bag,
    /// Ordered by the values in these columns; rows that tie on all of them
    /// may come in any order.
    SortedBy(Vec<usize>),
}

/// How far apart two floats may be and still match.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    /// Largest accepted `|a - b| / max(|a|, |b|)`.
    pub relative: f64,
}

impl Tolerance {
    /// No tolerance: floats match only when equal, as an engine's grouping
    /// and DISTINCT compare them (two keys one ULP apart are two groups).
    pub const EXACT: Self = Self { relative: 0.0 };
}

impl Default for Tolerance {
    /// 1e-12: far above the 15-significant-digit rounding of floats sent as
    /// text (FalkorDB's Redis protocol), far below any real computation error.
    fn default() -> Self {
        Self { relative: 1e-12 }
    }
}

/// What the comparison found.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparison {
    /// The results agree.
    Equal,
    /// The results disagree.
    Differ(Difference),
}

/// How two results disagree.
#[derive(Debug, Clone, PartialEq)]
pub enum Difference {
    /// They have different numbers of columns.
    ColumnCount {
        /// Columns on the left.
        left: usize,
        /// Columns on the right.
        right: usize,
    },
    /// Some rows are on one side only (as multisets).
    Rows {
        /// Rows only the left side has, with multiplicity.
        only_left: Vec<Vec<Value>>,
        /// Rows only the right side has, with multiplicity.
        only_right: Vec<Vec<Value>>,
    },
    /// The same rows, but not in the same order of sort keys.
    Order {
        /// The first row position where the sort keys differ.
        position: usize,
    },
}

/// Compares two results. Column names are not compared: engines name
/// unaliased expressions differently. Nor are the columns of two empty
/// results: some servers (ArcadeDB over Bolt) send none for an empty answer.
pub fn compare(left: &ResultSet, right: &ResultSet, order: &RowOrder, tol: Tolerance) -> Comparison {
    // The same column names in another order (`RETURN *` leaves the order
    // open): the right side's columns are lined up with the left's.
    let aligned;
    let right = match realign(left, right) {
        Some(r) => {
            aligned = r;
            &aligned
        }
        None => right,
    };
    let (lc, rc) = (width(left), width(right));
    if lc != rc && !(left.rows.is_empty() && right.rows.is_empty()) {
        return Comparison::Differ(Difference::ColumnCount { left: lc, right: rc });
    }
    if let Some(d) = bag_difference(&left.rows, &right.rows, tol) {
        return Comparison::Differ(d);
    }
    if let RowOrder::SortedBy(keys) = order {
        let key = |row: &Vec<Value>| -> Vec<Value> {
            keys.iter().map(|&k| row.get(k).cloned().unwrap_or(Value::Null)).collect()
        };
        // Same multiset, so equal lengths; the sort keys must agree position by
        // position, and ties may permute freely.
        for (i, (a, b)) in left.rows.iter().zip(&right.rows).enumerate() {
            if !rows_match(&key(a), &key(b), tol) {
                return Comparison::Differ(Difference::Order { position: i });
            }
        }
    }
    Comparison::Equal
}

fn width(r: &ResultSet) -> usize {
    r.rows.first().map_or(r.columns.len(), Vec::len).max(r.columns.len())
}

/// The multiset difference of two row lists, or `None` when they match.
fn bag_difference(left: &[Vec<Value>], right: &[Vec<Value>], tol: Tolerance) -> Option<Difference> {
    let mut l: Vec<&Vec<Value>> = left.iter().collect();
    let mut r: Vec<&Vec<Value>> = right.iter().collect();
    l.sort_by(|a, b| cmp_rows(a, b));
    r.sort_by(|a, b| cmp_rows(a, b));
    if l.len() == r.len() && l.iter().zip(&r).all(|(a, b)| rows_match(a, b, tol)) {
        return None;
    }
    // Walk both sorted lists; what one side lacks goes aside. Floats inside
    // the tolerance can sort on either side of a neighbour, so the leftovers
    // are then paired by tolerance (few, as a rule).
    let (mut i, mut j) = (0, 0);
    let (mut left_over, mut right_over): (Vec<&Vec<Value>>, Vec<&Vec<Value>>) = (Vec::new(), Vec::new());
    while i < l.len() && j < r.len() {
        if rows_match(l[i], r[j], tol) {
            i += 1;
            j += 1;
        } else if cmp_rows(l[i], r[j]).is_lt() {
            left_over.push(l[i]);
            i += 1;
        } else {
            right_over.push(r[j]);
            j += 1;
        }
    }
    left_over.extend(&l[i..]);
    right_over.extend(&r[j..]);
    // Pairing is quadratic; past a few hundred leftovers the results differ
    // anyway and the plain walk's account of it stands.
    const PAIRING_LIMIT: usize = 512;
    if left_over.len() > PAIRING_LIMIT || right_over.len() > PAIRING_LIMIT {
        return Some(Difference::Rows {
            only_left: left_over.into_iter().cloned().collect(),
            only_right: right_over.into_iter().cloned().collect(),
        });
    }
    let mut taken = vec![false; right_over.len()];
    let mut only_left = Vec::new();
    for a in &left_over {
        match (0..right_over.len()).find(|&k| !taken[k] && rows_match(a, right_over[k], tol)) {
            Some(k) => taken[k] = true,
            None => only_left.push((*a).clone()),
        }
    }
    let only_right: Vec<Vec<Value>> =
        right_over.iter().zip(&taken).filter(|(_, t)| !**t).map(|(row, _)| (*row).clone()).collect();
    if only_left.is_empty() && only_right.is_empty() { None } else { Some(Difference::Rows { only_left, only_right }) }
}

fn rows_match(a: &[Value], b: &[Value], tol: Tolerance) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_match(x, y, tol))
}

/// Whether two values are the same answer under the canonical comparison.
pub fn values_match(a: &Value, b: &Value, tol: Tolerance) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => floats_match(*x, *y, tol),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::List(x), Value::List(y)) => rows_match(x, y, tol),
        (Value::Map(x), Value::Map(y)) => maps_match(x, y, tol),
        (Value::Node(x), Value::Node(y)) => nodes_match(x, y, tol),
        (Value::Relationship(x), Value::Relationship(y)) => rels_match(x, y, tol),
        (Value::Temporal(x), Value::Temporal(y)) => x == y,
        (Value::Path(x), Value::Path(y)) => {
            x.nodes.len() == y.nodes.len()
                && x.relationships.len() == y.relationships.len()
                && x.nodes.iter().zip(&y.nodes).all(|(p, q)| nodes_match(p, q, tol))
                && x.relationships.iter().zip(&y.relationships).all(|(p, q)| rels_match(p, q, tol))
        }
        _ => false,
    }
}

fn floats_match(x: f64, y: f64, tol: Tolerance) -> bool {
    if x == y || (x.is_nan() && y.is_nan()) {
        return true;
    }
    if !x.is_finite() || !y.is_finite() {
        return false;
    }
    (x - y).abs() <= tol.relative * x.abs().max(y.abs())
}

fn maps_match(x: &BTreeMap<String, Value>, y: &BTreeMap<String, Value>, tol: Tolerance) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && values_match(vx, vy, tol))
}

fn nodes_match(x: &Node, y: &Node, tol: Tolerance) -> bool {
    x.labels == y.labels && maps_match(&x.properties, &y.properties, tol)
}

fn rels_match(x: &Relationship, y: &Relationship, tol: Tolerance) -> bool {
    // An endpoint one side could not resolve (a node the query created) is
    // not held against it; the properties still are.
    let ends = |a: Option<i64>, b: Option<i64>| a.is_none() || b.is_none() || a == b;
    x.rel_type == y.rel_type
        && ends(x.start, y.start)
        && ends(x.end, y.end)
        && maps_match(&x.properties, &y.properties, tol)
}

/// `right` with its columns in `left`'s order, when both name the same
/// distinct columns in different orders.
fn realign(left: &ResultSet, right: &ResultSet) -> Option<ResultSet> {
    if left.columns == right.columns || left.columns.len() != right.columns.len() {
        return None;
    }
    let mut names: Vec<&String> = left.columns.iter().collect();
    names.sort();
    names.dedup();
    if names.len() != left.columns.len() {
        return None;
    }
    let positions: Vec<usize> =
        left.columns.iter().map(|c| right.columns.iter().position(|r| r == c)).collect::<Option<_>>()?;
    let rows = right
        .rows
        .iter()
        .map(|row| positions.iter().map(|&i| row.get(i).cloned().unwrap_or(Value::Null)).collect())
        .collect();
    Some(ResultSet::new(left.columns.clone(), rows))
}

fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    a.iter().zip(b).map(|(x, y)| cmp_values(x, y)).find(|o| o.is_ne()).unwrap_or_else(|| a.len().cmp(&b.len()))
}

/// A total order over values used only to line rows up for comparison; it is
/// not Cypher's ORDER BY order.
fn cmp_values(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) => 2,
            Value::Float(_) => 3,
            Value::String(_) => 4,
            Value::List(_) => 5,
            Value::Map(_) => 6,
            Value::Node(_) => 7,
            Value::Relationship(_) => 8,
            Value::Path(_) => 9,
            Value::Temporal(_) => 10,
        }
    }
    fn cmp_maps(x: &BTreeMap<String, Value>, y: &BTreeMap<String, Value>) -> Ordering {
        x.iter()
            .zip(y)
            .map(|((kx, vx), (ky, vy))| kx.cmp(ky).then_with(|| cmp_values(vx, vy)))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len()))
    }
    fn cmp_nodes(x: &Node, y: &Node) -> Ordering {
        x.labels.cmp(&y.labels).then_with(|| cmp_maps(&x.properties, &y.properties))
    }
    // Endpoints too: relationships a query created have no identity, and
    // rows that differ only in their endpoints must sort apart, or the
    // sorted walk of `bag_difference` falls out of step with `rels_match`.
    fn cmp_rels(x: &Relationship, y: &Relationship) -> Ordering {
        x.rel_type
            .cmp(&y.rel_type)
            .then_with(|| cmp_maps(&x.properties, &y.properties))
            .then_with(|| x.start.cmp(&y.start))
            .then_with(|| x.end.cmp(&y.end))
    }
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        // +0.0 and -0.0 are one value here, as they are to `==`.
        (Value::Float(x), Value::Float(y)) => (x + 0.0).total_cmp(&(y + 0.0)),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) => cmp_rows(x, y),
        (Value::Map(x), Value::Map(y)) => cmp_maps(x, y),
        (Value::Node(x), Value::Node(y)) => cmp_nodes(x, y),
        (Value::Relationship(x), Value::Relationship(y)) => cmp_rels(x, y),
        (Value::Temporal(x), Value::Temporal(y)) => x.cmp(y),
        // The node sequences first, whole (length included), then the
        // relationships: comparing the shorter path's nodes and then its
        // relationships would not be transitive.
        (Value::Path(x), Value::Path(y)) => {
            let nodes = x.nodes.iter().zip(&y.nodes).map(|(p, q)| cmp_nodes(p, q)).find(|o| o.is_ne());
            let rels = x.relationships.iter().zip(&y.relationships).map(|(p, q)| cmp_rels(p, q)).find(|o| o.is_ne());
            nodes
                .unwrap_or_else(|| x.nodes.len().cmp(&y.nodes.len()))
                .then_with(|| rels.unwrap_or_else(|| x.relationships.len().cmp(&y.relationships.len())))
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let width = rows.first().map_or(2, Vec::len);
        ResultSet::new((0..width).map(|i| format!("c{i}")).collect(), rows)
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-5i64..5).prop_map(Value::Int),
            (-4i32..4).prop_map(|x| Value::Float(f64::from(x) / 2.0)),
            "[ab']{0,2}".prop_map(Value::String),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::List),
                prop::collection::btree_map("[xy]", inner, 0..2).prop_map(Value::Map),
            ]
        })
    }

    fn rows() -> impl Strategy<Value = Vec<Vec<Value>>> {
        prop::collection::vec(prop::collection::vec(value(), 2), 0..12)
    }

    proptest! {
        #[test]
        fn a_bag_equals_any_permutation_of_itself(rows in rows(), seed in any::<u64>()) {
            let mut shuffled = rows.clone();
            // A deterministic permutation from the seed.
            let n = shuffled.len();
            for i in (1..n).rev() {
                let j = (seed.wrapping_mul(i as u64 + 7) >> 7) as usize % (i + 1);
                shuffled.swap(i, j);
            }
            prop_assert_eq!(compare(&rs(rows), &rs(shuffled), &RowOrder::Bag, Tolerance::default()), Comparison::Equal);
        }

        #[test]
        fn a_missing_or_extra_row_is_noticed(rows in rows(), extra in prop::collection::vec(value(), 2)) {
            let mut more = rows.clone();
            more.push(extra.clone());
            let cmp = compare(&rs(rows.clone()), &rs(more), &RowOrder::Bag, Tolerance::default());
            let Comparison::Differ(Difference::Rows { only_left, only_right }) = cmp else {
                return Err(TestCaseError::fail(format!("not a row difference: {cmp:?}")));
            };
            prop_assert!(only_left.is_empty());
            prop_assert_eq!(only_right.len(), 1);
        }

        #[test]
        fn ordered_comparison_notices_a_swapped_pair_of_distinct_keys(
            keys in prop::collection::btree_set(-50i64..50, 2..10), i in any::<prop::sample::Index>(), payload in value(),
        ) {
            let rows: Vec<Vec<Value>> = keys.iter().map(|&k| vec![Value::Int(k), payload.clone()]).collect();
            let a = i.index(rows.len() - 1);
            let mut swapped = rows.clone();
            swapped.swap(a, a + 1);
            let order = RowOrder::SortedBy(vec![0]);
            prop_assert_eq!(
                compare(&rs(rows.clone()), &rs(swapped), &order, Tolerance::default()),
                Comparison::Differ(Difference::Order { position: a })
            );
            prop_assert_eq!(compare(&rs(rows.clone()), &rs(rows), &order, Tolerance::default()), Comparison::Equal);
        }

        #[test]
        fn ties_on_the_sort_key_may_permute(payloads in prop::collection::vec(value(), 2..6)) {
            let rows: Vec<Vec<Value>> = payloads.iter().map(|p| vec![Value::Int(1), p.clone()]).collect();
            let mut reversed = rows.clone();
            reversed.reverse();
            let order = RowOrder::SortedBy(vec![0]);
            prop_assert_eq!(compare(&rs(rows), &rs(reversed), &order, Tolerance::default()), Comparison::Equal);
        }

        #[test]
        fn comparison_is_symmetric(a in rows(), b in rows()) {
            let ab = compare(&rs(a.clone()), &rs(b.clone()), &RowOrder::Bag, Tolerance::default()) == Comparison::Equal;
            let ba = compare(&rs(b), &rs(a), &RowOrder::Bag, Tolerance::default()) == Comparison::Equal;
            prop_assert_eq!(ab, ba);
        }
    }

    #[test]
    fn floats_match_within_tolerance_only() {
        let t = Tolerance::default();
        // What FalkorDB prints for 0.1 + 0.2, read back.
        let text_rounded: f64 = "0.3".parse().expect("float");
        assert!(values_match(&Value::Float(0.1 + 0.2), &Value::Float(text_rounded), t));
        assert!(values_match(&Value::Float(-0.0), &Value::Float(0.0), t));
        assert!(values_match(&Value::Float(f64::NAN), &Value::Float(f64::NAN), t));
        assert!(!values_match(&Value::Float(0.3), &Value::Float(0.3001), t));
        assert!(!values_match(&Value::Float(1.0), &Value::Int(1), t));
        assert!(!values_match(&Value::Float(f64::INFINITY), &Value::Float(f64::MAX), t));
    }

    /// Paths of different lengths: x > y > z, so x > z (comparing the
    /// shorter path's nodes, then its relationships, gave x < z, and the
    /// standard sort panicked on an ArcadeDB answer).
    #[test]
    fn paths_are_ordered_transitively() {
        let node =
            |k: i64| Node { labels: vec!["L".into()], properties: BTreeMap::from([("k".into(), Value::Int(k))]) };
        let rel = |k: i64| Relationship {
            rel_type: "T".into(),
            start: None,
            end: None,
            properties: BTreeMap::from([("k".into(), Value::Int(k))]),
        };
        let path = |nodes: &[i64], rels: &[i64]| {
            Value::Path(crate::value::Path {
                nodes: nodes.iter().map(|&k| node(k)).collect(),
                relationships: rels.iter().map(|&k| rel(k)).collect(),
            })
        };
        let x = path(&[0, 1], &[2]);
        let y = path(&[0, 1, 5], &[1, 0]);
        let z = path(&[0, 1, 4], &[3, 0]);
        let (xy, yz, xz) = (cmp_values(&x, &y), cmp_values(&y, &z), cmp_values(&x, &z));
        assert!(!(xy == yz && xy != xz), "{xy:?} {yz:?} but {xz:?}");
        let mut rows = [vec![x.clone()], vec![y.clone()], vec![z.clone()], vec![x], vec![z], vec![y]];
        rows.sort_by(|a, b| cmp_rows(a, b));
        assert!(rows.windows(2).all(|w| cmp_rows(&w[0], &w[1]).is_le()));
    }

    /// Relationships that differ only in their endpoints (created by the
    /// query: no identity), more than the pairing limit of them, shuffled:
    /// the same bag (the Grafeo partition false alarm 0003).
    #[test]
    fn relationships_differing_only_in_endpoints_compare_as_a_bag() {
        let rel = |i: i64| Relationship {
            rel_type: "T".into(),
            start: Some(i % 37),
            end: Some(i / 37),
            properties: BTreeMap::new(),
        };
        let rows: Vec<Vec<Value>> = (0..600).map(|i| vec![Value::Relationship(rel(i)), Value::Int(i % 3)]).collect();
        let mut shuffled = rows.clone();
        shuffled.reverse();
        shuffled.rotate_left(211);
        assert_eq!(compare(&rs(rows), &rs(shuffled), &RowOrder::Bag, Tolerance::default()), Comparison::Equal);
    }

    #[test]
    fn tolerance_does_not_depend_on_sorted_neighbours() {
        let x = 1.0;
        let y = 1.0 + 1e-15;
        let left = rs(vec![vec![Value::Float(x), Value::Int(2)], vec![Value::Float(y), Value::Int(1)]]);
        let right = rs(vec![vec![Value::Float(y), Value::Int(2)], vec![Value::Float(x), Value::Int(1)]]);
        assert_eq!(compare(&left, &right, &RowOrder::Bag, Tolerance::default()), Comparison::Equal);
    }

    #[test]
    fn entities_match_on_content_not_engine_ids() {
        let t = Tolerance::default();
        let props = BTreeMap::from([("gid".to_owned(), Value::Int(4)), ("k".to_owned(), Value::Float(0.5))]);
        let a = Node::new(vec!["B".into(), "A".into()], props.clone());
        let b = Node::new(vec!["A".into(), "B".into()], props.clone());
        assert!(values_match(&Value::Node(a.clone()), &Value::Node(b), t));
        let mut other = props.clone();
        other.insert("k".into(), Value::Float(0.25));
        assert!(!values_match(&Value::Node(a), &Value::Node(Node::new(vec!["A".into(), "B".into()], other)), t));
        let r1 = Relationship::new("T".into(), props.clone(), Some(1), Some(2));
        let r2 = Relationship::new("T".into(), props.clone(), Some(1), Some(3));
        let r3 = Relationship::new("T".into(), props, None, Some(2));
        assert!(!values_match(&Value::Relationship(r1.clone()), &Value::Relationship(r2), t));
        assert!(values_match(&Value::Relationship(r1), &Value::Relationship(r3), t));
    }

    #[test]
    fn column_counts_must_agree() {
        let a = rs(vec![vec![Value::Int(1)]]);
        let b = rs(vec![vec![Value::Int(1), Value::Int(2)]]);
        assert!(matches!(
            compare(&a, &b, &RowOrder::Bag, Tolerance::default()),
            Comparison::Differ(Difference::ColumnCount { left: 1, right: 2 })
        ));
        let named =
            |cols: &[&str], row: Vec<Value>| ResultSet::new(cols.iter().map(|c| (*c).to_owned()).collect(), vec![row]);
        assert_eq!(
            compare(
                &named(&["a", "b"], vec![Value::Int(1), Value::Int(2)]),
                &named(&["b", "a"], vec![Value::Int(2), Value::Int(1)]),
                &RowOrder::Bag,
                Tolerance::default()
            ),
            Comparison::Equal,
            "the same columns in another order line up by name"
        );
        let empty = |n: usize| ResultSet::new((0..n).map(|i| format!("c{i}")).collect(), Vec::new());
        assert_eq!(compare(&empty(0), &empty(2), &RowOrder::Bag, Tolerance::default()), Comparison::Equal);
    }
}
