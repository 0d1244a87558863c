//! The typed contexts hooks receive, one per standard point.
//!
//! Every context carries the shared [`Meta`] fields (flattened into its JSON) and the point's own
//! fields. Contexts are `serde` types whose JSON field names follow Claude Code's hook input
//! (`session_id`, `cwd`, `tool_name`, `tool_input`, `tool_response`, `prompt`, …), so the same
//! value can be handed to command hooks.
//!
//! Contexts are `#[non_exhaustive]`: build them with `new` (the required fields) and set the
//! optional public fields afterwards.
//!
//! Values that hooks may rewrite and that later hooks or points need in their original form are
//! held in a [`Rewritable`], which keeps the original beside the current value.

mod common;
mod lifecycle;
mod model;
mod prompt;
mod session;
mod subagent;
mod tool;

pub use common::{InvocationSource, Meta, Rewritable, TokenUsage};
pub use lifecycle::{
    CompactTrigger, ErrorKind, ErrorOccurred, Notification, PostQueueDrain, PreCompact,
    PreQueueDrain, StepEnd, StepStatus, Stop,
};
pub use model::{Message, ModelStreamChunk, PostModelCall, PreModelCall, Role};
pub use prompt::UserPromptSubmit;
pub use session::{SessionEnd, SessionEndReason, SessionSource, SessionStart};
pub use subagent::{SubagentStart, SubagentStatus, SubagentStop};
pub use tool::{PostToolUse, PreToolUse};
