//! The policy's settings and what it reports: alerts and a breaker's state.

use super::*;

/// How the backoff is randomized.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// A random duration from zero to the exponential cap ("full jitter").
    #[default]
    Full,
    /// A random duration from the base to three times the previous backoff, capped
    /// ("decorrelated jitter").
    Decorrelated,
    /// The exponential cap itself.
    None,
}

/// What the circuit breaker counts consecutive failures of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerScope {
    /// Each session (`meta.session_id`) on its own.
    #[default]
    Session,
    /// Each model (`model` of the error), across all sessions; tool errors are not counted.
    Model,
}

impl BreakerScope {
    /// `session` or `model`.
    pub const fn as_str(self) -> &'static str {
        match self {
            BreakerScope::Session => "session",
            BreakerScope::Model => "model",
        }
    }
}

/// Settings of [`Resilience`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResilienceConfig {
    /// Calls per operation, the first included: the failure of the last one gives up. At least
    /// 1. Default 4.
    pub max_attempts: u32,
    /// The first backoff's cap, in milliseconds; from 1 to `max_backoff_ms`. Default 500.
    pub base_backoff_ms: u64,
    /// The largest backoff, in milliseconds; at most one day. Default 30 000.
    pub max_backoff_ms: u64,
    /// How backoffs are randomized. Default `full`.
    pub jitter: Jitter,
    /// The fallback chain for model errors, in order. Default empty.
    pub fallback: Vec<String>,
    /// Fallback chains by the model an operation started with, replacing `fallback` for it.
    /// Default empty.
    pub fallbacks: BTreeMap<String, Vec<String>>,
    /// Consecutive failures that open the circuit; at least 1. Default 5.
    pub breaker_failures: u32,
    /// What the breaker counts failures of. Default `session`.
    pub breaker_scope: BreakerScope,
    /// How long an open circuit waits before letting a trial call through, in milliseconds;
    /// at most one day; 0 keeps it open until [`Resilience::reset`] or the session's end.
    /// Default 60 000.
    pub breaker_cooldown_ms: u64,
    /// Sessions' operations and breakers tracked at once, each; at least 1. Default 10 000.
    pub max_tracked: usize,
}

impl Default for ResilienceConfig {
    fn default() -> Self {
        ResilienceConfig {
            max_attempts: 4,
            base_backoff_ms: 500,
            max_backoff_ms: 30_000,
            jitter: Jitter::Full,
            fallback: Vec::new(),
            fallbacks: BTreeMap::new(),
            breaker_failures: 5,
            breaker_scope: BreakerScope::Session,
            breaker_cooldown_ms: 60_000,
            max_tracked: 10_000,
        }
    }
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AlertKind {
    /// A circuit breaker opened: repeated failures, the agent gave up.
    CircuitOpen,
}

impl AlertKind {
    /// The stable name, as in the `alert` field of the tracing event: `circuit_open`.
    pub const fn as_str(self) -> &'static str {
        match self {
            AlertKind::CircuitOpen => "circuit_open",
        }
    }
}

/// An alert raised by the policy (for paging someone), given to [`Resilience::on_alert`]
/// callbacks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Alert {
    /// What happened.
    pub kind: AlertKind,
    /// The breaker's scope.
    pub scope: BreakerScope,
    /// The breaker's key: the session id or the model.
    pub key: String,
    /// The session whose error opened it.
    pub session_id: String,
    /// The agent that reported the error.
    pub agent: String,
    /// The tenant, if any.
    pub tenant: Option<String>,
    /// Consecutive failures counted.
    pub failures: u32,
    /// The last error's kind.
    pub error_kind: ErrorKind,
    /// The last error's message.
    pub error: String,
    /// The last error's HTTP status, if any.
    pub status_code: Option<u16>,
    /// The model in use, if known.
    pub model: Option<String>,
}

/// A breaker's state, from [`Resilience::breaker`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BreakerState {
    /// Calls go through; `failures` consecutive failures so far.
    Closed {
        /// Consecutive failures counted.
        failures: u32,
    },
    /// Calls are denied.
    Open,
    /// A trial call has been let through.
    HalfOpen,
}
