//! What oracles and triage pass around: the queries of a test case, and
//! what an oracle concluded about them. The lowest layer of the crate: it
//! names no oracle, reducer or campaign.

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::{Clause, Query};
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_gremlin::{GremlinDialect, Traversal};
use graphlancer_model::{Graph, Language, ResultSet, Value};
use serde::{Deserialize, Serialize};

use crate::signature::Signature;

/// What a query is, beyond the text sent: what the oracles, the reducer
/// and the reference read.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A Cypher query's AST, which the text renders.
    Cypher(Query),
    /// A Gremlin traversal; the text is its TinkerPop Groovy, and each
    /// engine gets its own dialect.
    Gremlin(Traversal),
    /// Cypher known by its text alone (a finding of a format before ASTs
    /// were kept): it runs, but the reference cannot read it and the
    /// reducer cannot edit it.
    Text,
}

/// What a query is in its group. Only the generated query itself decides
/// anything (its answers are not asked for twice); the other roles are
/// names for people, e.g. `p`, `NOT p`, `cypher`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Role {
    /// The generated query.
    Source,
    /// Any other query of a group, by the name its oracle gives it.
    Named(String),
}

impl From<String> for Role {
    fn from(s: String) -> Self {
        if s == "source" { Self::Source } else { Self::Named(s) }
    }
}

impl From<&str> for Role {
    fn from(s: &str) -> Self {
        Self::from(s.to_owned())
    }
}

impl From<&Role> for Role {
    fn from(r: &Role) -> Self {
        r.clone()
    }
}

impl From<Role> for String {
    fn from(r: Role) -> Self {
        r.to_string()
    }
}

impl Role {
    /// Its name, as reports show it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Source => "source",
            Self::Named(name) => name,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One query of a test case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "Flat", from = "Flat")]
pub struct CaseQuery {
    /// What the query is in its group.
    pub role: Role,
    /// The text sent to the engines.
    pub text: String,
    /// What it is.
    pub body: Body,
    /// Result columns an ORDER BY fixes; `None` for a bag.
    pub order_columns: Option<Vec<usize>>,
}

/// A query as files hold it: an AST, empty for a traversal or a text.
#[derive(Serialize, Deserialize)]
pub(crate) struct Flat {
    role: Role,
    text: String,
    ast: Query,
    order_columns: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    traversal: Option<Traversal>,
}

impl From<Flat> for CaseQuery {
    fn from(f: Flat) -> Self {
        Self { role: f.role, text: f.text, body: Body::from_parts(f.ast, f.traversal), order_columns: f.order_columns }
    }
}

impl From<CaseQuery> for Flat {
    fn from(q: CaseQuery) -> Self {
        let (ast, traversal) = q.body.into_parts();
        Self { role: q.role, text: q.text, ast, order_columns: q.order_columns, traversal }
    }
}

impl Body {
    /// The body a file's AST and traversal stand for.
    pub fn from_parts(ast: Query, traversal: Option<Traversal>) -> Self {
        match traversal {
            Some(t) => Self::Gremlin(t),
            None if ast.parts.is_empty() => Self::Text,
            None => Self::Cypher(ast),
        }
    }

    /// As a file holds it: an AST (empty unless Cypher) and a traversal.
    pub fn into_parts(self) -> (Query, Option<Traversal>) {
        match self {
            Self::Cypher(q) => (q, None),
            Self::Gremlin(t) => (empty_query(), Some(t)),
            Self::Text => (empty_query(), None),
        }
    }

    /// A Cypher query's AST.
    pub fn cypher(&self) -> Option<&Query> {
        match self {
            Self::Cypher(q) => Some(q),
            _ => None,
        }
    }

    /// A Gremlin query's traversal.
    pub fn traversal(&self) -> Option<&Traversal> {
        match self {
            Self::Gremlin(t) => Some(t),
            _ => None,
        }
    }
}

/// The AST files hold for a query that has none.
pub fn empty_query() -> Query {
    Query { parts: Vec::new(), union_all: false, spelling: Default::default() }
}

impl CaseQuery {
    /// A generated traversal.
    pub fn gremlin(role: impl Into<Role>, traversal: Traversal, ordered: bool) -> Self {
        Self {
            role: role.into(),
            text: graphlancer_gremlin::render(&traversal, GremlinDialect::tinkerpop()),
            body: Body::Gremlin(traversal),
            order_columns: ordered.then(|| vec![0]),
        }
    }

    /// A query rendered from its AST.
    pub fn new(role: impl Into<Role>, ast: Query, order_columns: Option<Vec<usize>>) -> Self {
        Self { role: role.into(), text: graphlancer_cypher::render(&ast), body: Body::Cypher(ast), order_columns }
    }

    /// Cypher given as text, with its AST when the text was parsed.
    pub fn text(role: impl Into<Role>, text: &str, ast: Option<Query>, order_columns: Option<Vec<usize>>) -> Self {
        let body = ast.map_or(Body::Text, Body::Cypher);
        Self { role: role.into(), text: text.to_owned(), body, order_columns }
    }

    /// The generated query itself.
    pub fn source(g: &Generated) -> Self {
        Self {
            role: Role::Source,
            text: g.text.clone(),
            body: Body::Cypher(g.query.clone()),
            order_columns: g.order_columns.clone(),
        }
    }

    /// The same kind of query in `role` with a new body: Cypher is
    /// rendered, a traversal keeps its order only where it still ends ordered.
    pub fn with_body(&self, body: Body, order_columns: Option<Vec<usize>>) -> Self {
        match body {
            Body::Cypher(q) => Self::new(&self.role, q, order_columns),
            Body::Gremlin(t) => Self::gremlin(&self.role, t, order_columns.is_some()),
            Body::Text => Self { body: Body::Text, order_columns, ..self.clone() },
        }
    }

    /// The language the query is written in.
    pub fn language(&self) -> Language {
        match self.body {
            Body::Gremlin(_) => Language::Gremlin,
            Body::Cypher(_) | Body::Text => Language::Cypher,
        }
    }

    /// The text `engine` is sent: Gremlin rendered in the engine's dialect.
    pub fn text_for(&self, engine: &dyn Engine) -> String {
        match &self.body {
            Body::Gremlin(t) => {
                let dialect = GremlinDialect::builtin(engine.dialect()).unwrap_or_else(GremlinDialect::tinkerpop);
                graphlancer_gremlin::render(t, dialect)
            }
            Body::Cypher(_) | Body::Text => self.text.clone(),
        }
    }

    /// Its outcome on `engine`, columns in the order its RETURN names them.
    /// ArcadeDB sends some columns in the order of their names
    /// (`OPTIONAL MATCH (n0) RETURN ALL n0, 0 AS a0` as a0, n0); the
    /// oracles read columns by position (ORDER BY keys, a null-check's
    /// pairs), so an engine's own order would read as a wrong answer.
    pub fn run_on(&self, engine: &mut dyn Engine, exec: &ExecOptions) -> Result<Outcome, EngineError> {
        let outcome = engine.execute_generated(&self.text_for(engine), self.cypher_ast(), exec)?;
        Ok(match (outcome, self.returned()) {
            (Outcome::Rows(r), Some(names)) => Outcome::Rows(in_order(r, &names)),
            (other, _) => other,
        })
    }

    /// The column names of a Cypher query's RETURN, where it names them all.
    fn returned(&self) -> Option<Vec<&str>> {
        let Some(Clause::Return(p)) = self.cypher_ast()?.parts.first()?.clauses.last() else { return None };
        (!p.star).then(|| p.items.iter().map(|(_, alias)| alias.as_str()).collect())
    }

    /// How its answers compare: as a bag, or by the columns ORDER BY fixes.
    pub fn row_order(&self) -> graphlancer_model::RowOrder {
        self.order_columns.clone().map_or(graphlancer_model::RowOrder::Bag, graphlancer_model::RowOrder::SortedBy)
    }

    /// The AST of a Cypher query, for an engine that reads it (the reference).
    pub fn cypher_ast(&self) -> Option<&Query> {
        self.body.cypher()
    }

    /// A Gremlin query's traversal.
    pub fn traversal(&self) -> Option<&Traversal> {
        self.body.traversal()
    }

    /// What the query is made of, for signatures: Cypher's constructs, or
    /// a traversal's step names.
    pub fn constructs(&self) -> String {
        match &self.body {
            Body::Gremlin(t) => t.constructs(),
            Body::Cypher(q) => crate::constructs::constructs(q),
            Body::Text => crate::constructs::constructs(&empty_query()),
        }
    }

    /// The most rows or traversers it may make on `graph` ([`crate::work`]).
    pub fn work(&self, graph: &Graph) -> f64 {
        match &self.body {
            Body::Gremlin(t) => crate::work::traversal_estimate(t, graph),
            Body::Cypher(q) => crate::work::estimate(q, graph),
            Body::Text => crate::work::estimate(&empty_query(), graph),
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

/// Whether some engine timed out on some query.
pub(crate) fn timed_out(outcomes: &[Vec<Outcome>]) -> bool {
    outcomes.iter().flatten().any(|o| matches!(o, Outcome::Timeout { .. }))
}

/// `r` with its columns in the order of `names`, where they are the same
/// names in another order; otherwise as it came.
fn in_order(r: ResultSet, names: &[&str]) -> ResultSet {
    if r.columns.iter().eq(names.iter()) || r.columns.len() != names.len() {
        return r;
    }
    let at: Option<Vec<usize>> = names.iter().map(|n| r.columns.iter().position(|c| c == n)).collect();
    let Some(at) = at else { return r };
    let mut seen = at.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != at.len() {
        return r;
    }
    let rows = r.rows.into_iter().map(|row| at.iter().map(|&i| row.get(i).cloned().unwrap_or(Value::Null)).collect());
    ResultSet::new(names.iter().map(|n| (*n).to_owned()).collect(), rows.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same names in another order are put in the RETURN's order;
    /// names that are not the RETURN's are left as the engine sent them.
    #[test]
    fn columns_are_read_in_the_returns_order() {
        let r = |cols: &[&str]| {
            ResultSet::new(cols.iter().map(|c| (*c).to_owned()).collect(), vec![vec![Value::Int(1), Value::Int(2)]])
        };
        let put = in_order(r(&["a0", "n0"]), &["n0", "a0"]);
        assert_eq!(put, ResultSet::new(vec!["n0".into(), "a0".into()], vec![vec![Value::Int(2), Value::Int(1)]]));
        assert_eq!(in_order(r(&["x", "n0"]), &["n0", "a0"]), r(&["x", "n0"]));
        assert_eq!(in_order(r(&["a", "a"]), &["a", "b"]), r(&["a", "a"]));
    }

    /// Files written before the body was an enum read the same, and are
    /// written byte for byte as before: an AST (empty for a traversal or a
    /// text) and a traversal only where there is one.
    #[test]
    fn each_body_keeps_the_file_layout_it_had() {
        let cypher = CaseQuery::new("source", graphlancer_cypher::parse::parse("RETURN 1 AS a").expect("parses"), None);
        let json = serde_json::to_string(&cypher).expect("serializes");
        assert!(json.starts_with(r#"{"role":"source","text":"RETURN 1 AS a","ast":{"#), "{json}");
        assert!(json.ends_with(r#""order_columns":null}"#) && !json.contains("traversal"), "{json}");
        let t = Traversal { source: graphlancer_gremlin::Source::V, steps: vec![graphlancer_gremlin::Step::Count] };
        let gremlin = CaseQuery::gremlin("source", t.clone(), false);
        let json = serde_json::to_string(&gremlin).expect("serializes");
        assert!(json.contains(r#""ast":{"parts":[]"#) && json.contains(r#""traversal":"#), "{json}");
        let text = CaseQuery::text("query", "RETURN 1", None, None);
        assert_eq!(Role::from("source"), Role::Source);
        assert_eq!(serde_json::to_string(&Role::Named("NOT p".into())).expect("serializes"), r#""NOT p""#);
        for q in [cypher, gremlin, text] {
            let back: CaseQuery = serde_json::from_str(&serde_json::to_string(&q).expect("serializes")).expect("reads");
            assert_eq!(back, q);
        }
        assert_eq!(CaseQuery::gremlin("g", t, true).language(), Language::Gremlin);
    }
}
