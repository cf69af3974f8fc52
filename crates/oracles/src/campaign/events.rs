//! What a campaign tells the world as it goes, as nextest's runner tells its
//! reporters: the loop emits events and knows nothing of who listens. The
//! summary file, the progress display, JUnit and the HTML report are each a
//! [`Subscriber`]; a worker of a parallel run is one too, forwarding to the
//! run's own subscribers.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::summary::{Summary, write_summary};

/// One thing that happened in a campaign.
#[derive(Debug)]
pub enum Event<'a> {
    /// A case was judged (or dropped); the summary up to now.
    Case(&'a Summary),
    /// A confirmed finding was counted: written as a new report, or counted
    /// as a duplicate of the report in `dir`.
    Finding(&'a Counted),
    /// The campaign ended; its final summary.
    Finished(&'a Summary),
}

/// A confirmed finding as counted, owned so that a worker can send it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The signature of the report it was counted under.
    pub signature: String,
    /// The report's folder.
    pub dir: PathBuf,
    /// Whether the report is new (else the finding is its duplicate).
    pub new: bool,
}

/// Something that listens to a campaign.
pub trait Subscriber {
    /// Called for each event, in order, on the campaign's thread.
    fn on(&mut self, event: &Event<'_>);

    /// What it could not do (a file a full disk refused), said once the
    /// campaign has ended: a subscriber's failure never stops a campaign.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// Hands every event to each subscriber in turn.
impl Subscriber for Vec<&mut dyn Subscriber> {
    fn on(&mut self, event: &Event<'_>) {
        for s in self.iter_mut() {
            s.on(event);
        }
    }

    fn failure(&self) -> Option<String> {
        let all: Vec<String> = self.iter().filter_map(|s| s.failure()).collect();
        (!all.is_empty()).then(|| all.join("; "))
    }
}

/// Listens to nothing; for callers that only want the final summary.
pub struct Quiet;

impl Subscriber for Quiet {
    fn on(&mut self, _: &Event<'_>) {}
}

/// Keeps `OUT/summary.json` current: at most once a second while the
/// campaign runs, so a killed campaign leaves a recent one, and whole at
/// its end.
pub struct SummaryFile {
    out: PathBuf,
    last: Option<Instant>,
    failed: Option<String>,
}

/// How often a running campaign refreshes `summary.json`.
const SUMMARY_EVERY: Duration = Duration::from_secs(1);

impl SummaryFile {
    /// The summary of the campaign writing into `out`.
    pub fn new(out: &Path) -> Self {
        Self { out: out.to_owned(), last: None, failed: None }
    }

    fn write(&mut self, s: &Summary) {
        // A running summary that cannot be written (a full disk) is said at
        // the end, by the last write's error; the campaign goes on.
        self.failed = write_summary(&self.out, s).err().map(|e| e.to_string());
        self.last = Some(Instant::now());
    }
}

impl Subscriber for SummaryFile {
    fn on(&mut self, event: &Event<'_>) {
        match event {
            Event::Case(s) if self.last.is_none_or(|t| t.elapsed() >= SUMMARY_EVERY) => self.write(s),
            Event::Finished(s) => self.write(s),
            _ => {}
        }
    }

    fn failure(&self) -> Option<String> {
        self.failed.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what it hears.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Subscriber for Log {
        fn on(&mut self, event: &Event<'_>) {
            self.0.push(match event {
                Event::Case(s) => format!("case {}", s.queries),
                Event::Finding(c) => format!("finding {} {}", c.signature, c.new),
                Event::Finished(s) => format!("finished {}", s.queries),
            });
        }
    }

    #[test]
    fn every_subscriber_hears_every_event_in_order_and_a_failure_is_kept_for_the_end() {
        let (mut a, mut b) = (Log::default(), Log::default());
        let dir = tempfile::tempdir().expect("tempdir");
        // A folder that does not exist: the summary cannot be written.
        let mut file = SummaryFile::new(&dir.path().join("missing"));
        let s = Summary { queries: 3, ..Summary::default() };
        let found = Counted { signature: "x".into(), dir: dir.path().into(), new: true };
        {
            let mut all: Vec<&mut dyn Subscriber> = vec![&mut a, &mut b, &mut file];
            all.on(&Event::Case(&s));
            all.on(&Event::Finding(&found));
            all.on(&Event::Finished(&s));
            assert!(all.failure().is_some_and(|f| f.contains("summary.json")), "{:?}", all.failure());
        }
        assert_eq!(a.0, ["case 3", "finding x true", "finished 3"]);
        assert_eq!(a.0, b.0);
    }

    #[test]
    fn the_summary_file_is_written_at_the_first_case_and_at_the_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut file = SummaryFile::new(dir.path());
        file.on(&Event::Case(&Summary { queries: 1, ..Summary::default() }));
        let read = || -> Summary {
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).expect("written"))
                .expect("a summary")
        };
        assert_eq!(read().queries, 1);
        // Within the second: not rewritten for a case, rewritten at the end.
        file.on(&Event::Case(&Summary { queries: 2, ..Summary::default() }));
        assert_eq!(read().queries, 1);
        file.on(&Event::Finished(&Summary { queries: 5, ..Summary::default() }));
        assert_eq!(read().queries, 5);
        assert_eq!(file.failure(), None);
    }
}
