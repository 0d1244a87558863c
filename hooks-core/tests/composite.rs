//! `CompositeHooksProvider` (seed 000): members in order, the first deny wins, void points
//! fire every member, a failing member neither stops the others nor hides a later deny.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_core::context::{
    ErrorKind, ErrorOccurred, Meta, PostToolUse, PreToolUse, SessionEnd, SessionEndReason,
};
use hookrail_core::context::{
    PermissionRequest, PostToolBatch, PreModelCall, PreModelSwitch, Stop, SubagentStart,
    UserPromptSubmit,
};
use hookrail_core::points::{error_occurred, post_tool_use, pre_tool_use, session_end};
use hookrail_core::runtime::{
    CompositeHooksProvider, Hooks, HooksProvider, MemberFailure, PointSet,
};
use hookrail_core::{FailureCause, HookError, HookResult, OnError, Recovery, Verdict};
use serde_json::json;

type Log = Arc<Mutex<Vec<String>>>;

/// A member that logs every call and answers as configured.
struct Probe {
    name: &'static str,
    log: Log,
    points: PointSet,
    verdict: Verdict,
    /// `Some("error")` returns an error, `Some("panic")` panics, at every point.
    fail: Option<&'static str>,
    recovery: Option<Recovery>,
    opt_in: bool,
    enabled_for: Option<&'static str>,
    asked: Arc<AtomicU32>,
}

impl Probe {
    fn new(name: &'static str, log: &Log) -> Self {
        Probe {
            name,
            log: log.clone(),
            points: PointSet::ALL,
            verdict: Verdict::Continue,
            fail: None,
            recovery: None,
            opt_in: false,
            enabled_for: None,
            asked: Arc::default(),
        }
    }

    fn answers(mut self, verdict: Verdict) -> Self {
        self.verdict = verdict;
        self
    }

    fn failing(mut self, how: &'static str) -> Self {
        self.fail = Some(how);
        self
    }

    fn called(&self, point: &str) -> HookResult<()> {
        self.log
            .lock()
            .unwrap()
            .push(format!("{}@{point}", self.name));
        match self.fail {
            Some("panic") => panic!("{} blew up", self.name),
            Some(_) => Err(HookError::new(format!("{} is down", self.name))),
            None => Ok(()),
        }
    }
}

impl HooksProvider for Probe {
    fn name(&self) -> &str {
        self.name
    }
    fn points(&self) -> PointSet {
        self.points
    }
    fn enabled_by_default(&self) -> bool {
        !self.opt_in
    }
    fn is_enabled(&self, meta: &Meta) -> bool {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.enabled_for.is_none_or(|s| *meta.session_id == *s)
    }
    fn pre_tool_use(&self, _: &mut PreToolUse) -> HookResult<Verdict> {
        self.called("pre_tool_use")?;
        Ok(self.verdict.clone())
    }
    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        self.called("post_tool_use")?;
        let seen = ctx.tool_response.as_str().unwrap_or_default().to_owned();
        ctx.tool_response = json!(format!("{seen}+{}", self.name));
        Ok(())
    }
    fn session_end(&self, _: &SessionEnd) -> HookResult<()> {
        self.called("session_end")
    }
    fn error_occurred(&self, _: &ErrorOccurred) -> HookResult<Option<Recovery>> {
        self.called("error_occurred")?;
        Ok(self.recovery.clone())
    }
}

fn hooks(composite: CompositeHooksProvider) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider(composite)
        .build()
        .unwrap()
}

fn rm() -> PreToolUse {
    PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "rm -rf /"}))
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

fn member_failure(cause: &FailureCause) -> &MemberFailure {
    let FailureCause::Error(error) = cause else {
        panic!("not an error: {cause}")
    };
    error
        .inner()
        .downcast_ref::<MemberFailure>()
        .expect("the composite reports a MemberFailure")
}

#[test]
fn the_first_deny_wins_and_the_members_after_it_do_not_run() {
    let log = Log::default();
    let composite = CompositeHooksProvider::new("tenant")
        .with(Probe::new("allows", &log).answers(Verdict::Allow))
        .with(Probe::new("denies", &log).answers(Verdict::deny("no rm")))
        .with(Probe::new("asks", &log).answers(Verdict::ask("sure?")));
    let hooks = hooks(composite);
    let out = hooks.dispatch::<pre_tool_use::Point>(&mut rm());
    assert_eq!(out.value, Verdict::deny("no rm"));
    assert_eq!(out.decided_by.as_deref(), Some("tenant"));
    assert_eq!(
        taken(&log),
        ["allows@pre_tool_use", "denies@pre_tool_use"],
        "an allow does not end the chain; a deny does"
    );
}

#[test]
fn without_a_deny_the_most_restrictive_answer_wins() {
    let log = Log::default();
    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("asks", &log).answers(Verdict::ask("sure?")))
        .with(Probe::new("allows", &log).answers(Verdict::Allow))
        .with(Probe::new("silent", &log));
    let out = hooks(composite).dispatch::<pre_tool_use::Point>(&mut rm());
    assert_eq!(out.value, Verdict::ask("sure?"));
    assert_eq!(taken(&log).len(), 3);
}

#[test]
fn void_points_fire_every_member_even_after_a_failure_which_is_reported_by_name() {
    let log = Log::default();
    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("metrics", &log).failing("error"))
        .with(Probe::new("audit", &log).failing("panic"))
        .with(Probe::new("report", &log));
    let hooks = hooks(composite);
    let mut end = SessionEnd::new(Meta::new("s1"), SessionEndReason::Completed, true);
    let out = hooks.dispatch::<session_end::Point>(&mut end);
    assert_eq!(
        taken(&log),
        [
            "metrics@session_end",
            "audit@session_end",
            "report@session_end"
        ]
    );
    assert_eq!(out.failures.len(), 1, "{:?}", out.failures);
    let failure = &out.failures[0];
    assert_eq!(failure.hook, "c");
    assert_eq!(failure.policy, OnError::Continue);
    let member = member_failure(&failure.cause);
    assert_eq!(member.member, "metrics");
    assert!(
        failure.to_string().contains("member `metrics`"),
        "{failure}"
    );
}

#[test]
fn transforms_chain_through_every_member_and_a_failure_does_not_skip_the_ones_after_it() {
    let log = Log::default();
    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("a", &log))
        .with(Probe::new("broken", &log).failing("panic"))
        .with(Probe::new("scrub", &log));
    let hooks = hooks(composite);
    let mut post = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("out"), 1);
    let out = hooks.dispatch::<post_tool_use::Point>(&mut post);
    assert_eq!(
        post.tool_response,
        json!("out+a+scrub"),
        "each member saw the previous one's change"
    );
    let member = member_failure(&out.failures[0].cause);
    assert_eq!(member.member, "broken");
    assert!(
        matches!(&member.cause, FailureCause::Panic(m) if m.contains("broken blew up")),
        "{member}"
    );
}

#[test]
fn a_failing_guard_member_never_hides_a_later_deny_and_alone_fails_closed() {
    let log = Log::default();
    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("down", &log).failing("error"))
        .with(Probe::new("denies", &log).answers(Verdict::deny("no rm")));
    let out = hooks(composite).dispatch::<pre_tool_use::Point>(&mut rm());
    assert_eq!(
        out.value,
        Verdict::deny("no rm"),
        "the deny, not the failure"
    );
    assert!(out.failures.is_empty());

    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("down", &log).failing("error"))
        .with(Probe::new("allows", &log).answers(Verdict::Allow));
    let out = hooks(composite).dispatch::<pre_tool_use::Point>(&mut rm());
    assert!(
        out.is_denied(),
        "a guard that cannot decide blocks: {out:?}"
    );
    let reason = out.value.reason().unwrap_or_default().to_owned();
    assert!(reason.contains("member `down`"), "{reason}");
}

#[test]
fn the_first_recovery_wins() {
    let log = Log::default();
    let mut retry = Probe::new("retry", &log);
    retry.recovery = Some(Recovery::retry(Duration::from_millis(5)));
    let mut fallback = Probe::new("fallback", &log);
    fallback.recovery = Some(Recovery::fallback("small", Duration::ZERO));
    let composite = CompositeHooksProvider::new("c")
        .with(Probe::new("none", &log))
        .with(retry)
        .with(fallback);
    let mut err = ErrorOccurred::new(Meta::new("s1"), ErrorKind::Network, "reset");
    let out = hooks(composite).dispatch::<error_occurred::Point>(&mut err);
    assert_eq!(out.value, Some(Recovery::retry(Duration::from_millis(5))));
    assert_eq!(taken(&log), ["none@error_occurred", "retry@error_occurred"]);
}

#[test]
fn members_take_part_only_in_their_points_and_sessions() {
    let log = Log::default();
    let mut tools_only = Probe::new("tools_only", &log);
    tools_only.points = PointSet::PRE_TOOL_USE;
    let mut only_s2 = Probe::new("only_s2", &log);
    only_s2.points = PointSet::PRE_TOOL_USE | PointSet::SESSION_END;
    only_s2.enabled_for = Some("s2");
    let asked = only_s2.asked.clone();
    let composite = CompositeHooksProvider::new("c")
        .with(tools_only)
        .with(only_s2);
    assert_eq!(
        composite.points(),
        PointSet::PRE_TOOL_USE | PointSet::SESSION_END
    );
    let hooks = hooks(composite);
    let mut end = SessionEnd::new(Meta::new("s2"), SessionEndReason::Completed, true);
    let _ = hooks.dispatch::<session_end::Point>(&mut end);
    assert_eq!(taken(&log), ["only_s2@session_end"]);
    for _ in 0..3 {
        let _ = hooks.dispatch::<pre_tool_use::Point>(&mut rm());
    }
    assert_eq!(
        taken(&log),
        ["tools_only@pre_tool_use"; 3],
        "only_s2 is off in s1"
    );
    assert_eq!(
        asked.load(Ordering::Relaxed),
        2,
        "is_enabled asked once per session"
    );
}

#[test]
fn a_composite_with_an_opt_in_member_is_off_until_enabled_by_its_name() {
    let log = Log::default();
    let mut opt_in = Probe::new("opt_in", &log).answers(Verdict::deny("no"));
    opt_in.opt_in = true;
    let composite = CompositeHooksProvider::new("grouped")
        .with(Probe::new("plain", &log))
        .with(opt_in);
    assert!(!composite.enabled_by_default());
    let hooks = hooks(composite);
    assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut rm()).is_denied());
    assert!(taken(&log).is_empty(), "the composite is off");
    hooks.enable("grouped");
    assert!(hooks.dispatch::<pre_tool_use::Point>(&mut rm()).is_denied());
}

/// A member that denies at every guard point.
struct DenyAll;

impl HooksProvider for DenyAll {
    fn name(&self) -> &str {
        "deny_all"
    }
    fn user_prompt_submit(&self, _: &mut UserPromptSubmit) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn pre_model_call(&self, _: &mut PreModelCall) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn pre_tool_use(&self, _: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn stop(&self, _: &mut Stop) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn subagent_start(&self, _: &mut SubagentStart) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn permission_request(&self, _: &mut PermissionRequest) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn post_tool_batch(&self, _: &mut PostToolBatch) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
    fn pre_model_switch(&self, _: &mut PreModelSwitch) -> HookResult<Verdict> {
        Ok(Verdict::deny("no"))
    }
}

/// Every guard point of the catalog reaches the members: a point the composite did not
/// forward would fall back to the trait's no-op and let everything through.
#[test]
fn every_guard_point_reaches_the_members() {
    use hookrail_core::points;
    let hooks = hooks(CompositeHooksProvider::new("all").with(DenyAll));
    let meta = || Meta::new("s1");
    let denied = [
        hooks
            .dispatch::<points::user_prompt_submit::Point>(&mut UserPromptSubmit::new(meta(), "x"))
            .is_denied(),
        hooks
            .dispatch::<points::pre_model_call::Point>(&mut PreModelCall::new(meta(), "m", vec![]))
            .is_denied(),
        hooks
            .dispatch::<points::pre_tool_use::Point>(&mut rm())
            .is_denied(),
        hooks
            .dispatch::<points::stop::Point>(&mut Stop::new(meta()))
            .is_denied(),
        hooks
            .dispatch::<points::subagent_start::Point>(&mut SubagentStart::new(
                meta(),
                "a",
                "m",
                "t",
            ))
            .is_denied(),
        hooks
            .dispatch::<points::permission_request::Point>(&mut PermissionRequest::new(
                meta(),
                "Bash",
                json!({}),
            ))
            .is_denied(),
        hooks
            .dispatch::<points::post_tool_batch::Point>(&mut PostToolBatch::new(meta(), vec![]))
            .is_denied(),
        hooks
            .dispatch::<points::pre_model_switch::Point>(&mut PreModelSwitch::new(meta(), "a", "b"))
            .is_denied(),
    ];
    assert_eq!(denied, [true; 8]);
    // Every guard point of the catalog is among the eight above.
    let guards: Vec<&str> = hookrail_core::registry::points()
        .into_iter()
        .filter(|p| points::NAMES.contains(&p.name()))
        .filter(|p| p.kind() == hookrail_core::kind::KindId::Guard)
        .map(|p| p.name())
        .collect();
    assert_eq!(
        guards.len(),
        8,
        "a new guard point needs a line in the composite and here: {guards:?}"
    );
}
