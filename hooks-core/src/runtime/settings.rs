//! Defaults and environment switches of a [`Hooks`](super::Hooks) value (the table of the
//! variables is in the [runtime module docs](super#environment)).

use std::collections::HashSet;
use std::time::Duration;

/// The default timeout of a hook's async work at a point, when neither the hook
/// (`#[hook(timeout_ms = N)]`, [`Hook::timeout`](super::Hook::timeout)) nor the builder
/// ([`HooksBuilder::timeout`](super::HooksBuilder::timeout),
/// [`HooksBuilder::point_timeout`](super::HooksBuilder::point_timeout)) sets one.
///
/// | points | default |
/// |---|---|
/// | `model_stream_chunk` (runs per chunk, on the streaming path) | 1 s |
/// | `session_start`, `session_end`, `pre_compact` (may load or save state) | 30 s |
/// | every other standard point, and custom points | 10 s |
///
/// A timeout bounds an async hook's future: when it expires the future is dropped and the hook
/// fails with [`FailureCause::Timeout`](crate::FailureCause::Timeout) under its failure policy.
/// A sync hook cannot be interrupted; one that overruns its timeout keeps its result and is
/// logged at `warn` level.
pub fn default_timeout(point: &str) -> Duration {
    match point {
        "model_stream_chunk" => Duration::from_secs(1),
        "session_start" | "session_end" | "pre_compact" => Duration::from_secs(30),
        _ => Duration::from_secs(10),
    }
}

/// The environment variables a [`Hooks`](super::Hooks) value reads when it is built (unless
/// [`HooksBuilder::ignore_env`](super::HooksBuilder::ignore_env)), in the order of this list.
/// Every name starts with `HOOKS_`.
pub const ENV_VARS: [&str; 4] = [ENV_DISABLE, ENV_ENABLE, ENV_TIMEOUT_MS, ENV_DEBUG];

/// `HOOKS_DISABLE=name,name`: hooks and providers switched off by name.
pub const ENV_DISABLE: &str = "HOOKS_DISABLE";
/// `HOOKS_ENABLE=name,name`: opt-in hooks and providers switched on by name.
pub const ENV_ENABLE: &str = "HOOKS_ENABLE";
/// `HOOKS_TIMEOUT_MS=N`: the default timeout, in milliseconds, of hooks without their own.
pub const ENV_TIMEOUT_MS: &str = "HOOKS_TIMEOUT_MS";
/// `HOOKS_DEBUG=1`: every hook run logged at `info` level instead of `debug`.
pub const ENV_DEBUG: &str = "HOOKS_DEBUG";

/// Where the switches are read from: the process environment, or a lookup the embedder gave
/// ([`HooksBuilder::env_source`](super::HooksBuilder::env_source)).
pub(crate) type EnvLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The `HOOKS_*` switches, read once when a [`Hooks`](super::Hooks) value is built.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct EnvSwitches {
    /// Hook names listed in `HOOKS_DISABLE=name,name`.
    pub(crate) disabled: HashSet<String>,
    /// Hook names listed in `HOOKS_ENABLE=name,name`.
    pub(crate) enabled: HashSet<String>,
    /// `HOOKS_TIMEOUT_MS=N`, when it is a valid number of milliseconds.
    pub(crate) timeout: Option<Duration>,
    /// `HOOKS_DEBUG=1`: log every hook run at `info` level instead of `debug`.
    pub(crate) debug: bool,
}

impl EnvSwitches {
    /// The switches of the process environment.
    pub(crate) fn from_env() -> Self {
        Self::from_lookup(&|name| std::env::var(name).ok())
    }

    /// The switches as `lookup` answers for each variable. An invalid value is logged at
    /// `warn` level (naming the variable and the value) and leaves the default in place.
    pub(crate) fn from_lookup(lookup: &EnvLookup) -> Self {
        let disable = lookup(ENV_DISABLE);
        let enable = lookup(ENV_ENABLE);
        let timeout = lookup(ENV_TIMEOUT_MS);
        let debug = lookup(ENV_DEBUG);
        EnvSwitches {
            disabled: names(disable.as_deref()),
            enabled: names(enable.as_deref()),
            timeout: timeout_ms(timeout.as_deref()),
            debug: debug_flag(debug.as_deref()),
        }
    }
}

/// A comma-separated list of names, blanks ignored.
fn names(list: Option<&str>) -> HashSet<String> {
    list.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `HOOKS_TIMEOUT_MS`: a whole number of milliseconds, at least 1. Anything else (0, a
/// negative or fractional number, a unit suffix, text) is logged and ignored.
fn timeout_ms(value: Option<&str>) -> Option<Duration> {
    let raw = value?;
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    match trimmed.parse::<u64>() {
        Ok(ms) if ms > 0 => Some(Duration::from_millis(ms)),
        _ => {
            tracing::warn!(
                variable = ENV_TIMEOUT_MS,
                value = raw,
                "HOOKS_TIMEOUT_MS must be a whole number of milliseconds of at least 1 \
                 (HOOKS_TIMEOUT_MS=5000); ignored, the built-in timeouts stay in effect"
            );
            None
        }
    }
}

/// `HOOKS_DEBUG`: the usual truthy and falsy spellings; anything else is logged and off.
fn debug_flag(value: Option<&str>) -> bool {
    match value.map(str::trim) {
        None | Some("" | "0" | "false" | "no" | "off") => false,
        Some("1" | "true" | "yes" | "on") => true,
        Some(other) => {
            tracing::warn!(
                variable = ENV_DEBUG,
                value = other,
                "HOOKS_DEBUG must be 1/true/yes/on or 0/false/no/off; debug logging stays off"
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The switches of an environment made of `vars` (the process environment is not touched,
    /// so these tests can run in parallel).
    fn env(vars: &[(&str, &str)]) -> EnvSwitches {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        EnvSwitches::from_lookup(&move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    fn sorted(set: HashSet<String>) -> Vec<String> {
        let mut names: Vec<_> = set.into_iter().collect();
        names.sort();
        names
    }

    #[test]
    fn an_empty_environment_switches_nothing() {
        assert_eq!(env(&[]), EnvSwitches::default());
    }

    #[test]
    fn hooks_disable_is_a_comma_separated_list_with_blanks_ignored() {
        let s = env(&[("HOOKS_DISABLE", " a::b , c,, ")]);
        assert_eq!(sorted(s.disabled), ["a::b", "c"]);
        assert!(!s.debug);
    }

    #[test]
    fn hooks_enable_is_a_comma_separated_list_like_hooks_disable() {
        let s = env(&[
            ("HOOKS_ENABLE", "beads, agentfs ,,"),
            ("HOOKS_DISABLE", "beads"),
        ]);
        assert_eq!(sorted(s.enabled), ["agentfs", "beads"]);
        // Both lists are kept as given; DISABLE wins when the set is built.
        assert_eq!(sorted(s.disabled), ["beads"]);
    }

    #[test]
    fn hooks_debug_accepts_the_usual_truthy_values_only() {
        for on in ["1", "true", "yes", "on", " 1 "] {
            assert!(env(&[("HOOKS_DEBUG", on)]).debug, "{on:?}");
        }
        for off in ["0", "false", "no", "off", "", "maybe"] {
            assert!(!env(&[("HOOKS_DEBUG", off)]).debug, "{off:?}");
        }
    }

    #[test]
    fn hooks_timeout_ms_is_a_positive_whole_number_of_milliseconds() {
        assert_eq!(
            env(&[("HOOKS_TIMEOUT_MS", "5000")]).timeout,
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            env(&[("HOOKS_TIMEOUT_MS", " 250 ")]).timeout,
            Some(Duration::from_millis(250))
        );
        for bad in [
            "0",
            "-5",
            "1.5",
            "5s",
            "five",
            "18446744073709551616",
            "",
            "  ",
        ] {
            assert_eq!(env(&[("HOOKS_TIMEOUT_MS", bad)]).timeout, None, "{bad:?}");
        }
    }

    #[test]
    fn every_variable_has_the_hooks_prefix() {
        for name in ENV_VARS {
            assert!(name.starts_with("HOOKS_"), "{name}");
        }
    }

    #[test]
    fn default_timeouts_follow_the_documented_table() {
        assert_eq!(
            default_timeout("model_stream_chunk"),
            Duration::from_secs(1)
        );
        assert_eq!(default_timeout("session_start"), Duration::from_secs(30));
        assert_eq!(default_timeout("pre_tool_use"), Duration::from_secs(10));
        assert_eq!(default_timeout("my_crate_custom"), Duration::from_secs(10));
    }
}
