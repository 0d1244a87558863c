//! Claude Code's hook events as data: for each of its 33 events, the point it fires, the
//! field its `matcher` tests, and how a block is said (or that it cannot be).
//!
//! One table ([`CLAUDE_EVENTS`]) drives the loaders (which events a settings file may name,
//! whether a matcher means anything there), the runner (what a matcher is tested against),
//! and the answer (how a deny is spelled for Claude Code, whether exit 2 blocks). The user
//! documentation of the same table is `docs/claude-events.md`; a test keeps the two in step.
//!
//! Events where a Rust agent has the same moment fire a typed point of
//! [`hookrail_core::points`]; the others fire a generic Claude-event point of
//! [`crate::generic`], whose context is the payload as JSON.
//!
//! ```
//! use hookrail_config::claude_events::{claude_event, Block, Target};
//!
//! let stop_failure = claude_event("StopFailure").unwrap();
//! assert_eq!(stop_failure.point, "error_occurred");
//! assert_eq!(stop_failure.target, Some(Target::Field("error")));
//! let permission = claude_event("PermissionRequest").unwrap();
//! assert_eq!(permission.block, Block::Behavior);
//! assert!(!permission.exit_2_blocks);
//! assert!(claude_event("PreToolUze").is_none());
//! ```

use serde_json::{Value, json};

/// What a Claude Code event's `matcher` is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The string value of this top-level payload field.
    Field(&'static str),
    /// The file name (last path component) of this top-level payload field (`FileChanged`
    /// matches `.envrc`, not `/repo/.envrc`).
    FileName(&'static str),
    /// The canonical model name of this top-level payload field ([`canonical_model`]:
    /// `PreModelSwitch` and `PostModelSwitch` match `claude-opus-5` for a `to_model` of
    /// `claude-opus-5[1m]`). Where the field has no canonical name (a gateway's own model id),
    /// Claude Code runs every hook of the event whatever its matcher
    /// ([`Target::unread_matches_all`]).
    Model(&'static str),
}

impl Target {
    /// The payload field it reads.
    pub fn field(self) -> &'static str {
        match self {
            Target::Field(f) | Target::FileName(f) | Target::Model(f) => f,
        }
    }

    /// Whether a matcher matches when the value cannot be read ([`Target::read`] is `None`):
    /// true for [`Target::Model`], where Claude Code runs every hook it cannot match, so that
    /// a guard is not skipped for a model it has no name for.
    ///
    /// ```
    /// use hookrail_config::claude_events::Target;
    /// assert!(Target::Model("to_model").unread_matches_all());
    /// assert!(!Target::Field("source").unread_matches_all());
    /// ```
    pub fn unread_matches_all(self) -> bool {
        matches!(self, Target::Model(_))
    }

    /// The matcher value of `payload`, or `None` when the field is absent or not a string (or,
    /// for [`Target::Model`], names no model [`canonical_model`] knows).
    ///
    /// ```
    /// use hookrail_config::claude_events::Target;
    /// let payload = serde_json::json!({"file_path": "/repo/.envrc", "to_model": "claude-opus-5[1m]"});
    /// assert_eq!(Target::FileName("file_path").read(&payload), Some(".envrc"));
    /// assert_eq!(Target::Model("to_model").read(&payload), Some("claude-opus-5"));
    /// assert_eq!(Target::Field("source").read(&payload), None);
    /// ```
    pub fn read(self, payload: &Value) -> Option<&str> {
        let value = payload.get(self.field())?.as_str()?;
        match self {
            Target::Field(_) => Some(value),
            Target::FileName(_) => Some(
                value
                    .rsplit(['/', '\\'])
                    .find(|part| !part.is_empty())
                    .unwrap_or(value),
            ),
            Target::Model(_) => canonical_model(value),
        }
    }
}

/// The canonical name of a Claude model id, which `PreModelSwitch` and `PostModelSwitch`
/// matchers are tested against: the id from its `claude-` on, without a context-window
/// suffix (`[1m]`), a Vertex AI version (`@20251101`), an Amazon Bedrock version (`-v1:0`)
/// or a release date (`-20251101`); a Bedrock region and vendor prefix (`us.anthropic.`) is
/// dropped with everything else before `claude-`. `None` when the id has no `claude-` (a
/// custom id only an LLM gateway knows): Claude Code then runs every hook of the event.
///
/// Claude Code's reference says an alias, a dated id and a provider's id "all match the one
/// canonical name they resolve to"; the payload's `to_model` is already a resolved id, so
/// these spellings are the ones left to undo.
///
/// ```
/// use hookrail_config::claude_events::canonical_model;
///
/// assert_eq!(canonical_model("claude-opus-5"), Some("claude-opus-5"));
/// assert_eq!(canonical_model("claude-opus-5[1m]"), Some("claude-opus-5"));
/// assert_eq!(canonical_model("claude-sonnet-4-5-20250929"), Some("claude-sonnet-4-5"));
/// assert_eq!(canonical_model("us.anthropic.claude-opus-4-6-20260101-v1:0"), Some("claude-opus-4-6"));
/// assert_eq!(canonical_model("claude-opus-4-5@20251101"), Some("claude-opus-4-5"));
/// assert_eq!(canonical_model("my-gateway-model"), None);
/// ```
pub fn canonical_model(id: &str) -> Option<&str> {
    let start = id.find("claude-")?;
    let mut name = &id[start..];
    if let Some(end) = name.find(['[', '@']) {
        name = &name[..end];
    }
    // Bedrock: `-v1:0` (and what follows it, `-v1:0:200k`).
    if let Some((head, version)) = name.rsplit_once("-v")
        && let Some((major, _)) = version.split_once(':')
        && is_number(major)
    {
        name = head;
    }
    // A release date: `-20250929`.
    if let Some((head, date)) = name.rsplit_once('-')
        && date.len() == 8
        && is_number(date)
    {
        name = head;
    }
    Some(name)
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// How Claude Code takes a block at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// It cannot be blocked: a deny is logged, not answered.
    No,
    /// `hookSpecificOutput.permissionDecision: "deny"` + `permissionDecisionReason`
    /// (`PreToolUse`, `PreModelSwitch`); `ask` and `allow` are answered too.
    PermissionDecision,
    /// Top-level `decision: "block"` + `reason`.
    Decision,
    /// `hookSpecificOutput.decision: {behavior: "deny", message}` (`PermissionRequest`);
    /// `allow` is answered too.
    Behavior,
    /// `hookSpecificOutput.action: "decline"` (`Elicitation`, `ElicitationResult`).
    Action,
}

/// One Claude Code event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaudeEventInfo {
    /// Claude Code's name (`hook_event_name`).
    pub name: &'static str,
    /// The point it fires.
    pub point: &'static str,
    /// What its `matcher` tests; `None`: it has no matcher (Claude Code ignores one).
    pub target: Option<Target>,
    /// How a block is answered.
    pub block: Block,
    /// Whether a hook's exit code 2 blocks (it does not at `PermissionRequest`, nor where
    /// nothing blocks).
    pub exit_2_blocks: bool,
    /// Whether a matcher is a list of exact names only when it is made of letters, digits, `_`
    /// and `|` (`FileChanged`, `StopFailure`): there a `-`, `,` or space makes it a regex, and
    /// only `|` separates names. Elsewhere `-`, `,` and spaces are name-list characters too.
    pub narrow_names: bool,
    /// Whether a command hook's plain stdout (exit 0, not JSON) is context for the model, as
    /// `additionalContext` would be (`SessionStart`, `UserPromptSubmit`,
    /// `UserPromptExpansion`, `PostModelSwitch`); elsewhere it is only shown in the transcript.
    pub plain_stdout_is_context: bool,
}

const fn event(
    name: &'static str,
    point: &'static str,
    target: Option<Target>,
    block: Block,
) -> ClaudeEventInfo {
    let exit_2_blocks = !matches!(block, Block::No | Block::Behavior);
    ClaudeEventInfo {
        name,
        point,
        target,
        block,
        exit_2_blocks,
        narrow_names: false,
        plain_stdout_is_context: false,
    }
}

/// `e`, whose matcher is a name list of letters, digits, `_` and `|` only
/// ([`ClaudeEventInfo::narrow_names`]).
const fn narrow(mut e: ClaudeEventInfo) -> ClaudeEventInfo {
    e.narrow_names = true;
    e
}

/// `e`, whose hooks' plain stdout is context ([`ClaudeEventInfo::plain_stdout_is_context`]).
const fn context(mut e: ClaudeEventInfo) -> ClaudeEventInfo {
    e.plain_stdout_is_context = true;
    e
}

const TOOL: Option<Target> = Some(Target::Field("tool_name"));
const MODEL: Option<Target> = Some(Target::Model("to_model"));
const fn field(name: &'static str) -> Option<Target> {
    Some(Target::Field(name))
}

/// Every Claude Code event, in the order of Claude Code's hooks reference. The first event
/// of a point is the name answered for it ([`crate::events::claude_event_name`]).
pub const CLAUDE_EVENTS: &[ClaudeEventInfo] = &[
    context(event(
        "SessionStart",
        "session_start",
        field("source"),
        Block::No,
    )),
    event("Setup", "setup", field("trigger"), Block::No),
    event(
        "InstructionsLoaded",
        "instructions_loaded",
        field("load_reason"),
        Block::No,
    ),
    context(event(
        "UserPromptSubmit",
        "user_prompt_submit",
        None,
        Block::Decision,
    )),
    context(event(
        "UserPromptExpansion",
        "user_prompt_expansion",
        field("command_name"),
        Block::Decision,
    )),
    event(
        "PreToolUse",
        "pre_tool_use",
        TOOL,
        Block::PermissionDecision,
    ),
    event(
        "PermissionRequest",
        "permission_request",
        TOOL,
        Block::Behavior,
    ),
    event("PermissionDenied", "permission_denied", TOOL, Block::No),
    event("PostToolUse", "post_tool_use", TOOL, Block::No),
    event("PostToolUseFailure", "post_tool_use", TOOL, Block::No),
    event("PostToolBatch", "post_tool_batch", None, Block::Decision),
    event(
        "Notification",
        "notification",
        field("notification_type"),
        Block::No,
    ),
    event(
        "SubagentStart",
        "subagent_start",
        field("agent_type"),
        Block::No,
    ),
    event(
        "SubagentStop",
        "subagent_stop",
        field("agent_type"),
        Block::Decision,
    ),
    event("TaskCreated", "task_created", None, Block::Decision),
    event("TaskCompleted", "task_completed", None, Block::Decision),
    event("Stop", "stop", None, Block::Decision),
    narrow(event(
        "StopFailure",
        "error_occurred",
        field("error"),
        Block::No,
    )),
    event("TeammateIdle", "teammate_idle", None, Block::Decision),
    event(
        "ConfigChange",
        "config_change",
        field("source"),
        Block::Decision,
    ),
    event("CwdChanged", "cwd_changed", None, Block::No),
    event(
        "DirectoryAdded",
        "directory_added",
        field("source"),
        Block::No,
    ),
    narrow(event(
        "FileChanged",
        "file_changed",
        Some(Target::FileName("file_path")),
        Block::No,
    )),
    event("WorktreeCreate", "worktree_create", None, Block::No),
    event("WorktreeRemove", "worktree_remove", None, Block::No),
    event(
        "PreCompact",
        "pre_compact",
        field("trigger"),
        Block::Decision,
    ),
    event("PostCompact", "post_compact", field("trigger"), Block::No),
    event(
        "Elicitation",
        "elicitation",
        field("mcp_server_name"),
        Block::Action,
    ),
    event(
        "ElicitationResult",
        "elicitation_result",
        field("mcp_server_name"),
        Block::Action,
    ),
    event("MessageDisplay", "message_display", None, Block::No),
    event(
        "PreModelSwitch",
        "pre_model_switch",
        MODEL,
        Block::PermissionDecision,
    ),
    context(event(
        "PostModelSwitch",
        "post_model_switch",
        MODEL,
        Block::No,
    )),
    event("SessionEnd", "session_end", field("reason"), Block::No),
];

/// The event named `name` (case-sensitive, as in Claude Code).
pub fn claude_event(name: &str) -> Option<&'static ClaudeEventInfo> {
    CLAUDE_EVENTS.iter().find(|e| e.name == name)
}

/// Whether a command hook's plain stdout is context at `point`: true where an event of the
/// point takes it ([`ClaudeEventInfo::plain_stdout_is_context`]).
///
/// ```
/// use hookrail_config::claude_events::plain_stdout_is_context;
///
/// assert!(plain_stdout_is_context("user_prompt_submit"));
/// assert!(!plain_stdout_is_context("pre_tool_use"));
/// ```
pub const fn plain_stdout_is_context(point: &str) -> bool {
    // `const`, so that a runner's hooks read it from the table once, at compile time.
    let mut i = 0;
    while i < CLAUDE_EVENTS.len() {
        let e = &CLAUDE_EVENTS[i];
        if e.plain_stdout_is_context && same(e.point, point) {
            return true;
        }
        i += 1;
    }
    false
}

/// `a == b`, in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a hook's exit code 2 decides nothing at `point`: true where every Claude Code
/// event of the point blocks only through its JSON (`permission_request`).
///
/// ```
/// assert!(hookrail_config::claude_events::exit_2_ignored("permission_request"));
/// assert!(!hookrail_config::claude_events::exit_2_ignored("pre_tool_use"));
/// assert!(!hookrail_config::claude_events::exit_2_ignored("pre_model_call"));
/// ```
pub fn exit_2_ignored(point: &str) -> bool {
    let mut events = CLAUDE_EVENTS.iter().filter(|e| e.point == point).peekable();
    events.peek().is_some() && events.all(|e| e.block == Block::Behavior)
}

/// The answer that blocks at `event` with `reason`, in the form the event takes; `None`
/// where the event cannot be blocked.
///
/// ```
/// use hookrail_config::claude_events::{block_answer, claude_event};
///
/// let deny = block_answer(claude_event("PermissionRequest").unwrap(), "no").unwrap();
/// assert_eq!(deny["hookSpecificOutput"]["decision"]["behavior"], "deny");
/// let block = block_answer(claude_event("ConfigChange").unwrap(), "no").unwrap();
/// assert_eq!(block["decision"], "block");
/// assert!(block_answer(claude_event("Notification").unwrap(), "no").is_none());
/// ```
pub fn block_answer(event: &ClaudeEventInfo, reason: &str) -> Option<Value> {
    let name = event.name;
    Some(match event.block {
        Block::No => return None,
        Block::Decision => json!({ "decision": "block", "reason": reason }),
        Block::PermissionDecision => json!({ "hookSpecificOutput": {
            "hookEventName": name, "permissionDecision": "deny", "permissionDecisionReason": reason } }),
        Block::Behavior => json!({ "hookSpecificOutput": {
            "hookEventName": name, "decision": { "behavior": "deny", "message": reason } } }),
        Block::Action => json!({ "hookSpecificOutput": {
            "hookEventName": name, "action": "decline" }, "reason": reason }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_33_events_each_once() {
        assert_eq!(CLAUDE_EVENTS.len(), 33);
        for (i, e) in CLAUDE_EVENTS.iter().enumerate() {
            assert!(
                CLAUDE_EVENTS[..i].iter().all(|o| o.name != e.name),
                "{} twice",
                e.name
            );
        }
    }

    #[test]
    fn exit_2_blocks_exactly_where_a_block_is_not_only_json() {
        for e in CLAUDE_EVENTS {
            let expected = !matches!(e.block, Block::No | Block::Behavior);
            assert_eq!(e.exit_2_blocks, expected, "{}", e.name);
        }
        assert!(!claude_event("PermissionRequest").unwrap().exit_2_blocks);
        assert!(claude_event("ConfigChange").unwrap().exit_2_blocks);
    }

    #[test]
    fn the_docs_table_has_every_event_with_its_point_and_matcher_field() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/claude-events.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
        for e in CLAUDE_EVENTS {
            let row = rows
                .iter()
                .find(|r| r.starts_with(&format!("| `{}` |", e.name)))
                .unwrap_or_else(|| panic!("{} has no row", e.name));
            let cells: Vec<&str> = row.split(" | ").collect();
            assert!(cells[1].starts_with(&format!("`{}` (", e.point)), "{row}");
            match e.target {
                Some(t) => assert!(cells[2].contains(&format!("`{}`", t.field())), "{row}"),
                None => assert!(cells[2].starts_with("none"), "{row}"),
            }
            let blocks = !cells[3].starts_with("nothing");
            assert_eq!(blocks, e.block != Block::No, "{row}");
        }
    }

    #[test]
    fn the_docs_name_the_events_whose_plain_stdout_is_context() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/claude-events.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let row = doc
            .lines()
            .find(|l| l.starts_with("| plain stdout (exit 0) |"))
            .expect("the plain stdout row");
        let events = row.split(" | ").nth(1).unwrap();
        let context = &events[..events
            .find("(context")
            .expect("the events it is context at")];
        for e in CLAUDE_EVENTS {
            let listed = context.contains(&format!("`{}`", e.name));
            assert_eq!(listed, e.plain_stdout_is_context, "{}: {row}", e.name);
            if e.plain_stdout_is_context {
                assert!(plain_stdout_is_context(e.point), "{}", e.point);
            }
        }
        assert!(!plain_stdout_is_context("pre_tool_use"));
    }

    #[test]
    fn model_targets_read_the_canonical_name_or_nothing() {
        let t = Target::Model("to_model");
        for (id, name) in [
            ("claude-opus-5", Some("claude-opus-5")),
            ("claude-opus-5[1m]", Some("claude-opus-5")),
            ("claude-haiku-4-5-20251001", Some("claude-haiku-4-5")),
            ("claude-3-5-sonnet-20241022", Some("claude-3-5-sonnet")),
            (
                "global.anthropic.claude-sonnet-5-v1:0",
                Some("claude-sonnet-5"),
            ),
            (
                "anthropic.claude-3-haiku-20240307-v1:0:200k",
                Some("claude-3-haiku"),
            ),
            ("claude-opus-4-5@20251101", Some("claude-opus-4-5")),
            ("claude-v2", Some("claude-v2")),
            (
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x1",
                None,
            ),
            ("gpt-5", None),
        ] {
            assert_eq!(t.read(&json!({ "to_model": id })), name, "{id}");
        }
        assert_eq!(t.read(&json!({ "to_model": null })), None);
        assert!(t.unread_matches_all());
    }

    #[test]
    fn only_stop_failure_and_file_changed_have_narrow_name_lists() {
        let narrow: Vec<&str> = CLAUDE_EVENTS
            .iter()
            .filter(|e| e.narrow_names)
            .map(|e| e.name)
            .collect();
        assert_eq!(narrow, ["StopFailure", "FileChanged"]);
    }

    #[test]
    fn file_name_targets_read_the_last_component() {
        let t = Target::FileName("file_path");
        for (path, name) in [
            ("/repo/.envrc", ".envrc"),
            ("C:\\repo\\package.json", "package.json"),
            ("plain", "plain"),
            ("/repo/dir/", "dir"),
        ] {
            assert_eq!(t.read(&json!({ "file_path": path })), Some(name));
        }
        assert_eq!(t.read(&json!({ "file_path": 3 })), None);
    }
}
