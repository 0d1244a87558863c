use serde::{Deserialize, Serialize};

use super::{Meta, Rewritable, TokenUsage};

/// Context of [`subagent_start`](crate::points::subagent_start): a subagent about to be
/// spawned.
///
/// Guards may deny (which refuses the spawn), ask or allow, switch the subagent's model with
/// [`Rewritable::set`] (the original stays readable) and add context for the subagent.
///
/// Corresponds to: Claude Code `SubagentStart`, Squad `onSubagentStart`, SecureYeoman
/// `delegation_before`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubagentStart {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The subagent's name (`meta.agent_name` is the parent agent's); read from Claude Code's
    /// `agent_id` when that is what the event has.
    #[serde(default, alias = "agent_id")]
    pub subagent_name: String,
    /// The subagent's type (Claude Code `agent_type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The model the subagent will use; guards may switch it (Squad `modifiedModel`). Empty
    /// when the event does not say.
    #[serde(default)]
    pub model: Rewritable<String>,
    /// What the subagent is asked to do (Squad `taskType`); empty when the event does not say.
    #[serde(default)]
    pub task: String,
    /// Where the subagent's charter is stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charter_path: Option<String>,
    /// Text for the subagent, added by hooks in order (Claude Code `additionalContext`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
}

impl SubagentStart {
    /// Subagent `subagent_name` on `model`, asked to do `task`.
    pub fn new(
        meta: Meta,
        subagent_name: impl Into<String>,
        model: impl Into<String>,
        task: impl Into<String>,
    ) -> Self {
        SubagentStart {
            meta,
            subagent_name: subagent_name.into(),
            agent_type: None,
            model: Rewritable::new(model.into()),
            task: task.into(),
            charter_path: None,
            additional_context: Vec::new(),
        }
    }

    /// Add text for the subagent.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }
}

/// How a subagent finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SubagentStatus {
    /// It finished its task.
    #[default]
    Completed,
    /// It failed.
    Error,
    /// It ran out of time.
    Timeout,
    /// Any other value.
    #[serde(other)]
    Other,
}

/// Context of [`subagent_stop`](crate::points::subagent_stop): a subagent has finished.
///
/// Observers read it (to record what the subagent did, say); they cannot change it.
///
/// Corresponds to: Claude Code `SubagentStop`, Squad `onSubagentStop`, SecureYeoman
/// `delegation_after` / `sub_agent_sealed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubagentStop {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The subagent's name (`meta.agent_name` is the parent agent's); read from Claude Code's
    /// `agent_id` when that is what the event has.
    #[serde(default, alias = "agent_id")]
    pub subagent_name: String,
    /// The subagent's type (Claude Code `agent_type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The model the subagent used (empty when the event does not say).
    #[serde(default)]
    pub model: String,
    /// How it finished (the default status when the event does not say).
    #[serde(default)]
    pub status: SubagentStatus,
    /// How long it ran.
    #[serde(default)]
    pub duration_ms: u64,
    /// Tokens it used.
    #[serde(default)]
    pub tokens: TokenUsage,
    /// How many tool calls it made.
    #[serde(default)]
    pub tool_calls: u32,
    /// The files it changed.
    #[serde(default)]
    pub files_modified: Vec<String>,
    /// Its final message (Claude Code `last_assistant_message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
}

impl SubagentStop {
    /// Subagent `subagent_name` on `model`, finished with `status`; counters start at zero.
    pub fn new(
        meta: Meta,
        subagent_name: impl Into<String>,
        model: impl Into<String>,
        status: SubagentStatus,
    ) -> Self {
        SubagentStop {
            meta,
            subagent_name: subagent_name.into(),
            agent_type: None,
            model: model.into(),
            status,
            duration_ms: 0,
            tokens: TokenUsage::default(),
            tool_calls: 0,
            files_modified: Vec::new(),
            last_assistant_message: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_name_does_not_clash_with_the_parent_agent_name() {
        let mut ctx = SubagentStart::new(
            Meta::new("s1").with_agent("lead"),
            "reviewer",
            "m1",
            "review the diff",
        );
        ctx.model.set("m2".into());
        let text = serde_json::to_string(&ctx).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["agent_name"], "lead");
        assert_eq!(v["subagent_name"], "reviewer");
        assert_eq!(v["model"], "m2");
        let back: SubagentStart = serde_json::from_str(&text).unwrap();
        assert_eq!(&*back.meta.agent_name, "lead");
        assert_eq!(back.subagent_name, "reviewer");
    }

    #[test]
    fn subagent_stop_round_trips_and_reads_unknown_status_as_other() {
        let mut ctx = SubagentStop::new(Meta::new("s1"), "reviewer", "m1", SubagentStatus::Timeout);
        ctx.tokens = TokenUsage::new(3, 4);
        ctx.last_assistant_message = Some("LGTM".into());
        let text = serde_json::to_string(&ctx).unwrap();
        let back: SubagentStop = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ctx);

        let mut v = serde_json::to_value(&ctx).unwrap();
        v["status"] = "cancelled".into();
        let back: SubagentStop = serde_json::from_value(v).unwrap();
        assert_eq!(back.status, SubagentStatus::Other);
    }
}
