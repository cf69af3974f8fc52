//! What every Gremlin adapter shares: an answer is one value per traverser,
//! in a result set of one column, so answers of different engines compare
//! as bags (or lists) of traversers whatever shape each engine returns.

use graphlancer_model::{ResultSet, Value};

/// The one column of a Gremlin answer.
pub const COLUMN: &str = "traverser";

/// The result set of `values`, one row per traverser. An element map's `id`
/// entry is dropped: it is the engine's own id, which differs between
/// engines by design (the generated identity is the `gid` property).
pub fn traversers(values: Vec<Value>) -> ResultSet {
    ResultSet::new(vec![COLUMN.to_owned()], values.into_iter().map(|v| vec![without_engine_id(v)]).collect())
}

fn without_engine_id(v: Value) -> Value {
    match v {
        Value::Map(mut m) if m.contains_key("label") => {
            m.remove("id");
            Value::Map(m)
        }
        other => other,
    }
}
