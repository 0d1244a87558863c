//! The set of files a program reads its configured hooks from, loaded as one.

use std::path::{Path, PathBuf};

use super::{LoadedConfig, Problem, load_claude_plugin, load_claude_settings, load_project};
use crate::file::load_project_file;

/// Where configured hooks come from: a project (its `hooks.yaml` or `.toml`/`.json` and its
/// `.hooks/` directory), single project-schema files, Claude Code settings files and plugins.
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
    plugins: Vec<PathBuf>,
}

impl Sources {
    /// No sources.
    pub fn new() -> Self {
        Sources::default()
    }

    /// A project root: its project file and `.hooks/` directory ([`load_project`]).
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

    /// A Claude Code plugin root, whose `hooks/hooks.json` is read ([`load_claude_plugin`]).
    pub fn plugin(mut self, root: impl Into<PathBuf>) -> Self {
        self.plugins.push(root.into());
        self
    }

    /// True when no source was given.
    pub fn is_empty(&self) -> bool {
        self.projects.is_empty()
            && self.files.is_empty()
            && self.claude_settings.is_empty()
            && self.plugins.is_empty()
    }

    /// Reads every source and merges them ([`LoadedConfig::merge`]) in the order: projects,
    /// files, Claude Code settings, plugins.
    ///
    /// # Errors
    ///
    /// The problems of every source that could not be read at all (a file that does not
    /// parse, two project files in one root); the other sources are still read, so every
    /// such problem is reported at once.
    pub fn load(&self) -> Result<LoadedConfig, Vec<Problem>> {
        let mut parts = Vec::new();
        let mut fatal = Vec::new();
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
            take(load_project(root), None);
        }
        for path in &self.files {
            take(load_project_file(path), None);
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
        if fatal.is_empty() {
            Ok(LoadedConfig::merge(parts))
        } else {
            Err(fatal)
        }
    }

    /// What to watch for changes: project roots and their `.hooks/` directories, and every
    /// file (a plugin's `hooks/hooks.json`).
    pub fn watched_paths(&self) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for root in &self.projects {
            paths.push(root.clone());
            paths.push(root.join(".hooks"));
        }
        paths.extend(self.files.iter().cloned());
        paths.extend(self.claude_settings.iter().cloned());
        paths.extend(
            self.plugins
                .iter()
                .map(|p| p.join("hooks").join("hooks.json")),
        );
        paths
    }
}
