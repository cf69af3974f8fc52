//! Generator configuration: a weight for every production, clause and depth
//! limits, and the presets. A TOML file can override any of it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::feature::Feature;

/// Named starting points for a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Queries whose answer is fully determined, for comparing engines: no
    /// SKIP/LIMIT without a total order, no nondeterministic functions, no
    /// integer overflow or division by zero, no equality on computed floats,
    /// no list whose order is left to the engine.
    #[default]
    Differential,
    /// Any valid query, larger, for crashes and hangs.
    Crash,
    /// Like `differential`, without writes.
    Readonly,
}

impl Preset {
    /// The preset's name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Differential => "differential",
            Preset::Crash => "crash",
            Preset::Readonly => "readonly",
        }
    }
}

/// Everything that steers generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeneratorConfig {
    /// The preset this configuration started from.
    pub preset: Preset,
    /// Fewest clauses in a single query, RETURN included.
    pub min_clauses: usize,
    /// Most clauses in a single query, RETURN included.
    pub max_clauses: usize,
    /// Deepest expression nesting.
    pub max_depth: u32,
    /// Only deterministic queries (set by the differential and readonly presets).
    pub deterministic: bool,
    /// Whether writing clauses may appear.
    pub writes: bool,
    /// Weight per production; missing means 1, 0 disables it.
    pub weights: BTreeMap<Feature, u32>,
    /// How often a numeric parameter of the grammar (literal, repetition
    /// bound, SKIP, LIMIT, index, string position) takes a boundary value,
    /// and a list or map literal is empty: 0 to 1.
    pub boundary: f64,
}

impl GeneratorConfig {
    /// The configuration of a preset.
    pub fn preset(preset: Preset) -> Self {
        let mut weights = BTreeMap::new();
        let (min_clauses, max_clauses, max_depth, deterministic, writes) = match preset {
            Preset::Differential => (3, 6, 3, true, true),
            Preset::Readonly => (3, 6, 3, true, false),
            Preset::Crash => (2, 10, 5, false, true),
        };
        // Writes are a small share of queries: each one costs a graph reload.
        for f in [Feature::Create, Feature::Merge, Feature::SetProperty, Feature::Delete, Feature::DetachDelete] {
            weights.insert(f, 1);
        }
        if deterministic {
            // A procedure lists an engine's catalogue, not the graph.
            for f in [Feature::FnRand, Feature::FnTimestamp, Feature::FnId, Feature::CallProcedure] {
                weights.insert(f, 0);
            }
        }
        let boundary = if deterministic { 0.05 } else { 0.2 };
        Self { preset, min_clauses, max_clauses, max_depth, deterministic, writes, weights, boundary }
    }

    /// The weight of a production (before the dialect profile is applied).
    pub fn weight(&self, f: Feature) -> u32 {
        self.weights.get(&f).copied().unwrap_or(1)
    }

    /// The weight a production gets under `profile`: 0 where the engine
    /// refuses it, or where a deterministic preset avoids a known bug.
    pub fn effective_weight(&self, profile: &crate::DialectProfile, f: Feature) -> u32 {
        let known_wrong = self.deterministic && profile.bugs.contains_key(&f);
        if profile.has(f) && !known_wrong { self.weight(f) } else { 0 }
    }

    /// The productions this configuration can generate under `profile`.
    pub fn enabled(&self, profile: &crate::DialectProfile) -> Vec<Feature> {
        Feature::ALL.iter().copied().filter(|f| self.effective_weight(profile, *f) > 0).collect()
    }

    /// Applies a TOML override, e.g.
    /// `preset = "crash"`, `max_clauses = 8`, `[weights] union = 0`.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        Self::from_toml_with(text, None)
    }

    /// Like [`GeneratorConfig::from_toml`], with the preset given on the
    /// command line taking the place of the file's.
    pub fn from_toml_with(text: &str, preset: Option<Preset>) -> Result<Self, ConfigError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            preset: Option<Preset>,
            min_clauses: Option<usize>,
            max_clauses: Option<usize>,
            max_depth: Option<u32>,
            writes: Option<bool>,
            boundary: Option<f64>,
            #[serde(default)]
            weights: BTreeMap<String, u32>,
        }
        let file: File = toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        let mut c = Self::preset(preset.or(file.preset).unwrap_or_default());
        if let Some(v) = file.min_clauses {
            c.min_clauses = v;
        }
        if let Some(v) = file.max_clauses {
            c.max_clauses = v;
        }
        if let Some(v) = file.max_depth {
            c.max_depth = v;
        }
        if let Some(v) = file.writes {
            c.writes = v;
        }
        if let Some(v) = file.boundary {
            c.boundary = v;
        }
        for (name, w) in file.weights {
            let f: Feature = name.parse().map_err(|e| ConfigError(format!("[weights]: {e}")))?;
            c.weights.insert(f, w);
        }
        c.validate()?;
        Ok(c)
    }

    /// Checks the limits.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.min_clauses < 1 {
            return Err(ConfigError("min_clauses must be at least 1 (the RETURN)".into()));
        }
        if self.min_clauses > self.max_clauses {
            return Err(ConfigError(format!(
                "min_clauses {} exceeds max_clauses {}",
                self.min_clauses, self.max_clauses
            )));
        }
        if self.max_clauses > 64 {
            return Err(ConfigError("max_clauses is at most 64".into()));
        }
        if !(0.0..=1.0).contains(&self.boundary) {
            return Err(ConfigError(format!("boundary is a probability from 0 to 1, not {}", self.boundary)));
        }
        if self.max_depth > 12 {
            return Err(ConfigError("max_depth is at most 12".into()));
        }
        Ok(())
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid generator configuration: {0}")]
pub struct ConfigError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_overrides_and_rejects_unknowns() {
        let c = GeneratorConfig::from_toml("preset = 'crash'\nmax_clauses = 8\n[weights]\nunion = 0\nfn_toUpper = 3")
            .expect("valid");
        assert_eq!(c.preset, Preset::Crash);
        assert_eq!(c.max_clauses, 8);
        assert_eq!(c.weight(Feature::Union), 0);
        assert_eq!(c.weight(Feature::FnToUpper), 3);
        assert!(GeneratorConfig::from_toml("nope = 1").is_err());
        assert!(GeneratorConfig::from_toml("[weights]\nnope = 1").is_err());
        assert!(GeneratorConfig::from_toml("min_clauses = 5\nmax_clauses = 2").is_err());
        assert!(GeneratorConfig::preset(Preset::Differential).weight(Feature::FnRand) == 0);
    }
}
