//! The name of rows two engines sort differently.
//!
//! An order finding was named by its query's constructs, one report per
//! mix of them: Kuzu 0.1.0's sort of -0.0 below every negative number came
//! as `ORDER BY,RETURN,UNWIND,list`, `MATCH,ORDER BY,RETURN` and
//! `MATCH,ORDER BY,RETURN,pattern:hops`. What a sort gets wrong is how it
//! compares some values, so the finding is named by the values of the
//! first sort key the two orders part on: the special ones among them
//! (null, NaN, a signed zero, an infinity), else their types.

use std::collections::BTreeSet;

use graphlancer_model::{ResultSet, Value};

use crate::signature::BY;

/// The name of `x` and `y`'s orders, which first part at row `position` on
/// the sort key columns `keys`.
pub(crate) fn sort_name(x: &ResultSet, y: &ResultSet, keys: &[usize], position: usize) -> String {
    let at = |r: &ResultSet, k: usize| r.rows.get(position).and_then(|row| row.get(k)).cloned().unwrap_or(Value::Null);
    let parted = keys.iter().map(|&k| (at(x, k), at(y, k))).find(|(a, b)| !same(a, b));
    let Some((a, b)) = parted else { return format!("{BY}ties") };
    let special: BTreeSet<&str> = [&a, &b].into_iter().filter_map(special).collect();
    let classes: BTreeSet<&str> =
        if special.is_empty() { [a.type_name(), b.type_name()].into_iter().collect() } else { special };
    format!("{BY}{}", classes.into_iter().collect::<Vec<_>>().join(","))
}

/// Two keys alike to a sort, a signed zero apart from the other.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// A value sorts put in a place of its own.
fn special(v: &Value) -> Option<&'static str> {
    match v {
        Value::Null => Some("null"),
        Value::Float(f) if f.is_nan() => Some("NaN"),
        Value::Float(f) if *f == 0.0 && f.is_sign_negative() => Some("-0.0"),
        Value::Float(f) if f.is_infinite() => Some("Infinity"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(column: &[Value]) -> ResultSet {
        ResultSet::new(vec!["a".into(), "b".into()], column.iter().map(|v| vec![Value::Int(0), v.clone()]).collect())
    }

    #[test]
    fn a_sort_is_named_by_the_values_it_parts_on() {
        let (zero, neg) = (Value::Float(-0.0), Value::Float(-88.68));
        let name = sort_name(&rows(&[zero.clone(), neg.clone()]), &rows(&[neg.clone(), zero]), &[0, 1], 0);
        assert_eq!(name, "by:-0.0");
        let ints = sort_name(&rows(&[Value::Int(2), Value::Int(1)]), &rows(&[Value::Int(1), Value::Int(2)]), &[1], 0);
        assert_eq!(ints, "by:integer");
        let null = sort_name(&rows(&[Value::Null, neg.clone()]), &rows(&[neg.clone(), Value::Null]), &[1], 0);
        assert_eq!(null, "by:null");
        let mixed = sort_name(&rows(&[Value::Int(1), neg.clone()]), &rows(&[neg, Value::Int(1)]), &[1], 0);
        assert_eq!(mixed, "by:float,integer");
    }
}
