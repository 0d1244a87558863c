//! Running one tracker command: argv only (no shell), stdin closed, output captured, killed
//! with its process group at the timeout; and reading a task id from its output.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Most bytes of each output stream kept (the rest is read and discarded).
const MAX_OUTPUT: u64 = 64 << 10;

/// How long output is awaited after the process exited (a grandchild may hold the pipe).
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// A command that ran to completion.
#[derive(Debug)]
pub(super) struct Finished {
    pub(super) success: bool,
    /// The exit code, or `None` when a signal ended it.
    pub(super) code: Option<i32>,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

/// A command that did not run to completion.
#[derive(Debug, thiserror::Error)]
pub(super) enum RunError {
    #[error("not found")]
    NotFound,
    #[error("could not be started: {0}")]
    Spawn(io::Error),
    #[error("timed out and was killed")]
    TimedOut,
    #[error("could not be waited for: {0}")]
    Wait(io::Error),
}

/// Runs `program` with `args` in `cwd` (when it is a directory), for at most `timeout`.
pub(super) fn run(
    program: &str,
    args: &[String],
    cwd: Option<&Path>,
    timeout: Duration,
) -> Result<Finished, RunError> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = cwd.filter(|d| d.is_dir()) {
        cmd.current_dir(dir);
    }
    // Its own process group, so a timeout kills what it started too (a shell's children).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => RunError::NotFound,
        _ => RunError::Spawn(e),
    })?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                kill(&mut child);
                return Err(RunError::Wait(e));
            }
        }
        let now = Instant::now();
        if now >= deadline {
            kill(&mut child);
            return Err(RunError::TimedOut);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    Ok(Finished {
        success: status.success(),
        code: status.code(),
        stdout: stdout.recv_timeout(OUTPUT_GRACE).unwrap_or_default(),
        stderr: stderr.recv_timeout(OUTPUT_GRACE).unwrap_or_default(),
    })
}

/// Reads a stream to its end on a thread (so a full pipe never blocks the child), keeping the
/// first [`MAX_OUTPUT`] bytes.
fn drain(stream: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut stream) = stream {
        let spawned = thread::Builder::new()
            .name("task-tracker-output".into())
            .spawn(move || {
                let mut kept = Vec::new();
                let _ = (&mut stream).take(MAX_OUTPUT).read_to_end(&mut kept);
                let _ = io::copy(&mut stream, &mut io::sink());
                let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
            });
        if let Err(e) = spawned {
            tracing::debug!(error = %e, "task-tracker: output of a command not read");
        }
    }
    rx
}

/// Kills the child's process group (Unix) and the child, and reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // The group is the child's own (process_group(0)) and the child is not reaped yet, so
        // the id cannot have been reused. Grandchildren (`sh -c 'bd …'`) die with it.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The task id in a create command's output: the `id` of a JSON object (`bd create --json`),
/// or of the first object of a JSON array; otherwise the first word shaped like an id
/// (`bd-a1b2`, `PROJ-12`: a letter, then letters, digits, `_` or `.`, a `-`, and more of
/// them), as in `✓ Created issue: bd-a1b2`. Ids that could be read as options or that
/// carry spaces or control characters are refused.
pub(super) fn parse_id(stdout: &str) -> Option<String> {
    let trimmed = stdout.trim();
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) {
        let object = match &value {
            serde_json::Value::Array(items) => items.first(),
            other => Some(other),
        };
        return object
            .and_then(|o| o.get("id"))
            .and_then(|id| match id {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|id| valid_id(id));
    }
    trimmed
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .find(|w| looks_like_id(w))
        .map(str::to_owned)
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('-')
        && !id.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn looks_like_id(word: &str) -> bool {
    let Some((prefix, rest)) = word.split_once('-') else {
        return false;
    };
    let part = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
    };
    valid_id(word)
        && prefix.starts_with(|c: char| c.is_ascii_alphabetic())
        && part(prefix)
        && part(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_from_bd_json_output() {
        assert_eq!(
            parse_id("{\"id\":\"bd-a1b2\",\"title\":\"x\"}\n").as_deref(),
            Some("bd-a1b2")
        );
        assert_eq!(parse_id("[{\"id\":\"bd-9\"}]").as_deref(), Some("bd-9"));
        assert_eq!(parse_id("{\"id\": 42}").as_deref(), Some("42"));
        assert_eq!(parse_id("{\"title\":\"no id\"}"), None);
        assert_eq!(parse_id("{\"id\":\"--force\"}"), None);
        assert_eq!(parse_id("{\"id\":\"a b\"}"), None);
        assert_eq!(parse_id("[]"), None);
    }

    #[test]
    fn ids_are_read_from_bd_text_output() {
        assert_eq!(
            parse_id("✓ Created issue: bd-a1b2\n  Title: x").as_deref(),
            Some("bd-a1b2")
        );
        assert_eq!(parse_id("created PROJ-12.").as_deref(), Some("PROJ-12"));
        assert_eq!(parse_id("nothing here - sorry"), None);
        assert_eq!(parse_id("-x 12-13"), None);
        assert_eq!(parse_id(""), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_program_is_not_found() {
        let err = run(
            "hooks-builtin-no-such-program-3f9c",
            &[],
            None,
            Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(matches!(err, RunError::NotFound), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn output_and_exit_codes_are_captured_and_args_are_not_interpreted_by_a_shell() {
        let args: Vec<String> = [
            "-c",
            "printf '%s|' \"$@\"; echo err >&2; exit 3",
            "sh",
            "a b",
            "$(id)",
            ";ls",
        ]
        .map(String::from)
        .to_vec();
        let out = run("sh", &args, None, Duration::from_secs(30)).unwrap();
        assert!(!out.success);
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout, "a b|$(id)|;ls|");
        assert_eq!(out.stderr.trim(), "err");
    }

    #[cfg(unix)]
    #[test]
    fn a_command_past_its_timeout_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let script = format!("(sleep 0.3; touch '{}') & sleep 30", marker.display());
        let args: Vec<String> = vec!["-c".into(), script];
        let err = run("sh", &args, None, Duration::from_millis(100)).unwrap_err();
        assert!(matches!(err, RunError::TimedOut), "{err}");
        // The background child was in the killed group: give it the time it would have needed.
        thread::sleep(Duration::from_millis(1000));
        assert!(
            !marker.exists(),
            "a child of the command outlived the timeout"
        );
    }
}
