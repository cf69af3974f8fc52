//! Properties of many generated queries: scope and types (by the independent
//! checker), determinism, profile and preset rules, and rendered snapshots.

use graphlancer_model::{GraphConfig, derive_rng, generate};

use super::Generator;
use crate::ast::{Clause, Expr, Projection};
use crate::check::check;
use crate::config::{GeneratorConfig, Preset};
use crate::feature::Feature;
use crate::profile::{BUILT_IN, DialectProfile};

fn profiles() -> Vec<DialectProfile> {
    let mut all: Vec<DialectProfile> =
        BUILT_IN.iter().map(|n| DialectProfile::built_in(n).expect("built-in profile")).collect();
    let pair = ["falkordb", "grafeo"].map(|n| DialectProfile::built_in(n).expect("built-in profile"));
    all.push(DialectProfile::intersect(&pair));
    all
}

#[test]
fn generated_queries_pass_the_independent_checker() {
    let graph = generate(3, &GraphConfig::default()).expect("valid");
    let mut written_after_delete = 0;
    for profile in profiles() {
        for preset in [Preset::Differential, Preset::Crash, Preset::Readonly] {
            let config = GeneratorConfig::preset(preset);
            let generator = Generator::new(&graph, &profile, &config);
            // Only the crash preset keeps entities in scope after a DELETE.
            let rules = crate::check::Rules { entities_after_delete: preset == Preset::Crash };
            for i in 0..300 {
                let g = generator.generate(&mut derive_rng(11, &[3, i]));
                if let Err(e) = crate::check::check_with(&g.query, &graph.schema, rules) {
                    panic!("{} / {preset:?} / query {i}: {e}\n{}", profile.name, g.text);
                }
                assert!(g.clause_count >= 1);
                // Neo4j 5's grammar takes one sign before a number.
                assert!(!g.text.contains("-+"), "{}", g.text);
                let clauses = &g.query.parts[0].clauses;
                written_after_delete +=
                    clauses.windows(2).filter(|w| matches!(w[0], Clause::Delete { .. }) && w[1].is_write()).count();
            }
        }
    }
    assert!(written_after_delete > 0, "no write right after a DELETE under the crash preset");
}

#[test]
fn generation_is_a_pure_function_of_its_inputs() {
    let graph = generate(1, &GraphConfig::default()).expect("valid");
    let profile = DialectProfile::built_in("falkordb").expect("profile");
    let config = GeneratorConfig::preset(Preset::Differential);
    let run = || -> Vec<String> {
        let generator = Generator::new(&graph, &profile, &config);
        (0..200)
            .map(|i| serde_json::to_string(&generator.generate(&mut derive_rng(5, &[3, i]))).expect("serializes"))
            .collect()
    };
    assert_eq!(run(), run());
    let other: Vec<String> = {
        let generator = Generator::new(&graph, &profile, &config);
        (0..200).map(|i| generator.generate(&mut derive_rng(6, &[3, i])).text).collect()
    };
    let texts: Vec<String> =
        run().iter().map(|j| serde_json::from_str::<super::Generated>(j).expect("parses").text).collect();
    let distinct: std::collections::BTreeSet<&String> = texts.iter().collect();
    assert!(distinct.len() > 190, "only {} distinct queries of 200", distinct.len());
    let moved = texts.iter().zip(&other).filter(|(a, b)| a != b).count();
    assert!(moved > 190, "another seed changed only {moved} of 200 queries");
}

fn projections(clauses: &[Clause]) -> Vec<&Projection> {
    let mut out = Vec::new();
    for c in clauses {
        match c {
            Clause::With(p) | Clause::Return(p) => out.push(p),
            Clause::Call { body, union_all, .. } => {
                for part in std::iter::once(body).chain(union_all) {
                    out.extend(projections(&part.clauses));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn deterministic_presets_keep_their_rules() {
    let graph = generate(4, &GraphConfig::default()).expect("valid");
    for profile in profiles() {
        for preset in [Preset::Differential, Preset::Readonly] {
            let config = GeneratorConfig::preset(preset);
            let generator = Generator::new(&graph, &profile, &config);
            for i in 0..300 {
                let g = generator.generate(&mut derive_rng(12, &[3, i]));
                for f in &g.features {
                    assert!(profile.has(*f), "{}: {f} is not in the profile\n{}", profile.name, g.text);
                    assert!(!profile.bugs.contains_key(f), "{}: {f} is a known bug\n{}", profile.name, g.text);
                }
                // Valid means what Neo4j 5 accepts.
                let refusal = crate::validity::neo4j_refuses(&g.query);
                assert_eq!(refusal, None, "{}: Neo4j 5 refuses\n{}", profile.name, g.text);
                // Relationship guards may compare ids (`id(r1) <> id(r2)`); nothing else may.
                let text = g.text.replace("id(r", "");
                for banned in ["rand(", "timestamp(", "id("] {
                    assert!(!text.contains(banned), "{banned} in {}", g.text);
                }
                if preset == Preset::Readonly {
                    for w in ["CREATE", "MERGE", "SET", "DELETE", "REMOVE"] {
                        // Words, not parts of words: OFFSET is no SET.
                        assert!(!g.text.split(' ').any(|t| t == w), "{w} in a readonly query: {}", g.text);
                    }
                }
                for part in &g.query.parts {
                    for p in projections(&part.clauses) {
                        if p.skip.is_some() || p.limit.is_some() {
                            // A total order: every item is an ORDER BY key.
                            let keys: Vec<&Expr> = p.order_by.iter().map(|(e, _)| e).collect();
                            assert_eq!(keys.len(), p.items.len(), "SKIP/LIMIT without a total order: {}", g.text);
                        }
                        let collected =
                            p.items.iter().any(|(e, _)| matches!(e, Expr::Aggregate { name, .. } if name == "collect"));
                        assert!(!collected, "collect() order leaks into the result: {}", g.text);
                    }
                }
            }
        }
    }
}

#[test]
fn every_enabled_production_is_reachable() {
    // Over a few thousand queries of the crash preset (which keeps every
    // production the profile accepts), each one shows up.
    let graph = generate(2, &GraphConfig::default()).expect("valid");
    let profile = DialectProfile::built_in("neo4j5").expect("profile");
    let config = GeneratorConfig::preset(Preset::Crash);
    let generator = Generator::new(&graph, &profile, &config);
    let mut used = std::collections::BTreeSet::new();
    for i in 0..4000 {
        used.extend(generator.generate(&mut derive_rng(13, &[3, i])).features);
    }
    let missing: Vec<&str> =
        profile.features.iter().filter(|f| config.weight(**f) > 0 && !used.contains(f)).map(|f| f.name()).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

#[test]
fn a_zero_weight_disables_a_production() {
    let graph = generate(2, &GraphConfig::default()).expect("valid");
    let profile = DialectProfile::built_in("neo4j5").expect("profile");
    let config = GeneratorConfig::from_toml("[weights]\nunion = 0\nunion_all = 0\noptional_match = 0").expect("valid");
    let generator = Generator::new(&graph, &profile, &config);
    for i in 0..300 {
        let g = generator.generate(&mut derive_rng(14, &[3, i]));
        assert!(!g.features.contains(&Feature::Union) && !g.features.contains(&Feature::OptionalMatch));
        assert!(!g.text.contains("UNION") && !g.text.contains("OPTIONAL"), "{}", g.text);
    }
}

#[test]
fn rendered_queries_per_dialect() {
    let graph = generate(0, &GraphConfig::default()).expect("valid");
    for profile in profiles() {
        let config = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &config);
        let texts: Vec<String> = (0..6).map(|i| generator.generate(&mut derive_rng(0, &[3, i])).text).collect();
        insta::assert_snapshot!(format!("render_{}", profile.name.replace('&', "_and_")), texts.join("\n"));
    }
}

#[test]
fn mutants_stay_valid_and_do_what_they_say() {
    use super::Mutation;
    let graph = generate(5, &GraphConfig::default()).expect("valid");
    for profile in profiles() {
        let config = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &config);
        let mut applied = [0usize; 3];
        for i in 0..300 {
            let base = generator.generate(&mut derive_rng(15, &[3, i]));
            for (m, mutation) in Mutation::ALL.iter().enumerate() {
                let Some(mutant) = generator.mutate(&base, *mutation, &mut derive_rng(16, &[3, i]), None) else {
                    continue;
                };
                applied[m] += 1;
                if let Err(e) = check(&mutant.query, &graph.schema) {
                    panic!("{mutation:?} of\n{}\ngave\n{}\n{e}", base.text, mutant.text);
                }
                assert_eq!(mutant.scopes.len(), mutant.query.parts[0].clauses.len(), "{}", mutant.text);
                let (b, n) = (base.clause_count, mutant.clause_count);
                match mutation {
                    Mutation::DelayReturn => assert!(n > b, "{}", mutant.text),
                    Mutation::AdvanceReturn => assert!(n < b, "{}", mutant.text),
                    Mutation::RemoveCondition => {
                        assert_eq!(n, b);
                        assert!(mutant.text.len() < base.text.len());
                        // The guards that keep answers comparable stay.
                        let guards = |q: &crate::ast::Query| -> Vec<Option<Expr>> {
                            q.parts[0]
                                .clauses
                                .iter()
                                .filter_map(|c| match c {
                                    Clause::Match { guard, .. } => Some(guard.clone()),
                                    _ => None,
                                })
                                .collect()
                        };
                        assert_eq!(guards(&mutant.query), guards(&base.query));
                    }
                }
            }
        }
        assert!(applied.iter().all(|a| *a > 20), "{}: mutations applied {applied:?}", profile.name);
    }
}

#[test]
fn frequency_feedback_favours_rare_keys() {
    let graph = generate(5, &GraphConfig::default()).expect("valid");
    let profile = DialectProfile::built_in("neo4j5").expect("profile");
    let config = GeneratorConfig::preset(Preset::Readonly);
    let generator = Generator::new(&graph, &profile, &config);
    let hot = graph.schema.labels[0].keys[0].clone();
    let count = |freq: Option<&super::KeyFrequencies>| -> usize {
        (0..400)
            .map(|i| generator.generate_guided(&mut derive_rng(17, &[3, i]), freq))
            .filter(|g| g.query.property_keys().contains(&hot))
            .count()
    };
    let mut freq = super::KeyFrequencies::new();
    for k in &graph.schema.keys {
        freq.insert(k.name.clone(), 1);
    }
    freq.insert(hot.clone(), 10_000);
    let uniform = count(None);
    let steered = count(Some(&freq));
    assert!(steered < uniform, "{hot}: {steered} with feedback, {uniform} without");
}

/// The label (or type alternatives) a variable was first written with in
/// `text`, e.g. `(n0:L1` or `[r0:T1|T2`; empty when it has none.
fn first_tags<'t>(text: &'t str, var: &str) -> Vec<&'t str> {
    let open = if var.starts_with('r') { '[' } else { '(' };
    let needle = format!("{open}{var}");
    for (at, _) in text.match_indices(&needle) {
        // `id(r1)` and `size(n0.k)` are calls, not patterns.
        if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[at + needle.len()..];
        match rest.chars().next() {
            Some(':') => {
                let end = rest[1..].find(|c: char| !(c.is_alphanumeric() || c == '|')).map_or(rest.len(), |e| e + 1);
                return rest[1..end].split('|').collect();
            }
            Some(')' | ']' | ' ') => return Vec::new(),
            _ => {}
        }
    }
    Vec::new()
}

#[test]
fn kuzu_sets_only_keys_every_table_of_the_entity_has() {
    use crate::ast::SetItem;
    let graph = generate(4, &GraphConfig::default()).expect("valid");
    let profile = DialectProfile::built_in("kuzu").expect("profile");
    let config = GeneratorConfig::preset(Preset::Differential);
    let generator = Generator::new(&graph, &profile, &config);
    let schema = &graph.schema;
    let mut sets = 0;
    for i in 0..600 {
        let g = generator.generate(&mut derive_rng(13, &[3, i]));
        for part in &g.query.parts {
            for clause in &part.clauses {
                let Clause::Set { items } = clause else { continue };
                for item in items {
                    let SetItem::Property(var, key, _) = item else { continue };
                    sets += 1;
                    let tags = first_tags(&g.text, var);
                    let rel = var.starts_with('r');
                    let tables: Vec<&Vec<String>> = if rel {
                        schema
                            .rel_types
                            .iter()
                            .filter(|t| tags.is_empty() || tags.contains(&t.name.as_str()))
                            .map(|t| &t.keys)
                            .collect()
                    } else {
                        schema
                            .labels
                            .iter()
                            .filter(|l| tags.is_empty() || tags.contains(&l.name.as_str()))
                            .map(|l| &l.keys)
                            .collect()
                    };
                    assert!(
                        tables.iter().all(|keys| keys.contains(key)),
                        "{var}.{key} is not on every table {tags:?} of\n{}",
                        g.text
                    );
                }
            }
        }
    }
    assert!(sets > 20, "only {sets} SET items in 600 queries");
}

/// A profile that refuses reads after writes gets none, from the skeleton
/// or from a mutation that turns the RETURN into a WITH and reads on.
#[test]
fn no_read_follows_a_write_where_the_profile_refuses_it() {
    use super::mutate::Mutation;
    let graph = generate(3, &GraphConfig::default()).expect("valid");
    let mut profile = DialectProfile::built_in("kuzu").expect("built-in profile");
    profile.refuse(Feature::ReadAfterWrite, "probed".into());
    let config = GeneratorConfig::preset(Preset::Differential);
    let generator = Generator::new(&graph, &profile, &config);
    let read = |c: &Clause| matches!(c, Clause::Match { .. } | Clause::Unwind { .. } | Clause::Call { .. });
    let (mut writes, mut mutated) = (0, 0);
    for i in 0..600 {
        let g = generator.generate(&mut derive_rng(12, &[3, i]));
        let delayed = generator.mutate(&g, Mutation::DelayReturn, &mut derive_rng(13, &[3, i]), None);
        mutated += usize::from(delayed.as_ref().is_some_and(|d| d.query.writes()));
        for q in std::iter::once(&g).chain(delayed.as_ref()) {
            let clauses = &q.query.parts[0].clauses;
            let Some(first) = clauses.iter().position(Clause::is_write) else { continue };
            writes += 1;
            assert!(!clauses[first..].iter().any(read), "{}", q.text);
        }
    }
    assert!(writes > 50 && mutated > 10, "{writes} with writes, {mutated} mutated");
}
