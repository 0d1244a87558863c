//! Deciding whether a [`Matcher`] matches an event.
//!
//! Rules:
//! - Claude Code's `matcher` ([`compile_tool_matcher`]): `""` and `"*"` match everything. A
//!   string of only `A-Z a-z 0-9 _ - , |` and spaces is a list of exact names separated by `|`
//!   or `,` (`Edit|Write`, `Edit, Write`), as in current Claude Code. Anything else is a regex
//!   searched anywhere in the name (`Edit.*` also matches `NotebookEdit`; `mcp__.*__write`);
//!   JavaScript-only regex syntax (look-around, back-references) is rejected. At
//!   `StopFailure` and `FileChanged` only `A-Z a-z 0-9 _ |` make a name list
//!   ([`compile_claude_matcher`]).
//! - `PreModelSwitch` and `PostModelSwitch` match the canonical name of `to_model`
//!   ([`canonical_model`](crate::claude_events::canonical_model)); where it has none, every
//!   hook of the event runs, as in Claude Code.
//! - Seed 003's `ability_scope` and `only_if_changed_paths` are globs ([`globset`]): `*`
//!   matches within one path segment, `**` across segments; invalid globs are rejected.
//! - What the matcher and `ability_scope` test depends on the point ([`target_of`]): the tool
//!   name for tool points, the source for `session_start`, the trigger for `pre_compact`, …
//!   Points without such a value cannot have them.
//! - At match time ([`matches()`]) every part that is set must hold; a part whose fact the event
//!   lacks (no duration for `min_duration_ms`, no target for a name matcher) does not hold.
//!
//! ```
//! use hookrail_config::matcher::{compile_tool_matcher, matches, EventFacts};
//! use hookrail_config::spec::Matcher;
//!
//! let m = Matcher { tool: Some(compile_tool_matcher("Edit|Write").unwrap()), ..Matcher::default() };
//! assert!(matches(&m, &EventFacts { target: Some("Write"), ..EventFacts::default() }));
//! assert!(!matches(&m, &EventFacts { target: Some("Bash"), ..EventFacts::default() }));
//! ```

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::claude_events::{CLAUDE_EVENTS, ClaudeEventInfo, Target, claude_event};
use crate::permission_rule::{CallPlace, PermissionRule};
use crate::spec::{Matcher, ToolMatcher};
use serde_json::Value;

/// Bounds on a matcher regex, so a config cannot make the loader build a huge automaton.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
const MAX_PATTERN_LEN: usize = 4096;

/// Why a matcher or glob was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatcherError {
    /// The matcher is a regex that does not compile.
    #[error("invalid regex in matcher `{pattern}`: {reason}")]
    Regex {
        /// The matcher as written.
        pattern: String,
        /// The regex engine's message.
        reason: String,
    },
    /// The matcher is a name list without names (`|`, `,`).
    #[error("matcher `{pattern}` names no tool")]
    NoNames {
        /// The matcher as written.
        pattern: String,
    },
    /// A glob does not compile.
    #[error("invalid glob `{glob}`: {reason}")]
    Glob {
        /// The glob as written.
        glob: String,
        /// The glob compiler's message.
        reason: String,
    },
}

/// Compiles a Claude Code `matcher` string.
///
/// ```
/// use hookrail_config::matcher::compile_tool_matcher;
/// use hookrail_config::spec::ToolMatcher;
///
/// assert_eq!(compile_tool_matcher("*").unwrap(), ToolMatcher::All);
/// assert_eq!(compile_tool_matcher("Bash").unwrap(), ToolMatcher::Names(vec!["Bash".into()]));
/// assert!(matches!(compile_tool_matcher("mcp__.*").unwrap(), ToolMatcher::Regex(_)));
/// assert!(compile_tool_matcher("Bash(").is_err());
/// ```
pub fn compile_tool_matcher(pattern: &str) -> Result<ToolMatcher, MatcherError> {
    compile_names(pattern, false)
}

/// Compiles the `matcher` of a Claude Code settings group declared under `event`, as Claude
/// Code reads it there: at `StopFailure` and `FileChanged`
/// ([`narrow_names`](crate::claude_events::ClaudeEventInfo::narrow_names)) only letters,
/// digits, `_` and `|` make a name list (`rate-limit` is a regex, `a, b` too); at
/// `PreModelSwitch` and `PostModelSwitch` a context-window suffix (`[1m]`) is dropped, as the
/// model name it is tested against has none. Elsewhere as [`compile_tool_matcher`].
///
/// ```
/// use hookrail_config::claude_events::claude_event;
/// use hookrail_config::matcher::compile_claude_matcher;
/// use hookrail_config::spec::ToolMatcher;
///
/// let failure = claude_event("StopFailure").unwrap();
/// assert!(matches!(compile_claude_matcher(failure, "rate_limit|unknown").unwrap(), ToolMatcher::Names(_)));
/// assert!(matches!(compile_claude_matcher(failure, "rate_limit, unknown").unwrap(), ToolMatcher::Regex(_)));
/// let switch = claude_event("PreModelSwitch").unwrap();
/// assert_eq!(
///     compile_claude_matcher(switch, "claude-opus-5[1m]").unwrap(),
///     ToolMatcher::Names(vec!["claude-opus-5".into()])
/// );
/// ```
pub fn compile_claude_matcher(
    event: &ClaudeEventInfo,
    pattern: &str,
) -> Result<ToolMatcher, MatcherError> {
    if matches!(event.target, Some(Target::Model(_))) {
        let stripped = strip_context_suffixes(pattern);
        if !stripped.is_empty() {
            return compile_names(&stripped, event.narrow_names);
        }
    }
    compile_names(pattern, event.narrow_names)
}

/// `pattern` without its `[<digits>m]` context-window suffixes (`claude-opus-5[1m]`).
fn strip_context_suffixes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find('[') {
        let tail = &rest[open + 1..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with("m]") {
            out.push_str(&rest[..open]);
            rest = &tail[digits + 2..];
        } else {
            out.push_str(&rest[..=open]);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn compile_names(pattern: &str, narrow: bool) -> Result<ToolMatcher, MatcherError> {
    if pattern.is_empty() || pattern == "*" {
        return Ok(ToolMatcher::All);
    }
    let is_name_list = pattern.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(c, '_' | '|')
            || (!narrow && matches!(c, '-' | ',' | ' '))
    });
    if is_name_list {
        let separators: &[char] = if narrow { &['|'] } else { &['|', ','] };
        let names: Vec<String> = pattern
            .split(separators)
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            return Err(MatcherError::NoNames {
                pattern: pattern.to_owned(),
            });
        }
        return Ok(ToolMatcher::Names(names));
    }
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(MatcherError::Regex {
            pattern: abbreviate(pattern),
            reason: format!("longer than {MAX_PATTERN_LEN} bytes"),
        });
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(ToolMatcher::Regex)
        .map_err(|e| MatcherError::Regex {
            pattern: pattern.to_owned(),
            reason: regex_reason(&e),
        })
}

/// Compiles globs (`ability_scope`, `only_if_changed_paths`) into one set.
///
/// ```
/// let set = hookrail_config::matcher::compile_globs(&["services/**".to_owned()]).unwrap();
/// assert!(set.is_match("services/api/main.rs"));
/// assert!(hookrail_config::matcher::compile_globs(&["a[".to_owned()]).is_err());
/// ```
pub fn compile_globs(globs: &[String]) -> Result<GlobSet, MatcherError> {
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        let compiled = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| MatcherError::Glob {
                glob: glob.clone(),
                reason: e.kind().to_string(),
            })?;
        set.add(compiled);
    }
    set.build().map_err(|e| MatcherError::Glob {
        glob: globs.join(", "),
        reason: e.kind().to_string(),
    })
}

/// Per point: the field of the event's JSON that its matcher and `ability_scope` test, and
/// what that field is, for messages.
const TARGETS: &[(&str, &str, &str)] = &[
    ("pre_tool_use", "tool_name", "tool name"),
    ("post_tool_use", "tool_name", "tool name"),
    (
        "session_start",
        "source",
        "session source (startup, resume, clear, compact, fork)",
    ),
    ("session_end", "reason", "session end reason"),
    (
        "pre_compact",
        "trigger",
        "compaction trigger (manual, auto)",
    ),
    ("notification", "notification_type", "notification type"),
    ("subagent_start", "agent_type", "agent type"),
    ("subagent_stop", "agent_type", "agent type"),
    ("error_occurred", "kind", "error kind"),
    ("pre_model_switch", "to_model", "model switched to"),
];

/// What a point's matcher and `ability_scope` test, or `None` when the point has no such
/// value (`user_prompt_submit`, `stop`, …). For a generic Claude-event point it is the
/// payload field of its event's row in [`CLAUDE_EVENTS`].
///
/// ```
/// assert_eq!(hookrail_config::matcher::target_of("pre_tool_use"), Some("tool name"));
/// assert_eq!(hookrail_config::matcher::target_of("instructions_loaded"), Some("load_reason"));
/// assert_eq!(hookrail_config::matcher::target_of("stop"), None);
/// ```
pub fn target_of(point: &str) -> Option<&'static str> {
    TARGETS
        .iter()
        .find(|t| t.0 == point)
        .map(|t| t.2)
        .or_else(|| generic_target(point).map(Target::field))
}

/// The matcher target of a generic Claude-event point (its event's row).
fn generic_target(point: &str) -> Option<Target> {
    if !crate::generic::NAMES.contains(&point) {
        return None;
    }
    CLAUDE_EVENTS
        .iter()
        .find(|e| e.point == point)
        .and_then(|e| e.target)
}

/// The value a matcher tests for one event: read as Claude Code reads it (the field of the
/// event's row in [`CLAUDE_EVENTS`], from the payload it sent) when `payload` is a Claude
/// Code payload, else the point's own field of the hook input ([`target_field`]).
///
/// ```
/// use hookrail_config::matcher::target_value;
/// use serde_json::json;
///
/// let failure = json!({"hook_event_name": "StopFailure", "error": "rate_limit", "kind": "model"});
/// assert_eq!(target_value("error_occurred", &failure), Some("rate_limit"));
/// let changed = json!({"hook_event_name": "FileChanged", "file_path": "/repo/.envrc"});
/// assert_eq!(target_value("file_changed", &changed), Some(".envrc"));
/// ```
pub fn target_value<'a>(point: &str, payload: &'a Value) -> Option<&'a str> {
    let event = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .and_then(claude_event);
    match event {
        Some(event) => event.target.and_then(|t| t.read(payload)),
        None => target_field(point)
            .and_then(|f| payload.get(f))
            .and_then(Value::as_str),
    }
}

/// The field of a point's hook input that holds its matcher target ([`target_of`]):
/// `tool_name` for tool points.
///
/// ```
/// assert_eq!(hookrail_config::matcher::target_field("notification"), Some("notification_type"));
/// assert_eq!(hookrail_config::matcher::target_field("stop"), None);
/// ```
pub fn target_field(point: &str) -> Option<&'static str> {
    TARGETS.iter().find(|t| t.0 == point).map(|t| t.1)
}

/// Whether a point's events carry a duration (`min_duration_ms`).
pub fn has_duration(point: &str) -> bool {
    matches!(
        point,
        "post_tool_use"
            | "post_model_call"
            | "step_end"
            | "session_end"
            | "subagent_stop"
            | "post_queue_drain"
    )
}

/// Whether a point's events carry the files the session changed (`only_if_changed_paths`).
pub fn has_changed_paths(point: &str) -> bool {
    matches!(point, "session_end" | "subagent_stop")
}

/// The facts of one event that a [`Matcher`] tests. The runner fills what the point has.
#[derive(Debug, Clone, Copy, Default)]
pub struct EventFacts<'a> {
    /// The value named by [`target_of`]: the tool name for tool points, the source for
    /// `session_start`, the trigger for `pre_compact`, the notification type, …
    pub target: Option<&'a str>,
    /// How long the call took (`min_duration_ms`).
    pub duration_ms: Option<u64>,
    /// Files the session changed (`only_if_changed_paths`), relative to `project_dir` or
    /// absolute.
    pub changed_paths: &'a [String],
    /// The project directory: absolute changed paths under it are matched relative to it, so
    /// `services/**` matches `/repo/services/a.rs`.
    pub project_dir: Option<&'a Path>,
    /// The event's Claude Code name (`hook_event_name`), for [`Matcher::event`].
    pub event: Option<&'a str>,
    /// The tool call's input (`tool_input`), for [`Matcher::rule`].
    pub tool_input: Option<&'a serde_json::Value>,
    /// The session's working directory (the payload's `cwd`), for path rules.
    pub cwd: Option<&'a Path>,
}

/// Whether `matcher` matches the event.
///
/// The globs are compiled on each call; use [`CompiledMatcher`] on hot paths. A glob that does
/// not compile (impossible for loaded specs, which are validated) makes the matcher match, so
/// a guard runs rather than silently not running.
pub fn matches(matcher: &Matcher, facts: &EventFacts<'_>) -> bool {
    match CompiledMatcher::new(matcher) {
        Ok(compiled) => compiled.matches(facts),
        Err(e) => {
            tracing::error!("unvalidated matcher, treated as matching: {e}");
            true
        }
    }
}

/// A [`Matcher`] with its globs compiled.
#[derive(Debug, Clone)]
pub struct CompiledMatcher {
    tool: Option<ToolMatcher>,
    scope: Option<GlobSet>,
    min_duration_ms: Option<u64>,
    changed: Option<GlobSet>,
    event: Option<&'static str>,
    rule: Option<PermissionRule>,
}

impl CompiledMatcher {
    /// Compiles the matcher's globs.
    pub fn new(matcher: &Matcher) -> Result<Self, MatcherError> {
        let compile = |globs: &[String]| {
            if globs.is_empty() {
                Ok(None)
            } else {
                compile_globs(globs).map(Some)
            }
        };
        Ok(CompiledMatcher {
            tool: matcher.tool.clone(),
            scope: compile(&matcher.ability_scope)?,
            min_duration_ms: matcher.min_duration_ms,
            changed: compile(&matcher.only_if_changed_paths)?,
            event: matcher.event,
            rule: matcher.rule.clone(),
        })
    }

    /// Whether the event matches: every part that is set holds.
    ///
    /// ```
    /// use hookrail_config::matcher::{CompiledMatcher, EventFacts};
    /// use hookrail_config::spec::Matcher;
    ///
    /// let m = CompiledMatcher::new(&Matcher { min_duration_ms: Some(100), ..Matcher::default() }).unwrap();
    /// assert!(m.matches(&EventFacts { duration_ms: Some(250), ..EventFacts::default() }));
    /// assert!(!m.matches(&EventFacts { duration_ms: Some(20), ..EventFacts::default() }));
    /// ```
    pub fn matches(&self, facts: &EventFacts<'_>) -> bool {
        let tool = match &self.tool {
            None | Some(ToolMatcher::All) => true,
            Some(m) => match facts.target {
                Some(t) => tool_matches(m, t),
                None => unread_target_matches(facts.event),
            },
        };
        let scope = self
            .scope
            .as_ref()
            .is_none_or(|set| facts.target.is_some_and(|t| set.is_match(t)));
        let duration = self
            .min_duration_ms
            .is_none_or(|min| facts.duration_ms.is_some_and(|d| d >= min));
        let changed = self.changed.as_ref().is_none_or(|set| {
            facts
                .changed_paths
                .iter()
                .any(|p| set.is_match(relative(p, facts.project_dir)))
        });
        let event = self.event.is_none_or(|e| facts.event == Some(e));
        tool && scope && duration && changed && event && self.rule_matches(facts)
    }

    /// Claude Code's `if`: tested on the tool name (the target of a tool point). Without a
    /// tool name there is nothing to judge, and the hook runs.
    fn rule_matches(&self, facts: &EventFacts<'_>) -> bool {
        let (Some(rule), Some(tool)) = (&self.rule, facts.target) else {
            return true;
        };
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let place = CallPlace {
            cwd: facts.cwd,
            project_dir: facts.project_dir,
            home: home.as_deref(),
        };
        rule.matches(tool, facts.tool_input, &place)
    }
}

/// Whether a name matcher holds for an event of Claude Code `event` whose value could not be
/// read: only where Claude Code runs every hook it cannot match
/// ([`Target::unread_matches_all`]: a model switch to a model without a canonical name).
fn unread_target_matches(event: Option<&str>) -> bool {
    event
        .and_then(claude_event)
        .and_then(|e| e.target)
        .is_some_and(Target::unread_matches_all)
}

fn tool_matches(matcher: &ToolMatcher, name: &str) -> bool {
    match matcher {
        ToolMatcher::All => true,
        ToolMatcher::Names(names) => names.iter().any(|n| n == name),
        ToolMatcher::Regex(re) => re.is_match(name),
    }
}

fn relative<'a>(path: &'a str, root: Option<&Path>) -> &'a Path {
    let path = Path::new(path);
    root.and_then(|r| path.strip_prefix(r).ok()).unwrap_or(path)
}

/// The regex error without its multi-line source excerpt.
fn regex_reason(e: &regex::Error) -> String {
    match e {
        regex::Error::Syntax(text) => text
            .lines()
            .rev()
            .find(|l| l.starts_with("error:"))
            .map(|l| l.trim_start_matches("error:").trim().to_owned())
            .unwrap_or_else(|| text.clone()),
        regex::Error::CompiledTooBig(_) => "the compiled regex is too big".to_owned(),
        other => other.to_string(),
    }
}

fn abbreviate(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests;
