//! A FalkorDB server graphlancer starts itself: `redis-server` with the
//! FalkorDB module, on a free loopback port, stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::EngineError;
use crate::install::FalkorDbInstall;

const ENGINE: &str = "falkordb";
const READY_WITHIN: Duration = Duration::from_secs(15);

/// A running, managed FalkorDB server.
pub struct ManagedServer {
    install: FalkorDbInstall,
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl ManagedServer {
    /// Starts a server and waits until it answers.
    pub fn start(install: &FalkorDbInstall) -> Result<Self, EngineError> {
        // A port found free can be taken before the server binds it; try again then.
        let mut last = None;
        for _ in 0..3 {
            match Self::try_start(install) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one attempt ran"))
    }

    fn try_start(install: &FalkorDbInstall) -> Result<Self, EngineError> {
        let err = |detail: String| EngineError::Start { engine: ENGINE, detail };
        let port = crate::process::free_port().map_err(|e| err(format!("finding a free port: {e}")))?;
        let dir = tempfile::Builder::new()
            .prefix("graphlancer-falkordb-")
            .tempdir()
            .map_err(|e| err(format!("creating a data folder: {e}")))?;
        let module = std::path::absolute(&install.module).map_err(|e| err(e.to_string()))?;
        let child = crate::process::owned(&mut Command::new(&install.server))
            .arg("--port")
            .arg(port.to_string())
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--logfile", "redis.log"])
            // The crash report's memory test adds nothing to a finding and
            // takes a loaded machine seconds on each crash.
            .args(["--crash-memcheck-enabled", "no"])
            .arg("--dir")
            .arg(dir.path())
            .arg("--loadmodule")
            .arg(&module)
            // One client sends one query at a time: more query threads sit
            // idle, and OpenMP threads spin after each parallel section,
            // taking the core another worker's engines need.
            .args(["THREAD_COUNT", "1", "OMP_THREAD_COUNT", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| err(format!("running {}: {e}", install.server.display())))?;
        let mut server = Self { install: install.clone(), child, port, dir };
        server.wait_ready().map_err(err)?;
        warm_up(&server.address()).map_err(|e| err(format!("first write: {e}")))?;
        Ok(server)
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("redis-server exited ({status}): {}", self.log_tail()));
            }
            match server_pid(&self.address()) {
                Some(pid) if pid == self.child.id() => return Ok(()),
                // Another server took the port between our check and the
                // bind (ours then exits): talking to it would mix two
                // campaigns' graphs.
                Some(pid) => return Err(format!("port {} answered by another process ({pid})", self.port)),
                None => {}
            }
            if Instant::now() > deadline {
                return Err(format!("no answer within {READY_WITHIN:?}: {}", self.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last lines of the server's log.
    pub fn log_tail(&self) -> String {
        crate::process::log_tail(&self.dir.path().join("redis.log"))
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still there (a stopped process counts as there),
    /// allowing a moment for one that is going down to be gone.
    pub fn is_running(&mut self) -> bool {
        crate::process::is_running(&mut self.child)
    }

    /// Kills this server and starts a fresh one, on a new port.
    pub fn restart(&mut self) -> Result<(), EngineError> {
        self.stop();
        *self = Self::start(&self.install)?;
        Ok(())
    }

    fn stop(&mut self) {
        crate::process::stop(&mut self.child);
    }
}

impl Drop for ManagedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One write on a scratch graph, deleted again. A fresh server now and then
/// never answers its first write (every thread waiting on a lock; about one
/// start in 250 on a loaded machine): found here, it costs two seconds and
/// another start, not a graph load's timeout.
fn warm_up(address: &str) -> redis::RedisResult<()> {
    let mut conn = connect(address, WARM_UP_WITHIN)?;
    redis::cmd("GRAPH.QUERY").arg(WARM_UP_KEY).arg("CREATE ()").query::<redis::Value>(&mut conn)?;
    redis::cmd("GRAPH.DELETE").arg(WARM_UP_KEY).query::<redis::Value>(&mut conn)?;
    Ok(())
}

const WARM_UP_KEY: &str = "graphlancer-warm-up";
const WARM_UP_WITHIN: Duration = Duration::from_secs(2);

/// The process id of the server answering at `address`, if one answers.
fn server_pid(address: &str) -> Option<u32> {
    let mut conn = connect(address, Duration::from_millis(200)).ok()?;
    let info: String = redis::cmd("INFO").arg("server").query(&mut conn).ok()?;
    info.lines().find_map(|l| l.strip_prefix("process_id:")).and_then(|p| p.trim().parse().ok())
}

/// A connection to `address` that gives up on connecting and on each
/// answer after `within`.
fn connect(address: &str, within: Duration) -> redis::RedisResult<redis::Connection> {
    let conn = redis::Client::open(format!("redis://{address}/"))?.get_connection_with_timeout(within)?;
    conn.set_read_timeout(Some(within))?;
    Ok(conn)
}
