#![cfg(feature = "audit")]
//! The `audit` policy through real `Hooks` values and `Session`s, on both backends: nothing
//! lost under concurrency, committed records survive SIGKILL, trails read back in order,
//! hostile values and files handled.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hookrail_builtin::audit::{
    Audit, AuditConfig, AuditError, AuditFormat, AuditReader, AuditRecord, ToolCallRecord,
    ToolStatus,
};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PostToolUse, PreToolUse, SessionEndReason, ToolCall};
use hookrail_core::points::{post_tool_use, pre_tool_use};
use hookrail_core::runtime::{Hook, Hooks, HooksBuilder, Session, ToolError, ToolRun};
use serde_json::{Value, json};

const FORMATS: [AuditFormat; 2] = [AuditFormat::Sqlite, AuditFormat::Jsonl];

fn builder() -> HooksBuilder {
    Hooks::builder().ignore_env()
}

fn file_for(dir: &Path, format: AuditFormat) -> PathBuf {
    dir.join(match format {
        AuditFormat::Sqlite => "audit.db",
        AuditFormat::Jsonl => "audit.jsonl",
    })
}

fn config(path: &Path, format: AuditFormat) -> AuditConfig {
    AuditConfig {
        path: path.to_owned(),
        format,
        ..AuditConfig::default()
    }
}

/// One finished tool call of session `session`, dispatched at `post_tool_use`.
fn post(hooks: &Hooks, session: &str, tool: &str, input: Value, output: Value) {
    let mut ctx = PostToolUse::new(Meta::new(session), tool, input, output, 2);
    hooks.dispatch::<post_tool_use::Point>(&mut ctx);
}

fn deny_bash() -> Hook<pre_tool_use::Point> {
    Hook::<pre_tool_use::Point>::new("no_bash", |ctx: &mut PreToolUse| {
        if ctx.tool_name == "Bash" {
            Verdict::deny("shell is off for this agent")
        } else {
            Verdict::Continue
        }
    })
}

// --- (a) concurrency ---------------------------------------------------------------------

fn concurrent_sessions_lose_nothing(format: AuditFormat) {
    const SESSIONS: usize = 8;
    const EVENTS: u64 = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let path = file_for(dir.path(), format);
    // What is checked is that a writer that keeps up loses nothing: backpressure, not the
    // deadline. On a loaded 2-core machine one SQLite commit can stall past the default
    // 1 s `enqueue_timeout_ms`, which drops records by design (the queue's own tests check
    // that), so the deadline here is the largest allowed.
    let audit = Audit::new(AuditConfig {
        enqueue_timeout_ms: 60_000,
        ..config(&path, format)
    })
    .unwrap();
    let hooks = audit.install(builder()).unwrap();
    std::thread::scope(|s| {
        for n in 0..SESSIONS {
            let hooks = hooks.clone();
            s.spawn(move || {
                let session = format!("session-{n}");
                for i in 0..EVENTS {
                    post(&hooks, &session, "Read", json!({ "i": i }), json!("ok"));
                }
            });
        }
    });
    let flushed = audit.flush();
    let stats = audit.stats();
    assert!(flushed.is_ok(), "{flushed:?} {stats:?}");
    assert_eq!(
        (stats.written, stats.dropped, stats.failed),
        (SESSIONS as u64 * EVENTS, 0, 0),
        "{stats:?}"
    );
    drop(hooks);
    audit.close().unwrap();

    let reader = AuditReader::open(&path).unwrap();
    assert_eq!(reader.count().unwrap(), SESSIONS as u64 * EVENTS);
    assert!(reader.problems().is_empty());
    for n in 0..SESSIONS {
        let calls = reader.tool_calls(&format!("session-{n}")).unwrap();
        let order: Vec<u64> = calls
            .iter()
            .map(|c| c.input_json().unwrap()["i"].as_u64().unwrap())
            .collect();
        assert_eq!(
            order,
            (0..EVENTS).collect::<Vec<_>>(),
            "session-{n} lost or reordered records"
        );
    }
}

#[test]
fn eight_concurrent_sessions_of_10k_events_lose_nothing_and_keep_order_in_sqlite() {
    concurrent_sessions_lose_nothing(AuditFormat::Sqlite);
}

#[test]
fn eight_concurrent_sessions_of_10k_events_lose_nothing_and_keep_order_in_jsonl() {
    concurrent_sessions_lose_nothing(AuditFormat::Jsonl);
}

// --- (b) crash survival ------------------------------------------------------------------

const CHILD_PATH: &str = "HOOKS_AUDIT_CRASH_CHILD_PATH";
const CHILD_FORMAT: &str = "HOOKS_AUDIT_CRASH_CHILD_FORMAT";
const CHILD_TEST: &str = "audit::crash_child_writes_until_killed";

/// Not a test on its own: the writer process of the crash tests, which run this test binary
/// again with the environment variables set. It records tool calls as fast as it can and
/// prints `committed N` each time the committed count grows, until it is killed.
#[test]
fn crash_child_writes_until_killed() {
    let (Ok(path), Ok(format)) = (std::env::var(CHILD_PATH), std::env::var(CHILD_FORMAT)) else {
        return;
    };
    let format = if format == "jsonl" {
        AuditFormat::Jsonl
    } else {
        AuditFormat::Sqlite
    };
    let audit = Audit::new(AuditConfig {
        batch_size: 256,
        ..config(Path::new(&path), format)
    })
    .unwrap();
    let hooks = audit.install(builder()).unwrap();
    std::thread::spawn(move || {
        for i in 0u64.. {
            let output = json!({ "stdout": "x".repeat((i % 64) as usize * 32), "i": i });
            post(&hooks, "crash", "Bash", json!({ "i": i }), output);
        }
    });
    let mut reported = 0;
    let mut out = std::io::stdout();
    loop {
        let written = audit.stats().written;
        if written != reported {
            writeln!(out, "committed {written}").unwrap();
            out.flush().unwrap();
            reported = written;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Run the child, kill it with SIGKILL once it reported `at_least` committed records, and
/// return the last count it reported.
fn run_and_kill_child(path: &Path, format: &str, at_least: u64) -> u64 {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_PATH, path)
        .env(CHILD_FORMAT, format)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let lines = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line.strip_prefix("committed ") {
                let _ = tx.send(n.trim().parse::<u64>().unwrap());
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut last = 0;
    while last < at_least {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(n) => last = n,
            Err(e) => {
                let _ = child.kill();
                panic!("the writer child stopped reporting after {last} records: {e}");
            }
        }
    }
    // std's `kill` is SIGKILL on Unix: no destructor, no flush, no close runs in the child.
    child.kill().unwrap();
    child.wait().unwrap();
    lines.join().unwrap();
    // Counts printed before the kill but not yet read are commits too.
    rx.try_iter().fold(last, u64::max)
}

#[test]
fn records_committed_before_sigkill_survive_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.db");
    let committed = run_and_kill_child(&path, "sqlite", 20_000);

    let reader = AuditReader::open(&path).unwrap();
    assert_eq!(
        reader.check().unwrap(),
        Vec::<String>::new(),
        "integrity check"
    );
    let calls = reader.tool_calls("crash").unwrap();
    eprintln!(
        "killed after {committed} reported committed; {} read back",
        calls.len()
    );
    assert!(
        calls.len() as u64 >= committed,
        "{} records read back, {committed} reported committed",
        calls.len()
    );
    for (n, call) in calls.iter().enumerate() {
        assert_eq!(call.input_json().unwrap()["i"], json!(n), "record {n}");
    }
    // The crashed file opens for writing again and goes on.
    let audit = Audit::new(config(&path, AuditFormat::Sqlite)).unwrap();
    audit.kv_set("crash", "resumed", json!(true)).unwrap();
    audit.close().unwrap();
    assert_eq!(
        AuditReader::open(&path).unwrap().kv("crash").unwrap()["resumed"],
        json!(true)
    );
}

#[test]
fn records_committed_before_sigkill_survive_in_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.jsonl");
    let committed = run_and_kill_child(&path, "jsonl", 20_000);

    let reader = AuditReader::open(&path).unwrap();
    // At most the batch being written when the process died is torn, and only at the end.
    let problems = reader.problems().to_vec();
    assert!(
        problems.len() <= 1 && problems.iter().all(|p| p.torn),
        "{problems:?}"
    );
    let calls = reader.tool_calls("crash").unwrap();
    eprintln!(
        "killed after {committed} reported committed; {} read back",
        calls.len()
    );
    assert!(
        calls.len() as u64 >= committed,
        "{} records read back, {committed} reported committed",
        calls.len()
    );
    for (n, call) in calls.iter().enumerate() {
        assert_eq!(call.input_json().unwrap()["i"], json!(n), "record {n}");
    }
    let audit = Audit::new(config(&path, AuditFormat::Jsonl)).unwrap();
    audit.kv_set("crash", "resumed", json!(true)).unwrap();
    audit.close().unwrap();
    let reader = AuditReader::open(&path).unwrap();
    assert_eq!(reader.kv("crash").unwrap()["resumed"], json!(true));
    assert_eq!(reader.tool_calls("crash").unwrap().len(), calls.len());
}

#[test]
fn a_torn_last_jsonl_line_is_reported_not_fatal_and_writing_resumes_on_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torn.jsonl");
    let audit = Audit::new(config(&path, AuditFormat::Jsonl)).unwrap();
    let hooks = audit.install(builder()).unwrap();
    post(&hooks, "s", "Read", json!({"n": 1}), json!("one"));
    drop(hooks);
    audit.close().unwrap();
    // A crash in the middle of a line, with bytes that are not even UTF-8.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"type\":\"tool_call\",\"ts_ms\":1,\"tool_na\xff\xfe")
        .unwrap();

    let reader = AuditReader::open(&path).unwrap();
    assert_eq!(reader.problems().len(), 1);
    assert!(reader.problems()[0].torn);
    assert_eq!(reader.problems()[0].line, 3);
    assert_eq!(reader.tool_calls("s").unwrap().len(), 1);

    let audit = Audit::new(config(&path, AuditFormat::Jsonl)).unwrap();
    let hooks = audit.install(builder()).unwrap();
    post(&hooks, "s", "Read", json!({"n": 2}), json!("two"));
    drop(hooks);
    audit.close().unwrap();
    let reader = AuditReader::open(&path).unwrap();
    let calls = reader.tool_calls("s").unwrap();
    assert_eq!(calls.len(), 2, "the record after the torn line is readable");
    assert_eq!(calls[1].output.as_deref(), Some("\"two\""));
    // The torn line is now in the middle: still reported, no longer the torn tail.
    assert_eq!(reader.problems().len(), 1);
    assert!(!reader.problems()[0].torn);
    assert_eq!(reader.check().unwrap().len(), 1);
}

// --- (c) reading a trail back ------------------------------------------------------------

#[test]
fn a_sessions_trail_tool_calls_and_state_read_back_in_order_from_both_backends() {
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        let audit = Audit::new(config(&path, format)).unwrap();
        let hooks = audit.install(builder().hook(deny_bash())).unwrap();

        let mut pre = PreToolUse::new(
            Meta::new("s1").with_tenant("acme"),
            "Bash",
            json!({"command": "ls"}),
        );
        assert!(hooks.dispatch::<pre_tool_use::Point>(&mut pre).is_denied());
        post(
            &hooks,
            "s1",
            "Read",
            json!({"file_path": "a.rs"}),
            json!("fn a() {}"),
        );
        post(
            &hooks,
            "s2",
            "Read",
            json!({"file_path": "b.rs"}),
            json!("fn b() {}"),
        );
        audit.kv_set("s1", "plan", json!({"step": 1})).unwrap();
        audit.kv_set("s1", "plan", json!({"step": 2})).unwrap();
        audit.kv_set("s1", "owner", json!("coder")).unwrap();
        assert_eq!(
            audit.kv_get("s1", "plan").unwrap(),
            Some(json!({"step": 2}))
        );
        assert_eq!(audit.kv_get("s1", "missing").unwrap(), None);
        assert_eq!(audit.kv_get("s2", "plan").unwrap(), None);
        drop(hooks);
        audit.close().unwrap();

        let reader = AuditReader::open(&path).unwrap();
        assert_eq!(reader.format(), format);
        let trail = reader.trail("s1").unwrap();
        let kinds: Vec<&str> = trail.iter().map(AuditRecord::type_name).collect();
        // The guard's run, the call it denied, then the Read call.
        assert_eq!(kinds, ["hook_run", "tool_call", "tool_call"], "{format:?}");
        let AuditRecord::HookRun(run) = &trail[0] else {
            unreachable!()
        };
        assert_eq!(
            (run.point.as_str(), run.hook.as_str(), run.outcome.as_str()),
            ("pre_tool_use", "no_bash", "deny")
        );
        assert_eq!(run.origin.tenant.as_deref(), Some("acme"));
        let calls = reader.tool_calls("s1").unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].status, ToolStatus::Denied);
        assert_eq!(
            calls[0].reason.as_deref(),
            Some("shell is off for this agent")
        );
        assert_eq!(calls[0].input_json(), Some(json!({"command": "ls"})));
        assert_eq!(calls[0].output, None);
        assert_eq!(
            (calls[1].status, calls[1].verdict.as_str()),
            (ToolStatus::Ok, "continue")
        );
        assert_eq!(calls[1].output_json(), Some(json!("fn a() {}")));
        assert!(calls[1].started_ms <= calls[1].ts_ms);
        let kv = reader.kv("s1").unwrap();
        assert_eq!(kv.len(), 2);
        assert_eq!(kv["plan"], json!({"step": 2}));
        assert_eq!(reader.trail("s2").unwrap().len(), 1);
        assert_eq!(reader.sessions().unwrap(), ["s1", "s2"]);
        assert!(reader.trail("nobody").unwrap().is_empty());

        // State set by an earlier run is there for the next one (AgentFS `kv.get`).
        let audit = Audit::new(config(&path, format)).unwrap();
        assert_eq!(audit.kv_get("s1", "owner").unwrap(), Some(json!("coder")));
        audit.close().unwrap();
    }
}

// --- (d) a real session ------------------------------------------------------------------

#[tokio::test]
async fn a_scripted_session_leaves_its_tool_calls_verdicts_hook_runs_and_events_in_the_trail() {
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        let audit = Audit::new(config(&path, format)).unwrap();
        let policy = Hook::<pre_tool_use::Point>::new("policy", |ctx: &mut PreToolUse| {
            match ctx.tool_name.as_str() {
                "Bash" => Verdict::deny("no shell"),
                "Deploy" => Verdict::ask("deploys need a human"),
                "Read" => Verdict::Allow,
                _ => Verdict::Continue,
            }
        });
        let scrub = Hook::<post_tool_use::Point>::new("scrub", |ctx: &mut PostToolUse| {
            if ctx.tool_response.to_string().contains("sk-secret") {
                ctx.tool_response = json!("[redacted]");
            }
        });
        let hooks = audit.install(builder().hook(policy).hook(scrub)).unwrap();
        let meta = Meta::new("run-1").with_agent("coder").with_tenant("acme");
        let mut session = Session::start(hooks.clone(), meta, "model-a")
            .await
            .unwrap()
            .with_approver(|_, _| true);
        session.submit_prompt("fix the bug").await.unwrap();
        let read = session
            .tool_call(
                ToolCall::new("toolu_1", "Read", json!({"file_path": "src/lib.rs"})),
                async |_| Ok(json!("key = sk-secret")),
            )
            .await
            .unwrap();
        assert!(matches!(read, ToolRun::Ran(_)));
        let bash = session
            .tool_call(
                ToolCall::new("toolu_2", "Bash", json!({"command": "rm -rf /"})),
                async |_| unreachable!("denied tools do not run"),
            )
            .await
            .unwrap();
        assert!(matches!(bash, ToolRun::Denied { .. }));
        session
            .tool_call(
                ToolCall::new("toolu_3", "Write", json!({"file_path": "x"})),
                async |_| Err(ToolError::new("disk full")),
            )
            .await
            .unwrap();
        session
            .tool_call(
                ToolCall::new("toolu_4", "Deploy", json!({"env": "prod"})),
                async |_| Ok(json!("done")),
            )
            .await
            .unwrap();
        session.end(SessionEndReason::Completed, true).await;
        audit.flush().unwrap();

        let reader = AuditReader::open(&path).unwrap();
        let calls = reader.tool_calls("run-1").unwrap();
        let summary: Vec<(&str, ToolStatus, &str, Option<&str>)> = calls
            .iter()
            .map(|c| {
                (
                    c.tool_name.as_str(),
                    c.status,
                    c.verdict.as_str(),
                    c.decided_by.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("Read", ToolStatus::Ok, "allow", Some("policy")),
                ("Bash", ToolStatus::Denied, "deny", Some("policy")),
                ("Write", ToolStatus::Error, "continue", None),
                ("Deploy", ToolStatus::Asked, "ask", Some("policy")),
                ("Deploy", ToolStatus::Ok, "ask", Some("policy")),
            ],
            "{format:?}"
        );
        // The audit runs after the scrubber: the trail holds what the model saw.
        assert_eq!(calls[0].output.as_deref(), Some("\"[redacted]\""));
        assert_eq!(calls[2].error.as_deref(), Some("disk full"));
        assert_eq!(calls[3].reason.as_deref(), Some("deploys need a human"));
        assert!(
            calls
                .iter()
                .all(|c| c.origin.agent.as_deref() == Some("coder")
                    && c.origin.tenant.as_deref() == Some("acme")
                    && c.origin.turn == Some(1))
        );

        let trail = reader.trail("run-1").unwrap();
        let runs: Vec<(String, String, String)> = trail
            .iter()
            .filter_map(|r| match r {
                AuditRecord::HookRun(h) => {
                    Some((h.point.clone(), h.hook.clone(), h.outcome.clone()))
                }
                _ => None,
            })
            .collect();
        let run = |p: &str, h: &str, o: &str| (p.to_owned(), h.to_owned(), o.to_owned());
        assert_eq!(
            runs,
            [
                run("pre_tool_use", "policy", "allow"),
                run("post_tool_use", "scrub", "done"),
                run("pre_tool_use", "policy", "deny"),
                run("pre_tool_use", "policy", "continue"),
                run("post_tool_use", "scrub", "done"),
                run("pre_tool_use", "policy", "ask"),
                run("post_tool_use", "scrub", "done"),
            ]
        );
        let events: Vec<&str> = trail
            .iter()
            .filter_map(|r| match r {
                AuditRecord::Event(e) => Some(e.point.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(events, ["session_start", "session_end"]);
        let AuditRecord::Event(end) = trail.last().unwrap() else {
            panic!("the trail ends with session_end");
        };
        assert_eq!(end.detail["tool_calls"], json!(3));
        assert_eq!(end.detail["success"], json!(true));
        drop(hooks);
        audit.close().unwrap();
    }
}

#[tokio::test]
async fn an_ask_nobody_approved_does_not_leak_into_the_next_call_of_the_same_tool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ask.db");
    let audit = Audit::new(config(&path, AuditFormat::Sqlite)).unwrap();
    let policy = Hook::<pre_tool_use::Point>::new("policy", |ctx: &mut PreToolUse| {
        if ctx.tool_input.get()["env"] == "prod" {
            Verdict::ask("prod deploys need a human")
        } else {
            Verdict::Continue
        }
    });
    let hooks = audit.install(builder().hook(policy)).unwrap();
    // No approver: the ask is refused and the tool does not run.
    let mut session = Session::start(hooks.clone(), Meta::new("s"), "m")
        .await
        .unwrap();
    let refused = session
        .tool_call(
            ToolCall::new("toolu_prod", "Deploy", json!({"env": "prod"})),
            async |_| Ok(json!("no")),
        )
        .await
        .unwrap();
    assert!(matches!(refused, ToolRun::Denied { .. }));
    for i in 0..2 {
        session
            .tool_call(
                ToolCall::new(format!("toolu_dev_{i}"), "Deploy", json!({"env": "dev"})),
                async |_| Ok(json!("ok")),
            )
            .await
            .unwrap();
    }
    audit.flush().unwrap();
    let calls = AuditReader::open(&path).unwrap().tool_calls("s").unwrap();
    let summary: Vec<(ToolStatus, &str)> = calls
        .iter()
        .map(|c| (c.status, c.verdict.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (ToolStatus::Asked, "ask"),
            (ToolStatus::Ok, "continue"),
            (ToolStatus::Ok, "continue"),
        ]
    );
    drop((hooks, session));
    audit.close().unwrap();
}

// --- (e) adversarial ---------------------------------------------------------------------

#[test]
fn huge_tool_inputs_and_outputs_are_capped_with_their_full_size_recorded() {
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        let audit = Audit::new(config(&path, format)).unwrap();
        let hooks = audit.install(builder()).unwrap();
        let big = "é".repeat(5 << 20); // 10 MB of two-byte characters
        post(
            &hooks,
            "s",
            "Write",
            json!({"file_path": "big.txt", "content": big}),
            json!({"stdout": big, "exit_code": 0}),
        );
        drop(hooks);
        audit.close().unwrap();

        let calls = AuditReader::open(&path).unwrap().tool_calls("s").unwrap();
        let c = &calls[0];
        let cfg = AuditConfig::default();
        assert!(c.input_truncated && c.output_truncated);
        assert!(c.input.len() <= cfg.max_input_bytes && c.input.len() > cfg.max_input_bytes - 4);
        let output = c.output.as_deref().unwrap();
        assert!(output.len() <= cfg.max_output_bytes);
        // The keys in either order: sorted by default, as inserted under serde_json's
        // `preserve_order` (which a build with rig turns on).
        assert!(
            output.starts_with("{\"exit_code\":0,\"stdout\":\"éé")
                || output.starts_with("{\"stdout\":\"éé"),
            "{output:.40}"
        );
        assert_eq!(
            c.output_bytes,
            serde_json::to_string(&json!({"stdout": big, "exit_code": 0}))
                .unwrap()
                .len() as u64
        );
        assert_eq!(c.input_json(), None);
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size < 1 << 20, "{format:?} file is {size} bytes");
    }
}

#[test]
fn odd_json_and_odd_names_round_trip_exactly_through_both_backends() {
    let lossy = String::from_utf8_lossy(&[0xff, 0xfe, b'a', 0xc3]).into_owned();
    let input = json!({
        "nul": "a\u{0}b",
        "controls": "\u{1}\u{1f}\u{7f}\t\r\n",
        "quotes": "\"'\\`$(rm -rf /)",
        "unicode": "😀\u{fffd}\u{ffff}\u{200b}",
        "lossy": lossy,
        "key\nwith\"odd\u{0}chars": [u64::MAX, i64::MIN, 1e308, -0.0, 0.5],
        "empty": {"": [[], {}]},
    });
    let output = json!(["\u{0}", {"nested": {"deeper": [null, true, false]}}]);
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        let audit = Audit::new(config(&path, format)).unwrap();
        let hooks = audit.install(builder()).unwrap();
        let session = "sess\u{0}ion\n\"😀\"";
        post(
            &hooks,
            session,
            "mcp__odd\u{0}\ntool",
            input.clone(),
            output.clone(),
        );
        audit.kv_set(session, "k\u{0}", input.clone()).unwrap();
        drop(hooks);
        audit.close().unwrap();

        let reader = AuditReader::open(&path).unwrap();
        assert!(reader.problems().is_empty(), "{:?}", reader.problems());
        let calls = reader.tool_calls(session).unwrap();
        assert_eq!(calls.len(), 1, "{format:?}");
        assert_eq!(calls[0].tool_name, "mcp__odd\u{0}\ntool");
        assert_eq!(calls[0].input_json(), Some(input.clone()));
        assert_eq!(calls[0].output_json(), Some(output.clone()));
        assert_eq!(reader.kv(session).unwrap()["k\u{0}"], input);
    }
}

#[test]
fn a_value_nested_thousands_deep_is_recorded_as_a_placeholder_without_overflowing_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.db");
    let audit = Audit::new(config(&path, AuditFormat::Sqlite)).unwrap();
    let hooks = audit.install(builder()).unwrap();
    // Building and dropping such a value recurses in serde_json itself: do that on a big
    // stack, and dispatch on a small one, where a recursive serializer would overflow.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let mut deep = json!("bottom");
            for _ in 0..20_000 {
                // Not `json!({"d": deep})`: that serializes `deep` again at every level.
                deep = Value::Object([("d".to_owned(), deep)].into_iter().collect());
            }
            let mut ctx = PostToolUse::new(Meta::new("s"), "Read", json!({}), deep, 1);
            std::thread::scope(|s| {
                std::thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn_scoped(s, || hooks.dispatch::<post_tool_use::Point>(&mut ctx))
                    .unwrap()
                    .join()
                    .unwrap();
            });
        })
        .unwrap()
        .join()
        .unwrap();
    audit.close().unwrap();
    let calls = AuditReader::open(&path).unwrap().tool_calls("s").unwrap();
    assert!(calls[0].output_truncated);
    assert!(
        calls[0]
            .output
            .as_deref()
            .unwrap()
            .contains("nested deeper")
    );
}

#[test]
fn an_unwritable_or_missing_location_is_a_clear_error_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, "not a directory").unwrap();
    for format in FORMATS {
        let cases = [
            (file.join("audit.db"), "not a directory"),
            (dir.path().join("missing/audit.db"), "does not exist"),
            (dir.path().to_owned(), "is a directory"),
        ];
        for (path, expected) in cases {
            let err = Audit::new(config(&path, format)).unwrap_err();
            let AuditError::Open { path: p, message } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(p, &path);
            let text = err.to_string();
            assert!(
                text.contains(&path.display().to_string())
                    && (text.to_lowercase().contains(expected) || message.contains("os error")),
                "{format:?}: {text}"
            );
        }
    }
}

#[test]
fn a_trail_of_a_newer_schema_version_is_refused_for_writing_and_reading() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    Audit::new(config(&db, AuditFormat::Sqlite))
        .unwrap()
        .close()
        .unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 2)
        .unwrap();
    let jsonl = dir.path().join("new.jsonl");
    std::fs::write(
        &jsonl,
        "{\"type\":\"header\",\"format\":\"hooks-audit\",\"schema_version\":2}\n",
    )
    .unwrap();
    for (path, format) in [(&db, AuditFormat::Sqlite), (&jsonl, AuditFormat::Jsonl)] {
        for err in [
            Audit::new(config(path, format)).unwrap_err(),
            AuditReader::open(path).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    AuditError::NewerSchema {
                        found: 2,
                        supported: 1,
                        ..
                    }
                ),
                "{err:?}"
            );
            assert!(err.to_string().contains("schema version 2"), "{err}");
        }
    }
}

#[test]
fn files_that_are_not_audit_trails_are_refused_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let other_db = dir.path().join("other.db");
    rusqlite::Connection::open(&other_db)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER)")
        .unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "meeting notes\n").unwrap();
    let jsonl = dir.path().join("a.jsonl");
    Audit::new(config(&jsonl, AuditFormat::Jsonl))
        .unwrap()
        .close()
        .unwrap();
    let cases = [
        (&other_db, AuditFormat::Sqlite),
        (&text, AuditFormat::Sqlite),
        (&text, AuditFormat::Jsonl),
        (&jsonl, AuditFormat::Sqlite),
    ];
    for (path, format) in cases {
        let err = Audit::new(config(path, format)).unwrap_err();
        assert!(
            matches!(err, AuditError::NotAudit { .. }),
            "{path:?} {format:?}: {err:?}"
        );
    }
    assert!(matches!(
        AuditReader::open(&text).unwrap_err(),
        AuditError::NotAudit { .. }
    ));
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "meeting notes\n");
}

#[test]
fn a_locked_database_drops_records_past_the_deadline_counts_them_and_marks_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.db");
    let audit = Audit::new(AuditConfig {
        queue_capacity: 2,
        enqueue_timeout_ms: 1,
        ..config(&path, AuditFormat::Sqlite)
    })
    .unwrap();
    let hooks = audit.install(builder()).unwrap();
    // Another process holds the write lock: the writer blocks on it, the queue fills.
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    for i in 0..50 {
        post(&hooks, "s", "Read", json!({ "i": i }), json!("x"));
    }
    blocker.execute_batch("COMMIT").unwrap();

    let err = audit.flush().unwrap_err();
    let AuditError::Lost {
        dropped, failed, ..
    } = err
    else {
        panic!("{err:?}");
    };
    let stats = audit.stats();
    assert_eq!((dropped, failed), (stats.dropped, 0));
    assert!(dropped >= 40, "{stats:?}");
    assert_eq!(stats.written + stats.dropped, 50);
    // Reported once; the next flush has nothing new to report.
    audit.flush().unwrap();
    drop(hooks);
    audit.close().unwrap();

    let records = AuditReader::open(&path).unwrap().records().unwrap();
    let gaps: u64 = records
        .iter()
        .filter_map(|r| match r {
            AuditRecord::Gap(g) => Some(g.dropped),
            _ => None,
        })
        .sum();
    assert_eq!(gaps, stats.dropped, "the trail itself shows the hole");
    let kept: Vec<ToolCallRecord> = AuditReader::open(&path).unwrap().tool_calls("s").unwrap();
    assert_eq!(kept.len() as u64, stats.written);
}

#[test]
fn after_close_records_are_counted_as_dropped_and_calls_fail_with_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("closed.db");
    let audit = Audit::new(config(&path, AuditFormat::Sqlite)).unwrap();
    let hooks = audit.install(builder()).unwrap();
    post(&hooks, "s", "Read", json!({}), json!(1));
    audit.close().unwrap();
    assert_eq!(audit.stats().written, 1);
    post(&hooks, "s", "Read", json!({}), json!(2));
    assert_eq!(audit.stats().dropped, 1);
    assert!(matches!(
        audit.kv_set("s", "k", json!(1)),
        Err(AuditError::Closed)
    ));
    assert!(matches!(audit.kv_get("s", "k"), Err(AuditError::Closed)));
    assert!(matches!(
        audit.close(),
        Err(AuditError::Lost { dropped: 1, .. })
    ));
}

#[test]
fn dropping_the_last_handle_drains_the_queue_into_the_file() {
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        {
            let audit = Audit::new(config(&path, format)).unwrap();
            let hooks = audit.install(builder()).unwrap();
            for i in 0..500 {
                post(&hooks, "s", "Read", json!({ "i": i }), json!(i));
            }
            // No flush, no close: the hook set and the handle just go out of scope.
        }
        let reader = AuditReader::open(&path).unwrap();
        assert_eq!(reader.tool_calls("s").unwrap().len(), 500, "{format:?}");
    }
}

#[test]
fn a_guard_that_fails_closed_is_recorded_as_the_denial_with_its_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fail.db");
    let audit = Audit::new(config(&path, AuditFormat::Sqlite)).unwrap();
    let broken = Hook::<pre_tool_use::Point>::new("broken", |_: &mut PreToolUse| -> Verdict {
        panic!("rule table missing")
    });
    let hooks = audit.install(builder().hook(broken)).unwrap();
    let mut pre = PreToolUse::new(Meta::new("s"), "Read", json!({}));
    assert!(hooks.dispatch::<pre_tool_use::Point>(&mut pre).is_denied());
    drop(hooks);
    audit.close().unwrap();
    let reader = AuditReader::open(&path).unwrap();
    let calls = reader.tool_calls("s").unwrap();
    assert_eq!(calls[0].status, ToolStatus::Denied);
    assert_eq!(calls[0].decided_by.as_deref(), Some("broken"));
    assert!(
        calls[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("rule table missing")
    );
    let AuditRecord::HookRun(run) = &reader.trail("s").unwrap()[0] else {
        panic!("the failed run comes first");
    };
    assert_eq!(run.outcome, "failed");
    assert!(run.detail.as_deref().unwrap().contains("on_error: deny"));
}

#[test]
fn hook_runs_can_be_skipped_by_point_or_entirely_while_tool_calls_stay_recorded() {
    let noop_post = || Hook::<post_tool_use::Point>::new("noop", |_: &mut PostToolUse| {});
    for (cfg, expected_runs) in [
        (
            AuditConfig {
                skip_points: vec!["post_tool_use".into()],
                ..AuditConfig::default()
            },
            vec!["pre_tool_use"],
        ),
        (
            AuditConfig {
                record_hook_runs: false,
                ..AuditConfig::default()
            },
            vec![],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skip.db");
        let audit = Audit::new(AuditConfig {
            path: path.clone(),
            ..cfg
        })
        .unwrap();
        let hooks = audit
            .install(builder().hook(deny_bash()).hook(noop_post()))
            .unwrap();
        let mut pre = PreToolUse::new(Meta::new("s"), "Bash", json!({}));
        let _ = hooks.dispatch::<pre_tool_use::Point>(&mut pre);
        post(&hooks, "s", "Read", json!({}), json!(1));
        drop(hooks);
        audit.close().unwrap();
        let trail = AuditReader::open(&path).unwrap().trail("s").unwrap();
        let runs: Vec<&str> = trail
            .iter()
            .filter_map(|r| match r {
                AuditRecord::HookRun(h) => Some(h.point.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(runs, expected_runs);
        let calls: Vec<ToolStatus> = trail
            .iter()
            .filter_map(|r| match r {
                AuditRecord::ToolCall(c) => Some(c.status),
                _ => None,
            })
            .collect();
        assert_eq!(calls, [ToolStatus::Denied, ToolStatus::Ok]);
    }
}

#[test]
fn a_rewritten_input_is_recorded_with_its_original() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rewrite.jsonl");
    let audit = Audit::new(config(&path, AuditFormat::Jsonl)).unwrap();
    let rewrite = Hook::<pre_tool_use::Point>::new("rewrite", |ctx: &mut PreToolUse| {
        ctx.tool_input.set(json!({"command": "rm -rf ./build"}));
        Verdict::Continue
    });
    let hooks = audit.install(builder().hook(rewrite)).unwrap();
    let mut pre = PreToolUse::new(Meta::new("s"), "Bash", json!({"command": "rm -rf build"}));
    let _ = hooks.dispatch::<pre_tool_use::Point>(&mut pre);
    let mut ctx = PostToolUse::after(&pre, json!({"exit_code": 0}), 5);
    hooks.dispatch::<post_tool_use::Point>(&mut ctx);
    drop(hooks);
    audit.close().unwrap();
    let calls = AuditReader::open(&path).unwrap().tool_calls("s").unwrap();
    assert_eq!(
        calls[0].input_json(),
        Some(json!({"command": "rm -rf ./build"}))
    );
    assert_eq!(
        calls[0].original_input.as_deref(),
        Some(r#"{"command":"rm -rf build"}"#)
    );
}

/// Throughput, not a test: `cargo test -p hookrail-builtin --no-default-features --features audit
/// --release --test builtin -- --ignored --nocapture audit_throughput`.
#[test]
#[ignore = "prints a throughput figure; run in release"]
fn audit_throughput() {
    for format in FORMATS {
        let dir = tempfile::tempdir().unwrap();
        let path = file_for(dir.path(), format);
        let audit = Audit::new(config(&path, format)).unwrap();
        let hooks = audit.install(builder()).unwrap();
        let n: u64 = 400_000;
        let started = Instant::now();
        std::thread::scope(|s| {
            for t in 0..4 {
                let hooks = hooks.clone();
                s.spawn(move || {
                    let session = format!("s{t}");
                    for i in 0..n / 4 {
                        post(
                            &hooks,
                            &session,
                            "Read",
                            json!({"file_path": "src/lib.rs", "i": i}),
                            json!("fn main() {}"),
                        );
                    }
                });
            }
        });
        audit.flush().unwrap();
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{format:?}: {n} tool-call records from 4 threads in {secs:.2} s = {:.0} records/s",
            n as f64 / secs
        );
        drop(hooks);
        audit.close().unwrap();
    }
}
