//! Oracles and campaigns: what decides that an engine's answer is wrong, the
//! loop that feeds generated queries to engines, and the findings it writes.
//! Each oracle is one file behind the [`Oracle`] trait; [`registry::oracle`]
//! is the registry.

pub mod campaign;
pub mod case;
pub mod constructs;
pub mod crash;
pub mod cross_language;
pub mod differential;
pub mod error;
pub mod interrupt;
pub mod kind;
pub mod localize;
pub mod metamorphic;
pub mod oracle;
pub mod partition;
pub mod reduce;
pub mod registry;
mod relation;
pub mod report;
pub mod rewrite;
pub mod settings;
pub mod shape;
pub mod signature;
pub mod translate;
pub mod work;

pub use campaign::{Campaign, CampaignConfig, Summary};
pub use case::{CaseQuery, Finding, TestCase, Verdict};
pub use kind::OracleKind;
pub use oracle::{JudgeCx, Oracle};
pub use registry::oracle;
pub use report::{Case, ReportStore};
pub use signature::{Fault, Signature};

#[cfg(test)]
mod tests;
