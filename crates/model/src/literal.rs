//! How a string, float or identifier is spelled in query text, so every
//! script and query writer spells them alike.

use std::fmt::Write as _;

/// Formats a finite float so that it reads back as the same float and always
/// as a float: `1.0`, `-0.0`, `1e-7`, `2.5e16`.
pub fn format_float(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // Rust's shortest round-trip form; it has a '.' or an exponent, both of
    // which Cypher reads as a float.
    format!("{x:?}")
}

/// Quotes a string as a single-quoted Cypher literal with backslash escapes.
pub fn quote_string(s: &str) -> String {
    quote(s, '\'', true)
}

/// `s` between `q` quotes, escaped as Cypher, Groovy and Rhai read it (Gremlin
/// dialects differ in the quote).
pub fn quote_string_with(s: &str, q: char) -> String {
    quote(s, q, true)
}

/// Quotes `s`, escaping control characters too when `controls`.
pub(crate) fn quote(s: &str, q: char, controls: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if !controls => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// Writes an identifier bare when it is a plain word, else in backticks.
pub fn quote_identifier(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain { name.to_owned() } else { format!("`{}`", name.replace('`', "``")) }
}
