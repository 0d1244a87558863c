//! `reviewer-lockout`: after a reviewer rejects an artifact, its author may not write it until
//! another agent has revised it (the reviewer lockout of seed 000's `HookPipeline`).
//!
//! # How it works
//!
//! * **Authorship.** At `post_tool_use`, a write tool call (`write_tools`, default
//!   [`WRITE_TOOLS`]) that succeeded records `meta.agent_name` as the author of each path it
//!   wrote ([`paths_in`], resolved with [`paths::resolve`] against `meta.cwd`, the working
//!   directory; the lockout check resolves the paths it judges the same way, and shows them
//!   relative to the project root, [`Meta::project_root`](hookrail_core::context::Meta::project_root)).
//! * **Rejection.** A rejection names an artifact (a file, or a directory: its lock covers
//!   everything under it), the reviewer, an optional reason and, optionally, the author; without
//!   one, the agent that last wrote the artifact is its author. Rejections arrive three ways:
//!   1. in code: [`ReviewerLockout::reject`] / [`reject_in`](ReviewerLockout::reject_in) on any
//!      clone of the policy (clones share their state);
//!   2. a `notification` of type `review_rejected` (`notification_type`) whose message is a
//!      [`Rejection`] as JSON: `{"artifact": "src/auth.rs", "reason": "no tests"}`, with
//!      optional `"author"` and `"reviewer"` (default: the notifying agent, `meta.agent_name`);
//!      the artifact is relative to `meta.cwd`;
//!   3. the `subagent_stop` of a reviewer subagent (its name matches a `reviewer_agents` glob,
//!      default `*review*`, case-insensitive) whose last message has verdict lines
//!      `REJECTED: <artifact> [reason]` (case-insensitive prefix, at the start of a line; quote
//!      a path with spaces in backticks or double quotes). This is how a running agent rejects
//!      without code: the orchestrator names the reviewer, the reviewer writes the verdict.
//! * **Lockout.** At `pre_tool_use`, a write tool call by the locked-out author to a locked
//!   path is denied, naming the reviewer and the reason. A shell command (`shell_tools`) by that
//!   author that mentions a locked artifact (its path or its file name) gets
//!   `shell_mentions` (default `ask`: a human confirms; `deny`; `ignore`).
//! * **Revision.** A successful write to the artifact by any other agent (at `post_tool_use`)
//!   is a revision: it lifts the lock and makes that agent the author. So does
//!   [`ReviewerLockout::release`] (a human override).
//!
//! # State and its scope
//!
//! State lives in memory inside the policy value, shared by its clones, and is keyed by the
//! resolved absolute path, so it is project-wide rather than per session: the author, the
//! reviewer and the reviser are usually different agents and sessions (subagent sessions keep
//! the parent's session id, separate agent processes do not). Give each project or tenant its
//! own policy value to keep them apart. It is bounded: at most `max_locks` locks (the oldest
//! is dropped, with a warning, past that) and `max_tracked_files` authorship records (least
//! recently written dropped first).
//!
//! `ReviewerLockout` implements [`PersistentState`](crate::state::PersistentState): a
//! long-lived process saves the locks and the authorship records and restores them after a
//! restart (see [`state`](crate::state)); without that, a restart forgets them. Locks are
//! kept whatever the settings are now; `max_locks` and `max_tracked_files` hold for restored
//! entries as for new ones (the oldest go first, and what goes is reported).
//!
//! # Closed by default
//!
//! An agent that holds no lock is never slowed down or refused. For an agent that does, a write
//! call whose target cannot be told (an unresolvable path, a path field of the wrong type, no
//! path at all, a project root that is not absolute) is denied.
//!
//! # What it does not catch
//!
//! Writes through shell commands are only noticed by name (a heuristic, hence `ask`), and
//! shell writes by other agents do not count as revisions (use a write tool or
//! [`release`](ReviewerLockout::release)). Hard links to a locked file are other paths.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::reviewer_lockout::ReviewerLockout;
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::Hooks;
//! use serde_json::json;
//!
//! let lockout = ReviewerLockout::default();
//! let hooks = Hooks::builder().ignore_env().provider_at(-90, lockout.clone()).build()?;
//!
//! lockout.reject("/nonexistent/project/src/auth.rs", "coder", "reviewer")?;
//!
//! let coder = Meta::new("s1").with_cwd("/nonexistent/project").with_agent("coder");
//! let mut ctx = PreToolUse::new(coder, "Edit", json!({"file_path": "src/auth.rs"}));
//! let out = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
//! assert!(out.is_denied());
//! assert!(out.verdict().reason().unwrap().contains("rejected by reviewer \"reviewer\""));
//!
//! let fixer = Meta::new("s1").with_cwd("/nonexistent/project").with_agent("fixer");
//! let mut ctx = PreToolUse::new(fixer, "Edit", json!({"file_path": "src/auth.rs"}));
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod lru;
mod persist;
mod text;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use hookrail_core::context::{Notification, PostToolUse, PreToolUse, SubagentStop};
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConfigError;
use crate::paths::{self, PathError, resolve};
use crate::tools::{SHELL_TOOLS, WRITE_TOOLS, malformed_path_field, owned, paths_in};

use crate::shown::{one_line, show};
use lru::Lru;
use text::{clip, denial, denial_text, display_in, verdict_lines};

/// The policy's name in config files and [`ConfigError`]s.
const POLICY: &str = "reviewer_lockout";

/// Longest reviewer reason kept (in characters); longer ones are cut.
const MAX_REASON_CHARS: usize = 500;
/// Longest agent name kept (in characters).
const MAX_NAME_CHARS: usize = 200;

/// What a shell command by a locked-out author that mentions a locked artifact gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellMentions {
    /// Refused.
    Deny,
    /// A human must confirm (the default: the match is by name, so it can be a read).
    #[default]
    Ask,
    /// Not looked at.
    Ignore,
}

/// Settings of [`ReviewerLockout`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewerLockoutConfig {
    /// Tools whose calls write files. Default: [`WRITE_TOOLS`].
    pub write_tools: Vec<String>,
    /// Tools whose `command` is a shell command line. Default: [`SHELL_TOOLS`].
    pub shell_tools: Vec<String>,
    /// What a locked-out author's shell command that mentions a locked artifact gets.
    /// Default: `ask`.
    pub shell_mentions: ShellMentions,
    /// The `notification_type` of rejection notifications. Default: `"review_rejected"`.
    pub notification_type: String,
    /// Globs (case-insensitive) of the subagent names whose final message may carry
    /// `REJECTED:` verdict lines. Default: `["*review*"]`; empty turns that path off.
    pub reviewer_agents: Vec<String>,
    /// Most locks held at once; past it the oldest is dropped with a warning. Default: 1024.
    pub max_locks: usize,
    /// Most files whose author is remembered; past it the least recently written is
    /// forgotten. Default: 10 000.
    pub max_tracked_files: usize,
}

impl Default for ReviewerLockoutConfig {
    fn default() -> Self {
        ReviewerLockoutConfig {
            write_tools: owned(WRITE_TOOLS),
            shell_tools: owned(SHELL_TOOLS),
            shell_mentions: ShellMentions::Ask,
            notification_type: "review_rejected".to_owned(),
            reviewer_agents: vec!["*review*".to_owned()],
            max_locks: 1024,
            max_tracked_files: 10_000,
        }
    }
}

/// A reviewer's rejection of an artifact; also the JSON message of a rejection
/// `notification`.
///
/// ```
/// use hookrail_builtin::reviewer_lockout::Rejection;
///
/// let r: Rejection = serde_json::from_str(r#"{"artifact": "src/a.rs", "reason": "no tests"}"#)?;
/// assert_eq!(r, Rejection::new("src/a.rs").reason("no tests"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[non_exhaustive]
pub struct Rejection {
    /// The rejected file or directory: absolute, `~/…`, or relative to the working directory
    /// it is resolved against.
    pub artifact: String,
    /// The agent locked out; `None`: the agent that last wrote the artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Who rejected it; `None`: the notifying agent (for notifications) or `"reviewer"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<String>,
    /// Why, shown to the author when a write is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Rejection {
    /// A rejection of `artifact`, author and reviewer unnamed.
    pub fn new(artifact: impl Into<String>) -> Self {
        Rejection {
            artifact: artifact.into(),
            ..Rejection::default()
        }
    }

    /// Set the locked-out author.
    #[must_use]
    pub fn author(mut self, author: impl Into<String>) -> Self {
        self.author = Some(author.into());
        self
    }

    /// Set the reviewer.
    #[must_use]
    pub fn reviewer(mut self, reviewer: impl Into<String>) -> Self {
        self.reviewer = Some(reviewer.into());
        self
    }

    /// Set the reason.
    #[must_use]
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// A lock held on an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lock {
    /// The artifact, resolved and absolute; a directory's lock covers everything under it.
    pub artifact: PathBuf,
    /// The agent that may not write it.
    pub author: String,
    /// Who rejected it.
    pub reviewer: String,
    /// Why, if the reviewer said.
    pub reason: Option<String>,
}

/// A rejection or release could not be applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockoutError {
    /// The artifact path is empty.
    #[error("the artifact path is empty")]
    EmptyArtifact,
    /// The artifact path is not UTF-8.
    #[error("the artifact path `{0}` is not UTF-8")]
    NotUtf8(PathBuf),
    /// The artifact path could not be resolved.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A relative artifact was given and the working directory is unknown.
    #[error("cannot resolve a relative artifact: {0}")]
    NoWorkingDir(std::io::Error),
    /// No author was named and nobody is known to have written the artifact.
    #[error("no author named for `{}` and no write to it was seen", .0.display())]
    UnknownAuthor(PathBuf),
    /// The author was named but is empty.
    #[error("the author's name is empty")]
    EmptyAuthor,
}

/// The `reviewer-lockout` policy: see the [module docs](self). Cloning is cheap and clones
/// share their locks.
#[derive(Debug, Clone)]
pub struct ReviewerLockout {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    write_tools: Vec<String>,
    shell_tools: Vec<String>,
    shell_mentions: ShellMentions,
    notification_type: String,
    reviewers: GlobSet,
    home: Option<PathBuf>,
    state: Mutex<State>,
    /// Bumped on every change of the state (see `PersistentState`).
    revision: AtomicU64,
}

#[derive(Debug)]
struct State {
    authors: Lru<String>,
    locks: Lru<Lock>,
}

impl Default for ReviewerLockout {
    fn default() -> Self {
        match Self::new(ReviewerLockoutConfig::default()) {
            Ok(policy) => policy,
            Err(e) => unreachable!("the default config is valid: {e}"),
        }
    }
}

impl ReviewerLockout {
    /// Builds the policy. `~` in paths is the current user's home directory.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] for a bad `reviewer_agents[i]` glob, a zero `max_locks` or
    /// `max_tracked_files`, or an empty `notification_type`.
    pub fn new(config: ReviewerLockoutConfig) -> Result<Self, ConfigError> {
        Self::with_home(config, paths::home_dir())
    }

    /// Like [`new`](Self::new), with `home` as the directory `~` expands to.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn with_home(
        config: ReviewerLockoutConfig,
        home: Option<PathBuf>,
    ) -> Result<Self, ConfigError> {
        if config.max_locks == 0 {
            return Err(ConfigError::new(POLICY, "max_locks", "must be at least 1"));
        }
        if config.max_tracked_files == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_tracked_files",
                "must be at least 1",
            ));
        }
        if config.notification_type.trim().is_empty() {
            return Err(ConfigError::new(POLICY, "notification_type", "is empty"));
        }
        let mut reviewers = GlobSetBuilder::new();
        for (i, pattern) in config.reviewer_agents.iter().enumerate() {
            let glob = GlobBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(|e| ConfigError::new(POLICY, format!("reviewer_agents[{i}]"), e.kind()))?;
            reviewers.add(glob);
        }
        let reviewers = reviewers
            .build()
            .map_err(|e| ConfigError::new(POLICY, "reviewer_agents", e))?;
        Ok(ReviewerLockout {
            inner: Arc::new(Inner {
                write_tools: config.write_tools,
                shell_tools: config.shell_tools,
                shell_mentions: config.shell_mentions,
                notification_type: config.notification_type,
                reviewers,
                home,
                state: Mutex::new(State {
                    authors: Lru::new(config.max_tracked_files),
                    locks: Lru::new(config.max_locks),
                }),
                revision: AtomicU64::new(0),
            }),
        })
    }

    /// Lock `artifact` against `author` on behalf of `reviewer`. A relative `artifact` is
    /// resolved against the process's working directory; prefer an absolute path, or
    /// [`reject_in`](Self::reject_in).
    ///
    /// # Errors
    ///
    /// [`LockoutError`] when the artifact cannot be resolved or the author is empty.
    pub fn reject(
        &self,
        artifact: impl AsRef<Path>,
        author: &str,
        reviewer: &str,
    ) -> Result<Lock, LockoutError> {
        let artifact = artifact.as_ref();
        let text = artifact
            .to_str()
            .ok_or_else(|| LockoutError::NotUtf8(artifact.to_owned()))?;
        let cwd = if artifact.is_absolute() {
            PathBuf::from("/")
        } else {
            std::env::current_dir().map_err(LockoutError::NoWorkingDir)?
        };
        self.reject_in(&cwd, Rejection::new(text).author(author).reviewer(reviewer))
    }

    /// Apply `rejection`, its relative artifact resolved against `cwd`. A rejection of an
    /// artifact that is already locked replaces its lock.
    ///
    /// # Errors
    ///
    /// [`LockoutError`] when the artifact cannot be resolved, or no author is named and none
    /// is known.
    pub fn reject_in(&self, cwd: &Path, rejection: Rejection) -> Result<Lock, LockoutError> {
        let artifact = self.resolve_artifact(cwd, &rejection.artifact)?;
        let mut state = self.state_mut();
        let author = match rejection.author {
            Some(a) if a.is_empty() => return Err(LockoutError::EmptyAuthor),
            Some(a) => a,
            None => state
                .authors
                .get(&artifact)
                .cloned()
                .ok_or_else(|| LockoutError::UnknownAuthor(artifact.clone()))?,
        };
        let lock = Lock {
            artifact: artifact.clone(),
            author: clip(&author, MAX_NAME_CHARS),
            reviewer: clip(
                rejection
                    .reviewer
                    .as_deref()
                    .filter(|r| !r.is_empty())
                    .unwrap_or("reviewer"),
                MAX_NAME_CHARS,
            ),
            reason: rejection
                .reason
                .as_deref()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(|r| clip(r, MAX_REASON_CHARS)),
        };
        tracing::info!(
            policy = POLICY,
            artifact = %artifact.display(),
            author = %lock.author,
            reviewer = %lock.reviewer,
            "artifact rejected; its author is locked out until another agent revises it"
        );
        if let Some((dropped, old)) = state.locks.insert(artifact, lock.clone()) {
            tracing::warn!(
                policy = POLICY,
                artifact = %dropped.display(),
                author = %old.author,
                "max_locks reached: the oldest lock was dropped"
            );
        }
        Ok(lock)
    }

    /// Lift the lock on `artifact` (a relative path is resolved against the process's working
    /// directory). Returns the lock that was lifted, if there was one.
    ///
    /// # Errors
    ///
    /// [`LockoutError`] when the artifact cannot be resolved.
    pub fn release(&self, artifact: impl AsRef<Path>) -> Result<Option<Lock>, LockoutError> {
        let artifact = artifact.as_ref();
        let text = artifact
            .to_str()
            .ok_or_else(|| LockoutError::NotUtf8(artifact.to_owned()))?;
        let cwd = if artifact.is_absolute() {
            PathBuf::from("/")
        } else {
            std::env::current_dir().map_err(LockoutError::NoWorkingDir)?
        };
        self.release_in(&cwd, text)
    }

    /// Lift the lock on `artifact`, resolved against `cwd`.
    ///
    /// # Errors
    ///
    /// [`LockoutError`] when the artifact cannot be resolved.
    pub fn release_in(&self, cwd: &Path, artifact: &str) -> Result<Option<Lock>, LockoutError> {
        let artifact = self.resolve_artifact(cwd, artifact)?;
        Ok(self.state_mut().locks.remove(&artifact))
    }

    /// Every lock held, sorted by artifact.
    pub fn locks(&self) -> Vec<Lock> {
        let mut locks: Vec<Lock> = self.state().locks.values().cloned().collect();
        locks.sort_by(|a, b| a.artifact.cmp(&b.artifact));
        locks
    }

    /// The agent that last wrote `artifact` (resolved against `cwd`), if known.
    pub fn author_of(&self, cwd: &Path, artifact: &str) -> Option<String> {
        let artifact = self.resolve_artifact(cwd, artifact).ok()?;
        self.state().authors.get(&artifact).cloned()
    }

    fn resolve_artifact(&self, cwd: &Path, artifact: &str) -> Result<PathBuf, LockoutError> {
        if artifact.trim().is_empty() {
            return Err(LockoutError::EmptyArtifact);
        }
        Ok(resolve(artifact, cwd, self.inner.home.as_deref())?)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; if something did, the maps are still whole.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The state, to change it: bumps the revision (under the lock, so a saver that read the
    /// new revision takes its snapshot after this change).
    fn state_mut(&self) -> MutexGuard<'_, State> {
        let state = self.state();
        self.inner.revision.fetch_add(1, Ordering::Relaxed);
        state
    }

    /// The verdict on a call of `tool_name` with `input` by `agent`, in project `cwd`, which is
    /// also where relative paths start: [`check_in`](Self::check_in) with both set to `cwd`.
    pub fn check(&self, agent: &str, tool_name: &str, input: &Value, cwd: &Path) -> Verdict {
        self.check_in(agent, tool_name, input, cwd, cwd)
    }

    /// The verdict on a call of `tool_name` with `input` by `agent`, made in `cwd` (where
    /// relative paths start, as when authorship is recorded), in the project rooted at `root`
    /// (locked paths are shown relative to it, and a shell command that names a locked path
    /// relative to it mentions it).
    pub fn check_in(
        &self,
        agent: &str,
        tool_name: &str,
        input: &Value,
        root: &Path,
        cwd: &Path,
    ) -> Verdict {
        let inner = &*self.inner;
        let is_write = inner.write_tools.iter().any(|t| t == tool_name);
        let is_shell = !is_write
            && inner.shell_mentions != ShellMentions::Ignore
            && inner.shell_tools.iter().any(|t| t == tool_name);
        if !is_write && !is_shell {
            return Verdict::Continue;
        }
        // Copied out, so no file system call happens while the state is locked.
        let mine: Vec<Lock> = self
            .state()
            .locks
            .values()
            .filter(|l| l.author == agent)
            .cloned()
            .collect();
        if mine.is_empty() {
            return Verdict::Continue;
        }
        for (what, dir) in [("project root", root), ("working directory", cwd)] {
            if !dir.is_absolute() {
                return Verdict::deny(format!(
                    "reviewer-lockout: the {what} {} is not absolute, and {agent:?} has \
                     rejected work awaiting revision; cannot tell what this call writes",
                    show(dir)
                ));
            }
        }
        let root = resolve(".", root, inner.home.as_deref()).unwrap_or_else(|_| root.to_owned());
        if is_shell {
            return self.check_shell(agent, input, &root, &mine);
        }
        if let Some(field) = malformed_path_field(input) {
            return Verdict::deny(format!(
                "reviewer-lockout: {tool_name} input field `{field}` is not a string, and \
                 {agent:?} has rejected work awaiting revision; cannot tell what it writes"
            ));
        }
        let raws = paths_in(input);
        if raws.is_empty() {
            return Verdict::deny(format!(
                "reviewer-lockout: {tool_name} call names no file path, and {agent:?} has \
                 rejected work awaiting revision; cannot tell what it writes"
            ));
        }
        for raw in raws {
            let abs = match resolve(raw, cwd, inner.home.as_deref()) {
                Ok(abs) => abs,
                Err(e) => {
                    return Verdict::deny(format!(
                        "reviewer-lockout: {raw:?} cannot be resolved ({}), and {agent:?} has \
                         rejected work awaiting revision",
                        one_line(&e.to_string())
                    ));
                }
            };
            // The most specific lock on the path or a directory above it.
            let lock = mine
                .iter()
                .filter(|l| abs.starts_with(&l.artifact))
                .max_by_key(|l| l.artifact.components().count());
            if let Some(lock) = lock {
                return Verdict::deny(denial(raw, &abs, lock, &root));
            }
        }
        Verdict::Continue
    }

    fn check_shell(&self, agent: &str, input: &Value, root: &Path, mine: &[Lock]) -> Verdict {
        let verdict = |reason: String| match self.inner.shell_mentions {
            ShellMentions::Deny => Verdict::deny(reason),
            ShellMentions::Ask => Verdict::ask(reason),
            ShellMentions::Ignore => Verdict::Continue,
        };
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return verdict(format!(
                "reviewer-lockout: shell call without a command string, and {agent:?} has \
                 rejected work awaiting revision"
            ));
        };
        for lock in mine {
            let mut names = vec![lock.artifact.to_string_lossy().into_owned()];
            if let Some(rel) =
                paths::inside(&lock.artifact, root).filter(|r| !r.as_os_str().is_empty())
            {
                names.push(rel.to_string_lossy().into_owned());
            }
            if let Some(file) = lock.artifact.file_name() {
                names.push(file.to_string_lossy().into_owned());
            }
            if names
                .iter()
                .any(|n| !n.is_empty() && command.contains(n.as_str()))
            {
                return verdict(format!(
                    "{}; this shell command mentions it",
                    denial_text(&display_in(&lock.artifact, root), lock)
                ));
            }
        }
        Verdict::Continue
    }

    /// Records a finished tool call: authorship and revisions.
    fn record(&self, agent: &str, post: &PostToolUse) {
        if post.is_error() || !self.inner.write_tools.contains(&post.tool_name) {
            return;
        }
        let cwd = &post.meta.cwd;
        if !cwd.is_absolute() {
            return;
        }
        let written: Vec<PathBuf> = paths_in(&post.tool_input)
            .into_iter()
            .filter(|raw| !raw.is_empty())
            .filter_map(|raw| resolve(raw, cwd, self.inner.home.as_deref()).ok())
            .collect();
        let mut state = self.state_mut();
        for abs in written {
            // Every lock on this path or a directory above it, held against someone else.
            let lifted: Vec<PathBuf> = abs
                .ancestors()
                .filter(|p| state.locks.get(p).is_some_and(|l| l.author != agent))
                .map(Path::to_path_buf)
                .collect();
            for key in lifted {
                if let Some(lock) = state.locks.remove(&key) {
                    tracing::info!(
                        policy = POLICY,
                        artifact = %key.display(),
                        author = %lock.author,
                        reviser = agent,
                        "rejected artifact revised by another agent; lock lifted"
                    );
                }
            }
            state.authors.insert(abs, clip(agent, MAX_NAME_CHARS));
        }
    }

    /// Applies the verdict lines of a reviewer subagent's final message.
    fn record_verdicts(&self, ctx: &SubagentStop) {
        if !self.inner.reviewers.is_match(ctx.subagent_name.as_str()) {
            return;
        }
        let Some(message) = ctx.last_assistant_message.as_deref() else {
            return;
        };
        for (artifact, reason) in verdict_lines(message) {
            let mut rejection = Rejection::new(artifact).reviewer(ctx.subagent_name.as_str());
            rejection.reason = reason.map(str::to_owned);
            if let Err(e) = self.reject_in(&ctx.meta.cwd, rejection) {
                tracing::warn!(
                    policy = POLICY,
                    reviewer = %ctx.subagent_name,
                    artifact,
                    error = %e,
                    "a REJECTED verdict could not be applied"
                );
            }
        }
    }
}

impl HooksProvider for ReviewerLockout {
    fn name(&self) -> &str {
        "builtin.reviewer_lockout"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
            | PointSet::POST_TOOL_USE
            | PointSet::NOTIFICATION
            | PointSet::SUBAGENT_STOP
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(self.check_in(
            &ctx.meta.agent_name,
            &ctx.tool_name,
            ctx.tool_input.get(),
            ctx.meta.project_root(),
            &ctx.meta.cwd,
        ))
    }

    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        self.record(&ctx.meta.agent_name, ctx);
        Ok(())
    }

    fn notification(&self, ctx: &Notification) -> HookResult<()> {
        if ctx.notification_type != self.inner.notification_type {
            return Ok(());
        }
        // Only an object: serde would also take `["src/a.rs"]` as a struct.
        let parsed = serde_json::from_str::<Value>(&ctx.message)
            .ok()
            .filter(Value::is_object)
            .map(serde_json::from_value::<Rejection>);
        let mut rejection = match parsed {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                tracing::warn!(policy = POLICY, error = %e, "a rejection notification was ignored");
                return Ok(());
            }
            None => {
                tracing::warn!(
                    policy = POLICY,
                    "a rejection notification's message is not a JSON object \
                     ({{\"artifact\": …}}); ignored"
                );
                return Ok(());
            }
        };
        if rejection.reviewer.is_none() {
            rejection.reviewer = Some(ctx.meta.agent_name.to_string());
        }
        if let Err(e) = self.reject_in(&ctx.meta.cwd, rejection) {
            tracing::warn!(policy = POLICY, error = %e, "a rejection could not be applied");
        }
        Ok(())
    }

    fn subagent_stop(&self, ctx: &SubagentStop) -> HookResult<()> {
        self.record_verdicts(ctx);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
