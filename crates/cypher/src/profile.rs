//! Dialect profiles: which productions an engine accepts and how it answers
//! where engines disagree by design. Built in as TOML (`profiles/*.toml`),
//! one per engine; a user file can replace one. Differential testing
//! generates from the intersection of the profiles of the engines compared.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::feature::Feature;

/// What one engine (or the intersection of several) accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectProfile {
    /// The profile's name, e.g. `falkordb` or `falkordb&grafeo`.
    pub name: String,
    /// Enabled productions.
    pub features: BTreeSet<Feature>,
    /// Disabled productions with the reason each is off.
    pub disabled: BTreeMap<Feature, String>,
    /// Productions the engine accepts but answers wrongly, with the
    /// evidence: deterministic presets avoid them, the crash preset keeps them.
    pub bugs: BTreeMap<Feature, String>,
    /// Narrower known bugs (a shape of query, not a whole production), each
    /// with its evidence: the generator always steers around them.
    pub known_bugs: BTreeMap<KnownBug, String>,
    /// Semantics where engines differ by design, e.g. `sum_of_integers =
    /// "float"`. A key the engines of an intersection answer differently on
    /// has the value [`DIFFERS`].
    pub semantics: BTreeMap<SemanticsKey, String>,
    /// What graphs the engine can hold.
    pub graph: GraphLimits,
    /// Productions turned off because a probe of an engine release found
    /// it refuses them ([`DialectProfile::refuse`]), with the evidence;
    /// also in `disabled`.
    pub learned: BTreeMap<Feature, String>,
    /// A query per known bug (by its `[bugs]` name) that shows it on a
    /// small graph: run on each release beside the reference, it says
    /// whether the bug is live there (`[witness]`).
    pub witnesses: BTreeMap<String, String>,
    /// What the witnesses found, per `[bugs]` name: `live on RELEASE` or
    /// `fixed on RELEASE`. A fixed bug no longer steers the generator.
    pub tracked: BTreeMap<String, String>,
    /// Known bugs a campaign tracks rather than steers around, by `[bugs]`
    /// name, with the evidence ([`DialectProfile::watch`]).
    pub watched: BTreeMap<String, String>,
    /// Shapes of known bugs that a probe found a release refuses outright
    /// (Kuzu 0.1.0 binds no `r1 <> r2`): also in `known_bugs`, and steered
    /// around even where known bugs are watched, since a refusal is a
    /// feature the release lacks, not a bug to track.
    pub refused_shapes: BTreeSet<KnownBug>,
}

/// A behaviour engines differ on by design, named in a profile's
/// `[semantics]` table; an unknown name is refused when the profile loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SemanticsKey {
    /// How `round()` breaks ties: `away_from_zero`, `towards_positive_infinity`.
    RoundHalf,
    /// Integer `/`: `truncate`.
    IntegerDivision,
    /// What `sum()` of integers returns: `integer`, `float`, `int128`.
    SumOfIntegers,
    /// Whether a relationship is bound at most once per pattern: `yes`, `no`.
    RelationshipUniqueness,
    /// Whether MATCH may follow OPTIONAL MATCH with no WITH between: `yes`, `no`.
    MatchAfterOptionalMatch,
    /// What string length counts: `bytes`, `code_points`.
    StringLength,
    /// Equality of floats: `exact`, `approximate`.
    FloatEquality,
    /// A missing key in a map projection: `null`, `dropped`.
    MapProjectionMissing,
    /// Whether `CASE null WHEN null` takes its branch: `matches`, `no-match`.
    CaseNullWhenNull,
    /// Whether a WITH's ORDER BY needs SKIP or LIMIT (Kuzu refuses it without): `yes`.
    WithOrderByNeedsLimit,
    /// `null + 'a'`: `null`, or `empty string` where null reads as ''.
    StringConcatNull,
    /// How `\t`, `\n` in a literal are read, where engines differ.
    StringEscapes,
    /// SET of a key the entity's table lacks: `ignored` (Kuzu's fixed
    /// tables); openCypher stores it.
    SetMissingKey,
}

impl SemanticsKey {
    /// The values a profile may give the key: the closed set code decides
    /// by, so a misspelt value is refused when the profile loads rather
    /// than read as "some other behaviour". `None` for a key whose value
    /// only describes (string escapes differ engine by engine).
    pub fn values(self) -> Option<&'static [&'static str]> {
        use SemanticsKey::*;
        Some(match self {
            RoundHalf => &["away_from_zero", "towards_positive_infinity"],
            IntegerDivision => &["truncate"],
            SumOfIntegers => &["integer", "float", "int128"],
            RelationshipUniqueness | MatchAfterOptionalMatch | WithOrderByNeedsLimit => &["yes", "no"],
            StringLength => &["bytes", "code_points"],
            FloatEquality => &["exact", "approximate"],
            MapProjectionMissing => &["null", "dropped"],
            CaseNullWhenNull => &["matches", "no-match"],
            StringConcatNull => &["null", "empty string"],
            SetMissingKey => &["ignored"],
            StringEscapes => return None,
        })
    }

    /// Its name in a profile's `[semantics]` table.
    pub fn name(self) -> String {
        let mut out = String::new();
        for (i, c) in format!("{self:?}").chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// Every key, for listings and tests.
    pub const ALL: [SemanticsKey; 13] = [
        SemanticsKey::RoundHalf,
        SemanticsKey::IntegerDivision,
        SemanticsKey::SumOfIntegers,
        SemanticsKey::RelationshipUniqueness,
        SemanticsKey::MatchAfterOptionalMatch,
        SemanticsKey::StringLength,
        SemanticsKey::FloatEquality,
        SemanticsKey::MapProjectionMissing,
        SemanticsKey::CaseNullWhenNull,
        SemanticsKey::WithOrderByNeedsLimit,
        SemanticsKey::StringConcatNull,
        SemanticsKey::StringEscapes,
        SemanticsKey::SetMissingKey,
    ];
}

/// A known engine bug narrower than a whole production, named in a
/// profile's `[bugs]` table beside the productions: the generator steers
/// around the query shape it names, whatever the preset, so campaigns do not
/// rediscover it on every query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownBug {
    /// Grouping keys other than integers and nodes come back wrong (Grafeo).
    GroupingKeys,
    /// Two typed hops on from a node an earlier clause bound fail (Grafeo).
    TwoHopsFromBoundNode,
    /// Fixed-length paths of two or more hops are lost (Grafeo): named paths get one hop.
    LongFixedLengthPaths,
    /// `type(null)` is an internal error (Grafeo): `type()` only of relationships that cannot be null.
    TypeOfNull,
    /// A bare bound node as a MATCH part fails with `unordered_map::at` (LadybugDB).
    BareBoundNodePart,
    /// An aggregate over a WITH alias of an aggregate is refused (Kuzu).
    AggregateOfAggregateAlias,
    /// `r1 <> r2` across relationship tables fails an assertion (Kuzu 0.10): guards compare ids.
    RelationshipInequalityById,
    /// Parallel relationships whose variable is anonymous or unused fold into one row (FalkorDB).
    UnreferencedRelationships,
    /// `s CONTAINS ''` is false (Kuzu, LadybugDB: family S3): the tautology rewrite uses another form.
    ContainsEmptyString,
}

/// The narrower known bug a `[bugs]` name names, if it is one.
pub(crate) fn known_bug(name: &str) -> Option<KnownBug> {
    KnownBug::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(name)).ok()
}

/// Limits an engine puts on the graphs it can hold (the `[graph]` table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLimits {
    /// At most this many labels on a node (Kuzu: a node is a row of one table).
    pub max_labels_per_node: Option<usize>,
    /// The creation script the engines of this dialect read (default: Cypher).
    pub script: Option<graphlancer_model::ScriptDialect>,
    /// `false` where the engine matches a self-loop twice in an undirected
    /// pattern by design, so generated graphs hold none.
    pub self_loops: Option<bool>,
}

impl GraphLimits {
    /// Narrows a graph configuration to what these limits allow.
    pub fn apply(self, config: &mut graphlancer_model::GraphConfig) {
        if self.max_labels_per_node.is_some_and(|m| m <= 1) {
            config.second_label_probability = 0.0;
        }
        if self.self_loops == Some(false) {
            config.self_loops = false;
        }
    }

    /// Limits both sets allow.
    fn meet(self, other: GraphLimits) -> GraphLimits {
        let max_labels_per_node = match (self.max_labels_per_node, other.max_labels_per_node) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let self_loops = match (self.self_loops, other.self_loops) {
            (Some(a), Some(b)) => Some(a && b),
            (a, b) => a.or(b),
        };
        GraphLimits { max_labels_per_node, script: self.script.or(other.script), self_loops }
    }
}

/// The semantics value of an intersection whose engines disagree.
pub const DIFFERS: &str = "differs";

/// The profile names built in.
pub const BUILT_IN: &[&str] = &["neo4j5", "memgraph", "falkordb", "grafeo", "kuzu", "arcadedb", "reference"];

fn built_in_text(name: &str) -> Option<&'static str> {
    Some(match name {
        "neo4j5" => include_str!("../../engines/src/bolt/neo4j5.toml"),
        "memgraph" => include_str!("../../engines/src/bolt/memgraph.toml"),
        "falkordb" => include_str!("../../engines/src/falkordb/profile.toml"),
        "grafeo" => include_str!("../../engines/src/grafeo/profile.toml"),
        "kuzu" => include_str!("../../engines/src/kuzu/profile.toml"),
        "arcadedb" => include_str!("../../engines/src/arcadedb/profile.toml"),
        "reference" => include_str!("../profiles/reference.toml"),
        _ => return None,
    })
}

/// A profile that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// No built-in profile has this name.
    #[error("unknown dialect '{0}' (known: {known})", known = BUILT_IN.join(", "))]
    Unknown(String),
    /// The TOML is malformed or names an unknown feature.
    #[error("invalid dialect profile {name}: {detail}")]
    Invalid {
        /// Profile name or file.
        name: String,
        /// What is wrong.
        detail: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    disabled: BTreeMap<String, String>,
    #[serde(default)]
    bugs: BTreeMap<String, String>,
    #[serde(default)]
    semantics: BTreeMap<SemanticsKey, String>,
    #[serde(default)]
    graph: GraphLimits,
    #[serde(default)]
    witness: BTreeMap<String, String>,
}

impl DialectProfile {
    /// A built-in profile by name.
    pub fn built_in(name: &str) -> Result<Self, ProfileError> {
        let text = built_in_text(name).ok_or_else(|| ProfileError::Unknown(name.to_owned()))?;
        Self::from_toml(text)
    }

    /// Parses a profile: every feature is on unless `[disabled]` names it.
    pub fn from_toml(text: &str) -> Result<Self, ProfileError> {
        let file: ProfileFile =
            toml::from_str(text).map_err(|e| ProfileError::Invalid { name: "(toml)".into(), detail: e.to_string() })?;
        let _ = file.source;
        let parse = |entries: BTreeMap<String, String>| -> Result<BTreeMap<Feature, String>, ProfileError> {
            entries
                .into_iter()
                .map(|(name, reason)| {
                    let f: Feature = name
                        .parse()
                        .map_err(|e| ProfileError::Invalid { name: file.name.clone(), detail: format!("{e}") })?;
                    Ok((f, reason))
                })
                .collect()
        };
        let disabled = parse(file.disabled)?;
        // `[bugs]` names productions and narrower known bugs alike.
        let mut bugs = BTreeMap::new();
        let mut known_bugs = BTreeMap::new();
        for (name, evidence) in file.bugs {
            if let Ok(f) = name.parse::<Feature>() {
                bugs.insert(f, evidence);
            } else {
                let bug = known_bug(&name).ok_or_else(|| ProfileError::Invalid {
                    name: file.name.clone(),
                    detail: format!("[bugs]: '{name}' is neither a production nor a known bug"),
                })?;
                known_bugs.insert(bug, evidence);
            }
        }
        for name in file.witness.keys() {
            let known = name.parse::<Feature>().is_ok_and(|f| bugs.contains_key(&f))
                || known_bug(name).is_some_and(|b| known_bugs.contains_key(&b));
            if !known {
                return Err(ProfileError::Invalid {
                    name: file.name.clone(),
                    detail: format!("[witness]: '{name}' names no entry of [bugs]"),
                });
            }
        }
        for (key, value) in &file.semantics {
            if let Some(values) = key.values().filter(|v| !v.contains(&value.as_str())) {
                return Err(ProfileError::Invalid {
                    name: file.name.clone(),
                    detail: format!("[semantics]: {} is one of {}, not '{value}'", key.name(), values.join(", ")),
                });
            }
        }
        let features = Feature::ALL.iter().copied().filter(|f| !disabled.contains_key(f)).collect();
        Ok(Self {
            name: file.name,
            features,
            disabled,
            bugs,
            known_bugs,
            semantics: file.semantics,
            graph: file.graph,
            learned: BTreeMap::new(),
            witnesses: file.witness,
            tracked: BTreeMap::new(),
            watched: BTreeMap::new(),
            refused_shapes: BTreeSet::new(),
        })
    }

    /// The intersection: features all accept, semantics all share.
    pub fn intersect(profiles: &[DialectProfile]) -> DialectProfile {
        let mut iter = profiles.iter();
        let Some(first) = iter.next() else {
            return DialectProfile {
                name: String::new(),
                features: Feature::ALL.iter().copied().collect(),
                disabled: BTreeMap::new(),
                bugs: BTreeMap::new(),
                known_bugs: BTreeMap::new(),
                semantics: BTreeMap::new(),
                graph: GraphLimits::default(),
                learned: BTreeMap::new(),
                witnesses: BTreeMap::new(),
                tracked: BTreeMap::new(),
                watched: BTreeMap::new(),
                refused_shapes: BTreeSet::new(),
            };
        };
        let mut out = first.clone();
        for p in iter {
            if !out.name.split('&').any(|n| n == p.name) {
                out.name = format!("{}&{}", out.name, p.name);
            }
            out.graph = out.graph.meet(p.graph);
            out.features.retain(|f| p.features.contains(f));
            for (f, reason) in &p.disabled {
                out.disabled.entry(*f).or_insert_with(|| format!("{}: {reason}", p.name));
            }
            for (f, reason) in &p.bugs {
                out.bugs.entry(*f).or_insert_with(|| format!("{}: {reason}", p.name));
            }
            for (f, reason) in &p.learned {
                out.learned.entry(*f).or_insert_with(|| reason.clone());
            }
            for (b, reason) in &p.known_bugs {
                out.known_bugs.entry(*b).or_insert_with(|| format!("{}: {reason}", p.name));
            }
            out.refused_shapes.extend(&p.refused_shapes);
            for (name, why) in &p.watched {
                out.watched.entry(name.clone()).or_insert_with(|| format!("{}: {why}", p.name));
            }
            for (name, status) in &p.tracked {
                out.tracked
                    .entry(name.clone())
                    .and_modify(|s| s.push_str(&format!("; {status}")))
                    .or_insert_with(|| status.clone());
            }
            let keys: BTreeSet<SemanticsKey> = out.semantics.keys().chain(p.semantics.keys()).copied().collect();
            for k in keys {
                let agree = out.semantics.get(&k) == p.semantics.get(&k);
                let v = if agree { out.semantics.get(&k).cloned().unwrap_or_default() } else { DIFFERS.to_owned() };
                out.semantics.insert(k, v);
            }
        }
        out
    }

    /// Whether a production is enabled.
    pub fn has(&self, f: Feature) -> bool {
        self.features.contains(&f)
    }

    /// A semantics value, when every engine of the profile shares it.
    pub fn semantics(&self, key: SemanticsKey) -> Option<&str> {
        self.semantics.get(&key).map(String::as_str).filter(|v| *v != DIFFERS)
    }

    /// For a yes-or-no key, whether every engine of the profile says yes;
    /// `None` where they differ or none says.
    pub fn holds(&self, key: SemanticsKey) -> Option<bool> {
        self.semantics(key).map(|v| v == "yes")
    }

    /// Records that the known bug `name` is live on a release (`live`
    /// true) or fixed there; a fixed one is dropped from `bugs` or
    /// `known_bugs`, so the generator writes its shape again and a
    /// regression shows as a finding.
    pub fn track(&mut self, name: &str, release: &str, live: bool) {
        let status = format!("{} on {release}", if live { "live" } else { "fixed" });
        self.tracked.insert(name.to_owned(), status);
        if !live {
            if let Ok(f) = name.parse::<Feature>() {
                self.bugs.remove(&f);
            }
            if let Some(b) = known_bug(name) {
                self.known_bugs.remove(&b);
            }
        }
    }

    /// Turns `feature` off with the evidence: what a probe of an engine
    /// release learned it refuses (the hand-written profile cannot know
    /// every release).
    pub fn refuse(&mut self, feature: Feature, why: String) {
        if self.features.remove(&feature) {
            self.disabled.insert(feature, why.clone());
            self.learned.insert(feature, why);
        }
    }

    /// Steers around the shape of `bug` for good: a probe found the release
    /// refuses it (`why`, the evidence).
    pub fn refuse_shape(&mut self, bug: KnownBug, why: String) {
        self.known_bugs.insert(bug, why);
        self.refused_shapes.insert(bug);
    }

    /// Whether some engine of the profile records `key` at all.
    pub fn records(&self, key: SemanticsKey) -> bool {
        self.semantics.contains_key(&key)
    }

    /// Stops steering around the known bugs whose findings can be told
    /// apart ([`KnownBug::tracked`]), and watches for them instead: a
    /// campaign against the reference, or of one engine alone, writes
    /// their shapes, so a fix and a regression both show. Two engines
    /// compared with each other keep steering, since each one's known
    /// bugs would drown what the pair disagrees on.
    pub fn watch(&mut self) {
        for (f, why) in std::mem::take(&mut self.bugs) {
            self.watched.insert(f.name().to_owned(), why);
        }
        let refused = &self.refused_shapes;
        let (tracked, steered) =
            std::mem::take(&mut self.known_bugs).into_iter().partition(|(b, _)| b.tracked() && !refused.contains(b));
        self.known_bugs = steered;
        for (b, why) in tracked {
            self.watched.insert(b.name().to_owned(), why);
        }
    }

    /// The first watched bug (by name) whose production or shape `query`
    /// has: a reduced finding with it is counted under that bug. `failed`
    /// says whether the finding is a failure (an error, a crash) or a
    /// wrong answer; a narrow known bug shows as one of the two.
    pub fn watched_in(&self, query: &crate::Query, schema: &graphlancer_model::Schema, failed: bool) -> Option<&str> {
        let used = crate::productions::productions(query);
        self.watched.keys().map(String::as_str).find(|name| match name.parse::<Feature>() {
            Ok(f) => used.contains(&f),
            Err(_) => known_bug(name).is_some_and(|b| b.fails() == failed && b.shows(query, schema)),
        })
    }

    /// Whether some engine of the profile has the known bug.
    pub fn has_bug(&self, bug: KnownBug) -> bool {
        self.known_bugs.contains_key(&bug)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bug_fixed_on_a_release_no_longer_steers_and_a_witness_names_a_bug() {
        let mut p = DialectProfile::built_in("grafeo").expect("parses");
        assert!(p.bugs.contains_key(&Feature::ChainedComparison) && p.known_bugs.contains_key(&KnownBug::GroupingKeys));
        p.track("chained_comparison", "grafeo@0.6.0", false);
        p.track("grouping_keys", "grafeo@0.6.0", false);
        p.track("stdev", "grafeo@0.6.0", true);
        assert!(
            !p.bugs.contains_key(&Feature::ChainedComparison) && !p.known_bugs.contains_key(&KnownBug::GroupingKeys)
        );
        assert!(p.bugs.contains_key(&Feature::StDev), "a live bug keeps steering");
        assert_eq!(p.tracked["grouping_keys"], "fixed on grafeo@0.6.0");
        let bad = "name = \"x\"\n[witness]\nchained_comparison = \"RETURN 1\"\n";
        let err = DialectProfile::from_toml(bad).expect_err("no such bug").to_string();
        assert!(err.contains("names no entry of [bugs]"), "{err}");
    }

    /// Against the reference a known bug is watched, not steered around, and
    /// a finding is counted under it only where its kind of failure fits.
    #[test]
    fn a_watched_bug_claims_a_finding_of_its_shape_and_its_kind_of_failure() {
        let mut p = DialectProfile::built_in("grafeo").expect("parses");
        p.watch();
        assert!(!p.has_bug(KnownBug::GroupingKeys) && p.bugs.is_empty(), "nothing steers");
        assert!(p.watched.contains_key("grouping_keys") && p.watched.contains_key("fn_tan"));
        let graph = graphlancer_model::generate(1, &graphlancer_model::GraphConfig::default()).expect("valid");
        let q = crate::parse::parse("UNWIND [1.5] AS x RETURN x, count(*) AS c").expect("parses");
        assert_eq!(p.watched_in(&q, &graph.schema, false), Some("grouping_keys"), "a wrong answer");
        assert_eq!(p.watched_in(&q, &graph.schema, true), None, "an error is another bug");
        let q = crate::parse::parse("RETURN cot(0.5) AS x").expect("parses");
        assert_eq!(p.watched_in(&q, &graph.schema, false), Some("fn_tan"), "a production");
        let mut falkordb = DialectProfile::built_in("falkordb").expect("parses");
        falkordb.watch();
        assert!(falkordb.has_bug(KnownBug::UnreferencedRelationships), "its shape is in every reduced query");
    }

    #[test]
    fn every_built_in_profile_parses() {
        for name in BUILT_IN {
            let p = DialectProfile::built_in(name).expect("parses");
            assert_eq!(&p.name, name);
            assert!(p.has(Feature::Match));
        }
        assert!(DialectProfile::built_in("oracle").is_err());
    }

    #[test]
    fn intersection_keeps_shared_features_and_marks_disagreements() {
        let a = DialectProfile::from_toml(
            "name = 'a'\n[disabled]\nunion = 'no'\n[semantics]\nsum_of_integers = 'integer'\nstring_length = 'bytes'",
        )
        .expect("parses");
        let b = DialectProfile::from_toml(
            "name = 'b'\n[disabled]\nregex = 'no'\n[bugs]\ngrouping_keys = 'evidence'\n[semantics]\nsum_of_integers = 'float'\nstring_length = 'bytes'",
        )
        .expect("parses");
        let both = DialectProfile::intersect(&[a, b]);
        assert!(!both.has(Feature::Union) && !both.has(Feature::Regex) && both.has(Feature::Match));
        assert_eq!(both.semantics(SemanticsKey::SumOfIntegers), None);
        assert_eq!(both.semantics(SemanticsKey::StringLength), Some("bytes"));
        assert!(both.has_bug(KnownBug::GroupingKeys));
        assert!(DialectProfile::from_toml("name = 'c'\n[disabled]\nnope = 'x'").is_err());
        // A typo in a semantics key or a bug name is refused, not ignored.
        assert!(DialectProfile::from_toml("name = 'c'\n[semantics]\nsum_of_integer = 'x'").is_err());
        // So is a value outside the key's set; a describing key takes any.
        let bad = DialectProfile::from_toml("name = 'c'\n[semantics]\nrelationship_uniqueness = 'yess'");
        assert!(bad.is_err_and(|e| e.to_string().contains("relationship_uniqueness is one of yes, no, not 'yess'")));
        let escapes = DialectProfile::from_toml("name = 'c'\n[semantics]\nstring_escapes = 'anything'");
        assert!(escapes.is_ok_and(|p| p.holds(SemanticsKey::RelationshipUniqueness).is_none()));
        assert!(DialectProfile::from_toml("name = 'c'\n[bugs]\ngrouping_key = 'x'").is_err());
    }
}
