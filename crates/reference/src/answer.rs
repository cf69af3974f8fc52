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

/// The class of an error the reference raises, as the openCypher TCK names
/// the errors a scenario expects (`Then a TypeError should be raised`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// An invalid query, refused before it runs: the TCK's class for
    /// undefined variables and misplaced aggregates as well as for syntax.
    Syntax,
    /// A value of the wrong type reached an operator or a function.
    Type,
    /// A function was given an argument outside its domain.
    Argument,
    /// Division by zero or integer overflow (Neo4j's ArithmeticError).
    Arithmetic,
    /// A rule on the graph broke: a node deleted with relationships left.
    Constraint,
    /// A MERGE of a null property (Neo4j's SemanticError).
    Semantic,
}

impl ErrorClass {
    /// The TCK's name of the class.
    pub fn tck_name(self) -> &'static str {
        match self {
            ErrorClass::Syntax => "SyntaxError",
            ErrorClass::Type => "TypeError",
            ErrorClass::Argument => "ArgumentError",
            ErrorClass::Arithmetic => "ArithmeticError",
            ErrorClass::Constraint => "ConstraintVerificationFailed",
            ErrorClass::Semantic => "SemanticError",
        }
    }
}

/// A query without an answer: an error it must raise, or one the
/// reference does not compute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// The error's class, where the query fails (not for `Unsupported`).
    pub class: Option<ErrorClass>,
    /// Why, in words.
    pub message: String,
}

impl Failure {
    /// A type error while the query runs.
    pub(crate) fn runtime(message: impl Into<String>) -> Self {
        Self::raised(ErrorClass::Type, message)
    }

    /// A run-time error of `class`.
    pub(crate) fn raised(class: ErrorClass, message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Runtime, class: Some(class), message: message.into() }
    }

    /// An invalid query, refused before it runs.
    pub(crate) fn semantic(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Semantic, class: Some(ErrorClass::Syntax), message: message.into() }
    }

    /// What Neo4j 5 refuses before running, with the class it raises.
    pub(crate) fn refused(r: graphlancer_cypher::validity::Refusal) -> Self {
        use graphlancer_cypher::validity::Refusal as R;
        let class = match r {
            R::RandomInAggregate
            | R::NestedAggregate
            | R::WrongOperandType
            | R::VariableTypeConflict
            | R::VariableAlreadyBound
            | R::UndefinedVariable
            | R::InvalidAggregation
            | R::ColumnNameConflict
            | R::PatternAsValue => ErrorClass::Syntax,
            R::PropertyOfNonMap => ErrorClass::Type,
            R::StringPositionOutOfRange => ErrorClass::Argument,
        };
        let message = format!("Neo4j 5 refuses {}", r.describe());
        Self { kind: FailureKind::Semantic, class: Some(class), message }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self { kind: FailureKind::Unsupported, class: None, message: message.into() }
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
