//! Layered hook directories (seed 002): built-in → user → workspace (`.hooks/`), same file
//! name replaces, file-name order, extension files with `name`, `version`, `failOpen` and
//! `maxExecutionTime`, the same trust gate for every layer, hot reload of every layer.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use hookrail_config::file::{Layer, Sources};
use hookrail_config::reload::{ReloadOutcome, Reloader};
use hookrail_config::runner::ConfigHooks;
use hookrail_config::spec::OnError;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;

const WAIT: Duration = Duration::from_secs(20);

struct Dirs {
    _tmp: tempfile::TempDir,
    project: std::path::PathBuf,
    user: std::path::PathBuf,
    builtin: std::path::PathBuf,
}

fn dirs(project_file: &str) -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let user = tmp.path().join("config/hookrail/hooks");
    let builtin = tmp.path().join("builtin");
    for d in [&project.join(".hooks"), &user, &builtin] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(project.join("hooks.yaml"), project_file).unwrap();
    Dirs {
        _tmp: tmp,
        project,
        user,
        builtin,
    }
}

fn entry(id: &str, point: &str, command: &str) -> String {
    format!("id: {id}\nevent_type: {point}\nhandler: {{ command: \"{command}\" }}\n")
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn sources(d: &Dirs) -> Sources {
    Sources::new()
        .project(&d.project)
        .user_dir(&d.user)
        .builtin_dir(&d.builtin)
}

#[test]
fn later_layers_replace_same_named_files_and_files_are_read_in_name_order() {
    let d = dirs("enabled: true\nhooks: []\n");
    write(
        &d.builtin,
        "_50_filter.yaml",
        &entry("filter", "Stop", "./b.sh"),
    );
    write(
        &d.builtin,
        "_90_notify.yaml",
        &entry("notify", "Stop", "./n.sh"),
    );
    write(
        &d.user,
        "_50_filter.yaml",
        &entry("filter", "Stop", "./u.sh"),
    );
    write(
        &d.user,
        "_10_log_all.yaml",
        &entry("log_all", "Stop", "./l.sh"),
    );
    write(
        &d.project.join(".hooks"),
        "_50_filter.yaml",
        &entry("filter", "Stop", "./w.sh"),
    );
    write(
        &d.project.join(".hooks"),
        "_20_scan.yaml",
        &entry("scan", "Stop", "./s.sh"),
    );

    let config = sources(&d).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["log_all", "scan", "filter", "notify"]);
    // The workspace's filter won; the built-in and user ones were not read.
    let filter = config.layer_file(&config.hooks[2].location.file).unwrap();
    assert_eq!(filter.layer, Layer::Workspace);
    assert_eq!(
        filter.replaced,
        [
            d.builtin.join("_50_filter.yaml"),
            d.user.join("_50_filter.yaml")
        ]
    );
    let layers: Vec<Layer> = config.layer_files.iter().map(|f| f.layer).collect();
    assert_eq!(
        layers,
        [
            Layer::User,
            Layer::Workspace,
            Layer::Workspace,
            Layer::Builtin
        ]
    );
    assert!(!config.files.contains(&d.user.join("_50_filter.yaml")));
}

#[test]
fn every_layer_follows_the_project_switch() {
    let d = dirs("hooks: []\n");
    write(&d.user, "a.yaml", &entry("a", "Stop", "./a.sh"));
    let config = sources(&d).load().unwrap();
    assert!(!config.enabled);
    assert!(config.hooks.is_empty());
    assert_eq!(config.dormant[0].id, "a");
}

#[test]
fn without_a_project_the_layers_follow_the_config_files() {
    let d = dirs("enabled: true\nhooks: []\n");
    write(&d.user, "a.yaml", &entry("a", "Stop", "./a.sh"));
    let config = Sources::new()
        .file(d.project.join("hooks.yaml"))
        .user_dir(&d.user)
        .load()
        .unwrap();
    assert_eq!(config.hooks[0].id, "a");
    assert_eq!(config.layer_files[0].layer, Layer::User);
}

#[test]
fn a_missing_user_directory_is_an_empty_layer() {
    let d = dirs("enabled: true\nhooks: []\n");
    let config = Sources::new()
        .project(&d.project)
        .user_dir(d.user.join("nope"))
        .load()
        .unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
}

#[test]
fn extension_files_carry_metadata_and_file_level_defaults() {
    let d = dirs("enabled: true\nhooks: []\n");
    write(
        &d.user,
        "_10_audit.yaml",
        r#"name: audit-extension
version: "1.2.0"
failOpen: false
maxExecutionTime: 1500
hooks:
  - { id: log, event_type: post_tool_use, handler: { command: ./log.sh } }
  - { id: own, event_type: post_tool_use, on_error: continue, timeout_ms: 99, handler: { command: ./o.sh } }
  - { event_type: stop, handler: { command: ./s.sh } }
"#,
    );
    write(
        &d.user,
        "_20_open.yaml",
        r#"name: open
failOpen: true
hooks:
  - { id: guard, event_type: pre_tool_use, handler: { command: ./g.sh } }
  - { id: observer, event_type: session_end, handler: { command: ./e.sh } }
  - { id: chosen, event_type: pre_tool_use, on_error: continue, handler: { command: ./c.sh } }
"#,
    );
    let config = sources(&d).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let hook = |id: &str| config.hooks.iter().find(|h| h.id == id).unwrap();

    let audit = config.layer_file(&d.user.join("_10_audit.yaml")).unwrap();
    assert_eq!(audit.name.as_deref(), Some("audit-extension"));
    assert_eq!(audit.version.as_deref(), Some("1.2.0"));
    assert_eq!(hook("log").on_error, Some(OnError::Deny));
    assert_eq!(hook("log").timeout, Some(Duration::from_millis(1500)));
    // A hook's own settings win.
    assert_eq!(hook("own").on_error, Some(OnError::Continue));
    assert_eq!(hook("own").timeout, Some(Duration::from_millis(99)));
    // A missing id is the stem and the position.
    assert_eq!(hook("_10_audit[2]").point, "stop");

    // failOpen: true never reaches a guard: it keeps the guard default (fail closed), noted.
    assert_eq!(hook("guard").on_error, None);
    assert_eq!(hook("observer").on_error, Some(OnError::Continue));
    assert_eq!(hook("chosen").on_error, Some(OnError::Continue));
    let open = config.layer_file(&d.user.join("_20_open.yaml")).unwrap();
    assert_eq!(open.notes.len(), 1, "{:?}", open.notes);
    assert!(open.notes[0].contains("`guard`"), "{:?}", open.notes);
}

#[test]
fn bad_extension_fields_are_problems_at_their_position() {
    let d = dirs("enabled: true\nhooks: []\n");
    write(
        &d.user,
        "x.yaml",
        "name: x\nversion: 1.0\nfailOpen: yes\nmaxExecutionTime: 0\nextra: 1\nhooks:\n  - { id: a, event_type: stop, handler: { command: ./a.sh } }\n",
    );
    let config = sources(&d).load().unwrap();
    let messages: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert!(
        messages[0].contains("x.yaml:2:10: `version`"),
        "{messages:#?}"
    );
    assert!(messages[1].contains("`failOpen`"), "{messages:#?}");
    assert!(messages[2].contains("`maxExecutionTime`"), "{messages:#?}");
    assert!(
        messages[3].contains("unknown field `extra`"),
        "{messages:#?}"
    );
    // The hooks still load, with the points' defaults.
    assert_eq!(config.hooks[0].on_error, None);
}

#[cfg(unix)]
#[tokio::test(flavor = "current_thread")]
async fn a_user_layer_command_goes_through_the_same_gate() {
    use std::os::unix::fs::PermissionsExt;
    let d = dirs("enabled: true\nhooks: []\n");
    let marker = d.project.join("ran");
    let script = d.user.join("guard.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(
        &d.user,
        "_10_guard.yaml",
        &entry("user_guard", "PreToolUse", &script.display().to_string()),
    );
    let config = sources(&d).load().unwrap();
    assert_eq!(config.hooks[0].id, "user_guard");
    let configured = ConfigHooks::builder(&d.project).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    let mut ctx = PreToolUse::new(
        Meta::new("s").with_cwd(&d.project),
        "Bash",
        serde_json::json!({"command": "ls"}),
    );
    let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    // Unlisted and unapproved: never run, and the guard point fails closed.
    assert!(!marker.exists(), "an unapproved user-layer command ran");
    assert!(outcome.verdict().is_deny(), "{}", outcome.verdict());
    assert!(
        outcome.verdict().reason().unwrap().contains("user_guard"),
        "{}",
        outcome.verdict()
    );
}

fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn next(rx: &mpsc::Receiver<String>, want: &str) -> String {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(outcome) if outcome.starts_with(want) => return outcome,
            Ok(_) => continue,
            Err(_) => panic!("no `{want}` reload within {WAIT:?}"),
        }
    }
}

fn watch(d: &Dirs, sources: Sources) -> (Reloader, ConfigHooks, mpsc::Receiver<String>) {
    let configured = ConfigHooks::builder(&d.project)
        .build(sources.load().unwrap())
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let reloader = Reloader::watch(configured.clone(), sources, move |outcome| {
        if let ReloadOutcome::Applied { hooks } = outcome {
            let _ = tx.send(format!("applied {hooks}"));
        }
    })
    .unwrap();
    (reloader, configured, rx)
}

#[test]
fn hot_reload_watches_the_user_and_builtin_layers() {
    let d = dirs("enabled: true\nhooks: []\n");
    let (_reloader, configured, rx) = watch(&d, sources(&d));
    save(&d.user.join("a.yaml"), &entry("a", "Stop", "./a.sh"));
    assert_eq!(next(&rx, "applied"), "applied 1");
    save(&d.builtin.join("b.yaml"), &entry("b", "Stop", "./b.sh"));
    assert_eq!(next(&rx, "applied"), "applied 2");
    // A workspace file of the same name replaces the user's.
    save(
        &d.project.join(".hooks").join("a.yaml"),
        &entry("a", "Stop", "./w.sh"),
    );
    next(&rx, "applied");
    let config = configured.config();
    let a = config.hooks.iter().find(|h| h.id == "a").unwrap();
    assert_eq!(
        config.layer_file(&a.location.file).unwrap().layer,
        Layer::Workspace
    );
}

#[test]
fn a_user_directory_made_after_the_start_is_watched() {
    let d = dirs("enabled: true\nhooks: []\n");
    let later = d.user.parent().unwrap().join("later");
    let sources = Sources::new().project(&d.project).user_dir(&later);
    let (_reloader, _configured, rx) = watch(&d, sources);
    std::fs::create_dir(&later).unwrap();
    save(&later.join("a.yaml"), &entry("a", "Stop", "./a.sh"));
    assert_eq!(next(&rx, "applied"), "applied 1");
    save(&later.join("b.yaml"), &entry("b", "Stop", "./b.sh"));
    assert_eq!(next(&rx, "applied"), "applied 2");
}
