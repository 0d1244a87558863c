//! `hooks list`: every hook, linked and configured, and every configured webhook, as a table
//! or JSON, each with its standing: `active`, or why it does not run (`off (enabled is
//! false)`, `off (no enabled: true)`, `denies (not approved)`, `skipped (not approved)`, `not started (WEBHOOK_SECRET
//! unset)`, …; see [`crate::status`]). In JSON, `enabled` is true only for what runs, and
//! `detail` says what admitted it or why it does not run.
//!
//! Hooks read from a hook directory (the built-in and user layers, the project's `.hooks/`)
//! also show their `layer`, the same-named files of earlier layers their file `replaces`, and
//! their extension file's `name` and `version`; a guard whose file says `failOpen: true`
//! carries a note that it still fails closed (the table prints notes below it).
//!
//! The builtin policies whose state lives in memory (`rate_limit`, `budget`, `reviewer_lockout`,
//! `resilience`, `task_tracker`: `Builtins::memory_only_state`)
//! are listed with a note: their state lasts one event in `hooks claude`.

use std::process::ExitCode;

use clap::Args;
use hookrail_config::runner::ENTRY_NAME;
use hookrail_config::spec::{HookSpec, ToolMatcher};
use hookrail_core::KindId;
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
    /// The hook-directory layer its file was read from (`builtin`, `user`, `workspace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    layer: Option<&'static str>,
    /// The same-named files of earlier layers its file replaced (not read), earliest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    replaces: Vec<String>,
    /// Its extension file's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// Its extension file's `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    /// What a file-level default did not do for it (a `failOpen: true` kept off a guard).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

impl Row {
    /// A row with no layer information.
    fn plain(
        id: String,
        point: &'static str,
        (enabled, status, detail): (bool, String, Option<String>),
        kind: String,
        order: i32,
        matches: String,
        source: String,
    ) -> Row {
        Row {
            id,
            point,
            enabled,
            status,
            detail,
            kind,
            order,
            matches,
            source,
            layer: None,
            replaces: Vec::new(),
            name: None,
            version: None,
            notes: Vec::new(),
        }
    }

    /// The layer column: `user`, `workspace (replaces …)`; empty for other hooks.
    fn layer_text(&self) -> String {
        let Some(layer) = self.layer else {
            return String::new();
        };
        if self.replaces.is_empty() {
            layer.to_owned()
        } else {
            format!("{layer} (replaces {})", self.replaces.join(", "))
        }
    }

    /// The source column: the place, and the extension's name and version.
    fn source_text(&self) -> String {
        match (&self.name, &self.version) {
            (None, None) => self.source.clone(),
            (name, version) => {
                let what = [name.as_deref(), version.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("{} ({what})", self.source)
            }
        }
    }
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
        let layered = rows.iter().any(|r| r.layer.is_some());
        let mut header = vec!["id", "point", "status", "kind", "order", "match", "source"];
        if layered {
            header.push("layer");
        }
        let mut table = crate::load::table(header);
        for r in &rows {
            let mut cells = vec![
                r.id.clone(),
                r.point.to_owned(),
                r.status.clone(),
                r.kind.clone(),
                r.order.to_string(),
                r.matches.clone(),
                r.source_text(),
            ];
            if layered {
                cells.push(r.layer_text());
            }
            table.add_row(cells);
        }
        println!("{table}");
        for r in &rows {
            for note in &r.notes {
                println!("note: {}: {note}", r.id);
            }
        }
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
            providers.push(Row::plain(
                h.name.to_string(),
                "(every point)",
                (h.enabled, status, detail),
                "provider".to_owned(),
                h.order,
                "*".to_owned(),
                "provider".to_owned(),
            ));
        }
    }
    let mut rows: Vec<Row> = listing
        .into_iter()
        .filter(|h| h.name.as_str() != ENTRY_NAME && h.source != HookSource::Provider)
        .map(|h| {
            let (status, detail) = linked(h.name.as_str(), h.enabled);
            Row::plain(
                h.name.to_string(),
                h.point,
                (h.enabled, status, detail),
                format!("{}{}", h.kind, if h.is_async { " (async)" } else { "" }),
                h.order,
                "*".to_owned(),
                match h.location {
                    Some((file, line)) => format!("{file}:{line}"),
                    None => h.source.to_string(),
                },
            )
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
        let mut row = Row::plain(
            spec.id.clone(),
            spec.point,
            (active, status, detail),
            format!(
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
            spec.order,
            match_summary(spec),
            format!(
                "{}:{}",
                crate::load::short(&spec.location.file, &project),
                spec.location.line
            ),
        );
        if let Some(file) = config.layer_file(&spec.location.file) {
            row.layer = Some(file.layer.as_str());
            row.replaces = file
                .replaced
                .iter()
                .map(|p| crate::load::short(p, &project))
                .collect();
            row.name.clone_from(&file.name);
            row.version.clone_from(&file.version);
            let guard = hookrail_config::events::kind_of(spec.point) == Some(KindId::Guard);
            if file.fail_open == Some(true) && guard && spec.on_error.is_none() {
                row.notes.push(
                    "its file's `failOpen: true` does not apply to a guard: it fails closed unless its entry says `on_error: continue`"
                        .to_owned(),
                );
            }
        }
        rows.push(row);
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
        rows.push(Row::plain(
            webhook.id.clone(),
            "(webhook)",
            (active, status, detail),
            if webhook.secret.is_some() {
                "webhook signed"
            } else {
                "webhook unsigned"
            }
            .to_owned(),
            0,
            webhook.event_names().join("|"),
            format!(
                "{}:{}",
                crate::load::short(&webhook.location.file, &project),
                webhook.location.line
            ),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_show_the_layer_what_it_replaced_and_the_extension_name_and_version() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let user = tmp.path().join("user");
        std::fs::create_dir_all(project.join(".hooks")).unwrap();
        std::fs::create_dir_all(&user).unwrap();
        std::fs::write(project.join("hooks.yaml"), "enabled: true\nhooks: []\n").unwrap();
        let entry = |id: &str, command: &str| {
            format!("id: {id}\nevent_type: Stop\nhandler: {{ command: {command} }}\n")
        };
        std::fs::write(user.join("_50_filter.yaml"), entry("filter", "./u.sh")).unwrap();
        std::fs::write(
            project.join(".hooks/_50_filter.yaml"),
            entry("filter", "./w.sh"),
        )
        .unwrap();
        std::fs::write(
            user.join("_10_ext.yaml"),
            "name: audit\nversion: \"1.2.0\"\nfailOpen: true\nhooks:\n  - { id: g, event_type: PreToolUse, handler: { command: ./g.sh } }\n",
        )
        .unwrap();
        let args = ConfigArgs {
            project: Some(project.clone()),
            user_hooks: Some(user.clone()),
            trust_file: Some(tmp.path().join("trust.json")),
            ..ConfigArgs::default()
        };
        let pipeline = pipeline(&args).unwrap();
        let rows = rows(&pipeline, &args).unwrap();
        let row = |id: &str| rows.iter().find(|r| r.id == id).unwrap();

        let filter = row("filter");
        assert_eq!(filter.layer, Some("workspace"));
        assert_eq!(filter.source, ".hooks/_50_filter.yaml:1");
        assert_eq!(
            filter.replaces,
            [user.join("_50_filter.yaml").display().to_string()]
        );
        assert!(filter.layer_text().starts_with("workspace (replaces "));

        let g = row("g");
        assert_eq!(g.layer, Some("user"));
        assert_eq!(
            (g.name.as_deref(), g.version.as_deref()),
            (Some("audit"), Some("1.2.0"))
        );
        assert!(
            g.source_text().ends_with("(audit 1.2.0)"),
            "{}",
            g.source_text()
        );
        assert_eq!(g.notes.len(), 1, "{:?}", g.notes);

        let json = serde_json::to_value(g).unwrap();
        assert_eq!(json["layer"], "user");
        assert_eq!(json["name"], "audit");
        assert_eq!(json["version"], "1.2.0");
        assert!(json["notes"][0].as_str().unwrap().contains("failOpen"));
        let json = serde_json::to_value(filter).unwrap();
        assert_eq!(json["replaces"].as_array().unwrap().len(), 1);
        // Rows without a layer keep their old shape.
        let provider = rows.iter().find(|r| r.layer.is_none()).unwrap();
        let json = serde_json::to_value(provider).unwrap();
        assert!(json.get("layer").is_none() && json.get("replaces").is_none());
    }

    #[test]
    fn a_named_user_directory_that_is_missing_is_said_and_the_default_may_be_absent() {
        let tmp = tempfile::tempdir().unwrap();
        let args = ConfigArgs {
            project: Some(tmp.path().to_path_buf()),
            user_hooks: Some(tmp.path().join("nope")),
            ..ConfigArgs::default()
        };
        let (_, missing) = args.present_sources(true);
        assert_eq!(missing.len(), 1);
        assert!(
            missing[0].to_string().contains("--user-hooks")
                && missing[0].to_string().contains("no such directory"),
            "{}",
            missing[0]
        );
        let off = ConfigArgs {
            no_user_hooks: true,
            ..args.clone()
        };
        assert_eq!(off.user_hooks_dir(), None);
        assert!(off.present_sources(true).1.is_empty());
        assert!(off.approve_command().ends_with("--no-user-hooks"));
        assert!(args.approve_command().contains("--user-hooks "));
    }
}
