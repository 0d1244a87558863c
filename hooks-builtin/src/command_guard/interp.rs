//! Interpreter one-liners: `python -c`, `perl -e`, `ruby -e`, `node -e` and here-documents
//! fed to them (`core.shell`).

use crate::shell::Command;

use super::rules::{Env, Hit};

/// Hits of the code an interpreter runs: deletions and shell-outs.
pub(super) fn command_hits(_command: &Command, _env: &Env<'_>) -> Vec<Hit> {
    Vec::new()
}
