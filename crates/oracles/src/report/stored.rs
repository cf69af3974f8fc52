//! A finding as case.json holds it: the case, each engine's outcomes, the
//! reduction and bisection, in a form later releases still read.

use graphlancer_engines::Outcome;
use graphlancer_model::{Comparison, Difference, Graph, ResultSet, RowOrder, ScriptDialect, Tolerance, Value, compare};
use serde::{Deserialize, Serialize};

use crate::case::Body;
use crate::oracle::{CaseQuery, OracleKind};
use crate::reduce::ReductionState;
use crate::signature::Signature;

/// The version of the `case.json` format. Format 2: typed signatures, the
/// relation a group broke, and the group's other queries (`followups`).
pub const CASE_FORMAT: u32 = 2;

/// An engine as it was when the finding was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRecord {
    /// The spec it was opened from.
    pub spec: String,
    /// The version it reported.
    pub version: String,
    /// The creation script it loads graphs by (as the engine stated it).
    pub script: ScriptDialect,
}

/// A finding, complete enough to replay with nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// [`CASE_FORMAT`] when written.
    pub format: u32,
    /// The oracle that found it.
    pub oracle: OracleKind,
    /// The oracles the campaign ran (replay judges with the same).
    pub oracles: Vec<OracleKind>,
    /// Dedup key (of the reduced query, when there is one).
    pub signature: Signature,
    /// The signature of the query as generated, before reduction: a
    /// resumed campaign maps it to `signature` without reducing again.
    pub generated_signature: Signature,
    /// One line for people.
    pub summary: String,
    /// The kind of test case (`differential`, `partition`,
    /// `rewrite:tautology`, ...): replay rebuilds the case under it.
    pub relation: String,
    /// The relation the group broke, in words, for group oracles.
    pub broken: Option<String>,
    /// For relations between counts: the difference the relation predicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i64>,
    /// Campaign seed, graph and case index: the case regenerates from these.
    pub seed: u64,
    /// Index of the graph in the campaign.
    pub graph_index: u64,
    /// Index of the case within its graph.
    pub case_index: u64,
    /// The engines compared.
    pub engines: Vec<EngineRecord>,
    /// The graph the finding shows on, with its schema: the generated
    /// graph, reduced when reduction could.
    pub graph: Graph,
    /// The generated graph, when `graph` is its reduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_graph: Option<Graph>,
    /// How far reduction got.
    #[serde(default)]
    pub reduction: ReductionState,
    /// Which released versions of an engine show the finding
    /// (`graphlancer bisect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bisection: Option<Bisection>,
    /// What the first query is in its group (`source`, ...).
    pub role: String,
    /// The query text: the reduced query when reduction found a smaller one.
    pub query: String,
    /// The query as generated, when `query` is its reduction.
    pub original_query: Option<String>,
    /// The query's AST.
    pub ast: graphlancer_cypher::Query,
    /// A Gremlin query's traversal (`query` is then its TinkerPop text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traversal: Option<graphlancer_gremlin::Traversal>,
    /// Result columns an ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
    /// The clause sequence (part of some signatures).
    pub shape: String,
    /// What computes each result column (part of some signatures).
    pub column_kinds: Vec<String>,
    /// Each engine's outcome, in `engines` order, with at most
    /// [`STORED_ROWS`] rows each (replay recomputes them in full).
    pub outcomes: Vec<Outcome>,
    /// Rows each engine returned, before the cut.
    pub row_counts: Vec<Option<usize>>,
    /// The group's other queries, each with every engine's outcome.
    pub followups: Vec<StoredQuery>,
    /// Whether the re-run showed it again. Only crashes and hangs are kept
    /// when it did not (a process died or hung once, for whatever reason).
    #[serde(default = "yes")]
    pub reproduced: bool,
    /// Of the replays of the reduced case on a freshly loaded graph, how
    /// many showed the finding and how many ran; fewer than all: flaky.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replays: Option<(u32, u32)>,
    /// The known bug of the engine's profile whose production or shape the
    /// reduced case still has: the finding is counted under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_bug: Option<KnownBugSeen>,
}

/// A finding counted under a known bug.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownBugSeen {
    /// The bug's `[bugs]` name in the profile.
    pub bug: String,
    /// The release the finding shows it live on.
    pub release: String,
}

impl Case {
    /// Whether the reduced case showed the finding in only some replays.
    pub fn flaky(&self) -> bool {
        self.replays.is_some_and(|(shown, runs)| shown < runs)
    }

    /// How many runs `graphlancer replay` and `reduce` give the case before
    /// saying it does not reproduce: [`FLAKY_TRIES`] when flaky, else one.
    pub fn tries(&self) -> u32 {
        if self.flaky() { FLAKY_TRIES } else { 1 }
    }
}

pub use crate::recheck::FLAKY_TRIES;

fn yes() -> bool {
    true
}

/// Which released versions of one engine show a finding: each version
/// tried, and the boundaries found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bisection {
    /// The engine family bisected, e.g. `kuzu`.
    pub engine: String,
    /// The engine of the case that was replaced by each version.
    pub replaced: String,
    /// Every version tried, with whether it showed the finding.
    pub tried: Vec<(String, bool)>,
    /// The oldest release that shows it.
    pub first_showing: Option<String>,
    /// The newest release before that one that does not.
    pub last_not_showing: Option<String>,
    /// The first release after the case's own that no longer shows it.
    pub fixed_in: Option<String>,
    /// Releases tried that do not start (placeholders, another API).
    #[serde(default)]
    pub cannot_start: Vec<String>,
}

/// A query of a group, with every engine's outcome on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredFlat", from = "StoredFlat")]
pub struct StoredQuery {
    /// The query.
    pub query: CaseQuery,
    /// Each engine's outcome, cut like [`Case::outcomes`].
    pub outcomes: Vec<Outcome>,
    /// Rows each engine returned, before the cut.
    pub row_counts: Vec<Option<usize>>,
}

/// A follow-up as `case.json` holds it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredFlat {
    role: String,
    text: String,
    ast: graphlancer_cypher::Query,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    traversal: Option<graphlancer_gremlin::Traversal>,
    order_columns: Option<Vec<usize>>,
    outcomes: Vec<Outcome>,
    row_counts: Vec<Option<usize>>,
}

impl From<StoredFlat> for StoredQuery {
    fn from(f: StoredFlat) -> Self {
        let body = Body::from_parts(f.ast, f.traversal);
        let query = CaseQuery { role: f.role.into(), text: f.text, body, order_columns: f.order_columns };
        Self { query, outcomes: f.outcomes, row_counts: f.row_counts }
    }
}

impl From<StoredQuery> for StoredFlat {
    fn from(s: StoredQuery) -> Self {
        let q = s.query;
        let (ast, traversal) = q.body.into_parts();
        Self {
            role: q.role.to_string(),
            text: q.text,
            ast,
            traversal,
            order_columns: q.order_columns,
            outcomes: s.outcomes,
            row_counts: s.row_counts,
        }
    }
}

impl StoredQuery {
    /// A query with its outcomes (not yet cut).
    pub fn new(query: CaseQuery, outcomes: Vec<Outcome>) -> Self {
        Self { query, outcomes, row_counts: Vec::new() }
    }
}

/// Rows of each outcome kept in `case.json` and shown in `README.md`.
pub const STORED_ROWS: usize = 200;

impl Case {
    /// Cuts each outcome of every query to [`STORED_ROWS`] rows, recording
    /// the full counts.
    pub fn trim_rows(&mut self) {
        self.row_counts = trim(&mut self.outcomes, self.order_columns.is_some());
        for q in &mut self.followups {
            q.row_counts = trim(&mut q.outcomes, q.query.order_columns.is_some());
        }
    }

    /// Puts the queries of `case`, each with every engine's `outcomes`, in
    /// place of this case's (the first query, then the follow-ups), with
    /// the clause sequence and column kinds of the first; rows are cut.
    pub fn set_queries(&mut self, case: crate::oracle::TestCase, outcomes: Vec<Vec<Outcome>>) {
        let mut queries = case.queries.into_iter().zip(outcomes).map(|(q, outcomes)| StoredQuery::new(q, outcomes));
        let first = queries.next().expect("a case has a query");
        self.relation = case.relation;
        self.delta = case.delta;
        let (ast, traversal) = first.query.body.into_parts();
        let types = graphlancer_cypher::check::result_types(&ast, &self.graph.schema).unwrap_or_default();
        self.shape = match &traversal {
            Some(t) => t.constructs(),
            None => crate::shape::shape(&ast),
        };
        self.column_kinds = crate::shape::column_kinds(&ast, &types);
        self.role = first.query.role.to_string();
        self.query = first.query.text;
        self.ast = ast;
        self.traversal = traversal;
        self.order_columns = first.query.order_columns;
        self.outcomes = first.outcomes;
        self.followups = queries.collect();
        self.trim_rows();
    }

    /// Takes the reduced case in place of this one, keeping the query and
    /// graph as generated (the first ones, across repeated reductions).
    pub fn take_reduction(&mut self, r: crate::reduce::Reduced) {
        self.original_query.get_or_insert_with(|| self.query.clone());
        if r.graph != self.graph {
            self.original_graph.get_or_insert_with(|| self.graph.clone());
        }
        self.graph = r.graph;
        self.replays = Some(r.replays);
        self.signature = r.finding.signature;
        self.summary = r.finding.summary;
        self.broken = r.finding.relation;
        self.set_queries(r.case, r.outcomes);
    }

    /// The first query, the one the finding is named by.
    pub fn first(&self) -> CaseQuery {
        CaseQuery {
            role: self.role.as_str().into(),
            text: self.query.clone(),
            body: Body::from_parts(self.ast.clone(), self.traversal.clone()),
            order_columns: self.order_columns.clone(),
        }
    }

    /// Every query of the case, in order, as run.
    pub fn test_case(&self) -> crate::oracle::TestCase {
        let queries = std::iter::once(self.first()).chain(self.followups.iter().map(|q| q.query.clone())).collect();
        crate::oracle::TestCase { relation: self.relation.clone(), queries, delta: self.delta }
    }
}

/// Cuts each outcome to [`STORED_ROWS`] rows and returns the full counts.
/// In an unordered answer cut short, the rows no other engine returned come
/// first, so the cut never hides the difference.
pub(super) fn trim(outcomes: &mut [Outcome], ordered: bool) -> Vec<Option<usize>> {
    let counts: Vec<Option<usize>> = outcomes.iter().map(|o| o.rows().map(|r| r.rows.len())).collect();
    let cut = counts.iter().any(|n| n.is_some_and(|n| n > STORED_ROWS));
    if cut && !ordered {
        let all: Vec<Option<ResultSet>> = outcomes.iter().map(|o| o.rows().cloned()).collect();
        for (i, o) in outcomes.iter_mut().enumerate() {
            let Outcome::Rows(r) = o else { continue };
            if r.rows.len() <= STORED_ROWS {
                continue;
            }
            let other = all.iter().enumerate().find_map(|(j, x)| x.as_ref().filter(|_| j != i));
            if let Some(other) = other
                && let Comparison::Differ(Difference::Rows { only_left, .. }) =
                    compare(r, other, &RowOrder::Bag, Tolerance::default())
            {
                surface(&mut r.rows, only_left);
            }
        }
    }
    for o in outcomes.iter_mut() {
        if let Outcome::Rows(r) = o {
            r.rows.truncate(STORED_ROWS);
        }
    }
    counts
}

/// Moves one instance of each of `first` (at most [`STORED_ROWS`]) to the
/// front of `rows`, keeping the rest in order.
pub(super) fn surface(rows: &mut Vec<Vec<Value>>, mut first: Vec<Vec<Value>>) {
    first.truncate(STORED_ROWS);
    let mut front = Vec::with_capacity(first.len());
    let mut rest = Vec::with_capacity(rows.len());
    for row in rows.drain(..) {
        match first.iter().position(|f| *f == row) {
            Some(k) => {
                first.swap_remove(k);
                front.push(row);
            }
            None => rest.push(row),
        }
    }
    front.extend(rest);
    *rows = front;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaced_rows_come_first_once_each() {
        let row = |i: i64| vec![Value::Int(i)];
        let mut rows = vec![row(1), row(2), row(3), row(2), row(4)];
        surface(&mut rows, vec![row(2), row(4)]);
        assert_eq!(rows, vec![row(2), row(4), row(1), row(3), row(2)]);
    }
}
