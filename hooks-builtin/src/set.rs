//! [`BuiltinConfig`] and [`Builtins`]: every policy's settings in one value, and the policies
//! they build, added to a hook set at their documented [`order`]s.

use std::sync::Arc;

use hookrail_core::runtime::{Hooks, HooksBuilder, HooksError, HooksProvider};
use serde::{Deserialize, Serialize};

use crate::ConfigError;
use crate::state::PersistentState;

/// Where each policy runs among a point's entries: lower runs first. Guards run before
/// accounting, accounting before the hooks that change context or output, and the audit
/// last so it records what the others decided.
///
/// Use these to place your own hooks around the builtins (`#[hook(pre_tool_use, order = -200)]`
/// runs before every builtin guard).
pub mod order {
    /// `command-guard`, `write-guard`, `secrets-guard`: deny before anything else runs.
    pub const GUARD: i32 = -100;
    /// `reviewer-lockout`: after the path guards, so their reasons win for paths both deny.
    pub const REVIEWER_LOCKOUT: i32 = -90;
    /// `budget`: charges and limits after the guards, so denied calls cost nothing.
    pub const BUDGET: i32 = -50;
    /// `rate-limit`: after the budget, before any work is done.
    pub const RATE_LIMIT: i32 = -10;
    /// `context-inject` and `resilience`: after user hooks at the default order 0.
    pub const CONTEXT: i32 = 50;
    /// `pii-scrub` and `task-tracker`: last before the audit, so scrubbed text is what is
    /// recorded and tasks see the final outcome.
    pub const OUTPUT: i32 = 100;
    /// `audit`: the very last entry of every point.
    pub const AUDIT: i32 = i32::MAX;
}

/// Settings of a policy this build of `hookrail-builtin` does not have (its cargo feature is
/// off), kept as they were written: accepted by the deserializer, so one config file serves
/// several builds, and refused by [`Builtins::new`] with a [`ConfigError`] that names the
/// missing feature.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct NotBuilt(pub serde_json::Value);

/// Push a policy's handle onto the list of [`Builtins::persistent`], if it has state to keep
/// (`yes`). A macro rather than an `if`, so that policies without state need no impl of
/// [`PersistentState`].
#[cfg_attr(
    not(any(
        feature = "rate-limit",
        feature = "budget",
        feature = "reviewer-lockout"
    )),
    allow(unused_macros)
)]
macro_rules! persist {
    (yes, $list:ident, $policy:expr) => {
        if let Some(policy) = $policy {
            $list.push(Arc::new(policy.clone()));
        }
    };
    (no, $list:ident, $policy:expr) => {};
}

macro_rules! builtins {
    ($(
        $(#[$doc:meta])*
        $field:ident: $feature:literal, $module:ident::$config:ident => $policy:ident, $order:expr, memory_state: $memory:literal, persist: $persist:ident;
    )*) => {
        /// Every builtin policy's settings: the `builtin:` section of a config file, or built
        /// in code. A policy runs when its entry is present (`Some`), with the defaults of its
        /// settings type for the fields left out; unknown keys are errors.
        ///
        /// A field whose cargo feature is off still deserializes (as [`NotBuilt`]), so one
        /// config file serves several builds; [`Builtins::new`] then refuses it by name.
        ///
        /// ```
        /// # #[cfg(all(feature = "command-guard", feature = "budget"))] {
        /// use hookrail_builtin::{BuiltinConfig, Builtins};
        ///
        /// let config: BuiltinConfig = serde_json::from_str(r#"{
        ///     "command_guard": {},
        ///     "budget": { "session": { "hard_usd": 5.0 } }
        /// }"#)?;
        /// let builtins = Builtins::new(config)?;
        /// let hooks = builtins.install(hookrail_core::runtime::Hooks::builder())?;
        /// assert!(hooks.list().iter().any(|h| h.name == "builtin.command_guard"));
        /// # }
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
        #[serde(default, deny_unknown_fields)]
        #[non_exhaustive]
        pub struct BuiltinConfig {
            $(
                $(#[$doc])*
                #[cfg(feature = $feature)]
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $field: Option<crate::$module::$config>,
                $(#[$doc])*
                #[doc = concat!("\n\nThis build lacks the `", $feature, "` feature: settings here are refused.")]
                #[cfg(not(feature = $feature))]
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $field: Option<NotBuilt>,
            )*
        }

        /// The policies a [`BuiltinConfig`] turns on, built and ready to add to a hook set.
        ///
        /// Stateful policies are cheap handles that share state with the copies installed in
        /// the hook set: keep this value to read the budget's spend report, query the audit
        /// trail or record a reviewer's rejection.
        #[derive(Clone, Default)]
        #[non_exhaustive]
        pub struct Builtins {
            $(
                #[cfg(feature = $feature)]
                $field: Option<crate::$module::$policy>,
            )*
        }

        impl Builtins {
            /// Builds every policy that `config` turns on.
            ///
            /// # Errors
            ///
            /// The first refused setting, as a [`ConfigError`] naming the policy and field; a
            /// policy whose cargo feature is off is refused with field `""`.
            pub fn new(config: BuiltinConfig) -> Result<Self, ConfigError> {
                $(
                    #[cfg(feature = $feature)]
                    let $field = match config.$field {
                        Some(settings) => Some(crate::$module::$policy::new(settings)?),
                        None => None,
                    };
                    #[cfg(not(feature = $feature))]
                    if config.$field.is_some() {
                        return Err(ConfigError::new(
                            stringify!($field),
                            "",
                            concat!(
                                "this build of hookrail-builtin lacks the `", $feature,
                                "` cargo feature; enable it or remove these settings"
                            ),
                        ));
                    }
                )*
                Ok(Builtins { $(#[cfg(feature = $feature)] $field,)* })
            }

            /// The policies that are on, each with the [`order`](crate::order) it runs at.
            pub fn providers(&self) -> Vec<(i32, Arc<dyn HooksProvider>)> {
                #[allow(unused_mut)] // with every policy's feature off
                let mut providers: Vec<(i32, Arc<dyn HooksProvider>)> = Vec::new();
                $(
                    #[cfg(feature = $feature)]
                    if let Some(policy) = &self.$field {
                        providers.push(($order, Arc::new(policy.clone())));
                    }
                )*
                providers
            }

            /// Adds every policy that is on to `builder` at its [`order`](crate::order).
            ///
            /// The audit records hook runs through a subscription, which needs the built hook
            /// set: prefer [`install`](Builtins::install), or call `Audit::attach` on the result
            /// yourself.
            pub fn add_to(&self, builder: HooksBuilder) -> HooksBuilder {
                self.providers()
                    .into_iter()
                    .fold(builder, |builder, (order, p)| builder.provider_arc(order, p))
            }

            /// Adds every policy that is on to `builder`, builds the hook set and attaches the
            /// audit (when on) to it.
            ///
            /// # Errors
            ///
            /// [`HooksError`] from [`HooksBuilder::build`], e.g. a hook of the same name
            /// (`builtin.command_guard`) is already in the builder.
            pub fn install(&self, builder: HooksBuilder) -> Result<Hooks, HooksError> {
                let hooks = self.add_to(builder).build()?;
                #[cfg(feature = "audit")]
                if let Some(audit) = &self.audit {
                    audit.attach(&hooks);
                }
                Ok(hooks)
            }

            /// The names (as in [`BuiltinConfig`]: `rate_limit`) of the policies that are on and
            /// whose state lives in this process's memory: `budget`, `rate_limit`,
            /// `reviewer_lockout`, `resilience` (retries and the circuit breaker) and
            /// `task_tracker` (each session's complexity and task id). `audit` writes its trail
            /// to a file or database and the guards and `context-inject` keep no state between
            /// events, so they are never listed.
            ///
            /// In a process that handles one event and exits (`hooks claude`), the state of
            /// these policies lasts one event: a limit of one call per minute never triggers.
            /// Callers use this list to say so. The list does not change when the caller saves
            /// and restores state: a long-lived process can keep the state of the
            /// [`persistent`](Builtins::persistent) ones across restarts, but not from one
            /// event to the next in a process per event.
            ///
            /// ```
            /// # #[cfg(all(feature = "rate-limit", feature = "command-guard"))] {
            /// use hookrail_builtin::{BuiltinConfig, Builtins};
            ///
            /// let config: BuiltinConfig = serde_json::from_str(
            ///     r#"{ "command_guard": {}, "rate_limit": { "tool_calls": [{ "calls": 1, "window_ms": 60000 }] } }"#,
            /// )?;
            /// assert_eq!(Builtins::new(config)?.memory_only_state(), ["rate_limit"]);
            /// # }
            /// # Ok::<(), Box<dyn std::error::Error>>(())
            /// ```
            pub fn memory_only_state(&self) -> Vec<&'static str> {
                #[allow(unused_mut)] // with every stateful feature off
                let mut names = Vec::new();
                $(
                    #[cfg(feature = $feature)]
                    if $memory && self.$field.is_some() {
                        names.push(stringify!($field));
                    }
                )*
                names
            }

            /// The policies that are on and whose state can be saved and restored across a
            /// restart ([`PersistentState`]): `budget`, `rate_limit` and `reviewer_lockout`.
            /// Each is a handle sharing its state with the copies in the hook set. See
            /// [`state`](crate::state).
            ///
            /// ```
            /// # #[cfg(all(feature = "rate-limit", feature = "command-guard"))] {
            /// use hookrail_builtin::{BuiltinConfig, Builtins};
            ///
            /// let config: BuiltinConfig =
            ///     serde_json::from_str(r#"{ "command_guard": {}, "rate_limit": {} }"#)?;
            /// let names: Vec<_> = Builtins::new(config)?
            ///     .persistent()
            ///     .iter()
            ///     .map(|p| p.state_name())
            ///     .collect();
            /// assert_eq!(names, ["rate_limit"]);
            /// # }
            /// # Ok::<(), Box<dyn std::error::Error>>(())
            /// ```
            pub fn persistent(&self) -> Vec<Arc<dyn PersistentState>> {
                #[allow(unused_mut)] // with every persistent policy's feature off
                let mut policies: Vec<Arc<dyn PersistentState>> = Vec::new();
                $(
                    #[cfg(feature = $feature)]
                    persist!($persist, policies, &self.$field);
                )*
                policies
            }

            $(
                #[cfg(feature = $feature)]
                #[doc = concat!("The `", $feature, "` policy, when it is on.")]
                pub fn $field(&self) -> Option<&crate::$module::$policy> {
                    self.$field.as_ref()
                }
            )*
        }

        impl std::fmt::Debug for Builtins {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut on = f.debug_list();
                $(
                    #[cfg(feature = $feature)]
                    if self.$field.is_some() {
                        on.entry(&stringify!($field));
                    }
                )*
                on.finish()
            }
        }
    };
}

builtins! {
    /// `command-guard`: destructive shell commands.
    command_guard: "command-guard", command_guard::CommandGuardConfig => CommandGuard, order::GUARD, memory_state: false, persist: no;
    /// `write-guard`: file writes only under allowed globs.
    write_guard: "write-guard", write_guard::WriteGuardConfig => WriteGuard, order::GUARD, memory_state: false, persist: no;
    /// `secrets-guard`: no reading of secrets files.
    secrets_guard: "secrets-guard", secrets_guard::SecretsGuardConfig => SecretsGuard, order::GUARD, memory_state: false, persist: no;
    /// `reviewer-lockout`: rejected artifacts locked against their author.
    reviewer_lockout: "reviewer-lockout", reviewer_lockout::ReviewerLockoutConfig => ReviewerLockout, order::REVIEWER_LOCKOUT, memory_state: true, persist: yes;
    /// `budget`: token and cost limits.
    budget: "budget", budget::BudgetConfig => Budget, order::BUDGET, memory_state: true, persist: yes;
    /// `rate-limit`: calls per time window.
    rate_limit: "rate-limit", rate_limit::RateLimitConfig => RateLimit, order::RATE_LIMIT, memory_state: true, persist: yes;
    /// `context-inject`: decisions in, directives captured.
    context_inject: "context-inject", context_inject::ContextInjectConfig => ContextInject, order::CONTEXT, memory_state: false, persist: no;
    /// `resilience`: retries, model fallback, circuit breaker.
    resilience: "resilience", resilience::ResilienceConfig => Resilience, order::CONTEXT, memory_state: true, persist: no;
    /// `pii-scrub`: PII and credentials redacted from output.
    pii_scrub: "pii-scrub", pii_scrub::PiiScrubConfig => PiiScrub, order::OUTPUT, memory_state: false, persist: no;
    /// `task-tracker`: a tracking task per session.
    task_tracker: "task-tracker", task_tracker::TaskTrackerConfig => TaskTracker, order::OUTPUT, memory_state: true, persist: no;
    /// `audit`: the trail of hook runs and tool calls.
    audit: "audit", audit::AuditConfig => Audit, order::AUDIT, memory_state: false, persist: no;
}

impl BuiltinConfig {
    /// The guards to run when nothing is configured: `command-guard`, `secrets-guard` and
    /// `write-guard`, each with its default settings (destructive commands denied or asked
    /// about, secrets files unreadable, writes only inside the project root and never to
    /// `.git`). `hooks claude` runs these when there is no project file; a `builtin:` section
    /// replaces them.
    ///
    /// A guard whose cargo feature this build lacks is present as [`NotBuilt`], so
    /// [`Builtins::new`] refuses the set by name instead of running without it.
    ///
    /// ```
    /// # #[cfg(all(feature = "command-guard", feature = "secrets-guard", feature = "write-guard"))] {
    /// use hookrail_builtin::{BuiltinConfig, Builtins};
    ///
    /// let hooks = Builtins::new(BuiltinConfig::default_guards())?
    ///     .install(hookrail_core::runtime::Hooks::builder().ignore_env())?;
    /// let names: Vec<_> = hooks.list().iter().map(|h| h.name.to_string()).collect();
    /// assert!(names.contains(&"builtin.command_guard".to_owned()));
    /// assert!(names.contains(&"builtin.secrets_guard".to_owned()));
    /// assert!(names.contains(&"builtin.write_guard".to_owned()));
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn default_guards() -> Self {
        macro_rules! on {
            ($($field:ident: $feature:literal),*) => {
                BuiltinConfig {
                    $(
                        #[cfg(feature = $feature)]
                        $field: Some(Default::default()),
                        #[cfg(not(feature = $feature))]
                        $field: Some(NotBuilt(serde_json::Value::Object(Default::default()))),
                    )*
                    ..BuiltinConfig::default()
                }
            };
        }
        on!(
            command_guard: "command-guard",
            secrets_guard: "secrets-guard",
            write_guard: "write-guard"
        )
    }
}

// Runs in builds without `budget` (CI: `--no-default-features --features command-guard`).
#[cfg(all(test, not(feature = "budget")))]
mod tests {
    use super::*;

    #[test]
    fn settings_of_a_policy_this_build_lacks_load_and_are_refused_by_feature() {
        let config: BuiltinConfig =
            serde_json::from_str(r#"{ "budget": { "session": { "hard_usd": 1 } } }"#).unwrap();
        assert!(config.budget.is_some());
        let err = Builtins::new(config).unwrap_err();
        assert_eq!(err.policy, "budget");
        assert!(
            err.message.contains("lacks the `budget` cargo feature"),
            "{err}"
        );
        // Absent settings of a missing policy are fine.
        assert!(Builtins::new(BuiltinConfig::default()).is_ok());
    }

    #[test]
    fn settings_of_a_policy_this_build_lacks_are_kept_as_written() {
        let written = r#"{"budget":{"session":{"hard_usd":1}}}"#;
        let config: BuiltinConfig = serde_json::from_str(written).unwrap();
        assert_eq!(serde_json::to_string(&config).unwrap(), written);
    }
}
