//! Running configured hooks as entries of a [`Hooks`] value.
//!
//! [`ConfigHooks`] holds the hooks loaded from config files. [`ConfigHooks::attach`] adds one
//! entry (named [`ENTRY_NAME`], at [`ConfigHooksBuilder::order`], default 0) to every point
//! that has configured hooks, so they merge with link-time `#[hook]` fns, providers and
//! closures under the point's semantics: a deny from a command hook stops the guard chain like
//! any other deny, and a rewrite it makes is seen by the hooks after it.
//!
//! # Within the entry
//!
//! 1. The hook input: for an event fired from Claude Code's payload
//!    ([`fire`](crate::fire::fire) of a payload with a `hook_event_name`), that payload as sent,
//!    with the top-level fields earlier hooks rewrote in the context taken from it (unknown
//!    fields kept, none of the context's own added); otherwise the point's context
//!    ([`protocol::input`](crate::protocol::input)).
//! 2. The hooks whose [matcher](crate::matcher) matches are chosen; identical handlers (same
//!    command, environment and plugin root, or same URL, headers and plugin root) run once.
//! 3. Each must pass the gate ([`crate::trust`]): allowed by the allow-list or approved by hash.
//!    One that does not never runs; it is reported ([`CommandEvent::Skipped`]) and, at a guard
//!    point, denies (see [below](#hooks-the-gate-refuses)).
//! 4. By default they run **in parallel** and their answers merge as Claude Code merges them
//!    (most restrictive decision wins, every context kept; of differing rewrites the first in
//!    `(order, id)` order is applied and the others are logged as dropped). With
//!    `sequential: true` they run **one after another** in `(order, id)` order, each seeing
//!    the input as rewritten by the ones before, and a deny stops the rest.
//! 5. The merged answer is applied to the context by the point, as the table below says,
//!    and becomes the entry's verdict at guard points.
//!
//! | point | takes |
//! |---|---|
//! | `pre_tool_use` | the decision; `updatedInput` replaces `tool_input`; `additionalContext`; seed 003 `hook_signals` |
//! | `user_prompt_submit` | the decision; `additionalContext` and plain stdout as context; seed 003 `hook_signals` |
//! | `pre_model_call`, `subagent_start` | the decision; `additionalContext` |
//! | `stop` | the decision (a deny keeps the agent working, its reason the instruction); `continue: false` lets it stop |
//! | `session_start` | `additionalContext` and plain stdout as context |
//! | `post_tool_use` | `updatedToolOutput` replaces `tool_response`; a block's reason and `additionalContext` as context |
//! | other points | nothing (their contexts take no answer); answers are logged |
//!
//! Whatever a context cannot carry (`systemMessage`, `continue: false`, an allow's reason, a
//! block where the point takes none, the [forwarded](crate::forward) fields) is kept with the
//! dispatch and reaches Claude Code through [`claude_answer`](crate::fire::claude_answer).
//!
//! At guard points other than `stop`, `continue: false` is a deny with its `stopReason`;
//! `allow` and `ask` become `Verdict::Allow` and `Verdict::Ask`.
//!
//! # Failures
//!
//! A hook fails when it exits with a code other than 0 and 2, is killed, times out (default
//! 60 s; everything it started is killed: on Linux its whole process tree, see
//! [`crate::command::run`]), cannot be started or reached, or prints an answer
//! that is not valid. What a failure means is the hook's `on_error`: `deny` fails closed (at a
//! guard point, the entry denies naming the hook and the cause; elsewhere it stops the chain,
//! [`Outcome::failed_closed`](hookrail_core::Outcome::failed_closed)), `continue` (or `ignore`)
//! records it and goes on. The default is `deny` at guard points and `continue` elsewhere, so a
//! guard whose script is missing (exit 127) denies. `blocking: false` hooks never decide: their
//! answers and failures are logged and reported, not applied.
//!
//! # Seed 003: hook results, signals and background hooks
//!
//! A hook may answer with seed 003's `HookResult` instead of Claude Code's JSON; the two are
//! told apart by their fields ([`crate::hook_result`]). Its `hook_signals` are added, in
//! `(order, id)` order and each stamped with the hook's id, to the `hook_signals` of the
//! contexts of `user_prompt_submit` and `pre_tool_use`, where the session hands them to the
//! agent in its turn-ready control message
//! ([`Session::turn_ready`](hookrail_core::runtime::Session::turn_ready)) and enforces
//! `ability_guard` signals. At every other point they are AI-facing fields in the wrong place:
//! ignored, and logged as a misconfiguration once per hook and point.
//!
//! At the infra-only points `post_tool_use` and `session_end`, `blocking: false` hooks (and
//! Claude Code's `async: true` hooks, which load as such) are started in the background: the
//! dispatch does not wait for them. Their runs are reported like any other
//! ([`CommandEvent`]s, logs); [`ConfigHooks::wait_background`] waits for them before a
//! short-lived process exits. At the other points they run in the dispatch as before, with
//! nothing they answer applied.
//!
//! # Hooks the gate refuses
//!
//! A hook the gate refuses (not on the allow-list, not approved, a script changed since its
//! approval, an HTTP URL not allowed) is a guard that cannot decide, so by default, at a guard
//! point (`pre_tool_use`, `user_prompt_submit`, `stop`, `subagent_start`, `pre_model_call`),
//! it **fails closed**: the entry denies as for a failure (`on_error: deny`), with a reason
//! that names the hook (id, file:line), the gate's reason, and the command that approves it
//! ([`ConfigHooksBuilder::approve_command`], default [`DEFAULT_APPROVE_COMMAND`]). It is a
//! failure rather than a policy deny because nothing was decided: the outcome's
//! `decided_by_failure` and the answer's failure list say so.
//!
//! `on_unapproved: skip` (per entry, or at the top of a project file for its entries) chooses
//! to go on without the hook; `on_unapproved: deny` fails closed at any point (elsewhere than
//! a guard, the chain stops, as with `on_error: deny`). Elsewhere than a guard the default is
//! to skip. A `blocking: false` hook never decides, so its refusal is always a skip. Every
//! skip that does not deny leaves a notice naming the hook and the approve command, which
//! [`collect_notices`] returns and [`fire`](crate::fire::fire) puts in
//! [`Fired::notices`](crate::fire::Fired::notices) (Claude Code's `systemMessage`): a skip is
//! never silent. Claude Code's files have no place for `on_unapproved`, so their hooks always
//! take the default.
//!
//! Every hook that matched produces a [`CommandEvent`] for [`ConfigHooks::subscribe`]
//! callbacks and a `tracing` event.
//!
//! Command hooks need a tokio runtime (they run as `tokio::process` children); dispatch with
//! [`Hooks::dispatch_async`]. The entry itself has no timeout of its own (each hook in it is
//! bounded by its own).

mod apply;
mod background;
mod event;
mod notices;
mod run;
#[cfg(feature = "webhooks")]
mod webhooks;

pub(crate) use apply::applies_context;
pub use event::{CommandEvent, CommandRun, CommandSkipped, RunStatus};
pub(crate) use notices::collect_for;
pub use notices::collect_notices;
pub(crate) use run::Ran;
#[cfg(feature = "webhooks")]
pub use webhooks::ConfigWebhooks;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use hookrail_core::KindId;
use hookrail_core::runtime::{HookId, Hooks, HooksError};

use crate::file::{AllowEntry, LoadedConfig, Problem};
use crate::matcher::{CompiledMatcher, MatcherError};
use crate::spec::{HookSpec, Location};
use crate::trust::{AllowList, Gate, TrustError, TrustStore};

/// The inherited environment as one event's configured hooks see it, where it differs from
/// this process's ([`FireOptions::env`](crate::fire::FireOptions::env)): `Some` stands in for
/// an inherited variable, `None` keeps an inherited one from the hooks. Below the program's
/// [`ConfigHooksBuilder::env`] and a hook's own `env`, as an inherited variable is.
pub(crate) type EnvOverride = BTreeMap<String, Option<String>>;

/// The most characters of a hook's stdout (or HTTP body) read and parsed. An answer may
/// legitimately be long (`updatedInput` of a large `Write`); each string in it is then capped at
/// [`OUTPUT_CAP`](crate::protocol::OUTPUT_CAP), and so are the copies in [`CommandEvent`]s.
pub const READ_CAP: usize = 1 << 20;

/// The name of the entry configured hooks run as, at every point that has some.
pub const ENTRY_NAME: &str = "config";

/// The command named in denials and notices of hooks the gate refused, unless the program
/// gives its own ([`ConfigHooksBuilder::approve_command`]).
pub const DEFAULT_APPROVE_COMMAND: &str = "hooks trust --approve";

/// How long a configured hook may run when it sets no timeout (Claude Code's default was
/// 60 s until 2026; a guard that takes a minute is already broken).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// An error building or changing a [`ConfigHooks`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunnerError {
    /// A hook's matcher does not compile (specs from the loaders are validated, so this means
    /// a hand-built spec).
    #[error("hook `{id}` at {location}: {source}")]
    Matcher {
        /// The hook.
        id: String,
        /// Where it was declared.
        location: String,
        /// What is wrong.
        source: MatcherError,
    },
    /// An allow-list pattern does not compile.
    #[error("allow-list: {0}")]
    Allow(#[from] TrustError),
    /// Registering the entries on a [`Hooks`] value failed (a hook named [`ENTRY_NAME`]
    /// already exists at a point).
    #[error(transparent)]
    Hooks(#[from] HooksError),
    /// The webhook sender could not start.
    #[cfg(feature = "webhooks")]
    #[error("webhooks: {0}")]
    Webhooks(#[source] hookrail_telemetry::webhooks::WebhookError),
    #[cfg(feature = "webhooks")]
    /// [`ConfigHooks::register_webhook`]: the point name is not one we know.
    #[error("webhook for `{url}`: {source}")]
    WebhookPoint {
        /// The URL.
        url: String,
        /// Why the name is refused.
        source: crate::events::EventError,
    },
    #[cfg(feature = "webhooks")]
    /// [`ConfigHooks::register_webhook`]: the allow-list does not admit the URL.
    #[error(
        "webhook for `{url}` at {point}: its URL is not on the allow-list; add an `allow:` entry or an allow pattern of the program for it"
    )]
    WebhookNotAllowed {
        /// The point.
        point: &'static str,
        /// The URL.
        url: String,
    },
    #[cfg(feature = "webhooks")]
    /// [`ConfigHooks::register_webhook`]: this URL is already registered at this point.
    #[error("webhook for `{url}` at {point}: already registered")]
    WebhookRegistered {
        /// The point.
        point: &'static str,
        /// The URL.
        url: String,
    },
}

/// Configured hooks, ready to be attached to [`Hooks`] values. Cheap to clone (clones share
/// the set).
///
/// ```
/// use hookrail_config::file::parse_project;
/// use hookrail_config::file::Format;
/// use hookrail_config::runner::ConfigHooks;
/// use hookrail_core::context::{Meta, PreToolUse};
/// use hookrail_core::points::pre_tool_use;
/// use hookrail_core::runtime::Hooks;
/// use std::path::Path;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let yaml = r#"
/// enabled: true
/// hooks:
///   - id: no_curl
///     event_type: PreToolUse
///     match: { matcher: Bash }
///     handler: { command: "echo 'no network' >&2; exit 2" }
/// "#;
/// let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
/// // Nothing runs unless it is allow-listed or approved (`hooks trust`).
/// let configured = ConfigHooks::builder(dir.path())
///     .allow("echo 'no network' >&2; exit 2")
///     .build(config)?;
/// let hooks = Hooks::builder().ignore_env().build()?;
/// configured.attach(&hooks)?;
///
/// let meta = Meta::new("s1").with_cwd(dir.path());
/// let mut ctx = PreToolUse::new(meta, "Bash", serde_json::json!({"command": "curl x"}));
/// let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
/// assert_eq!(outcome.verdict().reason(), Some("no network"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ConfigHooks {
    shared: Arc<Shared>,
}

/// Builds a [`ConfigHooks`].
#[derive(Debug)]
#[must_use]
pub struct ConfigHooksBuilder {
    project_dir: PathBuf,
    store: Option<TrustStore>,
    allow: Vec<String>,
    order: i32,
    default_timeout: Duration,
    ignore_file_allow: bool,
    env: BTreeMap<String, String>,
    approve_command: String,
}

impl ConfigHooksBuilder {
    /// The command that approves this program's hooks, as a person would type it (default
    /// [`DEFAULT_APPROVE_COMMAND`]). It is named in the denial of a guard the gate refused and
    /// in the notice of a skipped hook, so give the options that select the same files:
    /// `hooks trust --settings .claude/hooks.scripts.json --approve`.
    ///
    /// ```
    /// use hookrail_config::file::{parse_project, Format};
    /// use hookrail_config::runner::ConfigHooks;
    /// use hookrail_core::context::{Meta, PreToolUse};
    /// use hookrail_core::points::pre_tool_use;
    /// use hookrail_core::runtime::Hooks;
    /// use std::path::Path;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let yaml = "enabled: true\nhooks:\n  - { id: guard, event_type: PreToolUse, handler: { command: ./guard.sh } }\n";
    /// let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
    /// // Neither allow-listed nor approved: the guard cannot run, so the call is denied.
    /// let configured = ConfigHooks::builder(dir.path())
    ///     .approve_command("hooks trust --config hooks.yaml --approve")
    ///     .build(config)?;
    /// let hooks = Hooks::builder().ignore_env().build()?;
    /// configured.attach(&hooks)?;
    ///
    /// let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({"command": "ls"}));
    /// let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    /// assert!(outcome.is_denied() && outcome.decided_by_failure().is_some());
    /// let reason = outcome.verdict().reason().unwrap();
    /// assert!(reason.contains("`guard` (hooks.yaml:3:5)"), "{reason}");
    /// assert!(reason.contains("`hooks trust --config hooks.yaml --approve`"), "{reason}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn approve_command(mut self, command: impl Into<String>) -> Self {
        self.approve_command = command.into();
        self
    }

    /// An environment variable for every command hook (a hook's own `env` wins).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Approvals to honour (`hooks trust`); without a store only the allow-list admits.
    pub fn trust_store(mut self, store: TrustStore) -> Self {
        self.store = Some(store);
        self
    }

    /// An allow-list pattern given by the program (on top of the files' `allow:` entries).
    pub fn allow(mut self, pattern: impl Into<String>) -> Self {
        self.allow.push(pattern.into());
        self
    }

    /// Ignore the `allow:` entries of config files: only the program's patterns and hash
    /// approvals admit hooks. For checkouts whose files you do not trust, since a project file
    /// can allow-list its own commands.
    pub fn ignore_file_allow(mut self, ignore: bool) -> Self {
        self.ignore_file_allow = ignore;
        self
    }

    /// The order of the entries among the other hooks of each point (default 0).
    pub fn order(mut self, order: i32) -> Self {
        self.order = order;
        self
    }

    /// The timeout of hooks that set none (default [`DEFAULT_TIMEOUT`]).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Builds the set from `config`: its `hooks` run, its `dormant` hooks are only listed.
    ///
    /// # Errors
    ///
    /// [`RunnerError`] for an allow-list pattern or a matcher that does not compile.
    pub fn build(self, config: LoadedConfig) -> Result<ConfigHooks, RunnerError> {
        let options = Options {
            project_dir: self.project_dir,
            allow: self.allow,
            order: self.order,
            default_timeout: self.default_timeout,
            ignore_file_allow: self.ignore_file_allow,
            env: self.env,
            approve_command: self.approve_command,
        };
        let set = HookSet::new(config, &options, self.store.clone())?;
        let store = self.store;
        Ok(ConfigHooks {
            shared: Arc::new(Shared {
                set: ArcSwap::from_pointee(set),
                options,
                store: Mutex::new(store),
                subscribers: RwLock::new(Vec::new()),
                attached: Mutex::new(Vec::new()),
                background: background::Background::default(),
                #[cfg(feature = "http")]
                http: std::sync::OnceLock::new(),
                #[cfg(feature = "webhooks")]
                runtime_webhooks: Mutex::new(Vec::new()),
            }),
        })
    }
}

struct Options {
    project_dir: PathBuf,
    env: BTreeMap<String, String>,
    allow: Vec<String>,
    order: i32,
    default_timeout: Duration,
    ignore_file_allow: bool,
    approve_command: String,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("project_dir", &self.project_dir)
            .field("order", &self.order)
            .finish_non_exhaustive()
    }
}

type Subscriber = Arc<dyn Fn(&CommandEvent) + Send + Sync>;

pub(crate) struct Shared {
    set: ArcSwap<HookSet>,
    options: Options,
    store: Mutex<Option<TrustStore>>,
    subscribers: RwLock<Vec<Subscriber>>,
    attached: Mutex<Vec<Attachment>>,
    /// Seed 003: reported misconfigurations and background runs.
    background: background::Background,
    #[cfg(feature = "http")]
    http: std::sync::OnceLock<Result<crate::http::HttpClient, String>>,
    /// Webhooks registered from code ([`ConfigHooks::register_webhook`]).
    #[cfg(feature = "webhooks")]
    runtime_webhooks: Mutex<Vec<webhooks::RuntimeWebhook>>,
}

/// The entries registered on one [`Hooks`] value.
struct Attachment {
    hooks: Hooks,
    ids: HashMap<&'static str, HookId>,
}

/// One immutable generation of the configured hooks.
struct HookSet {
    config: Arc<LoadedConfig>,
    sequential: bool,
    gate: Gate,
    /// Per point, the hooks that may run, in `(order, id)` order.
    points: HashMap<&'static str, Vec<Arc<Member>>>,
}

struct Member {
    spec: HookSpec,
    matcher: CompiledMatcher,
    /// Whether its point is a guard: failures fail closed by default, `continue: false`
    /// stops the hooks after it.
    guard: bool,
}

impl HookSet {
    fn new(
        mut config: LoadedConfig,
        options: &Options,
        store: Option<TrustStore>,
    ) -> Result<Self, RunnerError> {
        // The program's own entries must all be valid; a bad file entry is left out and
        // reported with its location (leaving one out only ever admits less).
        AllowList::new(options.allow.iter().map(String::as_str))?;
        let program = options.allow.iter().map(|pattern| AllowEntry {
            pattern: pattern.clone(),
            location: Location {
                file: Arc::new(PathBuf::from("<program>")),
                line: 0,
                column: 0,
            },
        });
        let files = config
            .allow
            .iter()
            .filter(|_| !options.ignore_file_allow)
            .cloned();
        let entries: Vec<AllowEntry> = program.chain(files).collect();
        let (allow, refused) = AllowList::from_entries(&entries);
        for error in refused {
            tracing::warn!(target: "hookrail_config::runner", "{error}");
            if let TrustError::Pattern {
                location: Some(location),
                ..
            } = &error
            {
                config.problems.push(Problem {
                    location: location.clone(),
                    hook_id: None,
                    message: format!("{error}; left out of the allow-list"),
                });
            }
        }
        let gate = Gate::new(allow, store);
        let mut points: HashMap<&'static str, Vec<Arc<Member>>> = HashMap::new();
        for spec in config.hooks.iter().filter(|s| s.enabled) {
            let matcher =
                CompiledMatcher::new(&spec.matcher).map_err(|source| RunnerError::Matcher {
                    id: spec.id.clone(),
                    location: spec.location.to_string(),
                    source,
                })?;
            points.entry(spec.point).or_default().push(Arc::new(Member {
                spec: spec.clone(),
                matcher,
                guard: crate::events::kind_of(spec.point) == Some(KindId::Guard),
            }));
        }
        for members in points.values_mut() {
            members.sort_by(|a, b| (a.spec.order, &a.spec.id).cmp(&(b.spec.order, &b.spec.id)));
        }
        Ok(HookSet {
            sequential: config.sequential,
            config: Arc::new(config),
            gate,
            points,
        })
    }
}

impl ConfigHooks {
    /// A builder for hooks of the project at `project_dir`: exported to hooks as
    /// `CLAUDE_PROJECT_DIR`, the directory they run in, and the directory the gate resolves and
    /// hashes their scripts in (so what runs is what was approved, wherever the agent `cd`ed;
    /// the event's `cwd` is in its JSON).
    pub fn builder(project_dir: impl Into<PathBuf>) -> ConfigHooksBuilder {
        ConfigHooksBuilder {
            project_dir: project_dir.into(),
            store: None,
            allow: Vec::new(),
            order: 0,
            default_timeout: DEFAULT_TIMEOUT,
            ignore_file_allow: false,
            env: BTreeMap::new(),
            approve_command: DEFAULT_APPROVE_COMMAND.to_owned(),
        }
    }

    /// Waits at most `limit` for the `blocking: false` hooks of `post_tool_use` and
    /// `session_end` still running in the background (see [the module docs](self)); returns
    /// how many are still running then. A process that answers one event and exits calls
    /// this before exiting, since exiting would kill them (`hooks claude`, `hooks fire`).
    pub async fn wait_background(&self, limit: Duration) -> usize {
        self.shared.wait_background(limit).await
    }

    /// Adds the entries to `hooks`: one named [`ENTRY_NAME`] at each point that has
    /// configured hooks. Later [`replace`](ConfigHooks::replace)s keep them in step.
    ///
    /// # Errors
    ///
    /// [`RunnerError::Hooks`] if a point of `hooks` already has a hook named [`ENTRY_NAME`]
    /// (for instance when the same `ConfigHooks` is attached twice).
    pub fn attach(&self, hooks: &Hooks) -> Result<(), RunnerError> {
        // Under the lock that changes serialize on, so no swap slips in between reading the
        // set and registering its points.
        let mut attachments = self.attachments();
        let mut attachment = Attachment {
            hooks: hooks.clone(),
            ids: HashMap::new(),
        };
        let points: Vec<&'static str> = self.shared.set.load().points.keys().copied().collect();
        for point in points {
            if let Err(e) = self.register(&mut attachment, point) {
                for id in attachment.ids.values() {
                    hooks.unregister(*id);
                }
                return Err(e);
            }
        }
        attachments.push(attachment);
        Ok(())
    }

    /// Replaces the configured hooks with `config`, atomically: a dispatch runs either the
    /// old set or the new one. Entries are added to attached [`Hooks`] values at points that
    /// now have hooks, and removed where none are left.
    ///
    /// # Errors
    ///
    /// [`RunnerError`] when the new set cannot be built or its entries cannot be registered;
    /// the old set then stays in place, entries included.
    pub fn replace(&self, config: LoadedConfig) -> Result<(), RunnerError> {
        let mut attachments = self.attachments();
        let store = self
            .shared
            .store
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let set = HookSet::new(config, &self.shared.options, store)?;
        let old = self.shared.set.load();
        if old.config.webhooks != set.config.webhooks {
            tracing::warn!(
                target: "hookrail_config::runner",
                "the `webhooks:` entries changed; running webhooks keep their old settings until started again"
            );
        }
        self.swap(&mut attachments, set)
    }

    /// Replaces the approvals the gate honours (after `hooks trust` approved something).
    ///
    /// # Errors
    ///
    /// [`RunnerError`] when the current set cannot be rebuilt.
    pub fn set_trust_store(&self, store: TrustStore) -> Result<(), RunnerError> {
        let mut attachments = self.attachments();
        let config = LoadedConfig::clone(&self.shared.set.load().config);
        let set = HookSet::new(config, &self.shared.options, Some(store.clone()))?;
        self.swap(&mut attachments, set)?;
        *self
            .shared
            .store
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(store);
        Ok(())
    }

    /// Registers entries at the new set's new points, swaps the set in, then removes the
    /// entries of points it no longer has. An entry at a point whose set has no hooks runs
    /// nothing, so neither order of steps lets a dispatch see a half-changed set.
    fn swap(&self, attachments: &mut [Attachment], set: HookSet) -> Result<(), RunnerError> {
        let now: Vec<&'static str> = set.points.keys().copied().collect();
        let mut added: Vec<(usize, &'static str)> = Vec::new();
        let mut failure = None;
        'attachments: for (i, attachment) in attachments.iter_mut().enumerate() {
            for &point in &now {
                if attachment.ids.contains_key(point) {
                    continue;
                }
                match self.register(attachment, point) {
                    Ok(()) => added.push((i, point)),
                    Err(e) => {
                        failure = Some(e);
                        break 'attachments;
                    }
                }
            }
        }
        if let Some(e) = failure {
            for (i, point) in added {
                let attachment = &mut attachments[i];
                if let Some(id) = attachment.ids.remove(point) {
                    attachment.hooks.unregister(id);
                }
            }
            return Err(e);
        }
        self.shared.set.store(Arc::new(set));
        for attachment in attachments.iter_mut() {
            let gone: Vec<&'static str> = attachment
                .ids
                .keys()
                .copied()
                .filter(|p| !now.contains(p))
                .collect();
            for point in gone {
                if let Some(id) = attachment.ids.remove(point) {
                    attachment.hooks.unregister(id);
                }
            }
        }
        Ok(())
    }

    fn register(
        &self,
        attachment: &mut Attachment,
        point: &'static str,
    ) -> Result<(), RunnerError> {
        if let Some(id) = apply::register(&attachment.hooks, point, &self.shared)? {
            attachment.ids.insert(point, id);
        }
        Ok(())
    }

    fn attachments(&self) -> std::sync::MutexGuard<'_, Vec<Attachment>> {
        self.shared
            .attached
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The loaded configuration in effect (every hook, dormant ones included, and the
    /// problems found when it was read).
    pub fn config(&self) -> Arc<LoadedConfig> {
        self.shared.set.load().config.clone()
    }

    /// Calls `f` with every [`CommandEvent`] (on the dispatching task; keep it short).
    pub fn subscribe(&self, f: impl Fn(&CommandEvent) + Send + Sync + 'static) {
        self.shared
            .subscribers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::new(f));
    }

    /// The order of the entries.
    pub fn order(&self) -> i32 {
        self.shared.options.order
    }
}

impl std::fmt::Debug for ConfigHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = self.shared.set.load();
        f.debug_struct("ConfigHooks")
            .field("options", &self.shared.options)
            .field("hooks", &set.config.hooks.len())
            .field("sequential", &set.sequential)
            .finish_non_exhaustive()
    }
}
