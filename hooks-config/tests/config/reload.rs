//! Hot reload from real file-system events: a good edit swaps the set, a bad one keeps it.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use hookrail_config::file::Sources;
use hookrail_config::reload::{ReloadOutcome, Reloader};
use hookrail_config::runner::ConfigHooks;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use serde_json::json;

/// Long enough for a loaded machine; the test waits for the event, not for this.
const WAIT: Duration = Duration::from_secs(20);

fn hooks_yaml(point: &str, reason: &str) -> String {
    format!(
        "enabled: true\nallow: [\"echo {reason} >&2; exit 2\"]\nhooks:\n  - id: guard\n    event_type: {point}\n    handler: {{ command: \"echo {reason} >&2; exit 2\" }}\n"
    )
}

/// Writes the way editors do: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn verdict(hooks: &Hooks, dir: &Path) -> String {
    let mut ctx = PreToolUse::new(
        Meta::new("s").with_cwd(dir),
        "Bash",
        json!({"command": "ls"}),
    );
    let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
    outcome.verdict().to_string()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_edit_swaps_the_set_and_a_bad_edit_keeps_the_last_good_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hooks.yaml");
    std::fs::write(&file, hooks_yaml("PreToolUse", "first")).unwrap();
    let sources = Sources::new().project(dir.path());
    let configured = ConfigHooks::builder(dir.path())
        .build(sources.load().unwrap())
        .unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    assert_eq!(verdict(&hooks, dir.path()).await, "deny: first");

    let (tx, rx) = mpsc::channel();
    let _reloader = Reloader::watch(configured.clone(), sources, move |outcome| {
        let text = match outcome {
            ReloadOutcome::Applied { hooks } => format!("applied {hooks}"),
            ReloadOutcome::Unchanged => "unchanged".to_owned(),
            ReloadOutcome::Rejected { problems, .. } => format!(
                "rejected {}",
                problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            _ => "other".to_owned(),
        };
        let _ = tx.send(text);
    })
    .unwrap();

    save(&file, &hooks_yaml("PreToolUse", "second"));
    assert_eq!(next(&rx, "applied"), "applied 1");
    assert_eq!(verdict(&hooks, dir.path()).await, "deny: second");

    // Emptied in place (an editor that truncates, then writes): not a set without hooks.
    std::fs::write(&file, "").unwrap();
    let rejected = next(&rx, "rejected");
    assert!(rejected.contains("the file is empty"), "{rejected}");
    assert_eq!(verdict(&hooks, dir.path()).await, "deny: second");

    // An unknown event: the entry would be skipped, so the whole edit is refused.
    save(&file, &hooks_yaml("PreToolUsed", "third"));
    let rejected = next(&rx, "rejected");
    assert!(rejected.contains("did you mean `PreToolUse`"), "{rejected}");
    assert_eq!(verdict(&hooks, dir.path()).await, "deny: second");

    // A file that does not parse at all.
    save(&file, "enabled: true\nhooks: [ {\n");
    let rejected = next(&rx, "rejected");
    assert!(rejected.contains("hooks.yaml:"), "{rejected}");
    assert_eq!(verdict(&hooks, dir.path()).await, "deny: second");

    // A later good edit applies again.
    save(&file, &hooks_yaml("Stop", "elsewhere"));
    next(&rx, "applied");
    assert_eq!(verdict(&hooks, dir.path()).await, "continue");
}

#[test]
fn a_new_hooks_file_in_the_hooks_directory_is_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hooks.yaml"), "enabled: true\nhooks: []\n").unwrap();
    std::fs::create_dir(dir.path().join(".hooks")).unwrap();
    let sources = Sources::new().project(dir.path());
    let configured = ConfigHooks::builder(dir.path())
        .build(sources.load().unwrap())
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let _reloader = Reloader::watch(configured.clone(), sources, move |outcome| {
        if let ReloadOutcome::Applied { hooks } = outcome {
            let _ = tx.send(format!("applied {hooks}"));
        }
    })
    .unwrap();
    save(
        &dir.path().join(".hooks").join("fmt.yaml"),
        "id: fmt\nevent_type: Stop\nhandler: { command: ./fmt.sh }\n",
    );
    assert_eq!(next(&rx, "applied"), "applied 1");
    assert_eq!(configured.config().hooks[0].id, "fmt");
}

#[test]
fn a_hooks_directory_made_after_the_start_is_watched_from_then_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hooks.yaml"), "enabled: true\nhooks: []\n").unwrap();
    let sources = Sources::new().project(dir.path());
    let configured = ConfigHooks::builder(dir.path())
        .build(sources.load().unwrap())
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let _reloader = Reloader::watch(configured.clone(), sources, move |outcome| {
        if let ReloadOutcome::Applied { hooks } = outcome {
            let _ = tx.send(format!("applied {hooks}"));
        }
    })
    .unwrap();
    std::fs::create_dir(dir.path().join(".hooks")).unwrap();
    save(
        &dir.path().join(".hooks").join("a.yaml"),
        "id: a\nevent_type: Stop\nhandler: { command: ./a.sh }\n",
    );
    assert_eq!(next(&rx, "applied"), "applied 1");
    // An edit inside the new directory is seen too.
    save(
        &dir.path().join(".hooks").join("b.yaml"),
        "id: b\nevent_type: Stop\nhandler: { command: ./b.sh }\n",
    );
    assert_eq!(next(&rx, "applied"), "applied 2");
}
