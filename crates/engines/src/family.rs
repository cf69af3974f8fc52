//! What an engine family is, as data: the type each engine's folder fills
//! in for the registry ([`crate::families`]), below both.

use crate::switch::Switch;

/// Where a family's releases come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Versioned {
    /// A Python package, one virtualenv a release (`.engines/PACKAGE-VERSION/`).
    Venv {
        /// The package's name.
        package: &'static str,
        /// Whether it needs Python 3.12 or later (this machine's `python3` is 3.11).
        recent_python: bool,
    },
    /// FalkorDB's module (`.engines/falkordb-VERSION/falkordb.so`).
    FalkorDbModule,
}

/// What graphlancer knows of an engine family beyond its adapter.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// The name a spec starts with (`kuzu`, `falkordb`).
    pub name: &'static str,
    /// Its optimization switches; none where it has no configuration space.
    pub switches: &'static [Switch],
    /// Its settings that change neither plans nor answers, with the evidence.
    pub left_out: &'static [(&'static str, &'static str)],
    /// Where its releases come from, when it is versioned.
    pub releases: Option<Versioned>,
    /// Which plan operators are the optimizer's choice rather than a
    /// clause's; `None` where every operator counts.
    pub optimization: Option<fn(&str) -> bool>,
}
