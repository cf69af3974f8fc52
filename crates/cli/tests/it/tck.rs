//! `graphlancer tck` on scenarios of our own in the TCK's shape (the TCK's
//! own files are not committed): on the reference, and on real engines.

use crate::{graphlancer, stderr};

fn ours(folder: &str) -> String {
    format!("{}/tests/tck/{folder}", env!("CARGO_MANIFEST_DIR"))
}

fn tck(folder: &str, engine: &str) -> (Option<i32>, serde_json::Value) {
    let o = graphlancer(&["tck", &ours(folder), "--engine", engine, "--json"]);
    let report = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code(), report)
}

/// The verdicts of Reading1's scenarios, by name.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String)> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["file"] == "Reading1.feature")
        .map(|s| (s["name"].as_str().unwrap_or("").to_owned(), s["verdict"].as_str().unwrap_or("").to_owned()))
        .collect()
}

#[test]
fn the_reference_passes_every_scenario_it_can_run_and_counts_side_effects() {
    let (code, report) = tck("ours", "reference");
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["total"], serde_json::json!({"pass": 11, "fail": 0, "outside": 1}));
    assert_eq!(report["files"]["Errors1.feature"]["pass"], 2, "errors of the expected class and phase");
    let outside: Vec<&serde_json::Value> =
        report["scenarios"].as_array().expect("scenarios").iter().filter(|s| s["verdict"] == "outside").collect();
    assert_eq!(outside[0]["why"], "needs parameters", "the runner gives no parameters and says so");
    assert_eq!(report["files"]["Writing1.feature"]["pass"], 1, "side effects counted as the TCK counts them");
}

#[test]
fn a_wrong_expectation_fails_with_the_difference_and_exit_one() {
    let o = graphlancer(&["tck", &ours("wrong"), "--failures"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("FAIL Wrong1.feature · [1] One plus one is not three"), "{out}");
    assert!(out.contains("got [Int(2)], expected [Int(3)]"), "{out}");
    // An error where one is expected, of another class, fails too.
    assert!(out.contains("a ArithmeticError at runtime (/ by zero) where a TypeError at runtime"), "{out}");
}

#[test]
fn a_folder_without_features_is_a_clear_error() {
    let empty = tempfile::tempdir().expect("temp dir");
    let o = graphlancer(&["tck", empty.path().to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("holds no .feature files"), "{}", stderr(&o));
    let o = graphlancer(&["tck", &ours("ours"), "--engine", "nosuchengine"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The same scenarios on real engines: the graph the reference built from
/// the setup is loaded, the query's text is sent, and the answers compare
/// without graphlancer's identity property.
#[test]
fn grafeo_and_falkordb_answer_the_reads_as_the_tck_expects() {
    for engine in ["grafeo", "falkordb"] {
        let (code, report) = tck("ours", engine);
        let v = verdicts(&report);
        for (name, verdict) in &v {
            if ["[1]", "[2]", "[3]", "[4]", "[5]"].iter().any(|n| name.starts_with(n)) {
                assert_eq!(verdict, "pass", "{engine}: {name}: {report}");
            }
        }
        // Neither raises Cypher's integer overflow (both pinned versions wrap
        // or widen): the runner says so, with exit 1.
        let overflow = v.iter().find(|(n, _)| n.starts_with("[6]")).expect("scenario 6");
        assert_eq!(overflow.1, "fail", "{engine}: {report}");
        assert_eq!(code, Some(1));
    }
}

/// The openCypher TCK the parser vendors (openCypher 2024.3), found where
/// cargo keeps the `open-cypher` package's source.
fn vendored_tck() -> std::path::PathBuf {
    let o = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let package = meta["packages"].as_array().expect("packages").iter().find(|p| p["name"] == "open-cypher");
    let manifest = package.and_then(|p| p["manifest_path"].as_str()).expect("open-cypher is a dependency");
    let vendor = std::path::Path::new(manifest).parent().expect("a folder").join("spec/vendor");
    let release = std::fs::read_dir(&vendor).expect("spec/vendor").flatten().next().expect("one openCypher release");
    release.path().join("tck/features")
}

/// The whole TCK on the reference: nothing in its subset fails, and an
/// error scenario passes only with the class and phase it names; the
/// compile-time refusals Neo4j 5 makes on variables and operand types
/// (Match1, Create1, Boolean4) are among the passes.
#[test]
fn the_reference_passes_the_vendored_tck_with_the_error_classes_it_names() {
    let dir = vendored_tck();
    let o = graphlancer(&["tck", dir.to_str().expect("utf-8"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["total"]["fail"], 0, "{}", report["total"]);
    assert!(report["total"]["pass"].as_u64().is_some_and(|n| n >= 2466), "{}", report["total"]);
    for file in
        ["clauses/match/Match1.feature", "clauses/create/Create1.feature", "expressions/boolean/Boolean4.feature"]
    {
        let errors = report["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .filter(|s| {
                s["file"] == file && s["verdict"] == "pass" && s["name"].as_str().is_some_and(|n| n.contains("Fail"))
            })
            .count();
        assert!(errors >= 3, "{file}: {errors} error scenarios pass");
    }
}
