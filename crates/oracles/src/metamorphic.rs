//! GAMERA's graph-aware metamorphic relations (elementary and compound),
//! with patterns drawn for each case from the graph and the schema: anchor
//! nodes by `gid`, relationship types, directions, hop counts and extra
//! predicates from the typed generator.
//!
//! Each relation, why it holds, and what it assumes:
//! - `symmetry` (GAMERA's spouse relation): an undirected pattern matches a
//!   relationship from both ends, so the bag of `(a, b)` pairs it binds
//!   equals the bag of `(b, a)` pairs. Holds whatever the engine's
//!   relationship-uniqueness rule, since the pattern has one hop.
//! - `k-hop` (ancestor/descendant, k-hop neighbours in and out): a path of
//!   k typed, directed hops read from its end binds the same pairs; reading
//!   backwards changes no uniqueness rule, since the same relationships are
//!   matched either way.
//! - `type-union` (edge-property variant, heterogeneous edges): one hop of
//!   `:T1|T2` matches exactly the relationships of `:T1` and those of `:T2`,
//!   so the counts add up.
//! - `path-product` (path count through a transit node): the paths
//!   `(a)-[:T1]->(m)-[:T2]->(b)` through a fixed `m` pair every way into `m`
//!   with every way out of it, so their count is the product of the two
//!   halves' counts. Assumes the two relationships can never be the same one
//!   (otherwise relationship uniqueness would remove pairs): T1 differs from
//!   T2, or `m` has no self-loop of that type.
//!
//! - `transitivity` (connectivity): a node reached from `a` in 1..i hops
//!   and then 1..j more, along one type and direction, is reached in 1..i+j
//!   hops. Holds under any uniqueness rule (walk, trail, acyclic): a
//!   directed walk contains a path with the same ends that is no longer.
//! - `shortest-path`: the paths from `a` to `b` that avoid an inner node `m`
//!   are a subset of all of them, so no more numerous and none shorter. `a`,
//!   `m` and `b` lie on a directed walk the graph has, so some path exists.
//! - `fusion`: with T1 ≠ T2 (so relationship uniqueness removes nothing),
//!   `MATCH (a)-[:T1]-(), (a)-[:T2]-()` returns the nodes of both one-pattern
//!   answers, and their UNION the nodes of either (DISTINCT `gid`s: sets).
//! - `edge-property` (homogeneous edges): a predicate over a relationship is
//!   true, false or null, so the relationships of a type are counted by the
//!   three partitions together.
//! - `added-relationship` (a new edge creates connectivity): a relationship
//!   created from `a` to `b` joins them, and removes no path, under any
//!   uniqueness rule. Only "at least as many" is asked, not "one more": an
//!   engine may fold parallel relationships in a variable-length pattern.
//! - `cut` (no path after a cut): once every T relationship leaving `a` is
//!   deleted, no T path leaves it.
//!
//! - Dynamic relations (GAMERA's data addition, deletion, update and
//!   irrelevant change), each as a count before and after a change made in
//!   the same query and finished by `WITH count(*)` (so the read comes after
//!   every write, in openCypher's clause-at-a-time order): `added-node` (a
//!   node created with label L and `k = v` raises the count of `(y:L) WHERE
//!   y.k = v` by one), `deleted-node` and `deleted-relationship` (the count
//!   drops by one when the entity deleted was counted), `updated` (setting
//!   `x.k = v` raises the count of `y.k = v` by one unless x had it already)
//!   and `irrelevant` (a change to a node the count cannot see leaves it
//!   alone). The predicted difference is computed from the generated graph.
//!   Each run starts from the generated graph: the adapters restore it after
//!   a query that writes.
//!
//! Every relationship is named and referenced (`r IS NOT NULL`), since an
//! engine may fold parallel relationships it is not asked about.

use graphlancer_cypher::Generated;
use graphlancer_cypher::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, RelPattern, SingleQuery,
};
use graphlancer_cypher::types::{Ty, Var};
use graphlancer_cypher::{Feature, context::Names};
use graphlancer_engines::Outcome;
use graphlancer_model::{CaseRng, Comparison, ID_PROPERTY, ResultSet, RowOrder, Tolerance, Value, compare};
use rand::Rng;

use crate::oracle::{BuildCx, CaseQuery, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::relation::{NO_ROWS, broken, rows_of};

/// GAMERA's relations.
pub struct Metamorphic;

/// The relations, by name.
const RELATIONS: [&str; 15] = [
    "symmetry",
    "k-hop",
    "type-union",
    "path-product",
    "transitivity",
    "shortest-path",
    "fusion",
    "edge-property",
    "added-relationship",
    "cut",
    "added-node",
    "deleted-node",
    "deleted-relationship",
    "updated",
    "irrelevant",
];

impl Oracle for Metamorphic {
    fn kind(&self) -> OracleKind {
        OracleKind::Metamorphic
    }

    fn relations(&self) -> &'static [&'static str] {
        &RELATIONS
    }

    fn build(&self, _: &Generated, cx: &BuildCx<'_, '_>, rng: &mut CaseRng) -> Result<TestCase, &'static str> {
        if cx.graph.nodes.is_empty() || cx.graph.relationships.is_empty() || cx.graph.schema.rel_types.is_empty() {
            return Err("an empty graph");
        }
        let mut b = Draw { cx, rng, names: Names::default() };
        for name in cx.order(&RELATIONS, b.rng) {
            let mut delta = None;
            let queries = match name {
                "symmetry" => b.symmetry(),
                "k-hop" => b.k_hop(),
                "type-union" => b.type_union(),
                "path-product" => b.path_product(),
                "transitivity" => b.transitivity(),
                "shortest-path" => b.shortest_path(),
                "fusion" => b.fusion(),
                "edge-property" => b.edge_property(),
                "added-relationship" => b.added_relationship(),
                "cut" => b.cut(),
                dynamic => b.change(dynamic).map(|(queries, d)| {
                    delta = Some(d);
                    queries
                }),
            };
            if let Some(queries) = queries {
                return Ok(TestCase { relation: format!("metamorphic:{name}"), queries, delta });
            }
        }
        Err("no relation applies to this profile and graph")
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        let name = case.relation.strip_prefix("metamorphic:").unwrap_or(&case.relation);
        for (e, engine) in cx.names.iter().enumerate() {
            let Some(rows) = rows_of(outcomes, e) else { return NO_ROWS };
            let held = match (name, rows.as_slice()) {
                ("symmetry", [pairs]) => same(pairs, &swapped(pairs)),
                ("k-hop", [forward, backward]) => same(forward, backward),
                ("type-union", [both, one, other]) => match (count(both), count(one), count(other)) {
                    (Some(b), Some(x), Some(y)) => b == x + y,
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                ("path-product", [through, into, out]) => match (count(through), count(into), count(out)) {
                    (Some(t), Some(i), Some(o)) => i.checked_mul(o) == Some(t),
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                ("transitivity", [whole, composed]) => within(composed, whole),
                ("shortest-path", [all, avoiding]) => match (shortest_and_count(all), shortest_and_count(avoiding)) {
                    (Some((m1, c1)), Some((m2, c2))) => {
                        c1 >= 1 && c2 <= c1 && m1.is_some() && (m2.is_none() || m2 >= m1)
                    }
                    _ => return Verdict::Skip("an answer that is not one row of two integers"),
                },
                ("fusion", [one, other, both, either @ ..]) if either.len() <= 1 => {
                    same(both, &combined(one, other, true))
                        && either.iter().all(|e| same(e, &combined(one, other, false)))
                }
                ("edge-property", [all, p, not_p, null]) => match (count(all), count(p), count(not_p), count(null)) {
                    (Some(a), Some(x), Some(y), Some(z)) => a == x + y + z,
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                ("added-relationship", [before, after]) => match (count(before), count(after)) {
                    (Some(b), Some(a)) => a >= 1 && a >= b,
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                ("cut", [before, after]) => match (count(before), count(after)) {
                    (Some(b), Some(a)) => b >= 1 && a == 0,
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                (_, [before, after]) if case.delta.is_some() => match (count(before), count(after)) {
                    (Some(b), Some(a)) => Some(a - b) == case.delta,
                    _ => return Verdict::Skip("a count that is not one integer"),
                },
                _ => return Verdict::Skip("a group of another size"),
            };
            if !held {
                let shown: Vec<String> = rows.iter().map(|r| summarize(r)).collect();
                return broken(
                    OracleKind::Metamorphic,
                    engine,
                    name,
                    "violated",
                    None,
                    format!("{engine}: the {name} relation does not hold ({})", shown.join(" / ")),
                    match case.delta {
                        Some(d) => format!("{} The graph generated predicts a difference of {d:+}.", words(name)),
                        None => words(name).to_owned(),
                    },
                );
            }
        }
        Verdict::Pass
    }
}

/// The relation in words a maintainer reads.
fn words(name: &str) -> &'static str {
    match name {
        "symmetry" => {
            "An undirected pattern matches each relationship from both of its ends, so every pair (a, b) it \
             returns must come back as often as the pair (b, a)."
        }
        "k-hop" => {
            "A directed path pattern read from its other end, with every direction flipped, matches the same \
             paths, so both queries must return the same pairs."
        }
        "type-union" => {
            "A relationship of type T1|T2 is of type T1 or of type T2 and never both, so the first count must \
             be the sum of the other two."
        }
        "path-product" => {
            "Every path (a)-[:T1]->(m)-[:T2]->(b) through the fixed node m joins one way into m with one way \
             out of it, and the two relationships can never be the same one, so the first count must be the \
             product of the other two."
        }
        "transitivity" => {
            "Every node reached from a in i hops and then j more (along one type and direction) is reached from \
             a in at most i+j hops, so the second query's nodes must all be among the first's."
        }
        "shortest-path" => {
            "The generated graph has a path from a to b, so some path must be found; the paths that avoid the \
             inner node m are some of them, so there can be no more of them and none shorter."
        }
        "fusion" => {
            "A node with a T1 relationship and a T2 relationship is in both single answers, and a node with \
             either is in one of them: the third query must return their intersection and the fourth their union."
        }
        "edge-property" => {
            "A predicate p over a relationship is true, false or null, and exactly one of them, so the \
             relationships of the type must be as many as those where p, NOT p and p IS NULL hold, together."
        }
        "added-relationship" => {
            "A relationship created from a to b is a path from a to b, and adding it removes no path: after it, \
             at least one path must join them, and no fewer than before."
        }
        "cut" => {
            "Once every relationship of type T leaving a (in the direction read) is deleted, no path of type T \
             can leave a: the count after the cut must be zero (and it was at least one before)."
        }
        "added-node" => {
            "A node created with label L and property k = v, before a MATCH that counts the nodes with label L \
             and k = v, must be counted: the second count is the first plus one."
        }
        "deleted-node" | "deleted-relationship" => {
            "An entity deleted before a MATCH that would have counted it is gone: the second count is the first \
             minus one when the generated graph says the deleted entity was counted, and the same otherwise."
        }
        "updated" => {
            "After SET x.k = v, a MATCH that counts the nodes with k = v must count x: the second count is the \
             first plus one unless x had k = v already."
        }
        _ => {
            "A change to a node the counting MATCH cannot see (another label, or another property) must leave \
             the count as it was."
        }
    }
}

fn same(a: &ResultSet, b: &ResultSet) -> bool {
    compare(a, b, &RowOrder::Bag, Tolerance::default()) == Comparison::Equal
}

fn swapped(r: &ResultSet) -> ResultSet {
    ResultSet::new(r.columns.clone(), r.rows.iter().map(|row| row.iter().rev().cloned().collect()).collect())
}

fn count(r: &ResultSet) -> Option<i64> {
    match r.scalar() {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    }
}

fn summarize(r: &ResultSet) -> String {
    match r.scalar() {
        Some(v) if r.rows.len() == 1 => v.to_string(),
        _ => format!("{} rows", r.rows.len()),
    }
}

/// Draws the patterns of one case.
struct Draw<'a, 'b, 'g, 'r> {
    cx: &'a BuildCx<'b, 'g>,
    rng: &'r mut CaseRng,
    names: Names,
}

impl Draw<'_, '_, '_, '_> {
    /// Whether a production can be used: the engine accepts it and answers
    /// it right as far as the profile knows.
    fn has(&self, f: Feature) -> bool {
        self.cx.profile.has(f) && !self.cx.profile.bugs.contains_key(&f)
    }

    fn rel_type(&mut self) -> String {
        let types = &self.cx.graph.schema.rel_types;
        types[self.rng.random_range(0..types.len())].name.clone()
    }

    fn anchor(&mut self) -> i64 {
        let nodes = &self.cx.graph.nodes;
        nodes[self.rng.random_range(0..nodes.len())].id
    }

    fn node(&mut self, prefix: &str) -> (String, NodePattern) {
        let name = self.names.fresh(prefix);
        (name.clone(), Self::bare(&name))
    }

    /// `(v)`.
    fn bare(v: &str) -> NodePattern {
        NodePattern { variable: Some(v.to_owned()), labels: Vec::new(), properties: Vec::new() }
    }

    /// `MATCH (v) WHERE v.gid = id`.
    fn find(v: &str, id: i64) -> Clause {
        Clause::Match {
            optional: false,
            patterns: vec![PathPattern { name: None, start: Self::bare(v), hops: Vec::new() }],
            guard: None,
            predicate: Some(Self::is(v, id)),
        }
    }

    /// `q` after the writes `prefix`, finished by `WITH count(*)` so that `q`
    /// reads after every one of them.
    fn after(prefix: Vec<Clause>, mut q: Query) -> Query {
        if !prefix.is_empty() {
            let mut clauses = prefix;
            clauses.push(Clause::With(Projection::of(vec![(Expr::count_star(), "d".into())])));
            clauses.append(&mut q.parts[0].clauses);
            q.parts[0].clauses = clauses;
        }
        q
    }

    fn rel(&mut self, types: Vec<String>, direction: Direction) -> (String, RelPattern) {
        let name = self.names.fresh("r");
        let r = RelPattern { variable: Some(name.clone()), types, direction, length: None, properties: Vec::new() };
        (name, r)
    }

    /// `v.gid = id`.
    fn is(v: &str, id: i64) -> Expr {
        Expr::binary(BinOp::Eq, Expr::Property(Box::new(Expr::var(v)), ID_PROPERTY.into()), Expr::lit(Value::Int(id)))
    }

    fn gid(v: &str) -> Expr {
        Expr::Property(Box::new(Expr::var(v)), ID_PROPERTY.into())
    }

    /// Sometimes an extra predicate on `v` from the generator, sometimes an anchor.
    fn condition(&mut self, v: &str) -> Option<Expr> {
        match self.rng.random_range(0..3) {
            0 => None,
            1 => Some(Self::is(v, self.anchor())),
            _ => {
                let var = Var::new(v.to_owned(), Ty::Node);
                Some(self.cx.generator.predicate_over(&[var], &mut self.names, self.rng))
            }
        }
    }

    /// `MATCH pattern WHERE guard AND predicate RETURN items`.
    fn query(
        &self,
        pattern: PathPattern,
        rels: &[String],
        predicate: Option<Expr>,
        items: Vec<(Expr, String)>,
    ) -> Query {
        let guard = Expr::and_all(rels.iter().map(|r| Expr::IsNull { expr: Box::new(Expr::var(r)), negated: true }));
        let ret = Projection::of(items);
        let clauses =
            vec![Clause::Match { optional: false, patterns: vec![pattern], guard, predicate }, Clause::Return(ret)];
        Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }
    }

    fn count_item() -> Vec<(Expr, String)> {
        vec![(Expr::count_star(), "c".into())]
    }

    fn symmetry(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::RelUndirected) {
            return None;
        }
        let (a, na) = self.node("n");
        let (b, nb) = self.node("n");
        let t = self.rel_type();
        let (r, rel) = self.rel(vec![t], Direction::Both);
        let pattern = PathPattern { name: None, start: na, hops: vec![(rel, nb)] };
        let items = vec![(Self::gid(&a), "x".into()), (Self::gid(&b), "y".into())];
        let q = self.query(pattern, &[r], None, items);
        Some(vec![CaseQuery::new("pairs", q, None)])
    }

    fn k_hop(&mut self) -> Option<Vec<CaseQuery>> {
        let k = self.rng.random_range(1..=3);
        let (a, start) = self.node("n");
        let mut hops = Vec::new();
        let mut rels = Vec::new();
        let mut last = a.clone();
        for _ in 0..k {
            let t = self.rel_type();
            let dir = if self.rng.random_bool(0.5) { Direction::Out } else { Direction::In };
            let (r, rel) = self.rel(vec![t], dir);
            let (n, node) = self.node("n");
            rels.push(r);
            hops.push((rel, node));
            last = n;
        }
        let forward = PathPattern { name: None, start: start.clone(), hops: hops.clone() };
        // Read from the end: nodes reversed, relationships reversed and flipped.
        let mut nodes: Vec<NodePattern> = std::iter::once(start).chain(hops.iter().map(|(_, n)| n.clone())).collect();
        let mut rs: Vec<RelPattern> = hops.into_iter().map(|(r, _)| r).collect();
        nodes.reverse();
        rs.reverse();
        for r in &mut rs {
            r.direction = if r.direction == Direction::Out { Direction::In } else { Direction::Out };
        }
        let mut nodes = nodes.into_iter();
        let backward_start = nodes.next()?;
        let backward = PathPattern { name: None, start: backward_start, hops: rs.into_iter().zip(nodes).collect() };
        let predicate = match (self.condition(&a), self.condition(&last)) {
            (Some(x), Some(y)) => Some(Expr::binary(BinOp::And, x, y)),
            (x, y) => x.or(y),
        };
        let items = || vec![(Self::gid(&a), "x".to_owned()), (Self::gid(&last), "y".to_owned())];
        let q1 = self.query(forward, &rels, predicate.clone(), items());
        let q2 = self.query(backward, &rels, predicate, items());
        Some(vec![CaseQuery::new("forward", q1, None), CaseQuery::new("backward", q2, None)])
    }

    fn type_union(&mut self) -> Option<Vec<CaseQuery>> {
        if !self.has(Feature::RelTypeAlternatives) || self.cx.graph.schema.rel_types.len() < 2 {
            return None;
        }
        let t1 = self.rel_type();
        let t2 = self.rel_type();
        if t1 == t2 {
            return None;
        }
        let dir = [Direction::Out, Direction::In, Direction::Both][self.rng.random_range(0..3)];
        if dir == Direction::Both && !self.has(Feature::RelUndirected) {
            return None;
        }
        let (a, na) = self.node("n");
        let (_, nb) = self.node("n");
        let predicate = self.condition(&a);
        let one = |types: Vec<String>, role: &str, s: &mut Self| {
            let (r, rel) = s.rel(types, dir);
            let pattern = PathPattern { name: None, start: na.clone(), hops: vec![(rel, nb.clone())] };
            CaseQuery::new(role, s.query(pattern, &[r], predicate.clone(), Self::count_item()), None)
        };
        Some(vec![
            one(vec![t1.clone(), t2.clone()], "T1|T2", self),
            one(vec![t1], "T1", self),
            one(vec![t2], "T2", self),
        ])
    }

    fn path_product(&mut self) -> Option<Vec<CaseQuery>> {
        let m_id = self.anchor();
        let (t1, t2) = (self.rel_type(), self.rel_type());
        let self_loop =
            self.cx.graph.relationships.iter().any(|r| r.start == m_id && r.end == m_id && r.rel_type == t1);
        if t1 == t2 && self_loop {
            return None;
        }
        let (a, na) = self.node("n");
        let (m, nm) = self.node("n");
        let (b, nb) = self.node("n");
        let (pa, pb) = (self.condition(&a), self.condition(&b));
        let (r1, rel1) = self.rel(vec![t1], Direction::Out);
        let (r2, rel2) = self.rel(vec![t2], Direction::Out);
        let at_m = Self::is(&m, m_id);
        let all = |extra: Vec<Option<Expr>>| {
            extra.into_iter().flatten().fold(at_m.clone(), |acc, e| Expr::binary(BinOp::And, acc, e))
        };
        let through = PathPattern {
            name: None,
            start: na.clone(),
            hops: vec![(rel1.clone(), nm.clone()), (rel2.clone(), nb.clone())],
        };
        let into = PathPattern { name: None, start: na, hops: vec![(rel1, nm.clone())] };
        let out = PathPattern { name: None, start: nm, hops: vec![(rel2, nb)] };
        let q1 =
            self.query(through, &[r1.clone(), r2.clone()], Some(all(vec![pa.clone(), pb.clone()])), Self::count_item());
        let q2 = self.query(into, &[r1], Some(all(vec![pa])), Self::count_item());
        let q3 = self.query(out, &[r2], Some(all(vec![pb])), Self::count_item());
        Some(vec![
            CaseQuery::new("through m", q1, None),
            CaseQuery::new("into m", q2, None),
            CaseQuery::new("out of m", q3, None),
        ])
    }
}

impl Draw<'_, '_, '_, '_> {
    /// A dynamic relation: the count before, the count after a change made
    /// in the same query, and the difference the generated graph predicts.
    fn change(&mut self, name: &str) -> Option<(Vec<CaseQuery>, i64)> {
        use graphlancer_cypher::ast::SetItem;
        let graph = self.cx.graph;
        // A node with a label and a property of that label, which the count is about.
        let labelled: Vec<&graphlancer_model::GraphNode> = graph
            .nodes
            .iter()
            .filter(|n| n.labels.first().is_some_and(|l| n.properties.keys().any(|k| self.key_of(l, k))))
            .collect();
        if labelled.is_empty() {
            return None;
        }
        let x = labelled[self.rng.random_range(0..labelled.len())];
        let label = x.labels[0].clone();
        let keys: Vec<&String> = x.properties.keys().filter(|k| self.key_of(&label, k)).collect();
        let key = keys[self.rng.random_range(0..keys.len())].clone();
        let value = x.properties[&key].clone();
        if matches!(value, Value::Float(f) if f.is_nan()) {
            return None;
        }
        let counted = |n: &graphlancer_model::GraphNode, v: &Value| {
            n.labels.contains(&label) && n.properties.get(&key).is_some_and(|w| w == v)
        };
        // `MATCH (y:L) WHERE y.k = v RETURN count(y) AS c`, after `prefix`.
        let counting = |prefix: Vec<Clause>, v: &Value| {
            let y = NodePattern { variable: Some("y".into()), labels: vec![label.clone()], properties: Vec::new() };
            let is =
                Expr::binary(BinOp::Eq, Expr::Property(Box::new(Expr::var("y")), key.clone()), Expr::lit(v.clone()));
            let clauses = vec![
                Clause::Match {
                    optional: false,
                    patterns: vec![PathPattern { name: None, start: y, hops: Vec::new() }],
                    guard: None,
                    predicate: Some(is),
                },
                Clause::Return(Projection::of(vec![(Expr::aggregate("count", false, Expr::var("y")), "c".into())])),
            ];
            Self::after(
                prefix,
                Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            )
        };
        let before = counting(Vec::new(), &value);
        let (prefix, probe, delta) = match name {
            "added-node" => {
                if !self.has(Feature::Create) {
                    return None;
                }
                let next = graph.nodes.iter().map(|n| n.id).chain(graph.relationships.iter().map(|r| r.id)).max()? + 1;
                let props = vec![
                    (ID_PROPERTY.to_owned(), Expr::lit(Value::Int(next))),
                    (key.clone(), Expr::lit(value.clone())),
                ];
                let node = NodePattern { variable: Some("x".into()), labels: vec![label.clone()], properties: props };
                (
                    vec![Clause::Create { patterns: vec![PathPattern { name: None, start: node, hops: Vec::new() }] }],
                    value.clone(),
                    1,
                )
            }
            "deleted-node" => {
                if !self.has(Feature::DetachDelete) {
                    return None;
                }
                let delete = Clause::Delete { detach: true, variables: vec!["x".into()] };
                (vec![Self::find("x", x.id), delete], value.clone(), -1)
            }
            "deleted-relationship" => {
                if !self.has(Feature::Delete) || graph.relationships.is_empty() {
                    return None;
                }
                let r = &graph.relationships[self.rng.random_range(0..graph.relationships.len())];
                let (s, rel) = self.rel(Vec::new(), Direction::Out);
                let (_, a) = self.node("n");
                let (_, b) = self.node("n");
                let m = Clause::Match {
                    optional: false,
                    patterns: vec![PathPattern { name: None, start: a, hops: vec![(rel, b)] }],
                    guard: None,
                    predicate: Some(Self::is(&s, r.id)),
                };
                let delete = Clause::Delete { detach: false, variables: vec![s] };
                // Counts relationships of r's type instead of nodes.
                let t = r.rel_type.clone();
                let count_rels = |prefix: Vec<Clause>, s: &mut Self| {
                    let (v, rel) = s.rel(vec![t.clone()], Direction::Out);
                    let (_, a) = s.node("n");
                    let (_, b) = s.node("n");
                    let pattern = PathPattern { name: None, start: a, hops: vec![(rel, b)] };
                    let q = s.query(
                        pattern,
                        std::slice::from_ref(&v),
                        None,
                        vec![(Expr::aggregate("count", false, Expr::var(&v)), "c".into())],
                    );
                    Self::after(prefix, q)
                };
                let before = count_rels(Vec::new(), self);
                let after = count_rels(vec![m, delete], self);
                return Some((vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)], -1));
            }
            "updated" => {
                if !self.has(Feature::SetProperty) {
                    return None;
                }
                // Another value the key takes somewhere in the graph.
                let others: Vec<&Value> = graph
                    .nodes
                    .iter()
                    .filter(|n| n.labels.contains(&label))
                    .filter_map(|n| n.properties.get(&key))
                    .filter(|v| !matches!(v, Value::Float(f) if f.is_nan()))
                    .collect();
                let v2 = others[self.rng.random_range(0..others.len())].clone();
                let set =
                    Clause::Set { items: vec![SetItem::Property("x".into(), key.clone(), Expr::lit(v2.clone()))] };
                let delta = i64::from(!counted(x, &v2));
                (vec![Self::find("x", x.id), set], v2, delta)
            }
            _ => {
                // A node without the label, given the value: the count of L cannot see it.
                if !self.has(Feature::SetProperty) {
                    return None;
                }
                let outside: Vec<&graphlancer_model::GraphNode> = graph
                    .nodes
                    .iter()
                    .filter(|n| !n.labels.contains(&label) && n.labels.first().is_some_and(|l| self.key_of(l, &key)))
                    .collect();
                if outside.is_empty() {
                    return None;
                }
                let z = outside[self.rng.random_range(0..outside.len())];
                let set =
                    Clause::Set { items: vec![SetItem::Property("x".into(), key.clone(), Expr::lit(value.clone()))] };
                (vec![Self::find("x", z.id), set], value.clone(), 0)
            }
        };
        let before = if probe == value { before } else { counting(Vec::new(), &probe) };
        let after = counting(prefix, &probe);
        Some((vec![CaseQuery::new("before", before, None), CaseQuery::new("after", after, None)], delta))
    }

    /// Whether nodes labelled `label` may carry `key` (the schema says so).
    fn key_of(&self, label: &str, key: &str) -> bool {
        self.cx.graph.schema.labels.iter().any(|l| l.name == label && l.keys.iter().any(|k| k == key))
    }
}

/// The reachability relations, and GAMERA's edge-property and fusion
/// relations.
impl Draw<'_, '_, '_, '_> {
    /// One type, one direction, `lo..hi` hops, unnamed.
    fn hops(t: &str, direction: Direction, lo: u32, hi: u32) -> RelPattern {
        RelPattern {
            variable: None,
            types: vec![t.to_owned()],
            direction,
            length: Some((lo, hi)),
            properties: Vec::new(),
        }
    }

    fn direction(&mut self) -> Direction {
        if self.rng.random_bool(0.5) { Direction::Out } else { Direction::In }
    }

    /// A relationship of the graph, and the ends it leaves from and goes to
    /// when read in `direction`.
    fn relationship(&mut self, direction: Direction) -> Option<(String, i64, i64)> {
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

    fn distinct(mut q: Query) -> Query {
        if let Some(Clause::Return(p)) = q.parts[0].clauses.last_mut() {
            p.distinct = true;
        }
        q
    }

    /// `MATCH (a)-[:T*1..i]->(m)-[:T*1..j]->(b)` from a fixed `a` must reach
    /// a subset of what `MATCH (a)-[:T*1..i+j]->(b)` reaches.
    fn transitivity(&mut self) -> Option<Vec<CaseQuery>> {
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
    fn shortest_path(&mut self) -> Option<Vec<CaseQuery>> {
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
    fn fusion(&mut self) -> Option<Vec<CaseQuery>> {
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
    fn edge_property(&mut self) -> Option<Vec<CaseQuery>> {
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
    fn paths(&mut self, t: &str, dir: Direction, k: u32, from: i64, to: Option<i64>, prefix: Vec<Clause>) -> Query {
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
    fn added_relationship(&mut self) -> Option<Vec<CaseQuery>> {
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
    fn cut(&mut self) -> Option<Vec<CaseQuery>> {
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

/// Whether every row of `small` is a row of `large` (as bags).
fn within(small: &ResultSet, large: &ResultSet) -> bool {
    match compare(small, large, &RowOrder::Bag, Tolerance::default()) {
        Comparison::Equal => true,
        Comparison::Differ(graphlancer_model::Difference::Rows { only_left, .. }) => only_left.is_empty(),
        Comparison::Differ(_) => false,
    }
}

/// The rows of both (`and`) or of either (`or`) of two sets of rows.
fn combined(a: &ResultSet, b: &ResultSet, and: bool) -> ResultSet {
    let mut rows: Vec<Vec<Value>> = if and {
        a.rows.iter().filter(|r| b.rows.contains(r)).cloned().collect()
    } else {
        a.rows.iter().chain(&b.rows).cloned().collect()
    };
    let mut unique: Vec<Vec<Value>> = Vec::new();
    for r in rows.drain(..) {
        if !unique.contains(&r) {
            unique.push(r);
        }
    }
    ResultSet::new(a.columns.clone(), unique)
}

/// Two integers of a one-row answer: `(shortest, paths)`.
fn shortest_and_count(r: &ResultSet) -> Option<(Option<i64>, i64)> {
    match r.rows.as_slice() {
        [row] => match row.as_slice() {
            [Value::Null, Value::Int(c)] => Some((None, *c)),
            [Value::Int(m), Value::Int(c)] => Some((Some(*m), *c)),
            _ => None,
        },
        _ => None,
    }
}
