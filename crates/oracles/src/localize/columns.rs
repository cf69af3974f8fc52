//! What computes a result column, and how two engines' answers differ in
//! it: the facts localization and names read off a query's columns.

use graphlancer_cypher::ast::{Clause, Expr, Projection, Query};
use graphlancer_cypher::check::result_types;
use graphlancer_cypher::types::Ty;
use graphlancer_engines::Outcome;
use graphlancer_model::{Comparison, ResultSet, RowOrder, Schema, Tolerance, Value, compare};

/// What the probing found.
#[derive(Debug, Clone, PartialEq)]
pub struct Culprit {
    /// What it is: the signature's key.
    pub kind: crate::culprit::Culprit,
    /// Its text.
    pub text: String,
}

impl Culprit {
    /// What [`Self::text`] is, for a report's first line: the part that
    /// differs, or for a culprit found by changing the query, the query
    /// changed so that the engines agree.
    pub fn text_is(&self) -> &'static str {
        match &self.kind {
            crate::culprit::Culprit::PipelinedWrites(_) => "the engines agree once every write sees all its rows",
            crate::culprit::Culprit::Value(v) if v == super::distinct::BESIDE_DISTINCT => {
                "the engines agree once the aggregates beside it are plain"
            }
            _ => "the smallest part that differs",
        }
    }
}

/// Whether `clause` is a MATCH or MERGE whose pattern binds `name`.
pub(super) fn binds(clause: &Clause, name: &str) -> bool {
    match clause {
        Clause::Match { patterns, .. } => patterns.iter().any(|p| p.variables().any(|v| v == name)),
        Clause::Merge { pattern, .. } => pattern.variables().any(|v| v == name),
        _ => false,
    }
}

/// A culprit named `kind`, shown as the rows after `clauses`.
pub(super) fn named(clauses: &[Clause], kind: crate::culprit::Culprit) -> Culprit {
    let text = returning(clauses, vec![(Expr::lit(Value::Int(0)), "x".into())]);
    Culprit { kind, text: graphlancer_cypher::render(&text) }
}

/// Whether a projection merges rows: DISTINCT, or aggregates.
pub(super) fn grouping(p: &Projection) -> bool {
    p.distinct || p.items.iter().any(|(e, _)| e.has_aggregate())
}

/// For a variable, the expression the last WITH of `prefix` that projects
/// it computed it with, and the clauses before that WITH; none where
/// returning that expression alone would group rows differently (an
/// aggregate beside grouping keys, DISTINCT, paging).
pub(super) fn computed_by(prefix: &[Clause], culprit: &Expr) -> Option<(Vec<Clause>, Expr)> {
    let Expr::Variable(name) = culprit else { return None };
    let at = prefix.iter().rposition(|c| matches!(c, Clause::With(_)))?;
    let Clause::With(proj) = &prefix[at] else { return None };
    let (e, _) = proj.items.iter().find(|(_, alias)| alias == name)?;
    let grouped = e.has_aggregate() && proj.items.iter().any(|(other, _)| !other.has_aggregate());
    let reshaped = proj.distinct || proj.skip.is_some() || proj.limit.is_some() || proj.predicate.is_some();
    if grouped || reshaped {
        return None;
    }
    match e {
        // A variable passed on under another name: where it was computed.
        Expr::Variable(_) => computed_by(&prefix[..at], e),
        _ => Some((prefix[..at].to_vec(), e.clone())),
    }
}

pub(crate) use crate::edit::returning;

/// The culprit's kind with its operands' types, e.g. `op:+(Float,Int)`:
/// the kind alone would merge unrelated bugs of one operator. A list's
/// element types are a set (its length is not the bug).
pub(super) fn kind_with_operands(prefix: &[Clause], culprit: &Expr, schema: &Schema) -> String {
    let types = |items: Vec<(Expr, String)>| result_types(&returning(prefix, items), schema).ok();
    let own = types(vec![(culprit.clone(), "x".into())]).and_then(|t| t.into_iter().next()).flatten();
    let kind = crate::shape::expr_kind(culprit, own.as_ref());
    let mut operands = culprit.clone();
    let operands: Vec<(Expr, String)> =
        operands.children_mut().into_iter().enumerate().map(|(i, c)| (c.clone(), format!("c{i}"))).collect();
    if operands.is_empty() {
        // A literal's type is what its engines read differently.
        return match (culprit, own) {
            (Expr::Literal(_), Some(t)) => format!("{kind}({t:?})"),
            _ => kind,
        };
    }
    match types(operands) {
        Some(types) => {
            let mut names: Vec<String> =
                types.iter().map(|t| t.as_ref().map_or_else(|| "Null".into(), |t| format!("{t:?}"))).collect();
            if matches!(culprit, Expr::List(_)) {
                // Nodes and relationships are entities alike, paths apart,
                // and the other elements values alike.
                for n in &mut names {
                    *n = match n.as_str() {
                        "Node" | "Rel" => "Entity".into(),
                        "Path" => "Path".into(),
                        _ => "Value".into(),
                    };
                }
                names.sort();
                names.dedup();
            }
            if let Expr::Case { subject, branches, .. } = culprit {
                // A CASE is named by the types it can give: which branch it
                // takes is the bug, not the conditions' types or how many
                // branches there are (Kuzu 0.1.0's wrong branch over a column
                // with nulls came as `case(Bool,Int)`, `case(Bool,Int,Int)`,
                // `case(String,String,String)`, ...: two bugs, four names).
                let first = usize::from(subject.is_some());
                let results = (0..branches.len())
                    .map(|b| first + 2 * b + 1)
                    .chain((names.len() > first + 2 * branches.len()).then_some(first + 2 * branches.len()));
                let mut given: Vec<String> = results.filter_map(|i| names.get(i).cloned()).collect();
                given.sort();
                given.dedup();
                names = given;
            }
            format!("{kind}({})", names.join(","))
        }
        None => kind,
    }
}

/// A grouping key by what engines hash and compare it as: entities, paths,
/// maps and lists by their type, every other value alike.
pub(super) fn key_class(before: &[Clause], key: &Expr, schema: &Schema) -> &'static str {
    let typed = result_types(&returning(before, vec![(key.clone(), "x".into())]), schema);
    match typed.ok().and_then(|t| t.into_iter().next()).flatten() {
        Some(Ty::Node) => "Node",
        Some(Ty::Rel) => "Rel",
        Some(Ty::Path) => "Path",
        Some(Ty::Map) => "Map",
        Some(Ty::List(_)) => "List",
        _ => "value",
    }
}

/// Column `j` of `r` alone.
pub(super) fn column_of(r: &ResultSet, j: usize) -> ResultSet {
    ResultSet::new(
        vec!["x".into()],
        r.rows.iter().map(|row| vec![row.get(j).cloned().unwrap_or(Value::Null)]).collect(),
    )
}

/// `r` with every relationship's ends in one order (the smaller first):
/// what two answers share when they differ only in relationships' direction.
pub(super) fn oriented(r: &ResultSet) -> ResultSet {
    fn orient(v: &Value) -> Value {
        let rel = |r: &graphlancer_model::Relationship| {
            let mut r = r.clone();
            if r.start > r.end {
                std::mem::swap(&mut r.start, &mut r.end);
            }
            r
        };
        match v {
            Value::Relationship(r) => Value::Relationship(rel(r)),
            Value::Path(p) => Value::Path(graphlancer_model::Path {
                nodes: p.nodes.clone(),
                relationships: p.relationships.iter().map(rel).collect(),
            }),
            Value::List(items) => Value::List(items.iter().map(orient).collect()),
            Value::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), orient(v))).collect()),
            other => other.clone(),
        }
    }
    ResultSet::new(r.columns.clone(), r.rows.iter().map(|row| row.iter().map(orient).collect()).collect())
}

/// Which of two answers (0 or 1) has numbers where the other has nodes or
/// relationships and is otherwise alike: none where both or neither hold
/// entities, or where they differ elsewhere.
pub(super) fn entity_as_number(x: &ResultSet, y: &ResultSet) -> Option<usize> {
    fn entities(v: &Value) -> bool {
        match v {
            Value::Node(_) | Value::Relationship(_) => true,
            Value::List(items) => items.iter().any(entities),
            Value::Map(m) => m.values().any(entities),
            _ => false,
        }
    }
    // A marker no answer holds: a null against an entity is another bug.
    fn blurred(v: &Value) -> Value {
        match v {
            Value::Node(_) | Value::Relationship(_) | Value::Int(_) => Value::String("\u{0}entity or number".into()),
            Value::List(items) => Value::List(items.iter().map(blurred).collect()),
            Value::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), blurred(v))).collect()),
            other => other.clone(),
        }
    }
    let holds = |r: &ResultSet| r.rows.iter().flatten().any(entities);
    let blur = |r: &ResultSet| {
        ResultSet::new(r.columns.clone(), r.rows.iter().map(|row| row.iter().map(blurred).collect()).collect())
    };
    let numbers = match (holds(x), holds(y)) {
        (false, true) => 0,
        (true, false) => 1,
        _ => return None,
    };
    (x.rows.len() == y.rows.len() && !differs(&blur(x), &blur(y))).then_some(numbers)
}

/// Whether `answer` to `query`, whose final RETURN merges rows (DISTINCT
/// or aggregates), holds two rows with equal keys (NULL keys being one
/// group, as grouping treats them).
pub(super) fn repeats_keys(query: &Query, answer: &Outcome) -> bool {
    use graphlancer_model::compare::values_match;
    let ([part], Some(rows)) = (query.parts.as_slice(), answer.rows()) else { return false };
    let Some(Clause::Return(r)) = part.clauses.last() else { return false };
    if !grouping(r) {
        return false;
    }
    // Columns by position where the RETURN lists them all: an engine names
    // a column without an alias in its own way (Kuzu: `TRIM(n2.k2)`).
    let by_position = !r.star && rows.columns.len() == r.items.len();
    let Some(keys) = r
        .items
        .iter()
        .enumerate()
        .filter(|(_, (e, _))| !e.has_aggregate())
        .map(|(i, (_, alias))| if by_position { Some(i) } else { rows.columns.iter().position(|c| c == alias) })
        .collect::<Option<Vec<usize>>>()
    else {
        return false;
    };
    // Reduced answers are a few rows: each against those before it. Keys
    // are compared exactly, as the engine grouped them: two float keys one
    // ULP apart are two groups, rightly.
    let same_keys = |a: &[Value], b: &[Value]| {
        keys.iter().all(|&i| matches!((a.get(i), b.get(i)), (Some(x), Some(y)) if values_match(x, y, Tolerance::EXACT)))
    };
    rows.rows.iter().enumerate().any(|(i, a)| rows.rows[..i].iter().any(|b| same_keys(a, b)))
}

/// Whether two answers differ as bags.
pub(crate) fn differs(a: &ResultSet, b: &ResultSet) -> bool {
    matches!(compare(a, b, &RowOrder::Bag, Tolerance::default()), Comparison::Differ(_))
}
