//! `otel`: the real OTLP/HTTP exporters against a local receiver on 127.0.0.1 (wiremock); the
//! protobuf bodies it receives are decoded and checked.
#![cfg(feature = "otel")]

mod common;

use std::collections::BTreeMap;

use hookrail_core::context::{Meta, PreToolUse, SessionStart};
use hookrail_core::points::{pre_tool_use, session_start};
use hookrail_core::runtime::Hooks;
use hookrail_telemetry::otel::{BuildError, FlushError, Telemetry};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::{AnyValue as AnyValueMsg, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as NumberValue;
use opentelemetry_proto::tonic::metrics::v1::{AggregationTemporality, Metric};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use prost::Message as _;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A receiver on 127.0.0.1 that answers every OTLP/HTTP export with `status`.
async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    assert!(
        server.uri().starts_with("http://127.0.0.1:"),
        "loopback only"
    );
    for signal in ["/v1/traces", "/v1/metrics"] {
        Mock::given(method("POST"))
            .and(path(signal))
            .respond_with(ResponseTemplate::new(status))
            .mount(&server)
            .await;
    }
    server
}

fn hooks() -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(common::deny_rm())
        .hook(common::broken())
        .hook(common::add_charter())
        .build()
        .unwrap()
}

/// rm (deny_rm denies), ls (both continue), Write (broken fails closed), one session start.
fn dispatch(hooks: &Hooks) {
    let tool = |name: &str, input| PreToolUse::new(Meta::new("s1"), name, input);
    let rm = serde_json::json!({ "command": "rm -rf /" });
    let ls = serde_json::json!({ "command": "ls" });
    let file = serde_json::json!({ "file_path": "a" });
    assert!(
        hooks
            .dispatch::<pre_tool_use::Point>(&mut tool("Bash", rm))
            .is_denied()
    );
    assert!(
        !hooks
            .dispatch::<pre_tool_use::Point>(&mut tool("Bash", ls))
            .is_denied()
    );
    assert!(
        hooks
            .dispatch::<pre_tool_use::Point>(&mut tool("Write", file))
            .is_denied()
    );
    hooks.dispatch::<session_start::Point>(&mut SessionStart::new(Meta::new("s1"), "m"));
}

/// Flush or shut down off the async workers: the SDK blocks until its threads exported.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// The decoded bodies the receiver got.
async fn received(
    server: &MockServer,
) -> (
    Vec<ExportTraceServiceRequest>,
    Vec<ExportMetricsServiceRequest>,
) {
    let mut traces = Vec::new();
    let mut metrics = Vec::new();
    for request in server.received_requests().await.unwrap() {
        assert_eq!(request.method.as_str(), "POST");
        assert_eq!(
            request.headers.get("content-type").unwrap(),
            "application/x-protobuf"
        );
        match request.url.path() {
            "/v1/traces" => traces.push(ExportTraceServiceRequest::decode(&*request.body).unwrap()),
            "/v1/metrics" => {
                metrics.push(ExportMetricsServiceRequest::decode(&*request.body).unwrap())
            }
            other => panic!("unexpected request to {other}"),
        }
    }
    (traces, metrics)
}

fn value(v: &Option<AnyValueMsg>) -> String {
    match v.as_ref().and_then(|v| v.value.as_ref()) {
        Some(AnyValue::StringValue(s)) => s.clone(),
        Some(AnyValue::IntValue(i)) => i.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        Some(AnyValue::DoubleValue(d)) => d.to_string(),
        other => panic!("unexpected attribute value {other:?}"),
    }
}

fn attrs(kvs: &[KeyValue]) -> BTreeMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), value(&kv.value)))
        .collect()
}

fn resource_attrs(resource: &Option<Resource>) -> BTreeMap<String, String> {
    attrs(&resource.as_ref().expect("no resource").attributes)
}

fn hook_attrs(point: &str, hook: &str, kind: &str) -> BTreeMap<String, String> {
    [
        ("hook.point", point),
        ("hook.name", hook),
        ("hook.kind", kind),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

fn metric<'a>(metrics: &'a [ExportMetricsServiceRequest], name: &str) -> Vec<&'a Metric> {
    metrics
        .iter()
        .flat_map(|r| &r.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .filter(|m| m.name == name)
        .collect()
}

/// The last value of each data point of a cumulative, monotonic `u64` sum, by attributes.
fn counter(
    metrics: &[ExportMetricsServiceRequest],
    name: &str,
) -> BTreeMap<BTreeMap<String, String>, i64> {
    let mut out = BTreeMap::new();
    for m in metric(metrics, name) {
        let Some(Data::Sum(sum)) = &m.data else {
            panic!("{name} is not a sum: {:?}", m.data);
        };
        assert!(sum.is_monotonic);
        assert_eq!(
            sum.aggregation_temporality,
            AggregationTemporality::Cumulative as i32
        );
        for p in &sum.data_points {
            let Some(NumberValue::AsInt(v)) = p.value else {
                panic!("{name} has a non-integer point: {p:?}");
            };
            out.insert(attrs(&p.attributes), v);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_receiver_gets_the_resource_spans_and_metrics() {
    let server = receiver(200).await;
    let telemetry = Telemetry::builder()
        .service_name("review-bot")
        .service_instance_id("review-bot-7")
        .resource_attribute("deployment.environment.name", "test")
        .endpoint(server.uri())
        .build()
        .unwrap();
    let hooks = hooks();
    let _attached = telemetry.attach(&hooks);
    dispatch(&hooks);
    let t = telemetry.clone();
    blocking(move || t.shutdown()).await.unwrap();

    let (traces, metrics) = received(&server).await;
    assert!(!traces.is_empty(), "no spans arrived");
    assert!(!metrics.is_empty(), "no metrics arrived");

    // Every export carries the resource that puts this process on the fleet's dashboard.
    let resources = traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .map(|r| &r.resource)
        .chain(
            metrics
                .iter()
                .flat_map(|r| &r.resource_metrics)
                .map(|r| &r.resource),
        );
    for resource in resources {
        let a = resource_attrs(resource);
        assert_eq!(a["service.name"], "review-bot");
        assert_eq!(a["service.instance.id"], "review-bot-7");
        assert_eq!(a["deployment.environment.name"], "test");
        assert_eq!(a["process.pid"], std::process::id().to_string());
        assert_eq!(a["telemetry.sdk.language"], "rust");
    }

    let spans: Vec<_> = traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .inspect(|s| assert_eq!(s.scope.as_ref().unwrap().name, "hookrail-telemetry"))
        .flat_map(|s| &s.spans)
        .collect();
    let got: Vec<_> = spans
        .iter()
        .map(|s| {
            let a = attrs(&s.attributes);
            let status = s.status.clone().unwrap_or_default();
            (
                s.name.clone(),
                a["hook.result"].clone(),
                a.get("hook.reason").cloned(),
                a.get("error.type").cloned(),
                status.code,
                status.message,
            )
        })
        .collect();
    let unset = StatusCode::Unset as i32;
    let ok = |name: &str, result: &str| {
        (
            name.to_owned(),
            result.to_owned(),
            None,
            None,
            unset,
            String::new(),
        )
    };
    assert_eq!(
        got,
        [
            (
                "pre_tool_use deny_rm".to_owned(),
                "deny".to_owned(),
                Some("no rm".to_owned()),
                None,
                unset,
                String::new()
            ),
            ok("pre_tool_use deny_rm", "continue"),
            ok("pre_tool_use broken", "continue"),
            ok("pre_tool_use deny_rm", "continue"),
            (
                "pre_tool_use broken".to_owned(),
                "failed".to_owned(),
                None,
                Some("error".to_owned()),
                StatusCode::Error as i32,
                "returned an error: policy store unreachable".to_owned()
            ),
            ok("session_start add_charter", "done"),
        ]
    );
    for s in &spans {
        assert!(s.start_time_unix_nano <= s.end_time_unix_nano);
        assert_eq!(s.trace_id.len(), 16);
    }

    assert_eq!(
        counter(&metrics, "hook.runs"),
        BTreeMap::from([
            (hook_attrs("pre_tool_use", "deny_rm", "guard"), 3),
            (hook_attrs("pre_tool_use", "broken", "guard"), 2),
            (hook_attrs("session_start", "add_charter", "transform"), 1),
        ])
    );
    assert_eq!(
        counter(&metrics, "hook.denials"),
        BTreeMap::from([(hook_attrs("pre_tool_use", "deny_rm", "guard"), 1)])
    );
    let mut failure = hook_attrs("pre_tool_use", "broken", "guard");
    failure.insert("error.type".into(), "error".into());
    failure.insert("hook.failure.policy".into(), "deny".into());
    assert_eq!(
        counter(&metrics, "hook.failures"),
        BTreeMap::from([(failure, 1)])
    );

    let durations = metric(&metrics, "hook.run.duration");
    assert!(!durations.is_empty());
    let mut counts = BTreeMap::new();
    for m in durations {
        assert_eq!(m.unit, "s");
        let Some(Data::Histogram(h)) = &m.data else {
            panic!("hook.run.duration is not a histogram: {:?}", m.data);
        };
        for p in &h.data_points {
            assert_eq!(p.bucket_counts.iter().sum::<u64>(), p.count);
            assert_eq!(p.explicit_bounds.len() + 1, p.bucket_counts.len());
            counts.insert(attrs(&p.attributes), p.count);
        }
    }
    assert_eq!(
        counts,
        BTreeMap::from([
            (hook_attrs("pre_tool_use", "deny_rm", "guard"), 3),
            (hook_attrs("pre_tool_use", "broken", "guard"), 2),
            (hook_attrs("session_start", "add_charter", "transform"), 1),
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_instance_id_is_host_name_and_pid() {
    let server = receiver(200).await;
    // A trailing slash on the base URL still reaches /v1/traces and /v1/metrics.
    let telemetry = Telemetry::builder()
        .service_name("review-bot")
        .endpoint(format!("{}/", server.uri()))
        .build()
        .unwrap();
    let hooks = hooks();
    let _attached = telemetry.attach(&hooks);
    dispatch(&hooks);
    let t = telemetry.clone();
    blocking(move || t.force_flush()).await.unwrap();

    let (traces, metrics) = received(&server).await;
    assert!(!traces.is_empty() && !metrics.is_empty());
    let pid = std::process::id().to_string();
    for resource in traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .map(|r| &r.resource)
    {
        let a = resource_attrs(resource);
        let host = a.get("host.name").map_or("localhost", String::as_str);
        assert_eq!(a["service.instance.id"], format!("{host}-{pid}"));
        assert_eq!(a["process.pid"], pid);
        assert_eq!(a["service.name"], "review-bot");
    }
    let t = telemetry.clone();
    blocking(move || t.shutdown()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_export_is_a_flush_error_for_both_signals() {
    let server = receiver(400).await;
    let telemetry = Telemetry::builder()
        .service_name("review-bot")
        .endpoint(server.uri())
        .build()
        .unwrap();
    let hooks = hooks();
    let _attached = telemetry.attach(&hooks);
    dispatch(&hooks);
    let t = telemetry.clone();
    let err = blocking(move || t.force_flush()).await.unwrap_err();
    assert!(
        matches!(err, FlushError::Both { .. }),
        "expected both signals to fail, got {err:?}"
    );
    assert!(err.traces().is_some() && err.metrics().is_some());
    assert!(err.to_string().starts_with("hook spans: "), "{err}");
    // The traces error is the source (an error chain reaches it); the message has both.
    let source = std::error::Error::source(&err).expect("a source");
    assert_eq!(source.to_string(), err.traces().unwrap().to_string());

    // The receiver did get (and refuse) both.
    let (traces, metrics) = received(&server).await;
    assert!(!traces.is_empty() && !metrics.is_empty());
    // Stop the exporter threads (the final metrics export is refused again).
    let t = telemetry.clone();
    assert!(blocking(move || t.shutdown()).await.is_err());
}

#[test]
fn an_invalid_endpoint_is_a_build_error() {
    let err = Telemetry::builder()
        .endpoint("not a url")
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::SpanExporter(_)), "{err:?}");
    assert!(std::error::Error::source(&err).is_some(), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("cannot build the OTLP span exporter for hook runs: "),
        "{err}"
    );
}
