//! The Kuzu family's optimization switches (`CALL name=value` per
//! connection), verified on Kuzu 0.10-0.11.3 and LadybugDB.

use crate::switch::{OFF_ON, ON_OFF, Switch};

const SEMI_MASK: Switch = Switch {
    name: "enable_semi_mask",
    values: ON_OFF,
    default: "true",
    changes: "false removes the SEMI_MASKER operators that prune scans by the other side of a join",
};

const PLAN_OPTIMIZER: Switch = Switch {
    name: "enable_plan_optimizer",
    values: ON_OFF,
    default: "true",
    changes: "false skips the optimizer: TOP_K becomes ORDER_BY and LIMIT, hash joins cross products and filters",
};

const ZONE_MAP: Switch = Switch {
    name: "enable_zone_map",
    values: ON_OFF,
    default: "true",
    changes: "false scans every row instead of skipping zones by their min and max (execution only)",
};

const PACKED_PATH_EXTEND: Switch = Switch {
    name: "enable_packed_path_extend",
    values: OFF_ON,
    default: "false",
    changes: "true replaces SCAN_REL_TABLE with PACKED_EXTEND",
};

/// Kuzu's switches (0.10 and later).
pub const KUZU: &[Switch] = &[SEMI_MASK, PLAN_OPTIMIZER, ZONE_MAP];

/// LadybugDB's switches: Kuzu's and packed path extension.
pub const LADYBUG: &[Switch] = &[SEMI_MASK, PLAN_OPTIMIZER, ZONE_MAP, PACKED_PATH_EXTEND];

/// Settings that change neither plans nor answers, with the evidence.
pub const LEFT_OUT: &[(&str, &str)] = &[
    ("threads", "graphlancer runs one thread: with more, answers after OPTIONAL MATCH change from run to run"),
    ("recursive_pattern_semantic", "accepted and reported back, but no change to plans or answers (0.10-0.11.3)"),
    ("var_length_extend_max_depth", "only adds errors past the bound"),
    ("disable_map_key_check", "only whether duplicate map keys are an error"),
];
