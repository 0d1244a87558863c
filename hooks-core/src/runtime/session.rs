//! [`Session`]: what an agent loop calls so that every point fires at the right moment with a
//! filled context.

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::context::{
    CompactTrigger, ErrorKind, ErrorOccurred, Message, Meta, ModelStreamChunk, Notification,
    PostModelCall, PreCompact, PreModelCall, SessionEnd, SessionEndReason, SessionStart, StepEnd,
    StepStatus, Stop, TokenUsage, UserPromptSubmit,
};
use crate::outcome::{HookFailure, HookName, Outcome, Recovery, Verdict};
use crate::points;

use super::Hooks;

mod ability;
mod queue;
mod reply;
mod retry;
mod signals;
mod subagent;
mod tool;

pub use ability::{AbilityRunner, execute_ability};
pub use queue::QueueDrain;
pub use reply::{AgentError, ModelReply};
pub use subagent::Subagent;
pub use tool::{ToolError, ToolErrorKind, ToolRun};

/// Why a session operation did not go ahead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A guard denied (or asked and nobody approved). `failure` is true when the deny comes
    /// from a failing guard (fail closed), not from a policy decision.
    #[error("{point} denied{}: {reason}", by.map(|b| format!(" by `{b}`")).unwrap_or_default())]
    Denied {
        /// The point.
        point: &'static str,
        /// The deciding hook.
        by: Option<HookName>,
        /// The reason given.
        reason: String,
        /// True when a hook failure caused the deny.
        failure: bool,
    },
    /// A hook with `on_error = "deny"` failed at a point that is not a guard.
    #[error("{0} (fail closed)")]
    FailedClosed(HookFailure),
    /// The model call failed and no recovery applied (or the attempts ran out).
    #[error("model call failed after {attempts} attempt(s): {error}")]
    Model {
        /// How many calls were made.
        attempts: u32,
        /// The last error.
        error: AgentError,
    },
    /// An `error_occurred` hook chose [`Recovery::GiveUp`].
    #[error("gave up: {reason} (after: {error})")]
    GaveUp {
        /// The hook's reason.
        reason: String,
        /// The error it gave up on.
        error: AgentError,
    },
}

/// The answer of [`Session::request_stop`].
///
/// Exhaustive on purpose, like [`ToolRun`]: it is a decision every caller must handle case by
/// case (docs/decisions.md, "Which public enums are `#[non_exhaustive]`").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    /// The agent may stop.
    Stop,
    /// A `stop` guard blocked the stop: the agent should keep working, told `reason`.
    KeepWorking {
        /// Why, as the hook said it.
        reason: String,
    },
}

/// The counters a session aggregates into `session_end` and `subagent_stop`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SessionStats {
    /// Tokens used by model calls.
    pub tokens: TokenUsage,
    /// Model calls that returned.
    pub model_calls: u32,
    /// Tool calls that ran.
    pub tool_calls: u32,
    /// Tool calls denied.
    pub denied_tool_calls: u32,
    /// Errors reported to `error_occurred`.
    pub errors: u32,
    /// Files written or edited, sorted.
    pub files_modified: BTreeSet<String>,
}

/// Decides an `Ask` verdict: `approve(point, reason)` is true to go on (see
/// [`Session::with_approver`], [`guard_passes`]).
pub type ApproveFn = dyn Fn(&'static str, &str) -> bool + Send + Sync;

type Approver = Arc<ApproveFn>;

/// An agent session wired to a [`Hooks`] value: call its methods from the agent loop and every
/// standard point fires at the right moment with a filled context.
///
/// | method | points |
/// |---|---|
/// | [`start`](Session::start) | `session_start`, whose hooks may change the session's model |
/// | [`submit_prompt`](Session::submit_prompt) | `user_prompt_submit`; its control message in [`turn_ready`](Session::turn_ready) |
/// | [`call_model`](Session::call_model) | `pre_model_call`, `model_stream_chunk` per chunk, `post_model_call`; on error `error_occurred`, whose recovery is honoured (retry after backoff, fallback model, either with a modified prompt; give up) |
/// | [`tool_call`](Session::tool_call) | `pre_tool_use` and its `ability_guard` signals, the tool unless denied, `post_tool_use` with the duration; the call's id is the contexts' `tool_use_id`; the control message in [`turn_ready`](Session::turn_ready) |
/// | [`step_end`](Session::step_end) | `step_end` |
/// | [`request_stop`](Session::request_stop) | `stop` |
/// | [`compact`](Session::compact) | `pre_compact` |
/// | [`start_subagent`](Session::start_subagent) / [`finish_subagent`](Session::finish_subagent) | `subagent_start`, `subagent_stop` |
/// | [`start_queue_drain`](Session::start_queue_drain) / [`finish_queue_drain`](Session::finish_queue_drain) | `pre_queue_drain`, `post_queue_drain` |
/// | [`notify`](Session::notify) | `notification` |
/// | [`error`](Session::error) | `error_occurred` |
/// | [`end`](Session::end) | `session_end` with the aggregated counters |
///
/// Guards that deny stop the operation (a [`SessionError::Denied`], or [`ToolRun::Denied`]
/// for tools). An `Ask` verdict goes to the approver ([`Session::with_approver`]); without
/// one it is refused (fail closed). A hook failing closed at a transform or observe point
/// stops the operation with [`SessionError::FailedClosed`].
pub struct Session {
    hooks: Hooks,
    meta: Meta,
    model: String,
    stats: SessionStats,
    started: Instant,
    step: StepMark,
    max_attempts: u32,
    approver: Option<Approver>,
    start_context: Vec<String>,
    stop_blocks: u32,
    max_stop_blocks: u32,
    signals: signals::SignalState,
}

/// The counters at the end of the previous step.
#[derive(Clone)]
struct StepMark {
    at: Instant,
    tokens: TokenUsage,
    tool_calls: u32,
}

const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

impl Session {
    /// Start a session on `model` and fire `session_start`. The context that its hooks added
    /// is in [`start_context`](Session::start_context).
    ///
    /// A `session_start` hook may change the model (seed 000 `modifiedConfig.model`) by
    /// setting [`SessionStart::model`]: the session then uses that model for every later
    /// model call ([`model`](Session::model), [`PreModelCall::model`]) and hands it to its
    /// subagents. A hook that empties the field changes nothing (logged as a warning).
    ///
    /// ```
    /// use hookrail_core::context::{Meta, SessionStart};
    /// use hookrail_core::points::session_start;
    /// use hookrail_core::runtime::{Hook, Hooks, Session};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let hooks = Hooks::builder()
    ///     .ignore_env()
    ///     .hook(Hook::<session_start::Point>::new("nightly_runs_small", |ctx: &mut SessionStart| {
    ///         ctx.model = "claude-haiku-4.5".into();
    ///     }))
    ///     .build()?;
    /// let session = Session::start(hooks, Meta::new("nightly-1"), "claude-sonnet-4").await?;
    /// assert_eq!(session.model(), "claude-haiku-4.5");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`SessionError::FailedClosed`] if a `session_start` hook set to fail closed failed.
    pub async fn start(
        hooks: Hooks,
        meta: Meta,
        model: impl Into<String>,
    ) -> Result<Session, SessionError> {
        let model = model.into();
        let mut ctx = SessionStart::new(meta.next(), model.clone());
        let out = hooks
            .dispatch_async::<points::session_start::Point>(&mut ctx)
            .await;
        closed(out)?;
        let model = if ctx.model.trim().is_empty() {
            tracing::warn!(%model, "a session_start hook emptied the model; keeping the one asked for");
            model
        } else {
            if ctx.model != model {
                tracing::info!(from = %model, to = %ctx.model, "a session_start hook changed the model");
            }
            ctx.model
        };
        Ok(Session::fresh(hooks, meta, model, ctx.additional_context))
    }

    /// A session with zeroed counters, starting now.
    fn fresh(hooks: Hooks, meta: Meta, model: String, start_context: Vec<String>) -> Session {
        let now = Instant::now();
        Session {
            hooks,
            meta,
            model,
            stats: SessionStats::default(),
            started: now,
            step: StepMark {
                at: now,
                tokens: TokenUsage::default(),
                tool_calls: 0,
            },
            max_attempts: 4,
            approver: None,
            start_context,
            stop_blocks: 0,
            max_stop_blocks: 8,
            signals: signals::SignalState::default(),
        }
    }

    /// Decide `Ask` verdicts with `approve(point, reason)` (for instance by asking the user).
    /// Without an approver every `Ask` is refused.
    #[must_use]
    pub fn with_approver(
        mut self,
        approve: impl Fn(&'static str, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approver = Some(Arc::new(approve));
        self
    }

    /// How many times one model call is attempted in all (first call, retries and
    /// fallbacks); default 4.
    #[must_use]
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// How many times in a row `stop` guards may keep the agent working before
    /// [`request_stop`](Session::request_stop) lets it stop anyway (logged); default 8.
    #[must_use]
    pub fn with_max_stop_blocks(mut self, blocks: u32) -> Self {
        self.max_stop_blocks = blocks;
        self
    }

    /// The context `session_start` hooks added (decisions, notes…), for the system prompt.
    pub fn start_context(&self) -> &[String] {
        &self.start_context
    }

    /// The session's shared fields.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The current model (a fallback recovery changes it).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The counters so far.
    pub fn stats(&self) -> &SessionStats {
        &self.stats
    }

    /// The hook set.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Count a file as modified (tools named `Write`, `Edit`, `MultiEdit` and `NotebookEdit`
    /// are counted automatically from their `file_path`).
    pub fn record_file_modified(&mut self, path: impl Into<String>) {
        self.stats.files_modified.insert(path.into());
    }

    /// A new user prompt: starts a turn and fires `user_prompt_submit`. Returns the context
    /// after its hooks: what seed 000's `onUserPromptSubmitted` returns, for the caller to
    /// use, and seed 003's `hook_signals`. [`turn_ready`](Session::turn_ready) then holds the
    /// turn's control message (`turn_ready: false` after a denial).
    ///
    /// | seed 000 `UserPromptOutput` | returned field |
    /// |---|---|
    /// | `modifiedPrompt` | [`prompt`](UserPromptSubmit::prompt): send `prompt.get()` to the model (`prompt.original()` is what the user typed) |
    /// | `additionalContext` | [`additional_context`](UserPromptSubmit::additional_context), in hook order |
    /// | `capturedDirectives` | [`directives`](UserPromptSubmit::directives), in hook order: standing instructions to keep (in the system prompt, a decisions file) beyond this turn |
    ///
    /// # Errors
    ///
    /// [`SessionError::Denied`] when a guard blocks the prompt.
    pub async fn submit_prompt(
        &mut self,
        prompt: impl Into<String>,
    ) -> Result<UserPromptSubmit, SessionError> {
        self.meta.turn += 1;
        let mut ctx = UserPromptSubmit::new(self.meta.next(), prompt);
        let out = self
            .hooks
            .dispatch_async::<points::user_prompt_submit::Point>(&mut ctx)
            .await;
        let passed = self.pass("user_prompt_submit", out);
        self.set_turn_ready(crate::signal::TurnReady::for_prompt(
            passed.is_ok(),
            ctx.hook_signals.clone(),
        ));
        passed?;
        Ok(ctx)
    }

    /// One model call: `pre_model_call` (which may deny, add context or switch the model),
    /// then `call`, then `model_stream_chunk` for each chunk and `post_model_call`. When
    /// `call` fails, `error_occurred` decides: retry after a backoff, fall back to another
    /// model (for the rest of the session), or give up; with no recovery the error is final.
    ///
    /// The `error_occurred` context carries the failed call's prompt (the text of the last
    /// user message, [`ErrorOccurred::prompt`]). A retry or fallback with a
    /// [`prompt`](Recovery::prompt) (seed 000 `modifiedPrompt`) sends the conversation again
    /// with that text in place of the last user message's text (its tool results and images
    /// are kept); the attempts after it keep the new prompt. The conversation the caller holds
    /// is not changed: the reply answers the prompt in [`PreModelCall::messages`] as
    /// `call` received it.
    ///
    /// # Errors
    ///
    /// [`SessionError::Denied`], [`SessionError::Model`], [`SessionError::GaveUp`],
    /// [`SessionError::FailedClosed`].
    pub async fn call_model<F, Fut>(
        &mut self,
        mut messages: Vec<Message>,
        mut call: F,
    ) -> Result<PostModelCall, SessionError>
    where
        F: FnMut(&PreModelCall) -> Fut,
        Fut: Future<Output = Result<ModelReply, AgentError>>,
    {
        let mut attempt = 1;
        loop {
            let mut pre = PreModelCall::new(self.meta.next(), self.model.clone(), messages.clone());
            let out = self
                .hooks
                .dispatch_async::<points::pre_model_call::Point>(&mut pre)
                .await;
            self.pass("pre_model_call", out)?;
            let model = pre.model.get().clone();
            let started = Instant::now();
            let error = match call(&pre).await {
                Ok(reply) => return self.model_replied(model, reply, started).await,
                Err(error) => error,
            };
            let prompt = retry::last_prompt(&pre.messages);
            let recovery = self
                .report(error.kind, &error, Some(&model), attempt, prompt)
                .await;
            match recovery {
                Some(Recovery::Retry { backoff, prompt }) if attempt < self.max_attempts => {
                    retry_with(&mut messages, prompt);
                    backoff_for(backoff).await;
                }
                Some(Recovery::Fallback {
                    model,
                    backoff,
                    prompt,
                }) if attempt < self.max_attempts => {
                    tracing::info!(from = %self.model, to = %model, "falling back to another model");
                    self.model = model;
                    retry_with(&mut messages, prompt);
                    backoff_for(backoff).await;
                }
                Some(Recovery::GiveUp { reason }) => {
                    return Err(SessionError::GaveUp { reason, error });
                }
                _ => {
                    return Err(SessionError::Model {
                        attempts: attempt,
                        error,
                    });
                }
            }
            attempt += 1;
        }
    }

    async fn model_replied(
        &mut self,
        model: String,
        reply: ModelReply,
        started: Instant,
    ) -> Result<PostModelCall, SessionError> {
        // Counted as the model reported them, before any hook can stop or rewrite the reply.
        self.stats.tokens += reply.usage;
        self.stats.model_calls = self.stats.model_calls.saturating_add(1);
        let mut text = String::new();
        for (index, chunk) in reply.chunks.into_iter().enumerate() {
            let mut ctx =
                ModelStreamChunk::new(self.meta.next(), model.clone(), index as u64, chunk);
            let out = self
                .hooks
                .dispatch_async::<points::model_stream_chunk::Point>(&mut ctx)
                .await;
            closed(out)?;
            text.push_str(&ctx.chunk);
        }
        let mut post = PostModelCall::new(
            self.meta.next(),
            model,
            text,
            reply.usage,
            millis(started.elapsed()),
        );
        post.stop_reason = reply.stop_reason;
        post.tool_calls = reply.tool_calls;
        let out = self
            .hooks
            .dispatch_async::<points::post_model_call::Point>(&mut post)
            .await;
        closed(out)?;
        Ok(post)
    }

    /// The end of a step (a loop iteration, a plan step): `step_end` with the duration, tokens
    /// and tool calls since the previous step.
    pub async fn step_end(&mut self, step_id: impl Into<String>, status: StepStatus) -> StepEnd {
        let mut ctx = StepEnd::new(self.meta.next(), step_id, status);
        ctx.duration_ms = millis(self.step.at.elapsed());
        ctx.tokens = TokenUsage::new(
            self.stats.tokens.input - self.step.tokens.input,
            self.stats.tokens.output - self.step.tokens.output,
        );
        ctx.tool_calls = self.stats.tool_calls - self.step.tool_calls;
        self.step = StepMark {
            at: Instant::now(),
            tokens: self.stats.tokens,
            tool_calls: self.stats.tool_calls,
        };
        let out = self
            .hooks
            .dispatch_async::<points::step_end::Point>(&mut ctx)
            .await;
        log_closed(&out);
        ctx
    }

    /// The agent wants to stop: `stop` guards may block that and keep it working (as Claude
    /// Code's Stop hooks do), at most [`with_max_stop_blocks`](Session::with_max_stop_blocks)
    /// times in a row. A failing stop guard blocks too (fail closed), within the same bound.
    pub async fn request_stop(&mut self, last_message: Option<String>) -> TurnEnd {
        let mut ctx = Stop::new(self.meta.next());
        ctx.last_assistant_message = last_message;
        ctx.stop_hook_active = self.stop_blocks > 0;
        ctx.consecutive_blocks = self.stop_blocks;
        let out = self
            .hooks
            .dispatch_async::<points::stop::Point>(&mut ctx)
            .await;
        match out.value {
            Verdict::Deny(reason) if self.stop_blocks >= self.max_stop_blocks => {
                // A guard that always blocks (or always fails) must not keep the agent busy
                // forever.
                tracing::warn!(
                    blocks = self.stop_blocks,
                    reason = %reason,
                    "stop blocked too many times in a row; stopping anyway"
                );
                self.stop_blocks = 0;
                TurnEnd::Stop
            }
            Verdict::Deny(reason) => {
                self.stop_blocks += 1;
                TurnEnd::KeepWorking {
                    reason: reason.into_owned(),
                }
            }
            _ => {
                self.stop_blocks = 0;
                TurnEnd::Stop
            }
        }
    }

    /// Before compacting the context: `pre_compact`, whose hooks may choose what to preserve
    /// and export state. Returns the context after them.
    ///
    /// # Errors
    ///
    /// [`SessionError::FailedClosed`].
    pub async fn compact(
        &mut self,
        trigger: CompactTrigger,
        current_tokens: u64,
        max_tokens: u64,
    ) -> Result<PreCompact, SessionError> {
        let mut ctx = PreCompact::new(self.meta.next(), trigger, current_tokens, max_tokens);
        let out = self
            .hooks
            .dispatch_async::<points::pre_compact::Point>(&mut ctx)
            .await;
        closed(out)?;
        Ok(ctx)
    }

    /// Tell observers something (`notification`).
    pub async fn notify(&mut self, notification_type: &str, message: impl Into<String>) {
        let mut ctx = Notification::new(self.meta.next(), notification_type, message);
        log_closed(
            &self
                .hooks
                .dispatch_async::<points::notification::Point>(&mut ctx)
                .await,
        );
    }

    /// Report an error of the agent loop to `error_occurred` and return the recovery its hooks
    /// chose (the caller applies it; [`call_model`](Session::call_model) does so itself).
    pub async fn error(&mut self, error: &AgentError, attempt: u32) -> Option<Recovery> {
        let model = self.model.clone();
        self.report(error.kind, error, Some(&model), attempt, None)
            .await
    }

    async fn report(
        &mut self,
        kind: ErrorKind,
        error: &AgentError,
        model: Option<&str>,
        attempt: u32,
        prompt: Option<String>,
    ) -> Option<Recovery> {
        self.stats.errors += 1;
        let mut ctx = ErrorOccurred::new(self.meta.next(), kind, error.message.clone());
        ctx.model = model.map(str::to_owned);
        ctx.attempt = attempt;
        ctx.status_code = error.status_code;
        ctx.prompt = prompt;
        let out = self
            .hooks
            .dispatch_async::<points::error_occurred::Point>(&mut ctx)
            .await;
        log_closed(&out);
        out.value
    }

    /// End the session: `session_end` with the aggregated counters. Returns its context.
    pub async fn end(self, reason: SessionEndReason, success: bool) -> SessionEnd {
        let mut ctx = SessionEnd::new(self.meta.next(), reason, success);
        ctx.tokens = self.stats.tokens;
        ctx.tool_calls = self.stats.tool_calls;
        ctx.files_modified = self.stats.files_modified.iter().cloned().collect();
        ctx.duration_ms = millis(self.started.elapsed());
        log_closed(
            &self
                .hooks
                .dispatch_async::<points::session_end::Point>(&mut ctx)
                .await,
        );
        ctx
    }

    /// A guard's outcome: `Ok` to go on; a deny, or an ask nobody approved, is `Denied`.
    fn pass(&self, point: &'static str, out: Outcome<Verdict>) -> Result<(), SessionError> {
        guard_passes(point, out, self.approver.as_deref())
    }
}

/// What the merged outcome of a guard point means for an agent loop: `Ok` to go on; a deny,
/// or an `Ask` that `approve(point, reason)` refused (or that nobody could answer: no
/// approver), is [`SessionError::Denied`]. The rule [`Session`] applies at every guard point,
/// public so that adapters for other agent loops (hookrail-rig) apply the same one.
///
/// ```
/// use hookrail_core::runtime::{SessionError, guard_passes};
/// use hookrail_core::{Outcome, Verdict};
///
/// let ask = || Outcome {
///     value: Verdict::ask("rm in the home directory"),
///     ..Outcome::default()
/// };
/// assert!(matches!(guard_passes("pre_tool_use", ask(), None), Err(SessionError::Denied { .. })));
/// assert!(guard_passes("pre_tool_use", ask(), Some(&|_point: &'static str, _reason: &str| true)).is_ok());
/// assert!(guard_passes("pre_tool_use", Outcome::<Verdict>::default(), None).is_ok());
/// ```
///
/// # Errors
///
/// [`SessionError::Denied`], naming the point, what decided and whether it was a failure.
pub fn guard_passes(
    point: &'static str,
    out: Outcome<Verdict>,
    approve: Option<&ApproveFn>,
) -> Result<(), SessionError> {
    let failure = out.decided_by_failure().is_some();
    let by = out.decided_by;
    let reason = match out.value {
        Verdict::Deny(reason) => reason.into_owned(),
        Verdict::Ask(reason) => {
            if approve.is_some_and(|a| a(point, &reason)) {
                return Ok(());
            }
            format!("needs approval: {reason}")
        }
        Verdict::Continue | Verdict::Allow => return Ok(()),
    };
    Err(SessionError::Denied {
        point,
        by,
        reason,
        failure,
    })
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("session_id", &self.meta.session_id)
            .field("agent", &self.meta.agent_name)
            .field("model", &self.model)
            .field("turn", &self.meta.turn)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// A transform's outcome: a hook that failed closed stops the operation.
fn closed(out: Outcome<()>) -> Result<(), SessionError> {
    match out
        .failures
        .into_iter()
        .find(|f| f.policy == crate::OnError::Deny)
    {
        Some(failure) => Err(SessionError::FailedClosed(failure)),
        None => Ok(()),
    }
}

/// An observer's or recoverer's outcome: nothing to stop, but a fail-closed failure is an
/// error in the log.
fn log_closed<T>(out: &Outcome<T>) {
    if let Some(f) = out.failed_closed() {
        tracing::error!(failure = %f, "a fail-closed hook failed at a point that cannot stop");
    }
}

/// A recovery's modified prompt, if it has one, replaces the user's for the next attempts.
fn retry_with(messages: &mut Vec<Message>, prompt: Option<String>) {
    if let Some(prompt) = prompt {
        tracing::info!("retrying the model call with the prompt an error_occurred hook chose");
        retry::replace_prompt(messages, prompt);
    }
}

/// Wait out a recovery's backoff (skipped, with a warning, without a tokio timer).
async fn backoff_for(backoff: Duration) {
    if backoff.is_zero() {
        return;
    }
    if let Some(sleep) = super::run::tokio_sleep(backoff) {
        sleep.await;
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
