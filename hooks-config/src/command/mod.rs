//! Command hooks: Claude Code's wire protocol over a child process.

pub mod run;
