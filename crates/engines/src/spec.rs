//! Engine specs as users write them (`grafeo`, `falkordb`,
//! `falkordb://HOST:PORT`) and opening the engine a spec names.

use std::fmt;
use std::str::FromStr;

use crate::falkordb::FalkorDb;

use crate::arcadedb::{ARCADEDB_VERSION, ManagedArcadeDb};
use crate::bolt::{BoltEngine, BoltSettings};
use crate::host::OpenOptions;
use crate::install::engines_dir;
pub use crate::kuzu::{KuzuFamily, kuzu_script};
use crate::settings::Settings;
use crate::{Engine, EngineError};

/// A parsed engine spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineSpec {
    /// Embedded Grafeo in an engine host.
    Grafeo {
        /// Its optimization settings.
        settings: Settings,
    },
    /// A released Grafeo other than the embedded one: its Python package in
    /// a Python engine host.
    GrafeoRelease {
        /// The package version, e.g. `0.6.0`.
        version: String,
    },
    /// Embedded graphersal (Gremlin only) in an engine host.
    Graphersal,
    /// graphlancer's reference engine: the right answer of a generated
    /// query, computed from the generated graph (in process).
    Reference,
    /// A Gremlin Server (TinkerGraph, JanusGraph, HugeGraph, ...) at `HOST:PORT`.
    GremlinServer {
        /// `HOST:PORT`.
        address: String,
    },
    /// A FalkorDB server graphlancer starts from `.engines/`.
    FalkorDbManaged {
        /// The module's release, e.g. `4.22.1`.
        version: String,
        /// Settings of this instance.
        settings: Settings,
    },
    /// A FalkorDB server at `HOST:PORT`.
    FalkorDbRemote {
        /// `HOST:PORT`.
        address: String,
        /// Settings of this instance.
        settings: Settings,
    },
    /// ArcadeDB started by graphlancer from `.engines/`, reached over Bolt.
    ArcadeDbManaged {
        /// The `arcadedb-embedded` package version, e.g. `26.10.2`.
        version: String,
    },
    /// A Bolt server: Neo4j, Memgraph or ArcadeDB (`arcadedb://` means
    /// `bolt://` with the arcadedb dialect).
    Bolt {
        /// `bolt` or `arcadedb`: how the spec was written.
        scheme: &'static str,
        /// `HOST:PORT`.
        address: String,
        /// The dialect profile.
        dialect: &'static str,
        /// User name.
        user: String,
        /// Password; never printed. From the spec or `GRAPHLANCER_BOLT_PASSWORD`.
        password: String,
        /// Database name.
        database: Option<String>,
    },
    /// Kuzu, LadybugDB or RyuGraph at one released version, in a Python engine host.
    Kuzu {
        /// Which of the two.
        family: KuzuFamily,
        /// The package version, e.g. `0.11.3`.
        version: String,
        /// Its optimization settings, set on the connection.
        settings: Settings,
    },
}

fn settings_of(spec: &str, query: Option<&str>, switches: &[crate::settings::Switch]) -> Result<Settings, SpecError> {
    Settings::parse(query.unwrap_or(""), switches)
        .map_err(|detail| SpecError::Setting { spec: spec.to_owned(), detail })
}

/// The engine family a spec's text names: `kuzu` for `kuzu@0.11.3`,
/// `grafeo` for `grafeo?index=all`, `falkordb` for `falkordb://HOST:PORT`;
/// for reading specs recorded in reports without parsing them.
pub fn family_of(spec: &str) -> &str {
    spec.split(['@', '?', ':']).next().unwrap_or(spec)
}

/// The FalkorDB release a spec without `@VERSION` means: the newest.
pub const FALKORDB_VERSION: &str = "4.22.1";

/// The specs graphlancer knows, for help texts and errors.
pub const KNOWN_SPECS: &str = "grafeo, grafeo@VERSION, falkordb[@VERSION], falkordb://HOST:PORT (either with \
     ?index=all), kuzu[@VERSION], ladybug[@VERSION], ryugraph[@VERSION], arcadedb[@VERSION], arcadedb://HOST:PORT, bolt://HOST:PORT?dialect=neo4j5|memgraph|arcadedb \
     (Bolt specs take &user=&password=&db=), graphersal, gremlin://HOST:PORT, reference";

/// Where a Bolt password comes from when the spec has none, so reports
/// (which record specs) never hold it.
pub const BOLT_PASSWORD_VAR: &str = "GRAPHLANCER_BOLT_PASSWORD";

/// The dialects a Bolt server may speak.
const BOLT_DIALECTS: [&str; 3] = ["neo4j5", "memgraph", "arcadedb"];

fn address_of(base: &str, scheme: &str) -> Option<String> {
    let address = base.strip_prefix(scheme)?.strip_prefix("://")?.trim_end_matches('/');
    let (host, port) = address.rsplit_once(':')?;
    (!host.is_empty() && port.parse::<u16>().is_ok()).then(|| address.to_owned())
}

fn bolt_spec(scheme: &'static str, address: String, query: Option<&str>) -> Option<EngineSpec> {
    let mut dialect = if scheme == "arcadedb" { "arcadedb" } else { "neo4j5" };
    let mut user = if scheme == "arcadedb" { "root".to_owned() } else { "neo4j".to_owned() };
    let mut password = std::env::var(BOLT_PASSWORD_VAR).unwrap_or_default();
    let mut database = (scheme == "arcadedb").then(|| "g".to_owned());
    for option in query.into_iter().flat_map(|q| q.split('&')) {
        let (k, v) = option.split_once('=')?;
        match k {
            "dialect" if scheme == "bolt" => dialect = BOLT_DIALECTS.into_iter().find(|d| *d == v)?,
            "user" => user = v.to_owned(),
            "password" => password = v.to_owned(),
            "db" => database = Some(v.to_owned()),
            _ => return None,
        }
    }
    Some(EngineSpec::Bolt { scheme, address, dialect, user, password, database })
}

/// A spec graphlancer cannot open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// It names no engine graphlancer knows.
    #[error("unknown engine '{0}' (known: {KNOWN_SPECS})")]
    Unknown(String),
    /// A setting the engine does not have.
    #[error("engine '{spec}': {detail}")]
    Setting {
        /// The spec.
        spec: String,
        /// What is wrong, with the settings there are.
        detail: String,
    },
}

impl EngineSpec {
    /// Whether the engine is a server someone else runs (at `HOST:PORT`):
    /// one graph at a time, so one campaign loop at a time.
    pub fn is_remote(&self) -> bool {
        matches!(self, Self::GremlinServer { .. } | Self::FalkorDbRemote { .. } | Self::Bolt { .. })
    }

    /// The engine family whose switches this spec may set, if any.
    pub fn family(&self) -> &'static str {
        match self {
            EngineSpec::Grafeo { .. } => "grafeo",
            EngineSpec::FalkorDbManaged { .. } | EngineSpec::FalkorDbRemote { .. } => "falkordb",
            EngineSpec::Kuzu { family, .. } => family.name(),
            EngineSpec::ArcadeDbManaged { .. }
            | EngineSpec::GrafeoRelease { .. }
            | EngineSpec::Bolt { .. }
            | EngineSpec::Graphersal
            | EngineSpec::Reference
            | EngineSpec::GremlinServer { .. } => "",
        }
    }

    /// This spec under other settings (`None` where the engine has none).
    pub fn with_settings(&self, new: Settings) -> Option<EngineSpec> {
        Some(match self {
            EngineSpec::Grafeo { .. } => EngineSpec::Grafeo { settings: new },
            EngineSpec::Kuzu { family, version, .. } => {
                EngineSpec::Kuzu { family: *family, version: version.clone(), settings: new }
            }
            EngineSpec::FalkorDbManaged { version, .. } => {
                EngineSpec::FalkorDbManaged { version: version.clone(), settings: new }
            }
            EngineSpec::FalkorDbRemote { address, .. } => {
                EngineSpec::FalkorDbRemote { address: address.clone(), settings: new }
            }
            EngineSpec::ArcadeDbManaged { .. }
            | EngineSpec::GrafeoRelease { .. }
            | EngineSpec::Bolt { .. }
            | EngineSpec::Graphersal
            | EngineSpec::Reference
            | EngineSpec::GremlinServer { .. } => return None,
        })
    }
}

/// A release number as a spec may carry it: dot-separated letters and digits.
fn well_formed(version: &str) -> bool {
    !version.is_empty()
        && version.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()))
}

impl FromStr for EngineSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || SpecError::Unknown(s.to_owned());
        let (base, query) = s.split_once('?').map_or((s, None), |(b, q)| (b, Some(q)));
        let (family, version) = base.split_once('@').map_or((base, None), |(f, v)| (f, Some(v)));
        if let Some(v) = version
            && !well_formed(v)
        {
            return Err(unknown());
        }
        let at = |default: &str| version.unwrap_or(default).to_owned();
        if family == "arcadedb" && !base.contains("://") {
            return match query {
                None => Ok(EngineSpec::ArcadeDbManaged { version: at(ARCADEDB_VERSION) }),
                Some(_) => Err(unknown()),
            };
        }
        if family == "grafeo"
            && let Some(version) = version
        {
            return match query {
                None => Ok(EngineSpec::GrafeoRelease { version: version.to_owned() }),
                Some(_) => Err(SpecError::Setting {
                    spec: s.to_owned(),
                    detail: "a released Grafeo in its Python host has no settings; the embedded `grafeo` has".into(),
                }),
            };
        }
        for (name, spec) in [("graphersal", EngineSpec::Graphersal), ("reference", EngineSpec::Reference)] {
            if base == name {
                return match query {
                    None => Ok(spec),
                    Some(_) => {
                        Err(SpecError::Setting { spec: s.to_owned(), detail: format!("{name} has no settings") })
                    }
                };
            }
        }
        if let Some(address) = address_of(base, "gremlin") {
            return match query {
                None => Ok(EngineSpec::GremlinServer { address }),
                Some(_) => Err(SpecError::Setting {
                    spec: s.to_owned(),
                    detail: "a Gremlin Server spec has no settings".into(),
                }),
            };
        }
        for scheme in ["bolt", "arcadedb"] {
            if let Some(address) = address_of(base, scheme) {
                return bolt_spec(scheme, address, query).ok_or_else(unknown);
            }
        }
        let kuzu = match family {
            "kuzu" => Some(KuzuFamily::Kuzu),
            "ladybug" => Some(KuzuFamily::Ladybug),
            "ryugraph" => Some(KuzuFamily::Ryugraph),
            _ => None,
        };
        if let Some(family) = kuzu {
            let settings = settings_of(s, query, crate::families::switches(family.name()))?;
            return Ok(EngineSpec::Kuzu { family, version: at(family.default_version()), settings });
        }
        let is_falkordb = family == "falkordb" || base.starts_with("falkordb://");
        if base != "grafeo" && !is_falkordb {
            return Err(unknown());
        }
        let settings = settings_of(s, query, crate::families::switches(if is_falkordb { "falkordb" } else { base }))?;
        match family {
            "grafeo" => Ok(EngineSpec::Grafeo { settings }),
            "falkordb" => Ok(EngineSpec::FalkorDbManaged { version: at(FALKORDB_VERSION), settings }),
            _ => {
                let address = base.strip_prefix("falkordb://").ok_or_else(unknown)?.trim_end_matches('/');
                let (host, port) = address.rsplit_once(':').ok_or_else(unknown)?;
                if host.is_empty() || port.parse::<u16>().is_err() {
                    return Err(unknown());
                }
                Ok(EngineSpec::FalkorDbRemote { address: address.to_owned(), settings })
            }
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Grafeo { settings } => write!(f, "grafeo{}", settings.suffix()),
            EngineSpec::GrafeoRelease { version } => write!(f, "grafeo@{version}"),
            EngineSpec::FalkorDbManaged { version, settings } => write!(f, "falkordb@{version}{}", settings.suffix()),
            EngineSpec::FalkorDbRemote { address, settings } => write!(f, "falkordb://{address}{}", settings.suffix()),
            EngineSpec::Kuzu { family, version, settings } => {
                write!(f, "{}@{version}{}", family.name(), settings.suffix())
            }
            EngineSpec::ArcadeDbManaged { version } => write!(f, "arcadedb@{version}"),
            EngineSpec::Graphersal => f.write_str("graphersal"),
            EngineSpec::Reference => f.write_str("reference"),
            EngineSpec::GremlinServer { address } => write!(f, "gremlin://{address}"),
            EngineSpec::Bolt { scheme, address, dialect, user, password: _, database } => {
                write!(f, "{scheme}://{address}")?;
                let mut options = Vec::new();
                if *scheme == "bolt" {
                    options.push(format!("dialect={dialect}"));
                }
                let default_user = if *scheme == "arcadedb" { "root" } else { "neo4j" };
                if user != default_user {
                    options.push(format!("user={user}"));
                }
                let default_db = (*scheme == "arcadedb").then_some("g");
                if let Some(db) = database.as_deref().filter(|d| Some(*d) != default_db) {
                    options.push(format!("db={db}"));
                }
                if !options.is_empty() {
                    write!(f, "?{}", options.join("&"))?;
                }
                Ok(())
            }
        }
    }
}

/// Opens (and where managed, starts) the engine `spec` names.
pub fn open(spec: &EngineSpec, options: &OpenOptions) -> Result<Box<dyn Engine>, EngineError> {
    Ok(match spec {
        EngineSpec::Grafeo { settings } => crate::grafeo::open_embedded(spec.to_string(), settings, options)?,
        EngineSpec::Graphersal => crate::graphersal::open(spec.to_string(), options)?,
        EngineSpec::GremlinServer { address } => {
            Box::new(crate::gremlin_server::GremlinServer::connect(spec.to_string(), address)?)
        }
        EngineSpec::Reference => {
            return Err(EngineError::Start {
                engine: crate::REFERENCE,
                detail: "the reference runs in process: open it with graphlancer_reference::open".into(),
            });
        }
        EngineSpec::ArcadeDbManaged { version } => {
            let python = engines_dir("arcadedb")?.python("arcadedb", "arcadedb-embedded", version)?;
            Box::new(BoltEngine::managed_arcadedb(ManagedArcadeDb::start(python)?)?)
        }
        EngineSpec::GrafeoRelease { version } => crate::grafeo::open_release(spec.to_string(), version)?,
        EngineSpec::Bolt { scheme, address, dialect, user, password, database } => {
            let settings = BoltSettings {
                address: address.clone(),
                user: user.clone(),
                password: password.clone(),
                database: database.clone(),
            };
            let engine = if *scheme == "arcadedb" { "arcadedb" } else { "bolt" };
            Box::new(BoltEngine::connect(spec.to_string(), engine, dialect, settings)?)
        }
        EngineSpec::Kuzu { family, version, settings } => {
            crate::kuzu::open(spec.to_string(), *family, version, settings)?
        }
        EngineSpec::FalkorDbManaged { version, settings } => {
            let install = engines_dir("falkordb")?.falkordb(version)?;
            Box::new(FalkorDb::start_managed(&install)?.with_settings(settings.clone()))
        }
        EngineSpec::FalkorDbRemote { address, settings } => {
            Box::new(FalkorDb::connect(address)?.with_settings(settings.clone()))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "grafeo",
            "falkordb@4.16.3",
            "falkordb@4.22.1?index=all",
            "grafeo@0.6.0",
            "arcadedb@26.2.1",
            "grafeo?factorized_execution=false&shuffle_unordered=true",
            "kuzu@0.10.0?enable_semi_mask=false",
            "ladybug@0.22.0?enable_packed_path_extend=true",
            "falkordb://127.0.0.1:6379",
            "falkordb://db.example:1?index=all",
            "kuzu@0.11.3",
            "ladybug@0.22.0",
            "ryugraph@25.9.2?enable_zone_map=false",
            "arcadedb://127.0.0.1:7687",
            "arcadedb://h:1?user=admin&db=x",
            "bolt://127.0.0.1:7687?dialect=neo4j5",
            "bolt://127.0.0.1:7687?dialect=memgraph&user=mg",
            "gremlin://127.0.0.1:8182",
            "graphersal",
        ] {
            assert_eq!(text.parse::<EngineSpec>().expect("parses").to_string(), text);
        }
        for bad in [
            "neo",
            "gremlin://",
            "gremlin://host",
            "gremlin://h:1?x=y",
            "falkordb://",
            "falkordb://host",
            "falkordb://host:99999",
            "falkordb://:1",
            "",
            "falkordb?x=1",
            "kuzu@",
            "kuzu@0..1",
            "kuzu@1;rm",
            "kuzu@0.11.3?index=all",
            "grafeo?turbo=on",
            "grafeo?factorized_execution=maybe",
            "bolt://h",
            "bolt://h:1?dialect=sql",
            "bolt://h:1?color=red",
            "arcadedb?x=1",
            "grafeo@0.6.0?factorized_execution=false",
            "falkordb@",
            "arcadedb@1;x",
            "arcadedb://h:1?dialect=neo4j5",
        ] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad} should be refused");
        }
        assert_eq!("kuzu".parse::<EngineSpec>().expect("parses").to_string(), "kuzu@0.11.3");
        // A spec names a release, so a report says which one it ran.
        assert_eq!("falkordb".parse::<EngineSpec>().expect("parses").to_string(), "falkordb@4.22.1");
        assert_eq!("arcadedb".parse::<EngineSpec>().expect("parses").to_string(), "arcadedb@26.10.2");
        // A setting at its default is no setting: one configuration, one spec.
        assert_eq!("grafeo?index=none".parse::<EngineSpec>().expect("parses").to_string(), "grafeo");
        let err = "grafeo?turbo=on".parse::<EngineSpec>().expect_err("no such switch").to_string();
        assert!(err.contains("unknown setting 'turbo'") && err.contains("factorized_execution"), "{err}");
        let with_password = "bolt://h:1?dialect=neo4j5&password=secret".parse::<EngineSpec>().expect("parses");
        assert!(matches!(&with_password, EngineSpec::Bolt { password, .. } if password == "secret"));
        assert!(!with_password.to_string().contains("secret"), "specs are recorded in reports");
    }
}
