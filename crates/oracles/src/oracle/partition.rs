//! Ternary logic partitioning (GDBMeter, after SQLancer's TLP): the rows that
//! reach a query's RETURN split into those where a predicate `p` is true,
//! false and null, so Q must equal the union of Q∧p, Q∧¬p and Q∧(p IS NULL).
//!
//! Why it holds, and what it assumes:
//! - `p` is inserted as `WITH <every variable in scope> WHERE p` right before
//!   the RETURN, so the rows before it are exactly the source's; every row
//!   makes `p` true, false or null (ternary logic), never two of these.
//! - The RETURN is row-wise (each row projected on its own), or DISTINCT
//!   (the union is then taken as a set), or aggregates that combine across
//!   partitions: `count` and `sum` add up, `min` and `max` take the extreme
//!   (numbers only). `avg`, `collect`, DISTINCT aggregates, aggregates inside
//!   expressions, SKIP and LIMIT do not combine, and such queries are skipped
//!   (engines' trackers hold closed reports of tools that ignored this).
//! - Writes are allowed: the four runs start from the same graph and run
//!   the same clauses up to the inserted WITH, so the same writes happen and
//!   the same rows reach it; every write comes before it. (An engine that
//!   lets a later clause's writes interleave with earlier clauses may answer
//!   differently once a WITH stands between them; that is its bug.)
//! - The query is deterministic (the campaign generates under a
//!   deterministic preset when a value-reading oracle runs).

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::{Clause, Expr, Projection, Query, SingleQuery};
use graphlancer_cypher::context::Names;
use graphlancer_engines::Outcome;
use graphlancer_model::{CaseRng, Comparison, ResultSet, RowOrder, Tolerance, Value, compare};

use crate::oracle::{BuildCx, CaseQuery, Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::signature::{Fault, Signature};

/// Ternary logic partitioning.
pub struct Partition;

/// How a RETURN item combines across partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combine {
    /// A grouping key.
    Key,
    /// Counts and sums add up.
    Add,
    /// The smallest.
    Min,
    /// The largest.
    Max,
}

/// How each RETURN item combines, or why it does not.
fn combination(ret: &Projection) -> Result<Option<Vec<Combine>>, &'static str> {
    if ret.skip.is_some() || ret.limit.is_some() {
        return Err("SKIP or LIMIT");
    }
    if !ret.items.iter().any(|(e, _)| e.has_aggregate()) {
        return Ok(None);
    }
    if ret.distinct || ret.star {
        return Err("DISTINCT or * beside an aggregate");
    }
    ret.items
        .iter()
        .map(|(e, _)| match e {
            Expr::Aggregate { name, distinct: false, .. } => match name.to_ascii_lowercase().as_str() {
                "count" | "sum" => Ok(Combine::Add),
                "min" => Ok(Combine::Min),
                "max" => Ok(Combine::Max),
                _ => Err("an aggregate that does not combine (avg, collect, ...)"),
            },
            Expr::Aggregate { .. } => Err("a DISTINCT aggregate"),
            e if e.has_aggregate() => Err("an aggregate inside an expression"),
            _ => Ok(Combine::Key),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The RETURN of a single-part query.
fn final_return(q: &Query) -> Option<&Projection> {
    match q.parts.as_slice() {
        [part] => match part.clauses.last() {
            Some(Clause::Return(p)) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

impl Oracle for Partition {
    fn kind(&self) -> OracleKind {
        OracleKind::PARTITION
    }

    fn about(&self) -> &'static str {
        "ternary logic partitioning: Q against Q and p, Q and not p, Q and p is null"
    }

    fn build(&self, source: &Generated, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Result<TestCase, &'static str> {
        let q = &source.query;
        if q.parts.len() != 1 {
            return Err("UNION");
        }
        let ret = final_return(q).ok_or("no final RETURN")?;
        // `RETURN *` returns every variable still bound, also those a DELETE
        // took out of the generator's scope, which the inserted WITH would drop.
        if ret.star {
            return Err(STAR);
        }
        combination(ret)?;
        let clauses = &q.parts[0].clauses;
        if clauses.len() < 2 || source.scopes.len() != clauses.len() {
            return Err("nothing before the RETURN");
        }
        let scope = &source.scopes[clauses.len() - 2];
        if scope.is_empty() {
            return Err("nothing in scope before the RETURN");
        }
        let p = cx.generator.predicate_over(scope, &mut Names::after(&source.text), rng);
        let with = |predicate: Expr| {
            let mut clauses = clauses.clone();
            let items = scope.iter().map(|v| (Expr::var(&v.name), v.name.clone())).collect();
            let filter = Projection {
                distinct: false,
                star: false,
                items,
                predicate: Some(predicate),
                order_by: Vec::new(),
                skip: None,
                limit: None,
            };
            clauses.insert(clauses.len() - 1, Clause::With(filter));
            Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
        };
        let order = source.order_columns.clone();
        Ok(TestCase::group(
            "partition",
            vec![
                CaseQuery::source(source),
                CaseQuery::new("p", with(p.clone()), order.clone()),
                CaseQuery::new("NOT p", with(Expr::Not(Box::new(p.clone()))), order.clone()),
                CaseQuery::new("p IS NULL", with(Expr::IsNull { expr: Box::new(p), negated: false }), order),
            ],
        ))
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let Some(ret) = case.queries.first().and_then(|q| q.cypher_ast()).and_then(final_return) else { return Verdict::Pass };
        let Ok(combine) = combination(ret) else { return Verdict::Pass };
        for (e, name) in cx.names.iter().enumerate() {
            let rows: Option<Vec<&ResultSet>> = outcomes.iter().map(|o| o.get(e).and_then(Outcome::rows)).collect();
            let Some([whole, parts @ ..]) = rows.as_deref() else {
                return Verdict::Skip("a query of the group did not return rows");
            };
            if combine.as_deref().is_some_and(|c| has_duplicate_keys(whole, c)) {
                return Verdict::Skip(DUPLICATE_KEYS);
            }
            let combined = match union(parts, combine.as_deref(), ret.distinct) {
                Ok(c) => c,
                Err(reason) => return Verdict::Skip(reason),
            };
            if let Comparison::Differ(_) = compare(whole, &combined, &RowOrder::Bag, Tolerance::default()) {
                let how = if whole.rows.len() == combined.rows.len() { "values" } else { "row-count" };
                let what = if combine.is_some() { "combined aggregates" } else { "rows" };
                return Verdict::Finding(Finding {
                    signature: Signature {
                        oracle: OracleKind::PARTITION,
                        engines: vec![name.clone()],
                        fault: Fault::Relation { name: "partition".into(), how: how.into() },
                        shape: case.queries[0].cypher_ast().and_then(crate::oracle::relation::cause),
                    },
                    summary: format!(
                        "{name}: the query's {what} differ from those of its three partitions on p ({} against {} rows)",
                        whole.rows.len(),
                        combined.rows.len()
                    ),
                    relation: Some(format!(
                        "Every row before the RETURN makes p true, false or null, and exactly one of them, so \
                         the source query's {what} must equal the union of the {what} of the three queries that \
                         keep only the rows where p is true, where NOT p is true and where p IS NULL."
                    )),
                    query: None,
                });
            }
        }
        Verdict::Pass
    }
}

/// The partitions' answers put together as the whole query would answer.
fn union(parts: &[&ResultSet], combine: Option<&[Combine]>, distinct: bool) -> Result<ResultSet, &'static str> {
    let columns = parts.first().map(|r| r.columns.clone()).unwrap_or_default();
    if parts.iter().map(|r| r.rows.len()).sum::<usize>() > 5_000 {
        return Err("too many rows to combine");
    }
    // Rows are merged (DISTINCT) or grouped by value; entities the query
    // created have no identity, and two of them may look alike.
    let merges = distinct || combine.is_some_and(|c| c.contains(&Combine::Key) && c.len() > 1);
    if merges && parts.iter().flat_map(|r| &r.rows).flatten().any(Value::has_anonymous_entity) {
        return Err("entities without identity (created by the query) would be merged by value");
    }
    let Some(combine) = combine else {
        let mut rows: Vec<Vec<Value>> = parts.iter().flat_map(|r| r.rows.iter().cloned()).collect();
        if distinct {
            let mut unique: Vec<Vec<Value>> = Vec::with_capacity(rows.len());
            for row in rows {
                if !unique.contains(&row) {
                    unique.push(row);
                }
            }
            rows = unique;
        }
        return Ok(ResultSet::new(columns, rows));
    };
    let key = |row: &[Value]| -> Vec<Value> {
        row.iter().zip(combine).filter(|(_, c)| **c == Combine::Key).map(|(v, _)| v.clone()).collect()
    };
    let mut groups: Vec<Vec<Value>> = Vec::new();
    for part in parts {
        if has_duplicate_keys(part, combine) {
            return Err(DUPLICATE_KEYS);
        }
        for row in &part.rows {
            if row.len() != combine.len() {
                return Err("rows of another width");
            }
            let k = key(row);
            match groups.iter_mut().find(|g| key(g) == k) {
                None => groups.push(row.clone()),
                Some(g) => {
                    for ((acc, v), c) in g.iter_mut().zip(row).zip(combine) {
                        *acc = merge(acc, v.clone(), *c)?;
                    }
                }
            }
        }
    }
    Ok(ResultSet::new(columns, groups))
}

/// Why a `RETURN *` query is not partitioned (a false alarm of the first
/// single-engine FalkorDB campaign: `... DETACH DELETE n5 RETURN *`).
const STAR: &str = "RETURN * (the inserted WITH lists only the variables the generator still tracks)";

/// Why a case with two rows of one grouping key is not judged: which rows
/// to combine is then unknowable. A correct engine never answers so (the
/// known case is Grafeo returning relationship keys as null, which the
/// differential oracle and the known-bug table cover).
const DUPLICATE_KEYS: &str = "an answer has two rows with the same grouping key";

/// Whether two rows of an aggregating answer share their grouping key.
fn has_duplicate_keys(r: &ResultSet, combine: &[Combine]) -> bool {
    let keys: Vec<Vec<&Value>> = r
        .rows
        .iter()
        .map(|row| row.iter().zip(combine).filter(|(_, c)| **c == Combine::Key).map(|(v, _)| v).collect())
        .collect();
    keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k))
}

/// Two partial aggregates as one.
fn merge(a: &Value, b: Value, c: Combine) -> Result<Value, &'static str> {
    use Value::{Float, Int, Null};
    Ok(match (c, a, b) {
        (Combine::Key, a, _) => a.clone(),
        (_, Null, b) => b,
        (_, a, Null) => a.clone(),
        (Combine::Add, Int(x), Int(y)) => Int(x.checked_add(y).ok_or("a sum overflows")?),
        (Combine::Add, ..) => return Err("a sum of floats (rounding depends on the order)"),
        (Combine::Min | Combine::Max, Int(x), Int(y)) => Int(if (c == Combine::Min) == (*x <= y) { *x } else { y }),
        (Combine::Min | Combine::Max, Float(x), Float(y)) => {
            if x.is_nan() || y.is_nan() {
                return Err("NaN");
            }
            Float(if (c == Combine::Min) == (*x <= y) { *x } else { y })
        }
        _ => return Err("min or max over values other than numbers of one type"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs(rows: &[&[Value]]) -> ResultSet {
        ResultSet::new(vec!["k".into(), "c".into()], rows.iter().map(|r| r.to_vec()).collect())
    }

    #[test]
    fn aggregates_combine_per_group() {
        use Value::{Int, Null, String as S};
        let combine = [Combine::Key, Combine::Add];
        let p = rs(&[&[S("a".into()), Int(2)], &[S("b".into()), Int(1)]]);
        let not_p = rs(&[&[S("a".into()), Int(3)]]);
        let null = rs(&[&[Null, Int(1)]]);
        let all = union(&[&p, &not_p, &null], Some(&combine), false).expect("combines");
        let whole = rs(&[&[S("a".into()), Int(5)], &[S("b".into()), Int(1)], &[Null, Int(1)]]);
        assert_eq!(compare(&whole, &all, &RowOrder::Bag, Tolerance::default()), Comparison::Equal);
        let minmax = [Combine::Min, Combine::Max];
        let a = rs(&[&[Int(3), Int(3)]]);
        let b = rs(&[&[Null, Null]]);
        let c = rs(&[&[Int(1), Int(2)]]);
        let all = union(&[&a, &b, &c], Some(&minmax), false).expect("combines");
        assert_eq!(all.rows, vec![vec![Int(1), Int(3)]]);
        assert!(merge(&Value::Float(1.0), Value::Float(2.0), Combine::Add).is_err());
    }

    #[test]
    fn a_star_return_is_not_partitioned() {
        use graphlancer_cypher::{DialectProfile, Generator, GeneratorConfig, Preset};
        use graphlancer_model::{GraphConfig, derive_rng, generate};
        let graph = generate(1, &GraphConfig::default()).expect("graph");
        let profile = DialectProfile::built_in("falkordb").expect("profile");
        let config = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &config);
        let cx = BuildCx {
            generator: &generator,
            graph: &graph,
            profile: &profile,
            engines: 1,
            only: &[],
            traversals: None,
        };
        let mut rng = derive_rng(1, &[1]);
        let mut tried = 0;
        for _ in 0..200 {
            let mut g = generator.generate(&mut rng);
            let [part] = g.query.parts.as_mut_slice() else { continue };
            if part.clauses.len() < 2 {
                continue;
            }
            if let Some(Clause::Return(ret)) = part.clauses.last_mut() {
                ret.star = true;
                ret.items.clear();
            }
            tried += 1;
            assert_eq!(Partition.build(&g, &cx, &mut rng).map(|_| ()), Err(STAR));
        }
        assert!(tried > 0);
    }

    #[test]
    fn two_rows_of_one_grouping_key_are_not_combined() {
        use Value::{Int, Null};
        let combine = [Combine::Key, Combine::Add];
        let twice = rs(&[&[Null, Int(1)], &[Null, Int(1)]]);
        let once = rs(&[&[Null, Int(1)]]);
        assert_eq!(union(&[&twice, &once], Some(&combine), false).map(|_| ()), Err(DUPLICATE_KEYS));
        assert!(union(&[&once, &once], Some(&combine), false).is_ok());
    }

    #[test]
    fn distinct_union_is_a_set() {
        use Value::Int;
        let a = rs(&[&[Int(1), Int(1)]]);
        let b = rs(&[&[Int(1), Int(1)], &[Int(2), Int(2)]]);
        assert_eq!(union(&[&a, &b], None, true).expect("ok").rows.len(), 2);
        assert_eq!(union(&[&a, &b], None, false).expect("ok").rows.len(), 3);
    }
}
