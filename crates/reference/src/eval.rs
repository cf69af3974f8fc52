//! Clauses, one at a time over all rows (Cypher's clause-at-a-time
//! semantics).

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_cypher::ast::{Clause, Expr, PathPattern, Projection, Query, RemoveItem, SetItem, SingleQuery};

use crate::expr::{binary, negate, not};
use crate::state::{Ev, Row};
use crate::store::{NodeRec, RelRec, Store};
use crate::value::{Key, V, order};
use crate::{ErrorClass, Failure};

type Table = (Vec<String>, Vec<Vec<V>>);

impl<'s> Ev<'s> {
    pub(crate) fn query(&mut self, q: &Query) -> Result<Table, Failure> {
        let mut columns: Option<Vec<String>> = None;
        let mut rows = Vec::new();
        for part in &q.parts {
            let (cols, mut part_rows) = self.single(part, vec![Row::new()])?;
            // A query that ends in an update returns nothing.
            let cols = cols.unwrap_or_else(|| {
                part_rows.clear();
                Vec::new()
            });
            if columns.as_ref().is_some_and(|c| *c != cols) {
                return Err(Failure::semantic("UNION parts return different columns"));
            }
            columns = Some(cols.clone());
            rows.extend(
                part_rows
                    .into_iter()
                    .map(|r| cols.iter().map(|c| r.get(c).cloned().unwrap_or(V::Null)).collect::<Vec<V>>()),
            );
        }
        if q.parts.len() > 1 && !q.union_all {
            rows = distinct(rows, |r: &Vec<V>| r.clone())?;
        }
        Ok((columns.unwrap_or_default(), rows))
    }

    /// Runs the clauses of `q` from `rows`; the columns are RETURN's, if any.
    fn single(&mut self, q: &SingleQuery, mut rows: Vec<Row>) -> Result<(Option<Vec<String>>, Vec<Row>), Failure> {
        let mut columns = None;
        // The variables in scope, by the clauses: no rows tell what `*` is.
        let mut scope: BTreeSet<String> = rows.first().map(|r| r.keys().cloned().collect()).unwrap_or_default();
        for c in &q.clauses {
            if let Clause::Return(p) = c {
                if p.star {
                    return Err(Failure::unsupported("RETURN *: engines order its columns differently"));
                }
                columns = Some(p.items.iter().map(|(_, a)| a.clone()).collect());
            }
            rows = self.clause(c, rows, &scope)?;
            bind(c, &mut scope);
        }
        Ok((columns, rows))
    }

    fn clause(&mut self, c: &Clause, rows: Vec<Row>, scope: &BTreeSet<String>) -> Result<Vec<Row>, Failure> {
        match c {
            Clause::Match { optional, patterns, guard, predicate } => {
                let cond = Expr::and_all(guard.iter().chain(predicate.iter()).cloned());
                let mut out = Vec::new();
                for row in rows {
                    let mut found = Vec::new();
                    for m in self.match_patterns(patterns, &row)? {
                        if self.holds(cond.as_ref(), &m)? {
                            found.push(m);
                        }
                    }
                    self.tick(out.len() + found.len())?;
                    if found.is_empty() && *optional {
                        let mut r = row.clone();
                        for v in crate::pattern::new_variables(patterns, &row) {
                            r.insert(v, V::Null);
                        }
                        found.push(r);
                    }
                    out.extend(found);
                }
                Ok(out)
            }
            Clause::Unwind { list, alias } => {
                let mut out = Vec::new();
                for row in rows {
                    let items = match self.expr(list, &row)? {
                        V::List(l) => l,
                        V::Null => Vec::new(),
                        other => vec![other],
                    };
                    for v in items {
                        let mut r = row.clone();
                        r.insert(alias.clone(), v);
                        out.push(r);
                    }
                    self.tick(out.len())?;
                }
                Ok(out)
            }
            Clause::With(p) | Clause::Return(p) => self.project(p, rows, scope),
            // Engines keep labels and types in catalogues of their own
            // (ArcadeDB's types outlive their last vertex and a rolled-back
            // write), which no rule ties to the graph.
            Clause::Procedure { name, .. } => Err(Failure::unsupported(format!("the procedure {name}"))),
            Clause::Call { imports, body, union_all } => {
                let mut out = Vec::new();
                for row in rows {
                    let start: Row =
                        imports.iter().filter_map(|v| row.get(v).map(|x| (v.clone(), x.clone()))).collect();
                    for part in std::iter::once(body).chain(union_all) {
                        let (_, returned) = self.single(part, vec![start.clone()])?;
                        for r in returned {
                            let mut joined = row.clone();
                            joined.extend(r.into_iter().filter(|(k, _)| !imports.contains(k)));
                            out.push(joined);
                        }
                        self.tick(out.len())?;
                    }
                }
                Ok(out)
            }
            Clause::Create { patterns } => {
                let mut out = Vec::with_capacity(rows.len());
                for row in rows {
                    out.push(self.create(patterns, row)?);
                }
                Ok(out)
            }
            Clause::Merge { pattern, on_create, on_match } => {
                // Each row's MERGE sees what earlier rows created and set, and
                // no order of rows is the right one: where the reverse order
                // gives another outcome, the answer is not one.
                // A SET of what the pattern matches on (a key or label it
                // tests) changes which later rows match, so some order of
                // different rows gives another outcome even where the
                // reverse does not.
                let alike = || {
                    let keys: Vec<Vec<(&String, Key)>> =
                        rows.iter().map(|r| r.iter().map(|(k, v)| (k, Key::of(v))).collect()).collect();
                    keys.windows(2).all(|w| w[0] == w[1])
                };
                if sets_what_it_matches(pattern, on_create.iter().chain(on_match)) && !alike() {
                    return Err(Failure::unsupported("a MERGE that sets what it matches, over several rows"));
                }
                if rows.len() > 1 {
                    let mut reversed = rows.clone();
                    reversed.reverse();
                    let mut copy = self.store.clone();
                    let other = Ev::new(&mut copy, self.limits).merge(pattern, on_create, on_match, reversed)?;
                    let out = self.merge(pattern, on_create, on_match, rows)?;
                    let sizes = |s: &Store| (s.nodes.len(), s.rels.len());
                    if out.len() != other.len() || sizes(self.store) != sizes(&copy) {
                        return Err(Failure::unsupported("a MERGE whose outcome depends on the order of its rows"));
                    }
                    return Ok(out);
                }
                self.merge(pattern, on_create, on_match, rows)
            }
            Clause::Set { items } => self.set_rows(items, rows),
            Clause::Remove { items } => {
                for row in &rows {
                    for item in items {
                        match item {
                            RemoveItem::Property(v, k) => {
                                if let Some(props) = self.props_mut(self.lookup(v, row)?, "REMOVE")? {
                                    props.remove(k);
                                }
                            }
                            RemoveItem::Label(v, l) => match self.lookup(v, row)? {
                                V::Null => {}
                                V::Node(n) => {
                                    self.node_mut(n)?.labels.remove(l);
                                }
                                other => {
                                    return Err(Failure::runtime(format!("REMOVE of a label on a {}", other.kind())));
                                }
                            },
                        }
                    }
                }
                Ok(rows)
            }
            Clause::Delete { detach, variables } => {
                let mut nodes = Vec::new();
                for row in &rows {
                    for v in variables {
                        match self.lookup(v, row)? {
                            V::Null => {}
                            V::Node(n) => nodes.push(n),
                            V::Rel(r) => self.store.rels[r].deleted = true,
                            V::Path(ns, rs) => {
                                nodes.extend(ns);
                                rs.into_iter().for_each(|r| self.store.rels[r].deleted = true);
                            }
                            other => return Err(Failure::runtime(format!("DELETE of a {}", other.kind()))),
                        }
                    }
                }
                for n in nodes {
                    self.store.nodes[n].deleted = true;
                    if *detach {
                        for r in self.store.incident[n].clone() {
                            self.store.rels[r].deleted = true;
                        }
                    }
                }
                Ok(rows)
            }
            Clause::Foreach { variable, list, body } => {
                for row in &rows {
                    let items = match self.expr(list, row)? {
                        V::List(l) => l,
                        V::Null => Vec::new(),
                        other => return Err(Failure::runtime(format!("FOREACH over a {}", other.kind()))),
                    };
                    for item in items {
                        let mut r = row.clone();
                        r.insert(variable.clone(), item);
                        let mut inner = vec![r];
                        // A FOREACH body only updates: it projects nothing.
                        for c in body {
                            inner = self.clause(c, inner, scope)?;
                        }
                    }
                }
                Ok(rows)
            }
        }
    }

    fn merge(
        &mut self,
        pattern: &PathPattern,
        on_create: &[SetItem],
        on_match: &[SetItem],
        rows: Vec<Row>,
    ) -> Result<Vec<Row>, Failure> {
        let mut out = Vec::new();
        for row in rows {
            let found = self.match_patterns(std::slice::from_ref(pattern), &row)?;
            if found.is_empty() {
                self.merge_nulls(pattern, &row)?;
                // MERGE creates an undirected relationship left to right.
                let mut directed = pattern.clone();
                for (rp, _) in &mut directed.hops {
                    if rp.direction == graphlancer_cypher::ast::Direction::Both {
                        rp.direction = graphlancer_cypher::ast::Direction::Out;
                    }
                }
                let created = self.create(std::slice::from_ref(&directed), row)?;
                out.push(self.set(on_create, created)?);
            } else {
                for m in found {
                    out.push(self.set(on_match, m)?);
                }
            }
            self.tick(out.len())?;
        }
        Ok(out)
    }

    /// SET over all rows; two rows writing different values to one property,
    /// or one row replacing a map another writes a key of, leave the outcome
    /// to the order of rows, which no rule fixes.
    fn set_rows(&mut self, items: &[SetItem], rows: Vec<Row>) -> Result<Vec<Row>, Failure> {
        // Per entity and key, the value the first row wrote; a replaced map
        // is compared whole, under the empty key.
        let mut written: BTreeMap<(Key, String), Key> = BTreeMap::new();
        // Per entity and whether the write replaced its map, the first row
        // that wrote so: rows come in order, so an earlier row of the other
        // kind is another row.
        let mut first: BTreeMap<(Key, bool), usize> = BTreeMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for (at, row) in rows.into_iter().enumerate() {
            let row = self.set(items, row)?;
            for item in items {
                let (SetItem::Property(v, ..)
                | SetItem::MergeMap(v, _)
                | SetItem::ReplaceMap(v, _)
                | SetItem::Label(v, _)) = item;
                let props = match row.get(v) {
                    Some(V::Node(n)) => &self.store.nodes[*n].props,
                    Some(V::Rel(r)) => &self.store.rels[*r].props,
                    _ => continue,
                };
                let value = |k: &String| Key::of(props.get(k).unwrap_or(&V::Null));
                let now: Vec<(String, Key)> = match item {
                    SetItem::Property(_, k, _) => vec![(k.clone(), value(k))],
                    SetItem::MergeMap(_, e) => e.iter().map(|(k, _)| (k.clone(), value(k))).collect(),
                    SetItem::ReplaceMap(..) => vec![(String::new(), Key::of(&V::Map(props.clone())))],
                    SetItem::Label(..) => Vec::new(),
                };
                let entity = Key::of(&row[v]);
                let replaces = match item {
                    SetItem::ReplaceMap(..) => true,
                    SetItem::Property(..) | SetItem::MergeMap(..) => false,
                    SetItem::Label(..) => continue,
                };
                if first.get(&(entity.clone(), !replaces)).is_some_and(|&r| r < at) {
                    return Err(Failure::unsupported("one row of a SET replaces the map another row writes a key of"));
                }
                first.entry((entity.clone(), replaces)).or_insert(at);
                for (k, after) in now {
                    if written.insert((entity.clone(), k), after.clone()).is_some_and(|before| before != after) {
                        return Err(Failure::unsupported("rows of one SET write different values to one property"));
                    }
                }
            }
            out.push(row);
        }
        Ok(out)
    }

    fn node_mut(&mut self, n: usize) -> Result<&mut NodeRec, Failure> {
        self.store.node(n)?;
        Ok(&mut self.store.nodes[n])
    }

    fn rel_mut(&mut self, r: usize) -> Result<&mut RelRec, Failure> {
        self.store.rel(r)?;
        Ok(&mut self.store.rels[r])
    }

    /// MERGE cannot create an entity with a null property: Neo4j raises an error.
    fn merge_nulls(&self, p: &PathPattern, row: &Row) -> Result<(), Failure> {
        let props =
            std::iter::once(&p.start.properties).chain(p.hops.iter().flat_map(|(r, n)| [&r.properties, &n.properties]));
        for list in props {
            for (k, e) in list {
                if self.expr(e, row)?.is_null() {
                    return Err(Failure::raised(
                        ErrorClass::Semantic,
                        format!("cannot merge with a null value of {k}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn create(&mut self, patterns: &[PathPattern], mut row: Row) -> Result<Row, Failure> {
        for p in patterns {
            let mut nodes = vec![self.create_node(&p.start, &mut row)?];
            let mut rels = Vec::new();
            for (rp, np) in &p.hops {
                let a = *nodes.last().unwrap_or(&0);
                let b = self.create_node(np, &mut row)?;
                let (start, end) = match rp.direction {
                    graphlancer_cypher::ast::Direction::Out => (a, b),
                    graphlancer_cypher::ast::Direction::In => (b, a),
                    graphlancer_cypher::ast::Direction::Both => {
                        return Err(Failure::semantic("CREATE of an undirected relationship"));
                    }
                };
                let [rel_type] = rp.types.as_slice() else {
                    return Err(Failure::semantic("CREATE needs exactly one relationship type"));
                };
                if rp.length.is_some() || rp.variable.as_ref().is_some_and(|v| row.contains_key(v)) {
                    return Err(Failure::semantic("CREATE of a bound or variable-length relationship"));
                }
                let props = self.props(&rp.properties, &row)?;
                let r = self.store.add_rel(RelRec { start, end, rel_type: rel_type.clone(), props, deleted: false });
                if let Some(v) = &rp.variable {
                    row.insert(v.clone(), V::Rel(r));
                }
                rels.push(r);
                nodes.push(b);
            }
            if let Some(name) = &p.name {
                row.insert(name.clone(), V::Path(nodes, rels));
            }
        }
        Ok(row)
    }

    fn create_node(&mut self, np: &graphlancer_cypher::ast::NodePattern, row: &mut Row) -> Result<usize, Failure> {
        if let Some(v) = &np.variable
            && let Some(bound) = row.get(v)
        {
            return match bound {
                V::Node(n) if np.labels.is_empty() && np.properties.is_empty() => Ok(*n),
                V::Node(_) => Err(Failure::semantic(format!("{v} is already bound"))),
                other => Err(Failure::runtime(format!("CREATE from a {}", other.kind()))),
            };
        }
        let props = self.props(&np.properties, row)?;
        let n = self.store.add_node(NodeRec { labels: np.labels.iter().cloned().collect(), props, deleted: false });
        if let Some(v) = &np.variable {
            row.insert(v.clone(), V::Node(n));
        }
        Ok(n)
    }

    fn props(&self, items: &[(String, Expr)], row: &Row) -> Result<BTreeMap<String, V>, Failure> {
        let mut out = BTreeMap::new();
        for (k, e) in items {
            let v = storable(self.expr(e, row)?)?;
            if !v.is_null() {
                out.insert(k.clone(), v);
            }
        }
        Ok(out)
    }

    fn set(&mut self, items: &[SetItem], row: Row) -> Result<Row, Failure> {
        for item in items {
            // A property is a map of one entry merged in.
            let (v, entries, replace): (&String, Vec<(&String, &Expr)>, bool) = match item {
                SetItem::Label(v, l) => {
                    match self.lookup(v, &row)? {
                        V::Null => {}
                        V::Node(n) => {
                            self.node_mut(n)?.labels.insert(l.clone());
                        }
                        other => return Err(Failure::runtime(format!("SET of a label on a {}", other.kind()))),
                    }
                    continue;
                }
                SetItem::Property(v, k, e) => (v, vec![(k, e)], false),
                SetItem::MergeMap(v, m) => (v, m.iter().map(|(k, e)| (k, e)).collect(), false),
                SetItem::ReplaceMap(v, m) => (v, m.iter().map(|(k, e)| (k, e)).collect(), true),
            };
            let mut values = Vec::with_capacity(entries.len());
            for (k, e) in entries {
                values.push((k.clone(), storable(self.expr(e, &row)?)?));
            }
            let Some(props) = self.props_mut(self.lookup(v, &row)?, "SET")? else { continue };
            if replace {
                props.clear();
            }
            for (k, value) in values {
                if value.is_null() {
                    props.remove(&k);
                } else {
                    props.insert(k, value);
                }
            }
        }
        Ok(row)
    }

    /// The properties of `target`, to change; `None` for null, which a
    /// write skips.
    fn props_mut(&mut self, target: V, what: &str) -> Result<Option<&mut BTreeMap<String, V>>, Failure> {
        Ok(Some(match target {
            V::Null => return Ok(None),
            V::Node(n) => &mut self.node_mut(n)?.props,
            V::Rel(r) => &mut self.rel_mut(r)?.props,
            other => return Err(Failure::runtime(format!("{what} on a {}", other.kind()))),
        }))
    }

    /// WITH and RETURN: projection, grouping, DISTINCT, ORDER BY, SKIP,
    /// LIMIT, then WITH's WHERE.
    fn project(&mut self, p: &Projection, rows: Vec<Row>, scope: &BTreeSet<String>) -> Result<Vec<Row>, Failure> {
        let mut items: Vec<(Expr, String)> = Vec::new();
        if p.star {
            // `*` is every variable in scope, a grouping key each (Neo4j's
            // star expansion), whether or not rows reach it.
            let listed: BTreeSet<&String> = p.items.iter().map(|(_, a)| a).collect();
            items.extend(scope.iter().filter(|n| !listed.contains(n)).map(|n| (Expr::Variable(n.clone()), n.clone())));
        }
        items.extend(p.items.iter().cloned());
        let aggregating = items.iter().any(|(e, _)| e.has_aggregate());
        if p.star && aggregating && scope.is_empty() {
            // Neo4j refuses `RETURN *` over no variables; whether `WITH *`
            // over anonymous ones groups at all is not written down.
            return Err(Failure::unsupported("an aggregating `*` projection over no named variables"));
        }
        // Each output row with the input row it came from (for ORDER BY).
        let mut out: Vec<(Row, Option<Row>)> = Vec::new();
        if aggregating {
            let keys: Vec<&(Expr, String)> = items.iter().filter(|(e, _)| !e.has_aggregate()).collect();
            let mut groups: Vec<(Vec<Key>, Vec<V>, Vec<Row>)> = Vec::new();
            let mut index: BTreeMap<Vec<Key>, usize> = BTreeMap::new();
            for row in rows {
                let values: Vec<V> = keys.iter().map(|(e, _)| self.expr(e, &row)).collect::<Result<_, _>>()?;
                let key: Vec<Key> = values.iter().map(Key::of).collect();
                match index.get(&key) {
                    Some(&i) => groups[i].2.push(row),
                    None => {
                        index.insert(key.clone(), groups.len());
                        groups.push((key, values, vec![row]));
                    }
                }
            }
            if Key::mixes_numbers(index.keys().flat_map(|k| k.iter())) {
                return Err(Failure::unsupported("grouping keys that are equal numbers of both types"));
            }
            if groups.is_empty() && keys.is_empty() {
                groups.push((Vec::new(), Vec::new(), Vec::new()));
            }
            for (_, values, members) in groups {
                let mut r = Row::new();
                let mut values = values.into_iter();
                for (e, alias) in &items {
                    let v = if e.has_aggregate() {
                        self.aggregated(e, &members)?
                    } else {
                        values.next().unwrap_or(V::Null)
                    };
                    r.insert(alias.clone(), v);
                }
                out.push((r, None));
            }
        } else {
            for row in rows {
                let mut r = Row::new();
                for (e, alias) in &items {
                    r.insert(alias.clone(), self.expr(e, &row)?);
                }
                out.push((r, Some(row)));
            }
        }
        if p.distinct {
            let columns: Vec<&String> = items.iter().map(|(_, a)| a).collect();
            let key =
                |(r, _): &(Row, Option<Row>)| columns.iter().map(|c| r.get(*c).cloned().unwrap_or(V::Null)).collect();
            out = distinct(out, key)?;
            out.iter_mut().for_each(|(_, from)| *from = None);
        }
        if !p.order_by.is_empty() {
            let keys: Vec<Expr> = p.order_by.iter().map(|(e, _)| projected(e, &items)).collect();
            if !out.is_empty() && keys.iter().any(Expr::has_aggregate) {
                return Err(Failure::unsupported("ORDER BY an aggregate not projected"));
            }
            let mut keyed = Vec::with_capacity(out.len());
            for (r, from) in out {
                let mut env = from.clone().unwrap_or_default();
                env.extend(r.clone());
                let ks = keys.iter().map(|e| self.expr(e, &env)).collect::<Result<Vec<_>, _>>()?;
                keyed.push((ks, r, from));
            }
            keyed.sort_by(|(a, ..), (b, ..)| {
                for ((x, y), (_, desc)) in a.iter().zip(b).zip(&p.order_by) {
                    let o = order(x, y);
                    let o = if *desc { o.reverse() } else { o };
                    if o != std::cmp::Ordering::Equal {
                        return o;
                    }
                }
                std::cmp::Ordering::Equal
            });
            out = keyed.into_iter().map(|(_, r, from)| (r, from)).collect();
        }
        let skip = p.skip.unwrap_or(0) as usize;
        let limit = p.limit.map_or(usize::MAX, |l| l as usize);
        let out = out.into_iter().skip(skip).take(limit);
        let Some(w) = &p.predicate else { return Ok(out.map(|(r, _)| r).collect()) };
        // WITH's WHERE sees the projected variables, and those before the
        // projection where a row comes from one row.
        let w = projected(w, &items);
        let mut kept = Vec::new();
        for (r, from) in out {
            let mut env = from.unwrap_or_default();
            env.extend(r.clone());
            if self.holds(Some(&w), &env)? {
                kept.push(r);
            }
        }
        Ok(kept)
    }

    /// An item with aggregates, over one group's rows; the rest of the
    /// expression is evaluated on the group's first row (it may only use
    /// grouping keys).
    fn aggregated(&self, e: &Expr, rows: &[Row]) -> Result<V, Failure> {
        let first = rows.first().cloned().unwrap_or_default();
        match e {
            Expr::Aggregate { name, distinct: dist, arg, percentile } => {
                let mut values = Vec::new();
                for r in rows {
                    match arg {
                        None => values.push(V::Bool(true)),
                        Some(a) => {
                            let v = self.expr(a, r)?;
                            if !v.is_null() {
                                values.push(v);
                            }
                        }
                    }
                }
                if *dist {
                    values = distinct(values, |v: &V| vec![v.clone()])?;
                }
                crate::functions::aggregate(name, values, *percentile)
            }
            e if !e.has_aggregate() => self.expr(e, &first),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.aggregated(a, rows)?, self.aggregated(b, rows)?);
                binary(*op, a, b)
            }
            Expr::Function(name, args) => {
                let args = args.iter().map(|a| self.aggregated(a, rows)).collect::<Result<Vec<_>, _>>()?;
                crate::functions::call(self, name, args)
            }
            Expr::List(items) => Ok(V::List(items.iter().map(|a| self.aggregated(a, rows)).collect::<Result<_, _>>()?)),
            Expr::Negate(a) => negate(self.aggregated(a, rows)?),
            Expr::Not(a) => not(self.aggregated(a, rows)?),
            Expr::IsNull { expr, negated } => Ok(V::Bool(self.aggregated(expr, rows)?.is_null() != *negated)),
            Expr::Property(a, k) => self.property(self.aggregated(a, rows)?, k),
            _ => Err(Failure::unsupported("an aggregate inside this expression")),
        }
    }
}

/// A value a property may hold: scalars and lists of them.
fn storable(v: V) -> Result<V, Failure> {
    match &v {
        V::Map(_) | V::Node(_) | V::Rel(_) | V::Path(..) => {
            Err(Failure::runtime(format!("a {} as a property value", v.kind())))
        }
        V::List(l) if l.iter().any(|x| !matches!(x, V::Bool(_) | V::Int(_) | V::Float(_) | V::Str(_))) => {
            Err(Failure::unsupported("a list property of mixed or null elements"))
        }
        _ => Ok(v),
    }
}

/// Rows kept once each by their values' keys (DISTINCT, UNION).
fn distinct<T>(rows: Vec<T>, key: impl Fn(&T) -> Vec<V>) -> Result<Vec<T>, Failure> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for r in rows {
        let k: Vec<Key> = key(&r).iter().map(Key::of).collect();
        if seen.insert(k) {
            out.push(r);
        }
    }
    if Key::mixes_numbers(seen.iter().flat_map(|k| k.iter())) {
        return Err(Failure::unsupported("DISTINCT over equal numbers of both types"));
    }
    Ok(out)
}

/// `e` with every sub-expression that a projection item computes replaced by
/// the item's variable: ORDER BY and WITH's WHERE may repeat a projected
/// expression (`WITH a.x AS k, count(*) AS c ORDER BY a.x`).
/// Updates `scope`, the variables in scope, by what clause `c` binds.
fn bind(c: &Clause, scope: &mut BTreeSet<String>) {
    match c {
        Clause::Match { patterns, .. } | Clause::Create { patterns } => {
            scope.extend(crate::pattern::new_variables(patterns, &Row::new()));
        }
        Clause::Merge { pattern, .. } => {
            scope.extend(crate::pattern::new_variables(std::slice::from_ref(pattern), &Row::new()))
        }
        Clause::Unwind { alias, .. } | Clause::Procedure { alias, .. } => {
            scope.insert(alias.clone());
        }
        Clause::With(p) | Clause::Return(p) => {
            if !p.star {
                scope.clear();
            }
            scope.extend(p.items.iter().map(|(_, a)| a.clone()));
        }
        Clause::Call { body, .. } => {
            if let Some(Clause::Return(p)) = body.clauses.last() {
                scope.extend(p.items.iter().map(|(_, a)| a.clone()));
            }
        }
        Clause::Set { .. } | Clause::Remove { .. } | Clause::Delete { .. } | Clause::Foreach { .. } => {}
    }
}

fn projected(e: &Expr, items: &[(Expr, String)]) -> Expr {
    if let Some((_, alias)) = items.iter().find(|(ie, _)| ie == e) {
        return Expr::Variable(alias.clone());
    }
    let mut out = e.clone();
    for child in out.children_mut() {
        *child = projected(child, items);
    }
    out
}

/// Whether a MERGE's ON CREATE or ON MATCH items write a property key or a
/// label its pattern tests (a whole-map SET writes every key).
fn sets_what_it_matches<'a>(pattern: &PathPattern, items: impl Iterator<Item = &'a SetItem>) -> bool {
    let mut keys = std::collections::BTreeSet::new();
    let mut labels = std::collections::BTreeSet::new();
    for n in std::iter::once(&pattern.start).chain(pattern.hops.iter().map(|(_, n)| n)) {
        keys.extend(n.properties.iter().map(|(k, _)| k));
        labels.extend(n.labels.iter());
    }
    for (r, _) in &pattern.hops {
        keys.extend(r.properties.iter().map(|(k, _)| k));
    }
    items.into_iter().any(|item| match item {
        SetItem::Property(_, k, _) => keys.contains(k),
        SetItem::MergeMap(_, entries) => entries.iter().any(|(k, _)| keys.contains(k)),
        SetItem::ReplaceMap(..) => !keys.is_empty(),
        SetItem::Label(_, l) => labels.contains(l),
    })
}
