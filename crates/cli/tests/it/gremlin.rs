//! Gremlin on real engines: graphersal in its host and Grafeo's Gremlin on
//! the store its Cypher loaded, each answering traversals whose right answer
//! this test computes from the generated graph; then a Gremlin campaign.

use std::collections::BTreeMap;

use graphlancer_engines::{Engine, EngineSpec, ErrorClass, ExecOptions, OpenOptions, Outcome};
use graphlancer_model::{Graph, GraphConfig, Language, Value, generate};

use crate::{binary, graphlancer, rows, stderr};

fn gremlin() -> ExecOptions {
    ExecOptions { language: Language::Gremlin, ..ExecOptions::default() }
}

fn one_label_graph(seed: u64) -> Graph {
    generate(seed, &GraphConfig { second_label_probability: 0.0, ..GraphConfig::default() }).expect("valid config")
}

fn open(spec: &str) -> Box<dyn Engine> {
    let spec: EngineSpec = spec.parse().expect("known spec");
    let options = OpenOptions { host_command: graphlancer_engines::host::HostCommand::new(binary(), "grafeo") };
    graphlancer_engines::open(&spec, &options).expect("host starts")
}

fn sorted(mut v: Vec<Value>) -> Vec<String> {
    let mut out: Vec<String> = v.drain(..).map(|v| format!("{v:?}")).collect();
    out.sort();
    out
}

fn column(e: &mut dyn Engine, text: &str) -> Vec<Value> {
    rows(e.execute(text, &gremlin()).expect("reachable")).rows.into_iter().map(|mut r| r.remove(0)).collect()
}

/// Each engine's answers equal what the generated graph says they must be.
#[test]
fn graphersal_and_grafeo_answer_traversals_as_the_graph_says() {
    let g = one_label_graph(11);
    let label = g.schema.labels[0].name.clone();
    let rel = g.schema.rel_types[0].name.clone();
    let key = g.schema.labels[0].keys[0].clone();
    let expected_values: Vec<Value> =
        g.nodes.iter().filter(|n| n.labels[0] == label).filter_map(|n| n.properties.get(&key).cloned()).collect();
    let labelled = g.nodes.iter().filter(|n| n.labels[0] == label).count();
    let label_of: BTreeMap<i64, &str> = g.nodes.iter().map(|n| (n.id, n.labels[0].as_str())).collect();
    let out_neighbours: Vec<Value> = g
        .relationships
        .iter()
        .filter(|r| r.rel_type == rel && label_of[&r.start] == label)
        .map(|r| Value::Int(r.end))
        .collect();
    for (spec, q) in [("graphersal", '"'), ("grafeo", '\'')] {
        let mut e = open(spec);
        assert!(e.languages().contains(&Language::Gremlin), "{spec} speaks Gremlin");
        e.load(&g).expect("loads");
        let count = column(e.as_mut(), "g.V().count()");
        assert_eq!(count, vec![Value::Int(g.nodes.len() as i64)], "{spec}: every vertex");
        let count = column(e.as_mut(), &format!("g.V().hasLabel({q}{label}{q}).count()"));
        assert_eq!(count, vec![Value::Int(labelled as i64)], "{spec}: vertices of {label}");
        let values = column(e.as_mut(), &format!("g.V().hasLabel({q}{label}{q}).values({q}{key}{q})"));
        assert_eq!(sorted(values), sorted(expected_values.clone()), "{spec}: values of {key}");
        let hop = column(e.as_mut(), &format!("g.V().hasLabel({q}{label}{q}).out({q}{rel}{q}).values({q}gid{q})"));
        assert_eq!(sorted(hop), sorted(out_neighbours.clone()), "{spec}: one hop along {rel}");
        // Vertices and edges decode with their generated identity and label.
        let vertices = column(e.as_mut(), "g.V()");
        assert_eq!(vertices.len(), g.nodes.len());
        for v in &vertices {
            let Value::Node(n) = v else { panic!("{spec}: a vertex decodes as a node, got {v:?}") };
            let id = n.identity().expect("gid");
            assert_eq!(n.labels, vec![label_of[&id].to_owned()], "{spec}: vertex {id}");
        }
        let edges = column(e.as_mut(), "g.E()");
        assert_eq!(edges.len(), g.relationships.len());
        for v in &edges {
            let Value::Relationship(r) = v else { panic!("{spec}: an edge decodes as a relationship, got {v:?}") };
            let original = g.relationships.iter().find(|x| Some(x.id) == r.identity()).expect("a generated edge");
            assert_eq!((r.start, r.end), (Some(original.start), Some(original.end)), "{spec}: edge endpoints");
        }
        // V(id) and hasId name the generated ids: both dialects say so.
        let ids = [g.nodes[3].id, g.nodes[7].id];
        let picked = column(e.as_mut(), &format!("g.V({}, {}).values({q}gid{q})", ids[0], ids[1]));
        assert_eq!(sorted(picked), sorted(ids.map(Value::Int).to_vec()), "{spec}: V(ids)");
        let kept = column(e.as_mut(), &format!("g.V().hasId({}).values({q}gid{q})", ids[1]));
        assert_eq!(kept, vec![Value::Int(ids[1])], "{spec}: hasId");
    }
}

/// `repeat().until()` bounded by `loops()`, as the generator writes it, on
/// graphersal (Grafeo has no `loops()`): each traverser stops at the first
/// vertex holding the key, or after `times` hops, and the answer is the
/// do-while walk computed here from the generated graph.
#[test]
fn graphersal_stops_a_bounded_until_where_the_graph_says() {
    let g = one_label_graph(11);
    let key = g.schema.labels[0].keys[0].clone();
    let has_key: BTreeMap<i64, bool> = g.nodes.iter().map(|n| (n.id, n.properties.contains_key(&key))).collect();
    let times = 3;
    let mut frontier: Vec<i64> = g.nodes.iter().map(|n| n.id).collect();
    let mut stopped = Vec::new();
    for loops in 1..=times {
        let next: Vec<i64> = frontier
            .iter()
            .flat_map(|v| g.relationships.iter().filter(move |r| r.start == *v).map(|r| r.end))
            .collect();
        frontier = Vec::new();
        for v in next {
            if has_key[&v] || loops == times { stopped.push(Value::Int(v)) } else { frontier.push(v) }
        }
    }
    assert!(!stopped.is_empty(), "the walk reaches somewhere");
    let mut e = open("graphersal");
    e.load(&g).expect("loads");
    let text = format!(r#"g.V().repeat(__.out()).until(__.or(__.has("{key}"), __.loops().is({times}))).values("gid")"#);
    assert_eq!(sorted(column(e.as_mut(), &text)), sorted(stopped), "{text}");
}

#[test]
fn gremlin_errors_are_classified_and_cypher_engines_refuse_gremlin() {
    let mut e = open("graphersal");
    e.load(&one_label_graph(3)).expect("loads");
    let class = |e: &mut dyn Engine, text: &str| match e.execute(text, &gremlin()).expect("reachable") {
        Outcome::Error { class, .. } => class,
        other => panic!("{text}: expected an error, got {other:?}"),
    };
    assert_eq!(class(e.as_mut(), "g.V("), ErrorClass::Syntax);
    assert_eq!(class(e.as_mut(), "g.V().noSuchStep()"), ErrorClass::Unsupported);
    let mut grafeo = open("grafeo");
    grafeo.load(&one_label_graph(3)).expect("loads");
    assert_eq!(class(grafeo.as_mut(), "g.V().noSuchStep()"), ErrorClass::Unsupported);
    assert_eq!(class(grafeo.as_mut(), "g.V(').count()"), ErrorClass::Syntax);

    let o = graphlancer(&["exec", "--engine", "graphersal", "MATCH (n) RETURN n"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("graphersal does not answer cypher"), "{}", stderr(&o));
    let o = graphlancer(&["run", "--language", "gremlin", "--oracle", "partition", "--queries", "5"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("works on Cypher only"), "{}", stderr(&o));
    let o = graphlancer(&["exec", "--engine", "graphersal?threads=2", "--language", "gremlin", "g.V()"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("graphersal has no settings"), "{}", stderr(&o));
}

#[test]
fn gremlin_generation_is_deterministic_and_valid_on_both_engines() {
    let args = ["generate", "--language", "gremlin", "--seed", "5", "--count", "50", "--dialect", "grafeo,graphersal"];
    let a = graphlancer(&args);
    let b = graphlancer(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout, "same seed, same traversals");
    assert_eq!(String::from_utf8_lossy(&a.stdout).lines().count(), 50);
    for engine in ["grafeo", "graphersal"] {
        let o = graphlancer(&["validity", "--engine", engine, "--language", "gremlin", "--count", "300", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let rate = v["rejection_rate"].as_f64().expect("a rate");
        assert!(rate <= 0.01, "{engine}: {rate} of generated traversals rejected: {}", v["rejections"]);
        assert!(v["non_empty_rate"].as_f64().expect("a rate") >= 0.6, "{engine}: {}", v["non_empty_rate"]);
    }
}

/// A differential Gremlin campaign on the two engines: findings are
/// reduced to traversals that still show the difference when replayed.
#[test]
fn a_gremlin_campaign_finds_reduced_replayable_differences() {
    let out = tempfile::tempdir().expect("temp dir");
    let dir = out.path().to_str().expect("utf-8");
    let o = graphlancer(&[
        "run",
        "--language",
        "gremlin",
        "--engine",
        "grafeo",
        "--engine",
        "graphersal",
        "--queries",
        "150",
        "--seed",
        "1",
        "--workers",
        "1",
        "--json",
        "--out",
        dir,
    ]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON summary");
    assert_eq!(summary["queries"], 150);
    assert_eq!(summary["dialect"], "grafeo&graphersal");
    let findings = summary["findings"].as_object().expect("findings");
    assert!(!findings.is_empty(), "Grafeo's Gremlin differs from graphersal's within 150 traversals at seed 1");
    let folder = findings.values().next().and_then(|v| v.as_str()).expect("a folder");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{folder}/case.json")).expect("case.json"))
            .expect("json");
    assert!(case["traversal"].is_object(), "the case keeps the traversal");
    let original = case["original_query"].as_str().unwrap_or_default();
    let reduced = case["query"].as_str().expect("a query");
    assert!(reduced.len() <= original.len() || original.is_empty(), "{reduced} is no longer than {original}");
    assert!(std::path::Path::new(&format!("{folder}/repro.groovy")).exists());
    let replay = graphlancer(&["replay", folder]);
    assert_eq!(replay.status.code(), Some(0), "the reduced case reproduces: {}", stderr(&replay));
}

/// The cross-language oracle asks Grafeo each question in Cypher and in
/// Gremlin. Grafeo's Gremlin answers `sum/min/max/mean` of nothing with a
/// null where TinkerPop (and its own Cypher, translated to match) gives no
/// row: one report, reduced to the empty graph, that replays.
#[test]
fn cross_language_asks_grafeo_both_ways_and_finds_its_gremlin_null_for_nothing() {
    let out = tempfile::tempdir().expect("temp dir");
    let dir = out.path().to_str().expect("utf-8");
    let args = ["run", "--engine", "grafeo", "--oracle", "cross-language", "--queries", "300", "--seed", "1"];
    let o = graphlancer(&[&args[..], &["--json", "--out", dir]].concat());
    assert_eq!(o.status.code(), Some(1), "exit 1: findings; {}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON summary");
    assert_eq!(summary["oracles"], serde_json::json!(["crash", "cross-language"]));
    let asked = summary["relations"]["cross-language"]["run"].as_u64().unwrap_or(0);
    assert!(asked >= 290, "nearly every generated query comes with a question both ways: {asked} of 300");
    let findings = summary["findings"].as_object().expect("findings");
    let folder = findings
        .get("cross-language:grafeo:null-for-nothing")
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("Grafeo's aggregate of nothing is found: {findings:?}"));
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{folder}/case.json")).expect("case.json"))
            .expect("json");
    assert_eq!(case["graph"]["nodes"].as_array().map(Vec::len), Some(0), "reduced to the empty graph");
    let last = case["traversal"]["steps"].as_array().and_then(|s| s.last()).cloned().unwrap_or_default();
    assert!(["sum", "min", "max", "mean"].iter().any(|a| last == serde_json::json!(a)), "ends in an aggregate: {last}");
    let cypher = std::fs::read_to_string(format!("{folder}/README.md")).expect("README");
    assert!(cypher.contains("```cypher") && cypher.contains("```groovy"), "the report shows both languages");
    let replay = graphlancer(&["replay", folder]);
    assert_eq!(replay.status.code(), Some(0), "the reduced case reproduces: {}", stderr(&replay));
    // Both languages or nothing: graphersal answers Gremlin only.
    let o = graphlancer(&["run", "--engine", "graphersal", "--oracle", "cross-language", "--queries", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("graphersal does not answer cypher"), "{}", stderr(&o));
    let o = graphlancer(&["run", "--language", "gremlin", "--oracle", "cross-language", "--queries", "5"]);
    assert!(stderr(&o).contains("leave out --language gremlin"), "{}", stderr(&o));
}

/// A Gremlin Server that is not there is a clear error, not a hang or a
/// panic (the client's decoding is tested on TinkerPop's own examples in
/// the engines crate; no server can be installed here).
#[test]
fn an_unreachable_gremlin_server_is_a_clear_error() {
    let o = graphlancer(&["exec", "--engine", "gremlin://127.0.0.1:1", "--language", "gremlin", "g.V().count()"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot reach gremlin-server at 127.0.0.1:1"), "{}", stderr(&o));
}
