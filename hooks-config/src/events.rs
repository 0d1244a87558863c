//! Event names of every supported format mapped to hook points.
//!
//! A config entry names its event in one of these dialects; all resolve to a point of
//! [`hookrail_core::points`] (`pre_tool_use`, …) or, for Claude Code events a Rust agent has
//! no moment for, a generic Claude-event point of [`crate::generic`] (`config_change`, …;
//! every Claude Code event and its point: [`crate::claude_events::CLAUDE_EVENTS`]):
//!
//! | point | ours | Claude Code | seed 003 | infer (seed 004) |
//! |---|---|---|---|---|
//! | `session_start` | `session_start` | `SessionStart` | | `pre_session` |
//! | `session_end` | `session_end` | `SessionEnd` | `SessionStop` | `post_session` |
//! | `user_prompt_submit` | `user_prompt_submit` | `UserPromptSubmit` | `PromptSubmit` | `pre` |
//! | `pre_model_call` | `pre_model_call` | | | `pre_stream` |
//! | `model_stream_chunk` | `model_stream_chunk` | | | |
//! | `post_model_call` | `post_model_call` | | `ModelOutput` | `post_stream` |
//! | `pre_tool_use` | `pre_tool_use` | `PreToolUse` | `PreAbilityCall` | `pre_tool` |
//! | `post_tool_use` | `post_tool_use` | `PostToolUse`, `PostToolUseFailure` | `PostAbilityCall` | `post_tool` |
//! | `step_end` | `step_end` | | | `post` |
//! | `stop` | `stop` | `Stop` | | |
//! | `pre_compact` | `pre_compact` | `PreCompact` | | |
//! | `subagent_start` | `subagent_start` | `SubagentStart` | | |
//! | `subagent_stop` | `subagent_stop` | `SubagentStop` | | |
//! | `error_occurred` | `error_occurred` | `StopFailure` | | |
//! | `notification` | `notification` | `Notification` | | |
//! | `pre_queue_drain` | `pre_queue_drain` | | | `pre_queue_drain` |
//! | `post_queue_drain` | `post_queue_drain` | | | `post_queue_drain` |
//! | `permission_request` | `permission_request` | `PermissionRequest` | | |
//! | `post_tool_batch` | `post_tool_batch` | `PostToolBatch` | | |
//! | `pre_model_switch` | `pre_model_switch` | `PreModelSwitch` | | |
//!
//! Decisions:
//! - Names are case-sensitive, as in Claude Code. A near miss (`pretooluse`, `PreToolUsed`)
//!   is rejected with a "did you mean" suggestion (case-insensitive edit distance).
//! - Seed 003's `SessionStop` ("a session or logical phase ends", infra-only) is
//!   `session_end`, not `stop`: `stop` is a guard that can keep the agent working, which seed
//!   003 forbids for `SessionStop`.
//! - Claude Code's `PostToolUseFailure` is `post_tool_use`, which runs after every call, failed
//!   or not (the hook input's `error` field is set for failures). A hook a Claude Code file
//!   declares under `PostToolUseFailure` runs only for failed calls, one under `PostToolUse`
//!   only for successful ones, as in Claude Code ([`Matcher::event`](crate::spec::Matcher::event)).
//! - Every one of Claude Code's 33 events is accepted.
//! - In Claude Code files ([`resolve_claude`]) only Claude Code names are accepted.
//!
//! ```
//! use hookrail_config::events::{self, EventError};
//!
//! assert_eq!(events::resolve("PreAbilityCall"), Ok("pre_tool_use"));
//! assert_eq!(events::claude_event_name("pre_tool_use"), Some("PreToolUse"));
//! let err = events::resolve("PreToolUsed").unwrap_err();
//! assert_eq!(err.to_string(), "unknown event `PreToolUsed`; did you mean `PreToolUse`?");
//! assert_eq!(events::resolve("ConfigChange"), Ok("config_change"));
//! ```

use std::sync::OnceLock;

use hookrail_core::points::NAMES;

use crate::claude_events::{CLAUDE_EVENTS, claude_event};

/// Why an event name was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// Not an event name of any supported dialect.
    #[error("unknown event `{name}`{}", did_you_mean(*.suggestion))]
    Unknown {
        /// The name as written.
        name: String,
        /// The closest accepted name, if one is close.
        suggestion: Option<&'static str>,
    },
}

/// `; did you mean `x`?`, or nothing.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

// Point names; `every_mapped_point_is_in_the_catalog` checks them against hookrail-core.
const SESSION_START: &str = "session_start";
const SESSION_END: &str = "session_end";
const USER_PROMPT_SUBMIT: &str = "user_prompt_submit";
const PRE_MODEL_CALL: &str = "pre_model_call";
const POST_MODEL_CALL: &str = "post_model_call";
const PRE_TOOL_USE: &str = "pre_tool_use";
const POST_TOOL_USE: &str = "post_tool_use";
const STEP_END: &str = "step_end";
const PRE_QUEUE_DRAIN: &str = "pre_queue_drain";
const POST_QUEUE_DRAIN: &str = "post_queue_drain";

/// Seed 003 (AI-centric development) and seed 004 (infer) names.
const SEEDS: &[(&str, &str)] = &[
    ("PromptSubmit", USER_PROMPT_SUBMIT),
    ("PreAbilityCall", PRE_TOOL_USE),
    ("PostAbilityCall", POST_TOOL_USE),
    ("SessionStop", SESSION_END),
    ("ModelOutput", POST_MODEL_CALL),
    ("pre", USER_PROMPT_SUBMIT),
    ("post", STEP_END),
    ("pre_session", SESSION_START),
    ("post_session", SESSION_END),
    ("pre_stream", PRE_MODEL_CALL),
    ("post_stream", POST_MODEL_CALL),
    ("pre_tool", PRE_TOOL_USE),
    ("post_tool", POST_TOOL_USE),
    ("pre_queue_drain", PRE_QUEUE_DRAIN),
    ("post_queue_drain", POST_QUEUE_DRAIN),
];

/// The point an event name of any supported dialect stands for.
///
/// ```
/// assert_eq!(hookrail_config::events::resolve("SessionStop"), Ok("session_end"));
/// assert_eq!(hookrail_config::events::resolve("stop"), Ok("stop"));
/// ```
pub fn resolve(name: &str) -> Result<&'static str, EventError> {
    if let Some(point) = point_names().find(|p| *p == name) {
        return Ok(point);
    }
    if let Some(event) = claude_event(name) {
        return Ok(event.point);
    }
    if let Some((_, point)) = SEEDS.iter().find(|(n, _)| *n == name) {
        return Ok(point);
    }
    Err(EventError::Unknown {
        name: name.to_owned(),
        suggestion: closest(name, accepted_names()),
    })
}

/// The points event names resolve to: the standard catalog, then the generic Claude-event
/// points ([`crate::generic`]).
pub fn point_names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().chain(crate::generic::NAMES).copied()
}

/// The point a Claude Code event name stands for; other dialects' names are rejected (with the
/// Claude Code name as suggestion), since Claude Code would not run them either.
///
/// ```
/// use hookrail_config::events::{resolve_claude, EventError};
///
/// assert_eq!(resolve_claude("Stop"), Ok("stop"));
/// assert_eq!(
///     resolve_claude("pre_tool_use"),
///     Err(EventError::Unknown { name: "pre_tool_use".into(), suggestion: Some("PreToolUse") })
/// );
/// ```
pub fn resolve_claude(name: &str) -> Result<&'static str, EventError> {
    if let Some(event) = claude_event(name) {
        return Ok(event.point);
    }
    let suggestion = match resolve(name) {
        Ok(point) => claude_event_name(point),
        Err(_) => closest(name, CLAUDE_EVENTS.iter().map(|e| e.name)),
    };
    Err(EventError::Unknown {
        name: name.to_owned(),
        suggestion,
    })
}

/// Claude Code's `hook_event_name` for a point, or `None` for points Claude Code lacks (the
/// command protocol then sends the point's own name).
///
/// `post_tool_use` maps to `PostToolUse`; a caller that knows the call failed may send
/// `PostToolUseFailure` instead.
///
/// ```
/// assert_eq!(hookrail_config::events::claude_event_name("session_end"), Some("SessionEnd"));
/// assert_eq!(hookrail_config::events::claude_event_name("pre_model_call"), None);
/// ```
pub fn claude_event_name(point: &str) -> Option<&'static str> {
    CLAUDE_EVENTS
        .iter()
        .find(|e| e.point == point)
        .map(|e| e.name)
}

/// A point's kind, from the linked catalog (`None` for a name that is not a point).
///
/// ```
/// use hookrail_core::KindId;
/// assert_eq!(hookrail_config::events::kind_of("pre_tool_use"), Some(KindId::Guard));
/// assert_eq!(hookrail_config::events::kind_of("session_end"), Some(KindId::Observe));
/// assert_eq!(hookrail_config::events::kind_of("PreToolUse"), None);
/// ```
pub fn kind_of(point: &str) -> Option<hookrail_core::KindId> {
    // Asked several times per answer (can this point block?): the linked points are collected
    // and sorted once, not every time. A name not among them is looked up again, so a point
    // registered later is still found.
    static LINKED: OnceLock<Vec<(&'static str, hookrail_core::KindId)>> = OnceLock::new();
    let linked = LINKED.get_or_init(|| {
        hookrail_core::registry::points()
            .into_iter()
            .map(|p| (p.name(), p.kind()))
            .collect()
    });
    if let Some(&(_, kind)) = linked.iter().find(|(name, _)| *name == point) {
        return Some(kind);
    }
    hookrail_core::registry::points()
        .into_iter()
        .find(|p| p.name() == point)
        .map(|p| p.kind())
}

/// Every accepted event name: the points, then Claude Code's names, then the seeds' names.
pub fn accepted_names() -> impl Iterator<Item = &'static str> {
    point_names()
        .chain(CLAUDE_EVENTS.iter().map(|e| e.name))
        .chain(SEEDS.iter().map(|(n, _)| *n))
}

/// The candidate closest to `name` by case-insensitive edit distance, if it is close enough
/// to be a likely typo.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // Long inputs are no typo of a short name, and distance is quadratic.
    if name.is_empty() || name.chars().count() > 64 {
        return None;
    }
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= limit && *d < c.chars().count())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_point_is_in_the_catalog() {
        for (_, point) in SEEDS {
            assert!(NAMES.contains(point), "{point}");
        }
        for event in CLAUDE_EVENTS {
            assert!(point_names().any(|p| p == event.point), "{}", event.name);
        }
    }

    #[test]
    fn every_catalog_point_resolves_to_itself() {
        for point in NAMES {
            assert_eq!(resolve(point), Ok(point));
        }
    }

    #[test]
    fn claude_names_resolve_to_their_points() {
        let cases = [
            ("PreToolUse", "pre_tool_use"),
            ("PostToolUse", "post_tool_use"),
            ("PostToolUseFailure", "post_tool_use"),
            ("UserPromptSubmit", "user_prompt_submit"),
            ("Stop", "stop"),
            ("SubagentStart", "subagent_start"),
            ("SubagentStop", "subagent_stop"),
            ("SessionStart", "session_start"),
            ("SessionEnd", "session_end"),
            ("PreCompact", "pre_compact"),
            ("Notification", "notification"),
            ("StopFailure", "error_occurred"),
        ];
        for (name, point) in cases {
            assert_eq!(resolve(name), Ok(point), "{name}");
            assert_eq!(resolve_claude(name), Ok(point), "{name}");
        }
    }

    #[test]
    fn seed_names_resolve_to_their_points() {
        assert_eq!(resolve("PromptSubmit"), Ok("user_prompt_submit"));
        assert_eq!(resolve("PreAbilityCall"), Ok("pre_tool_use"));
        assert_eq!(resolve("PostAbilityCall"), Ok("post_tool_use"));
        assert_eq!(resolve("SessionStop"), Ok("session_end"));
        assert_eq!(resolve("post_session"), Ok("session_end"));
        assert_eq!(resolve("pre_tool"), Ok("pre_tool_use"));
    }

    #[test]
    fn reverse_mapping_round_trips_through_claude_names() {
        for point in NAMES {
            if let Some(name) = claude_event_name(point) {
                assert_eq!(resolve_claude(name), Ok(point));
            }
        }
        assert_eq!(claude_event_name("post_tool_use"), Some("PostToolUse"));
        assert_eq!(claude_event_name("error_occurred"), Some("StopFailure"));
        assert_eq!(claude_event_name("step_end"), None);
    }

    #[test]
    fn every_claude_event_is_accepted_and_a_point_answers_with_its_first_event() {
        for event in CLAUDE_EVENTS {
            assert_eq!(
                resolve_claude(event.name),
                Ok(event.point),
                "{}",
                event.name
            );
            assert!(claude_event_name(event.point).is_some());
        }
        assert_eq!(
            resolve_claude("PermissionRequest"),
            Ok("permission_request")
        );
        assert_eq!(resolve("InstructionsLoaded"), Ok("instructions_loaded"));
        assert_eq!(resolve("config_change"), Ok("config_change"));
    }

    #[test]
    fn unknown_names_get_a_case_insensitive_suggestion() {
        let suggestion = |name| match resolve(name) {
            Err(EventError::Unknown { suggestion, .. }) => suggestion,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(suggestion("pretooluse"), Some("PreToolUse"));
        assert_eq!(suggestion("PRE_TOOL_USE"), Some("pre_tool_use"));
        assert_eq!(suggestion("UserPromptSubmitted"), Some("UserPromptSubmit"));
        assert_eq!(suggestion("sesion_end"), Some("session_end"));
        assert_eq!(suggestion("completely_unrelated_thing"), None);
        assert_eq!(suggestion(""), None);
    }

    #[test]
    fn claude_files_reject_other_dialects_with_the_claude_name() {
        assert_eq!(
            resolve_claude("PreAbilityCall"),
            Err(EventError::Unknown {
                name: "PreAbilityCall".into(),
                suggestion: Some("PreToolUse")
            })
        );
        assert_eq!(
            resolve_claude("PreToolUsed"),
            Err(EventError::Unknown {
                name: "PreToolUsed".into(),
                suggestion: Some("PreToolUse")
            })
        );
        // No Claude name for this point: no suggestion rather than a wrong one.
        assert_eq!(
            resolve_claude("step_end"),
            Err(EventError::Unknown {
                name: "step_end".into(),
                suggestion: None
            })
        );
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_substitutions() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("stop", "stop"), 0);
    }
}
