//! Expressions: the value of one expression in one row, with Cypher's
//! three-valued logic and its rules for nulls, overflow and types.

use std::collections::BTreeMap;

use graphlancer_cypher::ast::{BinOp, Expr, Quantifier};

use crate::state::{Ev, Row};
use crate::store::from_value;
use crate::value::{V, compare, equals};
use crate::{ErrorClass, Failure, FailureKind};

impl Ev<'_> {
    /// `v{.k, e: x}`: null for a null `v`, else the selected properties and
    /// then the entries.
    fn projected(&self, v: &str, keys: &[String], entries: &[(String, Expr)], row: &Row) -> Result<V, Failure> {
        let base = self.lookup(v, row)?;
        if base.is_null() {
            return Ok(V::Null);
        }
        let mut m = BTreeMap::new();
        for k in keys {
            m.insert(k.clone(), self.property(base.clone(), k)?);
        }
        for (k, e) in entries {
            m.insert(k.clone(), self.expr(e, row)?);
        }
        Ok(V::Map(m))
    }

    /// Whether `cond` is true (null and false both drop the row).
    pub(crate) fn holds(&self, cond: Option<&Expr>, row: &Row) -> Result<bool, Failure> {
        match cond {
            None => Ok(true),
            Some(c) => Ok(self.expr(c, row)?.truth()? == Some(true)),
        }
    }

    pub(crate) fn property(&self, v: V, k: &str) -> Result<V, Failure> {
        Ok(match v {
            V::Null => V::Null,
            V::Node(n) => self.store.node(n)?.props.get(k).cloned().unwrap_or(V::Null),
            V::Rel(r) => self.store.rel(r)?.props.get(k).cloned().unwrap_or(V::Null),
            V::Map(m) => m.get(k).cloned().unwrap_or(V::Null),
            other => return Err(Failure::runtime(format!("property {k} of a {}", other.kind()))),
        })
    }

    /// The value of `e` in `row`.
    pub(crate) fn expr(&self, e: &Expr, row: &Row) -> Result<V, Failure> {
        match e {
            Expr::Literal(v) => from_value(v),
            Expr::Variable(v) => self.lookup(v, row),
            Expr::Property(a, k) => self.property(self.expr(a, row)?, k),
            Expr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => self.logical(*op, a, b, row),
            // Ids are each engine's own, but two compared for (in)equality
            // only tell whether the entities are one (Kuzu's uniqueness
            // guards, `id(r0) <> id(r1)`).
            Expr::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) if id_of(a).is_some() && id_of(b).is_some() => {
                let entity = |e: &Expr| id_of(e).map_or(Ok(V::Null), |x| self.expr(x, row));
                match (entity(a)?, entity(b)?) {
                    (V::Null, _) | (_, V::Null) => Ok(V::Null),
                    (V::Node(x), V::Node(y)) | (V::Rel(x), V::Rel(y)) => Ok(V::Bool((x == y) == (*op == BinOp::Eq))),
                    (V::Node(_), V::Rel(_)) | (V::Rel(_), V::Node(_)) => {
                        Err(Failure::unsupported("ids of a node and a relationship compared"))
                    }
                    _ => Err(Failure::runtime("id() of a value that is not a node or relationship")),
                }
            }
            Expr::Binary(op, a, b) => binary(*op, self.expr(a, row)?, self.expr(b, row)?),
            Expr::Not(a) => not(self.expr(a, row)?),
            Expr::Negate(a) => negate(self.expr(a, row)?),
            Expr::IsNull { expr, negated } => Ok(V::Bool(self.expr(expr, row)?.is_null() != *negated)),
            Expr::Function(name, args) if name == "coalesce" => {
                for a in args {
                    let v = self.expr(a, row)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Ok(V::Null)
            }
            Expr::Function(name, args) => {
                let args = args.iter().map(|a| self.expr(a, row)).collect::<Result<Vec<_>, _>>()?;
                crate::functions::call(self, name, args)
            }
            Expr::Aggregate { .. } => Err(Failure::semantic("an aggregate outside WITH or RETURN")),
            Expr::Case { subject, branches, otherwise } => {
                let subject = subject.as_ref().map(|s| self.expr(s, row)).transpose()?;
                for (w, t) in branches {
                    let w = self.expr(w, row)?;
                    let hit = match &subject {
                        Some(s) => equals(s, &w) == Some(true),
                        None => w.truth()? == Some(true),
                    };
                    if hit {
                        return self.expr(t, row);
                    }
                }
                otherwise.as_ref().map_or(Ok(V::Null), |o| self.expr(o, row))
            }
            Expr::List(items) => Ok(V::List(items.iter().map(|i| self.expr(i, row)).collect::<Result<_, _>>()?)),
            Expr::Index(l, i) => match (self.expr(l, row)?, self.expr(i, row)?) {
                // `n['k']` is the property k of an entity.
                (e @ (V::Node(_) | V::Rel(_)), V::Str(k)) => self.property(e, &k),
                (l, i) => index(l, i),
            },
            Expr::Slice(l, a, b) => {
                let l = self.expr(l, row)?;
                let a = a.as_ref().map(|a| self.expr(a, row)).transpose()?;
                let b = b.as_ref().map(|b| self.expr(b, row)).transpose()?;
                slice(l, a, b)
            }
            Expr::ListComprehension { variable, list, filter, map } => {
                let Some(items) = self.list_of(list, row)? else { return Ok(V::Null) };
                let mut out = Vec::new();
                for item in items {
                    let mut r = row.clone();
                    r.insert(variable.clone(), item.clone());
                    if self.holds(filter.as_deref(), &r)? {
                        out.push(match map {
                            Some(m) => self.expr(m, &r)?,
                            None => item,
                        });
                    }
                }
                Ok(V::List(out))
            }
            Expr::PatternComprehension { pattern, filter, map } => {
                let mut out = Vec::new();
                for m in self.match_patterns(std::slice::from_ref(pattern), row)? {
                    if self.holds(filter.as_deref(), &m)? {
                        out.push(self.expr(map, &m)?);
                    }
                }
                Ok(V::List(out))
            }
            Expr::Quantified { quantifier, variable, list, predicate } => {
                let Some(items) = self.list_of(list, row)? else { return Ok(V::Null) };
                let (mut trues, mut nulls) = (0usize, 0usize);
                let n = items.len();
                for item in items {
                    let mut r = row.clone();
                    r.insert(variable.clone(), item);
                    match self.expr(predicate, &r)?.truth()? {
                        Some(true) => trues += 1,
                        None => nulls += 1,
                        Some(false) => {}
                    }
                }
                let falses = n - trues - nulls;
                Ok(match quantifier {
                    Quantifier::All if falses > 0 => V::Bool(false),
                    Quantifier::Any | Quantifier::None if trues > 0 => V::Bool(*quantifier == Quantifier::Any),
                    Quantifier::Single if trues > 1 => V::Bool(false),
                    _ if nulls > 0 => V::Null,
                    Quantifier::All => V::Bool(true),
                    Quantifier::Any => V::Bool(false),
                    Quantifier::None => V::Bool(true),
                    Quantifier::Single => V::Bool(trues == 1),
                })
            }
            Expr::Reduce { accumulator, init, variable, list, step } => {
                let mut acc = self.expr(init, row)?;
                let Some(items) = self.list_of(list, row)? else { return Ok(V::Null) };
                for item in items {
                    let mut r = row.clone();
                    r.insert(accumulator.clone(), acc);
                    r.insert(variable.clone(), item);
                    acc = self.expr(step, &r)?;
                }
                Ok(acc)
            }
            Expr::Map(entries) => {
                Ok(V::Map(entries.iter().map(|(k, e)| Ok((k.clone(), self.expr(e, row)?))).collect::<Result<_, _>>()?))
            }
            Expr::MapProjection(v, keys) => self.projected(v, keys, &[], row),
            Expr::MapProjectionWith { base, keys, entries } => self.projected(base, keys, entries, row),
            Expr::ExistsSubquery(p, filter) => {
                for m in self.match_patterns(std::slice::from_ref(p), row)? {
                    if self.holds(filter.as_deref(), &m)? {
                        return Ok(V::Bool(true));
                    }
                }
                Ok(V::Bool(false))
            }
            Expr::PatternPredicate(p) => Ok(V::Bool(!self.match_patterns(std::slice::from_ref(p), row)?.is_empty())),
            Expr::ShortestPath(p) => self.shortest_path(p, row),
            Expr::HasLabels(v, labels) => match self.lookup(v, row)? {
                V::Null => Ok(V::Null),
                V::Node(n) => {
                    let have = &self.store.node(n)?.labels;
                    Ok(V::Bool(labels.iter().all(|l| have.contains(l))))
                }
                // A relationship "has" the one label that is its type.
                V::Rel(r) => {
                    let t = &self.store.rel(r)?.rel_type;
                    Ok(V::Bool(labels.iter().all(|l| l == t)))
                }
                other => Err(Failure::runtime(format!("a label test on a {}", other.kind()))),
            },
        }
    }

    fn list_of(&self, e: &Expr, row: &Row) -> Result<Option<Vec<V>>, Failure> {
        match self.expr(e, row)? {
            V::List(l) => Ok(Some(l)),
            V::Null => Ok(None),
            other => Err(Failure::runtime(format!("expected a list, got a {}", other.kind()))),
        }
    }

    /// AND and OR. Engines may or may not evaluate the side that cannot
    /// change the answer, so an error there leaves the answer open.
    fn logical(&self, op: BinOp, a: &Expr, b: &Expr, row: &Row) -> Result<V, Failure> {
        let decides = |v: &Result<Option<bool>, Failure>| matches!(v, Ok(Some(x)) if *x == (op == BinOp::Or));
        let x = self.expr(a, row).and_then(|v| v.truth());
        let y = self.expr(b, row).and_then(|v| v.truth());
        match (&x, &y) {
            (Err(e), other) | (other, Err(e)) => {
                if decides(other) || e.kind == FailureKind::Unsupported {
                    let why = if e.kind == FailureKind::Unsupported {
                        e.message.clone()
                    } else {
                        format!("{op:?} may or may not hide: {e}")
                    };
                    Err(Failure::unsupported(why))
                } else {
                    Err(e.clone())
                }
            }
            (Ok(x), Ok(y)) => Ok(ternary(op, *x, *y)),
        }
    }
}

fn ternary(op: BinOp, x: Option<bool>, y: Option<bool>) -> V {
    let r = match op {
        BinOp::And => match (x, y) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        BinOp::Or => match (x, y) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        _ => match (x, y) {
            (Some(a), Some(b)) => Some(a != b),
            _ => None,
        },
    };
    r.map_or(V::Null, V::Bool)
}

pub(crate) fn not(v: V) -> Result<V, Failure> {
    Ok(v.truth()?.map_or(V::Null, |b| V::Bool(!b)))
}

pub(crate) fn negate(v: V) -> Result<V, Failure> {
    match v {
        V::Null => Ok(V::Null),
        V::Int(i) => i.checked_neg().map(V::Int).ok_or_else(overflow),
        V::Float(f) => Ok(V::Float(-f)),
        other => Err(Failure::runtime(format!("cannot negate a {}", other.kind()))),
    }
}

fn overflow() -> Failure {
    Failure::raised(ErrorClass::Arithmetic, "integer overflow")
}

#[allow(clippy::cast_precision_loss)]
fn float(v: &V) -> Option<f64> {
    match v {
        V::Int(i) => Some(*i as f64),
        V::Float(f) => Some(*f),
        _ => None,
    }
}

/// A binary operator other than AND and OR, on evaluated operands.
pub(crate) fn binary(op: BinOp, a: V, b: V) -> Result<V, Failure> {
    use BinOp as B;
    match op {
        B::Eq => return Ok(equals(&a, &b).map_or(V::Null, V::Bool)),
        B::Ne => return Ok(equals(&a, &b).map_or(V::Null, |x| V::Bool(!x))),
        B::Lt | B::Le | B::Gt | B::Ge => {
            if a.is_null() || b.is_null() {
                return Ok(V::Null);
            }
            // NaN is comparable with numbers, and every comparison with it is false.
            let nan = |v: &V| matches!(v, V::Float(f) if f.is_nan());
            let number = |v: &V| matches!(v, V::Int(_) | V::Float(_));
            if (nan(&a) || nan(&b)) && number(&a) && number(&b) {
                return Ok(V::Bool(false));
            }
            return Ok(compare(&a, &b).map_or(V::Null, |o| {
                V::Bool(match op {
                    B::Lt => o.is_lt(),
                    B::Le => o.is_le(),
                    B::Gt => o.is_gt(),
                    _ => o.is_ge(),
                })
            }));
        }
        B::Xor | B::And | B::Or => return Ok(ternary(op, a.truth()?, b.truth()?)),
        B::In => {
            return match b {
                V::Null => Ok(V::Null),
                V::List(items) => {
                    let mut unknown = false;
                    for i in &items {
                        match equals(&a, i) {
                            Some(true) => return Ok(V::Bool(true)),
                            None => unknown = true,
                            Some(false) => {}
                        }
                    }
                    Ok(if unknown { V::Null } else { V::Bool(false) })
                }
                other => Err(Failure::runtime(format!("IN over a {}", other.kind()))),
            };
        }
        B::StartsWith | B::EndsWith | B::Contains => {
            return Ok(match (&a, &b) {
                (V::Str(x), V::Str(y)) => V::Bool(match op {
                    B::StartsWith => x.starts_with(y.as_str()),
                    B::EndsWith => x.ends_with(y.as_str()),
                    _ => x.contains(y.as_str()),
                }),
                _ => V::Null,
            });
        }
        B::Regex => return Err(Failure::unsupported("=~: Java's regular expressions are not modelled")),
        _ => {}
    }
    if a.is_null() || b.is_null() {
        return Ok(V::Null);
    }
    match (op, a, b) {
        (B::Add, V::List(mut x), V::List(y)) => {
            x.extend(y);
            Ok(V::List(x))
        }
        (B::Add, V::List(mut x), y) => {
            x.push(y);
            Ok(V::List(x))
        }
        (B::Add, x, V::List(mut y)) => {
            y.insert(0, x);
            Ok(V::List(y))
        }
        (B::Add, V::Str(x), V::Str(y)) => Ok(V::Str(x + y.as_str())),
        (B::Add, V::Str(x), V::Int(y)) => Ok(V::Str(format!("{x}{y}"))),
        (B::Add, V::Int(x), V::Str(y)) => Ok(V::Str(format!("{x}{y}"))),
        (B::Add, V::Str(_), V::Float(_)) | (B::Add, V::Float(_), V::Str(_)) => {
            Err(Failure::unsupported("a float's text: engines write floats differently"))
        }
        (op, V::Int(x), V::Int(y)) => match op {
            B::Add => x.checked_add(y).map(V::Int).ok_or_else(overflow),
            B::Sub => x.checked_sub(y).map(V::Int).ok_or_else(overflow),
            B::Mul => x.checked_mul(y).map(V::Int).ok_or_else(overflow),
            B::Div if y == 0 => Err(Failure::raised(ErrorClass::Arithmetic, "/ by zero")),
            B::Div => x.checked_div(y).map(V::Int).ok_or_else(overflow),
            B::Mod if y == 0 => Err(Failure::raised(ErrorClass::Arithmetic, "/ by zero")),
            // Java's remainder: i64::MIN % -1 is 0.
            B::Mod => Ok(V::Int(x.checked_rem(y).unwrap_or(0))),
            #[allow(clippy::cast_precision_loss)]
            B::Pow => Ok(V::Float((x as f64).powf(y as f64))),
            _ => Err(Failure::unsupported("an operator on integers")),
        },
        (op, x, y) => match (float(&x), float(&y)) {
            (Some(p), Some(q)) => Ok(V::Float(match op {
                B::Add => p + q,
                B::Sub => p - q,
                B::Mul => p * q,
                B::Div => p / q,
                B::Mod => p % q,
                B::Pow => p.powf(q),
                _ => return Err(Failure::unsupported("an operator on floats")),
            })),
            _ => Err(Failure::runtime(format!("{} of a {} and a {}", op.text(), x.kind(), y.kind()))),
        },
    }
}

fn index(l: V, i: V) -> Result<V, Failure> {
    match (l, i) {
        (V::Null, _) | (_, V::Null) => Ok(V::Null),
        (V::List(items), V::Int(i)) => {
            let n = items.len() as i64;
            let at = if i < 0 { n + i } else { i };
            Ok(if (0..n).contains(&at) { items[at as usize].clone() } else { V::Null })
        }
        (V::Map(m), V::Str(k)) => Ok(m.get(&k).cloned().unwrap_or(V::Null)),
        (l, i) => Err(Failure::runtime(format!("a {} indexed by a {}", l.kind(), i.kind()))),
    }
}

fn slice(l: V, a: Option<V>, b: Option<V>) -> Result<V, Failure> {
    let items = match l {
        V::Null => return Ok(V::Null),
        V::List(items) => items,
        other => return Err(Failure::runtime(format!("a slice of a {}", other.kind()))),
    };
    let n = items.len() as i64;
    let bound = |v: Option<V>, default: i64| -> Result<Option<i64>, Failure> {
        match v {
            None => Ok(Some(default)),
            Some(V::Null) => Ok(None),
            Some(V::Int(i)) => Ok(Some((if i < 0 { n + i } else { i }).clamp(0, n))),
            Some(other) => Err(Failure::runtime(format!("a slice bound of a {}", other.kind()))),
        }
    };
    let (Some(from), Some(to)) = (bound(a, 0)?, bound(b, n)?) else { return Ok(V::Null) };
    Ok(V::List(if from < to { items[from as usize..to as usize].to_vec() } else { Vec::new() }))
}

/// The argument of `id(x)`.
fn id_of(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Function(name, args) if name == "id" => args.first().filter(|_| args.len() == 1),
        _ => None,
    }
}
