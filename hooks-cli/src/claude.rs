//! `hooks claude`: a Claude Code hook command that runs compiled policies and many scripts.
//!
//! Claude Code runs it with one hook payload on stdin. Its `hook_event_name` selects the
//! point; the policies compiled into the binary, the builtin policies of the project file's
//! `builtin:` section and every matching hook of `--settings` / `--plugin-root` run on it
//! (scripts in parallel, merged most-restrictive-first, or in order with `sequential: true`
//! in a project file), and the merged result is printed as Claude Code's answer.
//!
//! Failing closed: when the payload cannot be read at a point that can block, it answers
//! with exit code 2 (Claude Code blocks and shows stderr); elsewhere exit code 1.

use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;

use crate::CliError;
use crate::load::{ConfigArgs, pipeline_with};

/// Set in the environment of hooks that `hooks claude` runs, so that a settings file listing
/// `hooks claude` itself cannot make it run itself forever.
pub const NESTED_ENV: &str = "AGENT_HOOKS_CLAUDE_NESTED";

/// Options of `hooks claude`.
#[derive(Debug, Args)]
pub struct ClaudeArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub async fn run(args: ClaudeArgs) -> Result<ExitCode, CliError> {
    if std::env::var_os(NESTED_ENV).is_some() {
        eprintln!(
            "hooks claude: started by a hook of another `hooks claude`; not running again \
             (list `hooks claude` only in the settings Claude Code reads, not in --settings)"
        );
        return Ok(ExitCode::from(1));
    }
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        return Ok(refuse(None, &format!("cannot read the hook payload: {e}")));
    }
    let payload: Value = match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(v) => v,
        Err(e) => return Ok(refuse(None, &format!("the hook payload is not JSON: {e}"))),
    };
    let Some(event) = payload.get("hook_event_name").and_then(Value::as_str) else {
        return Ok(refuse(None, "the hook payload has no `hook_event_name`"));
    };
    let point = match hooks_config::events::resolve_claude(event) {
        Ok(point) => point,
        // An event Claude Code has and we do not: not ours to block.
        Err(e @ hooks_config::events::EventError::Unsupported { .. }) => {
            eprintln!("hooks claude: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Ok(refuse(None, &e.to_string())),
    };
    let pipeline = match pipeline_with(&args.config, |b| b.env(NESTED_ENV, "1")) {
        Ok(p) => p,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    let fired = match hooks_config::fire::fire(&pipeline.hooks, point, payload).await {
        Ok(f) => f,
        Err(e) => return Ok(refuse(Some(point), &e.to_string())),
    };
    let (answer, code) = hooks_config::fire::claude_answer(&fired);
    if answer.as_object().is_some_and(|o| !o.is_empty()) {
        println!("{answer}");
    }
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// Could not decide: block where Claude Code can block (exit 2, reason on stderr), report a
/// non-blocking error elsewhere (exit 1).
fn refuse(point: Option<&str>, message: &str) -> ExitCode {
    eprintln!("hooks claude: {message}");
    let can_block =
        point.is_none_or(|p| hooks_config::events::kind_of(p) == Some(hooks_core::KindId::Guard));
    ExitCode::from(if can_block { 2 } else { 1 })
}
