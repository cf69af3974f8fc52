//! Known bugs tracked per release rather than hidden. A profile's `[bugs]`
//! entry makes the generator steer around a shape, so nobody would learn
//! when the bug is fixed or comes back. Each entry with a `[witness]` query
//! is run on every release a campaign opens, beside the reference on the
//! same small graph: where the release answers as the reference does, the
//! bug is fixed there and the generator writes its shape again (a
//! regression then shows as a finding); where it does not, the bug is live.
//! Both land in `summary.json` (`known_bugs`) and in the bug ledger.

use std::time::Duration;

use anyhow::{Context, Result};
use graphlancer_cypher::DialectProfile;
use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::{Comparison, GraphRelationship, RowOrder, Tolerance, Value, compare};

/// A witness is one small query: longer is a hang, which judges nothing.
const WITNESS_TIMEOUT: Duration = Duration::from_secs(5);

/// What one witness says of one release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// The release answers unlike the reference: the bug is there.
    Live,
    /// It answers as the reference does.
    Fixed,
    /// Nothing to judge: the reference cannot answer the witness, or the
    /// release refuses its syntax (which the probe handles).
    Unjudged,
}

/// The witness graph: the probe's, plus a relationship parallel to one
/// already there (several known bugs are about parallel relationships).
fn graph() -> graphlancer_model::Graph {
    let mut g = crate::probe::graph();
    g.relationships.push(GraphRelationship {
        id: 6,
        rel_type: "T".into(),
        start: 0,
        end: 2,
        properties: [("k".to_owned(), Value::Int(4))].into(),
    });
    g
}

/// Runs every witness of `profile` on `engine` and on the reference.
pub(crate) fn witness(engine: &mut dyn Engine, profile: &DialectProfile) -> Result<Vec<(String, Status)>> {
    if profile.witnesses.is_empty() {
        return Ok(Vec::new());
    }
    let g = graph();
    let mut reference = graphlancer_reference::open(&EngineSpec::Reference, &crate::common::open_options()?)?;
    reference.load(&g)?;
    engine.load(&g).with_context(|| format!("{} cannot load the witness graph", engine.name()))?;
    let opts = ExecOptions { timeout: WITNESS_TIMEOUT, ..ExecOptions::default() };
    let mut out = Vec::new();
    for (name, query) in &profile.witnesses {
        let right = reference.execute(query, &opts)?;
        let got = engine.execute(query, &opts)?;
        let status = match (&right, &got) {
            (Outcome::Rows(r), Outcome::Rows(g)) => match compare(r, g, &RowOrder::Bag, Tolerance::default()) {
                Comparison::Equal => Status::Fixed,
                Comparison::Differ(_) => Status::Live,
            },
            (Outcome::Rows(_), Outcome::Error { class: ErrorClass::Syntax | ErrorClass::Semantic, .. }) => {
                Status::Unjudged
            }
            // A run-time error, a crash or a hang where the reference answers.
            (Outcome::Rows(_), _) => Status::Live,
            _ => Status::Unjudged,
        };
        out.push((name.clone(), status));
    }
    Ok(out)
}

/// Checks `engine`'s release against its profile's witnesses and records
/// the result in `profile` (a fixed bug no longer steers).
pub(crate) fn track(spec: &EngineSpec, engine: &mut dyn Engine, profile: &mut DialectProfile) -> Result<()> {
    let Some(release) = crate::probe::release(spec, engine) else { return Ok(()) };
    for (name, status) in witness(engine, profile)? {
        match status {
            Status::Live => profile.track(&name, &release, true),
            Status::Fixed => profile.track(&name, &release, false),
            Status::Unjudged => {}
        }
    }
    Ok(())
}
