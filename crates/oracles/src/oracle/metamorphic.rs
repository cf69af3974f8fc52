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
use crate::oracle::relation::{NO_ROWS, NOT_A_COUNT, broken, count, rows_of};

mod dynamic;

mod compound;

/// GAMERA's relations.
pub struct Metamorphic;

/// The relations, by name.
/// GAMERA's relations. A name read back from a case is one of these or
/// skipped: no arm of a match on names stands for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case")]
pub(super) enum Relation {
    Symmetry,
    KHop,
    TypeUnion,
    PathProduct,
    Transitivity,
    ShortestPath,
    Fusion,
    EdgeProperty,
    AddedRelationship,
    Cut,
    AddedNode,
    DeletedNode,
    DeletedRelationship,
    Updated,
    Irrelevant,
}

impl Relation {
    fn name(self) -> &'static str {
        self.into()
    }

    fn named(name: &str) -> Option<Relation> {
        name.parse().ok()
    }
}

/// The relations, by name.
static RELATIONS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| <Relation as strum::IntoEnumIterator>::iter().map(Relation::name).collect());

impl Oracle for Metamorphic {
    fn kind(&self) -> OracleKind {
        OracleKind::METAMORPHIC
    }

    fn about(&self) -> &'static str {
        "GAMERA's graph-aware metamorphic relations"
    }

    fn reduces_graph(&self) -> bool {
        false
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
            let relation = Relation::named(name).expect("RELATIONS holds the relations' names");
            let mut delta = None;
            let queries = match relation {
                Relation::Symmetry => b.symmetry(),
                Relation::KHop => b.k_hop(),
                Relation::TypeUnion => b.type_union(),
                Relation::PathProduct => b.path_product(),
                Relation::Transitivity => b.transitivity(),
                Relation::ShortestPath => b.shortest_path(),
                Relation::Fusion => b.fusion(),
                Relation::EdgeProperty => b.edge_property(),
                Relation::AddedRelationship => b.added_relationship(),
                Relation::Cut => b.cut(),
                Relation::AddedNode
                | Relation::DeletedNode
                | Relation::DeletedRelationship
                | Relation::Updated
                | Relation::Irrelevant => b.change(relation).map(|(queries, d)| {
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
        let Some(relation) = Relation::named(name) else { return Verdict::Skip("a relation this build does not know") };
        for (e, engine) in cx.names.iter().enumerate() {
            let Some(rows) = rows_of(outcomes, e) else { return NO_ROWS };
            let held = match (relation, rows.as_slice()) {
                (Relation::Symmetry, [pairs]) => same(pairs, &swapped(pairs)),
                (Relation::KHop, [forward, backward]) => same(forward, backward),
                (Relation::TypeUnion, [both, one, other]) => match (count(both), count(one), count(other)) {
                    (Some(b), Some(x), Some(y)) => b == x + y,
                    _ => return NOT_A_COUNT,
                },
                (Relation::PathProduct, [through, into, out]) => match (count(through), count(into), count(out)) {
                    (Some(t), Some(i), Some(o)) => i.checked_mul(o) == Some(t),
                    _ => return NOT_A_COUNT,
                },
                (Relation::Transitivity, [whole, composed]) => within(composed, whole),
                (Relation::ShortestPath, [all, avoiding]) => match (shortest_and_count(all), shortest_and_count(avoiding)) {
                    (Some((m1, c1)), Some((m2, c2))) => {
                        c1 >= 1 && c2 <= c1 && m1.is_some() && (m2.is_none() || m2 >= m1)
                    }
                    _ => return Verdict::Skip("an answer that is not one row of two integers"),
                },
                (Relation::Fusion, [one, other, both, either @ ..]) if either.len() <= 1 => {
                    same(both, &combined(one, other, true))
                        && either.iter().all(|e| same(e, &combined(one, other, false)))
                }
                (Relation::EdgeProperty, [all, p, not_p, null]) => match (count(all), count(p), count(not_p), count(null)) {
                    (Some(a), Some(x), Some(y), Some(z)) => a == x + y + z,
                    _ => return NOT_A_COUNT,
                },
                (Relation::AddedRelationship, [before, after]) => match (count(before), count(after)) {
                    (Some(b), Some(a)) => a >= 1 && a >= b,
                    _ => return NOT_A_COUNT,
                },
                (Relation::Cut, [before, after]) => match (count(before), count(after)) {
                    (Some(b), Some(a)) => b >= 1 && a == 0,
                    _ => return NOT_A_COUNT,
                },
                (
                    Relation::AddedNode
                    | Relation::DeletedNode
                    | Relation::DeletedRelationship
                    | Relation::Updated
                    | Relation::Irrelevant,
                    [before, after],
                ) if case.delta.is_some() => match (count(before), count(after)) {
                    (Some(b), Some(a)) => Some(a - b) == case.delta,
                    _ => return NOT_A_COUNT,
                },
                _ => return Verdict::Skip("a group of another size"),
            };
            if !held {
                // Each answer under its query's role, then what the relation
                // asked: "(0 / 0)" said neither which count was which nor
                // what was expected of them.
                let mut shown: Vec<String> =
                    rows.iter().zip(&case.queries).map(|(r, q)| format!("{} {}", q.role, summarize(r))).collect();
                shown.extend(expected(relation, case.delta));
                return broken(
                    OracleKind::METAMORPHIC,
                    engine,
                    name,
                    "violated",
                    None,
                    format!("{engine}: the {name} relation does not hold ({})", shown.join("; ")),
                    match case.delta {
                        Some(d) => format!("{} The graph generated predicts a difference of {d:+}.", words(relation)),
                        None => words(relation).to_owned(),
                    },
                );
            }
        }
        Verdict::Pass
    }
}

/// The relation in words a maintainer reads.
fn words(relation: Relation) -> &'static str {
    match relation {
        Relation::Symmetry => {
            "An undirected pattern matches each relationship from both of its ends, so every pair (a, b) it \
             returns must come back as often as the pair (b, a)."
        }
        Relation::KHop => {
            "A directed path pattern read from its other end, with every direction flipped, matches the same \
             paths, so both queries must return the same pairs."
        }
        Relation::TypeUnion => {
            "A relationship of type T1|T2 is of type T1 or of type T2 and never both, so the first count must \
             be the sum of the other two."
        }
        Relation::PathProduct => {
            "Every path (a)-[:T1]->(m)-[:T2]->(b) through the fixed node m joins one way into m with one way \
             out of it, and the two relationships can never be the same one, so the first count must be the \
             product of the other two."
        }
        Relation::Transitivity => {
            "Every node reached from a in i hops and then j more (along one type and direction) is reached from \
             a in at most i+j hops, so the second query's nodes must all be among the first's."
        }
        Relation::ShortestPath => {
            "The generated graph has a path from a to b, so some path must be found; the paths that avoid the \
             inner node m are some of them, so there can be no more of them and none shorter."
        }
        Relation::Fusion => {
            "A node with a T1 relationship and a T2 relationship is in both single answers, and a node with \
             either is in one of them: the third query must return their intersection and the fourth their union."
        }
        Relation::EdgeProperty => {
            "A predicate p over a relationship is true, false or null, and exactly one of them, so the \
             relationships of the type must be as many as those where p, NOT p and p IS NULL hold, together."
        }
        Relation::AddedRelationship => {
            "A relationship created from a to b is a path from a to b, and adding it removes no path: after it, \
             at least one path must join them, and no fewer than before."
        }
        Relation::Cut => {
            "Once every relationship of type T leaving a (in the direction read) is deleted, no path of type T \
             can leave a: the count after the cut must be zero (and it was at least one before)."
        }
        Relation::AddedNode => {
            "A node created with label L and property k = v, before a MATCH that counts the nodes with label L \
             and k = v, must be counted: the second count is the first plus one."
        }
        Relation::DeletedNode | Relation::DeletedRelationship => {
            "An entity deleted before a MATCH that would have counted it is gone: the second count is the first \
             minus one when the generated graph says the deleted entity was counted, and the same otherwise."
        }
        Relation::Updated => {
            "After SET x.k = v, a MATCH that counts the nodes with k = v must count x: the second count is the \
             first plus one unless x had k = v already."
        }
        Relation::Irrelevant => {
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


/// What a counting relation expects of its counts, in a few words.
fn expected(relation: Relation, delta: Option<i64>) -> Option<String> {
    let words = match relation {
        Relation::TypeUnion => "expected the first count to be the sum of the other two".to_owned(),
        Relation::PathProduct => "expected the first count to be the product of the other two".to_owned(),
        Relation::EdgeProperty => "expected the first count to be the sum of the other three".to_owned(),
        Relation::AddedRelationship => "expected at least 1 after, and no fewer than before".to_owned(),
        Relation::Cut => "expected at least 1 before and 0 after the cut".to_owned(),
        Relation::ShortestPath => "expected paths avoiding m to be no more and no shorter".to_owned(),
        Relation::AddedNode
        | Relation::DeletedNode
        | Relation::DeletedRelationship
        | Relation::Updated
        | Relation::Irrelevant => format!("expected a difference of {:+}", delta?),
        // Relations over rows, not counts: the rows are in the README.
        Relation::Symmetry | Relation::KHop | Relation::Transitivity | Relation::Fusion => return None,
    };
    Some(words)
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

#[cfg(test)]
mod names {
    /// The names are the command line's and `case.json`'s: they never change.
    #[test]
    fn the_relations_keep_their_names() {
        let names = [
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
        assert_eq!(*super::RELATIONS, names);
        assert!(names.iter().all(|n| super::Relation::named(n).is_some_and(|r| r.name() == *n)));
    }
}

#[cfg(test)]
mod tests {
    use graphlancer_cypher::ast::Query;
    use graphlancer_model::{ResultSet, Value};

    use super::*;

    fn count(n: i64) -> Vec<Outcome> {
        vec![Outcome::Rows(ResultSet { columns: vec!["c".into()], rows: vec![vec![Value::Int(n)]] })]
    }

    #[test]
    fn a_broken_count_relation_names_each_count_and_what_was_expected() {
        let empty = || Query { parts: Vec::new(), union_all: false, spelling: Default::default() };
        let case = TestCase {
            relation: "metamorphic:cut".into(),
            queries: vec![CaseQuery::new("before", empty(), None), CaseQuery::new("after the cut", empty(), None)],
            delta: None,
        };
        let names = vec!["falkordb".to_owned()];
        let cx = JudgeCx { names: &names, schema: &crate::tests::schema() };
        let Verdict::Finding(f) = Metamorphic.judge(&cx, &case, &[count(0), count(0)]) else { panic!("no finding") };
        assert_eq!(
            f.summary,
            "falkordb: the cut relation does not hold (before 0; after the cut 0; expected at least 1 before and 0 \
             after the cut)"
        );
    }
}
