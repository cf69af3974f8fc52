//! Running a query or a whole case on every engine of the campaign, with
//! the plans read beside it.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use graphlancer_engines::{ExecOptions, Outcome};
use graphlancer_gremlin::TraversalGenerator;
use graphlancer_model::derive_rng;

use crate::oracle::{CaseQuery, JudgeCx, Oracle, TestCase, Verdict};
use crate::recheck::Runs;

use super::config::{PlanUse, Sent};
use super::summary::{Summary, count_all};
use super::{Campaign, CampaignError, Position, Ran, stream};

/// The least a query is given when the deadline is near: enough for an
/// engine to answer a small query, so the last cases still count.
const MIN_TIMEOUT: Duration = Duration::from_millis(200);

impl Campaign {
    /// One generated traversal: run on every engine, judged by the oracles
    /// that judge single queries (crash and error first, then differential).
    pub(super) fn traversal(
        &mut self,
        s: &mut Summary,
        oracles: &[&dyn Oracle],
        at: Position<'_>,
        generator: &TraversalGenerator<'_>,
        used: &mut BTreeSet<&'static str>,
    ) -> Result<(), CampaignError> {
        let mut rng = derive_rng(self.config.seed, &[stream::CASE, at.graph_index, at.case_index]);
        let g = generator.generate(&mut rng);
        used.extend(g.traversal.step_names());
        let length = g.traversal.size();
        let source = CaseQuery::gremlin("source", g.traversal, g.ordered);
        let (outcomes, waited, wall) = self.execute_all(&source)?;
        self.engine_time += wall;
        s.queries += 1;
        count_all(s, &outcomes, &waited, &source.text);
        let non_empty = outcomes[0].rows().is_some_and(|r| !r.rows.is_empty());
        let slot = s.non_empty_by_length.entry(length).or_default();
        slot.0 += 1;
        slot.1 += u64::from(non_empty);
        if self.take_cut(s) {
            return Ok(());
        }
        let names = self.names.clone();
        let judge = JudgeCx { names: &names, schema: &at.graph.schema };
        // One case for every oracle: none of these reads its relation, which
        // becomes the oracle's name once one of them finds something.
        let mut ran = Ran { case: TestCase::single("source", source), outcomes: vec![outcomes] };
        for o in oracles {
            let verdict = o.judge(&judge, &ran.case, &ran.outcomes);
            if !o.per_query() {
                let r = s.relations.entry(o.kind().name().to_owned()).or_default();
                match &verdict {
                    Verdict::Skip(reason) => *r.skipped.entry((*reason).to_owned()).or_default() += 1,
                    _ => r.run += 1,
                }
            }
            if let Verdict::Finding(f) = verdict {
                ran.case.relation = o.kind().name().to_owned();
                return self.handle(s, *o, at, ran, f);
            }
        }
        Ok(())
    }

    /// Reads the plan of `query` from each engine in `baselines` and counts
    /// its operator combination; whether one was new.
    pub(super) fn plans(
        &mut self,
        s: &mut Summary,
        baselines: &[usize],
        query: &str,
        seen: &mut BTreeSet<(usize, Vec<String>)>,
        started: Instant,
    ) -> Result<bool, CampaignError> {
        if self.config.plans == PlanUse::Off {
            return Ok(false);
        }
        let mut new = false;
        for &i in baselines {
            let t = Instant::now();
            let plan = self.engines[i].plan(query, &self.config.exec);
            self.engines[i].take_overhead();
            self.time.plans += t.elapsed().as_secs_f64();
            match plan? {
                Some(ops) => {
                    let used = graphlancer_engines::families::optimizations(self.engines[i].dialect(), &ops);
                    new |= seen.insert((i, used.into_iter().collect()));
                }
                None => s.plans_missing += 1,
            }
        }
        if new {
            s.plan_combinations = seen.len();
            s.plan_timeline.push((s.queries, started.elapsed().as_secs_f64(), seen.len()));
        }
        Ok(new)
    }

    /// What is left of a time budget; `None` under a query budget.
    pub(super) fn time_left(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether a query of the case now ending was cut short by the
    /// deadline; if so it is counted, and the case is not judged (a hang
    /// cannot be told from a query the budget stopped).
    pub(super) fn take_cut(&mut self, s: &mut Summary) -> bool {
        let cut = std::mem::take(&mut self.cut);
        s.cut_by_budget += u64::from(cut);
        cut
    }

    pub(super) fn execute_all(
        &mut self,
        q: &CaseQuery,
    ) -> Result<(Vec<Outcome>, Vec<Duration>, Duration), CampaignError> {
        self.execute_with(q, self.config.exec)
    }

    /// `q` on every engine at once under `exec`: the outcomes, each
    /// engine's time, and the wall time they took together.
    pub(super) fn execute_with(
        &mut self,
        q: &CaseQuery,
        exec: ExecOptions,
    ) -> Result<(Vec<Outcome>, Vec<Duration>, Duration), CampaignError> {
        let mut outcomes = Vec::with_capacity(self.engines.len());
        let mut waited = Vec::with_capacity(self.engines.len());
        let mut exec = ExecOptions { language: q.language(), ..exec };
        // A query may not outlast the time budget: one 10 s timeout and its
        // confirmation re-runs made a 30 s campaign take 52 s.
        let asked = exec.timeout;
        if let Some(left) = self.time_left() {
            if left.is_zero() {
                // The rest of a case the budget ended in is not run: its
                // answers could not be judged, and a timeout would cost a
                // restart.
                self.cut = true;
                let none = Outcome::Timeout { after_ms: 0 };
                return Ok((vec![none; self.engines.len()], vec![Duration::ZERO; self.engines.len()], Duration::ZERO));
            }
            exec.timeout = asked.min(left.max(MIN_TIMEOUT));
        }
        let started = Instant::now();
        let answers = graphlancer_engines::on_each(&mut self.engines, |e| {
            let t = Instant::now();
            let outcome = q.run_on(e, &exec);
            (outcome, t.elapsed(), e.take_overhead())
        });
        let wall = started.elapsed();
        // The wall time is shared out in proportion to each engine's own
        // time, so that the parts of a campaign's time add up to its length.
        let own: f64 = answers.iter().map(|(_, took, _)| took.as_secs_f64()).sum();
        let share = if own > 0.0 { wall.as_secs_f64() / own } else { 0.0 };
        // Every engine's overhead is counted before an error ends the call.
        for ((_, _, o), overhead) in answers.iter().zip(&mut self.overheads) {
            overhead.add(*o);
        }
        for (outcome, took, o) in answers {
            let outcome = outcome?;
            let answering = took.saturating_sub(o.restore_time + o.restart_time).as_secs_f64();
            if matches!(outcome, Outcome::Timeout { .. }) {
                self.time.timeouts += answering * share;
            } else {
                self.time.queries += answering * share;
            }
            self.time.restores += o.restore_time.as_secs_f64() * share;
            self.time.restarts += o.restart_time.as_secs_f64() * share;
            outcomes.push(outcome);
            waited.push(took);
        }
        if exec.timeout < asked && outcomes.iter().any(|o| matches!(o, Outcome::Timeout { .. })) {
            self.cut = true;
        }
        let text = &q.text;
        if self.config.record {
            let disrupted = outcomes.iter().any(|o| matches!(o, Outcome::Crash { .. } | Outcome::Timeout { .. }));
            self.sent.push(Sent::Query { text: text.to_owned(), elapsed: wall, disrupted });
        }
        Ok((outcomes, waited, wall))
    }
}

/// The campaign's engines as a recheck runs them: each query counted as
/// the campaign counts its own (engine time, overheads, the queries sent).
pub(super) struct Counted<'c> {
    pub(super) campaign: &'c mut Campaign,
    pub(super) exec: ExecOptions,
    /// The longest an engine took on one query.
    pub(super) longest: Duration,
}

impl Runs for Counted<'_> {
    type Error = CampaignError;

    fn run(&mut self, q: &CaseQuery) -> Result<Vec<Outcome>, CampaignError> {
        let (outcomes, waited, wall) = self.campaign.execute_with(q, self.exec)?;
        self.campaign.engine_time += wall;
        self.longest = self.longest.max(waited.iter().copied().max().unwrap_or_default());
        Ok(outcomes)
    }
}
