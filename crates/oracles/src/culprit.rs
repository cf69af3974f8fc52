//! What localization blames for a wrong answer: the name a localized
//! finding's signature carries ([`crate::signature::Fault::Culprit`]). Code
//! decides by its variant; files keep the text it always had, so findings
//! written before read the same.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The operation behind a wrong answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Culprit {
    /// Rows merged by their keys (a DISTINCT, or aggregates' grouping).
    Grouping {
        /// What else the projection does (`ORDER BY`, `SKIP`, ...).
        with: Vec<String>,
        /// The keys' kinds, `;` between keys.
        keys: String,
    },
    /// Rows grouped wrongly, one answer holding a key twice.
    RepeatedKeys,
    /// A read that misses the writes before it.
    ReadAfterWrites,
    /// The rows after a clause, by the clause's shape.
    RowsAfter(String),
    /// Writes these engines pipeline into later reads of the same query.
    PipelinedWrites(Vec<String>),
    /// A relationship's endpoints read wrongly.
    RelEndpoints,
    /// An entity an engine answers as a number.
    EntityAsNumber(String),
    /// An operation wrong for a null operand: its kind and the operand's type.
    NullOperand(String),
    /// The deepest sub-expression whose value differs: its kind and its
    /// operands' types, e.g. `list(Int,Null)`.
    Value(String),
}

impl Culprit {
    /// Whether rows were merged wrongly, whatever the keys.
    pub fn is_grouping(&self) -> bool {
        matches!(self, Self::Grouping { .. } | Self::RepeatedKeys)
    }

    /// Whether it names the rows after a clause (`rows-after(...)`), which a
    /// signature shows as is; other culprits show as a value.
    pub fn is_rows(&self) -> bool {
        matches!(self, Self::Grouping { .. } | Self::RepeatedKeys | Self::ReadAfterWrites | Self::RowsAfter(_))
    }
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Grouping { with, keys } => {
                f.write_str("rows-after(grouping")?;
                for w in with {
                    write!(f, ",{w}")?;
                }
                write!(f, ",keys:{keys})")
            }
            Self::RepeatedKeys => f.write_str(REPEATED_KEYS),
            Self::ReadAfterWrites => f.write_str(READ_AFTER_WRITES),
            Self::RowsAfter(shape) => write!(f, "rows-after({shape})"),
            Self::PipelinedWrites(engines) => write!(f, "pipelined-writes({})", engines.join(",")),
            Self::RelEndpoints => f.write_str("rel-endpoints"),
            Self::EntityAsNumber(engine) => write!(f, "entity-as-number({engine})"),
            Self::NullOperand(kind) => write!(f, "null-operand:{kind}"),
            Self::Value(kind) => f.write_str(kind),
        }
    }
}

const REPEATED_KEYS: &str = "rows-after(grouping,repeated keys)";
const READ_AFTER_WRITES: &str = "rows-after(read,after writes)";

/// Reads the text [`Culprit`]'s `Display` writes; any text reads as some
/// culprit, and writes back as it was.
impl FromStr for Culprit {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let inside = |prefix: &str| s.strip_prefix(prefix).and_then(|r| r.strip_suffix(')'));
        Ok(match s {
            REPEATED_KEYS => Self::RepeatedKeys,
            READ_AFTER_WRITES => Self::ReadAfterWrites,
            "rel-endpoints" => Self::RelEndpoints,
            _ => {
                if let Some(shape) = inside("rows-after(") {
                    grouping(shape).unwrap_or_else(|| Self::RowsAfter(shape.to_owned()))
                } else if let Some(engines) = inside("pipelined-writes(") {
                    Self::PipelinedWrites(engines.split(',').map(str::to_owned).collect())
                } else if let Some(engine) = inside("entity-as-number(") {
                    Self::EntityAsNumber(engine.to_owned())
                } else if let Some(kind) = s.strip_prefix("null-operand:") {
                    Self::NullOperand(kind.to_owned())
                } else {
                    Self::Value(s.to_owned())
                }
            }
        })
    }
}

/// `grouping[,W...],keys:K` as a grouping culprit.
fn grouping(shape: &str) -> Option<Culprit> {
    let rest = shape.strip_prefix("grouping")?;
    let at = rest.find(",keys:")?;
    let with = match &rest[..at] {
        "" => Vec::new(),
        w => w.strip_prefix(',')?.split(',').map(str::to_owned).collect(),
    };
    Some(Culprit::Grouping { with, keys: rest[at + ",keys:".len()..].to_owned() })
}

/// Ordered as their texts are, as signatures were before culprits had variants.
impl Ord for Culprit {
    fn cmp(&self, other: &Self) -> Ordering {
        self.to_string().cmp(&other.to_string())
    }
}

impl PartialOrd for Culprit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Serialize for Culprit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Culprit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(text.parse().unwrap_or_else(|never| match never {}))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn each_culprit_reads_back_from_the_text_it_writes() {
        let all = [
            Culprit::Grouping { with: Vec::new(), keys: "Int;constant".into() },
            Culprit::Grouping { with: vec!["ORDER BY".into(), "LIMIT".into()], keys: "list(Int,Null)".into() },
            Culprit::RepeatedKeys,
            Culprit::ReadAfterWrites,
            Culprit::RowsAfter("MATCH,OPTIONAL".into()),
            Culprit::PipelinedWrites(vec!["falkordb".into(), "grafeo".into()]),
            Culprit::RelEndpoints,
            Culprit::EntityAsNumber("kuzu".into()),
            Culprit::NullOperand("op:+(null String)".into()),
            Culprit::Value("list(Int,Null)".into()),
        ];
        for c in all {
            assert_eq!(c.to_string().parse::<Culprit>().expect("reads"), c, "{c}");
        }
        assert_eq!(
            Culprit::Grouping { with: Vec::new(), keys: "Int".into() }.to_string(),
            "rows-after(grouping,keys:Int)"
        );
        assert!(Culprit::RepeatedKeys.is_grouping() && !Culprit::ReadAfterWrites.is_grouping());
        assert!(Culprit::ReadAfterWrites.is_rows() && !Culprit::NullOperand("x".into()).is_rows());
    }

    proptest! {
        /// Whatever a file holds is written back unchanged.
        #[test]
        fn any_text_writes_back_as_it_was(s in "(rows-after\\(|pipelined-writes\\(|entity-as-number\\(|null-operand:)?(grouping)?[,a-z:;() ]{0,24}\\)?") {
            prop_assert_eq!(s.parse::<Culprit>().expect("reads").to_string(), s);
        }
    }
}
