//! Variables bound as one kind of thing and used as another, or bound again
//! where a clause would create them: Neo4j 5 refuses both at compile time
//! (TCK `Match1`–`Match3`: SyntaxError VariableTypeConflict; `Create1`,
//! `Create2`, `Merge1`, `Merge5`, `Match6`: SyntaxError VariableAlreadyBound).

use std::collections::BTreeMap;

use graphlancer_model::Value;

use crate::ast::{Clause, Expr, PathPattern, Query};

/// What a variable is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Node,
    Rel,
    /// A variable-length relationship: a list of relationships.
    Rels,
    Path,
    /// A value that is no node, relationship or path (a literal).
    Value,
    /// Not known before running (an expression's result).
    Unknown,
}

/// Why a binding is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conflict {
    /// Bound as one kind and used as another.
    Kind,
    /// A clause that creates it names a variable already bound.
    AlreadyBound,
}

type Env = BTreeMap<String, Kind>;

/// The first variable of `query` bound against what it already is.
pub(super) fn conflict(query: &Query) -> Option<Conflict> {
    query.parts.iter().find_map(|part| {
        let mut env = Env::new();
        part.clauses.iter().find_map(|c| clause(c, &mut env).err())
    })
}

fn clause(c: &Clause, env: &mut Env) -> Result<(), Conflict> {
    match c {
        Clause::Match { patterns, .. } => patterns.iter().try_for_each(|p| pattern(p, env, false)),
        Clause::Create { patterns } => patterns.iter().try_for_each(|p| pattern(p, env, true)),
        Clause::Merge { pattern: p, .. } => pattern(p, env, true),
        Clause::With(p) => {
            let items: Env = p.items.iter().map(|(e, alias)| (alias.clone(), kind_of(e, env))).collect();
            if !p.star {
                env.clear();
            }
            env.extend(items);
            Ok(())
        }
        Clause::Unwind { list, alias } => {
            let literal = matches!(list, Expr::Literal(Value::List(items)) if items.iter().all(plain));
            env.insert(alias.clone(), if literal { Kind::Value } else { Kind::Unknown });
            Ok(())
        }
        Clause::Call { body, .. } => {
            if let Some(Clause::Return(p)) = body.clauses.last() {
                env.extend(p.items.iter().map(|(_, a)| (a.clone(), Kind::Unknown)));
            }
            Ok(())
        }
        Clause::Procedure { alias, .. } => {
            env.insert(alias.clone(), Kind::Unknown);
            Ok(())
        }
        Clause::Return(_)
        | Clause::Set { .. }
        | Clause::Remove { .. }
        | Clause::Delete { .. }
        | Clause::Foreach { .. } => Ok(()),
    }
}

/// A value no pattern can bind: not a node, relationship or path.
fn plain(v: &Value) -> bool {
    !matches!(v, Value::Node(_) | Value::Relationship(_) | Value::Path(_) | Value::Null)
}

fn kind_of(e: &Expr, env: &Env) -> Kind {
    match e {
        Expr::Variable(v) => env.get(v).copied().unwrap_or(Kind::Unknown),
        Expr::Literal(v) if plain(v) => Kind::Value,
        // A list of relationships may stand for a variable-length one.
        Expr::List(items) if items.iter().all(|i| matches!(i, Expr::Literal(v) if plain(v))) => Kind::Value,
        Expr::Map(_) => Kind::Value,
        _ => Kind::Unknown,
    }
}

/// Binds the variables of one pattern; `creates` for CREATE and MERGE,
/// which make what they name unless it is a bound node they only join.
fn pattern(p: &PathPattern, env: &mut Env, creates: bool) -> Result<(), Conflict> {
    if let Some(name) = &p.name {
        // `p = (p)-[]-()`, `p = ()-[p]-()`: the path's own parts name it (TCK
        // `Match6` 23, 24); the first variable is the path's name.
        if p.variables().skip(1).any(|v| v == name) {
            return Err(Conflict::AlreadyBound);
        }
        match env.get(name) {
            Some(Kind::Path) => return Err(Conflict::AlreadyBound),
            Some(Kind::Unknown) | None => {}
            Some(_) => return Err(Conflict::Kind),
        }
    }
    let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
    for n in nodes {
        let Some(v) = &n.variable else { continue };
        match env.get(v) {
            // A bound node in CREATE may be joined, never made again.
            Some(Kind::Node | Kind::Unknown)
                if creates && (p.hops.is_empty() || !n.labels.is_empty() || !n.properties.is_empty()) =>
            {
                return Err(Conflict::AlreadyBound);
            }
            None | Some(Kind::Node | Kind::Unknown) => {}
            Some(_) => return Err(Conflict::Kind),
        }
        env.insert(v.clone(), Kind::Node);
    }
    for (r, _) in &p.hops {
        let Some(v) = &r.variable else { continue };
        let kind = if r.length.is_some() { Kind::Rels } else { Kind::Rel };
        match env.get(v) {
            None | Some(Kind::Unknown) => {}
            Some(k) if *k == kind && !creates => {}
            Some(k) if *k == kind => return Err(Conflict::AlreadyBound),
            Some(_) => return Err(Conflict::Kind),
        }
        env.insert(v.clone(), kind);
    }
    if let Some(name) = &p.name {
        env.insert(name.clone(), Kind::Path);
    }
    Ok(())
}
