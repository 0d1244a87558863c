//! Conversation messages: roles, content blocks (text, tool use, tool result, image) and the
//! tool calls a model makes.
//!
//! The serde shape is Anthropic's Messages API: a [`Message`] is `{"role", "content"}` whose
//! content is a string or an array of blocks tagged by `type`. OpenAI's chat format is reached
//! through [`super::openai`]. Fields this crate does not model (`cache_control`, `citations`, …)
//! are kept in each value's `extra` map and written back, so a round trip loses nothing.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who wrote a [`Message`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// System instructions.
    System,
    /// Instructions from the application's developer (OpenAI's `developer`, which replaces
    /// `system` for its reasoning models).
    Developer,
    /// The user.
    #[default]
    User,
    /// The model.
    Assistant,
    /// A tool's result (OpenAI's `tool` role; in Anthropic's format tool results are
    /// [`ContentBlock::ToolResult`] blocks of a `user` message).
    Tool,
    /// Any other value.
    #[serde(other)]
    Other,
}

/// A tool call the model made: the provider's id for it, the tool's name and its input.
///
/// The id (Anthropic `toolu_…`, OpenAI `call_…`) is what ties the call to its result: pass the
/// call to [`Session::tool_call`](crate::runtime::Session::tool_call) and it reaches the
/// `pre_tool_use` and `post_tool_use` contexts (`tool_use_id`), every hook run and the audit.
///
/// ```
/// use hookrail_core::context::{ContentBlock, ToolCall};
/// use serde_json::json;
///
/// let call = ToolCall::new("toolu_01A", "Bash", json!({"command": "ls"}));
/// let block = ContentBlock::from(call.clone());
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     json!({"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {"command": "ls"}})
/// );
/// assert_eq!(block.tool_call(), Some(call));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's input (a JSON object for every provider this crate knows).
    pub input: Value,
}

impl ToolCall {
    /// A call of `name` with `input`, identified by `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            input,
        }
    }
}

/// Where an image comes from (Anthropic's `source` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ImageSource {
    /// The image's bytes, base64-encoded: `{"type": "base64", "media_type", "data"}`.
    Base64 {
        /// `image/png`, `image/jpeg`, …
        media_type: String,
        /// The base64 text.
        data: String,
    },
    /// An image on the web: `{"type": "url", "url"}`.
    Url {
        /// Its address.
        url: String,
    },
    /// A file uploaded to the provider: `{"type": "file", "file_id"}`.
    File {
        /// The provider's id for it.
        file_id: String,
    },
    /// A source of a type this crate does not know, kept as it came.
    #[serde(skip)]
    Other(Value),
}

/// One block of a message's content, tagged by `type` as in Anthropic's Messages API.
///
/// Build blocks with the constructors ([`text`](Self::text), [`tool_result`](Self::tool_result),
/// …; a [`ToolCall`] converts into a `tool_use` block) and match them with `..`, since each
/// variant may gain fields. Blocks of a type this crate does not model (`thinking`,
/// `document`, …) are kept verbatim as [`Other`](Self::Other); a known block that is malformed
/// (a `tool_use` without an `id`, say) is an error naming the field.
///
/// ```
/// use hookrail_core::context::ContentBlock;
/// use serde_json::json;
///
/// let block: ContentBlock = serde_json::from_value(json!({
///     "type": "tool_result", "tool_use_id": "toolu_01A", "content": "15 degrees",
///     "cache_control": {"type": "ephemeral"}
/// })).unwrap();
/// let ContentBlock::ToolResult { tool_use_id, is_error, extra, .. } = &block else { panic!() };
/// assert_eq!((tool_use_id.as_str(), *is_error), ("toolu_01A", false));
/// assert_eq!(extra["cache_control"]["type"], "ephemeral");
///
/// let bad = serde_json::from_value::<ContentBlock>(json!({"type": "tool_use", "name": "x"}));
/// assert!(bad.unwrap_err().to_string().contains("missing field `id`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text: `{"type": "text", "text"}`.
    #[non_exhaustive]
    Text {
        /// The text.
        text: String,
        /// Fields not modelled here (`cache_control`, `citations`, …).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A tool call made by the model: `{"type": "tool_use", "id", "name", "input"}`.
    #[non_exhaustive]
    ToolUse {
        /// The provider's id for the call.
        id: String,
        /// The tool's name.
        name: String,
        /// The tool's input.
        input: Value,
        /// Fields not modelled here.
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A tool's result, sent back to the model:
    /// `{"type": "tool_result", "tool_use_id", "content", "is_error"}`.
    #[non_exhaustive]
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// What the tool returned (text, or blocks of text and images); absent when empty.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Content>,
        /// True when the tool failed (written only when true).
        #[serde(default, skip_serializing_if = "is_false")]
        is_error: bool,
        /// Fields not modelled here.
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// An image: `{"type": "image", "source"}`.
    #[non_exhaustive]
    Image {
        /// Where the image comes from.
        source: ImageSource,
        /// Fields not modelled here (OpenAI's `detail` when the image came from its format).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A block of a type this crate does not model, kept as it came.
    #[serde(skip)]
    Other(Value),
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            extra: Map::new(),
        }
    }

    /// The result of the call `tool_use_id`.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<Content>) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Some(content.into()),
            is_error: false,
            extra: Map::new(),
        }
    }

    /// The call `tool_use_id` failed (or was refused) with `content` as the explanation.
    pub fn tool_error(tool_use_id: impl Into<String>, content: impl Into<Content>) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Some(content.into()),
            is_error: true,
            extra: Map::new(),
        }
    }

    /// An image from `source`.
    pub fn image(source: ImageSource) -> Self {
        ContentBlock::Image {
            source,
            extra: Map::new(),
        }
    }

    /// An image at `url`.
    pub fn image_url(url: impl Into<String>) -> Self {
        ContentBlock::image(ImageSource::Url { url: url.into() })
    }

    /// An image given as base64 `data` of `media_type` (`image/png`, …).
    pub fn image_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ContentBlock::image(ImageSource::Base64 {
            media_type: media_type.into(),
            data: data.into(),
        })
    }

    /// The block's `type`: `text`, `tool_use`, `tool_result`, `image`, or an unknown block's
    /// own type (empty when it has none).
    pub fn type_name(&self) -> &str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::ToolUse { .. } => "tool_use",
            ContentBlock::ToolResult { .. } => "tool_result",
            ContentBlock::Image { .. } => "image",
            ContentBlock::Other(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The call a `tool_use` block holds.
    pub fn tool_call(&self) -> Option<ToolCall> {
        match self {
            ContentBlock::ToolUse {
                id, name, input, ..
            } => Some(ToolCall::new(id.clone(), name.clone(), input.clone())),
            _ => None,
        }
    }
}

impl From<ToolCall> for ContentBlock {
    fn from(call: ToolCall) -> Self {
        ContentBlock::ToolUse {
            id: call.id,
            name: call.name,
            input: call.input,
            extra: Map::new(),
        }
    }
}

/// The content of a message or a tool result: plain text, or a list of blocks. Each keeps the
/// form it came in, so both of the providers' spellings round-trip.
///
/// ```
/// use hookrail_core::context::{Content, ContentBlock};
///
/// let plain: Content = serde_json::from_str(r#""hello""#).unwrap();
/// assert_eq!(plain.text(), "hello");
/// let blocks: Content = serde_json::from_str(r#"[{"type": "text", "text": "hel"}, {"type": "text", "text": "lo"}]"#).unwrap();
/// assert_eq!(blocks.text(), "hello");
/// assert!(serde_json::from_str::<Content>("42").unwrap_err().to_string().contains("a string or an array"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text (`"content": "…"`).
    Text(String),
    /// Blocks (`"content": [{"type": …}, …]`).
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl Content {
    /// The text: the string, or the text blocks joined (other blocks are left out).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Content::Text(s) => Cow::Borrowed(s),
            Content::Blocks(blocks) => {
                let mut texts = blocks.iter().filter_map(ContentBlock::as_text);
                match (texts.next(), texts.next()) {
                    (None, _) => Cow::Borrowed(""),
                    (Some(one), None) => Cow::Borrowed(one),
                    (Some(a), Some(b)) => {
                        let mut s = format!("{a}{b}");
                        texts.for_each(|t| s.push_str(t));
                        Cow::Owned(s)
                    }
                }
            }
        }
    }

    /// The blocks; plain text is one text block (none when empty).
    pub fn blocks(&self) -> Cow<'_, [ContentBlock]> {
        match self {
            Content::Text(s) if s.is_empty() => Cow::Borrowed(&[]),
            Content::Text(s) => Cow::Owned(vec![ContentBlock::text(s.clone())]),
            Content::Blocks(b) => Cow::Borrowed(b),
        }
    }

    /// The blocks, by value.
    pub fn into_blocks(self) -> Vec<ContentBlock> {
        match self {
            Content::Text(s) if s.is_empty() => Vec::new(),
            Content::Text(s) => vec![ContentBlock::text(s)],
            Content::Blocks(b) => b,
        }
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Content::Text(s.to_owned())
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Content::Text(s)
    }
}

impl From<Vec<ContentBlock>> for Content {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        Content::Blocks(blocks)
    }
}

impl From<ContentBlock> for Content {
    fn from(block: ContentBlock) -> Self {
        Content::Blocks(vec![block])
    }
}

/// One message of the conversation, in the shape of Anthropic's Messages API
/// (`{"role": "user", "content": "…" | [blocks]}`).
///
/// [`Message::new`] takes text or blocks. Fields this crate does not model (OpenAI's
/// `refusal`, `name`, …) are kept in [`extra`](Self::extra).
///
/// ```
/// use hookrail_core::context::{ContentBlock, Message, Role, ToolCall};
/// use serde_json::json;
///
/// let question = Message::new(Role::User, "What is in /tmp?");
/// let reply = Message::new(Role::Assistant, vec![
///     ContentBlock::text("Let me look."),
///     ToolCall::new("toolu_01A", "Bash", json!({"command": "ls /tmp"})).into(),
/// ]);
/// assert_eq!(reply.text(), "Let me look.");
/// assert_eq!(reply.tool_calls()[0].id, "toolu_01A");
/// let answer = Message::new(Role::User, vec![ContentBlock::tool_result("toolu_01A", "a.txt")]);
/// assert_eq!(serde_json::to_value(&question).unwrap(), json!({"role": "user", "content": "What is in /tmp?"}));
/// assert_eq!(serde_json::to_value(&answer).unwrap()["content"][0]["tool_use_id"], "toolu_01A");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its content.
    #[serde(default)]
    pub content: Content,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Message {
    /// A message of `role` with `content`: text (`&str`, `String`) or blocks.
    pub fn new(role: Role, content: impl Into<Content>) -> Self {
        Message {
            role,
            content: content.into(),
            extra: Map::new(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<Content>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant (model) message.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Message::new(Role::Assistant, content)
    }

    /// A system message.
    pub fn system(content: impl Into<Content>) -> Self {
        Message::new(Role::System, content)
    }

    /// The message's text (see [`Content::text`]).
    pub fn text(&self) -> Cow<'_, str> {
        self.content.text()
    }

    /// The tool calls of its `tool_use` blocks, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        match &self.content {
            Content::Text(_) => Vec::new(),
            Content::Blocks(b) => b.iter().filter_map(ContentBlock::tool_call).collect(),
        }
    }
}

/// Serde's derived code for a `type`-tagged enum with an `Other(Value)` fallback: a known
/// `type` must deserialize strictly (so a malformed block is an error naming the field), an
/// unknown one is kept as it came.
macro_rules! tagged_with_fallback {
    ($ty:ident, $what:literal, [$($known:literal),*]) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $ty::Other(v) => v.serialize(s),
                    known => $ty::serialize(known, s),
                }
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(d)?;
                match value.get("type").and_then(Value::as_str) {
                    Some($($known)|*) => $ty::deserialize(value).map_err(de::Error::custom),
                    Some(_) if value.is_object() => Ok($ty::Other(value)),
                    _ => Err(de::Error::custom(concat!(
                        "expected ", $what, ": an object with a string `type` (",
                        $($known, ", ",)* "…)"
                    ))),
                }
            }
        }
    };
}

tagged_with_fallback!(
    ContentBlock,
    "a content block",
    ["text", "tool_use", "tool_result", "image"]
);
tagged_with_fallback!(ImageSource, "an image source", ["base64", "url", "file"]);

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        d.deserialize_any(ContentVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_roles_read_as_other_and_developer_is_known() {
        let m: Message = serde_json::from_str(r#"{"role": "function", "content": "x"}"#).unwrap();
        assert_eq!(m.role, Role::Other);
        let m: Message = serde_json::from_str(r#"{"role": "developer", "content": "x"}"#).unwrap();
        assert_eq!(m.role, Role::Developer);
        assert_eq!(Role::default(), Role::User);
    }

    #[test]
    fn unknown_block_and_source_types_are_kept_verbatim() {
        let v = json!([
            {"type": "thinking", "thinking": "hmm", "signature": "abc"},
            {"type": "image", "source": {"type": "s3", "bucket": "b"}}
        ]);
        let c: Content = serde_json::from_value(v.clone()).unwrap();
        let Content::Blocks(blocks) = &c else {
            panic!("{c:?}")
        };
        assert_eq!(blocks[0].type_name(), "thinking");
        assert!(matches!(blocks[0], ContentBlock::Other(_)));
        assert!(matches!(
            blocks[1],
            ContentBlock::Image {
                source: ImageSource::Other(_),
                ..
            }
        ));
        assert_eq!(serde_json::to_value(&c).unwrap(), v);
    }

    #[test]
    fn malformed_blocks_are_errors_that_say_what_is_wrong() {
        for (bad, says) in [
            (json!({"text": "no type"}), "a string `type`"),
            (json!("just a string"), "a string `type`"),
            (json!({"type": "text"}), "missing field `text`"),
            (
                json!({"type": "tool_result", "content": "x"}),
                "missing field `tool_use_id`",
            ),
            (
                json!({"type": "image", "source": {"type": "url"}}),
                "missing field `url`",
            ),
        ] {
            let err = serde_json::from_value::<ContentBlock>(bad.clone()).unwrap_err();
            assert!(err.to_string().contains(says), "{bad}: {err}");
        }
        let err = serde_json::from_value::<Message>(json!({"role": "user", "content": 1}));
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("a string or an array")
        );
    }

    #[test]
    fn extra_fields_survive_and_the_tag_is_not_one_of_them() {
        let v = json!({"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}});
        let b: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        let ContentBlock::Text { extra, .. } = &b else {
            panic!("{b:?}")
        };
        assert_eq!(extra.keys().collect::<Vec<_>>(), ["cache_control"]);
        assert_eq!(serde_json::to_value(&b).unwrap(), v);
    }

    #[test]
    fn message_text_and_tool_calls() {
        let m = Message::assistant(vec![
            ContentBlock::text("a"),
            ToolCall::new("t1", "Read", json!({"file_path": "x"})).into(),
            ContentBlock::text("b"),
        ]);
        assert_eq!(m.text(), "ab");
        assert_eq!(
            m.tool_calls(),
            [ToolCall::new("t1", "Read", json!({"file_path": "x"}))]
        );
        assert!(Message::user("plain").tool_calls().is_empty());
        assert!(Content::from("").blocks().is_empty());
        assert_eq!(Content::from("x").into_blocks(), [ContentBlock::text("x")]);
    }
}
