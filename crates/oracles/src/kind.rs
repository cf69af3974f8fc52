//! The oracles by name, as the command line, the summary and every
//! finding's `case.json` spell them. A kind is only a name: what an oracle
//! can do is the oracle's own business ([`crate::oracle`]), so this layer
//! stays below every oracle and names none of them but the built-in ones
//! the campaign treats specially.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::{LazyLock, Mutex};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An oracle's name. Two spellings that differ only in hyphens are the same
/// oracle: `case.json` has always written `crosslanguage` for the
/// command line's `cross-language`, and still does.
#[derive(Debug, Clone, Copy)]
pub struct OracleKind(&'static str);

impl OracleKind {
    /// Compare one query's answers across engines, versions or settings.
    pub const DIFFERENTIAL: Self = Self("differential");
    /// Crashes, hangs and internal errors on valid queries.
    pub const CRASH: Self = Self("crash");
    /// Syntax, semantic and unsupported errors on queries Neo4j 5 accepts.
    pub const ERROR: Self = Self("error");
    /// Ternary logic partitioning: Q against Q∧p, Q∧¬p, Q∧(p IS NULL).
    pub const PARTITION: Self = Self("partition");
    /// Equivalent and subset rewrites of a generated query.
    pub const REWRITE: Self = Self("rewrite");
    /// GAMERA's graph-aware metamorphic relations.
    pub const METAMORPHIC: Self = Self("metamorphic");
    /// DOT: one engine's answers under its optimization settings.
    pub const SETTINGS: Self = Self("settings");
    /// One question asked of each engine in Cypher and in Gremlin.
    pub const CROSS_LANGUAGE: Self = Self("cross-language");

    /// The kind of an oracle called `name` on the command line.
    pub const fn named(name: &'static str) -> Self {
        Self(name)
    }

    /// The oracle's name on the command line.
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The name as `case.json` writes it, and as kinds compare.
    fn key(self) -> impl Iterator<Item = char> {
        self.0.chars().filter(|c| *c != '-')
    }
}

impl PartialEq for OracleKind {
    fn eq(&self, other: &Self) -> bool {
        self.key().eq(other.key())
    }
}

impl Eq for OracleKind {}

impl PartialOrd for OracleKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OracleKind {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(other.key())
    }
}

impl std::hash::Hash for OracleKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().for_each(|c| c.hash(state));
    }
}

impl std::fmt::Display for OracleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for OracleKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key().collect::<String>())
    }
}

/// Names read from files, each kept once: a kind is `Copy` and holds a
/// `&'static str`, and a campaign reads only a handful of distinct names.
static READ: LazyLock<Mutex<BTreeSet<&'static str>>> = LazyLock::new(Mutex::default);

impl<'de> Deserialize<'de> for OracleKind {
    /// The name as read; [`crate::oracle::known`] turns it into the
    /// registered oracle's kind (or refuses it).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        let mut read = READ.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let kept = match read.get(name.as_str()) {
            Some(k) => *k,
            None => {
                let k: &'static str = Box::leak(name.into_boxed_str());
                read.insert(k);
                k
            }
        };
        Ok(Self(kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_reads_back_as_case_json_has_always_spelled_it() {
        let text = serde_json::to_string(&OracleKind::CROSS_LANGUAGE).expect("serializes");
        assert_eq!(text, "\"crosslanguage\"");
        let back: OracleKind = serde_json::from_str(&text).expect("reads");
        assert_eq!(back, OracleKind::CROSS_LANGUAGE);
        assert_ne!(back, OracleKind::CRASH);
        assert_eq!(serde_json::to_string(&OracleKind::DIFFERENTIAL).expect("serializes"), "\"differential\"");
    }
}
