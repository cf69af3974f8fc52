//! What the group oracles (partition, rewrite, metamorphic) share: each
//! engine's rows on every query of a group, and a finding that names the
//! relation broken.

use graphlancer_cypher::ast::Query;
use graphlancer_engines::Outcome;
use graphlancer_model::{ResultSet, Value};

use crate::oracle::{Finding, OracleKind, Verdict};
use crate::signature::{Fault, Signature};

/// Engine `e`'s rows on every query of a group, or `None` when one query
/// did not return rows (an error or a crash is the other oracles' business,
/// and says nothing about the relation).
pub(crate) fn rows_of(outcomes: &[Vec<Outcome>], e: usize) -> Option<Vec<&ResultSet>> {
    outcomes.iter().map(|o| o.get(e).and_then(Outcome::rows)).collect()
}

/// The verdict when a query of the group did not return rows.
pub(crate) const NO_ROWS: Verdict = Verdict::Skip("a query of the group did not return rows");

/// The verdict when a query that counts did not return one integer.
pub(crate) const NOT_A_COUNT: Verdict = Verdict::Skip("a count that is not one integer");

/// The count a counting query of a group returned: its one integer.
pub(crate) fn count(r: &ResultSet) -> Option<i64> {
    match r.scalar() {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    }
}

/// A finding of relation `name` broken on `engine`.
pub(crate) fn broken(
    oracle: OracleKind,
    engine: &str,
    name: &str,
    how: &str,
    shape: Option<String>,
    summary: String,
    words: String,
) -> Verdict {
    Verdict::Finding(Finding {
        signature: Signature {
            oracle,
            engines: vec![engine.to_owned()],
            fault: Fault::Relation { name: name.to_owned(), how: how.to_owned() },
            shape,
        },
        summary,
        relation: Some(words),
        query: None,
    })
}

/// What names a broken relation of a group built on `query`, beside the
/// relation and how it broke. A query that writes before the group's
/// queries read is one cause whatever else it holds: an engine that lets a
/// later filter of the same query see other rows' writes (FalkorDB runs a
/// WITH's WHERE before the SET just before it) breaks every relation of
/// every such query. Otherwise nothing: the constructs of the query named
/// the query, not the cause (ArcadeDB's one fault with aggregates inside
/// expressions made 14 null-check reports, one per mix of constructs), and
/// each occurrence stays listed in the report's `duplicates.tsv`.
pub(crate) fn cause(query: &Query) -> Option<String> {
    query.writes().then(|| AFTER_WRITES.to_owned())
}

/// [`cause`] of a query that writes.
pub(crate) const AFTER_WRITES: &str = "after-writes";

#[cfg(test)]
mod tests {
    use graphlancer_cypher::parse::parse;

    use super::{AFTER_WRITES, cause};

    #[test]
    fn a_query_that_writes_is_named_by_that_and_no_query_by_its_constructs() {
        let q = |t: &str| parse(t).expect("parses");
        let a = q("MATCH (n0:L0) SET n0.k0 = 1 WITH n0 WHERE n0.k1 > 2 RETURN n0.k0");
        let b = q("MATCH (n0)-[r0]->(n1) REMOVE n1.k3 WITH n1, count(*) AS a0 UNWIND [1] AS x RETURN a0, x");
        assert_eq!(cause(&a).as_deref(), Some(AFTER_WRITES));
        assert_eq!(cause(&a), cause(&b));
        let read = q("MATCH (n0:L0) WITH n0 WHERE n0.k1 > 2 RETURN n0.k0");
        let other = q("MATCH (n0)-[]->(n1) RETURN DISTINCT n1, count(*) AS c");
        assert_eq!(cause(&read), None);
        assert_eq!(cause(&read), cause(&other));
    }
}
