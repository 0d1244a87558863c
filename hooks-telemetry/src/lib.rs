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

pub mod signature;
#[cfg(feature = "webhooks")]
pub mod webhooks;
