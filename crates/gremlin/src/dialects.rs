//! The built-in Gremlin dialects, measured on each engine (the evidence
//! strings say how).

use std::sync::LazyLock;

use crate::dialect::{ALL_STEPS, GremlinDialect, Quirks};

pub(crate) static TINKERPOP: LazyLock<GremlinDialect> = LazyLock::new(tinkerpop);
pub(crate) static GRAFEO: LazyLock<GremlinDialect> = LazyLock::new(grafeo);
pub(crate) static GRAPHERSAL: LazyLock<GremlinDialect> = LazyLock::new(graphersal);

fn all_but(missing: &[&str]) -> std::collections::BTreeSet<&'static str> {
    ALL_STEPS.iter().copied().filter(|s| !missing.contains(s)).collect()
}

/// Apache TinkerPop's Groovy text: every step, spelled in full.
fn tinkerpop() -> GremlinDialect {
    GremlinDialect {
        name: "tinkerpop".into(),
        quote: '\'',
        anonymous: "__.",
        predicates: "P.",
        order: ("Order.asc", "Order.desc"),
        label_token: "T.label",
        terminal: "",
        steps: ALL_STEPS.iter().copied().collect(),
        differs: Vec::new(),
        // A server numbers the vertices its own way (TinkerGraph counts
        // vertices and edges together; JanusGraph makes long ids).
        quirks: Quirks { generated_ids: false, ..Quirks::NONE },
    }
}

/// Grafeo 0.5.44: anonymous traversals written bare (`__` does not lex),
/// bare predicates and sort orders, no terminal step.
fn grafeo() -> GremlinDialect {
    GremlinDialect {
        name: "grafeo".into(),
        quote: '\'',
        anonymous: "",
        predicates: "",
        order: ("asc", "desc"),
        label_token: "T.label",
        terminal: "",
        // `Unknown step` or `Expected V, E, addV, or addE` from its parser.
        // `until` needs `loops()` to be bounded ("Unknown step: Loops"); an
        // unbounded one runs forever on a cycle, as TinkerPop's would.
        steps: all_but(&["inject", "is", "simplePath", "cyclicPath", "tail", "until"]),
        differs: vec![
            ("path", "path() returns the current element, never a path: g.V().out().path()"),
            ("coalesce", "coalesce() picks one branch for the whole input, not per traverser"),
            ("optional", "optional() as the last step returns raw node ids"),
            ("choose", "choose() returns the false branch as null or raw ids"),
            ("group", "group().by(k) holds node ids, and a second by(count()) is ignored"),
            ("project", "project().by(<traversal>) returns the vertex itself"),
            ("valueMap", "valueMap() holds single values, not lists; valueMap('k') is a column, not a map"),
            ("id", "ids are integers, graphersal's strings: g.V(3).id() is 3 here, '3' there"),
            ("properties", "properties() returns the element itself: g.V(3).properties('k2') gives the vertex"),
        ],
        quirks: Quirks {
            // g.V().bothE().order().by('gid', asc).otherV().out(): "Variable '_v1' is not a node".
            edge_ends_anywhere: false,
            // elementMap('k0').count(): "Internal error: Variable 'id' not found in input".
            keyed_maps: false,
            // has('k', gt(1).and(lt(5))): "Expected RParen, found Dot".
            predicate_connectives: false,
            // has('L1', 'k6', lte('ca')): "Expected value".
            has_label_key_predicate: false,
            // Triaged by cause: docs/bugs/README.md, Grafeo Gremlin (GA, GD, GE...).
            // GE: g.V().bothE().inV() is otherV(), bothE().outV() the start vertex.
            both_edge_ends: false,
            // GF: g.E().outV().out() expands from the previous hop's far end.
            move_after_edge_end: false,
            // GD: where(outE()) keeps every vertex; outE().has(k) reads the vertex.
            edge_steps_in_filters: false,
            // GN: not(has('k', eq(1))) drops the vertices without k.
            not_of_missing_property: false,
            // GL: g.E().order().by('gid').hasLabel('T') keeps nothing.
            edge_label_after_barrier: false,
            // GZ: values('k').dedup() keeps 0.0 and -0.0 apart.
            dedup_signed_zero: false,
            // GB: values('k').groupCount() gives bare counts, and no row of nothing.
            group_count_identity: false,
            // GA: g.V().values('k').sum() on an empty graph is [null].
            aggregate_of_nothing: false,
            // V(3) is the vertex with gid 3, hasId(3, 5) keeps two vertices.
            generated_ids: true,
            // GC: g.V().inE().groupCount().by(T.label) is {null: n}.
            edge_group_by_label: false,
            // project('p').by(outE().count()): "Expected RParen, found OutE";
            // by(values('k').fold()): "Expected RParen, found Dot".
            chains_in_by: false,
            // GM: g.E().values('k0').mean() over -7, 2, -3 is -3.0, not -2.666….
            mean_of_integers: false,
        },
    }
}

/// graphersal 0.5.1: Rhai-based text, double-quoted strings, `.toList()` at the end.
fn graphersal() -> GremlinDialect {
    GremlinDialect {
        name: "graphersal".into(),
        quote: '"',
        anonymous: "__.",
        predicates: "P.",
        order: ("Order.asc", "Order.desc"),
        label_token: "T.label",
        terminal: ".toList()",
        steps: all_but(&[]),
        differs: vec![
            ("id", "ids are strings, Grafeo's integers: g.V(3).id() is '3' here, 3 there"),
            ("properties", "properties('k2') yields the bare values, not property objects"),
        ],
        // V(3) is the vertex with gid 3, as in Grafeo.
        quirks: Quirks::NONE,
    }
}

// The lookups live beside the tables so the dialect type needs no table.
impl GremlinDialect {
    /// Apache TinkerPop's Groovy text, as a Gremlin Server reads it.
    pub fn tinkerpop() -> &'static Self {
        &TINKERPOP
    }

    /// The built-in dialect of an engine family, made once: rendering asks
    /// for it for every query and engine.
    pub fn builtin(name: &str) -> Option<&'static Self> {
        match name {
            "tinkerpop" | "gremlin-server" => Some(&TINKERPOP),
            "grafeo" => Some(&GRAFEO),
            "graphersal" => Some(&GRAPHERSAL),
            _ => None,
        }
    }
}
