//! Query generation in two steps, after GDsmith: a skeleton (the clause
//! sequence, context-free) and its completion (patterns and expressions
//! filled in clause by clause against a typed context, so every variable is
//! in scope, every operand has the type its operator needs, and every
//! property key exists on the label it is read from).

mod boolean;
mod clause;
mod expr;
mod index;
mod mutate;
mod pattern;
mod scalar;

pub use mutate::{KeyFrequencies, Mutation};

use std::collections::{BTreeMap, BTreeSet};

use graphlancer_model::{CaseRng, Graph, Value};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::ast::{Expr, OrderKeywords, Query, SingleQuery, Spelling};
use crate::config::GeneratorConfig;
use crate::context::{Names, Scope};
use crate::feature::Feature;
use crate::profile::{DialectProfile, KnownBug, SemanticsKey};
use crate::render::render_spelled;
use crate::types::Ty;
use index::{KeyIndex, Steps, ValueIndex};

/// The kind of one clause of a skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClauseKind {
    /// MATCH.
    Match,
    /// OPTIONAL MATCH.
    OptionalMatch,
    /// UNWIND.
    Unwind,
    /// WITH.
    With,
    /// CALL { }.
    Call,
    /// CREATE.
    Create,
    /// MERGE.
    Merge,
    /// SET.
    Set,
    /// REMOVE.
    Remove,
    /// DELETE or DETACH DELETE.
    Delete,
    /// FOREACH.
    Foreach,
    /// RETURN.
    Return,
}

impl ClauseKind {
    fn is_write(self) -> bool {
        matches!(
            self,
            ClauseKind::Create
                | ClauseKind::Merge
                | ClauseKind::Set
                | ClauseKind::Remove
                | ClauseKind::Delete
                | ClauseKind::Foreach
        )
    }

    fn is_read(self) -> bool {
        matches!(self, ClauseKind::Match | ClauseKind::OptionalMatch | ClauseKind::Unwind | ClauseKind::Call)
    }
}

/// A query with its uninstantiated parts left out: clause kinds per UNION part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skeleton {
    /// Clause kinds of each single query.
    pub parts: Vec<Vec<ClauseKind>>,
    /// UNION ALL rather than UNION.
    pub union_all: bool,
}

/// A generated query and what is known about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    /// The AST.
    pub query: Query,
    /// The skeleton it completes.
    pub skeleton: Skeleton,
    /// The rendered text.
    pub text: String,
    /// Clauses in the longest single query.
    pub clause_count: usize,
    /// Productions used.
    pub features: BTreeSet<Feature>,
    /// Columns of the result that ORDER BY fixes, in key order; `None` when
    /// the rows form a bag.
    pub order_columns: Option<Vec<usize>>,
    /// For a single query: the variables in scope after each clause, so a
    /// mutation can go on from any point.
    pub scopes: Vec<Vec<crate::types::Var>>,
}

/// Generates queries for one graph, dialect profile and configuration.
pub struct Generator<'a> {
    graph: &'a Graph,
    profile: &'a DialectProfile,
    config: &'a GeneratorConfig,
    values: ValueIndex,
    keys: KeyIndex,
    /// Effective weight per production, indexed by `Feature as usize`.
    weights: Vec<u32>,
    key_types: BTreeMap<String, Ty>,
    steps: Steps,
    quirks: Quirks,
}

/// Known bugs and dialect restrictions some engine of the profile records,
/// looked up once: the generator consults them per clause.
#[derive(Debug, Clone, Copy, Default)]
struct Quirks {
    /// Kuzu: ORDER BY in a WITH needs SKIP or LIMIT.
    with_order_by_needs_limit: bool,
    /// Kuzu 0.10: uniqueness guards compare `id(r)`.
    relationship_inequality_by_id: bool,
    /// Kuzu: no aggregate over a value that came from an aggregate.
    aggregate_of_aggregate_alias: bool,
    /// Grafeo: at most one hop on from a bound node.
    two_hops_from_bound_node: bool,
    /// LadybugDB: no bare bound node as a MATCH part.
    bare_bound_node_part: bool,
    /// Grafeo: grouping keys only of integers and nodes (deterministic presets).
    grouping_keys: bool,
    /// Grafeo: named paths of one hop only.
    long_fixed_length_paths: bool,
    /// Grafeo: `type()` only of relationships that cannot be null.
    type_of_null: bool,
    /// Kuzu: no `CONTAINS ''`.
    contains_empty_string: bool,
}

impl Quirks {
    fn of(profile: &DialectProfile) -> Self {
        Self {
            with_order_by_needs_limit: profile.records(SemanticsKey::WithOrderByNeedsLimit),
            relationship_inequality_by_id: profile.has_bug(KnownBug::RelationshipInequalityById),
            aggregate_of_aggregate_alias: profile.has_bug(KnownBug::AggregateOfAggregateAlias),
            two_hops_from_bound_node: profile.has_bug(KnownBug::TwoHopsFromBoundNode),
            bare_bound_node_part: profile.has_bug(KnownBug::BareBoundNodePart),
            grouping_keys: profile.has_bug(KnownBug::GroupingKeys),
            long_fixed_length_paths: profile.has_bug(KnownBug::LongFixedLengthPaths),
            type_of_null: profile.has_bug(KnownBug::TypeOfNull),
            contains_empty_string: profile.has_bug(KnownBug::ContainsEmptyString),
        }
    }
}

impl<'a> Generator<'a> {
    /// A generator for `graph` in the dialect `profile`.
    pub fn new(graph: &'a Graph, profile: &'a DialectProfile, config: &'a GeneratorConfig) -> Self {
        let weights = Feature::ALL.iter().map(|&f| config.effective_weight(profile, f)).collect();
        let key_types = graph.schema.keys.iter().map(|k| (k.name.clone(), Ty::of_property(k.ty))).collect();
        Self {
            graph,
            profile,
            config,
            values: ValueIndex::new(graph, profile.records(SemanticsKey::StringEscapes)),
            quirks: Quirks::of(profile),
            keys: KeyIndex::new(&graph.schema),
            weights,
            key_types,
            steps: Steps::new(&graph.schema),
        }
    }

    /// Generates one query: a skeleton, then its completion.
    pub fn generate(&self, rng: &mut CaseRng) -> Generated {
        let skeleton = self.skeleton(rng);
        self.complete(&skeleton, rng)
    }

    /// The weight of a production under this profile and configuration.
    fn weight(&self, f: Feature) -> u32 {
        self.weights[f as usize]
    }

    /// Under a deterministic preset: whether every engine of the profile
    /// shares the semantics `key` has (or none records it).
    fn agreed(&self, key: SemanticsKey) -> bool {
        !self.config.deterministic || !self.profile.records(key) || self.profile.semantics(key).is_some()
    }

    /// Whether some engine folds parallel relationships it is not asked about.
    fn collapses_relationships(&self) -> bool {
        self.config.deterministic && self.profile.has_bug(KnownBug::UnreferencedRelationships)
    }

    /// Whether every relationship must be named (and referenced): to spell
    /// out uniqueness with `r1 <> r2`, or to keep parallel relationships apart.
    fn needs_named_rels(&self) -> bool {
        self.config.deterministic
            && (self.profile.holds(SemanticsKey::RelationshipUniqueness) != Some(true)
                || self.collapses_relationships())
    }

    /// Whether `next` is a MATCH after an OPTIONAL MATCH with no WITH between,
    /// which some engines refuse.
    fn match_needs_with(&self, kinds: &[ClauseKind], next: ClauseKind) -> bool {
        next == ClauseKind::Match
            && self.profile.holds(SemanticsKey::MatchAfterOptionalMatch) != Some(true)
            && kinds.iter().rev().take_while(|k| **k != ClauseKind::With).any(|k| *k == ClauseKind::OptionalMatch)
    }

    /// Productions the profile enables but this generator leaves out, because
    /// the engines' semantics differ on them (deterministic presets only).
    pub fn steered_off(&self) -> Vec<(Feature, &'static str)> {
        let mut out = Vec::new();
        if self.needs_named_rels() {
            out.push((Feature::VarLength, "relationship uniqueness or folding of parallel relationships differs"));
        }
        if self.collapses_relationships() {
            out.push((Feature::PatternComprehension, "parallel relationships fold in an anonymous pattern"));
        }
        if !self.agreed(SemanticsKey::CaseNullWhenNull) {
            out.push((Feature::CaseSimple, "CASE null WHEN null differs"));
        }
        if !self.agreed(SemanticsKey::RoundHalf) {
            out.push((Feature::FnRound, "ties round away from zero on one engine, towards +infinity on another"));
        }
        if !self.agreed(SemanticsKey::StringConcatNull) {
            out.push((Feature::StringConcat, "a null operand of string + gives null on one engine, '' on another"));
        }
        if self.config.deterministic && self.profile.semantics(SemanticsKey::SumOfIntegers) != Some("integer") {
            out.push((Feature::Sum, "sum() of integers is not an integer everywhere"));
        }
        if !self.agreed(SemanticsKey::StringLength) {
            for f in [Feature::FnSubstring, Feature::FnLeft, Feature::FnRight, Feature::FnReverse] {
                out.push((f, "string length counts bytes on one engine, characters on another"));
            }
        }
        if !self.agreed(SemanticsKey::MapProjectionMissing) {
            out.push((Feature::MapProjection, "a missing key is dropped on one engine, null on another"));
        }
        out.retain(|(f, _)| self.weight(*f) > 0);
        out
    }

    /// Draws a clause sequence.
    pub fn skeleton(&self, rng: &mut CaseRng) -> Skeleton {
        let mut parts = vec![self.skeleton_part(rng)];
        let union =
            [(None, 12), (Some(false), self.weight(Feature::Union)), (Some(true), self.weight(Feature::UnionAll))];
        let union_all = match weighted(rng, &union) {
            Some(Some(all)) => {
                parts.push(self.skeleton_part(rng));
                // Whether one part sees another part's writes is left open by
                // openCypher (Grafeo and FalkorDB differ), so deterministic
                // unions only read.
                if self.config.deterministic {
                    for part in &mut parts {
                        part.retain(|k| !k.is_write());
                        // A part never starts with WITH (the WITH after a
                        // write that led the part may now lead it).
                        while part.first() == Some(&ClauseKind::With) {
                            part.remove(0);
                        }
                    }
                }
                all
            }
            _ => false,
        };
        Skeleton { parts, union_all }
    }

    fn skeleton_part(&self, rng: &mut CaseRng) -> Vec<ClauseKind> {
        let total = rng.random_range(self.config.min_clauses..=self.config.max_clauses);
        let writes = self.config.writes;
        let refuses_read_after_write = self.weight(Feature::ReadAfterWrite) == 0;
        let mut kinds: Vec<ClauseKind> = Vec::with_capacity(total);
        while kinds.len() + 1 < total {
            let first = kinds.is_empty();
            let w = |f: Feature, base: u32, allowed: bool| if allowed { self.weight(f) * base } else { 0 };
            let options = [
                (ClauseKind::Match, w(Feature::Match, 6, true)),
                (ClauseKind::OptionalMatch, w(Feature::OptionalMatch, 3, !first)),
                (ClauseKind::Unwind, w(Feature::Unwind, 2, true)),
                (ClauseKind::With, w(Feature::With, 3, !first)),
                (ClauseKind::Call, w(Feature::CallSubquery, 1, !first)),
                (ClauseKind::Create, w(Feature::Create, 1, writes)),
                (ClauseKind::Merge, w(Feature::Merge, 1, writes)),
                (ClauseKind::Set, w(Feature::SetProperty, 1, writes && !first)),
                (ClauseKind::Remove, w(Feature::RemoveProperty, 1, writes && !first)),
                (
                    ClauseKind::Delete,
                    w(Feature::DetachDelete, 1, writes && !first).max(w(Feature::Delete, 1, writes && !first)),
                ),
                (ClauseKind::Foreach, w(Feature::Foreach, 1, writes && !first)),
            ];
            let Some(kind) = weighted(rng, &options) else { break };
            let prev = kinds.last().copied();
            // Reading after writing needs a WITH between (Cypher's rule).
            let after_write = prev.is_some_and(ClauseKind::is_write) && kind.is_read();
            let after_optional = self.match_needs_with(&kinds, kind);
            // Without reads after writes there are none, whatever WITHs come
            // between (a release that refuses them refuses those too).
            if refuses_read_after_write && kind.is_read() && kinds.iter().any(|k| k.is_write()) {
                continue;
            }
            if after_write || after_optional {
                kinds.push(ClauseKind::With);
            }
            kinds.push(kind);
        }
        kinds.push(ClauseKind::Return);
        kinds
    }

    /// Fills in a skeleton.
    pub fn complete(&self, skeleton: &Skeleton, rng: &mut CaseRng) -> Generated {
        self.complete_guided(skeleton, rng, None)
    }

    /// Generates one query, choosing property keys by GDsmith's frequency
    /// feedback (formula 1) when `frequencies` is given.
    pub fn generate_guided(&self, rng: &mut CaseRng, frequencies: Option<&KeyFrequencies>) -> Generated {
        let skeleton = self.skeleton(rng);
        self.complete_guided(&skeleton, rng, frequencies)
    }

    fn complete_guided(
        &self,
        skeleton: &Skeleton,
        rng: &mut CaseRng,
        frequencies: Option<&KeyFrequencies>,
    ) -> Generated {
        let mut b = Builder::new(self, rng);
        b.frequencies = frequencies.cloned();
        b.in_union = skeleton.parts.len() > 1;
        let mut parts = Vec::new();
        let mut columns: Option<Vec<(String, Ty)>> = None;
        let mut order_columns = None;
        let mut scopes = Vec::new();
        for kinds in &skeleton.parts {
            b.scope = Scope::default();
            b.islands = 0;
            let (clauses, cols, order) = b.single_query(kinds, columns.as_deref());
            if columns.is_none() {
                columns = Some(cols);
                order_columns = order;
                scopes = std::mem::take(&mut b.scopes);
            }
            parts.push(SingleQuery { clauses });
        }
        let read_after_write = skeleton.parts.iter().any(|kinds| {
            kinds.iter().position(|k| k.is_write()).is_some_and(|w| kinds[w..].iter().any(|k| k.is_read()))
        });
        if read_after_write {
            b.features.insert(Feature::ReadAfterWrite);
        }
        if parts.len() > 1 {
            b.features.insert(if skeleton.union_all { Feature::UnionAll } else { Feature::Union });
            // The order of a UNION's rows is not fixed by its parts' ORDER BY.
            order_columns = None;
        }
        let spelling = b.spelling();
        let query = Query { parts, union_all: skeleton.union_all, spelling };
        let clause_count = query.parts.iter().map(|p| p.clauses.len()).max().unwrap_or(0);
        let (text, spelled) = render_spelled(&query);
        b.features.extend(spelled);
        if parts_len(&query) > 1 {
            scopes.clear();
        }
        Generated { query, skeleton: skeleton.clone(), text, clause_count, features: b.features, order_columns, scopes }
    }
}

fn parts_len(q: &Query) -> usize {
    q.parts.len()
}

/// Picks an item by weight; `None` when every weight is zero.
fn weighted<T: Copy>(rng: &mut CaseRng, options: &[(T, u32)]) -> Option<T> {
    let total: u64 = options.iter().map(|(_, w)| u64::from(*w)).sum();
    if total == 0 {
        return None;
    }
    let mut pick = rng.random_range(0..total);
    for (item, w) in options {
        let w = u64::from(*w);
        if pick < w {
            return Some(*item);
        }
        pick -= w;
    }
    None
}

/// The state of one completion.
struct Builder<'g, 'r> {
    g: &'g Generator<'g>,
    rng: &'r mut CaseRng,
    scope: Scope,
    names: Names,
    features: BTreeSet<Feature>,
    /// Generating a WHERE predicate, where a bare pattern may stand.
    in_where: bool,
    /// Generating WITH or RETURN, where FalkorDB takes `shortestPath()`
    /// (with WHERE, its only places).
    in_projection: bool,
    /// Completing a UNION, whose parts must name their columns alike.
    in_union: bool,
    /// Scope after each clause of the single query being completed.
    scopes: Vec<Vec<crate::types::Var>>,
    /// Property-key frequencies steering key choice, when feedback is on.
    frequencies: Option<KeyFrequencies>,
    /// Patterns in this single query that joined nothing already bound:
    /// each multiplies the rows, so they are rationed.
    islands: usize,
    /// A chained comparison was generated: the spelling writes it chained.
    chains: bool,
    /// Property values earlier clauses of this query wrote, with the label
    /// or type they wrote them under (empty: unknown): later predicates and
    /// patterns look for them, so they reach what the query itself touched.
    written: Vec<(String, String, Value)>,
}

impl<'g, 'r> Builder<'g, 'r> {
    fn new(g: &'g Generator<'g>, rng: &'r mut CaseRng) -> Self {
        Self {
            g,
            rng,
            scope: Scope::default(),
            names: Names::default(),
            features: BTreeSet::new(),
            in_where: false,
            in_projection: false,
            in_union: false,
            scopes: Vec::new(),
            frequencies: None,
            chains: false,
            written: Vec::new(),
            islands: 0,
        }
    }

    fn deterministic(&self) -> bool {
        self.g.config.deterministic
    }

    /// Under a deterministic preset: whether every engine of the profile
    /// shares the semantics `key` has (or none records it).
    fn agreed(&self, key: SemanticsKey) -> bool {
        self.g.agreed(key)
    }

    /// Generates a WHERE predicate.
    fn predicate(&mut self) -> Expr {
        let outer = std::mem::replace(&mut self.in_where, true);
        let e = self.boolean(0);
        self.in_where = outer;
        e
    }

    /// The query's spelling: each synonym the profile allows, now and then
    /// (drawn last, so the query itself does not depend on it); chained
    /// comparisons whenever one was generated.
    fn spelling(&mut self) -> Spelling {
        let pick = |b: &mut Self, f: Feature| {
            let w = b.g.weight(f);
            w > 0 && b.rng.random_bool((0.12 * f64::from(w)).min(1.0))
        };
        let order_keywords = if pick(self, Feature::OrderByAscending) {
            if self.coin(0.5) { OrderKeywords::Short } else { OrderKeywords::Long }
        } else {
            OrderKeywords::Implied
        };
        Spelling {
            order_keywords,
            both_arrows: pick(self, Feature::RelBothArrows),
            abbreviated: pick(self, Feature::RelAbbreviated),
            double_quotes: pick(self, Feature::DoubleQuotedStrings),
            float_exponent: pick(self, Feature::FloatForms),
            float_leading_point: pick(self, Feature::FloatLeadingPoint),
            integer_bases: pick(self, Feature::IntegerBases),
            exists_pattern: pick(self, Feature::ExistsPattern),
            all_properties_projection: pick(self, Feature::MapProjectionAll),
            offset: pick(self, Feature::Offset),
            union_distinct: pick(self, Feature::UnionDistinct),
            return_all: pick(self, Feature::ReturnAll),
            is_label: pick(self, Feature::IsLabel),
            chained_comparisons: self.chains,
            short_lengths: pick(self, Feature::VarLengthShort),
            unary_plus: pick(self, Feature::UnaryPlus),
            dynamic_properties: pick(self, Feature::DynamicProperty),
            count_subquery: pick(self, Feature::CountSubquery),
            node_where: pick(self, Feature::NodeWhere),
            rel_where: pick(self, Feature::RelWhere),
            label_and: pick(self, Feature::LabelAnd),
            label_or: pick(self, Feature::LabelOr),
            label_not: pick(self, Feature::LabelNot),
            when_list: pick(self, Feature::CaseWhenList),
            quantified: pick(self, Feature::QuantifiedRelationship),
            parenthesized: pick(self, Feature::ParenthesizedPath),
        }
    }

    /// Whether this numeric parameter takes a boundary value (or this
    /// literal is degenerate, for `f` = [`Feature::DegenerateForms`]): with
    /// the configuration's `boundary` probability, recorded as used.
    fn boundary(&mut self, f: Feature) -> bool {
        let p = self.g.config.boundary;
        let yes = p > 0.0 && self.on(f) && self.rng.random_bool(p);
        if yes {
            self.features.insert(f);
        }
        yes
    }

    /// Picks one of `values`.
    fn pick<T: Copy>(&mut self, values: &[T]) -> T {
        values[self.below(values.len())]
    }

    /// Whether a production is enabled at all.
    fn on(&self, f: Feature) -> bool {
        self.g.weight(f) > 0
    }

    /// Uses a production with probability `p` scaled by its weight.
    fn chance(&mut self, f: Feature, p: f64) -> bool {
        let w = self.g.weight(f);
        if w == 0 {
            return false;
        }
        let p = (p * f64::from(w)).min(1.0);
        let yes = self.rng.random_bool(p);
        if yes {
            self.features.insert(f);
        }
        yes
    }

    /// Picks a production by weight (its weight under the profile times the
    /// table's), recording it as used: the one choice point of expression
    /// and clause tables, which then match on the production itself.
    fn choose(&mut self, options: &[(Feature, u32)]) -> Option<Feature> {
        let w = |f: Feature, base: u32| u64::from(self.g.weight(f) * base);
        let total: u64 = options.iter().map(|(f, base)| w(*f, *base)).sum();
        if total == 0 {
            return None;
        }
        let mut roll = self.rng.random_range(0..total);
        for (f, base) in options {
            let weight = w(*f, *base);
            if roll < weight {
                self.features.insert(*f);
                return Some(*f);
            }
            roll -= weight;
        }
        None
    }

    fn schema(&self) -> &'g graphlancer_model::Schema {
        &self.g.graph.schema
    }

    fn key_type(&self, key: &str) -> Ty {
        self.g.key_types.get(key).cloned().unwrap_or(Ty::Int)
    }

    /// Remembers a value a clause writes into `key` of an entity with these labels or type.
    fn remember(&mut self, owners: &[String], key: &str, e: &Expr) {
        if let Expr::Literal(v) = e
            && *v != Value::Null
        {
            let owner = owners.first().cloned().unwrap_or_default();
            self.written.push((owner, key.to_owned(), v.clone()));
        }
    }

    /// A value of `key` that occurs in the graph on one of `owners` (labels
    /// or relationship types; any owner when empty), or a typed default;
    /// now and then one this query wrote (state-aware generation).
    fn graph_value_on(&mut self, owners: &[String], key: &str) -> Value {
        let written: Vec<&Value> = self
            .written
            .iter()
            .filter(|(o, k, _)| k == key && (o.is_empty() || owners.is_empty() || owners.contains(o)))
            .map(|(_, _, v)| v)
            .collect();
        if !written.is_empty() && self.on(Feature::ReadsWritten) && self.rng.random_bool(0.5) {
            let value = written[self.rng.random_range(0..written.len())].clone();
            self.features.insert(Feature::ReadsWritten);
            return value;
        }
        if let [owner] = owners
            && let Some(values) = self.g.values.by_owner.get(&(owner.clone(), key.to_owned()))
            && !values.is_empty()
        {
            return values[self.rng.random_range(0..values.len())].clone();
        }
        let mut pool: Vec<&Value> = Vec::new();
        for o in owners {
            if let Some(values) = self.g.values.by_owner.get(&(o.clone(), key.to_owned())) {
                pool.extend(values);
            }
        }
        if pool.is_empty()
            && let Some(values) = self.g.values.by_key.get(key)
        {
            pool.extend(values);
        }
        if !pool.is_empty() {
            return pool[self.rng.random_range(0..pool.len())].clone();
        }
        match self.key_type(key) {
            Ty::Int => Value::Int(self.rng.random_range(0..10)),
            Ty::Float => Value::Float(0.5),
            Ty::Bool => Value::Bool(true),
            _ => Value::String("a".into()),
        }
    }

    /// Index of a key to use among `keys`: uniform, or with frequency
    /// feedback GDsmith's formula (1), P_i = (S - F_i) / ((N - 1) S), which
    /// favours keys seen least in queries that returned rows.
    fn choose_key<'k>(&mut self, keys: impl ExactSizeIterator<Item = &'k str>) -> usize {
        let n = keys.len();
        let Some(freq) = &self.frequencies else { return self.below(n.max(1)) };
        let counts: Vec<u64> = keys.map(|k| freq.get(k).copied().unwrap_or(0)).collect();
        let total: u64 = counts.iter().sum();
        if n <= 1 || total == 0 {
            return self.below(n.max(1));
        }
        let weights: Vec<(usize, u32)> =
            counts.iter().enumerate().map(|(i, f)| (i, u32::try_from(total - f).unwrap_or(u32::MAX))).collect();
        weighted(self.rng, &weights).unwrap_or(0)
    }

    /// A value of `key` that occurs somewhere in the graph.
    fn graph_value(&mut self, key: &str) -> Value {
        self.graph_value_on(&[], key)
    }

    fn coin(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }
}

#[cfg(test)]
mod tests;
