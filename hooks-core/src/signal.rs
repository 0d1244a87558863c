//! Hook signals: the structured, AI-visible results of the hooks that run before a turn or a
//! tool call (seed 003, "AI-centric repo hooks", §3.3 and §4.2).
//!
//! Only the two AI-facing points carry signals: `user_prompt_submit` (the seed's
//! `PromptSubmit`) and `pre_tool_use` (`PreAbilityCall`). Their contexts hold a
//! `hook_signals` list; a `#[hook]` adds to it with `add_signal`, a command hook by answering
//! with a seed-003 `HookResult` (see `hookrail_config::hook_result`). The signals of every
//! blocking hook are kept in the order the hooks ran, each naming the hook that emitted it,
//! and reach the agent loop in a [`TurnReady`] control message
//! ([`Session::turn_ready`](crate::runtime::Session::turn_ready)). Other points have no place
//! for signals: a `#[hook]` there cannot emit one, and a command hook that answers with one
//! is logged as misconfigured.
//!
//! The three standard kinds:
//!
//! | kind | point | payload |
//! |---|---|---|
//! | [`routing_hint`](SignalKind::RoutingHint) | `user_prompt_submit` | [`RoutingHint`]: suggested abilities (tools) and documents |
//! | [`normalized_intent`](SignalKind::NormalizedIntent) | `user_prompt_submit` | [`NormalizedIntent`]: a structured task description |
//! | [`ability_guard`](SignalKind::AbilityGuard) | `pre_tool_use` | [`AbilityGuard`]: code [`ABILITY_ALLOWED`] or [`ABILITY_DENIED`], with `require_human` |
//!
//! How guard signals are enforced is [`guard_decision`]: the first `ABILITY_DENIED` decides,
//! an `ability_guard` signal that cannot be read denies (a guard that cannot decide blocks).
//!
//! ```
//! use hookrail_core::signal::{HookSignal, RoutingHint, SuggestedAbility};
//!
//! let hint = RoutingHint {
//!     suggested_abilities: vec![SuggestedAbility::new("refactor_code", "User asked to clean up TypeScript code.").confidence(0.92)],
//!     ..RoutingHint::default()
//! };
//! let signal = HookSignal::routing_hint("skill_activation_prompt", &hint);
//! let json = serde_json::to_value(&signal).unwrap();
//! assert_eq!(json["source_event"], "PromptSubmit");
//! assert_eq!(json["kind"], "routing_hint");
//! assert_eq!(json["code"], "ROUTE_SUGGESTION");
//! assert_eq!(json["payload"]["suggested_abilities"][0]["id"], "refactor_code");
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `code` of an `ability_guard` signal that lets the call go on.
pub const ABILITY_ALLOWED: &str = "ABILITY_ALLOWED";
/// The `code` of an `ability_guard` signal that refuses the call.
pub const ABILITY_DENIED: &str = "ABILITY_DENIED";
/// The `code` [`HookSignal::routing_hint`] uses (the seed's example).
pub const ROUTE_SUGGESTION: &str = "ROUTE_SUGGESTION";
/// The `code` [`HookSignal::normalized_intent`] uses (the seed's example).
pub const INTENT_PARSED: &str = "INTENT_PARSED";

/// The event a signal was emitted at, in the seed's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SignalEvent {
    /// `user_prompt_submit`.
    PromptSubmit,
    /// `pre_tool_use`.
    PreAbilityCall,
}

impl SignalEvent {
    /// The point it is: `user_prompt_submit` or `pre_tool_use`.
    pub const fn point(self) -> &'static str {
        match self {
            SignalEvent::PromptSubmit => "user_prompt_submit",
            SignalEvent::PreAbilityCall => "pre_tool_use",
        }
    }

    /// The event of `point`; `None` for a point that takes no signals.
    pub fn of_point(point: &str) -> Option<SignalEvent> {
        match point {
            "user_prompt_submit" => Some(SignalEvent::PromptSubmit),
            "pre_tool_use" => Some(SignalEvent::PreAbilityCall),
            _ => None,
        }
    }
}

/// The kind of a signal: the seed's three standard kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// Suggested abilities and documents ([`RoutingHint`]).
    RoutingHint,
    /// A structured task description ([`NormalizedIntent`]).
    NormalizedIntent,
    /// Allow, deny or require a human for a tool call ([`AbilityGuard`]).
    AbilityGuard,
}

/// How serious a signal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// For information.
    Info,
    /// Worth attention.
    Warning,
    /// An error (a denial).
    Error,
}

/// One AI-visible signal (seed 003 `HookSignal`): which hook emitted it at which event, its
/// kind, a machine-readable code, and a payload structured per kind.
///
/// The payload stays JSON (the seed's `payload: any`); [`routing_hint`](Self::routing_hint_payload),
/// [`normalized_intent`](Self::normalized_intent_payload) and [`ability_guard`](Self::ability_guard)
/// read it as the standard kinds' types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookSignal {
    /// Where it was emitted. Set by the context it is added to.
    pub source_event: SignalEvent,
    /// The emitting hook: a `#[hook]`'s name or a configured hook's id (the runner sets it
    /// from the configuration, whatever the script printed).
    pub hook_id: String,
    /// The kind.
    pub kind: SignalKind,
    /// A short machine-readable code (`ROUTE_SUGGESTION`, `ABILITY_DENIED`, …).
    pub code: String,
    /// How serious it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The kind's payload.
    #[serde(default)]
    pub payload: Value,
}

impl HookSignal {
    /// A signal of any kind and code.
    pub fn new(
        source_event: SignalEvent,
        hook_id: impl Into<String>,
        kind: SignalKind,
        code: impl Into<String>,
        payload: Value,
    ) -> Self {
        HookSignal {
            source_event,
            hook_id: hook_id.into(),
            kind,
            code: code.into(),
            severity: None,
            payload,
        }
    }

    /// A `routing_hint` (code [`ROUTE_SUGGESTION`]) from `hook_id`.
    pub fn routing_hint(hook_id: impl Into<String>, hint: &RoutingHint) -> Self {
        HookSignal::new(
            SignalEvent::PromptSubmit,
            hook_id,
            SignalKind::RoutingHint,
            ROUTE_SUGGESTION,
            to_value(hint),
        )
    }

    /// A `normalized_intent` (code [`INTENT_PARSED`]) from `hook_id`.
    pub fn normalized_intent(hook_id: impl Into<String>, intent: &NormalizedIntent) -> Self {
        HookSignal::new(
            SignalEvent::PromptSubmit,
            hook_id,
            SignalKind::NormalizedIntent,
            INTENT_PARSED,
            to_value(intent),
        )
    }

    /// An `ability_guard` with code [`ABILITY_ALLOWED`] for `ability_id`.
    pub fn ability_allowed(hook_id: impl Into<String>, ability_id: impl Into<String>) -> Self {
        let guard = AbilityGuard {
            ability_id: Some(ability_id.into()),
            reason: None,
            require_human: false,
        };
        HookSignal::new(
            SignalEvent::PreAbilityCall,
            hook_id,
            SignalKind::AbilityGuard,
            ABILITY_ALLOWED,
            to_value(&guard),
        )
        .with_severity(Severity::Info)
    }

    /// An `ability_guard` with code [`ABILITY_DENIED`] (severity `error`): `require_human`
    /// sends the call to a person, otherwise the ability is disabled for the session.
    pub fn ability_denied(
        hook_id: impl Into<String>,
        ability_id: impl Into<String>,
        reason: impl Into<String>,
        require_human: bool,
    ) -> Self {
        let guard = AbilityGuard {
            ability_id: Some(ability_id.into()),
            reason: Some(reason.into()),
            require_human,
        };
        HookSignal::new(
            SignalEvent::PreAbilityCall,
            hook_id,
            SignalKind::AbilityGuard,
            ABILITY_DENIED,
            to_value(&guard),
        )
        .with_severity(Severity::Error)
    }

    /// Set the severity.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = Some(severity);
        self
    }

    /// The payload as a [`RoutingHint`], when this is a `routing_hint`.
    ///
    /// # Errors
    ///
    /// The payload does not have the shape of a routing hint.
    pub fn routing_hint_payload(&self) -> Option<Result<RoutingHint, serde_json::Error>> {
        (self.kind == SignalKind::RoutingHint).then(|| RoutingHint::deserialize(&self.payload))
    }

    /// The payload as a [`NormalizedIntent`], when this is a `normalized_intent`.
    ///
    /// # Errors
    ///
    /// The payload does not have the shape of a normalized intent.
    pub fn normalized_intent_payload(&self) -> Option<Result<NormalizedIntent, serde_json::Error>> {
        (self.kind == SignalKind::NormalizedIntent)
            .then(|| NormalizedIntent::deserialize(&self.payload))
    }

    /// The payload as an [`AbilityGuard`], when this is an `ability_guard`.
    ///
    /// # Errors
    ///
    /// The payload does not have the shape of an ability guard.
    pub fn ability_guard(&self) -> Option<Result<AbilityGuard, serde_json::Error>> {
        (self.kind == SignalKind::AbilityGuard).then(|| AbilityGuard::deserialize(&self.payload))
    }
}

/// Serializing the payload types (plain structs of strings, numbers and lists) cannot fail.
fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The payload of a `routing_hint`: abilities (tools) and documents worth a look this turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoutingHint {
    /// Suggested abilities, best first.
    #[serde(default)]
    pub suggested_abilities: Vec<SuggestedAbility>,
    /// Suggested documents.
    #[serde(default)]
    pub suggested_documents: Vec<SuggestedDocument>,
}

/// An ability a [`RoutingHint`] suggests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuggestedAbility {
    /// The ability's (tool's) id.
    pub id: String,
    /// Why.
    #[serde(default)]
    pub reason: String,
    /// How sure the hook is, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

impl SuggestedAbility {
    /// Suggest `id` because of `reason`.
    pub fn new(id: impl Into<String>, reason: impl Into<String>) -> Self {
        SuggestedAbility {
            id: id.into(),
            reason: reason.into(),
            confidence: None,
        }
    }

    /// Set the confidence.
    #[must_use]
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }
}

/// A document a [`RoutingHint`] suggests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuggestedDocument {
    /// Its path.
    pub path: String,
    /// Why.
    #[serde(default)]
    pub reason: String,
}

impl SuggestedDocument {
    /// Suggest the document at `path` because of `reason`.
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        SuggestedDocument {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// The payload of a `normalized_intent`: what the user asked for, structured. Every field is
/// optional; the seed's are `scope`, `topic`, `stage` and `raw_input_snippet`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NormalizedIntent {
    /// The area (`dev_workflow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The subject (`pre_commit_checks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The stage of the work (`understand`, `plan`, `implement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The part of the prompt it was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input_snippet: Option<String>,
}

/// The payload of an `ability_guard`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbilityGuard {
    /// The ability (tool) it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ability_id: Option<String>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `ABILITY_DENIED`: a person must decide (true), or the ability is disabled for the
    /// session (false).
    #[serde(default)]
    pub require_human: bool,
}

/// What the `ability_guard` signals of one tool call decide ([`guard_decision`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardDecision {
    /// No signal denies: the call may go on.
    Allowed,
    /// A signal denies the call.
    Denied {
        /// The hook that emitted it.
        hook_id: String,
        /// The reason to report (the signal's, or why the signal could not be read).
        reason: String,
        /// `ABILITY_DENIED` with `require_human`: a person must decide.
        require_human: bool,
        /// True for `ABILITY_DENIED` without `require_human`: the ability is to be disabled
        /// for the rest of the session. False when the signal could not be read (only this
        /// call is refused).
        disable: bool,
    },
}

/// What the `ability_guard` signals among `signals` decide for a call of `ability`, in the
/// order they were emitted: the first `ABILITY_DENIED` decides; `ABILITY_ALLOWED` and the
/// other kinds decide nothing. An `ability_guard` signal with another code or a payload that
/// is not an [`AbilityGuard`] denies this call (a guard that cannot be read cannot allow).
/// A signal naming another ability applies to this call all the same, with a warning: the
/// guard ran for this call.
///
/// ```
/// use hookrail_core::signal::{GuardDecision, HookSignal, guard_decision};
///
/// let signals = [
///     HookSignal::ability_allowed("a", "edit_file"),
///     HookSignal::ability_denied("prod_config_guard", "edit_file", "prod config", false),
/// ];
/// let GuardDecision::Denied { hook_id, disable, .. } = guard_decision("edit_file", &signals) else { panic!() };
/// assert_eq!((hook_id.as_str(), disable), ("prod_config_guard", true));
/// assert_eq!(guard_decision("edit_file", &signals[..1]), GuardDecision::Allowed);
/// ```
pub fn guard_decision(ability: &str, signals: &[HookSignal]) -> GuardDecision {
    for signal in signals
        .iter()
        .filter(|s| s.kind == SignalKind::AbilityGuard)
    {
        let unreadable = |why: String| GuardDecision::Denied {
            hook_id: signal.hook_id.clone(),
            reason: format!(
                "hook `{}` emitted an ability_guard signal that cannot be read ({why}); the call is refused",
                signal.hook_id
            ),
            require_human: false,
            disable: false,
        };
        let guard = match AbilityGuard::deserialize(&signal.payload) {
            Ok(guard) => guard,
            Err(e) => return unreadable(format!("payload: {e}")),
        };
        if let Some(named) = guard.ability_id.as_deref()
            && named != ability
        {
            tracing::warn!(
                hook = %signal.hook_id, named, ability,
                "an ability_guard signal names another ability than the call it guards; it applies to this call"
            );
        }
        match signal.code.as_str() {
            ABILITY_ALLOWED => {}
            ABILITY_DENIED => {
                let why = guard.reason.unwrap_or_else(|| "no reason given".to_owned());
                return GuardDecision::Denied {
                    hook_id: signal.hook_id.clone(),
                    reason: format!("{ABILITY_DENIED} by `{}`: {why}", signal.hook_id),
                    require_human: guard.require_human,
                    disable: !guard.require_human,
                };
            }
            other => {
                return unreadable(format!(
                    "code `{other}`; expected `{ABILITY_ALLOWED}` or `{ABILITY_DENIED}`"
                ));
            }
        }
    }
    GuardDecision::Allowed
}

/// The explicit start signal the agent loop gets once the blocking hooks of an AI-facing
/// event have finished (seed 003 §4.2): `turn_ready` after `user_prompt_submit`,
/// `turn_ready_for_ability` (with the ability's id) after `pre_tool_use`, with the merged
/// signals. `ready` false means the prompt or call did not pass its hooks.
///
/// It serializes exactly as the seed's control message:
///
/// ```
/// use hookrail_core::signal::{HookSignal, TurnReady};
///
/// let ready = TurnReady::for_ability("refactor_code", true, vec![HookSignal::ability_allowed("g", "refactor_code")]);
/// let json = serde_json::to_value(&ready).unwrap();
/// assert_eq!(json["type"], "control");
/// assert_eq!(json["turn_ready_for_ability"], true);
/// assert_eq!(json["ability_id"], "refactor_code");
/// assert_eq!(json["source_event"], "PreAbilityCall");
/// assert_eq!(json["hook_signals"][0]["hook_id"], "g");
/// assert!(json.get("turn_ready").is_none());
/// assert_eq!(serde_json::from_value::<TurnReady>(json).unwrap(), ready);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnReady {
    /// The event whose hooks finished.
    pub source_event: SignalEvent,
    /// For `PreAbilityCall`: the ability (tool) about to run.
    pub ability_id: Option<String>,
    /// True when the turn (or call) may go on.
    pub ready: bool,
    /// The signals of the blocking hooks, in the order they ran.
    pub hook_signals: Vec<HookSignal>,
}

impl TurnReady {
    /// The control message after `user_prompt_submit`.
    pub fn for_prompt(ready: bool, hook_signals: Vec<HookSignal>) -> Self {
        TurnReady {
            source_event: SignalEvent::PromptSubmit,
            ability_id: None,
            ready,
            hook_signals,
        }
    }

    /// The control message after `pre_tool_use` for a call of `ability_id`.
    pub fn for_ability(
        ability_id: impl Into<String>,
        ready: bool,
        hook_signals: Vec<HookSignal>,
    ) -> Self {
        TurnReady {
            source_event: SignalEvent::PreAbilityCall,
            ability_id: Some(ability_id.into()),
            ready,
            hook_signals,
        }
    }
}

/// The control message's JSON (seed 003 §4.2).
#[derive(Serialize, Deserialize)]
struct ControlWire {
    #[serde(rename = "type")]
    kind: ControlType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn_ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn_ready_for_ability: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ability_id: Option<String>,
    source_event: SignalEvent,
    #[serde(default)]
    hook_signals: Vec<HookSignal>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ControlType {
    Control,
}

impl Serialize for TurnReady {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let prompt = self.source_event == SignalEvent::PromptSubmit;
        ControlWire {
            kind: ControlType::Control,
            turn_ready: prompt.then_some(self.ready),
            turn_ready_for_ability: (!prompt).then_some(self.ready),
            ability_id: self.ability_id.clone(),
            source_event: self.source_event,
            hook_signals: self.hook_signals.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for TurnReady {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = ControlWire::deserialize(d)?;
        // Absent or false: hooks are still running or the call is not allowed (the seed).
        let ready = match wire.source_event {
            SignalEvent::PromptSubmit => wire.turn_ready,
            SignalEvent::PreAbilityCall => wire.turn_ready_for_ability,
        };
        Ok(TurnReady {
            source_event: wire.source_event,
            ability_id: wire.ability_id,
            ready: ready.unwrap_or(false),
            hook_signals: wire.hook_signals,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The seed's own examples (§3.3) read as typed signals and write back unchanged.
    #[test]
    fn the_seed_examples_round_trip() {
        let examples = [
            json!({
                "source_event": "PromptSubmit", "hook_id": "skill_activation_prompt",
                "kind": "routing_hint", "code": "ROUTE_SUGGESTION",
                "payload": {
                    "suggested_abilities": [{"id": "refactor_code", "reason": "User asked to clean up TypeScript code.", "confidence": 0.92}],
                    "suggested_documents": [{"path": ".system/docs/pre_commit.md", "reason": "User mentioned pre-commit checks."}]
                }
            }),
            json!({
                "source_event": "PromptSubmit", "hook_id": "intent_normalizer",
                "kind": "normalized_intent", "code": "INTENT_PARSED",
                "payload": {"scope": "dev_workflow", "topic": "pre_commit_checks", "stage": "understand",
                    "raw_input_snippet": "Before I commit, what checks should I run?"}
            }),
            json!({
                "source_event": "PreAbilityCall", "hook_id": "prod_config_guard",
                "kind": "ability_guard", "code": "ABILITY_DENIED", "severity": "error",
                "payload": {"ability_id": "edit_file",
                    "reason": "Editing prod config files is not allowed from ai_session.", "require_human": true}
            }),
        ];
        for example in examples {
            let signal: HookSignal = serde_json::from_value(example.clone()).unwrap();
            assert_eq!(serde_json::to_value(&signal).unwrap(), example);
        }
        let hint: HookSignal = serde_json::from_value(json!({
            "source_event": "PromptSubmit", "hook_id": "h", "kind": "routing_hint", "code": "X",
            "payload": {"suggested_abilities": [{"id": "a", "reason": "r", "confidence": 0.5}]}
        }))
        .unwrap();
        let typed = hint.routing_hint_payload().unwrap().unwrap();
        assert_eq!(typed.suggested_abilities[0].confidence, Some(0.5));
        assert!(hint.ability_guard().is_none());
    }

    #[test]
    fn constructors_write_the_seed_shapes() {
        let intent = NormalizedIntent {
            scope: Some("dev_workflow".into()),
            ..NormalizedIntent::default()
        };
        let s = serde_json::to_value(HookSignal::normalized_intent("n", &intent)).unwrap();
        assert_eq!(
            s,
            json!({"source_event": "PromptSubmit", "hook_id": "n", "kind": "normalized_intent",
                "code": "INTENT_PARSED", "payload": {"scope": "dev_workflow"}})
        );
        let d = HookSignal::ability_denied("g", "Bash", "no", true);
        let guard = d.ability_guard().unwrap().unwrap();
        assert!(guard.require_human);
        assert_eq!(d.severity, Some(Severity::Error));
    }

    #[test]
    fn the_first_denial_decides_and_require_human_does_not_disable() {
        let signals = [
            HookSignal::routing_hint("r", &RoutingHint::default()),
            HookSignal::ability_allowed("a", "Bash"),
            HookSignal::ability_denied("human", "Bash", "needs a person", true),
            HookSignal::ability_denied("later", "Bash", "never reached", false),
        ];
        assert_eq!(
            guard_decision("Bash", &signals),
            GuardDecision::Denied {
                hook_id: "human".into(),
                reason: "ABILITY_DENIED by `human`: needs a person".into(),
                require_human: true,
                disable: false,
            }
        );
        assert_eq!(
            guard_decision("Bash", &signals[..2]),
            GuardDecision::Allowed
        );
        assert_eq!(guard_decision("Bash", &[]), GuardDecision::Allowed);
    }

    #[test]
    fn an_unreadable_guard_signal_denies_this_call_only() {
        let mut odd = HookSignal::ability_allowed("g", "Bash");
        odd.code = "ABILITY_MAYBE".into();
        let GuardDecision::Denied {
            reason, disable, ..
        } = guard_decision("Bash", &[odd])
        else {
            panic!("an unknown code must deny")
        };
        assert!(reason.contains("code `ABILITY_MAYBE`"), "{reason}");
        assert!(!disable);
        let mut bad = HookSignal::ability_denied("g", "Bash", "x", false);
        bad.payload = json!({"require_human": "yes"});
        let GuardDecision::Denied { reason, .. } = guard_decision("Bash", &[bad]) else {
            panic!("an unreadable payload must deny")
        };
        assert!(reason.contains("payload"), "{reason}");
    }

    #[test]
    fn the_prompt_control_message_is_the_seeds_and_absent_ready_is_not_ready() {
        let ready = TurnReady::for_prompt(true, Vec::new());
        assert_eq!(
            serde_json::to_value(&ready).unwrap(),
            json!({"type": "control", "turn_ready": true, "source_event": "PromptSubmit", "hook_signals": []})
        );
        let absent: TurnReady =
            serde_json::from_value(json!({"type": "control", "source_event": "PromptSubmit"}))
                .unwrap();
        assert!(!absent.ready);
        assert!(
            serde_json::from_value::<TurnReady>(
                json!({"type": "data", "source_event": "PromptSubmit"})
            )
            .is_err()
        );
    }

    #[test]
    fn events_map_to_points_and_back() {
        for e in [SignalEvent::PromptSubmit, SignalEvent::PreAbilityCall] {
            assert_eq!(SignalEvent::of_point(e.point()), Some(e));
        }
        assert_eq!(SignalEvent::of_point("post_tool_use"), None);
    }
}
