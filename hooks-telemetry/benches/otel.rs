//! What `otel::Telemetry` adds to a dispatch, on the agent's thread: one trivial guard at
//! `pre_tool_use`, dispatched synchronously, without and with a `Telemetry` attached.
//!
//! - `detached`: no subscriber (the hook run is still logged by `tracing`, disabled here).
//! - `attached`: every run becomes a span handed to the SDK's batch span processor (whose
//!   exporter discards it on its own thread) and four metric updates (two counters of three
//!   attributes, one histogram).
//!
//! The batch processor's queue holds 2048 spans; when the bench outruns its export thread, the
//! surplus spans are dropped (as in production under overload), which is cheaper than queueing
//! them, so the figure is a lower bound for bursts and a fair one for steady agent loops.
//!
//! Run: `cargo bench -p hookrail-telemetry --features otel --bench otel`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_telemetry::otel::Telemetry;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};

/// Discards every span (on the batch processor's thread).
#[derive(Debug)]
struct Discard;

impl SpanExporter for Discard {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        drop(black_box(batch));
        Ok(())
    }
}

fn hooks() -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("allow_all", |_ctx| {
            Verdict::Allow
        }))
        .build()
        .expect("one hook")
}

fn bench(c: &mut Criterion) {
    let mut ctx = PreToolUse::new(
        Meta::new("s1"),
        "Bash",
        serde_json::json!({ "command": "ls" }),
    );
    let mut group = c.benchmark_group("otel");

    let detached = hooks();
    group.bench_function("detached", |b| {
        b.iter(|| black_box(detached.dispatch::<pre_tool_use::Point>(&mut ctx)))
    });

    let telemetry = Telemetry::builder()
        .tracer_provider(
            SdkTracerProvider::builder()
                .with_batch_exporter(Discard)
                .build(),
        )
        .meter_provider(
            SdkMeterProvider::builder()
                .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
                .build(),
        )
        .build()
        .expect("supplied providers");
    let attached = hooks();
    let _attachment = telemetry.attach(&attached);
    group.bench_function("attached", |b| {
        b.iter(|| black_box(attached.dispatch::<pre_tool_use::Point>(&mut ctx)))
    });
    group.finish();

    let _ = telemetry.tracer_provider().shutdown();
    let _ = telemetry.meter_provider().shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
