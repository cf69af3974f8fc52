//! The optimization-settings oracle (DOT): one query on one engine under
//! several configurations of its switches, each compared with the
//! engine's baseline (the first spec of that engine in the campaign).
//! Configurations come from a pairwise covering array whose first rows flip
//! one switch each, and configurations are compared in order of how many
//! switches they flip, so a difference is pinned on the fewest switches
//! that show it: on one switch where flipping it alone does (DOT's fault
//! localization, its Algorithm 1, with every one-switch step already run),
//! else on the combination.

use graphlancer_engines::Outcome;
use graphlancer_model::CaseRng;

use crate::oracle::{BuildCx, JudgeCx, Oracle, OracleKind, TestCase, Verdict};

/// Answers compared across an engine's configurations.
pub struct SettingsOracle;

/// The engine a spec names, without its settings.
pub fn base(spec: &str) -> &str {
    spec.split_once('?').map_or(spec, |(b, _)| b)
}

/// The switches a spec sets, `name=value` each.
pub fn switches(spec: &str) -> Vec<&str> {
    spec.split_once('?').map(|(_, q)| q.split('&').filter(|s| !s.is_empty()).collect()).unwrap_or_default()
}

/// The engine `names[i]` is compared with: the first spec of its engine.
pub fn baseline(names: &[String], i: usize) -> usize {
    names.iter().position(|n| base(n) == base(&names[i])).unwrap_or(i)
}

/// Each configuration paired with its engine's baseline, fewest switches
/// first (then in campaign order).
pub fn pairs(names: &[String]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> =
        (0..names.len()).map(|i| (baseline(names, i), i)).filter(|(b, i)| b != i).collect();
    out.sort_by_key(|&(_, i)| (switches(&names[i]).len(), i));
    out
}

impl Oracle for SettingsOracle {
    fn kind(&self) -> OracleKind {
        OracleKind::SETTINGS
    }

    fn about(&self) -> &'static str {
        "each engine under the pairwise configurations of its switches, against itself as given"
    }

    fn runs_by_default(&self, _: usize) -> bool {
        false
    }

    fn compares_a_pair(&self) -> bool {
        true
    }

    fn adds_queries(&self) -> bool {
        false
    }

    fn build(
        &self,
        source: &graphlancer_cypher::Generated,
        cx: &BuildCx<'_, '_>,
        _: &mut CaseRng,
    ) -> Result<TestCase, &'static str> {
        crate::oracle::differential::compared(source, cx, "settings", "one configuration")
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let pairs = pairs(cx.names);
        match crate::oracle::differential::judge_pairs(OracleKind::SETTINGS, cx, case, outcomes, &pairs) {
            Verdict::Finding(mut f) => {
                let config = &f.signature.engines[1];
                let flipped = switches(config);
                let why = if flipped.len() == 1 {
                    format!("flipping {} alone shows it", flipped[0])
                } else {
                    // Every one-switch configuration ran and agreed.
                    format!("only {} together show it; each alone does not", flipped.join(" and "))
                };
                f.summary = format!("{}: {why}", f.summary);
                Verdict::Finding(f)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use graphlancer_cypher::ast::{Clause, Expr, Projection, Query, SingleQuery};
    use graphlancer_model::{ResultSet, Value};

    use super::*;
    use crate::oracle::{CaseQuery, Finding};

    fn judge(names: &[&str], answers: &[i64]) -> Verdict {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        let ret = Clause::Return(Projection::of(vec![(Expr::var("x"), "x".into())]));
        let ast =
            Query { parts: vec![SingleQuery { clauses: vec![ret] }], union_all: false, spelling: Default::default() };
        let case = TestCase::single("settings", CaseQuery::new("source", ast, None));
        let outcomes: Vec<Outcome> = answers
            .iter()
            .map(|a| Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(*a)]])))
            .collect();
        let schema = crate::tests::schema();
        SettingsOracle.judge(&JudgeCx { names: &names, schema: &schema }, &case, &[outcomes])
    }

    #[test]
    fn a_difference_is_pinned_on_the_fewest_switches_that_show_it() {
        let names = ["e", "e?a=1", "e?b=1", "e?a=1&b=1"];
        // a alone differs, and so does a with b: the report names a alone.
        let Verdict::Finding(Finding { signature, summary, .. }) = judge(&names, &[1, 2, 1, 2]) else {
            panic!("a finding")
        };
        assert_eq!(signature.engines, ["e", "e?a=1"]);
        assert_eq!(signature.oracle, OracleKind::SETTINGS);
        assert!(summary.contains("flipping a=1 alone"), "{summary}");
        // Only both together differ.
        let Verdict::Finding(Finding { signature, summary, .. }) = judge(&names, &[1, 1, 1, 2]) else {
            panic!("a finding")
        };
        assert_eq!(signature.engines, ["e", "e?a=1&b=1"]);
        assert!(summary.contains("only a=1 and b=1 together"), "{summary}");
        assert_eq!(judge(&names, &[1, 1, 1, 1]), Verdict::Pass);
    }

    #[test]
    fn configurations_pair_with_their_baseline_fewest_switches_first() {
        let names: Vec<String> = ["grafeo", "grafeo?a=1&b=1", "kuzu@0.11.3", "grafeo?a=1", "kuzu@0.11.3?c=0"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(pairs(&names), vec![(0, 3), (2, 4), (0, 1)]);
        assert_eq!(switches("grafeo?a=1&b=1"), ["a=1", "b=1"]);
        assert_eq!(base("kuzu@0.11.3?c=0"), "kuzu@0.11.3");
    }
}
