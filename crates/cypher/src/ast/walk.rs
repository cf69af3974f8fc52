//! Ways through an expression's sub-expressions: the reducer edits them by
//! path, and the checks look at each.

use super::Expr;

impl Expr {
    /// The direct sub-expressions, in rendering order (the reducer replaces
    /// an expression by one of them). Patterns inside are not expressions
    /// and are left out.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Literal(_)
            | Expr::Variable(_)
            | Expr::MapProjection(..)
            | Expr::PatternPredicate(_)
            | Expr::ShortestPath(_)
            | Expr::HasLabels(..) => Vec::new(),
            Expr::Property(e, _) | Expr::Not(e) | Expr::Negate(e) | Expr::IsNull { expr: e, .. } => vec![e],
            Expr::Binary(_, a, b) | Expr::Index(a, b) => vec![a, b],
            Expr::Function(_, args) | Expr::List(args) => args.iter_mut().collect(),
            Expr::Aggregate { arg, .. } => arg.iter_mut().map(|a| a.as_mut()).collect(),
            Expr::Case { subject, branches, otherwise } => {
                let mut out: Vec<&mut Expr> = subject.iter_mut().map(|e| e.as_mut()).collect();
                for (w, t) in branches {
                    out.push(w);
                    out.push(t);
                }
                out.extend(otherwise.iter_mut().map(|e| e.as_mut()));
                out
            }
            Expr::Slice(l, a, b) => {
                let mut out = vec![l.as_mut()];
                out.extend(a.iter_mut().chain(b.iter_mut()).map(|e| e.as_mut()));
                out
            }
            Expr::ListComprehension { list, filter, map, .. } => {
                let mut out = vec![list.as_mut()];
                out.extend(filter.iter_mut().chain(map.iter_mut()).map(|e| e.as_mut()));
                out
            }
            Expr::PatternComprehension { filter, map, .. } => {
                let mut out: Vec<&mut Expr> = filter.iter_mut().map(|e| e.as_mut()).collect();
                out.push(map);
                out
            }
            Expr::Quantified { list, predicate, .. } => vec![list, predicate],
            Expr::Reduce { init, list, step, .. } => vec![init, list, step],
            Expr::Map(entries) | Expr::MapProjectionWith { entries, .. } => {
                entries.iter_mut().map(|(_, e)| e).collect()
            }
            Expr::ExistsSubquery(_, p) => p.iter_mut().map(|e| e.as_mut()).collect(),
        }
    }

    /// The direct sub-expressions, as [`Expr::children_mut`] gives them.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Literal(_)
            | Expr::Variable(_)
            | Expr::MapProjection(..)
            | Expr::PatternPredicate(_)
            | Expr::ShortestPath(_)
            | Expr::HasLabels(..) => Vec::new(),
            Expr::Property(e, _) | Expr::Not(e) | Expr::Negate(e) | Expr::IsNull { expr: e, .. } => vec![e],
            Expr::Binary(_, a, b) | Expr::Index(a, b) => vec![a, b],
            Expr::Function(_, args) | Expr::List(args) => args.iter().collect(),
            Expr::Aggregate { arg, .. } => arg.iter().map(|a| a.as_ref()).collect(),
            Expr::Case { subject, branches, otherwise } => {
                let mut out: Vec<&Expr> = subject.iter().map(|e| e.as_ref()).collect();
                for (w, t) in branches {
                    out.push(w);
                    out.push(t);
                }
                out.extend(otherwise.iter().map(|e| e.as_ref()));
                out
            }
            Expr::Slice(l, a, b) => {
                let mut out = vec![l.as_ref()];
                out.extend(a.iter().chain(b.iter()).map(|e| e.as_ref()));
                out
            }
            Expr::ListComprehension { list, filter, map, .. } => {
                let mut out = vec![list.as_ref()];
                out.extend(filter.iter().chain(map.iter()).map(|e| e.as_ref()));
                out
            }
            Expr::PatternComprehension { filter, map, .. } => {
                let mut out: Vec<&Expr> = filter.iter().map(|e| e.as_ref()).collect();
                out.push(map);
                out
            }
            Expr::Quantified { list, predicate, .. } => vec![list, predicate],
            Expr::Reduce { init, list, step, .. } => vec![init, list, step],
            Expr::Map(entries) | Expr::MapProjectionWith { entries, .. } => entries.iter().map(|(_, e)| e).collect(),
            Expr::ExistsSubquery(_, p) => p.iter().map(|e| e.as_ref()).collect(),
        }
    }

    /// The sub-expression at `path` (child indices from the root), if any.
    pub fn at_mut(&mut self, path: &[usize]) -> Option<&mut Expr> {
        match path.split_first() {
            None => Some(self),
            Some((&i, rest)) => self.children_mut().into_iter().nth(i)?.at_mut(rest),
        }
    }

    /// Every sub-expression's path, this one's (empty) first, parents before children.
    pub fn paths(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new()];
        let mut copy = self.clone();
        for (i, child) in copy.children_mut().into_iter().enumerate() {
            out.extend(child.paths().into_iter().map(|mut p| {
                p.insert(0, i);
                p
            }));
        }
        out
    }

    /// Calls `f` on this expression and every sub-expression.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Literal(_)
            | Expr::Variable(_)
            | Expr::MapProjection(..)
            | Expr::PatternPredicate(_)
            | Expr::ShortestPath(_)
            | Expr::HasLabels(..) => {}
            Expr::Property(e, _) | Expr::Not(e) | Expr::Negate(e) | Expr::IsNull { expr: e, .. } => e.walk(f),
            Expr::Binary(_, a, b) | Expr::Index(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Function(_, args) | Expr::List(args) => args.iter().for_each(|a| a.walk(f)),
            Expr::Aggregate { arg, .. } => {
                if let Some(a) = arg {
                    a.walk(f);
                }
            }
            Expr::Case { subject, branches, otherwise } => {
                for e in subject.iter().chain(otherwise.iter()) {
                    e.walk(f);
                }
                for (w, t) in branches {
                    w.walk(f);
                    t.walk(f);
                }
            }
            Expr::Slice(l, a, b) => {
                l.walk(f);
                for e in a.iter().chain(b.iter()) {
                    e.walk(f);
                }
            }
            Expr::ListComprehension { list, filter, map, .. } => {
                list.walk(f);
                for e in filter.iter().chain(map.iter()) {
                    e.walk(f);
                }
            }
            Expr::PatternComprehension { filter, map, .. } => {
                if let Some(p) = filter {
                    p.walk(f);
                }
                map.walk(f);
            }
            Expr::Quantified { list, predicate, .. } => {
                list.walk(f);
                predicate.walk(f);
            }
            Expr::Reduce { init, list, step, .. } => {
                init.walk(f);
                list.walk(f);
                step.walk(f);
            }
            Expr::Map(entries) | Expr::MapProjectionWith { entries, .. } => entries.iter().for_each(|(_, e)| e.walk(f)),
            Expr::ExistsSubquery(_, p) => {
                if let Some(p) = p {
                    p.walk(f);
                }
            }
        }
    }
}
