//! The user's prompt inside a conversation: what [`Session::call_model`](super::Session)
//! reports to `error_occurred`, and how a recovery's modified prompt (seed 000
//! `modifiedPrompt`) replaces it for the retry.

use crate::context::{Content, ContentBlock, Message, Role};

/// The text of the last user message, when it has any (a message of tool results only has
/// none).
pub(super) fn last_prompt(messages: &[Message]) -> Option<String> {
    let text = messages.iter().rev().find(|m| m.role == Role::User)?.text();
    (!text.is_empty()).then(|| text.into_owned())
}

/// Put `prompt` in place of the text of the last user message. Its other blocks (tool results,
/// images) stay where they are; its first text block takes the prompt (keeping that block's
/// extra fields) and its other text blocks go. A user message without text gets the prompt as
/// a last block; a conversation without a user message gets one at its end.
pub(super) fn replace_prompt(messages: &mut Vec<Message>, prompt: String) {
    let Some(message) = messages.iter_mut().rev().find(|m| m.role == Role::User) else {
        messages.push(Message::user(prompt));
        return;
    };
    let blocks = match std::mem::take(&mut message.content) {
        Content::Text(_) => {
            message.content = Content::Text(prompt);
            return;
        }
        Content::Blocks(blocks) => blocks,
    };
    let mut prompt = Some(prompt);
    let mut kept = Vec::with_capacity(blocks.len() + 1);
    for block in blocks {
        match block {
            ContentBlock::Text { extra, .. } => {
                if let Some(text) = prompt.take() {
                    let mut first = ContentBlock::text(text);
                    if let ContentBlock::Text { extra: slot, .. } = &mut first {
                        *slot = extra;
                    }
                    kept.push(first);
                }
            }
            other => kept.push(other),
        }
    }
    if let Some(text) = prompt {
        kept.push(ContentBlock::text(text));
    }
    message.content = Content::Blocks(kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conversation() -> Vec<Message> {
        vec![
            Message::system("be brief"),
            Message::user("first question"),
            Message::assistant("an answer"),
            Message::user("a very long second question"),
        ]
    }

    #[test]
    fn the_last_user_text_is_the_prompt_and_is_what_gets_replaced() {
        let mut messages = conversation();
        assert_eq!(
            last_prompt(&messages).as_deref(),
            Some("a very long second question")
        );
        replace_prompt(&mut messages, "short question".into());
        assert_eq!(messages[3].text(), "short question");
        assert_eq!(
            messages[1].text(),
            "first question",
            "earlier turns untouched"
        );
        assert_eq!(messages.len(), 4);
    }

    #[test]
    fn tool_results_and_images_stay_and_the_text_blocks_become_the_prompt() {
        let cached: ContentBlock = serde_json::from_value(
            json!({"type": "text", "text": "part one ", "cache_control": {"type": "ephemeral"}}),
        )
        .unwrap();
        let mut messages = vec![Message::user(vec![
            ContentBlock::tool_result("toolu_1", "42 files"),
            cached,
            ContentBlock::image_url("https://example.com/a.png"),
            ContentBlock::text("part two"),
        ])];
        assert_eq!(last_prompt(&messages).as_deref(), Some("part one part two"));
        replace_prompt(&mut messages, "one part".into());
        let v = serde_json::to_value(&messages[0]).unwrap();
        assert_eq!(v["content"].as_array().unwrap().len(), 3);
        assert_eq!(v["content"][0]["type"], "tool_result");
        assert_eq!(v["content"][1]["text"], "one part");
        assert_eq!(v["content"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(v["content"][2]["type"], "image");
    }

    #[test]
    fn a_user_message_without_text_or_a_conversation_without_one_gets_the_prompt_added() {
        let mut results = vec![Message::user(vec![ContentBlock::tool_result("t", "ok")])];
        assert_eq!(last_prompt(&results), None);
        replace_prompt(&mut results, "now summarise".into());
        assert_eq!(results[0].content.blocks().len(), 2);
        assert_eq!(results[0].text(), "now summarise");

        let mut empty = vec![Message::system("be brief")];
        assert_eq!(last_prompt(&empty), None);
        replace_prompt(&mut empty, "hello".into());
        assert_eq!(empty.len(), 2);
        assert_eq!(
            (empty[1].role, empty[1].text().as_ref()),
            (Role::User, "hello")
        );
    }
}
