use serde::{Deserialize, Serialize};

use super::{ContentBlock, Message, Meta, Rewritable, Role, TokenUsage, ToolCall};

/// Context of [`pre_model_call`](crate::points::pre_model_call): a request about to be sent to
/// the model.
///
/// Guards may deny (which cancels the call), ask or allow, switch the model with
/// [`Rewritable::set`] (a budget policy, say; the original stays readable) and add context.
///
/// Corresponds to: SecureYeoman `before_llm_call`, infer `pre_stream`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreModelCall {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The model to call; guards may switch it.
    pub model: Rewritable<String>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The conversation sent to the model.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The cap on output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The runtime's estimate of the request's input tokens (0 when it has none).
    #[serde(default)]
    pub estimated_input_tokens: u64,
    /// Text for the model, added by hooks in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
}

impl PreModelCall {
    /// A call of `model` with `messages`.
    pub fn new(meta: Meta, model: impl Into<String>, messages: Vec<Message>) -> Self {
        PreModelCall {
            meta,
            model: Rewritable::new(model.into()),
            system: None,
            messages,
            max_tokens: None,
            estimated_input_tokens: 0,
            additional_context: Vec::new(),
        }
    }

    /// Add text for the model.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }
}

/// Context of [`model_stream_chunk`](crate::points::model_stream_chunk): one chunk of a
/// streamed model response, before it is shown.
///
/// Transforms run in order and may rewrite `chunk` (to redact secrets, say).
///
/// Corresponds to: SecureYeoman `stream_chunk`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelStreamChunk {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The model streaming the response.
    pub model: String,
    /// The chunk's number within the response, from 0.
    pub index: u64,
    /// The chunk's text; transforms may rewrite it.
    pub chunk: String,
}

impl ModelStreamChunk {
    /// Chunk number `index` of `model`'s response.
    pub fn new(meta: Meta, model: impl Into<String>, index: u64, chunk: impl Into<String>) -> Self {
        ModelStreamChunk {
            meta,
            model: model.into(),
            index,
            chunk: chunk.into(),
        }
    }
}

/// Context of [`post_model_call`](crate::points::post_model_call): the model's complete
/// response.
///
/// Transforms run in order and may rewrite `response`.
///
/// Corresponds to: SecureYeoman `after_llm_call` / `stream_end`, seed 003 `ModelOutput`, infer
/// `post_stream`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostModelCall {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The model that answered.
    pub model: String,
    /// The response text; transforms may rewrite it.
    pub response: String,
    /// Tokens the call used.
    #[serde(default)]
    pub usage: TokenUsage,
    /// How long the call took.
    pub duration_ms: u64,
    /// Why the model stopped (`end_turn`, `max_tokens`, `tool_use`, …, as the provider says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The tool calls the model made, with their ids and inputs, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

impl PostModelCall {
    /// `model`'s `response`.
    pub fn new(
        meta: Meta,
        model: impl Into<String>,
        response: impl Into<String>,
        usage: TokenUsage,
        duration_ms: u64,
    ) -> Self {
        PostModelCall {
            meta,
            model: model.into(),
            response: response.into(),
            usage,
            duration_ms,
            stop_reason: None,
            tool_calls: Vec::new(),
        }
    }

    /// The reply as the assistant message to append to the conversation: the response text
    /// (as the hooks left it) and a `tool_use` block per tool call.
    ///
    /// ```
    /// use hookrail_core::context::{Meta, PostModelCall, Role, TokenUsage, ToolCall};
    /// use serde_json::json;
    ///
    /// let mut post = PostModelCall::new(Meta::new("s1"), "m", "Let me look.", TokenUsage::new(9, 4), 120);
    /// post.tool_calls.push(ToolCall::new("toolu_01A", "Bash", json!({"command": "ls"})));
    /// let message = post.message();
    /// assert_eq!(message.role, Role::Assistant);
    /// assert_eq!(serde_json::to_value(&message).unwrap(), json!({"role": "assistant", "content": [
    ///     {"type": "text", "text": "Let me look."},
    ///     {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {"command": "ls"}},
    /// ]}));
    /// ```
    pub fn message(&self) -> Message {
        if self.tool_calls.is_empty() {
            return Message::new(Role::Assistant, self.response.clone());
        }
        let text = (!self.response.is_empty()).then(|| ContentBlock::text(self.response.clone()));
        let calls = self.tool_calls.iter().cloned().map(ContentBlock::from);
        Message::new(
            Role::Assistant,
            text.into_iter().chain(calls).collect::<Vec<_>>(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_model_call_serializes_the_switched_model_and_keeps_the_original() {
        let mut ctx = PreModelCall::new(
            Meta::new("s1"),
            "big-model",
            vec![
                Message::new(Role::System, "be brief"),
                Message::new(Role::User, "hi"),
            ],
        );
        ctx.model.set("small-model".into());
        assert_eq!(ctx.model.original(), "big-model");
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["model"], "small-model");
        assert_eq!(v["messages"][0]["role"], "system");
        assert_eq!(v["messages"][1]["content"], "hi");
        assert!(v.get("max_tokens").is_none());
        assert!(v.get("additional_context").is_none());
    }

    #[test]
    fn post_model_call_round_trips_and_defaults_missing_usage() {
        let mut ctx = PostModelCall::new(Meta::new("s1"), "m", "done", TokenUsage::new(10, 5), 42);
        ctx.stop_reason = Some("tool_use".into());
        ctx.tool_calls.push(ToolCall::new(
            "toolu_1",
            "Bash",
            serde_json::json!({"command": "ls"}),
        ));
        let mut v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["usage"]["input"], 10);
        assert_eq!(
            v["tool_calls"][0],
            serde_json::json!({"id": "toolu_1", "name": "Bash", "input": {"command": "ls"}})
        );
        let back: PostModelCall = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, ctx);

        v.as_object_mut().unwrap().remove("usage");
        let back: PostModelCall = serde_json::from_value(v).unwrap();
        assert_eq!(back.usage, TokenUsage::default());
    }
}

/// Context of [`pre_model_switch`](crate::points::pre_model_switch): the session is about to
/// change its model at a request (a user command, a model picker, an SDK host); guards allow,
/// ask or deny the switch.
///
/// Corresponds to: Claude Code `PreModelSwitch`, whose payload names the fields the same way
/// (`from_model`, `to_model`, `requested_model`, `source`). Claude Code also sends what the
/// switch costs (`context_tokens`, `prompt_cache_warm`, `cache_ttl`,
/// `estimated_cache_write_usd`, `pricing`); those are not carried here (a command or HTTP hook
/// receives them with the rest of the payload).
///
/// ```
/// use hookrail_core::context::{Meta, PreModelSwitch};
///
/// let ctx = PreModelSwitch::new(Meta::new("s1"), "claude-sonnet-5", "claude-opus-5");
/// assert_eq!(ctx.to_model, "claude-opus-5");
/// assert_eq!(ctx.requested_model, None);
///
/// // Claude Code's payload, with `requested_model: null` for a switch to the default model.
/// let ctx: PreModelSwitch = serde_json::from_value(serde_json::json!({
///     "session_id": "s1", "cwd": "/repo",
///     "from_model": "claude-opus-5", "to_model": "claude-sonnet-5",
///     "requested_model": null, "source": "picker"
/// }))
/// .unwrap();
/// assert_eq!((ctx.from_model.as_str(), ctx.source.as_str()), ("claude-opus-5", "picker"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreModelSwitch {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The model in use before the switch (a resolved model id); empty when the event does not
    /// say.
    #[serde(default)]
    pub from_model: String,
    /// The model the session would run after the switch (a resolved model id); empty when the
    /// event does not say.
    #[serde(default)]
    pub to_model: String,
    /// What the request named, as written: an alias (`opus`) or a full model id; `None` when it
    /// asked for the default model, or the event does not say.
    #[serde(default)]
    pub requested_model: Option<String>,
    /// Where the request came from (Claude Code: `command` for `/model <name>`, `picker`, `sdk`
    /// for an SDK host's `set_model`); empty when the event does not say.
    #[serde(default)]
    pub source: String,
}

impl PreModelSwitch {
    /// A switch from `from_model` to `to_model`; no requested name, no source.
    pub fn new(meta: Meta, from_model: impl Into<String>, to_model: impl Into<String>) -> Self {
        PreModelSwitch {
            meta,
            from_model: from_model.into(),
            to_model: to_model.into(),
            requested_model: None,
            source: String::new(),
        }
    }
}
