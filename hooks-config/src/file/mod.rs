//! Reading config files into [`HookSpec`]s, each entry validated on its own.
//!
//! # Sources
//!
//! - The project file, `hooks.yaml` (or `hooks.yml`, `hooks.toml`, `hooks.json`): our schema,
//!   below. [`load_project`] reads it and the `.hooks/` directory of a project root;
//!   [`load_project_file`] and [`parse_project`] read one file or string.
//! - `.hooks/*.yaml` and `.hooks/*.yml` ([`load_hooks_dir`]): one hook entry per file, in the
//!   same entry schema, read in file-name order. A missing `id` defaults to the file's stem.
//! - Hook directories in layers ([`load_layers`], [`load_project_layered`]): built-in and user
//!   directories (`$XDG_CONFIG_HOME/hookrail/hooks/`) read before `.hooks/`, a same-named file
//!   of a later layer replacing the earlier one, and extension files with `name`, `version`,
//!   `failOpen` and `maxExecutionTime` ([`LayerFile`]); see [`Layer`].
//! - Claude Code's `settings.json` ([`load_claude_settings`]) and a plugin's
//!   `hooks/hooks.json` ([`load_claude_plugin`]), read as they are: see [`claude`].
//!
//! # The switch
//!
//! Command hooks run code, so the feature is off unless the project file says
//! `enabled: true` (seed 004). Hooks of a project that is not switched on are still read and
//! validated (problems are reported), but land in [`LoadedConfig::dormant`], not
//! [`LoadedConfig::hooks`]; `.hooks/` files follow the project file's switch. A Claude Code
//! file needs no switch: loading one is the explicit act (Claude Code has none either), but its
//! `disableAllHooks: true` is honoured.
//!
//! # Never dropping everything
//!
//! One bad entry never costs the others (Claude Code once lost every hook for 30 hours to one
//! bad matcher). Each entry is read and validated on its own; an entry with problems is
//! skipped, and each problem is reported as a [`Problem`] with file, line, column and reason:
//! unknown event (with a "did you mean"), invalid matcher regex or glob, missing handler, both
//! `command` and `args`, empty command, a timeout that is not between 1 ms and one hour,
//! unknown fields (typos), duplicate ids. Only a file that does not parse at all is rejected
//! as a whole: the loader then returns `Err` with that one problem and its position.
//!
//! # Our schema
//!
//! ```
//! use hookrail_config::file::{parse_project, Format};
//! use hookrail_config::spec::{CommandLine, Handler, OnUnapproved};
//! use std::path::Path;
//! use std::time::Duration;
//!
//! let yaml = r#"
//! enabled: true          # off unless exactly `true`
//! sequential: false      # true: matching command hooks run in order, rewrites chained
//! on_unapproved: deny    # default of this file's hooks that the gate refuses, see below
//! allow:                 # command allow-list entries (interpreted by crate::trust)
//!   - ./scripts/hooks/*
//! builtin:               # the builtin policies' settings (validated by them)
//!   secrets_guard: {}
//! hooks:
//!   - id: prod_config_guard
//!     event_type: PreAbilityCall   # ours (pre_tool_use), Claude Code's or the seeds' names
//!     enabled: true                # default true; false: listed, never run
//!     blocking: true               # default true; false: decisions are logged, not applied
//!     summary: Keep the AI out of production configs.
//!     match:
//!       matcher: Edit|Write        # Claude Code matcher over the tool name
//!       ability_scope: "*"         # glob or list of globs over the tool name
//!     handler:
//!       kind: command              # command (or script: the same) | http
//!       command: ./scripts/hooks/prod_config_guard.py   # shell form: sh -c
//!       env: { GUARD_MODE: strict }
//!     timeout_ms: 5000             # or `timeout: 5` in seconds, as Claude Code; 1 ms to 1 h
//!     on_error: deny               # continue | deny; default: guards deny, others continue
//!     on_unapproved: deny          # deny | skip; default: guards deny, others skip
//!     order: -10                   # lower runs first; ties by id
//!     effects: [enforce_prod_safety]
//!   - id: usage_tracker
//!     event_type: post_tool_use
//!     blocking: false
//!     match: { min_duration_ms: 100 }
//!     handler: { args: [./scripts/hooks/track.py, --slow] }   # exec form: no shell
//!   - id: audit_webhook
//!     event_type: SessionEnd
//!     handler:
//!       kind: http
//!       url: https://audit.example.com/hooks
//!       headers: { Authorization: "Bearer ${AUDIT_TOKEN}" }
//! webhooks:                        # signed POSTs of bus events (seed 002), see below
//!   - id: siem
//!     hook: [pre_tool_use, stop]   # point names (ours, Claude Code's, the seeds'), or "*"
//!     events: [deployed]           # custom event names the program emits
//!     url: https://siem.example.com/api/events
//!     secret: ${WEBHOOK_SECRET}    # the HMAC-SHA256 key, expanded at start (or `unsigned: true`)
//!     timeout_ms: 5000             # per request (or `timeout` in seconds)
//!     retries: 3                   # 5xx, timeouts and refused connections are retried
//!     queue: 1024                  # events waiting beyond this are dropped and counted
//! "#;
//! let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
//! assert!(config.problems.is_empty(), "{:?}", config.problems);
//! assert!(config.enabled);
//! assert_eq!(config.allow[0].pattern, "./scripts/hooks/*");
//! let guard = &config.hooks[0];
//! assert_eq!((guard.point, guard.timeout), ("pre_tool_use", Some(Duration::from_millis(5000))));
//! assert_eq!(guard.location.to_string(), "hooks.yaml:10:5");
//! assert_eq!(guard.on_unapproved, Some(OnUnapproved::Deny));
//! let Handler::Command(tracker) = &config.hooks[1].handler else { panic!() };
//! assert_eq!(tracker.line, CommandLine::Exec(vec!["./scripts/hooks/track.py".into(), "--slow".into()]));
//! assert!(matches!(config.hooks[2].handler, Handler::Http(_)));
//! assert_eq!(config.webhooks[0].event_names(), ["pre_tool_use", "stop", "deployed"]);
//! ```
//!
//! `on_unapproved` says what a hook means when the gate ([`crate::trust`]) refuses to run it
//! (not on the allow-list, not approved, changed since its approval, URL not allowed): `deny`
//! fails closed, naming the hook and the command that approves it; `skip` goes on without it,
//! with a notice in the answer. Unset, a hook takes the point's default: `deny` at guard
//! points, `skip` elsewhere (see [`crate::runner`]). At the top of a project file it is the
//! default of that file's entries (an entry's own setting wins); it does not reach `.hooks/`
//! files, which set it themselves, nor Claude Code files, which have no such field. Only
//! `deny` and `skip` are accepted: another value is a problem at its position (in an entry,
//! the entry is skipped; at the top, the point's default stays).
//!
//! `webhooks:` entries follow the same rules: each is checked on its own and a bad one is
//! skipped with its position; they follow the project's `enabled: true` switch (without it
//! they land in [`LoadedConfig::dormant_webhooks`]); and a webhook's URL must be admitted by
//! the `allow:` list, like an HTTP hook's, before anything is sent to it. The sender is
//! `hookrail-telemetry`'s (feature `webhooks`).
//!
//! The same in TOML: top-level keys, then one `[[hooks]]` table per entry (with
//! `[hooks.match]` and `[hooks.handler]` sub-tables); in JSON: the same object. YAML is read
//! with strict booleans: `yes`, `no`, `on` and `off` are strings, so `enabled: yes` is
//! reported rather than guessed.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::spec::{HookSpec, Location, WebhookSpec};

pub mod claude;
mod entry;
mod fields;
mod from_json;
mod from_toml;
mod from_yaml;
mod handler;
mod layers;
mod merge;
mod node;
mod project;
mod sources;
mod webhook;

pub use claude::{load_claude_managed, load_claude_plugin, load_claude_settings, parse_claude};
pub use layers::{Layer, LayerFile, load_layers};
pub use project::{
    load_hooks_dir, load_project, load_project_file, load_project_layered, parse_project,
};
pub use sources::Sources;

use node::{Node, Pos};

/// Files larger than this are refused (configs are small; this bounds memory).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What was read from one or more config files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedConfig {
    /// Whether the project switched config hooks on (`enabled: true`). After
    /// [`merge`](LoadedConfig::merge): whether any part did.
    pub enabled: bool,
    /// `sequential: true`: matching command hooks run one after another, in order, each seeing
    /// the input as rewritten by the one before, instead of in parallel (Claude Code's way,
    /// where the last rewrite to finish wins). Default false.
    pub sequential: bool,
    /// The command allow-list entries, as written (interpreted by [`crate::trust`]).
    pub allow: Vec<AllowEntry>,
    /// The `builtin:` section: the builtin policies' settings, validated by them.
    pub builtin: Option<BuiltinSettings>,
    /// The hooks that may run, in file order.
    pub hooks: Vec<HookSpec>,
    /// Valid hooks that will not run because their project is not switched on.
    pub dormant: Vec<HookSpec>,
    /// The `webhooks:` entries (sent by `hookrail-telemetry`), in file order.
    pub webhooks: Vec<WebhookSpec>,
    /// Valid webhooks that will not be sent because their project is not switched on.
    pub dormant_webhooks: Vec<WebhookSpec>,
    /// Everything that was wrong, skipped or ignored.
    pub problems: Vec<Problem>,
    /// What is worth knowing but changed nothing that runs (a Claude Code handler with keys
    /// we do not know, loaded without them; a matcher on an event that has none, which
    /// Claude Code ignores too). Unlike [`problems`](Self::problems) these never block: they
    /// are for `hooks validate` and a daemon's log at load, not for every answer.
    pub notes: Vec<Problem>,
    /// The files read.
    pub files: Vec<PathBuf>,
    /// The files read from hook directories (`.hooks/`, the user and built-in layers): their
    /// layer, what each replaced, extension metadata ([`LayerFile`]), in reading order.
    pub layer_files: Vec<LayerFile>,
}

/// One entry of the `allow:` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowEntry {
    /// The entry as written.
    pub pattern: String,
    /// Where.
    pub location: Location,
}

/// The `builtin:` section, as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltinSettings {
    /// The settings.
    pub value: serde_json::Value,
    /// Where the section starts.
    pub location: Location,
}

/// Something wrong in a config file: where, which hook (when known) and what.
///
/// Displays as `file:line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct Problem {
    /// Where (line and column 0 when the file as a whole is concerned).
    pub location: Location,
    /// The hook's id, when the problem concerns one hook and it has an id.
    pub hook_id: Option<String>,
    /// What is wrong and what was done about it.
    pub message: String,
}

impl Problem {
    fn at(file: &Arc<PathBuf>, pos: Pos, hook_id: Option<String>, message: String) -> Self {
        Problem {
            location: entry::location(file, pos),
            hook_id,
            message,
        }
    }

    pub(crate) fn file(file: &Path, message: String) -> Self {
        Problem::at(&Arc::new(file.to_path_buf()), Pos::default(), None, message)
    }
}

/// A config file's syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.yaml`, `.yml`.
    Yaml,
    /// `.toml`.
    Toml,
    /// `.json`.
    Json,
}

impl Format {
    /// The format a file name's extension names.
    ///
    /// ```
    /// use hookrail_config::file::Format;
    /// assert_eq!(Format::from_path("x/hooks.yml".as_ref()), Some(Format::Yaml));
    /// assert_eq!(Format::from_path("hooks.ini".as_ref()), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "yaml" | "yml" => Some(Format::Yaml),
            "toml" => Some(Format::Toml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    fn parse(self, text: &str) -> Result<Node, (Pos, String)> {
        match self {
            Format::Yaml => from_yaml::parse(text),
            Format::Toml => from_toml::parse(text),
            Format::Json => from_json::parse(text),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Yaml => "YAML",
            Format::Toml => "TOML",
            Format::Json => "JSON",
        })
    }
}

/// Parses text, turning a syntax error into the file's one problem.
fn parse_text(text: &str, format: Format, file: &Arc<PathBuf>) -> Result<Node, Problem> {
    format
        .parse(text.strip_prefix('\u{feff}').unwrap_or(text))
        .map_err(|(pos, message)| {
            Problem::at(file, pos, None, format!("invalid {format}: {message}"))
        })
}

/// Reads a config file as UTF-8 text.
fn read_text(path: &Path) -> Result<String, Problem> {
    let fail = |what: String| Problem::file(path, what);
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(fail(format!(
            "too large to be a config file ({} bytes; the limit is {MAX_FILE_BYTES})",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        let pos = node::LineIndex::new(&prefix).pos(prefix.len());
        Problem::at(
            &Arc::new(path.to_path_buf()),
            pos,
            None,
            "not valid UTF-8".to_owned(),
        )
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_claude;
