//! Hook runs as OpenTelemetry spans and metrics, exported over OTLP (feature `otel`).
//!
//! A [`Telemetry`] subscribes to a [`Hooks`] value ([`Telemetry::attach`]) and turns every
//! [`HookRun`] into one span and a few metric points. By default it exports them over
//! OTLP/HTTP (protobuf) to a collector, with `service.name` and `service.instance.id` on the
//! resource so that a fleet of agent processes lands on one dashboard.
//!
//! ```no_run
//! use hookrail_core::runtime::Hooks;
//! use hookrail_telemetry::otel::Telemetry;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hooks = Hooks::new();
//! let telemetry = Telemetry::builder()
//!     .service_name("review-bot")
//!     .resource_attribute("deployment.environment.name", "staging")
//!     .endpoint("http://otel-collector:4318")
//!     .build()?;
//! let _attached = telemetry.attach(&hooks); // detaches when dropped
//!
//! // … run the agent: every hook run becomes a span and metric points …
//!
//! telemetry.shutdown()?; // export what is left before the process exits
//! # Ok(())
//! # }
//! ```
//!
//! # Spans
//!
//! One span per hook run, named `{point} {hook}` (`pre_tool_use no_rm`), of kind `internal`.
//! It starts when the hook started (the end minus the run's duration) and ends when the
//! subscriber sees the run. Its parent is the OpenTelemetry context current on the dispatching
//! thread ([`opentelemetry::Context::current`]), so hook spans nest under the agent's own
//! spans when it uses the OpenTelemetry API; otherwise each run is a root span.
//!
//! | attribute | value |
//! |---|---|
//! | `hook.point` | the point: `pre_tool_use` |
//! | `hook.name` | the hook: `no_rm` |
//! | `hook.kind` | `guard`, `transform`, `observe` or `recover` |
//! | `hook.source` | `static` (a `#[hook]` fn), `provider` or `runtime` |
//! | `hook.result` | `continue`, `allow`, `ask`, `deny` (guards); `retry`, `fallback`, `give_up`, `no_recovery` (recoverers); `done` (transforms, observers); `failed` |
//! | `hook.reason` | the reason of an `ask` or `deny`, or of a `give_up` |
//! | `hook.fallback_model` | the model of a `fallback` |
//! | `session.id` | the agent session (standard points; on spans only, not on metrics, whose series it would multiply) |
//! | `error.type` | failures only: `panic`, `error`, `timeout`, `async_in_sync_dispatch` |
//! | `hook.failure.policy` | failures only: `deny` (failed closed) or `continue` (failed open) |
//!
//! A failed run has status `Error` with the cause as description (`panicked: …`,
//! `returned an error: …`, `timed out after …`). A deny verdict is a policy decision, not an
//! error: its span status stays unset. Likewise a guard that fails closed makes the dispatch
//! deny, but it is counted as a failure (with `hook.failure.policy = deny`), never as a denial.
//!
//! # Metrics
//!
//! Instrumentation scope `hookrail-telemetry`. Every instrument has the attributes `hook.point`,
//! `hook.name` and `hook.kind` (bounded: hooks are named in code or configuration).
//!
//! | instrument | kind | unit | counts |
//! |---|---|---|---|
//! | `hook.runs` | counter | `{run}` | every hook run |
//! | `hook.denials` | counter | `{denial}` | deny verdicts returned by guards |
//! | `hook.failures` | counter | `{failure}` | panics, errors and timeouts; also `error.type` and `hook.failure.policy` |
//! | `hook.run.duration` | histogram | `s` | how long each hook ran; buckets from 10 µs to 30 s |
//!
//! Temporality is cumulative unless `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` says
//! otherwise.
//!
//! # Resource
//!
//! With the providers this module builds, the resource is, from lowest to highest precedence:
//!
//! 1. this process's defaults: `service.instance.id = {host name}-{pid}` (unique per running
//!    process, stable for its lifetime, and readable on a dashboard; in Kubernetes the host
//!    name is the pod name), `host.name` and `process.pid`;
//! 2. the environment, through the SDK's detectors: `OTEL_SERVICE_NAME`,
//!    `OTEL_RESOURCE_ATTRIBUTES`, and `telemetry.sdk.*` (`service.name` falls back to
//!    `unknown_service`: set it);
//! 3. the builder: [`service_name`](TelemetryBuilder::service_name),
//!    [`service_instance_id`](TelemetryBuilder::service_instance_id),
//!    [`resource_attribute`](TelemetryBuilder::resource_attribute).
//!
//! # Export
//!
//! Spans go through the SDK's batch span processor and metrics through its periodic reader
//! (every 60 s, or `OTEL_METRIC_EXPORT_INTERVAL` ms). Both run on their own threads and use a
//! blocking HTTP client (reqwest with rustls), so an application needs no particular async
//! runtime, and the agent's thread never waits on the network: the subscriber only records
//! into memory, and when the span queue is full (2048 spans, `OTEL_BSP_MAX_QUEUE_SIZE`) new
//! spans are dropped rather than blocking the agent. The protocol is always
//! `http/protobuf`; `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT` and the
//! per-signal variables apply as in the `opentelemetry-otlp` crate. Export failures are
//! logged by the SDK through `tracing`, and returned by [`Telemetry::force_flush`] and
//! [`Telemetry::shutdown`].
//!
//! # Dropping blocks
//!
//! Dropping the last clone of a [`Telemetry`] shuts down the providers it built, and that
//! *blocks the dropping thread* while they flush (up to the exporters' timeouts). The last
//! clone is not always one you hold: the subscriber that [`Telemetry::attach`] installs in a
//! [`Hooks`] value holds one too, so the blocking shutdown can happen inside
//! `Attachment::drop` (which removes that subscriber), or when a `Hooks` value (its last
//! clone) is dropped. From async
//! code, call [`Telemetry::shutdown`] yourself inside
//! [`spawn_blocking`](https://docs.rs/tokio/latest/tokio/task/fn.spawn_blocking.html) before
//! the last clone goes away; a later drop then has nothing left to flush.
//!
//! # Bringing your own providers
//!
//! An application that already configures OpenTelemetry passes its providers to
//! [`TelemetryBuilder::tracer_provider`] and [`TelemetryBuilder::meter_provider`] (either or
//! both); so do tests, with the SDK's in-memory exporters. Such a provider keeps its own
//! resource, exporter and processor (a simple span processor exports on the dispatching
//! thread: use a batch one in production), and its lifecycle stays with the caller:
//! [`Telemetry::shutdown`] flushes it but does not shut it down.
//!
//! ```
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::Verdict;
//! use hookrail_telemetry::otel::Telemetry;
//! use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
//! use opentelemetry_sdk::metrics::InMemoryMetricExporter;
//! use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spans = InMemorySpanExporter::default();
//! let telemetry = Telemetry::builder()
//!     .tracer_provider(SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build())
//!     .meter_provider(
//!         SdkMeterProvider::builder()
//!             .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
//!             .build(),
//!     )
//!     .build()?;
//!
//! let hooks = Hooks::builder()
//!     .ignore_env()
//!     .hook(Hook::<pre_tool_use::Point>::new("no_rm", |ctx| {
//!         if ctx.command().is_some_and(|c| c.starts_with("rm ")) {
//!             Verdict::deny("no rm")
//!         } else {
//!             Verdict::Continue
//!         }
//!     }))
//!     .build()?;
//! let attached = telemetry.attach(&hooks);
//!
//! let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({"command": "rm -rf /"}));
//! assert!(hooks.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//!
//! telemetry.force_flush()?;
//! let spans = spans.get_finished_spans()?;
//! assert_eq!(spans.len(), 1);
//! assert_eq!(spans[0].name, "pre_tool_use no_rm");
//!
//! attached.detach();
//! # Ok(())
//! # }
//! ```

mod builder;
mod error;
mod record;

pub use builder::TelemetryBuilder;
pub use error::{BuildError, FlushError};

use std::fmt;
use std::sync::Arc;

use hookrail_core::runtime::{HookRun, Hooks, SubscriptionId};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use record::Recorder;

/// Turns hook runs into OpenTelemetry spans and metrics. Cheap to clone (clones share the
/// providers and instruments); attach one value to as many [`Hooks`] values as needed.
///
/// See the [module docs](self).
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    recorder: Recorder,
    tracer_provider: SdkTracerProvider,
    owns_tracer_provider: bool,
    meter_provider: SdkMeterProvider,
    owns_meter_provider: bool,
}

impl Telemetry {
    /// Start building: by default, OTLP/HTTP export to the endpoint of the environment (or
    /// `http://localhost:4318`), with the resource described in the [module docs](self).
    pub fn builder() -> TelemetryBuilder {
        TelemetryBuilder::new()
    }

    fn from_parts(
        tracer_provider: SdkTracerProvider,
        owns_tracer_provider: bool,
        meter_provider: SdkMeterProvider,
        owns_meter_provider: bool,
    ) -> Telemetry {
        let tracer = tracer_provider.tracer_with_scope(record::scope());
        let meter = meter_provider.meter_with_scope(record::scope());
        Telemetry {
            inner: Arc::new(Inner {
                recorder: Recorder::new(tracer, &meter),
                tracer_provider,
                owns_tracer_provider,
                meter_provider,
                owns_meter_provider,
            }),
        }
    }

    /// Subscribe to every hook run of `hooks` ([`Hooks::subscribe`]). The returned
    /// [`Attachment`] unsubscribes when dropped or [detached](Attachment::detach).
    pub fn attach(&self, hooks: &Hooks) -> Attachment {
        let inner = Arc::clone(&self.inner);
        let id = hooks.subscribe(move |run| inner.recorder.record(run));
        tracing::debug!(subscription = ?id, "hook telemetry attached");
        Attachment {
            hooks: hooks.clone(),
            id: Some(id),
        }
    }

    /// Record one hook run: what the subscriber installed by [`attach`](Self::attach) calls.
    /// For a subscription of your own, for instance to one point only with
    /// [`Hooks::subscribe_to`].
    pub fn record(&self, run: &HookRun<'_>) {
        self.inner.recorder.record(run);
    }

    /// Export every span and metric recorded so far, and wait until the exporters are done.
    /// This blocks the calling thread (up to the exporters' timeouts): in async code, call it
    /// from [`spawn_blocking`](https://docs.rs/tokio/latest/tokio/task/fn.spawn_blocking.html).
    ///
    /// # Errors
    ///
    /// [`FlushError`] with what the tracer provider, the meter provider or both reported; the
    /// other one was flushed all the same.
    pub fn force_flush(&self) -> Result<(), FlushError> {
        FlushError::check(
            self.inner.tracer_provider.force_flush(),
            self.inner.meter_provider.force_flush(),
        )
    }

    /// Export what is left and stop the providers this value built (their background threads
    /// end; later runs are no longer recorded). Providers supplied to the builder are flushed,
    /// not shut down: they belong to the caller. Blocks like [`force_flush`](Self::force_flush).
    ///
    /// Dropping the last clone of a `Telemetry` (and its [`Attachment`]s) also shuts down the
    /// providers it built, but reports nothing, and blocks whichever thread drops it (possibly
    /// inside `Attachment::drop` or when a [`Hooks`] value is dropped; see
    /// [Dropping blocks](self#dropping-blocks)): call this before the process exits, from
    /// async code inside `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// [`FlushError`] as for [`force_flush`](Self::force_flush); shutting down twice reports
    /// `AlreadyShutdown`.
    pub fn shutdown(&self) -> Result<(), FlushError> {
        let inner = &self.inner;
        let traces = if inner.owns_tracer_provider {
            inner.tracer_provider.shutdown()
        } else {
            inner.tracer_provider.force_flush()
        };
        let metrics = if inner.owns_meter_provider {
            inner.meter_provider.shutdown()
        } else {
            inner.meter_provider.force_flush()
        };
        let result = FlushError::check(traces, metrics);
        tracing::debug!(ok = result.is_ok(), "hook telemetry shut down");
        result
    }

    /// The tracer provider hook spans are recorded with (the one built, or the one supplied),
    /// for instance to record the agent's own spans with the same resource and exporter.
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.inner.tracer_provider
    }

    /// The meter provider hook metrics are recorded with.
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.inner.meter_provider
    }
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry")
            .field("owns_tracer_provider", &self.inner.owns_tracer_provider)
            .field("owns_meter_provider", &self.inner.owns_meter_provider)
            .finish_non_exhaustive()
    }
}

/// A [`Telemetry`] subscribed to a [`Hooks`] value, from [`Telemetry::attach`]. Dropping it
/// unsubscribes; to keep the subscription for the life of the process, keep it (or
/// [`std::mem::forget`] it).
#[must_use = "dropping an Attachment unsubscribes at once"]
pub struct Attachment {
    hooks: Hooks,
    id: Option<SubscriptionId>,
}

impl Attachment {
    /// Unsubscribe now. Returns false if the subscription was already gone (removed with
    /// [`Hooks::unsubscribe`]). Runs already delivered stay recorded.
    pub fn detach(mut self) -> bool {
        self.unsubscribe()
    }

    fn unsubscribe(&mut self) -> bool {
        let Some(id) = self.id.take() else {
            return false;
        };
        let removed = self.hooks.unsubscribe(id);
        tracing::debug!(subscription = ?id, removed, "hook telemetry detached");
        removed
    }
}

impl Drop for Attachment {
    fn drop(&mut self) {
        self.unsubscribe();
    }
}

impl fmt::Debug for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attachment")
            .field("subscription", &self.id)
            .finish_non_exhaustive()
    }
}
