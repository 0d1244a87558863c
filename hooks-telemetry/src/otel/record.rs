//! One hook run to one span and a few metric points.
//!
//! This runs on the dispatching thread, after every hook: instruments are created once, the
//! attributes are `&'static str` wherever the run allows it (point, hook, kind, source, result,
//! failure kind), and spans go to the provider's span processor (a bounded queue with the
//! providers [`Telemetry`](super::Telemetry) builds).

use std::borrow::Cow;
use std::time::SystemTime;

use hookrail_core::runtime::{HookRun, RunResult};
use hookrail_core::{FailureCause, Recovery, Verdict};
use opentelemetry::metrics::{Counter, Histogram, Meter};
use opentelemetry::trace::{Span as _, SpanKind, Status, Tracer as _};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;

/// Attribute keys (documented in the module docs' tables; renaming one breaks dashboards).
pub(super) mod key {
    pub const POINT: &str = "hook.point";
    pub const NAME: &str = "hook.name";
    pub const KIND: &str = "hook.kind";
    pub const SOURCE: &str = "hook.source";
    pub const RESULT: &str = "hook.result";
    pub const REASON: &str = "hook.reason";
    pub const FALLBACK_MODEL: &str = "hook.fallback_model";
    pub const FAILURE_POLICY: &str = "hook.failure.policy";
    pub const ERROR_TYPE: &str = "error.type";
    /// OpenTelemetry's semantic convention for a session.
    pub const SESSION_ID: &str = "session.id";
}

/// Metric names and units.
pub(super) mod metric {
    pub const RUNS: &str = "hook.runs";
    pub const DENIALS: &str = "hook.denials";
    pub const FAILURES: &str = "hook.failures";
    pub const DURATION: &str = "hook.run.duration";
}

/// Bucket boundaries of the duration histogram, in seconds: from 10 µs (a sync fn hook) to
/// 30 s (a slow command or HTTP hook).
pub(super) const DURATION_BOUNDARIES: [f64; 16] = [
    0.000_01, 0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
    10.0, 30.0,
];

/// The instrumentation scope of every span and metric this module produces.
pub(super) fn scope() -> InstrumentationScope {
    InstrumentationScope::builder(env!("CARGO_PKG_NAME"))
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// The tracer and the instruments, created once.
pub(super) struct Recorder {
    tracer: SdkTracer,
    runs: Counter<u64>,
    denials: Counter<u64>,
    failures: Counter<u64>,
    duration: Histogram<f64>,
}

impl Recorder {
    pub(super) fn new(tracer: SdkTracer, meter: &Meter) -> Recorder {
        Recorder {
            tracer,
            runs: meter
                .u64_counter(metric::RUNS)
                .with_unit("{run}")
                .with_description("Hook runs, by point and hook")
                .build(),
            denials: meter
                .u64_counter(metric::DENIALS)
                .with_unit("{denial}")
                .with_description("Deny verdicts returned by guard hooks (not failures)")
                .build(),
            failures: meter
                .u64_counter(metric::FAILURES)
                .with_unit("{failure}")
                .with_description("Hook runs that panicked, returned an error or timed out")
                .build(),
            duration: meter
                .f64_histogram(metric::DURATION)
                .with_unit("s")
                .with_description("How long each hook ran")
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
        }
    }

    pub(super) fn record(&self, run: &HookRun<'_>) {
        let end = SystemTime::now();
        let start = end.checked_sub(run.duration).unwrap_or(end);
        let common = [
            KeyValue::new(key::POINT, run.point),
            KeyValue::new(key::NAME, run.hook.as_str()),
            KeyValue::new(key::KIND, run.kind.as_str()),
        ];
        self.runs.add(1, &common);
        self.duration.record(run.duration.as_secs_f64(), &common);

        let mut attributes = Vec::with_capacity(8);
        attributes.extend_from_slice(&common);
        attributes.push(KeyValue::new(key::SOURCE, run.source.as_str()));
        attributes.push(KeyValue::new(key::RESULT, result(&run.result)));
        // Spans only: a session id per metric series would be unbounded cardinality.
        if let Some(meta) = hookrail_core::context::meta_of(run.context) {
            attributes.push(KeyValue::new(
                key::SESSION_ID,
                opentelemetry::StringValue::from(meta.session_id.clone()),
            ));
        }
        let mut status = None;
        match run.result {
            RunResult::Verdict(verdict) => {
                if let Some(reason) = verdict.reason() {
                    attributes.push(KeyValue::new(key::REASON, reason.to_owned()));
                }
                if verdict.is_deny() {
                    self.denials.add(1, &common);
                }
            }
            RunResult::Recovery(Some(Recovery::GiveUp { reason })) => {
                attributes.push(KeyValue::new(key::REASON, reason.clone()));
            }
            RunResult::Recovery(Some(Recovery::Fallback { model, .. })) => {
                attributes.push(KeyValue::new(key::FALLBACK_MODEL, model.clone()));
            }
            RunResult::Recovery(_) | RunResult::Done => {}
            RunResult::Failed { cause, policy } => {
                let failure = [
                    common[0].clone(),
                    common[1].clone(),
                    common[2].clone(),
                    KeyValue::new(key::ERROR_TYPE, error_type(cause)),
                    KeyValue::new(key::FAILURE_POLICY, policy.as_str()),
                ];
                self.failures.add(1, &failure);
                attributes.extend_from_slice(&failure[3..]);
                status = Some(Status::error(cause.to_string()));
            }
        }

        let name = Cow::Owned(format!("{} {}", run.point, run.hook));
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Internal)
            .with_start_time(start)
            .with_attributes(attributes)
            .start(&self.tracer);
        if let Some(status) = status {
            span.set_status(status);
        }
        span.end_with_timestamp(end);
    }
}

/// The `hook.result` attribute: what the hook returned, in one lowercase word.
fn result(result: &RunResult<'_>) -> &'static str {
    match result {
        RunResult::Verdict(Verdict::Continue) => "continue",
        RunResult::Verdict(Verdict::Allow) => "allow",
        RunResult::Verdict(Verdict::Ask(_)) => "ask",
        RunResult::Verdict(Verdict::Deny(_)) => "deny",
        RunResult::Recovery(None) => "no_recovery",
        RunResult::Recovery(Some(Recovery::Retry { .. })) => "retry",
        RunResult::Recovery(Some(Recovery::Fallback { .. })) => "fallback",
        RunResult::Recovery(Some(Recovery::GiveUp { .. })) => "give_up",
        RunResult::Done => "done",
        RunResult::Failed { .. } => "failed",
    }
}

/// The `error.type` attribute of a failure.
fn error_type(cause: &FailureCause) -> &'static str {
    match cause {
        FailureCause::Panic(_) => "panic",
        FailureCause::Error(_) => "error",
        FailureCause::Timeout(_) => "timeout",
        FailureCause::AsyncInSyncDispatch => "async_in_sync_dispatch",
        // A cause added to hookrail-core later.
        _ => "_OTHER",
    }
}
