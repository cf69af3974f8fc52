//! Findings on disk: one folder per distinct signature with `case.json`
//! (everything `graphlancer replay` needs), `repro.cypher` (paste into the
//! engine's shell) and `README.md` (what differs, in words and tables).
//! Written before the campaign moves on; a later duplicate raises the count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use graphlancer_model::ScriptDialect;

pub use crate::reduce::ReductionState;
use crate::signature::Signature;

mod client;
mod differs;
mod readme;
mod stored;

pub use client::{OwnClient, own_client};
pub use readme::answer;
use readme::{readme, repro};
pub use stored::{Bisection, CASE_FORMAT, Case, EngineRecord, FLAKY_TRIES, KnownBugSeen, STORED_ROWS, StoredQuery};

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
    let mut case: Case = serde_json::from_value(json).map_err(|e| damaged(e.to_string()))?;
    // A kind as read is a name; the registry's kind carries the command
    // line's spelling, and a name it lacks is a finding of another build.
    for kind in [&mut case.oracle, &mut case.signature.oracle] {
        *kind = crate::oracle::known(*kind).ok_or_else(|| damaged(format!("no oracle is called '{kind}'")))?;
    }
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
    /// A known report, by its folder and signature; its count went up.
    Duplicate(PathBuf, Signature),
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
    /// The report of each known bug a finding was counted under.
    known: BTreeMap<String, Signature>,
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
        let mut known = BTreeMap::new();
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
            if let Some(k) = case.known_bug {
                known.entry(k.bug).or_insert_with(|| case.signature.clone());
            }
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
        Ok(Self { root, by_signature, reductions, known, unfinished, next })
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
        let Some(signature) = self.report_of(&signature) else { return Ok(None) };
        self.map_name(generated.clone(), signature)?;
        self.count_known(generated, at)
    }

    /// The report a finding named `s` is counted under: the one of that
    /// name, else one whose clause site `s`'s holds with more constructs
    /// ([`crate::site`]), else one of `s`'s cause ([`crate::cause`]).
    pub fn report_of(&self, s: &Signature) -> Option<Signature> {
        if self.by_signature.contains_key(s) {
            return Some(s.clone());
        }
        crate::site::report_for(s, self.by_signature.keys())
            .or_else(|| crate::cause::report_for(s, self.by_signature.keys()))
            .cloned()
    }

    /// Records that a finding named `name` before reduction was reduced to
    /// a report of `signature`: the next finding of that name is counted there.
    pub fn alias(&mut self, name: Signature, signature: Signature) -> Result<(), ReportError> {
        if self.reductions.contains_key(&name) {
            return Ok(());
        }
        self.map_name(name, signature)
    }

    /// The signature of the report a finding of known bug `bug` was
    /// written as, if one was.
    pub fn known_report(&self, bug: &str) -> Option<&Signature> {
        self.known.get(bug)
    }

    /// Writes a new finding, or counts a duplicate.
    pub fn record(&mut self, case: &Case) -> Result<Recorded, ReportError> {
        let report = if case.reduction == ReductionState::Finished {
            let cause = crate::cause::report_for(&case.signature, self.by_signature.keys()).cloned();
            self.by_signature.contains_key(&case.signature).then(|| case.signature.clone()).or(cause)
        } else {
            self.report_of(&case.signature)
        };
        if let Some(report) = report {
            self.reductions.insert(case.generated_signature.clone(), report);
            let at = Seen { seed: case.seed, graph: case.graph_index, case: case.case_index };
            let (report, dir) =
                self.count_known(&case.generated_signature, at)?.expect("just mapped to a known signature");
            return Ok(Recorded::Duplicate(dir, report));
        }
        self.reductions.insert(case.generated_signature.clone(), case.signature.clone());
        let dir = self.root.join(format!("{:04}-{}", self.next, case.oracle.name()));
        self.next += 1;
        // Written whole in a hidden folder, then renamed: a campaign killed
        // meanwhile leaves no half-written finding under a real name.
        let tmp = self.root.join(format!(".writing-{:04}", self.next - 1));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
        }
        if let Err(e) = write_folder(case, &tmp, &dir) {
            // A full disk: what was written of it is freed for the summary.
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        self.by_signature.insert(case.signature.clone(), dir.clone());
        if let Some(k) = &case.known_bug {
            self.known.entry(k.bug.clone()).or_insert_with(|| case.signature.clone());
        }
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
        let (Recorded::New(here) | Recorded::Duplicate(here, _)) = &recorded;
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
/// A finding's files written into `tmp`, then renamed to `dir`.
fn write_folder(case: &Case, tmp: &Path, dir: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(tmp).map_err(io(tmp))?;
    for (name, text) in repro_files(case) {
        std::fs::write(tmp.join(name), text).map_err(io(tmp))?;
    }
    std::fs::write(tmp.join("README.md"), readme(case, dir)).map_err(io(tmp))?;
    std::fs::write(tmp.join("case.json"), to_json(case)).map_err(io(tmp))?;
    std::fs::rename(tmp, dir).map_err(io(dir))
}

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
