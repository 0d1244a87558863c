//! Signed outbound webhooks (feature `webhooks`).
//!
//! Configure one [`Webhook`] per endpoint (URL, [`Secret`](crate::signature::Secret), event
//! names, timeout, retries, queue size), start a [`Webhooks`] sender, and feed it events:
//! attach it to the event bus of a [`Hooks`](hookrail_core::runtime::Hooks) value
//! ([`Webhooks::attach`]), or hand it events yourself ([`Webhooks::enqueue`]). Receivers check
//! deliveries with [`signature::Verifier`](crate::signature::Verifier).
//!
//! ```no_run
//! use hookrail_core::runtime::Hooks;
//! use hookrail_telemetry::signature::Secret;
//! use hookrail_telemetry::webhooks::{Source, Webhook, Webhooks};
//! use std::time::Duration;
//!
//! let hooks = Hooks::builder().build()?;
//! let webhooks = Webhooks::builder()
//!     .endpoint(
//!         Webhook::new("https://siem.example/api/events")
//!             .secret(Secret::expand("${WEBHOOK_SECRET}")?)
//!             .events(["pre_tool_use", "error_occurred"]),
//!     )
//!     .source(Source::new("ci-bot", "runner-3"))
//!     .build()?;
//! assert!(webhooks.attach(hooks.bus()));
//! // ... run the agent: every pre_tool_use and error_occurred dispatch is POSTed ...
//! let stats = webhooks.shutdown(Duration::from_secs(5));
//! println!("sent {}, failed {}, dropped {}", stats.sent, stats.failed, stats.dropped);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Delivery
//!
//! Each event becomes, per endpoint that receives it, a `POST` of a JSON envelope:
//!
//! ```json
//! {"id": "3f2a…", "event": "pre_tool_use", "timestamp": 1767225600, "seq": 42,
//!  "source": {"service": "ci-bot", "instance": "pod-7"}, "data": { … }}
//! ```
//!
//! with headers `Content-Type: application/json`, `X-Timestamp` (unix seconds, equal to the
//! envelope's `timestamp`), `X-Signature: sha256=<hex HMAC-SHA256 of the body>` (when the
//! endpoint has a secret), [`X-Hooks-Event`](EVENT_HEADER) and
//! [`X-Hooks-Delivery`](DELIVERY_HEADER) (the envelope's `id`). `source` is present only when
//! configured ([`WebhooksBuilder::source`]). See [`crate::signature`] for what the signature
//! covers and how a receiver rejects replays: it covers the body only, so a receiver reads the
//! event name and id from the verified envelope, never from the `X-Hooks-*` headers.
//!
//! - `id` is unique per event and endpoint, and the same across retries: receivers deduplicate
//!   with it. `timestamp` is the time of the attempt: every retry is signed afresh, so a
//!   retry after a long backoff still passes the receiver's freshness check.
//! - `seq` is the event's sequence number (the bus's, or a counter of the sender for
//!   [`Webhooks::enqueue`]).
//!
//! # Never blocking the agent loop
//!
//! [`Webhooks::enqueue`] is a `try_send` into each endpoint's bounded queue: it never blocks
//! and never awaits. When a queue is full (the endpoint is slow or down), the event is dropped
//! for that endpoint and counted ([`WebhookStats::dropped`]), with at most one warning per
//! endpoint every 10 s. Memory stays bounded by the queue capacities, whatever the event rate.
//!
//! Deliveries run on a dedicated thread with its own current-thread tokio runtime, started by
//! [`WebhooksBuilder::build`], whether or not the caller runs inside tokio. Each endpoint
//! delivers one event at a time, in order.
//!
//! # Retries
//!
//! | outcome | retried |
//! |---|---|
//! | 2xx | delivered |
//! | 5xx, 408 Request Timeout, 429 Too Many Requests | yes |
//! | timeout, connection refused or reset, other I/O errors | yes |
//! | any other status: 3xx (redirects are not followed), 4xx | no |
//!
//! Retries wait `base · 2^(n-1)`, capped, with jitter (the delay is drawn from the upper half),
//! up to [`Webhook::max_retries`] times; `Retry-After` is not read. A 429 is retried because
//! it says "later", not "never".
//!
//! # Secrets
//!
//! [`Secret`](crate::signature::Secret) never prints: `Debug`, `Display`, logs, errors and
//! stats show `***`, `[redacted]` or nothing. URLs in logs, stats and errors are shown without
//! credentials, query or fragment. Endpoints honour the usual `HTTP(S)_PROXY`/`NO_PROXY`
//! variables.
//!
//! # Shutting down
//!
//! [`Webhooks::shutdown`] stops taking events, drains the queues for at most a deadline, then
//! abandons the rest (counted as `failed` if in flight, `dropped` if still queued). Dropping a
//! [`Webhooks`] without `shutdown` abandons at once, with a warning that says how many
//! deliveries were abandoned.

mod attach;
mod config;
mod delivery;
mod error;
mod sender;

pub use config::{Source, Webhook};
pub use delivery::{DELIVERY_HEADER, EVENT_HEADER};
pub use error::WebhookError;
pub use sender::{EndpointStats, WebhookStats, Webhooks, WebhooksBuilder};
