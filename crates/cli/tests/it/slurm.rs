//! The sharded campaign on a real scheduler: a one-node Slurm (munged,
//! slurmctld, slurmd; `deploy/slurm/local-cluster.sh`) runs
//! `deploy/slurm/submit.sh`'s array of two shards and the merge job that
//! depends on it, and the merged folder holds both shards' work.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

/// A free TCP port, for a cluster that shares the machine with others.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// A started cluster, stopped when dropped (also when the test fails).
struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    /// `None`, said plainly on stderr, where Slurm cannot run here.
    fn start() -> Option<Self> {
        let missing: Vec<&str> =
            ["munged", "slurmctld", "slurmd", "sbatch"].into_iter().filter(|t| which(t).is_none()).collect();
        if !missing.is_empty() {
            eprintln!(
                "SKIPPED: no Slurm here ({} missing; scripts/test.sh installs slurm-wlm as root)",
                missing.join(", ")
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let o = Command::new(deploy().join("slurm/local-cluster.sh"))
            .arg("start")
            .arg(dir.path())
            .env("SLURMCTLD_PORT", free_port().to_string())
            .env("SLURMD_PORT", free_port().to_string())
            .output()
            .expect("local-cluster.sh runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "the cluster did not start: {err}");
        Some(Self { dir })
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    fn squeue(&self, args: &[&str]) -> String {
        let o = Command::new("squeue").args(args).env("SLURM_CONF", self.conf()).output().expect("squeue runs");
        // An unreachable controller prints nothing: that is not "no jobs".
        assert!(o.status.success(), "squeue: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(deploy().join("slurm/local-cluster.sh")).arg("stop").arg(self.dir.path()).status();
    }
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(tool)).find(|p| p.is_file())
}

#[test]
fn a_one_node_slurm_runs_the_sharded_campaign_and_merges_it() {
    let Some(cluster) = Cluster::start() else { return };
    let results = cluster.dir.path().join("results");
    let o = Command::new(deploy().join("slurm/submit.sh"))
        .arg("2")
        .current_dir(cluster.dir.path())
        .env("SLURM_CONF", cluster.conf())
        .env("GRAPHLANCER", crate::binary())
        .env("RESULTS", &results)
        .env("ENGINES", "grafeo")
        .env("BUDGET", "--queries 60")
        .env("SEED", "3")
        .output()
        .expect("submit.sh runs");
    assert!(o.status.success(), "submit.sh: {}", String::from_utf8_lossy(&o.stderr));
    let deadline = Instant::now() + Duration::from_secs(300);
    while !cluster.squeue(&["-h", "-o", "%i"]).trim().is_empty() {
        assert!(Instant::now() < deadline, "the jobs did not end in 5 minutes: {}", cluster.squeue(&["-h"]));
        std::thread::sleep(Duration::from_millis(250));
    }
    // Both array tasks and the merge ended well, the merge last.
    let states = cluster.squeue(&["-h", "-t", "all", "-o", "%j %T"]);
    let lines: Vec<&str> = states.lines().collect();
    assert_eq!(lines.iter().filter(|l| **l == "graphlancer COMPLETED").count(), 2, "{states}");
    assert!(lines.contains(&"graphlancer-merge COMPLETED"), "{states}");
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("merged/summary.json")).expect("merged summary"))
            .expect("JSON");
    assert_eq!(merged["queries"], 120, "two shards of 60 queries: {merged}");
    assert!(results.join("merged/report.html").is_file());
    assert!(results.join("shard-0.junit.xml").is_file() && results.join("shard-1.junit.xml").is_file());
}
