//! Naming a finding by its cause before and after reduction: the operand
//! that is null, the clause a crash happens in, the localized culprit.

use graphlancer_cypher::ast::{Clause, Expr, Query};
use graphlancer_cypher::check::result_types;
use graphlancer_engines::{EngineError, Outcome};
use graphlancer_model::Value;

use crate::culprit::Culprit;
use crate::oracle::{CaseQuery, Verdict};
use crate::shape::expr_kind;

use super::{Reducer, Run, State, outcomes};
use crate::edit::slots;

impl Reducer<'_> {
    /// The reduced finding's signature by what it comes down to: a pair's
    /// difference by the part that differs, a crash by its clause.
    pub(super) fn name(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        if self.aggregate_alias(state, run)? {
            return Ok(());
        }
        self.localize(state)?;
        self.null_operand(state, run)?;
        self.crash_site(state, run)
    }

    /// For different values or rows on a pair of engines: the first
    /// operator or function whose operand, made non-null
    /// (`coalesce(n.k, '')`), makes the engines agree. A wrong answer for a
    /// null operand surfaces in whatever reads it first (a CASE, a WHERE, a
    /// grouping key, a variable), so localization names each observer;
    /// keyed on the operation and the null operand's type, they are one
    /// report. Left as localized where no such operand is needed.
    pub(super) fn null_operand(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        use crate::signature::Fault;
        let Some((case, _, finding)) = &state.best else { return Ok(()) };
        let [query] = case.queries.as_slice() else { return Ok(()) };
        let differs = matches!(finding.signature.fault, Fault::Culprit { .. } | Fault::Values { .. } | Fault::RowCount);
        // Rows grouped wrongly: a pinned key groups differently whatever the
        // bug, so a grouping culprit keeps its name.
        let grouping = matches!(&finding.signature.fault, Fault::Culprit { expression } if expression.is_grouping());
        // A finding that shows only now and then also vanishes now and then:
        // a pinned operand's run would blame whatever it changed.
        let flaky = run.tries > 1 || state.replays.0 < state.replays.1;
        let Some(ast) = query.cypher_ast() else { return Ok(()) };
        if !self.oracle.compares_a_pair() || !differs || flaky || grouping {
            return Ok(());
        }
        // An engine without `coalesce` refuses every pinned query: only the
        // operations' literal answers can show its NULLs.
        if self.lacks_coalesce(run)? {
            let ast = ast.clone();
            return self.leak_by_literals(state, run, &ast);
        }
        let schema = self.judge.schema;
        for target in 0.. {
            if run.spent() {
                return Ok(());
            }
            let mut pinned = ast.clone();
            let Some(Pinned { kind, operand, operation, prefix }) = pin_null_operand(&mut pinned, target, schema)
            else {
                return Ok(());
            };
            let operand_text = operand.clone();
            // A property a write before it set or removed (through any
            // variable: the node written and the node read may be one under
            // two names): a read that saw the old value is the write's bug,
            // not the operation's.
            if matches!(&operand, Expr::Property(_, key) if Clause::any_nested(&prefix, &|c| writes_key(c, key))) {
                continue;
            }
            if result_types(&pinned, schema).is_err() || !self.agree_on(run, &prefix, operand)? {
                continue;
            }
            run.attempts += 1;
            let queries = vec![CaseQuery::new(&query.role, pinned, query.order_columns.clone())];
            let (_, outcomes, verdict) = self.judged(run, queries)?;
            let answered = outcomes.iter().flatten().all(|o| matches!(o, Outcome::Rows(_)));
            if answered && !matches!(verdict, Verdict::Finding(_)) {
                let kind = if self.leaks(run, &prefix, &operand_text, operation)? { LEAKS.to_owned() } else { kind };
                name_null_operand(state, &kind, &operand_text, |text| {
                    format!(
                        "the engines agree once {text} is never NULL ({kind}): the operation mishandles a NULL operand"
                    )
                });
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether the finding vanishes once each aggregate's variable that a
    /// later clause reads is bound anew ([`super::alias`]): then it is
    /// named by that cause, whatever its oracle and fault.
    fn aggregate_alias(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<bool, EngineError> {
        use crate::signature::Signature;
        let Some((case, _, finding)) = &state.best else { return Ok(false) };
        let [query] = case.queries.as_slice() else { return Ok(false) };
        let Some(rebound) = query.cypher_ast().and_then(super::alias::rebound) else { return Ok(false) };
        // A crash that comes now and then also stays away now and then.
        let flaky = run.tries > 1 || state.replays.0 < state.replays.1;
        if flaky || finding.signature.fault.is_process_fault() || run.spent() {
            return Ok(false);
        }
        if result_types(&rebound, self.judge.schema).is_err() {
            return Ok(false);
        }
        run.attempts += 1;
        let queries = vec![CaseQuery::new(&query.role, rebound, query.order_columns.clone())];
        let (_, outcomes, verdict) = self.judged(run, queries)?;
        let answered = outcomes.iter().flatten().all(|o| matches!(o, Outcome::Rows(_)));
        if !answered || matches!(verdict, Verdict::Finding(_)) {
            return Ok(false);
        }
        if let Some((_, _, finding)) = state.best.as_mut() {
            let cause = crate::cause::AGGREGATE_ALIAS.to_owned();
            finding.signature = Signature { shape: Some(cause), ..finding.signature.family() };
            finding.summary = format!(
                "{}; it vanishes once each aggregate's variable a later clause reads is bound anew \
                 (`UNWIND [a] AS b` after its WITH): the engine computes the aggregate again where its variable is read",
                finding.summary
            );
        }
        Ok(true)
    }

    /// Whether the pair of engines answer `prefix RETURN operand` alike (an
    /// operand computed differently is a culprit of its own, found by
    /// localization, not a null the operation around it mishandles) with a
    /// NULL on some row.
    pub(super) fn agree_on(
        &mut self,
        run: &mut Run<'_>,
        prefix: &[Clause],
        operand: Expr,
    ) -> Result<bool, EngineError> {
        let probe = crate::localize::returning(prefix, vec![(operand, "x".into())]);
        // The operand must also be NULL somewhere: pinning a value that never
        // is changes only the plan, and a plan-dependent bug would take the
        // operation's name (gf24: a join Grafeo gets wrong).
        let null_somewhere =
            |r: &graphlancer_model::ResultSet| r.rows.iter().any(|row| row.first() == Some(&Value::Null));
        Ok(self.pair_rows(run, probe)?.is_some_and(|(x, y)| !crate::localize::differs(&x, &y) && null_somewhere(&x)))
    }

    /// The rows the pair of engines answer `probe` with; none where the
    /// checker refuses it or either engine answers otherwise.
    pub(super) fn pair_rows(
        &mut self,
        run: &mut Run<'_>,
        probe: Query,
    ) -> Result<Option<(graphlancer_model::ResultSet, graphlancer_model::ResultSet)>, EngineError> {
        let Some((a, b)) = self.pair(&run.family.engines) else { return Ok(None) };
        if result_types(&probe, self.judge.schema).is_err() {
            return Ok(None);
        }
        run.attempts += 1;
        let answers = outcomes(self.engines, &[CaseQuery::new("probe", probe, None)], self.exec)?;
        let Some(answers) = answers.into_iter().next() else { return Ok(None) };
        let mut rows: Vec<Option<graphlancer_model::ResultSet>> =
            answers.into_iter().map(|o| if let Outcome::Rows(r) = o { Some(r) } else { None }).collect();
        Ok(rows.get_mut(a).and_then(Option::take).zip(rows.get_mut(b).and_then(Option::take)))
    }

    /// Whether the pair of engines give `operation` different values on
    /// rows where `operand` is not NULL, though making it never NULL makes
    /// them agree: the NULL of one row reaches the answers of others, which
    /// is not the operation's handling of NULL but the engine's (Kuzu
    /// 0.6.0's vectors keep a NULL mark for the next rows: its one bug came
    /// as eleven names, one per operation that showed it).
    fn leaks(
        &mut self,
        run: &mut Run<'_>,
        prefix: &[Clause],
        operand: &Expr,
        operation: Expr,
    ) -> Result<bool, EngineError> {
        if operation.has_aggregate() || run.spent() {
            return Ok(false);
        }
        let probe = crate::localize::returning(prefix, vec![(operand.clone(), "o".into()), (operation, "v".into())]);
        let valued = |r: &graphlancer_model::ResultSet| {
            let rows = r.rows.iter().filter(|row| row.first() != Some(&Value::Null)).cloned().collect();
            graphlancer_model::ResultSet::new(r.columns.clone(), rows)
        };
        Ok(self.pair_rows(run, probe)?.is_some_and(|(x, y)| crate::localize::differs(&valued(&x), &valued(&y))))
    }

    /// The positions among the engines of a pair finding's two engines.
    pub(super) fn pair(&self, engines: &[String]) -> Option<(usize, usize)> {
        let index = |name: &String| self.judge.names.iter().position(|n| n == name);
        Some((index(engines.first()?)?, index(engines.get(1)?)?))
    }

    /// For a crash: the first clause after which the query, cut there and
    /// returning a constant, still crashes the engine (else the last). Its
    /// shape keys the signature, so clauses around it that the reducer
    /// could not remove do not split one crash into several reports.
    pub(super) fn crash_site(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        use crate::signature::Fault;
        let Some((case, _, finding)) = &state.best else { return Ok(()) };
        let [query] = case.queries.as_slice() else { return Ok(()) };
        let Some(ast) = query.cypher_ast() else { return Ok(()) };
        if finding.signature.fault != Fault::Crash {
            return Ok(());
        }
        let [part] = ast.parts.as_slice() else { return Ok(()) };
        let clauses = part.clauses.clone();
        let constant = || vec![(Expr::lit(Value::Int(0)), "x".into())];
        let mut site = clauses.len().checked_sub(1);
        for end in 1..clauses.len() {
            if run.spent() {
                return Ok(());
            }
            let cut = crate::localize::returning(&clauses[..end], constant());
            if result_types(&cut, self.judge.schema).is_err() {
                continue;
            }
            run.attempts += 1;
            if self.trial(run, vec![CaseQuery::new(&query.role, cut, None)])?.is_some() {
                site = Some(end - 1);
                break;
            }
        }
        let Some(at) = site else { return Ok(()) };
        let clause = self.crash_needs(run, &query.role, &clauses[..at], clauses[at].clone())?;
        // A crash on the rows of a pattern that can match nothing, at it or
        // after it, is named by that pattern.
        let schema = self.judge.schema;
        let impossible =
            crate::impossible::one_label_each(&state.graph) && crate::impossible::impossible(&clauses[..=at], schema);
        let site = match self.crashing_value(run, &query.role, &clause)? {
            Some(value) => format!("at:value:{value}"),
            None if impossible => crate::signature::IMPOSSIBLE_SITE.to_owned(),
            None => format!("at:{}", crash_site_name(&clause)),
        };
        if let Some((_, _, finding)) = state.best.as_mut() {
            finding.signature.shape = Some(site);
        }
        Ok(())
    }

    /// The crash site `clause` without what its crash does not need: each
    /// edit of the clause that changes its shape (its WHERE, OPTIONAL, a
    /// comma part, a hop, a direction, a path name, a property map) is kept
    /// when the query cut after it still crashes. The shape left names the
    /// crash, so the parts of a pattern the reducer could not remove do not
    /// split one crash into several reports (Kuzu 0.6.0's crash extending a
    /// rebound node made five, one per pattern shape); an OPTIONAL MATCH
    /// that crashes as a plain MATCH too is named MATCH.
    fn crash_needs(
        &mut self,
        run: &mut Run<'_>,
        role: &crate::case::Role,
        before: &[Clause],
        clause: Clause,
    ) -> Result<Clause, EngineError> {
        let schema = self.judge.schema;
        crate::edit::least_clause(before, clause, CRASH_EDITS, crate::constructs::clause_shape, |edited, _| {
            if result_types(edited, schema).is_err() {
                return Ok(None);
            }
            if run.spent() {
                return Ok(Some(false));
            }
            run.attempts += 1;
            Ok(Some(self.trial(run, vec![CaseQuery::new(role, edited.clone(), None)])?.is_some()))
        })
    }

    /// The kind of the smallest sub-expression of the crash site that
    /// reads no row and crashes the engine returned on its own: the crash
    /// is in computing that value, wherever the query computes it (Kuzu
    /// 0.1.0's `rtrim('')` crashed in a WITH and in a WHERE: two sites, one
    /// bug).
    fn crashing_value(
        &mut self,
        run: &mut Run<'_>,
        role: &crate::case::Role,
        clause: &Clause,
    ) -> Result<Option<String>, EngineError> {
        /// Sub-expressions that read no row, children before parents.
        fn closed(e: &Expr, out: &mut Vec<Expr>) {
            for child in e.children() {
                closed(child, out);
            }
            // An aggregate is its projection's: FalkorDB's DISTINCT
            // percentiles crash as percentileCont and percentileDisc alike.
            let value = !matches!(e, Expr::Literal(_)) && !e.has_aggregate();
            if value && crate::localize::constant(e) && !out.contains(e) {
                out.push(e.clone());
            }
        }
        let mut clause = clause.clone();
        let mut candidates = Vec::new();
        for slot in slots(&mut clause) {
            closed(slot, &mut candidates);
        }
        for value in candidates.into_iter().take(CRASH_VALUES) {
            if run.spent() {
                break;
            }
            let probe = crate::localize::returning(&[], vec![(value.clone(), "x".into())]);
            if result_types(&probe, self.judge.schema).is_err() {
                continue;
            }
            run.attempts += 1;
            if self.trial(run, vec![CaseQuery::new(role, probe, None)])?.is_some() {
                return Ok(Some(expr_kind(&value, None)));
            }
        }
        Ok(None)
    }

    /// For different values or numbers of rows on a pair of engines, the
    /// deepest sub-expression that differs on its own replaces the observed
    /// columns (or the constructs) in the signature ([`crate::localize`]).
    pub(super) fn localize(&mut self, state: &mut State) -> Result<(), EngineError> {
        use crate::localize::Symptom;
        use crate::signature::Fault;
        let paired = self.oracle.compares_a_pair();
        let Some((case, outcomes, finding)) = state.best.as_mut() else { return Ok(()) };
        let symptom = match &finding.signature.fault {
            Fault::Values { .. } => Symptom::Values,
            // One engine's row of nulls against the other's no row is a
            // difference of rows too, and the clause that made it names
            // it better than the aggregate that showed it.
            Fault::RowCount | Fault::NullForNothing => Symptom::RowCount,
            _ => return Ok(()),
        };
        if !paired {
            return Ok(());
        }
        let Some((a, b)) = self.pair(&finding.signature.engines) else { return Ok(()) };
        let (Some(query), Some(answers)) = (case.queries.first(), outcomes.first()) else { return Ok(()) };
        let Some(ast) = query.cypher_ast() else { return Ok(()) };
        let culprit = crate::localize::localize(
            self.engines,
            self.exec,
            self.judge.schema,
            ast,
            (&answers[a], &answers[b]),
            (a, b),
            symptom,
        )?;
        if let Some(c) = culprit {
            finding.summary = format!("{}; {}: {}", finding.summary, c.text_is(), c.text);
            finding.signature.fault = Fault::Culprit { expression: c.kind };
            finding.signature.shape = None;
        }
        Ok(())
    }
}

/// Names the best finding of `state` `null-operand:KIND`, its summary told
/// `why`, given `shown` as text.
pub(super) fn name_null_operand(state: &mut State, kind: &str, shown: &Expr, why: impl FnOnce(&str) -> String) {
    if let Some((_, _, finding)) = state.best.as_mut() {
        finding.signature.fault =
            crate::signature::Fault::Culprit { expression: Culprit::NullOperand(kind.to_owned()) };
        finding.signature.shape = None;
        let mut text = String::new();
        graphlancer_cypher::render::expr_into(&mut text, shown);
        finding.summary = format!("{}; {}", finding.summary, why(&text));
    }
}

/// How many edits of a crash site are tried.
const CRASH_EDITS: usize = 10;

/// How many closed values of a crash site are tried on their own.
const CRASH_VALUES: usize = 6;

/// The name of a NULL that reaches other rows' answers, whatever the
/// operation it shows in.
pub(super) const LEAKS: &str = "across rows";

/// An operand made non-null by [`pin_null_operand`].
pub(super) struct Pinned {
    /// The operation's kind and the operand's type, `op:+(null String)`.
    pub(super) kind: String,
    /// The operand as it was.
    pub(super) operand: Expr,
    /// The operation the operand is of, as it was.
    pub(super) operation: Expr,
    /// The clauses whose rows the operand is evaluated over.
    pub(super) prefix: Vec<Clause>,
}

/// Whether `clause` itself sets or removes property `key`.
pub(super) fn writes_key(clause: &Clause, key: &str) -> bool {
    use graphlancer_cypher::ast::{RemoveItem, SetItem};
    let sets = |items: &[SetItem]| {
        items.iter().any(|i| match i {
            SetItem::Property(_, k, _) => k == key,
            SetItem::MergeMap(_, m) => m.iter().any(|(k, _)| k == key),
            // `v = {...}` removes every key it does not name.
            SetItem::ReplaceMap(..) => true,
            SetItem::Label(..) => false,
        })
    };
    match clause {
        Clause::Set { items } => sets(items),
        Clause::Merge { on_create, on_match, .. } => sets(on_create) || sets(on_match),
        Clause::Remove { items } => items.iter().any(|i| matches!(i, RemoveItem::Property(_, k) if k == key)),
        _ => false,
    }
}

/// Makes the `target`-th operand of an operator or function in `query`
/// non-null, `coalesce(x, v)` with `v` a value of the operand's type
/// (operations outermost first, so in `trim(n.k) + ''` the `+`'s operand
/// `trim(n.k)` comes before `n.k`); the operation's kind and the operand's
/// type (`op:+(null String)`), or none when there are not that many.
/// Literals are never pinned, nor what a write stores, nor an operand whose
/// type the checker cannot tell (a variable of a list comprehension).
pub(super) fn pin_null_operand(query: &mut Query, target: usize, schema: &graphlancer_model::Schema) -> Option<Pinned> {
    use graphlancer_cypher::types::Ty;
    /// Counts operands in order, and pins the `target`-th.
    pub(super) fn visit(
        e: &mut Expr,
        seen: &mut usize,
        target: usize,
        type_of: &dyn Fn(&Expr) -> Option<Ty>,
    ) -> Option<(String, Expr, Expr)> {
        let operation = matches!(e, Expr::Binary(..))
            || matches!(e, Expr::Function(name, _) if !name.eq_ignore_ascii_case("coalesce"));
        if operation {
            let kind = expr_kind(e, None);
            let whole = e.clone();
            for child in e.children_mut() {
                if matches!(child, Expr::Literal(_)) {
                    continue;
                }
                let Some(ty) = type_of(child) else { continue };
                let value = match ty {
                    Ty::Int => Value::Int(0),
                    Ty::Float => Value::Float(0.0),
                    Ty::String => Value::String(String::new()),
                    Ty::Bool => Value::Bool(false),
                    _ => continue,
                };
                if *seen == target {
                    let operand = child.clone();
                    *child = Expr::Function("coalesce".into(), vec![operand.clone(), Expr::lit(value)]);
                    // Three-valued logic is one rule for every comparison
                    // and type: Kuzu 0.6.0's one NULL-mask bug showed
                    // through `<`, `>`, `=` and `<>` of four types.
                    let comparison = matches!(kind.as_str(), "op:=" | "op:<>" | "op:<" | "op:>" | "op:<=" | "op:>=");
                    let name = if comparison { "comparison(null)".to_owned() } else { format!("{kind}(null {ty:?})") };
                    return Some((name, operand, whole));
                }
                *seen += 1;
            }
        }
        e.children_mut().into_iter().find_map(|child| visit(child, seen, target, type_of))
    }
    let mut seen = 0;
    for (clause, prefix) in read_clauses(query) {
        let type_of = |x: &Expr| match x {
            Expr::Property(_, key) => schema.key_type(key).map(Ty::of_property),
            _ => result_types(&crate::localize::returning(&prefix, vec![(x.clone(), "x".into())]), schema)
                .ok()
                .and_then(|t| t.into_iter().next())
                .flatten(),
        };
        for slot in slots(clause) {
            if let Some((kind, operand, operation)) = visit(slot, &mut seen, target, &type_of) {
                return Some(Pinned { kind, operand, operation, prefix });
            }
        }
    }
    None
}

/// The clauses of `query` that only read, after the last write of their
/// part, each with the clauses whose rows its expressions see: those
/// before it, and a MATCH's own pattern for its WHERE. A value a write
/// stores or merges on, and a value that decides which rows reach a write,
/// decide what later clauses see: a probe that changed it would change
/// what the query writes, not how an operation computes (a MERGE whose
/// rows then created different relationships hid Grafeo's MERGE bug behind
/// an `=`; a WHERE that then let a DELETE take more relationships hid a
/// missed write).
pub(super) fn read_clauses(query: &mut Query) -> Vec<(&mut Clause, Vec<Clause>)> {
    let mut out = Vec::new();
    for part in &mut query.parts {
        let before = part.clauses.clone();
        let last_write = before.iter().rposition(Clause::is_write);
        for (i, clause) in part.clauses.iter_mut().enumerate() {
            if last_write.is_some_and(|w| i <= w) {
                continue;
            }
            let mut prefix = before[..i].to_vec();
            let mut own = before[i].clone();
            if let Clause::Match { predicate, .. } = &mut own {
                *predicate = None;
                prefix.push(own);
            }
            out.push((clause, prefix));
        }
    }
    out
}

/// A crash site's name: the clause's shape, where a projection is one
/// name whether it is a WITH or the final RETURN (an aggregate or DISTINCT
/// crashes alike in either); what else it does (DISTINCT, ORDER BY, paging,
/// a WHERE) stays.
pub(super) fn crash_site_name(clause: &Clause) -> String {
    let shape = crate::constructs::clause_shape(clause);
    if !matches!(clause, Clause::With(_) | Clause::Return(_)) {
        return shape;
    }
    let rest = shape.split(',').filter(|c| !matches!(*c, "WITH" | "RETURN"));
    std::iter::once("projection").chain(rest).collect::<Vec<_>>().join(",")
}
