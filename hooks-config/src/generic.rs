//! Generic Claude-event points: one point per Claude Code event that has no moment of its own
//! in a Rust agent's loop (the events that have one, `PermissionRequest`, `PostToolBatch`,
//! `PreModelSwitch` among them, fire typed points of [`hookrail_core::points`]) (`ConfigChange`, `InstructionsLoaded`, `FileChanged`, …), all over
//! one context, [`ClaudeEvent`]: the payload as JSON.
//!
//! Each is a point of its own (not one shared point told apart by name) so that a hook of
//! `ConfigChange` never runs at `InstructionsLoaded`, and so that each has the kind its
//! event has in Claude Code: a guard where Claude Code lets a hook block
//! ([`Block`](crate::claude_events::Block) other than `No`), an observer elsewhere. A Rust
//! hook can be attached to them like to any point (`#[hook(hookrail_config::generic::config_change)]`).
//!
//! Command and HTTP hooks of these points receive the payload as Claude Code sent it (plus
//! `additional_context`, once an earlier hook added some) and answer in Claude Code's
//! protocol; what an answer does is the event's row of
//! [`CLAUDE_EVENTS`](crate::claude_events::CLAUDE_EVENTS).
//!
//! ```
//! use hookrail_config::generic::{ClaudeEvent, config_change};
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::Verdict;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hooks = Hooks::builder()
//!     .ignore_env()
//!     .hook(Hook::<config_change::Point>::new("no_policy_edits", |ctx: &mut ClaudeEvent| {
//!         if ctx.str("source") == Some("project_settings") { Verdict::deny("frozen") } else { Verdict::Continue }
//!     }))
//!     .build()?;
//! let mut ctx = ClaudeEvent::from_payload(serde_json::json!({
//!     "hook_event_name": "ConfigChange", "source": "project_settings"
//! }));
//! assert!(hooks.dispatch_async::<config_change::Point>(&mut ctx).await.verdict().is_deny());
//! # Ok(())
//! # }
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The context of a generic Claude-event point: the payload's fields, and the context hooks
/// added.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaudeEvent {
    /// Text hooks added for the model (`additionalContext`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// Every other field of the payload, as sent.
    #[serde(flatten)]
    pub payload: Map<String, Value>,
}

impl ClaudeEvent {
    /// The context of `payload` (a JSON object; anything else gives an empty payload).
    pub fn from_payload(payload: Value) -> Self {
        match payload {
            Value::Object(payload) => ClaudeEvent {
                additional_context: Vec::new(),
                payload,
            },
            _ => ClaudeEvent::default(),
        }
    }

    /// A top-level string field of the payload.
    pub fn str(&self, field: &str) -> Option<&str> {
        self.payload.get(field).and_then(Value::as_str)
    }

    /// The event's name (`hook_event_name`).
    pub fn event(&self) -> Option<&str> {
        self.str("hook_event_name")
    }
}

/// Calls `each!` with every generic point: `kind name`.
macro_rules! generic_points {
    ($each:ident) => {
        $each! {
            guard user_prompt_expansion,
            guard task_created, guard task_completed, guard teammate_idle, guard config_change,
            guard elicitation, guard elicitation_result,
            observe setup, observe instructions_loaded, observe permission_denied,
            observe cwd_changed, observe directory_added, observe file_changed,
            observe worktree_create, observe worktree_remove, observe post_compact,
            observe message_display, observe post_model_switch,
        }
    };
}
pub(crate) use generic_points;

/// The names of the generic points.
pub const NAMES: &[&str] = &[
    "user_prompt_expansion",
    "task_created",
    "task_completed",
    "teammate_idle",
    "config_change",
    "elicitation",
    "elicitation_result",
    "setup",
    "instructions_loaded",
    "permission_denied",
    "cwd_changed",
    "directory_added",
    "file_changed",
    "worktree_create",
    "worktree_remove",
    "post_compact",
    "message_display",
    "post_model_switch",
];

hookrail_core::hook_points! {
    /// Claude Code `UserPromptExpansion`: a slash command expands into a prompt; a block stops it.
    pub guard user_prompt_expansion: ClaudeEvent;
    /// Claude Code `TaskCreated`: a block rolls the task back.
    pub guard task_created: ClaudeEvent;
    /// Claude Code `TaskCompleted`: a block keeps the task open.
    pub guard task_completed: ClaudeEvent;
    /// Claude Code `TeammateIdle`: a block keeps the teammate working.
    pub guard teammate_idle: ClaudeEvent;
    /// Claude Code `ConfigChange`: a settings file changed; a block refuses the change
    /// (except for policy settings).
    pub guard config_change: ClaudeEvent;
    /// Claude Code `Elicitation`: an MCP server asks the user for input; a block declines.
    pub guard elicitation: ClaudeEvent;
    /// Claude Code `ElicitationResult`: the user answered an elicitation; a block declines.
    pub guard elicitation_result: ClaudeEvent;
    /// Claude Code `Setup`: `--init` or `--maintenance`.
    pub observe setup: ClaudeEvent;
    /// Claude Code `InstructionsLoaded`: `CLAUDE.md` or rules files were loaded.
    pub observe instructions_loaded: ClaudeEvent;
    /// Claude Code `PermissionDenied`: the auto mode denied a tool call.
    pub observe permission_denied: ClaudeEvent;
    /// Claude Code `CwdChanged`: the working directory changed.
    pub observe cwd_changed: ClaudeEvent;
    /// Claude Code `DirectoryAdded`: a directory was added to the session.
    pub observe directory_added: ClaudeEvent;
    /// Claude Code `FileChanged`: a watched file changed.
    pub observe file_changed: ClaudeEvent;
    /// Claude Code `WorktreeCreate`: a worktree is to be created.
    pub observe worktree_create: ClaudeEvent;
    /// Claude Code `WorktreeRemove`: a worktree is to be removed.
    pub observe worktree_remove: ClaudeEvent;
    /// Claude Code `PostCompact`: the conversation was compacted.
    pub observe post_compact: ClaudeEvent;
    /// Claude Code `MessageDisplay`: assistant text is being shown (display only).
    pub observe message_display: ClaudeEvent;
    /// Claude Code `PostModelSwitch`: the session's model changed.
    pub observe post_model_switch: ClaudeEvent;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_declared_points_and_each_event_of_the_table_has_its_kind() {
        let points = hookrail_core::registry::points();
        for name in NAMES {
            let point = points.iter().find(|p| p.name() == *name).expect(name);
            let event = crate::claude_events::CLAUDE_EVENTS
                .iter()
                .find(|e| e.point == *name)
                .expect(name);
            let guard = event.block != crate::claude_events::Block::No;
            assert_eq!(
                point.kind() == hookrail_core::KindId::Guard,
                guard,
                "{name}"
            );
        }
        macro_rules! count {
            ($($kind:ident $name:ident),* $(,)?) => { [$(stringify!($name)),*] };
        }
        assert_eq!(generic_points!(count), NAMES);
    }

    #[test]
    fn the_payload_round_trips_with_added_context_beside_it() {
        let payload = serde_json::json!({"hook_event_name": "Setup", "trigger": "init", "x": [1]});
        let mut ctx: ClaudeEvent = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(ctx.event(), Some("Setup"));
        assert_eq!(serde_json::to_value(&ctx).unwrap(), payload);
        ctx.additional_context.push("note".into());
        assert_eq!(
            serde_json::to_value(&ctx).unwrap()["additional_context"][0],
            "note"
        );
    }
}
