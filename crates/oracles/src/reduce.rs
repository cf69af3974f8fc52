//! Reduction of a finding to a fixpoint: its queries (clauses, WHERE,
//! projection items, paging, pattern parts, hops, labels and properties in
//! patterns, sub-expressions replaced by a child or a small literal,
//! variables renamed) and then its graph (nodes, relationships, properties
//! and labels, by delta debugging). A candidate is kept when the
//! independent checker accepts every query of its group and the finding's
//! own oracle judges the same family of wrong answer on the real engines.
//! The reduced case is replayed on a freshly loaded reduced graph before it
//! is reported, so a report never shows a reduction that does not hold.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use graphlancer_cypher::ast::{Clause, Direction, Expr, PathPattern, Projection, Query, SingleQuery};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::{Graph, Value};

use crate::oracle::{CaseQuery, Finding, JudgeCx, Oracle, TestCase, Verdict};
use crate::report::ReductionState;
use crate::signature::Signature;

/// A query with what the oracles need to judge it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The AST.
    pub query: Query,
    /// Result columns its ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
    /// A Gremlin query's traversal (then `query` is empty).
    pub traversal: Option<graphlancer_gremlin::Traversal>,
}

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
    group: Vec<Candidate>,
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
        if case.queries.len() > 1 && first.role != "source" {
            return Ok(Reduction { reduced: None, attempts: 0, state: ReductionState::Finished });
        }
        let hang = family.fault == crate::signature::Fault::Timeout;
        // A reduced hang is checked again with four times the time at the
        // end: that much of the budget is kept for it from the start.
        if hang {
            run.limits.time = run.limits.time.saturating_sub(crate::work::longer_timeout(self.exec.timeout));
        }
        let graph_too = !hang && self.oracle.kind() != crate::oracle::OracleKind::Metamorphic;
        let mut state = self.state(case, None);
        // A finding the case shows only now and then (answers that depend
        // on memory layout): every candidate gets several tries, or one
        // unlucky run would stop the reduction early.
        if !family.fault.is_process_fault() && !crate::interrupt::stopping() {
            let queries = queries_of(case, &state.group);
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
            if !crate::campaign::timed_out(&outcomes) {
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
            guards: !self.oracle.kind().compares_a_pair(),
            tries: 1,
        }
    }

    /// The state of a reduction of `case` on the campaign's graph.
    fn state(&self, case: &TestCase, best: Option<Shown>) -> State {
        State {
            group: case
                .queries
                .iter()
                .map(|q| Candidate {
                    query: q.ast.clone(),
                    order_columns: q.order_columns.clone(),
                    traversal: q.traversal.clone(),
                })
                .collect(),
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
            if (kind.compares_a_pair() || kind == crate::oracle::OracleKind::Crash) && !run.spent() {
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
        verified: &mut (Vec<Candidate>, Graph, Option<Shown>),
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
            if self.trial_once(run, queries_of(run.case, &state.group))?.is_some() {
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
        let queries = queries_of(run.case, &state.group);
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

    /// The reduced finding's signature by what it comes down to: a pair's
    /// difference by the part that differs, a crash by its clause.
    fn name(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        self.localize(state)?;
        self.null_operand(state, run)?;
        self.crash_site(state, run)
    }

    /// For different values or rows on a pair of engines: the first
    /// operator or function whose operand, made non-null
    /// (`coalesce(n.k, '')`), makes the engines agree. A wrong answer for a
    /// null operand surfaces in whatever reads it first (a CASE, a WHERE, a
    /// grouping key, a variable), so localization names each observer;
    /// keyed on the operation and the null operand's type, they are one
    /// report. Left as localized where no such operand is needed.
    fn null_operand(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        use crate::signature::Fault;
        let Some((case, _, finding)) = &state.best else { return Ok(()) };
        let [query] = case.queries.as_slice() else { return Ok(()) };
        let differs = matches!(finding.signature.fault, Fault::Culprit { .. } | Fault::Values { .. } | Fault::RowCount);
        // Rows grouped wrongly: a pinned key groups differently whatever the
        // bug, so a grouping culprit keeps its name.
        let grouping = matches!(&finding.signature.fault, Fault::Culprit { expression } if expression.starts_with("rows-after(grouping"));
        // A finding that shows only now and then also vanishes now and then:
        // a pinned operand's run would blame whatever it changed.
        let flaky = run.tries > 1 || state.replays.0 < state.replays.1;
        if !self.oracle.kind().compares_a_pair() || !differs || flaky || grouping || query.traversal.is_some() {
            return Ok(());
        }
        let schema = self.judge.schema;
        for target in 0.. {
            if run.spent() {
                return Ok(());
            }
            let mut pinned = query.ast.clone();
            let Some(Pinned { kind, operand, prefix }) = pin_null_operand(&mut pinned, target, schema) else {
                return Ok(());
            };
            let operand_text = operand.clone();
            // A property a write before it set or removed (through any
            // variable: the node written and the node read may be one under
            // two names): a read that saw the old value is the write's bug,
            // not the operation's.
            if matches!(&operand, Expr::Property(_, key) if Clause::any_nested(&prefix, &|c| writes_key(c, key))) {
                continue;
            }
            if result_types(&pinned, schema).is_err() || !self.agree_on(run, &prefix, operand)? {
                continue;
            }
            run.attempts += 1;
            let queries = vec![CaseQuery::new(&query.role, pinned, query.order_columns.clone())];
            let (_, outcomes, verdict) = self.judged(run, queries)?;
            let answered = outcomes.iter().flatten().all(|o| matches!(o, Outcome::Rows(_)));
            if answered && !matches!(verdict, Verdict::Finding(_)) {
                if let Some((_, _, finding)) = state.best.as_mut() {
                    finding.signature.fault = Fault::Culprit { expression: format!("null-operand:{kind}") };
                    finding.signature.shape = None;
                    let mut text = String::new();
                    graphlancer_cypher::render::expr_into(&mut text, &operand_text);
                    finding.summary = format!(
                        "{}; the engines agree once {text} is never NULL ({kind}): the operation mishandles a NULL operand",
                        finding.summary
                    );
                }
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether the pair of engines answer `prefix RETURN operand` alike (an
    /// operand computed differently is a culprit of its own, found by
    /// localization, not a null the operation around it mishandles) with a
    /// NULL on some row.
    fn agree_on(&mut self, run: &mut Run<'_>, prefix: &[Clause], operand: Expr) -> Result<bool, EngineError> {
        let probe = crate::localize::returning(prefix, vec![(operand, "x".into())]);
        let Some((a, b)) = self.pair(&run.family.engines) else { return Ok(false) };
        if result_types(&probe, self.judge.schema).is_err() {
            return Ok(false);
        }
        run.attempts += 1;
        let answers = outcomes(self.engines, &[CaseQuery::new("probe", probe, None)], self.exec)?;
        let Some(answers) = answers.first() else { return Ok(false) };
        // The operand must also be NULL somewhere: pinning a value that never
        // is changes only the plan, and a plan-dependent bug would take the
        // operation's name (gf24: a join Grafeo gets wrong).
        let null_somewhere =
            |r: &graphlancer_model::ResultSet| r.rows.iter().any(|row| row.first() == Some(&Value::Null));
        Ok(match (&answers[a], &answers[b]) {
            (Outcome::Rows(x), Outcome::Rows(y)) => !crate::localize::differs(x, y) && null_somewhere(x),
            _ => false,
        })
    }

    /// The positions among the engines of a pair finding's two engines.
    fn pair(&self, engines: &[String]) -> Option<(usize, usize)> {
        let index = |name: &String| self.judge.names.iter().position(|n| n == name);
        Some((index(engines.first()?)?, index(engines.get(1)?)?))
    }

    /// For a crash: the first clause after which the query, cut there and
    /// returning a constant, still crashes the engine (else the last). Its
    /// shape keys the signature, so clauses around it that the reducer
    /// could not remove do not split one crash into several reports.
    fn crash_site(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        use crate::signature::Fault;
        let Some((case, _, finding)) = &state.best else { return Ok(()) };
        let [query] = case.queries.as_slice() else { return Ok(()) };
        if finding.signature.fault != Fault::Crash || query.traversal.is_some() {
            return Ok(());
        }
        let [part] = query.ast.parts.as_slice() else { return Ok(()) };
        let clauses = part.clauses.clone();
        let constant = || vec![(Expr::lit(Value::Int(0)), "x".into())];
        let mut site = clauses.len().checked_sub(1);
        for end in 1..clauses.len() {
            if run.spent() {
                return Ok(());
            }
            let cut = crate::localize::returning(&clauses[..end], constant());
            if result_types(&cut, self.judge.schema).is_err() {
                continue;
            }
            run.attempts += 1;
            if self.trial(run, vec![CaseQuery::new(&query.role, cut, None)])?.is_some() {
                site = Some(end - 1);
                break;
            }
        }
        let Some(at) = site else { return Ok(()) };
        let mut clause = clauses[at].clone();
        // An OPTIONAL MATCH that crashes as a plain MATCH too crashes in
        // the matching both share: one name for both.
        let mut plain = clause.clone();
        if let Clause::Match { optional: optional @ true, .. } = &mut plain {
            *optional = false;
            let mut cut: Vec<Clause> = clauses[..at].to_vec();
            cut.push(plain.clone());
            let cut = crate::localize::returning(&cut, constant());
            if !run.spent() && result_types(&cut, self.judge.schema).is_ok() {
                run.attempts += 1;
                if self.trial(run, vec![CaseQuery::new(&query.role, cut, None)])?.is_some() {
                    clause = plain;
                }
            }
        }
        if let Some((_, _, finding)) = state.best.as_mut() {
            finding.signature.shape = Some(format!("at:{}", crash_site_name(&clause)));
        }
        Ok(())
    }

    /// For different values or numbers of rows on a pair of engines, the
    /// deepest sub-expression that differs on its own replaces the observed
    /// columns (or the constructs) in the signature ([`crate::localize`]).
    fn localize(&mut self, state: &mut State) -> Result<(), EngineError> {
        use crate::localize::Symptom;
        use crate::signature::Fault;
        let paired = self.oracle.kind().compares_a_pair();
        let Some((case, outcomes, finding)) = state.best.as_mut() else { return Ok(()) };
        let symptom = match &finding.signature.fault {
            Fault::Values { .. } => Symptom::Values,
            // One engine's row of nulls against the other's no row is a
            // difference of rows too, and the clause that made it names
            // it better than the aggregate that showed it.
            Fault::RowCount | Fault::NullForNothing => Symptom::RowCount,
            _ => return Ok(()),
        };
        if !paired {
            return Ok(());
        }
        let Some((a, b)) = self.pair(&finding.signature.engines) else { return Ok(()) };
        let (Some(query), Some(answers)) = (case.queries.first(), outcomes.first()) else { return Ok(()) };
        let culprit = crate::localize::localize(
            self.engines,
            self.exec,
            self.judge.schema,
            &query.ast,
            (&answers[a], &answers[b]),
            (a, b),
            symptom,
        )?;
        if let Some(c) = culprit {
            finding.signature.fault = Fault::Culprit { expression: c.kind };
            finding.signature.shape = None;
            finding.summary = format!("{}; the smallest part that differs: {}", finding.summary, c.text);
        }
        Ok(())
    }

    /// Query edits until none applies; with `coarse`, only whole parts,
    /// clauses and pattern parts.
    fn queries(&mut self, state: &mut State, run: &mut Run<'_>, coarse: bool) -> Result<(), EngineError> {
        if state.group[0].traversal.is_some() {
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
        if run.guards || run.tries > 1 || state.group[0].traversal.is_some() {
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
            for edit in edits(&state.group[0]).into_iter().filter(|e| allowed(e)) {
                if run.spent() {
                    return Ok(());
                }
                let Some(group) =
                    state.group.iter().map(|c| apply(&state.group[0], c, &edit)).collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                if self.admissible(&group) && self.attempt_against(state, run, group, answers)? {
                    continue 'improve;
                }
            }
            return Ok(());
        }
    }

    /// Runs `group` unless it ran before; keeps it when the finding holds.
    fn attempt(&mut self, state: &mut State, run: &mut Run<'_>, group: Vec<Candidate>) -> Result<bool, EngineError> {
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
        group: Vec<Candidate>,
        before: Option<&[Vec<Outcome>]>,
    ) -> Result<bool, EngineError> {
        let queries = queries_of(run.case, &group);
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
            let Some(current) = state.group[0].traversal.clone() else { return Ok(()) };
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
                let candidate = Candidate {
                    query: state.group[0].query.clone(),
                    order_columns: ordered.then(|| vec![0]),
                    traversal: Some(t),
                };
                if self.attempt(state, run, std::iter::once(candidate).chain(derived).collect())? {
                    continue 'improve;
                }
            }
            return Ok(());
        }
    }

    /// Delta debugging over the graph: nodes (with their relationships),
    /// relationships, properties, then extra labels.
    fn graph_of(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        let nodes: Vec<i64> = state.graph.nodes.iter().map(|n| n.id).collect();
        self.ddmin(nodes, state, run, keep_nodes)?;
        let rels: Vec<i64> = state.graph.relationships.iter().map(|r| r.id).collect();
        self.ddmin(rels, state, run, |g, keep| g.relationships.retain(|r| keep.contains(&r.id)))?;
        let props: Vec<(i64, String)> = state
            .graph
            .nodes
            .iter()
            .flat_map(|n| n.properties.keys().map(move |k| (n.id, k.clone())))
            .chain(state.graph.relationships.iter().flat_map(|r| r.properties.keys().map(move |k| (r.id, k.clone()))))
            .collect();
        self.ddmin(props, state, run, keep_properties)?;
        let labels: Vec<(i64, String)> = state
            .graph
            .nodes
            .iter()
            .filter(|n| n.labels.len() > 1)
            .flat_map(|n| n.labels.iter().map(move |l| (n.id, l.clone())))
            .collect();
        self.ddmin(labels.clone(), state, run, |g, keep| keep_labels(g, &labels, keep))
    }

    /// Takes out of the current graph as many of `items` as it can (ddmin:
    /// chunks removed, the chunk size halved when none can go) while the
    /// finding still shows; `keep` makes a graph that holds only the items
    /// given it. The graph kept is loaded in the engines when it returns.
    fn ddmin<T: Clone + Ord>(
        &mut self,
        items: Vec<T>,
        state: &mut State,
        run: &mut Run<'_>,
        keep: impl Fn(&mut Graph, &BTreeSet<T>),
    ) -> Result<(), EngineError> {
        let queries = queries_of(run.case, &state.group);
        let mut current = items;
        let mut chunks = 2usize;
        while !current.is_empty() && !run.spent() {
            let size = current.len().div_ceil(chunks);
            let mut removed_one = false;
            let mut start = 0;
            while start < current.len() && !run.spent() {
                let end = (start + size).min(current.len());
                let rest: BTreeSet<T> = current[..start].iter().chain(&current[end..]).cloned().collect();
                let mut g = state.graph.clone();
                keep(&mut g, &rest);
                run.attempts += 1;
                if self.load(&g).is_ok()
                    && let Some(found) = self.trial(run, queries.clone())?
                {
                    current.drain(start..end);
                    state.graph = g;
                    state.best = Some(found);
                    removed_one = true;
                } else {
                    start = end;
                }
            }
            if !removed_one {
                if size <= 1 {
                    break;
                }
                chunks = (chunks * 2).min(current.len());
            }
        }
        // The engines hold whatever graph was tried last: put back the kept one.
        self.load(&state.graph)
    }

    /// Variables renamed `n0, r0, p0, a0, ...` in order of appearance, one
    /// renaming for the whole group, kept when the finding holds.
    /// Whether a candidate group may be tried: every query types, and
    /// writes no key the dialect would ignore.
    fn admissible(&self, group: &[Candidate]) -> bool {
        // Where no answer is compared, as the crash preset generates them:
        // entities stay in scope after a DELETE.
        use crate::oracle::OracleKind;
        let rules = graphlancer_cypher::check::Rules {
            entities_after_delete: matches!(self.oracle.kind(), OracleKind::Crash | OracleKind::Error),
        };
        group.iter().all(|c| {
            graphlancer_cypher::check::result_types_with(&c.query, self.judge.schema, rules).is_ok()
                && (!self.set_keys_on_every_table || sets_keys_every_table_has(&c.query, self.judge.schema))
        })
    }

    fn rename(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        if state.group[0].traversal.is_some() {
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
        group: Vec<Candidate>,
    ) -> Result<(), EngineError> {
        if group == state.group || !self.admissible(&group) {
            return Ok(());
        }
        run.attempts += 1;
        if let Some(found) = self.trial(run, queries_of(run.case, &group))? {
            state.group = group;
            state.best = Some(found);
        }
        Ok(())
    }

    /// One edit of a lone query, kept when the finding holds: the last
    /// tidying of a reduced case ([`unaliased`], [`unnamed`]). Not of a
    /// group, whose other queries are derived from its source's names.
    fn tidy(&mut self, state: &mut State, run: &mut Run<'_>, edit: fn(&mut Query)) -> Result<(), EngineError> {
        if state.group.len() != 1 || state.group[0].traversal.is_some() || run.spent() {
            return Ok(());
        }
        let mut group = state.group.clone();
        group.iter_mut().for_each(|c| edit(&mut c.query));
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
        for _ in 1..run.tries {
            if let Some(found) = self.trial_once(run, queries.clone())? {
                return Ok(Some(found));
            }
        }
        self.trial_once(run, queries)
    }

    /// One run of `queries` on every engine, judged.
    fn trial_once(&mut self, run: &Run<'_>, queries: Vec<CaseQuery>) -> Result<Option<Shown>, EngineError> {
        let (trial, outcomes, verdict) = self.judged(run, queries)?;
        Ok(match verdict {
            Verdict::Finding(f) if f.signature.family() == run.family => Some((trial, outcomes, f)),
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
        let outcomes = outcomes(self.engines, &queries, self.exec)?;
        let trial = TestCase { relation: run.case.relation.clone(), queries, delta: run.case.delta };
        let verdict = self.oracle.judge(self.judge, &trial, &outcomes);
        Ok((trial, outcomes, verdict))
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
}

impl Run<'_> {
    fn spent(&self) -> bool {
        self.attempts >= self.limits.candidates
            || self.started.elapsed() >= self.limits.time
            || crate::interrupt::stopping()
    }
}

/// Every engine's outcome on each of `queries`, in order, under `exec`, on
/// the graph the engines hold.
pub fn outcomes(
    engines: &mut [Box<dyn Engine>],
    queries: &[CaseQuery],
    exec: &ExecOptions,
) -> Result<Vec<Vec<Outcome>>, EngineError> {
    queries
        .iter()
        .map(|q| {
            let exec = ExecOptions { language: q.language(), ..*exec };
            graphlancer_engines::on_each(engines, |e| e.execute_generated(&q.text_for(e), q.cypher_ast(), &exec))
                .into_iter()
                .collect()
        })
        .collect()
}

/// An operand made non-null by [`pin_null_operand`].
struct Pinned {
    /// The operation's kind and the operand's type, `op:+(null String)`.
    kind: String,
    /// The operand as it was.
    operand: Expr,
    /// The clauses whose rows the operand is evaluated over.
    prefix: Vec<Clause>,
}

/// Whether `clause` itself sets or removes property `key`.
fn writes_key(clause: &Clause, key: &str) -> bool {
    use graphlancer_cypher::ast::{RemoveItem, SetItem};
    let sets = |items: &[SetItem]| {
        items.iter().any(|i| match i {
            SetItem::Property(_, k, _) => k == key,
            SetItem::MergeMap(_, m) => m.iter().any(|(k, _)| k == key),
            // `v = {...}` removes every key it does not name.
            SetItem::ReplaceMap(..) => true,
            SetItem::Label(..) => false,
        })
    };
    match clause {
        Clause::Set { items } => sets(items),
        Clause::Merge { on_create, on_match, .. } => sets(on_create) || sets(on_match),
        Clause::Remove { items } => items.iter().any(|i| matches!(i, RemoveItem::Property(_, k) if k == key)),
        _ => false,
    }
}

/// Makes the `target`-th operand of an operator or function in `query`
/// non-null, `coalesce(x, v)` with `v` a value of the operand's type
/// (operations outermost first, so in `trim(n.k) + ''` the `+`'s operand
/// `trim(n.k)` comes before `n.k`); the operation's kind and the operand's
/// type (`op:+(null String)`), or none when there are not that many.
/// Literals are never pinned, nor what a write stores, nor an operand whose
/// type the checker cannot tell (a variable of a list comprehension).
fn pin_null_operand(query: &mut Query, target: usize, schema: &graphlancer_model::Schema) -> Option<Pinned> {
    use graphlancer_cypher::types::Ty;
    /// Counts operands in order, and pins the `target`-th.
    fn visit(
        e: &mut Expr,
        seen: &mut usize,
        target: usize,
        type_of: &dyn Fn(&Expr) -> Option<Ty>,
    ) -> Option<(String, Expr)> {
        let operation = matches!(e, Expr::Binary(..))
            || matches!(e, Expr::Function(name, _) if !name.eq_ignore_ascii_case("coalesce"));
        if operation {
            let kind = expr_kind(e, None);
            for child in e.children_mut() {
                if matches!(child, Expr::Literal(_)) {
                    continue;
                }
                let Some(ty) = type_of(child) else { continue };
                let value = match ty {
                    Ty::Int => Value::Int(0),
                    Ty::Float => Value::Float(0.0),
                    Ty::String => Value::String(String::new()),
                    Ty::Bool => Value::Bool(false),
                    _ => continue,
                };
                if *seen == target {
                    let operand = child.clone();
                    *child = Expr::Function("coalesce".into(), vec![operand.clone(), Expr::lit(value)]);
                    // Three-valued logic is one rule for every comparison
                    // and type: Kuzu 0.6.0's one NULL-mask bug showed
                    // through `<`, `>`, `=` and `<>` of four types.
                    let comparison = matches!(kind.as_str(), "op:=" | "op:<>" | "op:<" | "op:>" | "op:<=" | "op:>=");
                    let name = if comparison { "comparison(null)".to_owned() } else { format!("{kind}(null {ty:?})") };
                    return Some((name, operand));
                }
                *seen += 1;
            }
        }
        e.children_mut().into_iter().find_map(|child| visit(child, seen, target, type_of))
    }
    let mut seen = 0;
    for part in &mut query.parts {
        let before = part.clauses.clone();
        // A value a write stores or merges on, and a value that decides which
        // rows reach a write, decide what later clauses see: pinning it
        // would change what the query writes, not the operation's handling
        // of a null (a MERGE whose rows then created different
        // relationships hid Grafeo's MERGE bug behind an `=`; a WHERE that
        // then let a DELETE take more relationships hid a missed write).
        let last_write = before.iter().rposition(Clause::is_write);
        for (i, clause) in part.clauses.iter_mut().enumerate() {
            if last_write.is_some_and(|w| i <= w) {
                continue;
            }
            // The rows an expression of clause i sees: the clauses before
            // it, and a MATCH's own pattern for its WHERE.
            let mut prefix = before[..i].to_vec();
            let mut own = before[i].clone();
            if let Clause::Match { predicate, .. } = &mut own {
                *predicate = None;
                prefix.push(own);
            }
            let type_of = |x: &Expr| match x {
                Expr::Property(_, key) => schema.key_type(key).map(Ty::of_property),
                _ => result_types(&crate::localize::returning(&prefix, vec![(x.clone(), "x".into())]), schema)
                    .ok()
                    .and_then(|t| t.into_iter().next())
                    .flatten(),
            };
            for slot in slots(clause) {
                if let Some((kind, operand)) = visit(slot, &mut seen, target, &type_of) {
                    return Some(Pinned { kind, operand, prefix });
                }
            }
        }
    }
    None
}

/// A crash site's name: the clause's shape, where a projection is one
/// name whether it is a WITH or the final RETURN (an aggregate or DISTINCT
/// crashes alike in either); what else it does (DISTINCT, ORDER BY, paging,
/// a WHERE) stays.
fn crash_site_name(clause: &Clause) -> String {
    let shape = crate::constructs::clause_shape(clause);
    if !matches!(clause, Clause::With(_) | Clause::Return(_)) {
        return shape;
    }
    let rest = shape.split(',').filter(|c| !matches!(*c, "WITH" | "RETURN"));
    std::iter::once("projection").chain(rest).collect::<Vec<_>>().join(",")
}

fn queries_of(case: &TestCase, group: &[Candidate]) -> Vec<CaseQuery> {
    case.queries
        .iter()
        .zip(group)
        .map(|(q, c)| match &c.traversal {
            Some(t) => CaseQuery::gremlin(&q.role, t.clone(), c.order_columns.is_some()),
            None => CaseQuery::new(&q.role, c.query.clone(), c.order_columns.clone()),
        })
        .collect()
}

fn keep_nodes(g: &mut Graph, keep: &BTreeSet<i64>) {
    g.nodes.retain(|n| keep.contains(&n.id));
    g.relationships.retain(|r| keep.contains(&r.start) && keep.contains(&r.end));
}

fn keep_properties(g: &mut Graph, keep: &BTreeSet<(i64, String)>) {
    for n in &mut g.nodes {
        n.properties.retain(|k, _| keep.contains(&(n.id, k.clone())));
    }
    for r in &mut g.relationships {
        r.properties.retain(|k, _| keep.contains(&(r.id, k.clone())));
    }
}

/// Drops the labels of `all` not in `keep`, leaving every node one label.
fn keep_labels(g: &mut Graph, all: &[(i64, String)], keep: &BTreeSet<(i64, String)>) {
    for n in &mut g.nodes {
        let labels = n.labels.clone();
        n.labels.retain(|l| !all.contains(&(n.id, l.clone())) || keep.contains(&(n.id, l.clone())));
        if n.labels.is_empty() {
            n.labels = labels.into_iter().take(1).collect();
        }
    }
}

/// One way to make a query smaller.
#[derive(Debug, Clone, PartialEq)]
enum Edit {
    /// Keep only this UNION part.
    Part(usize),
    /// An edit of this UNION part as if it stood alone, the other parts
    /// kept: a difference that needs UNION's merging of rows needs every part.
    InPart(usize, Box<Edit>),
    /// This column removed from the RETURN of every UNION part at once:
    /// the parts must keep returning the same columns.
    UnionColumn(usize),
    /// The clauses before this index removed, together: a row source and
    /// what aggregates it often go only together.
    Prefix(usize),
    /// A change to the clause at this index, made where the derived query
    /// holds the same clause.
    Clause(usize, ClauseEdit),
    /// The sub-expression at `path` of expression slot `slot` of the clause
    /// at `clause` replaced by `with`, made where the derived query holds
    /// the same sub-expression there.
    Expr { clause: usize, slot: usize, path: Vec<usize>, with: Expr },
}

/// A change to one clause.
#[derive(Debug, Clone, PartialEq)]
enum ClauseEdit {
    /// The clause removed.
    Remove,
    /// Its WHERE removed.
    Predicate,
    /// This conjunct of a MATCH's guard removed.
    Guard(usize),
    /// This item of a WITH or RETURN removed.
    Item(usize),
    /// ORDER BY removed (where no SKIP or LIMIT depends on it).
    Order,
    /// SKIP and LIMIT removed.
    Paging,
    /// DISTINCT removed.
    Distinct,
    /// OPTIONAL MATCH made MATCH.
    Optional,
    /// This comma part of a pattern removed.
    Pattern(usize),
    /// The last hop of this pattern part removed.
    LastHop(usize),
    /// This hop of this pattern part made a single relationship.
    FixedLength(usize, usize),
    /// This undirected hop of this pattern part made outgoing.
    Directed(usize, usize),
    /// Node `node` (0 the start, k the end of hop k) of pattern part
    /// `part` without label `label`.
    Label { part: usize, node: usize, label: usize },
    /// Node `node` of pattern part `part` without property constraint `key`.
    Property { part: usize, node: usize, key: usize },
    /// Relationship `hop` of pattern part `part` without property `key`.
    RelProperty { part: usize, hop: usize, key: usize },
    /// Pattern part `part` without its path variable.
    PathName(usize),
    /// This item of a SET, or of a MERGE's ON CREATE then ON MATCH, removed.
    SetItem(usize),
    /// A `CALL { }` subquery of one part replaced by its body, its RETURN
    /// made `WITH *, ...` so what was in scope before stays in scope.
    Inline,
}

/// Whether `edit` drops a conjunct of a MATCH's guard.
fn is_guard_edit(edit: &Edit) -> bool {
    match edit {
        Edit::InPart(_, inner) => is_guard_edit(inner),
        Edit::Clause(_, ClauseEdit::Guard(_)) => true,
        _ => false,
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

/// The edits of a query, most promising first: whole parts and clauses,
/// then pieces of clauses, then sub-expressions, outer before inner.
fn edits(c: &Candidate) -> Vec<Edit> {
    let q = &c.query;
    if q.parts.len() > 1 {
        let mut out: Vec<Edit> = (0..q.parts.len()).map(Edit::Part).collect();
        if let Some(Clause::Return(r)) = q.parts[0].clauses.last() {
            out.extend((0..r.items.len()).map(Edit::UnionColumn));
        }
        for (i, part) in q.parts.iter().enumerate() {
            out.extend(edits(&alone(part)).into_iter().map(|e| Edit::InPart(i, Box::new(e))));
        }
        return out;
    }
    let Some(part) = q.parts.first() else { return Vec::new() };
    let n = part.clauses.len();
    // Clauses before the RETURN, last first: later clauses depend on earlier ones.
    let mut out: Vec<Edit> = (0..n.saturating_sub(1)).rev().map(|i| Edit::Clause(i, ClauseEdit::Remove)).collect();
    out.extend((2..n).map(Edit::Prefix));
    for (i, clause) in part.clauses.iter().enumerate() {
        out.extend(clause_edits(clause).into_iter().map(|e| Edit::Clause(i, e)));
        if let Clause::Match { guard: Some(g), .. } = clause {
            out.extend((0..g.conjuncts().len()).map(|k| Edit::Clause(i, ClauseEdit::Guard(k))));
        }
    }
    for (i, clause) in part.clauses.iter().enumerate() {
        let mut copy = clause.clone();
        for (slot, e) in slots(&mut copy).into_iter().enumerate() {
            for path in e.paths() {
                let sub = e.at_mut(&path).expect("a path of this expression").clone();
                for with in replacements(&sub) {
                    out.push(Edit::Expr { clause: i, slot, path: path.clone(), with });
                }
            }
        }
    }
    out
}

fn clause_edits(clause: &Clause) -> Vec<ClauseEdit> {
    let mut out = Vec::new();
    match clause {
        Clause::Match { optional, patterns, predicate, .. } => {
            if predicate.is_some() {
                out.push(ClauseEdit::Predicate);
            }
            if *optional {
                out.push(ClauseEdit::Optional);
            }
            if patterns.len() > 1 {
                out.extend((0..patterns.len()).map(ClauseEdit::Pattern));
            }
            out.extend(pattern_edits(patterns));
        }
        Clause::With(p) | Clause::Return(p) => {
            if p.predicate.is_some() {
                out.push(ClauseEdit::Predicate);
            }
            if p.skip.is_some() || p.limit.is_some() {
                out.push(ClauseEdit::Paging);
            } else if !p.order_by.is_empty() {
                out.push(ClauseEdit::Order);
            }
            if p.distinct {
                out.push(ClauseEdit::Distinct);
            }
            if p.items.len() > 1 {
                for (j, (_, alias)) in p.items.iter().enumerate() {
                    // An ORDER BY key stays: the order is part of what is compared.
                    if !p.order_by.iter().any(|(e, _)| mentions(e, alias)) {
                        out.push(ClauseEdit::Item(j));
                    }
                }
            }
        }
        Clause::Create { patterns } => {
            if patterns.len() > 1 {
                out.extend((0..patterns.len()).map(ClauseEdit::Pattern));
            }
            out.extend(pattern_edits(patterns).into_iter().filter(keeps_shape));
        }
        Clause::Merge { pattern, on_create, on_match } => {
            out.extend((0..on_create.len() + on_match.len()).map(ClauseEdit::SetItem));
            out.extend(pattern_edits(std::slice::from_ref(pattern)).into_iter().filter(keeps_shape));
        }
        Clause::Set { items } if items.len() > 1 => out.extend((0..items.len()).map(ClauseEdit::SetItem)),
        Clause::Call { union_all, .. } if union_all.is_empty() => out.push(ClauseEdit::Inline),
        _ => {}
    }
    out
}

/// The clauses a `CALL { body }` of one part is replaced by: the body, its
/// RETURN made `WITH *, items` (FalkorDB's F-XORPAT crash was filed once
/// inside CALL { } and once outside, as two clause shapes).
fn inline_call(c: &Clause) -> Option<Vec<Clause>> {
    let Clause::Call { body, union_all, .. } = c else { return None };
    if !union_all.is_empty() {
        return None;
    }
    let mut clauses = body.clauses.clone();
    match clauses.last_mut() {
        Some(last @ Clause::Return(_)) => {
            let Clause::Return(mut p) = last.clone() else { return None };
            p.star = true;
            *last = Clause::With(p);
        }
        _ => return None,
    }
    Some(clauses)
}

fn pattern_edits(patterns: &[PathPattern]) -> Vec<ClauseEdit> {
    let mut out = Vec::new();
    for (part, p) in patterns.iter().enumerate() {
        if !p.hops.is_empty() {
            out.push(ClauseEdit::LastHop(part));
        }
        if p.name.is_some() {
            out.push(ClauseEdit::PathName(part));
        }
        for (hop, (r, _)) in p.hops.iter().enumerate() {
            out.extend((0..r.properties.len()).map(|key| ClauseEdit::RelProperty { part, hop, key }));
        }
        for (h, (r, _)) in p.hops.iter().enumerate() {
            if r.length.is_some() {
                out.push(ClauseEdit::FixedLength(part, h));
            }
            if r.direction == Direction::Both {
                out.push(ClauseEdit::Directed(part, h));
            }
        }
        let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
        for (node, n) in nodes.enumerate() {
            out.extend((0..n.labels.len()).map(|label| ClauseEdit::Label { part, node, label }));
            out.extend((0..n.properties.len()).map(|key| ClauseEdit::Property { part, node, key }));
        }
    }
    out
}

/// Whether a pattern edit leaves the pattern's shape (a write's pattern
/// keeps its hops: CREATE and MERGE are edited in their maps and labels).
fn keeps_shape(e: &ClauseEdit) -> bool {
    matches!(e, ClauseEdit::Property { .. } | ClauseEdit::RelProperty { .. } | ClauseEdit::Label { .. })
}

/// Whether `e` reads the variable `v`.
fn mentions(e: &Expr, v: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Variable(n) if n == v));
    found
}

/// The expressions of a clause the reducer may change, in a fixed order.
/// A projection with SKIP or LIMIT keeps its items and keys: with fewer
/// distinct keys, which rows survive the cut would be up to the engine.
/// Guards are never changed: they are what makes the answer the same on
/// every engine.
fn slots(c: &mut Clause) -> Vec<&mut Expr> {
    match c {
        Clause::Match { patterns, predicate, .. } => {
            let mut out: Vec<&mut Expr> = predicate.iter_mut().collect();
            out.extend(patterns.iter_mut().flat_map(pattern_slots));
            out
        }
        Clause::Unwind { list, .. } => vec![list],
        Clause::Procedure { predicate, .. } => predicate.iter_mut().collect(),
        Clause::With(p) | Clause::Return(p) => projection_slots(p),
        Clause::Create { patterns } => patterns.iter_mut().flat_map(pattern_slots).collect(),
        Clause::Merge { pattern, on_create, on_match } => {
            let mut out = pattern_slots(pattern);
            out.extend(on_create.iter_mut().chain(on_match.iter_mut()).flat_map(set_slots));
            out
        }
        Clause::Set { items } => items.iter_mut().flat_map(set_slots).collect(),
        Clause::Foreach { list, .. } => vec![list],
        Clause::Remove { .. } | Clause::Delete { .. } | Clause::Call { .. } => Vec::new(),
    }
}

fn projection_slots(p: &mut Projection) -> Vec<&mut Expr> {
    if p.skip.is_some() || p.limit.is_some() {
        return p.predicate.iter_mut().collect();
    }
    let mut out: Vec<&mut Expr> = p.items.iter_mut().map(|(e, _)| e).collect();
    out.extend(p.predicate.iter_mut());
    out.extend(p.order_by.iter_mut().map(|(e, _)| e));
    out
}

fn pattern_slots(p: &mut PathPattern) -> Vec<&mut Expr> {
    let mut out: Vec<&mut Expr> = p.start.properties.iter_mut().map(|(_, e)| e).collect();
    for (r, n) in &mut p.hops {
        out.extend(r.properties.iter_mut().map(|(_, e)| e));
        out.extend(n.properties.iter_mut().map(|(_, e)| e));
    }
    out
}

fn set_slots(item: &mut graphlancer_cypher::ast::SetItem) -> Vec<&mut Expr> {
    use graphlancer_cypher::ast::SetItem;
    match item {
        SetItem::Property(_, _, e) => vec![e],
        SetItem::MergeMap(_, entries) | SetItem::ReplaceMap(_, entries) => entries.iter_mut().map(|(_, e)| e).collect(),
        SetItem::Label(..) => Vec::new(),
    }
}

/// What an expression may be replaced by: each of its children, then small
/// literals (the checker keeps those of the right type). A child holding
/// `collect` is left out: its list order is the engine's choice, which the
/// expression around it did not show; so is a bare `shortestPath()`, which
/// of several shortest paths being the engine's choice.
fn replacements(e: &Expr) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    let mut copy = e.clone();
    for child in copy.children_mut() {
        let mut collects = matches!(child, Expr::ShortestPath(_));
        child.walk(&mut |x| collects |= matches!(x, Expr::Aggregate { name, .. } if name == "collect"));
        if !collects {
            out.push(child.clone());
        }
    }
    if e.has_aggregate() {
        // An aggregate made a literal changes what is grouped: kept whole.
        return out;
    }
    if let Expr::List(items) = e
        && items.len() > 1
    {
        // One element fewer: a list is reduced element by element.
        out.extend((0..items.len()).map(|i| {
            let mut fewer = items.clone();
            fewer.remove(i);
            Expr::List(fewer)
        }));
    }
    // Small literals in a fixed order of preference: a literal is tried only
    // against those before it, so replacements never go round in a circle.
    let small = [
        Value::Int(0),
        Value::Bool(true),
        Value::Bool(false),
        Value::String(String::new()),
        Value::Float(0.0),
        Value::List(Vec::new()),
        Value::Null,
    ];
    let rank = match e {
        Expr::Literal(v) => small.iter().position(|s| s == v).unwrap_or(small.len()),
        _ => small.len(),
    };
    out.extend(small.into_iter().take(rank).map(Expr::Literal));
    out
}

/// `edit`, made on `source`, made on `target` (the source itself or a query
/// derived from it): at the clause of `target` that corresponds to the
/// source's, where the place the edit changes must be unchanged. A derived
/// query has the source's clauses, some of them rewritten, and perhaps one
/// clause inserted.
fn apply(source: &Candidate, target: &Candidate, edit: &Edit) -> Option<Candidate> {
    let (s, t) = (&source.query, &target.query);
    if let Edit::Part(i) = edit {
        return (s == t).then(|| Candidate {
            query: Query { parts: vec![s.parts[*i].clone()], union_all: false, spelling: s.spelling },
            order_columns: None,
            traversal: None,
        });
    }
    if let Edit::UnionColumn(j) = edit {
        if s != t {
            return None;
        }
        let mut parts = s.parts.clone();
        for part in &mut parts {
            match part.clauses.last_mut() {
                Some(Clause::Return(r)) if r.items.len() > 1 && *j < r.items.len() => {
                    r.items.remove(*j);
                }
                _ => return None,
            }
        }
        return Some(Candidate {
            query: Query { parts, union_all: s.union_all, spelling: s.spelling },
            order_columns: None,
            traversal: None,
        });
    }
    if let Edit::InPart(i, inner) = edit {
        if s != t {
            return None;
        }
        let alone = alone(s.parts.get(*i)?);
        let edited = apply(&alone, &alone, inner)?;
        let [part] = <[SingleQuery; 1]>::try_from(edited.query.parts).ok()?;
        let mut parts = s.parts.clone();
        parts[*i] = part;
        return Some(Candidate {
            query: Query { parts, union_all: s.union_all, spelling: s.spelling },
            order_columns: target.order_columns.clone(),
            traversal: None,
        });
    }
    let ([sp], [tp]) = (s.parts.as_slice(), t.parts.as_slice()) else { return None };
    let (sc, tc) = (&sp.clauses, &tp.clauses);
    // Where the target inserted a clause, if it did.
    let inserted = match tc.len().checked_sub(sc.len())? {
        0 => None,
        1 => Some((0..sc.len()).find(|&k| tc[k] != sc[k] && tc[k + 1..] == sc[k..]).unwrap_or(sc.len())),
        _ => return None,
    };
    let at = |i: usize| match inserted {
        Some(k) if i >= k => i + 1,
        _ => i,
    };
    let mut clauses = tc.clone();
    match edit {
        Edit::Part(_) | Edit::InPart(..) | Edit::UnionColumn(_) => unreachable!("handled above"),
        Edit::Prefix(i) => {
            if inserted.is_some_and(|k| k < *i) || tc.get(..*i)? != sc.get(..*i)? {
                return None;
            }
            clauses.drain(..*i);
        }
        Edit::Clause(i, change) => {
            if tc.get(at(*i))? != sc.get(*i)? {
                return None;
            }
            if *change == ClauseEdit::Remove {
                clauses.remove(at(*i));
            } else if *change == ClauseEdit::Inline {
                let body = inline_call(&clauses[at(*i)])?;
                clauses.splice(at(*i)..=at(*i), body);
            } else {
                edit_clause(&mut clauses[at(*i)], change)?;
            }
        }
        Edit::Expr { clause, slot, path, with } => {
            let mut own = sc.get(*clause)?.clone();
            let before = slots(&mut own).into_iter().nth(*slot)?.at_mut(path)?.clone();
            let there = slots(clauses.get_mut(at(*clause))?).into_iter().nth(*slot)?.at_mut(path)?;
            if *there != before {
                return None;
            }
            *there = with.clone();
        }
    }
    let mut order_columns = target.order_columns.clone();
    if clauses.last() != tc.last()
        && let Some(Clause::Return(r)) = clauses.last()
    {
        order_columns = order_of(r);
    }
    Some(Candidate {
        query: Query { parts: vec![SingleQuery { clauses }], union_all: t.union_all, spelling: t.spelling },
        order_columns,
        traversal: None,
    })
}

/// A UNION part as a query of its own.
fn alone(part: &SingleQuery) -> Candidate {
    Candidate {
        query: Query { parts: vec![part.clone()], union_all: false, spelling: Default::default() },
        order_columns: None,
        traversal: None,
    }
}

/// Makes `change` to `c`; `None` where it does not apply.
fn edit_clause(c: &mut Clause, change: &ClauseEdit) -> Option<()> {
    let before = match_variables(c);
    match (&mut *c, change) {
        (_, ClauseEdit::Remove) => return None,
        (Clause::Match { predicate, .. }, ClauseEdit::Predicate) => *predicate = None,
        (Clause::Match { guard, .. }, ClauseEdit::Guard(k)) => {
            let mut parts: Vec<Expr> = guard.as_ref()?.conjuncts().into_iter().cloned().collect();
            if *k >= parts.len() {
                return None;
            }
            parts.remove(*k);
            *guard = Expr::and_all(parts);
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Predicate) => p.predicate = None,
        (Clause::Match { optional, .. }, ClauseEdit::Optional) => *optional = false,
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Item(j)) => {
            if *j >= p.items.len() {
                return None;
            }
            p.items.remove(*j);
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Order) => p.order_by.clear(),
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Paging) => {
            p.skip = None;
            p.limit = None;
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Distinct) => p.distinct = false,
        (Clause::Set { items }, ClauseEdit::SetItem(k)) => {
            if *k >= items.len() || items.len() < 2 {
                return None;
            }
            items.remove(*k);
        }
        (Clause::Merge { on_create, on_match, .. }, ClauseEdit::SetItem(k)) => {
            if *k < on_create.len() {
                on_create.remove(*k);
            } else if *k - on_create.len() < on_match.len() {
                on_match.remove(*k - on_create.len());
            } else {
                return None;
            }
        }
        (Clause::Match { patterns, .. } | Clause::Create { patterns }, ClauseEdit::Pattern(j)) => {
            if *j >= patterns.len() || patterns.len() < 2 {
                return None;
            }
            patterns.remove(*j);
        }
        (c, change) => {
            let patterns: &mut [PathPattern] = match c {
                Clause::Match { patterns, .. } | Clause::Create { patterns } => patterns,
                Clause::Merge { pattern, .. } => std::slice::from_mut(pattern),
                _ => return None,
            };
            match *change {
                ClauseEdit::LastHop(j) => {
                    patterns.get_mut(j)?.hops.pop()?;
                }
                ClauseEdit::FixedLength(j, h) => patterns.get_mut(j)?.hops.get_mut(h)?.0.length = None,
                ClauseEdit::Directed(j, h) => {
                    let r = &mut patterns.get_mut(j)?.hops.get_mut(h)?.0;
                    if r.direction != Direction::Both {
                        return None;
                    }
                    r.direction = Direction::Out;
                }
                ClauseEdit::Label { part, node, label } => {
                    let n = node_of(patterns.get_mut(part)?, node)?;
                    if label >= n.labels.len() {
                        return None;
                    }
                    n.labels.remove(label);
                }
                ClauseEdit::Property { part, node, key } => {
                    let n = node_of(patterns.get_mut(part)?, node)?;
                    if key >= n.properties.len() {
                        return None;
                    }
                    n.properties.remove(key);
                }
                ClauseEdit::RelProperty { part, hop, key } => {
                    let r = &mut patterns.get_mut(part)?.hops.get_mut(hop)?.0;
                    if key >= r.properties.len() {
                        return None;
                    }
                    r.properties.remove(key);
                }
                ClauseEdit::PathName(part) => patterns.get_mut(part)?.name = None,
                _ => return None,
            }
        }
    }
    // A guard conjunct about a relationship no longer matched goes with it.
    let after = match_variables(c);
    if let Clause::Match { guard, .. } = c
        && after != before
        && let Some(g) = guard.take()
    {
        let gone: Vec<&String> = before.difference(&after).collect();
        *guard = Expr::and_all(g.conjuncts().into_iter().filter(|e| !gone.iter().any(|v| mentions(e, v))).cloned());
    }
    Some(())
}

/// The variables a MATCH's patterns bind (empty for other clauses).
fn match_variables(c: &Clause) -> BTreeSet<String> {
    match c {
        Clause::Match { patterns, .. } => patterns.iter().flat_map(PathPattern::variables).cloned().collect(),
        _ => BTreeSet::new(),
    }
}

fn node_of(p: &mut PathPattern, node: usize) -> Option<&mut graphlancer_cypher::ast::NodePattern> {
    if node == 0 { Some(&mut p.start) } else { p.hops.get_mut(node - 1).map(|(_, n)| n) }
}

/// The group with its variables renamed in the order they first appear
/// in the source's text: `n` for nodes, `r` for relationships, `p` for
/// paths, `a` for the rest. One renaming for every query, onto names the
/// other queries do not add.
fn renamed(group: &[Candidate]) -> Option<Vec<Candidate>> {
    use std::collections::BTreeMap;
    let trees: Vec<serde_json::Value> =
        group.iter().map(|c| serde_json::to_value(&c.query).ok()).collect::<Option<_>>()?;
    let mut kinds: BTreeMap<String, char> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (i, t) in trees.iter().enumerate() {
        let mut found = Vec::new();
        bound_names(t, None, &mut found);
        for (name, kind) in found {
            taken.insert(name.clone());
            if i == 0 {
                kinds.entry(name).or_insert(kind);
            }
        }
    }
    // Every name of the source is renamed at once, so only the names the
    // other queries add are in the way.
    taken.retain(|n| !kinds.contains_key(n));
    let text = graphlancer_cypher::render(&group[0].query);
    let mut order: Vec<(usize, String)> =
        kinds.keys().map(|n| (first_word(&text, n).unwrap_or(usize::MAX), n.clone())).collect();
    order.sort();
    let mut map = BTreeMap::new();
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for (_, name) in order {
        let next = counts.entry(kinds[&name]).or_insert(0);
        let new = loop {
            let candidate = format!("{}{next}", kinds[&name]);
            *next += 1;
            if !taken.contains(&candidate) {
                break candidate;
            }
        };
        map.insert(name, new);
    }
    group
        .iter()
        .zip(trees)
        .map(|(c, mut t)| {
            rename_tree(&mut t, &map);
            Some(Candidate {
                query: serde_json::from_value(t).ok()?,
                order_columns: c.order_columns.clone(),
                traversal: None,
            })
        })
        .collect()
}

/// The query without the names of pattern variables (nodes, relationships,
/// paths) it never uses again: `MATCH ()-[r0:T0]->()` for `MATCH
/// (n0)-[r0:T0]->(n1)` where only `r0` is read.
fn unnamed(q: &mut Query) {
    // `*` projects every name in scope: each one is used there.
    let star = |c: &Clause| matches!(c, Clause::With(p) | Clause::Return(p) if p.star);
    if q.parts.iter().any(|p| Clause::any_nested(&p.clauses, &star)) {
        return;
    }
    let text = graphlancer_cypher::render(q);
    let once = |v: &Option<String>| v.as_deref().is_some_and(|v| occurrences(&text, v) == 1);
    let unname = |p: &mut graphlancer_cypher::ast::PathPattern| {
        for v in std::iter::once(&mut p.name)
            .chain(std::iter::once(&mut p.start.variable))
            .chain(p.hops.iter_mut().flat_map(|(r, n)| [&mut r.variable, &mut n.variable]))
        {
            if once(v) {
                *v = None;
            }
        }
    };
    for part in &mut q.parts {
        for c in &mut part.clauses {
            match c {
                Clause::Match { patterns, .. } | Clause::Create { patterns } => patterns.iter_mut().for_each(unname),
                Clause::Merge { pattern, .. } => unname(pattern),
                _ => {}
            }
        }
    }
}

/// How often `word` stands alone in `text`.
fn occurrences(text: &str, word: &str) -> usize {
    standalone(text, word).count()
}

/// The query with its final RETURN's computed columns aliased by their own
/// text, which renders them without `AS`. Not across UNION, whose parts
/// must name their columns alike, nor where ORDER BY names the alias or
/// two columns would share a name.
fn unaliased(q: &mut Query) {
    let spelling = q.spelling;
    let [part] = q.parts.as_mut_slice() else { return };
    let Some(Clause::Return(p)) = part.clauses.last_mut() else { return };
    let text = |e: &Expr| graphlancer_cypher::render::expr_spelled(e, spelling);
    let keys: Vec<String> = p.order_by.iter().map(|(o, _)| text(o)).collect();
    for i in 0..p.items.len() {
        let (e, alias) = &p.items[i];
        let own = text(e);
        let ordered_by = keys.iter().any(|k| first_word(k, alias).is_some());
        if matches!(e, Expr::Variable(_)) || ordered_by || p.items.iter().any(|(_, a)| *a == own) {
            continue;
        }
        p.items[i].1 = own;
    }
}

/// Where `word` first stands alone in `text`.
fn first_word(text: &str, word: &str) -> Option<usize> {
    standalone(text, word).next()
}

/// Where `word` stands alone in `text`: not part of a longer name.
fn standalone<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).map(|(at, _)| at).filter(move |&at| {
        !text[..at].chars().next_back().is_some_and(ident) && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The names a serialized AST binds, with the letter their kind gets:
/// node, relationship and path pattern variables; projection aliases;
/// UNWIND, comprehension, quantifier, FOREACH and reduce variables.
fn bound_names(v: &serde_json::Value, parent: Option<&str>, out: &mut Vec<(String, char)>) {
    use serde_json::Value as J;
    match v {
        J::Object(m) => {
            let name = |k: &str| m.get(k).and_then(J::as_str).map(str::to_owned);
            if let Some(n) = name("variable") {
                let kind = if m.contains_key("labels") {
                    'n'
                } else if m.contains_key("types") {
                    'r'
                } else {
                    'a'
                };
                out.push((n, kind));
            }
            if m.contains_key("start")
                && let Some(n) = name("name")
            {
                out.push((n, 'p'));
            }
            for k in ["alias", "accumulator"] {
                if let Some(n) = name(k) {
                    out.push((n, 'a'));
                }
            }
            for (k, x) in m {
                // A literal holds data, never a name.
                if k != "Literal" {
                    bound_names(x, Some(k), out);
                }
            }
        }
        J::Array(items) => {
            for x in items {
                // A projection item is `[expression, alias]`.
                if parent == Some("items")
                    && let Some([e, J::String(alias)]) = x.as_array().map(Vec::as_slice)
                {
                    out.push((alias.clone(), 'a'));
                    bound_names(e, None, out);
                    continue;
                }
                bound_names(x, None, out);
            }
        }
        _ => {}
    }
}

/// Every string of the tree that is a renamed name takes its new name, but
/// for literals: generated variable names (`n17`, `a6`) are never labels,
/// types, keys or function names.
fn rename_tree(v: &mut serde_json::Value, map: &std::collections::BTreeMap<String, String>) {
    use serde_json::Value as J;
    match v {
        J::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k != "Literal" {
                    rename_tree(x, map);
                }
            }
        }
        J::Array(items) => items.iter_mut().for_each(|x| rename_tree(x, map)),
        J::String(s) => {
            if let Some(new) = map.get(s.as_str()) {
                *s = new.clone();
            }
        }
        _ => {}
    }
}

/// The result columns a projection's ORDER BY fixes.
fn order_of(p: &graphlancer_cypher::ast::Projection) -> Option<Vec<usize>> {
    (!p.order_by.is_empty()).then(|| {
        p.order_by
            .iter()
            .filter_map(|(e, _)| match e {
                Expr::Variable(v) => p.items.iter().position(|(_, a)| a == v),
                _ => None,
            })
            .collect()
    })
}

/// What computes each result column, e.g. `fn:startNode`, `agg:max`,
/// `var:Rel`; names the differing columns in a signature.
pub fn column_kinds(query: &Query, types: &[Option<graphlancer_cypher::types::Ty>]) -> Vec<String> {
    let Some(Clause::Return(p)) = query.parts.first().and_then(|p| p.clauses.last()) else { return Vec::new() };
    p.items.iter().enumerate().map(|(i, (e, _))| expr_kind(e, types.get(i).and_then(Option::as_ref))).collect()
}

/// What computes an expression's value, e.g. `fn:startNode`, `agg:max`,
/// `var:Rel` (a variable's type, when known, is its kind).
pub fn expr_kind(e: &Expr, ty: Option<&graphlancer_cypher::types::Ty>) -> String {
    match e {
        Expr::Variable(_) => match ty {
            Some(t) => format!("var:{t:?}"),
            None => "var:?".into(),
        },
        Expr::Property(..) => "property".into(),
        Expr::Function(name, _) => format!("fn:{name}"),
        Expr::Aggregate { name, .. } => format!("agg:{name}"),
        Expr::Binary(op, ..) => format!("op:{}", op.text()),
        Expr::Literal(_) => "literal".into(),
        Expr::Not(_) => "not".into(),
        Expr::IsNull { .. } => "isnull".into(),
        Expr::Quantified { .. } => "quantified".into(),
        Expr::ExistsSubquery(..) => "existssubquery".into(),
        Expr::PatternPredicate(_) => "patternpredicate".into(),
        Expr::ShortestPath(_) => "shortestpath".into(),
        Expr::HasLabels(..) => "haslabels".into(),
        Expr::Negate(_) => "negate".into(),
        Expr::Case { .. } => "case".into(),
        Expr::List(_) => "list".into(),
        Expr::ListComprehension { .. } => "listcomprehension".into(),
        Expr::PatternComprehension { .. } => "patterncomprehension".into(),
        Expr::Index(..) => "index".into(),
        Expr::Slice(..) => "slice".into(),
        Expr::Reduce { .. } => "reduce".into(),
        Expr::Map(_) => "map".into(),
        Expr::MapProjection(..) => "mapprojection".into(),
        Expr::MapProjectionWith { .. } => "mapprojectionwith".into(),
    }
}

/// The query's clause sequence, e.g. `MATCH,WITH,RETURN`.
pub fn shape(query: &Query) -> String {
    let names: Vec<&str> = query
        .parts
        .iter()
        .flat_map(|p| &p.clauses)
        // Signatures on disk name both CALLs alike.
        .map(|c| match c {
            Clause::Call { .. } | Clause::Procedure { .. } => "CALL",
            c => c.keyword(),
        })
        .collect();
    names.join(",")
}

/// Whether every `SET v.k` of `query` (and of its MERGE actions) writes a
/// key that each table `v` may be in has: where an engine ignores the
/// others (Kuzu's fixed tables), a reduction that drops a label from `v`'s
/// pattern would otherwise turn a real finding into that by-design
/// difference.
pub fn sets_keys_every_table_has(query: &Query, schema: &graphlancer_model::Schema) -> bool {
    use graphlancer_cypher::ast::SetItem;
    let mut tags: BTreeMap<&str, (bool, &[String])> = BTreeMap::new();
    let mut ok = true;
    for clause in query.parts.iter().flat_map(|p| &p.clauses) {
        let (patterns, items): (Vec<&PathPattern>, Vec<&SetItem>) = match clause {
            Clause::Match { patterns, .. } | Clause::Create { patterns } => (patterns.iter().collect(), Vec::new()),
            Clause::Merge { pattern, on_create, on_match } => {
                (vec![pattern], on_create.iter().chain(on_match).collect())
            }
            Clause::Set { items } => (Vec::new(), items.iter().collect()),
            _ => (Vec::new(), Vec::new()),
        };
        for p in patterns {
            for n in std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n)) {
                if let Some(v) = &n.variable {
                    tags.entry(v.as_str()).or_insert((false, n.labels.as_slice()));
                }
            }
            for (r, _) in &p.hops {
                if let Some(v) = &r.variable {
                    tags.entry(v.as_str()).or_insert((true, r.types.as_slice()));
                }
            }
        }
        for item in items {
            let SetItem::Property(var, key, _) = item else { continue };
            let Some(&(rel, names)) = tags.get(var.as_str()) else { continue };
            let has = |name: &str, keys: &[String]| {
                (names.is_empty() || names.iter().any(|n| n == name)) && !keys.contains(key)
            };
            let lacking = if rel {
                schema.rel_types.iter().any(|t| has(&t.name, &t.keys))
            } else {
                schema.labels.iter().any(|l| has(&l.name, &l.keys))
            };
            ok &= !lacking;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use graphlancer_cypher::ast::{BinOp, Direction, NodePattern, Projection, RelPattern};

    use super::*;

    fn node(v: &str) -> NodePattern {
        NodePattern { variable: Some(v.into()), labels: Vec::new(), properties: Vec::new() }
    }

    fn hop(r: &str, n: &str) -> (RelPattern, NodePattern) {
        let rel = RelPattern {
            variable: Some(r.into()),
            types: Vec::new(),
            direction: Direction::Out,
            length: None,
            properties: Vec::new(),
        };
        (rel, node(n))
    }

    /// `MATCH (a)-[r0]->(b), (b)-[r1]->(c)-[r2]->(d) WHERE r0 <> r1 AND r0 <> r2 AND r1 <> r2 RETURN a`.
    fn guarded() -> Candidate {
        let ne = |a: &str, b: &str| Expr::binary(BinOp::Ne, Expr::var(a), Expr::var(b));
        let patterns = vec![
            PathPattern { name: None, start: node("a"), hops: vec![hop("r0", "b")] },
            PathPattern { name: None, start: node("b"), hops: vec![hop("r1", "c"), hop("r2", "d")] },
        ];
        let guard = Expr::and_all(vec![ne("r0", "r1"), ne("r0", "r2"), ne("r1", "r2")]);
        let clauses = vec![
            Clause::Match { optional: false, patterns, guard, predicate: None },
            Clause::Return(Projection::of(vec![(Expr::var("a"), "a".into())])),
        ];
        Candidate {
            query: Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            order_columns: None,
            traversal: None,
        }
    }

    /// `text` parsed, edited by `edit` and written again.
    fn edited(text: &str, edit: fn(&mut Query)) -> String {
        let mut q = graphlancer_cypher::parse::parse(text).expect("parses");
        edit(&mut q);
        graphlancer_cypher::render(&q)
    }

    #[test]
    fn computed_return_columns_lose_their_aliases_where_nothing_names_them() {
        let unalias = |text: &str| edited(text, unaliased);
        assert_eq!(
            unalias("MATCH (n) RETURN n AS n, count(*) AS a0, n.k AS a1, 0 AS a2 ORDER BY a1"),
            "MATCH (n) RETURN n, count(*), n.k AS a1, 0 ORDER BY a1"
        );
        // Two columns of one text would share a name; a UNION's parts must name theirs alike.
        assert_eq!(unalias("RETURN 0 AS a0, 0 AS a1"), "RETURN 0, 0 AS a1");
        assert_eq!(unalias("RETURN 0 AS a0 UNION RETURN 1 AS a0"), "RETURN 0 AS a0 UNION RETURN 1 AS a0");
        // A WITH's aliases are names later clauses use.
        assert_eq!(unalias("WITH 1 AS a0 RETURN a0 + 1 AS a1"), "WITH 1 AS a0 RETURN a0 + 1");
    }

    #[test]
    fn pattern_variables_used_nowhere_else_lose_their_names() {
        let unname = |text: &str| edited(text, unnamed);
        assert_eq!(
            unname("MATCH (n0)-[r0:T0]->(n1), (n1)-[r1]->(n2) SET r0.k = 1 RETURN n2"),
            "MATCH ()-[r0:T0]->(n1), (n1)-[]->(n2) SET r0.k = 1 RETURN n2"
        );
        assert_eq!(unname("MATCH p0 = (n0)-[:T0]->(n1) RETURN n0"), "MATCH (n0)-[:T0]->() RETURN n0");
        assert_eq!(unname("MATCH (n0) WHERE n0.k > 1 RETURN 0"), "MATCH (n0) WHERE n0.k > 1 RETURN 0");
        // `WITH *` groups by every name in scope, however it is spelled.
        let mut all =
            graphlancer_cypher::parse::parse("MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0").expect("parses");
        all.spelling.return_all = true;
        let before = graphlancer_cypher::render(&all);
        assert!(before.contains("WITH ALL *"), "{before}");
        unnamed(&mut all);
        assert_eq!(graphlancer_cypher::render(&all), before);
        assert_eq!(
            unname("MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0"),
            "MATCH (n0)-[r0]->(n1) WITH *, count(*) AS a0 RETURN a0"
        );
    }

    fn guard_text(c: &Candidate) -> String {
        graphlancer_cypher::render(&c.query)
    }

    #[test]
    fn a_guard_about_a_relationship_no_longer_matched_goes_with_it() {
        let c = guarded();
        let hop_gone = apply(&c, &c, &Edit::Clause(0, ClauseEdit::LastHop(1))).expect("applies");
        assert_eq!(guard_text(&hop_gone), "MATCH (a)-[r0]->(b), (b)-[r1]->(c) WHERE r0 <> r1 RETURN a",);
        let part_gone = apply(&c, &c, &Edit::Clause(0, ClauseEdit::Pattern(1))).expect("applies");
        assert_eq!(guard_text(&part_gone), "MATCH (a)-[r0]->(b) RETURN a");
    }

    #[test]
    fn literals_shrink_toward_zero_and_lists_element_by_element() {
        let lit = |v: Value| Expr::Literal(v);
        assert!(replacements(&lit(Value::Int(0))).is_empty(), "0 is as small as it gets");
        assert_eq!(replacements(&lit(Value::Bool(true))), vec![lit(Value::Int(0))]);
        assert_eq!(replacements(&lit(Value::Null)).len(), 6);
        let list = Expr::List(vec![lit(Value::Int(1)), Expr::var("x"), lit(Value::Int(2))]);
        let r = replacements(&list);
        assert!(r.contains(&Expr::List(vec![lit(Value::Int(1)), lit(Value::Int(2))])));
        assert!(r.contains(&Expr::List(vec![Expr::var("x"), lit(Value::Int(2))])));
    }

    #[test]
    fn a_call_subquery_is_inlined_and_an_undirected_hop_directed() {
        let undirected = RelPattern {
            variable: None,
            types: Vec::new(),
            direction: Direction::Both,
            length: None,
            properties: Vec::new(),
        };
        let pattern = PathPattern { name: None, start: node("a"), hops: vec![(undirected, node("b"))] };
        let body = SingleQuery {
            clauses: vec![
                Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None },
                Clause::Return(Projection::of(vec![(Expr::count_star(), "c".into())])),
            ],
        };
        let clauses = vec![
            Clause::Call { imports: Vec::new(), body, union_all: Vec::new() },
            Clause::Return(Projection::of(vec![(Expr::var("c"), "c".into())])),
        ];
        let c = Candidate {
            query: Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            order_columns: None,
            traversal: None,
        };
        let inline = Edit::Clause(0, ClauseEdit::Inline);
        assert!(edits(&c).contains(&inline));
        let inlined = apply(&c, &c, &inline).expect("applies");
        assert_eq!(guard_text(&inlined), "MATCH (a)-[]-(b) WITH *, count(*) AS c RETURN c");
        let directed = Edit::Clause(0, ClauseEdit::Directed(0, 0));
        assert!(edits(&inlined).contains(&directed));
        assert_eq!(
            guard_text(&apply(&inlined, &inlined, &directed).expect("applies")),
            "MATCH (a)-[]->(b) WITH *, count(*) AS c RETURN c"
        );
    }

    /// Each operand of an operator or function is made non-null in turn,
    /// outermost operations first (never a literal, or what is merely
    /// returned, or what coalesce already guards), named by the operation
    /// and the operand's type.
    #[test]
    fn null_operands_are_pinned_one_at_a_time_outermost_first() {
        use graphlancer_model::PropertyType;
        let schema = crate::tests::schema();
        let key = |ty| schema.keys.iter().find(|k| k.ty == ty).map(|k| k.name.clone()).expect("a key of the type");
        let (s, i) = (key(PropertyType::String), key(PropertyType::Int));
        let text = format!(
            "MATCH (n0) WHERE (((trim(n0.{s}) + '')) STARTS WITH 'a') \
             RETURN n0.{s} AS a0, coalesce(n0.{i}, 1) AS a1, abs(n0.{i}) AS a2"
        );
        let query = graphlancer_cypher::parse::parse(&text).expect("parses");
        let pinned = |target| {
            let mut q = query.clone();
            pin_null_operand(&mut q, target, &schema).map(|p| (p.kind, graphlancer_cypher::render(&q)))
        };
        let expected = [
            ("op:STARTS WITH(null String)", format!("coalesce((trim(n0.{s}) + ''), '') STARTS WITH")),
            ("op:+(null String)", format!("(coalesce(trim(n0.{s}), '') + '')")),
            ("fn:trim(null String)", format!("trim(coalesce(n0.{s}, ''))")),
            ("fn:abs(null Int)", format!("abs(coalesce(n0.{i}, 0))")),
        ];
        for (target, (kind, text)) in expected.iter().enumerate() {
            let (k, q) = pinned(target).expect("an operand");
            assert_eq!(k, *kind);
            assert!(q.contains(text.as_str()), "{q}");
        }
        assert_eq!(pinned(expected.len()), None);
    }

    #[test]
    fn a_crash_in_a_projection_is_named_alike_in_a_with_and_a_return() {
        let agg = Expr::aggregate("count", true, Expr::lit(Value::Int(0)));
        let mut p = Projection::of(vec![(agg, "a".into())]);
        assert_eq!(crash_site_name(&Clause::With(p.clone())), "projection");
        assert_eq!(crash_site_name(&Clause::Return(p.clone())), "projection");
        p.distinct = true;
        assert_eq!(crash_site_name(&Clause::Return(p)), "projection,DISTINCT");
        let pattern = PathPattern { name: None, start: node("a"), hops: Vec::new() };
        let matched = Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None };
        assert_eq!(crash_site_name(&matched), "MATCH");
    }

    #[test]
    fn leading_clauses_go_together_and_merge_actions_one_by_one() {
        let node =
            |v: &str, l: &str| NodePattern { variable: Some(v.into()), labels: vec![l.into()], properties: Vec::new() };
        let pattern = PathPattern { name: None, start: node("a", "L0"), hops: Vec::new() };
        let set =
            |k: &str| graphlancer_cypher::ast::SetItem::Property("a".into(), k.into(), Expr::Literal(Value::Int(1)));
        let clauses = vec![
            Clause::Match { optional: false, patterns: vec![pattern.clone()], guard: None, predicate: None },
            Clause::With(Projection::of(vec![(Expr::count_star(), "c".into())])),
            Clause::Merge { pattern, on_create: vec![set("k0")], on_match: vec![set("k1")] },
            Clause::Return(Projection::of(vec![(Expr::var("a"), "a".into())])),
        ];
        let c = Candidate {
            query: Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            order_columns: None,
            traversal: None,
        };
        let all = edits(&c);
        assert!(all.contains(&Edit::Prefix(2)));
        let text = |e: &Edit| guard_text(&apply(&c, &c, e).expect("applies"));
        assert_eq!(text(&Edit::Prefix(2)), "MERGE (a:L0) ON CREATE SET a.k0 = 1 ON MATCH SET a.k1 = 1 RETURN a");
        assert_eq!(
            text(&Edit::Clause(2, ClauseEdit::SetItem(0))),
            "MATCH (a:L0) WITH count(*) AS c MERGE (a:L0) ON MATCH SET a.k1 = 1 RETURN a"
        );
        assert!(all.contains(&Edit::Clause(2, ClauseEdit::SetItem(1))));
    }

    #[test]
    fn a_union_is_edited_inside_each_part_and_column_by_column() {
        let part = |label: &str| {
            let pattern = PathPattern {
                name: None,
                start: NodePattern { variable: Some("a".into()), labels: vec![label.into()], properties: Vec::new() },
                hops: Vec::new(),
            };
            SingleQuery {
                clauses: vec![
                    Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None },
                    Clause::Return(Projection::of(vec![
                        (Expr::var("a"), "a".into()),
                        (Expr::Literal(Value::Int(1)), "b".into()),
                    ])),
                ],
            }
        };
        let c = Candidate {
            query: Query { parts: vec![part("L0"), part("L1")], union_all: false, spelling: Default::default() },
            order_columns: None,
            traversal: None,
        };
        let all = edits(&c);
        let text = |e: &Edit| guard_text(&apply(&c, &c, e).expect("applies"));
        assert_eq!(text(&Edit::Part(1)), "MATCH (a:L1) RETURN a, 1 AS b");
        assert!(all.contains(&Edit::UnionColumn(1)));
        assert_eq!(text(&Edit::UnionColumn(1)), "MATCH (a:L0) RETURN a UNION MATCH (a:L1) RETURN a");
        let unlabel = Edit::InPart(1, Box::new(Edit::Clause(0, ClauseEdit::Label { part: 0, node: 0, label: 0 })));
        assert!(all.contains(&unlabel));
        assert_eq!(text(&unlabel), "MATCH (a:L0) RETURN a, 1 AS b UNION MATCH (a) RETURN a, 1 AS b");
    }

    #[test]
    fn each_guard_conjunct_is_an_edit_known_as_one() {
        let c = guarded();
        let all = edits(&c);
        assert_eq!(all.iter().filter(|e| matches!(e, Edit::Clause(_, ClauseEdit::Guard(_)))).count(), 3);
        assert_eq!(all.iter().filter(|e| is_guard_edit(e)).count(), 3);
        assert!(is_guard_edit(&Edit::InPart(1, Box::new(Edit::Clause(0, ClauseEdit::Guard(0))))));
        let dropped = apply(&c, &c, &Edit::Clause(0, ClauseEdit::Guard(1))).expect("applies");
        assert_eq!(
            guard_text(&dropped),
            "MATCH (a)-[r0]->(b), (b)-[r1]->(c)-[r2]->(d) WHERE (r0 <> r1) AND (r1 <> r2) RETURN a",
        );
    }
}
