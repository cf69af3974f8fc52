//! What a campaign counts while it runs, and the `summary.json` it writes:
//! queries, outcomes per engine, skips and findings per relation, and where
//! the wall time went.

use std::collections::BTreeMap;
use std::time::Duration;

use graphlancer_engines::Outcome;
use serde::{Deserialize, Serialize};

use crate::report::ReportError;

use super::error::CampaignError;

/// Per-engine counts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineSummary {
    /// Spec.
    pub spec: String,
    /// Version.
    pub version: String,
    /// Queries that returned rows (or none).
    pub accepted: u64,
    /// Errors by class.
    pub rejected: BTreeMap<String, u64>,
    /// Queries that returned at least one row.
    pub non_empty: u64,
    /// Timeouts.
    pub timeouts: u64,
    /// Crashes.
    pub crashes: u64,
    /// Answers over the row cap, not compared.
    pub too_large: u64,
    /// Answers graphlancer could not read (its own fault, never a finding).
    pub undecodable: u64,
    /// Seconds spent waiting for this engine, restores and restarts included.
    pub engine_seconds: f64,
    /// Graph restores after queries that may write, and their seconds.
    pub restores: u64,
    /// Seconds of those restores.
    pub restore_seconds: f64,
    /// Restarts after a crash or hang (graph loaded again).
    pub restarts: u64,
    /// Seconds of those restarts.
    pub restart_seconds: f64,
    /// With the reference among the engines: generated queries both it and
    /// this engine answered (rows or an error), and of those, how many got
    /// the same answer (equal rows, or both an error). Zero otherwise.
    pub compared_with_reference: u64,
    /// Of [`Self::compared_with_reference`], the answers that agreed.
    pub agreed_with_reference: u64,
    /// Errors (and the reference's open answers, with their reasons) by message (numbers and quoted text stripped), with how often
    /// each came and the first query that drew it: what to look at when
    /// tuning a dialect profile.
    pub errors: BTreeMap<String, ErrorSample>,
}

/// One kind of error message an engine gave.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorSample {
    /// How many queries drew it.
    pub count: u64,
    /// The first of them.
    pub query: String,
}

/// What a campaign did, on screen at the end and in `OUT/summary.json`
/// (read back by `graphlancer merge` and `report`; a field an older
/// summary lacks reads as empty).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Campaign seed.
    pub seed: u64,
    /// Oracles run.
    pub oracles: Vec<String>,
    /// Dialect profile generated from.
    pub dialect: String,
    /// Graphs generated.
    pub graphs: u64,
    /// Generated queries executed (each on every engine).
    pub queries: u64,
    /// Queries the oracles derived from them and ran too.
    pub followup_queries: u64,
    /// Of which produced by mutation.
    pub mutated: u64,
    /// Per engine.
    pub engines: Vec<EngineSummary>,
    /// New confirmed findings.
    pub findings_new: u64,
    /// Confirmed findings with a known signature.
    pub findings_duplicate: u64,
    /// Findings that did not reproduce on re-run, dropped.
    pub flaky: u64,
    /// Timeouts whose query finished when given four times the time: an
    /// expensive query, not a hang; dropped.
    pub slow: u64,
    /// Timeouts on queries whose estimated intermediate rows on the
    /// generated graph reach [`crate::work::expensive`] for the timeout:
    /// expensive by construction, not hangs; dropped without a re-run.
    pub expensive: u64,
    /// Cases not judged because the time budget ended while they ran: a
    /// query timed out under a timeout the end had shortened, or the rest
    /// of the case was not run.
    pub cut_by_budget: u64,
    /// Findings that could not be written (a full disk), each with what
    /// regenerates it; the run stopped at the first.
    pub unwritten: Vec<String>,
    /// Why `summary.json` could not be written, when it could not.
    pub summary_unwritten: Option<String>,
    /// Generated queries not run because they ask for tens of thousands of
    /// rows ([`crate::work::SAMPLED_ROWS`]): all but one in
    /// [`crate::work::SAMPLED_ONE_IN`] of them.
    pub skipped_expensive: u64,
    /// New findings written unreduced because reductions had taken their
    /// share of a time budget (a quarter).
    pub unreduced: u64,
    /// Seconds each reduction took, in the order findings were written.
    pub reduction_seconds: Vec<f64>,
    /// Answers graphlancer could not read, over all engines: its own
    /// faults, counted apart and never judged (near zero is the target).
    pub harness_faults: u64,
    /// Per relation (oracle test case kind): cases run, skipped by reason,
    /// and findings.
    pub relations: BTreeMap<String, RelationSummary>,
    /// Crashes and hangs that did not happen again on the re-run; they are
    /// reported all the same, marked as not reproduced.
    pub unreproduced_faults: u64,
    /// Queries and non-empty answers (first engine) by clause count.
    pub non_empty_by_length: BTreeMap<usize, (u64, u64)>,
    /// Distinct plan operator combinations seen (DOT's used optimizations),
    /// over the baseline engines, when plans are read.
    pub plan_combinations: usize,
    /// `(queries, seconds, combinations)` each time a new combination was seen.
    pub plan_timeline: Vec<(u64, f64, usize)>,
    /// Queries whose plan an engine could not give.
    pub plans_missing: u64,
    /// The campaign as it went, about a sample a second.
    pub timeline: Vec<Sample>,
    /// Campaign loops that ran side by side (`--workers`).
    pub workers: u64,
    /// Wall time.
    pub seconds: f64,
    /// Queries per second.
    pub queries_per_second: f64,
    /// Wall time not spent waiting for engines: generation, comparison,
    /// bookkeeping, reports, graph loads.
    pub harness_seconds: f64,
    /// Where the wall time went.
    pub time: WallTime,
    /// Productions used at least once, of those enabled.
    pub features_used: usize,
    /// Productions enabled by the profile and preset.
    pub features_enabled: usize,
    /// Constructs one engine refused (a parse or binder error) where another
    /// answered, by `engine: construct`: feature differences between the
    /// engines, counted, with the first query that showed each; never findings.
    pub feature_differences: BTreeMap<String, ErrorSample>,
    /// Productions a probe found an engine release of the campaign refuses,
    /// turned off for it, with the evidence.
    pub dialect_learned: BTreeMap<String, String>,
    /// Known bugs of the profiles (by `[bugs]` name) that a witness query
    /// checked on the campaign's releases: `live on RELEASE` or `fixed on
    /// RELEASE` (then the generator wrote its shape again).
    pub known_bugs: BTreeMap<String, String>,
    /// Known bugs the campaign wrote the shapes of rather than steering
    /// around them (a campaign against the reference, or of one engine),
    /// with the findings counted under each: one report per bug, however
    /// many queries show it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_bug_findings: BTreeMap<String, u64>,
    /// Report folders of the findings, by signature.
    pub findings: BTreeMap<String, String>,
    /// Folders a killed campaign left half-written (no case.json): skipped.
    pub unfinished_reports: Vec<String>,
    /// The signal that stopped the campaign before its budget, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// Where a campaign was at one moment.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since it started.
    pub seconds: f64,
    /// Generated queries run so far.
    pub queries: u64,
    /// Confirmed findings so far, new and duplicate.
    pub findings: u64,
    /// Of those, new ones (a report each).
    #[serde(default)]
    pub new: u64,
}

impl Summary {
    /// The sum of the summaries of one run's workers (or of a campaign's
    /// shards), `None` for none.
    pub fn sum(summaries: &[Summary]) -> Option<Summary> {
        let (first, rest) = summaries.split_first()?;
        let mut sum = first.clone();
        for s in rest {
            sum.absorb(s);
        }
        Some(sum)
    }

    /// The seconds all workers had: what the time parts add up to at most.
    pub fn worker_seconds(&self) -> f64 {
        (self.seconds * self.workers.max(1) as f64).max(1e-9)
    }

    /// Adds the summary of another worker of the same run: counts add up,
    /// the run lasted as long as its longest worker, and the time parts add
    /// up to the seconds all the workers ran.
    pub fn absorb(&mut self, o: &Summary) {
        self.workers += o.workers;
        self.graphs += o.graphs;
        self.queries += o.queries;
        self.followup_queries += o.followup_queries;
        self.mutated += o.mutated;
        for (mine, theirs) in self.engines.iter_mut().zip(&o.engines) {
            mine.absorb(theirs);
        }
        self.findings_new += o.findings_new;
        self.findings_duplicate += o.findings_duplicate;
        self.flaky += o.flaky;
        self.slow += o.slow;
        self.expensive += o.expensive;
        self.cut_by_budget += o.cut_by_budget;
        self.unwritten.extend(o.unwritten.iter().cloned());
        self.skipped_expensive += o.skipped_expensive;
        self.unreduced += o.unreduced;
        self.reduction_seconds.extend(&o.reduction_seconds);
        self.harness_faults += o.harness_faults;
        for (name, r) in &o.relations {
            let mine = self.relations.entry(name.clone()).or_default();
            mine.run += r.run;
            mine.findings += r.findings;
            for (reason, n) in &r.skipped {
                *mine.skipped.entry(reason.clone()).or_default() += n;
            }
        }
        self.unreproduced_faults += o.unreproduced_faults;
        for (key, d) in &o.feature_differences {
            let mine = self.feature_differences.entry(key.clone()).or_default();
            mine.count += d.count;
            if mine.query.is_empty() {
                mine.query.clone_from(&d.query);
            }
        }
        for (f, why) in &o.dialect_learned {
            self.dialect_learned.entry(f.clone()).or_insert_with(|| why.clone());
        }
        for (bug, status) in &o.known_bugs {
            self.known_bugs.entry(bug.clone()).or_insert_with(|| status.clone());
        }
        for (bug, n) in &o.known_bug_findings {
            *self.known_bug_findings.entry(bug.clone()).or_default() += n;
        }
        for (length, (n, non_empty)) in &o.non_empty_by_length {
            let slot = self.non_empty_by_length.entry(*length).or_default();
            slot.0 += n;
            slot.1 += non_empty;
        }
        // Each worker counts the combinations and productions it saw; the
        // run saw at least the most any one of them did.
        self.plan_combinations = self.plan_combinations.max(o.plan_combinations);
        self.plans_missing += o.plans_missing;
        self.features_used = self.features_used.max(o.features_used);
        self.seconds = self.seconds.max(o.seconds);
        self.queries_per_second = self.queries as f64 / self.seconds.max(1e-9);
        self.harness_seconds += o.harness_seconds;
        for ((_, mine), (_, theirs)) in self.time.fields().into_iter().zip(o.time.parts()) {
            *mine += theirs;
        }
        self.timeline = merge_timelines(&self.timeline, &o.timeline);
        self.findings.extend(o.findings.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.interrupted = self.interrupted.take().or_else(|| o.interrupted.clone());
    }
}

impl EngineSummary {
    fn absorb(&mut self, o: &EngineSummary) {
        self.accepted += o.accepted;
        for (class, n) in &o.rejected {
            *self.rejected.entry(class.clone()).or_default() += n;
        }
        self.non_empty += o.non_empty;
        self.timeouts += o.timeouts;
        self.crashes += o.crashes;
        self.too_large += o.too_large;
        self.undecodable += o.undecodable;
        self.engine_seconds += o.engine_seconds;
        self.restores += o.restores;
        self.restore_seconds += o.restore_seconds;
        self.restarts += o.restarts;
        self.restart_seconds += o.restart_seconds;
        self.compared_with_reference += o.compared_with_reference;
        self.agreed_with_reference += o.agreed_with_reference;
        for (message, sample) in &o.errors {
            let mine = self.errors.entry(message.clone()).or_insert_with(|| ErrorSample { count: 0, ..sample.clone() });
            mine.count += sample.count;
        }
    }
}

/// A campaign's wall time by what it was spent on, in seconds; the parts
/// add up to [`Summary::seconds`] (with several workers, to the seconds
/// all of them ran).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct WallTime {
    /// Engines answering queries (generated, the oracles' own, re-runs that
    /// confirm a finding), timeouts apart.
    pub queries: f64,
    /// Queries that ran into their timeout.
    pub timeouts: f64,
    /// Putting the graph back after queries that may write.
    pub restores: f64,
    /// Starting servers and hosts again after crashes and hangs.
    pub restarts: f64,
    /// Loading each generated graph.
    pub loads: f64,
    /// Reading plans (`EXPLAIN`).
    pub plans: f64,
    /// Reducing findings.
    pub reduction: f64,
    /// Naming findings by cause before reduction (localization, the NULL
    /// operand, the crash site), so duplicates go unreduced.
    pub naming: f64,
    /// graphlancer itself: generation, judging, reports.
    pub harness: f64,
}

impl WallTime {
    /// Every part with its name: the one list of them.
    fn fields(&mut self) -> [(&'static str, &mut f64); 9] {
        [
            ("queries", &mut self.queries),
            ("timeouts", &mut self.timeouts),
            ("restores", &mut self.restores),
            ("restarts", &mut self.restarts),
            ("loads", &mut self.loads),
            ("plans", &mut self.plans),
            ("reduction", &mut self.reduction),
            ("naming", &mut self.naming),
            ("harness", &mut self.harness),
        ]
    }

    /// The parts as `(name, seconds)`, in the order they are printed.
    pub fn parts(&self) -> [(&'static str, f64); 9] {
        self.clone().fields().map(|(name, seconds)| (name, *seconds))
    }
}

/// What one relation (kind of test case) did in a campaign.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RelationSummary {
    /// Cases built and judged.
    pub run: u64,
    /// Cases not built or not judged, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Confirmed findings (new and duplicate).
    pub findings: u64,
}

/// `OUT/summary.json`, replaced whole (written aside, then renamed), so
/// a campaign killed at any moment leaves the last one readable.
pub fn write_summary(out: &std::path::Path, s: &Summary) -> Result<(), CampaignError> {
    let path = out.join("summary.json");
    let aside = out.join(".summary.json.writing");
    std::fs::write(&aside, serde_json::to_string_pretty(s).expect("summaries serialize") + "\n")
        .and_then(|()| std::fs::rename(&aside, &path))
        .map_err(|e| CampaignError::Report(ReportError::Io { path, error: e }))
}

/// Two workers' timelines as one, on a grid of whole seconds from their
/// common start (and their last moment): at each, the sum of where each
/// worker was by then. A worker samples only between queries, so a long
/// reduction leaves a gap its last sample fills.
pub(super) fn merge_timelines(a: &[Sample], b: &[Sample]) -> Vec<Sample> {
    let end = a.iter().chain(b).map(|t| t.seconds).fold(0.0, f64::max);
    let mut grid: Vec<f64> = (1..=end.floor() as u64).map(|t| t as f64).collect();
    if grid.last() != Some(&end) {
        grid.push(end);
    }
    // Each timeline is in time order: one cursor each, so a long run's
    // merge (every 100 ms while workers run) stays linear.
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    let (mut x, mut y) = (Sample::default(), Sample::default());
    grid.into_iter()
        .map(|t| {
            while let Some(s) = a.next_if(|s| s.seconds <= t) {
                x = *s;
            }
            while let Some(s) = b.next_if(|s| s.seconds <= t) {
                y = *s;
            }
            Sample { seconds: t, queries: x.queries + y.queries, findings: x.findings + y.findings, new: x.new + y.new }
        })
        .collect()
}

pub(super) fn sample(s: &mut Summary) {
    s.timeline.push(Sample {
        seconds: s.seconds,
        queries: s.queries,
        findings: s.findings_new + s.findings_duplicate,
        new: s.findings_new,
    });
}

/// Distinct error messages kept per engine; the rest only count by class.
pub(super) const ERROR_KINDS: usize = 50;

/// Counts one query's outcomes, engine by engine, and the harness faults among them.
pub(super) fn count_all(s: &mut Summary, outcomes: &[Outcome], waited: &[Duration], query: &str) {
    for ((summary, outcome), w) in s.engines.iter_mut().zip(outcomes).zip(waited) {
        count(summary, outcome, *w, query);
    }
    s.harness_faults += outcomes.iter().filter(|o| o.is_harness_fault()).count() as u64;
}

/// Counts, for each engine, whether its answer to a generated query is the
/// reference's, when the reference is among the engines and both answered.
pub(super) fn count_agreement(s: &mut Summary, outcomes: &[Outcome], order: &graphlancer_model::RowOrder) {
    let Some(truth) = s.engines.iter().position(|e| e.spec == graphlancer_engines::REFERENCE) else { return };
    let answered = |o: &Outcome| matches!(o, Outcome::Rows(_) | Outcome::Error { .. });
    let Some(expected) = outcomes.get(truth).filter(|o| answered(o)) else { return };
    for (i, (summary, outcome)) in s.engines.iter_mut().zip(outcomes).enumerate() {
        if i == truth || !answered(outcome) {
            continue;
        }
        summary.compared_with_reference += 1;
        let same = match (expected, outcome) {
            (Outcome::Rows(x), Outcome::Rows(y)) => {
                graphlancer_model::compare(x, y, order, graphlancer_model::Tolerance::default())
                    == graphlancer_model::Comparison::Equal
            }
            (Outcome::Error { .. }, Outcome::Error { .. }) => true,
            _ => false,
        };
        summary.agreed_with_reference += u64::from(same);
    }
}

pub(super) fn count(summary: &mut EngineSummary, outcome: &Outcome, waited: Duration, query: &str) {
    summary.engine_seconds += waited.as_secs_f64();
    let described = match outcome {
        Outcome::Error { class, message } => Some((class.name(), message)),
        Outcome::Open { reason } => Some(("open", reason)),
        _ => None,
    };
    if let Some((class, message)) = described {
        let key = format!("{class}: {}", crate::signature::normalize(message));
        if summary.errors.len() < ERROR_KINDS || summary.errors.contains_key(&key) {
            let sample = summary.errors.entry(key).or_insert_with(|| ErrorSample { count: 0, query: query.to_owned() });
            sample.count += 1;
        }
    }
    match outcome {
        Outcome::Rows(r) => {
            summary.accepted += 1;
            summary.non_empty += u64::from(!r.rows.is_empty());
        }
        Outcome::Error { class, .. } => *summary.rejected.entry(class.name().to_owned()).or_default() += 1,
        Outcome::Open { .. } => *summary.rejected.entry("open".to_owned()).or_default() += 1,
        Outcome::Crash { .. } => summary.crashes += 1,
        Outcome::Timeout { .. } => summary.timeouts += 1,
        Outcome::TooLarge { .. } => summary.too_large += 1,
        Outcome::Undecodable { message } => {
            summary.undecodable += 1;
            let key = format!("undecodable: {}", crate::signature::normalize(message));
            if summary.errors.len() < ERROR_KINDS || summary.errors.contains_key(&key) {
                let sample =
                    summary.errors.entry(key).or_insert_with(|| ErrorSample { count: 0, query: query.to_owned() });
                sample.count += 1;
            }
        }
    }
}
