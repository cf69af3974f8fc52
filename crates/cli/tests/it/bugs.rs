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
        let printed = run.status.success().then(|| String::from_utf8_lossy(&run.stdout).lines().count());
        answers_as_recorded(bug, "grafeo@0.6.0", printed, &run);
    }
    let md = std::fs::read_to_string(ledger.join("BUGS.md")).expect("BUGS.md");
    assert!(md.contains(&format!("{} root causes", bugs.len())) && md.contains("import grafeo"), "{md}");
}

/// The rows the shown case recorded for `engine`, or `None` where it
/// failed (an error, a crash, a hang).
fn recorded_rows(bug: &serde_json::Value, engine: &str) -> Option<usize> {
    let dir = std::path::Path::new(bug["shown"].as_str().expect("path"));
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("JSON");
    let at = case["engines"].as_array().expect("engines").iter().position(|e| e["spec"] == engine);
    let at = at.unwrap_or_else(|| panic!("{engine} is not in {}", dir.display()));
    case["outcomes"][at]["rows"].as_array()?;
    // Rows past the stored cut are counted beside it.
    Some(case["row_counts"][at].as_u64().expect("a row count") as usize)
}

/// The own client answered as the campaign recorded: as many rows, or a
/// failure where the engine failed.
fn answers_as_recorded(bug: &serde_json::Value, engine: &str, printed: Option<usize>, run: &std::process::Output) {
    let said = format!(
        "{}\nstdout: {}\nstderr: {}",
        bug["own_client"][0]["text"],
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(printed, recorded_rows(bug, engine), "{said}");
}

/// Every FalkorDB entry of a ledger replays through `redis-cli` against
/// FalkorDB 4.22.1, and every Kuzu and RyuGraph entry through the fork's
/// own Python module, with no graphlancer in between: each answers as
/// recorded.
#[test]
fn every_falkordb_and_kuzu_entry_reproduces_in_the_engines_own_client() {
    let Ok(redis_cli) = which("redis-cli") else {
        println!("SKIPPED: no redis-cli here (scripts/test.sh installs Debian's redis-tools as root)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (f, k, r) = (dir.path().join("falkordb"), dir.path().join("kuzu"), dir.path().join("ryugraph"));
    let ledger = dir.path().join("ledger");
    campaign(&f, &["falkordb@4.22.1", "reference"], "21", "200");
    campaign(&k, &["kuzu@0.11.3", "reference"], "7", "100");
    campaign(&r, &["ryugraph@25.9.2", "reference"], "32", "60");
    let paths = [f.to_str().expect("utf-8"), k.to_str().expect("utf-8"), r.to_str().expect("utf-8")];
    let o = graphlancer(&["bugs", paths[0], paths[1], paths[2], "--ledger", ledger.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ledger.join("bugs.json")).expect("bugs.json")).expect("JSON");
    let install = engines_dir().falkordb("4.22.1").expect("installed");
    let kuzu_python = engines_dir().python("kuzu", "kuzu", "0.11.3").expect("installed");
    let ryugraph_python = engines_dir().python("ryugraph", "ryugraph", "25.9.2").expect("installed");
    let (mut falkordb, mut kuzu) = (0, 0);
    for bug in json["bugs"].as_array().expect("bugs") {
        let client = &bug["own_client"][0];
        let text = client["text"].as_str().expect("text");
        match bug["wrong"][0].as_str().expect("an engine") {
            "falkordb@4.22.1" => {
                // A fresh server for each entry: a crash one leaves none.
                let server = Redis::start(&install);
                let script = text.replace("redis-cli ", &format!("{} -p {} --json ", redis_cli.display(), server.port));
                let run = std::process::Command::new("sh").args(["-c", &script]).output().expect("sh runs");
                let last = String::from_utf8_lossy(&run.stdout).lines().last().map(str::to_owned).unwrap_or_default();
                // `[header, rows, statistics]`; an error prints `error:…`.
                let printed = serde_json::from_str::<serde_json::Value>(&last)
                    .ok()
                    .and_then(|v| v.as_array().filter(|a| a.len() == 3).and_then(|a| a[1].as_array().map(Vec::len)));
                answers_as_recorded(bug, "falkordb@4.22.1", printed, &run);
                falkordb += 1;
            }
            spec @ ("kuzu@0.11.3" | "ryugraph@25.9.2") => {
                let python = if spec.starts_with("kuzu") { &kuzu_python } else { &ryugraph_python };
                let work = tempfile::tempdir().expect("tempdir");
                let run = std::process::Command::new(python)
                    .args(["-c", text])
                    .current_dir(work.path())
                    .output()
                    .expect("python runs");
                let printed = run.status.success().then(|| String::from_utf8_lossy(&run.stdout).lines().count());
                answers_as_recorded(bug, spec, printed, &run);
                kuzu += 1;
            }
            other => panic!("{other}: {bug}"),
        }
    }
    assert!(falkordb >= 1 && kuzu >= 4, "{falkordb} FalkorDB and {kuzu} Kuzu-family entries");
    let families: std::collections::BTreeSet<&str> =
        json["bugs"].as_array().expect("bugs").iter().filter_map(|b| b["wrong"][0].as_str()).collect();
    assert!(families.contains("ryugraph@25.9.2"), "a RyuGraph entry: {families:?}");
}

fn which(program: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file()).ok_or(())
}

/// A redis-server with one FalkorDB module, on a free port, shut down when dropped.
struct Redis {
    child: std::process::Child,
    port: u16,
}

impl Redis {
    fn start(install: &graphlancer_engines::install::FalkorDbInstall) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let child = std::process::Command::new(&install.server)
            .args(["--port", &port.to_string(), "--save", "", "--appendonly", "no", "--loadmodule"])
            .arg(&install.module)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let ready = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < ready, "redis-server did not listen on {port}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Self { child, port }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bug of the embedded Grafeo is bisected across Grafeo's released
/// packages: it appeared in one release and is gone in a later one. The
/// finding is a seed-7 campaign's (grafeo vs reference), kept as written.
#[test]
fn bisect_walks_grafeos_released_packages() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bisect/grafeo-list-relationship");
    let dir = tempfile::tempdir().expect("tempdir");
    let finding = dir.path().join("0005-differential");
    std::fs::create_dir_all(&finding).expect("mkdir");
    std::fs::copy(fixture.join("case.json"), finding.join("case.json")).expect("copied");
    // `[r]` of a relationship reads back as its id on 0.5.11-0.5.44 (the
    // embedded release), which 0.6.0 fixed.
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
