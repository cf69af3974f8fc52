//! Running a case again and judging it: what confirming a finding in a
//! campaign, reducing it, replaying it and bisecting it over releases each
//! do, written once. They differ only in how a query is run (a campaign
//! counts the time it takes), whether the graph is loaded afresh before
//! each try, how many tries a flaky finding gets, and which findings count.

use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::Graph;

use crate::case::{CaseQuery, Finding, TestCase, Verdict};
use crate::oracle::{JudgeCx, Oracle};

/// Tries a replay or a bisection gives a finding that showed in only some
/// of its replays, each on a freshly loaded graph where the caller reloads.
pub const FLAKY_TRIES: u32 = 6;

/// How the queries of a case are run.
pub trait Runs {
    /// Why a query could not be run at all (an engine lost, not an answer).
    type Error;

    /// Every engine's outcome on `q`.
    fn run(&mut self, q: &CaseQuery) -> Result<Vec<Outcome>, Self::Error>;

    /// Readies the engines for another try (a fresh load of the graph).
    fn afresh(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The engines as they are, under `exec`; the graph loaded again before
/// each try when one is given.
pub struct Plain<'a> {
    /// The engines, in the order of the judge's names.
    pub engines: &'a mut [Box<dyn Engine>],
    /// How each query runs.
    pub exec: &'a ExecOptions,
    /// Loaded before every try when given.
    pub reload: Option<&'a Graph>,
}

impl Runs for Plain<'_> {
    type Error = EngineError;

    fn run(&mut self, q: &CaseQuery) -> Result<Vec<Outcome>, EngineError> {
        let exec = ExecOptions { language: q.language(), ..*self.exec };
        graphlancer_engines::on_each(self.engines, |e| q.run_on(e, &exec)).into_iter().collect()
    }

    fn afresh(&mut self) -> Result<(), EngineError> {
        if let Some(graph) = self.reload {
            for e in self.engines.iter_mut() {
                e.load(graph)?;
            }
        }
        Ok(())
    }
}

/// What the last try saw.
pub struct Rechecked {
    /// Each engine's outcome on each query.
    pub outcomes: Vec<Vec<Outcome>>,
    /// The oracle's verdict on them.
    pub verdict: Verdict,
    /// The try (from 1) whose finding was wanted; `None` when none was.
    pub shown_on: Option<u32>,
}

impl Rechecked {
    /// The wanted finding, when a try showed it.
    pub fn finding(&self) -> Option<&Finding> {
        match &self.verdict {
            Verdict::Finding(f) if self.shown_on.is_some() => Some(f),
            _ => None,
        }
    }
}

/// Runs every query of `case` and judges the outcomes with `oracle`, up to
/// `tries` times (at least once) until the verdict is a finding `wanted`
/// accepts.
///
/// # Errors
/// When `runs` cannot run a query or ready the engines.
pub fn recheck<R: Runs>(
    runs: &mut R,
    oracle: &dyn Oracle,
    judge: &JudgeCx<'_>,
    case: &TestCase,
    tries: u32,
    wanted: impl Fn(&Finding) -> bool,
) -> Result<Rechecked, R::Error> {
    let mut last = None;
    for attempt in 1..=tries.max(1) {
        runs.afresh()?;
        let outcomes = case.queries.iter().map(|q| runs.run(q)).collect::<Result<Vec<_>, _>>()?;
        let verdict = oracle.judge(judge, case, &outcomes);
        let shown = matches!(&verdict, Verdict::Finding(f) if wanted(f));
        last = Some(Rechecked { outcomes, verdict, shown_on: shown.then_some(attempt) });
        if shown {
            break;
        }
    }
    Ok(last.expect("at least one try ran"))
}

/// Every engine's outcome on each of `queries`, in order, under `exec`, on
/// the graph the engines hold.
///
/// # Errors
/// When an engine cannot run a query at all.
pub fn outcomes(
    engines: &mut [Box<dyn Engine>],
    queries: &[CaseQuery],
    exec: &ExecOptions,
) -> Result<Vec<Vec<Outcome>>, EngineError> {
    let mut plain = Plain { engines, exec, reload: None };
    queries.iter().map(|q| plain.run(q)).collect()
}
