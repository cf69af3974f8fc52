//! Whether a query has the shape of a known bug. The generator steers
//! around these shapes; a campaign that tracks known bugs instead lets it
//! write them, and counts a reduced finding that still has the shape under
//! the bug (one ledger row), not as a report of its own.

use std::collections::BTreeSet;

use graphlancer_model::{PropertyType, Schema, Value};

use crate::KnownBug;
use crate::ast::{BinOp, Clause, Expr, PathPattern, Projection, Query, SingleQuery};
use crate::functions::Kind;

impl KnownBug {
    /// Every known bug, for listings and tests.
    pub const ALL: [KnownBug; 9] = [
        KnownBug::GroupingKeys,
        KnownBug::TwoHopsFromBoundNode,
        KnownBug::LongFixedLengthPaths,
        KnownBug::TypeOfNull,
        KnownBug::BareBoundNodePart,
        KnownBug::AggregateOfAggregateAlias,
        KnownBug::RelationshipInequalityById,
        KnownBug::UnreferencedRelationships,
        KnownBug::ContainsEmptyString,
    ];

    /// The name a profile's `[bugs]` table gives it.
    pub fn name(self) -> &'static str {
        match self {
            KnownBug::GroupingKeys => "grouping_keys",
            KnownBug::TwoHopsFromBoundNode => "two_hops_from_bound_node",
            KnownBug::LongFixedLengthPaths => "long_fixed_length_paths",
            KnownBug::TypeOfNull => "type_of_null",
            KnownBug::BareBoundNodePart => "bare_bound_node_part",
            KnownBug::AggregateOfAggregateAlias => "aggregate_of_aggregate_alias",
            KnownBug::RelationshipInequalityById => "relationship_inequality_by_id",
            KnownBug::UnreferencedRelationships => "unreferenced_relationships",
            KnownBug::ContainsEmptyString => "contains_empty_string",
        }
    }

    /// Whether a finding of this bug can be told from another bug's by its
    /// reduced query. Parallel relationships fold wherever a relationship
    /// is anonymous, and the reducer unnames every relationship nothing
    /// reads: nearly every reduced query would have the shape, so that bug
    /// keeps steering.
    pub fn tracked(self) -> bool {
        self != KnownBug::UnreferencedRelationships
    }

    /// Whether the bug shows as a failure (an error, a crash) rather than
    /// as a wrong answer: a finding of the other kind is not this bug,
    /// whatever shape its query has.
    pub fn fails(self) -> bool {
        match self {
            KnownBug::TwoHopsFromBoundNode
            | KnownBug::TypeOfNull
            | KnownBug::BareBoundNodePart
            | KnownBug::AggregateOfAggregateAlias
            | KnownBug::RelationshipInequalityById => true,
            KnownBug::GroupingKeys
            | KnownBug::LongFixedLengthPaths
            | KnownBug::UnreferencedRelationships
            | KnownBug::ContainsEmptyString => false,
        }
    }

    /// Whether `query` (over `schema`) has this bug's shape.
    pub fn shows(self, query: &Query, schema: &Schema) -> bool {
        let vars = Vars::of(query);
        let mut parts: Vec<&SingleQuery> = Vec::new();
        for p in &query.parts {
            nested(p, &mut parts);
        }
        parts.into_iter().any(|q| match self {
            KnownBug::GroupingKeys => projections(q).any(|p| odd_grouping_key(p, &vars, schema)),
            KnownBug::TwoHopsFromBoundNode => later_matches(q).any(|(p, bound)| {
                p.hops.iter().filter(|(r, _)| !r.types.is_empty()).count() >= 2
                    && pattern_nodes(p).any(|v| bound.contains(v))
            }),
            KnownBug::LongFixedLengthPaths => patterns(q)
                .any(|p| p.name.is_some() && p.hops.len() >= 2 && p.hops.iter().all(|(r, _)| r.length.is_none())),
            KnownBug::TypeOfNull => any_expr(q, &mut |e| {
                matches!(e, Expr::Function(f, args) if f == "type"
                    && !matches!(args.as_slice(), [Expr::Variable(v)] if vars.matched_rels.contains(v)))
            }),
            KnownBug::BareBoundNodePart => later_matches(q).any(|(p, bound)| {
                p.hops.is_empty()
                    && p.start.labels.is_empty()
                    && p.start.properties.is_empty()
                    && p.start.variable.as_ref().is_some_and(|v| bound.contains(v))
            }),
            KnownBug::AggregateOfAggregateAlias => {
                let aliases = aggregate_aliases(q);
                any_expr(q, &mut |e| {
                    matches!(e, Expr::Aggregate { arg: Some(a), .. } if reads_any(a, &aliases))
                })
            }
            KnownBug::RelationshipInequalityById => any_expr(q, &mut |e| {
                matches!(e, Expr::Binary(BinOp::Ne | BinOp::Eq, a, b)
                    if [a, b].iter().all(|x| matches!(&***x, Expr::Variable(v) if vars.rels.contains(v))))
            }),
            KnownBug::UnreferencedRelationships => {
                patterns(q).any(|p| p.hops.iter().any(|(r, _)| r.variable.is_none()))
            }
            KnownBug::ContainsEmptyString => any_expr(q, &mut |e| {
                matches!(e, Expr::Binary(BinOp::Contains, _, b) if **b == Expr::Literal(Value::String(String::new())))
            }),
        })
    }
}

/// The variables of a query by what they hold. Generated and reduced
/// queries name each variable once, so one set serves the whole query.
#[derive(Default)]
struct Vars {
    nodes: BTreeSet<String>,
    rels: BTreeSet<String>,
    /// Relationships bound by a MATCH that is not optional: never null.
    matched_rels: BTreeSet<String>,
    /// UNWIND aliases over lists of integers.
    ints: BTreeSet<String>,
}

impl Vars {
    fn of(query: &Query) -> Self {
        let mut vars = Vars::default();
        let mut parts = Vec::new();
        for p in &query.parts {
            nested(p, &mut parts);
        }
        for q in parts {
            for c in &q.clauses {
                if let Clause::Unwind { list, alias } = c
                    && integers(list)
                {
                    vars.ints.insert(alias.clone());
                }
                let (patterns, optional) = match c {
                    Clause::Match { patterns, optional, .. } => (patterns.iter().collect::<Vec<_>>(), *optional),
                    Clause::Create { patterns } => (patterns.iter().collect(), false),
                    Clause::Merge { pattern, .. } => (vec![pattern], false),
                    _ => continue,
                };
                for p in patterns {
                    vars.nodes.extend(pattern_nodes(p).cloned());
                    for v in p.hops.iter().filter_map(|(r, _)| r.variable.as_ref()) {
                        vars.rels.insert(v.clone());
                        if !optional && matches!(c, Clause::Match { .. }) {
                            vars.matched_rels.insert(v.clone());
                        }
                    }
                }
            }
        }
        vars
    }
}

/// `q` and every CALL body in it.
fn nested<'a>(q: &'a SingleQuery, out: &mut Vec<&'a SingleQuery>) {
    out.push(q);
    for c in &q.clauses {
        if let Clause::Call { body, union_all, .. } = c {
            for b in std::iter::once(body).chain(union_all) {
                nested(b, out);
            }
        }
    }
}

fn projections(q: &SingleQuery) -> impl Iterator<Item = &Projection> {
    q.clauses.iter().filter_map(|c| match c {
        Clause::With(p) | Clause::Return(p) => Some(p),
        _ => None,
    })
}

fn patterns(q: &SingleQuery) -> impl Iterator<Item = &PathPattern> {
    q.clauses.iter().flat_map(|c| match c {
        Clause::Match { patterns, .. } | Clause::Create { patterns } => patterns.iter().collect::<Vec<_>>(),
        Clause::Merge { pattern, .. } => vec![pattern],
        _ => Vec::new(),
    })
}

fn pattern_nodes(p: &PathPattern) -> impl Iterator<Item = &String> {
    std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n)).filter_map(|n| n.variable.as_ref())
}

/// Each pattern of a MATCH with the variables earlier clauses bound.
fn later_matches(q: &SingleQuery) -> impl Iterator<Item = (&PathPattern, BTreeSet<&String>)> {
    let mut bound: BTreeSet<&String> = BTreeSet::new();
    let mut out = Vec::new();
    for c in &q.clauses {
        if let Clause::Match { patterns, .. } = c {
            out.extend(patterns.iter().map(|p| (p, bound.clone())));
        }
        match c {
            Clause::Match { patterns, .. } | Clause::Create { patterns } => {
                bound.extend(patterns.iter().flat_map(PathPattern::variables));
            }
            Clause::Merge { pattern, .. } => bound.extend(pattern.variables()),
            Clause::With(p) => {
                if !p.star {
                    bound.clear();
                }
                bound.extend(p.items.iter().map(|(_, a)| a));
            }
            Clause::Unwind { alias, .. } => {
                bound.insert(alias);
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// Whether any expression of `q` (patterns' property values included)
/// satisfies `holds`.
fn any_expr(q: &SingleQuery, holds: &mut dyn FnMut(&Expr) -> bool) -> bool {
    let mut found = false;
    crate::validity::each_expr(&q.clauses, &mut |x| found = found || holds(x));
    found
}

/// A grouping key of an aggregating projection that is neither an integer
/// nor a node: what Grafeo 0.5 groups wrongly.
fn odd_grouping_key(p: &Projection, vars: &Vars, schema: &Schema) -> bool {
    if !p.items.iter().any(|(e, _)| e.has_aggregate()) {
        return false;
    }
    p.star || p.items.iter().any(|(e, _)| !e.has_aggregate() && !integer_or_node(e, vars, schema))
}

fn integer_or_node(e: &Expr, vars: &Vars, schema: &Schema) -> bool {
    match e {
        Expr::Literal(Value::Int(_)) => true,
        Expr::Variable(v) => vars.nodes.contains(v) || vars.ints.contains(v),
        Expr::Property(_, k) => schema.keys.iter().any(|d| d.name == *k && d.ty == PropertyType::Int),
        Expr::Function(name, _) => crate::functions::overloads(name).all(|f| f.result == Kind::Int),
        _ => false,
    }
}

/// Whether `list` is a literal list of integers.
fn integers(list: &Expr) -> bool {
    match list {
        Expr::Literal(Value::List(items)) => items.iter().all(|v| matches!(v, Value::Int(_))),
        Expr::List(items) => items.iter().all(|e| matches!(e, Expr::Literal(Value::Int(_)))),
        _ => false,
    }
}

/// The aliases of WITH items that hold an aggregate.
fn aggregate_aliases(q: &SingleQuery) -> BTreeSet<&String> {
    q.clauses
        .iter()
        .filter_map(|c| if let Clause::With(p) = c { Some(p) } else { None })
        .flat_map(|p| p.items.iter().filter(|(e, _)| e.has_aggregate()).map(|(_, a)| a))
        .collect()
}

fn reads_any(e: &Expr, names: &BTreeSet<&String>) -> bool {
    let mut found = false;
    e.walk(&mut |x| found = found || matches!(x, Expr::Variable(v) if names.contains(v)));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shows(bug: KnownBug, text: &str) -> bool {
        let graph = graphlancer_model::generate(1, &graphlancer_model::GraphConfig::default()).expect("valid");
        let q = crate::parse::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        bug.shows(&q, &graph.schema)
    }

    #[test]
    fn each_known_bug_is_told_by_its_shape_and_a_query_without_it_is_not() {
        use KnownBug as K;
        let cases = [
            (
                K::GroupingKeys,
                "UNWIND [1.5, 1.5] AS x RETURN x, count(*) AS c",
                "UNWIND [1, 1] AS x RETURN x, count(*) AS c",
            ),
            (K::GroupingKeys, "MATCH (n)-[r]->() RETURN r, count(*) AS c", "MATCH (n)-[r]->() RETURN n, count(*) AS c"),
            (
                K::TwoHopsFromBoundNode,
                "MATCH (a:L0) WITH a MATCH (a)-[:T0]->(b)-[:T1]->(c) RETURN 0",
                "MATCH (a:L0)-[:T0]->(b)-[:T1]->(c) RETURN 0",
            ),
            (K::LongFixedLengthPaths, "MATCH p = (a)-->()-->() RETURN p", "MATCH p = (a)-[*1..2]->()-->() RETURN p"),
            (K::TypeOfNull, "OPTIONAL MATCH ()-[r]->() RETURN type(r)", "MATCH ()-[r]->() RETURN type(r)"),
            (K::TypeOfNull, "RETURN type(null)", "RETURN 0"),
            (K::BareBoundNodePart, "MATCH (a) WITH a MATCH (a), (b:L1) RETURN 0", "MATCH (a), (b:L1) RETURN 0"),
            (
                K::AggregateOfAggregateAlias,
                "UNWIND [1] AS x WITH count(x) AS c RETURN sum(c) AS s",
                "UNWIND [1] AS x WITH x AS c RETURN sum(c) AS s",
            ),
            (
                K::RelationshipInequalityById,
                "MATCH ()-[r]->()-[s]->() WHERE r <> s RETURN 0",
                "MATCH ()-[r]->()-[s]->() WHERE id(r) <> id(s) RETURN 0",
            ),
            (K::ContainsEmptyString, "RETURN 'abc' CONTAINS '' AS x", "RETURN 'abc' CONTAINS 'a' AS x"),
        ];
        for (bug, with, without) in cases {
            assert!(shows(bug, with), "{}: `{with}`", bug.name());
            assert!(!shows(bug, without), "{}: `{without}`", bug.name());
        }
    }

    #[test]
    fn every_known_bug_has_the_name_its_profile_entry_has() {
        for bug in KnownBug::ALL {
            assert_eq!(crate::profile::known_bug(bug.name()), Some(bug));
        }
    }
}
