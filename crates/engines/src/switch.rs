//! An optimization switch as data, below the engines that list theirs.

/// One switch: its name in specs, its values, the default first among
/// them, and what it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    /// The name in specs (the engine's own name where it has one).
    pub name: &'static str,
    /// The values it takes.
    pub values: &'static [&'static str],
    /// The engine's default.
    pub default: &'static str,
    /// What it changes in a plan or its execution, as measured.
    pub changes: &'static str,
}

/// Values of a switch that is on by default.
pub(crate) const ON_OFF: &[&str] = &["true", "false"];
/// Values of a switch that is off by default.
pub(crate) const OFF_ON: &[&str] = &["false", "true"];
/// Values of an index switch: none, or one on every key.
pub(crate) const INDEX: &[&str] = &["none", "all"];
