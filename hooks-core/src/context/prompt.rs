use serde::{Deserialize, Serialize};

use super::{Meta, Rewritable};
use crate::signal::{HookSignal, SignalEvent};

/// Context of [`user_prompt_submit`](crate::points::user_prompt_submit): a prompt the user
/// submitted, before the model sees it.
///
/// Guards may deny (which blocks the prompt and erases it), ask or allow, rewrite the prompt with
/// [`Rewritable::set`] (later hooks still see the original), add context for the model and
/// record standing directives found in the prompt.
///
/// Corresponds to: Claude Code `UserPromptSubmit`, Squad `onUserPromptSubmitted`, SecureYeoman
/// `message_received` / `prompt_assembly_*`, seed 003 `PromptSubmit`, infer `pre`.
///
/// ```
/// use hookrail_core::context::{Meta, UserPromptSubmit};
///
/// let mut ctx = UserPromptSubmit::new(Meta::new("s1"), "fix the tests, and never push to main");
/// ctx.add_directive("never push to main");
/// ctx.prompt.set("fix the tests".into());
/// assert_eq!(ctx.prompt.get(), "fix the tests");
/// assert_eq!(ctx.prompt.original(), "fix the tests, and never push to main");
/// assert_eq!(ctx.directives, ["never push to main"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UserPromptSubmit {
    /// Shared fields.
    #[serde(flatten)]
    pub meta: Meta,
    /// The prompt (Claude Code `prompt`); hooks may rewrite it (Squad `modifiedPrompt`).
    pub prompt: Rewritable<String>,
    /// Text for the model, added by hooks in order (Claude Code `additionalContext`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// Standing instructions hooks found in the prompt, such as "always …" or "never …" (Squad
    /// `capturedDirectives`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directives: Vec<String>,
    /// Seed 003 hook signals (`routing_hint`, `normalized_intent`) the hooks emitted, in the
    /// order they ran; the agent loop gets them in the turn-ready control message
    /// ([`crate::signal`]). Sent to command hooks, never read from an event: an event cannot
    /// pose as a hook.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub hook_signals: Vec<HookSignal>,
}

impl UserPromptSubmit {
    /// The submitted `prompt`.
    pub fn new(meta: Meta, prompt: impl Into<String>) -> Self {
        UserPromptSubmit {
            meta,
            prompt: Rewritable::new(prompt.into()),
            additional_context: Vec::new(),
            directives: Vec::new(),
            hook_signals: Vec::new(),
        }
    }

    /// Add text for the model.
    pub fn add_context(&mut self, text: impl Into<String>) {
        self.additional_context.push(text.into());
    }

    /// Record a standing instruction found in the prompt.
    pub fn add_directive(&mut self, directive: impl Into<String>) {
        self.directives.push(directive.into());
    }

    /// Emit a seed 003 hook signal (its `source_event` becomes `PromptSubmit`).
    pub fn add_signal(&mut self, mut signal: HookSignal) {
        signal.source_event = SignalEvent::PromptSubmit;
        self.hook_signals.push(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_carries_the_rewritten_prompt_under_claude_code_names() {
        let mut ctx = UserPromptSubmit::new(Meta::new("s1"), "deploy now");
        let untouched = serde_json::to_value(&ctx).unwrap();
        assert!(untouched.get("additional_context").is_none());
        assert!(untouched.get("directives").is_none());

        ctx.prompt.set("deploy to staging".into());
        ctx.add_context("Production deploys are frozen.");
        ctx.add_directive("always deploy to staging first");
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["session_id"], "s1");
        assert_eq!(v["prompt"], "deploy to staging");
        assert_eq!(v["additional_context"][0], "Production deploys are frozen.");
        assert_eq!(v["directives"][0], "always deploy to staging first");

        let back: UserPromptSubmit = serde_json::from_value(v).unwrap();
        assert_eq!(back.prompt.get(), "deploy to staging");
        assert!(!back.prompt.is_rewritten());
        assert_eq!(back.directives, ctx.directives);
    }
}
