//! The `webhooks:` section: outbound, signed POSTs of bus events (seed 002), each entry
//! validated on its own.

use std::path::PathBuf;
use std::sync::Arc;

use super::entry::{location, read_timeout};
use super::fields::{self, Fields, Issues};
use super::handler;
use super::node::{Node, Value};
use super::{LoadedConfig, Problem};
use crate::events;
use crate::spec::WebhookSpec;

const FIELDS: &[&str] = &[
    "id",
    "hook",
    "events",
    "url",
    "secret",
    "timeout",
    "timeout_ms",
    "retries",
    "queue",
    "enabled",
    "unsigned",
];

/// The most retries an entry may ask for (each waits longer than the one before).
const MAX_RETRIES: i128 = 10;
/// The longest queue an entry may ask for, in events.
const MAX_QUEUE: i128 = 100_000;

/// Reads the `webhooks:` list into `config.webhooks`, or its problems into `config.problems`.
pub(super) fn read_all(config: &mut LoadedConfig, node: &Node, file: &Arc<PathBuf>) {
    let items = match &node.value {
        Value::Seq(items) => items,
        Value::Null => return,
        other => {
            config.problems.push(Problem::at(
                file,
                node.pos,
                None,
                format!(
                    "`webhooks` must be a list of webhook entries, found {}",
                    other.kind()
                ),
            ));
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let mut issues = Issues::default();
        let (id, read) = read(item, i, file, &mut issues);
        let id = id.unwrap_or_else(|| format!("webhooks[{i}]"));
        if issues.is_empty()
            && let Some(spec) = read
        {
            if config.webhooks.iter().any(|w| w.id == spec.id) {
                config.problems.push(Problem::at(
                    file,
                    item.pos,
                    Some(spec.id.clone()),
                    format!("duplicate webhook id `{}`; skipped", spec.id),
                ));
            } else {
                config.webhooks.push(spec);
            }
            continue;
        }
        for (pos, message) in issues.0 {
            config.problems.push(Problem::at(
                file,
                pos,
                Some(id.clone()),
                format!("webhook `{id}` skipped: {message}"),
            ));
        }
    }
}

/// The entry's id (for messages, even when the entry is invalid) and the entry.
fn read(
    node: &Node,
    index: usize,
    file: &Arc<PathBuf>,
    issues: &mut Issues,
) -> (Option<String>, Option<WebhookSpec>) {
    let Some(mut f) = Fields::of(node, "a webhook entry", issues) else {
        return (None, None);
    };
    let id = match f.take("id") {
        Some(n) => fields::non_empty(n, "id", issues).map(str::to_owned),
        None => Some(format!("webhooks[{index}]")),
    };
    let spec = read_fields(f, id.clone(), node, file, issues);
    (id, spec)
}

fn read_fields(
    mut f: Fields<'_>,
    id: Option<String>,
    node: &Node,
    file: &Arc<PathBuf>,
    issues: &mut Issues,
) -> Option<WebhookSpec> {
    let mut points = Vec::new();
    let mut all = false;
    if let Some(n) = f.take("hook") {
        for name in fields::strings(n, "hook", true, issues).unwrap_or_default() {
            if name == "*" {
                all = true;
                continue;
            }
            match events::resolve(&name) {
                Ok(point) if !points.contains(&point) => points.push(point),
                Ok(_) => {}
                Err(e) => issues.push(n.pos, e.to_string()),
            }
        }
    }
    let events = match f.take("events") {
        Some(n) => fields::strings(n, "events", true, issues).unwrap_or_default(),
        None => Vec::new(),
    };
    if !all && points.is_empty() && events.is_empty() && issues.is_empty() {
        issues.push(
            f.pos,
            "missing `hook`: the point names to send (or `*` for every event), and/or `events`: custom event names",
        );
    }
    let url = match f.take("url") {
        Some(n) => handler::url(n, issues),
        None => {
            issues.push(f.pos, "missing `url`");
            None
        }
    };
    let secret = f
        .take("secret")
        .and_then(|n| fields::non_empty(n, "secret", issues))
        .map(str::to_owned);
    let before = issues.0.len();
    let timeout = read_timeout(&mut f, issues);
    if issues.0.len() > before
        && let Some(last) = issues.0.last_mut()
    {
        last.1
            .push_str(" (`timeout` is in seconds; seed 002's milliseconds go in `timeout_ms`)");
    }
    let retries = f
        .take("retries")
        .and_then(|n| fields::integer(n, "retries", 0, MAX_RETRIES, issues))
        .map(|n| n as u32);
    let queue = f
        .take("queue")
        .and_then(|n| fields::integer(n, "queue", 1, MAX_QUEUE, issues))
        .map(|n| n as usize);
    let enabled = f
        .take("enabled")
        .and_then(|n| fields::boolean(n, "enabled", issues))
        .unwrap_or(true);
    // Signed unless the entry says otherwise: a receiver cannot tell an unsigned event from
    // a forged one, so sending unsigned is a choice, never a default.
    let unsigned = f.take("unsigned");
    match (&secret, unsigned) {
        (None, None) => issues.push(
            f.pos,
            "missing `secret`: webhooks are signed (HMAC-SHA256); give a `secret` (e.g. `${WEBHOOK_SECRET}`), or `unsigned: true` to send without a signature",
        ),
        (None, Some(n)) => {
            if fields::boolean(n, "unsigned", issues) == Some(false) {
                issues.push(n.pos, "`unsigned: false` needs a `secret`");
            }
        }
        (Some(_), Some(n)) => {
            if fields::boolean(n, "unsigned", issues) == Some(true) {
                issues.push(n.pos, "`unsigned: true` contradicts the `secret` given");
            }
        }
        (Some(_), None) => {}
    }
    f.finish("a webhook entry", FIELDS, |_| None, issues);
    Some(WebhookSpec {
        id: id?,
        points,
        all,
        events,
        url: url?,
        secret,
        timeout: timeout.flatten(),
        retries,
        queue,
        enabled,
        location: location(file, node.pos),
    })
}
