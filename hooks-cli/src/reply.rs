//! One event's answer in Claude Code's protocol, shared by `hooks claude` (exit code, stdout,
//! stderr) and `hooks serve` (an HTTP response body): the same payload gets the same decision
//! either way.
//!
//! A command hook blocks with exit code 2 and its reason on stderr; an HTTP hook can only
//! answer with a body, so [`Reply::http_body`] spells the same block as JSON: a `deny` of the
//! tool call at `PreToolUse`, `decision: "block"` elsewhere. A non-blocking error (exit 1) is
//! a `systemMessage`, which Claude Code shows the user without blocking.

use std::process::ExitCode;

use hookrail_config::claude_events::{block_answer, claude_event};
use hookrail_config::events;
use hookrail_config::file::LoadedConfig;
use hookrail_config::fire::{FireError, FireOptions, Fired};
use hookrail_core::runtime::Hooks;
use hookrail_forward::answer::CommandAnswer;
use serde_json::{Map, Value, json};

/// The answer to one event.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The point the event maps to, when it was read that far.
    pub point: Option<&'static str>,
    /// The event's own name (`hook_event_name`), when it was read that far.
    pub event: Option<String>,
    /// The JSON answer (an empty object when there is nothing to say).
    pub answer: Value,
    /// 0: the answer decides; 1: a non-blocking error; 2: blocked (the reason is in `said`).
    pub code: u8,
    /// What the command form writes on stderr, one line each.
    pub said: Vec<String>,
}

impl Reply {
    /// Could not decide: blocks where Claude Code can block, a non-blocking error elsewhere.
    /// Without a point (the event is unknown), it blocks. Where Claude Code does not honour
    /// exit 2 (`PermissionRequest`), the block is the event's JSON deny on exit 0.
    pub fn refuse(point: Option<&'static str>, event: Option<&str>, message: &str) -> Reply {
        let info = event.and_then(claude_event);
        if can_block(point)
            && let Some(info) = info.filter(|i| !i.exit_2_blocks)
            && let Some(answer) = block_answer(info, &format!("hooks: {message}"))
        {
            return Reply {
                point,
                event: event.map(str::to_owned),
                answer,
                code: 0,
                said: vec![message.to_owned()],
            };
        }
        Reply {
            point,
            event: event.map(str::to_owned),
            answer: Value::Object(Map::new()),
            code: if can_block(point) { 2 } else { 1 },
            said: vec![message.to_owned()],
        }
    }

    /// Whether this answer blocks the action (exit 2, or a deny / block in the JSON).
    pub fn blocks(&self) -> bool {
        // Exit 2 is a block in either form; otherwise the answer itself says so. (Looked up
        // key by key: `Value::pointer` builds a string per key, on every request.)
        let said = |path: &[&str], value: &str| {
            path.iter()
                .try_fold(&self.answer, |at, key| at.get(key))
                .and_then(Value::as_str)
                == Some(value)
        };
        self.code == 2
            || (self.code == 0
                && (said(&["decision"], "block")
                    || said(&["hookSpecificOutput", "permissionDecision"], "deny")
                    || said(&["hookSpecificOutput", "decision", "behavior"], "deny")
                    || said(&["hookSpecificOutput", "action"], "decline")))
    }

    /// The command form: stderr lines, the JSON answer on stdout when there is one, and the
    /// exit code. An answer that cannot be written (stdout closed, a broken pipe) decides
    /// nothing: it is refused like any other failure to decide, not left to `println!`'s
    /// panic (exit 101, which Claude Code takes as "proceed").
    pub fn print(self, who: &str) -> ExitCode {
        ExitCode::from(self.command_form(who).emit())
    }

    /// The command form, as text to write: what [`Reply::print`] writes, and what the daemon
    /// sends a forwarding client (`hooks claude`, `hooks-forward`) so that it prints exactly
    /// this. A `WorktreeCreate` answer with a path is the path alone, as Claude Code reads a
    /// command hook there; what the answer says for the user goes to stderr then.
    pub fn command_form(&self, who: &str) -> CommandAnswer {
        let mut stderr = String::new();
        for line in &self.said {
            stderr.push_str(&format!("{who}: {line}\n"));
        }
        let mut stdout = String::new();
        if self.code == 0 && self.answer.as_object().is_some_and(|o| !o.is_empty()) {
            stdout = match worktree_path(&self.answer) {
                Some(path) => {
                    if let Some(message) = self.answer.get("systemMessage").and_then(Value::as_str)
                    {
                        stderr.push_str(&format!("{who}: {message}\n"));
                    }
                    path.to_owned()
                }
                None => self.answer.to_string(),
            };
            stdout.push('\n');
        }
        CommandAnswer {
            stdout,
            stderr,
            code: self.code,
            may_block: can_block(self.point),
        }
    }

    /// The HTTP form: the same decision as a JSON body (Claude Code's `http` hooks read the
    /// body with the command hooks' output schema and have no exit code).
    pub fn http_body(&self) -> Value {
        let reason = || format!("hooks serve: {}", self.said.join("; "));
        let info = self.event.as_deref().and_then(claude_event);
        match self.code {
            0 => self.answer.clone(),
            2 => info
                .and_then(|info| block_answer(info, &reason()))
                .unwrap_or_else(|| json!({ "decision": "block", "reason": reason() })),
            _ => json!({ "systemMessage": reason() }),
        }
    }
}

/// The path of a `WorktreeCreate` answer.
fn worktree_path(answer: &Value) -> Option<&str> {
    let specific = answer.get("hookSpecificOutput")?;
    (specific.get("hookEventName")?.as_str()? == "WorktreeCreate")
        .then(|| specific.get("worktreePath")?.as_str())
        .flatten()
}

/// Whether Claude Code can block at `point` (an unknown point is taken to be one that can).
pub fn can_block(point: Option<&str>) -> bool {
    point.is_none_or(|p| events::kind_of(p) == Some(hookrail_core::KindId::Guard))
}

/// The point of a payload's `hook_event_name`, or the reply that refuses it.
///
/// # Errors
///
/// The [`Reply`] to give, blocking: the name is missing or not one of Claude Code's events.
pub fn point_of(payload: &Value) -> Result<(&'static str, String), Box<Reply>> {
    let Some(event) = payload.get("hook_event_name").and_then(Value::as_str) else {
        return Err(Box::new(Reply::refuse(
            None,
            None,
            "the hook payload has no `hook_event_name` string",
        )));
    };
    match events::resolve_claude(event) {
        Ok(point) => Ok((point, event.to_owned())),
        Err(e) => Err(Box::new(Reply::refuse(None, Some(event), &e.to_string()))),
    }
}

/// Fills in the `cwd` an older Claude Code leaves out: the working directory of this process,
/// which Claude Code starts every hook in (so it is the session's). `false` when the payload
/// already has one (or is not an object) and nothing changed; a `cwd` of the wrong type is
/// left for the point to refuse.
///
/// `transcript_path` and `permission_mode` need no default: every context takes them as
/// optional. Only `hooks claude` calls this: a daemon runs in a directory of its own, which
/// says nothing about the session (see `serve::routes`).
pub fn default_cwd(payload: &mut Value) -> bool {
    let Some(map) = payload.as_object_mut() else {
        return false;
    };
    if map.contains_key("cwd") {
        return false;
    }
    let Ok(cwd) = std::env::current_dir() else {
        return false;
    };
    map.insert("cwd".to_owned(), json!(cwd));
    true
}

/// What does not run at this event, said rather than left for the user to find out: at a
/// point that can block, a `builtin:` section that leaves out the default guards, and the
/// configured hooks of the event that are disabled or dormant.
pub fn event_notes(config: &LoadedConfig, point: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if !can_block(Some(point)) {
        return notes;
    }
    if let Some((off, location)) = crate::load::default_guards_off(config) {
        notes.push(format!(
            "builtin {} off: the `builtin:` section at {location} leaves them out (remove the section for the default guard set)",
            off.join(", ")
        ));
    }
    let inactive: Vec<String> = config
        .hooks
        .iter()
        .filter(|s| !s.enabled)
        .chain(&config.dormant)
        .filter(|s| s.point == point)
        .map(|s| format!("`{}` ({})", s.id, s.location))
        .collect();
    if !inactive.is_empty() {
        notes.push(format!(
            "configured hook(s) of this event that do not run (disabled, or their file is not switched on): {}",
            inactive.join(", ")
        ));
    }
    notes
}

/// Runs the event through `hooks` with `options`: the project root, and for the daemon the
/// environment the request's hooks inherit.
///
/// # Errors
///
/// [`FireError`] when the payload does not fit the point's context.
pub async fn fire(
    hooks: &Hooks,
    point: &'static str,
    payload: Value,
    options: FireOptions<'_>,
) -> Result<Fired, FireError> {
    hookrail_config::fire::fire_with(hooks, point, payload, options).await
}

/// The answer to a fired event; `notes` are said in `systemMessage` after what the hooks
/// said (and on stderr in the command form).
pub fn answer(
    fired: Result<Fired, FireError>,
    point: &'static str,
    event: &str,
    notes: Vec<String>,
    who: &str,
) -> Reply {
    let fired = match fired {
        Ok(f) => f,
        Err(e) => return Reply::refuse(Some(point), Some(event), &e.to_string()),
    };
    let (mut answer, code) = hookrail_config::fire::claude_answer(&fired);
    add_notes(&mut answer, &notes, who);
    Reply {
        point: Some(point),
        event: Some(event.to_owned()),
        answer,
        code: u8::try_from(code).unwrap_or(1),
        said: notes,
    }
}

/// Says `notes` in the answer's `systemMessage` (which Claude Code shows the user), after
/// what is already there.
fn add_notes(answer: &mut Value, notes: &[String], who: &str) {
    if notes.is_empty() {
        return;
    }
    let Some(out) = answer.as_object_mut() else {
        return;
    };
    let mut lines: Vec<String> = out
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .into_iter()
        .collect();
    lines.extend(notes.iter().map(|n| format!("{who}: {n}")));
    out.insert("systemMessage".into(), json!(lines.join("\n")));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(point: Option<&'static str>, event: Option<&str>) -> Reply {
        Reply::refuse(point, event, "cannot decide")
    }

    #[test]
    fn a_block_at_pre_tool_use_is_a_deny_of_the_call() {
        let body = blocked(Some("pre_tool_use"), Some("PreToolUse")).http_body();
        assert_eq!(
            body["hookSpecificOutput"]["permissionDecision"], "deny",
            "{body}"
        );
        assert_eq!(body["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert!(
            body["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .is_some_and(|r| r.contains("cannot decide"))
        );
    }

    #[test]
    fn a_block_elsewhere_or_of_an_unknown_event_is_decision_block() {
        for reply in [
            blocked(Some("user_prompt_submit"), Some("UserPromptSubmit")),
            blocked(None, None),
        ] {
            let body = reply.http_body();
            assert_eq!(body["decision"], "block", "{body}");
            assert!(reply.blocks());
        }
    }

    #[test]
    fn a_non_blocking_error_is_a_system_message() {
        let reply = blocked(Some("session_end"), Some("SessionEnd"));
        assert_eq!(reply.code, 1);
        let body = reply.http_body();
        assert!(body.get("decision").is_none(), "{body}");
        assert!(
            body["systemMessage"]
                .as_str()
                .is_some_and(|m| m.contains("cannot decide"))
        );
        assert!(!reply.blocks());
    }

    #[test]
    fn point_of_refuses_what_it_cannot_read() {
        let missing = point_of(&json!({})).unwrap_err();
        assert_eq!(missing.code, 2);
        let unknown = point_of(&json!({"hook_event_name": "PreToolUze"})).unwrap_err();
        assert_eq!(unknown.code, 2);
        let (point, event) = point_of(&json!({"hook_event_name": "PreToolUse"})).unwrap();
        assert_eq!((point, event.as_str()), ("pre_tool_use", "PreToolUse"));
    }
}
