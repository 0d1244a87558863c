use serde::{Deserialize, Serialize};

use super::{Meta, TokenUsage};

/// Context of [`session_start`](crate::points::session_start): a session is about to begin.
///
/// Transforms run in order and may switch the model, replace the charter and add context that
/// is injected into the session.
///
/// Corresponds to: Claude Code `SessionStart`, Squad `onSessionStart`, GWI `runStart`,
/// SecureYeoman `agent_init`, infer `pre_session`.
///
/// ```
/// use hookrail_core::context::{Meta, SessionSource, SessionStart};
///
/// let mut ctx = SessionStart::new(Meta::new("s1"), "claude-sonnet-4");
/// ctx.source = SessionSource::Resume;
/// ctx.add_context("The build is currently red on main.");
/// assert_eq!(ctx.additional_context.len(), 1);
/// let json = serde_json::to_value(&ctx).unwrap();
/// assert_eq!(json["source"], "resume");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionStart {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// How the session began (Claude Code `source`).
    #[serde(default)]
    pub source: SessionSource,
    /// The model the session will use (Claude Code `model`); transforms may change it (Squad
    /// `modifiedConfig.model`). Empty when the event does not say (Claude Code sends it only
    /// sometimes).
    #[serde(default)]
    pub model: String,
    /// The agent's instructions (Squad `charterContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charter: Option<String>,
    /// Text injected into the session, added by hooks in order (Claude Code
    /// `additionalContext`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
}

impl SessionStart {
    /// A fresh session ([`SessionSource::Startup`]) on `model`.
    pub fn new(meta: Meta, model: impl Into<String>) -> Self {
        SessionStart {
            meta,
            source: SessionSource::default(),
            model: model.into(),
            charter: None,
            additional_context: Vec::new(),
        }
    }

    /// Add text to inject into the session.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }
}

/// How a session began (Claude Code `SessionStart.source`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionSource {
    /// A new session.
    #[default]
    Startup,
    /// An earlier session, resumed.
    Resume,
    /// A session restarted after the conversation was cleared.
    Clear,
    /// A session continued after the conversation was compacted.
    Compact,
    /// A copy of another session.
    Fork,
    /// Any other value.
    #[serde(other)]
    Other,
}

/// Context of [`session_end`](crate::points::session_end): a session has ended.
///
/// Observers read it (to record metrics or write a summary, say); they cannot change it.
///
/// Corresponds to: Claude Code `SessionEnd`, Squad `onSessionEnd`, GWI `runEnd`, SecureYeoman
/// `agent_shutdown`, seed 003 `SessionStop`, infer `post_session`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionEnd {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// Why the session ended (Claude Code `reason`).
    #[serde(default)]
    pub reason: SessionEndReason,
    /// Whether the session did its work (GWI `runEnd` `success`). True when the event does not
    /// say (Claude Code's `SessionEnd` does not).
    #[serde(default = "super::common::yes")]
    pub success: bool,
    /// Tokens used over the whole session (Squad `tokensUsed`).
    #[serde(default)]
    pub tokens: TokenUsage,
    /// How many tool calls the session made (Squad `toolCallCount`).
    #[serde(default)]
    pub tool_calls: u32,
    /// The files the session changed (Squad `filesModified`, seed 003 `changed_files`).
    #[serde(default)]
    pub files_modified: Vec<String>,
    /// How long the session ran.
    #[serde(default)]
    pub duration_ms: u64,
}

impl SessionEnd {
    /// A session that ended for `reason`; counters start at zero.
    pub fn new(meta: Meta, reason: SessionEndReason, success: bool) -> Self {
        SessionEnd {
            meta,
            reason,
            success,
            tokens: TokenUsage::default(),
            tool_calls: 0,
            files_modified: Vec::new(),
            duration_ms: 0,
        }
    }
}

/// Why a session ended (Claude Code `SessionEnd.reason`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionEndReason {
    /// The agent finished its work.
    #[default]
    Completed,
    /// An error ended the session.
    Error,
    /// The user cleared the conversation.
    Clear,
    /// The user logged out.
    Logout,
    /// The user left the prompt input.
    PromptInputExit,
    /// Any other value.
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::InvocationSource;

    #[test]
    fn session_start_round_trips_through_a_json_string_without_a_source_clash() {
        let mut ctx = SessionStart::new(
            Meta::new("s1").with_source(InvocationSource::CiPipeline),
            "m1",
        );
        ctx.source = SessionSource::Compact;
        ctx.charter = Some("Be terse.".into());
        let text = serde_json::to_string(&ctx).unwrap();
        let back: SessionStart = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ctx);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["source"], "compact");
        assert_eq!(v["invocation_source"], "ci_pipeline");
        assert_eq!(v["model"], "m1");
        assert!(v.get("additional_context").is_none());
    }

    #[test]
    fn unknown_enum_values_from_other_agents_read_as_other() {
        let source: SessionSource = serde_json::from_str("\"handoff\"").unwrap();
        let reason: SessionEndReason =
            serde_json::from_str("\"bypass_permissions_disabled\"").unwrap();
        assert_eq!(source, SessionSource::Other);
        assert_eq!(reason, SessionEndReason::Other);
        let known: SessionEndReason = serde_json::from_str("\"prompt_input_exit\"").unwrap();
        assert_eq!(known, SessionEndReason::PromptInputExit);
    }

    #[test]
    fn session_end_reads_with_only_the_required_fields() {
        let mut v = serde_json::to_value(SessionEnd::new(
            Meta::new("s1"),
            SessionEndReason::Logout,
            false,
        ))
        .unwrap();
        let obj = v.as_object_mut().unwrap();
        for key in ["tokens", "tool_calls", "files_modified", "duration_ms"] {
            assert!(obj.remove(key).is_some(), "{key} should be serialized");
        }
        let back: SessionEnd = serde_json::from_value(v).unwrap();
        assert_eq!(back.reason, SessionEndReason::Logout);
        assert!(!back.success);
        assert_eq!(back.tokens.total(), 0);
        assert!(back.files_modified.is_empty());
    }
}
