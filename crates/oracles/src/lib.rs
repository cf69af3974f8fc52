//! Oracles and campaigns: what decides that an engine's answer is wrong, the
//! loop that feeds generated queries to engines, and the findings it writes.

pub mod campaign;
pub mod judge;
pub mod reduce;
pub mod report;

pub use campaign::{Campaign, CampaignConfig, Summary};
pub use judge::{OracleKind, Verdict, judge};
pub use report::{Case, ReportStore};
