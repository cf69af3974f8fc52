//! Rendering of the AST as Cypher text. Compound sub-expressions are always
//! parenthesised, so the text means what the tree means on every engine,
//! whatever its operator precedence.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use element_where::split_element_where;
use graphlancer_model::script::quote_string_with;
use graphlancer_model::{Value, quote_identifier};
use literal::{is_negative, literal};
use writer::W;

use crate::Feature;
use crate::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, OrderKeywords, PathPattern, Projection, Quantifier, Query, RelPattern,
    RemoveItem, SetItem, SingleQuery, Spelling,
};

mod element_where;

mod writer;

mod literal;

/// Renders a whole query on one line.
pub fn render(query: &Query) -> String {
    render_spelled(query).0
}

/// Renders a whole query on one line, with the productions its spelling
/// actually used (a synonym counts only where the query has what it spells).
pub fn render_spelled(query: &Query) -> (String, BTreeSet<Feature>) {
    let mut w = W::new(String::new(), query.spelling);
    let out = &mut w;
    for (i, part) in query.parts.iter().enumerate() {
        if i > 0 {
            if query.union_all {
                out.push_str(" UNION ALL ");
            } else if out.spell(|s| s.union_distinct, Feature::UnionDistinct) {
                out.push_str(" UNION DISTINCT ");
            } else {
                out.push_str(" UNION ");
            }
        }
        single(out, part);
    }
    (w.out, w.used)
}

// Beside the renderers, since it writes an expression.
impl W {
    /// ` WHERE e` before the element's closing bracket, for its variable `v`.
    fn element_where(&mut self, v: Option<&String>) {
        if let Some(e) = v.and_then(|v| self.inside.remove(v)) {
            self.push_str(" WHERE ");
            expr(self, &e);
        }
    }
}

fn single(out: &mut W, q: &SingleQuery) {
    for (i, c) in q.clauses.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        clause(out, c);
    }
}

fn id(name: &str) -> String {
    quote_identifier(name)
}

fn clause(out: &mut W, c: &Clause) {
    match c {
        Clause::Match { optional, patterns, guard, predicate } => {
            out.push_str(if *optional { "OPTIONAL MATCH " } else { "MATCH " });
            // What stays in the WHERE once conjuncts moved into elements.
            let rest = match split_element_where(out, patterns, predicate.as_ref()) {
                Some((inside, rest)) => {
                    out.inside = inside;
                    rest.map(Cow::Owned)
                }
                None => predicate.as_ref().map(Cow::Borrowed),
            };
            let condition = match (guard, rest) {
                (Some(g), Some(p)) => Some(Cow::Owned(Expr::binary(BinOp::And, g.clone(), p.into_owned()))),
                (Some(w), None) => Some(Cow::Borrowed(w)),
                (None, w) => w,
            };
            // `MATCH ((a)-->(b) WHERE p)`: one unnamed pattern and its WHERE.
            let parenthesized = matches!((patterns.as_slice(), &condition), ([p], Some(_)) if p.name.is_none())
                && out.spell(|s| s.parenthesized, Feature::ParenthesizedPath);
            if parenthesized {
                out.push('(');
            }
            pattern_list(out, patterns);
            out.inside.clear();
            if let Some(c) = condition {
                out.push_str(" WHERE ");
                top_expr(out, &c);
            }
            if parenthesized {
                out.push(')');
            }
        }
        Clause::Procedure { name, alias, predicate } => {
            let column = crate::ast::procedure_column(name).unwrap_or_default();
            let _ = write!(out, "CALL {name}() YIELD {column} AS {}", id(alias));
            if let Some(p) = predicate {
                out.push_str(" WHERE ");
                top_expr(out, p);
            }
        }
        Clause::Unwind { list, alias } => {
            out.push_str("UNWIND ");
            expr(out, list);
            let _ = write!(out, " AS {}", id(alias));
        }
        Clause::With(p) => projection(out, "WITH", p),
        Clause::Return(p) => projection(out, "RETURN", p),
        Clause::Create { patterns } => {
            out.push_str("CREATE ");
            pattern_list(out, patterns);
        }
        Clause::Merge { pattern, on_create, on_match } => {
            out.push_str("MERGE ");
            path(out, pattern);
            if !on_create.is_empty() {
                out.push_str(" ON CREATE SET ");
                set_items(out, on_create);
            }
            if !on_match.is_empty() {
                out.push_str(" ON MATCH SET ");
                set_items(out, on_match);
            }
        }
        Clause::Set { items } => {
            out.push_str("SET ");
            set_items(out, items);
        }
        Clause::Remove { items } => {
            out.push_str("REMOVE ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match item {
                    RemoveItem::Property(v, k) => {
                        let _ = write!(out, "{}.{}", id(v), id(k));
                    }
                    RemoveItem::Label(v, l) => {
                        let _ = write!(out, "{}:{}", id(v), id(l));
                    }
                }
            }
        }
        Clause::Delete { detach, variables } => {
            out.push_str(if *detach { "DETACH DELETE " } else { "DELETE " });
            out.push_str(&variables.iter().map(|v| id(v)).collect::<Vec<_>>().join(", "));
        }
        Clause::Foreach { variable, list, body } => {
            let _ = write!(out, "FOREACH ({} IN ", id(variable));
            expr(out, list);
            out.push_str(" | ");
            for (i, c) in body.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                clause(out, c);
            }
            out.push(')');
        }
        Clause::Call { imports, body, union_all } => {
            out.push_str("CALL { ");
            for (i, part) in std::iter::once(body).chain(union_all).enumerate() {
                if i > 0 {
                    out.push_str(" UNION ALL ");
                }
                if !imports.is_empty() {
                    let _ = write!(out, "WITH {} ", imports.iter().map(|v| id(v)).collect::<Vec<_>>().join(", "));
                }
                let outer = std::mem::replace(&mut out.in_call, true);
                single(out, part);
                out.in_call = outer;
            }
            out.push_str(" }");
        }
    }
}

fn set_items(out: &mut W, items: &[SetItem]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item {
            SetItem::Property(v, k, e) => {
                let _ = write!(out, "{}.{} = ", id(v), id(k));
                expr(out, e);
            }
            SetItem::MergeMap(v, m) => {
                let _ = write!(out, "{} += ", id(v));
                map(out, m);
            }
            SetItem::ReplaceMap(v, m) => {
                let _ = write!(out, "{} = ", id(v));
                map(out, m);
            }
            SetItem::Label(v, l) => {
                let _ = write!(out, "{}:{}", id(v), id(l));
            }
        }
    }
}

fn projection(out: &mut W, keyword: &str, p: &Projection) {
    out.push_str(keyword);
    if p.distinct {
        out.push_str(" DISTINCT");
    } else if out.spell(|s| s.return_all, Feature::ReturnAll) {
        out.push_str(" ALL");
    }
    out.push(' ');
    let mut first = true;
    if p.star {
        out.push('*');
        first = false;
    }
    for (e, alias) in &p.items {
        if !first {
            out.push_str(", ");
        }
        first = false;
        let start = out.out.len();
        top_expr(out, e);
        // `n AS n` says nothing `n` does not, and a query's own RETURN item
        // whose alias is its text has that name without one (a WITH's item,
        // or a RETURN's in a CALL body, must have an alias).
        let own_name = keyword == "RETURN" && !out.in_call && out.out[start..] == *alias;
        if !matches!(e, Expr::Variable(v) if v == alias) && !own_name {
            let _ = write!(out, " AS {}", id(alias));
        }
    }
    if !p.order_by.is_empty() {
        out.push_str(" ORDER BY ");
        for (i, (e, desc)) in p.order_by.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            top_expr(out, e);
            match (out.sp.order_keywords, *desc) {
                (OrderKeywords::Implied, true) | (OrderKeywords::Short, true) => out.push_str(" DESC"),
                (OrderKeywords::Implied, false) => {}
                (OrderKeywords::Short, false) => {
                    out.used.insert(Feature::OrderByAscending);
                    out.push_str(" ASC");
                }
                (OrderKeywords::Long, desc) => {
                    out.used.insert(Feature::OrderByAscending);
                    out.push_str(if desc { " DESCENDING" } else { " ASCENDING" });
                }
            }
        }
    }
    if let Some(s) = p.skip {
        let keyword = if out.spell(|s| s.offset, Feature::Offset) { "OFFSET" } else { "SKIP" };
        let _ = write!(out, " {keyword} {s}");
    }
    if let Some(l) = p.limit {
        let _ = write!(out, " LIMIT {l}");
    }
    if let Some(w) = &p.predicate {
        out.push_str(" WHERE ");
        top_expr(out, w);
    }
}

/// `:A:B`, or `:A&B` in the label-expression spelling.
fn labels(out: &mut W, names: &[String]) {
    let and = names.len() > 1 && out.spell(|s| s.label_and, Feature::LabelAnd);
    for (i, l) in names.iter().enumerate() {
        out.push(if i > 0 && and { '&' } else { ':' });
        out.push_str(&id(l));
    }
}

fn pattern_list(out: &mut W, patterns: &[PathPattern]) {
    for (i, p) in patterns.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        path(out, p);
    }
}

fn path(out: &mut W, p: &PathPattern) {
    if let Some(n) = &p.name {
        let _ = write!(out, "{} = ", id(n));
    }
    node(out, &p.start);
    for (r, n) in &p.hops {
        rel(out, r);
        node(out, n);
    }
}

fn node(out: &mut W, n: &NodePattern) {
    out.push('(');
    if let Some(v) = &n.variable {
        out.push_str(&id(v));
    }
    if n.variable.is_some() && n.labels.len() == 1 && out.spell(|s| s.is_label, Feature::IsLabel) {
        let _ = write!(out, " IS {}", id(&n.labels[0]));
    } else {
        labels(out, &n.labels);
    }
    if !n.properties.is_empty() {
        if n.variable.is_some() || !n.labels.is_empty() {
            out.push(' ');
        }
        map(out, &n.properties);
    }
    if n.properties.is_empty() {
        out.element_where(n.variable.as_ref());
    }
    out.push(')');
}

fn rel(out: &mut W, r: &RelPattern) {
    let both = r.direction == Direction::Both && out.spell(|s| s.both_arrows, Feature::RelBothArrows);
    let bare = r.variable.is_none() && r.types.is_empty() && r.length.is_none() && r.properties.is_empty();
    if bare && out.spell(|s| s.abbreviated, Feature::RelAbbreviated) {
        out.push_str(match r.direction {
            Direction::Out => "-->",
            Direction::In => "<--",
            Direction::Both if both => "<-->",
            Direction::Both => "--",
        });
        return;
    }
    out.push_str(if r.direction == Direction::In || both { "<-[" } else { "-[" });
    if let Some(v) = &r.variable {
        out.push_str(&id(v));
    }
    if !r.types.is_empty() {
        out.push(':');
        out.push_str(&r.types.iter().map(|t| id(t)).collect::<Vec<_>>().join("|"));
    }
    // `-[:T]->{1,3}`: a quantified relationship, bounded, without a variable
    // (it would be a list) or properties.
    let quantified = match r.length {
        Some((min, max))
            if max != u32::MAX
                && r.variable.is_none()
                && r.properties.is_empty()
                && !out.in_shortest
                && out.spell(|s| s.quantified, Feature::QuantifiedRelationship) =>
        {
            Some((min, max))
        }
        _ => None,
    };
    if let Some((min, max)) = r.length.filter(|_| quantified.is_none()) {
        // Unbounded, as the parser reads `*` and `*n..`.
        if max == u32::MAX {
            if min == 1 && out.spell(|s| s.short_lengths, Feature::VarLengthShort) {
                out.push('*');
            } else {
                let _ = write!(out, "*{min}..");
            }
        } else if min == max && out.spell(|s| s.short_lengths, Feature::VarLengthShort) {
            let _ = write!(out, "*{min}");
        } else if min == 1 && out.spell(|s| s.short_lengths, Feature::VarLengthShort) {
            let _ = write!(out, "*..{max}");
        } else {
            let _ = write!(out, "*{min}..{max}");
        }
    }
    if !r.properties.is_empty() {
        out.push(' ');
        map(out, &r.properties);
    }
    if r.properties.is_empty() && r.length.is_none() {
        out.element_where(r.variable.as_ref());
    }
    out.push_str(if r.direction == Direction::Out || both { "]->" } else { "]-" });
    if let Some((min, max)) = quantified {
        let _ = write!(out, "{{{min},{max}}}");
    }
}

fn map(out: &mut W, entries: &[(String, Expr)]) {
    out.push('{');
    for (i, (k, e)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}: ", id(k));
        expr(out, e);
    }
    out.push('}');
}

/// An expression's text as a query of this spelling writes it: the name
/// of a RETURN column that has no alias.
pub fn expr_spelled(e: &Expr, spelling: Spelling) -> String {
    let mut w = W::new(String::new(), spelling);
    top_expr(&mut w, e);
    w.out
}

/// Renders an expression onto `out`, plainly spelled.
pub fn expr_into(out: &mut String, e: &Expr) {
    let mut w = W::new(std::mem::take(out), Spelling::default());
    expr(&mut w, e);
    *out = w.out;
}

/// An expression that stands alone between a clause's keywords: a WHERE,
/// a projected item, an ORDER BY key.
fn top_expr(out: &mut W, e: &Expr) {
    out.top = true;
    expr(out, e);
}

fn expr(out: &mut W, e: &Expr) {
    let top = std::mem::take(&mut out.top);
    match e {
        Expr::Literal(v) => literal(out, v),
        Expr::Variable(v) => out.push_str(&id(v)),
        Expr::Property(base, k) if out.spell(|s| s.dynamic_properties, Feature::DynamicProperty) => {
            atom(out, base);
            let _ = write!(out, "[{}]", quote_string_with(k, '\''));
        }
        Expr::Property(base, k) => {
            atom(out, base);
            let _ = write!(out, ".{}", id(k));
        }
        Expr::Binary(BinOp::And, l, r)
            if chain(l, r).is_some() && out.spell(|s| s.chained_comparisons, Feature::ChainedComparison) =>
        {
            let (a, op1, b, op2, c) = chain(l, r).expect("checked");
            out.push('(');
            expr(out, a);
            let _ = write!(out, " {} ", op1.text());
            expr(out, b);
            let _ = write!(out, " {} ", op2.text());
            expr(out, c);
            out.push(')');
        }
        // `NOT (n:A)` as `(n:!A)`.
        Expr::Not(a)
            if let Expr::HasLabels(v, l) = a.as_ref()
                && l.len() == 1
                && out.spell(|s| s.label_not, Feature::LabelNot) =>
        {
            let _ = write!(out, "({}:!{})", id(v), id(&l[0]));
        }
        // `(n:A) OR (n:B)` as `(n:A|B)`.
        Expr::Binary(BinOp::Or, a, b)
            if let (Expr::HasLabels(v, l1), Expr::HasLabels(w, l2)) = (a.as_ref(), b.as_ref())
                && v == w
                && l1.len() == 1
                && l2.len() == 1
                && out.spell(|s| s.label_or, Feature::LabelOr) =>
        {
            let _ = write!(out, "({}:{}|{})", id(v), id(&l1[0]), id(&l2[0]));
        }
        Expr::Binary(op, a, b) => {
            if !top {
                out.push('(');
            }
            // FalkorDB binds IN, STARTS WITH, ENDS WITH, CONTAINS and =~
            // tighter than arithmetic and unary minus: an operand that is not
            // an atom gets parentheses of its own.
            if matches!(op, BinOp::In | BinOp::StartsWith | BinOp::EndsWith | BinOp::Contains | BinOp::Regex) {
                atom(out, a);
            } else {
                expr(out, a);
            }
            let _ = write!(out, " {} ", op.text());
            expr(out, b);
            if !top {
                out.push(')');
            }
        }
        Expr::Not(a) => {
            out.push_str(if top { "NOT " } else { "(NOT " });
            expr(out, a);
            if !top {
                out.push(')');
            }
        }
        Expr::Negate(a) => {
            out.push_str("(-");
            // Neo4j 5 reads one sign before a number: `-+29` is a syntax error.
            let plus = out.sp.unary_plus;
            out.sp.unary_plus = plus && !matches!(**a, Expr::Literal(_));
            atom(out, a);
            out.sp.unary_plus = plus;
            out.push(')');
        }
        Expr::IsNull { expr: a, negated } => {
            if !top {
                out.push('(');
            }
            atom(out, a);
            out.push_str(if *negated { " IS NOT NULL" } else { " IS NULL" });
            if !top {
                out.push(')');
            }
        }
        Expr::Function(name, args)
            if name == "size"
                && matches!(args.as_slice(), [Expr::PatternComprehension { filter: None, map, .. }] if **map == Expr::Literal(Value::Int(1)))
                && out.spell(|s| s.count_subquery, Feature::CountSubquery) =>
        {
            if let [Expr::PatternComprehension { pattern, .. }] = args.as_slice() {
                out.push_str("COUNT { ");
                path(out, pattern);
                out.push_str(" }");
            }
        }
        Expr::Function(name, args)
            if name == "properties"
                && matches!(args.as_slice(), [Expr::Variable(_)])
                && out.spell(|s| s.all_properties_projection, Feature::MapProjectionAll) =>
        {
            if let [Expr::Variable(v)] = args.as_slice() {
                let _ = write!(out, "{}{{.*}}", id(v));
            }
        }
        Expr::Function(name, args) => {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr(out, a);
            }
            out.push(')');
        }
        Expr::Aggregate { name, distinct, arg, percentile } => {
            out.push_str(name);
            out.push('(');
            match arg {
                None => out.push('*'),
                Some(a) => {
                    if *distinct {
                        out.push_str("DISTINCT ");
                    }
                    expr(out, a);
                }
            }
            // Always as a float: LadybugDB refuses an integer percentile.
            if let Some(p) = percentile {
                out.push_str(", ");
                expr(out, &Expr::Literal(Value::Float(*p)));
            }
            out.push(')');
        }
        Expr::Case { subject, branches, otherwise } => {
            out.push_str("CASE");
            if let Some(s) = subject {
                out.push(' ');
                expr(out, s);
            }
            let mut i = 0;
            while i < branches.len() {
                out.push_str(" WHEN ");
                expr(out, &branches[i].0);
                // Values of a simple CASE with one result as one WHEN list.
                while subject.is_some()
                    && branches.get(i + 1).is_some_and(|(_, t)| *t == branches[i].1)
                    && out.spell(|s| s.when_list, Feature::CaseWhenList)
                {
                    i += 1;
                    out.push_str(", ");
                    expr(out, &branches[i].0);
                }
                out.push_str(" THEN ");
                expr(out, &branches[i].1);
                i += 1;
            }
            if let Some(o) = otherwise {
                out.push_str(" ELSE ");
                expr(out, o);
            }
            out.push_str(" END");
        }
        Expr::List(items) => {
            out.push('[');
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr(out, a);
            }
            out.push(']');
        }
        Expr::Index(l, i) => {
            atom(out, l);
            out.push('[');
            expr(out, i);
            out.push(']');
        }
        Expr::Slice(l, a, b) => {
            atom(out, l);
            out.push('[');
            if let Some(a) = a {
                expr(out, a);
            }
            out.push_str("..");
            if let Some(b) = b {
                expr(out, b);
            }
            out.push(']');
        }
        Expr::ListComprehension { variable, list, filter, map } => {
            let _ = write!(out, "[{} IN ", id(variable));
            expr(out, list);
            if let Some(f) = filter {
                out.push_str(" WHERE ");
                expr(out, f);
            }
            if let Some(m) = map {
                out.push_str(" | ");
                expr(out, m);
            }
            out.push(']');
        }
        Expr::PatternComprehension { pattern, filter, map } => {
            out.push('[');
            path(out, pattern);
            if let Some(f) = filter {
                out.push_str(" WHERE ");
                expr(out, f);
            }
            out.push_str(" | ");
            expr(out, map);
            out.push(']');
        }
        Expr::Quantified { quantifier, variable, list, predicate } => {
            let name = match quantifier {
                Quantifier::All => "all",
                Quantifier::Any => "any",
                Quantifier::None => "none",
                Quantifier::Single => "single",
            };
            let _ = write!(out, "{name}({} IN ", id(variable));
            expr(out, list);
            out.push_str(" WHERE ");
            expr(out, predicate);
            out.push(')');
        }
        Expr::Reduce { accumulator, init, variable, list, step } => {
            let _ = write!(out, "reduce({} = ", id(accumulator));
            expr(out, init);
            let _ = write!(out, ", {} IN ", id(variable));
            expr(out, list);
            out.push_str(" | ");
            expr(out, step);
            out.push(')');
        }
        Expr::Map(entries) => map(out, entries),
        Expr::MapProjection(v, keys) => {
            let _ = write!(out, "{}{{", id(v));
            out.push_str(&keys.iter().map(|k| format!(".{}", id(k))).collect::<Vec<_>>().join(", "));
            out.push('}');
        }
        Expr::MapProjectionWith { base, keys, entries } => {
            let _ = write!(out, "{}{{", id(base));
            let mut first = true;
            for k in keys {
                out.push_str(if first { "." } else { ", ." });
                out.push_str(&id(k));
                first = false;
            }
            for (k, e) in entries {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                match e {
                    Expr::Variable(v) if v == k => out.push_str(&id(v)),
                    e => {
                        let _ = write!(out, "{}: ", id(k));
                        expr(out, e);
                    }
                }
            }
            out.push('}');
        }
        Expr::ExistsSubquery(p, None) if out.spell(|s| s.exists_pattern, Feature::ExistsPattern) => {
            out.push_str("EXISTS { ");
            path(out, p);
            out.push_str(" }");
        }
        Expr::ExistsSubquery(p, filter) => {
            out.push_str("EXISTS { MATCH ");
            path(out, p);
            if let Some(f) = filter {
                out.push_str(" WHERE ");
                expr(out, f);
            }
            out.push_str(" }");
        }
        // A bare pattern: only ever generated in WHERE, where it is a predicate.
        Expr::PatternPredicate(p) => path(out, p),
        Expr::ShortestPath(p) => {
            out.push_str("shortestPath(");
            let outer = std::mem::replace(&mut out.in_shortest, true);
            path(out, p);
            out.in_shortest = outer;
            out.push(')');
        }
        Expr::HasLabels(v, names) => {
            out.push('(');
            out.push_str(&id(v));
            labels(out, names);
            out.push(')');
        }
    }
}

/// `(a op1 b) AND (b op2 c)` of comparisons sharing `b`: the parts of `a op1 b op2 c`.
fn chain<'e>(l: &'e Expr, r: &'e Expr) -> Option<(&'e Expr, BinOp, &'e Expr, BinOp, &'e Expr)> {
    let comparison = |op: &BinOp| matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    match (l, r) {
        (Expr::Binary(op1, a, b), Expr::Binary(op2, b2, c)) if comparison(op1) && comparison(op2) && b == b2 => {
            Some((a, *op1, b, *op2, c))
        }
        _ => None,
    }
}

/// Renders an operand that is followed by `.k` or `[i]`: parenthesised
/// unless it is a plain variable, literal or call.
fn atom(out: &mut W, e: &Expr) {
    match e {
        Expr::Variable(_) | Expr::Function(..) | Expr::List(_) | Expr::Property(..) => expr(out, e),
        Expr::Literal(v) if !is_negative(v) => expr(out, e),
        _ => {
            out.push('(');
            expr(out, e);
            out.push(')');
        }
    }
}
