//! `graphlancer merge --out OUT IN...`: the folders of a campaign's shards
//! (or of any campaigns over the same engines) joined into one, findings
//! deduplicated by signature and summaries added up. The merge is written
//! into a temporary folder beside OUT and renamed into place when whole, so
//! a failed merge leaves nothing to clean up and can be run again.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use graphlancer_oracles::campaign::write_summary;
use graphlancer_oracles::report::Recorded;
use graphlancer_oracles::{ReportStore, Summary};

pub(crate) fn merge(out: &Path, inputs: &[PathBuf]) -> Result<ExitCode> {
    let holds = |p: &Path| p.read_dir().map(|mut d| d.next().is_some()).unwrap_or(false);
    if out.join("summary.json").exists() || holds(&out.join("findings")) {
        bail!("{} already holds a campaign; merge into a new folder", out.display());
    }
    let mut seen = std::collections::BTreeSet::new();
    for input in inputs {
        let canonical = input.canonicalize().unwrap_or_else(|_| input.clone());
        if !seen.insert(canonical) {
            bail!("{} is named twice: its findings would be counted twice", input.display());
        }
    }
    let mut summaries: Vec<Summary> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let path = input.join("summary.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{} is not a campaign folder (no readable summary.json)", input.display()))?;
        let s: Summary = serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))?;
        if let Some(first) = summaries.first() {
            let specs = |s: &Summary| s.engines.iter().map(|e| e.spec.clone()).collect::<Vec<_>>();
            if first.seed != s.seed {
                bail!(
                    "{} ran seed {}, {} seed {}: shards of one campaign share its seed",
                    inputs[0].display(),
                    first.seed,
                    input.display(),
                    s.seed
                );
            }
            if specs(first) != specs(&s) || first.oracles != s.oracles {
                bail!(
                    "{} ran {:?} with {:?}, {} ran {:?} with {:?}: only campaigns over the same engines and oracles merge",
                    inputs[0].display(),
                    specs(first),
                    first.oracles,
                    input.display(),
                    specs(&s),
                    s.oracles
                );
            }
        }
        summaries.push(s);
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let name = out.file_name().map_or_else(|| "merged".into(), |n| n.to_string_lossy().into_owned());
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.merging-"))
        .tempdir_in(&parent)
        .with_context(|| format!("cannot make a folder in {}", parent.display()))?;
    let skipped = gather(staging.path(), out, inputs, summaries)?;
    // An empty OUT (made by hand, or left by an old failed merge) is replaced.
    if out.is_dir() {
        std::fs::remove_dir(out).with_context(|| format!("{} is in the way", out.display()))?;
    }
    let staged = staging.keep();
    std::fs::rename(&staged, out).with_context(|| format!("cannot move the merge into {}", out.display()))?;
    for line in &skipped {
        eprintln!("merge: skipped {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Merges into `out`, which will be renamed to `named`; the folders skipped, with why.
fn gather(out: &Path, named: &Path, inputs: &[PathBuf], summaries: Vec<Summary>) -> Result<Vec<String>> {
    let mut store = ReportStore::open(out)?;
    let (mut new, mut duplicates) = (0u64, 0u64);
    let mut skipped = Vec::new();
    for input in inputs {
        let findings = input.join("findings");
        if !findings.is_dir() {
            continue;
        }
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&findings)
            .with_context(|| format!("cannot read {}", findings.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            // A folder a killed campaign left half-written, or a damaged one,
            // is listed; the rest still merge.
            if !dir.join("case.json").is_file() {
                skipped.push(format!("{} (no case.json: a half-written report)", dir.display()));
                continue;
            }
            match store.adopt(&dir) {
                Ok(Recorded::New(_)) => new += 1,
                Ok(Recorded::Duplicate(..)) => duplicates += 1,
                Err(e) => skipped.push(format!("{} ({e})", dir.display())),
            }
        }
    }
    let mut total = Summary::sum(&summaries).context("nothing to merge")?;
    // Counted again over the merged folder: a finding two shards both
    // reported is one finding here.
    let seen = total.findings_new + total.findings_duplicate;
    total.findings_new = store.findings().len() as u64;
    total.findings_duplicate = seen.saturating_sub(total.findings_new);
    let final_path = |v: &Path| named.join(v.strip_prefix(out).unwrap_or(v)).display().to_string();
    total.findings = store.findings().iter().map(|(k, v)| (k.to_string(), final_path(v))).collect();
    total.unfinished_reports = Vec::new();
    write_summary(out, &total)?;
    let skipped_note =
        if skipped.is_empty() { String::new() } else { format!(", {} folders skipped (listed below)", skipped.len()) };
    say!(
        "merged {} campaigns ({} queries): {new} findings, and {duplicates} folders counted as their duplicates{skipped_note}",
        inputs.len(),
        total.queries
    )?;
    Ok(skipped)
}
