//! Verdicts: the differential oracle (one query, several engines: rows are
//! compared canonically, a query one engine answers and another refuses is a
//! finding) and the crash oracle (a crash, a hang or an internal error on a
//! valid query). Pure: the outcomes come in, a verdict goes out.

use graphlancer_engines::{ErrorClass, Outcome};
use graphlancer_model::{Comparison, Difference, ResultSet, RowOrder, Tolerance, Value, compare};
use serde::{Deserialize, Serialize};

/// The oracles a campaign can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OracleKind {
    /// Compare one query's answers across engines, versions or settings.
    Differential,
    /// Crashes, hangs and internal errors on valid queries.
    Crash,
}

impl OracleKind {
    /// The oracle's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OracleKind::Differential => "differential",
            OracleKind::Crash => "crash",
        }
    }
}

impl std::str::FromStr for OracleKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "differential" => Ok(OracleKind::Differential),
            "crash" => Ok(OracleKind::Crash),
            other => Err(format!("unknown oracle '{other}' (known: differential, crash)")),
        }
    }
}

/// What an oracle concluded about one test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Nothing wrong.
    Pass,
    /// Something is wrong.
    Finding {
        /// The oracle that found it.
        oracle: OracleKind,
        /// Groups findings that are probably one bug: the family plus, where
        /// the family alone is too coarse, the query's clause sequence.
        signature: String,
        /// What kind of wrong it is, whatever the query: a reduced query must
        /// keep its family.
        family: String,
        /// One line for people.
        summary: String,
    },
}

/// Judges the outcomes of one query on `engines` (names in the same order).
/// The crash oracle speaks first: a crashed engine has no answer to compare.
pub fn judge(
    oracles: &[OracleKind],
    engines: &[String],
    outcomes: &[Outcome],
    order: Option<&[usize]>,
    clause_shape: &str,
    column_kinds: &[String],
) -> Verdict {
    if oracles.contains(&OracleKind::Crash) {
        // What went wrong on an engine, as a family tail: `crash`, `timeout`,
        // `internal-error:<message>`.
        let fault = |o: &Outcome| match o {
            Outcome::Crash { .. } => Some("crash".to_owned()),
            Outcome::Timeout { .. } => Some("timeout".to_owned()),
            Outcome::Error { class: ErrorClass::Internal, message } => {
                Some(format!("internal-error:{}", normalize(message)))
            }
            _ => None,
        };
        if let Some(first) = outcomes.iter().find_map(fault) {
            // Every engine with the same fault is named: one shared by all is
            // a bug of them all, not of the first.
            let names: Vec<&str> = engines
                .iter()
                .zip(outcomes)
                .filter(|(_, o)| fault(o).as_deref() == Some(first.as_str()))
                .map(|(n, _)| n.as_str())
                .collect();
            let who = names.join("+");
            let kind = first.split(':').next().unwrap_or("crash").to_owned();
            let family = format!("crash:{who}:{first}");
            let signature = if kind == "internal-error" { family.clone() } else { format!("{family}:{clause_shape}") };
            return Verdict::Finding {
                oracle: OracleKind::Crash,
                signature,
                family,
                summary: format!("{who}: {kind} on a valid query"),
            };
        }
    }
    if !oracles.contains(&OracleKind::Differential) || outcomes.len() < 2 {
        return Verdict::Pass;
    }
    let order = order.map_or(RowOrder::Bag, |keys| RowOrder::SortedBy(keys.to_vec()));
    let (first_name, first) = (&engines[0], &outcomes[0]);
    for (name, other) in engines.iter().zip(outcomes).skip(1) {
        let found = |family: String, detail: Option<&str>, summary: String| Verdict::Finding {
            oracle: OracleKind::Differential,
            signature: match detail {
                Some(d) => format!("differential:{first_name}|{name}:{family}:{d}"),
                None => format!("differential:{first_name}|{name}:{family}"),
            },
            family: format!("differential:{first_name}|{name}:{family}"),
            summary,
        };
        match (first, other) {
            (Outcome::Rows(a), Outcome::Rows(b)) => {
                if let Comparison::Differ(d) = compare(a, b, &order, Tolerance::default()) {
                    let (family, detail) = match &d {
                        Difference::ColumnCount { .. } => ("column-count".to_owned(), Some(clause_shape)),
                        Difference::Rows { .. } if a.rows.len() != b.rows.len() => {
                            ("row-count".to_owned(), Some(clause_shape))
                        }
                        // Same number of rows: name the columns whose values
                        // differ by what computes them, which groups one
                        // fault's many queries under one signature.
                        Difference::Rows { .. } => (format!("values:{}", differing_columns(a, b, column_kinds)), None),
                        Difference::Order { .. } => ("order".to_owned(), Some(clause_shape)),
                    };
                    let summary = format!("{first_name} and {name} return different results ({family})");
                    return found(family, detail, summary);
                }
            }
            (Outcome::Rows(_), Outcome::Error { class, message })
            | (Outcome::Error { class, message }, Outcome::Rows(_)) => {
                let refusing = if matches!(first, Outcome::Error { .. }) { first_name } else { name };
                return found(
                    format!("refused:{refusing}:{}", normalize(message)),
                    None,
                    format!("{refusing} refuses ({}) a query the other engine answers", class.name()),
                );
            }
            // Both refuse: classes come from each engine's own wording, so
            // they are not compared. Crashes and hangs are the crash oracle's.
            _ => {}
        }
    }
    Verdict::Pass
}

/// The kinds of the columns whose values differ as multisets.
fn differing_columns(a: &ResultSet, b: &ResultSet, kinds: &[String]) -> String {
    let column = |r: &ResultSet, j: usize| {
        ResultSet::new(
            vec![String::new()],
            r.rows.iter().map(|row| vec![row.get(j).cloned().unwrap_or(Value::Null)]).collect(),
        )
    };
    let mut differing: Vec<String> = (0..a.columns.len().max(b.columns.len()))
        .filter(|&j| compare(&column(a, j), &column(b, j), &RowOrder::Bag, Tolerance::default()) != Comparison::Equal)
        .map(|j| kinds.get(j).cloned().unwrap_or_else(|| "column".into()))
        .collect();
    differing.sort();
    differing.dedup();
    if differing.is_empty() { "combination".into() } else { differing.join("+") }
}

/// An error message with its numbers, quoted names and positions blanked,
/// so the same fault on different data shares one signature.
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
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            c => out.push(c),
        }
    }
    out.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[i64]) -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], v.iter().map(|i| vec![Value::Int(*i)]).collect()))
    }

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    const BOTH: [OracleKind; 2] = [OracleKind::Differential, OracleKind::Crash];

    #[test]
    fn equal_bags_pass_and_different_ones_do_not() {
        assert_eq!(judge(&BOTH, &names(), &[rows(&[1, 2]), rows(&[2, 1])], None, "M,R", &[]), Verdict::Pass);
        let v = judge(&BOTH, &names(), &[rows(&[1, 2]), rows(&[1])], None, "M,R", &[]);
        assert!(
            matches!(v, Verdict::Finding { oracle: OracleKind::Differential, ref signature, .. } if signature.contains("row-count"))
        );
        let v = judge(&BOTH, &names(), &[rows(&[1, 2]), rows(&[2, 1])], Some(&[0]), "M,R", &[]);
        assert!(matches!(v, Verdict::Finding { ref signature, .. } if signature.contains(":order:")));
    }

    #[test]
    fn same_row_count_names_the_differing_columns() {
        let two = |a: i64, b: i64| {
            Outcome::Rows(ResultSet::new(vec!["x".into(), "y".into()], vec![vec![Value::Int(a), Value::Int(b)]]))
        };
        let kinds = ["var:Int".to_owned(), "fn:startNode".to_owned()];
        let v = judge(&BOTH, &names(), &[two(1, 2), two(1, 3)], None, "M,R", &kinds);
        assert!(
            matches!(v, Verdict::Finding { ref signature, .. } if signature == "differential:a|b:values:fn:startNode"),
            "{v:?}"
        );
    }

    #[test]
    fn refusals_crashes_and_internal_errors() {
        let refused = Outcome::Error { class: ErrorClass::Runtime, message: "Unable to resolve 'n19' at 3".into() };
        let v = judge(&BOTH, &names(), &[rows(&[1]), refused.clone()], None, "M,R", &[]);
        assert!(
            matches!(v, Verdict::Finding { ref signature, .. } if signature == "differential:a|b:refused:b:Unable to resolve '…' at #")
        );
        assert_eq!(judge(&BOTH, &names(), &[refused.clone(), refused], None, "M,R", &[]), Verdict::Pass);
        let crash = Outcome::Crash { message: "gone".into() };
        let v = judge(&BOTH, &names(), &[rows(&[1]), crash.clone()], None, "M,R", &[]);
        assert!(
            matches!(v, Verdict::Finding { oracle: OracleKind::Crash, ref signature, .. } if signature == "crash:b:crash:M,R")
        );
        assert_eq!(judge(&[OracleKind::Differential], &names(), &[rows(&[1]), crash], None, "M,R", &[]), Verdict::Pass);
        let internal = Outcome::Error { class: ErrorClass::Internal, message: "Node 27 gone".into() };
        assert!(matches!(
            judge(&[OracleKind::Crash], &names()[..1], std::slice::from_ref(&internal), None, "M,R", &[]),
            Verdict::Finding { .. }
        ));
        // The same fault on both engines names both.
        let v = judge(&BOTH, &names(), &[internal.clone(), internal], None, "M,R", &[]);
        assert!(
            matches!(v, Verdict::Finding { ref signature, .. } if signature == "crash:a+b:internal-error:Node # gone"),
            "{v:?}"
        );
    }
}
