//! Optimization settings as data (DOT's configuration space): each engine's
//! switches that change a plan or how it runs, verified on the engines
//! here, and pairwise covering arrays over them. A spec carries settings
//! as a query string (`grafeo?factorized_execution=false`); a setting at
//! its default is dropped, so one configuration has one spec.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One switch: its name in specs, its values, the default first among
/// them, and what it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    /// The name in specs (the engine's own name where it has one).
    pub name: &'static str,
    /// The values it takes.
    pub values: &'static [&'static str],
    /// The engine's default.
    pub default: &'static str,
    /// What it changes in a plan or its execution, as measured.
    pub changes: &'static str,
}

const ON_OFF: &[&str] = &["true", "false"];
const OFF_ON: &[&str] = &["false", "true"];
const INDEX: &[&str] = &["none", "all"];

/// Grafeo: fused expansion chains.
pub const FACTORIZED_EXECUTION: Switch = Switch {
    name: "factorized_execution",
    values: ON_OFF,
    default: "true",
    changes: "fuses chains of single-hop expands, and ungrouped aggregates over them, into factorized operators",
};

/// Grafeo: rows in a random order.
pub const SHUFFLE_UNORDERED: Switch = Switch {
    name: "shuffle_unordered",
    values: OFF_ON,
    default: "false",
    changes: "returns rows in a random order where no ORDER BY fixes one",
};

/// Grafeo: an index per (label, key).
pub const GRAFEO_INDEX: Switch = Switch {
    name: "index",
    values: INDEX,
    default: "none",
    changes: "an index on every (label, key), made before the data: filters become index seeks or range scans",
};

/// FalkorDB: an index per (label, key) and (type, key).
pub const FALKORDB_INDEX: Switch = Switch {
    name: "index",
    values: INDEX,
    default: "none",
    changes: "an index on every (label, key) and (type, key), made before the data: label scans become index scans",
};

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

/// Grafeo 0.5.44's switches.
pub const GRAFEO: &[Switch] = &[FACTORIZED_EXECUTION, SHUFFLE_UNORDERED, GRAFEO_INDEX];

/// Kuzu's switches (0.10 and later; `CALL name=value` per connection).
pub const KUZU: &[Switch] = &[SEMI_MASK, PLAN_OPTIMIZER, ZONE_MAP];

/// LadybugDB's switches: Kuzu's and packed path extension.
pub const LADYBUG: &[Switch] = &[SEMI_MASK, PLAN_OPTIMIZER, ZONE_MAP, PACKED_PATH_EXTEND];

/// FalkorDB's: it has no planner switch; indexes change plans.
pub const FALKORDB: &[Switch] = &[FALKORDB_INDEX];

/// Switches the engines have that change neither plans nor answers here,
/// with the evidence: left out of every configuration space.
pub const LEFT_OUT: &[(&str, &str, &str)] = &[
    ("grafeo", "adaptive", "Config field never read in 0.5.44 (marked dead code); plans and answers unchanged"),
    ("grafeo", "backward_edges", "the store is always created with defaults in 0.5.44; no change"),
    ("grafeo", "threads", "only validated, never read in 0.5.44; no change"),
    ("kuzu", "threads", "graphlancer runs one thread: with more, answers after OPTIONAL MATCH change from run to run"),
    (
        "kuzu",
        "recursive_pattern_semantic",
        "accepted and reported back, but no change to plans or answers (0.10-0.11.3)",
    ),
    ("kuzu", "var_length_extend_max_depth", "only adds errors past the bound"),
    ("kuzu", "disable_map_key_check", "only whether duplicate map keys are an error"),
    (
        "falkordb",
        "THREAD_COUNT, CACHE_SIZE, ...",
        "load-time or limits only; plans and answers unchanged on the queries tried",
    ),
];

/// The engine families that have switches, for listings and errors.
pub const FAMILIES: &[&str] = &["grafeo", "kuzu", "ladybug", "ryugraph", "falkordb"];

/// The switches of an engine family (one of [`FAMILIES`]); none for the others.
pub fn switches(family: &str) -> &'static [Switch] {
    match family {
        "grafeo" => GRAFEO,
        "kuzu" => KUZU,
        "ladybug" => LADYBUG,
        // RyuGraph 25.9 refuses packed path extension, as Kuzu does.
        "ryugraph" => KUZU,
        "falkordb" => FALKORDB,
        _ => &[],
    }
}

/// The settings of one configuration: the switches not at their default.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Settings(BTreeMap<String, String>);

impl Settings {
    /// Reads `a=x&b=y` against `switches`: an unknown name or value is an
    /// error that lists what there is.
    pub fn parse(query: &str, switches: &[Switch]) -> Result<Self, String> {
        let mut out = BTreeMap::new();
        for option in query.split('&').filter(|o| !o.is_empty()) {
            let (name, value) = option.split_once('=').ok_or_else(|| format!("'{option}' is not name=value"))?;
            let switch = switches.iter().find(|s| s.name == name).ok_or_else(|| {
                if switches.is_empty() {
                    "this engine has no settings".to_owned()
                } else {
                    format!("unknown setting '{name}' (settings: {})", listing(switches))
                }
            })?;
            if !switch.values.contains(&value) {
                return Err(format!("'{value}' is not a value of {name} ({})", switch.values.join("|")));
            }
            if out.insert(name.to_owned(), value.to_owned()).is_some() {
                return Err(format!("{name} is set twice"));
            }
            if value == switch.default {
                out.remove(name);
            }
        }
        Ok(Self(out))
    }

    /// The value of `switch` here.
    pub fn value<'a>(&'a self, switch: &'a Switch) -> &'a str {
        self.0.get(switch.name).map_or(switch.default, String::as_str)
    }

    /// Whether every switch is at its default.
    pub fn is_default(&self) -> bool {
        self.0.is_empty()
    }

    /// The switches not at their default, with their values.
    pub fn changed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// `?a=x&b=y`, or nothing at the defaults.
    pub fn suffix(&self) -> String {
        if self.0.is_empty() { String::new() } else { format!("?{self}") }
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join("&"))
    }
}

/// `name=a|b, ...`, for errors and listings.
pub fn listing(switches: &[Switch]) -> String {
    switches.iter().map(|s| format!("{}={}", s.name, s.values.join("|"))).collect::<Vec<_>>().join(", ")
}

/// Configurations covering every pair of switch values (DOT's pairwise
/// covering array), not counting the default: first each switch flipped
/// alone (so a difference is pinned on one switch where one suffices),
/// then, greedily, the configuration covering the most pairs still
/// uncovered, until none is left. Deterministic: ties go to the first
/// configuration in the order of the switches and their values.
pub fn pairwise(switches: &[Switch]) -> Vec<Settings> {
    let at = |choice: &[usize]| -> Settings {
        Settings(
            switches
                .iter()
                .zip(choice)
                .filter(|(s, v)| s.values[**v] != s.default)
                .map(|(s, v)| (s.name.to_owned(), s.values[*v].to_owned()))
                .collect(),
        )
    };
    let default: Vec<usize> =
        switches.iter().map(|s| s.values.iter().position(|v| *v == s.default).unwrap_or(0)).collect();
    let pairs_of = |choice: &[usize]| -> Vec<(usize, usize, usize, usize)> {
        let mut out = Vec::new();
        for i in 0..choice.len() {
            for j in i + 1..choice.len() {
                out.push((i, choice[i], j, choice[j]));
            }
        }
        out
    };
    // Every full configuration: switch spaces here are a handful of
    // switches, so enumerating them is cheap.
    let mut all: Vec<Vec<usize>> = vec![Vec::new()];
    for s in switches {
        all =
            all.into_iter().flat_map(|row| (0..s.values.len()).map(move |v| [row.clone(), vec![v]].concat())).collect();
    }
    let mut rows: Vec<Vec<usize>> = vec![default.clone()];
    for (i, s) in switches.iter().enumerate() {
        for v in (0..s.values.len()).filter(|&v| v != default[i]) {
            let mut row = default.clone();
            row[i] = v;
            rows.push(row);
        }
    }
    let covered: BTreeSet<_> = rows.iter().flat_map(|r| pairs_of(r)).collect();
    let mut uncovered: BTreeSet<_> = all.iter().flat_map(|r| pairs_of(r)).filter(|p| !covered.contains(p)).collect();
    while !uncovered.is_empty() {
        let best = all
            .iter()
            .max_by_key(|row| (pairs_of(row).iter().filter(|p| uncovered.contains(p)).count(), std::cmp::Reverse(*row)))
            .expect("a configuration covers any uncovered pair")
            .clone();
        for p in pairs_of(&best) {
            uncovered.remove(&p);
        }
        rows.push(best);
    }
    rows.iter().skip(1).map(|r| at(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_drop_defaults_and_refuse_what_is_not_there() {
        let s = Settings::parse("shuffle_unordered=true&factorized_execution=true", GRAFEO).expect("parses");
        assert_eq!(s.suffix(), "?shuffle_unordered=true");
        assert!(Settings::parse("factorized_execution=true", GRAFEO).expect("parses").is_default());
        let err = Settings::parse("turbo=on", GRAFEO).expect_err("unknown");
        assert!(err.contains("unknown setting 'turbo'") && err.contains("factorized_execution=true|false"), "{err}");
        assert!(Settings::parse("index=some", GRAFEO).expect_err("bad value").contains("none|all"));
        assert!(Settings::parse("index=all&index=none", GRAFEO).is_err());
        assert!(Settings::parse("index", GRAFEO).is_err());
    }

    #[test]
    fn pairwise_covers_every_pair_with_single_flips_first() {
        for switches in [GRAFEO, KUZU, LADYBUG, FALKORDB] {
            let configs = pairwise(switches);
            // Each switch flipped alone comes first.
            for (i, s) in switches.iter().enumerate() {
                assert_eq!(configs[i].changed().collect::<Vec<_>>(), vec![(s.name, s.values[1])]);
            }
            let rows: Vec<Settings> = std::iter::once(Settings::default()).chain(configs.iter().cloned()).collect();
            for (i, a) in switches.iter().enumerate() {
                for b in &switches[i + 1..] {
                    for va in a.values {
                        for vb in b.values {
                            assert!(
                                rows.iter().any(|r| r.value(a) == *va && r.value(b) == *vb),
                                "{}={va} with {}={vb} uncovered",
                                a.name,
                                b.name
                            );
                        }
                    }
                }
            }
            // Booleans: the defaults, one flip each, and everything flipped.
            assert_eq!(configs.len(), switches.len() + usize::from(switches.len() > 1), "{configs:?}");
        }
    }
}
