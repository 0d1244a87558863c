//! `hooks list`: every hook, linked and configured, and every configured webhook, as a table
//! or JSON, each with its standing: `active`, or why it does not run (`off (enabled is
//! false)`, `off (no enabled: true)`, `denies (not approved)`, `skipped (not approved)`, `not started (WEBHOOK_SECRET
//! unset)`, …; see [`crate::status`]). In JSON, `enabled` is true only for what runs, and
//! `detail` says what admitted it or why it does not run.
//!
//! The builtin policies whose state lives in memory (`rate_limit`, `budget`, `reviewer_lockout`,
//! `resilience`, `task_tracker`: `Builtins::memory_only_state`)
//! are listed with a note: their state lasts one event in `hooks claude`.

use std::process::ExitCode;

use clap::Args;
use hookrail_config::runner::ENTRY_NAME;
use hookrail_config::spec::{HookSpec, ToolMatcher};
use hookrail_core::runtime::HookSource;
use serde::Serialize;

use crate::CliError;
use crate::load::{ConfigArgs, Pipeline, pipeline};
use crate::status::{self, Standing};

/// Options of `hooks list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON (one array of rows) instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// One row of the listing (seed 003 §7.1).
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    id: String,
    point: &'static str,
    /// Whether it runs.
    enabled: bool,
    /// `active`, or why it does not run.
    status: String,
    /// What admitted it, or the full reason it does not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    /// `guard`, `transform`, … for in-process hooks; `blocking`/`non-blocking` + handler for
    /// configured ones.
    kind: String,
    order: i32,
    #[serde(rename = "match")]
    matches: String,
    source: String,
}

pub async fn run(args: ListArgs) -> Result<ExitCode, CliError> {
    let pipeline = pipeline(&args.config)?;
    let rows = rows(&pipeline, &args.config)?;
    let stateful = &pipeline.memory_only;
    if args.json {
        crate::load::print_json(&rows)?;
    } else if rows.is_empty() {
        println!("no hooks (config hooks are off unless the project file says `enabled: true`)");
    } else {
        let mut table =
            crate::load::table(["id", "point", "status", "kind", "order", "match", "source"]);
        for r in &rows {
            table.add_row([
                r.id.clone(),
                r.point.to_owned(),
                r.status.clone(),
                r.kind.clone(),
                r.order.to_string(),
                r.matches.clone(),
                r.source.clone(),
            ]);
        }
        println!("{table}");
        let inactive = rows.iter().filter(|r| !r.enabled).count();
        if inactive > 0 {
            println!(
                "{inactive} of {} not running; `hooks list --json` and `hooks validate` say why",
                rows.len()
            );
        }
        if !stateful.is_empty() {
            println!("note: {}", status::stateful_note(stateful));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The rows of the listing: the pipeline's hooks, with the configuration as it is now (a
/// daemon's reloads included).
pub(crate) fn rows(pipeline: &Pipeline, args: &ConfigArgs) -> Result<Vec<Row>, CliError> {
    let project = args.project_dir();
    let config = &pipeline.configured.config();
    let stateful = &pipeline.memory_only;
    let linked = |id: &str, enabled: bool| {
        let one_event = id
            .strip_prefix("builtin.")
            .is_some_and(|name| stateful.contains(&name));
        match (enabled, one_event) {
            (false, _) => ("off (disabled)".to_owned(), None),
            (true, false) => ("active".to_owned(), None),
            (true, true) => (
                "active (state lasts one event in hooks claude)".to_owned(),
                Some(
                    "its state lives in memory: in `hooks claude`, a process per event, it never triggers"
                        .to_owned(),
                ),
            ),
        }
    };
    let listing = pipeline.hooks.list();
    // A provider is an entry at every standard point: one row says it.
    let mut providers: Vec<Row> = Vec::new();
    for h in listing.iter().filter(|h| h.source == HookSource::Provider) {
        if !providers.iter().any(|r| r.id == h.name.as_str()) {
            let (status, detail) = linked(h.name.as_str(), h.enabled);
            providers.push(Row {
                id: h.name.to_string(),
                point: "(every point)",
                enabled: h.enabled,
                status,
                detail,
                kind: "provider".to_owned(),
                order: h.order,
                matches: "*".to_owned(),
                source: "provider".to_owned(),
            });
        }
    }
    let mut rows: Vec<Row> = listing
        .into_iter()
        .filter(|h| h.name.as_str() != ENTRY_NAME && h.source != HookSource::Provider)
        .map(|h| {
            let (status, detail) = linked(h.name.as_str(), h.enabled);
            Row {
                id: h.name.to_string(),
                point: h.point,
                enabled: h.enabled,
                status,
                detail,
                kind: format!("{}{}", h.kind, if h.is_async { " (async)" } else { "" }),
                order: h.order,
                matches: "*".to_owned(),
                source: match h.location {
                    Some((file, line)) => format!("{file}:{line}"),
                    None => h.source.to_string(),
                },
            }
        })
        .collect();
    rows.extend(providers);
    let gate = status::gate(config, args.trust_store()?);
    let active = config.hooks.iter().map(|s| (s, config.enabled));
    let dormant = config.dormant.iter().map(|s| (s, false));
    for (spec, switched_on) in active.chain(dormant) {
        let Standing {
            status,
            active,
            detail,
        } = status::hook(spec, switched_on, &gate, &project);
        rows.push(Row {
            id: spec.id.clone(),
            point: spec.point,
            enabled: active,
            status,
            detail,
            kind: format!(
                "{} {}",
                if spec.blocking {
                    "blocking"
                } else {
                    "non-blocking"
                },
                match spec.handler {
                    hookrail_config::spec::Handler::Command(_) => "command",
                    hookrail_config::spec::Handler::Http(_) => "http",
                }
            ),
            order: spec.order,
            matches: match_summary(spec),
            source: format!(
                "{}:{}",
                crate::load::short(&spec.location.file, &project),
                spec.location.line
            ),
        });
    }
    // Webhooks send events rather than run at a point: one row each, after the hooks.
    let active = config.webhooks.iter().map(|w| (w, config.enabled));
    let dormant = config.dormant_webhooks.iter().map(|w| (w, false));
    for (webhook, switched_on) in active.chain(dormant) {
        let Standing {
            status,
            active,
            detail,
        } = status::webhook(webhook, switched_on, gate.allow());
        rows.push(Row {
            id: webhook.id.clone(),
            point: "(webhook)",
            enabled: active,
            status,
            detail,
            kind: if webhook.secret.is_some() {
                "webhook signed"
            } else {
                "webhook unsigned"
            }
            .to_owned(),
            order: 0,
            matches: webhook.event_names().join("|"),
            source: format!(
                "{}:{}",
                crate::load::short(&webhook.location.file, &project),
                webhook.location.line
            ),
        });
    }
    rows.sort_by_key(|r| {
        (
            hookrail_core::points::NAMES
                .iter()
                .position(|p| *p == r.point)
                .unwrap_or(usize::MAX),
            r.order,
        )
    });
    Ok(rows)
}

/// A short text for a hook's match rules.
pub fn match_summary(spec: &HookSpec) -> String {
    let m = &spec.matcher;
    let mut parts = Vec::new();
    match &m.tool {
        None | Some(ToolMatcher::All) => {}
        Some(ToolMatcher::Names(names)) => parts.push(names.join("|")),
        Some(ToolMatcher::Regex(re)) => parts.push(format!("/{}/", re.as_str())),
    }
    if !m.ability_scope.is_empty() {
        parts.push(format!("scope {}", m.ability_scope.join(",")));
    }
    if let Some(ms) = m.min_duration_ms {
        parts.push(format!(">= {ms} ms"));
    }
    if !m.only_if_changed_paths.is_empty() {
        parts.push(format!("changed {}", m.only_if_changed_paths.join(",")));
    }
    if parts.is_empty() {
        "*".to_owned()
    } else {
        parts.join("; ")
    }
}
