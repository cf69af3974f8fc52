//! The oracle contract, after SQLancer's test oracles: an oracle builds its
//! own test case (one query, or a group of queries bound by a relation) from
//! a generated query and the graph, and judges every engine's outcomes on it.
//! The campaign loop only schedules, runs, counts, confirms, reduces and
//! records; adding an oracle is one file and one line in [`oracle`].

use graphlancer_cypher::ast::Query;
use graphlancer_cypher::{DialectProfile, Generated, Generator};
use graphlancer_engines::{Engine, Outcome};
use graphlancer_gremlin::{GremlinDialect, Traversal, TraversalGenerator};
use graphlancer_model::{CaseRng, Graph, Language, Schema};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::signature::Signature;

/// The oracles a campaign can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OracleKind {
    /// Compare one query's answers across engines, versions or settings.
    Differential,
    /// Crashes, hangs and internal errors on valid queries.
    Crash,
    /// Syntax, semantic and unsupported errors on queries the profile promises.
    Error,
    /// Ternary logic partitioning: Q against Q∧p, Q∧¬p, Q∧(p IS NULL).
    Partition,
    /// Equivalent and subset rewrites of a generated query.
    Rewrite,
    /// GAMERA's graph-aware metamorphic relations.
    Metamorphic,
    /// DOT: one engine's answers under its optimization settings.
    Settings,
    /// One question asked of each engine in Cypher and in Gremlin.
    CrossLanguage,
}

impl OracleKind {
    /// Every oracle, in the order verdicts are asked for: a crashed engine
    /// has no answer to compare, so the crash oracle speaks first.
    pub const ALL: [OracleKind; 8] = [
        OracleKind::Crash,
        OracleKind::Error,
        OracleKind::Differential,
        OracleKind::Partition,
        OracleKind::Rewrite,
        OracleKind::Metamorphic,
        OracleKind::Settings,
        OracleKind::CrossLanguage,
    ];

    /// The oracle's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OracleKind::Differential => "differential",
            OracleKind::Crash => "crash",
            OracleKind::Error => "error",
            OracleKind::Partition => "partition",
            OracleKind::Rewrite => "rewrite",
            OracleKind::Metamorphic => "metamorphic",
            OracleKind::Settings => "settings",
            OracleKind::CrossLanguage => "cross-language",
        }
    }

    /// Whether the oracle judges answers of a pair of engines (or of
    /// configurations of one) against each other: its findings are
    /// localized, and reduction keeps relationship-uniqueness guards.
    pub fn compares_a_pair(self) -> bool {
        matches!(self, OracleKind::Differential | OracleKind::Settings)
    }

    /// Whether the oracle works on Gremlin too (it judges a query's
    /// outcomes without rewriting it).
    pub fn speaks_gremlin(self) -> bool {
        matches!(self, OracleKind::Crash | OracleKind::Error | OracleKind::Differential)
    }

    /// Whether the oracle reads row values (and so needs adapters to decode
    /// them and queries to be deterministic).
    pub fn reads_values(self) -> bool {
        !matches!(self, OracleKind::Crash | OracleKind::Error)
    }
}

impl std::str::FromStr for OracleKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OracleKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let known: Vec<&str> = OracleKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown oracle '{s}' (known: {})", known.join(", "))
        })
    }
}

impl std::fmt::Display for OracleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One query of a test case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseQuery {
    /// What the query is in its group, e.g. `source`, `p`, `NOT p`.
    pub role: String,
    /// The text sent to the engines.
    pub text: String,
    /// The AST.
    pub ast: Query,
    /// Result columns an ORDER BY fixes; `None` for a bag.
    pub order_columns: Option<Vec<usize>>,
    /// A Gremlin query's traversal (then `ast` is empty and `text` is the
    /// traversal in TinkerPop's Groovy; each engine gets its own dialect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traversal: Option<Traversal>,
}

impl CaseQuery {
    /// A generated traversal.
    pub fn gremlin(role: &str, traversal: Traversal, ordered: bool) -> Self {
        Self {
            role: role.to_owned(),
            text: graphlancer_gremlin::render(&traversal, GremlinDialect::tinkerpop()),
            ast: Query { parts: Vec::new(), union_all: false, spelling: Default::default() },
            order_columns: ordered.then(|| vec![0]),
            traversal: Some(traversal),
        }
    }

    /// The language the query is written in.
    pub fn language(&self) -> Language {
        if self.traversal.is_some() { Language::Gremlin } else { Language::Cypher }
    }

    /// The text `engine` is sent: Gremlin rendered in the engine's dialect.
    pub fn text_for(&self, engine: &dyn Engine) -> String {
        match &self.traversal {
            Some(t) => {
                let dialect = GremlinDialect::builtin(engine.dialect()).unwrap_or_else(GremlinDialect::tinkerpop);
                graphlancer_gremlin::render(t, dialect)
            }
            None => self.text.clone(),
        }
    }

    /// How its answers compare: as a bag, or by the columns ORDER BY fixes.
    pub fn row_order(&self) -> graphlancer_model::RowOrder {
        self.order_columns.clone().map_or(graphlancer_model::RowOrder::Bag, graphlancer_model::RowOrder::SortedBy)
    }

    /// The AST of a Cypher query, for an engine that reads it (the reference).
    pub fn cypher_ast(&self) -> Option<&Query> {
        (self.traversal.is_none() && !self.ast.parts.is_empty()).then_some(&self.ast)
    }

    /// What the query is made of, for signatures: Cypher's constructs, or
    /// a traversal's step names.
    pub fn constructs(&self) -> String {
        match &self.traversal {
            Some(t) => t.constructs(),
            None => crate::constructs::constructs(&self.ast),
        }
    }
    /// The most rows or traversers it may make on `graph` ([`crate::work`]).
    pub fn work(&self, graph: &Graph) -> f64 {
        match &self.traversal {
            Some(t) => crate::work::traversal_estimate(t, graph),
            None => crate::work::estimate(&self.ast, graph),
        }
    }

    /// A query rendered from its AST.
    pub fn new(role: &str, ast: Query, order_columns: Option<Vec<usize>>) -> Self {
        Self { role: role.to_owned(), text: graphlancer_cypher::render(&ast), ast, order_columns, traversal: None }
    }

    /// The generated query itself.
    pub fn source(g: &Generated) -> Self {
        Self {
            role: "source".into(),
            text: g.text.clone(),
            ast: g.query.clone(),
            order_columns: g.order_columns.clone(),
            traversal: None,
        }
    }
}

/// The queries an oracle runs and judges together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    /// The relation, by name (`partition`, `rewrite:reverse-direction`, ...);
    /// skips and findings are counted under it.
    pub relation: String,
    /// The queries, each run on every engine.
    pub queries: Vec<CaseQuery>,
    /// For relations between counts: the difference the relation predicts
    /// between the second query's count and the first's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i64>,
}

impl TestCase {
    /// A case of one query.
    pub fn single(relation: &str, query: CaseQuery) -> Self {
        Self { relation: relation.to_owned(), queries: vec![query], delta: None }
    }

    /// A case of several queries.
    pub fn group(relation: &str, queries: Vec<CaseQuery>) -> Self {
        Self { relation: relation.to_owned(), queries, delta: None }
    }
}

/// Something wrong, as an oracle states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Dedup key.
    pub signature: Signature,
    /// One line for people.
    pub summary: String,
    /// The relation that was broken, in words a maintainer understands.
    pub relation: Option<String>,
    /// For an oracle that judges queries one by one: the query of the case
    /// that showed it (the finding is then that query alone).
    pub query: Option<usize>,
}

/// What an oracle concluded about one test case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing wrong.
    Pass,
    /// The case cannot be judged (a query of the group failed for a reason
    /// that says nothing about the relation); counted by reason.
    Skip(&'static str),
    /// Something is wrong.
    Finding(Finding),
    /// One engine refused (a parse or binder error) what another answered:
    /// a construct that release lacks, which no bug report should carry.
    /// Listed once per engine and construct in the summary.
    FeatureDifference(FeatureDifference),
}

/// A construct one engine of a campaign refuses and another accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureDifference {
    /// The refusing engine.
    pub engine: String,
    /// What it refuses: its message with the query's text and numbers taken
    /// out, which names the grammar rule or binder check.
    pub construct: String,
}

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
pub trait Oracle {
    /// Which oracle this is.
    fn kind(&self) -> OracleKind;

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
    fn derived(&self, _: &Traversal) -> Result<Vec<crate::reduce::Candidate>, &'static str> {
        Ok(Vec::new())
    }

    /// Judges `outcomes[q][e]`: engine `e`'s outcome on query `q` of `case`.
    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict;
}

/// The registry: the oracle of each kind.
pub fn oracle(kind: OracleKind) -> Box<dyn Oracle> {
    match kind {
        OracleKind::Crash => Box::new(crate::crash::Crash),
        OracleKind::Error => Box::new(crate::error::UnexpectedError),
        OracleKind::Differential => Box::new(crate::differential::Differential),
        OracleKind::Partition => Box::new(crate::partition::Partition),
        OracleKind::Rewrite => Box::new(crate::rewrite::Rewrite),
        OracleKind::Metamorphic => Box::new(crate::metamorphic::Metamorphic),
        OracleKind::Settings => Box::new(crate::settings::SettingsOracle),
        OracleKind::CrossLanguage => Box::new(crate::cross_language::CrossLanguage),
    }
}
