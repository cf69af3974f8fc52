//! What one query did on one engine.

use graphlancer_model::ResultSet;
use serde::{Deserialize, Serialize};

/// The answer of an engine to one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// The query ran and returned these rows (none for a write without RETURN).
    Rows(ResultSet),
    /// The engine refused or failed the query with an error message.
    Error {
        /// The kind of error, comparable across engines.
        class: ErrorClass,
        /// The engine's message, never compared across engines.
        message: String,
    },
    /// The engine process died or dropped the connection.
    Crash {
        /// What was seen: exit status, last lines of its log.
        message: String,
    },
    /// The answer had more rows than graphlancer keeps; it is not compared.
    TooLarge {
        /// The cap it passed.
        max_rows: usize,
    },
    /// The query ran past its timeout.
    Timeout {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// graphlancer could not read the engine's answer (a value its decoder
    /// does not know, a reply its client library cannot parse): a fault of
    /// the harness, never compared and never a finding, always counted.
    Undecodable {
        /// What could not be read.
        message: String,
    },
    /// The engine gives no answer and claims none: graphlancer's reference,
    /// where it does not model the query or correct engines may answer
    /// differently. Never compared and never a finding, counted as `open`.
    Open {
        /// Why there is no answer.
        reason: String,
    },
}

/// Kinds of query error. Oracles compare these, never message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorClass {
    /// The text does not parse.
    Syntax,
    /// It parses but is invalid: unknown variable, wrong argument type known statically.
    Semantic,
    /// Valid Cypher the engine does not implement.
    Unsupported,
    /// Failed while running: division by zero, overflow, type error on data.
    Runtime,
    /// The engine reports a fault of its own (assertion, internal error).
    Internal,
}

impl ErrorClass {
    /// The class's name in lower case.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Syntax => "syntax",
            ErrorClass::Semantic => "semantic",
            ErrorClass::Unsupported => "unsupported",
            ErrorClass::Runtime => "runtime",
            ErrorClass::Internal => "internal",
        }
    }
}

impl Outcome {
    /// One word for the kind of outcome: `rows`, an error class, `crash`, `timeout`.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Rows(_) => "rows",
            Outcome::Error { class, .. } => class.name(),
            Outcome::Crash { .. } => "crash",
            Outcome::Timeout { .. } => "timeout",
            Outcome::TooLarge { .. } => "too-large",
            Outcome::Undecodable { .. } => "undecodable",
            Outcome::Open { .. } => "open",
        }
    }

    /// Whether this is graphlancer's own failure to read an answer.
    pub fn is_harness_fault(&self) -> bool {
        matches!(self, Outcome::Undecodable { .. })
    }

    /// The rows, when the query returned some.
    pub fn rows(&self) -> Option<&ResultSet> {
        match self {
            Outcome::Rows(r) => Some(r),
            _ => None,
        }
    }
}
