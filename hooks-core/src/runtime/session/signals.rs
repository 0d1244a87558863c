//! Seed 003 in a [`Session`]: the turn-ready control message of the last prompt or tool call,
//! and the tools `ABILITY_DENIED` signals disabled for the session.

use std::collections::BTreeMap;

use crate::outcome::HookName;
use crate::signal::{GuardDecision, HookSignal, TurnReady, guard_decision};

use super::{Session, SessionError};

/// What a session keeps of the signals its hooks emitted.
#[derive(Debug, Default)]
pub(super) struct SignalState {
    /// The control message of the last `submit_prompt` or `tool_call`.
    last: Option<TurnReady>,
    /// Tool name → why it is disabled (the denying signal, named).
    disabled: BTreeMap<String, String>,
}

impl Session {
    /// The turn-ready control message (seed 003 §4.2) of the last
    /// [`submit_prompt`](Session::submit_prompt) or [`tool_call`](Session::tool_call): the
    /// signals of every hook that ran, in order, and whether the turn or call went ahead
    /// (`false` after a denial). Every hook has finished when it is set, so an agent loop
    /// hands it to the model as the one start signal. `None` before the first prompt or call.
    ///
    /// ```
    /// use hookrail_core::context::{Meta, UserPromptSubmit};
    /// use hookrail_core::points::user_prompt_submit;
    /// use hookrail_core::runtime::{Hook, Hooks, Session};
    /// use hookrail_core::signal::{HookSignal, NormalizedIntent, SignalEvent};
    /// use hookrail_core::Verdict;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let hooks = Hooks::builder()
    ///     .ignore_env()
    ///     .hook(Hook::<user_prompt_submit::Point>::new("intent", |ctx: &mut UserPromptSubmit| {
    ///         ctx.add_signal(HookSignal::normalized_intent("intent", &NormalizedIntent::default()));
    ///         Verdict::Continue
    ///     }))
    ///     .build()?;
    /// let mut session = Session::start(hooks, Meta::new("s1"), "m").await?;
    /// assert!(session.turn_ready().is_none());
    /// session.submit_prompt("what checks run before a commit?").await?;
    /// let ready = session.turn_ready().unwrap();
    /// assert!(ready.ready);
    /// assert_eq!(ready.source_event, SignalEvent::PromptSubmit);
    /// assert_eq!(ready.hook_signals[0].hook_id, "intent");
    /// # Ok(())
    /// # }
    /// ```
    pub fn turn_ready(&self) -> Option<&TurnReady> {
        self.signals.last.as_ref()
    }

    /// The tools an `ABILITY_DENIED` signal without `require_human` disabled for this
    /// session, each with the reason naming the signal; later calls of them are denied with
    /// that reason and no hook runs.
    pub fn disabled_tools(&self) -> impl Iterator<Item = (&str, &str)> {
        self.signals
            .disabled
            .iter()
            .map(|(tool, why)| (tool.as_str(), why.as_str()))
    }

    /// Takes the last control message out.
    pub(super) fn signals_last(&mut self) -> Option<TurnReady> {
        self.signals.last.take()
    }

    pub(super) fn set_turn_ready(&mut self, ready: TurnReady) {
        self.signals.last = Some(ready);
    }

    /// The reason a call of `tool` is refused because a signal disabled it.
    pub(super) fn disabled_reason(&self, tool: &str) -> Option<String> {
        let why = self.signals.disabled.get(tool)?;
        Some(format!("`{tool}` is disabled for this session: {why}"))
    }

    /// Enforces the `ability_guard` signals of a call of `tool`: the first `ABILITY_DENIED`
    /// decides. With `require_human` the approver decides (no approver: refused); without,
    /// `tool` is disabled for the session. `Ok` to go on.
    pub(super) fn enforce_guards(
        &mut self,
        tool: &str,
        signals: &[HookSignal],
    ) -> Result<(), SessionError> {
        let GuardDecision::Denied {
            hook_id,
            reason,
            require_human,
            disable,
        } = guard_decision(tool, signals)
        else {
            return Ok(());
        };
        if require_human {
            if self
                .approver
                .as_deref()
                .is_some_and(|approve| approve("pre_tool_use", &reason))
            {
                tracing::info!(hook = %hook_id, tool, "a person approved a call an ability_guard sent to them");
                return Ok(());
            }
            tracing::info!(hook = %hook_id, tool, %reason, "an ability_guard requires a person; not approved");
            return Err(denied(&hook_id, format!("needs approval: {reason}")));
        }
        if disable {
            tracing::warn!(hook = %hook_id, tool, %reason, "tool disabled for the session by an ability_guard");
            self.signals
                .disabled
                .insert(tool.to_owned(), reason.clone());
        }
        Err(denied(&hook_id, reason))
    }
}

fn denied(hook_id: &str, reason: String) -> SessionError {
    SessionError::Denied {
        point: "pre_tool_use",
        by: Some(HookName::intern(hook_id)),
        reason,
        failure: false,
    }
}
