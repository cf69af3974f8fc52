//! Every expression of a query's clauses, for the rules that look at each.

use crate::ast::{Clause, Expr, PathPattern, SetItem};

/// Calls `f` on every expression of `clauses` and their sub-expressions,
/// FOREACH and CALL bodies included.
pub(crate) fn each_expr(clauses: &[Clause], f: &mut dyn FnMut(&Expr)) {
    for c in clauses {
        match c {
            Clause::Match { patterns, guard, predicate, .. } => {
                patterns.iter().for_each(|p| pattern_exprs(p, f));
                guard.iter().chain(predicate.iter()).for_each(|e| e.walk(f));
            }
            Clause::Create { patterns } => patterns.iter().for_each(|p| pattern_exprs(p, f)),
            Clause::Merge { pattern, on_create, on_match } => {
                pattern_exprs(pattern, f);
                set_items(on_create.iter().chain(on_match), f);
            }
            Clause::Unwind { list, .. } => list.walk(f),
            Clause::With(p) | Clause::Return(p) => {
                p.items.iter().map(|(e, _)| e).chain(p.order_by.iter().map(|(e, _)| e)).for_each(|e| e.walk(f));
                if let Some(w) = &p.predicate {
                    w.walk(f);
                }
            }
            Clause::Set { items } => set_items(items.iter(), f),
            Clause::Remove { .. } | Clause::Delete { .. } => {}
            Clause::Foreach { list, body, .. } => {
                list.walk(f);
                each_expr(body, f);
            }
            Clause::Call { body, union_all, .. } => {
                for b in std::iter::once(body).chain(union_all) {
                    each_expr(&b.clauses, f);
                }
            }
            Clause::Procedure { predicate, .. } => {
                if let Some(p) = predicate {
                    p.walk(f);
                }
            }
        }
    }
}

/// The property values a path pattern's nodes and relationships ask for.
fn pattern_exprs(p: &PathPattern, f: &mut dyn FnMut(&Expr)) {
    let props =
        std::iter::once(&p.start.properties).chain(p.hops.iter().flat_map(|(r, n)| [&r.properties, &n.properties]));
    props.flatten().for_each(|(_, e)| e.walk(f));
}

fn set_items<'a>(items: impl Iterator<Item = &'a SetItem>, f: &mut dyn FnMut(&Expr)) {
    for i in items {
        match i {
            SetItem::Property(_, _, e) => e.walk(f),
            SetItem::MergeMap(_, m) | SetItem::ReplaceMap(_, m) => m.iter().for_each(|(_, e)| e.walk(f)),
            SetItem::Label(..) => {}
        }
    }
}
