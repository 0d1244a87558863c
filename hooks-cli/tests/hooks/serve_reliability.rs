//! `hooks serve` under misbehaving clients and changing configuration: a client that hangs up
//! mid-request, slow senders, a flood of malformed payloads, edits during load and a hung
//! command hook. Each bounded in count and time, on loopback only.

use crate::common;

use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Project;
use common::daemon::*;
use serde_json::{Value, json};

#[test]
fn a_client_that_hangs_up_mid_request_costs_nothing() {
    let project = Project::new();
    let daemon = Daemon::start(&project, &[]);
    for _ in 0..50 {
        let mut stream = TcpStream::connect(daemon.addr).unwrap();
        let head = format!(
            "POST /claude HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 5000\r\n\r\n{{\"hook_event_name\": \"PreToolUse\""
        );
        stream.write_all(head.as_bytes()).unwrap();
        drop(stream);
    }
    let (status, body) = daemon.post("/claude", bash(&project, "rm -rf /").to_string().as_bytes());
    assert_eq!(status, 200);
    assert_eq!(decision(None, &body), "block");
    let (_, health) = daemon.get("/health");
    assert_eq!(health["ready"], true);
}

#[test]
fn slow_senders_are_cut_off_and_others_are_served_meanwhile() {
    let project = Project::new();
    let daemon = Daemon::start(&project, &["--header-timeout", "500ms"]);
    let cut = Arc::new(AtomicUsize::new(0));
    let slow: Vec<_> = (0..20)
        .map(|_| {
            let addr = daemon.addr;
            let cut = Arc::clone(&cut);
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(addr).unwrap();
                let started = Instant::now();
                // One header byte every 100 ms, for at most 10 s.
                for byte in b"POST /claude HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
                    if stream.write_all(&[*byte]).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    if started.elapsed() > Duration::from_secs(10) {
                        return;
                    }
                }
                // The daemon closed the connection (a read sees its end or a timeout answer).
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut rest = Vec::new();
                if stream.read_to_end(&mut rest).is_ok() {
                    cut.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    // Meanwhile, a well-behaved client is answered promptly.
    for _ in 0..10 {
        let started = Instant::now();
        let (status, body) =
            daemon.post("/claude", bash(&project, "rm -rf /").to_string().as_bytes());
        assert_eq!(status, 200);
        assert_eq!(decision(None, &body), "block");
        assert!(started.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(50));
    }
    for thread in slow {
        thread.join().unwrap();
    }
    assert_eq!(
        cut.load(Ordering::SeqCst),
        20,
        "every slow sender was cut off"
    );
}

#[test]
fn slow_and_silent_clients_do_not_hold_the_shutdown_open() {
    let project = Project::new();
    let mut daemon = Daemon::start(&project, &["--header-timeout", "500ms"]);
    // Half a request's headers, then nothing; and a connection that never sends a byte
    // (hyper's graceful shutdown waits for both: only the header timeout ends them).
    let mut slow = TcpStream::connect(daemon.addr).unwrap();
    slow.write_all(b"POST /claude HTTP/1.1\r\nHost: local")
        .unwrap();
    let _silent = TcpStream::connect(daemon.addr).unwrap();
    let (status, _) = daemon.get("/health");
    assert_eq!(status, 200);
    // Generous: the clients are cut off within a second; a daemon still running after this
    // waits for them.
    let exited = stop_within(
        &mut daemon,
        15,
        Duration::from_secs(30),
        "the daemon did not stop within 30 s of SIGTERM with a slow client connected",
    );
    assert_eq!(exited.code(), Some(0));
}

#[test]
fn ten_thousand_malformed_payloads_are_each_blocked() {
    let project = Project::new();
    let daemon = Daemon::start(&project, &[]);
    let bodies: [&[u8]; 5] = [
        b"{not json",
        b"",
        b"[1, 2, 3]",
        br#"{"hook_event_name": 42}"#,
        br#"{"hook_event_name": "PreToolUse", "hook_event_name": "Notification"}"#,
    ];
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let addr = daemon.addr;
            std::thread::spawn(move || {
                let stream = TcpStream::connect(addr).unwrap();
                stream.set_nodelay(true).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(30)))
                    .unwrap();
                let mut writer = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                let mut blocked = 0;
                for n in 0..2_500 {
                    let body = bodies[(t + n) % bodies.len()];
                    write_request(&mut writer, "POST", "/claude", Some(TOKEN), body, false);
                    let (status, answer) = read_one(&mut reader);
                    assert_eq!(status, 200, "{answer}");
                    if decision(None, &answer) == "block" {
                        blocked += 1;
                    }
                }
                blocked
            })
        })
        .collect();
    let blocked: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(blocked, 10_000);
    let (_, health) = daemon.get("/health");
    assert_eq!(health["requests"], 10_000);
    assert_eq!(health["refused"], 10_000);
    // Still deciding.
    let (_, body) = daemon.post("/claude", bash(&project, "ls").to_string().as_bytes());
    assert_eq!(decision(None, &body), "pass");
}

#[test]
fn an_edit_during_load_never_shows_a_half_loaded_set() {
    let project = Project::new();
    let file = |id: &str| {
        format!(
            "enabled: true\non_unapproved: skip\nhooks:\n  - id: {id}\n    event_type: UserPromptSubmit\n    handler:\n      command: ./{id}.sh\n  - id: {id}-too\n    event_type: UserPromptSubmit\n    handler:\n      command: ./{id}-too.sh\n"
        )
    };
    project.write("hooks.yaml", &file("alpha"));
    let daemon = Daemon::start(&project, &[]);
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let load: Vec<_> = (0..2)
        .map(|_| {
            let addr = daemon.addr;
            let stop = Arc::clone(&stop);
            let seen = Arc::clone(&seen);
            let payload = json!({
                "session_id": "s1",
                "cwd": project.path(),
                "hook_event_name": "UserPromptSubmit",
                "prompt": "hello"
            })
            .to_string();
            std::thread::spawn(move || {
                let mut answered = 0;
                while !stop.load(Ordering::SeqCst) && answered < 2_000 {
                    let (status, body) =
                        request(addr, "POST", "/claude", Some(TOKEN), payload.as_bytes());
                    assert_eq!(status, 200, "{body}");
                    let message = body["systemMessage"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    let alpha = message.contains("`alpha`") && message.contains("`alpha-too`");
                    let beta = message.contains("`beta`") && message.contains("`beta-too`");
                    assert!(alpha != beta, "one whole set, never a mix: {message}");
                    seen.lock().unwrap().push(alpha);
                    answered += 1;
                }
            })
        })
        .collect();
    for round in 0..10 {
        std::thread::sleep(Duration::from_millis(300));
        // Saved as editors save: a new file renamed over the old one. (A file truncated and
        // then written is empty for a moment; the daemon rejects that moment's reload and
        // blocks until the next, which is hooks-config's tests/reload.rs.)
        let next = project.path().join("hooks.yaml.tmp~");
        std::fs::write(&next, file(if round % 2 == 0 { "beta" } else { "alpha" })).unwrap();
        std::fs::rename(&next, project.path().join("hooks.yaml")).unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::SeqCst);
    for thread in load {
        thread.join().unwrap();
    }
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().any(|a| *a) && seen.iter().any(|a| !*a),
        "both sets answered"
    );
    let (_, health) = daemon.get("/health");
    assert!(health["generation"].as_u64().unwrap() >= 3, "{health}");
}

#[test]
fn a_hung_command_hook_blocks_only_its_own_request() {
    let project = Project::new();
    project.write(
        "hooks.yaml",
        "enabled: true\nhooks:\n  - id: slow-stop\n    event_type: Stop\n    timeout_ms: 20000\n    handler:\n      command: sleep 15\n",
    );
    let out = project.hooks(&["trust", "--approve"], &[], "");
    assert!(out.status.success(), "{}", common::stderr(&out));
    let daemon = Daemon::start(&project, &[]);
    let addr = daemon.addr;
    let stop_payload = json!({
        "session_id": "s1",
        "cwd": project.path(),
        "hook_event_name": "Stop",
        "stop_hook_active": false
    })
    .to_string();
    let hung = std::thread::spawn(move || {
        let started = Instant::now();
        let (status, _) = request(
            addr,
            "POST",
            "/claude",
            Some(TOKEN),
            stop_payload.as_bytes(),
        );
        (status, started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..20 {
        let started = Instant::now();
        let (status, body) =
            daemon.post("/claude", bash(&project, "rm -rf /").to_string().as_bytes());
        assert_eq!(status, 200);
        assert_eq!(decision(None, &body), "block");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "a tool call waited {:?} behind the hung hook",
            started.elapsed()
        );
    }
    let (status, waited) = hung.join().unwrap();
    assert_eq!(status, 200);
    assert!(
        waited >= Duration::from_secs(10),
        "the Stop hook did run: {waited:?}"
    );
    let _: Value = daemon.get("/health").1;
}

/// "Acknowledged" is defined in the README (`hooks serve`, audit): a record counted in
/// `/health`'s `audit.written` has been committed by the audit's writer. Under load, the
/// highest count seen before a SIGKILL must all be in the database afterwards, and the
/// database must be sound.
#[test]
fn sigkill_during_load_loses_no_acknowledged_audit_record() {
    let project = Project::new();
    let audit = project.trust.path().join("audit.db");
    project.write(
        "hooks.yaml",
        &format!(
            "enabled: true\nbuiltin:\n  command_guard:\n  audit:\n    path: {}\nhooks: []\n",
            audit.display()
        ),
    );
    let mut daemon = Daemon::start(&project, &[]);
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let load: Vec<_> = (0..2)
        .map(|client| {
            let addr = daemon.addr;
            let stop = Arc::clone(&stop);
            let answered = Arc::clone(&answered);
            let project_path = project.path().to_path_buf();
            std::thread::spawn(move || {
                let Ok(stream) = TcpStream::connect(addr) else {
                    return;
                };
                stream.set_nodelay(true).unwrap();
                let mut writer = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                let mut n = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let payload = json!({
                        "session_id": format!("load-{client}"),
                        "cwd": project_path,
                        "hook_event_name": "PreToolUse",
                        "tool_name": "Bash",
                        "tool_input": { "command": if n.is_multiple_of(2) { "ls" } else { "rm -rf /" } },
                        "tool_use_id": format!("toolu_{client}_{n}")
                    })
                    .to_string();
                    n += 1;
                    // The daemon dies mid-request: whatever the client sees then is no answer.
                    let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        write_request(
                            &mut writer,
                            "POST",
                            "/claude",
                            Some(TOKEN),
                            payload.as_bytes(),
                            false,
                        );
                        read_one(&mut reader)
                    }));
                    match sent {
                        Ok((200, _)) => {
                            answered.fetch_add(1, Ordering::SeqCst);
                        }
                        _ => return,
                    }
                }
            })
        })
        .collect();
    let mut acknowledged = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while acknowledged < 300 && Instant::now() < deadline {
        let (status, health) = daemon.get("/health");
        assert_eq!(status, 200);
        acknowledged = acknowledged.max(health["audit"]["written"].as_u64().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(acknowledged > 0, "the audit acknowledged nothing");
    assert_eq!(common::daemon::stop(&mut daemon, 9), None);
    stop.store(true, Ordering::SeqCst);
    for thread in load {
        thread.join().unwrap();
    }
    assert!(answered.load(Ordering::SeqCst) > 0);
    let reader = hookrail_builtin::audit::AuditReader::open(&audit).unwrap();
    assert_eq!(
        reader.check().unwrap(),
        Vec::<String>::new(),
        "a sound database"
    );
    let stored = reader.count().unwrap();
    assert!(
        stored >= acknowledged,
        "{stored} records stored, {acknowledged} acknowledged before the kill"
    );
}
