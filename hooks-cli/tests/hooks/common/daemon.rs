//! A `hooks serve` daemon for the tests, and a plain HTTP/1.1 client for them (std sockets:
//! the tests also send what no well-behaved client would).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::{EXE, Project};

pub const TOKEN: &str = "test-token-0123456789abcdef";

/// A running daemon, killed on drop.
pub struct Daemon {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Daemon {
    pub fn start(project: &Project, args: &[&str]) -> Daemon {
        Daemon::start_with_env(project, args, &[])
    }

    /// [`Daemon::start`] with `env` in the daemon's environment.
    pub fn start_with_env(project: &Project, args: &[&str], env: &[(&str, &str)]) -> Daemon {
        let mut command = serve_command(project, args);
        command.envs(env.iter().copied());
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("hooks serve exited before listening")
                .unwrap();
            if let Some(addr) = line.strip_prefix("hooks serve: listening on http://") {
                break addr.parse().unwrap();
            }
        };
        // Keep draining stderr so the daemon never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Daemon { child, addr }
    }

    pub fn post(&self, path: &str, body: &[u8]) -> (u16, Value) {
        request(self.addr, "POST", path, Some(TOKEN), body)
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        request(self.addr, "GET", path, Some(TOKEN), b"")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve_command(project: &Project, args: &[&str]) -> Command {
    let mut command = Command::new(EXE);
    command
        .arg("serve")
        .args(["--listen", "127.0.0.1:0", "--project"])
        .arg(project.path())
        .args(args)
        .current_dir(project.path())
        .env("HOOKS_TOKEN", TOKEN)
        .env("HOOKS_TRUST_FILE", project.trust.path().join("trust.json"))
        .env("XDG_STATE_HOME", state_home(project))
        .env("XDG_CONFIG_HOME", project.trust.path().join("config"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_ENV_FILE")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// The state directory of a test's daemons and clients (never the user's own).
pub fn state_home(project: &Project) -> std::path::PathBuf {
    project.trust.path().join("state")
}

/// `hooks claude` for `project`, finding the test's daemons.
pub fn claude(project: &Project, args: &[&str], payload: &[u8]) -> std::process::Output {
    claude_with_env(project, args, &[], payload)
}

/// [`claude`] with `env` in its environment too.
pub fn claude_with_env(
    project: &Project,
    args: &[&str],
    env: &[(&str, &str)],
    payload: &[u8],
) -> std::process::Output {
    let state = state_home(project);
    let mut all = vec!["claude", "--project", project.path().to_str().unwrap()];
    all.extend(args);
    project.hooks(&all, &client_env(&state, env), payload)
}

/// The environment of a client of the test's daemons (their state directory `state`, their
/// token), then `env`.
pub fn client_env<'a>(
    state: &'a std::path::Path,
    env: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut vars = vec![
        ("XDG_STATE_HOME", state.to_str().unwrap()),
        ("HOOKS_TOKEN", TOKEN),
    ];
    vars.extend(env);
    vars
}

/// One request on its own connection (`Connection: close`).
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write_request(&mut stream, method, path, token, body, true);
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    parse_response(&response)
}

pub fn write_request(
    stream: &mut impl Write,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
    close: bool,
) {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(token) = token {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
}

/// The status and the JSON body of a whole response.
pub fn parse_response(response: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(response);
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
    };
    (status, body)
}

/// Reads one response with a `Content-Length` from a kept-alive connection.
pub fn read_one(reader: &mut BufReader<TcpStream>) -> (u16, Value) {
    let mut head = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line).unwrap();
        assert!(read > 0, "the connection closed before a whole response");
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
        head.extend_from_slice(line.as_bytes());
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    head.extend_from_slice(&body);
    parse_response(&head)
}

pub fn bash(project: &Project, command: &str) -> Value {
    json!({
        "session_id": "s1",
        "transcript_path": "/dev/null",
        "cwd": project.path(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command },
        "tool_use_id": "toolu_01"
    })
}

/// What a `hooks claude` run decided.
pub fn decided(out: &std::process::Output) -> &'static str {
    let stdout = super::stdout(out);
    let answer: Value = if stdout.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(stdout.trim()).unwrap()
    };
    decision(out.status.code(), &answer)
}

/// What an answer decides: `block`, `ask`, `allow` or `pass`.
pub fn decision(code: Option<i32>, answer: &Value) -> &'static str {
    if code == Some(2)
        || answer["decision"] == "block"
        || answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    {
        "block"
    } else if answer["hookSpecificOutput"]["permissionDecision"] == "ask" {
        "ask"
    } else if answer["hookSpecificOutput"]["permissionDecision"] == "allow" {
        "allow"
    } else {
        "pass"
    }
}

/// Sends `signal` to the daemon and waits for it (a minute at most): its exit code (`None` when a
/// signal ended it).
pub fn stop(daemon: &mut Daemon, signal: i32) -> Option<i32> {
    stop_within(
        daemon,
        signal,
        std::time::Duration::from_secs(60),
        &format!("the daemon did not exit within 60 s of signal {signal}"),
    )
    .code()
}

/// Sends `signal` to the daemon and waits at most `patience` for it to exit: its exit status.
/// Panics, saying `what`, when it is still running then (a test must not hang on it).
pub fn stop_within(
    daemon: &mut Daemon,
    signal: i32,
    patience: std::time::Duration,
    what: &str,
) -> std::process::ExitStatus {
    let pid = i32::try_from(daemon.child.id()).unwrap();
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc_kill(pid, signal) }, 0);
    let deadline = std::time::Instant::now() + patience;
    loop {
        if let Some(status) = daemon.child.try_wait().unwrap() {
            return status;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

unsafe extern "C" {
    #[link_name = "kill"]
    pub fn libc_kill(pid: i32, signal: i32) -> i32;
}
