//! Every answer field a hook can give Claude Code reaches it: sh, python3 and node scripts
//! (`tests/fixtures/claude-answers/scripts/`), each printing one field, run through
//! `hooks claude` and the daemon on an event's fixture payload; the table
//! `tests/fixtures/claude-answers/cases.json` lists script(s), event and the expected answer.
//! A case with a node script is skipped, and said, when `node` is not on PATH.

use crate::common;

use std::path::{Path, PathBuf};

use common::daemon::{Daemon, claude};
use common::{Project, stderr, stdout};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// The interpreter a script runs with, by its extension.
fn interpreter(script: &str) -> &'static str {
    match Path::new(script).extension().and_then(|e| e.to_str()) {
        Some("sh") => "sh",
        Some("py") => "python3",
        Some("js") => "node",
        other => panic!("{script}: no interpreter for {other:?}"),
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// The fixture payload of `event`, for `project`, with `patch` merged over it.
fn payload(event: &str, project: &Path, patch: &Value) -> Value {
    let path = fixtures().join("claude").join(format!("{event}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace("$PROJECT", project.to_str().unwrap());
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut payload = doc["payload"].clone();
    if let Some(patch) = patch.as_object() {
        payload.as_object_mut().unwrap().extend(patch.clone());
    }
    payload
}

/// A project whose settings declare `scripts` for `event` (under `matcher`, else the
/// fixture's matcher).
fn project_for(event: &str, matcher: Option<&str>, scripts: &[&str]) -> (Project, String) {
    let project = Project::new();
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("claude").join(format!("{event}.json"))).unwrap(),
    )
    .unwrap();
    let mut handlers = Vec::new();
    for script in scripts {
        let text = std::fs::read_to_string(fixtures().join("claude-answers/scripts").join(script))
            .unwrap();
        project.write(&format!("scripts/{script}"), &text);
        handlers.push(json!({
            "type": "command",
            "command": format!("{} scripts/{script}", interpreter(script)),
        }));
    }
    let mut group = json!({ "hooks": handlers });
    if let Some(matcher) = matcher.or(fixture["matcher"].as_str()) {
        group["matcher"] = json!(matcher);
    }
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": { event: [group] } }).to_string(),
    );
    let settings = project.path().join(".claude/settings.json");
    let settings = settings.to_str().unwrap().to_owned();
    project.approve(&settings);
    (project, settings)
}

fn printed(out: &std::process::Output) -> Value {
    let text = stdout(out);
    if text.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn every_answer_field_reaches_claude_code_from_hooks_claude_and_the_daemon() {
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("claude-answers/cases.json")).unwrap(),
    )
    .unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 20, "the table lists the answer fields");
    let node = on_path("node");
    let (mut wrong, mut ran, mut skipped) = (Vec::new(), 0, Vec::new());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let event = case["event"].as_str().unwrap();
        let scripts: Vec<&str> = case["scripts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        if !node && scripts.iter().any(|s| interpreter(s) == "node") {
            skipped.push(name);
            continue;
        }
        let (project, settings) = project_for(event, case["matcher"].as_str(), &scripts);
        let payload = payload(event, project.path(), &case["patch"]).to_string();
        let expected = &case["answer"];
        let out = claude(
            &project,
            &["--no-daemon", "--settings", &settings],
            payload.as_bytes(),
        );
        let got = match case["stdout"].as_str() {
            // Said on stdout as Claude Code reads it from a command hook (a path).
            Some(line) => {
                if stdout(&out).trim() != line {
                    wrong.push(format!("{name}: hooks claude printed {:?}", stdout(&out)));
                }
                expected.clone()
            }
            None => printed(&out),
        };
        if out.status.code() != Some(0) || &got != expected {
            wrong.push(format!(
                "{name}: hooks claude exit {:?}, answer {got}, stderr {}; expected {expected}",
                out.status.code(),
                stderr(&out)
            ));
            continue;
        }
        let daemon = Daemon::start(&project, &["--settings", &settings]);
        let (status, body) = daemon.post("/claude", payload.as_bytes());
        if status != 200 || &body != expected {
            wrong.push(format!("{name}: the daemon answered {status} {body}"));
        }
        // `hooks claude` in front of the daemon prints what it would have decided itself.
        let forwarded = claude(&project, &["--settings", &settings], payload.as_bytes());
        if stdout(&forwarded) != stdout(&out) {
            wrong.push(format!(
                "{name}: through the daemon hooks claude printed {:?}, alone {:?}",
                stdout(&forwarded),
                stdout(&out)
            ));
        }
        ran += 1;
    }
    if !skipped.is_empty() {
        eprintln!(
            "note: `node` is not on PATH; {} case(s) with node scripts skipped: {}",
            skipped.len(),
            skipped.join("; ")
        );
    }
    assert!(ran > 0, "no case ran");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
