//! The campaign loop, after GDsmith's Algorithm 1: graphs from the campaign
//! seed; for each graph a budget of new and mutated queries; each query run
//! on every engine, and the oracles' test cases built from it run too. The
//! loop only schedules, runs, counts, confirms, reduces and records: what a
//! test case is and when it shows a bug is the oracles' business
//! ([`crate::oracle`]). A finding is confirmed by re-running its case, then
//! deduplicated and written before the loop goes on.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use budget::{reduction_reserve, reduction_share_left};
use graphlancer_cypher::{DialectProfile, Feature, Generated, Generator, KeyFrequencies, Mutation};
use graphlancer_engines::{Engine, Outcome, Overhead};
use graphlancer_gremlin::{GremlinConfig, GremlinDialect, TraversalGenerator};
use graphlancer_model::{Language, derive_rng, generate};
use rand::Rng;
use summary::{count_agreement, count_all, sample};

use crate::oracle::oracle;
use crate::oracle::{CaseQuery, Oracle, OracleKind, TestCase};
use crate::report::{ReportError, ReportStore};

mod budget;
mod config;
mod error;
pub mod events;
mod execute;
mod findings;
mod judge;
mod summary;

pub use config::{Budget, CampaignConfig, Part, PlanUse, Sent};
pub use error::CampaignError;
pub use events::{Event, Quiet, Subscriber, SummaryFile};
pub use summary::{EngineSummary, ErrorSample, RelationSummary, Sample, Summary, WallTime, write_summary};

/// Stream ids of the campaign's randomness (beside the model's).
mod stream {
    pub const GRAPH: u64 = 10;
    pub const CASE: u64 = 11;
    /// The oracles' own choices, apart from generation's, so adding an
    /// oracle leaves the generated queries as they were.
    pub const ORACLE: u64 = 12;
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
    /// Whether a query timed out under a timeout the deadline had
    /// shortened since the case began: such a case cannot be judged.
    cut: bool,
    /// Where the time went so far (the harness share is what is left).
    time: WallTime,
    /// Restores and restarts per engine so far.
    overheads: Vec<Overhead>,
    /// Findings counted since the last tick, which sends them as events.
    found: Vec<events::Counted>,
    /// Each engine's name, in order: what verdicts and reports call them.
    /// Shared, so lending them while the engines are borrowed costs no copy.
    names: Arc<[String]>,
    /// Time inside the engines so far (the harness's own is the rest).
    engine_time: Duration,
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

    /// `config` checked against `engines` and made ready for them; what
    /// [`Self::new`] does first, for callers that must refuse a bad
    /// configuration before they create anything (the shared store).
    pub fn prepare(engines: &[Box<dyn Engine>], mut config: CampaignConfig) -> Result<CampaignConfig, CampaignError> {
        // Only oracles that compare answers read values; the crash and error
        // oracles need outcomes and row counts, so adapters may skip decoding.
        config.exec.values = config.oracles.iter().any(|o| oracle(*o).reads_values());
        config.oracles.sort_by_key(|k| crate::oracle::rank(*k));
        config.oracles.dedup();
        if engines.is_empty() {
            return Err(CampaignError::Config("a campaign needs at least one engine".into()));
        }
        if config.oracles.is_empty() {
            return Err(CampaignError::Config("a campaign needs at least one oracle".into()));
        }
        if let Some(o) = config.oracles.iter().map(|k| oracle(*k)).find(|o| o.engines_needed() > engines.len()) {
            let n = o.engines_needed();
            let n = ["two", "three", "four"].get(n.wrapping_sub(2)).map_or(n.to_string(), |w| (*w).to_owned());
            return Err(CampaignError::Config(format!("the {} oracle needs {n} or more engines", o.kind())));
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
        if config.oracles.contains(&OracleKind::CROSS_LANGUAGE) {
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
            if let Some(o) = config.oracles.iter().find(|o| !oracle(**o).speaks_gremlin()) {
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
        Ok(config)
    }

    fn build(
        engines: Vec<Box<dyn Engine>>,
        profile: DialectProfile,
        config: CampaignConfig,
        store: Option<Arc<Mutex<ReportStore>>>,
    ) -> Result<Self, CampaignError> {
        let config = Self::prepare(&engines, config)?;
        std::fs::create_dir_all(&config.out)
            .map_err(|e| CampaignError::Report(ReportError::Io { path: config.out.clone(), error: e }))?;
        let store = match store {
            Some(shared) => shared,
            None => Arc::new(Mutex::new(ReportStore::open(&config.out)?)),
        };
        let overheads = vec![Overhead::default(); engines.len()];
        Ok(Self {
            profile,
            config,
            store,
            sent: Vec::new(),
            deadline: None,
            cut: false,
            time: WallTime::default(),
            overheads,
            found: Vec::new(),
            names: engines.iter().map(|e| e.name().to_owned()).collect(),
            engine_time: Duration::ZERO,
            engines,
        })
    }

    /// Runs until the budget is spent, telling `to` what happens: each
    /// case judged, each finding counted, and the end.
    pub fn run(&mut self, to: &mut dyn Subscriber) -> Result<Summary, CampaignError> {
        let started = Instant::now();
        let names = self.names.clone();
        let mut s = Summary {
            seed: self.config.seed,
            oracles: self.config.oracles.iter().map(|o| o.name().to_owned()).collect(),
            dialect: self.profile.name.clone(),
            dialect_learned: self.profile.learned.iter().map(|(f, why)| (f.name().to_owned(), why.clone())).collect(),
            known_bugs: self.profile.tracked.clone(),
            known_bug_findings: self.profile.watched.keys().map(|b| (b.clone(), 0)).collect(),
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
        let oracles: Vec<&dyn Oracle> =
            crate::oracle::all().filter(|o| self.config.oracles.contains(&o.kind())).collect();
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
        let baselines: Vec<usize> =
            (0..names.len()).filter(|&i| crate::oracle::settings::baseline(&names, i) == i).collect();
        self.engine_time = Duration::ZERO;
        let budget = self.config.budget;
        self.deadline = match budget {
            Budget::Time(t) => Some(started + t),
            Budget::Queries(_) => None,
        };
        let (reduce, per_finding) = (self.config.reduce, self.config.reduction.time);
        let done = |s: &Summary| {
            crate::interrupt::stopping()
                // A finding could not be written: the disk is full.
                || !s.unwritten.is_empty()
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
            deterministic: self.config.oracles.iter().any(|o| oracle(*o).reads_values()),
            ..GremlinConfig::default()
        };
        let mut used_steps: BTreeSet<&'static str> = BTreeSet::new();
        // The cross-language oracle draws its questions from the steps every
        // engine accepts and the translation covers.
        let fragment = self.config.oracles.contains(&OracleKind::CROSS_LANGUAGE).then(|| {
            let mut d = self.gremlin_dialect();
            d.steps.retain(|s| crate::oracle::cross_language::FRAGMENT.contains(s));
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
                    self.traversal(&mut s, &oracles, at, &traversals, &mut used_steps)?;
                    self.tick(&mut s, started, to);
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
                self.engine_time += wall;
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

                let cx = QueryCx {
                    oracles: &oracles,
                    turns: &turns,
                    generator: &generator,
                    profile: &profile,
                    traversals: traversals.as_ref(),
                    at: Position { graph: &graph, graph_index, case_index },
                };
                self.oracles_on(&mut s, &cx, &query, &source, outcomes)?;
                self.tick(&mut s, started, to);
            }
        }
        s.seconds = started.elapsed().as_secs_f64();
        s.queries_per_second = s.queries as f64 / s.seconds.max(1e-9);
        s.harness_seconds = (started.elapsed().saturating_sub(self.engine_time)).as_secs_f64();
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
        for c in std::mem::take(&mut self.found) {
            to.on(&Event::Finding(&c));
        }
        to.on(&Event::Finished(&s));
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

    /// After each case: the clock, the timeline, and the events since the last.
    fn tick(&mut self, s: &mut Summary, started: Instant, to: &mut dyn Subscriber) {
        s.seconds = started.elapsed().as_secs_f64();
        if s.timeline.last().is_none_or(|t| s.seconds - t.seconds >= 1.0) {
            sample(s);
        }
        self.account(s);
        for c in std::mem::take(&mut self.found) {
            to.on(&Event::Finding(&c));
        }
        to.on(&Event::Case(s));
    }

    /// What the campaign sent, when recording.
    pub fn sent(&self) -> &[Sent] {
        &self.sent
    }
}

/// What the oracles of one generated query need beside the campaign.
struct QueryCx<'a, 'g> {
    /// The campaign's oracles, in the order verdicts are asked for.
    oracles: &'a [&'static dyn Oracle],
    /// The oracles that run queries of their own, with their weights.
    turns: &'a [(usize, u32)],
    /// The generator of this graph.
    generator: &'a Generator<'g>,
    /// The profile generated from.
    profile: &'a DialectProfile,
    /// The traversal generator, for the cross-language oracle.
    traversals: Option<&'a TraversalGenerator<'g>>,
    /// Where the query came from.
    at: Position<'g>,
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

/// With plans guiding generation, a graph is replaced after this many
/// queries in a row used no new combination of optimizations (DOT waits
/// 1,000, with thousands of queries a graph; here a graph has 200).
const STALE_GRAPH: u64 = 50;

/// The mutation pool takes `query`, its oldest entry going past 200.
fn admit(pool: &mut Vec<Generated>, query: &Generated) {
    if pool.len() >= 200 {
        pool.remove(0);
    }
    pool.push(query.clone());
}
