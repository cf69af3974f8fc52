//! Grafeo, the embedded default engine. [`GrafeoBackend`] drives the crate
//! inside an engine host; the adapter the rest of graphlancer uses is a
//! [`crate::hosted::HostedEngine`] over that host.

pub mod plan;
pub mod settings;

use std::collections::BTreeMap;

use graphlancer_model::{
    Graph, ID_PROPERTY, Language, Node, Path, Relationship, ResultSet, ScriptDialect, Value, creation_script,
};

use crate::host::OpenOptions;
use crate::host::{HostBackend, HostCommand};
use crate::hosted::{HostedEngine, HostedKind, LoadForm};
use crate::install::engines_dir;
use crate::outcome::{ErrorClass, Outcome};
use crate::settings::Settings;
use crate::{Engine, EngineError};

/// Grafeo in the registry: its switches, its releases (Python packages, which
/// need Python 3.12), its plan's optimizer operators.
pub const FAMILY: crate::family::Family = crate::family::Family {
    name: "grafeo",
    switches: settings::SWITCHES,
    left_out: settings::LEFT_OUT,
    releases: Some(crate::family::Versioned::Venv { package: "grafeo", recent_python: true }),
    optimization: Some(plan::is_optimization),
};

/// The Python engine host of Grafeo's released packages: the shared
/// protocol, then Grafeo's driver.
pub const HOST: &str = concat!(include_str!("../python_host.py"), include_str!("host.py"));

/// The embedded Grafeo in a `graphlancer engine-host grafeo` process (this
/// executable, through `options`), named `name`, under `settings`.
pub fn open_embedded(name: String, settings: &Settings, options: &OpenOptions) -> Result<Box<dyn Engine>, EngineError> {
    let mut command = options.host_command.clone();
    command.args = vec!["engine-host".into(), "grafeo".into()];
    if !settings.is_default() {
        command.args.extend(["--settings".into(), settings.to_string().into()]);
    }
    Ok(Box::new(hosted(name, command)?))
}

/// The embedded Grafeo in a host process started by `command`, named
/// `name` (its spec, settings included).
pub fn hosted(name: String, command: HostCommand) -> Result<HostedEngine, EngineError> {
    let kind = HostedKind {
        name,
        engine: "grafeo",
        dialect: "grafeo",
        load: LoadForm::Graph,
        languages: &[Language::Cypher, Language::Gremlin],
        plan: Some(plan::operators),
    };
    HostedEngine::start(kind, command)
}

/// A released Grafeo package, `version`, in its virtualenv's Python.
pub fn open_release(name: String, version: &str) -> Result<Box<dyn Engine>, EngineError> {
    let python = engines_dir("grafeo")?.python("grafeo", "grafeo", version)?;
    let kind = HostedKind {
        name,
        engine: "grafeo",
        dialect: "grafeo",
        load: LoadForm::Script(ScriptDialect::Cypher),
        languages: &[Language::Cypher],
        plan: Some(plan::operators),
    };
    Ok(Box::new(HostedEngine::start(kind, HostCommand::python(python, HOST, &[]))?))
}

/// Grafeo inside the engine host.
pub struct GrafeoBackend {
    db: grafeo::GrafeoDB,
    settings: Settings,
    graph: Option<Graph>,
    /// Grafeo's internal node ids mapped to generated identities.
    identities: BTreeMap<i64, i64>,
    /// The session of a transaction opened for a query that may write.
    transaction: Option<grafeo::session::Session>,
}

impl Default for GrafeoBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl GrafeoBackend {
    /// An empty in-memory database at the default settings.
    pub fn new() -> Self {
        Self::with_settings(Settings::default())
    }

    /// An empty in-memory database under `settings` ([`settings::SWITCHES`]).
    pub fn with_settings(settings: Settings) -> Self {
        Self { db: fresh(&settings), settings, graph: None, identities: BTreeMap::new(), transaction: None }
    }

    fn reload(&mut self) -> Result<(), String> {
        self.transaction = None;
        self.db = fresh(&self.settings);
        self.identities.clear();
        let Some(graph) = &self.graph else { return Ok(()) };
        let session = self.db.session();
        if self.settings.value(&settings::INDEX_ALL) == "all" {
            // Before the data, as for FalkorDB; Grafeo names every index.
            for (i, l) in graph.schema.labels.iter().enumerate() {
                for (j, k) in l.keys.iter().enumerate() {
                    session
                        .execute_cypher(&format!("CREATE INDEX i{i}_{j} FOR (n:{}) ON (n.{k})", l.name))
                        .map_err(|e| format!("creating an index on {}.{k}: {e}", l.name))?;
                }
            }
        }
        for statement in creation_script(graph, ScriptDialect::Cypher) {
            session.execute_cypher(&statement).map_err(|e| e.to_string())?;
        }
        let ids = session
            .execute_cypher(&format!("MATCH (n) RETURN id(n), n.{ID_PROPERTY}"))
            .map_err(|e| format!("reading node identities: {e}"))?;
        for row in ids.rows() {
            if let [grafeo::Value::Int64(internal), grafeo::Value::Int64(gid)] = row.as_slice() {
                self.identities.insert(*internal, *gid);
            }
        }
        if self.identities.len() != graph.nodes.len() {
            return Err(format!("{} of {} nodes readable after load", self.identities.len(), graph.nodes.len()));
        }
        Ok(())
    }

    fn decode(&self, v: &grafeo::Value) -> Result<Value, String> {
        use grafeo::Value as G;
        Ok(match v {
            G::Null => Value::Null,
            G::Bool(b) => Value::Bool(*b),
            G::Int64(i) => Value::Int(*i),
            G::Float64(x) => Value::Float(*x),
            G::String(s) => Value::String(s.to_string()),
            G::List(items) => Value::List(items.iter().map(|i| self.decode(i)).collect::<Result<_, _>>()?),
            G::Map(m) => {
                let entries: BTreeMap<String, Value> = m
                    .iter()
                    .map(|(k, v)| Ok((k.as_str().to_owned(), self.decode(v)?)))
                    .collect::<Result<_, String>>()?;
                self.entity(entries)
            }
            G::Path { nodes, edges } => {
                let nodes = nodes.iter().map(|n| self.path_node(n)).collect::<Result<_, String>>()?;
                let relationships = edges.iter().map(|r| self.path_edge(r)).collect::<Result<_, String>>()?;
                Value::Path(Path { nodes, relationships })
            }
            other => return Err(format!("graphlancer cannot decode the grafeo value {other:?} yet")),
        })
    }

    /// Path elements come back as internal ids (or as entity maps); either
    /// way they become full nodes and relationships.
    fn path_node(&self, v: &grafeo::Value) -> Result<Node, String> {
        if let grafeo::Value::Int64(id) = v {
            let id = u64::try_from(*id).map_err(|_| format!("negative node id {id}"))?;
            let node = self.db.get_node(grafeo::NodeId(id)).ok_or_else(|| format!("path node {id} not found"))?;
            let labels = node.labels.iter().map(ToString::to_string).collect();
            return Ok(Node::new(labels, self.properties(node.properties.iter())?));
        }
        match self.decode(v)? {
            Value::Node(n) => Ok(n),
            other => Err(format!("path node decoded as {}", other.type_name())),
        }
    }

    fn path_edge(&self, v: &grafeo::Value) -> Result<Relationship, String> {
        if let grafeo::Value::Int64(id) = v {
            let id = u64::try_from(*id).map_err(|_| format!("negative edge id {id}"))?;
            let edge = self.db.get_edge(grafeo::EdgeId(id)).ok_or_else(|| format!("path edge {id} not found"))?;
            let end = |n: grafeo::NodeId| i64::try_from(n.0).ok().and_then(|i| self.identities.get(&i).copied());
            let properties = self.properties(edge.properties.iter())?;
            return Ok(Relationship::new(edge.edge_type.to_string(), properties, end(edge.src), end(edge.dst)));
        }
        match self.decode(v)? {
            Value::Relationship(r) => Ok(r),
            other => Err(format!("path edge decoded as {}", other.type_name())),
        }
    }

    fn properties<'a>(
        &self,
        props: impl Iterator<Item = (&'a grafeo_common::types::PropertyKey, &'a grafeo::Value)>,
    ) -> Result<BTreeMap<String, Value>, String> {
        props.map(|(k, v)| Ok((k.as_str().to_owned(), self.decode(v)?))).collect()
    }

    /// A Gremlin answer, one value per traverser. A column typed as a node or
    /// an edge holds ids; an answer of several columns (`project`, `select`,
    /// `valueMap('a', 'b')`) is one map a row, as TinkerPop gives it.
    fn traversers(&self, r: &grafeo::QueryResult) -> Result<Vec<Value>, String> {
        use grafeo_common::types::LogicalType;
        let cell = |v: &grafeo::Value, ty: Option<&LogicalType>| -> Result<Value, String> {
            match (v, ty) {
                (grafeo::Value::Int64(_), Some(LogicalType::Node)) => self.path_node(v).map(Value::Node),
                (grafeo::Value::Int64(_), Some(LogicalType::Edge)) => self.path_edge(v).map(Value::Relationship),
                _ => self.decode(v),
            }
        };
        r.rows()
            .iter()
            .map(|row| {
                if let [v] = row.as_slice() {
                    return cell(v, r.column_types.first());
                }
                let entries = row
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Ok((r.columns.get(i).cloned().unwrap_or_default(), cell(v, r.column_types.get(i))?)))
                    .collect::<Result<BTreeMap<String, Value>, String>>()?;
                Ok(Value::Map(entries))
            })
            .collect()
    }

    /// Grafeo returns nodes and relationships as maps with reserved keys.
    fn entity(&self, mut m: BTreeMap<String, Value>) -> Value {
        if m.contains_key("_id") && m.contains_key("_labels") {
            m.remove("_id");
            let labels = match m.remove("_labels") {
                Some(Value::List(ls)) => {
                    ls.into_iter().filter_map(|l| if let Value::String(s) = l { Some(s) } else { None }).collect()
                }
                _ => Vec::new(),
            };
            return Value::Node(Node::new(labels, m));
        }
        if m.contains_key("_id") && m.contains_key("_type") && m.contains_key("_source") {
            m.remove("_id");
            let rel_type = match m.remove("_type") {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let mut end = |key: &str| match m.remove(key) {
                Some(Value::Int(i)) => self.identities.get(&i).copied(),
                _ => None,
            };
            let (start, end) = (end("_source"), end("_target"));
            return Value::Relationship(Relationship::new(rel_type, m, start, end));
        }
        Value::Map(m)
    }
}

/// An in-memory database under `settings`, without Grafeo's own 30-second
/// query timeout: the client's `--timeout` bounds a query alone (the
/// four-times confirmation of a hang, and `replay --timeout`, were cut at 30 s).
fn fresh(settings: &Settings) -> grafeo::GrafeoDB {
    use settings::{FACTORIZED_EXECUTION, SHUFFLE_UNORDERED};
    let mut config = grafeo::Config::in_memory().without_query_timeout();
    if settings.value(&FACTORIZED_EXECUTION) == "false" {
        config = config.without_factorized_execution();
    }
    config = config.with_shuffle_unordered(settings.value(&SHUFFLE_UNORDERED) == "true");
    grafeo::GrafeoDB::with_config(config).expect("an in-memory database opens")
}

/// Folds Grafeo's error codes into graphlancer's classes.
fn classify(e: &grafeo::Error, timeout_ms: u64) -> Outcome {
    use grafeo_common::utils::error::ErrorCode as E;
    let message = e.to_string();
    let class = match e.error_code() {
        // Its Gremlin parser reports a step or predicate it lacks as syntax.
        E::QuerySyntax if ["Unknown step", "Unknown predicate"].iter().any(|m| message.contains(m)) => {
            ErrorClass::Unsupported
        }
        E::QuerySyntax => ErrorClass::Syntax,
        E::QuerySemantic | E::LabelNotFound | E::PropertyNotFound => ErrorClass::Semantic,
        E::QueryUnsupported => ErrorClass::Unsupported,
        E::QueryTimeout | E::TransactionTimeout => return Outcome::Timeout { after_ms: timeout_ms },
        E::QueryExecution | E::TypeMismatch | E::InvalidInput | E::NodeNotFound | E::EdgeNotFound => {
            ErrorClass::Runtime
        }
        _ => ErrorClass::Internal,
    };
    Outcome::Error { class, message }
}

impl HostBackend for GrafeoBackend {
    fn version(&self) -> String {
        grafeo::VERSION.to_owned()
    }

    fn load(&mut self, graph: &Graph) -> Result<(), String> {
        self.graph = Some(graph.clone());
        self.reload()
    }

    fn execute(&mut self, query: &str, language: Language, max_rows: usize) -> Outcome {
        let fresh_session;
        let session = match &self.transaction {
            Some(s) => s,
            None => {
                fresh_session = self.db.session();
                &fresh_session
            }
        };
        let result = match language {
            Language::Cypher => session.execute_cypher(query),
            Language::Gremlin => session.execute_gremlin(query),
        };
        match result {
            Err(e) => classify(&e, 0),
            Ok(r) if r.rows().len() > max_rows => Outcome::TooLarge { max_rows },
            Ok(r) if language == Language::Gremlin => match self.traversers(&r) {
                Ok(values) => Outcome::Rows(crate::gremlin::traversers(values)),
                Err(message) => Outcome::Undecodable { message },
            },
            Ok(r) => {
                let rows: Result<Vec<Vec<Value>>, String> =
                    r.rows().iter().map(|row| row.iter().map(|v| self.decode(v)).collect()).collect();
                match rows {
                    Ok(rows) => Outcome::Rows(ResultSet::new(r.columns.clone(), rows)),
                    Err(message) => Outcome::Undecodable { message },
                }
            }
        }
    }

    fn restore(&mut self) -> Result<(), String> {
        // A rollback that fails (a query error may have ended the
        // transaction already) leaves the reload to make sure.
        match self.transaction.take().map(|mut s| s.rollback()) {
            Some(Ok(())) => Ok(()),
            _ => self.reload(),
        }
    }

    fn begin(&mut self) {
        let mut session = self.db.session();
        self.transaction = session.begin_transaction().is_ok().then_some(session);
    }
}
