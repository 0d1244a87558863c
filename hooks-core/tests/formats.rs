//! Messages round-trip the providers' recorded JSON (fixtures/: requests and responses in the
//! shapes of Anthropic's Messages API and OpenAI's Chat Completions, from their documented
//! examples): JSON → `Message`s → JSON gives the same value.

use hookrail_core::context::{
    Content, ContentBlock, ImageSource, Message, Role, TokenUsage, ToolCall, openai,
};
use hookrail_core::runtime::ModelReply;
use serde_json::{Value, json};

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// OpenAI's `arguments` is JSON text, re-encoded compactly on the way out: compare the JSON it
/// holds, not its whitespace.
fn parse_arguments(mut messages: Vec<Value>) -> Vec<Value> {
    for m in &mut messages {
        for call in m
            .get_mut("tool_calls")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let args = &mut call["function"]["arguments"];
            *args = serde_json::from_str(args.as_str().expect("arguments is a string")).unwrap();
        }
    }
    messages
}

#[test]
fn an_anthropic_request_round_trips_through_messages() {
    let request = fixture("anthropic_request.json");
    let messages: Vec<Message> = serde_json::from_value(request["messages"].clone()).unwrap();
    assert_eq!(
        serde_json::to_value(&messages).unwrap(),
        request["messages"]
    );

    // What the types make of it.
    assert_eq!(
        messages[0].text(),
        "Here is a long briefing document that stays the same between requests.What's the weather like in San Francisco?"
    );
    let Content::Blocks(first) = &messages[0].content else {
        panic!("blocks")
    };
    let ContentBlock::Text { extra, .. } = &first[0] else {
        panic!("text")
    };
    assert_eq!(extra["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(
        messages[1].tool_calls(),
        [ToolCall::new(
            "toolu_01A09q90qw90lq917835lq9",
            "get_weather",
            json!({"location": "San Francisco, CA", "unit": "celsius"})
        )]
    );
    let Content::Blocks(results) = &messages[4].content else {
        panic!("blocks")
    };
    assert!(matches!(
        &results[0],
        ContentBlock::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "toolu_01B7x8c9v0b1n2m3q4w5e6r7"
    ));
    let ContentBlock::ToolResult {
        content: Some(Content::Blocks(inner)),
        ..
    } = &results[1]
    else {
        panic!("a tool result with blocks: {:?}", results[1])
    };
    assert!(matches!(
        &inner[1],
        ContentBlock::Image { source: ImageSource::Base64 { media_type, .. }, .. } if media_type == "image/png"
    ));
    let Content::Blocks(last) = &messages[5].content else {
        panic!("blocks")
    };
    assert!(matches!(
        &last[0],
        ContentBlock::Image {
            source: ImageSource::Url { .. },
            ..
        }
    ));
}

#[test]
fn an_anthropic_response_is_a_message_and_a_model_reply() {
    let response = fixture("anthropic_response.json");
    // A response is an assistant message; its other fields (id, usage, …) are kept in `extra`.
    let message: Message = serde_json::from_value(response.clone()).unwrap();
    assert_eq!(serde_json::to_value(&message).unwrap(), response);
    assert_eq!(message.role, Role::Assistant);
    assert_eq!(message.extra["stop_reason"], "tool_use");
    let Content::Blocks(blocks) = &message.content else {
        panic!("blocks")
    };
    assert_eq!(blocks[0].type_name(), "thinking", "kept as it came");

    let usage = &response["usage"];
    let reply = ModelReply::from_message(&message)
        .with_usage(TokenUsage::new(
            usage["input_tokens"].as_u64().unwrap(),
            usage["output_tokens"].as_u64().unwrap(),
        ))
        .with_stop_reason("tool_use");
    assert_eq!(
        reply.chunks,
        ["I'll check the current weather in San Francisco for you."]
    );
    assert_eq!(reply.tool_calls[0].id, "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(reply.tool_calls[0].input["unit"], "celsius");
    assert_eq!(reply.usage.total(), 563);
}

#[test]
fn an_openai_request_round_trips_through_messages() {
    let request = fixture("openai_request.json");
    let wire = request["messages"].as_array().unwrap();
    let messages = openai::from_openai(wire).unwrap();
    let back = openai::to_openai(&messages).unwrap();
    assert_eq!(parse_arguments(back), parse_arguments(wire.clone()));

    // Consecutive tool messages are one user message of tool_result blocks, as in Anthropic's
    // format: 11 OpenAI messages are 9 here.
    assert_eq!(messages.len(), 9);
    assert_eq!(messages[0].role, Role::Developer);
    let calls = messages[2].tool_calls();
    assert_eq!(
        calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["call_12345xyz", "call_67890abc"]
    );
    assert_eq!(calls[1].input, json!({"location": "Bogotá, Colombia"}));
    let Content::Blocks(results) = &messages[3].content else {
        panic!("blocks")
    };
    assert_eq!(messages[3].role, Role::User);
    assert_eq!(
        results
            .iter()
            .map(|b| match b {
                ContentBlock::ToolResult { tool_use_id, .. } => tool_use_id.as_str(),
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>(),
        ["call_12345xyz", "call_67890abc"]
    );
    let Content::Blocks(user) = &messages[5].content else {
        panic!("blocks")
    };
    assert!(matches!(
        &user[1],
        ContentBlock::Image { source: ImageSource::Base64 { media_type, .. }, .. } if media_type == "image/png"
    ));
    assert!(
        matches!(&user[2], ContentBlock::Other(_)),
        "input_audio kept"
    );
    assert_eq!(
        messages[6].text(),
        "Let me look up the weather for the second place too."
    );
    assert_eq!(messages[6].tool_calls()[0].id, "call_abcdef012");

    // The same conversation in Anthropic's shape carries the same ids.
    let anthropic = serde_json::to_value(&messages).unwrap();
    assert_eq!(anthropic[2]["content"][1]["type"], "tool_use");
    assert_eq!(anthropic[2]["content"][1]["id"], "call_67890abc");
    assert_eq!(anthropic[3]["content"][0]["tool_use_id"], "call_12345xyz");
}

#[test]
fn an_openai_response_message_round_trips_and_gives_a_model_reply() {
    let response = fixture("openai_response.json");
    let choice = &response["choices"][0];
    let wire = [choice["message"].clone()];
    let messages = openai::from_openai(&wire).unwrap();
    assert_eq!(openai::to_openai(&messages).unwrap(), wire);
    assert_eq!(messages[0].extra["refusal"], Value::Null);

    let usage = &response["usage"];
    let reply = ModelReply::from_message(&messages[0])
        .with_usage(TokenUsage::new(
            usage["prompt_tokens"].as_u64().unwrap(),
            usage["completion_tokens"].as_u64().unwrap(),
        ))
        .with_stop_reason(choice["finish_reason"].as_str().unwrap());
    assert!(reply.chunks.is_empty());
    assert_eq!(
        reply.tool_calls,
        [ToolCall::new(
            "call_12345xyz",
            "get_weather",
            json!({"location": "Paris, France"})
        )]
    );
    assert_eq!(
        (reply.usage.total(), reply.stop_reason.as_deref()),
        (99, Some("tool_calls"))
    );
}

#[test]
fn an_anthropic_conversation_written_for_openai_and_read_back_is_unchanged() {
    let request = fixture("anthropic_request.json");
    let mut messages: Vec<Message> = serde_json::from_value(request["messages"].clone()).unwrap();
    // OpenAI has no `is_error`; everything else of this conversation has an OpenAI spelling.
    for m in &mut messages {
        if let Content::Blocks(blocks) = &mut m.content {
            for b in blocks {
                if let ContentBlock::ToolResult { is_error, .. } = b {
                    *is_error = false;
                }
            }
        }
    }
    let wire = openai::to_openai(&messages).unwrap();
    assert_eq!(
        wire[1]["tool_calls"][0]["id"],
        "toolu_01A09q90qw90lq917835lq9"
    );
    assert_eq!(wire[2]["role"], "tool");
    assert_eq!(
        wire[5]["content"][1]["image_url"]["url"],
        json!(format!(
            "data:image/png;base64,{}",
            request["messages"][4]["content"][1]["content"][1]["source"]["data"]
                .as_str()
                .unwrap()
        ))
    );
    assert_eq!(openai::from_openai(&wire).unwrap(), messages);
}
