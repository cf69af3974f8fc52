//! Causes that name a finding whatever oracle showed it.
//!
//! A signature names what its oracle saw: a crash by its message, a pair's
//! difference by the value that differs. One engine bug can show to two
//! oracles, and to one oracle in several ways, so these names split it.
//! Where a probe finds the cause itself (the finding vanishes once a
//! rewrite that keeps the query's meaning takes the cause away), the
//! signature's shape holds the cause, and any report of that cause on an
//! engine the finding is filed against is its report.

use graphlancer_engines::REFERENCE;

use crate::signature::Signature;

/// A variable bound to an aggregate's result and read again later, under
/// another name or in an expression (`crate::reduce`'s alias probe).
pub const AGGREGATE_ALIAS: &str = "cause:a read of an aggregate's variable";

/// Of `reports`, the first named by `s`'s cause and filed against an
/// engine `s` is, the reference apart (every pair with it holds it); none
/// where `s` is not named by a cause.
pub fn report_for<'a>(s: &Signature, mut reports: impl Iterator<Item = &'a Signature>) -> Option<&'a Signature> {
    if !s.is_cause() {
        return None;
    }
    let shared = |r: &Signature| r.engines.iter().any(|e| e != REFERENCE && s.engines.contains(e));
    reports.find(|r| r.shape == s.shape && shared(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::OracleKind;
    use crate::signature::Fault;

    fn named(oracle: OracleKind, engines: &[&str], fault: Fault, shape: &str) -> Signature {
        Signature {
            oracle,
            engines: engines.iter().map(|e| (*e).to_owned()).collect(),
            fault,
            shape: Some(shape.to_owned()),
        }
    }

    #[test]
    fn a_cause_spans_oracles_and_faults_on_a_shared_engine() {
        let crash = named(
            OracleKind::CRASH,
            &["kuzu@0.1.0"],
            Fault::InternalError { message: "Cannot evaluate expression with type PROPERTY.".into() },
            AGGREGATE_ALIAS,
        );
        let pair = named(OracleKind::DIFFERENTIAL, &["reference", "kuzu@0.1.0"], Fault::RowCount, AGGREGATE_ALIAS);
        let other = named(OracleKind::DIFFERENTIAL, &["reference", "kuzu@0.5.0"], Fault::RowCount, AGGREGATE_ALIAS);
        assert_eq!(report_for(&pair, [&other, &crash].into_iter()), Some(&crash));
        assert_eq!(report_for(&pair, [&other].into_iter()), None);
        // A signature named by a site is no cause's.
        let site = named(OracleKind::DIFFERENTIAL, &["reference", "kuzu@0.1.0"], Fault::RowCount, "MATCH,RETURN");
        assert!(!site.is_cause());
        assert_eq!(report_for(&site, [&crash].into_iter()), None);
    }
}
