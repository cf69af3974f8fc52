//! The listeners of `graphlancer run`: what it shows and writes as a
//! campaign's events arrive ([`graphlancer_oracles::campaign::events`]).
//! The progress display is a bar in a terminal and plain lines in a log;
//! JUnit and the HTML page are written when the campaign ends ([`AtEnd`]).

use std::cell::Cell;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use graphlancer_oracles::Summary;
use graphlancer_oracles::campaign::{Budget, Event, Subscriber};
use indicatif::ProgressBar;

/// The bar in a terminal; in a log, a line every [`STATUS_EVERY`] and one
/// per new report, so a long campaign is never silent until its end.
pub(crate) struct Progress {
    bar: ProgressBar,
    budget: Budget,
    status: StatusLines,
    /// Where the campaign writes, so a new report is named by its folder there.
    out: PathBuf,
    /// Whether stdout is JSON, which a report line must not disturb.
    json: bool,
}

impl Progress {
    pub(crate) fn new(budget: Budget, json: bool, out: &Path) -> Self {
        let len = match budget {
            Budget::Queries(n) => n,
            Budget::Time(t) => t.as_secs().max(1),
        };
        Self {
            bar: crate::common::progress_bar(len, json),
            budget,
            status: StatusLines::new(budget),
            out: out.to_owned(),
            json,
        }
    }

    /// Clears the bar for the summary that follows.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Subscriber for Progress {
    fn on(&mut self, event: &Event<'_>) {
        match event {
            Event::Case(s) => {
                self.status.show(s);
                match self.budget {
                    Budget::Queries(_) => self.bar.set_position(s.queries),
                    Budget::Time(_) => self.bar.set_position(s.seconds as u64),
                }
                self.bar.set_message(format!(
                    "{} queries · {:.0}/s · findings {} new, {} dup · flaky {}",
                    s.queries,
                    s.queries as f64 / s.seconds.max(1e-9),
                    s.findings_new,
                    s.findings_duplicate,
                    s.flaky
                ));
            }
            Event::Finding(c) if c.new && !self.json => {
                let dir = c.dir.strip_prefix(&self.out).unwrap_or(&c.dir);
                let line = format!("graphlancer: new report {}", dir.display());
                if self.status.on {
                    eprintln!("{line}");
                } else {
                    self.bar.println(line);
                }
            }
            _ => {}
        }
    }
}

/// How often a campaign without a terminal says how it is doing.
const STATUS_EVERY: Duration = Duration::from_secs(30);

/// A status line on stderr every [`STATUS_EVERY`] where stderr is not a
/// terminal (CI, nohup): the progress bar draws nothing there.
struct StatusLines {
    on: bool,
    budget: Budget,
    last: Cell<Instant>,
}

impl StatusLines {
    fn new(budget: Budget) -> Self {
        Self { on: !std::io::stderr().is_terminal(), budget, last: Cell::new(Instant::now()) }
    }

    fn show(&self, s: &Summary) {
        if !self.on || self.last.get().elapsed() < STATUS_EVERY {
            return;
        }
        self.last.set(Instant::now());
        let rate = s.queries as f64 / s.seconds.max(1e-9);
        let (done, elapsed) = match self.budget {
            Budget::Queries(n) => (format!("{} of {n} queries", s.queries), format!("{:.0} s", s.seconds)),
            Budget::Time(t) => (format!("{} queries", s.queries), format!("{:.0} s of {} s", s.seconds, t.as_secs())),
        };
        eprintln!(
            "graphlancer: {done} · {rate:.1} queries/s · findings {} new, {} duplicate · {elapsed}",
            s.findings_new, s.findings_duplicate
        );
    }
}

/// A file written from the final summary: `--junit FILE`, `--html`. What
/// it could not write is said after the summary, which is printed first.
pub(crate) struct AtEnd<F> {
    write: F,
    failed: Option<String>,
}

impl<F: FnMut(&Summary) -> anyhow::Result<()>> AtEnd<F> {
    pub(crate) fn new(write: F) -> Self {
        Self { write, failed: None }
    }
}

impl<F: FnMut(&Summary) -> anyhow::Result<()>> Subscriber for AtEnd<F> {
    fn on(&mut self, event: &Event<'_>) {
        if let Event::Finished(s) = event {
            self.failed = (self.write)(s).err().map(|e| format!("{e:#}"));
        }
    }

    fn failure(&self) -> Option<String> {
        self.failed.clone()
    }
}
