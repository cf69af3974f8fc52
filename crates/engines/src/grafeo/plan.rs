//! Grafeo's `EXPLAIN`: its logical plan as operator names.

/// Grafeo's logical plan, one operator a line, indented two spaces a level:
/// `Filter (a.k Gt 0) [label-first]` gives `Filter[label-first]`; a hint
/// (`[index: k]`, `[range: k]`) keeps only its kind.
pub fn operators(plan: &str) -> Vec<String> {
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

/// Operators that show the optimizer's choice rather than a clause.
pub const OPTIMIZATIONS: [&str; 4] = ["Join", "Apply", "Empty", "Discriminant"];

/// Whether `op` is the optimizer's: one of [`OPTIMIZATIONS`], or an
/// operator with a hint (`Filter[label-first]`, `[index]`, `[range]`).
pub fn is_optimization(op: &str) -> bool {
    op.contains('[') || OPTIMIZATIONS.contains(&op)
}
