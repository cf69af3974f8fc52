//! Gremlin dialects as data: how an engine spells what TinkerPop's Groovy
//! text spells, and which steps it accepts. Generation for several engines
//! uses the intersection of their dialects' steps.

use std::collections::BTreeSet;

/// How one engine writes Gremlin, and what it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GremlinDialect {
    /// The dialect's name, e.g. `tinkerpop` or `grafeo&graphersal`.
    pub name: String,
    /// The string quote: `'` in TinkerPop and Grafeo, `"` in graphersal.
    pub quote: char,
    /// What anonymous traversals start with: `__.` or nothing.
    pub anonymous: &'static str,
    /// What predicates start with: `P.` or nothing.
    pub predicates: &'static str,
    /// How `Order.asc` and `Order.desc` are written.
    pub order: (&'static str, &'static str),
    /// How `T.label` is written.
    pub label_token: &'static str,
    /// What ends a traversal, e.g. `.toList()`; empty for none.
    pub terminal: &'static str,
    /// The steps (by [`crate::Step::name`]) and sources it accepts.
    pub steps: BTreeSet<&'static str>,
    /// Steps it accepts but answers differently by design or wrongly, each
    /// with the evidence; generation for comparison leaves them out.
    pub differs: Vec<(&'static str, &'static str)>,
    /// Narrower limits than whole steps.
    pub quirks: Quirks,
}

/// Forms narrower than a step that an engine refuses or answers wrongly;
/// `true` everywhere is TinkerPop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// `inV`, `outV`, `bothV`, `otherV` anywhere after an edge step, not only
    /// right after `outE`/`inE`/`bothE`/`E()` and its filters.
    pub edge_ends_anywhere: bool,
    /// `valueMap('k')` and `elementMap('k')` with keys, giving maps.
    pub keyed_maps: bool,
    /// Predicates joined with `.and(...)` / `.or(...)`.
    pub predicate_connectives: bool,
    /// `has(label, key, P)` with a predicate, not only a value.
    pub has_label_key_predicate: bool,
    // Wrong answers rather than refusals: generation for comparison steers
    // around them, generation for crashes does not.
    /// `inV()`/`outV()` after `bothE()` give the edge's own ends.
    pub both_edge_ends: bool,
    /// A move after `inV()`/`outV()` starts from that vertex.
    pub move_after_edge_end: bool,
    /// Edge steps inside `where`/`not`/`filter`/`and`/`or` are kept.
    pub edge_steps_in_filters: bool,
    /// `not(has(k, P))` keeps the elements that lack `k`.
    pub not_of_missing_property: bool,
    /// `hasLabel` on edges after `order()` or `dedup()` tests their type.
    pub edge_label_after_barrier: bool,
    /// `dedup()` takes `0.0` and `-0.0` as one value.
    pub dedup_signed_zero: bool,
    /// `groupCount()` without `by` counts into a map.
    pub group_count_identity: bool,
    /// `sum`, `min`, `max`, `mean` of nothing give no traverser; where they
    /// give a null, steps after them would spread that one fault over many
    /// shapes, so the aggregate ends the traversal.
    pub aggregate_of_nothing: bool,
    /// A vertex's id is its generated id (the engine numbers vertices in the
    /// order they are loaded), so `V(id)` and `hasId` name the same vertex on
    /// every such engine.
    pub generated_ids: bool,
    /// `groupCount().by(T.label)` on edges keys by the edge's type.
    pub edge_group_by_label: bool,
    /// A `by(<traversal>)` modulator may hold a move or a chain of steps.
    pub chains_in_by: bool,
    /// `mean()` of integers divides as floats.
    pub mean_of_integers: bool,
}

impl Quirks {
    /// TinkerPop's: everything allowed.
    pub const NONE: Quirks = Quirks {
        edge_ends_anywhere: true,
        keyed_maps: true,
        predicate_connectives: true,
        has_label_key_predicate: true,
        both_edge_ends: true,
        move_after_edge_end: true,
        edge_steps_in_filters: true,
        not_of_missing_property: true,
        edge_label_after_barrier: true,
        dedup_signed_zero: true,
        group_count_identity: true,
        aggregate_of_nothing: true,
        generated_ids: true,
        edge_group_by_label: true,
        chains_in_by: true,
        mean_of_integers: true,
    };

    fn meet(self, o: Quirks) -> Quirks {
        Quirks {
            edge_ends_anywhere: self.edge_ends_anywhere && o.edge_ends_anywhere,
            keyed_maps: self.keyed_maps && o.keyed_maps,
            predicate_connectives: self.predicate_connectives && o.predicate_connectives,
            has_label_key_predicate: self.has_label_key_predicate && o.has_label_key_predicate,
            both_edge_ends: self.both_edge_ends && o.both_edge_ends,
            move_after_edge_end: self.move_after_edge_end && o.move_after_edge_end,
            edge_steps_in_filters: self.edge_steps_in_filters && o.edge_steps_in_filters,
            not_of_missing_property: self.not_of_missing_property && o.not_of_missing_property,
            edge_label_after_barrier: self.edge_label_after_barrier && o.edge_label_after_barrier,
            dedup_signed_zero: self.dedup_signed_zero && o.dedup_signed_zero,
            group_count_identity: self.group_count_identity && o.group_count_identity,
            aggregate_of_nothing: self.aggregate_of_nothing && o.aggregate_of_nothing,
            generated_ids: self.generated_ids && o.generated_ids,
            edge_group_by_label: self.edge_group_by_label && o.edge_group_by_label,
            chains_in_by: self.chains_in_by && o.chains_in_by,
            mean_of_integers: self.mean_of_integers && o.mean_of_integers,
        }
    }
}

/// Every step name the generator knows, sources included.
pub const ALL_STEPS: &[&str] = &[
    "V",
    "E",
    "V(id)",
    "inject",
    "out",
    "in",
    "both",
    "outE",
    "inE",
    "bothE",
    "outV",
    "inV",
    "bothV",
    "otherV",
    "has",
    "hasLabel",
    "hasNot",
    "hasId",
    "is",
    "where",
    "not",
    "and",
    "or",
    "filter",
    "dedup",
    "simplePath",
    "cyclicPath",
    "order",
    "range",
    "limit",
    "skip",
    "tail",
    "count",
    "sum",
    "min",
    "max",
    "mean",
    "values",
    "valueMap",
    "elementMap",
    "id",
    "properties",
    "label",
    "constant",
    "union",
    "coalesce",
    "optional",
    "choose",
    "repeat",
    "until",
    "path",
    "groupCount",
    "group",
    "fold",
    "unfold",
    "as",
    "select",
    "project",
];

impl GremlinDialect {
    /// Whether the dialect accepts step `name` and answers it as TinkerPop does.
    pub fn allows(&self, name: &str) -> bool {
        self.accepts(name) && !self.differs.iter().any(|(n, _)| *n == name)
    }

    /// Whether the dialect accepts step `name` at all, however it answers.
    pub fn accepts(&self, name: &str) -> bool {
        self.steps.contains(name)
    }

    /// The steps both accept; spelling stays `self`'s (a campaign renders
    /// each engine's text with its own dialect).
    pub fn intersect(&self, other: &Self) -> Self {
        let mut out = self.clone();
        if self.name != other.name {
            out.name = format!("{}&{}", self.name, other.name);
        }
        out.steps = self.steps.intersection(&other.steps).copied().collect();
        out.quirks = self.quirks.meet(other.quirks);
        for d in &other.differs {
            if !out.differs.contains(d) {
                out.differs.push(*d);
            }
        }
        out
    }
}
