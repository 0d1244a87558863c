//! Webhook delivery against local wiremock servers (127.0.0.1 only): signatures verified on the
//! receiving side, retries on 5xx/408/429 and none on other 4xx/3xx, per-attempt timeout,
//! routing by event name, bounded queues and shutdown accounting.
#![cfg(feature = "webhooks")]

use std::time::{Duration, SystemTime};

use hookrail_telemetry::signature::{Secret, Verified, Verifier};
use hookrail_telemetry::webhooks::{Source, Webhook, WebhookError, WebhookStats, Webhooks};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// Generous: shutdown returns as soon as the queues are drained.
const DRAIN: Duration = Duration::from_secs(30);
const SECRET: &str = "test-webhook-secret";

/// A fast-retrying endpoint on `server`'s `/hook`.
fn hook(server: &MockServer) -> Webhook {
    Webhook::new(format!("{}/hook", server.uri()))
        .secret(Secret::new(SECRET).unwrap())
        .backoff(Duration::from_millis(1), Duration::from_millis(5))
        .timeout(Duration::from_secs(10))
}

async fn respond(server: &MockServer, status: u16) {
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(status))
        .mount(server)
        .await;
}

/// Shuts down off the async worker threads (shutdown blocks).
async fn shutdown(hooks: Webhooks) -> WebhookStats {
    tokio::task::spawn_blocking(move || hooks.shutdown(DRAIN))
        .await
        .unwrap()
}

fn header<'a>(request: &'a Request, name: &str) -> &'a str {
    request
        .headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

/// What a receiver does: verify with the shared secret, against its own clock.
fn verify(request: &Request) -> Verified {
    Verifier::new(Secret::new(SECRET).unwrap())
        .verify(
            &request.body,
            header(request, "x-signature"),
            header(request, "x-timestamp"),
            SystemTime::now(),
        )
        .expect("the receiver verifies the delivery")
}

fn stats(sent: u64, failed: u64, retried: u64, dropped: u64) -> (u64, u64, u64, u64, u64) {
    (sent, failed, retried, dropped, 0)
}

fn tuple(s: WebhookStats) -> (u64, u64, u64, u64, u64) {
    (s.sent, s.failed, s.retried, s.dropped, s.pending)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivers_a_signed_envelope_that_the_receiver_verifies() {
    let server = MockServer::start().await;
    respond(&server, 200).await;
    let hooks = Webhooks::builder()
        .endpoint(hook(&server))
        .source(Source::new("ci-bot", "pod-7"))
        .build()
        .unwrap();
    assert_eq!(
        hooks.enqueue("pre_tool_use", json!({"tool": "bash", "args": ["ls"]})),
        1
    );
    assert_eq!(hooks.enqueue("stop", json!(null)), 1);
    assert_eq!(tuple(shutdown(hooks).await), stats(2, 0, 0, 0));

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(header(first, "content-type"), "application/json");
    assert_eq!(header(first, "x-hooks-event"), "pre_tool_use");
    let verified = verify(first);
    assert_eq!(verified.event(), Some("pre_tool_use"));
    assert_eq!(verified.id(), Some(header(first, "x-hooks-delivery")));
    assert_eq!(verified.seq(), Some(0));
    assert_eq!(
        verified.data(),
        Some(&json!({"tool": "bash", "args": ["ls"]}))
    );
    assert_eq!(
        verified.envelope["source"],
        json!({"service": "ci-bot", "instance": "pod-7"})
    );
    assert_eq!(
        verified.timestamp.to_string(),
        header(first, "x-timestamp"),
        "header and envelope carry the same timestamp"
    );
    let keys: Vec<_> = verified
        .envelope
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 6, "{keys:?}");

    let second = verify(&requests[1]);
    assert_eq!(second.event(), Some("stop"));
    assert_eq!(second.seq(), Some(1));
    assert_ne!(second.id(), verified.id(), "each delivery has its own id");

    // A receiver with another secret rejects it.
    let wrong = Verifier::new(Secret::new("not-the-secret").unwrap()).verify(
        &first.body,
        header(first, "x-signature"),
        header(first, "x-timestamp"),
        SystemTime::now(),
    );
    assert!(wrong.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_secret_there_is_no_signature_and_no_source() {
    let server = MockServer::start().await;
    respond(&server, 204).await;
    let hooks = Webhooks::new([Webhook::new(format!("{}/hook", server.uri()))]).unwrap();
    hooks.enqueue("stop", json!({}));
    assert_eq!(tuple(shutdown(hooks).await), stats(1, 0, 0, 0));
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("x-signature").is_none());
    assert!(requests[0].headers.get("x-timestamp").is_some());
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert!(body.get("source").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_on_5xx_then_succeeds_with_the_same_delivery_id() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .with_priority(3)
        .mount(&server)
        .await;
    let hooks = Webhooks::new([hook(&server).max_retries(3)]).unwrap();
    hooks.enqueue("pre_tool_use", json!({"n": 1}));
    assert_eq!(tuple(shutdown(hooks).await), stats(1, 0, 2, 0));

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    let ids: Vec<_> = requests
        .iter()
        .map(|r| verify(r).id().unwrap().to_owned())
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gives_up_after_max_retries() {
    let server = MockServer::start().await;
    respond(&server, 502).await;
    let hooks = Webhooks::new([hook(&server).max_retries(2)]).unwrap();
    hooks.enqueue("pre_tool_use", json!({}));
    assert_eq!(tuple(shutdown(hooks).await), stats(0, 1, 2, 0));
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

/// A retry is counted when it is made, not when it is scheduled: a shutdown that aborts the
/// backoff leaves `retried` at 0, and the server saw exactly one request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_aborted_during_its_backoff_is_not_counted() {
    let server = MockServer::start().await;
    respond(&server, 500).await;
    let hooks = Webhooks::new([hook(&server)
        .max_retries(3)
        .backoff(Duration::from_secs(30), Duration::from_secs(30))])
    .unwrap();
    hooks.enqueue("pre_tool_use", json!({}));
    // The first attempt is made (and answered 500); the retry now waits 15 to 30 s.
    let started = std::time::Instant::now();
    while server.received_requests().await.unwrap().is_empty() {
        assert!(started.elapsed() < DRAIN, "the first attempt never came");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let after = tokio::task::spawn_blocking(move || hooks.shutdown(Duration::from_millis(300)))
        .await
        .unwrap();
    assert_eq!(tuple(after), stats(0, 1, 0, 0), "{after:?}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_retries_4xx_nor_redirects() {
    for status in [400, 401, 403, 404, 410, 422, 302, 307] {
        let server = MockServer::start().await;
        respond(&server, status).await;
        let hooks = Webhooks::new([hook(&server).max_retries(5)]).unwrap();
        hooks.enqueue("pre_tool_use", json!({}));
        assert_eq!(
            tuple(shutdown(hooks).await),
            stats(0, 1, 0, 0),
            "HTTP {status}"
        );
        assert_eq!(
            server.received_requests().await.unwrap().len(),
            1,
            "HTTP {status}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_429_and_408() {
    for status in [429, 408] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status))
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server)
            .await;
        respond(&server, 200).await;
        let hooks = Webhooks::new([hook(&server)]).unwrap();
        hooks.enqueue("stop", json!({}));
        assert_eq!(
            tuple(shutdown(hooks).await),
            stats(1, 0, 1, 0),
            "HTTP {status}"
        );
    }
}

/// The server answers 200, but only after far longer than the webhook's timeout: if the timeout
/// were not honoured, the event would count as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn honours_the_timeout_and_retries_after_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .mount(&server)
        .await;
    let hooks = Webhooks::new([hook(&server)
        .timeout(Duration::from_millis(100))
        .max_retries(1)])
    .unwrap();
    hooks.enqueue("stop", json!({}));
    assert_eq!(tuple(shutdown(hooks).await), stats(0, 1, 1, 0));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_events_by_name() {
    let (tools, all, lifecycle) = (
        MockServer::start().await,
        MockServer::start().await,
        MockServer::start().await,
    );
    for server in [&tools, &all, &lifecycle] {
        respond(server, 200).await;
    }
    let hooks = Webhooks::new([
        hook(&tools).event("pre_tool_use").event("post_tool_use"),
        hook(&all).event("*"),
        hook(&lifecycle).events(["session_start", "stop"]),
    ])
    .unwrap();
    assert_eq!(hooks.enqueue("pre_tool_use", json!(1)), 2);
    assert_eq!(hooks.enqueue("stop", json!(2)), 2);
    assert_eq!(hooks.enqueue("step_end", json!(3)), 1);
    assert_eq!(hooks.enqueue("post_tool_use", json!(4)), 2);
    let per_endpoint = {
        let stats = hooks.endpoint_stats();
        assert_eq!(stats[0].url, format!("{}/hook", tools.uri()));
        stats
    };
    assert_eq!(per_endpoint.len(), 3);
    assert_eq!(tuple(shutdown(hooks).await), stats(2 + 4 + 1, 0, 0, 0));

    let events = |requests: Vec<Request>| -> Vec<String> {
        requests
            .iter()
            .map(|r| verify(r).event().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        events(tools.received_requests().await.unwrap()),
        ["pre_tool_use", "post_tool_use"]
    );
    assert_eq!(
        events(all.received_requests().await.unwrap()),
        ["pre_tool_use", "stop", "step_end", "post_tool_use"]
    );
    assert_eq!(
        events(lifecycle.received_requests().await.unwrap()),
        ["stop"]
    );
    for r in all.received_requests().await.unwrap() {
        assert_eq!(verify(&r).event(), Some(header(&r, "x-hooks-event")));
    }
}

/// A slow endpoint with a queue of 2: the rest is dropped and counted, and at a short shutdown
/// deadline the queued events are counted too. Nothing is lost from the books.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_drops_and_counts_and_shutdown_accounts_for_everything() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let hooks = Webhooks::new([hook(&server).queue_capacity(2).max_retries(0)]).unwrap();
    let queued: usize = (0..10).map(|i| hooks.enqueue("stop", json!(i))).sum();
    assert!((2..=3).contains(&queued), "queued {queued}");
    let before = hooks.stats();
    assert_eq!(before.dropped, 10 - queued as u64);
    assert_eq!(before.pending, queued as u64);

    let after = tokio::task::spawn_blocking(move || hooks.shutdown(Duration::from_millis(200)))
        .await
        .unwrap();
    assert_eq!(after.pending, 0);
    assert_eq!(after.sent, 0);
    assert_eq!(after.sent + after.failed + after.dropped, 10, "{after:?}");
    // The one in flight at the deadline is abandoned as failed (unless the delivery thread was
    // starved for the whole 200 ms and never started it); the queued ones count as dropped.
    assert!(after.failed <= 1, "{after:?}");
}

#[test]
fn bad_urls_are_rejected_without_showing_credentials() {
    let err = Webhooks::new([Webhook::new("not a url")]).unwrap_err();
    assert!(
        matches!(err, WebhookError::InvalidUrl { index: 0, .. }),
        "{err:?}"
    );
    assert!(!err.to_string().contains("not a url"));

    let err = Webhooks::new([
        Webhook::new("http://127.0.0.1:9/ok"),
        Webhook::new("ftp://user:hunter2@127.0.0.1/x?token=t0k3n"),
    ])
    .unwrap_err();
    assert!(
        matches!(&err, WebhookError::UnsupportedScheme { index: 1, scheme, .. } if scheme == "ftp"),
        "{err:?}"
    );
    for text in [err.to_string(), format!("{err:?}")] {
        assert!(
            !text.contains("hunter2") && !text.contains("t0k3n"),
            "{text}"
        );
    }
}

#[test]
fn works_without_a_tokio_runtime_and_no_endpoints_is_fine() {
    let hooks = Webhooks::new([]).unwrap();
    assert_eq!(hooks.enqueue("stop", json!({})), 0);
    assert_eq!(
        hooks.shutdown(Duration::from_secs(1)),
        WebhookStats::default()
    );
}

/// Several agent threads share one sender through an `Arc`; every event arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_threads_enqueue_through_one_shared_sender() {
    let server = MockServer::start().await;
    respond(&server, 200).await;
    let hooks = std::sync::Arc::new(Webhooks::new([hook(&server).queue_capacity(1000)]).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let hooks = hooks.clone();
            std::thread::spawn(move || {
                (0..50)
                    .map(|i| hooks.enqueue("step_end", json!({"thread": t, "i": i})))
                    .sum::<usize>()
            })
        })
        .collect();
    let queued: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(queued, 200);
    let hooks = std::sync::Arc::into_inner(hooks).unwrap();
    assert_eq!(tuple(shutdown(hooks).await), stats(200, 0, 0, 0));
    let mut ids: Vec<_> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| verify(r).id().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200);
}
