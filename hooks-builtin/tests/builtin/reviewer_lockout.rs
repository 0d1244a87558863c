#![cfg(feature = "reviewer-lockout")]
//! `reviewer-lockout` through a real `Hooks` dispatch and a `Session` with subagents.

use std::path::{Path, PathBuf};

use hookrail_builtin::reviewer_lockout::{
    Rejection, ReviewerLockout, ReviewerLockoutConfig, ShellMentions,
};
use hookrail_core::Verdict;
use hookrail_core::context::{
    Meta, PostToolUse, PreToolUse, SessionEndReason, SubagentStatus, ToolCall,
};
use hookrail_core::points::{post_tool_use, pre_tool_use};
use hookrail_core::runtime::{Hooks, Session, ToolRun};
use serde_json::{Value, json};

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/auth.rs"), "fn main() {}").unwrap();
    (dir, root)
}

fn hooks(lockout: &ReviewerLockout) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(-90, lockout.clone())
        .build()
        .unwrap()
}

fn pre(hooks: &Hooks, root: &Path, agent: &str, tool: &str, input: Value) -> Verdict {
    let meta = Meta::new("s1").with_cwd(root).with_agent(agent);
    let mut ctx = PreToolUse::new(meta, tool, input);
    hooks.dispatch::<pre_tool_use::Point>(&mut ctx).value
}

fn post(hooks: &Hooks, root: &Path, agent: &str, input: Value) {
    let meta = Meta::new("s1").with_cwd(root).with_agent(agent);
    let mut ctx = PostToolUse::new(meta, "Edit", input, json!("ok"), 3);
    let out = hooks.dispatch::<post_tool_use::Point>(&mut ctx);
    assert!(out.failures.is_empty());
}

async fn write(session: &mut Session, path: &str) -> ToolRun {
    session
        .tool_call(
            ToolCall::new(
                format!("toolu_write_{path}"),
                "Write",
                json!({ "file_path": path, "content": "x" }),
            ),
            async |_| Ok(json!("written")),
        )
        .await
        .unwrap()
}

fn denied_reason(run: &ToolRun) -> &str {
    match run {
        ToolRun::Denied { reason, .. } => reason,
        ToolRun::Ran(_) => panic!("the write ran"),
    }
}

#[tokio::test]
async fn reviewer_subagent_verdict_locks_the_author_until_another_agent_revises() {
    let (_dir, root) = project();
    let lockout = ReviewerLockout::default();
    let meta = Meta::new("s1").with_cwd(&root).with_agent("lead");
    let mut lead = Session::start(hooks(&lockout), meta, "m").await.unwrap();

    let mut coder = lead.start_subagent("coder", "write auth").await.unwrap();
    assert!(matches!(
        write(&mut coder.session, "src/auth.rs").await,
        ToolRun::Ran(_)
    ));
    lead.finish_subagent(coder, SubagentStatus::Completed, None)
        .await;
    assert_eq!(
        lockout.author_of(&root, "src/auth.rs").as_deref(),
        Some("coder")
    );

    let reviewer = lead
        .start_subagent("reviewer", "review auth")
        .await
        .unwrap();
    lead.finish_subagent(
        reviewer,
        SubagentStatus::Completed,
        Some("Looked at it.\nREJECTED: src/auth.rs - token compared with ==".into()),
    )
    .await;

    let mut coder = lead.start_subagent("coder", "fix auth").await.unwrap();
    let run = write(&mut coder.session, "src/auth.rs").await;
    assert_eq!(
        denied_reason(&run),
        "reviewer-lockout: \"src/auth.rs\" was rejected by reviewer \"reviewer\" (token \
         compared with ==); \"coder\" wrote it and may not write it again until another agent \
         revises it"
    );
    // The coder may still work on other files.
    assert!(matches!(
        write(&mut coder.session, "src/other.rs").await,
        ToolRun::Ran(_)
    ));
    lead.finish_subagent(coder, SubagentStatus::Completed, None)
        .await;

    let mut fixer = lead.start_subagent("fixer", "fix auth").await.unwrap();
    assert!(matches!(
        write(&mut fixer.session, "src/auth.rs").await,
        ToolRun::Ran(_)
    ));
    lead.finish_subagent(fixer, SubagentStatus::Completed, None)
        .await;
    assert!(lockout.locks().is_empty());

    let mut coder = lead.start_subagent("coder", "again").await.unwrap();
    assert!(matches!(
        write(&mut coder.session, "src/auth.rs").await,
        ToolRun::Ran(_)
    ));
    lead.finish_subagent(coder, SubagentStatus::Completed, None)
        .await;
    lead.end(SessionEndReason::Completed, true).await;
}

#[tokio::test]
async fn review_rejected_notification_locks_out_the_last_writer() {
    let (_dir, root) = project();
    let lockout = ReviewerLockout::default();
    let h = hooks(&lockout);
    let coder_meta = Meta::new("s1").with_cwd(&root).with_agent("coder");
    let mut coder = Session::start(h.clone(), coder_meta, "m").await.unwrap();
    assert!(matches!(
        write(&mut coder, "src/auth.rs").await,
        ToolRun::Ran(_)
    ));

    // A separate reviewer session on the same project (another session id).
    let rev_meta = Meta::new("s2").with_cwd(&root).with_agent("qa");
    let mut reviewer = Session::start(h, rev_meta, "m").await.unwrap();
    reviewer
        .notify(
            "review_rejected",
            r#"{"artifact": "src/auth.rs", "reason": "missing tests"}"#,
        )
        .await;

    let run = write(&mut coder, "./src/../src/auth.rs").await;
    assert!(
        denied_reason(&run).contains("rejected by reviewer \"qa\" (missing tests)"),
        "{run:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_locked_file_is_the_locked_file() {
    let (_dir, root) = project();
    std::os::unix::fs::symlink(root.join("src/auth.rs"), root.join("alias.rs")).unwrap();
    let lockout = ReviewerLockout::default();
    let h = hooks(&lockout);
    lockout
        .reject_in(&root, Rejection::new("src/auth.rs").author("coder"))
        .unwrap();
    let v = pre(&h, &root, "coder", "Edit", json!({"file_path": "alias.rs"}));
    assert!(v.is_deny(), "{v:?}");
    // A revision through the link lifts the lock on the real file.
    post(&h, &root, "fixer", json!({"file_path": "alias.rs"}));
    assert!(lockout.locks().is_empty());
}

#[test]
fn patch_tools_are_checked_per_file() {
    let (_dir, root) = project();
    let lockout = ReviewerLockout::default();
    let h = hooks(&lockout);
    lockout
        .reject(root.join("src/auth.rs"), "coder", "rev")
        .unwrap();
    let patch =
        "*** Begin Patch\n*** Update File: src/ok.rs\n*** Update File: src/auth.rs\n*** End Patch";
    let v = pre(&h, &root, "coder", "apply_patch", json!({ "input": patch }));
    assert!(v.is_deny(), "{v:?}");
}

#[test]
fn shell_mentions_ask_by_default_and_can_deny() {
    let (_dir, root) = project();
    let lockout = ReviewerLockout::default();
    let h = hooks(&lockout);
    lockout
        .reject(root.join("src/auth.rs"), "coder", "rev")
        .unwrap();
    let v = pre(
        &h,
        &root,
        "coder",
        "Bash",
        json!({"command": "sed -i s/a/b/ src/auth.rs"}),
    );
    assert!(matches!(v, Verdict::Ask(_)), "{v:?}");
    let strict = ReviewerLockout::new(ReviewerLockoutConfig {
        shell_mentions: ShellMentions::Deny,
        ..ReviewerLockoutConfig::default()
    })
    .unwrap();
    strict
        .reject(root.join("src/auth.rs"), "coder", "rev")
        .unwrap();
    let v = pre(
        &hooks(&strict),
        &root,
        "coder",
        "Bash",
        json!({"command": "echo >> auth.rs"}),
    );
    assert!(v.is_deny(), "{v:?}");
}

#[test]
fn clones_used_from_many_threads_share_one_bounded_state() {
    let (_dir, root) = project();
    let lockout = ReviewerLockout::new(ReviewerLockoutConfig {
        max_locks: 16,
        ..ReviewerLockoutConfig::default()
    })
    .unwrap();
    let h = hooks(&lockout);
    std::thread::scope(|s| {
        for t in 0..4 {
            let lockout = lockout.clone();
            let h = h.clone();
            let root = root.clone();
            s.spawn(move || {
                for i in 0..100 {
                    let artifact = root.join(format!("f{t}-{i}"));
                    lockout.reject(&artifact, "coder", "rev").unwrap();
                    let path = artifact.display().to_string();
                    let _ = pre(&h, &root, "coder", "Write", json!({ "file_path": path }));
                }
            });
        }
    });
    assert_eq!(lockout.locks().len(), 16);
}
