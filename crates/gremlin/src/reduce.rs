//! Smaller traversals, for the reducer: each candidate is one step removed,
//! a branch of `union`/`and`/`or`/`coalesce` removed, a nested step removed,
//! or a predicate cut to one of its parts, largest cuts first. Candidates
//! may be invalid; the engines' answers decide whether one is kept.

use crate::ast::{By, Predicate, Step, Traversal};

/// Every one-edit-smaller traversal of `t`.
pub fn smaller(t: &Traversal) -> Vec<Traversal> {
    let mut out = Vec::new();
    // A suffix first: one candidate removes everything from step i on.
    for i in (0..t.steps.len()).rev() {
        out.push(Traversal { source: t.source.clone(), steps: t.steps[..i].to_vec() });
    }
    for steps in smaller_steps(&t.steps) {
        out.push(Traversal { source: t.source.clone(), steps });
    }
    if let crate::ast::Source::VIds(ids) = &t.source {
        let fewer = (ids.len() > 1).then(|| ids.iter().map(|i| crate::ast::Source::VIds(vec![*i])));
        for source in std::iter::once(crate::ast::Source::V).chain(fewer.into_iter().flatten()) {
            out.push(Traversal { source, steps: t.steps.clone() });
        }
    }
    out.dedup();
    out
}

/// Whether `t` ends in a total `order()`, followed only by steps that keep
/// the order ([`crate::check::keeps_order`]).
pub fn ends_ordered(t: &Traversal) -> bool {
    t.steps.iter().rev().find(|s| !crate::check::keeps_order(s)).is_some_and(|s| matches!(s, Step::Order(_)))
}

fn smaller_steps(steps: &[Step]) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    for i in 0..steps.len() {
        let mut without = steps.to_vec();
        without.remove(i);
        out.push(without);
    }
    for (i, s) in steps.iter().enumerate() {
        for replacement in smaller_step(s) {
            let mut v = steps.to_vec();
            v[i] = replacement;
            out.push(v);
        }
    }
    out
}

fn smaller_list(ts: &[Vec<Step>], min: usize) -> Vec<Vec<Vec<Step>>> {
    let mut out = Vec::new();
    if ts.len() > min {
        for i in 0..ts.len() {
            let mut v = ts.to_vec();
            v.remove(i);
            out.push(v);
        }
    }
    for (i, t) in ts.iter().enumerate() {
        for smaller in smaller_steps(t).into_iter().filter(|s| !s.is_empty()) {
            let mut v = ts.to_vec();
            v[i] = smaller;
            out.push(v);
        }
    }
    out
}

fn smaller_nested(t: &[Step]) -> Vec<Vec<Step>> {
    smaller_steps(t).into_iter().filter(|s| !s.is_empty()).collect()
}

fn smaller_step(s: &Step) -> Vec<Step> {
    match s {
        Step::Has(k, p) => smaller_predicate(p).into_iter().map(|p| Step::Has(k.clone(), p)).collect(),
        Step::HasLabelKey(l, k, p) => {
            let mut v = vec![Step::Has(k.clone(), p.clone())];
            v.extend(smaller_predicate(p).into_iter().map(|p| Step::HasLabelKey(l.clone(), k.clone(), p)));
            v
        }
        Step::Is(p) => smaller_predicate(p).into_iter().map(Step::Is).collect(),
        Step::Move(d, ls) if !ls.is_empty() => vec![Step::Move(*d, Vec::new())],
        Step::MoveE(d, ls) if !ls.is_empty() => vec![Step::MoveE(*d, Vec::new())],
        Step::Where(t) => smaller_nested(t).into_iter().map(Step::Where).collect(),
        Step::Not(t) => smaller_nested(t).into_iter().map(Step::Not).collect(),
        Step::Filter(t) => smaller_nested(t).into_iter().map(Step::Filter).collect(),
        Step::Optional(t) => smaller_nested(t).into_iter().map(Step::Optional).collect(),
        Step::And(ts) => {
            let mut v: Vec<Step> = ts.iter().map(|t| Step::Where(t.clone())).collect();
            v.extend(smaller_list(ts, 2).into_iter().map(Step::And));
            v
        }
        Step::Or(ts) => {
            let mut v: Vec<Step> = ts.iter().map(|t| Step::Where(t.clone())).collect();
            v.extend(smaller_list(ts, 2).into_iter().map(Step::Or));
            v
        }
        Step::Union(ts) => smaller_list(ts, 1).into_iter().map(Step::Union).collect(),
        Step::Coalesce(ts) => smaller_list(ts, 1).into_iter().map(Step::Coalesce).collect(),
        Step::Choose(c, a, _) => vec![Step::Where(c.clone()), Step::Optional(a.clone())],
        Step::Repeat { body, times, emit, until } => {
            let repeat = |times: u32, emit: bool, until: Option<Vec<Step>>| Step::Repeat {
                body: body.clone(),
                times,
                emit,
                until,
            };
            let mut v = Vec::new();
            if until.is_some() {
                v.push(repeat(*times, *emit, None));
            }
            if *times > 1 {
                v.push(repeat(times - 1, *emit, until.clone()));
            }
            if *emit {
                v.push(repeat(*times, false, until.clone()));
            }
            if let Some(c) = until {
                v.extend(smaller_nested(c).into_iter().map(|c| repeat(*times, *emit, Some(c))));
            }
            v
        }
        Step::HasId(ids) if ids.len() > 1 => ids.iter().map(|i| Step::HasId(vec![*i])).collect(),
        Step::Properties(ks) if ks.len() > 1 => ks.iter().map(|k| Step::Properties(vec![k.clone()])).collect(),
        Step::Project(items) if items.len() > 1 => (0..items.len())
            .map(|i| {
                let mut v = items.clone();
                v.remove(i);
                Step::Project(v)
            })
            .collect(),
        Step::Select(names) if names.len() > 1 => names.iter().map(|n| Step::Select(vec![n.clone()])).collect(),
        Step::Group(by, values) if *by != By::Label || !values.is_empty() => vec![Step::GroupCount(By::Label)],
        Step::Values(ks) | Step::ValueMap(ks) | Step::ElementMap(ks) if ks.len() > 1 => {
            ks.iter().map(|k| with_keys(s, vec![k.clone()])).collect()
        }
        _ => Vec::new(),
    }
}

fn with_keys(s: &Step, keys: Vec<String>) -> Step {
    match s {
        Step::Values(_) => Step::Values(keys),
        Step::ValueMap(_) => Step::ValueMap(keys),
        _ => Step::ElementMap(keys),
    }
}

fn smaller_predicate(p: &Predicate) -> Vec<Predicate> {
    match p {
        Predicate::And(a, b) | Predicate::Or(a, b) => vec![(**a).clone(), (**b).clone()],
        Predicate::Within(vs) if vs.len() > 1 => vs.iter().map(|v| Predicate::Within(vec![v.clone()])).collect(),
        Predicate::Without(vs) if vs.len() > 1 => vs.iter().map(|v| Predicate::Without(vec![v.clone()])).collect(),
        Predicate::Inside(a, _) | Predicate::Between(a, _) => vec![Predicate::Gt(a.clone())],
        Predicate::Outside(a, _) => vec![Predicate::Lt(a.clone())],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::smaller;
    use crate::ast::{Direction, Source, Step, Traversal};

    #[test]
    fn ids_and_until_shrink_toward_plain_forms() {
        let repeat =
            |until| Step::Repeat { body: vec![Step::Move(Direction::Out, vec![])], times: 2, emit: false, until };
        let t = Traversal {
            source: Source::VIds(vec![1, 2]),
            steps: vec![Step::HasId(vec![1, 2]), repeat(Some(vec![Step::HasKey("k".into())]))],
        };
        let all = smaller(&t);
        let has = |source: Source, steps: Vec<Step>| all.contains(&Traversal { source, steps });
        assert!(has(Source::V, t.steps.clone()), "V(ids) becomes V()");
        assert!(has(Source::VIds(vec![2]), t.steps.clone()), "one id of two");
        assert!(has(t.source.clone(), vec![Step::HasId(vec![1]), t.steps[1].clone()]), "hasId of one id");
        assert!(has(t.source.clone(), vec![t.steps[0].clone(), repeat(None)]), "until dropped for times");
    }
}
