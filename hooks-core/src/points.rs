//! The standard hook-point catalog: 20 points of the agent loop.
//!
//! Each point is a module holding its marker type `Point`, its `Context` alias, and `dispatch` /
//! `dispatch_async` functions. Name a point in `#[hook(...)]` by its module name:
//! `#[hook(pre_tool_use)]`.
//!
//! | point | kind | context | Claude Code | Squad (seed 000) | GWI (001) | SecureYeoman (002) | AI-centric (003) | infer (004) |
//! |---|---|---|---|---|---|---|---|---|
//! | [`session_start`] | transform | [`SessionStart`] | SessionStart | onSessionStart | runStart | agent_init | | pre_session |
//! | [`session_end`] | observe | [`SessionEnd`] | SessionEnd | onSessionEnd | runEnd | agent_shutdown | SessionStop | post_session |
//! | [`user_prompt_submit`] | guard | [`UserPromptSubmit`] | UserPromptSubmit | onUserPromptSubmitted | | message_received, prompt_assembly_* | PromptSubmit | pre |
//! | [`pre_model_call`] | guard | [`PreModelCall`] | | | | before_llm_call | | pre_stream |
//! | [`model_stream_chunk`] | transform | [`ModelStreamChunk`] | | | | stream_chunk | | |
//! | [`post_model_call`] | transform | [`PostModelCall`] | | | | after_llm_call, stream_end | ModelOutput | post_stream |
//! | [`pre_tool_use`] | guard | [`PreToolUse`] | PreToolUse | onPreToolUse | | tool_execute_before | PreAbilityCall | pre_tool |
//! | [`post_tool_use`] | transform | [`PostToolUse`] | PostToolUse, PostToolUseFailure | onPostToolUse | | tool_execute_after | PostAbilityCall | post_tool |
//! | [`step_end`] | observe | [`StepEnd`] | | | afterStep | message_loop_end | | post |
//! | [`stop`] | guard | [`Stop`] | Stop | | | | | |
//! | [`pre_compact`] | transform | [`PreCompact`] | PreCompact | onPreCompact | | | | |
//! | [`subagent_start`] | guard | [`SubagentStart`] | SubagentStart | onSubagentStart | | delegation_before | | |
//! | [`subagent_stop`] | observe | [`SubagentStop`] | SubagentStop | onSubagentStop | | delegation_after, sub_agent_sealed | | |
//! | [`error_occurred`] | recover | [`ErrorOccurred`] | StopFailure | onErrorOccurred | | | | |
//! | [`notification`] | observe | [`Notification`] | Notification | | | message_sent | | |
//! | [`pre_queue_drain`] | observe | [`PreQueueDrain`] | | | | | | pre_queue_drain |
//! | [`post_queue_drain`] | observe | [`PostQueueDrain`] | | | | | | post_queue_drain |
//! | [`permission_request`] | guard | [`PermissionRequest`] | PermissionRequest | | | | | |
//! | [`post_tool_batch`] | guard | [`PostToolBatch`] | PostToolBatch | | | | | |
//! | [`pre_model_switch`] | guard | [`PreModelSwitch`] | PreModelSwitch | | | | | |
//!
//! Semantics of the kinds: see [`crate::kind`]. A crate declares points of its own with
//! [`hook_points!`](crate::hook_points).

use crate::context::*;

// Slice identifiers name linker sections and must be unique in the final binary, also when two
// semver-incompatible versions of hookrail-core are linked: they carry the version (0.1 here;
// change it with every breaking release).

/// The names of the standard points, in catalog order.
pub const NAMES: [&str; 20] = [
    "session_start",
    "session_end",
    "user_prompt_submit",
    "pre_model_call",
    "model_stream_chunk",
    "post_model_call",
    "pre_tool_use",
    "post_tool_use",
    "step_end",
    "stop",
    "pre_compact",
    "subagent_start",
    "subagent_stop",
    "error_occurred",
    "notification",
    "pre_queue_drain",
    "post_queue_drain",
    "permission_request",
    "post_tool_batch",
    "pre_model_switch",
];

crate::__declare_point! {
    /// When a session begins: inject context, pick or change the model.
    ///
    /// Transform over [`SessionStart`]. Corresponds to Claude Code `SessionStart`, Squad
    /// `onSessionStart`, GWI `runStart`, SecureYeoman `agent_init`, infer `pre_session`.
    pub transform session_start: SessionStart => HOOKS_CORE_V0_1_SESSION_START
}

crate::__declare_point! {
    /// When a session ends, with its totals (tokens, tool calls, files modified, duration).
    ///
    /// Observe over [`SessionEnd`]. Corresponds to Claude Code `SessionEnd`, Squad
    /// `onSessionEnd`, GWI `runEnd`, SecureYeoman `agent_shutdown`, seed 003 `SessionStop`,
    /// infer `post_session`.
    pub observe session_end: SessionEnd => HOOKS_CORE_V0_1_SESSION_END
}

crate::__declare_point! {
    /// When the user submits a prompt, before the model sees it: block it, rewrite it, add
    /// context, capture directives.
    ///
    /// Guard over [`UserPromptSubmit`]. Corresponds to Claude Code `UserPromptSubmit`, Squad
    /// `onUserPromptSubmitted`, SecureYeoman `message_received` and `prompt_assembly_*`,
    /// seed 003 `PromptSubmit`, infer `pre`.
    pub guard user_prompt_submit: UserPromptSubmit => HOOKS_CORE_V0_1_USER_PROMPT_SUBMIT
}

crate::__declare_point! {
    /// Before each model call: deny it (budget, rate limit) or switch the model.
    ///
    /// Guard over [`PreModelCall`]. Corresponds to SecureYeoman `before_llm_call`, infer
    /// `pre_stream`.
    pub guard pre_model_call: PreModelCall => HOOKS_CORE_V0_1_PRE_MODEL_CALL
}

crate::__declare_point! {
    /// For each streamed chunk of a model response: rewrite it (redaction) before it is shown.
    ///
    /// Transform over [`ModelStreamChunk`]. Corresponds to SecureYeoman `stream_chunk`.
    pub transform model_stream_chunk: ModelStreamChunk => HOOKS_CORE_V0_1_MODEL_STREAM_CHUNK
}

crate::__declare_point! {
    /// After a model call: rewrite the response (redaction), account its tokens.
    ///
    /// Transform over [`PostModelCall`]. Corresponds to SecureYeoman `after_llm_call` and
    /// `stream_end`, seed 003 `ModelOutput`, infer `post_stream`.
    pub transform post_model_call: PostModelCall => HOOKS_CORE_V0_1_POST_MODEL_CALL
}

crate::__declare_point! {
    /// Before a tool runs: allow, ask, deny, rewrite its input, add context.
    ///
    /// Guard over [`PreToolUse`]. Corresponds to Claude Code `PreToolUse`, Squad
    /// `onPreToolUse`, SecureYeoman `tool_execute_before`, seed 003 `PreAbilityCall`, infer
    /// `pre_tool`.
    pub guard pre_tool_use: PreToolUse => HOOKS_CORE_V0_1_PRE_TOOL_USE
}

crate::__declare_point! {
    /// After a tool ran or failed: rewrite its output (redaction), add context.
    ///
    /// Transform over [`PostToolUse`]. Corresponds to Claude Code `PostToolUse` and
    /// `PostToolUseFailure`, Squad `onPostToolUse`, SecureYeoman `tool_execute_after`,
    /// seed 003 `PostAbilityCall`, infer `post_tool`.
    pub transform post_tool_use: PostToolUse => HOOKS_CORE_V0_1_POST_TOOL_USE
}

crate::__declare_point! {
    /// After each agent step (one loop iteration or pipeline stage).
    ///
    /// Observe over [`StepEnd`]. Corresponds to GWI `afterStep`, SecureYeoman
    /// `message_loop_end`, infer `post`.
    pub observe step_end: StepEnd => HOOKS_CORE_V0_1_STEP_END
}

crate::__declare_point! {
    /// When the agent wants to stop: a deny keeps it working, with the reason as its next
    /// instruction. Check [`Stop::stop_hook_active`] to avoid endless loops.
    ///
    /// Guard over [`Stop`]. Corresponds to Claude Code `Stop`.
    pub guard stop: Stop => HOOKS_CORE_V0_1_STOP
}

crate::__declare_point! {
    /// Before the conversation is compacted: say what to preserve, export state.
    ///
    /// Transform over [`PreCompact`]. Corresponds to Claude Code `PreCompact`, Squad
    /// `onPreCompact`.
    pub transform pre_compact: PreCompact => HOOKS_CORE_V0_1_PRE_COMPACT
}

crate::__declare_point! {
    /// Before a subagent is spawned: deny it (budget) or switch its model.
    ///
    /// Guard over [`SubagentStart`]. Corresponds to Claude Code `SubagentStart`, Squad
    /// `onSubagentStart`, SecureYeoman `delegation_before`.
    pub guard subagent_start: SubagentStart => HOOKS_CORE_V0_1_SUBAGENT_START
}

crate::__declare_point! {
    /// When a subagent finished, with its totals.
    ///
    /// Observe over [`SubagentStop`]. Corresponds to Claude Code `SubagentStop`, Squad
    /// `onSubagentStop`, SecureYeoman `delegation_after` and `sub_agent_sealed`.
    pub observe subagent_stop: SubagentStop => HOOKS_CORE_V0_1_SUBAGENT_STOP
}

crate::__declare_point! {
    /// When a model call, tool or other step fails: retry, fall back to another model, or give
    /// up. The first hook that returns a recovery wins.
    ///
    /// Recover over [`ErrorOccurred`]. Corresponds to Claude Code `StopFailure`, Squad
    /// `onErrorOccurred`.
    pub recover error_occurred: ErrorOccurred => HOOKS_CORE_V0_1_ERROR_OCCURRED
}

crate::__declare_point! {
    /// When the agent notifies the user (needs permission, idle, done).
    ///
    /// Observe over [`Notification`]. Corresponds to Claude Code `Notification`, SecureYeoman
    /// `message_sent`.
    pub observe notification: Notification => HOOKS_CORE_V0_1_NOTIFICATION
}

crate::__declare_point! {
    /// Before queued user messages are fed to the agent.
    ///
    /// Observe over [`PreQueueDrain`]. Corresponds to infer `pre_queue_drain`.
    pub observe pre_queue_drain: PreQueueDrain => HOOKS_CORE_V0_1_PRE_QUEUE_DRAIN
}

crate::__declare_point! {
    /// After queued user messages were fed to the agent.
    ///
    /// Observe over [`PostQueueDrain`]. Corresponds to infer `post_queue_drain`.
    pub observe post_queue_drain: PostQueueDrain => HOOKS_CORE_V0_1_POST_QUEUE_DRAIN
}

crate::__declare_point! {
    /// Before the user is asked whether a tool call may run: allow or deny it for them.
    ///
    /// Guard over [`PermissionRequest`]. Corresponds to Claude Code `PermissionRequest`,
    /// Copilot `permissionRequest`.
    pub guard permission_request: PermissionRequest => HOOKS_CORE_V0_1_PERMISSION_REQUEST
}

crate::__declare_point! {
    /// After every tool call of one model turn finished: a deny stops the loop before the next
    /// model call.
    ///
    /// Guard over [`PostToolBatch`]. Corresponds to Claude Code `PostToolBatch`.
    pub guard post_tool_batch: PostToolBatch => HOOKS_CORE_V0_1_POST_TOOL_BATCH
}

crate::__declare_point! {
    /// Before the session switches its model: allow, ask or deny the switch.
    ///
    /// Guard over [`PreModelSwitch`]. Corresponds to Claude Code `PreModelSwitch`.
    pub guard pre_model_switch: PreModelSwitch => HOOKS_CORE_V0_1_PRE_MODEL_SWITCH
}

/// Gate for `#[hook(<ident>)]`: expands the body for a standard point, and one clear error
/// listing the valid points otherwise. Kept in step with the catalog by a test.
#[doc(hidden)]
#[macro_export]
macro_rules! __core_point {
    (session_start => { $($body:tt)* }) => { $($body)* };
    (session_end => { $($body:tt)* }) => { $($body)* };
    (user_prompt_submit => { $($body:tt)* }) => { $($body)* };
    (pre_model_call => { $($body:tt)* }) => { $($body)* };
    (model_stream_chunk => { $($body:tt)* }) => { $($body)* };
    (post_model_call => { $($body:tt)* }) => { $($body)* };
    (pre_tool_use => { $($body:tt)* }) => { $($body)* };
    (post_tool_use => { $($body:tt)* }) => { $($body)* };
    (step_end => { $($body:tt)* }) => { $($body)* };
    (stop => { $($body:tt)* }) => { $($body)* };
    (pre_compact => { $($body:tt)* }) => { $($body)* };
    (subagent_start => { $($body:tt)* }) => { $($body)* };
    (subagent_stop => { $($body:tt)* }) => { $($body)* };
    (error_occurred => { $($body:tt)* }) => { $($body)* };
    (notification => { $($body:tt)* }) => { $($body)* };
    (pre_queue_drain => { $($body:tt)* }) => { $($body)* };
    (post_queue_drain => { $($body:tt)* }) => { $($body)* };
    (permission_request => { $($body:tt)* }) => { $($body)* };
    (post_tool_batch => { $($body:tt)* }) => { $($body)* };
    (pre_model_switch => { $($body:tt)* }) => { $($body)* };
    ($other:ident => { $($body:tt)* }) => {
        ::core::compile_error!(::core::concat!(
            "unknown hook point `", ::core::stringify!($other), "`; expected one of: ",
            "session_start, session_end, user_prompt_submit, pre_model_call, ",
            "model_stream_chunk, post_model_call, pre_tool_use, post_tool_use, step_end, stop, ",
            "pre_compact, subagent_start, subagent_stop, error_occurred, notification, ",
            "pre_queue_drain, post_queue_drain, permission_request, post_tool_batch, ",
            "pre_model_switch; ",
            "a point declared in another crate is named by its path, e.g. ",
            "`#[hook(my_crate::points::my_point)]`"
        ));
    };
}
