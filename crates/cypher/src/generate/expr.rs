//! Expressions generated top-down for a wanted type. Every type has a leaf
//! (literal, property of a variable in scope, variable), so generation
//! cannot fail; compound forms are drawn by weight while depth remains.
//! Under a deterministic preset, integers carry a bound on their magnitude
//! so arithmetic never overflows, divisors are non-zero literals, computed
//! floats are never compared for equality, and lists whose order the engine
//! chooses are only counted or searched.

use graphlancer_model::Value;

use crate::ast::{BinOp, Expr};
use crate::feature::Feature;
use crate::functions::{call, call_named};
use crate::profile::SemanticsKey;
use crate::types::{BIG, Ty, Var};

use super::Builder;

/// The scalar types expressions are drawn for.
const SCALARS: [Ty; 4] = [Ty::Int, Ty::Float, Ty::String, Ty::Bool];

impl<'g> Builder<'g, '_> {
    /// Any scalar type.
    pub(super) fn scalar_type(&mut self) -> Ty {
        SCALARS[self.below(SCALARS.len())].clone()
    }

    /// An expression of type `ty`.
    pub(super) fn expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        match ty {
            Ty::Int => self.int(depth).0,
            Ty::Float => self.float(depth).0,
            Ty::String => self.string(depth),
            Ty::Bool => self.boolean(depth),
            Ty::List(inner) => self.list(inner, depth),
            Ty::Map => self.map(depth),
            Ty::Node if self.coin(0.5) && self.scope.of_type(&Ty::Rel).any(|v| !v.nullable) => {
                let options = [(Feature::FnStartNode, 1), (Feature::FnEndNode, 1)];
                match self.choose(&options) {
                    Some(f) => {
                        let rels: Vec<Var> = self.scope.of_type(&Ty::Rel).filter(|v| !v.nullable).cloned().collect();
                        let r = rels[self.below(rels.len())].name.clone();
                        let name = if f == Feature::FnStartNode { "startNode" } else { "endNode" };
                        Expr::Function(name.into(), vec![Expr::Variable(r)])
                    }
                    None => self.expr_variable(ty),
                }
            }
            Ty::Node | Ty::Rel | Ty::Path => self.expr_variable(ty),
        }
    }

    /// A variable of an entity type, or null when none is in scope.
    pub(super) fn expr_variable(&mut self, ty: &Ty) -> Expr {
        let vars: Vec<Var> = self.scope.of_type(ty).cloned().collect();
        if vars.is_empty() {
            Expr::Literal(Value::Null)
        } else {
            Expr::Variable(vars[self.below(vars.len())].name.clone())
        }
    }

    /// Properties `v.k` of type `ty` available in scope, as (variable, key).
    pub(super) fn properties_of(&self, ty: &Ty) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for (i, v) in self.scope.vars().iter().enumerate() {
            if matches!(v.ty, Ty::Node | Ty::Rel) {
                for k in self.keys_of(v).iter() {
                    if &self.key_type(k) == ty {
                        out.push((i, k.clone()));
                    }
                }
            }
        }
        out
    }

    /// A property of a node or relationship in scope, with its owners (labels
    /// or types) and key.
    pub(super) fn some_property(&mut self) -> Option<(Expr, Vec<String>, String)> {
        let entities: Vec<Var> =
            self.scope.vars().iter().filter(|v| matches!(v.ty, Ty::Node | Ty::Rel)).cloned().collect();
        if entities.is_empty() {
            return None;
        }
        let v = entities[self.below(entities.len())].clone();
        let keys = self.keys_of(&v);
        if keys.is_empty() {
            return None;
        }
        let key = keys[self.choose_key(keys.iter().map(String::as_str))].clone();
        Some((Expr::Property(Box::new(Expr::Variable(v.name.clone())), key.clone()), v.tags.clone(), key))
    }

    /// A leaf: a variable, a property or a literal. The flag says whether it
    /// is stored data (not computed), which float equality needs.
    pub(super) fn leaf(&mut self, ty: &Ty) -> (Expr, u64) {
        let roll = self.below(10);
        if roll < 5 {
            let props = self.properties_of(ty);
            if !props.is_empty() {
                let (i, k) = props[self.choose_key(props.iter().map(|(_, k)| k.as_str()))].clone();
                let name = self.scope.vars()[i].name.clone();
                return (Expr::Property(Box::new(Expr::Variable(name)), k), BIG);
            }
        }
        if roll < 7 {
            let vars: Vec<(String, u64)> = self.scope.of_type(ty).map(|v| (v.name.clone(), v.bound)).collect();
            if !vars.is_empty() {
                let (name, bound) = vars[self.below(vars.len())].clone();
                return (Expr::Variable(name), bound);
            }
        }
        let lit = self.literal(ty);
        let bound = match &lit {
            Expr::Literal(Value::Int(i)) => i.unsigned_abs(),
            _ => BIG,
        };
        (lit, bound)
    }

    /// A CASE's ELSE, or none now and then (the CASE is then null when no branch is taken).
    pub(super) fn otherwise(&mut self, e: Expr) -> Option<Box<Expr>> {
        (!self.chance(Feature::CaseNoElse, 0.25)).then(|| Box::new(e))
    }

    pub(super) fn small_float(&mut self) -> Expr {
        Expr::Literal(Value::Float(f64::from(i32::try_from(self.rng_int(-20, 20)).unwrap_or(0)) / 8.0))
    }

    pub(super) fn small_float_abs(&mut self) -> Expr {
        Expr::Literal(Value::Float(f64::from(i32::try_from(self.rng_int(0, 40)).unwrap_or(0)) / 8.0))
    }

    /// Whether `type(v)` may be generated: never of a relationship that may
    /// be null where the profile records that `type(null)` fails (Grafeo).
    pub(super) fn typeable(&self, v: &Var) -> bool {
        !(v.nullable && self.g.quirks.type_of_null)
    }

    /// A list whose element order is fixed by the query.
    pub(super) fn list(&mut self, inner: &Ty, depth: u32) -> Expr {
        let d = depth + 1;
        let options = [
            (Feature::ListLiteral, 4),
            (Feature::FnRange, u32::from(*inner == Ty::Int) * 2),
            (Feature::ListComprehension, 1),
            (Feature::FnSplit, u32::from(*inner == Ty::String)),
            (Feature::ListSlice, 1),
            (Feature::FnTail, 1),
            (Feature::ListConcat, 1),
            (Feature::FnRangeStep, u32::from(*inner == Ty::Int)),
            (Feature::FnReverseList, 1),
            (Feature::FnToList, u32::from(matches!(inner, Ty::Int | Ty::String | Ty::Bool | Ty::Float))),
        ];
        let choice = if depth >= self.g.config.max_depth { None } else { self.choose(&options) };
        match choice {
            Some(Feature::FnRange) => {
                let lo = self.rng_int(-2, 3);
                let hi = lo + self.rng_int(0, 5);
                call(Feature::FnRange, vec![Expr::Literal(Value::Int(lo)), Expr::Literal(Value::Int(hi))])
            }
            Some(Feature::ListComprehension) => {
                let x = self.names.fresh("x");
                let source = self.list(inner, d);
                let mut inner_scope = self.scope.clone();
                inner_scope.bind(Var::new(x.clone(), inner.clone()));
                let outer = std::mem::replace(&mut self.scope, inner_scope);
                let filter = self.coin(0.5).then(|| Box::new(self.boolean(d)));
                let map = self.coin(0.5).then(|| Box::new(self.expr(inner, d)));
                self.scope = outer;
                Expr::ListComprehension { variable: x, list: Box::new(source), filter, map }
            }
            Some(Feature::FnSplit) => {
                let s = self.string(d);
                call(Feature::FnSplit, vec![s, Expr::Literal(Value::String("a".into()))])
            }
            Some(Feature::ListSlice) if !self.deterministic() && self.boundary(Feature::BoundaryValues) => {
                // Negative, reversed and far bounds.
                let l = self.list(inner, d);
                let bound = |b: &mut Self| Box::new(Expr::Literal(Value::Int(b.pick(&[-1, -3, 0, 5, 100, i64::MIN]))));
                let (a, b) = (bound(self), bound(self));
                Expr::Slice(Box::new(l), Some(a), Some(b))
            }
            Some(Feature::ListSlice) => {
                let l = self.list(inner, d);
                let a = self.coin(0.7).then(|| Box::new(Expr::Literal(Value::Int(self.rng_int(0, 2)))));
                let b = self.coin(0.7).then(|| Box::new(Expr::Literal(Value::Int(self.rng_int(1, 4)))));
                Expr::Slice(Box::new(l), a, b)
            }
            Some(Feature::FnTail) => call(Feature::FnTail, vec![self.list(inner, d)]),
            Some(Feature::ListConcat) => Expr::binary(BinOp::Add, self.list(inner, d), self.list(inner, d)),
            Some(Feature::FnRangeStep) => {
                let lo = self.rng_int(-4, 6);
                let hi = self.rng_int(-4, 10);
                let step = [-3, -2, -1, 1, 2, 3][self.below(6)];
                let args = vec![lo, hi, step].into_iter().map(|i| Expr::Literal(Value::Int(i))).collect();
                call(Feature::FnRangeStep, args)
            }
            Some(Feature::FnReverseList) => call(Feature::FnReverseList, vec![self.list(inner, d)]),
            // From lists of another element type whose conversion engines agree on.
            Some(Feature::FnToList) => {
                let (name, from) = match inner {
                    Ty::Int => ("toIntegerList", if self.coin(0.5) { Ty::Int } else { Ty::String }),
                    Ty::Float => ("toFloatList", Ty::Int),
                    Ty::Bool => ("toBooleanList", Ty::Bool),
                    _ => ("toStringList", if self.coin(0.5) { Ty::Int } else { Ty::String }),
                };
                call_named(Feature::FnToList, name, vec![self.list(&from, d)])
            }
            // A literal, also when the depth is spent or nothing else may be generated.
            Some(Feature::ListLiteral) | None => {
                self.features.insert(Feature::ListLiteral);
                let n = self.rng_int(1, 4);
                Expr::List((0..n).map(|_| self.expr(inner, d)).collect())
            }
            Some(other) => unreachable!("{other:?} is not in the table of lists"),
        }
    }

    /// A list that is only counted, so its order may be the engine's own.
    pub(super) fn counted_list(&mut self, depth: u32) -> Expr {
        let d = depth + 1;
        let node = self.scope.of_type(&Ty::Node).next().cloned();
        let options = [
            (Feature::ListLiteral, 2),
            (Feature::FnKeys, u32::from(node.is_some())),
            (Feature::FnLabels, u32::from(node.is_some())),
            (
                Feature::PatternComprehension,
                u32::from(self.scope.of_type(&Ty::Node).any(|v| !v.nullable) && !self.collapses_relationships()),
            ),
        ];
        match self.choose(&options) {
            Some(c @ (Feature::FnKeys | Feature::FnLabels)) => {
                let n = node.expect("weighted only when a node is in scope");
                let f = if c == Feature::FnKeys { "keys" } else { "labels" };
                Expr::Function(f.into(), vec![Expr::Variable(n.name)])
            }
            Some(Feature::PatternComprehension) => match self.anchored_pattern() {
                Some(p) => Expr::PatternComprehension {
                    pattern: Box::new(p),
                    filter: None,
                    map: Box::new(Expr::Literal(Value::Int(1))),
                },
                None => self.list(&Ty::Int, d),
            },
            Some(Feature::ListLiteral) | None if self.boundary(Feature::DegenerateForms) => Expr::List(Vec::new()),
            Some(Feature::ListLiteral) | None => {
                let ty = self.scalar_type();
                self.list(&ty, d)
            }
            Some(other) => unreachable!("{other:?} is not in the table of counted lists"),
        }
    }

    /// `n{.k, m0: e, x}`: some of the node's keys (where engines agree on a
    /// missing one), then one or two entries, each an expression or a scalar
    /// variable in scope written as its own selector.
    pub(super) fn map_projection_with(&mut self, n: Var, depth: u32) -> Expr {
        let keys: Vec<String> = if self.agreed(SemanticsKey::MapProjectionMissing) {
            let all = self.keys_of(&n).into_owned();
            all.into_iter().filter(|_| self.coin(0.3)).take(2).collect()
        } else {
            Vec::new()
        };
        let scalars: Vec<String> = self
            .scope
            .vars()
            .iter()
            .filter(|v| SCALARS.contains(&v.ty) && !keys.contains(&v.name))
            .map(|v| v.name.clone())
            .collect();
        let mut entries: Vec<(String, Expr)> = Vec::new();
        for i in 0..self.rng_int(1, 2) {
            if !scalars.is_empty() && self.coin(0.4) {
                let v = scalars[self.below(scalars.len())].clone();
                if !entries.iter().any(|(k, _)| *k == v) {
                    entries.push((v.clone(), Expr::Variable(v)));
                }
            } else {
                let ty = self.scalar_type();
                entries.push((format!("m{i}"), self.expr(&ty, depth + 1)));
            }
        }
        Expr::MapProjectionWith { base: n.name, keys, entries }
    }

    /// A map.
    pub(super) fn map(&mut self, depth: u32) -> Expr {
        let node = self.scope.of_type(&Ty::Node).next().cloned();
        if let Some(n) = node
            && self.agreed(SemanticsKey::MapProjectionMissing)
            && self.chance(Feature::MapProjection, 0.5)
        {
            let keys = self.keys_of(&n);
            let chosen: Vec<String> = keys.iter().filter(|_| self.coin(0.5)).take(3).cloned().collect();
            if !chosen.is_empty() {
                return Expr::MapProjection(n.name, chosen);
            }
        }
        let node = self.scope.of_type(&Ty::Node).next().cloned();
        if let Some(n) = node
            && self.chance(Feature::MapProjectionEntries, 0.3)
        {
            return self.map_projection_with(n, depth);
        }
        let entity = self.scope.vars().iter().find(|v| matches!(v.ty, Ty::Node | Ty::Rel) && !v.nullable).cloned();
        if let Some(e) = entity
            && self.chance(Feature::FnProperties, 0.4)
        {
            return call(Feature::FnProperties, vec![Expr::Variable(e.name)]);
        }
        if !self.on(Feature::MapLiteral) {
            return Expr::Literal(Value::Null);
        }
        self.features.insert(Feature::MapLiteral);
        let n = if self.boundary(Feature::EmptyMap) { 0 } else { self.rng_int(1, 3) };
        let entries = (0..n)
            .map(|i| {
                let ty = self.scalar_type();
                (format!("m{i}"), self.expr(&ty, depth + 1))
            })
            .collect();
        Expr::Map(entries)
    }
}
