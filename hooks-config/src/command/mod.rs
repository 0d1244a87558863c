//! Command hooks: Claude Code's wire protocol over a child process.

#[cfg(target_os = "linux")]
mod reap;
pub mod run;
