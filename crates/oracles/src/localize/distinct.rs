//! Aggregates that go wrong only beside a DISTINCT aggregate of the same
//! projection. Kuzu 0.11.3 gives a grouping's plain aggregates no input
//! when one of them is DISTINCT: `count(0)` is 0, `avg(1)` null. Descent
//! names the wrong aggregate (`agg:count`, `agg:avg`, a variable a later
//! clause renamed it to), one report per aggregate for one bug. Where the
//! same query with every other aggregate plain gives the same value on
//! both engines, the DISTINCT beside it is what the bug needs: one name.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Expr};

/// The culprit's name.
pub(super) const BESIDE_DISTINCT: &str = "agg:beside DISTINCT";

/// Whether a projection of `clauses` holds a DISTINCT aggregate beside a
/// plain one.
pub(super) fn mixes_distinct(clauses: &[Clause]) -> bool {
    clauses.iter().any(|c| {
        let (Clause::With(p) | Clause::Return(p)) = c else { return false };
        let (mut distinct, mut plain) = (false, false);
        for (e, _) in &p.items {
            e.walk(&mut |x| {
                if let Expr::Aggregate { distinct: d, .. } = x {
                    distinct |= *d;
                    plain |= !*d;
                }
            });
        }
        distinct && plain
    })
}

/// `clauses` with every aggregate plain, but for item `keep` of the final
/// RETURN and the WITH items it reads, directly or through other WITHs
/// (the column that differs keeps what it computes).
pub(super) fn without_distinct(clauses: &[Clause], keep: Option<usize>) -> Vec<Clause> {
    fn plain(e: &mut Expr) {
        if let Expr::Aggregate { distinct, .. } = e {
            *distinct = false;
        }
        for child in e.children_mut() {
            plain(child);
        }
    }
    fn reads(e: &Expr, into: &mut BTreeSet<String>) {
        e.walk(&mut |x| {
            if let Expr::Variable(v) = x {
                into.insert(v.clone());
            }
        });
    }
    let mut out = clauses.to_vec();
    let last = out.len().saturating_sub(1);
    let mut needed = BTreeSet::new();
    for (i, c) in out.iter_mut().enumerate().rev() {
        let (Clause::With(p) | Clause::Return(p)) = c else { continue };
        for (j, (e, alias)) in p.items.iter_mut().enumerate() {
            let kept = if i == last { keep == Some(j) } else { needed.contains(alias.as_str()) };
            if kept {
                reads(e, &mut needed);
            } else {
                plain(e);
            }
        }
    }
    out
}

/// Whether expression `e` holds a DISTINCT aggregate.
pub(super) fn has_distinct(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Aggregate { distinct: true, .. }));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(text: &str) -> Vec<Clause> {
        graphlancer_cypher::parse::parse(text).expect("parses").parts.remove(0).clauses
    }

    #[test]
    fn only_the_other_aggregates_lose_their_distinct() {
        let render = |clauses: Vec<Clause>| {
            graphlancer_cypher::render(&graphlancer_cypher::ast::Query {
                parts: vec![graphlancer_cypher::ast::SingleQuery { clauses }],
                union_all: false,
                spelling: Default::default(),
            })
        };
        let q = clauses("MATCH (n) WITH n.k AS k, count(DISTINCT n) AS c, avg(1) AS a RETURN k, a, count(DISTINCT k)");
        assert!(mixes_distinct(&q));
        // The column kept keeps its DISTINCT; the WITH's `c` loses it.
        let text = render(without_distinct(&q, Some(2)));
        assert!(text.contains("count(n) AS c") && text.contains("count(DISTINCT k)"), "{text}");
        assert!(!mixes_distinct(&without_distinct(&q, None)));
        assert!(!mixes_distinct(&clauses("MATCH (n) RETURN count(DISTINCT n), 1")));
        assert!(!mixes_distinct(&clauses("MATCH (n) WITH count(DISTINCT n) AS c RETURN count(*)")));
        // What the kept column reads through a WITH keeps its DISTINCT.
        let through = clauses("MATCH (n) WITH count(DISTINCT n) AS c, count(n) AS d RETURN c, d");
        let text = render(without_distinct(&through, Some(0)));
        assert!(text.contains("count(DISTINCT n) AS c"), "{text}");
    }
}
