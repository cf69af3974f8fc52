//! What oracles and triage pass around: the queries of a test case, and
//! what an oracle concluded about them. The lowest layer of the crate: it
//! names no oracle, reducer or campaign.

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::Query;
use graphlancer_engines::{Engine, Outcome};
use graphlancer_gremlin::{GremlinDialect, Traversal};
use graphlancer_model::{Graph, Language};
use serde::{Deserialize, Serialize};

use crate::signature::Signature;

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

/// A query with what the oracles need to judge it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The AST.
    pub query: Query,
    /// Result columns its ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
    /// A Gremlin query's traversal (then `query` is empty).
    pub traversal: Option<graphlancer_gremlin::Traversal>,
}

/// Whether some engine timed out on some query.
pub(crate) fn timed_out(outcomes: &[Vec<Outcome>]) -> bool {
    outcomes.iter().flatten().any(|o| matches!(o, Outcome::Timeout { .. }))
}
