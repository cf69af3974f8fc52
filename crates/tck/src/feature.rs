//! The openCypher TCK's feature files as scenarios: the graph a scenario
//! starts from, the query, and what must come out. Scenario outlines are
//! expanded, one scenario per example row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gherkin::{GherkinEnv, Step, Table};

/// One scenario of a feature file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The feature file, relative to the folder read.
    pub file: String,
    /// The scenario's name, with the example row for an outline.
    pub name: String,
    /// A named graph the scenario starts from (`binary-tree-1`); none for
    /// an empty graph.
    pub named_graph: Option<String>,
    /// Queries that build the starting graph, in order.
    pub setup: Vec<String>,
    /// What, outside the query language, the scenario needs and the runner
    /// does not provide (parameters, procedures, a control query).
    pub needs: Vec<&'static str>,
    /// The query under test.
    pub query: String,
    /// What it must give.
    pub expect: Expect,
    /// The side effects it must have, by the TCK's names (`+nodes`), where
    /// the scenario says.
    pub side_effects: Option<BTreeMap<String, usize>>,
}

/// What a scenario's query must give.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// These rows; cells in the TCK's value syntax.
    Rows {
        /// Column names.
        columns: Vec<String>,
        /// Cells, row by row.
        rows: Vec<Vec<String>>,
        /// Whether the rows' order matters.
        ordered: bool,
        /// Whether lists compare as bags.
        unordered_lists: bool,
    },
    /// No rows.
    Empty,
    /// An error: its type (`SyntaxError`), when it is raised (`compile
    /// time`, `runtime`, `any time`) and its detail (`UndefinedVariable`).
    Error {
        /// The error type.
        kind: String,
        /// When it is raised.
        phase: String,
        /// The detail code.
        detail: String,
    },
}

/// A feature file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The folder has no feature files.
    #[error("{0} holds no .feature files (give the TCK's tck/features folder)")]
    Empty(PathBuf),
    /// A file or folder could not be read.
    #[error("cannot read {path}: {detail}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        detail: String,
    },
}

/// The scenarios under a folder, and the files that could not be read.
#[derive(Debug, Default)]
pub struct Suite {
    /// Every scenario read, files in path order.
    pub scenarios: Vec<Scenario>,
    /// Feature files the Gherkin parser refused, with why: they are
    /// reported, not silently dropped.
    pub unreadable: Vec<(String, String)>,
}

/// Every scenario under `dir`, files in path order.
///
/// # Errors
/// A folder without feature files, or one that cannot be read.
pub fn read_dir(dir: &Path) -> Result<Suite, ReadError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    if files.is_empty() {
        return Err(ReadError::Empty(dir.to_owned()));
    }
    files.sort();
    let mut out = Suite::default();
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| ReadError::Io { path: file.clone(), detail: e.to_string() })?;
        let rel = file.strip_prefix(dir).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        match read_feature(&rel, &text) {
            Ok(scenarios) => out.scenarios.extend(scenarios),
            Err(why) => out.unreadable.push((rel, why)),
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ReadError> {
    let io = |e: std::io::Error| ReadError::Io { path: dir.to_owned(), detail: e.to_string() };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
    Ok(())
}

/// The scenarios of one feature file's text.
///
/// # Errors
/// Text that is not Gherkin, or a scenario without a query or an expectation.
pub fn read_feature(file: &str, text: &str) -> Result<Vec<Scenario>, String> {
    let feature = gherkin::Feature::parse(escape_cells(text), GherkinEnv::default()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let background = |b: &Option<gherkin::Background>| b.as_ref().map(|b| b.steps.clone()).unwrap_or_default();
    let groups = std::iter::once((background(&feature.background), &feature.scenarios)).chain(
        feature
            .rules
            .iter()
            .map(|r| ([background(&feature.background), background(&r.background)].concat(), &r.scenarios)),
    );
    for (before, s) in groups.flat_map(|(before, scenarios)| scenarios.iter().map(move |s| (before.clone(), s))) {
        let steps = [before, s.steps.clone()].concat();
        let rows: Vec<BTreeMap<&str, &str>> = match s.examples.as_slice() {
            [] => vec![BTreeMap::new()],
            examples => examples
                .iter()
                .filter_map(|e| e.table.as_ref())
                .flat_map(|t| {
                    let header = &t.rows[0];
                    t.rows[1..]
                        .iter()
                        .map(move |r| header.iter().map(String::as_str).zip(r.iter().map(String::as_str)).collect())
                })
                .collect(),
        };
        for (i, row) in rows.iter().enumerate() {
            let name = if s.examples.is_empty() { s.name.clone() } else { format!("{} (example {})", s.name, i + 1) };
            out.push(scenario(file, name, &steps, row).map_err(|e| format!("{}: {e}", s.name))?);
        }
    }
    Ok(out)
}

/// Gherkin's table cells know three escapes (`\|`, `\\`, `\n`) and keep any
/// other backslash as it is; the `gherkin` crate refuses the others (the
/// TCK writes `'\''`), so they are spelled out as an escaped backslash.
fn escape_cells(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if !line.trim_start().starts_with('|') {
            out.push_str(line);
            continue;
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(c);
            if c == '\\' {
                match chars.peek() {
                    Some(&next @ ('|' | '\\' | 'n')) => {
                        out.push(next);
                        chars.next();
                    }
                    _ => out.push('\\'),
                }
            }
        }
    }
    out
}

fn fill(text: &str, row: &BTreeMap<&str, &str>) -> String {
    row.iter().fold(text.to_owned(), |t, (k, v)| t.replace(&format!("<{k}>"), v))
}

fn table(t: Option<&Table>, row: &BTreeMap<&str, &str>) -> Vec<Vec<String>> {
    t.map(|t| t.rows.iter().map(|r| r.iter().map(|c| fill(c, row)).collect()).collect()).unwrap_or_default()
}

fn scenario(file: &str, name: String, steps: &[Step], row: &BTreeMap<&str, &str>) -> Result<Scenario, String> {
    let mut s = Scenario {
        file: file.to_owned(),
        name,
        named_graph: None,
        setup: Vec::new(),
        needs: Vec::new(),
        query: String::new(),
        expect: Expect::Empty,
        side_effects: None,
    };
    let mut expected = false;
    for step in steps {
        let value = fill(&step.value, row);
        let doc = step.docstring.as_deref().map(|d| fill(d, row).trim().to_owned()).unwrap_or_default();
        let cells = table(step.table.as_ref(), row);
        match value.trim_end_matches(':').trim() {
            "an empty graph" | "any graph" => {}
            "having executed" => s.setup.push(doc),
            "parameters are" => s.needs.push("parameters"),
            "executing query" => s.query = doc,
            "executing control query" => s.needs.push("a control query"),
            "no side effects" => s.side_effects = Some(BTreeMap::new()),
            "the side effects should be" => {
                let counts = cells
                    .iter()
                    .map(|r| match r.as_slice() {
                        [k, v] => v.parse().map(|n| (k.clone(), n)).map_err(|_| format!("side effect count {v}")),
                        _ => Err("a side effect row without two cells".to_owned()),
                    })
                    .collect::<Result<_, _>>()?;
                s.side_effects = Some(counts);
            }
            "the result should be empty" => {
                s.expect = Expect::Empty;
                expected = true;
            }
            v if v.starts_with("the result should be") => {
                let mut rows = cells.into_iter();
                s.expect = Expect::Rows {
                    columns: rows.next().unwrap_or_default(),
                    rows: rows.collect(),
                    ordered: v.contains("in order"),
                    unordered_lists: v.contains("ignoring element order for lists"),
                };
                expected = true;
            }
            v if v.starts_with("there exists a procedure") => s.needs.push("a procedure"),
            v if v.starts_with("the ") && v.ends_with(" graph") => {
                s.named_graph = Some(v["the ".len()..v.len() - " graph".len()].to_owned());
            }
            v if v.contains(" should be raised at ") => {
                let article = v.split_once(' ').map_or("", |(a, _)| a).len() + 1;
                let (kind, rest) = v[article..].split_once(" should be raised at ").unwrap_or_default();
                let (phase, detail) = rest.split_once(':').unwrap_or((rest, ""));
                s.expect = Expect::Error {
                    kind: kind.to_owned(),
                    phase: phase.trim().to_owned(),
                    detail: detail.trim().to_owned(),
                };
                expected = true;
            }
            other => return Err(format!("a step the runner does not know: {other}")),
        }
    }
    if s.query.is_empty() || !expected {
        return Err("no query, or no expected outcome".into());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEATURE: &str = r#"
Feature: Ours1 - a feature of our own in the TCK's shape

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE (:A {num: 1}), (:A {num: 2})
      """

  Scenario: [1] Rows in any order, after a setup
    When executing query:
      """
      MATCH (a:A) RETURN a.num AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
      | 2 |
    And no side effects

  Scenario Outline: [2] An outline
    Given any graph
    When executing query:
      """
      RETURN <x> AS v
      """
    Then a SyntaxError should be raised at compile time: <code>

    Examples:
      | x                     | code            |
      | 9223372036854775808   | IntegerOverflow |
      | 1.34E999              | FloatingPointOverflow |
"#;

    #[test]
    fn scenarios_and_expanded_outlines_come_out_of_a_feature() {
        let scenarios = read_feature("ours/Ours1.feature", FEATURE).expect("a value");
        assert_eq!(scenarios.len(), 3);
        assert_eq!(scenarios[0].setup, vec!["CREATE (:A {num: 1}), (:A {num: 2})".to_owned()]);
        assert_eq!(scenarios[0].side_effects, Some(BTreeMap::new()));
        assert!(matches!(&scenarios[0].expect, Expect::Rows { columns, rows, ordered: false, .. }
            if columns == &["n"] && rows.len() == 2));
        assert_eq!(scenarios[2].query, "RETURN 1.34E999 AS v");
        assert_eq!(scenarios[2].setup.len(), 1, "the background applies to every scenario");
        assert!(matches!(&scenarios[2].expect, Expect::Error { kind, phase, detail }
            if kind == "SyntaxError" && phase == "compile time" && detail == "FloatingPointOverflow"));
        assert_eq!(scenarios[1].name, "[2] An outline (example 1)");
        let quoted = "Feature: F\n  Scenario: S\n    When executing query:\n      \"\"\"\n      RETURN '\\'' AS l\n      \"\"\"\n    Then the result should be, in any order:\n      | l |\n      | '\\'' |\n      | 'a\\\\b' |\n";
        let s = read_feature("F.feature", quoted).expect("a backslash other than Gherkin's escapes stays");
        let Expect::Rows { rows, .. } = &s[0].expect else { panic!("{s:?}") };
        assert_eq!(rows, &vec![vec!["'\\''".to_owned()], vec!["'a\\b'".to_owned()]]);
    }
}
