//! Subagents: a session of their own, its counters added to the parent's when it finishes.

use crate::context::{SubagentStart, SubagentStatus, SubagentStop};
use crate::points;

use super::{Session, SessionError, SessionStats, log_closed, millis};

impl Session {
    /// Spawn a subagent: `subagent_start` (which may deny it or switch its model). Run the
    /// subagent's work through the returned [`Subagent`]'s session, then hand it to
    /// [`finish_subagent`](Session::finish_subagent).
    ///
    /// # Errors
    ///
    /// [`SessionError::Denied`] when a guard refuses the spawn.
    pub async fn start_subagent(
        &mut self,
        name: impl Into<String>,
        task: impl Into<String>,
    ) -> Result<Subagent, SessionError> {
        let name = name.into();
        let mut ctx = SubagentStart::new(self.meta.next(), name.clone(), self.model.clone(), task);
        let out = self
            .hooks
            .dispatch_async::<points::subagent_start::Point>(&mut ctx)
            .await;
        self.pass("subagent_start", out)?;
        let meta = self.meta.next().with_agent(name.as_str());
        let mut session = Session::fresh(
            self.hooks.clone(),
            meta,
            ctx.model.get().clone(),
            ctx.additional_context.clone(),
        );
        session.max_attempts = self.max_attempts;
        session.max_stop_blocks = self.max_stop_blocks;
        session.approver = self.approver.clone();
        Ok(Subagent {
            name,
            session,
            start: ctx,
        })
    }

    /// The subagent finished: `subagent_stop` with its counters, which are also added to this
    /// session's.
    pub async fn finish_subagent(
        &mut self,
        subagent: Subagent,
        status: SubagentStatus,
        last_message: Option<String>,
    ) -> SubagentStop {
        let Subagent { name, session, .. } = subagent;
        let mut ctx = SubagentStop::new(self.meta.next(), name, session.model.clone(), status);
        ctx.duration_ms = millis(session.started.elapsed());
        ctx.tokens = session.stats.tokens;
        ctx.tool_calls = session.stats.tool_calls;
        ctx.files_modified = session.stats.files_modified.iter().cloned().collect();
        ctx.last_assistant_message = last_message;
        self.stats.add(session.stats);
        let out = self
            .hooks
            .dispatch_async::<points::subagent_stop::Point>(&mut ctx)
            .await;
        log_closed(&out);
        ctx
    }
}

/// A running subagent: its own [`Session`] (same hooks, its own counters) and the
/// `subagent_start` context its hooks left (task, model, added context).
#[derive(Debug)]
pub struct Subagent {
    name: String,
    /// The subagent's session: run its model and tool calls through it.
    pub session: Session,
    /// `subagent_start` after its hooks.
    pub start: SubagentStart,
}

impl SessionStats {
    /// Adds a subagent's counters to its parent's (saturating).
    fn add(&mut self, other: SessionStats) {
        self.tokens += other.tokens;
        self.model_calls = self.model_calls.saturating_add(other.model_calls);
        self.tool_calls = self.tool_calls.saturating_add(other.tool_calls);
        self.denied_tool_calls = self
            .denied_tool_calls
            .saturating_add(other.denied_tool_calls);
        self.errors = self.errors.saturating_add(other.errors);
        self.files_modified.extend(other.files_modified);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::TokenUsage;

    #[test]
    fn a_subagents_counters_add_to_its_parents_and_saturate() {
        let mut parent = SessionStats {
            tokens: TokenUsage::new(10, 5),
            model_calls: 1,
            tool_calls: u32::MAX - 1,
            denied_tool_calls: 2,
            errors: 0,
            files_modified: ["a.md".to_owned()].into(),
        };
        parent.add(SessionStats {
            tokens: TokenUsage::new(1, 2),
            model_calls: 3,
            tool_calls: 5,
            denied_tool_calls: 1,
            errors: 4,
            files_modified: ["a.md".to_owned(), "b.md".to_owned()].into(),
        });
        assert_eq!(parent.tokens, TokenUsage::new(11, 7));
        assert_eq!(
            (
                parent.model_calls,
                parent.tool_calls,
                parent.denied_tool_calls,
                parent.errors
            ),
            (4, u32::MAX, 3, 4)
        );
        assert_eq!(
            parent.files_modified.into_iter().collect::<Vec<_>>(),
            ["a.md", "b.md"]
        );
    }
}
