//! A variable a WITH binds to an aggregate's result, read again later.
//!
//! Kuzu (0.1.0 to 0.11.3) keeps such a variable bound to the aggregate
//! itself: a later clause that reads it under another name (`a0 AS a1`)
//! or inside an expression computes the aggregate again, over rows it was
//! never meant for (a count of the WITH's rows) or with its argument out of
//! scope (an internal error). One bug came as binder errors, three internal
//! errors, wrong counts and row counts, under two oracles: eight of Kuzu
//! 0.1.0's 37 reports. Bound anew right after its WITH, `UNWIND [a0] AS
//! a0u` (one row, `a0u = a0`, nulls and lists too, in Neo4j 5), the
//! variable reads no aggregate; where the finding then vanishes it is
//! named by this cause, one name whatever oracle showed it.

use graphlancer_cypher::ast::{Clause, Expr, Query};

use super::rename::{occurrences, rename_tree};

/// `q` with each variable a top-level WITH binds to an aggregate, and a
/// later clause reads other than as itself, bound anew by an UNWIND right
/// after that WITH, the later clauses reading the new name. `None` where no
/// variable is read so, or a later `*` would project the new name too.
pub(super) fn rebound(q: &Query) -> Option<Query> {
    let text = graphlancer_cypher::render(q);
    let mut out = q.clone();
    let mut changed = false;
    for part in &mut out.parts {
        let mut i = 0;
        while i < part.clauses.len() {
            let Clause::With(p) = &part.clauses[i] else {
                i += 1;
                continue;
            };
            let bound: Vec<String> =
                p.items.iter().filter(|(e, _)| e.has_aggregate()).map(|(_, alias)| alias.clone()).collect();
            let later = i + 1..part.clauses.len();
            let star = |c: &Clause| matches!(c, Clause::With(p) | Clause::Return(p) if p.star);
            if part.clauses[later.clone()].iter().any(star) {
                return None;
            }
            let mut inserted = 0;
            for name in bound {
                if !part.clauses[later.clone()].iter().any(|c| reads_other_than_itself(c, &name)) {
                    continue;
                }
                let fresh = (0..).map(|k| format!("{name}u{k}")).find(|f| occurrences(&text, f) == 0)?;
                let map = std::collections::BTreeMap::from([(name.clone(), fresh.clone())]);
                for c in &mut part.clauses[i + 1 + inserted..] {
                    let mut tree = serde_json::to_value(&*c).ok()?;
                    rename_tree(&mut tree, &map);
                    *c = serde_json::from_value(tree).ok()?;
                }
                let unwind = Clause::Unwind { list: Expr::List(vec![Expr::var(&name)]), alias: fresh };
                part.clauses.insert(i + 1 + inserted, unwind);
                inserted += 1;
                changed = true;
            }
            i += 1 + inserted;
        }
    }
    changed.then_some(out)
}

/// Whether clause `c` reads variable `name` other than by projecting it
/// under its own name (`WITH a0`, which Kuzu answers right).
fn reads_other_than_itself(c: &Clause, name: &str) -> bool {
    let mut c = c.clone();
    if let Clause::With(p) | Clause::Return(p) = &mut c {
        p.items.retain(|(e, alias)| !(matches!(e, Expr::Variable(v) if v == name) && alias == name));
    }
    serde_json::to_value(&c).is_ok_and(|tree| mentions(&tree, name))
}

/// Whether a string of the serialized tree, outside literals, is `name`.
fn mentions(v: &serde_json::Value, name: &str) -> bool {
    use serde_json::Value as J;
    match v {
        J::Object(m) => m.iter().any(|(k, x)| k != "Literal" && mentions(x, name)),
        J::Array(items) => items.iter().any(|x| mentions(x, name)),
        J::String(s) => s == name,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rebound_text(q: &str) -> Option<String> {
        let q = graphlancer_cypher::parse::parse(q).expect("parses");
        rebound(&q).map(|q| graphlancer_cypher::render(&q))
    }

    #[test]
    fn an_aggregate_read_under_another_name_or_in_an_expression_is_bound_anew() {
        assert_eq!(
            rebound_text("MATCH (n0) WITH count(*) AS a0 RETURN a0 AS a1").as_deref(),
            Some("MATCH (n0) WITH count(*) AS a0 UNWIND [a0] AS a0u0 RETURN a0u0 AS a1")
        );
        let read = rebound_text("WITH count(*) AS a0 OPTIONAL MATCH (n0) WHERE 0 >= (a0 - n0.k0) RETURN 0")
            .expect("read in an expression");
        assert!(read.contains("UNWIND [a0] AS a0u0 OPTIONAL MATCH (n0) WHERE 0 >= (a0u0 - n0.k0)"), "{read}");
        // Only the aggregate's variable: the grouping key stays.
        let keyed = rebound_text("MATCH (n0) WITH n0, max(n0.k0) AS a0 WITH n0, a0 AS a1 RETURN a1").expect("renamed");
        assert!(keyed.contains("UNWIND [a0] AS a0u0 WITH n0, a0u0 AS a1"), "{keyed}");
    }

    #[test]
    fn an_aggregate_projected_as_itself_or_under_a_star_is_left() {
        assert_eq!(rebound_text("MATCH (n0) WITH count(*) AS a0 RETURN a0"), None);
        assert_eq!(rebound_text("MATCH (n0) WITH n0.k0 AS a0 RETURN a0 AS a1"), None);
        assert_eq!(rebound_text("MATCH (n0) WITH count(*) AS a0 WITH *, a0 + 1 AS a1 RETURN a1"), None);
        // A name the query already has is not taken.
        let taken = rebound_text("WITH count(*) AS a0 WITH a0 AS a0u0 RETURN a0u0").expect("renamed");
        assert!(taken.contains("UNWIND [a0] AS a0u1"), "{taken}");
    }
}
