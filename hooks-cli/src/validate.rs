//! `hooks validate`: every problem of the given files, exit 0 or 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hooks_config::file::{
    LoadedConfig, Problem, load_claude_plugin, load_claude_settings, load_hooks_dir, load_project,
    load_project_file,
};
use serde::Serialize;

use crate::CliError;

/// Options of `hooks validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Project directories, project files (hooks.yaml/.toml/.json), `.hooks/*.yaml` files,
    /// Claude Code settings.json or plugin hooks/hooks.json files. Default: the current
    /// directory as a project.
    pub paths: Vec<PathBuf>,
    /// Print the problems as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    line: u32,
    column: u32,
    hook_id: Option<&'a str>,
    message: &'a str,
}

pub fn run(args: ValidateArgs) -> Result<ExitCode, CliError> {
    let paths = if args.paths.is_empty() {
        vec![std::env::current_dir().map_err(CliError::io("."))?]
    } else {
        args.paths
    };
    let mut problems = Vec::new();
    let mut hooks = 0;
    let mut webhooks = 0;
    for path in &paths {
        match check(path) {
            Ok((config, found)) => {
                hooks += found;
                webhooks += config.webhooks.len() + config.dormant_webhooks.len();
                problems.extend(config.problems.iter().cloned());
                if let Err(e) = crate::load::builtins(&config) {
                    let location = config
                        .builtin
                        .as_ref()
                        .map(|b| b.location.clone())
                        .unwrap_or_else(|| location_of(path));
                    problems.push(Problem {
                        location,
                        hook_id: None,
                        message: match e {
                            CliError::Builtin { message, .. } => {
                                format!("builtin settings: {message}")
                            }
                            other => other.to_string(),
                        },
                    });
                }
            }
            Err(problem) => problems.push(problem),
        }
    }
    if args.json {
        let reports: Vec<Report<'_>> = problems
            .iter()
            .map(|p| Report {
                file: p.location.file.display().to_string(),
                line: p.location.line,
                column: p.location.column,
                hook_id: p.hook_id.as_deref(),
                message: &p.message,
            })
            .collect();
        crate::load::print_json(&reports)?;
    } else {
        for p in &problems {
            println!("{p}");
        }
        if problems.is_empty() {
            if webhooks == 0 {
                println!("ok: {hooks} hook(s) valid");
            } else {
                println!("ok: {hooks} hook(s) and {webhooks} webhook(s) valid");
            }
        } else {
            println!("{} problem(s)", problems.len());
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn location_of(path: &Path) -> hooks_config::spec::Location {
    hooks_config::spec::Location {
        file: std::sync::Arc::new(path.to_path_buf()),
        line: 0,
        column: 0,
    }
}

/// Loads one path as what it looks like; returns the config and how many hooks it declares.
fn check(path: &Path) -> Result<(LoadedConfig, usize), Problem> {
    let missing = || Problem {
        location: location_of(path),
        hook_id: None,
        message: "no such file or directory".to_owned(),
    };
    if !path.exists() {
        return Err(missing());
    }
    let config = if path.is_dir() {
        load_project(path)?
    } else if in_hooks_dir(path) {
        // One file of `.hooks/`: read the directory, keep what concerns this file.
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut config = load_hooks_dir(dir, true)?;
        config.hooks.retain(|h| h.location.file.as_path() == path);
        config
            .problems
            .retain(|p| p.location.file.as_path() == path);
        config
    } else if is_claude_json(path) {
        if path.file_name().is_some_and(|n| n == "hooks.json")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "hooks")
        {
            let plugin = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("."));
            load_claude_plugin(plugin)?
        } else {
            load_claude_settings(path)?
        }
    } else {
        load_project_file(path)?
    };
    let found = config.hooks.len() + config.dormant.len();
    Ok((config, found))
}

fn in_hooks_dir(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == ".hooks")
}

/// A JSON file whose `hooks` is an object (event → groups) is Claude Code's shape; ours has a
/// list.
pub(crate) fn is_claude_json(path: &Path) -> bool {
    if path.extension().is_none_or(|e| e != "json") {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
        .ok()
        .and_then(|v| v.get("hooks").map(serde_json::Value::is_object))
        .unwrap_or(false)
}
