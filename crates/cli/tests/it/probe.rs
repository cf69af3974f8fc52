//! `graphlancer engines --probe`: what a release accepts, learned by running
//! every construct's example on it, and the productions that turns off.

use crate::{graphlancer, stderr};

/// The probe of each spec, as `engines --probe --json` prints it.
fn probe(specs: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["engines", "--probe", "--json"];
    args.extend(specs);
    let out = graphlancer(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).expect("JSON")
}

fn refuses(entry: &serde_json::Value, construct: &str) -> bool {
    entry["refused"].as_array().expect("refused").iter().any(|r| r[0] == construct)
}

fn turns_off(entry: &serde_json::Value, feature: &str) -> bool {
    entry["turned_off"].as_array().expect("turned_off").iter().any(|t| t[0] == feature)
}

#[test]
fn an_old_kuzu_release_refuses_exponent_floats_and_the_newest_accepts_them() {
    let entries = probe(&["kuzu@0.1.0", "kuzu@0.11.3"]);
    let [old, new] = entries.as_slice() else { panic!("two entries: {entries:?}") };
    assert_eq!(old["release"], "kuzu@0.1.0");
    assert!(refuses(old, "float 1e3"), "{old:#}");
    assert!(turns_off(old, "float_exponent"), "{old:#}");
    assert!(!refuses(new, "float 1e3"), "{new:#}");
    assert!(!turns_off(new, "float_exponent"), "{new:#}");
    // 0.1.0 binds no `<>` of relationships; uniqueness guards compare ids.
    assert!(refuses(old, "relationship comparison"), "{old:#}");
    assert!(!refuses(new, "relationship comparison"), "{new:#}");
    // 0.1.0 reads nothing after a write, whatever WITHs come between.
    assert!(refuses(old, "read after a write") && turns_off(old, "read_after_write"), "{old:#}");
    assert!(!refuses(new, "read after a write"), "{new:#}");
    // The probe is cached beside the install, and a campaign reads it.
    let cache = crate::engines_dir().path().join("probes").join("kuzu@0.1.0.json");
    assert!(cache.is_file(), "{} missing", cache.display());
}

#[test]
fn a_campaign_on_an_old_release_generates_no_construct_it_refuses() {
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path().to_str().expect("utf-8");
    let run = graphlancer(&[
        "run",
        "--engine",
        "kuzu@0.6.0",
        "--engine",
        "kuzu@0.11.3",
        "--queries",
        "150",
        "--seed",
        "3",
        "--workers",
        "1",
        "--no-reduce",
        "--json",
        "--out",
        out,
    ]);
    assert!(run.status.code().is_some_and(|c| c <= 1), "{}", stderr(&run));
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).expect("summary JSON");
    let learned = summary["dialect_learned"].as_object().expect("dialect_learned");
    assert!(learned.contains_key("float_exponent"), "{learned:?}");
    assert!(learned.contains_key("quantifier"), "{learned:?}");
    // No report blames 0.6.0 for lacking syntax: refusals are feature differences.
    let findings = summary["findings"].as_object().expect("findings");
    assert!(!findings.keys().any(|k| k.contains(":refused:")), "{findings:#?}");
}

/// Against the reference known bugs are watched, not steered around; the
/// guard a release refuses outright is not one of them: Kuzu 0.1.0 gets
/// its relationships kept apart by id, and refuses no query for `r1 <> r2`.
#[test]
fn a_guard_an_old_release_refuses_is_never_generated() {
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path().to_str().expect("utf-8");
    let args = ["run", "--engine", "kuzu@0.1.0", "--engine", "reference", "--queries", "150", "--seed", "13"];
    let run = graphlancer(&[&args[..], &["--workers", "1", "--no-reduce", "--json", "--out", out]].concat());
    assert!(run.status.code().is_some_and(|c| c <= 1), "{}", stderr(&run));
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).expect("summary JSON");
    let refused = summary["feature_differences"].as_object().expect("feature_differences");
    assert!(!refused.keys().any(|k| k.contains("NOT_EQUALS(REL,REL)")), "{refused:#?}");
    assert!(!refused.keys().any(|k| k.contains("Read after update")), "{refused:#?}");
    assert!(summary["queries"].as_u64() == Some(150), "{summary}");
}
