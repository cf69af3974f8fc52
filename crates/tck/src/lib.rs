//! The openCypher TCK as a conformance measure: its scenarios (a graph, a
//! query, the expected answer, written by the openCypher project) run on
//! graphlancer's reference and on each real engine, with a verdict per
//! scenario and a pass rate per feature file.
//!
//! A scenario's starting graph is built by the reference from the
//! scenario's setup queries; an engine then loads that graph as it loads a
//! generated one (with graphlancer's identity property, which the
//! comparison leaves out). What the reference cannot build or the AST
//! cannot express is `outside`, never guessed.

pub mod feature;
pub mod value;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use graphlancer_cypher::parse::{ParseError, parse};
use graphlancer_engines::{Engine, ExecOptions, Outcome};
use graphlancer_reference::{ErrorClass, FailureKind, Limits, Store};

/// The TCK's phase of an error raised before a query runs.
const COMPILE_TIME: &str = "compile time";

pub use feature::{Expect, Scenario, Suite, read_dir};

/// How one scenario went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The answer (rows, error, side effects) is the expected one.
    Pass,
    /// It is not; why.
    Fail(String),
    /// The scenario is outside what is tested: it needs what the runner does
    /// not provide, the AST cannot express it, or the reference leaves it
    /// open. Why.
    Outside(String),
}

impl Verdict {
    /// `pass`, `fail` or `outside`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail(_) => "fail",
            Verdict::Outside(_) => "outside",
        }
    }
}

/// How long a scenario's query may run, and how many rows it may give.
fn limits() -> Limits {
    Limits { max_rows: 100_000, deadline: Some(Instant::now() + Duration::from_secs(10)) }
}

fn needs(s: &Scenario) -> Option<Verdict> {
    if let Some(graph) = &s.named_graph {
        return Some(Verdict::Outside(format!("starts from the named graph {graph}")));
    }
    s.needs.first().map(|n| Verdict::Outside(format!("needs {n}")))
}

/// The scenario's starting graph in the reference's store.
fn setup(s: &Scenario) -> Result<Store, Verdict> {
    let mut store = Store::default();
    for text in &s.setup {
        let q = parse(text).map_err(|e| Verdict::Outside(format!("setup: {e}")))?;
        match graphlancer_reference::run_on(&mut store, &q, limits()) {
            Ok(_) => {}
            Err(f) if f.kind == FailureKind::Unsupported => {
                return Err(Verdict::Outside(format!("setup: the reference leaves open: {f}")));
            }
            Err(f) => return Err(Verdict::Fail(format!("setup failed on the reference: {f}"))),
        }
    }
    Ok(store)
}

fn compare_rows(s: &Scenario, columns: &[String], rows: &[Vec<graphlancer_model::Value>]) -> Verdict {
    match &s.expect {
        Expect::Empty if rows.is_empty() => Verdict::Pass,
        Expect::Empty => Verdict::Fail(format!("{} rows, expected none", rows.len())),
        Expect::Rows { columns: ec, rows: er, ordered, unordered_lists } => {
            match value::matches(ec, er, *ordered, *unordered_lists, columns, rows) {
                Ok(()) => Verdict::Pass,
                Err(why) => Verdict::Fail(why),
            }
        }
        Expect::Error { kind, phase, detail } => {
            Verdict::Fail(format!("{} rows where a {kind} at {phase} ({detail}) is expected", rows.len()))
        }
    }
}

/// An error where the scenario may expect one.
fn on_error(s: &Scenario, what: &str) -> Verdict {
    match &s.expect {
        Expect::Error { .. } => Verdict::Pass,
        _ => Verdict::Fail(format!("error: {what}")),
    }
}

/// An error of `class` the reference raised at `phase`: right where the
/// scenario expects that class then (or at any time).
fn on_raised(s: &Scenario, class: ErrorClass, phase: &str, what: &str) -> Verdict {
    let class = class.tck_name();
    match &s.expect {
        Expect::Error { kind, phase: expected, .. }
            if kind == class && (expected == phase || expected == "any time") =>
        {
            Verdict::Pass
        }
        Expect::Error { kind, phase: expected, detail } => {
            Verdict::Fail(format!("a {class} at {phase} ({what}) where a {kind} at {expected} ({detail}) is expected"))
        }
        _ => Verdict::Fail(format!("error: {what}")),
    }
}

/// Runs a scenario on the reference, side effects included.
pub fn run_reference(s: &Scenario) -> Verdict {
    if let Some(v) = needs(s) {
        return v;
    }
    let mut store = match setup(s) {
        Ok(store) => store,
        Err(v) => return v,
    };
    let query = match parse(&s.query) {
        Ok(q) => q,
        Err(ParseError::Syntax(why)) => return on_raised(s, ErrorClass::Syntax, COMPILE_TIME, &why),
        Err(e @ ParseError::Outside(_)) => return Verdict::Outside(e.to_string()),
    };
    let before = store.state();
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        graphlancer_reference::run_on(&mut store, &query, limits())
    }));
    let answer = match answer {
        Err(_) => return Verdict::Fail("the reference panicked".into()),
        Ok(Err(f)) if f.kind == FailureKind::Unsupported => {
            return Verdict::Outside(format!("the reference leaves open: {f}"));
        }
        Ok(Err(f)) => {
            let phase = if f.kind == FailureKind::Semantic { COMPILE_TIME } else { "runtime" };
            return on_raised(s, f.class.unwrap_or(ErrorClass::Type), phase, &f.message);
        }
        Ok(Ok(a)) => a,
    };
    if let Expect::Error { phase, .. } = &s.expect
        && phase == COMPILE_TIME
    {
        // The reference evaluates valid queries (the generator's are valid
        // by construction); it does no semantic analysis to reject others.
        return Verdict::Outside("an invalid query the reference does not reject (no semantic analysis)".into());
    }
    let verdict = compare_rows(s, &answer.columns, &answer.rows);
    if verdict != Verdict::Pass {
        return verdict;
    }
    match &s.side_effects {
        Some(expected) => {
            let expected: BTreeMap<String, usize> =
                expected.iter().filter(|(_, n)| **n > 0).map(|(k, n)| (k.clone(), *n)).collect();
            let actual = before.effects(&store.state());
            if actual == expected {
                Verdict::Pass
            } else {
                Verdict::Fail(format!("side effects {actual:?}, expected {expected:?}"))
            }
        }
        None => Verdict::Pass,
    }
}

/// Runs a scenario on a real engine: it loads the starting graph the
/// reference built, then answers the query's text. Side effects are not
/// checked (an engine restores its graph after a query that writes).
pub fn run_engine(engine: &mut dyn Engine, s: &Scenario, timeout: Duration) -> Verdict {
    if let Some(v) = needs(s) {
        return v;
    }
    let graph = match setup(s) {
        Ok(store) => match store.to_graph() {
            Ok(g) => g,
            Err(why) => return Verdict::Outside(format!("setup graph the engines' loader cannot take: {why}")),
        },
        Err(Verdict::Fail(why)) => return Verdict::Outside(why),
        Err(v) => return v,
    };
    if let Err(e) = engine.load(&graph) {
        return Verdict::Outside(format!("the engine did not load the setup graph: {e}"));
    }
    let opts = ExecOptions { timeout, ..ExecOptions::default() };
    match engine.execute(&s.query, &opts) {
        Err(e) => Verdict::Fail(format!("harness: {e}")),
        Ok(Outcome::Rows(rs)) => compare_rows(s, &rs.columns, &rs.rows),
        Ok(Outcome::Error { class, message }) => on_error(s, &format!("{}: {message}", class.name())),
        Ok(Outcome::Open { reason }) => Verdict::Outside(reason),
        Ok(other) => Verdict::Fail(format!("{other:?}")),
    }
}

/// Pass, fail and outside counts of one feature file (or of all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Scenarios passed.
    pub pass: usize,
    /// Scenarios failed.
    pub fail: usize,
    /// Scenarios outside what was tested.
    pub outside: usize,
}

impl Tally {
    /// Counts one verdict.
    pub fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail(_) => self.fail += 1,
            Verdict::Outside(_) => self.outside += 1,
        }
    }

    /// Passed over tested (passed and failed), in percent; none when
    /// nothing was tested.
    #[allow(clippy::cast_precision_loss)]
    pub fn rate(&self) -> Option<f64> {
        let tested = self.pass + self.fail;
        (tested > 0).then(|| 100.0 * self.pass as f64 / tested as f64)
    }
}
