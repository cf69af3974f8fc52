//! What Neo4j 5 refuses of a projection's columns. Aggregates where it
//! refuses them (SyntaxError InvalidAggregation):
//! in a WHERE (TCK `MatchWhere1` scenario 15), and in the ORDER BY of a
//! projection that aggregates nothing (`ReturnOrderBy2` scenario 14,
//! `WithOrderBy2` scenario 25). A projection that aggregates may sort by
//! an aggregate.

use crate::ast::{Clause, Query};

/// Whether some WITH or RETURN of `query` names two columns alike.
pub(super) fn same_column_names(query: &Query) -> bool {
    fn any(clauses: &[Clause]) -> bool {
        clauses.iter().any(|c| match c {
            Clause::With(p) | Clause::Return(p) => {
                let mut names = std::collections::BTreeSet::new();
                !p.items.iter().all(|(_, alias)| names.insert(alias))
            }
            Clause::Foreach { body, .. } => any(body),
            Clause::Call { body, union_all, .. } => std::iter::once(body).chain(union_all).any(|b| any(&b.clauses)),
            _ => false,
        })
    }
    query.parts.iter().any(|p| any(&p.clauses))
}

/// Whether some aggregate of `query` stands where Neo4j 5 refuses one.
pub(super) fn misplaced(query: &Query) -> bool {
    query.parts.iter().any(|p| in_clauses(&p.clauses))
}

fn in_clauses(clauses: &[Clause]) -> bool {
    clauses.iter().any(|c| match c {
        Clause::Match { predicate, .. } => predicate.as_ref().is_some_and(|w| w.has_aggregate()),
        Clause::With(p) | Clause::Return(p) => {
            let aggregates = p.items.iter().any(|(e, _)| e.has_aggregate());
            p.predicate.as_ref().is_some_and(|w| w.has_aggregate())
                || (!aggregates && p.order_by.iter().any(|(e, _)| e.has_aggregate()))
        }
        Clause::Foreach { body, .. } => in_clauses(body),
        Clause::Call { body, union_all, .. } => std::iter::once(body).chain(union_all).any(|b| in_clauses(&b.clauses)),
        _ => false,
    })
}
