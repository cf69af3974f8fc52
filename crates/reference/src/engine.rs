//! The reference engine as an engine (here, above `graphlancer-engines`, so
//! that the adapters do not depend on the reference): it answers the generated queries of
//! a campaign from their AST, in process, and a query given as text once
//! parsed into that AST. Text the AST cannot express has no answer
//! ([`Outcome::Open`]), nor has a query the reference leaves open.

use graphlancer_cypher::ast::Query;
use graphlancer_engines::{Engine, EngineError, EngineSpec, ErrorClass, ExecOptions, OpenOptions, Outcome};
use graphlancer_model::{Graph, ResultSet};

use crate::FailureKind;

/// The reference's name, which oracles take as the engine whose answer is right.
pub const NAME: &str = graphlancer_engines::REFERENCE;

/// graphlancer's reference engine over the loaded graph.
#[derive(Debug, Default)]
pub struct Reference {
    store: crate::Store,
}

impl Engine for Reference {
    fn owns_its_server(&self) -> bool {
        true
    }

    fn name(&self) -> &str {
        NAME
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn dialect(&self) -> &'static str {
        "reference"
    }

    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        self.store = crate::Store::of(graph);
        Ok(())
    }

    /// A query given as text (`exec`) is parsed into the AST first; text the
    /// AST cannot express has no answer.
    fn execute(&mut self, query: &str, opts: &ExecOptions) -> Result<Outcome, EngineError> {
        match graphlancer_cypher::parse::parse(query) {
            Ok(ast) => self.execute_generated(query, Some(&ast), opts),
            Err(graphlancer_cypher::parse::ParseError::Syntax(message)) => {
                Ok(Outcome::Error { class: ErrorClass::Syntax, message })
            }
            Err(outside) => Ok(Outcome::Open { reason: outside.to_string() }),
        }
    }

    fn execute_generated(
        &mut self,
        query: &str,
        ast: Option<&Query>,
        opts: &ExecOptions,
    ) -> Result<Outcome, EngineError> {
        let Some(ast) = ast else { return self.execute(query, opts) };
        if ast.parts.is_empty() {
            return Ok(Outcome::Open { reason: "an empty query".into() });
        }
        // Past the timeout, or with ten times the row cap in one clause, the
        // reference gives up: it runs in graphlancer's own process.
        let limits = crate::Limits {
            max_rows: opts.max_rows.saturating_mul(10),
            deadline: Some(std::time::Instant::now() + opts.timeout),
        };
        // A query that writes runs on a copy, so what it writes is gone
        // after it; one that only reads reads the loaded graph.
        let mut copy;
        let store = if ast.writes() {
            copy = self.store.clone();
            &mut copy
        } else {
            &mut self.store
        };
        // A panic is a fault of ours, reported as the reference's internal error.
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::run_on(store, ast, limits)));
        Ok(match answer {
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()));
                Outcome::Error {
                    class: ErrorClass::Internal,
                    message: format!("the reference panicked: {}", what.unwrap_or_default()),
                }
            }
            Ok(Ok(a)) if a.rows.len() > opts.max_rows => Outcome::TooLarge { max_rows: opts.max_rows },
            Ok(Ok(a)) => Outcome::Rows(ResultSet::new(a.columns, a.rows)),
            Ok(Err(f)) if f.kind == FailureKind::Unsupported => Outcome::Open { reason: f.message },
            Ok(Err(f)) => Outcome::Error {
                class: if f.kind == FailureKind::Runtime { ErrorClass::Runtime } else { ErrorClass::Semantic },
                message: f.message,
            },
        })
    }
}

/// Opens the engine `spec` names: the reference here, any other through
/// `graphlancer_engines::open`.
///
/// # Errors
/// As `graphlancer_engines::open`.
pub fn open(spec: &EngineSpec, options: &OpenOptions) -> Result<Box<dyn Engine>, EngineError> {
    match spec {
        EngineSpec::Reference => Ok(Box::new(Reference::default())),
        other => graphlancer_engines::open(other, options),
    }
}

#[cfg(test)]
mod tests {
    use super::Reference;
    use graphlancer_engines::Engine;

    /// Each engine's call starts before the other's ends: each waits, up to
    /// ten seconds, for both to have started, which one after the other
    /// never see.
    #[test]
    fn every_engine_is_asked_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(Reference::default()), Box::new(Reference::default())];
        let started = AtomicUsize::new(0);
        let answers = graphlancer_engines::on_each(&mut engines, |e| {
            started.fetch_add(1, Ordering::SeqCst);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while started.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
                std::thread::yield_now();
            }
            (started.load(Ordering::SeqCst), e.name().to_owned())
        });
        assert!(answers.iter().all(|(seen, name)| *seen == 2 && name == "reference"), "{answers:?}");
        assert_eq!(answers.len(), 2);
    }
}
