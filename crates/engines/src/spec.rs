//! Engine specs as users write them (`grafeo`, `falkordb`,
//! `falkordb://HOST:PORT`) and opening the engine a spec names.

use std::fmt;
use std::str::FromStr;

use crate::falkordb::FalkorDb;
use crate::grafeo::GrafeoEngine;
use crate::host::HostCommand;
use crate::install::engines_dir;
use crate::{Engine, EngineError};

/// A parsed engine spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineSpec {
    /// Embedded Grafeo in an engine host.
    Grafeo,
    /// A FalkorDB server graphlancer starts from `.engines/`.
    FalkorDbManaged,
    /// A FalkorDB server at `HOST:PORT`.
    FalkorDbRemote {
        /// `HOST:PORT`.
        address: String,
    },
}

/// The specs graphlancer knows, for help texts and errors.
pub const KNOWN_SPECS: &str = "grafeo, falkordb, falkordb://HOST:PORT";

/// A spec that names no engine graphlancer knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine '{0}' (known: {KNOWN_SPECS})")]
pub struct UnknownSpec(pub String);

impl FromStr for EngineSpec {
    type Err = UnknownSpec;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownSpec(s.to_owned());
        match s {
            "grafeo" => Ok(EngineSpec::Grafeo),
            "falkordb" => Ok(EngineSpec::FalkorDbManaged),
            _ => {
                let address = s.strip_prefix("falkordb://").ok_or_else(unknown)?.trim_end_matches('/');
                let (host, port) = address.rsplit_once(':').ok_or_else(unknown)?;
                if host.is_empty() || port.parse::<u16>().is_err() {
                    return Err(unknown());
                }
                Ok(EngineSpec::FalkorDbRemote { address: address.to_owned() })
            }
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Grafeo => f.write_str("grafeo"),
            EngineSpec::FalkorDbManaged => f.write_str("falkordb"),
            EngineSpec::FalkorDbRemote { address } => write!(f, "falkordb://{address}"),
        }
    }
}

/// What opening an engine may need from the caller.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How to start engine hosts for embedded engines.
    pub host_command: HostCommand,
}

/// Opens (and where managed, starts) the engine `spec` names.
pub fn open(spec: &EngineSpec, options: &OpenOptions) -> Result<Box<dyn Engine>, EngineError> {
    Ok(match spec {
        EngineSpec::Grafeo => {
            let mut command = options.host_command.clone();
            command.args = vec!["engine-host".into(), "grafeo".into()];
            Box::new(GrafeoEngine::start(command)?)
        }
        EngineSpec::FalkorDbManaged => Box::new(FalkorDb::start_managed(&engines_dir("falkordb")?.falkordb()?)?),
        EngineSpec::FalkorDbRemote { address } => Box::new(FalkorDb::connect(address)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in ["grafeo", "falkordb", "falkordb://127.0.0.1:6379", "falkordb://db.example:1"] {
            assert_eq!(text.parse::<EngineSpec>().expect("parses").to_string(), text);
        }
        for bad in ["neo", "falkordb://", "falkordb://host", "falkordb://host:99999", "falkordb://:1", ""] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad} should be refused");
        }
    }
}
