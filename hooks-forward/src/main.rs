//! `hooks-forward [OPTIONS]`: `hooks claude [OPTIONS]` for a project whose `hooks serve`
//! daemon runs, in a process that starts in a fraction of the time.
//!
//! It takes the options of `hooks claude` that choose the hooks (`--project`, `--config`,
//! `--settings`, `--managed-settings`, `--plugin-root`, `--user-hooks`, `--no-user-hooks`,
//! `--trust-file`, `--no-daemon`), finds the daemon of the project, checks it is the `hooks`
//! executable next to this one, sends the payload and prints the daemon's answer exactly as
//! `hooks claude` would have. Whenever it cannot, it hands the event to that `hooks claude`
//! (replacing this process), which decides in its own process:
//!
//! - no daemon runs for the project and options (the payload has not been read yet);
//! - `--no-daemon`, a nested run, a limit set by `$HOOKS_MAX_PAYLOAD` or
//!   `$HOOKS_PAYLOAD_TIMEOUT`, or any option or value it does not know (`hooks claude` knows
//!   them all, and says what is wrong with a bad one);
//! - the daemon did not answer, or is not the one it should be: the payload goes to
//!   `hooks claude --no-daemon`, which says why in its answer.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use hookrail_forward::daemon::{self, Given, Selection};
use hookrail_forward::payload::{self, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT};
use hookrail_forward::{ask, token};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let hooks = match hooks_beside_me() {
        Ok(hooks) => hooks,
        // Nothing can decide: blocked where the event can be, said where it cannot.
        Err(why) => return refuse(&why),
    };
    let Some((given, no_daemon)) = parse(&args) else {
        return hand_over(&hooks, &args, None);
    };
    let limited = ["HOOKS_MAX_PAYLOAD", "HOOKS_PAYLOAD_TIMEOUT"]
        .iter()
        .any(|name| std::env::var_os(name).is_some());
    if no_daemon || limited || std::env::var_os(hookrail_forward::NESTED_ENV).is_some() {
        return hand_over(&hooks, &args, None);
    }
    let selection = Selection::from_env(given);
    let project = selection.project_dir();
    let sources = selection.sources();
    let found = match daemon::find(&project, &sources) {
        Ok(Some(found)) => found,
        Ok(None) => return hand_over(&hooks, &args, None),
        Err(e) => return hand_over_note(&hooks, &args, None, &e.to_string()),
    };
    let bytes = match payload::read_stdin(DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(&e.to_string()),
    };
    let bytes = match std::env::current_dir() {
        Ok(cwd) => payload::with_cwd(&bytes, &cwd).unwrap_or(bytes),
        Err(_) => bytes,
    };
    let token = match token::client_token() {
        Ok(token) => token,
        Err(e) => return hand_over_note(&hooks, &args, Some(&bytes), &e.to_string()),
    };
    let identity = daemon::identity_of_root(&found.project, &sources);
    // The `CLAUDE_ENV_FILE` Claude Code gave this process, for the daemon to give the hooks.
    let env_file = match ask::env_file_header(std::env::var_os(hookrail_forward::ENV_FILE_VAR)) {
        Ok(env_file) => env_file,
        Err(value) => {
            eprintln!(
                "hooks-forward: {} ({value:?}) cannot be sent to the daemon as a header (not UTF-8, a control character, or white space at an end): its hooks run without it",
                hookrail_forward::ENV_FILE_VAR
            );
            None
        }
    };
    let headers: Vec<(&str, &str)> = env_file
        .iter()
        .map(|path| (hookrail_forward::ENV_FILE_HEADER, path.as_str()))
        .collect();
    match ask::ask(&found, &identity, &token, &hooks, &bytes, &headers) {
        Ok(answer) => ExitCode::from(answer.emit()),
        Err(e) => hand_over_note(&hooks, &args, Some(&bytes), &e.to_string()),
    }
}

/// The `hooks` executable in this one's directory (the daemon's `/proc/PID/exe` must be that
/// file).
fn hooks_beside_me() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot tell where it is: {e}"))?;
    let hooks = me.with_file_name(format!("hooks{}", std::env::consts::EXE_SUFFIX));
    match std::fs::metadata(&hooks) {
        Ok(meta) if meta.is_file() => Ok(hooks),
        found => Err(format!(
            "`hooks` is not beside it ({}: {}); install both, e.g. `cargo install hookrail-cli hookrail-forward`",
            hooks.display(),
            found.map_or_else(|e| e.to_string(), |_| "not a file".to_owned())
        )),
    }
}

/// The options that choose the hooks, and `--no-daemon`; `None` for anything else, or
/// anything `hooks claude` would refuse (a repeated single option, an empty value, both
/// `--user-hooks` and `--no-user-hooks`).
fn parse(args: &[OsString]) -> Option<(Given, bool)> {
    let mut given = Given::default();
    let mut no_daemon = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_str()?;
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) => (name, Some(OsStr::new(value))),
            None => (text, None),
        };
        let flag =
            |seen: &mut bool| (inline.is_none() && !std::mem::replace(seen, true)).then_some(());
        match name {
            "--no-daemon" => flag(&mut no_daemon)?,
            "--no-user-hooks" => flag(&mut given.no_user_hooks)?,
            _ => {
                let value = match inline {
                    Some(value) => value,
                    None => args.next()?.as_os_str(),
                };
                if value.is_empty() || value.as_encoded_bytes().starts_with(b"-") {
                    return None;
                }
                let value = PathBuf::from(value);
                let once = |slot: &mut Option<PathBuf>| {
                    slot.replace(value.clone()).is_none().then_some(())
                };
                match name {
                    "--project" => once(&mut given.project)?,
                    "--user-hooks" => once(&mut given.user_hooks)?,
                    "--trust-file" => once(&mut given.trust_file)?,
                    "--config" => given.configs.push(value),
                    "--settings" => given.settings.push(value),
                    "--managed-settings" => given.managed_settings.push(value),
                    "--plugin-root" => given.plugins.push(value),
                    _ => return None,
                }
            }
        }
    }
    if given.no_user_hooks && given.user_hooks.is_some() {
        return None;
    }
    Some((given, no_daemon))
}

/// Replaces this process with `hooks claude ARGS`, on the same stdin when `payload` is `None`
/// (nothing has been read from it), else on a stdin that holds `payload`.
fn hand_over(hooks: &Path, args: &[OsString], payload: Option<&[u8]>) -> ExitCode {
    let mut command = Command::new(hooks);
    command.arg("claude").args(args);
    run(command, payload)
}

/// [`hand_over`] to `hooks claude ARGS --no-daemon`, which says `note` in its answer.
fn hand_over_note(hooks: &Path, args: &[OsString], payload: Option<&[u8]>, note: &str) -> ExitCode {
    let mut command = Command::new(hooks);
    command.arg("claude").args(args);
    if !args.iter().any(|a| a == "--no-daemon") {
        command.arg("--no-daemon");
    }
    command
        .arg("--daemon-note")
        .arg(format!("{note}; decided in this process"));
    run(command, payload)
}

#[cfg(unix)]
fn run(mut command: Command, payload: Option<&[u8]>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    if let Some(payload) = payload {
        match held(payload) {
            Ok(stdin) => {
                command.stdin(stdin);
            }
            Err(e) => return refuse(&format!("cannot hand the payload to `hooks claude`: {e}")),
        }
    }
    // `exec` returns only when it failed; on success `hooks claude` is this process (an agent
    // that stops the hook on a timeout stops it).
    let e = command.exec();
    refuse(&format!(
        "cannot start {}: {e}",
        command.get_program().display()
    ))
}

/// A file that holds `payload`, read from its start: an anonymous memory file, so that a
/// payload of any size is handed over without a writer on the other side of a pipe.
#[cfg(target_os = "linux")]
fn held(payload: &[u8]) -> std::io::Result<std::fs::File> {
    use std::io::{Seek, Write};
    let fd = nix::sys::memfd::memfd_create(
        c"hooks-forward-payload",
        nix::sys::memfd::MFdFlags::MFD_CLOEXEC,
    )?;
    let mut file = std::fs::File::from(fd);
    file.write_all(payload)?;
    file.rewind()?;
    Ok(file)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn held(payload: &[u8]) -> std::io::Result<std::fs::File> {
    use std::io::{Seek, Write};
    let mut file = tempfile_in_tmp()?;
    file.write_all(payload)?;
    file.rewind()?;
    Ok(file)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn tempfile_in_tmp() -> std::io::Result<std::fs::File> {
    let path = std::env::temp_dir().join(format!("hooks-forward-{}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// Says why nothing was decided, as `hooks claude` does: exit 2 (blocked where the event can
/// be blocked, shown to the user where it cannot).
fn refuse(why: &str) -> ExitCode {
    eprintln!("hooks-forward: {why}; blocked, since nothing was decided");
    ExitCode::from(2)
}
