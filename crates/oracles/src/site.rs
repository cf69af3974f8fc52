//! Clause sites that name a finding, and when one names another's bug.
//!
//! A crash put at a clause (`at:MATCH,pattern:type alternatives`) and rows
//! that part after one (`rows-after(MATCH,pattern:hops)`) are named by the
//! clause and the constructs of it the fault still needs once the clause's
//! edits were tried. An edit that was not tried (the budget ran out) or did
//! not show the fault again (Kuzu 0.1.0 crashes now and then) leaves a
//! construct in the name the bug does not need: Kuzu 0.1.0's crash on a
//! type alternative came as `at:MATCH,...`, `at:OPTIONAL MATCH,...`, with
//! hops, with properties, five reports for one bug. A site holding every
//! construct of a site a report already has, and more, is that report's,
//! unless a finished reduction named it: then the edits that would take
//! the extra constructs away were tried, and the bug needs them.

use std::collections::BTreeSet;

use crate::culprit::Culprit;
use crate::signature::{Fault, Signature};

/// The clause of `s`'s site and its constructs, an OPTIONAL MATCH being a
/// MATCH with `OPTIONAL`; none where `s` is not named by a clause (a crash
/// at a value, a grouping's keys, any other fault).
fn site(s: &Signature) -> Option<(&str, BTreeSet<&str>)> {
    let text = match &s.fault {
        Fault::Crash => s.shape.as_deref()?.strip_prefix("at:").filter(|t| !t.starts_with("value:"))?,
        Fault::Culprit { expression: Culprit::RowsAfter(shape) } => shape.as_str(),
        _ => return None,
    };
    let mut parts = text.split(',');
    let first = parts.next()?;
    let mut constructs: BTreeSet<&str> = parts.collect();
    let clause = match first.strip_prefix("OPTIONAL ") {
        Some(clause) => {
            constructs.insert("OPTIONAL");
            clause
        }
        None => first,
    };
    Some((clause, constructs))
}

/// Whether a finding named `narrow` is the bug of the report named `broad`:
/// the same oracle, engines, kind of fault and clause, and `narrow`'s site
/// holds all of `broad`'s constructs and more. A site of a clause alone (or
/// an OPTIONAL one) names too little to stand for others.
pub fn within(narrow: &Signature, broad: &Signature) -> bool {
    if narrow.oracle != broad.oracle
        || narrow.engines != broad.engines
        || std::mem::discriminant(&narrow.fault) != std::mem::discriminant(&broad.fault)
    {
        return false;
    }
    let (Some((nc, n)), Some((bc, b))) = (site(narrow), site(broad)) else { return false };
    // Only a clause's constructs may be extra (`pattern:hops`, `OPTIONAL`):
    // another clause part (a FOREACH around a CREATE) is another site.
    let extra_is_construct = n.difference(&b).all(|c| c.contains(':') || *c == "OPTIONAL");
    nc == bc && b.iter().any(|c| *c != "OPTIONAL") && b.len() < n.len() && b.is_subset(&n) && extra_is_construct
}

/// Of `reports`, the one whose bug a finding named `s` is, if any: the one
/// with the fewest constructs, the first in order among those.
pub fn report_for<'a>(s: &Signature, reports: impl Iterator<Item = &'a Signature>) -> Option<&'a Signature> {
    reports.filter(|r| within(s, r)).min_by_key(|r| site(r).map_or(usize::MAX, |(_, c)| c.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::OracleKind;

    fn crash(at: &str) -> Signature {
        Signature {
            oracle: OracleKind::CRASH,
            engines: vec!["kuzu@0.1.0".into()],
            fault: Fault::Crash,
            shape: Some(format!("at:{at}")),
        }
    }

    fn rows(shape: &str) -> Signature {
        Signature {
            oracle: OracleKind::DIFFERENTIAL,
            engines: vec!["reference".into(), "kuzu@0.1.0".into()],
            fault: Fault::Culprit { expression: Culprit::RowsAfter(shape.into()) },
            shape: None,
        }
    }

    #[test]
    fn a_site_with_more_constructs_is_the_report_with_fewer() {
        let broad = crash("MATCH,pattern:type alternatives");
        for narrow in [
            "MATCH,pattern:hops,pattern:type alternatives",
            "OPTIONAL MATCH,pattern:type alternatives",
            "OPTIONAL MATCH,pattern:properties,pattern:type alternatives",
        ] {
            assert!(within(&crash(narrow), &broad), "{narrow}");
        }
        assert!(within(
            &rows("MATCH,pattern:hops,pattern:type alternatives"),
            &rows("MATCH,pattern:type alternatives")
        ));
    }

    #[test]
    fn other_sites_faults_and_engines_stay_apart() {
        let broad = crash("MATCH,pattern:type alternatives");
        // Equal, another construct, another clause, a value.
        assert!(!within(&broad, &broad));
        assert!(!within(&crash("MATCH,pattern:hops"), &broad));
        assert!(!within(&crash("projection,pattern:type alternatives,DISTINCT"), &broad));
        // An extra clause part is not a construct of the same clause.
        assert!(!within(&crash("CREATE,FOREACH,pattern:hops"), &crash("CREATE,pattern:hops")));
        assert!(!within(&crash("MATCH,WHERE,pattern:type alternatives"), &broad));
        assert!(!within(&crash("value:fn:trim"), &crash("value:fn")));
        // A clause alone names no construct.
        assert!(!within(&crash("MATCH,pattern:hops"), &crash("MATCH")));
        assert!(!within(&crash("OPTIONAL MATCH,pattern:hops"), &crash("OPTIONAL MATCH")));
        // Another kind of fault or other engines.
        assert!(!within(&rows("MATCH,pattern:hops,pattern:type alternatives"), &broad));
        let mut elsewhere = crash("MATCH,pattern:hops,pattern:type alternatives");
        elsewhere.engines = vec!["kuzu@0.6.0".into()];
        assert!(!within(&elsewhere, &broad));
    }

    #[test]
    fn the_report_with_fewest_constructs_is_chosen() {
        let reports = [crash("MATCH,pattern:hops,pattern:type alternatives"), crash("MATCH,pattern:type alternatives")];
        let s = crash("OPTIONAL MATCH,pattern:hops,pattern:type alternatives");
        assert_eq!(report_for(&s, reports.iter()), Some(&reports[1]));
        assert_eq!(report_for(&crash("MATCH,WHERE"), reports.iter()), None);
    }
}
