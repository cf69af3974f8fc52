//! Typed finding signatures: which oracle, which engines, what kind of
//! fault, and (where the fault alone is too coarse) the clause sequence.
//! Dedup, confirmation, reduction and replay compare these values; the text
//! form (`crash:a+b:internal-error:…`, `differential:a|b:row-count:M,R`) is
//! only for people and folder listings.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::oracle::OracleKind;

/// What kind of wrong a finding shows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fault {
    /// The engine process died or dropped its connection.
    Crash,
    /// The query ran past its timeout.
    Timeout,
    /// The engine reported a fault of its own.
    InternalError {
        /// The message, normalized ([`normalize`]).
        message: String,
    },
    /// A syntax, semantic or unsupported error on a query every engine of
    /// the profile is promised to accept.
    UnexpectedError {
        /// The error class's name.
        class: String,
        /// The message, normalized.
        message: String,
    },
    /// The answers have different numbers of columns.
    ColumnCount,
    /// The answers have different numbers of rows.
    RowCount,
    /// Same number of rows, different values; `columns` names what computes
    /// the differing columns (`fn:startNode`, `agg:max`, ...).
    Values {
        /// The differing columns' kinds, joined by `+`.
        columns: String,
    },
    /// Different values or rows, localized after reduction: the deepest
    /// sub-expression whose values differ on their own ([`crate::localize`]),
    /// as its kind and its operands' types, e.g. `list(Int,Null)`. It keys
    /// one bug whatever expression or clause around it observed the wrong
    /// value.
    Culprit {
        /// What it blames.
        expression: crate::culprit::Culprit,
    },
    /// The same rows in an order the query fixes differently.
    Order,
    /// One answer is a single row of nulls where the other has no row: an
    /// aggregate of nothing, answered once as SQL does and once as Gremlin
    /// does. One fault whatever the query around it.
    NullForNothing,
    /// One engine refuses what another answers.
    Refused {
        /// The refusing engine.
        engine: String,
        /// Its message, normalized.
        message: String,
    },
    /// A relation between the queries of a group does not hold.
    Relation {
        /// The relation's name, e.g. `partition` or `reverse-direction`.
        name: String,
        /// How it failed: `row-count`, `values`, `not-superset`, `error`, ...
        how: String,
    },
}

impl Fault {
    /// Whether the engine failed (died, hung, raised an error) rather than
    /// answering wrongly.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Fault::Crash
                | Fault::Timeout
                | Fault::InternalError { .. }
                | Fault::UnexpectedError { .. }
                | Fault::Refused { .. }
        )
    }

    /// Whether a process died or hung: such a fault is kept even when the
    /// re-run does not repeat it.
    pub fn is_process_fault(&self) -> bool {
        matches!(self, Fault::Crash | Fault::Timeout)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Crash => f.write_str("crash"),
            Fault::Timeout => f.write_str("timeout"),
            Fault::InternalError { message } => write!(f, "internal-error:{message}"),
            Fault::UnexpectedError { class, message } => write!(f, "{class}-error:{message}"),
            Fault::ColumnCount => f.write_str("column-count"),
            Fault::RowCount => f.write_str("row-count"),
            // A family's, or a cause's: whichever columns showed it.
            Fault::Values { columns } if columns.is_empty() => f.write_str("values"),
            Fault::Values { columns } => write!(f, "values:{columns}"),
            Fault::Culprit { expression } if expression.is_rows() => write!(f, "{expression}"),
            Fault::Culprit { expression } => write!(f, "value-of:{expression}"),
            Fault::Order => f.write_str("order"),
            Fault::NullForNothing => f.write_str("null-for-nothing"),
            Fault::Refused { engine, message } => write!(f, "refused:{engine}:{message}"),
            Fault::Relation { name, how } => write!(f, "{name}:{how}"),
        }
    }
}

/// Groups findings that are probably one bug.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signature {
    /// The oracle that found it.
    pub oracle: OracleKind,
    /// The engines it is filed against: every engine with the same fault
    /// (crash), or the pair compared (differential).
    pub engines: Vec<String>,
    /// What kind of wrong it is.
    pub fault: Fault,
    /// Where the fault alone is too coarse: the constructs the query uses
    /// ([`crate::constructs::constructs`]); after reduction, those the
    /// finding needs.
    pub shape: Option<String>,
}

impl Signature {
    /// The signature without its clause sequence, and without the kinds of
    /// the differing columns (reducing a column's expression changes its
    /// kind): what a reduced query must keep showing.
    pub fn family(&self) -> Signature {
        let fault = match &self.fault {
            Fault::Values { .. } | Fault::Culprit { .. } => Fault::Values { columns: String::new() },
            other => other.clone(),
        };
        Signature { shape: None, fault, ..self.clone() }
    }
}

/// The crash site of a pattern that can match nothing ([`crate::impossible`]).
pub const IMPOSSIBLE_SITE: &str = "at:pattern no relationship can match";

/// What the shape of rows sorted differently starts with, before the
/// values the sorts part on ([`crate::oracle::order`]): a name that holds
/// whatever the query around it.
pub const BY: &str = "by:";

/// What the shape of a signature named by its cause starts with
/// ([`crate::cause`]).
pub const CAUSE: &str = "cause:";

/// The shape of a finding the campaign had no time to name: all that was
/// left of it was its constructs, and every mix of them would be a report.
pub const UNNAMED: &str = "unnamed";

impl Signature {
    /// Whether a probe named this finding by its cause, a name that holds
    /// across oracles and whatever the query around it.
    pub fn is_cause(&self) -> bool {
        self.shape.as_deref().is_some_and(|s| s.starts_with(CAUSE))
    }

    /// This signature, or where its shape is the constructs its query uses
    /// (a crash not yet put at a clause, rows not yet localized), the one
    /// [`UNNAMED`] signature of its oracle, engines and fault: a campaign
    /// whose budget for reductions is spent files such findings together,
    /// under one report that `graphlancer reduce` names.
    pub fn unnamed(&self) -> Signature {
        if self.is_cause() {
            return self.clone();
        }
        let constructs =
            matches!(self.fault, Fault::Crash | Fault::Timeout | Fault::RowCount | Fault::ColumnCount | Fault::Order)
                && self.shape.as_deref().is_some_and(|s| !s.starts_with("at:") && !s.starts_with(BY));
        let shape = if constructs { Some(UNNAMED.to_owned()) } else { self.shape.clone() };
        // The kinds of the differing columns are constructs too: on Kuzu
        // 0.1.0 they made 40 reports (`values:op:AND+var:Rel`, ...) of a
        // campaign whose reductions were spent.
        let fault = match &self.fault {
            Fault::Values { .. } => Fault::Values { columns: UNNAMED.to_owned() },
            other => other.clone(),
        };
        Signature { shape, fault, ..self.clone() }
    }

    /// This signature as a name taken from a query no reduction will
    /// shorten: [`Self::unnamed`], and differing values or rows localized,
    /// or a crash put at a clause, go unnamed too. A name that holds
    /// whatever the query around it (an error's message, a crash in
    /// computing a value or on a pattern that matches nothing, a relation
    /// that failed) is kept.
    pub fn unreduced(&self) -> Signature {
        let mut out = self.unnamed();
        if out.is_cause() {
            return out;
        }
        match &out.fault {
            Fault::Culprit { .. } => {
                out.fault = Fault::Values { columns: UNNAMED.to_owned() };
                out.shape = None;
            }
            Fault::Crash | Fault::Timeout => {
                let kept = out.shape.as_deref().is_some_and(|s| s.starts_with("at:value:") || s == IMPOSSIBLE_SITE);
                if !kept {
                    out.shape = Some(UNNAMED.to_owned());
                }
            }
            _ => {}
        }
        out
    }

    /// Whether `judged`, an oracle's verdict on a replay, is this recorded
    /// finding: the same signature, or for one localized after reduction
    /// (which no single judgement computes) the same family.
    pub fn recognizes(&self, judged: &Signature) -> bool {
        // A localized finding (a culprit, or the clause a crash happens at)
        // was named after probes the judgement of one run does not make.
        let localized = matches!(self.fault, Fault::Culprit { .. })
            || (self.fault == Fault::Crash && self.shape.as_deref().is_some_and(|s| s.starts_with("at:")))
            || self.shape.as_deref() == Some(UNNAMED)
            || self.is_cause()
            || matches!(&self.fault, Fault::Values { columns } if columns == UNNAMED);
        self == judged || (localized && self.same_family(judged))
    }

    /// Whether `judged` is of this finding's family: the same engines and
    /// [`Self::same_kind`].
    pub fn same_family(&self, judged: &Signature) -> bool {
        self.engines == judged.engines && self.same_kind(judged)
    }

    /// Whether `judged` shows the same kind of wrong, on whatever engines:
    /// the same oracle and fault family, where a localized finding's is
    /// different values or different rows.
    pub fn same_kind(&self, judged: &Signature) -> bool {
        self.oracle == judged.oracle
            && match self.fault {
                // A row of nulls against no row is localized as rows are.
                Fault::Culprit { .. } => {
                    matches!(judged.fault, Fault::Values { .. } | Fault::RowCount | Fault::NullForNothing)
                }
                _ => self.family().fault == judged.family().fault,
            }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A pair compared reads `a|b`; engines sharing one fault `a+b`.
        let sep = if self.oracle == OracleKind::DIFFERENTIAL { "|" } else { "+" };
        write!(f, "{}:{}:{}", self.oracle.name(), self.engines.join(sep), self.fault)?;
        if let Some(shape) = &self.shape {
            write!(f, ":{shape}")?;
        }
        Ok(())
    }
}

/// An error message with its numbers, quoted names and positions blanked,
/// so the same fault on different data shares one signature. The query's
/// own names (`a3`, `m0`, `n12`: a letter and a number) are numbers too:
/// Kuzu names the column it refuses, and `Multiple result column with the
/// same name a#` and `... m#` were two reports of one bug.
pub fn normalize(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let mut out = String::with_capacity(first.len());
    let mut in_quote = false;
    for c in first.chars() {
        match c {
            '\'' | '`' | '"' => {
                if !in_quote {
                    out.push_str("'…'");
                }
                in_quote = !in_quote;
            }
            _ if in_quote => {}
            c if c.is_ascii_digit() => {
                // A lone small letter before the number is a generated
                // variable (labels and types, `L0` and `T1`, stay apart).
                let mut tail = out.chars().rev();
                if let (Some(l), before) = (tail.next(), tail.next())
                    && l.is_ascii_lowercase()
                    && before.is_none_or(|b| !b.is_alphanumeric() && b != '_')
                {
                    out.pop();
                }
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            c => out.push(c),
        }
    }
    out.chars().take(120).collect()
}

/// What a parse or binder refusal names, from its message: the first line
/// without the query text the engine quotes back (Kuzu's `Invalid input
/// <...>: expected rule ...`, whose quote holds the query's own `<>` and
/// `<-`), so one missing construct is one entry whatever query showed it.
pub fn refused_construct(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    const QUOTE: &str = "Invalid input <";
    let Some(open) = line.find(QUOTE) else { return normalize(line) };
    let rest = &line[open + QUOTE.len()..];
    let close = rest.rfind(">:").or_else(|| rest.rfind('>')).map_or(rest.len(), |i| i + 1);
    normalize(&format!("{}<…>{}", &line[..open + QUOTE.len() - 1], &rest[close..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_named_without_the_query_it_quotes() {
        let a = "Parser exception: Invalid input <MATCH (n0)<-[r1]-(n2) WHERE n0.k <> 1.5e>: expected rule oC_SingleQuery (line: 1, offset: 40)";
        let b = "Parser exception: Invalid input <RETURN 2.5e>: expected rule oC_SingleQuery (line: 1, offset: 9)";
        assert_eq!(refused_construct(a), refused_construct(b));
        assert_eq!(
            refused_construct(b),
            "Parser exception: Invalid input <…>: expected rule oC_SingleQuery (line: #, offset: #)"
        );
        assert_ne!(refused_construct(b), refused_construct("Catalog exception: function TOUPPER does not exist."));
    }

    #[test]
    fn text_form_and_family() {
        let s = Signature {
            oracle: OracleKind::CRASH,
            engines: vec!["a".into(), "b".into()],
            fault: Fault::Crash,
            shape: Some("MATCH,RETURN".into()),
        };
        assert_eq!(s.to_string(), "crash:a+b:crash:MATCH,RETURN");
        assert_eq!(s.family().to_string(), "crash:a+b:crash");
        let d = Signature {
            oracle: OracleKind::DIFFERENTIAL,
            engines: vec!["a".into(), "b".into()],
            fault: Fault::Values { columns: "fn:startNode".into() },
            shape: None,
        };
        assert_eq!(d.to_string(), "differential:a|b:values:fn:startNode");
        // Typed: two signatures whose text could be confused stay apart.
        let r1 = Fault::Refused { engine: "a:b".into(), message: "x".into() };
        let r2 = Fault::Refused { engine: "a".into(), message: "b:x".into() };
        assert_eq!(r1.to_string(), r2.to_string());
        assert_ne!(r1, r2);
        // A localized finding is recognized in the judgement of a replay,
        // whichever kind of difference that judgement names.
        let culprit = Signature {
            fault: Fault::Culprit { expression: crate::culprit::Culprit::RowsAfter("MATCH".into()) },
            ..d.clone()
        };
        for fault in [Fault::RowCount, Fault::NullForNothing, Fault::Values { columns: "agg:min".into() }] {
            assert!(culprit.recognizes(&Signature { fault, ..d.clone() }));
        }
        assert!(!culprit.recognizes(&Signature { fault: Fault::Order, ..d.clone() }));
        let json = serde_json::to_string(&d).expect("serializes");
        assert_eq!(serde_json::from_str::<Signature>(&json).expect("parses"), d);
    }

    #[test]
    fn only_a_list_of_constructs_goes_unnamed() {
        let crash = |shape: &str| Signature {
            oracle: OracleKind::CRASH,
            engines: vec!["a".into()],
            fault: Fault::Crash,
            shape: Some(shape.into()),
        };
        assert_eq!(crash("MATCH,RETURN,fn:trim").unnamed(), crash(UNNAMED));
        assert_eq!(crash("MATCH,UNWIND").unnamed(), crash("RETURN,fn:rtrim").unnamed());
        assert_eq!(crash("at:MATCH").unnamed(), crash("at:MATCH"));
        // Recognized by its family: a replay judges the constructs again.
        assert!(crash(UNNAMED).recognizes(&crash("MATCH,RETURN")));
        let values = Signature {
            oracle: OracleKind::DIFFERENTIAL,
            engines: vec!["a".into(), "b".into()],
            fault: Fault::Values { columns: "fn:left".into() },
            shape: None,
        };
        assert_eq!(values.unnamed().to_string(), "differential:a|b:values:unnamed");
        assert!(values.unnamed().recognizes(&values), "a replay judges the columns again");
        let culprit = Signature {
            fault: Fault::Culprit { expression: "fn:left(String)".parse().expect("culprit") },
            ..values.clone()
        };
        assert_eq!(culprit.unnamed(), culprit, "a localized value keeps its name");
        let rows = Signature { fault: Fault::RowCount, shape: Some("MATCH,WITH".into()), ..values.clone() };
        assert_eq!(rows.unnamed().to_string(), "differential:a|b:row-count:unnamed");
        // Unreduced, a localized name or a clause site goes unnamed too; a
        // value's or an unmatchable pattern's crash, and an error, do not.
        assert_eq!(culprit.unreduced(), values.unnamed());
        assert_eq!(crash("at:MATCH,pattern:hops").unreduced(), crash(UNNAMED));
        assert_eq!(crash("at:value:fn:rtrim").unreduced(), crash("at:value:fn:rtrim"));
        assert_eq!(crash(IMPOSSIBLE_SITE).unreduced(), crash(IMPOSSIBLE_SITE));
        let error =
            Signature { fault: Fault::InternalError { message: "Node # gone".into() }, shape: None, ..crash("") };
        assert_eq!(error.unreduced(), error);
    }

    #[test]
    fn normalize_blanks_numbers_and_quotes() {
        assert_eq!(normalize("Unable to resolve 'n19' at 3"), "Unable to resolve '…' at #");
        assert_eq!(normalize("Node 27 gone\nsecond line"), "Node # gone");
        // A generated name is blanked whole; a type's width is kept.
        assert_eq!(normalize("same name a5 are"), normalize("same name m0 are"));
        assert_eq!(normalize("same name a5 are"), "same name # are");
        assert_eq!(normalize("function +(STRING,INT64)"), "function +(STRING,INT#)");
        assert_eq!(normalize("COLLECT(-(a2,1))"), "COLLECT(-(#,#))");
    }
}
