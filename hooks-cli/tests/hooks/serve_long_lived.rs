//! What only a long-lived `hooks serve` does, through the real binary: policy state that
//! survives a restart (and a SIGKILL, once saved), and OpenTelemetry export flushed at stop.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;

use common::Project;
use common::daemon::*;
use serde_json::json;

/// The path and body of each request a receiver got.
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<u8>)>>>;

/// A stand-in OTLP/HTTP receiver: records the path and body of every POST and answers an
/// empty (valid) protobuf response.
fn otlp_receiver() -> (std::net::SocketAddr, Received) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let record = std::sync::Arc::clone(&record);
            std::thread::spawn(move || {
                let mut writer = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                loop {
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = request_line.split(' ').nth(1).unwrap_or("").to_owned();
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        reader.read_line(&mut line).unwrap();
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap();
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    record.lock().unwrap().push((path, body));
                    writer
                        .write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n",
                        )
                        .unwrap();
                }
            });
        }
    });
    (addr, seen)
}

#[test]
fn hook_runs_are_exported_over_otlp_and_flushed_at_sigterm() {
    let project = Project::new();
    let (receiver, seen) = otlp_receiver();
    let endpoint = format!("http://{receiver}");
    let mut command = serve_command(&project, &["--otlp-endpoint", &endpoint]);
    command.env_remove("OTEL_SERVICE_NAME");
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines.next().expect("exited before listening").unwrap();
        if let Some(addr) = line.strip_prefix("hooks serve: listening on http://") {
            break addr.parse().unwrap();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let daemon = Daemon { child, addr };
    let (status, answer) =
        daemon.post("/claude", bash(&project, "rm -rf /").to_string().as_bytes());
    assert_eq!(status, 200);
    assert_eq!(decision(Some(0), &answer), "block");
    let mut daemon = daemon;
    assert_eq!(stop(&mut daemon, 15), Some(0));
    let seen = seen.lock().unwrap();
    let has = |path: &str, needle: &[u8]| {
        seen.iter()
            .any(|(p, body)| p == path && body.windows(needle.len()).any(|w| w == needle))
    };
    let paths: Vec<&str> = seen.iter().map(|(p, _)| p.as_str()).collect();
    // Protobuf carries strings as raw bytes: the span of the guard that denied, its verdict
    // and the daemon's resource.
    assert!(
        has("/v1/traces", b"pre_tool_use builtin.command_guard"),
        "{paths:?}"
    );
    assert!(has("/v1/traces", b"hooks-serve"), "service.name: {paths:?}");
    assert!(has("/v1/traces", b"hookrail.project"), "{paths:?}");
    assert!(has("/v1/metrics", b"hook.denials"), "{paths:?}");
}

#[test]
fn a_bad_otlp_endpoint_is_refused_at_start() {
    let project = Project::new();
    let out = serve_command(&project, &["--otlp-endpoint", "not a url"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("OpenTelemetry export to not a url cannot start"),
        "{stderr}"
    );
}

/// `hooks serve` with a rate limit of one tool call per 10 minutes per session.
fn limited_project() -> Project {
    let project = Project::new();
    project.write(
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  command_guard:\n  rate_limit:\n    tool_calls:\n      - { calls: 1, window_ms: 600000, key: [session] }\nhooks: []\n",
    );
    project
}

fn read_call(project: &Project, session: &str) -> Vec<u8> {
    json!({
        "session_id": session,
        "cwd": project.path(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": { "file_path": "a.txt" },
        "tool_use_id": "toolu_01"
    })
    .to_string()
    .into_bytes()
}

#[test]
fn rate_limit_state_survives_a_restart() {
    let project = limited_project();
    let mut daemon = Daemon::start(&project, &[]);
    let (_, first) = daemon.post("/claude", &read_call(&project, "s1"));
    assert_eq!(decision(Some(0), &first), "pass", "{first}");
    assert_eq!(stop(&mut daemon, 15), Some(0));

    let daemon = Daemon::start(&project, &[]);
    let (_, second) = daemon.post("/claude", &read_call(&project, "s1"));
    assert_eq!(decision(Some(0), &second), "block", "{second}");
    assert!(second.to_string().contains("rate-limit"), "{second}");
    // The limit is per session: another one still has its call.
    let (_, other) = daemon.post("/claude", &read_call(&project, "s2"));
    assert_eq!(decision(Some(0), &other), "pass", "{other}");
}

#[test]
fn state_saved_within_a_second_survives_sigkill() {
    let project = limited_project();
    let mut daemon = Daemon::start(&project, &[]);
    let (_, first) = daemon.post("/claude", &read_call(&project, "s1"));
    assert_eq!(decision(Some(0), &first), "pass", "{first}");
    // The saver writes what changed once a second.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(stop(&mut daemon, 9), None);

    let daemon = Daemon::start(&project, &[]);
    let (_, second) = daemon.post("/claude", &read_call(&project, "s1"));
    assert_eq!(decision(Some(0), &second), "block", "{second}");
}

#[test]
fn a_damaged_state_file_stops_the_start_and_says_where() {
    let project = limited_project();
    let file = project.trust.path().join("policies.db");
    std::fs::write(&file, "not a database, but no one's to overwrite either\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = serve_command(&project, &["--policy-state", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    assert!(stderr.contains("move it aside"), "{stderr}");
    // Nothing was written over it.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "not a database, but no one's to overwrite either\n"
    );
}
