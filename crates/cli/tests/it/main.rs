//! graphlancer's one integration-test binary: adapters and the CLI against
//! real engines (Grafeo in its host, FalkorDB servers from `.engines/`).

mod bolt;
mod bugs;
mod campaign;
mod cli;
mod coverage;
mod cross;
mod disk;
mod falkordb;
mod faults;
mod generator;
mod grafeo;
mod gremlin;
mod harness;
mod known_bugs;
mod kuzu;
mod probe;
mod reference;
mod restore;
mod scale;
mod settings;
mod slurm;
mod stop;
mod tck;

use std::path::PathBuf;

use graphlancer_engines::host::HostCommand;
use graphlancer_engines::install::EnginesDir;
use graphlancer_engines::{ExecOptions, Outcome};
use graphlancer_model::{Graph, GraphConfig, ResultSet, generate};

/// The `graphlancer` binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_graphlancer"))
}

/// Runs the binary under test with `args`.
pub fn graphlancer(args: &[&str]) -> std::process::Output {
    std::process::Command::new(binary()).args(args).output().expect("graphlancer runs")
}

/// A command's stderr as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command that starts a Grafeo host from the binary under test.
pub fn grafeo_host() -> HostCommand {
    HostCommand::new(binary(), "grafeo")
}

/// The installed engines; the test command installs them first.
pub fn engines_dir() -> EnginesDir {
    EnginesDir::locate().expect("no .engines/ folder: run scripts/setup-engines.sh (the README's test command does)")
}

/// A generated graph of the given size.
pub fn graph(seed: u64, nodes: usize, relationships: usize) -> Graph {
    generate(seed, &GraphConfig { nodes, relationships, ..GraphConfig::default() }).expect("valid config")
}

/// The rows of an outcome, failing the test with the outcome otherwise.
pub fn rows(outcome: Outcome) -> ResultSet {
    match outcome {
        Outcome::Rows(r) => r,
        other => panic!("expected rows, got {other:?}"),
    }
}

/// Options with a short timeout, for tests that provoke one.
pub fn timeout_ms(ms: u64) -> ExecOptions {
    ExecOptions { timeout: std::time::Duration::from_millis(ms), ..ExecOptions::default() }
}

/// How many nodes the engine holds now.
pub fn node_count(engine: &mut dyn graphlancer_engines::Engine) -> graphlancer_model::Value {
    rows(engine.execute("MATCH (n) RETURN count(n) AS c", &ExecOptions::default()).expect("reachable"))
        .scalar()
        .cloned()
        .expect("one value")
}

/// Sends `sig` (e.g. `-9`, `-STOP`) to a process.
pub fn signal(pid: u32, sig: &str) {
    let status = std::process::Command::new("kill").args([sig, &pid.to_string()]).status().expect("kill runs");
    assert!(status.success(), "kill {sig} {pid}");
}
