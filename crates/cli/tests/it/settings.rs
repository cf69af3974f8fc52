//! Optimization settings on the real engines: each switch reaches the
//! engine (its plan changes), plans are read from EXPLAIN, and the settings
//! oracle runs an engine under its pairwise configurations.

use graphlancer_engines::{Engine, EngineSpec, ExecOptions, OpenOptions, open};
use graphlancer_model::{Graph, GraphConfig, generate};

use crate::{grafeo_host, graphlancer, stderr};

fn start(spec: &str) -> Box<dyn Engine> {
    let spec: EngineSpec = spec.parse().expect("known spec");
    open(&spec, &OpenOptions { host_command: grafeo_host() }).expect("engine starts")
}

fn kuzu_graph() -> Graph {
    let config = GraphConfig { nodes: 30, relationships: 60, second_label_probability: 0.0, ..GraphConfig::default() };
    generate(5, &config).expect("valid config")
}

/// The plan of `query` under `spec`, as operator names.
fn plan(spec: &str, graph: &Graph, query: &str) -> Vec<String> {
    let mut engine = start(spec);
    engine.load(graph).expect("loads");
    engine.plan(query, &ExecOptions::default()).expect("reachable").expect("a plan")
}

#[test]
fn each_switch_changes_the_plan_it_claims_to() {
    let g = kuzu_graph();
    let key = &g.schema.labels[0].keys[0];
    let label = &g.schema.labels[0].name;
    let join = "MATCH (a)-[r*1..2]->(b) WHERE a.gid = 3 RETURN count(*)";
    for kuzu in ["kuzu@0.11.3", "ladybug@0.22.0"] {
        let default = plan(kuzu, &g, join);
        assert!(default.iter().any(|o| o == "SCAN_NODE_TABLE"), "{default:?}");
        assert!(default.iter().any(|o| o == "SEMI_MASKER"), "{default:?}");
        let off = plan(&format!("{kuzu}?enable_semi_mask=false"), &g, join);
        assert!(!off.iter().any(|o| o == "SEMI_MASKER"), "{off:?}");
        let top = "MATCH (a) RETURN a.gid ORDER BY a.gid LIMIT 3";
        let optimized = plan(kuzu, &g, top);
        assert!(optimized.iter().any(|o| o == "TOP_K"), "{optimized:?}");
        let unoptimized = plan(&format!("{kuzu}?enable_plan_optimizer=false"), &g, top);
        assert!(
            !unoptimized.iter().any(|o| o == "TOP_K") && unoptimized.iter().any(|o| o == "ORDER_BY"),
            "{unoptimized:?}"
        );
    }
    let packed = plan("ladybug@0.22.0?enable_packed_path_extend=true", &g, "MATCH (a)-[r]->(b) RETURN count(*)");
    assert!(packed.iter().any(|o| o == "PACKED_EXTEND"), "{packed:?}");

    let filter = format!("MATCH (a:{label}) WHERE a.{key} = 1 RETURN a");
    let grafeo = plan("grafeo", &g, &filter);
    assert!(grafeo.iter().any(|o| o == "NodeScan") && !grafeo.iter().any(|o| o == "Filter[index]"), "{grafeo:?}");
    let indexed = plan("grafeo?index=all", &g, &filter);
    assert!(indexed.iter().any(|o| o == "Filter[index]"), "{indexed:?}");

    let falkordb = plan("falkordb", &g, &filter);
    assert!(falkordb.iter().any(|o| o == "Node By Label Scan"), "{falkordb:?}");
    let indexed = plan("falkordb?index=all", &g, &filter);
    assert!(indexed.iter().any(|o| o == "Node By Index Scan"), "{indexed:?}");
}

/// A setting an engine's release does not have stops it from starting, with
/// the engine's own word for why.
#[test]
fn a_setting_the_release_lacks_is_a_clear_error() {
    let spec: EngineSpec = "kuzu@0.4.2?enable_zone_map=false".parse().expect("known spec");
    let err = open(&spec, &OpenOptions { host_command: grafeo_host() }).err().expect("refused").to_string();
    assert!(err.contains("enable_zone_map"), "{err}");
    let o = graphlancer(&["engines", "--settings", "grafeo"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("factorized_execution=true|false") && text.contains("Left out"), "{text}");
    // Grafeo's settings only: no other engine's switch or left-out line.
    assert!(text.lines().all(|l| !l.starts_with("kuzu ") && !l.starts_with("falkordb ")), "{text}");
    assert!(text.contains("grafeo adaptive:"), "{text}");
    let o = graphlancer(&["run", "--engine", "arcadedb", "--oracle", "settings"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no optimization settings"), "{}", stderr(&o));
}

/// The settings oracle on Grafeo: the engine under every configuration of
/// the covering array, each plan read, nothing missing; what it finds
/// names the switch.
#[test]
fn the_settings_oracle_runs_every_configuration_on_grafeo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let args = [
        "run",
        "--engine",
        "grafeo",
        "--oracle",
        "settings",
        "--queries",
        "60",
        "--seed",
        "4",
        "--workers",
        "1",
        "--json",
    ];
    let o = graphlancer(&[&args[..], &["--out", out.to_str().expect("utf-8")]].concat());
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary JSON");
    let specs: Vec<&str> =
        summary["engines"].as_array().expect("engines").iter().filter_map(|e| e["spec"].as_str()).collect();
    assert_eq!(
        specs,
        [
            "grafeo",
            "grafeo?factorized_execution=false",
            "grafeo?shuffle_unordered=true",
            "grafeo?index=all",
            "grafeo?factorized_execution=false&index=all&shuffle_unordered=true"
        ]
    );
    assert_eq!(summary["oracles"], serde_json::json!(["crash", "settings"]), "settings brings the crash oracle");
    assert_eq!(summary["plans_missing"], 0, "{summary}");
    // Combinations of optimizing operators: several, and far fewer than queries.
    let combinations = summary["plan_combinations"].as_u64().unwrap_or(0);
    assert!((3..=30).contains(&combinations), "{summary}");
    for (signature, _) in summary["findings"].as_object().expect("findings") {
        assert!(signature.starts_with("settings:grafeo+grafeo?") || signature.starts_with("crash:"), "{signature}");
    }
}
