//! Optimization settings as data (DOT's configuration space): each engine's
//! switches that change a plan or how it runs, verified on the engines
//! here, and pairwise covering arrays over them. A spec carries settings
//! as a query string (`grafeo?factorized_execution=false`); a setting at
//! its default is dropped, so one configuration has one spec.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub use crate::switch::Switch;

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
    use crate::falkordb::settings::SWITCHES as FALKORDB;
    use crate::grafeo::settings::SWITCHES as GRAFEO;
    use crate::kuzu::settings::{KUZU, LADYBUG};

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
