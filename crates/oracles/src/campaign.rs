//! The campaign loop, after GDsmith's Algorithm 1: graphs from the campaign
//! seed; for each graph a budget of new and mutated queries; every query run
//! on every engine and judged; a finding confirmed by re-running it, then
//! deduplicated and written before the loop goes on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use graphlancer_cypher::{DialectProfile, Feature, Generated, Generator, GeneratorConfig, KeyFrequencies, Mutation};
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::{GraphConfig, derive_rng, generate};
use rand::Rng;
use serde::Serialize;

use crate::judge::{OracleKind, Verdict, judge};
use crate::reduce::{Candidate, Reducer, column_kinds, shape};
use crate::report::{CASE_FORMAT, Case, EngineRecord, Recorded, ReportError, ReportStore};
use graphlancer_cypher::check::result_types;

/// Stream ids of the campaign's randomness (beside the model's).
mod stream {
    pub const GRAPH: u64 = 10;
    pub const CASE: u64 = 11;
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
    /// Whether to keep every graph load and query sent, for replay by a bare
    /// client (the overhead benchmark).
    pub record: bool,
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

/// Candidate queries a reduction may run on the engines.
const REDUCTION_BUDGET: usize = 20;

/// Per-engine counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EngineSummary {
    /// Spec.
    pub spec: String,
    /// Version.
    pub version: String,
    /// Queries that returned rows (or none).
    pub accepted: u64,
    /// Errors by class.
    pub rejected: BTreeMap<&'static str, u64>,
    /// Queries that returned at least one row.
    pub non_empty: u64,
    /// Timeouts.
    pub timeouts: u64,
    /// Crashes.
    pub crashes: u64,
    /// Answers over the row cap, not compared.
    pub too_large: u64,
    /// Seconds spent waiting for this engine.
    pub engine_seconds: f64,
    /// Errors by message (numbers and quoted text stripped), with how often
    /// each came and the first query that drew it: what to look at when
    /// tuning a dialect profile.
    pub errors: BTreeMap<String, ErrorSample>,
}

/// One kind of error message an engine gave.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ErrorSample {
    /// How many queries drew it.
    pub count: u64,
    /// The first of them.
    pub query: String,
}

/// What a campaign did, on screen at the end and in `OUT/summary.json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Campaign seed.
    pub seed: u64,
    /// Oracles run.
    pub oracles: Vec<&'static str>,
    /// Dialect profile generated from.
    pub dialect: String,
    /// Graphs generated.
    pub graphs: u64,
    /// Queries executed (each on every engine).
    pub queries: u64,
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
    /// Crashes and hangs that did not happen again on the re-run; they are
    /// reported all the same, marked as not reproduced.
    pub unreproduced_faults: u64,
    /// Queries and non-empty answers (first engine) by clause count.
    pub non_empty_by_length: BTreeMap<usize, (u64, u64)>,
    /// Wall time.
    pub seconds: f64,
    /// Queries per second.
    pub queries_per_second: f64,
    /// Wall time not spent waiting for engines: generation, comparison,
    /// bookkeeping, reports, graph loads.
    pub harness_seconds: f64,
    /// Productions used at least once, of those enabled.
    pub features_used: usize,
    /// Productions enabled by the profile and preset.
    pub features_enabled: usize,
    /// Report folders of the findings, by signature.
    pub findings: BTreeMap<String, String>,
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
    store: ReportStore,
    sent: Vec<Sent>,
}

impl Campaign {
    /// A campaign generating from `profile` (the intersection of the engines' profiles).
    pub fn new(
        engines: Vec<Box<dyn Engine>>,
        profile: DialectProfile,
        mut config: CampaignConfig,
    ) -> Result<Self, CampaignError> {
        // Only the differential oracle reads values; the crash oracle needs
        // outcomes and row counts, so adapters may skip decoding.
        config.exec.values = config.oracles.contains(&OracleKind::Differential);
        if engines.is_empty() {
            return Err(CampaignError::Config("a campaign needs at least one engine".into()));
        }
        if config.oracles.contains(&OracleKind::Differential) && engines.len() < 2 {
            return Err(CampaignError::Config("the differential oracle needs two or more engines".into()));
        }
        if config.queries_per_graph == 0 {
            return Err(CampaignError::Config("queries per graph must be at least 1".into()));
        }
        config.graph.validate().map_err(|e| CampaignError::Config(e.to_string()))?;
        config.generator.validate().map_err(|e| CampaignError::Config(e.to_string()))?;
        std::fs::create_dir_all(&config.out)
            .map_err(|e| CampaignError::Report(ReportError::Io { path: config.out.clone(), source: e }))?;
        let store = ReportStore::open(&config.out)?;
        Ok(Self { engines, profile, config, store, sent: Vec::new() })
    }

    /// Runs until the budget is spent; `progress` sees the summary after each query.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Summary)) -> Result<Summary, CampaignError> {
        let started = Instant::now();
        let names: Vec<String> = self.engines.iter().map(|e| e.name().to_owned()).collect();
        let mut s = Summary {
            seed: self.config.seed,
            oracles: self.config.oracles.iter().map(|o| o.name()).collect(),
            dialect: self.profile.name.clone(),
            engines: self
                .engines
                .iter()
                .map(|e| EngineSummary {
                    spec: e.name().into(),
                    version: e.version().into(),
                    ..EngineSummary::default()
                })
                .collect(),
            ..Summary::default()
        };
        let mut used: BTreeSet<Feature> = BTreeSet::new();
        let mut engine_time = Duration::ZERO;
        let budget = self.config.budget;
        let done = |s: &Summary| match budget {
            Budget::Queries(n) => s.queries >= n,
            Budget::Time(t) => started.elapsed() >= t,
        };
        // Owned copies: the generator borrows them while the engines are borrowed mutably.
        let (profile, generator_config) = (self.profile.clone(), self.config.generator.clone());
        let mut graph_index = 0u64;
        'graphs: while !done(&s) {
            let graph_seed = derive_rng(self.config.seed, &[stream::GRAPH, graph_index]).random::<u64>();
            let graph = generate(graph_seed, &self.config.graph).map_err(|e| CampaignError::Config(e.to_string()))?;
            for e in &mut self.engines {
                e.load(&graph)?;
            }
            if self.config.record {
                self.sent.push(Sent::Load(Box::new(graph.clone())));
            }
            s.graphs += 1;
            let generator = Generator::new(&graph, &profile, &generator_config);
            // GDsmith resets both kinds of feedback with each graph.
            let mut pool: Vec<Generated> = Vec::new();
            let mut frequencies = KeyFrequencies::new();
            for case_index in 0..self.config.queries_per_graph {
                if done(&s) {
                    break 'graphs;
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
                used.extend(query.features.iter().copied());

                let (outcomes, waited) = self.execute_all(&query.text)?;
                engine_time += waited.iter().sum::<Duration>();
                s.queries += 1;
                for ((summary, outcome), w) in s.engines.iter_mut().zip(&outcomes).zip(&waited) {
                    count(summary, outcome, *w, &query.text);
                }
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
                        if pool.len() >= 200 {
                            pool.remove(0);
                        }
                        pool.push(query.clone());
                    }
                }

                let shape = shape(&query.query);
                let types = result_types(&query.query, &graph.schema).unwrap_or_default();
                let kinds = column_kinds(&query.query, &types);
                let order = query.order_columns.as_deref();
                let verdict = judge(&self.config.oracles, &names, &outcomes, order, &shape, &kinds);
                if let Verdict::Finding { oracle, signature, summary, family } = verdict {
                    // A signature confirmed before is counted without re-running:
                    // a frequent bug would otherwise double the cost of its queries.
                    if let Some((known, dir)) = self.store.count_known(&signature)? {
                        s.findings_duplicate += 1;
                        s.findings.insert(known, dir.display().to_string());
                        s.seconds = started.elapsed().as_secs_f64();
                        progress(&s);
                        continue;
                    }
                    // Confirm: the same signature again on a second run, else flaky.
                    let (again, waited) = self.execute_all(&query.text)?;
                    engine_time += waited.iter().sum::<Duration>();
                    let recheck = judge(&self.config.oracles, &names, &again, order, &shape, &kinds);
                    let reproduced = matches!(&recheck, Verdict::Finding { signature: sig, .. } if *sig == signature);
                    // A process that died or hung did so, whatever the re-run
                    // does: it is kept, marked as not reproduced.
                    let process_fault =
                        family.starts_with("crash:") && (family.ends_with(":crash") || family.ends_with(":timeout"));
                    if !reproduced && !process_fault {
                        s.flaky += 1;
                    } else {
                        if !reproduced {
                            s.unreproduced_faults += 1;
                        }
                        // Reduce the first time this signature shows up; later
                        // ones map to the reduced signature found then.
                        let mut found =
                            (query.text.clone(), query.query.clone(), query.order_columns.clone(), outcomes);
                        let (mut signature, mut shape, mut kinds, mut summary) = (signature, shape, kinds, summary);
                        let mut original = None;
                        let generated_signature = signature.clone();
                        if let Some(known) = self.store.reduction_of(&signature) {
                            signature = known.clone();
                        } else if self.config.reduce && reproduced {
                            let start =
                                Candidate { query: query.query.clone(), order_columns: query.order_columns.clone() };
                            let mut reducer = Reducer {
                                engines: &mut self.engines,
                                names: &names,
                                oracles: &self.config.oracles,
                                exec: &self.config.exec,
                                schema: &graph.schema,
                                budget: REDUCTION_BUDGET,
                            };
                            let t = Instant::now();
                            let reduced = reducer.reduce(start, &family)?;
                            engine_time += t.elapsed();
                            if let Some(r) = reduced
                                && let Verdict::Finding { signature: sig, summary: sum, .. } = &r.verdict
                            {
                                original = Some(found.0.clone());
                                shape = super::reduce::shape(&r.candidate.query);
                                let types = result_types(&r.candidate.query, &graph.schema).unwrap_or_default();
                                kinds = column_kinds(&r.candidate.query, &types);
                                signature = sig.clone();
                                summary = sum.clone();
                                found = (r.text, r.candidate.query, r.candidate.order_columns, r.outcomes);
                            }
                        }
                        let (text, ast, order_columns, outcomes) = found;
                        let mut case = Case {
                            format: CASE_FORMAT,
                            oracle,
                            oracles: self.config.oracles.clone(),
                            signature: signature.clone(),
                            generated_signature,
                            summary,
                            seed: self.config.seed,
                            graph_index,
                            case_index,
                            engines: self
                                .engines
                                .iter()
                                .map(|e| EngineRecord { spec: e.name().into(), version: e.version().into() })
                                .collect(),
                            graph: graph.clone(),
                            query: text,
                            original_query: original,
                            ast,
                            order_columns,
                            shape,
                            column_kinds: kinds,
                            outcomes,
                            row_counts: Vec::new(),
                            reproduced,
                        };
                        case.trim_rows();
                        match self.store.record(&case)? {
                            Recorded::New(dir) => {
                                s.findings_new += 1;
                                s.findings.insert(signature, dir.display().to_string());
                            }
                            Recorded::Duplicate(dir) => {
                                s.findings_duplicate += 1;
                                s.findings.insert(signature, dir.display().to_string());
                            }
                        }
                    }
                }
                s.seconds = started.elapsed().as_secs_f64();
                progress(&s);
            }
            graph_index += 1;
        }
        s.seconds = started.elapsed().as_secs_f64();
        s.queries_per_second = s.queries as f64 / s.seconds.max(1e-9);
        s.harness_seconds = (started.elapsed().saturating_sub(engine_time)).as_secs_f64();
        let enabled = self.config.generator.enabled(&self.profile);
        s.features_enabled = enabled.len();
        s.features_used = enabled.iter().filter(|f| used.contains(f)).count();
        let path = self.config.out.join("summary.json");
        std::fs::write(&path, serde_json::to_string_pretty(&s).expect("summaries serialize") + "\n")
            .map_err(|e| CampaignError::Report(ReportError::Io { path, source: e }))?;
        Ok(s)
    }

    /// What the campaign sent, when recording.
    pub fn sent(&self) -> &[Sent] {
        &self.sent
    }

    fn execute_all(&mut self, text: &str) -> Result<(Vec<Outcome>, Vec<Duration>), CampaignError> {
        let mut outcomes = Vec::with_capacity(self.engines.len());
        let mut waited = Vec::with_capacity(self.engines.len());
        for e in &mut self.engines {
            let t = Instant::now();
            outcomes.push(e.execute(text, &self.config.exec)?);
            waited.push(t.elapsed());
        }
        if self.config.record {
            let disrupted = outcomes.iter().any(|o| matches!(o, Outcome::Crash { .. } | Outcome::Timeout { .. }));
            self.sent.push(Sent::Query { text: text.to_owned(), elapsed: waited.iter().sum(), disrupted });
        }
        Ok((outcomes, waited))
    }
}

/// Distinct error messages kept per engine; the rest only count by class.
const ERROR_KINDS: usize = 50;

fn count(summary: &mut EngineSummary, outcome: &Outcome, waited: Duration, query: &str) {
    summary.engine_seconds += waited.as_secs_f64();
    if let Outcome::Error { class, message } = outcome {
        let key = format!("{}: {}", class.name(), crate::judge::normalize(message));
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
        Outcome::Error { class, .. } => *summary.rejected.entry(class.name()).or_default() += 1,
        Outcome::Crash { .. } => summary.crashes += 1,
        Outcome::Timeout { .. } => summary.timeouts += 1,
        Outcome::TooLarge { .. } => summary.too_large += 1,
    }
}
