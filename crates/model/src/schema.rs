//! The shape of a generated graph: node labels, relationship types with the
//! label pairs they join, and typed property keys. Generated from a seed.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use serde::{Deserialize, Serialize};

use crate::rng::CaseRng;

/// The type every value of one property key has, across all labels and types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PropertyType {
    /// 64-bit integer.
    Int,
    /// 64-bit float.
    Float,
    /// UTF-8 string.
    String,
    /// Boolean.
    Bool,
}

impl PropertyType {
    /// Every property type, in a fixed order.
    pub const ALL: [PropertyType; 4] =
        [PropertyType::Int, PropertyType::Float, PropertyType::String, PropertyType::Bool];

    /// The type's name in upper case, as schema comments and DDL spell it.
    pub fn name(self) -> &'static str {
        match self {
            PropertyType::Int => "INT",
            PropertyType::Float => "FLOAT",
            PropertyType::String => "STRING",
            PropertyType::Bool => "BOOL",
        }
    }
}

/// A property key and its type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyKeyDef {
    /// The key's name.
    pub name: String,
    /// The type of its values.
    #[serde(rename = "type")]
    pub ty: PropertyType,
}

/// A node label and the property keys its nodes may carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelDef {
    /// The label's name.
    pub name: String,
    /// Names of the keys nodes with this label may carry.
    pub keys: Vec<String>,
}

/// A relationship type, the keys it may carry and the label pairs it joins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelTypeDef {
    /// The type's name.
    pub name: String,
    /// Names of the keys relationships of this type may carry.
    pub keys: Vec<String>,
    /// The (start label, end label) pairs this type may join.
    pub endpoints: Vec<(String, String)>,
}

/// A generated schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    /// Every property key, with its type.
    pub keys: Vec<PropertyKeyDef>,
    /// Node labels.
    pub labels: Vec<LabelDef>,
    /// Relationship types.
    pub rel_types: Vec<RelTypeDef>,
}

/// An inclusive range of counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// The smallest count.
    pub min: usize,
    /// The largest count.
    pub max: usize,
}

impl Span {
    /// A span from `min` to `max`, inclusive.
    pub const fn new(min: usize, max: usize) -> Self {
        Self { min, max }
    }

    fn sample(self, rng: &mut CaseRng) -> usize {
        rng.random_range(self.min..=self.max)
    }
}

/// How large and varied generated schemas are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchemaConfig {
    /// Number of node labels.
    pub labels: Span,
    /// Number of relationship types.
    pub rel_types: Span,
    /// Number of property keys.
    pub keys: Span,
    /// Keys per label or relationship type.
    pub keys_per_owner: Span,
    /// Label pairs per relationship type.
    pub endpoints_per_type: Span,
}

impl Default for SchemaConfig {
    fn default() -> Self {
        Self {
            labels: Span::new(2, 4),
            rel_types: Span::new(2, 4),
            keys: Span::new(4, 8),
            keys_per_owner: Span::new(1, 4),
            endpoints_per_type: Span::new(1, 3),
        }
    }
}

/// A configuration value that cannot produce a schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid schema configuration: {0}")]
pub struct ConfigError(pub String);

impl SchemaConfig {
    /// Checks that every span is well formed and non-empty where it must be.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let spans = [
            ("labels", self.labels),
            ("rel_types", self.rel_types),
            ("keys", self.keys),
            ("keys_per_owner", self.keys_per_owner),
            ("endpoints_per_type", self.endpoints_per_type),
        ];
        for (name, span) in spans {
            if span.min > span.max {
                return Err(ConfigError(format!("{name}: min {} exceeds max {}", span.min, span.max)));
            }
        }
        for (name, span) in [("labels", self.labels), ("rel_types", self.rel_types), ("keys", self.keys)] {
            if span.min == 0 {
                return Err(ConfigError(format!("{name}: at least one is needed")));
            }
        }
        if self.endpoints_per_type.min == 0 {
            return Err(ConfigError("endpoints_per_type: at least one pair is needed".into()));
        }
        Ok(())
    }
}

impl Schema {
    /// Generates a schema. The config must have passed [`SchemaConfig::validate`].
    pub fn generate(config: &SchemaConfig, rng: &mut CaseRng) -> Schema {
        let key_count = config.keys.sample(rng);
        let keys: Vec<PropertyKeyDef> = (0..key_count)
            .map(|i| PropertyKeyDef {
                name: format!("k{i}"),
                // The first four keys cover every type; the rest are drawn.
                ty: if i < PropertyType::ALL.len() {
                    PropertyType::ALL[i]
                } else {
                    *PropertyType::ALL.choose(rng).expect("ALL is not empty")
                },
            })
            .collect();
        let pick_keys = |rng: &mut CaseRng| {
            let n = config.keys_per_owner.sample(rng).min(keys.len());
            let mut chosen: Vec<String> = keys.choose_multiple(rng, n).map(|k| k.name.clone()).collect();
            chosen.sort_by_key(|k| key_index(k));
            chosen
        };
        let labels: Vec<LabelDef> =
            (0..config.labels.sample(rng)).map(|i| LabelDef { name: format!("L{i}"), keys: pick_keys(rng) }).collect();
        let mut pairs: Vec<(String, String)> =
            labels.iter().flat_map(|a| labels.iter().map(move |b| (a.name.clone(), b.name.clone()))).collect();
        let rel_types = (0..config.rel_types.sample(rng))
            .map(|i| {
                let keys = pick_keys(rng);
                pairs.shuffle(rng);
                let n = config.endpoints_per_type.sample(rng).min(pairs.len());
                let mut endpoints = pairs[..n].to_vec();
                endpoints.sort();
                RelTypeDef { name: format!("T{i}"), keys, endpoints }
            })
            .collect();
        Schema { keys, labels, rel_types }
    }

    /// The type of a property key, if the schema has it.
    pub fn key_type(&self, key: &str) -> Option<PropertyType> {
        self.keys.iter().find(|k| k.name == key).map(|k| k.ty)
    }

    /// The label definition named `name`.
    pub fn label(&self, name: &str) -> Option<&LabelDef> {
        self.labels.iter().find(|l| l.name == name)
    }

    /// The relationship type definition named `name`.
    pub fn rel_type(&self, name: &str) -> Option<&RelTypeDef> {
        self.rel_types.iter().find(|t| t.name == name)
    }
}

fn key_index(name: &str) -> usize {
    name.trim_start_matches('k').parse().unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::derive_rng;

    #[test]
    fn schemas_are_well_formed_over_many_seeds() {
        let config = SchemaConfig::default();
        for seed in 0..200 {
            let s = Schema::generate(&config, &mut derive_rng(seed, &[1]));
            assert!((2..=4).contains(&s.labels.len()));
            for owner_keys in s.labels.iter().map(|l| &l.keys).chain(s.rel_types.iter().map(|t| &t.keys)) {
                assert!(!owner_keys.is_empty());
                assert!(owner_keys.iter().all(|k| s.key_type(k).is_some()));
            }
            for t in &s.rel_types {
                assert!(!t.endpoints.is_empty());
                assert!(t.endpoints.iter().all(|(a, b)| s.label(a).is_some() && s.label(b).is_some()));
            }
        }
    }

    #[test]
    fn bad_configs_are_refused() {
        let c = SchemaConfig { labels: Span::new(3, 1), ..SchemaConfig::default() };
        assert!(c.validate().is_err());
        let c = SchemaConfig { labels: Span::new(0, 0), ..SchemaConfig::default() };
        assert!(c.validate().is_err());
        assert!(SchemaConfig::default().validate().is_ok());
    }
}
