//! What hooks return and what a dispatch reports.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A guard hook's answer.
///
/// Verdicts are ordered by restrictiveness: `Continue < Allow < Ask < Deny`. When several guards
/// run, the merged verdict is the most restrictive one seen, and a `Deny` stops the chain.
/// Reasons are `Cow<'static, str>` so a fixed reason costs no allocation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "decision", content = "reason", rename_all = "snake_case")]
pub enum Verdict {
    /// No opinion; the next hook decides.
    #[default]
    Continue,
    /// Explicitly allowed (Claude Code `permissionDecision: "allow"`). A later hook can still
    /// ask or deny.
    Allow,
    /// A human must confirm (Claude Code `"ask"`), with the reason shown to them.
    Ask(Cow<'static, str>),
    /// Refused (Claude Code `"deny"` / exit code 2), with the reason given to the agent.
    Deny(Cow<'static, str>),
}

impl Verdict {
    /// `Verdict::Ask` with a reason.
    pub fn ask(reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict::Ask(reason.into())
    }

    /// `Verdict::Deny` with a reason.
    pub fn deny(reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict::Deny(reason.into())
    }

    /// How restrictive the verdict is: 0 (`Continue`) to 3 (`Deny`).
    pub const fn severity(&self) -> u8 {
        match self {
            Verdict::Continue => 0,
            Verdict::Allow => 1,
            Verdict::Ask(_) => 2,
            Verdict::Deny(_) => 3,
        }
    }

    /// True for `Deny`.
    pub const fn is_deny(&self) -> bool {
        matches!(self, Verdict::Deny(_))
    }

    /// The reason of an `Ask` or `Deny`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Ask(r) | Verdict::Deny(r) => Some(r),
            Verdict::Continue | Verdict::Allow => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Continue => f.write_str("continue"),
            Verdict::Allow => f.write_str("allow"),
            Verdict::Ask(r) => write!(f, "ask: {r}"),
            Verdict::Deny(r) => write!(f, "deny: {r}"),
        }
    }
}

/// A recover hook's answer to an error (the `error_occurred` point).
///
/// Seed 000's `ErrorRecoveryOutput` (`retry`, `fallbackModel`, `modifiedPrompt`, `backoffMs`)
/// maps to `Retry` (`retry: true`), `Fallback` (a `fallbackModel`) and `GiveUp`
/// (`retry: false`); `backoff` is `backoffMs` and `prompt` is `modifiedPrompt`, on either
/// kind of retry.
///
/// A `prompt` replaces the user's prompt for the retry: [`Session::call_model`] sends the
/// conversation again with the text of its last user message replaced by it (the message's
/// other blocks, such as tool results and images, are kept), and keeps that conversation for
/// the attempts after. A hook that shortens an over-long prompt (a `context_overflow` error)
/// reads the failed prompt in [`ErrorOccurred::prompt`](crate::context::ErrorOccurred::prompt).
///
/// ```
/// use std::time::Duration;
/// use hookrail_core::Recovery;
///
/// let r = Recovery::retry(Duration::from_millis(500)).with_prompt("Summarise in 3 lines.");
/// assert_eq!(r.prompt(), Some("Summarise in 3 lines."));
/// let json = serde_json::to_value(&r).unwrap();
/// assert_eq!(json["backoff_ms"], 500);
/// assert_eq!(json["prompt"], "Summarise in 3 lines.");
/// // Without a prompt the field is left out, and a recovery without one reads back as before.
/// let plain = serde_json::json!({"action": "fallback", "model": "small", "backoff_ms": 0});
/// assert_eq!(
///     serde_json::from_value::<Recovery>(plain).unwrap(),
///     Recovery::fallback("small", Duration::ZERO)
/// );
/// ```
///
/// [`Session::call_model`]: crate::runtime::Session::call_model
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Recovery {
    /// Retry the failed operation after `backoff`.
    Retry {
        /// How long to wait first.
        #[serde(with = "duration_ms", rename = "backoff_ms")]
        backoff: Duration,
        /// The prompt to send instead (seed 000 `modifiedPrompt`); `None` retries as is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// Retry with another model after `backoff`.
    Fallback {
        /// The model to switch to.
        model: String,
        /// How long to wait first.
        #[serde(with = "duration_ms", rename = "backoff_ms")]
        backoff: Duration,
        /// The prompt to send instead (seed 000 `modifiedPrompt`); `None` keeps it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// Stop trying; the error is final.
    GiveUp {
        /// Why, for logs and the user.
        reason: String,
    },
}

impl Recovery {
    /// [`Recovery::Retry`] after `backoff`, with the same prompt.
    pub fn retry(backoff: Duration) -> Self {
        Recovery::Retry {
            backoff,
            prompt: None,
        }
    }

    /// [`Recovery::Fallback`] to `model` after `backoff`, with the same prompt.
    pub fn fallback(model: impl Into<String>, backoff: Duration) -> Self {
        Recovery::Fallback {
            model: model.into(),
            backoff,
            prompt: None,
        }
    }

    /// [`Recovery::GiveUp`] for `reason`.
    pub fn give_up(reason: impl Into<String>) -> Self {
        Recovery::GiveUp {
            reason: reason.into(),
        }
    }

    /// The same retry or fallback with `prompt` instead of the user's prompt. A
    /// [`GiveUp`](Recovery::GiveUp) is returned unchanged: it sends nothing.
    #[must_use]
    pub fn with_prompt(mut self, new_prompt: impl Into<String>) -> Self {
        if let Recovery::Retry { prompt, .. } | Recovery::Fallback { prompt, .. } = &mut self {
            *prompt = Some(new_prompt.into());
        }
        self
    }

    /// The prompt a retry or fallback sends instead of the user's, if it has one.
    pub fn prompt(&self) -> Option<&str> {
        match self {
            Recovery::Retry { prompt, .. } | Recovery::Fallback { prompt, .. } => prompt.as_deref(),
            Recovery::GiveUp { .. } => None,
        }
    }
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

/// The name of a hook. `Copy`: a `&'static str`, so that outcomes stay cheap to move and drop.
///
/// Names of hooks registered at run time are interned ([`HookName::intern`]): each distinct
/// name is stored once for the life of the process.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookName(&'static str);

impl HookName {
    /// A name known at compile time.
    pub const fn from_static(name: &'static str) -> Self {
        HookName(name)
    }

    /// The name for `name`, stored once per distinct name for the life of the process.
    pub fn intern(name: &str) -> Self {
        static NAMES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
            std::sync::Mutex::new(std::collections::BTreeSet::new());
        let mut names = NAMES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(existing) = names.get(name) {
            return HookName(existing);
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.insert(leaked);
        HookName(leaked)
    }

    /// The name as a string slice.
    pub const fn as_str(&self) -> &'static str {
        self.0
    }
}

impl PartialEq<str> for HookName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for HookName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<&'static str> for HookName {
    fn from(s: &'static str) -> Self {
        HookName::from_static(s)
    }
}

impl std::ops::Deref for HookName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for HookName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for HookName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for HookName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The error type a hook may return: any error, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The error a hook returned (`Err(e)` from a hook that returns `Result`).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct HookError(#[from] BoxError);

impl HookError {
    /// Wrap any error.
    pub fn new(err: impl Into<BoxError>) -> Self {
        HookError(err.into())
    }

    /// The underlying error.
    pub fn inner(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

/// What a stored hook returns: its value or the error it reported.
pub type HookResult<T> = Result<T, HookError>;

/// Why a hook failed to produce a result. A failure is never a policy decision: it is reported
/// as a [`HookFailure`] and then handled by the point's failure policy (guards deny, other
/// kinds continue).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureCause {
    /// The hook panicked; the panic message.
    #[error("panicked: {0}")]
    Panic(String),
    /// The hook returned an error (shown in this message, so not repeated as `source()`).
    #[error("returned an error: {0}")]
    Error(HookError),
    /// The hook did not finish in time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// An async hook reached a synchronous dispatch, which cannot run it.
    #[error("is async and cannot run in a synchronous dispatch; use `dispatch_async`")]
    AsyncInSyncDispatch,
}

/// A record of one hook that failed during a dispatch.
#[derive(Debug, thiserror::Error)]
#[error("hook `{hook}` at `{point}` {cause}")]
pub struct HookFailure {
    /// The failing hook.
    pub hook: HookName,
    /// The point it was running at.
    pub point: &'static str,
    /// What went wrong.
    pub cause: FailureCause,
    /// The failure policy that was applied.
    pub policy: OnError,
}

/// What a hook's failure (panic, error, timeout) does to the dispatch: the hook's failure
/// policy.
///
/// | policy | guard | transform, observe, recover |
/// |---|---|---|
/// | [`Deny`](OnError::Deny) (fail closed) | the merged verdict becomes a deny naming the hook and the cause; the chain stops | the chain stops; [`Outcome::failed_closed`] returns the failure, and a [`Session`](crate::runtime::Session) refuses to go on |
/// | [`Continue`](OnError::Continue) (fail open) | the hook is skipped as if it had no opinion | the hook is skipped; the chain continues |
///
/// The default is [`OnError::default_for`] the point's kind: closed for guards, open for the
/// rest. Set it per hook with `#[hook(..., on_error = "continue")]` (or `on_error: continue`
/// in a config file: the same two words everywhere; `"ignore"` is read as `"continue"`), on a
/// runtime
/// [`Hook`](crate::runtime::Hook), or by name on the [`HooksBuilder`](crate::runtime::HooksBuilder).
/// Either way the failure is recorded in [`Outcome::failures`] and is never reported as a
/// policy decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Fail closed.
    Deny,
    /// Fail open (`"ignore"` is accepted as another spelling).
    #[serde(alias = "ignore")]
    Continue,
}

impl OnError {
    /// The default policy of a kind: [`Deny`](OnError::Deny) for guards,
    /// [`Continue`](OnError::Continue) for the others.
    pub const fn default_for(kind: crate::KindId) -> OnError {
        match kind {
            crate::KindId::Guard => OnError::Deny,
            _ => OnError::Continue,
        }
    }

    /// `"deny"` or `"continue"`, as written in attributes and config files.
    pub const fn as_str(self) -> &'static str {
        match self {
            OnError::Deny => "deny",
            OnError::Continue => "continue",
        }
    }
}

impl fmt::Display for OnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for OnError {
    type Err = UnknownOnError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "deny" => Ok(OnError::Deny),
            // Config files used to say `ignore`; both spellings are read, `continue` is written.
            "continue" | "ignore" => Ok(OnError::Continue),
            other => Err(UnknownOnError(other.to_owned())),
        }
    }
}

/// The error of parsing an [`OnError`]: the text was neither `deny` nor `continue` (nor
/// `ignore`, read as `continue`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown failure policy `{0}`; expected `continue` (fail open) or `deny` (fail closed)")]
pub struct UnknownOnError(pub String);

/// The result of dispatching one point: the merged value, which hook decided it, and every hook
/// failure on the way.
///
/// `T` is the kind's result: [`Verdict`] for guards, `Option<Recovery>` for recoverers, `()` for
/// transforms and observers.
///
/// The `dispatch` functions of guard and recover points are `#[must_use]`: ignoring a verdict is
/// a bug. Failures are also logged with `tracing` at `warn` level, so an ignored outcome of a
/// transform or observer point loses nothing.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The merged result (for a guard: the most restrictive verdict seen).
    pub value: T,
    /// The hook whose answer is `value` (`None` when no hook had an opinion).
    pub decided_by: Option<HookName>,
    /// Every hook that failed, in the order they ran. Empty (one null pointer) normally.
    pub failures: Failures,
}

impl<T: Default> Default for Outcome<T> {
    #[inline(always)]
    fn default() -> Self {
        Outcome {
            value: T::default(),
            decided_by: None,
            failures: Failures::default(),
        }
    }
}

/// The hook failures of one dispatch, in the order they happened. Derefs to a slice.
///
/// One pointer wide and null when empty, so that an outcome without failures costs nothing to
/// build, move or drop.
#[derive(Default)]
// A boxed `Vec` on purpose: one word instead of three, null when empty.
#[allow(clippy::box_collection)]
pub struct Failures(Option<Box<Vec<HookFailure>>>);

impl Failures {
    /// Record one more failure.
    pub fn push(&mut self, failure: HookFailure) {
        self.0.get_or_insert_with(Box::default).push(failure);
    }

    /// The failures as a `Vec`.
    pub fn into_vec(mut self) -> Vec<HookFailure> {
        self.0.take().map(|v| *v).unwrap_or_default()
    }
}

impl Drop for Failures {
    // Dropping the (rare) failures out of line keeps an outcome's drop glue small enough to be
    // inlined into the caller and folded away on the common path.
    #[inline]
    fn drop(&mut self) {
        if let Some(failures) = self.0.take() {
            drop_failures(failures);
        }
    }
}

#[cold]
#[inline(never)]
#[allow(clippy::box_collection)]
fn drop_failures(failures: Box<Vec<HookFailure>>) {
    drop(failures);
}

impl std::ops::Deref for Failures {
    type Target = [HookFailure];
    #[inline]
    fn deref(&self) -> &[HookFailure] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl IntoIterator for Failures {
    type Item = HookFailure;
    type IntoIter = std::vec::IntoIter<HookFailure>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a Failures {
    type Item = &'a HookFailure;
    type IntoIter = std::slice::Iter<'a, HookFailure>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> Outcome<T> {
    /// The first failure whose hook fails closed ([`OnError::Deny`]): the dispatch stopped
    /// there, and the caller must not go on as if the point had passed. For a guard the merged
    /// verdict is then a deny as well.
    pub fn failed_closed(&self) -> Option<&HookFailure> {
        self.failures.iter().find(|f| f.policy == OnError::Deny)
    }

    /// If the deciding hook failed (so `value` comes from the failure policy, not from a
    /// policy decision), that failure.
    pub fn decided_by_failure(&self) -> Option<&HookFailure> {
        let decider = self.decided_by.as_ref()?;
        self.failures.iter().rev().find(|f| &f.hook == decider)
    }
}

impl Outcome<Verdict> {
    /// The merged verdict.
    pub fn verdict(&self) -> &Verdict {
        &self.value
    }

    /// True when the merged verdict is `Deny`.
    pub fn is_denied(&self) -> bool {
        self.value.is_deny()
    }
}

/// Conversion of a hook's return value into [`HookResult`]: implemented for the kinds' result
/// types and for `Result<_, E>` of them.
#[diagnostic::on_unimplemented(
    message = "this hook returns `{Self}`, but the hook point expects `{T}`",
    label = "wrong return type for this hook point",
    note = "a hook returns the point's result type `{T}`, or `Result<{T}, E>` where `E: Into<Box<dyn Error + Send + Sync>>`",
    note = "guards return `Verdict`, transforms and observers `()`, recoverers `Option<Recovery>`"
)]
pub trait IntoHookResult<T> {
    /// Convert.
    fn into_hook_result(self) -> HookResult<T>;
}

macro_rules! into_hook_result {
    ($($t:ty),*) => {$(
        impl IntoHookResult<$t> for $t {
            #[inline(always)]
            fn into_hook_result(self) -> HookResult<$t> {
                Ok(self)
            }
        }
        #[diagnostic::do_not_recommend]
        impl<E: Into<BoxError>> IntoHookResult<$t> for Result<$t, E> {
            #[inline(always)]
            fn into_hook_result(self) -> HookResult<$t> {
                self.map_err(|e| HookError(e.into()))
            }
        }
    )*};
}

into_hook_result!(Verdict, (), Option<Recovery>);

#[cfg(test)]
mod tests {
    use super::*;

    /// One vocabulary: `continue` and `deny` are written; `ignore` (the config files' old word)
    /// is read as `continue`, from text and from serde.
    #[test]
    fn on_error_reads_continue_deny_and_ignore() {
        for (text, expected) in [
            ("continue", OnError::Continue),
            ("ignore", OnError::Continue),
            ("deny", OnError::Deny),
        ] {
            assert_eq!(text.parse::<OnError>(), Ok(expected), "{text}");
            let json = serde_json::Value::String(text.into());
            assert_eq!(serde_json::from_value::<OnError>(json).ok(), Some(expected));
        }
        assert_eq!(OnError::Continue.to_string(), "continue");
        let err = "block".parse::<OnError>().unwrap_err().to_string();
        assert!(err.contains("`continue` (fail open) or `deny`"), "{err}");
    }

    #[test]
    fn verdict_severity_orders_deny_over_ask_over_allow_over_continue() {
        let v = [
            Verdict::Continue,
            Verdict::Allow,
            Verdict::ask("a"),
            Verdict::deny("d"),
        ];
        for w in v.windows(2) {
            assert!(w[0].severity() < w[1].severity(), "{:?} < {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn verdict_serializes_as_decision_and_reason() {
        let json = serde_json::to_value(Verdict::deny("no")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"decision": "deny", "reason": "no"})
        );
        let json = serde_json::to_value(Verdict::Allow).unwrap();
        assert_eq!(json, serde_json::json!({"decision": "allow"}));
    }

    #[test]
    fn recovery_round_trips_with_millisecond_backoff() {
        let r = Recovery::fallback("small", Duration::from_millis(250));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"action": "fallback", "model": "small", "backoff_ms": 250})
        );
        assert_eq!(serde_json::from_value::<Recovery>(json).unwrap(), r);
    }

    /// Seed 000's `modifiedPrompt`: on either kind of retry, round-tripped; a give-up sends
    /// nothing, so it takes no prompt.
    #[test]
    fn a_retry_or_fallback_carries_a_modified_prompt_and_a_give_up_does_not() {
        let r = Recovery::fallback("small", Duration::ZERO).with_prompt("shorter");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["prompt"], "shorter");
        assert_eq!(serde_json::from_value::<Recovery>(json).unwrap(), r);
        assert_eq!(r.prompt(), Some("shorter"));
        assert_eq!(Recovery::retry(Duration::ZERO).prompt(), None);
        let give_up = Recovery::give_up("no").with_prompt("ignored");
        assert_eq!(
            give_up,
            Recovery::GiveUp {
                reason: "no".into()
            }
        );
        assert_eq!(give_up.prompt(), None);
    }

    #[test]
    fn names_and_kinds_honour_width_when_displayed() {
        assert_eq!(format!("[{:<6}]", HookName::from_static("ab")), "[ab    ]");
        assert_eq!(format!("[{:>9}]", crate::KindId::Guard), "[    guard]");
    }

    #[test]
    fn interned_names_are_stored_once_per_distinct_name() {
        let a = HookName::intern(&format!("tenant-{}", 7));
        let b = HookName::intern("tenant-7");
        assert_eq!(a, b);
        assert!(
            std::ptr::eq(a.as_str(), b.as_str()),
            "one allocation per distinct name"
        );
        assert_ne!(HookName::intern("tenant-8"), a);
    }

    #[test]
    fn result_returns_convert_errors_into_hook_errors() {
        let r: Result<Verdict, &str> = Err("boom");
        let err = r.into_hook_result().unwrap_err();
        assert_eq!(err.to_string(), "boom");
    }
}
