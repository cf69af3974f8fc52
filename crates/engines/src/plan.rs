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
            let hint = line.rfind('[').filter(|_| line.ends_with(']')).map(|i| {
                let inner = &line[i + 1..line.len() - 1];
                inner.split(':').next().unwrap_or(inner).trim().to_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_read_from_each_engines_plan() {
        let g = "Return (a.k, n AS n)\n  Aggregate (group: [a.k], aggs: [count(...) AS n])\n    Filter (a.k Gt 0) [index: k]\n      NodeScan (a:P)";
        assert_eq!(grafeo(g), ["Return", "Aggregate", "Filter[index]", "NodeScan"]);
        let k = "┌────────────┐\n│ RESULT_COLLECTOR[7] │\n│ HASH_JOIN[3] │ SCAN_NODE_TABLE[0] │\n│ a.k[12] │";
        assert_eq!(kuzu(k), ["RESULT_COLLECTOR", "HASH_JOIN", "SCAN_NODE_TABLE"]);
        let f = ["Results".to_owned(), "    Project".to_owned(), "        Node By Index Scan | (a:P)".to_owned()];
        assert_eq!(falkordb(&f), ["Results", "Project", "Node By Index Scan"]);
    }
}
