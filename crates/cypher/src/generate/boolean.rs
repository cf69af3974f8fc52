//! Predicates: comparisons, boolean operators, list and string tests, and
//! the pattern predicates a WHERE may hold.

use graphlancer_model::Value;

use crate::ast::{BinOp, Expr, Quantifier};
use crate::feature::Feature;
use crate::functions::{call, call_named};
use crate::profile::SemanticsKey;
use crate::types::Ty;

use super::Builder;

impl<'g> Builder<'g, '_> {
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
        // Neo4j 5 takes a pattern as a predicate only where a boolean is
        // wanted: under AND, OR, XOR and NOT, not as an operand of `=` (which
        // takes any type; `(n)-->() = true` is a SyntaxError) or a value.
        let boolean_context = matches!(choice, Feature::And | Feature::Or | Feature::Xor | Feature::Not);
        let in_where = self.in_where;
        self.in_where = in_where && boolean_context;
        let e = self.boolean_of(choice, depth + 1);
        self.in_where = in_where;
        e
    }

    /// A predicate of kind `choice`, its operands at depth `d`.
    fn boolean_of(&mut self, choice: Feature, d: u32) -> Expr {
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
    pub(super) fn comparison(&mut self, equality: bool, d: u32) -> Expr {
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
}
