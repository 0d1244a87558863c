//! What a model call gives back to a [`Session`](super::Session): [`ModelReply`], or an
//! [`AgentError`] for `error_occurred`.

use crate::context::{Content, ErrorKind, Message, TokenUsage, ToolCall};

/// An error of the agent's own work (a model call, the loop), reported to `error_occurred`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind:?} error: {message}")]
#[non_exhaustive]
pub struct AgentError {
    /// What failed.
    pub kind: ErrorKind,
    /// The error message.
    pub message: String,
    /// An HTTP status, when there was one.
    pub status_code: Option<u16>,
}

impl AgentError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        AgentError {
            kind,
            message: message.into(),
            status_code: None,
        }
    }

    /// With an HTTP status.
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status_code = Some(status);
        self
    }
}

/// What a model returned: its text as it streamed, the tool calls it made (with the
/// provider's ids and inputs), its token usage and why it stopped.
///
/// Build it from the provider's answer with the `with_*` methods, or from the assistant
/// [`Message`] the answer decodes to with [`from_message`](Self::from_message):
///
/// ```
/// use hookrail_core::context::{Message, TokenUsage, ToolCall};
/// use hookrail_core::runtime::ModelReply;
/// use serde_json::json;
///
/// // An Anthropic response's `content` and `usage`.
/// let response = json!({
///     "content": [
///         {"type": "text", "text": "Let me check."},
///         {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {"command": "ls"}}
///     ],
///     "stop_reason": "tool_use",
///     "usage": {"input_tokens": 412, "output_tokens": 38}
/// });
/// let message = Message::assistant(serde_json::from_value::<hookrail_core::context::Content>(response["content"].clone())?);
/// let reply = ModelReply::from_message(&message)
///     .with_usage(TokenUsage::new(412, 38))
///     .with_stop_reason("tool_use");
/// assert_eq!(reply.chunks, ["Let me check."]);
/// assert_eq!(reply.tool_calls, [ToolCall::new("toolu_01A", "Bash", json!({"command": "ls"}))]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelReply {
    /// The response as it streamed (one element for a non-streaming call).
    pub chunks: Vec<String>,
    /// Tokens used.
    pub usage: TokenUsage,
    /// Why the model stopped (`end_turn`, `tool_use`, `max_tokens`, …, as the provider says).
    pub stop_reason: Option<String>,
    /// The tool calls it made, in order.
    pub tool_calls: Vec<ToolCall>,
}

impl ModelReply {
    /// A reply whose text streamed as `chunks`.
    pub fn new<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        ModelReply {
            chunks: chunks.into_iter().map(Into::into).collect(),
            ..ModelReply::default()
        }
    }

    /// The reply an assistant message holds: its text blocks as chunks and its `tool_use`
    /// blocks as tool calls.
    pub fn from_message(message: &Message) -> Self {
        let chunks = match &message.content {
            Content::Text(s) if s.is_empty() => Vec::new(),
            Content::Text(s) => vec![s.clone()],
            Content::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| b.as_text().map(str::to_owned))
                .collect(),
        };
        ModelReply {
            chunks,
            tool_calls: message.tool_calls(),
            ..ModelReply::default()
        }
    }

    /// With the call's token usage.
    #[must_use]
    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = usage;
        self
    }

    /// With the provider's stop reason.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// With the tool calls the model made.
    #[must_use]
    pub fn with_tool_calls(mut self, calls: impl IntoIterator<Item = ToolCall>) -> Self {
        self.tool_calls = calls.into_iter().collect();
        self
    }
}
