//! Seed 001 (Git With Intent): hooks switched on, timed and debugged through `HOOKS_*`
//! variables, and providers that answer "am I enabled" once per session.
//!
//! The environment is given with `HooksBuilder::env_source`, never by changing the process
//! environment, so these tests run in parallel. Log lines are counted with a capture that is
//! this thread's subscriber only (`support/logs.rs`).
//!
//! The helpers (`env`, `Tracker`, `Logs`) are written to be reused by the seed conformance
//! tests: include this file's `support` module with `#[path]`.

#[path = "support/logs.rs"]
mod logs;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_core::context::{Meta, PreToolUse, SessionEndReason, StepEnd, StepStatus, ToolCall};
use hookrail_core::points::{pre_tool_use, session_start, step_end};
use hookrail_core::runtime::{
    Hook, HookListing, Hooks, HooksBuilder, HooksProvider, PointSet, Session, ToolRun,
    default_timeout,
};
use hookrail_core::{FailureCause, HookResult, Verdict};
use logs::Logs;
use serde_json::json;
use tracing::Level;

/// A builder whose `HOOKS_*` variables are `vars` (and nothing else).
fn env(vars: &[(&str, &str)]) -> HooksBuilder {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Hooks::builder()
        .env_source(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
}

/// Seed 001's `BeadsHook` as a provider: an observer of steps that tracks work with a CLI,
/// opt-in like `GWI_BEADS_ENABLED`, and enabled only where its tool is "installed".
struct Tracker {
    name: &'static str,
    opt_in: bool,
    installed: bool,
    /// How many times `is_enabled` was asked.
    asked: Arc<AtomicUsize>,
    /// How many steps it saw.
    steps: Arc<AtomicUsize>,
}

impl Tracker {
    fn new(name: &'static str) -> Self {
        Tracker {
            name,
            opt_in: false,
            installed: true,
            asked: Arc::default(),
            steps: Arc::default(),
        }
    }

    fn opt_in(mut self) -> Self {
        self.opt_in = true;
        self
    }

    fn missing_tool(mut self) -> Self {
        self.installed = false;
        self
    }
}

impl HooksProvider for Tracker {
    fn name(&self) -> &str {
        self.name
    }

    fn points(&self) -> PointSet {
        PointSet::STEP_END | PointSet::SESSION_START | PointSet::PRE_TOOL_USE
    }

    fn enabled_by_default(&self) -> bool {
        !self.opt_in
    }

    fn is_enabled(&self, _meta: &Meta) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.installed
    }

    fn step_end(&self, _ctx: &StepEnd) -> HookResult<()> {
        if !self.installed {
            return Err(hookrail_core::HookError::new("bd: command not found"));
        }
        self.steps.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn pre_tool_use(&self, _ctx: &mut PreToolUse) -> HookResult<Verdict> {
        if !self.installed {
            return Err(hookrail_core::HookError::new("bd: command not found"));
        }
        Ok(Verdict::Continue)
    }
}

/// A guard provider whose availability check crashes.
struct PanickyGuard;

impl HooksProvider for PanickyGuard {
    fn name(&self) -> &str {
        "panicky_guard"
    }

    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
    }

    fn is_enabled(&self, _meta: &Meta) -> bool {
        panic!("cannot tell whether the policy service is up")
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(if ctx.tool_name == "Bash" {
            Verdict::deny("no shell")
        } else {
            Verdict::Continue
        })
    }
}

fn listing(hooks: &Hooks, name: &str) -> Vec<HookListing> {
    hooks
        .list()
        .into_iter()
        .filter(|h| h.name == name)
        .collect()
}

fn step(session: &str) -> StepEnd {
    StepEnd::new(Meta::new(session), "step-1", StepStatus::Completed)
}

fn bash(session: &str) -> PreToolUse {
    PreToolUse::new(Meta::new(session), "Bash", json!({"command": "ls"}))
}

// ---- opt-in hooks: HOOKS_ENABLE, HOOKS_DISABLE ----

#[test]
fn an_opt_in_provider_is_listed_but_off_until_hooks_enable_names_it() {
    let off = env(&[])
        .provider(Tracker::new("beads").opt_in())
        .build()
        .unwrap();
    let entries = listing(&off, "beads");
    assert_eq!(entries.len(), 3, "listed at each of its points");
    assert!(entries.iter().all(|h| !h.enabled && !h.enabled_by_default));
    let mut ctx = step("s1");
    assert!(
        off.dispatch::<step_end::Point>(&mut ctx)
            .failures
            .is_empty()
    );

    let tracker = Tracker::new("beads").opt_in();
    let steps = tracker.steps.clone();
    let on = env(&[("HOOKS_ENABLE", "agentfs,beads")])
        .provider(tracker)
        .build()
        .unwrap();
    assert!(listing(&on, "beads").iter().all(|h| h.enabled));
    on.dispatch::<step_end::Point>(&mut ctx);
    assert_eq!(steps.load(Ordering::SeqCst), 1);
}

#[test]
fn an_opt_in_closure_hook_is_switched_on_by_hooks_enable_or_the_builder() {
    let hook = || Hook::<step_end::Point>::new("agentfs", |_ctx| ()).enabled_by_default(false);
    let enabled = |h: &Hooks| listing(h, "agentfs")[0].enabled;
    assert!(!enabled(&env(&[]).hook(hook()).build().unwrap()));
    assert!(enabled(
        &env(&[("HOOKS_ENABLE", "agentfs")])
            .hook(hook())
            .build()
            .unwrap()
    ));
    assert!(enabled(
        &Hooks::builder()
            .ignore_env()
            .hook(hook())
            .enable("agentfs")
            .build()
            .unwrap()
    ));
}

#[test]
fn hooks_disable_wins_over_hooks_enable_for_the_same_name() {
    let hooks = env(&[("HOOKS_ENABLE", "beads"), ("HOOKS_DISABLE", "beads")])
        .provider(Tracker::new("beads").opt_in())
        .build()
        .unwrap();
    assert!(listing(&hooks, "beads").iter().all(|h| !h.enabled));
    // And a hook that is on by default is switched off by HOOKS_DISABLE, enabled or not.
    let hooks = env(&[("HOOKS_ENABLE", "beads"), ("HOOKS_DISABLE", "beads")])
        .provider(Tracker::new("beads"))
        .build()
        .unwrap();
    assert!(listing(&hooks, "beads").iter().all(|h| !h.enabled));
}

#[test]
fn hooks_enable_only_switches_opt_in_hooks_on_and_never_off() {
    let hooks = env(&[("HOOKS_ENABLE", "something_else")])
        .provider(Tracker::new("beads"))
        .build()
        .unwrap();
    assert!(listing(&hooks, "beads").iter().all(|h| h.enabled));
}

#[test]
fn hooks_enable_at_run_time_switches_an_opt_in_hook_on() {
    let tracker = Tracker::new("beads").opt_in();
    let steps = tracker.steps.clone();
    let hooks = Hooks::builder()
        .ignore_env()
        .provider(tracker)
        .build()
        .unwrap();
    hooks.dispatch::<step_end::Point>(&mut step("s1"));
    assert_eq!(steps.load(Ordering::SeqCst), 0);
    assert!(hooks.enable("beads"), "it was off");
    hooks.dispatch::<step_end::Point>(&mut step("s1"));
    assert_eq!(steps.load(Ordering::SeqCst), 1);
    assert!(!hooks.enable("beads"), "already on");
    hooks.disable("beads");
    hooks.dispatch::<step_end::Point>(&mut step("s1"));
    assert_eq!(steps.load(Ordering::SeqCst), 1, "disable wins");
}

#[test]
fn ignore_env_reads_no_variable_and_the_last_env_call_decides() {
    let vars = [("HOOKS_ENABLE", "beads"), ("HOOKS_DEBUG", "1")];
    let ignored = env(&vars)
        .ignore_env()
        .provider(Tracker::new("beads").opt_in())
        .build()
        .unwrap();
    assert!(!ignored.debug());
    assert!(listing(&ignored, "beads").iter().all(|h| !h.enabled));
    let read = Hooks::builder()
        .ignore_env()
        .env_source(|name| (name == "HOOKS_DEBUG").then(|| "1".to_owned()))
        .build()
        .unwrap();
    assert!(read.debug());
}

#[test]
fn an_opt_in_hook_is_marked_in_the_listing_json_and_others_are_unchanged() {
    let hooks = env(&[])
        .hook(Hook::<step_end::Point>::new("agentfs", |_ctx| ()).enabled_by_default(false))
        .hook(Hook::<step_end::Point>::new("always", |_ctx| ()))
        .build()
        .unwrap();
    let json = |name: &str| serde_json::to_value(&listing(&hooks, name)[0]).unwrap();
    assert_eq!(json("agentfs")["enabled_by_default"], json!(false));
    assert_eq!(json("agentfs")["enabled"], json!(false));
    assert!(json("always").get("enabled_by_default").is_none());
}

// ---- HOOKS_TIMEOUT_MS ----

fn timeout_of(hooks: &Hooks, name: &str) -> Duration {
    listing(hooks, name)[0].timeout
}

fn slow(name: &str) -> Hook<step_end::Point> {
    Hook::<step_end::Point>::new_async(name, |_ctx| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        })
    })
}

#[test]
fn hooks_timeout_ms_is_the_default_of_hooks_without_their_own() {
    let hooks = env(&[("HOOKS_TIMEOUT_MS", "5000")])
        .hook(slow("plain"))
        .hook(slow("own").timeout(Duration::from_millis(40)))
        .hook(Hook::<pre_tool_use::Point>::new("guard", |_ctx| {
            Verdict::Continue
        }))
        .build()
        .unwrap();
    assert_eq!(timeout_of(&hooks, "plain"), Duration::from_secs(5));
    assert_eq!(timeout_of(&hooks, "guard"), Duration::from_secs(5));
    assert_eq!(
        timeout_of(&hooks, "own"),
        Duration::from_millis(40),
        "a hook's own wins"
    );
}

#[test]
fn builder_timeouts_by_name_and_by_point_win_over_the_global_default() {
    let hooks = env(&[("HOOKS_TIMEOUT_MS", "5000")])
        .hook(slow("plain"))
        .hook(slow("named"))
        .hook(Hook::<pre_tool_use::Point>::new("guard", |_ctx| {
            Verdict::Continue
        }))
        .timeout("named", Duration::from_millis(7))
        .point_timeout::<pre_tool_use::Point>(Duration::from_millis(9))
        .build()
        .unwrap();
    assert_eq!(timeout_of(&hooks, "plain"), Duration::from_secs(5));
    assert_eq!(timeout_of(&hooks, "named"), Duration::from_millis(7));
    assert_eq!(timeout_of(&hooks, "guard"), Duration::from_millis(9));
}

#[test]
fn hooks_timeout_ms_replaces_the_builder_global_timeout() {
    let code = Hooks::builder()
        .ignore_env()
        .global_timeout(Duration::from_millis(300))
        .hook(slow("plain"))
        .build()
        .unwrap();
    assert_eq!(timeout_of(&code, "plain"), Duration::from_millis(300));
    let operator = env(&[("HOOKS_TIMEOUT_MS", "1200")])
        .global_timeout(Duration::from_millis(300))
        .hook(slow("plain"))
        .build()
        .unwrap();
    assert_eq!(timeout_of(&operator, "plain"), Duration::from_millis(1200));
}

#[tokio::test(start_paused = true)]
async fn an_async_hook_is_cut_off_at_hooks_timeout_ms() {
    let hooks = env(&[("HOOKS_TIMEOUT_MS", "50")])
        .hook(slow("plain"))
        .build()
        .unwrap();
    let out = hooks
        .dispatch_async::<step_end::Point>(&mut step("s1"))
        .await;
    assert_eq!(out.failures.len(), 1);
    assert!(matches!(
        out.failures[0].cause,
        FailureCause::Timeout(d) if d == Duration::from_millis(50)
    ));
}

#[test]
fn an_invalid_hooks_timeout_ms_is_one_warning_naming_it_and_the_defaults_stay() {
    for bad in ["0", "5s", "-1", "lots"] {
        let (logs, _guard) = Logs::capture();
        let hooks = env(&[("HOOKS_TIMEOUT_MS", bad)])
            .hook(slow("plain"))
            .build()
            .unwrap();
        assert_eq!(
            timeout_of(&hooks, "plain"),
            default_timeout("step_end"),
            "{bad:?}"
        );
        let warned = logs.matching(Level::WARN, &["HOOKS_TIMEOUT_MS"]);
        assert_eq!(warned.len(), 1, "{bad:?}: {:?}", logs.all());
        assert!(
            warned[0].fields.contains(bad),
            "names the value: {warned:?}"
        );
    }
}

#[test]
fn an_invalid_hooks_debug_is_one_warning_and_debug_stays_off() {
    let (logs, _guard) = Logs::capture();
    let hooks = env(&[("HOOKS_DEBUG", "verbose")]).build().unwrap();
    assert!(!hooks.debug());
    assert_eq!(logs.count(Level::WARN, &["HOOKS_DEBUG", "verbose"]), 1);
}

#[test]
fn hooks_debug_logs_every_hook_run_at_info() {
    let (logs, _guard) = Logs::capture();
    let hooks = env(&[("HOOKS_DEBUG", "1")])
        .hook(Hook::<step_end::Point>::new("noisy", |_ctx| ()))
        .build()
        .unwrap();
    assert!(hooks.debug());
    hooks.dispatch::<step_end::Point>(&mut step("s1"));
    assert!(
        logs.all()
            .iter()
            .any(|e| e.level == Level::INFO && e.text().contains("noisy")),
        "{:?}",
        logs.all()
    );
}

// ---- is_enabled ----

#[test]
fn a_provider_whose_tool_is_missing_is_skipped_with_one_log_line_per_session() {
    let (logs, _guard) = Logs::capture();
    let tracker = Tracker::new("beads").missing_tool();
    let asked = tracker.asked.clone();
    let hooks = env(&[]).provider(tracker).build().unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = runs.clone();
    hooks.subscribe(move |run| {
        if run.hook == "beads" {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    for _ in 0..5 {
        let out = hooks.dispatch::<step_end::Point>(&mut step("run-1"));
        assert!(out.failures.is_empty(), "never an error per call");
        let out = hooks.dispatch::<pre_tool_use::Point>(&mut bash("run-1"));
        assert!(out.failures.is_empty() && !out.is_denied());
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "asked once for the session"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0, "no run records");
    assert_eq!(
        logs.count(Level::INFO, &["beads", "run-1", "not enabled"]),
        1
    );
    assert_eq!(logs.count(Level::WARN, &["beads"]), 0);
    assert_eq!(logs.count(Level::ERROR, &["beads"]), 0);

    // Another session is asked (and logged) once more.
    hooks.dispatch::<step_end::Point>(&mut step("run-2"));
    hooks.dispatch::<step_end::Point>(&mut step("run-2"));
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(
        logs.count(Level::INFO, &["beads", "run-2", "not enabled"]),
        1
    );
}

#[test]
fn an_enabled_provider_is_asked_once_per_session_and_runs() {
    let (logs, _guard) = Logs::capture();
    let tracker = Tracker::new("beads");
    let (asked, steps) = (tracker.asked.clone(), tracker.steps.clone());
    let hooks = env(&[]).provider(tracker).build().unwrap();
    for _ in 0..4 {
        hooks.dispatch::<step_end::Point>(&mut step("run-1"));
    }
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(steps.load(Ordering::SeqCst), 4);
    assert_eq!(logs.count(Level::INFO, &["not enabled"]), 0);
}

#[test]
fn a_disabled_or_off_by_default_provider_is_not_even_asked() {
    let tracker = Tracker::new("beads").opt_in();
    let asked = tracker.asked.clone();
    let hooks = env(&[]).provider(tracker).build().unwrap();
    hooks.dispatch::<step_end::Point>(&mut step("run-1"));
    let tracker = Tracker::new("beads");
    let asked_too = tracker.asked.clone();
    let hooks_too = env(&[("HOOKS_DISABLE", "beads")])
        .provider(tracker)
        .build()
        .unwrap();
    hooks_too.dispatch::<step_end::Point>(&mut step("run-1"));
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    assert_eq!(asked_too.load(Ordering::SeqCst), 0);
    drop(hooks);
}

#[test]
fn a_guard_provider_whose_is_enabled_panics_stays_enabled_and_still_denies() {
    let (logs, _guard) = Logs::capture();
    let hooks = env(&[]).provider(PanickyGuard).build().unwrap();
    for _ in 0..3 {
        let out = hooks.dispatch::<pre_tool_use::Point>(&mut bash("run-1"));
        assert!(out.is_denied(), "fails closed: the guard still runs");
    }
    assert_eq!(
        logs.count(Level::WARN, &["panicky_guard", "run-1", "panicked"]),
        1,
        "{:?}",
        logs.all()
    );
}

#[tokio::test]
async fn in_a_session_a_provider_that_is_not_enabled_is_skipped_at_every_point() {
    let (logs, _guard) = Logs::capture();
    let tracker = Tracker::new("beads").missing_tool();
    let asked = tracker.asked.clone();
    let calls = Arc::new(Mutex::new(0));
    let hooks = env(&[]).provider(tracker).build().unwrap();
    let mut session = Session::start(hooks, Meta::new("run-9"), "model")
        .await
        .unwrap();
    for _ in 0..3 {
        let count = calls.clone();
        let run = session
            .tool_call(
                ToolCall::new("toolu_1", "Read", json!({"file_path": "a"})),
                async move |_input| {
                    *count.lock().unwrap() += 1;
                    Ok(json!("ok"))
                },
            )
            .await
            .unwrap();
        assert!(matches!(run, ToolRun::Ran(_)), "{run:?}");
        session.step_end("step", StepStatus::Completed).await;
    }
    session.end(SessionEndReason::Completed, true).await;
    assert_eq!(*calls.lock().unwrap(), 3);
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once per session");
    assert_eq!(
        logs.count(Level::INFO, &["beads", "run-9", "not enabled"]),
        1
    );
    assert_eq!(logs.count(Level::WARN, &["beads"]), 0);
}

#[test]
fn session_start_is_where_a_session_is_first_seen_when_it_is_a_provider_point() {
    let tracker = Tracker::new("beads").missing_tool();
    let asked = tracker.asked.clone();
    let hooks = env(&[]).provider(tracker).build().unwrap();
    let mut start = hookrail_core::context::SessionStart::new(Meta::new("run-3"), "model");
    hooks.dispatch::<session_start::Point>(&mut start);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    hooks.dispatch::<step_end::Point>(&mut step("run-3"));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}
