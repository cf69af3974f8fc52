//! GraphSON 3.0, as a Gremlin Server writes its answers: every value typed
//! as `{"@type": "g:Int64", "@value": 5}` except strings, booleans, null and
//! plain lists. Decoded into graphlancer's values the way the embedded
//! Gremlin engines' answers are: vertices as nodes (label and the first
//! value of each property), edges as relationships, bulked sets and
//! traversers expanded into one value per traverser, and the engine's own
//! ids kept only where a step asked for them.

use std::collections::BTreeMap;

use graphlancer_model::{Node, Relationship, Value};
use serde_json::Value as Json;

/// A GraphSON value graphlancer cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("GraphSON: {0}")]
pub struct GraphsonError(pub String);

fn bad(what: impl Into<String>) -> GraphsonError {
    GraphsonError(what.into())
}

/// One GraphSON value.
pub fn decode(j: &Json) -> Result<Value, GraphsonError> {
    Ok(match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::String(s) => Value::String(s.clone()),
        // GraphSON 3 types its numbers; a bare one is read as JSON reads it.
        Json::Number(n) => {
            n.as_i64().map(Value::Int).or_else(|| n.as_f64().map(Value::Float)).ok_or_else(|| bad("number"))?
        }
        Json::Array(items) => Value::List(items.iter().map(decode).collect::<Result<_, _>>()?),
        Json::Object(o) => match (o.get("@type").and_then(Json::as_str), o.get("@value")) {
            (Some(t), Some(v)) => typed(t, v)?,
            _ => Value::Map(o.iter().map(|(k, v)| Ok((k.clone(), decode(v)?))).collect::<Result<_, GraphsonError>>()?),
        },
    })
}

/// The traversers of an answer: bulked sets and traversers become as many
/// values as their bulk says.
pub fn traversers(data: &Json) -> Result<Vec<Value>, GraphsonError> {
    let mut out = Vec::new();
    match typed_parts(data) {
        Some(("g:List", Json::Array(items))) => {
            for item in items {
                out.extend(expanded(item)?);
            }
        }
        _ => out.extend(expanded(data)?),
    }
    Ok(out)
}

/// A value with its bulk spelled out.
fn expanded(j: &Json) -> Result<Vec<Value>, GraphsonError> {
    match typed_parts(j) {
        Some(("g:Traverser", v)) => {
            let bulk = int(v.get("bulk").ok_or_else(|| bad("traverser without bulk"))?)?;
            let value = decode(v.get("value").ok_or_else(|| bad("traverser without value"))?)?;
            Ok(repeat(value, bulk))
        }
        Some(("g:BulkSet", pairs)) => bulk_set(pairs),
        _ => Ok(vec![decode(j)?]),
    }
}

/// A bulk set's `[value, bulk, value, bulk, ...]`, each value `bulk` times.
fn bulk_set(pairs: &Json) -> Result<Vec<Value>, GraphsonError> {
    let pairs = pairs.as_array().ok_or_else(|| bad("g:BulkSet without a list"))?;
    let mut out = Vec::new();
    for pair in pairs.chunks(2) {
        let [v, bulk] = pair else { return Err(bad("a bulk set of odd length")) };
        out.extend(repeat(decode(v)?, int(bulk)?));
    }
    Ok(out)
}

fn repeat(v: Value, bulk: i64) -> Vec<Value> {
    std::iter::repeat_n(v, usize::try_from(bulk).unwrap_or(0)).collect()
}

fn typed_parts(j: &Json) -> Option<(&str, &Json)> {
    Some((j.get("@type")?.as_str()?, j.get("@value")?))
}

fn int(j: &Json) -> Result<i64, GraphsonError> {
    match decode(j)? {
        Value::Int(i) => Ok(i),
        other => Err(bad(format!("an integer expected, found {other:?}"))),
    }
}

fn float(v: &Json) -> Result<Value, GraphsonError> {
    // Non-finite doubles are written as strings.
    Ok(Value::Float(match v {
        Json::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            other => return Err(bad(format!("double '{other}'"))),
        },
        other => other.as_f64().ok_or_else(|| bad("double"))?,
    }))
}

fn typed(t: &str, v: &Json) -> Result<Value, GraphsonError> {
    Ok(match t {
        "g:Int32" | "g:Int64" | "gx:Int16" | "gx:Byte" | "g:Date" | "g:Timestamp" => {
            Value::Int(v.as_i64().ok_or_else(|| bad(format!("{t} {v}")))?)
        }
        "g:Double" | "g:Float" => float(v)?,
        "gx:BigInteger" => match v.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(v.as_f64().ok_or_else(|| bad("BigInteger"))?),
        },
        "gx:BigDecimal" => Value::Float(v.as_f64().ok_or_else(|| bad("BigDecimal"))?),
        "g:UUID" | "g:Class" | "g:T" | "g:Direction" | "gx:Char" => {
            Value::String(v.as_str().ok_or_else(|| bad(format!("{t} {v}")))?.to_owned())
        }
        "g:List" | "g:Set" => {
            let items = v.as_array().ok_or_else(|| bad(format!("{t} without a list")))?;
            Value::List(items.iter().map(decode).collect::<Result<_, _>>()?)
        }
        "g:BulkSet" => Value::List(bulk_set(v)?),
        "g:Map" => {
            let pairs = v.as_array().ok_or_else(|| bad("g:Map without a list"))?;
            let mut m = BTreeMap::new();
            for pair in pairs.chunks(2) {
                let [k, val] = pair else { return Err(bad("a g:Map of odd length")) };
                m.insert(key(&decode(k)?), decode(val)?);
            }
            Value::Map(m)
        }
        "g:Vertex" => {
            let label = v.get("label").and_then(Json::as_str).unwrap_or("vertex").to_owned();
            let mut props = BTreeMap::new();
            if let Some(Json::Object(ps)) = v.get("properties") {
                for (k, values) in ps {
                    // A multi-property keeps its first value, as a node holds one.
                    if let Some(first) = values.as_array().and_then(|a| a.first()) {
                        props.insert(k.clone(), decode(first)?);
                    }
                }
            }
            Value::Node(Node::new(vec![label], props))
        }
        "g:Edge" => {
            let label = v.get("label").and_then(Json::as_str).unwrap_or("edge").to_owned();
            let mut props = BTreeMap::new();
            if let Some(Json::Object(ps)) = v.get("properties") {
                for (k, p) in ps {
                    props.insert(k.clone(), decode(p)?);
                }
            }
            // inV/outV are the server's ids, not the generated identities.
            Value::Relationship(Relationship::new(label, props, None, None))
        }
        "g:VertexProperty" | "g:Property" => decode(v.get("value").ok_or_else(|| bad(format!("{t} without value")))?)?,
        "g:Path" => decode(v.get("objects").ok_or_else(|| bad("path without objects"))?)?,
        "g:Traverser" => decode(v.get("value").ok_or_else(|| bad("traverser without value"))?)?,
        other => return Err(bad(format!("type {other} is not read"))),
    })
}

/// A map key as text: Gremlin keys maps by any value, graphlancer by string.
fn key(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Float(_) => graphlancer_model::render_literal(v),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The TinkerPop IO documentation's own GraphSON 3.0 examples.
    fn examples() -> serde_json::Map<String, Json> {
        let text = include_str!("../../tests/fixtures/graphson3-examples.json");
        serde_json::from_str(text).expect("the fixture is JSON")
    }

    #[test]
    fn the_documented_examples_decode() {
        let ex = examples();
        let d = |name: &str| decode(&ex[name]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(d("g:Int32"), Value::Int(100));
        assert_eq!(d("g:Int64"), Value::Int(100));
        assert_eq!(d("g:Double"), Value::Float(100.0));
        assert_eq!(d("g:Float"), Value::Float(100.0));
        assert_eq!(d("g:List"), Value::List(vec![Value::Int(1), Value::String("person".into()), Value::Bool(true)]));
        assert_eq!(d("g:T"), Value::String("label".into()));
        assert_eq!(d("g:Direction"), Value::String("OUT".into()));
        let Value::Map(m) = d("g:Map") else { panic!("a map") };
        assert_eq!(m.get("test"), Some(&Value::Int(123)));
        let Value::Node(v) = d("g:Vertex") else { panic!("a node") };
        assert_eq!(v.labels, ["person"]);
        assert_eq!(v.properties.get("name"), Some(&Value::String("marko".into())));
        assert_eq!(v.properties.get("location"), Some(&Value::String("san diego".into())), "the first of several");
        let Value::Relationship(e) = d("g:Edge") else { panic!("a relationship") };
        assert_eq!((e.rel_type.as_str(), e.properties.get("since")), ("develops", Some(&Value::Int(2009))));
        assert_eq!(d("g:Property"), Value::Int(2009));
        let Value::List(path) = d("g:Path") else { panic!("a path's objects") };
        assert_eq!(path.len(), 3);
        // Each example decodes or is refused by name, never by a panic.
        for (name, j) in &ex {
            if name.starts_with("g:") {
                assert!(decode(j).is_ok(), "{name}: {:?}", decode(j));
            }
        }
    }

    #[test]
    fn bulk_becomes_traversers() {
        let ex = examples();
        let bulked = traversers(&ex["g:BulkSet"]).expect("decodes");
        let names: Vec<Value> = ["marko", "josh", "josh"].iter().map(|s| Value::String((*s).into())).collect();
        assert_eq!(bulked, names);
        let one = traversers(&ex["g:Traverser"]).expect("decodes");
        assert!(matches!(one.as_slice(), [Value::Node(_)]), "{one:?}");
        let result = &ex["Standard Result"]["result"]["data"];
        let vertices = traversers(result).expect("decodes");
        assert!(!vertices.is_empty() && vertices.iter().all(|v| matches!(v, Value::Node(_))), "{vertices:?}");
        assert_eq!(ex["Standard Result"]["status"]["code"], 200);
    }
}
