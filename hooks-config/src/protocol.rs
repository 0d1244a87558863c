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
mod tests;
