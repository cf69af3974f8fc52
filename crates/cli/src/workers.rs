//! `graphlancer run --workers N`: N campaign loops side by side, one thread
//! each, every one with its own engines and its own part of the seed space,
//! all writing into one findings folder (whose store deduplicates under a lock).

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use graphlancer_cypher::DialectProfile;
use graphlancer_engines::{Engine, EngineSpec};
use graphlancer_oracles::campaign::events::Counted;
use graphlancer_oracles::campaign::{Budget, Event, Subscriber};
use graphlancer_oracles::{Campaign, CampaignConfig, ReportStore, Summary};

/// How often a worker hands its running summary to the run.
const SHARE_EVERY: Duration = Duration::from_millis(200);

/// What a worker tells the run, over a channel.
enum Told {
    /// Its summary up to now.
    Running(usize, Box<Summary>),
    /// A finding it counted.
    Found(Counted),
}

/// Runs `workers` campaigns of `config`, the first on `first` (opened
/// already, which checked every spec), the others on engines of their own;
/// `to` hears the findings as they are counted, the running sum of the
/// workers' summaries and, at the end, the sum of those that finished. A
/// query budget is shared out among the workers; a time budget ends for all
/// of them at once, counted from now.
pub(crate) fn run(
    first: Vec<Box<dyn Engine>>,
    specs: &[EngineSpec],
    profile: DialectProfile,
    config: CampaignConfig,
    workers: u64,
    to: &mut dyn Subscriber,
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
    let mut first = Some(first);
    let (tell, told) = channel();
    let results: Vec<Result<Summary>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let mut own = config.clone();
                own.part = config.part.split(w, workers);
                if let Budget::Queries(n) = config.budget {
                    own.budget = Budget::Queries(n / workers + u64::from(w < n % workers));
                }
                let (store, profile, engines) = (store.clone(), profile.clone(), first.take());
                let tell = Forward { worker: w as usize, tell: tell.clone(), shared: None };
                scope.spawn(move || {
                    let result = work(engines, specs, profile, own, store, tell, begun);
                    // A worker that failed stops the others: the run reports
                    // its error now, not when their budgets end.
                    if result.is_err() {
                        graphlancer_oracles::interrupt::halt();
                    }
                    result
                })
            })
            .collect();
        // The workers hold the only senders left: the channel closes when
        // the last one ends.
        drop(tell);
        listen(&told, workers as usize, to);
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
    let sum = Summary::sum(&done);
    if let Some(sum) = &sum {
        to.on(&Event::Finished(sum));
    }
    match failure {
        Some(e) => Err(e),
        None => sum.ok_or_else(|| anyhow!("no worker ran")),
    }
}

/// Passes what the workers tell on to `to` until the last one ends: each
/// finding, and the sum of their latest summaries.
fn listen(told: &Receiver<Told>, workers: usize, to: &mut dyn Subscriber) {
    let mut latest: Vec<Option<Summary>> = vec![None; workers];
    while let Ok(first) = told.recv() {
        // Everything told meanwhile is taken at once, and summed once.
        for message in std::iter::once(first).chain(told.try_iter()) {
            match message {
                Told::Running(w, s) => latest[w] = Some(*s),
                Told::Found(c) => to.on(&Event::Finding(&c)),
            }
        }
        let running: Vec<Summary> = latest.iter().flatten().cloned().collect();
        if let Some(sum) = Summary::sum(&running) {
            to.on(&Event::Case(&sum));
        }
    }
}

/// A worker's listener: it sends its findings to the run, and its running
/// summary now and then.
struct Forward {
    worker: usize,
    tell: Sender<Told>,
    shared: Option<Instant>,
}

impl Subscriber for Forward {
    fn on(&mut self, event: &Event<'_>) {
        // A closed channel means the run stopped listening; nothing to do.
        match event {
            Event::Case(s) if self.shared.is_none_or(|t| t.elapsed() >= SHARE_EVERY) => {
                let _ = self.tell.send(Told::Running(self.worker, Box::new((*s).clone())));
                self.shared = Some(Instant::now());
            }
            Event::Finding(c) => {
                let _ = self.tell.send(Told::Found((*c).clone()));
            }
            _ => {}
        }
    }
}

/// One worker: its campaign on `engines` (or on engines it opens), telling
/// the run what it does.
fn work(
    engines: Option<Vec<Box<dyn Engine>>>,
    specs: &[EngineSpec],
    profile: DialectProfile,
    mut config: CampaignConfig,
    store: Arc<Mutex<ReportStore>>,
    mut tell: Forward,
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
    Ok(campaign.run(&mut tell)?)
}
