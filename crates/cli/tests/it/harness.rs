//! graphlancer's own faults are not engine findings: a value an adapter
//! cannot decode, read from each real engine, is a harness fault (what the
//! campaign counts in `harness_faults`), and no oracle files it against the
//! engine. The campaign's counting of it is tested with a fake engine in
//! the oracles crate.

use graphlancer_cypher::ast::{Clause, Expr, Projection, Query, SingleQuery};
use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, OpenOptions, Outcome, open};
use graphlancer_model::{ResultSet, Value};
use graphlancer_oracles::{CaseQuery, JudgeCx, OracleKind, TestCase, Verdict, oracle};

use crate::{grafeo_host, graph};

/// `RETURN f(arg) AS v`.
fn call(f: &str, arg: Expr) -> Query {
    let ret = Projection::of(vec![(Expr::Function(f.into(), vec![arg]), "v".into())]);
    Query {
        parts: vec![SingleQuery { clauses: vec![Clause::Return(ret)] }],
        union_all: false,
        spelling: Default::default(),
    }
}

fn date() -> Query {
    call("date", Expr::lit(Value::String("2024-01-01".into())))
}

fn point() -> Query {
    let coordinates = vec![
        ("latitude".to_owned(), Expr::lit(Value::Float(1.0))),
        ("longitude".to_owned(), Expr::lit(Value::Float(2.0))),
    ];
    call("point", Expr::Map(coordinates))
}

#[test]
fn a_value_no_adapter_can_decode_is_a_harness_fault_and_never_a_finding() {
    // Each adapter, with a value its decoder does not read (yet).
    let cases = [
        ("grafeo", date()),
        ("falkordb", point()),
        ("kuzu@0.11.3", date()),
        ("ladybug@0.22.0", date()),
        ("arcadedb", point()),
    ];
    let g = graph(1, 4, 2);
    for (spec, query) in cases {
        let spec: EngineSpec = spec.parse().expect("known spec");
        let mut engine: Box<dyn Engine> =
            open(&spec, &OpenOptions { host_command: grafeo_host() }).expect("engine starts");
        engine.load(&g).expect("loads");
        let q = CaseQuery::new("source", query, None);
        let outcome = engine.execute(&q.text, &ExecOptions::default()).expect("answers");
        assert!(matches!(outcome, Outcome::Undecodable { .. }), "{spec}: {} gave {outcome:?}", q.text);
        assert!(outcome.is_harness_fault());
        // Beside an engine that answered, and alone: no oracle blames it.
        let answered = Outcome::Rows(ResultSet::new(vec!["v".into()], vec![vec![Value::Int(1)]]));
        for outcomes in [vec![outcome.clone(), answered], vec![outcome.clone()]] {
            let names: Vec<String> = (0..outcomes.len()).map(|i| format!("{spec}#{i}")).collect();
            let cx = JudgeCx { names: &names, schema: &g.schema };
            let case = TestCase::group("source", vec![q.clone()]);
            for o in graphlancer_oracles::oracle::all() {
                let kind = o.kind();
                let verdict = o.judge(&cx, &case, std::slice::from_ref(&outcomes));
                assert!(!matches!(verdict, Verdict::Finding(_)), "{spec}: {kind:?} blames the engine: {verdict:?}");
            }
        }
        // The control: the same answer as an engine's error while running
        // is a finding (a refusal to parse or bind is a feature difference).
        let refused = Outcome::Error { class: ErrorClass::Runtime, message: "no".into() };
        let names = vec![format!("{spec}#0"), format!("{spec}#1")];
        let cx = JudgeCx { names: &names, schema: &g.schema };
        let outcomes = vec![vec![refused, Outcome::Rows(ResultSet::new(vec!["v".into()], vec![vec![Value::Int(1)]]))]];
        let case = TestCase::group("source", vec![q]);
        let verdict = oracle(OracleKind::DIFFERENTIAL).judge(&cx, &case, &outcomes);
        assert!(matches!(verdict, Verdict::Finding(_)), "{verdict:?}");
    }
}
