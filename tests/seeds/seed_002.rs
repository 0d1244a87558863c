//! Seed 002, SecureYeoman's ADR 035 ("Lifecycle Extension Hooks"): extension directories
//! loaded built-in → user → workspace, a same-named file of a later layer overriding, numeric
//! file-name prefixes setting the order, hot reload, transform / observe / veto semantics, an
//! event emitter for every hook point, outbound webhooks signed with HMAC-SHA256 (also
//! registered at run time), and `failOpen` / `maxExecutionTime`.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use hookrail_config::file::{Layer, Sources};
use hookrail_config::reload::{ReloadOutcome, Reloader};
use hookrail_config::runner::ConfigHooks;
use hookrail_core::Verdict;
use hookrail_core::bus::Filter;
use hookrail_core::context::{Meta, PostToolUse, PreToolUse, SessionEnd, SessionEndReason};
use hookrail_core::points::{post_tool_use, pre_tool_use, session_end};
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_telemetry::signature::{SIGNATURE_HEADER, Secret, TIMESTAMP_HEADER, Verifier};
use serde_json::json;

use crate::support::{Project, Seen};

/// The seed's three extension directories around a project whose scripts log their name.
struct Extensions {
    project: Project,
    builtin: PathBuf,
    user: PathBuf,
    workspace: PathBuf,
}

impl Extensions {
    fn new() -> Extensions {
        let project = Project::new();
        project.file(
            "hooks.yaml",
            "enabled: true\nsequential: true\nallow: [\"./scripts/*\"]\nhooks: []\n",
        );
        for name in [
            "log_all",
            "builtin_filter",
            "user_filter",
            "workspace_filter",
            "notify",
        ] {
            project.script(
                &format!("scripts/{name}.sh"),
                &format!("#!/bin/sh\ncat >/dev/null\necho {name} >> run.log\n"),
            );
        }
        project.script("scripts/slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 30\n");
        project.script("scripts/broken.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n");
        let builtin = project.path().join("packaged/extensions");
        let user = project.path().join("home/.config/hookrail/hooks");
        let workspace = project.path().join(".hooks");
        for dir in [&builtin, &user, &workspace] {
            std::fs::create_dir_all(dir).unwrap();
        }
        Extensions {
            project,
            builtin,
            user,
            workspace,
        }
    }

    /// An extension file holding one hook that runs `scripts/<script>.sh` after each tool.
    fn extension(dir: &Path, file: &str, script: &str) {
        let id = file.trim_end_matches(".yaml");
        std::fs::write(
            dir.join(file),
            format!(
                "name: {script}\nversion: \"1.0.0\"\nhooks:\n  - {{ id: {id}, event_type: post_tool_use, handler: {{ command: ./scripts/{script}.sh }} }}\n"
            ),
        )
        .unwrap();
    }

    fn sources(&self) -> Sources {
        Sources::new()
            .project(self.project.path())
            .user_dir(&self.user)
            .builtin_dir(&self.builtin)
    }

    /// Hooks with every layer attached (the scripts are admitted by the project's `allow:`).
    fn attach(&self) -> (Hooks, ConfigHooks) {
        let config = self.sources().load().unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        let configured = ConfigHooks::builder(self.project.path())
            .build(config)
            .unwrap();
        let hooks = Hooks::builder().ignore_env().build().unwrap();
        configured.attach(&hooks).unwrap();
        (hooks, configured)
    }

    fn meta(&self) -> Meta {
        Meta::new("s1").with_cwd(self.project.path())
    }
}

async fn after_tool(hooks: &Hooks, meta: Meta) -> hookrail_core::Outcome<()> {
    let mut ctx = PostToolUse::new(meta, "Bash", json!({"command": "ls"}), json!("ok"), 5);
    hooks.dispatch_async::<post_tool_use::Point>(&mut ctx).await
}

/// "Loading order: Built-in → User → Workspace. Same-named files in later directories override
/// earlier ones. Files are sorted alphabetically; numeric prefixes control execution order."
#[tokio::test]
async fn layers_override_by_file_name_and_numeric_prefixes_set_the_order() {
    let ext = Extensions::new();
    Extensions::extension(
        &ext.builtin,
        "_50_custom_memory_filter.yaml",
        "builtin_filter",
    );
    Extensions::extension(&ext.builtin, "_90_slack_notifications.yaml", "notify");
    Extensions::extension(&ext.user, "_10_log_all_llm_calls.yaml", "log_all");
    Extensions::extension(&ext.user, "_50_custom_memory_filter.yaml", "user_filter");
    Extensions::extension(
        &ext.workspace,
        "_50_custom_memory_filter.yaml",
        "workspace_filter",
    );
    let (hooks, configured) = ext.attach();

    let outcome = after_tool(&hooks, ext.meta()).await;
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(
        ext.project.read("run.log").lines().collect::<Vec<_>>(),
        ["log_all", "workspace_filter", "notify"]
    );
    // What won and what it replaced, with each file's name and version.
    let config = configured.config();
    let filter = config
        .layer_files
        .iter()
        .find(|f| f.path.ends_with("_50_custom_memory_filter.yaml"))
        .unwrap();
    assert_eq!(filter.layer, Layer::Workspace);
    assert_eq!(filter.replaced.len(), 2);
    assert_eq!(filter.name.as_deref(), Some("workspace_filter"));
    assert_eq!(filter.version.as_deref(), Some("1.0.0"));
}

/// `maxExecutionTime` (ms, per extension per hook) and `failOpen`: a hook past its time is
/// stopped; with `failOpen: true` the pipeline continues, with `failOpen: false` a guard
/// blocks.
#[tokio::test]
async fn max_execution_time_stops_a_hook_and_fail_open_decides_what_follows() {
    let ext = Extensions::new();
    std::fs::write(
        ext.user.join("_20_slow.yaml"),
        "name: slow\nfailOpen: true\nmaxExecutionTime: 300\nhooks:\n  - { id: slow, event_type: post_tool_use, handler: { command: ./scripts/slow.sh } }\n",
    )
    .unwrap();
    std::fs::write(
        ext.user.join("_30_strict.yaml"),
        "name: strict\nfailOpen: false\nhooks:\n  - { id: strict, event_type: pre_tool_use, handler: { command: ./scripts/broken.sh } }\n",
    )
    .unwrap();
    let (hooks, configured) = ext.attach();
    let slow = configured
        .config()
        .hooks
        .iter()
        .find(|h| h.id == "slow")
        .unwrap()
        .clone();
    assert_eq!(slow.timeout, Some(Duration::from_millis(300)));

    let outcome = after_tool(&hooks, ext.meta()).await;
    assert!(
        outcome.failed_closed().is_none(),
        "fail open: the pipeline goes on"
    );

    let mut ctx = PreToolUse::new(ext.meta(), "Bash", json!({"command": "ls"}));
    let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    assert!(outcome.is_denied(), "fail closed: {:?}", outcome.value);
}

/// Transform hooks run in order, each receiving the previous one's output; veto hooks cancel
/// the operation, the first veto wins; observe hooks all run.
#[tokio::test]
async fn transform_veto_and_observe_semantics() {
    let seen = Seen::default();
    let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
    let hooks = Hooks::builder()
        .ignore_env()
        // tool_execute_before as a transform: rewrites the input.
        .hook(
            Hook::<pre_tool_use::Point>::new("_10_redact", |ctx: &mut PreToolUse| {
                ctx.tool_input.set(json!({"command": "ls -la"}));
                Verdict::Continue
            })
            .order(10),
        )
        .hook(
            Hook::<pre_tool_use::Point>::new("_20_sees_rewrite", move |ctx: &mut PreToolUse| {
                a.push(ctx.tool_input.get()["command"].as_str().unwrap_or_default());
                Verdict::Continue
            })
            .order(20),
        )
        // tool_execute_before as a veto: the first one wins.
        .hook(
            Hook::<pre_tool_use::Point>::new("_30_veto", |_: &mut PreToolUse| {
                Verdict::deny("first veto")
            })
            .order(30),
        )
        .hook(
            Hook::<pre_tool_use::Point>::new("_40_veto", |_: &mut PreToolUse| {
                Verdict::deny("second veto")
            })
            .order(40),
        )
        // agent_shutdown: observers, all of them run.
        .hook(Hook::<session_end::Point>::new(
            "obs_a",
            move |_: &SessionEnd| b.push("obs_a"),
        ))
        .hook(Hook::<session_end::Point>::new(
            "obs_b",
            move |_: &SessionEnd| c.push("obs_b"),
        ))
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls"}));
    let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    assert_eq!(outcome.value, Verdict::deny("first veto"));
    assert_eq!(
        outcome.decided_by.map(|h| h.to_string()).as_deref(),
        Some("_30_veto")
    );
    let mut end = SessionEnd::new(Meta::new("s1"), SessionEndReason::Completed, true);
    hooks.dispatch_async::<session_end::Point>(&mut end).await;
    let mut all = seen.all();
    all.sort();
    assert_eq!(all, ["ls -la", "obs_a", "obs_b"]);
}

/// "Every hook point also emits a typed event": a subscriber of the bus sees each dispatch
/// with the context as the hooks left it and the merged outcome.
#[tokio::test]
async fn every_hook_point_emits_a_typed_event() {
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new(
            "no_rm",
            |ctx: &mut PreToolUse| {
                if ctx.command().is_some_and(|c| c.contains("rm")) {
                    Verdict::deny("no rm")
                } else {
                    Verdict::Continue
                }
            },
        ))
        .build()
        .unwrap();
    let mut events = hooks.bus().subscribe(Filter::all());
    let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "rm -r x"}));
    hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    after_tool(&hooks, Meta::new("s1")).await;
    let first = events.try_recv().expect("pre_tool_use was published");
    let call = first
        .payload::<pre_tool_use::Point>()
        .expect("a pre_tool_use payload");
    assert!(call.outcome.verdict.as_ref().is_some_and(Verdict::is_deny));
    let second = events.try_recv().expect("post_tool_use was published");
    assert!(second.payload::<post_tool_use::Point>().is_some());
}

/// The seed's `extensions.webhooks` entry (`secret` → HMAC-SHA256 signature header,
/// `timeout`), and `registerWebhook` / `removeWebhook` at run time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_and_can_be_registered_and_removed_at_run_time() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    let siem = format!("{}/api/events", server.uri());
    let analytics = format!("{}/api/messages", server.uri());
    let project = Project::new();
    // `${PATH}`: a variable that is always set stands in for `${WEBHOOK_SECRET}`.
    project.file(
        "hooks.yaml",
        &format!(
            "enabled: true\nallow: [\"{siem}\", \"{analytics}\"]\nwebhooks:\n  - {{ id: siem, hook: PreToolUse, url: \"{siem}\", secret: \"${{PATH}}\", timeout_ms: 5000 }}\n"
        ),
    );
    let config = Sources::new().project(project.path()).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let configured = ConfigHooks::builder(project.path()).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let started = configured.start_webhooks(hooks.bus(), None).unwrap();
    assert_eq!(started.started, ["siem"]);
    configured
        .register_webhook(hooks.bus(), "PreToolUse", &analytics, None)
        .unwrap();

    let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls"}));
    hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    let removed = configured.remove_webhook("PreToolUse", &analytics).unwrap();
    let stats = tokio::task::spawn_blocking(move || removed.shutdown(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(stats.sent, 1);
    let sender = started.sender.expect("the configured webhook's sender");
    let stats = tokio::task::spawn_blocking(move || sender.shutdown(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(stats.sent, 1);

    let requests = server.received_requests().await.unwrap();
    let signed = requests
        .iter()
        .find(|r| r.url.path() == "/api/events")
        .unwrap();
    let header = |name: &str| signed.headers.get(name).unwrap().to_str().unwrap();
    Verifier::new(Secret::expand("${PATH}").unwrap())
        .verify(
            &signed.body,
            header(SIGNATURE_HEADER),
            header(TIMESTAMP_HEADER),
            SystemTime::now(),
        )
        .expect("signed with the secret");
    let unsigned = requests
        .iter()
        .find(|r| r.url.path() == "/api/messages")
        .unwrap();
    assert!(unsigned.headers.get(SIGNATURE_HEADER).is_none());
}

/// `hotReload: true`: a file dropped into the workspace layer runs without a restart, and a
/// bad edit keeps the last good set.
#[tokio::test]
async fn extension_directories_are_hot_reloaded() {
    let ext = Extensions::new();
    Extensions::extension(&ext.user, "_10_log_all.yaml", "log_all");
    let (hooks, configured) = ext.attach();
    let (tx, rx) = mpsc::channel();
    let _reloader = Reloader::watch(configured, ext.sources(), move |outcome| {
        let _ = tx.send(matches!(outcome, ReloadOutcome::Applied { .. }));
    })
    .unwrap();
    Extensions::extension(&ext.workspace, "_90_notify.yaml", "notify");
    assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok(true));
    std::fs::write(
        ext.workspace.join("_95_bad.yaml"),
        "event_type: [not an event\n",
    )
    .unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok(false));

    after_tool(&hooks, ext.meta()).await;
    assert_eq!(
        ext.project.read("run.log").lines().collect::<Vec<_>>(),
        ["log_all", "notify"]
    );
}
