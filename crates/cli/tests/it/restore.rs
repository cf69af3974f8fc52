//! After a query that writes, every engine holds the generated graph again,
//! however the adapter brings it back (a rolled-back transaction in Grafeo,
//! Kuzu, LadybugDB and ArcadeDB; a reload in FalkorDB, skipped when the
//! server counts no change).

use graphlancer_cypher::{DialectProfile, Generator, GeneratorConfig, Preset};
use graphlancer_engines::{Engine, EngineSpec, ExecOptions, OpenOptions, Outcome, may_write, open};
use graphlancer_model::{Comparison, GraphConfig, ResultSet, RowOrder, Tolerance, derive_rng, generate};

use crate::{grafeo_host, rows};

/// Writes that surely change the graph or fail halfway, whatever the generator draws.
const CERTAIN: [&str; 6] = [
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.gid = -1, n.extra = 'x' RETURN count(*) AS c",
    "MATCH (a)-[r]->(b) DELETE r RETURN count(*) AS c",
    "MATCH (n) WITH n LIMIT 1 CREATE (n)-[:T0 {gid: -2}]->(:L0 {gid: -3})",
    "MATCH (n) SET n.gid = 1 / 0",
    "UNWIND [1, 2, 3] AS i CREATE (:L0 {gid: -10 - i})",
];

/// Every node and relationship with the engine's own id beside it: a restore
/// that gave entities new ids would show here too.
fn dump(db: &mut dyn Engine) -> [ResultSet; 2] {
    ["MATCH (n) RETURN id(n) AS i, n", "MATCH ()-[r]->() RETURN id(r) AS i, r"]
        .map(|q| rows(db.execute(q, &ExecOptions::default()).expect("reachable")))
}

#[test]
fn every_engine_holds_the_generated_graph_after_each_write() {
    // One label a node, so Kuzu's tables can hold it too.
    let config = GraphConfig { nodes: 25, relationships: 50, second_label_probability: 0.0, ..GraphConfig::default() };
    let graph = generate(5, &config).expect("valid config");
    for spec in ["grafeo", "falkordb", "falkordb?index=all", "kuzu@0.11.3", "kuzu@0.4.2", "ladybug@0.22.0", "arcadedb"]
    {
        let parsed: EngineSpec = spec.parse().expect("known spec");
        let mut db = open(&parsed, &OpenOptions { host_command: grafeo_host() }).expect("engine starts");
        db.load(&graph).expect("loads");
        let loaded = dump(db.as_mut());
        assert_eq!(loaded[0].rows.len(), graph.nodes.len(), "{spec}");
        let profile = DialectProfile::built_in(db.dialect()).expect("profile");
        let preset = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &preset);
        let generated =
            (0..).map(|i| generator.generate(&mut derive_rng(9, &[i])).text).filter(|q| may_write(q)).take(60);
        let (mut answered, mut writes) = (0, 0);
        for query in CERTAIN.iter().map(|q| (*q).to_owned()).chain(generated) {
            let outcome = db.execute(&query, &ExecOptions::default()).expect("reachable");
            answered += usize::from(matches!(outcome, Outcome::Rows(_)));
            writes += 1;
            let now = dump(db.as_mut());
            for (before, after) in loaded.iter().zip(&now) {
                assert_eq!(
                    graphlancer_model::compare(before, after, &RowOrder::Bag, Tolerance::default()),
                    Comparison::Equal,
                    "{spec}: the graph differs from the one loaded after\n{query}\n(it answered {outcome:?})"
                );
            }
        }
        // The writes ran (most were answered), so the graph was changed and put back.
        assert!(answered * 2 > writes, "{spec}: only {answered} of {writes} writes answered");
        let overhead = db.take_overhead();
        eprintln!("{spec}: {answered}/{writes} writes answered; {overhead:?}");
        // Engines that roll back restore after every write, and never by
        // starting again (a rollback that failed would end the host).
        if ["grafeo", "kuzu", "ladybug"].iter().any(|f| spec.starts_with(f)) {
            assert_eq!((overhead.restores, overhead.restarts), (writes as u64, 0), "{spec}");
        }
    }
}
