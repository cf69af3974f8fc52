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

/// Grafeo's logical plan, one operator a line, indented two spaces a level:
/// `Filter (a.k Gt 0) [label-first]` gives `Filter[label-first]`; a hint
/// (`[index: k]`, `[range: k]`) keeps only its kind.
pub fn grafeo(plan: &str) -> Vec<String> {
    plan.lines()
        .filter_map(|line| {
            let line = line.trim();
            let name: String = line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name.is_empty() {
                return None;
            }
            // A hint is a word; a `[...]` that ends a line may also be a
            // list inside an expression's text.
            let hint = line
                .rfind('[')
                .filter(|_| line.ends_with(']'))
                .map(|i| {
                    let inner = &line[i + 1..line.len() - 1];
                    inner.split(':').next().unwrap_or(inner).trim().to_owned()
                })
                .filter(|h| {
                    h.starts_with(|c: char| c.is_ascii_lowercase())
                        && h.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                });
            Some(match hint {
                Some(h) if !h.is_empty() => format!("{name}[{h}]"),
                _ => name,
            })
        })
        .collect()
}

/// Kuzu's and LadybugDB's physical plan, drawn in boxes: every operator
/// appears as `NAME[id]`.
pub fn kuzu(plan: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = plan.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_uppercase() && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
        {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_uppercase() || bytes[i] == b'_' || bytes[i].is_ascii_digit()) {
                i += 1;
            }
            let name = &plan[start..i];
            let digits = bytes.get(i) == Some(&b'[')
                && plan[i + 1..]
                    .find(']')
                    .is_some_and(|end| end > 0 && plan[i + 1..i + 1 + end].bytes().all(|b| b.is_ascii_digit()));
            if digits && name.len() > 1 {
                out.push(name.to_owned());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// FalkorDB's `GRAPH.EXPLAIN` lines: `Conditional Traverse | (a)->(c:P)`
/// gives `Conditional Traverse`.
pub fn falkordb(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| l.split('|').next().unwrap_or(l).trim().to_owned()).filter(|l| !l.is_empty()).collect()
}

/// The operators of a plan that show an optimizer's choice rather than a
/// clause of the query (DOT's applied strategies): what a combination of
/// used optimizations is made of. An operator every query of a clause gets
/// (a scan, a projection, a sort for ORDER BY) would make nearly every
/// query's combination its own, and novelty would then say nothing.
pub fn optimizations(dialect: &str, operators: &[String]) -> std::collections::BTreeSet<String> {
    const GRAFEO: [&str; 4] = ["Join", "Apply", "Empty", "Discriminant"];
    const KUZU: [&str; 12] = [
        "HASH_JOIN_BUILD",
        "CROSS_PRODUCT",
        "SEMI_MASKER",
        "TOP_K",
        "EMPTY_RESULT",
        "MULTIPLICITY_REDUCER",
        "FLATTEN",
        "INTERSECT",
        "INDEX_LOOKUP",
        "PRIMARY_KEY_SCAN_NODE_TABLE",
        "PATH_PROPERTY_PROBE",
        "PACKED_EXTEND",
    ];
    const FALKORDB: [&str; 12] = [
        "Node By Index Scan",
        "Edge By Index Scan",
        "Node By Id Seek",
        "Node By Label Scan",
        "Expand Into",
        "Cartesian Product",
        "Value Hash Join",
        "Semi Apply",
        "Anti Semi Apply",
        "Apply Multiplexer",
        "Argument",
        "Optional",
    ];
    operators
        .iter()
        .filter(|op| match dialect {
            // A hint (`Filter[label-first]`, `[index]`, `[range]`) is the optimizer's.
            "grafeo" => op.contains('[') || GRAFEO.contains(&op.as_str()),
            "kuzu" => KUZU.contains(&op.as_str()),
            "falkordb" => FALKORDB.contains(&op.as_str()),
            _ => true,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
