//! Reduction of a finding to a fixpoint: its queries (clauses, WHERE,
//! projection items, paging, pattern parts, hops, labels and properties in
//! patterns, sub-expressions replaced by a child or a small literal,
//! variables renamed) and then its graph (nodes, relationships, properties
//! and labels, by delta debugging). A candidate is kept when the
//! independent checker accepts every query of its group and the finding's
//! own oracle judges the same family of wrong answer on the real engines.
//! The reduced case is replayed on a freshly loaded reduced graph before it
//! is reported, so a report never shows a reduction that does not hold.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use graphlancer_cypher::ast::Query;
use graphlancer_cypher::validity::neo4j_refuses;
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::Graph;
use serde::{Deserialize, Serialize};

use crate::case::{Body, Role};
use crate::oracle::{CaseQuery, Finding, JudgeCx, Oracle, TestCase, Verdict};
use crate::recheck::outcomes;
use crate::recheck::{Plain, recheck};
use crate::shape::sets_keys_every_table_has;
use crate::signature::Signature;

mod alias;
mod graph;
mod leak;
mod name;
mod rename;
#[cfg(test)]
mod tests;

use crate::edit::{ClauseEdit, Edit, apply, edits, is_guard_edit};
use rename::{renamed, unaliased, unnamed};

/// How much a reduction may spend on one finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Candidates run on the engines, at most.
    pub candidates: usize,
    /// Wall time, at most.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self { candidates: 400, time: Duration::from_secs(60) }
    }
}

/// How far a finding's reduction got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReductionState {
    /// Not reduced (`--no-reduce`, or a crash that did not repeat).
    #[default]
    NotTried,
    /// Reduced to a fixpoint: no edit the reducer knows keeps the finding.
    Finished,
    /// Stopped at its limits; `graphlancer reduce` goes on from here.
    Unfinished,
    /// The smaller cases it found did not show the finding again on a fresh
    /// load (a finding that shows only now and then): written as generated;
    /// `graphlancer reduce` tries again.
    NotReplayed,
}

/// The reduced case and what it showed.
#[derive(Debug, Clone)]
pub struct Reduced {
    /// The smallest case found.
    pub case: TestCase,
    /// Each engine's outcome on each query, from the replay on `graph`.
    pub outcomes: Vec<Vec<Outcome>>,
    /// The oracle's finding on it (same family as the original).
    pub finding: Finding,
    /// The graph it shows on: the finding's graph, reduced.
    pub graph: Graph,
    /// Of the replays on a freshly loaded reduced graph, how many showed the
    /// finding, and how many ran: fewer than all means it is flaky.
    pub replays: (u32, u32),
}

/// Replays of a reduced case that does not stop a process: a finding that
/// shows in only some of them depends on more than the query and graph
/// (memory layout, thread timing), and its report says so.
const REPLAYS: u32 = 3;

/// What a reduction did.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// The smaller case, if one kept the finding and replayed.
    pub reduced: Option<Reduced>,
    /// Candidates run on the engines.
    pub attempts: usize,
    /// How far it got, as a report records it: a fixpoint within its limits,
    /// stopped early (`graphlancer reduce` can go on from what it found), or
    /// what it found smaller dropped for not showing on a fresh load.
    pub state: ReductionState,
}

/// What a reduction runs on.
pub struct Reducer<'a> {
    /// The engines, with `graph` loaded.
    pub engines: &'a mut [Box<dyn Engine>],
    /// The oracle that made the finding; it judges every candidate.
    pub oracle: &'a dyn Oracle,
    /// The engines' names and the graph's schema.
    pub judge: &'a JudgeCx<'a>,
    /// Per-query options.
    pub exec: &'a ExecOptions,
    /// What one finding may spend.
    pub limits: Limits,
    /// Whether a SET may only write keys every table of its entity has
    /// (the dialect's `set_missing_key`): candidates that break it are
    /// not tried.
    pub set_keys_on_every_table: bool,
    /// The graph the engines hold; graph reduction loads smaller ones and
    /// loads this one again when it is done.
    pub graph: &'a Graph,
}

/// The current state of a reduction.
struct State {
    /// The queries kept so far, each text rendered from its body.
    group: Vec<CaseQuery>,
    graph: Graph,
    best: Option<Shown>,
    /// The final replays: shown, run.
    replays: (u32, u32),
}

/// A case, every engine's outcomes on it, and the finding they show.
type Shown = (TestCase, Vec<Vec<Outcome>>, Finding);

impl Reducer<'_> {
    /// Reduces a case whose finding has the signature family `family`: a
    /// single query, or a group derived from its first query (the `source`),
    /// where each edit of the source is made to every query of the group
    /// at the place it came from, and taken only where the derived query
    /// still holds that place unchanged (so the derivation stays what it
    /// was). The graph is reduced too, but for metamorphic relations (their
    /// queries name entities of the graph and predict its counts) and for
    /// hangs (a reduced hang must outlast four times the time on the graph
    /// it hung on, or the reduction is dropped: a smaller query may be
    /// merely expensive).
    pub fn reduce(&mut self, case: &TestCase, family: &Signature) -> Result<Reduction, EngineError> {
        let mut run = self.run(case, family);
        let Some(first) = case.queries.first() else {
            return Ok(Reduction { reduced: None, attempts: 0, state: ReductionState::Finished });
        };
        if case.queries.len() > 1 && first.role != Role::Source {
            return Ok(Reduction { reduced: None, attempts: 0, state: ReductionState::Finished });
        }
        let hang = family.fault == crate::signature::Fault::Timeout;
        // A reduced hang is checked again with four times the time at the
        // end: that much of the budget is kept for it from the start.
        if hang {
            run.limits.time = run.limits.time.saturating_sub(crate::work::longer_timeout(self.exec.timeout));
        }
        let graph_too = !hang && self.oracle.reduces_graph();
        let mut state = self.state(case, None);
        // A finding the case shows only now and then (answers that depend
        // on memory layout): every candidate gets several tries, or one
        // unlucky run would stop the reduction early.
        if !family.fault.is_process_fault() && !crate::interrupt::stopping() {
            let queries = state.group.clone();
            for _ in 1..REPLAYS {
                if self.trial_once(&run, queries.clone())?.is_none() {
                    run.tries = REPLAYS;
                    break;
                }
            }
        }
        let result = self.reduce_in(graph_too, &mut state, &mut run);
        // The campaign goes on with its own graph, whatever happened.
        let reloaded = if state.graph == *self.graph { Ok(()) } else { self.load(self.graph) };
        let replayed = result?;
        let mut finished = replayed && !run.spent();
        reloaded?;
        // A reduced hang is checked with four times the time (an expensive
        // query finishes then); where the budget has no room for that, the
        // case is written as generated and `graphlancer reduce` goes on.
        let longer_timeout = crate::work::longer_timeout(self.exec.timeout);
        if hang && state.best.is_some() && run.started.elapsed() + longer_timeout > self.limits.time {
            state.best = None;
            finished = false;
        }
        if hang && let Some((case, _, _)) = &state.best {
            let longer = ExecOptions { timeout: longer_timeout, ..*self.exec };
            let outcomes = outcomes(self.engines, &case.queries, &longer)?;
            if !crate::case::timed_out(&outcomes) {
                state.best = None;
            }
        }
        Ok(Reduction {
            reduced: state.best.map(|(case, outcomes, finding)| Reduced {
                case,
                outcomes,
                finding,
                graph: state.graph,
                replays: state.replays,
            }),
            attempts: run.attempts,
            state: match (replayed, finished) {
                (false, _) => ReductionState::NotReplayed,
                (true, true) => ReductionState::Finished,
                (true, false) => ReductionState::Unfinished,
            },
        })
    }

    /// The name by cause of a finding as it came (`outcomes` its engines'
    /// answers on the loaded graph): localized, its NULL operand found, a
    /// crash by its clause, as a reduced one is named. A campaign names
    /// each finding so before it reduces it, and counts one whose name
    /// has a report already without reducing it.
    pub fn name_unreduced(
        &mut self,
        case: &TestCase,
        outcomes: Vec<Vec<Outcome>>,
        finding: Finding,
    ) -> Result<Finding, EngineError> {
        let family = finding.signature.family();
        let mut run = self.run(case, &family);
        let generated = finding.clone();
        let mut state = self.state(case, Some((case.clone(), outcomes, finding)));
        self.name(&mut state, &mut run)?;
        Ok(state.best.map_or(generated, |(_, _, f)| f))
    }

    /// A reduction's spending and rules, fresh.
    fn run<'c>(&self, case: &'c TestCase, family: &Signature) -> Run<'c> {
        Run {
            case,
            family: family.clone(),
            started: Instant::now(),
            attempts: 0,
            limits: self.limits,
            tried: BTreeSet::new(),
            // A guard keeps engines of different semantics comparable; an
            // engine compared with itself (or a crash) needs none. Settings
            // are different execution paths of one engine, which may keep
            // relationships unique differently (a settings finding on Grafeo
            // lost its guard and turned into another bug): there a guard goes
            // only where no engine's answer changes without it.
            guards: !self.oracle.compares_a_pair(),
            tries: 1,
            valid: case.queries.iter().all(|q| q.cypher_ast().is_some_and(|a| neo4j_refuses(a).is_none())),
        }
    }

    /// The state of a reduction of `case` on the campaign's graph.
    fn state(&self, case: &TestCase, best: Option<Shown>) -> State {
        State {
            group: case.queries.iter().map(|q| q.with_body(q.body.clone(), q.order_columns.clone())).collect(),
            graph: self.graph.clone(),
            best,
            replays: (1, 1),
        }
    }

    /// The reduction proper; `Ok(false)` when the replay of the reduced
    /// case did not show the finding (nothing reduced is kept then).
    fn reduce_in(&mut self, graph_too: bool, state: &mut State, run: &mut Run<'_>) -> Result<bool, EngineError> {
        // Whole clauses first, then the graph: every later candidate runs
        // faster on a small graph.
        // After each phase, what was kept is run again on a freshly loaded
        // graph: a candidate that showed the finding only thanks to what
        // earlier candidates left in the engine's memory is undone then, not
        // at the end with everything after it.
        let mut verified = (state.group.clone(), state.graph.clone(), state.best.clone());
        self.queries(state, run, true)?;
        self.checkpoint(state, run, &mut verified)?;
        if graph_too && !run.spent() {
            self.graph_of(state, run)?;
            self.checkpoint(state, run, &mut verified)?;
        }
        self.queries(state, run, false)?;
        self.checkpoint(state, run, &mut verified)?;
        if graph_too && !run.spent() {
            let before = state.graph.clone();
            self.graph_of(state, run)?;
            self.checkpoint(state, run, &mut verified)?;
            if state.graph != before {
                // A smaller graph may let more of the query go.
                self.queries(state, run, false)?;
                self.checkpoint(state, run, &mut verified)?;
            }
        }
        if state.best.is_none() {
            // Nothing smaller shows the finding: the case is its own
            // fixpoint, and it is still named (a difference between a pair
            // of engines localized, a crash by its clause), or it would keep
            // its observer's signature.
            let kind = self.oracle.kind();
            if (self.oracle.compares_a_pair() || kind == crate::oracle::OracleKind::CRASH) && !run.spent() {
                state.best = self.replay(state, run)?;
                // Not even the case as it came shows on a fresh load.
                if state.best.is_none() {
                    return Ok(false);
                }
                self.name(state, run)?;
                self.unguard_named(state, run)?;
            }
            return Ok(true);
        }
        self.rename(state, run)?;
        self.tidy(state, run, unnamed)?;
        self.tidy(state, run, unaliased)?;
        let mut replay = self.replay(state, run)?;
        if replay.is_none() && verified.2.is_some() && (&state.group, &state.graph) != (&verified.0, &verified.1) {
            // A finding that shows now and then can miss every replay of the
            // last edits: the last state that showed on a fresh load gets
            // its own replays before the reduction is given up.
            (state.group, state.graph, state.best) = verified;
            replay = self.replay(state, run)?;
        }
        if replay.is_none() {
            state.best = None;
            state.graph = self.graph.clone();
            // The engines still hold the reduced graph.
            self.load(self.graph)?;
            return Ok(false);
        }
        state.best = replay;
        self.name(state, run)?;
        self.unguard_named(state, run)?;
        Ok(true)
    }

    /// The guards go last of all, after the finding is named on the query
    /// that still holds them: localization runs the query cut short, where
    /// a guard that filtered nothing in the whole query may matter again. A
    /// query that lost guards is replayed on a fresh load and keeps the name;
    /// where the replay does not show the finding, the guards stay.
    fn unguard_named(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        let Some(named) = state.best.clone() else { return Ok(()) };
        let (group, replays) = (state.group.clone(), state.replays);
        self.unguard(state, run, &named.1)?;
        if state.group == group {
            return Ok(());
        }
        match self.replay(state, run)? {
            Some((case, outcomes, _)) => state.best = Some((case, outcomes, named.2)),
            None => (state.group, state.best, state.replays) = (group, Some(named), replays),
        }
        Ok(())
    }

    /// Keeps what the phases so far kept when it shows the finding on a
    /// freshly loaded graph (`verified` becomes it), else goes back to
    /// `verified`. Where a process died or hung there is no memory to
    /// blame, and no check.
    fn checkpoint(
        &mut self,
        state: &mut State,
        run: &Run<'_>,
        verified: &mut (Vec<CaseQuery>, Graph, Option<Shown>),
    ) -> Result<(), EngineError> {
        let unchanged = state.group == verified.0 && state.graph == verified.1;
        // Stopping (SIGINT, SIGTERM): the final replay still checks what is kept.
        let stopping = crate::interrupt::stopping();
        if state.best.is_none() || unchanged || stopping || run.family.fault.is_process_fault() {
            return Ok(());
        }
        // A flaky finding gets its tries here too, each on a fresh load: one
        // unlucky run must not undo a phase.
        let mut shown = false;
        for _ in 0..run.tries {
            self.load(&state.graph)?;
            if self.trial_once(run, state.group.clone())?.is_some() {
                shown = true;
                break;
            }
        }
        if shown {
            *verified = (state.group.clone(), state.graph.clone(), state.best.clone());
        } else {
            (state.group, state.graph, state.best) = verified.clone();
            self.load(&state.graph)?;
        }
        Ok(())
    }

    /// The replay: a fresh load of the reduced graph, the reduced case on
    /// every engine, the same family of finding; the first replay that
    /// shows it, after [`REPLAYS`] of them where no process stops (the
    /// count is kept in `state.replays`).
    fn replay(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<Option<Shown>, EngineError> {
        let queries = state.group.clone();
        // A stopping campaign (SIGINT, SIGTERM) replays once: it must end soon.
        let runs = if run.family.fault.is_process_fault() || crate::interrupt::stopping() { 1 } else { REPLAYS };
        let mut first = None;
        let mut shown = 0;
        for _ in 0..runs {
            self.load(&state.graph)?;
            if let Some(found) = self.trial_once(run, queries.clone())? {
                shown += 1;
                first.get_or_insert(found);
            }
        }
        state.replays = (shown, runs);
        Ok(first)
    }

    /// Query edits until none applies; with `coarse`, only whole parts,
    /// clauses and pattern parts.
    fn queries(&mut self, state: &mut State, run: &mut Run<'_>, coarse: bool) -> Result<(), EngineError> {
        if state.group[0].traversal().is_some() {
            return self.steps(state, run);
        }
        fn coarse_edit(e: &Edit) -> bool {
            match e {
                Edit::InPart(_, inner) => coarse_edit(inner),
                _ => matches!(
                    e,
                    Edit::Part(_)
                        | Edit::UnionColumn(_)
                        | Edit::Prefix(_)
                        | Edit::Clause(_, ClauseEdit::Remove | ClauseEdit::Pattern(_))
                ),
            }
        }
        // Between engines of different semantics the guards go last, in
        // `unguard`: an edit after a guard went could remove what kept the
        // guard from mattering (a FalkorDB relationship used nowhere else
        // folds), and the answers would differ by semantics.
        let free = run.guards;
        self.edits_to_fixpoint(state, run, |e| (!coarse || coarse_edit(e)) && (free || !is_guard_edit(e)), None)
    }

    /// The last edits of a reduction between engines of different
    /// semantics: guard conjuncts, each dropped only where every engine
    /// answers as in `answers` (the outcomes with the guards) without it.
    /// Nothing is edited after them, so what made a guard filter nothing
    /// stays in the query.
    fn unguard(&mut self, state: &mut State, run: &mut Run<'_>, answers: &[Vec<Outcome>]) -> Result<(), EngineError> {
        // A flaky finding's answers change from run to run: its guards stay.
        if run.guards || run.tries > 1 || state.group[0].traversal().is_some() {
            return Ok(());
        }
        self.edits_to_fixpoint(state, run, is_guard_edit, Some(answers))
    }

    /// The `allowed` edits of the source, made to the whole group, until
    /// none keeps the finding (and, with `answers`, every engine's answers
    /// as those).
    fn edits_to_fixpoint(
        &mut self,
        state: &mut State,
        run: &mut Run<'_>,
        allowed: impl Fn(&Edit) -> bool,
        answers: Option<&[Vec<Outcome>]>,
    ) -> Result<(), EngineError> {
        'improve: loop {
            let Some(source) = state.group[0].cypher_ast() else { return Ok(()) };
            for edit in edits(source).into_iter().filter(|e| allowed(e)) {
                if run.spent() {
                    return Ok(());
                }
                let Some(group) = state
                    .group
                    .iter()
                    .map(|c| {
                        let (q, order) = apply(state.group[0].cypher_ast()?, c.cypher_ast()?, &c.order_columns, &edit)?;
                        Some(c.with_body(Body::Cypher(q), order))
                    })
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                if self.admissible(&group, run) && self.attempt_against(state, run, group, answers)? {
                    continue 'improve;
                }
            }
            return Ok(());
        }
    }

    /// Runs `group` unless it ran before; keeps it when the finding holds.
    fn attempt(&mut self, state: &mut State, run: &mut Run<'_>, group: Vec<CaseQuery>) -> Result<bool, EngineError> {
        self.attempt_against(state, run, group, None)
    }

    /// [`Self::attempt`], and where `before` is given, only when every
    /// engine answers as there ([`same_answers`]): for a group without a
    /// guard conjunct, the guard then filtered nothing on this graph, and
    /// the difference cannot come from the semantics it evens out.
    fn attempt_against(
        &mut self,
        state: &mut State,
        run: &mut Run<'_>,
        group: Vec<CaseQuery>,
        before: Option<&[Vec<Outcome>]>,
    ) -> Result<bool, EngineError> {
        let queries = group.clone();
        if !run.tried.insert(queries.iter().map(|q| q.text.clone()).collect::<Vec<_>>().join("\n")) {
            return Ok(false);
        }
        run.attempts += 1;
        let Some(found) = self.trial(run, queries)? else { return Ok(false) };
        if before.is_some_and(|before| !same_answers(before, &found.1)) {
            return Ok(false);
        }
        state.group = group;
        state.best = Some(found);
        Ok(true)
    }

    /// A Gremlin case (one traversal): smaller traversals until none keeps
    /// the finding. Candidates are not checked beforehand; one the engines
    /// refuse shows another finding, or none, and is not kept.
    fn steps(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        'improve: loop {
            let Some(current) = state.group[0].traversal().cloned() else { return Ok(()) };
            let key_type = |k: &str| self.judge.schema.key_type(k);
            let valid: Vec<_> = graphlancer_gremlin::reduce::smaller(&current)
                .into_iter()
                .filter(|t| graphlancer_gremlin::check::check(t, &key_type).is_ok())
                .collect();
            for t in valid {
                if run.spent() {
                    return Ok(());
                }
                let ordered = state.group[0].order_columns.is_some() && graphlancer_gremlin::reduce::ends_ordered(&t);
                let Ok(derived) = self.oracle.derived(&t) else { continue };
                let first = state.group[0].with_body(Body::Gremlin(t), ordered.then(|| vec![0]));
                // Each derived query keeps the role of the one it stands for.
                let derived =
                    derived.into_iter().zip(&state.group[1..]).map(|(d, q)| CaseQuery { role: q.role.clone(), ..d });
                if self.attempt(state, run, std::iter::once(first).chain(derived).collect())? {
                    continue 'improve;
                }
            }
            return Ok(());
        }
    }

    /// Variables renamed `n0, r0, p0, a0, ...` in order of appearance, one
    /// renaming for the whole group, kept when the finding holds.
    /// Whether a candidate group may be tried: every query types, writes
    /// no key the dialect would ignore, and is valid by Neo4j 5 where the
    /// case was.
    fn admissible(&self, group: &[CaseQuery], run: &Run<'_>) -> bool {
        // Where no answer is compared, as the crash preset generates them:
        // entities stay in scope after a DELETE.
        use crate::oracle::OracleKind;
        let rules = graphlancer_cypher::check::Rules {
            entities_after_delete: [OracleKind::CRASH, OracleKind::ERROR].contains(&self.oracle.kind()),
        };
        group.iter().all(|c| {
            c.cypher_ast().is_some_and(|q| {
                graphlancer_cypher::check::result_types_with(q, self.judge.schema, rules).is_ok()
                    && (!self.set_keys_on_every_table || sets_keys_every_table_has(q, self.judge.schema))
                    && (!run.valid || neo4j_refuses(q).is_none())
            })
        })
    }

    fn rename(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        if state.group[0].traversal().is_some() {
            return Ok(());
        }
        let Some(group) = renamed(&state.group) else { return Ok(()) };
        self.keep_if_shown(state, run, group)
    }

    /// `group` in place of the kept one, where it is a change the checker
    /// accepts and it shows the finding.
    fn keep_if_shown(
        &mut self,
        state: &mut State,
        run: &mut Run<'_>,
        group: Vec<CaseQuery>,
    ) -> Result<(), EngineError> {
        if group == state.group || !self.admissible(&group, run) {
            return Ok(());
        }
        run.attempts += 1;
        if let Some(found) = self.trial(run, group.clone())? {
            state.group = group;
            state.best = Some(found);
        }
        Ok(())
    }

    /// One edit of a lone query, kept when the finding holds: the last
    /// tidying of a reduced case ([`unaliased`], [`unnamed`]). Not of a
    /// group, whose other queries are derived from its source's names.
    fn tidy(&mut self, state: &mut State, run: &mut Run<'_>, edit: fn(&mut Query)) -> Result<(), EngineError> {
        if state.group.len() != 1 || state.group[0].traversal().is_some() || run.spent() {
            return Ok(());
        }
        let Some(mut q) = state.group[0].cypher_ast().cloned() else { return Ok(()) };
        edit(&mut q);
        let group = vec![state.group[0].with_body(Body::Cypher(q), state.group[0].order_columns.clone())];
        self.keep_if_shown(state, run, group)
    }

    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        for e in self.engines.iter_mut() {
            e.load(graph)?;
        }
        Ok(())
    }

    /// Runs `queries` on every engine and judges them; the finding when it
    /// is of the run's family.
    /// A flaky finding's candidate is tried up to [`REPLAYS`] times: a
    /// candidate that shows it once keeps it as well as the case did.
    fn trial(&mut self, run: &Run<'_>, queries: Vec<CaseQuery>) -> Result<Option<Shown>, EngineError> {
        self.shown(run, queries, run.tries)
    }

    /// One run of `queries` on every engine, judged.
    fn trial_once(&mut self, run: &Run<'_>, queries: Vec<CaseQuery>) -> Result<Option<Shown>, EngineError> {
        self.shown(run, queries, 1)
    }

    /// `queries` as the run's case, rechecked up to `tries` times until it
    /// shows a finding of the run's family.
    fn shown(&mut self, run: &Run<'_>, queries: Vec<CaseQuery>, tries: u32) -> Result<Option<Shown>, EngineError> {
        let trial = TestCase { relation: run.case.relation.clone(), queries, delta: run.case.delta };
        let mut plain = Plain { engines: self.engines, exec: self.exec, reload: None };
        let r = recheck(&mut plain, self.oracle, self.judge, &trial, tries, |f| f.signature.family() == run.family)?;
        Ok(match r.verdict {
            Verdict::Finding(f) if r.shown_on.is_some() => Some((trial, r.outcomes, f)),
            _ => None,
        })
    }

    /// `queries` run once on every engine, as the run's case, and the
    /// oracle's verdict on them.
    fn judged(
        &mut self,
        run: &Run<'_>,
        queries: Vec<CaseQuery>,
    ) -> Result<(TestCase, Vec<Vec<Outcome>>, Verdict), EngineError> {
        let trial = TestCase { relation: run.case.relation.clone(), queries, delta: run.case.delta };
        let mut plain = Plain { engines: self.engines, exec: self.exec, reload: None };
        let r = recheck(&mut plain, self.oracle, self.judge, &trial, 1, |_| true)?;
        Ok((trial, r.outcomes, r.verdict))
    }
}

/// One reduction: the case, the family of finding it must keep showing,
/// and what it has spent.
struct Run<'c> {
    case: &'c TestCase,
    family: Signature,
    started: Instant,
    attempts: usize,
    limits: Limits,
    /// Groups already run, by text: an edit that gives one again is skipped.
    tried: BTreeSet<String>,
    /// Whether guard conjuncts may be dropped whenever the finding stays;
    /// else only where no engine's answer changes.
    guards: bool,
    /// Runs of a candidate before it is judged not to show the finding:
    /// more than one for a finding the case itself shows only now and then.
    tries: u32,
    /// Whether every query of the case is one Neo4j 5 accepts: then every
    /// candidate must be too, so no reduction turns a valid case into one
    /// whose difference is only what an invalid query does.
    valid: bool,
}

impl Run<'_> {
    fn spent(&self) -> bool {
        self.attempts >= self.limits.candidates
            || self.started.elapsed() >= self.limits.time
            || crate::interrupt::stopping()
    }
}

/// Whether every engine answered every query in `a` as in `b`: the same
/// rows as a bag, or the same error (a timeout or a crash twice says
/// nothing of what a guard filtered).
fn same_answers(a: &[Vec<Outcome>], b: &[Vec<Outcome>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| match (p, q) {
                    (Outcome::Rows(p), Outcome::Rows(q)) => !crate::localize::differs(p, q),
                    (Outcome::Error { .. }, Outcome::Error { .. }) => p == q,
                    _ => false,
                })
        })
}
