//! `hooks install claude`: writes the hook entries that send Claude Code's events to
//! `hooks serve` (or, with `--command`, to `hooks claude`) into a Claude Code settings file.
//!
//! The file is changed only as much as needed: every key and entry that is not ours stays as
//! it was, an entry of ours (an `http` handler posting to a `/claude` URL on loopback, or a
//! `hooks claude` command) is replaced in place, and a file that already says what we would
//! write is left untouched. Before a change, the old file is copied to `settings.json.bak`
//! (`.bak.1`, `.bak.2`, … when that exists). A file that is not a JSON object is an error, never
//! overwritten.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};

use crate::CliError;
use crate::serve::DEFAULT_LISTEN;

/// The events the entries are written for: the guard points Claude Code can block at, and
/// the ones our policies read (tool output, session start).
pub const EVENTS: [(&str, bool); 5] = [
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("UserPromptSubmit", false),
    ("SessionStart", false),
    ("Stop", false),
];

/// Options of `hooks install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent.
    #[command(subcommand)]
    pub agent: Agent,
}

/// The agents `hooks install` knows.
#[derive(Debug, Subcommand)]
pub enum Agent {
    /// Claude Code: its `settings.json`.
    Claude(ClaudeInstall),
}

/// Options of `hooks install claude`.
#[derive(Debug, Args)]
pub struct ClaudeInstall {
    /// Write the project's `.claude/settings.json` (the default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Write the user's `~/.claude/settings.json` instead.
    #[arg(long)]
    pub user: bool,
    /// The project directory. Default: $CLAUDE_PROJECT_DIR, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Write `hooks claude` command hooks instead of `http` hooks to the daemon.
    #[arg(long)]
    pub command: bool,
    /// With `--command`: write `hooks-forward` (`cargo install hookrail-forward`, beside
    /// `hooks`) instead of `hooks claude`: the same answers, and with a daemon running, a
    /// fraction of the start-up time per event.
    #[arg(long, requires = "command")]
    pub forwarder: bool,
    /// The daemon's address (as given to `hooks serve --listen`).
    #[arg(long, value_name = "ADDR:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
}

/// Runs `hooks install`.
///
/// # Errors
///
/// [`CliError::Input`] when the settings file cannot be read, is not a JSON object, or cannot
/// be written.
pub fn run(args: InstallArgs) -> Result<ExitCode, CliError> {
    let Agent::Claude(args) = args.agent;
    if args.forwarder {
        // A command Claude Code cannot start blocks every event (`onFailure: "block"`): never
        // written for an executable that is not there.
        let exe = std::env::current_exe().map_err(|e| CliError::Other(e.to_string()))?;
        let forwarder =
            exe.with_file_name(format!("hooks-forward{}", std::env::consts::EXE_SUFFIX));
        if !forwarder.is_file() {
            return Err(CliError::Input(format!(
                "{} does not exist: install it beside `hooks` (`cargo install hookrail-forward`), then run this again",
                forwarder.display()
            )));
        }
    }
    let path = settings_path(&args)?;
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(input(&path, &e.to_string())),
    };
    let mut settings = match &old {
        Some(text) => serde_json::from_str::<Value>(text)
            .map_err(|e| input(&path, &format!("not JSON ({e}); fix it or move it away")))?,
        None => json!({}),
    };
    let handler = handler(&args);
    install(&mut settings, &handler).map_err(|why| input(&path, &why))?;
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&settings).map_err(|e| input(&path, &e.to_string()))?
    );
    if old.as_deref() == Some(text.as_str()) {
        println!("{}: already installed, nothing changed", path.display());
    } else {
        if let Some(old) = &old {
            let backup = backup_path(&path);
            // `create_new`: never through a link someone left at the backup's name.
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&backup)
                .and_then(|mut f| std::io::Write::write_all(&mut f, old.as_bytes()))
                .map_err(|e| input(&backup, &e.to_string()))?;
            println!(
                "{}: the old file is kept as {}",
                path.display(),
                backup.display()
            );
        } else if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| input(dir, &e.to_string()))?;
        }
        // Written whole under another name and renamed over: Claude Code never reads half a
        // file, and a crash leaves the old one.
        let partial = PathBuf::from(format!(
            "{}.hooks-install.{}",
            path.display(),
            std::process::id()
        ));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&partial)
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .and_then(|()| std::fs::rename(&partial, &path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                input(&path, &e.to_string())
            })?;
        println!(
            "{}: hooks for {} written",
            path.display(),
            EVENTS.map(|(event, _)| event).join(", ")
        );
    }
    if args.forwarder {
        println!(
            "Claude Code now runs `hooks-forward` for each event: it sends it to a running `hooks serve`, and hands it to `hooks claude` when none runs."
        );
    } else if args.command {
        println!(
            "Claude Code now runs `hooks claude` for each event (it uses a running `hooks serve` when there is one)."
        );
    } else {
        println!(
            "Start the daemon and give Claude Code its token:\n  hooks serve --listen {}\n  export HOOKS_TOKEN=\"$(cat \"${{XDG_STATE_HOME:-$HOME/.local/state}}/hookrail/token\")\"\nWhile it is down, these hooks block every call (onFailure: block).",
            args.listen
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn input(path: &Path, why: &str) -> CliError {
    CliError::Input(format!("{}: {why}", path.display()))
}

fn settings_path(args: &ClaudeInstall) -> Result<PathBuf, CliError> {
    if args.user {
        let home = std::env::var_os("HOME")
            .ok_or_else(|| CliError::Input("$HOME is unset: give --dir with --project".into()))?;
        return Ok(PathBuf::from(home).join(".claude").join("settings.json"));
    }
    let dir = args
        .dir
        .clone()
        .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    Ok(dir.join(".claude").join("settings.json"))
}

/// The handler we write for every event.
fn handler(args: &ClaudeInstall) -> Value {
    if args.command {
        let command = if args.forwarder { FORWARDER } else { CLAUDE };
        json!({ "type": "command", "command": command, "onFailure": "block" })
    } else {
        json!({
            "type": "http",
            "url": format!("http://{}/claude", args.listen),
            "headers": { "Authorization": "Bearer $HOOKS_TOKEN" },
            "allowedEnvVars": ["HOOKS_TOKEN"],
            "onFailure": "block",
        })
    }
}

/// The command forms we write.
const CLAUDE: &str = "hooks claude";
const FORWARDER: &str = "hooks-forward";

/// Whether `handler` is one of ours: an `http` handler posting to `/claude` on loopback, or a
/// `hooks claude` or `hooks-forward` command (any options).
fn ours(handler: &Value) -> bool {
    match handler.get("type").and_then(Value::as_str) {
        Some("http") => handler
            .get("url")
            .and_then(Value::as_str)
            .and_then(|url| url.strip_prefix("http://"))
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(host, path)| {
                path == "claude"
                    && host
                        .parse::<SocketAddr>()
                        .is_ok_and(|addr| addr.ip().is_loopback())
            }),
        Some("command") => handler
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| {
                [CLAUDE, FORWARDER]
                    .iter()
                    .any(|form| c == *form || c.starts_with(&format!("{form} ")))
            }),
        _ => false,
    }
}

/// Puts `handler` into `settings` for every event of [`EVENTS`]: our handlers are replaced
/// where they are (the first one kept, the others removed), a group of ours is added where
/// there is none, everything else stays.
fn install(settings: &mut Value, handler: &Value) -> Result<(), String> {
    let root = settings
        .as_object_mut()
        .ok_or("not a JSON object; fix it or move it away")?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("`hooks` is not an object")?;
    for (event, matcher) in EVENTS {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not an array"))?;
        let mut placed = false;
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            let mut kept = Vec::with_capacity(list.len());
            for h in list.drain(..) {
                if !ours(&h) {
                    kept.push(h);
                    continue;
                }
                // `hooks claude` with options of its own loads other hooks than the daemon
                // would: never replaced silently.
                if let Some(command) = h.get("command").and_then(Value::as_str)
                    && command != CLAUDE
                    && command != FORWARDER
                {
                    if is_command(handler) {
                        placed = true;
                        kept.push(h);
                        continue;
                    }
                    return Err(format!(
                        "`hooks.{event}` runs `{command}`: give `hooks serve` the same options, then remove that entry (or use --command to keep it)"
                    ));
                }
                if !placed {
                    kept.push(handler.clone());
                    placed = true;
                }
            }
            *list = kept;
        }
        // A group left empty by the removal of a second handler of ours goes too.
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|list| !list.is_empty())
        });
        if !placed {
            let mut group = Map::new();
            if matcher {
                group.insert("matcher".into(), json!("*"));
            }
            group.insert("hooks".into(), json!([handler.clone()]));
            groups.push(Value::Object(group));
        }
    }
    Ok(())
}

fn is_command(handler: &Value) -> bool {
    handler.get("type").and_then(Value::as_str) == Some("command")
}

/// `settings.json.bak`, else the first free `settings.json.bak.N`.
fn backup_path(path: &Path) -> PathBuf {
    let base = PathBuf::from(format!("{}.bak", path.display()));
    if !base.exists() {
        return base;
    }
    (1..)
        .map(|n| PathBuf::from(format!("{}.{n}", base.display())))
        .find(|p| !p.exists())
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http() -> Value {
        json!({"type": "http", "url": "http://127.0.0.1:8717/claude", "headers": {"Authorization": "Bearer $HOOKS_TOKEN"}, "allowedEnvVars": ["HOOKS_TOKEN"], "onFailure": "block"})
    }

    #[test]
    fn unrelated_keys_and_entries_stay_and_ours_are_replaced_in_place() {
        let mut settings = json!({
            "model": "opus",
            "permissions": {"allow": ["Bash(ls)"]},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]},
                    {"matcher": "*", "hooks": [{"type": "command", "command": "hooks claude"}]}
                ],
                "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
            }
        });
        install(&mut settings, &http()).unwrap();
        assert_eq!(settings["model"], "opus");
        assert_eq!(settings["permissions"]["allow"][0], "Bash(ls)");
        assert_eq!(
            settings["hooks"]["Notification"][0]["hooks"][0]["command"],
            "notify-send hi"
        );
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{pre:?}");
        assert_eq!(pre[0]["hooks"][0]["command"], "./mine.sh");
        assert_eq!(pre[1]["hooks"][0], http(), "replaced where it was");
        for (event, _) in EVENTS {
            let ours: usize = settings["hooks"][event]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["hooks"].as_array().unwrap())
                .filter(|h| super::ours(h))
                .count();
            assert_eq!(ours, 1, "{event}");
        }
    }

    #[test]
    fn installing_twice_changes_nothing() {
        let mut once = json!({});
        install(&mut once, &http()).unwrap();
        let mut twice = once.clone();
        install(&mut twice, &http()).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn only_loopback_claude_urls_and_hooks_claude_commands_are_ours() {
        assert!(ours(&http()));
        assert!(ours(
            &json!({"type": "http", "url": "http://[::1]:9000/claude"})
        ));
        assert!(!ours(
            &json!({"type": "http", "url": "http://10.0.0.1:8717/claude"})
        ));
        assert!(!ours(
            &json!({"type": "http", "url": "http://127.0.0.1:8717/other"})
        ));
        assert!(ours(&json!({"type": "command", "command": "hooks claude"})));
        assert!(!ours(
            &json!({"type": "command", "command": "hooks claudette"})
        ));
        assert!(!ours(
            &json!({"type": "command", "command": "./hooks claude"})
        ));
    }

    #[test]
    fn hooks_claude_with_options_of_its_own_is_never_replaced_silently() {
        let mut settings = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "hooks claude --settings x.json"}
        ]}]}});
        let err = install(&mut settings.clone(), &http()).unwrap_err();
        assert!(err.contains("hooks claude --settings x.json"), "{err}");
        let command = json!({"type": "command", "command": "hooks claude", "onFailure": "block"});
        install(&mut settings, &command).unwrap();
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 1, "kept, not doubled: {pre:?}");
        assert_eq!(
            pre[0]["hooks"][0]["command"],
            "hooks claude --settings x.json"
        );
    }

    #[test]
    fn the_forwarder_replaces_hooks_claude_in_place_and_back() {
        let claude = json!({"type": "command", "command": "hooks claude", "onFailure": "block"});
        let forwarder =
            json!({"type": "command", "command": "hooks-forward", "onFailure": "block"});
        assert!(ours(&forwarder));
        assert!(ours(
            &json!({"type": "command", "command": "hooks-forward --settings x.json"})
        ));
        assert!(!ours(
            &json!({"type": "command", "command": "hooks-forwarder"})
        ));
        let mut settings = json!({});
        install(&mut settings, &claude).unwrap();
        install(&mut settings, &forwarder).unwrap();
        for (event, _) in EVENTS {
            let groups = settings["hooks"][event].as_array().unwrap();
            assert_eq!(groups.len(), 1, "{event}: {groups:?}");
            assert_eq!(groups[0]["hooks"], json!([forwarder]), "{event}");
        }
        install(&mut settings, &claude).unwrap();
        assert_eq!(settings["hooks"]["Stop"][0]["hooks"], json!([claude]));
    }

    #[test]
    fn a_file_that_is_not_an_object_is_refused() {
        assert!(install(&mut json!([1, 2]), &http()).is_err());
        assert!(install(&mut json!({"hooks": []}), &http()).is_err());
    }
}
