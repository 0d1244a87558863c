//! Ship hook events out of the process.
//!
//! A [`hooks_core::runtime::Hooks`] value publishes every point it dispatches on its event bus
//! ([`hooks_core::bus`]) and every hook run to its subscribers. This crate sends them on:
//!
//! - **signed webhooks** (feature `webhooks`): per point, an HTTP POST of each event, signed
//!   with HMAC-SHA256, from a bounded queue that never blocks the agent loop;
//! - **OpenTelemetry** (feature `otel`): every hook run as a span and as metrics (runs,
//!   denials, failures, durations), exported over OTLP so that a fleet of agent processes
//!   lands on one dashboard.
//!
//! The `signature` module is always built: a receiver verifies webhooks with it without
//! pulling in an HTTP client.

#![warn(missing_docs)]

/// Hook runs as OpenTelemetry spans and metrics, exported over OTLP/HTTP.
///
/// [`otel::Telemetry::attach`] subscribes to a [`hooks_core::runtime::Hooks`] value: each hook
/// run becomes a span (point, hook, kind, verdict, failure) and metric points (runs, denials,
/// failures, a duration histogram), with `service.name` and `service.instance.id` on the
/// resource. Export happens on the OpenTelemetry SDK's background threads; bring your own
/// providers to share an existing OpenTelemetry setup.
#[cfg(feature = "otel")]
pub mod otel;
