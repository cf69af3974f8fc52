//! Values while a query runs: entities are references into the store, so
//! a SET is seen by every later read, as in Cypher; comparison, equality
//! and ordering follow openCypher (ternary where it says so).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::Failure;

/// A value during evaluation.
#[derive(Debug, Clone)]
pub enum V {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<V>),
    /// A map.
    Map(BTreeMap<String, V>),
    /// A node, by its index in the store.
    Node(usize),
    /// A relationship, by its index in the store.
    Rel(usize),
    /// A path: its nodes and the relationships between them.
    Path(Vec<usize>, Vec<usize>),
}

impl V {
    /// Whether the value is null.
    pub fn is_null(&self) -> bool {
        matches!(self, V::Null)
    }

    /// The value as a truth value: `None` for null, an error for a non-boolean.
    pub fn truth(&self) -> Result<Option<bool>, Failure> {
        match self {
            V::Null => Ok(None),
            V::Bool(b) => Ok(Some(*b)),
            other => Err(Failure::runtime(format!("expected a boolean, got {}", other.kind()))),
        }
    }

    /// The value's type name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            V::Null => "null",
            V::Bool(_) => "boolean",
            V::Int(_) => "integer",
            V::Float(_) => "float",
            V::Str(_) => "string",
            V::List(_) => "list",
            V::Map(_) => "map",
            V::Node(_) => "node",
            V::Rel(_) => "relationship",
            V::Path(..) => "path",
        }
    }
}

/// `a = b` in openCypher: null when either side is or holds a null that
/// decides it; numbers compare across integer and float.
pub fn equals(a: &V, b: &V) -> Option<bool> {
    match (a, b) {
        (V::Null, _) | (_, V::Null) => None,
        (V::Int(x), V::Int(y)) => Some(x == y),
        (V::Int(_) | V::Float(_), V::Int(_) | V::Float(_)) => Some(num_cmp(a, b) == Some(Ordering::Equal)),
        (V::Bool(x), V::Bool(y)) => Some(x == y),
        (V::Str(x), V::Str(y)) => Some(x == y),
        (V::Node(x), V::Node(y)) | (V::Rel(x), V::Rel(y)) => Some(x == y),
        (V::Path(n1, r1), V::Path(n2, r2)) => Some(n1 == n2 && r1 == r2),
        (V::List(x), V::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut unknown = false;
            for (p, q) in x.iter().zip(y) {
                match equals(p, q) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        (V::Map(x), V::Map(y)) => {
            if x.len() != y.len() || x.keys().ne(y.keys()) {
                return Some(false);
            }
            let mut unknown = false;
            for (p, q) in x.values().zip(y.values()) {
                match equals(p, q) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        _ => Some(false),
    }
}

fn num_cmp(a: &V, b: &V) -> Option<Ordering> {
    match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Float(x), V::Float(y)) => x.partial_cmp(y),
        // An integer against a float compares exactly, not through a lossy cast.
        (V::Int(x), V::Float(y)) => int_float_cmp(*x, *y),
        (V::Float(x), V::Int(y)) => int_float_cmp(*y, *x).map(Ordering::reverse),
        _ => None,
    }
}

fn int_float_cmp(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^63 as a float: every i64 is below it.
    if f >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    if f < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    #[allow(clippy::cast_possible_truncation)]
    let ti = t as i64;
    Some(i.cmp(&ti).then(if f > t {
        Ordering::Less
    } else if f < t {
        Ordering::Greater
    } else {
        Ordering::Equal
    }))
}

/// `a < b` and friends: comparable only within numbers, strings, booleans
/// and lists of those; anything else is null.
pub fn compare(a: &V, b: &V) -> Option<Ordering> {
    match (a, b) {
        (V::Int(_) | V::Float(_), V::Int(_) | V::Float(_)) => num_cmp(a, b),
        (V::Str(x), V::Str(y)) => Some(java_cmp(x, y)),
        (V::Bool(x), V::Bool(y)) => Some(x.cmp(y)),
        (V::List(x), V::List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// Strings order by UTF-16 code units, as the JVM's engines order them.
fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The total order of ORDER BY (openCypher's orderability): maps, nodes,
/// relationships, lists, paths, strings, booleans, numbers (NaN last of
/// them), then null.
pub fn order(a: &V, b: &V) -> Ordering {
    fn rank(v: &V) -> u8 {
        match v {
            V::Map(_) => 0,
            V::Node(_) => 1,
            V::Rel(_) => 2,
            V::List(_) => 3,
            V::Path(..) => 4,
            V::Str(_) => 5,
            V::Bool(_) => 6,
            V::Int(_) | V::Float(_) => 7,
            V::Null => 8,
        }
    }
    let nan = |v: &V| matches!(v, V::Float(f) if f.is_nan());
    match (a, b) {
        (V::Int(_) | V::Float(_), V::Int(_) | V::Float(_)) => match (nan(a), nan(b)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => num_cmp(a, b).unwrap_or(Ordering::Equal),
        },
        (V::Str(x), V::Str(y)) => java_cmp(x, y),
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::Node(x), V::Node(y)) | (V::Rel(x), V::Rel(y)) => x.cmp(y),
        (V::List(x), V::List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match order(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        (V::Map(x), V::Map(y)) => {
            let keys = x.keys().cmp(y.keys());
            if keys != Ordering::Equal {
                return keys;
            }
            for (p, q) in x.values().zip(y.values()) {
                match order(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            Ordering::Equal
        }
        (V::Path(n1, r1), V::Path(n2, r2)) => n1.cmp(n2).then(r1.cmp(r2)),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// A key for DISTINCT and grouping: values equivalent in openCypher (null
/// with null, 1 with 1.0) give equal keys. Whether an integer and a float
/// of equal value group together differs between engines, so the caller
/// refuses a key set where that happens ([`Key::mixes_numbers`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    /// null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number that is an integer value, whichever type held it; the flag says it was a float.
    Int(i64, bool),
    /// Any other float, by its bits (all NaNs as one).
    Float(u64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Key>),
    /// A map.
    Map(Vec<(String, Key)>),
    /// A node.
    Node(usize),
    /// A relationship.
    Rel(usize),
    /// A path.
    Path(Vec<usize>, Vec<usize>),
}

impl Key {
    /// The key of `v`.
    pub fn of(v: &V) -> Key {
        match v {
            V::Null => Key::Null,
            V::Bool(b) => Key::Bool(*b),
            V::Int(i) => Key::Int(*i, false),
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            V::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Key::Int(*f as i64, true),
            V::Float(f) if f.is_nan() => Key::Float(f64::NAN.to_bits()),
            V::Float(f) => Key::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
            V::Str(s) => Key::Str(s.clone()),
            V::List(l) => Key::List(l.iter().map(Key::of).collect()),
            V::Map(m) => Key::Map(m.iter().map(|(k, v)| (k.clone(), Key::of(v))).collect()),
            V::Node(n) => Key::Node(*n),
            V::Rel(r) => Key::Rel(*r),
            V::Path(n, r) => Key::Path(n.clone(), r.clone()),
        }
    }

    /// The key with the integer-or-float flags cleared.
    fn numbers_merged(&self) -> Key {
        match self {
            Key::Int(i, _) => Key::Int(*i, false),
            Key::List(l) => Key::List(l.iter().map(Key::numbers_merged).collect()),
            Key::Map(m) => Key::Map(m.iter().map(|(k, v)| (k.clone(), v.numbers_merged())).collect()),
            other => other.clone(),
        }
    }

    /// Whether two keys of `keys` differ only in whether a number was an integer or a float.
    pub fn mixes_numbers<'a>(keys: impl IntoIterator<Item = &'a Key>) -> bool {
        let mut seen: BTreeMap<Key, &Key> = BTreeMap::new();
        for k in keys {
            let merged = k.numbers_merged();
            if let Some(other) = seen.get(&merged) {
                if *other != k {
                    return true;
                }
            } else {
                seen.insert(merged, k);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_ternary_and_numbers_cross_types_exactly() {
        assert_eq!(equals(&V::Int(1), &V::Float(1.0)), Some(true));
        assert_eq!(equals(&V::Int(i64::MAX), &V::Float(9.223_372_036_854_776e18)), Some(false));
        assert_eq!(equals(&V::List(vec![V::Int(1), V::Null]), &V::List(vec![V::Int(2), V::Null])), Some(false));
        assert_eq!(equals(&V::List(vec![V::Int(1), V::Null]), &V::List(vec![V::Int(1), V::Null])), None);
        assert_eq!(equals(&V::Str("1".into()), &V::Int(1)), Some(false));
        assert_eq!(compare(&V::Str("a".into()), &V::Int(1)), None);
        assert_eq!(compare(&V::Float(f64::NAN), &V::Int(1)), None);
    }

    #[test]
    fn orderability_puts_null_last_and_nan_after_every_number() {
        let mut v = [V::Null, V::Float(f64::NAN), V::Int(3), V::Str("a".into()), V::Float(f64::INFINITY)];
        v.sort_by(order);
        let kinds: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
        assert_eq!(kinds, ["Str(\"a\")", "Int(3)", "Float(inf)", "Float(NaN)", "Null"]);
    }

    #[test]
    fn keys_group_equal_numbers_and_say_when_types_mix() {
        let (a, b) = (Key::of(&V::Int(1)), Key::of(&V::Float(1.0)));
        assert_ne!(a, b);
        assert!(Key::mixes_numbers([&a, &b]));
        assert!(!Key::mixes_numbers([&a, &Key::of(&V::Int(2))]));
        assert_eq!(Key::of(&V::Float(0.0)), Key::of(&V::Float(-0.0)));
    }
}
