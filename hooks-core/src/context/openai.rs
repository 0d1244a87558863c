//! OpenAI's chat format (Chat Completions `messages`), to and from [`Message`].
//!
//! [`Message`]'s own serde shape is Anthropic's; these two functions translate a whole
//! conversation, because the formats do not map message for message:
//!
//! | OpenAI | [`Message`] |
//! |---|---|
//! | `{"role": "assistant", "content": …, "tool_calls": [{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}]}` | an assistant message whose blocks are the text, then a `tool_use` block per call (`arguments` parsed into `input`) |
//! | consecutive `{"role": "tool", "tool_call_id", "content"}` messages | one user message of `tool_result` blocks, as Anthropic wants them |
//! | content parts `{"type": "text"}`, `{"type": "image_url", "image_url": {"url", "detail"}}` | `text` and `image` blocks (a `data:` URL becomes a base64 source; `detail` is kept in the block's `extra`) |
//! | `"content": null` | no blocks |
//! | other parts (`input_audio`, `file`, …) and unmodelled fields (`refusal`, `name`, …) | kept as they came ([`ContentBlock::Other`], `extra`) |
//!
//! Converting OpenAI messages to [`Message`]s and back gives the same JSON value, except that
//! `arguments` is re-encoded compactly (the model's whitespace is not kept; the JSON is). What
//! OpenAI's format cannot say is refused with the place and the reason ([`FormatError`]): a
//! tool result's `is_error` and a `tool_use` block's `extra` fields have no OpenAI field and are
//! left out.
//!
//! ```
//! use hookrail_core::context::{Role, openai};
//! use serde_json::json;
//!
//! let wire = vec![
//!     json!({"role": "user", "content": "What's the weather in Paris?"}),
//!     json!({"role": "assistant", "content": null, "tool_calls": [{
//!         "id": "call_abc", "type": "function",
//!         "function": {"name": "get_weather", "arguments": "{\"location\":\"Paris\"}"}
//!     }]}),
//!     json!({"role": "tool", "tool_call_id": "call_abc", "content": "18°C"}),
//! ];
//! let messages = openai::from_openai(&wire)?;
//! let call = &messages[1].tool_calls()[0];
//! assert_eq!((call.id.as_str(), &call.input), ("call_abc", &json!({"location": "Paris"})));
//! assert_eq!(messages[2].role, Role::User); // a tool_result block, as Anthropic has it
//! assert_eq!(openai::to_openai(&messages)?, wire);
//! # Ok::<(), openai::FormatError>(())
//! ```

use serde_json::{Map, Value, json};

use super::{Content, ContentBlock, ImageSource, Message, Role};

/// A conversation that does not fit the format it is read from or written to.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The JSON at `at` is not what the format allows.
    #[error("{at}: {problem}")]
    Invalid {
        /// Where, as a path (`messages[2].tool_calls[0].id`).
        at: String,
        /// What is wrong.
        problem: String,
    },
    /// A tool call's `arguments` is not JSON text.
    #[error("{at}: `arguments` is not JSON: {source}")]
    Arguments {
        /// Where (`messages[1].tool_calls[0].function.arguments`).
        at: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The message at `at` holds something the target format cannot express.
    #[error("{at}: {what} cannot be written in OpenAI's chat format")]
    Unsupported {
        /// Where (`messages[3].content[1]`).
        at: String,
        /// What.
        what: String,
    },
}

fn invalid(at: impl Into<String>, problem: impl Into<String>) -> FormatError {
    FormatError::Invalid {
        at: at.into(),
        problem: problem.into(),
    }
}

/// OpenAI chat messages (the `messages` array of a request, or a response's
/// `choices[i].message`) as [`Message`]s.
///
/// # Errors
///
/// [`FormatError::Invalid`] for a message that is not an object, has no known `role`, a tool
/// message without `tool_call_id`, a malformed tool call or content part;
/// [`FormatError::Arguments`] for `arguments` that is not JSON text.
pub fn from_openai(messages: &[Value]) -> Result<Vec<Message>, FormatError> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    // True while the last message pushed holds the results of consecutive `tool` messages.
    let mut tool_turn = false;
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let mut fields = message
            .as_object()
            .cloned()
            .ok_or_else(|| invalid(&at, "a message must be a JSON object"))?;
        let role = match fields.remove("role") {
            Some(Value::String(r)) => r,
            _ => return Err(invalid(&at, "`role` must be a string")),
        };
        let content = fields.remove("content");
        if role == "tool" {
            let id = match fields.remove("tool_call_id") {
                Some(Value::String(id)) => id,
                _ => return Err(invalid(&at, "a tool message needs a string `tool_call_id`")),
            };
            let content = match content {
                None | Some(Value::Null) => None,
                Some(c) => Some(content_from_openai(c, &format!("{at}.content"))?),
            };
            let block = ContentBlock::ToolResult {
                tool_use_id: id,
                content,
                is_error: false,
                extra: fields,
            };
            match out.last_mut() {
                Some(Message {
                    content: Content::Blocks(blocks),
                    ..
                }) if tool_turn => blocks.push(block),
                _ => out.push(Message::new(Role::User, vec![block])),
            }
            tool_turn = true;
            continue;
        }
        tool_turn = false;
        let role = match role.as_str() {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                return Err(invalid(
                    &at,
                    format!(
                        "unknown role `{other}`; expected system, developer, user, assistant or tool"
                    ),
                ));
            }
        };
        let mut content = match content {
            None | Some(Value::Null) => Content::Blocks(Vec::new()),
            Some(c) => content_from_openai(c, &format!("{at}.content"))?,
        };
        if role == Role::Assistant
            && let Some(calls) = fields.remove("tool_calls")
        {
            let calls = calls
                .as_array()
                .ok_or_else(|| invalid(format!("{at}.tool_calls"), "must be an array"))?;
            let mut blocks = content.into_blocks();
            for (j, call) in calls.iter().enumerate() {
                blocks.push(tool_call_from_openai(
                    call,
                    &format!("{at}.tool_calls[{j}]"),
                )?);
            }
            content = Content::Blocks(blocks);
        }
        out.push(Message {
            role,
            content,
            extra: fields,
        });
    }
    Ok(out)
}

/// [`Message`]s as OpenAI chat messages: the `messages` array of a Chat Completions request.
///
/// # Errors
///
/// [`FormatError::Unsupported`] for what the format cannot express: a role it does not have,
/// a `tool_use` block outside an assistant message, an image outside a user message or given
/// by a provider file id, a tool message or `tool_result` without the call's id.
pub fn to_openai(messages: &[Message]) -> Result<Vec<Value>, FormatError> {
    let mut out = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let role = match message.role {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            _ => {
                return Err(FormatError::Unsupported {
                    at,
                    what: "a message of role `other`".into(),
                });
            }
        };
        let mut fields = message.extra.clone();
        fields.insert("role".into(), role.into());
        match message.role {
            Role::Assistant => {
                assistant_to_openai(&message.content, &mut fields, &at)?;
                out.push(Value::Object(fields));
            }
            Role::User | Role::Tool => {
                // Tool results become `tool` messages, ahead of what else the message says.
                let blocks = message.content.blocks();
                let mut rest = Vec::new();
                for (j, block) in blocks.iter().enumerate() {
                    match block {
                        ContentBlock::ToolResult {
                            tool_use_id,
                            content,
                            extra,
                            ..
                        } => {
                            let mut tool = extra.clone();
                            tool.insert("role".into(), "tool".into());
                            tool.insert("tool_call_id".into(), tool_use_id.clone().into());
                            let at = format!("{at}.content[{j}].content");
                            let content = match content {
                                Some(c) => content_to_openai(c, &at)?,
                                None => Value::String(String::new()),
                            };
                            tool.insert("content".into(), content);
                            out.push(Value::Object(tool));
                        }
                        other => rest.push((j, other)),
                    }
                }
                let only_results = rest.is_empty() && !blocks.is_empty();
                if message.role == Role::Tool && !only_results {
                    return Err(FormatError::Unsupported {
                        at,
                        what: "a tool message without a tool_result block (the call's id)".into(),
                    });
                }
                if !only_results {
                    let content = match (&message.content, rest.is_empty()) {
                        (Content::Text(s), _) => Value::String(s.clone()),
                        (Content::Blocks(_), true) => Value::Null,
                        (Content::Blocks(_), false) => Value::Array(
                            rest.into_iter()
                                .map(|(j, b)| part_to_openai(b, &format!("{at}.content[{j}]")))
                                .collect::<Result<_, _>>()?,
                        ),
                    };
                    fields.insert("content".into(), content);
                    out.push(Value::Object(fields));
                }
            }
            _ => {
                let content = content_to_openai(&message.content, &format!("{at}.content"))?;
                fields.insert("content".into(), content);
                out.push(Value::Object(fields));
            }
        }
    }
    Ok(out)
}

/// An assistant message's `content` and `tool_calls`.
fn assistant_to_openai(
    content: &Content,
    fields: &mut Map<String, Value>,
    at: &str,
) -> Result<(), FormatError> {
    let blocks = match content {
        Content::Text(s) => {
            fields.insert("content".into(), Value::String(s.clone()));
            return Ok(());
        }
        Content::Blocks(b) => b,
    };
    let mut calls = Vec::new();
    let mut parts = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::ToolUse {
                id, name, input, ..
            } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": input.to_string()},
            })),
            other => parts.push((j, other)),
        }
    }
    let content = match parts.as_slice() {
        [] => Value::Null,
        // With tool calls, one plain text part is OpenAI's usual string form.
        [(_, ContentBlock::Text { text, extra, .. })] if !calls.is_empty() && extra.is_empty() => {
            Value::String(text.clone())
        }
        _ => Value::Array(
            parts
                .into_iter()
                .map(|(j, b)| part_to_openai(b, &format!("{at}.content[{j}]")))
                .collect::<Result<_, _>>()?,
        ),
    };
    fields.insert("content".into(), content);
    if !calls.is_empty() {
        fields.insert("tool_calls".into(), Value::Array(calls));
    }
    Ok(())
}

/// A content value (string or parts) read from OpenAI.
fn content_from_openai(content: Value, at: &str) -> Result<Content, FormatError> {
    match content {
        Value::String(s) => Ok(Content::Text(s)),
        Value::Array(parts) => parts
            .into_iter()
            .enumerate()
            .map(|(j, p)| part_from_openai(p, &format!("{at}[{j}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Content::Blocks),
        _ => Err(invalid(
            at,
            "content must be a string, an array of parts or null",
        )),
    }
}

/// Content written for OpenAI: a string, or an array of parts (`null` for no blocks).
fn content_to_openai(content: &Content, at: &str) -> Result<Value, FormatError> {
    match content {
        Content::Text(s) => Ok(Value::String(s.clone())),
        Content::Blocks(b) if b.is_empty() => Ok(Value::Null),
        Content::Blocks(b) => b
            .iter()
            .enumerate()
            .map(|(j, block)| part_to_openai(block, &format!("{at}[{j}]")))
            .collect::<Result<_, _>>()
            .map(Value::Array),
    }
}

fn part_from_openai(part: Value, at: &str) -> Result<ContentBlock, FormatError> {
    let Value::Object(mut fields) = part else {
        return Err(invalid(at, "a content part must be a JSON object"));
    };
    match fields.get("type").and_then(Value::as_str) {
        Some("text") => {
            fields.remove("type");
            match fields.remove("text") {
                Some(Value::String(text)) => Ok(ContentBlock::Text {
                    text,
                    extra: fields,
                }),
                _ => Err(invalid(at, "a text part needs a string `text`")),
            }
        }
        // Only the shape modelled here becomes an image block; anything more stays verbatim.
        Some("image_url") if fields.len() == 2 => {
            let Some(Value::Object(mut image)) = fields.remove("image_url") else {
                return Err(invalid(at, "an image_url part needs an `image_url` object"));
            };
            let url = match image.remove("url") {
                Some(Value::String(url)) => url,
                _ => return Err(invalid(at, "`image_url` needs a string `url`")),
            };
            let source = match parse_data_url(&url) {
                Some((media_type, data)) => ImageSource::Base64 {
                    media_type: media_type.to_owned(),
                    data: data.to_owned(),
                },
                None => ImageSource::Url { url },
            };
            Ok(ContentBlock::Image {
                source,
                extra: image,
            })
        }
        Some(_) => Ok(ContentBlock::Other(Value::Object(fields))),
        None => Err(invalid(at, "a content part needs a string `type`")),
    }
}

fn part_to_openai(block: &ContentBlock, at: &str) -> Result<Value, FormatError> {
    let unsupported = |what: &str| FormatError::Unsupported {
        at: at.to_owned(),
        what: what.to_owned(),
    };
    match block {
        ContentBlock::Text { text, extra, .. } => {
            let mut part = extra.clone();
            part.insert("type".into(), "text".into());
            part.insert("text".into(), text.clone().into());
            Ok(Value::Object(part))
        }
        ContentBlock::Image { source, extra, .. } => {
            let url = match source {
                ImageSource::Url { url } => url.clone(),
                ImageSource::Base64 { media_type, data } => {
                    format!("data:{media_type};base64,{data}")
                }
                _ => {
                    return Err(unsupported(
                        "an image given by a file id or an unknown source",
                    ));
                }
            };
            let mut image = extra.clone();
            image.insert("url".into(), url.into());
            Ok(json!({"type": "image_url", "image_url": image}))
        }
        ContentBlock::ToolUse { .. } => {
            Err(unsupported("a tool_use block outside an assistant message"))
        }
        ContentBlock::ToolResult { .. } => Err(unsupported("a tool_result block inside content")),
        ContentBlock::Other(v) => Ok(v.clone()),
    }
}

fn tool_call_from_openai(call: &Value, at: &str) -> Result<ContentBlock, FormatError> {
    let text = |v: Option<&Value>, field: &str| match v {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(invalid(at, format!("a tool call needs a string `{field}`"))),
    };
    let id = text(call.get("id"), "id")?;
    match call.get("type").and_then(Value::as_str) {
        Some("function") => {}
        other => {
            return Err(invalid(
                at,
                format!("tool call type {other:?} is not `function`, the one type modelled here"),
            ));
        }
    }
    let function = call.get("function");
    let name = text(function.and_then(|f| f.get("name")), "function.name")?;
    let arguments = text(
        function.and_then(|f| f.get("arguments")),
        "function.arguments",
    )?;
    let input = serde_json::from_str(&arguments).map_err(|source| FormatError::Arguments {
        at: format!("{at}.function.arguments"),
        source,
    })?;
    Ok(super::ToolCall::new(id, name, input).into())
}

/// `data:<media type>;base64,<data>` split into its media type and data.
fn parse_data_url(url: &str) -> Option<(&str, &str)> {
    let (head, data) = url.strip_prefix("data:")?.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    (!media_type.is_empty()).then_some((media_type, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_place_and_the_problem() {
        let cases = [
            (json!(["x"]), "messages[0]: a message must be a JSON object"),
            (
                json!([{"role": "function", "content": "x"}]),
                "unknown role `function`",
            ),
            (
                json!([{"role": "tool", "content": "x"}]),
                "messages[0]: a tool message needs",
            ),
            (
                json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]}]),
                "messages[0].tool_calls[0].function.arguments: `arguments` is not JSON",
            ),
            (
                json!([{"role": "user", "content": [{"type": "text"}]}]),
                "messages[0].content[0]: a text part needs a string `text`",
            ),
            (
                json!([{"role": "user", "content": 3}]),
                "content must be a string",
            ),
        ];
        for (wire, says) in cases {
            let err = from_openai(wire.as_array().unwrap()).unwrap_err();
            assert!(err.to_string().contains(says), "{wire}: {err}");
        }
    }

    #[test]
    fn what_openai_cannot_say_is_refused_with_the_place() {
        let m = [Message::new(Role::Tool, "no id")];
        assert!(matches!(
            to_openai(&m),
            Err(FormatError::Unsupported { .. })
        ));
        let m = [
            Message::user("hi"),
            Message::user(vec![ContentBlock::from(super::super::ToolCall::new(
                "t",
                "f",
                json!({}),
            ))]),
        ];
        let err = to_openai(&m).unwrap_err().to_string();
        assert!(
            err.starts_with("messages[1].content[0]: a tool_use block"),
            "{err}"
        );
    }

    #[test]
    fn tool_results_become_tool_messages_ahead_of_the_rest() {
        let m = [Message::user(vec![
            ContentBlock::tool_result("call_1", "ok"),
            ContentBlock::tool_error("call_2", "boom"),
            ContentBlock::text("now summarise"),
        ])];
        assert_eq!(
            to_openai(&m).unwrap(),
            [
                json!({"role": "tool", "tool_call_id": "call_1", "content": "ok"}),
                json!({"role": "tool", "tool_call_id": "call_2", "content": "boom"}),
                json!({"role": "user", "content": [{"type": "text", "text": "now summarise"}]}),
            ]
        );
    }

    #[test]
    fn data_urls_become_base64_sources() {
        assert_eq!(
            parse_data_url("data:image/png;base64,iVBOR"),
            Some(("image/png", "iVBOR"))
        );
        assert_eq!(parse_data_url("https://x/y.png"), None);
        assert_eq!(parse_data_url("data:;base64,xx"), None);
    }
}
