//! Seed 003 in the runner with real scripts: `HookResult` answers reach a `Session` as
//! signals (an `ABILITY_DENIED` disables the tool), and `blocking: false` hooks of the
//! infra-only points run in the background without delaying the dispatch.

#![cfg(unix)]

use std::path::Path;
use std::time::Duration;

use hookrail_config::file::{Format, parse_project};
use hookrail_config::runner::ConfigHooks;
use hookrail_core::context::{Meta, SessionEnd, ToolCall};
use hookrail_core::points::session_end;
use hookrail_core::runtime::{Hooks, Session, ToolRun};
use serde_json::json;

fn script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `hooks` with the YAML's hooks attached, each command allow-listed.
fn attach(dir: &Path, hooks_yaml: &str, commands: &[&str]) -> (Hooks, ConfigHooks) {
    let yaml = format!("enabled: true\nhooks:\n{hooks_yaml}");
    let config = parse_project(&yaml, Format::Yaml, &dir.join("hooks.yaml")).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let mut builder = ConfigHooks::builder(dir);
    for command in commands {
        builder = builder.allow(*command);
    }
    let configured = builder.build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    (hooks, configured)
}

#[tokio::test]
async fn a_scripts_ability_denied_disables_the_tool_in_the_session() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "guard.sh",
        r#"#!/bin/sh
cat >/dev/null
echo run >> guard.log
echo '{"hook_signals": [{"kind": "ability_guard", "code": "ABILITY_DENIED",
  "payload": {"ability_id": "Write", "reason": "prod config", "require_human": false}}]}'
"#,
    );
    let (hooks, _configured) = attach(
        dir.path(),
        "  - { id: prod_config_guard, event_type: PreAbilityCall, match: { ability_scope: Write }, handler: { command: ./guard.sh } }\n",
        &["./guard.sh"],
    );
    let mut session = Session::start(hooks, Meta::new("s1").with_cwd(dir.path()), "m")
        .await
        .unwrap();
    let write = || ToolCall::new("t1", "Write", json!({"file_path": "prod.yaml"}));
    for _ in 0..2 {
        let run = session
            .tool_call(write(), async |_| Ok(json!("written")))
            .await
            .unwrap();
        assert!(matches!(run, ToolRun::Denied { .. }), "{run:?}");
    }
    let log = std::fs::read_to_string(dir.path().join("guard.log")).unwrap();
    assert_eq!(
        log.lines().count(),
        1,
        "the second call was refused before the guard"
    );
    let (tool, why) = session.disabled_tools().next().unwrap();
    assert_eq!(tool, "Write");
    assert_eq!(why, "ABILITY_DENIED by `prod_config_guard`: prod config");
}

#[tokio::test]
async fn non_blocking_infra_hooks_run_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "summary.sh",
        // Finishes only once the test lets it (`go`): a dispatch that waited for it would
        // return after the loop gave up, with no summary written.
        "#!/bin/sh\ncat >/dev/null\ni=0\nwhile [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n[ -e go ] && echo done > summary.txt\necho '{\"usage_recorded\": true}'\n",
    );
    script(
        dir.path(),
        "sync.sh",
        "#!/bin/sh\ncat >/dev/null\necho done > sync.txt\n",
    );
    let (hooks, configured) = attach(
        dir.path(),
        "  - { id: session_stop_build_check, event_type: SessionStop, blocking: false, handler: { command: ./summary.sh } }\n  \
         - { id: blocking_stop, event_type: SessionStop, handler: { command: ./sync.sh } }\n",
        &["./summary.sh", "./sync.sh"],
    );
    let mut ctx = SessionEnd::new(
        Meta::new("s1").with_cwd(dir.path()),
        Default::default(),
        true,
    );
    let out = hooks.dispatch_async::<session_end::Point>(&mut ctx).await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert!(
        dir.path().join("sync.txt").exists(),
        "a blocking hook still runs in the dispatch"
    );
    assert!(
        !dir.path().join("summary.txt").exists(),
        "the background hook is still running"
    );

    std::fs::write(dir.path().join("go"), "").unwrap();
    assert_eq!(configured.wait_background(Duration::from_secs(10)).await, 0);
    assert!(
        dir.path().join("summary.txt").exists(),
        "the background hook finished"
    );
    assert_eq!(
        configured.wait_background(Duration::from_millis(1)).await,
        0,
        "nothing left"
    );
}
