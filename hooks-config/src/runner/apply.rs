//! What each point takes from a merged answer.
//!
//! | point | takes |
//! |---|---|
//! | `pre_tool_use` | decision; `updatedInput` replaces `tool_input`; `additionalContext` |
//! | `user_prompt_submit` | decision; `additionalContext` and plain stdout as context |
//! | `pre_model_call`, `subagent_start` | decision; `additionalContext` |
//! | `stop` | decision (a deny keeps the agent working, its reason the instruction); `continue: false` lets it stop |
//! | `session_start` | `additionalContext` and plain stdout as context |
//! | `post_tool_use` | `updatedToolOutput` replaces `tool_response`; a block's reason and `additionalContext` as context |
//! | other points | nothing: they cannot be changed from a command; answers are logged |
//!
//! At guard points other than `stop`, `continue: false` is a deny with its `stopReason`;
//! `allow` and `ask` become [`Verdict::Allow`] and [`Verdict::Ask`].

use std::sync::Arc;

use hooks_core::points::*;
use hooks_core::runtime::{Hook, HookCtx, HookId, Hooks};
use hooks_core::{HookError, HookPoint, OnError, Verdict};
use serde_json::Value;

use super::{ENTRY_NAME, RunnerError, Shared};
use crate::protocol::{Answer, Decision};

/// Guard points, whose failures fail closed by default.
pub(crate) fn is_guard(point: &str) -> bool {
    matches!(
        point,
        "user_prompt_submit" | "pre_model_call" | "pre_tool_use" | "stop" | "subagent_start"
    )
}

/// Registers the entry for `point` on `hooks`; `None` for a name that is not a standard point
/// (the loaders only produce standard points).
pub(super) fn register(
    hooks: &Hooks,
    point: &'static str,
    shared: &Arc<Shared>,
) -> Result<Option<HookId>, RunnerError> {
    let s = shared.clone();
    let order = shared.options.order;
    let id = match point {
        "pre_tool_use" => hooks.register(guard::<pre_tool_use::Point>(s, order, |c, a| {
            if let Some(input) = &a.updated_input {
                c.tool_input.set(Value::Object(input.clone()));
            }
            add_context(a, false, |t| c.add_context(t));
        }))?,
        "user_prompt_submit" => {
            hooks.register(guard::<user_prompt_submit::Point>(s, order, |c, a| {
                add_context(a, true, |t| c.additional_context.push(t));
            }))?
        }
        "pre_model_call" => hooks.register(guard::<pre_model_call::Point>(s, order, |c, a| {
            add_context(a, false, |t| c.additional_context.push(t));
        }))?,
        "subagent_start" => hooks.register(guard::<subagent_start::Point>(s, order, |c, a| {
            add_context(a, false, |t| c.additional_context.push(t));
        }))?,
        "stop" => hooks.register(guard::<stop::Point>(s, order, |_, _| {}))?,
        "session_start" => {
            hooks.register(transform::<session_start::Point>(s, order, |c, a| {
                add_context(a, true, |t| c.additional_context.push(t));
            }))?
        }
        "post_tool_use" => {
            hooks.register(transform::<post_tool_use::Point>(s, order, |c, a| {
                if let Some(output) = &a.updated_output {
                    c.tool_response = output.clone();
                }
                if a.decision == Decision::Deny {
                    let reason = a.reason.as_deref().unwrap_or("blocked by a hook");
                    c.add_context(reason);
                }
                add_context(a, false, |t| c.add_context(t));
            }))?
        }
        "model_stream_chunk" => {
            hooks.register(transform::<model_stream_chunk::Point>(s, order, |_, a| {
                log_unused("model_stream_chunk", a);
            }))?
        }
        "post_model_call" => {
            hooks.register(transform::<post_model_call::Point>(s, order, |_, a| {
                log_unused("post_model_call", a);
            }))?
        }
        "pre_compact" => hooks.register(transform::<pre_compact::Point>(s, order, |_, a| {
            log_unused("pre_compact", a);
        }))?,
        "session_end" => hooks.register(observe::<session_end::Point>(s, order))?,
        "step_end" => hooks.register(observe::<step_end::Point>(s, order))?,
        "subagent_stop" => hooks.register(observe::<subagent_stop::Point>(s, order))?,
        "notification" => hooks.register(observe::<notification::Point>(s, order))?,
        "pre_queue_drain" => hooks.register(observe::<pre_queue_drain::Point>(s, order))?,
        "post_queue_drain" => hooks.register(observe::<post_queue_drain::Point>(s, order))?,
        "error_occurred" => hooks.register(
            Hook::<error_occurred::Point>::new_async(ENTRY_NAME, move |ctx| {
                let shared = s.clone();
                Box::pin(async move {
                    let input = input_of::<error_occurred::Point>(&*ctx)?;
                    let ran = shared.run(error_occurred::Point::NAME, input).await;
                    log_unused(error_occurred::Point::NAME, &ran.merged.answer);
                    ran.failure.map_or(Ok(None), Err)
                })
            })
            .order(order)
            .timeout(std::time::Duration::MAX)
            .on_error(OnError::Deny),
        )?,
        other => {
            tracing::error!(target: "hooks_config::runner", point = other, "configured hooks at an unknown point are not run");
            return Ok(None);
        }
    };
    Ok(Some(id))
}

fn input_of<P: HookPoint>(ctx: &P::Context) -> Result<Value, HookError>
where
    P::Context: serde::Serialize,
{
    crate::protocol::input(P::NAME, ctx)
        .map_err(|e| HookError::new(format!("hook input of `{}`: {e}", P::NAME)))
}

fn guard<P>(shared: Arc<Shared>, order: i32, apply: fn(&mut P::Context, &Answer)) -> Hook<P>
where
    P: HookPoint<Kind = hooks_core::Guard>,
    P::Context: serde::Serialize,
{
    Hook::<P>::new_async(ENTRY_NAME, move |mut ctx: HookCtx<'_, P>| {
        let shared = shared.clone();
        Box::pin(async move {
            let input = input_of::<P>(&ctx)?;
            let ran = shared.run(P::NAME, input).await;
            let answer = ran.merged.answer;
            apply(&mut ctx, &answer);
            if let Some(message) = &answer.system_message {
                tracing::warn!(target: "hooks_config::runner", point = P::NAME, "systemMessage: {message}");
            }
            // A hook that failed closed decides, as a failure (the core turns it into a deny
            // naming the hook); what the others answered is applied all the same.
            ran.failure.map_or_else(|| Ok(verdict(P::NAME, &answer)), Err)
        })
    })
    .order(order)
    .timeout(std::time::Duration::MAX)
    .on_error(OnError::Deny)
}

fn transform<P>(shared: Arc<Shared>, order: i32, apply: fn(&mut P::Context, &Answer)) -> Hook<P>
where
    P: HookPoint<Kind = hooks_core::Transform>,
    P::Context: serde::Serialize,
{
    Hook::<P>::new_async(ENTRY_NAME, move |mut ctx: HookCtx<'_, P>| {
        let shared = shared.clone();
        Box::pin(async move {
            let input = input_of::<P>(&ctx)?;
            let ran = shared.run(P::NAME, input).await;
            apply(&mut ctx, &ran.merged.answer);
            if let Some(message) = &ran.merged.answer.system_message {
                tracing::warn!(target: "hooks_config::runner", point = P::NAME, "systemMessage: {message}");
            }
            ran.failure.map_or(Ok(()), Err)
        })
    })
    .order(order)
    .timeout(std::time::Duration::MAX)
    .on_error(OnError::Deny)
}

fn observe<P>(shared: Arc<Shared>, order: i32) -> Hook<P>
where
    P: HookPoint<Kind = hooks_core::Observe>,
    P::Context: serde::Serialize,
{
    Hook::<P>::new_async(ENTRY_NAME, move |ctx: HookCtx<'_, P>| {
        let shared = shared.clone();
        Box::pin(async move {
            let input = input_of::<P>(&ctx)?;
            let ran = shared.run(P::NAME, input).await;
            log_unused(P::NAME, &ran.merged.answer);
            ran.failure.map_or(Ok(()), Err)
        })
    })
    .order(order)
    .timeout(std::time::Duration::MAX)
    .on_error(OnError::Deny)
}

/// Context from an answer: `additionalContext`, and plain stdout where Claude Code takes it.
fn add_context(answer: &Answer, plain_text: bool, mut add: impl FnMut(String)) {
    for text in &answer.additional_context {
        add(text.clone());
    }
    if plain_text && let Some(text) = &answer.plain_text {
        add(text.clone());
    }
}

fn verdict(point: &str, answer: &Answer) -> Verdict {
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
            target: "hooks_config::runner",
            point,
            decision = ?answer.decision,
            "a configured hook answered at a point that takes no answer; logged only"
        );
    }
}
