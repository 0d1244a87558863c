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
//! [`Meta::cwd`] is where relative paths start and comes from the event; the project root is
//! [`Meta::project_root`]: the [`Meta::project_dir`] the caller set (never read from an event),
//! else `cwd`. Guards that protect the project use the root, not `cwd`.
//!
//! Values that hooks may rewrite and that later hooks or points need in their original form are
//! held in a [`Rewritable`], which keeps the original beside the current value.
//!
//! The model points carry the conversation as [`Message`]s of [`ContentBlock`]s (text,
//! `tool_use`, `tool_result`, image) in the shape of Anthropic's Messages API; [`openai`]
//! converts conversations to and from OpenAI's chat format. A model's tool call is a
//! [`ToolCall`] (id, name, input); its id is the tool contexts' `tool_use_id`.

mod common;
mod lifecycle;
mod message;
mod model;
pub mod openai;
mod prompt;
mod session;
mod subagent;
mod tool;

pub use common::{InvocationSource, Meta, Rewritable, TokenUsage, UnknownSource};
pub use lifecycle::{
    CompactTrigger, ErrorKind, ErrorOccurred, Notification, PostQueueDrain, PreCompact,
    PreQueueDrain, StepEnd, StepStatus, Stop,
};
pub use message::{Content, ContentBlock, ImageSource, Message, Role, ToolCall};
pub use model::{ModelStreamChunk, PostModelCall, PreModelCall, PreModelSwitch};
pub use prompt::UserPromptSubmit;
pub use session::{SessionEnd, SessionEndReason, SessionSource, SessionStart};
pub use subagent::{SubagentStart, SubagentStatus, SubagentStop};
pub use tool::{PermissionRequest, PostToolBatch, PostToolUse, PreToolUse, SUPPRESSED_OUTPUT};

/// Calls `$then!` with every standard point's context type.
macro_rules! standard_contexts {
    ($then:ident) => {
        $then!(
            PreToolUse,
            PostToolUse,
            PreModelCall,
            PostModelCall,
            ModelStreamChunk,
            UserPromptSubmit,
            SessionStart,
            SessionEnd,
            StepEnd,
            Stop,
            PreCompact,
            SubagentStart,
            SubagentStop,
            ErrorOccurred,
            Notification,
            PreQueueDrain,
            PostQueueDrain,
            PermissionRequest,
            PostToolBatch,
            PreModelSwitch,
        )
    };
}

/// The shared fields of a standard point's context seen as `&dyn Any` (as
/// [`HookRun::context`](crate::runtime::HookRun::context) gives it); `None` for a custom
/// point's context.
///
/// ```
/// use hookrail_core::context::{Meta, Stop, meta_of};
///
/// let stop = Stop::new(Meta::new("s1"));
/// assert_eq!(meta_of(&stop).map(|m| &*m.session_id), Some("s1"));
/// assert!(meta_of(&42_u8).is_none());
/// ```
pub fn meta_of(ctx: &dyn std::any::Any) -> Option<&Meta> {
    macro_rules! try_each {
        ($($t:ty),* $(,)?) => {$(
            if let Some(c) = ctx.downcast_ref::<$t>() {
                return Some(&c.meta);
            }
        )*};
    }
    standard_contexts!(try_each);
    None
}

/// [`meta_of`], mutable: for a caller that decodes a context generically and then sets what
/// the event cannot say, such as [`Meta::project_dir`].
///
/// ```
/// use hookrail_core::context::{Meta, Stop, meta_of_mut};
/// use std::path::Path;
///
/// let mut stop = Stop::new(Meta::new("s1").with_cwd("/usr"));
/// if let Some(meta) = meta_of_mut(&mut stop) {
///     meta.project_dir = Some(Path::new("/work/project").into());
/// }
/// assert_eq!(stop.meta.project_root(), Path::new("/work/project"));
/// assert!(meta_of_mut(&mut 42_u8).is_none());
/// ```
pub fn meta_of_mut(ctx: &mut dyn std::any::Any) -> Option<&mut Meta> {
    macro_rules! try_each {
        ($($t:ty),* $(,)?) => {$(
            if ctx.is::<$t>() {
                return ctx.downcast_mut::<$t>().map(|c| &mut c.meta);
            }
        )*};
    }
    standard_contexts!(try_each);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_of_reads_every_standard_context_and_none_for_others() {
        let ctx = PostToolUse::new(
            Meta::new("s9").with_tenant("t"),
            "Read",
            json!({}),
            json!(1),
            3,
        );
        let m = meta_of(&ctx).unwrap();
        assert_eq!((&*m.session_id, m.tenant.as_deref()), ("s9", Some("t")));
        let end = SessionEnd::new(Meta::new("s8"), Default::default(), true);
        assert_eq!(&*meta_of(&end).unwrap().session_id, "s8");
        assert!(meta_of(&42u32).is_none());
    }

    #[test]
    fn meta_of_mut_reaches_the_same_meta_as_meta_of() {
        let mut ctx = PreToolUse::new(Meta::new("s1").with_cwd("/usr"), "Bash", json!({}));
        meta_of_mut(&mut ctx).unwrap().project_dir = Some(std::path::Path::new("/p").into());
        assert_eq!(
            meta_of(&ctx).unwrap().project_root(),
            std::path::Path::new("/p")
        );
        let mut end = SessionEnd::new(Meta::new("s8"), Default::default(), true);
        assert_eq!(&*meta_of_mut(&mut end).unwrap().session_id, "s8");
        assert!(meta_of_mut(&mut 42u32).is_none());
    }
}
