//! The FalkorDB adapter against managed and remote servers.

use std::process::Command;

use graphlancer_engines::falkordb::FalkorDb;
use graphlancer_engines::falkordb::server::ManagedServer;
use graphlancer_engines::{Engine, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::Value;

use crate::{engines_dir, graph, rows, timeout_ms};

fn managed() -> FalkorDb {
    FalkorDb::start_managed(
        &engines_dir().falkordb(graphlancer_engines::spec::FALKORDB_VERSION).expect("falkordb installed"),
    )
    .expect("server starts")
}

fn count(engine: &mut FalkorDb) -> Value {
    rows(engine.execute("MATCH (n) RETURN count(n)", &ExecOptions::default()).expect("reachable"))
        .scalar()
        .cloned()
        .expect("one value")
}

fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill").args([sig, &pid.to_string()]).status().expect("kill runs");
    assert!(status.success());
}

#[test]
fn killed_server_is_a_crash_and_the_next_query_works() {
    let mut db = managed();
    db.load(&graph(7, 30, 50)).expect("loads");
    let pid = db.server().expect("managed").pid();
    signal(pid, "-9");
    let outcome = db.execute("MATCH (n) RETURN n", &ExecOptions::default()).expect("recovered");
    match outcome {
        Outcome::Crash { message } => assert!(message.contains("server exited"), "{message}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_ne!(db.server().expect("managed").pid(), pid);
    assert_eq!(count(&mut db), Value::Int(30), "the graph was reloaded");
}

/// FalkorDB can crash right after it answered (a double REMOVE did, in a
/// campaign): the adapter then reads its catalog for the answer's new label
/// and finds the server gone. That is a crash at this query, not an error
/// that ends the campaign, and the next query works.
#[test]
#[cfg(debug_assertions)]
fn a_server_dying_right_after_its_answer_is_a_crash_and_the_next_query_works() {
    let mut db = managed();
    db.load(&graph(7, 30, 50)).expect("loads");
    let pid = db.server().expect("managed").pid();
    let query = "CREATE (n:Fresh) RETURN n // graphlancer-test:die-after-answer";
    let outcome = db.execute(query, &ExecOptions::default()).expect("recovered");
    match outcome {
        Outcome::Crash { message } => assert!(message.contains("exited reading its catalog"), "{message}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_ne!(db.server().expect("managed").pid(), pid);
    assert_eq!(count(&mut db), Value::Int(30), "the graph was reloaded");
}

#[test]
fn stopped_server_is_a_timeout_and_the_next_query_works() {
    let mut db = managed();
    db.load(&graph(8, 10, 10)).expect("loads");
    signal(db.server().expect("managed").pid(), "-STOP");
    let outcome = db.execute("MATCH (n) RETURN n", &timeout_ms(200)).expect("recovered");
    assert_eq!(outcome, Outcome::Timeout { after_ms: 200 });
    assert_eq!(count(&mut db), Value::Int(10));
}

#[test]
fn long_query_times_out_by_the_servers_own_timeout() {
    let mut db = managed();
    db.load(&graph(9, 5, 5)).expect("loads");
    let outcome =
        db.execute("UNWIND range(1, 100000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x)", &timeout_ms(100));
    assert_eq!(outcome.expect("answers"), Outcome::Timeout { after_ms: 100 });
    assert_eq!(count(&mut db), Value::Int(5));
}

#[test]
fn writes_leave_the_loaded_graph_unchanged() {
    let mut db = managed();
    db.load(&graph(10, 20, 30)).expect("loads");
    let created = rows(db.execute("CREATE (x:Extra {gid: -1}) RETURN x.gid", &ExecOptions::default()).expect("runs"));
    assert_eq!(created.scalar(), Some(&Value::Int(-1)));
    let deleted = db.execute("MATCH (n) DETACH DELETE n", &ExecOptions::default()).expect("runs");
    assert!(matches!(deleted, Outcome::Rows(_)), "{deleted:?}");
    assert_eq!(count(&mut db), Value::Int(20));
}

#[test]
fn errors_are_classified_and_values_decoded() {
    let mut db = managed();
    db.load(&graph(12, 5, 5)).expect("loads");
    let mut class = |q: &str| match db.execute(q, &ExecOptions::default()).expect("runs") {
        Outcome::Error { class, .. } => Some(class),
        other => panic!("{q}: expected an error, got {other:?}"),
    };
    assert_eq!(class("RETURN 1 +"), Some(ErrorClass::Syntax));
    assert_eq!(class("RETURN nope"), Some(ErrorClass::Semantic));
    assert_eq!(class("RETURN nosuchfunction(1)"), Some(ErrorClass::Semantic));
    assert_eq!(class("RETURN 1 / 0"), Some(ErrorClass::Runtime));
    let r = rows(
        db.execute("RETURN 0.1 + 0.2, -0.0, 'it\\'s', [1, null, 'x'], {a: true}, 2.5e16", &ExecOptions::default())
            .expect("runs"),
    );
    let row = &r.rows[0];
    assert!(matches!(row[0], Value::Float(x) if (x - 0.3).abs() < 1e-15), "{:?}", row[0]);
    assert_eq!(row[2], Value::String("it's".into()));
    assert_eq!(row[3], Value::List(vec![Value::Int(1), Value::Null, Value::String("x".into())]));
    assert_eq!(row[5], Value::Float(2.5e16));
}

#[test]
fn remote_server_by_address() {
    let server =
        ManagedServer::start(&engines_dir().falkordb(graphlancer_engines::spec::FALKORDB_VERSION).expect("installed"))
            .expect("starts");
    let mut db = FalkorDb::connect(&server.address()).expect("connects");
    assert_eq!(db.name(), format!("falkordb://{}", server.address()));
    assert!(db.version().starts_with('4'), "version {}", db.version());
    db.load(&graph(13, 12, 3)).expect("loads");
    assert_eq!(count(&mut db), Value::Int(12));
}

#[test]
fn index_setting_indexes_every_key_before_the_data() {
    let spec: graphlancer_engines::EngineSpec = "falkordb?index=all".parse().expect("spec");
    let options = graphlancer_engines::OpenOptions { host_command: crate::grafeo_host() };
    let mut db = graphlancer_engines::open(&spec, &options).expect("opens");
    assert_eq!(db.name(), "falkordb@4.22.1?index=all");
    let g = graph(14, 20, 30);
    db.load(&g).expect("loads");
    let indexed = rows(
        db.execute(
            "CALL db.indexes() YIELD label, properties RETURN label, size(properties) AS n",
            &ExecOptions::default(),
        )
        .expect("runs"),
    );
    let expected: i64 = g.schema.labels.iter().map(|l| l.keys.len() as i64).sum::<i64>()
        + g.schema.rel_types.iter().map(|t| t.keys.len() as i64).sum::<i64>();
    let got: i64 = indexed.rows.iter().map(|r| if let Value::Int(n) = r[1] { n } else { 0 }).sum();
    assert_eq!(got, expected);
    let count = rows(db.execute("MATCH (n) RETURN count(n)", &ExecOptions::default()).expect("runs"));
    assert_eq!(count.scalar(), Some(&Value::Int(20)));
}

#[test]
fn answers_over_the_row_cap_are_not_kept() {
    let mut db = managed();
    db.load(&graph(15, 5, 5)).expect("loads");
    let opts = ExecOptions { max_rows: 1000, ..ExecOptions::default() };
    let big = db.execute("UNWIND range(1, 5000) AS x RETURN x", &opts).expect("runs");
    assert_eq!(big, Outcome::TooLarge { max_rows: 1000 });
    let fits = db.execute("UNWIND range(1, 1000) AS x RETURN x", &opts).expect("runs");
    assert_eq!(rows(fits).rows.len(), 1000);
}
