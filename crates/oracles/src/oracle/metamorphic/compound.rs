//! The compound relations: transitivity, shortest paths, fusion, edge
//! properties, an added relationship and a cut.

use graphlancer_cypher::Feature;
use graphlancer_cypher::ast::{BinOp, Clause, Direction, Expr, PathPattern, Query, RelPattern};
use graphlancer_cypher::types::{Ty, Var};
use graphlancer_model::{ID_PROPERTY, Value};
use rand::Rng;

use crate::oracle::CaseQuery;

use super::Draw;

/// The reachability relations, and GAMERA's edge-property and fusion
/// relations.
impl Draw<'_, '_, '_, '_> {
    /// One type, one direction, `lo..hi` hops, unnamed.
    pub(super) fn hops(t: &str, direction: Direction, lo: u32, hi: u32) -> RelPattern {
        RelPattern {
            variable: None,
            types: vec![t.to_owned()],
            direction,
            length: Some((lo, hi)),
            properties: Vec::new(),
        }
    }

    pub(super) fn direction(&mut self) -> Direction {
        if self.rng.random_bool(0.5) { Direction::Out } else { Direction::In }
    }

    /// A relationship of the graph, and the ends it leaves from and goes to
    /// when read in `direction`.
    pub(super) fn relationship(&mut self, direction: Direction) -> Option<(String, i64, i64)> {
        let rels = &self.cx.graph.relationships;
        if rels.is_empty() {
            return None;
        }
        let r = &rels[self.rng.random_range(0..rels.len())];
        Some(match direction {
            Direction::In => (r.rel_type.clone(), r.end, r.start),
            _ => (r.rel_type.clone(), r.start, r.end),
        })
    }

    pub(super) fn distinct(mut q: Query) -> Query {
        if let Some(Clause::Return(p)) = q.parts[0].clauses.last_mut() {
            p.distinct = true;
        }
        q
    }

    /// `MATCH (a)-[:T*1..i]->(m)-[:T*1..j]->(b)` from a fixed `a` must reach
    /// a subset of what `MATCH (a)-[:T*1..i+j]->(b)` reaches.
    pub(super) fn transitivity(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::VarLength) || !self.has(Feature::ReturnDistinct) {
            return None;
        }
        let dir = self.direction();
        let (t, from, _) = self.relationship(dir)?;
        let (i, j) = (self.rng.random_range(1..=2), self.rng.random_range(1..=2));
        let (a, na) = self.node("n");
        let (_, nm) = self.node("n");
        let (b, nb) = self.node("n");
        let whole =
            PathPattern { name: None, start: na.clone(), hops: vec![(Self::hops(&t, dir, 1, i + j), nb.clone())] };
        let composed = PathPattern {
            name: None,
            start: na,
            hops: vec![(Self::hops(&t, dir, 1, i), nm), (Self::hops(&t, dir, 1, j), nb)],
        };
        let items = || vec![(Self::gid(&b), "y".to_owned())];
        let q1 = Self::distinct(self.query(whole, &[], Some(Self::is(&a, from)), items()));
        let q2 = Self::distinct(self.query(composed, &[], Some(Self::is(&a, from)), items()));
        Some(vec![CaseQuery::new("reached in i+j", q1, None), CaseQuery::new("reached in i, then j", q2, None)])
    }

    /// The paths from `a` to `b` that avoid an inner node `m` of a walk the
    /// graph has from `a` to `b` are some of all the paths: fewer or as
    /// many, and none shorter.
    pub(super) fn shortest_path(&mut self) -> Option<Vec<CaseQuery>> {
        let needs = [Feature::VarLength, Feature::NamedPath, Feature::FnLength, Feature::FnNodes, Feature::Quantifier];
        if !needs.iter().all(|f| self.has(*f)) || !self.has(Feature::Min) {
            return None;
        }
        let dir = self.direction();
        let (t, from, to) = self.relationship(dir)?;
        let mut walk = vec![from, to];
        for _ in 0..3 {
            let at = *walk.last()?;
            let next: Vec<i64> = self
                .cx
                .graph
                .relationships
                .iter()
                .filter(|r| r.rel_type == t)
                .filter_map(|r| match dir {
                    Direction::In => (r.end == at).then_some(r.start),
                    _ => (r.start == at).then_some(r.end),
                })
                .collect();
            if next.is_empty() {
                break;
            }
            walk.push(next[self.rng.random_range(0..next.len())]);
        }
        if walk.len() < 3 {
            return None;
        }
        let end = self.rng.random_range(2..walk.len());
        let (start, finish, avoided) = (walk[0], walk[end], walk[self.rng.random_range(1..end)]);
        if avoided == start || avoided == finish {
            return None;
        }
        let (a, na) = self.node("n");
        let (b, nb) = self.node("n");
        let p = self.names.fresh("p");
        let x = self.names.fresh("x");
        let pattern = PathPattern { name: Some(p.clone()), start: na, hops: vec![(Self::hops(&t, dir, 1, 4), nb)] };
        let ends = Expr::binary(BinOp::And, Self::is(&a, start), Self::is(&b, finish));
        let avoids = Expr::Quantified {
            quantifier: graphlancer_cypher::ast::Quantifier::None,
            variable: x.clone(),
            list: Box::new(graphlancer_cypher::functions::call(Feature::FnNodes, vec![Expr::var(&p)])),
            predicate: Box::new(Self::is(&x, avoided)),
        };
        let items = || {
            vec![
                (
                    Expr::aggregate(
                        "min",
                        false,
                        graphlancer_cypher::functions::call(Feature::FnLength, vec![Expr::var(&p)]),
                    ),
                    "s".to_owned(),
                ),
                (Expr::count_star(), "c".to_owned()),
            ]
        };
        let all = self.query(pattern.clone(), &[], Some(ends.clone()), items());
        let avoiding = self.query(pattern, &[], Some(Expr::binary(BinOp::And, ends, avoids)), items());
        Some(vec![CaseQuery::new("all paths", all, None), CaseQuery::new("paths avoiding m", avoiding, None)])
    }

    /// The nodes with a T1 relationship and a T2 relationship are those of
    /// both answers; the nodes with either are those of one answer or the
    /// other.
    pub(super) fn fusion(&mut self) -> Option<Vec<CaseQuery>> {
        let needs = [Feature::MultiplePatterns, Feature::ReturnDistinct];
        if !needs.iter().all(|f| self.has(*f)) || self.cx.graph.schema.rel_types.len() < 2 {
            return None;
        }
        let (t1, t2) = (self.rel_type(), self.rel_type());
        if t1 == t2 {
            return None;
        }
        let (d1, d2) = (self.direction(), self.direction());
        let (a, na) = self.node("n");
        let (_, nb) = self.node("n");
        let (_, nc) = self.node("n");
        let predicate = self.condition(&a);
        let (r1, rel1) = self.rel(vec![t1], d1);
        let (r2, rel2) = self.rel(vec![t2], d2);
        let first = PathPattern { name: None, start: na.clone(), hops: vec![(rel1, nb)] };
        let second = PathPattern { name: None, start: na, hops: vec![(rel2, nc)] };
        let items = || vec![(Self::gid(&a), "x".to_owned())];
        let q1 = Self::distinct(self.query(first.clone(), std::slice::from_ref(&r1), predicate.clone(), items()));
        let q2 = Self::distinct(self.query(second.clone(), std::slice::from_ref(&r2), predicate.clone(), items()));
        let mut both = Self::distinct(self.query(first, &[r1, r2], predicate, items()));
        if let Some(Clause::Match { patterns, .. }) = both.parts[0].clauses.first_mut() {
            patterns.push(second);
        }
        let either =
            Query { parts: vec![q1.parts[0].clone(), q2.parts[0].clone()], union_all: false, spelling: q1.spelling };
        let mut queries = vec![
            CaseQuery::new("T1", q1, None),
            CaseQuery::new("T2", q2, None),
            CaseQuery::new("T1 and T2", both, None),
        ];
        if self.has(Feature::Union) {
            queries.push(CaseQuery::new("T1 or T2", either, None));
        }
        Some(queries)
    }

    /// The relationships of a type split three ways on a predicate over them.
    pub(super) fn edge_property(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::Not) || !self.has(Feature::IsNull) {
            return None;
        }
        let typed: Vec<String> =
            self.cx.graph.schema.rel_types.iter().filter(|t| !t.keys.is_empty()).map(|t| t.name.clone()).collect();
        if typed.is_empty() {
            return None;
        }
        let t = typed[self.rng.random_range(0..typed.len())].clone();
        let dir = self.direction();
        let (_, na) = self.node("n");
        let (_, nb) = self.node("n");
        let (r, rel) = self.rel(vec![t.clone()], dir);
        let var = graphlancer_cypher::types::Var { tags: vec![t], ..Var::new(r.clone(), Ty::Rel) };
        let p = self.cx.generator.predicate_over(&[var], &mut self.names, self.rng);
        let pattern = PathPattern { name: None, start: na, hops: vec![(rel, nb)] };
        let one = |role: &str, predicate: Option<Expr>, s: &Self| {
            CaseQuery::new(
                role,
                s.query(pattern.clone(), std::slice::from_ref(&r), predicate, Self::count_item()),
                None,
            )
        };
        Some(vec![
            one("all", None, self),
            one("p", Some(p.clone()), self),
            one("NOT p", Some(Expr::Not(Box::new(p.clone()))), self),
            one("p IS NULL", Some(Expr::IsNull { expr: Box::new(p), negated: false }), self),
        ])
    }

    /// `MATCH (x)-[:T*1..k]->(y)` counted from `x`, or from `x` to `y`.
    pub(super) fn paths(
        &mut self,
        t: &str,
        dir: Direction,
        k: u32,
        from: i64,
        to: Option<i64>,
        prefix: Vec<Clause>,
    ) -> Query {
        let (x, nx) = self.node("n");
        let (y, ny) = self.node("n");
        let pattern = PathPattern { name: None, start: nx, hops: vec![(Self::hops(t, dir, 1, k), ny)] };
        let mut at = Self::is(&x, from);
        if let Some(to) = to {
            at = Expr::binary(BinOp::And, at, Self::is(&y, to));
        }
        Self::after(prefix, self.query(pattern, &[], Some(at), Self::count_item()))
    }

    /// A relationship created from the start of one relationship of the
    /// graph to the end of another of its type (whose start has the same
    /// labels, so every engine's schema allows it) connects the two nodes,
    /// and takes no path away.
    pub(super) fn added_relationship(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::Create) || !self.has(Feature::VarLength) {
            return None;
        }
        let graph = self.cx.graph;
        let next = graph.nodes.iter().map(|n| n.id).chain(graph.relationships.iter().map(|r| r.id)).max()? + 1;
        let labels = |id: i64| graph.nodes.iter().find(|n| n.id == id).map(|n| &n.labels);
        let (t, from, _) = self.relationship(Direction::Out)?;
        let ends: Vec<i64> = graph
            .relationships
            .iter()
            .filter(|r| r.rel_type == t && labels(r.start) == labels(from))
            .map(|r| r.end)
            .collect();
        let to = ends[self.rng.random_range(0..ends.len())];
        let k = self.rng.random_range(1..=3);
        let (a, _) = self.node("n");
        let (b, _) = self.node("n");
        let new = RelPattern {
            variable: None,
            types: vec![t.clone()],
            direction: Direction::Out,
            length: None,
            properties: vec![(ID_PROPERTY.to_owned(), Expr::lit(Value::Int(next)))],
        };
        let create = Clause::Create {
            patterns: vec![PathPattern { name: None, start: Self::bare(&a), hops: vec![(new, Self::bare(&b))] }],
        };
        // Counted from either end: read backwards, the path runs from `to`.
        let dir = self.direction();
        let (x, y) = if dir == Direction::In { (to, from) } else { (from, to) };
        let before = self.paths(&t, dir, k, x, Some(y), Vec::new());
        let after = self.paths(&t, dir, k, x, Some(y), vec![Self::find(&a, from), Self::find(&b, to), create]);
        Some(vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)])
    }

    /// With every T relationship out of `a` deleted, no T path leaves `a`.
    pub(super) fn cut(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::Delete) || !self.has(Feature::VarLength) {
            return None;
        }
        let dir = self.direction();
        let (t, from, _) = self.relationship(dir)?;
        let k = self.rng.random_range(1..=3);
        let (a, na) = self.node("n");
        let (s, rel) = self.rel(vec![t.clone()], dir);
        let (_, nm) = self.node("n");
        let cut = vec![
            Clause::Match {
                optional: false,
                patterns: vec![PathPattern { name: None, start: na, hops: vec![(rel, nm)] }],
                guard: None,
                predicate: Some(Self::is(&a, from)),
            },
            Clause::Delete { detach: false, variables: vec![s] },
        ];
        let before = self.paths(&t, dir, k, from, None, Vec::new());
        let after = self.paths(&t, dir, k, from, None, cut);
        Some(vec![CaseQuery::new("before", before, None), CaseQuery::new("after the cut", after, None)])
    }
}
