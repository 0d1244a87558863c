//! Config-declared hooks for [`hooks_core`]: Claude-Code-compatible command and HTTP hooks
//! declared in `hooks.yaml`, `hooks.toml`, `.hooks/*.yaml` or Claude Code's `settings.json`.

pub mod command;
pub mod events;
pub mod file;
#[cfg(feature = "http")]
pub mod http;
pub mod matcher;
pub mod protocol;
pub mod spec;
pub mod trust;
