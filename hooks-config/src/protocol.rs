//! Claude Code's hook protocol: the JSON a hook reads, and how its answer is read.
//!
//! The same rules serve command hooks (exit code, stdout, stderr) and HTTP hooks (status and
//! body). What an answer *does* depends on the point; that is applied by the runner
//! (`crate::runner`); this module only turns bytes into an [`Answer`] or a
//! [`ProtocolError`].
//!
//! # Input
//!
//! [`input`] serializes a point's context (its fields already carry Claude Code's names:
//! `session_id`, `cwd`, `transcript_path`, `permission_mode`, `tool_name`, `tool_input`,
//! `tool_response`, `prompt`, …) and adds `hook_event_name`: Claude Code's event name where
//! the point has one (`PostToolUseFailure` for a failed tool call), our point name otherwise.
//! That is what hooks get of an event from a Rust agent; of an event Claude Code sent, they get
//! its payload (see [`crate::runner`]).
//!
//! # Output of a command
//!
//! - **Exit 0.** Stdout that starts with `{` (after a UTF-8 byte-order mark and white space) is
//!   the JSON answer. Other stdout is plain text ([`Answer::plain_text`]): Claude Code adds it
//!   to the model's context at `UserPromptSubmit` and `SessionStart` only. Empty stdout is no
//!   opinion.
//! - **Exit 2.** A block, whatever the JSON says (even `permissionDecision: "allow"`); the
//!   reason is the JSON's `reason`/`permissionDecisionReason` if it printed one, else stderr.
//! - **Any other exit code** is a hook failure ([`ProtocolError::ExitCode`]), which the hook's
//!   failure policy turns into a deny or a logged no-op. Exit 127 (script not found) is such a
//!   failure: with the default policy a guard whose script is missing denies.
//!
//! # Output of an HTTP hook
//!
//! A 2xx body is read like a command's stdout on exit 0 (an empty body is no opinion); any
//! other status is a failure ([`ProtocolError::HttpStatus`]). HTTP hooks block through the
//! JSON only.
//!
//! # The JSON answer
//!
//! | field | meaning here |
//! |---|---|
//! | `continue: false` + `stopReason` | [`Answer::stop`]: at a guard point, a deny with that reason |
//! | `decision: "block"` + `reason` | [`Decision::Deny`] (legacy `"approve"`: [`Decision::Allow`]) |
//! | `hookSpecificOutput.permissionDecision` | `allow`, `deny`, `ask`; `defer` is no opinion |
//! | `hookSpecificOutput.permissionDecisionReason` | the reason of that decision |
//! | `hookSpecificOutput.decision.behavior` + `message` (`PermissionRequest`) | `allow` or `deny`, with the message as its reason |
//! | `hookSpecificOutput.updatedInput` | [`Answer::updated_input`]: replaces the tool input (an object) |
//! | `hookSpecificOutput.updatedToolOutput` | [`Answer::updated_output`]: replaces the tool response |
//! | `hookSpecificOutput.additionalContext` | [`Answer::additional_context`] |
//! | `systemMessage` | [`Answer::system_message`], for the user (logged and reported) |
//! | `suppressOutput`, `hookEventName`, unknown fields | accepted and ignored, as Claude Code does |
//!
//! A field of the wrong type or an unknown decision value is a failure
//! ([`ProtocolError::InvalidOutput`]) naming the field, never a silent "allow".
//!
//! # Seed 003's `HookResult`
//!
//! A JSON answer may instead be seed 003's `HookResult` (`logs`, `usage_recorded`,
//! `hook_signals`, `error`); which format an answer is, is decided by its fields
//! ([`crate::hook_result`] has the rule and what each field does).
//!
//! **One deliberate difference from Claude Code:** stdout that starts with `{` but is not
//! valid JSON is a failure here, where Claude Code reads it as plain text. A guard that meant
//! to deny and printed broken JSON must not be read as having no opinion; with the default
//! policy it denies.
//!
//! Every string is capped at [`OUTPUT_CAP`] characters, as Claude Code caps hook output.
//!
//! ```
//! use hookrail_config::protocol::{read_command, Decision};
//!
//! let json = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!     "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#;
//! let answer = read_command(0, json, "").unwrap();
//! assert_eq!(answer.decision, Decision::Deny);
//! assert_eq!(answer.reason.as_deref(), Some("no rm"));
//!
//! let blocked = read_command(2, "", "protected path\n").unwrap();
//! assert_eq!((blocked.decision, blocked.reason.as_deref()), (Decision::Deny, Some("protected path")));
//!
//! let missing = read_command(127, "", "sh: ./guard.sh: not found\n").unwrap_err();
//! assert_eq!(missing.to_string(), "exited with code 127: sh: ./guard.sh: not found");
//! ```

use serde::Deserialize;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::events;
use crate::forward::Forwarded;
use crate::hook_result::{self, Shape};
use hookrail_core::signal::HookSignal;

/// The most characters kept of any output string (stdout, stderr, a reason, a context).
pub const OUTPUT_CAP: usize = 10_000;

/// A hook's decision, ordered by restrictiveness: `None < Allow < Ask < Deny`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// No opinion (also `defer`).
    #[default]
    None,
    /// `permissionDecision: "allow"` or legacy `decision: "approve"`.
    Allow,
    /// `permissionDecision: "ask"`.
    Ask,
    /// `permissionDecision: "deny"`, `decision: "block"`, or exit code 2.
    Deny,
}

/// What one hook answered, before the point applies it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// The decision.
    pub decision: Decision,
    /// The reason given with the decision (for a deny by exit code 2: stderr).
    pub reason: Option<String>,
    /// `continue: false`: the hook wants the agent to stop, with `stopReason` (or a default).
    pub stop: Option<String>,
    /// `hookSpecificOutput.updatedInput`: the whole new tool input.
    pub updated_input: Option<Map<String, Value>>,
    /// `hookSpecificOutput.updatedToolOutput`: the new tool response.
    pub updated_output: Option<Value>,
    /// `hookSpecificOutput.additionalContext`, in the order the hooks ran.
    pub additional_context: Vec<String>,
    /// `systemMessage`: a warning for the user.
    pub system_message: Option<String>,
    /// Stdout that is not JSON (exit 0).
    pub plain_text: Option<String>,
    /// Seed 003 `hook_signals` of a [`HookResult`](crate::hook_result) answer, in order.
    pub hook_signals: Vec<HookSignal>,
    /// Seed 003 `logs` (logged by the runner with the hook's id).
    pub logs: Vec<String>,
    /// Seed 003 `usage_recorded` (logged by the runner).
    pub usage_recorded: Option<bool>,
    /// The fields only forwarded to Claude Code ([`crate::forward::FORWARDED`]).
    pub forwarded: Forwarded,
}

/// Why a hook's output is a failure rather than an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// An exit code other than 0 and 2.
    #[error("exited with code {code}{}", first_line_suffix(.stderr))]
    ExitCode {
        /// The code.
        code: i32,
        /// Its stderr (capped).
        stderr: String,
    },
    /// An HTTP status other than 2xx.
    #[error("answered HTTP {status}{}", first_line_suffix(.body))]
    HttpStatus {
        /// The status.
        status: u16,
        /// The body (capped).
        body: String,
    },
    /// Output that starts with `{` but is not valid JSON.
    #[error("printed invalid JSON: {error}")]
    InvalidJson {
        /// serde_json's message, with line and column.
        error: String,
    },
    /// Valid JSON that does not fit the protocol (a field of the wrong type, an unknown
    /// decision, fields of both answer formats).
    #[error("printed JSON that is not a valid hook answer: {error}")]
    InvalidOutput {
        /// What is wrong, naming the field.
        error: String,
    },
    /// A seed 003 `HookResult` with an `error`: the hook says it failed.
    #[error("reported error `{code}`: {message}")]
    Reported {
        /// The error's `code`.
        code: String,
        /// Its `message`.
        message: String,
        /// The result's `logs`, which the runner logs with the hook's id.
        logs: Vec<String>,
    },
}

fn first_line_suffix(text: &str) -> String {
    match text.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!(": {line}"),
        None => String::new(),
    }
}

/// The hook input for `point`: the context's JSON plus `hook_event_name`.
///
/// # Errors
///
/// The context's `Serialize` implementation failed, or it is not a JSON object.
///
/// ```
/// use hookrail_core::context::{Meta, PreToolUse};
/// use serde_json::json;
///
/// let ctx = PreToolUse::new(Meta::new("s1").with_cwd("/repo"), "Bash", json!({"command": "ls"}));
/// let input = hookrail_config::protocol::input("pre_tool_use", &ctx).unwrap();
/// assert_eq!(input["hook_event_name"], "PreToolUse");
/// assert_eq!(input["session_id"], "s1");
/// assert_eq!(input["cwd"], "/repo");
/// assert_eq!(input["tool_input"]["command"], "ls");
/// ```
pub fn input<C: Serialize + ?Sized>(point: &str, ctx: &C) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(ctx)?;
    let Value::Object(map) = &mut value else {
        return Err(serde::ser::Error::custom(format!(
            "the context of `{point}` is not a JSON object"
        )));
    };
    let failed = point == "post_tool_use" && map.get("error").is_some_and(|e| !e.is_null());
    let name = if failed {
        "PostToolUseFailure"
    } else {
        events::claude_event_name(point).unwrap_or(point)
    };
    map.insert("hook_event_name".to_owned(), Value::String(name.to_owned()));
    Ok(value)
}

/// Reads a command's ending: its exit code, stdout and stderr.
///
/// # Errors
///
/// [`ProtocolError`] when the hook failed: an exit code other than 0 and 2, or output that
/// is not a valid answer.
pub fn read_command(code: i32, stdout: &str, stderr: &str) -> Result<Answer, ProtocolError> {
    match code {
        0 => read_body(stdout),
        2 => {
            // Exit 2 blocks whatever the JSON says; only its reason is taken, and broken JSON
            // still blocks (Claude Code since 2.1.214).
            let printed = read_body(stdout).unwrap_or_default();
            let reason = printed
                .reason
                .or(printed.stop)
                .or_else(|| non_empty(stderr.trim()))
                .unwrap_or_else(|| "blocked by hook (exit code 2)".to_owned());
            Ok(Answer {
                decision: Decision::Deny,
                reason: Some(cap(&reason)),
                additional_context: printed.additional_context,
                system_message: printed.system_message,
                hook_signals: printed.hook_signals,
                logs: printed.logs,
                ..Answer::default()
            })
        }
        code => Err(ProtocolError::ExitCode {
            code,
            stderr: cap(stderr),
        }),
    }
}

/// Reads an HTTP hook's response.
///
/// # Errors
///
/// [`ProtocolError::HttpStatus`] for a status other than 2xx; otherwise as [`read_command`]
/// on exit 0.
pub fn read_http(status: u16, body: &str) -> Result<Answer, ProtocolError> {
    if (200..300).contains(&status) {
        read_body(body)
    } else {
        Err(ProtocolError::HttpStatus {
            status,
            body: cap(body),
        })
    }
}

/// Stdout of exit 0, or a 2xx body.
fn read_body(text: &str) -> Result<Answer, ProtocolError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Ok(Answer::default());
    }
    if !trimmed.starts_with('{') {
        return Ok(Answer {
            plain_text: Some(cap(trimmed)),
            ..Answer::default()
        });
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| ProtocolError::InvalidJson {
        error: e.to_string(),
    })?;
    if let Value::Object(object) = &value
        && hook_result::shape(object)? == Shape::HookResult
    {
        return hook_result::read(value);
    }
    let forwarded =
        Forwarded::read(&value).map_err(|error| ProtocolError::InvalidOutput { error })?;
    let wire: Wire = serde_json::from_value(value).map_err(|e| ProtocolError::InvalidOutput {
        error: e.to_string(),
    })?;
    Ok(Answer {
        forwarded,
        ..wire.into_answer()
    })
}

/// The answer's JSON. Unknown fields are ignored (Claude Code adds fields over time).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    system_message: Option<String>,
    decision: Option<LegacyDecision>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum LegacyDecision {
    Approve,
    Block,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<PermissionDecision>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Map<String, Value>>,
    updated_tool_output: Option<Value>,
    additional_context: Option<String>,
    /// `PermissionRequest`'s answer.
    decision: Option<Behavior>,
}

/// `PermissionRequest`'s `hookSpecificOutput.decision`.
#[derive(Deserialize)]
struct Behavior {
    behavior: PermissionBehavior,
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum PermissionBehavior {
    Allow,
    Deny,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum PermissionDecision {
    Allow,
    Deny,
    Ask,
    Defer,
}

impl Wire {
    fn into_answer(self) -> Answer {
        let specific = self.hook_specific_output;
        let (permission, permission_reason, updated_input, updated_output, context) = match specific
        {
            Some(s) => {
                // `PermissionRequest` says it as `decision.behavior` (+ `message`).
                let (permission, reason) = match s.decision {
                    Some(b) => (
                        Some(match b.behavior {
                            PermissionBehavior::Allow => PermissionDecision::Allow,
                            PermissionBehavior::Deny => PermissionDecision::Deny,
                        }),
                        b.message,
                    ),
                    None => (s.permission_decision, s.permission_decision_reason),
                };
                (
                    permission,
                    reason,
                    s.updated_input,
                    s.updated_tool_output,
                    s.additional_context,
                )
            }
            None => (None, None, None, None, None),
        };
        let legacy = match self.decision {
            Some(LegacyDecision::Block) => Decision::Deny,
            Some(LegacyDecision::Approve) => Decision::Allow,
            None => Decision::None,
        };
        let permission = match permission {
            Some(PermissionDecision::Allow) => Decision::Allow,
            Some(PermissionDecision::Deny) => Decision::Deny,
            Some(PermissionDecision::Ask) => Decision::Ask,
            Some(PermissionDecision::Defer) | None => Decision::None,
        };
        // Both forms may be present; the more restrictive one is the hook's decision, and the
        // reason is the one given with it.
        let (decision, reason) = if permission >= legacy {
            (permission, permission_reason.or(self.reason))
        } else {
            (legacy, self.reason.or(permission_reason))
        };
        let stop = (self.keep_going == Some(false)).then(|| {
            self.stop_reason
                .unwrap_or_else(|| "a hook asked the agent to stop (continue: false)".to_owned())
        });
        Answer {
            decision,
            reason: reason.as_deref().map(cap),
            stop: stop.as_deref().map(cap),
            updated_input,
            updated_output,
            additional_context: context.as_deref().map(cap).into_iter().collect(),
            system_message: self.system_message.as_deref().map(cap),
            ..Answer::default()
        }
    }
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// `s`, cut to at most [`OUTPUT_CAP`] characters, the last of them `…` when it was cut.
pub fn cap(s: &str) -> String {
    if s.chars().nth(OUTPUT_CAP).is_none() {
        return s.to_owned();
    }
    let end = s
        .char_indices()
        .nth(OUTPUT_CAP - 1)
        .map_or(s.len(), |(i, _)| i);
    let mut kept = s[..end].to_owned();
    kept.push('…');
    kept
}

/// `value` with every string in it [`cap`]ped.
pub(crate) fn cap_strings(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(cap(&s)),
        Value::Array(items) => Value::Array(items.into_iter().map(cap_strings).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, cap_strings(v))).collect())
        }
        other => other,
    }
}

/// Several hooks' answers merged as Claude Code merges parallel hooks: the most restrictive
/// decision wins (its reason with it; the first such hook's on a tie), every context is
/// kept in order, the first `continue: false` stops, system messages are joined.
///
/// Rewrites (`updatedInput`, `updatedToolOutput`) do not merge: the first in the given order
/// is kept, and [`Merged::dropped_rewrites`] counts the others so the runner can report them
/// (Claude Code lets the last hook to finish win, at random). `sequential: true` chains them
/// instead.
pub fn merge(answers: impl IntoIterator<Item = Answer>) -> Merged {
    let mut merged = Merged::default();
    let out = &mut merged.answer;
    let (mut decision_from, mut stop_from) = (None, None);
    for (i, answer) in answers.into_iter().enumerate() {
        if answer.decision > out.decision {
            out.decision = answer.decision;
            out.reason = answer.reason;
            decision_from = Some(i);
        }
        if out.stop.is_none() && answer.stop.is_some() {
            out.stop = answer.stop;
            stop_from = Some(i);
        }
        match (&out.updated_input, answer.updated_input) {
            (None, new) => out.updated_input = new,
            (Some(kept), Some(new)) if *kept != new => merged.dropped_rewrites += 1,
            _ => {}
        }
        match (&out.updated_output, answer.updated_output) {
            (None, new) => out.updated_output = new,
            (Some(kept), Some(new)) if *kept != new => merged.dropped_rewrites += 1,
            _ => {}
        }
        out.additional_context.extend(answer.additional_context);
        out.system_message = join(out.system_message.take(), answer.system_message);
        out.plain_text = join(out.plain_text.take(), answer.plain_text);
        // Signals keep the answers' order: the hooks' `(order, id)` order.
        out.hook_signals.extend(answer.hook_signals);
        out.logs.extend(answer.logs);
        out.forwarded.merge(answer.forwarded);
    }
    // `continue: false` outranks any decision where the answer is applied, so its hook decides.
    merged.decided_by = stop_from.or(decision_from);
    merged
}

/// The result of [`merge`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// The merged answer.
    pub answer: Answer,
    /// How many differing rewrites were not applied.
    pub dropped_rewrites: usize,
    /// The position, among the merged answers, of the one whose `continue: false` or
    /// decision was kept; `None` when no answer decided anything.
    pub decided_by: Option<usize>,
}

fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(stdout: &str) -> Answer {
        read_command(0, stdout, "").unwrap()
    }

    #[test]
    fn exit_0_with_empty_stdout_has_no_opinion() {
        assert_eq!(ok(""), Answer::default());
        assert_eq!(ok("  \n\t"), Answer::default());
    }

    #[test]
    fn exit_0_plain_stdout_is_plain_text_not_a_decision() {
        let a = ok("Remember: tests live in tests/\n");
        assert_eq!(
            a.plain_text.as_deref(),
            Some("Remember: tests live in tests/")
        );
        assert_eq!(a.decision, Decision::None);
    }

    #[test]
    fn json_with_a_byte_order_mark_or_leading_white_space_is_json() {
        let body = r#"{"decision": "block", "reason": "r"}"#;
        for text in [
            format!("\u{feff}{body}"),
            format!("\n  \t{body}\n"),
            format!("\u{feff}\n {body}"),
        ] {
            let a = ok(&text);
            assert_eq!(
                (a.decision, a.reason.as_deref()),
                (Decision::Deny, Some("r")),
                "{text:?}"
            );
        }
    }

    #[test]
    fn permission_decisions_map_to_decisions() {
        for (value, expected) in [
            ("allow", Decision::Allow),
            ("deny", Decision::Deny),
            ("ask", Decision::Ask),
            ("defer", Decision::None),
        ] {
            let text = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": value,
                "permissionDecisionReason": "why"}}).to_string();
            let a = ok(&text);
            assert_eq!(a.decision, expected, "{value}");
            assert_eq!(a.reason.as_deref(), Some("why"));
        }
    }

    #[test]
    fn permission_request_behaviors_are_decisions_with_their_message() {
        let a = ok(
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "not here"}}}"#,
        );
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("not here"))
        );
        let allow = ok(r#"{"hookSpecificOutput": {"decision": {"behavior": "allow"}}}"#);
        assert_eq!(allow.decision, Decision::Allow);
        let err = read_command(
            0,
            r#"{"hookSpecificOutput": {"decision": {"behavior": "maybe"}}}"#,
            "",
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown variant `maybe`"), "{err}");
    }

    #[test]
    fn legacy_approve_and_block_are_allow_and_deny() {
        assert_eq!(ok(r#"{"decision": "approve"}"#).decision, Decision::Allow);
        let a = ok(r#"{"decision": "block", "reason": "not on main"}"#);
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("not on main"))
        );
    }

    #[test]
    fn the_more_restrictive_of_legacy_and_permission_decision_wins() {
        let a = ok(r#"{"decision": "block", "reason": "legacy",
            "hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "new"}}"#);
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("legacy"))
        );
    }

    #[test]
    fn updated_input_context_stop_and_system_message_are_read() {
        let a = ok(
            r#"{"continue": false, "stopReason": "done for today", "systemMessage": "heads up",
            "hookSpecificOutput": {"updatedInput": {"command": "ls"}, "additionalContext": "ctx",
            "updatedToolOutput": {"stdout": "[redacted]"}}}"#,
        );
        assert_eq!(a.stop.as_deref(), Some("done for today"));
        assert_eq!(a.system_message.as_deref(), Some("heads up"));
        assert_eq!(a.updated_input.unwrap()["command"], "ls");
        assert_eq!(a.updated_output.unwrap()["stdout"], "[redacted]");
        assert_eq!(a.additional_context, ["ctx"]);
        assert_eq!(
            ok(r#"{"continue": false}"#).stop.as_deref(),
            Some("a hook asked the agent to stop (continue: false)")
        );
        assert_eq!(ok(r#"{"continue": true}"#).stop, None);
    }

    #[test]
    fn unknown_fields_are_ignored_and_forwarded_ones_kept_apart() {
        let a = ok(
            r#"{"suppressOutput": true, "terminalSequence": "\u0007", "futureField": [1],
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "sessionTitle": "x"}}"#,
        );
        assert_eq!(a.forwarded.get(&["suppressOutput"]), Some(&json!(true)));
        assert_eq!(
            a.forwarded.get(&["hookSpecificOutput", "sessionTitle"]),
            Some(&json!("x"))
        );
        assert_eq!(
            Answer {
                forwarded: Forwarded::default(),
                ..a
            },
            Answer::default()
        );
    }

    #[test]
    fn wrong_types_and_unknown_decisions_are_failures_naming_the_problem() {
        for (text, needle) in [
            (r#"{"decision": "maybe"}"#, "unknown variant `maybe`"),
            (r#"{"continue": "no"}"#, "invalid type"),
            (
                r#"{"hookSpecificOutput": {"permissionDecision": "yes"}}"#,
                "unknown variant `yes`",
            ),
            (
                r#"{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}"#,
                "invalid type",
            ),
            (
                r#"{"hookSpecificOutput": {"additionalContext": 5}}"#,
                "invalid type",
            ),
        ] {
            let err = read_command(0, text, "").unwrap_err();
            assert!(
                matches!(err, ProtocolError::InvalidOutput { .. }),
                "{text}: {err:?}"
            );
            assert!(err.to_string().contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn broken_json_is_a_failure_not_plain_text() {
        let err = read_command(0, r#"{"decision": "block""#, "").unwrap_err();
        assert!(matches!(err, ProtocolError::InvalidJson { .. }), "{err:?}");
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn exit_2_blocks_with_stderr_even_when_stdout_allows() {
        let a = read_command(
            2,
            r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#,
            "no writes to prod\n",
        )
        .unwrap();
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("no writes to prod"))
        );
    }

    #[test]
    fn exit_2_prefers_the_json_reason_and_still_blocks_on_broken_json() {
        let a = read_command(
            2,
            r#"{"decision": "block", "reason": "json reason"}"#,
            "stderr",
        )
        .unwrap();
        assert_eq!(a.reason.as_deref(), Some("json reason"));
        let b = read_command(2, "{oops", "stderr reason").unwrap();
        assert_eq!(
            (b.decision, b.reason.as_deref()),
            (Decision::Deny, Some("stderr reason"))
        );
        let c = read_command(2, "", "").unwrap();
        assert_eq!(c.reason.as_deref(), Some("blocked by hook (exit code 2)"));
    }

    #[test]
    fn other_exit_codes_are_failures_with_the_first_stderr_line() {
        let err = read_command(
            1,
            r#"{"decision": "approve"}"#,
            "\n  Traceback (most recent call last):\n  x\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "exited with code 1: Traceback (most recent call last):"
        );
        let err = read_command(127, "", "").unwrap_err();
        assert_eq!(err.to_string(), "exited with code 127");
    }

    #[test]
    fn http_2xx_bodies_read_like_stdout_and_other_statuses_fail() {
        assert_eq!(read_http(204, "").unwrap(), Answer::default());
        assert_eq!(
            read_http(200, r#"{"decision": "block", "reason": "r"}"#)
                .unwrap()
                .decision,
            Decision::Deny
        );
        let err = read_http(503, "upstream down\nmore").unwrap_err();
        assert_eq!(err.to_string(), "answered HTTP 503: upstream down");
    }

    #[test]
    fn strings_are_capped_at_10_000_characters() {
        let long = "é".repeat(OUTPUT_CAP + 50);
        let a = ok(&long);
        let text = a.plain_text.unwrap();
        assert_eq!(text.chars().count(), OUTPUT_CAP);
        assert!(text.ends_with('…'));
        let reason = read_command(2, "", &long).unwrap().reason.unwrap();
        assert_eq!(reason.chars().count(), OUTPUT_CAP);
        let exact = "x".repeat(OUTPUT_CAP);
        assert_eq!(
            cap(&exact),
            exact,
            "a string of exactly the cap is kept whole"
        );
    }

    #[test]
    fn merge_keeps_the_most_restrictive_decision_and_every_context() {
        let answers = [
            Answer {
                decision: Decision::Allow,
                reason: Some("fine".into()),
                additional_context: vec!["a".into()],
                ..Answer::default()
            },
            Answer {
                decision: Decision::Deny,
                reason: Some("first deny".into()),
                additional_context: vec!["b".into()],
                ..Answer::default()
            },
            Answer {
                decision: Decision::Ask,
                reason: Some("ask".into()),
                ..Answer::default()
            },
            Answer {
                decision: Decision::Deny,
                reason: Some("second deny".into()),
                ..Answer::default()
            },
        ];
        let m = merge(answers);
        assert_eq!(
            (m.answer.decision, m.answer.reason.as_deref()),
            (Decision::Deny, Some("first deny"))
        );
        assert_eq!(m.answer.additional_context, ["a", "b"]);
    }

    #[test]
    fn merge_keeps_the_first_rewrite_and_counts_the_differing_ones() {
        let rewrite = |cmd: &str| Answer {
            updated_input: Some(json!({"command": cmd}).as_object().cloned().unwrap()),
            ..Answer::default()
        };
        let m = merge([
            rewrite("ls"),
            rewrite("ls"),
            rewrite("ls -la"),
            Answer::default(),
        ]);
        assert_eq!(m.answer.updated_input.unwrap()["command"], "ls");
        assert_eq!(m.dropped_rewrites, 1);
    }

    #[test]
    fn input_names_the_event_as_claude_code_does() {
        use hookrail_core::context::{Meta, PostToolUse, PreModelCall};
        let mut post = PostToolUse::new(Meta::new("s"), "Bash", json!({}), json!({}), 3);
        assert_eq!(
            input("post_tool_use", &post).unwrap()["hook_event_name"],
            "PostToolUse"
        );
        post.error = Some("exit 1".into());
        assert_eq!(
            input("post_tool_use", &post).unwrap()["hook_event_name"],
            "PostToolUseFailure"
        );
        let pre = PreModelCall::new(Meta::new("s"), "m", Vec::new());
        assert_eq!(
            input("pre_model_call", &pre).unwrap()["hook_event_name"],
            "pre_model_call"
        );
    }
}
