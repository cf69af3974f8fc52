//! What the reference gives back: an answer, or why there is none, and the
//! limits it runs within.

use graphlancer_model::Value;

/// The reference's answer: columns and rows, in the order a query with
/// ORDER BY fixes (otherwise a bag).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<Value>>,
}

/// Why there is no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The query fails by openCypher's rules while it runs (division by
    /// zero, integer overflow, a type error on data).
    Runtime,
    /// The query is invalid (an unknown variable).
    Semantic,
    /// The reference does not compute this, or engines may rightly differ.
    Unsupported,
}

/// A query without an answer: an error it must raise, or one the
/// reference does not compute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// Why, in words.
    pub message: String,
}

impl Failure {
    pub(crate) fn runtime(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Runtime, message: message.into() }
    }

    pub(crate) fn semantic(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Semantic, message: message.into() }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Unsupported, message: message.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// How far the reference goes before it gives up (`unsupported`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Rows one clause may hold.
    pub max_rows: usize,
    /// When to stop.
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_rows: 100_000, deadline: None }
    }
}
