//! The rows a query returned.

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// Columns and rows as one engine returned them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultSet {
    /// Column names in the engine's order.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<Value>>,
}

impl ResultSet {
    /// A result with the given columns and rows.
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Value>>) -> Self {
        Self { columns, rows }
    }

    /// The single value of a one-row, one-column result.
    pub fn scalar(&self) -> Option<&Value> {
        match self.rows.as_slice() {
            [row] if row.len() == 1 => row.first(),
            _ => None,
        }
    }
}
