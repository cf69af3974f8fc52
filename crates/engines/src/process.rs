//! What every managed server needs: a free loopback port, a check that its
//! process is still there, a clean stop, and the end of its log.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Makes `cmd` start a process graphlancer owns: in a process group of its
/// own, so a Ctrl-C at the terminal reaches graphlancer, which stops its
/// servers in order, and not the servers behind its back (a server killed
/// by the terminal would look like a crash); and, on Linux, killed when the
/// thread that started it is gone, so a graphlancer killed outright
/// (SIGKILL) leaves no server or engine host behind. Its crashes write no
/// core files: a campaign crashes an engine thousands of times, and each
/// core of a server's address space takes seconds and disk.
pub(crate) fn owned(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    dies_with_parent(cmd);
    no_core_files(cmd);
    cmd
}

#[allow(unsafe_code)]
fn no_core_files(cmd: &mut Command) {
    // SAFETY: setrlimit is async-signal-safe and the closure touches no
    // memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            // Only the soft limit: lowering it never fails, and the hard one
            // stays where the user had it.
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::getrlimit(libc::RLIMIT_CORE, &mut limit) == 0 {
                limit.rlim_cur = 0;
                let _ = libc::setrlimit(libc::RLIMIT_CORE, &limit);
            }
            Ok(())
        });
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn dies_with_parent(cmd: &mut Command) {
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe calls are allowed; prctl is one, and the
    // closure touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

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
