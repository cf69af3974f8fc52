//! Oracles and campaigns: what decides that an engine's answer is wrong, the
//! loop that feeds generated queries to engines, and the findings it writes.
//! Each oracle is one file behind the [`Oracle`] trait; [`oracle::oracle`]
//! is the registry.

pub mod campaign;
pub mod constructs;
pub mod crash;
pub mod cross_language;
pub mod differential;
pub mod error;
pub mod interrupt;
pub mod localize;
pub mod metamorphic;
pub mod oracle;
pub mod partition;
pub mod reduce;
mod relation;
pub mod report;
pub mod rewrite;
pub mod settings;
pub mod signature;
pub mod translate;
pub mod work;

pub use campaign::{Campaign, CampaignConfig, Summary};
pub use oracle::{CaseQuery, Finding, JudgeCx, Oracle, OracleKind, TestCase, Verdict, oracle};
pub use report::{Case, ReportStore};
pub use signature::{Fault, Signature};

#[cfg(test)]
mod tests;
