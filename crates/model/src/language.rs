//! The query languages graphlancer generates.

use serde::{Deserialize, Serialize};

/// A query language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// openCypher, in each engine's dialect.
    #[default]
    Cypher,
    /// Apache TinkerPop's Gremlin, in each engine's dialect.
    Gremlin,
}

impl Language {
    /// The language's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Language::Cypher => "cypher",
            Language::Gremlin => "gremlin",
        }
    }

    /// Whether this is the default, so serialized cases can leave it out.
    pub fn is_cypher(&self) -> bool {
        *self == Language::Cypher
    }
}

impl std::str::FromStr for Language {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cypher" => Ok(Language::Cypher),
            "gremlin" => Ok(Language::Gremlin),
            other => Err(format!("unknown language '{other}' (known: cypher, gremlin)")),
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
