//! The command corpus of hookrail-builtin (`hooks-builtin/tests/corpus/*.toml`) through the real
//! binary: `hooks claude` with no configuration runs the default guards, so every case must
//! get the answer the corpus expects, naming the same rule, as the library gives it. Every
//! eighth case runs (a process per case costs tens of milliseconds in a debug build);
//! `CORPUS_ALL=1` runs them all.

use crate::common;

#[path = "../../../hooks-builtin/tests/corpus_cases/mod.rs"]
#[allow(dead_code)]
mod corpus_cases;

use common::{Project, stdout};
use corpus_cases::{Case, Expect, ROOT};
use hookrail_core::Verdict;
use serde_json::{Value, json};

/// The binary's answer: what it decided and the reason it gave.
fn answer(out: &std::process::Output) -> Result<(Expect, String), String> {
    let text = stdout(out);
    match out.status.code() {
        Some(2) => return Ok((Expect::Deny, common::stderr(out))),
        Some(0) => {}
        code => return Err(format!("exit {code:?}: {}", common::stderr(out))),
    }
    if text.trim().is_empty() {
        return Ok((Expect::Allow, String::new()));
    }
    let json: Value = serde_json::from_str(text.trim()).map_err(|e| format!("{e}: {text}"))?;
    let specific = &json["hookSpecificOutput"];
    let reason = specific["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Ok(match specific["permissionDecision"].as_str() {
        Some("deny") => (Expect::Deny, reason),
        Some("ask") => (Expect::Ask, reason),
        None | Some("allow") => (Expect::Allow, reason),
        Some(other) => return Err(format!("unknown decision {other}: {text}")),
    })
}

#[test]
fn hooks_claude_gives_the_corpus_answers() {
    // Not under /tmp, where the project would change what `rm -rf /tmp/*` means.
    let project = Project::new_in(env!("CARGO_TARGET_TMPDIR"));
    // Named `project`, as the corpus's root is (`rm -rf ../project` is the project root).
    let root_dir = project.path().join("project");
    std::fs::create_dir(&root_dir).expect("project dir");
    let root = root_dir.to_str().expect("utf-8 path").to_owned();
    let cases: Vec<Case> = corpus_cases::load();
    let mut failures = Vec::new();
    let mut ran = 0;
    let every = if std::env::var_os("CORPUS_ALL").is_some() {
        1
    } else {
        8
    };
    // The corpus's root is /work/project. Where this project lives (a checkout under /tmp,
    // a deeper directory) changes what a few cases mean: skip those.
    let in_temp = ["/tmp/", "/var/tmp/"].iter().any(|t| root.starts_with(t));
    let depends_on_place = |case: &Case| {
        let text = format!(
            "{} {}",
            case.command,
            case.cwd.as_deref().unwrap_or_default()
        );
        // Two levels up (`../..`, `cd .. && cd ..`) is `/` from /work/project only.
        // In a temporary directory, one level up is the temporary directory itself, where
        // deletes pass (`rimraf ../other-project`).
        // `/work` itself is the project's parent there, and a system directory here.
        text.matches("..").count() >= 2
            || text.replace(ROOT, "").contains("/work")
            || (in_temp
                && ["/tmp", "/var/tmp", "TMPDIR", "/dev/shm", ".."]
                    .iter()
                    .any(|t| text.contains(t)))
    };
    for case in cases.iter().step_by(every).filter(|c| !depends_on_place(c)) {
        ran += 1;
        let command = case.command.replace(ROOT, &root);
        let cwd = case.cwd.as_deref().unwrap_or(ROOT).replace(ROOT, &root);
        let payload = json!({
            "session_id": "corpus",
            "transcript_path": "/dev/null",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": command },
        });
        let out = project.hooks(
            &["claude"],
            &[("CLAUDE_PROJECT_DIR", root.as_str())],
            payload.to_string(),
        );
        // The binary's answer as a verdict, judged as the library's is (known holes too).
        let problem = match answer(&out) {
            Err(e) => Some(e),
            Ok((got, reason)) => {
                let verdict = match got {
                    Expect::Deny => Verdict::deny(reason),
                    Expect::Ask => Verdict::ask(reason),
                    Expect::Allow => Verdict::Continue,
                };
                case.judge(&verdict).err()
            }
        };
        if let Some(problem) = problem {
            failures.push(format!("{}: {:?}: {problem}", case.place, case.command));
        }
    }
    assert!(ran >= 200, "only {ran} cases ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
