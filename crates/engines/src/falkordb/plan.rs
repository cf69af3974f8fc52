//! FalkorDB's `GRAPH.EXPLAIN` as operator names.

/// FalkorDB's `GRAPH.EXPLAIN` lines: `Conditional Traverse | (a)->(c:P)`
/// gives `Conditional Traverse`.
pub fn operators(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| l.split('|').next().unwrap_or(l).trim().to_owned()).filter(|l| !l.is_empty()).collect()
}

/// Operators that show the optimizer's choice rather than a clause.
pub const OPTIMIZATIONS: [&str; 12] = [
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

/// Whether `op` is one of [`OPTIMIZATIONS`].
pub fn is_optimization(op: &str) -> bool {
    OPTIMIZATIONS.contains(&op)
}
