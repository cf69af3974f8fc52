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
    let mut operand = false;
    super::walk::each_expr(clauses, &mut |e| {
        let boolean = boolean_operands(e);
        operand |= e
            .children()
            .into_iter()
            .any(|c| matches!(c, Expr::PatternPredicate(_)) && !boolean.iter().any(|b| std::ptr::eq(*b, c)));
    });
    projected || operand
}

/// The operands of `e` that Neo4j 5 types as booleans, where a pattern
/// may stand as a predicate: those of AND, OR, XOR and NOT, a generic
/// CASE's WHEN conditions, `exists()`'s argument, and the filters of
/// quantifiers and comprehensions. Any other operand takes any type
/// (`=`, `IS NULL`, a function's argument), and a pattern there is a
/// value: `(n)-->() = true` is refused as `size((n)-->())` is.
fn boolean_operands(e: &Expr) -> Vec<&Expr> {
    use crate::ast::BinOp;
    match e {
        Expr::Binary(BinOp::And | BinOp::Or | BinOp::Xor, a, b) => vec![a, b],
        Expr::Not(x) => vec![x],
        Expr::Case { subject: None, branches, .. } => branches.iter().map(|(w, _)| w).collect(),
        Expr::Function(name, args) if name.eq_ignore_ascii_case("exists") => args.iter().collect(),
        Expr::Quantified { predicate, .. } => vec![predicate],
        Expr::ListComprehension { filter, .. } | Expr::PatternComprehension { filter, .. } => {
            filter.iter().map(|f| f.as_ref()).collect()
        }
        _ => Vec::new(),
    }
}
