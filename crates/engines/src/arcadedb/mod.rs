//! An ArcadeDB server graphlancer starts itself, from the `arcadedb-embedded`
//! package in `.engines/`: its Python launcher (carried in the binary) on
//! free loopback ports, with a small heap and ArcadeDB's own command timeout.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::EngineError;
use crate::bolt::{BoltEngine, BoltServer, BoltSettings};

const ENGINE: &str = "arcadedb";
/// The package version the setup script installs.
pub const ARCADEDB_VERSION: &str = "26.10.2";

/// ArcadeDB in the registry: releases of its Python package, no switches,
/// no plan reading.
pub const FAMILY: crate::family::Family = crate::family::Family {
    name: "arcadedb",
    switches: &[],
    left_out: &[],
    releases: Some(crate::family::Versioned::Venv { package: "arcadedb-embedded", recent_python: false }),
    optimization: None,
};
/// The launcher, run with the package's Python.
const LAUNCHER: &str = include_str!("server.py");
/// The JVM takes a second or two; a loaded machine more.
const READY_WITHIN: Duration = Duration::from_secs(90);
/// ArcadeDB's own per-command timeout: a runaway query is stopped by the
/// server; graphlancer's client timeout (shorter by default) still applies.
const COMMAND_TIMEOUT_MS: u64 = 30_000;
const PASSWORD: &str = "graphlancer";

/// A running, managed ArcadeDB server.
pub struct ManagedArcadeDb {
    python: PathBuf,
    child: Child,
    /// Held open: the launcher stops when its stdin closes.
    _stdin: ChildStdin,
    bolt_port: u16,
    version: String,
    dir: tempfile::TempDir,
}

impl ManagedArcadeDb {
    /// Starts a server with the launcher run by `python` (the package's virtualenv).
    pub fn start(python: PathBuf) -> Result<Self, EngineError> {
        let mut last = None;
        // A port found free can be taken before the server binds it.
        for _ in 0..3 {
            match Self::try_start(python.clone()) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one attempt ran"))
    }

    fn try_start(python: PathBuf) -> Result<Self, EngineError> {
        let err = |detail: String| EngineError::Start { engine: ENGINE, detail };
        let (http_port, bolt_port) = (
            crate::process::free_port().map_err(|e| err(e.to_string()))?,
            crate::process::free_port().map_err(|e| err(e.to_string()))?,
        );
        let dir = tempfile::Builder::new()
            .prefix("graphlancer-arcadedb-")
            .tempdir()
            .map_err(|e| err(format!("creating a data folder: {e}")))?;
        let log = std::fs::File::create(dir.path().join("launcher.log")).map_err(|e| err(e.to_string()))?;
        let mut child = crate::process::owned(&mut Command::new(&python))
            .arg("-c")
            .arg(LAUNCHER)
            .arg(dir.path().join("server"))
            .arg(http_port.to_string())
            .arg(bolt_port.to_string())
            .arg(PASSWORD)
            .arg(COMMAND_TIMEOUT_MS.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| err(format!("running {}: {e}", python.display())))?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(version) = line.strip_prefix("READY ") {
                    let _ = tx.send(version.trim().to_owned());
                }
            }
        });
        let mut server = Self { python, child, _stdin: stdin, bolt_port, version: String::new(), dir };
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(version) => {
                    server.version = version;
                    return Ok(server);
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => {
                    if let Ok(Some(status)) = server.child.try_wait() {
                        return Err(err(format!("the launcher exited ({status}): {}", server.log_tail())));
                    }
                }
                Err(_) => return Err(err(format!("not ready within {READY_WITHIN:?}: {}", server.log_tail()))),
            }
        }
    }

    fn stop(&mut self) {
        crate::process::stop(&mut self.child);
    }
}

impl BoltServer for ManagedArcadeDb {
    fn settings(&self) -> BoltSettings {
        BoltSettings {
            address: format!("127.0.0.1:{}", self.bolt_port),
            user: "root".into(),
            password: PASSWORD.into(),
            database: Some("g".into()),
        }
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn is_running(&mut self) -> bool {
        crate::process::is_running(&mut self.child)
    }

    fn log_tail(&self) -> String {
        crate::process::log_tail(&self.dir.path().join("launcher.log"))
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        self.stop();
        *self = Self::start(self.python.clone())?;
        Ok(())
    }
}

impl BoltEngine {
    /// Connects to a server started from `.engines/`, named by its spec
    /// (`arcadedb@RELEASE`).
    pub fn managed_arcadedb(server: ManagedArcadeDb) -> Result<Self, EngineError> {
        use crate::bolt::BoltServer as _;
        let name = format!("arcadedb@{}", server.version());
        BoltEngine::managed(name, "arcadedb", "arcadedb", Box::new(server))
    }
}

impl Drop for ManagedArcadeDb {
    fn drop(&mut self) {
        self.stop();
    }
}
