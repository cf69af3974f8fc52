//! Stopping a campaign from outside: SIGTERM and SIGINT end it cleanly
//! (summary marked interrupted, servers stopped, exit 128 + the signal), and
//! SIGKILL leaves no server or engine host behind.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::binary;
use super::faults::children;

/// Whether a process is alive (a zombie is not).
fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
    matches!(state, Some(s) if s != "Z" && s != "X")
}

/// A FalkorDB campaign long enough to be stopped, once its server runs;
/// with its server's process id. The caller waits for the child it gets.
#[allow(clippy::zombie_processes)]
fn campaign(out: &std::path::Path) -> (Child, Vec<u32>) {
    let mut child = Command::new(binary())
        .args(["run", "--engine", "falkordb", "--time", "5m", "--out", out.to_str().expect("utf-8")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("graphlancer runs");
    let started = Instant::now();
    loop {
        let kids = children(child.id());
        if !kids.is_empty() {
            // Let it run some queries.
            std::thread::sleep(Duration::from_secs(3));
            return (child, kids);
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no server started within a minute");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args([name, &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
}

fn wait(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            return status;
        }
        assert!(started.elapsed() < within, "still running {within:?} after the signal");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigterm_and_sigint_end_a_campaign_with_its_summary_and_no_server_left() {
    for (name, code) in [("-TERM", 143), ("-INT", 130)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut child, servers) = campaign(dir.path());
        signal(&child, name);
        let status = wait(&mut child, Duration::from_secs(60));
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut err).expect("stderr");
        assert_eq!(status.code(), Some(code), "{name}: {err}");
        assert!(err.contains("stopped by SIG"), "{err}");
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("summary.json")).expect("the summary is written"),
        )
        .expect("JSON");
        assert_eq!(summary["interrupted"], if code == 143 { "SIGTERM" } else { "SIGINT" });
        assert!(summary["graphs"].as_u64().unwrap_or(0) > 0, "{summary}");
        for pid in servers {
            assert!(!alive(pid), "{name}: process {pid} outlived graphlancer");
        }
    }
}

#[test]
fn sigkill_leaves_no_server_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, servers) = campaign(dir.path());
    signal(&child, "-KILL");
    wait(&mut child, Duration::from_secs(10));
    let started = Instant::now();
    while servers.iter().any(|&p| alive(p)) {
        assert!(started.elapsed() < Duration::from_secs(10), "servers {servers:?} outlived a killed graphlancer");
        std::thread::sleep(Duration::from_millis(50));
    }
}
