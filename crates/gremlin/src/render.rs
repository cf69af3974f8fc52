//! Rendering a traversal to the text of one dialect.

use std::fmt::Write;

use graphlancer_model::Value;

use crate::ast::{By, Direction, Order, Predicate, Source, Step, Traversal};
use crate::dialect::GremlinDialect;

/// The text of `t` in dialect `d`.
pub fn render(t: &Traversal, d: &GremlinDialect) -> String {
    let mut out = String::from("g.");
    match &t.source {
        Source::V => out.push_str("V()"),
        Source::E => out.push_str("E()"),
        Source::VIds(ids) => {
            let _ = write!(out, "V({})", ids_list(ids));
        }
        Source::Inject(values) => {
            let _ = write!(out, "inject({})", list(values, d));
        }
    }
    for s in &t.steps {
        out.push('.');
        step(&mut out, s, d);
    }
    out.push_str(d.terminal);
    out
}

fn anonymous(steps: &[Step], d: &GremlinDialect) -> String {
    let mut out = String::from(d.anonymous);
    if steps.is_empty() {
        // The identity traversal.
        out.push_str("identity()");
        return out;
    }
    for (i, s) in steps.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        step(&mut out, s, d);
    }
    out
}

fn ids_list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn anonymous_list(ts: &[Vec<Step>], d: &GremlinDialect) -> String {
    ts.iter().map(|t| anonymous(t, d)).collect::<Vec<_>>().join(", ")
}

fn string(s: &str, d: &GremlinDialect) -> String {
    graphlancer_model::script::quote_string_with(s, d.quote)
}

fn strings(items: &[String], d: &GremlinDialect) -> String {
    items.iter().map(|s| string(s, d)).collect::<Vec<_>>().join(", ")
}

/// A literal in dialect `d`: strings in its quotes, floats in Rust's
/// shortest round-trip form (always with a `.` or an exponent).
pub fn literal(v: &Value, d: &GremlinDialect) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => graphlancer_model::script::format_float(*f),
        Value::String(s) => string(s, d),
        Value::List(items) => format!("[{}]", list(items, d)),
        other => format!("{other:?}"),
    }
}

fn list(values: &[Value], d: &GremlinDialect) -> String {
    values.iter().map(|v| literal(v, d)).collect::<Vec<_>>().join(", ")
}

fn predicate(p: &Predicate, d: &GremlinDialect) -> String {
    let pre = d.predicates;
    match p {
        Predicate::Eq(v) => format!("{pre}eq({})", literal(v, d)),
        Predicate::Neq(v) => format!("{pre}neq({})", literal(v, d)),
        Predicate::Lt(v) => format!("{pre}lt({})", literal(v, d)),
        Predicate::Lte(v) => format!("{pre}lte({})", literal(v, d)),
        Predicate::Gt(v) => format!("{pre}gt({})", literal(v, d)),
        Predicate::Gte(v) => format!("{pre}gte({})", literal(v, d)),
        Predicate::Inside(a, b) => format!("{pre}inside({}, {})", literal(a, d), literal(b, d)),
        Predicate::Outside(a, b) => format!("{pre}outside({}, {})", literal(a, d), literal(b, d)),
        Predicate::Between(a, b) => format!("{pre}between({}, {})", literal(a, d), literal(b, d)),
        Predicate::Within(vs) => format!("{pre}within({})", list(vs, d)),
        Predicate::Without(vs) => format!("{pre}without({})", list(vs, d)),
        Predicate::And(a, b) => format!("{}.and({})", predicate(a, d), predicate(b, d)),
        Predicate::Or(a, b) => format!("{}.or({})", predicate(a, d), predicate(b, d)),
    }
}

fn by(b: &By, d: &GremlinDialect) -> String {
    match b {
        By::Identity => "by()".into(),
        By::Key(k) => format!("by({})", string(k, d)),
        By::Label => format!("by({})", d.label_token),
        By::Traversal(t) => format!("by({})", anonymous(t, d)),
    }
}

fn direction(dir: Direction) -> &'static str {
    match dir {
        Direction::Out => "out",
        Direction::In => "in",
        Direction::Both => "both",
    }
}

fn step(out: &mut String, s: &Step, d: &GremlinDialect) {
    let _ = match s {
        Step::Move(dir, labels) => write!(out, "{}({})", direction(*dir), strings(labels, d)),
        Step::MoveE(dir, labels) => write!(out, "{}E({})", direction(*dir), strings(labels, d)),
        Step::EdgeV(dir) => write!(out, "{}V()", direction(*dir)),
        Step::OtherV => write!(out, "otherV()"),
        Step::HasKey(k) => write!(out, "has({})", string(k, d)),
        Step::Has(k, p) => write!(out, "has({}, {})", string(k, d), predicate(p, d)),
        Step::HasLabelKey(l, k, p) => write!(out, "has({}, {}, {})", string(l, d), string(k, d), predicate(p, d)),
        Step::HasLabel(ls) => write!(out, "hasLabel({})", strings(ls, d)),
        Step::HasNot(k) => write!(out, "hasNot({})", string(k, d)),
        Step::HasId(ids) => write!(out, "hasId({})", ids_list(ids)),
        Step::Is(p) => write!(out, "is({})", predicate(p, d)),
        Step::Where(t) => write!(out, "where({})", anonymous(t, d)),
        Step::Not(t) => write!(out, "not({})", anonymous(t, d)),
        Step::And(ts) => write!(out, "and({})", anonymous_list(ts, d)),
        Step::Or(ts) => write!(out, "or({})", anonymous_list(ts, d)),
        Step::Filter(t) => write!(out, "filter({})", anonymous(t, d)),
        Step::Dedup => write!(out, "dedup()"),
        Step::SimplePath => write!(out, "simplePath()"),
        Step::CyclicPath => write!(out, "cyclicPath()"),
        Step::Order(bys) => {
            let _ = write!(out, "order()");
            for (b, o) in bys {
                let dir = match o {
                    Order::Asc => d.order.0,
                    Order::Desc => d.order.1,
                };
                let _ = match b {
                    By::Identity => write!(out, ".by({dir})"),
                    other => {
                        let inner = by(other, d);
                        write!(out, ".{}, {dir})", &inner[..inner.len() - 1])
                    }
                };
            }
            Ok(())
        }
        Step::Range(lo, hi) => write!(out, "range({lo}, {hi})"),
        Step::Limit(n) => write!(out, "limit({n})"),
        Step::Skip(n) => write!(out, "skip({n})"),
        Step::Tail(n) => write!(out, "tail({n})"),
        Step::Count => write!(out, "count()"),
        Step::Sum => write!(out, "sum()"),
        Step::Min => write!(out, "min()"),
        Step::Max => write!(out, "max()"),
        Step::Mean => write!(out, "mean()"),
        Step::Values(ks) => write!(out, "values({})", strings(ks, d)),
        Step::ValueMap(ks) => write!(out, "valueMap({})", strings(ks, d)),
        Step::ElementMap(ks) => write!(out, "elementMap({})", strings(ks, d)),
        Step::Id => write!(out, "id()"),
        Step::Properties(ks) => write!(out, "properties({})", strings(ks, d)),
        Step::Label => write!(out, "label()"),
        Step::Constant(v) => write!(out, "constant({})", literal(v, d)),
        Step::Union(ts) => write!(out, "union({})", anonymous_list(ts, d)),
        Step::Coalesce(ts) => write!(out, "coalesce({})", anonymous_list(ts, d)),
        Step::Optional(t) => write!(out, "optional({})", anonymous(t, d)),
        Step::Choose(c, a, b) => {
            write!(out, "choose({}, {}, {})", anonymous(c, d), anonymous(a, d), anonymous(b, d))
        }
        Step::Repeat { body, times, emit, until } => {
            let _ = write!(out, "repeat({})", anonymous(body, d));
            if *emit {
                let _ = write!(out, ".emit()");
            }
            match until {
                None => write!(out, ".times({times})"),
                Some(c) => {
                    let a = d.anonymous;
                    write!(out, ".until({a}or({}, {a}loops().is({times})))", anonymous(c, d))
                }
            }
        }
        Step::Path => write!(out, "path()"),
        Step::GroupCount(b) => {
            let _ = write!(out, "groupCount()");
            if *b != By::Identity {
                let _ = write!(out, ".{}", by(b, d));
            }
            Ok(())
        }
        Step::Group(b, values) => write!(out, "group().{}.by({})", by(b, d), anonymous(values, d)),
        Step::Fold => write!(out, "fold()"),
        Step::Unfold => write!(out, "unfold()"),
        Step::As(name) => write!(out, "as({})", string(name, d)),
        Step::Select(names) => write!(out, "select({})", strings(names, d)),
        Step::Project(items) => {
            let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
            let _ = write!(out, "project({})", strings(&names, d));
            for (_, b) in items {
                let _ = write!(out, ".{}", by(b, d));
            }
            Ok(())
        }
    };
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::GremlinDialect;
    use crate::ast::{Direction, Source, Step, Traversal};

    fn both(t: &Traversal) -> (String, String) {
        let g = GremlinDialect::builtin("graphersal").expect("built in");
        (render(t, GremlinDialect::tinkerpop()), render(t, g))
    }

    #[test]
    fn ids_properties_and_a_bounded_until_render_in_each_dialect() {
        let t = Traversal {
            source: Source::VIds(vec![3, 5]),
            steps: vec![
                Step::HasId(vec![5]),
                Step::Repeat {
                    body: vec![Step::Move(Direction::Out, vec!["T0".into()])],
                    times: 2,
                    emit: true,
                    until: Some(vec![Step::HasKey("k1".into())]),
                },
                Step::Properties(vec!["k2".into()]),
                Step::Count,
            ],
        };
        let (tinkerpop, graphersal) = both(&t);
        assert_eq!(
            tinkerpop,
            "g.V(3, 5).hasId(5).repeat(__.out('T0')).emit().until(__.or(__.has('k1'), __.loops().is(2)))\
             .properties('k2').count()"
        );
        assert_eq!(
            graphersal,
            "g.V(3, 5).hasId(5).repeat(__.out(\"T0\")).emit().until(__.or(__.has(\"k1\"), __.loops().is(2)))\
             .properties(\"k2\").count().toList()"
        );
        let names: Vec<&str> = t.step_names().into_iter().collect();
        for n in ["V(id)", "hasId", "until", "properties"] {
            assert!(names.contains(&n), "{n} is counted for coverage: {names:?}");
        }
    }
}
