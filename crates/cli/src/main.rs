//! The `graphlancer` command line: argument parsing, output and exit codes.
//!
//! Exit codes: 0 success, 2 a usage or setup error (unknown engine, an
//! unreachable server, a missing install, a bad value), with one line on stderr.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use graphlancer_cypher::{DialectProfile, GraphLimits};
use graphlancer_engines::host::serve;
use graphlancer_engines::{EngineSpec, ExecOptions};
use graphlancer_model::{Graph, GraphConfig, Language, ScriptDialect, creation_script, generate};

/// `println!` and `print!` that return the write's error instead of
/// panicking: a reader that closes standard output early (`| head`) ends
/// the command with an error line, not a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        std::io::Write::write_fmt(&mut std::io::stdout().lock(), format_args!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! say_raw {
    ($($arg:tt)*) => {
        std::io::Write::write_fmt(&mut std::io::stdout().lock(), format_args!($($arg)*))
    };
}

mod bugs;
mod common;
mod coverage;
mod engines;
mod generate;
mod junit;
mod known;
mod listen;
mod merge;
mod probe;
mod report;
mod run;
mod table;
mod tck;
mod triage;
mod workers;

use common::{describe, graph_limits, limited, open_options, parse_duration, speaks};

/// A third of the generator's time went to the system allocator's malloc
/// and free (many small ASTs built and dropped); mimalloc halves that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Finds bugs in graph database engines with generated graphs and queries.
#[derive(Debug, Parser)]
#[command(name = "graphlancer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the schema and graph generated from a seed.
    Graph {
        #[command(flatten)]
        graph: GraphArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = GraphFormat::Cypher)]
        format: GraphFormat,
        /// The dialect profile whose graphs and creation script to print:
        /// neo4j5 (or neo4j), memgraph, falkordb, grafeo, kuzu, arcadedb.
        #[arg(long, default_value = "neo4j5", value_parser = dialect_profile)]
        dialect: DialectProfile,
    },
    /// Loads the generated graph into an engine and runs queries on it.
    Exec {
        /// The engine spec (`graphlancer engines` lists them): grafeo, falkordb,
        /// kuzu@0.11.3, arcadedb, bolt://HOST:PORT?dialect=neo4j5, ...
        #[arg(long, default_value = "grafeo")]
        engine: String,
        #[command(flatten)]
        graph: GraphArgs,
        /// Load the (reduced) graph of this finding's folder instead of a
        /// generated one: for trying variants of a report's query.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["seed", "nodes", "rels"])]
        case: Option<std::path::PathBuf>,
        /// Per-query timeout, e.g. 10s or 500ms.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
        /// Print outcomes as JSON lines instead of tables.
        #[arg(long)]
        json: bool,
        /// The queries' language: cypher or gremlin.
        #[arg(long, default_value = "cypher")]
        language: Language,
        /// Queries to run, in order.
        #[arg(required = true)]
        queries: Vec<String>,
    },
    /// Runs a campaign: generated graphs and queries on one or more engines, judged by oracles.
    Run(run::RunArgs),
    /// Joins the folders of a campaign's shards (`run --shard I/N`) into one:
    /// findings deduplicated by signature, summaries added up.
    Merge {
        /// The folder to write; it must not hold a campaign yet.
        #[arg(long)]
        out: std::path::PathBuf,
        /// The campaigns' folders.
        #[arg(required = true)]
        inputs: Vec<std::path::PathBuf>,
    },
    /// Writes OUT/report.html: one self-contained page about a campaign
    /// (summary, plots over time, coverage, errors, each finding with the
    /// engines' answers side by side).
    Report {
        /// The campaign's folder (with summary.json).
        out: std::path::PathBuf,
    },
    /// Writes BUGS.md and bugs.json: one ledger over campaign folders, an
    /// entry per root cause, with its reproducer in the engine's own client,
    /// the releases it was seen on and bisected to, and with --live whether
    /// the newest release still shows it.
    Bugs {
        /// The campaigns' folders.
        #[arg(required = true)]
        outs: Vec<std::path::PathBuf>,
        /// Where the ledger goes; default: the one campaign folder given.
        #[arg(long)]
        ledger: Option<std::path::PathBuf>,
        /// Re-run each bug on the newest release of its engine (installed as needed).
        #[arg(long)]
        live: bool,
        /// Bisect each bug not bisected yet over its engine's releases
        /// (installed as needed), writing the result into its report.
        #[arg(long)]
        bisect: bool,
        /// Per-query timeout of the live re-runs.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
    },
    /// Runs a finding again: exit 0 if it reproduces, 1 if not, 2 on error.
    Replay {
        /// The finding's folder (with case.json).
        dir: std::path::PathBuf,
        /// Per-query timeout.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
    },
    /// Reduces a finding further and writes it back (a finding written with
    /// --no-reduce, one whose reduction stopped at its limits, or one from an
    /// older campaign): exit 0 when done, 1 if it no longer reproduces.
    Reduce {
        /// The finding's folder (with case.json).
        dir: std::path::PathBuf,
        /// Per-query timeout.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
        /// Candidates to run on the engines, at most.
        #[arg(long, default_value_t = 2000)]
        candidates: usize,
        /// Time to spend, at most.
        #[arg(long, default_value = "10m", value_parser = parse_duration)]
        time: Duration,
    },
    /// Finds which released versions of an engine show a finding (kuzu,
    /// ladybug, ryugraph, arcadedb, grafeo, falkordb; installed as needed)
    /// and writes it into the report.
    Bisect {
        /// The finding's folder (with case.json).
        dir: std::path::PathBuf,
        /// The engine family whose releases to try.
        #[arg(long)]
        engine: String,
        /// Which of the finding's engines the releases stand in for, by its
        /// spec (e.g. kuzu@0.10.0); default: the last of the family. In a
        /// finding between two versions, the one whose answer is wrong.
        #[arg(long)]
        replace: Option<String>,
        /// Per-query timeout.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
    },
    /// Lists the engine specs graphlancer knows, what each needs and whether
    /// it is installed; with specs named, opens each and says if it answers.
    Engines {
        /// Specs to check, e.g. falkordb kuzu@0.10.0 bolt://127.0.0.1:7687.
        specs: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// List the optimization switches of the engines named (or of all).
        #[arg(long)]
        settings: bool,
        /// Probe each engine named: run every construct's example on it,
        /// cache what the release accepts, and list what it refuses.
        #[arg(long, conflicts_with = "settings")]
        probe: bool,
    },
    /// Runs the openCypher TCK's scenarios (the `.feature` files under a
    /// folder: openCypher's `tck/features`, fetched by you) on the reference
    /// or on an engine, and prints the pass rate per feature file. Exit 0
    /// when nothing failed, 1 when a scenario failed, 2 on error.
    Tck {
        /// The folder of feature files.
        dir: std::path::PathBuf,
        /// `reference`, or an engine spec as for `run`.
        #[arg(long, default_value = "reference")]
        engine: String,
        /// Only feature files whose path contains this text, e.g. `clauses/match`.
        #[arg(long)]
        filter: Option<String>,
        /// Print every failed scenario with its query and how it failed.
        #[arg(long)]
        failures: bool,
        /// Print every scenario's verdict as JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Per-query timeout on an engine.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
    },
    /// Benchmarks: `generate` measures the generator's queries a second
    /// (one core, differential preset); `overhead` graphlancer's own share
    /// of a campaign; `reference` times the same generated queries on
    /// engines and on the reference (median per query).
    Bench {
        /// What to measure: generate, overhead, reference.
        what: String,
        /// For `reference`: the engines to time against (default grafeo, falkordb).
        #[arg(long = "engine")]
        engines: Vec<String>,
        /// Queries in the campaign, default 2000 (for `generate`: queries per dialect, default 100000).
        #[arg(long)]
        queries: Option<u64>,
        /// Campaign seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Runs of each side; the fastest of each counts.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
    },
    /// Prints generated queries: a pure function of its inputs.
    Generate {
        #[command(flatten)]
        generate: generate::GenerateArgs,
        /// Seed of the graph the queries are generated against.
        #[arg(long, default_value_t = 0)]
        graph_seed: u64,
        /// One query a line, or JSON objects with the AST, skeleton and features.
        #[arg(long, value_enum, default_value_t = QueryFormat::Lines)]
        format: QueryFormat,
        /// Instead of printing queries, measure the generator against the
        /// openCypher grammar and the Cypher manual's functions: per dialect
        /// (each of `--dialect`, default all), which constructs `--count`
        /// queries contain, which the profile refuses and which no
        /// production writes. Preset: crash unless given.
        #[arg(long)]
        coverage: bool,
        /// With --coverage: also run each construct's example on these
        /// engines (repeat for several), to show what each accepts.
        #[arg(long = "engine", requires = "coverage")]
        engines: Vec<String>,
        /// With --coverage: print the table as JSON.
        #[arg(long, requires = "coverage")]
        json: bool,
    },
    /// Runs generated queries on an engine and reports rejection, non-empty and coverage rates.
    Validity {
        /// The engine to run them on.
        #[arg(long, default_value = "grafeo")]
        engine: String,
        #[command(flatten)]
        generate: generate::GenerateArgs,
        /// Seed of the graph.
        #[arg(long, default_value_t = 0)]
        graph_seed: u64,
        /// Per-query timeout.
        #[arg(long, default_value = "10s", value_parser = parse_duration)]
        timeout: Duration,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serves an embedded engine over stdin/stdout (started by graphlancer itself).
    #[command(hide = true)]
    EngineHost {
        /// The embedded engine to host.
        engine: String,
        /// Its settings, `name=value&...`.
        #[arg(long, default_value = "")]
        settings: String,
    },
}

#[derive(Debug, clap::Args)]
struct GraphArgs {
    /// Seed of the schema and graph.
    #[arg(long = "seed", visible_alias = "graph-seed", default_value_t = 0)]
    seed: u64,
    /// Number of nodes.
    #[arg(long)]
    nodes: Option<usize>,
    /// Number of relationships.
    #[arg(long)]
    rels: Option<usize>,
}

impl GraphArgs {
    /// The graph these arguments name, within what the engines can hold.
    fn generate(&self, limits: GraphLimits) -> Result<Graph> {
        let mut config = GraphConfig::default();
        limits.apply(&mut config);
        if let Some(n) = self.nodes {
            config.nodes = n;
        }
        if let Some(m) = self.rels {
            config.relationships = m;
        }
        Ok(generate(self.seed, &config)?)
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GraphFormat {
    /// A creation script with the schema as comments.
    Cypher,
    /// The schema and graph as one JSON object.
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum QueryFormat {
    /// One query a line.
    Lines,
    /// One JSON object a line.
    Jsonl,
}

/// The built-in dialect profile called `name`.
fn dialect_profile(name: &str) -> Result<DialectProfile, String> {
    let name = if name == "neo4j" { "neo4j5" } else { name };
    DialectProfile::built_in(name).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Campaigns and reductions stop at the next query on SIGINT or SIGTERM,
    // write what they have and stop their servers; a second signal ends the
    // process at once. Other commands keep the default (their servers and
    // hosts die with the process all the same).
    if matches!(cli.command, Command::Run(_) | Command::Reduce { .. })
        && let Err(e) = stop_on_signals()
    {
        eprintln!("graphlancer: cannot handle SIGINT and SIGTERM: {e}");
        return ExitCode::from(2);
    }
    let result = run(cli);
    if let Some(signal) = graphlancer_oracles::interrupt::requested() {
        eprintln!("graphlancer: stopped by {}", graphlancer_oracles::interrupt::name(signal));
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(130));
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("graphlancer: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Connects SIGINT and SIGTERM to the campaign's stop flag.
fn stop_on_signals() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = graphlancer_oracles::interrupt::flag();
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag before this signal sets it.
        let set = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, set.clone())?;
        signal_hook::flag::register(signal, set)?;
        signal_hook::flag::register_usize(signal, flag.clone(), usize::try_from(signal).unwrap_or(15))?;
    }
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Graph { graph, format, dialect } => {
            let g = graph.generate(dialect.graph)?;
            let mut out = std::io::stdout().lock();
            match format {
                GraphFormat::Json => {
                    serde_json::to_writer_pretty(&mut out, &g)?;
                    writeln!(out)?;
                }
                GraphFormat::Cypher => {
                    write!(out, "{}", schema_comment(&g))?;
                    for statement in creation_script(&g, dialect.graph.script.unwrap_or(ScriptDialect::Cypher)) {
                        writeln!(out, "{statement};")?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Exec { engine, graph, case, timeout, json, language, queries } => {
            let spec: EngineSpec = engine.parse()?;
            let mut db = graphlancer_reference::open(&spec, &open_options()?)?;
            speaks(db.as_ref(), language)?;
            let (g, source) = match &case {
                Some(dir) => {
                    let case = graphlancer_oracles::report::read_case(&dir.join("case.json"))?;
                    (case.graph, format!("graph of {}", dir.display()))
                }
                None => (graph.generate(graph_limits(db.dialect(), language)?)?, format!("graph seed {}", graph.seed)),
            };
            db.load(&g)?;
            let opts = ExecOptions { timeout, language, ..ExecOptions::default() };
            let mut out = std::io::stdout().lock();
            if !json {
                writeln!(
                    out,
                    "{} {} · {source} · {} nodes, {} relationships",
                    db.name(),
                    db.version(),
                    g.nodes.len(),
                    g.relationships.len()
                )?;
            }
            for query in &queries {
                let outcome = db.execute(query, &opts)?;
                if json {
                    let line = serde_json::json!({"engine": db.name(), "query": query, "result": outcome});
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "\n> {query}")?;
                    writeln!(out, "{}", describe(&outcome))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Generate { generate: args, coverage: true, engines, json, .. } => {
            let table = coverage::measure(&args, &engines)?;
            if json {
                say!("{}", serde_json::to_string_pretty(&table)?)?;
            } else {
                say_raw!("{}", table.markdown())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Generate { generate: args, graph_seed, format, .. } => {
            let g = generate(graph_seed, &limited(args.graph_limits("grafeo")?))?;
            generate::print(&args, &g, matches!(format, QueryFormat::Jsonl))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Validity { engine, generate: args, graph_seed, timeout, json } => {
            let spec: EngineSpec = engine.parse()?;
            let mut db = graphlancer_reference::open(&spec, &open_options()?)?;
            speaks(db.as_ref(), args.language)?;
            let g = generate(graph_seed, &limited(args.graph_limits(db.dialect())?))?;
            let v =
                generate::validity(&args, &g, db.as_mut(), ExecOptions { timeout, ..ExecOptions::default() }, json)?;
            if json {
                say!("{}", serde_json::to_string_pretty(&v)?)?;
            } else {
                say_raw!("{}", generate::report(&v))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(args) => run::run(args),
        Command::Merge { out, inputs } => merge::merge(&out, &inputs),
        Command::Report { out } => {
            let page = report::write(&out)?;
            say!("{}", page.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Tck { dir, engine, filter, failures, json, timeout } => {
            tck::run(&dir, &engine, filter.as_deref(), failures, json, timeout)
        }
        Command::Engines { specs, json, settings: true, .. } => engines::settings(&specs, json),
        Command::Engines { specs, json, probe: true, .. } => engines::probe(&specs, json),
        Command::Engines { specs, json, .. } => engines::run(&specs, json),
        Command::Replay { dir, timeout } => triage::replay(&dir, timeout),
        Command::Bugs { outs, ledger, live, bisect, timeout } => {
            bugs::run(&outs, ledger.as_deref(), live, bisect, timeout)
        }
        Command::Bisect { dir, engine, replace, timeout } => triage::bisect(&dir, &engine, replace.as_deref(), timeout),
        Command::Reduce { dir, timeout, candidates, time } => {
            triage::reduce(&dir, timeout, graphlancer_oracles::reduce::Limits { candidates, time })
        }
        Command::Bench { what, engines, queries, seed, repeat } => match what.as_str() {
            "overhead" => run::bench_overhead(queries.unwrap_or(2000), seed, repeat),
            "reference" => {
                let engines = if engines.is_empty() { vec!["grafeo".into(), "falkordb".into()] } else { engines };
                let count = usize::try_from(queries.unwrap_or(2000)).context("--queries is too large")?;
                for row in generate::bench_reference(&engines, count, seed)? {
                    say!("{}", serde_json::to_string(&row)?)?;
                }
                Ok(ExitCode::SUCCESS)
            }
            "generate" => {
                // A campaign's default is far too few to time a generator.
                let n = queries.unwrap_or(100_000);
                for dialect in graphlancer_cypher::throughput::DIALECTS {
                    let t = graphlancer_cypher::throughput::measure(dialect, n).map_err(|e| anyhow::anyhow!(e))?;
                    say!("{t}")?;
                }
                Ok(ExitCode::SUCCESS)
            }
            other => bail!("unknown benchmark '{other}' (known: generate, overhead, reference)"),
        },
        Command::EngineHost { engine, settings } => {
            if engine == "graphersal" {
                let mut backend = graphlancer_engines::graphersal::GraphersalBackend::new();
                serve(&mut backend, std::io::stdin().lock(), std::io::stdout().lock())?;
                return Ok(ExitCode::SUCCESS);
            }
            if engine != "grafeo" {
                bail!("no embedded engine named '{engine}' (known: grafeo, graphersal)");
            }
            let settings = graphlancer_engines::settings::Settings::parse(
                &settings,
                graphlancer_engines::grafeo::settings::SWITCHES,
            )
            .map_err(|e| anyhow::anyhow!("grafeo: {e}"))?;
            let mut backend = graphlancer_engines::grafeo::GrafeoBackend::with_settings(settings);
            serve(&mut backend, std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn schema_comment(g: &Graph) -> String {
    let mut s = String::new();
    let key_list = |keys: &[String]| -> String {
        keys.iter()
            .map(|k| format!("{} {}", k, g.schema.key_type(k).map_or("?", |t| t.name())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    s.push_str(&format!("// {} nodes, {} relationships\n", g.nodes.len(), g.relationships.len()));
    for l in &g.schema.labels {
        s.push_str(&format!("// label {}: {}\n", l.name, key_list(&l.keys)));
    }
    for t in &g.schema.rel_types {
        let ends: Vec<String> = t.endpoints.iter().map(|(a, b)| format!("({a})->({b})")).collect();
        s.push_str(&format!("// type {} {}: {}\n", t.name, ends.join(" "), key_list(&t.keys)));
    }
    s
}
