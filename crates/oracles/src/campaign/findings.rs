//! What the campaign does with a finding: confirm it, name it, count it
//! under a report that has its name or reduce it within the budget's share,
//! and write it.

use std::time::{Duration, Instant};

use graphlancer_model::Graph;

use crate::case::timed_out;
use crate::oracle::{Finding, JudgeCx, Oracle};
use crate::recheck::recheck;
use crate::reduce::Reducer;
use crate::report::{CASE_FORMAT, Case, EngineRecord, Recorded, ReductionState};

use super::budget::{MIN_NAMING, MIN_REDUCTION, NAMING_TIME, naming_share_left, reduction_share_left};
use super::config::Budget;
use super::execute::Counted;
use super::summary::Summary;
use super::{Campaign, CampaignError, Position, Ran};

impl Campaign {
    /// What the next naming or reduction may spend: the per-finding
    /// limits, within the deadline and the budget's share for reductions.
    pub(super) fn reduction_limits(&self) -> crate::reduce::Limits {
        let mut limits = self.config.reduction;
        if let Some(left) = self.time_left() {
            limits.time = limits.time.min(left);
        }
        if let Budget::Time(t) = self.config.budget {
            limits.time = limits.time.min(reduction_share_left(t, self.time.reduction));
        }
        limits
    }

    /// A reducer on the campaign's engines, which hold `graph`.
    pub(super) fn reducer<'r>(
        &'r mut self,
        oracle: &'r dyn Oracle,
        judge: &'r JudgeCx<'r>,
        graph: &'r Graph,
        limits: crate::reduce::Limits,
    ) -> Reducer<'r> {
        Reducer {
            oracle,
            judge,
            exec: &self.config.exec,
            limits,
            set_keys_on_every_table: self.profile.records(graphlancer_cypher::profile::SemanticsKey::SetMissingKey),
            graph,
            engines: &mut self.engines,
        }
    }

    /// A finding: counted if its signature is known, else confirmed by
    /// running its case again, reduced, and written.
    pub(super) fn handle(
        &mut self,
        s: &mut Summary,
        oracle: &dyn Oracle,
        at: Position<'_>,
        ran: Ran,
        finding: Finding,
    ) -> Result<(), CampaignError> {
        let relation = ran.case.relation.clone();
        // A signature confirmed before is counted without re-running: a
        // frequent bug would otherwise double the cost of its queries.
        let known = self.store().count_known(
            &finding.signature,
            crate::report::Seen { seed: self.config.seed, graph: at.graph_index, case: at.case_index },
        )?;
        if let Some((known, dir)) = known {
            s.relations.entry(relation).or_default().findings += 1;
            self.counted(s, known.to_string(), dir, false);
            return Ok(());
        }
        // Confirm: the same signature again on a second run, else flaky. A
        // timeout is re-run with four times the time: a query that then
        // finishes was only expensive (a large cartesian product), not a hang.
        let slow_check = finding.signature.fault == crate::signature::Fault::Timeout;
        // Millions of rows are slow on a loaded machine whatever the engine:
        // such a timeout says nothing about a hang.
        let expensive = crate::work::expensive(self.config.exec.timeout);
        if slow_check && ran.case.queries.iter().any(|q| q.work(at.graph) >= expensive) {
            s.expensive += 1;
            return Ok(());
        }
        let mut exec = self.config.exec;
        if slow_check {
            exec.timeout = crate::work::longer_timeout(exec.timeout);
        }
        let names = self.names.clone();
        let judge = JudgeCx { names: &names, schema: &at.graph.schema };
        let mut counted = Counted { campaign: self, exec, longest: Duration::ZERO };
        let rechecked = recheck(&mut counted, oracle, &judge, &ran.case, 1, |f| f.signature == finding.signature)?;
        let longest = counted.longest;
        if self.take_cut(s) {
            return Ok(());
        }
        let reproduced = rechecked.shown_on.is_some();
        let again = rechecked.outcomes;
        // It needed the extra time: expensive. Finishing within the first
        // bound instead means the hang did not repeat (kept, marked).
        let finished = !timed_out(&again);
        if slow_check && !reproduced && finished && longest >= self.config.exec.timeout {
            s.slow += 1;
            return Ok(());
        }
        // A process that died or hung did so, whatever the re-run does: it
        // is kept, marked as not reproduced.
        if !reproduced && !finding.signature.fault.is_process_fault() {
            s.flaky += 1;
            return Ok(());
        }
        if !reproduced {
            s.unreproduced_faults += 1;
        }
        s.relations.entry(relation).or_default().findings += 1;
        let generated_signature = finding.signature.clone();
        let mut finding = finding;
        // A fault that did not happen again cannot be put at a clause: its
        // constructs would make one report per query.
        if !reproduced {
            finding.signature = finding.signature.unnamed();
        }
        let (mut state, mut reduced) = (ReductionState::NotTried, None);
        let known = self.store().reduction_of(&generated_signature).cloned();
        let mut reduce_it = false;
        let mut pre_name = None;
        if let Some(known) = known {
            finding.signature = known;
        } else if self.config.reduce && reproduced {
            // Named by cause before any reduction: a case whose name has a
            // report is counted there, unreduced (a frequent bug would
            // otherwise spend the budget reducing itself again and again).
            let t = Instant::now();
            let mut limits = self.config.reduction;
            limits.time = limits.time.min(NAMING_TIME);
            if let Some(left) = self.time_left() {
                limits.time = limits.time.min(left);
            }
            if let Budget::Time(budget) = self.config.budget {
                limits.time = limits.time.min(naming_share_left(budget, self.time.naming));
            }
            // Naming's share spent: the finding goes under its oracle's
            // unnamed report, as one whose reduction found no time does.
            let unnamed = limits.time < MIN_NAMING;
            let mut named = if unnamed {
                finding.clone()
            } else {
                let named = self.reducer(oracle, &judge, at.graph, limits).name_unreduced(
                    &ran.case,
                    again.clone(),
                    finding.clone(),
                );
                for e in &mut self.engines {
                    e.take_overhead();
                }
                named?
            };
            self.engine_time += t.elapsed();
            self.time.naming += t.elapsed().as_secs_f64();
            let spent = unnamed || self.reduction_limits().time < MIN_REDUCTION;
            let seen = crate::report::Seen { seed: self.config.seed, graph: at.graph_index, case: at.case_index };
            // A name a report has counts there, reduced or not. Without a
            // reduction to come, a name no report has is the unreduced
            // query's: the clauses and operands the reducer would have
            // taken away are in it, and on Kuzu 0.6.0 vs 0.11.3 such names
            // made 42 reports of 16 causes. It goes under its kind's unnamed
            // report, which `graphlancer reduce` names.
            let unreduced = spent.then(|| named.signature.unreduced());
            for name in std::iter::once(&named.signature).chain(&unreduced) {
                if *name == finding.signature {
                    continue;
                }
                let counted = self.store().count_named(name, &generated_signature, seen)?;
                if let Some((known, dir)) = counted {
                    self.counted(s, known.to_string(), dir, false);
                    return Ok(());
                }
            }
            if let Some(unreduced) = unreduced {
                named.signature = unreduced;
                // The budget's share for reductions is spent: written as
                // generated under its name; `graphlancer reduce` goes on.
                s.unreduced += 1;
                finding = named;
            } else {
                reduce_it = true;
                pre_name = Some(named.signature).filter(|n| *n != finding.signature);
            }
        }
        if reduce_it {
            let limits = self.reduction_limits();
            let mut reducer = self.reducer(oracle, &judge, at.graph, limits);
            let t = Instant::now();
            let reduction = reducer.reduce(&ran.case, &finding.signature.family());
            // The reducer's restores and restarts are part of its time.
            for e in &mut self.engines {
                e.take_overhead();
            }
            let reduction = reduction?;
            self.engine_time += t.elapsed();
            s.reduction_seconds.push(t.elapsed().as_secs_f64());
            self.time.reduction += t.elapsed().as_secs_f64();
            state = reduction.state;
            reduced = reduction.reduced;
        }
        let mut case = Case {
            format: CASE_FORMAT,
            oracle: oracle.kind(),
            oracles: self.config.oracles.clone(),
            signature: finding.signature,
            generated_signature,
            summary: finding.summary,
            relation: String::new(),
            broken: finding.relation,
            delta: None,
            seed: self.config.seed,
            graph_index: at.graph_index,
            case_index: at.case_index,
            engines: self
                .engines
                .iter()
                .map(|e| EngineRecord { spec: e.name().into(), version: e.version().into(), script: e.script() })
                .collect(),
            graph: at.graph.clone(),
            original_graph: None,
            reduction: state,
            bisection: None,
            shape: String::new(),
            column_kinds: Vec::new(),
            role: String::new(),
            query: String::new(),
            original_query: None,
            ast: graphlancer_cypher::Query { parts: Vec::new(), union_all: false, spelling: Default::default() },
            traversal: None,
            order_columns: None,
            outcomes: Vec::new(),
            row_counts: Vec::new(),
            followups: Vec::new(),
            reproduced,
            replays: None,
            known_bug: None,
        };
        case.set_queries(ran.case, ran.outcomes);
        if let Some(r) = reduced {
            case.take_reduction(r);
            case.known_bug = self.known_bug_in(&case);
        }
        // A reduction stopped at its limits named nothing: its constructs
        // (Kuzu 0.1.0's crashes kept twenty) would be a report each.
        if matches!(case.reduction, ReductionState::Unfinished | ReductionState::NotReplayed) {
            case.signature = case.signature.unnamed();
        }
        // A finding of a known bug is counted under the bug's one report.
        if let Some(k) = &case.known_bug {
            *s.known_bug_findings.entry(k.bug.clone()).or_default() += 1;
            // The store's lock is let go before the aliases take it again.
            let report = self.store().known_report(&k.bug).cloned();
            if let Some(report) = report {
                let seen = crate::report::Seen { seed: self.config.seed, graph: at.graph_index, case: at.case_index };
                if let Some(name) = pre_name {
                    self.store().alias(name, report.clone())?;
                }
                self.store().alias(case.generated_signature.clone(), report)?;
                let counted = self.store().count_known(&case.generated_signature, seen)?;
                if let Some((known, dir)) = counted {
                    self.counted(s, known.to_string(), dir, false);
                }
                return Ok(());
            }
        }
        let signature = case.signature.clone();
        if let Some(name) = pre_name {
            self.store().alias(name, signature.clone())?;
        }
        let recorded = match self.store().record(&case) {
            Ok(r) => r,
            Err(e) => {
                // A finding that cannot be written (a full disk) stops the
                // run, and the summary keeps what regenerates it: the seed,
                // graph and case of the query, so the finding is not lost.
                s.unwritten.push(format!(
                    "{signature} (seed {}, graph {}, case {}; `graphlancer run --seed {}` finds it again): {e}",
                    self.config.seed, at.graph_index, at.case_index, self.config.seed
                ));
                return Ok(());
            }
        };
        match recorded {
            Recorded::New(dir) => self.counted(s, signature.to_string(), dir, true),
            Recorded::Duplicate(dir, report) => self.counted(s, report.to_string(), dir, false),
        }
        Ok(())
    }

    /// A confirmed finding counted under the report of `signature` in
    /// `dir`: in the summary, and as an event the next tick sends.
    fn counted(&mut self, s: &mut Summary, signature: String, dir: std::path::PathBuf, new: bool) {
        if new {
            s.findings_new += 1;
        } else {
            s.findings_duplicate += 1;
        }
        s.findings.insert(signature.clone(), dir.display().to_string());
        self.found.push(super::events::Counted { signature, dir, new });
    }

    /// The watched known bug a reduced case still has, in its first query
    /// or a follow-up, with the release it shows on (the engine that is not
    /// the reference).
    fn known_bug_in(&self, case: &Case) -> Option<crate::report::KnownBugSeen> {
        if self.profile.watched.is_empty() {
            return None;
        }
        let failed = case.signature.fault.is_failure();
        let queries = std::iter::once(&case.ast).chain(case.followups.iter().filter_map(|q| q.query.cypher_ast()));
        let bug = queries.filter_map(|q| self.profile.watched_in(q, &case.graph.schema, failed)).next()?;
        let engine = case.engines.iter().find(|e| e.spec != graphlancer_engines::EngineSpec::Reference.to_string())?;
        Some(crate::report::KnownBugSeen {
            bug: bug.to_owned(),
            release: format!("{} {}", engine.spec, engine.version),
        })
    }
}
