//! The smallest sub-expression whose value differs between the engines of
//! a reduced finding. A reduced query still holds the expression that
//! observes a wrong value (`size(...)`, `head(...)`, a comparison) besides
//! the one that computes it, and one bug seen through many observers made
//! one report per observer. Probing each child of a differing column on
//! its own, down to the deepest one that still differs, names the bug's
//! expression: its kind and its operands' types become the signature.

use graphlancer_cypher::ast::{Clause, Expr, Projection, Query};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{Engine, EngineError, ExecOptions, Outcome};
use graphlancer_model::{Comparison, ResultSet, RowOrder, Schema, Tolerance, Value, compare};

use crate::oracle::CaseQuery;

/// Probes run at most per finding: each is one query on every engine.
const PROBES: usize = 40;

/// What the probing found.
#[derive(Debug, Clone, PartialEq)]
pub struct Culprit {
    /// Its kind and its operands' types, e.g. `list(Int,Null)`: the signature's key.
    pub kind: String,
    /// Its text.
    pub text: String,
}

/// The deepest sub-expression of a differing RETURN column of `query`
/// whose values (a bag over the rows) still differ between engines `a`
/// and `b`; `None` when the query's shape does not allow probing (paging,
/// `*`, several parts) or no column differs.
pub fn localize(
    engines: &mut [Box<dyn Engine>],
    exec: &ExecOptions,
    schema: &Schema,
    query: &Query,
    answers: (&Outcome, &Outcome),
    pair: (usize, usize),
) -> Result<Option<Culprit>, EngineError> {
    let [part] = query.parts.as_slice() else { return Ok(None) };
    let Some(Clause::Return(ret)) = part.clauses.last() else { return Ok(None) };
    if ret.star || ret.skip.is_some() || ret.limit.is_some() {
        return Ok(None);
    }
    let (Outcome::Rows(x), Outcome::Rows(y)) = answers else { return Ok(None) };
    let Some(column) = (0..ret.items.len()).find(|&j| differs(&column_of(x, j), &column_of(y, j))) else {
        return Ok(None);
    };
    let mut culprit = ret.items[column].0.clone();
    let mut probes = 0;
    'descend: loop {
        let mut children = culprit.clone();
        for child in children.children_mut() {
            if probes >= PROBES {
                break 'descend;
            }
            let Some(probe) = probing(query, child.clone(), schema) else { continue };
            probes += 1;
            let q = CaseQuery::new("probe", probe, None);
            let exec = ExecOptions { language: q.language(), ..*exec };
            let mut answer = |i: usize| -> Result<Option<ResultSet>, EngineError> {
                let engine = &mut engines[i];
                let o = engine.execute_generated(&q.text_for(engine.as_ref()), q.cypher_ast(), &exec)?;
                Ok(match o {
                    Outcome::Rows(r) => Some(r),
                    _ => None,
                })
            };
            if let (Some(x), Some(y)) = (answer(pair.0)?, answer(pair.1)?)
                && differs(&x, &y)
            {
                // Under an aggregate a probe returns the rows it aggregates:
                // when those differ, the rows are wrong, not the expression.
                if x.rows.len() != y.rows.len() {
                    return Ok(None);
                }
                culprit = child.clone();
                continue 'descend;
            }
        }
        break;
    }
    let mut text = String::new();
    graphlancer_cypher::render::expr(&mut text, &culprit);
    Ok(Some(Culprit { kind: kind_with_operands(query, &culprit, schema), text }))
}

/// `query` with its RETURN replaced by `RETURN item`, if the checker
/// accepts it (a child may use a variable only its parent binds).
fn probing(query: &Query, item: Expr, schema: &Schema) -> Option<Query> {
    let probe = returning(query, vec![(item, "x".into())])?;
    result_types(&probe, schema).ok()?;
    Some(probe)
}

/// `query` with its last clause replaced by `RETURN items`.
fn returning(query: &Query, items: Vec<(Expr, String)>) -> Option<Query> {
    let mut q = query.clone();
    *q.parts.first_mut()?.clauses.last_mut()? = Clause::Return(Projection::of(items));
    Some(q)
}

/// The culprit's kind with its operands' types, e.g. `op:+(Float,Int)`:
/// the kind alone would merge unrelated bugs of one operator.
fn kind_with_operands(query: &Query, culprit: &Expr, schema: &Schema) -> String {
    let types = |items: Vec<(Expr, String)>| returning(query, items).and_then(|q| result_types(&q, schema).ok());
    let own = types(vec![(culprit.clone(), "x".into())]).and_then(|t| t.into_iter().next()).flatten();
    let kind = crate::reduce::expr_kind(culprit, own.as_ref());
    let mut operands = culprit.clone();
    let operands: Vec<(Expr, String)> =
        operands.children_mut().into_iter().enumerate().map(|(i, c)| (c.clone(), format!("c{i}"))).collect();
    if operands.is_empty() {
        return kind;
    }
    match types(operands) {
        Some(types) => {
            let names: Vec<String> =
                types.iter().map(|t| t.as_ref().map_or_else(|| "Null".into(), |t| format!("{t:?}"))).collect();
            format!("{kind}({})", names.join(","))
        }
        None => kind,
    }
}

/// Column `j` of `r` alone.
fn column_of(r: &ResultSet, j: usize) -> ResultSet {
    ResultSet::new(
        vec!["x".into()],
        r.rows.iter().map(|row| vec![row.get(j).cloned().unwrap_or(Value::Null)]).collect(),
    )
}

/// Whether two one-column answers differ as bags.
fn differs(a: &ResultSet, b: &ResultSet) -> bool {
    matches!(compare(a, b, &RowOrder::Bag, Tolerance::default()), Comparison::Differ(_))
}
