//! Typed traversal generation: a walk over steps in which every step is
//! drawn from those that accept what the traversers hold at that point, with
//! labels, keys and values taken from the generated graph, so every
//! traversal is valid and most of them find something.

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_model::{CaseRng, Graph, ID_PROPERTY, PropertyType, Value};
use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};

use crate::ast::{By, Direction, Order, Predicate, Source, Step, Traversal};
use crate::dialect::GremlinDialect;

/// What the traversers hold after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ty {
    /// Vertices.
    Vertex,
    /// Edges.
    Edge,
    /// Property values of one type.
    Value(PropertyType),
    /// A number a reducing step made (`count`, `sum`, `mean`).
    Number,
    /// Label strings, or ids (opaque scalars).
    Label,
    /// Property objects (`properties`).
    Property,
    /// Paths.
    Path,
    /// Maps (`valueMap`, `group`, `project`, `select`).
    Map,
    /// Lists (`fold`).
    List,
}

/// How traversals are generated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GremlinConfig {
    /// Most top-level steps in a traversal.
    pub max_steps: usize,
    /// Leave out what makes answers differ between correct engines: `id()`,
    /// `limit`/`range`/`skip`/`tail` without a total order before them, a
    /// `fold()` of an unordered stream.
    pub deterministic: bool,
}

impl Default for GremlinConfig {
    fn default() -> Self {
        Self { max_steps: 6, deterministic: true }
    }
}

impl GremlinConfig {
    /// Whether step `name` may be generated for `dialect`: for comparison,
    /// what it answers as TinkerPop does; for crashes, all it accepts.
    pub fn allows(&self, dialect: &GremlinDialect, name: &str) -> bool {
        if self.deterministic { dialect.allows(name) && name != "id" } else { dialect.accepts(name) }
    }

    /// The steps (and sources) that may be generated for `dialect`, for coverage.
    pub fn enabled(&self, dialect: &GremlinDialect) -> Vec<&'static str> {
        crate::dialect::ALL_STEPS.iter().copied().filter(|s| self.allows(dialect, s)).collect()
    }
}

/// A generated traversal with what the oracles need to know of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedTraversal {
    /// The traversal.
    pub traversal: Traversal,
    /// What its traversers hold at the end.
    pub ty: Ty,
    /// Whether the answer's order is fixed (a total `order()` at the end),
    /// so answers compare as lists rather than bags.
    pub ordered: bool,
}

/// Generates traversals over one graph for one dialect.
pub struct TraversalGenerator<'a> {
    dialect: &'a GremlinDialect,
    config: &'a GremlinConfig,
    labels: Vec<String>,
    /// Relationship types leaving (out) and entering (in) each label.
    out_types: BTreeMap<String, BTreeSet<String>>,
    in_types: BTreeMap<String, BTreeSet<String>>,
    rel_types: Vec<String>,
    key_types: BTreeMap<String, PropertyType>,
    /// Keys per label and per relationship type.
    keys_of: BTreeMap<String, Vec<String>>,
    node_keys: Vec<String>,
    rel_keys: Vec<String>,
    /// Values per key and per (owner, key).
    values: BTreeMap<String, Vec<Value>>,
    owner_values: BTreeMap<(String, String), Vec<Value>>,
    /// The generated vertex ids, for `V(id)` and `hasId`.
    ids: Vec<i64>,
}

/// Where a walk is: the traversers' type and what is known about them.
#[derive(Debug, Clone)]
struct At {
    ty: Ty,
    /// The label (vertices) or type (edges) when one is known.
    owner: Option<String>,
    /// Whether the last step is a total `order()`.
    ordered: bool,
    /// Whether an edge was reached from a vertex, so `otherV` knows its side.
    from_vertex: bool,
    /// Whether only filters ran since the edges were reached.
    edge_fresh: bool,
    /// Whether the edges were reached both ways (`bothE`).
    both_edges: bool,
    /// Whether an `inV()`/`outV()` ran in this walk.
    after_edge_end: bool,
    /// Names bound with `as`, and whether a move followed the last one.
    names: Vec<String>,
    moved_since_as: bool,
    /// What a `fold()` folded, so `unfold()` gives it back.
    folded: Option<Ty>,
}

impl<'a> TraversalGenerator<'a> {
    /// A generator of traversals over `graph` for `dialect`.
    pub fn new(graph: &Graph, dialect: &'a GremlinDialect, config: &'a GremlinConfig) -> Self {
        let schema = &graph.schema;
        let mut out_types: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut in_types: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let label_of: BTreeMap<i64, &str> =
            graph.nodes.iter().filter_map(|n| n.labels.first().map(|l| (n.id, l.as_str()))).collect();
        for r in &graph.relationships {
            if let (Some(s), Some(e)) = (label_of.get(&r.start), label_of.get(&r.end)) {
                out_types.entry((*s).to_owned()).or_default().insert(r.rel_type.clone());
                in_types.entry((*e).to_owned()).or_default().insert(r.rel_type.clone());
            }
        }
        let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut owner_values: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
        let mut add = |owner: &str, props: &BTreeMap<String, Value>| {
            for (k, v) in props {
                if matches!(v, Value::String(s) if s.chars().any(char::is_control)) {
                    continue;
                }
                values.entry(k.clone()).or_default().push(v.clone());
                owner_values.entry((owner.to_owned(), k.clone())).or_default().push(v.clone());
            }
        };
        for n in &graph.nodes {
            for l in n.labels.iter().take(1) {
                add(l, &n.properties);
            }
        }
        for r in &graph.relationships {
            add(&r.rel_type, &r.properties);
        }
        let sorted = |it: &mut dyn Iterator<Item = String>| {
            let mut v: Vec<String> = it.collect();
            v.sort();
            v.dedup();
            v
        };
        let mut keys_of = BTreeMap::new();
        for l in &schema.labels {
            keys_of.insert(l.name.clone(), sorted(&mut l.keys.iter().cloned()));
        }
        for t in &schema.rel_types {
            keys_of.insert(t.name.clone(), sorted(&mut t.keys.iter().cloned()));
        }
        Self {
            dialect,
            config,
            labels: schema.labels.iter().map(|l| l.name.clone()).collect(),
            out_types,
            in_types,
            rel_types: schema.rel_types.iter().map(|t| t.name.clone()).collect(),
            key_types: schema.keys.iter().map(|k| (k.name.clone(), k.ty)).collect(),
            node_keys: sorted(&mut schema.labels.iter().flat_map(|l| l.keys.clone())),
            rel_keys: sorted(&mut schema.rel_types.iter().flat_map(|t| t.keys.clone())),
            keys_of,
            values,
            owner_values,
            ids: graph.nodes.iter().map(|n| n.id).collect(),
        }
    }

    /// One to three distinct vertex ids, one of them now and then absent from
    /// the graph; `None` where ids are the engine's own and answers compared.
    fn vertex_ids(&self, rng: &mut CaseRng) -> Option<Vec<i64>> {
        if self.ids.is_empty() || !self.sound(self.dialect.quirks.generated_ids) {
            return None;
        }
        let n = rng.random_range(1..=3);
        let mut ids: Vec<i64> = self.ids.choose_multiple(rng, n).copied().collect();
        if rng.random_bool(0.1) {
            ids.push(self.ids.iter().max().copied().unwrap_or(0) + 1);
        }
        Some(ids)
    }

    fn allows(&self, step: &str) -> bool {
        self.config.allows(self.dialect, step)
    }

    /// Whether a form the dialect answers wrongly (`right` false) may be
    /// generated: only where answers are not compared.
    fn sound(&self, right: bool) -> bool {
        right || !self.config.deterministic
    }

    /// One traversal.
    pub fn generate(&self, rng: &mut CaseRng) -> GeneratedTraversal {
        let roll = rng.random_range(0..100);
        let (source, ty) = if roll < 8 && self.allows("E") {
            (Source::E, Ty::Edge)
        } else if roll < 12 && self.allows("inject") {
            let ty = *[PropertyType::Int, PropertyType::String].choose(rng).unwrap_or(&PropertyType::Int);
            let n = rng.random_range(1..=4);
            let vals = (0..n).map(|_| self.any_value(ty, rng)).collect();
            (Source::Inject(vals), Ty::Value(ty))
        } else if let Some(ids) = (roll < 17 && self.allows("V(id)")).then(|| self.vertex_ids(rng)).flatten() {
            (Source::VIds(ids), Ty::Vertex)
        } else {
            (Source::V, Ty::Vertex)
        };
        let mut at = At {
            ty,
            owner: None,
            ordered: false,
            from_vertex: false,
            edge_fresh: true,
            both_edges: false,
            after_edge_end: false,
            names: Vec::new(),
            moved_since_as: false,
            folded: None,
        };
        let mut steps = Vec::new();
        // Most traversals start by narrowing to a label, as users write them.
        if ty == Ty::Vertex && rng.random_bool(0.6) && self.allows("hasLabel") && !self.labels.is_empty() {
            let l = self.labels.choose(rng).cloned().unwrap_or_default();
            at.owner = Some(l.clone());
            steps.push(Step::HasLabel(vec![l]));
        }
        let n = rng.random_range(1..=self.config.max_steps.max(1));
        for _ in 0..n {
            match self.step(&mut at, rng, 0) {
                Some(s) => steps.push(s),
                None => break,
            }
            let reduced = matches!(steps.last(), Some(Step::Sum | Step::Min | Step::Max | Step::Mean));
            if reduced && !self.sound(self.dialect.quirks.aggregate_of_nothing) {
                break;
            }
            if matches!(at.ty, Ty::Map | Ty::Path | Ty::List | Ty::Number) && rng.random_bool(0.7) {
                break;
            }
        }
        GeneratedTraversal { ordered: at.ordered, ty: at.ty, traversal: Traversal { source, steps } }
    }

    /// A step for traversers at `at`, updating it; `None` when nothing fits.
    fn step(&self, at: &mut At, rng: &mut CaseRng, depth: usize) -> Option<Step> {
        for _ in 0..8 {
            // A step the dialect refuses leaves `at` as it was.
            let mut next = at.clone();
            let s = match next.ty {
                Ty::Vertex => self.vertex_step(&mut next, rng, depth),
                Ty::Edge => self.edge_step(&mut next, rng, depth),
                Ty::Value(t) => self.value_step(&mut next, t, rng),
                Ty::Number | Ty::Label => self.scalar_step(&mut next, rng),
                Ty::List => self.list_step(&mut next, rng),
                Ty::Map | Ty::Path | Ty::Property => self.count_or_dedup(&mut next, rng),
            };
            if let Some(s) = s
                && self.allows(s.name())
                && s.children().iter().all(|c| c.iter().all(|n| self.allows(n.name())))
            {
                *at = next;
                return Some(s);
            }
        }
        None
    }

    fn owner_keys(&self, owner: Option<&String>, vertex: bool) -> &[String] {
        match owner.and_then(|o| self.keys_of.get(o)) {
            Some(k) if !k.is_empty() => k,
            _ if vertex => &self.node_keys,
            _ => &self.rel_keys,
        }
    }

    fn vertex_step(&self, at: &mut At, rng: &mut CaseRng, depth: usize) -> Option<Step> {
        let nested = depth > 0;
        let may_move = !at.after_edge_end || self.sound(self.dialect.quirks.move_after_edge_end);
        Some(match rng.random_range(0..100) {
            0..=31 | 80..=87 if !may_move => return None,
            0..=24 => {
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                let types = self.types_from(at.owner.as_ref(), dir, rng);
                at.owner = None;
                at.ordered = false;
                at.moved_since_as = true;
                Step::Move(dir, types)
            }
            25..=31 => {
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                let types = self.types_from(at.owner.as_ref(), dir, rng);
                at.owner = types.first().filter(|_| types.len() == 1).cloned();
                at.ty = Ty::Edge;
                at.from_vertex = true;
                at.edge_fresh = true;
                at.both_edges = dir == Direction::Both;
                at.ordered = false;
                at.moved_since_as = true;
                Step::MoveE(dir, types)
            }
            32..=33 if self.allows("hasId") => Step::HasId(self.vertex_ids(rng)?),
            32..=43 => self.has(at, true, rng)?,
            44..=46 if !self.labels.is_empty() => {
                let l = self.labels.choose(rng)?.clone();
                at.owner.get_or_insert(l.clone());
                Step::HasLabel(vec![l])
            }
            47..=48 => Step::HasNot(self.owner_keys(at.owner.as_ref(), true).choose(rng)?.clone()),
            49..=55 if depth < 2 => {
                let kind = rng.random_range(0..5);
                if kind == 1 && !self.sound(self.dialect.quirks.not_of_missing_property) {
                    // Negated: only the forms that cannot meet a missing property.
                    let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                    let inner = if rng.random_bool(0.5) {
                        Step::Move(dir, self.types_from(at.owner.as_ref(), dir, rng))
                    } else {
                        Step::HasKey(self.owner_keys(at.owner.as_ref(), true).choose(rng)?.clone())
                    };
                    return Some(Step::Not(vec![inner]));
                }
                let mut branch = || self.filter_traversal(at, rng, depth + 1);
                match kind {
                    0 => Step::Where(branch()?),
                    1 => Step::Not(branch()?),
                    2 => Step::And(vec![branch()?, branch()?]),
                    3 => Step::Or(vec![branch()?, branch()?]),
                    _ => Step::Filter(branch()?),
                }
            }
            56..=58 => Step::Dedup,
            59..=60 if at.moved_since_as || !nested => {
                if rng.random_bool(0.7) {
                    Step::SimplePath
                } else {
                    Step::CyclicPath
                }
            }
            61..=64 if !nested => {
                at.ordered = true;
                let o = if rng.random_bool(0.5) { Order::Asc } else { Order::Desc };
                Step::Order(vec![(By::Key(ID_PROPERTY.into()), o)])
            }
            65 if self.allows("properties") => {
                at.ty = Ty::Property;
                at.ordered = false;
                let keys = self.owner_keys(at.owner.as_ref(), true);
                Step::Properties(keys.iter().filter(|_| rng.random_bool(0.4)).cloned().collect())
            }
            65..=71 => {
                let key = self.owner_keys(at.owner.as_ref(), true).choose(rng)?.clone();
                at.ty = Ty::Value(*self.key_types.get(&key)?);
                at.ordered = false;
                Step::Values(vec![key])
            }
            72..=73 if !nested => {
                at.ty = Ty::Map;
                at.ordered = false;
                let keys = self.owner_keys(at.owner.as_ref(), true);
                let pick: Vec<String> = if self.dialect.quirks.keyed_maps {
                    keys.iter().filter(|_| rng.random_bool(0.5)).cloned().collect()
                } else {
                    Vec::new()
                };
                if rng.random_bool(0.5) { Step::ElementMap(pick) } else { Step::ValueMap(pick) }
            }
            // An id is opaque: engines give it as an integer or a string.
            74 if self.allows("id") => becomes(at, Ty::Label, Step::Id),
            74..=75 => becomes(at, Ty::Label, Step::Label),
            76..=79 => becomes(at, Ty::Number, Step::Count),
            80..=84 if depth < 2 => self.branching(at, rng, depth)?,
            85..=87 if depth < 2 => {
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                let types = self.types_from(None, dir, rng);
                at.owner = None;
                at.ordered = false;
                at.moved_since_as = true;
                let until = if self.allows("until") && rng.random_bool(0.4) {
                    let inner = At { owner: None, ..at.clone() };
                    Some(self.filter_traversal(&inner, rng, depth + 1)?)
                } else {
                    None
                };
                Step::Repeat {
                    body: vec![Step::Move(dir, types)],
                    times: rng.random_range(1..=3),
                    emit: rng.random_bool(0.3),
                    until,
                }
            }
            88..=89 if !nested && at.moved_since_as => {
                at.ty = Ty::Path;
                at.ordered = false;
                Step::Path
            }
            90..=92 if !nested => {
                at.ty = Ty::Map;
                at.ordered = false;
                if rng.random_bool(0.5) {
                    Step::GroupCount(By::Label)
                } else {
                    Step::Group(By::Label, vec![Step::Count])
                }
            }
            93..=95 if !nested && at.names.len() < 2 => {
                let name = format!("a{}", at.names.len());
                at.names.push(name.clone());
                at.moved_since_as = false;
                Step::As(name)
            }
            96..=97 if !nested && !at.names.is_empty() && at.moved_since_as => {
                at.ty = Ty::Map;
                at.ordered = false;
                let names = at.names.clone();
                if names.len() == 1 {
                    // `select` of one name yields the element, not a map.
                    at.ty = Ty::Vertex;
                    at.owner = None;
                    at.names.clear();
                }
                Step::Select(names)
            }
            98..=99 if !nested => {
                at.ty = Ty::Map;
                at.ordered = false;
                let key = self.owner_keys(at.owner.as_ref(), true).choose(rng)?.clone();
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                let mut items = vec![("p0".into(), By::Label)];
                if self.dialect.quirks.chains_in_by {
                    items.push(("p1".into(), By::Traversal(vec![Step::MoveE(dir, Vec::new()), Step::Count])));
                }
                let mut values = vec![Step::Values(vec![key])];
                if self.dialect.quirks.chains_in_by {
                    values.push(Step::Fold);
                }
                items.push(("p2".into(), By::Traversal(values)));
                Step::Project(items)
            }
            _ => return None,
        })
    }

    /// `union`, `coalesce`, `optional` or `choose` over vertex-to-vertex branches.
    fn branching(&self, at: &mut At, rng: &mut CaseRng, depth: usize) -> Option<Step> {
        let hop = |rng: &mut CaseRng| -> Vec<Step> {
            let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng).unwrap_or(&Direction::Out);
            vec![Step::Move(dir, self.types_from(at.owner.as_ref(), dir, rng))]
        };
        let s = match rng.random_range(0..4) {
            0 => Step::Union(vec![hop(rng), hop(rng)]),
            1 => Step::Coalesce(vec![hop(rng), hop(rng)]),
            2 => Step::Optional(hop(rng)),
            _ => {
                let cond = self.filter_traversal(at, rng, depth + 1)?;
                Step::Choose(cond, hop(rng), hop(rng))
            }
        };
        at.owner = None;
        at.ordered = false;
        at.moved_since_as = true;
        Some(s)
    }

    /// An anonymous traversal used as a condition on vertices.
    fn filter_traversal(&self, at: &At, rng: &mut CaseRng, depth: usize) -> Option<Vec<Step>> {
        let mut inner = At { ordered: false, names: Vec::new(), ..at.clone() };
        Some(match rng.random_range(0..4) {
            0 => {
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                vec![Step::Move(dir, self.types_from(at.owner.as_ref(), dir, rng))]
            }
            1 if self.sound(self.dialect.quirks.edge_steps_in_filters) => {
                let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                let types = self.types_from(at.owner.as_ref(), dir, rng);
                inner.owner = types.first().filter(|_| types.len() == 1).cloned();
                inner.ty = Ty::Edge;
                let mut steps = vec![Step::MoveE(dir, types)];
                if let Some(h) = self.has(&mut inner, false, rng) {
                    steps.push(h);
                }
                steps
            }
            2 => {
                let key = self.owner_keys(at.owner.as_ref(), true).choose(rng)?.clone();
                let ty = *self.key_types.get(&key)?;
                let p = self.predicate(at.owner.as_ref(), &key, ty, rng);
                vec![Step::Values(vec![key]), Step::Is(p)]
            }
            _ => vec![self.has(&mut inner, true, rng)?],
        })
        .filter(|steps: &Vec<Step>| depth <= 2 && steps.iter().all(|s| self.allows(s.name())))
    }

    fn edge_step(&self, at: &mut At, rng: &mut CaseRng, depth: usize) -> Option<Step> {
        let nested = depth > 0;
        let ends = at.edge_fresh || self.dialect.quirks.edge_ends_anywhere;
        Some(match rng.random_range(0..100) {
            0..=34 if ends => {
                at.ty = Ty::Vertex;
                at.owner = None;
                at.ordered = false;
                let own_ends = !at.both_edges || self.sound(self.dialect.quirks.both_edge_ends);
                if at.from_vertex && (rng.random_bool(0.4) || !own_ends) {
                    Step::OtherV
                } else {
                    let dir = *[Direction::Out, Direction::In, Direction::Both].choose(rng)?;
                    at.after_edge_end |= dir != Direction::Both;
                    Step::EdgeV(dir)
                }
            }
            35..=54 => self.has(at, false, rng)?,
            55..=59
                if !self.rel_types.is_empty()
                    && (at.edge_fresh || self.sound(self.dialect.quirks.edge_label_after_barrier)) =>
            {
                let t = self.rel_types.choose(rng)?.clone();
                at.owner.get_or_insert(t.clone());
                Step::HasLabel(vec![t])
            }
            60..=67 => {
                let key = self.owner_keys(at.owner.as_ref(), false).choose(rng)?.clone();
                at.ty = Ty::Value(*self.key_types.get(&key)?);
                at.ordered = false;
                Step::Values(vec![key])
            }
            68..=71 if ends => {
                at.ty = Ty::Label;
                at.ordered = false;
                Step::Label
            }
            72..=75 if ends => becomes(at, Ty::Label, Step::Label),
            76..=81 => becomes(at, Ty::Number, Step::Count),
            82..=85 => {
                at.edge_fresh = false;
                Step::Dedup
            }
            86..=90 if !nested => {
                at.ordered = true;
                at.edge_fresh = false;
                Step::Order(vec![(By::Key(ID_PROPERTY.into()), Order::Asc)])
            }
            91..=95 if !nested && self.sound(self.dialect.quirks.edge_group_by_label) => {
                at.ty = Ty::Map;
                at.ordered = false;
                Step::GroupCount(By::Label)
            }
            _ => return None,
        })
    }

    fn value_step(&self, at: &mut At, ty: PropertyType, rng: &mut CaseRng) -> Option<Step> {
        let numeric = matches!(ty, PropertyType::Int | PropertyType::Float);
        Some(match rng.random_range(0..100) {
            0..=24 => Step::Is(self.value_predicate(ty, rng)),
            25..=34 if ty != PropertyType::Float || self.sound(self.dialect.quirks.dedup_signed_zero) => Step::Dedup,
            35..=49 => {
                at.ordered = true;
                if rng.random_bool(0.5) {
                    Step::Order(Vec::new())
                } else {
                    Step::Order(vec![(By::Identity, Order::Desc)])
                }
            }
            50..=59 if at.ordered => {
                at.ordered = true;
                match rng.random_range(0..4) {
                    0 => Step::Limit(rng.random_range(0..=4)),
                    1 => {
                        let lo = rng.random_range(0..=3);
                        Step::Range(lo, lo + rng.random_range(0..=3))
                    }
                    2 => Step::Skip(rng.random_range(0..=3)),
                    _ => Step::Tail(rng.random_range(0..=3)),
                }
            }
            60..=74 if numeric => {
                at.ty = Ty::Number;
                at.ordered = false;
                let mean = ty == PropertyType::Float || self.sound(self.dialect.quirks.mean_of_integers);
                let choices: &[Step] = if mean {
                    &[Step::Sum, Step::Min, Step::Max, Step::Mean]
                } else {
                    &[Step::Sum, Step::Min, Step::Max]
                };
                choices.choose(rng)?.clone()
            }
            75..=79 if ty != PropertyType::Bool => {
                at.ty = Ty::Number;
                at.ordered = false;
                if ty == PropertyType::String { Step::Min } else { Step::Max }
            }
            80..=86 => {
                at.ty = Ty::Number;
                at.ordered = false;
                Step::Count
            }
            87..=92 if at.ordered || !self.config.deterministic => {
                at.folded = Some(at.ty);
                at.ty = Ty::List;
                Step::Fold
            }
            93..=99 if ty != PropertyType::Float && self.sound(self.dialect.quirks.group_count_identity) => {
                at.ty = Ty::Map;
                at.ordered = false;
                Step::GroupCount(By::Identity)
            }
            _ => return None,
        })
    }

    fn scalar_step(&self, at: &mut At, rng: &mut CaseRng) -> Option<Step> {
        if rng.random_bool(0.1) {
            at.ty = Ty::Value(PropertyType::Int);
            return Some(Step::Constant(Value::Int(rng.random_range(0..3))));
        }
        if at.ty == Ty::Number && rng.random_bool(0.5) {
            return Some(Step::Is(
                [Predicate::Gt(Value::Int(0)), Predicate::Eq(Value::Int(0)), Predicate::Lte(Value::Int(2))]
                    .choose(rng)?
                    .clone(),
            ));
        }
        self.count_or_dedup(at, rng)
    }

    fn list_step(&self, at: &mut At, rng: &mut CaseRng) -> Option<Step> {
        if let Some(ty) = at.folded.take().filter(|_| rng.random_bool(0.6)) {
            at.ty = ty;
            return Some(Step::Unfold);
        }
        self.count_or_dedup(at, rng)
    }

    fn count_or_dedup(&self, at: &mut At, rng: &mut CaseRng) -> Option<Step> {
        // A count of one count is always 1: nothing to learn, and graphersal
        // folds the two (triaged as XB).
        if at.ty != Ty::Number && rng.random_bool(0.5) {
            at.ty = Ty::Number;
            at.ordered = false;
            Some(Step::Count)
        } else {
            Some(Step::Dedup)
        }
    }

    /// `has(key, P)`, `has(key)` or `has(label, key, P)` on the current elements.
    fn has(&self, at: &mut At, vertex: bool, rng: &mut CaseRng) -> Option<Step> {
        let key = self.owner_keys(at.owner.as_ref(), vertex).choose(rng)?.clone();
        let ty = *self.key_types.get(&key)?;
        Some(match rng.random_range(0..10) {
            0 => Step::HasKey(key),
            1 if vertex && at.owner.is_some() && self.dialect.quirks.has_label_key_predicate => {
                let owner = at.owner.clone()?;
                let p = self.predicate(Some(&owner), &key, ty, rng);
                Step::HasLabelKey(owner, key, p)
            }
            _ => Step::Has(key.clone(), self.predicate(at.owner.as_ref(), &key, ty, rng)),
        })
    }

    /// A predicate on `key` with values that occur under `owner` where it can.
    fn predicate(&self, owner: Option<&String>, key: &str, ty: PropertyType, rng: &mut CaseRng) -> Predicate {
        let pool = owner
            .and_then(|o| self.owner_values.get(&(o.clone(), key.to_owned())))
            .or_else(|| self.values.get(key))
            .filter(|v| !v.is_empty());
        let mut pick = |rng: &mut CaseRng| match pool {
            Some(p) => p.choose(rng).cloned().unwrap_or(Value::Null),
            None => self.any_value(ty, rng),
        };
        self.compose(ty, &mut pick, rng, 0)
    }

    fn value_predicate(&self, ty: PropertyType, rng: &mut CaseRng) -> Predicate {
        let pool: Vec<Value> = self
            .values
            .iter()
            .filter(|(k, _)| self.key_types.get(*k) == Some(&ty))
            .flat_map(|(_, v)| v.iter().cloned())
            .collect();
        let mut pick = |rng: &mut CaseRng| pool.choose(rng).cloned().unwrap_or_else(|| self.any_value(ty, rng));
        self.compose(ty, &mut pick, rng, 0)
    }

    fn compose(
        &self,
        ty: PropertyType,
        pick: &mut dyn FnMut(&mut CaseRng) -> Value,
        rng: &mut CaseRng,
        depth: usize,
    ) -> Predicate {
        let ordered = ty != PropertyType::Bool;
        let mut two = |rng: &mut CaseRng| {
            let (a, b) = (pick(rng), pick(rng));
            if compare(&a, &b) == std::cmp::Ordering::Greater { (b, a) } else { (a, b) }
        };
        match rng.random_range(0..13) {
            0 | 1 => Predicate::Eq(pick(rng)),
            2 => Predicate::Neq(pick(rng)),
            3 if ordered => Predicate::Lt(pick(rng)),
            4 if ordered => Predicate::Lte(pick(rng)),
            5 if ordered => Predicate::Gt(pick(rng)),
            6 if ordered => Predicate::Gte(pick(rng)),
            7 if ordered => {
                let (a, b) = two(rng);
                Predicate::Inside(a, b)
            }
            8 if ordered => {
                let (a, b) = two(rng);
                Predicate::Outside(a, b)
            }
            9 if ordered => {
                let (a, b) = two(rng);
                Predicate::Between(a, b)
            }
            10 => Predicate::Within((0..rng.random_range(1..=3)).map(|_| pick(rng)).collect()),
            11 => Predicate::Without((0..rng.random_range(1..=2)).map(|_| pick(rng)).collect()),
            12 if depth == 0 && self.dialect.quirks.predicate_connectives => {
                let a = self.compose(ty, pick, rng, 1);
                let b = self.compose(ty, pick, rng, 1);
                if rng.random_bool(0.5) {
                    Predicate::And(Box::new(a), Box::new(b))
                } else {
                    Predicate::Or(Box::new(a), Box::new(b))
                }
            }
            _ => Predicate::Eq(pick(rng)),
        }
    }

    fn any_value(&self, ty: PropertyType, rng: &mut CaseRng) -> Value {
        match ty {
            PropertyType::Int => Value::Int(rng.random_range(-5..50)),
            PropertyType::Float => Value::Float(f64::from(rng.random_range(-50..500_i32)) / 10.0),
            PropertyType::String => Value::String(["a", "b", "ab", "", "x"].choose(rng).copied().unwrap_or("a").into()),
            PropertyType::Bool => Value::Bool(rng.random_bool(0.5)),
        }
    }

    /// Relationship types to move along from `owner` in `dir`: one that
    /// exists there when known, sometimes two, sometimes none (every type).
    fn types_from(&self, owner: Option<&String>, dir: Direction, rng: &mut CaseRng) -> Vec<String> {
        let near: Vec<String> = owner
            .and_then(|o| match dir {
                Direction::Out => self.out_types.get(o),
                Direction::In => self.in_types.get(o),
                Direction::Both => None,
            })
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_else(|| self.rel_types.clone());
        match rng.random_range(0..10) {
            0..=1 => Vec::new(),
            2 if near.len() > 1 => {
                let mut two: Vec<String> = near.choose_multiple(rng, 2).cloned().collect();
                two.sort();
                two
            }
            _ => near.choose(rng).cloned().into_iter().collect(),
        }
    }
}

/// `step`, which turns the traversers into `ty` in no particular order.
fn becomes(at: &mut At, ty: Ty, step: Step) -> Step {
    at.ty = ty;
    at.ordered = false;
    step
}

/// Orders values of one type.
fn compare(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}
