//! Why a campaign stops before its budget is spent.

use graphlancer_engines::EngineError;

use crate::report::ReportError;

/// A campaign's failure (not a finding).
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// An engine could not be reached, started or loaded.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The report folder could not be used.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A configuration that cannot work.
    #[error("{0}")]
    Config(String),
}
