//! Config-declared hooks for [`hooks_core`]: Claude-Code-compatible command and HTTP hooks
//! declared in `hooks.yaml`, `hooks.toml`, `.hooks/*.yaml` or Claude Code's `settings.json`.

pub mod command;
pub mod events;
pub mod file;
pub mod matcher;
pub mod spec;
