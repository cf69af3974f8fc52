//! Cypher text into graphlancer's AST, for queries graphlancer did not
//! generate: the openCypher TCK's scenarios and a user's query given to the
//! reference. The `open-cypher` crate parses the whole openCypher 2024.3
//! grammar; this module lowers the part of it the AST can express and
//! names what it cannot, so that nothing outside is silently approximated.

use graphlancer_model::Value;
use open_cypher::ast as oc;

use crate::ast::{
    BinOp, Clause, Direction, Expr, NodePattern, PathPattern, Projection, Query, RelPattern, RemoveItem, SetItem,
    SingleQuery,
};

mod expr;

/// Why a text has no AST.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text is not openCypher (the grammar rejects it, or a literal
    /// cannot be represented: an integer or float out of range).
    #[error("syntax error: {0}")]
    Syntax(String),
    /// Valid openCypher that graphlancer's AST does not express.
    #[error("outside graphlancer's Cypher: {0}")]
    Outside(String),
}

type Lowered<T> = Result<T, ParseError>;

fn outside<T>(what: impl Into<String>) -> Lowered<T> {
    Err(ParseError::Outside(what.into()))
}

/// Parses one Cypher statement into graphlancer's AST.
///
/// # Errors
/// [`ParseError::Syntax`] where the grammar rejects the text,
/// [`ParseError::Outside`] where the AST cannot hold it (parameters,
/// procedures, quantified path patterns and the rest).
pub fn parse(text: &str) -> Result<Query, ParseError> {
    // The grammar we parse with has no `CALL { … }`: each subquery is parsed
    // on its own and stands in the text as a call of a placeholder procedure.
    let (text, subqueries) = lift_subqueries(text)?;
    let text = text.as_str();
    let parsed = open_cypher::parse(text).map_err(|e| ParseError::Syntax(e.render(text).trim().to_owned()))?;
    let [statement] = parsed.program.statements.as_slice() else {
        return outside("more than one statement");
    };
    let oc::StatementKind::Query(q) = &statement.kind else { return Err(ParseError::Syntax("no query".into())) };
    if q.mode.is_some() {
        return outside("EXPLAIN or PROFILE");
    }
    Lower { text, subqueries, element_wheres: Default::default() }.query(&q.query)
}

/// The name of the placeholder procedure standing for subquery `i`.
const SUBQUERY: &str = "graphlancer_subquery_";

/// `text` with every `CALL { … }` (outside strings and quoted names)
/// replaced by `CALL graphlancer_subquery_<i>()`, and the subqueries,
/// parsed, in order.
fn lift_subqueries(text: &str) -> Result<(String, Vec<Query>), ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut subqueries = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '\'' | '"' | '`') {
            let end = quoted_end(&chars, i);
            out.extend(&chars[i..end]);
            i = end;
            continue;
        }
        let brace_after =
            |len: usize| (i + len..chars.len()).find(|&k| !chars[k].is_whitespace()).filter(|&k| chars[k] == '{');
        // The grammar takes `EXISTS { MATCH p }` but not every pattern of the
        // short form `EXISTS { p }` (a labelled node is refused): the short
        // form is read as the long one, which means the same.
        if keyword_at(&chars, i, "exists")
            && let Some(open) = brace_after("exists".len())
            && (open + 1..chars.len()).find(|&k| !chars[k].is_whitespace()).is_some_and(|k| chars[k] == '(')
        {
            out.extend(&chars[i..=open]);
            out.push_str(" MATCH");
            i = open + 1;
            continue;
        }
        if keyword_at(&chars, i, "call")
            && let Some(open) = brace_after(4)
        {
            let close = closing_brace(&chars, open)
                .ok_or_else(|| ParseError::Syntax("a `CALL {` without its closing `}`".into()))?;
            let body: String = chars[open + 1..close].iter().collect();
            out.push_str(&format!("CALL {SUBQUERY}{}()", subqueries.len()));
            subqueries.push(parse(&body)?);
            i = close + 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    Ok((out, subqueries))
}

/// Whether `keyword` starts at `i` as a word of its own, in any case.
fn keyword_at(chars: &[char], i: usize, keyword: &str) -> bool {
    let word = |c: &char| c.is_alphanumeric() || *c == '_';
    let len = keyword.chars().count();
    (i == 0 || !word(&chars[i - 1]))
        && !chars.get(i + len).is_some_and(word)
        && chars.get(i..i + len).is_some_and(|w| w.iter().zip(keyword.chars()).all(|(a, b)| a.eq_ignore_ascii_case(&b)))
}

/// The index after the quoted string or name opening at `start`.
fn quoted_end(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut k = start + 1;
    while k < chars.len() {
        match chars[k] {
            '\\' if quote != '`' => k += 2,
            c if c == quote => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

/// The index of the `}` that closes the `{` at `open`.
fn closing_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = open;
    while k < chars.len() {
        match chars[k] {
            '\'' | '"' | '`' => {
                k = quoted_end(chars, k);
                continue;
            }
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// The one operator a label expression may join names with: `&` (or `:`)
/// for a node's labels, `|` for a relationship's type alternatives.
#[derive(Clone, Copy)]
enum Join {
    And,
    Or,
}

struct Lower<'a> {
    text: &'a str,
    /// The subqueries `lift_subqueries` took out of the text.
    subqueries: Vec<Query>,
    /// While a MATCH's patterns are lowered: the WHERE written inside their
    /// elements, which join the clause's WHERE (the same rows).
    element_wheres: std::cell::RefCell<Option<Vec<Expr>>>,
}

/// Names of the functions and aggregates the AST knows, as written in it;
/// Cypher's function names are case-insensitive.
fn canonical_function(name: &str) -> String {
    let aggregates = crate::functions::AGGREGATES.iter().map(|(n, _)| *n);
    let known = crate::functions::FUNCTIONS.iter().map(|f| f.name).chain(aggregates).chain(["exists", "elementId"]);
    known.into_iter().find(|k| k.eq_ignore_ascii_case(name)).map_or_else(|| name.to_owned(), str::to_owned)
}

fn name(n: &oc::Name) -> String {
    n.kind.text.clone()
}

impl Lower<'_> {
    fn source(&self, span: open_cypher::Span) -> String {
        self.text.get(span.start..span.end).unwrap_or_default().trim().to_owned()
    }

    fn query(&self, q: &oc::Query) -> Lowered<Query> {
        let oc::QueryKind::Regular(r) = &q.kind else { return Err(ParseError::Syntax("no query".into())) };
        let mut parts = vec![self.single(&r.head)?];
        let mut union_all = None;
        for branch in &r.unions {
            let all = matches!(branch.operator.kind, oc::UnionOperator::All);
            if union_all.replace(all).is_some_and(|before| before != all) {
                return Err(ParseError::Syntax("UNION mixed with UNION ALL".into()));
            }
            parts.push(self.single(&branch.query)?);
        }
        Ok(Query { parts, union_all: union_all.unwrap_or(false), spelling: Default::default() })
    }

    fn single(&self, q: &oc::SingleQuery) -> Lowered<SingleQuery> {
        Ok(SingleQuery { clauses: self.clauses(&q.kind.clauses)? })
    }

    fn clauses(&self, clauses: &[oc::Clause]) -> Lowered<Vec<Clause>> {
        clauses.iter().map(|c| self.clause(c)).collect()
    }

    fn clause(&self, c: &oc::Clause) -> Lowered<Clause> {
        Ok(match &c.kind {
            oc::ClauseKind::Match(m) => {
                if m.mode.is_some() || !m.hints.is_empty() {
                    return outside("a MATCH mode or hint");
                }
                let outer = self.element_wheres.replace(Some(Vec::new()));
                let patterns = self.pattern(&m.pattern);
                let inside = self.element_wheres.replace(outer).unwrap_or_default();
                let patterns = patterns?;
                let predicate = m.where_clause.as_ref().map(|w| self.expr(w)).transpose()?;
                Clause::Match {
                    optional: m.optional,
                    patterns,
                    guard: None,
                    predicate: Expr::and_all(inside.into_iter().chain(predicate)),
                }
            }
            oc::ClauseKind::Unwind(u) => Clause::Unwind { list: self.expr(&u.expression)?, alias: name(&u.variable) },
            oc::ClauseKind::With(w) => {
                let mut p = self.projection(&w.projection, false)?;
                p.predicate = w.where_clause.as_ref().map(|e| self.expr(e)).transpose()?;
                Clause::With(p)
            }
            oc::ClauseKind::Return(r) => Clause::Return(self.projection(&r.projection, true)?),
            oc::ClauseKind::Create(cr) => Clause::Create { patterns: self.pattern(&cr.pattern)? },
            oc::ClauseKind::Merge(m) => {
                let (mut on_create, mut on_match) = (Vec::new(), Vec::new());
                for action in &m.actions {
                    let items = self.set_items(&action.set)?;
                    match action.trigger.kind {
                        oc::MergeTrigger::Create => on_create.extend(items),
                        oc::MergeTrigger::Match => on_match.extend(items),
                        _ => return outside("a MERGE action"),
                    }
                }
                Clause::Merge { pattern: self.part(&m.pattern)?, on_create, on_match }
            }
            oc::ClauseKind::Set(s) => Clause::Set { items: self.set_items(s)? },
            oc::ClauseKind::Remove(r) => {
                let mut items = Vec::new();
                for item in &r.items {
                    match &item.kind {
                        oc::RemoveItemKind::Property(e) => {
                            let (v, k) = self.variable_property(e)?;
                            items.push(RemoveItem::Property(v, k));
                        }
                        oc::RemoveItemKind::Labels { target, labels } => {
                            let v = name(target);
                            items
                                .extend(self.label_names(labels)?.into_iter().map(|l| RemoveItem::Label(v.clone(), l)));
                        }
                        _ => return outside("a REMOVE item"),
                    }
                }
                Clause::Remove { items }
            }
            oc::ClauseKind::Delete(d) => {
                let detach = match d.mode.kind {
                    oc::DeleteMode::Detach => true,
                    oc::DeleteMode::Normal | oc::DeleteMode::Nodetach => false,
                    _ => return outside("a DELETE mode"),
                };
                let variables = d
                    .expressions
                    .iter()
                    .map(|e| match &e.kind {
                        oc::ExprKind::Variable(v) => Ok(name(v)),
                        _ => outside("DELETE of an expression other than a variable"),
                    })
                    .collect::<Lowered<_>>()?;
                Clause::Delete { detach, variables }
            }
            oc::ClauseKind::Foreach(f) => Clause::Foreach {
                variable: name(&f.variable),
                list: self.expr(&f.list)?,
                body: self.clauses(&f.clauses)?,
            },
            oc::ClauseKind::Call(call) => self.call(call)?,
            _ => return outside(format!("the clause `{}`", self.source(c.span))),
        })
    }

    fn call(&self, call: &oc::CallClause) -> Lowered<Clause> {
        if let oc::CallTarget::Procedure { name: n, arguments } = &call.target
            && let Some(y) = &call.yield_clause
        {
            let written = n.parts.iter().map(name).collect::<Vec<_>>().join(".");
            let Some(column) = crate::ast::procedure_column(&written) else {
                return outside(format!("the procedure {written}"));
            };
            let alias = match y.items.as_slice() {
                [oc::Node { kind: oc::ProjectionItemKind::Expression { expression, alias }, .. }]
                    if !call.optional && !y.all && arguments.as_ref().is_none_or(Vec::is_empty) =>
                {
                    match (&expression.kind, alias) {
                        (oc::ExprKind::Variable(v), a) if name(v) == column => a.as_ref().map_or_else(|| name(v), name),
                        _ => return outside(format!("YIELD of other than {column}")),
                    }
                }
                _ => return outside("a procedure call yielding other than one column"),
            };
            let predicate = y.where_clause.as_ref().map(|w| self.expr(w)).transpose()?;
            return Ok(Clause::Procedure { name: written, alias, predicate });
        }
        let lowered = match &call.target {
            oc::CallTarget::Procedure { name: n, arguments }
                if !call.optional && call.yield_clause.is_none() && arguments.as_ref().is_some_and(Vec::is_empty) =>
            {
                let [part] = n.parts.as_slice() else { return outside("a procedure call") };
                let Some(i) = name(part).strip_prefix(SUBQUERY).and_then(|i| i.parse::<usize>().ok()) else {
                    return outside("a procedure call");
                };
                self.subqueries.get(i).cloned().ok_or_else(|| ParseError::Outside("a procedure call".into()))?
            }
            oc::CallTarget::Subquery { scope, query, in_transactions } => {
                if call.optional || scope.is_some() || in_transactions.is_some() || call.yield_clause.is_some() {
                    return outside("OPTIONAL CALL, a scoped CALL, or CALL IN TRANSACTIONS");
                }
                self.query(query)?
            }
            _ => return outside("a procedure call"),
        };
        if lowered.parts.len() > 1 && !lowered.union_all {
            return outside("UNION (without ALL) inside CALL");
        }
        // The AST keeps one import list for every part; each part must
        // start with the same `WITH a, b` of bare variables, or none.
        let mut imports: Option<Vec<String>> = None;
        let mut parts = Vec::new();
        for mut part in lowered.parts {
            let own = match part.clauses.first() {
                Some(Clause::With(p)) if is_import(p) => {
                    let names = p.items.iter().map(|(_, a)| a.clone()).collect();
                    part.clauses.remove(0);
                    names
                }
                _ => Vec::new(),
            };
            if imports.get_or_insert_with(|| own.clone()) != &own {
                return outside("CALL parts importing different variables");
            }
            if !matches!(part.clauses.last(), Some(Clause::Return(_))) {
                return outside("a CALL subquery that returns nothing");
            }
            parts.push(part);
        }
        let mut parts = parts.into_iter();
        let body = parts.next().unwrap_or(SingleQuery { clauses: Vec::new() });
        Ok(Clause::Call { imports: imports.unwrap_or_default(), body, union_all: parts.collect() })
    }

    fn projection(&self, p: &oc::ProjectionClause, returns: bool) -> Lowered<Projection> {
        let mut out = Projection::of(Vec::new());
        out.distinct = matches!(p.quantifier.as_ref().map(|q| &q.kind), Some(oc::SetQuantifier::Distinct));
        for item in &p.items {
            match &item.kind {
                oc::ProjectionItemKind::Wildcard => out.star = true,
                oc::ProjectionItemKind::Expression { expression, alias } => {
                    let alias = match (alias, &expression.kind) {
                        (Some(a), _) => name(a),
                        (None, oc::ExprKind::Variable(v)) => name(v),
                        // RETURN names an unaliased column by its text; WITH
                        // cannot leave a non-variable unaliased.
                        (None, _) if returns => self.source(expression.span),
                        (None, _) => {
                            return Err(ParseError::Syntax(format!(
                                "`{}` in WITH needs an alias (NoExpressionAlias)",
                                self.source(expression.span)
                            )));
                        }
                    };
                    out.items.push((self.expr(expression)?, alias));
                }
                _ => return outside("a projection item"),
            }
        }
        if let Some(order) = &p.order_by {
            for s in &order.items {
                if s.nulls.is_some() {
                    return outside("NULLS FIRST or LAST");
                }
                let desc = matches!(s.direction.as_ref().map(|d| &d.kind), Some(oc::SortDirection::Descending));
                out.order_by.push((self.expr(&s.expression)?, desc));
            }
        }
        let count = |e: &Option<oc::Expr>| -> Lowered<Option<u32>> {
            e.as_ref()
                .map(|e| match &e.kind {
                    oc::ExprKind::Literal(l) => match &l.kind {
                        oc::LiteralKind::Integer(i) => {
                            u32::try_from(integer(i, false)?).or_else(|_| outside("a SKIP or LIMIT out of range"))
                        }
                        _ => outside("a SKIP or LIMIT that is not an integer"),
                    },
                    _ => outside("a SKIP or LIMIT that is an expression"),
                })
                .transpose()
        };
        if p.offset.is_some() && p.skip.is_some() {
            return Err(ParseError::Syntax("both OFFSET and SKIP".into()));
        }
        out.skip = count(if p.offset.is_some() { &p.offset } else { &p.skip })?;
        out.limit = count(&p.limit)?;
        Ok(out)
    }

    fn set_items(&self, s: &oc::SetClause) -> Lowered<Vec<SetItem>> {
        let mut items = Vec::new();
        for item in &s.items {
            match &item.kind {
                oc::SetItemKind::Property { target, value } => {
                    let (v, k) = self.variable_property(target)?;
                    items.push(SetItem::Property(v, k, self.expr(value)?));
                }
                oc::SetItemKind::ReplaceProperties { target, value } => {
                    items.push(SetItem::ReplaceMap(name(target), self.map_entries(value)?));
                }
                oc::SetItemKind::MergeProperties { target, value } => {
                    items.push(SetItem::MergeMap(name(target), self.map_entries(value)?));
                }
                oc::SetItemKind::Labels { target, labels } => {
                    let v = name(target);
                    items.extend(self.label_names(labels)?.into_iter().map(|l| SetItem::Label(v.clone(), l)));
                }
                _ => return outside("a SET item"),
            }
        }
        Ok(items)
    }

    fn variable_property(&self, e: &oc::Expr) -> Lowered<(String, String)> {
        match &e.kind {
            oc::ExprKind::Property { expression, key } => match &expression.kind {
                oc::ExprKind::Variable(v) => Ok((name(v), name(key))),
                oc::ExprKind::Parenthesized(inner) => self.variable_property(&oc::Expr::new(
                    oc::ExprKind::Property { expression: inner.clone(), key: key.clone() },
                    e.span,
                )),
                _ => outside(format!("a property of `{}`", self.source(expression.span))),
            },
            _ => outside(format!("SET or REMOVE of `{}`", self.source(e.span))),
        }
    }

    fn map_entries(&self, e: &oc::Expr) -> Lowered<Vec<(String, Expr)>> {
        match &e.kind {
            oc::ExprKind::Map(entries) => {
                entries.iter().map(|m| Ok((name(&m.key), self.expr(&m.value)?))).collect::<Lowered<_>>()
            }
            oc::ExprKind::Parenthesized(inner) => self.map_entries(inner),
            _ => outside(format!("properties from `{}`, not a map literal", self.source(e.span))),
        }
    }

    /// `:A:B` or `:A&B` as its names; anything else (`|`, `!`, `%`) is outside.
    fn label_names(&self, l: &oc::LabelExpression) -> Lowered<Vec<String>> {
        self.names(l, Join::And)
    }

    /// `:T1|T2` as its type names.
    fn type_names(&self, l: &oc::LabelExpression) -> Lowered<Vec<String>> {
        self.names(l, Join::Or)
    }

    /// `v:expr` as label tests joined by AND, OR and NOT (`v:A&B` is one
    /// test of both labels, as `v:A:B`).
    fn label_test(&self, v: &str, l: &oc::LabelExpression) -> Lowered<Expr> {
        if let Ok(labels) = self.label_names(l) {
            return Ok(Expr::HasLabels(v.to_owned(), labels));
        }
        let join = |parts: &[oc::LabelExpression], op: BinOp| -> Lowered<Expr> {
            let tests = parts.iter().map(|p| self.label_test(v, p)).collect::<Lowered<Vec<_>>>()?;
            tests
                .into_iter()
                .reduce(|a, b| Expr::binary(op, a, b))
                .ok_or_else(|| ParseError::Syntax("an empty label expression".into()))
        };
        match &l.kind {
            oc::LabelExpressionKind::Not(inner) => Ok(Expr::Not(Box::new(self.label_test(v, inner)?))),
            oc::LabelExpressionKind::And(parts) => join(parts, BinOp::And),
            oc::LabelExpressionKind::Or(parts) => join(parts, BinOp::Or),
            oc::LabelExpressionKind::Parenthesized(inner) => self.label_test(v, inner),
            _ => outside(format!("the label expression `{}`", self.source(l.span))),
        }
    }

    /// The names of a label expression built with one operator only.
    fn names(&self, l: &oc::LabelExpression, join: Join) -> Lowered<Vec<String>> {
        match (&l.kind, join) {
            (oc::LabelExpressionKind::Name(n), _) => Ok(vec![name(n)]),
            (oc::LabelExpressionKind::And(parts), Join::And) | (oc::LabelExpressionKind::Or(parts), Join::Or) => {
                Ok(parts.iter().map(|p| self.names(p, join)).collect::<Lowered<Vec<_>>>()?.concat())
            }
            (oc::LabelExpressionKind::Parenthesized(inner), _) => self.names(inner, join),
            (_, Join::And) => outside(format!("the label expression `{}`", self.source(l.span))),
            (_, Join::Or) => outside(format!("the type expression `{}`", self.source(l.span))),
        }
    }

    fn pattern(&self, p: &oc::Pattern) -> Lowered<Vec<PathPattern>> {
        p.parts.iter().map(|part| self.part(part)).collect()
    }

    fn part(&self, part: &oc::PatternPart) -> Lowered<PathPattern> {
        if part.kind.selector.is_some() {
            return outside("a path selector (SHORTEST, ANY)");
        }
        let mut path = self.path(&part.kind.path)?;
        path.name = part.kind.binding.as_ref().map(name);
        Ok(path)
    }

    fn path(&self, p: &oc::PathPattern) -> Lowered<PathPattern> {
        let mut factors = p.kind.factors.iter();
        let start = match factors.next().map(|f| &f.kind) {
            Some(oc::PathFactorKind::Node(n)) => self.node(n)?,
            // `((a)-->(b) WHERE p)`: its WHERE joins the MATCH's.
            Some(oc::PathFactorKind::Parenthesized { pattern, where_clause, quantifier: None })
                if p.kind.factors.len() == 1 =>
            {
                self.element_where(where_clause.as_deref())?;
                return self.path(pattern);
            }
            _ => return outside(format!("the pattern `{}`", self.source(p.span))),
        };
        let mut hops = Vec::new();
        loop {
            match (factors.next().map(|f| &f.kind), factors.next().map(|f| &f.kind)) {
                (None, _) => break,
                (Some(oc::PathFactorKind::Relationship(r)), Some(oc::PathFactorKind::Node(n))) => {
                    hops.push((self.relationship(r)?, self.node(n)?));
                }
                _ => return outside(format!("the pattern `{}`", self.source(p.span))),
            }
        }
        Ok(PathPattern { name: None, start, hops })
    }

    /// An element's own WHERE: in a MATCH, a conjunct of the clause's WHERE.
    fn element_where(&self, w: Option<&oc::Expr>) -> Lowered<()> {
        let Some(w) = w else { return Ok(()) };
        let e = self.expr(w)?;
        match self.element_wheres.borrow_mut().as_mut() {
            Some(found) => {
                found.push(e);
                Ok(())
            }
            None => outside("WHERE inside a pattern element outside MATCH"),
        }
    }

    fn node(&self, n: &oc::NodePattern) -> Lowered<NodePattern> {
        self.element_where(n.where_clause.as_deref())?;
        Ok(NodePattern {
            variable: n.variable.as_ref().map(name),
            labels: n.labels.as_ref().map(|l| self.label_names(l)).transpose()?.unwrap_or_default(),
            properties: n.properties.as_ref().map(|p| self.map_entries(p)).transpose()?.unwrap_or_default(),
        })
    }

    fn relationship(&self, r: &oc::RelationshipPattern) -> Lowered<RelPattern> {
        self.element_where(r.where_clause.as_deref())?;
        let direction = match r.direction.kind {
            oc::RelationshipDirection::Right => Direction::Out,
            oc::RelationshipDirection::Left => Direction::In,
            oc::RelationshipDirection::Undirected | oc::RelationshipDirection::Both => Direction::Both,
            _ => return outside("a relationship direction"),
        };
        let bound = |s: &Option<String>, default: u32| -> Lowered<u32> {
            s.as_deref()
                .map_or(Ok(default), |t| t.trim().parse::<u32>().or_else(|_| outside(format!("the hop count {t}"))))
        };
        // An unbounded `*` has no maximum in the AST; relationship
        // uniqueness bounds every walk by the number of relationships anyway.
        // A quantified relationship `-[:T]->{1,3}` is the same hop as `*1..3`.
        let quantifier = match (&r.legacy_quantifier, &r.graph_quantifier) {
            (Some(_), Some(_)) => return outside("a relationship with two quantifiers"),
            (Some(q), None) | (None, Some(q)) => Some(q),
            (None, None) => None,
        };
        let length = match quantifier.map(|q| &q.kind) {
            None => None,
            Some(oc::QuantifierKind::ZeroOrMore) => Some((1, u32::MAX)),
            Some(oc::QuantifierKind::OneOrMore) => Some((1, u32::MAX)),
            Some(oc::QuantifierKind::Optional) => Some((0, 1)),
            Some(oc::QuantifierKind::Fixed(n)) => {
                let n = bound(&Some(n.clone()), 1)?;
                Some((n, n))
            }
            Some(oc::QuantifierKind::Range { lower, upper }) => Some((bound(lower, 1)?, bound(upper, u32::MAX)?)),
            Some(_) => return outside("a hop quantifier"),
        };
        Ok(RelPattern {
            variable: r.variable.as_ref().map(name),
            types: r.labels.as_ref().map(|l| self.type_names(l)).transpose()?.unwrap_or_default(),
            direction,
            length,
            properties: r.properties.as_ref().map(|p| self.map_entries(p)).transpose()?.unwrap_or_default(),
        })
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
}

fn is_import(p: &Projection) -> bool {
    !p.distinct
        && !p.star
        && p.predicate.is_none()
        && p.order_by.is_empty()
        && p.skip.is_none()
        && p.limit.is_none()
        && p.items.iter().all(|(e, a)| matches!(e, Expr::Variable(v) if v == a))
}

fn integer(i: &oc::IntegerLiteral, negative: bool) -> Lowered<i64> {
    let digits = i.text.replace('_', "");
    let (radix, body) = match i.radix {
        oc::IntegerRadix::Decimal => (10, digits.as_str()),
        oc::IntegerRadix::Hexadecimal => (16, digits.get(2..).unwrap_or_default()),
        oc::IntegerRadix::Octal => {
            let body = digits.strip_prefix("0o").or_else(|| digits.strip_prefix("0O")).unwrap_or(&digits[1..]);
            (8, body)
        }
        _ => return outside("an integer radix"),
    };
    let signed = if negative { format!("-{body}") } else { body.to_owned() };
    i64::from_str_radix(&signed, radix).map_err(|_| {
        ParseError::Syntax(format!(
            "the integer {}{} is out of range (IntegerOverflow)",
            if negative { "-" } else { "" },
            i.text
        ))
    })
}

fn literal(l: &oc::Literal, negative: bool) -> Lowered<Value> {
    Ok(match &l.kind {
        oc::LiteralKind::Integer(i) => Value::Int(integer(i, negative)?),
        oc::LiteralKind::Float(f) => {
            let x: f64 =
                f.text.replace('_', "").parse().map_err(|_| ParseError::Syntax(format!("the float {}", f.text)))?;
            if !x.is_finite() {
                return Err(ParseError::Syntax(format!(
                    "the float {} is out of range (FloatingPointOverflow)",
                    f.text
                )));
            }
            Value::Float(if negative { -x } else { x })
        }
        _ if negative => return outside("the negation of a literal that is not a number"),
        oc::LiteralKind::Null => Value::Null,
        oc::LiteralKind::Boolean(b) => Value::Bool(*b),
        oc::LiteralKind::String(s) => Value::String(s.value.clone()),
        _ => return outside("a literal"),
    })
}

#[cfg(test)]
mod tests;
