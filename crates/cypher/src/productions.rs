//! The productions a query uses, read off its AST. The generator records
//! them as it writes, but a reduced, mutated or parsed query has no such
//! record: a finding reduced to what it needs is matched to the profile's
//! known bugs by the productions left in it.

use std::collections::BTreeSet;

use graphlancer_model::Value;

use crate::Feature;
use crate::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, RelPattern, RemoveItem, SetItem,
    SingleQuery,
};

/// Productions that say how a query was made rather than what it holds
/// (a boundary value, a value read back after a write): no AST shows them.
pub const NOT_IN_THE_AST: [Feature; 4] =
    [Feature::BoundaryValues, Feature::DegenerateForms, Feature::ReadsWritten, Feature::EmptyMap];

/// Every production `query` uses, spellings included.
pub fn productions(query: &Query) -> BTreeSet<Feature> {
    let mut p = Productions::default();
    for part in &query.parts {
        p.single(part);
    }
    if query.parts.len() > 1 {
        p.out.insert(if query.union_all { Feature::UnionAll } else { Feature::Union });
    }
    let (_, spelled) = crate::render::render_spelled(query);
    p.out.extend(spelled);
    p.out
}

#[derive(Default)]
struct Productions {
    out: BTreeSet<Feature>,
}

impl Productions {
    fn add(&mut self, f: Feature) {
        self.out.insert(f);
    }

    fn single(&mut self, q: &SingleQuery) {
        self.clauses(&q.clauses);
        // A read anywhere after a write: what a later clause sees of a
        // write (Kuzu 0.1.0 refuses it with any WITHs between).
        let first_write = q.clauses.iter().position(Clause::is_write);
        let reads_after = first_write.is_some_and(|w| {
            q.clauses[w..]
                .iter()
                .any(|c| matches!(c, Clause::Match { .. } | Clause::Unwind { .. } | Clause::Call { .. }))
        });
        if reads_after {
            self.add(Feature::ReadAfterWrite);
        }
    }

    fn clauses(&mut self, clauses: &[Clause]) {
        let mut bound: BTreeSet<&str> = BTreeSet::new();
        for c in clauses {
            self.clause(c, &bound);
            bind(c, &mut bound);
        }
    }

    fn clause(&mut self, c: &Clause, bound: &BTreeSet<&str>) {
        match c {
            Clause::Match { optional, patterns, guard, predicate } => {
                self.add(if *optional { Feature::OptionalMatch } else { Feature::Match });
                if patterns.len() > 1 {
                    self.add(Feature::MultiplePatterns);
                }
                for p in patterns {
                    self.reused(p, bound);
                    self.pattern(p);
                }
                if predicate.is_some() {
                    self.add(Feature::MatchWhere);
                }
                for e in guard.iter().chain(predicate) {
                    self.expr(e);
                }
            }
            Clause::Unwind { list, .. } => {
                self.add(Feature::Unwind);
                self.expr(list);
            }
            Clause::With(p) => {
                self.add(Feature::With);
                if p.distinct {
                    self.add(Feature::WithDistinct);
                }
                if p.predicate.is_some() {
                    self.add(Feature::WithWhere);
                }
                self.projection(p);
            }
            Clause::Return(p) => {
                if p.distinct {
                    self.add(Feature::ReturnDistinct);
                }
                self.projection(p);
            }
            Clause::Create { patterns } => {
                self.add(Feature::Create);
                patterns.iter().for_each(|p| self.pattern(p));
            }
            Clause::Merge { pattern, on_create, on_match } => {
                self.add(Feature::Merge);
                self.pattern(pattern);
                if !on_create.is_empty() {
                    self.add(Feature::MergeOnCreate);
                }
                if !on_match.is_empty() {
                    self.add(Feature::MergeOnMatch);
                }
                on_create.iter().chain(on_match).for_each(|i| self.set_item(i));
            }
            Clause::Set { items } => {
                if items.len() > 1 {
                    self.add(Feature::SetItems);
                }
                items.iter().for_each(|i| self.set_item(i));
            }
            Clause::Remove { items } => {
                for i in items {
                    self.add(match i {
                        RemoveItem::Property(..) => Feature::RemoveProperty,
                        RemoveItem::Label(..) => Feature::RemoveLabel,
                    });
                }
            }
            Clause::Delete { detach, .. } => self.add(if *detach { Feature::DetachDelete } else { Feature::Delete }),
            Clause::Foreach { list, body, .. } => {
                self.add(Feature::Foreach);
                self.expr(list);
                self.clauses(body);
            }
            Clause::Call { body, union_all, .. } => {
                self.add(Feature::CallSubquery);
                for part in std::iter::once(body).chain(union_all) {
                    self.single(part);
                }
            }
            Clause::Procedure { predicate, .. } => {
                self.add(Feature::CallProcedure);
                if let Some(e) = predicate {
                    self.expr(e);
                }
            }
        }
    }

    /// A node an earlier clause bound, written again with a label or a
    /// property that filters it.
    fn reused(&mut self, p: &PathPattern, bound: &BTreeSet<&str>) {
        let nodes = std::iter::once(&p.start).chain(p.hops.iter().map(|(_, n)| n));
        let filtered = |n: &NodePattern| !n.labels.is_empty() || !n.properties.is_empty();
        if nodes.into_iter().any(|n| n.variable.as_deref().is_some_and(|v| bound.contains(v)) && filtered(n)) {
            self.add(Feature::ReuseWithFilter);
        }
    }

    fn projection(&mut self, p: &Projection) {
        if p.star {
            self.add(Feature::ReturnStar);
        }
        if !p.order_by.is_empty() {
            self.add(Feature::OrderBy);
        }
        if p.order_by.iter().any(|(_, desc)| *desc) {
            self.add(Feature::OrderByDesc);
        }
        if p.skip.is_some() {
            self.add(Feature::Skip);
        }
        if p.limit.is_some() {
            self.add(Feature::Limit);
        }
        let exprs = p.items.iter().map(|(e, _)| e).chain(&p.predicate).chain(p.order_by.iter().map(|(e, _)| e));
        exprs.for_each(|e| self.expr(e));
    }

    fn set_item(&mut self, i: &SetItem) {
        match i {
            SetItem::Property(_, _, e) => {
                self.add(Feature::SetProperty);
                self.expr(e);
            }
            SetItem::MergeMap(_, entries) => {
                self.add(Feature::SetMergeMap);
                entries.iter().for_each(|(_, e)| self.expr(e));
            }
            SetItem::ReplaceMap(_, entries) => {
                self.add(Feature::SetReplaceMap);
                entries.iter().for_each(|(_, e)| self.expr(e));
            }
            SetItem::Label(..) => self.add(Feature::SetLabel),
        }
    }

    fn pattern(&mut self, p: &PathPattern) {
        if p.name.is_some() {
            self.add(Feature::NamedPath);
        }
        self.node(&p.start);
        for (r, n) in &p.hops {
            self.rel(r);
            self.node(n);
        }
    }

    fn node(&mut self, n: &NodePattern) {
        if !n.labels.is_empty() {
            self.add(Feature::PatternLabel);
        }
        if n.labels.len() > 1 {
            self.add(Feature::PatternMultiLabel);
        }
        self.properties(&n.properties);
    }

    fn rel(&mut self, r: &RelPattern) {
        match r.direction {
            Direction::Both => self.add(Feature::RelUndirected),
            Direction::In => self.add(Feature::RelIncoming),
            Direction::Out => {}
        }
        if r.types.len() > 1 {
            self.add(Feature::RelTypeAlternatives);
        }
        if r.length.is_some() {
            self.add(Feature::VarLength);
        }
        self.properties(&r.properties);
    }

    fn properties(&mut self, properties: &[(String, Expr)]) {
        if !properties.is_empty() {
            self.add(Feature::PatternProperties);
        }
        properties.iter().for_each(|(_, e)| self.expr(e));
    }

    fn expr(&mut self, e: &Expr) {
        let mut patterns: Vec<PathPattern> = Vec::new();
        e.walk(&mut |x| {
            if let Some(f) = self.one(x) {
                self.out.insert(f);
            }
            match x {
                Expr::PatternComprehension { pattern, .. }
                | Expr::ExistsSubquery(pattern, _)
                | Expr::PatternPredicate(pattern)
                | Expr::ShortestPath(pattern) => patterns.push((**pattern).clone()),
                _ => {}
            }
        });
        // `walk` does not enter patterns; their property values are expressions too.
        for p in &patterns {
            self.pattern(p);
        }
    }

    /// The production of one expression node, where it has one of its own.
    fn one(&mut self, e: &Expr) -> Option<Feature> {
        Some(match e {
            Expr::Literal(v) => return literal(v),
            Expr::Variable(_) | Expr::Property(..) => return None,
            Expr::Binary(op, a, b) => binary(*op, a, b),
            Expr::Not(_) => Feature::Not,
            Expr::Negate(_) => Feature::Negate,
            Expr::IsNull { .. } => Feature::IsNull,
            Expr::Function(name, args) => {
                let mut found =
                    crate::functions::overloads(name).filter(|f| f.variadic() || f.params.len() == args.len());
                let first = found.next()?.feature;
                self.out.extend(found.map(|f| f.feature));
                first
            }
            Expr::Aggregate { name, distinct, arg, .. } => {
                if *distinct {
                    self.add(if name.starts_with("percentile") {
                        Feature::PercentileDistinct
                    } else {
                        Feature::AggregateDistinct
                    });
                }
                if arg.is_none() { Feature::CountStar } else { crate::functions::aggregate(name)? }
            }
            Expr::Case { subject, otherwise, .. } => {
                if otherwise.is_none() {
                    self.add(Feature::CaseNoElse);
                }
                if subject.is_some() { Feature::CaseSimple } else { Feature::CaseGeneric }
            }
            Expr::List(_) => Feature::ListLiteral,
            Expr::Index(..) => Feature::ListIndex,
            Expr::Slice(..) => Feature::ListSlice,
            Expr::ListComprehension { .. } => Feature::ListComprehension,
            Expr::PatternComprehension { .. } => Feature::PatternComprehension,
            Expr::Quantified { .. } => Feature::Quantifier,
            Expr::Reduce { .. } => Feature::Reduce,
            Expr::Map(_) => Feature::MapLiteral,
            Expr::MapProjection(..) => Feature::MapProjection,
            Expr::MapProjectionWith { .. } => Feature::MapProjectionEntries,
            Expr::ExistsSubquery(..) => Feature::ExistsSubquery,
            Expr::PatternPredicate(_) => Feature::PatternPredicate,
            Expr::HasLabels(..) => Feature::LabelPredicate,
            Expr::ShortestPath(_) => Feature::ShortestPath,
        })
    }
}

/// The variables a clause binds for the clauses after it.
fn bind<'a>(c: &'a Clause, bound: &mut BTreeSet<&'a str>) {
    match c {
        Clause::Match { patterns, .. } | Clause::Create { patterns } => {
            bound.extend(patterns.iter().flat_map(PathPattern::variables).map(String::as_str));
        }
        Clause::Merge { pattern, .. } => bound.extend(pattern.variables().map(String::as_str)),
        Clause::Unwind { alias, .. } | Clause::Procedure { alias, .. } => {
            bound.insert(alias);
        }
        Clause::With(p) => {
            if !p.star {
                bound.clear();
            }
            bound.extend(p.items.iter().map(|(_, a)| a.as_str()));
        }
        Clause::Call { body, .. } => {
            if let Some(Clause::Return(p)) = body.clauses.last() {
                bound.extend(p.items.iter().map(|(_, a)| a.as_str()));
            }
        }
        Clause::Return(_)
        | Clause::Set { .. }
        | Clause::Remove { .. }
        | Clause::Delete { .. }
        | Clause::Foreach { .. } => {}
    }
}

fn literal(v: &Value) -> Option<Feature> {
    match v {
        Value::List(_) => Some(Feature::ListLiteral),
        Value::Map(_) => Some(Feature::MapLiteral),
        _ => None,
    }
}

/// A binary operator's production. `+` joins strings or lists as well as
/// numbers: an operand that is plainly a string or a list says which.
fn binary(op: BinOp, a: &Expr, b: &Expr) -> Feature {
    match op {
        BinOp::Add if [a, b].iter().any(|e| plainly(e, Plain::String)) => Feature::StringConcat,
        BinOp::Add if [a, b].iter().any(|e| plainly(e, Plain::List)) => Feature::ListConcat,
        BinOp::Add => Feature::Add,
        BinOp::Sub => Feature::Subtract,
        BinOp::Mul => Feature::Multiply,
        BinOp::Div => Feature::Divide,
        BinOp::Mod => Feature::Modulo,
        BinOp::Pow => Feature::Power,
        BinOp::Eq | BinOp::Ne => Feature::Equality,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Feature::Compare,
        BinOp::And => Feature::And,
        BinOp::Or => Feature::Or,
        BinOp::Xor => Feature::Xor,
        BinOp::StartsWith => Feature::StartsWith,
        BinOp::EndsWith => Feature::EndsWith,
        BinOp::Contains => Feature::Contains,
        BinOp::Regex => Feature::Regex,
        BinOp::In => Feature::InList,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Plain {
    String,
    List,
}

/// Whether `e` is a string (a list) whatever the graph holds.
fn plainly(e: &Expr, kind: Plain) -> bool {
    use crate::functions::Kind;
    match e {
        Expr::Literal(Value::String(_)) => kind == Plain::String,
        Expr::Literal(Value::List(_)) | Expr::List(_) | Expr::ListComprehension { .. } => kind == Plain::List,
        Expr::Binary(BinOp::Add, a, b) => plainly(a, kind) || plainly(b, kind),
        Expr::Function(name, _) => crate::functions::overloads(name).any(|f| match kind {
            Plain::String => f.result == Kind::String,
            Plain::List => f.result.ty().is_some_and(|t| matches!(t, crate::types::Ty::List(_))),
        }),
        Expr::Aggregate { name, .. } => kind == Plain::List && name == "collect",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> BTreeSet<Feature> {
        productions(&crate::parse::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")))
    }

    #[test]
    fn a_query_names_its_clauses_operators_functions_and_spellings() {
        let p = of("MATCH (a:L0)-[r:T0]-(b) WHERE a.k0 < 3 WITH a, count(*) AS c RETURN cot(c) AS x ORDER BY x DESC");
        for f in [
            Feature::Match,
            Feature::PatternLabel,
            Feature::RelUndirected,
            Feature::MatchWhere,
            Feature::Compare,
            Feature::With,
            Feature::CountStar,
            Feature::FnTan,
            Feature::OrderBy,
            Feature::OrderByDesc,
        ] {
            assert!(p.contains(&f), "{f} missing from {p:?}");
        }
        assert!(!p.contains(&Feature::OptionalMatch) && !p.contains(&Feature::Add), "{p:?}");
        let concat = of("RETURN 'a' + toString(1) AS s, [1] + [2] AS l, 1 + 2 AS n");
        assert!([Feature::StringConcat, Feature::ListConcat, Feature::Add].iter().all(|f| concat.contains(f)));
        // A synonym counts where the query has what it spells.
        let mut q = crate::parse::parse("MATCH (a)-[]->(b) RETURN 0 AS z").expect("parses");
        assert!(!productions(&q).contains(&Feature::RelAbbreviated));
        q.spelling.abbreviated = true;
        assert!(productions(&q).contains(&Feature::RelAbbreviated));
    }

    #[test]
    fn a_bound_node_matched_again_with_a_label_is_reuse_with_a_filter() {
        assert!(of("MATCH (n:A) MATCH (n:B) RETURN n").contains(&Feature::ReuseWithFilter));
        assert!(!of("MATCH (n:A) MATCH (n)-->(m:B) RETURN n").contains(&Feature::ReuseWithFilter));
        assert!(!of("MATCH (n:A) WITH 1 AS x MATCH (n:B) RETURN n").contains(&Feature::ReuseWithFilter));
    }

    /// Synonyms: the parser reads each as its plain form.
    const SPELLINGS: [Feature; 26] = [
        Feature::ReturnAll,
        Feature::OrderByAscending,
        Feature::Offset,
        Feature::UnionDistinct,
        Feature::RelBothArrows,
        Feature::RelAbbreviated,
        Feature::IsLabel,
        Feature::ChainedComparison,
        Feature::MapProjectionAll,
        Feature::ExistsPattern,
        Feature::DoubleQuotedStrings,
        Feature::IntegerBases,
        Feature::FloatForms,
        Feature::FloatLeadingPoint,
        Feature::VarLengthShort,
        Feature::UnaryPlus,
        Feature::DynamicProperty,
        Feature::CountSubquery,
        Feature::NodeWhere,
        Feature::RelWhere,
        Feature::LabelAnd,
        Feature::LabelOr,
        Feature::LabelNot,
        Feature::CaseWhenList,
        Feature::QuantifiedRelationship,
        Feature::ParenthesizedPath,
    ];

    /// Each construct of the coverage list is read off its own example:
    /// the list's examples are written from the grammar and the manual, not
    /// from this walk. Spellings are left out, since the parser reads a
    /// synonym as the plain form.
    #[test]
    fn each_constructs_example_shows_its_production() {
        let mut read = 0;
        for c in crate::grammar::CONSTRUCTS {
            let Some(f) = c.feature() else { continue };
            let Ok(q) = crate::parse::parse(c.example) else { continue };
            // `match` stands for "every query has it" in the list (`RETURN 1`).
            if f == Feature::Match || NOT_IN_THE_AST.contains(&f) || SPELLINGS.contains(&f) {
                continue;
            }
            let got = productions(&q);
            assert!(got.contains(&f), "{}: {f} not read off `{}`: {got:?}", c.name, c.example);
            read += 1;
        }
        assert!(read > 120, "only {read} examples parsed");
    }
}
