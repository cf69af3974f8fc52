//! graphersal, an embedded Gremlin engine in Rust, driven inside an engine
//! host like Grafeo so that a panic or a hang is an outcome. Its Gremlin is a
//! Rhai script; answers come back as `ElementProperty` values.

use std::collections::BTreeMap;
use std::sync::Arc;

use graphersal::auth::{AccessPolicy, Authorizer};
use graphersal::prelude::{ElementProperty, Graph as GsGraph, PropertyMap, TraversalGraph};
use graphersal::script::{ScriptLimits, eval_value_with_limits, materialize_traversals, script_value_to_property};
use graphlancer_model::{Graph, ID_PROPERTY, Language, Node, Relationship, Value};

use crate::host::HostBackend;
use crate::host::OpenOptions;
use crate::hosted::{HostedEngine, HostedKind, LoadForm};
use crate::outcome::{ErrorClass, Outcome};
use crate::{Engine, EngineError};

/// The crate version, as its engine version.
pub const VERSION: &str = "0.5.1";

/// graphersal in a `graphlancer engine-host graphersal` process (this
/// executable, through `options`), named `name`.
pub fn open(name: String, options: &OpenOptions) -> Result<Box<dyn Engine>, EngineError> {
    let mut command = options.host_command.clone();
    command.args = vec!["engine-host".into(), "graphersal".into()];
    let kind = HostedKind {
        name,
        engine: "graphersal",
        dialect: "graphersal",
        load: LoadForm::Graph,
        languages: &[Language::Gremlin],
        plan: None,
    };
    Ok(Box::new(HostedEngine::start(kind, command)?))
}

/// graphersal inside the engine host.
#[derive(Default)]
pub struct GraphersalBackend {
    graph: Option<Arc<GsGraph>>,
}

impl GraphersalBackend {
    /// An empty engine.
    pub fn new() -> Self {
        Self::default()
    }
}

fn property(v: &Value) -> Result<ElementProperty, String> {
    Ok(match v {
        Value::Null => ElementProperty::Null,
        Value::Bool(b) => ElementProperty::from(*b),
        Value::Int(i) => ElementProperty::from(*i),
        Value::Float(f) => ElementProperty::from(*f),
        Value::String(s) => ElementProperty::from(s.as_str()),
        Value::List(items) => ElementProperty::Array(items.iter().map(property).collect::<Result<_, _>>()?),
        other => return Err(format!("graphersal cannot hold a {} property", other.type_name())),
    })
}

fn properties(id: i64, props: &BTreeMap<String, Value>) -> Result<PropertyMap, String> {
    let mut map = PropertyMap::default();
    map.insert(ID_PROPERTY, ElementProperty::from(id));
    for (k, v) in props {
        map.insert(k.as_str(), property(v)?);
    }
    Ok(map)
}

fn decode_map<'a>(entries: impl Iterator<Item = (String, &'a ElementProperty)>) -> Value {
    Value::Map(entries.map(|(k, v)| (k, decode(v))).collect())
}

/// A map key as text: Gremlin keys may be any value; graphlancer's maps
/// have string keys, as Grafeo gives them too.
fn key_text(v: &ElementProperty) -> String {
    match decode(v) {
        Value::String(s) => s,
        other => graphlancer_model::render_literal(&other),
    }
}

fn decode(p: &ElementProperty) -> Value {
    match p {
        ElementProperty::Null => Value::Null,
        ElementProperty::Boolean(b) => Value::Bool(*b),
        ElementProperty::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        ElementProperty::String(s) => Value::String(s.to_string()),
        ElementProperty::Array(items) => Value::List(items.iter().map(decode).collect()),
        ElementProperty::Object(m) => decode_map(m.iter().map(|(k, v)| (k.to_string(), v))),
        ElementProperty::Map(m) => decode_map(m.iter().map(|(k, v)| (key_text(k), v))),
        ElementProperty::Vertex(v) => {
            let props = v.properties().iter().map(|(k, v)| (k.to_string(), decode(v))).collect();
            Value::Node(Node::new(v.label().map(|l| vec![l.to_string()]).unwrap_or_default(), props))
        }
        ElementProperty::Edge(e) => {
            let props = e.properties().iter().map(|(k, v)| (k.to_string(), decode(v))).collect();
            // Vertices were added with their generated identity as id.
            let end = |id: &str| id.parse::<i64>().ok();
            Value::Relationship(Relationship::new(
                e.label().unwrap_or_default().to_string(),
                props,
                end(e.out_v().id()),
                end(e.in_v().id()),
            ))
        }
        other => Value::String(format!("{other:?}")),
    }
}

/// Rhai's errors by kind: parsing, an unknown function (a step it lacks, or
/// arguments of the wrong types), a missing variable, a runtime failure.
fn classify(e: &graphersal::script::rhai::EvalAltResult) -> Outcome {
    use graphersal::script::rhai::EvalAltResult as E;
    let class = match e {
        E::ErrorParsing(..) => ErrorClass::Syntax,
        E::ErrorFunctionNotFound(..) => ErrorClass::Unsupported,
        E::ErrorVariableNotFound(..) | E::ErrorPropertyNotFound(..) => ErrorClass::Semantic,
        _ => ErrorClass::Runtime,
    };
    Outcome::Error { class, message: e.to_string() }
}

impl HostBackend for GraphersalBackend {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    fn load(&mut self, graph: &Graph) -> Result<(), String> {
        let mut tg = TraversalGraph::new();
        let mut handles = BTreeMap::new();
        for n in &graph.nodes {
            // One label a vertex: Gremlin's model.
            let labels = n.labels.iter().take(1).map(|l| l.as_str().into()).collect();
            let h = tg
                .add_vertex(Some(n.id.to_string().into()), labels, properties(n.id, &n.properties)?)
                .map_err(|e| format!("adding vertex {}: {e}", n.id))?;
            handles.insert(n.id, h);
        }
        for r in &graph.relationships {
            let (Some(s), Some(e)) = (handles.get(&r.start), handles.get(&r.end)) else {
                return Err(format!("relationship {} joins a missing node", r.id));
            };
            tg.add_edge(
                Some(r.id.to_string().into()),
                Some(r.rel_type.as_str().into()),
                *s,
                *e,
                properties(r.id, &r.properties)?,
            )
            .map_err(|e| format!("adding edge {}: {e}", r.id))?;
        }
        self.graph = Some(Arc::new(GsGraph::new(tg)));
        Ok(())
    }

    fn execute(&mut self, query: &str, language: Language, max_rows: usize) -> Outcome {
        if language != Language::Gremlin {
            return Outcome::Error {
                class: ErrorClass::Unsupported,
                message: format!("graphersal answers Gremlin, not {language}"),
            };
        }
        let Some(graph) = &self.graph else {
            return Outcome::Error { class: ErrorClass::Internal, message: "no graph loaded".into() };
        };
        // Generated traversals only read; a read-only policy keeps the
        // loaded graph as it was, so nothing needs restoring.
        let read_only: Arc<dyn Authorizer> = Arc::new(AccessPolicy::read_only());
        let limits = ScriptLimits::default().with_max_array_size(max_rows.saturating_add(1));
        let value = eval_value_with_limits(graph.clone(), query, Default::default(), &limits, read_only)
            .and_then(|d| materialize_traversals(d, 0));
        let value = match value {
            Ok(v) => v,
            // Its array cap is the row cap here (one array holds the answer);
            // `bulk.max_expansion` (10^7) refuses to list more values than
            // that, far past any row cap.
            Err(e) if ["script.max_array_size", "bulk.max_expansion"].iter().any(|k| e.to_string().contains(k)) => {
                return Outcome::TooLarge { max_rows };
            }
            Err(e) => return classify(&e),
        };
        let value = match script_value_to_property(value, 0) {
            Ok(p) => decode(&p),
            Err(e) => return Outcome::Undecodable { message: e.to_string() },
        };
        let values = match value {
            Value::List(items) => items,
            // `next()` or a script that ends in a plain value.
            Value::Null => Vec::new(),
            other => vec![other],
        };
        if values.len() > max_rows {
            return Outcome::TooLarge { max_rows };
        }
        Outcome::Rows(crate::gremlin::traversers(values))
    }

    fn restore(&mut self) -> Result<(), String> {
        Ok(())
    }
}
