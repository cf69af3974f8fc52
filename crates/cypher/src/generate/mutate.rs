//! GDsmith's structural mutations of a query that returned rows, and its
//! property-key frequency feedback (formula 1 of the paper): both raise the
//! share of queries that return something without making them alike.

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_model::CaseRng;
use serde::{Deserialize, Serialize};

use super::{Builder, ClauseKind, Generated, Generator};
use crate::ast::{Clause, Expr, Query, SetItem, SingleQuery};
use crate::context::{Names, Scope};
use crate::render::render;

/// How often each property key occurred in queries that returned rows.
pub type KeyFrequencies = BTreeMap<String, u64>;

/// The three structural mutations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mutation {
    /// RETURN becomes WITH and new clauses follow it.
    DelayReturn,
    /// A WITH becomes the RETURN; what followed it goes.
    AdvanceReturn,
    /// A WHERE predicate goes (never the guards that keep answers comparable).
    RemoveCondition,
}

impl Mutation {
    /// All three, in a fixed order.
    pub const ALL: [Mutation; 3] = [Mutation::DelayReturn, Mutation::AdvanceReturn, Mutation::RemoveCondition];
}

impl Generator<'_> {
    /// Applies `mutation` to `base`; `None` when it does not apply (a UNION,
    /// no WITH to advance, no condition to remove).
    pub fn mutate(
        &self,
        base: &Generated,
        mutation: Mutation,
        rng: &mut CaseRng,
        frequencies: Option<&KeyFrequencies>,
    ) -> Option<Generated> {
        let [part] = base.query.parts.as_slice() else { return None };
        if base.scopes.len() != part.clauses.len() {
            return None;
        }
        match mutation {
            Mutation::DelayReturn => self.delay_return(base, part, rng, frequencies),
            Mutation::AdvanceReturn => advance_return(base, part, rng),
            Mutation::RemoveCondition => remove_condition(base, part, rng),
        }
    }

    fn delay_return(
        &self,
        base: &Generated,
        part: &SingleQuery,
        rng: &mut CaseRng,
        frequencies: Option<&KeyFrequencies>,
    ) -> Option<Generated> {
        let (Clause::Return(last), Some(scope)) = (part.clauses.last()?, base.scopes.last()) else { return None };
        let mut with = last.clone();
        if with.star {
            // `WITH *` keeps every variable; spelling them out keeps the scope known.
            return None;
        }
        with.predicate = None;
        // Without SKIP or LIMIT the order of a WITH has no effect, and Kuzu refuses it.
        if with.skip.is_none() && with.limit.is_none() && self.quirks.with_order_by_needs_limit {
            with.order_by.clear();
        }
        let mut b = Builder::new(self, rng);
        b.frequencies = frequencies.cloned();
        b.names = Names::after(&base.text);
        b.features = base.features.clone();
        b.features.insert(crate::Feature::With);
        let mut s = Scope::default();
        for v in scope {
            s.bind(v.clone());
        }
        b.scope = s;
        let extra = if b.coin(0.5) { 1 } else { 2 };
        // The reads added here come after the query's writes, which a
        // release without reads after writes refuses (Kuzu 0.1.0).
        let reads = self.weight(crate::Feature::ReadAfterWrite) > 0 || !part.writes();
        let mut kinds: Vec<ClauseKind> = Vec::new();
        for _ in 0..extra {
            let options = [
                (ClauseKind::Match, 3),
                (ClauseKind::OptionalMatch, 2),
                (ClauseKind::Unwind, 1),
                (ClauseKind::With, 1),
            ];
            let weights: Vec<(ClauseKind, u32)> = options
                .iter()
                .map(|(k, w)| {
                    let f = match k {
                        ClauseKind::Match => crate::Feature::Match,
                        ClauseKind::OptionalMatch => crate::Feature::OptionalMatch,
                        ClauseKind::Unwind => crate::Feature::Unwind,
                        _ => crate::Feature::With,
                    };
                    let allowed = reads || *k == ClauseKind::With;
                    (*k, w * self.weight(f) * u32::from(allowed))
                })
                .collect();
            if let Some(k) = super::weighted(b.rng, &weights) {
                if self.match_needs_with(&kinds, k) {
                    kinds.push(ClauseKind::With);
                }
                kinds.push(k);
            }
        }
        kinds.push(ClauseKind::Return);
        let mut prefix_scopes = base.scopes.clone();
        let (tail, _, order) = b.single_query(&kinds, None);
        prefix_scopes.pop();
        prefix_scopes.push(scope.clone());
        prefix_scopes.extend(std::mem::take(&mut b.scopes));
        let mut clauses = part.clauses[..part.clauses.len() - 1].to_vec();
        clauses.push(Clause::With(with));
        clauses.extend(tail);
        Some(finish(base, clauses, order, b.features, prefix_scopes))
    }
}

fn advance_return(base: &Generated, part: &SingleQuery, rng: &mut CaseRng) -> Option<Generated> {
    use rand::Rng;
    let withs: Vec<usize> =
        part.clauses.iter().enumerate().filter(|(_, c)| matches!(c, Clause::With(_))).map(|(i, _)| i).collect();
    if withs.is_empty() {
        return None;
    }
    let at = withs[rng.random_range(0..withs.len())];
    let Clause::With(p) = &part.clauses[at] else { return None };
    let mut ret = p.clone();
    ret.predicate = None;
    let order = (!ret.order_by.is_empty()).then(|| {
        ret.order_by
            .iter()
            .filter_map(|(e, _)| match e {
                Expr::Variable(v) => ret.items.iter().position(|(_, alias)| alias == v),
                _ => None,
            })
            .collect::<Vec<usize>>()
    });
    let mut clauses = part.clauses[..at].to_vec();
    clauses.push(Clause::Return(ret));
    let scopes = base.scopes[..=at].to_vec();
    Some(finish(base, clauses, order, base.features.clone(), scopes))
}

fn remove_condition(base: &Generated, part: &SingleQuery, rng: &mut CaseRng) -> Option<Generated> {
    use rand::Rng;
    let with_predicate: Vec<usize> = part
        .clauses
        .iter()
        .enumerate()
        .filter(|(_, c)| match c {
            Clause::Match { predicate, .. } => predicate.is_some(),
            Clause::With(p) => p.predicate.is_some(),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect();
    if with_predicate.is_empty() {
        return None;
    }
    let at = with_predicate[rng.random_range(0..with_predicate.len())];
    let mut clauses = part.clauses.clone();
    match &mut clauses[at] {
        Clause::Match { predicate, .. } => *predicate = None,
        Clause::With(p) => p.predicate = None,
        _ => return None,
    }
    Some(finish(base, clauses, base.order_columns.clone(), base.features.clone(), base.scopes.clone()))
}

fn finish(
    base: &Generated,
    clauses: Vec<Clause>,
    order_columns: Option<Vec<usize>>,
    features: BTreeSet<crate::Feature>,
    scopes: Vec<Vec<crate::types::Var>>,
) -> Generated {
    let query = Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: base.query.spelling };
    let text = render(&query);
    let clause_count = query.parts[0].clauses.len();
    Generated { query, skeleton: base.skeleton.clone(), text, clause_count, features, order_columns, scopes }
}

impl Query {
    /// The property keys the query reads or writes, for frequency feedback.
    pub fn property_keys(&self) -> BTreeSet<String> {
        let mut keys = BTreeSet::new();
        let from_expr = |e: &Expr, keys: &mut BTreeSet<String>| {
            e.walk(&mut |x| match x {
                Expr::Property(_, k) => {
                    keys.insert(k.clone());
                }
                Expr::MapProjection(_, ks) | Expr::MapProjectionWith { keys: ks, .. } => {
                    keys.extend(ks.iter().cloned())
                }
                _ => {}
            });
        };
        for part in &self.parts {
            for c in &part.clauses {
                if let Clause::Match { patterns, .. } | Clause::Create { patterns } = c {
                    for p in patterns {
                        let maps = std::iter::once(&p.start.properties)
                            .chain(p.hops.iter().flat_map(|(r, n)| [&r.properties, &n.properties]));
                        keys.extend(maps.flatten().map(|(k, _)| k.clone()));
                    }
                }
                let exprs: Vec<&Expr> = match c {
                    Clause::Match { guard, predicate, .. } => guard.iter().chain(predicate.iter()).collect(),
                    Clause::With(p) | Clause::Return(p) => {
                        p.items.iter().map(|(e, _)| e).chain(p.predicate.iter()).collect()
                    }
                    Clause::Unwind { list, .. } => vec![list],
                    Clause::Set { items } => items
                        .iter()
                        .filter_map(|i| match i {
                            SetItem::Property(_, k, e) => {
                                keys.insert(k.clone());
                                Some(e)
                            }
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                for e in exprs {
                    from_expr(e, &mut keys);
                }
            }
        }
        keys
    }
}

impl Generator<'_> {
    /// A WHERE predicate over the variables `scope`, as the generator would
    /// write one there, taking any new variable names from `names`: what the
    /// partitioning, rewrite and metamorphic oracles add to a query.
    pub fn predicate_over(&self, scope: &[crate::types::Var], names: &mut Names, rng: &mut CaseRng) -> Expr {
        let mut b = Builder::new(self, rng);
        b.names = names.clone();
        for v in scope {
            b.scope.bind(v.clone());
        }
        let e = b.predicate();
        *names = b.names;
        e
    }

    /// An expression of type `ty` over the variables `scope`, as the
    /// generator would write one in a projection.
    pub fn expression_over(
        &self,
        scope: &[crate::types::Var],
        ty: &crate::types::Ty,
        names: &mut Names,
        rng: &mut CaseRng,
    ) -> Expr {
        let mut b = Builder::new(self, rng);
        b.names = names.clone();
        for v in scope {
            b.scope.bind(v.clone());
        }
        let e = b.expr(ty, 0);
        *names = b.names;
        e
    }
}
