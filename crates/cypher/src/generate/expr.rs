//! Expressions generated top-down for a wanted type. Every type has a leaf
//! (literal, property of a variable in scope, variable), so generation
//! cannot fail; compound forms are drawn by weight while depth remains.
//! Under a deterministic preset, integers carry a bound on their magnitude
//! so arithmetic never overflows, divisors are non-zero literals, computed
//! floats are never compared for equality, and lists whose order the engine
//! chooses are only counted or searched.

use crate::functions::{call, call_named};
use graphlancer_model::Value;

use super::Builder;
use crate::ast::{BinOp, Expr, Quantifier};
use crate::feature::Feature;
use crate::profile::SemanticsKey;
use crate::types::{BIG, Ty, Var};

/// Integers beyond this bound are not produced by arithmetic.
const SAFE: u64 = 1 << 62;

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
    fn expr_variable(&mut self, ty: &Ty) -> Expr {
        let vars: Vec<Var> = self.scope.of_type(ty).cloned().collect();
        if vars.is_empty() {
            Expr::Literal(Value::Null)
        } else {
            Expr::Variable(vars[self.below(vars.len())].name.clone())
        }
    }

    /// Properties `v.k` of type `ty` available in scope, as (variable, key).
    fn properties_of(&self, ty: &Ty) -> Vec<(usize, String)> {
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
    fn some_property(&mut self) -> Option<(Expr, Vec<String>, String)> {
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
    fn leaf(&mut self, ty: &Ty) -> (Expr, u64) {
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

    /// An integer expression and a bound on its magnitude.
    pub(super) fn int(&mut self, depth: u32) -> (Expr, u64) {
        if depth >= self.g.config.max_depth || self.coin(0.4) {
            return self.leaf(&Ty::Int);
        }
        let det = self.deterministic();
        let division_agrees = !det || self.g.profile.semantics(SemanticsKey::IntegerDivision).is_some();
        let options = [
            (Feature::Add, 3),
            (Feature::Subtract, 2),
            (Feature::Multiply, 2),
            (Feature::Divide, if division_agrees { 1 } else { 0 }),
            (Feature::Modulo, if division_agrees { 1 } else { 0 }),
            (Feature::Negate, 1),
            (Feature::FnSize, 2),
            (Feature::FnAbs, 1),
            (Feature::CaseGeneric, 1),
            (Feature::FnLength, u32::from(self.scope.of_type(&Ty::Path).next().is_some())),
            (Feature::ListIndex, 1),
            (Feature::FnHead, 1),
            (Feature::Reduce, 1),
            (Feature::FnSign, 1),
            (Feature::FnLast, 1),
            (Feature::FnCoalesce, 1),
            (Feature::FnToInteger, 1),
            (Feature::FnNodes, u32::from(self.scope.of_type(&Ty::Path).next().is_some())),
            (Feature::FnRelationships, u32::from(self.scope.of_type(&Ty::Path).next().is_some())),
            (Feature::FnId, u32::from(self.scope.of_type(&Ty::Node).next().is_some())),
            (Feature::FnTimestamp, 1),
            (Feature::FnCharLength, u32::from(self.agreed(SemanticsKey::StringLength))),
            (Feature::FnNullIf, 1),
            (Feature::FnOrNull, 1),
            (Feature::ShortestPath, u32::from(self.may_shortest_path() && self.on(Feature::FnLength))),
        ];
        let Some(choice) = self.choose(&options) else { return self.leaf(&Ty::Int) };
        let d = depth + 1;
        match choice {
            Feature::Add | Feature::Subtract | Feature::Multiply => {
                let (a, ba) = self.int(d);
                let (b, bb) = self.int(d);
                let (op, bound) = match choice {
                    Feature::Add => (BinOp::Add, ba.saturating_add(bb)),
                    Feature::Subtract => (BinOp::Sub, ba.saturating_add(bb)),
                    _ => (BinOp::Mul, ba.saturating_mul(bb)),
                };
                if det && bound > SAFE {
                    return (a, ba);
                }
                (Expr::binary(op, a, b), bound)
            }
            Feature::Divide | Feature::Modulo => {
                let (a, ba) = self.int(d);
                let divisor = self.rng_int(1, 7) * if self.coin(0.2) { -1 } else { 1 };
                let op = if choice == Feature::Divide { BinOp::Div } else { BinOp::Mod };
                (Expr::binary(op, a, Expr::Literal(Value::Int(divisor))), ba)
            }
            Feature::Negate => {
                let (a, ba) = self.int(d);
                (Expr::Negate(Box::new(a)), ba)
            }
            Feature::FnSize => {
                let by_string = self.agreed(SemanticsKey::StringLength) && self.coin(0.5);
                let arg = if by_string { self.string(d) } else { self.counted_list(d) };
                (call(Feature::FnSize, vec![arg]), 1 << 20)
            }
            Feature::FnAbs => {
                let (a, ba) = self.int(d);
                (call(Feature::FnAbs, vec![a]), ba)
            }
            Feature::CaseGeneric => {
                let (then, bt) = self.int(d);
                let (otherwise, bo) = self.int(d);
                let cond = self.boolean(d);
                let otherwise = self.otherwise(otherwise);
                (Expr::Case { subject: None, branches: vec![(cond, then)], otherwise }, bt.max(bo))
            }
            Feature::ShortestPath => match self.shortest_path() {
                Some(p) => (call(Feature::FnLength, vec![p]), 1 << 20),
                None => self.leaf(&Ty::Int),
            },
            Feature::FnLength => {
                let paths: Vec<Var> = self.scope.of_type(&Ty::Path).cloned().collect();
                let p = paths[self.below(paths.len())].name.clone();
                (call(Feature::FnLength, vec![Expr::Variable(p)]), 1 << 20)
            }
            Feature::ListIndex | Feature::FnHead => {
                let items: Vec<Expr> = (0..self.rng_int(1, 3)).map(|_| self.leaf(&Ty::Int).0).collect();
                let list = Expr::List(items);
                self.features.insert(Feature::ListLiteral);
                if choice == Feature::ListIndex {
                    let i = if self.boundary(Feature::BoundaryValues) {
                        if self.deterministic() {
                            self.pick(&[-3, 4, 100])
                        } else {
                            self.pick(&[i64::MAX, i64::MIN, -100])
                        }
                    } else {
                        self.rng_int(-1, 3)
                    };
                    (Expr::Index(Box::new(list), Box::new(Expr::Literal(Value::Int(i)))), BIG)
                } else {
                    (call(Feature::FnHead, vec![list]), BIG)
                }
            }
            Feature::Reduce => {
                let acc = self.names.fresh("acc");
                let x = self.names.fresh("x");
                let items: Vec<Expr> =
                    (0..self.rng_int(1, 3)).map(|_| Expr::Literal(Value::Int(self.rng_int(-5, 9)))).collect();
                let step = Expr::binary(BinOp::Add, Expr::var(&acc), Expr::var(&x));
                (
                    Expr::Reduce {
                        accumulator: acc,
                        init: Box::new(Expr::Literal(Value::Int(0))),
                        variable: x,
                        list: Box::new(Expr::List(items)),
                        step: Box::new(step),
                    },
                    100,
                )
            }
            Feature::FnSign => {
                let (a, _) = self.int(d);
                (call(Feature::FnSign, vec![a]), 1)
            }
            Feature::FnLast => {
                let items: Vec<Expr> = (0..self.rng_int(1, 3)).map(|_| self.leaf(&Ty::Int).0).collect();
                self.features.insert(Feature::ListLiteral);
                (call(Feature::FnLast, vec![Expr::List(items)]), BIG)
            }
            Feature::FnCoalesce => {
                let (a, ba) = self.leaf(&Ty::Int);
                let (b, bb) = self.leaf(&Ty::Int);
                (call(Feature::FnCoalesce, vec![a, b]), ba.max(bb))
            }
            Feature::FnToInteger => {
                let (a, ba) = self.int(d);
                (call(Feature::FnToInteger, vec![a]), ba)
            }
            Feature::FnId => {
                let nodes: Vec<Var> = self.scope.of_type(&Ty::Node).cloned().collect();
                let n = nodes[self.below(nodes.len())].name.clone();
                (call(Feature::FnId, vec![Expr::Variable(n)]), BIG)
            }
            Feature::FnTimestamp => (call(Feature::FnTimestamp, Vec::new()), BIG),
            Feature::FnCharLength => {
                let name = ["char_length", "character_length"][self.below(2)];
                (call_named(Feature::FnCharLength, name, vec![self.string(d)]), 1 << 20)
            }
            Feature::FnNullIf => {
                let (a, ba) = self.int(d);
                let b = self.literal(&Ty::Int);
                (call(Feature::FnNullIf, vec![a, b]), ba)
            }
            Feature::FnOrNull => {
                // Texts every engine reads alike: digits, or not a number at all.
                let arg = match self.below(2) {
                    0 => Expr::Literal(Value::String(["12", "-3", "x", "", "0"][self.below(5)].into())),
                    _ => self.int(d).0,
                };
                (call_named(Feature::FnOrNull, "toIntegerOrNull", vec![arg]), BIG)
            }
            Feature::FnNodes | Feature::FnRelationships => {
                let paths: Vec<Var> = self.scope.of_type(&Ty::Path).cloned().collect();
                let p = paths[self.below(paths.len())].name.clone();
                let f = if choice == Feature::FnNodes { "nodes" } else { "relationships" };
                self.features.insert(Feature::FnSize);
                (call(Feature::FnSize, vec![Expr::Function(f.into(), vec![Expr::Variable(p)])]), 1 << 20)
            }
            other => unreachable!("{other:?} is not in the table of integer expressions"),
        }
    }

    /// A float expression, and whether it is stored data rather than computed.
    pub(super) fn float(&mut self, depth: u32) -> (Expr, bool) {
        if depth >= self.g.config.max_depth || self.coin(0.45) {
            return (self.leaf(&Ty::Float).0, true);
        }
        let options = [
            (Feature::Add, 2),
            (Feature::Subtract, 1),
            (Feature::Multiply, 1),
            (Feature::Divide, 1),
            (Feature::FnToFloat, 2),
            (Feature::FnAbs, 1),
            (Feature::FnFloor, 1),
            (Feature::FnCeil, 1),
            (Feature::Negate, 1),
            (Feature::FnSqrt, 1),
            (Feature::Power, 1),
            (Feature::FnRound, u32::from(self.agreed(SemanticsKey::RoundHalf))),
            (Feature::FnExp, 1),
            (Feature::FnLog, 1),
            (Feature::FnSin, 1),
            (Feature::FnCos, 1),
            (Feature::FnRand, 1),
            (Feature::FnLog10, 1),
            (Feature::FnTan, 1),
            (Feature::FnArc, 1),
            (Feature::FnAngles, 1),
            (Feature::FnConstants, 1),
        ];
        let Some(choice) = self.choose(&options) else { return (self.leaf(&Ty::Float).0, true) };
        let d = depth + 1;
        let e = match choice {
            Feature::Add | Feature::Subtract | Feature::Multiply => {
                let (a, _) = self.float(d);
                let b = if self.coin(0.3) { Expr::Literal(Value::Float(0.5)) } else { self.float(d).0 };
                let op = match choice {
                    Feature::Add => BinOp::Add,
                    Feature::Subtract => BinOp::Sub,
                    _ => BinOp::Mul,
                };
                Expr::binary(op, a, b)
            }
            Feature::Divide => {
                let (a, _) = self.float(d);
                let divisor = [0.5, 2.0, -4.0, 8.0][self.below(4)];
                Expr::binary(BinOp::Div, a, Expr::Literal(Value::Float(divisor)))
            }
            Feature::FnToFloat => {
                let (a, _) = self.int(d);
                call(Feature::FnToFloat, vec![a])
            }
            Feature::FnAbs => call(Feature::FnAbs, vec![self.float(d).0]),
            Feature::FnFloor => call(Feature::FnFloor, vec![self.float(d).0]),
            Feature::FnCeil => call(Feature::FnCeil, vec![self.float(d).0]),
            Feature::Negate => Expr::Negate(Box::new(self.float(d).0)),
            Feature::FnSqrt => call(Feature::FnSqrt, vec![call(Feature::FnAbs, vec![self.float(d).0])]),
            Feature::Power => {
                let (a, _) = self.float(d);
                let exponent = Expr::Literal(Value::Int(self.rng_int(0, 3)));
                Expr::binary(BinOp::Pow, a, exponent)
            }
            Feature::FnRound => call(Feature::FnRound, vec![self.float(d).0]),
            // Transcendental functions on small literals only: libraries agree
            // to the last digits there, and arguments far from zero lose them.
            Feature::FnExp => call(Feature::FnExp, vec![self.small_float()]),
            Feature::FnLog => Expr::Function(
                "log".into(),
                vec![Expr::binary(BinOp::Add, self.small_float_abs(), Expr::Literal(Value::Float(1.0)))],
            ),
            Feature::FnSin => call(Feature::FnSin, vec![self.small_float()]),
            Feature::FnCos => call(Feature::FnCos, vec![self.small_float()]),
            Feature::FnRand => call(Feature::FnRand, Vec::new()),
            Feature::FnLog10 => call(
                Feature::FnLog10,
                vec![Expr::binary(BinOp::Add, self.small_float_abs(), Expr::Literal(Value::Float(1.0)))],
            ),
            // Away from cot's pole at zero.
            Feature::FnTan => {
                let name = ["tan", "cot"][self.below(2)];
                let x = Expr::binary(BinOp::Add, self.small_float_abs(), Expr::Literal(Value::Float(0.25)));
                call_named(Feature::FnTan, name, vec![x])
            }
            // Inside asin's and acos's domain [-1, 1].
            Feature::FnArc => {
                let unit = |b: &mut Self| {
                    Expr::Literal(Value::Float(f64::from(i32::try_from(b.rng_int(-8, 8)).unwrap_or(0)) / 8.0))
                };
                match self.below(4) {
                    0 => call_named(Feature::FnArc, "asin", vec![unit(self)]),
                    1 => call_named(Feature::FnArc, "acos", vec![unit(self)]),
                    2 => call_named(Feature::FnArc, "atan", vec![self.small_float()]),
                    _ => {
                        let y = self.small_float();
                        let x = self.small_float();
                        call_named(Feature::FnArc, "atan2", vec![y, x])
                    }
                }
            }
            Feature::FnAngles => {
                let name = ["degrees", "radians", "haversin"][self.below(3)];
                call_named(Feature::FnAngles, name, vec![self.small_float()])
            }
            Feature::FnConstants => call_named(Feature::FnConstants, ["pi", "e"][self.below(2)], Vec::new()),
            other => unreachable!("{other:?} is not in the table of float expressions"),
        };
        (e, false)
    }

    /// A CASE's ELSE, or none now and then (the CASE is then null when no branch is taken).
    fn otherwise(&mut self, e: Expr) -> Option<Box<Expr>> {
        (!self.chance(Feature::CaseNoElse, 0.25)).then(|| Box::new(e))
    }

    fn small_float(&mut self) -> Expr {
        Expr::Literal(Value::Float(f64::from(i32::try_from(self.rng_int(-20, 20)).unwrap_or(0)) / 8.0))
    }

    fn small_float_abs(&mut self) -> Expr {
        Expr::Literal(Value::Float(f64::from(i32::try_from(self.rng_int(0, 40)).unwrap_or(0)) / 8.0))
    }

    /// Whether `type(v)` may be generated: never of a relationship that may
    /// be null where the profile records that `type(null)` fails (Grafeo).
    fn typeable(&self, v: &Var) -> bool {
        !(v.nullable && self.g.quirks.type_of_null)
    }

    /// A string expression.
    pub(super) fn string(&mut self, depth: u32) -> Expr {
        if depth >= self.g.config.max_depth || self.coin(0.45) {
            return self.leaf(&Ty::String).0;
        }
        let options = [
            (Feature::FnToUpper, 1),
            (Feature::FnToLower, 1),
            (Feature::FnTrim, 1),
            (Feature::FnReplace, 1),
            (Feature::FnSubstring, 1),
            (Feature::FnLeft, 1),
            (Feature::FnRight, 1),
            (Feature::FnReverse, 1),
            (Feature::FnToString, 2),
            (Feature::StringConcat, 2),
            (Feature::CaseSimple, 1),
            (Feature::FnLTrim, 1),
            (Feature::FnRTrim, 1),
            (Feature::FnType, u32::from(self.scope.of_type(&Ty::Rel).any(|v| self.typeable(v)))),
            (Feature::FnCoalesce, 1),
            (Feature::FnLowerUpper, 1),
            (Feature::FnBTrim, 1),
            (Feature::FnNormalize, 1),
            (Feature::FnOrNull, 1),
        ];
        let lengths = u32::from(self.agreed(SemanticsKey::StringLength));
        let options = options.map(|(f, w)| match f {
            Feature::FnSubstring | Feature::FnLeft | Feature::FnRight | Feature::FnReverse => (f, w * lengths),
            Feature::StringConcat => (f, w * u32::from(self.agreed(SemanticsKey::StringConcatNull))),
            Feature::CaseSimple => (f, w * u32::from(self.agreed(SemanticsKey::CaseNullWhenNull))),
            _ => (f, w),
        });
        let Some(choice) = self.choose(&options) else { return self.leaf(&Ty::String).0 };
        let d = depth + 1;
        let small = |b: &mut Self, lo: i64, hi: i64| Expr::Literal(Value::Int(b.rng_int(lo, hi)));
        match choice {
            Feature::FnToUpper => call(Feature::FnToUpper, vec![self.string(d)]),
            Feature::FnToLower => call(Feature::FnToLower, vec![self.string(d)]),
            Feature::FnTrim => call(Feature::FnTrim, vec![self.string(d)]),
            Feature::FnReplace => {
                let s = self.string(d);
                let from = Expr::Literal(Value::String(["a", "b", "'"][self.below(3)].into()));
                let to = Expr::Literal(Value::String(["", "z", "ab"][self.below(3)].into()));
                call(Feature::FnReplace, vec![s, from, to])
            }
            Feature::FnSubstring => {
                let s = self.string(d);
                let (start, len) = if self.boundary(Feature::BoundaryValues) {
                    // Past the end, and past 32 bits where answers are not
                    // compared; never negative, which openCypher makes an error.
                    let far = if self.deterministic() { 100 } else { self.pick(&[4_294_967_297, i64::MAX, 100]) };
                    if self.coin(0.5) {
                        (Expr::Literal(Value::Int(far)), small(self, 0, 3))
                    } else {
                        (small(self, 0, 2), Expr::Literal(Value::Int(far)))
                    }
                } else {
                    (small(self, 0, 2), small(self, 0, 3))
                };
                call(Feature::FnSubstring, vec![s, start, len])
            }
            Feature::FnLeft | Feature::FnRight => {
                let s = self.string(d);
                let n = if self.boundary(Feature::BoundaryValues) {
                    Expr::Literal(Value::Int(100))
                } else {
                    small(self, 0, 3)
                };
                call(choice, vec![s, n])
            }
            Feature::FnReverse => call(Feature::FnReverse, vec![self.string(d)]),
            Feature::FnToString => {
                let (a, _) = self.int(d);
                call(Feature::FnToString, vec![a])
            }
            Feature::StringConcat => Expr::binary(BinOp::Add, self.string(d), self.string(d)),
            Feature::CaseSimple => {
                let subject = self.string(d);
                let when = self.literal(&Ty::String);
                let then = self.string(d);
                let mut branches = vec![(when, then.clone())];
                // Now and then a second value with the same result, which
                // GQL lets one WHEN list: `WHEN 'a', 'b' THEN r`.
                if self.on(Feature::CaseWhenList) && self.coin(0.25) {
                    branches.push((self.literal(&Ty::String), then));
                }
                let otherwise = self.string(d);
                let otherwise = self.otherwise(otherwise);
                Expr::Case { subject: Some(Box::new(subject)), branches, otherwise }
            }
            Feature::FnLTrim => call(Feature::FnLTrim, vec![self.string(d)]),
            Feature::FnRTrim => call(Feature::FnRTrim, vec![self.string(d)]),
            Feature::FnType => {
                let rels: Vec<Var> = self.scope.of_type(&Ty::Rel).filter(|v| self.typeable(v)).cloned().collect();
                let r = rels[self.below(rels.len())].name.clone();
                call(Feature::FnType, vec![Expr::Variable(r)])
            }
            Feature::FnCoalesce => {
                let a = self.leaf(&Ty::String).0;
                let b = self.literal(&Ty::String);
                call(Feature::FnCoalesce, vec![a, b])
            }
            Feature::FnLowerUpper => {
                let name = ["lower", "upper"][self.below(2)];
                call_named(Feature::FnLowerUpper, name, vec![self.string(d)])
            }
            Feature::FnBTrim => {
                let chars = Expr::Literal(Value::String(["a", "ab", " ", ""][self.below(4)].into()));
                call(Feature::FnBTrim, vec![self.string(d), chars])
            }
            Feature::FnNormalize => call(Feature::FnNormalize, vec![self.string(d)]),
            // Not of a float: engines write floats differently.
            Feature::FnOrNull => {
                let arg = match self.below(3) {
                    0 => self.int(d).0,
                    1 => self.boolean(d),
                    _ => self.string(d),
                };
                call_named(Feature::FnOrNull, "toStringOrNull", vec![arg])
            }
            other => unreachable!("{other:?} is not in the table of string expressions"),
        }
    }

    /// A predicate.
    pub(super) fn boolean(&mut self, depth: u32) -> Expr {
        if depth >= self.g.config.max_depth {
            return self.leaf(&Ty::Bool).0;
        }
        let has_anchor = self.scope.of_type(&Ty::Node).any(|v| !v.nullable);
        let options = [
            (Feature::Compare, 6),
            (Feature::Equality, 4),
            (Feature::And, 2),
            (Feature::Or, 3),
            (Feature::Xor, 1),
            (Feature::Not, 1),
            (Feature::IsNull, 2),
            (Feature::InList, 2),
            (Feature::StartsWith, 1),
            (Feature::EndsWith, 1),
            (Feature::Contains, 1),
            (Feature::Regex, 1),
            (Feature::Quantifier, 1),
            (Feature::ExistsSubquery, u32::from(has_anchor)),
            (Feature::PatternPredicate, u32::from(has_anchor && self.in_where)),
            (Feature::LabelPredicate, u32::from(has_anchor)),
            (Feature::CaseGeneric, 1),
            (Feature::FnToBoolean, 1),
            (Feature::FnIsNaN, 1),
            (Feature::FnIsEmpty, 1),
            (Feature::FnOrNull, 1),
            (Feature::ChainedComparison, 1),
            (Feature::ShortestPath, u32::from(self.may_shortest_path())),
        ];
        let Some(choice) = self.choose(&options) else { return self.leaf(&Ty::Bool).0 };
        let d = depth + 1;
        match choice {
            Feature::Compare | Feature::Equality => self.comparison(choice == Feature::Equality, d),
            Feature::And => Expr::binary(BinOp::And, self.boolean(d), self.boolean(d)),
            Feature::Or => Expr::binary(BinOp::Or, self.boolean(d), self.boolean(d)),
            Feature::Xor => Expr::binary(BinOp::Xor, self.boolean(d), self.boolean(d)),
            Feature::Not => Expr::Not(Box::new(self.boolean(d))),
            Feature::IsNull => {
                let ty = self.scalar_type();
                let e = self.expr(&ty, d);
                Expr::IsNull { expr: Box::new(e), negated: self.coin(0.5) }
            }
            Feature::InList => {
                let ty = if self.coin(0.7) { Ty::Int } else { Ty::String };
                let needle = self.expr(&ty, d);
                // `[]` only where its element type is not needed.
                let hay = if self.boundary(Feature::DegenerateForms) {
                    Expr::List(Vec::new())
                } else if self.coin(0.6) {
                    let n = self.rng_int(1, 4);
                    self.features.insert(Feature::ListLiteral);
                    Expr::List((0..n).map(|_| self.literal(&ty)).collect())
                } else {
                    self.list(&ty, d)
                };
                Expr::binary(BinOp::In, needle, hay)
            }
            Feature::StartsWith | Feature::EndsWith | Feature::Contains => {
                let op = match choice {
                    Feature::StartsWith => BinOp::StartsWith,
                    Feature::EndsWith => BinOp::EndsWith,
                    _ => BinOp::Contains,
                };
                let s = self.string(d);
                let parts: &[&str] = if op == BinOp::Contains && self.g.quirks.contains_empty_string {
                    &["a", "b", "ab"]
                } else {
                    &["a", "b", "", "ab"]
                };
                let part = Expr::Literal(Value::String(parts[self.below(parts.len())].into()));
                Expr::binary(op, s, part)
            }
            Feature::Regex => {
                let s = self.string(d);
                let re = ["a.*", ".*b", "[ab]+", ".*"][self.below(4)];
                Expr::binary(BinOp::Regex, s, Expr::Literal(Value::String(re.into())))
            }
            Feature::Quantifier => {
                let q = [Quantifier::All, Quantifier::Any, Quantifier::None, Quantifier::Single][self.below(4)];
                let x = self.names.fresh("x");
                // Literals only: engines disagree on quantifiers over null.
                let n = self.rng_int(1, 4);
                let list = Expr::List((0..n).map(|_| Expr::Literal(Value::Int(self.rng_int(-3, 20)))).collect());
                let op = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq][self.below(5)];
                let predicate = Expr::binary(op, Expr::var(&x), Expr::Literal(Value::Int(self.rng_int(-3, 20))));
                Expr::Quantified { quantifier: q, variable: x, list: Box::new(list), predicate: Box::new(predicate) }
            }
            Feature::ExistsSubquery => match self.anchored_pattern() {
                Some(p) => Expr::ExistsSubquery(Box::new(p), None),
                None => self.leaf(&Ty::Bool).0,
            },
            Feature::PatternPredicate => match self.anchored_pattern() {
                Some(p) => Expr::PatternPredicate(Box::new(p)),
                None => self.leaf(&Ty::Bool).0,
            },
            Feature::ShortestPath => match self.shortest_path() {
                Some(p) => Expr::IsNull { expr: Box::new(p), negated: self.coin(0.5) },
                None => self.leaf(&Ty::Bool).0,
            },
            Feature::LabelPredicate => {
                let labels = self.schema().labels.len();
                match self.bound_node() {
                    Some(v) if labels > 0 => {
                        let i = rand::Rng::random_range(&mut *self.rng, 0..labels);
                        let first = self.schema().labels[i].name.clone();
                        // Now and then two labels, both (`n:A:B`) or either
                        // (`n:A OR n:B`), or none (`NOT n:A`), as a label
                        // expression may spell them.
                        let j = (i + 1 + self.below(labels.max(2) - 1)) % labels;
                        let second = self.schema().labels[j].name.clone();
                        match self.below(8) {
                            0 if j != i => Expr::HasLabels(v.name, vec![first, second]),
                            1 if j != i => Expr::binary(
                                BinOp::Or,
                                Expr::HasLabels(v.name.clone(), vec![first]),
                                Expr::HasLabels(v.name, vec![second]),
                            ),
                            2 if self.on(Feature::Not) => {
                                self.features.insert(Feature::Not);
                                Expr::Not(Box::new(Expr::HasLabels(v.name, vec![first])))
                            }
                            _ => Expr::HasLabels(v.name, vec![first]),
                        }
                    }
                    _ => self.leaf(&Ty::Bool).0,
                }
            }
            Feature::CaseGeneric => {
                let cond = self.boolean(d);
                let then = self.boolean(d);
                let otherwise = self.boolean(d);
                let otherwise = self.otherwise(otherwise);
                Expr::Case { subject: None, branches: vec![(cond, then)], otherwise }
            }
            Feature::FnToBoolean => call(Feature::FnToBoolean, vec![self.boolean(d)]),
            Feature::FnIsNaN => call(Feature::FnIsNaN, vec![self.float(d).0]),
            // `a op b op c`: the middle operand a leaf, so writing it once
            // (chained) or twice (AND) evaluates the same.
            Feature::ChainedComparison => {
                let ty = if self.coin(0.7) { Ty::Int } else { Ty::String };
                let ops = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne];
                let a = self.expr(&ty, d);
                let (b, _) = self.leaf(&ty);
                let c = self.expr(&ty, d);
                let (op1, op2) = (ops[self.below(6)], ops[self.below(6)]);
                self.chains = true;
                Expr::binary(BinOp::And, Expr::binary(op1, a, b.clone()), Expr::binary(op2, b, c))
            }
            Feature::FnIsEmpty => {
                let arg = if self.boundary(Feature::DegenerateForms) {
                    Expr::List(Vec::new())
                } else if self.coin(0.5) {
                    self.string(d)
                } else {
                    self.list(&Ty::Int, d)
                };
                call(Feature::FnIsEmpty, vec![arg])
            }
            Feature::FnOrNull => {
                let arg = match self.below(2) {
                    0 => Expr::Literal(Value::String(["true", "false", "x", "TRUE", ""][self.below(5)].into())),
                    _ => self.boolean(d),
                };
                call_named(Feature::FnOrNull, "toBooleanOrNull", vec![arg])
            }
            other => unreachable!("{other:?} is not in the table of boolean expressions"),
        }
    }

    /// `a op b` over one scalar type; no equality on computed floats when
    /// the query must be deterministic.
    fn comparison(&mut self, equality: bool, d: u32) -> Expr {
        // Mostly a stored property against a value it takes somewhere in the
        // graph, so predicates select some rows rather than none or all.
        if self.coin(0.65)
            && let Some((prop, owners, key)) = self.some_property()
        {
            let ty = self.key_type(&key);
            let exact = ty != Ty::Float || self.agreed(SemanticsKey::FloatEquality);
            let op = if equality && exact {
                if self.coin(0.6) { BinOp::Eq } else { BinOp::Ne }
            } else if ty == Ty::Bool {
                BinOp::Eq
            } else {
                [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge][self.below(4)]
            };
            let value = self.graph_value_on(&owners, &key);
            return Expr::binary(op, prop, Expr::Literal(value));
        }
        let ty = self.scalar_type();
        let op = if equality {
            if self.coin(0.7) { BinOp::Eq } else { BinOp::Ne }
        } else {
            [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge][self.below(4)]
        };
        let (a, b) = match ty {
            Ty::Float => {
                let (a, stored_a) = self.float(d);
                let (b, stored_b) = if self.coin(0.6) { (self.literal(&Ty::Float), true) } else { self.float(d) };
                let exact = self.agreed(SemanticsKey::FloatEquality);
                if equality && self.deterministic() && !(stored_a && stored_b && exact) {
                    return self.comparison(false, d);
                }
                (a, b)
            }
            Ty::Bool if !equality => return self.comparison(true, d),
            _ => {
                let a = self.expr(&ty, d);
                let b = if self.coin(0.6) { self.literal(&ty) } else { self.expr(&ty, d) };
                (a, b)
            }
        };
        Expr::binary(op, a, b)
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
    fn counted_list(&mut self, depth: u32) -> Expr {
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
    fn map_projection_with(&mut self, n: Var, depth: u32) -> Expr {
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
    fn map(&mut self, depth: u32) -> Expr {
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
