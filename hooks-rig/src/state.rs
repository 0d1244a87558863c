//! What the adapter keeps for one rig run (one hookrail session): the session's fields and
//! counters, and the tool calls between their `pre_tool_use` and `post_tool_use`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::runtime::SessionStats;
use rig_agent::agent::HookContext;
use rig_core::effect::EffectId;

/// One run's state.
#[derive(Debug)]
pub(crate) struct RunState {
    /// The session's shared fields (its id is the rig run's id).
    pub meta: Meta,
    /// The model as hooks left it (`session_start` and `pre_model_call` may switch it).
    pub model: String,
    /// The model the agent was built with: a different [`model`](Self::model) is selected
    /// by label for the next call.
    pub base_model: String,
    /// Context `session_start` and `user_prompt_submit` hooks added, sent with every model
    /// call of the run.
    pub run_context: Vec<String>,
    /// Counters for `session_end`.
    pub stats: SessionStats,
    /// When the run started.
    pub started: Instant,
    /// When the pending model call was allowed, for `post_model_call`'s duration.
    pub model_call_at: Option<Instant>,
    /// Allowed tool calls waiting for their result, by the dispatch's id.
    pub pending: HashMap<EffectId, PendingTool>,
}

/// A tool call `pre_tool_use` let through.
#[derive(Debug)]
pub(crate) struct PendingTool {
    /// The context after the guards (rewritten input, added context).
    pub pre: PreToolUse,
    /// When it was dispatched.
    pub at: Instant,
}

/// The shared handle the run's scratchpad holds; a private type, so no other hook can read
/// or replace it.
#[derive(Clone, Debug)]
pub(crate) struct RunSlot(Arc<Mutex<RunState>>);

impl RunSlot {
    /// The slot of the run `ctx` belongs to, if the adapter has seen it start.
    pub fn of(ctx: &HookContext) -> Option<RunSlot> {
        ctx.scratchpad().get::<RunSlot>()
    }

    /// Put `state` in the run's scratchpad.
    pub fn install(ctx: &HookContext, state: RunState) -> RunSlot {
        let slot = RunSlot(Arc::new(Mutex::new(state)));
        ctx.scratchpad().insert(slot.clone());
        slot
    }

    /// Lock the state. A panic elsewhere while holding it leaves counters at worst a step
    /// behind, which is no reason to stop guarding the run.
    pub fn lock(&self) -> MutexGuard<'_, RunState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Take the state out of the run's scratchpad (at its end).
    pub fn remove(ctx: &HookContext) -> Option<RunSlot> {
        ctx.scratchpad().remove::<RunSlot>()
    }
}
