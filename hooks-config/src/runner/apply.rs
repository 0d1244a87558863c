//! What each point takes from a merged answer.
//!
//! | point | takes |
//! |---|---|
//! | `pre_tool_use` | decision; `updatedInput` replaces `tool_input`; `additionalContext`; seed 003 `hook_signals` |
//! | `user_prompt_submit` | decision; `additionalContext` and plain stdout as context; seed 003 `hook_signals` |
//! | `pre_model_call`, `subagent_start`, `permission_request`, `post_tool_batch` | decision; `additionalContext` |
//! | `pre_model_switch` | decision |
//! | `stop` | decision (a deny keeps the agent working, its reason the instruction); `continue: false` lets it stop |
//! | `session_start` | `additionalContext` and plain stdout as context |
//! | `post_tool_use` | `updatedToolOutput` replaces `tool_response`; a block's reason and `additionalContext` as context |
//! | generic Claude-event guards (`config_change`, `permission_request`, …) | decision; `additionalContext` (and plain stdout at `user_prompt_expansion`) |
//! | other points | nothing: they cannot be changed from a command; answers are logged |
//!
//! Every entry also records its merged answer with the dispatch, for what Claude Code is told
//! beyond the context ([`crate::fire::claude_answer`]).
//!
//! At guard points other than `stop`, `continue: false` is a deny with its `stopReason`;
//! `allow` and `ask` become [`Verdict::Allow`] and [`Verdict::Ask`].

use std::sync::Arc;

use hookrail_core::kind::MutKind;
use hookrail_core::points::*;
use hookrail_core::runtime::{Hook, HookCtx, HookId, Hooks, Ret};
use hookrail_core::{HookError, HookPoint, IntoHookResult, OnError, Verdict};
use serde_json::Value;

use super::{ENTRY_NAME, Ran, RunnerError, Shared};
use crate::claude_events::plain_stdout_is_context;
use crate::protocol::{Answer, Decision};

/// Registers the entry for `point` on `hooks`; `None` for a name that is not a standard point
/// (the loaders only produce standard points).
pub(super) fn register(
    hooks: &Hooks,
    point: &'static str,
    shared: &Arc<Shared>,
) -> Result<Option<HookId>, RunnerError> {
    let s = shared.clone();
    let order = shared.options.order;
    macro_rules! generic {
        ($($kind:ident $name:ident),* $(,)?) => {
            match point {
                $(stringify!($name) => return Ok(Some(generic!(@ $kind $name)?)),)*
                _ => {}
            }
        };
        (@ guard $name:ident) => {
            hooks.register(mutating::<crate::generic::$name::Point>(s, order, verdict, |c, a| {
                let plain = const { plain_stdout_is_context(stringify!($name)) };
                add_context(a, plain, |t| c.additional_context.push(t));
            }))
        };
        (@ observe $name:ident) => {
            hooks.register(reading::<crate::generic::$name::Point>(s, order, nothing))
        };
    }
    crate::generic::generic_points!(generic);
    let s = shared.clone();
    let id = match point {
        "pre_tool_use" => hooks.register(mutating::<pre_tool_use::Point>(
            s,
            order,
            verdict,
            |c, a| {
                if let Some(input) = &a.updated_input {
                    c.tool_input.set(Value::Object(input.clone()));
                }
                add_context(a, false, |t| c.add_context(t));
                for signal in &a.hook_signals {
                    c.add_signal(signal.clone());
                }
            },
        ))?,
        "user_prompt_submit" => hooks.register(mutating::<user_prompt_submit::Point>(
            s,
            order,
            verdict,
            |c, a| {
                let plain = const { plain_stdout_is_context("user_prompt_submit") };
                add_context(a, plain, |t| c.additional_context.push(t));
                for signal in &a.hook_signals {
                    c.add_signal(signal.clone());
                }
            },
        ))?,
        "pre_model_call" => hooks.register(mutating::<pre_model_call::Point>(
            s,
            order,
            verdict,
            |c, a| {
                add_context(a, false, |t| c.additional_context.push(t));
            },
        ))?,
        "subagent_start" => hooks.register(mutating::<subagent_start::Point>(
            s,
            order,
            verdict,
            |c, a| {
                add_context(a, false, |t| c.additional_context.push(t));
            },
        ))?,
        "stop" => hooks.register(mutating::<stop::Point>(s, order, verdict, |_, _| {}))?,
        "permission_request" => hooks.register(mutating::<permission_request::Point>(
            s,
            order,
            verdict,
            |c, a| {
                add_context(a, false, |t| c.additional_context.push(t));
            },
        ))?,
        "post_tool_batch" => hooks.register(mutating::<post_tool_batch::Point>(
            s,
            order,
            verdict,
            |c, a| {
                add_context(a, false, |t| c.additional_context.push(t));
            },
        ))?,
        "pre_model_switch" => hooks.register(mutating::<pre_model_switch::Point>(
            s,
            order,
            verdict,
            |_, _| {},
        ))?,
        "session_start" => hooks.register(mutating::<session_start::Point>(
            s,
            order,
            nothing,
            |c, a| {
                let plain = const { plain_stdout_is_context("session_start") };
                add_context(a, plain, |t| c.additional_context.push(t));
            },
        ))?,
        "post_tool_use" => hooks.register(mutating::<post_tool_use::Point>(
            s,
            order,
            nothing,
            |c, a| {
                if let Some(output) = &a.updated_output {
                    c.tool_response = output.clone();
                }
                if a.decision == Decision::Deny {
                    let reason = a.reason.as_deref().unwrap_or("blocked by a hook");
                    c.add_context(reason);
                }
                add_context(a, false, |t| c.add_context(t));
            },
        ))?,
        "model_stream_chunk" => hooks.register(mutating::<model_stream_chunk::Point>(
            s,
            order,
            nothing,
            |_, a| {
                log_unused("model_stream_chunk", a);
            },
        ))?,
        "post_model_call" => hooks.register(mutating::<post_model_call::Point>(
            s,
            order,
            nothing,
            |_, a| {
                log_unused("post_model_call", a);
            },
        ))?,
        "pre_compact" => {
            hooks.register(mutating::<pre_compact::Point>(s, order, nothing, |_, a| {
                log_unused("pre_compact", a);
            }))?
        }
        "session_end" => hooks.register(reading::<session_end::Point>(s, order, nothing))?,
        "step_end" => hooks.register(reading::<step_end::Point>(s, order, nothing))?,
        "subagent_stop" => hooks.register(reading::<subagent_stop::Point>(s, order, nothing))?,
        "notification" => hooks.register(reading::<notification::Point>(s, order, nothing))?,
        "pre_queue_drain" => {
            hooks.register(reading::<pre_queue_drain::Point>(s, order, nothing))?
        }
        "post_queue_drain" => {
            hooks.register(reading::<post_queue_drain::Point>(s, order, nothing))?
        }
        "error_occurred" => {
            hooks.register(reading::<error_occurred::Point>(s, order, |_, _| None))?
        }
        other => {
            tracing::error!(target: "hookrail_config::runner", point = other, "configured hooks at an unknown point are not run");
            return Ok(None);
        }
    };
    Ok(Some(id))
}

/// The entry at a guard or transform point: it may change the context (`apply`) and
/// answers `result` (a verdict, or nothing).
fn mutating<P>(
    shared: Arc<Shared>,
    order: i32,
    result: fn(&'static str, &Answer) -> Ret<P>,
    apply: fn(&mut P::Context, &Answer),
) -> Hook<P>
where
    P: HookPoint,
    P::Kind: MutKind,
    P::Context: serde::Serialize,
    Result<Ret<P>, HookError>: IntoHookResult<Ret<P>>,
{
    settings(
        Hook::<P>::new_async(ENTRY_NAME, move |mut ctx: HookCtx<'_, P>| {
            let shared = shared.clone();
            Box::pin(async move {
                let ran = run::<P>(&shared, &ctx).await?;
                apply(&mut ctx, &ran.merged.answer);
                finish::<P>(ran, result)
            })
        }),
        order,
    )
}

/// The entry at an observe or recover point: it cannot change the context.
fn reading<P>(
    shared: Arc<Shared>,
    order: i32,
    result: fn(&'static str, &Answer) -> Ret<P>,
) -> Hook<P>
where
    P: HookPoint,
    P::Context: serde::Serialize,
    Result<Ret<P>, HookError>: IntoHookResult<Ret<P>>,
{
    settings(
        Hook::<P>::new_async(ENTRY_NAME, move |ctx: HookCtx<'_, P>| {
            let shared = shared.clone();
            Box::pin(async move {
                let ran = run::<P>(&shared, &ctx).await?;
                log_unused(P::NAME, &ran.merged.answer);
                finish::<P>(ran, result)
            })
        }),
        order,
    )
}

/// Every entry: its order; no timeout of its own (each hook in it has one); a hook that fails
/// closed stops the chain as a failure.
fn settings<P: HookPoint>(hook: Hook<P>, order: i32) -> Hook<P> {
    hook.order(order)
        .timeout(std::time::Duration::MAX)
        .on_error(OnError::Deny)
}

async fn run<P: HookPoint>(shared: &Arc<Shared>, ctx: &P::Context) -> Result<Ran, HookError>
where
    P::Context: serde::Serialize,
{
    let input = crate::protocol::input(P::NAME, ctx)
        .map_err(|e| HookError::new(format!("hook input of `{}`: {e}", P::NAME)))?;
    // Hooks of an event Claude Code sent get its payload, not our re-serialization of it.
    let body = super::notices::sent_body(P::NAME, &input);
    Ok(shared.run(P::NAME, input, body).await)
}

/// A hook that failed closed decides, as a failure (the core turns it into a deny naming the
/// hook); what the others answered has been applied all the same. Notices of skipped hooks go
/// to the dispatch's [`collect_notices`](super::collect_notices).
fn finish<P: HookPoint>(
    ran: Ran,
    result: fn(&'static str, &Answer) -> Ret<P>,
) -> Result<Ret<P>, HookError> {
    if let Some(message) = &ran.merged.answer.system_message {
        tracing::warn!(target: "hookrail_config::runner", point = P::NAME, "systemMessage: {message}");
    }
    // What the context cannot carry goes to the answer, if one is collected.
    super::notices::answered(P::NAME, ran.merged.answer.clone());
    for notice in ran.notices {
        // Logged when the refusal was; here it only reaches the answer, if one is collected.
        super::notices::push(notice);
    }
    if let Some(id) = ran.decided_by {
        super::notices::decided(P::NAME, id);
    }
    match ran.failure {
        Some(failure) => Err(failure),
        None => Ok(result(P::NAME, &ran.merged.answer)),
    }
}

/// Whether the entry at `point` adds the hooks' `additionalContext` to its context (so it
/// reaches Claude Code through the context; elsewhere [`crate::fire::claude_answer`] takes it
/// from the hooks' answer).
pub(crate) fn applies_context(point: &str) -> bool {
    matches!(
        point,
        "pre_tool_use"
            | "user_prompt_submit"
            | "pre_model_call"
            | "subagent_start"
            | "permission_request"
            | "post_tool_batch"
            | "session_start"
            | "post_tool_use"
    ) || (crate::generic::NAMES.contains(&point)
        && crate::events::kind_of(point) == Some(hookrail_core::KindId::Guard))
}

/// The result of points that answer nothing.
fn nothing(_: &'static str, _: &Answer) {}

/// Context from an answer: `additionalContext`, and plain stdout where Claude Code takes it.
fn add_context(answer: &Answer, plain_text: bool, mut add: impl FnMut(String)) {
    for text in &answer.additional_context {
        add(text.clone());
    }
    if plain_text && let Some(text) = &answer.plain_text {
        add(text.clone());
    }
}

fn verdict(point: &'static str, answer: &Answer) -> Verdict {
    match (&answer.stop, point) {
        // `continue: false` takes precedence over any decision (Claude Code): at `stop` it
        // lets the agent stop, elsewhere it stops what was about to happen.
        (Some(_), "stop") => return Verdict::Allow,
        (Some(reason), _) => return Verdict::deny(reason.clone()),
        (None, _) => {}
    }
    let reason = || answer.reason.clone();
    match answer.decision {
        Decision::None => Verdict::Continue,
        Decision::Allow => Verdict::Allow,
        Decision::Ask => {
            Verdict::ask(reason().unwrap_or_else(|| "a hook asks for confirmation".to_owned()))
        }
        Decision::Deny => Verdict::deny(reason().unwrap_or_else(|| "denied by a hook".to_owned())),
    }
}

/// Answers at points that cannot take them are logged, never silently dropped.
fn log_unused(point: &str, answer: &Answer) {
    if answer.decision != Decision::None
        || answer.stop.is_some()
        || !answer.additional_context.is_empty()
    {
        tracing::info!(
            target: "hookrail_config::runner",
            point,
            decision = ?answer.decision,
            "a configured hook answered at a point that takes no answer; logged only"
        );
    }
}
