//! What a config file declares, once parsed and validated: [`HookSpec`] and its parts. Every
//! format (`hooks.yaml`, `hooks.toml`, `.hooks/*.yaml`, Claude Code's `settings.json` and
//! plugin `hooks.json`) is read into these types; the runner only ever sees them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use hookrail_core::OnError;

/// Where something was declared: a file, and a 1-based line and column in it (0 when the
/// format gives no position).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file, as it was named to the loader.
    pub file: Arc<PathBuf>,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.file.display()),
            (line, 0) => write!(f, "{}:{line}", self.file.display()),
            (line, column) => write!(f, "{}:{line}:{column}", self.file.display()),
        }
    }
}

/// One declared hook.
#[derive(Debug, Clone, PartialEq)]
pub struct HookSpec {
    /// Its id: unique among the loaded hooks (`id:` of a seed-003 file; for Claude Code
    /// entries, derived from the event, the group and the position: `PreToolUse[0].hooks[1]`).
    pub id: String,
    /// The point it runs at (a name of [`hookrail_core::registry::points`]: `pre_tool_use`).
    pub point: &'static str,
    /// `enabled: false` hooks are listed but never run.
    pub enabled: bool,
    /// Whether its decisions and failures may affect the agent (seed 003 `blocking`). A
    /// non-blocking hook at a guard point is run for its side effects only: its decision is
    /// logged and ignored. Default true.
    pub blocking: bool,
    /// When it runs.
    pub matcher: Matcher,
    /// What it runs.
    pub handler: Handler,
    /// How long it may run; `None` is the runner's default (60 s, as Claude Code).
    pub timeout: Option<Duration>,
    /// What a failure (exit code other than 0 and 2, timeout, crash, unparsable output) means:
    /// `on_error: continue` (fail open; `ignore` is read the same) or `deny` (fail closed), the
    /// words of `#[hook(on_error = ...)]`. `None`: the point's default (guards fail closed,
    /// other points fail open).
    pub on_error: Option<OnError>,
    /// What it means when the gate ([`crate::trust`]) refuses to run it: not on the
    /// allow-list, not approved, changed since its approval, URL not allowed (`on_unapproved`,
    /// per entry or for a whole project file). `None`: the point's default: deny at guard
    /// points (a guard that cannot run cannot decide), skip with a notice elsewhere.
    pub on_unapproved: Option<OnUnapproved>,
    /// Sort key among the config hooks of the same point (lower first; ties by id).
    pub order: i32,
    /// Seed 003's `effects`: descriptive only, shown by `hooks list`.
    pub effects: Vec<String>,
    /// Seed 003's `summary`, shown by `hooks list`.
    pub summary: Option<String>,
    /// Where it was declared.
    pub location: Location,
}

/// What a hook the gate refuses to run means for the agent (`on_unapproved`).
///
/// Either way the hook itself never runs and a `hook_command_skipped` event says why; this
/// only chooses whether its absence decides. A `blocking: false` hook never decides, so for
/// it both are a skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnUnapproved {
    /// Fail closed, naming the hook, the gate's reason and the command that approves it: a
    /// deny at guard points, a stopped chain elsewhere (as [`OnError::Deny`]). The default
    /// at guard points.
    Deny,
    /// Go on without it; the answer carries a notice naming the hook and how to approve it
    /// (Claude Code's `systemMessage`). The default at other points; at a guard point only
    /// when chosen explicitly.
    Skip,
}

impl OnUnapproved {
    /// The value as written in config files: `deny` or `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnUnapproved::Deny => "deny",
            OnUnapproved::Skip => "skip",
        }
    }
}

/// When a hook runs, beyond its point. Every part that is set must match.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matcher {
    /// Claude Code's `matcher` over the tool name (or, for `session_start`, the source; for
    /// `pre_compact`, the trigger): `None`, `""` or `"*"` match all; `A|B` is a list of exact
    /// names when it has only word characters and `|`; anything else is a regex (anchored
    /// like Claude Code: it must match somewhere in the name).
    pub tool: Option<ToolMatcher>,
    /// Seed 003's `ability_scope`: globs over the tool name; empty matches all.
    pub ability_scope: Vec<String>,
    /// Seed 003's `min_duration_ms` (`post_tool_use`): only calls at least this slow.
    pub min_duration_ms: Option<u64>,
    /// Seed 003's `only_if_changed_paths` (`session_end`, `subagent_stop`): only when a file the
    /// session modified matches one of these globs.
    pub only_if_changed_paths: Vec<String>,
    /// The Claude Code event the hook was declared under, where several events share its
    /// point (`PostToolUse` and `PostToolUseFailure` are both `post_tool_use`): it runs only
    /// for that event, as in Claude Code. `None`: every event of the point.
    pub event: Option<&'static str>,
    /// Claude Code's `if`: a permission rule (`Bash(git *)`, `Edit(*.ts)`) the tool call must
    /// match; a call the rule cannot judge matches ([`crate::permission_rule`]).
    pub rule: Option<crate::permission_rule::PermissionRule>,
}

/// A compiled Claude Code `matcher`.
#[derive(Debug, Clone)]
pub enum ToolMatcher {
    /// `*`, or empty: every tool.
    All,
    /// `Bash`, `Write|Edit`: exact names.
    Names(Vec<String>),
    /// Anything else: a regex searched in the name (`mcp__.*__write`).
    Regex(regex::Regex),
}

impl PartialEq for ToolMatcher {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ToolMatcher::All, ToolMatcher::All) => true,
            (ToolMatcher::Names(a), ToolMatcher::Names(b)) => a == b,
            (ToolMatcher::Regex(a), ToolMatcher::Regex(b)) => a.as_str() == b.as_str(),
            _ => false,
        }
    }
}

/// What a hook runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Handler {
    /// A process speaking Claude Code's hook protocol.
    Command(CommandHandler),
    /// An HTTP endpoint speaking the same protocol (`type: http`).
    Http(HttpHandler),
}

/// A command: the shell form (`command`, run by `sh -c`) or the exec form (`args`, no shell).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CommandLine {
    /// Run by `sh -c <command>`, as Claude Code does.
    Shell(String),
    /// Program and arguments, run directly (no shell, no word splitting).
    Exec(Vec<String>),
}

impl fmt::Display for CommandLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandLine::Shell(command) => f.write_str(command),
            CommandLine::Exec(args) => {
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    if arg.is_empty() || arg.contains(|c: char| c.is_whitespace() || c == '\'') {
                        write!(f, "'{}'", arg.replace('\'', r"'\''"))?;
                    } else {
                        f.write_str(arg)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// A command hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHandler {
    /// What to run.
    pub line: CommandLine,
    /// Extra environment variables (on top of the inherited environment and the protocol's
    /// `CLAUDE_PROJECT_DIR` and `CLAUDE_PLUGIN_ROOT`).
    pub env: BTreeMap<String, String>,
    /// The plugin root (`CLAUDE_PLUGIN_ROOT`) when the hook came from a plugin's
    /// `hooks/hooks.json`; `${CLAUDE_PLUGIN_ROOT}` in the command is expanded by the shell.
    pub plugin_root: Option<PathBuf>,
}

/// An HTTP hook. Its `Debug` shows header names only: a value may be a secret written into
/// the file.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpHandler {
    /// The endpoint (`http://` or `https://`).
    pub url: String,
    /// Extra request headers. Values may be `${ENV_VAR}`, expanded when the request is sent.
    pub headers: BTreeMap<String, String>,
    /// The plugin root when the hook came from a plugin's `hooks/hooks.json`. Nothing of the
    /// request depends on it; it keeps a plugin's copy of a URL apart from the same URL
    /// declared elsewhere (Claude Code runs an identical handler once, except a plugin's).
    pub plugin_root: Option<PathBuf>,
}

impl fmt::Debug for HttpHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpHandler")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("plugin_root", &self.plugin_root)
            .finish()
    }
}

/// One entry of the `webhooks:` section: where to POST which bus events, signed with which
/// secret (seed 002). Sent by `hookrail-telemetry`'s webhooks (feature `webhooks`).
#[derive(Clone, PartialEq)]
pub struct WebhookSpec {
    /// `id`, or `webhooks[N]` by position.
    pub id: String,
    /// The points whose events are sent (`hook:`), resolved to our names.
    pub points: Vec<&'static str>,
    /// `hook: "*"`: every event, points and custom events.
    pub all: bool,
    /// Custom event names (`events:`), as the program emits them.
    pub events: Vec<String>,
    /// The endpoint (`http://` or `https://`).
    pub url: String,
    /// The signing secret as written: a literal or a `${ENV_VAR}` template, expanded when the
    /// webhook is started. Never shown by `Debug`.
    pub secret: Option<String>,
    /// Per-request timeout (`timeout` in seconds or `timeout_ms`).
    pub timeout: Option<Duration>,
    /// How often a failed delivery is retried.
    pub retries: Option<u32>,
    /// How many events may wait for delivery before new ones are dropped (and counted).
    pub queue: Option<usize>,
    /// False: listed, never sent.
    pub enabled: bool,
    /// Where it was declared.
    pub location: Location,
}

impl WebhookSpec {
    /// The names of the events this webhook receives (`*` for every event).
    pub fn event_names(&self) -> Vec<String> {
        if self.all {
            return vec!["*".to_owned()];
        }
        self.points
            .iter()
            .map(|p| (*p).to_owned())
            .chain(self.events.iter().cloned())
            .collect()
    }
}

impl fmt::Debug for WebhookSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookSpec")
            .field("id", &self.id)
            .field("events", &self.event_names())
            .field("url", &self.url)
            .field("secret", &self.secret.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("queue", &self.queue)
            .field("enabled", &self.enabled)
            .field("location", &self.location)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_handler_debug_shows_header_names_not_values() {
        let handler = HttpHandler {
            url: "https://hooks.example.com/h".into(),
            headers: BTreeMap::from([(
                "Authorization".to_owned(),
                "Bearer sk-live-123".to_owned(),
            )]),
            plugin_root: None,
        };
        let debug = format!("{handler:?}");
        assert!(debug.contains("Authorization"), "{debug}");
        assert!(!debug.contains("sk-live-123"), "{debug}");
    }
}
