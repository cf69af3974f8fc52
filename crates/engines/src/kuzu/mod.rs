//! The Kuzu family: Kuzu and its forks LadybugDB and RyuGraph, which share
//! its dialect, Python API and engine host (`host.py`), each release in a
//! virtualenv of its own.

pub mod plan;
pub mod settings;

use graphlancer_model::{Language, ScriptDialect};

use crate::family::{Family, Versioned};
use crate::host::HostCommand;
use crate::hosted::{HostedEngine, HostedKind, LoadForm};
use crate::install::engines_dir;
use crate::settings::Settings;
use crate::{Engine, EngineError};

/// A family of the registry: Kuzu's or a fork's package, and the shared plan reading.
const fn family(name: &'static str, switches: &'static [crate::switch::Switch]) -> Family {
    Family {
        name,
        switches,
        left_out: &[],
        releases: Some(Versioned::Venv { package: name, recent_python: false }),
        optimization: Some(plan::is_optimization),
    }
}

/// Kuzu in the registry.
pub const KUZU: Family = Family { left_out: settings::LEFT_OUT, ..family("kuzu", settings::KUZU) };
/// LadybugDB in the registry.
pub const LADYBUG: Family = family("ladybug", settings::LADYBUG);
/// RyuGraph in the registry: it refuses packed path extension, as Kuzu does.
pub const RYUGRAPH: Family = family("ryugraph", settings::KUZU);

/// The Python engine host, carried in the binary so no file has to be
/// found: the shared protocol, then the family's driver.
pub const HOST: &str = concat!(include_str!("../python_host.py"), include_str!("host.py"));

/// The Kuzu family: Kuzu itself and its forks LadybugDB and RyuGraph,
/// which share its dialect, API and host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KuzuFamily {
    /// PyPI package and module `kuzu`.
    Kuzu,
    /// PyPI package and module `ladybug`.
    Ladybug,
    /// PyPI package and module `ryugraph`.
    Ryugraph,
}

impl KuzuFamily {
    /// The package, module and spec name.
    pub fn name(self) -> &'static str {
        match self {
            KuzuFamily::Kuzu => "kuzu",
            KuzuFamily::Ladybug => "ladybug",
            KuzuFamily::Ryugraph => "ryugraph",
        }
    }

    /// The version a spec without `@VERSION` means.
    pub fn default_version(self) -> &'static str {
        match self {
            KuzuFamily::Kuzu => "0.11.3",
            KuzuFamily::Ladybug => "0.22.0",
            KuzuFamily::Ryugraph => "25.9.2",
        }
    }
}

/// The creation script a Kuzu-family release reads: Kuzu before 0.8 has
/// no relationship table over several label pairs, only table groups.
pub fn kuzu_script(family: KuzuFamily, version: &str) -> ScriptDialect {
    let number: Vec<u64> = version.split('.').map_while(|p| p.parse().ok()).collect();
    match family {
        KuzuFamily::Kuzu if number.as_slice() < [0, 8].as_slice() => ScriptDialect::KuzuRelGroups,
        _ => ScriptDialect::Kuzu,
    }
}

/// Starts a host for release `version` of `family`, named `name` (its spec).
pub fn open(
    name: String,
    family: KuzuFamily,
    version: &str,
    settings: &Settings,
) -> Result<Box<dyn Engine>, EngineError> {
    let engine = family.name();
    let python = engines_dir(engine)?.python(engine, engine, version)?;
    let kind = HostedKind {
        name,
        engine,
        dialect: "kuzu",
        load: LoadForm::Script(kuzu_script(family, version)),
        languages: &[Language::Cypher],
        plan: Some(plan::operators),
    };
    // Set on the connection after each load: `CALL name=value`.
    let command = HostCommand::python(python, HOST, &[engine, &settings.to_string()]);
    Ok(Box::new(HostedEngine::start(kind, command)?))
}
