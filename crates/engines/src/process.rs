//! What every managed server needs: a free loopback port, a check that its
//! process is still there, a clean stop, and the end of its log.

use std::net::TcpListener;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// A loopback port free right now (it can be taken before the server binds
/// it; callers retry).
pub(crate) fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Whether the process is still there (a stopped process counts as there),
/// allowing a moment for one that is going down to be gone.
pub(crate) fn is_running(child: &mut Child) -> bool {
    let deadline = Instant::now() + Duration::from_millis(500);
    while matches!(child.try_wait(), Ok(None)) {
        if Instant::now() > deadline {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Kills the process and reaps it.
pub(crate) fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The last ten lines of a log file, or nothing.
pub(crate) fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}
