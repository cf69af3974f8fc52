//! Literals as a query's spelling writes them: synonyms where it has any,
//! floats without an exponent where a release cannot read one.

use std::fmt::Write as _;

use graphlancer_model::script::quote_string_with;
use graphlancer_model::{Value, render_literal};

use crate::Feature;

use super::writer::W;

/// A literal, in the spelling asked for where it has synonyms.
pub(super) fn literal(out: &mut W, v: &Value) {
    match v {
        Value::String(s) if out.spell(|s| s.double_quotes, Feature::DoubleQuotedStrings) => {
            out.push_str(&quote_string_with(s, '"'));
        }
        Value::Int(i) if *i > 0 && out.spell(|s| s.unary_plus, Feature::UnaryPlus) => {
            let _ = write!(out, "+{i}");
        }
        Value::Int(i) if *i >= 8 && out.spell(|s| s.integer_bases, Feature::IntegerBases) => {
            let _ = if i % 2 == 0 { write!(out, "0x{i:X}") } else { write!(out, "0o{i:o}") };
        }
        Value::Float(x) if x.is_finite() && *x != 0.0 => {
            let small = x.abs() < 1.0;
            if small && out.spell(|s| s.float_leading_point, Feature::FloatLeadingPoint) {
                let text = positional(x.abs());
                let sign = if *x < 0.0 { "-" } else { "" };
                match text.strip_prefix('0') {
                    Some(rest) if rest.starts_with('.') => {
                        let _ = write!(out, "{sign}{rest}");
                    }
                    _ => out.push_str(&positional(*x)),
                }
            } else if out.spell(|s| s.float_exponent, Feature::FloatForms) {
                let _ = write!(out, "{x:E}");
            } else {
                out.push_str(&positional(*x));
            }
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal(out, item);
            }
            out.push(']');
        }
        _ => out.push_str(&render_literal(v)),
    }
}

/// A finite float without an exponent (`0.0000001`, not `1e-7`): a query
/// not spelled with exponents has none, for releases that cannot parse them
/// (Kuzu before 0.7 refuses `1e-7`). It reads back as the same float.
pub(super) fn positional(x: f64) -> String {
    let text = render_literal(&Value::Float(x));
    if !text.contains('e') {
        return text;
    }
    // Display writes the shortest round-trip digits, never an exponent.
    let digits = format!("{x}");
    if digits.contains('.') { digits } else { format!("{digits}.0") }
}

pub(super) fn is_negative(v: &graphlancer_model::Value) -> bool {
    match v {
        graphlancer_model::Value::Int(i) => *i < 0,
        graphlancer_model::Value::Float(x) => x.is_sign_negative(),
        _ => false,
    }
}
