//! `rate-limit`: token-bucket limits on tool calls and model calls, per agent, tenant, session
//! (or any combination), so that a runaway loop or a noisy tenant cannot flood tools or the
//! model provider.
//!
//! # Points
//!
//! | point | what it does |
//! |---|---|
//! | `pre_tool_use` | every limit of [`RateLimitConfig::tool_calls`] that applies to the tool must have a token; if one has none the call is denied (or asked) |
//! | `pre_model_call` | the same with [`RateLimitConfig::model_calls`] |
//!
//! # How it counts
//!
//! Each [`Limit`] is a token bucket per key: it holds at most `burst` tokens (default `calls`)
//! and refills `calls` tokens per `window_ms`, continuously (a bucket of 30 per 60 s gets one
//! token back every 2 s). A call takes one token from every limit that applies to it, and
//! only if all of them have one, so a call refused by a tight limit does not use up a looser
//! one. The key says what a bucket is per: `[tenant, agent]` (the default) gives each agent of
//! each tenant its own bucket; `[tenant]` one per tenant; `[]` one for everything. A missing
//! tenant is a key of its own, `(none)`, shared by every call without a tenant.
//!
//! Per-tool limits are limits with a `tools` list; they apply *in addition* to the limits
//! without one, so `Bash` can be held tighter than other tools:
//!
//! ```yaml
//! rate_limit:
//!   action: deny
//!   tool_calls:
//!     - { calls: 30, window_ms: 60000, key: [agent] }
//!     - { calls: 5, window_ms: 60000, key: [agent], tools: [Bash] }
//!     - { calls: 1000, window_ms: 60000, key: [tenant] }
//!   model_calls:
//!     - { calls: 20, window_ms: 60000, key: [session] }
//! ```
//!
//! The reason of a refusal names the limit, the key and when the next call is possible:
//! `rate-limit: 30 tool calls per 60 s for agent "coder"; next in 1.8 s`.
//!
//! # Defaults
//!
//! 120 tool calls and 60 model calls per 60 s for each agent of each tenant; exceeding them is
//! denied. At most 100 000 buckets are kept: a bucket that has refilled completely is the same
//! as a new one and is dropped when the map is swept; if there are still too many, the least
//! recently used tenth is dropped (and a warning logged), which gives those keys a full
//! bucket again.
//!
//! # What it does not do
//!
//! It counts calls, not their cost (see `budget` for tokens and money). A call another guard
//! denies after this one has still used its token (order this policy late among guards so
//! that calls denied earlier do not count). With `action: ask`, a refused call takes no token,
//! so calls the user approves are not counted. Buckets live in memory, per `RateLimit` value:
//! two processes do not share them.
//!
//! # Across restarts
//!
//! `RateLimit` implements [`PersistentState`](crate::state::PersistentState): a long-lived
//! process saves the buckets that are not full and restores them after a restart (see
//! [`state`](crate::state)). A bucket is saved with the limit it belongs to (calls, window,
//! burst, key parts, tools: not its place in the list) and its level at the save's wall-clock
//! time; on restore it refills by the wall time that passed since (none if the clock went
//! back), and buckets of a limit that is no longer configured are dropped and reported.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::rate_limit::{Action, KeyPart, Limit, ManualClock, RateLimit, RateLimitConfig};
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::Hooks;
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let config = RateLimitConfig {
//!     tool_calls: vec![Limit { calls: 2, window_ms: 60_000, key: vec![KeyPart::Agent], ..Limit::default() }],
//!     action: Action::Deny,
//!     ..RateLimitConfig::default()
//! };
//! let clock = ManualClock::new();
//! let limit = RateLimit::new(config)?.with_clock(Arc::new(clock.clone()));
//! let hooks = Hooks::builder().ignore_env().provider_at(-10, limit).build()?;
//!
//! let call = || PreToolUse::new(Meta::new("s1").with_agent("coder"), "Read", json!({"file_path": "a"}));
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut call()).is_denied());
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut call()).is_denied());
//! let third = hooks.dispatch::<pre_tool_use::Point>(&mut call());
//! assert_eq!(
//!     third.verdict().reason(),
//!     Some("rate-limit: 2 tool calls per 60 s for agent \"coder\"; next in 30.0 s")
//! );
//! clock.advance(std::time::Duration::from_secs(30));
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut call()).is_denied());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod clock;
mod persist;

pub use clock::{Clock, ManualClock, SystemClock};

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hookrail_core::context::{Meta, PreModelCall, PreToolUse};
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};

use crate::ConfigError;

/// The policy's name in config files and errors.
const POLICY: &str = "rate_limit";

/// The longest window accepted: one year, so that bucket arithmetic never overflows.
const MAX_WINDOW_MS: u64 = 365 * 24 * 3600 * 1000;

/// Buckets below this count are never swept.
const MIN_SWEEP: usize = 1024;

/// What a bucket is per: each distinct combination of the listed values has its own bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyPart {
    /// The agent (`meta.agent_name`; a subagent's calls carry the subagent's name).
    Agent,
    /// The tenant (`meta.tenant`); calls without one share the key `(none)`.
    Tenant,
    /// The session (`meta.session_id`).
    Session,
    /// The tool's name (tool-call limits only): each tool gets its own bucket.
    Tool,
    /// The model's name (model-call limits only): each model gets its own bucket.
    Model,
}

impl KeyPart {
    fn as_str(self) -> &'static str {
        match self {
            KeyPart::Agent => "agent",
            KeyPart::Tenant => "tenant",
            KeyPart::Session => "session",
            KeyPart::Tool => "tool",
            KeyPart::Model => "model",
        }
    }
}

/// What happens to a call over its limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Refuse it (`Verdict::Deny`).
    #[default]
    Deny,
    /// Ask a human (`Verdict::Ask`); a refused call takes no token.
    Ask,
}

impl Action {
    const fn severity(self) -> u8 {
        match self {
            Action::Ask => 0,
            Action::Deny => 1,
        }
    }
}

/// One token bucket (per key): `calls` per `window_ms`, bursts of up to `burst`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limit {
    /// Calls per window: the bucket refills this many tokens every `window_ms`, continuously.
    /// Must be at least 1. Default 60.
    pub calls: u32,
    /// The window, in milliseconds; from 1 ms to one year. Default 60 000 (one minute).
    pub window_ms: u64,
    /// The bucket's capacity: how many calls may go at once after an idle period. `None`
    /// means `calls`. Must be at least 1 when set. Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
    /// What a bucket is per; no duplicates; `tool` only in tool-call limits and `model` only
    /// in model-call limits; empty for one bucket shared by every call. Default
    /// `[tenant, agent]`.
    pub key: Vec<KeyPart>,
    /// The tools this limit applies to (exact names, as the runtime sends them); empty for
    /// every tool. Tool-call limits only. Default empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The action for this limit; `None` for the policy's [`RateLimitConfig::action`].
    /// Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
}

impl Default for Limit {
    fn default() -> Self {
        Limit {
            calls: 60,
            window_ms: 60_000,
            burst: None,
            key: vec![KeyPart::Tenant, KeyPart::Agent],
            tools: Vec::new(),
            action: None,
        }
    }
}

impl Limit {
    /// `calls` per `window_ms` per tenant and agent (the default key).
    pub fn per_window(calls: u32, window_ms: u64) -> Self {
        Limit {
            calls,
            window_ms,
            ..Limit::default()
        }
    }
}

/// Settings of [`RateLimit`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitConfig {
    /// Limits on tool calls (`pre_tool_use`). A call must fit every limit that applies to its
    /// tool. Empty for no limit. Default: 120 calls per 60 s per `[tenant, agent]`.
    pub tool_calls: Vec<Limit>,
    /// Limits on model calls (`pre_model_call`). Empty for no limit. Default: 60 calls per
    /// 60 s per `[tenant, agent]`.
    pub model_calls: Vec<Limit>,
    /// What happens to a call over a limit that does not set its own action. Default `deny`.
    pub action: Action,
    /// The most buckets kept in memory, at least 1. Default 100 000.
    pub max_buckets: usize,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            tool_calls: vec![Limit::per_window(120, 60_000)],
            model_calls: vec![Limit::per_window(60, 60_000)],
            action: Action::Deny,
            max_buckets: 100_000,
        }
    }
}

/// Which point a rule limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Tool,
    Model,
}

/// A [`Limit`] checked and turned into bucket arithmetic.
///
/// A bucket's level is kept in integer units where one call is `window_ns` units and time adds
/// `calls` units per nanosecond: refilling is then exact integer arithmetic, with no drift.
#[derive(Debug, Clone)]
struct Rule {
    calls: u32,
    burst: u32,
    window_ms: u64,
    /// Units per call (the window in nanoseconds).
    unit: u128,
    /// The bucket's capacity in units.
    capacity: u128,
    key: Vec<KeyPart>,
    tools: Vec<String>,
    action: Action,
    /// `tool calls`, `Bash calls`, `model calls`.
    label: String,
}

impl Rule {
    fn compile(
        limit: &Limit,
        kind: CallKind,
        field: &'static str,
        idx: usize,
        default_action: Action,
    ) -> Result<Rule, ConfigError> {
        let at = |name: &str| format!("{field}[{idx}].{name}");
        if limit.calls == 0 {
            return Err(ConfigError::new(POLICY, at("calls"), "must be at least 1"));
        }
        if limit.window_ms == 0 || limit.window_ms > MAX_WINDOW_MS {
            return Err(ConfigError::new(
                POLICY,
                at("window_ms"),
                format!(
                    "must be from 1 to {MAX_WINDOW_MS} (one year), not {}",
                    limit.window_ms
                ),
            ));
        }
        if limit.burst == Some(0) {
            return Err(ConfigError::new(POLICY, at("burst"), "must be at least 1"));
        }
        for (i, part) in limit.key.iter().enumerate() {
            if limit.key[..i].contains(part) {
                return Err(ConfigError::new(
                    POLICY,
                    format!("{field}[{idx}].key[{i}]"),
                    format!("`{}` is listed twice", part.as_str()),
                ));
            }
            let wrong = match (part, kind) {
                (KeyPart::Tool, CallKind::Model) => Some("model calls have no tool"),
                (KeyPart::Model, CallKind::Tool) => Some("tool calls have no model"),
                _ => None,
            };
            if let Some(message) = wrong {
                return Err(ConfigError::new(
                    POLICY,
                    format!("{field}[{idx}].key[{i}]"),
                    message,
                ));
            }
        }
        if kind == CallKind::Model && !limit.tools.is_empty() {
            return Err(ConfigError::new(
                POLICY,
                at("tools"),
                "model-call limits apply to every model call; `tools` is for tool_calls",
            ));
        }
        if let Some(i) = limit.tools.iter().position(|t| t.trim().is_empty()) {
            return Err(ConfigError::new(
                POLICY,
                format!("{field}[{idx}].tools[{i}]"),
                "a tool name cannot be empty",
            ));
        }
        let burst = limit.burst.unwrap_or(limit.calls);
        let unit = u128::from(limit.window_ms) * 1_000_000;
        let label = match kind {
            CallKind::Model => "model calls".to_owned(),
            CallKind::Tool if limit.tools.is_empty() => "tool calls".to_owned(),
            CallKind::Tool => format!("{} calls", limit.tools.join("/")),
        };
        Ok(Rule {
            calls: limit.calls,
            burst,
            window_ms: limit.window_ms,
            unit,
            capacity: u128::from(burst) * unit,
            key: limit.key.clone(),
            tools: limit.tools.clone(),
            action: limit.action.unwrap_or(default_action),
            label,
        })
    }

    fn applies_to_tool(&self, tool: &str) -> bool {
        self.tools.is_empty() || self.tools.iter().any(|t| t == tool)
    }

    /// The bucket's level at `now`, refilled since `bucket.last`.
    fn refilled(&self, bucket: &Bucket, now: u128) -> u128 {
        let elapsed = now.saturating_sub(bucket.last);
        bucket
            .level
            .saturating_add(elapsed.saturating_mul(u128::from(self.calls)))
            .min(self.capacity)
    }

    /// Nanoseconds until a bucket at `level` holds one call.
    fn wait_ns(&self, level: u128) -> u128 {
        self.unit
            .saturating_sub(level)
            .div_ceil(u128::from(self.calls))
    }
}

/// One bucket: its level (in [`Rule`] units) when last refilled, and when that was.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    level: u128,
    last: u128,
}

/// The values a call's key is made of.
struct Subject<'a> {
    meta: &'a Meta,
    tool: Option<&'a str>,
    model: Option<&'a str>,
}

impl Subject<'_> {
    fn value(&self, part: KeyPart) -> Option<&str> {
        match part {
            KeyPart::Agent => Some(&self.meta.agent_name),
            KeyPart::Tenant => self.meta.tenant.as_deref(),
            KeyPart::Session => Some(&self.meta.session_id),
            KeyPart::Tool => self.tool,
            KeyPart::Model => self.model,
        }
    }

    /// The bucket key of `rule`.
    fn key(&self, rule_idx: usize, rule: &Rule) -> String {
        bucket_key(rule_idx, rule.key.iter().map(|part| self.value(*part)))
    }

    /// `agent "coder"`, `tenant "acme", agent "coder"`, `tenant (none)`, `everyone`.
    fn describe(&self, rule: &Rule) -> String {
        if rule.key.is_empty() {
            return "everyone".to_owned();
        }
        let mut out = String::new();
        for (i, part) in rule.key.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(part.as_str());
            match self.value(*part) {
                Some(v) => {
                    let _ = write!(out, " {v:?}");
                }
                None => out.push_str(" (none)"),
            }
        }
        out
    }
}

/// The key of a bucket of rule `rule_idx` (tool rules first, then model rules) for the values
/// of its key parts: each value length-prefixed, so that no two different value lists give
/// the same string; a missing value is `-`.
fn bucket_key<'v>(rule_idx: usize, values: impl IntoIterator<Item = Option<&'v str>>) -> String {
    let mut key = String::with_capacity(32);
    let _ = write!(key, "{rule_idx}");
    for value in values {
        match value {
            Some(v) => {
                let _ = write!(key, "|{}:{v}", v.len());
            }
            None => key.push_str("|-"),
        }
    }
    key
}

#[derive(Debug)]
struct State {
    buckets: HashMap<String, Bucket>,
    /// Sweep when the map grows past this (or past `max_buckets`).
    sweep_at: usize,
}

impl State {
    fn new() -> Self {
        State {
            buckets: HashMap::new(),
            sweep_at: MIN_SWEEP,
        }
    }
}

/// The `rate-limit` policy: token buckets on tool and model calls. See the [module
/// docs](self).
///
/// Cloning is cheap and clones share their buckets.
#[derive(Clone)]
pub struct RateLimit {
    inner: Arc<Inner>,
}

struct Inner {
    tool_rules: Vec<Rule>,
    model_rules: Vec<Rule>,
    max_buckets: usize,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
    /// Bumped, under the state's lock, on every change of the buckets (see `PersistentState`).
    revision: AtomicU64,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("tool_rules", &self.inner.tool_rules)
            .field("model_rules", &self.inner.model_rules)
            .field("max_buckets", &self.inner.max_buckets)
            .finish_non_exhaustive()
    }
}

impl Default for RateLimit {
    fn default() -> Self {
        // The default settings are valid; a failure here is a bug in them, caught by tests.
        RateLimit::new(RateLimitConfig::default())
            .unwrap_or_else(|e| unreachable!("the default rate-limit settings are invalid: {e}"))
    }
}

impl RateLimit {
    /// Check `config` and build the policy, on the [`SystemClock`].
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for a limit of zero calls, a zero or over-long window, a zero burst, a
    /// duplicated or misplaced key part, an empty tool name, `tools` on a model-call limit, or
    /// `max_buckets` of zero.
    pub fn new(config: RateLimitConfig) -> Result<Self, ConfigError> {
        let compile = |limits: &[Limit], kind, field| {
            limits
                .iter()
                .enumerate()
                .map(|(i, l)| Rule::compile(l, kind, field, i, config.action))
                .collect::<Result<Vec<_>, _>>()
        };
        let tool_rules = compile(&config.tool_calls, CallKind::Tool, "tool_calls")?;
        let model_rules = compile(&config.model_calls, CallKind::Model, "model_calls")?;
        if config.max_buckets == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_buckets",
                "must be at least 1",
            ));
        }
        Ok(RateLimit {
            inner: Arc::new(Inner {
                tool_rules,
                model_rules,
                max_buckets: config.max_buckets,
                clock: Arc::new(SystemClock),
                state: Mutex::new(State::new()),
                revision: AtomicU64::new(0),
            }),
        })
    }

    /// Use `clock` instead of the system clock (a [`ManualClock`] in tests). The result starts
    /// with no buckets and does not share them with earlier clones, since their times came
    /// from the other clock.
    #[must_use]
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        RateLimit {
            inner: Arc::new(Inner {
                tool_rules: self.inner.tool_rules.clone(),
                model_rules: self.inner.model_rules.clone(),
                max_buckets: self.inner.max_buckets,
                clock,
                state: Mutex::new(State::new()),
                revision: AtomicU64::new(0),
            }),
        }
    }

    /// How many buckets are in memory now.
    pub fn bucket_count(&self) -> usize {
        self.lock().buckets.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves buckets that are still consistent (each
        // update is a single assignment), so a poisoned lock is used as is.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Take a token from every rule of `rules` that applies, or refuse.
    fn admit<'r>(
        &self,
        rules: impl Iterator<Item = (usize, &'r Rule)>,
        subject: &Subject<'_>,
    ) -> Verdict {
        let rules: Vec<(usize, &Rule)> = rules.collect();
        if rules.is_empty() {
            return Verdict::Continue;
        }
        let keys: Vec<String> = rules.iter().map(|(i, r)| subject.key(*i, r)).collect();
        let mut state = self.lock();
        // Read the clock under the lock: a time read before it could be older than a bucket's
        // `last`, written by a thread that got the lock first, and setting `last` back would
        // count that interval's refill twice.
        let now = self.inner.clock.now().as_nanos();
        // First look, then take: a call refused by one limit must not use up the others.
        let mut refused: Option<(&Rule, u128)> = None;
        let mut levels = Vec::with_capacity(rules.len());
        for ((_, rule), key) in rules.iter().zip(&keys) {
            let level = state
                .buckets
                .get(key)
                .map_or(rule.capacity, |b| rule.refilled(b, now));
            levels.push(level);
            if level < rule.unit {
                let wait = rule.wait_ns(level);
                // The most restrictive action decides, then the longest wait.
                let worse = refused
                    .is_none_or(|(r, w)| (rule.action.severity(), wait) > (r.action.severity(), w));
                if worse {
                    refused = Some((rule, wait));
                }
            }
        }
        if let Some((rule, wait)) = refused {
            drop(state);
            let reason = format!(
                "rate-limit: {} {} per {}{} for {}; next in {}",
                rule.calls,
                rule.label,
                seconds(u128::from(rule.window_ms) * 1_000_000),
                if rule.burst == rule.calls {
                    String::new()
                } else {
                    format!(" (bursts of {})", rule.burst)
                },
                subject.describe(rule),
                seconds_up(wait),
            );
            tracing::debug!(target: "hookrail_builtin::rate_limit", reason = %reason, "call over its rate limit");
            return match rule.action {
                Action::Deny => Verdict::deny(reason),
                Action::Ask => Verdict::ask(reason),
            };
        }
        let mut inserted = false;
        for (((_, rule), key), level) in rules.iter().zip(keys).zip(levels) {
            let bucket = Bucket {
                level: level - rule.unit,
                last: now,
            };
            if state.buckets.insert(key, bucket).is_none() {
                inserted = true;
            }
        }
        if inserted && state.buckets.len() > state.sweep_at.min(self.inner.max_buckets) {
            self.sweep(&mut state, now);
        }
        self.inner.revision.fetch_add(1, Ordering::Relaxed);
        Verdict::Continue
    }

    /// Drop the buckets that have refilled (they equal new ones); if there are still more
    /// than `max_buckets`, drop the least recently used tenth.
    fn sweep(&self, state: &mut State, now: u128) {
        let rules = |key: &str| -> Option<&Rule> {
            // Keys start with the rule's index; tool rules come first, then model rules.
            let idx: usize = key.split('|').next()?.parse().ok()?;
            let tools = self.inner.tool_rules.len();
            if idx < tools {
                self.inner.tool_rules.get(idx)
            } else {
                self.inner.model_rules.get(idx - tools)
            }
        };
        state
            .buckets
            .retain(|key, b| rules(key).is_none_or(|r| r.refilled(b, now) < r.capacity));
        let max = self.inner.max_buckets;
        if state.buckets.len() > max {
            let target = max - max / 10;
            let excess = state.buckets.len() - target;
            let mut ages: Vec<(u128, String)> = state
                .buckets
                .iter()
                .map(|(k, b)| (b.last, k.clone()))
                .collect();
            ages.select_nth_unstable_by_key(excess - 1, |(last, _)| *last);
            for (_, key) in ages.into_iter().take(excess) {
                state.buckets.remove(&key);
            }
            tracing::warn!(
                target: "hookrail_builtin::rate_limit",
                dropped = excess,
                max_buckets = max,
                "too many rate-limit buckets; the least recently used were dropped"
            );
        }
        state.sweep_at = (state.buckets.len() * 2).max(MIN_SWEEP);
    }
}

/// `60 s`, `1.5 s`, `0.001 s`: a duration in seconds, without trailing zeros.
fn seconds(ns: u128) -> String {
    let whole = ns / 1_000_000_000;
    let frac = ns % 1_000_000_000;
    if frac == 0 {
        return format!("{whole} s");
    }
    let digits = format!("{frac:09}");
    format!("{whole}.{} s", digits.trim_end_matches('0'))
}

/// A wait in seconds rounded up to a tenth: `1.8 s`, never `0.0 s`.
fn seconds_up(ns: u128) -> String {
    let tenths = ns.div_ceil(100_000_000).max(1);
    format!("{}.{} s", tenths / 10, tenths % 10)
}

impl HooksProvider for RateLimit {
    fn name(&self) -> &str {
        "builtin.rate_limit"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE | PointSet::PRE_MODEL_CALL
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        let tool = ctx.tool_name.as_str();
        let subject = Subject {
            meta: &ctx.meta,
            tool: Some(tool),
            model: None,
        };
        let rules = self
            .inner
            .tool_rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.applies_to_tool(tool));
        Ok(self.admit(rules, &subject))
    }

    fn pre_model_call(&self, ctx: &mut PreModelCall) -> HookResult<Verdict> {
        let subject = Subject {
            meta: &ctx.meta,
            tool: None,
            model: Some(ctx.model.get()),
        };
        let offset = self.inner.tool_rules.len();
        let rules = self
            .inner
            .model_rules
            .iter()
            .enumerate()
            .map(|(i, r)| (offset + i, r));
        Ok(self.admit(rules, &subject))
    }
}

#[cfg(test)]
mod tests;
