//! `resilience`: retry with exponential backoff and jitter, a model fallback chain, and a
//! circuit breaker that gives up and raises an alert after repeated failures (seed 000, need
//! 5: "CI bot died at 3am").
//!
//! # Points
//!
//! | point | what it does |
//! |---|---|
//! | `error_occurred` | chooses the [`Recovery`]: retry after a backoff, fall back to the next model, or give up |
//! | `pre_model_call` | denies model calls while the circuit is open (until the cool-down lets one trial through) |
//! | `post_model_call` | a success: closes the circuit and resets the failure count |
//! | `post_tool_use` | a tool call without error resets the failure count (an open circuit stays open) |
//! | `session_end` | forgets the session's state |
//!
//! # Which errors, which recovery
//!
//! An error is **retryable** when its HTTP status is 408, 429 or 5xx; with another 4xx status
//! it is not; without a status it is when its kind is `network` or `rate_limit`, or its
//! message says it timed out (`timeout`, `timed out`). An error of kind `model` is a **model
//! error**. Anything else (permission errors, context overflow, a tool's own failure) is left
//! to other hooks: this policy returns no recovery and does not count it.
//!
//! For a counted error, in this order:
//!
//! 1. the circuit breaker counts it; at [`ResilienceConfig::breaker_failures`] consecutive
//!    failures the circuit opens: [`Recovery::GiveUp`] and an alert (below);
//! 2. at the operation's `max_attempts`-th failure: give up;
//! 3. a model error falls back to the next model of the chain not yet tried in this operation
//!    (the chain of `fallbacks` for the model the operation started with, else `fallback`),
//!    at once, or after the backoff if the error is also retryable; with the chain used up, a
//!    retryable error is retried, another gives up (with no chain configured: no recovery);
//! 4. a retryable error is retried after the backoff.
//!
//! The backoff before retry *n* is capped at `min(max_backoff_ms, base_backoff_ms × 2^(n-1))`;
//! with [`Jitter::Full`] (the default) it is a random duration up to that cap, with
//! [`Jitter::Decorrelated`] a random one between `base_backoff_ms` and three times the
//! previous one (capped), with [`Jitter::None`] the cap itself. [`Resilience::with_seed`]
//! makes the random sequence repeatable. An operation starts at `attempt == 1` (as
//! [`Session::call_model`](hookrail_core::runtime::Session::call_model) reports it).
//!
//! # The circuit breaker
//!
//! [`BreakerScope::Session`] (the default) counts consecutive failures per session (a
//! subagent shares its parent's `session_id`, so its failures count there too);
//! [`BreakerScope::Model`] counts them per model across all sessions, so that a provider
//! outage fails fast everywhere. When the circuit opens, the error gives up and an alert is
//! raised once: a `tracing` event at error level with target `hookrail_builtin::resilience` and
//! field `alert = "circuit_open"` (plus `scope`, `key`, `session`, `tenant`, `failures`,
//! `error_kind`, `error`), and the callback set with [`Resilience::on_alert`]. While open,
//! model calls in its scope are denied; after `breaker_cooldown_ms` it is half-open: one trial
//! call goes through (another one if the trial has not finished after a further cool-down).
//! The trial's success closes the circuit; its failure opens it again at once (logged at warn
//! level, no new alert). With `breaker_cooldown_ms: 0` an open circuit stays open until
//! [`Resilience::reset`] or the session's end. A model call that succeeds resets the count; so
//! does a tool call without error, but only while the circuit is closed.
//!
//! Time for the cool-down comes from a [`Clock`] ([`SystemClock`] by default,
//! [`Resilience::with_clock`] in tests). Backoffs are waited by the runtime, not here.
//!
//! # State
//!
//! Per session: the operation in progress (models tried, last backoff) per agent, and the
//! session's breaker; dropped at `session_end` or on success. Per model (model scope): one
//! breaker. At most `max_tracked` entries each; beyond that the least recently used one is
//! dropped (a dropped breaker is closed again), with a warning.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::resilience::{Jitter, Resilience, ResilienceConfig};
//! use hookrail_core::context::{ErrorKind, ErrorOccurred, Meta};
//! use hookrail_core::points::error_occurred;
//! use hookrail_core::runtime::Hooks;
//! use hookrail_core::Recovery;
//! use std::time::Duration;
//!
//! let config = ResilienceConfig {
//!     fallback: vec!["claude-sonnet".into(), "claude-haiku".into()],
//!     jitter: Jitter::None,
//!     ..ResilienceConfig::default()
//! };
//! let alerts = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
//! let seen = alerts.clone();
//! let policy = Resilience::new(config)?.on_alert(move |alert| {
//!     assert_eq!(alert.kind.as_str(), "circuit_open");
//!     seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
//! });
//! let hooks = Hooks::builder().ignore_env().provider(policy).build()?;
//!
//! let mut err = ErrorOccurred::new(Meta::new("s1"), ErrorKind::RateLimit, "429 Too Many Requests");
//! err.status_code = Some(429);
//! err.model = Some("claude-opus".into());
//! let out = hooks.dispatch::<error_occurred::Point>(&mut err);
//! assert_eq!(out.value, Some(Recovery::retry(Duration::from_millis(500))));
//!
//! let mut err = ErrorOccurred::new(Meta::new("s1"), ErrorKind::Model, "model overloaded");
//! err.model = Some("claude-opus".into());
//! let out = hooks.dispatch::<error_occurred::Point>(&mut err);
//! assert_eq!(
//!     out.value,
//!     Some(Recovery::fallback("claude-sonnet", Duration::ZERO))
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hookrail_core::context::{
    ErrorKind, ErrorOccurred, PostModelCall, PostToolUse, PreModelCall, SessionEnd,
};
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Recovery, Verdict};
use serde::{Deserialize, Serialize};

use crate::ConfigError;

mod config;

pub use config::{Alert, AlertKind, BreakerScope, BreakerState, Jitter, ResilienceConfig};

#[cfg(feature = "rate-limit")]
pub use crate::rate_limit::{Clock, ManualClock, SystemClock};

#[cfg(not(feature = "rate-limit"))]
#[path = "rate_limit/clock.rs"]
mod clock;
#[cfg(not(feature = "rate-limit"))]
pub use clock::{Clock, ManualClock, SystemClock};

/// The policy's name in config files and errors.
const POLICY: &str = "resilience";

/// The longest backoff or cool-down accepted: one day.
const MAX_MS: u64 = 24 * 3600 * 1000;

const TARGET: &str = "hookrail_builtin::resilience";

type AlertFn = Arc<dyn Fn(&Alert) + Send + Sync>;

/// The settings, checked.
#[derive(Debug)]
struct Settings {
    max_attempts: u32,
    base_ms: u64,
    max_ms: u64,
    jitter: Jitter,
    fallback: Vec<String>,
    fallbacks: HashMap<String, Vec<String>>,
    breaker_failures: u32,
    scope: BreakerScope,
    cooldown: Option<Duration>,
    max_tracked: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Circuit {
    Closed,
    Open { since: Duration },
    HalfOpen { trial: Duration },
}

#[derive(Debug)]
struct Breaker {
    failures: u32,
    circuit: Circuit,
    seen: u64,
}

/// The operation in progress of one agent of a session.
#[derive(Debug, Default)]
struct Op {
    /// The model it started with (whose chain applies).
    origin: Option<String>,
    tried: Vec<String>,
    last_backoff_ms: u64,
    seen: u64,
}

#[derive(Debug, Default)]
struct State {
    breakers: HashMap<String, Breaker>,
    ops: HashMap<(Arc<str>, Arc<str>), Op>,
    tick: u64,
}

/// The `resilience` policy: retries, model fallback and a circuit breaker. See the [module
/// docs](self).
///
/// Cloning is cheap and clones share their state.
#[derive(Clone)]
pub struct Resilience {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Arc<Settings>,
    clock: Arc<dyn Clock>,
    rng: Mutex<fastrand::Rng>,
    alert: Option<AlertFn>,
    state: Mutex<State>,
}

impl fmt::Debug for Resilience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resilience")
            .field("settings", &self.inner.settings)
            .field("on_alert", &self.inner.alert.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Resilience {
    fn default() -> Self {
        Resilience::new(ResilienceConfig::default())
            .unwrap_or_else(|e| unreachable!("the default resilience settings are invalid: {e}"))
    }
}

/// What the policy makes of an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Class {
    retryable: bool,
    model: bool,
}

fn classify(ctx: &ErrorOccurred) -> Class {
    let retryable = match ctx.status_code {
        Some(s @ 400..=499) => s == 408 || s == 429,
        Some(500..=599) => true,
        _ => ctx.kind.is_transient() || mentions_timeout(&ctx.error),
    };
    Class {
        retryable,
        model: ctx.kind == ErrorKind::Model,
    }
}

fn mentions_timeout(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("timeout") || lower.contains("timed out")
}

/// `1 consecutive failure`, `3 consecutive failures`.
fn failures_text(n: u32) -> String {
    if n == 1 {
        "1 consecutive failure".to_owned()
    } else {
        format!("{n} consecutive failures")
    }
}

fn seconds_up(d: Duration) -> String {
    let tenths = d.as_nanos().div_ceil(100_000_000).max(1);
    format!("{}.{} s", tenths / 10, tenths % 10)
}

impl Resilience {
    /// Check `config` and build the policy (system clock, random seed, no alert callback).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for `max_attempts`, `breaker_failures` or `max_tracked` of zero, a
    /// backoff of zero, above `max_backoff_ms` or above one day, a cool-down above one day, or
    /// an empty model name in a chain.
    pub fn new(config: ResilienceConfig) -> Result<Self, ConfigError> {
        if config.max_attempts == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_attempts",
                "must be at least 1",
            ));
        }
        if config.max_backoff_ms == 0 || config.max_backoff_ms > MAX_MS {
            return Err(ConfigError::new(
                POLICY,
                "max_backoff_ms",
                format!("must be from 1 to {MAX_MS} (one day)"),
            ));
        }
        if config.base_backoff_ms == 0 || config.base_backoff_ms > config.max_backoff_ms {
            return Err(ConfigError::new(
                POLICY,
                "base_backoff_ms",
                format!(
                    "must be from 1 to max_backoff_ms ({})",
                    config.max_backoff_ms
                ),
            ));
        }
        if config.breaker_failures == 0 {
            return Err(ConfigError::new(
                POLICY,
                "breaker_failures",
                "must be at least 1",
            ));
        }
        if config.breaker_cooldown_ms > MAX_MS {
            return Err(ConfigError::new(
                POLICY,
                "breaker_cooldown_ms",
                format!("must be at most {MAX_MS} (one day); 0 keeps an open circuit open"),
            ));
        }
        if config.max_tracked == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_tracked",
                "must be at least 1",
            ));
        }
        let check_chain = |chain: &[String], field: &str| -> Result<(), ConfigError> {
            match chain.iter().position(|m| m.trim().is_empty()) {
                Some(i) => Err(ConfigError::new(
                    POLICY,
                    format!("{field}[{i}]"),
                    "a model name cannot be empty",
                )),
                None => Ok(()),
            }
        };
        check_chain(&config.fallback, "fallback")?;
        for (model, chain) in &config.fallbacks {
            if model.trim().is_empty() {
                return Err(ConfigError::new(
                    POLICY,
                    "fallbacks",
                    "a model name cannot be empty",
                ));
            }
            check_chain(chain, &format!("fallbacks.{model}"))?;
        }
        let settings = Settings {
            max_attempts: config.max_attempts,
            base_ms: config.base_backoff_ms,
            max_ms: config.max_backoff_ms,
            jitter: config.jitter,
            fallback: config.fallback,
            fallbacks: config.fallbacks.into_iter().collect(),
            breaker_failures: config.breaker_failures,
            scope: config.breaker_scope,
            cooldown: (config.breaker_cooldown_ms > 0)
                .then(|| Duration::from_millis(config.breaker_cooldown_ms)),
            max_tracked: config.max_tracked,
        };
        Ok(Resilience {
            inner: Arc::new(Inner {
                settings: Arc::new(settings),
                clock: Arc::new(SystemClock),
                rng: Mutex::new(fastrand::Rng::new()),
                alert: None,
                state: Mutex::new(State::default()),
            }),
        })
    }

    /// A copy with fresh state (not shared with `self`'s clones) and one part replaced.
    fn rebuilt(
        &self,
        clock: Arc<dyn Clock>,
        rng: fastrand::Rng,
        alert: Option<AlertFn>,
    ) -> Resilience {
        Resilience {
            inner: Arc::new(Inner {
                settings: Arc::clone(&self.inner.settings),
                clock,
                rng: Mutex::new(rng),
                alert,
                state: Mutex::new(State::default()),
            }),
        }
    }

    fn current_rng(&self) -> fastrand::Rng {
        lock(&self.inner.rng).clone()
    }

    /// Use `clock` for cool-downs (a [`ManualClock`] in tests). Call it when building the
    /// policy: the result starts with fresh state.
    #[must_use]
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        self.rebuilt(clock, self.current_rng(), self.inner.alert.clone())
    }

    /// Draw jitter from a generator seeded with `seed`, so that backoffs repeat from run to
    /// run (for tests). Call it when building the policy: the result starts with fresh state.
    #[must_use]
    pub fn with_seed(self, seed: u64) -> Self {
        self.rebuilt(
            Arc::clone(&self.inner.clock),
            fastrand::Rng::with_seed(seed),
            self.inner.alert.clone(),
        )
    }

    /// Call `f` with every alert (after the tracing event), for paging. It runs on the agent's
    /// thread inside the `error_occurred` dispatch: keep it quick, hand slow work to a queue.
    /// Call it when building the policy: the result starts with fresh state.
    #[must_use]
    pub fn on_alert(self, f: impl Fn(&Alert) + Send + Sync + 'static) -> Self {
        self.rebuilt(
            Arc::clone(&self.inner.clock),
            self.current_rng(),
            Some(Arc::new(f)),
        )
    }

    /// The state of the breaker of `key` (a session id, or a model with
    /// [`BreakerScope::Model`]).
    pub fn breaker(&self, key: &str) -> BreakerState {
        match self.lock().breakers.get(key) {
            None => BreakerState::Closed { failures: 0 },
            Some(b) => match b.circuit {
                Circuit::Closed => BreakerState::Closed {
                    failures: b.failures,
                },
                Circuit::Open { .. } => BreakerState::Open,
                Circuit::HalfOpen { .. } => BreakerState::HalfOpen,
            },
        }
    }

    /// Close the breaker of `key` and forget its failures. Returns whether there was one.
    pub fn reset(&self, key: &str) -> bool {
        self.lock().breakers.remove(key).is_some()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.inner.state)
    }

    /// The backoff before retry number `attempt` (1 for the first retry).
    fn backoff(&self, attempt: u32, op: &mut Op) -> Duration {
        let s = &self.inner.settings;
        let shift = attempt.saturating_sub(1).min(63);
        let cap = s.base_ms.saturating_mul(1u64 << shift).min(s.max_ms);
        let ms = match s.jitter {
            Jitter::None => cap,
            Jitter::Full => lock(&self.inner.rng).u64(0..=cap),
            Jitter::Decorrelated => {
                let previous = op.last_backoff_ms.max(s.base_ms);
                let high = previous.saturating_mul(3).min(s.max_ms).max(s.base_ms);
                lock(&self.inner.rng).u64(s.base_ms..=high)
            }
        };
        op.last_backoff_ms = ms;
        Duration::from_millis(ms)
    }

    /// The fallback chain of the operation: the one of the model it started with, else the
    /// general one.
    fn chain(&self, op: &Op) -> &[String] {
        let s = &self.inner.settings;
        op.origin
            .as_deref()
            .and_then(|m| s.fallbacks.get(m))
            .unwrap_or(&s.fallback)
    }

    /// The next model of the operation's chain not tried yet.
    fn next_model(&self, op: &Op) -> Option<String> {
        self.chain(op)
            .iter()
            .find(|m| !op.tried.contains(m))
            .cloned()
    }

    /// The breaker key of an error, or `None` when the scope does not count it.
    fn breaker_key(&self, ctx: &ErrorOccurred) -> Option<String> {
        match self.inner.settings.scope {
            BreakerScope::Session => Some(ctx.meta.session_id.to_string()),
            BreakerScope::Model if ctx.kind == ErrorKind::Tool => None,
            BreakerScope::Model => ctx.model.clone(),
        }
    }

    fn describe_key(&self, key: &str) -> String {
        format!("{} {key}", self.inner.settings.scope.as_str())
    }

    /// Count a failure against `key`. Returns the reason to give up when the circuit is (or
    /// just became) open, and the alert to raise when it just opened.
    fn count_failure(
        &self,
        state: &mut State,
        key: &str,
        ctx: &ErrorOccurred,
    ) -> (Option<String>, Option<Alert>) {
        let s = &self.inner.settings;
        let now = self.inner.clock.now();
        state.tick += 1;
        let tick = state.tick;
        if !state.breakers.contains_key(key) {
            evict(&mut state.breakers, s.max_tracked, |b| b.seen, "breakers");
        }
        let breaker = state.breakers.entry(key.to_owned()).or_insert(Breaker {
            failures: 0,
            circuit: Circuit::Closed,
            seen: tick,
        });
        breaker.seen = tick;
        breaker.failures = breaker.failures.saturating_add(1);
        let failures = breaker.failures;
        let who = self.describe_key(key);
        match breaker.circuit {
            Circuit::Open { .. } => (
                Some(format!(
                    "resilience: circuit open for {who} after {}",
                    failures_text(failures)
                )),
                None,
            ),
            Circuit::HalfOpen { .. } => {
                breaker.circuit = Circuit::Open { since: now };
                tracing::warn!(
                    target: TARGET,
                    scope = s.scope.as_str(),
                    key,
                    failures,
                    error = %ctx.error,
                    "circuit breaker trial failed; open again"
                );
                (
                    Some(format!(
                        "resilience: circuit open again for {who}: the trial call failed too"
                    )),
                    None,
                )
            }
            Circuit::Closed if failures >= s.breaker_failures => {
                breaker.circuit = Circuit::Open { since: now };
                let alert = Alert {
                    kind: AlertKind::CircuitOpen,
                    scope: s.scope,
                    key: key.to_owned(),
                    session_id: ctx.meta.session_id.to_string(),
                    agent: ctx.meta.agent_name.to_string(),
                    tenant: ctx.meta.tenant.as_deref().map(str::to_owned),
                    failures,
                    error_kind: ctx.kind,
                    error: ctx.error.clone(),
                    status_code: ctx.status_code,
                    model: ctx.model.clone(),
                };
                (
                    Some(format!(
                        "resilience: circuit open for {who} after {} (last: {})",
                        failures_text(failures),
                        ctx.error
                    )),
                    Some(alert),
                )
            }
            Circuit::Closed => (None, None),
        }
    }

    fn raise(&self, alert: &Alert) {
        tracing::error!(
            target: TARGET,
            alert = alert.kind.as_str(),
            scope = alert.scope.as_str(),
            key = %alert.key,
            session = %alert.session_id,
            agent = %alert.agent,
            tenant = alert.tenant.as_deref(),
            failures = alert.failures,
            error_kind = ?alert.error_kind,
            status_code = alert.status_code,
            model = alert.model.as_deref(),
            error = %alert.error,
            "circuit breaker open: giving up"
        );
        if let Some(f) = &self.inner.alert {
            f(alert);
        }
    }

    fn recover(&self, ctx: &ErrorOccurred) -> Option<Recovery> {
        let class = classify(ctx);
        if !class.retryable && !class.model {
            return None;
        }
        let s = &self.inner.settings;
        let mut state = self.lock();
        let (open, alert) = match self.breaker_key(ctx) {
            Some(key) => self.count_failure(&mut state, &key, ctx),
            None => (None, None),
        };
        if let Some(reason) = open {
            drop(state);
            if let Some(alert) = alert {
                self.raise(&alert);
            }
            return Some(Recovery::GiveUp { reason });
        }

        state.tick += 1;
        let tick = state.tick;
        let op_key = (
            Arc::clone(&ctx.meta.session_id),
            Arc::clone(&ctx.meta.agent_name),
        );
        if !state.ops.contains_key(&op_key) {
            evict(&mut state.ops, s.max_tracked, |o| o.seen, "operations");
        }
        let op = state.ops.entry(op_key).or_default();
        if ctx.attempt <= 1 {
            *op = Op::default();
        }
        op.seen = tick;
        if op.origin.is_none() {
            op.origin.clone_from(&ctx.model);
        }
        if let Some(model) = &ctx.model
            && !op.tried.contains(model)
        {
            op.tried.push(model.clone());
        }
        if ctx.attempt >= s.max_attempts {
            return Some(Recovery::GiveUp {
                reason: format!(
                    "resilience: gave up after {} attempts (last: {})",
                    ctx.attempt, ctx.error
                ),
            });
        }
        if class.model {
            if let Some(model) = self.next_model(op) {
                let backoff = if class.retryable {
                    self.backoff(ctx.attempt, op)
                } else {
                    Duration::ZERO
                };
                op.tried.push(model.clone());
                return Some(Recovery::fallback(model, backoff));
            }
            if !class.retryable {
                if self.chain(op).is_empty() {
                    return None;
                }
                return Some(Recovery::GiveUp {
                    reason: format!(
                        "resilience: no untried fallback model left (tried {})",
                        op.tried.join(", ")
                    ),
                });
            }
        }
        Some(Recovery::retry(self.backoff(ctx.attempt, op)))
    }

    /// A success of `key`: the count goes back to zero; `closes` also closes an open circuit.
    fn success(&self, key: &str, closes: bool) {
        let mut state = self.lock();
        let Some(breaker) = state.breakers.get_mut(key) else {
            return;
        };
        match breaker.circuit {
            Circuit::Closed => {
                state.breakers.remove(key);
            }
            _ if closes => {
                tracing::info!(target: TARGET, key, "circuit breaker closed after a successful call");
                state.breakers.remove(key);
            }
            _ => {}
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each update leaves the state consistent, so a lock poisoned by a panicking alert
    // callback elsewhere is still usable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Make room for one more entry: drop the least recently used when `map` is full.
fn evict<K: Clone + Eq + std::hash::Hash + fmt::Debug, V>(
    map: &mut HashMap<K, V>,
    max: usize,
    seen: impl Fn(&V) -> u64,
    what: &str,
) {
    while map.len() >= max {
        let Some(oldest) = map
            .iter()
            .min_by_key(|(_, v)| seen(v))
            .map(|(k, _)| k.clone())
        else {
            return;
        };
        map.remove(&oldest);
        tracing::warn!(target: TARGET, what, max, evicted = ?oldest, "too many tracked entries; dropped the least recently used");
    }
}

impl HooksProvider for Resilience {
    fn name(&self) -> &str {
        "builtin.resilience"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::ERROR_OCCURRED
            | PointSet::PRE_MODEL_CALL
            | PointSet::POST_MODEL_CALL
            | PointSet::POST_TOOL_USE
            | PointSet::SESSION_END
    }

    fn error_occurred(&self, ctx: &ErrorOccurred) -> HookResult<Option<Recovery>> {
        Ok(self.recover(ctx))
    }

    fn pre_model_call(&self, ctx: &mut PreModelCall) -> HookResult<Verdict> {
        let key = match self.inner.settings.scope {
            BreakerScope::Session => ctx.meta.session_id.to_string(),
            BreakerScope::Model => ctx.model.get().clone(),
        };
        let now = self.inner.clock.now();
        let mut state = self.lock();
        let Some(breaker) = state.breakers.get_mut(&key) else {
            return Ok(Verdict::Continue);
        };
        let cooldown = self.inner.settings.cooldown;
        let who = self.describe_key(&key);
        let failures = breaker.failures;
        let (since, half_open) = match breaker.circuit {
            Circuit::Closed => return Ok(Verdict::Continue),
            Circuit::Open { since } => (since, false),
            Circuit::HalfOpen { trial } => (trial, true),
        };
        let Some(cooldown) = cooldown else {
            return Ok(Verdict::deny(format!(
                "resilience: circuit open for {who} after {}; \
                 it stays open until reset",
                failures_text(failures)
            )));
        };
        let due = since.saturating_add(cooldown);
        if now >= due {
            breaker.circuit = Circuit::HalfOpen { trial: now };
            tracing::info!(target: TARGET, key = %key, "circuit breaker half-open: letting one trial call through");
            return Ok(Verdict::Continue);
        }
        let wait = seconds_up(due - now);
        Ok(Verdict::deny(if half_open {
            format!(
                "resilience: circuit half-open for {who}: a trial call is in progress; next trial in {wait}"
            )
        } else {
            format!(
                "resilience: circuit open for {who} after {}; next trial in {wait}",
                failures_text(failures)
            )
        }))
    }

    fn post_model_call(&self, ctx: &mut PostModelCall) -> HookResult<()> {
        let key = match self.inner.settings.scope {
            BreakerScope::Session => ctx.meta.session_id.to_string(),
            BreakerScope::Model => ctx.model.clone(),
        };
        self.success(&key, true);
        let op_key = (
            Arc::clone(&ctx.meta.session_id),
            Arc::clone(&ctx.meta.agent_name),
        );
        self.lock().ops.remove(&op_key);
        Ok(())
    }

    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        if ctx.error.is_none() && self.inner.settings.scope == BreakerScope::Session {
            self.success(&ctx.meta.session_id, false);
        }
        Ok(())
    }

    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        let mut state = self.lock();
        state
            .ops
            .retain(|(session, _), _| *session != ctx.meta.session_id);
        if self.inner.settings.scope == BreakerScope::Session {
            state.breakers.remove(&*ctx.meta.session_id);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
