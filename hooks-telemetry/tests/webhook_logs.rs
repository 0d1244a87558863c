//! What the sender logs about its own misuse: an unsigned endpoint (warn, once per endpoint),
//! a sender dropped with deliveries pending (warn, with how many), a second `attach` to one bus
//! (debug). Each test captures the logs of its own thread (`with_default`): all of these are
//! logged on the calling thread.
#![cfg(feature = "webhooks")]

mod capture;
use capture::Capture;

use std::net::TcpListener;
use std::time::Duration;

use hookrail_core::runtime::Hooks;
use hookrail_telemetry::signature::Secret;
use hookrail_telemetry::webhooks::{Webhook, Webhooks};
use serde_json::json;

/// Runs `f` with a DEBUG subscriber on this thread; returns what it logged.
fn logs(f: impl FnOnce()) -> String {
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    capture.text()
}

fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

/// An endpoint that takes connections (the kernel's backlog) but never answers: deliveries
/// stay in flight.
fn silent_endpoint() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    (listener, url)
}

#[test]
fn an_unsigned_endpoint_warns_once_per_endpoint_with_a_redacted_url() {
    let text = logs(|| {
        let webhooks = Webhooks::new([
            Webhook::new("http://127.0.0.1:9/a?token=t0k3n"),
            Webhook::new("http://user:hunter2@127.0.0.1:9/b"),
            Webhook::new("http://127.0.0.1:9/signed").secret(Secret::new("k").unwrap()),
        ])
        .unwrap();
        webhooks.shutdown(Duration::from_secs(5));
    });
    let warnings = lines_with(&text, "unsigned webhook endpoint");
    assert_eq!(warnings.len(), 2, "{text}");
    assert!(warnings.iter().all(|l| l.contains("WARN")), "{text}");
    assert!(
        warnings[0]
            .contains("unsigned webhook endpoint http://127.0.0.1:9/a: receivers cannot verify it"),
        "{text}"
    );
    assert!(warnings[1].contains("http://127.0.0.1:9/b"), "{text}");
    assert!(!text.contains("/signed"), "{text}");
    assert!(
        !text.contains("t0k3n") && !text.contains("hunter2"),
        "{text}"
    );
}

#[test]
fn dropping_a_sender_with_pending_deliveries_warns_how_many() {
    let (_listener, url) = silent_endpoint();
    let text = logs(|| {
        let webhooks = Webhooks::new([Webhook::new(url)
            .secret(Secret::new("k").unwrap())
            .timeout(Duration::from_secs(60))])
        .unwrap();
        for i in 0..3 {
            assert_eq!(webhooks.enqueue("stop", json!({ "i": i })), 1);
        }
        assert_eq!(webhooks.stats().pending, 3);
        drop(webhooks);
    });
    let warnings = lines_with(&text, "dropped without shutdown");
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("WARN"), "{text}");
    assert!(warnings[0].contains("abandoning 3 deliveries"), "{text}");
    assert!(warnings[0].contains("abandoned=3"), "{text}");
}

#[test]
fn dropping_an_idle_or_shut_down_sender_does_not_warn() {
    let (_listener, url) = silent_endpoint();
    let text = logs(|| {
        let endpoint = || Webhook::new(url.clone()).secret(Secret::new("k").unwrap());
        // Nothing pending.
        drop(Webhooks::new([endpoint()]).unwrap());
        // Shut down (with a delivery abandoned at the deadline): `shutdown` accounts for it.
        let webhooks = Webhooks::new([endpoint().timeout(Duration::from_secs(60))]).unwrap();
        webhooks.enqueue("stop", json!({}));
        let stats = webhooks.shutdown(Duration::from_millis(100));
        assert_eq!((stats.failed, stats.pending), (1, 0), "{stats:?}");
    });
    assert!(
        lines_with(&text, "dropped without shutdown").is_empty(),
        "{text}"
    );
}

#[test]
fn a_second_attach_to_one_bus_is_refused_at_debug() {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    let text = logs(|| {
        let webhooks =
            Webhooks::new([Webhook::new("http://127.0.0.1:9/").secret(Secret::new("k").unwrap())])
                .unwrap();
        assert!(webhooks.attach(hooks.bus()));
        assert!(!webhooks.attach(hooks.bus()));
        webhooks.shutdown(Duration::from_secs(5));
    });
    let refused = lines_with(&text, "already attached");
    assert_eq!(refused.len(), 1, "{text}");
    assert!(refused[0].contains("DEBUG"), "{text}");
}
