//! `hooks claude` as Claude Code runs it: one process per event, the payload on stdin.
//!
//! Group `claude_hook`, each iteration one whole event (spawn, stdin, wait):
//!
//! - `by_hand/sh`, `by_hand/py`: what Claude Code does without us: `sh -c ./trivial.sh` (or
//!   `python3 ./trivial.py`), the payload on stdin. The baseline.
//! - `hooks_claude/sh`, `hooks_claude/py`: `hooks claude --settings …` whose settings hold
//!   that same one command hook: our process, which loads the config, checks the approval
//!   (hashing the script), runs the hook and answers.
//! - `hooks_claude/compiled_only`: `hooks claude` with the builtin command guard on and no
//!   command hook: no process is spawned beyond `hooks` itself.
//! - `floor/hooks_version`: `hooks --version`, the cost of starting our binary at all.
//!
//! The `hooks_claude/*` runs also have the project's `builtin:` command guard on.
//!
//! Run: `cargo bench -p hookrail-cli --bench claude` (figures of record in BENCHMARKS.md).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

const PAYLOAD: &str = r#"{"session_id":"bench","cwd":"CWD","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test"}}"#;

/// Runs `cmd` with `payload` on stdin and waits; panics unless it exits 0.
fn run(cmd: &mut Command, payload: &str) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("write");
    assert!(child.wait().expect("wait").success());
}

fn write(dir: &Path, name: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn bench(c: &mut Criterion) {
    let hooks = env!("CARGO_BIN_EXE_hooks");
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("trust.json");
    let p = dir.path();
    write(p, "trivial.sh", "#!/bin/sh\ncat > /dev/null\n");
    write(p, "trivial.py", "import json, sys\njson.load(sys.stdin)\n");
    write(
        p,
        "sh.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./trivial.sh"}]}]}}"#,
    );
    write(
        p,
        "py.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ./trivial.py"}]}]}}"#,
    );
    write(
        p,
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  command_guard: {}\n",
    );
    let payload = PAYLOAD.replace("CWD", p.to_str().unwrap());
    let cli = |args: &[&str]| {
        let mut cmd = Command::new(hooks);
        cmd.args(args)
            .current_dir(p)
            .env("HOOKS_TRUST_FILE", &trust)
            .env_remove("CLAUDE_PROJECT_DIR");
        cmd
    };
    for settings in ["sh.json", "py.json"] {
        let out = cli(&["trust", "--approve", "--settings", settings])
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).contains("approved 1"));
    }

    let mut group = c.benchmark_group("claude_hook");
    group
        .sample_size(60)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("by_hand/sh", |b| {
        b.iter(|| {
            run(
                Command::new("sh")
                    .args(["-c", "./trivial.sh"])
                    .current_dir(p),
                &payload,
            )
        })
    });
    group.bench_function("hooks_claude/sh", |b| {
        b.iter(|| run(&mut cli(&["claude", "--settings", "sh.json"]), &payload))
    });
    group.bench_function("by_hand/py", |b| {
        b.iter(|| {
            run(
                Command::new("sh")
                    .args(["-c", "python3 ./trivial.py"])
                    .current_dir(p),
                &payload,
            )
        })
    });
    group.bench_function("hooks_claude/py", |b| {
        b.iter(|| run(&mut cli(&["claude", "--settings", "py.json"]), &payload))
    });
    group.bench_function("floor/hooks_version", |b| {
        b.iter(|| run(&mut cli(&["--version"]), ""))
    });
    group.bench_function("hooks_claude/compiled_only", |b| {
        b.iter(|| run(&mut cli(&["claude"]), &payload))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
