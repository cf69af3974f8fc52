//! Patterns: MATCH patterns that follow the schema's label pairs (so they
//! find something), and directed, fixed-length CREATE and MERGE patterns.

use crate::functions::call;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// A string longer than any the graph holds.
const LONG_STRING: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

use graphlancer_model::{ID_PROPERTY, Value};

use super::Builder;
use super::index::Step;
use crate::ast::{Direction, Expr, NodePattern, PathPattern, RelPattern};
use crate::feature::Feature;
use crate::profile::SemanticsKey;
use crate::types::{Ty, Var};

impl<'g> Builder<'g, '_> {
    /// Keys a node or relationship variable may carry (property key safety).
    pub(super) fn keys_of(&self, var: &Var) -> Cow<'g, [String]> {
        let keys = &self.g.keys;
        let single =
            |map: &'g BTreeMap<String, Vec<String>>, tag: &str| map.get(tag).map(|k| Cow::Borrowed(k.as_slice()));
        match (&var.ty, var.tags.as_slice()) {
            (Ty::Node, []) => Cow::Borrowed(&keys.all_node),
            (Ty::Rel, []) => Cow::Borrowed(&keys.all_rel),
            (Ty::Node, [tag]) => single(&keys.by_label, tag).unwrap_or(Cow::Borrowed(&[])),
            (Ty::Rel, [tag]) => single(&keys.by_type, tag).unwrap_or(Cow::Borrowed(&[])),
            (Ty::Node | Ty::Rel, tags) => {
                let map = if var.ty == Ty::Node { &keys.by_label } else { &keys.by_type };
                let mut all: Vec<String> = tags.iter().filter_map(|t| map.get(t)).flatten().cloned().collect();
                all.sort();
                all.dedup();
                Cow::Owned(all)
            }
            _ => Cow::Borrowed(&[]),
        }
    }

    /// Keys a SET may write on `var`: where an engine ignores a key the
    /// entity's table lacks (Kuzu), only keys every table it may be in has.
    pub(super) fn settable_keys_of(&self, var: &Var) -> Vec<String> {
        let keys = self.keys_of(var).into_owned();
        if !self.g.profile.records(SemanticsKey::SetMissingKey) {
            return keys;
        }
        let map = if var.ty == Ty::Node { &self.g.keys.by_label } else { &self.g.keys.by_type };
        let tables: Vec<&Vec<String>> = if var.tags.is_empty() {
            map.values().collect()
        } else {
            var.tags.iter().filter_map(|t| map.get(t)).collect()
        };
        keys.into_iter().filter(|k| tables.iter().all(|t| t.contains(k))).collect()
    }

    fn step(&mut self, near: Option<&str>) -> Option<Step> {
        let steps = &self.g.steps;
        let i = match near {
            None if steps.all.is_empty() => return None,
            None => self.below(steps.all.len()),
            Some(label) => {
                let from = steps.by_near.get(label)?;
                from[self.below(from.len())]
            }
        };
        Some(steps.all[i].clone())
    }

    /// A property constraint `{k: v}` with a value the graph has on `owners`.
    fn pattern_properties(&mut self, owners: &[String], keys: &[String]) -> Vec<(String, Expr)> {
        if keys.is_empty() || !self.chance(Feature::PatternProperties, 0.06) {
            return Vec::new();
        }
        let key = keys[self.choose_key(keys.iter().map(String::as_str))].clone();
        let value = self.graph_value_on(owners, &key);
        vec![(key, Expr::Literal(value))]
    }

    /// A bound node written again in a pattern: bare, or now and then with a
    /// label (its own or another) or a property value it may hold, which
    /// then filter what it is bound to.
    pub(super) fn reused_node(&mut self, v: &Var) -> NodePattern {
        let mut node = NodePattern { variable: Some(v.name.clone()), labels: Vec::new(), properties: Vec::new() };
        if !self.chance(Feature::ReuseWithFilter, 0.15) {
            return node;
        }
        if self.coin(0.5) {
            let labels = &self.schema().labels;
            let label = match v.tags.first() {
                Some(own) if self.coin(0.7) => own.clone(),
                _ => labels[self.below(labels.len())].name.clone(),
            };
            node.labels.push(label);
        } else {
            let keys = self.keys_of(v).into_owned();
            if let Some(k) = (!keys.is_empty()).then(|| keys[self.below(keys.len())].clone()) {
                let value = self.graph_value_on(&v.tags, &k);
                node.properties.push((k, Expr::Literal(value)));
            }
        }
        node
    }

    /// A node variable in scope that is certainly bound (not from OPTIONAL MATCH).
    pub(super) fn bound_node(&mut self) -> Option<Var> {
        let count = self.scope.vars().iter().filter(|v| v.ty == Ty::Node && !v.nullable).count();
        if count == 0 {
            return None;
        }
        let pick = self.below(count);
        self.scope.vars().iter().filter(|v| v.ty == Ty::Node && !v.nullable).nth(pick).cloned()
    }

    /// A MATCH pattern; binds the variables it introduces.
    pub(super) fn match_pattern(
        &mut self,
        nullable: bool,
        rels_so_far: &mut Vec<(String, Vec<String>)>,
        allow_var_length: bool,
    ) -> PathPattern {
        let hops = match self.below(8) {
            0 | 1 => 0,
            2..=5 => 1,
            _ => 2,
        };
        // Start from a node already in scope more often than not, so patterns
        // join instead of multiplying into cartesian products.
        const MAX_ISLANDS: usize = 2;
        let reuse = if self.islands >= MAX_ISLANDS || self.coin(0.55) { self.bound_node() } else { None };
        if reuse.is_none() {
            self.islands += 1;
        }
        // Grafeo fails some walks of two hops on from a bound node.
        let hops = if reuse.is_some() && self.g.quirks.two_hops_from_bound_node { hops.min(1) } else { hops };
        // LadybugDB 0.22 fails with `unordered_map::at` on a comma part that
        // is a bare bound node after WITH or OPTIONAL MATCH; such a part is
        // given a hop where the profile records it.
        let hops = if reuse.is_some() && hops == 0 && self.g.quirks.bare_bound_node_part { 1 } else { hops };
        let mut steps = Vec::new();
        let mut near = reuse.as_ref().and_then(|v| v.tags.first().cloned());
        for _ in 0..hops {
            let Some(step) = self.step(near.as_deref()).or_else(|| self.step(None)) else { break };
            near = Some(step.far.clone());
            steps.push(step);
        }
        let mut new_vars = Vec::new();
        let start = match &reuse {
            Some(v) => self.reused_node(v),
            None => {
                let label = steps.first().map(|s| s.near.clone()).or_else(|| {
                    let labels = &self.schema().labels;
                    Some(labels[self.below(labels.len())].name.clone())
                });
                self.new_node(label, 0.75, &mut new_vars)
            }
        };
        let single_rel = steps.len() == 1 && rels_so_far.is_empty();
        let mut hops_out = Vec::new();
        for step in steps {
            let mut direction = step.direction;
            if self.chance(Feature::RelUndirected, 0.15) {
                direction = Direction::Both;
            } else if direction == Direction::In {
                self.features.insert(Feature::RelIncoming);
            }
            let mut types = Vec::new();
            if self.coin(0.8) {
                types.push(step.rel_type.clone());
                if self.chance(Feature::RelTypeAlternatives, 0.1) {
                    let all = &self.schema().rel_types;
                    let other = all[self.below(all.len())].name.clone();
                    if other != step.rel_type {
                        types.push(other);
                    }
                }
            }
            // Variable length only where relationship uniqueness cannot be
            // told apart from walk semantics: one relationship in the clause.
            let var_length =
                allow_var_length && single_rel && !self.needs_named_rels() && self.chance(Feature::VarLength, 0.1);
            let rel = if var_length {
                // Zero, and equal lower and upper, bounds now and then.
                let length = if self.boundary(Feature::BoundaryValues) {
                    self.pick(&[(0, 0), (0, 1), (0, 2), (1, 1), (2, 2), (3, 3)])
                } else {
                    (1, 2)
                };
                RelPattern { variable: None, types, direction, length: Some(length), properties: Vec::new() }
            } else {
                let name = (self.coin(0.75) || self.needs_named_rels()).then(|| self.names.fresh("r"));
                let keys: Vec<String> =
                    types.iter().filter_map(|t| self.schema().rel_type(t)).flat_map(|t| t.keys.clone()).collect();
                let properties = if types.len() == 1 { self.pattern_properties(&types, &keys) } else { Vec::new() };
                if let Some(n) = &name {
                    rels_so_far.push((n.clone(), types.clone()));
                    let mut v = Var::new(n.clone(), Ty::Rel);
                    v.tags = types.clone();
                    new_vars.push(v);
                }
                RelPattern { variable: name, types, direction, length: None, properties }
            };
            let far = self.new_node(Some(step.far.clone()), 0.5, &mut new_vars);
            hops_out.push((rel, far));
        }
        // Where the profile records it (Grafeo), a named path has one hop.
        let long_ok = !self.g.quirks.long_fixed_length_paths && !hops_out.is_empty();
        let name = if (hops_out.len() == 1 || long_ok) && self.chance(Feature::NamedPath, 0.12) {
            let p = self.names.fresh("p");
            new_vars.push(Var::new(p.clone(), Ty::Path));
            Some(p)
        } else {
            None
        };
        for mut v in new_vars {
            v.nullable = nullable;
            self.scope.bind(v);
        }
        PathPattern { name, start, hops: hops_out }
    }

    /// Whether every relationship must be named (and referenced): to spell
    /// out uniqueness with `r1 <> r2`, or to keep parallel relationships apart.
    pub(super) fn needs_named_rels(&self) -> bool {
        self.g.needs_named_rels()
    }

    /// Whether some engine folds parallel relationships it is not asked about.
    pub(super) fn collapses_relationships(&self) -> bool {
        self.g.collapses_relationships()
    }

    fn new_node(&mut self, label: Option<String>, label_chance: f64, new_vars: &mut Vec<Var>) -> NodePattern {
        let mut labels = Vec::new();
        if let Some(l) = label
            && self.coin(label_chance)
        {
            self.features.insert(Feature::PatternLabel);
            labels.push(l);
            if self.chance(Feature::PatternMultiLabel, 0.05) {
                let all = &self.schema().labels;
                let other = all[self.below(all.len())].name.clone();
                if !labels.contains(&other) {
                    labels.push(other);
                }
            }
        }
        // A lone node pattern always gets a variable: `MATCH ()` only multiplies rows.
        let variable = (new_vars.is_empty() || self.coin(0.85)).then(|| self.names.fresh("n"));
        let mut var = Var::new(variable.clone().unwrap_or_default(), Ty::Node);
        var.tags = labels.clone();
        let keys = self.keys_of(&var);
        let properties = self.pattern_properties(&labels, &keys);
        if variable.is_some() {
            new_vars.push(var);
        }
        NodePattern { variable, labels, properties }
    }

    /// A node to create: one label, some of its keys with values of their type.
    pub(super) fn create_node(&mut self, label: String) -> (NodePattern, Var) {
        let name = self.names.fresh("n");
        let mut var = Var::new(name.clone(), Ty::Node);
        var.tags = vec![label.clone()];
        let keys = self.keys_of(&var).into_owned();
        let mut properties = Vec::new();
        for k in keys {
            if self.coin(0.5) {
                let ty = self.key_type(&k);
                let e = self.write_value(&ty);
                self.remember(std::slice::from_ref(&label), &k, &e);
                properties.push((k, e));
            }
        }
        (NodePattern { variable: Some(name), labels: vec![label], properties }, var)
    }

    /// A non-null value to write into a property of type `ty`.
    pub(super) fn write_value(&mut self, ty: &Ty) -> Expr {
        if self.coin(0.5) {
            return self.literal(ty);
        }
        let e = self.expr(ty, 1);
        call(Feature::FnCoalesce, vec![e, self.literal(ty)])
    }

    /// `(a)-[r:T {...}]->(b)` for CREATE or MERGE, between nodes in scope or new ones.
    pub(super) fn create_path(&mut self) -> (PathPattern, Vec<Var>) {
        let mut new_vars = Vec::new();
        let labels = &self.schema().labels;
        let label = labels[self.below(labels.len())].name.clone();
        if self.coin(0.4) {
            let (node, var) = self.create_node(label);
            new_vars.push(var);
            return (PathPattern { name: None, start: node, hops: Vec::new() }, new_vars);
        }
        let Some(step) = self.step(None) else {
            let (node, var) = self.create_node(label);
            return (PathPattern { name: None, start: node, hops: Vec::new() }, vec![var]);
        };
        let (from, to) = match step.direction {
            Direction::In => (step.far, step.near),
            _ => (step.near, step.far),
        };
        let mut endpoint = |b: &mut Self, label: String| -> NodePattern {
            if b.coin(0.6)
                && let Some(v) = b.bound_node()
            {
                return NodePattern { variable: Some(v.name), labels: Vec::new(), properties: Vec::new() };
            }
            let (node, var) = b.create_node(label);
            new_vars.push(var);
            node
        };
        let start = endpoint(self, from);
        let end = endpoint(self, to);
        let name = self.names.fresh("r");
        let mut rel_var = Var::new(name.clone(), Ty::Rel);
        rel_var.tags = vec![step.rel_type.clone()];
        let mut properties = Vec::new();
        for k in self.keys_of(&rel_var).into_owned() {
            if self.coin(0.4) {
                let ty = self.key_type(&k);
                let e = self.write_value(&ty);
                self.remember(std::slice::from_ref(&step.rel_type), &k, &e);
                properties.push((k, e));
            }
        }
        new_vars.push(rel_var);
        let rel = RelPattern {
            variable: Some(name),
            types: vec![step.rel_type],
            direction: Direction::Out,
            length: None,
            properties,
        };
        (PathPattern { name: None, start, hops: vec![(rel, end)] }, new_vars)
    }

    /// A pattern for EXISTS { } and pattern predicates, anchored at a bound node.
    pub(super) fn anchored_pattern(&mut self) -> Option<PathPattern> {
        let anchor = self.bound_node()?;
        let near = anchor.tags.first().cloned();
        let step = self.step(near.as_deref()).or_else(|| self.step(None))?;
        let rel = RelPattern {
            variable: None,
            types: vec![step.rel_type],
            direction: step.direction,
            length: None,
            properties: Vec::new(),
        };
        let far = NodePattern { variable: None, labels: vec![step.far], properties: Vec::new() };
        // Filters on the anchor inside subqueries only where answers are not
        // compared: Grafeo refuses them ('Unsupported EXISTS subquery pattern').
        let start = if self.deterministic() {
            NodePattern { variable: Some(anchor.name), labels: Vec::new(), properties: Vec::new() }
        } else {
            self.reused_node(&anchor)
        };
        Some(PathPattern { name: None, start, hops: vec![(rel, far)] })
    }

    /// Whether a `shortestPath()` may be written here: in WHERE, WITH or
    /// RETURN (FalkorDB's only places), with a bound node in scope.
    pub(super) fn may_shortest_path(&self) -> bool {
        (self.in_where || self.in_projection) && self.scope.of_type(&Ty::Node).any(|v| !v.nullable)
    }

    /// `shortestPath((a)-[:T*0..k]->(b))` between two bound nodes (perhaps
    /// the same), every type or one or two, unbounded half the time. The
    /// lower bound is 0 where answers are compared: from a node to itself
    /// with 1, FalkorDB answers null, ArcadeDB a path of length 0 and Neo4j
    /// an error.
    pub(super) fn shortest_path(&mut self) -> Option<Expr> {
        let nodes: Vec<Var> = self.scope.vars().iter().filter(|v| v.ty == Ty::Node && !v.nullable).cloned().collect();
        if nodes.is_empty() {
            return None;
        }
        let i = self.below(nodes.len());
        // Mostly between two different variables; now and then a node to itself.
        let j =
            if nodes.len() > 1 && self.coin(0.85) { (i + 1 + self.below(nodes.len() - 1)) % nodes.len() } else { i };
        let (a, b) = (nodes[i].clone(), nodes[j].clone());
        self.features.insert(Feature::ShortestPath);
        let all: Vec<String> = self.schema().rel_types.iter().map(|t| t.name.clone()).collect();
        let types = match self.below(3) {
            0 => Vec::new(),
            n => (0..n.min(all.len()))
                .map(|_| all[self.below(all.len())].clone())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
        };
        let min = if self.deterministic() { 0 } else { self.pick(&[0, 1]) };
        let max = if self.coin(0.5) { u32::MAX } else { self.rng_int(1, 4) as u32 };
        let rel = RelPattern {
            variable: None,
            types,
            direction: if self.coin(0.5) { Direction::Out } else { Direction::In },
            length: Some((min, max)),
            properties: Vec::new(),
        };
        let node = |v: Var| NodePattern { variable: Some(v.name), labels: Vec::new(), properties: Vec::new() };
        Some(Expr::ShortestPath(Box::new(PathPattern { name: None, start: node(a), hops: vec![(rel, node(b))] })))
    }

    /// `{gid: ...}`-free literal of a type, from the graph's values where possible.
    pub(super) fn literal(&mut self, ty: &Ty) -> Expr {
        let keys: Vec<String> = self
            .schema()
            .keys
            .iter()
            .filter(|k| k.name != ID_PROPERTY && &Ty::of_property(k.ty) == ty)
            .map(|k| k.name.clone())
            .collect();
        if matches!(ty, Ty::Int | Ty::Float | Ty::String) && self.boundary(Feature::BoundaryValues) {
            return Expr::Literal(self.boundary_literal(ty));
        }
        if !keys.is_empty() && self.coin(0.6) {
            let k = keys[self.below(keys.len())].clone();
            return Expr::Literal(self.graph_value(&k));
        }
        Expr::Literal(match ty {
            Ty::Int => Value::Int(self.rng_int(-5, 20)),
            Ty::Float => Value::Float(f64::from(i32::try_from(self.rng_int(-40, 40)).unwrap_or(0)) / 4.0),
            Ty::Bool => Value::Bool(self.coin(0.5)),
            Ty::String => Value::String(["a", "b", "ab", "", "ba", "x"][self.below(6)].to_owned()),
            _ => Value::Null,
        })
    }

    /// A value at the edge of its type. Deterministic presets keep to edges
    /// engines must agree on (no overflow of 64 bits, no infinities, no
    /// negative zero); the crash preset takes the extremes too.
    fn boundary_literal(&mut self, ty: &Ty) -> Value {
        let det = self.deterministic();
        match ty {
            Ty::Int if det => Value::Int(self.pick(&[0, -1, 1, 2147483647, -2147483648, 4294967296, 9007199254740993])),
            Ty::Int => Value::Int(self.pick(&[0, -1, i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1, 2147483648])),
            Ty::Float if det => Value::Float(self.pick(&[0.0, 1e15, -1e15, 1e-15, 0.1, 9007199254740993.0])),
            Ty::Float => {
                Value::Float(self.pick(&[-0.0, f64::MAX, f64::MIN, f64::MIN_POSITIVE, 5e-324, 1e308, f64::EPSILON]))
            }
            _ => Value::String(self.pick(&["", " ", "''", "\\", "%", LONG_STRING]).to_owned()),
        }
    }

    pub(super) fn rng_int(&mut self, lo: i64, hi: i64) -> i64 {
        use rand::Rng;
        self.rng.random_range(lo..=hi)
    }
}
