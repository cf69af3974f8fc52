//! Oracles and campaigns: what decides that an engine's answer is wrong, the
//! loop that feeds generated queries to engines, and the findings it writes.
//! Each oracle is one file of [`oracle`] behind the [`Oracle`] trait, listed
//! by the registry there.

pub mod campaign;
pub mod case;
pub mod cause;
pub mod constructs;
pub mod culprit;
mod edit;
pub mod impossible;
pub mod interrupt;
pub mod kind;
pub mod localize;
pub mod oracle;
pub mod recheck;
pub mod reduce;
pub mod report;
pub mod shape;
pub mod signature;
pub mod site;
pub mod translate;
pub mod work;

pub use campaign::{Campaign, CampaignConfig, Summary};
pub use case::{CaseQuery, Finding, TestCase, Verdict};
pub use kind::OracleKind;
pub use oracle::{JudgeCx, Oracle, oracle};
pub use report::{Case, ReportStore};
pub use signature::{Fault, Signature};

#[cfg(test)]
mod tests;
