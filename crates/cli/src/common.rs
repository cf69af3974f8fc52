//! What several subcommands share: how engines are opened, how options are
//! read, and the progress bar. It sits below every subcommand module, so none
//! of them needs another's.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use graphlancer_cypher::{DialectProfile, GraphLimits};
use graphlancer_engines::host::HostCommand;
use graphlancer_engines::{Engine, EngineSpec, OpenOptions, Outcome};
use graphlancer_model::{GraphConfig, Language};
use indicatif::{ProgressBar, ProgressStyle};

/// The graphs an engine of `dialect` can hold when queried in `language`:
/// Gremlin's vertices carry one label.
pub(crate) fn graph_limits(dialect: &str, language: Language) -> Result<GraphLimits> {
    Ok(match language {
        Language::Cypher => DialectProfile::built_in(dialect)?.graph,
        Language::Gremlin => GraphLimits { max_labels_per_node: Some(1), script: None, self_loops: None },
    })
}

/// Refuses an engine that does not answer `language`.
pub(crate) fn speaks(db: &dyn Engine, language: Language) -> Result<()> {
    if !db.languages().contains(&language) {
        let known: Vec<&str> = db.languages().iter().map(|l| l.name()).collect();
        bail!("{} does not answer {language} (it answers {})", db.name(), known.join(", "));
    }
    Ok(())
}

/// The default graph configuration within `limits`.
pub(crate) fn limited(limits: GraphLimits) -> GraphConfig {
    let mut config = GraphConfig::default();
    limits.apply(&mut config);
    config
}

/// A duration as the options take it: `10s`, `500ms`, `2h`, or bare seconds.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    // A bare number means seconds, as it always has here.
    let text = if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) { format!("{s}s") } else { s.to_owned() };
    let d =
        humantime::parse_duration(&text).map_err(|e| format!("'{s}' is not a duration like 10s, 500ms or 2h: {e}"))?;
    if d.is_zero() {
        return Err("a duration must be positive".into());
    }
    Ok(d)
}

/// How engines are opened: hosted engines run this very executable.
pub(crate) fn open_options() -> Result<OpenOptions> {
    Ok(OpenOptions {
        host_command: HostCommand::current_exe("grafeo").context("cannot find the graphlancer executable")?,
    })
}

/// Opens every engine of a campaign.
pub(crate) fn open_all(specs: &[EngineSpec]) -> Result<Vec<Box<dyn Engine>>> {
    let options = open_options()?;
    specs.iter().map(|s| Ok(graphlancer_reference::open(s, &options)?)).collect()
}

/// A progress bar of `len` steps on stderr, hidden when the output is JSON.
pub(crate) fn progress_bar(len: u64, hidden: bool) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if hidden {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar
}

/// An engine's outcome in words, its rows as a table.
pub(crate) fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rows(rs) => crate::table::render(rs),
        Outcome::Error { class, message } => format!("error ({}): {message}", class.name()),
        Outcome::Crash { message } => format!("CRASH: {message}"),
        Outcome::Timeout { after_ms } => format!("TIMEOUT after {after_ms} ms"),
        Outcome::TooLarge { max_rows } => format!("more than {max_rows} rows (not kept)"),
        Outcome::Undecodable { message } => format!("UNDECODABLE (graphlancer could not read the answer): {message}"),
        Outcome::Open { reason } => format!("no answer (open): {reason}"),
    }
}
