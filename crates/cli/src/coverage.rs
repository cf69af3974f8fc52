//! `graphlancer generate --coverage`: the generator measured against the
//! openCypher grammar and the Cypher manual's function list
//! ([`graphlancer_cypher::grammar`]). Per dialect, each construct is
//! generated (in how many of the queries), refused by the profile (its
//! evidence), or missing (no production; the reason); with `--engine`, each
//! construct's example also runs on the engines, which shows what they accept.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::Result;
use graphlancer_cypher::grammar::{CONSTRUCTS, Construct, Detect};
use graphlancer_cypher::{DialectProfile, Generator, GeneratorConfig, Preset};
use graphlancer_engines::EngineSpec;
use serde::Serialize;

use crate::generate::{GenerateArgs, nth};

/// Graphs the queries of one dialect are spread over.
const GRAPHS: u64 = 4;

/// One dialect's measurement.
#[derive(Debug, Serialize)]
pub(crate) struct DialectCoverage {
    dialect: String,
    queries: usize,
    /// Per construct (in [`CONSTRUCTS`] order): queries that show it, or why none can.
    cells: Vec<Cell>,
    /// Clause orders: adjacent pairs of clauses openCypher allows, among
    /// the clauses the dialect generates, and those the queries show.
    orders: ClauseOrders,
}

/// Which of the clause pairs the grammar allows the queries show.
#[derive(Debug, Serialize)]
pub(crate) struct ClauseOrders {
    allowed: usize,
    generated: usize,
    /// Allowed pairs no query showed, as `A -> B`.
    missing: Vec<String>,
}

/// Whether openCypher lets `b` follow `a` in one query part: reading
/// clauses and WITH may be followed by anything; an updating clause by
/// another, WITH or RETURN (a read after a write needs a WITH between).
fn may_follow(a: &str, b: &str) -> bool {
    let reading = |k: &str| matches!(k, "MATCH" | "OPTIONAL MATCH" | "UNWIND" | "CALL { }" | "CALL procedure");
    a != "RETURN" && (reading(a) || a == "WITH" || !reading(b))
}

impl ClauseOrders {
    fn of(
        pairs: &std::collections::BTreeSet<(&'static str, &'static str)>,
        kinds: &std::collections::BTreeSet<&'static str>,
    ) -> Self {
        let mut allowed = 0;
        let mut missing = Vec::new();
        for a in kinds {
            for b in kinds {
                if may_follow(a, b) {
                    allowed += 1;
                    if !pairs.contains(&(*a, *b)) {
                        missing.push(format!("{a} -> {b}"));
                    }
                }
            }
        }
        ClauseOrders { allowed, generated: allowed - missing.len(), missing }
    }
}

/// What one dialect does with one construct.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum Cell {
    /// Generated queries showed it this many times.
    Generated { queries: usize, bug: Option<String> },
    /// The profile turns its production off, with the evidence.
    Refused { why: String },
    /// No production writes it.
    Missing { why: &'static str },
}

/// The whole table.
#[derive(Debug, Serialize)]
pub(crate) struct Coverage {
    /// The constructs' names, in table order.
    constructs: Vec<&'static str>,
    dialects: Vec<DialectCoverage>,
    /// Per engine probed: each construct's example's outcome (`rows` or an error class, and its message).
    probes: Vec<(String, Vec<(String, String)>)>,
}

/// Measures the dialects asked for (each alone, default every built-in one)
/// with `args.count` queries each, under the crash preset unless another is asked for.
pub(crate) fn measure(args: &GenerateArgs, engines: &[String]) -> Result<Coverage> {
    let names: Vec<String> = match &args.dialect {
        Some(d) => d.split(',').map(|s| s.trim().to_owned()).collect(),
        None => graphlancer_cypher::profile::BUILT_IN.iter().map(|s| (*s).to_owned()).collect(),
    };
    let config = match (&args.config, args.preset) {
        (None, None) => GeneratorConfig::preset(Preset::Crash),
        _ => args.config()?,
    };
    let mut dialects = Vec::new();
    for name in &names {
        let profile = DialectProfile::built_in(name)?;
        dialects.push(dialect(&profile, &config, args.seed, args.count));
    }
    let mut probes = Vec::new();
    for spec in engines {
        probes.push((spec.clone(), probe(spec)?));
    }
    Ok(Coverage { constructs: CONSTRUCTS.iter().map(|c| c.name).collect(), dialects, probes })
}

fn dialect(profile: &DialectProfile, config: &GeneratorConfig, seed: u64, count: usize) -> DialectCoverage {
    let mut shown = vec![0usize; CONSTRUCTS.len()];
    let (mut pairs, mut kinds) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    let per_graph = count.div_ceil(GRAPHS as usize);
    let mut done = 0;
    for graph_seed in 0..GRAPHS {
        let mut graph_config = graphlancer_model::GraphConfig::default();
        profile.graph.apply(&mut graph_config);
        let graph = graphlancer_model::graph::generate(graph_seed, &graph_config)
            .expect("default graph configuration is valid");
        let generator = Generator::new(&graph, profile, config);
        for i in 0..per_graph.min(count - done) {
            let g = nth(&generator, seed.wrapping_add(graph_seed), i);
            for (n, c) in CONSTRUCTS.iter().enumerate() {
                if c.shown_by(&g.features, &g.text) {
                    shown[n] += 1;
                }
            }
            for part in &g.query.parts {
                let seq: Vec<&'static str> =
                    part.clauses.iter().map(graphlancer_cypher::ast::Clause::keyword).collect();
                kinds.extend(seq.iter().copied());
                pairs.extend(seq.windows(2).map(|w| (w[0], w[1])));
            }
        }
        done += per_graph.min(count - done);
    }
    let cells = CONSTRUCTS
        .iter()
        .zip(shown)
        .map(|(c, n)| {
            if let Detect::Missing(why) = c.detect {
                return Cell::Missing { why };
            }
            match c.needs().into_iter().find_map(|f| profile.disabled.get(&f)) {
                Some(why) => Cell::Refused { why: why.clone() },
                None => Cell::Generated { queries: n, bug: c.feature().and_then(|f| profile.bugs.get(&f).cloned()) },
            }
        })
        .collect();
    DialectCoverage { dialect: profile.name.clone(), queries: count, cells, orders: ClauseOrders::of(&pairs, &kinds) }
}

/// Each construct's example on one engine: its outcome and message.
fn probe(spec: &str) -> Result<Vec<(String, String)>> {
    let parsed: EngineSpec = spec.parse()?;
    let mut db = graphlancer_reference::open(&parsed, &crate::common::open_options()?)?;
    let release = crate::probe::release(&parsed, db.as_ref()).unwrap_or_else(|| spec.to_owned());
    let probe = crate::probe::run(db.as_mut(), &release)?;
    // The grammar's constructs only: the probe's shapes are no rows of it.
    Ok(probe.answers.into_iter().take(CONSTRUCTS.len()).map(|(_, a)| (a.kind, a.message)).collect())
}

impl Coverage {
    /// The table as Markdown: one row a construct, one column a dialect and one an engine probed.
    pub(crate) fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, "| construct | grammar rule |");
        for d in &self.dialects {
            let _ = write!(s, " {} |", d.dialect);
        }
        for (e, _) in &self.probes {
            let _ = write!(s, " {e} (probe) |");
        }
        s.push('\n');
        s.push_str(&"|---".repeat(2 + self.dialects.len() + self.probes.len()));
        s.push_str("|\n");
        let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (n, c) in CONSTRUCTS.iter().enumerate() {
            let _ = write!(s, "| {} | `{}` |", escape(c.name), c.rule);
            for d in &self.dialects {
                let cell = match &d.cells[n] {
                    Cell::Generated { queries: 0, .. } => "unseen".to_owned(),
                    Cell::Generated { queries, bug: None } => {
                        format!("{:.1}%", 100.0 * *queries as f64 / d.queries as f64)
                    }
                    Cell::Generated { queries, bug: Some(_) } => {
                        format!("{:.1}% (bug)", 100.0 * *queries as f64 / d.queries as f64)
                    }
                    Cell::Refused { why } => {
                        reasons.entry(label(c)).or_default().push(format!("{}: {why}", d.dialect));
                        "refused".to_owned()
                    }
                    Cell::Missing { .. } => "missing".to_owned(),
                };
                let _ = write!(s, " {cell} |");
            }
            for (_, outcomes) in &self.probes {
                let (kind, _) = &outcomes[n];
                let _ = write!(s, " {} |", if kind == "rows" { "ok" } else { kind.as_str() });
            }
            s.push('\n');
            if let Detect::Missing(why) = c.detect {
                reasons.entry(label(c)).or_default().push(format!("missing: {why}"));
            }
        }
        let summary = self.summary();
        s.push_str("\nPer dialect: generated / refused by the profile / missing (no production) / unseen:\n\n");
        for (d, (g, r, m, u)) in self.dialects.iter().zip(summary) {
            let _ = writeln!(s, "- {}: {g} / {r} / {m} / {u} of {}", d.dialect, CONSTRUCTS.len());
        }
        s.push_str(
            "\nClause orders: adjacent clause pairs openCypher allows among the clauses each dialect generates, \
             and how many the queries show:\n\n",
        );
        for d in &self.dialects {
            let o = &d.orders;
            let _ = write!(s, "- {}: {} of {}", d.dialect, o.generated, o.allowed);
            if !o.missing.is_empty() {
                let _ = write!(s, "; not shown: {}", o.missing.join(", "));
            }
            s.push('\n');
        }
        if !self.probes.is_empty() {
            s.push_str("\nProbe errors (first line of each engine's message):\n\n");
            for (n, c) in CONSTRUCTS.iter().enumerate() {
                for (e, outcomes) in &self.probes {
                    let (kind, detail) = &outcomes[n];
                    if kind != "rows" {
                        let _ = writeln!(s, "- {} on {e}: {kind}: {}", label(c), escape(detail));
                    }
                }
            }
        }
        s.push_str("\nReasons:\n\n");
        for (construct, why) in reasons {
            let _ = writeln!(s, "- {construct}: {}", escape(&why.join("; ")));
        }
        s
    }

    /// Per dialect: constructs generated, refused, missing and unseen.
    pub(crate) fn summary(&self) -> Vec<(usize, usize, usize, usize)> {
        self.dialects
            .iter()
            .map(|d| {
                d.cells.iter().fold((0, 0, 0, 0), |(g, r, m, u), cell| match cell {
                    Cell::Generated { queries: 0, .. } => (g, r, m, u + 1),
                    Cell::Generated { .. } => (g + 1, r, m, u),
                    Cell::Refused { .. } => (g, r + 1, m, u),
                    Cell::Missing { .. } => (g, r, m + 1, u),
                })
            })
            .collect()
    }
}

fn label(c: &Construct) -> String {
    format!("{} ({})", c.name, c.group.name())
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}
