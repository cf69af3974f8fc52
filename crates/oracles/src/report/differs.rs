//! What differs between answers whose tables print alike. A table shows a
//! value as Cypher would and sorts the rows for reading, so two answers
//! that differ only in a relationship's direction, a float's last bits or
//! the order of their rows look the same on the page; this section says
//! which of those it is.

use std::fmt::Write as _;

use graphlancer_engines::Outcome;
use graphlancer_model::{Node, Relationship, ResultSet, Value};

/// Rows of each kind listed at most.
const MAX_ROWS: usize = 5;

/// A Markdown section for each engine whose rows print like the first
/// engine's but are not the same, or `None` when no such pair exists.
pub(super) fn section(names: &[&str], outcomes: &[Outcome], printed: impl Fn(&ResultSet) -> String) -> Option<String> {
    // Each answer's table and exact rows, once: every pair compares them.
    let answers: Vec<(&str, String, Vec<String>)> =
        names.iter().zip(outcomes).filter_map(|(n, o)| o.rows().map(|r| (*n, printed(r), exact_rows(r)))).collect();
    let mut s = String::new();
    for (i, (a, px, ex)) in answers.iter().enumerate() {
        for (b, py, ey) in &answers[i + 1..] {
            if px != py || ex == ey {
                continue;
            }
            let _ = writeln!(s, "{a} and {b} print alike, but differ:\n");
            let (mut sx, mut sy) = (ex.clone(), ey.clone());
            sx.sort();
            sy.sort();
            if sx == sy {
                order(&mut s, (a, ex), (b, ey));
            } else {
                only_in(&mut s, a, &sx, &sy);
                only_in(&mut s, b, &sy, &sx);
            }
        }
    }
    (!s.is_empty()).then_some(s)
}

/// The same rows in another order: the first place they part.
fn order(s: &mut String, (a, x): (&str, &[String]), (b, y): (&str, &[String])) {
    let at = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
    let _ = writeln!(s, "the same rows in another order; row {} (from 1, as answered) is:\n", at + 1);
    let _ = writeln!(s, "```\n{a}: {}\n{b}: {}\n```\n", x[at], y[at]);
}

/// Rows of `mine` (sorted) that `theirs` (sorted) lacks, counted as a multiset.
fn only_in(s: &mut String, name: &str, mine: &[String], theirs: &[String]) {
    let mut rest: Vec<&String> = theirs.iter().collect();
    let mut only = Vec::new();
    for row in mine {
        match rest.iter().position(|r| *r == row) {
            Some(p) => {
                rest.remove(p);
            }
            None => only.push(row),
        }
    }
    if only.is_empty() {
        return;
    }
    let _ = writeln!(s, "rows only {name} has ({}), every detail shown:\n\n```", only.len());
    for row in only.iter().take(MAX_ROWS) {
        let _ = writeln!(s, "{row}");
    }
    if only.len() > MAX_ROWS {
        let _ = writeln!(s, "… {} more rows", only.len() - MAX_ROWS);
    }
    s.push_str("```\n\n");
}

/// Each row with every detail of its values, in the order answered.
fn exact_rows(r: &ResultSet) -> Vec<String> {
    r.rows.iter().map(|row| row.iter().map(exact).collect::<Vec<_>>().join(" | ")).collect()
}

/// A value with what a table leaves out: a float's bits, a relationship's
/// end points (by generated identity), and so its direction in a path.
pub(super) fn exact(v: &Value) -> String {
    match v {
        Value::Float(x) => format!("{v} (bits {:#018x})", x.to_bits()),
        Value::List(items) => format!("[{}]", items.iter().map(exact).collect::<Vec<_>>().join(", ")),
        Value::Map(m) => {
            format!("{{{}}}", m.iter().map(|(k, v)| format!("{k}: {}", exact(v))).collect::<Vec<_>>().join(", "))
        }
        Value::Node(n) => node(n),
        Value::Relationship(r) => relationship(r),
        Value::Path(p) => {
            let mut s = p.nodes.first().map(node).unwrap_or_default();
            for (r, n) in p.relationships.iter().zip(p.nodes.iter().skip(1)) {
                let _ = write!(s, "-{}-{}", relationship(r), node(n));
            }
            s
        }
        other => other.to_string(),
    }
}

fn properties(p: &std::collections::BTreeMap<String, Value>) -> String {
    if p.is_empty() {
        return String::new();
    }
    format!(" {{{}}}", p.iter().map(|(k, v)| format!("{k}: {}", exact(v))).collect::<Vec<_>>().join(", "))
}

fn node(n: &Node) -> String {
    format!("({}{})", n.labels.iter().map(|l| format!(":{l}")).collect::<String>(), properties(&n.properties))
}

fn relationship(r: &Relationship) -> String {
    let end = |e: Option<i64>| e.map_or_else(|| "?".to_owned(), |g| g.to_string());
    format!("[:{}{} from {} to {}]", r.rel_type, properties(&r.properties), end(r.start), end(r.end))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn rows(values: Vec<Vec<Value>>) -> Outcome {
        Outcome::Rows(ResultSet { columns: vec!["x".into()], rows: values })
    }

    fn table(r: &ResultSet) -> String {
        super::super::readme::table(r)
    }

    fn rel(start: i64, end: i64) -> Value {
        Value::Relationship(Relationship {
            rel_type: "T2".into(),
            properties: BTreeMap::from([("gid".to_owned(), Value::Int(7))]),
            start: Some(start),
            end: Some(end),
        })
    }

    #[test]
    fn a_relationship_read_the_other_way_is_shown_with_its_end_points() {
        let s = section(&["a", "b"], &[rows(vec![vec![rel(1, 2)]]), rows(vec![vec![rel(2, 1)]])], table)
            .expect("a section");
        assert!(s.contains("a and b print alike"), "{s}");
        assert!(s.contains("rows only a has (1)") && s.contains("[:T2 {gid: 7} from 1 to 2]"), "{s}");
        assert!(s.contains("rows only b has (1)") && s.contains("[:T2 {gid: 7} from 2 to 1]"), "{s}");
    }

    #[test]
    fn rows_in_another_order_name_the_first_row_that_parts() {
        let (one, two) = (vec![Value::Int(1)], vec![Value::Int(2)]);
        let s = section(&["a", "b"], &[rows(vec![one.clone(), two.clone()]), rows(vec![two, one])], table)
            .expect("a section");
        assert!(s.contains("another order; row 1"), "{s}");
        assert!(s.contains("a: 1\nb: 2"), "{s}");
    }

    #[test]
    fn floats_that_print_alike_show_their_bits() {
        let nan = f64::from_bits(0x7ff8_0000_0000_0001);
        assert_eq!(exact(&Value::Float(nan)), "NaN (bits 0x7ff8000000000001)");
        let s = section(
            &["a", "b"],
            &[rows(vec![vec![Value::Float(nan)]]), rows(vec![vec![Value::Float(f64::NAN)]])],
            table,
        );
        assert!(s.is_some_and(|s| s.contains("0x7ff8000000000001") && s.contains("0x7ff8000000000000")));
    }

    #[test]
    fn answers_that_print_differently_or_are_the_same_get_no_section() {
        let same = [rows(vec![vec![rel(1, 2)]]), rows(vec![vec![rel(1, 2)]])];
        assert_eq!(section(&["a", "b"], &same, table), None);
        let apart = [rows(vec![vec![Value::Int(1)]]), rows(vec![vec![Value::Int(2)]])];
        assert_eq!(section(&["a", "b"], &apart, table), None);
    }
}
