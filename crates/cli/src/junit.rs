//! `run --junit FILE`: a campaign's findings as JUnit XML, the format CI
//! systems show as test results. Each finding is a failed test case named
//! by its report folder; a campaign with none is one passing test case.

use std::path::Path;

use anyhow::{Context, Result};
use graphlancer_oracles::Summary;
use graphlancer_oracles::report::read_case;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// Writes `summary`'s findings to `path`.
pub(crate) fn write(path: &Path, summary: &Summary) -> Result<()> {
    let mut suite = TestSuite::new(format!("graphlancer {} (seed {})", summary.dialect, summary.seed));
    suite.set_time(std::time::Duration::from_secs_f64(summary.seconds.max(0.0)));
    let engines: Vec<&str> = summary.engines.iter().map(|e| e.spec.as_str()).collect();
    for (signature, dir) in &summary.findings {
        let dir = Path::new(dir);
        let case = read_case(&dir.join("case.json"))?;
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(case.summary.clone()).set_type(case.oracle.name()).set_description(format!(
            "{}\n\nsignature: {signature}\nreplay: graphlancer replay {}",
            case.query,
            dir.display()
        ));
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        let mut test = TestCase::new(name, status);
        test.set_classname(format!("graphlancer.{}", case.oracle.name()));
        suite.add_test_case(test);
    }
    if summary.findings.is_empty() {
        let mut test =
            TestCase::new(format!("{} queries on {}", summary.queries, engines.join(", ")), TestCaseStatus::success());
        test.set_classname("graphlancer.campaign");
        suite.add_test_case(test);
    }
    let mut report = Report::new("graphlancer");
    report.add_test_suite(suite);
    let xml = report.to_string().context("cannot write JUnit XML")?;
    std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))
}
