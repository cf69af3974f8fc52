//! The campaign loop, after GDsmith's Algorithm 1: graphs from the campaign
//! seed; for each graph a budget of new and mutated queries; each query run
//! on every engine, and the oracles' test cases built from it run too. The
//! loop only schedules, runs, counts, confirms, reduces and records: what a
//! test case is and when it shows a bug is the oracles' business
//! ([`crate::oracle`]). A finding is confirmed by re-running its case, then
//! deduplicated and written before the loop goes on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use graphlancer_cypher::{DialectProfile, Feature, Generated, Generator, GeneratorConfig, KeyFrequencies, Mutation};
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome, Overhead};
use graphlancer_gremlin::{GremlinConfig, GremlinDialect, TraversalGenerator};
use graphlancer_model::{Graph, GraphConfig, Language, derive_rng, generate};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::case::timed_out;
use crate::oracle::{BuildCx, CaseQuery, Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::reduce::Reducer;
use crate::registry::oracle;
use crate::report::{CASE_FORMAT, Case, EngineRecord, Recorded, ReductionState, ReportError, ReportStore};

/// Stream ids of the campaign's randomness (beside the model's).
mod stream {
    pub const GRAPH: u64 = 10;
    pub const CASE: u64 = 11;
    /// The oracles' own choices, apart from generation's, so adding an
    /// oracle leaves the generated queries as they were.
    pub const ORACLE: u64 = 12;
}

/// When a campaign stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// After this many queries.
    Queries(u64),
    /// After this much time.
    Time(Duration),
}

/// Everything that steers a campaign.
#[derive(Debug, Clone)]
pub struct CampaignConfig {
    /// The campaign seed.
    pub seed: u64,
    /// The oracles to run.
    pub oracles: Vec<OracleKind>,
    /// How often each oracle that builds its own queries (partition,
    /// rewrite, metamorphic) is chosen for a generated query; one missing
    /// weighs 1. One of them runs per generated query.
    pub weights: BTreeMap<OracleKind, u32>,
    /// Per oracle, the relations it may use; missing or empty for all.
    pub relations: BTreeMap<OracleKind, Vec<String>>,
    /// When to stop.
    pub budget: Budget,
    /// Queries per graph before a new graph is drawn.
    pub queries_per_graph: u64,
    /// Graph size and values.
    pub graph: GraphConfig,
    /// Generator preset, limits and weights.
    pub generator: GeneratorConfig,
    /// GDsmith's structural mutations of queries that returned rows (`!m` turns them off).
    pub mutations: bool,
    /// GDsmith's property-key frequency feedback (`!f` turns it off).
    pub frequencies: bool,
    /// Clause counts a query must have to enter the mutation pool.
    pub pool_clauses: (usize, usize),
    /// Per-query options.
    pub exec: ExecOptions,
    /// Where findings and the summary go.
    pub out: PathBuf,
    /// Whether findings are reduced before they are written.
    pub reduce: bool,
    /// What reducing one finding may spend; its time also counts against a
    /// time budget.
    pub reduction: crate::reduce::Limits,
    /// Whether to keep every graph load and query sent, for replay by a bare
    /// client (the overhead benchmark).
    pub record: bool,
    /// Plans: `Off`, `Count` (read each baseline engine's plan of every
    /// generated query and count the operator combinations), or `Guide`
    /// (count, and put a query whose plan shows a combination not seen
    /// before into the mutation pool, DOT's guided generation).
    pub plans: PlanUse,
    /// The part of the seed space this campaign draws its graphs from.
    pub part: Part,
    /// Whether the campaign writes `OUT/summary.json` itself; the workers of
    /// one run do not, their run writes the sum of theirs.
    pub write_summary: bool,
}

/// A part of a campaign's seed space: the graphs whose index is `index`
/// modulo `of`. Shards and workers take disjoint parts, so together they
/// draw the graphs one campaign would, each graph once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Which part, from 0.
    pub index: u64,
    /// Of how many.
    pub of: u64,
}

impl Default for Part {
    fn default() -> Self {
        Self { index: 0, of: 1 }
    }
}

impl Part {
    /// Part `index` of this part cut into `of`: worker `w` of a shard.
    pub fn split(self, index: u64, of: u64) -> Part {
        Part { index: self.index + self.of * index, of: self.of * of }
    }

    /// The index of this part's `n`-th graph.
    pub fn graph(self, n: u64) -> u64 {
        self.index + self.of * n
    }
}

/// What a campaign does with plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanUse {
    /// No plans asked for.
    #[default]
    Off,
    /// Plans read and their operator combinations counted.
    Count,
    /// Counted, and queries with new combinations fed back.
    Guide,
}

/// One thing a campaign sent to its engines, kept when recording.
#[derive(Debug, Clone)]
pub enum Sent {
    /// A graph was loaded.
    Load(Box<graphlancer_model::Graph>),
    /// A query was run on every engine.
    Query {
        /// Its text.
        text: String,
        /// Time spent on it, recovery included.
        elapsed: Duration,
        /// Whether an engine crashed or hung on it (a replay leaves it out).
        disrupted: bool,
    },
}

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
    /// Generated queries not run because they ask for tens of thousands of
    /// rows ([`crate::work::SAMPLED_ROWS`]): all but one in
    /// [`crate::work::SAMPLED_ONE_IN`] of them.
    pub skipped_expensive: u64,
    /// New findings written unreduced because reductions had taken their
    /// share of a time budget ([`REDUCTION_SHARE`]).
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

/// A campaign's failure (not a finding).
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// An engine could not be reached, started or loaded.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The report folder could not be used.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A configuration that cannot work.
    #[error("{0}")]
    Config(String),
}

/// A campaign over opened engines.
pub struct Campaign {
    engines: Vec<Box<dyn Engine>>,
    profile: DialectProfile,
    config: CampaignConfig,
    store: Arc<Mutex<ReportStore>>,
    sent: Vec<Sent>,
    /// When a time budget runs out; reductions stop there too.
    deadline: Option<Instant>,
    /// Where the time went so far (the harness share is what is left).
    time: WallTime,
    /// Restores and restarts per engine so far.
    overheads: Vec<Overhead>,
}

/// Queries a test case ran, with every engine's outcome on each.
struct Ran {
    case: TestCase,
    outcomes: Vec<Vec<Outcome>>,
}

impl Campaign {
    /// A campaign generating from `profile` (the intersection of the engines' profiles).
    pub fn new(
        engines: Vec<Box<dyn Engine>>,
        profile: DialectProfile,
        config: CampaignConfig,
    ) -> Result<Self, CampaignError> {
        Self::build(engines, profile, config, None)
    }

    /// As [`Self::new`], writing into `store`, which the other workers of a
    /// run share.
    pub fn sharing(
        engines: Vec<Box<dyn Engine>>,
        profile: DialectProfile,
        config: CampaignConfig,
        store: Arc<Mutex<ReportStore>>,
    ) -> Result<Self, CampaignError> {
        Self::build(engines, profile, config, Some(store))
    }

    fn build(
        engines: Vec<Box<dyn Engine>>,
        profile: DialectProfile,
        mut config: CampaignConfig,
        store: Option<Arc<Mutex<ReportStore>>>,
    ) -> Result<Self, CampaignError> {
        // Only oracles that compare answers read values; the crash and error
        // oracles need outcomes and row counts, so adapters may skip decoding.
        config.exec.values = config.oracles.iter().any(|o| o.reads_values());
        config.oracles.sort();
        config.oracles.dedup();
        if engines.is_empty() {
            return Err(CampaignError::Config("a campaign needs at least one engine".into()));
        }
        if config.oracles.is_empty() {
            return Err(CampaignError::Config("a campaign needs at least one oracle".into()));
        }
        if config.oracles.contains(&OracleKind::Differential) && engines.len() < 2 {
            return Err(CampaignError::Config("the differential oracle needs two or more engines".into()));
        }
        for (kind, names) in &config.relations {
            let known = oracle(*kind).relations();
            if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
                let list = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
                return Err(CampaignError::Config(format!(
                    "the {kind} oracle has no relation '{bad}' (known: {list})"
                )));
            }
        }
        if config.oracles.contains(&OracleKind::CrossLanguage) {
            if config.exec.language == Language::Gremlin {
                return Err(CampaignError::Config(
                    "the cross-language oracle asks in both languages itself: leave out --language gremlin".into(),
                ));
            }
            let both = |e: &dyn Engine| [Language::Cypher, Language::Gremlin].iter().all(|l| e.languages().contains(l));
            if let Some(e) = engines.iter().find(|e| !both(e.as_ref())) {
                return Err(CampaignError::Config(format!(
                    "the cross-language oracle needs engines that answer both Cypher and Gremlin (grafeo); {} does not",
                    e.name()
                )));
            }
            config.graph.second_label_probability = 0.0;
        }
        if config.exec.language == Language::Gremlin {
            if let Some(e) = engines.iter().find(|e| !e.languages().contains(&Language::Gremlin)) {
                return Err(CampaignError::Config(format!("{} does not answer Gremlin", e.name())));
            }
            if let Some(o) = config.oracles.iter().find(|o| !o.speaks_gremlin()) {
                return Err(CampaignError::Config(format!(
                    "the {o} oracle works on Cypher only (Gremlin campaigns: crash, error, differential)"
                )));
            }
            // Gremlin's vertices carry one label.
            config.graph.second_label_probability = 0.0;
        }
        if config.queries_per_graph == 0 {
            return Err(CampaignError::Config("queries per graph must be at least 1".into()));
        }
        config.graph.validate().map_err(|e| CampaignError::Config(e.to_string()))?;
        config.generator.validate().map_err(|e| CampaignError::Config(e.to_string()))?;
        std::fs::create_dir_all(&config.out)
            .map_err(|e| CampaignError::Report(ReportError::Io { path: config.out.clone(), error: e }))?;
        let store = match store {
            Some(shared) => shared,
            None => Arc::new(Mutex::new(ReportStore::open(&config.out)?)),
        };
        let overheads = vec![Overhead::default(); engines.len()];
        Ok(Self {
            engines,
            profile,
            config,
            store,
            sent: Vec::new(),
            deadline: None,
            time: WallTime::default(),
            overheads,
        })
    }

    /// Runs until the budget is spent; `progress` sees the summary after each query.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Summary)) -> Result<Summary, CampaignError> {
        let started = Instant::now();
        let mut last_written = started;
        let names: Vec<String> = self.engines.iter().map(|e| e.name().to_owned()).collect();
        let mut s = Summary {
            seed: self.config.seed,
            oracles: self.config.oracles.iter().map(|o| o.name().to_owned()).collect(),
            dialect: self.profile.name.clone(),
            dialect_learned: self.profile.learned.iter().map(|(f, why)| (f.name().to_owned(), why.clone())).collect(),
            engines: self
                .engines
                .iter()
                .map(|e| EngineSummary {
                    spec: e.name().into(),
                    version: e.version().into(),
                    ..EngineSummary::default()
                })
                .collect(),
            workers: 1,
            unfinished_reports: self.store().unfinished().iter().map(|p| p.display().to_string()).collect(),
            ..Summary::default()
        };
        // In the order verdicts are asked for: crash first.
        let oracles: Vec<Box<dyn Oracle>> =
            OracleKind::ALL.into_iter().filter(|k| self.config.oracles.contains(k)).map(oracle).collect();
        // Oracles that run queries of their own take turns by weight.
        let turns: Vec<(usize, u32)> = oracles
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.per_query() && o.adds_queries())
            .map(|(i, o)| (i, self.config.weights.get(&o.kind()).copied().unwrap_or(1)))
            .collect();
        let mut used: BTreeSet<Feature> = BTreeSet::new();
        let mut combinations: BTreeSet<(usize, Vec<String>)> = BTreeSet::new();
        // Plans are read from each engine as named, not from its other configurations.
        let baselines: Vec<usize> = (0..names.len()).filter(|&i| crate::settings::baseline(&names, i) == i).collect();
        let mut engine_time = Duration::ZERO;
        let budget = self.config.budget;
        self.deadline = match budget {
            Budget::Time(t) => Some(started + t),
            Budget::Queries(_) => None,
        };
        let (reduce, per_finding) = (self.config.reduce, self.config.reduction.time);
        let done = |s: &Summary| {
            crate::interrupt::stopping()
                || match budget {
                    Budget::Queries(n) => s.queries >= n,
                    Budget::Time(t) => {
                        let reserve = if reduce {
                            let spent: f64 = s.reduction_seconds.iter().sum();
                            reduction_reserve(t, per_finding, &s.reduction_seconds).min(reduction_share_left(t, spent))
                        } else {
                            Duration::ZERO
                        };
                        started.elapsed() + reserve >= t
                    }
                }
        };
        // Owned copies: the generator borrows them while the engines are borrowed mutably.
        let (profile, generator_config) = (self.profile.clone(), self.config.generator.clone());
        // A Gremlin campaign generates from the steps every engine's dialect shares.
        let gremlin = (self.config.exec.language == Language::Gremlin).then(|| self.gremlin_dialect());
        let gremlin_config = GremlinConfig {
            deterministic: self.config.oracles.iter().any(|o| o.reads_values()),
            ..GremlinConfig::default()
        };
        let mut used_steps: BTreeSet<&'static str> = BTreeSet::new();
        // The cross-language oracle draws its questions from the steps every
        // engine accepts and the translation covers.
        let fragment = self.config.oracles.contains(&OracleKind::CrossLanguage).then(|| {
            let mut d = self.gremlin_dialect();
            d.steps.retain(|s| crate::cross_language::FRAGMENT.contains(s));
            d
        });
        let mut nth_graph = 0u64;
        'graphs: while !done(&s) {
            let graph_index = self.config.part.graph(nth_graph);
            nth_graph += 1;
            let graph_seed = derive_rng(self.config.seed, &[stream::GRAPH, graph_index]).random::<u64>();
            let graph = generate(graph_seed, &self.config.graph).map_err(|e| CampaignError::Config(e.to_string()))?;
            let t = Instant::now();
            for e in &mut self.engines {
                e.load(&graph)?;
                e.take_overhead();
            }
            self.time.loads += t.elapsed().as_secs_f64();
            if self.config.record {
                self.sent.push(Sent::Load(Box::new(graph.clone())));
            }
            s.graphs += 1;
            if let Some(dialect) = &gremlin {
                let traversals = TraversalGenerator::new(&graph, dialect, &gremlin_config);
                for case_index in 0..self.config.queries_per_graph {
                    if done(&s) {
                        break 'graphs;
                    }
                    let at = Position { graph: &graph, graph_index, case_index };
                    self.traversal(&mut s, &mut engine_time, &oracles, &names, at, &traversals, &mut used_steps)?;
                    self.tick(&mut s, started, &mut last_written, progress)?;
                }
                continue;
            }
            let generator = Generator::new(&graph, &profile, &generator_config);
            let traversals = fragment.as_ref().map(|d| TraversalGenerator::new(&graph, d, &gremlin_config));
            // GDsmith resets both kinds of feedback with each graph.
            let mut pool: Vec<Generated> = Vec::new();
            let mut frequencies = KeyFrequencies::new();
            // Queries in a row whose plans used no new combination.
            let mut stale = 0u64;
            for case_index in 0..self.config.queries_per_graph {
                if done(&s) {
                    break 'graphs;
                }
                // DOT draws a new graph once one stops giving new combinations.
                if self.config.plans == PlanUse::Guide && stale >= STALE_GRAPH {
                    break;
                }
                let mut rng = derive_rng(self.config.seed, &[stream::CASE, graph_index, case_index]);
                let freq = self.config.frequencies.then_some(&frequencies);
                let mutant = if self.config.mutations && !pool.is_empty() && rng.random_bool(0.5) {
                    let base = &pool[rng.random_range(0..pool.len())];
                    let m = Mutation::ALL[rng.random_range(0..Mutation::ALL.len())];
                    generator.mutate(base, m, &mut rng, freq)
                } else {
                    None
                };
                s.mutated += u64::from(mutant.is_some());
                let query = mutant.unwrap_or_else(|| generator.generate_guided(&mut rng, freq));
                // A few queries ask for most of the engines' time: cross
                // products of unconnected parts, a MERGE for each of their
                // rows. Over 13,000 generated queries the 1-2% estimated at
                // tens of thousands of rows took three quarters of Grafeo's
                // time; one in ten of them is run, so they stay covered.
                if crate::work::estimate(&query.query, &graph) >= crate::work::SAMPLED_ROWS
                    && rng.random_range(0..crate::work::SAMPLED_ONE_IN) != 0
                {
                    s.skipped_expensive += 1;
                    continue;
                }
                used.extend(query.features.iter().copied());

                let source = CaseQuery::source(&query);
                let (outcomes, waited, wall) = self.execute_all(&source)?;
                engine_time += wall;
                s.queries += 1;
                count_all(&mut s, &outcomes, &waited, &source.text);
                count_agreement(&mut s, &outcomes, &source.row_order());
                let new_plan = self.plans(&mut s, &baselines, &source.text, &mut combinations, started)?;
                if new_plan && self.config.plans == PlanUse::Guide {
                    admit(&mut pool, &query);
                }
                stale = if new_plan { 0 } else { stale + 1 };
                let first_non_empty = outcomes[0].rows().is_some_and(|r| !r.rows.is_empty());
                let slot = s.non_empty_by_length.entry(query.clause_count).or_default();
                slot.0 += 1;
                slot.1 += u64::from(first_non_empty);
                if first_non_empty {
                    for k in query.query.property_keys() {
                        *frequencies.entry(k).or_default() += 1;
                    }
                    let (lo, hi) = self.config.pool_clauses;
                    if (lo..=hi).contains(&query.clause_count) {
                        admit(&mut pool, &query);
                    }
                }

                // The oracles' test cases: those that only judge the source,
                // and one (by weight) that runs queries of its own; when the
                // one drawn cannot use this query, the next that can does.
                let mut orng = derive_rng(self.config.seed, &[stream::ORACLE, graph_index, case_index]);
                let no_filter = Vec::new();
                let mut order: Vec<usize> = oracles
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| !o.per_query() && !o.adds_queries())
                    .map(|(i, _)| i)
                    .collect();
                if let Some(first) = weighted_index(&turns, &mut orng) {
                    let at = turns.iter().position(|(i, _)| *i == first).unwrap_or(0);
                    order.extend(turns[at..].iter().chain(&turns[..at]).filter(|(_, w)| *w > 0).map(|(i, _)| *i));
                }
                let mut groups: Vec<(usize, Ran)> = Vec::new();
                let mut built_own = false;
                for i in order {
                    let o = &oracles[i];
                    if o.adds_queries() && built_own {
                        continue;
                    }
                    let only = self.config.relations.get(&o.kind()).unwrap_or(&no_filter);
                    let build = BuildCx {
                        generator: &generator,
                        graph: &graph,
                        profile: &profile,
                        engines: names.len(),
                        only,
                        traversals: traversals.as_ref(),
                    };
                    match o.build(&query, &build, &mut orng) {
                        Err(reason) => {
                            let r = s.relations.entry(o.kind().name().to_owned()).or_default();
                            *r.skipped.entry(reason.to_owned()).or_default() += 1;
                        }
                        Ok(case) => {
                            built_own |= o.adds_queries();
                            let mut all = Vec::with_capacity(case.queries.len());
                            for q in &case.queries {
                                if q.role == "source" && q.text == source.text {
                                    all.push(outcomes.clone());
                                    continue;
                                }
                                let (o, waited, wall) = self.execute_all(q)?;
                                engine_time += wall;
                                s.followup_queries += 1;
                                count_all(&mut s, &o, &waited, &q.text);
                                all.push(o);
                            }
                            groups.push((i, Ran { case, outcomes: all }));
                        }
                    }
                }
                // Every query run, for the oracles that judge queries one by one.
                let mut each = Ran { case: TestCase::single("source", source.clone()), outcomes: vec![outcomes] };
                for (_, g) in &groups {
                    for (q, o) in g.case.queries.iter().zip(&g.outcomes) {
                        // Only the generated query itself is already there; a
                        // group's own first query (a cross-language traversal)
                        // is judged too.
                        if !(q.role == "source" && q.text == source.text) {
                            each.case.queries.push(q.clone());
                            each.outcomes.push(o.clone());
                        }
                    }
                }
                let judge = JudgeCx { names: &names, schema: &graph.schema };
                let mut verdict = None;
                for (i, o) in oracles.iter().enumerate() {
                    if !o.per_query() {
                        continue;
                    }
                    if let Verdict::Finding(f) = o.judge(&judge, &each.case, &each.outcomes) {
                        let q = f.query.unwrap_or(0);
                        let mut case = TestCase::single(o.kind().name(), each.case.queries[q].clone());
                        case.queries[0].role = each.case.queries[q].role.clone();
                        verdict = Some((i, Ran { case, outcomes: vec![each.outcomes[q].clone()] }, f));
                        break;
                    }
                }
                if verdict.is_none() {
                    for (i, ran) in groups {
                        let v = oracles[i].judge(&judge, &ran.case, &ran.outcomes);
                        let r = s.relations.entry(ran.case.relation.clone()).or_default();
                        match v {
                            Verdict::Pass => r.run += 1,
                            Verdict::Skip(reason) => *r.skipped.entry(reason.to_owned()).or_default() += 1,
                            Verdict::FeatureDifference(d) => {
                                r.run += 1;
                                let e = s.feature_differences.entry(format!("{}: {}", d.engine, d.construct));
                                let e = e.or_default();
                                e.count += 1;
                                if e.query.is_empty() {
                                    e.query = ran.case.queries.first().map(|q| q.text.clone()).unwrap_or_default();
                                }
                            }
                            Verdict::Finding(f) => {
                                r.run += 1;
                                verdict = Some((i, ran, f));
                                break;
                            }
                        }
                    }
                }
                if let Some((i, ran, finding)) = verdict {
                    let at = Position { graph: &graph, graph_index, case_index };
                    self.handle(&mut s, &mut engine_time, oracles[i].as_ref(), &names, at, ran, finding)?;
                }
                self.tick(&mut s, started, &mut last_written, progress)?;
            }
        }
        s.seconds = started.elapsed().as_secs_f64();
        s.queries_per_second = s.queries as f64 / s.seconds.max(1e-9);
        s.harness_seconds = (started.elapsed().saturating_sub(engine_time)).as_secs_f64();
        self.account(&mut s);
        if let Some(dialect) = &gremlin {
            s.dialect = dialect.name.clone();
            let enabled = gremlin_config.enabled(dialect);
            s.features_enabled = enabled.len();
            s.features_used = enabled.iter().filter(|st| used_steps.contains(*st)).count();
        } else {
            let enabled = self.config.generator.enabled(&self.profile);
            s.features_enabled = enabled.len();
            s.features_used = enabled.iter().filter(|f| used.contains(f)).count();
        }
        s.interrupted = crate::interrupt::requested().map(crate::interrupt::name);
        sample(&mut s);
        if self.config.write_summary {
            write_summary(&self.config.out, &s)?;
        }
        Ok(s)
    }

    /// The report store, shared with the other workers of a run.
    fn store(&self) -> std::sync::MutexGuard<'_, ReportStore> {
        // A worker that panicked holding the lock left the store as it was
        // between two whole operations: each writes aside, then renames.
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Copies the time breakdown and each engine's restores and restarts
    /// into the summary; what no part claims is the harness's.
    fn account(&self, s: &mut Summary) {
        s.time = WallTime { harness: 0.0, ..self.time.clone() };
        let claimed: f64 = s.time.parts().iter().map(|(_, t)| t).sum();
        s.time.harness = (s.seconds - claimed).max(0.0);
        for (e, o) in s.engines.iter_mut().zip(&self.overheads) {
            e.restores = o.restores;
            e.restore_seconds = o.restore_time.as_secs_f64();
            e.restarts = o.restarts;
            e.restart_seconds = o.restart_time.as_secs_f64();
        }
    }

    /// The Gremlin every engine accepts: the intersection of their dialects.
    fn gremlin_dialect(&self) -> GremlinDialect {
        self.engines
            .iter()
            .map(|e| GremlinDialect::builtin(e.dialect()).unwrap_or_else(GremlinDialect::tinkerpop).clone())
            .reduce(|a, b| a.intersect(&b))
            .unwrap_or_else(|| GremlinDialect::tinkerpop().clone())
    }

    /// After each case: the clock, progress, and the summary now and then.
    fn tick(
        &self,
        s: &mut Summary,
        started: Instant,
        last_written: &mut Instant,
        progress: &mut dyn FnMut(&Summary),
    ) -> Result<(), CampaignError> {
        s.seconds = started.elapsed().as_secs_f64();
        if s.timeline.last().is_none_or(|t| s.seconds - t.seconds >= 1.0) {
            sample(s);
        }
        self.account(s);
        progress(s);
        if self.config.write_summary && last_written.elapsed() >= SUMMARY_EVERY {
            write_summary(&self.config.out, s)?;
            *last_written = Instant::now();
        }
        Ok(())
    }

    /// What the next naming or reduction may spend: the per-finding
    /// limits, within the deadline and the budget's share for reductions.
    fn reduction_limits(&self) -> crate::reduce::Limits {
        let mut limits = self.config.reduction;
        if let Some(deadline) = self.deadline {
            limits.time = limits.time.min(deadline.saturating_duration_since(Instant::now()));
        }
        if let Budget::Time(t) = self.config.budget {
            limits.time = limits.time.min(reduction_share_left(t, self.time.reduction));
        }
        limits
    }

    /// A reducer on the campaign's engines, which hold `graph`.
    fn reducer<'r>(
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
    #[expect(clippy::too_many_arguments, reason = "the loop's state, passed once")]
    fn handle(
        &mut self,
        s: &mut Summary,
        engine_time: &mut Duration,
        oracle: &dyn Oracle,
        names: &[String],
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
            s.findings_duplicate += 1;
            s.relations.entry(relation).or_default().findings += 1;
            s.findings.insert(known.to_string(), dir.display().to_string());
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
        let (again, longest) = self.rerun(&ran.case, exec, engine_time)?;
        let judge = JudgeCx { names, schema: &at.graph.schema };
        let reproduced = matches!(oracle.judge(&judge, &ran.case, &again),
            Verdict::Finding(f) if f.signature == finding.signature);
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
            if let Some(deadline) = self.deadline {
                limits.time = limits.time.min(deadline.saturating_duration_since(Instant::now()));
            }
            let named = self.reducer(oracle, &judge, at.graph, limits).name_unreduced(
                &ran.case,
                again.clone(),
                finding.clone(),
            );
            for e in &mut self.engines {
                e.take_overhead();
            }
            let named = named?;
            *engine_time += t.elapsed();
            self.time.naming += t.elapsed().as_secs_f64();
            let spent = self.reduction_limits().time < MIN_REDUCTION;
            let seen = crate::report::Seen { seed: self.config.seed, graph: at.graph_index, case: at.case_index };
            if named.signature != finding.signature
                && let Some((known, dir)) = self.store().count_named(&named.signature, &generated_signature, seen)?
            {
                s.findings_duplicate += 1;
                s.findings.insert(known.to_string(), dir.display().to_string());
                return Ok(());
            }
            if spent {
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
            *engine_time += t.elapsed();
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
        };
        case.set_queries(ran.case, ran.outcomes);
        if let Some(r) = reduced {
            case.take_reduction(r);
        }
        let signature = case.signature.clone();
        if let Some(name) = pre_name {
            self.store().alias(name, signature.clone())?;
        }
        let recorded = self.store().record(&case)?;
        let dir = match recorded {
            Recorded::New(dir) => {
                s.findings_new += 1;
                dir
            }
            Recorded::Duplicate(dir) => {
                s.findings_duplicate += 1;
                dir
            }
        };
        s.findings.insert(signature.to_string(), dir.display().to_string());
        Ok(())
    }

    /// One generated traversal: run on every engine, judged by the oracles
    /// that judge single queries (crash and error first, then differential).
    #[expect(clippy::too_many_arguments, reason = "the loop's state, passed once")]
    fn traversal(
        &mut self,
        s: &mut Summary,
        engine_time: &mut Duration,
        oracles: &[Box<dyn Oracle>],
        names: &[String],
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
        *engine_time += wall;
        s.queries += 1;
        count_all(s, &outcomes, &waited, &source.text);
        let non_empty = outcomes[0].rows().is_some_and(|r| !r.rows.is_empty());
        let slot = s.non_empty_by_length.entry(length).or_default();
        slot.0 += 1;
        slot.1 += u64::from(non_empty);
        let judge = JudgeCx { names, schema: &at.graph.schema };
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
                return self.handle(s, engine_time, o.as_ref(), names, at, ran, f);
            }
        }
        Ok(())
    }

    /// Reads the plan of `query` from each engine in `baselines` and counts
    /// its operator combination; whether one was new.
    fn plans(
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
                    let used = graphlancer_engines::plan::optimizations(self.engines[i].dialect(), &ops);
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

    /// What the campaign sent, when recording.
    pub fn sent(&self) -> &[Sent] {
        &self.sent
    }

    fn execute_all(&mut self, q: &CaseQuery) -> Result<(Vec<Outcome>, Vec<Duration>, Duration), CampaignError> {
        self.execute_with(q, self.config.exec)
    }

    /// Every query of `case` on every engine under `exec`: the outcomes, and
    /// the longest an engine took on one query.
    fn rerun(
        &mut self,
        case: &TestCase,
        exec: ExecOptions,
        engine_time: &mut Duration,
    ) -> Result<(Vec<Vec<Outcome>>, Duration), CampaignError> {
        let mut outcomes = Vec::with_capacity(case.queries.len());
        let mut longest = Duration::ZERO;
        for q in &case.queries {
            let (o, waited, wall) = self.execute_with(q, exec)?;
            *engine_time += wall;
            longest = longest.max(waited.iter().copied().max().unwrap_or_default());
            outcomes.push(o);
        }
        Ok((outcomes, longest))
    }

    /// `q` on every engine at once under `exec`: the outcomes, each
    /// engine's time, and the wall time they took together.
    fn execute_with(
        &mut self,
        q: &CaseQuery,
        exec: ExecOptions,
    ) -> Result<(Vec<Outcome>, Vec<Duration>, Duration), CampaignError> {
        let mut outcomes = Vec::with_capacity(self.engines.len());
        let mut waited = Vec::with_capacity(self.engines.len());
        let exec = ExecOptions { language: q.language(), ..exec };
        let started = Instant::now();
        let answers = graphlancer_engines::on_each(&mut self.engines, |e| {
            let t = Instant::now();
            let outcome = e.execute_generated(&q.text_for(e), q.cypher_ast(), &exec);
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
        let text = &q.text;
        if self.config.record {
            let disrupted = outcomes.iter().any(|o| matches!(o, Outcome::Crash { .. } | Outcome::Timeout { .. }));
            self.sent.push(Sent::Query { text: text.to_owned(), elapsed: wall, disrupted });
        }
        Ok((outcomes, waited, wall))
    }
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
fn merge_timelines(a: &[Sample], b: &[Sample]) -> Vec<Sample> {
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
            Sample { seconds: t, queries: x.queries + y.queries, findings: x.findings + y.findings }
        })
        .collect()
}

fn sample(s: &mut Summary) {
    s.timeline.push(Sample { seconds: s.seconds, queries: s.queries, findings: s.findings_new + s.findings_duplicate });
}

/// Where in the campaign a case came from.
#[derive(Clone, Copy)]
struct Position<'g> {
    graph: &'g graphlancer_model::Graph,
    graph_index: u64,
    case_index: u64,
}

/// Picks the index of an item by weight; `None` when there is none to pick.
fn weighted_index(options: &[(usize, u32)], rng: &mut graphlancer_model::CaseRng) -> Option<usize> {
    let total: u64 = options.iter().map(|(_, w)| u64::from(*w)).sum();
    if total == 0 {
        return None;
    }
    let mut roll = rng.random_range(0..total);
    for (i, w) in options {
        if roll < u64::from(*w) {
            return Some(*i);
        }
        roll -= u64::from(*w);
    }
    None
}

/// Distinct error messages kept per engine; the rest only count by class.
const ERROR_KINDS: usize = 50;

/// With plans guiding generation, a graph is replaced after this many
/// queries in a row used no new combination of optimizations (DOT waits
/// 1,000, with thousands of queries a graph; here a graph has 200).
const STALE_GRAPH: u64 = 50;

/// How often a running campaign refreshes `summary.json`.
const SUMMARY_EVERY: Duration = Duration::from_secs(1);

/// The mutation pool takes `query`, its oldest entry going past 200.
fn admit(pool: &mut Vec<Generated>, query: &Generated) {
    if pool.len() >= 200 {
        pool.remove(0);
    }
    pool.push(query.clone());
}

/// Counts one query's outcomes, engine by engine, and the harness faults among them.
fn count_all(s: &mut Summary, outcomes: &[Outcome], waited: &[Duration], query: &str) {
    for ((summary, outcome), w) in s.engines.iter_mut().zip(outcomes).zip(waited) {
        count(summary, outcome, *w, query);
    }
    s.harness_faults += outcomes.iter().filter(|o| o.is_harness_fault()).count() as u64;
}

/// Counts, for each engine, whether its answer to a generated query is the
/// reference's, when the reference is among the engines and both answered.
fn count_agreement(s: &mut Summary, outcomes: &[Outcome], order: &graphlancer_model::RowOrder) {
    let Some(truth) = s.engines.iter().position(|e| e.spec == graphlancer_engines::reference::NAME) else { return };
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

fn count(summary: &mut EngineSummary, outcome: &Outcome, waited: Duration, query: &str) {
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

/// The share of a time budget reductions may take at most: a campaign is
/// for finding bugs, and on a configuration full of one behaviour the
/// reducer took 91% of the time.
const REDUCTION_SHARE: f64 = 0.25;

/// What naming one finding before reduction may take: a few dozen probes.
const NAMING_TIME: Duration = Duration::from_secs(10);

/// A reduction gets at least this long, or none is started.
const MIN_REDUCTION: Duration = Duration::from_secs(1);

/// What is left of a time budget's share for reductions after `spent` seconds of them.
fn reduction_share_left(budget: Duration, spent: f64) -> Duration {
    Duration::from_secs_f64((budget.as_secs_f64() * REDUCTION_SHARE - spent).max(0.0))
}

/// What a time budget keeps back from new queries for reducing the last of
/// its findings: without it a finding of the last seconds is written as it
/// was generated. Once a finding has been reduced: the longest reduction so
/// far, at least [`MIN_RESERVE`], at most a tenth of the budget and one
/// finding's limit. Nothing before (a campaign that finds nothing runs to
/// its end).
fn reduction_reserve(budget: Duration, per_finding: Duration, so_far: &[f64]) -> Duration {
    if so_far.is_empty() {
        return Duration::ZERO;
    }
    let longest = so_far.iter().copied().fold(0.0, f64::max);
    Duration::from_secs_f64(longest).max(MIN_RESERVE).min(budget / 10).min(per_finding)
}

/// The least [`reduction_reserve`] keeps once a finding has been reduced.
const MIN_RESERVE: Duration = Duration::from_secs(10);

#[cfg(test)]
mod reserve_tests {
    use super::*;

    #[test]
    fn reductions_take_at_most_a_quarter_of_a_time_budget() {
        let budget = Duration::from_secs(600);
        assert_eq!(reduction_share_left(budget, 0.0), Duration::from_secs(150));
        assert_eq!(reduction_share_left(budget, 140.0), Duration::from_secs(10));
        assert_eq!(reduction_share_left(budget, 151.0), Duration::ZERO);
    }

    #[test]
    fn the_reserve_is_the_longest_reduction_within_its_bounds() {
        let (ten_min, minute) = (Duration::from_secs(600), Duration::from_secs(60));
        assert_eq!(reduction_reserve(ten_min, minute, &[]), Duration::ZERO);
        assert_eq!(reduction_reserve(ten_min, minute, &[1.0, 2.0]), MIN_RESERVE);
        assert_eq!(reduction_reserve(ten_min, minute, &[1.0, 25.0, 3.0]), Duration::from_secs(25));
        assert_eq!(reduction_reserve(ten_min, minute, &[300.0]), minute);
        assert_eq!(reduction_reserve(Duration::from_secs(30), minute, &[20.0]), Duration::from_secs(3));
    }
}
