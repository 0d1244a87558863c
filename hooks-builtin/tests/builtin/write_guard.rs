#![cfg(feature = "write-guard")]
//! `write-guard` through a real `Hooks` dispatch, on a temporary project with real symlinks.

use std::path::{Path, PathBuf};

use hookrail_builtin::write_guard::{WriteGuard, WriteGuardConfig};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse, SessionEndReason, ToolCall};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::{Hooks, Session, ToolRun};
use proptest::prelude::*;
use serde_json::json;

use super::pre_tool::{denied, dispatch};

/// A project root with `src/`, `tests/`, `.git/`, plus a directory outside it.
struct Project {
    _root_dir: tempfile::TempDir,
    _outside_dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn project() -> Project {
    let root_dir = tempfile::tempdir().unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root_dir.path()).unwrap();
    let outside = std::fs::canonicalize(outside_dir.path()).unwrap();
    for dir in ["src", "tests", ".git/hooks"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    Project {
        _root_dir: root_dir,
        _outside_dir: outside_dir,
        root,
        outside,
    }
}

fn hooks(config: WriteGuardConfig) -> Hooks {
    let guard = WriteGuard::with_home(config, Some(PathBuf::from("/nonexistent/home"))).unwrap();
    Hooks::builder()
        .ignore_env()
        .provider_at(-100, guard)
        .build()
        .unwrap()
}

fn src_and_tests() -> WriteGuardConfig {
    WriteGuardConfig {
        allow: vec!["src/**".into(), "tests/**".into()],
        ..WriteGuardConfig::default()
    }
}

#[cfg(unix)]
mod symlinks {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlinked_directory_that_leaves_the_root_is_denied() {
        let p = project();
        symlink(&p.outside, p.root.join("src/escape")).unwrap();
        let h = hooks(src_and_tests());
        let v = dispatch(
            &h,
            &p.root,
            "Write",
            json!({"file_path": "src/escape/x.rs"}),
        );
        let r = denied(&v);
        assert!(r.contains("outside the project root"), "{r}");
        assert!(
            r.contains(&p.outside.join("x.rs").display().to_string()),
            "{r}"
        );
    }

    #[test]
    fn symlinked_file_pointing_into_git_is_denied_by_the_deny_rule() {
        let p = project();
        symlink(
            p.root.join(".git/hooks/pre-commit"),
            p.root.join("src/innocent.rs"),
        )
        .unwrap();
        let h = hooks(src_and_tests());
        let v = dispatch(&h, &p.root, "Edit", json!({"file_path": "src/innocent.rs"}));
        let r = denied(&v);
        assert!(r.contains("(resolves to .git/hooks/pre-commit)"), "{r}");
        assert!(r.contains("matches deny rule \"**/.git/**\""), "{r}");
    }

    #[test]
    fn relative_dangling_symlink_is_judged_by_where_the_write_lands() {
        let p = project();
        symlink("../../outside-file", p.root.join("src/dangling")).unwrap();
        let h = hooks(src_and_tests());
        let v = dispatch(&h, &p.root, "Write", json!({"file_path": "src/dangling"}));
        assert!(denied(&v).contains("outside the project root"), "{v}");
    }

    #[test]
    fn dot_dot_after_a_symlink_follows_the_kernel_not_the_text() {
        let p = project();
        std::fs::create_dir(p.outside.join("deep")).unwrap();
        symlink(p.outside.join("deep"), p.root.join("src/link")).unwrap();
        let h = hooks(src_and_tests());
        // Lexically `src/x.rs`; really `<outside>/x.rs`.
        let v = dispatch(
            &h,
            &p.root,
            "Write",
            json!({"file_path": "src/link/../x.rs"}),
        );
        assert!(denied(&v).contains("outside the project root"), "{v}");
    }

    #[test]
    fn symlink_inside_the_root_to_an_allowed_place_is_allowed() {
        let p = project();
        symlink(p.root.join("src"), p.root.join("docs")).unwrap();
        let h = hooks(src_and_tests());
        let v = dispatch(&h, &p.root, "Write", json!({"file_path": "docs/a.rs"}));
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn symlink_loop_is_denied_as_unresolvable() {
        let p = project();
        symlink(p.root.join("src/b"), p.root.join("src/a")).unwrap();
        symlink(p.root.join("src/a"), p.root.join("src/b")).unwrap();
        let h = hooks(WriteGuardConfig::default());
        let v = dispatch(&h, &p.root, "Write", json!({"file_path": "src/a/x"}));
        assert!(denied(&v).contains("cannot be resolved"), "{v}");
    }

    #[test]
    fn project_root_reached_through_a_symlink_still_contains_its_files() {
        let p = project();
        let via = p.outside.join("project-link");
        symlink(&p.root, &via).unwrap();
        let h = hooks(src_and_tests());
        assert_eq!(
            dispatch(&h, &via, "Write", json!({"file_path": "src/a.rs"})),
            Verdict::Continue
        );
        // The absolute path spelled through the link is the same file.
        let abs = via.join("src/b.rs").display().to_string();
        assert_eq!(
            dispatch(&h, &p.root, "Write", json!({ "file_path": abs })),
            Verdict::Continue
        );
        let v = dispatch(&h, &via, "Write", json!({"file_path": "../elsewhere"}));
        assert!(denied(&v).contains("outside the project root"), "{v}");
    }

    #[test]
    fn absolute_allow_glob_through_a_symlinked_directory_matches_the_real_path() {
        let p = project();
        std::fs::create_dir(p.outside.join("scratch")).unwrap();
        let link = p.root.join("scratch-link");
        symlink(p.outside.join("scratch"), &link).unwrap();
        let h = hooks(WriteGuardConfig {
            allow: vec!["src/**".into(), format!("{}/**", link.display())],
            ..WriteGuardConfig::default()
        });
        let real = p.outside.join("scratch/notes.md").display().to_string();
        assert_eq!(
            dispatch(&h, &p.root, "Write", json!({ "file_path": real })),
            Verdict::Continue
        );
        assert_eq!(
            dispatch(
                &h,
                &p.root,
                "Write",
                json!({"file_path": "scratch-link/n.md"})
            ),
            Verdict::Continue
        );
    }
}

#[test]
fn reasons_name_the_rule_that_refused() {
    let p = project();
    let h = hooks(src_and_tests());
    let v = dispatch(&h, &p.root, "Write", json!({"file_path": "docs/x.md"}));
    assert_eq!(
        denied(&v),
        "write-guard: \"docs/x.md\" matches no allow rule (allowed: src/**, tests/**)"
    );
    let v = dispatch(&h, &p.root, "Write", json!({"file_path": ".git/config"}));
    assert_eq!(
        denied(&v),
        "write-guard: \".git/config\" matches deny rule \"**/.git/**\""
    );
    let v = dispatch(&h, &p.root, "Write", json!({"file_path": "../x"}));
    assert_eq!(
        denied(&v),
        format!(
            "write-guard: \"../x\" resolves to {}, outside the project root {}",
            p.root.parent().unwrap().join("x").display(),
            p.root.display()
        )
    );
}

#[test]
fn deny_is_reported_as_decided_by_the_builtin_name() {
    let p = project();
    let h = hooks(src_and_tests());
    let mut ctx = PreToolUse::new(
        Meta::new("s1").with_cwd(&p.root),
        "Write",
        json!({"file_path": "/etc/passwd"}),
    );
    let out = h.dispatch::<pre_tool_use::Point>(&mut ctx);
    assert!(out.is_denied());
    assert_eq!(out.decided_by.as_deref(), Some("builtin.write_guard"));
    assert!(out.failures.is_empty());
}

#[test]
fn a_rewritten_input_is_the_one_checked() {
    let p = project();
    let h = hooks(src_and_tests());
    let mut ctx = PreToolUse::new(
        Meta::new("s1").with_cwd(&p.root),
        "Write",
        json!({"file_path": "src/ok.rs"}),
    );
    ctx.tool_input.set(json!({"file_path": "../evil.rs"}));
    assert!(h.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
}

#[test]
fn odd_tool_input_shapes_are_denied_not_passed() {
    let p = project();
    let h = hooks(WriteGuardConfig::default());
    for input in [
        json!(null),
        json!("src/a.rs"),
        json!(["src/a.rs"]),
        json!({"file_path": null}),
        json!({"file_path": ""}),
        json!({"file_path": 1}),
        json!({"file_path": {"$ref": "x"}}),
        json!({"paths": [null]}),
        json!({"paths": []}),
        json!({"patch": "*** Begin Patch\n*** End Patch"}),
    ] {
        let v = dispatch(&h, &p.root, "Write", input.clone());
        assert!(v.is_deny(), "{input} was not denied: {v:?}");
    }
}

#[test]
fn tools_outside_the_write_list_pass_and_the_list_is_configurable() {
    let p = project();
    let h = hooks(WriteGuardConfig {
        write_tools: vec!["mcp__fs__write".into()],
        ..src_and_tests()
    });
    assert_eq!(
        dispatch(&h, &p.root, "Write", json!({"file_path": "/etc/passwd"})),
        Verdict::Continue
    );
    assert!(
        dispatch(
            &h,
            &p.root,
            "mcp__fs__write",
            json!({"path": "/etc/passwd"})
        )
        .is_deny()
    );
}

#[tokio::test]
async fn session_does_not_run_a_denied_write() {
    let p = project();
    let h = hooks(src_and_tests());
    let mut session = Session::start(h, Meta::new("s1").with_cwd(&p.root), "m")
        .await
        .unwrap();
    let target = p.root.join("README.md");
    let ran = session
        .tool_call(
            ToolCall::new("toolu_1", "Write", json!({"file_path": "README.md"})),
            async |_| {
                std::fs::write(&target, "x")?;
                Ok(json!("written"))
            },
        )
        .await
        .unwrap();
    match ran {
        ToolRun::Denied {
            by,
            reason,
            failure,
            ..
        } => {
            assert_eq!(by.as_deref(), Some("builtin.write_guard"));
            assert!(reason.contains("matches no allow rule"), "{reason}");
            assert!(!failure);
        }
        ToolRun::Ran(_) => panic!("the write ran"),
    }
    assert!(!p.root.join("README.md").exists());
    let ran = session
        .tool_call(
            ToolCall::new("toolu_2", "Write", json!({"file_path": "src/lib.rs"})),
            async |_| Ok(json!("written")),
        )
        .await
        .unwrap();
    assert!(matches!(ran, ToolRun::Ran(_)));
    let end = session.end(SessionEndReason::Completed, true).await;
    assert_eq!(end.tool_calls, 1);
}

proptest! {
    /// Whatever the path text, the guard answers (no panic), and a deny reason is one line
    /// that starts with the policy's name.
    #[test]
    fn any_path_text_gets_a_one_line_answer(path in "\\PC{0,40}|[./a~\\\\\n]{0,12}") {
        let h = hooks(src_and_tests());
        let root = Path::new("/nonexistent/hooks-builtin-proptest");
        let v = dispatch(&h, root, "Write", json!({ "file_path": path }));
        if let Verdict::Deny(r) = &v {
            prop_assert!(r.starts_with("write-guard: "));
            prop_assert!(!r.contains('\n'));
        }
    }

    /// An allowed path resolves inside `src/` or `tests/`: no spelling of `..`, `.` and names
    /// gets a write out of them.
    #[test]
    fn allowed_paths_stay_under_the_allowed_directories(
        parts in proptest::collection::vec(prop_oneof!["..", ".", "src", "tests", "a", ".git"], 1..8)
    ) {
        let h = hooks(src_and_tests());
        let root = Path::new("/nonexistent/hooks-builtin-proptest");
        let raw = parts.join("/");
        let v = dispatch(&h, root, "Write", json!({ "file_path": raw }));
        if v == Verdict::Continue {
            let abs = hookrail_builtin::paths::resolve(&raw, root, None).unwrap();
            let rel = abs.strip_prefix(root).unwrap();
            prop_assert!(rel.starts_with("src") || rel.starts_with("tests"), "{raw} -> {rel:?}");
            prop_assert!(rel.components().count() > 1, "{raw} -> {rel:?}");
            prop_assert!(!rel.components().any(|c| c.as_os_str() == ".git"), "{raw}");
        }
    }
}
