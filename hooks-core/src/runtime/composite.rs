//! [`CompositeHooksProvider`]: several providers as one (seed 000's
//! `CompositeHooksProvider`), in order, first deny wins, every provider runs at the points
//! that decide nothing.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::context::{
    ErrorOccurred, Meta, ModelStreamChunk, Notification, PermissionRequest, PostModelCall,
    PostQueueDrain, PostToolBatch, PostToolUse, PreCompact, PreModelCall, PreModelSwitch,
    PreQueueDrain, PreToolUse, SessionEnd, SessionStart, StepEnd, Stop, SubagentStart,
    SubagentStop, UserPromptSubmit,
};
use crate::dispatch::panic_cause;
use crate::outcome::{FailureCause, HookError, HookName, HookResult, Recovery, Verdict};

use super::gate::Gate;
use super::{HooksProvider, PointSet};

/// Providers chained into one provider, in the order they were added: seed 000's
/// `CompositeHooksProvider`, which a config takes as its one `hooks` value.
///
/// | points | kind | what the composite returns |
/// |---|---|---|
/// | `user_prompt_submit`, `pre_model_call`, `pre_tool_use`, `stop`, `subagent_start`, `permission_request`, `post_tool_batch`, `pre_model_switch` | guard | the first deny, and the members after it do not run; otherwise the most restrictive answer (an ask over an allow over no opinion) |
/// | `session_start`, `model_stream_chunk`, `post_model_call`, `post_tool_use`, `pre_compact` | transform | every member runs, each on the context as the previous one left it |
/// | `session_end`, `step_end`, `subagent_stop`, `notification`, `pre_queue_drain`, `post_queue_drain` | observe ("void") | every member runs |
/// | `error_occurred` | recover | the first member's recovery; the members after it do not run |
///
/// One difference from the seed, on purpose: there the first non-null answer wins, so a
/// provider that allows would keep a later one from denying. Here an allow never ends the
/// chain: every member's guard runs until one denies, so adding a provider can only make the
/// composite stricter (DESIGN §8).
///
/// A member takes part only in the points it declares ([`HooksProvider::points`]); the
/// composite declares their union. Each member's [`is_enabled`](HooksProvider::is_enabled) is
/// asked once per session, as for a provider added to the builder, and a member that says no
/// is skipped for that session. Inside the runtime the composite is one provider: one
/// [`name`](HooksProvider::name), one order, one failure policy, one switch for
/// `HOOKS_DISABLE`; the members' names are not entries of [`Hooks::list`](super::Hooks::list).
/// If any member is off by default ([`enabled_by_default`](HooksProvider::enabled_by_default)),
/// so is the composite, with a warning when it is added: never is an opt-in provider switched
/// on by being grouped.
///
/// A member that fails (returns an error or panics) does not stop the others: the remaining
/// members still run (at a guard, until one denies) and the composite then reports the first
/// failure as its own, a [`MemberFailure`] naming the member, to the point's failure policy
/// (guards fail closed by default). Further failures of the same call are logged at `warn`
/// level. So a failing telemetry member never keeps a scrubber after it from running, and a
/// failing guard member never hides a later member's deny.
///
/// The builder already merges several providers at each point by the same rules; use a
/// composite to hand several providers around as one value (a tenant's rules, a plugin), under
/// one name.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// use hookrail_core::context::{Meta, PreToolUse, SessionEnd, SessionEndReason};
/// use hookrail_core::points::{pre_tool_use, session_end};
/// use hookrail_core::runtime::{CompositeHooksProvider, Hooks, HooksProvider, PointSet};
/// use hookrail_core::{HookResult, Verdict};
/// use serde_json::json;
///
/// /// Allows everything it is asked about, and counts sessions that ended.
/// struct Telemetry(Arc<AtomicU32>);
/// impl HooksProvider for Telemetry {
///     fn name(&self) -> &str { "telemetry" }
///     fn points(&self) -> PointSet { PointSet::PRE_TOOL_USE | PointSet::SESSION_END }
///     fn pre_tool_use(&self, _: &mut PreToolUse) -> HookResult<Verdict> { Ok(Verdict::Allow) }
///     fn session_end(&self, _: &SessionEnd) -> HookResult<()> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         Ok(())
///     }
/// }
///
/// /// Denies `rm`, and counts sessions that ended too.
/// struct Governance(Arc<AtomicU32>);
/// impl HooksProvider for Governance {
///     fn name(&self) -> &str { "governance" }
///     fn points(&self) -> PointSet { PointSet::PRE_TOOL_USE | PointSet::SESSION_END }
///     fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
///         Ok(match ctx.command() {
///             Some(c) if c.starts_with("rm ") => Verdict::deny("no rm"),
///             _ => Verdict::Continue,
///         })
///     }
///     fn session_end(&self, _: &SessionEnd) -> HookResult<()> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         Ok(())
///     }
/// }
///
/// let ended = Arc::new(AtomicU32::new(0));
/// let tenant = CompositeHooksProvider::new("tenant_acme")
///     .with(Telemetry(ended.clone()))
///     .with(Governance(ended.clone()));
/// assert_eq!(tenant.members().collect::<Vec<_>>(), ["telemetry", "governance"]);
/// let hooks = Hooks::builder().ignore_env().provider(tenant).build()?;
///
/// // The first member allows, the second still runs and its deny wins.
/// let mut call = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "rm -rf /"}));
/// let out = hooks.dispatch::<pre_tool_use::Point>(&mut call);
/// assert_eq!(out.value, Verdict::deny("no rm"));
/// assert_eq!(out.decided_by.as_deref(), Some("tenant_acme"));
///
/// // A void point fires every member.
/// let mut end = SessionEnd::new(Meta::new("s1"), SessionEndReason::Completed, true);
/// let _ = hooks.dispatch::<session_end::Point>(&mut end);
/// assert_eq!(ended.load(Ordering::Relaxed), 2);
/// # Ok::<(), hookrail_core::runtime::HooksError>(())
/// ```
pub struct CompositeHooksProvider {
    name: String,
    members: Vec<Member>,
}

struct Member {
    name: HookName,
    points: PointSet,
    provider: Arc<dyn HooksProvider>,
    /// Its per-session `is_enabled` answers.
    gate: Gate,
}

/// The error a [`CompositeHooksProvider`] returns when one of its members failed: which
/// member, and how.
#[derive(Debug, thiserror::Error)]
#[error("member `{member}` {cause}")]
#[non_exhaustive]
pub struct MemberFailure {
    /// The member's [`name`](HooksProvider::name).
    pub member: HookName,
    /// What went wrong: [`FailureCause::Panic`] or [`FailureCause::Error`].
    pub cause: FailureCause,
}

impl CompositeHooksProvider {
    /// An empty composite named `name` (its name in listings, logs, failure records and
    /// `HOOKS_DISABLE`). Add members with [`with`](Self::with).
    pub fn new(name: impl Into<String>) -> Self {
        CompositeHooksProvider {
            name: name.into(),
            members: Vec::new(),
        }
    }

    /// Add `provider` after the members already there. Its name, points and enablement
    /// default are asked now, once.
    #[must_use]
    pub fn with(self, provider: impl HooksProvider) -> Self {
        self.with_shared(Arc::new(provider))
    }

    /// Add a provider that is already shared (a budget whose reports the caller also reads).
    #[must_use]
    pub fn with_shared(mut self, provider: Arc<dyn HooksProvider>) -> Self {
        let name = HookName::intern(provider.name());
        self.members.push(Member {
            name,
            points: provider.points(),
            gate: Gate::new(name, Arc::clone(&provider)),
            provider,
        });
        self
    }

    /// The members' names, in order.
    pub fn members(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.members.iter().map(|m| m.name.as_str())
    }

    /// How many members there are.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members that take part in `point` for `ctx`'s session, in order.
    fn active<'a>(
        &'a self,
        point: PointSet,
        ctx: &'a dyn Any,
    ) -> impl Iterator<Item = &'a Member> + 'a {
        self.members
            .iter()
            .filter(move |m| m.points.contains(point) && m.gate.allows(ctx))
    }

    /// A guard: in order until the first deny; otherwise the most restrictive answer, or the
    /// first failure.
    fn guard<C: Any>(
        &self,
        point: PointSet,
        ctx: &mut C,
        call: impl Fn(&dyn HooksProvider, &mut C) -> HookResult<Verdict>,
    ) -> HookResult<Verdict> {
        let mut merged = Verdict::Continue;
        let mut failures = Failures::default();
        for member in &self.members {
            if !member.points.contains(point) || !member.gate.allows(&*ctx) {
                continue;
            }
            match run(member, || call(&*member.provider, ctx)) {
                Ok(verdict) if verdict.is_deny() => {
                    failures.log_all(&self.name);
                    return Ok(verdict);
                }
                Ok(verdict) if verdict.severity() > merged.severity() => merged = verdict,
                Ok(_) => {}
                Err(failure) => failures.push(failure),
            }
        }
        failures.into_result(&self.name, merged)
    }

    /// A transform: every member, each on the context as the previous one left it.
    fn transform<C: Any>(
        &self,
        point: PointSet,
        ctx: &mut C,
        call: impl Fn(&dyn HooksProvider, &mut C) -> HookResult<()>,
    ) -> HookResult<()> {
        let mut failures = Failures::default();
        for member in &self.members {
            if !member.points.contains(point) || !member.gate.allows(&*ctx) {
                continue;
            }
            if let Err(failure) = run(member, || call(&*member.provider, ctx)) {
                failures.push(failure);
            }
        }
        failures.into_result(&self.name, ())
    }

    /// An observer: every member.
    fn observe<C: Any>(
        &self,
        point: PointSet,
        ctx: &C,
        call: impl Fn(&dyn HooksProvider, &C) -> HookResult<()>,
    ) -> HookResult<()> {
        let mut failures = Failures::default();
        for member in self.active(point, ctx) {
            if let Err(failure) = run(member, || call(&*member.provider, ctx)) {
                failures.push(failure);
            }
        }
        failures.into_result(&self.name, ())
    }
}

/// Call one member, turning its error or panic into a [`MemberFailure`] that names it.
fn run<T>(member: &Member, call: impl FnOnce() -> HookResult<T>) -> Result<T, MemberFailure> {
    let cause = match catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(value)) => return Ok(value),
        Ok(Err(error)) => FailureCause::Error(error),
        Err(payload) => panic_cause(payload),
    };
    Err(MemberFailure {
        member: member.name,
        cause,
    })
}

/// The member failures of one call: the first is returned, the others logged.
#[derive(Default)]
struct Failures(Vec<MemberFailure>);

impl Failures {
    fn push(&mut self, failure: MemberFailure) {
        self.0.push(failure);
    }

    /// Log every failure (a deny decided the call, so none is returned).
    fn log_all(self, composite: &str) {
        for failure in self.0 {
            tracing::warn!(composite, %failure, "a member of a composite hooks provider failed");
        }
    }

    /// `value` if no member failed; otherwise the first failure, the others logged.
    fn into_result<T>(self, composite: &str, value: T) -> HookResult<T> {
        let mut failures = self.0.into_iter();
        let Some(first) = failures.next() else {
            return Ok(value);
        };
        for failure in failures {
            tracing::warn!(composite, %failure, "a member of a composite hooks provider also failed");
        }
        Err(HookError::new(first))
    }
}

impl fmt::Debug for CompositeHooksProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompositeHooksProvider")
            .field("name", &self.name)
            .field("members", &self.members().collect::<Vec<_>>())
            .finish()
    }
}

macro_rules! guards {
    ($($point:ident / $bit:ident: $ctx:ty;)*) => {$(
        fn $point(&self, ctx: &mut $ctx) -> HookResult<Verdict> {
            self.guard(PointSet::$bit, ctx, |p, ctx| p.$point(ctx))
        }
    )*};
}

macro_rules! transforms {
    ($($point:ident / $bit:ident: $ctx:ty;)*) => {$(
        fn $point(&self, ctx: &mut $ctx) -> HookResult<()> {
            self.transform(PointSet::$bit, ctx, |p, ctx| p.$point(ctx))
        }
    )*};
}

macro_rules! observers {
    ($($point:ident / $bit:ident: $ctx:ty;)*) => {$(
        fn $point(&self, ctx: &$ctx) -> HookResult<()> {
            self.observe(PointSet::$bit, ctx, |p, ctx| p.$point(ctx))
        }
    )*};
}

impl HooksProvider for CompositeHooksProvider {
    fn name(&self) -> &str {
        &self.name
    }

    /// The union of the members' points. An empty composite takes part in no point, which
    /// is logged as a warning (it is asked when the composite is added to a builder).
    fn points(&self) -> PointSet {
        if self.members.is_empty() {
            tracing::warn!(composite = %self.name, "a composite hooks provider without members takes part in no point");
        }
        self.members
            .iter()
            .fold(PointSet::NONE, |all, m| all | m.points)
    }

    /// Off by default if any member is, with a warning naming the members that are.
    fn enabled_by_default(&self) -> bool {
        let opt_in: Vec<&str> = self
            .members
            .iter()
            .filter(|m| !m.provider.enabled_by_default())
            .map(|m| m.name.as_str())
            .collect();
        if opt_in.is_empty() {
            return true;
        }
        if opt_in.len() < self.members.len() {
            tracing::warn!(
                composite = %self.name,
                off_by_default = ?opt_in,
                "a member of this composite hooks provider is off by default, so the whole \
                 composite is: enable it by the composite's name"
            );
        }
        false
    }

    /// Always `true`: each member's own answer is asked (once per session) and applied to
    /// that member alone.
    fn is_enabled(&self, _meta: &Meta) -> bool {
        true
    }

    guards! {
        user_prompt_submit / USER_PROMPT_SUBMIT: UserPromptSubmit;
        pre_model_call / PRE_MODEL_CALL: PreModelCall;
        pre_tool_use / PRE_TOOL_USE: PreToolUse;
        stop / STOP: Stop;
        subagent_start / SUBAGENT_START: SubagentStart;
        permission_request / PERMISSION_REQUEST: PermissionRequest;
        post_tool_batch / POST_TOOL_BATCH: PostToolBatch;
        pre_model_switch / PRE_MODEL_SWITCH: PreModelSwitch;
    }

    transforms! {
        session_start / SESSION_START: SessionStart;
        model_stream_chunk / MODEL_STREAM_CHUNK: ModelStreamChunk;
        post_model_call / POST_MODEL_CALL: PostModelCall;
        post_tool_use / POST_TOOL_USE: PostToolUse;
        pre_compact / PRE_COMPACT: PreCompact;
    }

    observers! {
        session_end / SESSION_END: SessionEnd;
        step_end / STEP_END: StepEnd;
        subagent_stop / SUBAGENT_STOP: SubagentStop;
        notification / NOTIFICATION: Notification;
        pre_queue_drain / PRE_QUEUE_DRAIN: PreQueueDrain;
        post_queue_drain / POST_QUEUE_DRAIN: PostQueueDrain;
    }

    /// The first member's recovery; a failure before it is logged, one with no recovery
    /// after it is returned.
    fn error_occurred(&self, ctx: &ErrorOccurred) -> HookResult<Option<Recovery>> {
        let mut failures = Failures::default();
        for member in self.active(PointSet::ERROR_OCCURRED, ctx) {
            match run(member, || member.provider.error_occurred(ctx)) {
                Ok(Some(recovery)) => {
                    failures.log_all(&self.name);
                    return Ok(Some(recovery));
                }
                Ok(None) => {}
                Err(failure) => failures.push(failure),
            }
        }
        failures.into_result(&self.name, None)
    }
}
