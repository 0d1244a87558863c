//! `otel`: hook runs recorded with in-memory span and metric exporters, checked exactly.
#![cfg(feature = "otel")]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use hookrail_core::context::{ErrorKind, ErrorOccurred, Meta, PreToolUse, SessionStart};
use hookrail_core::points::{error_occurred, pre_tool_use, session_start};
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_core::{Recovery, Verdict};
use hookrail_telemetry::otel::Telemetry;
use opentelemetry::trace::{Span as _, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

/// In-memory providers plugged into a `Telemetry`.
struct Harness {
    telemetry: Telemetry,
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    tracer_provider: SdkTracerProvider,
}

fn harness() -> Harness {
    let spans = InMemorySpanExporter::default();
    let metrics = InMemoryMetricExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    let telemetry = Telemetry::builder()
        .tracer_provider(tracer_provider.clone())
        .meter_provider(meter_provider)
        .build()
        .unwrap();
    Harness {
        telemetry,
        spans,
        metrics,
        tracer_provider,
    }
}

impl Harness {
    fn flush(&self) -> (Vec<SpanData>, ResourceMetrics) {
        self.telemetry.force_flush().unwrap();
        let spans = self.spans.get_finished_spans().unwrap();
        // Cumulative temporality: the last export holds every total.
        let metrics = self.metrics.get_finished_metrics().unwrap().pop();
        (spans, metrics.expect("no metrics exported"))
    }
}

/// The hooks of the main scenario:
/// - pre_tool_use (guards): `a_allow` allows, `deny_rm` denies `rm`, `broken` errors on
///   `Write` (fails closed by default), `never` comes after them all;
/// - session_start (transforms): `add_charter` adds context, `explode` panics (fails open);
/// - error_occurred (recover): `fallback` switches model.
fn scenario_hooks() -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("a_allow", |_ctx| Verdict::Allow).order(-10))
        .hook(common::deny_rm())
        .hook(common::broken())
        .hook(Hook::<pre_tool_use::Point>::new("never", |_ctx| Verdict::Continue).order(10))
        .hook(common::add_charter())
        .hook(
            Hook::<session_start::Point>::new("explode", |ctx: &mut SessionStart| {
                if ctx.model == "big-model" {
                    panic!("boom")
                }
            })
            .order(10),
        )
        .hook(Hook::<error_occurred::Point>::new("fallback", |_ctx| {
            Some(Recovery::fallback("small-model", Duration::ZERO))
        }))
        .build()
        .unwrap()
}

fn bash(command: &str) -> PreToolUse {
    PreToolUse::new(
        Meta::new("s1"),
        "Bash",
        serde_json::json!({ "command": command }),
    )
}

fn write() -> PreToolUse {
    PreToolUse::new(
        Meta::new("s1"),
        "Write",
        serde_json::json!({ "file_path": "a.txt" }),
    )
}

fn run_scenario(hooks: &Hooks) {
    let denied = hooks.dispatch::<pre_tool_use::Point>(&mut bash("rm -rf /"));
    assert_eq!(denied.value, Verdict::deny("no rm"));
    let failed = hooks.dispatch::<pre_tool_use::Point>(&mut write());
    assert!(failed.value.is_deny(), "a failing guard fails closed");
    assert_eq!(failed.failures.len(), 1);
    let started = hooks
        .dispatch::<session_start::Point>(&mut SessionStart::new(Meta::new("s1"), "big-model"));
    assert_eq!(started.failures.len(), 1);
    let mut error = ErrorOccurred::new(Meta::new("s1"), ErrorKind::Model, "overloaded");
    let recovered = hooks.dispatch::<error_occurred::Point>(&mut error);
    assert!(recovered.value.is_some());
}

fn attrs<'a>(kvs: impl IntoIterator<Item = &'a KeyValue>) -> BTreeMap<String, String> {
    kvs.into_iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

fn map<const N: usize>(pairs: [(&str, &str); N]) -> BTreeMap<String, String> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Sum data points of a `u64` counter, by their attributes.
fn counter(metrics: &ResourceMetrics, name: &str) -> BTreeMap<BTreeMap<String, String>, u64> {
    let mut out = BTreeMap::new();
    for m in metrics.scope_metrics().flat_map(|s| s.metrics()) {
        if m.name() != name {
            continue;
        }
        let AggregatedMetrics::U64(MetricData::Sum(sum)) = m.data() else {
            panic!("{name} is not a u64 sum: {:?}", m.data());
        };
        assert!(sum.is_monotonic(), "{name} is a counter");
        for p in sum.data_points() {
            assert!(out.insert(attrs(p.attributes()), p.value()).is_none());
        }
    }
    out
}

fn hook_attrs(point: &str, hook: &str, kind: &str) -> BTreeMap<String, String> {
    map([
        ("hook.point", point),
        ("hook.name", hook),
        ("hook.kind", kind),
    ])
}

#[test]
fn each_hook_run_is_one_span_with_documented_attributes_and_status() {
    let h = harness();
    let hooks = scenario_hooks();
    let _attached = h.telemetry.attach(&hooks);
    run_scenario(&hooks);
    let (spans, _) = h.flush();

    let got: Vec<(String, BTreeMap<String, String>, Status)> = spans
        .iter()
        .map(|s| (s.name.to_string(), attrs(&s.attributes), s.status.clone()))
        .collect();
    let guard = |hook: &str, result: &str| {
        map([
            ("hook.point", "pre_tool_use"),
            ("hook.name", hook),
            ("hook.kind", "guard"),
            ("hook.source", "runtime"),
            ("hook.result", result),
            ("session.id", "s1"),
        ])
    };
    let mut deny = guard("deny_rm", "deny");
    deny.insert("hook.reason".into(), "no rm".into());
    let mut broken = guard("broken", "failed");
    broken.insert("error.type".into(), "error".into());
    broken.insert("hook.failure.policy".into(), "deny".into());
    let transform = |hook: &str, result: &str| {
        map([
            ("hook.point", "session_start"),
            ("hook.name", hook),
            ("hook.kind", "transform"),
            ("hook.source", "runtime"),
            ("hook.result", result),
            ("session.id", "s1"),
        ])
    };
    let mut explode = transform("explode", "failed");
    explode.insert("error.type".into(), "panic".into());
    explode.insert("hook.failure.policy".into(), "continue".into());
    let fallback = map([
        ("hook.point", "error_occurred"),
        ("hook.name", "fallback"),
        ("hook.kind", "recover"),
        ("hook.source", "runtime"),
        ("hook.result", "fallback"),
        ("hook.fallback_model", "small-model"),
        ("session.id", "s1"),
    ]);
    let expected = vec![
        // rm: allowed, then denied; the chain stops (no `broken`, no `never`).
        (
            "pre_tool_use a_allow".to_owned(),
            guard("a_allow", "allow"),
            Status::Unset,
        ),
        ("pre_tool_use deny_rm".to_owned(), deny, Status::Unset),
        // Write: `broken` fails closed; the chain stops (no `never`).
        (
            "pre_tool_use a_allow".to_owned(),
            guard("a_allow", "allow"),
            Status::Unset,
        ),
        (
            "pre_tool_use deny_rm".to_owned(),
            guard("deny_rm", "continue"),
            Status::Unset,
        ),
        (
            "pre_tool_use broken".to_owned(),
            broken,
            Status::error("returned an error: policy store unreachable"),
        ),
        (
            "session_start add_charter".to_owned(),
            transform("add_charter", "done"),
            Status::Unset,
        ),
        (
            "session_start explode".to_owned(),
            explode,
            Status::error("panicked: boom"),
        ),
        (
            "error_occurred fallback".to_owned(),
            fallback,
            Status::Unset,
        ),
    ];
    assert_eq!(got, expected);
    for s in &spans {
        assert_eq!(s.span_kind, opentelemetry::trace::SpanKind::Internal);
        assert!(s.start_time <= s.end_time);
        assert_eq!(s.instrumentation_scope.name(), "hookrail-telemetry");
    }
}

#[test]
fn counters_split_runs_denials_and_failures_by_point_and_hook() {
    let h = harness();
    let hooks = scenario_hooks();
    let _attached = h.telemetry.attach(&hooks);
    run_scenario(&hooks);
    let (_, metrics) = h.flush();

    let runs = BTreeMap::from([
        (hook_attrs("pre_tool_use", "a_allow", "guard"), 2),
        (hook_attrs("pre_tool_use", "deny_rm", "guard"), 2),
        (hook_attrs("pre_tool_use", "broken", "guard"), 1),
        (hook_attrs("session_start", "add_charter", "transform"), 1),
        (hook_attrs("session_start", "explode", "transform"), 1),
        (hook_attrs("error_occurred", "fallback", "recover"), 1),
    ]);
    assert_eq!(counter(&metrics, "hook.runs"), runs);
    // Only the deny verdict: `broken` failing closed is a failure, not a denial.
    assert_eq!(
        counter(&metrics, "hook.denials"),
        BTreeMap::from([(hook_attrs("pre_tool_use", "deny_rm", "guard"), 1)])
    );
    let failure = |point, hook, kind, error_type, policy| {
        let mut a = hook_attrs(point, hook, kind);
        a.insert("error.type".into(), error_type);
        a.insert("hook.failure.policy".into(), policy);
        a
    };
    assert_eq!(
        counter(&metrics, "hook.failures"),
        BTreeMap::from([
            (
                failure(
                    "pre_tool_use",
                    "broken",
                    "guard",
                    "error".into(),
                    "deny".into()
                ),
                1
            ),
            (
                failure(
                    "session_start",
                    "explode",
                    "transform",
                    "panic".into(),
                    "continue".into()
                ),
                1
            ),
        ])
    );
    let units: BTreeMap<&str, &str> = metrics
        .scope_metrics()
        .flat_map(|s| s.metrics())
        .map(|m| (m.name(), m.unit()))
        .collect();
    assert_eq!(
        units,
        BTreeMap::from([
            ("hook.denials", "{denial}"),
            ("hook.failures", "{failure}"),
            ("hook.run.duration", "s"),
            ("hook.runs", "{run}"),
        ])
    );
}

#[test]
fn duration_histogram_matches_the_spans_in_seconds() {
    let h = harness();
    let hooks = scenario_hooks();
    let _attached = h.telemetry.attach(&hooks);
    run_scenario(&hooks);
    let (spans, metrics) = h.flush();

    // Per series: every span's duration (end - start = the run's duration), in seconds.
    let mut from_spans: BTreeMap<BTreeMap<String, String>, Vec<f64>> = BTreeMap::new();
    for s in &spans {
        let a = attrs(&s.attributes);
        let key = hook_attrs(&a["hook.point"], &a["hook.name"], &a["hook.kind"]);
        let d = s.end_time.duration_since(s.start_time).unwrap();
        from_spans.entry(key).or_default().push(d.as_secs_f64());
    }

    let histogram = metrics
        .scope_metrics()
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == "hook.run.duration")
        .expect("no duration histogram");
    let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = histogram.data() else {
        panic!("not an f64 histogram: {:?}", histogram.data());
    };
    let mut series = 0;
    for p in histogram.data_points() {
        series += 1;
        let durations = &from_spans[&attrs(p.attributes())];
        assert_eq!(p.count(), durations.len() as u64);
        assert_eq!(p.sum(), durations.iter().sum::<f64>());
        assert_eq!(
            p.bucket_counts().sum::<u64>(),
            p.count(),
            "every run in a bucket"
        );
        assert_eq!(
            p.bounds().collect::<Vec<_>>(),
            [
                0.000_01, 0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                2.5, 5.0, 10.0, 30.0
            ]
        );
    }
    assert_eq!(series, from_spans.len());
    assert_eq!(series, 6);
}

#[test]
fn detaching_stops_recording_and_drop_detaches() {
    let h = harness();
    let hooks = scenario_hooks();

    let attached = h.telemetry.attach(&hooks);
    hooks.dispatch::<pre_tool_use::Point>(&mut bash("ls"));
    assert!(attached.detach());
    hooks.dispatch::<pre_tool_use::Point>(&mut bash("ls"));
    {
        let _attached = h.telemetry.attach(&hooks);
        hooks.dispatch::<error_occurred::Point>(&mut ErrorOccurred::new(
            Meta::new("s1"),
            ErrorKind::Network,
            "reset",
        ));
    }
    hooks.dispatch::<pre_tool_use::Point>(&mut bash("ls"));

    let (spans, metrics) = h.flush();
    let names: Vec<_> = spans.iter().map(|s| s.name.to_string()).collect();
    // ls: a_allow, deny_rm (continue), broken (continue), never; then only `fallback`.
    assert_eq!(
        names,
        [
            "pre_tool_use a_allow",
            "pre_tool_use deny_rm",
            "pre_tool_use broken",
            "pre_tool_use never",
            "error_occurred fallback",
        ]
    );
    assert_eq!(
        counter(&metrics, "hook.runs")[&hook_attrs("pre_tool_use", "never", "guard")],
        1
    );
}

#[test]
fn one_telemetry_serves_several_hook_sets() {
    let h = harness();
    let acme = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("acme_policy", |_ctx| {
            Verdict::deny("acme")
        }))
        .build()
        .unwrap();
    let globex = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("globex_policy", |_ctx| {
            Verdict::Allow
        }))
        .build()
        .unwrap();
    let _a = h.telemetry.attach(&acme);
    let _g = h.telemetry.clone().attach(&globex);
    acme.dispatch::<pre_tool_use::Point>(&mut bash("ls"));
    globex.dispatch::<pre_tool_use::Point>(&mut bash("ls"));
    globex.dispatch::<pre_tool_use::Point>(&mut bash("ls"));

    let (_, metrics) = h.flush();
    assert_eq!(
        counter(&metrics, "hook.runs"),
        BTreeMap::from([
            (hook_attrs("pre_tool_use", "acme_policy", "guard"), 1),
            (hook_attrs("pre_tool_use", "globex_policy", "guard"), 2),
        ])
    );
    assert_eq!(
        counter(&metrics, "hook.denials"),
        BTreeMap::from([(hook_attrs("pre_tool_use", "acme_policy", "guard"), 1)])
    );
}

#[test]
fn hook_spans_are_children_of_the_current_otel_context() {
    let h = harness();
    let hooks = scenario_hooks();
    let _attached = h.telemetry.attach(&hooks);

    let tracer = opentelemetry::trace::TracerProvider::tracer(&h.tracer_provider, "agent");
    let turn = tracer.start("agent turn");
    let turn_context = turn.span_context().clone();
    {
        let _guard = Context::current_with_span(turn).attach();
        hooks.dispatch::<pre_tool_use::Point>(&mut bash("rm x"));
    }
    hooks.dispatch::<error_occurred::Point>(&mut ErrorOccurred::new(
        Meta::new("s1"),
        ErrorKind::Tool,
        "exit 1",
    ));
    // The parent span ended when the guard above dropped the context holding it.

    let (spans, _) = h.flush();
    let hook_spans: Vec<_> = spans
        .iter()
        .filter(|s| s.name != "agent turn")
        .map(|s| {
            (
                s.name.to_string(),
                s.span_context.trace_id(),
                s.parent_span_id,
            )
        })
        .collect();
    assert_eq!(
        hook_spans,
        [
            (
                "pre_tool_use a_allow".to_owned(),
                turn_context.trace_id(),
                turn_context.span_id()
            ),
            (
                "pre_tool_use deny_rm".to_owned(),
                turn_context.trace_id(),
                turn_context.span_id()
            ),
            (
                "error_occurred fallback".to_owned(),
                hook_spans[2].1,
                opentelemetry::trace::SpanId::INVALID
            ),
        ]
    );
    assert_ne!(hook_spans[2].1, turn_context.trace_id());
}

#[test]
fn shutdown_flushes_but_leaves_supplied_providers_running() {
    let h = harness();
    let hooks = scenario_hooks();
    let _attached = h.telemetry.attach(&hooks);
    hooks.dispatch::<pre_tool_use::Point>(&mut bash("rm -rf /"));
    h.telemetry.shutdown().unwrap();
    assert!(!h.spans.is_shutdown_called(), "the caller's provider");
    // Still recording: the providers were only flushed.
    hooks.dispatch::<pre_tool_use::Point>(&mut bash("rm -rf /"));
    let (spans, metrics) = h.flush();
    assert_eq!(spans.len(), 4);
    assert_eq!(
        counter(&metrics, "hook.denials")[&hook_attrs("pre_tool_use", "deny_rm", "guard")],
        2
    );
}
