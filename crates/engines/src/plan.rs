//! Plans as operator names, from each engine's `EXPLAIN`: the optimizations
//! a query used (DOT reads TinkerPop's applied strategies the same way).

use graphlancer_model::Value;

/// The text of a plan cell.
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The operators of a plan that show an optimizer's choice rather than a
/// clause of the query (DOT's applied strategies): what a combination of
/// used optimizations is made of. An operator every query of a clause gets
/// (a scan, a projection, a sort for ORDER BY) would make nearly every
/// query's combination its own, and novelty would then say nothing.
pub fn optimizations(dialect: &str, operators: &[String]) -> std::collections::BTreeSet<String> {
    operators
        .iter()
        .filter(|op| match dialect {
            "grafeo" => crate::grafeo::plan::is_optimization(op),
            "kuzu" => crate::kuzu::plan::OPTIMIZATIONS.contains(&op.as_str()),
            "falkordb" => crate::falkordb::plan::OPTIMIZATIONS.contains(&op.as_str()),
            _ => true,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::falkordb::plan::operators as falkordb;
    use crate::grafeo::plan::operators as grafeo;
    use crate::kuzu::plan::operators as kuzu;

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
