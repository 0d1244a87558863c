//! Firing a point from JSON, and answering as a Claude Code hook.
//!
//! [`fire`] is the whole pipeline for one event whose point is known only at run time (the
//! `hooks fire` and `hooks claude` commands): the JSON input, in Claude Code's field names,
//! becomes the point's typed context, every hook of a [`Hooks`] value runs on it
//! ([`Hooks::dispatch_async`]: link-time fns, providers, configured hooks), and the result
//! comes back as [`Fired`]. [`claude_answer`] turns that into Claude Code's answer.
//! [`fire_in`] does the same in a known project root: the payload's `cwd` then only says where
//! relative paths start, and cannot make `/usr` the project the guards protect.
//!
//! ```
//! use hookrail_config::fire::{claude_answer, fire};
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::Verdict;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hooks = Hooks::builder()
//!     .ignore_env()
//!     .hook(Hook::<pre_tool_use::Point>::new("no_rm", |ctx| {
//!         if ctx.command().is_some_and(|c| c.starts_with("rm ")) { Verdict::deny("no rm") } else { Verdict::Continue }
//!     }))
//!     .build()?;
//! let payload = serde_json::json!({
//!     "session_id": "abc", "cwd": "/tmp", "hook_event_name": "PreToolUse",
//!     "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}
//! });
//! let fired = fire(&hooks, "pre_tool_use", payload).await?;
//! let (answer, exit_code) = claude_answer(&fired);
//! assert_eq!(exit_code, 0);
//! assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
//! assert_eq!(answer["hookSpecificOutput"]["permissionDecisionReason"], "no rm");
//! # Ok(())
//! # }
//! ```

use std::path::Path;
use std::sync::Arc;

use hookrail_core::context::{InvocationSource, meta_of_mut};
use hookrail_core::points::*;
use hookrail_core::runtime::{Hooks, Ret};
use hookrail_core::signal::{GuardDecision, HookSignal, SignalEvent, TurnReady, guard_decision};
use hookrail_core::{HookFailure, HookPoint, OnError, Recovery, Verdict};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::claude_events::{Block, claude_event};
use crate::events;
use crate::protocol::{Answer, Decision};
use crate::runner::EnvOverride;

/// The event could not be fired.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FireError {
    /// Not a point name (nor an event name that maps to one).
    #[error("{0}")]
    UnknownPoint(#[from] events::EventError),
    /// The input is not a valid context of the point.
    #[error(
        "the input is not a valid `{point}` event: {}{source}",
        FieldPrefix(field)
    )]
    Input {
        /// The point.
        point: &'static str,
        /// Where in the input: a path such as `tool_input.command` or `edits[2]`; empty when
        /// the input as a whole is wrong (a missing field, which serde's message names).
        field: String,
        /// serde_json's message.
        source: serde_json::Error,
    },
}

/// `field `x`: ` before serde's message, when there is a field to name.
struct FieldPrefix<'a>(&'a str);

impl std::fmt::Display for FieldPrefix<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "field `{}`: ", self.0)
        }
    }
}

/// What firing one event did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Fired {
    /// The point.
    pub point: &'static str,
    /// The merged verdict, at guard points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The chosen recovery, at `error_occurred`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// The hook whose answer decided: a linked hook's or provider's name, or a configured
    /// hook's id (the configured hooks run as one entry, `config`, which is never named here
    /// when it is known which of them decided).
    pub decided_by: Option<String>,
    /// Every hook that failed.
    pub failures: Vec<FailureReport>,
    /// What the person should see although it decided nothing, each once: configured hooks
    /// the gate kept from running where that skip does not deny (see
    /// [`collect_notices`](crate::runner::collect_notices)), each naming the hook and the
    /// command that approves it. [`claude_answer`] shows them in `systemMessage`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// The merged answer of the configured hooks (command and HTTP), for what
    /// [`claude_answer`] tells Claude Code beyond what the context shows: `systemMessage`,
    /// `continue: false`, an allow's reason, a block where the point takes none, the
    /// [forwarded](crate::forward) fields.
    #[serde(skip)]
    pub answered: Answer,
    /// The context as the hooks left it (rewrites, added context).
    pub context: Value,
    /// The context as it came in.
    #[serde(skip)]
    pub input: Value,
    /// At `user_prompt_submit` and `pre_tool_use`: seed 003's turn-ready control message, with
    /// the signals the hooks emitted (in order, each naming its hook) and whether the prompt
    /// or call may go on (the verdict is `continue` or `allow`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_ready: Option<TurnReady>,
}

/// One failed hook, for printing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureReport {
    /// The hook.
    pub hook: String,
    /// What went wrong.
    pub cause: String,
    /// Whether it failed closed.
    pub failed_closed: bool,
}

impl From<&HookFailure> for FailureReport {
    fn from(f: &HookFailure) -> Self {
        FailureReport {
            hook: f.hook.to_string(),
            cause: f.cause.to_string(),
            failed_closed: f.policy == OnError::Deny,
        }
    }
}

/// Fires `point` (a point name, or any event name [`events::resolve`] knows: `PreToolUse`)
/// with `input` on `hooks`.
///
/// The context's [`Meta::project_dir`](hookrail_core::context::Meta::project_dir) stays unset,
/// so policies take the input's `cwd` as the project root: use [`fire_in`] when the project
/// root is known, as it is for an agent's hook command.
///
/// # Errors
///
/// [`FireError`] for an unknown point or an input that is not the point's context.
pub async fn fire(hooks: &Hooks, point: &str, input: Value) -> Result<Fired, FireError> {
    fire_with(hooks, point, input, FireOptions::new()).await
}

/// [`fire`] in the project rooted at `project_dir`: the decoded context's
/// [`Meta::project_dir`](hookrail_core::context::Meta::project_dir) is set to it before any hook
/// runs, so the guards protect that project whatever the input's `cwd` says (`cwd` stays where
/// relative paths start).
///
/// `project_dir` is used as given; check it first with `hookrail_builtin::check_project_root`
/// where a root of `/`, the home directory or a system directory must be refused.
///
/// ```
/// use hookrail_config::fire::fire_in;
/// use hookrail_core::context::PreToolUse;
/// use hookrail_core::points::pre_tool_use;
/// use hookrail_core::runtime::{Hook, Hooks};
/// use hookrail_core::Verdict;
/// use std::path::Path;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let hooks = Hooks::builder()
///     .ignore_env()
///     .hook(Hook::<pre_tool_use::Point>::new("root", |ctx: &mut PreToolUse| {
///         Verdict::deny(ctx.meta.project_root().display().to_string())
///     }))
///     .build()?;
/// let payload = serde_json::json!({
///     "session_id": "abc", "cwd": "/usr", "hook_event_name": "PreToolUse",
///     "tool_name": "Bash", "tool_input": {"command": "ls"}
/// });
/// let fired = fire_in(&hooks, "PreToolUse", payload, Path::new("/work/project")).await?;
/// assert_eq!(fired.verdict.unwrap().reason(), Some("/work/project"));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// As [`fire`].
pub async fn fire_in(
    hooks: &Hooks,
    point: &str,
    input: Value,
    project_dir: &Path,
) -> Result<Fired, FireError> {
    fire_with(
        hooks,
        point,
        input,
        FireOptions::new().project_dir(project_dir),
    )
    .await
}

/// [`fire_in`] for a caller that is not an AI session (seed 003 §4.3: a cron or background
/// job, a CI pipeline, a person at the command line): the decoded context's
/// [`Meta::source`](hookrail_core::context::Meta::source) is set to `source` before any hook
/// runs, whatever the input's `invocation_source` says, so guards see who is calling and
/// apply to every caller alike. `hooks fire --source` is this function.
///
/// ```
/// use hookrail_config::fire::fire_as;
/// use hookrail_core::context::{InvocationSource, PreToolUse};
/// use hookrail_core::points::pre_tool_use;
/// use hookrail_core::runtime::{Hook, Hooks};
/// use hookrail_core::Verdict;
/// use std::path::Path;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let hooks = Hooks::builder()
///     .ignore_env()
///     .hook(Hook::<pre_tool_use::Point>::new("no_ci_deploys", |ctx: &mut PreToolUse| {
///         if ctx.meta.source == InvocationSource::CiPipeline { Verdict::deny("CI does not deploy") } else { Verdict::Continue }
///     }))
///     .build()?;
/// let payload = serde_json::json!({"session_id": "job-7", "cwd": "/tmp", "tool_name": "deploy",
///     "tool_input": {}, "invocation_source": "ai_session"});
/// let fired = fire_as(&hooks, "pre_tool_use", payload, Path::new("/tmp"), InvocationSource::CiPipeline).await?;
/// assert!(fired.verdict.unwrap().is_deny());
/// assert_eq!(fired.context["invocation_source"], "ci_pipeline");
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// As [`fire`].
pub async fn fire_as(
    hooks: &Hooks,
    point: &str,
    input: Value,
    project_dir: &Path,
    source: InvocationSource,
) -> Result<Fired, FireError> {
    fire_with(
        hooks,
        point,
        input,
        FireOptions::new().project_dir(project_dir).source(source),
    )
    .await
}

/// How one event is fired beyond its point and input: the project root ([`fire_in`]), the
/// caller ([`fire_as`]), and the environment its configured hooks inherit. Built with its
/// methods, from [`FireOptions::new`] (which changes nothing: [`fire`]).
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct FireOptions<'a> {
    project_dir: Option<&'a Path>,
    source: Option<InvocationSource>,
    env: EnvOverride,
}

impl<'a> FireOptions<'a> {
    /// Options that change nothing: the context as decoded, hooks inheriting this process's
    /// environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// The project root set on the decoded context, as [`fire_in`] does.
    pub fn project_dir(mut self, project_dir: &'a Path) -> Self {
        self.project_dir = Some(project_dir);
        self
    }

    /// The caller set on the decoded context, as [`fire_as`] does.
    pub fn source(mut self, source: InvocationSource) -> Self {
        self.source = Some(source);
        self
    }

    /// For the configured hooks of this event only: `name=value` as if this process had
    /// inherited it. Command hooks get it (the program's
    /// [`ConfigHooksBuilder::env`](crate::runner::ConfigHooksBuilder::env) and a hook's own
    /// `env` still win, as over an inherited variable), and HTTP hooks read it for `${VAR}` in
    /// their headers. A long-lived process gives each event the variables its agent set for
    /// that event (`hooks serve` gives Claude Code's `CLAUDE_ENV_FILE` this way).
    ///
    /// ```
    /// use hookrail_config::file::parse_claude;
    /// use hookrail_config::fire::{fire_with, FireOptions};
    /// use hookrail_config::runner::ConfigHooks;
    /// use hookrail_core::runtime::Hooks;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let command = r#"echo "export FOO=bar" >> "$CLAUDE_ENV_FILE""#;
    /// let json = serde_json::json!({ "hooks": { "SessionStart": [
    ///     { "hooks": [{ "type": "command", "command": command }] }] } }).to_string();
    /// let config = parse_claude(&json, "settings.json".as_ref(), None).unwrap();
    /// let configured = ConfigHooks::builder(dir.path()).allow(command).build(config)?;
    /// let hooks = Hooks::builder().ignore_env().build()?;
    /// configured.attach(&hooks)?;
    ///
    /// let env_file = dir.path().join("session.env");
    /// let payload = serde_json::json!({ "hook_event_name": "SessionStart", "session_id": "s1",
    ///     "cwd": dir.path(), "source": "startup" });
    /// let options = FireOptions::new().env("CLAUDE_ENV_FILE", env_file.to_str().unwrap());
    /// fire_with(&hooks, "SessionStart", payload, options).await?;
    /// assert_eq!(std::fs::read_to_string(&env_file)?, "export FOO=bar\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), Some(value.into()));
        self
    }

    /// For the configured hooks of this event only: `name` as if this process had not
    /// inherited it (it was inherited for another purpose; the program's or a hook's own
    /// `env` may still set it).
    pub fn env_remove(mut self, name: impl Into<String>) -> Self {
        self.env.insert(name.into(), None);
        self
    }
}

/// Fires `point` with `input` on `hooks`, as [`fire`] does, with `options`: [`fire_in`] and
/// [`fire_as`] are this function with a project root and a caller.
///
/// # Errors
///
/// As [`fire`].
pub async fn fire_with(
    hooks: &Hooks,
    point: &str,
    input: Value,
    options: FireOptions<'_>,
) -> Result<Fired, FireError> {
    let point = events::resolve(point)?;
    let FireOptions {
        project_dir,
        source,
        env,
    } = options;
    // Most events change nothing of the environment: nothing to share with the hooks then.
    let env = (!env.is_empty()).then(|| Arc::new(env));
    // What each kind's merged result is kept as.
    let verdict = |f: &mut Fired, v: Verdict| f.verdict = Some(v);
    let recovery = |f: &mut Fired, r: Option<Recovery>| f.recovery = r;
    let nothing = |_: &mut Fired, ()| {};
    macro_rules! keep {
        (guard) => {
            verdict
        };
        (observe) => {
            nothing
        };
    }
    macro_rules! generic {
        ($($kind:ident $name:ident),* $(,)?) => {
            match point {
                $(stringify!($name) => {
                    return run::<crate::generic::$name::Point>(hooks, input, project_dir, source, env, keep!($kind)).await;
                })*
                _ => {}
            }
        };
    }
    crate::generic::generic_points!(generic);
    macro_rules! typed {
        ($($name:ident => $keep:expr),* $(,)?) => {
            match point {
                $(stringify!($name) => run::<$name::Point>(hooks, input, project_dir, source, env, $keep).await,)*
                other => unreachable!("events::resolve returned `{other}`, which is not a point"),
            }
        };
    }
    typed! {
        session_start => nothing, session_end => nothing,
        user_prompt_submit => verdict, pre_model_call => verdict,
        model_stream_chunk => nothing, post_model_call => nothing,
        pre_tool_use => verdict, post_tool_use => nothing,
        step_end => nothing, stop => verdict, pre_compact => nothing,
        subagent_start => verdict, subagent_stop => nothing,
        error_occurred => recovery, notification => nothing,
        pre_queue_drain => nothing, post_queue_drain => nothing,
        permission_request => verdict, post_tool_batch => verdict, pre_model_switch => verdict,
    }
}

/// Deserializes the context, dispatches it, and reports what came of it.
async fn run<P: HookPoint>(
    hooks: &Hooks,
    input: Value,
    project_dir: Option<&Path>,
    invocation: Option<InvocationSource>,
    env: Option<Arc<EnvOverride>>,
    keep: impl FnOnce(&mut Fired, Ret<P>),
) -> Result<Fired, FireError>
where
    P::Context: DeserializeOwned + Serialize,
{
    let mut ctx: P::Context =
        decode::<P::Context>(&input).map_err(|(field, source)| FireError::Input {
            point: P::NAME,
            field,
            source,
        })?;
    // Every standard context has a `Meta` (`meta_of_mut` and `meta_of` share one list, tested
    // in hookrail-core); a generic point's context is the payload, which has none to set.
    if let Some(meta) = meta_of_mut(&mut ctx) {
        if let Some(dir) = project_dir {
            meta.project_dir = Some(Arc::from(dir));
        }
        if let Some(source) = invocation {
            meta.source = source;
        }
    }
    let payload = Arc::new(input);
    // What the context says before any hook ran: what differs later is a hook's rewrite. Only
    // the configured hooks' entry reads it (to send them the agent's payload with the rewrites
    // of the hooks before them): without it at this point, the serialization is saved.
    let baseline = hooks
        .has_hook(P::NAME, crate::runner::ENTRY_NAME)
        .then(|| crate::protocol::input(P::NAME, &ctx).unwrap_or(Value::Null));
    let (outcome, notes) = crate::runner::collect_for(
        P::NAME,
        Arc::clone(&payload),
        baseline,
        env,
        hooks.dispatch_async::<P>(&mut ctx),
    )
    .await;
    let input = Arc::try_unwrap(payload).unwrap_or_else(|shared| (*shared).clone());
    // The configured hooks run as one entry, `config`; name the one that decided.
    let decided_by = outcome.decided_by.map(|h| match notes.decided_at(P::NAME) {
        Some(id) if h == crate::runner::ENTRY_NAME => id.to_owned(),
        _ => h.to_string(),
    });
    let mut fired = Fired {
        point: P::NAME,
        verdict: None,
        recovery: None,
        decided_by,
        failures: outcome.failures.iter().map(FailureReport::from).collect(),
        answered: notes.answer_at(P::NAME),
        notices: notes.notices,
        // Serializing a context that just deserialized cannot fail.
        context: serde_json::to_value(&ctx).unwrap_or(Value::Null),
        input,
        turn_ready: None,
    };
    keep(&mut fired, outcome.value);
    apply_signals(&mut fired);
    Ok(fired)
}

/// Seed 003 at the AI-facing points: at `pre_tool_use` the `ability_guard` signals decide as
/// in a session ([`guard_decision`]; `require_human` is an `ask`, since a process that answers
/// one event has no session to disable a tool in), and both points get their turn-ready
/// control message.
fn apply_signals(fired: &mut Fired) {
    let Some(event) = SignalEvent::of_point(fired.point) else {
        return;
    };
    let signals: Vec<HookSignal> = fired
        .context
        .get("hook_signals")
        .and_then(|v| Vec::<HookSignal>::deserialize(v).ok())
        .unwrap_or_default();
    let verdict = fired.verdict.get_or_insert(Verdict::Continue);
    let ability = fired.context.get("tool_name").and_then(Value::as_str);
    if event == SignalEvent::PreAbilityCall
        && let GuardDecision::Denied {
            hook_id,
            reason,
            require_human,
            ..
        } = guard_decision(ability.unwrap_or_default(), &signals)
    {
        let by_signal = if require_human {
            Verdict::ask(reason)
        } else {
            Verdict::deny(reason)
        };
        if by_signal.severity() > verdict.severity() {
            *verdict = by_signal;
            fired.decided_by = Some(hook_id);
        }
    }
    let ready = matches!(verdict, Verdict::Continue | Verdict::Allow);
    fired.turn_ready = Some(match event {
        SignalEvent::PromptSubmit => TurnReady::for_prompt(ready, signals),
        SignalEvent::PreAbilityCall => {
            TurnReady::for_ability(ability.unwrap_or_default(), ready, signals)
        }
    });
}

/// Reads `input` as `T`; on error, the path of the field that did not fit and serde's message.
///
/// The shared fields (`session_id`, `cwd`, `turn`, …) are a flattened `Meta` in every context,
/// and serde reads a flattened struct from a buffer that does not track where it is: an error
/// there comes back without a path. Reading `Meta` alone then names the field.
fn decode<T: DeserializeOwned>(input: &Value) -> Result<T, (String, serde_json::Error)> {
    // Tracking the path costs on every field; it is only needed to name the one that failed.
    if let Ok(value) = T::deserialize(input) {
        return Ok(value);
    }
    let whole = match serde_path_to_error::deserialize::<_, T>(input) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    let path = field_path(whole.path());
    if !path.is_empty() {
        return Err((path, whole.into_inner()));
    }
    match serde_path_to_error::deserialize::<_, hookrail_core::context::Meta>(input) {
        Err(meta) if !field_path(meta.path()).is_empty() => {
            Err((field_path(meta.path()), meta.into_inner()))
        }
        _ => Err((path, whole.into_inner())),
    }
}

/// `tool_input.edits[2]`; empty for the input itself (serde_path_to_error writes `.`, and `?`
/// for a step it could not name).
fn field_path(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text == "." || text.starts_with('?') {
        String::new()
    } else {
        text
    }
}

/// Claude Code's answer to the event that was fired: the JSON to print on stdout and the exit
/// code (always 0: every decision goes in the JSON, which Claude Code reads on exit 0).
///
/// | point | answer |
/// |---|---|
/// | `pre_tool_use`, `pre_model_switch` | `hookSpecificOutput.permissionDecision` (+ reason); at `pre_tool_use` `updatedInput` when rewritten |
/// | `permission_request` | `hookSpecificOutput.decision.behavior` `allow` or `deny` (+ `message`); an ask is no answer (the dialog shows) |
/// | `elicitation`, `elicitation_result` | `hookSpecificOutput.action: "decline"` on deny |
/// | other guard points whose event can block (`user_prompt_submit`, `stop`, `config_change`, `pre_model_call`, …) | `decision: "block"` + `reason` on deny or ask |
/// | guard points whose event cannot block (`subagent_start`) | `decision: "block"` + `reason` on deny, and said in `systemMessage` (Claude Code may not honour it) |
/// | `post_tool_use` | `updatedToolOutput` when rewritten |
/// | points that take no decision where the event can be blocked (`PostToolUse`, `SubagentStop`, `PreCompact`) | `decision: "block"` + `reason` when a configured hook blocked |
/// | every point | `hookSpecificOutput.additionalContext` with the context hooks added (or, where the point keeps none, the configured hooks' context); `continue: false` + `stopReason` when a configured hook said so; `systemMessage`: the configured hooks' messages, then the failed hooks, then the [notices](Fired::notices) (one a line); the [forwarded](crate::forward) fields of the configured hooks |
///
/// An allow's `permissionDecisionReason` is the configured hook's. At `WorktreeCreate` the last
/// line of the configured hooks' plain stdout is the `worktreePath`. The merge rule of each
/// field is documented in `docs/claude-events.md`.
pub fn claude_answer(fired: &Fired) -> (Value, i32) {
    let mut out = Map::new();
    let mut specific = Map::new();
    // The event's own name (`PostToolUseFailure` is answered as such).
    let event = fired
        .input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .or_else(|| events::claude_event_name(fired.point))
        .unwrap_or(fired.point);
    // A rewrite is a field the event had and a hook changed (not one filled in by default).
    let changed = |field: &str| {
        let before = fired.input.get(field)?;
        let after = fired.context.get(field)?;
        (after != before).then(|| after.clone())
    };
    let info = claude_event(event);
    // How the event takes a decision: its row of the table; a point Claude Code lacks
    // (`pre_model_call`) answers with `decision: "block"`.
    let form = info.map_or(
        if fired.point == "pre_tool_use" {
            Block::PermissionDecision
        } else {
            Block::Decision
        },
        |e| e.block,
    );
    let hooks = &fired.answered;
    let mut unhonoured = false;
    if let Some(verdict) = &fired.verdict {
        // An allow carries no reason in a verdict; the configured hook's is still the user's
        // to see.
        let allow_reason = (matches!(verdict, Verdict::Allow) && hooks.decision == Decision::Allow)
            .then_some(hooks.reason.as_deref())
            .flatten();
        let reason = verdict.reason().or(allow_reason);
        match (form, verdict) {
            (_, Verdict::Continue) => {}
            (Block::PermissionDecision, _) => {
                let decision = match verdict {
                    Verdict::Allow => "allow",
                    Verdict::Ask(_) => "ask",
                    _ => "deny",
                };
                specific.insert("permissionDecision".into(), json!(decision));
                if let Some(reason) = reason {
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
            }
            // The dialog is shown anyway: an ask leaves it to the user.
            (Block::Behavior, Verdict::Ask(_)) => {}
            (Block::Behavior, _) => {
                let mut decision = Map::new();
                let allow = matches!(verdict, Verdict::Allow);
                decision.insert(
                    "behavior".into(),
                    json!(if allow { "allow" } else { "deny" }),
                );
                if let (false, Some(reason)) = (allow, reason) {
                    decision.insert("message".into(), json!(reason));
                }
                specific.insert("decision".into(), Value::Object(decision));
            }
            (_, Verdict::Allow) => {}
            // Claude Code has no "ask" outside tool calls; a human must look, so it blocks.
            (Block::Decision, _) => {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason.unwrap_or_default()));
            }
            (Block::Action, _) => {
                specific.insert("action".into(), json!("decline"));
                out.insert("reason".into(), json!(reason.unwrap_or_default()));
            }
            // A guard here whose event Claude Code does not let block (`SubagentStart`): the
            // block is answered all the same, and said, since it may not be honoured.
            (Block::No, _) => {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason.unwrap_or_default()));
                unhonoured = true;
            }
        }
        if form == Block::PermissionDecision
            && fired.point == "pre_tool_use"
            && let Some(input) = changed("tool_input")
        {
            specific.insert("updatedInput".into(), input);
        }
    }
    if fired.point == "post_tool_use"
        && let Some(output) = changed("tool_response")
    {
        specific.insert("updatedToolOutput".into(), output);
    }
    // A block at an event whose point takes no decision here (`PostToolUse`, `SubagentStop`,
    // `PreCompact`): Claude Code gives its reason to the model.
    let mut block_reason = None;
    if fired.verdict.is_none()
        && hooks.decision == Decision::Deny
        && (form == Block::Decision || matches!(event, "PostToolUse" | "PostToolUseFailure"))
    {
        let reason = hooks
            .reason
            .clone()
            .unwrap_or_else(|| "blocked by a hook".to_owned());
        out.insert("decision".into(), json!("block"));
        out.insert("reason".into(), json!(reason));
        block_reason = Some(reason);
    }
    if let Some(reason) = &hooks.stop {
        out.insert("continue".into(), json!(false));
        out.insert("stopReason".into(), json!(reason));
    }
    let before = fired
        .input
        .get("additional_context")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut added: Vec<&str> = fired
        .context
        .get("additional_context")
        .and_then(Value::as_array)
        .map(|all| all.iter().skip(before).filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // `post_tool_use` keeps a block's reason as context for a Rust agent; Claude Code has it
    // as the block's `reason` already.
    if let Some(reason) = &block_reason
        && let Some(at) = added.iter().position(|c| c == reason)
    {
        added.remove(at);
    }
    if !crate::runner::applies_context(fired.point) {
        added.extend(hooks.additional_context.iter().map(String::as_str));
        // An event whose hooks' plain stdout is context, at a point with no context of its own
        // to carry it (`PostModelSwitch`).
        if crate::claude_events::claude_event(event).is_some_and(|e| e.plain_stdout_is_context)
            && let Some(text) = hooks.plain_text.as_deref()
        {
            added.push(text);
        }
    }
    if !added.is_empty() {
        specific.insert("additionalContext".into(), json!(added.join("\n\n")));
    }
    let mut message = system_message(fired);
    if let Some(said) = &hooks.system_message {
        message = Some(match message {
            Some(m) => format!("{said}\n{m}"),
            None => said.clone(),
        });
    }
    if unhonoured {
        // Never silent: the user sees that this block may not hold (its reason is `reason`).
        let line =
            format!("the block at {event} may not be honoured: Claude Code lets no hook block it");
        message = Some(match message {
            Some(m) => format!("{m}\n{line}"),
            None => line,
        });
    }
    if let Some(message) = message {
        out.insert("systemMessage".into(), json!(message));
    }
    if !specific.is_empty() {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    let mut forwarded = hooks.forwarded.clone();
    // A command hook answers `WorktreeCreate` with the path as its last line of stdout.
    if event == "WorktreeCreate"
        && let Some(line) = hooks
            .plain_text
            .as_deref()
            .and_then(|t| t.lines().rev().map(str::trim).find(|l| !l.is_empty()))
    {
        forwarded.set_default(&["hookSpecificOutput", "worktreePath"], json!(line));
    }
    forwarded.write(&mut out);
    if let Some(Value::Object(specific)) = out.get_mut("hookSpecificOutput") {
        specific
            .entry("hookEventName")
            .or_insert_with(|| json!(event));
    }
    (Value::Object(out), 0)
}

/// The failures, then each notice not already said, one a line; `None` when there is nothing.
fn system_message(fired: &Fired) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    if !fired.failures.is_empty() {
        let list: Vec<String> = fired
            .failures
            .iter()
            .map(|f| format!("{}: {}", f.hook, f.cause))
            .collect();
        lines.push(format!("hook failures: {}", list.join("; ")));
    }
    for notice in &fired.notices {
        if !lines.iter().any(|line| line.contains(notice.as_str())) {
            lines.push(notice.clone());
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}
