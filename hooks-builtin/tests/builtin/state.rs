#![cfg(any(
    feature = "rate-limit",
    feature = "budget",
    feature = "reviewer-lockout"
))]
//! Policy state across a restart ([`PersistentState`]): each stateful policy is filled, saved,
//! and restored into a fresh instance with the same settings, which then decides as the first
//! one would; wall time refills rate-limit buckets (never a clock set back); changed settings
//! drop only the state they no longer describe; damaged or newer snapshots are errors.

use hookrail_builtin::state::{PersistentState, StateError};
use serde_json::{Value, json};

/// Wall-clock time of the saves in these tests (2026-01-01), in Unix milliseconds.
const T: u64 = 1_767_225_600_000;

/// `saved` with `pointer` set to `value` (a new key of an object when it is not there).
fn edited(saved: &Value, pointer: &str, value: Value) -> Value {
    let mut out = saved.clone();
    if let Some(old) = out.pointer_mut(pointer) {
        *old = value;
        return out;
    }
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    out.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("{parent} is not an object in {saved}"))
        .insert(key.to_owned(), value);
    out
}

fn assert_malformed(err: &StateError, policy: &str, says: &str) {
    match err {
        StateError::Malformed { policy: p, message } => {
            assert_eq!(*p, policy, "{err}");
            assert!(message.contains(says), "{err}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

fn assert_newer(err: &StateError, policy: &str) {
    let expected = (2, 1);
    match err {
        StateError::UnsupportedFormat {
            policy: p,
            found,
            supported,
        } => assert_eq!((*p, (*found, *supported)), (policy, expected), "{err}"),
        other => panic!("expected UnsupportedFormat, got {other:?}"),
    }
    assert!(err.to_string().starts_with(&format!("{policy}: ")), "{err}");
}

#[cfg(feature = "rate-limit")]
mod rate_limit {
    use super::*;
    use std::sync::Arc;

    use hookrail_builtin::rate_limit::{KeyPart, Limit, ManualClock, RateLimit, RateLimitConfig};
    use hookrail_core::Verdict;
    use hookrail_core::context::{Meta, PreToolUse};
    use hookrail_core::runtime::HooksProvider;

    fn policy(tool_calls: Vec<Limit>) -> RateLimit {
        RateLimit::new(RateLimitConfig {
            tool_calls,
            model_calls: Vec::new(),
            ..RateLimitConfig::default()
        })
        .unwrap()
        .with_clock(Arc::new(ManualClock::new()))
    }

    fn two_per_minute() -> Vec<Limit> {
        vec![Limit {
            calls: 2,
            window_ms: 60_000,
            key: vec![KeyPart::Agent],
            ..Limit::default()
        }]
    }

    fn call(p: &RateLimit, agent: &str, tool: &str) -> Verdict {
        let mut ctx = PreToolUse::new(Meta::new("s1").with_agent(agent), tool, json!({}));
        p.pre_tool_use(&mut ctx).unwrap()
    }

    /// A policy of `limits` whose `coder` bucket is empty, and its snapshot at `T`.
    fn emptied(limits: Vec<Limit>) -> (RateLimit, Value) {
        let p = policy(limits);
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        let saved = p.save_state_at(T);
        (p, saved)
    }

    #[test]
    fn an_empty_bucket_is_still_empty_after_a_restart_with_the_same_reason() {
        let (before, saved) = emptied(two_per_minute());
        let denied = call(&before, "coder", "Read");
        assert_eq!(
            denied.reason(),
            Some("rate-limit: 2 tool calls per 60 s for agent \"coder\"; next in 30.0 s")
        );
        assert_eq!(saved["policy"], "rate_limit");
        assert_eq!(saved["format"], 1);
        assert_eq!(saved["saved_at_ms"], T);

        let after = policy(two_per_minute());
        let restored = after.restore_state_at(&saved, T).unwrap();
        assert_eq!((restored.kept, restored.dropped_count()), (1, 0));
        assert_eq!(call(&after, "coder", "Read"), denied);
        // Other keys were never limited, before or after.
        assert_eq!(call(&after, "reviewer", "Read"), Verdict::Continue);
    }

    #[test]
    fn wall_time_since_the_save_refills_but_never_past_the_burst() {
        let (_, saved) = emptied(two_per_minute());
        // 15 s later: half a call's worth.
        let p = policy(two_per_minute());
        p.restore_state_at(&saved, T + 15_000).unwrap();
        assert_eq!(
            call(&p, "coder", "Read").reason(),
            Some("rate-limit: 2 tool calls per 60 s for agent \"coder\"; next in 15.0 s")
        );
        // 30 s later: one call.
        let p = policy(two_per_minute());
        p.restore_state_at(&saved, T + 30_000).unwrap();
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        assert!(call(&p, "coder", "Read").is_deny());
        // A day later: a full bucket of two, and no more.
        let p = policy(two_per_minute());
        p.restore_state_at(&saved, T + 86_400_000).unwrap();
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        assert!(call(&p, "coder", "Read").is_deny());
    }

    #[test]
    fn a_clock_set_back_refills_nothing() {
        let (_, saved) = emptied(two_per_minute());
        let p = policy(two_per_minute());
        p.restore_state_at(&saved, T - 3_600_000).unwrap();
        assert_eq!(
            call(&p, "coder", "Read").reason(),
            Some("rate-limit: 2 tool calls per 60 s for agent \"coder\"; next in 30.0 s")
        );
    }

    #[test]
    fn a_changed_limit_drops_only_its_own_buckets_and_list_order_does_not_matter() {
        let general = Limit {
            calls: 2,
            window_ms: 60_000,
            key: vec![KeyPart::Tenant, KeyPart::Agent],
            ..Limit::default()
        };
        let bash = Limit {
            calls: 1,
            window_ms: 60_000,
            key: vec![KeyPart::Agent],
            tools: vec!["Bash".into(), "Shell".into()],
            ..Limit::default()
        };
        let p = policy(vec![general.clone(), bash.clone()]);
        assert_eq!(call(&p, "coder", "Bash"), Verdict::Continue);
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
        let saved = p.save_state_at(T);

        // The Bash limit moved to the front with its lists reordered; the general one now
        // allows three calls.
        let reordered = Limit {
            key: vec![KeyPart::Agent],
            tools: vec!["Shell".into(), "Bash".into()],
            ..bash
        };
        let changed = Limit {
            calls: 3,
            key: vec![KeyPart::Agent, KeyPart::Tenant],
            ..general.clone()
        };
        let after = policy(vec![reordered, changed]);
        let restored = after.restore_state_at(&saved, T).unwrap();
        assert_eq!((restored.kept, restored.dropped_count()), (1, 1));
        let reason = &restored.dropped[0].reason;
        assert!(
            reason.contains("tool_calls limit of 2 calls per 60000 ms")
                && reason.contains("no longer configured"),
            "{reason}"
        );
        assert!(
            call(&after, "coder", "Bash")
                .reason()
                .unwrap()
                .starts_with("rate-limit: 1 Shell/Bash calls per 60 s"),
            "the Bash bucket was kept"
        );
        for _ in 0..3 {
            assert_eq!(call(&after, "coder", "Read"), Verdict::Continue);
        }

        // The same general limit with its key parts in another order keeps its bucket.
        let swapped = Limit {
            key: vec![KeyPart::Agent, KeyPart::Tenant],
            ..general
        };
        let after = policy(vec![swapped]);
        assert_eq!(after.restore_state_at(&saved, T).unwrap().kept, 1);
        assert!(call(&after, "coder", "Read").is_deny());
    }

    #[test]
    fn max_buckets_holds_and_keeps_the_emptiest() {
        let per_session = vec![Limit {
            calls: 5,
            window_ms: 60_000,
            key: vec![KeyPart::Session],
            ..Limit::default()
        }];
        let p = policy(per_session.clone());
        for s in 0..5 {
            for _ in 0..=s {
                let mut ctx = PreToolUse::new(Meta::new(format!("s{s}")), "Read", json!({}));
                assert_eq!(p.pre_tool_use(&mut ctx).unwrap(), Verdict::Continue);
            }
        }
        let saved = p.save_state_at(T);
        let small = RateLimit::new(RateLimitConfig {
            tool_calls: per_session,
            model_calls: Vec::new(),
            max_buckets: 3,
            ..RateLimitConfig::default()
        })
        .unwrap();
        let restored = small.restore_state_at(&saved, T).unwrap();
        assert_eq!(small.bucket_count(), 3);
        assert_eq!(restored.dropped_count(), 2);
        assert!(
            restored.dropped[0].reason.contains("max_buckets (3)"),
            "{restored}"
        );
        // s4 used all five calls: its bucket is one of those kept.
        let mut s4 = PreToolUse::new(Meta::new("s4"), "Read", json!({}));
        assert!(small.pre_tool_use(&mut s4).unwrap().is_deny());
    }

    #[test]
    fn newer_or_damaged_snapshots_are_errors_and_change_nothing() {
        let (_, saved) = emptied(two_per_minute());
        let p = policy(two_per_minute());
        assert_newer(
            &p.restore_state_at(&edited(&saved, "/format", json!(2)), T)
                .unwrap_err(),
            "rate_limit",
        );
        let cases = [
            (
                edited(&saved, "/limits/0/buckets/0/level", json!(1)),
                "invalid type",
            ),
            (
                edited(&saved, "/limits/0/buckets/0/level", json!("120000000001")),
                "above the capacity",
            ),
            (
                edited(&saved, "/limits/0/buckets/0/level", json!("-5")),
                "non-negative",
            ),
            (
                edited(&saved, "/limits/0/buckets/0/key", json!([])),
                "0 values for 1 key parts",
            ),
            (
                edited(&saved, "/policy", json!("budget")),
                "policy `budget`",
            ),
            (edited(&saved, "/limits", json!({})), "invalid type"),
        ];
        for (bad, says) in &cases {
            let err = p.restore_state_at(bad, T).unwrap_err();
            assert_malformed(&err, "rate_limit", says);
        }
        assert_eq!(p.bucket_count(), 0, "nothing of a refused snapshot applied");
        assert_eq!(call(&p, "coder", "Read"), Verdict::Continue);
    }

    #[test]
    fn the_revision_moves_on_admitted_calls_only() {
        let p = policy(two_per_minute());
        let r0 = p.state_revision();
        call(&p, "coder", "Read");
        call(&p, "coder", "Read");
        let r1 = p.state_revision();
        assert_ne!(r0, r1);
        assert!(call(&p, "coder", "Read").is_deny());
        assert_eq!(p.state_revision(), r1, "a refused call changes nothing");
        assert_eq!(p.state_name(), "rate_limit");
    }
}

#[cfg(feature = "budget")]
mod budget {
    use super::*;

    use hookrail_builtin::budget::{Budget, BudgetConfig, BudgetLimits, ModelPrice};
    use hookrail_core::Verdict;
    use hookrail_core::context::{
        Meta, PostModelCall, PreModelCall, SessionEnd, SessionEndReason, TokenUsage,
    };
    use hookrail_core::runtime::HooksProvider;

    fn config(hard_usd: f64) -> BudgetConfig {
        BudgetConfig {
            prices: [("big".to_owned(), ModelPrice::new(3.0, 15.0))].into(),
            session: BudgetLimits {
                hard_usd: Some(hard_usd),
                ..BudgetLimits::default()
            },
            tenant: BudgetLimits {
                hard_tokens: Some(500_000),
                ..BudgetLimits::default()
            },
            ..BudgetConfig::default()
        }
    }

    fn meta(session: &str) -> Meta {
        Meta::new(session).with_tenant("acme")
    }

    fn spend(b: &Budget, session: &str, input: u64, output: u64) {
        let usage = TokenUsage::new(input, output);
        let mut post = PostModelCall::new(meta(session), "big", "", usage, 1);
        b.post_model_call(&mut post).unwrap();
    }

    fn pre(b: &Budget, session: &str) -> Verdict {
        b.pre_model_call(&mut PreModelCall::new(meta(session), "big", Vec::new()))
            .unwrap()
    }

    fn end(b: &Budget, session: &str) {
        let ctx = SessionEnd::new(meta(session), SessionEndReason::Completed, true);
        b.session_end(&ctx).unwrap();
    }

    /// s1 over its $1 hard limit ($1.50), s0 ended, tenant acme at 440 000 tokens.
    fn filled() -> Budget {
        let b = Budget::new(config(1.0)).unwrap();
        spend(&b, "s0", 100_000, 0);
        end(&b, "s0");
        spend(&b, "s1", 200_000, 40_000);
        spend(&b, "s1", 100_000, 0);
        assert!(pre(&b, "s1").is_deny());
        b
    }

    #[test]
    fn spend_reports_and_a_reached_hard_limit_survive_a_restart() {
        let before = filled();
        let saved = before.save_state_at(T);
        let after = Budget::new(config(1.0)).unwrap();
        let restored = after.restore_state_at(&saved, T + 1).unwrap();
        assert_eq!(
            (restored.kept, restored.dropped_count()),
            (3, 0),
            "{restored}"
        );
        assert_eq!(after.report("s1"), before.report("s1"));
        assert_eq!(after.report("s0"), before.report("s0"));
        assert_eq!(after.tenant_spend("acme"), before.tenant_spend("acme"));
        assert_eq!(after.open_sessions(), 1);
        let denied = pre(&after, "s1");
        assert_eq!(
            denied.reason(),
            Some("budget: session s1 spent $1.50 of its $1.00 hard limit")
        );
        assert_eq!(denied, pre(&before, "s1"));
        // Spend from before and after the restart adds up toward the tenant's limit.
        spend(&after, "s2", 100_000, 0);
        assert_eq!(
            pre(&after, "s2").reason(),
            Some("budget: tenant acme used 540000 tokens of its 500000-token hard limit")
        );
    }

    #[test]
    fn spend_is_kept_and_checked_against_the_limits_configured_now() {
        let saved = filled().save_state_at(T);
        let raised = Budget::new(config(5.0)).unwrap();
        raised.restore_state_at(&saved, T).unwrap();
        assert_eq!(raised.report("s1").unwrap().cost_micros, 1_500_000);
        assert_eq!(pre(&raised, "s1"), Verdict::Continue);
        let lowered = Budget::new(config(0.1)).unwrap();
        lowered.restore_state_at(&saved, T).unwrap();
        assert!(pre(&lowered, "s1").is_deny());
    }

    #[test]
    fn restoring_into_a_budget_that_has_run_adds_the_spend() {
        let saved = filled().save_state_at(T);
        let b = Budget::new(config(1.0)).unwrap();
        spend(&b, "s1", 100_000, 0);
        b.restore_state_at(&saved, T).unwrap();
        assert_eq!(b.report("s1").unwrap().cost_micros, 1_800_000);
        assert_eq!(b.report("s1").unwrap().tokens.input, 400_000);
    }

    #[test]
    fn max_sessions_and_max_reports_hold_after_a_restore() {
        let b = Budget::new(config(100.0)).unwrap();
        for s in ["a", "b", "c"] {
            spend(&b, s, 1, 0);
        }
        for s in ["x", "y"] {
            spend(&b, s, 1, 0);
            end(&b, s);
        }
        let saved = b.save_state_at(T);
        let small = Budget::new(BudgetConfig {
            max_sessions: 2,
            max_reports: 2,
            ..config(100.0)
        })
        .unwrap();
        let restored = small.restore_state_at(&saved, T).unwrap();
        assert_eq!(small.open_sessions(), 2);
        assert!(!small.report("a").unwrap().ended, "a was closed early");
        assert_eq!(small.report("b").unwrap().tokens.input, 1);
        assert_eq!(small.report("x"), None, "the oldest report went");
        assert_eq!(restored.dropped_count(), 2, "{restored}");
        assert!(
            restored.to_string().contains("max_sessions (2)"),
            "{restored}"
        );
        assert!(
            restored.to_string().contains("max_reports (2)"),
            "{restored}"
        );
    }

    #[test]
    fn newer_or_damaged_snapshots_are_errors_and_change_nothing() {
        let saved = filled().save_state_at(T);
        let b = Budget::new(config(1.0)).unwrap();
        assert_newer(
            &b.restore_state_at(&edited(&saved, "/format", json!(2)), T)
                .unwrap_err(),
            "budget",
        );
        let session = saved["sessions"][0].clone();
        for (bad, says) in [
            (
                edited(&saved, "/sessions/0/models/big/cost_pico", json!("-1")),
                "non-negative",
            ),
            (
                edited(&saved, "/sessions", json!([session.clone(), session])),
                "listed twice",
            ),
            (
                edited(&saved, "/sessions/0/session_id", json!("")),
                "empty id",
            ),
            (edited(&saved, "/tenants/0/tenant", json!("")), "empty name"),
            (
                edited(&saved, "/sessions/0/extra", json!(1)),
                "unknown field",
            ),
        ] {
            assert_malformed(&b.restore_state_at(&bad, T).unwrap_err(), "budget", says);
        }
        assert_eq!(b.open_sessions(), 0);
        assert_eq!(b.tenant_spend("acme"), None);
    }

    #[test]
    fn every_change_moves_the_revision() {
        let b = Budget::new(config(1.0)).unwrap();
        let mut last = b.state_revision();
        let mut moved = |b: &Budget| {
            let now = b.state_revision();
            assert_ne!(now, last);
            last = now;
        };
        spend(&b, "s1", 1, 0);
        moved(&b);
        end(&b, "s1");
        moved(&b);
        b.take_report("s1");
        moved(&b);
        b.reset_tenant("acme");
        moved(&b);
        let r = b.state_revision();
        let _ = b.report("s1");
        let _ = b.tenant_spend("acme");
        assert_eq!(b.state_revision(), r, "reading changes nothing");
    }
}

#[cfg(feature = "reviewer-lockout")]
mod reviewer_lockout {
    use super::*;
    use std::path::Path;

    use hookrail_builtin::reviewer_lockout::{ReviewerLockout, ReviewerLockoutConfig};
    use hookrail_core::Verdict;
    use hookrail_core::context::{Meta, Notification, PostToolUse};
    use hookrail_core::runtime::HooksProvider;

    const ROOT: &str = "/nonexistent/hooks-builtin-state/project";

    fn lockout(max_locks: usize) -> ReviewerLockout {
        ReviewerLockout::with_home(
            ReviewerLockoutConfig {
                max_locks,
                ..ReviewerLockoutConfig::default()
            },
            None,
        )
        .unwrap()
    }

    fn edit(l: &ReviewerLockout, agent: &str, path: &str) -> Verdict {
        l.check(
            agent,
            "Edit",
            &json!({ "file_path": path }),
            Path::new(ROOT),
        )
    }

    fn wrote(l: &ReviewerLockout, agent: &str, path: &str) {
        let meta = Meta::new("s1").with_cwd(ROOT).with_agent(agent);
        let mut post =
            PostToolUse::new(meta, "Write", json!({ "file_path": path }), json!("ok"), 1);
        l.post_tool_use(&mut post).unwrap();
    }

    #[test]
    fn a_locked_out_author_is_still_locked_out_after_a_restart() {
        let before = lockout(16);
        before
            .reject(format!("{ROOT}/src/auth.rs"), "coder", "reviewer")
            .unwrap();
        let denied = edit(&before, "coder", "src/auth.rs");
        assert!(denied.is_deny());
        let saved = before.save_state_at(T);

        let after = lockout(16);
        let restored = after.restore_state_at(&saved, T).unwrap();
        assert_eq!((restored.kept, restored.dropped_count()), (1, 0));
        assert_eq!(after.locks(), before.locks());
        assert_eq!(edit(&after, "coder", "src/auth.rs"), denied);
        assert_eq!(edit(&after, "fixer", "src/auth.rs"), Verdict::Continue);
    }

    #[test]
    fn authorship_survives_so_a_rejection_without_an_author_still_finds_it() {
        let before = lockout(16);
        wrote(&before, "coder", "src/lib.rs");
        let saved = before.save_state_at(T);

        let after = lockout(16);
        assert_eq!(after.restore_state_at(&saved, T).unwrap().kept, 1);
        assert_eq!(
            after.author_of(Path::new(ROOT), "src/lib.rs").as_deref(),
            Some("coder")
        );
        let meta = Meta::new("s2").with_cwd(ROOT).with_agent("reviewer");
        let note = Notification::new(meta, "review_rejected", r#"{"artifact": "src/lib.rs"}"#);
        after.notification(&note).unwrap();
        assert!(edit(&after, "coder", "src/lib.rs").is_deny());
    }

    #[test]
    fn max_locks_holds_and_drops_the_oldest() {
        let before = lockout(16);
        for f in ["a", "b", "c"] {
            before.reject(format!("{ROOT}/{f}"), "coder", "r").unwrap();
        }
        let saved = before.save_state_at(T);
        let small = lockout(2);
        let restored = small.restore_state_at(&saved, T).unwrap();
        assert_eq!((restored.kept, restored.dropped_count()), (2, 1));
        assert!(restored.dropped[0].reason.contains("/a"), "{restored}");
        assert_eq!(edit(&small, "coder", "a"), Verdict::Continue);
        assert!(edit(&small, "coder", "c").is_deny());
    }

    #[test]
    fn newer_or_damaged_snapshots_are_errors_and_change_nothing() {
        let before = lockout(16);
        before.reject(format!("{ROOT}/a"), "coder", "r").unwrap();
        let saved = before.save_state_at(T);
        let l = lockout(16);
        assert_newer(
            &l.restore_state_at(&edited(&saved, "/format", json!(2)), T)
                .unwrap_err(),
            "reviewer_lockout",
        );
        for (bad, says) in [
            (
                edited(&saved, "/locks/0/artifact", json!("a")),
                "not an absolute path",
            ),
            (edited(&saved, "/locks/0/author", json!("")), "empty"),
            (
                edited(&saved, "/locks/0/author", json!("x".repeat(300))),
                "longer than 200",
            ),
            (edited(&saved, "/locks", json!(null)), "invalid type"),
        ] {
            assert_malformed(
                &l.restore_state_at(&bad, T).unwrap_err(),
                "reviewer_lockout",
                says,
            );
        }
        assert!(l.locks().is_empty());
    }
}
