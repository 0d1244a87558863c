#![cfg(feature = "context-inject")]
//! `context-inject` through a real `Hooks` value and `Session`s: directives captured in one
//! session are injected into the next, look-alikes are not captured, subagents get their own
//! history, a denied prompt records nothing, and concurrent sessions do not mix lines.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookrail_builtin::context_inject::{ContextInject, ContextInjectConfig, InjectFile, Keep};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, SessionEndReason, UserPromptSubmit};
use hookrail_core::points::user_prompt_submit;
use hookrail_core::runtime::{Hook, Hooks, Session, SessionError};

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

fn hooks(config: ContextInjectConfig) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(50, ContextInject::new(config).unwrap())
        .build()
        .unwrap()
}

fn meta(root: &Path, session: &str, agent: &str) -> Meta {
    Meta::new(session).with_agent(agent).with_cwd(root)
}

fn decision_lines(root: &Path) -> Vec<String> {
    fs::read_to_string(root.join(".agents/decisions.md"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("- "))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn a_directive_captured_in_one_session_is_injected_at_the_start_of_the_next() {
    let (_d, root) = project();
    let hooks = hooks(ContextInjectConfig::default());

    let first = Session::start(hooks.clone(), meta(&root, "s1", "coder"), "m")
        .await
        .unwrap();
    assert!(
        first.start_context().is_empty(),
        "nothing to inject yet: {:?}",
        first.start_context()
    );
    let mut first = first;
    let ctx = first
        .submit_prompt("Please fix the flaky test, and never push directly to main.")
        .await
        .unwrap();
    assert_eq!(ctx.directives, ["never push directly to main"]);
    let ctx = first
        .submit_prompt("From now on, run cargo fmt before every commit!")
        .await
        .unwrap();
    assert_eq!(
        ctx.directives,
        ["From now on, run cargo fmt before every commit"]
    );
    first.end(SessionEndReason::Completed, true).await;

    let second = Session::start(hooks, meta(&root, "s2", "reviewer"), "m")
        .await
        .unwrap();
    let injected = second.start_context();
    assert_eq!(injected.len(), 1, "{injected:?}");
    assert!(injected[0].starts_with("Decisions (.agents/decisions.md):\n"));
    assert!(injected[0].contains("(coder): never push directly to main"));
    assert!(injected[0].contains("(coder): From now on, run cargo fmt before every commit"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_repeated_directive_is_written_once_across_sessions() {
    let (_d, root) = project();
    let hooks = hooks(ContextInjectConfig::default());
    for (i, prompt) in [
        "Never push to main.",
        "never push to main",
        "OK. NEVER push to  main!",
    ]
    .into_iter()
    .enumerate()
    {
        let mut s = Session::start(hooks.clone(), meta(&root, &format!("s{i}"), "a"), "m")
            .await
            .unwrap();
        let ctx = s.submit_prompt(prompt).await.unwrap();
        assert_eq!(ctx.directives.len(), 1, "{prompt}: still reported to hooks");
        s.end(SessionEndReason::Completed, true).await;
    }
    assert_eq!(
        decision_lines(&root).len(),
        1,
        "{:?}",
        decision_lines(&root)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn look_alike_prompts_capture_nothing_and_create_no_file() {
    let (_d, root) = project();
    let mut s = Session::start(
        hooks(ContextInjectConfig::default()),
        meta(&root, "s1", "a"),
        "m",
    )
    .await
    .unwrap();
    for prompt in [
        "never mind",
        "Never mind, revert that.",
        "I never said that",
        "\"always\" is a keyword",
        "`never` is the bottom type",
        "Does the build always fail on Fridays?",
        "It's always the same stack trace.",
        "We never tested the Windows path.",
        "> always use tabs\nis that quote from the style guide?",
        "```\n# never do this\nrm -rf /\n```",
    ] {
        let ctx = s.submit_prompt(prompt).await.unwrap();
        assert!(
            ctx.directives.is_empty(),
            "{prompt:?} gave {:?}",
            ctx.directives
        );
    }
    assert!(!root.join(".agents").exists());
}

#[tokio::test(flavor = "current_thread")]
async fn later_hooks_see_the_captured_directives() {
    let (_d, root) = project();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let hooks = Hooks::builder()
        .ignore_env()
        .provider_at(
            50,
            ContextInject::new(ContextInjectConfig::default()).unwrap(),
        )
        .hook(
            Hook::<user_prompt_submit::Point>::new("after", move |ctx: &mut UserPromptSubmit| {
                sink.lock().unwrap().extend(ctx.directives.iter().cloned());
                Verdict::Continue
            })
            .order(60),
        )
        .build()
        .unwrap();
    let mut s = Session::start(hooks, meta(&root, "s1", "a"), "m")
        .await
        .unwrap();
    s.submit_prompt("always write the test first; never skip CI")
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        ["always write the test first", "never skip CI"]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_denied_by_an_earlier_guard_records_nothing() {
    let (_d, root) = project();
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(
            Hook::<user_prompt_submit::Point>::new("no_deploys", |ctx: &mut UserPromptSubmit| {
                if ctx.prompt.contains("deploy") {
                    Verdict::deny("deploys are frozen")
                } else {
                    Verdict::Continue
                }
            })
            .order(0),
        )
        .provider_at(
            50,
            ContextInject::new(ContextInjectConfig::default()).unwrap(),
        )
        .build()
        .unwrap();
    let mut s = Session::start(hooks, meta(&root, "s1", "a"), "m")
        .await
        .unwrap();
    let err = s
        .submit_prompt("Always deploy on Fridays")
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::Denied { .. }), "{err}");
    assert!(decision_lines(&root).is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_subagent_gets_its_own_history_and_the_shared_decisions() {
    let (_d, root) = project();
    fs::create_dir_all(root.join(".agents/tester")).unwrap();
    fs::create_dir_all(root.join(".agents/lead")).unwrap();
    fs::write(
        root.join(".agents/tester/history.md"),
        "tester: fixed #12\n",
    )
    .unwrap();
    fs::write(root.join(".agents/lead/history.md"), "lead: planned v2\n").unwrap();
    fs::write(root.join(".agents/decisions.md"), "- always use tabs\n").unwrap();
    let mut s = Session::start(
        hooks(ContextInjectConfig::default()),
        meta(&root, "s1", "lead"),
        "m",
    )
    .await
    .unwrap();
    assert_eq!(s.start_context().len(), 2);
    assert!(s.start_context()[1].contains("lead: planned v2"));

    let sub = s.start_subagent("tester", "run the tests").await.unwrap();
    let ctx = &sub.start.additional_context;
    assert_eq!(ctx.len(), 2, "{ctx:?}");
    assert!(ctx[0].contains("always use tabs"));
    assert!(ctx[1].starts_with("History of tester (.agents/tester/history.md):"));
    assert!(!ctx[1].contains("lead: planned"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_large_history_is_capped_and_says_how_much_was_cut() {
    let (_d, root) = project();
    fs::create_dir_all(root.join(".agents/a")).unwrap();
    let history: String = (0..2000)
        .map(|i| format!("entry {i}: did things\n"))
        .collect();
    fs::write(root.join(".agents/a/history.md"), &history).unwrap();
    let config = ContextInjectConfig {
        files: vec![InjectFile::new(".agents/{agent}/history.md").max_bytes(200, Keep::End)],
        ..Default::default()
    };
    let s = Session::start(hooks(config), meta(&root, "s1", "a"), "m")
        .await
        .unwrap();
    let text = &s.start_context()[0];
    let cut = history.len() - 200;
    assert!(
        text.contains(&format!("[… truncated {cut} bytes]")),
        "{text}"
    );
    assert!(
        text.ends_with("entry 1999: did things"),
        "newest entries kept"
    );
    assert!(!text.contains("entry 0:"));
}

#[test]
fn concurrent_sessions_append_whole_lines() {
    let (_d, root) = project();
    let hooks = hooks(ContextInjectConfig::default());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let hooks = hooks.clone();
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let m = meta(&root, &format!("s{t}"), &format!("agent{t}"));
                    let mut ctx = UserPromptSubmit::new(m, format!("Always check item {t}x{i}."));
                    let out = hooks.dispatch::<user_prompt_submit::Point>(&mut ctx);
                    assert!(!out.is_denied());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let lines = decision_lines(&root);
    assert_eq!(lines.len(), 200);
    for line in &lines {
        let (head, body) = line.split_once("): ").unwrap();
        assert!(head.starts_with("- ") && head.contains(" (agent"), "{line}");
        assert!(body.starts_with("Always check item "), "{line}");
    }
    let text = fs::read_to_string(root.join(".agents/decisions.md")).unwrap();
    assert_eq!(text.matches("# Decisions").count(), 1, "one header");
}
