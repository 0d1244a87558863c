//! `hooks fire`: the whole pipeline for one event.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use crate::CliError;
use crate::load::{ConfigArgs, pipeline};

/// Options of `hooks fire`.
#[derive(Debug, Args)]
pub struct FireArgs {
    /// The point (`pre_tool_use`) or an event name that maps to one (`PreToolUse`).
    pub point: String,
    /// The event as JSON, in Claude Code's field names (`tool_name`, `tool_input`, …); `-` for
    /// stdin. `session_id` and `cwd` default to `hooks-fire` and the project directory.
    #[arg(long, value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub async fn run(args: FireArgs) -> Result<ExitCode, CliError> {
    let mut input = match &args.input {
        None => json!({}),
        Some(path) => read_json(path)?,
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
    let pipeline = pipeline(&args.config)?;
    let fired = hooks_config::fire::fire(&pipeline.hooks, &args.point, input)
        .await
        .map_err(|e| CliError::Input(e.to_string()))?;
    crate::load::print_json(&fired)?;
    Ok(ExitCode::SUCCESS)
}

/// Reads a JSON document from a file or, for `-`, stdin.
pub fn read_json(path: &std::path::Path) -> Result<Value, CliError> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(CliError::io("<stdin>"))?;
        text
    } else {
        std::fs::read_to_string(path).map_err(CliError::io(path))?
    };
    serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| CliError::Input(format!("{}: not JSON: {e}", path.display())))
}
