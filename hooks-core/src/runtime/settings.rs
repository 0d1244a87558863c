//! Defaults and environment switches of a [`Hooks`](super::Hooks) value.

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

/// `HOOKS_DISABLE` and `HOOKS_DEBUG`, read once when a [`Hooks`](super::Hooks) value is built.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct EnvSwitches {
    /// Hook names listed in `HOOKS_DISABLE=name,name`.
    pub(crate) disabled: HashSet<String>,
    /// `HOOKS_DEBUG=1`: log every hook run at `info` level instead of `debug`.
    pub(crate) debug: bool,
}

impl EnvSwitches {
    pub(crate) fn from_env() -> Self {
        let disable = std::env::var("HOOKS_DISABLE").ok();
        let debug = std::env::var("HOOKS_DEBUG").ok();
        Self::parse(disable.as_deref(), debug.as_deref())
    }

    pub(crate) fn parse(disable: Option<&str>, debug: Option<&str>) -> Self {
        let disabled = disable
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let debug = match debug.map(str::trim) {
            None | Some("" | "0" | "false" | "no" | "off") => false,
            Some("1" | "true" | "yes" | "on") => true,
            Some(other) => {
                tracing::warn!(
                    value = other,
                    "HOOKS_DEBUG must be 1/true/yes/on or 0/false/no/off; debug logging stays off"
                );
                false
            }
        };
        EnvSwitches { disabled, debug }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_disable_is_a_comma_separated_list_with_blanks_ignored() {
        let s = EnvSwitches::parse(Some(" a::b , c,, "), None);
        let mut names: Vec<_> = s.disabled.into_iter().collect();
        names.sort();
        assert_eq!(names, ["a::b", "c"]);
        assert!(!s.debug);
    }

    #[test]
    fn hooks_debug_accepts_the_usual_truthy_values_only() {
        for on in ["1", "true", "yes", "on", " 1 "] {
            assert!(EnvSwitches::parse(None, Some(on)).debug, "{on:?}");
        }
        for off in ["0", "false", "no", "off", "", "maybe"] {
            assert!(!EnvSwitches::parse(None, Some(off)).debug, "{off:?}");
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
