//! A Gremlin Server client (`gremlin://HOST:PORT`): TinkerPop's WebSocket
//! protocol at `/gremlin`, one sessionless `eval` of Groovy text per query,
//! answers in GraphSON 3.0 ([`graphson`]). It serves TinkerGraph,
//! JanusGraph, HugeGraph, ArcadeDB's Gremlin plugin and any other server
//! that speaks this protocol.
//!
//! No TinkerPop server can be installed where graphlancer is developed, so
//! this client has not met a live server: its framing follows the
//! protocol's documentation, and its decoding is tested on the
//! documentation's own GraphSON examples.

pub mod graphson;

use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use graphlancer_model::{Graph, Language, ScriptDialect, creation_script};
use serde_json::{Value as Json, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::{Engine, EngineError, ErrorClass, ExecOptions, Outcome};

/// How GraphSON 3.0 requests are framed: the MIME type, length-prefixed,
/// before the JSON of a binary frame.
const MIME: &str = "application/vnd.gremlin-v3.0+json";

/// Status codes of a Gremlin Server response.
mod status {
    pub const SUCCESS: u64 = 200;
    pub const NO_CONTENT: u64 = 204;
    pub const PARTIAL_CONTENT: u64 = 206;
    pub const UNAUTHORIZED: u64 = 401;
    pub const AUTHENTICATE: u64 = 407;
    pub const MALFORMED_REQUEST: u64 = 498;
    pub const INVALID_REQUEST_ARGUMENTS: u64 = 499;
    pub const SERVER_ERROR: u64 = 500;
    pub const SCRIPT_EVALUATION_ERROR: u64 = 597;
    pub const SERVER_TIMEOUT: u64 = 598;
    pub const SERVER_SERIALIZATION_ERROR: u64 = 599;
}

/// A connection to one Gremlin Server.
pub struct GremlinServer {
    name: String,
    address: String,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    version: String,
}

/// The request frame of one sessionless eval.
pub fn request(id: &str, script: &str, timeout: Duration) -> Vec<u8> {
    let body = json!({
        "requestId": id,
        "op": "eval",
        "processor": "",
        "args": {
            "@type": "g:Map",
            "@value": [
                "gremlin", script,
                "language", "gremlin-groovy",
                "evaluationTimeout", {"@type": "g:Int64", "@value": crate::millis(timeout)},
            ],
        },
    });
    let mut frame = Vec::with_capacity(MIME.len() + 64);
    frame.push(MIME.len() as u8);
    frame.extend_from_slice(MIME.as_bytes());
    frame.extend_from_slice(body.to_string().as_bytes());
    frame
}

/// A request id in UUID form, unique within the process.
fn request_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{:08x}-0000-4000-8000-{n:012x}", std::process::id())
}

/// What one eval came to: every partial response's data, or the status
/// that ended it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The data of each response, in order.
    Data(Vec<Json>),
    /// An error status with the server's message.
    Failed(u64, String),
}

/// Folds one response into the reply so far; `true` when it was the last.
pub fn absorb(response: &Json, data: &mut Vec<Json>) -> Result<Option<Reply>, String> {
    let code = response["status"]["code"].as_u64().ok_or("a response without a status code")?;
    match code {
        status::SUCCESS | status::PARTIAL_CONTENT => {
            data.push(response["result"]["data"].clone());
            Ok((code == status::SUCCESS).then(|| Reply::Data(std::mem::take(data))))
        }
        status::NO_CONTENT => Ok(Some(Reply::Data(std::mem::take(data)))),
        other => {
            let message = response["status"]["message"].as_str().unwrap_or("").to_owned();
            Ok(Some(Reply::Failed(other, message)))
        }
    }
}

/// An error status as an outcome.
pub fn failed(code: u64, message: String, timeout: Duration) -> Outcome {
    let class = match code {
        status::SERVER_TIMEOUT => return Outcome::Timeout { after_ms: crate::millis(timeout) },
        status::SERVER_SERIALIZATION_ERROR => return Outcome::Undecodable { message },
        status::SCRIPT_EVALUATION_ERROR => {
            let m = message.to_lowercase();
            if m.contains("no signature of method") || m.contains("unexpected") || m.contains("startup failed") {
                ErrorClass::Syntax
            } else if m.contains("not supported") || m.contains("unsupported") {
                ErrorClass::Unsupported
            } else {
                ErrorClass::Runtime
            }
        }
        status::MALFORMED_REQUEST | status::INVALID_REQUEST_ARGUMENTS => ErrorClass::Syntax,
        status::SERVER_ERROR => ErrorClass::Internal,
        _ => ErrorClass::Runtime,
    };
    Outcome::Error { class, message }
}

impl GremlinServer {
    /// Connects to the server at `address` (`HOST:PORT`).
    pub fn connect(name: String, address: &str) -> Result<Self, EngineError> {
        let unreachable =
            |detail: String| EngineError::Unreachable { engine: "gremlin-server", address: address.to_owned(), detail };
        let (socket, _) =
            tungstenite::connect(format!("ws://{address}/gremlin")).map_err(|e| unreachable(e.to_string()))?;
        let mut server = Self { name, address: address.to_owned(), socket, version: String::new() };
        // Groovy's view of the server's TinkerPop; a server without it is
        // still usable.
        server.version = match server.eval("Gremlin.version()", Duration::from_secs(10))? {
            Reply::Data(d) => d
                .iter()
                .flat_map(|j| graphson::traversers(j).unwrap_or_default())
                .find_map(|v| if let graphlancer_model::Value::String(s) = v { Some(s) } else { None })
                .unwrap_or_else(|| "unknown".into()),
            Reply::Failed(..) => "unknown".into(),
        };
        Ok(server)
    }

    fn protocol(&self, detail: impl Into<String>) -> EngineError {
        EngineError::Protocol { engine: "gremlin-server", detail: format!("{}: {}", self.address, detail.into()) }
    }

    /// Sends one script and reads responses until the last.
    fn eval(&mut self, script: &str, timeout: Duration) -> Result<Reply, EngineError> {
        let id = request_id();
        self.socket.send(Message::binary(request(&id, script, timeout))).map_err(|e| self.protocol(e.to_string()))?;
        if let MaybeTlsStream::Plain(s) = self.socket.get_ref() {
            // The server's own timeout answers first; this one catches a
            // server that stopped answering.
            let _ = s.set_read_timeout(Some(timeout + Duration::from_secs(5)));
        }
        let mut data = Vec::new();
        loop {
            let message = match self.socket.read() {
                Ok(m) => m,
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                {
                    return Ok(Reply::Failed(status::SERVER_TIMEOUT, "no answer".into()));
                }
                Err(e) => return Err(self.protocol(e.to_string())),
            };
            let text = match message {
                Message::Text(t) => t.to_string(),
                Message::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
                Message::Close(_) => return Err(self.protocol("the server closed the connection")),
                _ => continue,
            };
            let response: Json = serde_json::from_str(&text).map_err(|e| self.protocol(e.to_string()))?;
            if response["requestId"].as_str() != Some(id.as_str()) {
                continue;
            }
            if let Some(code @ (status::UNAUTHORIZED | status::AUTHENTICATE)) = response["status"]["code"].as_u64() {
                return Err(self.protocol(format!("status {code}: the server asks for authentication, not supported")));
            }
            if let Some(reply) = absorb(&response, &mut data).map_err(|e| self.protocol(e))? {
                return Ok(reply);
            }
        }
    }
}

impl Engine for GremlinServer {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn dialect(&self) -> &'static str {
        "gremlin-server"
    }

    fn languages(&self) -> &'static [Language] {
        &[Language::Gremlin]
    }

    fn script(&self) -> ScriptDialect {
        ScriptDialect::Gremlin
    }

    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        let mut script = vec!["g.V().drop().iterate()".to_owned()];
        script.extend(creation_script(graph, ScriptDialect::Gremlin));
        match self.eval(&script.join("\n"), Duration::from_secs(120))? {
            Reply::Data(_) => Ok(()),
            Reply::Failed(code, message) => {
                Err(EngineError::Load { engine: "gremlin-server", detail: format!("status {code}: {message}") })
            }
        }
    }

    fn execute(&mut self, query: &str, opts: &ExecOptions) -> Result<Outcome, EngineError> {
        if opts.language != Language::Gremlin {
            return Ok(Outcome::Error {
                class: ErrorClass::Unsupported,
                message: format!("a Gremlin Server does not answer {}", opts.language),
            });
        }
        Ok(match self.eval(query, opts.timeout)? {
            Reply::Failed(code, message) => failed(code, message, opts.timeout),
            Reply::Data(parts) => {
                let mut values = Vec::new();
                for part in &parts {
                    match graphson::traversers(part) {
                        Ok(v) => values.extend(v),
                        Err(e) => return Ok(Outcome::Undecodable { message: e.to_string() }),
                    }
                }
                if values.len() > opts.max_rows {
                    return Ok(Outcome::TooLarge { max_rows: opts.max_rows });
                }
                Outcome::Rows(crate::gremlin::traversers(values))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_the_mime_type_then_the_documented_eval() {
        let frame = request("cb682578-9d92-4499-9ebc-5c6aa73c5397", "g.V(x)", Duration::from_secs(10));
        assert_eq!(usize::from(frame[0]), MIME.len());
        assert_eq!(&frame[1..=MIME.len()], MIME.as_bytes());
        let body: Json = serde_json::from_slice(&frame[MIME.len() + 1..]).expect("JSON");
        // The documentation's sessionless eval, with a timeout and no bindings.
        let ex: Json =
            serde_json::from_str(include_str!("../../tests/fixtures/graphson3-examples.json")).expect("JSON");
        let doc = &ex["Sessionless Eval"];
        for field in ["requestId", "op", "processor"] {
            assert_eq!(body[field], doc[field], "{field}");
        }
        assert_eq!(body["args"]["@type"], "g:Map");
        for i in [0, 2, 3] {
            assert_eq!(body["args"]["@value"][i], doc["args"]["@value"][i], "gremlin and language, as documented");
        }
        assert_eq!(body["args"]["@value"][1], "g.V(x)");
    }

    #[test]
    fn responses_fold_into_replies_and_statuses_into_outcomes() {
        let ex: Json =
            serde_json::from_str(include_str!("../../tests/fixtures/graphson3-examples.json")).expect("JSON");
        let mut data = Vec::new();
        let mut partial = ex["Standard Result"].clone();
        partial["status"]["code"] = json!(206);
        assert_eq!(absorb(&partial, &mut data), Ok(None));
        let Ok(Some(Reply::Data(parts))) = absorb(&ex["Standard Result"], &mut data) else { panic!("the last part") };
        assert_eq!(parts.len(), 2);
        let vertices: usize = parts.iter().map(|p| graphson::traversers(p).map_or(0, |v| v.len())).sum();
        assert!(vertices >= 2, "{vertices}");
        let error = json!({"requestId": "x", "status": {"code": 597, "message": "No signature of method: out()"}});
        let Ok(Some(Reply::Failed(code, message))) = absorb(&error, &mut Vec::new()) else { panic!("a failure") };
        let outcome = failed(code, message, Duration::from_secs(1));
        assert!(matches!(outcome, Outcome::Error { class: ErrorClass::Syntax, .. }), "{outcome:?}");
        assert_eq!(failed(598, String::new(), Duration::from_secs(2)), Outcome::Timeout { after_ms: 2000 });
        // The authentication challenge is a status of its own.
        assert_eq!(ex["Authentication Challenge"]["status"]["code"], 407);
    }
}
