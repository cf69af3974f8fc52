//! The adapter for engines that run in an engine host process: Grafeo (the
//! `graphlancer` binary re-executed) and Kuzu or LadybugDB (a Python host in
//! one version's virtualenv). It owns the host and starts a new one, with
//! the graph reloaded, whenever a query kills or hangs the old one.

use std::time::{Duration, Instant};

use graphlancer_model::{Graph, Language, ScriptDialect, creation_script};

use crate::host::{HostCommand, HostFailure, HostProcess, HostReply, HostRequest};
use crate::outcome::Outcome;
use crate::{Engine, EngineError, ExecOptions, Overhead, may_write_in, millis};

/// Loading a graph and answering the version request are bounded too, but loosely.
const SETUP_TIMEOUT: Duration = Duration::from_secs(120);

/// How a host takes a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadForm {
    /// The graph itself, as JSON (Grafeo's host renders its own script).
    Graph,
    /// A creation script graphlancer renders in this dialect.
    Script(ScriptDialect),
}

/// What distinguishes one hosted engine from another.
#[derive(Debug, Clone)]
pub struct HostedKind {
    /// The spec users wrote, e.g. `kuzu@0.11.3`; names the engine in reports.
    pub name: String,
    /// The engine family, for error messages: `grafeo`, `kuzu`, `ladybug`.
    pub engine: &'static str,
    /// The dialect profile.
    pub dialect: &'static str,
    /// How the host takes a graph.
    pub load: LoadForm,
    /// The languages the engine answers.
    pub languages: &'static [Language],
    /// How its `EXPLAIN` reads as operators; `None` where it has none.
    pub plan: Option<fn(&str) -> Vec<String>>,
}

/// An engine in a host process.
pub struct HostedEngine {
    kind: HostedKind,
    command: HostCommand,
    host: Option<HostProcess>,
    /// The hosts' shared folder of loaded databases ([`crate::host::SNAPSHOTS_ENV`]),
    /// after the host: removed once the host is killed.
    snapshots: tempfile::TempDir,
    graph: Option<Graph>,
    version: String,
    overhead: Overhead,
}

impl HostedEngine {
    /// Starts a host with `command` and asks its version.
    pub fn start(kind: HostedKind, mut command: HostCommand) -> Result<Self, EngineError> {
        let snapshots = tempfile::Builder::new()
            .prefix("graphlancer-snapshots-")
            .tempdir()
            .map_err(|e| EngineError::Start { engine: kind.engine, detail: format!("a folder for snapshots: {e}") })?;
        command.env.push((crate::host::SNAPSHOTS_ENV.into(), snapshots.path().into()));
        let mut engine = Self {
            kind,
            command,
            snapshots,
            host: None,
            graph: None,
            version: String::new(),
            overhead: Overhead::default(),
        };
        let host = engine.spawn()?;
        engine.host = Some(host);
        Ok(engine)
    }

    /// The folder the hosts keep copies of loaded databases in.
    pub fn snapshots(&self) -> &std::path::Path {
        self.snapshots.path()
    }

    /// The process id of the running host, if one runs.
    pub fn host_pid(&self) -> Option<u32> {
        self.host.as_ref().map(HostProcess::pid)
    }

    /// Starts a host and loads the current graph into it. A host that dies
    /// while starting (an engine crash, a signal from outside) is replaced,
    /// up to three times.
    fn spawn(&mut self) -> Result<HostProcess, EngineError> {
        let mut last = None;
        for _ in 0..3 {
            match self.spawn_once() {
                Ok(host) => return Ok(host),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one attempt ran"))
    }

    fn spawn_once(&mut self) -> Result<HostProcess, EngineError> {
        let engine = self.kind.engine;
        let start_err = |detail: String| EngineError::Start { engine, detail };
        let mut host = HostProcess::spawn(&self.command)
            .map_err(|e| start_err(format!("running {}: {e}", self.command.program.display())))?;
        match host.request(&HostRequest::Version, SETUP_TIMEOUT) {
            Ok(HostReply::Version { version }) => self.version = version,
            Ok(other) => return Err(start_err(format!("unexpected reply {other:?}"))),
            Err(f) => return Err(start_err(failure_text(f))),
        }
        if let Some(graph) = &self.graph {
            self.load_into(&mut host, graph)?;
        }
        Ok(host)
    }

    fn load_into(&self, host: &mut HostProcess, graph: &Graph) -> Result<(), EngineError> {
        let engine = self.kind.engine;
        let load_err = |detail: String| EngineError::Load { engine, detail };
        let request = match self.kind.load {
            LoadForm::Graph => HostRequest::Load { graph: Box::new(graph.clone()) },
            LoadForm::Script(dialect) => HostRequest::Script { statements: creation_script(graph, dialect) },
        };
        match host.request(&request, SETUP_TIMEOUT) {
            Ok(HostReply::Loaded) => Ok(()),
            Ok(HostReply::Failed { message }) => Err(load_err(message)),
            Ok(other) => Err(load_err(format!("unexpected reply {other:?}"))),
            Err(f) => Err(load_err(failure_text(f))),
        }
    }

    /// Runs `query`; with `writes`, the host restores its graph afterwards.
    fn run(&mut self, query: &str, opts: &ExecOptions, writes: bool) -> Result<Outcome, EngineError> {
        let mut host = match self.host.take() {
            Some(h) => h,
            None => self.respawn()?,
        };
        // The host is asked to stop a little before the client would kill it,
        // which spares a restart when the engine can interrupt itself.
        let own = opts.timeout.saturating_sub(opts.timeout / 10);
        let request = HostRequest::Execute {
            query: query.to_owned(),
            max_rows: opts.max_rows,
            timeout_ms: millis(own).max(1),
            writes,
            language: opts.language,
        };
        let outcome = match host.request(&request, opts.timeout) {
            Ok(HostReply::Outcome { outcome }) => {
                // A host restores its graph after answering a write; the next
                // reply comes once it has, so the restore never counts
                // against a query's timeout. A host that cannot restore
                // exits, and a fresh one loads the graph.
                let t = Instant::now();
                let restored = !writes
                    || matches!(host.request(&HostRequest::Version, SETUP_TIMEOUT), Ok(HostReply::Version { .. }));
                if writes {
                    self.overhead.restored(t.elapsed());
                }
                self.host = Some(if restored {
                    host
                } else {
                    drop(host);
                    self.respawn()?
                });
                return Ok(match outcome {
                    Outcome::Timeout { .. } => Outcome::Timeout { after_ms: millis(opts.timeout) },
                    other => other,
                });
            }
            Ok(other) => {
                self.host = Some(host);
                return Err(EngineError::Protocol {
                    engine: self.kind.engine,
                    detail: format!("unexpected reply {other:?}"),
                });
            }
            // graphlancer's own decoding failed, not the engine: an answer it
            // cannot compare, never a crash and never a finding.
            Err(HostFailure::Unreadable { message }) => {
                self.host = Some(host);
                return Ok(Outcome::Undecodable { message });
            }
            Err(HostFailure::Timeout) => Outcome::Timeout { after_ms: millis(opts.timeout) },
            Err(HostFailure::Died { message }) => Outcome::Crash { message },
        };
        drop(host);
        // The next request starts a fresh host with the graph loaded: none
        // is started for a campaign whose budget ended with this query.
        self.host = None;
        Ok(outcome)
    }

    /// [`Self::spawn`] after a host was lost, counted as a restart.
    fn respawn(&mut self) -> Result<HostProcess, EngineError> {
        let t = Instant::now();
        let host = self.spawn();
        self.overhead.restarted(t.elapsed());
        host
    }
}

fn failure_text(f: HostFailure) -> String {
    match f {
        HostFailure::Timeout => "the engine host did not answer".into(),
        HostFailure::Died { message } | HostFailure::Unreadable { message } => message,
    }
}

impl Engine for HostedEngine {
    fn owns_its_server(&self) -> bool {
        true
    }

    fn name(&self) -> &str {
        &self.kind.name
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn dialect(&self) -> &'static str {
        self.kind.dialect
    }

    fn languages(&self) -> &'static [Language] {
        self.kind.languages
    }

    fn script(&self) -> ScriptDialect {
        match self.kind.load {
            LoadForm::Script(d) => d,
            LoadForm::Graph => ScriptDialect::Cypher,
        }
    }

    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        self.graph = Some(graph.clone());
        // If the host died or failed, a fresh one gets the graph once more,
        // and a graph that cannot be loaded fails there too.
        if let Some(mut host) = self.host.take()
            && self.load_into(&mut host, graph).is_ok()
        {
            self.host = Some(host);
            return Ok(());
        }
        // A fresh host loads the current graph as it starts.
        self.host = Some(self.spawn()?);
        Ok(())
    }

    fn plan(&mut self, query: &str, opts: &ExecOptions) -> Result<Option<Vec<String>>, EngineError> {
        if opts.language != Language::Cypher {
            return Ok(None);
        }
        let Some(parse) = self.kind.plan else { return Ok(None) };
        // EXPLAIN plans without running: nothing to restore afterwards.
        Ok(match self.run(&format!("EXPLAIN {query}"), opts, false)? {
            Outcome::Rows(r) => Some(r.rows.iter().flatten().flat_map(|v| parse(&crate::plan::text(v))).collect()),
            _ => None,
        })
    }

    fn execute(&mut self, query: &str, opts: &ExecOptions) -> Result<Outcome, EngineError> {
        self.run(query, opts, may_write_in(query, opts.language))
    }

    fn take_overhead(&mut self) -> Overhead {
        std::mem::take(&mut self.overhead)
    }
}
