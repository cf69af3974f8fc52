//! How much work a query asks of an engine on a given graph, estimated from
//! the graph the tool generated: the most intermediate rows any clause can
//! produce. A timeout on a query that asks for millions of rows is an
//! expensive query, not a hang: the 10-minute triages found FalkorDB taking
//! 30–49 s over 22 million rows of two cross products, and LadybugDB 5 s
//! over 1.4 million rows of paths, on a machine busy with other work.
//!
//! The estimate is an upper bound in the spirit of a planner's worst case:
//! every pattern part multiplies the rows by the walks the graph holds that
//! match its labels, types and directions (per node its labels allow where
//! it starts on a bound variable), a MERGE like a MATCH, and property
//! constraints and WHERE are assumed to filter nothing.

use std::collections::BTreeSet;

use graphlancer_cypher::ast::{Clause, Direction, Expr, PathPattern, Query, SingleQuery};
use graphlancer_model::{Graph, Value};

/// Rows a second every engine here manages even on a loaded machine (the
/// triaged timeouts ran at 3–7 × 10^5 rows a second): a query that needs
/// more rows than this times its timeout may time out without hanging.
pub const ROWS_PER_SECOND: f64 = 1e5;

/// Estimated rows from which a campaign runs only one generated query in
/// [`SAMPLED_ONE_IN`]: such queries cost the engines hundreds of
/// milliseconds to seconds each, against a median of 0.4 ms.
pub const SAMPLED_ROWS: f64 = 3e4;

/// One in this many generated queries of [`SAMPLED_ROWS`] or more is run.
pub const SAMPLED_ONE_IN: u32 = 10;

/// Intermediate rows from which a timeout of `timeout` counts as an
/// expensive query: 10^6 for the default 10 s.
pub fn expensive(timeout: std::time::Duration) -> f64 {
    timeout.as_secs_f64() * ROWS_PER_SECOND
}

/// The time a timed-out query gets again before it counts as a hang: four
/// times its timeout, and at least two seconds, since short timeouts (tests,
/// smoke runs) are at the mercy of a busy machine's scheduler: 20 ms
/// timeouts on a loaded machine ran late by more than 80 ms without hanging.
pub fn longer_timeout(timeout: std::time::Duration) -> std::time::Duration {
    timeout.saturating_mul(4).max(std::time::Duration::from_secs(2))
}

/// The largest number of rows any clause of `query` may produce on `graph`,
/// counting the pattern expansions its expressions make per row.
pub fn estimate(query: &Query, graph: &Graph) -> f64 {
    let stats = Stats::of(graph);
    query.parts.iter().map(|p| stats.single(p, 1.0, BTreeSet::new())).sum()
}

/// The most traversers any step of `t` holds on `graph`, counted by walking
/// the graph itself with a count per vertex and per edge (a hub of a small
/// graph makes millions of walks that no average degree predicts: a triaged
/// `g.E().inV().in().repeat(both('T1')).times(3)` over 60 edges makes 13
/// million). Filters are taken to keep everything, `dedup` to keep each
/// element once, and the inner walk of a filter costs what it walks.
pub fn traversal_estimate(t: &graphlancer_gremlin::Traversal, graph: &Graph) -> f64 {
    use graphlancer_gremlin::ast::Source;
    let start = match &t.source {
        Source::V => Walk::Vertices(vec![1.0; graph.nodes.len()]),
        Source::E => Walk::Edges(graph.relationships.iter().map(|_| [0.0, 0.0, 1.0]).collect()),
        Source::VIds(ids) => {
            Walk::Vertices(graph.nodes.iter().map(|n| if ids.contains(&n.id) { 1.0 } else { 0.0 }).collect())
        }
        Source::Inject(v) => Walk::Other(v.len() as f64),
    };
    let walker = Walker { graph, ends: ends(graph), nodes: graph.nodes.len() };
    let mut work = start.total();
    walker.steps(&t.steps, start, &mut work);
    work
}

/// Each relationship's start and end, as indices into `graph`'s nodes.
fn ends(graph: &Graph) -> Vec<(usize, usize)> {
    let index: std::collections::BTreeMap<i64, usize> =
        graph.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let at = |id: &i64| index.get(id).copied().unwrap_or(0);
    graph.relationships.iter().map(|r| (at(&r.start), at(&r.end))).collect()
}

/// One step of walks counted per node (`at`) over the relationships of
/// `types` (all where empty), from start to end and, or, from end to start
/// (`ways`): the walks that arrive at each node.
fn step(graph: &Graph, ends: &[(usize, usize)], types: &[String], ways: (bool, bool), at: &[f64]) -> Vec<f64> {
    let mut next = vec![0.0; at.len()];
    for (r, &(a, b)) in graph.relationships.iter().zip(ends) {
        if !types.is_empty() && !types.contains(&r.rel_type) {
            continue;
        }
        if ways.0 {
            next[b] += at[a];
        }
        if ways.1 {
            next[a] += at[b];
        }
    }
    next
}

/// Traversers per vertex, per edge (reached from its start, from its end,
/// or from neither), or in all.
#[derive(Debug, Clone)]
enum Walk {
    Vertices(Vec<f64>),
    Edges(Vec<[f64; 3]>),
    Other(f64),
}

impl Walk {
    fn total(&self) -> f64 {
        match self {
            Walk::Vertices(c) => c.iter().sum(),
            Walk::Edges(c) => c.iter().map(|e| e.iter().sum::<f64>()).sum(),
            Walk::Other(n) => *n,
        }
    }

    fn scaled(self, f: f64) -> Walk {
        match self {
            Walk::Vertices(c) => Walk::Vertices(c.into_iter().map(|x| x * f).collect()),
            Walk::Edges(c) => Walk::Edges(c.into_iter().map(|e| e.map(|x| x * f)).collect()),
            Walk::Other(n) => Walk::Other(n * f),
        }
    }

    /// Elementwise sum, or the totals' when the kinds differ.
    fn plus(self, other: Walk) -> Walk {
        match (self, other) {
            (Walk::Vertices(a), Walk::Vertices(b)) => Walk::Vertices(a.iter().zip(&b).map(|(x, y)| x + y).collect()),
            (a, b) => Walk::Other(a.total() + b.total()),
        }
    }
}

struct Walker<'g> {
    graph: &'g Graph,
    ends: Vec<(usize, usize)>,
    nodes: usize,
}

impl Walker<'_> {
    fn typed(&self, types: &[String]) -> impl Iterator<Item = (usize, (usize, usize))> + '_ {
        let types = types.to_vec();
        self.graph
            .relationships
            .iter()
            .enumerate()
            .filter(move |(_, r)| types.is_empty() || types.contains(&r.rel_type))
            .map(|(i, _)| (i, self.ends[i]))
    }

    fn steps(&self, steps: &[graphlancer_gremlin::ast::Step], mut at: Walk, work: &mut f64) -> Walk {
        use graphlancer_gremlin::ast::{Direction as D, Step};
        for s in steps {
            at = match (s, at) {
                (Step::Move(dir, types), Walk::Vertices(c)) => {
                    Walk::Vertices(step(self.graph, &self.ends, types, (*dir != D::In, *dir != D::Out), &c))
                }
                (Step::MoveE(dir, types), Walk::Vertices(c)) => {
                    let mut out = vec![[0.0; 3]; self.ends.len()];
                    for (i, (a, b)) in self.typed(types) {
                        if *dir != D::In {
                            out[i][0] += c[a];
                        }
                        if *dir != D::Out {
                            out[i][1] += c[b];
                        }
                    }
                    Walk::Edges(out)
                }
                (Step::EdgeV(_) | Step::OtherV, Walk::Edges(c)) => {
                    let mut out = vec![0.0; self.nodes];
                    for (i, e) in c.iter().enumerate() {
                        let (a, b) = self.ends[i];
                        let all = e.iter().sum::<f64>();
                        match s {
                            Step::EdgeV(D::Out) => out[a] += all,
                            Step::EdgeV(D::In) => out[b] += all,
                            Step::EdgeV(D::Both) => {
                                out[a] += all;
                                out[b] += all;
                            }
                            _ => {
                                out[b] += e[0] + e[2];
                                out[a] += e[1];
                            }
                        }
                    }
                    Walk::Vertices(out)
                }
                (Step::Dedup, Walk::Vertices(c)) => Walk::Vertices(c.into_iter().map(|x| x.min(1.0)).collect()),
                // An `until` stops traversers early: `times` bounds the walk.
                (Step::Repeat { body, times, emit, .. }, w) => {
                    let mut w = w;
                    let mut emitted: Option<Walk> = None;
                    for _ in 0..*times {
                        w = self.steps(body, w, work);
                        if *emit {
                            emitted = Some(match emitted {
                                Some(e) => e.plus(w.clone()),
                                None => w.clone(),
                            });
                        }
                    }
                    emitted.unwrap_or(w)
                }
                (Step::Union(branches), w) => {
                    branches.iter().map(|b| self.steps(b, w.clone(), work)).reduce(Walk::plus).unwrap_or(w)
                }
                (Step::Limit(n) | Step::Tail(n) | Step::Range(_, n), w) => {
                    let t = w.total();
                    if t > f64::from(*n) { w.scaled(f64::from(*n) / t) } else { w }
                }
                (Step::Count | Step::Sum | Step::Min | Step::Max | Step::Mean | Step::Fold, _) => Walk::Other(1.0),
                (Step::Group(..) | Step::GroupCount(_), _) => Walk::Other(1.0),
                (other, w) => {
                    // Branches and filters: the most any inner walk makes.
                    let mut most = w.total();
                    for c in other.children() {
                        let inner = self.steps(c, w.clone(), work).total();
                        *work = work.max(inner);
                        if matches!(other, Step::Coalesce(_) | Step::Optional(_) | Step::Choose(..)) {
                            most = most.max(inner);
                        }
                    }
                    if most > w.total() { Walk::Other(most) } else { w }
                }
            };
            *work = work.max(at.total());
        }
        at
    }
}

/// Node and relationship counts the estimate reads.
struct Stats<'g> {
    graph: &'g Graph,
    nodes: f64,
    /// Each relationship's start and end, as indices into the graph's nodes.
    ends: Vec<(usize, usize)>,
    /// Nodes the query's CREATE and MERGE clauses may have made so far, each
    /// one a node every later scan may meet (a triaged FalkorDB timeout
    /// scanned 4,176 nodes its own CREATE made, for each of 8,340 rows).
    created: std::cell::Cell<f64>,
    /// Relationships those clauses may have made so far, each one more walk
    /// for every later hop (a triaged ArcadeDB timeout walked 2,280 T1
    /// relationships its own CREATE made, 2.5 million rows in all).
    created_rels: std::cell::Cell<f64>,
}

impl Stats<'_> {
    fn of(graph: &Graph) -> Stats<'_> {
        Stats {
            graph,
            nodes: graph.nodes.len().max(1) as f64,
            ends: ends(graph),
            created: std::cell::Cell::new(0.0),
            created_rels: std::cell::Cell::new(0.0),
        }
    }

    /// The work of `q` entered with `rows` rows and `bound` variables.
    fn single(&self, q: &SingleQuery, mut rows: f64, mut bound: BTreeSet<String>) -> f64 {
        let mut work = rows;
        for clause in &q.clauses {
            let mut per_row = 0.0;
            match clause {
                Clause::Match { optional, patterns, guard, predicate } => {
                    let mut factor = 1.0;
                    for p in patterns {
                        factor *= self.pattern(p, &bound);
                        bind(p, &mut bound);
                    }
                    rows = if *optional { rows * factor.max(1.0) } else { rows * factor };
                    per_row += guard.iter().chain(predicate).map(|e| self.expr(e, &bound)).sum::<f64>();
                }
                Clause::Unwind { list, alias } => {
                    per_row += self.expr(list, &bound);
                    rows *= length(list);
                    bound.insert(alias.clone());
                }
                // A row per label or type of the schema, at most.
                Clause::Procedure { alias, predicate, .. } => {
                    rows *= (self.graph.schema.labels.len().max(self.graph.schema.rel_types.len())).max(1) as f64;
                    per_row += predicate.iter().map(|e| self.expr(e, &bound)).sum::<f64>();
                    bound.insert(alias.clone());
                }
                Clause::With(p) | Clause::Return(p) => {
                    let exprs =
                        p.items.iter().map(|(e, _)| e).chain(&p.predicate).chain(p.order_by.iter().map(|(e, _)| e));
                    per_row += exprs.map(|e| self.expr(e, &bound)).sum::<f64>();
                    let grouped = p.items.iter().any(|(e, _)| e.has_aggregate());
                    if grouped && p.items.iter().all(|(e, _)| e.has_aggregate()) {
                        rows = 1.0;
                    }
                    if let Some(limit) = p.limit {
                        rows = rows.min(f64::from(limit));
                    }
                    if !p.star {
                        bound = p.items.iter().map(|(_, a)| a.clone()).collect();
                    }
                }
                Clause::Create { patterns } => {
                    self.add_created(patterns, &bound, rows);
                    patterns.iter().for_each(|p| bind(p, &mut bound));
                }
                Clause::Merge { pattern, .. } => {
                    // A row per match, as MATCH gives, where it matches
                    // (the rows out are the work of matching); at most one
                    // creation per incoming row.
                    let matches = self.pattern(pattern, &bound);
                    self.add_created(std::slice::from_ref(pattern), &bound, rows);
                    rows *= matches.max(1.0);
                    bind(pattern, &mut bound);
                }
                Clause::Set { .. } | Clause::Remove { .. } | Clause::Delete { .. } => {}
                Clause::Foreach { list, .. } => per_row += self.expr(list, &bound) + length(list),
                Clause::Call { imports, body, union_all } => {
                    let inner: BTreeSet<String> = imports.iter().cloned().collect();
                    let body_work: f64 =
                        std::iter::once(body).chain(union_all).map(|b| self.single(b, 1.0, inner.clone())).sum();
                    per_row += body_work;
                    rows *= body_work.max(1.0);
                    if let Some(Clause::Return(p)) = body.clauses.last() {
                        bound.extend(p.items.iter().map(|(_, a)| a.clone()));
                    }
                }
            }
            work = work.max(rows).max(rows * per_row);
        }
        work
    }

    /// Rows one pattern part yields per incoming row: the walks the graph
    /// holds that match its labels, types and directions hop by hop,
    /// counted per node (an average degree misses hubs: graphs here often
    /// put every relationship among a few nodes of one label, and a
    /// triaged 3.9 s Grafeo query made 724 thousand rows where the average
    /// predicted 7 thousand). Anchored on a bound variable, the walks per
    /// node its labels allow.
    fn pattern(&self, p: &PathPattern, bound: &BTreeSet<String>) -> f64 {
        let anchored = p.start.variable.as_ref().is_some_and(|v| bound.contains(v));
        // Every node bound already: the pattern checks the rows it gets.
        let mut nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
        if nodes.all(|n| n.variable.as_ref().is_some_and(|v| bound.contains(v))) {
            return 1.0;
        }
        if p.hops.is_empty() {
            return if anchored { 1.0 } else { self.labelled(&p.start.labels) };
        }
        let has = |i: usize, labels: &[String]| labels.iter().all(|l| self.graph.nodes[i].labels.contains(l));
        let mut at: Vec<f64> =
            (0..self.graph.nodes.len()).map(|i| if has(i, &p.start.labels) { 1.0 } else { 0.0 }).collect();
        let starts = at.iter().sum::<f64>();
        for (rel, node) in &p.hops {
            let (lo, hi) = rel.length.unwrap_or((1, 1));
            // A zero-length hop stays where it is.
            let mut reached = if lo == 0 { at.clone() } else { vec![0.0; at.len()] };
            let ways = (rel.direction != Direction::In, rel.direction != Direction::Out);
            for k in 1..=hi {
                at = step(self.graph, &self.ends, &rel.types, ways, &at);
                if k >= lo {
                    reached.iter_mut().zip(&at).for_each(|(r, x)| *r += x);
                }
                // Far past anything that finishes (the count is the point), or
                // no walk left to extend.
                let total = at.iter().sum::<f64>();
                if total > 1e12 || total == 0.0 {
                    if k < lo {
                        reached = at.clone();
                    }
                    break;
                }
            }
            at = reached.into_iter().enumerate().map(|(i, c)| if has(i, &node.labels) { c } else { 0.0 }).collect();
        }
        let walks = at.iter().sum::<f64>() + self.created_rels.get() * p.hops.len() as f64;
        if anchored { (walks / starts.max(1.0)).max(1.0) } else { walks.max(1.0) }
    }

    fn labelled(&self, labels: &[String]) -> f64 {
        let n = self.graph.nodes.iter().filter(|n| labels.iter().all(|l| n.labels.contains(l))).count();
        (n as f64 + self.created.get()).max(1.0)
    }

    /// Counts the nodes `patterns` make on each of `rows` rows, every node
    /// pattern whose variable is not bound yet, and the relationships, one
    /// a hop.
    fn add_created(&self, patterns: &[PathPattern], bound: &BTreeSet<String>, rows: f64) {
        let hops = patterns.iter().map(|p| p.hops.len()).sum::<usize>();
        self.created_rels.set(self.created_rels.get() + rows * hops as f64);
        let fresh = patterns
            .iter()
            .flat_map(|p| std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n)))
            .filter(|n| n.variable.as_ref().is_none_or(|v| !bound.contains(v)))
            .count();
        self.created.set(self.created.get() + rows * fresh as f64);
    }

    /// Pattern expansions an expression makes per row.
    fn expr(&self, e: &Expr, bound: &BTreeSet<String>) -> f64 {
        let mut cost = 0.0;
        e.walk(&mut |e| match e {
            Expr::PatternPredicate(p) | Expr::ExistsSubquery(p, _) => cost += self.pattern(p, bound),
            Expr::PatternComprehension { pattern, .. } => cost += self.pattern(pattern, bound),
            // A breadth-first search visits each node and relationship once.
            Expr::ShortestPath(_) => cost += self.nodes + self.graph.relationships.len() as f64,
            _ => {}
        });
        cost
    }
}

fn bind(p: &PathPattern, bound: &mut BTreeSet<String>) {
    bound.extend(p.name.iter().cloned());
    bound.extend(p.start.variable.iter().cloned());
    for (r, n) in &p.hops {
        bound.extend(r.variable.iter().cloned());
        bound.extend(n.variable.iter().cloned());
    }
}

/// How many elements a list expression has: exact for literals and
/// `range` over literals, a guess of 10 otherwise.
fn length(list: &Expr) -> f64 {
    match list {
        Expr::List(items) => items.len() as f64,
        Expr::Literal(Value::List(items)) => items.len() as f64,
        Expr::Function(f, args) if f.eq_ignore_ascii_case("range") => match args.as_slice() {
            [Expr::Literal(Value::Int(a)), Expr::Literal(Value::Int(b)), ..] => (b - a + 1).max(0) as f64,
            _ => 10.0,
        },
        _ => 10.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphlancer_cypher::ast::{NodePattern, Projection, RelPattern};
    use graphlancer_model::GraphConfig;

    fn work(clauses: Vec<Clause>) -> f64 {
        let graph = graphlancer_model::generate(1, &GraphConfig::default()).expect("generates");
        assert_eq!((graph.nodes.len(), graph.relationships.len()), (30, 60));
        estimate(
            &Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() },
            &graph,
        )
    }

    fn node(v: &str) -> NodePattern {
        NodePattern { variable: Some(v.into()), labels: Vec::new(), properties: Vec::new() }
    }

    /// `(from)-[*lo..hi]-(to)`, or `(from)-[]->(to)` without a length.
    fn path(from: &str, to: &str, length: Option<(u32, u32)>) -> PathPattern {
        let direction = if length.is_some() { Direction::Both } else { Direction::Out };
        let rel = RelPattern { variable: None, types: Vec::new(), direction, length, properties: Vec::new() };
        PathPattern { name: None, start: node(from), hops: vec![(rel, node(to))] }
    }

    fn matching(patterns: Vec<PathPattern>, predicate: Option<Expr>) -> Clause {
        Clause::Match { optional: false, patterns, guard: None, predicate }
    }

    fn nodes(vars: &[&str]) -> Clause {
        matching(vars.iter().map(|v| PathPattern { name: None, start: node(v), hops: Vec::new() }).collect(), None)
    }

    fn ret(v: &str) -> Clause {
        Clause::Return(Projection::of(vec![(Expr::var(v), v.into())]))
    }

    #[test]
    fn cross_products_multiply_and_anchored_parts_do_not() {
        assert_eq!(work(vec![nodes(&["a"]), ret("a")]), 30.0);
        assert_eq!(work(vec![nodes(&["a", "b", "c"]), ret("a")]), 27_000.0);
        // The second MATCH starts from a bound node: as many rows as relationships.
        assert_eq!(work(vec![nodes(&["a"]), matching(vec![path("a", "b", None)], None), ret("b")]), 60.0);
        assert!(work(vec![nodes(&["a", "b", "c", "d", "e"]), ret("a")]) >= 1e6);
    }

    #[test]
    fn nodes_a_query_creates_are_met_by_its_later_scans() {
        let range = Expr::Function("range".into(), vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(1000))]);
        let unwind = Clause::Unwind { list: range, alias: "x".into() };
        let create = Clause::Create { patterns: vec![PathPattern { name: None, start: node("c"), hops: Vec::new() }] };
        let with = Clause::With(Projection::of(vec![(Expr::var("x"), "x".into())]));
        let plain = work(vec![unwind.clone(), with.clone(), nodes(&["a"]), ret("a")]);
        let created = work(vec![unwind, create, with, nodes(&["a"]), ret("a")]);
        assert_eq!(plain, 30_000.0);
        // A thousand rows each scan the 30 nodes and the thousand made.
        assert_eq!(created, 1000.0 * 1030.0);
    }

    #[test]
    fn relationships_a_query_creates_are_walked_by_its_later_hops() {
        let range = Expr::Function("range".into(), vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(1000))]);
        let unwind = Clause::Unwind { list: range, alias: "x".into() };
        let create = Clause::Create { patterns: vec![path("c", "d", None)] };
        let with = Clause::With(Projection::of(vec![(Expr::var("x"), "x".into())]));
        let hop = matching(vec![path("a", "b", None)], None);
        let plain = work(vec![unwind.clone(), with.clone(), hop.clone(), ret("a")]);
        let created = work(vec![unwind, create, with, hop, ret("a")]);
        // A thousand rows each walk the 60 relationships and the thousand made.
        assert_eq!(plain, 1000.0 * 60.0);
        assert_eq!(created, 1000.0 * 1060.0);
    }

    #[test]
    fn variable_length_hops_grow_with_their_length() {
        let short = work(vec![matching(vec![path("a", "b", Some((1, 2)))], None), ret("b")]);
        let long = work(vec![matching(vec![path("a", "b", Some((1, 8)))], None), ret("b")]);
        // Up to two undirected hops over 60 relationships: thousands of walks.
        assert!((1_000.0..10_000.0).contains(&short), "{short}");
        assert!(long >= 1e6, "{long}");
    }

    #[test]
    fn a_pattern_predicate_costs_per_row_and_limit_caps_the_rows() {
        let plain = work(vec![nodes(&["a", "b"]), ret("a")]);
        let predicate = Expr::PatternPredicate(Box::new(path("a", "x", Some((1, 3)))));
        let filtered = work(vec![matching(vec![path("a", "b", None)], Some(predicate)), ret("a")]);
        assert_eq!(plain, 900.0);
        assert!(filtered > 60.0 * 60.0, "{filtered}");
        let mut limited = Projection::of(vec![(Expr::var("a"), "a".into())]);
        limited.limit = Some(2);
        assert_eq!(work(vec![nodes(&["a"]), Clause::With(limited), nodes(&["b"]), ret("b")]), 60.0);
        let unwind = |list: Expr, alias: &str| Clause::Unwind { list, alias: alias.into() };
        let range = Expr::Function("range".into(), vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(5))]);
        let pair = Expr::List(vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Int(2))]);
        assert_eq!(work(vec![unwind(range, "x"), unwind(pair, "y"), ret("x")]), 10.0);
    }
}

#[cfg(test)]
mod walk_tests {
    use graphlancer_cypher::ast::Expr;
    use graphlancer_cypher::ast::{
        Clause, Direction, NodePattern, PathPattern, Projection, Query, RelPattern, SingleQuery,
    };

    use super::estimate;

    fn node(v: &str) -> NodePattern {
        NodePattern { variable: Some(v.into()), labels: Vec::new(), properties: Vec::new() }
    }

    /// `(v0)-[]-(v1)-[]-...` with every hop in `direction`.
    fn walk(vars: &[&str], direction: Direction) -> PathPattern {
        let rel = RelPattern { variable: None, types: Vec::new(), direction, length: None, properties: Vec::new() };
        PathPattern {
            name: None,
            start: node(vars[0]),
            hops: vars[1..].iter().map(|v| (rel.clone(), node(v))).collect(),
        }
    }

    fn work(graph: &graphlancer_model::Graph, clauses: Vec<Clause>) -> f64 {
        let mut clauses = clauses;
        clauses.push(Clause::Return(Projection::of(vec![(Expr::count_star(), "c".into())])));
        estimate(&Query { parts: vec![SingleQuery { clauses }], union_all: false, spelling: Default::default() }, graph)
    }

    #[test]
    fn walks_through_a_hub_count_its_spokes_where_an_average_degree_does_not() {
        let g = super::traversal_tests::star(30);
        let matching = |p| Clause::Match { optional: false, patterns: vec![p], guard: None, predicate: None };
        // Spoke, hub, any spoke (30 * 30), and hub, spoke, hub (30): the
        // average degree (60 / 31 both ways) would say 31 * 1.94^2, 116.
        assert_eq!(work(&g, vec![matching(walk(&["a", "b", "c"], Direction::Both))]), 930.0);
        // Directed: the 30 spokes point at the hub, and nothing leaves it.
        assert_eq!(work(&g, vec![matching(walk(&["a", "b"], Direction::Out))]), 30.0);
        assert_eq!(work(&g, vec![matching(walk(&["a", "b", "c"], Direction::Out))]), 1.0);
        // A zero-length hop stays on its node: 31, then 31 + 60 with one hop more.
        let hops = |lo, hi| {
            let rel = RelPattern {
                variable: None,
                types: Vec::new(),
                direction: Direction::Both,
                length: Some((lo, hi)),
                properties: Vec::new(),
            };
            matching(PathPattern { name: None, start: node("a"), hops: vec![(rel, node("b"))] })
        };
        assert_eq!(work(&g, vec![hops(0, 0)]), 31.0);
        assert_eq!(work(&g, vec![hops(0, 1)]), 91.0);
        // A MERGE gives a row per match, as a MATCH does: 31 rows, 30 each.
        let all = matching(PathPattern { name: None, start: node("a"), hops: Vec::new() });
        let merge =
            Clause::Merge { pattern: walk(&["x", "y"], Direction::Out), on_create: Vec::new(), on_match: Vec::new() };
        assert_eq!(work(&g, vec![all, merge]), 31.0 * 30.0);
    }
}

#[cfg(test)]
mod traversal_tests {
    use graphlancer_gremlin::ast::{Direction, Source, Step, Traversal};
    use graphlancer_model::{Graph, GraphNode, GraphRelationship};

    use super::traversal_estimate;

    /// A hub with `n` spokes: one vertex every other points at.
    pub(super) fn star(n: i64) -> Graph {
        let mut schema = crate::tests::schema();
        schema.labels.truncate(1);
        let label = schema.labels[0].name.clone();
        let t = schema.rel_types[0].name.clone();
        let nodes =
            (0..=n).map(|id| GraphNode { id, labels: vec![label.clone()], properties: Default::default() }).collect();
        let relationships = (1..=n)
            .map(|i| GraphRelationship { id: i, start: i, end: 0, rel_type: t.clone(), properties: Default::default() })
            .collect();
        Graph { schema, nodes, relationships }
    }

    #[test]
    fn walks_through_a_hub_multiply_where_the_average_degree_does_not() {
        let g = star(30);
        let both = |times| Traversal {
            source: Source::V,
            steps: vec![Step::Repeat {
                body: vec![Step::Move(Direction::Both, vec![])],
                times,
                emit: false,
                until: None,
            }],
        };
        // Two hops: the hub reaches each spoke and back (30), and each
        // spoke reaches the hub and then any of the 30 spokes (30 * 30).
        assert_eq!(traversal_estimate(&both(2), &g), 30.0 + 30.0 * 30.0);
        // Every two hops through the hub multiply the walks by 30 again,
        // where the average degree (2) predicts 31 * 2^6.
        assert_eq!(traversal_estimate(&both(6), &g), 27_000.0 + 30.0 * 27_000.0);
        let counted =
            Traversal { source: Source::V, steps: vec![Step::Move(Direction::Out, vec![]), Step::Dedup, Step::Count] };
        assert_eq!(traversal_estimate(&counted, &g), 31.0, "the 30 spokes' moves, then one hub");
    }
}
