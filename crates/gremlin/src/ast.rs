//! The traversal model: a source and a chain of steps, each step holding its
//! arguments as data (anonymous traversals included), so a traversal can be
//! typed, rendered for any dialect and reduced step by step.

use graphlancer_model::Value;
use serde::{Deserialize, Serialize};

/// A whole traversal: `g.<source>.<steps>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Traversal {
    /// Where traversers start.
    pub source: Source,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// Where a traversal's traversers come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `V()`: every vertex.
    V,
    /// `E()`: every edge.
    E,
    /// `V(id, ...)`: the vertices of the given generated ids, which engines
    /// whose dialect keeps the generated ids use as their own.
    VIds(Vec<i64>),
    /// `inject(v, ...)`: the given values.
    Inject(Vec<Value>),
}

/// The direction of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Along an edge from its out-vertex.
    Out,
    /// Against an edge, from its in-vertex.
    In,
    /// Either way.
    Both,
}

/// A comparison `P` (TinkerPop's predicates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicate {
    /// `eq(v)`.
    Eq(Value),
    /// `neq(v)`.
    Neq(Value),
    /// `lt(v)`.
    Lt(Value),
    /// `lte(v)`.
    Lte(Value),
    /// `gt(v)`.
    Gt(Value),
    /// `gte(v)`.
    Gte(Value),
    /// `inside(a, b)`: a < x < b.
    Inside(Value, Value),
    /// `outside(a, b)`: x < a or x > b.
    Outside(Value, Value),
    /// `between(a, b)`: a <= x < b.
    Between(Value, Value),
    /// `within(v, ...)`.
    Within(Vec<Value>),
    /// `without(v, ...)`.
    Without(Vec<Value>),
    /// `p.and(q)`.
    And(Box<Predicate>, Box<Predicate>),
    /// `p.or(q)`.
    Or(Box<Predicate>, Box<Predicate>),
}

/// How `order()` sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

/// A modulator `by(...)` of order, group, groupCount, project, path and select.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// `by()`: the traverser itself.
    Identity,
    /// `by('key')`: a property's value.
    Key(String),
    /// `by(T.label)`.
    Label,
    /// `by(<traversal>)`.
    Traversal(Vec<Step>),
}

/// One step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// `out/in/both(labels...)`: to adjacent vertices.
    Move(Direction, Vec<String>),
    /// `outE/inE/bothE(labels...)`: to incident edges.
    MoveE(Direction, Vec<String>),
    /// `outV()/inV()/bothV()`: from an edge to its vertices.
    EdgeV(Direction),
    /// `otherV()`: from an edge to the vertex it was not reached from.
    OtherV,
    /// `has('key')`.
    HasKey(String),
    /// `has('key', P)`.
    Has(String, Predicate),
    /// `has('label', 'key', P)`.
    HasLabelKey(String, String, Predicate),
    /// `hasLabel('a', ...)`.
    HasLabel(Vec<String>),
    /// `hasNot('key')`.
    HasNot(String),
    /// `hasId(id, ...)` on vertices, ids as in [`Source::VIds`].
    HasId(Vec<i64>),
    /// `is(P)`.
    Is(Predicate),
    /// `where(<traversal>)`.
    Where(Vec<Step>),
    /// `not(<traversal>)`.
    Not(Vec<Step>),
    /// `and(<traversal>, ...)`.
    And(Vec<Vec<Step>>),
    /// `or(<traversal>, ...)`.
    Or(Vec<Vec<Step>>),
    /// `filter(<traversal>)`.
    Filter(Vec<Step>),
    /// `dedup()`.
    Dedup,
    /// `simplePath()`.
    SimplePath,
    /// `cyclicPath()`.
    CyclicPath,
    /// `order()` with its `by` modulators (none: the traversers themselves).
    Order(Vec<(By, Order)>),
    /// `range(lo, hi)`.
    Range(u32, u32),
    /// `limit(n)`.
    Limit(u32),
    /// `skip(n)`.
    Skip(u32),
    /// `tail(n)`.
    Tail(u32),
    /// `count()`.
    Count,
    /// `sum()`.
    Sum,
    /// `min()`.
    Min,
    /// `max()`.
    Max,
    /// `mean()`.
    Mean,
    /// `values('key', ...)`.
    Values(Vec<String>),
    /// `valueMap('key', ...)`.
    ValueMap(Vec<String>),
    /// `elementMap('key', ...)`.
    ElementMap(Vec<String>),
    /// `id()`.
    Id,
    /// `properties('key', ...)`: the element's property objects.
    Properties(Vec<String>),
    /// `label()`.
    Label,
    /// `constant(v)`.
    Constant(Value),
    /// `union(<traversal>, ...)`.
    Union(Vec<Vec<Step>>),
    /// `coalesce(<traversal>, ...)`.
    Coalesce(Vec<Vec<Step>>),
    /// `optional(<traversal>)`.
    Optional(Vec<Step>),
    /// `choose(<condition>, <then>, <else>)`.
    Choose(Vec<Step>, Vec<Step>, Vec<Step>),
    /// `repeat(<body>).times(n)`, with `emit()` after it when set; with an
    /// `until` condition, `repeat(<body>).until(or(<cond>, loops().is(n)))`,
    /// bounded so that a cycle cannot make it run forever.
    Repeat {
        /// The body.
        body: Vec<Step>,
        /// How many times, or the most times when `until` is set.
        times: u32,
        /// Whether every intermediate traverser is emitted too.
        emit: bool,
        /// The condition that ends the loop early.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<Vec<Step>>,
    },
    /// `path()`.
    Path,
    /// `group().by(key)` with the values counted: `.by(count())`.
    GroupCount(By),
    /// `group().by(key).by(<traversal>)`.
    Group(By, Vec<Step>),
    /// `fold()`.
    Fold,
    /// `unfold()`.
    Unfold,
    /// `as('name')`.
    As(String),
    /// `select('a', ...)`.
    Select(Vec<String>),
    /// `project('a', ...).by(...)...`.
    Project(Vec<(String, By)>),
}

impl Step {
    /// The step's name in TinkerPop, which is also its name in coverage
    /// tables and dialect profiles (`move` forms by their own names).
    pub fn name(&self) -> &'static str {
        match self {
            Step::Move(Direction::Out, _) => "out",
            Step::Move(Direction::In, _) => "in",
            Step::Move(Direction::Both, _) => "both",
            Step::MoveE(Direction::Out, _) => "outE",
            Step::MoveE(Direction::In, _) => "inE",
            Step::MoveE(Direction::Both, _) => "bothE",
            Step::EdgeV(Direction::Out) => "outV",
            Step::EdgeV(Direction::In) => "inV",
            Step::EdgeV(Direction::Both) => "bothV",
            Step::OtherV => "otherV",
            Step::HasKey(_) | Step::Has(..) | Step::HasLabelKey(..) => "has",
            Step::HasLabel(_) => "hasLabel",
            Step::HasNot(_) => "hasNot",
            Step::HasId(_) => "hasId",
            Step::Is(_) => "is",
            Step::Where(_) => "where",
            Step::Not(_) => "not",
            Step::And(_) => "and",
            Step::Or(_) => "or",
            Step::Filter(_) => "filter",
            Step::Dedup => "dedup",
            Step::SimplePath => "simplePath",
            Step::CyclicPath => "cyclicPath",
            Step::Order(_) => "order",
            Step::Range(..) => "range",
            Step::Limit(_) => "limit",
            Step::Skip(_) => "skip",
            Step::Tail(_) => "tail",
            Step::Count => "count",
            Step::Sum => "sum",
            Step::Min => "min",
            Step::Max => "max",
            Step::Mean => "mean",
            Step::Values(_) => "values",
            Step::ValueMap(_) => "valueMap",
            Step::ElementMap(_) => "elementMap",
            Step::Id => "id",
            Step::Properties(_) => "properties",
            Step::Label => "label",
            Step::Constant(_) => "constant",
            Step::Union(_) => "union",
            Step::Coalesce(_) => "coalesce",
            Step::Optional(_) => "optional",
            Step::Choose(..) => "choose",
            Step::Repeat { .. } => "repeat",
            Step::Path => "path",
            Step::GroupCount(_) => "groupCount",
            Step::Group(..) => "group",
            Step::Fold => "fold",
            Step::Unfold => "unfold",
            Step::As(_) => "as",
            Step::Select(_) => "select",
            Step::Project(_) => "project",
        }
    }

    /// The anonymous traversals the step holds, for walks over the whole tree.
    pub fn children(&self) -> Vec<&Vec<Step>> {
        match self {
            Step::Where(t) | Step::Not(t) | Step::Filter(t) | Step::Optional(t) => vec![t],
            Step::Repeat { body, until, .. } => std::iter::once(body).chain(until).collect(),
            Step::And(ts) | Step::Or(ts) | Step::Union(ts) | Step::Coalesce(ts) => ts.iter().collect(),
            Step::Choose(c, a, b) => vec![c, a, b],
            Step::Group(by, t) => {
                let mut v = vec![t];
                if let By::Traversal(b) = by {
                    v.push(b);
                }
                v
            }
            Step::GroupCount(By::Traversal(t)) => vec![t],
            Step::Order(bys) => {
                bys.iter().filter_map(|(b, _)| if let By::Traversal(t) = b { Some(t) } else { None }).collect()
            }
            Step::Project(items) => {
                items.iter().filter_map(|(_, b)| if let By::Traversal(t) = b { Some(t) } else { None }).collect()
            }
            _ => Vec::new(),
        }
    }
}

impl Traversal {
    /// Every step's name, nested ones included, for coverage.
    pub fn step_names(&self) -> std::collections::BTreeSet<&'static str> {
        fn walk(steps: &[Step], out: &mut std::collections::BTreeSet<&'static str>) {
            for s in steps {
                out.insert(s.name());
                if let Step::Repeat { until: Some(_), .. } = s {
                    out.insert("until");
                }
                for c in s.children() {
                    walk(c, out);
                }
            }
        }
        let mut out = std::collections::BTreeSet::new();
        out.insert(match self.source {
            Source::V => "V",
            Source::E => "E",
            Source::VIds(_) => "V(id)",
            Source::Inject(_) => "inject",
        });
        walk(&self.steps, &mut out);
        out
    }

    /// The step names, comma-joined: what signatures and reports key on.
    pub fn constructs(&self) -> String {
        self.step_names().into_iter().collect::<Vec<_>>().join(",")
    }

    /// Steps counted with the nested ones, a measure of size.
    pub fn size(&self) -> usize {
        fn walk(steps: &[Step]) -> usize {
            steps.iter().map(|s| 1 + s.children().iter().map(|c| walk(c)).sum::<usize>()).sum()
        }
        walk(&self.steps)
    }
}
