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
//! non-null operands and part on its value, and the engine that parts
//! gives the other's value once those operands are literals, while some
//! other row's operand is NULL.

use graphlancer_cypher::ast::{Expr, Query};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{EngineError, Outcome};
use graphlancer_model::{ResultSet, Tolerance, Value, compare::values_match};

use super::name::{LEAKS, read_clauses};
use super::{Reducer, Run, State, outcomes};
use crate::culprit::Culprit;
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
        use crate::signature::Fault;
        let Some((a, b)) = self.pair(&run.family.engines) else { return Ok(()) };
        for (operation, prefix) in read_operations(ast) {
            if run.spent() {
                return Ok(());
            }
            let operands: Vec<Expr> =
                operation.children().into_iter().filter(|c| !matches!(c, Expr::Literal(_))).cloned().collect();
            let mut items: Vec<(Expr, String)> =
                operands.iter().enumerate().map(|(i, e)| (e.clone(), format!("o{i}"))).collect();
            items.push((operation.clone(), "v".into()));
            let Some((x, y)) = self.pair_rows(run, returning(&prefix, items))? else { continue };
            for (wrong, right, engine) in [(&x, &y, a), (&y, &x, b)] {
                let Some((values, expected)) = parted_row(wrong, right) else { continue };
                let literal = substituted(&operation, &values);
                let probe = returning(&[], vec![(literal.clone(), "v".into())]);
                if result_types(&probe, self.judge.schema).is_err() {
                    continue;
                }
                run.attempts += 1;
                let answers = outcomes(self.engines, &[CaseQuery::new("probe", probe, None)], self.exec)?;
                let alone =
                    answers.into_iter().next().and_then(|mut o| (engine < o.len()).then(|| o.swap_remove(engine)));
                let Some(Outcome::Rows(alone)) = alone else { continue };
                let right_alone = alone.rows.first().and_then(|r| r.first()).is_some_and(|v| same(v, &expected));
                if !right_alone {
                    continue;
                }
                if let Some((_, _, finding)) = state.best.as_mut() {
                    finding.signature.fault = Fault::Culprit { expression: Culprit::NullOperand(LEAKS.to_owned()) };
                    finding.signature.shape = None;
                    let mut text = String::new();
                    graphlancer_cypher::render::expr_into(&mut text, &literal);
                    finding.summary = format!(
                        "{}; {} computes {text} right alone, wrong on a row with those operands among rows where \
                         one is NULL: a NULL reaches other rows",
                        finding.summary,
                        run.family.engines[usize::from(engine != a)]
                    );
                }
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The operations of `ast`'s reading clauses whose operands can be written
/// as literals, outermost first, each with the clauses it reads the rows of.
fn read_operations(ast: &Query) -> Vec<(Expr, Vec<graphlancer_cypher::ast::Clause>)> {
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
        for slot in slots(clause) {
            let mut operations = Vec::new();
            walk(slot, &mut operations);
            out.extend(operations.into_iter().map(|o| (o, prefix.clone())));
        }
    }
    out
}

/// A row of `wrong` whose operands (every column but the last) are
/// non-null scalars that `right` has too, with another value and never
/// `wrong`'s; the operands and `right`'s value. Only where some row of
/// `wrong` has a NULL operand: the NULL that reaches the others.
fn parted_row(wrong: &ResultSet, right: &ResultSet) -> Option<(Vec<Value>, Value)> {
    let split = |row: &Vec<Value>| row.split_last().map(|(v, o)| (o.to_vec(), v.clone()));
    let scalar = |v: &Value| matches!(v, Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::String(_));
    if !wrong.rows.iter().filter_map(split).any(|(o, _)| o.contains(&Value::Null)) {
        return None;
    }
    let alike = |p: &[Value], q: &[Value]| p.len() == q.len() && p.iter().zip(q).all(|(x, y)| same(x, y));
    wrong.rows.iter().filter_map(split).filter(|(o, _)| o.iter().all(scalar)).find_map(|(o, v)| {
        let theirs: Vec<Value> =
            right.rows.iter().filter_map(split).filter(|(p, _)| alike(p, &o)).map(|(_, w)| w).collect();
        let parts = !theirs.is_empty() && theirs.iter().all(|w| !same(w, &v));
        parts.then(|| (o, theirs[0].clone()))
    })
}

/// `operation` with its non-literal operands replaced, in order, by `values`.
fn substituted(operation: &Expr, values: &[Value]) -> Expr {
    let mut e = operation.clone();
    let mut values = values.iter();
    for child in e.children_mut() {
        if !matches!(child, Expr::Literal(_))
            && let Some(v) = values.next()
        {
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
        assert_eq!(parted_row(&wrong, &right), Some((vec![Value::Float(25.91)], t.clone())));
        // Without a NULL operand anywhere, nothing reaches the row.
        let unmixed = rows(&[[Value::Float(25.91), f.clone()]]);
        assert_eq!(parted_row(&unmixed, &right), None);
        // Operands the other engine never reads are not that row's.
        let other = rows(&[[Value::Float(1.5), t], [n, f]]);
        assert_eq!(parted_row(&wrong, &other), None);
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
        assert_eq!(substituted(&op, &[Value::Int(4)]), expected);
    }
}
