//! Integers, floats and strings: each drawn from the graph's values, the
//! properties in scope and the functions the dialect has.

use graphlancer_model::Value;

use crate::ast::{BinOp, Expr};
use crate::feature::Feature;
use crate::functions::{call, call_named};
use crate::profile::SemanticsKey;
use crate::types::{BIG, Ty, Var};

use super::Builder;

/// Integers beyond this bound are not produced by arithmetic.
const SAFE: u64 = 1 << 62;

impl<'g> Builder<'g, '_> {
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
            (Feature::FnTrimChars, 1),
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
            Feature::FnTrimChars => {
                let name = ["ltrim", "rtrim"][self.below(2)];
                // Not '': ArcadeDB then trims whitespace, where Neo4j 5 trims nothing.
                let chars = Expr::Literal(Value::String(["a", "ab", " "][self.below(3)].into()));
                call_named(Feature::FnTrimChars, name, vec![self.string(d), chars])
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
}
