//! Claude Code's hook config, read as it is: the `hooks` section of `settings.json` and a
//! plugin's `hooks/hooks.json`.
//!
//! ```json
//! { "hooks": { "PreToolUse": [ { "matcher": "Bash",
//!     "hooks": [ { "type": "command", "command": "./guard.sh", "timeout": 30 } ] } ] } }
//! ```
//!
//! Rules:
//! - Other top-level keys of `settings.json` (and a plugin's `description`) are ignored;
//!   `disableAllHooks: true` puts every hook in [`LoadedConfig::dormant`].
//! - No `enabled: true` is needed: reading a Claude Code file is the explicit act, and Claude
//!   Code has no per-hook switch either, so every hook is enabled.
//! - Ids come from the position: `PreToolUse[0].hooks[1]` is the second handler of the first
//!   matcher group of `PreToolUse`. A plugin's ids are prefixed with its directory name
//!   (`my-plugin:PreToolUse[0].hooks[0]`), so plugins never collide; its command hooks get the
//!   plugin directory as `CLAUDE_PLUGIN_ROOT`.
//! - Only Claude Code event names are accepted (`PreToolUse`, not `pre_tool_use`); events
//!   with no point here are reported, with all their hooks.
//! - `type: command` is a command hook: `command` runs in the shell, or, with `args`, is the
//!   program run without a shell (`[command, args…]`, `${CLAUDE_PROJECT_DIR}` expanded);
//!   `shell: bash` runs `bash -c <command>`, `shell: powershell` `pwsh -NoProfile -Command`.
//!   `type: http` is an HTTP hook; every `${VAR}` in its `headers` must be listed in
//!   `allowedEnvVars`. `timeout` is in seconds.
//! - `onFailure: "block"` is `on_error: deny`, `"continue"` is `on_error: continue`.
//! - `if` is a permission rule ([`crate::permission_rule`]) tested on tool events; a rule
//!   that does not parse is a problem; on other events it is noted and ignored.
//! - `async: true` hooks cannot affect decisions in Claude Code: they load as non-blocking
//!   hooks (run, decision logged and ignored). `asyncRewake` loads the same way, with a note:
//!   nothing can wake Claude Code after `hooks claude` answered. `statusMessage` becomes the
//!   summary; `once` (honoured by Claude Code in skills only) is noted.
//! - `type` `prompt`, `agent` and `mcp_tool` are recognised and noted as not runnable here;
//!   the other hooks load.
//! - `allowManagedHooksOnly` counts only in a managed file ([`load_claude_managed`]);
//!   elsewhere it is noted. docs/claude-settings.md has the whole table.
//! - A handler key we do not know (a newer Claude Code's `rewakeMessage`) does not cost the
//!   hook: it loads without the key, and the key is named once in
//!   [`LoadedConfig::notes`] (`hooks validate`, a daemon's log at load), never in every answer.
//!   An unknown key of a matcher group is still a problem (the group's meaning is unclear).
//! - Every one of Claude Code's 33 events is accepted ([`CLAUDE_EVENTS`]). Its `matcher` is
//!   read as Claude Code reads it there ([`compile_claude_matcher`]) and tested against the
//!   field Claude Code matches for that event (`StopFailure`: `error`, `FileChanged`: the
//!   file name, `PreModelSwitch`: the canonical name of `to_model`, …). A matcher on an event
//!   that has none (`Stop`, `UserPromptSubmit`) is ignored, as by Claude Code, and noted.
//! - A hook declared under `PostToolUse` runs for successful calls only, one under
//!   `PostToolUseFailure` for failed ones only, though both are the point `post_tool_use`.
//! - Without `onFailure`, the point's default applies (guards fail closed, where Claude Code
//!   fails open).
//! - Claude Code hooks get no `on_unapproved`: Claude Code's schema has no such field (and these files are also
//!   Claude Code's own, so a field it does not know is not ours to add; here it is refused as
//!   an unknown field like any other). A hook of these files that the gate refuses therefore
//!   takes the point's default: at a guard point it denies, naming the command that approves
//!   it. To have such a hook skipped instead, declare it in the project file with
//!   `on_unapproved: skip`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::entry::location;
use super::fields::{self, Fields, Issues};
use super::handler;
use super::node::{Node, Value};
use super::{Format, LoadedConfig, Problem, parse_text, read_text};
use crate::claude_events::{CLAUDE_EVENTS, Target, claude_event};
use crate::events::{closest, did_you_mean, resolve_claude};
use crate::matcher::{compile_claude_matcher, compile_tool_matcher};
use crate::permission_rule::PermissionRule;
use crate::spec::{
    CommandHandler, CommandLine, Handler, HookSpec, HttpHandler, Matcher, OnError, ToolMatcher,
};

const GROUP_FIELDS: &[&str] = &["matcher", "hooks"];
const COMMON_FIELDS: &[&str] = &[
    "type",
    "timeout",
    "statusMessage",
    "once",
    "if",
    "onFailure",
];
const COMMAND_FIELDS: &[&str] = &["command", "args", "async", "asyncRewake", "shell"];
const HTTP_FIELDS: &[&str] = &["url", "headers", "allowedEnvVars"];
const TYPES: &[&str] = &["command", "http", "prompt", "agent", "mcp_tool"];
/// The events where Claude Code tests a handler's `if`.
const IF_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// Reads a Claude Code `settings.json` (or `settings.local.json`, or any file of that shape).
pub fn load_claude_settings(path: &Path) -> Result<LoadedConfig, Problem> {
    parse_claude(&read_text(path)?, path, None)
}

/// Reads a Claude Code plugin's `hooks/hooks.json`; `plugin_dir` is the plugin's root.
pub fn load_claude_plugin(plugin_dir: &Path) -> Result<LoadedConfig, Problem> {
    let path = plugin_dir.join("hooks").join("hooks.json");
    parse_claude(&read_text(&path)?, &path, Some(plugin_dir))
}

/// Reads Claude Code hook config from a string; `file` names it in locations, and
/// `plugin_root` is the plugin's root for a plugin's `hooks.json`.
///
/// `Err` only when the text is not JSON or not an object.
///
/// ```
/// use std::path::Path;
///
/// let json = r#"{ "model": "x", "hooks": { "PreToolUse": [
///     { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./guard.sh", "timeout": 30 } ] } ] } }"#;
/// let config = hookrail_config::file::parse_claude(json, Path::new("settings.json"), None).unwrap();
/// assert!(config.problems.is_empty());
/// assert_eq!(config.hooks[0].id, "PreToolUse[0].hooks[0]");
/// assert_eq!(config.hooks[0].timeout, Some(std::time::Duration::from_secs(30)));
/// ```
pub fn parse_claude(
    text: &str,
    file: &Path,
    plugin_root: Option<&Path>,
) -> Result<LoadedConfig, Problem> {
    parse_claude_as(text, file, plugin_root, false).map(|(config, _)| config)
}

/// Reads a managed settings file (Claude Code's `managed-settings.json`): its hooks, and
/// whether it sets `allowManagedHooksOnly: true` (then only managed hooks may run; see
/// [`Sources::managed_settings`](super::Sources::managed_settings)).
pub fn load_claude_managed(path: &Path) -> Result<(LoadedConfig, bool), Problem> {
    parse_claude_as(&read_text(path)?, path, None, true)
}

fn parse_claude_as(
    text: &str,
    file: &Path,
    plugin_root: Option<&Path>,
    managed: bool,
) -> Result<(LoadedConfig, bool), Problem> {
    let file = Arc::new(file.to_path_buf());
    let node = parse_text(text, Format::Json, &file)?;
    let Value::Map(top) = &node.value else {
        return Err(Problem::at(
            &file,
            node.pos,
            None,
            format!("expected a JSON object, found {}", node.value.kind()),
        ));
    };
    let mut reader = Reader {
        file: &file,
        plugin_root,
        prefix: plugin_root
            .and_then(|r| r.file_name())
            .map(|n| format!("{}:", n.to_string_lossy()))
            .unwrap_or_default(),
        config: LoadedConfig {
            enabled: true,
            files: vec![file.to_path_buf()],
            ..LoadedConfig::default()
        },
    };
    let mut managed_only = false;
    for (key, value) in top {
        match key.name.as_str() {
            "hooks" => reader.events(value),
            "disableAllHooks" => match value.value {
                Value::Bool(disable) => reader.config.enabled = !disable,
                _ => reader.problem(
                    value,
                    None,
                    format!(
                        "`disableAllHooks` must be true or false, found {}; ignored",
                        value.value.kind()
                    ),
                ),
            },
            "allowManagedHooksOnly" => match value.value {
                Value::Bool(only) if managed => managed_only = only,
                Value::Bool(_) => reader.note(
                    value,
                    None,
                    "`allowManagedHooksOnly` is honoured only in managed settings (give the file with --managed-settings); here it changes nothing".to_owned(),
                ),
                _ => reader.problem(
                    value,
                    None,
                    format!(
                        "`allowManagedHooksOnly` must be true or false, found {}; ignored",
                        value.value.kind()
                    ),
                ),
            },
            _ => {}
        }
    }
    let mut config = reader.config;
    if !config.enabled {
        config.dormant.append(&mut config.hooks);
    }
    Ok((config, managed_only))
}

struct Reader<'a> {
    file: &'a Arc<PathBuf>,
    plugin_root: Option<&'a Path>,
    prefix: String,
    config: LoadedConfig,
}

impl Reader<'_> {
    fn note(&mut self, node: &Node, id: Option<&str>, message: String) {
        self.config.notes.push(Problem::at(
            self.file,
            node.pos,
            id.map(str::to_owned),
            message,
        ));
    }

    fn problem(&mut self, node: &Node, id: Option<&str>, message: String) {
        self.config.problems.push(Problem::at(
            self.file,
            node.pos,
            id.map(str::to_owned),
            message,
        ));
    }

    fn issues(&mut self, id: Option<&str>, issues: Issues, what: &str) {
        for (pos, message) in issues.0 {
            let message = match id {
                Some(id) => format!("hook `{id}` {what}: {message}"),
                None => format!("{what}: {message}"),
            };
            self.config
                .problems
                .push(Problem::at(self.file, pos, id.map(str::to_owned), message));
        }
    }

    fn events(&mut self, node: &Node) {
        let Value::Map(events) = &node.value else {
            self.problem(
                node,
                None,
                format!(
                    "`hooks` must map event names to matcher groups, found {}",
                    node.value.kind()
                ),
            );
            return;
        };
        for (key, groups) in events {
            let event = key.name.as_str();
            let point = match resolve_claude(event) {
                Ok(point) => point,
                Err(e) => {
                    let count = count_handlers(groups);
                    self.config.problems.push(Problem::at(
                        self.file,
                        key.pos,
                        None,
                        format!("{e}; its {count} hook(s) skipped"),
                    ));
                    continue;
                }
            };
            let Value::Seq(groups) = &groups.value else {
                self.problem(
                    groups,
                    None,
                    format!(
                        "`{event}` must be a list of matcher groups, found {}; its hooks skipped",
                        groups.value.kind()
                    ),
                );
                continue;
            };
            for (g, group) in groups.iter().enumerate() {
                self.group(event, point, g, group);
            }
        }
    }

    fn group(&mut self, event: &str, point: &'static str, g: usize, node: &Node) {
        let what = format!("matcher group {event}[{g}] skipped");
        let mut issues = Issues::default();
        let Some(mut f) = Fields::of(node, "a matcher group", &mut issues) else {
            self.issues(None, issues, &what);
            return;
        };
        let mut tool = None;
        let info = claude_event(event);
        if let Some(n) = f.take("matcher")
            && let Some(pattern) = fields::string(n, "matcher", &mut issues)
        {
            let compiled = match info {
                Some(e) => compile_claude_matcher(e, pattern),
                None => compile_tool_matcher(pattern),
            };
            match compiled {
                Ok(ToolMatcher::All) => {}
                Ok(_) if info.is_none_or(|e| e.target.is_none()) => {
                    self.note(
                        n,
                        None,
                        format!(
                            "matcher \"{pattern}\" of {event}[{g}] ignored: {event} has no matcher (Claude Code ignores it too); its hooks run on every {event}"
                        ),
                    );
                }
                Ok(m) => tool = Some(m),
                Err(e) => issues.push(n.pos, e.to_string()),
            }
        }
        let handlers = match f.take("hooks") {
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => items.as_slice(),
            Some(other) => {
                issues.push(
                    other.pos,
                    format!(
                        "`hooks` must be a list of handlers, found {}",
                        other.value.kind()
                    ),
                );
                &[]
            }
            None => {
                issues.push(node.pos, "missing `hooks` (the list of handlers)");
                &[]
            }
        };
        f.finish("a matcher group", GROUP_FIELDS, |_| None, &mut issues);
        if !issues.is_empty() {
            self.issues(None, issues, &what);
            return;
        }
        // Where several events share the point, a hook runs for the event it was declared under.
        let shared = CLAUDE_EVENTS.iter().filter(|e| e.point == point).count() > 1;
        for (h, handler) in handlers.iter().enumerate() {
            let id = format!("{}{event}[{g}].hooks[{h}]", self.prefix);
            let matcher = Matcher {
                tool: tool.clone(),
                event: info.filter(|_| shared).map(|e| e.name),
                ..Matcher::default()
            };
            let mut issues = Issues::default();
            match self.handler(handler, &id, (event, point), matcher, &mut issues) {
                Some(spec) if issues.is_empty() => self.config.add(spec, true),
                _ => self.issues(Some(&id), issues, "skipped"),
            }
        }
    }

    fn handler(
        &mut self,
        node: &Node,
        id: &str,
        (event, point): (&str, &'static str),
        mut matcher: Matcher,
        issues: &mut Issues,
    ) -> Option<HookSpec> {
        let mut f = Fields::of(node, "a hook handler", issues)?;
        let kind = match f.take("type") {
            Some(n) => fields::string(n, "type", issues).map(|t| (t, n)),
            None => {
                issues.push(node.pos, "missing `type` (command or http)");
                None
            }
        };
        let timeout = f
            .take("timeout")
            .and_then(|n| handler::timeout_secs(n, issues));
        let summary = f
            .take("statusMessage")
            .and_then(|n| fields::string(n, "statusMessage", issues))
            .map(str::to_owned);
        if let Some(n) = f.take("once")
            && fields::boolean(n, "once", issues) == Some(true)
        {
            self.note(
                n,
                Some(id),
                format!(
                    "hook `{id}`: `once` is honoured by Claude Code only in a skill's frontmatter, not in a settings file: ignored here as there; the hook runs on every matching event"
                ),
            );
        }
        if let Some(n) = f.take("if") {
            matcher.rule = self.rule(n, id, event, issues);
        }
        let on_error = f.take("onFailure").map(|n| Self::on_failure(n, issues));
        let (kind, kind_node) = kind?;
        let mut blocking = true;
        let handler = match kind {
            "command" => {
                let command = f.take("command");
                let args = f.take("args");
                let shell = f.take("shell");
                for field in ["async", "asyncRewake"] {
                    let Some(n) = f.take(field) else { continue };
                    if fields::boolean(n, field, issues) == Some(true) {
                        blocking = false;
                        if field == "asyncRewake" {
                            self.note(
                                n,
                                Some(id),
                                format!(
                                    "hook `{id}`: `asyncRewake` runs it in the background like `async`; its exit 2 cannot wake Claude Code later (`hooks claude` answers once and exits), so it is logged, not delivered"
                                ),
                            );
                        }
                    }
                }
                self.unknown_keys(
                    f,
                    id,
                    "a command hook",
                    &[COMMON_FIELDS, COMMAND_FIELDS].concat(),
                );
                self.command_line(node, command, args, shell, issues)
                    .map(|line| {
                        Handler::Command(CommandHandler {
                            line,
                            env: Default::default(),
                            plugin_root: self.plugin_root.map(Path::to_path_buf),
                        })
                    })
            }
            "http" => {
                let url = f.take("url");
                let headers = f.take("headers");
                let allowed = f.take("allowedEnvVars");
                self.unknown_keys(
                    f,
                    id,
                    "an http hook",
                    &[COMMON_FIELDS, HTTP_FIELDS].concat(),
                );
                // A plugin's copy of a URL stays apart from the same URL elsewhere, as a
                // plugin's command does (by its `CLAUDE_PLUGIN_ROOT`).
                http(node, url, headers, allowed, self.plugin_root, issues)
            }
            "prompt" | "agent" | "mcp_tool" => {
                // Recognised, and said so: these need a model or an MCP client, which only
                // Claude Code has. Not a problem (that would block every call at a guard
                // point for a hook Claude Code itself runs).
                let why = match kind {
                    "mcp_tool" => "it calls a tool of an MCP server Claude Code is connected to",
                    _ => "it asks Claude Code's model to judge",
                };
                self.note(
                    kind_node,
                    Some(id),
                    format!(
                        "hook `{id}`: type `{kind}` is not runnable here ({why}); Claude Code runs it, `hooks claude` and the daemon do not"
                    ),
                );
                return None;
            }
            other => {
                let hint = did_you_mean(closest(other, TYPES.iter().copied()));
                issues.push(kind_node.pos, format!("unknown hook type `{other}`{hint}"));
                None
            }
        }?;
        Some(HookSpec {
            id: id.to_owned(),
            point,
            enabled: true,
            blocking,
            matcher,
            handler,
            timeout,
            on_error: on_error.flatten(),
            on_unapproved: None,
            order: 0,
            effects: Vec::new(),
            summary,
            location: location(self.file, node.pos),
        })
    }

    /// `if`: a permission rule, tested on tool events only (as Claude Code does). A rule that
    /// does not parse is a problem, so `hooks claude` blocks at a point that can block until
    /// it is fixed (a guard whose filter cannot be read must not quietly stop running).
    fn rule(
        &mut self,
        n: &Node,
        id: &str,
        event: &str,
        issues: &mut Issues,
    ) -> Option<PermissionRule> {
        let text = fields::string(n, "if", issues)?;
        let rule = match PermissionRule::parse(text) {
            Ok(rule) => rule,
            Err(e) => {
                issues.push(n.pos, format!("`if` \"{text}\": {e}"));
                return None;
            }
        };
        let tool_event = IF_EVENTS.contains(&event)
            && claude_event(event).is_some_and(|e| e.target == Some(Target::Field("tool_name")));
        if !tool_event {
            self.note(
                n,
                Some(id),
                format!(
                    "hook `{id}`: `if` \"{text}\" is tested on tool events only ({}); on {event} it is ignored and the hook runs on every {event}",
                    IF_EVENTS.join(", ")
                ),
            );
            return None;
        }
        if let Some(spec) = rule.uninterpreted() {
            self.note(
                n,
                Some(id),
                format!(
                    "hook `{id}`: `if` \"{text}\": the specifier `{spec}` is not interpreted here; the hook runs on every call of the tool"
                ),
            );
        }
        Some(rule)
    }

    /// `onFailure`: `block` fails closed on a start failure, a timeout or an unexpected exit
    /// code (our `on_error: deny`); `continue` fails open (Claude Code's default).
    fn on_failure(n: &Node, issues: &mut Issues) -> Option<OnError> {
        match fields::string(n, "onFailure", issues)? {
            "block" => Some(OnError::Deny),
            "continue" => Some(OnError::Continue),
            other => {
                issues.push(
                    n.pos,
                    format!("`onFailure` must be \"block\" or \"continue\", found \"{other}\""),
                );
                None
            }
        }
    }

    /// Keys of a handler we do not know: noted once, the hook loads without them (a newer
    /// Claude Code's key must not make a whole quality gate disappear).
    fn unknown_keys(&mut self, f: Fields<'_>, id: &str, what: &str, known: &[&str]) {
        let mut unknown = Issues::default();
        f.finish(what, known, |_| None, &mut unknown);
        for (pos, message) in unknown.0 {
            self.config.notes.push(Problem::at(
                self.file,
                pos,
                Some(id.to_owned()),
                format!("hook `{id}`: {message}; the hook is loaded without it"),
            ));
        }
    }

    fn command_line(
        &self,
        node: &Node,
        command: Option<&Node>,
        args: Option<&Node>,
        shell: Option<&Node>,
        issues: &mut Issues,
    ) -> Option<CommandLine> {
        let Some(command) = command else {
            issues.push(node.pos, "missing `command`");
            return None;
        };
        let program = handler::command(command, "command", issues)?;
        if let Some(args) = args {
            let args = fields::strings(args, "args", false, issues)?;
            if args.iter().any(|a| a.contains('\0')) {
                issues.push(node.pos, "`args` contains a NUL character");
                return None;
            }
            return Some(CommandLine::Exec(
                std::iter::once(program).chain(args).collect(),
            ));
        }
        match shell.map(|n| (fields::string(n, "shell", issues), n)) {
            None | Some((Some("sh"), _)) => Some(CommandLine::Shell(program)),
            Some((Some("bash"), _)) => Some(CommandLine::Exec(vec![
                "bash".to_owned(),
                "-c".to_owned(),
                program,
            ])),
            // PowerShell on Linux and macOS is `pwsh`; where it is not installed the hook
            // fails to start, which is its `onFailure` (or the point's default).
            Some((Some("powershell"), _)) => Some(CommandLine::Exec(vec![
                "pwsh".to_owned(),
                "-NoProfile".to_owned(),
                "-Command".to_owned(),
                program,
            ])),
            Some((Some(other), n)) => {
                issues.push(
                    n.pos,
                    format!("`shell: {other}` is not supported (sh, bash or powershell)"),
                );
                None
            }
            Some((None, _)) => None,
        }
    }
}

/// An `http` handler; `plugin_root` is the plugin's root when the file is a plugin's.
fn http(
    node: &Node,
    url: Option<&Node>,
    headers: Option<&Node>,
    allowed: Option<&Node>,
    plugin_root: Option<&Path>,
    issues: &mut Issues,
) -> Option<Handler> {
    let Some(url) = url else {
        issues.push(node.pos, "missing `url`");
        return None;
    };
    let url = handler::url(url, issues);
    let allowed = allowed.map_or(Some(Vec::new()), |n| {
        fields::strings(n, "allowedEnvVars", false, issues)
    });
    let headers = match headers {
        Some(n) => {
            let headers = handler::headers(n, issues)?;
            let allowed = allowed.clone().unwrap_or_default();
            for (name, value) in &headers {
                for var in handler::env_refs(value) {
                    if !allowed.iter().any(|a| a == var) {
                        issues.push(
                            n.pos,
                            format!(
                                "header `{name}` uses ${{{var}}}, which is not listed in `allowedEnvVars`"
                            ),
                        );
                    }
                }
            }
            Some(headers)
        }
        None => Some(Default::default()),
    };
    allowed?;
    Some(Handler::Http(HttpHandler {
        url: url?,
        headers: headers?,
        plugin_root: plugin_root.map(Path::to_path_buf),
    }))
}

fn count_handlers(groups: &Node) -> usize {
    let Value::Seq(groups) = &groups.value else {
        return 0;
    };
    groups
        .iter()
        .filter_map(|g| match &g.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k.name == "hooks"),
            _ => None,
        })
        .map(|(_, hooks)| match &hooks.value {
            Value::Seq(h) => h.len(),
            _ => 0,
        })
        .sum()
}
