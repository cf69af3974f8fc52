//! `graphlancer tck`: the openCypher TCK's scenarios on the reference or on
//! an engine, with a pass rate per feature file.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use graphlancer_engines::EngineSpec;
use graphlancer_tck::{Tally, Verdict};

/// What `tck` prints with `--json`: every scenario's verdict, and the tallies.
#[derive(serde::Serialize)]
struct JsonReport<'a> {
    engine: &'a str,
    unreadable: &'a [(String, String)],
    total: Tally,
    files: BTreeMap<&'a str, Tally>,
    scenarios: Vec<JsonScenario<'a>>,
}

#[derive(serde::Serialize)]
struct JsonScenario<'a> {
    file: &'a str,
    name: &'a str,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'a str>,
}

fn rate(t: &Tally) -> String {
    t.rate().map_or_else(|| "-".to_owned(), |r| format!("{r:.1}%"))
}

/// Runs the scenarios under `dir` whose file path contains `filter`.
pub(crate) fn run(
    dir: &Path,
    engine: &str,
    filter: Option<&str>,
    failures: bool,
    json: bool,
    timeout: Duration,
) -> Result<ExitCode> {
    let spec: EngineSpec = engine.parse()?;
    let suite = graphlancer_tck::read_dir(dir)?;
    for (file, why) in &suite.unreadable {
        eprintln!("warning: {file} not read: {why}");
    }
    let mut scenarios = suite.scenarios;
    if let Some(f) = filter {
        scenarios.retain(|s| s.file.contains(f));
        anyhow::ensure!(!scenarios.is_empty(), "no feature file under {} matches `{f}`", dir.display());
    }
    let mut db = match spec {
        EngineSpec::Reference => None,
        _ => Some(
            graphlancer_reference::open(&spec, &crate::common::open_options()?)
                .with_context(|| format!("cannot open {engine}"))?,
        ),
    };
    let bar = crate::common::progress_bar(scenarios.len() as u64, json);
    let mut verdicts = Vec::with_capacity(scenarios.len());
    for s in &scenarios {
        bar.set_message(s.file.clone());
        verdicts.push(match db.as_mut() {
            None => graphlancer_tck::run_reference(s),
            Some(db) => graphlancer_tck::run_engine(db.as_mut(), s, timeout),
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut files: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for (s, v) in scenarios.iter().zip(&verdicts) {
        files.entry(s.file.as_str()).or_default().add(v);
        total.add(v);
    }
    let mut out = std::io::stdout().lock();
    if json {
        let scenarios = scenarios
            .iter()
            .zip(&verdicts)
            .map(|(s, v)| JsonScenario {
                file: &s.file,
                name: &s.name,
                verdict: v.name(),
                why: match v {
                    Verdict::Pass => None,
                    Verdict::Fail(w) | Verdict::Outside(w) => Some(w),
                },
            })
            .collect();
        let report = JsonReport { engine, unreadable: &suite.unreadable, total, files, scenarios };
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        let mut table = Table::new();
        table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
        table.set_header(["feature file", "pass", "fail", "outside", "pass rate"]);
        for (file, t) in &files {
            table.add_row([(*file).to_owned(), t.pass.to_string(), t.fail.to_string(), t.outside.to_string(), rate(t)]);
        }
        writeln!(out, "{table}")?;
        writeln!(
            out,
            "{engine}: {} scenarios ({} feature files not read); {} passed, {} failed, {} outside; \
             pass rate {} of those tested",
            scenarios.len(),
            suite.unreadable.len(),
            total.pass,
            total.fail,
            total.outside,
            rate(&total)
        )?;
        if failures {
            for (s, v) in scenarios.iter().zip(&verdicts) {
                if let Verdict::Fail(why) = v {
                    writeln!(out, "\nFAIL {} · {}\n  {}\n  {why}", s.file, s.name, s.query.replace('\n', "\n  "))?;
                }
            }
        }
    }
    Ok(if total.fail > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
