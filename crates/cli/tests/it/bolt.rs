//! The Bolt adapter against a real Bolt 4 server: ArcadeDB, managed from
//! `.engines/`, and the same server reached as `bolt://` (the way Neo4j and
//! Memgraph are reached).

use graphlancer_engines::arcadedb::{ARCADEDB_VERSION, ManagedArcadeDb};
use graphlancer_engines::bolt::BoltEngine;
use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, OpenOptions, Outcome, open};
use graphlancer_model::{Comparison, ResultSet, RowOrder, Temporal, Tolerance, Value, compare};

use crate::{engines_dir, grafeo_host, graph, graphlancer, node_count, rows, signal, stderr, timeout_ms};

fn managed() -> BoltEngine {
    let python = engines_dir().python("arcadedb", "arcadedb-embedded", ARCADEDB_VERSION).expect("installed");
    BoltEngine::managed_arcadedb(ManagedArcadeDb::start(python).expect("server starts")).expect("connects")
}

/// Nodes, relationships and paths (both directions) come back as generated,
/// through the managed spec and through a plain `bolt://` spec alike.
#[test]
fn arcadedb_returns_the_generated_graph_exactly_over_bolt() {
    let mut db = managed();
    assert_eq!(db.version(), ARCADEDB_VERSION);
    assert_eq!(db.dialect(), "arcadedb");
    let g = graph(11, 80, 160);
    db.load(&g).expect("loads");
    let address = db.server().expect("managed").settings().address;
    let spec: EngineSpec =
        format!("bolt://{address}?dialect=arcadedb&user=root&password=graphlancer&db=g").parse().expect("spec");
    assert!(!spec.to_string().contains("graphlancer&"), "the password stays out of the spec text");
    let mut remote = open(&spec, &OpenOptions { host_command: grafeo_host() }).expect("connects");
    assert_eq!(remote.dialect(), "arcadedb");
    remote.load(&g).expect("loads");
    let expected_nodes = ResultSet::new(vec!["n".into()], g.nodes.iter().map(|n| vec![n.to_value()]).collect());
    let expected_rels = ResultSet::new(vec!["r".into()], g.relationships.iter().map(|r| vec![r.to_value()]).collect());
    for engine in [&mut db as &mut dyn Engine, remote.as_mut()] {
        for (query, expected) in
            [("MATCH (n) RETURN n", &expected_nodes), ("MATCH ()-[r]->() RETURN r", &expected_rels)]
        {
            let got = rows(engine.execute(query, &ExecOptions::default()).expect("runs"));
            assert_eq!(
                compare(&got, expected, &RowOrder::Bag, Tolerance::default()),
                Comparison::Equal,
                "{} disagrees with the generated graph on {query}",
                engine.name()
            );
        }
        for query in ["MATCH p = (a)-[r]->(b) RETURN p, r", "MATCH p = (b)<-[r]-(a) RETURN p, r"] {
            let got = rows(engine.execute(query, &ExecOptions::default()).expect("runs"));
            assert_eq!(got.rows.len(), g.relationships.len(), "{query}");
            for row in &got.rows {
                let (Value::Path(p), Value::Relationship(r)) = (&row[0], &row[1]) else { panic!("{row:?}") };
                assert_eq!(&p.relationships[0], r, "{query}: the path holds the relationship as it is");
            }
        }
    }
}

#[test]
fn columns_come_in_return_order_and_values_decode() {
    let mut db = managed();
    db.load(&graph(12, 5, 5)).expect("loads");
    let r = rows(
        db.execute(
            "RETURN 3 AS z, [1, 'a'] AS l, {k: 1, n: null} AS m, 0.0 / 0.0 AS nan, -0.0 AS neg, \
             9223372036854775807 AS big, null AS nul ORDER BY z",
            &ExecOptions::default(),
        )
        .expect("runs"),
    );
    assert_eq!(r.columns, ["z", "l", "m", "nan", "neg", "big", "nul"]);
    let row = &r.rows[0];
    assert_eq!(row[0], Value::Int(3));
    assert_eq!(row[1], Value::List(vec![Value::Int(1), Value::String("a".into())]));
    assert!(matches!(&row[2], Value::Map(m) if m.get("k") == Some(&Value::Int(1))));
    assert!(matches!(row[3], Value::Float(x) if x.is_nan()));
    assert!(matches!(row[4], Value::Float(x) if x == 0.0 && x.is_sign_negative()));
    assert_eq!((&row[5], &row[6]), (&Value::Int(i64::MAX), &Value::Null));
    let t = rows(
        db.execute(
            "RETURN date('2024-02-29') AS d, datetime('2024-02-29T12:30:00+01:00') AS dt, \
             localdatetime('2024-02-29T12:30:00') AS l, duration('PT90S') AS du",
            &ExecOptions::default(),
        )
        .expect("runs"),
    );
    let temporal = |kind: &str, text: &str| Value::Temporal(Temporal { kind: kind.into(), text: text.into() });
    assert_eq!(
        t.rows[0],
        vec![
            temporal("date", "2024-02-29"),
            temporal("datetime", "2024-02-29T12:30:00+01:00"),
            temporal("localdatetime", "2024-02-29T12:30:00"),
            temporal("duration", "PT90.000000000S"),
        ]
    );
    // ArcadeDB's own memory budget for a query is a result too large to keep, not a fault.
    let huge = ExecOptions { max_rows: 1_000_000, ..ExecOptions::default() };
    let sorted = db.execute("UNWIND range(1, 600000) AS x RETURN x ORDER BY x", &huge).expect("runs");
    assert_eq!(sorted, Outcome::TooLarge { max_rows: 1_000_000 });
    let empty = rows(db.execute("MATCH (n:Nope) RETURN n AS b, 1 AS a", &ExecOptions::default()).expect("runs"));
    assert_eq!(empty.columns, ["b", "a"], "an empty answer still has its columns");
    let mut class = |q: &str| match db.execute(q, &ExecOptions::default()).expect("runs") {
        Outcome::Error { class, .. } => class,
        other => panic!("{q}: expected an error, got {other:?}"),
    };
    assert_eq!(class("RETURN 1 +"), ErrorClass::Syntax);
    assert_eq!(class("RETURN undefinedVar"), ErrorClass::Semantic);
    assert_eq!(class("RETURN 1 / 0"), ErrorClass::Runtime);
    // Reading what the query deleted is an error of the data, which the
    // crash preset's queries may meet (ArcadeDB files it as a DatabaseError).
    let deleted = "MATCH (n) WITH n LIMIT 1 DETACH DELETE n RETURN n.k AS k";
    assert_eq!(class(deleted), ErrorClass::Runtime);
}

/// ArcadeDB sends the columns of `OPTIONAL MATCH ... RETURN ALL` with a
/// node among them in the order of their names; a case query reads them back in its RETURN's order, so an ORDER
/// BY key or a null-check's pair is read from its own column.
#[test]
fn a_case_reads_arcadedbs_columns_in_return_order() {
    use graphlancer_oracles::oracle::CaseQuery;
    let mut db = managed();
    db.load(&graph(12, 5, 5)).expect("loads");
    let text = "OPTIONAL MATCH (n0) RETURN ALL n0, 0 AS a0 ORDER BY a0";
    let sent = rows(db.execute(text, &ExecOptions::default()).expect("runs"));
    assert_eq!(sent.columns, ["a0", "n0"], "ArcadeDB's own order");
    let q = CaseQuery::new("source", graphlancer_cypher::parse::parse(text).expect("parses"), Some(vec![1]));
    let read = rows(q.run_on(&mut db, &ExecOptions::default()).expect("runs"));
    assert_eq!(read.columns, ["n0", "a0"]);
    assert_eq!(read.rows.len(), 5);
    assert!(read.rows.iter().all(|r| r[1] == Value::Int(0) && matches!(r[0], Value::Node(_))), "{read:?}");
}

/// ArcadeDB sends no columns for an empty `RETURN *`; an empty answer is in
/// every answer, so a rewrite that drops the WHERE is not filed for it.
#[test]
fn an_empty_answer_without_columns_is_in_every_answer() {
    use graphlancer_oracles::oracle::{CaseQuery, JudgeCx, Oracle, TestCase, Verdict, rewrite::Rewrite};
    let mut db = managed();
    let g = graph(3, 5, 5);
    db.load(&g).expect("loads");
    let texts = ["MATCH (n0) WHERE n0.nope = 1 RETURN *", "MATCH (n0) RETURN *"];
    let queries: Vec<CaseQuery> =
        texts.iter().map(|t| CaseQuery::new("q", graphlancer_cypher::parse::parse(t).expect("parses"), None)).collect();
    let outcomes: Vec<Outcome> =
        queries.iter().map(|q| q.run_on(&mut db, &ExecOptions::default()).expect("runs")).collect();
    let (empty, all) = (rows(outcomes[0].clone()), rows(outcomes[1].clone()));
    assert!(empty.rows.is_empty() && empty.columns.is_empty() && all.rows.len() == g.nodes.len(), "{empty:?} {all:?}");
    let names = vec!["arcadedb".to_owned()];
    let cx = JudgeCx { names: &names, schema: &g.schema };
    let case = TestCase { relation: "rewrite:drop-predicate".into(), queries, delta: None };
    let verdict = Rewrite.judge(&cx, &case, &[vec![outcomes[0].clone()], vec![outcomes[1].clone()]]);
    assert!(matches!(verdict, Verdict::Pass), "{verdict:?}");
}

/// The generated `ltrim(s, chars)` / `rtrim(s, chars)`: ArcadeDB trims the
/// characters as Neo4j 5 does, and so does the reference.
#[test]
fn ltrim_and_rtrim_with_characters_agree_with_the_reference_on_arcadedb() {
    let mut db = managed();
    let g = graph(12, 5, 5);
    db.load(&g).expect("loads");
    let text = "RETURN ltrim('xxa', 'x') AS a, rtrim('abab', 'ab') AS b, ltrim('a b', 'ab') AS c";
    let engine = rows(db.execute(text, &ExecOptions::default()).expect("runs"));
    let mut reference = graphlancer_reference::engine::Reference::default();
    reference.load(&g).expect("loads");
    let right = rows(reference.execute(text, &ExecOptions::default()).expect("the reference answers"));
    let strings = |s: [&str; 3]| s.iter().map(|x| Value::String((*x).into())).collect::<Vec<_>>();
    assert_eq!(right.rows, vec![strings(["a", "", " b"])]);
    assert_eq!(engine.rows, right.rows);
}

#[test]
fn writes_are_rolled_back_and_faults_are_survived() {
    let mut db = managed();
    db.load(&graph(10, 20, 30)).expect("loads");
    let deleted = db.execute("MATCH (n) DETACH DELETE n", &ExecOptions::default()).expect("runs");
    assert!(matches!(deleted, Outcome::Rows(_)), "{deleted:?}");
    let failed = db.execute("MATCH (n) SET n.k = 1 / 0 RETURN n", &ExecOptions::default()).expect("runs");
    assert!(matches!(failed, Outcome::Error { class: ErrorClass::Runtime, .. }), "{failed:?}");
    assert_eq!(node_count(&mut db), Value::Int(20), "the transaction was rolled back");

    let pid = db.server().expect("managed").pid();
    signal(pid, "-9");
    match db.execute("MATCH (n) RETURN n", &ExecOptions::default()).expect("recovered") {
        Outcome::Crash { message } => assert!(message.contains("server exited"), "{message}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_ne!(db.server().expect("managed").pid(), pid, "a new server runs");
    assert_eq!(node_count(&mut db), Value::Int(20), "with the graph reloaded");

    let pid = db.server().expect("managed").pid();
    signal(pid, "-STOP");
    assert_eq!(
        db.execute("MATCH (n) RETURN n", &timeout_ms(1000)).expect("recovered"),
        Outcome::Timeout { after_ms: 1000 }
    );
    assert_ne!(db.server().expect("managed").pid(), pid, "the hung server was replaced");
    assert_eq!(node_count(&mut db), Value::Int(20));
}

#[test]
fn an_unreachable_bolt_server_is_a_clear_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let out = graphlancer(&["exec", "--engine", &format!("bolt://127.0.0.1:{port}?dialect=neo4j5"), "RETURN 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot reach bolt"), "{}", stderr(&out));
    let out = graphlancer(&["exec", "--engine", "bolt://127.0.0.1:1?dialect=sql", "RETURN 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown engine"), "{}", stderr(&out));
}

/// ArcadeDB refuses three queries that Neo4j 5 refuses too (an aggregate of
/// `rand()`, a substring length past 32 bits, `-+29`): the error oracle
/// files none of them, and the renderer writes the third as Neo4j reads it.
#[test]
fn the_error_oracle_files_no_refusal_neo4j_5_makes_too() {
    use graphlancer_oracles::oracle::{CaseQuery, JudgeCx, Oracle, TestCase, Verdict};
    let mut db = managed();
    let g = graph(3, 5, 5);
    db.load(&g).expect("loads");
    let names = vec!["arcadedb".to_owned()];
    let cx = JudgeCx { names: &names, schema: &g.schema };
    let judge = |text: &str, outcome: &Outcome| {
        let ast = graphlancer_cypher::parse::parse(text).expect("parses");
        let query = CaseQuery::text("query", text, Some(ast), None);
        graphlancer_oracles::oracle::error::UnexpectedError.judge(
            &cx,
            &TestCase::single("error", query),
            &[vec![outcome.clone()]],
        )
    };
    for text in ["RETURN max(rand()) AS a", "RETURN substring('', 0, 9223372036854775807) AS a"] {
        let outcome = db.execute(text, &ExecOptions::default()).expect("answers");
        assert!(matches!(outcome, Outcome::Error { .. }), "ArcadeDB accepts {text}: {outcome:?}");
        assert!(matches!(judge(text, &outcome), Verdict::Skip(_)), "{text} is filed");
        // The same refusal of a query Neo4j 5 accepts is a finding.
        let refused = Outcome::Error { class: ErrorClass::Syntax, message: "refused".into() };
        assert!(matches!(judge("RETURN 1 AS a", &refused), Verdict::Finding(_)));
    }
    let minus_plus = db.execute("RETURN -+29 AS a", &ExecOptions::default()).expect("answers");
    assert!(matches!(minus_plus, Outcome::Error { .. }), "ArcadeDB accepts -+29: {minus_plus:?}");
    let mut spelled = graphlancer_cypher::parse::parse("RETURN -+29 AS a").expect("parses");
    spelled.spelling.unary_plus = true;
    let text = graphlancer_cypher::render::render(&spelled);
    let answer = rows(db.execute(&text, &ExecOptions::default()).expect("answers"));
    assert_eq!(answer.rows, vec![vec![Value::Int(-29)]], "{text}");
}
