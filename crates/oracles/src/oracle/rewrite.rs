//! Equivalent and subset rewrites of a generated query (after GRev,
//! GraphGenie and Dinkel): the query and a rewrite of it must answer the
//! same rows, or, where the rewrite drops a predicate, a superset of them.
//!
//! Why each holds, and what it assumes (the query reads only, and is
//! deterministic; rows are compared as a bag unless the query fixes an order):
//! - `inline-to-where`: `(v {k: e})` matches where `v.k = e` is true, so the
//!   constraint moves into the clause's WHERE (in OPTIONAL MATCH the WHERE is
//!   part of the pattern, so it holds there too). Not for variable-length
//!   relationships, whose variable is a list.
//! - `reverse-direction`: a path pattern read from its other end matches the
//!   same relationships and binds the same variables. Not for named paths,
//!   whose value would be reversed.
//! - `tautology`: `q OR NOT q OR q IS NULL` is true for every q in ternary
//!   logic, and so are `s CONTAINS '' OR s IS NULL`, `s STARTS WITH '' OR s
//!   IS NULL` and `s ENDS WITH s OR s IS NULL` for every string s (the empty
//!   string is a part of every string, and every string ends with itself),
//!   so ANDing one to a MATCH's WHERE changes nothing.
//! - `in-to-or`: `x IN [a, b]` has the value of `x = a OR x = b` in ternary
//!   logic (false for the empty list).
//! - `drop-predicate`: without a MATCH's WHERE more rows reach the clauses
//!   after it; when every later clause handles rows one at a time (no
//!   aggregation, SKIP or LIMIT), the answer can only grow: the original
//!   rows must be a sub-bag of the new ones.
//! - `optional-to-match`: OPTIONAL MATCH keeps every match MATCH finds and
//!   adds one null row for an input row with none; when every later clause
//!   handles rows one at a time, MATCH's answer must be a sub-bag of the
//!   original's.
//! - `label-to-where`: `(v:L)` matches where `v:L` is true, so the labels
//!   move into the clause's WHERE (in OPTIONAL MATCH the WHERE is part of
//!   the pattern). Only where the profile has label predicates.
//! - `split-match`: relationship uniqueness binds within one MATCH only, so
//!   a MATCH cut in two (between its patterns, or a path at a named node)
//!   finds every match it found and perhaps more; with only row-wise
//!   clauses after it, the original rows must be a sub-bag of the new ones.
//! - `with-star`: `WITH *` before the RETURN passes every variable on
//!   unchanged (only where the profile has `*` projections).
//! - `null-check`: each returned value comes back with `value IS NULL` beside
//!   it, which must be true exactly where the value is null, and the
//!   original columns must not change (a projection depends on nothing but
//!   its row, and a column computed from another groups like it).

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::{BinOp, Clause, Expr, Projection, Query};
use graphlancer_cypher::context::Names;
use graphlancer_cypher::types::Ty;
use graphlancer_engines::Outcome;
use graphlancer_model::{CaseRng, Comparison, Difference, ResultSet, RowOrder, Tolerance, Value, compare};
use rand::Rng;

use crate::oracle::{BuildCx, CaseQuery, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::oracle::relation::{NO_ROWS, broken, rows_of};

/// Equivalent and subset rewrites.
pub struct Rewrite;

/// The rewrites. A name read back from a case is one of these or refused:
/// no arm of a match on names stands for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case")]
enum Relation {
    LabelToWhere,
    SplitMatch,
    WithStar,
    OptionalKeepsRows,
    InlineToWhere,
    ReverseDirection,
    Tautology,
    InToOr,
    DropPredicate,
    OptionalToMatch,
    NullCheck,
}

impl Relation {
    fn name(self) -> &'static str {
        self.into()
    }

    fn named(name: &str) -> Option<Relation> {
        name.parse().ok()
    }

    /// Whether one side's rows must be contained in the other's rather than
    /// equal them: the source's when a predicate is dropped, a MATCH split or
    /// an OPTIONAL MATCH added, the rewrite's when OPTIONAL becomes MATCH.
    fn subset(self) -> bool {
        matches!(
            self,
            Relation::DropPredicate | Relation::OptionalToMatch | Relation::OptionalKeepsRows | Relation::SplitMatch
        )
    }
}

/// The rewrites, by name.
static REWRITES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| <Relation as strum::IntoEnumIterator>::iter().map(Relation::name).collect());

impl Oracle for Rewrite {
    fn kind(&self) -> OracleKind {
        OracleKind::REWRITE
    }

    fn about(&self) -> &'static str {
        "equivalent and subset rewrites of a generated query"
    }

    fn relations(&self) -> &'static [&'static str] {
        &REWRITES
    }

    fn build(&self, source: &Generated, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Result<TestCase, &'static str> {
        let q = &source.query;
        if q.parts.len() != 1 {
            return Err("UNION");
        }
        if q.writes() {
            return Err("the query writes");
        }
        for name in cx.order(&REWRITES, rng) {
            let relation = Relation::named(name).expect("REWRITES holds the rewrites' names");
            let rewritten = match relation {
                Relation::InlineToWhere => inline_to_where(source, rng),
                Relation::ReverseDirection => reverse_direction(q, rng),
                Relation::Tautology => tautology(source, cx, rng),
                Relation::InToOr => in_to_or(q),
                Relation::DropPredicate => drop_predicate(q, rng),
                Relation::SplitMatch => split_match(q, rng),
                Relation::LabelToWhere => label_to_where(q, cx, rng),
                Relation::OptionalToMatch => optional_to_match(q, rng),
                Relation::WithStar => with_star(q, cx),
                Relation::OptionalKeepsRows => {
                    if let Some((before, after)) = optional_keeps_rows(source, rng) {
                        let queries =
                            vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)];
                        return Ok(TestCase::group("rewrite:optional-keeps-rows", queries));
                    }
                    None
                }
                Relation::NullCheck => null_check(q),
            };
            if let Some(ast) = rewritten {
                let rewritten = CaseQuery::new(name, ast, source.order_columns.clone());
                return Ok(TestCase::group(&format!("rewrite:{name}"), vec![CaseQuery::source(source), rewritten]));
            }
        }
        Err("no rewrite applies")
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let name = case.relation.strip_prefix("rewrite:").unwrap_or(&case.relation);
        let Some(relation) = Relation::named(name) else { return Verdict::Skip("a rewrite this build does not know") };
        if relation == Relation::NullCheck {
            return judge_null_check(cx, case, outcomes);
        }
        let subset = relation.subset();
        let swap = relation == Relation::OptionalToMatch;
        let order = match (&case.queries[0].order_columns, subset) {
            (Some(keys), false) => RowOrder::SortedBy(keys.clone()),
            _ => RowOrder::Bag,
        };
        for (e, engine) in cx.names.iter().enumerate() {
            let Some(rows) = rows_of(outcomes, e) else { return NO_ROWS };
            let [before, after] = rows.as_slice() else { return Verdict::Pass };
            let (small, large) = if swap { (after, before) } else { (before, after) };
            // No rows are in every answer, whatever its columns: ArcadeDB
            // sends none for an empty `RETURN *`.
            if subset && small.rows.is_empty() {
                continue;
            }
            let how = match compare(small, large, &order, Tolerance::default()) {
                Comparison::Equal => continue,
                Comparison::Differ(Difference::Rows { only_left, .. }) if subset && only_left.is_empty() => continue,
                Comparison::Differ(_) if subset => "not-superset",
                Comparison::Differ(Difference::Rows { .. }) if before.rows.len() != after.rows.len() => "row-count",
                Comparison::Differ(Difference::Order { .. }) => "order",
                Comparison::Differ(_) => "values",
            };
            let words = if relation == Relation::OptionalKeepsRows {
                "OPTIONAL MATCH keeps every row it is given (extending it with a match, or with nulls where \
                 there is none), so the variables bound before it must come out at least as often as they go in."
                    .to_owned()
            } else if swap {
                "OPTIONAL MATCH keeps every match MATCH finds (and adds a null row where there is none), and the \
                 clauses after it handle rows one at a time, so every row of the MATCH query must be in the \
                 OPTIONAL MATCH query's answer."
                    .to_owned()
            } else if relation == Relation::SplitMatch {
                "Relationship uniqueness holds within one MATCH only, so a MATCH split into two (its patterns, or \
                 a path cut at a named node) finds every match it found before and perhaps more; the clauses \
                 after it handle rows one at a time, so every row of the original answer must still be in the \
                 new one."
                    .to_owned()
            } else if subset {
                "Dropping a MATCH's WHERE lets more rows reach the clauses after it, which all handle rows one at \
                 a time, so every row of the original answer must still be in the new one."
                    .to_owned()
            } else {
                format!("The rewrite `{name}` is equivalent in openCypher, so both queries must answer the same rows.")
            };
            return rewrite_broken(
                engine,
                case,
                how,
                format!(
                    "{engine}: the rewrite {name} changes the answer ({} rows against {})",
                    before.rows.len(),
                    after.rows.len()
                ),
                words,
            );
        }
        Verdict::Pass
    }
}

fn and(a: Option<Expr>, b: Expr) -> Expr {
    match a {
        Some(a) => Expr::binary(BinOp::And, a, b),
        None => b,
    }
}

fn single(q: &Query) -> &[Clause] {
    &q.parts[0].clauses
}

fn with_clauses(q: &Query, clauses: Vec<Clause>) -> Query {
    let mut out = q.clone();
    out.parts[0].clauses = clauses;
    out
}

/// Whether some projection of the query is `*` (a new variable would show).
fn has_star(q: &Query) -> bool {
    single(q).iter().any(|c| matches!(c, Clause::With(p) | Clause::Return(p) if p.star))
}

fn inline_to_where(source: &Generated, rng: &mut CaseRng) -> Option<Query> {
    let q = &source.query;
    if has_star(q) {
        return None;
    }
    let mut spots = Vec::new();
    for (i, c) in single(q).iter().enumerate() {
        let Clause::Match { patterns, .. } = c else { continue };
        for (j, p) in patterns.iter().enumerate() {
            if !p.start.properties.is_empty() {
                spots.push((i, j, None));
            }
            for (h, (r, n)) in p.hops.iter().enumerate() {
                if !r.properties.is_empty() && r.length.is_none() {
                    spots.push((i, j, Some((h, true))));
                }
                if !n.properties.is_empty() {
                    spots.push((i, j, Some((h, false))));
                }
            }
        }
    }
    if spots.is_empty() {
        return None;
    }
    let (i, j, at) = spots[rng.random_range(0..spots.len())];
    let mut clauses = single(q).to_vec();
    let mut names = Names::after(&source.text);
    let Clause::Match { patterns, predicate, .. } = &mut clauses[i] else { return None };
    let p = &mut patterns[j];
    let (variable, props) = match at {
        None => (&mut p.start.variable, &mut p.start.properties),
        Some((h, true)) => {
            let r = &mut p.hops[h].0;
            (&mut r.variable, &mut r.properties)
        }
        Some((h, false)) => {
            let n = &mut p.hops[h].1;
            (&mut n.variable, &mut n.properties)
        }
    };
    let name =
        variable.get_or_insert_with(|| names.fresh(if matches!(at, Some((_, true))) { "r" } else { "n" })).clone();
    let moved = std::mem::take(props);
    let mut pred = predicate.take();
    for (k, e) in moved {
        pred = Some(and(pred, Expr::binary(BinOp::Eq, Expr::Property(Box::new(Expr::var(&name)), k), e)));
    }
    *predicate = pred;
    Some(with_clauses(q, clauses))
}

fn reverse_direction(q: &Query, rng: &mut CaseRng) -> Option<Query> {
    use graphlancer_cypher::ast::Direction;
    let mut spots = Vec::new();
    for (i, c) in single(q).iter().enumerate() {
        if let Clause::Match { patterns, .. } = c {
            for (j, p) in patterns.iter().enumerate() {
                if p.name.is_none() && !p.hops.is_empty() {
                    spots.push((i, j));
                }
            }
        }
    }
    if spots.is_empty() {
        return None;
    }
    let (i, j) = spots[rng.random_range(0..spots.len())];
    let mut clauses = single(q).to_vec();
    let Clause::Match { patterns, .. } = &mut clauses[i] else { return None };
    let p = &mut patterns[j];
    // Nodes n0 r1 n1 r2 n2 become n2 r2' n1 r1' n0, each relationship flipped.
    let mut nodes = vec![p.start.clone()];
    let mut rels = Vec::new();
    for (r, n) in &p.hops {
        rels.push(r.clone());
        nodes.push(n.clone());
    }
    nodes.reverse();
    rels.reverse();
    for r in &mut rels {
        r.direction = match r.direction {
            Direction::Out => Direction::In,
            Direction::In => Direction::Out,
            Direction::Both => Direction::Both,
        };
    }
    let mut nodes = nodes.into_iter();
    p.start = nodes.next()?;
    p.hops = rels.into_iter().zip(nodes).collect();
    Some(with_clauses(q, clauses))
}

fn tautology(source: &Generated, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Option<Query> {
    let q = &source.query;
    let clauses = single(q);
    if source.scopes.len() != clauses.len() {
        return None;
    }
    let spots: Vec<usize> = clauses
        .iter()
        .enumerate()
        .filter(|(i, c)| matches!(c, Clause::Match { .. }) && !source.scopes[*i].is_empty())
        .map(|(i, _)| i)
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.random_range(0..spots.len())];
    let mut names = Names::after(&source.text);
    let scope = &source.scopes[i];
    let is_null = |e: Expr| Expr::IsNull { expr: Box::new(e), negated: false };
    let mut form = rng.random_range(0..4);
    // A known bug would make every such rewrite a duplicate finding.
    if form == 1 && cx.profile.has_bug(graphlancer_cypher::KnownBug::ContainsEmptyString) {
        form = 2;
    }
    let always = match form {
        0 => {
            let t = cx.generator.predicate_over(scope, &mut names, rng);
            Expr::binary(BinOp::Or, Expr::binary(BinOp::Or, t.clone(), Expr::Not(Box::new(t.clone()))), is_null(t))
        }
        k => {
            let s = cx.generator.expression_over(scope, &Ty::String, &mut names, rng);
            let empty = || Expr::lit(graphlancer_model::Value::String(String::new()));
            let holds = match k {
                1 => Expr::binary(BinOp::Contains, s.clone(), empty()),
                2 => Expr::binary(BinOp::StartsWith, s.clone(), empty()),
                _ => Expr::binary(BinOp::EndsWith, s.clone(), s.clone()),
            };
            Expr::binary(BinOp::Or, holds, is_null(s))
        }
    };
    let mut clauses = clauses.to_vec();
    let Clause::Match { predicate, .. } = &mut clauses[i] else { return None };
    *predicate = Some(and(predicate.take(), always));
    Some(with_clauses(q, clauses))
}

/// Rewrites the first `x IN [..]` of a WHERE.
fn in_to_or(q: &Query) -> Option<Query> {
    fn expand(e: &Expr) -> Option<Expr> {
        if let Expr::Binary(BinOp::In, x, list) = e
            && let Expr::List(items) = list.as_ref()
        {
            let eq = |item: &Expr| Expr::binary(BinOp::Eq, x.as_ref().clone(), item.clone());
            let mut iter = items.iter();
            let first = iter.next().map_or(Expr::lit(graphlancer_model::Value::Bool(false)), eq);
            return Some(iter.fold(first, |acc, item| Expr::binary(BinOp::Or, acc, eq(item))));
        }
        match e {
            Expr::Binary(op, a, b) => {
                if let Some(a2) = expand(a) {
                    return Some(Expr::Binary(*op, Box::new(a2), b.clone()));
                }
                expand(b).map(|b2| Expr::Binary(*op, a.clone(), Box::new(b2)))
            }
            Expr::Not(a) => expand(a).map(|a2| Expr::Not(Box::new(a2))),
            _ => None,
        }
    }
    let mut clauses = single(q).to_vec();
    for c in &mut clauses {
        let slot = match c {
            Clause::Match { predicate, .. } => predicate,
            Clause::With(p) => &mut p.predicate,
            _ => continue,
        };
        if let Some(e) = slot
            && let Some(new) = expand(e)
        {
            *slot = Some(new);
            return Some(with_clauses(q, clauses));
        }
    }
    None
}

/// Whether a clause after the dropped predicate handles rows one at a time.
fn row_wise(c: &Clause) -> bool {
    match c {
        Clause::Match { .. } | Clause::Unwind { .. } => true,
        Clause::With(p) | Clause::Return(p) => {
            p.skip.is_none() && p.limit.is_none() && !p.items.iter().any(|(e, _)| e.has_aggregate())
        }
        _ => false,
    }
}

/// Edits one MATCH clause, drawn among those `suits` picks that only
/// row-wise clauses follow.
fn edit_match_before_row_wise(
    q: &Query,
    rng: &mut CaseRng,
    suits: impl Fn(&Clause) -> bool,
    edit: impl FnOnce(&mut Clause),
) -> Option<Query> {
    let clauses = single(q);
    let spots: Vec<usize> =
        (0..clauses.len()).filter(|&i| suits(&clauses[i]) && clauses[i + 1..].iter().all(row_wise)).collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.random_range(0..spots.len())];
    let mut clauses = clauses.to_vec();
    edit(&mut clauses[i]);
    Some(with_clauses(q, clauses))
}

fn drop_predicate(q: &Query, rng: &mut CaseRng) -> Option<Query> {
    edit_match_before_row_wise(
        q,
        rng,
        |c| matches!(c, Clause::Match { optional: false, predicate: Some(_), .. }),
        |c| {
            if let Clause::Match { predicate, .. } = c {
                *predicate = None;
            }
        },
    )
}

/// A node's labels moved from a MATCH's pattern into its WHERE.
fn label_to_where(q: &Query, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Option<Query> {
    if !cx.profile.has(graphlancer_cypher::Feature::LabelPredicate) {
        return None;
    }
    let clauses = single(q);
    // (clause, pattern, node) of every named node pattern with labels; node 0 is the start.
    let mut spots = Vec::new();
    for (i, c) in clauses.iter().enumerate() {
        let Clause::Match { patterns, .. } = c else { continue };
        for (k, p) in patterns.iter().enumerate() {
            let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
            for (j, n) in nodes.enumerate() {
                if n.variable.is_some() && !n.labels.is_empty() {
                    spots.push((i, k, j));
                }
            }
        }
    }
    if spots.is_empty() {
        return None;
    }
    let (i, k, j) = spots[rng.random_range(0..spots.len())];
    let mut clauses = clauses.to_vec();
    let Clause::Match { patterns, predicate, .. } = &mut clauses[i] else { return None };
    let p = &mut patterns[k];
    let node = if j == 0 { &mut p.start } else { &mut p.hops[j - 1].1 };
    let labels = std::mem::take(&mut node.labels);
    let has = Expr::HasLabels(node.variable.clone()?, labels);
    *predicate = Some(and(predicate.take(), has));
    Some(with_clauses(q, clauses))
}

/// A MATCH split in two: its pattern list, or one path at a named node.
fn split_match(q: &Query, rng: &mut CaseRng) -> Option<Query> {
    use graphlancer_cypher::ast::{NodePattern, PathPattern};
    // Where a clause can be cut: (pattern, hop) pairs, hop 0 between patterns.
    let cuts = |c: &Clause| -> Vec<(usize, usize)> {
        let Clause::Match { optional: false, patterns, .. } = c else { return Vec::new() };
        let mut out: Vec<(usize, usize)> = (1..patterns.len()).map(|k| (k, 0)).collect();
        for (k, p) in patterns.iter().enumerate() {
            if p.name.is_none() {
                out.extend((1..p.hops.len()).filter(|&h| p.hops[h - 1].1.variable.is_some()).map(|h| (k, h)));
            }
        }
        out
    };
    let clauses = single(q);
    let spots: Vec<usize> = (0..clauses.len())
        .filter(|&i| !cuts(&clauses[i]).is_empty() && clauses[i + 1..].iter().all(row_wise))
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.random_range(0..spots.len())];
    let options = cuts(&clauses[i]);
    let (k, h) = options[rng.random_range(0..options.len())];
    let Clause::Match { patterns, guard, predicate, .. } = clauses[i].clone() else { return None };
    let (first, second) = if h == 0 {
        (patterns[..k].to_vec(), patterns[k..].to_vec())
    } else {
        let path = &patterns[k];
        let join = &path.hops[h - 1].1;
        let at = NodePattern { variable: join.variable.clone(), labels: Vec::new(), properties: Vec::new() };
        let head = PathPattern { name: None, start: path.start.clone(), hops: path.hops[..h].to_vec() };
        let tail = PathPattern { name: None, start: at, hops: path.hops[h..].to_vec() };
        let mut first = patterns[..k].to_vec();
        first.push(head);
        let mut second = vec![tail];
        second.extend_from_slice(&patterns[k + 1..]);
        (first, second)
    };
    let mut out = clauses.to_vec();
    out[i] = Clause::Match { optional: false, patterns: second, guard, predicate };
    out.insert(i, Clause::Match { optional: false, patterns: first, guard: None, predicate: None });
    Some(with_clauses(q, out))
}

fn optional_to_match(q: &Query, rng: &mut CaseRng) -> Option<Query> {
    edit_match_before_row_wise(
        q,
        rng,
        |c| matches!(c, Clause::Match { optional: true, .. }),
        |c| {
            if let Clause::Match { optional, .. } = c {
                *optional = false;
            }
        },
    )
}

/// The source with `item IS NULL` beside each returned item.
fn null_check(q: &Query) -> Option<Query> {
    let mut clauses = single(q).to_vec();
    let Some(Clause::Return(ret)) = clauses.last_mut() else { return None };
    if ret.star || ret.items.is_empty() {
        return None;
    }
    let checks: Vec<(Expr, String)> = ret
        .items
        .iter()
        .map(|(e, alias)| (Expr::IsNull { expr: Box::new(e.clone()), negated: false }, format!("{alias}_is_null")))
        .collect();
    ret.items.extend(checks);
    Some(with_clauses(q, clauses))
}

/// Whether `rewrite` is `source` with `item IS NULL` beside each returned
/// item (the checks' own aliases aside: renaming may change them).
fn checks_of(source: &Query, rewrite: &Query) -> bool {
    let Some(expected) = null_check(source) else { return false };
    let (Some((Clause::Return(want), before)), Some((Clause::Return(got), rest))) =
        (single(&expected).split_last(), single(rewrite).split_last())
    else {
        return false;
    };
    let bare = |p: &Projection| Projection { items: Vec::new(), ..p.clone() };
    before == rest
        && bare(want) == bare(got)
        && want.items.iter().map(|(e, _)| e).eq(got.items.iter().map(|(e, _)| e))
}

fn judge_null_check(cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
    // Reduction edits the source and the rewrite at the places they share,
    // which leaves the added checks as they were: `null AS p0` beside
    // `p0 IS NULL`, where p0 is still the matched path. Only a rewrite that
    // is still the source's own null-check is judged.
    let derived = match case.queries.as_slice() {
        [source, rewrite] => source.cypher_ast().zip(rewrite.cypher_ast()).is_some_and(|(s, r)| checks_of(s, r)),
        _ => false,
    };
    if !derived {
        return Verdict::Skip("a rewrite that is no longer the source's null-check");
    }
    for (e, engine) in cx.names.iter().enumerate() {
        let Some(rows) = rows_of(outcomes, e) else { return NO_ROWS };
        let [before, after] = rows.as_slice() else { return Verdict::Pass };
        let n = before.columns.len();
        if after.columns.len() != 2 * n {
            return Verdict::Skip("an answer of another width");
        }
        let wrong = after.rows.iter().find(|row| {
            (0..n).any(|j| matches!(row.get(n + j), Some(Value::Bool(b)) if *b != (row[j] == Value::Null)))
        });
        let projected =
            ResultSet::new(before.columns.clone(), after.rows.iter().map(|row| row[..n].to_vec()).collect());
        let order = case.queries[0].row_order();
        let (how, summary) = if let Some(row) = wrong {
            let shown: Vec<String> = row.iter().map(ToString::to_string).collect();
            (
                "is-null",
                format!("{engine}: `e IS NULL` disagrees with the value of e in the row ({})", shown.join(", ")),
            )
        } else if compare(before, &projected, &order, Tolerance::default()) != Comparison::Equal {
            ("columns-changed", format!("{engine}: adding `e IS NULL` columns changes the other columns"))
        } else {
            continue;
        };
        return rewrite_broken(
            engine,
            case,
            how,
            summary,
            "`e IS NULL` is true exactly when e is null, and a column computed from the others neither adds \
             nor removes rows, so the rewrite must return the original columns unchanged with each check true \
             exactly where its value is null."
                .to_owned(),
        );
    }
    Verdict::Pass
}

/// The rows before an OPTIONAL MATCH and after it, both projected on the
/// variables bound before it.
fn optional_keeps_rows(source: &Generated, rng: &mut CaseRng) -> Option<(Query, Query)> {
    let q = &source.query;
    let clauses = single(q);
    if source.scopes.len() != clauses.len() {
        return None;
    }
    let spots: Vec<usize> = (1..clauses.len())
        .filter(|&i| matches!(&clauses[i], Clause::Match { optional: true, .. }) && !source.scopes[i - 1].is_empty())
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.random_range(0..spots.len())];
    let items: Vec<(Expr, String)> =
        source.scopes[i - 1].iter().map(|v| (Expr::var(&v.name), v.name.clone())).collect();
    let ret = Clause::Return(graphlancer_cypher::ast::Projection::of(items));
    let mut before = clauses[..i].to_vec();
    before.push(ret.clone());
    let mut after = clauses[..=i].to_vec();
    after.push(ret);
    Some((with_clauses(q, before), with_clauses(q, after)))
}

/// The source with `WITH *` inserted before its RETURN.
fn with_star(q: &Query, cx: &BuildCx<'_, '_>) -> Option<Query> {
    use graphlancer_cypher::Feature;
    let profile = cx.profile;
    if !profile.has(Feature::ReturnStar) || profile.bugs.contains_key(&Feature::ReturnStar) {
        return None;
    }
    let clauses = single(q);
    if clauses.len() < 2 {
        return None;
    }
    let mut star = graphlancer_cypher::ast::Projection::of(Vec::new());
    star.star = true;
    let mut clauses = clauses.to_vec();
    clauses.insert(clauses.len() - 1, Clause::With(star));
    Some(with_clauses(q, clauses))
}

/// A rewrite relation broken on `engine`, named by the relation and how it broke.
fn rewrite_broken(engine: &str, case: &TestCase, how: &str, summary: String, words: String) -> Verdict {
    broken(
        OracleKind::REWRITE,
        engine,
        &case.relation,
        how,
        case.queries[0].cypher_ast().and_then(crate::oracle::relation::cause),
        summary,
        words,
    )
}

#[cfg(test)]
mod tests {
    use graphlancer_cypher::{DialectProfile, Generator, GeneratorConfig, Preset};
    use graphlancer_model::{GraphConfig, derive_rng, generate};

    use super::*;

    /// Where the profile lists `CONTAINS ''` as a known bug, the tautology
    /// rewrite uses its other forms; elsewhere it uses all of them.
    #[test]
    fn a_known_bug_keeps_its_form_out_of_the_tautology_rewrite() {
        let config = GeneratorConfig::preset(Preset::Differential);
        for (dialect, second_label, expect_contains) in [("kuzu", 0.0, false), ("falkordb", 0.3, true)] {
            let graph = generate(1, &GraphConfig { second_label_probability: second_label, ..GraphConfig::default() })
                .expect("graph");
            let profile = DialectProfile::built_in(dialect).expect("profile");
            let generator = Generator::new(&graph, &profile, &config);
            let only = ["tautology".to_owned()];
            let cx = BuildCx {
                generator: &generator,
                graph: &graph,
                profile: &profile,
                engines: 1,
                only: &only,
                traversals: None,
            };
            let (mut forms, mut contains) = (0, 0);
            for i in 0..400 {
                let source = generator.generate(&mut derive_rng(2, &[1, i]));
                if let Ok(case) = Rewrite.build(&source, &cx, &mut derive_rng(3, &[1, i])) {
                    forms += 1;
                    let n = |t: &str| t.matches("CONTAINS '')").count();
                    contains += usize::from(n(&case.queries[1].text) > n(&case.queries[0].text));
                }
            }
            assert!(forms > 20, "{dialect}: {forms} tautologies");
            assert_eq!(contains > 0, expect_contains, "{dialect}: {contains} of {forms} use CONTAINS ''");
        }
    }
}

#[cfg(test)]
mod derived {
    use graphlancer_cypher::parse::parse;

    /// Reduction that rewrites a returned item in both queries leaves the
    /// check on the old item: that pair is no longer a null-check.
    #[test]
    fn only_the_sources_own_null_check_is_judged() {
        let q = |t: &str| parse(t).expect(t);
        let source = q("MATCH p = (a)-[]->(b) RETURN p AS p0");
        let ok = q("MATCH p = (a)-[]->(b) RETURN p AS p0, p IS NULL AS renamed");
        let stale = q("MATCH p = (a)-[]->(b) RETURN null AS p0, p IS NULL AS p0_is_null");
        assert!(super::checks_of(&source, &ok));
        assert!(!super::checks_of(&q("MATCH p = (a)-[]->(b) RETURN null AS p0"), &stale));
        assert!(!super::checks_of(&source, &source));
    }
}

#[cfg(test)]
mod names {
    /// The names are the command line's and `case.json`'s: they never change.
    #[test]
    fn the_rewrites_keep_their_names() {
        let names = [
            "label-to-where",
            "split-match",
            "with-star",
            "optional-keeps-rows",
            "inline-to-where",
            "reverse-direction",
            "tautology",
            "in-to-or",
            "drop-predicate",
            "optional-to-match",
            "null-check",
        ];
        assert_eq!(*super::REWRITES, names);
        assert!(names.iter().all(|n| super::Relation::named(n).is_some_and(|r| r.name() == *n)));
    }
}
