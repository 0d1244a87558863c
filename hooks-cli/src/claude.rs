//! `hooks claude`: a Claude Code hook command that runs compiled policies and many scripts.
//!
//! Claude Code runs it with one hook payload on stdin. Its `hook_event_name` selects the
//! point; the policies compiled into the binary, the builtin policies of the project file's
//! `builtin:` section and every matching hook of `--settings` / `--plugin-root` run on it
//! (scripts in parallel, merged most-restrictive-first, or in order with `sequential: true`
//! in a project file), the configured `webhooks:` are sent (with a bounded flush before
//! exit), and the merged result is printed as Claude Code's answer.
//!
//! # Failing closed
//!
//! Exit code 2 makes Claude Code block (at a point that can block) and show stderr; exit 1 is
//! a non-blocking error; exit 0 carries the decision in the JSON answer.
//!
//! | case | answer |
//! |---|---|
//! | payload unreadable, over `--max-payload`, not closed within `--payload-timeout`, not JSON, a key twice, no `hook_event_name` | exit 2 (the event is unknown, so it may be one that can block) |
//! | a payload without `cwd` (older Claude Code) | this process's working directory, where Claude Code starts its hooks, is the `cwd` (also in what goes to a daemon); `transcript_path` and `permission_mode` are optional everywhere |
//! | a payload without what its point cannot decide without (`tool_name` at `PreToolUse`) | blocked where the event can block, naming the missing field; exit 1 elsewhere |
//! | `PermissionRequest`, where Claude Code does not honour exit 2 | every block above is its JSON deny (`decision.behavior: "deny"`) on exit 0 |
//! | config that does not parse, a limit variable that does not parse | exit 2 at a point that can block, else 1 |
//! | an entry with a problem (left out when loading: a bad field, an unknown event, a matcher that does not compile, …) | exit 2 at a point that can block, naming every problem (a left-out guard must not be a silent allow); elsewhere the problems are in `systemMessage` |
//! | a file named by `--settings`, `--plugin-root` or `--config` missing | the rest runs (compiled, builtin and project policies decide); the problem is in `systemMessage` and on stderr, every event, until it is fixed |
//! | nested deeper than [`MAX_DEPTH`](crate::nested::MAX_DEPTH) | exit 2 at a point that can block; elsewhere no script runs (said in `systemMessage`) |
//! | the answer cannot be written (stdout closed or a broken pipe) | exit 2 at a point that can block, else 1 |
//! | a panic anywhere outside a hook's own dispatch (which turns a panicking hook into its failure) | exit 2 at a point that can block, and before the event is known; else 1 ([`panicked`]) |
//! | otherwise | exit 0 and the merged answer |
//!
//! At a point that can block, the answer also says when a `builtin:` section leaves out every
//! guard of the default set, and which configured hooks of the event are disabled (`enabled: false`, a file
//! without `enabled: true`, `disableAllHooks`): every answer, since a process per event cannot
//! tell whether the user saw it before.
//!
//! A missing scripts file does not block: blocking every tool call until the file exists
//! would lock the user out of the very session that could create it, while the guards
//! compiled into the binary and the project's own still decide. It is never silent: the
//! answer's `systemMessage`, which Claude Code shows the user, names the file and what to
//! create, on every event.
//!
//! Nesting (a script of `hooks claude` running `hooks claude`) never switches a policy off:
//! see [`crate::nested`].
//!
//! Stateful builtin policies (`rate_limit`, `budget`, `reviewer_lockout`, `resilience`,
//! `task_tracker`) keep their state in memory, which in this process lasts one event: while
//! one is configured, every answer says so in `systemMessage` (a process per event cannot tell the first event of
//! a session from the others without state of its own).

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use hookrail_config::payload;

use crate::CliError;
use crate::deliver::Delivery;
use crate::limits::LimitArgs;
use crate::load::{ConfigArgs, build, load_present};
use crate::nested::{Ancestry, EventId, MAX_DEPTH, NESTED_ENV};
use crate::reply::{self, Reply, can_block};
use crate::serve::{forward, found};
use hookrail_forward::answer::CommandAnswer;

/// Options of `hooks claude`.
#[derive(Debug, Args)]
pub struct ClaudeArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Decide in this process even when a `hooks serve` daemon serves the project.
    #[arg(long)]
    pub no_daemon: bool,
    /// Why `hooks-forward` handed this event over (said in the answer).
    #[arg(long, hide = true, value_name = "TEXT")]
    pub daemon_note: Option<String>,
}

/// Whether the event being answered may be one that can block: true until the event is known
/// (an unknown event may be a guard), then what its point is. Read by [`panicked`].
static MAY_BLOCK: AtomicBool = AtomicBool::new(true);

/// The answer of `hooks claude` when it panicked outside a hook's dispatch (a bug, or a
/// standard stream that cannot be written): exit 2 where the event may be one that can block
/// (so Claude Code blocks rather than proceeds, as it would on the panic's exit code 101),
/// exit 1 elsewhere. The reason goes to stderr when stderr can still be written.
pub fn panicked(cause: &(dyn std::any::Any + Send)) -> ExitCode {
    let cause = cause
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| cause.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    let may_block = MAY_BLOCK.load(Ordering::SeqCst);
    // Not `eprintln!`: a stderr that cannot be written is one of the ways to get here.
    let _ = writeln!(
        std::io::stderr(),
        "hooks claude: internal error ({cause}); {}",
        if may_block {
            "blocked, since nothing was decided"
        } else {
            "this event cannot be blocked"
        }
    );
    ExitCode::from(if may_block { 2 } else { 1 })
}

/// Runs `hooks claude` (see the module docs for its answers).
///
/// # Errors
///
/// None in practice: every failure is answered with an exit code of Claude Code's protocol.
pub async fn run(args: ClaudeArgs) -> Result<ExitCode, CliError> {
    Ok(match decide(args).await {
        Decided::Here(reply) => reply.print("hooks claude"),
        Decided::ByDaemon(answer) => ExitCode::from(answer.emit()),
    })
}

/// Who decided: this process, or the daemon (whose answer is printed as it came).
enum Decided {
    Here(Reply),
    ByDaemon(CommandAnswer),
}

/// The answer to the payload on stdin: from the daemon serving the project when one runs
/// (and this is not a nested run), else decided in this process.
async fn decide(args: ClaudeArgs) -> Decided {
    let mut notes: Vec<String> = args.daemon_note.iter().cloned().collect();
    let ancestry = Ancestry::from_env();
    notes.extend(ancestry.unreadable.clone());
    let limits = match args.limits.payload() {
        Ok(limits) => limits,
        Err(e) => return Decided::Here(Reply::refuse(None, None, &e.to_string())),
    };
    // A nested run decides here, where recursion is caught; the daemon's own hooks are nested.
    let daemon = (!args.no_daemon && std::env::var_os(NESTED_ENV).is_none())
        .then(|| {
            let sources = found::sources_of(&args.config);
            found::find(&args.config, &sources).map(|found| (found, sources))
        })
        .flatten();
    let Some((daemon, sources)) = daemon else {
        let payload = match payload::read_blocking(std::io::stdin(), limits) {
            Ok(payload) => payload,
            Err(e) => return Decided::Here(Reply::refuse(None, None, &e.to_string())),
        };
        return Decided::Here(decide_here(&args, payload, ancestry, notes).await);
    };
    // The same limits as in-process; the bytes go to the daemon as they came, with the `cwd`
    // this process would take filled in when the payload has none (the daemon cannot know
    // it, and refuses an event whose project it cannot tell).
    let mut bytes = match payload::read_bytes_blocking(std::io::stdin(), limits) {
        Ok(bytes) => bytes,
        Err(e) => return Decided::Here(Reply::refuse(None, None, &e.to_string())),
    };
    if let Some(filled) = std::env::current_dir()
        .ok()
        .and_then(|cwd| hookrail_forward::payload::with_cwd(&bytes, &cwd))
    {
        bytes = filled;
    }
    // The record's project is the canonical root `find` compared with this one's.
    let identity = hookrail_forward::daemon::identity_of_root(&daemon.project, &sources);
    // A blocking exchange: it is the one thing this process waits on.
    match forward::forward(&daemon, &identity, &bytes) {
        Ok(answer) => Decided::ByDaemon(answer),
        Err(e) => {
            // Still decided, by the same policies in this process; never silently.
            notes.push(format!("{e}; decided in this process"));
            let payload = match payload::parse(&bytes) {
                Ok(payload) => payload,
                Err(e) => return Decided::Here(Reply::refuse(None, None, &e.to_string())),
            };
            Decided::Here(decide_here(&args, payload, ancestry, notes).await)
        }
    }
}

/// The answer to `payload`, decided in this process.
async fn decide_here(
    args: &ClaudeArgs,
    mut payload: serde_json::Value,
    ancestry: Ancestry,
    mut notes: Vec<String>,
) -> Reply {
    reply::default_cwd(&mut payload);
    let (point, event) = match reply::point_of(&payload) {
        Ok(found) => found,
        Err(refused) => return *refused,
    };
    let refuse = |message: &str| Reply::refuse(Some(point), Some(&event), message);
    MAY_BLOCK.store(can_block(Some(point)), Ordering::SeqCst);
    if ancestry.too_deep() && can_block(Some(point)) {
        return refuse(&format!(
            "{} `hooks claude` run above this one (the most is {MAX_DEPTH}): a chain of hooks starting `hooks claude` that does not end; blocked",
            ancestry.depth
        ));
    }
    let flush = match args.limits.webhook_flush() {
        Ok(flush) => flush,
        Err(e) => return refuse(&e.to_string()),
    };
    let (mut config, missing) = match load_present(&args.config) {
        Ok(loaded) => loaded,
        Err(e) => return refuse(&e.to_string()),
    };
    notes.extend(missing.iter().map(ToString::to_string));
    // An entry with a problem is left out, and a left-out guard would be a silent allow: at a
    // point that can block, a configuration with problems blocks until it is fixed.
    if !config.problems.is_empty() {
        let text = problems_text(&config);
        if can_block(Some(point)) {
            return refuse(&text);
        }
        notes.push(text);
    }
    if ancestry.too_deep() && !config.hooks.is_empty() {
        notes.push(format!(
            "{} `hooks claude` run above this one (the most is {MAX_DEPTH}): no configured hook ran; the compiled and builtin policies did",
            ancestry.depth
        ));
        config.hooks.clear();
    }
    let (skipped, nested) = ancestry.skip_recursion(&mut config, &EventId::of(point, &payload));
    notes.extend(skipped.iter().map(ToString::to_string));
    notes.extend(reply::event_notes(&config, point));
    let root = args.config.project_dir();
    if let Err(e) = crate::load::check_root(&root) {
        if can_block(Some(point)) {
            return refuse(&e.to_string());
        }
        notes.push(e.to_string());
    }
    let pipeline = match build(&args.config, config, &[(NESTED_ENV, nested)]) {
        Ok(p) => p,
        Err(e) => return refuse(&e.to_string()),
    };
    if !pipeline.memory_only.is_empty() {
        notes.push(crate::status::stateful_note(&pipeline.memory_only));
    }
    let (delivery, not_started) = Delivery::start(&pipeline, flush);
    notes.extend(not_started);
    // The hooks inherit this process's environment as it is (`CLAUDE_ENV_FILE` included,
    // where Claude Code sets it).
    let options = hookrail_config::fire::FireOptions::new().project_dir(&root);
    let fired = reply::fire(&pipeline.hooks, point, payload, options).await;
    notes.extend(delivery.finish().await);
    reply::answer(fired, point, &event, notes, "hooks claude")
}

/// The configuration's problems as one text that names each and says how to list them.
pub(crate) fn problems_text(config: &hookrail_config::file::LoadedConfig) -> String {
    let listed: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
    format!(
        "the configuration has {} problem(s), so a hook it declares may not run: {}; fix them (`hooks validate` lists them)",
        listed.len(),
        listed.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_blocks_where_the_event_may_be_blocked_and_never_exits_101() {
        // `MAY_BLOCK` is true until the event is known, and only this test changes it.
        let code = |may_block: bool| {
            MAY_BLOCK.store(may_block, Ordering::SeqCst);
            format!("{:?}", panicked(&"boom"))
        };
        assert_eq!(code(true), format!("{:?}", ExitCode::from(2)));
        assert_eq!(code(false), format!("{:?}", ExitCode::from(1)));
        MAY_BLOCK.store(true, Ordering::SeqCst);
    }
}
