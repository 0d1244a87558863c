//! A local OpenAI-compatible server for the example and the tests: `POST
//! /v1/chat/completions` answers with the next scripted reply and keeps every request body,
//! so that a test can check what the model was sent. No network: it listens on 127.0.0.1.
//!
//! Shared by `tests/*.rs` (`mod support;`) and `examples/rig_agent.rs` (`#[path]`).

#![allow(dead_code)] // each test file and the example use a different part of it

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rig_agent::{Agent, AgentBuilder};
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::PortableTool;
use serde_json::{Value, json};

/// The model name the scripted replies report.
pub const MODEL: &str = "mock-model";

/// One scripted answer of the model.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Call tools: `(call id, tool name, arguments)`.
    Tools(Vec<(String, String, Value)>),
    /// Answer with text and stop.
    Text(String),
}

impl Reply {
    /// One tool call.
    pub fn tool(id: &str, name: &str, arguments: Value) -> Reply {
        Reply::Tools(vec![(id.to_owned(), name.to_owned(), arguments)])
    }

    /// A final text answer.
    pub fn text(text: &str) -> Reply {
        Reply::Text(text.to_owned())
    }

    fn body(&self, n: usize) -> Value {
        let (message, finish) = match self {
            Reply::Tools(calls) => {
                let calls: Vec<Value> = calls
                    .iter()
                    .map(|(id, name, arguments)| {
                        json!({
                            "id": id,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments.to_string()},
                        })
                    })
                    .collect();
                (
                    json!({"role": "assistant", "content": null, "tool_calls": calls}),
                    "tool_calls",
                )
            }
            Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        };
        json!({
            "id": format!("chatcmpl-{n}"),
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        })
    }
}

/// The running server: its base URL and what it received.
pub struct MockOpenAi {
    /// `http://127.0.0.1:<port>/v1`, for the client's base URL.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl MockOpenAi {
    /// Start serving `script`, one reply per chat-completions request, in order. A request
    /// past the end of the script gets a 500 whose message says so (the run then fails).
    pub async fn start(script: Vec<Reply>) -> std::io::Result<MockOpenAi> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(script);
        let received = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (script, received) = (script.clone(), received.clone());
                let service = hyper::service::service_fn(move |request| {
                    handle(request, script.clone(), received.clone())
                });
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    if let Err(e) = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await
                    {
                        eprintln!("mock server: connection error: {e}");
                    }
                });
            }
        });
        Ok(MockOpenAi { base_url, requests })
    }

    /// The request bodies received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A rig agent on this server (chat completions, a dummy key), with `tools`.
    pub fn agent(&self, configure: impl FnOnce(AgentBuilder) -> Agent) -> Agent {
        let model = OpenAIConfig::new("sk-dummy-key-for-the-local-mock")
            .with_base_url(self.base_url.clone())
            .client()
            .chat(MODEL);
        configure(AgentBuilder::new(model).preamble("You are a test agent."))
    }
}

async fn handle(
    request: Request<Incoming>,
    script: Arc<Vec<Reply>>,
    received: Arc<Mutex<Vec<Value>>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_owned();
    if request.method() != hyper::Method::POST || path != "/v1/chat/completions" {
        return Ok(reply(
            404,
            json!({"error": {"message": format!("no route {path}")}}),
        ));
    }
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(reply(400, json!({"error": {"message": "unreadable body"}}))),
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return Ok(reply(
            400,
            json!({"error": {"message": "the body is not JSON"}}),
        ));
    };
    let n = {
        let mut received = received.lock().unwrap_or_else(PoisonError::into_inner);
        received.push(body);
        received.len()
    };
    Ok(match script.get(n - 1) {
        Some(scripted) => reply(200, scripted.body(n)),
        None => reply(
            500,
            json!({"error": {"message": format!("the script has {} replies; this is request {n}", script.len())}}),
        ),
    })
}

fn reply(code: u16, body: Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() =
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// The text of the tool result message answering `call_id` in a chat-completions request
/// body (its `content`, a string or a list of parts, as JSON text), if there is one.
pub fn tool_result(request: &Value, call_id: &str) -> Option<String> {
    request["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
}

/// Every shell command the [`Shell`] tool was asked to run.
pub type Ran = Arc<Mutex<Vec<String>>>;

/// A stand-in for a shell tool named `bash`: it records the command and answers with a fixed
/// text. It never runs anything, so a guard that fails cannot cost the machine anything.
#[derive(Clone, Default)]
pub struct Shell {
    /// The commands it received.
    pub ran: Ran,
}

/// The tool errors of [`Shell`] and [`ReadFile`].
#[derive(Debug)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

/// The arguments of [`Shell`].
#[derive(serde::Deserialize)]
pub struct ShellArgs {
    /// The command line.
    pub command: String,
}

impl PortableTool for Shell {
    const NAME: &'static str = "bash";
    type Args = ShellArgs;
    type Output = String;
    type Error = ToolError;

    fn description(&self) -> String {
        "Run a shell command".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
    }

    async fn call(&self, args: ShellArgs) -> Result<String, ToolError> {
        self.ran
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(args.command.clone());
        Ok(format!("(recorded, not run) {}", args.command))
    }
}

/// A tool named `read_file` that reads a real file.
#[derive(Clone, Default)]
pub struct ReadFile;

/// The arguments of [`ReadFile`].
#[derive(serde::Deserialize)]
pub struct ReadFileArgs {
    /// The file.
    pub path: String,
}

impl PortableTool for ReadFile {
    const NAME: &'static str = "read_file";
    type Args = ReadFileArgs;
    type Output = String;
    type Error = ToolError;

    fn description(&self) -> String {
        "Read a text file".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    }

    async fn call(&self, args: ReadFileArgs) -> Result<String, ToolError> {
        std::fs::read_to_string(&args.path).map_err(|e| ToolError(format!("{}: {e}", args.path)))
    }
}
