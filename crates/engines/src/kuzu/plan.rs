//! The Kuzu family's `EXPLAIN`: its physical plan as operator names.

/// Kuzu's and LadybugDB's physical plan, drawn in boxes: every operator
/// appears as `NAME[id]`.
pub fn operators(plan: &str) -> Vec<String> {
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

/// Operators that show the optimizer's choice rather than a clause.
pub const OPTIMIZATIONS: [&str; 12] = [
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

/// Whether `op` is one of [`OPTIMIZATIONS`].
pub fn is_optimization(op: &str) -> bool {
    OPTIMIZATIONS.contains(&op)
}
