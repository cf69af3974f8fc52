//! Engine hosts: an embedded engine runs in a child process (the `graphlancer`
//! binary re-executed with a hidden subcommand) so that a panic, an abort or a
//! hang inside it becomes an outcome instead of the end of the campaign.
//!
//! The protocol is one JSON object a line. Requests go to the host's stdin;
//! replies come back on its stdout behind [`REPLY_MARK`], so anything else the
//! engine prints there is ignored rather than mistaken for a reply.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use graphlancer_model::{Graph, Language};
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;

/// What opening an engine may need from the caller.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How to start engine hosts for embedded engines.
    pub host_command: HostCommand,
}

/// Marks the lines of stdout that are replies.
pub const REPLY_MARK: &str = "@@graphlancer-host@@ ";

/// How many lines of the host's stderr are kept for crash reports.
const STDERR_LINES: usize = 40;

/// A request to an engine host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum HostRequest {
    /// Reports the engine's version.
    Version,
    /// Replaces the database with a new one holding `graph`.
    Load {
        /// The graph.
        graph: Box<Graph>,
    },
    /// Replaces the database with a new one made by `statements` (hosts of
    /// engines whose creation script graphlancer renders, such as Kuzu).
    Script {
        /// The creation script, in order.
        statements: Vec<String>,
    },
    /// Runs one query.
    Execute {
        /// The query text.
        query: String,
        /// Row cap.
        max_rows: usize,
        /// The client's timeout, so an engine that can stop a query itself
        /// does so before the client kills the host; 0 when unset.
        #[serde(default)]
        timeout_ms: u64,
        /// Whether the query may write ([`crate::may_write`]), so a host that
        /// restores its graph afterwards need not decide that again.
        #[serde(default)]
        writes: bool,
        /// The query's language; Cypher when absent (the Python host knows no other).
        #[serde(default, skip_serializing_if = "Language::is_cypher")]
        language: Language,
    },
}

/// A reply from an engine host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "lowercase")]
pub enum HostReply {
    /// The engine's version.
    Version {
        /// The version string.
        version: String,
    },
    /// The graph is loaded.
    Loaded,
    /// The request failed for a reason outside the query (a load error).
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The query's outcome.
    Outcome {
        /// The outcome.
        outcome: Outcome,
    },
}

/// The in-process side of a host: an embedded engine.
pub trait HostBackend {
    /// The engine's version.
    fn version(&self) -> String;
    /// Replaces the database with one holding `graph`.
    fn load(&mut self, graph: &Graph) -> Result<(), String>;
    /// Runs one query in `language`; an answer over `max_rows` rows is
    /// [`Outcome::TooLarge`].
    fn execute(&mut self, query: &str, language: Language, max_rows: usize) -> Outcome;
    /// Puts the loaded graph back as it was before a query that may write
    /// (after [`Self::begin`], by ending its transaction).
    fn restore(&mut self) -> Result<(), String>;
    /// Before a query that may write: opens a transaction whose rollback
    /// will be the restore, where the engine's rollback is exact.
    fn begin(&mut self) {}
}

/// Serves requests from `input` until it closes. Runs inside the host process.
pub fn serve(backend: &mut dyn HostBackend, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut restore = false;
        let reply = match serde_json::from_str::<HostRequest>(&line) {
            Err(e) => HostReply::Failed { message: format!("bad request: {e}") },
            Ok(HostRequest::Version) => HostReply::Version { version: backend.version() },
            Ok(HostRequest::Load { graph }) => match backend.load(&graph) {
                Ok(()) => HostReply::Loaded,
                Err(message) => HostReply::Failed { message },
            },
            Ok(HostRequest::Script { .. }) => {
                HostReply::Failed { message: "this host loads graphs, not scripts".into() }
            }
            Ok(HostRequest::Execute { query, max_rows, writes, language, .. }) => {
                test_hooks::run(&query);
                restore = writes;
                if writes {
                    backend.begin();
                }
                HostReply::Outcome { outcome: backend.execute(&query, language, max_rows) }
            }
        };
        let text = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
        writeln!(output, "{REPLY_MARK}{text}")?;
        output.flush()?;
        // After the reply, so the client's timeout measures the query alone;
        // the client waits for the next reply before it sends a query.
        if restore && let Err(e) = backend.restore() {
            // The next query would run on a damaged graph; end the host so
            // the client restarts it cleanly.
            eprintln!("cannot restore the graph after a write: {e}");
            std::process::exit(3);
        }
    }
    Ok(())
}

/// Debug builds accept queries that make the host misbehave, so tests can
/// prove the client survives what a real engine bug would do.
mod test_hooks {
    /// Panics on `graphlancer-test:panic`, aborts on `...:abort`, hangs on `...:hang`.
    #[cfg(debug_assertions)]
    pub(super) fn run(query: &str) {
        match query.trim() {
            "graphlancer-test:panic" => panic!("test hook: panic requested"),
            "graphlancer-test:abort" => std::process::abort(),
            "graphlancer-test:hang" => loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            },
            _ => {}
        }
    }

    #[cfg(not(debug_assertions))]
    pub(super) fn run(_query: &str) {}
}

/// How to start a host: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCommand {
    /// The executable, normally the running `graphlancer` binary.
    pub program: PathBuf,
    /// Arguments selecting the engine, e.g. `engine-host grafeo`.
    pub args: Vec<OsString>,
    /// Variables set in the host's environment besides graphlancer's own.
    pub env: Vec<(OsString, OsString)>,
}

impl HostCommand {
    /// The command that runs the Python host `script` ([`KUZU_HOST`],
    /// [`GRAFEO_HOST`]) with `args`, with the interpreter of one version's
    /// virtualenv.
    pub fn python(python: PathBuf, script: &str, args: &[&str]) -> Self {
        let mut all = vec!["-c".into(), script.into()];
        all.extend(args.iter().map(Into::into));
        Self { program: python, args: all, env: Vec::new() }
    }

    /// The command that re-runs the current executable as the host of `engine`.
    pub fn current_exe(engine: &str) -> std::io::Result<Self> {
        Ok(Self::new(std::env::current_exe()?, engine))
    }

    /// The command that runs `program` as the host of `engine`.
    pub fn new(program: PathBuf, engine: &str) -> Self {
        Self { program, args: vec!["engine-host".into(), engine.into()], env: Vec::new() }
    }
}

/// Why a request to a host got no reply.
#[derive(Debug)]
pub enum HostFailure {
    /// No reply within the time allowed; the host has been killed.
    Timeout,
    /// The host answered something graphlancer cannot read (a value its
    /// decoder got wrong); the host is still running.
    Unreadable {
        /// What could not be read.
        message: String,
    },
    /// The host exited or closed its output; it has been reaped.
    Died {
        /// Exit status and the last lines of its stderr.
        message: String,
    },
}

/// A running host process, seen from graphlancer.
pub struct HostProcess {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// A folder the host may keep files in (an engine without an in-memory
    /// database); removed after the host is killed, which it always is.
    _scratch: tempfile::TempDir,
}

/// The environment variable that names a host's scratch folder.
pub const SCRATCH_ENV: &str = "GRAPHLANCER_HOST_SCRATCH";

/// The environment variable that names a folder the hosts of one engine
/// share while it lives: where a host keeps copies of the databases it
/// loaded, so that the next host, started after a crash, copies the graph
/// instead of creating it again.
pub const SNAPSHOTS_ENV: &str = "GRAPHLANCER_HOST_SNAPSHOTS";

impl HostProcess {
    /// Starts the host.
    pub fn spawn(cmd: &HostCommand) -> std::io::Result<Self> {
        let scratch = tempfile::Builder::new().prefix("graphlancer-host-").tempdir()?;
        let mut child = crate::process::owned(&mut Command::new(&cmd.program))
            .args(&cmd.args)
            .env(SCRATCH_ENV, scratch.path())
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(reply) = line.strip_prefix(REPLY_MARK)
                    && tx.send(reply.to_owned()).is_err()
                {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_LINES {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        Ok(Self { child, stdin, replies, stderr_tail, _scratch: scratch })
    }

    /// The host's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `request` and waits at most `timeout` for the reply.
    pub fn request(&mut self, request: &HostRequest, timeout: Duration) -> Result<HostReply, HostFailure> {
        let text = serde_json::to_string(request).expect("requests always serialize");
        if writeln!(self.stdin, "{text}").and_then(|()| self.stdin.flush()).is_err() {
            return Err(self.died());
        }
        match self.replies.recv_timeout(timeout) {
            Ok(line) => serde_json::from_str(&line).map_err(|e| HostFailure::Unreadable {
                message: format!("unreadable reply from the engine host: {e}"),
            }),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(HostFailure::Timeout)
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.died()),
        }
    }

    fn died(&mut self) -> HostFailure {
        // The stdout reader may see EOF a moment before the process is gone.
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| format!("unknown status ({e})"));
        // Give the stderr reader a moment to drain the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let tail =
            self.stderr_tail.lock().map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n")).unwrap_or_default();
        let message = if tail.is_empty() {
            format!("engine host died: {status}")
        } else {
            format!("engine host died: {status}\n{tail}")
        };
        HostFailure::Died { message }
    }

    /// Kills the host and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
