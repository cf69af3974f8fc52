//! Where `scripts/setup-engines.sh` put the engines: the `.engines/` folder.

use std::path::{Path, PathBuf};

use crate::EngineError;

/// Overrides where installed engines are looked for.
pub const ENGINES_DIR_VAR: &str = "GRAPHLANCER_ENGINES_DIR";

/// The folder of installed engines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnginesDir(PathBuf);

impl EnginesDir {
    /// A specific folder.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self(path.into())
    }

    /// `$GRAPHLANCER_ENGINES_DIR` if set, else the nearest `.engines/` above the
    /// working directory, else above the running executable (which finds the
    /// checkout's folder from `target/debug/graphlancer`).
    pub fn locate() -> Option<Self> {
        if let Some(dir) = std::env::var_os(ENGINES_DIR_VAR) {
            return Some(Self(PathBuf::from(dir)));
        }
        let from = |start: &Path| start.ancestors().map(|a| a.join(".engines")).find(|p| p.is_dir());
        std::env::current_dir()
            .ok()
            .and_then(|d| from(&d))
            .or_else(|| std::env::current_exe().ok().and_then(|e| from(&e)))
            .map(Self)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The FalkorDB server and module, if installed.
    pub fn falkordb(&self) -> Result<FalkorDbInstall, EngineError> {
        let bin = self.0.join("falkordb").join("bin");
        let install = FalkorDbInstall { server: bin.join("redis-server"), module: bin.join("falkordb.so") };
        for file in [&install.server, &install.module] {
            if !file.is_file() {
                return Err(EngineError::NotInstalled {
                    engine: "falkordb",
                    install: "falkordb".into(),
                    detail: format!("{} is missing", file.display()),
                });
            }
        }
        Ok(install)
    }
}

impl EnginesDir {
    /// The Python interpreter of the virtualenv holding `package` at `version`
    /// (`kuzu`, `ladybug`, `arcadedb-embedded`).
    pub fn python(&self, engine: &'static str, package: &str, version: &str) -> Result<PathBuf, EngineError> {
        let python = self.0.join(format!("{package}-{version}")).join("bin").join("python");
        if python.is_file() {
            Ok(python)
        } else {
            Err(EngineError::NotInstalled {
                engine,
                install: if package == "arcadedb-embedded" { engine.into() } else { format!("{engine}@{version}") },
                detail: format!("{} is missing", python.display()),
            })
        }
    }
}

/// The files of an installed FalkorDB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FalkorDbInstall {
    /// The `redis-server` executable.
    pub server: PathBuf,
    /// The `falkordb.so` module.
    pub module: PathBuf,
}

/// The installed engines, or the error that says how to install them.
pub fn engines_dir(engine: &'static str) -> Result<EnginesDir, EngineError> {
    EnginesDir::locate().ok_or_else(|| EngineError::NotInstalled {
        engine,
        install: engine.into(),
        detail: format!("no .engines/ folder found above the working directory and {ENGINES_DIR_VAR} is not set"),
    })
}
