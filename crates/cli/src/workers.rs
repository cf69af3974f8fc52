//! `graphlancer run --workers N`: N campaign loops side by side, one thread
//! each, every one with its own engines and its own part of the seed space,
//! all writing into one findings folder (whose store deduplicates under a lock).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use graphlancer_cypher::DialectProfile;
use graphlancer_engines::{Engine, EngineSpec};
use graphlancer_oracles::campaign::{Budget, write_summary};
use graphlancer_oracles::{Campaign, CampaignConfig, ReportStore, Summary};

/// How often a worker hands its running summary to the run.
const SHARE_EVERY: Duration = Duration::from_millis(200);

/// How often the run writes the sum of its workers' summaries.
const WRITE_EVERY: Duration = Duration::from_secs(1);

/// Runs `workers` campaigns of `config`, the first on `first` (opened
/// already, which checked every spec), the others on engines of their own;
/// `show` sees the running sum. A query budget is shared out among the
/// workers; a time budget ends for all of them at once, counted from now.
pub(crate) fn run(
    first: Vec<Box<dyn Engine>>,
    specs: &[EngineSpec],
    profile: DialectProfile,
    config: CampaignConfig,
    workers: u64,
    show: &dyn Fn(&Summary),
) -> Result<Summary> {
    let workers = match config.budget {
        Budget::Queries(n) => workers.min(n.max(1)),
        Budget::Time(_) => workers,
    };
    let begun = Instant::now();
    // Refused before the store makes OUT/findings: a bad configuration
    // leaves nothing behind.
    let config = Campaign::prepare(&first, config)?;
    let store = Arc::new(Mutex::new(ReportStore::open(&config.out)?));
    let latest: Vec<Mutex<Option<Summary>>> = (0..workers).map(|_| Mutex::new(None)).collect();
    let mut first = Some(first);
    let results: Vec<Result<Summary>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let mut own = config.clone();
                own.part = config.part.split(w, workers);
                own.write_summary = false;
                if let Budget::Queries(n) = config.budget {
                    own.budget = Budget::Queries(n / workers + u64::from(w < n % workers));
                }
                let (store, slot, profile, engines) =
                    (store.clone(), &latest[w as usize], profile.clone(), first.take());
                scope.spawn(move || {
                    let result = work(engines, specs, profile, own, store, slot, begun);
                    // A worker that failed stops the others: the run reports
                    // its error now, not when their budgets end.
                    if result.is_err() {
                        graphlancer_oracles::interrupt::halt();
                    }
                    result
                })
            })
            .collect();
        let mut written = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(100));
            let running: Vec<Summary> =
                latest.iter().filter_map(|s| s.lock().unwrap_or_else(PoisonError::into_inner).clone()).collect();
            if let Some(sum) = Summary::sum(&running) {
                show(&sum);
                if written.elapsed() >= WRITE_EVERY {
                    // A failed write now is reported by the final one.
                    let _ = write_summary(&config.out, &sum);
                    written = Instant::now();
                }
            }
        }
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a campaign worker panicked")))).collect()
    });
    let (mut done, mut failure) = (Vec::with_capacity(results.len()), None);
    for r in results {
        match r {
            Ok(summary) => done.push(summary),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    // What the workers that finished did is kept, even when one failed.
    let mut sum = Summary::sum(&done);
    if let Some(sum) = &mut sum {
        sum.summary_unwritten = write_summary(&config.out, sum).err().map(|e| e.to_string());
    }
    match failure {
        Some(e) => Err(e),
        None => sum.ok_or_else(|| anyhow!("no worker ran")),
    }
}

/// One worker: its campaign on `engines` (or on engines it opens), handing
/// its running summary to `slot` now and then.
fn work(
    engines: Option<Vec<Box<dyn Engine>>>,
    specs: &[EngineSpec],
    profile: DialectProfile,
    mut config: CampaignConfig,
    store: Arc<Mutex<ReportStore>>,
    slot: &Mutex<Option<Summary>>,
    begun: Instant,
) -> Result<Summary> {
    let engines = match engines {
        Some(e) => e,
        None => crate::common::open_all(specs)?,
    };
    // A worker whose engines took long to start has that much less time:
    // with 64 workers on 2 cores the last ones started seconds late, and
    // the campaign ran on after its budget.
    if let Budget::Time(t) = config.budget {
        config.budget = Budget::Time(t.saturating_sub(begun.elapsed()));
    }
    let mut campaign = Campaign::sharing(engines, profile, config, store)?;
    let mut shared = Instant::now() - SHARE_EVERY;
    Ok(campaign.run(&mut |s: &Summary| {
        if shared.elapsed() >= SHARE_EVERY {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(s.clone());
            shared = Instant::now();
        }
    })?)
}
