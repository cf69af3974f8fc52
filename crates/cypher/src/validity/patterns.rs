//! A pattern where Neo4j 5 wants a value: Neo4j 5 reads a pattern
//! expression only as a predicate, so one returned, projected, compared,
//! or handed to a function other than `exists` is a SyntaxError
//! UnexpectedSyntax
//! (TCK `Pattern1` scenarios 22–24, `List6` scenario 6: `size()` of a
//! pattern).

use crate::ast::{Clause, Expr, Query};

/// Whether `query` uses a pattern as a value.
pub(super) fn as_value(query: &Query) -> bool {
    query.parts.iter().any(|p| in_clauses(&p.clauses))
}

fn in_clauses(clauses: &[Clause]) -> bool {
    let projected = clauses.iter().any(|c| match c {
        Clause::With(p) | Clause::Return(p) => p.items.iter().any(|(e, _)| matches!(e, Expr::PatternPredicate(_))),
        Clause::Foreach { body, .. } => in_clauses(body),
        Clause::Call { body, union_all, .. } => std::iter::once(body).chain(union_all).any(|b| in_clauses(&b.clauses)),
        _ => false,
    });
    // The reference checks every query it runs: most hold no pattern
    // predicate, and need not list each expression's operands.
    let mut patterns = false;
    super::walk::each_expr(clauses, &mut |e| patterns |= matches!(e, Expr::PatternPredicate(_)));
    if !patterns {
        return projected;
    }
    let mut operand = false;
    super::walk::each_expr(clauses, &mut |e| {
        operand |= e.children().into_iter().any(|c| matches!(c, Expr::PatternPredicate(_)) && !takes_boolean(e, c));
    });
    projected || operand
}

/// Whether `e` types its operand `operand` as a boolean, where a pattern
/// may stand as a predicate: the operands of AND, OR, XOR and NOT, a
/// generic CASE's WHEN conditions, `exists()`'s argument, and the filters
/// of quantifiers and comprehensions. Any other operand takes any type
/// (`=`, `IS NULL`, a function's argument), and a pattern there is a
/// value: `(n)-->() = true` is refused as `size((n)-->())` is.
fn takes_boolean(e: &Expr, operand: &Expr) -> bool {
    use crate::ast::BinOp;
    let is = |x: &Expr| std::ptr::eq(x, operand);
    match e {
        Expr::Binary(BinOp::And | BinOp::Or | BinOp::Xor, a, b) => is(a) || is(b),
        Expr::Not(x) => is(x),
        Expr::Case { subject: None, branches, .. } => branches.iter().any(|(w, _)| is(w)),
        Expr::Function(name, _) => name.eq_ignore_ascii_case("exists"),
        Expr::Quantified { predicate, .. } => is(predicate),
        Expr::ListComprehension { filter, .. } | Expr::PatternComprehension { filter, .. } => {
            filter.as_deref().is_some_and(is)
        }
        _ => false,
    }
}
