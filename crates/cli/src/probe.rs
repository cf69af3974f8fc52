//! What one engine release accepts, learned by running the example of every
//! construct of the coverage list ([`CONSTRUCTS`]) on it. A hand-written
//! profile describes an engine family; its releases differ (Kuzu 0.6.0
//! cannot parse `1.5e3`, list quantifiers or `EXISTS { }`), and a campaign
//! that generates what one release cannot parse files the missing syntax as
//! bugs. The probe's answer is cached per release beside the engine's
//! install (`.engines/probes/`), and a campaign turns off every production
//! a release of it refuses.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use graphlancer_cypher::DialectProfile;
use graphlancer_cypher::grammar::CONSTRUCTS;
use graphlancer_cypher::{Feature, KnownBug};
use graphlancer_engines::install::EnginesDir;
use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::{
    Graph, GraphNode, GraphRelationship, LabelDef, PropertyKeyDef, PropertyType, RelTypeDef, Schema, Value,
};
use serde::{Deserialize, Serialize};

/// The cache's format; a cache of another format is probed again.
const FORMAT: u32 = 1;

/// How long one example may run: examples are tiny, so a longer one is a
/// hang, which is no refusal.
const EXAMPLE_TIMEOUT: Duration = Duration::from_secs(5);

/// Shapes beyond the coverage list that a release may refuse, each with
/// what the generator does instead:
/// - the guard that keeps two relationships apart (`r1 <> r2`, else
///   `id(r1) <> id(r2)`): Kuzu 0.1.0's binder has no `<>` of relationships,
///   and, watched as a known bug against the reference, the guard made 937
///   of 3,259 queries of a campaign feature differences;
/// - a read after a write, with WITHs between (else no read follows a
///   write): Kuzu 0.1.0 says "Read after update is not supported", 95 of
///   its 220 feature differences after the guard was learned.
const SHAPES: &[(&str, Steer, &str)] = &[
    (
        "relationship comparison",
        Steer::Shape(KnownBug::RelationshipInequalityById),
        "MATCH (:A)-[r1:T]->(:B), (:A)-[r2:T]->(:B) WHERE r1 <> r2 RETURN count(*)",
    ),
    (
        "read after a write",
        Steer::Production(Feature::ReadAfterWrite),
        "MATCH (a:A) SET a.k = 5 WITH a MATCH (b:B) RETURN count(*)",
    ),
];

/// What a refused shape turns off.
#[derive(Debug, Clone, Copy)]
enum Steer {
    /// A known bug's shape, steered around for good.
    Shape(KnownBug),
    /// A production, off as a refused construct's are.
    Production(Feature),
}

/// One example's outcome on one release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// `rows`, an error class, `crash` or `timeout` ([`Outcome::kind`]).
    pub kind: String,
    /// The first line of the engine's message, if any.
    pub message: String,
}

impl Answer {
    /// Whether the release refuses the construct: a parse or binder error,
    /// or one saying it is not implemented. A crash, a hang or an error
    /// while running is something else (a bug), and says nothing of syntax.
    pub fn refused(&self) -> bool {
        [ErrorClass::Syntax, ErrorClass::Semantic, ErrorClass::Unsupported].iter().any(|c| c.name() == self.kind)
    }
}

/// What one release answered to every example.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Probe {
    format: u32,
    /// The examples' fingerprint: a cache of other examples is stale.
    examples: u64,
    /// The engine, as `family@version`.
    pub release: String,
    /// Per construct name, in [`CONSTRUCTS`] order.
    pub answers: Vec<(String, Answer)>,
}

impl Probe {
    /// The constructs refused, with the evidence.
    pub fn refused(&self) -> impl Iterator<Item = (&str, &Answer)> {
        self.answers.iter().filter(|(_, a)| a.refused()).map(|(n, a)| (n.as_str(), a))
    }

    /// Turns off in `profile` every production whose construct this release
    /// refuses, and those of constructs that are options of it.
    pub fn restrict(&self, profile: &mut DialectProfile) {
        let refused: BTreeMap<&str, &Answer> = self.refused().collect();
        // Each production a refused construct is made of, with its evidence.
        let mut off: BTreeMap<graphlancer_cypher::Feature, (&str, &Answer)> = BTreeMap::new();
        for c in CONSTRUCTS {
            if let Some(a) = refused.get(c.name) {
                for f in c.probed_features() {
                    off.entry(f).or_insert((c.name, *a));
                }
            }
        }
        // An option of a refused production goes with it.
        for c in CONSTRUCTS {
            let Some(parent) = c.needs().into_iter().find(|f| off.contains_key(f)) else { continue };
            let cause = off[&parent];
            for f in c.probed_features() {
                off.entry(f).or_insert(cause);
            }
        }
        for (feature, (name, answer)) in off {
            let why = format!("{} refuses {name} (probe: {}: {})", self.release, answer.kind, answer.message);
            profile.refuse(feature, why);
        }
        for (name, steer, _) in SHAPES {
            if let Some(answer) = refused.get(name) {
                let why = format!("{} refuses {name} (probe: {}: {})", self.release, answer.kind, answer.message);
                match steer {
                    Steer::Shape(bug) => profile.refuse_shape(*bug, why),
                    Steer::Production(feature) => profile.refuse(*feature, why),
                }
            }
        }
    }
}

/// A fingerprint of the examples, so a cache outlives no change to them.
fn examples_fingerprint() -> u64 {
    // `DefaultHasher::new()` has fixed keys: the same list hashes alike in
    // every run of one build, and a new build at worst probes again.
    let mut h = std::hash::DefaultHasher::new();
    for c in CONSTRUCTS {
        (c.name, c.example).hash(&mut h);
    }
    for (name, _, example) in SHAPES {
        (name, example).hash(&mut h);
    }
    h.finish()
}

/// The release a spec names, as `family@version`, for engines a probe can
/// tell apart: those graphlancer runs from an install of its own. A server
/// at an address is the user's, and the reference's profile is what it
/// computes.
pub(crate) fn release(spec: &EngineSpec, engine: &dyn Engine) -> Option<String> {
    match spec {
        EngineSpec::Grafeo { .. }
        | EngineSpec::GrafeoRelease { .. }
        | EngineSpec::FalkorDbManaged { .. }
        | EngineSpec::ArcadeDbManaged { .. }
        | EngineSpec::Kuzu { .. } => {
            let family = if spec.family().is_empty() { engine.dialect() } else { spec.family() };
            Some(format!("{family}@{}", engine.version()))
        }
        _ => None,
    }
}

/// Where a release's probe is kept, when there is an engines folder.
fn cache_path(release: &str) -> Option<PathBuf> {
    let file: String =
        release.chars().map(|c| if c.is_ascii_alphanumeric() || "@.-_".contains(c) { c } else { '_' }).collect();
    EnginesDir::locate().map(|d| d.path().join("probes").join(format!("{file}.json")))
}

/// The cached probe of `release`, if one of these examples is there.
fn cached(release: &str) -> Option<Probe> {
    let text = std::fs::read_to_string(cache_path(release)?).ok()?;
    let probe: Probe = serde_json::from_str(&text).ok()?;
    (probe.format == FORMAT && probe.examples == examples_fingerprint() && probe.release == release).then_some(probe)
}

/// Runs every example on `engine` (which then holds the probe graph: load
/// another before using it) and caches the answer.
pub(crate) fn run(engine: &mut dyn Engine, release: &str) -> Result<Probe> {
    engine.load(&graph()).with_context(|| format!("{release} cannot load the probe graph"))?;
    let opts = ExecOptions { timeout: EXAMPLE_TIMEOUT, ..ExecOptions::default() };
    let mut answers = Vec::with_capacity(CONSTRUCTS.len());
    let examples = CONSTRUCTS.iter().map(|c| (c.name, c.example)).chain(SHAPES.iter().map(|(n, _, e)| (*n, *e)));
    for (name, example) in examples {
        let outcome = engine.execute(example, &opts).with_context(|| format!("probing {release}"))?;
        let message = match &outcome {
            Outcome::Error { message, .. } | Outcome::Crash { message } => {
                message.lines().next().unwrap_or_default().chars().take(160).collect()
            }
            _ => String::new(),
        };
        answers.push((name.to_owned(), Answer { kind: outcome.kind().to_owned(), message }));
    }
    let probe = Probe { format: FORMAT, examples: examples_fingerprint(), release: release.to_owned(), answers };
    if let Some(path) = cache_path(release) {
        // A cache that cannot be written costs a probe next time, no more.
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, serde_json::to_string_pretty(&probe).expect("a probe serializes")));
        if let Err(e) = written {
            eprintln!("graphlancer: cannot cache the probe of {release} in {}: {e}", path.display());
        }
    }
    Ok(probe)
}

/// The probe of the release `engine` runs, from the cache or run now.
pub(crate) fn learned(spec: &EngineSpec, engine: &mut dyn Engine) -> Result<Option<Probe>> {
    let Some(release) = release(spec, engine) else { return Ok(None) };
    if let Some(p) = cached(&release) {
        return Ok(Some(p));
    }
    run(engine, &release).map(Some)
}

/// The graph examples run on: labels A and B with keys `k` (integer) and
/// `s` (string), type T with key `k`.
pub(crate) fn graph() -> Graph {
    let key = |name: &str, ty| PropertyKeyDef { name: name.into(), ty };
    let label = |name: &str| LabelDef { name: name.into(), keys: vec!["k".into(), "s".into()] };
    let schema = Schema {
        keys: vec![key("k", PropertyType::Int), key("s", PropertyType::String)],
        labels: vec![label("A"), label("B")],
        rel_types: vec![RelTypeDef {
            name: "T".into(),
            keys: vec!["k".into()],
            endpoints: vec![("A".into(), "B".into()), ("A".into(), "A".into())],
        }],
    };
    let node = |id: i64, l: &str, k: i64, s: &str| GraphNode {
        id,
        labels: vec![l.into()],
        properties: [("k".to_owned(), Value::Int(k)), ("s".to_owned(), Value::String(s.into()))].into(),
    };
    let rel = |id: i64, start, end, k: i64| GraphRelationship {
        id,
        rel_type: "T".into(),
        start,
        end,
        properties: [("k".to_owned(), Value::Int(k))].into(),
    };
    Graph {
        schema,
        nodes: vec![node(0, "A", 1, "x"), node(1, "A", 2, "y"), node(2, "B", 3, "z")],
        relationships: vec![rel(3, 0, 2, 1), rel(4, 0, 1, 2), rel(5, 1, 2, 3)],
    }
}
