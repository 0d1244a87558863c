//! Our schema: the project file (`hooks.yaml`, …) and the `.hooks/` directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::entry::{self, location};
use super::fields::{self, Fields, Issues};
use super::layers::{Layer, list_dir, load_layers};
use super::node::{Node, Value};
use super::webhook;
use super::{AllowEntry, BuiltinSettings, Format, LoadedConfig, Problem, parse_text, read_text};

const TOP_FIELDS: &[&str] = &[
    "enabled",
    "sequential",
    "on_unapproved",
    "allow",
    "builtin",
    "hooks",
    "webhooks",
];

/// The project file names, in the order they are looked for.
pub(crate) const PROJECT_FILES: &[&str] = &["hooks.yaml", "hooks.yml", "hooks.toml", "hooks.json"];

/// Reads a project: its project file (`hooks.yaml`, `hooks.yml`, `hooks.toml` or
/// `hooks.json` in `root`) and its `.hooks/` directory, both switched on by the project
/// file's `enabled: true`.
///
/// Without a project file the feature is off: the result has `enabled: false` and every hook
/// of `.hooks/` in `dormant`. `Err` when the project file does not parse (its switch is then
/// unknown, so nothing may run) or when there are two project files.
pub fn load_project(root: &Path) -> Result<LoadedConfig, Problem> {
    load_project_layered(root, &[])
}

/// [`load_project`] with hook directories of earlier layers (built-in, user) read before the
/// project's `.hooks/`, under the project's switch: a file of `.hooks/` replaces the one of
/// the same name in `lower` ([`load_layers`](super::load_layers)).
pub fn load_project_layered(
    root: &Path,
    lower: &[(Layer, PathBuf)],
) -> Result<LoadedConfig, Problem> {
    let found: Vec<PathBuf> = PROJECT_FILES
        .iter()
        .map(|name| root.join(name))
        .filter(|path| path.is_file())
        .collect();
    let project = match found.as_slice() {
        [] => {
            tracing::debug!(root = %root.display(), "no project hooks file: config hooks are off");
            LoadedConfig::default()
        }
        [path] => load_project_file(path)?,
        [first, second, ..] => {
            return Err(Problem::file(
                second,
                format!(
                    "two project hook files: {} and {}; keep one",
                    first.display(),
                    second.display()
                ),
            ));
        }
    };
    let enabled = project.enabled;
    let mut dirs = lower.to_vec();
    dirs.push((Layer::Workspace, root.join(".hooks")));
    let mut merged = LoadedConfig::merge([project, load_layers(&dirs, enabled)]);
    // The directories follow the project's switch; they have no switch of their own.
    merged.enabled = enabled;
    Ok(merged)
}

/// Reads one file of our schema; the format comes from its extension.
pub fn load_project_file(path: &Path) -> Result<LoadedConfig, Problem> {
    let Some(format) = Format::from_path(path) else {
        return Err(Problem::file(
            path,
            "unsupported file type: expected .yaml, .yml, .toml or .json".to_owned(),
        ));
    };
    parse_project(&read_text(path)?, format, path)
}

/// Reads our schema from a string; `file` names it in locations.
///
/// `Err` only when the text does not parse, or its top level is not a map.
pub fn parse_project(text: &str, format: Format, file: &Path) -> Result<LoadedConfig, Problem> {
    let file = Arc::new(file.to_path_buf());
    let node = parse_text(text, format, &file)?;
    let mut config = LoadedConfig {
        files: vec![file.to_path_buf()],
        ..LoadedConfig::default()
    };
    match &node.value {
        Value::Null => return Ok(config),
        Value::Map(_) => {}
        other => {
            return Err(Problem::at(
                &file,
                node.pos,
                None,
                format!(
                    "expected a map at the top level (enabled, sequential, on_unapproved, allow, builtin, hooks, webhooks), found {}",
                    other.kind()
                ),
            ));
        }
    }
    let mut issues = Issues::default();
    let mut hooks = Vec::new();
    let mut webhooks = None;
    let mut on_unapproved = None;
    if let Some(mut f) = Fields::of(&node, "the config", &mut issues) {
        config.enabled = f
            .take("enabled")
            .and_then(|n| fields::boolean(n, "enabled", &mut issues))
            .unwrap_or(false);
        config.sequential = f
            .take("sequential")
            .and_then(|n| fields::boolean(n, "sequential", &mut issues))
            .unwrap_or(false);
        // A bad value is reported and the point's default kept: stricter, never laxer.
        on_unapproved = f
            .take("on_unapproved")
            .and_then(|n| entry::on_unapproved(n, &mut issues));
        if let Some(n) = f.take("allow") {
            config.allow = read_allow(n, &file, &mut issues);
        }
        if let Some(n) = f.take("builtin") {
            match n.to_json() {
                Ok(value) => {
                    config.builtin = Some(BuiltinSettings {
                        value,
                        location: location(&file, n.pos),
                    });
                }
                Err((pos, message)) => issues.push(pos, format!("`builtin`: {message}")),
            }
        }
        if let Some(n) = f.take("hooks") {
            match &n.value {
                Value::Seq(items) => hooks = items.iter().collect(),
                Value::Null => {}
                Value::Map(_) => issues.push(
                    n.pos,
                    "`hooks` must be a list of hook entries; a map of event names is Claude Code's settings.json shape, which is read as a Claude Code file",
                ),
                other => issues.push(
                    n.pos,
                    format!("`hooks` must be a list of hook entries, found {}", other.kind()),
                ),
            }
        }
        webhooks = f.take("webhooks");
        f.finish("the config", TOP_FIELDS, |_| None, &mut issues);
    }
    for (pos, message) in issues.0 {
        config.problems.push(Problem::at(&file, pos, None, message));
    }
    for item in hooks {
        read_entry_into(&mut config, item, None, &file);
    }
    // The file's setting is the default of its own entries only (not of `.hooks/` files,
    // which say it themselves): a skip is chosen where it is written.
    if let Some(choice) = on_unapproved {
        for spec in &mut config.hooks {
            spec.on_unapproved.get_or_insert(choice);
        }
    }
    if let Some(node) = webhooks {
        webhook::read_all(&mut config, node, &file);
    }
    if !config.enabled {
        switch_off(&mut config, &file);
    }
    Ok(config)
}

/// Reads `.hooks/*.yaml` and `*.yml` (one entry each, or an extension file: see
/// [`load_layers`](super::load_layers)), in file-name order; `enabled` is the project's
/// switch (without it the hooks land in `dormant`).
///
/// A missing directory is an empty result; a broken file is a problem, the others load.
/// `Err` only when the directory exists but cannot be listed.
pub fn load_hooks_dir(dir: &Path, enabled: bool) -> Result<LoadedConfig, Problem> {
    list_dir(dir)?;
    Ok(load_layers(
        &[(Layer::Workspace, dir.to_path_buf())],
        enabled,
    ))
}

/// Reads one entry into `config.hooks`, or its problems into `config.problems`.
pub(super) fn read_entry_into(
    config: &mut LoadedConfig,
    node: &Node,
    default_id: Option<&str>,
    file: &Arc<PathBuf>,
) {
    let read = entry::read(node, default_id, file);
    match read.result {
        Ok(spec) => config.add(spec, true),
        Err(issues) => {
            for (pos, message) in issues.0 {
                let message = match &read.id {
                    Some(id) => format!("hook `{id}` skipped: {message}"),
                    None => format!("hook entry skipped: {message}"),
                };
                config
                    .problems
                    .push(Problem::at(file, pos, read.id.clone(), message));
            }
        }
    }
}

/// Moves every hook to `dormant`: the project is not switched on.
pub(super) fn switch_off(config: &mut LoadedConfig, source: &Path) {
    if !config.hooks.is_empty() {
        tracing::info!(
            source = %source.display(),
            hooks = config.hooks.len(),
            "config hooks are off (no `enabled: true` in the project file): none will run"
        );
    }
    config.dormant.append(&mut config.hooks);
    if !config.webhooks.is_empty() {
        tracing::info!(
            source = %source.display(),
            webhooks = config.webhooks.len(),
            "webhooks are off (no `enabled: true` in the project file): none will be sent"
        );
    }
    config.dormant_webhooks.append(&mut config.webhooks);
}

fn read_allow(node: &Node, file: &Arc<PathBuf>, issues: &mut Issues) -> Vec<AllowEntry> {
    let items: Vec<&Node> = match &node.value {
        Value::Seq(items) => items.iter().collect(),
        Value::Str(_) => vec![node],
        Value::Null => Vec::new(),
        other => {
            issues.push(
                node.pos,
                format!("`allow` must be a list of strings, found {}", other.kind()),
            );
            return Vec::new();
        }
    };
    items
        .into_iter()
        .filter_map(|item| {
            let pattern = fields::non_empty(item, "allow", issues)?;
            // A refused entry is reported here, so that `hooks validate` and a reload see it
            // (a reload that silently lost an entry would stop hooks it admitted).
            if let Err(e) = crate::trust::AllowList::new([pattern]) {
                let reason = match e {
                    crate::trust::TrustError::Pattern { reason, .. } => reason,
                    other => other.to_string(),
                };
                issues.push(
                    item.pos,
                    format!("allow entry `{pattern}` left out: {reason}"),
                );
                return None;
            }
            Some(AllowEntry {
                pattern: pattern.to_owned(),
                location: location(file, item.pos),
            })
        })
        .collect()
}
