//! Pure conversions between rig's values and hookrail's contexts: conversations, tool outputs,
//! model replies.

use hookrail_core::context::{Content, ContentBlock, Message, Role, ToolCall};
use rig_core::completion::{CompletionResponse, FinishReason};
use rig_core::message::{self as rig_message, AssistantContent, ToolResultContent, UserContent};
use rig_core::tool::ToolOutput;
use serde_json::Value;

/// The conversation a model call sends, as hookrail messages in content blocks: text, the
/// model's tool calls (`tool_use`, with rig's call id) and the tools' results
/// (`tool_result`, with the id of the call they answer), as the Anthropic shape has them;
/// media as a short text placeholder (guards see that something was there, budget estimates
/// stay close).
pub(crate) fn messages(
    history: &[rig_message::Message],
    prompt: &rig_message::Message,
) -> Vec<Message> {
    let mut out = Vec::with_capacity(history.len() + 1);
    for message in history.iter().chain(std::iter::once(prompt)) {
        out.push(message_of(message));
    }
    out
}

fn message_of(message: &rig_message::Message) -> Message {
    match message {
        rig_message::Message::System { content } => Message::new(Role::System, content.as_str()),
        rig_message::Message::User { content } => {
            let blocks = content
                .iter()
                .map(|block| match block {
                    UserContent::Text(t) => ContentBlock::text(t.text()),
                    UserContent::ToolResult(result) => {
                        let text = tool_result_text(&result.content);
                        if result.is_error {
                            ContentBlock::tool_error(result.call.to_string(), text)
                        } else {
                            ContentBlock::tool_result(result.call.to_string(), text)
                        }
                    }
                    UserContent::Image(_) => ContentBlock::text("[image]"),
                    UserContent::Audio(_) => ContentBlock::text("[audio]"),
                    UserContent::Video(_) => ContentBlock::text("[video]"),
                    UserContent::Document(_) => ContentBlock::text("[document]"),
                })
                .collect::<Vec<_>>();
            Message::new(Role::User, plain(blocks))
        }
        rig_message::Message::Assistant(turn) => {
            let blocks = turn
                .content
                .iter()
                .filter_map(|block| match block {
                    AssistantContent::Text(t) => Some(ContentBlock::text(t.text())),
                    AssistantContent::ToolCall(call) => Some(
                        ToolCall::new(
                            call.id.to_string(),
                            call.function.name.to_string(),
                            Value::Object(call.function.arguments.clone()),
                        )
                        .into(),
                    ),
                    // Reasoning, images and provider items are not part of what the model is
                    // told; they are left out.
                    _ => None,
                })
                .collect::<Vec<_>>();
            Message::new(Role::Assistant, plain(blocks))
        }
    }
}

/// One text block is plain text (the form most providers send); anything else stays blocks.
fn plain(blocks: Vec<ContentBlock>) -> Content {
    match blocks.as_slice() {
        [only] if only.as_text().is_some() => {
            Content::Text(only.as_text().unwrap_or_default().to_owned())
        }
        _ => Content::Blocks(blocks),
    }
}

fn join(text: &mut String, part: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(part);
}

fn tool_result_text(content: &[ToolResultContent]) -> String {
    let mut text = String::new();
    for block in content {
        match block {
            ToolResultContent::Text(t) => join(&mut text, t.text()),
            ToolResultContent::Json { value } => join(&mut text, &value.to_string()),
            ToolResultContent::Image(_) => join(&mut text, "[image]"),
        }
    }
    text
}

/// The text a user message carries (its text blocks, joined by newlines).
pub(crate) fn prompt_text(prompt: &rig_message::Message) -> Option<String> {
    match prompt {
        rig_message::Message::User { content } => {
            let mut text = String::new();
            for block in content {
                if let UserContent::Text(t) = block {
                    join(&mut text, t.text());
                }
            }
            Some(text)
        }
        rig_message::Message::System { content } => Some(content.clone()),
        rig_message::Message::Assistant(_) => None,
    }
}

/// `prompt` with its text replaced by `text`: the text blocks give way to one block at the
/// place of the first, every other block (images, documents) is kept.
pub(crate) fn rewrite_prompt(prompt: &rig_message::Message, text: String) -> rig_message::Message {
    match prompt {
        rig_message::Message::User { content } => {
            let mut blocks = Vec::with_capacity(content.len());
            let mut text = Some(text);
            for block in content {
                match block {
                    UserContent::Text(_) => {
                        if let Some(text) = text.take() {
                            blocks.push(UserContent::text(text));
                        }
                    }
                    other => blocks.push(other.clone()),
                }
            }
            if let Some(text) = text {
                blocks.insert(0, UserContent::text(text));
            }
            rig_message::Message::User { content: blocks }
        }
        rig_message::Message::System { .. } => rig_message::Message::system(text),
        rig_message::Message::Assistant(_) => rig_message::Message::user(text),
    }
}

/// How a tool output was shaped, so that a rewritten `tool_response` goes back in the same
/// shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputShape {
    /// One text block: `tool_response` is a JSON string.
    Text,
    /// One JSON block: `tool_response` is that value.
    Json,
    /// Several blocks or media: `tool_response` is the block list as rig serializes it.
    Blocks,
}

/// The model-visible output of a tool as a `tool_response` value.
pub(crate) fn output_value(output: &ToolOutput) -> (Value, OutputShape) {
    if let Some(text) = output.as_text() {
        return (Value::String(text.to_owned()), OutputShape::Text);
    }
    if let Some(value) = output.as_json() {
        return (value.clone(), OutputShape::Json);
    }
    match serde_json::to_value(output) {
        Ok(value) => (value, OutputShape::Blocks),
        // Serializing plain data blocks does not fail; should it, the guards still see the
        // rendered text rather than nothing.
        Err(_) => (Value::String(output.render()), OutputShape::Text),
    }
}

/// The tool output for a `tool_response` a hook rewrote, in the shape the tool gave. A value
/// that no longer fits the shape (a block list a hook turned into something else) goes to the
/// model as JSON text: never the original, which the hook meant to replace.
pub(crate) fn value_output(value: Value, shape: OutputShape) -> ToolOutput {
    match (shape, value) {
        (OutputShape::Text, Value::String(text)) => ToolOutput::text(text),
        (OutputShape::Json, value) => ToolOutput::json(value),
        (OutputShape::Blocks, value) => match serde_json::from_value::<ToolOutput>(value.clone()) {
            Ok(output) => output,
            Err(_) => ToolOutput::text(value.to_string()),
        },
        (OutputShape::Text, value) => ToolOutput::text(value.to_string()),
    }
}

/// `output` followed by one text block per context string (context that hooks added for the
/// model, which rig can only carry inside the tool's result).
pub(crate) fn with_context(output: ToolOutput, context: &[String]) -> ToolOutput {
    if context.is_empty() {
        return output;
    }
    let mut blocks = output.into_content();
    blocks.extend(context.iter().map(|c| ToolResultContent::text(c.clone())));
    // Not empty: `output` had at least one block and `context` adds more.
    ToolOutput::content(blocks).unwrap_or_else(|_| ToolOutput::text(context.join("\n")))
}

/// The answer text of a model reply: its text blocks, joined by newlines.
pub(crate) fn reply_text(choice: &[AssistantContent]) -> String {
    let mut text = String::new();
    for block in choice {
        if let AssistantContent::Text(t) = block {
            join(&mut text, t.text());
        }
    }
    text
}

/// The tool calls of a model reply: rig's call id, the name and the arguments.
pub(crate) fn reply_tool_calls(choice: &[AssistantContent]) -> Vec<ToolCall> {
    choice
        .iter()
        .filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(ToolCall::new(
                call.id.to_string(),
                call.function.name.to_string(),
                Value::Object(call.function.arguments.clone()),
            )),
            _ => None,
        })
        .collect()
}

/// Why the model stopped, in the provider-neutral spelling (`stop`, `tool_calls`, `length`…).
pub(crate) fn stop_reason(reason: &FinishReason) -> String {
    match reason {
        FinishReason::Other(other) => other.clone(),
        known => match serde_json::to_value(known) {
            Ok(Value::String(name)) => name,
            _ => format!("{known:?}"),
        },
    }
}

/// `response` with its answer text replaced by `text`: one text block at the place of the
/// first (tool calls and other blocks kept in order). The provider's raw document, which
/// still holds the old text, is dropped.
pub(crate) fn rewrite_reply(response: &CompletionResponse, text: String) -> CompletionResponse {
    let mut response = response.clone();
    let mut blocks = Vec::with_capacity(response.choice.len());
    let mut text = Some(text);
    for block in std::mem::take(&mut response.choice) {
        match block {
            AssistantContent::Text(_) => {
                if let Some(text) = text.take() {
                    blocks.push(AssistantContent::text(text));
                }
            }
            other => blocks.push(other),
        }
    }
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        blocks.insert(0, AssistantContent::text(text));
    }
    response.choice = blocks;
    response.raw = Value::Null;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_output_round_trips_as_a_string_and_json_as_json() {
        let (value, shape) = output_value(&ToolOutput::text("AKIA"));
        assert_eq!((value.clone(), shape), (json!("AKIA"), OutputShape::Text));
        assert_eq!(value_output(json!("[x]"), shape).as_text(), Some("[x]"));

        let (value, shape) = output_value(&ToolOutput::json(json!({"k": "v"})));
        assert_eq!(shape, OutputShape::Json);
        assert_eq!(
            value_output(value, shape).as_json(),
            Some(&json!({"k": "v"}))
        );
    }

    #[test]
    fn a_rewritten_value_that_lost_its_shape_goes_out_as_text() {
        let output = value_output(json!({"not": "blocks"}), OutputShape::Blocks);
        assert_eq!(output.as_text(), Some(r#"{"not":"blocks"}"#));
        let output = value_output(json!(42), OutputShape::Text);
        assert_eq!(output.as_text(), Some("42"));
    }

    #[test]
    fn context_follows_the_output_as_text_blocks() {
        let output = with_context(ToolOutput::text("out"), &["note".into()]);
        assert_eq!(output.as_content().len(), 2);
        assert_eq!(output.as_content()[1].as_text(), Some("note"));
    }

    #[test]
    fn a_prompt_rewrite_keeps_other_blocks() {
        let prompt = rig_message::Message::User {
            content: vec![UserContent::text("a"), UserContent::text("b")],
        };
        assert_eq!(prompt_text(&prompt).as_deref(), Some("a\nb"));
        let rewritten = rewrite_prompt(&prompt, "c".into());
        assert_eq!(prompt_text(&rewritten).as_deref(), Some("c"));
    }

    #[test]
    fn stop_reasons_use_the_snake_case_names() {
        assert_eq!(stop_reason(&FinishReason::ToolCalls), "tool_calls");
        assert_eq!(
            stop_reason(&FinishReason::Other("end_turn".into())),
            "end_turn"
        );
    }
}
