//! One hook entry of our schema (seed 003's, extended) into a [`HookSpec`].

use std::path::PathBuf;
use std::sync::Arc;

use super::fields::{self, Fields, Issues};
use super::handler;
use super::node::{Node, Pos, Value};
use crate::events::{self, closest, did_you_mean};
use crate::matcher::{self, compile_globs, compile_tool_matcher};
use crate::spec::{
    CommandHandler, CommandLine, Handler, HookSpec, HttpHandler, Location, Matcher, OnError,
    OnUnapproved,
};

const ENTRY_FIELDS: &[&str] = &[
    "id",
    "event_type",
    "enabled",
    "blocking",
    "summary",
    "match",
    "handler",
    "effects",
    "timeout_ms",
    "timeout",
    "on_error",
    "on_unapproved",
    "order",
];
const MATCH_FIELDS: &[&str] = &[
    "matcher",
    "ability_scope",
    "min_duration_ms",
    "only_if_changed_paths",
];
const HANDLER_FIELDS: &[&str] = &["kind", "command", "args", "url", "headers", "env"];
const KINDS: &[&str] = &["command", "script", "http"];

/// The entry's id, if it has a usable one, and the spec or every problem found in it.
pub(crate) struct ReadEntry {
    pub id: Option<String>,
    pub result: Result<HookSpec, Issues>,
}

/// Reads one entry; `default_id` stands in for a missing `id` (a `.hooks/` file's stem).
pub(crate) fn read(node: &Node, default_id: Option<&str>, file: &Arc<PathBuf>) -> ReadEntry {
    let mut issues = Issues::default();
    let Some(mut f) = Fields::of(node, "a hook entry", &mut issues) else {
        return ReadEntry {
            id: None,
            result: Err(issues),
        };
    };

    let id = match f.take("id") {
        Some(n) => read_id(n, &mut issues),
        None => match default_id {
            Some(d) => Some(d.to_owned()),
            None => {
                issues.push(f.pos, "missing `id`");
                None
            }
        },
    };
    let point = match f.take("event_type") {
        Some(n) => fields::non_empty(n, "event_type", &mut issues).and_then(|name| {
            events::resolve(name)
                .map_err(|e| issues.push(n.pos, e.to_string()))
                .ok()
        }),
        None => {
            issues.push(f.pos, "missing `event_type`");
            None
        }
    };
    let enabled = f
        .take("enabled")
        .map_or(Some(true), |n| fields::boolean(n, "enabled", &mut issues));
    let blocking = f
        .take("blocking")
        .map_or(Some(true), |n| fields::boolean(n, "blocking", &mut issues));
    let summary = f
        .take("summary")
        .and_then(|n| fields::string(n, "summary", &mut issues))
        .map(|s| s.trim().to_owned());
    let matcher = match f.take("match") {
        Some(n) => read_match(n, point, &mut issues),
        None => Some(Matcher::default()),
    };
    let handler = match f.take("handler") {
        Some(n) => read_handler(n, &mut issues),
        None => {
            issues.push(
                f.pos,
                "missing `handler` (a `command`, `args` or `url` to run)",
            );
            None
        }
    };
    let effects = f
        .take("effects")
        .map_or(Some(Vec::new()), |n| read_effects(n, &mut issues));
    let timeout = read_timeout(&mut f, &mut issues);
    let on_error = f.take("on_error").and_then(|n| {
        let name = fields::string(n, "on_error", &mut issues)?;
        match name {
            // One vocabulary with `#[hook(on_error = ...)]` and `OnError`; `ignore`, this
            // file format's first word for it, still reads.
            "continue" | "ignore" => Some(OnError::Continue),
            "deny" => Some(OnError::Deny),
            other => {
                let hint = did_you_mean(closest(other, ["continue", "deny"]));
                issues.push(
                    n.pos,
                    format!(
                        "`on_error` must be `continue` (fail open) or `deny` (fail closed), \
                         found \"{other}\"{hint}"
                    ),
                );
                None
            }
        }
    });
    // `None` outside: an invalid value (the entry is skipped); inside: not given.
    let on_unapproved = f
        .take("on_unapproved")
        .map_or(Some(None), |n| on_unapproved(n, &mut issues).map(Some));
    let order = f.take("order").map_or(Some(0), |n| {
        fields::integer(n, "order", i32::MIN.into(), i32::MAX.into(), &mut issues)
            .and_then(|o| i32::try_from(o).ok())
    });
    f.finish("a hook entry", ENTRY_FIELDS, misplaced, &mut issues);

    let spec = match (
        point,
        enabled,
        blocking,
        matcher,
        handler,
        effects,
        order,
        on_unapproved,
    ) {
        (
            Some(point),
            Some(enabled),
            Some(blocking),
            Some(matcher),
            Some(handler),
            Some(effects),
            Some(order),
            Some(on_unapproved),
        ) if issues.is_empty() => id.clone().map(|id| HookSpec {
            id,
            point,
            enabled,
            blocking,
            matcher,
            handler,
            timeout: timeout.flatten(),
            on_error,
            on_unapproved,
            order,
            effects,
            summary,
            location: location(file, node.pos),
        }),
        _ => None,
    };
    ReadEntry {
        id,
        result: spec.ok_or(issues),
    }
}

/// `on_unapproved`: exactly `deny` or `skip` (per entry, or at the top of a project file).
pub(super) fn on_unapproved(node: &Node, issues: &mut Issues) -> Option<OnUnapproved> {
    let name = fields::string(node, "on_unapproved", issues)?;
    match name {
        "deny" => Some(OnUnapproved::Deny),
        "skip" => Some(OnUnapproved::Skip),
        other => {
            let hint = did_you_mean(closest(other, ["deny", "skip"]));
            issues.push(
                node.pos,
                format!("`on_unapproved` must be `deny` or `skip`, found \"{other}\"{hint}"),
            );
            None
        }
    }
}

pub(crate) fn location(file: &Arc<PathBuf>, pos: Pos) -> Location {
    Location {
        file: Arc::clone(file),
        line: pos.line,
        column: pos.column,
    }
}

fn read_id(node: &Node, issues: &mut Issues) -> Option<String> {
    let id = fields::non_empty(node, "id", issues)?;
    if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        issues.push(node.pos, format!("`id` \"{id}\" contains whitespace"));
        return None;
    }
    Some(id.to_owned())
}

/// A hint for a field written at the wrong level.
fn misplaced(name: &str) -> Option<String> {
    if HANDLER_FIELDS.contains(&name) || name == "type" {
        Some(" (it belongs in `handler:`)".to_owned())
    } else if MATCH_FIELDS.contains(&name) {
        Some(" (it belongs in `match:`)".to_owned())
    } else if matches!(name, "event" | "hook_event_name" | "point") {
        Some("; did you mean `event_type`?".to_owned())
    } else {
        None
    }
}

/// `None` inside: no timeout given; `None` outside: an invalid one.
pub(super) fn read_timeout(
    f: &mut Fields<'_>,
    issues: &mut Issues,
) -> Option<Option<std::time::Duration>> {
    match (f.take("timeout_ms"), f.take("timeout")) {
        (Some(_), Some(secs)) => {
            issues.push(
                secs.pos,
                "give either `timeout_ms` (milliseconds) or `timeout` (seconds), not both",
            );
            None
        }
        (Some(ms), None) => handler::timeout_ms(ms, issues).map(Some),
        (None, Some(secs)) => handler::timeout_secs(secs, issues).map(Some),
        (None, None) => Some(None),
    }
}

fn read_match(node: &Node, point: Option<&'static str>, issues: &mut Issues) -> Option<Matcher> {
    let before = issues.0.len();
    let mut f = Fields::of(node, "`match`", issues)?;
    let mut matcher = Matcher::default();
    // Each part is checked against the point, so a condition the event can never satisfy (or
    // that would be ignored) is reported instead of making the hook never (or always) run.
    let applies = |field: &str, pos: Pos, ok: fn(&str) -> bool, what: &str, issues: &mut Issues| {
        if let Some(point) = point
            && !ok(point)
        {
            issues.push(
                pos,
                format!("`match.{field}` does not apply to {point}: its events have no {what}"),
            );
        }
    };
    let has_target = |p: &str| matcher::target_of(p).is_some();
    if let Some(n) = f.take("matcher") {
        applies("matcher", n.pos, has_target, "matcher target", issues);
        if let Some(pattern) = fields::string(n, "match.matcher", issues) {
            match compile_tool_matcher(pattern) {
                Ok(m) => matcher.tool = Some(m),
                Err(e) => issues.push(n.pos, e.to_string()),
            }
        }
    }
    if let Some(n) = f.take("ability_scope") {
        applies("ability_scope", n.pos, has_target, "matcher target", issues);
        if let Some(globs) = fields::strings(n, "match.ability_scope", true, issues) {
            check_globs(n, &globs, issues);
            matcher.ability_scope = globs;
        }
    }
    if let Some(n) = f.take("min_duration_ms") {
        applies(
            "min_duration_ms",
            n.pos,
            matcher::has_duration,
            "duration",
            issues,
        );
        matcher.min_duration_ms =
            fields::integer(n, "match.min_duration_ms", 0, u64::MAX.into(), issues)
                .and_then(|ms| u64::try_from(ms).ok());
    }
    if let Some(n) = f.take("only_if_changed_paths") {
        applies(
            "only_if_changed_paths",
            n.pos,
            matcher::has_changed_paths,
            "changed files",
            issues,
        );
        if let Some(globs) = fields::strings(n, "match.only_if_changed_paths", true, issues) {
            check_globs(n, &globs, issues);
            matcher.only_if_changed_paths = globs;
        }
    }
    f.finish("`match`", MATCH_FIELDS, |_| None, issues);
    (issues.0.len() == before).then_some(matcher)
}

/// Reports each glob that does not compile, at its own position when it is a list item.
fn check_globs(node: &Node, globs: &[String], issues: &mut Issues) {
    let positions: Vec<Pos> = match &node.value {
        Value::Seq(items) => items.iter().map(|i| i.pos).collect(),
        _ => vec![node.pos],
    };
    for (i, glob) in globs.iter().enumerate() {
        if let Err(e) = compile_globs(std::slice::from_ref(glob)) {
            issues.push(positions.get(i).copied().unwrap_or(node.pos), e.to_string());
        }
    }
}

fn read_handler(node: &Node, issues: &mut Issues) -> Option<Handler> {
    let before = issues.0.len();
    let mut f = Fields::of(node, "`handler`", issues)?;
    let kind = f.take("kind");
    let command = f.take("command");
    let args = f.take("args");
    let url = f.take("url");
    let headers = f.take("headers");
    let env = f.take("env");
    f.finish(
        "`handler`",
        HANDLER_FIELDS,
        |name| (name == "type").then(|| "; did you mean `kind`?".to_owned()),
        issues,
    );

    let kind = match kind {
        Some(n) => match fields::string(n, "handler.kind", issues)? {
            k @ ("command" | "script" | "http") => k,
            other => {
                let hint = did_you_mean(closest(other, KINDS.iter().copied()));
                issues.push(
                    n.pos,
                    format!("unknown handler kind \"{other}\" (command, script or http){hint}"),
                );
                return None;
            }
        },
        None if url.is_some() => "http",
        None => "command",
    };
    let not_for = |field: &str, node: Option<&Node>, issues: &mut Issues| {
        if let Some(n) = node {
            issues.push(
                n.pos,
                format!("`handler.{field}` does not apply to a {kind} handler"),
            );
        }
    };
    let handler = if kind == "http" {
        not_for("command", command, issues);
        not_for("args", args, issues);
        not_for("env", env, issues);
        let Some(url_node) = url else {
            issues.push(node.pos, "missing `handler.url` for an http handler");
            return None;
        };
        let url = handler::url(url_node, issues);
        let headers = headers.map_or(Some(Default::default()), |h| handler::headers(h, issues));
        Handler::Http(HttpHandler {
            url: url?,
            headers: headers?,
            plugin_root: None,
        })
    } else {
        not_for("url", url, issues);
        not_for("headers", headers, issues);
        let line = match (command, args) {
            (Some(_), Some(a)) => {
                issues.push(
                    a.pos,
                    "give either `command` (shell form) or `args` (exec form), not both",
                );
                None
            }
            (Some(c), None) => {
                handler::command(c, "handler.command", issues).map(CommandLine::Shell)
            }
            (None, Some(a)) => handler::args(a, "handler.args", issues).map(CommandLine::Exec),
            (None, None) => {
                issues.push(
                    node.pos,
                    "missing `handler.command` (shell form) or `handler.args` (exec form)",
                );
                None
            }
        };
        let env = env.map_or(Some(Default::default()), |e| handler::env(e, issues));
        Handler::Command(CommandHandler {
            line: line?,
            env: env?,
            plugin_root: None,
        })
    };
    (issues.0.len() == before).then_some(handler)
}

/// Strings, or one-key maps (`- append_to: logs/x.log`) shown as `key: value`.
fn read_effects(node: &Node, issues: &mut Issues) -> Option<Vec<String>> {
    let Value::Seq(items) = &node.value else {
        if let Value::Str(s) = &node.value {
            return Some(vec![s.clone()]);
        }
        issues.push(
            node.pos,
            format!("`effects`: expected a list, found {}", node.value.kind()),
        );
        return None;
    };
    let before = issues.0.len();
    let mut effects = Vec::new();
    for item in items {
        match &item.value {
            Value::Str(s) => effects.push(s.clone()),
            Value::Map(entries) if entries.len() == 1 => {
                let (key, value) = &entries[0];
                match &value.value {
                    Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                        effects.push(format!("{}: {}", key.name, value.value.key_text()));
                    }
                    other => issues.push(
                        value.pos,
                        format!("`effects`: expected a string, found {}", other.kind()),
                    ),
                }
            }
            other => issues.push(
                item.pos,
                format!(
                    "`effects`: expected a string or `name: value`, found {}",
                    other.kind()
                ),
            ),
        }
    }
    (issues.0.len() == before).then_some(effects)
}
