//! The functions and aggregates the generator writes, by openCypher and
//! Neo4j 5. Character positions are refused outside ASCII, where engines
//! count UTF-16 units, bytes or code points differently; case changes and
//! trims only where every engine's reading gives one answer.

use std::cmp::Ordering;

use crate::state::Ev;
use crate::value::{V, equals, order};
use crate::{ErrorClass, Failure};

fn ascii(s: &str) -> Result<&str, Failure> {
    if s.is_ascii() { Ok(s) } else { Err(Failure::unsupported("a character position in text beyond ASCII")) }
}

/// `s` trimmed at its start, end or both, where every reading of
/// whitespace engines use (a space, Unicode's, Java's `<= ' '`) trims the
/// same; text whose ends they read differently is refused.
fn trimmed(s: &str, start: bool, end: bool) -> Result<V, Failure> {
    let readings: [fn(char) -> bool; 3] = [|c| c == ' ', char::is_whitespace, |c| c <= ' '];
    let cut = |is: fn(char) -> bool| {
        let t = if start { s.trim_start_matches(is) } else { s };
        if end { t.trim_end_matches(is) } else { t }
    };
    let first = cut(readings[0]);
    if readings.iter().all(|r| cut(*r) == first) {
        Ok(V::Str(first.to_owned()))
    } else {
        Err(Failure::unsupported("a trim of ends engines read as whitespace differently"))
    }
}

/// `s` in upper or lower case, where ASCII's and Unicode's case mappings
/// agree: text whose characters beyond ASCII have no case.
fn cased(s: &str, upper: bool) -> Result<V, Failure> {
    let caseless = |c: char| c.is_ascii() || (c.to_uppercase().eq([c]) && c.to_lowercase().eq([c]));
    if !s.chars().all(caseless) {
        return Err(Failure::unsupported("a change of case of letters beyond ASCII"));
    }
    Ok(V::Str(if upper { s.to_ascii_uppercase() } else { s.to_ascii_lowercase() }))
}

/// A bound or step of `range()`: Neo4j raises an ArgumentError for one that
/// is no integer (TCK `List11` [5]), where other functions raise a TypeError.
fn bound(v: &V) -> Result<i64, Failure> {
    int(v, "range").map_err(|f| Failure::raised(ErrorClass::Argument, f.message))
}

fn int(v: &V, f: &str) -> Result<i64, Failure> {
    match v {
        V::Int(i) => Ok(*i),
        other => Err(Failure::runtime(format!("{f}() takes an integer, not a {}", other.kind()))),
    }
}

fn position(v: &V, f: &str) -> Result<usize, Failure> {
    usize::try_from(int(v, f)?)
        .map_err(|_| Failure::raised(ErrorClass::Argument, format!("{f}() of a negative position")))
}

/// A position Neo4j 5 reads as a 32-bit integer exactly (`substring`,
/// `left`): past 2^31 - 1 it is an ArgumentError, as a negative one is
/// ([`graphlancer_cypher::validity::Refusal::StringPositionOutOfRange`]).
fn position32(v: &V, f: &str) -> Result<usize, Failure> {
    let p = position(v, f)?;
    if p > i32::MAX as usize {
        return Err(Failure::raised(ErrorClass::Argument, format!("{f}() of a position past 2^31 - 1")));
    }
    Ok(p)
}

#[allow(clippy::cast_precision_loss)]
fn number(v: &V, f: &str) -> Result<f64, Failure> {
    match v {
        V::Int(i) => Ok(*i as f64),
        V::Float(x) => Ok(*x),
        other => Err(Failure::runtime(format!("{f}() takes a number, not a {}", other.kind()))),
    }
}

/// A string read as a decimal number, as the JVM's `parseDouble` reads it,
/// or none where it is not one; texts the two readers may take differently
/// (`NaN`, `Infinity`, hexadecimal, spaces) are left open.
fn decimal(s: &str) -> Result<Option<f64>, Failure> {
    if s.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) {
        return Ok(s.parse::<f64>().ok().filter(|f| f.is_finite()));
    }
    let lower = s.to_ascii_lowercase();
    let numeric = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b"+-.e".contains(&b));
    if lower.contains("nan")
        || lower.contains("infinity")
        || lower.trim_start_matches(['+', '-']).starts_with("0x")
        || s.trim() != s
        || lower.strip_suffix(['d', 'f']).is_some_and(numeric)
    {
        return Err(Failure::unsupported("a number's text that engines read differently"));
    }
    Ok(None)
}

/// `name(args)`, the arguments evaluated.
pub(crate) fn call(ev: &Ev<'_>, name: &str, args: Vec<V>) -> Result<V, Failure> {
    let null_in = args.iter().any(V::is_null);
    let store = &ev.store;
    Ok(match (name, args.as_slice()) {
        ("coalesce", _) => args.into_iter().find(|v| !v.is_null()).unwrap_or(V::Null),
        ("id" | "elementId", _) => return Err(Failure::unsupported("id() is each engine's own")),
        ("rand" | "timestamp", _) => return Err(Failure::unsupported(format!("{name}() has no one right answer"))),
        ("pi", []) => V::Float(std::f64::consts::PI),
        ("e", []) => V::Float(std::f64::consts::E),
        // null when the two are equal, else the first (null = anything is not true).
        ("nullIf", [a, b]) => {
            if !a.is_null() && !b.is_null() && equals(a, b) == Some(true) {
                V::Null
            } else {
                a.clone()
            }
        }
        // Functions of one argument give null for null.
        (_, [V::Null]) => V::Null,
        ("toUpper" | "upper", [V::Str(s)]) => cased(s, true)?,
        ("toLower" | "lower", [V::Str(s)]) => cased(s, false)?,
        ("char_length" | "character_length", [V::Str(s)]) => V::Int(ascii(s)?.len() as i64),
        ("normalize", [V::Str(s)]) => V::Str(ascii(s)?.to_owned()),
        ("isEmpty", [V::Str(s)]) => V::Bool(s.is_empty()),
        ("isEmpty", [V::List(l)]) => V::Bool(l.is_empty()),
        ("isEmpty", [V::Map(m)]) => V::Bool(m.is_empty()),
        ("isNaN", [x]) => V::Bool(number(x, name)?.is_nan()),
        ("toIntegerOrNull" | "toFloatOrNull" | "toBooleanOrNull" | "toStringOrNull", [x]) => or_null(ev, name, x)?,
        ("toIntegerList" | "toFloatList" | "toBooleanList" | "toStringList", [V::List(l)]) => {
            let one = name.trim_end_matches("List").to_owned() + "OrNull";
            V::List(
                l.iter()
                    .map(|x| if x.is_null() { Ok(V::Null) } else { or_null(ev, &one, x) })
                    .collect::<Result<_, _>>()?,
            )
        }
        ("trim", [V::Str(s)]) => trimmed(s, true, true)?,
        ("ltrim", [V::Str(s)]) => trimmed(s, true, false)?,
        ("rtrim", [V::Str(s)]) => trimmed(s, false, true)?,
        // By characters, as Java's StringBuilder reverses (surrogate pairs kept).
        ("reverse", [V::Str(s)]) => V::Str(s.chars().rev().collect()),
        ("reverse", [V::List(l)]) => V::List(l.iter().rev().cloned().collect()),
        (_, _) if null_in && !matches!(name, "substring" | "left" | "right" | "range") => V::Null,
        ("replace", [V::Str(s), V::Str(a), V::Str(b)]) => V::Str(s.replace(a.as_str(), b)),
        ("substring", [V::Null, ..]) | ("left" | "right", [V::Null, _]) => V::Null,
        ("substring", [V::Str(s), start, len]) => {
            let s = ascii(s)?;
            let (start, len) = (position32(start, name)?, position32(len, name)?);
            V::Str(s.get(start.min(s.len())..start.saturating_add(len).min(s.len())).unwrap_or("").to_owned())
        }
        ("left", [V::Str(s), n]) => {
            let s = ascii(s)?;
            V::Str(s[..position32(n, name)?.min(s.len())].to_owned())
        }
        ("right", [V::Str(s), n]) => {
            let s = ascii(s)?;
            V::Str(s[s.len() - position(n, name)?.min(s.len())..].to_owned())
        }
        ("split", [V::Str(_), V::Str(d)]) if d.is_empty() => {
            return Err(Failure::unsupported("split() by the empty string"));
        }
        ("split", [V::Str(s), V::Str(d)]) => V::List(s.split(d.as_str()).map(|p| V::Str(p.to_owned())).collect()),
        ("toString", [V::Int(i)]) => V::Str(i.to_string()),
        ("toString", [V::Str(s)]) => V::Str(s.clone()),
        ("toString", [V::Bool(b)]) => V::Str(b.to_string()),
        ("toString", [V::Float(_)]) => {
            return Err(Failure::unsupported("a float's text: engines write floats differently"));
        }
        ("size", [V::Str(s)]) => V::Int(ascii(s)?.len() as i64),
        ("size", [V::List(l)]) => V::Int(l.len() as i64),
        ("length", [V::Path(_, rs)]) => V::Int(rs.len() as i64),
        ("nodes", [V::Path(ns, _)]) => V::List(ns.iter().map(|n| V::Node(*n)).collect()),
        ("relationships", [V::Path(_, rs)]) => V::List(rs.iter().map(|r| V::Rel(*r)).collect()),
        ("type", [V::Rel(r)]) => V::Str(store.rel(*r)?.rel_type.clone()),
        ("startNode", [V::Rel(r)]) => V::Node(store.rel(*r)?.start),
        ("endNode", [V::Rel(r)]) => V::Node(store.rel(*r)?.end),
        ("keys", [V::Node(n)]) => keys(store.node(*n)?.props.iter()),
        ("keys", [V::Rel(r)]) => keys(store.rel(*r)?.props.iter()),
        ("keys", [V::Map(m)]) => V::List(m.keys().map(|k| V::Str(k.clone())).collect()),
        ("labels", [V::Node(n)]) => V::List(store.node(*n)?.labels.iter().map(|l| V::Str(l.clone())).collect()),
        ("properties", [V::Node(n)]) => props(store.node(*n)?.props.iter()),
        ("properties", [V::Rel(r)]) => props(store.rel(*r)?.props.iter()),
        ("properties", [V::Map(m)]) => V::Map(m.clone()),
        ("head", [V::List(l)]) => l.first().cloned().unwrap_or(V::Null),
        ("last", [V::List(l)]) => l.last().cloned().unwrap_or(V::Null),
        ("tail", [V::List(l)]) => V::List(l.iter().skip(1).cloned().collect()),
        ("range", [a, b]) => {
            let (a, b) = (bound(a)?, bound(b)?);
            if b.saturating_sub(a) > 100_000 {
                return Err(Failure::unsupported("a range() of more than 100,000 elements"));
            }
            V::List((a..=b).map(V::Int).collect())
        }
        ("range", [a, b, step]) => {
            let (a, b, step) = (bound(a)?, bound(b)?, bound(step)?);
            if step == 0 {
                return Err(Failure::raised(ErrorClass::Argument, "range() with a step of 0"));
            }
            let n =
                if (step > 0 && a > b) || (step < 0 && a < b) { 0 } else { (b.abs_diff(a) / step.unsigned_abs()) + 1 };
            if n > 100_000 {
                return Err(Failure::unsupported("a range() of more than 100,000 elements"));
            }
            // Every element lies between a and b, so it fits; i128 keeps the
            // product from overflowing on the way.
            #[allow(clippy::cast_possible_truncation)]
            V::List((0..n).map(|i| V::Int((i128::from(a) + i128::from(step) * i128::from(i)) as i64)).collect())
        }
        ("toInteger", [V::Int(i)]) => V::Int(*i),
        ("toInteger", [V::Bool(b)]) => V::Int(i64::from(*b)),
        #[allow(clippy::cast_possible_truncation)]
        ("toInteger", [V::Float(f)]) if f.is_finite() && f.abs() < 9.2e18 => V::Int(f.trunc() as i64),
        ("toInteger", [V::Str(s)]) if s.trim() == s => match s.parse::<i64>() {
            Ok(i) => V::Int(i),
            // Neo4j reads a decimal string as a float and truncates it.
            Err(_) => match decimal(s)? {
                #[allow(clippy::cast_possible_truncation)]
                Some(f) if f.is_finite() && f.abs() < 9.2e18 => V::Int(f.trunc() as i64),
                Some(_) => return Err(Failure::unsupported("toInteger() of a string out of range")),
                None => V::Null,
            },
        },
        ("toFloat", [V::Int(_) | V::Float(_)]) => V::Float(number(&args[0], name)?),
        ("toFloat", [V::Str(s)]) => decimal(s)?.map_or(V::Null, V::Float),
        ("toBoolean", [V::Bool(b)]) => V::Bool(*b),
        ("toBoolean", [V::Int(i)]) => V::Bool(*i != 0),
        ("toBoolean", [V::Str(s)]) => match s.to_ascii_lowercase().as_str() {
            "true" => V::Bool(true),
            "false" => V::Bool(false),
            _ => V::Null,
        },
        ("abs", [V::Int(i)]) => {
            V::Int(i.checked_abs().ok_or_else(|| Failure::raised(ErrorClass::Arithmetic, "integer overflow"))?)
        }
        ("abs", [V::Float(f)]) => V::Float(f.abs()),
        ("sign", [V::Int(i)]) => V::Int(i.signum()),
        ("sign", [V::Float(f)]) if !f.is_nan() => V::Int(if *f > 0.0 {
            1
        } else if *f < 0.0 {
            -1
        } else {
            0
        }),
        ("ceil", [x]) => V::Float(number(x, name)?.ceil()),
        ("floor", [x]) => V::Float(number(x, name)?.floor()),
        ("round", [x]) => {
            let f = number(x, name)?;
            if (f.fract().abs() - 0.5).abs() < f64::EPSILON {
                return Err(Failure::unsupported("round() of a half: engines round halves differently"));
            }
            V::Float(f.round())
        }
        ("sqrt", [x]) => V::Float(number(x, name)?.sqrt()),
        ("exp", [x]) => V::Float(number(x, name)?.exp()),
        ("log", [x]) => V::Float(number(x, name)?.ln()),
        ("sin", [x]) => V::Float(number(x, name)?.sin()),
        ("cos", [x]) => V::Float(number(x, name)?.cos()),
        ("tan", [x]) => V::Float(number(x, name)?.tan()),
        ("cot", [x]) => V::Float(1.0 / number(x, name)?.tan()),
        ("asin", [x]) => V::Float(number(x, name)?.asin()),
        ("acos", [x]) => V::Float(number(x, name)?.acos()),
        ("atan", [x]) => V::Float(number(x, name)?.atan()),
        ("atan2", [y, x]) => V::Float(number(y, name)?.atan2(number(x, name)?)),
        ("degrees", [x]) => V::Float(number(x, name)?.to_degrees()),
        ("radians", [x]) => V::Float(number(x, name)?.to_radians()),
        ("haversin", [x]) => V::Float((1.0 - number(x, name)?.cos()) / 2.0),
        ("log10", [x]) => V::Float(number(x, name)?.log10()),
        ("btrim", [V::Str(s), V::Str(chars)]) => {
            let set: Vec<char> = ascii(chars)?.chars().collect();
            V::Str(ascii(s)?.trim_matches(|c| set.contains(&c)).to_owned())
        }
        ("ltrim", [V::Str(s), V::Str(chars)]) => {
            let set: Vec<char> = ascii(chars)?.chars().collect();
            V::Str(ascii(s)?.trim_start_matches(|c| set.contains(&c)).to_owned())
        }
        ("rtrim", [V::Str(s), V::Str(chars)]) => {
            let set: Vec<char> = ascii(chars)?.chars().collect();
            V::Str(ascii(s)?.trim_end_matches(|c| set.contains(&c)).to_owned())
        }
        _ => {
            let kinds: Vec<&str> = args.iter().map(V::kind).collect();
            return Err(Failure::unsupported(format!("{name}() of {}", kinds.join(", "))));
        }
    })
}

/// `toIntegerOrNull(x)` and its kin: the conversion, or null where
/// `toInteger(x)` would fail on the type.
fn or_null(ev: &Ev<'_>, name: &str, x: &V) -> Result<V, Failure> {
    let plain = name.trim_end_matches("OrNull");
    let convertible = matches!(
        (plain, x),
        ("toInteger", V::Int(_) | V::Float(_) | V::Str(_) | V::Bool(_))
            | ("toFloat", V::Int(_) | V::Float(_) | V::Str(_))
            | ("toBoolean", V::Bool(_) | V::Str(_) | V::Int(_))
            | ("toString", V::Int(_) | V::Float(_) | V::Str(_) | V::Bool(_))
    );
    if convertible { call(ev, plain, vec![x.clone()]) } else { Ok(V::Null) }
}

fn keys<'a>(props: impl Iterator<Item = (&'a String, &'a V)>) -> V {
    V::List(props.filter(|(_, v)| !v.is_null()).map(|(k, _)| V::Str(k.clone())).collect())
}

fn props<'a>(props: impl Iterator<Item = (&'a String, &'a V)>) -> V {
    V::Map(props.filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// An aggregate over a group's non-null values (`count(*)` gets one per row);
/// `percentile` is percentileDisc's and percentileCont's second argument.
pub(crate) fn aggregate(name: &str, values: Vec<V>, percentile: Option<f64>) -> Result<V, Failure> {
    Ok(match name {
        "count" => V::Int(values.len() as i64),
        "collect" => V::List(values),
        "sum" => {
            if values.iter().all(|v| matches!(v, V::Int(_))) {
                let mut total: i64 = 0;
                for v in &values {
                    if let V::Int(i) = v {
                        total = total
                            .checked_add(*i)
                            .ok_or_else(|| Failure::raised(ErrorClass::Arithmetic, "integer overflow"))?;
                    }
                }
                V::Int(total)
            } else {
                V::Float(values.iter().map(|v| number(v, name)).sum::<Result<f64, _>>()?)
            }
        }
        "avg" if values.is_empty() => V::Null,
        "avg" => {
            let total = values.iter().map(|v| number(v, name)).sum::<Result<f64, _>>()?;
            #[allow(clippy::cast_precision_loss)]
            V::Float(total / values.len() as f64)
        }
        "min" | "max" => {
            let family = |v: &V| match v {
                V::Int(_) | V::Float(_) => "number",
                other => other.kind(),
            };
            if values.windows(2).any(|w| family(&w[0]) != family(&w[1])) {
                return Err(Failure::unsupported(format!("{name}() over values of several types")));
            }
            let want = if name == "min" { Ordering::Less } else { Ordering::Greater };
            values.into_iter().reduce(|a, b| if order(&b, &a) == want { b } else { a }).unwrap_or(V::Null)
        }
        "stDev" | "stDevP" if values.is_empty() => {
            return Err(Failure::unsupported(format!("{name}() of no values")));
        }
        "stDev" | "stDevP" => {
            let xs = values.iter().map(|v| number(v, name)).collect::<Result<Vec<f64>, _>>()?;
            #[allow(clippy::cast_precision_loss)]
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let squares = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
            let divisor = if name == "stDev" { n - 1.0 } else { n };
            V::Float(if divisor <= 0.0 { 0.0 } else { (squares / divisor).sqrt() })
        }
        "percentileDisc" | "percentileCont" => {
            let p = percentile.ok_or_else(|| Failure::semantic(format!("{name}() without a percentile")))?;
            if !(0.0..=1.0).contains(&p) {
                return Err(Failure::raised(
                    ErrorClass::Argument,
                    format!("{name}() of the percentile {p}, outside 0 to 1"),
                ));
            }
            if values.is_empty() {
                return Ok(V::Null);
            }
            let mut sorted = values;
            for v in &sorted {
                number(v, name)?;
            }
            sorted.sort_by(order);
            #[allow(clippy::cast_precision_loss)]
            let n = sorted.len() as f64;
            if name == "percentileDisc" {
                // Neo4j's nearest rank: the first value whose rank reaches p·n.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let i = ((p * n).ceil() as usize).saturating_sub(1).min(sorted.len() - 1);
                sorted.swap_remove(i)
            } else {
                // Between the two closest ranks of p·(n-1), weighted as Neo4j
                // weighs them, `a·(hi-at) + b·(at-lo)`: the sum's last bit is
                // part of the answer, since grouping compares floats exactly
                // (four equal values 0.69897…189 give 0.69897…187 there).
                let at = p * (n - 1.0);
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
                let (a, b) = (number(&sorted[lo], name)?, number(&sorted[hi], name)?);
                #[allow(clippy::cast_precision_loss)]
                let (l, h) = (lo as f64, hi as f64);
                V::Float(if lo == hi { a } else { a * (h - at) + b * (at - l) })
            }
        }
        other => return Err(Failure::unsupported(format!("the aggregate {other}()"))),
    })
}
