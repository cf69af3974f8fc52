//! Reduction of a finding's query: greedy deletion of clauses, WHERE
//! predicates, RETURN items and UNION parts, keeping every candidate that the
//! independent checker accepts and that the finding's own oracle still judges
//! the same family of wrong answer on the real engines. What a developer reads is then the
//! smallest query graphlancer could find, and its signature dedups better.

use graphlancer_cypher::ast::{Clause, Expr, Query, SingleQuery};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};

use crate::oracle::{CaseQuery, Finding, JudgeCx, Oracle, TestCase, Verdict};
use crate::signature::Signature;

/// A query with what the oracles need to judge it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The AST.
    pub query: Query,
    /// Result columns its ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
}

/// The reduced case and what it showed.
#[derive(Debug, Clone)]
pub struct Reduced {
    /// The smallest case found.
    pub case: TestCase,
    /// Each engine's outcome on its query.
    pub outcomes: Vec<Vec<Outcome>>,
    /// The oracle's finding on it (same family as the original).
    pub finding: Finding,
    /// Candidates run on the engines.
    pub attempts: usize,
}

/// What a reduction runs on.
pub struct Reducer<'a> {
    /// The engines, with the finding's graph loaded.
    pub engines: &'a mut [Box<dyn Engine>],
    /// The oracle that made the finding; it judges every candidate.
    pub oracle: &'a dyn Oracle,
    /// The engines' names and the graph's schema.
    pub judge: &'a JudgeCx<'a>,
    /// Per-query options.
    pub exec: &'a ExecOptions,
    /// At most this many candidates are run.
    pub budget: usize,
}

impl Reducer<'_> {
    /// Reduces a case whose finding has the signature family `family`: a
    /// single query, or a group derived from its first query (the `source`),
    /// where each edit of the source is made to every query of the group
    /// at the clause it came from, and taken only where the derived query
    /// still holds that clause unchanged (so the derivation stays what it
    /// was). `None` when no smaller case keeps the family.
    pub fn reduce(&mut self, case: &TestCase, family: &Signature) -> Result<Option<Reduced>, EngineError> {
        let Some(first) = case.queries.first() else { return Ok(None) };
        if case.queries.len() > 1 && first.role != "source" {
            return Ok(None);
        }
        let mut best: Option<Reduced> = None;
        let mut current: Vec<Candidate> = case
            .queries
            .iter()
            .map(|q| Candidate { query: q.ast.clone(), order_columns: q.order_columns.clone() })
            .collect();
        let mut attempts = 0;
        'improve: loop {
            for edit in edits(&current[0]) {
                if attempts >= self.budget {
                    break 'improve;
                }
                let Some(group) = current.iter().map(|c| apply(&current[0], c, edit)).collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                if group.iter().any(|c| result_types(&c.query, self.judge.schema).is_err()) {
                    continue;
                }
                attempts += 1;
                let queries: Vec<CaseQuery> = case
                    .queries
                    .iter()
                    .zip(&group)
                    .map(|(q, c)| CaseQuery::new(&q.role, c.query.clone(), c.order_columns.clone()))
                    .collect();
                let mut outcomes = Vec::with_capacity(queries.len());
                for q in &queries {
                    let mut per_engine = Vec::with_capacity(self.engines.len());
                    for e in self.engines.iter_mut() {
                        per_engine.push(e.execute(&q.text, self.exec)?);
                    }
                    outcomes.push(per_engine);
                }
                let trial = TestCase { relation: case.relation.clone(), queries, delta: case.delta };
                if let Verdict::Finding(f) = self.oracle.judge(self.judge, &trial, &outcomes)
                    && f.signature.family() == *family
                {
                    current = group;
                    best = Some(Reduced { case: trial, outcomes, finding: f, attempts });
                    continue 'improve;
                }
            }
            break;
        }
        if let Some(b) = &mut best {
            b.attempts = attempts;
        }
        Ok(best)
    }
}

/// One way to make a query smaller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    /// Keep only this UNION part.
    Part(usize),
    /// Remove this clause.
    Clause(usize),
    /// Remove the WHERE of this clause.
    Predicate(usize),
    /// Remove this item of the final RETURN.
    Item(usize),
}

/// The edits of a query, most promising first.
fn edits(c: &Candidate) -> Vec<Edit> {
    let q = &c.query;
    if q.parts.len() > 1 {
        return (0..q.parts.len()).map(Edit::Part).collect();
    }
    let Some(part) = q.parts.first() else { return Vec::new() };
    let n = part.clauses.len();
    // Clauses before the RETURN, last first: later clauses depend on earlier ones.
    let mut out: Vec<Edit> = (0..n.saturating_sub(1)).rev().map(Edit::Clause).collect();
    out.extend((0..n).filter(|&i| predicate_of(&part.clauses[i]).is_some()).map(Edit::Predicate));
    if let Some(Clause::Return(ret)) = part.clauses.last()
        && ret.items.len() > 1
    {
        for (j, (_, alias)) in ret.items.iter().enumerate() {
            // An ORDER BY key stays: the order is part of what is compared.
            if !ret.order_by.iter().any(|(e, _)| matches!(e, Expr::Variable(v) if v == alias)) {
                out.push(Edit::Item(j));
            }
        }
    }
    out
}

fn predicate_of(c: &Clause) -> Option<&Expr> {
    match c {
        Clause::Match { predicate, .. } => predicate.as_ref(),
        Clause::With(p) => p.predicate.as_ref(),
        _ => None,
    }
}

/// `edit`, made on `source`, made on `target` (the source itself or a query
/// derived from it): at the clause of `target` that corresponds to the
/// source's, which must be unchanged. A derived query has the source's
/// clauses, some of them rewritten, and perhaps one clause inserted.
fn apply(source: &Candidate, target: &Candidate, edit: Edit) -> Option<Candidate> {
    let (s, t) = (&source.query, &target.query);
    if let Edit::Part(i) = edit {
        return (s == t).then(|| Candidate {
            query: Query { parts: vec![s.parts[i].clone()], union_all: false },
            order_columns: None,
        });
    }
    let ([sp], [tp]) = (s.parts.as_slice(), t.parts.as_slice()) else { return None };
    let (sc, tc) = (&sp.clauses, &tp.clauses);
    // Where the target inserted a clause, if it did.
    let inserted = match tc.len().checked_sub(sc.len())? {
        0 => None,
        1 => Some((0..sc.len()).find(|&k| tc[k] != sc[k] && tc[k + 1..] == sc[k..]).unwrap_or(sc.len())),
        _ => return None,
    };
    let at = |i: usize| match inserted {
        Some(k) if i >= k => i + 1,
        _ => i,
    };
    let mut clauses = tc.clone();
    let mut order_columns = target.order_columns.clone();
    match edit {
        Edit::Part(_) => unreachable!("handled above"),
        Edit::Clause(i) => {
            if tc[at(i)] != sc[i] {
                return None;
            }
            clauses.remove(at(i));
        }
        Edit::Predicate(i) => {
            if tc[at(i)] != sc[i] {
                return None;
            }
            match &mut clauses[at(i)] {
                Clause::Match { predicate, .. } => *predicate = None,
                Clause::With(p) => p.predicate = None,
                _ => return None,
            }
        }
        Edit::Item(j) => {
            if tc.last() != sc.last() {
                return None;
            }
            let Some(Clause::Return(r)) = clauses.last_mut() else { return None };
            r.items.remove(j);
            order_columns = order_of(r);
        }
    }
    Some(Candidate { query: Query { parts: vec![SingleQuery { clauses }], union_all: t.union_all }, order_columns })
}

/// The result columns a projection's ORDER BY fixes.
fn order_of(p: &graphlancer_cypher::ast::Projection) -> Option<Vec<usize>> {
    (!p.order_by.is_empty()).then(|| {
        p.order_by
            .iter()
            .filter_map(|(e, _)| match e {
                Expr::Variable(v) => p.items.iter().position(|(_, a)| a == v),
                _ => None,
            })
            .collect()
    })
}

/// What computes each result column, e.g. `fn:startNode`, `agg:max`,
/// `var:Rel`; names the differing columns in a signature.
pub fn column_kinds(query: &Query, types: &[Option<graphlancer_cypher::types::Ty>]) -> Vec<String> {
    let Some(Clause::Return(p)) = query.parts.first().and_then(|p| p.clauses.last()) else { return Vec::new() };
    p.items
        .iter()
        .enumerate()
        .map(|(i, (e, _))| match e {
            Expr::Variable(_) => match types.get(i) {
                Some(Some(t)) => format!("var:{t:?}"),
                _ => "var:?".into(),
            },
            Expr::Property(..) => "property".into(),
            Expr::Function(name, _) => format!("fn:{name}"),
            Expr::Aggregate { name, .. } => format!("agg:{name}"),
            Expr::Binary(op, ..) => format!("op:{}", op.text()),
            Expr::Literal(_) => "literal".into(),
            Expr::Not(_) => "not".into(),
            Expr::IsNull { .. } => "isnull".into(),
            Expr::Quantified { .. } => "quantified".into(),
            Expr::ExistsSubquery(..) => "existssubquery".into(),
            Expr::PatternPredicate(_) => "patternpredicate".into(),
            Expr::HasLabels(..) => "haslabels".into(),
            Expr::Negate(_) => "negate".into(),
            Expr::Case { .. } => "case".into(),
            Expr::List(_) => "list".into(),
            Expr::ListComprehension { .. } => "listcomprehension".into(),
            Expr::PatternComprehension { .. } => "patterncomprehension".into(),
            Expr::Index(..) => "index".into(),
            Expr::Slice(..) => "slice".into(),
            Expr::Reduce { .. } => "reduce".into(),
            Expr::Map(_) => "map".into(),
            Expr::MapProjection(..) => "mapprojection".into(),
        })
        .collect()
}

/// The query's clause sequence, e.g. `MATCH,WITH,RETURN`.
pub fn shape(query: &Query) -> String {
    let names: Vec<&str> = query
        .parts
        .iter()
        .flat_map(|p| &p.clauses)
        .map(|c| match c {
            Clause::Match { optional: true, .. } => "OPTIONAL MATCH",
            Clause::Match { .. } => "MATCH",
            Clause::Unwind { .. } => "UNWIND",
            Clause::With(_) => "WITH",
            Clause::Return(_) => "RETURN",
            Clause::Create { .. } => "CREATE",
            Clause::Merge { .. } => "MERGE",
            Clause::Set { .. } => "SET",
            Clause::Remove { .. } => "REMOVE",
            Clause::Delete { .. } => "DELETE",
            Clause::Foreach { .. } => "FOREACH",
            Clause::Call { .. } => "CALL",
        })
        .collect();
    names.join(",")
}
