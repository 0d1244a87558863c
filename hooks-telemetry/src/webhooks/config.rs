//! Per-endpoint configuration.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::sender::redact_str;
use crate::signature::Secret;

/// One webhook endpoint: where to POST, how to sign, which events, and how hard to try.
///
/// Built in code with chained setters; every setting but the URL has a default. Its `Debug`
/// shows neither the secret nor the URL's credentials, query or fragment.
///
/// ```
/// use std::time::Duration;
/// use hookrail_telemetry::signature::Secret;
/// use hookrail_telemetry::webhooks::Webhook;
///
/// let hook = Webhook::new("https://siem.example/api/events")
///     .secret(Secret::new("s3cr3t").expect("not empty"))
///     .events(["pre_tool_use", "error_occurred"])
///     .timeout(Duration::from_secs(2))
///     .max_retries(5);
/// assert!(hook.receives("pre_tool_use"));
/// assert!(!hook.receives("step_end"));
/// // The secret never shows.
/// assert!(!format!("{hook:?}").contains("s3cr3t"));
/// ```
#[derive(Clone)]
pub struct Webhook {
    pub(crate) url: String,
    pub(crate) secret: Option<Secret>,
    pub(crate) events: Vec<String>,
    pub(crate) timeout: Duration,
    pub(crate) max_retries: u32,
    pub(crate) backoff_base: Duration,
    pub(crate) backoff_cap: Duration,
    pub(crate) queue_capacity: usize,
}

impl Webhook {
    /// Default per-attempt timeout: 5 s.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
    /// Default number of retries after the first attempt: 3.
    pub const DEFAULT_MAX_RETRIES: u32 = 3;
    /// Default first backoff delay: 500 ms.
    pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_millis(500);
    /// Default longest backoff delay: 30 s.
    pub const DEFAULT_BACKOFF_CAP: Duration = Duration::from_secs(30);
    /// Default queue capacity, in events: 1024.
    pub const DEFAULT_QUEUE_CAPACITY: usize = 1024;

    /// An endpoint receiving every event, unsigned, with the default settings.
    ///
    /// The URL is checked (`http` or `https`) when the [`Webhooks`](super::Webhooks) sender is
    /// built.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            secret: None,
            events: Vec::new(),
            timeout: Self::DEFAULT_TIMEOUT,
            max_retries: Self::DEFAULT_MAX_RETRIES,
            backoff_base: Self::DEFAULT_BACKOFF_BASE,
            backoff_cap: Self::DEFAULT_BACKOFF_CAP,
            queue_capacity: Self::DEFAULT_QUEUE_CAPACITY,
        }
    }

    /// Sign deliveries with `secret` (`X-Signature`, see [`crate::signature`]). Without a
    /// secret, deliveries carry `X-Timestamp` but no `X-Signature`.
    #[must_use]
    pub fn secret(mut self, secret: Secret) -> Self {
        self.secret = Some(secret);
        self
    }

    /// Receive this event (hook point name) too. `"*"` means every event, as does never
    /// calling `event`/`events`.
    #[must_use]
    pub fn event(mut self, name: impl Into<String>) -> Self {
        self.events.push(name.into());
        self
    }

    /// Receive these events too (see [`Webhook::event`]).
    #[must_use]
    pub fn events<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.events.extend(names.into_iter().map(Into::into));
        self
    }

    /// Timeout of one delivery attempt: connecting, sending, and reading the response.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries after the first attempt (0 = a single attempt).
    #[must_use]
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Exponential backoff between attempts: `base`, `2·base`, `4·base`, … capped at `cap`,
    /// each with jitter (the delay is drawn uniformly from its upper half).
    #[must_use]
    pub fn backoff(mut self, base: Duration, cap: Duration) -> Self {
        self.backoff_base = base;
        self.backoff_cap = cap.max(base);
        self
    }

    /// Events waiting for this endpoint at most (at least 1). When the queue is full, new
    /// events for this endpoint are dropped and counted.
    #[must_use]
    pub fn queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity.max(1);
        self
    }

    /// The configured URL, as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The event names this endpoint receives; empty means all.
    pub fn event_names(&self) -> &[String] {
        &self.events
    }

    /// Whether this endpoint receives events called `name`.
    pub fn receives(&self, name: &str) -> bool {
        self.receives_all() || self.events.iter().any(|e| e == name)
    }

    /// Whether this endpoint receives every event (no names, or `"*"`).
    pub fn receives_all(&self) -> bool {
        self.events.is_empty() || self.events.iter().any(|e| e == "*")
    }

    /// The delay before retry number `retry` (1-based), before jitter.
    pub(crate) fn backoff_for(&self, retry: u32) -> Duration {
        let factor = 1u32
            .checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.backoff_base
            .checked_mul(factor)
            .unwrap_or(self.backoff_cap)
            .min(self.backoff_cap)
    }
}

impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhook")
            .field("url", &redact_str(&self.url))
            .field("secret", &self.secret)
            .field("events", &self.events)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("backoff_cap", &self.backoff_cap)
            .field("queue_capacity", &self.queue_capacity)
            .finish()
    }
}

/// Who sends: the optional `"source"` object of every envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The service, e.g. `"ci-bot"`.
    pub service: String,
    /// This process among the service's instances, e.g. a host name or pod id.
    pub instance: String,
}

impl Source {
    /// A source from a service name and an instance name.
    pub fn new(service: impl Into<String>, instance: impl Into<String>) -> Self {
        Self {
            service: service.into(),
            instance: instance.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let hook = Webhook::new("http://127.0.0.1:1/")
            .backoff(Duration::from_millis(100), Duration::from_millis(1000));
        let delays: Vec<_> = (1..=6).map(|n| hook.backoff_for(n).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
        // No overflow far out.
        assert_eq!(hook.backoff_for(u32::MAX), Duration::from_millis(1000));
    }

    #[test]
    fn event_routing() {
        let all = Webhook::new("http://x/");
        assert!(all.receives("anything"));
        let star = Webhook::new("http://x/").event("*");
        assert!(star.receives("anything"));
        let some = Webhook::new("http://x/").events(["a", "b"]);
        assert!(some.receives("a") && some.receives("b") && !some.receives("c"));
    }
}
