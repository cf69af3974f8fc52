//! Engine adapters: the one place graphlancer talks to databases. Each
//! adapter loads a generated [`Graph`] and runs query text, answering with an
//! [`Outcome`] that is data (rows, a classified error, a crash, a timeout);
//! failures of the harness itself (a server that cannot be started or
//! reached) are [`EngineError`]s instead.

use std::time::Duration;

use graphlancer_model::{Graph, Language};

pub mod arcadedb;
pub mod bolt;
pub mod falkordb;
pub mod families;
pub mod family;
pub mod grafeo;
pub mod graphersal;
pub mod gremlin;
pub mod gremlin_server;
pub mod host;
pub mod hosted;
pub mod install;
pub mod kuzu;
pub mod outcome;
pub mod plan;
mod process;
pub mod releases;
pub mod settings;
pub mod spec;
pub mod switch;

/// The reference engine's name, which oracles take as the engine whose
/// answer is right. The reference itself is `graphlancer-reference`, above
/// this crate: it is opened there (`graphlancer_reference::open`).
pub const REFERENCE: &str = "reference";

pub use host::OpenOptions;
pub use outcome::{ErrorClass, Outcome};
pub use spec::{EngineSpec, open};

/// Per-query options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecOptions {
    /// How long a query may run before it counts as a hang.
    pub timeout: Duration,
    /// Answers with more rows become [`Outcome::TooLarge`] instead of
    /// filling memory (a cartesian product can have millions).
    pub max_rows: usize,
    /// Whether row values are wanted. Without them an adapter may return
    /// rows with no cells (the right number of them), skipping the decoding
    /// that only a comparison of values needs.
    pub values: bool,
    /// The language the query is written in; an engine is only sent the
    /// languages it lists in [`Engine::languages`].
    pub language: Language,
}

impl Default for ExecOptions {
    fn default() -> Self {
        Self { timeout: DEFAULT_TIMEOUT, max_rows: DEFAULT_MAX_ROWS, values: true, language: Language::Cypher }
    }
}

/// The row cap when none is given.
pub const DEFAULT_MAX_ROWS: usize = 10_000;

/// The query timeout when none is given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A database graphlancer can load graphs into and run queries on.
pub trait Engine: Send {
    /// The engine spec this adapter was opened from, e.g. `falkordb`.
    fn name(&self) -> &str;
    /// The engine's own version string.
    fn version(&self) -> &str;
    /// The query dialect the engine speaks, naming its dialect profile
    /// (and, for Gremlin, its Gremlin dialect).
    fn dialect(&self) -> &'static str;
    /// The languages it answers.
    fn languages(&self) -> &'static [Language] {
        &[Language::Cypher]
    }
    /// The creation script that loads a graph into this engine, as a user
    /// pastes it into the engine's shell: the one place this fact lives
    /// (reports record it with the engine).
    fn script(&self) -> graphlancer_model::ScriptDialect {
        graphlancer_model::ScriptDialect::Cypher
    }
    /// Replaces whatever the engine holds with `graph`.
    fn load(&mut self, graph: &Graph) -> Result<(), EngineError>;
    /// Runs one query. A query that writes leaves the loaded graph as it was:
    /// the adapter restores it before the next query.
    fn execute(&mut self, query: &str, opts: &ExecOptions) -> Result<Outcome, EngineError>;
    /// Runs one generated query: its text, and its AST for an engine that
    /// reads the AST rather than the text (the reference).
    fn execute_generated(
        &mut self,
        query: &str,
        _ast: Option<&graphlancer_cypher::ast::Query>,
        opts: &ExecOptions,
    ) -> Result<Outcome, EngineError> {
        self.execute(query, opts)
    }
    /// The operators of the plan the engine would run `query` with, in plan
    /// order, where it can say (`EXPLAIN`); `None` where it cannot, or where
    /// it refused to plan the query.
    fn plan(&mut self, _query: &str, _opts: &ExecOptions) -> Result<Option<Vec<String>>, EngineError> {
        Ok(None)
    }
    /// The time spent around queries since the last call (restoring the
    /// graph after writes, restarting after crashes), which the time
    /// [`Engine::execute`] took includes; the count starts again at zero.
    fn take_overhead(&mut self) -> Overhead {
        Overhead::default()
    }

    /// Whether nothing but this engine uses its process or server (an
    /// engine host, a server graphlancer started, in-process): then it may
    /// answer while other engines do. A server at an address may be another
    /// engine's too (two settings of one server share its graph).
    fn owns_its_server(&self) -> bool {
        false
    }
}

/// Work an adapter does around queries rather than on them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overhead {
    /// Graph restores after queries that may write.
    pub restores: u64,
    /// Their time.
    pub restore_time: Duration,
    /// Servers or hosts started again after a crash or a hang, graph loaded.
    pub restarts: u64,
    /// Their time.
    pub restart_time: Duration,
}

impl Overhead {
    /// Counts one restore that took `d`.
    pub fn restored(&mut self, d: Duration) {
        self.restores += 1;
        self.restore_time += d;
    }

    /// Counts one restart that took `d`.
    pub fn restarted(&mut self, d: Duration) {
        self.restarts += 1;
        self.restart_time += d;
    }

    /// Adds `other` to this.
    pub fn add(&mut self, other: Overhead) {
        self.restores += other.restores;
        self.restore_time += other.restore_time;
        self.restarts += other.restarts;
        self.restart_time += other.restart_time;
    }
}

/// A failure of the harness around an engine, not an answer of the engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine's files are not where graphlancer installs them.
    #[error("{engine} is not installed ({detail}); run `scripts/setup-engines.sh {install}`")]
    NotInstalled {
        /// The engine.
        engine: &'static str,
        /// What the setup script calls it, e.g. `kuzu@0.11.3`.
        install: String,
        /// What is missing.
        detail: String,
    },
    /// A server did not answer.
    #[error("cannot reach {engine} at {address}: {detail}")]
    Unreachable {
        /// The engine.
        engine: &'static str,
        /// The address tried.
        address: String,
        /// Why it failed.
        detail: String,
    },
    /// A managed server or engine host did not start.
    #[error("cannot start {engine}: {detail}")]
    Start {
        /// The engine.
        engine: &'static str,
        /// Why it failed.
        detail: String,
    },
    /// The generated graph could not be loaded.
    #[error("cannot load the graph into {engine}: {detail}")]
    Load {
        /// The engine.
        engine: &'static str,
        /// The engine's complaint.
        detail: String,
    },
    /// The engine spoke in a way the adapter does not understand.
    #[error("unexpected answer from {engine}: {detail}")]
    Protocol {
        /// The engine.
        engine: &'static str,
        /// What was wrong.
        detail: String,
    },
}

/// `f` on every engine at once where each owns its process or server
/// ([`Engine::owns_its_server`]; else one after the other), the results in
/// the engines' order: a pair answers in the time of its slower engine, not
/// of both together.
pub fn on_each<R: Send>(engines: &mut [Box<dyn Engine>], f: impl Fn(&mut dyn Engine) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    // An engine host or server restarted inside a call is killed when the
    // thread that started it ends (`process::owned`), so the calls run on
    // threads that live as long as the calling thread (a campaign worker),
    // never on one made for the call. Each calling thread has a pool of its
    // own: in a shared pool, a thread done with its engine could take up
    // another worker's call while it waits and hold its own caller back.
    thread_local! {
        static POOL: Option<rayon::ThreadPool> =
            rayon::ThreadPoolBuilder::new().num_threads(8).thread_name(|i| format!("engine-{i}")).build().ok();
    }
    if engines.len() < 2 || !engines.iter().all(|e| e.owns_its_server()) {
        return engines.iter_mut().map(|e| f(e.as_mut())).collect();
    }
    POOL.with(|pool| match pool {
        Some(pool) => pool.install(|| engines.par_iter_mut().map(|e| f(e.as_mut())).collect()),
        // No threads could be made: one after the other.
        None => engines.iter_mut().map(|e| f(e.as_mut())).collect(),
    })
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Whether a query may change the graph. Errs towards yes: a false positive
/// costs one reload, a false negative would corrupt every later answer.
pub fn may_write(query: &str) -> bool {
    // COPY and ALTER: Kuzu's bulk load and schema change.
    const WRITES: [&str; 8] = ["CREATE", "MERGE", "SET", "DELETE", "REMOVE", "DROP", "COPY", "ALTER"];
    query
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|word| WRITES.iter().any(|w| word.eq_ignore_ascii_case(w)))
}

/// [`may_write`] for a query in `language`: Gremlin writes with `addV`,
/// `addE`, `mergeV`, `mergeE`, `property` and `drop`.
pub fn may_write_in(query: &str, language: Language) -> bool {
    match language {
        Language::Cypher => may_write(query),
        // As steps: `.drop(`, `addV(`; a string 'drop' is no write.
        Language::Gremlin => ["addV(", "addE(", "mergeV(", "mergeE(", "property(", "drop("]
            .iter()
            .any(|step| query.contains(&format!(".{step}")) || query.contains(&format!("g.{step}"))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn write_detection_errs_towards_yes() {
        assert!(super::may_write("MATCH (n) DETACH DELETE n"));
        assert!(super::may_write("match (n) set n.x = 1"));
        assert!(super::may_write("RETURN 'create' AS s"));
        assert!(!super::may_write("MATCH (n:Created) RETURN n.settings"));
        let gremlin = graphlancer_model::Language::Gremlin;
        assert!(super::may_write_in("g.V().hasLabel('L0').drop()", gremlin));
        assert!(!super::may_write_in("g.V().has('k0', 'drop').values('k1')", gremlin));
    }
}
