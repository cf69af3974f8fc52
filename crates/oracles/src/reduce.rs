//! Reduction of a finding's query: greedy deletion of clauses, WHERE
//! predicates, RETURN items and UNION parts, keeping every candidate that the
//! independent checker accepts and that the finding's own oracle still judges
//! the same family of wrong answer on the real engines. What a developer reads is then the
//! smallest query graphlancer could find, and its signature dedups better.

use graphlancer_cypher::ast::{Clause, Expr, Query};
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
    /// Reduces a case of one query whose finding has the signature family
    /// `family`. `None` when no smaller query keeps the family.
    pub fn reduce(&mut self, case: &TestCase, family: &Signature) -> Result<Option<Reduced>, EngineError> {
        let [query] = case.queries.as_slice() else { return Ok(None) };
        let mut best: Option<Reduced> = None;
        let mut current = Candidate { query: query.ast.clone(), order_columns: query.order_columns.clone() };
        let mut attempts = 0;
        'improve: loop {
            for cand in candidates(&current) {
                if attempts >= self.budget {
                    break 'improve;
                }
                if result_types(&cand.query, self.judge.schema).is_err() {
                    continue;
                }
                attempts += 1;
                let q = CaseQuery::new(&query.role, cand.query.clone(), cand.order_columns.clone());
                let mut outcomes = Vec::with_capacity(self.engines.len());
                for e in self.engines.iter_mut() {
                    outcomes.push(e.execute(&q.text, self.exec)?);
                }
                let trial = TestCase { relation: case.relation.clone(), queries: vec![q], delta: case.delta };
                let outcomes = vec![outcomes];
                if let Verdict::Finding(f) = self.oracle.judge(self.judge, &trial, &outcomes)
                    && f.signature.family() == *family
                {
                    current = cand;
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

/// Smaller variants of a query, most promising first.
fn candidates(c: &Candidate) -> Vec<Candidate> {
    let mut out = Vec::new();
    let q = &c.query;
    if q.parts.len() > 1 {
        for p in &q.parts {
            out.push(Candidate { query: Query { parts: vec![p.clone()], union_all: false }, order_columns: None });
        }
        return out;
    }
    let Some(part) = q.parts.first() else { return out };
    let n = part.clauses.len();
    // Clauses before the RETURN, last first: later clauses depend on earlier ones.
    for i in (0..n.saturating_sub(1)).rev() {
        let mut p = part.clone();
        p.clauses.remove(i);
        out.push(Candidate {
            query: Query { parts: vec![p], union_all: false },
            order_columns: c.order_columns.clone(),
        });
    }
    for i in 0..n {
        let mut p = part.clone();
        let removed = match &mut p.clauses[i] {
            Clause::Match { predicate, .. } => predicate.take().is_some(),
            Clause::With(proj) => proj.predicate.take().is_some(),
            _ => false,
        };
        if removed {
            out.push(Candidate {
                query: Query { parts: vec![p], union_all: false },
                order_columns: c.order_columns.clone(),
            });
        }
    }
    if let Some(Clause::Return(ret)) = part.clauses.last()
        && ret.items.len() > 1
    {
        for j in 0..ret.items.len() {
            let alias = &ret.items[j].1;
            let ordered = ret.order_by.iter().any(|(e, _)| matches!(e, Expr::Variable(v) if v == alias));
            if ordered {
                continue;
            }
            let mut p = part.clone();
            let Some(Clause::Return(r)) = p.clauses.last_mut() else { continue };
            r.items.remove(j);
            let order = order_of(r);
            out.push(Candidate { query: Query { parts: vec![p], union_all: false }, order_columns: order });
        }
    }
    out
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
