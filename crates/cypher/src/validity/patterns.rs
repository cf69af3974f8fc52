//! A pattern where Neo4j 5 wants a value: Neo4j 5 reads a pattern
//! expression only as a predicate, so one returned, projected, or handed
//! to a function other than `exists` is a SyntaxError UnexpectedSyntax
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
    let mut argument = false;
    super::walk::each_expr(clauses, &mut |e| {
        if let Expr::Function(name, args) = e {
            argument |=
                !name.eq_ignore_ascii_case("exists") && args.iter().any(|a| matches!(a, Expr::PatternPredicate(_)));
        }
    });
    projected || argument
}
