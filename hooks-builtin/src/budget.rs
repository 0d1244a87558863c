//! `budget`: token and cost accounting per session and per tenant, with soft limits that
//! switch to a cheaper model and hard limits that stop model calls and subagent spawns (seed
//! 000, need 2: "agents ran up a $200 bill overnight").
//!
//! # Points
//!
//! | point | what it does |
//! |---|---|
//! | `post_model_call` | adds the call's `usage` to its session and tenant, priced by `model` |
//! | `pre_model_call` | over a hard limit: deny; over a soft limit: switch `model` to [`BudgetConfig::cheaper_model`] (unless [`BudgetConfig::enforce`] leaves out `model_calls`) |
//! | `subagent_start` | the same for the subagent's `model` (unless `enforce` leaves out `subagents`) |
//! | `subagent_stop` | adds the subagent's `tokens` only with [`BudgetConfig::count_subagent_stop`] (see below) |
//! | `session_end` | closes the session's [`SpendReport`], logs it and keeps it for [`Budget::report`] |
//!
//! # Counting
//!
//! Tokens are counted once, at `post_model_call`, with the price of the model that answered.
//! A subagent started with [`Session::start_subagent`](hookrail_core::runtime::Session) runs its
//! model calls through the same hooks and the same `session_id`, so they are counted there
//! already, under the parent session and tenant; `subagent_stop` repeats those tokens and is
//! therefore ignored by default. Set `count_subagent_stop` only for a runtime whose subagents'
//! model calls do not pass through these hooks, or they are counted twice.
//!
//! Prices are US dollars per million input and output tokens. A model is priced by its exact
//! entry in [`BudgetConfig::prices`], else by the longest entry that is a prefix of its name
//! (`claude-sonnet-4` prices `claude-sonnet-4-20250514`), else by `default_price`. With no
//! default price an unknown model's tokens still count toward token limits but cost nothing,
//! and a warning is logged once per model. Money is kept in integers (picodollars per token,
//! micro-dollars in reports), so long sessions do not drift.
//!
//! # Limits
//!
//! [`BudgetLimits`] apply per session (`session`) and per tenant (`tenant`, or an entry of
//! `tenants`), in dollars and/or tokens. They are checked before each model call and spawn
//! against the spend so far: at or over a **soft** limit the call goes to `cheaper_model`
//! (logged once per session; with no cheaper model, only logged); at or over a **hard** limit
//! it is denied, with a reason such as `budget: session s1 spent $5.02 of its $5.00 hard
//! limit`. A call's own cost is only known once it returns, so one call (or several running
//! at once) can overshoot a limit; the next one is refused. A session without a tenant has no
//! tenant limit.
//!
//! Where the limits apply is [`BudgetConfig::enforce`]: model calls and subagent spawns by
//! default. Seed 000's budget provider pauses spawns only, and lets the agent that is already
//! running finish its work: `enforce: [subagents]` (see the example below). Limits with
//! nothing to enforce them are refused when the policy is built.
//!
//! # State
//!
//! Open sessions are kept until their `session_end` (at most `max_sessions`; beyond that the
//! least recently active is closed early, with a warning, and would start again from zero).
//! Reports of ended sessions are kept for [`Budget::report`] up to `max_reports`, oldest
//! dropped first; [`Budget::take_report`] removes one. Tenant totals accumulate until
//! [`Budget::reset_tenant`] (call it at the start of each billing period). `Budget` is
//! `Clone`; clones share all of this, so keep one to read reports after handing another to
//! the hooks. All of it is behind one mutex held for a few map operations per call.
//!
//! # Across restarts
//!
//! `Budget` implements [`PersistentState`](crate::state::PersistentState): a long-lived
//! process saves the open sessions' and the tenants' spend (tokens and exact cost per model)
//! and the kept reports, and restores them after a restart (see [`state`](crate::state)).
//! Spend is spend: it is kept whatever the settings are now, and checked against the limits
//! configured now, so a session that reached its hard limit before the restart is still
//! denied after it. Limits themselves are never saved. `max_sessions` and `max_reports` hold
//! for restored sessions and reports as for new ones.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::budget::{Budget, BudgetConfig, BudgetLimits, ModelPrice};
//! use hookrail_core::context::{Meta, PostModelCall, PreModelCall, TokenUsage};
//! use hookrail_core::points::{post_model_call, pre_model_call};
//! use hookrail_core::runtime::Hooks;
//!
//! let config = BudgetConfig {
//!     prices: [
//!         ("big".to_owned(), ModelPrice::new(3.0, 15.0)),
//!         ("small".to_owned(), ModelPrice::new(0.25, 1.25)),
//!     ]
//!     .into(),
//!     session: BudgetLimits { soft_usd: Some(1.0), hard_usd: Some(5.0), ..BudgetLimits::default() },
//!     cheaper_model: Some("small".into()),
//!     ..BudgetConfig::default()
//! };
//! let budget = Budget::new(config)?;
//! let hooks = Hooks::builder().ignore_env().provider_at(-50, budget.clone()).build()?;
//!
//! // One big call: 200k tokens in, 40k out = $0.60 + $0.60.
//! let mut post = PostModelCall::new(Meta::new("s1"), "big", "…", TokenUsage::new(200_000, 40_000), 900);
//! hooks.dispatch::<post_model_call::Point>(&mut post);
//! assert_eq!(budget.report("s1").unwrap().cost_micros, 1_200_000);
//!
//! // Over the soft limit: the next call goes to the cheaper model.
//! let mut pre = PreModelCall::new(Meta::new("s1"), "big", vec![]);
//! assert!(!hooks.dispatch::<pre_model_call::Point>(&mut pre).is_denied());
//! assert_eq!(pre.model.get(), "small");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Seed 000's `BudgetHooksProvider` as configuration: spawns get the cheaper model from 70 % of
//! a $10 budget and are denied from 90 %, while the running agent's own model calls go on.
//!
//! ```
//! use hookrail_builtin::budget::{Budget, BudgetConfig};
//! use hookrail_core::context::{Meta, PostModelCall, PreModelCall, SubagentStart, TokenUsage};
//! use hookrail_core::points::{post_model_call, pre_model_call, subagent_start};
//! use hookrail_core::runtime::Hooks;
//!
//! let config: BudgetConfig = serde_json::from_value(serde_json::json!({
//!     "prices": { "claude-sonnet-4": { "input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0 } },
//!     "session": { "soft_usd": 7.0, "hard_usd": 9.0 },
//!     "cheaper_model": "claude-haiku-4.5",
//!     "enforce": ["subagents"]
//! }))?;
//! let hooks = Hooks::builder().ignore_env().provider(Budget::new(config)?).build()?;
//! let spend = |input| {
//!     let mut post = PostModelCall::new(Meta::new("s1"), "claude-sonnet-4", "", TokenUsage::new(input, 0), 1);
//!     hooks.dispatch::<post_model_call::Point>(&mut post);
//! };
//! let spawn = || {
//!     let mut ctx = SubagentStart::new(Meta::new("s1"), "tester", "claude-sonnet-4", "run the tests");
//!     let out = hooks.dispatch::<subagent_start::Point>(&mut ctx);
//!     (out.is_denied(), ctx.model.get().clone())
//! };
//! spend(2_500_000); // $7.50: 75 %
//! assert_eq!(spawn(), (false, "claude-haiku-4.5".to_owned()));
//! spend(500_000); // $9.00: 90 %
//! assert!(spawn().0);
//! let mut own = PreModelCall::new(Meta::new("s1"), "claude-sonnet-4", vec![]);
//! assert!(!hooks.dispatch::<pre_model_call::Point>(&mut own).is_denied());
//! assert_eq!(own.model.get(), "claude-sonnet-4");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hookrail_core::context::{
    Meta, PostModelCall, PreModelCall, SessionEnd, SubagentStart, SubagentStop, TokenUsage,
};
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};

use crate::ConfigError;

mod config;
mod ledger;
mod persist;

pub use config::{BudgetConfig, BudgetLimits, Enforce, ModelPrice};

use ledger::{Ledger, Limits, OpenSession, Price, compile_price, tenant_spend, usd_text};
pub use ledger::{ModelSpend, SpendReport, TenantSpend};

/// The policy's name in config files and errors.
const POLICY: &str = "budget";

/// The highest price accepted, in USD per million tokens.
const MAX_PRICE: f64 = 1_000_000.0;

/// The highest dollar limit accepted (it must fit in micro-dollars with room to spare).
const MAX_USD: f64 = 1_000_000_000_000.0;

/// Unknown models warned about, at most (the names come from the runtime).
const MAX_WARNED: usize = 1024;

const PICO_PER_MICRO: u128 = 1_000_000;

/// Whose limit: a session's or a tenant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitScope {
    /// The session's limit.
    Session,
    /// The tenant's limit.
    Tenant,
}

/// Which limit: soft (switch model) or hard (deny).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitLevel {
    /// The soft limit.
    Soft,
    /// The hard limit.
    Hard,
}

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitUnit {
    /// US dollars.
    Usd,
    /// Tokens, input plus output.
    Tokens,
}

/// A limit a session reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
pub struct LimitHit {
    /// Whose limit.
    pub scope: LimitScope,
    /// Soft or hard.
    pub level: LimitLevel,
    /// Dollars or tokens.
    pub unit: LimitUnit,
}

#[derive(Debug, Default)]
struct State {
    sessions: HashMap<Arc<str>, OpenSession>,
    tenants: HashMap<Arc<str>, Ledger>,
    ended: HashMap<String, SpendReport>,
    ended_order: VecDeque<String>,
    warned: HashSet<String>,
    tick: u64,
}

/// The `budget` policy: token and cost accounting with soft and hard limits. See the
/// [module docs](self).
///
/// Cloning is cheap and clones share their accounts: keep a clone to read reports.
#[derive(Clone)]
pub struct Budget {
    inner: Arc<Inner>,
}

struct Inner {
    prices: Vec<(String, Price)>,
    default_price: Option<Price>,
    session: Limits,
    tenant: Limits,
    tenants: HashMap<String, Limits>,
    cheaper_model: Option<String>,
    enforce: BTreeSet<Enforce>,
    count_subagent_stop: bool,
    max_reports: usize,
    max_sessions: usize,
    state: Mutex<State>,
    /// Bumped on every change of the state (see `PersistentState`).
    revision: AtomicU64,
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budget")
            .field("models_priced", &self.inner.prices.len())
            .field("session", &self.inner.session)
            .field("tenant", &self.inner.tenant)
            .field("cheaper_model", &self.inner.cheaper_model)
            .field("enforce", &self.inner.enforce)
            .finish_non_exhaustive()
    }
}

impl Default for Budget {
    /// Accounting only: no prices, no limits.
    fn default() -> Self {
        Budget::new(BudgetConfig::default())
            .unwrap_or_else(|e| unreachable!("the default budget settings are invalid: {e}"))
    }
}

/// The outcome of a limit check.
enum Check {
    Within,
    Soft,
    Hard(String),
}

impl Budget {
    /// Check `config` and build the policy.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for a negative, infinite or NaN price, a limit of zero or below (or not
    /// a number), a soft limit above its hard limit, an empty model or tenant name, or
    /// `max_sessions` of zero.
    pub fn new(config: BudgetConfig) -> Result<Self, ConfigError> {
        let mut prices = Vec::with_capacity(config.prices.len());
        for (model, price) in &config.prices {
            if model.trim().is_empty() {
                return Err(ConfigError::new(
                    POLICY,
                    "prices",
                    "a model name cannot be empty",
                ));
            }
            prices.push((
                model.clone(),
                compile_price(price, &format!("prices.{model}"))?,
            ));
        }
        let default_price = config
            .default_price
            .as_ref()
            .map(|p| compile_price(p, "default_price"))
            .transpose()?;
        let session = Limits::compile(&config.session, "session")?;
        let tenant = Limits::compile(&config.tenant, "tenant")?;
        let mut tenants = HashMap::with_capacity(config.tenants.len());
        for (name, limits) in &config.tenants {
            if name.trim().is_empty() {
                return Err(ConfigError::new(
                    POLICY,
                    "tenants",
                    "a tenant name cannot be empty",
                ));
            }
            tenants.insert(
                name.clone(),
                Limits::compile(limits, &format!("tenants.{name}"))?,
            );
        }
        if let Some(model) = &config.cheaper_model
            && model.trim().is_empty()
        {
            return Err(ConfigError::new(
                POLICY,
                "cheaper_model",
                "cannot be empty; leave it out to only log soft limits",
            ));
        }
        if config.max_sessions == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_sessions",
                "must be at least 1",
            ));
        }
        let limited = session.any() || tenant.any() || tenants.values().any(Limits::any);
        if limited && config.enforce.is_empty() {
            return Err(ConfigError::new(
                POLICY,
                "enforce",
                "is empty, so the limits set would never apply; list `model_calls` and/or \
                 `subagents`, or leave the limits out for accounting only",
            ));
        }
        let soft =
            session.any_soft() || tenant.any_soft() || tenants.values().any(Limits::any_soft);
        if soft && config.cheaper_model.is_none() {
            tracing::warn!(
                target: "hookrail_builtin::budget",
                "soft limits are set but no cheaper_model: reaching them is only logged"
            );
        }
        Ok(Budget {
            inner: Arc::new(Inner {
                prices,
                default_price,
                session,
                tenant,
                tenants,
                cheaper_model: config.cheaper_model,
                enforce: config.enforce,
                count_subagent_stop: config.count_subagent_stop,
                max_reports: config.max_reports,
                max_sessions: config.max_sessions,
                state: Mutex::new(State::default()),
                revision: AtomicU64::new(0),
            }),
        })
    }

    /// The report of `session_id`: its running totals while it is open, its final report
    /// after `session_end` (while kept). `None` for a session never seen (or whose report was
    /// dropped or taken).
    pub fn report(&self, session_id: &str) -> Option<SpendReport> {
        let state = self.lock();
        if let Some(open) = state.sessions.get(session_id) {
            return Some(open.report(session_id, false));
        }
        state.ended.get(session_id).cloned()
    }

    /// Remove and return the final report of an ended session.
    pub fn take_report(&self, session_id: &str) -> Option<SpendReport> {
        let mut state = self.lock_mut();
        let report = state.ended.remove(session_id)?;
        state.ended_order.retain(|id| id != session_id);
        Some(report)
    }

    /// What `tenant` spent since its last reset. `None` for a tenant with no model call yet.
    pub fn tenant_spend(&self, tenant: &str) -> Option<TenantSpend> {
        let state = self.lock();
        state
            .tenants
            .get(tenant)
            .map(|ledger| tenant_spend(tenant, ledger))
    }

    /// Start a new period for `tenant`: its totals go back to zero. Returns what it had spent.
    pub fn reset_tenant(&self, tenant: &str) -> Option<TenantSpend> {
        let mut state = self.lock_mut();
        state
            .tenants
            .remove(tenant)
            .map(|ledger| tenant_spend(tenant, &ledger))
    }

    /// How many sessions are open (seen and not ended).
    pub fn open_sessions(&self) -> usize {
        self.lock().sessions.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update leaves the maps consistent, so a lock poisoned by a panic elsewhere is
        // still usable.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The state, to change it: bumps the revision (under the lock, so a saver that read the
    /// new revision takes its snapshot after this change).
    fn lock_mut(&self) -> MutexGuard<'_, State> {
        let state = self.lock();
        self.inner.revision.fetch_add(1, Ordering::Relaxed);
        state
    }

    fn price(&self, model: &str) -> Option<Price> {
        let exact = self
            .inner
            .prices
            .iter()
            .find(|(name, _)| name == model)
            .map(|(_, p)| *p);
        exact
            .or_else(|| {
                self.inner
                    .prices
                    .iter()
                    .filter(|(name, _)| model.starts_with(name.as_str()))
                    .max_by_key(|(name, _)| name.len())
                    .map(|(_, p)| *p)
            })
            .or(self.inner.default_price)
    }

    fn tenant_limits(&self, tenant: &str) -> &Limits {
        self.inner.tenants.get(tenant).unwrap_or(&self.inner.tenant)
    }

    /// The open session of `meta`, created if needed (closing the least recently active one
    /// when there are too many).
    fn session<'s>(&self, state: &'s mut State, meta: &Meta) -> &'s mut OpenSession {
        state.tick += 1;
        let tick = state.tick;
        if !state.sessions.contains_key(&*meta.session_id) {
            if state.sessions.len() >= self.inner.max_sessions
                && let Some(oldest) = state
                    .sessions
                    .iter()
                    .min_by_key(|(_, s)| s.seen)
                    .map(|(id, _)| Arc::clone(id))
                && let Some(open) = state.sessions.remove(&oldest)
            {
                tracing::warn!(
                    target: "hookrail_builtin::budget",
                    session = %oldest,
                    max_sessions = self.inner.max_sessions,
                    "too many open sessions; closing the least recently active one early"
                );
                let report = open.report(&oldest, false);
                self.keep_report(state, report);
            }
            state.sessions.insert(
                Arc::clone(&meta.session_id),
                OpenSession {
                    tenant: meta.tenant.clone(),
                    ledger: Ledger::default(),
                    hits: Vec::new(),
                    downgraded: 0,
                    denied: 0,
                    seen: tick,
                    announced: false,
                },
            );
        }
        let session = state
            .sessions
            .get_mut(&*meta.session_id)
            .unwrap_or_else(|| unreachable!("inserted above"));
        session.seen = tick;
        session
    }

    fn keep_report(&self, state: &mut State, report: SpendReport) {
        if self.inner.max_reports == 0 {
            return;
        }
        let id = report.session_id.clone();
        if state.ended.insert(id.clone(), report).is_none() {
            state.ended_order.push_back(id);
        }
        while state.ended.len() > self.inner.max_reports {
            match state.ended_order.pop_front() {
                Some(old) => {
                    state.ended.remove(&old);
                }
                None => break,
            }
        }
    }

    /// Check the limits of `meta`'s session and tenant; record what was reached.
    fn check(&self, state: &mut State, meta: &Meta) -> Check {
        let tenant = meta.tenant.clone();
        let (t_micros, t_tokens) = tenant
            .as_deref()
            .and_then(|t| state.tenants.get(t))
            .map_or((0, 0), |l| (l.micros(), l.tokens.total()));
        let session = self.session(state, meta);
        let (s_micros, s_tokens) = (session.ledger.micros(), session.ledger.tokens.total());
        let mut soft = false;
        let mut scopes = vec![(
            LimitScope::Session,
            format!("session {}", meta.session_id),
            &self.inner.session,
            s_micros,
            s_tokens,
        )];
        if let Some(t) = tenant.as_deref() {
            scopes.push((
                LimitScope::Tenant,
                format!("tenant {t}"),
                self.tenant_limits(t),
                t_micros,
                t_tokens,
            ));
        }
        for (scope, who, limits, spent, used) in scopes {
            let reached = |limit: Option<u64>, value: u64| limit.is_some_and(|l| value >= l);
            if reached(limits.hard_micros, spent) {
                session.hit(LimitHit {
                    scope,
                    level: LimitLevel::Hard,
                    unit: LimitUnit::Usd,
                });
                return Check::Hard(format!(
                    "budget: {who} spent {} of its {} hard limit",
                    usd_text(spent),
                    usd_text(limits.hard_micros.unwrap_or_default())
                ));
            }
            if reached(limits.hard_tokens, used) {
                session.hit(LimitHit {
                    scope,
                    level: LimitLevel::Hard,
                    unit: LimitUnit::Tokens,
                });
                return Check::Hard(format!(
                    "budget: {who} used {used} tokens of its {}-token hard limit",
                    limits.hard_tokens.unwrap_or_default()
                ));
            }
            for (limit, value, unit) in [
                (limits.soft_micros, spent, LimitUnit::Usd),
                (limits.soft_tokens, used, LimitUnit::Tokens),
            ] {
                if reached(limit, value) {
                    soft = true;
                    session.hit(LimitHit {
                        scope,
                        level: LimitLevel::Soft,
                        unit,
                    });
                }
            }
        }
        if soft { Check::Soft } else { Check::Within }
    }

    /// Whether a call of `model` should go to the cheaper model: not if it is that model, or
    /// if it is known to cost no more per token.
    fn cheaper_than(&self, model: &str) -> Option<&str> {
        let cheaper = self.inner.cheaper_model.as_deref()?;
        if model == cheaper {
            return None;
        }
        if let (Some(current), Some(target)) = (self.price(model), self.price(cheaper))
            && current.per_token() <= target.per_token()
        {
            return None;
        }
        Some(cheaper)
    }

    /// The guard of `pre_model_call` and `subagent_start`: deny at a hard limit, switch
    /// `model` at a soft one.
    fn guard(
        &self,
        meta: &Meta,
        model: &mut hookrail_core::context::Rewritable<String>,
        what: &str,
    ) -> Verdict {
        let mut state = self.lock_mut();
        match self.check(&mut state, meta) {
            Check::Within => Verdict::Continue,
            Check::Hard(reason) => {
                let session = self.session(&mut state, meta);
                session.denied = session.denied.saturating_add(1);
                tracing::warn!(
                    target: "hookrail_builtin::budget",
                    session = %meta.session_id,
                    tenant = meta.tenant.as_deref(),
                    what,
                    reason = %reason,
                    "hard budget limit reached; denied"
                );
                Verdict::deny(reason)
            }
            Check::Soft => {
                let target = self.cheaper_than(model.get()).map(str::to_owned);
                let session = self.session(&mut state, meta);
                let first = !std::mem::replace(&mut session.announced, true);
                match target {
                    Some(cheaper) => {
                        session.downgraded = session.downgraded.saturating_add(1);
                        if first {
                            tracing::info!(
                                target: "hookrail_builtin::budget",
                                session = %meta.session_id,
                                tenant = meta.tenant.as_deref(),
                                from = %model.get(),
                                to = %cheaper,
                                "soft budget limit reached; switching {what} to the cheaper model"
                            );
                        }
                        model.set(cheaper);
                    }
                    None if first => tracing::info!(
                        target: "hookrail_builtin::budget",
                        session = %meta.session_id,
                        tenant = meta.tenant.as_deref(),
                        model = %model.get(),
                        "soft budget limit reached"
                    ),
                    None => {}
                }
                Verdict::Continue
            }
        }
    }

    /// Add `usage` of `model` to the session and tenant of `meta`.
    fn count(&self, meta: &Meta, model: &str, usage: TokenUsage) {
        let price = self.price(model);
        let mut state = self.lock_mut();
        if price.is_none()
            && state.warned.len() < MAX_WARNED
            && state.warned.insert(model.to_owned())
        {
            tracing::warn!(
                target: "hookrail_builtin::budget",
                model,
                "no price for this model: its tokens count toward token limits but cost nothing"
            );
        }
        if let Some(tenant) = &meta.tenant {
            state
                .tenants
                .entry(Arc::clone(tenant))
                .or_default()
                .add(model, usage, price);
        }
        self.session(&mut state, meta)
            .ledger
            .add(model, usage, price);
        // Record limits reached by this call now, so the report lists them even if no other
        // call follows.
        if let Check::Hard(reason) = self.check(&mut state, meta) {
            tracing::debug!(target: "hookrail_builtin::budget", reason = %reason, "hard budget limit reached");
        }
    }
}

impl HooksProvider for Budget {
    fn name(&self) -> &str {
        "builtin.budget"
    }

    /// The points of the methods below, the guards only where `enforce` says: the provider
    /// is not entered anywhere else.
    fn points(&self) -> PointSet {
        let mut points =
            PointSet::POST_MODEL_CALL | PointSet::SUBAGENT_STOP | PointSet::SESSION_END;
        if self.inner.enforce.contains(&Enforce::ModelCalls) {
            points |= PointSet::PRE_MODEL_CALL;
        }
        if self.inner.enforce.contains(&Enforce::Subagents) {
            points |= PointSet::SUBAGENT_START;
        }
        points
    }

    fn pre_model_call(&self, ctx: &mut PreModelCall) -> HookResult<Verdict> {
        if !self.inner.enforce.contains(&Enforce::ModelCalls) {
            return Ok(Verdict::Continue);
        }
        Ok(self.guard(&ctx.meta, &mut ctx.model, "model calls"))
    }

    fn subagent_start(&self, ctx: &mut SubagentStart) -> HookResult<Verdict> {
        if !self.inner.enforce.contains(&Enforce::Subagents) {
            return Ok(Verdict::Continue);
        }
        Ok(self.guard(&ctx.meta, &mut ctx.model, "subagents"))
    }

    fn post_model_call(&self, ctx: &mut PostModelCall) -> HookResult<()> {
        self.count(&ctx.meta, &ctx.model, ctx.usage);
        Ok(())
    }

    fn subagent_stop(&self, ctx: &SubagentStop) -> HookResult<()> {
        if self.inner.count_subagent_stop {
            self.count(&ctx.meta, &ctx.model, ctx.tokens);
        }
        Ok(())
    }

    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        let mut state = self.lock_mut();
        let Some(open) = state.sessions.remove(&*ctx.meta.session_id) else {
            return Ok(());
        };
        let report = open.report(&ctx.meta.session_id, true);
        tracing::info!(
            target: "hookrail_builtin::budget",
            session = %report.session_id,
            tenant = report.tenant.as_deref(),
            cost_usd = report.cost_usd(),
            input_tokens = report.tokens.input,
            output_tokens = report.tokens.output,
            limits_hit = report.limits_hit.len(),
            downgraded_calls = report.downgraded_calls,
            denied_calls = report.denied_calls,
            report = %serde_json::to_string(&report).unwrap_or_default(),
            "session spend"
        );
        self.keep_report(&mut state, report);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
