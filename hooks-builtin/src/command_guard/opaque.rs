//! What the guard cannot see into: rules that ask (`core.shell`).

use crate::shell::{Command, Script};

use super::rules::{Env, Hit};

/// Hits of the rules that look at the whole script (`download-then-run`, `decode-to-shell`).
pub(super) fn script_hits(_script: &Script, _env: &Env<'_>) -> Vec<Hit> {
    Vec::new()
}

/// Hits of the rules that look at one command (`eval-computed`, `substitution-run`,
/// `source-substitution`, `rm-unknown-variable`, `ifs-expansion`).
pub(super) fn command_hits(_command: &Command, _env: &Env<'_>) -> Vec<Hit> {
    Vec::new()
}
