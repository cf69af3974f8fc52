//! `graphlancer bugs OUT...`: one ledger over any number of campaign
//! folders, an entry per root cause rather than per campaign. An engine
//! team reads each bug once: its shortest reproducer in their own client,
//! the releases it was seen on and bisected to, whether it is still live on
//! the newest release, and what the right answer is and who says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use graphlancer_engines::install::in_version_order;
use graphlancer_engines::spec::family_of as family;
use graphlancer_engines::{ExecOptions, REFERENCE};
use graphlancer_oracles::OracleKind;
use graphlancer_oracles::report::{Case, OwnClient, answer, own_client, read_case};
use serde::Serialize;

use crate::triage::{Shown, shows_on};

/// The ledger's files, written beside each other.
const MARKDOWN: &str = "BUGS.md";
const JSON: &str = "bugs.json";

/// One root cause.
#[derive(Debug, Serialize)]
struct Entry {
    /// The cause's name: the finding's signature with each engine named by
    /// its family, so one bug seen on several releases or partners is one entry.
    cause: String,
    /// The engines it is filed against (the one the judge says is wrong,
    /// or both of a pair no judge decides between).
    wrong: Vec<String>,
    /// The releases of those engines it was seen on, oldest first.
    seen_on: Vec<String>,
    /// Every finding folder it merges.
    findings: Vec<PathBuf>,
    /// How often campaigns met it, duplicates included.
    occurrences: u64,
    /// The folder whose case is shown: the shortest reduced query.
    shown: PathBuf,
    query: String,
    /// The graph's creation script, in Cypher.
    graph: Vec<String>,
    /// The case in the wrong engine's own client.
    own_client: Vec<OwnClient>,
    /// Where bisection placed it, per bisected folder.
    bisected: Vec<String>,
    /// The newest release it was re-run on and whether it showed there;
    /// `None` without `--live` or for an engine with no releases.
    live: Option<Live>,
    /// For a known bug of the engine's profile: its name, and the releases
    /// the campaigns' findings show it live on.
    #[serde(skip_serializing_if = "Option::is_none")]
    known: Option<String>,
    /// Who says what the right answer is.
    judge: String,
    /// Each engine's answer to the case, in Markdown.
    answers: Vec<(String, String)>,
}

#[derive(Debug, Serialize)]
struct Live {
    release: String,
    /// `shows`, `gone` or why it could not be run there.
    verdict: String,
}

/// The cause a finding names: its signature with engines by family.
fn cause(case: &Case) -> String {
    // A known bug is one entry whatever oracle or query shows it.
    if let Some(k) = &case.known_bug {
        return format!("known:{}:{}", family(k.release.split(' ').next().unwrap_or_default()), k.bug);
    }
    let mut s = case.signature.clone();
    s.engines = s.engines.iter().map(|e| family(e).to_owned()).collect();
    s.to_string()
}

/// The engines a finding blames: a differential pair with the reference
/// blames the other; any other finding blames the engines it is filed against.
fn wrong(case: &Case) -> Vec<String> {
    let engines = &case.signature.engines;
    if case.oracle == OracleKind::DIFFERENTIAL && engines.iter().any(|e| e == REFERENCE) {
        return engines.iter().filter(|e| *e != REFERENCE).cloned().collect();
    }
    engines.clone()
}

fn judge(case: &Case, wrong: &[String]) -> String {
    let engines = &case.signature.engines;
    if engines.iter().any(|e| e == REFERENCE) {
        return "the reference engine, which computes the answer Neo4j 5's semantics give from the graph".into();
    }
    if case.oracle == OracleKind::CRASH {
        "no judge needed: an engine must answer a valid query, not crash or hang".into()
    } else if case.oracle == OracleKind::ERROR {
        "Neo4j 5 accepts the query (graphlancer's validity rules), so a refusal is wrong".into()
    } else if case.oracle == OracleKind::DIFFERENTIAL && wrong.len() > 1 {
        "none: the two engines disagree and no reference ran; one of them is wrong".into()
    } else {
        match &case.broken {
            Some(words) => format!("the broken relation ({}): {words}", case.relation),
            None => format!("the {} oracle's relation", case.oracle.name()),
        }
    }
}

struct Found {
    dir: PathBuf,
    case: Case,
    occurrences: u64,
}

/// Every finding under the campaign folders, and the folders that could not be read.
fn read_all(outs: &[PathBuf]) -> Result<(Vec<Found>, Vec<String>)> {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for out in outs {
        let root = out.join("findings");
        let entries =
            std::fs::read_dir(&root).with_context(|| format!("{} is not a campaign folder", out.display()))?;
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        for dir in dirs {
            match read_case(&dir.join("case.json")) {
                Ok(case) => {
                    let occurrences = std::fs::read_to_string(dir.join("occurrences"))
                        .ok()
                        .and_then(|t| t.trim().parse().ok())
                        .unwrap_or(1);
                    found.push(Found { dir, case, occurrences });
                }
                Err(e) => skipped.push(format!("{}: {e}", dir.display())),
            }
        }
    }
    Ok((found, skipped))
}

/// `graphlancer bugs OUT... [--ledger DIR] [--live] [--bisect]`.
pub(crate) fn run(
    outs: &[PathBuf],
    ledger: Option<&Path>,
    live: bool,
    bisect: bool,
    timeout: Duration,
) -> Result<ExitCode> {
    let ledger = match (ledger, outs) {
        (Some(dir), _) => dir.to_owned(),
        (None, [one]) => one.clone(),
        (None, _) => anyhow::bail!("with several campaign folders, say where the ledger goes: --ledger DIR"),
    };
    let (found, skipped) = read_all(outs)?;
    let mut by_cause: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    for f in found {
        by_cause.entry(cause(&f.case)).or_default().push(f);
    }
    let exec = ExecOptions { timeout, ..ExecOptions::default() };
    let mut newest: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut entries = Vec::new();
    for (cause, mut group) in by_cause {
        group.sort_by_key(|f| (f.case.query.len(), f.dir.clone()));
        let wrong = wrong(&group[0].case);
        // Bisected where asked and not done before: the releases it affects.
        if bisect
            && let [one] = wrong.as_slice()
            && group[0].case.bisection.is_none()
            && graphlancer_engines::families::versioned(family(one)).is_some()
        {
            eprintln!("bugs: bisecting {cause}");
            match crate::triage::bisect(&group[0].dir, family(one), Some(one), timeout) {
                Ok(_) => group[0].case = read_case(&group[0].dir.join("case.json"))?,
                Err(e) => eprintln!("bugs: cannot bisect {}: {e:#}", group[0].dir.display()),
            }
        }
        let shown = &group[0];
        let mut seen_on: Vec<String> = group
            .iter()
            .flat_map(|f| f.case.engines.iter())
            .filter(|e| wrong.iter().any(|w| family(w) == family(&e.spec)))
            .map(|e| format!("{}@{}", family(&e.spec), e.version))
            .collect();
        in_version_order(&mut seen_on);
        seen_on.dedup();
        let own: Vec<OwnClient> = shown
            .case
            .engines
            .iter()
            .filter(|e| wrong.contains(&e.spec) && shown.case.traversal.is_none())
            .filter_map(|e| own_client(&e.spec, &e.version, e.script, &shown.case.graph, &shown.case.query))
            .collect();
        let bisected = group
            .iter()
            .filter_map(|f| f.case.bisection.as_ref())
            .map(|b| {
                let first = b.first_showing.as_deref().unwrap_or("no release tried");
                let before = b.last_not_showing.as_ref().map_or_else(String::new, |v| format!(" (not {v})"));
                let fixed = b.fixed_in.as_ref().map_or_else(String::new, |v| format!("; gone in {v}"));
                format!("{}: first shown by {first}{before}{fixed}", b.engine)
            })
            .collect();
        let live = if live && wrong.len() == 1 {
            eprintln!("bugs: {cause}");
            live_check(&shown.case, &wrong[0], &exec, &mut newest)?
        } else {
            None
        };
        let mut known_on: Vec<String> =
            group.iter().filter_map(|f| f.case.known_bug.as_ref()).map(|k| k.release.replace(' ', "@")).collect();
        in_version_order(&mut known_on);
        known_on.dedup();
        let known =
            shown.case.known_bug.as_ref().map(|k| format!("known bug `{}`, live on {}", k.bug, known_on.join(", ")));
        entries.push(Entry {
            known,
            cause,
            judge: judge(&shown.case, &wrong),
            wrong,
            seen_on,
            findings: group.iter().map(|f| f.dir.clone()).collect(),
            occurrences: group.iter().map(|f| f.occurrences).sum(),
            shown: shown.dir.clone(),
            query: shown.case.query.clone(),
            graph: graphlancer_model::creation_script(&shown.case.graph, graphlancer_model::ScriptDialect::Cypher),
            own_client: own,
            bisected,
            live,
            answers: shown
                .case
                .engines
                .iter()
                .zip(&shown.case.outcomes)
                .map(|(e, o)| (e.spec.clone(), answer(o)))
                .collect(),
        });
    }
    let known = known_bugs(outs);
    std::fs::create_dir_all(&ledger).with_context(|| format!("cannot create {}", ledger.display()))?;
    let json =
        serde_json::json!({ "format": 1, "campaigns": outs, "skipped": skipped, "bugs": entries, "known": known });
    write(&ledger.join(JSON), &serde_json::to_string_pretty(&json)?)?;
    write(&ledger.join(MARKDOWN), &markdown(&entries, &known, outs, &skipped))?;
    say!("{} root causes from {} campaign folders: {}", entries.len(), outs.len(), ledger.join(MARKDOWN).display())?;
    for s in &skipped {
        eprintln!("bugs: skipped {s}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The known bugs the campaigns' witnesses checked, by `[bugs]` name, with
/// every status seen (`live on falkordb@4.22.1`, `fixed on grafeo@0.6.0`).
fn known_bugs(outs: &[PathBuf]) -> BTreeMap<String, Vec<String>> {
    let mut known: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for out in outs {
        let Ok(text) = std::fs::read_to_string(out.join("summary.json")) else { continue };
        let Ok(summary) = serde_json::from_str::<graphlancer_oracles::Summary>(&text) else { continue };
        for (bug, status) in summary.known_bugs {
            // An intersection of profiles joins several releases' statuses with "; ".
            for one in status.split("; ") {
                let seen = known.entry(bug.clone()).or_default();
                if !seen.iter().any(|s| s == one) {
                    seen.push(one.to_owned());
                }
            }
        }
    }
    known
}

/// Re-runs the case with `wrong` replaced by its family's newest release.
fn live_check(
    case: &Case,
    wrong: &str,
    exec: &ExecOptions,
    newest: &mut BTreeMap<String, Option<String>>,
) -> Result<Option<Live>> {
    let name = family(wrong);
    let Some((name, versioned)) = graphlancer_engines::families::versioned(name) else { return Ok(None) };
    let Some(at) = case.engines.iter().position(|e| e.spec == wrong) else { return Ok(None) };
    let dir = graphlancer_engines::install::engines_dir(name)?;
    // The newest release the package index lists; offline, the newest installed.
    let release = newest
        .entry(name.to_owned())
        .or_insert_with(|| {
            let listed = versioned.released().ok().and_then(|v| v.last().cloned());
            listed.or_else(|| versioned.installed(&dir).last().cloned())
        })
        .clone();
    let Some(release) = release else { return Ok(None) };
    let spec = format!("{name}@{release}");
    let verdict = match versioned.install(&dir, &release) {
        Err(e) => format!("not run: {e}"),
        Ok(()) => match shows_on(case, at, &spec.parse()?, exec)? {
            Shown::Yes => "shows".into(),
            Shown::No => "gone".into(),
            Shown::Unusable(why) => format!("not run: {why}"),
        },
    };
    Ok(Some(Live { release: spec, verdict }))
}

fn write(path: &Path, text: &str) -> Result<()> {
    // Written whole, then renamed: a killed run leaves the old ledger.
    let part = path.with_extension("part");
    std::fs::write(&part, text).with_context(|| format!("cannot write {}", part.display()))?;
    std::fs::rename(&part, path).with_context(|| format!("cannot write {}", path.display()))
}

fn markdown(entries: &[Entry], known: &BTreeMap<String, Vec<String>>, outs: &[PathBuf], skipped: &[String]) -> String {
    let mut s = String::from("# Bugs\n\n");
    let folders: Vec<String> = outs.iter().map(|o| format!("`{}`", o.display())).collect();
    let _ = writeln!(s, "{} root causes over {}, one entry each.\n", entries.len(), folders.join(", "));
    s.push_str("| # | engine | cause | seen on | live on the newest release | reports |\n|---|---|---|---|---|---|\n");
    for (k, e) in entries.iter().enumerate() {
        let live =
            e.live.as_ref().map_or_else(|| "not checked".to_owned(), |l| format!("{}: {}", l.release, l.verdict));
        let _ = writeln!(
            s,
            "| {} | {} | `{}` | {} | {live} | {} |",
            k + 1,
            e.wrong.join(" or "),
            e.cause.replace('|', "\\|"),
            e.seen_on.join(", "),
            e.findings.len()
        );
    }
    for (k, e) in entries.iter().enumerate() {
        let _ = writeln!(s, "\n## {}. {}\n", k + 1, e.cause);
        if let Some(k) = &e.known {
            let _ = writeln!(s, "- {k} (the dialect profile's `[bugs]` entry: campaigns count its findings here).");
        }
        let _ = writeln!(s, "- Wrong: {}. Right answer, by {}.", e.wrong.join(" or "), e.judge);
        let _ = writeln!(
            s,
            "- Seen on {}; {} occurrences in {} reports.",
            e.seen_on.join(", "),
            e.occurrences,
            e.findings.len()
        );
        for b in &e.bisected {
            let _ = writeln!(s, "- Bisected: {b}.");
        }
        if let Some(l) = &e.live {
            let _ = writeln!(s, "- Newest release, re-run: {} {}.", l.release, l.verdict);
        }
        let _ = writeln!(s, "- Shown: `{}`.\n", e.shown.display());
        let graph = if e.graph.is_empty() { "// the graph is empty".to_owned() } else { e.graph.join(";\n") + ";" };
        let _ = writeln!(s, "```cypher\n{graph}\n{};\n```\n", e.query);
        for c in &e.own_client {
            let _ = writeln!(s, "In {}'s own client:\n\n```{}\n{}```\n", c.engine, c.language, c.text);
        }
        for (engine, a) in &e.answers {
            let _ = writeln!(s, "**{engine}:**\n\n{a}");
        }
    }
    if !known.is_empty() {
        s.push_str(
            "\n## Known bugs\n\nBugs the dialect profiles know, checked on each release by their witness query \
             beside the reference. A live one is steered around (so it is not filed again above); a fixed one \
             is generated again, so a regression shows as a finding.\n\n| known bug | status |\n|---|---|\n",
        );
        for (bug, statuses) in known {
            let _ = writeln!(s, "| `{bug}` | {} |", statuses.join(", "));
        }
    }
    if !skipped.is_empty() {
        s.push_str("\n## Folders that could not be read\n\n");
        for line in skipped {
            let _ = writeln!(s, "- {line}");
        }
    }
    s
}
