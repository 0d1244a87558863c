//! The secret never shows: not in logs (captured at TRACE through every delivery path:
//! success, retry, give-up, timeout, queue full, shutdown), nor in `Debug`, stats or errors.
//! URL credentials and queries are kept out the same way.
//!
//! One test in this binary: it installs the global tracing subscriber, because deliveries log
//! from the delivery thread.
#![cfg(feature = "webhooks")]

mod capture;
use capture::Capture;

use std::time::Duration;

use hookrail_telemetry::signature::{Secret, SecretError, Verifier};
use hookrail_telemetry::webhooks::{Webhook, Webhooks};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET: &str = "S3CR3T-never-print-me";
const URL_PASSWORD: &str = "url-password-never-print";
const URL_TOKEN: &str = "url-token-never-print";

fn assert_clean(what: &str, text: &str) {
    for needle in [SECRET, URL_PASSWORD, URL_TOKEN] {
        assert!(!text.contains(needle), "{what} shows `{needle}`:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_secret_is_absent_from_all_output() {
    let capture = Capture::default();
    let writer = capture.clone();
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish(),
    )
    .unwrap();

    // The secret comes from a `${…}` template, as it would from config.
    let secret = Secret::expand_with("${WEBHOOK_SECRET}", |name| {
        Ok((name == "WEBHOOK_SECRET").then(|| SECRET.to_owned()))
    })
    .unwrap();

    // 500 then 400: a retry, then a give-up.
    let flaky = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&flaky)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string(SECRET))
        .mount(&flaky)
        .await;
    // Success.
    let ok = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&ok)
        .await;
    // Too slow: timeouts.
    let slow = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .mount(&slow)
        .await;
    // Dead: connection refused, queue of 1, so events are dropped.
    let dead_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };

    let with_creds = |uri: String| {
        uri.replace("http://", &format!("http://user:{URL_PASSWORD}@")) + "/hook?token=" + URL_TOKEN
    };
    let fast = |url: String| {
        Webhook::new(url)
            .secret(secret.clone())
            .backoff(Duration::from_millis(1), Duration::from_millis(2))
    };
    let endpoints = [
        fast(with_creds(flaky.uri())).max_retries(3),
        fast(with_creds(ok.uri())),
        fast(with_creds(slow.uri()))
            .timeout(Duration::from_millis(50))
            .max_retries(1),
        fast(with_creds(format!("http://127.0.0.1:{dead_port}")))
            .queue_capacity(1)
            .max_retries(1),
    ];
    for endpoint in &endpoints {
        assert_clean("Webhook Debug", &format!("{endpoint:?}"));
    }
    let hooks = Webhooks::new(endpoints).unwrap();
    for i in 0..20 {
        hooks.enqueue("pre_tool_use", json!({ "i": i }));
    }
    assert_clean("Webhooks Debug", &format!("{hooks:?}"));
    assert_clean("endpoint stats", &format!("{:?}", hooks.endpoint_stats()));
    let stats = tokio::task::spawn_blocking(move || hooks.shutdown(Duration::from_secs(30)))
        .await
        .unwrap();
    assert!(stats.sent >= 20 && stats.failed > 0 && stats.retried > 0 && stats.dropped > 0);

    // The receiver did get deliveries signed with the secret: the test is not vacuous.
    let request = &ok.received_requests().await.unwrap()[0];
    let get = |h: &str| request.headers.get(h).unwrap().to_str().unwrap().to_owned();
    Verifier::new(Secret::new(SECRET).unwrap())
        .verify(
            &request.body,
            &get("x-signature"),
            &get("x-timestamp"),
            std::time::SystemTime::now(),
        )
        .unwrap();

    // Errors.
    let err = Secret::expand_with("${WEBHOOK_SECRET}-${OTHER}", |name| {
        Ok((name == "WEBHOOK_SECRET").then(|| SECRET.to_owned()))
    })
    .unwrap_err();
    assert_eq!(
        err,
        SecretError::Unset {
            name: "OTHER".into()
        }
    );
    assert_clean("SecretError", &format!("{err} {err:?}"));
    let err = Webhooks::new([
        Webhook::new(format!("ftp://u:{URL_PASSWORD}@h/?token={URL_TOKEN}")).secret(secret.clone()),
    ])
    .unwrap_err();
    assert_clean("WebhookError", &format!("{err} {err:?}"));
    let err = Verifier::new(secret.clone())
        .verify(b"{}", "sha256=00", "0", std::time::SystemTime::now())
        .unwrap_err();
    assert_clean("VerifyError", &format!("{err} {err:?}"));
    assert_clean("Secret", &format!("{secret} {secret:?}"));

    // The logs went through every path, and never show the secret.
    let logs = capture.text();
    for expected in [
        "retrying",
        "giving up",
        "queue full",
        "HTTP 500",
        "HTTP 400",
        "timed out",
        "webhooks shut down",
    ] {
        assert!(
            logs.contains(expected),
            "no `{expected}` in the logs:\n{logs}"
        );
    }
    assert_clean("the logs", &logs);
}
