//! Seed 003 in the runner: the signals a configured hook answered with (stamped with its id,
//! or ignored and reported where the point takes none), and the `blocking: false` hooks of the
//! infra-only points, run in the background.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hookrail_core::signal::SignalEvent;
use tokio::task::JoinHandle;

use super::{HookSet, Member, Shared};
use crate::protocol::Answer;
use crate::spec::HookSpec;

/// What the runner keeps for seed 003: the hooks already reported as misconfigured, and the
/// background runs still going.
#[derive(Default)]
pub(crate) struct Background {
    /// `(hook id, point)` pairs whose ignored signals were reported: each is reported once.
    reported: Mutex<HashSet<(String, &'static str)>>,
    /// Background runs; finished ones are dropped as new ones start.
    running: Mutex<Vec<JoinHandle<()>>>,
}

impl Shared {
    /// The answer with its signals made fit for `point`: stamped with the hook's id and the
    /// point's event where the point takes signals, dropped (and reported once per hook and
    /// point) where it does not.
    pub(super) fn take_signals(
        &self,
        spec: &HookSpec,
        point: &'static str,
        mut answer: Answer,
    ) -> Answer {
        if answer.hook_signals.is_empty() {
            return answer;
        }
        let Some(event) = SignalEvent::of_point(point) else {
            let first = self
                .background
                .reported
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert((spec.id.clone(), point));
            if first {
                tracing::warn!(
                    target: "hookrail_config::runner",
                    hook = %spec.id, location = %spec.location, point,
                    signals = answer.hook_signals.len(),
                    "misconfigured hook: hook_signals are AI-facing and only taken at user_prompt_submit and pre_tool_use; ignored here (reported once)"
                );
            }
            answer.hook_signals.clear();
            return answer;
        };
        if !spec.blocking {
            tracing::info!(
                target: "hookrail_config::runner",
                hook = %spec.id, point, signals = answer.hook_signals.len(),
                "a blocking: false hook's hook_signals are not passed to the agent"
            );
        }
        for signal in &mut answer.hook_signals {
            if !signal.hook_id.is_empty() && signal.hook_id != spec.id {
                tracing::debug!(
                    target: "hookrail_config::runner",
                    hook = %spec.id, printed = %signal.hook_id,
                    "a signal's hook_id is the configured hook's id, not the one it printed"
                );
            }
            signal.hook_id.clone_from(&spec.id);
            signal.source_event = event;
        }
        answer
    }

    /// Starts `members` (non-blocking hooks of an infra-only point) without waiting for them,
    /// with the dispatch's `env`. Their runs are reported as any other (events, logs); nothing
    /// they answer is applied.
    pub(super) fn spawn_background(
        self: &Arc<Self>,
        set: &Arc<HookSet>,
        members: Vec<Arc<Member>>,
        point: &'static str,
        body: &[u8],
        env: Option<Arc<super::EnvOverride>>,
    ) {
        let body: Arc<[u8]> = body.into();
        let mut running = self
            .background
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        running.retain(|task| !task.is_finished());
        for member in members {
            let (shared, set, body, env) = (self.clone(), set.clone(), body.clone(), env.clone());
            running.push(tokio::spawn(async move {
                // `blocking: false`: a failure or a refusal is logged by `run_one`; never applied.
                if let Ok(super::run::Reply::Skipped(notice)) = shared
                    .run_one(&set, &member, point, body, env.as_deref())
                    .await
                {
                    tracing::warn!(target: "hookrail_config::runner", point, "{notice}");
                }
            }));
        }
    }

    /// Waits at most `limit` for the background runs; returns how many are still running.
    pub(super) async fn wait_background(&self, limit: Duration) -> usize {
        let tasks: Vec<JoinHandle<()>> = std::mem::take(
            &mut *self
                .background
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let deadline = tokio::time::Instant::now() + limit;
        let mut left = 0;
        for mut task in tasks {
            if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                left += 1;
                // Still tracked, so a later wait sees it.
                self.background
                    .running
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(task);
            }
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use hookrail_core::signal::HookSignal;

    use crate::file::{Format, parse_project};
    use crate::protocol::Answer;
    use crate::runner::ConfigHooks;

    #[test]
    fn signals_are_stamped_at_ai_facing_points_and_reported_once_elsewhere() {
        let yaml = "enabled: true\nhooks:\n  - { id: tracker, event_type: PostAbilityCall, handler: { command: ./t.sh } }\n";
        let config = parse_project(yaml, Format::Yaml, std::path::Path::new("hooks.yaml")).unwrap();
        let spec = config.hooks[0].clone();
        let configured = ConfigHooks::builder("/tmp").build(config).unwrap();
        let shared = &configured.shared;
        let answer = || Answer {
            hook_signals: vec![HookSignal::ability_allowed("printed", "Write")],
            ..Answer::default()
        };

        let stamped = shared.take_signals(&spec, "user_prompt_submit", answer());
        let signal = &stamped.hook_signals[0];
        assert_eq!(
            signal.hook_id, "tracker",
            "the configured id, not the printed one"
        );
        assert_eq!(
            signal.source_event,
            hookrail_core::signal::SignalEvent::PromptSubmit
        );

        for _ in 0..3 {
            let ignored = shared.take_signals(&spec, "post_tool_use", answer());
            assert!(ignored.hook_signals.is_empty());
        }
        shared.take_signals(&spec, "session_end", answer());
        let reported = shared.background.reported.lock().unwrap();
        assert_eq!(reported.len(), 2, "once per hook and point: {reported:?}");
    }
}
