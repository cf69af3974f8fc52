//! The registry: the oracle of each kind.

use crate::kind::OracleKind;
use crate::oracle::Oracle;

/// The oracle of `kind`.
pub fn oracle(kind: OracleKind) -> Box<dyn Oracle> {
    match kind {
        OracleKind::Crash => Box::new(crate::crash::Crash),
        OracleKind::Error => Box::new(crate::error::UnexpectedError),
        OracleKind::Differential => Box::new(crate::differential::Differential),
        OracleKind::Partition => Box::new(crate::partition::Partition),
        OracleKind::Rewrite => Box::new(crate::rewrite::Rewrite),
        OracleKind::Metamorphic => Box::new(crate::metamorphic::Metamorphic),
        OracleKind::Settings => Box::new(crate::settings::SettingsOracle),
        OracleKind::CrossLanguage => Box::new(crate::cross_language::CrossLanguage),
    }
}
