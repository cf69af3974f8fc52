//! Completion of each clause kind against the typed context. A clause that
//! cannot be completed here (nothing to SET, say) falls back to one that can,
//! instead of failing or retrying the whole query.

use crate::functions::{AGGREGATES, call};
use graphlancer_model::Value;

use super::{Builder, ClauseKind};
use crate::ast::{BinOp, Clause, Expr, Projection, RemoveItem, SetItem, SingleQuery};
use crate::feature::Feature;
use crate::profile::SemanticsKey;
use crate::types::{BIG, Ty, Var};

/// Result columns: aliases with their types.
pub(super) type Columns = Vec<(String, Ty)>;

/// Whether two SET items write the same property.
fn same_property(a: &SetItem, b: &SetItem) -> bool {
    matches!((a, b), (SetItem::Property(v, k, _), SetItem::Property(w, l, _)) if v == w && k == l)
}

impl Builder<'_, '_> {
    /// Completes one single query; `columns` forces the RETURN's columns (the
    /// second part of a UNION). Returns the clauses, the RETURN's columns and
    /// the columns its ORDER BY fixes.
    pub(super) fn single_query(
        &mut self,
        kinds: &[ClauseKind],
        columns: Option<&[(String, Ty)]>,
    ) -> (Vec<Clause>, Columns, Option<Vec<usize>>) {
        let mut clauses = Vec::new();
        let mut out_columns = Vec::new();
        let mut order = None;
        self.scopes.clear();
        for kind in kinds {
            match kind {
                ClauseKind::Return => {
                    let (p, cols, o) = match columns {
                        Some(forced) => self.forced_return(forced),
                        None => self.projection(true),
                    };
                    out_columns = cols;
                    order = o;
                    clauses.push(Clause::Return(p));
                }
                other => {
                    let c = self.clause(*other);
                    clauses.extend(c);
                }
            }
            self.scopes.push(self.scope.vars().to_vec());
        }
        (clauses, out_columns, order)
    }

    fn clause(&mut self, kind: ClauseKind) -> Vec<Clause> {
        match kind {
            ClauseKind::Match => vec![self.match_clause(false)],
            ClauseKind::OptionalMatch => vec![self.match_clause(true)],
            ClauseKind::Unwind => vec![self.unwind()],
            ClauseKind::With => {
                let (p, _, _) = self.projection(false);
                vec![Clause::With(p)]
            }
            ClauseKind::Call => self.call().map_or_else(|| vec![self.match_clause(false)], |c| vec![c]),
            ClauseKind::Create => vec![self.create()],
            ClauseKind::Merge => vec![self.merge()],
            ClauseKind::Set => self.set().map_or_else(|| vec![self.write_fallback()], |c| vec![c]),
            ClauseKind::Remove => self.remove().map_or_else(|| vec![self.write_fallback()], |c| vec![c]),
            ClauseKind::Delete => self.delete().map_or_else(|| vec![self.write_fallback()], |c| vec![c]),
            ClauseKind::Foreach => self.foreach().map_or_else(|| vec![self.write_fallback()], |c| vec![c]),
            ClauseKind::Return => unreachable!("RETURN is completed by single_query"),
        }
    }

    /// `r1 <> r2`, or `id(r1) <> id(r2)` where an engine of the profile
    /// compares relationships wrongly (Kuzu 0.10 fails an assertion on two
    /// relationships of different tables).
    fn distinct_rels(&self, a: &str, b: &str) -> Expr {
        if self.g.quirks.relationship_inequality_by_id {
            let id = |v: &str| call(Feature::FnId, vec![Expr::var(v)]);
            Expr::binary(BinOp::Ne, id(a), id(b))
        } else {
            Expr::binary(BinOp::Ne, Expr::var(a), Expr::var(b))
        }
    }

    /// Whether `e` reads a variable whose value came from an aggregate.
    fn refs_aggregate(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |x| {
            if let Expr::Variable(name) = x {
                found |= self.scope.get(name).is_some_and(|v| v.aggregate);
            }
        });
        found
    }

    /// An aggregate's argument, unless it reads an earlier aggregate's value
    /// where the profile records that an engine refuses or miscomputes that
    /// (Kuzu: "nested aggregation"); then a literal of its type.
    fn without_aggregates(&self, e: Expr, ty: &Ty) -> Expr {
        if !self.g.quirks.aggregate_of_aggregate_alias || !self.refs_aggregate(&e) {
            return e;
        }
        Expr::Literal(match ty {
            Ty::Float => Value::Float(0.5),
            Ty::String => Value::String("a".into()),
            Ty::Bool => Value::Bool(true),
            _ => Value::Int(1),
        })
    }

    /// What a write clause with nothing to work on becomes: a CREATE, or a
    /// WITH where the profile has no CREATE (Kuzu, which also wants a WITH
    /// between a write and what follows).
    fn write_fallback(&mut self) -> Clause {
        if self.on(Feature::Create) {
            self.create()
        } else {
            let (p, _, _) = self.projection(false);
            Clause::With(p)
        }
    }

    fn match_clause(&mut self, optional: bool) -> Clause {
        self.features.insert(if optional { Feature::OptionalMatch } else { Feature::Match });
        let mut rels = Vec::new();
        let mut patterns = vec![self.match_pattern(optional, &mut rels, true)];
        if self.chance(Feature::MultiplePatterns, 0.15) {
            patterns.push(self.match_pattern(optional, &mut rels, false));
        }
        let mut conjuncts = Vec::new();
        if self.needs_named_rels() {
            // Relationship uniqueness, spelled out for engines that differ on it.
            for (i, (a, a_types)) in rels.iter().enumerate() {
                for (b, b_types) in &rels[i + 1..] {
                    // Relationships of disjoint types are never one relationship.
                    let disjoint =
                        !a_types.is_empty() && !b_types.is_empty() && !a_types.iter().any(|t| b_types.contains(t));
                    if !disjoint {
                        conjuncts.push(self.distinct_rels(a, b));
                    }
                }
            }
        }
        if self.collapses_relationships() {
            // FalkorDB folds parallel relationships whose variable is not used
            // again; a reference keeps each one a row of its own.
            for (r, _) in &rels {
                conjuncts.push(Expr::IsNull { expr: Box::new(Expr::var(r)), negated: true });
            }
        }
        let guard = Expr::and_all(conjuncts);
        let predicate = self.chance(Feature::MatchWhere, 0.35).then(|| self.predicate());
        Clause::Match { optional, patterns, guard, predicate }
    }

    fn unwind(&mut self) -> Clause {
        if self.chance(Feature::CallProcedure, 0.15) {
            return self.procedure();
        }
        self.features.insert(Feature::Unwind);
        let ty = self.scalar_type();
        // Mostly literal lists: a computed one is often empty, which ends the rows.
        let list = if self.coin(0.85) {
            self.features.insert(Feature::ListLiteral);
            let n = self.rng_int(1, 4);
            Expr::List((0..n).map(|_| self.literal(&ty)).collect())
        } else {
            self.list(&ty, 1)
        };
        let alias = self.names.fresh("a");
        let mut v = Var::new(alias.clone(), ty);
        v.nullable = true;
        v.bound = BIG;
        self.scope.bind(v);
        Clause::Unwind { list, alias }
    }

    /// `CALL db.labels() YIELD label AS a [WHERE p]` in UNWIND's place: a row
    /// per name in the engine's catalogue, bound to a string.
    fn procedure(&mut self) -> Clause {
        let (name, _) = crate::ast::PROCEDURES[self.below(crate::ast::PROCEDURES.len())];
        let alias = self.names.fresh("a");
        let mut v = Var::new(alias.clone(), Ty::String);
        v.bound = BIG;
        self.scope.bind(v);
        let predicate = self.coin(0.3).then(|| self.predicate());
        Clause::Procedure { name: name.to_owned(), alias, predicate }
    }

    /// WITH or RETURN: items, perhaps aggregates, DISTINCT, ORDER BY, SKIP,
    /// LIMIT; the scope becomes the projected items.
    fn projection(&mut self, is_return: bool) -> (Projection, Columns, Option<Vec<usize>>) {
        let outer = std::mem::replace(&mut self.in_projection, true);
        let out = self.projection_items(is_return);
        self.in_projection = outer;
        out
    }

    fn projection_items(&mut self, is_return: bool) -> (Projection, Columns, Option<Vec<usize>>) {
        if !is_return {
            self.features.insert(Feature::With);
        }
        let det = self.deterministic();
        let mut items: Vec<(Expr, String)> = Vec::new();
        let mut vars: Vec<Var> = Vec::new();
        let star =
            is_return && !self.in_union && self.scope.vars().len() == 1 && self.chance(Feature::ReturnStar, 0.05);
        if star {
            vars.extend(self.scope.vars().iter().cloned());
        }
        let in_scope: Vec<Var> = self.scope.vars().to_vec();
        // Aggregates, grouped or not, keep at least one row more often than not.
        let aggregate = !star && self.coin(if is_return { 0.45 } else { 0.3 });
        // Grouping keys or passed-through variables.
        for v in &in_scope {
            if star {
                break;
            }
            let keep = if aggregate { self.coin(0.3) } else { self.coin(if is_return { 0.4 } else { 0.6 }) };
            if !keep {
                continue;
            }
            if aggregate && !self.groupable(&v.ty) {
                continue;
            }
            items.push((Expr::var(&v.name), v.name.clone()));
            vars.push(v.clone());
        }
        let computed = if star { 0 } else { self.rng_int(0, 2) };
        for _ in 0..computed {
            let ty = self.projected_type();
            if aggregate && !self.groupable(&ty) {
                continue;
            }
            let e = self.expr(&ty, 1);
            let alias = self.names.fresh("a");
            let mut v = Var::new(alias.clone(), ty);
            v.nullable = true;
            // Only the quirk reads the flag; the walk stays off the common path.
            v.aggregate = self.g.quirks.aggregate_of_aggregate_alias && self.refs_aggregate(&e);
            // An alias of a variable keeps what is known of its labels or types.
            if let Expr::Variable(source) = &e
                && let Some(src) = self.scope.get(source)
            {
                v.tags = src.tags.clone();
                v.nullable = src.nullable;
                v.bound = src.bound;
            }
            if let Expr::Literal(Value::Int(i)) = &e {
                v.bound = i.unsigned_abs();
            }
            items.push((e, alias));
            vars.push(v);
        }
        if aggregate && !star {
            let n = self.rng_int(1, 2);
            for _ in 0..n {
                let (e, v) = self.aggregate_item();
                items.push((e, v.name.clone()));
                vars.push(v);
            }
        }
        if items.is_empty() && !star {
            let (e, v) = if self.on(Feature::CountStar) { self.aggregate_item() } else { self.literal_item() };
            items.push((e, v.name.clone()));
            vars.push(v);
        }
        let distinct_feature = if is_return { Feature::ReturnDistinct } else { Feature::WithDistinct };
        let distinct = !star && self.chance(distinct_feature, 0.15);
        let orderable: Vec<usize> =
            vars.iter().enumerate().filter(|(_, v)| v.ty.is_orderable()).map(|(i, _)| i).collect();
        let all_orderable = !star && orderable.len() == vars.len();
        let mut order_by = Vec::new();
        let mut order_columns = None;
        // Kuzu refuses ORDER BY in a WITH unless SKIP or LIMIT follows; any
        // engine of the profile recording that keeps WITH unordered.
        let may_order = is_return || !self.g.quirks.with_order_by_needs_limit;
        if !star && !orderable.is_empty() && may_order && self.chance(Feature::OrderBy, 0.3) {
            // Ordering on every column gives a total order, which SKIP and LIMIT need.
            let keys: Vec<usize> = if all_orderable && self.coin(0.6) {
                (0..vars.len()).collect()
            } else {
                orderable.iter().copied().filter(|_| self.coin(0.6)).collect()
            };
            let keys = if keys.is_empty() { vec![orderable[0]] } else { keys };
            for &k in &keys {
                let desc = self.chance(Feature::OrderByDesc, 0.3);
                order_by.push((Expr::var(&vars[k].name), desc));
            }
            order_columns = Some(keys);
        }
        let total_order = order_by.len() == vars.len() && all_orderable;
        let may_cut = !det || total_order;
        let skip = (may_cut && self.chance(Feature::Skip, 0.15)).then(|| {
            if self.boundary(Feature::BoundaryValues) {
                self.pick(&[0, 1_000_000, i32::MAX.unsigned_abs()])
            } else {
                u32::try_from(self.rng_int(0, 3)).unwrap_or(0)
            }
        });
        let limit = (may_cut && self.chance(Feature::Limit, 0.2)).then(|| {
            if self.boundary(Feature::BoundaryValues) {
                self.pick(&[0, 1_000_000, i32::MAX.unsigned_abs()])
            } else {
                u32::try_from(self.rng_int(1, 10)).unwrap_or(1)
            }
        });
        let columns: Vec<(String, Ty)> = vars.iter().map(|v| (v.name.clone(), v.ty.clone())).collect();
        if star {
            self.features.insert(Feature::ReturnStar);
        }
        self.scope.replace(vars);
        let predicate = if !is_return
            && order_by.is_empty()
            && skip.is_none()
            && limit.is_none()
            && self.chance(Feature::WithWhere, 0.1)
        {
            Some(self.predicate())
        } else {
            None
        };
        let p = Projection { distinct, star, items, predicate, order_by, skip, limit };
        (p, columns, if is_return { order_columns } else { None })
    }

    /// Whether a value of this type can be a grouping key of an aggregation
    /// on every engine of the profile.
    fn groupable(&self, ty: &Ty) -> bool {
        !(self.deterministic() && self.g.quirks.grouping_keys) || matches!(ty, Ty::Int | Ty::Node)
    }

    /// The type of a computed projection item: mostly scalars, now and then a
    /// map or an endpoint node.
    fn projected_type(&mut self) -> Ty {
        match self.below(20) {
            0 if self.on(Feature::MapLiteral) || self.on(Feature::FnProperties) => Ty::Map,
            1 if self.scope.of_type(&Ty::Rel).any(|v| !v.nullable)
                && (self.on(Feature::FnStartNode) || self.on(Feature::FnEndNode)) =>
            {
                Ty::Node
            }
            _ => self.scalar_type(),
        }
    }

    fn literal_item(&mut self) -> (Expr, Var) {
        let alias = self.names.fresh("a");
        (Expr::Literal(Value::Int(1)), Var { bound: 1, ..Var::new(alias, Ty::Int) })
    }

    /// `agg(expr) AS alias` with the aggregate's result type.
    fn aggregate_item(&mut self) -> (Expr, Var) {
        let det = self.deterministic();
        let sum_ok = !det || self.g.profile.semantics(SemanticsKey::SumOfIntegers) == Some("integer");
        let options: Vec<(Feature, u32)> = vec![
            (Feature::CountStar, 3),
            (Feature::Count, 3),
            (Feature::Sum, u32::from(sum_ok)),
            (Feature::Avg, 1),
            (Feature::Min, 2),
            (Feature::Max, 2),
            (Feature::Collect, 1),
            (Feature::StDev, 1),
            (Feature::Percentile, 1),
        ];
        let alias = self.names.fresh("a");
        let choice = self.choose(&options).unwrap_or(Feature::CountStar);
        let distinct = choice != Feature::CountStar
            && (choice != Feature::Percentile || self.on(Feature::PercentileDistinct))
            && self.chance(Feature::AggregateDistinct, 0.15);
        if distinct && choice == Feature::Percentile {
            self.features.insert(Feature::PercentileDistinct);
        }
        // A percentile's number, and the type of its argument.
        let mut percentile = None;
        let (name, arg, ty, bound) = match choice {
            Feature::CountStar => ("count", None, Ty::Int, 1 << 40),
            Feature::Count => {
                let ty = self.scalar_type();
                ("count", Some(self.expr(&ty, 1)), Ty::Int, 1 << 40)
            }
            Feature::Sum => {
                let (e, b) = self.int(1);
                // Keep the sum of many rows inside 64 bits.
                let e = if b > 1 << 40 { Expr::Literal(Value::Int(1)) } else { e };
                ("sum", Some(e), Ty::Int, 1 << 62)
            }
            Feature::Avg => {
                let (e, b) = self.int(1);
                let e = if b > 1 << 40 { Expr::Literal(Value::Int(1)) } else { e };
                ("avg", Some(e), Ty::Float, BIG)
            }
            Feature::StDev => {
                let (e, b) = self.int(1);
                let e = if b > 1 << 40 { Expr::Literal(Value::Int(1)) } else { e };
                (["stDev", "stDevP"][self.below(2)], Some(e), Ty::Float, BIG)
            }
            // Of floats where answers are compared: FalkorDB answers
            // percentileDisc of integers as a float.
            Feature::Percentile => {
                let (e, ty) =
                    if det || self.coin(0.5) { (self.float(1).0, Ty::Float) } else { (self.int(1).0, Ty::Int) };
                let p = if self.boundary(Feature::BoundaryValues) {
                    self.pick(&[0.0, 1.0])
                } else {
                    self.pick(&[0.1, 0.25, 0.5, 0.6, 0.75, 0.9])
                };
                percentile = Some((p, ty.clone()));
                if self.coin(0.5) {
                    ("percentileDisc", Some(e), ty, BIG)
                } else {
                    ("percentileCont", Some(e), Ty::Float, BIG)
                }
            }
            Feature::Min | Feature::Max => {
                let ty = self.scalar_type();
                let e = self.expr(&ty, 1);
                (if choice == Feature::Min { "min" } else { "max" }, Some(e), ty, BIG)
            }
            Feature::Collect => {
                let ty = if self.coin(0.5) { Ty::Int } else { Ty::String };
                let e = self.expr(&ty, 1);
                let e = self.without_aggregates(e, &ty);
                let collected = Expr::aggregate("collect", distinct, e);
                if det {
                    // The order of collect() is the engine's: only its size is compared.
                    self.features.insert(Feature::FnSize);
                    let v = Var { bound: 1 << 40, nullable: false, aggregate: true, ..Var::new(alias, Ty::Int) };
                    return (call(Feature::FnSize, vec![collected]), v);
                }
                let v = Var { nullable: false, aggregate: true, ..Var::new(alias, ty.list()) };
                return (collected, v);
            }
            other => unreachable!("{other:?} is not an aggregate"),
        };
        let arg_ty = match &percentile {
            Some((_, t)) => t.clone(),
            None if matches!(name, "min" | "max") => ty.clone(),
            None => Ty::Int,
        };
        let percentile = percentile.map(|(p, _)| p);
        let arg = arg.map(|e| self.without_aggregates(e, &arg_ty));
        let (name, f) = AGGREGATES.iter().find(|(n, _)| *n == name).copied().unwrap_or(("count", Feature::Count));
        self.features.insert(f);
        let v = Var { bound, nullable: name != "count", aggregate: true, ..Var::new(alias, ty) };
        (
            Expr::Aggregate {
                name: name.into(),
                distinct: distinct && arg.is_some(),
                arg: arg.map(Box::new),
                percentile,
            },
            v,
        )
    }

    /// The RETURN of a later UNION part: the first part's columns and types.
    fn forced_return(&mut self, columns: &[(String, Ty)]) -> (Projection, Columns, Option<Vec<usize>>) {
        let mut items = Vec::new();
        for (name, ty) in columns {
            let existing = self.scope.of_type(ty).next().map(|v| v.name.clone());
            let e = match existing {
                Some(v) if self.coin(0.6) => Expr::var(&v),
                _ => self.expr(ty, 1),
            };
            items.push((e, name.clone()));
        }
        let p = Projection::of(items);
        (p, columns.to_vec(), None)
    }

    fn call(&mut self) -> Option<Clause> {
        if !self.on(Feature::CallSubquery) {
            return None;
        }
        self.features.insert(Feature::CallSubquery);
        let imports: Vec<String> = self.bound_node().map(|v| vec![v.name]).unwrap_or_default();
        let outer = self.scope.clone();
        let mut inner = crate::context::Scope::default();
        for name in &imports {
            if let Some(v) = outer.get(name) {
                inner.bind(v.clone());
            }
        }
        self.scope = inner;
        let m = self.match_clause(false);
        let alias = self.names.fresh("a");
        self.features.insert(Feature::CountStar);
        let ret = Projection {
            distinct: false,
            star: false,
            items: vec![(Expr::count_star(), alias.clone())],
            predicate: None,
            order_by: Vec::new(),
            skip: None,
            limit: None,
        };
        self.scope = outer;
        self.scope.bind(Var { bound: 1 << 40, ..Var::new(alias, Ty::Int) });
        Some(Clause::Call {
            imports,
            body: SingleQuery { clauses: vec![m, Clause::Return(ret)] },
            union_all: Vec::new(),
        })
    }

    fn create(&mut self) -> Clause {
        self.features.insert(Feature::Create);
        let (pattern, vars) = self.create_path();
        for v in vars {
            self.scope.bind(v);
        }
        Clause::Create { patterns: vec![pattern] }
    }

    fn merge(&mut self) -> Clause {
        self.features.insert(Feature::Merge);
        let (pattern, vars) = self.create_path();
        let target = vars.last().cloned();
        let mut on_create = Vec::new();
        let mut on_match = Vec::new();
        if let Some(t) = &target {
            if self.chance(Feature::MergeOnCreate, 0.3)
                && let Some(item) = self.set_property_item(t)
            {
                on_create.push(item);
            }
            if self.chance(Feature::MergeOnMatch, 0.3)
                && let Some(item) = self.set_property_item(t)
            {
                on_match.push(item);
            }
        }
        for v in vars {
            self.scope.bind(v);
        }
        Clause::Merge { pattern, on_create, on_match }
    }

    /// A node or relationship variable certainly bound to an entity.
    fn bound_entity(&mut self) -> Option<Var> {
        let vars: Vec<Var> =
            self.scope.vars().iter().filter(|v| matches!(v.ty, Ty::Node | Ty::Rel) && !v.nullable).cloned().collect();
        (!vars.is_empty()).then(|| vars[self.below(vars.len())].clone())
    }

    fn set_property_item(&mut self, target: &Var) -> Option<SetItem> {
        let keys = self.settable_keys_of(target);
        if keys.is_empty() {
            return None;
        }
        let key = keys[self.below(keys.len())].clone();
        let ty = self.key_type(&key);
        // Literals only: engines disagree on reading a property the same SET writes.
        let value = self.literal(&ty);
        self.remember(&target.tags, &key, &value);
        Some(SetItem::Property(target.name.clone(), key, value))
    }

    fn set(&mut self) -> Option<Clause> {
        let target = self.bound_entity()?;
        let options = [
            (Feature::SetProperty, 4),
            (Feature::SetMergeMap, 1),
            (Feature::SetReplaceMap, 1),
            (Feature::SetLabel, u32::from(target.ty == Ty::Node)),
        ];
        let choice = self.choose(&options)?;
        let item = match choice {
            Feature::SetProperty => self.set_property_item(&target)?,
            Feature::SetMergeMap | Feature::SetReplaceMap => {
                let keys = self.settable_keys_of(&target);
                let chosen: Vec<String> = keys.iter().filter(|_| self.coin(0.5)).take(2).cloned().collect();
                let mut entries = Vec::new();
                for k in chosen {
                    let ty = self.key_type(&k);
                    let value = self.literal(&ty);
                    self.remember(&target.tags, &k, &value);
                    entries.push((k, value));
                }
                if choice == Feature::SetMergeMap {
                    SetItem::MergeMap(target.name.clone(), entries)
                } else {
                    SetItem::ReplaceMap(target.name.clone(), entries)
                }
            }
            Feature::SetLabel => {
                let labels = &self.schema().labels;
                let l = labels[self.below(labels.len())].name.clone();
                SetItem::Label(target.name.clone(), l)
            }
            other => unreachable!("{other:?} is not a SET item"),
        };
        let mut items = vec![item];
        // A second item, on another property: two writes of one property in
        // one SET are ordered by the engine.
        if self.chance(Feature::SetItems, 0.3)
            && let Some(second) = self.bound_entity()
            && let Some(extra) = self.set_property_item(&second)
            && !items.iter().any(|i| same_property(i, &extra))
        {
            items.push(extra);
        }
        Some(Clause::Set { items })
    }

    fn remove(&mut self) -> Option<Clause> {
        let target = self.bound_entity()?;
        let keys = self.keys_of(&target);
        let label = target.ty == Ty::Node && self.chance(Feature::RemoveLabel, 0.3);
        let item = if label {
            let labels =
                if target.tags.is_empty() { vec![self.schema().labels[0].name.clone()] } else { target.tags.clone() };
            RemoveItem::Label(target.name.clone(), labels[self.below(labels.len())].clone())
        } else {
            if keys.is_empty() || !self.on(Feature::RemoveProperty) {
                return None;
            }
            self.features.insert(Feature::RemoveProperty);
            RemoveItem::Property(target.name.clone(), keys[self.below(keys.len())].clone())
        };
        Some(Clause::Remove { items: vec![item] })
    }

    fn delete(&mut self) -> Option<Clause> {
        let target = if self.on(Feature::DetachDelete) {
            self.bound_entity()?
        } else {
            let rels: Vec<Var> = self.scope.of_type(&Ty::Rel).filter(|v| !v.nullable).cloned().collect();
            rels.get(self.below(rels.len().max(1))).cloned()?
        };
        let detach = target.ty == Ty::Node;
        let f = if detach { Feature::DetachDelete } else { Feature::Delete };
        if !self.on(f) {
            return None;
        }
        self.features.insert(f);
        // Anything that may have pointed at what is deleted is out of scope
        // now, where answers are compared; the crash preset goes on writing
        // and reading them (openCypher allows it; engines answer as they will).
        if self.deterministic() {
            self.scope.block_entities();
        }
        Some(Clause::Delete { detach, variables: vec![target.name] })
    }

    fn foreach(&mut self) -> Option<Clause> {
        if !self.on(Feature::Foreach) {
            return None;
        }
        let target = self.bound_node()?;
        let keys = self.keys_of(&target);
        if keys.is_empty() {
            return None;
        }
        self.features.insert(Feature::Foreach);
        let key = keys[self.below(keys.len())].clone();
        let ty = self.key_type(&key);
        let x = self.names.fresh("x");
        let n = self.rng_int(1, 3);
        let list = Expr::List((0..n).map(|_| self.literal(&ty)).collect());
        let body = vec![Clause::Set { items: vec![SetItem::Property(target.name.clone(), key, Expr::var(&x))] }];
        Some(Clause::Foreach { variable: x, list, body })
    }
}
