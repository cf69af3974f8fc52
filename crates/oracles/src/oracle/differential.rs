//! The differential oracle (GDsmith): one query on several engines, versions
//! or settings. Rows are compared canonically; a query one engine answers
//! and another refuses is a finding. Two refusals are not compared (classes
//! come from each engine's own wording); crashes and hangs are the crash
//! oracle's, and answers graphlancer could not read are nobody's finding.

use graphlancer_cypher::check::result_types;
use graphlancer_engines::{ErrorClass, Outcome};
use graphlancer_model::{CaseRng, Comparison, Difference, ResultSet, RowOrder, Tolerance, Value, compare};

use crate::oracle::{BuildCx, CaseQuery, FeatureDifference, Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::shape::column_kinds;
use crate::signature::{Fault, Signature, normalize, refused_construct};

/// Answers compared across engines.
pub struct Differential;

impl Oracle for Differential {
    fn kind(&self) -> OracleKind {
        OracleKind::DIFFERENTIAL
    }

    fn about(&self) -> &'static str {
        "one query's answers compared across engines, releases or settings"
    }

    fn runs_by_default(&self, engines: usize) -> bool {
        engines > 1
    }

    fn engines_needed(&self) -> usize {
        2
    }

    fn compares_a_pair(&self) -> bool {
        true
    }

    fn speaks_gremlin(&self) -> bool {
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
        compared(source, cx, "differential", "one engine")
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        // With the reference among the engines, every engine is compared to
        // it, and a finding names each engine that differs from it as wrong.
        let truth = cx.names.iter().position(|n| n == graphlancer_engines::REFERENCE);
        let first = truth.unwrap_or(0);
        let pairs: Vec<(usize, usize)> = (0..cx.names.len()).filter(|&i| i != first).map(|i| (first, i)).collect();
        let verdict = judge_pairs(OracleKind::DIFFERENTIAL, cx, case, outcomes, &pairs);
        match (verdict, truth, outcomes.first()) {
            (Verdict::Finding(mut f), Some(t), Some(answers)) => {
                let wrong: Vec<usize> =
                    (0..cx.names.len()).filter(|&i| i != t && !same_answer(&answers[t], &answers[i], case)).collect();
                let names: Vec<&str> = wrong.iter().map(|&i| cx.names[i].as_str()).collect();
                // Engines wrong alike share a bug: the one thing a
                // differential campaign without a reference cannot see.
                let alike =
                    wrong.len() > 1 && wrong.windows(2).all(|w| same_answer(&answers[w[0]], &answers[w[1]], case));
                let shared = if alike { ", alike" } else { "" };
                f.summary = format!("{} wrong{shared}, by the reference: {}", names.join(" and "), f.summary);
                Verdict::Finding(f)
            }
            (v, ..) => v,
        }
    }
}

/// Whether two outcomes of the case's first query are the same answer.
fn same_answer(a: &Outcome, b: &Outcome, case: &TestCase) -> bool {
    let order = case.queries.first().map_or(RowOrder::Bag, CaseQuery::row_order);
    match (a, b) {
        (Outcome::Rows(x), Outcome::Rows(y)) => compare(x, y, &order, Tolerance::default()) == Comparison::Equal,
        (Outcome::Error { class: x, .. }, Outcome::Error { class: y, .. }) => x == y,
        _ => false,
    }
}

/// The generated query alone, as a case for an oracle that compares it
/// across engines (`why_not` when there is only one).
pub(crate) fn compared(
    source: &graphlancer_cypher::Generated,
    cx: &BuildCx<'_, '_>,
    relation: &str,
    why_not: &'static str,
) -> Result<TestCase, &'static str> {
    if cx.engines < 2 {
        return Err(why_not);
    }
    Ok(TestCase::single(relation, CaseQuery::source(source)))
}

/// A difference in the first query's answers between the engines of a
/// pair, `(a, b)` with `a` the reference, for the first pair that shows one.
/// Two refusals are not compared; crashes, hangs, unreadable answers and
/// the reference's open ones ([`Outcome::Open`]) are not this oracle's.
pub(crate) fn judge_pairs(
    kind: OracleKind,
    cx: &JudgeCx<'_>,
    case: &TestCase,
    outcomes: &[Vec<Outcome>],
    pairs: &[(usize, usize)],
) -> Verdict {
    let (Some(query), Some(outcomes)) = (case.queries.first(), outcomes.first()) else { return Verdict::Pass };
    let order = query.row_order();
    let clause_shape = || Some(query.constructs());
    for &(a, b) in pairs {
        let (Some(first), Some(other), Some(first_name), Some(name)) =
            (outcomes.get(a), outcomes.get(b), cx.names.get(a), cx.names.get(b))
        else {
            continue;
        };
        let found = |fault: Fault, shape: Option<String>, summary: String| {
            Verdict::Finding(Finding {
                signature: Signature { oracle: kind, engines: vec![first_name.clone(), name.clone()], fault, shape },
                summary,
                relation: None,
                query: None,
            })
        };
        match (first, other) {
            (Outcome::Rows(x), Outcome::Rows(y)) => {
                if let Comparison::Differ(d) = compare(x, y, &order, Tolerance::default()) {
                    let (fault, shape) = match &d {
                        _ if null_for_nothing(x, y) => (Fault::NullForNothing, None),
                        Difference::ColumnCount { .. } => (Fault::ColumnCount, clause_shape()),
                        Difference::Rows { .. } if x.rows.len() != y.rows.len() => (Fault::RowCount, clause_shape()),
                        // Same number of rows: name the columns whose values
                        // differ by what computes them, which groups one
                        // fault's many queries under one signature.
                        Difference::Rows { .. } => {
                            let kinds = query
                                .cypher_ast()
                                .map(|q| column_kinds(q, &result_types(q, cx.schema).unwrap_or_default()))
                                .unwrap_or_default();
                            (Fault::Values { columns: differing_columns(x, y, &kinds) }, None)
                        }
                        Difference::Order { position } => {
                            let keys = query.order_columns.as_deref().unwrap_or_default();
                            (Fault::Order, Some(super::order::sort_name(x, y, keys, *position)))
                        }
                    };
                    let summary = format!("{first_name} and {name} return different results ({fault})");
                    return found(fault, shape, summary);
                }
            }
            (Outcome::Rows(_), Outcome::Error { class, message })
            | (Outcome::Error { class, message }, Outcome::Rows(_)) => {
                let refusing = if matches!(first, Outcome::Error { .. }) { first_name } else { name };
                if matches!(class, ErrorClass::Syntax | ErrorClass::Semantic | ErrorClass::Unsupported) {
                    return Verdict::FeatureDifference(FeatureDifference {
                        engine: refusing.clone(),
                        construct: refused_construct(message),
                    });
                }
                return found(
                    Fault::Refused { engine: refusing.clone(), message: normalize(message) },
                    None,
                    format!("{refusing} refuses ({}) a query the other engine answers", class.name()),
                );
            }
            _ => {}
        }
    }
    Verdict::Pass
}

/// Whether one answer is no row and the other one row of nulls.
pub(crate) fn null_for_nothing(a: &ResultSet, b: &ResultSet) -> bool {
    let nulls = |r: &ResultSet| r.rows.len() == 1 && r.rows[0].iter().all(|v| *v == Value::Null);
    (a.rows.is_empty() && nulls(b)) || (b.rows.is_empty() && nulls(a))
}

/// The kinds of the columns whose values differ as multisets.
fn differing_columns(a: &ResultSet, b: &ResultSet, kinds: &[String]) -> String {
    let column = |r: &ResultSet, j: usize| {
        ResultSet::new(
            vec![String::new()],
            r.rows.iter().map(|row| vec![row.get(j).cloned().unwrap_or(Value::Null)]).collect(),
        )
    };
    let mut differing: Vec<String> = (0..a.columns.len().max(b.columns.len()))
        .filter(|&j| compare(&column(a, j), &column(b, j), &RowOrder::Bag, Tolerance::default()) != Comparison::Equal)
        .map(|j| kinds.get(j).cloned().unwrap_or_else(|| "column".into()))
        .collect();
    differing.sort();
    differing.dedup();
    if differing.is_empty() { "combination".into() } else { differing.join("+") }
}

#[cfg(test)]
mod tests {
    use graphlancer_cypher::ast::{Clause, Expr, Projection, Query, SingleQuery};
    use graphlancer_engines::{ErrorClass, Outcome};
    use graphlancer_model::{ResultSet, Value};

    use crate::oracle::crash::Crash;
    use crate::oracle::{CaseQuery, Finding, JudgeCx, Oracle, TestCase, Verdict};

    use super::Differential;

    fn rows(v: &[i64]) -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], v.iter().map(|i| vec![Value::Int(*i)]).collect()))
    }

    /// `MATCH ... RETURN` with the given items, ordered by column 0 when `ordered`.
    fn case(items: Vec<(Expr, String)>, order: Option<Vec<usize>>) -> TestCase {
        let ret = Projection::of(items);
        // `x` is bound, so the query is valid by Neo4j 5's rules.
        let x = graphlancer_cypher::ast::PathPattern {
            name: None,
            start: graphlancer_cypher::ast::NodePattern { variable: Some("x".into()), labels: Vec::new(), properties: Vec::new() },
            hops: Vec::new(),
        };
        let m = Clause::Match { optional: false, patterns: vec![x], guard: None, predicate: None };
        let ast = Query {
            parts: vec![SingleQuery { clauses: vec![m, Clause::Return(ret)] }],
            union_all: false,
            spelling: Default::default(),
        };
        TestCase::single("differential", CaseQuery::new("source", ast, order))
    }

    fn plain() -> TestCase {
        case(vec![(Expr::var("x"), "x".into())], None)
    }

    fn judge(oracle: &dyn Oracle, names: &[&str], case: &TestCase, outcomes: &[Outcome]) -> Verdict {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        let schema = crate::tests::schema();
        oracle.judge(&JudgeCx { names: &names, schema: &schema }, case, &[outcomes.to_vec()])
    }

    fn signature(v: &Verdict) -> String {
        match v {
            Verdict::Finding(Finding { signature, .. }) => signature.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn equal_bags_pass_and_different_ones_do_not() {
        let ab = ["a", "b"];
        assert_eq!(judge(&Differential, &ab, &plain(), &[rows(&[1, 2]), rows(&[2, 1])]), Verdict::Pass);
        let v = judge(&Differential, &ab, &plain(), &[rows(&[1, 2]), rows(&[1])]);
        assert_eq!(signature(&v), "differential:a|b:row-count:MATCH,RETURN");
        let ordered = case(vec![(Expr::var("x"), "x".into())], Some(vec![0]));
        let v = judge(&Differential, &ab, &ordered, &[rows(&[1, 2]), rows(&[2, 1])]);
        assert_eq!(signature(&v), "differential:a|b:order:by:integer");
    }

    #[test]
    fn same_row_count_names_the_differing_columns() {
        let two = |a: i64, b: i64| {
            Outcome::Rows(ResultSet::new(vec!["x".into(), "y".into()], vec![vec![Value::Int(a), Value::Int(b)]]))
        };
        let items = vec![
            (Expr::Literal(Value::Int(1)), "x".into()),
            (Expr::Function("startNode".into(), vec![Expr::var("r")]), "y".into()),
        ];
        let v = judge(&Differential, &["a", "b"], &case(items, None), &[two(1, 2), two(1, 3)]);
        assert_eq!(signature(&v), "differential:a|b:values:fn:startNode");
    }

    #[test]
    fn refusals_crashes_and_internal_errors() {
        let ab = ["a", "b"];
        let refused = Outcome::Error { class: ErrorClass::Runtime, message: "Unable to resolve 'n19' at 3".into() };
        let v = judge(&Differential, &ab, &plain(), &[rows(&[1]), refused.clone()]);
        assert_eq!(signature(&v), "differential:a|b:refused:b:Unable to resolve '…' at #");
        assert_eq!(judge(&Differential, &ab, &plain(), &[refused.clone(), refused]), Verdict::Pass);
        let crash = Outcome::Crash { message: "gone".into() };
        let v = judge(&Crash, &ab, &plain(), &[rows(&[1]), crash.clone()]);
        assert_eq!(signature(&v), "crash:b:crash:MATCH,RETURN");
        assert_eq!(judge(&Differential, &ab, &plain(), &[rows(&[1]), crash]), Verdict::Pass);
        let internal = Outcome::Error { class: ErrorClass::Internal, message: "Node 27 gone".into() };
        assert!(matches!(judge(&Crash, &["a"], &plain(), std::slice::from_ref(&internal)), Verdict::Finding(_)));
        // The same fault on both engines names both.
        let v = judge(&Crash, &ab, &plain(), &[internal.clone(), internal]);
        assert_eq!(signature(&v), "crash:a+b:internal-error:Node # gone");
    }

    #[test]
    fn a_parse_or_binder_refusal_is_a_feature_difference_named_without_the_query() {
        let ab = ["kuzu@0.6.0", "kuzu@0.11.3"];
        let parser = |text: &str| Outcome::Error {
            class: ErrorClass::Syntax,
            message: format!(
                "Parser exception: Invalid input <{text}>: expected rule oC_SingleQuery (line: 1, offset: 9)"
            ),
        };
        let one = judge(&Differential, &ab, &plain(), &[parser("RETURN -1.75E"), rows(&[1])]);
        let other = judge(&Differential, &ab, &plain(), &[parser("MATCH (n0) RETURN 2.5E"), rows(&[1])]);
        let Verdict::FeatureDifference(d) = &one else { panic!("{one:?}") };
        assert_eq!(d.engine, "kuzu@0.6.0");
        assert_eq!(
            d.construct,
            "Parser exception: Invalid input <…>: expected rule oC_SingleQuery (line: #, offset: #)"
        );
        assert_eq!(one, other, "one construct, whatever query showed it");
        let binder = Outcome::Error { class: ErrorClass::Semantic, message: "Binder exception: no function".into() };
        assert!(matches!(judge(&Differential, &ab, &plain(), &[rows(&[1]), binder]), Verdict::FeatureDifference(_)));
    }

    #[test]
    fn answers_graphlancer_cannot_read_are_never_findings() {
        let ab = ["a", "b"];
        let unread = Outcome::Undecodable { message: "a point value".into() };
        for oracle in [&Differential as &dyn Oracle, &Crash, &crate::oracle::error::UnexpectedError] {
            assert_eq!(judge(oracle, &ab, &plain(), &[rows(&[1]), unread.clone()]), Verdict::Pass);
            assert_eq!(judge(oracle, &ab, &plain(), &[unread.clone(), rows(&[1])]), Verdict::Pass);
        }
    }
}
