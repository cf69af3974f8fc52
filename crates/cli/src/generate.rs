//! `graphlancer generate` and `graphlancer validity`: queries from the
//! generator, printed or run on an engine with the rates that judge it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use graphlancer_cypher::{DialectProfile, Generated, Generator, GeneratorConfig, Preset};
use graphlancer_engines::{Engine, ExecOptions, Outcome};
use graphlancer_gremlin::{GremlinConfig, GremlinDialect, TraversalGenerator};
use graphlancer_model::rng::stream;
use graphlancer_model::{Graph, Language, derive_rng};
use serde::Serialize;

/// Options shared by the commands that generate queries.
#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
    /// Dialect profile, or several joined by commas for their intersection
    /// (neo4j5, memgraph, falkordb, grafeo, kuzu, arcadedb). Default: the
    /// engine's own, or grafeo when there is no engine.
    #[arg(long)]
    pub dialect: Option<String>,
    /// Seed of the queries.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of queries.
    #[arg(long, default_value_t = 100)]
    pub count: usize,
    /// Preset: differential, crash or readonly.
    #[arg(long, value_enum)]
    pub preset: Option<PresetArg>,
    /// A TOML file overriding the preset (weights, clause and depth limits).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The language generated: cypher or gremlin. Gremlin dialects:
    /// tinkerpop, grafeo, graphersal.
    #[arg(long, default_value = "cypher")]
    pub language: Language,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum PresetArg {
    Differential,
    Crash,
    Readonly,
}

impl GenerateArgs {
    /// The profile asked for, or `fallback`'s.
    pub(crate) fn profile(&self, fallback: &str) -> Result<DialectProfile> {
        let profiles = self
            .dialect
            .as_deref()
            .unwrap_or(fallback)
            .split(',')
            .map(|d| DialectProfile::built_in(d.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DialectProfile::intersect(&profiles))
    }

    pub(crate) fn config(&self) -> Result<GeneratorConfig> {
        let preset = self.preset.map(|p| match p {
            PresetArg::Differential => Preset::Differential,
            PresetArg::Crash => Preset::Crash,
            PresetArg::Readonly => Preset::Readonly,
        });
        Ok(match &self.config {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
                GeneratorConfig::from_toml_with(&text, preset).with_context(|| format!("in {}", path.display()))?
            }
            None => GeneratorConfig::preset(preset.unwrap_or_default()),
        })
    }

    /// The Gremlin dialect asked for (several joined by commas for the
    /// steps they share), or `fallback`'s.
    pub(crate) fn gremlin_dialect(&self, fallback: &str) -> Result<GremlinDialect> {
        let mut out: Option<GremlinDialect> = None;
        for name in self.dialect.as_deref().unwrap_or(fallback).split(',') {
            let d = GremlinDialect::builtin(name.trim()).ok_or_else(|| {
                anyhow::anyhow!("unknown Gremlin dialect '{}' (known: tinkerpop, grafeo, graphersal)", name.trim())
            })?;
            out = Some(match out {
                None => d.clone(),
                Some(o) => o.intersect(d),
            });
        }
        out.ok_or_else(|| anyhow::anyhow!("no Gremlin dialect named"))
    }

    /// The graphs generated for these queries: the profile's limits for
    /// Cypher (`fallback`'s without `--dialect`), one label a vertex for Gremlin.
    pub(crate) fn graph_limits(&self, fallback: &str) -> Result<graphlancer_cypher::GraphLimits> {
        match self.language {
            Language::Cypher => Ok(self.profile(fallback)?.graph),
            Language::Gremlin => crate::common::graph_limits(fallback, Language::Gremlin),
        }
    }

    /// The Gremlin generator's configuration for the preset: only the
    /// crash preset lets order-dependent steps through.
    pub(crate) fn gremlin_config(&self) -> GremlinConfig {
        GremlinConfig { deterministic: !matches!(self.preset, Some(PresetArg::Crash)), ..GremlinConfig::default() }
    }
}

/// Generates traversal `index` of a run: each has its own stream, as queries do.
pub(crate) fn nth_traversal(
    generator: &TraversalGenerator<'_>,
    seed: u64,
    index: usize,
) -> graphlancer_gremlin::GeneratedTraversal {
    generator.generate(&mut derive_rng(seed, &[stream::QUERY, index as u64]))
}

/// Generates query `index` of a run: each has its own stream, so any one
/// regenerates alone.
pub(crate) fn nth(generator: &Generator<'_>, seed: u64, index: usize) -> Generated {
    generator.generate(&mut derive_rng(seed, &[stream::QUERY, index as u64]))
}

#[derive(Serialize)]
struct JsonQuery<'a> {
    index: usize,
    text: &'a str,
    clauses: usize,
    features: Vec<&'static str>,
    skeleton: &'a graphlancer_cypher::Skeleton,
    order_columns: &'a Option<Vec<usize>>,
    query: &'a graphlancer_cypher::Query,
}

/// Prints queries, one a line or one JSON object a line.
pub(crate) fn print(args: &GenerateArgs, graph: &Graph, jsonl: bool) -> Result<()> {
    if args.language == Language::Gremlin {
        return print_gremlin(args, graph, jsonl);
    }
    let profile = args.profile("grafeo")?;
    let config = args.config()?;
    let generator = Generator::new(graph, &profile, &config);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for i in 0..args.count {
        let g = nth(&generator, args.seed, i);
        if jsonl {
            let line = JsonQuery {
                index: i,
                text: &g.text,
                clauses: g.clause_count,
                features: g.features.iter().map(|f| f.name()).collect(),
                skeleton: &g.skeleton,
                order_columns: &g.order_columns,
                query: &g.query,
            };
            serde_json::to_writer(&mut out, &line)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{}", g.text)?;
        }
    }
    out.flush()?;
    Ok(())
}

fn print_gremlin(args: &GenerateArgs, graph: &Graph, jsonl: bool) -> Result<()> {
    let dialect = args.gremlin_dialect("tinkerpop")?;
    let config = args.gremlin_config();
    let generator = TraversalGenerator::new(graph, &dialect, &config);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for i in 0..args.count {
        let g = nth_traversal(&generator, args.seed, i);
        let text = graphlancer_gremlin::render(&g.traversal, &dialect);
        if jsonl {
            let line = serde_json::json!({
                "index": i,
                "text": text,
                "steps": g.traversal.size(),
                "features": g.traversal.step_names(),
                "ordered": g.ordered,
                "traversal": g.traversal,
            });
            serde_json::to_writer(&mut out, &line)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{text}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// What running generated queries on one engine showed.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Validity {
    engine: String,
    dialect: String,
    preset: &'static str,
    queries: usize,
    accepted: usize,
    rejected: BTreeMap<&'static str, usize>,
    crashes: usize,
    /// Answers graphlancer could not read (its fault, not the engine's).
    undecodable: usize,
    timeouts: usize,
    non_empty: usize,
    rejection_rate: f64,
    non_empty_rate: f64,
    /// (queries, non-empty) by clause count (steps for Gremlin).
    by_clauses: BTreeMap<usize, (usize, usize)>,
    /// Enabled productions no query used.
    never_used: Vec<&'static str>,
    /// Enabled productions the generator leaves out for these engines, with why.
    steered_off: Vec<(&'static str, &'static str)>,
    /// The first rejected queries with the engine's message.
    rejections: Vec<(String, String)>,
    seconds: f64,
    /// Productions (or steps) the queries used.
    #[serde(skip)]
    used: BTreeSet<&'static str>,
}

/// One generated query as validity counts it.
struct Probe {
    text: String,
    /// The AST of a Cypher query, for the reference.
    ast: Option<graphlancer_cypher::ast::Query>,
    /// Clauses (Cypher) or steps (Gremlin).
    length: usize,
    features: Vec<&'static str>,
}

/// Generates and runs `args.count` queries on `engine`.
pub(crate) fn validity(
    args: &GenerateArgs,
    graph: &Graph,
    engine: &mut dyn Engine,
    timeout: ExecOptions,
    json: bool,
) -> Result<Validity> {
    engine.load(graph)?;
    if args.language == Language::Gremlin {
        let dialect = args.gremlin_dialect(engine.dialect())?;
        let config = args.gremlin_config();
        let generator = TraversalGenerator::new(graph, &dialect, &config);
        let probes = (0..args.count).map(|i| {
            let g = nth_traversal(&generator, args.seed, i);
            Probe {
                text: graphlancer_gremlin::render(&g.traversal, &dialect),
                ast: None,
                length: g.traversal.size(),
                features: g.traversal.step_names().into_iter().collect(),
            }
        });
        let opts = ExecOptions { language: Language::Gremlin, ..timeout };
        let preset = if config.deterministic { "differential" } else { "crash" };
        let mut v = tally(engine, &dialect.name, preset, probes, opts, args.count, json)?;
        v.steered_off = dialect.differs.iter().filter(|(s, _)| dialect.steps.contains(s)).copied().collect();
        v.never_used = config.enabled(&dialect).into_iter().filter(|s| !v.used.contains(s)).collect();
        return Ok(v);
    }
    let profile = args.profile(engine.dialect())?;
    let config = args.config()?;
    let generator = Generator::new(graph, &profile, &config);
    let probes = (0..args.count).map(|i| {
        let g = nth(&generator, args.seed, i);
        Probe {
            text: g.text,
            ast: Some(g.query),
            length: g.clause_count,
            features: g.features.iter().map(|f| f.name()).collect(),
        }
    });
    let mut v = tally(engine, &profile.name, config.preset.name(), probes, timeout, args.count, json)?;
    let steered = generator.steered_off();
    v.steered_off = steered.iter().map(|(f, why)| (f.name(), *why)).collect();
    v.never_used = config
        .enabled(&profile)
        .into_iter()
        .filter(|f| !v.used.contains(f.name()) && !steered.iter().any(|(s, _)| s == f))
        .map(|f| f.name())
        .collect();
    Ok(v)
}

/// Runs `probes` on `engine` and counts what happened.
fn tally(
    engine: &mut dyn Engine,
    dialect: &str,
    preset: &'static str,
    probes: impl Iterator<Item = Probe>,
    opts: ExecOptions,
    count: usize,
    json: bool,
) -> Result<Validity> {
    let started = std::time::Instant::now();
    let mut v =
        Validity { engine: engine.name().to_owned(), dialect: dialect.to_owned(), preset, ..Validity::default() };
    let progress_every = (count / 20).max(1);
    // A counter rewritten in place in a terminal; in a log, a line each step.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    for (i, g) in probes.enumerate() {
        v.used.extend(g.features.iter().copied());
        let outcome = engine.execute_generated(&g.text, g.ast.as_ref(), &opts)?;
        v.queries += 1;
        let slot = v.by_clauses.entry(g.length).or_default();
        slot.0 += 1;
        match &outcome {
            Outcome::Rows(r) => {
                v.accepted += 1;
                if !r.rows.is_empty() {
                    v.non_empty += 1;
                    slot.1 += 1;
                }
            }
            Outcome::Open { reason: message } | Outcome::Error { message, .. } => {
                *v.rejected.entry(outcome.kind()).or_default() += 1;
                if v.rejections.len() < 50 {
                    v.rejections.push((g.text.clone(), message.lines().next().unwrap_or("").to_owned()));
                }
            }
            Outcome::Crash { message } => {
                v.crashes += 1;
                v.rejections.push((g.text.clone(), format!("CRASH: {}", message.lines().last().unwrap_or(""))));
            }
            Outcome::Timeout { .. } => {
                v.timeouts += 1;
                v.rejections.push((g.text.clone(), "TIMEOUT".into()));
            }
            // Accepted, but graphlancer could not read the answer: its own gap.
            Outcome::Undecodable { message } => {
                v.accepted += 1;
                v.undecodable += 1;
                v.rejections.push((g.text.clone(), format!("UNDECODABLE: {message}")));
            }
            // Accepted: the answer was just too long to keep.
            Outcome::TooLarge { .. } => {
                v.accepted += 1;
                v.non_empty += 1;
                slot.1 += 1;
            }
        }
        if !json && (i + 1) % progress_every == 0 {
            if terminal {
                eprint!("\r{}/{} queries", i + 1, count);
            } else {
                eprintln!("validity: {}/{} queries", i + 1, count);
            }
        }
    }
    if !json && terminal {
        eprintln!();
    }
    v.seconds = started.elapsed().as_secs_f64();
    let n = v.queries.max(1) as f64;
    v.rejection_rate = v.rejected.values().sum::<usize>() as f64 / n;
    v.non_empty_rate = v.non_empty as f64 / n;
    Ok(v)
}

/// Prints a validity report for people.
pub(crate) fn report(v: &Validity) -> String {
    let mut s = format!(
        "{} · dialect {} · preset {} · {} queries in {:.1} s\n",
        v.engine, v.dialect, v.preset, v.queries, v.seconds
    );
    s.push_str(&format!(
        "accepted {} · rejected {} ({:.2}%) {:?} · crashes {} · timeouts {}\n",
        v.accepted,
        v.rejected.values().sum::<usize>(),
        100.0 * v.rejection_rate,
        v.rejected,
        v.crashes,
        v.timeouts
    ));
    s.push_str(&format!("non-empty {} ({:.1}%)\n", v.non_empty, 100.0 * v.non_empty_rate));
    for (clauses, (n, ne)) in &v.by_clauses {
        s.push_str(&format!(
            "  length {clauses}: {n} queries, {:.1}% non-empty\n",
            100.0 * *ne as f64 / (*n).max(1) as f64
        ));
    }
    for (f, why) in &v.steered_off {
        s.push_str(&format!("steered off: {f} ({why})\n"));
    }
    if !v.never_used.is_empty() {
        s.push_str(&format!("enabled but never generated: {}\n", v.never_used.join(", ")));
    }
    for (q, m) in v.rejections.iter().take(15) {
        s.push_str(&format!("rejected: {q}\n    {m}\n"));
    }
    s
}

/// One engine's timings in `bench reference`.
#[derive(Serialize)]
pub(crate) struct SpeedRow {
    engine: String,
    queries: usize,
    engine_median_ms: f64,
    reference_median_ms: f64,
    ratio: f64,
}

fn median_ms(mut d: Vec<std::time::Duration>) -> f64 {
    d.sort();
    d.get(d.len() / 2).map_or(0.0, |m| m.as_secs_f64() * 1000.0)
}

/// `bench reference`: the same generated queries (each engine's dialect,
/// the differential preset) timed on the engine and on the reference; the
/// medians, and how many times faster the reference is.
pub(crate) fn bench_reference(specs: &[String], count: usize, seed: u64) -> Result<Vec<SpeedRow>> {
    let mut rows = Vec::new();
    for spec in specs {
        let spec: graphlancer_engines::EngineSpec = spec.parse()?;
        let mut db = graphlancer_reference::open(&spec, &crate::common::open_options()?)?;
        let profile = DialectProfile::built_in(db.dialect())?;
        let graph = crate::generate(seed, &crate::common::limited(profile.graph))?;
        db.load(&graph)?;
        let mut reference = graphlancer_reference::engine::Reference::default();
        reference.load(&graph)?;
        let config = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &config);
        let opts = ExecOptions::default();
        let (mut on_engine, mut on_reference) = (Vec::with_capacity(count), Vec::with_capacity(count));
        for i in 0..count {
            let g = nth(&generator, seed, i);
            let started = std::time::Instant::now();
            db.execute(&g.text, &opts)?;
            on_engine.push(started.elapsed());
            let started = std::time::Instant::now();
            reference.execute_generated(&g.text, Some(&g.query), &opts)?;
            on_reference.push(started.elapsed());
        }
        let (e, r) = (median_ms(on_engine), median_ms(on_reference));
        rows.push(SpeedRow {
            engine: db.name().to_owned(),
            queries: count,
            engine_median_ms: e,
            reference_median_ms: r,
            ratio: if r > 0.0 { e / r } else { f64::INFINITY },
        });
    }
    Ok(rows)
}
