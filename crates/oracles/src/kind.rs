//! The oracles by name, as the command line, the summary and every
//! finding's `case.json` spell them.

use serde::{Deserialize, Serialize};

/// The oracles a campaign can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OracleKind {
    /// Compare one query's answers across engines, versions or settings.
    Differential,
    /// Crashes, hangs and internal errors on valid queries.
    Crash,
    /// Syntax, semantic and unsupported errors on queries the profile promises.
    Error,
    /// Ternary logic partitioning: Q against Q∧p, Q∧¬p, Q∧(p IS NULL).
    Partition,
    /// Equivalent and subset rewrites of a generated query.
    Rewrite,
    /// GAMERA's graph-aware metamorphic relations.
    Metamorphic,
    /// DOT: one engine's answers under its optimization settings.
    Settings,
    /// One question asked of each engine in Cypher and in Gremlin.
    CrossLanguage,
}

impl OracleKind {
    /// Every oracle, in the order verdicts are asked for: a crashed engine
    /// has no answer to compare, so the crash oracle speaks first.
    pub const ALL: [OracleKind; 8] = [
        OracleKind::Crash,
        OracleKind::Error,
        OracleKind::Differential,
        OracleKind::Partition,
        OracleKind::Rewrite,
        OracleKind::Metamorphic,
        OracleKind::Settings,
        OracleKind::CrossLanguage,
    ];

    /// The oracle's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OracleKind::Differential => "differential",
            OracleKind::Crash => "crash",
            OracleKind::Error => "error",
            OracleKind::Partition => "partition",
            OracleKind::Rewrite => "rewrite",
            OracleKind::Metamorphic => "metamorphic",
            OracleKind::Settings => "settings",
            OracleKind::CrossLanguage => "cross-language",
        }
    }

    /// Whether the oracle judges answers of a pair of engines (or of
    /// configurations of one) against each other: its findings are
    /// localized, and reduction keeps relationship-uniqueness guards.
    pub fn compares_a_pair(self) -> bool {
        matches!(self, OracleKind::Differential | OracleKind::Settings)
    }

    /// Whether the oracle works on Gremlin too (it judges a query's
    /// outcomes without rewriting it).
    pub fn speaks_gremlin(self) -> bool {
        matches!(self, OracleKind::Crash | OracleKind::Error | OracleKind::Differential)
    }

    /// Whether the oracle reads row values (and so needs adapters to decode
    /// them and queries to be deterministic).
    pub fn reads_values(self) -> bool {
        !matches!(self, OracleKind::Crash | OracleKind::Error)
    }
}

impl std::str::FromStr for OracleKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OracleKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let known: Vec<&str> = OracleKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown oracle '{s}' (known: {})", known.join(", "))
        })
    }
}

impl std::fmt::Display for OracleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
