//! Issue 13, the process side of `hooks claude`: a panic or an answer that cannot be written
//! blocks (exit 2) instead of exiting 101, which Claude Code takes as "proceed"; and a runner
//! killed mid-hook leaves no process of the hook behind. Everything through the real binary.

#![cfg(unix)]

use std::io::Write;
use std::process::Child;

use serde_json::json;

use crate::common;

use common::Project;

const GUARDED: &str = "enabled: true\nbuiltin:\n  command_guard: {}\n";

fn bash(p: &Project, event: &str, command: &str) -> String {
    json!({
        "session_id": "s1", "cwd": p.path(), "hook_event_name": event,
        "tool_use_id": "toolu_1", "tool_name": "Bash", "tool_input": {"command": command},
        "tool_response": {}
    })
    .to_string()
}

/// Writes `payload` to the child's stdin, closes it, and waits for the exit code.
fn finish(mut child: Child, payload: &str) -> (Option<i32>, String) {
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let _ = stdin.write_all(payload.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("hooks claude ran");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_answer_that_cannot_be_written_blocks_instead_of_panicking() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    // Any answer will do: the deny of `rm -rf /`, and a pass with a note.
    for (event, command, code) in [("PreToolUse", "rm -rf /", 2), ("PostToolUse", "ls", 1)] {
        let mut cmd = p.command(&["claude", "--settings", "missing.json"], &[]);
        let mut child = cmd.spawn().expect("hooks claude starts");
        // The reader is gone before anything is written: writing the answer fails (EPIPE).
        drop(child.stdout.take());
        let (exit, stderr) = finish(child, &bash(&p, event, command));
        assert_eq!(exit, Some(code), "{event}: {stderr}");
        assert!(
            stderr.contains("cannot write the answer"),
            "{event}: {stderr}"
        );
    }
}

#[test]
fn a_stderr_nobody_reads_loses_only_the_notes() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    // The missing file's note cannot be written to stderr; the decision still reaches stdout
    // (where the note is also a `systemMessage`), and the run never ends in a panic's 101,
    // which Claude Code takes as "proceed".
    for (event, command, code, decided) in [
        ("PreToolUse", "rm -rf /", 0, "deny"),
        ("PreToolUse", "ls", 0, ""),
        ("PostToolUse", "ls", 0, ""),
    ] {
        let mut cmd = p.command(&["claude", "--settings", "missing.json"], &[]);
        let mut child = cmd.spawn().expect("hooks claude starts");
        drop(child.stderr.take());
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let _ = stdin.write_all(bash(&p, event, command).as_bytes());
        drop(stdin);
        let out = child.wait_with_output().expect("hooks claude ran");
        assert_eq!(out.status.code(), Some(code), "{event} {command}: {out:?}");
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON answer");
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap_or(""),
            decided,
            "{event} {command}: {answer}"
        );
        assert!(
            answer["systemMessage"]
                .as_str()
                .is_some_and(|m| m.contains("missing.json")),
            "{event} {command}: {answer}"
        );
    }
}

/// Whether `pid` is running (a zombie is not: it is dead and only waits to be reaped).
#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|end| stat.get(end + 1..))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("");
    !matches!(state, "Z" | "X" | "x")
}

#[cfg(target_os = "linux")]
#[test]
fn a_runner_killed_mid_hook_leaves_no_process_of_the_hook() {
    use std::time::{Duration, Instant};

    let p = Project::new();
    // The hook starts a setsid daemon (double-forked: reparented at once) and a plain
    // background child, writes their pids and its own, and hangs.
    p.write(
        "hooks.yaml",
        "enabled: true\nallow: [\"./hang.sh\"]\nhooks:\n  - { id: hang, event_type: PreToolUse, timeout_ms: 120000, handler: { command: ./hang.sh } }\n",
    );
    p.write(
        "hang.sh",
        "#!/bin/sh\n(setsid sh -c 'echo $$ >> pids; exec sleep 300' </dev/null >/dev/null 2>&1 &) &\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $! >> pids\necho $$ >> pids\nsleep 300\n",
    );
    let mut child = p
        .command(&["claude"], &[])
        .spawn()
        .expect("hooks claude starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(bash(&p, "PreToolUse", "ls").as_bytes())
        .expect("payload written");
    drop(stdin);
    let pids_file = p.path().join("pids");
    let started = Instant::now();
    let pids: Vec<u32> = loop {
        let pids: Vec<u32> = std::fs::read_to_string(&pids_file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.len() == 3 {
            break pids;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the hook did not start its processes: {pids:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(pids.iter().all(|&pid| alive(pid)), "{pids:?}");
    // As an agent would at its own timeout: no chance to clean up.
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&pid| alive(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<u32> = pids.iter().copied().filter(|&pid| alive(pid)).collect();
    // Leave nothing behind even when the test fails.
    for &pid in &survivors {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(
        survivors.is_empty(),
        "still running 10 s after the runner died: {survivors:?}"
    );
}
