//! Seed 001, Git With Intent's ADR 014 ("Agent Hook System Policy"): an `AgentHookRunner` called
//! at run start, after each agent step and at run end; an audit hook (AgentFS: tool-call
//! records and key-value state); a task-tracking hook (Beads) with heuristics against spam;
//! configuration through environment variables; 5 s timeouts; hooks that never crash the
//! pipeline and skip themselves when their tool is missing.
//!
//! The seed's names map to ours as `runStart` → `session_start`, `afterStep` → `step_end`,
//! `runEnd` → `session_end`; its `AgentRunContext` is `StepEnd` (`runId` = the session id,
//! `stepId`, `agentRole`, `stepStatus`, `durationMs`, `tokensUsed`, the summaries).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookrail_builtin::audit::{Audit, AuditConfig, AuditReader};
use hookrail_builtin::task_tracker::{TaskTracker, TaskTrackerConfig};
use hookrail_core::context::{
    Meta, SessionEnd, SessionEndReason, SessionStart, StepEnd, StepStatus, ToolCall,
};
use hookrail_core::points::step_end;
use hookrail_core::runtime::{Hook, Hooks, HooksBuilder, HooksProvider, PointSet, Session};
use hookrail_core::{FailureCause, HookResult};
use serde_json::json;

use crate::support::{Project, Seen};

/// A builder whose environment is `vars` only (the seed's `GWI_*` variables are `HOOKS_*` here).
fn with_env(vars: &[(&str, &str)]) -> HooksBuilder {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Hooks::builder()
        .env_source(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
}

/// The seed's `AgentHook` interface translated: `onRunStart`, `onAfterStep`, `onRunEnd` and
/// `isEnabled`, as a provider.
struct AgentHook {
    seen: Seen,
    tool_installed: bool,
    asked: Arc<AtomicUsize>,
}

impl HooksProvider for AgentHook {
    fn name(&self) -> &str {
        "gwi_agent_hook"
    }

    fn points(&self) -> PointSet {
        PointSet::SESSION_START | PointSet::STEP_END | PointSet::SESSION_END
    }

    fn is_enabled(&self, _meta: &Meta) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.tool_installed
    }

    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        self.seen.push(format!("runStart {}", ctx.meta.session_id));
        Ok(())
    }

    fn step_end(&self, ctx: &StepEnd) -> HookResult<()> {
        self.seen.push(format!(
            "afterStep {} {} role={} status={:?} summary={}",
            ctx.meta.session_id,
            ctx.step_id,
            ctx.agent_role.as_deref().unwrap_or("-"),
            ctx.status,
            ctx.output_summary.as_deref().unwrap_or("-"),
        ));
        Ok(())
    }

    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        self.seen.push(format!(
            "runEnd {} success={}",
            ctx.meta.session_id, ctx.success
        ));
        Ok(())
    }
}

fn agent_hook(seen: &Seen, tool_installed: bool) -> (AgentHook, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let hook = AgentHook {
        seen: seen.clone(),
        tool_installed,
        asked: asked.clone(),
    };
    (hook, asked)
}

/// The seed's "Engine Integration" flow: `runStart`, `afterStep` per step, `runEnd`.
#[tokio::test]
async fn the_runner_is_called_at_run_start_after_each_step_and_at_run_end() {
    let seen = Seen::default();
    let (hook, _) = agent_hook(&seen, true);
    let hooks = with_env(&[]).provider(hook).build().unwrap();
    let meta = Meta::new("run-123").with_agent("FOREMAN");
    let mut session = Session::start(hooks, meta, "model").await.unwrap();
    let triage = session.step_end("triage", StepStatus::Completed).await;
    let coder = session.step_end("coder", StepStatus::Failed).await;
    session.end(SessionEndReason::Completed, false).await;

    assert_eq!(
        (triage.step_id.as_str(), triage.status),
        ("triage", StepStatus::Completed)
    );
    assert_eq!(coder.status, StepStatus::Failed);
    assert_eq!(
        seen.all(),
        [
            "runStart run-123",
            "afterStep run-123 triage role=- status=Completed summary=-",
            "afterStep run-123 coder role=- status=Failed summary=-",
            "runEnd run-123 success=false",
        ]
    );
}

/// The seed's `AgentRunContext` fields, as a hook receives them from an agent loop that
/// dispatches `step_end` itself (the seed's `hookRunner.afterStep({...})`).
#[tokio::test]
async fn after_step_carries_the_agent_run_context() {
    let seen = Seen::default();
    let (hook, _) = agent_hook(&seen, true);
    let hooks = with_env(&[]).provider(hook).build().unwrap();
    let mut ctx = StepEnd::new(Meta::new("run-123"), "step-456", StepStatus::Completed);
    ctx.agent_role = Some("CODER".into());
    ctx.duration_ms = 1200;
    ctx.output_summary = Some("Applied 3 conflict resolutions".into());
    hooks.dispatch_async::<step_end::Point>(&mut ctx).await;
    assert_eq!(
        seen.all(),
        [
            "afterStep run-123 step-456 role=CODER status=Completed summary=Applied 3 conflict resolutions"
        ]
    );
    // The context serializes with the seed's fields for hooks in other languages.
    let json = serde_json::to_value(&ctx).unwrap();
    assert_eq!(json["step_id"], "step-456");
    assert_eq!(json["agent_role"], "CODER");
    assert_eq!(json["duration_ms"], 1200);
}

/// "Hook failures don't crash the main pipeline": a hook that errors, one that panics and one
/// that hangs past the timeout (`GWI_HOOK_TIMEOUT_MS` → `HOOKS_TIMEOUT_MS`) are recorded as
/// failures; the other hooks still run and the run goes on.
#[tokio::test]
async fn failing_panicking_and_hanging_hooks_never_stop_the_run() {
    let seen = Seen::default();
    let (hook, _) = agent_hook(&seen, true);
    let failures = Seen::default();
    let sink = failures.clone();
    let hooks = with_env(&[("HOOKS_TIMEOUT_MS", "50")])
        .provider(hook)
        .hook(Hook::<step_end::Point>::new("errs", |_: &StepEnd| {
            Err::<(), _>(std::io::Error::other("AgentFS is down"))
        }))
        .hook(Hook::<step_end::Point>::new(
            "panics",
            |_: &StepEnd| -> () { panic!("a bug in a hook") },
        ))
        .hook(Hook::<step_end::Point>::new_async("hangs", |_| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(30)).await;
            })
        }))
        .build()
        .unwrap();
    hooks.subscribe(move |run| {
        if let hookrail_core::runtime::RunResult::Failed { cause, .. } = run.result {
            let what = match cause {
                FailureCause::Error(_) => "error",
                FailureCause::Panic(_) => "panic",
                FailureCause::Timeout(t) => {
                    assert_eq!(*t, Duration::from_millis(50));
                    "timeout"
                }
                _ => "other",
            };
            sink.push(format!("{} {what}", run.hook));
        }
    });
    let mut session = Session::start(hooks, Meta::new("run-1"), "model")
        .await
        .unwrap();
    session.step_end("coder", StepStatus::Completed).await;
    let end = session.end(SessionEndReason::Completed, true).await;
    assert!(end.success);
    let mut failed = failures.all();
    failed.sort();
    assert_eq!(failed, ["errs error", "hangs timeout", "panics panic"]);
    assert!(
        seen.all()
            .iter()
            .any(|s| s.starts_with("afterStep run-1 coder"))
    );
    assert!(seen.all().iter().any(|s| s == "runEnd run-1 success=true"));
}

/// "Hooks check availability and skip if missing": `isEnabled` is asked once per run, and a
/// hook whose tool is missing sees nothing.
#[tokio::test]
async fn a_hook_whose_tool_is_missing_skips_itself_once_per_run() {
    let seen = Seen::default();
    let (hook, asked) = agent_hook(&seen, false);
    let hooks = with_env(&[]).provider(hook).build().unwrap();
    let mut session = Session::start(hooks, Meta::new("run-1"), "model")
        .await
        .unwrap();
    for step in ["a", "b", "c"] {
        session.step_end(step, StepStatus::Completed).await;
    }
    session.end(SessionEndReason::Completed, true).await;
    assert!(seen.all().is_empty(), "{:?}", seen.all());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

/// `GWI_BEADS_ENABLED` (default `false`): an opt-in hook runs only when the environment turns
/// it on (`HOOKS_ENABLE`), and `HOOKS_DISABLE` switches any hook off.
#[tokio::test]
async fn hooks_are_switched_on_and_off_by_the_environment() {
    for (vars, runs) in [
        (&[][..], false),
        (&[("HOOKS_ENABLE", "beads")][..], true),
        (
            &[("HOOKS_ENABLE", "beads"), ("HOOKS_DISABLE", "beads")][..],
            false,
        ),
    ] {
        let seen = Seen::default();
        let sink = seen.clone();
        let beads = Hook::<step_end::Point>::new("beads", move |ctx: &StepEnd| {
            sink.push(ctx.step_id.clone());
        })
        .enabled_by_default(false);
        let hooks = with_env(vars).hook(beads).build().unwrap();
        let mut ctx = StepEnd::new(Meta::new("run-1"), "step-1", StepStatus::Completed);
        hooks.dispatch_async::<step_end::Point>(&mut ctx).await;
        assert_eq!(seen.all().len(), usize::from(runs), "{vars:?}");
    }
}

/// `AgentFSHook`: every tool call recorded with its times, input and output
/// (`agent.tools.record`), and key-value state (`agent.kv.set/get`).
#[tokio::test]
async fn the_audit_hook_records_tool_calls_and_key_value_state() {
    let project = Project::new();
    let path = project.path().join("agentfs.db");
    let audit = Audit::new(AuditConfig {
        path: path.clone(),
        ..AuditConfig::default()
    })
    .unwrap();
    let hooks = audit.install(with_env(&[])).unwrap();
    let meta = Meta::new("run-123").with_cwd(project.path());
    let mut session = Session::start(hooks, meta, "model").await.unwrap();
    let call = ToolCall::new(
        "toolu_1",
        "gwi:coder:step",
        json!({"runId": "run-123", "stepId": "s1"}),
    );
    session
        .tool_call(call, async |_| Ok(json!({"status": "completed"})))
        .await
        .unwrap();
    session.end(SessionEndReason::Completed, true).await;
    audit
        .kv_set(
            "run-123",
            "steps:run-123:step-456",
            json!({"status": "completed"}),
        )
        .unwrap();
    assert_eq!(
        audit.kv_get("run-123", "steps:run-123:step-456").unwrap(),
        Some(json!({"status": "completed"}))
    );
    audit.close().unwrap();

    let reader = AuditReader::open(&path).unwrap();
    let calls = reader.tool_calls("run-123").unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool_name, "gwi:coder:step");
    assert!(calls[0].started_ms <= calls[0].ts_ms);
    assert_eq!(
        calls[0].input_json(),
        Some(json!({"runId": "run-123", "stepId": "s1"}))
    );
    assert_eq!(calls[0].output_json(), Some(json!({"status": "completed"})));
    assert_eq!(
        reader.kv("run-123").unwrap().get("steps:run-123:step-456"),
        Some(&json!({"status": "completed"}))
    );
}

/// `BeadsHook` and its heuristics, against a fake `bd` that logs its arguments: a RESOLVE run
/// is tracked from its start, a failed step blocks its task, the run's end closes it; a simple
/// completion creates nothing.
#[cfg(unix)]
#[tokio::test]
async fn the_task_hook_tracks_resolve_runs_and_skips_simple_completions() {
    let project = Project::new();
    let bd = project.script(
        "bd",
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$(dirname \"$0\")/bd.log\"\n\
         [ \"$1\" = create ] && printf '{\"id\":\"bd-1\"}\\n'\nexit 0\n",
    );
    let tracker = TaskTracker::new(TaskTrackerConfig {
        program: bd.display().to_string(),
        title: "GWI: {agent} run {session}".into(),
        ..TaskTrackerConfig::default()
    })
    .unwrap();
    let hooks = with_env(&[])
        .provider_at(100, tracker.clone())
        .build()
        .unwrap();

    // A simple completion by a triage agent: nothing.
    let meta = Meta::new("run-simple")
        .with_agent("triage")
        .with_cwd(project.path());
    let mut session = Session::start(hooks.clone(), meta, "model").await.unwrap();
    session.step_end("triage", StepStatus::Completed).await;
    session.end(SessionEndReason::Completed, true).await;
    tracker.flush();
    assert_eq!(project.read("bd.log"), "");

    // A RESOLVE run: created at its start, blocked by a failed step, closed at its end.
    let meta = Meta::new("run-resolve")
        .with_agent("resolve")
        .with_cwd(project.path());
    let mut session = Session::start(hooks, meta, "model").await.unwrap();
    session.step_end("coder", StepStatus::Failed).await;
    session.end(SessionEndReason::Completed, true).await;
    tracker.close();
    let log = project.read("bd.log");
    let verbs: Vec<String> = log
        .lines()
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        verbs,
        ["create GWI:", "update bd-1", "close bd-1"].map(String::from),
        "{log}"
    );
    assert!(
        log.lines().nth(1).unwrap().contains("--status blocked"),
        "{log}"
    );
}
