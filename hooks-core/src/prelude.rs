//! The common imports, for `use hookrail_core::prelude::*;`.
//!
//! It holds what hook authors and agent loops name most: the `#[hook]` attribute, verdicts and
//! recoveries, the runtime ([`Hooks`], [`Session`] and what its calls return), the message
//! types of an LLM loop ([`Message`], [`ContentBlock`], [`ToolCall`], …) and the contexts of
//! the tool, model, prompt and session points. Contexts with generic names (`Stop`,
//! `Notification`, …) stay in [`context`](crate::context), so a glob import does not shadow
//! names of your own.
//!
//! ```
//! use hookrail_core::prelude::*;
//!
//! #[hook(pre_tool_use, name = "no_force_push")]
//! fn no_force_push(ctx: &mut PreToolUse) -> Verdict {
//!     match ctx.command() {
//!         Some(cmd) if cmd.contains("push --force") => Verdict::deny("no force pushes"),
//!         _ => Verdict::Continue,
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut session = Session::start(Hooks::builder().build()?, Meta::new("s1"), "m").await?;
//! let call = ToolCall::new("toolu_1", "Bash", serde_json::json!({"command": "git push --force"}));
//! let run = session.tool_call(call, async |_| Ok(serde_json::json!("pushed"))).await?;
//! assert!(matches!(run, ToolRun::Denied { .. }));
//! # Ok(())
//! # }
//! ```

pub use crate::context::{
    Content, ContentBlock, Message, Meta, PostModelCall, PostToolUse, PreModelCall, PreToolUse,
    Role, SessionEnd, SessionEndReason, SessionStart, TokenUsage, ToolCall, UserPromptSubmit,
};
pub use crate::points;
#[cfg(feature = "runtime")]
pub use crate::runtime::{
    AgentError, Hook, Hooks, HooksProvider, ModelReply, Session, SessionError, ToolError, ToolRun,
    TurnEnd,
};
pub use crate::{HookResult, OnError, Recovery, Verdict, hook};
