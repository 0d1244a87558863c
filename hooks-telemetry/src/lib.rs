//! Ship hook events out of the process.
//!
//! A [`hookrail_core::runtime::Hooks`] value publishes every point it dispatches on its event bus
//! ([`hookrail_core::bus`]) and every hook run to its subscribers. This crate sends them on:
//!
//! - **signed webhooks** (feature `webhooks`): per point, an HTTP POST of each event, signed
//!   with HMAC-SHA256, from a bounded queue that never blocks the agent loop;
//! - **OpenTelemetry** (feature `otel`): every hook run as a span and as metrics (runs,
//!   denials, failures, durations), exported over OTLP so that a fleet of agent processes
//!   lands on one dashboard.
//!
//! With `webhooks`, `webhooks::Webhooks::attach` subscribes to a bus; the `webhooks` module
//! documents the envelope, the headers, retries and the queue.
//!
//! With `otel`, `otel::Telemetry::attach` subscribes to a `Hooks` value; the `otel` module
//! documents the span and metric names and attributes, the resource (`service.name`,
//! `service.instance.id`), the export threads, and how to bring your own OpenTelemetry
//! providers.
//!
//! The [`signature`] module is always built: a receiver verifies webhooks with it without
//! pulling in an HTTP client.

#![warn(missing_docs)]

#[cfg(feature = "otel")]
pub mod otel;
pub mod signature;
#[cfg(feature = "webhooks")]
pub mod webhooks;
