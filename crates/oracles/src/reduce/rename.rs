//! Renaming a reduced query's variables and aliases to the shortest names
//! that keep it valid, so reports read alike.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Expr, Query};

use crate::case::{Body, CaseQuery};

/// The group with its variables renamed in the order they first appear
/// in the source's text: `n` for nodes, `r` for relationships, `p` for
/// paths, `a` for the rest. One renaming for every query, onto names the
/// other queries do not add. `None` for a group not all Cypher.
pub(super) fn renamed(group: &[CaseQuery]) -> Option<Vec<CaseQuery>> {
    use std::collections::BTreeMap;
    let trees: Vec<serde_json::Value> =
        group.iter().map(|c| serde_json::to_value(c.cypher_ast()?).ok()).collect::<Option<_>>()?;
    let mut kinds: BTreeMap<String, char> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (i, t) in trees.iter().enumerate() {
        let mut found = Vec::new();
        bound_names(t, None, &mut found);
        for (name, kind) in found {
            taken.insert(name.clone());
            if i == 0 {
                kinds.entry(name).or_insert(kind);
            }
        }
    }
    // Every name of the source is renamed at once, so only the names the
    // other queries add are in the way.
    taken.retain(|n| !kinds.contains_key(n));
    let text = &group[0].text;
    let mut order: Vec<(usize, String)> =
        kinds.keys().map(|n| (first_word(text, n).unwrap_or(usize::MAX), n.clone())).collect();
    order.sort();
    let mut map = BTreeMap::new();
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for (_, name) in order {
        let next = counts.entry(kinds[&name]).or_insert(0);
        let new = loop {
            let candidate = format!("{}{next}", kinds[&name]);
            *next += 1;
            if !taken.contains(&candidate) {
                break candidate;
            }
        };
        map.insert(name, new);
    }
    group
        .iter()
        .zip(trees)
        .map(|(c, mut t)| {
            rename_tree(&mut t, &map);
            Some(c.with_body(Body::Cypher(serde_json::from_value(t).ok()?), c.order_columns.clone()))
        })
        .collect()
}

/// The query without the names of pattern variables (nodes, relationships,
/// paths) it never uses again: `MATCH ()-[r0:T0]->()` for `MATCH
/// (n0)-[r0:T0]->(n1)` where only `r0` is read.
pub(super) fn unnamed(q: &mut Query) {
    // `*` projects every name in scope: each one is used there.
    let star = |c: &Clause| matches!(c, Clause::With(p) | Clause::Return(p) if p.star);
    if q.parts.iter().any(|p| Clause::any_nested(&p.clauses, &star)) {
        return;
    }
    let text = graphlancer_cypher::render(q);
    let once = |v: &Option<String>| v.as_deref().is_some_and(|v| occurrences(&text, v) == 1);
    let unname = |p: &mut graphlancer_cypher::ast::PathPattern| {
        for v in std::iter::once(&mut p.name)
            .chain(std::iter::once(&mut p.start.variable))
            .chain(p.hops.iter_mut().flat_map(|(r, n)| [&mut r.variable, &mut n.variable]))
        {
            if once(v) {
                *v = None;
            }
        }
    };
    for part in &mut q.parts {
        for c in &mut part.clauses {
            match c {
                Clause::Match { patterns, .. } | Clause::Create { patterns } => patterns.iter_mut().for_each(unname),
                Clause::Merge { pattern, .. } => unname(pattern),
                _ => {}
            }
        }
    }
}

/// How often `word` stands alone in `text`.
pub(super) fn occurrences(text: &str, word: &str) -> usize {
    standalone(text, word).count()
}

/// The query with its final RETURN's computed columns aliased by their own
/// text, which renders them without `AS`. Not across UNION, whose parts
/// must name their columns alike, nor where ORDER BY names the alias or
/// two columns would share a name.
pub(super) fn unaliased(q: &mut Query) {
    let spelling = q.spelling;
    let [part] = q.parts.as_mut_slice() else { return };
    let Some(Clause::Return(p)) = part.clauses.last_mut() else { return };
    let text = |e: &Expr| graphlancer_cypher::render::expr_spelled(e, spelling);
    let keys: Vec<String> = p.order_by.iter().map(|(o, _)| text(o)).collect();
    for i in 0..p.items.len() {
        let (e, alias) = &p.items[i];
        let own = text(e);
        let ordered_by = keys.iter().any(|k| first_word(k, alias).is_some());
        if matches!(e, Expr::Variable(_)) || ordered_by || p.items.iter().any(|(_, a)| *a == own) {
            continue;
        }
        p.items[i].1 = own;
    }
}

/// Where `word` first stands alone in `text`.
pub(super) fn first_word(text: &str, word: &str) -> Option<usize> {
    standalone(text, word).next()
}

/// Where `word` stands alone in `text`: not part of a longer name.
pub(super) fn standalone<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).map(|(at, _)| at).filter(move |&at| {
        !text[..at].chars().next_back().is_some_and(ident) && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The names a serialized AST binds, with the letter their kind gets:
/// node, relationship and path pattern variables; projection aliases;
/// UNWIND, comprehension, quantifier, FOREACH and reduce variables.
pub(super) fn bound_names(v: &serde_json::Value, parent: Option<&str>, out: &mut Vec<(String, char)>) {
    use serde_json::Value as J;
    match v {
        J::Object(m) => {
            let name = |k: &str| m.get(k).and_then(J::as_str).map(str::to_owned);
            if let Some(n) = name("variable") {
                let kind = if m.contains_key("labels") {
                    'n'
                } else if m.contains_key("types") {
                    'r'
                } else {
                    'a'
                };
                out.push((n, kind));
            }
            if m.contains_key("start")
                && let Some(n) = name("name")
            {
                out.push((n, 'p'));
            }
            for k in ["alias", "accumulator"] {
                if let Some(n) = name(k) {
                    out.push((n, 'a'));
                }
            }
            for (k, x) in m {
                // A literal holds data, never a name.
                if k != "Literal" {
                    bound_names(x, Some(k), out);
                }
            }
        }
        J::Array(items) => {
            for x in items {
                // A projection item is `[expression, alias]`.
                if parent == Some("items")
                    && let Some([e, J::String(alias)]) = x.as_array().map(Vec::as_slice)
                {
                    out.push((alias.clone(), 'a'));
                    bound_names(e, None, out);
                    continue;
                }
                bound_names(x, None, out);
            }
        }
        _ => {}
    }
}

/// Every string of the tree that is a renamed name takes its new name, but
/// for literals: generated variable names (`n17`, `a6`) are never labels,
/// types, keys or function names.
pub(super) fn rename_tree(v: &mut serde_json::Value, map: &std::collections::BTreeMap<String, String>) {
    use serde_json::Value as J;
    match v {
        J::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k != "Literal" {
                    rename_tree(x, map);
                }
            }
        }
        J::Array(items) => items.iter_mut().for_each(|x| rename_tree(x, map)),
        J::String(s) => {
            if let Some(new) = map.get(s.as_str()) {
                *s = new.clone();
            }
        }
        _ => {}
    }
}
