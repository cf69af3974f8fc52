//! The bug ledger over real campaigns, the versioned engines it re-runs
//! bugs on, and bisection across a released engine's packages.

use crate::{engines_dir, graphlancer, stderr};

fn campaign(out: &std::path::Path, engines: &[&str], seed: &str, queries: &str) {
    let mut args = vec!["run"];
    for e in engines {
        args.extend(["--engine", e]);
    }
    args.extend(["--seed", seed, "--queries", queries, "--workers", "1", "--out", out.to_str().expect("utf-8")]);
    let o = graphlancer(&args);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
}

/// Two campaign folders holding the same bugs make one entry each, every
/// entry is re-run on Grafeo's newest release, and the reproducer written
/// for Grafeo's own Python client prints the answer the campaign recorded.
#[test]
fn the_ledger_has_one_entry_per_cause_and_its_reproducers_run_in_the_engines_own_client() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, ledger) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("ledger"));
    campaign(&a, &["grafeo@0.6.0", "reference"], "7", "600");
    let reports = std::fs::read_dir(a.join("findings")).expect("findings").count();
    assert!(reports >= 2, "seed 7 found {reports} reports on Grafeo 0.6.0");
    // The same folder twice: one cause, two reports, never two entries.
    let copied = std::process::Command::new("cp").arg("-r").arg(&a).arg(&b).status().expect("cp runs");
    assert!(copied.success());
    let paths = [a.to_str().expect("utf-8"), b.to_str().expect("utf-8")];
    let o = graphlancer(&["bugs", paths[0], paths[1], "--ledger", ledger.to_str().expect("utf-8"), "--live"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ledger.join("bugs.json")).expect("bugs.json")).expect("JSON");
    let bugs = json["bugs"].as_array().expect("bugs");
    assert_eq!(bugs.len(), reports, "one entry per cause");
    let python = engines_dir().python("grafeo", "grafeo", "0.6.0").expect("installed");
    for bug in bugs {
        assert_eq!(bug["findings"].as_array().map(Vec::len), Some(2), "{bug}");
        assert_eq!(bug["wrong"], serde_json::json!(["grafeo@0.6.0"]), "{bug}");
        assert!(bug["live"]["release"].as_str().is_some_and(|r| r.starts_with("grafeo@")), "{bug}");
        assert_eq!(bug["live"]["verdict"], "shows", "{bug}");
        let client = &bug["own_client"][0];
        assert_eq!(client["language"], "python", "{bug}");
        let run = std::process::Command::new(&python)
            .args(["-c", client["text"].as_str().expect("text")])
            .output()
            .expect("python runs");
        // The shown case's recorded answer: rows print one a line, and an
        // error is raised by the client as it is by the engine.
        let case: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(std::path::Path::new(bug["shown"].as_str().expect("path")).join("case.json"))
                .expect("case.json"),
        )
        .expect("JSON");
        let at = case["engines"].as_array().expect("engines").iter().position(|e| e["spec"] == "grafeo@0.6.0");
        let recorded = &case["outcomes"][at.expect("grafeo in the case")];
        match recorded["rows"].as_array() {
            Some(rows) => {
                assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
                let printed = String::from_utf8_lossy(&run.stdout).lines().count();
                assert_eq!(printed, rows.len(), "{}\n{}", client["text"], String::from_utf8_lossy(&run.stdout));
            }
            None => assert!(!run.status.success(), "{recorded} but the client answered"),
        }
    }
    let md = std::fs::read_to_string(ledger.join("BUGS.md")).expect("BUGS.md");
    assert!(md.contains(&format!("{} root causes", bugs.len())) && md.contains("import grafeo"), "{md}");
}

/// A bug of the embedded Grafeo is bisected across Grafeo's released
/// packages: it appeared in one release and is gone in a later one.
#[test]
fn bisect_walks_grafeos_released_packages() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("g");
    campaign(&out, &["grafeo", "reference"], "7", "300");
    // `[r]` of a relationship reads back as its id on 0.5.11-0.5.44 (the
    // embedded release), which 0.6.0 fixed.
    let finding = std::fs::read_dir(out.join("findings"))
        .expect("findings")
        .flatten()
        .map(|e| e.path())
        .find(|p| std::fs::read_to_string(p.join("case.json")).is_ok_and(|t| t.contains("entity-as-number")))
        .expect("seed 7 finds a relationship read back as a number");
    let o = graphlancer(&["bisect", finding.to_str().expect("utf-8"), "--engine", "grafeo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("grafeo: first shown by 0.5.11, not by 0.5.10; gone in 0.6.0"), "{said}");
}

/// A regression of FalkorDB's newest release is bisected across its
/// modules by the ledger: a constant `WITH … WHERE false` placed below an
/// ungrouped aggregation (docs/bugs/FALKORDB.md, F-3) is new in 4.22.1.
#[test]
fn the_ledger_bisects_a_falkordb_regression_across_its_released_modules() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bisect/falkordb-constant-filter");
    let dir = tempfile::tempdir().expect("tempdir");
    let finding = dir.path().join("findings").join("0001-differential");
    std::fs::create_dir_all(&finding).expect("mkdir");
    std::fs::copy(fixture.join("case.json"), finding.join("case.json")).expect("copied");
    let o = graphlancer(&["bugs", dir.path().to_str().expect("utf-8"), "--bisect"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("falkordb: first shown by 4.22.1, not by 4.18.3"), "{said}");
    let case = std::fs::read_to_string(finding.join("case.json")).expect("case.json");
    assert!(case.contains("\"first_showing\": \"4.22.1\""), "the bisection is written into the report");
    let md = std::fs::read_to_string(dir.path().join("BUGS.md")).expect("BUGS.md");
    assert!(md.contains("- Bisected: falkordb: first shown by 4.22.1 (not 4.18.3)."), "{md}");
}
