//! Webhooks attached to the event bus of a `Hooks` value: dispatches and custom events reach
//! the endpoints that receive them, signed; shutdown drains and unsubscribes.
#![cfg(feature = "webhooks")]

use std::time::{Duration, SystemTime};

use hookrail_core::Verdict;
use hookrail_core::bus::Topic;
use hookrail_core::context::{Meta, PreToolUse, SessionStart};
use hookrail_core::points::{pre_tool_use, session_start};
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_telemetry::signature::{Secret, Verified, Verifier};
use hookrail_telemetry::webhooks::{Webhook, Webhooks};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const SECRET: &str = "bus-test-secret";

#[derive(Debug, serde::Serialize)]
struct Deployed {
    version: String,
}

impl Topic for Deployed {
    const NAME: &'static str = "deployed";
    type Payload = Self;
}

async fn server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    server
}

fn verify(request: &Request) -> Verified {
    let header = |name: &str| request.headers.get(name).unwrap().to_str().unwrap();
    Verifier::new(Secret::new(SECRET).unwrap())
        .verify(
            &request.body,
            header("x-signature"),
            header("x-timestamp"),
            SystemTime::now(),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_and_custom_events_reach_the_endpoints_that_receive_them() {
    let (tools, all) = (server().await, server().await);
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("no_bash", |ctx| {
            if ctx.tool_name == "Bash" {
                Verdict::deny("no shell")
            } else {
                Verdict::Continue
            }
        }))
        .build()
        .unwrap();
    let endpoint = |server: &MockServer| {
        Webhook::new(server.uri())
            .secret(Secret::new(SECRET).unwrap())
            .backoff(Duration::from_millis(1), Duration::from_millis(2))
    };
    let webhooks = Webhooks::new([endpoint(&tools).event("pre_tool_use"), endpoint(&all)]).unwrap();
    assert!(webhooks.attach(hooks.bus()));
    assert_eq!(
        hooks.bus().subscribers(),
        1,
        "one subscription for all endpoints"
    );

    let meta = || Meta::new("session-1");
    hooks.dispatch::<session_start::Point>(&mut SessionStart::new(meta(), "model-x"));
    for tool in ["Bash", "Read"] {
        let mut ctx = PreToolUse::new(meta(), tool, serde_json::json!({"path": "/tmp"}));
        hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
    }
    hooks.bus().emit(Deployed {
        version: "1.2.0".into(),
    });

    let bus = hooks.bus().clone();
    let stats = tokio::task::spawn_blocking(move || webhooks.shutdown(Duration::from_secs(30)))
        .await
        .unwrap();
    assert_eq!(
        (stats.sent, stats.failed, stats.dropped),
        (2 + 4, 0, 0),
        "{stats:?}"
    );
    assert_eq!(bus.subscribers(), 0, "shutdown unsubscribes");

    let tool_events: Vec<_> = tools
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(verify)
        .collect();
    assert_eq!(tool_events.len(), 2);
    let bash = &tool_events[0];
    assert_eq!(bash.event(), Some("pre_tool_use"));
    let data = bash.data().unwrap();
    assert_eq!(data["context"]["tool_name"], "Bash");
    assert_eq!(data["context"]["session_id"], "session-1");
    assert_eq!(data["outcome"]["verdict"]["decision"], "deny", "{data}");
    assert_eq!(
        tool_events[1].data().unwrap()["context"]["tool_name"],
        "Read"
    );

    let all_events: Vec<_> = all
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(verify)
        .collect();
    let names: Vec<_> = all_events.iter().map(|v| v.event().unwrap()).collect();
    assert_eq!(
        names,
        ["session_start", "pre_tool_use", "pre_tool_use", "deployed"]
    );
    assert_eq!(all_events[3].data().unwrap()["version"], "1.2.0");
    // The bus's sequence numbers, in order; the same event has the same seq everywhere.
    let seqs: Vec<_> = all_events.iter().map(|v| v.seq().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(tool_events[0].seq(), all_events[1].seq());
}

#[test]
fn attaching_without_a_runtime_and_with_no_matching_events() {
    // A sync program: no tokio runtime around. An endpoint for one point only.
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    let webhooks = Webhooks::new([Webhook::new("http://127.0.0.1:9/").event("stop")]).unwrap();
    assert!(webhooks.attach(hooks.bus()));
    // Not subscribed to session_start: nothing queued, nothing counted.
    hooks.dispatch::<session_start::Point>(&mut SessionStart::new(Meta::new("s"), "model-x"));
    let stats = webhooks.shutdown(Duration::from_secs(5));
    assert_eq!(
        (stats.sent, stats.failed, stats.dropped, stats.pending),
        (0, 0, 0, 0)
    );
    assert_eq!(hooks.bus().subscribers(), 0);
}

/// One sender attached twice to one bus (or to a clone of it) subscribes once: every event
/// is delivered once, under one delivery id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attaching_twice_to_one_bus_subscribes_once() {
    let server = server().await;
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    let other = Hooks::builder().ignore_env().build().unwrap();
    let webhooks =
        Webhooks::new([Webhook::new(server.uri()).secret(Secret::new(SECRET).unwrap())]).unwrap();
    assert!(webhooks.attach(hooks.bus()), "the first attach subscribes");
    assert!(!webhooks.attach(hooks.bus()), "the same bus again");
    assert!(!webhooks.attach(&hooks.bus().clone()), "a clone of it");
    assert_eq!(hooks.bus().subscribers(), 1);
    assert!(webhooks.attach(other.bus()), "another bus is fine");
    assert_eq!(other.bus().subscribers(), 1);

    hooks.bus().emit(Deployed {
        version: "2.0.0".into(),
    });
    let stats = tokio::task::spawn_blocking(move || webhooks.shutdown(Duration::from_secs(30)))
        .await
        .unwrap();
    assert_eq!(
        (stats.sent, stats.failed, stats.dropped),
        (1, 0, 0),
        "{stats:?}"
    );
    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1, "delivered once");
    assert_eq!(verify(&received[0]).event(), Some("deployed"));
    assert_eq!(hooks.bus().subscribers(), 0, "shutdown unsubscribes");
    assert_eq!(other.bus().subscribers(), 0);
}

#[test]
fn attaching_a_sender_without_endpoints_does_nothing() {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    let webhooks = Webhooks::new([]).unwrap();
    assert!(!webhooks.attach(hooks.bus()));
    assert_eq!(hooks.bus().subscribers(), 0);
    webhooks.shutdown(Duration::from_secs(1));
}
