//! FalkorDB's configuration space: it has no planner switch; indexes
//! change plans.

use crate::switch::{INDEX, Switch};

/// An index per (label, key) and (type, key).
pub const INDEX_ALL: Switch = Switch {
    name: "index",
    values: INDEX,
    default: "none",
    changes: "an index on every (label, key) and (type, key), made before the data: label scans become index scans",
};

/// FalkorDB's switches.
pub const SWITCHES: &[Switch] = &[INDEX_ALL];

/// Configuration that changes neither plans nor answers, with the evidence.
pub const LEFT_OUT: &[(&str, &str)] =
    &[("THREAD_COUNT, CACHE_SIZE, ...", "load-time or limits only; plans and answers unchanged on the queries tried")];
