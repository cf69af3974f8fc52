//! Operands whose type is known before a query runs, because they are
//! literals (or variables and list elements bound to literals), and that an
//! operator cannot take: Neo4j 5 refuses such a query at compile time
//! (TCK `Boolean1`–`Boolean4`, `List5` [42], `Quantifier1`–`4`: a
//! SyntaxError InvalidArgumentType; `Map1` [6], `Graph6` [9]: a TypeError
//! for a property read of a value that is no map).

use std::collections::BTreeMap;

use graphlancer_model::Value;

use crate::ast::{BinOp, Clause, Expr, Query};

/// What does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrong {
    /// An operand of an operator.
    Operand,
    /// A property read of a value that is no map.
    Property,
}

/// A type known before running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Null,
    Bool,
    Int,
    Float,
    String,
    List,
    Map,
}

type Env = BTreeMap<String, Known>;

/// The first operand of `query` of a type its operator cannot take.
pub(super) fn wrong_operand(query: &Query) -> Option<Wrong> {
    query.parts.iter().find_map(|part| clauses(&part.clauses, &mut Env::new()))
}

fn clauses(clauses: &[Clause], env: &mut Env) -> Option<Wrong> {
    for c in clauses {
        let found = match c {
            Clause::With(p) | Clause::Return(p) => {
                let mut found = p.items.iter().find_map(|(e, _)| expr(e, env).err());
                let bound: Env = p.items.iter().filter_map(|(e, a)| Some((a.clone(), expr(e, env).ok()??))).collect();
                if !p.star {
                    env.clear();
                }
                env.extend(bound);
                let later = p.predicate.iter().chain(p.order_by.iter().map(|(e, _)| e));
                found = found.or_else(|| later.into_iter().find_map(|e| expr(e, env).err()));
                found
            }
            Clause::Unwind { list, alias } => {
                let found = expr(list, env).err();
                match element(list) {
                    Some(t) => env.insert(alias.clone(), t),
                    None => env.remove(alias),
                };
                found
            }
            Clause::Match { patterns, guard, predicate, .. } => {
                // A pattern's variables are entities whatever they were.
                for v in patterns.iter().flat_map(crate::ast::PathPattern::variables) {
                    env.remove(v);
                }
                guard.iter().chain(predicate).find_map(|e| expr(e, env).err())
            }
            // Writes and subqueries: nothing is known of what they bind.
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn of_value(v: &Value) -> Option<Known> {
    Some(match v {
        Value::Null => Known::Null,
        Value::Bool(_) => Known::Bool,
        Value::Int(_) => Known::Int,
        Value::Float(_) => Known::Float,
        Value::String(_) => Known::String,
        Value::List(_) => Known::List,
        Value::Map(_) => Known::Map,
        _ => return None,
    })
}

/// The type every element of a literal list shares, nulls aside.
fn element(list: &Expr) -> Option<Known> {
    let types: Vec<Option<Known>> = match list {
        Expr::Literal(Value::List(items)) => items.iter().map(of_value).collect(),
        Expr::List(items) => items.iter().map(|e| if let Expr::Literal(v) = e { of_value(v) } else { None }).collect(),
        _ => return None,
    };
    let mut known = types.into_iter().filter(|t| *t != Some(Known::Null));
    let first = known.next()??;
    known.all(|t| t == Some(first)).then_some(first)
}

/// The type `e` has before running, if it is known; a refusal where an
/// operand's known type does not fit.
fn expr(e: &Expr, env: &Env) -> Result<Option<Known>, Wrong> {
    let wrong = Err(Wrong::Operand);
    let boolean = |t: Option<Known>| t.is_none_or(|t| matches!(t, Known::Bool | Known::Null));
    Ok(match e {
        Expr::Literal(v) => of_value(v),
        Expr::List(items) => {
            items.iter().try_for_each(|i| expr(i, env).map(drop))?;
            Some(Known::List)
        }
        Expr::Map(entries) => {
            entries.iter().try_for_each(|(_, i)| expr(i, env).map(drop))?;
            Some(Known::Map)
        }
        Expr::Variable(v) => env.get(v).copied(),
        Expr::Not(x) => {
            if !boolean(expr(x, env)?) {
                return wrong;
            }
            Some(Known::Bool)
        }
        Expr::Binary(op, a, b) => {
            let (ta, tb) = (expr(a, env)?, expr(b, env)?);
            match op {
                BinOp::And | BinOp::Or | BinOp::Xor => {
                    if !boolean(ta) || !boolean(tb) {
                        return wrong;
                    }
                    Some(Known::Bool)
                }
                BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::Pow => {
                    let number =
                        |t: Option<Known>| t.is_none_or(|t| matches!(t, Known::Int | Known::Float | Known::Null));
                    if !number(ta) || !number(tb) {
                        return wrong;
                    }
                    None
                }
                BinOp::In => {
                    if tb.is_some_and(|t| !matches!(t, Known::List | Known::Null)) {
                        return wrong;
                    }
                    None
                }
                _ => None,
            }
        }
        Expr::Property(base, _) => {
            if expr(base, env)?.is_some_and(|t| !matches!(t, Known::Map | Known::Null)) {
                return Err(Wrong::Property);
            }
            None
        }
        Expr::Quantified { variable, list, predicate, .. } => {
            expr(list, env)?;
            let mut inner = env.clone();
            match element(list) {
                Some(t) => inner.insert(variable.clone(), t),
                None => inner.remove(variable),
            };
            expr(predicate, &inner)?;
            Some(Known::Bool)
        }
        Expr::ListComprehension { variable, .. } | Expr::Reduce { variable, .. } => {
            // The element variable shadows an outer one of its name.
            let mut inner = env.clone();
            inner.remove(variable);
            if let Expr::Reduce { accumulator, .. } = e {
                inner.remove(accumulator);
            }
            e.children().into_iter().try_for_each(|c| expr(c, &inner).map(drop))?;
            None
        }
        other => {
            other.children().into_iter().try_for_each(|c| expr(c, env).map(drop))?;
            None
        }
    })
}
