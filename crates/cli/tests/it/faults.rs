//! Faults in the middle of a campaign: the engine's server or host is
//! killed (kill -9) and later stopped (SIGSTOP, a hang). The campaign must go
//! on, write each fault as a finding, and count it in the summary.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Direct children of `pid`, from /proc.
pub(crate) fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // The parent id is the second field after the parenthesised command name.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// Waits for the campaign's one engine process, other than `not`.
fn engine_process(campaign: &mut Child, not: Option<u32>) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = campaign.try_wait().expect("wait") {
            let mut err = String::new();
            if let Some(mut e) = campaign.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            panic!("the campaign ended ({status}) before the fault: {err}");
        }
        if let Some(p) = children(campaign.id()).into_iter().find(|p| Some(*p) != not) {
            return p;
        }
        assert!(Instant::now() < deadline, "no engine process appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Signals the campaign's current engine process (other than `not`),
/// retrying when it was replaced in between (Kuzu replaces its host after
/// every crash of its own). Returns the process signalled.
fn signal_engine(campaign: &mut Child, not: Option<u32>, sig: &str) -> u32 {
    for _ in 0..20 {
        let pid = engine_process(campaign, not);
        let status = Command::new("kill").args([sig, &pid.to_string()]).status().expect("kill runs");
        if status.success() {
            return pid;
        }
    }
    panic!("could not signal an engine process");
}

/// The campaign's running `summary.json`, once it has written one.
fn running_summary(out: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).ok()?).ok()
}

/// Whether the campaign's running `summary.json` satisfies `done` within
/// `within` (false also when the campaign ended).
fn wait_until(campaign: &mut Child, out: &Path, within: Duration, done: impl Fn(&serde_json::Value) -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline && campaign.try_wait().expect("wait").is_none() {
        if running_summary(out).is_some_and(|s| done(&s)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    running_summary(out).is_some_and(|s| done(&s))
}

/// Waits until the campaign's running `summary.json` satisfies `done`.
fn wait_for(campaign: &mut Child, out: &Path, what: &str, done: impl Fn(&serde_json::Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if running_summary(out).is_some_and(|s| done(&s)) {
            return;
        }
        assert!(campaign.try_wait().expect("wait").is_none(), "the campaign ended before {what}");
        assert!(Instant::now() < deadline, "never {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn outcomes_on_disk(out: &Path) -> Vec<serde_json::Value> {
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(out.join("findings")).expect("findings").flatten() {
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(entry.path().join("case.json")).expect("case.json"))
                .expect("JSON");
        kinds.extend(case["outcomes"].as_array().expect("outcomes").iter().cloned());
    }
    kinds
}

/// Runs a crash-oracle campaign on `engine`, kills its process, then stops
/// the replacement, and checks what the campaign made of both.
fn survive(engine: &str, budget: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut campaign = Command::new(crate::binary())
        // One worker: the test finds the engine's process among the campaign's children.
        .args(["run", "--engine", engine, "--seed", "5", "--timeout", "2s", "--no-reduce", "--workers", "1", "--json"])
        // A small graph: the query the stopped engine leaves hanging is then
        // cheap by its estimated work, so its timeout is a finding and not
        // dropped as an expensive query.
        .args(["--nodes", "12", "--rels", "24"])
        // One graph for the whole budget: a server stopped while it loads a
        // new graph is restarted as setup, with no query to time out, and
        // the stop this test sends must land on a query or a restore.
        .args(["--queries-per-graph", "1000000"])
        .arg("--out")
        .arg(&out)
        .args(budget)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("graphlancer runs");
    // Each fault once the campaign is under way: queries answered, then the crash counted.
    let answered = |n: u64| move |s: &serde_json::Value| s["engines"][0]["accepted"].as_u64().unwrap_or(0) >= n;
    wait_for(&mut campaign, &out, "queries were answered", answered(5));
    // A host killed while it restores its graph after a write had already
    // answered its query: it is replaced without a crash to count, so the
    // kill is repeated until one lands on a query.
    let crashed = |s: &serde_json::Value| s["engines"][0]["crashes"].as_u64().unwrap_or(0) >= 1;
    let mut first = signal_engine(&mut campaign, None, "-9");
    for _ in 0..10 {
        if wait_until(&mut campaign, &out, Duration::from_secs(5), crashed) {
            break;
        }
        first = signal_engine(&mut campaign, None, "-9");
    }
    wait_for(&mut campaign, &out, "the crash was counted", crashed);
    let accepted = |s: &serde_json::Value| s["engines"][0]["accepted"].as_u64().unwrap_or(0);
    let before = running_summary(&out).as_ref().map(accepted).unwrap_or(0);
    wait_for(&mut campaign, &out, "the replacement answered", answered(before + 5));
    signal_engine(&mut campaign, Some(first), "-STOP");
    let o = campaign.wait_with_output().expect("campaign ends");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "the faults are findings: {err}");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    let e = &summary["engines"][0];
    assert!(e["crashes"].as_u64().unwrap_or(0) >= 1, "{summary}");
    assert!(e["timeouts"].as_u64().unwrap_or(0) >= 1, "{summary}");
    let outcomes = outcomes_on_disk(&out);
    assert!(outcomes.iter().any(|o| o["outcome"] == "crash"), "{outcomes:?}");
    assert!(outcomes.iter().any(|o| o["outcome"] == "timeout"), "{outcomes:?}");
    // The kill did not happen again on the re-run: filed, not reproduced,
    // under the one name a fault without a clause gets, whatever its query.
    let cases: Vec<serde_json::Value> = std::fs::read_dir(out.join("findings"))
        .expect("findings")
        .filter_map(|d| std::fs::read_to_string(d.ok()?.path().join("case.json")).ok())
        .map(|t| serde_json::from_str(&t).expect("JSON"))
        .collect();
    let unreproduced: Vec<&serde_json::Value> = cases.iter().filter(|c| c["reproduced"] == false).collect();
    assert!(!unreproduced.is_empty(), "{cases:?}");
    assert!(unreproduced.iter().all(|c| c["signature"]["shape"] == "unnamed"), "{unreproduced:?}");
    // The campaign went on after both faults: it spent its whole budget.
    match budget {
        ["--queries", n] => assert_eq!(summary["queries"].as_u64().map(|q| q.to_string()).as_deref(), Some(*n)),
        ["--time", t] => {
            let secs: f64 = t.trim_end_matches('s').parse().expect("seconds");
            assert!(summary["seconds"].as_f64().unwrap_or(0.0) >= secs, "{summary}");
        }
        other => panic!("unknown budget {other:?}"),
    }
}

#[test]
fn a_campaign_survives_a_killed_and_a_stopped_falkordb_server() {
    // Long enough for a loaded machine to restart the server and answer
    // again, with room after the stop: a hang in a budget's last seconds
    // is cut by the budget and not judged, so it would file no timeout.
    survive("falkordb", &["--time", "40s"]);
}

/// A hang near the end of a time budget ends with the budget: its timeout
/// is cut to the time left, and the case it cut is counted, not filed
/// (a hang cannot be told from a query the budget stopped). Before, one
/// 8 s timeout and its re-run took a 6 s campaign past 10 s.
#[test]
fn a_hang_near_the_end_does_not_outlast_the_time_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut campaign = Command::new(crate::binary())
        .args(["run", "--engine", "kuzu@0.11.3", "--seed", "5", "--timeout", "8s", "--time", "6s", "--workers", "1"])
        .args(["--oracle", "crash", "--nodes", "12", "--rels", "24", "--no-reduce", "--json", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("graphlancer runs");
    let answered = |s: &serde_json::Value| s["engines"][0]["accepted"].as_u64().unwrap_or(0) >= 5;
    wait_for(&mut campaign, &out, "queries were answered", answered);
    signal_engine(&mut campaign, None, "-STOP");
    let o = campaign.wait_with_output().expect("campaign ends");
    let err = String::from_utf8_lossy(&o.stderr);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    let seconds = summary["seconds"].as_f64().expect("seconds");
    assert!(seconds <= 6.6, "ran {seconds} s of a 6 s budget: {summary}");
    assert_eq!(summary["cut_by_budget"], 1, "{summary}");
    if out.join("findings").exists() {
        let outcomes = outcomes_on_disk(&out);
        assert!(outcomes.iter().all(|o| o["outcome"] != "timeout"), "{outcomes:?}");
    }
}

#[test]
fn a_campaign_survives_a_killed_and_a_stopped_kuzu_host() {
    survive("kuzu@0.11.3", &["--queries", "200"]);
}

/// One FalkorDB segfault reached through different clauses the reducer
/// could not remove (an UNWIND, a CALL) is one signature: the clause it
/// happens at, found by cutting the query after each clause.
///
/// An OPTIONAL MATCH of bound lone nodes that crashes FalkorDB where the
/// plain MATCH of the same parts does not keeps its OPTIONAL (the crash
/// site would be named MATCH if the plain one crashed too); and FalkorDB's
/// crash on a DISTINCT percentile is one signature whether the aggregate
/// sits in a WITH or in the final RETURN. A value that crashes Kuzu 0.1.0
/// returned on its own (`rtrim('')`) names the crash wherever it sits.
#[test]
fn a_crash_is_named_by_the_clause_it_happens_at() {
    for (name, site) in [
        ("unwind", "at:MATCH,pattern:parts"),
        ("call", "at:MATCH,pattern:parts"),
        ("optional", "at:OPTIONAL MATCH,pattern:parts"),
        ("percentile-with", "at:projection"),
        ("percentile-return", "at:projection"),
        ("rtrim-with", "at:value:fn:rtrim"),
        ("rtrim-where", "at:value:fn:rtrim"),
    ] {
        let (dir, case) = reduced_fixture("crash-at", name);
        assert_eq!(case["signature"]["shape"], site, "{name}: {}", case["query"]);
        replays(&dir, name);
    }
}

/// Kuzu 0.10.0's string `+` with a NULL operand reads stale bytes (Kuzu
/// 0.11.3 answers right); the wrong value surfaces in a CASE, in a
/// variable a WITH passed on, and in the rows a WHERE keeps, three places
/// localization names differently. Making the operand non-null makes each
/// difference vanish, and that names all three alike. An operand the two
/// engines compute differently is not blamed on the operation around it.
#[test]
fn a_wrong_answer_for_a_null_operand_is_one_signature_wherever_it_is_observed() {
    for name in ["case", "variable", "where"] {
        let (dir, case) = reduced_fixture("null-operand", name);
        assert_eq!(
            case["signature"]["fault"]["expression"], "null-operand:op:+(null String)",
            "{name}: {}",
            case["query"]
        );
        replays(&dir, name);
    }
    // An operand the engines compute differently is the culprit itself.
    let (dir, case) = reduced_fixture("null-operand", "computed");
    assert_eq!(case["signature"]["fault"]["expression"], "list(Value)", "{}", case["query"]);
    replays(&dir, "computed");
}

/// Kuzu 0.6.0 gives NULL for rows after one whose operand is NULL (0.11.3
/// answers right): whichever operation shows it, it is one signature.
#[test]
fn a_null_that_reaches_other_rows_is_one_signature() {
    for name in ["leak-plus", "leak-in", "leak-left"] {
        let (dir, case) = reduced_fixture("null-operand", name);
        assert_eq!(case["signature"]["fault"]["expression"], "null-operand:across rows", "{name}: {}", case["query"]);
        replays(&dir, name);
    }
}

/// Kuzu 0.10.0 reports an undirected match's relationship with its ends in
/// traversal order (0.11.3 right): a relationship returned alone and one in
/// a path differ only in direction, one signature.
#[test]
fn relationships_in_traversal_order_are_one_signature_alone_or_in_a_path() {
    for name in ["rel", "path"] {
        let (dir, case) = reduced_fixture("rel-endpoints", name);
        assert_eq!(case["signature"]["fault"]["expression"], "rel-endpoints", "{name}: {}", case["query"]);
        replays(&dir, name);
    }
}

/// A UNION of a constant part and a part of paths merges paths: named as
/// Grafeo's DISTINCT of paths is anywhere. A value a MERGE stores, or one
/// that picks the rows a DELETE takes, is never made non-null to name a
/// finding: the write, or the read after it, is named.
#[test]
fn what_a_union_merges_and_what_a_merge_stores_are_named_by_the_bug() {
    for (name, expected) in [
        ("union-paths", "rows-after(grouping,keys:Path)"),
        ("merge-value", "rows-after(MERGE)"),
        ("delete-where", "rows-after(read,after writes)"),
        ("merge-var", "rows-after(MERGE)"),
        ("merge-star", "rows-after(MERGE)"),
        ("merge-end", "rows-after(MERGE)"),
        ("merge-with-key", "rows-after(MERGE)"),
        ("entity-min", "entity-as-number(grafeo)"),
        ("adjacent-removes", "var:Node"),
        ("read-var", "rows-after(read,after writes)"),
        ("star-after-delete", ""),
        ("beside-distinct", "agg:beside DISTINCT"),
    ] {
        let (dir, case) = reduced_fixture("named", name);
        let fault = &case["signature"]["fault"];
        if expected.is_empty() {
            // `*` over entities a DELETE removed: what the engines return is
            // not what the checker has in scope, so nothing is probed.
            assert_eq!(fault["kind"], "values", "{name}: {fault}");
        } else {
            assert_eq!(fault["expression"], expected, "{name}: {}", case["query"]);
        }
        replays(&dir, name);
    }
}

/// Grafeo runs a write for one row before a clause has seen the other rows;
/// a DELETE, a SET, a CALL after a DELETE and a CREATE after a MERGE show it,
/// each through another read. A grouping barrier around each write makes
/// the engines agree on all of them, and they make one finding.
#[test]
fn rows_a_write_sees_too_early_make_one_finding_whichever_write_shows_them() {
    for name in ["delete", "set", "call", "create"] {
        let (dir, case) = reduced_fixture("pipelined", name);
        assert_eq!(case["signature"]["fault"]["expression"], "pipelined-writes(grafeo)", "{name}: {}", case["query"]);
        replays(&dir, name);
    }
}

/// The guards that keep engines of different semantics comparable (Kuzu's
/// uniqueness by id, FalkorDB's folding of parallel relationships) go from a
/// reduced case where no engine's answer changes without them, and stay
/// where one would.
#[test]
fn a_guard_goes_only_where_no_engine_answers_differently_without_it() {
    let (dir, case) = reduced_fixture("guards", "kuzu-id");
    let query = case["query"].as_str().expect("query");
    assert!(!query.contains("id(r"), "{query}");
    assert!(query.contains("SET r0.k0"), "{query}");
    replays(&dir, "kuzu-id");

    let (dir, case) = reduced_fixture("guards", "falkordb-used");
    assert_eq!(case["query"], "MATCH (n0)-[r0:T1]->(n1)-[r1:T0]->(n2) RETURN [r1] AS a0");
    assert_eq!(case["signature"]["fault"]["expression"], "entity-as-number(grafeo)");
    replays(&dir, "falkordb-used");

    let (dir, case) = reduced_fixture("guards", "kept");
    let query = case["query"].as_str().expect("query");
    assert!(query.contains("(r1 IS NOT NULL)"), "{query}");
    replays(&dir, "kept");
    // Without that guard an engine answers differently (Grafeo: a row).
    let bare = query.replace("(r1 IS NOT NULL) AND ", "");
    assert_ne!(bare, query);
    let answers = |q: &str| {
        ["grafeo", "falkordb"].map(|engine| {
            let o = crate::graphlancer(&[
                "exec",
                "--engine",
                engine,
                "--case",
                dir.path().to_str().expect("utf-8"),
                "--json",
                q,
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", crate::stderr(&o));
            let line: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON line");
            line["result"].clone()
        })
    };
    assert_ne!(answers(query), answers(&bare), "{bare}");
}

/// A fixture's case, copied to a fresh folder and reduced again by
/// `graphlancer reduce`: the folder and the case written.
fn reduced_fixture(set: &str, name: &str) -> (tempfile::TempDir, serde_json::Value) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(set);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(fixtures.join(name).join("case.json"), dir.path().join("case.json")).expect("copied");
    let o = crate::graphlancer(&["reduce", dir.path().to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{set}/{name}: {}", crate::stderr(&o));
    let case =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("case.json")).expect("case.json")).expect("JSON");
    (dir, case)
}

fn replays(dir: &tempfile::TempDir, name: &str) {
    let replay = crate::graphlancer(&["replay", dir.path().to_str().expect("utf-8")]);
    assert_eq!(replay.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&replay.stdout));
}

/// Kuzu 0.1.0 binds a WITH's aggregate variable to the aggregate itself, so
/// a later read computes it again: an internal error in one query, a count
/// of the wrong rows in another. Each vanishes once the variable is bound
/// anew, and the crash and the difference are one report.
#[test]
fn an_aggregate_read_again_is_one_report_whichever_oracle_shows_it() {
    one_report(&["alias-crash", "alias-where", "alias-rows"], |name, case| {
        let shape = &case["signature"]["shape"];
        assert_eq!(shape, graphlancer_oracles::cause::AGGREGATE_ALIAS, "{name}: {}", case["query"]);
    });
}

/// Reduces each of the `named` fixtures, checks it with `check`, replays it,
/// and files them in one store: the first is a new report, the rest its
/// duplicates.
fn one_report(names: &[&str], check: impl Fn(&str, &serde_json::Value)) {
    use graphlancer_oracles::report::{Recorded, ReportStore};
    let reports = tempfile::tempdir().expect("tempdir");
    let mut store = ReportStore::open(reports.path()).expect("opens");
    let mut recorded = Vec::new();
    for name in names {
        let (dir, case) = reduced_fixture("named", name);
        check(name, &case);
        replays(&dir, name);
        recorded.push(store.adopt(dir.path()).expect("recorded"));
    }
    assert!(matches!(recorded[0], Recorded::New(_)), "{:?}", recorded[0]);
    assert!(recorded[1..].iter().all(|r| matches!(r, Recorded::Duplicate(..))), "{recorded:?}");
}

/// Kuzu 0.1.0 sorts -0.0 below every negative number, whatever query sorts
/// it: named by the value, not by the constructs around the ORDER BY.
#[test]
fn rows_sorted_differently_are_named_by_the_values_the_sorts_part_on() {
    for name in ["sort-zero", "sort-zero-unwind"] {
        let (dir, case) = reduced_fixture("named", name);
        assert_eq!(case["signature"]["fault"]["kind"], "order", "{name}: {}", case["query"]);
        assert_eq!(case["signature"]["shape"], "by:-0.0", "{name}: {}", case["query"]);
        replays(&dir, name);
    }
}

/// Kuzu 0.1.0 computes an IS NOT NULL and two CASEs over a property column
/// that holds NULLs wrongly on rows whose operands are not NULL. It has no
/// `coalesce` to pin an operand with, but each operation is right on the
/// same operands as literals: one report, whichever operation shows it.
#[test]
fn a_null_that_reaches_other_rows_is_one_report_where_no_operand_can_be_pinned() {
    one_report(&["leak-isnull", "leak-case", "leak-case-when"], |name, case| {
        let fault = &case["signature"]["fault"];
        assert_eq!(fault["expression"], "null-operand:across rows", "{name}: {}", case["query"]);
    });
}
