//! The openCypher language as an outside standard for coverage: one entry
//! for each construct of the openCypher grammar (`grammar/openCypher.bnf` of
//! the openCypher repository, commit 677cbaf) and of the Cypher manual's
//! clause and function lists, mapped to the generator production that writes
//! it. `graphlancer generate --coverage` measures, per dialect, which
//! constructs generated queries contain, which the dialect's profile refuses
//! (with its evidence), and which no production writes (with the reason);
//! with engines named it also runs each construct's example on them, which
//! is the evidence of what an engine accepts.

use crate::feature::Feature;

/// Where a construct sits in the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// Statements (clauses) and their options.
    Clause,
    /// Pattern forms.
    Pattern,
    /// Operators and expression forms.
    Expression,
    /// Literals.
    Literal,
    /// Functions of the Cypher manual's function list.
    Function,
}

impl Group {
    /// The group's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Group::Clause => "clause",
            Group::Pattern => "pattern",
            Group::Expression => "expression",
            Group::Literal => "literal",
            Group::Function => "function",
        }
    }
}

/// How generated queries show a construct.
#[derive(Debug, Clone, Copy)]
pub enum Detect {
    /// The production is recorded among the query's features.
    Feature(Feature),
    /// The production is recorded and the query's text holds this string
    /// (finer forms one production writes among others).
    Text(Feature, &'static str),
    /// The production is recorded and this test of the query's text holds.
    Check(Feature, fn(&str) -> bool),
    /// No production writes it; the reason.
    Missing(&'static str),
}

/// One construct of the language.
#[derive(Debug, Clone, Copy)]
pub struct Construct {
    /// What it is, as a reader of the grammar names it.
    pub name: &'static str,
    /// The grammar rule it comes from, or `manual` for the Cypher manual.
    pub rule: &'static str,
    /// Where it sits.
    pub group: Group,
    /// How generated queries show it.
    pub detect: Detect,
    /// A query using it against the probe graph (labels A and B with keys
    /// `k` integer and `s` string, type T with key `k`).
    pub example: &'static str,
}

impl Construct {
    /// The production that writes it, if one does.
    pub fn feature(&self) -> Option<Feature> {
        match self.detect {
            Detect::Feature(f) | Detect::Text(f, _) | Detect::Check(f, _) => Some(f),
            Detect::Missing(_) => None,
        }
    }

    /// The productions it needs: its own and the one it is an option of.
    pub fn needs(&self) -> Vec<Feature> {
        let own = self.feature();
        let parent = match own {
            Some(Feature::MergeOnCreate | Feature::MergeOnMatch) => Some(Feature::Merge),
            Some(Feature::ExistsPattern) => Some(Feature::ExistsSubquery),
            Some(Feature::MapProjectionAll) => Some(Feature::FnProperties),
            Some(Feature::SetItems) => Some(Feature::SetProperty),
            Some(Feature::CountSubquery) => Some(Feature::PatternComprehension),
            _ => None,
        };
        own.into_iter().chain(parent).collect()
    }

    /// The productions a probe turns off when an engine refuses this
    /// construct's example: only a construct that is exactly one production
    /// decides it. A finer form (a text test on a production) or the base
    /// production every query has would turn off far more than the engine
    /// refused. A function construct names several functions
    /// (`toLower / toUpper`), each written by a production of its own.
    pub fn probed_features(&self) -> Vec<Feature> {
        let own = match self.detect {
            Detect::Feature(f) if f != Feature::Match => f,
            _ => return Vec::new(),
        };
        let mut out = vec![own];
        if self.group == Group::Function {
            let names: Vec<&str> = self.name.split(" / ").collect();
            for f in crate::functions::FUNCTIONS {
                if names.contains(&f.name) && !out.contains(&f.feature) {
                    out.push(f.feature);
                }
            }
        }
        out
    }

    /// Whether a generated query with these features and this text shows it.
    pub fn shown_by(&self, features: &std::collections::BTreeSet<Feature>, text: &str) -> bool {
        match self.detect {
            Detect::Feature(f) => features.contains(&f),
            Detect::Text(f, s) => features.contains(&f) && text.contains(s),
            Detect::Check(f, test) => features.contains(&f) && test(text),
            Detect::Missing(_) => false,
        }
    }
}

/// A SET clause with two or more items: a comma before the next clause keyword.
/// Whether a `YIELD column AS alias` is followed by its WHERE.
fn yield_where(text: &str) -> bool {
    text.split("YIELD ").skip(1).any(|rest| rest.split(' ').nth(3) == Some("WHERE"))
}

fn several_set_items(text: &str) -> bool {
    text.split("SET ").skip(1).any(|rest| {
        let end = [
            " RETURN ",
            " WITH ",
            " MATCH ",
            " CREATE ",
            " MERGE ",
            " SET ",
            " REMOVE ",
            " DELETE ",
            " UNWIND ",
            " OPTIONAL ",
            " CALL ",
            " FOREACH ",
        ]
        .iter()
        .filter_map(|k| rest.find(k))
        .min()
        .unwrap_or(rest.len());
        let item = &rest[..end];
        // A comma outside brackets separates items.
        let mut depth = 0i32;
        item.chars().any(|ch| {
            match ch {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return true,
                _ => {}
            }
            false
        })
    })
}

/// A string literal with an escape in it.
fn has_escape(text: &str) -> bool {
    text.contains('\\')
}

const fn c(name: &'static str, rule: &'static str, group: Group, detect: Detect, example: &'static str) -> Construct {
    Construct { name, rule, group, detect, example }
}

mod table;

pub use table::CONSTRUCTS;

const PARAMS: &str = "parameters need a value map passed beside the query, which not every adapter's protocol \
                      carries; a literal in its place tests the same evaluation";
const TEMPORAL: &str = "the value model (and so the graphs and the comparison of answers) has no temporal \
                        types; engines print them in formats of their own";
const SPATIAL: &str = "the value model has no points; of the engines here only FalkorDB and ArcadeDB have them";
const PATH_SEARCH: &str = "no engine here accepts a path search prefix (probe column: a syntax error on every one)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructs_are_named_once_and_each_has_an_example_and_a_rule() {
        let mut names: Vec<&str> = CONSTRUCTS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a construct is listed twice");
        for c in CONSTRUCTS {
            assert!(!c.example.is_empty() && !c.rule.is_empty(), "{}", c.name);
            if let Detect::Missing(why) = c.detect {
                assert!(why.len() > 20, "{}: a missing construct needs its reason", c.name);
            }
        }
    }

    #[test]
    fn several_set_items_are_told_from_one_item_with_a_map() {
        assert!(several_set_items("MATCH (n) SET n.k = 1, n.j = 2 RETURN n"));
        assert!(!several_set_items("MATCH (n) SET n += {k: 1, j: 2} RETURN n"));
        assert!(!several_set_items("MATCH (n) SET n.k = f(1, 2) RETURN n, 1"));
    }
}
