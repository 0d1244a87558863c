//! Running one command hook: start it, feed it the event on stdin, collect what it prints, and
//! make sure nothing it started outlives a timeout.
//!
//! [`run_command`] runs a `type: command` hook the way Claude Code does (its wire-compatibility
//! checklist, point 1):
//!
//! - **Form.** [`CommandLine::Shell`] runs `sh -c <command>` (`sh` is looked up in `PATH`);
//!   [`CommandLine::Exec`] runs `args[0]` with `args[1..]` directly: no shell, no word
//!   splitting, no expansion.
//! - **Stdin.** The request's bytes are written, then stdin is closed, so a hook that runs
//!   `cat` or `jq` sees end-of-file. A hook that exits without reading its stdin is not an
//!   error.
//! - **Environment.** The parent's environment without the request's `env_remove`, plus the
//!   request's `env`, plus
//!   `CLAUDE_PROJECT_DIR` and, for plugin hooks, `CLAUDE_PLUGIN_ROOT`. The protocol's
//!   variables are set last, so `env` cannot change them; an inherited `CLAUDE_PLUGIN_ROOT`
//!   (this process may itself run under a plugin) is removed when the hook has no plugin root.
//!   The working directory is the session's. There is no TTY: stdin, stdout and stderr are
//!   pipes.
//! - **Process group.** Each hook leads a new process group, so that what it starts in the
//!   background can be killed with it.
//! - **Descendants (Linux).** Each hook runs under a reaper of its own, a child subreaper
//!   that adopts every orphan of the hook's tree (double forks, `setsid` daemons), so that the
//!   whole tree can be found and killed (the `reap` module has the mechanism):
//!   - *when the hook's process exits*, everything it started that is still running is killed
//!     before the run returns: a hook is not a way to start daemons, and background work it
//!     leaves behind (`sleep 1000 &`, `setsid daemon`, a double fork) dies with it;
//!   - *at the deadline*, and when a run is dropped, every descendant is stopped, then killed,
//!     including those that left the process group or were reparented.
//!
//!   The hook's parent (`$PPID`) is its reaper, not this process; its exit code, or the
//!   signal that killed it, is reported as if there were none. A hook that means to start a
//!   long-lived service hands it to a service manager (`systemd-run --user …`), whose
//!   processes are not the hook's descendants.
//! - **Timeout.** At the deadline the hook, everything it started and its process group get
//!   `SIGKILL`, the hook is reaped, and the result is [`ExitStatusKind::TimedOut`] with the
//!   output captured until then.
//! - **Lingering output.** When the hook has exited but something it started still holds its
//!   stdout or stderr open (on Linux, only a process that escaped its reaper can), we wait
//!   [`PIPE_GRACE`] for end-of-file, then kill the rest of the group and return.
//! - **Output.** stdout and stderr are read concurrently, each decoded as lossy UTF-8 and
//!   capped at `output_cap` characters (cut on a character boundary). Output past the cap is
//!   still read, and thrown away, so a chatty hook never blocks on a full pipe and memory stays
//!   bounded.
//! - **Cancellation.** Dropping the future returned by [`run_command`] kills the hook's tree
//!   (Linux) and process group; the hook itself is reaped in the background by tokio.
//!
//! # Platforms
//!
//! Linux: as above. What can still escape: a process that kills its own reaper (`kill -9
//! $PPID` from the hook itself) frees its tree from it, and only the process group is then
//! killed; without `/proc/<pid>/task/<tid>/children` (kernels built without
//! `CONFIG_PROC_CHILDREN`) the deadline kill is complete but what a hook leaves behind when it
//! exits is left running. A cgroup would close both; it is not used because a user cannot
//! create one without delegation.
//!
//! Other Unix systems: no reaper. The process group is killed at the deadline, when the hook
//! exits leaving something that holds its output, and when the run is dropped; a descendant
//! that left the group (`setsid`, `setpgid`) survives all three, and background work that
//! lets go of the output is left running.
//!
//! Elsewhere, process groups do not exist: the hook's own process is killed on timeout (and on
//! a lingering pipe) but what it started is not, and a pipe held open by such a process is
//! abandoned one second after the kill.
//!
//! # SIGPIPE
//!
//! A hook that exits without reading its stdin makes our write fail with `EPIPE`, which is
//! ignored. That relies on `SIGPIPE` being ignored in this process, which is what the Rust
//! runtime sets up for every Rust `main`; a host that restores the default disposition
//! would be killed by such a write instead.
//!
//! ```
//! use std::collections::BTreeMap;
//! use std::path::Path;
//! use std::time::Duration;
//!
//! use hookrail_config::command::run::{CommandRequest, ExitStatusKind, run_command};
//! use hookrail_config::spec::CommandLine;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let line = CommandLine::Shell("tr a-z A-Z; echo done >&2; exit 2".into());
//! let env = BTreeMap::new();
//! let output = run_command(&CommandRequest {
//!     line: &line,
//!     env: &env,
//!     env_remove: &[],
//!     cwd: Path::new("/"),
//!     project_dir: Path::new("/"),
//!     plugin_root: None,
//!     stdin: br#"{"hook_event_name":"Stop"}"#,
//!     timeout: Duration::from_secs(60),
//!     output_cap: 10_000,
//! })
//! .await?;
//! assert_eq!(output.status, ExitStatusKind::Code(2));
//! assert_eq!(output.stdout, r#"{"HOOK_EVENT_NAME":"STOP"}"#);
//! assert_eq!(output.stderr, "done\n");
//! # Ok::<(), hookrail_config::command::run::RunError>(())
//! # }).unwrap();
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::{Pin, pin};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};

use crate::spec::CommandLine;

/// How long we wait, after a hook has exited, for its stdout and stderr to reach end-of-file
/// before killing whatever still holds them (a background process that inherited them, as in
/// `sleep 1000 & echo hi`).
///
/// Output written just before the exit is already in the pipe and is read at once; the grace
/// period only covers a descendant that is about to finish. It is short because a hook that
/// leaves such a process behind would otherwise hold its event until its timeout.
pub const PIPE_GRACE: Duration = Duration::from_millis(100);

/// How long we keep reading after a kill. Killed processes release their ends of the pipes at
/// once, so this only runs out when a process outside the hook's group (one that called
/// `setsid`) still holds them; we then stop reading rather than wait for it.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(1);

/// How long we wait for a killed hook to be reaped. `SIGKILL` cannot be caught, so this only
/// runs out for a process stuck in the kernel (uninterruptible sleep); tokio reaps it later.
const REAP_LIMIT: Duration = Duration::from_secs(5);

/// The read buffer of each output pipe.
const READ_CHUNK: usize = 16 * 1024;

/// The shell of [`CommandLine::Shell`], as in Claude Code.
const SHELL: &str = "sh";

/// The project root, exported to every hook.
const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The plugin root, exported to plugin hooks.
const PLUGIN_ROOT_VAR: &str = "CLAUDE_PLUGIN_ROOT";

/// What to run and how.
#[derive(Debug, Clone, Copy)]
pub struct CommandRequest<'a> {
    /// The command: shell form or exec form.
    pub line: &'a CommandLine,
    /// Extra environment variables, on top of the inherited environment.
    pub env: &'a BTreeMap<String, String>,
    /// Variables of the inherited environment that are not passed on (`env` may still set
    /// them): what this process inherited for another purpose (a daemon started from a
    /// session has that session's `CLAUDE_ENV_FILE`).
    pub env_remove: &'a [&'a str],
    /// The session's working directory: the hook's working directory.
    pub cwd: &'a Path,
    /// The project root, exported as `CLAUDE_PROJECT_DIR`.
    pub project_dir: &'a Path,
    /// The plugin root, exported as `CLAUDE_PLUGIN_ROOT` when `Some`.
    pub plugin_root: Option<&'a Path>,
    /// Written to the hook's stdin (the event as JSON), which is then closed.
    pub stdin: &'a [u8],
    /// How long the hook may run before it, everything it started and its process group are
    /// killed. A run returns at most about [`PIPE_GRACE`] later; only pathological cases take
    /// longer (a process stuck in the kernel, a pipe held by a process that escaped the
    /// kill), and never more than 8 s longer.
    pub timeout: Duration,
    /// How many characters of stdout, and of stderr, are kept (Claude Code keeps 10 000).
    pub output_cap: usize,
}

/// How a hook run ended, and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// How it ended.
    pub status: ExitStatusKind,
    /// Its stdout, decoded as lossy UTF-8, at most `output_cap` characters.
    pub stdout: String,
    /// Its stderr, decoded as lossy UTF-8, at most `output_cap` characters.
    pub stderr: String,
    /// Whether it printed more to stdout than [`stdout`](Self::stdout) holds.
    pub stdout_truncated: bool,
    /// Whether it printed more to stderr than [`stderr`](Self::stderr) holds.
    pub stderr_truncated: bool,
    /// How many bytes of stdout were read and thrown away past the cap (0 unless truncated).
    pub stdout_dropped_bytes: u64,
    /// How many bytes of stderr were read and thrown away past the cap (0 unless truncated).
    pub stderr_dropped_bytes: u64,
    /// From the start of the hook to the end of the run (including any kill and grace period).
    pub duration: Duration,
}

/// How a hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitStatusKind {
    /// The hook exited with this code. `127` is the shell's "command not found": a missing
    /// script in shell form is a run that exited 127, not an error.
    Code(i32),
    /// The hook was killed by this signal (Unix), and not by us.
    Signal(i32),
    /// The hook ran out of time; it and everything it started were killed.
    TimedOut,
}

impl fmt::Display for ExitStatusKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatusKind::Code(code) => write!(f, "exit code {code}"),
            ExitStatusKind::Signal(signal) => write!(f, "killed by signal {signal}"),
            ExitStatusKind::TimedOut => f.write_str("timed out"),
        }
    }
}

/// Why a hook could not be run. A hook that ran and failed (any exit code, a signal, a
/// timeout) is not an error: it is a [`CommandOutput`].
///
/// Messages name the command and include the operating system's error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// An exec-form command with no arguments: there is no program to run.
    #[error("command hook has an empty `args` list: there is no program to run")]
    EmptyArgs,
    /// The working directory does not exist, or is not a directory.
    #[error(
        "cannot run command hook `{command}`: working directory {} is unusable: {error}",
        cwd.display()
    )]
    Cwd {
        /// The command, as written in the config.
        command: String,
        /// The working directory.
        cwd: PathBuf,
        /// What starting the process reported.
        error: io::Error,
    },
    /// The program could not be started: not found, not executable, a missing `#!`
    /// interpreter, no processes left.
    #[error("cannot start `{program}` for command hook `{command}`: {error}")]
    Spawn {
        /// The command, as written in the config.
        command: String,
        /// The program: `sh` in shell form, `args[0]` in exec form.
        program: String,
        /// What starting the process reported.
        error: io::Error,
    },
    /// Talking to the running hook failed. Its process group has been killed.
    #[error("command hook `{command}` failed while {what}: {error}")]
    Io {
        /// The command, as written in the config.
        command: String,
        /// What we were doing: `writing its stdin`, `reading its stdout`…
        what: &'static str,
        /// The error.
        error: io::Error,
    },
}

/// Runs one hook to completion (or to its timeout): see [the module documentation](self) for
/// what that involves.
///
/// Returns `Err` only when the hook could not be started, or when talking to it failed; any
/// way a started hook ends is an `Ok` [`CommandOutput`].
///
/// # Panics
///
/// Outside a tokio runtime with its I/O and time drivers enabled
/// ([`enable_all`](tokio::runtime::Builder::enable_all)), as tokio's process and timer types
/// do.
pub async fn run_command(req: &CommandRequest<'_>) -> Result<CommandOutput, RunError> {
    let started = Instant::now();
    // `None`: a timeout too long to be added to the clock (`Duration::MAX`) is no deadline.
    let deadline = tokio::time::Instant::now().checked_add(req.timeout);

    let mut child = spawn(req)?;
    let mut group = Group::new(child.id());
    tracing::debug!(command = %req.line, pid = child.id(), "command hook started");

    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut out = Capture::new(req.output_cap);
    let mut err = Capture::new(req.output_cap);

    let supervised = {
        let feeding = pin!(feed(stdin, req.stdin));
        let reading = pin!(read_both(stdout, &mut out, stderr, &mut err));
        supervise(&mut child, &mut group, deadline, feeding, reading, req.line).await
        // The pipes are dropped here: our ends are closed whatever happened.
    };

    let status = match supervised {
        Ok(status) => status,
        Err(failure) => {
            group.kill(&mut child);
            reap(&mut child, req.line).await;
            return Err(RunError::Io {
                command: req.line.to_string(),
                what: failure.what,
                error: failure.error,
            });
        }
    };
    group.disarm();

    let (stdout, stdout_dropped_bytes) = out.finish();
    let (stderr, stderr_dropped_bytes) = err.finish();
    let duration = started.elapsed();
    tracing::debug!(command = %req.line, %status, ?duration, "command hook finished");
    Ok(CommandOutput {
        status,
        stdout,
        stderr,
        stdout_truncated: stdout_dropped_bytes > 0,
        stderr_truncated: stderr_dropped_bytes > 0,
        stdout_dropped_bytes,
        stderr_dropped_bytes,
        duration,
    })
}

/// `${CLAUDE_PROJECT_DIR}` / `$CLAUDE_PROJECT_DIR` and, for a plugin's hook,
/// `${CLAUDE_PLUGIN_ROOT}` / `$CLAUDE_PLUGIN_ROOT` in an exec-form argument, replaced by their
/// values (`$NAME` only when no word character follows). Nothing else is expanded.
pub(crate) fn expand_placeholders(arg: &str, project: &str, plugin_root: Option<&str>) -> String {
    let mut out = arg.to_owned();
    for (name, value) in [
        ("CLAUDE_PROJECT_DIR", Some(project)),
        ("CLAUDE_PLUGIN_ROOT", plugin_root),
    ] {
        let Some(value) = value else { continue };
        out = out.replace(&format!("${{{name}}}"), value);
        let pat = format!("${name}");
        let mut rest = out.as_str();
        let mut replaced = String::new();
        while let Some(at) = rest.find(&pat) {
            let after = &rest[at + pat.len()..];
            replaced.push_str(&rest[..at]);
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                replaced.push_str(&pat);
            } else {
                replaced.push_str(value);
            }
            rest = after;
        }
        replaced.push_str(rest);
        out = replaced;
    }
    out
}

/// Starts the hook with piped stdio, in a new process group.
fn spawn(req: &CommandRequest<'_>) -> Result<Child, RunError> {
    let (mut cmd, program) = match req.line {
        CommandLine::Shell(script) => {
            let mut cmd = Command::new(SHELL);
            cmd.arg("-c").arg(script);
            (cmd, SHELL.to_owned())
        }
        CommandLine::Exec(args) => {
            if args.is_empty() {
                return Err(RunError::EmptyArgs);
            }
            // Claude Code's placeholders, which no shell expands in the exec form; the gate
            // hashed the scripts they name with the same expansion.
            let plugin_root = req.plugin_root.map(|p| p.to_string_lossy());
            let project = req.project_dir.to_string_lossy();
            let args: Vec<String> = args
                .iter()
                .map(|a| expand_placeholders(a, &project, plugin_root.as_deref()))
                .collect();
            let mut cmd = Command::new(&args[0]);
            cmd.args(&args[1..]);
            (cmd, args[0].clone())
        }
    };
    // Removed first so that a plugin root inherited from our own environment never reaches a
    // hook that is not a plugin's, while `env` may still set it.
    cmd.env_remove(PLUGIN_ROOT_VAR);
    for name in req.env_remove {
        cmd.env_remove(name);
    }
    cmd.envs(req.env).env(PROJECT_DIR_VAR, req.project_dir);
    if let Some(root) = req.plugin_root {
        cmd.env(PLUGIN_ROOT_VAR, root);
    }
    cmd.current_dir(req.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Covers a cancelled run on every platform; on Unix the group guard does more.
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    super::reap::install(&mut cmd);

    cmd.spawn().map_err(|error| {
        // A missing working directory and a missing program both come back as ENOENT.
        if req.cwd.is_dir() {
            RunError::Spawn {
                command: req.line.to_string(),
                program: program.clone(),
                error,
            }
        } else {
            RunError::Cwd {
                command: req.line.to_string(),
                cwd: req.cwd.to_path_buf(),
                error,
            }
        }
    })
}

/// Waits for the hook to exit (or time out) while feeding its stdin and reading its output,
/// then waits for its output to end, killing its group where needed.
async fn supervise<F, R>(
    child: &mut Child,
    group: &mut Group,
    deadline: Option<tokio::time::Instant>,
    mut feeding: Pin<&mut F>,
    mut reading: Pin<&mut R>,
    line: &CommandLine,
) -> Result<ExitStatusKind, Failure>
where
    F: Future<Output = Result<(), Failure>>,
    R: Future<Output = Result<(), Failure>>,
{
    let mut timer = pin!(async move {
        match deadline {
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            None => std::future::pending().await,
        }
    });
    let mut fed = false;
    let mut read = false;

    let exited = loop {
        tokio::select! {
            // An exit that is ready wins over a deadline that is ready.
            biased;
            status = child.wait() => {
                let what = "waiting for it to exit";
                let status = status.map_err(|error| Failure { what, error })?;
                group.reaped();
                break Some(status);
            }
            () = &mut timer => break None,
            result = &mut reading, if !read => {
                result?;
                read = true;
            }
            result = &mut feeding, if !fed => {
                result?;
                fed = true;
            }
        }
    };
    // Whatever has not been written by now is not wanted: dropping the writer (on return)
    // closes stdin.

    match exited {
        Some(status) => {
            if !read {
                match tokio::time::timeout(PIPE_GRACE, reading.as_mut()).await {
                    Ok(result) => result?,
                    Err(_) => {
                        tracing::debug!(
                            command = %line,
                            "command hook exited, but something it started still holds its \
                             output open after {PIPE_GRACE:?}; killing its process group"
                        );
                        group.kill(child);
                        drain_after_kill(reading, line).await?;
                    }
                }
            }
            Ok(classify(status))
        }
        None => {
            tracing::debug!(command = %line, "command hook timed out; killing its process group");
            group.kill(child);
            reap(child, line).await;
            if !read {
                drain_after_kill(reading, line).await?;
            }
            Ok(ExitStatusKind::TimedOut)
        }
    }
}

/// Reads what is left in the pipes after a kill, without waiting on a process outside the
/// group.
async fn drain_after_kill<R>(reading: Pin<&mut R>, line: &CommandLine) -> Result<(), Failure>
where
    R: Future<Output = Result<(), Failure>>,
{
    match tokio::time::timeout(DRAIN_AFTER_KILL, reading).await {
        Ok(result) => result,
        Err(_) => {
            tracing::warn!(
                command = %line,
                "command hook's output is still open {DRAIN_AFTER_KILL:?} after killing its \
                 process group (held by a process that left the group); no longer reading it"
            );
            Ok(())
        }
    }
}

/// Waits, for a bounded time, for a killed hook to be reaped.
async fn reap(child: &mut Child, line: &CommandLine) {
    match tokio::time::timeout(REAP_LIMIT, child.wait()).await {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => {
            tracing::warn!(command = %line, %error, "cannot reap killed command hook");
        }
        Err(_) => tracing::warn!(
            command = %line,
            "killed command hook has not exited after {REAP_LIMIT:?}; leaving it to be reaped \
             later"
        ),
    }
}

fn classify(status: ExitStatus) -> ExitStatusKind {
    if let Some(code) = status.code() {
        return ExitStatusKind::Code(code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitStatusKind::Signal(signal);
        }
    }
    // Unreachable in practice: without WUNTRACED a waited-for process has exited or been
    // signalled, and elsewhere there is always a code.
    ExitStatusKind::Code(-1)
}

/// An I/O failure while the hook runs, before the command is attached to it.
struct Failure {
    what: &'static str,
    error: io::Error,
}

/// Writes `bytes` to the hook's stdin, then closes it (by dropping it).
async fn feed(stdin: Option<ChildStdin>, bytes: &[u8]) -> Result<(), Failure> {
    let Some(mut stdin) = stdin else {
        return Ok(());
    };
    match stdin.write_all(bytes).await {
        // The hook exited (or closed stdin) without reading everything: its business.
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(Failure {
            what: "writing its stdin",
            error,
        }),
        _ => Ok(()),
    }
}

/// Reads stdout and stderr to end-of-file, concurrently: a hook blocked writing one of them
/// must never wait on us reading the other.
async fn read_both<O, E>(
    stdout: Option<O>,
    out: &mut Capture,
    stderr: Option<E>,
    err: &mut Capture,
) -> Result<(), Failure>
where
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    tokio::try_join!(
        drain(stdout, out, "reading its stdout"),
        drain(stderr, err, "reading its stderr"),
    )
    .map(|_| ())
}

/// Reads one pipe to end-of-file into `capture`.
async fn drain<R: AsyncRead + Unpin>(
    pipe: Option<R>,
    capture: &mut Capture,
    what: &'static str,
) -> Result<(), Failure> {
    let Some(mut pipe) = pipe else {
        return Ok(());
    };
    let mut buf = vec![0; READ_CHUNK];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) => return Ok(()),
            Ok(n) => capture.push(&buf[..n]),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(Failure { what, error }),
        }
    }
}

/// Kills the hook's tree (Linux) and process group: on timeout, on a lingering pipe, and when
/// the run is dropped before it is over.
struct Group {
    /// The hook's reaper, while it has not been reaped: its pid is still its own, so walking
    /// the tree from it cannot reach a stranger.
    #[cfg(target_os = "linux")]
    reaper: Option<nix::unistd::Pid>,
    #[cfg(unix)]
    pgid: Option<nix::unistd::Pid>,
    /// Whether dropping it kills the group: until the run is over, or the group killed.
    armed: bool,
}

impl Group {
    fn new(pid: Option<u32>) -> Self {
        // `process_group(0)` made the child the leader: its pid is the group's id. Only a
        // child that was already reaped has no pid, which cannot happen right after spawn.
        #[cfg(unix)]
        let pgid = pid
            .and_then(|pid| i32::try_from(pid).ok())
            .map(nix::unistd::Pid::from_raw);
        #[cfg(not(unix))]
        let _ = pid;
        Group {
            #[cfg(target_os = "linux")]
            reaper: pgid,
            #[cfg(unix)]
            pgid,
            armed: true,
        }
    }

    /// The child has been reaped: its pid may be reused from now on.
    fn reaped(&mut self) {
        #[cfg(target_os = "linux")]
        {
            self.reaper = None;
        }
    }

    /// Sends `SIGKILL` to the whole tree and group, and to the hook itself.
    fn kill(&mut self, child: &mut Child) {
        self.armed = false;
        self.kill_all();
        // On Linux this is the reaper, killed already with its tree; elsewhere the hook
        // itself, which may have left its group (`setsid`) or has no group at all.
        // This only fails for a child that was reaped already: nothing left to kill.
        let _ = child.start_kill();
    }

    fn kill_all(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(reaper) = self.reaper {
            let killed = super::reap::kill_tree(reaper.as_raw());
            tracing::debug!(
                reaper = reaper.as_raw(),
                killed,
                "killed command hook's tree"
            );
        }
        #[cfg(unix)]
        if let Some(pgid) = self.pgid {
            kill_group(pgid);
        }
    }

    /// The run is over and the group must be left alone.
    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            self.kill_all();
        }
    }
}

#[cfg(unix)]
fn kill_group(pgid: nix::unistd::Pid) {
    use nix::errno::Errno;
    use nix::sys::signal::{Signal, killpg};
    match killpg(pgid, Signal::SIGKILL) {
        // ESRCH: every process of the group is gone already.
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => {
            tracing::warn!(pgid = pgid.as_raw(), %error, "cannot kill command hook's process group");
        }
    }
}

/// The kept start of one output stream: lossy UTF-8, at most `cap` characters, decoded as it
/// arrives so that memory stays bounded however much the hook prints.
///
/// The result is exactly the first `cap` characters of `String::from_utf8_lossy` of the whole
/// stream, however the stream was split into reads.
#[derive(Debug)]
struct Capture {
    text: String,
    chars: usize,
    cap: usize,
    /// Bytes behind `text`.
    kept: u64,
    /// Bytes received.
    total: u64,
    /// The start of a character cut by the end of a read (at most 3 bytes).
    partial: Vec<u8>,
    /// `cap` characters are kept: the rest is only counted.
    full: bool,
}

impl Capture {
    fn new(cap: usize) -> Self {
        Capture {
            text: String::new(),
            chars: 0,
            cap,
            kept: 0,
            total: 0,
            partial: Vec::new(),
            full: false,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.full {
            return;
        }
        if self.partial.is_empty() {
            self.decode(bytes);
        } else {
            let mut joined = std::mem::take(&mut self.partial);
            joined.extend_from_slice(bytes);
            self.decode(&joined);
        }
    }

    fn decode(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.full {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.keep(text);
                    return;
                }
                Err(invalid) => {
                    let (valid, rest) = bytes.split_at(invalid.valid_up_to());
                    // Valid by construction: borrowed, nothing replaced.
                    self.keep(&String::from_utf8_lossy(valid));
                    match invalid.error_len() {
                        Some(len) => {
                            self.keep_replacement(len);
                            bytes = rest.get(len..).unwrap_or_default();
                        }
                        None => {
                            // A character that the next read may complete.
                            if !self.full {
                                self.partial = rest.to_vec();
                            }
                            return;
                        }
                    }
                }
            }
        }
    }

    fn keep(&mut self, text: &str) {
        if self.full || text.is_empty() {
            return;
        }
        let room = self.cap - self.chars;
        match text.char_indices().nth(room) {
            Some((end, _)) => {
                self.text.push_str(&text[..end]);
                self.chars = self.cap;
                self.kept += end as u64;
                self.full = true;
            }
            None => {
                self.text.push_str(text);
                self.chars += text.chars().count();
                self.kept += text.len() as u64;
            }
        }
    }

    /// One U+FFFD for `len` bytes that are not UTF-8.
    fn keep_replacement(&mut self, len: usize) {
        if self.chars < self.cap {
            self.text.push(char::REPLACEMENT_CHARACTER);
            self.chars += 1;
            self.kept += len as u64;
        } else {
            self.full = true;
        }
    }

    /// The kept text, and how many bytes were dropped past the cap.
    fn finish(mut self) -> (String, u64) {
        // The stream ended inside a character.
        let partial = std::mem::take(&mut self.partial);
        if !partial.is_empty() && !self.full {
            self.keep_replacement(partial.len());
        }
        let dropped = self.total - self.kept;
        (self.text, dropped)
    }
}

#[cfg(test)]
mod tests;
