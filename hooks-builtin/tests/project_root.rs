//! The project root comes from the caller (`Meta::project_dir`), not from the event's `cwd`,
//! which only says where relative paths start; a root that cannot be a project root makes the
//! guards deny what they would judge against it.

use std::path::{Path, PathBuf};

use hooks_core::Verdict;
use hooks_core::context::{Meta, PreToolUse};
use hooks_core::points::pre_tool_use;
use hooks_core::runtime::{Hooks, HooksProvider};
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

fn bash(command: &str) -> Value {
    json!({ "command": command })
}

#[cfg(feature = "command-guard")]
mod command_guard {
    use super::*;
    use hooks_builtin::command_guard::CommandGuard;

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
        // A cwd outside the root: its files are outside the project.
        let (_o, elsewhere) = project();
        let v = dispatch(&h, Some(&root), &elsewhere, "Bash", bash("rm -rf build"));
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
        let Some(home) = hooks_builtin::paths::home_dir() else {
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
