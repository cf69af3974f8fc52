//! Engine bugs graphlancer's own queries ran into while its adapters were
//! built, each checked against the answer computed from the generated graph.
//! They pin today's wrong answers at the pinned engine versions; when an
//! upgrade fixes one, its test fails and the dialect profile's entry goes.

use graphlancer_engines::falkordb::FalkorDb;
use graphlancer_engines::{Engine, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::{Graph, GraphConfig, Value, generate};

use crate::{engines_dir, grafeo_host, graph, rows};

fn count(engine: &mut dyn Engine, query: &str) -> i64 {
    match rows(engine.execute(query, &ExecOptions::default()).expect("runs")).scalar() {
        Some(Value::Int(n)) => *n,
        other => panic!("{query}: expected a count, got {other:?}"),
    }
}

/// Two-hop walks that use two different relationships, as Cypher's
/// relationship uniqueness demands.
fn two_hop_truth(g: &Graph) -> i64 {
    let rels = &g.relationships;
    rels.iter().flat_map(|a| rels.iter().map(move |b| (a, b))).filter(|(a, b)| a.end == b.start && a.id != b.id).count()
        as i64
}

fn self_loops(g: &Graph) -> i64 {
    g.relationships.iter().filter(|r| r.start == r.end).count() as i64
}

fn parallel_pairs(g: &Graph) -> i64 {
    let mut pairs: Vec<(i64, i64)> = g.relationships.iter().map(|r| (r.start, r.end)).collect();
    pairs.sort();
    pairs.dedup();
    pairs.len() as i64
}

/// FalkorDB 4.16.3: `MATCH (a)-[r]->(b) RETURN count(*)` counts node pairs,
/// not relationships, when two relationships join the same pair; `count(r)`
/// is right. Found by the cross-engine test of the foundation issue; 4.22.1
/// counts right, so the bug is tracked per release.
#[test]
fn falkordb_count_star_collapses_parallel_relationships_before_4_22() {
    let g = graph(1, 40, 80);
    assert!(parallel_pairs(&g) < 80, "the graph has parallel relationships");
    for (release, count_star) in [("4.16.3", parallel_pairs(&g)), ("4.22.1", 80)] {
        let mut db = FalkorDb::start_managed(&engines_dir().falkordb(release).expect("installed")).expect("starts");
        db.load(&g).expect("loads");
        assert_eq!(count(&mut db, "MATCH (a)-[r]->(b) RETURN count(r)"), 80);
        assert_eq!(count(&mut db, "MATCH (a)-[r]->(b) RETURN count(*)"), count_star, "on {release}");
        assert_eq!(count(&mut db, "MATCH (a)-[r1]->(b)-[r2]->(c) WHERE r1 <> r2 RETURN count(*)"), two_hop_truth(&g));
    }
}

/// Grafeo 0.5.44: a two-hop pattern binds one self-loop relationship to both
/// of its relationship variables, breaking relationship uniqueness.
#[test]
fn grafeo_two_hop_pattern_reuses_self_loops() {
    let g = graph(1, 40, 80);
    assert!(self_loops(&g) > 0, "the graph has self-loops");
    let mut db = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("starts");
    db.load(&g).expect("loads");
    let got = count(&mut db, "MATCH (a)-[r1]->(b)-[r2]->(c) RETURN count(*)");
    assert_eq!(got, two_hop_truth(&g) + self_loops(&g), "bug still present");
    assert_eq!(count(&mut db, "MATCH (a)-[r1]->(b)-[r2]->(c) WHERE r1 <> r2 RETURN count(*)"), two_hop_truth(&g));
}

/// Grafeo 0.5.44: a float used as a grouping key comes back as the integer
/// with the same IEEE-754 bits (1.5 as 4609434218613702656).
#[test]
fn grafeo_float_grouping_keys_come_back_as_their_bits() {
    let mut db = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("starts");
    db.load(&graph(1, 3, 0)).expect("loads");
    let got = rows(
        db.execute("UNWIND [1.5, 1.5, 2.25] AS x RETURN x, count(*) AS c ORDER BY c DESC", &ExecOptions::default())
            .expect("runs"),
    );
    let bits = |x: f64| Value::Int(x.to_bits() as i64);
    assert_eq!(got.rows, vec![vec![bits(1.5), Value::Int(2)], vec![bits(2.25), Value::Int(1)]], "bug still present");
    let distinct =
        rows(db.execute("UNWIND [1.5, 2.25] AS x RETURN DISTINCT x", &ExecOptions::default()).expect("runs"));
    assert_eq!(distinct.rows, vec![vec![Value::Float(1.5)], vec![Value::Float(2.25)]]);
}

/// FalkorDB 4.16.3: removing the same property twice in one query kills the
/// server (found by the generator's validity run).
#[test]
fn falkordb_crashes_on_a_property_removed_twice() {
    let mut db = FalkorDb::start_managed(
        &engines_dir().falkordb(graphlancer_engines::spec::FALKORDB_VERSION).expect("installed"),
    )
    .expect("starts");
    db.load(&graph(1, 5, 5)).expect("loads");
    let outcome = db.execute("CREATE (n:A {k: 1}) REMOVE n.k REMOVE n.k RETURN n", &ExecOptions::default());
    let outcome = outcome.expect("recovered");
    assert!(matches!(outcome, Outcome::Crash { .. }), "bug gone? {outcome:?}");
    assert_eq!(count(&mut db, "MATCH (n) RETURN count(n)"), 5, "the restarted server has the graph again");
}

/// Grafeo 0.5.44: a second MATCH that expands two typed hops from a node the
/// first MATCH reached fails with 'Factorized expand failed: Expected node ID
/// in source column' (found by the generator; about 0.5% of its queries).
#[test]
fn grafeo_factorized_expand_fails_on_a_typed_two_hop_continuation() {
    let g = generate(7, &GraphConfig::default()).expect("valid");
    let mut db = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("starts");
    db.load(&g).expect("loads");
    let q = "MATCH (a)-[:T3]->(b) MATCH (b)-[:T2]->(m)-[:T3]->(c) RETURN count(*) AS n";
    match db.execute(q, &ExecOptions::default()).expect("runs") {
        Outcome::Error { class: ErrorClass::Internal, message } => {
            assert!(message.contains("Factorized expand failed"), "{message}");
        }
        other => panic!("bug gone? {other:?}"),
    }
    assert!(count(&mut db, "MATCH (a)-[]->(b) MATCH (b)-[]->(m)-[]->(c) RETURN count(*)") > 0);
}

/// Grafeo 0.5.44: `type(null)` is an internal error instead of null.
#[test]
fn grafeo_type_of_null_is_an_internal_error() {
    let mut db = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("starts");
    db.load(&graph(1, 3, 0)).expect("loads");
    let outcome = db.execute("RETURN type(null) AS t", &ExecOptions::default()).expect("runs");
    assert!(matches!(outcome, Outcome::Error { class: ErrorClass::Internal, .. }), "bug gone? {outcome:?}");
}

/// Grafeo 0.5.44: a variable-length pattern does not see a relationship an
/// earlier clause of the same query created; a one-hop pattern does (found
/// by the `added-relationship` metamorphic relation).
#[test]
fn grafeo_variable_length_pattern_misses_a_relationship_created_before_it() {
    let g = graph(1, 6, 0);
    let mut db = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("starts");
    db.load(&g).expect("loads");
    let (a, b) = (g.nodes[0].id, g.nodes[1].id);
    let create =
        format!("MATCH (a) WHERE a.gid = {a} MATCH (b) WHERE b.gid = {b} CREATE (a)-[:T0]->(b) WITH count(*) AS d");
    let one_hop = format!("{create} MATCH (x)-[:T0]->(y) WHERE x.gid = {a} AND y.gid = {b} RETURN count(*)");
    let var_length = format!("{create} MATCH (x)-[:T0*1..1]->(y) WHERE x.gid = {a} AND y.gid = {b} RETURN count(*)");
    assert_eq!(count(&mut db, &one_hop), 1);
    assert_eq!(count(&mut db, &var_length), 0, "bug still present");
}

/// Known bugs are tracked per release, not hidden: each release a campaign
/// opens runs the profile's witness queries beside the reference. Grafeo's
/// grouping-key bug is live on the embedded 0.5.44 and fixed on 0.6.0, and
/// the ledger lists both.
#[test]
fn known_bugs_are_checked_on_each_release_and_listed_in_the_ledger() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut outs = Vec::new();
    for (engine, status) in [("grafeo", "live on grafeo@0.5.44"), ("grafeo@0.6.0", "fixed on grafeo@0.6.0")] {
        let out = dir.path().join(engine);
        let summary = crate::reference::campaign(engine, "1", "5", out.to_str().expect("utf-8"));
        assert_eq!(summary["known_bugs"]["grouping_keys"], status, "{}", summary["known_bugs"]);
        if engine == "grafeo" {
            // A witness shows its bug on the release the profile was written
            // for; one that does not would turn steering off unasked.
            let known = summary["known_bugs"].as_object().expect("known_bugs");
            assert!(
                known.len() >= 10 && known.values().all(|s| s.as_str().is_some_and(|s| s.starts_with("live"))),
                "{known:?}"
            );
        }
        outs.push(out);
    }
    let ledger = dir.path().join("ledger");
    let mut args = vec!["bugs", "--ledger", ledger.to_str().expect("utf-8")];
    args.extend(outs.iter().map(|o| o.to_str().expect("utf-8")));
    let o = crate::graphlancer(&args);
    assert_eq!(o.status.code(), Some(0), "{}", crate::stderr(&o));
    let md = std::fs::read_to_string(ledger.join("BUGS.md")).expect("BUGS.md");
    assert!(md.contains("| `grouping_keys` | live on grafeo@0.5.44, fixed on grafeo@0.6.0 |"), "{md}");
}

/// Against the reference a live known bug no longer steers the generator:
/// its shapes are written, and every finding whose reduced case still has
/// the bug's production or shape is counted under it, in one report per
/// bug and one ledger row "known bug …, live on …". Two engines compared
/// with each other keep steering.
#[test]
fn a_live_known_bug_is_generated_against_the_reference_and_counted_under_one_ledger_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("tracked");
    let summary = crate::reference::campaign("grafeo", "7", "300", out.to_str().expect("utf-8"));
    let counted = summary["known_bug_findings"].as_object().expect("known bugs are watched");
    assert!(counted.contains_key("grouping_keys") && counted.contains_key("fn_tan"), "{counted:?}");
    let mut reports: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(out.join("findings")).expect("findings") {
        let case: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(entry.expect("entry").path().join("case.json")).expect("case.json"),
        )
        .expect("JSON");
        if let Some(bug) = case["known_bug"]["bug"].as_str() {
            assert_eq!(case["known_bug"]["release"], "grafeo 0.5.44", "{case}");
            *reports.entry(bug.to_owned()).or_default() += 1;
        }
    }
    // Seed 7 meets Grafeo 0.5.44's grouping-key bug many times: one report.
    assert!(counted["grouping_keys"].as_u64().is_some_and(|n| n >= 3), "{counted:?}");
    for (bug, n) in counted {
        let expected = usize::from(n.as_u64().is_some_and(|n| n > 0));
        assert_eq!(reports.get(bug).copied().unwrap_or(0), expected, "{bug}: {n} findings, {reports:?}");
    }
    let ledger = dir.path().join("ledger");
    let o = crate::graphlancer(&["bugs", out.to_str().expect("utf-8"), "--ledger", ledger.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", crate::stderr(&o));
    let md = std::fs::read_to_string(ledger.join("BUGS.md")).expect("BUGS.md");
    for bug in reports.keys() {
        assert!(md.contains(&format!("known bug `{bug}`, live on grafeo@0.5.44")), "{bug}\n{md}");
    }
    // Two Grafeo releases compared with each other: nothing is watched.
    let pair = dir.path().join("pair");
    let o = crate::graphlancer(&[
        "run",
        "--engine",
        "grafeo",
        "--engine",
        "grafeo@0.6.0",
        "--queries",
        "5",
        "--seed",
        "7",
        "--json",
        "--out",
        pair.to_str().expect("utf-8"),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", crate::stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON summary");
    assert!(summary.get("known_bug_findings").is_none(), "{summary}");
}
