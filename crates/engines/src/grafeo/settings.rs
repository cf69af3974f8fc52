//! Grafeo's optimization switches (its `Config`), verified on 0.5.44.

use crate::switch::{INDEX, OFF_ON, ON_OFF, Switch};

/// Fused expansion chains.
pub const FACTORIZED_EXECUTION: Switch = Switch {
    name: "factorized_execution",
    values: ON_OFF,
    default: "true",
    changes: "fuses chains of single-hop expands, and ungrouped aggregates over them, into factorized operators",
};

/// Rows in a random order.
pub const SHUFFLE_UNORDERED: Switch = Switch {
    name: "shuffle_unordered",
    values: OFF_ON,
    default: "false",
    changes: "returns rows in a random order where no ORDER BY fixes one",
};

/// An index per (label, key).
pub const INDEX_ALL: Switch = Switch {
    name: "index",
    values: INDEX,
    default: "none",
    changes: "an index on every (label, key), made before the data: filters become index seeks or range scans",
};

/// Grafeo 0.5.44's switches.
pub const SWITCHES: &[Switch] = &[FACTORIZED_EXECUTION, SHUFFLE_UNORDERED, INDEX_ALL];

/// Config fields that change neither plans nor answers, with the evidence.
pub const LEFT_OUT: &[(&str, &str)] = &[
    ("adaptive", "Config field never read in 0.5.44 (marked dead code); plans and answers unchanged"),
    ("backward_edges", "the store is always created with defaults in 0.5.44; no change"),
    ("threads", "only validated, never read in 0.5.44; no change"),
];
