//! The oracles, one file each, and the registry that lists them. An oracle
//! file holds its name, its documentation, what it can do, how it builds a
//! test case and how it judges one ([`Oracle`]); adding an oracle is that
//! file and one line in [`registry!`] below.

mod contract;
pub mod order;
mod relation;

pub use crate::case::{CaseQuery, FeatureDifference, Finding, TestCase, Verdict};
pub use crate::kind::OracleKind;
pub use contract::{BuildCx, JudgeCx, Oracle};

/// Declares each oracle's module and lists its oracle, in the order
/// `--help` shows them.
macro_rules! registry {
    ($($module:ident :: $oracle:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every oracle, in registry order.
        static ORACLES: &[&dyn Oracle] = &[$(&$module::$oracle),*];
    };
}

registry! {
    differential::Differential,
    crash::Crash,
    error::UnexpectedError,
    partition::Partition,
    rewrite::Rewrite,
    metamorphic::Metamorphic,
    settings::SettingsOracle,
    cross_language::CrossLanguage,
    graph_cut::GraphCut,
}

/// Every oracle, in registry order: the order defaults are listed in.
pub fn registered() -> impl Iterator<Item = &'static dyn Oracle> {
    ORACLES.iter().copied()
}

/// Every oracle, in the order verdicts are asked for: those that judge each
/// query alone (a crashed engine has no answer to compare, so the crash
/// oracle speaks first), then the rest in registry order.
pub fn all() -> impl Iterator<Item = &'static dyn Oracle> {
    let alone = ORACLES.iter().filter(|o| o.per_query());
    let rest = ORACLES.iter().filter(|o| !o.per_query());
    alone.chain(rest).copied()
}

/// Where `kind` stands in the registry: lists of oracles are kept in
/// this order, so a campaign's list reads the same however it was given.
pub fn rank(kind: OracleKind) -> usize {
    ORACLES.iter().position(|o| o.kind() == kind).unwrap_or(ORACLES.len())
}

/// The oracle of `kind`.
///
/// # Panics
/// When no oracle has that name; kinds come from [`parse`] or [`known`],
/// which refuse such names.
pub fn oracle(kind: OracleKind) -> &'static dyn Oracle {
    all().find(|o| o.kind() == kind).unwrap_or_else(|| panic!("no oracle is called '{kind}'"))
}

/// The kind of the oracle called `name` on the command line.
///
/// # Errors
/// Names the known oracles when none is called `name`.
pub fn parse(name: &str) -> Result<OracleKind, String> {
    all().map(|o| o.kind()).find(|k| k.name() == name).ok_or_else(|| {
        let known: Vec<&str> = all().map(|o| o.kind().name()).collect();
        format!("unknown oracle '{name}' (known: {})", known.join(", "))
    })
}

/// The registered kind of a kind read from a file, spelled as the command
/// line spells it; `None` for a name no oracle of this build has.
pub fn known(read: OracleKind) -> Option<OracleKind> {
    all().map(|o| o.kind()).find(|k| *k == read)
}
