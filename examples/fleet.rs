//! Two agent sessions, one view of the fleet.
//!
//! Each session is its own agent instance (`agent-1`, `agent-2`) with the builtin command
//! guard on. Every hook point it fires leaves the process two ways:
//!
//! - as a **signed webhook** (`hookrail-telemetry`, feature `webhooks`): the bus's events of a few
//!   points, POSTed with `X-Signature: sha256=…` and `X-Timestamp`, from a bounded queue;
//! - as **OpenTelemetry** (feature `otel`): a span per hook run and the run, denial and failure
//!   counters, exported over OTLP/HTTP with `service.instance.id` set per instance.
//!
//! Both go to one local receiver on 127.0.0.1 (a small hyper server in this file standing in
//! for a SIEM and an OpenTelemetry collector). It verifies each webhook's signature with
//! `hookrail_telemetry::signature::Verifier` and decodes the OTLP protobuf bodies; at the end it
//! prints what arrived per instance. The run fails if an instance is missing from either view,
//! a signature did not verify, or the command guard's denials were not seen.
//!
//! Run: `cargo run --example fleet`

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::context::{Meta, SessionEndReason, ToolCall};
use hookrail_core::runtime::{Hooks, Session, ToolRun};
use hookrail_telemetry::otel::Telemetry;
use hookrail_telemetry::signature::{SIGNATURE_HEADER, Secret, TIMESTAMP_HEADER, Verifier};
use hookrail_telemetry::webhooks::{Source, Webhook, Webhooks};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as Number;
use prost::Message as _;
use serde_json::json;

type BoxError = Box<dyn Error + Send + Sync>;

const SERVICE: &str = "fleet-demo";
/// The points whose events each instance sends as webhooks.
const WEBHOOK_EVENTS: [&str; 4] = [
    "session_start",
    "pre_tool_use",
    "post_tool_use",
    "session_end",
];

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();

    // In production the key comes from the environment (`Secret::expand("${WEBHOOK_SECRET}")`).
    // `Secret::new` refuses an empty key (anyone could sign with it).
    let secret = Secret::new(*b"fleet-demo-shared-secret")?;
    let received = Arc::new(Mutex::new(Received::default()));
    let receiver = Receiver::start(Verifier::new(secret.clone()), received.clone()).await?;
    println!("receiver listening on {}", receiver.url);

    let (one, two) = tokio::join!(
        agent(1, &receiver.url, &secret),
        agent(2, &receiver.url, &secret)
    );
    let instances = [one?, two?];

    // Flush both views: the OTLP exporters block, so off the async workers.
    for instance in instances {
        tokio::task::spawn_blocking(move || instance.finish()).await??;
    }

    let received = received.lock().unwrap_or_else(PoisonError::into_inner);
    received.print();
    received.check()
}

/// One agent instance: its hooks, and where their events go.
struct Instance {
    name: String,
    telemetry: Telemetry,
    webhooks: Webhooks,
}

impl Instance {
    /// Flush and stop both exporters; report what the webhook sender did.
    fn finish(self) -> Result<(), BoxError> {
        let stats = self.webhooks.shutdown(Duration::from_secs(10));
        println!(
            "{}: webhooks sent {}, failed {}, dropped {}",
            self.name, stats.sent, stats.failed, stats.dropped
        );
        self.telemetry.shutdown()?;
        Ok(())
    }
}

/// Runs one scripted session of instance `n`, with telemetry and webhooks attached.
async fn agent(n: u32, receiver: &str, secret: &Secret) -> Result<Instance, BoxError> {
    let name = format!("agent-{n}");
    let settings: BuiltinConfig = serde_json::from_value(json!({ "command_guard": {} }))?;
    let hooks: Hooks = Builtins::new(settings)?.install(Hooks::builder().ignore_env())?;

    let telemetry = Telemetry::builder()
        .service_name(SERVICE)
        .service_instance_id(name.clone())
        .endpoint(receiver)
        .build()?;
    // Every hook run of this instance becomes a span and metrics (detached when dropped, so
    // it lives as long as the hooks do here).
    let attachment = telemetry.attach(&hooks);

    let webhooks = Webhooks::builder()
        .endpoint(
            Webhook::new(format!("{receiver}/events"))
                .secret(secret.clone())
                .events(WEBHOOK_EVENTS)
                .timeout(Duration::from_secs(2)),
        )
        .source(Source::new(SERVICE, name.clone()))
        .build()?;
    // False if this sender were already attached to this bus (it would deliver twice).
    assert!(webhooks.attach(hooks.bus()), "attached once");

    let mut session = Session::start(hooks, Meta::new(format!("{name}-session")), "model").await?;
    for (i, command) in ["cargo test --workspace", "rm -rf /", "git status"]
        .into_iter()
        .enumerate()
    {
        let run = session
            .tool_call(
                ToolCall::new(
                    format!("toolu_{name}_{i}"),
                    "Bash",
                    json!({ "command": command }),
                ),
                async |_| Ok(json!({ "exit_code": 0 })),
            )
            .await?;
        match run {
            ToolRun::Ran(_) => println!("{name}: ran `{command}`"),
            ToolRun::Denied { by, reason, .. } => {
                println!("{name}: `{command}` denied by {by:?}: {reason}");
            }
        }
    }
    session.end(SessionEndReason::Completed, true).await;
    drop(attachment);
    Ok(Instance {
        name,
        telemetry,
        webhooks,
    })
}

/// What the receiver saw, per instance.
#[derive(Default)]
struct Received {
    /// Verified webhook events: instance → event → count.
    webhooks: BTreeMap<String, BTreeMap<String, u32>>,
    /// Webhooks whose signature did not verify.
    rejected: u32,
    /// Spans: instance → span count.
    spans: BTreeMap<String, u32>,
    /// The latest cumulative `hook.runs` and `hook.denials` sums per instance.
    runs: BTreeMap<String, i64>,
    denials: BTreeMap<String, i64>,
}

impl Received {
    fn webhook(&mut self, verifier: &Verifier, headers: &hyper::HeaderMap, body: &[u8]) -> u16 {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
        };
        match verifier.verify(
            body,
            header(SIGNATURE_HEADER),
            header(TIMESTAMP_HEADER),
            SystemTime::now(),
        ) {
            Ok(verified) => {
                let envelope = &verified.envelope;
                let instance = envelope["source"]["instance"].as_str().unwrap_or("?");
                let event = envelope["event"].as_str().unwrap_or("?");
                *self
                    .webhooks
                    .entry(instance.to_owned())
                    .or_default()
                    .entry(event.to_owned())
                    .or_default() += 1;
                200
            }
            Err(e) => {
                eprintln!("receiver: webhook rejected: {e}");
                self.rejected += 1;
                401
            }
        }
    }

    fn traces(&mut self, body: &[u8]) -> u16 {
        let Ok(request) = ExportTraceServiceRequest::decode(body) else {
            return 400;
        };
        for resource_spans in request.resource_spans {
            let instance = instance_of(resource_spans.resource.as_ref().map(|r| &r.attributes));
            let spans: usize = resource_spans
                .scope_spans
                .iter()
                .map(|s| s.spans.len())
                .sum();
            *self.spans.entry(instance).or_default() += spans as u32;
        }
        200
    }

    fn metrics(&mut self, body: &[u8]) -> u16 {
        let Ok(request) = ExportMetricsServiceRequest::decode(body) else {
            return 400;
        };
        for resource_metrics in request.resource_metrics {
            let instance = instance_of(resource_metrics.resource.as_ref().map(|r| &r.attributes));
            for metric in resource_metrics
                .scope_metrics
                .iter()
                .flat_map(|s| &s.metrics)
            {
                let target = match metric.name.as_str() {
                    "hook.runs" => &mut self.runs,
                    "hook.denials" => &mut self.denials,
                    _ => continue,
                };
                let Some(Data::Sum(sum)) = &metric.data else {
                    continue;
                };
                // Cumulative sums: the latest export holds the totals.
                let total: i64 = sum
                    .data_points
                    .iter()
                    .map(|p| match p.value {
                        Some(Number::AsInt(i)) => i,
                        Some(Number::AsDouble(d)) => d as i64,
                        None => 0,
                    })
                    .sum();
                target.insert(instance.clone(), total);
            }
        }
        200
    }

    fn print(&self) {
        println!("\nwhat the receiver got");
        for (instance, events) in &self.webhooks {
            let list: Vec<String> = events.iter().map(|(e, n)| format!("{e}×{n}")).collect();
            println!("  webhooks from {instance}: {}", list.join(", "));
        }
        println!("  webhooks rejected: {}", self.rejected);
        for (instance, spans) in &self.spans {
            println!(
                "  otlp from {instance}: {spans} spans, hook.runs {}, hook.denials {}",
                self.runs.get(instance).copied().unwrap_or(0),
                self.denials.get(instance).copied().unwrap_or(0)
            );
        }
    }

    /// Every instance in both views, every signature good, the denials counted.
    fn check(&self) -> Result<(), BoxError> {
        if self.rejected > 0 {
            return Err(format!("{} webhooks failed verification", self.rejected).into());
        }
        for n in 1..=2 {
            let instance = format!("agent-{n}");
            let events = self.webhooks.get(&instance);
            // Three tool calls: three pre_tool_use events, the denied one included.
            if events.and_then(|e| e.get("pre_tool_use")) != Some(&3) {
                return Err(
                    format!("{instance}: expected 3 pre_tool_use webhooks: {events:?}").into(),
                );
            }
            if events.and_then(|e| e.get("session_end")) != Some(&1) {
                return Err(format!("{instance}: no session_end webhook").into());
            }
            if self.spans.get(&instance).copied().unwrap_or(0) == 0 {
                return Err(format!("{instance}: no spans arrived").into());
            }
            if self.denials.get(&instance).copied().unwrap_or(0) < 1 {
                return Err(format!("{instance}: the `rm -rf /` denial was not counted").into());
            }
        }
        println!("\nboth instances arrived in both views");
        Ok(())
    }
}

/// `service.instance.id` of a resource.
fn instance_of(attributes: Option<&Vec<KeyValue>>) -> String {
    attributes
        .into_iter()
        .flatten()
        .find(|kv| kv.key == "service.instance.id")
        .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// The local receiver: webhooks at `/events`, OTLP/HTTP at `/v1/traces` and `/v1/metrics`.
struct Receiver {
    url: String,
}

impl Receiver {
    async fn start(verifier: Verifier, received: Arc<Mutex<Received>>) -> Result<Self, BoxError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let verifier = Arc::new(verifier);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (verifier, received) = (verifier.clone(), received.clone());
                let service = hyper::service::service_fn(move |request| {
                    handle(request, verifier.clone(), received.clone())
                });
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    if let Err(e) = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await
                    {
                        eprintln!("receiver: connection error: {e}");
                    }
                });
            }
        });
        Ok(Receiver { url })
    }
}

async fn handle(
    request: Request<Incoming>,
    verifier: Arc<Verifier>,
    received: Arc<Mutex<Received>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_owned();
    let headers = request.headers().clone();
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(status(400)),
    };
    let mut received = received.lock().unwrap_or_else(PoisonError::into_inner);
    let code = match path.as_str() {
        "/events" => received.webhook(&verifier, &headers, &body),
        "/v1/traces" => received.traces(&body),
        "/v1/metrics" => received.metrics(&body),
        _ => 404,
    };
    Ok(status(code))
}

fn status(code: u16) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
    response
}
