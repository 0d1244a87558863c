//! The adversarial suite: attacks and ordinary inputs with the answers they must get, kept as
//! data in `tests/adversarial/*.toml` (at the repository root) and run through the real `hooks`
//! binary, as an agent CLI would run it.
//!
//! When you fix a hole, add its case. Every case runs in a fresh project directory with its own
//! home directory and approvals file; `ADVERSARIAL_CASE=<part of a name>` runs only matching
//! cases. All cases run and every failure is reported at the end.
//!
//! # Case format
//!
//! ```toml
//! [[case]]
//! name = "nested-empty"                    # unique in its file
//! why = "issue 13.1: an empty AGENT_HOOKS_CLAUDE_NESTED switched every guard off"
//! files = { "hooks.yaml" = "enabled: true\nbuiltin: { command_guard: {} }\n" }
//! env = { AGENT_HOOKS_CLAUDE_NESTED = "" }  # on top of a clean environment
//! before = [["trust", "--approve"]]         # `hooks` commands run first; each must exit 0
//! edit = { "x.sh" = "..." }                 # files written after `before`
//! args = ["claude"]                         # the command under test (default: claude)
//! payload = { hook_event_name = "PreToolUse", tool_name = "Bash", tool_input = { command = "rm -rf /" } }
//! expect = "deny"
//! says = ["rm-root"]                        # each must appear in stdout or stderr
//! absent = ["ran-edited"]                   # files that must not exist afterwards
//! settle_ms = 1500                          # wait before checking `absent` / `present`
//! cwd = "elsewhere"                         # where commands run (default: the project)
//! ```
//!
//! - `payload` is sent as JSON on stdin; `session_id` (`adversarial-<name>`) and `cwd` (the
//!   project) are filled in when absent. `stdin` sends raw text instead; `stdin_hold = true`
//!   keeps stdin open until the command exits (it must not wait for it); `stdin_size` sends
//!   that many bytes of a JSON string.
//! - `expect` for `hooks claude`: `deny` (the call is stopped: `permissionDecision: deny`,
//!   `decision: block`, `continue: false`, or exit 2), `ask`, `allow` (`permissionDecision:
//!   allow`), `pass` (exit 0 and nothing stops or asks), `error` (exit 1: Claude Code proceeds,
//!   so never right at a point that can block). For other commands: `ok` (exit 0) or `fail`
//!   (any other exit). `exit` pins the exact exit code.
//! - Strings in `files`, `edit`, `env`, `args`, `before`, `payload` and `says` expand `$PROJECT`
//!   (the project directory), `$HOME` (the case's home directory) and `$HOOKS` (the binary).
//! - `*.sh` and `*.py` files are made executable.
//!
//! # Cases against a running daemon
//!
//! ```toml
//! serve = ["--max-payload", "1MiB"]          # start `hooks serve` for the project first
//! serve_env = { HOOKS_DISABLE = "builtin.command_guard" }  # the daemon's own environment
//! via = "http"                              # POST the payload to its /claude (default: run `args`)
//! token = ""                                # http: the bearer token sent ("" = none; default: the daemon's)
//! earlier = [{ hook_event_name = "PreToolUse", tool_name = "Read", tool_input = { file_path = "a" } }]
//! restart = true                            # stop (SIGTERM) and start the daemon again after `earlier`
//! reload_ms = 1500                          # wait after `edit` (the daemon reloads its files)
//! ```
//!
//! With `serve`, the daemon runs after `before` and before `edit`, with the case's
//! environment, its home directory's state directory (the token file is made there on first
//! start, and `hooks claude` finds the daemon there) and `serve_env` on top. `earlier`
//! payloads go the same way as the main one first (their answers are not checked). Over
//! `http`, a status-200 answer is read as `hooks claude`'s stdout with exit 0; `expect =
//! "unauthorized"` wants status 401; `says` also searches the daemon's stderr.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    #[serde(default)]
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    why: String,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    before: Vec<Vec<String>>,
    #[serde(default)]
    edit: BTreeMap<String, String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    payload: Option<toml::Value>,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    stdin_hold: bool,
    #[serde(default)]
    stdin_size: Option<usize>,
    expect: Expect,
    #[serde(default)]
    exit: Option<i32>,
    #[serde(default)]
    says: Vec<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    present: Vec<String>,
    #[serde(default)]
    timeout_s: Option<u64>,
    #[serde(default)]
    settle_ms: Option<u64>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    serve: Option<Vec<String>>,
    #[serde(default)]
    serve_env: BTreeMap<String, String>,
    #[serde(default)]
    via: Via,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    earlier: Vec<toml::Value>,
    #[serde(default)]
    restart: bool,
    #[serde(default)]
    reload_ms: Option<u64>,
}

/// How the payload reaches a decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Via {
    /// The command of `args` (default `hooks claude`), payload on stdin.
    #[default]
    Command,
    /// `POST /claude` to the case's daemon.
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Deny,
    Ask,
    Allow,
    Pass,
    Error,
    Ok,
    Fail,
    /// Over `http`: status 401.
    Unauthorized,
}

/// What `hooks claude` answered, as Claude Code reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Stopped,
    Asked,
    Allowed,
    Passed,
    Errored,
}

fn answer_of(code: Option<i32>, stdout: &str) -> Answer {
    match code {
        Some(2) => return Answer::Stopped,
        Some(0) => {}
        _ => return Answer::Errored,
    }
    let Ok(json) = serde_json::from_str::<Value>(stdout.trim()) else {
        // Plain text on exit 0 is context, never a decision.
        return Answer::Passed;
    };
    let specific = &json["hookSpecificOutput"];
    let decision = specific["permissionDecision"]
        .as_str()
        .or_else(|| specific["decision"]["behavior"].as_str());
    if json["continue"] == Value::Bool(false)
        || json["decision"] == "block"
        || decision == Some("deny")
    {
        Answer::Stopped
    } else if decision == Some("ask") {
        Answer::Asked
    } else if decision == Some("allow") {
        Answer::Allowed
    } else {
        Answer::Passed
    }
}

fn expected(expect: Expect, code: Option<i32>, stdout: &str) -> Result<(), String> {
    let answer = answer_of(code, stdout);
    let fits = match expect {
        Expect::Deny => answer == Answer::Stopped,
        Expect::Ask => answer == Answer::Asked,
        Expect::Allow => answer == Answer::Allowed,
        Expect::Pass => answer == Answer::Passed,
        Expect::Error => answer == Answer::Errored,
        Expect::Ok => code == Some(0),
        Expect::Fail => code.is_some_and(|c| c != 0),
        Expect::Unauthorized => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "expected {expect:?}, got {answer:?} (exit {code:?})"
        ))
    }
}

struct Sandbox {
    _root: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("a temporary directory");
        let project = root.path().join("project");
        let home = root.path().join("home");
        std::fs::create_dir_all(&project).expect("project dir");
        std::fs::create_dir_all(home.join(".config")).expect("home dir");
        // Canonical paths: the binary resolves symbolic links (macOS /tmp, for one).
        let project = project.canonicalize().expect("project path");
        let home = home.canonicalize().expect("home path");
        Sandbox {
            _root: root,
            project,
            home,
        }
    }

    fn expand(&self, text: &str) -> String {
        text.replace("$PROJECT", &self.project.to_string_lossy())
            .replace("$HOME", &self.home.to_string_lossy())
            .replace("$HOOKS", env!("CARGO_BIN_EXE_hooks"))
    }

    fn expand_json(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.expand(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.expand_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, self.expand_json(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    fn write(&self, files: &BTreeMap<String, String>) -> Result<(), String> {
        for (name, text) in files {
            let path = self.project.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("{name}: {e}"))?;
            }
            std::fs::write(&path, self.expand(text)).map_err(|e| format!("{name}: {e}"))?;
            if name.ends_with(".sh") || name.ends_with(".py") {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| format!("{name}: {e}"))?;
            }
        }
        Ok(())
    }

    fn command(
        &self,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&str>,
    ) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hooks"));
        let dir = cwd.map_or_else(|| self.project.clone(), |d| self.project.join(d));
        let _ = std::fs::create_dir_all(&dir);
        cmd.args(args.iter().map(|a| self.expand(a)))
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("HOOKS_TRUST_FILE", self.home.join("trust.json"))
            .env("LANG", "C.UTF-8");
        for (name, value) in env {
            cmd.env(name, self.expand(value));
        }
        cmd
    }
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` with `stdin`, killing it after `limit`.
fn run(mut cmd: Command, stdin: Vec<u8>, hold: bool, limit: Duration) -> Result<Ran, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start hooks: {e}"))?;
    let mut input = child.stdin.take();
    let writer = {
        let mut pipe = input.take().expect("stdin is piped");
        std::thread::spawn(move || {
            // A command that refuses a large payload may close its stdin early: not an error.
            let _ = pipe.write_all(&stdin);
            if hold { Some(pipe) } else { None }
        })
    };
    let pipe = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = pipe(Box::new(child.stdout.take().expect("stdout is piped")));
    let err = pipe(Box::new(child.stderr.take().expect("stderr is piped")));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {} s: killed", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    // Held stdin is closed only now that the command has answered.
    drop(writer.join());
    Ok(Ran {
        code: status.code(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// A case's `hooks serve`, killed on drop.
struct Served {
    child: std::process::Child,
    addr: std::net::SocketAddr,
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Served {
    fn start(sandbox: &Sandbox, case: &Case) -> Result<Served, String> {
        let mut args: Vec<String> = ["serve", "--listen", "127.0.0.1:0", "--project", "$PROJECT"]
            .map(String::from)
            .to_vec();
        args.extend(case.serve.clone().unwrap_or_default());
        let mut env = case.env.clone();
        env.extend(case.serve_env.clone());
        let mut child = sandbox
            .command(&args, &env, None)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start hooks serve: {e}"))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (found, listening) = std::sync::mpsc::channel();
        let lines = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix("hooks serve: listening on http://") {
                    let _ = found.send(addr.to_owned());
                }
                let mut log = lines
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = match listening.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => addr.parse().map_err(|e| format!("{addr}: {e}"))?,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "hooks serve did not listen:\n{}",
                    log.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                ));
            }
        };
        Ok(Served { child, addr, log })
    }

    /// SIGTERM, then waits for a clean exit.
    fn stop(mut self) -> Result<(), String> {
        let pid = i32::try_from(self.child.id()).map_err(|e| e.to_string())?;
        // SAFETY: a plain kill(2) of our own child.
        if unsafe { kill(pid, 15) } != 0 {
            return Err("cannot signal the daemon".into());
        }
        let status = self.child.wait().map_err(|e| e.to_string())?;
        if status.code() != Some(0) {
            return Err(format!("the daemon stopped with {status}"));
        }
        Ok(())
    }

    /// Whether the daemon's log says `text` within `patience`.
    fn logs(&self, text: &str, patience: Duration) -> bool {
        let deadline = std::time::Instant::now() + patience;
        loop {
            if self.log().contains(text) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// `POST /claude` on its own connection: the status and the body.
    fn post(&self, token: Option<&str>, body: &[u8]) -> Result<(u16, String), String> {
        let mut stream =
            std::net::TcpStream::connect(self.addr).map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let mut head = format!(
            "POST /claude HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        // A daemon that refuses a large body early may close the connection: read what came.
        let _ = stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body));
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .map_err(|e| format!("read: {e}"))?;
        let text = String::from_utf8_lossy(&response);
        let (head, body) = text
            .split_once("\r\n\r\n")
            .ok_or_else(|| format!("not an HTTP response: {text}"))?;
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status: {head}"))?;
        Ok((status, body.to_owned()))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

unsafe extern "C" {
    fn kill(pid: i32, signal: i32) -> i32;
}

/// The bytes a case sends: `payload` as JSON (with `session_id` and `cwd` filled in), raw
/// `stdin`, or `stdin_size` bytes of a JSON string.
fn input_of(
    sandbox: &Sandbox,
    case: &Case,
    payload: Option<&toml::Value>,
) -> Result<Vec<u8>, String> {
    Ok(match (payload, &case.stdin, case.stdin_size) {
        (Some(payload), None, None) => {
            let mut json = sandbox
                .expand_json(serde_json::to_value(payload).map_err(|e| format!("payload: {e}"))?);
            if let Value::Object(map) = &mut json {
                map.entry("session_id")
                    .or_insert_with(|| Value::String(format!("adversarial-{}", case.name)));
                map.entry("cwd").or_insert_with(|| {
                    Value::String(sandbox.project.to_string_lossy().into_owned())
                });
            }
            serde_json::to_vec(&json).map_err(|e| format!("payload: {e}"))?
        }
        (None, Some(text), None) => sandbox.expand(text).into_bytes(),
        (None, None, Some(size)) => {
            let mut bytes = Vec::with_capacity(size);
            bytes.push(b'"');
            bytes.resize(size.saturating_sub(1), b'a');
            bytes.push(b'"');
            bytes
        }
        (None, None, None) => Vec::new(),
        _ => return Err("give one of `payload`, `stdin`, `stdin_size`".into()),
    })
}

/// Sends `input` the case's way: an HTTP status (`None` for a command) and what ran.
fn send(
    sandbox: &Sandbox,
    case: &Case,
    daemon: Option<&Served>,
    input: Vec<u8>,
) -> Result<(Option<u16>, Ran), String> {
    match case.via {
        Via::Command => {
            let args = case.args.clone().unwrap_or_else(|| vec!["claude".into()]);
            let limit = Duration::from_secs(case.timeout_s.unwrap_or(30));
            let ran = run(
                sandbox.command(&args, &case.env, case.cwd.as_deref()),
                input,
                case.stdin_hold,
                limit,
            )?;
            Ok((None, ran))
        }
        Via::Http => {
            let daemon = daemon.ok_or("`via = \"http\"` needs `serve`")?;
            let token = match &case.token {
                Some(token) => Some(sandbox.expand(token)),
                None => Some(
                    std::fs::read_to_string(sandbox.home.join(".local/state/hookrail/token"))
                        .map_err(|e| format!("the daemon's token file: {e}"))?
                        .trim()
                        .to_owned(),
                ),
            }
            .filter(|t| !t.is_empty());
            let (status, body) = daemon.post(token.as_deref(), &input)?;
            Ok((
                Some(status),
                Ran {
                    code: Some(0),
                    stdout: body,
                    stderr: daemon.log(),
                },
            ))
        }
    }
}

fn run_case(case: &Case) -> Result<(), String> {
    let sandbox = Sandbox::new();
    sandbox.write(&case.files)?;
    for step in &case.before {
        let ran = run(
            sandbox.command(step, &case.env, case.cwd.as_deref()),
            Vec::new(),
            false,
            Duration::from_secs(60),
        )?;
        if ran.code != Some(0) {
            return Err(format!(
                "before step `hooks {}` exited {:?}\nstdout: {}\nstderr: {}",
                step.join(" "),
                ran.code,
                ran.stdout,
                ran.stderr
            ));
        }
    }
    let mut daemon = match &case.serve {
        Some(_) => Some(Served::start(&sandbox, case)?),
        None => None,
    };
    sandbox.write(&case.edit)?;
    if let Some(ms) = case.reload_ms {
        std::thread::sleep(Duration::from_millis(ms));
    }
    for payload in &case.earlier {
        send(
            &sandbox,
            case,
            daemon.as_ref(),
            input_of(&sandbox, case, Some(payload))?,
        )?;
    }
    if case.restart {
        daemon.take().ok_or("`restart` needs `serve`")?.stop()?;
        daemon = Some(Served::start(&sandbox, case)?);
    }
    let input = input_of(&sandbox, case, case.payload.as_ref())?;
    let (status, mut ran) = send(&sandbox, case, daemon.as_ref(), input)?;
    if case.via == Via::Command
        && let Some(daemon) = &daemon
    {
        ran.stderr.push_str(&daemon.log());
    }
    let shown = || {
        format!(
            "\n  status: {status:?}\n  exit: {:?}\n  stdout: {}\n  stderr: {}",
            ran.code,
            ran.stdout.trim(),
            ran.stderr.trim()
        )
    };
    match (case.expect, status) {
        (Expect::Unauthorized, Some(401)) => {}
        (Expect::Unauthorized, _) => return Err(format!("expected status 401{}", shown())),
        (_, Some(status)) if status != 200 => {
            return Err(format!("expected status 200{}", shown()));
        }
        (expect, _) => {
            expected(expect, ran.code, &ran.stdout).map_err(|e| format!("{e}{}", shown()))?;
        }
    }
    if let Some(code) = case.exit
        && ran.code != Some(code)
    {
        return Err(format!("expected exit {code}{}", shown()));
    }
    for text in &case.says {
        let text = sandbox.expand(text);
        // The daemon logs from its own threads; a line written before the answer may still be in
        // the pipe when the answer arrives, so its log is waited for, not sampled once.
        let logged = || {
            daemon
                .as_ref()
                .is_some_and(|d| d.logs(&text, Duration::from_secs(10)))
        };
        if !ran.stdout.contains(&text) && !ran.stderr.contains(&text) && !logged() {
            return Err(format!("the output does not say {text:?}{}", shown()));
        }
    }
    // Something the command left behind (a daemon a hook started) gets time to act.
    if let Some(ms) = case.settle_ms {
        std::thread::sleep(Duration::from_millis(ms));
    }
    for name in &case.absent {
        if sandbox.project.join(name).exists() {
            return Err(format!(
                "{name} exists: something ran that must not{}",
                shown()
            ));
        }
    }
    for name in &case.present {
        if !sandbox.project.join(name).exists() {
            return Err(format!(
                "{name} is missing: something did not run{}",
                shown()
            ));
        }
    }
    Ok(())
}

fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/adversarial");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn adversarial_cases_get_their_expected_answers() {
    let only = std::env::var("ADVERSARIAL_CASE").ok();
    let mut failures = Vec::new();
    let (mut ran, mut names) = (0, std::collections::HashSet::new());
    for file in case_files() {
        let text = std::fs::read_to_string(&file).expect("a case file");
        let cases: CaseFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        for case in &cases.case {
            let id = format!("{}/{}", stem.as_deref().unwrap_or("?"), case.name);
            assert!(names.insert(id.clone()), "two cases are named {id}");
            assert!(!case.why.trim().is_empty(), "{id}: say why the case exists");
            if only.as_deref().is_some_and(|o| !id.contains(o)) {
                continue;
            }
            ran += 1;
            if let Err(e) = run_case(case) {
                failures.push(format!("{id} ({}): {e}", case.why));
            }
        }
    }
    eprintln!(
        "adversarial: {} passed, {} failed",
        ran - failures.len(),
        failures.len()
    );
    assert!(ran > 0 || only.is_some(), "no adversarial case found");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
