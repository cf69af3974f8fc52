//! `graphlancer run` and `replay` against the real engines.

use crate::{graphlancer, stderr};

#[test]
fn differential_campaign_writes_findings_that_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let out_s = out.to_str().expect("utf-8").to_owned();
    let campaign = || {
        let args =
            ["run", "--engine", "grafeo", "--engine", "falkordb", "--seed", "3", "--queries", "40", "--workers", "1"];
        let args = [&args[..], &["--out", &out_s]].concat();
        graphlancer(&[&args[..], &["--json"]].concat())
    };
    let o = campaign();
    // Grafeo 0.5.44 gets grouping keys wrong often enough that 40 queries find it.
    assert_eq!(o.status.code(), Some(1), "findings expected: {}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    assert_eq!(summary["queries"], 40);
    assert_eq!(summary["oracles"], serde_json::json!(["differential", "crash"]));
    for engine in summary["engines"].as_array().expect("engines") {
        let rejected: u64 =
            engine["rejected"].as_object().expect("map").values().map(|v| v.as_u64().unwrap_or(0)).sum();
        let total = engine["accepted"].as_u64().unwrap_or(0)
            + rejected
            + engine["timeouts"].as_u64().unwrap_or(0)
            + engine["crashes"].as_u64().unwrap_or(0)
            + engine["too_large"].as_u64().unwrap_or(0)
            + engine["undecodable"].as_u64().unwrap_or(0);
        assert_eq!(total, 40, "{engine}");
        // Some queries wrote, and each such write was undone.
        assert!(engine["restores"].as_u64().unwrap_or(0) > 0, "{engine}");
    }
    // The wall time's parts add up to it, and reduction took some of it.
    let time = summary["time"].as_object().expect("a time breakdown");
    let parts: f64 = time.values().map(|v| v.as_f64().expect("seconds")).sum();
    // One worker: the parts add up to the wall time, and what they claim
    // besides graphlancer's own share fits in it.
    let seconds = summary["seconds"].as_f64().expect("seconds");
    let harness = time["harness"].as_f64().expect("seconds");
    assert!((parts - seconds).abs() < 0.01 * seconds, "{parts} of {seconds} s: {time:?}");
    assert!(parts - harness <= seconds && harness > 0.0, "{time:?}");
    assert!(time["queries"].as_f64().unwrap_or(0.0) > 0.0 && time["reduction"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(summary["findings_new"].as_u64().unwrap_or(0) > 0);
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary.json")).expect("JSON");
    assert_eq!(on_disk, summary);
    let mut findings: Vec<_> =
        std::fs::read_dir(out.join("findings")).expect("findings").map(|e| e.expect("entry").path()).collect();
    findings.sort();
    assert_eq!(findings.len() as u64, summary["findings_new"].as_u64().unwrap_or(0));
    for f in &findings {
        for file in ["case.json", "repro.cypher", "README.md"] {
            assert!(f.join(file).is_file(), "{} lacks {file}", f.display());
        }
    }
    // Findings are reduced: some query got smaller and still shows the same
    // family (the signature without its clause sequence; different values or
    // rows for one localized to the part that differs), and replays so.
    let family = |s: &serde_json::Value| {
        let mut s = s.clone();
        let o = s.as_object_mut().expect("a signature object");
        o.remove("shape");
        let kind = o["fault"]["kind"].as_str().unwrap_or_default();
        if ["culprit", "values", "row-count"].contains(&kind) {
            o.insert("fault".into(), serde_json::json!("values or rows"));
        }
        s
    };
    let reduced = findings
        .iter()
        .find(|f| {
            let case: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(f.join("case.json")).expect("case.json")).expect("JSON");
            let smaller = match (case["query"].as_str(), case["original_query"].as_str()) {
                (Some(q), Some(original)) => q.len() < original.len(),
                _ => false,
            };
            if smaller {
                assert_eq!(family(&case["signature"]), family(&case["generated_signature"]), "{}", f.display());
            }
            smaller
        })
        .expect("no finding was reduced");
    let replay = graphlancer(&["replay", reduced.to_str().expect("utf-8")]);
    assert_eq!(replay.status.code(), Some(0), "{} {}", String::from_utf8_lossy(&replay.stdout), stderr(&replay));
    assert!(String::from_utf8_lossy(&replay.stdout).starts_with("reproduces"));

    // Resuming into the same folder counts known signatures as duplicates.
    let again = campaign();
    let second: serde_json::Value = serde_json::from_slice(&again.stdout).expect("summary JSON");
    assert_eq!(second["findings_new"], 0, "same seed, same findings");
    assert!(second["findings_duplicate"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn default_run_finds_a_logic_bug_on_grafeo_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    // The README's main job: one engine, every oracle that needs one.
    let o = graphlancer(&["run", "--out", out.to_str().expect("utf-8"), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    assert_eq!(summary["oracles"], serde_json::json!(["crash", "error", "partition", "rewrite", "metamorphic"]));
    assert_eq!(summary["engines"][0]["spec"], "grafeo");
    assert_eq!(summary["queries"], 300);
    assert!(summary["followup_queries"].as_u64().unwrap_or(0) > 0, "the group oracles ran queries of their own");
    assert!(summary["mutated"].as_u64().unwrap_or(0) > 0, "GDsmith's mutations are on by default");
    // A logic bug, not only crashes: a finding of a group oracle, which
    // replays from its folder alone.
    let logic: Vec<&str> = summary["findings"]
        .as_object()
        .expect("findings")
        .iter()
        .filter(|(sig, _)| ["partition:", "rewrite:", "metamorphic:"].iter().any(|p| sig.starts_with(p)))
        .map(|(_, dir)| dir.as_str().expect("folder"))
        .collect();
    assert!(!logic.is_empty(), "no logic bug in {}", summary["findings"]);
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}/case.json", logic[0])).expect("case.json"))
            .expect("JSON");
    assert!(!case["followups"].as_array().expect("followups").is_empty(), "a group keeps all its queries");
    assert!(case["broken"].as_str().is_some_and(|w| !w.is_empty()), "the report states the relation");
    let replay = graphlancer(&["replay", logic[0]]);
    assert_eq!(replay.status.code(), Some(0), "{} {}", String::from_utf8_lossy(&replay.stdout), stderr(&replay));
}

/// Without a terminal (CI, nohup) a campaign says how it is doing every
/// 30 s on stderr, one plain line each, names each new report as it is
/// written, and draws no progress bar there. With two workers the reports
/// come from both, through the run's one listener.
#[test]
fn a_campaign_without_a_terminal_prints_status_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let o = graphlancer(&["run", "--time", "35s", "--workers", "2", "--out", out.to_str().expect("utf-8")]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let err = stderr(&o);
    let status: Vec<&str> = err.lines().filter(|l| l.starts_with("graphlancer: ") && l.contains("queries/s")).collect();
    assert!(!status.is_empty(), "a line at 30 s of 35: {err}");
    assert!(status[0].contains(" s of 35 s") && status[0].contains("findings "), "{}", status[0]);
    assert!(!err.contains('\r'), "a carriage return in a log: {err:?}");
    let mut named: Vec<String> =
        err.lines().filter_map(|l| l.strip_prefix("graphlancer: new report findings/")).map(str::to_owned).collect();
    let mut folders: Vec<String> = std::fs::read_dir(out.join("findings"))
        .expect("findings")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    named.sort();
    folders.sort();
    assert!(!folders.is_empty(), "the default campaign finds something in 35 s");
    assert_eq!(named, folders, "one line per report: {err}");
}

#[test]
fn campaign_input_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let out_s = out.to_str().expect("utf-8");
    let o = graphlancer(&["run", "--oracle", "differential", "--queries", "5", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("two or more engines"));
    // Refused before anything is made: no empty findings folder is left.
    assert!(!out.join("findings").exists(), "a refused configuration left {}", out.display());
    let o = graphlancer(&["run", "--oracle", "nope", "--queries", "5", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2));
    // An unwritable --junit is refused before the budget is spent: no
    // campaign ran, so no summary was written.
    let o = graphlancer(&["run", "--queries", "5", "--junit", "/nonexistent/dir/findings.xml", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--junit"), "{}", stderr(&o));
    assert!(!out.join("summary.json").exists(), "the campaign ran before the check");
    // More workers than cores is said before the work starts.
    let o = graphlancer(&["run", "--workers", "1024", "--junit", "/nonexistent/dir/x.xml", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: --workers 1024 on "), "{}", stderr(&o));
    let damaged = out.join("findings").join("0001-crash");
    std::fs::create_dir_all(&damaged).expect("mkdir");
    std::fs::write(damaged.join("case.json"), "{ not json").expect("write");
    let o = graphlancer(&["run", "--queries", "5", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("damaged report"), "{}", stderr(&o));
    let o = graphlancer(&["replay", damaged.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    let o = graphlancer(&["replay", "/nonexistent/finding"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_oracle_can_be_kept_to_named_relations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let out_s = out.to_str().expect("utf-8");
    let o = graphlancer(&[
        "run",
        "--oracle",
        "metamorphic:k-hop,path-product",
        "--queries",
        "20",
        "--out",
        out_s,
        "--json",
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    let relations: Vec<&String> = summary["relations"].as_object().expect("relations").keys().collect();
    assert!(!relations.is_empty());
    for r in &relations {
        assert!(["metamorphic:k-hop", "metamorphic:path-product"].contains(&r.as_str()), "{relations:?}");
    }
    let o = graphlancer(&["run", "--oracle", "metamorphic:no-such", "--queries", "5", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no relation 'no-such'"), "{}", stderr(&o));
}

/// GSlicer's graph cutting on two real engines that count right: both
/// splits are built and judged, and neither relation fires.
#[test]
fn the_graph_cut_relations_hold_on_grafeo_and_falkordb() {
    for engine in ["grafeo", "falkordb"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let args = ["run", "--engine", engine, "--oracle", "graph-cut", "--queries", "150", "--seed", "9"];
        let o = graphlancer(&[&args[..], &["--out", out.to_str().expect("utf-8"), "--json"]].concat());
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
        for name in ["components", "split"] {
            let r = &summary["relations"][format!("graph-cut:{name}")];
            assert!(r["run"].as_u64().unwrap_or(0) > 10, "{engine}: {name} seldom ran: {}", summary["relations"]);
            assert_eq!(r["findings"], 0, "{engine}: {name}");
        }
    }
}

/// The reachability, fusion and edge-property relations, and the label and
/// split rewrites, on an engine that answers them right: each runs, and none
/// fires (a relation that fires on a correct answer is graphlancer's defect).
#[test]
fn the_graph_relations_and_rewrites_hold_on_falkordb() {
    let metamorphic = ["transitivity", "shortest-path", "fusion", "edge-property", "added-relationship", "cut"];
    let rewrite = ["label-to-where", "split-match"];
    for (oracle, names) in [("metamorphic", &metamorphic[..]), ("rewrite", &rewrite[..])] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let kept = format!("{oracle}:{}", names.join(","));
        let args = ["run", "--engine", "falkordb", "--oracle", &kept, "--queries", "200", "--seed", "9"];
        let o = graphlancer(&[&args[..], &["--out", out.to_str().expect("utf-8"), "--json"]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
        for name in names {
            let r = &summary["relations"][format!("{oracle}:{name}")];
            assert!(r["run"].as_u64().unwrap_or(0) > 0, "{name} never ran: {}", summary["relations"]);
            assert_eq!(r["findings"], 0, "{name}");
        }
    }
}

/// Timeouts on queries that ask for more rows than the timeout allows, on
/// the generated graph, are expensive queries and never reported as hangs:
/// a 20 ms bound on a 300-node graph makes many of Grafeo's answers late.
#[test]
fn timeouts_on_expensive_queries_are_not_hangs_on_grafeo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let args = ["run", "--engine", "grafeo", "--oracle", "crash", "--seed", "3", "--queries", "60"];
    let big = ["--nodes", "300", "--rels", "600", "--timeout", "20ms", "--no-reduce", "--json", "--out"];
    let o = graphlancer(&[&args[..], &big[..], &[out.to_str().expect("utf-8")]].concat());
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    let timeouts = summary["engines"][0]["timeouts"].as_u64().unwrap_or(0);
    let expensive = summary["expensive"].as_u64().unwrap_or(0);
    // Other crashes (Grafeo's internal errors) are findings of their own.
    let reported = summary["findings"]
        .as_object()
        .expect("findings")
        .keys()
        .filter(|sig| sig.starts_with("crash:grafeo:timeout:"))
        .count() as u64;
    // How many time out depends on the machine's load and on what the
    // generator writes; most are known expensive by their estimated work
    // before any re-run.
    assert!(timeouts >= 5 && expensive * 2 >= timeouts, "{summary}");
    // The rest finished when given four times the time, and at least two
    // seconds (slow), bar a few a busy machine may leave: far fewer than the
    // timeouts.
    assert!(reported * 5 < timeouts, "{summary}");
}

/// A finding written as generated (`--no-reduce`) is reduced later by
/// `graphlancer reduce`: its query and graph get smaller, the generated ones
/// stay in `case.json`, and the folder still replays.
#[test]
fn reduce_shrinks_an_unreduced_finding_that_still_replays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let o = graphlancer(&["run", "--out", out.to_str().expect("utf-8"), "--no-reduce", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    let folder = summary["findings"]
        .as_object()
        .expect("findings")
        .iter()
        // Metamorphic groups keep their graph and their drawn patterns.
        .find(|(sig, _)| !sig.starts_with("metamorphic:"))
        .map(|(_, d)| d.as_str().expect("folder").to_owned())
        .expect("the default run finds an internal error on Grafeo");
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(format!("{folder}/case.json")).expect("case.json")).expect("JSON")
    };
    let before = read();
    assert_eq!(before["reduction"], "not-tried");
    let reduced = graphlancer(&["reduce", &folder]);
    assert_eq!(reduced.status.code(), Some(0), "{} {}", String::from_utf8_lossy(&reduced.stdout), stderr(&reduced));
    let after = read();
    assert_ne!(after["reduction"], "not-tried");
    let len = |c: &serde_json::Value| c["query"].as_str().expect("query").len();
    assert!(len(&after) < len(&before), "{} from {}", after["query"], before["query"]);
    assert_eq!(after["original_query"], before["query"]);
    let entities = |g: &serde_json::Value| {
        g["nodes"].as_array().expect("nodes").len() + g["relationships"].as_array().expect("rels").len()
    };
    assert!(entities(&after["graph"]) < entities(&before["graph"]), "the graph is reduced too");
    assert_eq!(after["original_graph"], before["graph"]);
    let replay = graphlancer(&["replay", &folder]);
    assert_eq!(replay.status.code(), Some(0), "{} {}", String::from_utf8_lossy(&replay.stdout), stderr(&replay));
}

/// `bisect` refuses what it cannot do, with exit 2 and one line.
#[test]
fn bisect_input_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = graphlancer(&["bisect", dir.path().to_str().expect("utf-8"), "--engine", "graphersal"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("released versions of grafeo, kuzu, ladybug, ryugraph, falkordb, arcadedb"),
        "{}",
        stderr(&o)
    );
    let o = graphlancer(&["bisect", dir.path().to_str().expect("utf-8"), "--engine", "kuzu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("case.json"), "{}", stderr(&o));
}
