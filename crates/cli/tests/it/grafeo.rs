//! The Grafeo adapter and its engine host.

use graphlancer_engines::hosted::HostedEngine;
use graphlancer_engines::{Engine, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::Value;

use crate::{grafeo_host, graph, rows, timeout_ms};

fn count(engine: &mut HostedEngine) -> Value {
    rows(engine.execute("MATCH (n) RETURN count(n)", &ExecOptions::default()).expect("host restarts"))
        .scalar()
        .cloned()
        .expect("one value")
}

#[test]
fn host_survives_panic_abort_and_hang_and_keeps_the_graph() {
    let mut engine = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("host starts");
    let g = graph(4, 25, 40);
    engine.load(&g).expect("loads");
    let nodes = Value::Int(25);
    assert_eq!(count(&mut engine), nodes);

    let pid = engine.host_pid();
    let outcome = engine.execute("graphlancer-test:panic", &ExecOptions::default()).expect("reported as an outcome");
    match outcome {
        Outcome::Crash { message } => assert!(message.contains("test hook: panic requested"), "{message}"),
        other => panic!("a panic is a crash, got {other:?}"),
    }
    assert_ne!(engine.host_pid(), pid, "a new host runs");
    assert_eq!(count(&mut engine), nodes, "the graph is back after a panic");

    let outcome = engine.execute("graphlancer-test:abort", &ExecOptions::default()).expect("reported");
    assert!(matches!(outcome, Outcome::Crash { .. }), "an abort is a crash, got {outcome:?}");
    assert_eq!(count(&mut engine), nodes, "the graph is back after an abort");

    let started = std::time::Instant::now();
    let outcome = engine.execute("graphlancer-test:hang", &timeout_ms(500)).expect("reported");
    assert_eq!(outcome, Outcome::Timeout { after_ms: 500 });
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "the hang was cut short");
    assert_eq!(count(&mut engine), nodes, "the graph is back after a hang");
}

#[test]
fn writes_leave_the_loaded_graph_unchanged() {
    let mut engine = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("host starts");
    engine.load(&graph(5, 20, 30)).expect("loads");
    let created =
        rows(engine.execute("CREATE (x:Extra {gid: -1}) RETURN x.gid", &ExecOptions::default()).expect("runs"));
    assert_eq!(created.scalar(), Some(&Value::Int(-1)));
    let deleted = engine.execute("MATCH (n) DETACH DELETE n", &ExecOptions::default()).expect("runs");
    assert!(matches!(deleted, Outcome::Rows(_)), "{deleted:?}");
    assert_eq!(count(&mut engine), Value::Int(20));
}

#[test]
fn errors_are_classified() {
    let mut engine = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("host starts");
    engine.load(&graph(6, 5, 5)).expect("loads");
    let class = |e: &mut HostedEngine, q: &str| match e.execute(q, &ExecOptions::default()).expect("runs") {
        Outcome::Error { class, .. } => Some(class),
        _ => None,
    };
    assert_eq!(class(&mut engine, "RETURN 1 +"), Some(ErrorClass::Syntax));
    assert_eq!(class(&mut engine, "RETURN nope"), Some(ErrorClass::Semantic));
    assert!(engine.version().starts_with("0.5."), "version {}", engine.version());
}

#[test]
fn answers_over_the_row_cap_are_not_kept() {
    let mut engine = graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("host starts");
    engine.load(&graph(6, 5, 5)).expect("loads");
    let opts = ExecOptions { max_rows: 1000, ..ExecOptions::default() };
    let big = engine.execute("UNWIND range(1, 5000) AS x RETURN x", &opts).expect("runs");
    assert_eq!(big, Outcome::TooLarge { max_rows: 1000 });
    let fits = engine.execute("UNWIND range(1, 1000) AS x RETURN x", &opts).expect("runs");
    assert_eq!(rows(fits).rows.len(), 1000);
}

/// A pair of engines is asked at once; a host that crashed is started
/// again inside that call and must outlive it (a host started on a thread
/// made for one call was killed when the thread ended, so every later
/// query of the campaign was a crash).
#[test]
fn a_host_restarted_while_engines_answer_at_once_keeps_answering() {
    let mut engines: Vec<Box<dyn Engine>> = (0..2)
        .map(|_| {
            Box::new(graphlancer_engines::grafeo::hosted("grafeo".into(), grafeo_host()).expect("host starts"))
                as Box<dyn Engine>
        })
        .collect();
    let g = graph(4, 25, 40);
    for e in &mut engines {
        e.load(&g).expect("loads");
    }
    let crashed =
        graphlancer_engines::on_each(&mut engines, |e| e.execute("graphlancer-test:panic", &ExecOptions::default()));
    assert!(crashed.iter().all(|o| matches!(o, Ok(Outcome::Crash { .. }))), "{crashed:?}");
    for _ in 0..3 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let counts = graphlancer_engines::on_each(&mut engines, |e| {
            e.execute("MATCH (n) RETURN count(n)", &ExecOptions::default())
        });
        for outcome in counts {
            assert_eq!(rows(outcome.expect("reachable")).scalar(), Some(&Value::Int(25)));
        }
    }
    for e in &mut engines {
        assert_eq!(e.take_overhead().restarts, 1, "started again once, after the panic");
    }
}
