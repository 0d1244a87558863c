//! [rig](https://docs.rs/rig-agent) agents with hookrail hooks: [`RigHooks`] implements rig's
//! [`AgentHook`](rig_agent::AgentHook) over a [`Hooks`] set, so that a rig run fires the
//! standard points with filled contexts, and their verdicts and rewrites steer the run.
//!
//! | rig event | points | what the outcome does to the run |
//! |---|---|---|
//! | run start | `session_start`, `user_prompt_submit` | a model set by `session_start` is selected by label for every model call of the run; a deny (or unapproved ask) of the prompt stops the run before any model call; a rewritten prompt replaces it; added context goes with every model call of the run |
//! | completion call | `pre_model_call` | a deny stops the run; added context goes with this call; a switched model is selected by label for this call |
//! | completion outcome | `post_model_call` | a rewritten `response` (a scrubbed secret) replaces the reply's text before the run commits it |
//! | tool dispatch | `pre_tool_use` (with `tool_use_id` = rig's call id) | a deny skips the tool, and the model gets the reason as the call's result; a rewritten `tool_input` is what the tool runs with |
//! | tool outcome | `post_tool_use` | a rewritten `tool_response` or `error` is what the model sees; a suppressed output ([`PostToolUse::output_suppressed`](hookrail_core::context::PostToolUse::output_suppressed)) is replaced by [`SUPPRESSED_OUTPUT`](hookrail_core::context::SUPPRESSED_OUTPUT); added context is appended to the result |
//! | run settled | `session_end` | counters: tokens, model and tool calls, duration |
//!
//! A rig run is one hookrail session: its id is rig's run id, the other [`Meta`] fields come
//! from [`RigHooks::with_meta`].
//!
//! # What rig cannot express, and what the adapter does instead
//!
//! | hookrail | rig 0.44 | the adapter |
//! |---|---|---|
//! | `Ask` verdict (a person decides) | no ask: a hook proceeds, skips or stops | the approver ([`RigHooks::with_approver`]) decides, as [`Session`](hookrail_core::runtime::Session) does; without one the ask is refused (a skipped tool, a stopped run) |
//! | `additional_context` of `pre_tool_use` / `post_tool_use` | no per-tool context channel | appended to that call's result as text blocks, after the output |
//! | `additional_context` of `session_start`, `user_prompt_submit`, `pre_model_call` | per-call request patches only | context documents ([`RequestPatch::context`](rig_agent::agent::RequestPatch::context)) on every model call of the run (session, prompt) or on that call (model call) |
//! | model switch (`pre_model_call` rewriting `model`) | models are chosen by label among those registered on the agent's bus | the new name is selected as a label; a name the agent does not know fails the run (rig's error), never calls the old model silently |
//! | `deny` of a model call | no skip for a completion | the run stops with the reason |
//! | a hook failing closed at a transform (`post_tool_use`, `post_model_call`, `session_start`) | | the run stops: unscrubbed output never reaches the model |
//! | `model_stream_chunk` | streamed deltas are provisional | not fired; `post_model_call` rewrites the reply a run commits, on both media, but a streaming consumer has already seen the raw deltas |
//! | `directives` captured at `user_prompt_submit` | a run returns its answer only | not returned: a hook that captures directives keeps them itself (seed 000's own example writes them to the team's decisions); [`Session::submit_prompt`](hookrail_core::runtime::Session::submit_prompt) returns them |
//! | `error_occurred` and its recoveries (retry, fallback, modified prompt) | | not fired by this adapter yet: a failed completion ends the run (`session_end` with `success: false`); [`Session::call_model`](hookrail_core::runtime::Session::call_model) honours them |
//! | a tool call whose arguments are not a JSON object | rig answers it itself (`on_invalid_tool_call`) before any dispatch | nothing runs, so no point fires |
//!
//! # Example
//!
//! An agent with the command guard and the scrubber (the README's snippet; it needs an
//! `OPENAI_API_KEY`, so it is compiled, not run):
//!
//! ```no_run
//! use hookrail_builtin::{BuiltinConfig, Builtins};
//! use hookrail_core::runtime::Hooks;
//! use hookrail_rig::RigHooks;
//! use rig_agent::AgentBuilder;
//! use rig_core::providers::openai::OpenAI;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let config: BuiltinConfig =
//!         serde_json::from_str(r#"{ "command_guard": {}, "pii_scrub": {} }"#)?;
//!     let hooks = Builtins::new(config)?.install(Hooks::builder())?;
//!     let agent = AgentBuilder::new(OpenAI::from_env()?.chat("gpt-4o-mini"))
//!         // .tool(your_shell_tool).tool(your_file_tool)
//!         .add_hook(RigHooks::new(hooks, "gpt-4o-mini").with_approver(|_point, _reason| false))
//!         .build();
//!     let answer = agent.prompt("Free some disk space").max_turns(8).await?;
//!     println!("{}", answer.output());
//!     Ok(())
//! }
//! ```
//!
//! The crate's `examples/rig_agent.rs` runs a real rig agent against a local
//! OpenAI-compatible server with the builtin guards on.

mod convert;
mod hook;
mod state;

use std::fmt;
use std::sync::Arc;

use hookrail_core::context::Meta;
use hookrail_core::runtime::Hooks;

type Approver = Arc<hookrail_core::runtime::ApproveFn>;

/// A rig [`AgentHook`](rig_agent::AgentHook) that runs a hookrail [`Hooks`] set at every
/// point of a rig run (see the [crate docs](crate) for the mapping). Cheap to clone; add it
/// with `AgentBuilder::add_hook` or `AgentRunner::add_hook`.
#[derive(Clone)]
pub struct RigHooks {
    hooks: Hooks,
    meta: Meta,
    model: String,
    approver: Option<Approver>,
}

impl RigHooks {
    /// An adapter running `hooks`, for an agent built on `model` (the name hooks see in
    /// `session_start` and `pre_model_call`, and the label a switch away from it is compared
    /// with).
    ///
    /// ```
    /// use hookrail_core::context::Meta;
    /// use hookrail_core::runtime::Hooks;
    /// use hookrail_rig::RigHooks;
    ///
    /// let adapter = RigHooks::new(Hooks::builder().build()?, "gpt-4o-mini")
    ///     .with_meta(Meta::new("").with_agent("reviewer"))
    ///     .with_approver(|point, reason| {
    ///         tracing::warn!(point, reason, "refused: nobody to ask");
    ///         false
    ///     });
    /// assert_eq!(adapter.model(), "gpt-4o-mini");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(hooks: Hooks, model: impl Into<String>) -> Self {
        RigHooks {
            hooks,
            meta: Meta::new(""),
            model: model.into(),
            approver: None,
        }
    }

    /// The fields every context of a run starts from (agent name, working directory,
    /// project root, tenant, invocation source…). The session id is always the rig run's id;
    /// an agent name set on the rig agent wins over the one here.
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = meta;
        self
    }

    /// Decide `Ask` verdicts with `approve(point, reason)` (for instance by asking the user).
    /// Without an approver every `Ask` is refused, as in
    /// [`Session::with_approver`](hookrail_core::runtime::Session::with_approver).
    #[must_use]
    pub fn with_approver(
        mut self,
        approve: impl Fn(&'static str, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approver = Some(Arc::new(approve));
        self
    }

    /// The hook set.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// The model name the adapter was built for.
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl fmt::Debug for RigHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigHooks")
            .field("model", &self.model)
            .field("agent", &self.meta.agent_name)
            .field("approver", &self.approver.is_some())
            .finish_non_exhaustive()
    }
}
