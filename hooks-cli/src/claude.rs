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
//! | an event we do not support | exit 1 (not ours to block) |
//! | config that does not parse, a limit variable that does not parse | exit 2 at a point that can block, else 1 |
//! | an entry with a problem (left out when loading: a bad field, an unknown event, a matcher that does not compile, …) | exit 2 at a point that can block, naming every problem (a left-out guard must not be a silent allow); elsewhere the problems are in `systemMessage` |
//! | a file named by `--settings`, `--plugin-root` or `--config` missing | the rest runs (compiled, builtin and project policies decide); the problem is in `systemMessage` and on stderr, every event, until it is fixed |
//! | nested deeper than [`MAX_DEPTH`](crate::nested::MAX_DEPTH) | exit 2 at a point that can block; elsewhere no script runs (said in `systemMessage`) |
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
//! Stateful builtin policies (`rate_limit`, `budget`, `reviewer_lockout`, `resilience`) keep
//! their state in memory, which in this process lasts one event: while one is configured,
//! every answer says so in `systemMessage` (a process per event cannot tell the first event of
//! a session from the others without state of its own).

use std::process::ExitCode;

use clap::Args;
use hookrail_config::payload;
use serde_json::{Value, json};

use crate::CliError;
use crate::deliver::Delivery;
use crate::limits::LimitArgs;
use crate::load::{ConfigArgs, build, load_present};
use crate::nested::{Ancestry, EventId, MAX_DEPTH, NESTED_ENV};

/// Options of `hooks claude`.
#[derive(Debug, Args)]
pub struct ClaudeArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub async fn run(args: ClaudeArgs) -> Result<ExitCode, CliError> {
    let mut notes = Vec::new();
    let ancestry = Ancestry::from_env();
    notes.extend(ancestry.unreadable.clone());
    let limits = match args.limits.payload() {
        Ok(limits) => limits,
        Err(e) => return Ok(refuse(None, &e.to_string())),
    };
    let payload = match payload::read_blocking(std::io::stdin(), limits) {
        Ok(payload) => payload,
        Err(e) => return Ok(refuse(None, &e.to_string())),
    };
    let Some(event) = payload.get("hook_event_name").and_then(Value::as_str) else {
        return Ok(refuse(
            None,
            "the hook payload has no `hook_event_name` string",
        ));
    };
    let point = match hookrail_config::events::resolve_claude(event) {
        Ok(point) => point,
        // An event Claude Code has and we do not: not ours to block.
        Err(e @ hookrail_config::events::EventError::Unsupported { .. }) => {
            eprintln!("hooks claude: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Ok(refuse(None, &e.to_string())),
    };
    if ancestry.too_deep() && can_block(Some(point)) {
        return Ok(refuse(
            Some(point),
            &format!(
                "{} `hooks claude` run above this one (the most is {MAX_DEPTH}): a chain of hooks starting `hooks claude` that does not end; blocked",
                ancestry.depth
            ),
        ));
    }
    let flush = match args.limits.webhook_flush() {
        Ok(flush) => flush,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    let (mut config, missing) = match load_present(&args.config) {
        Ok(loaded) => loaded,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    notes.extend(missing.iter().map(ToString::to_string));
    // An entry with a problem is left out, and a left-out guard would be a silent allow: at a
    // point that can block, a configuration with problems blocks until it is fixed.
    if !config.problems.is_empty() {
        let listed: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
        let text = format!(
            "the configuration has {} problem(s), so a hook it declares may not run: {}; fix them (`hooks validate` lists them)",
            listed.len(),
            listed.join("; ")
        );
        if can_block(Some(point)) {
            return Ok(refuse(Some(point), &text));
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
    // What does not run at this event is said, not left for the user to find out.
    if can_block(Some(point)) {
        if let Some((off, location)) = crate::load::default_guards_off(&config) {
            notes.push(format!(
                "builtin {} off: the `builtin:` section at {location} leaves them out (remove the section for the default guard set)",
                off.join(", ")
            ));
        }
        let inactive: Vec<String> = config
            .hooks
            .iter()
            .filter(|s| !s.enabled)
            .chain(&config.dormant)
            .filter(|s| s.point == point)
            .map(|s| format!("`{}` ({})", s.id, s.location))
            .collect();
        if !inactive.is_empty() {
            notes.push(format!(
                "configured hook(s) of this event that do not run (disabled, or their file is not switched on): {}",
                inactive.join(", ")
            ));
        }
    }
    let root = args.config.project_dir();
    if let Err(e) = crate::load::check_root(&root) {
        if can_block(Some(point)) {
            return Ok(refuse(Some(point), &e.to_string()));
        }
        notes.push(e.to_string());
    }
    let pipeline = match build(&args.config, config, &[(NESTED_ENV, nested)]) {
        Ok(p) => p,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    if !pipeline.memory_only.is_empty() {
        notes.push(crate::status::stateful_note(&pipeline.memory_only));
    }
    let (delivery, not_started) = Delivery::start(&pipeline, flush);
    notes.extend(not_started);
    let fired = hookrail_config::fire::fire_in(&pipeline.hooks, point, payload, &root).await;
    notes.extend(delivery.finish().await);
    let fired = match fired {
        Ok(f) => f,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    let (mut answer, code) = hookrail_config::fire::claude_answer(&fired);
    add_notes(&mut answer, &notes);
    if answer.as_object().is_some_and(|o| !o.is_empty()) {
        println!("{answer}");
    }
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// Says `notes` on stderr and in the answer's `systemMessage` (which Claude Code shows the
/// user), after what is already there.
fn add_notes(answer: &mut Value, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    for note in notes {
        eprintln!("hooks claude: {note}");
    }
    let Some(out) = answer.as_object_mut() else {
        return;
    };
    let mut lines: Vec<String> = out
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .into_iter()
        .collect();
    lines.extend(notes.iter().map(|n| format!("hooks claude: {n}")));
    out.insert("systemMessage".into(), json!(lines.join("\n")));
}

fn can_block(point: Option<&str>) -> bool {
    point.is_none_or(|p| hookrail_config::events::kind_of(p) == Some(hookrail_core::KindId::Guard))
}

/// Could not decide: block where Claude Code can block (exit 2, reason on stderr), report a
/// non-blocking error elsewhere (exit 1). Without a point (the event is unknown), it blocks.
fn refuse(point: Option<&str>, message: &str) -> ExitCode {
    eprintln!("hooks claude: {message}");
    ExitCode::from(if can_block(point) { 2 } else { 1 })
}
