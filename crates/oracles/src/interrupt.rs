//! A stop asked for from outside the campaign (SIGINT, SIGTERM): the
//! campaign ends at the next query as if its budget were spent, a reduction
//! under way gives up and its finding is written as it is, the summary says
//! it was interrupted, and the engines stop their servers as they are
//! dropped. The command-line tool connects the signals to [`flag`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The flag a signal handler sets to the signal's number; 0 while nothing
/// asked for a stop.
pub fn flag() -> Arc<AtomicUsize> {
    cell().clone()
}

fn cell() -> &'static Arc<AtomicUsize> {
    static FLAG: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// The number of the signal that asked for a stop, if one did; checked
/// once per query and per reduction candidate.
pub fn requested() -> Option<i32> {
    match cell().load(Ordering::Relaxed) {
        0 => None,
        s => i32::try_from(s).ok(),
    }
}

/// Whether a stop was asked for, by a signal or by [`halt`].
pub fn stopping() -> bool {
    requested().is_some() || HALT.load(Ordering::Relaxed)
}

static HALT: AtomicBool = AtomicBool::new(false);

/// Stops every campaign loop of this process at its next query, as a
/// signal does but without one: a worker that failed stops the others, so
/// the run reports its error now, not when their budgets end.
pub fn halt() {
    HALT.store(true, Ordering::Relaxed);
}

/// The name of a stopping signal, for the summary.
pub fn name(signal: i32) -> String {
    match signal {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        1 => "SIGHUP".into(),
        s => format!("signal {s}"),
    }
}
