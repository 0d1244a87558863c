use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Meta, Rewritable};
use crate::signal::{HookSignal, SignalEvent};

/// Context of [`pre_tool_use`](crate::points::pre_tool_use): a tool call the model requested,
/// before it runs.
///
/// Guards may deny or ask, add context for the model, and rewrite the input with
/// [`Rewritable::set`]; later hooks and `post_tool_use` still see the original.
///
/// ```
/// use hookrail_core::context::{Meta, PreToolUse};
/// use serde_json::json;
///
/// let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls -la"}));
/// assert_eq!(ctx.command(), Some("ls -la"));
/// ctx.tool_input.set(json!({"command": "ls"}));
/// assert_eq!(ctx.tool_input.original()["command"], "ls -la");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreToolUse {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The tool's name (Claude Code `tool_name`: `Bash`, `Write`, `Edit`, `mcp__server__tool`, …).
    pub tool_name: String,
    /// The tool call's id (Claude Code `tool_use_id`, Anthropic `toolu_…`, OpenAI `call_…`);
    /// set by [`Session::tool_call`](crate::runtime::Session::tool_call) from the
    /// [`ToolCall`](super::ToolCall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The tool's arguments (Claude Code `tool_input`, Squad `toolArgs`); guards may rewrite them.
    pub tool_input: Rewritable<Value>,
    /// Text for the model, added by hooks in order (Claude Code `additionalContext`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// Seed 003 hook signals (`ability_guard`) the hooks emitted, in the order they ran;
    /// [`guard_decision`](crate::signal::guard_decision) enforces them. Sent to command
    /// hooks, never read from an event: an event cannot pose as a hook.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub hook_signals: Vec<HookSignal>,
}

impl PreToolUse {
    /// A call of `tool_name` with `tool_input`.
    pub fn new(meta: Meta, tool_name: impl Into<String>, tool_input: Value) -> Self {
        PreToolUse {
            meta,
            tool_name: tool_name.into(),
            tool_use_id: None,
            tool_input: Rewritable::new(tool_input),
            additional_context: Vec::new(),
            hook_signals: Vec::new(),
        }
    }

    /// The shell command, when the input has a string `command` field (Claude Code's `Bash`
    /// tool and most shell tools).
    pub fn command(&self) -> Option<&str> {
        self.tool_input.get().get("command")?.as_str()
    }

    /// The target path, when the input has a string `file_path` or `path` field (Claude Code's
    /// `Write`, `Edit`, `Read`).
    pub fn file_path(&self) -> Option<&str> {
        let input = self.tool_input.get();
        input
            .get("file_path")
            .or_else(|| input.get("path"))?
            .as_str()
    }

    /// Add text for the model.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }

    /// Emit a seed 003 hook signal (its `source_event` becomes `PreAbilityCall`).
    pub fn add_signal(&mut self, mut signal: HookSignal) {
        signal.source_event = SignalEvent::PreAbilityCall;
        self.hook_signals.push(signal);
    }
}

/// Context of [`post_tool_use`](crate::points::post_tool_use): a tool call that ran (or failed).
///
/// Transforms may rewrite `tool_response` (to redact secrets, say), add context, and withhold
/// the output from the model with [`suppress_output`](Self::suppress_output) (seed 000
/// `suppressOutput`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostToolUse {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The tool's name.
    pub tool_name: String,
    /// The tool call's id, as `pre_tool_use` had it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The input the tool ran with (after any `pre_tool_use` rewrite).
    pub tool_input: Value,
    /// The input as the model requested it, when a `pre_tool_use` hook rewrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_tool_input: Option<Value>,
    /// The tool's result (Claude Code `tool_response`, Squad `toolResult`); transforms may
    /// rewrite it. `null` when the event has none (Claude Code's `PostToolUseFailure`).
    #[serde(default)]
    pub tool_response: Value,
    /// The error, when the tool failed (Claude Code `PostToolUseFailure.error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the failure was an interruption (Claude Code `PostToolUseFailure.is_interrupt`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_interrupt: bool,
    /// How long the tool ran (Claude Code `duration_ms`, Squad `durationMs`).
    #[serde(default)]
    pub duration_ms: u64,
    /// Text for the model, added by hooks in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// True when a hook asked to keep the tool's output (its response, or its error message)
    /// from the model (seed 000 `suppressOutput`; set it with
    /// [`suppress_output`](Self::suppress_output)). The call is still answered, as the model
    /// APIs require a result for every call: with [`SUPPRESSED_OUTPUT`] in place of the output,
    /// followed by the hooks' added context, and still marked as an error when the tool failed
    /// ([`ToolRun::tool_result`](crate::runtime::ToolRun::tool_result) builds that answer; the
    /// rig adapter sends the same). The output itself stays in this context for the caller
    /// (logs, a UI).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output_suppressed: bool,
}

/// What the model gets in place of a tool's output that a `post_tool_use` hook suppressed
/// ([`PostToolUse::output_suppressed`]).
pub const SUPPRESSED_OUTPUT: &str = "[the tool's output was withheld by a hook]";

impl PostToolUse {
    /// A finished call of `tool_name`.
    pub fn new(
        meta: Meta,
        tool_name: impl Into<String>,
        tool_input: Value,
        tool_response: Value,
        duration_ms: u64,
    ) -> Self {
        PostToolUse {
            meta,
            tool_name: tool_name.into(),
            tool_use_id: None,
            tool_input,
            original_tool_input: None,
            tool_response,
            error: None,
            is_interrupt: false,
            duration_ms,
            additional_context: Vec::new(),
            output_suppressed: false,
        }
    }

    /// The context after the call described by `pre` ran: tool name, id and (rewritten) input
    /// are taken from it, and the original input is kept when a hook rewrote it.
    pub fn after(pre: &PreToolUse, tool_response: Value, duration_ms: u64) -> Self {
        PostToolUse {
            meta: pre.meta.next(),
            tool_name: pre.tool_name.clone(),
            tool_use_id: pre.tool_use_id.clone(),
            tool_input: pre.tool_input.get().clone(),
            original_tool_input: pre
                .tool_input
                .is_rewritten()
                .then(|| pre.tool_input.original().clone()),
            tool_response,
            error: None,
            is_interrupt: false,
            duration_ms,
            additional_context: Vec::new(),
            output_suppressed: false,
        }
    }

    /// True when the tool failed.
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// Add text for the model.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }

    /// Keep the tool's output from the model (seed 000 `suppressOutput`): see
    /// [`output_suppressed`](Self::output_suppressed).
    pub fn suppress_output(&mut self) {
        self.output_suppressed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pre_tool_use_json_uses_claude_code_field_names() {
        let ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls"}));
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["session_id"], "s1");
        assert_eq!(v["tool_name"], "Bash");
        assert_eq!(v["tool_input"]["command"], "ls");
        assert!(v.get("additional_context").is_none());
        let back: PreToolUse = serde_json::from_value(v).unwrap();
        assert_eq!(back, ctx);
    }

    #[test]
    fn post_tool_use_after_a_rewrite_keeps_the_original_input() {
        let mut pre = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "rm -rf b"}));
        pre.tool_input.set(json!({"command": "rm -rf ./b"}));
        let post = PostToolUse::after(&pre, json!({"exit_code": 0}), 12);
        assert_eq!(post.tool_input["command"], "rm -rf ./b");
        assert_eq!(post.original_tool_input.unwrap()["command"], "rm -rf b");
    }

    #[test]
    fn a_suppressed_output_is_serialized_only_when_set() {
        let mut post = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("secret"), 1);
        assert!(
            serde_json::to_value(&post)
                .unwrap()
                .get("output_suppressed")
                .is_none()
        );
        post.suppress_output();
        let v = serde_json::to_value(&post).unwrap();
        assert_eq!(v["output_suppressed"], true);
        assert!(
            serde_json::from_value::<PostToolUse>(v)
                .unwrap()
                .output_suppressed
        );
    }
}

/// Context of [`permission_request`](crate::points::permission_request): the agent is about to
/// ask the user whether a tool call may run (its permission dialog).
///
/// Guards answer for the user: allow, deny (with a message for the model), or continue to
/// leave it to the dialog; an ask is the dialog itself.
///
/// Corresponds to: Claude Code `PermissionRequest`, Copilot `permissionRequest`.
///
/// ```
/// use hookrail_core::context::{Meta, PermissionRequest};
/// use serde_json::json;
///
/// let ctx = PermissionRequest::new(Meta::new("s1"), "Bash", json!({"command": "rm -rf node_modules"}));
/// assert_eq!(ctx.tool_input["command"], "rm -rf node_modules");
/// assert!(ctx.permission_suggestions.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The tool's name (Claude Code `tool_name`).
    pub tool_name: String,
    /// The tool's arguments (Claude Code `tool_input`).
    #[serde(default)]
    pub tool_input: Value,
    /// The rules the dialog would offer to remember (Claude Code `permission_suggestions`),
    /// as sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
    /// Text for the model, added by hooks in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
}

impl PermissionRequest {
    /// A permission request for a call of `tool_name` with `tool_input`.
    pub fn new(meta: Meta, tool_name: impl Into<String>, tool_input: Value) -> Self {
        PermissionRequest {
            meta,
            tool_name: tool_name.into(),
            tool_input,
            permission_suggestions: Vec::new(),
            additional_context: Vec::new(),
        }
    }
}

/// Context of [`post_tool_batch`](crate::points::post_tool_batch): every tool call of one
/// model turn has finished, before the results go back to the model.
///
/// A deny stops the loop before the next model call, its reason the explanation.
///
/// Corresponds to: Claude Code `PostToolBatch`.
///
/// ```
/// use hookrail_core::context::{Meta, PostToolBatch};
/// use serde_json::json;
///
/// let ctx = PostToolBatch::new(Meta::new("s1"), vec![json!({"tool_name": "Read"})]);
/// assert_eq!(ctx.tool_calls.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostToolBatch {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The calls of the batch with their results (Claude Code `tool_calls`: `tool_name`,
    /// `tool_input`, `tool_use_id`, `tool_response`), as sent.
    #[serde(default)]
    pub tool_calls: Vec<Value>,
    /// Text for the model, added by hooks in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
}

impl PostToolBatch {
    /// A finished batch of `tool_calls`.
    pub fn new(meta: Meta, tool_calls: Vec<Value>) -> Self {
        PostToolBatch {
            meta,
            tool_calls,
            additional_context: Vec::new(),
        }
    }
}
