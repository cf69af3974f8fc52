//! Edits of a query: clauses dropped or simplified, patterns cut,
//! sub-expressions replaced by a child or a small literal. The reducer
//! tries them to shrink a case; naming tries them to find what of a
//! clause a finding needs.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Direction, Expr, PathPattern, Projection, Query, SingleQuery};
use graphlancer_model::Value;

/// One way to make a query smaller.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Edit {
    /// Keep only this UNION part.
    Part(usize),
    /// An edit of this UNION part as if it stood alone, the other parts
    /// kept: a difference that needs UNION's merging of rows needs every part.
    InPart(usize, Box<Edit>),
    /// This column removed from the RETURN of every UNION part at once:
    /// the parts must keep returning the same columns.
    UnionColumn(usize),
    /// The clauses before this index removed, together: a row source and
    /// what aggregates it often go only together.
    Prefix(usize),
    /// A change to the clause at this index, made where the derived query
    /// holds the same clause.
    Clause(usize, ClauseEdit),
    /// The sub-expression at `path` of expression slot `slot` of the clause
    /// at `clause` replaced by `with`, made where the derived query holds
    /// the same sub-expression there.
    Expr { clause: usize, slot: usize, path: Vec<usize>, with: Expr },
}

/// A change to one clause.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ClauseEdit {
    /// The clause removed.
    Remove,
    /// Its WHERE removed.
    Predicate,
    /// This conjunct of a MATCH's guard removed.
    Guard(usize),
    /// This item of a WITH or RETURN removed.
    Item(usize),
    /// ORDER BY removed (where no SKIP or LIMIT depends on it).
    Order,
    /// SKIP and LIMIT removed.
    Paging,
    /// DISTINCT removed.
    Distinct,
    /// OPTIONAL MATCH made MATCH.
    Optional,
    /// This comma part of a pattern removed.
    Pattern(usize),
    /// The last hop of this pattern part removed.
    LastHop(usize),
    /// This hop of this pattern part made a single relationship.
    FixedLength(usize, usize),
    /// This undirected hop of this pattern part made outgoing.
    Directed(usize, usize),
    /// Node `node` (0 the start, k the end of hop k) of pattern part
    /// `part` without label `label`.
    Label { part: usize, node: usize, label: usize },
    /// Node `node` of pattern part `part` without property constraint `key`.
    Property { part: usize, node: usize, key: usize },
    /// Relationship `hop` of pattern part `part` without property `key`.
    RelProperty { part: usize, hop: usize, key: usize },
    /// Pattern part `part` without its path variable.
    PathName(usize),
    /// This item of a SET, or of a MERGE's ON CREATE then ON MATCH, removed.
    SetItem(usize),
    /// A `CALL { }` subquery of one part replaced by its body, its RETURN
    /// made `WITH *, ...` so what was in scope before stays in scope.
    Inline,
}

/// Whether `edit` drops a conjunct of a MATCH's guard.
pub(crate) fn is_guard_edit(edit: &Edit) -> bool {
    match edit {
        Edit::InPart(_, inner) => is_guard_edit(inner),
        Edit::Clause(_, ClauseEdit::Guard(_)) => true,
        _ => false,
    }
}

/// The edits of a query, most promising first: whole parts and clauses,
/// then pieces of clauses, then sub-expressions, outer before inner.
pub(crate) fn edits(q: &Query) -> Vec<Edit> {
    if q.parts.len() > 1 {
        let mut out: Vec<Edit> = (0..q.parts.len()).map(Edit::Part).collect();
        if let Some(Clause::Return(r)) = q.parts[0].clauses.last() {
            out.extend((0..r.items.len()).map(Edit::UnionColumn));
        }
        for (i, part) in q.parts.iter().enumerate() {
            out.extend(edits(&alone(part)).into_iter().map(|e| Edit::InPart(i, Box::new(e))));
        }
        return out;
    }
    let Some(part) = q.parts.first() else { return Vec::new() };
    let n = part.clauses.len();
    // Clauses before the RETURN, last first: later clauses depend on earlier ones.
    let mut out: Vec<Edit> = (0..n.saturating_sub(1)).rev().map(|i| Edit::Clause(i, ClauseEdit::Remove)).collect();
    out.extend((2..n).map(Edit::Prefix));
    for (i, clause) in part.clauses.iter().enumerate() {
        out.extend(clause_edits(clause).into_iter().map(|e| Edit::Clause(i, e)));
        if let Clause::Match { guard: Some(g), .. } = clause {
            out.extend((0..g.conjuncts().len()).map(|k| Edit::Clause(i, ClauseEdit::Guard(k))));
        }
    }
    for (i, clause) in part.clauses.iter().enumerate() {
        let mut copy = clause.clone();
        for (slot, e) in slots(&mut copy).into_iter().enumerate() {
            for path in e.paths() {
                let sub = e.at_mut(&path).expect("a path of this expression").clone();
                for with in replacements(&sub) {
                    out.push(Edit::Expr { clause: i, slot, path: path.clone(), with });
                }
            }
        }
    }
    out
}

pub(crate) fn clause_edits(clause: &Clause) -> Vec<ClauseEdit> {
    let mut out = Vec::new();
    match clause {
        Clause::Match { optional, patterns, predicate, .. } => {
            if predicate.is_some() {
                out.push(ClauseEdit::Predicate);
            }
            if *optional {
                out.push(ClauseEdit::Optional);
            }
            if patterns.len() > 1 {
                out.extend((0..patterns.len()).map(ClauseEdit::Pattern));
            }
            out.extend(pattern_edits(patterns));
        }
        Clause::With(p) | Clause::Return(p) => {
            if p.predicate.is_some() {
                out.push(ClauseEdit::Predicate);
            }
            if p.skip.is_some() || p.limit.is_some() {
                out.push(ClauseEdit::Paging);
            } else if !p.order_by.is_empty() {
                out.push(ClauseEdit::Order);
            }
            if p.distinct {
                out.push(ClauseEdit::Distinct);
            }
            if p.items.len() > 1 {
                for (j, (_, alias)) in p.items.iter().enumerate() {
                    // An ORDER BY key stays: the order is part of what is compared.
                    if !p.order_by.iter().any(|(e, _)| mentions(e, alias)) {
                        out.push(ClauseEdit::Item(j));
                    }
                }
            }
        }
        Clause::Create { patterns } => {
            if patterns.len() > 1 {
                out.extend((0..patterns.len()).map(ClauseEdit::Pattern));
            }
            out.extend(pattern_edits(patterns).into_iter().filter(keeps_shape));
        }
        Clause::Merge { pattern, on_create, on_match } => {
            out.extend((0..on_create.len() + on_match.len()).map(ClauseEdit::SetItem));
            out.extend(pattern_edits(std::slice::from_ref(pattern)).into_iter().filter(keeps_shape));
        }
        Clause::Set { items } if items.len() > 1 => out.extend((0..items.len()).map(ClauseEdit::SetItem)),
        Clause::Call { union_all, .. } if union_all.is_empty() => out.push(ClauseEdit::Inline),
        _ => {}
    }
    out
}

/// The clauses a `CALL { body }` of one part is replaced by: the body, its
/// RETURN made `WITH *, items` (FalkorDB's F-XORPAT crash was filed once
/// inside CALL { } and once outside, as two clause shapes).
pub(crate) fn inline_call(c: &Clause) -> Option<Vec<Clause>> {
    let Clause::Call { body, union_all, .. } = c else { return None };
    if !union_all.is_empty() {
        return None;
    }
    let mut clauses = body.clauses.clone();
    match clauses.last_mut() {
        Some(last @ Clause::Return(_)) => {
            let Clause::Return(mut p) = last.clone() else { return None };
            p.star = true;
            *last = Clause::With(p);
        }
        _ => return None,
    }
    Some(clauses)
}

pub(crate) fn pattern_edits(patterns: &[PathPattern]) -> Vec<ClauseEdit> {
    let mut out = Vec::new();
    for (part, p) in patterns.iter().enumerate() {
        if !p.hops.is_empty() {
            out.push(ClauseEdit::LastHop(part));
        }
        if p.name.is_some() {
            out.push(ClauseEdit::PathName(part));
        }
        for (hop, (r, _)) in p.hops.iter().enumerate() {
            out.extend((0..r.properties.len()).map(|key| ClauseEdit::RelProperty { part, hop, key }));
        }
        for (h, (r, _)) in p.hops.iter().enumerate() {
            if r.length.is_some() {
                out.push(ClauseEdit::FixedLength(part, h));
            }
            if r.direction == Direction::Both {
                out.push(ClauseEdit::Directed(part, h));
            }
        }
        let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
        for (node, n) in nodes.enumerate() {
            out.extend((0..n.labels.len()).map(|label| ClauseEdit::Label { part, node, label }));
            out.extend((0..n.properties.len()).map(|key| ClauseEdit::Property { part, node, key }));
        }
    }
    out
}

/// Whether a pattern edit leaves the pattern's shape (a write's pattern
/// keeps its hops: CREATE and MERGE are edited in their maps and labels).
pub(crate) fn keeps_shape(e: &ClauseEdit) -> bool {
    matches!(e, ClauseEdit::Property { .. } | ClauseEdit::RelProperty { .. } | ClauseEdit::Label { .. })
}

/// Whether `e` reads the variable `v`.
pub(crate) fn mentions(e: &Expr, v: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Variable(n) if n == v));
    found
}

/// The expressions of a clause the reducer may change, in a fixed order.
/// A projection with SKIP or LIMIT keeps its items and keys: with fewer
/// distinct keys, which rows survive the cut would be up to the engine.
/// Guards are never changed: they are what makes the answer the same on
/// every engine.
pub(crate) fn slots(c: &mut Clause) -> Vec<&mut Expr> {
    match c {
        Clause::Match { patterns, predicate, .. } => {
            let mut out: Vec<&mut Expr> = predicate.iter_mut().collect();
            out.extend(patterns.iter_mut().flat_map(pattern_slots));
            out
        }
        Clause::Unwind { list, .. } => vec![list],
        Clause::Procedure { predicate, .. } => predicate.iter_mut().collect(),
        Clause::With(p) | Clause::Return(p) => projection_slots(p),
        Clause::Create { patterns } => patterns.iter_mut().flat_map(pattern_slots).collect(),
        Clause::Merge { pattern, on_create, on_match } => {
            let mut out = pattern_slots(pattern);
            out.extend(on_create.iter_mut().chain(on_match.iter_mut()).flat_map(set_slots));
            out
        }
        Clause::Set { items } => items.iter_mut().flat_map(set_slots).collect(),
        Clause::Foreach { list, .. } => vec![list],
        Clause::Remove { .. } | Clause::Delete { .. } | Clause::Call { .. } => Vec::new(),
    }
}

pub(crate) fn projection_slots(p: &mut Projection) -> Vec<&mut Expr> {
    if p.skip.is_some() || p.limit.is_some() {
        return p.predicate.iter_mut().collect();
    }
    let mut out: Vec<&mut Expr> = p.items.iter_mut().map(|(e, _)| e).collect();
    out.extend(p.predicate.iter_mut());
    out.extend(p.order_by.iter_mut().map(|(e, _)| e));
    out
}

pub(crate) fn pattern_slots(p: &mut PathPattern) -> Vec<&mut Expr> {
    let mut out: Vec<&mut Expr> = p.start.properties.iter_mut().map(|(_, e)| e).collect();
    for (r, n) in &mut p.hops {
        out.extend(r.properties.iter_mut().map(|(_, e)| e));
        out.extend(n.properties.iter_mut().map(|(_, e)| e));
    }
    out
}

pub(crate) fn set_slots(item: &mut graphlancer_cypher::ast::SetItem) -> Vec<&mut Expr> {
    use graphlancer_cypher::ast::SetItem;
    match item {
        SetItem::Property(_, _, e) => vec![e],
        SetItem::MergeMap(_, entries) | SetItem::ReplaceMap(_, entries) => entries.iter_mut().map(|(_, e)| e).collect(),
        SetItem::Label(..) => Vec::new(),
    }
}

/// What an expression may be replaced by: each of its children, then small
/// literals (the checker keeps those of the right type). A child holding
/// `collect` is left out: its list order is the engine's choice, which the
/// expression around it did not show; so is a bare `shortestPath()`, which
/// of several shortest paths being the engine's choice.
pub(crate) fn replacements(e: &Expr) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    let mut copy = e.clone();
    for child in copy.children_mut() {
        let mut collects = matches!(child, Expr::ShortestPath(_));
        child.walk(&mut |x| collects |= matches!(x, Expr::Aggregate { name, .. } if name == "collect"));
        if !collects {
            out.push(child.clone());
        }
    }
    if e.has_aggregate() {
        // An aggregate made a literal changes what is grouped: kept whole.
        return out;
    }
    if let Expr::List(items) = e
        && items.len() > 1
    {
        // One element fewer: a list is reduced element by element.
        out.extend((0..items.len()).map(|i| {
            let mut fewer = items.clone();
            fewer.remove(i);
            Expr::List(fewer)
        }));
    }
    // Small literals in a fixed order of preference: a literal is tried only
    // against those before it, so replacements never go round in a circle.
    let small = [
        Value::Int(0),
        Value::Bool(true),
        Value::Bool(false),
        Value::String(String::new()),
        Value::Float(0.0),
        Value::List(Vec::new()),
        Value::Null,
    ];
    let rank = match e {
        Expr::Literal(v) => small.iter().position(|s| s == v).unwrap_or(small.len()),
        _ => small.len(),
    };
    out.extend(small.into_iter().take(rank).map(Expr::Literal));
    out
}

/// `edit`, made on `source`, made on `target` (the source itself or a query
/// derived from it): at the clause of `target` that corresponds to the
/// source's, where the place the edit changes must be unchanged. A derived
/// query has the source's clauses, some of them rewritten, and perhaps one
/// clause inserted. The edited query comes with the columns its ORDER BY
/// fixes, starting from the target's `order`.
pub(crate) fn apply(s: &Query, t: &Query, order: &Option<Vec<usize>>, edit: &Edit) -> Option<Edited> {
    if let Edit::Part(i) = edit {
        return (s == t)
            .then(|| (Query { parts: vec![s.parts[*i].clone()], union_all: false, spelling: s.spelling }, None));
    }
    if let Edit::UnionColumn(j) = edit {
        if s != t {
            return None;
        }
        let mut parts = s.parts.clone();
        for part in &mut parts {
            match part.clauses.last_mut() {
                Some(Clause::Return(r)) if r.items.len() > 1 && *j < r.items.len() => {
                    r.items.remove(*j);
                }
                _ => return None,
            }
        }
        return Some((Query { parts, union_all: s.union_all, spelling: s.spelling }, None));
    }
    if let Edit::InPart(i, inner) = edit {
        if s != t {
            return None;
        }
        let alone = alone(s.parts.get(*i)?);
        let (edited, _) = apply(&alone, &alone, &None, inner)?;
        let [part] = <[SingleQuery; 1]>::try_from(edited.parts).ok()?;
        let mut parts = s.parts.clone();
        parts[*i] = part;
        return Some((Query { parts, union_all: s.union_all, spelling: s.spelling }, order.clone()));
    }
    let ([sp], [tp]) = (s.parts.as_slice(), t.parts.as_slice()) else { return None };
    let (sc, tc) = (&sp.clauses, &tp.clauses);
    // Where the target inserted a clause, if it did.
    let inserted = match tc.len().checked_sub(sc.len())? {
        0 => None,
        1 => Some((0..sc.len()).find(|&k| tc[k] != sc[k] && tc[k + 1..] == sc[k..]).unwrap_or(sc.len())),
        _ => return None,
    };
    let at = |i: usize| match inserted {
        Some(k) if i >= k => i + 1,
        _ => i,
    };
    let mut clauses = tc.clone();
    match edit {
        Edit::Part(_) | Edit::InPart(..) | Edit::UnionColumn(_) => unreachable!("handled above"),
        Edit::Prefix(i) => {
            if inserted.is_some_and(|k| k < *i) || tc.get(..*i)? != sc.get(..*i)? {
                return None;
            }
            clauses.drain(..*i);
        }
        Edit::Clause(i, change) => {
            if tc.get(at(*i))? != sc.get(*i)? {
                return None;
            }
            if *change == ClauseEdit::Remove {
                clauses.remove(at(*i));
            } else if *change == ClauseEdit::Inline {
                let body = inline_call(&clauses[at(*i)])?;
                clauses.splice(at(*i)..=at(*i), body);
            } else {
                edit_clause(&mut clauses[at(*i)], change)?;
            }
        }
        Edit::Expr { clause, slot, path, with } => {
            let mut own = sc.get(*clause)?.clone();
            let before = slots(&mut own).into_iter().nth(*slot)?.at_mut(path)?.clone();
            let there = slots(clauses.get_mut(at(*clause))?).into_iter().nth(*slot)?.at_mut(path)?;
            if *there != before {
                return None;
            }
            *there = with.clone();
        }
    }
    let mut order_columns = order.clone();
    if clauses.last() != tc.last()
        && let Some(Clause::Return(r)) = clauses.last()
    {
        order_columns = order_of(r);
    }
    Some((Query { parts: vec![SingleQuery { clauses }], union_all: t.union_all, spelling: t.spelling }, order_columns))
}

/// An edited query and the result columns its ORDER BY fixes.
pub(crate) type Edited = (Query, Option<Vec<usize>>);

/// A UNION part as a query of its own.
pub(crate) fn alone(part: &SingleQuery) -> Query {
    Query { parts: vec![part.clone()], union_all: false, spelling: Default::default() }
}

/// Makes `change` to `c`; `None` where it does not apply.
pub(crate) fn edit_clause(c: &mut Clause, change: &ClauseEdit) -> Option<()> {
    let before = match_variables(c);
    match (&mut *c, change) {
        (_, ClauseEdit::Remove) => return None,
        (Clause::Match { predicate, .. }, ClauseEdit::Predicate) => *predicate = None,
        (Clause::Match { guard, .. }, ClauseEdit::Guard(k)) => {
            let mut parts: Vec<Expr> = guard.as_ref()?.conjuncts().into_iter().cloned().collect();
            if *k >= parts.len() {
                return None;
            }
            parts.remove(*k);
            *guard = Expr::and_all(parts);
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Predicate) => p.predicate = None,
        (Clause::Match { optional, .. }, ClauseEdit::Optional) => *optional = false,
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Item(j)) => {
            if *j >= p.items.len() {
                return None;
            }
            p.items.remove(*j);
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Order) => p.order_by.clear(),
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Paging) => {
            p.skip = None;
            p.limit = None;
        }
        (Clause::With(p) | Clause::Return(p), ClauseEdit::Distinct) => p.distinct = false,
        (Clause::Set { items }, ClauseEdit::SetItem(k)) => {
            if *k >= items.len() || items.len() < 2 {
                return None;
            }
            items.remove(*k);
        }
        (Clause::Merge { on_create, on_match, .. }, ClauseEdit::SetItem(k)) => {
            if *k < on_create.len() {
                on_create.remove(*k);
            } else if *k - on_create.len() < on_match.len() {
                on_match.remove(*k - on_create.len());
            } else {
                return None;
            }
        }
        (Clause::Match { patterns, .. } | Clause::Create { patterns }, ClauseEdit::Pattern(j)) => {
            if *j >= patterns.len() || patterns.len() < 2 {
                return None;
            }
            patterns.remove(*j);
        }
        (c, change) => {
            let patterns: &mut [PathPattern] = match c {
                Clause::Match { patterns, .. } | Clause::Create { patterns } => patterns,
                Clause::Merge { pattern, .. } => std::slice::from_mut(pattern),
                _ => return None,
            };
            match *change {
                ClauseEdit::LastHop(j) => {
                    patterns.get_mut(j)?.hops.pop()?;
                }
                ClauseEdit::FixedLength(j, h) => patterns.get_mut(j)?.hops.get_mut(h)?.0.length = None,
                ClauseEdit::Directed(j, h) => {
                    let r = &mut patterns.get_mut(j)?.hops.get_mut(h)?.0;
                    if r.direction != Direction::Both {
                        return None;
                    }
                    r.direction = Direction::Out;
                }
                ClauseEdit::Label { part, node, label } => {
                    let n = node_of(patterns.get_mut(part)?, node)?;
                    if label >= n.labels.len() {
                        return None;
                    }
                    n.labels.remove(label);
                }
                ClauseEdit::Property { part, node, key } => {
                    let n = node_of(patterns.get_mut(part)?, node)?;
                    if key >= n.properties.len() {
                        return None;
                    }
                    n.properties.remove(key);
                }
                ClauseEdit::RelProperty { part, hop, key } => {
                    let r = &mut patterns.get_mut(part)?.hops.get_mut(hop)?.0;
                    if key >= r.properties.len() {
                        return None;
                    }
                    r.properties.remove(key);
                }
                ClauseEdit::PathName(part) => patterns.get_mut(part)?.name = None,
                _ => return None,
            }
        }
    }
    // A guard conjunct about a relationship no longer matched goes with it.
    let after = match_variables(c);
    if let Clause::Match { guard, .. } = c
        && after != before
        && let Some(g) = guard.take()
    {
        let gone: Vec<&String> = before.difference(&after).collect();
        *guard = Expr::and_all(g.conjuncts().into_iter().filter(|e| !gone.iter().any(|v| mentions(e, v))).cloned());
    }
    Some(())
}

/// The variables a MATCH's patterns bind (empty for other clauses).
pub(crate) fn match_variables(c: &Clause) -> BTreeSet<String> {
    match c {
        Clause::Match { patterns, .. } => patterns.iter().flat_map(PathPattern::variables).cloned().collect(),
        _ => BTreeSet::new(),
    }
}

pub(crate) fn node_of(p: &mut PathPattern, node: usize) -> Option<&mut graphlancer_cypher::ast::NodePattern> {
    if node == 0 { Some(&mut p.start) } else { p.hops.get_mut(node - 1).map(|(_, n)| n) }
}

/// The result columns a projection's ORDER BY fixes: its keys up to the
/// first that is not a column. A reduced RETURN can lose the item a key
/// names (`ORDER BY a0, n0` where `a0` now reads the WITH's variable), and
/// the rows are then sorted by what no column shows: the later keys fix
/// no order of their own.
pub(crate) fn order_of(p: &graphlancer_cypher::ast::Projection) -> Option<Vec<usize>> {
    (!p.order_by.is_empty()).then(|| {
        p.order_by
            .iter()
            .map_while(|(e, _)| match e {
                Expr::Variable(v) => p.items.iter().position(|(_, a)| a == v),
                _ => None,
            })
            .collect()
    })
}

/// `prefix` followed by `RETURN items`.
pub(crate) fn returning(prefix: &[Clause], items: Vec<(Expr, String)>) -> Query {
    let mut clauses = prefix.to_vec();
    clauses.push(Clause::Return(Projection::of(items)));
    Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
}

/// `clause`, after `before`, without the parts a finding does not need:
/// each edit of it that changes its `name` is tried on `before, edited,
/// RETURN 0`, and kept where `holds` says the finding still shows (`None`:
/// not tried, and not counted among the `tries` tried at most). What is
/// left names the finding, so the parts around one fault that a reducer
/// could not remove do not make one name each.
pub(crate) fn least_clause<N: PartialEq, E>(
    before: &[Clause],
    mut clause: Clause,
    tries: usize,
    name: impl Fn(&Clause) -> N,
    mut holds: impl FnMut(&Query, &Clause) -> Result<Option<bool>, E>,
) -> Result<Clause, E> {
    let mut tried = 0;
    'edits: loop {
        let mut cut = before.to_vec();
        cut.push(clause.clone());
        let query = returning(&cut, vec![(Expr::lit(Value::Int(0)), "x".into())]);
        for edit in clause_edits(&clause) {
            if tried >= tries {
                break 'edits;
            }
            let Some((edited, _)) = apply(&query, &query, &None, &Edit::Clause(before.len(), edit)) else { continue };
            let Some(changed) = edited.parts.first().and_then(|p| p.clauses.get(before.len())) else { continue };
            if name(changed) == name(&clause) {
                continue;
            }
            let Some(shows) = holds(&edited, changed)? else { continue };
            tried += 1;
            if shows {
                clause = changed.clone();
                continue 'edits;
            }
        }
        break;
    }
    Ok(clause)
}

#[cfg(test)]
mod order {
    use graphlancer_cypher::ast::Clause;
    use graphlancer_cypher::parse::parse;

    fn order(text: &str) -> Option<Vec<usize>> {
        let q = parse(text).expect(text);
        let Some(Clause::Return(r)) = q.parts[0].clauses.last() else { panic!("{text}") };
        super::order_of(r)
    }

    /// Rows sorted first by what no column shows are in no order the
    /// columns can check; the keys before it still fix theirs.
    #[test]
    fn an_order_key_that_is_not_a_column_ends_the_order() {
        assert_eq!(order("MATCH (n0) RETURN n0, 0 AS a0 ORDER BY a0, n0"), Some(vec![1, 0]));
        assert_eq!(order("MATCH (n0) WITH n0, 0 AS a0 RETURN n0 ORDER BY a0, n0"), Some(vec![]));
        assert_eq!(order("MATCH (n0) RETURN n0 AS x, 1 AS y ORDER BY x, n0.k, y"), Some(vec![0]));
        assert_eq!(order("MATCH (n0) RETURN n0"), None);
    }
}
