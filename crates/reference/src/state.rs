//! The evaluator's state over one store: the rows it passes between
//! clauses and the budget of work it may spend.

use std::collections::BTreeMap;

use crate::Failure;
use crate::store::Store;
use crate::value::V;

/// A row: variables and their values.
pub(crate) type Row = BTreeMap<String, V>;

/// The evaluator over one store.
pub(crate) struct Ev<'s> {
    pub(crate) store: &'s mut Store,
    pub(crate) limits: crate::Limits,
    /// Steps taken, for the deadline checks.
    work: std::cell::Cell<u64>,
}

impl<'s> Ev<'s> {
    pub(crate) fn new(store: &'s mut Store, limits: crate::Limits) -> Self {
        Self { store, limits, work: std::cell::Cell::new(0) }
    }

    /// One step of work: past the deadline, or with more rows in hand than
    /// the limit, the reference gives up rather than fill memory.
    pub(crate) fn tick(&self, rows: usize) -> Result<(), Failure> {
        let w = self.work.get() + 1;
        self.work.set(w);
        if rows > self.limits.max_rows {
            return Err(Failure::unsupported(format!("more than {} rows in one clause", self.limits.max_rows)));
        }
        if w.is_multiple_of(256) && self.limits.deadline.is_some_and(|d| std::time::Instant::now() > d) {
            return Err(Failure::unsupported("the reference ran out of time"));
        }
        Ok(())
    }

    pub(crate) fn lookup(&self, v: &str, row: &Row) -> Result<V, Failure> {
        row.get(v).cloned().ok_or_else(|| Failure::semantic(format!("variable {v} not defined")))
    }
}
