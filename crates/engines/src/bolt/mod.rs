//! Engines that speak Bolt 4 (`neo4rs` 0.9: 0.8 reads the negative tiny
//! integers -16..-1 as 240..255): Neo4j and Memgraph at an address
//! (`bolt://HOST:PORT?dialect=...`), and ArcadeDB, managed or at an address.
//!
//! Writes run in an explicit transaction that is rolled back, so the loaded
//! graph stays as generated. neo4rs hands rows over as hash maps, so the
//! column order is read off the query's final RETURN (see [`return_columns`]).

use std::collections::BTreeMap;
use std::time::Duration;

use graphlancer_model::{
    Graph, ID_PROPERTY, Node, Path, Relationship, ResultSet, ScriptDialect, Temporal, Value, creation_script,
};
use neo4rs::{BoltMap, BoltType, ConfigBuilder, query};

use crate::outcome::{ErrorClass, Outcome};
use crate::{Engine, EngineError, ExecOptions, Overhead, may_write, millis};

/// How long connecting and loading may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server that may be hung gets to answer before it is replaced.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Where a Bolt engine is and how to log in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoltSettings {
    /// `HOST:PORT`.
    pub address: String,
    /// User name.
    pub user: String,
    /// Password.
    pub password: String,
    /// Database name; the server's default when `None`.
    pub database: Option<String>,
}

/// A Bolt server graphlancer started and owns. The engine that starts one
/// implements this, so the Bolt adapter needs to know no engine by name.
pub trait BoltServer: Send {
    /// How to reach its Bolt port.
    fn settings(&self) -> BoltSettings;
    /// The release the server reported.
    fn version(&self) -> &str;
    /// Its process id.
    fn pid(&self) -> u32;
    /// Whether the process is still there (a stopped one counts as there).
    fn is_running(&mut self) -> bool;
    /// The last lines it wrote to its log.
    fn log_tail(&self) -> String;
    /// Kills it and starts a fresh one.
    fn restart(&mut self) -> Result<(), EngineError>;
}

/// A Bolt engine: a connection, and for a managed server the server too.
pub struct BoltEngine {
    name: String,
    engine: &'static str,
    dialect: &'static str,
    settings: BoltSettings,
    runtime: tokio::runtime::Runtime,
    client: Option<neo4rs::Graph>,
    server: Option<Box<dyn BoltServer>>,
    graph: Option<Graph>,
    /// The engine's node ids mapped to generated identities.
    identities: BTreeMap<i64, i64>,
    version: String,
    overhead: Overhead,
}

impl BoltEngine {
    /// Connects to a Bolt server at `settings.address`.
    pub fn connect(
        name: String,
        engine: &'static str,
        dialect: &'static str,
        settings: BoltSettings,
    ) -> Result<Self, EngineError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| EngineError::Start { engine, detail: format!("starting an async runtime: {e}") })?;
        let mut e = Self {
            name,
            engine,
            dialect,
            settings,
            runtime,
            client: None,
            server: None,
            graph: None,
            identities: BTreeMap::new(),
            version: "unknown".into(),
            overhead: Overhead::default(),
        };
        e.reconnect()?;
        if let Ok(Outcome::Rows(r)) =
            e.run("CALL dbms.components() YIELD versions RETURN versions[0] AS v", SETUP_TIMEOUT)
            && let Some(Value::String(v)) = r.scalar()
        {
            e.version = v.clone();
        }
        Ok(e)
    }

    /// Connects to a server graphlancer started, and keeps it: it is
    /// restarted when it crashes or hangs, and stops with the engine.
    pub fn managed(
        name: String,
        engine: &'static str,
        dialect: &'static str,
        server: Box<dyn BoltServer>,
    ) -> Result<Self, EngineError> {
        let version = server.version().to_owned();
        let mut e = Self::connect(name, engine, dialect, server.settings())?;
        e.version = version;
        e.server = Some(server);
        Ok(e)
    }

    /// The managed server, if graphlancer started one.
    pub fn server(&self) -> Option<&dyn BoltServer> {
        self.server.as_deref()
    }

    fn reconnect(&mut self) -> Result<(), EngineError> {
        self.reconnect_within(SETUP_TIMEOUT)
    }

    fn reconnect_within(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.client = None;
        let s = self.settings.clone();
        let engine = self.engine;
        let unreachable = |detail: String| EngineError::Unreachable { engine, address: s.address.clone(), detail };
        let mut config =
            ConfigBuilder::default().uri(s.address.as_str()).user(s.user.as_str()).password(s.password.as_str());
        if let Some(db) = &s.database {
            config = config.db(db.as_str());
        }
        let config = config.max_connections(2).build().map_err(|e| unreachable(e.to_string()))?;
        // Connecting is lazy; inside the runtime in case the pool wants one.
        let client =
            self.runtime.block_on(async { neo4rs::Graph::connect(config) }).map_err(|e| unreachable(e.to_string()))?;
        self.client = Some(client);
        // neo4rs connects lazily; a first query proves the server is there.
        match self.run("RETURN 1 AS one", timeout)? {
            Outcome::Rows(_) => Ok(()),
            other => Err(unreachable(format!("`RETURN 1` answered {other:?}"))),
        }
    }

    /// Runs a query outside any transaction, for loading and probing.
    fn run(&mut self, text: &str, timeout: Duration) -> Result<Outcome, EngineError> {
        self.execute_raw(text, usize::MAX, timeout, false)
    }

    fn execute_raw(
        &mut self,
        text: &str,
        max_rows: usize,
        timeout: Duration,
        rollback: bool,
    ) -> Result<Outcome, EngineError> {
        let client = self.client.clone().ok_or_else(|| EngineError::Unreachable {
            engine: self.engine,
            address: self.settings.address.clone(),
            detail: "not connected".into(),
        })?;
        let columns = return_columns(text);
        let fetched = self.runtime.block_on(async {
            tokio::time::timeout(timeout, fetch(&client, text, columns.as_deref(), max_rows, rollback)).await
        });
        Ok(match fetched {
            Err(_) => Outcome::Timeout { after_ms: millis(timeout) },
            Ok(Err(neo4rs::Error::Neo4j(e))) => classify(e.code(), e.message(), timeout, max_rows),
            // Only a connection that is gone is a crash; anything else neo4rs
            // could not read is graphlancer's side failing to decode.
            Ok(Err(e)) if connection_lost(&e) => Outcome::Crash { message: format!("the connection failed: {e}") },
            Ok(Err(e)) => Outcome::Undecodable { message: format!("the Bolt client could not read the answer: {e}") },
            Ok(Ok(Fetched::TooLarge)) => Outcome::TooLarge { max_rows },
            Ok(Ok(Fetched::Rows(columns, rows))) => {
                match rows.iter().map(|r| r.iter().map(|v| self.decode(v)).collect()).collect() {
                    Ok(rows) => Outcome::Rows(ResultSet::new(columns, rows)),
                    Err(message) => Outcome::Undecodable { message },
                }
            }
        })
    }

    /// Clears the database, creates the graph and reads back node ids.
    fn reload(&mut self) -> Result<(), EngineError> {
        let Some(graph) = self.graph.clone() else { return Ok(()) };
        let engine = self.engine;
        let load_err = |detail: String| EngineError::Load { engine, detail };
        let mut statements = vec!["MATCH (n) DETACH DELETE n".to_owned()];
        statements.extend(creation_script(&graph, ScriptDialect::Cypher));
        for s in &statements {
            match self.run(s, SETUP_TIMEOUT)? {
                Outcome::Rows(_) => {}
                other => return Err(load_err(format!("{other:?}"))),
            }
        }
        self.identities.clear();
        match self.run(&format!("MATCH (n) RETURN id(n) AS i, n.{ID_PROPERTY} AS g"), SETUP_TIMEOUT)? {
            Outcome::Rows(r) => {
                for row in &r.rows {
                    if let [Value::Int(i), Value::Int(g)] = row.as_slice() {
                        self.identities.insert(*i, *g);
                    }
                }
            }
            other => return Err(load_err(format!("reading node ids: {other:?}"))),
        }
        if self.identities.len() != graph.nodes.len() {
            return Err(load_err(format!(
                "{} of {} nodes readable after load",
                self.identities.len(),
                graph.nodes.len()
            )));
        }
        Ok(())
    }

    /// After a crash or hang: a managed server is restarted with the graph
    /// reloaded; for a remote one, a new connection must work.
    fn recover(&mut self) -> Result<(), EngineError> {
        if let Some(server) = self.server.as_mut() {
            // A stopped (hung) server still runs but does not answer: give it
            // a few seconds, then start a new one.
            // If the graph then does not load (a server alive but wedged, or
            // one that dies while loading), a fresh server gets it.
            if server.is_running() && self.reconnect_within(PROBE_TIMEOUT).is_ok() && self.reload().is_ok() {
                return Ok(());
            }
            let server = self.server.as_mut().expect("checked above");
            server.restart()?;
            self.settings = server.settings();
        }
        self.reconnect()?;
        self.reload()
    }

    fn decode(&self, v: &BoltType) -> Result<Value, String> {
        Ok(match v {
            BoltType::Null(_) => Value::Null,
            BoltType::Boolean(b) => Value::Bool(b.value),
            BoltType::Integer(i) => Value::Int(i.value),
            BoltType::Float(f) => Value::Float(f.value),
            BoltType::String(s) => Value::String(s.value.clone()),
            BoltType::List(l) => Value::List(l.value.iter().map(|x| self.decode(x)).collect::<Result<_, _>>()?),
            BoltType::Map(m) => Value::Map(self.map(m)?),
            BoltType::Node(n) => Value::Node(self.node(n)?),
            BoltType::Relation(r) => Value::Relationship(Relationship::new(
                r.typ.value.clone(),
                self.map(&r.properties)?,
                self.identities.get(&r.start_node_id.value).copied(),
                self.identities.get(&r.end_node_id.value).copied(),
            )),
            BoltType::Path(p) => Value::Path(self.path(p)?),
            other => Value::Temporal(temporal(other)?),
        })
    }

    fn map(&self, m: &BoltMap) -> Result<BTreeMap<String, Value>, String> {
        m.value.iter().map(|(k, v)| Ok((k.value.clone(), self.decode(v)?))).collect()
    }

    fn node(&self, n: &neo4rs::BoltNode) -> Result<Node, String> {
        let labels = n
            .labels
            .value
            .iter()
            .map(|l| match l {
                BoltType::String(s) => Ok(s.value.clone()),
                other => Err(format!("a label that is not a string: {other:?}")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Node::new(labels, self.map(&n.properties)?))
    }

    /// Bolt paths list their relationships without endpoints; the indices
    /// say which relationship joins consecutive nodes and in which direction.
    fn path(&self, p: &neo4rs::BoltPath) -> Result<Path, String> {
        let nodes: Vec<&neo4rs::BoltNode> = p
            .nodes
            .value
            .iter()
            .map(|n| match n {
                BoltType::Node(n) => Ok(n),
                other => Err(format!("a path node that is not a node: {other:?}")),
            })
            .collect::<Result<_, _>>()?;
        let index = |v: &BoltType| match v {
            BoltType::Integer(i) => Ok(i.value),
            other => Err(format!("a path index that is not an integer: {other:?}")),
        };
        let indices: Vec<i64> = p.indices.value.iter().map(index).collect::<Result<_, _>>()?;
        let first = nodes.first().ok_or("a path without nodes")?;
        let mut at = *first;
        let mut out_nodes = vec![self.node(first)?];
        let mut out_rels = Vec::new();
        for step in indices.chunks(2) {
            let [rel, node] = step else { return Err("odd number of path indices".into()) };
            let r = usize::try_from(rel.unsigned_abs() - 1)
                .ok()
                .and_then(|i| p.rels.value.get(i))
                .ok_or("a path index out of range")?;
            let next = usize::try_from(*node).ok().and_then(|i| nodes.get(i)).ok_or("a path index out of range")?;
            let BoltType::UnboundedRelation(r) = r else { return Err(format!("a path relationship {r:?}")) };
            let (start, end) = if *rel > 0 { (at, *next) } else { (*next, at) };
            out_rels.push(Relationship::new(
                r.typ.value.clone(),
                self.map(&r.properties)?,
                self.identities.get(&start.id.value).copied(),
                self.identities.get(&end.id.value).copied(),
            ));
            out_nodes.push(self.node(next)?);
            at = next;
        }
        Ok(Path { nodes: out_nodes, relationships: out_rels })
    }
}

/// Bolt's temporal values as ISO 8601 text of their kind.
fn temporal(v: &BoltType) -> Result<Temporal, String> {
    let bad = |e: &dyn std::fmt::Debug| format!("a temporal value out of range: {e:?}");
    let (kind, text) = match v {
        BoltType::Date(d) => ("date", chrono::NaiveDate::try_from(d).map_err(|e| bad(&e))?.to_string()),
        BoltType::Time(t) => {
            let (time, offset): (chrono::NaiveTime, chrono::FixedOffset) = t.into();
            ("time", format!("{time}{offset}"))
        }
        BoltType::LocalTime(t) => ("localtime", chrono::NaiveTime::from(t).to_string()),
        BoltType::DateTime(t) => {
            ("datetime", chrono::DateTime::<chrono::FixedOffset>::try_from(t).map_err(|e| bad(&e))?.to_rfc3339())
        }
        BoltType::LocalDateTime(t) => (
            "localdatetime",
            chrono::NaiveDateTime::try_from(t).map_err(|e| bad(&e))?.format("%Y-%m-%dT%H:%M:%S%.f").to_string(),
        ),
        BoltType::DateTimeZoneId(t) => {
            let local = chrono::NaiveDateTime::try_from(t).map_err(|e| bad(&e))?;
            ("datetime", format!("{}[{}]", local.format("%Y-%m-%dT%H:%M:%S%.f"), t.tz_id()))
        }
        // neo4rs folds months and days into seconds.
        BoltType::Duration(d) => {
            let d = std::time::Duration::from(d.clone());
            ("duration", format!("PT{}.{:09}S", d.as_secs(), d.subsec_nanos()))
        }
        other => return Err(format!("graphlancer cannot decode the Bolt value {other:?} yet")),
    };
    Ok(Temporal { kind: kind.into(), text })
}

enum Fetched {
    Rows(Vec<String>, Vec<Vec<BoltType>>),
    TooLarge,
}

async fn fetch(
    client: &neo4rs::Graph,
    text: &str,
    columns: Option<&[String]>,
    max_rows: usize,
    rollback: bool,
) -> Result<Fetched, neo4rs::Error> {
    let mut rows = Vec::new();
    let mut names: Option<Vec<String>> = columns.map(<[String]>::to_vec);
    let mut take = |row: neo4rs::Row, rows: &mut Vec<Vec<BoltType>>| -> Result<bool, neo4rs::Error> {
        if rows.len() == max_rows {
            return Ok(false);
        }
        let map: BoltMap = row.to().map_err(neo4rs::Error::DeserializationError)?;
        let fits = names
            .as_ref()
            .is_some_and(|n| n.len() == map.value.len() && n.iter().all(|c| map.value.contains_key(c.as_str())));
        if !fits {
            // `RETURN *` and anything the RETURN reader got wrong: names sorted,
            // which is the order Neo4j gives `*`.
            let mut keys: Vec<String> = map.value.keys().map(|k| k.value.clone()).collect();
            keys.sort();
            names = Some(keys);
        }
        let order = names.as_ref().expect("set above");
        rows.push(
            order
                .iter()
                .map(|c| map.value.get(c.as_str()).cloned().unwrap_or(BoltType::Null(neo4rs::BoltNull)))
                .collect(),
        );
        Ok(true)
    };
    if rollback {
        let mut txn = client.start_txn().await?;
        let mut stream = txn.execute(query(text)).await?;
        let mut complete = true;
        while let Some(row) = stream.next(txn.handle()).await? {
            if !take(row, &mut rows)? {
                complete = false;
                break;
            }
        }
        txn.rollback().await?;
        if !complete {
            return Ok(Fetched::TooLarge);
        }
    } else {
        let mut stream = client.execute(query(text)).await?;
        while let Some(row) = stream.next().await? {
            if !take(row, &mut rows)? {
                return Ok(Fetched::TooLarge);
            }
        }
    }
    Ok(Fetched::Rows(names.unwrap_or_default(), rows))
}

/// Whether a neo4rs error means the connection (or the server behind it) is
/// gone, as opposed to a reply the client could not parse.
fn connection_lost(e: &neo4rs::Error) -> bool {
    matches!(e, neo4rs::Error::IOError { .. } | neo4rs::Error::ConnectionError | neo4rs::Error::IncompleteBoltExchange)
}

/// Folds Neo4j-style status codes (which ArcadeDB and Memgraph also send)
/// into graphlancer's classes.
fn classify(code: &str, message: &str, timeout: Duration, max_rows: usize) -> Outcome {
    // ArcadeDB's configured memory budgets for one query: an answer too
    // large to keep, like graphlancer's own row cap, not a fault.
    const RESOURCE_LIMITS: [&str; 2] = ["Query heap budget exceeded", "Limit of allowed elements for in-heap ORDER BY"];
    let class = if code.contains("TransactionTimedOut") {
        return Outcome::Timeout { after_ms: millis(timeout) };
    } else if RESOURCE_LIMITS.iter().any(|l| message.contains(l)) {
        return Outcome::TooLarge { max_rows };
    } else if code.contains("SyntaxError") {
        ErrorClass::Syntax
    } else if code.contains("SemanticError") || code.contains("ParameterMissing") {
        ErrorClass::Semantic
    } else if code.contains("NotSupported") || code.contains("FeatureNotSupported") {
        ErrorClass::Unsupported
    } else if message.contains("DeletedEntityAccess") {
        // Reading what an earlier clause deleted: an error of the data, as
        // Neo4j's EntityNotFound, however ArcadeDB files it.
        ErrorClass::Runtime
    } else if code.contains("DatabaseError") {
        ErrorClass::Internal
    } else {
        ErrorClass::Runtime
    };
    Outcome::Error { class, message: format!("{code}: {message}") }
}

/// The column names of a query's final RETURN, in order, as the server
/// names them: the alias after `AS`, else the item's text. `None` for
/// `RETURN *` or text this reader cannot follow.
pub fn return_columns(text: &str) -> Option<Vec<String>> {
    let tokens = top_level_words(text);
    let start = tokens.iter().rposition(|(w, _)| w.eq_ignore_ascii_case("RETURN"))?;
    let mut from = tokens[start].1 + "RETURN".len();
    if let Some((w, at)) = tokens.get(start + 1)
        && w.eq_ignore_ascii_case("DISTINCT")
    {
        from = at + "DISTINCT".len();
    }
    let end = tokens[start + 1..]
        .iter()
        .find(|(w, _)| ["ORDER", "SKIP", "LIMIT"].iter().any(|k| w.eq_ignore_ascii_case(k)))
        .map_or(text.len(), |(_, at)| *at);
    let list = &text[from..end];
    let mut columns = Vec::new();
    for item in split_top_level(list) {
        let item = item.trim();
        if item == "*" || item.is_empty() {
            return None;
        }
        let words = top_level_words(item);
        let name = match words.iter().rposition(|(w, _)| w.eq_ignore_ascii_case("AS")) {
            Some(i) => item[words[i].1 + 2..].trim(),
            None => item,
        };
        let name =
            name.strip_prefix('`').and_then(|n| n.strip_suffix('`')).map_or(name.to_owned(), |n| n.replace("``", "`"));
        columns.push(name);
    }
    Some(columns)
}

/// What lies outside brackets, strings and backticks: the words (runs of
/// identifier characters) with their byte offsets, and the commas' offsets.
fn top_level(text: &str) -> (Vec<(&str, usize)>, Vec<usize>) {
    let (mut words, mut commas) = (Vec::new(), Vec::new());
    let mut depth = 0i32;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '\'' | '"' | '`' => {
                while let Some((_, d)) = chars.next() {
                    if d == '\\' && c != '`' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            ',' if depth == 0 => commas.push(i),
            c if c.is_alphanumeric() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if !(d.is_alphanumeric() || d == '_') {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                if depth == 0 {
                    words.push((&text[i..end], i));
                }
            }
            _ => {}
        }
    }
    (words, commas)
}

fn top_level_words(text: &str) -> Vec<(&str, usize)> {
    top_level(text).0
}

/// Splits at commas outside brackets, strings and backticks.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut last = 0;
    for at in top_level(text).1 {
        parts.push(&text[last..at]);
        last = at + 1;
    }
    parts.push(&text[last..]);
    parts
}

impl Engine for BoltEngine {
    fn owns_its_server(&self) -> bool {
        self.server.is_some()
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn dialect(&self) -> &'static str {
        self.dialect
    }

    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        self.graph = Some(graph.clone());
        match self.reload() {
            // A managed server that died between queries gets one restart.
            Err(_) if self.server.is_some() => self.recover(),
            other => other,
        }
    }

    fn execute(&mut self, text: &str, opts: &ExecOptions) -> Result<Outcome, EngineError> {
        let write = may_write(text);
        let outcome = self.execute_raw(text, opts.max_rows, opts.timeout, write)?;
        match &outcome {
            Outcome::Crash { .. } | Outcome::Timeout { .. } => {
                let crashed = self.server.as_mut().is_some_and(|s| !s.is_running());
                let t = std::time::Instant::now();
                self.recover()?;
                self.overhead.restarted(t.elapsed());
                if crashed && let Some(s) = &self.server {
                    return Ok(Outcome::Crash { message: format!("the server exited; {}", s.log_tail()) });
                }
            }
            // An error inside a transaction leaves neo4rs's connection unusable.
            Outcome::Error { .. } if write => self.reconnect()?,
            _ => {}
        }
        Ok(outcome)
    }

    fn take_overhead(&mut self) -> Overhead {
        std::mem::take(&mut self.overhead)
    }
}

#[cfg(test)]
mod tests {
    use super::return_columns;

    fn cols(q: &str) -> Option<Vec<String>> {
        return_columns(q)
    }

    #[test]
    fn return_columns_follow_the_final_return() {
        let v = |names: &[&str]| Some(names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(cols("MATCH (n) RETURN n AS b, n.k AS a ORDER BY a"), v(&["b", "a"]));
        assert_eq!(cols("RETURN DISTINCT 1 AS x, 'a, b' AS y SKIP 1 LIMIT 2"), v(&["x", "y"]));
        assert_eq!(cols("MATCH (n) RETURN n.name, count(*)"), v(&["n.name", "count(*)"]));
        assert_eq!(cols("CALL { MATCH (n) RETURN n AS m } RETURN m AS z"), v(&["z"]));
        assert_eq!(cols("RETURN 1 AS a UNION RETURN 2 AS a"), v(&["a"]));
        assert_eq!(cols("RETURN [x IN [1] | x] AS `odd name`, {k: 1} AS m"), v(&["odd name", "m"]));
        assert_eq!(cols("RETURN 'return' AS r, 'AS' AS s"), v(&["r", "s"]));
        assert_eq!(cols("MATCH (n) RETURN *"), None);
        assert_eq!(cols("MATCH (n) DELETE n"), None);
    }
}
