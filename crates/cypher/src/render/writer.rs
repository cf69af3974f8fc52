//! The text being written and what its spelling asks for: every renderer
//! writes through it.

use std::collections::{BTreeMap, BTreeSet};

use crate::Feature;
use crate::ast::{Expr, Spelling};

/// The text being written, how to spell it, and which synonyms it used.
pub(super) struct W {
    pub(super) out: String,
    pub(super) sp: Spelling,
    pub(super) used: BTreeSet<Feature>,
    /// Conjuncts of a MATCH's WHERE written inside the pattern element that
    /// declares their one variable, by that variable; taken when written.
    pub(super) inside: BTreeMap<String, Expr>,
    /// Writing a `shortestPath()`, whose hop keeps its `*min..max`.
    pub(super) in_shortest: bool,
    /// The next expression stands alone between a clause's keywords, where
    /// an operator needs no parentheses of its own.
    pub(super) top: bool,
    /// Writing a `CALL { }` body, whose RETURN items need aliases.
    pub(super) in_call: bool,
}

impl W {
    pub(super) fn new(out: String, sp: Spelling) -> Self {
        Self { out, sp, used: BTreeSet::new(), inside: BTreeMap::new(), in_shortest: false, top: false, in_call: false }
    }

    pub(super) fn push_str(&mut self, s: &str) {
        self.out.push_str(s);
    }

    pub(super) fn push(&mut self, c: char) {
        self.out.push(c);
    }

    /// Whether the spelling asks for this synonym, recording it as used.
    pub(super) fn spell(&mut self, on: impl Fn(&Spelling) -> bool, f: Feature) -> bool {
        let yes = on(&self.sp);
        if yes {
            self.used.insert(f);
        }
        yes
    }
}

impl std::fmt::Write for W {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}
