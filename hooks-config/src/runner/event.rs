//! What the runner reports about each configured hook it considered.

use std::time::Duration;

use serde::Serialize;

use crate::protocol::Decision;

/// One event per configured hook that matched: it ran ([`CommandEvent::Ran`], seed 004's
/// `hook_command`) or the gate kept it from running ([`CommandEvent::Skipped`],
/// `hook_command_skipped`).
///
/// Delivered to [`ConfigHooks::subscribe`](super::ConfigHooks::subscribe) callbacks and logged
/// with `tracing` (target `hookrail_config::runner`). Serializes with a `kind` tag:
/// `{"kind": "hook_command", …}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CommandEvent {
    /// A hook ran (successfully or not).
    #[serde(rename = "hook_command")]
    Ran(CommandRun),
    /// A hook was not run: the gate refused it (not on the allow-list, not approved, changed
    /// since its approval, URL not allowed). [`CommandSkipped::failed_closed`] says whether
    /// that denied.
    #[serde(rename = "hook_command_skipped")]
    Skipped(CommandSkipped),
}

/// A configured hook that ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CommandRun {
    /// The hook's id.
    pub hook_id: String,
    /// The point it ran at.
    pub point: &'static str,
    /// The command line or URL.
    pub handler: String,
    /// How it ended.
    pub status: RunStatus,
    /// How long it ran.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// Its stdout (or HTTP body), capped at [`OUTPUT_CAP`](crate::protocol::OUTPUT_CAP)
    /// characters.
    pub stdout: String,
    /// Its stderr, capped the same way.
    pub stderr: String,
    /// Whether stdout or stderr was cut.
    pub truncated: bool,
    /// The decision it answered (`None` on failure).
    pub decision: Decision,
    /// Why the run is a failure, when it is one.
    pub failure: Option<String>,
    /// Whether the failure, if any, failed closed (denied or stopped the chain).
    pub failed_closed: bool,
    /// False when `blocking: false` made the runner log its answer without applying it.
    pub applied: bool,
}

/// How a configured hook ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "value", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// A command exited with this code.
    Exited(i32),
    /// A command was killed by this signal.
    Signaled(i32),
    /// An HTTP hook answered with this status.
    Http(u16),
    /// It ran past its timeout and was killed (commands: every process it started; on Linux its
    /// whole tree, elsewhere its process group).
    TimedOut,
    /// It could not be started or reached (see [`CommandRun::failure`]).
    NotStarted,
}

/// A configured hook the gate kept from running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CommandSkipped {
    /// The hook's id.
    pub hook_id: String,
    /// The point.
    pub point: &'static str,
    /// The command line or URL.
    pub handler: String,
    /// Why, and how to allow it.
    pub reason: String,
    /// Whether its absence failed closed: the entry denied (at a guard point, the default) or
    /// stopped the chain (`on_unapproved: deny` elsewhere). False when it was only skipped
    /// (`on_unapproved: skip`, `blocking: false`, or a point that cannot block by default);
    /// the answer then carries a notice instead.
    pub failed_closed: bool,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Serialize for Decision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Decision::None => "none",
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        })
    }
}
