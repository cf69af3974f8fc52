//! Graph creation scripts and literal rendering per dialect. The same text
//! loads the graph into an engine and goes into every report's `repro.cypher`,
//! so what a developer pastes is exactly what graphlancer ran.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::graph::Graph;
use crate::literal::quote;
pub use crate::literal::{format_float, quote_identifier, quote_string, quote_string_with};
use crate::schema::{PropertyType, Schema};
use crate::value::{ID_PROPERTY, Value};

/// The families of creation script graphlancer can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScriptDialect {
    /// Neo4j-style `CREATE` of labelled nodes and typed relationships: Neo4j,
    /// Memgraph, FalkorDB, Grafeo and ArcadeDB accept it.
    Cypher,
    /// Kuzu and LadybugDB: a node table per label (primary key `gid`), a
    /// relationship table per type with its label pairs, then the data. Needs
    /// one label per node.
    Kuzu,
    /// Kuzu before 0.8: a relationship type with several label pairs is a
    /// `REL TABLE GROUP`, whose relationships are created through the table
    /// of their pair (`T1_L0_L1`; Kuzu 0.1 accepts nothing else).
    KuzuRelGroups,
    /// TinkerPop Gremlin: one `addV` traversal per vertex (one label), one
    /// `addE` per edge between vertices found by their `gid`.
    Gremlin,
}

/// Renders the statements that create `graph` in an empty database, in order.
pub fn creation_script(graph: &Graph, dialect: ScriptDialect) -> Vec<String> {
    match dialect {
        ScriptDialect::Cypher => cypher_create(graph),
        ScriptDialect::Kuzu => kuzu_create(graph, false),
        ScriptDialect::KuzuRelGroups => kuzu_create(graph, true),
        ScriptDialect::Gremlin => gremlin_create(graph),
    }
}

/// A value in a Groovy script: Cypher's literal, but control characters in
/// strings escaped (a Groovy string cannot hold a raw newline).
fn groovy_literal(v: &Value) -> String {
    match v {
        Value::String(s) => quote_string(s),
        Value::List(items) => format!("[{}]", items.iter().map(groovy_literal).collect::<Vec<_>>().join(", ")),
        other => render_literal(other),
    }
}

fn gremlin_properties(out: &mut String, id: i64, props: &std::collections::BTreeMap<String, Value>) {
    let _ = write!(out, ".property('{ID_PROPERTY}', {id})");
    for (k, v) in props {
        let _ = write!(out, ".property({}, {})", quote_string(k), groovy_literal(v));
    }
}

fn gremlin_create(graph: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for n in &graph.nodes {
        let label = n.labels.first().map_or("vertex", String::as_str);
        let mut s = format!("g.addV({})", quote_string(label));
        gremlin_properties(&mut s, n.id, &n.properties);
        s.push_str(".iterate()");
        out.push(s);
    }
    for r in &graph.relationships {
        let mut s = format!(
            "g.V().has('{ID_PROPERTY}', {}).addE({}).to(__.V().has('{ID_PROPERTY}', {}))",
            r.start,
            quote_string(&r.rel_type),
            r.end
        );
        gremlin_properties(&mut s, r.id, &r.properties);
        s.push_str(".iterate()");
        out.push(s);
    }
    out
}

/// The column type Kuzu gives a property type.
fn kuzu_type(ty: PropertyType) -> &'static str {
    match ty {
        PropertyType::Int => "INT64",
        PropertyType::Float => "DOUBLE",
        PropertyType::String => "STRING",
        PropertyType::Bool => "BOOLEAN",
    }
}

fn kuzu_columns(out: &mut String, schema: &Schema, keys: &[String]) {
    let _ = write!(out, "{ID_PROPERTY} INT64");
    for k in keys {
        let ty = schema.key_type(k).map_or("STRING", kuzu_type);
        let _ = write!(out, ", {} {ty}", quote_identifier(k));
    }
}

/// The relationship table a relationship of `rel_type` from `from` to `to`
/// is created in, where the type is a table group.
pub fn kuzu_group_table(rel_type: &str, from: &str, to: &str) -> String {
    format!("{rel_type}_{from}_{to}")
}

fn kuzu_create(graph: &Graph, groups: bool) -> Vec<String> {
    let schema = &graph.schema;
    let mut out = Vec::new();
    for label in &schema.labels {
        let mut ddl = format!("CREATE NODE TABLE {}(", quote_identifier(&label.name));
        kuzu_columns(&mut ddl, schema, &label.keys);
        let _ = write!(ddl, ", PRIMARY KEY({ID_PROPERTY}))");
        out.push(ddl);
    }
    let literal = if groups { kuzu_positional_literal } else { kuzu_literal };
    let grouped = |t: &str| groups && schema.rel_types.iter().any(|r| r.name == t && r.endpoints.len() > 1);
    for t in &schema.rel_types {
        let table = if grouped(&t.name) { "REL TABLE GROUP" } else { "REL TABLE" };
        let mut ddl = format!("CREATE {table} {}(", quote_identifier(&t.name));
        for (a, b) in &t.endpoints {
            let _ = write!(ddl, "FROM {} TO {}, ", quote_identifier(a), quote_identifier(b));
        }
        kuzu_columns(&mut ddl, schema, &t.keys);
        ddl.push(')');
        out.push(ddl);
    }
    // One statement per entity: Kuzu plans a long comma pattern slowly, and
    // each statement is a fraction of a millisecond.
    for n in &graph.nodes {
        let label = n.labels.first().map_or(String::new(), |l| quote_identifier(l));
        let mut s = format!("CREATE (:{label} ");
        property_map_with(&mut s, n.id, &n.properties, literal);
        s.push(')');
        out.push(s);
    }
    let label_of = |id: i64| graph.node(id).and_then(|n| n.labels.first()).map_or("", |l| l.as_str());
    for r in &graph.relationships {
        let (from, to) = (label_of(r.start), label_of(r.end));
        let table = if grouped(&r.rel_type) { kuzu_group_table(&r.rel_type, from, to) } else { r.rel_type.clone() };
        let mut s = format!(
            "MATCH (a:{} {{{ID_PROPERTY}: {}}}), (b:{} {{{ID_PROPERTY}: {}}}) CREATE (a)-[:{} ",
            quote_identifier(from),
            r.start,
            quote_identifier(to),
            r.end,
            quote_identifier(&table)
        );
        property_map_with(&mut s, r.id, &r.properties, literal);
        s.push_str("]->(b)");
        out.push(s);
    }
    out
}

fn cypher_create(graph: &Graph) -> Vec<String> {
    if graph.nodes.is_empty() {
        return Vec::new();
    }
    let mut out = String::from("CREATE");
    let mut first = true;
    let mut sep = |out: &mut String| {
        out.push_str(if first { "\n  " } else { ",\n  " });
        first = false;
    };
    for n in &graph.nodes {
        sep(&mut out);
        let _ = write!(out, "(n{}", n.id);
        for l in &n.labels {
            let _ = write!(out, ":{}", quote_identifier(l));
        }
        out.push(' ');
        property_map(&mut out, n.id, &n.properties);
        out.push(')');
    }
    for r in &graph.relationships {
        sep(&mut out);
        let _ = write!(out, "(n{})-[:{} ", r.start, quote_identifier(&r.rel_type));
        property_map(&mut out, r.id, &r.properties);
        let _ = write!(out, "]->(n{})", r.end);
    }
    vec![out]
}

fn property_map(out: &mut String, id: i64, props: &std::collections::BTreeMap<String, Value>) {
    property_map_with(out, id, props, render_literal);
}

fn property_map_with(
    out: &mut String,
    id: i64,
    props: &std::collections::BTreeMap<String, Value>,
    literal: fn(&Value) -> String,
) {
    let _ = write!(out, "{{{ID_PROPERTY}: {id}");
    for (k, v) in props {
        let _ = write!(out, ", {}: {}", quote_identifier(k), literal(v));
    }
    out.push('}');
}

/// A literal for Kuzu's creation script: Kuzu (unlike LadybugDB) reads
/// `\t`, `\n` and `\uXXXX` as the bare letter, so control characters are
/// written as themselves, which every version reads alike.
fn kuzu_literal(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s, '\'', false),
        other => render_literal(other),
    }
}

/// Kuzu before 0.7 reads no exponent in a float literal: `-2.5e16` is
/// written out in full (Rust's `Display` of a float never uses one, and
/// gives the shortest digits that read back to the same float).
fn kuzu_positional_literal(v: &Value) -> String {
    match v {
        Value::Float(x) if x.is_finite() => {
            let text = x.to_string();
            if text.contains('.') { text } else { text + ".0" }
        }
        other => kuzu_literal(other),
    }
}

/// Renders a scalar, list or map value as a Cypher literal expression.
/// Graph entities have no literal form and render as `null`.
pub fn render_literal(v: &Value) -> String {
    match v {
        Value::Null | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => "null".into(),
        Value::Temporal(t) => format!("{}({})", t.kind, quote_string(&t.text)),
        Value::Bool(b) => b.to_string(),
        // The literal 9223372036854775808 does not fit, so i64::MIN is built.
        Value::Int(i64::MIN) => "(-9223372036854775807 - 1)".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) if x.is_nan() => "(0.0 / 0.0)".into(),
        Value::Float(x) if x.is_infinite() => if *x > 0.0 { "(1.0 / 0.0)" } else { "(-1.0 / 0.0)" }.into(),
        Value::Float(x) => format_float(*x),
        Value::String(s) => quote_string(s),
        Value::List(items) => {
            let inner: Vec<String> = items.iter().map(render_literal).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Map(m) => {
            let inner: Vec<String> =
                m.iter().map(|(k, v)| format!("{}: {}", quote_identifier(k), render_literal(v))).collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphConfig, generate};

    #[test]
    fn literals_escape_what_they_must() {
        assert_eq!(quote_string("it's \\ \"x\"\n"), r#"'it\'s \\ "x"\n'"#);
        assert_eq!(quote_string("naïve 😀"), "'naïve 😀'");
        assert_eq!(format_float(1.0), "1.0");
        assert_eq!(format_float(-0.0), "-0.0");
        assert_eq!(format_float(1e-7), "1e-7");
        assert_eq!(render_literal(&Value::Int(i64::MIN)), "(-9223372036854775807 - 1)");
        assert_eq!(quote_identifier("k1"), "k1");
        assert_eq!(quote_identifier("a b`c"), "`a b``c`");
        assert_eq!(quote_identifier("1x"), "`1x`");
    }

    #[test]
    fn script_creates_every_entity_once() {
        let g = generate(2, &GraphConfig::default()).expect("valid");
        let script = creation_script(&g, ScriptDialect::Cypher);
        assert_eq!(script.len(), 1);
        assert_eq!(script[0].matches("gid: ").count(), g.nodes.len() + g.relationships.len());
        assert!(script[0].starts_with("CREATE\n  (n0:"));
    }

    #[test]
    fn kuzu_script_declares_tables_before_data() {
        let config = GraphConfig { second_label_probability: 0.0, ..GraphConfig::default() };
        let g = generate(2, &config).expect("valid");
        let script = creation_script(&g, ScriptDialect::Kuzu);
        let tables = g.schema.labels.len() + g.schema.rel_types.len();
        assert_eq!(script.len(), tables + g.nodes.len() + g.relationships.len());
        assert!(script[0].starts_with("CREATE NODE TABLE L0(gid INT64"));
        assert!(script[0].ends_with("PRIMARY KEY(gid))"));
        assert!(script[g.schema.labels.len()].starts_with("CREATE REL TABLE T0(FROM "));
        assert!(script[tables..].iter().all(|s| !s.contains("TABLE")));
    }

    /// A reduced graph keeps its nodes' identities with gaps between them:
    /// every relationship still names its endpoints' labels.
    #[test]
    fn kuzu_script_of_a_reduced_graph_names_every_endpoint() {
        let config = GraphConfig { second_label_probability: 0.0, ..GraphConfig::default() };
        let mut g = generate(2, &config).expect("valid");
        g.nodes.retain(|n| n.id % 3 != 0);
        g.relationships.retain(|r| r.start % 3 != 0 && r.end % 3 != 0);
        assert!(!g.relationships.is_empty());
        for dialect in [ScriptDialect::Kuzu, ScriptDialect::KuzuRelGroups] {
            let script = creation_script(&g, dialect);
            assert!(script.iter().all(|s| !s.contains("(a:`")), "{script:?}");
            assert!(script.iter().all(|s| !s.contains("(a:)") && !s.contains("(a: ")), "{script:?}");
        }
    }
}
