//! Hot reload: watching the config files and swapping the hook set when a good edit lands.
//!
//! [`Reloader::watch`] watches the directories of a [`Sources`] (directories rather than
//! files, because editors save by writing a new file and renaming it over the old one): every
//! project root and its `.hooks/`, the built-in and user hook directories (a layer directory
//! that does not exist yet is noticed through its parent), and the parent of every file. After
//! a change, and [`DEBOUNCE`] of quiet, it reads every source again:
//!
//! - **a good edit** (every file parses and no entry has a problem) replaces the set of the
//!   [`ConfigHooks`] atomically ([`ConfigHooks::replace`]): a dispatch runs the old set or the
//!   new one, never a mix;
//! - **a bad edit** (a file that does not parse, or any entry with a problem) keeps the last
//!   good set running and reports every problem. A typo in one guard's entry must not make
//!   that guard vanish while the agent runs; at startup the same entry is skipped and the
//!   rest load, because there is no last good set to keep;
//! - **an empty file** (nothing but white space) is a bad edit too: an editor that truncates
//!   before it writes leaves one for a moment, and read as a configuration without hooks it
//!   would drop every configured guard ([`Sources::empty_files`]);
//! - a change that leaves the loaded configuration as it was changes nothing.
//!
//! Each reload's [`ReloadOutcome`] goes to the callback given to [`Reloader::watch`] and is
//! logged (`hookrail_config::reload`).
//!
//! ```
//! use hookrail_config::file::Sources;
//! use hookrail_config::reload::{ReloadOutcome, Reloader};
//! use hookrail_config::runner::ConfigHooks;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let file = dir.path().join("hooks.yaml");
//! std::fs::write(&file, "enabled: true\nhooks: []\n").unwrap();
//! let sources = Sources::new().project(dir.path());
//! let configured = ConfigHooks::builder(dir.path()).build(sources.load().unwrap()).unwrap();
//! let reloader = Reloader::new(configured.clone(), sources);
//!
//! std::fs::write(&file, "enabled: true\nhooks:\n  - { id: a, event_type: Stop, handler: { command: ./a.sh } }\n").unwrap();
//! assert!(matches!(reloader.reload(), ReloadOutcome::Applied { hooks: 1 }));
//! std::fs::write(&file, "enabled: true\nhooks:\n  - { id: a, event_type: Stopp, handler: { command: ./a.sh } }\n").unwrap();
//! assert!(matches!(reloader.reload(), ReloadOutcome::Rejected { .. }));
//! assert_eq!(configured.config().hooks[0].point, "stop"); // the last good set still runs
//! ```

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::file::{Layer, Problem, Sources};
use crate::runner::{ConfigHooks, RunnerError};

/// How long the files must be quiet after a change before they are read again (an editor's
/// save is several events).
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// What one reload did.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReloadOutcome {
    /// The new set runs now.
    Applied {
        /// How many hooks it has that may run.
        hooks: usize,
    },
    /// The files load to the configuration already running.
    Unchanged,
    /// The last good set keeps running; these are the reasons.
    Rejected {
        /// Every problem of the new files.
        problems: Vec<Problem>,
        /// The set could not be built from otherwise valid files.
        error: Option<RunnerError>,
    },
}

/// The watcher could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path}: {source}")]
pub struct WatchError {
    /// The directory.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: notify::Error,
}

type Callback = Arc<dyn Fn(&ReloadOutcome) + Send + Sync>;

/// Reloads a [`ConfigHooks`] from its [`Sources`], by hand ([`reload`](Reloader::reload)) or
/// on file changes ([`watch`](Reloader::watch)). Watching stops when the value is dropped.
pub struct Reloader {
    inner: Arc<Inner>,
}

struct Inner {
    hooks: ConfigHooks,
    sources: Sources,
    /// One reload at a time.
    lock: Mutex<()>,
    /// The watcher and the directories it watches (a `.hooks/` made later is added).
    watcher: Mutex<Option<(notify::RecommendedWatcher, Vec<PathBuf>)>>,
}

impl Reloader {
    /// A reloader that reloads only when asked.
    pub fn new(hooks: ConfigHooks, sources: Sources) -> Self {
        Reloader {
            inner: Arc::new(Inner {
                hooks,
                sources,
                lock: Mutex::new(()),
                watcher: Mutex::new(None),
            }),
        }
    }

    /// Watches the sources' files and reloads after each change, calling `on_reload` with
    /// every outcome (on the watcher's thread).
    ///
    /// # Errors
    ///
    /// [`WatchError`] when a directory cannot be watched (it must exist).
    pub fn watch(
        hooks: ConfigHooks,
        sources: Sources,
        on_reload: impl Fn(&ReloadOutcome) + Send + Sync + 'static,
    ) -> Result<Self, WatchError> {
        let reloader = Reloader::new(hooks, sources);
        let relevant = Relevant::new(&reloader.inner.sources);
        let (tx, rx) = mpsc::channel::<()>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
                Ok(event) if event.paths.iter().any(|p| relevant.matches(p)) => {
                    let _ = tx.send(());
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(target: "hookrail_config::reload", "watch error: {e}"),
            })
            .map_err(|source| WatchError {
                path: PathBuf::new(),
                source,
            })?;
        let mut watched = Vec::new();
        for dir in watch_dirs(&reloader.inner.sources) {
            watcher
                .watch(&dir, RecursiveMode::NonRecursive)
                .map_err(|source| WatchError {
                    path: dir.clone(),
                    source,
                })?;
            watched.push(dir);
        }
        *reloader
            .inner
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((watcher, watched));
        // Weak, so that dropping the `Reloader` drops the watcher, whose sender ends the loop.
        let inner = Arc::downgrade(&reloader.inner);
        let callback: Callback = Arc::new(on_reload);
        std::thread::Builder::new()
            .name("hooks-config-reload".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    while rx.recv_timeout(DEBOUNCE).is_ok() {}
                    let Some(inner) = inner.upgrade() else {
                        return;
                    };
                    let outcome = inner.reload();
                    inner.rewatch();
                    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&outcome)))
                        .is_err()
                    {
                        tracing::error!(target: "hookrail_config::reload", "the reload callback panicked");
                    }
                }
            })
            .map_err(|e| WatchError {
                path: PathBuf::new(),
                source: notify::Error::io(e),
            })?;
        Ok(reloader)
    }

    /// Reads the sources now and applies them if they are good.
    pub fn reload(&self) -> ReloadOutcome {
        self.inner.reload()
    }
}

impl std::fmt::Debug for Reloader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reloader")
            .field("sources", &self.inner.sources)
            .field(
                "watching",
                &self
                    .inner
                    .watcher
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_ref()
                    .map(|(_, dirs)| dirs.clone()),
            )
            .finish()
    }
}

impl Inner {
    /// Watches directories that appeared since (a `.hooks/` created after the start, or
    /// deleted and made again by a checkout).
    fn rewatch(&self) {
        let mut guard = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((watcher, watched)) = guard.as_mut() else {
            return;
        };
        for dir in watch_dirs(&self.sources) {
            // A directory that was removed and made again is a new inode: watch it again.
            let known = watched.contains(&dir);
            if known && !dir.is_dir() {
                continue;
            }
            match watcher.watch(&dir, RecursiveMode::NonRecursive) {
                Ok(()) if !known => watched.push(dir),
                Ok(()) => {}
                Err(e) => {
                    tracing::warn!(target: "hookrail_config::reload", dir = %dir.display(), "cannot watch: {e}")
                }
            }
        }
    }

    fn reload(&self) -> ReloadOutcome {
        let _one = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // A file emptied by an editor that truncates before it writes would otherwise load as
        // a configuration without hooks: every configured guard gone until the next event.
        let empty = self.sources.empty_files();
        let loaded = if empty.is_empty() {
            self.sources.load()
        } else {
            Err(empty
                .iter()
                .map(|path| {
                    Problem::file(
                        path,
                        "the file is empty: taken as one still being written, so the last good set keeps running (to turn its hooks off write `enabled: false`; to remove them delete the file)".to_owned(),
                    )
                })
                .collect())
        };
        let outcome = match loaded {
            Err(problems) => ReloadOutcome::Rejected {
                problems,
                error: None,
            },
            Ok(config) if !config.problems.is_empty() => ReloadOutcome::Rejected {
                problems: config.problems,
                error: None,
            },
            Ok(config) if config == *self.hooks.config() => ReloadOutcome::Unchanged,
            Ok(config) => {
                let hooks = config.hooks.iter().filter(|h| h.enabled).count();
                match self.hooks.replace(config) {
                    Ok(()) => ReloadOutcome::Applied { hooks },
                    Err(e) => ReloadOutcome::Rejected {
                        problems: Vec::new(),
                        error: Some(e),
                    },
                }
            }
        };
        match &outcome {
            ReloadOutcome::Applied { hooks } => {
                tracing::info!(target: "hookrail_config::reload", hooks, "configured hooks reloaded")
            }
            ReloadOutcome::Unchanged => {}
            ReloadOutcome::Rejected { problems, error } => {
                for p in problems {
                    tracing::error!(target: "hookrail_config::reload", "{p}");
                }
                if let Some(e) = error {
                    tracing::error!(target: "hookrail_config::reload", "{e}");
                }
                tracing::error!(target: "hookrail_config::reload", "config edit rejected; the last good hook set keeps running");
            }
        }
        outcome
    }
}

/// The directories to watch: each project root and its `.hooks/` (when it exists), and the
/// parent of every file.
fn watch_dirs(sources: &Sources) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let layers = layer_dirs(sources);
    for path in sources.watched_paths() {
        let dir = if path.is_dir() {
            path
        } else if layers.contains(&path) {
            // A built-in or user layer not made yet: its creation shows up in its parent, when
            // that exists; otherwise it is picked up by the next reload.
            match path.parent() {
                Some(p) if p.is_dir() => p.to_path_buf(),
                _ => continue,
            }
        } else if path.file_name().is_some_and(|n| n == ".hooks") {
            // Not there yet: its creation shows up in the project root, which is watched.
            continue;
        } else {
            match path.parent() {
                Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
                Some(p) => p.to_path_buf(),
                None => continue,
            }
        };
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// The built-in and user layers' directories (a project's `.hooks/` is handled with its root).
fn layer_dirs(sources: &Sources) -> Vec<PathBuf> {
    sources
        .hook_dirs()
        .into_iter()
        .filter(|(layer, _)| *layer != Layer::Workspace)
        .map(|(_, dir)| dir)
        .collect()
}

/// Which changed paths concern the sources (a project root also holds everything else of the
/// project).
struct Relevant {
    project_roots: Vec<PathBuf>,
    files: Vec<PathBuf>,
    /// Built-in and user hook directories: every file in them, and the directory itself.
    layer_dirs: Vec<PathBuf>,
}

impl Relevant {
    fn new(sources: &Sources) -> Self {
        let mut project_roots = Vec::new();
        let mut files = Vec::new();
        let layers = layer_dirs(sources);
        let layer_dirs = layers.iter().map(|d| canonical(d)).collect();
        for path in sources.watched_paths() {
            if path.file_name().is_some_and(|n| n == ".hooks") || layers.contains(&path) {
                continue;
            }
            if path.is_dir() {
                project_roots.push(canonical(&path));
            } else {
                files.push(canonical(&path));
            }
        }
        Relevant {
            project_roots,
            files,
            layer_dirs,
        }
    }

    fn matches(&self, path: &Path) -> bool {
        let path = canonical(path);
        if self.files.contains(&path) || self.layer_dirs.contains(&path) {
            return true;
        }
        if path
            .parent()
            .is_some_and(|parent| self.layer_dirs.iter().any(|d| d == parent))
        {
            return true;
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        let name = name.to_string_lossy();
        self.project_roots.iter().any(|root| {
            (parent == root && (name.starts_with("hooks.") || name == ".hooks"))
                || (parent.parent() == Some(root.as_path())
                    && parent.file_name().is_some_and(|n| n == ".hooks"))
        })
    }
}

/// The path with its directory resolved (files may not exist any more), so events, which carry
/// absolute paths, compare with configured relative ones.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            parent
                .canonicalize()
                .map(|p| p.join(name))
                .unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}
