//! The reference engine: the answer a generated Cypher query must have,
//! computed from the generated graph by openCypher's rules (Neo4j 5 where
//! openCypher leaves a choice), so a campaign can say which engine is wrong
//! and see a bug every engine shares.
//!
//! It evaluates the AST the generator writes; it never guesses. Whatever it
//! does not implement, and whatever engines answer differently by design
//! (an `id()`, a float's text, the order of `keys()`), is a [`Failure`] of
//! kind [`FailureKind::Unsupported`].

mod eval;
mod functions;
mod pattern;
mod store;
pub mod value;

use graphlancer_cypher::ast::Query;
use graphlancer_model::{Graph, Value};

pub use store::{State, Store};

/// The reference's answer: columns and rows, in the order a query with
/// ORDER BY fixes (otherwise a bag).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<Value>>,
}

/// Why there is no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The query fails by openCypher's rules while it runs (division by
    /// zero, integer overflow, a type error on data).
    Runtime,
    /// The query is invalid (an unknown variable).
    Semantic,
    /// The reference does not compute this, or engines may rightly differ.
    Unsupported,
}

/// A query without an answer: an error it must raise, or one the
/// reference does not compute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// Why, in words.
    pub message: String,
}

impl Failure {
    pub(crate) fn runtime(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Runtime, message: message.into() }
    }

    pub(crate) fn semantic(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Semantic, message: message.into() }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Unsupported, message: message.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// How far the reference goes before it gives up (`unsupported`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Rows one clause may hold.
    pub max_rows: usize,
    /// When to stop.
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_rows: 100_000, deadline: None }
    }
}

/// Runs `query` on a copy of `graph` and gives its answer: what it returns
/// (a query that only writes returns no rows) or the error it must raise.
pub fn run(graph: &Graph, query: &Query) -> Result<Answer, Failure> {
    let mut store = Store::of(graph);
    run_on(&mut store, query, Limits::default())
}

/// Runs `query` on `store`, which keeps what the query wrote, within `limits`.
pub fn run_on(store: &mut Store, query: &Query, limits: Limits) -> Result<Answer, Failure> {
    if let Some(why) = &store.unreadable {
        return Err(why.clone());
    }
    // What Neo4j 5 refuses before running, the reference refuses too; a
    // refusal while running comes from the evaluation, where rows reach it.
    if let Some(r) = graphlancer_cypher::validity::neo4j_refuses(query).filter(|r| r.at_compile_time()) {
        return Err(Failure::semantic(format!("Neo4j 5 refuses {}", r.describe())));
    }
    let (columns, rows) = eval::Ev::new(store, limits).query(query)?;
    store.check_no_dangling()?;
    let rows = rows.iter().map(|r| r.iter().map(|v| store.output(v)).collect()).collect::<Result<_, _>>()?;
    Ok(Answer { columns, rows })
}
