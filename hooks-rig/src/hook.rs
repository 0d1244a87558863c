//! The [`AgentHook`] implementation: each rig event dispatches its hookrail point with
//! [`Hooks::dispatch_async`](hookrail_core::runtime::Hooks::dispatch_async) and turns the
//! outcome into rig's action, the way [`Session`](hookrail_core::runtime::Session) does for
//! a hand-written loop.

use std::time::{Duration, Instant};

use hookrail_core::context::{
    PostModelCall, PostToolUse, PreModelCall, PreToolUse, SUPPRESSED_OUTPUT, SessionEnd,
    SessionEndReason, SessionStart, TokenUsage, UserPromptSubmit,
};
use hookrail_core::points;
use hookrail_core::runtime::{SessionStats, guard_passes};
use hookrail_core::{OnError, Outcome, Verdict};
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext, ModelRef, ModelSelection, ModelSelectionAction, OutcomeAction, OutcomeEvent,
    RequestPatch, RunSettled, RunStart, RunStartAction, SettledOutcome,
};
use rig_core::completion::{CompletionResponse, Document};
use rig_core::effect::Outcome as RigOutcome;
use rig_core::tool::{ToolOutput, ToolResult};
use serde_json::Value;

use crate::RigHooks;
use crate::convert;
use crate::state::{PendingTool, RunSlot, RunState};

impl AgentHook for RigHooks {
    fn name(&self) -> Option<String> {
        Some("hookrail".to_owned())
    }

    async fn on_run_start(&self, ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        let slot = match self.start_session(ctx).await {
            Ok(slot) => slot,
            Err(reason) => return RunStartAction::stop(reason),
        };
        let Some(text) = convert::prompt_text(event.prompt) else {
            return RunStartAction::continue_run();
        };
        let meta = {
            let mut state = slot.lock();
            state.meta.turn += 1;
            state.meta.next()
        };
        let mut submit = UserPromptSubmit::new(meta, text);
        let out = self
            .hooks
            .dispatch_async::<points::user_prompt_submit::Point>(&mut submit)
            .await;
        if let Err(reason) = self.pass("user_prompt_submit", out) {
            return RunStartAction::stop(reason);
        }
        slot.lock()
            .run_context
            .extend(submit.additional_context.iter().cloned());
        if submit.prompt.is_rewritten() {
            let prompt = convert::rewrite_prompt(event.prompt, submit.prompt.get().clone());
            return RunStartAction::rewrite(prompt);
        }
        RunStartAction::continue_run()
    }

    async fn on_completion_call(
        &self,
        ctx: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        let slot = match self.session(ctx).await {
            Ok(slot) => slot,
            Err(reason) => return CompletionCallAction::stop(reason),
        };
        let (meta, model) = {
            let state = slot.lock();
            (state.meta.next(), state.model.clone())
        };
        let messages = convert::messages(event.history, event.prompt);
        let mut pre = PreModelCall::new(meta, model, messages);
        let out = self
            .hooks
            .dispatch_async::<points::pre_model_call::Point>(&mut pre)
            .await;
        if let Err(reason) = self.pass("pre_model_call", out) {
            return CompletionCallAction::stop(reason);
        }
        let context = {
            let mut state = slot.lock();
            state.model = pre.model.get().clone();
            state.model_call_at = Some(Instant::now());
            state
                .run_context
                .iter()
                .chain(&pre.additional_context)
                .cloned()
                .collect::<Vec<_>>()
        };
        if context.is_empty() {
            return CompletionCallAction::continue_run();
        }
        let documents = context.into_iter().enumerate().map(|(i, text)| Document {
            id: format!("hookrail-context-{i}"),
            text,
            additional_props: Default::default(),
        });
        CompletionCallAction::patch(RequestPatch::new().extra_context(documents))
    }

    fn on_model_select(
        &self,
        ctx: &HookContext,
        _event: ModelSelection<'_>,
    ) -> ModelSelectionAction {
        let Some(slot) = RunSlot::of(ctx) else {
            return ModelSelectionAction::continue_run();
        };
        let state = slot.lock();
        if state.model == state.base_model {
            ModelSelectionAction::continue_run()
        } else {
            // A label the agent's bus does not know fails the run in rig: the switch is
            // never silently ignored.
            tracing::info!(from = %state.base_model, to = %state.model, "a hook switched the model");
            ModelSelectionAction::select(ModelRef::from(state.model.as_str()))
        }
    }

    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let (Some(name), Some(args)) = (event.tool_name(), event.tool_args()) else {
            return DispatchAction::proceed();
        };
        let slot = match self.session(ctx).await {
            Ok(slot) => slot,
            Err(reason) => return DispatchAction::stop(reason),
        };
        let input: Value = match serde_json::from_str(args) {
            Ok(input) => input,
            // rig hands tools JSON objects; arguments no guard can read are not run.
            Err(error) => {
                return DispatchAction::skip(format!(
                    "the arguments of `{name}` are not JSON ({error}); not run"
                ));
            }
        };
        let meta = slot.lock().meta.next();
        let mut pre = PreToolUse::new(meta, name, input);
        pre.tool_use_id = event.call_id.map(ToString::to_string);
        let out = self
            .hooks
            .dispatch_async::<points::pre_tool_use::Point>(&mut pre)
            .await;
        if let Err(reason) = self.pass("pre_tool_use", out) {
            let mut state = slot.lock();
            state.stats.denied_tool_calls = state.stats.denied_tool_calls.saturating_add(1);
            return DispatchAction::skip(reason);
        }
        let action = if pre.tool_input.is_rewritten() {
            DispatchAction::rewrite_tool_args(event.kind, pre.tool_input.get().clone())
        } else {
            DispatchAction::proceed()
        };
        slot.lock().pending.insert(
            event.id,
            PendingTool {
                pre,
                at: Instant::now(),
            },
        );
        action
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if let Some(response) = event.completion() {
            return self.model_replied(ctx, response).await;
        }
        if let Some(result) = event.tool_result() {
            return self.tool_ran(ctx, &event, result).await;
        }
        OutcomeAction::proceed()
    }

    async fn on_run_settled(&self, ctx: &HookContext, event: RunSettled<'_>) {
        let Some(slot) = RunSlot::remove(ctx) else {
            return;
        };
        let (meta, stats, started) = {
            let state = slot.lock();
            (state.meta.next(), state.stats.clone(), state.started)
        };
        let (reason, success) = match event.outcome {
            SettledOutcome::Response(_) => (SessionEndReason::Completed, true),
            SettledOutcome::Error(error) => {
                tracing::debug!(error, "the rig run ended with an error");
                (SessionEndReason::Error, false)
            }
        };
        let mut end = SessionEnd::new(meta, reason, success);
        end.tokens = stats.tokens;
        end.tool_calls = stats.tool_calls;
        end.files_modified = stats.files_modified.iter().cloned().collect();
        end.duration_ms = millis(started.elapsed());
        let out = self
            .hooks
            .dispatch_async::<points::session_end::Point>(&mut end)
            .await;
        if let Some(failure) = out.failed_closed() {
            tracing::error!(%failure, "a fail-closed hook failed at session_end, which cannot stop");
        }
    }
}

impl RigHooks {
    /// The run's session, started (with `session_start`) if this is its first event: a
    /// resumed run fires no run-start event.
    async fn session(&self, ctx: &HookContext) -> Result<RunSlot, String> {
        match RunSlot::of(ctx) {
            Some(slot) => Ok(slot),
            None => self.start_session(ctx).await,
        }
    }

    /// Fire `session_start` for the run `ctx` belongs to and keep its state.
    async fn start_session(&self, ctx: &HookContext) -> Result<RunSlot, String> {
        if let Some(slot) = RunSlot::of(ctx) {
            return Ok(slot);
        }
        let mut meta = self.meta.clone();
        meta.session_id = ctx.run_id().to_string().into();
        if let Some(agent) = ctx.agent_name() {
            meta = meta.with_agent(agent);
        }
        let mut start = SessionStart::new(meta.next(), self.model.clone());
        let out = self
            .hooks
            .dispatch_async::<points::session_start::Point>(&mut start)
            .await;
        closed("session_start", &out)?;
        Ok(RunSlot::install(
            ctx,
            RunState {
                meta,
                model: start.model,
                base_model: self.model.clone(),
                run_context: start.additional_context,
                stats: SessionStats::default(),
                started: Instant::now(),
                model_call_at: None,
                pending: Default::default(),
            },
        ))
    }

    /// `post_model_call` on a reply: its rewrite of the text replaces the reply's text.
    async fn model_replied(
        &self,
        ctx: &HookContext,
        response: &CompletionResponse,
    ) -> OutcomeAction {
        let slot = match self.session(ctx).await {
            Ok(slot) => slot,
            Err(reason) => return OutcomeAction::stop(reason),
        };
        let input = response.usage.input_tokens.unwrap_or(0);
        let output = response.usage.output_tokens.unwrap_or(0);
        let usage = TokenUsage::new(input, output);
        let (meta, model, duration) = {
            let mut state = slot.lock();
            // Counted as the provider reported them, before any hook can stop the run.
            state.stats.tokens += usage;
            state.stats.model_calls = state.stats.model_calls.saturating_add(1);
            let duration = state
                .model_call_at
                .take()
                .map_or(0, |at| millis(at.elapsed()));
            (state.meta.next(), state.model.clone(), duration)
        };
        let model = response
            .origin
            .response_model
            .clone()
            .filter(|m| !m.is_empty())
            .unwrap_or(model);
        let text = convert::reply_text(&response.choice);
        let mut post = PostModelCall::new(meta, model, text.clone(), usage, duration);
        post.stop_reason = response.finish_reason().as_ref().map(convert::stop_reason);
        post.tool_calls = convert::reply_tool_calls(&response.choice);
        let out = self
            .hooks
            .dispatch_async::<points::post_model_call::Point>(&mut post)
            .await;
        if let Err(reason) = closed("post_model_call", &out) {
            return OutcomeAction::stop(reason);
        }
        if post.response == text {
            return OutcomeAction::proceed();
        }
        let rewritten = convert::rewrite_reply(response, post.response);
        OutcomeAction::replace(Ok(RigOutcome::Completion(rewritten)))
    }

    /// `post_tool_use` on a tool's result: what its transforms leave is what the model sees.
    async fn tool_ran(
        &self,
        ctx: &HookContext,
        event: &OutcomeEvent<'_>,
        result: &ToolResult,
    ) -> OutcomeAction {
        let Some(slot) = RunSlot::of(ctx) else {
            return OutcomeAction::proceed();
        };
        let Some(PendingTool { pre, at }) = slot.lock().pending.remove(&event.id) else {
            // Denied by this adapter (already answered with the reason), or never seen.
            return OutcomeAction::proceed();
        };
        if result.is_skipped() {
            // A hook after this one skipped the call: nothing ran, nothing to report.
            return OutcomeAction::proceed();
        }
        let failed = !result.is_success();
        let (response, shape) = if failed {
            (Value::Null, None)
        } else {
            let (value, shape) = convert::output_value(result.output());
            (value, Some(shape))
        };
        let mut post = PostToolUse::after(&pre, response.clone(), millis(at.elapsed()));
        let error = failed.then(|| result.output().render());
        post.error = error.clone();
        {
            let mut state = slot.lock();
            state.stats.tool_calls = state.stats.tool_calls.saturating_add(1);
        }
        let out = self
            .hooks
            .dispatch_async::<points::post_tool_use::Point>(&mut post)
            .await;
        if let Err(reason) = closed("post_tool_use", &out) {
            return OutcomeAction::stop(reason);
        }
        let context: Vec<String> = pre
            .additional_context
            .iter()
            .chain(&post.additional_context)
            .cloned()
            .collect();
        let output = match shape {
            // Seed 000 `suppressOutput`: the call is answered (every call needs a result), not
            // with what the tool returned.
            _ if post.output_suppressed => ToolOutput::text(SUPPRESSED_OUTPUT),
            Some(shape) if post.tool_response != response => {
                convert::value_output(post.tool_response, shape)
            }
            Some(_) => result.output().clone(),
            None if post.error != error => {
                ToolOutput::text(post.error.unwrap_or_else(|| "the tool failed".to_owned()))
            }
            None => result.output().clone(),
        };
        let unchanged = context.is_empty() && &output == result.output();
        if unchanged {
            return OutcomeAction::proceed();
        }
        let output = convert::with_context(output, &context);
        OutcomeAction::replace(Ok(RigOutcome::ToolResult {
            result: result.clone().with_output(output),
        }))
    }

    /// A guard's outcome, as [`Session`](hookrail_core::runtime::Session) reads it: `Ok` to
    /// go on; a deny, or an ask the approver refused (or nobody could answer), is the reason
    /// to give.
    fn pass(&self, point: &'static str, out: Outcome<Verdict>) -> Result<(), String> {
        guard_passes(point, out, self.approver.as_deref()).map_err(|denied| {
            tracing::info!(%denied, "a hookrail guard stopped a rig step");
            denied.to_string()
        })
    }
}

/// A transform's outcome: a hook that failed closed stops the run.
fn closed(point: &'static str, out: &Outcome<()>) -> Result<(), String> {
    match out.failures.iter().find(|f| f.policy == OnError::Deny) {
        Some(failure) => {
            let reason = format!("{point}: {failure} (fail closed)");
            tracing::error!(%reason, "a hookrail hook failed closed; stopping the rig run");
            Err(reason)
        }
        None => Ok(()),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
