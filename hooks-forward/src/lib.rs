//! The client side of `hooks serve`, and `hooks-forward`, the executable built on it.
//!
//! A `hooks serve` daemon answers Claude Code's hook events for one project. Agents with HTTP
//! hooks post to it directly. Agents that only run commands start a process per event; that
//! process can be `hooks claude`, which forwards to the daemon when one runs, but it starts the
//! whole `hooks` binary (its runtime, its policies) to send one request. `hooks-forward` is the
//! same forwarding with nothing else linked in: it starts in about the time of a minimal
//! program, sends the payload, prints the daemon's answer exactly as `hooks claude` would have
//! printed it, and hands the event to `hooks claude` whenever it cannot (no daemon, another
//! daemon, a nested run, an option it does not know).
//!
//! This library is what both share, so that the two clients and the daemon agree by
//! construction:
//!
//! - [`locations`]: where the state directory, the token, the user layer's hook directory and
//!   the approvals file are by default;
//! - [`daemon`]: the record a daemon leaves for its project ([`daemon::Found`]), how a client
//!   finds it, and the identity both sides compute ([`daemon::identity`]);
//! - [`token`]: the bearer token a client sends;
//! - [`ask`]: the request itself, after checking the socket's peer is that daemon;
//! - [`payload`]: reading the payload with `hooks claude`'s limits, and giving it a `cwd`;
//! - [`answer`]: the answer in the command form (stdout, stderr, exit code).
//!
//! ```no_run
//! use hookrail_forward::{ask, daemon::{self, Selection}, token};
//!
//! let selection = Selection::from_env(Default::default());
//! let project = selection.project_dir();
//! if let Some(found) = daemon::find(&project, &selection.sources())? {
//!     let identity = daemon::identity(&project, &selection.sources());
//!     let token = token::client_token()?;
//!     let exe = std::env::current_exe()?;
//!     let answer = ask::ask(&found, &identity, &token, &exe, br#"{"hook_event_name":"Stop"}"#, &[])?;
//!     std::process::exit(i32::from(answer.emit()));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod answer;
pub mod ask;
pub mod daemon;
pub mod locations;
pub mod payload;
pub mod token;

/// Set in the environment of every hook process a `hooks claude` run starts (its value is the
/// chain of events above it): a run that sees it is nested, and decides in its own process,
/// where recursion is caught.
pub const NESTED_ENV: &str = "AGENT_HOOKS_CLAUDE_NESTED";

/// The response header that carries the daemon's [`daemon::identity`] on every answer.
pub const IDENTITY_HEADER: &str = "x-hookrail-daemon";

/// The request header that asks the daemon for the command form of its answer
/// ([`answer::CommandAnswer`]) instead of the body of Claude Code's HTTP hooks.
pub const FORM_HEADER: &str = "x-hookrail-form";

/// The value of [`FORM_HEADER`] that asks for the command form.
pub const COMMAND_FORM: &str = "command";

/// The request header with which a forwarding client sends its `CLAUDE_ENV_FILE` (the path,
/// as Claude Code set it for the event): the daemon gives it to the command hooks of that
/// request only. Honoured on the Unix socket alone, and only as an absolute path.
pub const ENV_FILE_HEADER: &str = "x-hookrail-env-file";

/// The variable Claude Code sets for the hooks of `SessionStart`, `Setup`, `CwdChanged` and
/// `FileChanged`: a file they append `export NAME=value` lines to, for the session's later
/// commands.
pub const ENV_FILE_VAR: &str = "CLAUDE_ENV_FILE";
