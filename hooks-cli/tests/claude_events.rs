//! Every Claude Code event through the real binary: one fixture per event
//! (`tests/fixtures/claude/<Event>.json`: payload, the fixture hook's behaviour, the expected
//! answer), declared in one settings file with each event's matcher; `hooks claude` must give
//! the expected answer and `hooks serve` the same one. Then the matchers, the missing fields
//! and the unknown handler keys.

mod common;

use std::path::{Path, PathBuf};

use common::daemon::{Daemon, claude};
use common::{Project, stderr, stdout};
use serde_json::{Value, json};

/// One fixture file.
struct Fixture {
    event: String,
    payload: String,
    matcher: Option<String>,
    hook: Value,
    exit: i32,
    answer: Value,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/claude")
}

fn fixtures(project: &Path) -> Vec<Fixture> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.replace("$PROJECT", project.to_str().unwrap());
        let doc: Value = serde_json::from_str(&text).unwrap();
        let event = doc["payload"]["hook_event_name"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            path.file_stem().unwrap().to_str().unwrap(),
            event,
            "{path:?} is named for its event"
        );
        all.push(Fixture {
            payload: doc["payload"].to_string(),
            matcher: doc["matcher"].as_str().map(str::to_owned),
            hook: doc["hook"].clone(),
            exit: doc["expect"]["exit"].as_i64().unwrap() as i32,
            answer: doc["expect"]["answer"].clone(),
            event,
        });
    }
    all.sort_by(|a, b| a.event.cmp(&b.event));
    all
}

/// The fixture hook: adds a line to `ran/<event>` (so a test sees that it ran, also where
/// its answer changes nothing) and answers as `answers/<event>/` says for the event.
const HOOK: &str = r#"#!/bin/sh
event=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p')
mkdir -p ran && echo x >> "ran/$event"
dir="answers/$event"
[ -f "$dir/stdout" ] && cat "$dir/stdout"
[ -f "$dir/stderr" ] && cat "$dir/stderr" >&2
exit "$(cat "$dir/exit" 2>/dev/null || echo 0)"
"#;

/// A project with the fixture hook declared for every fixture's event; the settings' path.
fn project_with(fixtures: &[Fixture], project: &Project) -> String {
    let mut events = serde_json::Map::new();
    for f in fixtures {
        let mut group = json!({ "hooks": [{ "type": "command", "command": "./hook.sh" }] });
        if let Some(m) = &f.matcher {
            group["matcher"] = json!(m);
        }
        events.insert(f.event.clone(), json!([group]));
        let dir = format!("answers/{}", f.event);
        for part in ["stdout", "stderr"] {
            if let Some(text) = f.hook[part].as_str() {
                project.write(&format!("{dir}/{part}"), text);
            }
        }
        project.write(&format!("{dir}/exit"), &f.hook["exit"].to_string());
    }
    project.write("hook.sh", HOOK);
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": events }).to_string(),
    );
    let settings = project.path().join(".claude/settings.json");
    let settings = settings.to_str().unwrap().to_owned();
    project.approve(&settings);
    settings
}

/// How often the fixture hook ran for `event`.
fn runs(project: &Project, event: &str) -> usize {
    std::fs::read_to_string(project.path().join("ran").join(event))
        .map_or(0, |text| text.lines().count())
}

fn answer_of(out: &std::process::Output) -> Value {
    let text = stdout(out);
    if text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
    }
}

#[test]
fn every_event_is_answered_by_hooks_claude_and_the_daemon_alike() {
    let project = Project::new();
    let all = fixtures(project.path());
    assert_eq!(all.len(), 33, "one fixture per Claude Code event");
    let settings = project_with(&all, &project);
    let daemon = Daemon::start(&project, &["--settings", &settings]);
    let mut wrong = Vec::new();
    for f in &all {
        let out = claude(
            &project,
            &["--no-daemon", "--settings", &settings],
            f.payload.as_bytes(),
        );
        let got = answer_of(&out);
        if runs(&project, &f.event) != 1 {
            wrong.push(format!(
                "{}: the hook did not run once for hooks claude ({})",
                f.event,
                stderr(&out)
            ));
        }
        if out.status.code() != Some(f.exit) || got != f.answer {
            wrong.push(format!(
                "{}: hooks claude exit {:?}, answer {got}, stderr {}; expected exit {}, answer {}",
                f.event,
                out.status.code(),
                stderr(&out),
                f.exit,
                f.answer
            ));
            continue;
        }
        let (status, body) = daemon.post("/claude", f.payload.as_bytes());
        assert_eq!(status, 200, "{}: {body}", f.event);
        if body != f.answer {
            wrong.push(format!(
                "{}: the daemon answered {body}, hooks claude {got}",
                f.event
            ));
        }
        if runs(&project, &f.event) != 2 {
            wrong.push(format!("{}: the hook did not run for the daemon", f.event));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
