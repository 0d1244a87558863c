//! `type: http` hooks through the runner, against a local server: the same JSON posted, the
//! same decision JSON read, timeouts and statuses under the hook's failure policy.

#![cfg(feature = "http")]

use std::time::Duration;

use hookrail_config::file::{Format, parse_project};
use hookrail_config::runner::{CommandEvent, ConfigHooks, RunStatus};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn hooks_for(
    server: &MockServer,
    extra: &str,
) -> (Hooks, std::sync::Arc<std::sync::Mutex<Vec<CommandEvent>>>) {
    let url = format!("{}/hook", server.uri());
    let yaml = format!(
        "enabled: true\nallow: [\"{url}\"]\nhooks:\n  - id: remote\n    event_type: PreToolUse\n    handler: {{ kind: http, url: \"{url}\", headers: {{ X-Team: infra }} }}\n{extra}"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let configured = ConfigHooks::builder(dir.path()).build(config).unwrap();
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = events.clone();
    configured.subscribe(move |e| sink.lock().unwrap().push(e.clone()));
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    (hooks, events)
}

async fn dispatch(hooks: &Hooks) -> (hookrail_core::Outcome<Verdict>, PreToolUse) {
    let mut ctx = PreToolUse::new(
        Meta::new("s1").with_cwd("/tmp"),
        "Bash",
        json!({"command": "terraform destroy"}),
    );
    let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    (outcome, ctx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_hook_gets_the_hook_input_and_its_decision_applies() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .and(header("X-Team", "infra"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "change freeze", "additionalContext": "ask #infra"}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let (hooks, events) = hooks_for(&server, "").await;
    let (outcome, ctx) = dispatch(&hooks).await;
    assert_eq!(outcome.verdict(), &Verdict::deny("change freeze"));
    assert_eq!(ctx.additional_context, ["ask #infra"]);
    let requests = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["hook_event_name"], "PreToolUse");
    assert_eq!(body["tool_input"]["command"], "terraform destroy");
    let events = events.lock().unwrap();
    let CommandEvent::Ran(run) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(run.status, RunStatus::Http(200));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_status_is_a_failure_under_the_hooks_policy() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("upstream down"))
        .mount(&server)
        .await;
    let (hooks, _) = hooks_for(&server, "").await;
    let (outcome, _) = dispatch(&hooks).await;
    assert!(outcome.is_denied(), "a guard fails closed by default");
    let failure = outcome.decided_by_failure().unwrap();
    assert!(
        failure
            .cause
            .to_string()
            .contains("answered HTTP 503: upstream down"),
        "{}",
        failure.cause
    );

    let (hooks, _) = hooks_for(&server, "    on_error: ignore\n").await;
    assert_eq!(dispatch(&hooks).await.0.verdict(), &Verdict::Continue);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_endpoint_times_out_and_fails_closed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(10)))
        .mount(&server)
        .await;
    let (hooks, events) = hooks_for(&server, "    timeout_ms: 200\n").await;
    let started = std::time::Instant::now();
    let (outcome, _) = dispatch(&hooks).await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "did not wait for the slow answer"
    );
    assert!(outcome.is_denied());
    let events = events.lock().unwrap();
    let CommandEvent::Ran(run) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(run.status, RunStatus::TimedOut);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unlisted_url_is_never_called_and_its_guard_denies() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let url = format!("{}/hook", server.uri());
    let yaml = format!(
        "enabled: true\nhooks:\n  - {{ id: remote, event_type: PreToolUse, handler: {{ kind: http, url: \"{url}\" }} }}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
    let configured = ConfigHooks::builder(dir.path()).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let (outcome, _) = dispatch(&hooks).await;
    assert!(server.received_requests().await.unwrap().is_empty());
    // A guard that cannot be asked cannot decide: it denies, naming the hook and the fix.
    assert!(outcome.is_denied(), "{:?}", outcome.verdict());
    assert!(outcome.decided_by_failure().is_some());
    let reason = outcome.verdict().reason().unwrap();
    assert!(
        reason.contains("`remote` (")
            && reason.contains(&url)
            && reason.contains("hooks trust --approve"),
        "{reason}"
    );

    // Chosen explicitly, the skip goes on without it, and is a notice.
    let yaml = format!(
        "enabled: true\nhooks:\n  - {{ id: remote, event_type: PreToolUse, on_unapproved: skip, handler: {{ kind: http, url: \"{url}\" }} }}\n"
    );
    let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
    let configured = ConfigHooks::builder(dir.path()).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let ((outcome, _), notices) = hookrail_config::runner::collect_notices(dispatch(&hooks)).await;
    assert_eq!(outcome.verdict(), &Verdict::Continue);
    assert!(notices[0].contains("`remote`"), "{notices:?}");
    assert!(server.received_requests().await.unwrap().is_empty());
}

/// Claude Code runs an identical URL declared in several settings files once, but a plugin's
/// copy stays separate: two settings files and two plugins declaring one URL post three times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_url_runs_once_across_settings_files_and_once_per_plugin() {
    use hookrail_config::file::{LoadedConfig, parse_claude};
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({})))
        .mount(&server)
        .await;
    let url = format!("{}/hook", server.uri());
    let doc = json!({ "hooks": { "PreToolUse": [
        { "matcher": "Bash", "hooks": [{ "type": "http", "url": url }] }] } })
    .to_string();
    let dir = tempfile::tempdir().unwrap();
    let part = |name: &str, plugin: Option<&str>| {
        let root = plugin.map(|p| dir.path().join(p));
        let mut config = parse_claude(
            &doc,
            &dir.path().join(format!("{name}.json")),
            root.as_deref(),
        )
        .unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        config.prefix_ids(&format!("{name}:"));
        config
    };
    let config = LoadedConfig::merge([
        part("user", None),
        part("project", None),
        part("fmt", Some("fmt")),
        part("lint", Some("lint")),
    ]);
    assert_eq!(config.hooks.len(), 4, "{:?}", config.problems);
    let configured = ConfigHooks::builder(dir.path())
        .allow(url.as_str())
        .build(config)
        .unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let (outcome, _) = dispatch(&hooks).await;
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let posts = server.received_requests().await.unwrap().len();
    assert_eq!(
        posts, 3,
        "one for the two settings files' copies, one for each plugin's"
    );
}
