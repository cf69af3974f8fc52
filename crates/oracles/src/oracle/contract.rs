//! The oracle contract, after SQLancer's test oracles: an oracle builds its
//! own test case (one query, or a group of queries bound by a relation) from
//! a generated query and the graph, and judges every engine's outcomes on it.
//! The campaign loop only schedules, runs, counts, confirms, reduces and
//! records; adding an oracle is one file and one line in the registry
//! ([`crate::oracle`]).

use graphlancer_cypher::{DialectProfile, Generated, Generator};
use graphlancer_engines::Outcome;
use graphlancer_gremlin::{Traversal, TraversalGenerator};
use graphlancer_model::{CaseRng, Graph, Schema};
use rand::Rng;

use crate::case::{CaseQuery, TestCase, Verdict};
use crate::kind::OracleKind;

/// What an oracle may use to build a test case.
pub struct BuildCx<'a, 'g> {
    /// The generator of this graph and profile.
    pub generator: &'a Generator<'g>,
    /// The graph the engines hold.
    pub graph: &'a Graph,
    /// The profile generated from: the assumptions a relation needs.
    pub profile: &'a DialectProfile,
    /// How many engines run the case.
    pub engines: usize,
    /// The relations this oracle may use (`--oracle metamorphic:symmetry,k-hop`);
    /// empty for all of them.
    pub only: &'a [String],
    /// Traversals over this graph, for an oracle that asks in Gremlin too.
    pub traversals: Option<&'a TraversalGenerator<'g>>,
}

impl BuildCx<'_, '_> {
    /// Whether the relation `name` may be used.
    pub fn allows(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|n| n == name)
    }

    /// The allowed relations of `all`, in the order to try them: from one
    /// drawn at random on, so each allowed relation leads equally often.
    pub fn order(&self, all: &[&'static str], rng: &mut CaseRng) -> Vec<&'static str> {
        let allowed: Vec<&'static str> = all.iter().copied().filter(|n| self.allows(n)).collect();
        if allowed.is_empty() {
            return allowed;
        }
        let start = rng.random_range(0..allowed.len());
        allowed.iter().cycle().skip(start).take(allowed.len()).copied().collect()
    }
}

/// What an oracle judges with.
pub struct JudgeCx<'a> {
    /// The engines' names, in the order of each query's outcomes.
    pub names: &'a [String],
    /// The graph's schema (result types for signatures).
    pub schema: &'a Schema,
}

/// A test oracle.
pub trait Oracle: Sync {
    /// Which oracle this is.
    fn kind(&self) -> OracleKind;

    /// One line for `--help`: what it checks.
    fn about(&self) -> &'static str;

    /// Whether it runs when no `--oracle` is named, in a campaign of
    /// `engines` engines: by default an oracle checks one engine alone.
    fn runs_by_default(&self, engines: usize) -> bool {
        engines == 1
    }

    /// The fewest engines a campaign needs to run it.
    fn engines_needed(&self) -> usize {
        1
    }

    /// Whether it judges answers of a pair of engines (or of
    /// configurations of one) against each other: its findings are
    /// localized, and reduction keeps relationship-uniqueness guards.
    fn compares_a_pair(&self) -> bool {
        false
    }

    /// Whether it works on Gremlin too (it judges a query's outcomes
    /// without rewriting it).
    fn speaks_gremlin(&self) -> bool {
        false
    }

    /// Whether reduction may shrink a finding's graph: not where the case's
    /// queries name nodes the graph must keep (GAMERA's anchors).
    fn reduces_graph(&self) -> bool {
        true
    }

    /// Whether it reads row values (and so needs adapters to decode them
    /// and queries to be deterministic).
    fn reads_values(&self) -> bool {
        true
    }

    /// Whether it judges every query run, one at a time (crash, error),
    /// rather than building test cases of its own.
    fn per_query(&self) -> bool {
        false
    }

    /// The relations it draws from, by name (for `--oracle NAME:rel,...`).
    fn relations(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether its test cases run queries beyond the generated one. Such
    /// oracles take turns by weight (one per generated query); the others
    /// judge every generated query.
    fn adds_queries(&self) -> bool {
        true
    }

    /// Builds a test case from a generated query; `Err(reason)` when the
    /// query does not suit the oracle (counted by reason). An oracle that
    /// judges queries one by one keeps the default: the query alone.
    fn build(&self, source: &Generated, _: &BuildCx<'_, '_>, _: &mut CaseRng) -> Result<TestCase, &'static str> {
        Ok(TestCase::single(self.kind().name(), CaseQuery::source(source)))
    }

    /// For a case whose later queries are derived from a traversal (its
    /// first query), those queries for another traversal: what the reducer
    /// runs with each smaller one. `Err` when it has none.
    fn derived(&self, _: &Traversal) -> Result<Vec<CaseQuery>, &'static str> {
        Ok(Vec::new())
    }

    /// Judges `outcomes[q][e]`: engine `e`'s outcome on query `q` of `case`.
    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict;
}
