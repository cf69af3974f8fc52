//! Pattern matching: every way a MATCH's patterns map onto the graph, with
//! each relationship used at most once across all the patterns of a clause
//! (openCypher's relationship uniqueness), variable-length hops included.

use graphlancer_cypher::ast::{Direction, NodePattern, PathPattern, RelPattern};

use crate::Failure;
use crate::state::{Ev, Row};
use crate::value::{V, equals};

/// Where a walk along one path pattern is.
struct Walk {
    row: Row,
    nodes: Vec<usize>,
    rels: Vec<usize>,
}

impl Ev<'_> {
    /// Every extension of `row` that binds `patterns`.
    pub(crate) fn match_patterns(&self, patterns: &[PathPattern], row: &Row) -> Result<Vec<Row>, Failure> {
        let mut out = Vec::new();
        let mut used = Vec::new();
        self.pattern(patterns, row.clone(), &mut used, &mut out)?;
        Ok(out)
    }

    fn pattern(
        &self,
        patterns: &[PathPattern],
        row: Row,
        used: &mut Vec<usize>,
        out: &mut Vec<Row>,
    ) -> Result<(), Failure> {
        let Some((p, rest)) = patterns.split_first() else {
            out.push(row);
            return Ok(());
        };
        if p.name.as_ref().is_some_and(|n| row.contains_key(n)) {
            return Err(Failure::unsupported("a path variable bound before its pattern"));
        }
        // A bound start is the one candidate.
        let candidates: Vec<usize> = match p.start.variable.as_ref().and_then(|v| row.get(v)) {
            Some(V::Node(n)) => vec![*n],
            _ => (0..self.store.nodes.len()).collect(),
        };
        for n in candidates {
            if let Some(row) = self.node_fits(&p.start, n, &row)? {
                let walk = Walk { row, nodes: vec![n], rels: Vec::new() };
                self.hop(p, 0, walk, rest, used, out)?;
            }
        }
        Ok(())
    }

    fn hop(
        &self,
        p: &PathPattern,
        i: usize,
        walk: Walk,
        rest: &[PathPattern],
        used: &mut Vec<usize>,
        out: &mut Vec<Row>,
    ) -> Result<(), Failure> {
        let Some((rp, np)) = p.hops.get(i) else {
            let mut row = walk.row;
            if let Some(name) = &p.name {
                row.insert(name.clone(), V::Path(walk.nodes, walk.rels));
            }
            return self.pattern(rest, row, used, out);
        };
        let at = *walk.nodes.last().unwrap_or(&0);
        match rp.length {
            None => {
                for (r, next) in self.steps_from(at, rp, &walk.row)? {
                    if used.contains(&r) {
                        continue;
                    }
                    let Some(row) = self.rel_var(rp, V::Rel(r), &walk.row)? else { continue };
                    let Some(row) = self.node_fits(np, next, &row)? else { continue };
                    let mut nodes = walk.nodes.clone();
                    nodes.push(next);
                    let mut rels = walk.rels.clone();
                    rels.push(r);
                    used.push(r);
                    let res = self.hop(p, i + 1, Walk { row, nodes, rels }, rest, used, out);
                    used.pop();
                    res?;
                }
            }
            Some((min, max)) => {
                if rp.variable.as_ref().is_some_and(|v| walk.row.contains_key(v)) {
                    return Err(Failure::unsupported("a variable-length relationship variable bound before"));
                }
                let mut trail = Vec::new();
                self.var_length(p, i, (min, max), &walk, at, &mut trail, rest, used, out)?;
            }
        }
        Ok(())
    }

    /// Paths of `min..=max` hops from `at`, each relationship once.
    #[allow(clippy::too_many_arguments)]
    fn var_length(
        &self,
        p: &PathPattern,
        i: usize,
        (min, max): (u32, u32),
        walk: &Walk,
        at: usize,
        trail: &mut Vec<(usize, usize)>,
        rest: &[PathPattern],
        used: &mut Vec<usize>,
        out: &mut Vec<Row>,
    ) -> Result<(), Failure> {
        let (rp, np) = &p.hops[i];
        let depth = trail.len() as u32;
        if depth >= min {
            let rels: Vec<V> = trail.iter().map(|(r, _)| V::Rel(*r)).collect();
            if let Some(row) = self.rel_var(rp, V::List(rels), &walk.row)?
                && let Some(row) = self.node_fits(np, at, &row)?
            {
                let mut nodes = walk.nodes.clone();
                nodes.extend(trail.iter().map(|(_, n)| *n));
                let mut rels = walk.rels.clone();
                rels.extend(trail.iter().map(|(r, _)| *r));
                let added: Vec<usize> = trail.iter().map(|(r, _)| *r).collect();
                used.extend(&added);
                let res = self.hop(p, i + 1, Walk { row, nodes, rels }, rest, used, out);
                used.truncate(used.len() - added.len());
                res?;
            }
        }
        if depth < max {
            for (r, next) in self.steps_from(at, rp, &walk.row)? {
                if used.contains(&r) || trail.iter().any(|(t, _)| *t == r) {
                    continue;
                }
                trail.push((r, next));
                let res = self.var_length(p, i, (min, max), walk, next, trail, rest, used, out);
                trail.pop();
                res?;
            }
        }
        Ok(())
    }

    /// `shortestPath()` between the two nodes `p`'s ends are bound to: a
    /// path of fewest relationships within the hop's bounds, found breadth
    /// first, or null. From a node to itself with a lower bound of 1 engines
    /// differ (FalkorDB null, ArcadeDB a path of length 0, Neo4j an error),
    /// so the reference leaves it open.
    pub(crate) fn shortest_path(&self, p: &PathPattern, row: &Row) -> Result<V, Failure> {
        let [(rp, end)] = p.hops.as_slice() else { return Err(Failure::unsupported("shortestPath() of several hops")) };
        let node = |np: &NodePattern| -> Result<V, Failure> {
            let v =
                np.variable.as_deref().ok_or_else(|| Failure::unsupported("shortestPath() from an unbound node"))?;
            self.lookup(v, row)
        };
        let (from, to) = match (node(&p.start)?, node(end)?) {
            (V::Node(a), V::Node(b)) => (a, b),
            (V::Null, _) | (_, V::Null) => return Ok(V::Null),
            (a, b) => {
                return Err(Failure::runtime(format!("shortestPath() between a {} and a {}", a.kind(), b.kind())));
            }
        };
        let (min, max) = rp.length.unwrap_or((1, 1));
        if min > 1 {
            return Err(Failure::unsupported("shortestPath() with a lower bound above 1"));
        }
        if from == to {
            return if min == 0 {
                Ok(V::Path(vec![from], Vec::new()))
            } else {
                Err(Failure::unsupported("shortestPath() from a node to itself"))
            };
        }
        // Breadth first: the first time `to` is reached is by fewest hops.
        let mut came_from: std::collections::BTreeMap<usize, (usize, usize)> = std::collections::BTreeMap::new();
        let mut frontier = vec![from];
        let mut depth = 0;
        while !frontier.is_empty() && depth < max {
            depth += 1;
            let mut next = Vec::new();
            for &at in &frontier {
                for (r, n) in self.steps_from(at, rp, row)? {
                    if n == from || came_from.contains_key(&n) {
                        continue;
                    }
                    came_from.insert(n, (r, at));
                    if n == to {
                        let (mut nodes, mut rels, mut cur) = (vec![to], Vec::new(), to);
                        while let Some(&(r, prev)) = came_from.get(&cur) {
                            rels.push(r);
                            nodes.push(prev);
                            cur = prev;
                        }
                        nodes.reverse();
                        rels.reverse();
                        return Ok(V::Path(nodes, rels));
                    }
                    next.push(n);
                }
            }
            self.tick(next.len())?;
            frontier = next;
        }
        Ok(V::Null)
    }

    /// The relationships a hop may take from node `at`, with the node each leads to.
    fn steps_from(&self, at: usize, rp: &RelPattern, row: &Row) -> Result<Vec<(usize, usize)>, Failure> {
        let mut out = Vec::new();
        for &i in &self.store.incident[at] {
            let r = &self.store.rels[i];
            if r.deleted || !(rp.types.is_empty() || rp.types.contains(&r.rel_type)) {
                continue;
            }
            // A self-loop is one step either way, as the TCK walks it.
            let next = match rp.direction {
                Direction::Out if r.start == at => r.end,
                Direction::In if r.end == at => r.start,
                Direction::Both if r.start == at => r.end,
                Direction::Both if r.end == at => r.start,
                _ => continue,
            };
            if self.props_fit(&rp.properties, &r.props, row)? {
                out.push((i, next));
            }
        }
        Ok(out)
    }

    fn props_fit(
        &self,
        wanted: &[(String, graphlancer_cypher::ast::Expr)],
        props: &std::collections::BTreeMap<String, V>,
        row: &Row,
    ) -> Result<bool, Failure> {
        for (k, e) in wanted {
            let want = self.expr(e, row)?;
            if equals(props.get(k).unwrap_or(&V::Null), &want) != Some(true) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `row` with the hop's relationship variable bound to `value`, or
    /// `None` where it is bound to something else.
    fn rel_var(&self, rp: &RelPattern, value: V, row: &Row) -> Result<Option<Row>, Failure> {
        let Some(var) = &rp.variable else { return Ok(Some(row.clone())) };
        match row.get(var) {
            None => {
                let mut row = row.clone();
                row.insert(var.clone(), value);
                Ok(Some(row))
            }
            Some(V::Rel(b)) => Ok(matches!(value, V::Rel(r) if r == *b).then(|| row.clone())),
            Some(V::Null) => Ok(None),
            Some(other) => Err(Failure::runtime(format!("{var} is a {}, not a relationship", other.kind()))),
        }
    }

    /// `row` with node `n` bound by node pattern `np`, or `None` where `n`
    /// does not fit it.
    pub(crate) fn node_fits(&self, np: &NodePattern, n: usize, row: &Row) -> Result<Option<Row>, Failure> {
        let rec = &self.store.nodes[n];
        if rec.deleted {
            return Ok(None);
        }
        if let Some(var) = &np.variable {
            match row.get(var) {
                None => {}
                Some(V::Node(b)) if *b == n => {}
                Some(V::Node(_) | V::Null) => return Ok(None),
                Some(other) => return Err(Failure::runtime(format!("{var} is a {}, not a node", other.kind()))),
            }
        }
        if !np.labels.iter().all(|l| rec.labels.contains(l)) || !self.props_fit(&np.properties, &rec.props, row)? {
            return Ok(None);
        }
        let mut row = row.clone();
        if let Some(var) = &np.variable {
            row.insert(var.clone(), V::Node(n));
        }
        Ok(Some(row))
    }
}

/// The variables a pattern binds that `row` does not hold yet.
pub(crate) fn new_variables(patterns: &[PathPattern], row: &Row) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |v: &Option<String>| {
        if let Some(v) = v
            && !row.contains_key(v)
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    };
    for p in patterns {
        add(&p.name);
        add(&p.start.variable);
        for (r, n) in &p.hops {
            add(&r.variable);
            add(&n.variable);
        }
    }
    out
}
