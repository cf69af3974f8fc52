//! The reference engine: the answer a generated Cypher query must have,
//! computed from the generated graph by openCypher's rules (Neo4j 5 where
//! openCypher leaves a choice), so a campaign can say which engine is wrong
//! and see a bug every engine shares.
//!
//! It evaluates the AST the generator writes; it never guesses. Whatever it
//! does not implement, and whatever engines answer differently by design
//! (an `id()`, a float's text, the order of `keys()`), is a [`Failure`] of
//! kind [`FailureKind::Unsupported`].

mod answer;
pub mod engine;
mod eval;
mod expr;
mod functions;
mod pattern;
mod state;
mod store;
pub mod value;

use graphlancer_cypher::ast::Query;
use graphlancer_model::Graph;

pub use answer::{Answer, ErrorClass, Failure, FailureKind, Limits};
pub use engine::open;
pub use store::{State, Store};

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
        return Err(Failure::refused(r));
    }
    let (columns, rows) = state::Ev::new(store, limits).query(query)?;
    store.check_no_dangling()?;
    let rows = rows.iter().map(|r| r.iter().map(|v| store.output(v)).collect()).collect::<Result<_, _>>()?;
    Ok(Answer { columns, rows })
}
