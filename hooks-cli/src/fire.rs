//! `hooks fire`: the whole pipeline for one event.
//!
//! The event is read with the limits of `hooks claude` (size cap, read deadline, no duplicate
//! keys; see [`crate::limits`]). Configured webhooks are sent, with a bounded flush before
//! exit. A file named by `--settings`, `--plugin-root` or `--config` that does not exist is
//! left out and reported on stderr, as is everything that did not start or was not delivered.
//!
//! `--source` sets seed 003's invocation source for callers that are not an AI session (cron,
//! CI, a person): `hooks fire pre_tool_use --source ci_pipeline --input call.json` runs the
//! same guards as the agent's calls, and the printed result's `turn_ready` is the control
//! message with the guards' signals.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hookrail_config::payload::{self, Limits};
use hookrail_core::context::InvocationSource;
use serde_json::{Value, json};

use crate::CliError;
use crate::deliver::Delivery;
use crate::limits::LimitArgs;
use crate::load::{ConfigArgs, build, load_present};

/// Options of `hooks fire`.
#[derive(Debug, Args)]
pub struct FireArgs {
    /// The point (`pre_tool_use`) or an event name that maps to one (`PreToolUse`).
    pub point: String,
    /// The event as JSON, in Claude Code's field names (`tool_name`, `tool_input`, …); `-` for
    /// stdin. `session_id` and `cwd` default to `hooks-fire` and the project directory.
    #[arg(long, value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// Who is calling, for a caller that is not an AI session (seed 003's invocation source:
    /// `background_job`, `ci_pipeline`, `manual_cli`; or `ai_session`). The hooks see it as
    /// `invocation_source`, whatever the input says, so guards apply to every caller alike.
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<InvocationSource>,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub async fn run(args: FireArgs) -> Result<ExitCode, CliError> {
    let limits = args.limits.payload()?;
    let mut input = match &args.input {
        None => json!({}),
        Some(path) => read_json(path, limits)?,
    };
    let Value::Object(map) = &mut input else {
        return Err(CliError::Input(
            "the event input must be a JSON object".into(),
        ));
    };
    map.entry("session_id")
        .or_insert_with(|| json!("hooks-fire"));
    map.entry("cwd")
        .or_insert_with(|| json!(args.config.project_dir()));
    let flush = args.limits.webhook_flush()?;
    let (config, missing) = load_present(&args.config)?;
    let mut notes: Vec<String> = missing.iter().map(ToString::to_string).collect();
    let root = args.config.project_dir();
    crate::load::check_root(&root)?;
    let pipeline = build(&args.config, config, &[])?;
    if !pipeline.memory_only.is_empty() {
        notes.push(crate::status::stateful_note(&pipeline.memory_only));
    }
    let (delivery, not_started) = Delivery::start(&pipeline, flush);
    notes.extend(not_started);
    let fired = match args.source {
        Some(source) => {
            hookrail_config::fire::fire_as(&pipeline.hooks, &args.point, input, &root, source).await
        }
        None => hookrail_config::fire::fire_in(&pipeline.hooks, &args.point, input, &root).await,
    };
    notes.extend(delivery.finish().await);
    for note in &notes {
        eprintln!("hooks fire: {note}");
    }
    let fired = fired.map_err(|e| CliError::Input(e.to_string()))?;
    crate::load::print_json(&fired)?;
    Ok(ExitCode::SUCCESS)
}

/// Reads a JSON event from a file or, for `-`, stdin, within `limits`.
pub fn read_json(path: &Path, limits: Limits) -> Result<Value, CliError> {
    let read = if path.as_os_str() == "-" {
        payload::read_blocking(std::io::stdin(), limits)
    } else {
        let file = std::fs::File::open(path).map_err(CliError::io(path))?;
        payload::read_blocking(file, limits)
    };
    read.map_err(|e| CliError::Input(format!("{}: {e}", path.display())))
}
