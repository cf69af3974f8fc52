//! Findings on disk: one folder per distinct signature with `case.json`
//! (everything `graphlancer replay` needs), `repro.cypher` (paste into the
//! engine's shell) and `README.md` (what differs, in words and tables).
//! Written before the campaign moves on; a later duplicate raises the count.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use graphlancer_engines::Outcome;
use graphlancer_model::{
    Comparison, Difference, Graph, ResultSet, RowOrder, ScriptDialect, Tolerance, Value, compare, creation_script,
};
use serde::{Deserialize, Serialize};

use crate::oracle::{CaseQuery, OracleKind};
pub use crate::reduce::ReductionState;
use crate::signature::Signature;

/// The version of the `case.json` format. Format 2: typed signatures, the
/// relation a group broke, and the group's other queries (`followups`).
pub const CASE_FORMAT: u32 = 2;

/// An engine as it was when the finding was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRecord {
    /// The spec it was opened from.
    pub spec: String,
    /// The version it reported.
    pub version: String,
    /// The creation script it loads graphs by (as the engine stated it).
    pub script: ScriptDialect,
}

/// A finding, complete enough to replay with nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// [`CASE_FORMAT`] when written.
    pub format: u32,
    /// The oracle that found it.
    pub oracle: OracleKind,
    /// The oracles the campaign ran (replay judges with the same).
    pub oracles: Vec<OracleKind>,
    /// Dedup key (of the reduced query, when there is one).
    pub signature: Signature,
    /// The signature of the query as generated, before reduction: a
    /// resumed campaign maps it to `signature` without reducing again.
    pub generated_signature: Signature,
    /// One line for people.
    pub summary: String,
    /// The kind of test case (`differential`, `partition`,
    /// `rewrite:tautology`, ...): replay rebuilds the case under it.
    pub relation: String,
    /// The relation the group broke, in words, for group oracles.
    pub broken: Option<String>,
    /// For relations between counts: the difference the relation predicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i64>,
    /// Campaign seed, graph and case index: the case regenerates from these.
    pub seed: u64,
    /// Index of the graph in the campaign.
    pub graph_index: u64,
    /// Index of the case within its graph.
    pub case_index: u64,
    /// The engines compared.
    pub engines: Vec<EngineRecord>,
    /// The graph the finding shows on, with its schema: the generated
    /// graph, reduced when reduction could.
    pub graph: Graph,
    /// The generated graph, when `graph` is its reduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_graph: Option<Graph>,
    /// How far reduction got.
    #[serde(default)]
    pub reduction: ReductionState,
    /// Which released versions of an engine show the finding
    /// (`graphlancer bisect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bisection: Option<Bisection>,
    /// What the first query is in its group (`source`, ...).
    pub role: String,
    /// The query text: the reduced query when reduction found a smaller one.
    pub query: String,
    /// The query as generated, when `query` is its reduction.
    pub original_query: Option<String>,
    /// The query's AST.
    pub ast: graphlancer_cypher::Query,
    /// A Gremlin query's traversal (`query` is then its TinkerPop text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traversal: Option<graphlancer_gremlin::Traversal>,
    /// Result columns an ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
    /// The clause sequence (part of some signatures).
    pub shape: String,
    /// What computes each result column (part of some signatures).
    pub column_kinds: Vec<String>,
    /// Each engine's outcome, in `engines` order, with at most
    /// [`STORED_ROWS`] rows each (replay recomputes them in full).
    pub outcomes: Vec<Outcome>,
    /// Rows each engine returned, before the cut.
    pub row_counts: Vec<Option<usize>>,
    /// The group's other queries, each with every engine's outcome.
    pub followups: Vec<StoredQuery>,
    /// Whether the re-run showed it again. Only crashes and hangs are kept
    /// when it did not (a process died or hung once, for whatever reason).
    #[serde(default = "yes")]
    pub reproduced: bool,
    /// Of the replays of the reduced case on a freshly loaded graph, how
    /// many showed the finding and how many ran; fewer than all: flaky.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replays: Option<(u32, u32)>,
}

impl Case {
    /// Whether the reduced case showed the finding in only some replays.
    pub fn flaky(&self) -> bool {
        self.replays.is_some_and(|(shown, runs)| shown < runs)
    }

    /// How many runs `graphlancer replay` and `reduce` give the case before
    /// saying it does not reproduce: [`FLAKY_TRIES`] when flaky, else one.
    pub fn tries(&self) -> u32 {
        if self.flaky() { FLAKY_TRIES } else { 1 }
    }
}

/// How many times `graphlancer replay` runs a flaky case before it says
/// the case does not reproduce.
pub const FLAKY_TRIES: u32 = 6;

fn yes() -> bool {
    true
}

/// Which released versions of one engine show a finding: each version
/// tried, and the boundaries found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bisection {
    /// The engine family bisected, e.g. `kuzu`.
    pub engine: String,
    /// The engine of the case that was replaced by each version.
    pub replaced: String,
    /// Every version tried, with whether it showed the finding.
    pub tried: Vec<(String, bool)>,
    /// The oldest release that shows it.
    pub first_showing: Option<String>,
    /// The newest release before that one that does not.
    pub last_not_showing: Option<String>,
    /// The first release after the case's own that no longer shows it.
    pub fixed_in: Option<String>,
    /// Releases tried that do not start (placeholders, another API).
    #[serde(default)]
    pub cannot_start: Vec<String>,
}

/// A query of a group, with every engine's outcome on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredQuery {
    /// What it is in its group.
    pub role: String,
    /// Its text.
    pub text: String,
    /// Its AST.
    pub ast: graphlancer_cypher::Query,
    /// A Gremlin query's traversal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traversal: Option<graphlancer_gremlin::Traversal>,
    /// Result columns an ORDER BY fixes.
    pub order_columns: Option<Vec<usize>>,
    /// Each engine's outcome, cut like [`Case::outcomes`].
    pub outcomes: Vec<Outcome>,
    /// Rows each engine returned, before the cut.
    pub row_counts: Vec<Option<usize>>,
}

impl StoredQuery {
    /// A query with its outcomes (not yet cut).
    pub fn new(q: CaseQuery, outcomes: Vec<Outcome>) -> Self {
        Self {
            role: q.role,
            text: q.text,
            ast: q.ast,
            traversal: q.traversal,
            order_columns: q.order_columns,
            outcomes,
            row_counts: Vec::new(),
        }
    }

    /// As a query to run again.
    pub fn case_query(&self) -> CaseQuery {
        CaseQuery {
            role: self.role.clone(),
            text: self.text.clone(),
            ast: self.ast.clone(),
            order_columns: self.order_columns.clone(),
            traversal: self.traversal.clone(),
        }
    }
}

/// Rows of each outcome kept in `case.json` and shown in `README.md`.
pub const STORED_ROWS: usize = 200;

impl Case {
    /// Cuts each outcome of every query to [`STORED_ROWS`] rows, recording
    /// the full counts.
    pub fn trim_rows(&mut self) {
        self.row_counts = trim(&mut self.outcomes, self.order_columns.is_some());
        for q in &mut self.followups {
            q.row_counts = trim(&mut q.outcomes, q.order_columns.is_some());
        }
    }

    /// Puts the queries of `case`, each with every engine's `outcomes`, in
    /// place of this case's (the first query, then the follow-ups), with
    /// the clause sequence and column kinds of the first; rows are cut.
    pub fn set_queries(&mut self, case: crate::oracle::TestCase, outcomes: Vec<Vec<Outcome>>) {
        let mut queries = case.queries.into_iter().zip(outcomes).map(|(q, outcomes)| StoredQuery::new(q, outcomes));
        let first = queries.next().expect("a case has a query");
        let types = graphlancer_cypher::check::result_types(&first.ast, &self.graph.schema).unwrap_or_default();
        self.relation = case.relation;
        self.delta = case.delta;
        self.shape = match &first.traversal {
            Some(t) => t.constructs(),
            None => crate::shape::shape(&first.ast),
        };
        self.column_kinds = crate::shape::column_kinds(&first.ast, &types);
        self.role = first.role;
        self.query = first.text;
        self.ast = first.ast;
        self.traversal = first.traversal;
        self.order_columns = first.order_columns;
        self.outcomes = first.outcomes;
        self.followups = queries.collect();
        self.trim_rows();
    }

    /// Takes the reduced case in place of this one, keeping the query and
    /// graph as generated (the first ones, across repeated reductions).
    pub fn take_reduction(&mut self, r: crate::reduce::Reduced) {
        self.original_query.get_or_insert_with(|| self.query.clone());
        if r.graph != self.graph {
            self.original_graph.get_or_insert_with(|| self.graph.clone());
        }
        self.graph = r.graph;
        self.replays = Some(r.replays);
        self.signature = r.finding.signature;
        self.summary = r.finding.summary;
        self.broken = r.finding.relation;
        self.set_queries(r.case, r.outcomes);
    }

    /// Every query of the case, in order, as run.
    pub fn test_case(&self) -> crate::oracle::TestCase {
        let first = CaseQuery {
            role: self.role.clone(),
            text: self.query.clone(),
            ast: self.ast.clone(),
            order_columns: self.order_columns.clone(),
            traversal: self.traversal.clone(),
        };
        let queries = std::iter::once(first).chain(self.followups.iter().map(StoredQuery::case_query)).collect();
        crate::oracle::TestCase { relation: self.relation.clone(), queries, delta: self.delta }
    }
}

/// Cuts each outcome to [`STORED_ROWS`] rows and returns the full counts.
/// In an unordered answer cut short, the rows no other engine returned come
/// first, so the cut never hides the difference.
fn trim(outcomes: &mut [Outcome], ordered: bool) -> Vec<Option<usize>> {
    let counts: Vec<Option<usize>> = outcomes.iter().map(|o| o.rows().map(|r| r.rows.len())).collect();
    let cut = counts.iter().any(|n| n.is_some_and(|n| n > STORED_ROWS));
    if cut && !ordered {
        let all: Vec<Option<ResultSet>> = outcomes.iter().map(|o| o.rows().cloned()).collect();
        for (i, o) in outcomes.iter_mut().enumerate() {
            let Outcome::Rows(r) = o else { continue };
            if r.rows.len() <= STORED_ROWS {
                continue;
            }
            let other = all.iter().enumerate().find_map(|(j, x)| x.as_ref().filter(|_| j != i));
            if let Some(other) = other
                && let Comparison::Differ(Difference::Rows { only_left, .. }) =
                    compare(r, other, &RowOrder::Bag, Tolerance::default())
            {
                surface(&mut r.rows, only_left);
            }
        }
    }
    for o in outcomes.iter_mut() {
        if let Outcome::Rows(r) = o {
            r.rows.truncate(STORED_ROWS);
        }
    }
    counts
}

/// Moves one instance of each of `first` (at most [`STORED_ROWS`]) to the
/// front of `rows`, keeping the rest in order.
fn surface(rows: &mut Vec<Vec<Value>>, mut first: Vec<Vec<Value>>) {
    first.truncate(STORED_ROWS);
    let mut front = Vec::with_capacity(first.len());
    let mut rest = Vec::with_capacity(rows.len());
    for row in rows.drain(..) {
        match first.iter().position(|f| *f == row) {
            Some(k) => {
                first.swap_remove(k);
                front.push(row);
            }
            None => rest.push(row),
        }
    }
    front.extend(rest);
    *rows = front;
}

/// A report folder that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be read or written.
    // The error is in the message, not a `source`: `{:#}` would say it twice.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
    /// A finding folder whose case.json does not parse.
    #[error("damaged report {path}: {detail}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |error| ReportError::Io { path: path.to_owned(), error }
}

/// Reads a `case.json`.
pub fn read_case(path: &Path) -> Result<Case, ReportError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let damaged = |detail: String| ReportError::Damaged { path: path.to_owned(), detail };
    let mut json: serde_json::Value = serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))?;
    // Someone trying a variant edits `query` and drops `ast`: the text is
    // then the query, read by the same parser `exec` uses.
    if let Some(fields) = json.as_object_mut() {
        let cypher = fields.get("traversal").is_none_or(serde_json::Value::is_null);
        if cypher && fields.get("ast").is_none_or(serde_json::Value::is_null) {
            let query = fields.get("query").and_then(serde_json::Value::as_str).unwrap_or_default();
            let ast = graphlancer_cypher::parse::parse(query)
                .map_err(|e| damaged(format!("no `ast`, and its `query` does not parse: {e}")))?;
            let ast = serde_json::to_value(ast).map_err(|e| damaged(e.to_string()))?;
            fields.insert("ast".into(), ast);
        }
    }
    let case: Case = serde_json::from_value(json).map_err(|e| damaged(e.to_string()))?;
    if case.format != CASE_FORMAT {
        return Err(ReportError::Damaged {
            path: path.to_owned(),
            detail: format!("format {} (this graphlancer reads {CASE_FORMAT})", case.format),
        });
    }
    Ok(case)
}

/// Whether a finding was new.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// A new report folder.
    New(PathBuf),
    /// A known signature; its count went up.
    Duplicate(PathBuf),
}

/// Where a campaign generated a case.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    /// The campaign's seed.
    pub seed: u64,
    /// The graph's index in the campaign.
    pub graph: u64,
    /// The case's index on that graph.
    pub case: u64,
}

/// The findings folder of a campaign.
pub struct ReportStore {
    root: PathBuf,
    by_signature: BTreeMap<Signature, PathBuf>,
    reductions: BTreeMap<Signature, Signature>,
    unfinished: Vec<PathBuf>,
    /// The number of the next folder, past every folder already there.
    next: usize,
}

/// The file in a campaign's folder (beside `findings/`) that maps names
/// to reports.
const NAMES: &str = "names.jsonl";

impl ReportStore {
    /// Opens (or creates) `out/findings`, reading the findings already there
    /// so a resumed campaign deduplicates against them.
    pub fn open(out: &Path) -> Result<Self, ReportError> {
        let root = out.join("findings");
        std::fs::create_dir_all(&root).map_err(io(&root))?;
        let mut by_signature = BTreeMap::new();
        let mut reductions = BTreeMap::new();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&root)
            .map_err(io(&root))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        entries.sort();
        let mut unfinished = Vec::new();
        let mut next = 1;
        for dir in entries {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(n) = name.split('-').next().and_then(|n| n.parse::<usize>().ok()) {
                next = next.max(n + 1);
            }
            // A folder being written (or left by a killed campaign) has no
            // case.json yet: it is listed, never read, never reused.
            if name.starts_with('.') || !dir.join("case.json").exists() {
                unfinished.push(dir);
                continue;
            }
            let case = read_case(&dir.join("case.json"))?;
            reductions.insert(case.generated_signature, case.signature.clone());
            by_signature.insert(case.signature, dir);
        }
        // Names counted or reduced to a report without a case of their own
        // ([`Self::alias`], [`Self::count_named`]): a resumed campaign counts
        // them as the first one did, not by reducing them afresh.
        let names = out.join(NAMES);
        if let Ok(text) = std::fs::read_to_string(&names) {
            for line in text.lines() {
                // A line a killed campaign cut short is skipped.
                if let Ok((from, to)) = serde_json::from_str::<(Signature, Signature)>(line) {
                    reductions.entry(from).or_insert(to);
                }
            }
        }
        Ok(Self { root, by_signature, reductions, unfinished, next })
    }

    /// Maps `from` to the report of `to`, here and in [`NAMES`].
    fn map_name(&mut self, from: Signature, to: Signature) -> Result<(), ReportError> {
        if self.reductions.get(&from) == Some(&to) {
            return Ok(());
        }
        let line = serde_json::to_string(&(&from, &to)).expect("a signature serializes");
        let out = self.root.parent().unwrap_or(&self.root);
        append(&out.join(NAMES), &format!("{line}\n"))?;
        self.reductions.insert(from, to);
        Ok(())
    }

    /// Folders a killed campaign left unfinished (no `case.json`): skipped.
    pub fn unfinished(&self) -> &[PathBuf] {
        &self.unfinished
    }

    /// Folders written so far, by signature.
    pub fn findings(&self) -> &BTreeMap<Signature, PathBuf> {
        &self.by_signature
    }

    /// The reduced signature a generated signature led to before.
    pub fn reduction_of(&self, generated: &Signature) -> Option<&Signature> {
        self.reductions.get(generated)
    }

    /// Counts one more occurrence of a finding already on disk, by the
    /// signature of the query as generated, and lists where it was seen in
    /// `duplicates.tsv` (seed, graph, case, generated signature); `None`
    /// if it is not known.
    pub fn count_known(
        &mut self,
        generated: &Signature,
        at: Seen,
    ) -> Result<Option<(Signature, PathBuf)>, ReportError> {
        let Some(signature) = self.reductions.get(generated).cloned() else { return Ok(None) };
        let Some(dir) = self.by_signature.get(&signature).cloned() else { return Ok(None) };
        append(&dir.join("duplicates.tsv"), &format!("{}\t{}\t{}\t{generated}\n", at.seed, at.graph, at.case))?;
        add_occurrences(&dir, 1)?;
        Ok(Some((signature, dir)))
    }

    /// Counts one more occurrence of a finding named `name` by cause before
    /// any reduction, where a report has that name or a finding of that
    /// name was reduced to one ([`Self::alias`]); `None` if neither.
    pub fn count_named(
        &mut self,
        name: &Signature,
        generated: &Signature,
        at: Seen,
    ) -> Result<Option<(Signature, PathBuf)>, ReportError> {
        let signature = self.reductions.get(name).cloned().unwrap_or_else(|| name.clone());
        if !self.by_signature.contains_key(&signature) {
            return Ok(None);
        }
        self.map_name(generated.clone(), signature)?;
        self.count_known(generated, at)
    }

    /// Records that a finding named `name` before reduction was reduced to
    /// a report of `signature`: the next finding of that name is counted there.
    pub fn alias(&mut self, name: Signature, signature: Signature) -> Result<(), ReportError> {
        if self.reductions.contains_key(&name) {
            return Ok(());
        }
        self.map_name(name, signature)
    }

    /// Writes a new finding, or counts a duplicate.
    pub fn record(&mut self, case: &Case) -> Result<Recorded, ReportError> {
        self.reductions.insert(case.generated_signature.clone(), case.signature.clone());
        if self.by_signature.contains_key(&case.signature) {
            let at = Seen { seed: case.seed, graph: case.graph_index, case: case.case_index };
            let (_, dir) = self.count_known(&case.generated_signature, at)?.expect("just mapped to a known signature");
            return Ok(Recorded::Duplicate(dir));
        }
        let dir = self.root.join(format!("{:04}-{}", self.next, case.oracle.name()));
        self.next += 1;
        // Written whole in a hidden folder, then renamed: a campaign killed
        // meanwhile leaves no half-written finding under a real name.
        let tmp = self.root.join(format!(".writing-{:04}", self.next - 1));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
        }
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        for (name, text) in repro_files(case) {
            std::fs::write(tmp.join(name), text).map_err(io(&tmp))?;
        }
        std::fs::write(tmp.join("README.md"), readme(case, &dir)).map_err(io(&tmp))?;
        std::fs::write(tmp.join("case.json"), to_json(case)).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &dir).map_err(io(&dir))?;
        self.by_signature.insert(case.signature.clone(), dir.clone());
        Ok(Recorded::New(dir))
    }
}

impl ReportStore {
    /// Takes in the finding in `dir` from another campaign's folder (a shard
    /// of the same run): written anew here, or counted as a duplicate of the
    /// finding with its signature, with every occurrence it had counted.
    pub fn adopt(&mut self, dir: &Path) -> Result<Recorded, ReportError> {
        let case = read_case(&dir.join("case.json"))?;
        let recorded = self.record(&case)?;
        let (Recorded::New(here) | Recorded::Duplicate(here)) = &recorded;
        // `record` counted one occurrence; the folder may have counted more.
        let more = occurrences(dir)?.saturating_sub(1);
        if more > 0 {
            add_occurrences(here, more)?;
        }
        if let Ok(lines) = std::fs::read_to_string(dir.join("duplicates.tsv")) {
            append(&here.join("duplicates.tsv"), &lines)?;
        }
        Ok(recorded)
    }
}

/// How often the finding in `dir` was seen: its `occurrences` count, 1
/// when it has none yet. A count that does not parse is not silently reset.
fn occurrences(dir: &Path) -> Result<u64, ReportError> {
    let path = dir.join("occurrences");
    match std::fs::read_to_string(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(1),
        Err(e) => Err(ReportError::Io { path, error: e }),
        Ok(text) => text.trim().parse::<u64>().map_err(|e| ReportError::Damaged {
            path: path.clone(),
            detail: format!("occurrences is not a count: {e}"),
        }),
    }
}

/// Raises the count of the finding in `dir` by `n`. The count lives beside
/// the case, so a duplicate never rewrites a large file.
fn add_occurrences(dir: &Path, n: u64) -> Result<(), ReportError> {
    let seen = occurrences(dir)?;
    write_atomic(&dir.join("occurrences"), &format!("{}\n", seen + n))
}

/// Appends `text` to the file at `path`, creating it.
fn append(path: &Path, text: &str) -> Result<(), ReportError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .map_err(io(path))
}

/// Writes `case` over the finding in `dir` (after `graphlancer reduce`):
/// each file replaced whole.
pub fn rewrite(dir: &Path, case: &Case) -> Result<(), ReportError> {
    for (name, text) in repro_files(case) {
        write_atomic(&dir.join(name), &text)?;
    }
    write_atomic(&dir.join("README.md"), &readme(case, dir))?;
    write_atomic(&dir.join("case.json"), &to_json(case))
}

fn to_json(case: &Case) -> String {
    serde_json::to_string_pretty(case).expect("cases always serialize") + "\n"
}

fn write_atomic(path: &Path, text: &str) -> Result<(), ReportError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// `repro.cypher` in the first engine's dialect, plus `repro-kuzu.cypher`
/// when another engine compared needs Kuzu's tables (or the other way round).
pub fn repro_files(case: &Case) -> Vec<(&'static str, String)> {
    if case.traversal.is_some() {
        return vec![("repro.groovy", repro(case, ScriptDialect::Gremlin))];
    }
    let first = case.engines.first().map_or(ScriptDialect::Cypher, |e| e.script);
    let mut files = vec![("repro.cypher", repro(case, first))];
    if let Some(other) = case.engines.iter().map(|e| e.script).find(|d| *d != first) {
        let name = match other {
            ScriptDialect::Kuzu | ScriptDialect::KuzuRelGroups => "repro-kuzu.cypher",
            ScriptDialect::Cypher => "repro-neo4j.cypher",
            ScriptDialect::Gremlin => "repro.groovy",
        };
        files.push((name, repro(case, other)));
    }
    files
}

/// The graph's creation script and the query, ready for the engine's shell.
pub fn repro(case: &Case, dialect: ScriptDialect) -> String {
    let mut s = format!("// graphlancer finding: {}\n", case.summary);
    for e in &case.engines {
        let _ = writeln!(s, "// engine: {} {}", e.spec, e.version);
    }
    let _ = writeln!(s, "// seed {} graph {} case {}\n", case.seed, case.graph_index, case.case_index);
    let end = if dialect == ScriptDialect::Gremlin { "" } else { ";" };
    for statement in creation_script(&case.graph, dialect) {
        let _ = writeln!(s, "{statement}{end}\n");
    }
    let _ = writeln!(s, "{}{end}", case.query);
    for q in &case.followups {
        let _ = writeln!(s, "\n// {} ({})\n{};", q.role, case.relation, q.text);
    }
    s
}

fn readme(case: &Case, dir: &Path) -> String {
    let mut s = format!("# {}\n\n", case.summary);
    let _ = writeln!(s, "Found by the {} oracle. Signature: `{}`.\n", case.oracle.name(), case.signature);
    if let Some(words) = &case.broken {
        let _ = writeln!(s, "**The relation broken ({}):** {words}\n", case.relation);
    }
    if !case.reproduced {
        s.push_str(
            "**Not reproduced:** the engine process died or hung once, and the same query ran normally when \
             repeated. Either the fault depends on more than this query (memory, timing, earlier queries) or \
             something outside the engine stopped it.\n\n",
        );
    }
    if let Some((shown, runs)) = case.replays.filter(|_| case.flaky()) {
        let _ = writeln!(
            s,
            "**Flaky:** the reduced case showed this in {shown} of {runs} replays on a freshly loaded graph; \
             the answers depend on more than the query and the graph (memory layout, timing). `graphlancer \
             replay` tries up to {} times.\n",
            crate::report::FLAKY_TRIES
        );
    }
    s.push_str("| engine | version | outcome |\n|---|---|---|\n");
    for ((e, o), n) in case.engines.iter().zip(&case.outcomes).zip(&case.row_counts) {
        let line = match n {
            Some(n) => format!("{n} rows"),
            None => outcome_line(o),
        };
        let _ = writeln!(s, "| {} | {} | {line} |", e.spec, e.version);
    }
    let (file, fence) = if case.traversal.is_some() { ("repro.groovy", "groovy") } else { ("repro.cypher", "cypher") };
    let _ = writeln!(
        s,
        "\nThe graph ({} nodes, {} relationships) is created by `{file}`, which ends with the query:\n\n```{fence}\n{}\n```\n",
        case.graph.nodes.len(),
        case.graph.relationships.len(),
        case.query
    );
    if let Some(t) = &case.traversal {
        for e in &case.engines {
            let family = e.spec.split(['?', '@']).next().unwrap_or_default();
            if let Some(d) = graphlancer_gremlin::GremlinDialect::builtin(family)
                && d.name != "tinkerpop"
            {
                let text = graphlancer_gremlin::render(t, d);
                if text != case.query {
                    let _ = writeln!(s, "{} reads it in its own dialect:\n\n```{fence}\n{text}\n```\n", e.spec);
                }
            }
        }
    }
    if let Some(g) = &case.original_graph {
        let _ = writeln!(
            s,
            "The graph is reduced from the generated {} nodes and {} relationships.",
            g.nodes.len(),
            g.relationships.len()
        );
    }
    // A small graph is shown whole: the report is then readable alone.
    if !case.graph.nodes.is_empty() && case.graph.nodes.len() + case.graph.relationships.len() <= 12 {
        let (dialect, end) = if case.traversal.is_some() {
            (ScriptDialect::Gremlin, "")
        } else {
            (case.engines.first().map_or(ScriptDialect::Cypher, |e| e.script), ";")
        };
        let script: Vec<String> = creation_script(&case.graph, dialect).into_iter().map(|l| l + end).collect();
        let _ = writeln!(s, "\n```{fence}\n{}\n```\n", script.join("\n"));
    }
    if let Some(original) = &case.original_query {
        let _ = writeln!(
            s,
            "That is the smallest query graphlancer found that still shows the difference; the campaign generated:\n\n```{fence}\n{original}\n```\n"
        );
    }
    match case.reduction {
        ReductionState::Unfinished => s.push_str(
            "**Reduction unfinished:** it stopped at its limits; `graphlancer reduce` on this folder goes on.\n\n",
        ),
        ReductionState::NotReplayed => s.push_str(
            "**Not reduced:** the smaller cases the reducer found did not show the finding again on a freshly \
             loaded graph (it shows only now and then), so the case is kept as it was before that reduction \
             (in a campaign, as generated); `graphlancer reduce` on this folder tries again.\n\n",
        ),
        ReductionState::Finished => {
            s.push_str("The outcomes below are those of the reduced case, replayed on the reduced graph.\n\n")
        }
        ReductionState::NotTried => {}
    }
    if let Some(keys) = &case.order_columns {
        let _ =
            writeln!(s, "The query orders its rows by columns {keys:?}; rows tying on them may come in any order.\n");
    } else {
        s.push_str("The query fixes no order: rows are compared as a multiset.\n\n");
    }
    let heading = if case.followups.is_empty() { "##" } else { "###" };
    if !case.followups.is_empty() {
        let _ = writeln!(s, "## Query 1 ({})\n", case.role);
    }
    outcomes_section(&mut s, case, &case.outcomes, heading);
    for (k, q) in case.followups.iter().enumerate() {
        let _ = writeln!(s, "## Query {} ({})\n\n```cypher\n{}\n```\n", k + 2, q.role, q.text);
        for ((e, o), n) in case.engines.iter().zip(&q.outcomes).zip(&q.row_counts) {
            let line = n.map_or_else(|| outcome_line(o), |n| format!("{n} rows"));
            let _ = writeln!(s, "- {}: {line}", e.spec);
        }
        s.push('\n');
        outcomes_section(&mut s, case, &q.outcomes, "###");
    }
    if let Some(b) = &case.bisection {
        let _ = writeln!(s, "## Releases of {} (in place of {})\n", b.engine, b.replaced);
        match (&b.first_showing, &b.last_not_showing) {
            (Some(first), Some(last)) => {
                let _ = writeln!(s, "First shown by {first}; {last}, the release before, does not show it.");
            }
            (Some(first), None) => {
                let _ = writeln!(s, "Shown by every release tried from the oldest that starts, {first}.");
            }
            _ => s.push_str("No release tried shows it.\n"),
        }
        if let Some(fixed) = &b.fixed_in {
            let _ = writeln!(s, "Gone in {fixed}.");
        }
        let tried: Vec<String> = b
            .tried
            .iter()
            .map(|(v, shown)| {
                let what = if *shown {
                    "shows it"
                } else if b.cannot_start.contains(v) {
                    "does not start"
                } else {
                    "does not"
                };
                format!("{v} {what}")
            })
            .collect();
        let _ = writeln!(s, "\nTried: {}.\n", tried.join(", "));
    }
    let _ = writeln!(s, "Replay: `graphlancer replay {}`", dir.display());
    s
}

/// Each engine's outcome on one query, under headings of level `heading`.
fn outcomes_section(s: &mut String, case: &Case, outcomes: &[Outcome], heading: &str) {
    for (e, o) in case.engines.iter().zip(outcomes) {
        let _ = writeln!(s, "{heading} {}\n", e.spec);
        match o {
            Outcome::Rows(r) if !r.columns.is_empty() && r.rows.iter().all(Vec::is_empty) && !r.rows.is_empty() => {
                let _ = writeln!(s, "{} rows (values not kept: the crash oracle does not compare them)", r.rows.len());
            }
            Outcome::Rows(r) => s.push_str(&table(r)),
            other => {
                let _ = writeln!(s, "```\n{}\n```", outcome_detail(other));
            }
        }
        s.push('\n');
    }
}

fn outcome_line(o: &Outcome) -> String {
    match o {
        Outcome::Rows(r) => format!("{} rows", r.rows.len()),
        Outcome::Error { class, .. } => format!("{} error", class.name()),
        Outcome::Crash { .. } => "crash".into(),
        Outcome::Timeout { after_ms } => format!("timeout after {after_ms} ms"),
        Outcome::TooLarge { max_rows } => format!("more than {max_rows} rows"),
        Outcome::Undecodable { .. } => "answer graphlancer could not read".into(),
        Outcome::Open { .. } => "no answer (open)".into(),
    }
}

fn outcome_detail(o: &Outcome) -> String {
    match o {
        Outcome::Error { class, message } => format!("{} error: {message}", class.name()),
        Outcome::Crash { message } => format!("crash: {message}"),
        Outcome::Undecodable { message } => format!("graphlancer could not read the answer: {message}"),
        Outcome::Open { reason } => format!("no answer: {reason}"),
        other => outcome_line(other),
    }
}

/// A result as a Markdown table, at most 30 rows (of those stored).
fn table(r: &ResultSet) -> String {
    const MAX: usize = 30;
    let cell = |v: &graphlancer_model::Value| v.to_string().replace('|', "\\|");
    let mut s = format!("| {} |\n|{}\n", r.columns.join(" | "), "---|".repeat(r.columns.len().max(1)));
    let mut rows: Vec<String> =
        r.rows.iter().map(|row| format!("| {} |", row.iter().map(cell).collect::<Vec<_>>().join(" | "))).collect();
    rows.sort();
    for line in rows.iter().take(MAX) {
        s.push_str(line);
        s.push('\n');
    }
    if rows.len() > MAX {
        let _ = writeln!(s, "\n… {} more rows (in case.json)", rows.len() - MAX);
    }
    let _ = writeln!(s, "\n{} rows (sorted here for reading)", r.rows.len());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaced_rows_come_first_once_each() {
        let row = |i: i64| vec![Value::Int(i)];
        let mut rows = vec![row(1), row(2), row(3), row(2), row(4)];
        surface(&mut rows, vec![row(2), row(4)]);
        assert_eq!(rows, vec![row(2), row(4), row(1), row(3), row(2)]);
    }
}
