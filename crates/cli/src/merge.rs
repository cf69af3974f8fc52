//! `graphlancer merge --out OUT IN...`: the folders of a campaign's shards
//! (or of any campaigns over the same engines) joined into one, findings
//! deduplicated by signature and summaries added up.

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
    let mut store = ReportStore::open(out)?;
    let (mut new, mut duplicates) = (0u64, 0u64);
    for input in inputs {
        let findings = input.join("findings");
        if !findings.is_dir() {
            continue;
        }
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&findings)
            .with_context(|| format!("cannot read {}", findings.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("case.json").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            match store.adopt(&dir).with_context(|| format!("cannot take in {}", dir.display()))? {
                Recorded::New(_) => new += 1,
                Recorded::Duplicate(_) => duplicates += 1,
            }
        }
    }
    let mut total = Summary::sum(&summaries).context("nothing to merge")?;
    // Counted again over the merged folder: a finding two shards both
    // reported is one finding here.
    let seen = total.findings_new + total.findings_duplicate;
    total.findings_new = store.findings().len() as u64;
    total.findings_duplicate = seen.saturating_sub(total.findings_new);
    total.findings = store.findings().iter().map(|(k, v)| (k.to_string(), v.display().to_string())).collect();
    total.unfinished_reports = Vec::new();
    write_summary(out, &total)?;
    say!(
        "merged {} campaigns ({} queries): {new} findings, and {duplicates} folders counted as their duplicates · {}",
        inputs.len(),
        total.queries,
        out.join("findings").display()
    )?;
    Ok(ExitCode::SUCCESS)
}
