use serde::{Deserialize, Serialize};

use super::{Meta, TokenUsage};

/// How an agent step finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StepStatus {
    /// The step did its work.
    #[default]
    Completed,
    /// The step failed.
    Failed,
    /// The step was not run.
    Skipped,
    /// The step did part of its work.
    Partial,
    /// Any other value.
    #[serde(other)]
    Other,
}

/// Context of [`step_end`](crate::points::step_end): one agent step (one iteration of the agent
/// loop) has finished.
///
/// Observers read it (to record per-step metrics, say); they cannot change it.
///
/// Corresponds to: GWI `afterStep`, SecureYeoman `message_loop_end`, infer `post`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StepEnd {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The step's id.
    pub step_id: String,
    /// The role of the agent that ran the step (GWI `agentRole`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_role: Option<String>,
    /// How the step finished.
    pub status: StepStatus,
    /// How long the step ran.
    #[serde(default)]
    pub duration_ms: u64,
    /// Tokens the step used.
    #[serde(default)]
    pub tokens: TokenUsage,
    /// How many tool calls the step made.
    #[serde(default)]
    pub tool_calls: u32,
    /// A summary of the step's input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_summary: Option<String>,
    /// A summary of the step's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_summary: Option<String>,
}

impl StepEnd {
    /// Step `step_id`, finished with `status`; counters start at zero.
    pub fn new(meta: Meta, step_id: impl Into<String>, status: StepStatus) -> Self {
        StepEnd {
            meta,
            step_id: step_id.into(),
            agent_role: None,
            status,
            duration_ms: 0,
            tokens: TokenUsage::default(),
            tool_calls: 0,
            input_summary: None,
            output_summary: None,
        }
    }
}

/// Context of [`stop`](crate::points::stop): the agent wants to stop.
///
/// Guards may allow the stop or deny it; a deny blocks the stop, and its reason is given to the
/// model as the instruction to continue (Claude Code `decision: "block"`). Guards must check
/// [`stop_hook_active`](Self::stop_hook_active) (or
/// [`consecutive_blocks`](Self::consecutive_blocks)) so that they do not keep the agent running
/// forever.
///
/// Corresponds to: Claude Code `Stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Stop {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// True when the agent is already continuing because an earlier stop was blocked (Claude
    /// Code `stop_hook_active`).
    #[serde(default)]
    pub stop_hook_active: bool,
    /// The model's final message (Claude Code `last_assistant_message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// How many stops in a row were blocked.
    #[serde(default)]
    pub consecutive_blocks: u32,
}

impl Stop {
    /// A first stop attempt: no earlier block.
    pub fn new(meta: Meta) -> Self {
        Stop {
            meta,
            stop_hook_active: false,
            last_assistant_message: None,
            consecutive_blocks: 0,
        }
    }
}

/// What started a compaction (Claude Code `PreCompact.trigger`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CompactTrigger {
    /// The user asked for it.
    Manual,
    /// The context window filled up.
    #[default]
    Auto,
    /// Any other value.
    #[serde(other)]
    Other,
}

/// Context of [`pre_compact`](crate::points::pre_compact): the conversation is about to be
/// summarised or pruned.
///
/// Transforms run in order; they may ask for text to be kept verbatim, change the strategy and
/// export state that should outlive the compaction.
///
/// Corresponds to: Claude Code `PreCompact`, Squad `onPreCompact`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreCompact {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// What started the compaction (Claude Code `trigger`).
    pub trigger: CompactTrigger,
    /// The user's instructions for a manual compaction (Claude Code `custom_instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// The conversation's size in tokens (0 when the event does not say, as Claude Code's).
    #[serde(default)]
    pub current_tokens: u64,
    /// The context window's size in tokens (0 when the event does not say).
    #[serde(default)]
    pub max_tokens: u64,
    /// How to compact (Squad `compactionStrategy`); the runtime defines the values.
    #[serde(default)]
    pub strategy: String,
    /// Text hooks ask to keep verbatim (Squad `preserveContext`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preserve: Vec<String>,
    /// State hooks export before the conversation is compacted (Squad `exportState`).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub exported_state: serde_json::Map<String, serde_json::Value>,
}

impl PreCompact {
    /// A compaction started by `trigger` of a `current_tokens` conversation in a `max_tokens`
    /// window.
    pub fn new(meta: Meta, trigger: CompactTrigger, current_tokens: u64, max_tokens: u64) -> Self {
        PreCompact {
            meta,
            trigger,
            custom_instructions: None,
            current_tokens,
            max_tokens,
            strategy: String::new(),
            preserve: Vec::new(),
            exported_state: serde_json::Map::new(),
        }
    }
}

/// What failed (Squad `errorType`, plus rate limits).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The model call failed.
    Model,
    /// A tool failed.
    Tool,
    /// The network failed.
    Network,
    /// A rate limit was hit.
    RateLimit,
    /// An action was not permitted.
    Permission,
    /// The conversation no longer fits the context window.
    ContextOverflow,
    /// The cause is not known.
    #[default]
    Unknown,
    /// Any other value.
    #[serde(other)]
    Other,
}

impl ErrorKind {
    /// True for errors that may go away if the operation is retried later (network failures and
    /// rate limits).
    pub const fn is_transient(&self) -> bool {
        matches!(self, ErrorKind::Network | ErrorKind::RateLimit)
    }
}

/// Context of [`error_occurred`](crate::points::error_occurred): an operation of the agent
/// failed.
///
/// Hooks return a recovery: retry (with backoff), fall back to another model, or give up; the
/// first recovery wins.
///
/// Corresponds to: Claude Code `StopFailure`, Squad `onErrorOccurred`.
///
/// ```
/// use hookrail_core::context::{ErrorKind, ErrorOccurred, Meta};
///
/// let mut ctx = ErrorOccurred::new(Meta::new("s1"), ErrorKind::RateLimit, "429 Too Many Requests");
/// ctx.status_code = Some(429);
/// ctx.model = Some("claude-sonnet-4".into());
/// assert_eq!(ctx.attempt, 1);
/// assert!(ctx.kind.is_transient());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorOccurred {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The error message (empty when the event gives none).
    #[serde(default)]
    pub error: String,
    /// What failed (the default kind when the event does not say).
    #[serde(default)]
    pub kind: ErrorKind,
    /// The model in use when the error happened (Squad `currentModel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tool that failed, for tool errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Which failure of the operation this is: 1 for the first, counting retries.
    #[serde(default = "first_attempt")]
    pub attempt: u32,
    /// The HTTP status code, when the error came from an HTTP response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<u16>,
    /// The user's prompt the failed model call sent (the text of its last user message), set
    /// by [`Session::call_model`](crate::runtime::Session::call_model): what a recovery's
    /// [`prompt`](crate::Recovery::prompt) (seed 000 `modifiedPrompt`) would replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

// Senders that do not count retries report first failures only.
fn first_attempt() -> u32 {
    1
}

impl ErrorOccurred {
    /// The first failure of an operation, of `kind`, with message `error`.
    pub fn new(meta: Meta, kind: ErrorKind, error: impl Into<String>) -> Self {
        ErrorOccurred {
            meta,
            error: error.into(),
            kind,
            model: None,
            tool_name: None,
            attempt: first_attempt(),
            status_code: None,
            prompt: None,
        }
    }
}

/// Context of [`notification`](crate::points::notification): the agent sends the user a
/// notification.
///
/// Observers read it (to forward it to a chat or a desktop notifier, say); they cannot change
/// it.
///
/// Corresponds to: Claude Code `Notification`, SecureYeoman `message_sent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Notification {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The notification's text (Claude Code `message`).
    pub message: String,
    /// Its title (Claude Code `title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its type (Claude Code `notification_type`: `permission_prompt`, `idle_prompt`, …);
    /// free-form, as runtimes define their own.
    pub notification_type: String,
}

impl Notification {
    /// A notification of `notification_type` with text `message`.
    pub fn new(
        meta: Meta,
        notification_type: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Notification {
            meta,
            message: message.into(),
            title: None,
            notification_type: notification_type.into(),
        }
    }
}

/// Context of [`pre_queue_drain`](crate::points::pre_queue_drain): queued user messages are
/// about to be fed to the agent.
///
/// Observers read it; they cannot change it.
///
/// Corresponds to: infer `pre_queue_drain`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreQueueDrain {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The queue's name.
    pub queue: String,
    /// How many messages are waiting.
    pub pending: usize,
}

impl PreQueueDrain {
    /// `pending` messages waiting in `queue`.
    pub fn new(meta: Meta, queue: impl Into<String>, pending: usize) -> Self {
        PreQueueDrain {
            meta,
            queue: queue.into(),
            pending,
        }
    }
}

/// Context of [`post_queue_drain`](crate::points::post_queue_drain): queued user messages were
/// fed to the agent.
///
/// Observers read it; they cannot change it.
///
/// Corresponds to: infer `post_queue_drain`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostQueueDrain {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The queue's name.
    pub queue: String,
    /// How many messages were fed.
    pub drained: usize,
    /// How long the drain took.
    pub duration_ms: u64,
}

impl PostQueueDrain {
    /// `drained` messages fed from `queue` in `duration_ms`.
    pub fn new(meta: Meta, queue: impl Into<String>, drained: usize, duration_ms: u64) -> Self {
        PostQueueDrain {
            meta,
            queue: queue.into(),
            drained,
            duration_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_network_and_rate_limit_errors_are_transient() {
        let transient: Vec<ErrorKind> = [
            ErrorKind::Model,
            ErrorKind::Tool,
            ErrorKind::Network,
            ErrorKind::RateLimit,
            ErrorKind::Permission,
            ErrorKind::ContextOverflow,
            ErrorKind::Unknown,
            ErrorKind::Other,
        ]
        .into_iter()
        .filter(ErrorKind::is_transient)
        .collect();
        assert_eq!(transient, [ErrorKind::Network, ErrorKind::RateLimit]);
    }

    #[test]
    fn error_occurred_reads_a_minimal_payload_as_a_first_attempt() {
        let mut v = serde_json::to_value(ErrorOccurred::new(
            Meta::new("s1"),
            ErrorKind::ContextOverflow,
            "prompt too long",
        ))
        .unwrap();
        assert_eq!(v["kind"], "context_overflow");
        assert!(v.get("status_code").is_none());
        v.as_object_mut().unwrap().remove("attempt");
        v["kind"] = "quota_exceeded".into();
        let back: ErrorOccurred = serde_json::from_value(v).unwrap();
        assert_eq!(back.attempt, 1);
        assert_eq!(back.kind, ErrorKind::Other);
        assert_eq!(back.error, "prompt too long");
    }

    #[test]
    fn stop_reads_claude_code_stop_input() {
        let input = json!({
            "session_id": "abc",
            "cwd": "/repo",
            "hook_event_name": "Stop",
            "stop_hook_active": true,
            "last_assistant_message": "All done.",
        });
        let ctx: Stop = serde_json::from_value(input).unwrap();
        assert!(ctx.stop_hook_active);
        assert_eq!(ctx.last_assistant_message.as_deref(), Some("All done."));
        assert_eq!(ctx.consecutive_blocks, 0);
        assert_eq!(&*ctx.meta.session_id, "abc");
    }

    #[test]
    fn pre_compact_omits_empty_outputs_and_round_trips_exported_state() {
        let mut ctx = PreCompact::new(Meta::new("s1"), CompactTrigger::Manual, 180_000, 200_000);
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["trigger"], "manual");
        assert!(v.get("preserve").is_none());
        assert!(v.get("exported_state").is_none());

        ctx.preserve.push("the API key lives in .env".into());
        ctx.exported_state
            .insert("open_todos".into(), json!(["a", "b"]));
        let text = serde_json::to_string(&ctx).unwrap();
        let back: PreCompact = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ctx);
        assert_eq!(back.exported_state["open_todos"][1], "b");
    }

    #[test]
    fn notification_uses_claude_code_field_names() {
        let mut ctx = Notification::new(Meta::new("s1"), "idle_prompt", "Waiting for input");
        ctx.title = Some("Claude".into());
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["notification_type"], "idle_prompt");
        assert_eq!(v["message"], "Waiting for input");
        assert_eq!(v["title"], "Claude");
    }

    #[test]
    fn step_end_and_queue_drains_round_trip() {
        let mut step = StepEnd::new(Meta::new("s1"), "step-3", StepStatus::Partial);
        step.tokens = TokenUsage::new(7, 2);
        step.agent_role = Some("planner".into());
        let back: StepEnd = serde_json::from_str(&serde_json::to_string(&step).unwrap()).unwrap();
        assert_eq!(back, step);

        let pre = PreQueueDrain::new(Meta::new("s1"), "inbox", 3);
        let post = PostQueueDrain::new(Meta::new("s1"), "inbox", 3, 15);
        let v = serde_json::to_value(&post).unwrap();
        assert_eq!(
            (v["queue"].as_str(), v["drained"].as_u64()),
            (Some("inbox"), Some(3))
        );
        assert_eq!(pre.pending, post.drained);
    }
}
