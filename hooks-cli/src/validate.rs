//! `hooks validate`: every problem of the given files, exit 0 or 1, and everything that is
//! valid but will not run.
//!
//! Besides problems (exit 1), it reports what is configured but inactive: hooks and webhooks
//! of a project file without `enabled: true`, entries with `enabled: false`, hooks the gate
//! refuses (not allow-listed, not approved, changed since approval: checked against the
//! approvals file of `--trust-file`/`$HOOKS_TRUST_FILE`), webhooks whose URL is not allowed or
//! whose secret variable is unset; and stateful builtin policies, whose state lasts one event
//! in `hooks claude`. Those do not change the exit code; the summary counts the active hooks
//! and webhooks (`ok: 1 of 2 hook(s) active`), and says `nothing runs` when none is.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hookrail_config::file::{
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
    /// The project whose scripts approvals are checked against (default: a directory given as
    /// a path, else $CLAUDE_PROJECT_DIR, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The approvals file. Default: $HOOKS_TRUST_FILE, else
    /// $XDG_CONFIG_HOME/agent-hooks/trust.json.
    #[arg(long, value_name = "FILE")]
    pub trust_file: Option<PathBuf>,
}

/// What a report line is.
#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// Wrong: exit 1.
    Problem,
    /// Valid, but does not run.
    Inactive,
    /// Runs, but not as one might expect.
    Note,
}

#[derive(Serialize)]
struct Report<'a> {
    kind: Kind,
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
        args.paths.clone()
    };
    let store = match args
        .trust_file
        .clone()
        .or_else(hookrail_config::trust::TrustStore::default_path)
    {
        Some(path) => Some(
            hookrail_config::trust::TrustStore::load(&path)
                .map_err(|e| CliError::Other(e.to_string()))?,
        ),
        None => None,
    };
    let mut problems = Vec::new();
    let mut inactive: Vec<Problem> = Vec::new();
    let mut notes: Vec<Problem> = Vec::new();
    let (mut hooks, mut hooks_active) = (0, 0);
    let (mut webhooks, mut webhooks_active) = (0, 0);
    for path in &paths {
        match check(path) {
            Ok((config, found)) => {
                hooks += found;
                webhooks += config.webhooks.len() + config.dormant_webhooks.len();
                problems.extend(config.problems.iter().cloned());
                notes.extend(config.notes.iter().cloned());
                let project = project_of(&args, path);
                let gate = crate::status::gate(&config, store.clone());
                let active = config.hooks.iter().map(|s| (s, config.enabled));
                let dormant = config.dormant.iter().map(|s| (s, false));
                for (spec, on) in active.chain(dormant) {
                    let standing = crate::status::hook(spec, on, &gate, &project);
                    if standing.active {
                        hooks_active += 1;
                    } else {
                        inactive.push(Problem {
                            location: spec.location.clone(),
                            hook_id: Some(spec.id.clone()),
                            message: inactive_message("hook", &spec.id, &standing),
                        });
                    }
                }
                let active = config.webhooks.iter().map(|w| (w, config.enabled));
                let dormant = config.dormant_webhooks.iter().map(|w| (w, false));
                for (spec, on) in active.chain(dormant) {
                    let standing = crate::status::webhook(spec, on, gate.allow());
                    if standing.active {
                        webhooks_active += 1;
                    } else {
                        inactive.push(Problem {
                            location: spec.location.clone(),
                            hook_id: Some(spec.id.clone()),
                            message: inactive_message("webhook", &spec.id, &standing),
                        });
                    }
                }
                if let Some(section) = config.builtin.as_ref() {
                    for (name, duty, _) in crate::load::default_guards_left_out(&config) {
                        notes.push(Problem {
                            location: section.location.clone(),
                            hook_id: None,
                            message: format!(
                                "builtin `{name}` is off (the `builtin:` section leaves it out): {duty}"
                            ),
                        });
                    }
                }
                match crate::load::builtins(&config) {
                    Ok(builtins) => {
                        let stateful = builtins.memory_only_state();
                        if let Some(section) =
                            config.builtin.as_ref().filter(|_| !stateful.is_empty())
                        {
                            notes.push(Problem {
                                location: section.location.clone(),
                                hook_id: None,
                                message: crate::status::stateful_note(&stateful),
                            });
                        }
                    }
                    Err(e) => {
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
            }
            Err(problem) => problems.push(problem),
        }
    }
    if args.json {
        let tagged = problems
            .iter()
            .map(|p| (Kind::Problem, p))
            .chain(inactive.iter().map(|p| (Kind::Inactive, p)))
            .chain(notes.iter().map(|p| (Kind::Note, p)));
        let reports: Vec<Report<'_>> = tagged
            .map(|(kind, p)| Report {
                kind,
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
        for p in &inactive {
            println!("{p}");
        }
        for p in &notes {
            println!("{}: note: {}", p.location, p.message);
        }
        let mut counts = format!("{hooks_active} of {hooks} hook(s)");
        if webhooks > 0 {
            counts.push_str(&format!(" and {webhooks_active} of {webhooks} webhook(s)"));
        }
        let nothing = hooks + webhooks > 0 && hooks_active + webhooks_active == 0;
        match (problems.is_empty(), nothing) {
            (true, false) => println!("ok: {counts} active"),
            (true, true) => println!("valid, but nothing runs: {counts} active"),
            (false, _) => println!("{} problem(s); {counts} active", problems.len()),
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `hook `x` inactive: skipped (not approved): <why>`.
fn inactive_message(what: &str, id: &str, standing: &crate::status::Standing) -> String {
    match &standing.detail {
        Some(detail) => format!("{what} `{id}` inactive: {}: {detail}", standing.status),
        None => format!("{what} `{id}` inactive: {}", standing.status),
    }
}

/// The project whose approvals apply to `path`'s hooks.
fn project_of(args: &ValidateArgs, path: &Path) -> PathBuf {
    if let Some(project) = &args.project {
        return project.clone();
    }
    if path.is_dir() {
        return path.to_path_buf();
    }
    std::env::var_os("CLAUDE_PROJECT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

fn location_of(path: &Path) -> hookrail_config::spec::Location {
    hookrail_config::spec::Location {
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
