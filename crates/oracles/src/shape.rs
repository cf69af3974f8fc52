//! What a query and its columns are made of, in the words signatures and
//! names use: a column's kind (`fn:startNode`, `agg:max`), a query's clause
//! shape. Oracles, naming and the reducer all read them.

use std::collections::BTreeMap;

use graphlancer_cypher::ast::{Clause, Expr, PathPattern, Query};

/// What computes each result column, e.g. `fn:startNode`, `agg:max`,
/// `var:Rel`; names the differing columns in a signature.
pub fn column_kinds(query: &Query, types: &[Option<graphlancer_cypher::types::Ty>]) -> Vec<String> {
    let Some(Clause::Return(p)) = query.parts.first().and_then(|p| p.clauses.last()) else { return Vec::new() };
    p.items.iter().enumerate().map(|(i, (e, _))| expr_kind(e, types.get(i).and_then(Option::as_ref))).collect()
}

/// What computes an expression's value, e.g. `fn:startNode`, `agg:max`,
/// `var:Rel` (a variable's type, when known, is its kind).
pub fn expr_kind(e: &Expr, ty: Option<&graphlancer_cypher::types::Ty>) -> String {
    match e {
        Expr::Variable(_) => match ty {
            Some(t) => format!("var:{t:?}"),
            None => "var:?".into(),
        },
        Expr::Property(..) => "property".into(),
        Expr::Function(name, _) => format!("fn:{name}"),
        Expr::Aggregate { name, .. } => format!("agg:{name}"),
        Expr::Binary(op, ..) => format!("op:{}", op.text()),
        Expr::Literal(_) => "literal".into(),
        Expr::Not(_) => "not".into(),
        Expr::IsNull { .. } => "isnull".into(),
        Expr::Quantified { .. } => "quantified".into(),
        Expr::ExistsSubquery(..) => "existssubquery".into(),
        Expr::PatternPredicate(_) => "patternpredicate".into(),
        Expr::ShortestPath(_) => "shortestpath".into(),
        Expr::HasLabels(..) => "haslabels".into(),
        Expr::Negate(_) => "negate".into(),
        Expr::Case { .. } => "case".into(),
        Expr::List(_) => "list".into(),
        Expr::ListComprehension { .. } => "listcomprehension".into(),
        Expr::PatternComprehension { .. } => "patterncomprehension".into(),
        Expr::Index(..) => "index".into(),
        Expr::Slice(..) => "slice".into(),
        Expr::Reduce { .. } => "reduce".into(),
        Expr::Map(_) => "map".into(),
        Expr::MapProjection(..) => "mapprojection".into(),
        Expr::MapProjectionWith { .. } => "mapprojectionwith".into(),
    }
}

/// The query's clause sequence, e.g. `MATCH,WITH,RETURN`.
pub fn shape(query: &Query) -> String {
    let names: Vec<&str> = query
        .parts
        .iter()
        .flat_map(|p| &p.clauses)
        // Signatures on disk name both CALLs alike.
        .map(|c| match c {
            Clause::Call { .. } | Clause::Procedure { .. } => "CALL",
            c => c.keyword(),
        })
        .collect();
    names.join(",")
}

/// Whether every `SET v.k` of `query` (and of its MERGE actions) writes a
/// key that each table `v` may be in has: where an engine ignores the
/// others (Kuzu's fixed tables), a reduction that drops a label from `v`'s
/// pattern would otherwise turn a real finding into that by-design
/// difference.
pub fn sets_keys_every_table_has(query: &Query, schema: &graphlancer_model::Schema) -> bool {
    use graphlancer_cypher::ast::SetItem;
    let mut tags: BTreeMap<&str, (bool, &[String])> = BTreeMap::new();
    let mut ok = true;
    for clause in query.parts.iter().flat_map(|p| &p.clauses) {
        let (patterns, items): (Vec<&PathPattern>, Vec<&SetItem>) = match clause {
            Clause::Match { patterns, .. } | Clause::Create { patterns } => (patterns.iter().collect(), Vec::new()),
            Clause::Merge { pattern, on_create, on_match } => {
                (vec![pattern], on_create.iter().chain(on_match).collect())
            }
            Clause::Set { items } => (Vec::new(), items.iter().collect()),
            _ => (Vec::new(), Vec::new()),
        };
        for p in patterns {
            for n in std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n)) {
                if let Some(v) = &n.variable {
                    tags.entry(v.as_str()).or_insert((false, n.labels.as_slice()));
                }
            }
            for (r, _) in &p.hops {
                if let Some(v) = &r.variable {
                    tags.entry(v.as_str()).or_insert((true, r.types.as_slice()));
                }
            }
        }
        for item in items {
            let SetItem::Property(var, key, _) = item else { continue };
            let Some(&(rel, names)) = tags.get(var.as_str()) else { continue };
            let has = |name: &str, keys: &[String]| {
                (names.is_empty() || names.iter().any(|n| n == name)) && !keys.contains(key)
            };
            let lacking = if rel {
                schema.rel_types.iter().any(|t| has(&t.name, &t.keys))
            } else {
                schema.labels.iter().any(|l| has(&l.name, &l.keys))
            };
            ok &= !lacking;
        }
    }
    ok
}
