//! The unexpected-error oracle: the generator promises queries every engine
//! of the profile accepts, so a syntax, semantic or unsupported error on one
//! is a finding: a generator defect or an engine bug, which triage tells.
//! Runtime errors (division by zero, overflow on data) are answers, not
//! findings: whether they happen depends on the data.

use graphlancer_cypher::validity::neo4j_refuses;
use graphlancer_engines::{ErrorClass, Outcome};

use crate::oracle::crash::judge_each;
use crate::oracle::{JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::signature::{Fault, refused_construct};

/// Errors a valid query must not draw.
pub struct UnexpectedError;

fn fault(o: &Outcome) -> Option<Fault> {
    match o {
        Outcome::Error {
            class: class @ (ErrorClass::Syntax | ErrorClass::Semantic | ErrorClass::Unsupported),
            message,
        } => Some(Fault::UnexpectedError { class: class.name().to_owned(), message: refused_construct(message) }),
        _ => None,
    }
}

impl Oracle for UnexpectedError {
    fn kind(&self) -> OracleKind {
        OracleKind::ERROR
    }

    fn about(&self) -> &'static str {
        "syntax, semantic and unsupported errors on queries Neo4j 5 accepts"
    }

    fn speaks_gremlin(&self) -> bool {
        true
    }

    fn reads_values(&self) -> bool {
        false
    }

    fn per_query(&self) -> bool {
        true
    }

    fn judge(&self, cx: &JudgeCx<'_>, case: &TestCase, outcomes: &[Vec<Outcome>]) -> Verdict {
        // Valid means what Neo4j 5 accepts: its refusals are no engine's bug.
        if case.queries.iter().any(|q| q.cypher_ast().is_some_and(|a| neo4j_refuses(a).is_some())) {
            return Verdict::Skip("Neo4j 5 refuses the query too");
        }
        judge_each(OracleKind::ERROR, cx, case, outcomes, fault, |f| match f {
            Fault::UnexpectedError { class, .. } => {
                format!("{class} error on a query the dialect profile says the engine accepts")
            }
            other => other.to_string(),
        })
    }
}
