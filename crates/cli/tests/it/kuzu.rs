//! Kuzu and LadybugDB in their Python engine hosts, at the versions the
//! setup script installs by default.

use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, OpenOptions, Outcome, open};
use graphlancer_model::{Comparison, Graph, GraphConfig, ResultSet, RowOrder, Tolerance, Value, compare, generate};

use crate::{grafeo_host, node_count, rows, signal, timeout_ms};

/// Every Kuzu-family version the test command installs.
const VERSIONS: [&str; 3] = ["kuzu@0.11.3", "kuzu@0.10.0", "ladybug@0.22.0"];

fn start(spec: &str) -> Box<dyn Engine> {
    let spec: EngineSpec = spec.parse().expect("known spec");
    open(&spec, &OpenOptions { host_command: grafeo_host() }).expect("host starts")
}

/// Releases across the Kuzu family's history, oldest first: Kuzu before 0.6
/// has no in-memory database, before 0.7 no float exponent, before 0.8 no
/// relationship table over several label pairs; LadybugDB's oldest and
/// newest releases.
const RELEASES: [&str; 9] = [
    "kuzu@0.1.0",
    "kuzu@0.4.2",
    "kuzu@0.6.0",
    "kuzu@0.7.1",
    "kuzu@0.8.2",
    "kuzu@0.10.0",
    "kuzu@0.11.3",
    "ladybug@0.15.3",
    "ladybug@0.22.0",
];

/// A graph Kuzu can hold: one label a node.
fn kuzu_graph(seed: u64, nodes: usize, relationships: usize) -> Graph {
    let config = GraphConfig { nodes, relationships, second_label_probability: 0.0, ..GraphConfig::default() };
    generate(seed, &config).expect("valid config")
}

/// What every version returns for every node, relationship and path equals
/// what graphlancer generated: the creation script and the decoder agree.
#[test]
fn every_version_returns_the_generated_graph_exactly() {
    let g = kuzu_graph(11, 120, 240);
    let strings: Vec<&Value> = g.nodes.iter().flat_map(|n| n.properties.values()).collect();
    assert!(strings.iter().any(|v| matches!(v, Value::String(s) if s.contains('\\') || s.contains('\''))));
    assert!(strings.iter().any(|v| matches!(v, Value::String(s) if !s.is_ascii())));
    let expected_nodes = ResultSet::new(vec!["n".into()], g.nodes.iter().map(|n| vec![n.to_value()]).collect());
    let expected_rels = ResultSet::new(vec!["r".into()], g.relationships.iter().map(|r| vec![r.to_value()]).collect());
    for spec in VERSIONS {
        let mut db = start(spec);
        assert_eq!(db.name(), spec);
        assert_eq!(db.dialect(), "kuzu");
        assert_eq!(Some(db.version()), spec.split('@').nth(1), "the host reports the installed version");
        db.load(&g).expect("loads");
        for (query, expected) in
            [("MATCH (n) RETURN n", &expected_nodes), ("MATCH ()-[r]->() RETURN r", &expected_rels)]
        {
            let got = rows(db.execute(query, &ExecOptions::default()).expect("runs"));
            assert_eq!(
                compare(&got, expected, &RowOrder::Bag, Tolerance::default()),
                Comparison::Equal,
                "{spec} disagrees with the generated graph on {query}"
            );
        }
        let paths = rows(db.execute("MATCH p = ()-[r]->() RETURN p", &ExecOptions::default()).expect("runs"));
        assert_eq!(paths.rows.len(), g.relationships.len());
        for row in &paths.rows {
            let Value::Path(p) = &row[0] else { panic!("{spec}: not a path: {row:?}") };
            let r = &p.relationships[0];
            assert_eq!((r.start, r.end), (p.nodes[0].identity(), p.nodes[1].identity()), "{spec}: {r:?}");
        }
    }
}

#[test]
fn errors_are_classified_and_values_decoded() {
    let mut db = start("kuzu@0.11.3");
    db.load(&kuzu_graph(12, 5, 5)).expect("loads");
    let mut class = |q: &str| match db.execute(q, &ExecOptions::default()).expect("runs") {
        Outcome::Error { class, .. } => class,
        other => panic!("{q}: expected an error, got {other:?}"),
    };
    assert_eq!(class("RETURN 1 +"), ErrorClass::Syntax);
    assert_eq!(class("MATCH (n) RETURN n.nope"), ErrorClass::Semantic);
    assert_eq!(class("RETURN 1 / 0"), ErrorClass::Runtime);
    assert_eq!(class("RETURN 9223372036854775807 + 1"), ErrorClass::Runtime);
    let values = rows(
        db.execute(
            "RETURN [1, 2] AS l, {a: 1, b: 'x'} AS m, 0.0 / 0.0 AS nan, -0.0 AS z, 0.1 + 0.2 AS f, \
             sum(9223372036854775807) AS s, null AS n, 'it\\'s' AS q",
            &ExecOptions::default(),
        )
        .expect("runs"),
    );
    let row = &values.rows[0];
    assert_eq!(row[0], Value::List(vec![Value::Int(1), Value::Int(2)]));
    assert!(matches!(&row[1], Value::Map(m) if m.get("b") == Some(&Value::String("x".into()))));
    assert!(matches!(row[2], Value::Float(x) if x.is_nan()));
    assert!(matches!(row[3], Value::Float(x) if x == 0.0 && x.is_sign_negative()));
    assert_eq!(row[4], Value::Float(0.1 + 0.2));
    assert_eq!(row[5], Value::Int(i64::MAX), "INT128 sums come back as integers");
    assert_eq!(row[6], Value::Null);
    assert_eq!(row[7], Value::String("it's".into()));
    // An OPTIONAL MATCH with no match: Kuzu hands back entities with null
    // ids (a "path of nulls"), which are null.
    let missing = rows(
        db.execute("OPTIONAL MATCH p = (a)-[r]->(b {gid: -5}) RETURN p, r, b", &ExecOptions::default()).expect("runs"),
    );
    assert_eq!(missing.rows, vec![vec![Value::Null, Value::Null, Value::Null]]);
}

#[test]
fn writes_leave_the_loaded_graph_unchanged() {
    let mut db = start("ladybug@0.22.0");
    db.load(&kuzu_graph(10, 20, 30)).expect("loads");
    let deleted = db.execute("MATCH (n) DETACH DELETE n", &ExecOptions::default()).expect("runs");
    assert!(matches!(deleted, Outcome::Rows(_)), "{deleted:?}");
    let set = db.execute("MATCH (n) SET n.gid = -1 RETURN count(*)", &ExecOptions::default()).expect("runs");
    assert!(matches!(set, Outcome::Error { .. } | Outcome::Rows(_)), "{set:?}");
    assert_eq!(node_count(db.as_mut()), Value::Int(20));
    let gids = rows(db.execute("MATCH (n) RETURN min(n.gid), max(n.gid)", &ExecOptions::default()).expect("runs"));
    assert_eq!(gids.rows[0], vec![Value::Int(0), Value::Int(19)]);
}

#[test]
fn a_long_query_times_out_and_the_host_goes_on() {
    let mut db = start("kuzu@0.11.3");
    db.load(&kuzu_graph(9, 5, 5)).expect("loads");
    let outcome =
        db.execute("UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x)", &timeout_ms(500));
    assert_eq!(outcome.expect("answers"), Outcome::Timeout { after_ms: 500 });
    assert_eq!(node_count(db.as_mut()), Value::Int(5));
}

/// A Kuzu release's host, as the adapter starts it, with its process in reach.
fn hosted(version: &str) -> graphlancer_engines::hosted::HostedEngine {
    use graphlancer_model::ScriptDialect;
    // Relationship tables over several label pairs came in 0.8.
    let minor: u32 = version.split('.').nth(1).and_then(|m| m.parse().ok()).expect("a 0.x.y release");
    let script = if minor < 8 { ScriptDialect::KuzuRelGroups } else { ScriptDialect::Kuzu };
    graphlancer_engines::hosted::HostedEngine::start(
        graphlancer_engines::hosted::HostedKind {
            name: format!("kuzu@{version}"),
            engine: "kuzu",
            dialect: "kuzu",
            load: graphlancer_engines::hosted::LoadForm::Script(script),
            languages: &[graphlancer_model::Language::Cypher],
            plan: Some(graphlancer_engines::kuzu::plan::operators),
        },
        graphlancer_engines::host::HostCommand::python(
            crate::engines_dir().python("kuzu", "kuzu", version).expect("installed"),
            graphlancer_engines::kuzu::HOST,
            &["kuzu", ""],
        ),
    )
    .expect("starts")
}

/// Kuzu before 0.6 keeps its database in files. The first host copies the
/// folder it loaded; a host started after a crash copies it back instead
/// of creating the graph again, and holds the generated graph exactly.
#[test]
fn a_host_after_a_crash_copies_an_old_releases_loaded_database() {
    let mut db = hosted("0.1.0");
    let g = kuzu_graph(13, 40, 80);
    db.load(&g).expect("loads");
    let kept = std::fs::read_dir(db.snapshots()).expect("a snapshot folder").count();
    assert_eq!(kept, 2, "one copy of the loaded database and its counts");
    let expected_nodes = ResultSet::new(vec!["n".into()], g.nodes.iter().map(|n| vec![n.to_value()]).collect());
    let expected_rels = ResultSet::new(vec!["r".into()], g.relationships.iter().map(|r| vec![r.to_value()]).collect());
    signal(db.host_pid().expect("running"), "-9");
    let crashed = db.execute("MATCH (n) RETURN n", &ExecOptions::default()).expect("recovered");
    assert!(matches!(crashed, Outcome::Crash { .. }), "{crashed:?}");
    for (query, expected) in [("MATCH (n) RETURN n", &expected_nodes), ("MATCH ()-[r]->() RETURN r", &expected_rels)] {
        let got = rows(db.execute(query, &ExecOptions::default()).expect("runs"));
        assert_eq!(compare(&got, expected, &RowOrder::Bag, Tolerance::default()), Comparison::Equal, "{query}");
    }
    // Writes on the copy are undone as on a loaded database.
    let deleted = db.execute("MATCH (n) DETACH DELETE n", &ExecOptions::default()).expect("runs");
    assert!(matches!(deleted, Outcome::Rows(_)), "{deleted:?}");
    assert_eq!(node_count(&mut db), Value::Int(40));
    // Another graph replaces the copy: one is kept, the current one.
    db.load(&kuzu_graph(14, 10, 10)).expect("loads");
    assert_eq!(std::fs::read_dir(db.snapshots()).expect("a snapshot folder").count(), 2);
    signal(db.host_pid().expect("running"), "-9");
    let _ = db.execute("RETURN 0", &ExecOptions::default());
    assert_eq!(node_count(&mut db), Value::Int(10));
}

#[test]
fn a_killed_or_stopped_host_is_a_crash_or_timeout_and_the_next_query_works() {
    let mut db = hosted("0.11.3");
    db.load(&kuzu_graph(8, 10, 10)).expect("loads");
    let pid = db.host_pid().expect("running");
    signal(pid, "-9");
    match db.execute("MATCH (n) RETURN n", &ExecOptions::default()).expect("recovered") {
        Outcome::Crash { message } => assert!(message.contains("signal: 9"), "{message}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_eq!(node_count(&mut db), Value::Int(10), "a new host holds the graph");
    let pid = db.host_pid().expect("running");
    signal(pid, "-STOP");
    assert_eq!(
        db.execute("MATCH (n) RETURN n", &timeout_ms(300)).expect("recovered"),
        Outcome::Timeout { after_ms: 300 }
    );
    assert_ne!(db.host_pid(), Some(pid));
    assert_eq!(node_count(&mut db), Value::Int(10));
}

/// Every release loads the generated graph exactly, reads it back, writes
/// without keeping the write, and classifies an error.
#[test]
fn every_release_loads_reads_writes_and_errors() {
    let g = kuzu_graph(12, 60, 120);
    assert!(g.schema.rel_types.iter().any(|t| t.endpoints.len() > 1), "a type over several label pairs");
    let expected_rels = ResultSet::new(vec!["r".into()], g.relationships.iter().map(|r| vec![r.to_value()]).collect());
    let opts = ExecOptions::default();
    for spec in RELEASES {
        let mut db = start(spec);
        assert_eq!(Some(db.version()), spec.split('@').nth(1), "the host reports the installed version");
        db.load(&g).unwrap_or_else(|e| panic!("{spec} loads: {e}"));
        let got = rows(db.execute("MATCH ()-[r]->() RETURN r", &opts).expect("runs"));
        assert_eq!(
            compare(&got, &expected_rels, &RowOrder::Bag, Tolerance::default()),
            Comparison::Equal,
            "{spec} disagrees with the generated relationships"
        );
        let label = &g.nodes[0].labels[0];
        let wrote = rows(db.execute(&format!("CREATE (:{label} {{gid: 100000}}) RETURN 1 AS x"), &opts).expect("runs"));
        assert_eq!(wrote.rows, vec![vec![Value::Int(1)]], "{spec}");
        assert_eq!(node_count(db.as_mut()), Value::Int(g.nodes.len() as i64), "{spec} keeps no write");
        match db.execute("RETURN nosuchfunction(1) AS x", &opts).expect("runs") {
            Outcome::Error { class: ErrorClass::Semantic, .. } => {}
            other => panic!("{spec}: an unknown function is a semantic error, not {other:?}"),
        }
    }
}

/// The names localizing gives each of `queries`, which kuzu@0.1.0 and the
/// reference must answer differently, on `g`.
fn names_against_the_reference(g: &Graph, queries: &[&str]) -> Vec<String> {
    use graphlancer_oracles::localize::{Symptom, localize};
    let reference = graphlancer_reference::open(&EngineSpec::Reference, &OpenOptions { host_command: grafeo_host() });
    let mut engines = vec![start("kuzu@0.1.0"), reference.expect("opens")];
    for e in &mut engines {
        e.load(g).expect("loads");
    }
    let mut names = Vec::new();
    for text in queries {
        let query = graphlancer_cypher::parse::parse(text).expect("parses");
        let answers: Vec<Outcome> = engines
            .iter_mut()
            .map(|e| e.execute(&graphlancer_cypher::render(&query), &ExecOptions::default()).expect("runs"))
            .collect();
        assert_ne!(rows(answers[0].clone()).rows, rows(answers[1].clone()).rows, "0.1.0 answers {text} right");
        let culprit = localize(
            &mut engines,
            &ExecOptions::default(),
            &g.schema,
            &query,
            (&answers[0], &answers[1]),
            (0, 1),
            Symptom::Values,
        )
        .expect("engines answer")
        .expect("localized");
        names.push(culprit.kind.to_string());
    }
    names
}

/// Kuzu 0.1.0 ignores a constant false WHERE (kuzu #2588): localized
/// against the reference, every pattern it filters gives the one name of
/// the filter, not one name per pattern shape.
#[test]
fn an_ignored_where_is_one_name_whatever_it_filters() {
    let names = names_against_the_reference(
        &kuzu_graph(3, 20, 30),
        &[
            "MATCH (n0) WHERE false RETURN count(*) AS a0",
            "MATCH (n0)-[r0]->(n1)-[r1]->(n2) WHERE 1 > 2 RETURN count(*) AS a0",
            "MATCH (n0) OPTIONAL MATCH (n0)-[r0]-(n1) WHERE false RETURN count(n1) AS a0",
        ],
    );
    assert_eq!(names, vec!["rows-after(WHERE,constant)"; 3]);
}

/// Kuzu 0.1.0 misses relationships of type alternatives that mix a rel
/// table group with a plain table: the hops, parts and path names around
/// such a pattern are not what goes wrong, and are not in its name.
#[test]
fn a_wrong_match_is_named_by_what_it_needs() {
    let names = names_against_the_reference(
        &kuzu_graph(3, 20, 30),
        &[
            "MATCH (n0)-[r0:T0|T1]->(n1) RETURN count(*) AS a0",
            "MATCH p = (n0)-[r0:T0|T1]->(n1)-[r1]-(n2) RETURN count(*) AS a0",
            "MATCH (n0)-[r0:T0|T1]->(n1), (n2:L0) RETURN count(*) AS a0",
        ],
    );
    assert_eq!(names, vec!["rows-after(MATCH,pattern:type alternatives)"; 3]);
}
