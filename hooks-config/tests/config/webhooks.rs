//! `webhooks:` entries of a project file, started by the runner against a local server: sent
//! signed when the allow-list admits the URL and the secret expands, never otherwise.

#![cfg(feature = "webhooks")]

use std::time::{Duration, SystemTime};

use hookrail_config::file::{Format, parse_project};
use hookrail_config::runner::{ConfigHooks, ConfigWebhooks};
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use hookrail_telemetry::signature::{SIGNATURE_HEADER, Secret, TIMESTAMP_HEADER, Verifier};
use hookrail_telemetry::webhooks::Source;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A project with `webhooks` (YAML list items) and `allow` entries, attached to a new
/// `Hooks` value whose bus the webhooks are started on.
fn start(allow: &[String], webhooks: &str) -> (Hooks, ConfigWebhooks) {
    let allow: Vec<String> = allow.iter().map(|a| format!("\"{a}\"")).collect();
    let yaml = format!(
        "enabled: true\nallow: [{}]\nwebhooks:\n{webhooks}",
        allow.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let configured = ConfigHooks::builder(dir.path()).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let started = configured
        .start_webhooks(hooks.bus(), Some(Source::new("ci-bot", "runner-7")))
        .unwrap();
    (hooks, started)
}

fn dispatch(hooks: &Hooks) {
    let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls"}));
    hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_webhook_posts_signed_events_of_its_points() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    let url = format!("{}/events", server.uri());
    // `${PATH}`: an environment variable that is always set, expanded into the key.
    let (hooks, started) = start(
        std::slice::from_ref(&url),
        &format!(
            "  - {{ id: siem, hook: [PreToolUse, stop], url: \"{url}\", secret: \"${{PATH}}\", timeout_ms: 2000 }}\n"
        ),
    );
    assert_eq!(started.started, ["siem"]);
    assert!(started.skipped.is_empty(), "{:?}", started.skipped);
    dispatch(&hooks);
    let sender = started.sender.expect("one endpoint started");
    let stats = tokio::task::spawn_blocking(move || sender.shutdown(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!((stats.sent, stats.dropped, stats.failed), (1, 0, 0));

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    let header = |name: &str| request.headers.get(name).unwrap().to_str().unwrap();
    let key = Secret::expand("${PATH}").unwrap();
    let verified = Verifier::new(key)
        .verify(
            &request.body,
            header(SIGNATURE_HEADER),
            header(TIMESTAMP_HEADER),
            SystemTime::now(),
        )
        .expect("signed with the expanded secret");
    assert_eq!(verified.envelope["event"], "pre_tool_use");
    assert_eq!(verified.envelope["source"]["instance"], "runner-7");
    assert_eq!(verified.envelope["data"]["context"]["tool_name"], "Bash");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_urls_unset_secrets_and_disabled_entries_are_never_started() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .expect(0)
        .mount(&server)
        .await;
    let listed = format!("{}/listed", server.uri());
    let (hooks, started) = start(
        std::slice::from_ref(&listed),
        &format!(
            "  - {{ id: unlisted, hook: '*', url: \"{}/other\", unsigned: true }}
  - {{ id: no_secret, hook: '*', url: \"{listed}\", secret: \"${{HOOKS_TEST_UNSET_WEBHOOK_SECRET_7F3A}}\" }}
  - {{ id: off, hook: '*', url: \"{listed}\", enabled: false, unsigned: true }}
",
            server.uri()
        ),
    );
    assert!(started.sender.is_none());
    assert!(started.started.is_empty());
    let reasons: Vec<(&str, &str)> = started
        .skipped
        .iter()
        .map(|(id, why)| (id.as_str(), why.as_str()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].0 == "unlisted" && reasons[0].1.contains("allow-list"));
    assert!(
        reasons[1].0 == "no_secret"
            && reasons[1]
                .1
                .contains("HOOKS_TEST_UNSET_WEBHOOK_SECRET_7F3A")
    );
    assert!(reasons[2].0 == "off" && reasons[2].1.contains("disabled"));
    assert_eq!(hooks.bus().subscribers(), 0, "nothing listens");
    dispatch(&hooks);
    // `expect(0)` is checked when the server drops: nothing was sent.
}

/// Captured log lines of one thread.
#[derive(Clone, Default)]
struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_reload_that_changes_webhooks_says_they_keep_their_old_settings() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hooks.yaml");
    let load = |url: &str| {
        let yaml = format!(
            "enabled: true\nwebhooks:\n  - {{ hook: stop, url: \"{url}\", unsigned: true }}\n"
        );
        parse_project(&yaml, Format::Yaml, &file).unwrap()
    };
    let configured = ConfigHooks::builder(dir.path())
        .build(load("https://a.example.com/in"))
        .unwrap();
    let logs = Logs::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        configured
            .replace(load("https://a.example.com/in"))
            .unwrap();
        configured
            .replace(load("https://b.example.com/in"))
            .unwrap();
    });
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text.matches("webhooks keep their old settings").count(),
        1,
        "only the reload that changed them warns: {text}"
    );
}

/// Seed 002's `ExtensionManager.registerWebhook` / `removeWebhook`, from code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_registered_at_run_time_send_signed_until_removed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    let url = format!("{}/runtime", server.uri());
    let dir = tempfile::tempdir().unwrap();
    let configured = ConfigHooks::builder(dir.path())
        .allow(url.clone())
        .build(Default::default())
        .unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let key = || Secret::expand("${PATH}").unwrap();

    // The same gate as a `webhooks:` entry: an unlisted URL is refused, nothing registered.
    let other = format!("{}/other", server.uri());
    let refused = configured
        .register_webhook(hooks.bus(), "PreToolUse", &other, Some(key()))
        .unwrap_err();
    assert!(refused.to_string().contains("allow-list"), "{refused}");
    assert!(
        configured
            .register_webhook(hooks.bus(), "PreToolUze", &url, None)
            .is_err()
    );

    configured
        .register_webhook(hooks.bus(), "PreToolUse", &url, Some(key()))
        .unwrap();
    assert!(
        configured
            .register_webhook(hooks.bus(), "pre_tool_use", &url, None)
            .unwrap_err()
            .to_string()
            .contains("already registered")
    );
    assert_eq!(
        configured.runtime_webhooks(),
        [("pre_tool_use", url.clone())]
    );
    dispatch(&hooks);
    let sender = configured.remove_webhook("PreToolUse", &url).unwrap();
    assert!(configured.runtime_webhooks().is_empty());
    assert!(configured.remove_webhook("pre_tool_use", &url).is_none());
    let stats = tokio::task::spawn_blocking(move || sender.shutdown(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!((stats.sent, stats.dropped, stats.failed), (1, 0, 0));
    // Removed and shut down: later events are not sent.
    dispatch(&hooks);
    tokio::time::sleep(Duration::from_millis(200)).await;

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    let header = |name: &str| request.headers.get(name).unwrap().to_str().unwrap();
    let verified = Verifier::new(key())
        .verify(
            &request.body,
            header(SIGNATURE_HEADER),
            header(TIMESTAMP_HEADER),
            SystemTime::now(),
        )
        .expect("signed with the secret given");
    assert_eq!(verified.envelope["event"], "pre_tool_use");
}
