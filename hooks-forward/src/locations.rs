//! Where things are by default. Every function has a `_from` twin that takes the environment
//! as a function, so that tests (and a caller with another environment) need not change the
//! process's own.

use std::ffi::OsString;
use std::path::PathBuf;

/// `$XDG_STATE_HOME/hookrail` (`~/.local/state/hookrail`): the token and the daemons'
/// records; `None` when neither variable is set (or `XDG_STATE_HOME` is relative).
pub fn state_dir() -> Option<PathBuf> {
    state_dir_from(env)
}

/// [`state_dir`] with the environment given.
pub fn state_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = set(var);
    let state = set("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|home| home.join(".local").join("state")))?;
    Some(state.join("hookrail"))
}

/// The user layer's hook directory: `$XDG_CONFIG_HOME/hookrail/hooks`, else
/// `~/.config/hookrail/hooks`.
pub fn user_hooks_dir() -> Option<PathBuf> {
    user_hooks_dir_from(env)
}

/// [`user_hooks_dir`] with the environment given.
pub fn user_hooks_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = set(var);
    if let Some(config) = set("XDG_CONFIG_HOME").filter(|p| p.is_absolute()) {
        return Some(config.join("hookrail").join("hooks"));
    }
    set("HOME").map(|home| home.join(".config").join("hookrail").join("hooks"))
}

/// The approvals file: `$HOOKS_TRUST_FILE`, else `$XDG_CONFIG_HOME/agent-hooks/trust.json`,
/// else `~/.config/agent-hooks/trust.json`.
pub fn trust_file() -> Option<PathBuf> {
    trust_file_from(env)
}

/// [`trust_file`] with the environment given.
pub fn trust_file_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = set(var);
    if let Some(file) = set("HOOKS_TRUST_FILE") {
        return Some(file);
    }
    if let Some(config) = set("XDG_CONFIG_HOME").filter(|p| p.is_absolute()) {
        return Some(config.join("agent-hooks").join("trust.json"));
    }
    set("HOME").map(|home| home.join(".config").join("agent-hooks").join("trust.json"))
}

/// `state_dir()/token`: the token `hooks serve` makes on first start.
pub fn token_file() -> Option<PathBuf> {
    Some(state_dir()?.join("token"))
}

fn env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// A variable's value as a path, when it is set and not empty.
fn set(var: impl Fn(&str) -> Option<OsString>) -> impl Fn(&str) -> Option<PathBuf> {
    move |name| var(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn xdg_variables_come_first_and_must_be_absolute() {
        let both = env_of(&[
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CONFIG_HOME", "/c"),
            ("HOME", "/h"),
        ]);
        assert_eq!(state_dir_from(&both), Some(PathBuf::from("/s/hookrail")));
        assert_eq!(
            user_hooks_dir_from(&both),
            Some(PathBuf::from("/c/hookrail/hooks"))
        );
        assert_eq!(
            trust_file_from(&both),
            Some(PathBuf::from("/c/agent-hooks/trust.json"))
        );
        let relative = env_of(&[
            ("XDG_STATE_HOME", "s"),
            ("XDG_CONFIG_HOME", "c"),
            ("HOME", "/h"),
        ]);
        assert_eq!(
            state_dir_from(&relative),
            Some(PathBuf::from("/h/.local/state/hookrail"))
        );
        assert_eq!(
            user_hooks_dir_from(&relative),
            Some(PathBuf::from("/h/.config/hookrail/hooks"))
        );
        assert_eq!(
            trust_file_from(&relative),
            Some(PathBuf::from("/h/.config/agent-hooks/trust.json"))
        );
    }

    #[test]
    fn the_trust_variable_wins_and_nothing_set_is_none() {
        let named = env_of(&[("HOOKS_TRUST_FILE", "t.json"), ("HOME", "/h")]);
        assert_eq!(trust_file_from(&named), Some(PathBuf::from("t.json")));
        let empty = env_of(&[("HOME", "")]);
        assert_eq!(state_dir_from(&empty), None);
        assert_eq!(user_hooks_dir_from(&empty), None);
        assert_eq!(trust_file_from(&empty), None);
    }
}
