//! The TCK's notation for expected values (`[1, 'a']`, `(:A {num: 1})`,
//! `[:T]`, `<(:A)-[:T]->(:B)>`) read into graphlancer's values, and the
//! comparison of an answer with the expected table.

use std::collections::BTreeMap;

use graphlancer_model::{ID_PROPERTY, Node, Path, Relationship, Value};

/// Reads one cell of an expected table.
///
/// # Errors
/// Text that is not a TCK value.
pub fn parse_cell(text: &str) -> Result<Value, String> {
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after a value in `{text}`"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        if self.eat(b) { Ok(()) } else { Err(format!("expected `{}` at byte {}", b as char, self.i)) }
    }

    fn rest_starts(&mut self, word: &str) -> bool {
        self.ws();
        self.s[self.i..].starts_with(word.as_bytes())
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            None => Err("an empty cell".into()),
            Some(b'\'') => self.string().map(Value::String),
            Some(b'[') if self.s.get(self.i + 1) == Some(&b':') => self.relationship().map(Value::Relationship),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                Ok(Value::List(items))
            }
            Some(b'{') => self.map().map(Value::Map),
            Some(b'(') => self.node().map(Value::Node),
            Some(b'<') => self.path().map(Value::Path),
            Some(_) => {
                for (word, v) in [
                    ("null", Value::Null),
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("NaN", Value::Float(f64::NAN)),
                    ("Inf", Value::Float(f64::INFINITY)),
                    ("-Inf", Value::Float(f64::NEG_INFINITY)),
                ] {
                    if self.rest_starts(word) {
                        self.i += word.len();
                        return Ok(v);
                    }
                }
                self.number()
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_alphanumeric() || b"-+.".contains(b)) {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        text.parse::<f64>().map(Value::Float).map_err(|_| format!("`{text}` is not a TCK value"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'\'')?;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err("an unterminated string".into()),
                Some(b'\'') => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|e| e.to_string());
                }
                Some(b'\\') => {
                    let escaped = *self.s.get(self.i + 1).ok_or("an unterminated escape")?;
                    out.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                    self.i += 2;
                }
                Some(&b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        self.ws();
        if self.eat(b'`') {
            let start = self.i;
            while self.s.get(self.i).is_some_and(|&b| b != b'`') {
                self.i += 1;
            }
            let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
            self.expect(b'`')?;
            return Ok(name);
        }
        let start = self.i;
        while self.s.get(self.i).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80) {
            self.i += 1;
        }
        if start == self.i {
            return Err(format!("expected a name at byte {start}"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn map(&mut self) -> Result<BTreeMap<String, Value>, String> {
        self.expect(b'{')?;
        let mut out = BTreeMap::new();
        if self.eat(b'}') {
            return Ok(out);
        }
        loop {
            let k = self.name()?;
            self.expect(b':')?;
            out.insert(k, self.value()?);
            if self.eat(b'}') {
                return Ok(out);
            }
            self.expect(b',')?;
        }
    }

    fn labels(&mut self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        while self.eat(b':') {
            out.push(self.name()?);
        }
        Ok(out)
    }

    fn properties(&mut self) -> Result<BTreeMap<String, Value>, String> {
        if self.peek() == Some(b'{') { self.map() } else { Ok(BTreeMap::new()) }
    }

    fn node(&mut self) -> Result<Node, String> {
        self.expect(b'(')?;
        let labels = self.labels()?;
        let properties = self.properties()?;
        self.expect(b')')?;
        Ok(Node::new(labels, properties))
    }

    fn relationship(&mut self) -> Result<Relationship, String> {
        self.expect(b'[')?;
        let mut types = self.labels()?;
        let properties = self.properties()?;
        self.expect(b']')?;
        let rel_type = types.pop().ok_or("a relationship without a type")?;
        Ok(Relationship { rel_type, properties, start: None, end: None })
    }

    fn path(&mut self) -> Result<Path, String> {
        self.expect(b'<')?;
        let mut path = Path { nodes: vec![self.node()?], relationships: Vec::new() };
        while !self.eat(b'>') {
            self.eat(b'<');
            self.expect(b'-')?;
            path.relationships.push(self.relationship()?);
            self.expect(b'-')?;
            self.eat(b'>');
            path.nodes.push(self.node()?);
        }
        Ok(path)
    }
}

/// `v` as the TCK compares it: entities without graphlancer's identity
/// property and without endpoints (which a TCK value does not write), lists
/// sorted where their order does not count.
pub fn normalize(v: &Value, unordered_lists: bool) -> Value {
    let props = |p: &BTreeMap<String, Value>| -> BTreeMap<String, Value> {
        p.iter().filter(|(k, _)| *k != ID_PROPERTY).map(|(k, v)| (k.clone(), normalize(v, unordered_lists))).collect()
    };
    let node = |n: &Node| Node { labels: n.labels.clone(), properties: props(&n.properties) };
    let rel = |r: &Relationship| Relationship {
        rel_type: r.rel_type.clone(),
        properties: props(&r.properties),
        start: None,
        end: None,
    };
    match v {
        Value::List(items) => {
            let mut items: Vec<Value> = items.iter().map(|i| normalize(i, unordered_lists)).collect();
            if unordered_lists {
                items.sort_by_key(|i| format!("{i:?}"));
            }
            Value::List(items)
        }
        Value::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), normalize(v, unordered_lists))).collect()),
        Value::Node(n) => Value::Node(node(n)),
        Value::Relationship(r) => Value::Relationship(rel(r)),
        Value::Path(p) => Value::Path(Path {
            nodes: p.nodes.iter().map(node).collect(),
            relationships: p.relationships.iter().map(rel).collect(),
        }),
        // The TCK writes temporal values as Neo4j's text, in quotes.
        Value::Temporal(t) => Value::String(java_time_text(&t.text)),
        // The TCK compares floats as numbers: -0.0 equals 0.0.
        Value::Float(f) if *f == 0.0 => Value::Float(0.0),
        other => other.clone(),
    }
}

/// ISO 8601 text as Java's time classes write it, as the TCK expects: a
/// time of day whose seconds are zero (and no fraction) without them,
/// `10:35:00` as `10:35`.
fn java_time_text(text: &str) -> String {
    let b = text.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    for i in 0..b.len().saturating_sub(7) {
        let hhmm00 = digit(i)
            && digit(i + 1)
            && b[i + 2] == b':'
            && digit(i + 3)
            && digit(i + 4)
            && &b[i + 5..i + 8] == b":00"
            && (i == 0 || b[i - 1] == b'T');
        if hhmm00 && !b.get(i + 8).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
            return format!("{}{}", &text[..i + 5], &text[i + 8..]);
        }
    }
    text.to_owned()
}

/// Whether `actual` (columns and rows) is what the TCK table expects;
/// `Err` says how it differs.
///
/// # Errors
/// The first difference found, in words.
pub fn matches(
    expected_columns: &[String],
    expected_rows: &[Vec<String>],
    ordered: bool,
    unordered_lists: bool,
    actual_columns: &[String],
    actual_rows: &[Vec<Value>],
) -> Result<(), String> {
    let mut positions = Vec::new();
    for c in expected_columns {
        positions.push(
            actual_columns
                .iter()
                .position(|a| a == c)
                .ok_or_else(|| format!("no column `{c}` among {actual_columns:?}"))?,
        );
    }
    if actual_columns.len() != expected_columns.len() {
        return Err(format!("columns {actual_columns:?}, expected {expected_columns:?}"));
    }
    let render = |row: Vec<Value>| format!("{row:?}");
    let mut expected = expected_rows
        .iter()
        .map(|r| {
            Ok(render(
                r.iter().map(|c| Ok(normalize(&parse_cell(c)?, unordered_lists))).collect::<Result<_, String>>()?,
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut actual: Vec<String> = actual_rows
        .iter()
        .map(|r| render(positions.iter().map(|&p| normalize(&r[p], unordered_lists)).collect()))
        .collect();
    if !ordered {
        expected.sort();
        actual.sort();
    }
    if expected == actual {
        return Ok(());
    }
    let first = expected.iter().zip(&actual).position(|(e, a)| e != a).unwrap_or(expected.len().min(actual.len()));
    Err(format!(
        "{} rows, expected {}; first difference at row {first}: got {}, expected {}",
        actual.len(),
        expected.len(),
        actual.get(first).map_or("nothing", String::as_str),
        expected.get(first).map_or("nothing", String::as_str),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_tck_value_reads() {
        assert_eq!(parse_cell("-1").expect("a value"), Value::Int(-1));
        assert_eq!(parse_cell("1.5e2").expect("a value"), Value::Float(150.0));
        assert_eq!(parse_cell("'it\\'s'").expect("a value"), Value::String("it's".into()));
        assert_eq!(
            parse_cell("[1, null, []]").expect("a value"),
            Value::List(vec![Value::Int(1), Value::Null, Value::List(vec![])])
        );
        let Value::Node(n) = parse_cell("(:B:A {name: 'x', `a b`: 1})").expect("a value") else { panic!() };
        assert_eq!((n.labels, n.properties.len()), (vec!["A".to_owned(), "B".to_owned()], 2));
        let Value::Path(p) = parse_cell("<(:A)-[:T {k: 1}]->()<-[:U]-(:C)>").expect("a value") else { panic!() };
        assert_eq!((p.nodes.len(), p.relationships[1].rel_type.as_str()), (3, "U"));
        assert!(parse_cell("[1, 2").is_err());
        assert!(parse_cell("1 2").is_err());
    }

    #[test]
    fn temporal_values_compare_as_the_tck_writes_them() {
        assert_eq!(java_time_text("10:35:00"), "10:35");
        assert_eq!(java_time_text("2015-07-21T21:40:00+01:00"), "2015-07-21T21:40+01:00");
        assert_eq!(java_time_text("10:35:00.5"), "10:35:00.5");
        assert_eq!(java_time_text("12:00:13"), "12:00:13");
        assert_eq!(java_time_text("1910-05-06"), "1910-05-06");
    }

    #[test]
    fn rows_compare_as_bags_unless_ordered_and_entities_without_identity() {
        let cols = vec!["n".to_owned()];
        let expected = vec![vec!["(:A {num: 1})".to_owned()], vec!["2".to_owned()]];
        let mut props = BTreeMap::from([("num".to_owned(), Value::Int(1))]);
        props.insert(ID_PROPERTY.to_owned(), Value::Int(7));
        let rows = vec![vec![Value::Int(2)], vec![Value::Node(Node::new(vec!["A".into()], props))]];
        assert!(matches(&cols, &expected, false, false, &cols, &rows).is_ok());
        assert!(matches(&cols, &expected, true, false, &cols, &rows).is_err());
        let err = matches(&cols, &expected[..1], false, false, &cols, &rows).expect_err("an error");
        assert!(err.starts_with("2 rows, expected 1"), "{err}");
    }
}
