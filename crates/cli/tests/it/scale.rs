//! Workers and shards: `run --workers N`, `run --shard I/N` and `merge`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::{graphlancer, stderr};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

/// Every finding folder under `out`: (graph index, signature, occurrences).
fn findings(out: &Path) -> Vec<(u64, String, u64)> {
    let Ok(dirs) = std::fs::read_dir(out.join("findings")) else { return Vec::new() };
    dirs.map(|d| d.expect("entry").path())
        .filter(|d| d.join("case.json").is_file())
        .map(|d| {
            let case = json(&d.join("case.json"));
            let seen = std::fs::read_to_string(d.join("occurrences")).map_or(1, |t| t.trim().parse().expect("a count"));
            (case["graph_index"].as_u64().expect("index"), case["signature"].to_string(), seen)
        })
        .collect()
}

/// Runs `args`, which graphlancer must refuse (exit 2) saying `why`.
fn refused(args: &[&str], why: &str) {
    let o = graphlancer(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
}

fn campaign(out: &Path, extra: &[&str]) -> serde_json::Value {
    let out_s = out.to_str().expect("utf-8");
    let args = ["run", "--engine", "grafeo", "--engine", "falkordb", "--seed", "3", "--queries-per-graph", "40"];
    let o = graphlancer(&[&args[..], &["--out", out_s, "--json"], extra].concat());
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("summary JSON")
}

#[test]
fn shards_draw_disjoint_graphs_and_merge_into_one_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shards: Vec<_> = (0..2).map(|i| dir.path().join(format!("shard{i}"))).collect();
    for (i, out) in shards.iter().enumerate() {
        let s = campaign(out, &["--queries", "120", "--workers", "1", "--shard", &format!("{i}/2")]);
        assert_eq!(s["queries"], 120);
        for (graph, _, _) in findings(out) {
            assert_eq!(graph % 2, i as u64, "shard {i} drew graph {graph}");
        }
    }
    let merged = dir.path().join("merged");
    let paths: Vec<&str> = shards.iter().map(|p| p.to_str().expect("utf-8")).collect();
    let o = graphlancer(&[&["merge", "--out", merged.to_str().expect("utf-8")][..], &paths].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let inputs: Vec<_> = shards.iter().flat_map(|s| findings(s)).collect();
    let out = findings(&merged);
    assert!(!inputs.is_empty(), "the shards found nothing to merge");
    // One folder per signature, every occurrence kept.
    let distinct: BTreeSet<&String> = inputs.iter().map(|(_, s, _)| s).collect();
    assert_eq!(out.len(), distinct.len());
    let count = |f: &[(u64, String, u64)]| f.iter().map(|(_, _, n)| n).sum::<u64>();
    assert_eq!(count(&out), count(&inputs));
    let summary = json(&merged.join("summary.json"));
    assert_eq!(summary["queries"], 240);
    assert_eq!(summary["findings_new"], out.len() as u64);
    // A merged folder is not merged into again, and a folder without a summary is refused.
    refused(&[&["merge", "--out", merged.to_str().expect("utf-8")][..], &paths].concat(), "already holds a campaign");
    refused(&["merge", "--out", "unused", paths[0], paths[0]], "named twice");
    let empty = tempfile::tempdir().expect("tempdir");
    refused(&["merge", "--out", "unused", empty.path().to_str().expect("utf-8")], "not a campaign folder");
    // A half-written report and a damaged one are listed and skipped; the
    // rest merge, into an empty folder already there.
    std::fs::create_dir_all(shards[0].join("findings").join("0999-half")).expect("mkdir");
    let damaged = findings_dirs(&shards[1]).pop().expect("shard 1 found something");
    std::fs::write(damaged.join("case.json"), "{").expect("damage");
    let again = dir.path().join("again");
    std::fs::create_dir(&again).expect("mkdir");
    let o = graphlancer(&[&["merge", "--out", again.to_str().expect("utf-8")][..], &paths].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("0999-half (no case.json") && stderr(&o).contains("damaged report"), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 folders skipped"), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(again.join("summary.json").is_file());
    // The merge was built beside its folder and renamed: nothing is left over.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".merging-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// The texts an SVG draws, trimmed.
fn svg_texts_of(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")).map(|(t, _)| t.trim()))
        .collect()
}

fn findings_dirs(out: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> =
        std::fs::read_dir(out.join("findings")).expect("findings").flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs
}

#[test]
fn workers_share_the_budget_and_one_findings_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let s = campaign(&out, &["--queries", "160", "--workers", "2"]);
    assert_eq!(s["workers"], 2);
    assert_eq!(s["queries"], 160);
    // Each worker drew its own graphs, 40 generated queries a graph (most of
    // those estimated expensive are skipped, not run): every graph but each
    // worker's last was used up.
    let n = |k: &str| s[k].as_u64().expect("a count");
    let (graphs, generated) = (n("graphs"), n("queries") + n("skipped_expensive"));
    assert!(graphs * 40 >= generated && generated > (graphs - 2) * 40, "{graphs} graphs, {generated} generated");
    let found = findings(&out);
    assert!(found.iter().any(|(g, _, _)| g % 2 == 0) && found.iter().any(|(g, _, _)| g % 2 == 1), "{found:?}");
    let signatures: BTreeSet<&String> = found.iter().map(|(_, s, _)| s).collect();
    assert_eq!(signatures.len(), found.len(), "two folders for one signature");
    assert_eq!(json(&out.join("summary.json")), s);
    refused(&["run", "--workers", "0", "--out", out.to_str().expect("utf-8")], "--workers");
    refused(&["run", "--engine", "falkordb://127.0.0.1:1", "--workers", "2"], "--workers 1");
}

/// A group finding's page shows every query of the group with each
/// engine's answer (the relation is between them), and a finding folder
/// that is damaged costs its own entry, not the page.
#[test]
fn the_report_shows_every_query_of_a_group_and_skips_a_damaged_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let out_s = out.to_str().expect("utf-8");
    let o = graphlancer(&[
        "run",
        "--oracle",
        "rewrite",
        "--queries",
        "300",
        "--seed",
        "8",
        "--workers",
        "1",
        "--out",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(1), "a rewrite finding on Grafeo 0.5.44: {}", stderr(&o));
    let folders: Vec<PathBuf> = std::fs::read_dir(out.join("findings"))
        .expect("findings")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folders[0].join("case.json")).expect("case.json")).expect("JSON");
    let followup = case["followups"][0]["text"].as_str().expect("a group finding has a second query").to_owned();
    let o = graphlancer(&["report", out_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    let escaped = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    // Plots: a y-axis title each, whole-number counts, new and duplicate findings apart.
    let svg_texts = svg_texts_of(&html);
    for title in ["queries a second", "findings", "non-empty (%)", "new", "duplicate"] {
        assert!(svg_texts.contains(&title), "no plot text {title}: {svg_texts:?}");
    }
    let findings_plot = html.split("Findings so far").nth(1).and_then(|p| p.split("</svg>").next()).expect("a plot");
    let numbers: Vec<&str> = svg_texts_of(findings_plot).into_iter().filter(|t| t.parse::<f64>().is_ok()).collect();
    assert!(!numbers.is_empty() && numbers.iter().all(|n| n.parse::<u64>().is_ok()), "counts drawn as {numbers:?}");
    for text in [case["query"].as_str().expect("query"), followup.as_str()] {
        assert!(html.contains(&escaped(text)), "the page lacks {text}");
    }
    assert!(!html.contains("Error {"), "an outcome printed as Rust Debug text");
    std::fs::write(folders[0].join("case.json"), "{ not json").expect("damage");
    let o = graphlancer(&["report", out_s]);
    assert_eq!(o.status.code(), Some(0), "one damaged folder fails the page: {}", stderr(&o));
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    let name = folders[0].file_name().expect("a folder").to_string_lossy().into_owned();
    assert!(html.contains("could not be read") && html.contains(&name), "the damaged folder is not listed");
}

/// The HTML report of a campaign, opened in headless Chromium when the
/// machine has it: its text is there, and a screenshot is taken. The JUnit
/// file of the same campaign names every finding.
#[test]
fn the_campaign_report_opens_in_a_browser_and_junit_lists_the_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let junit = dir.path().join("findings.xml");
    let s = campaign(&out, &["--queries", "120", "--html", "--junit", junit.to_str().expect("utf-8")]);
    // The page the campaign wrote as it ended is the one `report` writes.
    let written = std::fs::read_to_string(out.join("report.html")).expect("run --html writes report.html");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file is written");
    let failures = s["findings"].as_object().expect("findings").len();
    assert!(failures > 0, "the campaign found nothing to list");
    assert!(xml.contains(&format!("failures=\"{failures}\"")), "{xml}");
    for dir in s["findings"].as_object().expect("findings").values() {
        let name = Path::new(dir.as_str().expect("a path")).file_name().expect("a folder").to_string_lossy();
        assert!(xml.contains(&format!("<testcase name=\"{name}\"")), "{name} missing from {xml}");
    }
    let o = graphlancer(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).expect("report.html");
    assert!(html == written, "run --html and report write different pages");
    assert_eq!(html.matches("<svg").count(), 3, "three plots, inline");
    // (An SVG's namespace is a name, not a fetch.)
    for fetch in ["src=\"http", "href=\"http", "<link", "<script", "url(http"] {
        assert!(!html.contains(fetch), "the page needs no network, but has {fetch}");
    }
    let missing = graphlancer(&["report", dir.path().to_str().expect("utf-8")]);
    assert_eq!(missing.status.code(), Some(2));
    let Some(chromium) = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| std::process::Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
    else {
        eprintln!(
            "SKIPPED the browser half of this test: no chromium on this machine (the test command installs it where it can)"
        );
        return;
    };
    let url = format!("file://{}", page.display());
    let browse = |extra: &[&str]| {
        std::process::Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,2400"])
            .args(extra)
            .arg(&url)
            .output()
            .expect("chromium runs")
    };
    let dom = browse(&["--dump-dom"]);
    let text = String::from_utf8_lossy(&dom.stdout);
    for needle in ["graphlancer campaign", "Queries per second", "Where the time went", "grafeo", "falkordb"] {
        assert!(text.contains(needle), "the rendered page lacks {needle:?}: {}", stderr(&dom));
    }
    let shot = dir.path().join("report.png");
    let o = browse(&[&format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", stderr(&o)));
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a screenshot of {} bytes", png.len());
}

/// The Slurm scripts in `deploy/`, run as Slurm would run them (each array
/// task with its index and the task count, then the merge), here without
/// Slurm: two shards, one merged folder with its report.
#[test]
fn the_slurm_scripts_run_shards_and_merge_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
    let script = |name: &str, task: Option<u32>| {
        let mut c = std::process::Command::new(deploy.join("slurm").join(name));
        c.env("GRAPHLANCER", crate::binary())
            .env("RESULTS", dir.path())
            .env("ENGINES", "grafeo falkordb")
            .env("BUDGET", "--queries 60")
            .env("SEED", "3")
            .env("DEPLOY", &deploy);
        if let Some(t) = task {
            c.env("SLURM_ARRAY_TASK_ID", t.to_string()).env("SLURM_ARRAY_TASK_COUNT", "2");
        }
        let o = c.output().expect("the script runs");
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    };
    script("campaign.sbatch", Some(0));
    script("campaign.sbatch", Some(1));
    script("merge.sbatch", None);
    let merged = json(&dir.path().join("merged/summary.json"));
    assert_eq!(merged["queries"], 120);
    assert!(dir.path().join("merged/report.html").is_file());
    assert!(dir.path().join("shard-1.junit.xml").is_file());
}
