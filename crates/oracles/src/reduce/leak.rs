//! A wrong value an operation gives only among other rows: the same
//! operation on the same operand values is right once they are literals.
//!
//! [`Reducer::null_operand`] names a NULL that reaches other rows by
//! pinning the operand non-null with `coalesce`. Kuzu 0.1.0 has no
//! `coalesce`, and its NULL mark corrupts any expression over a property
//! column that holds NULLs (a CASE or an IS NULL that would pin it too), so
//! one bug came as six names: `isnull(Float)`, `case(String)`,
//! `case(Int)`, `op:>(Int,Int)`, `op:+(Int,Int)`, `isnull(Int)`. Here the
//! evidence is the operation itself: on one row both engines read the same
//! operands and part on its value, and the engine that parts gives the
//! other's value once those operands are literals, while some row's
//! operand is NULL (its own: `NULL IS NULL` false; or another's: `25.91 IS
//! NOT NULL` false).

use graphlancer_cypher::ast::{Clause, Expr, Query};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{EngineError, Outcome};
use graphlancer_model::{ResultSet, Tolerance, Value, compare::values_match};

use super::name::{LEAKS, name_null_operand, read_clauses};
use super::{Reducer, Run, State, outcomes};
use crate::edit::slots;
use crate::localize::returning;
use crate::oracle::CaseQuery;

impl Reducer<'_> {
    /// Names the finding `null-operand:across rows` where some operation of
    /// `ast`, outermost first, shows such a row.
    pub(super) fn leak_by_literals(
        &mut self,
        state: &mut State,
        run: &mut Run<'_>,
        ast: &Query,
    ) -> Result<(), EngineError> {
        let Some((a, b)) = self.pair(&run.family.engines) else { return Ok(()) };
        // Each operation is a probe of the query's rows on both engines: a
        // few, outermost first, where the differing value usually is.
        for Operation { operation, prefix, context } in read_operations(ast).into_iter().take(LEAK_OPERATIONS) {
            if run.spent() {
                return Ok(());
            }
            let mut operands: Vec<Expr> = Vec::new();
            for c in operation.children() {
                // Kuzu 0.1.0 refuses a projection that holds one expression twice.
                if !matches!(c, Expr::Literal(_)) && !operands.contains(c) {
                    operands.push(c.clone());
                }
            }
            // The projection's other items stay: Kuzu 0.1.0 gave `0 > r.k0`
            // NULL for `r.k0 = 1` beside the row's nodes, right without them.
            let mut items: Vec<(Expr, String)> =
                context.into_iter().filter(|(e, _)| *e != operation && !operands.contains(e)).collect();
            let kept = items.len();
            items.extend(operands.iter().enumerate().map(|(i, e)| (e.clone(), format!("gl_o{i}"))));
            items.push((operation.clone(), "gl_v".into()));
            let Some((x, y)) = self.pair_rows(run, returning(&prefix, items))? else { continue };
            for (wrong, right, engine) in [(&x, &y, a), (&y, &x, b)] {
                let Some((values, expected)) = parted_row(wrong, right, kept) else { continue };
                let literal = substituted(&operation, &operands, &values);
                let probe = returning(&[], vec![(literal.clone(), "v".into())]);
                if result_types(&probe, self.judge.schema).is_err() {
                    continue;
                }
                run.attempts += 1;
                let answers = outcomes(self.engines, &[CaseQuery::new("probe", probe, None)], self.exec)?;
                let Some(Outcome::Rows(alone)) = answers.first().and_then(|o| o.get(engine)) else { continue };
                let right_alone = alone.rows.first().and_then(|r| r.first()).is_some_and(|v| same(v, &expected));
                if !right_alone {
                    continue;
                }
                let engine = &run.family.engines[usize::from(engine != a)];
                name_null_operand(state, LEAKS, &literal, |text| {
                    format!(
                        "{engine} computes {text} right alone, wrong on a row with those operands among rows where \
                         an operand is NULL: the column's NULLs reach the operation"
                    )
                });
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether an engine of the pair refuses `coalesce`. Asked of the
    /// engines, not of a dialect: `graphlancer reduce` has only the
    /// written profiles, which do not know what a release lacks.
    pub(super) fn lacks_coalesce(&mut self, run: &mut Run<'_>) -> Result<bool, EngineError> {
        let call = Expr::Function("coalesce".into(), vec![Expr::lit(Value::Int(0)), Expr::lit(Value::Int(1))]);
        let Some((a, b)) = self.pair(&run.family.engines) else { return Ok(false) };
        run.attempts += 1;
        let probe = CaseQuery::new("probe", returning(&[], vec![(call, "x".into())]), None);
        let answers = outcomes(self.engines, &[probe], self.exec)?;
        let answered = |o: Option<&Outcome>| matches!(o, Some(Outcome::Rows(_)));
        Ok(answers.first().is_some_and(|o| !answered(o.get(a)) || !answered(o.get(b))))
    }
}

/// How many operations [`Reducer::leak_by_literals`] probes at most.
const LEAK_OPERATIONS: usize = 8;

/// An operation [`Reducer::leak_by_literals`] probes.
struct Operation {
    /// The operation as the query has it.
    operation: Expr,
    /// The clauses whose rows it is evaluated over.
    prefix: Vec<Clause>,
    /// The other items of the projection it is in, aggregates apart.
    context: Vec<(Expr, String)>,
}

/// The operations of `ast`'s reading clauses, outermost first.
fn read_operations(ast: &Query) -> Vec<Operation> {
    fn walk(e: &Expr, out: &mut Vec<Expr>) {
        let operation = matches!(
            e,
            Expr::Binary(..)
                | Expr::Not(_)
                | Expr::Negate(_)
                | Expr::IsNull { .. }
                | Expr::Case { .. }
                | Expr::Function(..)
        );
        let operands = e.children();
        if operation && !e.has_aggregate() && operands.iter().any(|c| !matches!(c, Expr::Literal(_))) {
            out.push(e.clone());
        }
        for c in operands {
            walk(c, out);
        }
    }
    let mut ast = ast.clone();
    let mut out = Vec::new();
    for (clause, prefix) in read_clauses(&mut ast) {
        let context: Vec<(Expr, String)> = match &*clause {
            Clause::With(p) | Clause::Return(p) if !p.star => {
                p.items.iter().filter(|(e, _)| !e.has_aggregate()).cloned().collect()
            }
            _ => Vec::new(),
        };
        for slot in slots(clause) {
            let mut operations = Vec::new();
            walk(slot, &mut operations);
            out.extend(operations.into_iter().map(|operation| Operation {
                operation,
                prefix: prefix.clone(),
                context: context.clone(),
            }));
        }
    }
    out
}

/// A row of `wrong` (`kept` columns of context, then the operands, then
/// the operation's value) whose context and operands, scalars or NULL,
/// `right` has too, with another value and never `wrong`'s; the operands
/// and `right`'s value. Only where some row of `wrong` has a NULL operand:
/// the NULL that reaches the operation.
fn parted_row(wrong: &ResultSet, right: &ResultSet, kept: usize) -> Option<(Vec<Value>, Value)> {
    let split = |row: &Vec<Value>| row.split_last().map(|(v, o)| (o.to_vec(), v.clone()));
    let scalar =
        |v: &Value| matches!(v, Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::String(_));
    let operands = |o: &[Value]| o.get(kept..).map(<[Value]>::to_vec).unwrap_or_default();
    if !wrong.rows.iter().filter_map(split).any(|(o, _)| operands(&o).contains(&Value::Null)) {
        return None;
    }
    let alike = |p: &[Value], q: &[Value]| p.len() == q.len() && p.iter().zip(q).all(|(x, y)| same(x, y));
    wrong.rows.iter().filter_map(split).filter(|(o, _)| operands(o).iter().all(scalar)).find_map(|(o, v)| {
        let theirs: Vec<Value> =
            right.rows.iter().filter_map(split).filter(|(p, _)| alike(p, &o)).map(|(_, w)| w).collect();
        let parts = !theirs.is_empty() && theirs.iter().all(|w| !same(w, &v));
        parts.then(|| (operands(&o), theirs[0].clone()))
    })
}

/// `operation` with each non-literal operand replaced by its value, the
/// value at its place among `operands`.
fn substituted(operation: &Expr, operands: &[Expr], values: &[Value]) -> Expr {
    let mut e = operation.clone();
    for child in e.children_mut() {
        if let Some(v) = operands.iter().position(|o| o == child).and_then(|i| values.get(i)) {
            *child = Expr::lit(v.clone());
        }
    }
    e
}

/// Two values the same answer, as the campaign compares them.
fn same(a: &Value, b: &Value) -> bool {
    values_match(a, b, Tolerance::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: &[[Value; 2]]) -> ResultSet {
        ResultSet::new(vec!["o0".into(), "v".into()], rows.iter().map(|r| r.to_vec()).collect())
    }

    #[test]
    fn a_row_parts_only_on_the_operation_and_only_beside_a_null() {
        let (f, t, n) = (Value::Bool(false), Value::Bool(true), Value::Null);
        let wrong = rows(&[[Value::Float(25.91), f.clone()], [n.clone(), f.clone()]]);
        let right = rows(&[[Value::Float(25.91), t.clone()], [n.clone(), f.clone()]]);
        assert_eq!(parted_row(&wrong, &right, 0), Some((vec![Value::Float(25.91)], t.clone())));
        // Without a NULL operand anywhere, nothing reaches the row.
        let unmixed = rows(&[[Value::Float(25.91), f.clone()]]);
        assert_eq!(parted_row(&unmixed, &right, 0), None);
        // Operands the other engine never reads are not that row's.
        let other = rows(&[[Value::Float(1.5), t.clone()], [n.clone(), f.clone()]]);
        assert_eq!(parted_row(&wrong, &other, 0), None);
        // A NULL operand of the row itself, read as a value.
        let own = rows(&[[n.clone(), f.clone()]]);
        assert_eq!(parted_row(&own, &rows(&[[n.clone(), t.clone()]]), 0), Some((vec![n], t)));
    }

    #[test]
    fn operands_become_literals_in_order() {
        let op = Expr::Binary(
            graphlancer_cypher::ast::BinOp::Add,
            Box::new(Expr::var("a")),
            Box::new(Expr::lit(Value::Int(1))),
        );
        let expected = Expr::Binary(
            graphlancer_cypher::ast::BinOp::Add,
            Box::new(Expr::lit(Value::Int(4))),
            Box::new(Expr::lit(Value::Int(1))),
        );
        assert_eq!(substituted(&op, &[Expr::var("a")], &[Value::Int(4)]), expected);
    }
}
