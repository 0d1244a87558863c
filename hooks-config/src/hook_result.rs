//! Seed 003's `HookResult`: the second answer format a command (or HTTP) hook may print,
//! next to Claude Code's.
//!
//! ```json
//! {"logs": ["matched prod/config.yaml"],
//!  "usage_recorded": true,
//!  "hook_signals": [{"kind": "ability_guard", "code": "ABILITY_DENIED", "severity": "error",
//!                    "payload": {"ability_id": "Write", "reason": "prod config", "require_human": false}}],
//!  "error": {"code": "E_CONFIG", "message": "cannot read the deploy map"}}
//! ```
//!
//! # Which format an answer is: by its shape
//!
//! An answer is a JSON object. It is a `HookResult` when it has at least one of the fields
//! `logs`, `usage_recorded`, `hook_signals`, `error`, and none of Claude Code's
//! (`continue`, `stopReason`, `suppressOutput`, `systemMessage`, `decision`, `reason`,
//! `hookSpecificOutput`); otherwise it is read as Claude Code's answer (whose unknown fields
//! are ignored, as before). An object with fields of both is a failure that names them
//! ([`ProtocolError::InvalidOutput`]): which one the hook meant cannot be known, and a guard
//! that cannot be read must not be read as "no opinion". The exit code means what it means for
//! Claude Code's answers: 0 to be read, 2 to block (the printed `HookResult`'s signals are
//! kept, the reason is stderr), anything else a failure.
//!
//! # What each field does
//!
//! | field | effect |
//! |---|---|
//! | `logs` | each line is logged (`tracing`, target `hookrail_config::runner`, with the hook's id and the point) |
//! | `usage_recorded` | logged with the hook's id (infra only) |
//! | `hook_signals` | at `user_prompt_submit` and `pre_tool_use`: added to the context's `hook_signals`, in the hooks' `(order, id)` order, each with `hook_id` set to the configured hook's id and `source_event` to the point's (whatever the script printed); `ability_guard` signals are enforced by `hookrail_core::signal::guard_decision`. Of a `blocking: false` hook: logged, not passed on. At every other point: ignored and logged once per hook as a misconfiguration (seed 003 §3.4) |
//! | `error` | a failure of the hook ([`ProtocolError::Reported`]), handled by its `on_error` like an exit code 1: a guard fails closed by default |
//!
//! A signal's `kind` must be one of the three standard kinds and `code` a string; an unknown
//! kind or a wrong type is a failure naming the field. Every string is capped at
//! [`OUTPUT_CAP`](crate::protocol::OUTPUT_CAP) characters.
//!
//! ```
//! use hookrail_config::protocol::{read_command, ProtocolError};
//!
//! let answer = read_command(0, r#"{"hook_signals": [{"kind": "routing_hint", "code": "ROUTE_SUGGESTION",
//!     "payload": {"suggested_abilities": [{"id": "refactor_code", "reason": "cleanup"}]}}], "logs": ["ok"]}"#, "").unwrap();
//! assert_eq!(answer.hook_signals[0].code, "ROUTE_SUGGESTION");
//! assert_eq!(answer.logs, ["ok"]);
//!
//! let mixed = read_command(0, r#"{"hook_signals": [], "decision": "block"}"#, "").unwrap_err();
//! assert!(mixed.to_string().contains("both"), "{mixed}");
//!
//! let reported = read_command(0, r#"{"error": {"code": "E_DB", "message": "no database"}}"#, "").unwrap_err();
//! assert_eq!(reported.to_string(), "reported error `E_DB`: no database");
//! ```

use hookrail_core::signal::{HookSignal, Severity, SignalEvent, SignalKind};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::protocol::{Answer, ProtocolError, cap};

/// The top-level fields of seed 003's `HookResult`.
pub const RESULT_FIELDS: &[&str] = &["logs", "usage_recorded", "hook_signals", "error"];

/// The top-level fields of Claude Code's answer.
pub const CLAUDE_FIELDS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
];

/// Which answer format an object is, by its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Claude Code's answer (also an object with neither format's fields).
    Claude,
    /// Seed 003's `HookResult`.
    HookResult,
}

/// The shape of `object`, per the rule in the [module docs](self).
///
/// # Errors
///
/// [`ProtocolError::InvalidOutput`] naming the fields, when it has fields of both formats.
pub fn shape(object: &Map<String, Value>) -> Result<Shape, ProtocolError> {
    let present = |fields: &[&str]| -> Vec<String> {
        fields
            .iter()
            .filter(|f| object.contains_key(**f))
            .map(|f| format!("`{f}`"))
            .collect()
    };
    let ours = present(RESULT_FIELDS);
    if ours.is_empty() {
        return Ok(Shape::Claude);
    }
    let theirs = present(CLAUDE_FIELDS);
    if theirs.is_empty() {
        return Ok(Shape::HookResult);
    }
    Err(ProtocolError::InvalidOutput {
        error: format!(
            "the answer has both seed 003 HookResult fields ({}) and Claude Code fields ({}); answer with one format or the other",
            ours.join(", "),
            theirs.join(", ")
        ),
    })
}

#[derive(Deserialize)]
struct ResultWire {
    #[serde(default)]
    logs: Vec<String>,
    #[serde(default)]
    usage_recorded: Option<bool>,
    #[serde(default)]
    hook_signals: Vec<SignalWire>,
    #[serde(default)]
    error: Option<ErrorWire>,
}

/// A signal as a script prints it: `source_event` and `hook_id` may be left out (the runner
/// sets both).
#[derive(Deserialize)]
struct SignalWire {
    #[serde(default)]
    source_event: Option<SignalEvent>,
    #[serde(default)]
    hook_id: Option<String>,
    kind: SignalKind,
    code: String,
    #[serde(default)]
    severity: Option<Severity>,
    #[serde(default)]
    payload: Value,
}

#[derive(Deserialize)]
struct ErrorWire {
    code: String,
    message: String,
}

/// Reads a `HookResult` object (its shape already checked) into an [`Answer`] that carries
/// only its signals, logs and `usage_recorded`.
pub(crate) fn read(value: Value) -> Result<Answer, ProtocolError> {
    let wire: ResultWire =
        serde_json::from_value(value).map_err(|e| ProtocolError::InvalidOutput {
            error: format!("seed 003 HookResult: {e}"),
        })?;
    let logs: Vec<String> = wire.logs.iter().map(|l| cap(l)).collect();
    if let Some(error) = wire.error {
        return Err(ProtocolError::Reported {
            code: cap(&error.code),
            message: cap(&error.message),
            logs,
        });
    }
    let hook_signals = wire
        .hook_signals
        .into_iter()
        .map(|s| HookSignal {
            // Placeholders until the runner stamps the configured id and the point's event.
            source_event: s.source_event.unwrap_or(SignalEvent::PromptSubmit),
            hook_id: s.hook_id.as_deref().map(cap).unwrap_or_default(),
            kind: s.kind,
            code: cap(&s.code),
            severity: s.severity,
            payload: s.payload,
        })
        .collect();
    Ok(Answer {
        hook_signals,
        logs,
        usage_recorded: wire.usage_recorded,
        ..Answer::default()
    })
}

#[cfg(test)]
mod tests {
    use crate::protocol::{Decision, read_command};
    use serde_json::json;

    use super::*;

    #[test]
    fn objects_are_told_apart_by_their_fields() {
        let obj = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(shape(&obj(json!({}))).unwrap(), Shape::Claude);
        assert_eq!(shape(&obj(json!({"future": 1}))).unwrap(), Shape::Claude);
        assert_eq!(
            shape(&obj(json!({"decision": "block"}))).unwrap(),
            Shape::Claude
        );
        for field in RESULT_FIELDS {
            assert_eq!(
                shape(&obj(json!({ *field: null }))).unwrap(),
                Shape::HookResult,
                "{field}"
            );
        }
        let err = shape(&obj(json!({"logs": [], "systemMessage": "x"}))).unwrap_err();
        assert!(
            err.to_string()
                .contains("(`logs`) and Claude Code fields (`systemMessage`)"),
            "{err}"
        );
    }

    #[test]
    fn a_hook_result_reads_into_signals_logs_and_usage_without_a_decision() {
        let a = read_command(
            0,
            r#"{"logs": ["a", "b"], "usage_recorded": true, "hook_signals": [
                {"source_event": "PreAbilityCall", "hook_id": "printed", "kind": "ability_guard",
                 "code": "ABILITY_DENIED", "severity": "error",
                 "payload": {"ability_id": "Write", "reason": "r", "require_human": true}}]}"#,
            "",
        )
        .unwrap();
        assert_eq!(a.decision, Decision::None);
        assert_eq!(a.logs, ["a", "b"]);
        assert_eq!(a.usage_recorded, Some(true));
        let s = &a.hook_signals[0];
        assert_eq!(
            (s.kind, s.code.as_str(), s.hook_id.as_str()),
            (SignalKind::AbilityGuard, "ABILITY_DENIED", "printed")
        );
        assert!(s.ability_guard().unwrap().unwrap().require_human);
    }

    #[test]
    fn bad_signals_and_errors_are_failures_naming_what_is_wrong() {
        for (text, needle) in [
            (
                r#"{"hook_signals": [{"kind": "vibes", "code": "X"}]}"#,
                "unknown variant `vibes`",
            ),
            (
                r#"{"hook_signals": [{"kind": "routing_hint"}]}"#,
                "missing field `code`",
            ),
            (r#"{"logs": "one line"}"#, "invalid type"),
            (r#"{"error": {"code": "E"}}"#, "missing field `message`"),
        ] {
            let err = read_command(0, text, "").unwrap_err();
            assert!(
                matches!(err, ProtocolError::InvalidOutput { .. }),
                "{text}: {err:?}"
            );
            assert!(err.to_string().contains("seed 003 HookResult"), "{err}");
            assert!(err.to_string().contains(needle), "{text}: {err}");
        }
        let err = read_command(
            0,
            r#"{"error": {"code": "E1", "message": "m"}, "logs": ["l"]}"#,
            "",
        )
        .unwrap_err();
        assert_eq!(
            err,
            ProtocolError::Reported {
                code: "E1".into(),
                message: "m".into(),
                logs: vec!["l".into()]
            }
        );
    }

    #[test]
    fn exit_2_with_a_hook_result_blocks_and_keeps_its_signals() {
        let a = read_command(
            2,
            r#"{"hook_signals": [{"kind": "ability_guard", "code": "ABILITY_DENIED", "payload": {}}]}"#,
            "prod is frozen\n",
        )
        .unwrap();
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("prod is frozen"))
        );
        assert_eq!(a.hook_signals.len(), 1);
    }
}
