//! `graphlancer generate --coverage`: the generator measured against the
//! openCypher grammar, each construct's example run on real engines. What a
//! dialect's generator writes, its engine must accept.

use crate::{graphlancer, stderr};

#[test]
fn every_construct_a_dialect_generates_its_engine_accepts() {
    for (dialect, engine) in [("grafeo", "grafeo"), ("falkordb", "falkordb"), ("kuzu", "kuzu@0.11.3")] {
        let out = graphlancer(&[
            "generate",
            "--coverage",
            "--dialect",
            dialect,
            "--engine",
            engine,
            "--count",
            "400",
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let table: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let names: Vec<&str> =
            table["constructs"].as_array().expect("names").iter().filter_map(|n| n.as_str()).collect();
        let cells = table["dialects"][0]["cells"].as_array().expect("cells");
        let probes = table["probes"][0][1].as_array().expect("probe outcomes");
        assert_eq!(names.len(), cells.len());
        assert_eq!(names.len(), probes.len());
        let mut generated = 0;
        let mut refused_by_engine = Vec::new();
        for ((name, cell), probe) in names.iter().zip(cells).zip(probes) {
            let kind = probe[0].as_str().expect("kind");
            if cell["status"] == "generated" && cell["queries"].as_u64() > Some(0) {
                generated += 1;
                let refused = matches!(kind, "syntax" | "semantic" | "unsupported");
                if refused {
                    refused_by_engine.push(format!("{name}: {kind}: {}", probe[1]));
                }
            }
            // A construct a profile refuses is one the engine refuses too, or one with a written reason.
            if cell["status"] == "refused" {
                assert!(
                    !cell["why"].as_str().unwrap_or_default().is_empty(),
                    "{dialect}: {name} refused without a reason"
                );
            }
        }
        assert!(refused_by_engine.is_empty(), "{dialect} generates what {engine} refuses: {refused_by_engine:#?}");
        // Clause orders: most pairs the grammar allows among the dialect's
        // clauses show up; what does not is named.
        let orders = &table["dialects"][0]["orders"];
        let (shown, allowed) =
            (orders["generated"].as_u64().expect("shown"), orders["allowed"].as_u64().expect("allowed"));
        let missing = orders["missing"].as_array().expect("missing");
        assert_eq!(allowed - shown, missing.len() as u64);
        assert!(
            allowed > 30 && shown * 10 >= allowed * 8,
            "{dialect}: clause orders {shown} of {allowed}: {missing:?}"
        );
        // Most of the grammar is generated for every engine (Kuzu refuses much of it by design).
        assert!(
            generated >= if dialect == "kuzu" { 80 } else { 140 },
            "{dialect}: only {generated} constructs generated"
        );
    }
}

#[test]
fn coverage_refuses_engines_without_the_flag_and_unknown_dialects() {
    let out = graphlancer(&["generate", "--engine", "grafeo"]);
    assert_eq!(out.status.code(), Some(2), "--engine needs --coverage");
    let out = graphlancer(&["generate", "--coverage", "--dialect", "nosuch"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown dialect 'nosuch'"), "{}", stderr(&out));
}
