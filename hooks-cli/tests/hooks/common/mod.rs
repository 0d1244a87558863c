//! The temporary project that the `hooks` binary tests run in, shared by the modules of this
//! test binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use hookrail_cli::nested::NESTED_ENV;

pub mod daemon;

/// The binary under test.
pub const EXE: &str = env!("CARGO_BIN_EXE_hooks");

/// A project directory and an approvals file of its own, both removed on drop.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub trust: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        Project {
            dir: tempfile::tempdir().unwrap(),
            trust: tempfile::tempdir().unwrap(),
        }
    }

    /// A project directory created in `parent`.
    pub fn new_in(parent: &str) -> Self {
        Project {
            dir: tempfile::tempdir_in(parent).unwrap(),
            trust: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, name: &str, text: &str) {
        let path = self.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        if name.ends_with(".sh") {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    pub fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        self.command_of(EXE, args, env)
    }

    /// [`Project::command`] for another program (`hooks-forward`).
    pub fn command_of(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.path())
            .env("HOOKS_TRUST_FILE", self.trust.path().join("trust.json"))
            // The user layer of extension files: the test's own, never the machine's.
            .env("XDG_CONFIG_HOME", self.trust.path().join("config"))
            .env_remove("CLAUDE_PROJECT_DIR")
            // Set by Claude Code for some events' hooks: a test sets its own when it needs one.
            .env_remove("CLAUDE_ENV_FILE")
            .env_remove("RUST_LOG")
            .env_remove(NESTED_ENV)
            .env_remove("HOOKS_MAX_PAYLOAD")
            .env_remove("HOOKS_PAYLOAD_TIMEOUT")
            .env_remove("HOOKS_WEBHOOK_FLUSH")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }

    /// Runs `hooks` with `stdin` written from a thread (so that a payload larger than the pipe
    /// cannot block the test when the binary stops reading) and closed.
    pub fn hooks(&self, args: &[&str], env: &[(&str, &str)], stdin: impl AsRef<[u8]>) -> Output {
        run(self.command(args, env), stdin)
    }

    pub fn approve(&self, settings: &str) {
        let out = self.hooks(&["trust", "--approve", "--settings", settings], &[], "");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("approved"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Runs `command` with `stdin` written from a thread (so that a payload larger than the pipe
/// cannot block the test when the program stops reading) and closed.
pub fn run(mut command: Command, stdin: impl AsRef<[u8]>) -> Output {
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.as_ref().to_vec();
    let writer = std::thread::spawn(move || {
        // The program may refuse before reading it all: a broken pipe is expected then.
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
