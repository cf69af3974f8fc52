//! The registry of engine families: what each engine's folder says about
//! itself, one line a family. Switches, the settings left out, where
//! releases come from and how a plan shows the optimizer are read from
//! here; a spec's parsing and opening are in [`crate::spec`].

pub use crate::family::{Family, Versioned};
use crate::switch::Switch;

/// Every family, in the order listings show them.
pub const ALL: &[Family] = &[
    crate::grafeo::FAMILY,
    crate::kuzu::KUZU,
    crate::kuzu::LADYBUG,
    crate::kuzu::RYUGRAPH,
    crate::falkordb::FAMILY,
    crate::arcadedb::FAMILY,
];

/// The family `name`, if graphlancer has one of that name.
pub fn family(name: &str) -> Option<&'static Family> {
    ALL.iter().find(|f| f.name == name)
}

/// The versioned family `name` (`kuzu`, `falkordb`, ...), if it is one.
pub fn versioned(name: &str) -> Option<(&'static str, Versioned)> {
    family(name).and_then(|f| Some((f.name, f.releases?)))
}

/// The names of the versioned families, for errors.
pub fn versioned_names() -> String {
    ALL.iter().filter(|f| f.releases.is_some()).map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// Switches the engines have that change neither plans nor answers here,
/// with the evidence: left out of every configuration space.
pub fn left_out() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    ALL.iter().flat_map(|f| f.left_out.iter().map(move |(name, why)| (f.name, *name, *why)))
}

/// The engine families that have switches, for listings and errors.
pub fn with_switches() -> Vec<&'static str> {
    ALL.iter().filter(|f| !f.switches.is_empty()).map(|f| f.name).collect()
}

/// The switches of an engine family; none for one without.
pub fn switches(family: &str) -> &'static [Switch] {
    self::family(family).map_or(&[], |f| f.switches)
}

/// The operators of a plan that show an optimizer's choice rather than a
/// clause of the query (DOT's applied strategies): what a combination of
/// used optimizations is made of. An operator every query of a clause gets
/// (a scan, a projection, a sort for ORDER BY) would make nearly every
/// query's combination its own, and novelty would then say nothing.
pub fn optimizations(dialect: &str, operators: &[String]) -> std::collections::BTreeSet<String> {
    let optimization = family(dialect).and_then(|f| f.optimization);
    operators.iter().filter(|op| optimization.is_none_or(|is| is(op))).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::falkordb::plan::operators as falkordb;
    use crate::grafeo::plan::operators as grafeo;
    use crate::kuzu::plan::operators as kuzu;

    #[test]
    fn each_family_is_listed_once_and_found_by_its_name() {
        for f in ALL {
            assert_eq!(family(f.name).map(|g| g.name), Some(f.name));
        }
        let mut names: Vec<&str> = ALL.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        assert!(family("reference").is_none(), "the reference is no engine family here");
    }

    #[test]
    fn operators_are_read_from_each_engines_plan() {
        let g = "Return (a.k, n AS n)\n  Aggregate (group: [a.k], aggs: [count(...) AS n])\n    Filter (a.k Gt 0) [index: k]\n      NodeScan (a:P)";
        assert_eq!(grafeo(g), ["Return", "Aggregate", "Filter[index]", "NodeScan"]);
        let used = |d: &str, ops: &[&str]| -> Vec<String> {
            optimizations(d, &ops.iter().map(|o| (*o).to_owned()).collect::<Vec<_>>()).into_iter().collect()
        };
        assert_eq!(
            used("grafeo", &["Return", "Join", "Filter[label-first]", "Filter", "NodeScan"]),
            ["Filter[label-first]", "Join"]
        );
        assert_eq!(used("kuzu", &["PROJECTION", "SEMI_MASKER", "SCAN_NODE_TABLE", "TOP_K"]), ["SEMI_MASKER", "TOP_K"]);
        let k = "┌────────────┐\n│ RESULT_COLLECTOR[7] │\n│ HASH_JOIN[3] │ SCAN_NODE_TABLE[0] │\n│ a.k[12] │";
        assert_eq!(kuzu(k), ["RESULT_COLLECTOR", "HASH_JOIN", "SCAN_NODE_TABLE"]);
        let f = ["Results".to_owned(), "    Project".to_owned(), "        Node By Index Scan | (a:P)".to_owned()];
        assert_eq!(falkordb(&f), ["Results", "Project", "Node By Index Scan"]);
    }
}
