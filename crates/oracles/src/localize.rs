//! The smallest sub-expression whose value differs between the engines of
//! a reduced finding. A reduced query still holds the expression that
//! observes a wrong value (`size(...)`, `head(...)`, a comparison) besides
//! the one that computes it, and one bug seen through many observers made
//! one report per observer. Probing each child of a differing column on
//! its own, down to the deepest one that still differs, names the bug's
//! expression: its kind and its operands' types become the signature.
//!
//! Different numbers of rows are localized the same way from the
//! expressions that decide rows: each WHERE and UNWIND list, in order, is
//! returned on its own over the rows that reach it; the first whose values
//! differ (with the same rows reaching it) is descended into.

use columns::{
    binds, column_of, computed_by, entity_as_number, grouping, key_class, kind_with_operands, named, oriented,
    repeats_keys,
};
use graphlancer_cypher::ast::{
    Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, RelPattern, SingleQuery,
};
use graphlancer_cypher::check::result_types;
use graphlancer_cypher::types::Ty;
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::{ResultSet, Schema, Value};

use crate::culprit::Culprit as Kind;
use crate::oracle::CaseQuery;
pub(crate) use columns::{differs, returning};

mod columns;
mod distinct;

pub use columns::Culprit;

/// Probes run at most per finding: each is one query on every engine.
const PROBES: usize = 40;

/// How many edits of the clause whose rows differ are tried.
const NEEDS: usize = 8;

/// Where the wrong answer shows, for [`localize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symptom {
    /// The same rows, different values in some column.
    Values,
    /// Different numbers of rows.
    RowCount,
}

/// The deepest sub-expression of `query` whose values (a bag over the rows
/// that reach it) differ between engines `pair.0` and `pair.1`, starting
/// from a differing RETURN column ([`Symptom::Values`]) or from the
/// expressions that decide rows ([`Symptom::RowCount`]); `None` when the
/// query's shape does not allow probing (paging, `*`) or no probe differs.
/// A UNION is localized by its first part whose own answers differ.
///
/// Two rows with equal keys out of one grouping are wrong on their face,
/// whichever keys came along (Kuzu's null path from an OPTIONAL MATCH
/// splits its group now and then, beside whatever other keys the reducer
/// could not take away): such a grouping is named by that alone.
pub fn localize(
    engines: &mut [Box<dyn Engine>],
    exec: &ExecOptions,
    schema: &Schema,
    query: &Query,
    answers: (&Outcome, &Outcome),
    pair: (usize, usize),
    symptom: Symptom,
) -> Result<Option<Culprit>, EngineError> {
    let culprit = localize_query(engines, exec, schema, query, answers, pair, symptom)?;
    Ok(culprit.map(|c| {
        let repeated = [answers.0, answers.1].into_iter().any(|o| repeats_keys(query, o));
        if c.kind.is_grouping() && repeated { Culprit { kind: Kind::RepeatedKeys, ..c } } else { c }
    }))
}

/// [`localize`] without naming repeated keys.
fn localize_query(
    engines: &mut [Box<dyn Engine>],
    exec: &ExecOptions,
    schema: &Schema,
    query: &Query,
    answers: (&Outcome, &Outcome),
    pair: (usize, usize),
    symptom: Symptom,
) -> Result<Option<Culprit>, EngineError> {
    if query.parts.len() > 1 {
        return localize_union(engines, exec, schema, query, pair);
    }
    let [part] = query.parts.as_slice() else { return Ok(None) };
    let Some((Clause::Return(ret), before)) = part.clauses.split_last() else { return Ok(None) };
    let mut prober = Prober { engines, exec, schema, pair, probes: 0, differing: None };
    if ret.star {
        // `*` named: the columns are the variables in scope, by name, where
        // the checker's scope is what the engine returned (after a DELETE
        // the checker has no entities, the engines still return them).
        let Ok(names) = graphlancer_cypher::check::scope(before, schema) else { return Ok(None) };
        let Outcome::Rows(x) = answers.0 else { return Ok(None) };
        let mut columns = x.columns.clone();
        columns.sort();
        if names != columns {
            return Ok(None);
        }
        let mut named = ret.clone();
        named.star = false;
        named.items = names.into_iter().map(|v| (Expr::var(&v), v)).collect();
        let mut clauses = before.to_vec();
        clauses.push(Clause::Return(named));
        let alone = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() };
        let Some((x, y, symptom)) = prober.difference(&alone)? else { return Ok(None) };
        return localize_query(engines, exec, schema, &alone, (&Outcome::Rows(x), &Outcome::Rows(y)), pair, symptom);
    }
    if let Some(c) = prober.pipelined(&part.clauses, answers)? {
        return Ok(Some(c));
    }
    if ret.skip.is_some() || ret.limit.is_some() {
        return Ok(None);
    }
    // The first column whose values differ, for different values.
    let differing = match answers {
        (Outcome::Rows(x), Outcome::Rows(y)) if symptom == Symptom::Values => {
            (0..ret.items.len()).find(|&j| differs(&column_of(x, j), &column_of(y, j))).map(|j| (x, y, j))
        }
        _ => None,
    };
    let keep = differing.map(|(_, _, j)| j);
    if distinct::mixes_distinct(&part.clauses)
        && (symptom == Symptom::RowCount || keep.is_some())
        && let Some(c) = prober.beside_distinct(&part.clauses, keep)?
    {
        return Ok(Some(c));
    }
    let starts = match symptom {
        Symptom::Values => {
            let Some((x, y, j)) = differing else { return Ok(None) };
            let prefix = part.clauses[..part.clauses.len() - 1].to_vec();
            prober.differing = Some((column_of(x, j), column_of(y, j)));
            return match prober.descend(prefix, ret.items[j].0.clone())? {
                Found::Culprit(c) => Ok(Some(c)),
                Found::Rows => prober.rows(&part.clauses),
            };
        }
        Symptom::RowCount => deciders(&part.clauses),
    };
    for (prefix, expr, predicate) in starts {
        // A predicate's null and false drop the same rows. Kuzu 0.1.0 has
        // no `coalesce`: its `'b' ENDS WITH ''` in a WITH's WHERE went
        // unprobed and was named by its rows, apart from the same `ENDS
        // WITH` in a RETURN; a CASE says the same there.
        let mut shown = if predicate {
            prober
                .probe(&prefix, Expr::Function("coalesce".into(), vec![expr.clone(), Expr::lit(Value::Bool(false))]))?
        } else {
            prober.probe(&prefix, expr.clone())?
        };
        if predicate && matches!(shown, Probe::Unanswered) {
            let case = Expr::Case {
                subject: None,
                branches: vec![(expr.clone(), Expr::lit(Value::Bool(true)))],
                otherwise: Some(Box::new(Expr::lit(Value::Bool(false)))),
            };
            shown = prober.probe(&prefix, case)?;
        }
        match shown {
            Probe::Differs => {
                return match prober.descend(prefix, expr)? {
                    Found::Culprit(c) => Ok(Some(c)),
                    Found::Rows => prober.rows(&part.clauses),
                };
            }
            // Rows differ before this clause: an earlier one decided them.
            Probe::RowsDiffer => break,
            Probe::Same | Probe::Unanswered => {}
        }
    }
    prober.rows(&part.clauses)
}

/// A UNION whose parts alone show nothing (UNION's merging of rows hides
/// or shows the difference): the first part whose own answers differ
/// between the engines is localized as a query of its own.
fn localize_union(
    engines: &mut [Box<dyn Engine>],
    exec: &ExecOptions,
    schema: &Schema,
    query: &Query,
    pair: (usize, usize),
) -> Result<Option<Culprit>, EngineError> {
    for part in &query.parts {
        let alone = Query { parts: vec![part.clone()], union_all: false, spelling: Default::default() };
        if result_types(&alone, schema).is_err() {
            continue;
        }
        let mut prober = Prober { engines: &mut *engines, exec, schema, pair, probes: 0, differing: None };
        let Some((x, y, symptom)) = prober.difference(&alone)? else { continue };
        return localize_query(engines, exec, schema, &alone, (&Outcome::Rows(x), &Outcome::Rows(y)), pair, symptom);
    }
    // No part differs alone: the UNION's own merging of equal rows is what
    // differs, a DISTINCT over the parts' columns, named as [`keys`] names
    // a DISTINCT's: by the classes of what its parts compute, constants
    // left out (a `RETURN 0 AS a0` part beside paths merges paths all the
    // same).
    if query.union_all {
        return Ok(None);
    }
    let mut named: Vec<&str> = Vec::new();
    for part in &query.parts {
        let Some((Clause::Return(r), before)) = part.clauses.split_last() else { return Ok(None) };
        named.extend(r.items.iter().filter(|(e, _)| !constant(e)).map(|(e, _)| key_class(before, e, schema)));
    }
    named.sort_unstable();
    named.dedup();
    if named.is_empty() {
        named.push("constant");
    }
    Ok(Some(Culprit {
        kind: Kind::Grouping { with: Vec::new(), keys: named.join(";") },
        text: graphlancer_cypher::render(query),
    }))
}

/// Grouping or DISTINCT keys by their classes ([`key_class`]), each once,
/// `;` between them. Their values agreed (a key whose values differ is
/// named by descent), so what is wrong is how the keys were hashed and
/// compared, which their classes decide, not the expressions that compute
/// them: Kuzu's groups keyed on relationships came as `var:Rel`,
/// `var:Float;var:Rel`, `var:Rel;op:^(Float,Int)`, ... A key that reads no
/// variable is the same on every row and changes no group: it is left out,
/// and keys that are all such are `constant` whatever their form (Kuzu
/// 0.11.3's DISTINCT over constant keys showed as `literal(Int)`,
/// `literal(Float)` and `op:*(Int,Int)`: one bug).
fn keys<'e>(before: &[Clause], keys: impl Iterator<Item = &'e Expr>, schema: &Schema) -> String {
    let keys: Vec<&Expr> = keys.collect();
    let mut classes: Vec<&str> = keys.iter().filter(|e| !constant(e)).map(|e| key_class(before, e, schema)).collect();
    if classes.is_empty() && !keys.is_empty() {
        return "constant".into();
    }
    classes.sort_unstable();
    classes.dedup();
    classes.join(";")
}

/// Whether `e` reads nothing of a row: no variable, no pattern.
pub(crate) fn constant(e: &Expr) -> bool {
    let mut reads = false;
    e.walk(&mut |x| {
        reads |= matches!(
            x,
            Expr::Variable(_)
                | Expr::PatternPredicate(_)
                | Expr::ExistsSubquery(..)
                | Expr::PatternComprehension { .. }
                | Expr::ShortestPath(_)
                | Expr::HasLabels(..)
                | Expr::MapProjection(..)
                | Expr::MapProjectionWith { .. }
        );
    });
    !reads
}

/// What a descent found.
enum Found {
    /// The deepest differing sub-expression.
    Culprit(Culprit),
    /// Different rows reach the expression: the clauses before it are wrong.
    Rows,
}

/// Every expression that decides which rows go on, with the clauses that
/// produce the rows it sees (its probe returns it after them) and whether
/// it is a predicate: MATCH and WITH predicates, UNWIND lists.
fn deciders(clauses: &[Clause]) -> Vec<(Vec<Clause>, Expr, bool)> {
    let mut out = Vec::new();
    for (i, c) in clauses.iter().enumerate() {
        let mut prefix = clauses[..i].to_vec();
        match c {
            Clause::Match { optional: false, patterns, guard, predicate: Some(p) } => {
                let (patterns, guard) = (patterns.clone(), guard.clone());
                prefix.push(Clause::Match { optional: false, patterns, guard, predicate: None });
                out.push((prefix, p.clone(), true));
            }
            Clause::With(proj) if proj.predicate.is_some() && !proj.star => {
                let mut open = proj.clone();
                let p = open.predicate.take();
                prefix.push(Clause::With(open));
                out.extend(p.map(|p| (prefix, p, true)));
            }
            Clause::Unwind { list, .. } => out.push((prefix, list.clone(), false)),
            // Grouping keys and DISTINCT decide rows too: each key's values
            // over the rows before the projection.
            Clause::With(proj) | Clause::Return(proj)
                if proj.distinct || proj.items.iter().any(|(e, _)| e.has_aggregate()) =>
            {
                let keys = proj.items.iter().filter(|(e, _)| !e.has_aggregate());
                out.extend(keys.map(|(e, _)| (prefix.clone(), e.clone(), false)));
            }
            _ => {}
        }
    }
    out
}

/// What one probe showed.
enum Probe {
    /// Both engines answered the same rows with different values.
    Differs,
    /// Both answered, with different numbers of rows.
    RowsDiffer,
    /// Both answered alike.
    Same,
    /// The checker refused the probe, or an engine did not answer it.
    Unanswered,
}

/// Runs probes on a pair of engines.
struct Prober<'a, 'e> {
    engines: &'a mut [Box<dyn Engine + 'e>],
    exec: &'a ExecOptions,
    schema: &'a Schema,
    pair: (usize, usize),
    probes: usize,
    /// The answers of the last probe that differed (or of the column a
    /// descent starts from): the culprit's own values when it ends.
    differing: Option<(ResultSet, ResultSet)>,
}

impl Prober<'_, '_> {
    /// `prefix` followed by `RETURN item`, on both engines.
    fn probe(&mut self, prefix: &[Clause], item: Expr) -> Result<Probe, EngineError> {
        let mut clauses = prefix.to_vec();
        clauses.push(Clause::Return(Projection::of(vec![(item, "x".into())])));
        let query = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() };
        if self.probes >= PROBES || result_types(&query, self.schema).is_err() {
            return Ok(Probe::Unanswered);
        }
        self.probes += 1;
        Ok(match self.answers(query)? {
            Some((x, y)) if x.rows.len() != y.rows.len() => Probe::RowsDiffer,
            Some((x, y)) if differs(&x, &y) => {
                self.differing = Some((x, y));
                Probe::Differs
            }
            Some(_) => Probe::Same,
            None => Probe::Unanswered,
        })
    }

    /// `query`'s rows on both engines and how they differ; none where they
    /// do not, or where either engine answers otherwise.
    fn difference(&mut self, query: &Query) -> Result<Option<(ResultSet, ResultSet, Symptom)>, EngineError> {
        let Some((x, y)) = self.answers(query.clone())? else { return Ok(None) };
        let symptom = if x.rows.len() != y.rows.len() {
            Symptom::RowCount
        } else if differs(&x, &y) {
            Symptom::Values
        } else {
            return Ok(None);
        };
        Ok(Some((x, y, symptom)))
    }

    /// For a query that writes: whether the engines answer alike once every
    /// write sees all the rows before it and passes all of its own on
    /// together (a grouping barrier around each write, which keeps the rows
    /// as a bag), and still differ with a plain WITH in the same places (a
    /// WITH between two writes alone changes some engines' answers: FalkorDB
    /// runs adjacent writes as one). Where they do, what differs is which
    /// rows a write sees while later rows are still coming (a clause must see
    /// every row of the one before it), whichever write and which read show
    /// it: one name, with the engines whose answers the barriers changed.
    fn pipelined(&mut self, clauses: &[Clause], answers: (&Outcome, &Outcome)) -> Result<Option<Culprit>, EngineError> {
        let (Outcome::Rows(_), Outcome::Rows(_)) = answers else { return Ok(None) };
        if !clauses.iter().any(Clause::is_write) || self.probes + 2 > PROBES {
            return Ok(None);
        }
        let unlike = |a: &ResultSet, b: &ResultSet| a.rows.len() != b.rows.len() || differs(a, b);
        let Some(plain) = self.around_writes(clauses, false) else { return Ok(None) };
        self.probes += 1;
        let Some((px, py)) = self.answers(plain)?.filter(|(px, py)| unlike(px, py)) else { return Ok(None) };
        let Some(barred) = self.around_writes(clauses, true) else { return Ok(None) };
        self.probes += 1;
        let Some((bx, by)) = self.answers(barred.clone())? else { return Ok(None) };
        if unlike(&bx, &by) {
            return Ok(None);
        }
        // Against the plain WITH's answers: an engine whose answer a WITH
        // alone changed is not one the barrier moved.
        let moved: Vec<&str> = [(&px, &bx, self.pair.0), (&py, &by, self.pair.1)]
            .into_iter()
            .filter(|(was, now, _)| unlike(was, now))
            .map(|(_, _, i)| self.engines[i].name())
            .collect();
        if moved.is_empty() {
            return Ok(None);
        }
        Ok(Some(Culprit {
            kind: Kind::PipelinedWrites(moved.iter().map(|e| e.to_string()).collect()),
            text: graphlancer_cypher::render(&barred),
        }))
    }

    /// `clauses` with `WITH <in scope>, count(*) AS gl_n UNWIND range(1,
    /// gl_n) AS gl_i WITH <in scope>` before and after each write, which
    /// passes no row on before all have arrived (with `grouping`), or the
    /// same clauses with `1 AS gl_n`, which group nothing. None where the
    /// checker refuses the result.
    fn around_writes(&self, clauses: &[Clause], grouping: bool) -> Option<Query> {
        let mut out: Vec<Clause> = Vec::new();
        for (i, clause) in clauses.iter().enumerate() {
            if i > 0 && (clause.is_write() || clauses[i - 1].is_write()) {
                let scope = graphlancer_cypher::check::scope(&out, self.schema).ok()?;
                let kept: Vec<(Expr, String)> =
                    scope.into_iter().filter(|v| !v.starts_with("gl_")).map(|v| (Expr::var(&v), v)).collect();
                // The plain form has the same clauses, with `1` for the count:
                // only the grouping differs between the two.
                let mut grouped = kept.clone();
                let count = if grouping { Expr::count_star() } else { Expr::lit(Value::Int(1)) };
                grouped.push((count, "gl_n".into()));
                out.push(Clause::With(Projection::of(grouped)));
                let counted = Expr::Function("range".into(), vec![Expr::lit(Value::Int(1)), Expr::var("gl_n")]);
                out.push(Clause::Unwind { list: counted, alias: "gl_i".into() });
                if !kept.is_empty() {
                    out.push(Clause::With(Projection::of(kept)));
                }
            }
            out.push(clause.clone());
        }
        let query = Query { parts: vec![SingleQuery { clauses: out }], union_all: false, spelling: Default::default() };
        result_types(&query, self.schema).is_ok().then_some(query)
    }

    /// Where a projection holds a DISTINCT aggregate beside plain ones: the
    /// query with every aggregate plain but column `keep`'s (all of them
    /// for different rows), named [`distinct::BESIDE_DISTINCT`] where the
    /// engines then agree on that column (or on the number of rows).
    fn beside_distinct(&mut self, clauses: &[Clause], keep: Option<usize>) -> Result<Option<Culprit>, EngineError> {
        let Some(Clause::Return(ret)) = clauses.last() else { return Ok(None) };
        if keep.is_some_and(|j| distinct::has_distinct(&ret.items[j].0)) || self.probes >= PROBES {
            return Ok(None);
        }
        let clauses = distinct::without_distinct(clauses, keep);
        let query = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() };
        if result_types(&query, self.schema).is_err() {
            return Ok(None);
        }
        self.probes += 1;
        let Some((x, y)) = self.answers(query.clone())? else { return Ok(None) };
        // No rows on either side agree on nothing: the plain query lost them.
        // Different rows agree only as a whole answer.
        let agree = x.rows.len() == y.rows.len()
            && !x.rows.is_empty()
            && match keep {
                Some(j) => !differs(&column_of(&x, j), &column_of(&y, j)),
                None => !differs(&x, &y),
            };
        Ok(agree.then(|| Culprit {
            kind: Kind::Value(distinct::BESIDE_DISTINCT.into()),
            text: graphlancer_cypher::render(&query),
        }))
    }

    /// `query`'s rows on both engines; none where either answers otherwise.
    fn answers(&mut self, query: Query) -> Result<Option<(ResultSet, ResultSet)>, EngineError> {
        let q = CaseQuery::new("probe", query, None);
        let exec = ExecOptions { language: q.language(), ..*self.exec };
        let mut answer = |i: usize| -> Result<Option<ResultSet>, EngineError> {
            let engine = &mut self.engines[i];
            Ok(match q.run_on(engine.as_mut(), &exec)? {
                Outcome::Rows(r) => Some(r),
                _ => None,
            })
        };
        let (a, b) = (answer(self.pair.0)?, answer(self.pair.1)?);
        Ok(a.zip(b))
    }

    /// The first clause after which the engines hold different numbers of
    /// rows: the clause that makes wrong rows, whatever later clauses
    /// observed them, named by its own shape (and a projection's grouping
    /// keys by their kinds). Where a WITH or the final RETURN groups by entities,
    /// rows that bind one entity on one engine and several alike on the
    /// other count too (the same number of rows makes different groups).
    /// When the rows part only at a grouping or DISTINCT final RETURN, that
    /// RETURN is named; otherwise none.
    fn rows(&mut self, clauses: &[Clause]) -> Result<Option<Culprit>, EngineError> {
        let whole = || Query {
            parts: vec![SingleQuery { clauses: clauses.to_vec() }],
            union_all: false,
            spelling: Default::default(),
        };
        // Nodes and relationships only: a path's distinctness is a value's,
        // which a wrong DISTINCT of paths gets wrong itself. The keys of
        // every grouping WITH or RETURN count: one MERGE binding two rows'
        // ends to one node groups them as one, wherever the grouping is.
        let mut entity_keys: Vec<Expr> = Vec::new();
        for (i, clause) in clauses.iter().enumerate() {
            let (Clause::With(p) | Clause::Return(p)) = clause else { continue };
            if !grouping(p) {
                continue;
            }
            for (e, _) in &p.items {
                let Expr::Variable(v) = e else { continue };
                let typed = result_types(&returning(&clauses[..i], vec![(e.clone(), v.clone())]), self.schema);
                if matches!(typed.as_deref(), Ok([Some(Ty::Node | Ty::Rel)])) {
                    entity_keys.push(Expr::aggregate("count", true, e.clone()));
                }
            }
        }
        for end in 1..clauses.len() {
            let prefix = &clauses[..end];
            let mut parted = matches!(self.probe(prefix, Expr::lit(Value::Int(0)))?, Probe::RowsDiffer);
            for key in &entity_keys {
                if parted {
                    break;
                }
                parted = matches!(self.probe(prefix, key.clone())?, Probe::Differs);
            }
            if parted {
                return self.after_writes(prefix).map(Some);
            }
        }
        match clauses.split_last() {
            Some((Clause::Return(r), before)) if grouping(r) => {
                // Probed as a WITH, which a RETURN 0 can follow.
                let Clause::With(needed) = self.needs(before, Clause::With(r.clone()))? else { unreachable!() };
                let kind = Self::rows_after(self.schema, before, &Clause::Return(needed));
                Ok(Some(Culprit { kind, text: graphlancer_cypher::render(&whole()) }))
            }
            _ => Ok(None),
        }
    }

    /// The culprit for rows that first part after the last clause of
    /// `prefix`. A read after writes either sees a graph the writes made
    /// differently, and the first write after which the engines hold
    /// different numbers of nodes or relationships is named, or the same
    /// graph, and the read misses writes: named as a read after writes, as
    /// which read and pattern show a missed write is the engine's plan, not
    /// the bug.
    fn after_writes(&mut self, prefix: &[Clause]) -> Result<Culprit, EngineError> {
        let (last, before) = prefix.split_last().expect("a clause");
        if let Some(filter) = self.filter(before, last)? {
            return Ok(named(prefix, filter));
        }
        if !matches!(last, Clause::Match { .. }) || !before.iter().any(Clause::is_write) {
            let last = self.needs(before, last.clone())?;
            let mut prefix = before.to_vec();
            prefix.push(last);
            let (last, before) = prefix.split_last().expect("a clause");
            return Ok(named(&prefix, Self::rows_after(self.schema, before, last)));
        }
        if let Some(c) = self.differing_write(before)? {
            return Ok(c);
        }
        // Which kind of read misses the write is the engine's plan's choice
        // (Grafeo misses writes in MATCH and OPTIONAL MATCH alike): one name.
        Ok(named(prefix, Kind::ReadAfterWrites))
    }

    /// For a MATCH whose rows differ only with its WHERE: the filter, named
    /// apart from the pattern it filters (Kuzu 0.1.0 ignoring a constant
    /// false WHERE made one report per pattern shape, 15 for one bug). The
    /// predicate's values agreed (a differing one is named by descent
    /// first), so what differs is which rows it lets through.
    fn filter(&mut self, before: &[Clause], last: &Clause) -> Result<Option<Kind>, EngineError> {
        let Clause::Match { optional, patterns, guard, predicate: Some(p) } = last else { return Ok(None) };
        let mut open = before.to_vec();
        open.push(Clause::Match {
            optional: *optional,
            patterns: patterns.clone(),
            guard: guard.clone(),
            predicate: None,
        });
        if !matches!(self.probe(&open, Expr::lit(Value::Int(0)))?, Probe::Same) {
            return Ok(None);
        }
        let of = if constant(p) { "WHERE,constant" } else { "WHERE" };
        Ok(Some(Kind::RowsAfter(of.into())))
    }

    /// The clause whose rows first differ, without what the difference
    /// does not need: each edit that changes its shape (its WHERE, OPTIONAL,
    /// a comma part, a hop, a direction, a path name, a property map, a
    /// grouping key) is kept where the rows after it still differ in
    /// number. What is left names the rows, so the parts of a pattern
    /// around one wrong operation do not make one report each (Kuzu
    /// 0.1.0's wrong matches of type alternatives came as seven names).
    fn needs(&mut self, before: &[Clause], clause: Clause) -> Result<Clause, EngineError> {
        // A grouping that stops grouping is another operation.
        let grouped = |c: &Clause| matches!(c, Clause::With(p) if grouping(p));
        let was = grouped(&clause);
        let schema = self.schema;
        let name = |c: &Clause| Self::rows_after(schema, before, c).to_string();
        crate::edit::least_clause(before, clause, NEEDS, name, |_, changed| {
            if grouped(changed) != was {
                return Ok(None);
            }
            let mut prefix = before.to_vec();
            prefix.push(changed.clone());
            Ok(Some(matches!(self.probe(&prefix, Expr::lit(Value::Int(0)))?, Probe::RowsDiffer)))
        })
    }

    /// The first write of `clauses` after which the engines hold different
    /// numbers of nodes or relationships, named as the rows after it.
    fn differing_write(&mut self, clauses: &[Clause]) -> Result<Option<Culprit>, EngineError> {
        for w in (0..clauses.len()).filter(|&i| clauses[i].is_write()) {
            if self.graph_differs(&clauses[..=w])? {
                return Ok(Some(named(&clauses[..=w], Self::rows_after(self.schema, &clauses[..w], &clauses[w]))));
            }
        }
        Ok(None)
    }

    /// Whether the engines hold different numbers of nodes or of
    /// relationships after `prefix` (which ends in a write). Counted by a
    /// plain MATCH: an OPTIONAL MATCH after a write is where engines here
    /// miss writes (Grafeo), which would blame the write for the read.
    fn graph_differs(&mut self, prefix: &[Clause]) -> Result<bool, EngineError> {
        let node =
            |v: Option<&str>| NodePattern { variable: v.map(Into::into), labels: Vec::new(), properties: Vec::new() };
        let rel = RelPattern {
            variable: Some("gl_y".into()),
            types: Vec::new(),
            direction: Direction::Out,
            length: None,
            properties: Vec::new(),
        };
        let counted = |name: &str| Expr::aggregate("count", true, Expr::var(name));
        let patterns = [
            (PathPattern { name: None, start: node(Some("gl_x")), hops: Vec::new() }, "gl_x"),
            (PathPattern { name: None, start: node(None), hops: vec![(rel, node(None))] }, "gl_y"),
        ];
        for (pattern, name) in patterns {
            let mut clauses = prefix.to_vec();
            clauses.push(Clause::With(Projection::of(vec![(Expr::count_star(), "gl_c".into())])));
            clauses.push(Clause::Match { optional: false, patterns: vec![pattern], guard: None, predicate: None });
            if let Probe::Differs = self.probe(&clauses, counted(name))? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A clause's shape, and a grouping or DISTINCT projection's keys by
    /// their kinds.
    ///
    /// Where one operation can be written several ways, the ways are one
    /// name, so that one bug makes one report: a DISTINCT that merges rows
    /// is named the same in a WITH, a RETURN or (for its parts) a UNION, and
    /// a SET of properties the same whichever form sets them, a MERGE the
    /// same whatever its pattern.
    fn rows_after(schema: &Schema, before: &[Clause], clause: &Clause) -> Kind {
        let shape = crate::constructs::clause_shape(clause);
        Kind::RowsAfter(match clause {
            // Rows merged by their keys, by a DISTINCT or by aggregates'
            // grouping, in a WITH or the final RETURN: one operation (keys
            // hashed and compared), named by the keys' kinds; what else the
            // projection does (ORDER BY, SKIP, LIMIT, WHERE) stays.
            Clause::With(p) | Clause::Return(p) if grouping(p) => {
                let grouped = p.items.iter().map(|(e, _)| e).filter(|e| !e.has_aggregate());
                let keys = keys(before, grouped, schema);
                let rest = shape.split(',').filter(|c| !matches!(*c, "WITH" | "RETURN" | "DISTINCT"));
                return Kind::Grouping { with: rest.map(str::to_owned).collect(), keys };
            }
            // Which pattern a MERGE matches is the query's; how MERGE binds
            // and creates is the bug (its ON CREATE and ON MATCH stay).
            Clause::Merge { .. } => {
                shape.split(',').filter(|c| !c.starts_with("pattern:")).collect::<Vec<_>>().join(",")
            }
            Clause::Set { .. } => {
                let mut parts: Vec<&str> = shape
                    .split(',')
                    .map(|c| if matches!(c, "SET property" | "SET +=" | "SET =") { "SET properties" } else { c })
                    .collect();
                parts.sort_unstable();
                parts.dedup();
                parts.join(",")
            }
            _ => shape,
        })
    }

    /// From `start`, whose values differ after `prefix`, down to the
    /// deepest child that still differs.
    fn descend(&mut self, mut prefix: Vec<Clause>, start: Expr) -> Result<Found, EngineError> {
        let mut culprit = start;
        'descend: loop {
            let mut children = culprit.clone();
            for child in children.children_mut() {
                // Which of several shortest paths comes back is the
                // engine's choice: only what is computed from it is compared.
                if matches!(child, Expr::ShortestPath(_)) {
                    continue;
                }
                match self.probe(&prefix, child.clone())? {
                    Probe::Differs => {
                        culprit = child.clone();
                        continue 'descend;
                    }
                    // Under an aggregate a probe returns the rows it
                    // aggregates: when those differ, the rows are wrong,
                    // not the expression.
                    Probe::RowsDiffer => return Ok(Found::Rows),
                    Probe::Same | Probe::Unanswered => {}
                }
            }
            // A variable an earlier WITH computed: its expression there,
            // over the rows before that WITH.
            if let Some((before, computed)) = computed_by(&prefix, &culprit)
                && let Probe::Differs = self.probe(&before, computed.clone())?
            {
                prefix = before;
                culprit = computed;
                continue 'descend;
            }
            break;
        }
        if let Expr::Variable(name) = &culprit {
            // A variable a MERGE introduced, different on the two engines:
            // the MERGE matched or created differently, whichever entity
            // shows it.
            if let Some(at) = prefix.iter().position(|c| binds(c, name))
                && matches!(prefix[at], Clause::Merge { .. })
            {
                return self.after_writes(&prefix[..=at]).map(Found::Culprit);
            }
            // A variable a MATCH bound, null on one engine and an entity on
            // the other (the pattern matched differently), or bound after
            // writes (in graphs the writes made differently, or in the same
            // graph read differently): the clause that bound it is named as
            // rows are. (Different properties or labels of the same entity,
            // with no write before, stay the variable's.)
            if let Some(at) = prefix.iter().rposition(|c| matches!(c, Clause::Match { .. }) && binds(c, name))
                && (matches!(
                    self.probe(&prefix, Expr::IsNull { expr: Box::new(culprit.clone()), negated: false })?,
                    Probe::Differs
                ) || prefix[..at].iter().any(Clause::is_write))
            {
                return self.after_writes(&prefix[..=at]).map(Found::Culprit);
            }
        }
        // An aggregate none of whose operands differs (`count(*)`) counts
        // rows: where those differ, the rows are wrong, not the aggregate.
        if matches!(culprit, Expr::Aggregate { .. })
            && let Probe::RowsDiffer = self.probe(&prefix, Expr::lit(Value::Int(0)))?
        {
            return Ok(Found::Rows);
        }
        let mut text = String::new();
        graphlancer_cypher::render::expr_into(&mut text, &culprit);
        // Relationships, alone or in paths or lists, that differ only in
        // which end is the start: one bug (an undirected match reporting
        // traversal order) whichever value shows it.
        if matches!(culprit, Expr::Variable(_) | Expr::List(_))
            && let Some((x, y)) = &self.differing
            && !differs(&oriented(x), &oriented(y))
        {
            return Ok(Found::Culprit(Culprit { kind: Kind::RelEndpoints, text }));
        }
        // A node or relationship on one engine where the other has a number
        // (Grafeo's internal id for an entity an expression computed): one
        // bug whichever list, aggregate or function computed the entity.
        if let Some((x, y)) = &self.differing
            && let Some(side) = entity_as_number(x, y)
        {
            let engine = self.engines[if side == 0 { self.pair.0 } else { self.pair.1 }].name();
            return Ok(Found::Culprit(Culprit { kind: Kind::EntityAsNumber(engine.to_string()), text }));
        }
        Ok(Found::Culprit(Culprit { kind: Kind::Value(kind_with_operands(&prefix, &culprit, self.schema)), text }))
    }
}

#[cfg(test)]
mod tests;
