//! Triage of one finding folder: `replay`, `reduce` and `bisect`, and
//! whether a case shows on another release ([`shows_on`]), which `bisect`
//! and the bug ledger's live check share.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use graphlancer_engines::{EngineSpec, ExecOptions};
use graphlancer_oracles::recheck::{FLAKY_TRIES, Plain, recheck};
use graphlancer_oracles::reduce::Limits;
use graphlancer_oracles::report::{Case, read_case};
use graphlancer_oracles::{JudgeCx, Verdict, oracle};

use crate::common::open_all;

/// `graphlancer replay DIR`: 0 reproduces, 1 does not, 2 error.
pub(crate) fn replay(dir: &Path, timeout: Duration) -> Result<ExitCode> {
    let case = read_case(&dir.join("case.json"))?;
    let specs: Vec<EngineSpec> = case.engines.iter().map(|e| e.spec.parse()).collect::<Result<_, _>>()?;
    let mut engines = open_all(&specs)?;
    let case_queries = case.test_case();
    let names: Vec<String> = case.engines.iter().map(|e| e.spec.clone()).collect();
    let judge = JudgeCx { names: &names, schema: &case.graph.schema };
    // A flaky case (it showed in only some replays when it was reduced) is
    // run until it shows, at most FLAKY_TRIES times, each on a fresh load.
    let tries = case.tries();
    let exec = ExecOptions { timeout, ..ExecOptions::default() };
    let mut plain = Plain { engines: &mut engines, exec: &exec, reload: Some(&case.graph) };
    let rechecked = recheck(&mut plain, oracle(case.oracle), &judge, &case_queries, tries, |f| {
        case.signature.recognizes(&f.signature)
    })?;
    if let Some(attempt) = rechecked.shown_on.filter(|_| tries > 1) {
        say!("flaky case: shown on try {attempt} of at most {tries}")?;
    }
    let verdict = rechecked.verdict;
    match verdict {
        Verdict::Finding(f) if case.signature.recognizes(&f.signature) => {
            say!("reproduces: {}", f.summary)?;
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Finding(f) => {
            say!("does not reproduce as recorded: now {}, recorded {}", f.signature, case.signature)?;
            Ok(ExitCode::from(1))
        }
        Verdict::FeatureDifference(d) => {
            say!("does not reproduce: {} refuses the query now, a construct it lacks ({})", d.engine, d.construct)?;
            Ok(ExitCode::from(1))
        }
        Verdict::Skip(reason) => {
            say!("does not reproduce: the case cannot be judged now ({reason})")?;
            Ok(ExitCode::from(1))
        }
        Verdict::Pass => {
            say!("does not reproduce: the {} oracle finds nothing wrong now", case.oracle)?;
            Ok(ExitCode::from(1))
        }
    }
}

/// `graphlancer reduce DIR`: reduces a finding further (one written with
/// `--no-reduce`, cut short by its limits, or from an older graphlancer) and
/// writes it back; 0 when it reproduced, 1 when it did not, 2 on error.
pub(crate) fn reduce(dir: &Path, timeout: Duration, limits: Limits) -> Result<ExitCode> {
    use graphlancer_oracles::reduce::Reducer;
    use graphlancer_oracles::report::{ReductionState, rewrite};

    let mut case = read_case(&dir.join("case.json"))?;
    let specs: Vec<EngineSpec> = case.engines.iter().map(|e| e.spec.parse()).collect::<Result<_, _>>()?;
    let mut engines = open_all(&specs)?;
    let test_case = case.test_case();
    let exec = ExecOptions { timeout, ..ExecOptions::default() };
    for e in &mut engines {
        e.load(&case.graph)?;
    }
    let names: Vec<String> = case.engines.iter().map(|e| e.spec.clone()).collect();
    let graph = case.graph.clone();
    let judge = JudgeCx { names: &names, schema: &graph.schema };
    let o = oracle(case.oracle);
    // A flaky case gets as many tries as `replay` gives it.
    let mut found = None;
    for _ in 0..case.tries() {
        let outcomes = graphlancer_oracles::recheck::outcomes(&mut engines, &test_case.queries, &exec)?;
        if let Verdict::Finding(f) = o.judge(&judge, &test_case, &outcomes)
            && case.signature.same_family(&f.signature)
        {
            found = Some(f);
            break;
        }
    }
    let Some(found) = found else {
        say!("does not reproduce: nothing to reduce (graphlancer replay {} says more)", dir.display())?;
        return Ok(ExitCode::from(1));
    };
    let started = std::time::Instant::now();
    let set_keys_on_every_table = engines.iter().any(|e| {
        graphlancer_cypher::profile::DialectProfile::built_in(e.dialect())
            .is_ok_and(|p| p.records(graphlancer_cypher::profile::SemanticsKey::SetMissingKey))
    });
    let mut reducer = Reducer {
        engines: &mut engines,
        oracle: o,
        judge: &judge,
        exec: &exec,
        limits,
        set_keys_on_every_table,
        graph: &graph,
    };
    let reduction = reducer.reduce(&test_case, &found.signature.family())?;
    let before = (case.query.len(), case.graph.nodes.len() + case.graph.relationships.len());
    let state = reduction.state;
    if let Some(r) = reduction.reduced {
        case.take_reduction(r);
    }
    case.reduction = state;
    rewrite(dir, &case)?;
    say!(
        "{} in {:.1} s ({} candidates): query {} → {} characters, graph {} → {} entities\n{}",
        match case.reduction {
            ReductionState::Finished => "reduced to a fixpoint",
            ReductionState::NotReplayed => "not reduced: what was smaller did not show the finding on a fresh load",
            _ => "reduction stopped at its limits",
        },
        started.elapsed().as_secs_f64(),
        reduction.attempts,
        before.0,
        case.query.len(),
        before.1,
        case.graph.nodes.len() + case.graph.relationships.len(),
        case.query
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `graphlancer bisect DIR --engine FAMILY`: which released versions of
/// the engine family of a finding show it. The case's last engine of that
/// family is replaced by each version tried (installed as needed); a
/// version shows the finding when the finding's oracle judges the same kind
/// of wrong answer. Releases are assumed to change behaviour once between
/// the oldest and the case's own version, which a binary search finds.
pub(crate) fn bisect(dir: &Path, family: &str, replace: Option<&str>, timeout: Duration) -> Result<ExitCode> {
    use graphlancer_engines::install::engines_dir;
    use graphlancer_oracles::report::{Bisection, rewrite};

    let Some((family, versioned)) = graphlancer_engines::families::versioned(family) else {
        anyhow::bail!(
            "bisect knows the released versions of {}, not '{family}'",
            graphlancer_engines::families::versioned_names()
        );
    };
    let mut case = read_case(&dir.join("case.json"))?;
    // `grafeo?factorized_execution=false` and `kuzu@0.11.3` are both of their family.
    let of_family = |spec: &str| spec.split(['@', '?']).next() == Some(family);
    let at = match replace {
        Some(spec) => case.engines.iter().position(|e| e.spec == spec).filter(|_| of_family(spec)),
        None => case.engines.iter().rposition(|e| of_family(&e.spec)),
    };
    let Some(at) = at else {
        let specs: Vec<&str> = case.engines.iter().map(|e| e.spec.as_str()).collect();
        anyhow::bail!(
            "the finding in {} has no {family} engine {} (its engines: {})",
            dir.display(),
            replace.unwrap_or(""),
            specs.join(", ")
        );
    };
    // The release the engine said it was: the embedded `grafeo` names none in its spec.
    let own = case.engines[at].version.clone();
    let versions = versioned.released().map_err(anyhow::Error::msg)?;
    let Some(k) = versions.iter().position(|v| *v == own) else {
        anyhow::bail!("{family} {own} is not among the released versions ({})", versions.join(", "));
    };
    let installs = engines_dir(family)?;
    let exec = ExecOptions { timeout, ..ExecOptions::default() };
    let mut tried: Vec<(String, bool)> = Vec::new();
    let mut unusable: Vec<String> = Vec::new();
    let mut shows = |version: &str| -> Result<bool> {
        if let Some((_, s)) = tried.iter().find(|(v, _)| v == version) {
            return Ok(*s);
        }
        eprintln!("bisect: {family}@{version}");
        versioned.install(&installs, version).map_err(anyhow::Error::msg)?;
        let shown = match shows_on(&case, at, &format!("{family}@{version}").parse()?, &exec)? {
            Shown::Yes => true,
            Shown::No => false,
            // A release that does not start (a placeholder package, an API
            // of its own) or cannot hold the graph says nothing about the bug.
            Shown::Unusable(why) => {
                eprintln!("bisect: {family}@{version} {why}");
                unusable.push(version.to_owned());
                false
            }
        };
        tried.push((version.to_owned(), shown));
        Ok(shown)
    };
    if !shows(&versions[k])? {
        say!("does not reproduce on {family}@{own}: nothing to bisect")?;
        return Ok(ExitCode::from(1));
    }
    let (first, last_not) = if shows(&versions[0])? {
        (0, None)
    } else {
        let (mut lo, mut hi) = (0, k);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if shows(&versions[mid])? { hi = mid } else { lo = mid }
        }
        (hi, Some(lo))
    };
    let newest = versions.len() - 1;
    let fixed = if k < newest && !shows(&versions[newest])? {
        let (mut lo, mut hi) = (k, newest);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if shows(&versions[mid])? { lo = mid } else { hi = mid }
        }
        Some(versions[hi].clone())
    } else {
        None
    };
    tried.sort_by_key(|(v, _)| versions.iter().position(|x| x == v));
    // A release that does not start says nothing about where the finding began.
    let last_not = last_not.filter(|&i| !unusable.contains(&versions[i]));
    let b = Bisection {
        engine: family.to_owned(),
        replaced: case.engines[at].spec.clone(),
        tried,
        first_showing: Some(versions[first].clone()),
        last_not_showing: last_not.map(|i| versions[i].clone()),
        fixed_in: fixed,
        cannot_start: unusable,
    };
    say!(
        "{family}: first shown by {}{}{}",
        versions[first],
        b.last_not_showing.as_ref().map_or_else(|| " (the oldest release)".to_owned(), |v| format!(", not by {v}")),
        b.fixed_in.as_ref().map_or_else(String::new, |v| format!("; gone in {v}"))
    )?;
    case.bisection = Some(b);
    rewrite(dir, &case)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether a case shows on another release.
pub(crate) enum Shown {
    /// The oracle judges the same kind of wrong, with that release in it.
    Yes,
    /// It judges nothing wrong, or something else.
    No,
    /// The release does not start, or cannot hold the graph.
    Unusable(String),
}

/// Runs `case` with its engine at `at` replaced by `spec` (installed) and
/// judges it. The release tried must be in the finding: a crash of the
/// engine kept beside it says nothing about this release.
pub(crate) fn shows_on(case: &Case, at: usize, spec: &EngineSpec, exec: &ExecOptions) -> Result<Shown> {
    let mut specs: Vec<EngineSpec> = case.engines.iter().map(|e| e.spec.parse()).collect::<Result<_, _>>()?;
    specs[at] = spec.clone();
    let names: Vec<String> = specs.iter().map(ToString::to_string).collect();
    let mut engines = match open_all(&specs) {
        Ok(e) => e,
        Err(e) => {
            return Ok(Shown::Unusable(format!("does not start: {}", e.to_string().lines().next().unwrap_or(""))));
        }
    };
    if engines.iter_mut().any(|e| e.load(&case.graph).is_err()) {
        return Ok(Shown::Unusable("cannot load the graph".into()));
    }
    // A finding that showed in only some replays gets as many tries on each
    // release as a replay gives it before the release counts as not showing it.
    let tries = if case.replays.is_some_and(|(shown, ran)| shown < ran) { FLAKY_TRIES } else { 1 };
    let judge = JudgeCx { names: &names, schema: &case.graph.schema };
    let mut plain = Plain { engines: &mut engines, exec, reload: None };
    let rechecked = recheck(&mut plain, oracle(case.oracle), &judge, &case.test_case(), tries, |f| {
        case.signature.same_kind(&f.signature) && f.signature.engines.contains(&names[at])
    })?;
    Ok(if rechecked.shown_on.is_some() { Shown::Yes } else { Shown::No })
}
