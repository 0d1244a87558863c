//! How `hooks-forward` hands an event to `hooks claude`: run here beside a stand-in `hooks`
//! that records what it was given (the real daemon's side is tested in hooks-cli's
//! `tests/forwarder.rs`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A directory holding a copy of `hooks-forward` and a stand-in `hooks` that writes its
/// arguments (one per line) and its stdin into the directory, and exits 7.
struct Bin {
    dir: tempfile::TempDir,
}

/// Held while an executable is written and while a process is started: a child forked by
/// another test thread while a file is open for writing keeps it open until it execs, and
/// running that file then fails with "text file busy".
static FORK: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Bin {
    fn new(with_hooks: bool) -> Bin {
        let _forking = FORK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().unwrap();
        let me = dir.path().join("hooks-forward");
        std::fs::copy(env!("CARGO_BIN_EXE_hooks-forward"), &me).unwrap();
        if with_hooks {
            let hooks = dir.path().join("hooks");
            let script = format!(
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}/args'\ncat > '{0}/stdin'\nexit 7\n",
                dir.path().display()
            );
            std::fs::write(&hooks, script).unwrap();
            std::fs::set_permissions(&hooks, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Bin { dir }
    }

    fn run(&self, args: &[&str], state: &Path, stdin: &[u8]) -> Output {
        let forking = FORK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut child = Command::new(self.dir.path().join("hooks-forward"))
            .args(args)
            .env("XDG_STATE_HOME", state)
            .env("HOOKS_TOKEN", "test-token-0123456789abcdef")
            .env_remove("AGENT_HOOKS_CLAUDE_NESTED")
            .env_remove("HOOKS_MAX_PAYLOAD")
            .env_remove("HOOKS_PAYLOAD_TIMEOUT")
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(forking);
        let mut input = child.stdin.take().unwrap();
        let bytes = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut input, &bytes);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// The arguments and stdin the stand-in `hooks` got.
    fn got(&self) -> (Vec<String>, Vec<u8>) {
        let args = std::fs::read_to_string(self.dir.path().join("args")).unwrap();
        let stdin = std::fs::read(self.dir.path().join("stdin")).unwrap();
        (args.lines().map(str::to_owned).collect(), stdin)
    }
}

const PAYLOAD: &[u8] = br#"{"hook_event_name":"Stop","session_id":"s"}"#;

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = std::fs::canonicalize(dir.path()).unwrap();
    (dir, path)
}

#[test]
fn without_a_daemon_the_event_and_its_stdin_go_to_hooks_claude() {
    let bin = Bin::new(true);
    let (_keep, project) = project();
    let state = tempfile::tempdir().unwrap();
    let out = bin.run(
        &["--project", project.to_str().unwrap()],
        state.path(),
        PAYLOAD,
    );
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (args, stdin) = bin.got();
    assert_eq!(args, ["claude", "--project", project.to_str().unwrap()]);
    assert_eq!(stdin, PAYLOAD);
}

#[test]
fn options_it_does_not_take_go_to_hooks_claude_unread() {
    let bin = Bin::new(true);
    let state = tempfile::tempdir().unwrap();
    for args in [
        &["--max-payload", "1K"][..],
        &["--config"],
        &["--config", ""],
        &["--project", "/a", "--project", "/b"],
        &["--user-hooks", "/u", "--no-user-hooks"],
        &["--no-daemon", "--no-daemon"],
        &["--help"],
        &["--settings", "--no-daemon"],
    ] {
        let out = bin.run(args, state.path(), PAYLOAD);
        assert_eq!(out.status.code(), Some(7), "{args:?}");
        let (got, stdin) = bin.got();
        let mut want = vec!["claude".to_owned()];
        want.extend(args.iter().map(|a| (*a).to_owned()));
        assert_eq!(got, want, "{args:?}");
        assert_eq!(stdin, PAYLOAD, "{args:?}");
    }
}

#[test]
fn a_damaged_record_is_said_and_the_event_decided_without_the_daemon() {
    let bin = Bin::new(true);
    let (_keep, project) = project();
    let state = tempfile::tempdir().unwrap();
    // Where the record of this project's daemon would be.
    let key = {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(project.as_os_str().as_encoded_bytes());
        digest[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let daemons = state.path().join("hookrail").join("daemons");
    std::fs::create_dir_all(&daemons).unwrap();
    std::fs::write(daemons.join(format!("{key}.json")), "{not json").unwrap();
    let out = bin.run(
        &["--project", project.to_str().unwrap()],
        state.path(),
        PAYLOAD,
    );
    assert_eq!(out.status.code(), Some(7));
    let (args, stdin) = bin.got();
    assert_eq!(
        &args[..4],
        [
            "claude",
            "--project",
            project.to_str().unwrap(),
            "--no-daemon"
        ]
    );
    assert_eq!(args[4], "--daemon-note");
    assert!(
        args[5].contains("ignoring the daemon record")
            && args[5].ends_with("; decided in this process"),
        "{args:?}"
    );
    assert_eq!(stdin, PAYLOAD);
}

#[test]
fn without_hooks_beside_it_nothing_decides_and_it_blocks() {
    let bin = Bin::new(false);
    let state = tempfile::tempdir().unwrap();
    let out = bin.run(&[], state.path(), PAYLOAD);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not beside it") && stderr.contains("blocked"),
        "{stderr}"
    );
}
