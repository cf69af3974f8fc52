//! What the group oracles (partition, rewrite, metamorphic) share: each
//! engine's rows on every query of a group, and a finding that names the
//! relation broken.

use graphlancer_engines::Outcome;
use graphlancer_model::ResultSet;

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
