//! `graphlancer run` and `graphlancer replay`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use graphlancer_cypher::{DialectProfile, GeneratorConfig, Preset};
use graphlancer_engines::{Engine, EngineSpec, ExecOptions};
use graphlancer_model::{GraphConfig, Language};
use graphlancer_oracles::campaign::{Budget, Part, PlanUse, Subscriber, SummaryFile};
use graphlancer_oracles::reduce::Limits;
use graphlancer_oracles::{Campaign, CampaignConfig, OracleKind, Summary};

use crate::common::open_all;
use crate::listen::AtEnd;

/// Options of `graphlancer run`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// Engines to test (repeat for several); `graphlancer engines` lists them.
    #[arg(long = "engine", default_value = "grafeo", long_help = format!(
        "Engines to test (repeat for several). Known: {}. `graphlancer engines` says which are installed.",
        graphlancer_engines::spec::KNOWN_SPECS
    ))]
    engines: Vec<String>,
    /// Oracles (repeat for several; `graphlancer run --help` lists them).
    /// `rewrite:tautology,null-check` or `metamorphic:symmetry,k-hop` keeps an
    /// oracle to those relations. Default: with one engine every oracle that
    /// needs one; with more, differential and crash.
    #[arg(long = "oracle", long_help = oracle_help())]
    oracles: Vec<String>,
    /// Campaign seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many queries (the default budget is 300 queries).
    #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..))]
    queries: Option<u64>,
    /// Stop after this long, e.g. 10m.
    #[arg(long, value_parser = crate::common::parse_duration)]
    time: Option<Duration>,
    /// Where findings and summary.json go.
    #[arg(long, default_value = "graphlancer-out")]
    out: PathBuf,
    /// Add this campaign's findings to an --out folder that holds another
    /// campaign (another seed, engines, oracles or shard); its summary.json
    /// is kept as summary.previous-N.json. Without it such a folder is
    /// refused; the same campaign run again resumes there.
    #[arg(long)]
    append: bool,
    /// Configuration (TOML): generator preset, limits and weights, and
    /// `[oracles]` weights (how often partition, rewrite and metamorphic run).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Queries per generated graph.
    #[arg(long, default_value_t = 200)]
    queries_per_graph: u64,
    /// Nodes per graph.
    #[arg(long, default_value_t = 30)]
    nodes: usize,
    /// Relationships per graph.
    #[arg(long, default_value_t = 60)]
    rels: usize,
    /// Per-query timeout.
    #[arg(long, default_value = "10s", value_parser = crate::common::parse_duration)]
    timeout: Duration,
    /// Generate around the engines' known bugs even against the reference or
    /// alone, as two engines compared always do (by default such a campaign
    /// writes their shapes and counts their findings under each bug).
    #[arg(long)]
    steer_known_bugs: bool,
    /// Turn off GDsmith's structural mutations (its `!m` ablation).
    #[arg(long)]
    no_mutations: bool,
    /// Turn off GDsmith's property-key frequency feedback (its `!f` ablation).
    #[arg(long)]
    no_frequencies: bool,
    /// Write findings as generated, without reducing their queries first.
    #[arg(long)]
    no_reduce: bool,
    /// Plans: `off`, `count` (read each baseline engine's EXPLAIN of every
    /// query and count the combinations of optimizing operators it used) or
    /// `guide` (count, feed queries with new combinations back to mutation,
    /// and replace a graph after 50 queries with none). Default: guide with
    /// the settings oracle, else off.
    #[arg(long, value_parser = ["off", "count", "guide"])]
    plans: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// The language of the generated queries: cypher or gremlin (Gremlin
    /// engines: grafeo, graphersal; oracles: crash, error, differential).
    #[arg(long, default_value = "cypher")]
    language: Language,
    /// Campaign loops side by side, each with its own engines and its own
    /// graphs, writing into one findings folder. Default: one per core (one
    /// with an engine on a server graphlancer does not start, and one with
    /// ArcadeDB, whose Java server uses the cores itself).
    #[arg(long)]
    workers: Option<u64>,
    /// Also write the findings as JUnit XML (one failed test case each) to
    /// this file, for CI systems.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Also write OUT/report.html when the campaign ends, the page
    /// `graphlancer report OUT` writes.
    #[arg(long)]
    html: bool,
    /// Run shard I of N (`0/4` ... `3/4`): only the graphs whose index is I
    /// modulo N, so N shards on N machines draw the graphs one campaign
    /// would, each once. `graphlancer merge` joins their folders.
    #[arg(long, value_parser = parse_shard)]
    shard: Option<Part>,
}

/// `I/N` with I < N.
fn parse_shard(s: &str) -> Result<Part, String> {
    let bad = || format!("a shard is I/N with 0 <= I < N, e.g. 0/4, not '{s}'");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, of): (u64, u64) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if index >= of || of > u64::from(u32::MAX) {
        return Err(bad());
    }
    Ok(Part { index, of })
}

pub(crate) fn run(args: RunArgs) -> Result<ExitCode> {
    let mut specs: Vec<EngineSpec> = args.engines.iter().map(|e| e.parse()).collect::<Result<_, _>>()?;
    // `--oracle metamorphic:symmetry,k-hop` keeps the oracle to those relations.
    let mut relations: BTreeMap<OracleKind, Vec<String>> = BTreeMap::new();
    let mut named = Vec::new();
    for o in &args.oracles {
        let (name, only) = o.split_once(':').map_or((o.as_str(), None), |(n, r)| (n, Some(r)));
        let kind = graphlancer_oracles::oracle::parse(name).map_err(anyhow::Error::msg)?;
        if let Some(only) = only {
            relations.entry(kind).or_default().extend(only.split(',').map(|r| r.trim().to_owned()));
        }
        named.push(kind);
    }
    let gremlin = args.language == Language::Gremlin;
    let oracles: Vec<OracleKind> = if args.oracles.is_empty() {
        graphlancer_oracles::oracle::registered()
            .filter(|o| o.runs_by_default(specs.len()) && (!gremlin || o.speaks_gremlin()))
            .map(|o| o.kind())
            .collect()
    } else {
        named
    };
    let settings = oracles.contains(&OracleKind::SETTINGS);
    let mut oracles = oracles;
    if settings {
        specs = with_configurations(&specs)?;
    }
    // A configuration that crashes the engine is an optimization bug too, and
    // the cross-language oracle runs each generated Cypher query as well:
    // without the crash oracle those crashes went uncounted.
    if (settings || oracles.contains(&OracleKind::CROSS_LANGUAGE)) && !oracles.contains(&OracleKind::CRASH) {
        oracles.push(OracleKind::CRASH);
    }
    let plans = match args.plans.as_deref() {
        Some("off") => PlanUse::Off,
        Some("count") => PlanUse::Count,
        Some(_) => PlanUse::Guide,
        None if settings => PlanUse::Guide,
        None => PlanUse::Off,
    };
    // Oracles that compare answers need deterministic queries.
    let preset = if oracles.iter().any(|o| graphlancer_oracles::oracle(*o).reads_values()) {
        Preset::Differential
    } else {
        Preset::Crash
    };
    let (generator, weights, reduction) = match &args.config {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
            read_config(&text, preset).with_context(|| format!("in {}", path.display()))?
        }
        None => (GeneratorConfig::preset(preset), BTreeMap::new(), Limits::default()),
    };
    // Checked before any engine starts: a server that is not there is a
    // second problem.
    let remote = specs.iter().find(|s| s.is_remote());
    let workers = match (args.workers, remote) {
        (Some(n), _) if !(1..=1024).contains(&n) => anyhow::bail!("--workers must be between 1 and 1024, not {n}"),
        (Some(n), Some(spec)) if n > 1 => anyhow::bail!(
            "--workers {n}: {spec} is a server graphlancer does not start, and it holds one graph at a time; use --workers 1"
        ),
        (Some(n), _) => n,
        (None, Some(_)) => 1,
        // ArcadeDB's Java server keeps every core busy with threads of its
        // own: two of them on two cores ran at 0.7 times the speed of one.
        (None, None) if specs.iter().any(|s| matches!(s, EngineSpec::ArcadeDbManaged { .. })) => 1,
        (None, None) => std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    if workers > cores {
        eprintln!(
            "graphlancer: warning: --workers {workers} on {cores} cores: workers wait for each other's engines, \
             queries time out that would not alone, and a --time budget runs over"
        );
    }
    if let Some(path) = &args.junit {
        writable(path)?;
    }
    same_campaign(&args.out, args.seed, &specs, &oracles, args.append)?;
    let mut engines = open_all(&specs)?;
    for e in &engines {
        crate::common::speaks(e.as_ref(), args.language)?;
    }
    // A Gremlin campaign has no Cypher to generate; Grafeo's profile stands in
    // for the engines without one (graphersal). A Cypher campaign generates
    // only what each release in it accepts, as a probe of it learned.
    let mut profiles: Vec<DialectProfile> = Vec::new();
    for (spec, e) in specs.iter().zip(engines.iter_mut()) {
        if gremlin && !e.languages().contains(&Language::Cypher) {
            continue;
        }
        let mut profile = DialectProfile::built_in(e.dialect())?;
        if !gremlin && let Some(probe) = crate::probe::learned(spec, e.as_mut())? {
            probe.restrict(&mut profile);
        }
        if !gremlin {
            crate::known::track(spec, e.as_mut(), &mut profile)?;
        }
        profiles.push(profile);
    }
    let mut profile =
        if profiles.is_empty() { DialectProfile::built_in("grafeo")? } else { DialectProfile::intersect(&profiles) };
    // Against the reference, or alone, an engine's known bugs are generated
    // and their findings counted under them, so a fix and a regression both
    // show; two engines compared keep steering around each other's.
    if !gremlin && !args.steer_known_bugs && specs.iter().filter(|s| **s != EngineSpec::Reference).count() == 1 {
        profile.watch();
    }
    let mut graph = GraphConfig { nodes: args.nodes, relationships: args.rels, ..GraphConfig::default() };
    profile.graph.apply(&mut graph);
    let budget = match args.time {
        Some(t) => Budget::Time(t),
        None => Budget::Queries(args.queries.unwrap_or(300)),
    };
    let config = CampaignConfig {
        seed: args.seed,
        oracles,
        weights,
        relations,
        budget,
        queries_per_graph: args.queries_per_graph,
        graph,
        generator,
        mutations: !args.no_mutations,
        frequencies: !args.no_frequencies,
        pool_clauses: (3, 8),
        exec: ExecOptions { timeout: args.timeout, language: args.language, ..ExecOptions::default() },
        out: args.out.clone(),
        reduce: !args.no_reduce,
        reduction,
        plans,
        record: false,
        part: args.shard.unwrap_or_default(),
    };
    let mut progress = crate::listen::Progress::new(budget, args.json, &args.out);
    let mut file = SummaryFile::new(&args.out);
    let mut junit = args.junit.as_deref().map(|path| AtEnd::new(move |s: &Summary| crate::junit::write(path, s)));
    let out = args.out.as_path();
    let mut html = args.html.then(|| {
        AtEnd::new(move |s: &Summary| {
            crate::report::write_page(out, s)
                .map(drop)
                .with_context(|| format!("{}: cannot write report.html", out.display()))
        })
    });
    // The summary file first: the others may read what it wrote.
    let mut listeners: Vec<&mut dyn Subscriber> = vec![&mut file, &mut progress];
    listeners.extend(junit.as_mut().map(|j| j as &mut dyn Subscriber));
    listeners.extend(html.as_mut().map(|h| h as &mut dyn Subscriber));
    let mut summary = if workers == 1 {
        Campaign::new(engines, profile, config)?.run(&mut listeners)?
    } else {
        crate::workers::run(engines, &specs, profile, config, workers, &mut listeners)?
    };
    drop(listeners);
    progress.finish();
    summary.summary_unwritten = file.failure();
    if args.json {
        say!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        say_raw!("{}", describe(&summary, &args.out))?;
    }
    // After the summary: a JUnit file or page a full disk refused loses
    // nothing else, and is said where it is read.
    let others = [junit.as_ref().and_then(|j| j.failure()), html.as_ref().and_then(|h| h.failure())];
    if let Some(why) = others.into_iter().flatten().next() {
        anyhow::bail!(why);
    }
    // What could not be written is said last, where it is read, and the
    // run fails: its folder is not the whole campaign.
    for lost in &summary.unwritten {
        eprintln!("graphlancer: a finding could not be written, and the campaign stopped: {lost}");
    }
    if let Some(why) = &summary.summary_unwritten {
        eprintln!("graphlancer: the summary above could not be saved: {why}");
    }
    if !summary.unwritten.is_empty() || summary.summary_unwritten.is_some() {
        return Ok(ExitCode::from(2));
    }
    Ok(if summary.findings_new + summary.findings_duplicate > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A configuration file: the generator's settings, and `[oracles]` weights.
/// The file's own `preset` wins over the one the oracles would choose.
/// What a campaign's TOML configuration sets: the generator, the oracles'
/// weights and what reducing one finding may spend.
type Config = (GeneratorConfig, BTreeMap<OracleKind, u32>, Limits);

fn read_config(text: &str, preset: Preset) -> Result<Config> {
    let mut table: toml::Table = toml::from_str(text)?;
    let mut weights = BTreeMap::new();
    let mut limits = Limits::default();
    if let Some(reduce) = table.remove("reduce") {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Reduce {
            candidates: Option<usize>,
            seconds: Option<f64>,
        }
        let r: Reduce = reduce
            .try_into()
            .map_err(|e| anyhow::anyhow!("[reduce]: candidates (a count) and seconds (a number) only ({e})"))?;
        if let Some(c) = r.candidates {
            limits.candidates = c;
        }
        if let Some(secs) = r.seconds {
            limits.time = Duration::try_from_secs_f64(secs)
                .map_err(|_| anyhow::anyhow!("[reduce]: seconds must be a non-negative number, not {secs}"))?;
        }
    }
    if let Some(oracles) = table.remove("oracles") {
        let oracles: BTreeMap<String, u32> =
            oracles.try_into().map_err(|e| anyhow::anyhow!("[oracles]: weights are whole numbers ({e})"))?;
        for (name, w) in oracles {
            let kind = graphlancer_oracles::oracle::parse(&name).map_err(|e| anyhow::anyhow!("[oracles]: {e}"))?;
            weights.insert(kind, w);
        }
    }
    let file_preset = table.contains_key("preset");
    let rest = toml::to_string(&table)?;
    let generator = GeneratorConfig::from_toml_with(&rest, (!file_preset).then_some(preset))?;
    Ok((generator, weights, limits))
}

/// Each spec followed by its engine under every configuration of the
/// pairwise covering array over its switches ([`graphlancer_engines::settings::pairwise`]).
fn with_configurations(specs: &[EngineSpec]) -> Result<Vec<EngineSpec>> {
    let mut out = Vec::new();
    for spec in specs {
        out.push(spec.clone());
        let switches = graphlancer_engines::families::switches(spec.family());
        if switches.is_empty() {
            anyhow::bail!(
                "{spec} has no optimization settings to compare (engines with settings: {})",
                graphlancer_engines::families::with_switches().join(", ")
            );
        }
        for config in graphlancer_engines::settings::pairwise(switches) {
            out.extend(spec.with_settings(config));
        }
    }
    Ok(out)
}

fn describe(s: &Summary, out: &Path) -> String {
    // With several workers, each part of the time counts every worker's.
    let worker_seconds = s.worker_seconds();
    let mut t = format!(
        "{} queries on {} graphs in {:.1} s ({:.1} queries/s) · seed {} · oracles {} · dialect {}\n",
        s.queries,
        s.graphs,
        s.seconds,
        s.queries_per_second,
        s.seed,
        s.oracles.join(", "),
        s.dialect
    );
    for e in &s.engines {
        // `kuzu@0.10.0` names its release already; `grafeo` does not.
        let name = if e.spec.split('?').next().is_some_and(|b| b.ends_with(&format!("@{}", e.version))) {
            e.spec.clone()
        } else {
            format!("{} {}", e.spec, e.version)
        };
        let total: u64 = e.rejected.values().sum();
        let rejected = if total == 0 {
            "rejected 0".to_owned()
        } else {
            let by: Vec<String> = e.rejected.iter().map(|(class, n)| format!("{n} {class}")).collect();
            format!("rejected {total} ({})", by.join(", "))
        };
        t.push_str(&format!(
            "  {name}: accepted {} · {rejected} · non-empty {} · timeouts {} · crashes {} · over the row cap {} · {:.1} s in the engine\n",
            e.accepted, e.non_empty, e.timeouts, e.crashes, e.too_large, e.engine_seconds
        ));
        if e.restores + e.restarts > 0 {
            t.push_str(&format!(
                "    of which {} restores after writes {:.1} s · {} restarts {:.1} s\n",
                e.restores, e.restore_seconds, e.restarts, e.restart_seconds
            ));
        }
        if e.compared_with_reference > 0 {
            t.push_str(&format!(
                "    agrees with the reference on {} of {} generated queries both answered ({:.1}%)\n",
                e.agreed_with_reference,
                e.compared_with_reference,
                100.0 * e.agreed_with_reference as f64 / e.compared_with_reference as f64
            ));
        }
    }
    t.push_str(&format!(
        "  mutated queries {} · features used {}/{} · graphlancer's own time {:.1} s ({:.1}%)\n",
        s.mutated,
        s.features_used,
        s.features_enabled,
        s.harness_seconds,
        100.0 * s.harness_seconds / worker_seconds
    ));
    let parts: Vec<String> = s
        .time
        .parts()
        .iter()
        .filter(|(_, secs)| *secs >= 0.05)
        .map(|(name, secs)| format!("{name} {secs:.1} s ({:.0}%)", 100.0 * secs / worker_seconds))
        .collect();
    let workers = if s.workers > 1 { format!(" of {} workers", s.workers) } else { String::new() };
    t.push_str(&format!("  wall time{workers}: {}\n", parts.join(" · ")));
    let lengths: Vec<String> = s
        .non_empty_by_length
        .iter()
        .map(|(k, (n, ne))| format!("{k}: {:.0}%", 100.0 * *ne as f64 / (*n).max(1) as f64))
        .collect();
    t.push_str(&format!("  non-empty by clauses: {}\n", lengths.join(", ")));
    if !s.dialect_learned.is_empty() {
        let off: Vec<&str> = s.dialect_learned.keys().map(String::as_str).collect();
        t.push_str(&format!("  not generated, refused by a release (probe): {}\n", off.join(", ")));
    }
    if !s.known_bugs.is_empty() {
        let known: Vec<String> = s.known_bugs.iter().map(|(bug, status)| format!("{bug} {status}")).collect();
        t.push_str(&format!(
            "  known bugs, checked by their witness (a fixed one is generated again): {}\n",
            known.join(", ")
        ));
    }
    if !s.known_bug_findings.is_empty() {
        let seen: Vec<String> = s.known_bug_findings.iter().map(|(bug, n)| format!("{bug} {n}")).collect();
        t.push_str(&format!(
            "  known bugs generated, not steered around (findings counted under each): {}\n",
            seen.join(", ")
        ));
    }
    if !s.feature_differences.is_empty() {
        t.push_str("feature differences (a construct one engine refuses and another answers; not findings):\n");
        for (what, d) in &s.feature_differences {
            t.push_str(&format!("  {what} ({} queries, e.g. {})\n", d.count, d.query));
        }
    }
    t.push_str(&format!(
        "findings: {} new, {} duplicates ({} crashes or hangs not reproduced), {} flaky, {} timeouts of expensive queries (dropped), {} expensive queries not run · reports in {}\n",
        s.findings_new,
        s.findings_duplicate,
        s.unreproduced_faults,
        s.flaky,
        s.slow + s.expensive,
        s.skipped_expensive,
        out.join("findings").display()
    ));
    if s.cut_by_budget > 0 {
        t.push_str(&format!("  {} cases not judged: the time budget ended while they ran\n", s.cut_by_budget));
    }
    for dir in &s.unfinished_reports {
        t.push_str(&format!("  skipped a half-written report folder (no case.json): {dir}\n"));
    }
    for (sig, dir) in &s.findings {
        t.push_str(&format!("  {dir}  {sig}\n"));
    }
    t
}

/// `graphlancer bench overhead`: graphlancer's own share of a campaign's
/// wall time against FalkorDB, measured against a bare client that replays
/// the very loads and queries the campaign sent.
pub(crate) fn bench_overhead(queries: u64, seed: u64, repeat: u32) -> Result<ExitCode> {
    use graphlancer_engines::falkordb::FalkorDb;
    use graphlancer_engines::install::engines_dir;
    use graphlancer_oracles::campaign::Sent;

    if repeat == 0 {
        anyhow::bail!("--repeat must be at least 1");
    }
    let install = engines_dir("falkordb")?.falkordb(graphlancer_engines::spec::FALKORDB_VERSION)?;
    let exec = ExecOptions::default();
    // Campaign and bare client take turns, and each side's fastest run
    // counts: the machine's noise (several percent) only ever adds time.
    let (mut best_campaign, mut best_bare) = (f64::INFINITY, f64::INFINITY);
    let (mut queries_run, mut replayed) = (0, 0u64);
    for _ in 0..repeat {
        let out = tempfile::tempdir().context("cannot make a scratch folder")?;
        let engine: Box<dyn Engine> = Box::new(FalkorDb::start_managed(&install)?);
        let profile = DialectProfile::built_in("falkordb")?;
        let config = CampaignConfig {
            seed,
            oracles: vec![OracleKind::CRASH],
            weights: BTreeMap::new(),
            relations: BTreeMap::new(),
            budget: Budget::Queries(queries),
            queries_per_graph: 200,
            graph: GraphConfig::default(),
            generator: GeneratorConfig::preset(Preset::Differential),
            plans: PlanUse::Off,
            mutations: true,
            frequencies: true,
            pool_clauses: (3, 8),
            exec,
            part: Part::default(),
            out: out.path().to_owned(),
            reduce: false,
            reduction: graphlancer_oracles::reduce::Limits::default(),
            record: true,
        };
        let mut campaign = Campaign::new(vec![engine], profile, config)?;
        let summary = campaign.run(&mut graphlancer_oracles::campaign::Quiet)?;
        let sent = campaign.sent().to_vec();
        drop(campaign);

        let mut bare = FalkorDb::start_managed(&install)?;
        let started = std::time::Instant::now();
        let mut current = None;
        // Queries that crashed or hung the engine are left out of both sides:
        // their cost is the engine's recovery, which a bare client cannot do.
        let mut left_out = std::time::Duration::ZERO;
        let mut bare_left_out = std::time::Duration::ZERO;
        replayed = 0;
        for item in &sent {
            match item {
                Sent::Load(g) => {
                    bare.bare_load(g, exec.max_rows)?;
                    current = Some(g.clone());
                }
                Sent::Query { elapsed, disrupted: true, .. } => left_out += *elapsed,
                Sent::Query { text, .. } => {
                    replayed += 1;
                    // Errors are answers here too; only the time counts. A
                    // query that kills the bare server (FalkorDB 4.22.1 dies
                    // on some the campaign saw answered, in another state) is
                    // left out with its recovery, as crashes are on the
                    // campaign's side.
                    let t = std::time::Instant::now();
                    let died = matches!(bare.bare_query(text, exec.timeout), Err(e) if e.is_io_error());
                    if died {
                        bare = FalkorDb::start_managed(&install)?;
                    }
                    if (died || graphlancer_engines::may_write(text))
                        && let Some(g) = &current
                    {
                        bare.bare_load(g, exec.max_rows)?;
                    }
                    if died {
                        bare_left_out += t.elapsed();
                    }
                }
            }
        }
        best_bare = best_bare.min((started.elapsed() - bare_left_out).as_secs_f64());
        best_campaign = best_campaign.min(summary.seconds - left_out.as_secs_f64());
        queries_run = summary.queries;
    }
    let share = (best_campaign - best_bare) / best_campaign.max(1e-9);
    say!(
        "campaign: {queries_run} queries in {best_campaign:.2} s (crashes and hangs left out) · bare client, the same {replayed} queries and their graph loads: {best_bare:.2} s · best of {repeat} each · graphlancer's own share: {:.1}%",
        100.0 * share
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--oracle`'s help, made from the registry so that a new oracle is listed
/// without a line here.
fn oracle_help() -> String {
    let mut text = String::from(
        "Oracles (repeat for several). `rewrite:tautology,null-check` or `metamorphic:symmetry,k-hop` keeps an \
         oracle to those relations. Default: with one engine every oracle that checks one engine alone; with \
         more, differential and crash.\n",
    );
    for o in graphlancer_oracles::oracle::registered() {
        let alone = if o.runs_by_default(1) { ", by default alone" } else { "" };
        let many = if o.runs_by_default(2) { ", by default with more engines" } else { "" };
        text.push_str(&format!("\n  {}: {}{alone}{many}", o.kind(), o.about()));
    }
    text
}

/// Refuses a file that cannot be written before the campaign spends its
/// budget: `--junit` is written at the end, and a bad path then lost the
/// whole run's report. A file it had to create for the check is removed.
/// Refuses an `--out` folder whose summary says it holds another campaign,
/// unless `append`: then the other campaign's summary is kept beside.
/// The same campaign again (a resume after a stop) is welcome.
fn same_campaign(out: &Path, seed: u64, specs: &[EngineSpec], oracles: &[OracleKind], append: bool) -> Result<()> {
    let path = out.join("summary.json");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    // A summary a crash cut short says nothing; the folder's findings still dedup.
    let Ok(before) = serde_json::from_str::<Summary>(&text) else { return Ok(()) };
    let engines: Vec<String> = specs.iter().map(ToString::to_string).collect();
    let their_engines: Vec<String> = before.engines.iter().map(|e| e.spec.clone()).collect();
    let oracle_names: Vec<String> = oracles.iter().map(|o| o.name().to_owned()).collect();
    if before.seed == seed && their_engines == engines && before.oracles == oracle_names {
        return Ok(());
    }
    if !append {
        anyhow::bail!(
            "{} holds another campaign (seed {}, engines {}, oracles {}): name another --out, or add --append to \
             add this campaign's findings to it",
            out.display(),
            before.seed,
            their_engines.join(", "),
            before.oracles.join(", ")
        );
    }
    let kept =
        (1..).map(|n| out.join(format!("summary.previous-{n}.json"))).find(|p| !p.exists()).expect("a free name");
    std::fs::rename(&path, &kept).with_context(|| format!("cannot keep {} as {}", path.display(), kept.display()))?;
    eprintln!("graphlancer: adding to {}; its earlier campaign's summary is now {}", out.display(), kept.display());
    Ok(())
}

fn writable(path: &Path) -> Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("--junit {}: cannot write there", path.display()))?;
    if !existed {
        std::fs::remove_file(path).with_context(|| format!("--junit {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use graphlancer_oracles::campaign::EngineSummary;

    use super::*;

    #[test]
    fn the_summary_names_a_release_once_and_counts_rejections_in_words() {
        let engine = |spec: &str, version: &str, rejected: &[(&str, u64)]| EngineSummary {
            spec: spec.into(),
            version: version.into(),
            rejected: rejected.iter().map(|(c, n)| ((*c).to_owned(), *n)).collect(),
            ..EngineSummary::default()
        };
        let s = Summary {
            engines: vec![
                engine("kuzu@0.10.0", "0.10.0", &[("internal", 1), ("semantic", 2)]),
                engine("grafeo", "0.5.44", &[]),
            ],
            ..Summary::default()
        };
        let text = describe(&s, Path::new("out"));
        assert!(text.contains("  kuzu@0.10.0: accepted 0 · rejected 3 (1 internal, 2 semantic) ·"), "{text}");
        assert!(text.contains("  grafeo 0.5.44: accepted 0 · rejected 0 ·"), "{text}");
        assert!(!text.contains('{'), "no raw JSON: {text}");
    }
}
