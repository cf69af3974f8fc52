//! Plans as operator names, from each engine's `EXPLAIN`: the optimizations
//! a query used (DOT reads TinkerPop's applied strategies the same way).

use graphlancer_model::Value;

/// The text of a plan cell.
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
