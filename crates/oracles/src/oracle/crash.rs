//! The crash oracle: a crash, a hang or an internal error on a valid query,
//! on any engine. It judges every query a campaign runs, one at a time.

use graphlancer_engines::{ErrorClass, Outcome};

use crate::oracle::{Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict};
use crate::signature::{Fault, Signature, normalize};

/// Crashes, hangs and internal errors.
pub struct Crash;

/// What went wrong on an engine, if it is the crash oracle's business.
fn fault(o: &Outcome) -> Option<Fault> {
    match o {
        Outcome::Crash { .. } => Some(Fault::Crash),
        Outcome::Timeout { .. } => Some(Fault::Timeout),
        Outcome::Error { class: ErrorClass::Internal, message } => {
            Some(Fault::InternalError { message: normalize(message) })
        }
        _ => None,
    }
}

/// Judges one query's outcomes with `fault`: every engine showing the first
/// fault found is named, so one shared by all is a bug of them all.
pub(crate) fn judge_each(
    kind: OracleKind,
    cx: &JudgeCx<'_>,
    case: &TestCase,
    outcomes: &[Vec<Outcome>],
    fault: impl Fn(&Outcome) -> Option<Fault>,
    describe: impl Fn(&Fault) -> String,
) -> Verdict {
    for (q, (query, row)) in case.queries.iter().zip(outcomes).enumerate() {
        let Some(first) = row.iter().find_map(&fault) else { continue };
        let names: Vec<String> = cx
            .names
            .iter()
            .zip(row)
            .filter(|(_, o)| fault(o).as_ref() == Some(&first))
            .map(|(n, _)| n.clone())
            .collect();
        let summary = format!("{}: {}", names.join("+"), describe(&first));
        // A message names an internal error well enough; a crash or a hang
        // is told apart by the shape of the query that caused it.
        let shape = matches!(first, Fault::Crash | Fault::Timeout).then(|| query.constructs());
        return Verdict::Finding(Finding {
            signature: Signature { oracle: kind, engines: names, fault: first, shape },
            summary,
            relation: None,
            query: Some(q),
        });
    }
    Verdict::Pass
}

impl Oracle for Crash {
    fn kind(&self) -> OracleKind {
        OracleKind::CRASH
    }

    fn about(&self) -> &'static str {
        "crashes, hangs and internal errors on valid queries"
    }

    fn runs_by_default(&self, _: usize) -> bool {
        true
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
        judge_each(OracleKind::CRASH, cx, case, outcomes, fault, |f| {
            let what = match f {
                Fault::Crash => "crash",
                Fault::Timeout => "timeout",
                _ => "internal-error",
            };
            format!("{what} on a valid query")
        })
    }
}
