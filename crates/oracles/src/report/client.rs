//! A reduced case as an engine's team runs it: in the engine's own client,
//! with no graphlancer in between. `redis-cli` for FalkorDB, a short Python
//! script for the engines driven from Python (Kuzu and its forks, Grafeo's
//! package), and plain Cypher for the engines reached over Bolt.

use std::fmt::Write as _;

use graphlancer_model::{Graph, ScriptDialect, creation_script};
use serde::{Deserialize, Serialize};

/// A reproducer in one engine's own client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnClient {
    /// The engine spec it is for.
    pub engine: String,
    /// The fence language: `sh`, `python` or `cypher`.
    pub language: String,
    /// The text: run it as it is.
    pub text: String,
}

/// The case `query` on `graph` in the own client of the engine `spec`
/// (release `version`), whose creation script is `script`; `None` for an
/// engine without one (the reference) or a Gremlin case.
pub fn own_client(spec: &str, version: &str, script: ScriptDialect, graph: &Graph, query: &str) -> Option<OwnClient> {
    let family = graphlancer_engines::spec::family_of(spec);
    let statements = creation_script(graph, script);
    let (language, text) = match family {
        "falkordb" => ("sh", redis_cli(version, &statements, query)),
        "kuzu" | "ladybug" | "ryugraph" => ("python", kuzu_python(family, version, &statements, query)),
        "grafeo" => ("python", grafeo_python(version, &statements, query)),
        "arcadedb" | "bolt" => ("cypher", plain_cypher(&statements, query)),
        _ => return None,
    };
    Some(OwnClient { engine: spec.to_owned(), language: language.into(), text })
}

/// A word the shell passes on unchanged: single quotes, each inner one
/// closed, escaped and reopened.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A Python string literal: JSON's spelling of a string is one.
fn python_str(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn redis_cli(version: &str, statements: &[String], query: &str) -> String {
    let mut s = format!("# FalkorDB {version}: a redis-server with the module loaded, then\n");
    s.push_str("redis-cli GRAPH.DELETE g\n");
    for statement in statements {
        let _ = writeln!(s, "redis-cli GRAPH.QUERY g {}", shell_quoted(statement));
    }
    let _ = writeln!(s, "redis-cli GRAPH.QUERY g {}", shell_quoted(query));
    s
}

fn kuzu_python(module: &str, version: &str, statements: &[String], query: &str) -> String {
    // Kuzu before 0.6 has no in-memory database: ":memory:" is a folder there.
    let old = version.split('.').map_while(|p| p.parse::<u64>().ok()).collect::<Vec<_>>() < vec![0, 6];
    let path = if module == "kuzu" && old { "\"repro-db\"" } else { "\":memory:\"" };
    let mut s = format!("# pip install {module}=={version}\nimport {module}\n\n");
    let _ = writeln!(s, "db = {module}.Database({path})\nconn = {module}.Connection(db)");
    s.push_str(&python_statements(statements, "conn.execute"));
    let _ = writeln!(s, "result = conn.execute({})", python_str(query));
    s.push_str("while result.has_next():\n    print(result.get_next())\n");
    s
}

fn grafeo_python(version: &str, statements: &[String], query: &str) -> String {
    let mut s = format!("# pip install grafeo=={version}  (Python 3.12 or later)\nimport grafeo\n\n");
    s.push_str("db = grafeo.GrafeoDB()\n");
    s.push_str(&python_statements(statements, "db.execute_cypher"));
    let _ = writeln!(s, "for row in db.execute_cypher({}):\n    print(row)", python_str(query));
    s
}

fn python_statements(statements: &[String], call: &str) -> String {
    if statements.is_empty() {
        return "# the graph is empty\n".into();
    }
    let mut s = String::from("for statement in [\n");
    for statement in statements {
        let _ = writeln!(s, "    {},", python_str(statement));
    }
    let _ = writeln!(s, "]:\n    {call}(statement)");
    s
}

fn plain_cypher(statements: &[String], query: &str) -> String {
    let mut s = String::from("// in an empty database; the graph first, if any\n");
    for statement in statements {
        let _ = writeln!(s, "{statement};");
    }
    let _ = writeln!(s, "{query};");
    s
}

#[cfg(test)]
mod tests {
    use graphlancer_model::{GraphConfig, generate};

    use super::*;

    #[test]
    fn each_client_gets_its_own_spelling() {
        let config =
            GraphConfig { nodes: 2, relationships: 1, second_label_probability: 0.0, ..GraphConfig::default() };
        let graph = generate(1, &config).expect("a graph");
        let query = "RETURN 'it''s' AS x";
        let falkordb = own_client("falkordb@4.22.1", "4.22.1", ScriptDialect::Cypher, &graph, query).expect("has one");
        assert_eq!(falkordb.language, "sh");
        // The quote inside the query survives the shell.
        assert!(
            falkordb.text.ends_with("redis-cli GRAPH.QUERY g 'RETURN '\\''it'\\'''\\''s'\\'' AS x'\n"),
            "{}",
            falkordb.text
        );
        let kuzu = own_client("kuzu@0.4.2", "0.4.2", ScriptDialect::KuzuRelGroups, &graph, query).expect("has one");
        assert!(kuzu.text.contains("import kuzu") && kuzu.text.contains("Database(\"repro-db\")"), "{}", kuzu.text);
        assert!(kuzu.text.contains("CREATE NODE TABLE"), "{}", kuzu.text);
        let ryu = own_client("ryugraph@25.9.2", "25.9.2", ScriptDialect::Kuzu, &graph, query).expect("has one");
        assert!(ryu.text.contains("ryugraph.Database(\":memory:\")"), "{}", ryu.text);
        let grafeo = own_client("grafeo", "0.5.44", ScriptDialect::Cypher, &graph, query).expect("has one");
        assert!(grafeo.text.contains("pip install grafeo==0.5.44") && grafeo.text.contains("execute_cypher"));
        let arcadedb =
            own_client("arcadedb@26.10.2", "26.10.2", ScriptDialect::Cypher, &graph, query).expect("has one");
        assert_eq!(arcadedb.language, "cypher");
        assert!(own_client("reference", "0.1.0", ScriptDialect::Cypher, &graph, query).is_none());
    }
}
