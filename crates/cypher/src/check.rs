//! An independent checker of generated queries: every variable referenced is
//! in scope, every operand has the type its operator or function needs, and
//! every property read names a key the variable's labels or types carry. It
//! re-derives types from the AST alone, so it can catch what the generator's
//! own bookkeeping gets wrong (and later vet mutated queries).

use std::collections::BTreeMap;

use graphlancer_model::{Schema, Value};

use crate::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, RemoveItem, SetItem, SingleQuery,
};
use crate::types::Ty;

/// What the checker knows of a variable.
#[derive(Debug, Clone, PartialEq)]
struct Binding {
    ty: Option<Ty>,
    tags: Vec<String>,
}

type Env = BTreeMap<String, Binding>;

/// Checks a whole query against the schema it was generated for.
pub fn check(query: &Query, schema: &Schema) -> Result<(), String> {
    result_types(query, schema).map(|_| ())
}

/// What the checker lets through beyond the rules every preset keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    /// Entities stay in scope after a DELETE, as openCypher's grammar allows
    /// (the crash preset): a later clause may read, set or delete again what
    /// some row deleted, which engines answer each their own way.
    pub entities_after_delete: bool,
}

/// [`check`] under `rules`.
pub fn check_with(query: &Query, schema: &Schema, rules: Rules) -> Result<(), String> {
    result_types_with(query, schema, rules).map(|_| ())
}

/// Checks the query and returns the types of its result columns (`None`
/// where a column is always null).
pub fn result_types(query: &Query, schema: &Schema) -> Result<Vec<Option<Ty>>, String> {
    result_types_with(query, schema, Rules::default())
}

/// [`result_types`] under `rules`.
pub fn result_types_with(query: &Query, schema: &Schema, rules: Rules) -> Result<Vec<Option<Ty>>, String> {
    let mut columns: Option<Vec<String>> = None;
    let mut types = Vec::new();
    for part in &query.parts {
        let (cols, env) = check_single(part, schema, Env::new(), rules)?;
        if types.is_empty() {
            types = cols.iter().map(|c| env.get(c).and_then(|b| b.ty.clone())).collect();
        }
        match &columns {
            None => columns = Some(cols),
            Some(c) if *c != cols => return Err(format!("UNION parts return {c:?} and {cols:?}")),
            Some(_) => {}
        }
    }
    Ok(types)
}

/// The variables in scope after `clauses` (a query's first clauses, not
/// necessarily ending in RETURN), by name; an error where they do not check.
pub fn scope(clauses: &[Clause], schema: &Schema) -> Result<Vec<String>, String> {
    let (_, env) = check_single(&SingleQuery { clauses: clauses.to_vec() }, schema, Env::new(), Rules::default())?;
    Ok(env.into_keys().collect())
}

fn check_single(q: &SingleQuery, schema: &Schema, mut env: Env, rules: Rules) -> Result<(Vec<String>, Env), String> {
    let mut columns = Vec::new();
    for (i, clause) in q.clauses.iter().enumerate() {
        let last = i + 1 == q.clauses.len();
        // Cypher's grammar: reading after writing needs a WITH between.
        let reads = matches!(
            clause,
            Clause::Match { .. } | Clause::Unwind { .. } | Clause::Call { .. } | Clause::Procedure { .. }
        );
        let wrote = i > 0 && q.clauses[i - 1].is_write();
        if reads && wrote {
            return Err("a read after a write needs a WITH between them".into());
        }
        match clause {
            Clause::Match { patterns, guard, predicate, .. } => {
                check_match(patterns, guard.as_ref(), schema, &mut env)?;
                check_match(&[], predicate.as_ref(), schema, &mut env)?;
            }
            Clause::Procedure { name, alias, predicate } => {
                if crate::ast::procedure_column(name).is_none() {
                    return Err(format!("unknown procedure {name}"));
                }
                env.insert(alias.clone(), Binding { ty: Some(Ty::String), tags: Vec::new() });
                if let Some(p) = predicate {
                    expect(p, &Ty::Bool, schema, &env)?;
                }
            }
            Clause::Unwind { list, alias } => {
                let t = infer(list, schema, &env)?;
                let elem = match t {
                    Some(Ty::List(e)) => Some(*e),
                    None => None,
                    Some(other) => return Err(format!("UNWIND of a {other:?}")),
                };
                env.insert(alias.clone(), Binding { ty: elem, tags: Vec::new() });
            }
            Clause::With(p) | Clause::Return(p) => {
                let is_return = matches!(clause, Clause::Return(_));
                if is_return && !last {
                    return Err("RETURN before the end".into());
                }
                env = projection(p, schema, &env)?;
                columns = p.items.iter().map(|(_, a)| a.clone()).collect();
            }
            Clause::Create { patterns } => {
                for p in patterns {
                    bind_pattern(p, schema, &mut env, true)?;
                }
            }
            Clause::Merge { pattern, on_create, on_match } => {
                bind_pattern(pattern, schema, &mut env, true)?;
                for item in on_create.iter().chain(on_match) {
                    set_item(item, schema, &env)?;
                }
            }
            Clause::Set { items } => {
                for item in items {
                    set_item(item, schema, &env)?;
                }
            }
            Clause::Remove { items } => {
                for item in items {
                    let (RemoveItem::Property(v, _) | RemoveItem::Label(v, _)) = item;
                    entity(v, &env)?;
                }
            }
            Clause::Delete { variables, .. } => {
                for v in variables {
                    entity(v, &env)?;
                }
                // What was deleted, and what may point at it, is blocked.
                if !rules.entities_after_delete {
                    env.retain(|_, b| !matches!(b.ty, Some(Ty::Node | Ty::Rel | Ty::Path | Ty::Map)));
                }
            }
            Clause::Foreach { variable, list, body } => {
                let elem = match infer(list, schema, &env)? {
                    Some(Ty::List(e)) => Some(*e),
                    other => return Err(format!("FOREACH over {other:?}")),
                };
                let mut inner = env.clone();
                inner.insert(variable.clone(), Binding { ty: elem, tags: Vec::new() });
                // Every updating clause of the body, not only SET.
                check_single(&SingleQuery { clauses: body.clone() }, schema, inner, rules)?;
            }
            Clause::Call { imports, body, union_all } => {
                let mut inner = Env::new();
                for v in imports {
                    let b = env.get(v).ok_or_else(|| format!("CALL imports unknown '{v}'"))?;
                    inner.insert(v.clone(), b.clone());
                }
                let inner_env = check_subquery(body, schema, inner.clone())?;
                for part in union_all {
                    let other = check_subquery(part, schema, inner.clone())?;
                    if other.keys().ne(inner_env.keys()) {
                        return Err("CALL's UNION ALL parts return different columns".into());
                    }
                }
                for (k, b) in inner_env {
                    if env.contains_key(&k) && !imports.contains(&k) {
                        return Err(format!("CALL returns '{k}', which is already bound"));
                    }
                    env.insert(k, b);
                }
            }
        }
    }
    Ok((columns, env))
}

fn check_subquery(q: &SingleQuery, schema: &Schema, env: Env) -> Result<Env, String> {
    let mut out = env.clone();
    let mut env = env;
    for c in &q.clauses {
        match c {
            Clause::Match { patterns, guard, predicate, .. } => {
                check_match(patterns, guard.as_ref(), schema, &mut env)?;
                check_match(&[], predicate.as_ref(), schema, &mut env)?;
            }
            Clause::Return(p) => out = projection(p, schema, &env)?,
            other => return Err(format!("unexpected clause in CALL: {other:?}")),
        }
    }
    Ok(out)
}

fn check_match(
    patterns: &[PathPattern],
    predicate: Option<&Expr>,
    schema: &Schema,
    env: &mut Env,
) -> Result<(), String> {
    for p in patterns {
        bind_pattern(p, schema, env, false)?;
    }
    match predicate {
        Some(p) => expect(p, &Ty::Bool, schema, env),
        None => Ok(()),
    }
}

fn projection(p: &Projection, schema: &Schema, env: &Env) -> Result<Env, String> {
    let mut next = if p.star { env.clone() } else { Env::new() };
    for (e, alias) in &p.items {
        let ty = infer(e, schema, env)?;
        let tags = match e {
            Expr::Variable(v) => env.get(v).map(|b| b.tags.clone()).unwrap_or_default(),
            _ => Vec::new(),
        };
        if next.insert(alias.clone(), Binding { ty, tags }).is_some() {
            return Err(format!("alias '{alias}' projected twice"));
        }
    }
    for (e, _) in &p.order_by {
        infer(e, schema, &next)?;
    }
    if let Some(w) = &p.predicate {
        expect(w, &Ty::Bool, schema, &next)?;
    }
    Ok(next)
}

fn entity(v: &str, env: &Env) -> Result<(), String> {
    match env.get(v).map(|b| &b.ty) {
        Some(Some(Ty::Node | Ty::Rel)) => Ok(()),
        Some(other) => Err(format!("'{v}' is {other:?}, not an entity")),
        None => Err(format!("'{v}' is not in scope")),
    }
}

fn set_item(item: &SetItem, schema: &Schema, env: &Env) -> Result<(), String> {
    match item {
        SetItem::Property(v, k, e) => {
            entity(v, env)?;
            let want = Ty::of_property(schema.key_type(k).ok_or_else(|| format!("unknown key {k}"))?);
            expect(e, &want, schema, env)
        }
        SetItem::MergeMap(v, entries) | SetItem::ReplaceMap(v, entries) => {
            entity(v, env)?;
            for (k, e) in entries {
                let want = Ty::of_property(schema.key_type(k).ok_or_else(|| format!("unknown key {k}"))?);
                expect(e, &want, schema, env)?;
            }
            Ok(())
        }
        SetItem::Label(v, l) => {
            entity(v, env)?;
            schema.label(l).map(|_| ()).ok_or_else(|| format!("unknown label {l}"))
        }
    }
}

fn bind_pattern(p: &PathPattern, schema: &Schema, env: &mut Env, creating: bool) -> Result<(), String> {
    let bind = |env: &mut Env, name: &Option<String>, ty: Ty, tags: &[String], props: &[(String, Expr)]| {
        if let Some(n) = name {
            match env.get(n) {
                Some(b) if b.ty.as_ref().is_some_and(|t| *t != ty) => {
                    return Err(format!("'{n}' rebound as {ty:?}"));
                }
                // Never generated; a reduction that replaced an entity with
                // `null` would slip from its bug to how engines match a null.
                Some(b) if b.ty.is_none() => return Err(format!("'{n}' is always null, bound by a pattern")),
                Some(_) if creating && (!tags.is_empty() || !props.is_empty()) => {
                    return Err(format!("CREATE redeclares bound '{n}'"));
                }
                Some(_) => {}
                None => {
                    env.insert(n.clone(), Binding { ty: Some(ty), tags: tags.to_vec() });
                }
            }
        }
        for (k, e) in props {
            let want = Ty::of_property(schema.key_type(k).ok_or_else(|| format!("unknown key {k}"))?);
            expect(e, &want, schema, env)?;
        }
        Ok(())
    };
    bind(env, &p.start.variable, Ty::Node, &p.start.labels, &p.start.properties)?;
    for (r, n) in &p.hops {
        for t in &r.types {
            schema.rel_type(t).ok_or_else(|| format!("unknown type {t}"))?;
        }
        if creating && (r.types.len() != 1 || r.length.is_some() || r.direction == crate::ast::Direction::Both) {
            return Err("CREATE needs one type, one direction, fixed length".into());
        }
        if r.length.is_some() && r.variable.is_some() {
            return Err("variable-length relationships are left unnamed".into());
        }
        bind(env, &r.variable, Ty::Rel, &r.types, &r.properties)?;
        bind(env, &n.variable, Ty::Node, &n.labels, &n.properties)?;
    }
    if let Some(name) = &p.name {
        env.insert(name.clone(), Binding { ty: Some(Ty::Path), tags: Vec::new() });
    }
    Ok(())
}

fn expect(e: &Expr, want: &Ty, schema: &Schema, env: &Env) -> Result<(), String> {
    match infer(e, schema, env)? {
        None => Ok(()),
        Some(t) if &t == want => Ok(()),
        Some(t) => Err(format!("expected {want:?}, found {t:?} in {e:?}")),
    }
}

fn numeric(t: &Option<Ty>) -> bool {
    matches!(t, None | Some(Ty::Int | Ty::Float))
}

/// The one shape of `shortestPath()` every engine here that has it takes:
/// two bound nodes without labels or properties (FalkorDB: "Node filters may
/// not be introduced"), one directed hop of variable length starting at 0 or
/// 1, no relationship variable or properties.
fn shortest_path_shape(p: &PathPattern, env: &Env) -> Result<(), String> {
    let bound_node = |n: &NodePattern| match &n.variable {
        Some(v) if n.labels.is_empty() && n.properties.is_empty() => {
            matches!(env.get(v).map(|b| &b.ty), Some(Some(Ty::Node)))
        }
        _ => false,
    };
    let [(r, end)] = p.hops.as_slice() else { return Err("shortestPath() takes one hop".into()) };
    let fits = p.name.is_none()
        && bound_node(&p.start)
        && bound_node(end)
        && r.variable.is_none()
        && r.properties.is_empty()
        && r.direction != Direction::Both
        && r.length.is_some_and(|(min, max)| min <= 1 && min <= max);
    if fits { Ok(()) } else { Err(format!("shortestPath() of an unsupported shape: {p:?}")) }
}

/// The type of an expression; `None` for null, whose type is open.
fn infer(e: &Expr, schema: &Schema, env: &Env) -> Result<Option<Ty>, String> {
    let infer_in = |e: &Expr, env: &Env| infer(e, schema, env);
    Ok(match e {
        Expr::Literal(v) => literal_type(v)?,
        Expr::Variable(v) => env.get(v).ok_or_else(|| format!("'{v}' is not in scope"))?.ty.clone(),
        Expr::Property(base, key) => {
            let Expr::Variable(v) = base.as_ref() else { return Err("property of a non-variable".into()) };
            let b = env.get(v).ok_or_else(|| format!("'{v}' is not in scope"))?;
            let owners: Vec<&Vec<String>> = match b.ty {
                Some(Ty::Node) if b.tags.is_empty() => schema.labels.iter().map(|l| &l.keys).collect(),
                Some(Ty::Node) => b.tags.iter().filter_map(|l| schema.label(l)).map(|l| &l.keys).collect(),
                Some(Ty::Rel) if b.tags.is_empty() => schema.rel_types.iter().map(|t| &t.keys).collect(),
                Some(Ty::Rel) => b.tags.iter().filter_map(|t| schema.rel_type(t)).map(|t| &t.keys).collect(),
                // `null.k` is null; the key still has its type.
                None => return Ok(schema.key_type(key).map(Ty::of_property)),
                ref other => return Err(format!("property {key} of {v}: {other:?}")),
            };
            if !owners.iter().any(|keys| keys.contains(key)) {
                return Err(format!("{v} ({:?}) has no key {key}", b.tags));
            }
            Some(Ty::of_property(schema.key_type(key).ok_or_else(|| format!("unknown key {key}"))?))
        }
        Expr::Binary(op, a, b) => {
            let (ta, tb) = (infer_in(a, env)?, infer_in(b, env)?);
            match op {
                BinOp::And | BinOp::Or | BinOp::Xor => {
                    expect(a, &Ty::Bool, schema, env)?;
                    expect(b, &Ty::Bool, schema, env)?;
                    Some(Ty::Bool)
                }
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    if let (Some(x), Some(y)) = (&ta, &tb)
                        && x != y
                    {
                        return Err(format!("comparing {x:?} with {y:?}"));
                    }
                    Some(Ty::Bool)
                }
                BinOp::StartsWith | BinOp::EndsWith | BinOp::Contains | BinOp::Regex => {
                    expect(a, &Ty::String, schema, env)?;
                    expect(b, &Ty::String, schema, env)?;
                    Some(Ty::Bool)
                }
                BinOp::In => match (&ta, &tb) {
                    (Some(x), Some(Ty::List(y))) if x != y.as_ref() => return Err(format!("{x:?} IN list of {y:?}")),
                    (_, Some(Ty::List(_)) | None) => Some(Ty::Bool),
                    (_, other) => return Err(format!("IN {other:?}")),
                },
                BinOp::Add if matches!(ta, Some(Ty::String)) || matches!(ta, Some(Ty::List(_))) => {
                    if ta != tb && tb.is_some() {
                        return Err(format!("{ta:?} + {tb:?}"));
                    }
                    ta
                }
                BinOp::Pow => {
                    if !numeric(&ta) || !numeric(&tb) {
                        return Err(format!("{ta:?} ^ {tb:?}"));
                    }
                    Some(Ty::Float)
                }
                _ => {
                    if !numeric(&ta) || !numeric(&tb) {
                        return Err(format!("arithmetic on {ta:?} and {tb:?}"));
                    }
                    if ta == Some(Ty::Float) || tb == Some(Ty::Float) { Some(Ty::Float) } else { ta.or(tb) }
                }
            }
        }
        Expr::Not(a) => {
            expect(a, &Ty::Bool, schema, env)?;
            Some(Ty::Bool)
        }
        Expr::Negate(a) => {
            let t = infer_in(a, env)?;
            if !numeric(&t) {
                return Err(format!("negating {t:?}"));
            }
            t
        }
        Expr::IsNull { expr, .. } => {
            infer_in(expr, env)?;
            Some(Ty::Bool)
        }
        Expr::Function(name, args) => function(name, args, schema, env)?,
        Expr::Aggregate { name, arg, percentile, .. } => {
            let t = match arg {
                Some(a) => infer_in(a, env)?,
                None => None,
            };
            let percentiles = matches!(name.as_str(), "percentileDisc" | "percentileCont");
            if percentiles != percentile.is_some() || percentile.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
                return Err(format!("{name} with the percentile {percentile:?}"));
            }
            match name.as_str() {
                "count" => Some(Ty::Int),
                "sum" | "avg" if !numeric(&t) => return Err(format!("{name} of {t:?}")),
                "sum" => t,
                "avg" => Some(Ty::Float),
                "min" | "max" => t,
                "collect" => t.map(Ty::list),
                "stDev" | "stDevP" if !numeric(&t) => return Err(format!("{name} of {t:?}")),
                "stDev" | "stDevP" => Some(Ty::Float),
                "percentileDisc" | "percentileCont" if !numeric(&t) => return Err(format!("{name} of {t:?}")),
                "percentileDisc" => t,
                "percentileCont" => Some(Ty::Float),
                other => return Err(format!("unknown aggregate {other}")),
            }
        }
        Expr::Case { subject, branches, otherwise } => {
            let subject_ty = match subject {
                Some(s) => infer_in(s, env)?,
                None => Some(Ty::Bool),
            };
            let mut result = None;
            for (w, t) in branches {
                let wt = infer_in(w, env)?;
                if wt.is_some() && subject_ty.is_some() && wt != subject_ty {
                    return Err(format!("WHEN {wt:?} against {subject_ty:?}"));
                }
                result = result.or(infer_in(t, env)?);
            }
            if let Some(o) = otherwise {
                let ot = infer_in(o, env)?;
                if ot.is_some() && result.is_some() && ot != result {
                    return Err(format!("CASE branches {result:?} and {ot:?}"));
                }
                result = result.or(ot);
            }
            result
        }
        Expr::List(items) => {
            let mut elem = None;
            for i in items {
                let t = infer_in(i, env)?;
                if t.is_some() && elem.is_some() && t != elem {
                    return Err(format!("mixed list of {elem:?} and {t:?}"));
                }
                elem = elem.or(t);
            }
            // `[]` is a list of anything: typed as unknown, as null is.
            if items.is_empty() { None } else { Some(Ty::List(Box::new(elem.unwrap_or(Ty::Int)))) }
        }
        Expr::Index(l, i) => {
            expect(i, &Ty::Int, schema, env)?;
            match infer_in(l, env)? {
                Some(Ty::List(e)) => Some(*e),
                other => return Err(format!("indexing {other:?}")),
            }
        }
        Expr::Slice(l, a, b) => {
            for x in a.iter().chain(b.iter()) {
                expect(x, &Ty::Int, schema, env)?;
            }
            infer_in(l, env)?
        }
        Expr::ListComprehension { variable, list, filter, map } => {
            let elem = match infer_in(list, env)? {
                Some(Ty::List(e)) => Some(*e),
                // Over null (or `[]`): elements of unknown type.
                None => None,
                other => return Err(format!("comprehension over {other:?}")),
            };
            let mut inner = env.clone();
            inner.insert(variable.clone(), Binding { ty: elem.clone(), tags: Vec::new() });
            if let Some(f) = filter {
                expect(f, &Ty::Bool, schema, &inner)?;
            }
            match map {
                Some(m) => infer(m, schema, &inner)?.map(Ty::list),
                None => elem.map(Ty::list),
            }
        }
        Expr::PatternComprehension { pattern, filter, map } => {
            let mut inner = env.clone();
            bind_pattern(pattern, schema, &mut inner, false)?;
            if let Some(f) = filter {
                expect(f, &Ty::Bool, schema, &inner)?;
            }
            infer(map, schema, &inner)?.map(Ty::list)
        }
        Expr::Quantified { variable, list, predicate, .. } => {
            let elem = match infer_in(list, env)? {
                Some(Ty::List(e)) => Some(*e),
                other => return Err(format!("quantifier over {other:?}")),
            };
            let mut inner = env.clone();
            inner.insert(variable.clone(), Binding { ty: elem, tags: Vec::new() });
            expect(predicate, &Ty::Bool, schema, &inner)?;
            Some(Ty::Bool)
        }
        Expr::Reduce { accumulator, init, variable, list, step } => {
            let acc = infer_in(init, env)?;
            let elem = match infer_in(list, env)? {
                Some(Ty::List(e)) => Some(*e),
                other => return Err(format!("reduce over {other:?}")),
            };
            let mut inner = env.clone();
            inner.insert(accumulator.clone(), Binding { ty: acc.clone(), tags: Vec::new() });
            inner.insert(variable.clone(), Binding { ty: elem, tags: Vec::new() });
            infer(step, schema, &inner)?;
            acc
        }
        Expr::Map(entries) => {
            for (_, e) in entries {
                infer_in(e, env)?;
            }
            Some(Ty::Map)
        }
        Expr::MapProjection(v, keys) => {
            for k in keys {
                infer_in(&Expr::Property(Box::new(Expr::Variable(v.clone())), k.clone()), env)?;
            }
            Some(Ty::Map)
        }
        Expr::MapProjectionWith { base, keys, entries } => {
            if !matches!(env.get(base).map(|b| &b.ty), Some(Some(Ty::Node | Ty::Rel | Ty::Map))) {
                return Err(format!("a map projection of '{base}', not a node, relationship or map in scope"));
            }
            for k in keys {
                infer_in(&Expr::Property(Box::new(Expr::Variable(base.clone())), k.clone()), env)?;
            }
            for (_, e) in entries {
                infer_in(e, env)?;
            }
            Some(Ty::Map)
        }
        Expr::ExistsSubquery(p, filter) => {
            let mut inner = env.clone();
            bind_pattern(p, schema, &mut inner, false)?;
            if let Some(f) = filter {
                expect(f, &Ty::Bool, schema, &inner)?;
            }
            Some(Ty::Bool)
        }
        Expr::PatternPredicate(p) => {
            // Neo4j 5: a pattern expression may not introduce variables.
            if let Some(v) = p.variables().find(|v| !env.contains_key(*v)) {
                return Err(format!("a pattern predicate introduces '{v}'"));
            }
            let mut inner = env.clone();
            bind_pattern(p, schema, &mut inner, false)?;
            Some(Ty::Bool)
        }
        Expr::ShortestPath(p) => {
            shortest_path_shape(p, env)?;
            let mut inner = env.clone();
            bind_pattern(p, schema, &mut inner, false)?;
            Some(Ty::Path)
        }
        Expr::HasLabels(v, labels) => {
            match env.get(v).map(|b| &b.ty) {
                Some(Some(Ty::Node)) => {}
                _ => return Err(format!("'{v}' is not a node in scope")),
            }
            for l in labels {
                if !schema.labels.iter().any(|d| &d.name == l) {
                    return Err(format!("unknown label {l}"));
                }
            }
            Some(Ty::Bool)
        }
    })
}

fn literal_type(v: &Value) -> Result<Option<Ty>, String> {
    Ok(match v {
        Value::Null => None,
        Value::Bool(_) => Some(Ty::Bool),
        Value::Int(_) => Some(Ty::Int),
        Value::Float(_) => Some(Ty::Float),
        Value::String(_) => Some(Ty::String),
        Value::List(items) => {
            let first = items.iter().find_map(|i| literal_type(i).ok().flatten());
            Some(Ty::List(Box::new(first.unwrap_or(Ty::Int))))
        }
        Value::Map(_) => Some(Ty::Map),
        other => return Err(format!("entity literal {other:?}")),
    })
}

/// Argument and result types of the functions the generator uses.
/// A call typed by the function table the generator writes from.
fn function(name: &str, args: &[Expr], schema: &Schema, env: &Env) -> Result<Option<Ty>, String> {
    let mut error = format!("unknown function {name}");
    let mut typed: Vec<Option<Ty>> = Vec::new();
    for f in crate::functions::overloads(name) {
        match overload(f, args, schema, env) {
            Ok(t) => typed.push(t),
            Err(e) => error = e,
        }
    }
    match typed.as_slice() {
        [] => Err(error),
        // Overloads that all fit (arguments of unknown type) and disagree: unknown.
        [first, rest @ ..] if rest.iter().any(|t| t != first) => Ok(None),
        [first, ..] => Ok(first.clone()),
    }
}

/// A call typed by one overload of its function.
fn overload(f: &crate::functions::Function, args: &[Expr], schema: &Schema, env: &Env) -> Result<Option<Ty>, String> {
    use crate::functions::Kind;
    let name = f.name;
    if !f.variadic() && args.len() != f.params.len() {
        return Err(format!("{name} takes {} arguments", f.params.len()));
    }
    let mut types = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let kind = f.params[i.min(f.params.len().saturating_sub(1))];
        let t = infer(a, schema, env)?;
        if !kind.accepts(&t) {
            return Err(format!("{name} of {t:?}"));
        }
        types.push(t);
    }
    let first = types.first().cloned().flatten();
    Ok(match f.result {
        Kind::Same => first,
        Kind::Element => match first {
            Some(Ty::List(e)) => Some(*e),
            other => return Err(format!("{name} of {other:?}")),
        },
        Kind::Any => {
            // The type the arguments share (coalesce).
            let mut shared = None;
            for t in types.into_iter().flatten() {
                if shared.as_ref().is_some_and(|s| *s != t) {
                    return Err(format!("{name} of {shared:?} and {t:?}"));
                }
                shared = Some(t);
            }
            shared
        }
        k => k.ty(),
    })
}

#[cfg(test)]
mod tests;
