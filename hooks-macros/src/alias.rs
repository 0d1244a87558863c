//! Other runtimes' names for the standard points, so that `#[hook(PreToolUse)]` says which
//! point was meant.
//!
//! The one-ident namespace of `#[hook]` is the catalog's snake_case names, checked by the
//! `macro_rules!` gate in hookrail-core, whose error lists every valid name. A name from
//! Claude Code or from one of the runtimes the project started from (DESIGN.md §3) gets a
//! pointed error instead, at the point: "did you mean `pre_tool_use`". The names are the
//! catalog's table; a unit test pins the targets against `hookrail_core::points::NAMES`.

/// The standard points (the gate has the authoritative copy; the test pins this one).
pub const STANDARD: [&str; 20] = [
    "session_start",
    "session_end",
    "user_prompt_submit",
    "pre_model_call",
    "model_stream_chunk",
    "post_model_call",
    "pre_tool_use",
    "post_tool_use",
    "step_end",
    "stop",
    "pre_compact",
    "subagent_start",
    "subagent_stop",
    "error_occurred",
    "notification",
    "pre_queue_drain",
    "post_queue_drain",
    "permission_request",
    "post_tool_batch",
    "pre_model_switch",
];

/// `(name elsewhere, where it comes from, our point)`: DESIGN.md §3's table. Names that are
/// only a spelling of ours (`SessionStart`, `onPreCompact`) are found by [`suggest`] without
/// an entry; they are listed anyway when the table names their source.
const ALIASES: &[(&str, &str, &str)] = &[
    // Claude Code
    ("SessionStart", "Claude Code", "session_start"),
    ("SessionEnd", "Claude Code", "session_end"),
    ("UserPromptSubmit", "Claude Code", "user_prompt_submit"),
    ("PreToolUse", "Claude Code", "pre_tool_use"),
    ("PostToolUse", "Claude Code", "post_tool_use"),
    ("PostToolUseFailure", "Claude Code", "post_tool_use"),
    ("Stop", "Claude Code", "stop"),
    ("PreCompact", "Claude Code", "pre_compact"),
    ("SubagentStart", "Claude Code", "subagent_start"),
    ("SubagentStop", "Claude Code", "subagent_stop"),
    ("StopFailure", "Claude Code", "error_occurred"),
    ("Notification", "Claude Code", "notification"),
    // Squad (seed 000)
    ("onSessionStart", "Squad", "session_start"),
    ("onSessionEnd", "Squad", "session_end"),
    ("onUserPromptSubmitted", "Squad", "user_prompt_submit"),
    ("onPreToolUse", "Squad", "pre_tool_use"),
    ("onPostToolUse", "Squad", "post_tool_use"),
    ("onPreCompact", "Squad", "pre_compact"),
    ("onSubagentStart", "Squad", "subagent_start"),
    ("onSubagentStop", "Squad", "subagent_stop"),
    ("onErrorOccurred", "Squad", "error_occurred"),
    // Git With Intent (seed 001)
    ("runStart", "Git With Intent", "session_start"),
    ("runEnd", "Git With Intent", "session_end"),
    ("afterStep", "Git With Intent", "step_end"),
    // SecureYeoman (seed 002)
    ("agent_init", "SecureYeoman", "session_start"),
    ("agent_shutdown", "SecureYeoman", "session_end"),
    ("message_received", "SecureYeoman", "user_prompt_submit"),
    ("before_llm_call", "SecureYeoman", "pre_model_call"),
    ("stream_chunk", "SecureYeoman", "model_stream_chunk"),
    ("after_llm_call", "SecureYeoman", "post_model_call"),
    ("stream_end", "SecureYeoman", "post_model_call"),
    ("tool_execute_before", "SecureYeoman", "pre_tool_use"),
    ("tool_execute_after", "SecureYeoman", "post_tool_use"),
    ("message_loop_end", "SecureYeoman", "step_end"),
    ("delegation_before", "SecureYeoman", "subagent_start"),
    ("delegation_after", "SecureYeoman", "subagent_stop"),
    ("sub_agent_sealed", "SecureYeoman", "subagent_stop"),
    ("message_sent", "SecureYeoman", "notification"),
    // AI-centric (seed 003)
    ("SessionStop", "the AI-centric seed", "session_end"),
    ("PromptSubmit", "the AI-centric seed", "user_prompt_submit"),
    ("ModelOutput", "the AI-centric seed", "post_model_call"),
    ("PreAbilityCall", "the AI-centric seed", "pre_tool_use"),
    ("PostAbilityCall", "the AI-centric seed", "post_tool_use"),
    // infer (seed 004)
    ("pre_session", "infer", "session_start"),
    ("post_session", "infer", "session_end"),
    ("pre", "infer", "user_prompt_submit"),
    ("pre_stream", "infer", "pre_model_call"),
    ("post_stream", "infer", "post_model_call"),
    ("pre_tool", "infer", "pre_tool_use"),
    ("post_tool", "infer", "post_tool_use"),
    ("post", "infer", "step_end"),
];

/// SecureYeoman's `prompt_assembly_*` family.
const PROMPT_ASSEMBLY: &str = "prompt_assembly_";

/// The error for `name` when it is another runtime's name (or another spelling) of a standard
/// point; `None` for a standard name or one nobody uses (the gate then lists the catalog).
pub fn suggest(name: &str) -> Option<String> {
    if STANDARD.contains(&name) {
        return None;
    }
    let (source, point) =
        if let Some(&(_, source, point)) = ALIASES.iter().find(|(alias, _, _)| *alias == name) {
            (Some(source), point)
        } else if name.starts_with(PROMPT_ASSEMBLY) {
            (Some("SecureYeoman"), "user_prompt_submit")
        } else {
            let snake = snake_case(name);
            let bare = snake.strip_prefix("on_").unwrap_or(&snake);
            (None, *STANDARD.iter().find(|p| **p == bare)?)
        };
    let whose = match source {
        Some(source) => format!(" `{name}` is {source}'s name for it;"),
        None => String::new(),
    };
    Some(format!(
        "unknown hook point `{name}`; did you mean `{point}`?{whose} `#[hook]` takes the \
         catalog's snake_case names (`hookrail_core::points`)"
    ))
}

/// `PreToolUse`, `preToolUse` → `pre_tool_use`; snake_case stays as it is.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_names_are_the_catalog() {
        assert_eq!(STANDARD, hookrail_core::points::NAMES);
    }

    #[test]
    fn every_alias_names_a_standard_point_and_is_not_one() {
        for (alias, _, point) in ALIASES {
            assert!(STANDARD.contains(point), "{alias} -> {point}");
            assert!(!STANDARD.contains(alias), "{alias} is a standard name");
        }
    }

    #[test]
    fn other_runtimes_names_point_to_ours() {
        for (name, point) in [
            ("PreToolUse", "pre_tool_use"),
            ("onPreToolUse", "pre_tool_use"),
            ("tool_execute_before", "pre_tool_use"),
            ("PreAbilityCall", "pre_tool_use"),
            ("pre_tool", "pre_tool_use"),
            ("before_llm_call", "pre_model_call"),
            ("StopFailure", "error_occurred"),
            ("prompt_assembly_before", "user_prompt_submit"),
            // Spellings of ours with no entry of their own.
            ("PreModelCall", "pre_model_call"),
            ("preQueueDrain", "pre_queue_drain"),
            ("onPostQueueDrain", "post_queue_drain"),
        ] {
            let message = suggest(name).unwrap_or_else(|| panic!("{name}: no suggestion"));
            assert!(
                message.contains(&format!("did you mean `{point}`?")),
                "{name}: {message}"
            );
        }
        let claude = suggest("PreToolUse").unwrap();
        assert!(claude.contains("Claude Code's name for it"), "{claude}");
    }

    #[test]
    fn standard_and_unrelated_names_are_left_to_the_gate() {
        assert_eq!(suggest("pre_tool_use"), None);
        assert_eq!(suggest("pre_tool_usee"), None);
        assert_eq!(suggest("frobnicate"), None);
    }
}
