//! The set of files a program reads its configured hooks from, loaded as one.

use std::path::{Path, PathBuf};

use super::{
    Layer, LoadedConfig, Problem, load_claude_managed, load_claude_plugin, load_claude_settings,
    load_layers, load_project_layered,
};
use crate::file::load_project_file;

/// Where configured hooks come from: a project (its `hooks.yaml` or `.toml`/`.json` and its
/// `.hooks/` directory), single project-schema files, Claude Code settings files and plugins,
/// and hook directories of the built-in and user layers, read before each project's `.hooks/`
/// (see [`load_layers`]: a same-named file of a later layer replaces an earlier one).
///
/// Claude Code files get their path as an id prefix (`.claude/settings.json:PreToolUse[0].hooks[0]`),
/// because their ids come from positions and two files have the same positions.
///
/// ```
/// use hookrail_config::file::Sources;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("hooks.yaml"), "enabled: true\nhooks: []\n").unwrap();
/// let sources = Sources::new().project(dir.path());
/// let config = sources.load().unwrap();
/// assert!(config.enabled);
/// assert_eq!(sources.watched_paths(), [dir.path().to_path_buf(), dir.path().join(".hooks")]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct Sources {
    projects: Vec<PathBuf>,
    files: Vec<PathBuf>,
    claude_settings: Vec<PathBuf>,
    managed: Vec<PathBuf>,
    plugins: Vec<PathBuf>,
    layers: Vec<(Layer, PathBuf)>,
}

impl Sources {
    /// No sources.
    pub fn new() -> Self {
        Sources::default()
    }

    /// A project root: its project file and `.hooks/` directory ([`load_project`](super::load_project)).
    pub fn project(mut self, root: impl Into<PathBuf>) -> Self {
        self.projects.push(root.into());
        self
    }

    /// One file of our schema ([`load_project_file`]).
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.files.push(path.into());
        self
    }

    /// A Claude Code `settings.json` ([`load_claude_settings`]).
    pub fn claude_settings(mut self, path: impl Into<PathBuf>) -> Self {
        self.claude_settings.push(path.into());
        self
    }

    /// A Claude Code managed settings file (`managed-settings.json`, [`load_claude_managed`]):
    /// its hooks are read first; when it sets `allowManagedHooksOnly: true`, the hooks of every
    /// other source are kept from running (listed as dormant, with a note naming the file), as
    /// Claude Code does. The builtin policies are not hooks of any file and stay on.
    pub fn managed_settings(mut self, path: impl Into<PathBuf>) -> Self {
        self.managed.push(path.into());
        self
    }

    /// A Claude Code plugin root, whose `hooks/hooks.json` is read ([`load_claude_plugin`]).
    pub fn plugin(mut self, root: impl Into<PathBuf>) -> Self {
        self.plugins.push(root.into());
        self
    }

    /// A hook directory of the built-in layer (shipped with the program), read first.
    pub fn builtin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.layers.push((Layer::Builtin, dir.into()));
        self.layers.sort_by_key(|(layer, _)| *layer);
        self
    }

    /// A hook directory of the user layer, read after the built-in layer and before the
    /// project's `.hooks/`; usually [`Sources::default_user_dir`]. A directory that does not
    /// exist is an empty layer.
    pub fn user_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.layers.push((Layer::User, dir.into()));
        self.layers.sort_by_key(|(layer, _)| *layer);
        self
    }

    /// The user layer's default directory: `$XDG_CONFIG_HOME/hookrail/hooks` when that
    /// variable is an absolute path (as XDG asks), else `$HOME/.config/hookrail/hooks`;
    /// `None` when neither is set.
    pub fn default_user_dir() -> Option<PathBuf> {
        hookrail_forward::locations::user_hooks_dir()
    }

    /// The hook directories, in reading order: the built-in and user layers, then each
    /// project's `.hooks/` (the workspace layer).
    pub fn hook_dirs(&self) -> Vec<(Layer, PathBuf)> {
        let mut dirs = self.layers.clone();
        dirs.extend(
            self.projects
                .iter()
                .map(|root| (Layer::Workspace, root.join(".hooks"))),
        );
        dirs
    }

    /// True when no source was given.
    pub fn is_empty(&self) -> bool {
        self.projects.is_empty()
            && self.files.is_empty()
            && self.claude_settings.is_empty()
            && self.managed.is_empty()
            && self.plugins.is_empty()
            && self.layers.is_empty()
    }

    /// Reads every source and merges them ([`LoadedConfig::merge`]) in the order: projects
    /// (each with the built-in and user layers before its `.hooks/`), files, Claude Code
    /// settings, plugins.
    ///
    /// The built-in and user layers follow the project's switch. Without a project (single
    /// files only), they are read once, after the files, switched on when one of the files is.
    ///
    /// # Errors
    ///
    /// The problems of every source that could not be read at all (a file that does not
    /// parse, two project files in one root); the other sources are still read, so every
    /// such problem is reported at once.
    pub fn load(&self) -> Result<LoadedConfig, Vec<Problem>> {
        let mut parts = Vec::new();
        let mut fatal = Vec::new();
        let mut managed = Vec::new();
        let mut managed_only = None;
        for path in &self.managed {
            match load_claude_managed(path) {
                Ok((mut config, only)) => {
                    config.prefix_ids(&format!("{}:", path.display()));
                    if only && managed_only.is_none() {
                        managed_only = Some(path.clone());
                    }
                    managed.push(config);
                }
                Err(problem) => fatal.push(problem),
            }
        }
        let mut take = |loaded: Result<LoadedConfig, Problem>, prefix: Option<&Path>| match loaded {
            Ok(mut config) => {
                if let Some(path) = prefix {
                    config.prefix_ids(&format!("{}:", path.display()));
                }
                parts.push(config);
            }
            Err(problem) => fatal.push(problem),
        };
        for root in &self.projects {
            take(load_project_layered(root, &self.layers), None);
        }
        let files: Vec<_> = self.files.iter().map(|p| load_project_file(p)).collect();
        let files_enabled = files.iter().any(|f| f.as_ref().is_ok_and(|c| c.enabled));
        for loaded in files {
            take(loaded, None);
        }
        if self.projects.is_empty() && !self.layers.is_empty() {
            take(Ok(load_layers(&self.layers, files_enabled)), None);
        }
        for path in &self.claude_settings {
            take(load_claude_settings(path), Some(path));
        }
        for root in &self.plugins {
            take(
                load_claude_plugin(root),
                Some(&root.join("hooks").join("hooks.json")),
            );
        }
        if let Some(policy) = &managed_only {
            for part in &mut parts {
                part.managed_hooks_only(policy);
            }
        }
        if fatal.is_empty() {
            Ok(LoadedConfig::merge(managed.into_iter().chain(parts)))
        } else {
            Err(fatal)
        }
    }

    /// The configuration files that exist and hold nothing but white space: every file named
    /// by a source, each project's project file, and the files of the hook directories.
    /// [`Reloader`](crate::reload::Reloader) takes such a file as one still being written (an
    /// editor that truncates and then writes), never as a configuration without hooks.
    pub fn empty_files(&self) -> Vec<PathBuf> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        for root in &self.projects {
            candidates.extend(
                super::project::PROJECT_FILES
                    .iter()
                    .map(|name| root.join(name)),
            );
        }
        candidates.extend(self.named_files());
        let dirs = self
            .layers
            .iter()
            .map(|(_, dir)| dir.clone())
            .chain(self.projects.iter().map(|root| root.join(".hooks")));
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            candidates.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| matches!(e, "yaml" | "yml" | "toml" | "json"))
                    }),
            );
        }
        candidates
            .into_iter()
            .filter(|path| {
                std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() < 4096)
                    && std::fs::read(path)
                        .is_ok_and(|bytes| bytes.iter().all(u8::is_ascii_whitespace))
            })
            .collect()
    }

    /// What to watch for changes: the built-in and user hook directories, project roots and
    /// their `.hooks/` directories, and every file (a plugin's `hooks/hooks.json`).
    pub fn watched_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.layers.iter().map(|(_, dir)| dir.clone()).collect();
        for root in &self.projects {
            paths.push(root.clone());
            paths.push(root.join(".hooks"));
        }
        paths.extend(self.named_files());
        paths
    }

    /// The files named one by one: `--config` files, Claude settings and managed settings,
    /// and each plugin's `hooks/hooks.json`.
    fn named_files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.files
            .iter()
            .chain(&self.claude_settings)
            .chain(&self.managed)
            .cloned()
            .chain(
                self.plugins
                    .iter()
                    .map(|p| p.join("hooks").join("hooks.json")),
            )
    }
}

impl LoadedConfig {
    /// `allowManagedHooksOnly` of the managed file `policy`: this part's hooks do not run
    /// (they become dormant, so answers list them), and a note says why.
    fn managed_hooks_only(&mut self, policy: &Path) {
        if self.hooks.is_empty() {
            return;
        }
        let count = self.hooks.len();
        let first = self.hooks[0].location.clone();
        self.dormant.append(&mut self.hooks);
        self.notes.push(Problem {
            location: first,
            hook_id: None,
            message: format!(
                "`allowManagedHooksOnly` in {}: {count} hook(s) of this file do not run (only managed hooks do)",
                policy.display()
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_dir_comes_from_xdg_config_home_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert_eq!(
            hookrail_forward::locations::user_hooks_dir_from(env(&[
                ("XDG_CONFIG_HOME", "/xdg"),
                ("HOME", "/home/me")
            ])),
            Some(PathBuf::from("/xdg/hookrail/hooks"))
        );
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec asks.
        assert_eq!(
            hookrail_forward::locations::user_hooks_dir_from(env(&[
                ("XDG_CONFIG_HOME", "rel"),
                ("HOME", "/home/me")
            ])),
            Some(PathBuf::from("/home/me/.config/hookrail/hooks"))
        );
        assert_eq!(
            hookrail_forward::locations::user_hooks_dir_from(env(&[])),
            None
        );
    }

    #[test]
    fn layers_are_kept_in_layer_order() {
        let sources = Sources::new()
            .project("/p")
            .user_dir("/u")
            .builtin_dir("/b");
        assert_eq!(
            sources.hook_dirs(),
            [
                (Layer::Builtin, PathBuf::from("/b")),
                (Layer::User, PathBuf::from("/u")),
                (Layer::Workspace, PathBuf::from("/p/.hooks")),
            ]
        );
    }
}
