//! No process outlives its hook (Linux): at the deadline, when the hook exits, and when its run
//! is dropped, every descendant dies, including those that left the hook's process group
//! (`setsid`), were orphaned and reparented (double forks), or keep forking while being
//! killed.
//!
//! Each descendant of interest writes its pid to a file; after the run, each must be gone:
//! no `/proc/<pid>`, or a zombie (a zombie is dead), or a pid reused by something else (told
//! apart by its command line, which holds a per-test marker).

#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookrail_config::command::run::{CommandOutput, CommandRequest, ExitStatusKind, run_command};
use hookrail_config::spec::CommandLine;
use tempfile::TempDir;

fn block_on<F: Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(test)
}

/// A hook in a temp dir, whose descendants append their pids to `pids`.
struct Hook {
    dir: TempDir,
    line: CommandLine,
    env: BTreeMap<String, String>,
    timeout: Duration,
}

impl Hook {
    /// Shell form running `body`, written to `hook.sh`; `$PIDS` is the pid file and `$DIR`
    /// the temp dir.
    fn script(body: &str) -> Hook {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = write(dir.path(), "hook.sh", &format!("#!/bin/sh\n{body}\n"));
        let pids = dir.path().join("pids");
        fs::write(&pids, "").expect("pid file");
        let env = BTreeMap::from([
            ("PIDS".to_owned(), pids.display().to_string()),
            ("DIR".to_owned(), dir.path().display().to_string()),
        ]);
        Hook {
            line: CommandLine::Shell(format!("sh '{}'", script.display())),
            dir,
            env,
            timeout: Duration::from_secs(20),
        }
    }

    /// Runs the script in exec form (`sh hook.sh`, no outer shell), so that the hook's own
    /// death by a signal is not turned into the outer shell's exit code.
    fn exec_form(mut self) -> Hook {
        let script = self.dir.path().join("hook.sh").display().to_string();
        self.line = CommandLine::Exec(vec!["sh".into(), script]);
        self
    }

    fn request(&self) -> CommandRequest<'_> {
        CommandRequest {
            line: &self.line,
            env: &self.env,
            env_remove: &[],
            cwd: self.dir.path(),
            project_dir: self.dir.path(),
            plugin_root: None,
            stdin: br#"{"hook_event_name":"PreToolUse"}"#,
            timeout: self.timeout,
            output_cap: 10_000,
        }
    }

    /// Runs it, failing the test if it cannot run or outlives its timeout by 10 s.
    async fn output(&self) -> CommandOutput {
        let bound = self.timeout.saturating_add(Duration::from_secs(10));
        match tokio::time::timeout(bound, run_command(&self.request())).await {
            Ok(Ok(output)) => output,
            Ok(Err(error)) => panic!("{} did not run: {error}", self.line),
            Err(_) => panic!("{} still running {bound:?} after it started", self.line),
        }
    }

    /// The pids written so far.
    fn pids(&self) -> Vec<i32> {
        fs::read_to_string(self.dir.path().join("pids"))
            .expect("pid file")
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// The recorded processes still running (waiting up to 5 s for killed ones to go).
    fn survivors(&self, marker: &str) -> Vec<i32> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let alive: Vec<i32> = self
                .pids()
                .into_iter()
                .filter(|&pid| alive(pid, marker))
                .collect();
            if alive.is_empty() || Instant::now() > deadline {
                return alive;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills what a failed test left running (every process whose command line holds the
    /// marker), so that it does not linger for an hour or keep forking.
    fn cleanup(&self, marker: &str) {
        for _ in 0..50 {
            let Ok(entries) = fs::read_dir("/proc") else {
                return;
            };
            let alive: Vec<i32> = entries
                .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
                .filter(|&pid| alive(pid, marker))
                .collect();
            if alive.is_empty() {
                return;
            }
            for pid in alive {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).expect("write script");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod script");
    path
}

/// Whether `pid` is a running (not zombie) process whose command line holds `marker`.
fn alive(pid: i32, marker: &str) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].split_whitespace().next())
        .unwrap_or("?");
    if state == "Z" || state == "X" {
        return false;
    }
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    cmdline.contains(marker)
}

/// Runs `hook`, expecting it to time out after printing `ready`, and `count` recorded
/// processes, none of which may survive.
fn assert_timeout_kills_all(hook: Hook, marker: &str, count: usize) {
    block_on(async {
        let output = hook.output().await;
        let pids = hook.pids();
        let survivors = hook.survivors(marker);
        hook.cleanup(marker);

        assert_eq!(output.status, ExitStatusKind::TimedOut, "{output:?}");
        assert_eq!(
            output.stdout, "ready\n",
            "the hook started its descendants before the deadline: {output:?}"
        );
        assert_eq!(pids.len(), count, "recorded pids: {pids:?}");
        assert!(
            survivors.is_empty(),
            "{} of {} survived the timeout: {survivors:?}",
            survivors.len(),
            pids.len()
        );
    });
}

/// Runs `hook`, expecting it to exit 0 after printing `ready`, leaving behind `count`
/// recorded processes, none of which may survive the run.
fn assert_exit_kills_all(hook: Hook, marker: &str, count: usize) {
    block_on(async {
        let output = hook.output().await;
        let pids = hook.pids();
        let survivors = hook.survivors(marker);
        hook.cleanup(marker);

        assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
        assert_eq!(output.stdout, "ready\n", "{output:?}");
        assert_eq!(pids.len(), count, "recorded pids: {pids:?}");
        assert!(
            survivors.is_empty(),
            "{} of {} survived the hook's exit: {survivors:?}",
            survivors.len(),
            pids.len()
        );
    });
}

/// Waits (in the hook) until the pid file has `n` lines.
fn await_pids(n: usize) -> String {
    format!("while [ \"$(wc -l < \"$PIDS\")\" -lt {n} ]; do sleep 0.01; done")
}

/// A hundred grandchildren, each in a session (and process group) of its own.
fn hundred_setsid_grandchildren(marker: &str) -> String {
    format!(
        "i=0\nwhile [ $i -lt 100 ]; do\n  \
         setsid sh -c 'echo $$ >> \"$1\"; exec sleep {marker}' sh \"$PIDS\" &\n  \
         i=$((i + 1))\ndone\n{}\necho ready",
        await_pids(100)
    )
}

/// `(setsid … &) &`: the subshell exits at once, so the daemon is orphaned and reparented.
fn sh_double_fork(marker: &str) -> String {
    format!(
        "(setsid sh -c 'echo $$ >> \"$1\"; exec sleep {marker}' sh \"$PIDS\" &) &\n{}\necho ready",
        await_pids(1)
    )
}

/// The classic daemon: fork, `os.setsid()`, fork again, the middle process exits.
fn python_double_fork(marker: &str) -> String {
    let python = format!(
        "import os, sys\n\
         if os.fork() == 0:\n    \
             os.setsid()\n    \
             if os.fork() == 0:\n        \
                 with open(sys.argv[1], 'a') as f: f.write('%d\\n' % os.getpid())\n        \
                 os.execvp('sleep', ['sleep', '{marker}'])\n    \
             os._exit(0)\n\
         os.wait()\n"
    );
    format!(
        "cat > \"$DIR/daemon.py\" <<'EOF'\n{python}EOF\npython3 \"$DIR/daemon.py\" \"$PIDS\"\n{}\necho ready",
        await_pids(1)
    )
}

/// A chain of processes, each starting the next in a new session, then living on a little:
/// a handful are alive at any time, and one of them is forking while the tree is killed.
fn hopping_chain() -> String {
    "cat > \"$DIR/hop.sh\" <<'EOF'\necho $$ >> \"$PIDS\"\nsleep 0.01\nsetsid sh \"$0\" &\nsleep 0.05\nEOF\n\
     sh \"$DIR/hop.sh\" &\n"
        .to_owned()
        + &await_pids(20)
        + "\necho ready"
}

#[test]
fn timeout_kills_a_hundred_setsid_grandchildren() {
    let marker = "3601";
    let mut hook = Hook::script(&format!(
        "{}\nsleep 1000",
        hundred_setsid_grandchildren(marker)
    ));
    hook.timeout = Duration::from_secs(8);
    assert_timeout_kills_all(hook, &format!("sleep {marker}"), 100);
}

#[test]
fn timeout_kills_a_double_forked_setsid_daemon() {
    let marker = "3602";
    let mut hook = Hook::script(&format!("{}\nsleep 1000", sh_double_fork(marker)));
    hook.timeout = Duration::from_secs(3);
    assert_timeout_kills_all(hook, &format!("sleep {marker}"), 1);
}

#[test]
fn timeout_kills_a_python_double_forked_daemon() {
    let marker = "3603";
    let mut hook = Hook::script(&format!("{}\nsleep 1000", python_double_fork(marker)));
    hook.timeout = Duration::from_secs(5);
    assert_timeout_kills_all(hook, &format!("sleep {marker}"), 1);
}

#[test]
fn timeout_kills_processes_that_fork_while_being_killed() {
    let mut hook = Hook::script(&format!("{}\nsleep 1000", hopping_chain()));
    hook.timeout = Duration::from_secs(3);
    let marker = format!("{}/hop.sh", hook.dir.path().display());
    block_on(async {
        let output = hook.output().await;
        let survivors = hook.survivors(&marker);
        hook.cleanup(&marker);
        assert_eq!(output.status, ExitStatusKind::TimedOut, "{output:?}");
        assert_eq!(output.stdout, "ready\n", "{output:?}");
        assert!(hook.pids().len() >= 20);
        assert!(survivors.is_empty(), "survived the timeout: {survivors:?}");
    });
}

#[test]
fn exit_kills_a_hundred_setsid_grandchildren() {
    let marker = "3604";
    let hook = Hook::script(&hundred_setsid_grandchildren(marker));
    assert_exit_kills_all(hook, &format!("sleep {marker}"), 100);
}

#[test]
fn exit_kills_a_double_forked_setsid_daemon() {
    let marker = "3605";
    let hook = Hook::script(&sh_double_fork(marker));
    assert_exit_kills_all(hook, &format!("sleep {marker}"), 1);
}

#[test]
fn exit_kills_a_python_double_forked_daemon() {
    let marker = "3606";
    let hook = Hook::script(&python_double_fork(marker));
    assert_exit_kills_all(hook, &format!("sleep {marker}"), 1);
}

#[test]
fn exit_kills_background_work_that_let_go_of_the_output() {
    let marker = "3607";
    let hook = Hook::script(&format!(
        "sh -c 'echo $$ >> \"$PIDS\"; exec sleep {marker}' >/dev/null 2>&1 &\n{}\necho ready",
        await_pids(1)
    ));
    assert_exit_kills_all(hook, &format!("sleep {marker}"), 1);
}

#[test]
fn exit_kills_processes_that_fork_while_being_killed() {
    let hook = Hook::script(&hopping_chain());
    let marker = format!("{}/hop.sh", hook.dir.path().display());
    block_on(async {
        let output = hook.output().await;
        let survivors = hook.survivors(&marker);
        hook.cleanup(&marker);
        assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
        assert_eq!(output.stdout, "ready\n", "{output:?}");
        assert!(
            survivors.is_empty(),
            "survived the hook's exit: {survivors:?}"
        );
    });
}

#[test]
fn dropping_a_run_kills_setsid_grandchildren() {
    let marker = "3608";
    let hook = Hook::script(&format!(
        "{}\nsleep 1000",
        hundred_setsid_grandchildren(marker)
    ));
    block_on(async {
        {
            let request = hook.request();
            let mut run = std::pin::pin!(run_command(&request));
            let waited = Instant::now();
            while hook.pids().len() < 100 {
                tokio::select! {
                    result = &mut run => panic!("the hook ended: {result:?}"),
                    () = tokio::time::sleep(Duration::from_millis(10)) => {}
                }
                assert!(
                    waited.elapsed() < Duration::from_secs(15),
                    "the hook never started its grandchildren"
                );
            }
            // The run is dropped here, mid-flight.
        }
        let marker = format!("sleep {marker}");
        let survivors = hook.survivors(&marker);
        hook.cleanup(&marker);
        assert!(
            survivors.is_empty(),
            "survived the dropped run: {survivors:?}"
        );
    });
}

/// The reaper between the runner and the hook is invisible in what a run reports.
#[test]
fn exit_codes_signals_and_output_pass_through_unchanged() {
    block_on(async {
        for (body, status, stdout, stderr) in [
            (
                "echo out; echo err >&2",
                ExitStatusKind::Code(0),
                "out\n",
                "err\n",
            ),
            (
                "cat; exit 3",
                ExitStatusKind::Code(3),
                r#"{"hook_event_name":"PreToolUse"}"#,
                "",
            ),
            ("echo x; exit 255", ExitStatusKind::Code(255), "x\n", ""),
            (
                "echo bye >&2; kill -TERM $$",
                ExitStatusKind::Signal(15),
                "",
                "bye\n",
            ),
            ("kill -KILL $$", ExitStatusKind::Signal(9), "", ""),
        ] {
            let output = Hook::script(body).exec_form().output().await;
            assert_eq!(output.status, status, "{body}: {output:?}");
            assert_eq!(output.stdout, stdout, "{body}");
            assert_eq!(output.stderr, stderr, "{body}");
        }
    });
}

/// The hook's parent is its reaper (named so in `ps`), not the runner.
#[test]
fn the_hooks_parent_is_its_reaper() {
    block_on(async {
        let output = Hook::script("cat /proc/$PPID/comm")
            .exec_form()
            .output()
            .await;
        assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
        assert_eq!(output.stdout, "hook-reaper\n");
    });
}

/// The reaper is told when its parent *thread* ends (`PR_SET_PDEATHSIG` is per thread): a run
/// spawned from a thread that then exits, while the runner lives on, must run to its end.
#[test]
fn a_run_outlives_the_thread_that_spawned_it() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let hook: &'static Hook = Box::leak(Box::new(Hook::script("sleep 1; echo done")));
    let mut run = Box::pin(async move { run_command(&hook.request()).await });
    let handle = runtime.handle().clone();
    // The first polls, which spawn the hook, on a thread of our own that then ends.
    let spawner = std::thread::spawn(move || {
        handle.block_on(async {
            let early = tokio::time::timeout(Duration::from_millis(300), &mut run).await;
            assert!(
                early.is_err(),
                "the hook ended before its thread: {early:?}"
            );
        });
        run
    });
    let run = spawner.join().expect("the spawning thread");
    let output = runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(20), run).await })
        .expect("the run ends")
        .expect("the hook ran");
    assert_eq!(output.status, ExitStatusKind::Code(0), "{output:?}");
    assert_eq!(output.stdout, "done\n", "{output:?}");
}
