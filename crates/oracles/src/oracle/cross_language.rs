//! Cypher against Gremlin on one store: one question, drawn as a traversal
//! of the fragment both languages say alike ([`crate::translate`]), asked
//! of the same engine in both languages. Every engine that speaks both is
//! its own reference; no second engine is needed.

use graphlancer_engines::Outcome;
use graphlancer_gremlin::Traversal;
use graphlancer_model::{CaseRng, Comparison, Difference, RowOrder, Tolerance, compare};

use crate::oracle::{BuildCx, CaseQuery, Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::signature::{Fault, Signature};

/// The Gremlin steps the translation covers: what the question generator draws from.
pub const FRAGMENT: &[&str] = &[
    "V", "E", "out", "in", "both", "outE", "inE", "bothE", "outV", "inV", "otherV", "has", "hasLabel", "hasNot", "is",
    "where", "not", "and", "or", "filter", "dedup", "order", "range", "limit", "skip", "count", "sum", "min", "max",
    "mean", "values", "label", "constant", "as", "select", "repeat", "union",
];

/// How many traversals a case may draw before it gives up on one that
/// translates (the generator's nested forms do not all translate).
const DRAWS: usize = 8;

/// Answers compared across the two languages of each engine.
pub struct CrossLanguage;

impl Oracle for CrossLanguage {
    fn kind(&self) -> OracleKind {
        OracleKind::CROSS_LANGUAGE
    }

    fn about(&self) -> &'static str {
        "one question in Cypher and in Gremlin on each engine that answers both"
    }

    fn runs_by_default(&self, _: usize) -> bool {
        false
    }

    fn build(
        &self,
        _: &graphlancer_cypher::Generated,
        cx: &BuildCx<'_, '_>,
        rng: &mut CaseRng,
    ) -> Result<TestCase, &'static str> {
        let traversals = cx.traversals.ok_or("no traversal generator")?;
        for _ in 0..DRAWS {
            let g = traversals.generate(rng);
            let Ok(cypher) = crate::translate::to_cypher(&g.traversal) else { continue };
            if cypher.ordered != g.ordered {
                continue;
            }
            let ordered = g.ordered;
            return Ok(TestCase::group(
                self.kind().name(),
                vec![
                    CaseQuery::gremlin("source", g.traversal, ordered),
                    CaseQuery::new("cypher", cypher.query, ordered.then(|| vec![0])),
                ],
            ));
        }
        Err("no traversal that translates")
    }

    fn derived(&self, traversal: &Traversal) -> Result<Vec<CaseQuery>, &'static str> {
        let t = crate::translate::to_cypher(traversal)?;
        Ok(vec![CaseQuery::new("cypher", t.query, t.ordered.then(|| vec![0]))])
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let (Some(gremlin), Some(cypher)) = (case.queries.first(), case.queries.get(1)) else { return Verdict::Pass };
        let order = match (&gremlin.order_columns, &cypher.order_columns) {
            (Some(_), Some(_)) => RowOrder::SortedBy(vec![0]),
            _ => RowOrder::Bag,
        };
        let (Some(gremlin_outcomes), Some(cypher_outcomes)) = (outcomes.first(), outcomes.get(1)) else {
            return Verdict::Pass;
        };
        let mut skip = None;
        for ((name, g), c) in cx.names.iter().zip(gremlin_outcomes).zip(cypher_outcomes) {
            match (g, c) {
                (Outcome::Rows(g), Outcome::Rows(c)) => {
                    let Comparison::Differ(d) = compare(g, c, &order, Tolerance::default()) else { continue };
                    let steps = || gremlin.traversal().map(Traversal::constructs);
                    let (fault, shape) = match &d {
                        _ if crate::oracle::differential::null_for_nothing(g, c) => (Fault::NullForNothing, None),
                        Difference::ColumnCount { .. } => (Fault::ColumnCount, steps()),
                        Difference::Rows { .. } if g.rows.len() != c.rows.len() => (Fault::RowCount, steps()),
                        Difference::Rows { .. } => {
                            let last =
                                gremlin.traversal().and_then(|t| t.steps.last()).map_or("V", |s| s.name());
                            (Fault::Values { columns: format!("step:{last}") }, None)
                        }
                        Difference::Order { .. } => (Fault::Order, steps()),
                    };
                    let summary = format!("{name} answers the traversal and its Cypher differently ({fault})");
                    return Verdict::Finding(Finding {
                        signature: Signature { oracle: self.kind(), engines: vec![name.clone()], fault, shape },
                        summary,
                        relation: Some("a Gremlin traversal and its Cypher translation give the same answer".into()),
                        query: None,
                    });
                }
                // A refusal is the error oracle's to judge, a crash the crash oracle's.
                _ => skip = Some("one language did not answer"),
            }
        }
        skip.map_or(Verdict::Pass, Verdict::Skip)
    }
}

#[cfg(test)]
mod tests {
    use graphlancer_engines::{ErrorClass, Outcome};
    use graphlancer_gremlin::ast::{Direction, Source, Step, Traversal};
    use graphlancer_model::{ResultSet, Value};

    use super::*;

    fn rows(v: &[Value]) -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], v.iter().map(|x| vec![x.clone()]).collect()))
    }

    fn judge(gremlin: Outcome, cypher: Outcome) -> Verdict {
        let t = Traversal { source: Source::V, steps: vec![Step::Move(Direction::Out, vec![]), Step::Count] };
        let cy = CrossLanguage.derived(&t).expect("translates").remove(0);
        let case = TestCase::group(
            "cross-language",
            vec![CaseQuery::gremlin("source", t, false), CaseQuery { order_columns: None, ..cy }],
        );
        let names = vec!["grafeo".to_owned()];
        let schema = crate::tests::schema();
        CrossLanguage.judge(&JudgeCx { names: &names, schema: &schema }, &case, &[vec![gremlin], vec![cypher]])
    }

    #[test]
    fn each_engine_is_compared_with_itself() {
        assert_eq!(judge(rows(&[Value::Int(3)]), rows(&[Value::Int(3)])), Verdict::Pass);
        let Verdict::Finding(f) = judge(rows(&[Value::Int(3)]), rows(&[Value::Int(4)])) else { panic!("a finding") };
        assert_eq!(f.signature.to_string(), "cross-language:grafeo:values:step:count");
        let Verdict::Finding(f) = judge(rows(&[Value::Null]), rows(&[])) else { panic!("a finding") };
        assert_eq!(f.signature.to_string(), "cross-language:grafeo:null-for-nothing");
        let refused = Outcome::Error { class: ErrorClass::Syntax, message: "no".into() };
        assert_eq!(judge(rows(&[]), refused), Verdict::Skip("one language did not answer"));
    }
}
