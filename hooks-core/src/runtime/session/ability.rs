//! [`AbilityRunner`]: the one way callers that are not an AI session (cron and background
//! jobs, CI pipelines, a person at the command line) run an ability, so that `pre_tool_use`
//! guards and `ability_guard` signals apply to them exactly as to the agent (seed 003 §4.3).

use std::sync::Arc;

use serde_json::Value;

use crate::context::{InvocationSource, Meta, ToolCall};
use crate::signal::TurnReady;

use super::{Session, SessionError, ToolError, ToolRun};
use crate::runtime::Hooks;

/// Runs abilities (tools) for a caller that is not an AI session, through the same code as
/// [`Session::tool_call`]: `pre_tool_use` with the context's
/// [`Meta::source`] set to the caller's [`InvocationSource`] (hooks and command hooks see it
/// as `invocation_source`), the `ability_guard` signals, the ability unless denied, then
/// `post_tool_use`. An ability an `ABILITY_DENIED` signal disabled stays disabled for the
/// runner's life; `require_human` goes to the approver, and without one (the usual case for
/// a job) the call is refused. No `session_start` or `session_end` fires: there is no
/// session, only calls.
///
/// ```
/// use hookrail_core::context::{InvocationSource, PreToolUse, ToolCall};
/// use hookrail_core::points::pre_tool_use;
/// use hookrail_core::runtime::{AbilityRunner, Hook, Hooks, ToolRun};
/// use hookrail_core::signal::HookSignal;
/// use hookrail_core::Verdict;
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let hooks = Hooks::builder()
///     .ignore_env()
///     .hook(Hook::<pre_tool_use::Point>::new("no_migrations_from_ci", |ctx: &mut PreToolUse| {
///         if ctx.meta.source == InvocationSource::CiPipeline && ctx.tool_name == "apply_migration" {
///             ctx.add_signal(HookSignal::ability_denied("no_migrations_from_ci", "apply_migration", "CI must not migrate", false));
///         }
///         Verdict::Continue
///     }))
///     .build()?;
/// let mut runner = AbilityRunner::new(hooks, InvocationSource::CiPipeline);
/// let call = ToolCall::new("", "apply_migration", json!({}));
/// let run = runner.execute(call, async |_| Ok(json!("migrated"))).await?;
/// assert!(matches!(run, ToolRun::Denied { .. }));
/// assert!(!runner.turn_ready().unwrap().ready);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct AbilityRunner {
    session: Session,
}

impl AbilityRunner {
    /// A runner for `source`; the contexts' session id is the source's name
    /// (`background_job`), the working directory the process's.
    pub fn new(hooks: Hooks, source: InvocationSource) -> Self {
        AbilityRunner::with_meta(hooks, Meta::new(source.as_str()).with_source(source))
    }

    /// A runner whose contexts are stamped from `meta` (a job id as the session id, a
    /// project directory, a tenant); set its source with [`Meta::with_source`].
    pub fn with_meta(hooks: Hooks, meta: Meta) -> Self {
        AbilityRunner {
            session: Session::fresh(hooks, meta, String::new(), Vec::new()),
        }
    }

    /// Decide `require_human` guards (and `Ask` verdicts) with `approve(point, reason)`;
    /// without an approver they are refused.
    #[must_use]
    pub fn with_approver(
        mut self,
        approve: impl Fn(&'static str, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.session.approver = Some(Arc::new(approve));
        self
    }

    /// The caller this runner runs for.
    pub fn source(&self) -> InvocationSource {
        self.session.meta.source
    }

    /// Run one ability: see [`Session::tool_call`].
    ///
    /// # Errors
    ///
    /// As [`Session::tool_call`]; a denial is [`ToolRun::Denied`], not an error.
    pub async fn execute<F>(&mut self, call: ToolCall, run: F) -> Result<ToolRun, SessionError>
    where
        F: AsyncFnOnce(&Value) -> Result<Value, ToolError>,
    {
        self.session.tool_call(call, run).await
    }

    /// The control message of the last [`execute`](Self::execute): the guards' signals and
    /// whether the ability ran.
    pub fn turn_ready(&self) -> Option<&TurnReady> {
        self.session.turn_ready()
    }

    /// The abilities an `ABILITY_DENIED` signal disabled for this runner, with the reasons.
    pub fn disabled(&self) -> impl Iterator<Item = (&str, &str)> {
        self.session.disabled_tools()
    }
}

/// Run one ability for `source` through a new [`AbilityRunner`] (the seed's
/// `execute_ability(ability_id, args, invocation_source)`): returns the run and its control
/// message.
///
/// ```
/// use hookrail_core::context::{InvocationSource, ToolCall};
/// use hookrail_core::runtime::{Hooks, ToolRun, execute_ability};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let hooks = Hooks::builder().ignore_env().build()?;
/// let call = ToolCall::new("", "rebuild_index", json!({}));
/// let (run, ready) = execute_ability(&hooks, InvocationSource::BackgroundJob, call, async |_| Ok(json!("done"))).await?;
/// assert!(matches!(run, ToolRun::Ran(post) if post.meta.source == InvocationSource::BackgroundJob));
/// assert!(ready.ready);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// As [`AbilityRunner::execute`].
pub async fn execute_ability<F>(
    hooks: &Hooks,
    source: InvocationSource,
    call: ToolCall,
    run: F,
) -> Result<(ToolRun, TurnReady), SessionError>
where
    F: AsyncFnOnce(&Value) -> Result<Value, ToolError>,
{
    let mut runner = AbilityRunner::new(hooks.clone(), source);
    let ran = runner.execute(call, run).await?;
    let ready = runner.session.signals_last().unwrap_or_else(|| {
        // `execute` always records one; an empty, not-ready message if that ever changes.
        TurnReady::for_ability("", false, Vec::new())
    });
    Ok((ran, ready))
}
