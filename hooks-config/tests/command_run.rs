//! `run_command` against real processes: sh scripts written to temp dirs, run as hooks, with
//! what they print, how they end, and what they leave behind checked from outside.
//!
//! Tests that start processes take a shared lock; the ones that count this process's file
//! descriptors and children, or change its environment, take it exclusively. The lock is
//! taken before the test's runtime is built, so that nothing else opens descriptors while an
//! exclusive test counts them.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::fs;
use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;
#[cfg(target_os = "linux")]
use std::time::Instant;

use hookrail_config::command::run::{
    CommandOutput, CommandRequest, ExitStatusKind, RunError, run_command,
};
use hookrail_config::spec::CommandLine;
use tempfile::TempDir;

static PROCESSES: RwLock<()> = RwLock::new(());

/// For a test that starts processes.
fn shared() -> RwLockReadGuard<'static, ()> {
    PROCESSES.read().unwrap_or_else(PoisonError::into_inner)
}

/// For a test that needs this process to itself.
fn exclusive() -> RwLockWriteGuard<'static, ()> {
    PROCESSES.write().unwrap_or_else(PoisonError::into_inner)
}

fn block_on<F: Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(test)
}

/// Runs a test that starts processes, alongside the others.
fn run_shared<F: Future<Output = ()>>(test: F) {
    let _processes = shared();
    block_on(test);
}

/// Writes an executable sh script.
fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod script");
    path
}

/// A hook to run, in its own temp dir: the project dir, with the session cwd under it.
struct Hook {
    dir: TempDir,
    line: CommandLine,
    env: BTreeMap<String, String>,
    env_remove: Vec<&'static str>,
    cwd: PathBuf,
    plugin_root: Option<PathBuf>,
    stdin: Vec<u8>,
    timeout: Duration,
    cap: usize,
}

impl Hook {
    fn new(line: impl FnOnce(&Path) -> CommandLine) -> Hook {
        let dir = tempfile::tempdir().expect("temp dir");
        let cwd = dir.path().join("session");
        fs::create_dir(&cwd).expect("session dir");
        Hook {
            line: line(dir.path()),
            dir,
            env: BTreeMap::new(),
            env_remove: Vec::new(),
            cwd,
            plugin_root: None,
            stdin: br#"{"hook_event_name":"PreToolUse"}"#.to_vec(),
            timeout: Duration::from_secs(20),
            cap: 10_000,
        }
    }

    /// Shell form: `sh -c <command>`.
    fn shell(command: &str) -> Hook {
        Hook::new(|_| CommandLine::Shell(command.to_owned()))
    }

    /// Shell form running `body`, written to `hook.sh` in the temp dir.
    fn script(body: &str) -> Hook {
        Hook::new(|dir| {
            let path = write_script(dir, "hook.sh", body);
            CommandLine::Shell(format!("sh '{}'", path.display()))
        })
    }

    /// Exec form running `body`, written to `hook.sh` in the temp dir, with `sh`: the hook's
    /// process is the script's shell.
    fn exec_script(body: &str) -> Hook {
        Hook::new(|dir| {
            let path = write_script(dir, "hook.sh", body);
            CommandLine::Exec(vec!["sh".into(), path.display().to_string()])
        })
    }

    fn exec(args: &[&str]) -> Hook {
        Hook::new(|_| CommandLine::Exec(args.iter().map(|a| a.to_string()).collect()))
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    async fn run(&self) -> Result<CommandOutput, RunError> {
        run_command(&CommandRequest {
            line: &self.line,
            env: &self.env,
            env_remove: &self.env_remove,
            cwd: &self.cwd,
            project_dir: self.dir.path(),
            plugin_root: self.plugin_root.as_deref(),
            stdin: &self.stdin,
            timeout: self.timeout,
            output_cap: self.cap,
        })
        .await
    }

    /// Runs it, failing the test if it cannot run or if the run outlives its timeout by 10 s
    /// (so that a broken kill fails a test rather than hanging it).
    async fn output(&self) -> CommandOutput {
        let bound = self.timeout.saturating_add(Duration::from_secs(10));
        match tokio::time::timeout(bound, self.run()).await {
            Ok(Ok(output)) => output,
            Ok(Err(error)) => panic!("{} did not run: {error}", self.line),
            Err(_) => panic!("{} still running {bound:?} after it started", self.line),
        }
    }
}

/// The `pgid N` line a script printed with [`PRINT_PGID`].
#[cfg(target_os = "linux")]
fn pgid_from(stderr: &str) -> i32 {
    let pgid = stderr
        .lines()
        .find_map(|line| line.strip_prefix("pgid "))
        .and_then(|pgid| pgid.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `pgid N` line in stderr: {stderr:?}"));
    assert_own_group(pgid);
    pgid
}

/// Fails unless the hook got a process group of its own (killing the group it reported must
/// never kill the test runner).
#[cfg(target_os = "linux")]
fn assert_own_group(pgid: i32) {
    assert_ne!(
        pgid,
        nix::unistd::getpgrp().as_raw(),
        "the hook runs in the test's own process group"
    );
}

/// A script line printing its process group to stderr: the group the runner made for the hook
/// (whether or not the shell forked on the way).
#[cfg(target_os = "linux")]
const PRINT_PGID: &str = "echo \"pgid $(cut -d' ' -f5 /proc/$$/stat)\" >&2";

#[cfg(target_os = "linux")]
mod procfs {
    //! This process's descriptors and children, and process groups, as `/proc` shows them.

    use std::fs;
    use std::time::{Duration, Instant};

    /// One process: its pid, state (`R`, `S`, `Z`…), parent and process group.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Proc {
        pub pid: i32,
        pub state: char,
        pub ppid: i32,
        pub pgrp: i32,
    }

    pub fn processes() -> Vec<Proc> {
        let Ok(entries) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| {
                let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
                // Gone between the listing and the read: not a process any more.
                let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                // `pid (comm) state ppid pgrp …`, where comm may hold spaces and parentheses.
                let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
                let state = fields.next()?.chars().next()?;
                let ppid = fields.next()?.parse().ok()?;
                let pgrp = fields.next()?.parse().ok()?;
                Some(Proc {
                    pid,
                    state,
                    ppid,
                    pgrp,
                })
            })
            .collect()
    }

    /// The processes of a group that are still running (not zombies).
    pub fn live_members(pgid: i32) -> Vec<Proc> {
        processes()
            .into_iter()
            .filter(|p| p.pgrp == pgid && p.state != 'Z')
            .collect()
    }

    /// Waits up to 5 s for every process of the group to die, and returns the survivors.
    ///
    /// A killed process is a zombie until its parent reaps it; background processes of a
    /// hook were reparented to init, which reaps when it gets round to it (seconds, in some
    /// containers), so zombies count as dead here.
    pub fn survivors_of(pgid: i32) -> Vec<Proc> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let live = live_members(pgid);
            if live.is_empty() || Instant::now() > deadline {
                return live;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Children of this process, zombies included.
    pub fn children() -> Vec<Proc> {
        let me = std::process::id() as i32;
        processes().into_iter().filter(|p| p.ppid == me).collect()
    }

    pub fn open_fds() -> usize {
        fs::read_dir("/proc/self/fd")
            .expect("/proc/self/fd")
            .count()
    }
}

/// Kills a process group when a test ends, so that a failing test leaves no `sleep 1000`.
#[cfg(target_os = "linux")]
struct KillGroupOnDrop(i32);

#[cfg(target_os = "linux")]
impl Drop for KillGroupOnDrop {
    fn drop(&mut self) {
        if self.0 == nix::unistd::getpgrp().as_raw() {
            return;
        }
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Forms

#[test]
fn shell_form_runs_the_command_with_sh_c() {
    run_shared(async {
        // `$0` is `sh` only under `sh -c`; the pipe and the quoting need a shell.
        let output = Hook::shell(r#"printf '%s|' "$0"; echo 'a b' | tr ' ' +"#)
            .output()
            .await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "sh|a+b\n");
        assert_eq!(output.stderr, "");
    });
}

#[test]
fn exec_form_passes_arguments_verbatim_without_a_shell() {
    run_shared(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = write_script(
            dir.path(),
            "args.sh",
            r#"for arg in "$@"; do printf '[%s]' "$arg"; done"#,
        );
        let script = script.to_str().expect("utf-8 temp path");
        let hook = Hook::exec(&[script, "$HOME", "a b", "*", "", "'q'"]);
        // Another test's fork can briefly hold the fresh script open for writing: ETXTBSY.
        let mut attempts = 0;
        let output = loop {
            attempts += 1;
            match hook.run().await {
                Err(RunError::Spawn { error, .. })
                    if error.raw_os_error() == Some(nix::libc::ETXTBSY) && attempts < 50 =>
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                result => break result.expect("exec-form hook runs"),
            }
        };
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "[$HOME][a b][*][]['q']");
    });
}

#[test]
fn exec_form_with_no_arguments_is_an_error() {
    run_shared(async {
        let result = Hook::exec(&[]).run().await;
        assert!(
            matches!(result, Err(RunError::EmptyArgs)),
            "expected EmptyArgs, got {result:?}"
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Stdin

#[test]
fn stdin_is_written_then_closed() {
    run_shared(async {
        // `cat` only ends at end-of-file: if stdin stayed open, this would time out.
        let mut hook = Hook::script("cat; echo end");
        hook.timeout = Duration::from_secs(10);
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "{\"hook_event_name\":\"PreToolUse\"}end\n");
    });
}

#[test]
fn stdin_larger_than_a_pipe_is_fed_while_output_is_read() {
    run_shared(async {
        // `cat` echoes as it reads: writing all of stdin before reading stdout would deadlock
        // once both pipes are full.
        let mut hook = Hook::script("cat");
        hook.stdin = (0..1_000_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        hook.cap = 2_000_000;
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert!(!output.stdout_truncated);
        assert!(
            output.stdout.as_bytes() == hook.stdin.as_slice(),
            "stdout is not stdin"
        );
    });
}

#[test]
fn hook_that_does_not_read_its_stdin_is_not_an_error() {
    run_shared(async {
        // More than a pipe holds, so that our write meets the closed pipe (EPIPE): once
        // while the hook still runs, having closed its stdin, and once after it exited.
        for script in ["exec <&-; sleep 0.3; echo bye; exit 3", "echo bye; exit 3"] {
            let mut hook = Hook::script(script);
            hook.stdin = vec![b'x'; 4 << 20];
            let output = hook.output().await;
            assert_eq!(output.status, ExitStatusKind::Code(3), "{script}");
            assert_eq!(output.stdout, "bye\n", "{script}");
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Environment, working directory, stdio

#[test]
fn protocol_variables_and_env_entries_are_exported_and_cwd_is_the_session() {
    run_shared(async {
        let mut hook = Hook::script(
            r#"printf '%s\n' "$CLAUDE_PROJECT_DIR" "$CLAUDE_PLUGIN_ROOT" "$HOOK_EXTRA" "$PATH"
pwd -P"#,
        );
        hook.plugin_root = Some(hook.path("plugin"));
        hook.env.insert("HOOK_EXTRA".into(), "extra value".into());
        // The protocol's variables are the runner's to set.
        hook.env
            .insert("CLAUDE_PROJECT_DIR".into(), "/spoofed".into());
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
        let lines: Vec<&str> = output.stdout.lines().collect();
        let cwd = fs::canonicalize(&hook.cwd).expect("canonical cwd");
        let path = std::env::var("PATH").unwrap_or_default();
        assert_eq!(
            lines,
            [
                hook.dir.path().to_str().expect("utf-8 temp path"),
                hook.path("plugin").to_str().expect("utf-8 temp path"),
                "extra value",
                path.as_str(),
                cwd.to_str().expect("utf-8 temp path"),
            ]
        );
    });
}

#[test]
fn inherited_env_is_passed_on_but_an_inherited_plugin_root_is_not() {
    let _processes = exclusive();
    // SAFETY: the exclusive lock is held and no runtime is running, so no other thread of
    // this test binary reads or writes the environment now.
    unsafe {
        std::env::set_var("HOOKS_TEST_INHERITED", "from parent");
        std::env::set_var("CLAUDE_PLUGIN_ROOT", "/stale/plugin");
    }
    block_on(async {
        let script = r#"printf '%s|%s' "$HOOKS_TEST_INHERITED" "${CLAUDE_PLUGIN_ROOT-unset}""#;
        let output = Hook::script(script).output().await;
        assert_eq!(output.stdout, "from parent|unset");

        // A hook's own `env` may still set it.
        let mut hook = Hook::script(script);
        hook.env
            .insert("CLAUDE_PLUGIN_ROOT".into(), "/from/env".into());
        assert_eq!(hook.output().await.stdout, "from parent|/from/env");
    });
    // SAFETY: as above.
    unsafe {
        std::env::remove_var("HOOKS_TEST_INHERITED");
        std::env::remove_var("CLAUDE_PLUGIN_ROOT");
    }
}

#[test]
fn env_remove_keeps_an_inherited_variable_from_the_hook_and_env_can_still_set_it() {
    let _processes = exclusive();
    // SAFETY: the exclusive lock is held and no runtime is running, so no other thread of
    // this test binary reads or writes the environment now.
    unsafe {
        std::env::set_var("HOOKS_TEST_STALE", "from parent");
    }
    block_on(async {
        let script = r#"printf '%s|%s' "${HOOKS_TEST_STALE-unset}" "${HOOKS_TEST_KEPT-unset}""#;
        let mut hook = Hook::script(script);
        hook.env_remove = vec!["HOOKS_TEST_STALE"];
        assert_eq!(hook.output().await.stdout, "unset|unset");

        let mut hook = Hook::script(script);
        hook.env_remove = vec!["HOOKS_TEST_STALE"];
        hook.env
            .insert("HOOKS_TEST_STALE".into(), "from env".into());
        assert_eq!(hook.output().await.stdout, "from env|unset");

        let hook = Hook::script(script);
        assert_eq!(hook.output().await.stdout, "from parent|unset");
    });
    // SAFETY: as above.
    unsafe {
        std::env::remove_var("HOOKS_TEST_STALE");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn stdin_stdout_and_stderr_are_pipes_not_a_tty() {
    run_shared(async {
        let output = Hook::shell("readlink /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2")
            .output()
            .await;
        assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
        let kinds: Vec<&str> = output
            .stdout
            .lines()
            .map(|target| target.split(':').next().unwrap_or(target))
            .collect();
        assert_eq!(kinds, ["pipe", "pipe", "pipe"], "{}", output.stdout);
    });
}

// ---------------------------------------------------------------------------------------------
// Failing to start, and ways to end

#[test]
fn missing_script_in_shell_form_exits_127_with_the_shells_message() {
    run_shared(async {
        let hook = Hook::new(|dir| {
            CommandLine::Shell(format!("'{}'", dir.join("missing-hook.sh").display()))
        });
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(127));
        assert!(
            output.stderr.contains("missing-hook.sh"),
            "stderr: {:?}",
            output.stderr
        );
    });
}

#[test]
fn missing_program_in_exec_form_is_a_spawn_error_naming_it() {
    run_shared(async {
        let result = Hook::exec(&["no-such-hook-program-7f3a", "--flag"])
            .run()
            .await;
        let error = result.expect_err("a missing program cannot run");
        let message = error.to_string();
        let RunError::Spawn { program, error, .. } = error else {
            panic!("expected a spawn error, got {message}");
        };
        assert_eq!(program, "no-such-hook-program-7f3a");
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert!(
            message.contains("`no-such-hook-program-7f3a --flag`"),
            "the message names the command: {message}"
        );
    });
}

#[test]
fn missing_working_directory_is_an_error_naming_it() {
    run_shared(async {
        let mut hook = Hook::shell("true");
        hook.cwd = hook.path("no-such-dir");
        match hook.run().await {
            Err(error @ RunError::Cwd { .. }) => {
                let message = error.to_string();
                assert!(message.contains("no-such-dir"), "{message}");
                assert!(message.contains("`true`"), "{message}");
            }
            other => panic!("expected a working-directory error, got {other:?}"),
        }
    });
}

#[test]
fn exit_code_stdout_and_stderr_are_reported_apart() {
    run_shared(async {
        let output = Hook::script("echo out; echo err >&2; exit 2")
            .output()
            .await;
        assert_eq!(output.status, ExitStatusKind::Code(2));
        assert_eq!(output.stdout, "out\n");
        assert_eq!(output.stderr, "err\n");
        assert!(!output.stdout_truncated && !output.stderr_truncated);
    });
}

#[test]
fn death_by_signal_is_reported_as_the_signal() {
    run_shared(async {
        // Exec form: under `sh -c` the outer shell would turn the signal into exit code 137.
        let output = Hook::exec_script("kill -9 $$").output().await;
        assert_eq!(output.status, ExitStatusKind::Signal(9));
    });
}

#[test]
fn timeout_as_long_as_duration_allows_means_no_deadline() {
    run_shared(async {
        let mut hook = Hook::shell("echo ok");
        hook.timeout = Duration::MAX;
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "ok\n");
    });
}

// ---------------------------------------------------------------------------------------------
// Timeouts and process groups

#[cfg(target_os = "linux")]
#[test]
fn timeout_kills_the_whole_process_group_and_reaps_the_hook() {
    run_shared(async {
        let mut hook = Hook::script(&format!(
            "{PRINT_PGID}\necho started\nsleep 1000 &\nsleep 1000"
        ));
        hook.timeout = Duration::from_millis(500);
        let started = Instant::now();
        let output = hook.output().await;
        let elapsed = started.elapsed();
        // At once: tokio would reap a hook we dropped unreaped, but only later.
        let children = procfs::children();
        let pgid = pgid_from(&output.stderr);
        let _cleanup = KillGroupOnDrop(pgid);

        assert_eq!(output.status, ExitStatusKind::TimedOut);
        assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
        assert_eq!(
            output.stdout, "started\n",
            "output before the timeout is kept"
        );
        let unreaped: Vec<_> = children.iter().filter(|p| p.pgrp == pgid).collect();
        assert!(unreaped.is_empty(), "the hook was not reaped: {unreaped:?}");
        let survivors = procfs::survivors_of(pgid);
        assert!(survivors.is_empty(), "survived the timeout: {survivors:?}");
    });
}

#[cfg(target_os = "linux")]
#[test]
fn exited_hook_whose_background_child_holds_stdout_returns_after_the_grace_period() {
    run_shared(async {
        // Without the grace period this would run into its 20 s timeout.
        let hook = Hook::shell(&format!("{PRINT_PGID}; sleep 1000 & echo hi"));
        let started = Instant::now();
        let output = hook.output().await;
        let elapsed = started.elapsed();
        let pgid = pgid_from(&output.stderr);
        let _cleanup = KillGroupOnDrop(pgid);

        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "hi\n");
        assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
        let survivors = procfs::survivors_of(pgid);
        assert!(
            survivors.is_empty(),
            "the background sleep survived: {survivors:?}"
        );
    });
}

#[cfg(target_os = "linux")]
#[test]
fn background_work_that_lets_go_of_the_output_dies_with_the_hook() {
    run_shared(async {
        let output = Hook::shell(&format!(
            "{PRINT_PGID}; sleep 1000 >/dev/null 2>&1 & echo $!"
        ))
        .output()
        .await;
        let pgid = pgid_from(&output.stderr);
        let _cleanup = KillGroupOnDrop(pgid);

        assert_eq!(output.status, ExitStatusKind::Code(0));
        let sleep: i32 = output.stdout.trim().parse().expect("pid of the sleep");
        let survivors = procfs::survivors_of(pgid);
        assert!(
            survivors.is_empty(),
            "the detached sleep {sleep} survived the hook: {survivors:?}"
        );
    });
}

#[cfg(target_os = "linux")]
#[test]
fn dropping_a_run_kills_its_process_group() {
    run_shared(async {
        let hook = Hook::script("cut -d' ' -f5 /proc/$$/stat > pgid\nsleep 1000 &\nsleep 1000");
        let pgid_file = hook.cwd.join("pgid");
        let run = hook.run();
        let pgid = {
            let mut run = std::pin::pin!(run);
            let waited = Instant::now();
            loop {
                tokio::select! {
                    result = &mut run => panic!("the hook ended: {result:?}"),
                    () = tokio::time::sleep(Duration::from_millis(10)) => {}
                }
                if let Some(pgid) = fs::read_to_string(&pgid_file)
                    .ok()
                    .filter(|text| text.ends_with('\n'))
                    .and_then(|text| text.trim().parse::<i32>().ok())
                {
                    assert_own_group(pgid);
                    break pgid;
                }
                assert!(
                    waited.elapsed() < Duration::from_secs(10),
                    "the hook never started"
                );
            }
            // The run is dropped here, mid-flight.
        };
        let _cleanup = KillGroupOnDrop(pgid);
        let survivors = procfs::survivors_of(pgid);
        assert!(
            survivors.is_empty(),
            "survived the dropped run: {survivors:?}"
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Output

#[test]
fn output_past_the_cap_is_drained_and_dropped() {
    run_shared(async {
        // If what is past the cap were not read, the writer would block on a full pipe and
        // never reach `echo end`.
        let hook = Hook::script("head -c 10000000 /dev/zero | tr '\\0' x; echo end >&2");
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout.chars().count(), 10_000);
        assert!(output.stdout.chars().all(|c| c == 'x'));
        assert!(output.stdout_truncated);
        assert_eq!(output.stdout_dropped_bytes, 10_000_000 - 10_000);
        assert_eq!(output.stderr, "end\n");
        assert!(!output.stderr_truncated);
    });
}

#[test]
fn a_hook_filling_stderr_does_not_block_on_stdout() {
    run_shared(async {
        // Reading stdout to its end before stderr would deadlock: stdout stays open while the
        // hook waits for room in stderr.
        let hook = Hook::script("head -c 3000000 /dev/zero | tr '\\0' e >&2; echo ok");
        let output = hook.output().await;
        assert_eq!(output.status, ExitStatusKind::Code(0));
        assert_eq!(output.stdout, "ok\n");
        assert_eq!(output.stderr.len(), 10_000);
        assert!(output.stderr_truncated);
        assert_eq!(output.stderr_dropped_bytes, 3_000_000 - 10_000);
    });
}

#[test]
fn the_cap_counts_characters_and_never_splits_one() {
    run_shared(async {
        // Six `é` (2 bytes each), then one `😀` (4 bytes): 7 characters, 16 bytes.
        let script = r"printf '\303\251\303\251\303\251\303\251\303\251\303\251\360\237\230\200'";
        for (cap, kept, dropped) in [
            (5, "ééééé", 6),
            (6, "éééééé", 4),
            (7, "éééééé😀", 0),
            (100, "éééééé😀", 0),
        ] {
            let mut hook = Hook::script(script);
            hook.cap = cap;
            let output = hook.output().await;
            assert_eq!(output.stdout, kept, "cap {cap}");
            assert_eq!(output.stdout_dropped_bytes, dropped, "cap {cap}");
            assert_eq!(output.stdout_truncated, dropped > 0, "cap {cap}");
        }
    });
}

#[test]
fn output_that_is_not_utf8_is_decoded_lossily() {
    run_shared(async {
        let output = Hook::script(r"printf 'a\377b\303'; printf 'c\351' >&2")
            .output()
            .await;
        assert_eq!(output.stdout, "a\u{FFFD}b\u{FFFD}");
        assert_eq!(output.stderr, "c\u{FFFD}");
    });
}

// ---------------------------------------------------------------------------------------------
// Leaks

#[test]
fn run_command_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let line = CommandLine::Shell("true".into());
    let env = BTreeMap::new();
    let request = CommandRequest {
        line: &line,
        env: &env,
        env_remove: &[],
        cwd: Path::new("/"),
        project_dir: Path::new("/"),
        plugin_root: None,
        stdin: b"",
        timeout: Duration::from_secs(1),
        output_cap: 10,
    };
    // Never polled: this only has to compile.
    assert_send(&run_command(&request));
}

#[cfg(target_os = "linux")]
#[test]
fn a_thousand_timed_out_runs_leak_no_descriptors_and_no_zombies() {
    const RUNS: usize = 1_000;
    const AT_ONCE: usize = 16;

    let _processes = exclusive();
    block_on(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = write_script(dir.path(), "hang.sh", "sleep 1000");
        let line = CommandLine::Shell(format!("sh '{}'", script.display()));

        let run = move |line: CommandLine, cwd: PathBuf| async move {
            let env = BTreeMap::new();
            let request = CommandRequest {
                line: &line,
                env: &env,
                env_remove: &[],
                cwd: &cwd,
                project_dir: &cwd,
                plugin_root: None,
                stdin: b"{}",
                timeout: Duration::from_millis(10),
                output_cap: 10_000,
            };
            tokio::time::timeout(Duration::from_secs(10), run_command(&request))
                .await
                .expect("a run with a 10 ms timeout returns within 10 s")
        };

        // Once first, so that tokio's process-wide SIGCHLD machinery is in the baseline.
        let warm_up = run(line.clone(), dir.path().to_owned()).await;
        assert_eq!(warm_up.expect("runs").status, ExitStatusKind::TimedOut);
        let fds_before = procfs::open_fds();

        let mut running = tokio::task::JoinSet::new();
        let mut started = 0;
        let mut timed_out = 0;
        while started < RUNS || !running.is_empty() {
            while started < RUNS && running.len() < AT_ONCE {
                running.spawn(run(line.clone(), dir.path().to_owned()));
                started += 1;
            }
            if let Some(joined) = running.join_next().await {
                let output = joined.expect("run task").expect("runs");
                assert_eq!(output.status, ExitStatusKind::TimedOut);
                timed_out += 1;
            }
        }
        assert_eq!(timed_out, RUNS);

        let fds_after = procfs::open_fds();
        assert!(
            fds_after <= fds_before + 4,
            "open descriptors: {fds_before} before, {fds_after} after {RUNS} runs"
        );
        let children = procfs::children();
        assert!(
            children.is_empty(),
            "children left behind (zombies are unreaped hooks): {children:?}"
        );
    });
}
