//! Which conjuncts of a MATCH's WHERE a spelling moves into the pattern's
//! elements, as `(n WHERE p)`.

use std::collections::{BTreeMap, BTreeSet};

use crate::Feature;
use crate::ast::{BinOp, Expr, PathPattern};

use super::writer::W;

/// Which conjuncts of a MATCH's WHERE the spelling writes inside a pattern
/// element, by variable, and what stays behind; `None` where the spelling
/// moves nothing. A conjunct moves when it
/// reads exactly one variable and nothing that binds or walks names of its
/// own (patterns, comprehensions), and that variable is a node or a
/// fixed-length relationship of the patterns without a property map (Neo4j
/// 5 refuses both in one element): `(n WHERE p)` keeps the rows
/// `(n) ... WHERE p` keeps, OPTIONAL MATCH included.
pub(super) fn split_element_where(
    out: &mut W,
    patterns: &[PathPattern],
    predicate: Option<&Expr>,
) -> Option<(BTreeMap<String, Expr>, Option<Expr>)> {
    let (nodes, rels) = (out.sp.node_where, out.sp.rel_where);
    let predicate = predicate.filter(|_| nodes || rels)?;
    let mut declared: BTreeMap<&String, Feature> = BTreeMap::new();
    for p in patterns {
        for n in std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n)) {
            if let Some(v) = n.variable.as_ref().filter(|_| nodes && n.properties.is_empty()) {
                declared.entry(v).or_insert(Feature::NodeWhere);
            }
        }
        for (r, _) in &p.hops {
            if let Some(v) = r.variable.as_ref().filter(|_| rels && r.length.is_none() && r.properties.is_empty()) {
                declared.entry(v).or_insert(Feature::RelWhere);
            }
        }
    }
    let (mut inside, mut rest): (BTreeMap<String, Expr>, Vec<Expr>) = (BTreeMap::new(), Vec::new());
    for c in predicate.conjuncts() {
        let mut names = BTreeSet::new();
        let mut scoped = false;
        c.walk(&mut |x| match x {
            Expr::Variable(v)
            | Expr::HasLabels(v, _)
            | Expr::MapProjection(v, _)
            | Expr::MapProjectionWith { base: v, .. } => {
                names.insert(v.clone());
            }
            Expr::PatternPredicate(_)
            | Expr::ExistsSubquery(..)
            | Expr::PatternComprehension { .. }
            | Expr::ShortestPath(_)
            | Expr::ListComprehension { .. }
            | Expr::Quantified { .. }
            | Expr::Reduce { .. }
            | Expr::Aggregate { .. } => scoped = true,
            _ => {}
        });
        let one = if names.len() == 1 && !scoped { names.pop_first() } else { None };
        match one.and_then(|v| declared.get(&v).map(|f| (v, *f))) {
            Some((v, feature)) => {
                out.used.insert(feature);
                let joined = match inside.remove(&v) {
                    Some(before) => Expr::binary(BinOp::And, before, c.clone()),
                    None => c.clone(),
                };
                inside.insert(v, joined);
            }
            None => rest.push(c.clone()),
        }
    }
    Some((inside, Expr::and_all(rest)))
}
