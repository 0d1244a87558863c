#![cfg(feature = "resilience")]
//! `resilience` end to end through a `Session` with a scripted model: transient failures are
//! retried after their backoff (tokio's paused clock, so nothing sleeps), model errors walk the
//! fallback chain, client errors end at once, and repeated failures open the circuit: the call
//! gives up, one alert is raised (tracing event and callback), further calls are refused until
//! a trial call after the cool-down succeeds.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_builtin::resilience::{
    Alert, BreakerState, Jitter, ManualClock, Resilience, ResilienceConfig,
};
use hookrail_core::context::{ErrorKind, Message, Meta, PreModelCall, Role, TokenUsage};
use hookrail_core::runtime::{AgentError, Hooks, ModelReply, Session, SessionError};
use serde_json::json;

use super::capture::Capture;

fn hooks_with(policy: &Resilience) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider(policy.clone())
        .build()
        .unwrap()
}

fn user() -> Vec<Message> {
    vec![Message::new(Role::User, "work")]
}

/// A model that fails with `error(model)` while `fails(model)` says so, and records the model
/// of every call.
fn scripted(
    calls: Arc<Mutex<Vec<String>>>,
    fail: impl Fn(&str, usize) -> Option<AgentError>,
) -> impl FnMut(&PreModelCall) -> std::future::Ready<Result<ModelReply, AgentError>> {
    move |pre| {
        let model = pre.model.get().clone();
        let n = {
            let mut calls = calls.lock().unwrap();
            calls.push(model.clone());
            calls.len()
        };
        std::future::ready(match fail(&model, n) {
            Some(e) => Err(e),
            None => {
                Ok(ModelReply::new([format!("answer from {model}")])
                    .with_usage(TokenUsage::new(1, 1)))
            }
        })
    }
}

fn unavailable() -> AgentError {
    AgentError::new(ErrorKind::Network, "503 Service Unavailable").with_status(503)
}

#[tokio::test(start_paused = true)]
async fn transient_errors_are_retried_after_exponential_backoffs_until_the_model_answers() {
    let policy = Resilience::new(ResilienceConfig {
        jitter: Jitter::None,
        base_backoff_ms: 1000,
        ..ResilienceConfig::default()
    })
    .unwrap();
    let mut session = Session::start(hooks_with(&policy), Meta::new("s1"), "m")
        .await
        .unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let started = tokio::time::Instant::now();
    let post = session
        .call_model(
            user(),
            scripted(calls.clone(), |_, n| (n <= 2).then(unavailable)),
        )
        .await
        .unwrap();
    assert_eq!(post.response, "answer from m");
    assert_eq!(calls.lock().unwrap().len(), 3);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(3) && waited < Duration::from_secs(4),
        "1 s then 2 s of backoff, waited {waited:?}"
    );
    assert_eq!(
        policy.breaker("s1"),
        BreakerState::Closed { failures: 0 },
        "the success reset the count"
    );
}

#[tokio::test(start_paused = true)]
async fn seeded_full_jitter_waits_are_repeatable_and_bounded_by_the_cap() {
    let mut waits = Vec::new();
    for _ in 0..2 {
        let policy = Resilience::new(ResilienceConfig {
            base_backoff_ms: 1000,
            max_attempts: 6,
            breaker_failures: 10,
            ..ResilienceConfig::default()
        })
        .unwrap()
        .with_seed(42);
        let mut session = Session::start(hooks_with(&policy), Meta::new("s1"), "m")
            .await
            .unwrap()
            .with_max_attempts(6);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let started = tokio::time::Instant::now();
        session
            .call_model(
                user(),
                scripted(calls.clone(), |_, n| (n <= 5).then(unavailable)),
            )
            .await
            .unwrap();
        let waited = started.elapsed();
        // Caps 1 + 2 + 4 + 8 + 16 s.
        assert!(waited <= Duration::from_secs(31), "{waited:?}");
        waits.push(waited);
    }
    assert_eq!(waits[0], waits[1], "same seed, same waits");
}

#[tokio::test(start_paused = true)]
async fn model_errors_fall_back_along_the_chain_and_the_session_keeps_the_fallback() {
    let policy = Resilience::new(
        serde_json::from_value(json!({
            "fallbacks": {"claude-opus": ["claude-sonnet", "claude-haiku"]}
        }))
        .unwrap(),
    )
    .unwrap();
    let mut session = Session::start(hooks_with(&policy), Meta::new("s1"), "claude-opus")
        .await
        .unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let post = session
        .call_model(
            user(),
            scripted(calls.clone(), |model, _| {
                (model != "claude-haiku").then(|| AgentError::new(ErrorKind::Model, "overloaded"))
            }),
        )
        .await
        .unwrap();
    assert_eq!(post.response, "answer from claude-haiku");
    assert_eq!(
        *calls.lock().unwrap(),
        ["claude-opus", "claude-sonnet", "claude-haiku"]
    );
    assert_eq!(session.model(), "claude-haiku");
}

#[tokio::test(start_paused = true)]
async fn client_errors_other_than_408_and_429_are_not_retried() {
    let policy = Resilience::default();
    let mut session = Session::start(hooks_with(&policy), Meta::new("s1"), "m")
        .await
        .unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let err = session
        .call_model(
            user(),
            scripted(calls.clone(), |_, _| {
                Some(AgentError::new(ErrorKind::Network, "401 Unauthorized").with_status(401))
            }),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, SessionError::Model { attempts: 1, .. }),
        "{err}"
    );
    assert_eq!(calls.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_last_attempt_gives_up_with_a_reason() {
    let policy = Resilience::new(ResilienceConfig {
        max_attempts: 3,
        ..ResilienceConfig::default()
    })
    .unwrap();
    let mut session = Session::start(hooks_with(&policy), Meta::new("s1"), "m")
        .await
        .unwrap()
        .with_max_attempts(10);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let err = session
        .call_model(user(), scripted(calls.clone(), |_, _| Some(unavailable())))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::GaveUp { reason, .. }
            if reason == "resilience: gave up after 3 attempts (last: 503 Service Unavailable)"),
        "{err}"
    );
    assert_eq!(calls.lock().unwrap().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn the_circuit_breaker_gives_up_alerts_once_and_blocks_calls_until_a_trial_succeeds() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let clock = ManualClock::new();
    let alerts: Arc<Mutex<Vec<Alert>>> = Arc::default();
    let sink = alerts.clone();
    let policy = Resilience::new(ResilienceConfig {
        breaker_failures: 3,
        breaker_cooldown_ms: 60_000,
        max_attempts: 10,
        ..ResilienceConfig::default()
    })
    .unwrap()
    .with_seed(1)
    .with_clock(Arc::new(clock.clone()))
    .on_alert(move |alert| sink.lock().unwrap().push(alert.clone()));
    let meta = Meta::new("ci-nightly")
        .with_agent("ralph")
        .with_tenant("acme");
    let mut session = Session::start(hooks_with(&policy), meta, "m")
        .await
        .unwrap()
        .with_max_attempts(10);
    let calls = Arc::new(Mutex::new(Vec::new()));

    let err = session
        .call_model(user(), scripted(calls.clone(), |_, _| Some(unavailable())))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::GaveUp { reason, .. }
            if reason == "resilience: circuit open for session ci-nightly after 3 consecutive \
                          failures (last: 503 Service Unavailable)"),
        "{err}"
    );
    assert_eq!(
        calls.lock().unwrap().len(),
        3,
        "given up at the third failure"
    );

    let alerts_seen = alerts.lock().unwrap().clone();
    assert_eq!(alerts_seen.len(), 1);
    let alert = &alerts_seen[0];
    assert_eq!(alert.kind.as_str(), "circuit_open");
    assert_eq!(
        (
            alert.session_id.as_str(),
            alert.agent.as_str(),
            alert.tenant.as_deref(),
            alert.failures,
            alert.model.as_deref()
        ),
        ("ci-nightly", "ralph", Some("acme"), 3, Some("m"))
    );
    let events: Vec<_> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, target, fields)| {
            target == "hookrail_builtin::resilience"
                && fields.get("alert").map(String::as_str) == Some("circuit_open")
        })
        .cloned()
        .collect();
    assert_eq!(events.len(), 1, "one alert event");
    let (level, _, fields) = &events[0];
    assert_eq!(*level, tracing::Level::ERROR);
    assert_eq!(fields["session"], "ci-nightly");
    assert_eq!(fields["tenant"], "acme");
    assert_eq!(fields["failures"], "3");
    assert_eq!(fields["status_code"], "503");

    // Open: the next call is refused before it reaches the model.
    clock.advance(Duration::from_secs(20));
    let err = session
        .call_model(user(), scripted(calls.clone(), |_, _| None))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::Denied { point: "pre_model_call", reason, by: Some(by), .. }
            if reason == "resilience: circuit open for session ci-nightly after 3 consecutive \
                          failures; next trial in 40.0 s"
                && *by == "builtin.resilience"),
        "{err}"
    );
    assert_eq!(calls.lock().unwrap().len(), 3, "the model was not called");

    // After the cool-down a trial goes through; it succeeds and closes the circuit.
    clock.advance(Duration::from_secs(40));
    session
        .call_model(user(), scripted(calls.clone(), |_, _| None))
        .await
        .unwrap();
    assert_eq!(
        policy.breaker("ci-nightly"),
        BreakerState::Closed { failures: 0 }
    );
    session
        .call_model(user(), scripted(calls.clone(), |_, _| None))
        .await
        .unwrap();
    assert_eq!(alerts.lock().unwrap().len(), 1, "no new alert");
    session
        .end(hookrail_core::context::SessionEndReason::Completed, true)
        .await;
}
