//! Gremlin to Cypher for the fragment both languages say alike: a walk of
//! moves with filters on what it reaches, a projection (the elements, a
//! property's values, labels), ordering with paging, `dedup`, and the
//! aggregates. The translation follows TinkerPop's semantics, not a
//! word-for-word reading: each hop is its own MATCH (Gremlin keeps no
//! relationship unique), `both()` is the out-hop and the in-hop joined by
//! UNION ALL (a self-loop is walked both ways, where an undirected Cypher
//! pattern walks it once), `values('k')` drops what lacks `k`, and `sum`,
//! `min`, `max`, `mean` of nothing give no row. Anything else is refused
//! with the reason, never guessed.

use graphlancer_cypher::ast::{
    BinOp, Clause, Direction as CyDir, Expr, NodePattern, PathPattern, Projection, Query, RelPattern, SingleQuery,
};
use graphlancer_gremlin::ast::{By, Direction, Order, Predicate, Source, Step, Traversal};
use graphlancer_model::Value;

/// The Cypher of a traversal.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    /// The query; its one column holds what the traversers hold.
    pub query: Query,
    /// Whether the answer's order is fixed (an ORDER BY on the last RETURN).
    pub ordered: bool,
}

/// What the traversers hold, by the Cypher variables that name it.
#[derive(Debug, Clone)]
enum Holds {
    Vertex(String),
    /// An edge with its ends where the walk knows them: `near` is the vertex
    /// it was reached from (for `otherV`), `start`/`end` its out- and in-vertex.
    Edge {
        var: String,
        near: Option<String>,
        far: Option<String>,
        start: Option<String>,
        end: Option<String>,
    },
    Value(String),
}

impl Holds {
    fn var(&self) -> &str {
        match self {
            Holds::Vertex(v) | Holds::Value(v) | Holds::Edge { var: v, .. } => v,
        }
    }

    /// The variables a projection must carry for the walk to go on.
    fn scope(&self) -> Vec<String> {
        match self {
            Holds::Edge { var, near, far, start, end } => {
                let mut out = vec![var.clone()];
                for v in [near, far, start, end].into_iter().flatten() {
                    if !out.contains(v) {
                        out.push(v.clone());
                    }
                }
                out
            }
            other => vec![other.var().to_owned()],
        }
    }
}

struct Tr {
    clauses: Vec<Clause>,
    holds: Holds,
    /// Vertices named by `as()`, carried through every projection.
    names: Vec<(String, String)>,
    fresh: usize,
    /// The order the stream is in, kept while steps keep it.
    order: Vec<(Expr, bool)>,
    /// SKIP and LIMIT not yet written.
    skip: Option<u32>,
    limit: Option<u32>,
}

/// The Cypher of `t`, or why it has none.
pub fn to_cypher(t: &Traversal) -> Result<Translation, &'static str> {
    let mut tr = Tr {
        clauses: Vec::new(),
        holds: Holds::Value(String::new()),
        names: Vec::new(),
        fresh: 0,
        order: Vec::new(),
        skip: None,
        limit: None,
    };
    match &t.source {
        Source::V | Source::VIds(_) => {
            let n = tr.name("n");
            tr.clauses.push(matching(node(&n), Vec::new()));
            if let Source::VIds(ids) = &t.source {
                tr.filter(ids_test(&n, ids));
            }
            tr.holds = Holds::Vertex(n);
        }
        Source::E => {
            let (s, r, e) = (tr.name("n"), tr.name("r"), tr.name("n"));
            tr.clauses.push(matching(node(&s), vec![(rel(&r, &[], CyDir::Out), node(&e))]));
            tr.holds = Holds::Edge { var: r, near: None, far: None, start: Some(s), end: Some(e) };
        }
        Source::Inject(_) => return Err("inject() has no Cypher counterpart here"),
    }
    for s in &t.steps {
        tr.step(s)?;
    }
    tr.flush_paging_if_set(false);
    // The column keeps the variable's name: Grafeo 0.5.44 cannot ORDER BY a
    // variable its RETURN renamed (`RETURN v AS x ORDER BY v`: "Variable 'v'
    // not found for ORDER BY"), found by this oracle's first campaign.
    let var = tr.holds.var().to_owned();
    let mut ret = Projection::of(vec![(Expr::var(&var), var.clone())]);
    let ordered = !tr.order.is_empty();
    ret.order_by = std::mem::take(&mut tr.order);
    ret.skip = tr.skip.take();
    ret.limit = tr.limit.take();
    tr.clauses.push(Clause::Return(ret));
    Ok(Translation {
        query: Query {
            parts: vec![SingleQuery { clauses: tr.clauses }],
            union_all: false,
            spelling: Default::default(),
        },
        ordered,
    })
}

fn node(v: &str) -> NodePattern {
    NodePattern { variable: Some(v.to_owned()), labels: Vec::new(), properties: Vec::new() }
}

fn rel(v: &str, types: &[String], direction: CyDir) -> RelPattern {
    RelPattern {
        variable: (!v.is_empty()).then(|| v.to_owned()),
        types: types.to_vec(),
        direction,
        length: None,
        properties: Vec::new(),
    }
}

fn matching(start: NodePattern, hops: Vec<(RelPattern, NodePattern)>) -> Clause {
    Clause::Match {
        optional: false,
        patterns: vec![PathPattern { name: None, start, hops }],
        guard: None,
        predicate: None,
    }
}

/// `x.gid IN [ids]`: the fragment's ids are the generated ones (generation
/// uses them only on engines whose dialect says so).
fn ids_test(x: &str, ids: &[i64]) -> Expr {
    let ids = Value::List(ids.iter().map(|i| Value::Int(*i)).collect());
    Expr::binary(BinOp::In, prop(x, graphlancer_model::ID_PROPERTY), Expr::lit(ids))
}

fn prop(var: &str, key: &str) -> Expr {
    Expr::Property(Box::new(Expr::var(var)), key.to_owned())
}

/// `e IS NOT NULL` (`present`) or `e IS NULL`.
fn null_test(e: Expr, present: bool) -> Expr {
    Expr::IsNull { expr: Box::new(e), negated: present }
}

/// `WITH v1, v2, ...`: the variables carried on unchanged.
fn carry(vars: &[String]) -> Projection {
    Projection::of(vars.iter().map(|v| (Expr::var(v), v.clone())).collect())
}

/// The pattern arrow of a direction (`Both` undirected).
fn arrow(dir: Direction) -> CyDir {
    match dir {
        Direction::Out => CyDir::Out,
        Direction::In => CyDir::In,
        Direction::Both => CyDir::Both,
    }
}

fn not(e: Expr) -> Expr {
    Expr::Not(Box::new(e))
}

/// `e` tested by `p`, for an `e` that is never null.
fn predicate(e: &Expr, p: &Predicate) -> Expr {
    let cmp = |op: BinOp, v: &Value| Expr::binary(op, e.clone(), Expr::lit(v.clone()));
    match p {
        Predicate::Eq(v) => cmp(BinOp::Eq, v),
        Predicate::Neq(v) => cmp(BinOp::Ne, v),
        Predicate::Lt(v) => cmp(BinOp::Lt, v),
        Predicate::Lte(v) => cmp(BinOp::Le, v),
        Predicate::Gt(v) => cmp(BinOp::Gt, v),
        Predicate::Gte(v) => cmp(BinOp::Ge, v),
        Predicate::Inside(a, b) => Expr::binary(BinOp::And, cmp(BinOp::Gt, a), cmp(BinOp::Lt, b)),
        Predicate::Outside(a, b) => Expr::binary(BinOp::Or, cmp(BinOp::Lt, a), cmp(BinOp::Gt, b)),
        Predicate::Between(a, b) => Expr::binary(BinOp::And, cmp(BinOp::Ge, a), cmp(BinOp::Lt, b)),
        Predicate::Within(vs) => cmp(BinOp::In, &Value::List(vs.clone())),
        Predicate::Without(vs) => not(cmp(BinOp::In, &Value::List(vs.clone()))),
        Predicate::And(a, b) => Expr::binary(BinOp::And, predicate(e, a), predicate(e, b)),
        Predicate::Or(a, b) => Expr::binary(BinOp::Or, predicate(e, a), predicate(e, b)),
    }
}

/// `has(key, P)` on `var` as a condition that is false, never null, where
/// the property is missing (so `not()` of it keeps the element, as in Gremlin).
fn has(var: &str, key: &str, p: &Predicate) -> Expr {
    let e = prop(var, key);
    Expr::binary(BinOp::And, null_test(e.clone(), true), predicate(&e, p))
}

impl Tr {
    /// The variables a projection carries: what the traversers hold, and
    /// the vertices `as()` named.
    fn scope(&self) -> Vec<String> {
        let mut out = self.holds.scope();
        for (_, v) in &self.names {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
        out
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh - 1)
    }

    /// Writes pending SKIP/LIMIT as a WITH (the order they need with them);
    /// with `keep`, the stream stays in that order for the steps after.
    fn flush_paging_if_set(&mut self, keep: bool) {
        if self.skip.is_none() && self.limit.is_none() {
            return;
        }
        let mut p = carry(&self.scope());
        p.order_by = self.order.clone();
        p.skip = self.skip.take();
        p.limit = self.limit.take();
        self.clauses.push(Clause::With(p));
        if !keep {
            self.order.clear();
        }
    }

    /// A step that changes what the traversers hold: paging is written
    /// first, and the order is lost.
    fn reshape(&mut self) {
        self.flush_paging_if_set(false);
        self.order.clear();
    }

    /// Keeps the rows where `cond` holds: on the last MATCH or plain WITH,
    /// else on a WITH of its own.
    fn filter(&mut self, cond: Expr) {
        self.flush_paging_if_set(true);
        let slot = match self.clauses.last_mut() {
            Some(Clause::Match { predicate, .. }) => Some(predicate),
            Some(Clause::With(p)) if p.order_by.is_empty() && p.skip.is_none() && p.limit.is_none() => {
                Some(&mut p.predicate)
            }
            _ => None,
        };
        match slot {
            Some(pred) => *pred = Expr::and_all(pred.take().into_iter().chain([cond])),
            None => {
                let mut p = carry(&self.scope());
                p.predicate = Some(cond);
                self.clauses.push(Clause::With(p));
            }
        }
    }

    /// `WITH e AS v` (and what `extra` adds, and the `as()` names unless it
    /// aggregates), after which the traversers hold `v`; a filter after it
    /// becomes its WHERE.
    fn project(&mut self, e: Expr, extra: Vec<(Expr, String)>) -> String {
        let v = self.name("v");
        let mut items = vec![(e, v.clone())];
        items.extend(extra);
        if !items.iter().any(|(e, _)| e.has_aggregate()) {
            items.extend(self.names.iter().map(|(_, n)| (Expr::var(n), n.clone())));
        }
        self.clauses.push(Clause::With(Projection::of(items)));
        self.holds = Holds::Value(v.clone());
        v
    }

    fn vertex(&self) -> Result<String, &'static str> {
        match &self.holds {
            Holds::Vertex(v) => Ok(v.clone()),
            _ => Err("a vertex step on something else"),
        }
    }

    fn element(&self) -> Result<(String, bool), &'static str> {
        match &self.holds {
            Holds::Vertex(v) => Ok((v.clone(), true)),
            Holds::Edge { var, .. } => Ok((var.clone(), false)),
            Holds::Value(_) => Err("an element step on values"),
        }
    }

    fn step(&mut self, s: &Step) -> Result<(), &'static str> {
        match s {
            Step::Move(dir, types) => {
                let a = self.vertex()?;
                self.reshape();
                let b = self.name("n");
                self.hop(&a, "", &b, *dir, types);
                self.holds = Holds::Vertex(b);
            }
            Step::MoveE(dir, types) => {
                let a = self.vertex()?;
                self.reshape();
                let (r, b) = (self.name("r"), self.name("n"));
                self.hop(&a, &r, &b, *dir, types);
                let (start, end) = match dir {
                    Direction::Out => (Some(a.clone()), Some(b.clone())),
                    Direction::In => (Some(b.clone()), Some(a.clone())),
                    Direction::Both => (None, None),
                };
                self.holds = Holds::Edge { var: r, near: Some(a), far: Some(b), start, end };
            }
            Step::EdgeV(Direction::Both) => return Err("bothV() gives two vertices per edge"),
            Step::EdgeV(_) | Step::OtherV => {
                let Holds::Edge { far, start, end, .. } = &self.holds else {
                    return Err("an edge step on something else");
                };
                let to = match s {
                    Step::EdgeV(Direction::Out) => start.clone().ok_or("outV() of an edge reached both ways")?,
                    Step::EdgeV(_) => end.clone().ok_or("inV() of an edge reached both ways")?,
                    _ => far.clone().ok_or("otherV() of an edge not reached from a vertex")?,
                };
                self.reshape();
                self.holds = Holds::Vertex(to);
            }
            Step::HasKey(k) | Step::HasNot(k) => {
                let (x, _) = self.element()?;
                self.filter(null_test(prop(&x, k), matches!(s, Step::HasKey(_))));
            }
            Step::Has(k, p) => {
                let (x, _) = self.element()?;
                self.filter(predicate(&prop(&x, k), p));
            }
            Step::HasLabelKey(l, k, p) => {
                let (x, vertex) = self.element()?;
                let label = label_test(&x, vertex, std::slice::from_ref(l));
                self.filter(Expr::binary(BinOp::And, label, predicate(&prop(&x, k), p)));
            }
            Step::HasLabel(ls) => {
                let (x, vertex) = self.element()?;
                self.filter(label_test(&x, vertex, ls));
            }
            Step::HasId(ids) => {
                let x = self.vertex()?;
                self.filter(ids_test(&x, ids));
            }
            Step::Is(p) => {
                let Holds::Value(v) = &self.holds else { return Err("is() on elements") };
                let e = Expr::var(v);
                self.filter(predicate(&e, p));
            }
            Step::Where(t) | Step::Filter(t) => {
                let c = self.condition(t)?;
                self.filter(c);
            }
            Step::Not(t) => {
                let c = self.condition(t)?;
                self.filter(not(c));
            }
            Step::And(ts) | Step::Or(ts) => {
                let op = if matches!(s, Step::And(_)) { BinOp::And } else { BinOp::Or };
                let parts = ts.iter().map(|t| self.condition(t)).collect::<Result<Vec<_>, _>>()?;
                let c = parts.into_iter().reduce(|a, b| Expr::binary(op, a, b)).ok_or("and()/or() of nothing")?;
                self.filter(c);
            }
            Step::Dedup => {
                if !self.names.is_empty() {
                    // Which copy's path dedup() keeps is open.
                    return Err("dedup() with as() names in the path");
                }
                self.flush_paging_if_set(true);
                // An edge's own ends are the same for every copy of it; the
                // vertex it was reached from is not, and is forgotten.
                if let Holds::Edge { near, far, .. } = &mut self.holds {
                    *near = None;
                    *far = None;
                }
                let mut p = carry(&self.holds.scope());
                p.distinct = true;
                self.clauses.push(Clause::With(p));
            }
            Step::Order(bys) => {
                self.flush_paging_if_set(false);
                let mut keys = Vec::new();
                for (by, o) in bys {
                    let e = match (by, &self.holds) {
                        (By::Identity, Holds::Value(v)) => Expr::var(v),
                        (By::Key(k), Holds::Vertex(x) | Holds::Edge { var: x, .. }) => prop(x, k),
                        _ => return Err("order() by something other than a value or a property"),
                    };
                    keys.push((e, *o == Order::Desc));
                }
                if keys.is_empty() {
                    let Holds::Value(v) = &self.holds else { return Err("order() of elements without by()") };
                    keys.push((Expr::var(v), false));
                }
                self.order = keys;
            }
            Step::Range(..) | Step::Limit(_) | Step::Skip(_) => {
                if self.order.is_empty() {
                    return Err("paging without an order");
                }
                if self.skip.is_some() || self.limit.is_some() {
                    self.flush_paging_if_set(true);
                }
                match s {
                    Step::Range(lo, hi) => {
                        self.skip = Some(*lo);
                        self.limit = Some(hi.saturating_sub(*lo));
                    }
                    Step::Limit(n) => self.limit = Some(*n),
                    Step::Skip(n) => self.skip = Some(*n),
                    _ => {}
                }
            }
            Step::Count => {
                self.reshape();
                self.names.clear();
                self.project(Expr::count_star(), Vec::new());
            }
            Step::Sum | Step::Min | Step::Max | Step::Mean => {
                let Holds::Value(v) = self.holds.clone() else { return Err("an aggregate of elements") };
                self.reshape();
                self.names.clear();
                let of = |name: &str| Expr::aggregate(name, false, Expr::var(&v));
                let agg = match s {
                    Step::Sum => of("sum"),
                    Step::Min => of("min"),
                    Step::Max => of("max"),
                    // TinkerPop sums integers exactly and then divides; avg()
                    // may sum them as floats, which near 2^53 is another
                    // number (97, -2^53, 2^53: 32.33 against 32.0, first
                    // campaign). The sum, then the division, is the same
                    // arithmetic in both languages.
                    _ => {
                        Expr::binary(BinOp::Div, of("sum"), Expr::Function("toFloat".into(), vec![Expr::count_star()]))
                    }
                };
                // Of nothing, Gremlin gives no traverser and Cypher one row.
                let c = self.name("c");
                self.project(agg, vec![(Expr::count_star(), c.clone())]);
                self.filter(Expr::binary(BinOp::Gt, Expr::var(&c), Expr::lit(Value::Int(0))));
            }
            Step::Values(keys) => {
                let [k] = keys.as_slice() else { return Err("values() of several keys") };
                let (x, _) = self.element()?;
                self.reshape();
                let v = self.project(prop(&x, k), Vec::new());
                self.filter(null_test(Expr::var(&v), true));
            }
            Step::Label => {
                let (x, vertex) = self.element()?;
                self.reshape();
                // Nodes here carry one label, Gremlin's vertex label.
                let e = if vertex {
                    Expr::Index(
                        Box::new(Expr::Function("labels".into(), vec![Expr::var(&x)])),
                        Box::new(Expr::lit(Value::Int(0))),
                    )
                } else {
                    Expr::Function("type".into(), vec![Expr::var(&x)])
                };
                self.project(e, Vec::new());
            }
            Step::Constant(v) => {
                self.reshape();
                self.project(Expr::lit(v.clone()), Vec::new());
            }
            Step::As(name) => {
                let x = self.vertex()?;
                self.names.retain(|(n, _)| n != name);
                self.names.push((name.clone(), x));
            }
            Step::Select(names) => {
                let [name] = names.as_slice() else { return Err("select() of several names gives a map") };
                let x = self
                    .names
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
                    .ok_or("select() of a name not in scope")?;
                self.reshape();
                self.holds = Holds::Vertex(x);
            }
            Step::Repeat { until: Some(_), .. } => return Err("repeat().until() stops each traverser on its own"),
            Step::Repeat { body, times, emit, until: None } => {
                let [Step::Move(dir, types)] = body.as_slice() else { return Err("repeat() of more than one move") };
                let a = self.vertex()?;
                self.reshape();
                if !emit {
                    let mut at = a;
                    for _ in 0..*times {
                        let b = self.name("n");
                        self.hop(&at, "", &b, *dir, types);
                        at = b;
                    }
                    self.holds = Holds::Vertex(at);
                } else {
                    // Every depth from 1 to `times`, once each.
                    let d = one_way(*dir).ok_or("repeat(both()).emit(): each hop would need both ways")?;
                    let b = self.name("n");
                    let parts = (1..=*times)
                        .map(|depth| {
                            let mut at = a.clone();
                            (0..depth)
                                .map(|i| {
                                    let next = if i + 1 == depth { b.clone() } else { format!("{b}_{i}") };
                                    let hop = matching(node(&at), vec![(rel("", types, d), node(&next))]);
                                    at = next;
                                    hop
                                })
                                .collect()
                        })
                        .collect();
                    self.union_call(&a, std::slice::from_ref(&b), parts).ok_or("repeat().times(0)")?;
                    self.holds = Holds::Vertex(b);
                }
            }
            Step::Union(branches) => {
                let a = self.vertex()?;
                let mut parts = Vec::new();
                for br in branches {
                    let [Step::Move(dir, types)] = br.as_slice() else { return Err("union() of more than moves") };
                    let d = one_way(*dir).ok_or("union() with both(): each branch would need both ways")?;
                    parts.push((d, types.clone()));
                }
                self.reshape();
                let b = self.name("n");
                let parts = parts
                    .into_iter()
                    .map(|(d, types)| vec![matching(node(&a), vec![(rel("", &types, d), node(&b))])])
                    .collect();
                self.union_call(&a, std::slice::from_ref(&b), parts).ok_or("union() of nothing")?;
                self.holds = Holds::Vertex(b);
            }
            _ => return Err("a step outside the fragment Cypher shares"),
        }
        Ok(())
    }

    /// One hop from `a` to `b` (through `r` when named), each way for `Both`.
    fn hop(&mut self, a: &str, r: &str, b: &str, dir: Direction, types: &[String]) {
        let one = |d: CyDir| matching(node(a), vec![(rel(r, types, d), node(b))]);
        match one_way(dir) {
            Some(d) => self.clauses.push(one(d)),
            None => {
                let returned: Vec<String> = [r, b].iter().filter(|v| !v.is_empty()).map(|v| (*v).to_owned()).collect();
                self.union_call(a, &returned, vec![vec![one(CyDir::Out)], vec![one(CyDir::In)]]);
            }
        }
    }

    /// `CALL { WITH a <part> RETURN returned UNION ALL ... }`; `None` (and
    /// nothing written) for no parts.
    fn union_call(&mut self, a: &str, returned: &[String], parts: Vec<Vec<Clause>>) -> Option<()> {
        let mut parts = parts.into_iter().map(|mut clauses| {
            clauses.push(Clause::Return(carry(returned)));
            SingleQuery { clauses }
        });
        let body = parts.next()?;
        self.clauses.push(Clause::Call { imports: vec![a.to_owned()], body, union_all: parts.collect() });
        Some(())
    }

    /// A filter traversal on the current vertex as a condition that is never
    /// null: an existence test for moves, the property tests otherwise.
    fn condition(&mut self, t: &[Step]) -> Result<Expr, &'static str> {
        let x = self.vertex()?;
        match t {
            [Step::Move(dir, types) | Step::MoveE(dir, types)] => Ok(exists(&x, "", *dir, types, None)),
            [Step::MoveE(dir, types), h] => {
                let r = self.name("r");
                let cond = match h {
                    Step::Has(k, p) => has(&r, k, p),
                    Step::HasKey(k) => null_test(prop(&r, k), true),
                    Step::HasNot(k) => null_test(prop(&r, k), false),
                    Step::HasLabel(ls) => label_test(&r, false, ls),
                    _ => return Err("a filter traversal outside the fragment"),
                };
                Ok(exists(&x, &r, *dir, types, Some(cond)))
            }
            [Step::Values(keys), Step::Is(p)] => {
                let [k] = keys.as_slice() else { return Err("values() of several keys") };
                Ok(has(&x, k, p))
            }
            [Step::Has(k, p)] => Ok(has(&x, k, p)),
            [Step::HasLabelKey(l, k, p)] => {
                Ok(Expr::binary(BinOp::And, label_test(&x, true, std::slice::from_ref(l)), has(&x, k, p)))
            }
            [Step::HasKey(k)] => Ok(null_test(prop(&x, k), true)),
            [Step::HasNot(k)] => Ok(null_test(prop(&x, k), false)),
            [Step::HasLabel(ls)] => Ok(label_test(&x, true, ls)),
            _ => Err("a filter traversal outside the fragment"),
        }
    }
}

/// `EXISTS { MATCH (x)-[r:T]->() WHERE cond }`; an undirected pattern is
/// right here: existence does not count a self-loop's ways.
fn exists(x: &str, r: &str, dir: Direction, types: &[String], cond: Option<Expr>) -> Expr {
    let d = arrow(dir);
    let anon = NodePattern { variable: None, labels: Vec::new(), properties: Vec::new() };
    let pattern = PathPattern { name: None, start: node(x), hops: vec![(rel(r, types, d), anon)] };
    Expr::ExistsSubquery(Box::new(pattern), cond.map(Box::new))
}

/// A one-way direction's pattern arrow; `None` for both ways.
fn one_way(dir: Direction) -> Option<CyDir> {
    (dir != Direction::Both).then(|| arrow(dir))
}

/// Whether `x` has one of `labels` (a relationship: is of one of the types).
fn label_test(x: &str, vertex: bool, labels: &[String]) -> Expr {
    if vertex {
        labels
            .iter()
            .map(|l| Expr::HasLabels(x.to_owned(), vec![l.clone()]))
            .reduce(|a, b| Expr::binary(BinOp::Or, a, b))
            .unwrap_or(Expr::lit(Value::Bool(false)))
    } else {
        let types = Value::List(labels.iter().map(|l| Value::String(l.clone())).collect());
        Expr::binary(BinOp::In, Expr::Function("type".into(), vec![Expr::var(x)]), Expr::lit(types))
    }
}

#[cfg(test)]
mod tests {
    use graphlancer_gremlin::ast::{By, Direction, Order, Predicate, Source, Step, Traversal};
    use graphlancer_model::Value;

    use super::to_cypher;

    fn cypher(source: Source, steps: Vec<Step>) -> String {
        let t = Traversal { source, steps };
        graphlancer_cypher::render(&to_cypher(&t).expect("translates").query)
    }

    #[test]
    fn moves_filters_and_projections() {
        let q = cypher(
            Source::V,
            vec![
                Step::HasLabel(vec!["L0".into()]),
                Step::Move(Direction::Out, vec!["T0".into()]),
                Step::Has("k".into(), Predicate::Inside(Value::Int(1), Value::Int(5))),
                Step::Values(vec!["k2".into()]),
                Step::Dedup,
            ],
        );
        assert_eq!(
            q,
            "MATCH (n0) WHERE (n0:L0) MATCH (n0)-[:T0]->(n1) WHERE (n1.k > 1) AND (n1.k < 5) \
             WITH n1.k2 AS v2 WHERE v2 IS NOT NULL WITH DISTINCT v2 RETURN v2"
        );
    }

    #[test]
    fn ids_are_the_generated_ids_and_until_is_refused() {
        let q = cypher(Source::VIds(vec![3, 5]), vec![Step::Move(Direction::In, vec![]), Step::HasId(vec![1])]);
        assert_eq!(q, "MATCH (n0) WHERE n0.gid IN [3, 5] MATCH (n0)<-[]-(n1) WHERE n1.gid IN [1] RETURN n1");
        let until = Step::Repeat {
            body: vec![Step::Move(Direction::Out, vec![])],
            times: 2,
            emit: false,
            until: Some(vec![Step::HasKey("k".into())]),
        };
        assert!(to_cypher(&Traversal { source: Source::V, steps: vec![until] }).is_err());
    }

    #[test]
    fn both_walks_a_self_loop_twice_and_aggregates_of_nothing_give_no_row() {
        let q = cypher(Source::V, vec![Step::Move(Direction::Both, vec![]), Step::Values(vec!["k".into()]), Step::Sum]);
        assert_eq!(
            q,
            "MATCH (n0) CALL { WITH n0 MATCH (n0)-[]->(n1) RETURN n1 UNION ALL WITH n0 MATCH (n0)<-[]-(n1) \
             RETURN n1 } WITH n1.k AS v2 WHERE v2 IS NOT NULL WITH sum(v2) AS v4, count(*) AS c3 \
             WHERE c3 > 0 RETURN v4"
        );
    }

    #[test]
    fn order_survives_filters_and_paging_is_written_where_it_happens() {
        let t = Traversal {
            source: Source::V,
            steps: vec![
                Step::Order(vec![(By::Key("gid".into()), Order::Desc)]),
                Step::Limit(3),
                Step::HasKey("k".into()),
                Step::Dedup,
            ],
        };
        let tr = to_cypher(&t).expect("translates");
        assert!(tr.ordered);
        assert_eq!(
            graphlancer_cypher::render(&tr.query),
            "MATCH (n0) WITH n0 ORDER BY n0.gid DESC LIMIT 3 WITH n0 WHERE n0.k IS NOT NULL \
             WITH DISTINCT n0 RETURN n0 ORDER BY n0.gid DESC"
        );
    }

    #[test]
    fn repeat_with_emit_is_every_depth_once_and_select_finds_the_named_vertex() {
        let q = cypher(
            Source::V,
            vec![
                Step::As("a".into()),
                Step::Repeat { body: vec![Step::Move(Direction::Out, vec![])], times: 2, emit: true, until: None },
                Step::Select(vec!["a".into()]),
            ],
        );
        assert_eq!(
            q,
            "MATCH (n0) CALL { WITH n0 MATCH (n0)-[]->(n1) RETURN n1 UNION ALL \
             WITH n0 MATCH (n0)-[]->(n1_0) MATCH (n1_0)-[]->(n1) RETURN n1 } RETURN n0"
        );
    }

    #[test]
    fn what_cypher_cannot_say_alike_is_refused() {
        let refused = |source: Source, steps: Vec<Step>| to_cypher(&Traversal { source, steps }).is_err();
        assert!(refused(Source::V, vec![Step::Path]));
        assert!(refused(Source::V, vec![Step::MoveE(Direction::Both, vec![]), Step::EdgeV(Direction::In)]));
        assert!(refused(Source::V, vec![Step::Limit(2)]), "paging without an order");
        assert!(refused(Source::Inject(vec![Value::Int(1)]), vec![]));
        assert!(!refused(Source::V, vec![Step::MoveE(Direction::Both, vec![]), Step::OtherV]));
    }
}
