//! The typed context that follows a query clause by clause: the variables in
//! scope, those blocked after DELETE, and fresh names.

use crate::types::{Ty, Var};

/// Variables visible to the next clause.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    vars: Vec<Var>,
}

impl Scope {
    /// All variables, in the order they were bound.
    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    /// Binds a variable (replacing one of the same name).
    pub fn bind(&mut self, var: Var) {
        self.vars.retain(|v| v.name != var.name);
        self.vars.push(var);
    }

    /// Looks a variable up.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }

    /// Variables of type `ty`.
    pub fn of_type<'a>(&'a self, ty: &'a Ty) -> impl Iterator<Item = &'a Var> + 'a {
        self.vars.iter().filter(move |v| &v.ty == ty)
    }

    /// Removes variables that may refer to deleted entities: after a DELETE
    /// only scalars, lists and maps of scalars stay usable.
    pub fn block_entities(&mut self) {
        self.vars.retain(|v| !v.ty.is_entity() && !matches!(&v.ty, Ty::List(t) if t.is_entity()) && v.ty != Ty::Map);
    }

    /// Replaces the scope with exactly these variables (after WITH).
    pub fn replace(&mut self, vars: Vec<Var>) {
        self.vars = vars;
    }

    /// Whether nothing is in scope.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

/// Fresh variable names, unique over a whole query.
#[derive(Debug, Clone, Default)]
pub struct Names {
    next: usize,
}

impl Names {
    /// Names that continue after those a query already uses.
    pub fn after(text: &str) -> Self {
        // Generated names are a short lowercase prefix and a number.
        let mut next = 0;
        for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            let digits = word.trim_start_matches(|c: char| c.is_ascii_lowercase());
            if digits.len() < word.len()
                && let Ok(n) = digits.parse::<usize>()
            {
                next = next.max(n + 1);
            }
        }
        Self { next }
    }

    /// A new name with a prefix saying what it holds: `n` nodes, `r`
    /// relationships, `p` paths, `a` aliases, `x` loop variables.
    pub fn fresh(&mut self, prefix: &str) -> String {
        let n = self.next;
        self.next += 1;
        format!("{prefix}{n}")
    }
}
