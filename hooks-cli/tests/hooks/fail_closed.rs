//! Issue 13, the CLI side: nesting never switches a guard off, a missing scripts file is said
//! (and the compiled guards still decide), what is configured but inactive is reported,
//! webhooks are delivered by `hooks claude` and `hooks fire`, stateful policies say their state
//! lasts one event, and bad input has limits. Everything through the real binary.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Output;
use std::sync::mpsc;
use std::time::Duration;

use hookrail_cli::nested::{EventId, NESTED_ENV};
use serde_json::{Value, json};

const GUARDED: &str = "enabled: true\nbuiltin:\n  command_guard: {}\n";

use crate::common;

use common::{EXE, Project, stderr, stdout};

fn answer(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {:?}, stderr {:?}", stdout(o), stderr(o)))
}

fn bash(p: &Project, command: &str) -> String {
    json!({
        "session_id": "s1", "cwd": p.path(), "hook_event_name": "PreToolUse",
        "tool_use_id": "toolu_1", "tool_name": "Bash", "tool_input": {"command": command}
    })
    .to_string()
}

fn decision(o: &Output) -> Value {
    answer(o)["hookSpecificOutput"]["permissionDecision"].clone()
}

fn system_message(o: &Output) -> String {
    answer(o)["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

// ---------------------------------------------------------------------------------------------
// Deliverable 1: nesting
// ---------------------------------------------------------------------------------------------

#[test]
fn a_nested_run_still_denies_with_the_builtin_guards_whatever_the_variable_says() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    let zeros = "0".repeat(32);
    let forged = format!("1:1:{zeros},{}", "f".repeat(32));
    for value in ["", "garbage", "1", forged.as_str(), "1:2:"] {
        let out = p.hooks(&["claude"], &[(NESTED_ENV, value)], bash(&p, "rm -rf /"));
        assert_eq!(out.status.code(), Some(0), "{value:?}: {}", stderr(&out));
        assert_eq!(decision(&out), "deny", "{value:?}: {}", stdout(&out));
    }
    // What does not parse is said, and skips nothing.
    let out = p.hooks(
        &["claude"],
        &[(NESTED_ENV, "garbage")],
        bash(&p, "rm -rf /"),
    );
    assert!(
        system_message(&out).contains("not understood"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_unreadable_variable_skips_no_script() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    p.write(
        "no.sh",
        "#!/bin/sh\necho 'the script says no' >&2\nexit 2\n",
    );
    p.write(
        "scripts.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./no.sh"}]}]}}"#,
    );
    p.approve("scripts.json");
    for value in ["", "garbage", &format!("1:1:{}", "0".repeat(32))] {
        let out = p.hooks(
            &["claude", "--settings", "scripts.json"],
            &[(NESTED_ENV, value)],
            bash(&p, "ls"),
        );
        assert_eq!(decision(&out), "deny", "{value:?}: {}", stderr(&out));
        assert_eq!(
            answer(&out)["hookSpecificOutput"]["permissionDecisionReason"],
            "the script says no",
            "{value:?}"
        );
    }
}

#[test]
fn true_recursion_skips_only_the_recursing_scripts_and_says_so() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    p.write(
        "nested.sh",
        &format!("#!/bin/sh\nexec {EXE} claude --settings loop.json\n"),
    );
    p.write(
        "loop.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "./nested.sh"}]}]}}"#,
    );
    p.approve("loop.json");
    // The outermost run: its script runs `hooks claude` on the same event, which skips the
    // script (recursion) and runs the compiled guard; the run ends, and the deny wins.
    let out = p.hooks(
        &["claude", "--settings", "loop.json"],
        &[],
        bash(&p, "rm -rf /"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    let out = p.hooks(&["claude", "--settings", "loop.json"], &[], bash(&p, "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains("deny") && !text.contains("failures"),
        "{text}"
    );

    // What the nested run is given: its ancestor runs loop.json for this event. It skips
    // that file's hook, says so, and the compiled guard still denies.
    let key = EventId::of(
        "pre_tool_use",
        &json!({"session_id": "s1", "tool_use_id": "toolu_1"}),
    )
    .key(&p.path().join("loop.json"));
    let value = format!("1:1:{key}");
    let out = p.hooks(
        &["claude", "--settings", "loop.json"],
        &[(NESTED_ENV, &value)],
        bash(&p, "rm -rf /"),
    );
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    let said = system_message(&out);
    assert!(said.contains("skipped 1 hook(s) of loop.json"), "{said}");
    assert!(
        stderr(&out).contains("skipped 1 hook(s)"),
        "{}",
        stderr(&out)
    );

    // Another session (a nested agent) is not recursion: its scripts run.
    let other = json!({
        "session_id": "s2", "cwd": p.path(), "hook_event_name": "PreToolUse",
        "tool_use_id": "toolu_1", "tool_name": "Bash", "tool_input": {"command": "ls"}
    })
    .to_string();
    p.write(
        "no.sh",
        "#!/bin/sh\necho 'nested agent script' >&2\nexit 2\n",
    );
    p.write(
        "loop.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "./no.sh"}]}]}}"#,
    );
    p.approve("loop.json");
    let out = p.hooks(
        &["claude", "--settings", "loop.json"],
        &[(NESTED_ENV, &value)],
        other,
    );
    assert_eq!(
        answer(&out)["hookSpecificOutput"]["permissionDecisionReason"],
        "nested agent script",
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_chain_deeper_than_the_cap_blocks_at_a_guard_point_and_runs_compiled_policies_elsewhere() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    let out = p.hooks(&["claude"], &[(NESTED_ENV, "1:8:")], bash(&p, "ls"));
    assert_eq!(out.status.code(), Some(0), "depth 9 runs: {}", stderr(&out));
    let out = p.hooks(&["claude"], &[(NESTED_ENV, "1:9:")], bash(&p, "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("blocked"), "{}", stderr(&out));
    let post = json!({
        "session_id": "s1", "cwd": p.path(), "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}
    })
    .to_string();
    let out = p.hooks(&["claude"], &[(NESTED_ENV, "1:9:")], post);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------------------------
// Deliverable 4: a missing scripts file
// ---------------------------------------------------------------------------------------------

#[test]
fn a_missing_scripts_file_is_said_and_the_compiled_guards_still_decide() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    let settings = ".claude/hooks.scripts.json";
    let out = p.hooks(
        &["claude", "--settings", settings],
        &[],
        bash(&p, "rm -rf /"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    let out = p.hooks(&["claude", "--settings", settings], &[], bash(&p, "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = system_message(&out);
    assert!(
        said.contains(
            "--settings .claude/hooks.scripts.json: no such file; create it with {\"hooks\": {}} or remove the option"
        ),
        "{said}"
    );
    assert!(stderr(&out).contains("no such file"), "{}", stderr(&out));

    let out = p.hooks(&["claude", "--plugin-root", "nowhere"], &[], bash(&p, "ls"));
    assert!(
        system_message(&out).contains("--plugin-root nowhere: no such directory"),
        "{}",
        stdout(&out)
    );
    let out = p.hooks(&["claude", "--config", "gone.yaml"], &[], bash(&p, "ls"));
    assert!(
        system_message(&out).contains("--config gone.yaml: no such file"),
        "{}",
        stdout(&out)
    );

    // Once created, the message goes away.
    p.write(settings, r#"{"hooks": {}}"#);
    let out = p.hooks(&["claude", "--settings", settings], &[], bash(&p, "ls"));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));

    // `hooks list` is an error that says the same.
    let out = p.hooks(&["list", "--settings", "missing.json"], &[], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("missing.json: no such file; create it"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------------------------------------
// Deliverable 4: configured but inactive
// ---------------------------------------------------------------------------------------------

#[test]
fn validate_and_list_say_what_is_configured_but_does_not_run() {
    let p = Project::new();
    p.write("g.sh", "#!/bin/sh\nexit 0\n");
    // No `enabled: true`: nothing runs.
    p.write(
        "hooks.yaml",
        "hooks:\n  - { id: g, event_type: PreToolUse, handler: { command: ./g.sh } }\n",
    );
    let out = p.hooks(&["validate"], &[], "");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("hook `g` inactive: off (no enabled: true)"),
        "{text}"
    );
    assert!(
        text.contains("valid, but nothing runs: 0 of 1 hook(s) active"),
        "{text}"
    );
    let rows: Vec<Value> =
        serde_json::from_slice(&p.hooks(&["list", "--json"], &[], "").stdout).unwrap();
    let g = rows.iter().find(|r| r["id"] == "g").unwrap();
    assert_eq!(
        (&g["status"], &g["enabled"]),
        (&json!("off (no enabled: true)"), &json!(false))
    );

    // Switched on, but neither approved nor allow-listed (a guard: it denies every call until
    // approved); a webhook whose secret is unset.
    p.write(
        "hooks.yaml",
        "enabled: true\nallow: [\"https://siem.example.com/in\"]\nhooks:\n  - { id: g, event_type: PreToolUse, handler: { command: ./g.sh } }\nwebhooks:\n  - { id: siem, hook: PreToolUse, url: https://siem.example.com/in, secret: \"${HOOKS_TEST_UNSET_SECRET}\" }\n",
    );
    let out = p.hooks(&["validate"], &[], "");
    let text = stdout(&out);
    assert!(
        text.contains("hook `g` inactive: denies (not approved)"),
        "{text}"
    );
    assert!(
        text.contains("webhook `siem` inactive: not started (HOOKS_TEST_UNSET_SECRET unset)"),
        "{text}"
    );
    let out = p.hooks(&["list"], &[], "");
    let table = stdout(&out);
    assert!(table.contains("denies (not approved)"), "{table}");
    assert!(
        table.contains("not started (HOOKS_TEST_UNSET_SECRET unset)"),
        "{table}"
    );

    // Approved, and the secret set: both active, and counted.
    let out = p.hooks(&["trust", "--approve"], &[], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = p.hooks(&["validate"], &[("HOOKS_TEST_UNSET_SECRET", "k")], "");
    assert!(
        stdout(&out).contains("ok: 1 of 1 hook(s) and 1 of 1 webhook(s) active"),
        "{}",
        stdout(&out)
    );
    let rows: Vec<Value> = serde_json::from_slice(
        &p.hooks(&["list", "--json"], &[("HOOKS_TEST_UNSET_SECRET", "k")], "")
            .stdout,
    )
    .unwrap();
    for id in ["g", "siem"] {
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(
            (&row["status"], &row["enabled"]),
            (&json!("active"), &json!(true)),
            "{id}"
        );
    }
}

#[test]
fn a_webhook_whose_url_is_not_allowed_is_listed_as_not_started() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nwebhooks:\n  - { id: siem, hook: PreToolUse, url: https://siem.example.com/in, unsigned: true }\n",
    );
    let out = p.hooks(&["validate"], &[], "");
    assert!(
        stdout(&out).contains("webhook `siem` inactive: not started (URL not allowed)"),
        "{}",
        stdout(&out)
    );
}

// ---------------------------------------------------------------------------------------------
// Deliverable 4: stateful policies
// ---------------------------------------------------------------------------------------------

#[test]
fn stateful_policies_say_their_state_lasts_one_event() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  command_guard: {}\n  rate_limit: {}\n",
    );
    let out = p.hooks(&["claude"], &[], bash(&p, "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = system_message(&out);
    assert!(
        said.contains("builtin rate_limit") && said.contains("lasts one event"),
        "{said}"
    );
    let out = p.hooks(&["validate"], &[], "");
    assert!(
        stdout(&out).contains("note: builtin rate_limit"),
        "{}",
        stdout(&out)
    );
    let out = p.hooks(&["list"], &[], "");
    assert!(
        stdout(&out).contains("active (state lasts one event in hooks claude)"),
        "{}",
        stdout(&out)
    );
    // Without one, nothing is said.
    p.write("hooks.yaml", GUARDED);
    let out = p.hooks(&["claude"], &[], bash(&p, "ls"));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

// ---------------------------------------------------------------------------------------------
// Deliverable 4: webhooks
// ---------------------------------------------------------------------------------------------

/// A local HTTP receiver: each request's body, answered `status` (or never, with `None`).
fn receiver(status: Option<u16>) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/in", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = tx.send(String::from_utf8_lossy(&body).into_owned());
            match status {
                Some(code) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {code} OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    );
                }
                None => held.push(stream),
            }
        }
    });
    (url, rx)
}

fn webhook_project(url: &str) -> Project {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        &format!(
            "enabled: true\nallow: [\"{url}\"]\nbuiltin:\n  command_guard: {{}}\nwebhooks:\n  - {{ id: siem, hook: PreToolUse, url: \"{url}\", secret: \"${{HOOKS_TEST_SECRET}}\", retries: 0 }}\n"
        ),
    );
    p
}

#[test]
fn hooks_claude_and_hooks_fire_deliver_webhooks() {
    let (url, bodies) = receiver(Some(200));
    let p = webhook_project(&url);
    let out = p.hooks(
        &["claude"],
        &[("HOOKS_TEST_SECRET", "k")],
        bash(&p, "rm -rf /"),
    );
    assert_eq!(decision(&out), "deny", "{}", stderr(&out));
    let body = bodies
        .recv_timeout(Duration::from_secs(30))
        .expect("delivered");
    assert!(
        body.contains("pre_tool_use") && body.contains("rm -rf /"),
        "{body}"
    );

    let out = p.hooks(
        &["fire", "pre_tool_use", "--input", "-"],
        &[("HOOKS_TEST_SECRET", "k")],
        bash(&p, "ls"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let body = bodies
        .recv_timeout(Duration::from_secs(30))
        .expect("delivered");
    assert!(
        body.contains("pre_tool_use") && body.contains("\"ls\""),
        "{body}"
    );
}

#[test]
fn webhooks_not_started_or_not_delivered_are_said() {
    let (url, bodies) = receiver(None);
    let p = webhook_project(&url);
    // The secret's variable unset: not started, and said.
    let out = p.hooks(&["claude"], &[], bash(&p, "ls"));
    let said = system_message(&out);
    assert!(said.contains("webhook `siem` not started"), "{said}");
    assert!(bodies.try_recv().is_err());
    // A receiver that never answers: the flush ends, and the loss is said.
    let out = p.hooks(
        &["claude", "--webhook-flush", "300ms"],
        &[("HOOKS_TEST_SECRET", "k")],
        bash(&p, "ls"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = system_message(&out);
    assert!(said.contains("webhooks (siem): 0 delivered"), "{said}");
}

// ---------------------------------------------------------------------------------------------
// Deliverable 6: bad input has limits
// ---------------------------------------------------------------------------------------------

#[test]
fn a_payload_over_the_cap_is_refused() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    // 17 MiB of JSON: over the 16 MiB default.
    let filler = "x".repeat(17 * 1024 * 1024);
    let payload = format!(
        r#"{{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {{"command": "ls", "pad": "{filler}"}}}}"#
    );
    let out = p.hooks(&["claude"], &[], payload);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("larger than 16777216 bytes"),
        "{}",
        stderr(&out)
    );
    // The cap is configurable, by option and by variable.
    let small = bash(&p, &"y".repeat(2048));
    let out = p.hooks(&["claude", "--max-payload", "1K"], &[], small.clone());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("larger than 1024 bytes"),
        "{}",
        stderr(&out)
    );
    let out = p.hooks(&["claude"], &[("HOOKS_MAX_PAYLOAD", "1K")], small.clone());
    assert_eq!(out.status.code(), Some(2));
    let out = p.hooks(&["claude", "--max-payload", "1M"], &[], small);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A variable that does not parse is an error, not the default.
    let out = p.hooks(
        &["claude"],
        &[("HOOKS_MAX_PAYLOAD", "lots")],
        bash(&p, "ls"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("$HOOKS_MAX_PAYLOAD"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_held_open_stdin_is_refused_after_the_timeout() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    for (args, env) in [
        (&["claude", "--payload-timeout", "300ms"][..], &[][..]),
        (&["claude"][..], &[("HOOKS_PAYLOAD_TIMEOUT", "300ms")][..]),
    ] {
        let mut child = p.command(args, env).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(br#"{"session_id": "s", "hook_event_name": "#)
            .unwrap();
        // Held open (not closed) until the binary has answered.
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("not read within 300 ms"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_payload_with_a_key_twice_is_refused_and_never_taken_for_another_event() {
    let p = Project::new();
    p.write("hooks.yaml", GUARDED);
    // Read with the last key wins, this is an event we do not support (exit 1: proceed).
    let twice = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "hook_event_name": "PostToolBatch"}"#;
    let escaped = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "hook\u005fevent_name": "PostToolBatch"}"#;
    let deep = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls", "command": "rm -rf /"}}"#;
    for payload in [twice, escaped, deep] {
        let out = p.hooks(&["claude"], &[], payload);
        assert_eq!(out.status.code(), Some(2), "{payload}: {}", stderr(&out));
        assert!(stderr(&out).contains("twice"), "{}", stderr(&out));
    }
    let out = p.hooks(&["fire", "pre_tool_use", "--input", "-"], &[], twice);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("twice"), "{}", stderr(&out));
}

#[test]
fn a_refused_guard_names_the_command_that_approves_it_with_the_same_sources() {
    let p = Project::new();
    p.write("no.sh", "#!/bin/sh\nexit 0\n");
    p.write(
        "scripts.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./no.sh"}]}]}}"#,
    );
    let out = p.hooks(
        &["claude", "--settings", "scripts.json"],
        &[],
        bash(&p, "ls"),
    );
    assert_eq!(decision(&out), "deny", "{}", stderr(&out));
    let reason = answer(&out)["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reason.contains("`hooks trust --approve --settings scripts.json`"),
        "{reason}"
    );
}
