//! Hook directories in layers (seed 002): built-in, then user, then workspace (`.hooks/`).
//!
//! Each layer is a directory of `*.yaml` / `*.yml` files. The layers are read in the order
//! [`Layer::Builtin`], [`Layer::User`], [`Layer::Workspace`]; a file of a later layer replaces
//! the file of the *same file name* in an earlier one, which is then not read at all (the
//! winner records what it replaced: [`LayerFile::replaced`]). The files left are read in
//! file-name order across all layers, so numeric prefixes (`_10_log_all.yaml`,
//! `_50_filter.yaml`) set the order in which they are read and, through the default ids (the
//! file's stem), the order of hooks with the same `order`.
//!
//! A file holds either one hook entry (the `.hooks/` schema: a missing `id` is the file's
//! stem), or, when its top level has a `hooks:` list, an *extension file*:
//!
//! ```yaml
//! name: audit-extension      # shown by `hooks list`
//! version: "1.2.0"           # a string (quote numbers)
//! failOpen: false            # default `on_error` of its hooks: true = continue, false = deny
//! maxExecutionTime: 5000     # default timeout of its hooks, in ms (1 ms to one hour)
//! hooks:
//!   - { id: log_all, event_type: post_tool_use, handler: { command: ./log.sh } }
//! ```
//!
//! A missing `id` in an extension file is `<stem>[<index>]`. The file-level defaults apply
//! only to hooks that do not set `on_error` / `timeout_ms` themselves, and `failOpen: true`
//! never reaches a hook at a guard point (`pre_tool_use`, …): a guard fails closed unless its
//! own entry says `on_error: continue`, written where it applies (DESIGN §8: a file-wide
//! switch must not silently turn a guard's crash into an allow). Such a hook is noted in
//! [`LayerFile::notes`], which `hooks list` shows.
//!
//! Every layer follows the project's switch (`enabled: true` in the project file), as
//! `.hooks/` always did, and every hook of every layer goes through the same gate
//! ([`crate::trust`]): a command of the user layer runs only if the allow-list admits it or
//! it was approved, like any other.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::fields::{self, Fields, Issues};
use super::node::{Node, Value};
use super::{LoadedConfig, Problem, from_yaml, read_text};
use crate::spec::OnError;
use hookrail_core::KindId;

/// The fields of an extension file's top level.
const EXTENSION_FIELDS: &[&str] = &["name", "version", "failOpen", "maxExecutionTime", "hooks"];

/// Which layer of hook directories a file comes from, in loading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// Shipped with the program ([`Sources::builtin_dir`](super::Sources::builtin_dir)).
    Builtin,
    /// The user's own: `$XDG_CONFIG_HOME/hookrail/hooks/` by default
    /// ([`Sources::default_user_dir`](super::Sources::default_user_dir)).
    User,
    /// The project's `.hooks/`.
    Workspace,
}

impl Layer {
    /// The lowercase name: `builtin`, `user` or `workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Builtin => "builtin",
            Layer::User => "user",
            Layer::Workspace => "workspace",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One file read from a hook directory: its layer, what it replaced, and an extension file's
/// metadata and defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LayerFile {
    /// The layer it was read from.
    pub layer: Layer,
    /// The file.
    pub path: PathBuf,
    /// The files of the same name in earlier layers that it replaced (not read), earliest
    /// first.
    pub replaced: Vec<PathBuf>,
    /// An extension file's `name`.
    pub name: Option<String>,
    /// An extension file's `version`.
    pub version: Option<String>,
    /// An extension file's `failOpen`, as written.
    pub fail_open: Option<bool>,
    /// An extension file's `maxExecutionTime`.
    pub max_execution_time: Option<Duration>,
    /// What the defaults did not do, for `hooks list` (a `failOpen: true` that does not reach
    /// a guard).
    pub notes: Vec<String>,
}

impl LayerFile {
    fn new(layer: Layer, path: PathBuf, replaced: Vec<PathBuf>) -> Self {
        LayerFile {
            layer,
            path,
            replaced,
            name: None,
            version: None,
            fail_open: None,
            max_execution_time: None,
            notes: Vec::new(),
        }
    }
}

impl LoadedConfig {
    /// The hook-directory file `path` was read as (a hook's `location.file`), if it came from
    /// one.
    pub fn layer_file(&self, path: &Path) -> Option<&LayerFile> {
        self.layer_files.iter().find(|f| f.path == path)
    }
}

/// The `*.yaml` and `*.yml` files of a directory; a missing directory has none.
pub(super) fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, Problem> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Problem::file(
                dir,
                format!("cannot list the directory: {e}"),
            ));
        }
    };
    Ok(listing
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            matches!(
                path.extension().and_then(OsStr::to_str),
                Some("yaml" | "yml")
            ) && path.is_file()
        })
        .collect())
}

/// Reads hook directories in layers (in the order given, which should be the layers' order):
/// same file name in a later layer replaces the earlier file; the rest is read in file-name
/// order. `enabled` is the project's switch (without it the hooks land in `dormant`). A
/// directory that cannot be listed is a problem; the other layers load.
pub fn load_layers(dirs: &[(Layer, PathBuf)], enabled: bool) -> LoadedConfig {
    let mut config = LoadedConfig {
        enabled,
        ..LoadedConfig::default()
    };
    // (file name, layer, path, replaced), one per name.
    let mut chosen: Vec<(std::ffi::OsString, Layer, PathBuf, Vec<PathBuf>)> = Vec::new();
    for (layer, dir) in dirs {
        let mut paths = match list_dir(dir) {
            Ok(paths) => paths,
            Err(problem) => {
                config.problems.push(problem);
                continue;
            }
        };
        paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
        for path in paths {
            let Some(name) = path.file_name().map(OsStr::to_os_string) else {
                continue;
            };
            match chosen.iter_mut().find(|(n, ..)| *n == name) {
                // Two files of one name in one layer cannot happen; a later layer wins.
                Some(slot) => {
                    tracing::info!(
                        file = %path.display(),
                        replaces = %slot.2.display(),
                        layer = %layer,
                        "a hook file replaces the one of the same name in an earlier layer"
                    );
                    let earlier = std::mem::replace(&mut slot.2, path);
                    slot.3.push(earlier);
                    slot.1 = *layer;
                }
                None => chosen.push((name, *layer, path, Vec::new())),
            }
        }
    }
    chosen.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, layer, path, replaced) in chosen {
        let mut layer_file = LayerFile::new(layer, path.clone(), replaced);
        read_file(&mut config, &mut layer_file);
        config.files.push(path);
        config.layer_files.push(layer_file);
    }
    if !enabled {
        let source = dirs
            .last()
            .map_or_else(PathBuf::new, |(_, dir)| dir.clone());
        super::project::switch_off(&mut config, &source);
    }
    config
}

/// Reads one hook-directory file: one entry, or an extension file.
fn read_file(config: &mut LoadedConfig, layer_file: &mut LayerFile) {
    let path = layer_file.path.clone();
    let file = Arc::new(path.clone());
    let node = match read_text(&path).and_then(|text| {
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        from_yaml::parse(&text).map_err(|(pos, message)| {
            Problem::at(&file, pos, None, format!("invalid YAML: {message}"))
        })
    }) {
        Ok(node) => node,
        Err(problem) => {
            config.problems.push(problem);
            return;
        }
    };
    if node.value == Value::Null {
        config.problems.push(Problem::at(
            &file,
            node.pos,
            None,
            "empty hook file: expected one hook entry, or `hooks:` with a list of entries"
                .to_owned(),
        ));
        return;
    }
    let stem = path.file_stem().and_then(OsStr::to_str).unwrap_or("hook");
    let is_extension = matches!(&node.value, Value::Map(entries) if entries.iter().any(|(k, _)| k.name == "hooks"));
    if !is_extension {
        super::project::read_entry_into(config, &node, Some(stem), &file);
        return;
    }
    read_extension(config, layer_file, &node, stem, &file);
}

/// Reads an extension file: metadata, file-level defaults, and its `hooks:` entries.
fn read_extension(
    config: &mut LoadedConfig,
    layer_file: &mut LayerFile,
    node: &Node,
    stem: &str,
    file: &Arc<PathBuf>,
) {
    let mut issues = Issues::default();
    let mut entries: Vec<&Node> = Vec::new();
    if let Some(mut f) = Fields::of(node, "an extension file", &mut issues) {
        layer_file.name = f
            .take("name")
            .and_then(|n| fields::non_empty(n, "name", &mut issues))
            .map(str::to_owned);
        layer_file.version = f.take("version").and_then(|n| match &n.value {
            Value::Int(_) | Value::Float(_) => {
                issues.push(
                    n.pos,
                    format!(
                        "`version`: expected a string, found {}; quote it (version: \"{}\")",
                        n.value.kind(),
                        n.value.key_text()
                    ),
                );
                None
            }
            _ => fields::non_empty(n, "version", &mut issues).map(str::to_owned),
        });
        // A bad value is reported and the points' defaults kept.
        layer_file.fail_open = f
            .take("failOpen")
            .and_then(|n| fields::boolean(n, "failOpen", &mut issues));
        layer_file.max_execution_time = f.take("maxExecutionTime").and_then(|n| {
            let max = super::handler::MAX_TIMEOUT.as_millis() as i128;
            fields::integer(n, "maxExecutionTime", 1, max, &mut issues)
                .map(|ms| Duration::from_millis(ms as u64))
        });
        if let Some(n) = f.take("hooks") {
            match &n.value {
                Value::Seq(items) => entries = items.iter().collect(),
                Value::Null => {}
                other => issues.push(
                    n.pos,
                    format!(
                        "`hooks` must be a list of hook entries, found {}",
                        other.kind()
                    ),
                ),
            }
        }
        f.finish("an extension file", EXTENSION_FIELDS, |_| None, &mut issues);
    }
    for (pos, message) in issues.0 {
        config.problems.push(Problem::at(file, pos, None, message));
    }
    let first_new = config.hooks.len();
    for (i, entry) in entries.into_iter().enumerate() {
        let default_id = format!("{stem}[{i}]");
        super::project::read_entry_into(config, entry, Some(&default_id), file);
    }
    for spec in &mut config.hooks[first_new..] {
        if spec.timeout.is_none() {
            spec.timeout = layer_file.max_execution_time;
        }
        if spec.on_error.is_some() {
            continue;
        }
        let guard = crate::events::kind_of(spec.point) == Some(KindId::Guard);
        match layer_file.fail_open {
            Some(false) => spec.on_error = Some(OnError::Deny),
            Some(true) if guard => layer_file.notes.push(format!(
                "`failOpen: true` does not apply to guard `{}` ({}): it fails closed unless its entry says `on_error: continue`",
                spec.id, spec.point
            )),
            Some(true) => spec.on_error = Some(OnError::Continue),
            None => {}
        }
    }
}
