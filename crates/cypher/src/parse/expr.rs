//! Lowering expressions: operators, functions, literals and the subqueries
//! an expression may hold.

use graphlancer_model::Value;
use open_cypher::ast as oc;

use crate::ast::{BinOp, Clause, Expr, Quantifier, SingleQuery};

use super::Lower;
use super::{Lowered, ParseError, canonical_function, is_comparison, literal, name, outside};

impl Lower<'_> {
    pub(super) fn boxed(&self, e: &oc::Expr) -> Lowered<Box<Expr>> {
        self.expr(e).map(Box::new)
    }

    pub(super) fn expr(&self, e: &oc::Expr) -> Lowered<Expr> {
        Ok(match &e.kind {
            oc::ExprKind::Literal(l) => Expr::Literal(literal(l, false)?),
            oc::ExprKind::Variable(v) => Expr::Variable(name(v)),
            oc::ExprKind::Parameter(_) => return outside("a parameter"),
            oc::ExprKind::List(items) => Expr::List(items.iter().map(|i| self.expr(i)).collect::<Lowered<_>>()?),
            oc::ExprKind::Map(_) => Expr::Map(self.map_entries(e)?),
            oc::ExprKind::MapProjection(m) => {
                let oc::ExprKind::Variable(v) = &m.base.kind else {
                    return outside("a map projection of an expression");
                };
                let (mut keys, mut entries) = (Vec::new(), Vec::new());
                for i in &m.items {
                    match &i.kind {
                        oc::MapProjectionItemKind::Property(k) if entries.is_empty() => keys.push(name(k)),
                        oc::MapProjectionItemKind::Variable(x) => entries.push((name(x), Expr::Variable(name(x)))),
                        oc::MapProjectionItemKind::Entry(e) => entries.push((name(&e.key), self.expr(&e.value)?)),
                        _ => return outside("a map projection with `.*`, or `.key` after an entry"),
                    }
                }
                if entries.is_empty() {
                    Expr::MapProjection(name(v), keys)
                } else {
                    Expr::MapProjectionWith { base: name(v), keys, entries }
                }
            }
            oc::ExprKind::Unary { operator, operand } => match operator.kind {
                oc::UnaryOperator::Minus => match &operand.kind {
                    // `-9223372036854775808` is a literal, not the negation of one out of range.
                    oc::ExprKind::Literal(l) => Expr::Literal(literal(l, true)?),
                    _ => Expr::Negate(self.boxed(operand)?),
                },
                oc::UnaryOperator::Not => Expr::Not(self.boxed(operand)?),
                // `+5`, as the unary-plus spelling writes a number.
                oc::UnaryOperator::Plus => match &operand.kind {
                    oc::ExprKind::Literal(l) => match literal(l, false)? {
                        v @ (Value::Int(_) | Value::Float(_)) => Expr::Literal(v),
                        _ => return outside("unary plus of a literal that is not a number"),
                    },
                    _ => return outside("unary plus of an expression"),
                },
                _ => return outside("a unary operator"),
            },
            oc::ExprKind::Binary { left, operator, right } => {
                let op = binary_op(&operator.kind)?;
                // `a < b <= c` is a chain: `a < b AND b <= c`.
                if let (true, oc::ExprKind::Binary { right: middle, operator: inner, .. }) =
                    (is_comparison(op), &left.kind)
                    && is_comparison(binary_op(&inner.kind)?)
                {
                    return Ok(Expr::binary(
                        BinOp::And,
                        self.expr(left)?,
                        Expr::binary(op, self.expr(middle)?, self.expr(right)?),
                    ));
                }
                Expr::binary(op, self.expr(left)?, self.expr(right)?)
            }
            oc::ExprKind::Is { expression, negated, predicate } => match predicate {
                oc::IsPredicate::Null => Expr::IsNull { expr: self.boxed(expression)?, negated: *negated },
                oc::IsPredicate::Label(l) => {
                    let oc::ExprKind::Variable(v) = &expression.kind else {
                        return outside("a label test on an expression");
                    };
                    let test = self.label_test(&name(v), l)?;
                    if *negated { Expr::Not(Box::new(test)) } else { test }
                }
                _ => return outside("IS typed or IS NORMALIZED"),
            },
            oc::ExprKind::Property { expression, key } => Expr::Property(self.boxed(expression)?, name(key)),
            oc::ExprKind::Index { expression, index } => Expr::Index(self.boxed(expression)?, self.boxed(index)?),
            oc::ExprKind::Slice { expression, lower, upper } => Expr::Slice(
                self.boxed(expression)?,
                lower.as_ref().map(|l| self.boxed(l)).transpose()?,
                upper.as_ref().map(|u| self.boxed(u)).transpose()?,
            ),
            oc::ExprKind::Function(f) => self.function(f)?,
            oc::ExprKind::Case(c) => {
                let mut branches = Vec::new();
                for alt in &c.alternatives {
                    let [when] = alt.when.as_slice() else { return outside("CASE WHEN with several values") };
                    branches.push((self.expr(when)?, self.expr(&alt.then)?));
                }
                Expr::Case {
                    subject: c.operand.as_ref().map(|s| self.boxed(s)).transpose()?,
                    branches,
                    otherwise: c.else_expression.as_ref().map(|s| self.boxed(s)).transpose()?,
                }
            }
            oc::ExprKind::ListComprehension(l) => Expr::ListComprehension {
                variable: name(&l.variable),
                list: self.boxed(&l.list)?,
                filter: l.predicate.as_ref().map(|p| self.boxed(p)).transpose()?,
                map: l.projection.as_ref().map(|p| self.boxed(p)).transpose()?,
            },
            oc::ExprKind::PatternComprehension(p) => {
                let [part] = p.pattern.parts.as_slice() else {
                    return outside("a comprehension over several patterns");
                };
                if p.binding.is_some() {
                    return outside("a named path in a pattern comprehension");
                }
                Expr::PatternComprehension {
                    pattern: Box::new(self.part(part)?),
                    filter: p.predicate.as_ref().map(|f| self.boxed(f)).transpose()?,
                    map: self.boxed(&p.projection)?,
                }
            }
            oc::ExprKind::Reduce(r) => Expr::Reduce {
                accumulator: name(&r.accumulator),
                init: self.boxed(&r.initial)?,
                variable: name(&r.variable),
                list: self.boxed(&r.list)?,
                step: self.boxed(&r.expression)?,
            },
            oc::ExprKind::QuantifiedPredicate(q) => Expr::Quantified {
                quantifier: match q.kind.kind {
                    oc::QuantifiedPredicateKind::All => Quantifier::All,
                    oc::QuantifiedPredicateKind::Any => Quantifier::Any,
                    oc::QuantifiedPredicateKind::None => Quantifier::None,
                    oc::QuantifiedPredicateKind::Single => Quantifier::Single,
                    _ => return outside("a quantifier"),
                },
                variable: name(&q.variable),
                list: self.boxed(&q.list)?,
                predicate: self.boxed(&q.predicate)?,
            },
            oc::ExprKind::Subquery(s) => self.exists(s)?,
            oc::ExprKind::Pattern(p) => {
                let [part] = p.parts.as_slice() else { return outside("a predicate over several patterns") };
                Expr::PatternPredicate(Box::new(self.part(part)?))
            }
            oc::ExprKind::Parenthesized(inner) => self.expr(inner)?,
            _ => return outside(format!("the expression `{}`", self.source(e.span))),
        })
    }

    pub(super) fn function(&self, f: &oc::FunctionInvocation) -> Lowered<Expr> {
        let written = f.name.parts.iter().map(name).collect::<Vec<_>>().join(".");
        let fname = canonical_function(&written);
        let distinct = matches!(f.quantifier.as_ref().map(|q| &q.kind), Some(oc::SetQuantifier::Distinct));
        if crate::functions::aggregate(&fname).is_some() {
            let percentiles = fname.starts_with("percentile");
            let (arg, percentile) = match f.arguments.as_slice() {
                [a] if matches!(a.kind, oc::ExprKind::Wildcard) => (None, None),
                [a] if !percentiles => (Some(self.boxed(a)?), None),
                // The AST holds a percentile that is a number written out.
                [a, p] if percentiles => match self.expr(p)? {
                    Expr::Literal(Value::Float(p)) => (Some(self.boxed(a)?), Some(p)),
                    #[allow(clippy::cast_precision_loss)]
                    Expr::Literal(Value::Int(p)) => (Some(self.boxed(a)?), Some(p as f64)),
                    _ => return outside(format!("{fname} with a percentile that is not a number")),
                },
                _ => return outside(format!("{fname} with {} arguments", f.arguments.len())),
            };
            if arg.is_none() && (fname != "count" || distinct) {
                return Err(ParseError::Syntax(format!("{fname}(*)")));
            }
            return Ok(Expr::Aggregate { name: fname, distinct, arg, percentile });
        }
        if distinct {
            return Err(ParseError::Syntax(format!("DISTINCT in {fname}(), which is not an aggregate")));
        }
        if fname.eq_ignore_ascii_case("shortestPath") {
            return match f.arguments.as_slice() {
                [oc::Node { kind: oc::ExprKind::Pattern(p), .. }] if p.parts.len() == 1 => {
                    Ok(Expr::ShortestPath(Box::new(self.part(&p.parts[0])?)))
                }
                _ => outside("shortestPath() of more than one pattern"),
            };
        }
        if fname == "exists" {
            return match f.arguments.as_slice() {
                [oc::Node { kind: oc::ExprKind::Pattern(p), .. }] if p.parts.len() == 1 => {
                    Ok(Expr::PatternPredicate(Box::new(self.part(&p.parts[0])?)))
                }
                _ => outside("exists() of a property"),
            };
        }
        Ok(Expr::Function(fname, f.arguments.iter().map(|a| self.expr(a)).collect::<Lowered<_>>()?))
    }

    /// `EXISTS { MATCH pattern [WHERE p] }` or `EXISTS { pattern [WHERE p] }`.
    pub(super) fn exists(&self, s: &oc::SubqueryExpression) -> Lowered<Expr> {
        if !matches!(s.kind.kind, oc::SubqueryExpressionKind::Exists) {
            return outside("COUNT or COLLECT subqueries");
        }
        let q = self.query(&s.query)?;
        match q.parts.as_slice() {
            [SingleQuery { clauses }] => match clauses.as_slice() {
                [Clause::Match { optional: false, patterns, predicate, .. }] if patterns.len() == 1 => {
                    Ok(Expr::ExistsSubquery(Box::new(patterns[0].clone()), predicate.clone().map(Box::new)))
                }
                _ => outside("an EXISTS subquery other than one MATCH of one pattern"),
            },
            _ => outside("UNION inside EXISTS"),
        }
    }
}

pub(super) fn binary_op(op: &oc::BinaryOperator) -> Lowered<BinOp> {
    Ok(match op {
        oc::BinaryOperator::Or => BinOp::Or,
        oc::BinaryOperator::Xor => BinOp::Xor,
        oc::BinaryOperator::And => BinOp::And,
        oc::BinaryOperator::Equal => BinOp::Eq,
        oc::BinaryOperator::NotEqual => BinOp::Ne,
        oc::BinaryOperator::Less => BinOp::Lt,
        oc::BinaryOperator::LessEqual => BinOp::Le,
        oc::BinaryOperator::Greater => BinOp::Gt,
        oc::BinaryOperator::GreaterEqual => BinOp::Ge,
        oc::BinaryOperator::RegexMatch => BinOp::Regex,
        oc::BinaryOperator::In => BinOp::In,
        oc::BinaryOperator::StartsWith => BinOp::StartsWith,
        oc::BinaryOperator::EndsWith => BinOp::EndsWith,
        oc::BinaryOperator::Contains => BinOp::Contains,
        oc::BinaryOperator::Add => BinOp::Add,
        oc::BinaryOperator::Subtract => BinOp::Sub,
        oc::BinaryOperator::Multiply => BinOp::Mul,
        oc::BinaryOperator::Divide => BinOp::Div,
        oc::BinaryOperator::Remainder => BinOp::Mod,
        oc::BinaryOperator::Power => BinOp::Pow,
        oc::BinaryOperator::Concat => return outside("the || operator"),
        _ => return outside("a binary operator"),
    })
}
