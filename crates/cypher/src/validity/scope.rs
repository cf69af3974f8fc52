//! Variables read where no clause bound them: Neo4j 5 refuses such a
//! query at compile time (TCK `Return1`, `Set1`, `Create2`, `Delete5`,
//! `Merge3`, `Comparison1`, `Pattern1`: SyntaxError UndefinedVariable).
//! Where Cypher's scoping is finer than this walk (what ORDER BY sees after
//! an aggregation), the walk lets the query through: it must never refuse
//! what Neo4j answers.

use std::collections::BTreeSet;

use crate::ast::{Clause, Expr, PathPattern, Query, RemoveItem, SetItem};

type Scope = BTreeSet<String>;

/// Whether `query` reads a variable no clause bound.
pub(super) fn undefined(query: &Query) -> bool {
    query.parts.iter().any(|part| !clauses(&part.clauses, &mut Scope::new()))
}

/// Walks `clauses` from `scope`; false at the first unbound read.
fn clauses(clauses: &[Clause], scope: &mut Scope) -> bool {
    clauses.iter().all(|c| clause(c, scope))
}

fn clause(c: &Clause, scope: &mut Scope) -> bool {
    match c {
        Clause::Match { patterns, guard, predicate, .. } => {
            bind(patterns.iter(), scope);
            patterns.iter().all(|p| properties(p, scope)) && guard.iter().chain(predicate).all(|e| expr(e, scope))
        }
        Clause::Create { patterns } => {
            bind(patterns.iter(), scope);
            patterns.iter().all(|p| properties(p, scope))
        }
        Clause::Merge { pattern, on_create, on_match } => {
            bind(std::iter::once(pattern), scope);
            properties(pattern, scope) && on_create.iter().chain(on_match).all(|i| set_item(i, scope))
        }
        Clause::Unwind { list, alias } => {
            let ok = expr(list, scope);
            scope.insert(alias.clone());
            ok
        }
        Clause::With(p) | Clause::Return(p) => {
            if !p.items.iter().all(|(e, _)| expr(e, scope)) {
                return false;
            }
            // WHERE and ORDER BY see the new names and, in some forms, the
            // old ones: both are allowed here.
            let mut after = scope.clone();
            after.extend(p.items.iter().map(|(_, a)| a.clone()));
            let later = p.predicate.iter().chain(p.order_by.iter().map(|(e, _)| e)).all(|e| expr(e, &after));
            if !p.star {
                scope.clear();
            }
            scope.extend(p.items.iter().map(|(_, a)| a.clone()));
            later
        }
        Clause::Set { items } => items.iter().all(|i| set_item(i, scope)),
        Clause::Remove { items } => items.iter().all(|i| match i {
            RemoveItem::Property(v, _) | RemoveItem::Label(v, _) => scope.contains(v),
        }),
        Clause::Delete { variables, .. } => variables.iter().all(|v| scope.contains(v)),
        Clause::Foreach { variable, list, body } => {
            let mut inner = scope.clone();
            inner.insert(variable.clone());
            expr(list, scope) && clauses(body, &mut inner)
        }
        Clause::Call { imports, body, union_all } => {
            if !imports.iter().all(|v| scope.contains(v)) {
                return false;
            }
            let ok = std::iter::once(body).chain(union_all).all(|b| {
                let mut inner: Scope = imports.iter().cloned().collect();
                clauses(&b.clauses, &mut inner)
            });
            if let Some(Clause::Return(p)) = body.clauses.last() {
                scope.extend(p.items.iter().map(|(_, a)| a.clone()));
            }
            ok
        }
        Clause::Procedure { alias, predicate, .. } => {
            scope.insert(alias.clone());
            predicate.iter().all(|e| expr(e, scope))
        }
    }
}

fn bind<'a>(patterns: impl Iterator<Item = &'a PathPattern>, scope: &mut Scope) {
    for p in patterns {
        scope.extend(p.variables().cloned());
    }
}

/// The property values a pattern asks for read only what is in scope.
fn properties(p: &PathPattern, scope: &Scope) -> bool {
    let props =
        std::iter::once(&p.start.properties).chain(p.hops.iter().flat_map(|(r, n)| [&r.properties, &n.properties]));
    props.flatten().all(|(_, e)| expr(e, scope))
}

fn set_item(i: &SetItem, scope: &Scope) -> bool {
    match i {
        SetItem::Property(v, _, e) => scope.contains(v) && expr(e, scope),
        SetItem::MergeMap(v, entries) | SetItem::ReplaceMap(v, entries) => {
            scope.contains(v) && entries.iter().all(|(_, e)| expr(e, scope))
        }
        SetItem::Label(v, _) => scope.contains(v),
    }
}

/// `scope` with `names` added.
fn with(scope: &Scope, names: impl IntoIterator<Item = String>) -> Scope {
    let mut inner = scope.clone();
    inner.extend(names);
    inner
}

fn expr(e: &Expr, scope: &Scope) -> bool {
    match e {
        Expr::Variable(v) | Expr::MapProjection(v, _) | Expr::HasLabels(v, _) => scope.contains(v),
        Expr::MapProjectionWith { base, entries, .. } => {
            scope.contains(base) && entries.iter().all(|(_, e)| expr(e, scope))
        }
        Expr::ListComprehension { variable, list, filter, map } => {
            let inner = with(scope, [variable.clone()]);
            expr(list, scope) && filter.iter().chain(map).all(|e| expr(e, &inner))
        }
        Expr::Quantified { variable, list, predicate, .. } => {
            expr(list, scope) && expr(predicate, &with(scope, [variable.clone()]))
        }
        Expr::Reduce { accumulator, init, variable, list, step } => {
            expr(init, scope) && expr(list, scope) && expr(step, &with(scope, [accumulator.clone(), variable.clone()]))
        }
        // A subquery's pattern may bind new variables of its own.
        Expr::PatternComprehension { pattern, filter, map } => {
            let inner = with(scope, pattern.variables().cloned());
            properties(pattern, &inner) && filter.iter().all(|e| expr(e, &inner)) && expr(map, &inner)
        }
        Expr::ExistsSubquery(pattern, predicate) => {
            let inner = with(scope, pattern.variables().cloned());
            properties(pattern, &inner) && predicate.iter().all(|e| expr(e, &inner))
        }
        // A pattern as a predicate binds nothing new.
        Expr::PatternPredicate(pattern) => pattern.variables().all(|v| scope.contains(v)) && properties(pattern, scope),
        Expr::ShortestPath(pattern) => properties(pattern, &with(scope, pattern.variables().cloned())),
        other => other.children().into_iter().all(|c| expr(c, scope)),
    }
}
