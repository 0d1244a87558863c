//! The project root comes from the caller (`Meta::project_dir`), not from the event's `cwd`,
//! which only says where relative paths start; a root that cannot be a project root makes the
//! guards deny what they would judge against it.
#![cfg(any(
    feature = "command-guard",
    feature = "write-guard",
    feature = "secrets-guard"
))]

use std::path::{Path, PathBuf};

use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::{Hooks, HooksProvider};
use serde_json::{Value, json};

/// A project root that exists (resolved, so a symlinked temp dir compares equal).
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    (dir, root)
}

fn hooks(provider: impl HooksProvider + 'static) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(-100, provider)
        .build()
        .unwrap()
}

/// The verdict on a call of `tool` with `input`, from an event that says `cwd`, in the project
/// rooted at `root` (`None`: the caller knows no root, `cwd` is the root).
fn dispatch(hooks: &Hooks, root: Option<&Path>, cwd: &Path, tool: &str, input: Value) -> Verdict {
    let mut meta = Meta::new("s1").with_cwd(cwd);
    if let Some(root) = root {
        meta = meta.with_project_dir(root);
    }
    let mut ctx = PreToolUse::new(meta, tool, input);
    hooks
        .dispatch::<pre_tool_use::Point>(&mut ctx)
        .verdict()
        .clone()
}

#[cfg(any(feature = "command-guard", feature = "secrets-guard"))]
fn bash(command: &str) -> Value {
    json!({ "command": command })
}

#[cfg(feature = "command-guard")]
mod command_guard {
    use super::*;
    use hookrail_builtin::command_guard::CommandGuard;

    fn rule(v: &Verdict) -> &str {
        v.reason()
            .and_then(|r| r.strip_prefix("command-guard rule "))
            .and_then(|r| r.split(':').next())
            .unwrap_or("")
    }

    #[test]
    fn a_payload_cwd_of_usr_does_not_make_usr_the_project() {
        let (_d, root) = project();
        let h = hooks(CommandGuard::default());
        let v = dispatch(
            &h,
            Some(&root),
            Path::new("/usr"),
            "Bash",
            bash("rm -rf /usr/lib"),
        );
        assert!(v.is_deny(), "{v:?}");
        assert_eq!(rule(&v), "rm-system", "{v:?}");
        // Relative to the event's cwd: `lib` there is /usr/lib.
        let v = dispatch(
            &h,
            Some(&root),
            Path::new("/usr"),
            "Bash",
            bash("rm -rf lib"),
        );
        assert_eq!(rule(&v), "rm-system", "{v:?}");
    }

    /// `/etc/ssh` is a child of a system directory (`etc`), so it is `rm-system`: denied, not
    /// merely asked about as a path outside the project would be.
    #[test]
    fn a_payload_cwd_of_etc_does_not_make_etc_the_project() {
        let (_d, root) = project();
        let h = hooks(CommandGuard::default());
        let v = dispatch(
            &h,
            Some(&root),
            Path::new("/etc"),
            "Bash",
            bash("rm -rf ssh"),
        );
        assert!(v.is_deny(), "{v:?}");
        assert_eq!(rule(&v), "rm-system", "{v:?}");
        assert!(v.reason().unwrap().contains("/etc/ssh"), "{v:?}");
    }

    #[test]
    fn relative_deletes_from_a_subdirectory_of_the_root_stay_the_projects() {
        let (_d, root) = project();
        let h = hooks(CommandGuard::default());
        let sub = root.join("sub");
        let v = dispatch(
            &h,
            Some(&root),
            &sub,
            "Bash",
            bash("rm -rf build ../target"),
        );
        assert_eq!(v, Verdict::Continue);
        // `..` from sub is the root itself.
        let v = dispatch(&h, Some(&root), &sub, "Bash", bash("rm -rf .."));
        assert_eq!(rule(&v), "rm-project", "{v:?}");
        // A cwd outside the root (and outside the temporary directories, which are scratch
        // space): its files are outside the project.
        let elsewhere = Path::new("/srv/hooks-test-elsewhere/app");
        let v = dispatch(&h, Some(&root), elsewhere, "Bash", bash("rm -rf build"));
        assert!(matches!(v, Verdict::Ask(_)), "{v:?}");
        assert_eq!(rule(&v), "rm-outside-project", "{v:?}");
    }

    #[test]
    fn a_refused_root_denies_deletes_it_would_judge_and_names_the_root() {
        let h = hooks(CommandGuard::default());
        for (root, cwd) in [("/usr", "/usr/src/app"), ("/", "/srv/app/x")] {
            let v = dispatch(
                &h,
                Some(Path::new(root)),
                Path::new(cwd),
                "Bash",
                bash("rm -rf build"),
            );
            assert!(v.is_deny(), "{root}: {v:?}");
            let reason = v.reason().unwrap();
            assert_eq!(rule(&v), "project-root", "{reason}");
            assert!(reason.contains("cannot decide"), "{reason}");
            assert!(
                reason.contains(&format!("`{root}` cannot be a project root")),
                "{reason}"
            );
        }
        // Without a project dir, an event cwd of / is the root, and is refused the same way.
        let v = dispatch(&h, None, Path::new("/"), "Bash", bash("rm -rf srv/app/x"));
        assert_eq!(rule(&v), "project-root", "{v:?}");
        // Commands that do not depend on the root are judged as usual.
        let v = dispatch(
            &h,
            Some(Path::new("/usr")),
            Path::new("/usr"),
            "Bash",
            bash("ls -la"),
        );
        assert_eq!(v, Verdict::Continue);
        let v = dispatch(
            &h,
            Some(Path::new("/")),
            Path::new("/"),
            "Bash",
            bash("rm -rf /"),
        );
        assert_eq!(rule(&v), "rm-root", "{v:?}");
    }

    #[test]
    fn the_home_directory_as_root_cannot_decide() {
        let Some(home) = hookrail_builtin::paths::home_dir() else {
            return;
        };
        let h = hooks(CommandGuard::default());
        let cwd = home.join("some-project-that-need-not-exist");
        let v = dispatch(&h, Some(&home), &cwd, "Bash", bash("rm -rf build"));
        assert_eq!(rule(&v), "project-root", "{v:?}");
    }

    #[test]
    fn check_keeps_taking_cwd_as_the_root() {
        let guard = CommandGuard::default();
        let (_d, root) = project();
        assert_eq!(guard.check("rm -rf build", &root), Verdict::Continue);
        assert_eq!(rule(&guard.check("rm -rf .", &root)), "rm-project");
        assert_eq!(
            guard.check_in("rm -rf .", &root, &root.join("sub")),
            Verdict::Continue
        );
    }
}

#[cfg(feature = "write-guard")]
mod write_guard {
    use super::*;
    use hookrail_builtin::write_guard::{WriteGuard, WriteGuardConfig};

    fn guard() -> Hooks {
        hooks(WriteGuard::new(WriteGuardConfig::default()).unwrap())
    }

    fn write(path: &str) -> Value {
        json!({ "file_path": path, "content": "x" })
    }

    #[test]
    fn a_relative_path_from_a_cwd_outside_the_root_is_outside_the_project() {
        let (_d, root) = project();
        let (_o, elsewhere) = project();
        let v = dispatch(&guard(), Some(&root), &elsewhere, "Write", write("x.txt"));
        assert!(v.is_deny(), "{v:?}");
        let reason = v.reason().unwrap();
        assert!(reason.contains("outside the project root"), "{reason}");
        assert!(
            reason.contains(&elsewhere.join("x.txt").display().to_string()),
            "{reason}"
        );
        // The event's cwd cannot make itself the project.
        let v = dispatch(
            &guard(),
            Some(&root),
            Path::new("/etc"),
            "Write",
            write("hosts"),
        );
        assert!(v.is_deny(), "{v:?}");
    }

    #[test]
    fn a_relative_path_from_a_subdirectory_of_the_root_is_written_there() {
        let (_d, root) = project();
        let sub = root.join("sub");
        let v = dispatch(&guard(), Some(&root), &sub, "Write", write("x.txt"));
        assert_eq!(v, Verdict::Continue);
        // Judged against the root, not the cwd: `.git` of the root is still denied from sub.
        let v = dispatch(
            &guard(),
            Some(&root),
            &sub,
            "Write",
            write("../.git/config"),
        );
        assert!(v.reason().unwrap().contains("deny rule"), "{v:?}");
        // Relative to the cwd (a sibling of sub), inside the root.
        std::fs::create_dir(root.join("a")).unwrap();
        let v = dispatch(
            &guard(),
            Some(&root),
            &root.join("a"),
            "Write",
            write("../sub/y.txt"),
        );
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn a_refused_root_cannot_decide() {
        for root in ["/", "/usr", "/etc"] {
            let v = dispatch(
                &guard(),
                Some(Path::new(root)),
                Path::new(root),
                "Write",
                write("x"),
            );
            let reason = v.reason().unwrap_or_default();
            assert!(v.is_deny(), "{root}: {v:?}");
            assert!(reason.contains("cannot decide"), "{reason}");
            assert!(
                reason.contains(&format!("`{root}` cannot be a project root")),
                "{reason}"
            );
        }
        // Without a project dir the event's cwd is the root: a cwd of /usr is refused too.
        let v = dispatch(&guard(), None, Path::new("/usr"), "Write", write("lib/x"));
        assert!(v.reason().unwrap().contains("cannot decide"), "{v:?}");
    }
}

#[cfg(feature = "secrets-guard")]
mod secrets_guard {
    use super::*;
    use hookrail_builtin::secrets_guard::SecretsGuard;

    #[test]
    fn relative_paths_start_at_cwd_and_a_refused_root_cannot_decide() {
        let (_d, root) = project();
        let h = hooks(SecretsGuard::default());
        let sub = root.join("sub");
        let v = dispatch(&h, Some(&root), &sub, "Read", json!({"file_path": ".env"}));
        assert!(v.is_deny(), "{v:?}");
        let v = dispatch(
            &h,
            Some(&root),
            &sub,
            "Read",
            json!({"file_path": "main.rs"}),
        );
        assert_eq!(v, Verdict::Continue);
        for bad in ["/", "/usr"] {
            let v = dispatch(&h, Some(Path::new(bad)), &sub, "Bash", bash("ls"));
            let reason = v.reason().unwrap_or_default();
            assert!(reason.contains("cannot decide"), "{bad}: {v:?}");
            assert!(
                reason.contains(&format!("`{bad}` cannot be a project root")),
                "{reason}"
            );
        }
    }
}

#[cfg(all(
    feature = "command-guard",
    feature = "secrets-guard",
    feature = "write-guard"
))]
mod default_guards {
    use super::*;
    use hookrail_builtin::{BuiltinConfig, Builtins};

    #[test]
    fn the_default_guards_deny_rm_rf_root_reading_env_and_writing_git_config() {
        let (_d, root) = project();
        let builtins = Builtins::new(BuiltinConfig::default_guards()).unwrap();
        let h = builtins.install(Hooks::builder().ignore_env()).unwrap();
        let deny = |tool: &str, input: Value| {
            let v = dispatch(&h, Some(&root), &root, tool, input.clone());
            assert!(v.is_deny(), "{tool} {input}: {v:?}");
            v.reason().unwrap().to_owned()
        };
        assert!(deny("Bash", bash("rm -rf /")).starts_with("command-guard rule rm-root"));
        assert!(deny("Bash", bash("cat .env")).starts_with("secrets-guard"));
        assert!(deny("Read", json!({"file_path": ".env"})).starts_with("secrets-guard"));
        let r = deny("Write", json!({"file_path": ".git/config", "content": "x"}));
        assert!(r.starts_with("write-guard"), "{r}");
        let r = deny(
            "Edit",
            json!({"file_path": root.join(".git/config"), "old_string": "a", "new_string": "b"}),
        );
        assert!(r.starts_with("write-guard"), "{r}");
        // Ordinary work goes through.
        let v = dispatch(
            &h,
            Some(&root),
            &root,
            "Bash",
            bash("cargo test && rm -rf target"),
        );
        assert_eq!(v, Verdict::Continue);
        let v = dispatch(
            &h,
            Some(&root),
            &root,
            "Write",
            json!({"file_path": "src/x.rs", "content": ""}),
        );
        assert_eq!(v, Verdict::Continue);
        // None of them keeps state.
        assert!(builtins.memory_only_state().is_empty());
    }
}

#[cfg(all(
    feature = "rate-limit",
    feature = "budget",
    feature = "reviewer-lockout",
    feature = "resilience",
    feature = "task-tracker",
    feature = "audit",
    feature = "command-guard"
))]
mod memory_only_state {
    use hookrail_builtin::{BuiltinConfig, Builtins};

    #[test]
    fn names_exactly_the_installed_policies_whose_state_is_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let every: BuiltinConfig = serde_json::from_value(serde_json::json!({
            "command_guard": {},
            "rate_limit": {},
            "budget": {},
            "reviewer_lockout": {},
            "resilience": {},
            "task_tracker": {},
            "audit": { "path": dir.path().join("audit.jsonl") },
        }))
        .unwrap();
        let mut names = Builtins::new(every).unwrap().memory_only_state();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "budget",
                "rate_limit",
                "resilience",
                "reviewer_lockout",
                "task_tracker"
            ]
        );
        let some: BuiltinConfig =
            serde_json::from_value(serde_json::json!({ "budget": {}, "command_guard": {} }))
                .unwrap();
        assert_eq!(Builtins::new(some).unwrap().memory_only_state(), ["budget"]);
        assert!(Builtins::default().memory_only_state().is_empty());
    }
}
