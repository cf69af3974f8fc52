//! A type check of traversals, independent of the generator: what each
//! step takes and gives, and the order-dependence rules of comparison
//! (paging and `fold()` only after a total `order()`). The reducer keeps
//! only candidates that pass, so a reduced traversal is one the generator
//! could have written.

use graphlancer_model::PropertyType;

use crate::ast::{By, Source, Step, Traversal};
use crate::generate::Ty;

/// The type of `t`'s traversers at its end, or why it is not valid.
/// `key_type` gives a property key's type.
pub fn check(t: &Traversal, key_type: &dyn Fn(&str) -> Option<PropertyType>) -> Result<Ty, String> {
    let start = match &t.source {
        Source::V | Source::VIds(_) => Ty::Vertex,
        Source::E => Ty::Edge,
        Source::Inject(vs) => match vs.first() {
            Some(graphlancer_model::Value::Int(_)) => Ty::Value(PropertyType::Int),
            Some(graphlancer_model::Value::Float(_)) => Ty::Value(PropertyType::Float),
            Some(graphlancer_model::Value::Bool(_)) => Ty::Value(PropertyType::Bool),
            _ => Ty::Value(PropertyType::String),
        },
    };
    steps(start, &t.steps, key_type, true)
}

/// Whether `s` keeps the order of the traversers it passes: filters,
/// paging and labels do (as the generator assumes); everything else makes a
/// new stream.
pub fn keeps_order(s: &Step) -> bool {
    matches!(
        s,
        Step::Where(_)
            | Step::Not(_)
            | Step::And(_)
            | Step::Or(_)
            | Step::Filter(_)
            | Step::SimplePath
            | Step::CyclicPath
            | Step::Is(_)
            | Step::HasKey(_)
            | Step::Has(..)
            | Step::HasLabel(_)
            | Step::HasNot(_)
            | Step::HasLabelKey(..)
            | Step::HasId(_)
            | Step::Dedup
            | Step::Range(..)
            | Step::Limit(_)
            | Step::Skip(_)
            | Step::Tail(_)
            | Step::As(_)
    )
}

fn steps(mut ty: Ty, list: &[Step], key_type: &dyn Fn(&str) -> Option<PropertyType>, top: bool) -> Result<Ty, String> {
    let mut previous: Option<&Step> = None;
    // What a `fold()` folded, so `unfold()` gives it back.
    let mut folded = None;
    // Whether a total order() holds: filters and paging keep it.
    let mut ordered = false;
    // Names bound by as(): select() of another is not a traversal we generate.
    let mut bound: Vec<&str> = Vec::new();
    for s in list {
        match s {
            Step::As(name) => bound.push(name),
            Step::Select(names) if names.iter().any(|n| !bound.contains(&n.as_str())) => {
                return Err(format!("select() of a name no as() binds: {names:?}"));
            }
            _ => {}
        }
        let before = ty;
        ty = step(ty, s, previous, ordered, key_type, top)?;
        ordered = matches!(s, Step::Order(_)) || (ordered && keeps_order(s));
        match s {
            Step::Fold => folded = Some(before),
            Step::Unfold => ty = folded.take().ok_or("unfold() of a list whose contents are unknown")?,
            _ => {}
        }
        previous = Some(s);
    }
    Ok(ty)
}

fn element(ty: Ty) -> bool {
    matches!(ty, Ty::Vertex | Ty::Edge)
}

fn step(
    ty: Ty,
    s: &Step,
    previous: Option<&Step>,
    after_order: bool,
    key_type: &dyn Fn(&str) -> Option<PropertyType>,
    top: bool,
) -> Result<Ty, String> {
    let bad = || Err(format!("{}() does not take {ty:?}", s.name()));
    // One traverser: a reduction, or (in an argument, per element) one key's value.
    let single = matches!(previous, Some(Step::Count | Step::Sum | Step::Min | Step::Max | Step::Mean))
        || (!top && matches!(previous, Some(Step::Values(ks)) if ks.len() == 1));
    let vertex_branch = |t: &[Step]| -> Result<(), String> {
        match steps(Ty::Vertex, t, key_type, false)? {
            Ty::Vertex => Ok(()),
            other => Err(format!("a branch gives {other:?}, not vertices")),
        }
    };
    let condition = |t: &[Step]| steps(ty, t, key_type, false).map(|_| ty);
    Ok(match s {
        Step::Move(..) | Step::MoveE(..) if ty != Ty::Vertex => return bad(),
        Step::Move(..) => Ty::Vertex,
        Step::MoveE(..) => Ty::Edge,
        Step::EdgeV(_) | Step::OtherV if ty != Ty::Edge => return bad(),
        Step::EdgeV(_) | Step::OtherV => Ty::Vertex,
        Step::HasKey(_) | Step::Has(..) | Step::HasLabel(_) | Step::HasNot(_) if !element(ty) => return bad(),
        Step::HasLabelKey(..) | Step::HasId(_) if ty != Ty::Vertex => return bad(),
        Step::HasId(ids) if ids.is_empty() => return Err("hasId() of no id".into()),
        Step::HasId(_) => ty,
        Step::HasKey(_) | Step::Has(..) | Step::HasLabel(_) | Step::HasNot(_) | Step::HasLabelKey(..) => ty,
        Step::Is(_) if element(ty) || matches!(ty, Ty::Map | Ty::Path | Ty::List | Ty::Property) => return bad(),
        Step::Is(_) => ty,
        Step::Where(t) | Step::Not(t) | Step::Filter(t) => condition(t)?,
        Step::And(ts) | Step::Or(ts) => {
            for t in ts {
                condition(t)?;
            }
            ty
        }
        Step::Dedup => ty,
        Step::SimplePath | Step::CyclicPath if ty != Ty::Vertex => return bad(),
        Step::SimplePath | Step::CyclicPath => ty,
        Step::Order(bys) => {
            for (b, _) in bys {
                match b {
                    By::Identity if element(ty) => return Err("order() of elements needs a key".into()),
                    By::Key(_) if !element(ty) => return bad(),
                    By::Traversal(_) | By::Label => return Err("order().by() takes a key".into()),
                    _ => {}
                }
            }
            if !top {
                return Err("order() inside a traversal argument".into());
            }
            ty
        }
        Step::Range(..) | Step::Limit(_) | Step::Skip(_) | Step::Tail(_) if !after_order => {
            return Err(format!("{}() without a total order() before it", s.name()));
        }
        Step::Range(..) | Step::Limit(_) | Step::Skip(_) | Step::Tail(_) => ty,
        Step::Count => Ty::Number,
        Step::Sum | Step::Mean => match ty {
            Ty::Value(PropertyType::Int | PropertyType::Float) | Ty::Number => Ty::Number,
            _ => return bad(),
        },
        Step::Min | Step::Max => match ty {
            Ty::Value(PropertyType::Int | PropertyType::Float | PropertyType::String) | Ty::Number => Ty::Number,
            _ => return bad(),
        },
        Step::Values(ks) if element(ty) => match ks.as_slice() {
            [k] => Ty::Value(key_type(k).ok_or_else(|| format!("no key {k}"))?),
            _ => return Err("values() of one key".into()),
        },
        Step::ValueMap(_) | Step::ElementMap(_) | Step::Id | Step::Label if element(ty) => match s {
            Step::Id | Step::Label => Ty::Label,
            _ => Ty::Map,
        },
        Step::Values(_) | Step::ValueMap(_) | Step::ElementMap(_) | Step::Id | Step::Label => return bad(),
        Step::Properties(_) if element(ty) => Ty::Property,
        Step::Properties(_) => return bad(),
        Step::Constant(v) => match v {
            graphlancer_model::Value::Int(_) => Ty::Value(PropertyType::Int),
            graphlancer_model::Value::Float(_) => Ty::Value(PropertyType::Float),
            graphlancer_model::Value::Bool(_) => Ty::Value(PropertyType::Bool),
            _ => Ty::Value(PropertyType::String),
        },
        Step::Union(ts) | Step::Coalesce(ts) if ty == Ty::Vertex && !ts.is_empty() => {
            for t in ts {
                vertex_branch(t)?;
            }
            Ty::Vertex
        }
        Step::Optional(t) if ty == Ty::Vertex => {
            vertex_branch(t)?;
            Ty::Vertex
        }
        Step::Choose(c, a, b) if ty == Ty::Vertex => {
            condition(c)?;
            vertex_branch(a)?;
            vertex_branch(b)?;
            Ty::Vertex
        }
        Step::Repeat { body, times, until, .. } if ty == Ty::Vertex && *times > 0 => {
            vertex_branch(body)?;
            if let Some(c) = until {
                condition(c)?;
            }
            Ty::Vertex
        }
        Step::Union(_) | Step::Coalesce(_) | Step::Optional(_) | Step::Choose(..) | Step::Repeat { .. } => {
            return bad();
        }
        Step::Path if ty == Ty::Vertex || ty == Ty::Edge => Ty::Path,
        Step::Path => return bad(),
        Step::GroupCount(b) | Step::Group(b, _) => {
            match b {
                By::Identity if !matches!(ty, Ty::Value(t) if t != PropertyType::Float) => return bad(),
                By::Label | By::Key(_) if !element(ty) => return bad(),
                By::Traversal(_) => return Err("group by a traversal".into()),
                _ => {}
            }
            if let Step::Group(_, values) = s {
                steps(ty, values, key_type, false)?;
            }
            Ty::Map
        }
        Step::Fold if !(after_order || single) => return Err("fold() of an unordered stream".into()),
        Step::Fold => Ty::List,
        Step::Unfold if ty != Ty::List => return bad(),
        Step::Unfold => Ty::List,
        Step::As(_) => ty,
        Step::Select(names) => match names.len() {
            0 => return bad(),
            1 => Ty::Vertex,
            _ => Ty::Map,
        },
        Step::Project(items) if ty == Ty::Vertex && !items.is_empty() => {
            for (_, b) in items {
                if let By::Traversal(t) = b {
                    steps(ty, t, key_type, false)?;
                }
            }
            Ty::Map
        }
        Step::Project(_) => return bad(),
    })
}

#[cfg(test)]
mod tests {
    use graphlancer_model::{GraphConfig, derive_rng, generate};

    use crate::{GremlinConfig, GremlinDialect, TraversalGenerator, render};

    #[test]
    fn every_generated_traversal_checks_and_renders_the_same_for_a_seed() {
        for graph_seed in 0..3 {
            let config = GraphConfig { second_label_probability: 0.0, ..GraphConfig::default() };
            let graph = generate(graph_seed, &config).expect("valid config");
            let key_type = |k: &str| graph.schema.key_type(k);
            for dialect in [GremlinDialect::tinkerpop(), GremlinDialect::builtin("grafeo").expect("built in")] {
                let config = GremlinConfig::default();
                let generator = TraversalGenerator::new(&graph, dialect, &config);
                for i in 0..700 {
                    let g = generator.generate(&mut derive_rng(7, &[i]));
                    let again = generator.generate(&mut derive_rng(7, &[i]));
                    assert_eq!(g, again, "same seed, same traversal");
                    let text = render(&g.traversal, dialect);
                    assert_eq!(super::check(&g.traversal, &key_type), Ok(g.ty), "{text}");
                    for name in g.traversal.step_names() {
                        assert!(dialect.allows(name), "{name} is not in {}: {text}", dialect.name);
                    }
                }
            }
        }
    }

    #[test]
    fn select_of_an_unbound_name_is_refused() {
        use crate::ast::{Source, Step, Traversal};
        let key_type = |_: &str| None;
        let t = Traversal { source: Source::V, steps: vec![Step::Select(vec!["a0".into()])] };
        assert!(super::check(&t, &key_type).is_err());
        let t = Traversal { source: Source::V, steps: vec![Step::As("a0".into()), Step::Select(vec!["a0".into()])] };
        assert!(super::check(&t, &key_type).is_ok());
    }

    #[test]
    fn paging_without_an_order_is_refused() {
        use crate::ast::{Source, Step, Traversal};
        let t = Traversal { source: Source::V, steps: vec![Step::Values(vec!["k0".into()]), Step::Limit(2)] };
        let key_type = |_: &str| Some(graphlancer_model::PropertyType::Int);
        assert!(super::check(&t, &key_type).is_err());
        let ordered = Traversal {
            source: Source::V,
            steps: vec![Step::Values(vec!["k0".into()]), Step::Order(Vec::new()), Step::Limit(2)],
        };
        assert!(super::check(&ordered, &key_type).is_ok());
    }
}
