//! `write-guard`: file writes and edits are allowed only under configured globs.
//!
//! Hooks `pre_tool_use`. For a call of a write tool (`write_tools`, default
//! [`WRITE_TOOLS`]: `Write`, `Edit`, `apply_patch`, …) every path the
//! input names ([`paths_in`]: `file_path`, `path`, `notebook_path`,
//! `paths`, patch headers) is resolved the way the OS will see it
//! ([`paths::resolve`]: `~`, `..`, symlinks followed) against the project
//! root `ctx.meta.cwd` (itself resolved), and then:
//!
//! 1. a path that matches a `deny` glob is denied (deny wins over allow);
//! 2. a path inside the root is allowed when it matches an `allow` glob;
//! 3. a path outside the root is allowed only when it matches an *absolute* `allow` glob;
//! 4. anything else is denied.
//!
//! Other tools are not looked at (no opinion: [`Verdict::Continue`]); a write the guard accepts
//! also gets no opinion, so a later guard can still refuse it.
//!
//! # Globs
//!
//! [globset] syntax with `*` and `?` not crossing `/` (`src/*.rs` is not `src/a/b.rs`; use
//! `src/**/*.rs`), `**` any number of directories, `{a,b}` alternatives, `[ab]` classes.
//! A relative glob is matched against the path relative to the project root; a glob that
//! starts with `/` or `~/` is absolute and matched against the resolved absolute path (its
//! literal leading directories are resolved too, so `/tmp/**` also works where `/tmp` is a
//! symlink). Relative globs may not contain `..`: use an absolute glob for a place outside the
//! root. `deny` globs match case-insensitively (on a case-insensitive file system `.GIT/config`
//! is `.git/config`); `allow` globs match case-sensitively. For a path outside the root, a
//! relative `deny` glob is matched against its absolute path without the leading `/`, so
//! `**/.git/**` protects every repository, inside the root or not.
//!
//! # Closed by default
//!
//! Denied, with a reason that names the rule: a path that cannot be resolved (a symlink loop,
//! `~user/…`, no home directory for `~`), an empty path or one with a NUL byte, the project root
//! itself, a path field that is not a string (`"file_path": ["a"]`), a write tool call that
//! names no path at all (unless `allow_missing_path`), a relative path when the working
//! directory is not absolute, and every call when the project root cannot be one
//! ([`check_project_root`](crate::check_project_root): not absolute, `/`, the home directory
//! or a system directory): "cannot decide", naming the root.
//!
//! # What it does not catch
//!
//! Writes made through shell commands (`echo x > notes.txt` through `Bash`). `command-guard`
//! judges the ones that land in system files, git hooks and config and shell startup files
//! (`system-file-write`, `git-hook-write`, `shell-startup-write`), not every path this guard's
//! globs would refuse; keep shell tools away from agents that must stay inside the root. A path
//! that changes between the check and the write (a symlink swapped in by another process) is a
//! race no pre-tool check can close. Hard links are not symlinks and are not followed.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::write_guard::{WriteGuard, WriteGuardConfig};
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::Hooks;
//! use serde_json::json;
//!
//! let guard = WriteGuard::new(WriteGuardConfig {
//!     allow: vec!["src/**".into(), "tests/**".into()],
//!     ..WriteGuardConfig::default()
//! })?;
//! let hooks = Hooks::builder().ignore_env().provider_at(-100, guard).build()?;
//!
//! let meta = Meta::new("s1").with_cwd("/nonexistent/project");
//! let mut ctx = PreToolUse::new(meta.clone(), "Write", json!({"file_path": "src/../.env"}));
//! let out = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
//! assert!(out.is_denied());
//! assert!(out.verdict().reason().unwrap().contains("matches no allow rule"));
//!
//! let mut ctx = PreToolUse::new(meta, "Edit", json!({"file_path": "src/lib.rs"}));
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use globset::Candidate;
use hookrail_core::context::PreToolUse;
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConfigError;
use crate::globs::{PathGlobs, strip_root};
use crate::paths::{self, resolve};
use crate::shown::{one_line, show};
use crate::tools::{WRITE_TOOLS, malformed_path_field, owned, paths_in};

/// The policy's name in config files and [`ConfigError`]s.
const POLICY: &str = "write_guard";

/// Settings of [`WriteGuard`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct WriteGuardConfig {
    /// Tools whose calls are checked. Default: [`WRITE_TOOLS`].
    pub write_tools: Vec<String>,
    /// Globs a written path must match. Default: `["**"]` (anything inside the project root).
    pub allow: Vec<String>,
    /// Globs that refuse a write even when an `allow` glob matches. Default:
    /// `["**/.git", "**/.git/**"]` (git's own files, where a write can plant a hook script).
    pub deny: Vec<String>,
    /// Let a write tool call that names no path through (the tool will decide). Default:
    /// `false` (denied).
    pub allow_missing_path: bool,
}

impl Default for WriteGuardConfig {
    fn default() -> Self {
        WriteGuardConfig {
            write_tools: owned(WRITE_TOOLS),
            allow: vec!["**".to_owned()],
            deny: vec!["**/.git".to_owned(), "**/.git/**".to_owned()],
            allow_missing_path: false,
        }
    }
}

/// The `write-guard` policy: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct WriteGuard {
    write_tools: Vec<String>,
    allow: Rules,
    deny: Rules,
    allow_missing_path: bool,
    home: Option<PathBuf>,
}

impl WriteGuard {
    /// Builds the guard, compiling its globs. `~` in globs and paths is the current user's
    /// home directory ([`paths::home_dir`]).
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the first bad glob (`allow[2]`): a syntax error, an empty
    /// glob, `..` in a relative glob, or a `~` that cannot be expanded.
    pub fn new(config: WriteGuardConfig) -> Result<Self, ConfigError> {
        Self::with_home(config, paths::home_dir())
    }

    /// Like [`new`](Self::new), with `home` as the directory `~` expands to (`None`: `~` cannot
    /// be expanded, and paths and globs that use it are refused).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn with_home(config: WriteGuardConfig, home: Option<PathBuf>) -> Result<Self, ConfigError> {
        let allow = Rules::compile("allow", &config.allow, false, home.as_deref())?;
        let deny = Rules::compile("deny", &config.deny, true, home.as_deref())?;
        Ok(WriteGuard {
            write_tools: config.write_tools,
            allow,
            deny,
            allow_missing_path: config.allow_missing_path,
            home,
        })
    }

    /// The verdict on a call of `tool_name` with `input`, for a project rooted at `cwd` that
    /// is also where relative paths start: [`check_in`](Self::check_in) with both set to `cwd`.
    pub fn check(&self, tool_name: &str, input: &Value, cwd: &Path) -> Verdict {
        self.check_in(tool_name, input, cwd, cwd)
    }

    /// The verdict on a call of `tool_name` with `input` made in `cwd`, for the project rooted
    /// at `root`: [`Verdict::Continue`] when the guard has no objection, else
    /// [`Verdict::Deny`] with the rule that refused it. Relative paths start at `cwd`; the
    /// rules judge the result against `root`.
    ///
    /// ```
    /// use std::path::Path;
    /// use hookrail_builtin::write_guard::{WriteGuard, WriteGuardConfig};
    /// use serde_json::json;
    ///
    /// let guard = WriteGuard::new(WriteGuardConfig::default())?;
    /// let root = Path::new("/nonexistent/project");
    /// let write = |path: &str, cwd: &Path| guard.check_in("Write", &json!({"file_path": path}), root, cwd);
    /// assert!(!write("x.txt", &root.join("src")).is_deny());
    /// assert!(write("x.txt", Path::new("/nonexistent/elsewhere")).is_deny());
    /// # Ok::<(), hookrail_builtin::ConfigError>(())
    /// ```
    pub fn check_in(&self, tool_name: &str, input: &Value, root: &Path, cwd: &Path) -> Verdict {
        if !self.write_tools.iter().any(|t| t == tool_name) {
            return Verdict::Continue;
        }
        match self.check_write(tool_name, input, root, cwd) {
            Ok(()) => Verdict::Continue,
            Err(reason) => {
                tracing::debug!(policy = POLICY, tool = tool_name, %reason, "write denied");
                Verdict::deny(reason)
            }
        }
    }

    fn check_write(
        &self,
        tool_name: &str,
        input: &Value,
        root: &Path,
        cwd: &Path,
    ) -> Result<(), String> {
        if let Some(field) = malformed_path_field(input) {
            return Err(format!(
                "write-guard: {tool_name} input field `{field}` is not a string (or list of \
                 strings); cannot tell which file it writes"
            ));
        }
        let raws = paths_in(input);
        if raws.is_empty() {
            if self.allow_missing_path {
                return Ok(());
            }
            return Err(format!(
                "write-guard: {tool_name} call names no file path (no `file_path`, `path`, \
                 `notebook_path`, `paths` or patch header); cannot tell which file it writes"
            ));
        }
        if let Err(e) = paths::check_project_root(root, self.home.as_deref()) {
            return Err(format!(
                "write-guard: cannot decide: {}",
                one_line(&e.to_string())
            ));
        }
        let root = resolve(".", root, self.home.as_deref()).map_err(|e| {
            format!(
                "write-guard: the project root cannot be resolved ({}); cannot decide",
                one_line(&e.to_string())
            )
        })?;
        // Where relative paths start; `None` when it is not an absolute, resolvable directory.
        let base = cwd
            .is_absolute()
            .then(|| resolve(".", cwd, self.home.as_deref()).ok())
            .flatten();
        raws.into_iter().try_for_each(|raw| {
            let relative = !(Path::new(raw).is_absolute() || raw.starts_with('~'));
            match &base {
                Some(base) => self.check_path(raw, base, &root),
                None if relative => Err(format!(
                    "write-guard: {raw:?} is relative and the working directory {} is not \
                     an absolute path; cannot decide",
                    show(cwd)
                )),
                None => self.check_path(raw, &root, &root),
            }
        })
    }

    /// Checks one path, relative to `base`, against the rules; `base` and `root` are resolved.
    fn check_path(&self, raw: &str, base: &Path, root: &Path) -> Result<(), String> {
        if raw.is_empty() {
            return Err("write-guard: the file path is empty".to_owned());
        }
        if raw.contains('\0') {
            return Err(format!("write-guard: {raw:?} contains a NUL byte"));
        }
        let abs = resolve(raw, base, self.home.as_deref()).map_err(|e| {
            format!(
                "write-guard: {raw:?} cannot be resolved ({})",
                one_line(&e.to_string())
            )
        })?;
        match paths::inside(&abs, root) {
            Some(rel) if rel.as_os_str().is_empty() => Err(format!(
                "write-guard: {raw:?} is the project root itself, not a file in it"
            )),
            Some(rel) => {
                if let Some(rule) = self.deny.first_match(rel, &abs) {
                    return Err(format!(
                        "write-guard: {raw:?}{} matches deny rule {rule:?}",
                        resolved_note(raw, rel)
                    ));
                }
                if self.allow.first_match(rel, &abs).is_some() {
                    return Ok(());
                }
                Err(format!(
                    "write-guard: {raw:?}{} matches no allow rule (allowed: {})",
                    resolved_note(raw, rel),
                    self.allow.patterns.join(", ")
                ))
            }
            None => {
                let unrooted = strip_root(&abs);
                if let Some(rule) = self.deny.first_match(unrooted, &abs) {
                    return Err(format!(
                        "write-guard: {raw:?} resolves to {}, which matches deny rule {rule:?}",
                        show(&abs)
                    ));
                }
                if self.allow.first_absolute(&abs).is_some() {
                    return Ok(());
                }
                Err(format!(
                    "write-guard: {raw:?} resolves to {}, outside the project root {}",
                    show(&abs),
                    show(root)
                ))
            }
        }
    }
}

impl HooksProvider for WriteGuard {
    fn name(&self) -> &str {
        "builtin.write_guard"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(self.check_in(
            &ctx.tool_name,
            ctx.tool_input.get(),
            ctx.meta.project_root(),
            &ctx.meta.cwd,
        ))
    }
}

/// A configured list of globs ([`PathGlobs`]), with the globs as configured for reasons.
#[derive(Debug, Clone)]
struct Rules {
    patterns: Vec<String>,
    globs: PathGlobs,
}

impl Rules {
    fn compile(
        field: &'static str,
        patterns: &[String],
        case_insensitive: bool,
        home: Option<&Path>,
    ) -> Result<Self, ConfigError> {
        Ok(Rules {
            patterns: patterns.to_vec(),
            globs: PathGlobs::compile(POLICY, field, patterns, case_insensitive, home)?,
        })
    }

    /// The first configured glob matching `rel` (relative globs) or `abs` (absolute globs).
    fn first_match(&self, rel: &Path, abs: &Path) -> Option<&str> {
        let i = self
            .globs
            .first(Some(&Candidate::new(rel)), &Candidate::new(abs))?;
        self.patterns.get(i).map(String::as_str)
    }

    fn first_absolute(&self, abs: &Path) -> Option<&str> {
        let i = self.globs.first_absolute(&Candidate::new(abs))?;
        self.patterns.get(i).map(String::as_str)
    }
}

/// ` (resolves to rel)` when the raw path is not already the root-relative path.
fn resolved_note(raw: &str, rel: &Path) -> String {
    if Path::new(raw) == rel {
        String::new()
    } else {
        format!(" (resolves to {})", show(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ROOT: &str = "/nonexistent/hooks-builtin-test/project";

    fn guard(allow: &[&str], deny: &[&str]) -> WriteGuard {
        WriteGuard::with_home(
            WriteGuardConfig {
                allow: allow.iter().map(|s| (*s).to_owned()).collect(),
                deny: deny.iter().map(|s| (*s).to_owned()).collect(),
                ..WriteGuardConfig::default()
            },
            Some(PathBuf::from("/nonexistent/home/me")),
        )
        .unwrap()
    }

    fn write(g: &WriteGuard, path: &str) -> Verdict {
        g.check("Write", &json!({ "file_path": path }), Path::new(ROOT))
    }

    fn reason(v: &Verdict) -> &str {
        match v {
            Verdict::Deny(r) => r,
            other => panic!("expected a deny, got {other:?}"),
        }
    }

    #[test]
    fn default_config_allows_inside_root_and_denies_git_and_outside() {
        let g = WriteGuard::with_home(WriteGuardConfig::default(), None).unwrap();
        assert_eq!(write(&g, "src/main.rs"), Verdict::Continue);
        assert_eq!(write(&g, "deep/a/b/c.txt"), Verdict::Continue);
        let r = write(&g, ".git/hooks/pre-commit");
        assert!(
            reason(&r).contains("matches deny rule \"**/.git/**\""),
            "{r}"
        );
        let r = write(&g, "vendor/lib/.git/config");
        assert!(reason(&r).contains("deny rule"), "{r}");
        let r = write(&g, "../sibling/x");
        assert!(reason(&r).contains("outside the project root"), "{r}");
    }

    #[test]
    fn dot_dot_is_resolved_before_matching() {
        let g = guard(&["src/**"], &[]);
        let r = write(&g, "src/../.env");
        assert_eq!(
            reason(&r),
            "write-guard: \"src/../.env\" (resolves to .env) matches no allow rule (allowed: src/**)"
        );
        let r = write(&g, "src/../../outside.rs");
        assert!(
            reason(&r).starts_with(
                "write-guard: \"src/../../outside.rs\" resolves to \
                 /nonexistent/hooks-builtin-test/outside.rs, outside the project root"
            ),
            "{r}"
        );
        assert_eq!(write(&g, "tests/../src/ok.rs"), Verdict::Continue);
    }

    #[test]
    fn deny_wins_over_allow_and_reason_names_the_rule() {
        let g = guard(&["**"], &["secrets/**", "*.lock"]);
        let r = write(&g, "secrets/key");
        assert_eq!(
            reason(&r),
            "write-guard: \"secrets/key\" matches deny rule \"secrets/**\""
        );
        assert!(reason(&write(&g, "Cargo.lock")).contains("\"*.lock\""));
        // `*` does not cross `/`.
        assert_eq!(write(&g, "sub/Cargo.lock"), Verdict::Continue);
    }

    #[test]
    fn deny_globs_match_case_insensitively_allow_globs_do_not() {
        let g = guard(&["src/**"], &[".git/**"]);
        assert!(reason(&write(&g, ".GIT/config")).contains("deny rule"));
        assert!(reason(&write(&g, "SRC/a.rs")).contains("no allow rule"));
    }

    #[test]
    fn absolute_paths_inside_the_root_are_matched_relative_to_it() {
        let g = guard(&["src/**"], &[]);
        assert_eq!(write(&g, &format!("{ROOT}/src/a.rs")), Verdict::Continue);
        assert!(reason(&write(&g, &format!("{ROOT}/docs/a.md"))).contains("no allow rule"));
        assert!(reason(&write(&g, "/etc/passwd")).contains("outside the project root"));
    }

    #[test]
    fn absolute_allow_glob_admits_a_path_outside_the_root() {
        let g = guard(&["src/**", "/nonexistent/scratch/**"], &[]);
        assert_eq!(write(&g, "/nonexistent/scratch/x/y.txt"), Verdict::Continue);
        assert_eq!(write(&g, "../../scratch/z"), Verdict::Continue);
        assert!(reason(&write(&g, "/nonexistent/scratchy/x")).contains("outside"));
    }

    #[test]
    fn relative_deny_glob_with_double_star_applies_outside_the_root_too() {
        let g = guard(&["/nonexistent/scratch/**"], &["**/.git/**"]);
        let r = write(&g, "/nonexistent/scratch/repo/.git/config");
        assert!(
            reason(&r).contains("matches deny rule \"**/.git/**\""),
            "{r}"
        );
    }

    #[test]
    fn tilde_paths_and_globs_expand_to_home() {
        let g = guard(&["~/notes/**"], &[]);
        assert_eq!(write(&g, "~/notes/today.md"), Verdict::Continue);
        assert!(reason(&write(&g, "~/.bashrc")).contains("outside the project root"));
        let r = write(&g, "~root/.bashrc");
        assert!(reason(&r).contains("cannot be resolved"), "{r}");
    }

    #[test]
    fn tilde_without_home_is_denied_not_guessed() {
        let g = WriteGuard::with_home(WriteGuardConfig::default(), None).unwrap();
        assert!(reason(&write(&g, "~/x")).contains("cannot be resolved"));
        let err = WriteGuard::with_home(
            WriteGuardConfig {
                allow: vec!["~/x/**".into()],
                ..WriteGuardConfig::default()
            },
            None,
        )
        .unwrap_err();
        assert_eq!(err.field, "allow[0]");
    }

    #[test]
    fn bad_globs_are_config_errors_naming_the_index() {
        for (allow, deny, field) in [
            (vec!["src/**", "src/[a"], vec![], "allow[1]"),
            (vec!["**"], vec!["ok/**", "", "x"], "deny[1]"),
            (vec!["../shared/**"], vec![], "allow[0]"),
            (vec!["{a,b"], vec![], "allow[0]"),
        ] {
            let err = WriteGuard::new(WriteGuardConfig {
                allow: allow.into_iter().map(Into::into).collect(),
                deny: deny.into_iter().map(Into::into).collect(),
                ..WriteGuardConfig::default()
            })
            .unwrap_err();
            assert_eq!((err.policy, err.field.as_ref()), ("write_guard", field));
        }
    }

    #[test]
    fn non_write_tools_are_not_looked_at() {
        let g = guard(&["src/**"], &[]);
        let v = g.check(
            "Read",
            &json!({"file_path": "/etc/shadow"}),
            Path::new(ROOT),
        );
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn a_write_without_a_path_is_denied_unless_configured() {
        let g = guard(&["**"], &[]);
        for input in [
            json!({}),
            json!("x"),
            json!(null),
            json!([1, 2]),
            json!({"content": "x"}),
        ] {
            let v = g.check("Write", &input, Path::new(ROOT));
            assert!(reason(&v).contains("names no file path"), "{input}: {v}");
        }
        let open = WriteGuard::new(WriteGuardConfig {
            allow_missing_path: true,
            ..WriteGuardConfig::default()
        })
        .unwrap();
        assert_eq!(
            open.check("Write", &json!({}), Path::new(ROOT)),
            Verdict::Continue
        );
    }

    #[test]
    fn path_fields_of_the_wrong_type_are_denied() {
        let g = guard(&["**"], &[]);
        for input in [
            json!({"file_path": [".git/config"], "path": "src/a"}),
            json!({"file_path": {"p": "x"}}),
            json!({"notebook_path": 7}),
            json!({"file_path": "a", "paths": "b"}),
            json!({"paths": ["a", 1]}),
        ] {
            let v = g.check("Edit", &input, Path::new(ROOT));
            assert!(reason(&v).contains("is not a string"), "{input}: {v}");
        }
    }

    #[test]
    fn every_path_of_a_call_is_checked() {
        let g = guard(&["src/**"], &[]);
        let input = json!({"paths": ["src/a", "docs/b"]});
        assert!(reason(&g.check("Write", &input, Path::new(ROOT))).contains("\"docs/b\""));
        let patch =
            "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: ../x.rs\n*** End Patch";
        let v = g.check("apply_patch", &json!({ "input": patch }), Path::new(ROOT));
        assert!(reason(&v).contains("outside the project root"), "{v}");
    }

    #[test]
    fn empty_nul_and_root_paths_are_denied() {
        let g = guard(&["**"], &[]);
        assert!(reason(&write(&g, "")).contains("empty"));
        assert!(reason(&write(&g, "src/a\0.rs")).contains("NUL"));
        assert!(reason(&write(&g, ".")).contains("project root itself"));
        assert!(reason(&write(&g, "src/..")).contains("project root itself"));
    }

    #[test]
    fn a_relative_project_root_is_refused() {
        let g = guard(&["**"], &[]);
        let v = g.check("Write", &json!({"file_path": "a"}), Path::new("rel/root"));
        assert!(reason(&v).contains("not an absolute path"));
        let v = g.check("Write", &json!({"file_path": "a"}), Path::new(""));
        assert!(reason(&v).contains("not an absolute path"));
    }

    #[test]
    fn unicode_names_are_matched_and_control_characters_escaped_in_reasons() {
        let g = guard(&["src/**"], &[]);
        assert_eq!(write(&g, "src/données/été.txt"), Verdict::Continue);
        // Fullwidth dots are a name, not `..`.
        assert_eq!(write(&g, "src/\u{ff0e}\u{ff0e}/x"), Verdict::Continue);
        let r = write(&g, "../evil\nwrite-guard: allowed");
        assert!(!reason(&r).contains('\n'), "{r}");
        let r = write(&g, "../\u{202e}sr.exe");
        assert!(!reason(&r).contains('\u{202e}'), "{r}");
        let r = write(&g, "~\u{202e}\n");
        assert!(!reason(&r).contains(['\n', '\u{202e}']), "{r}");
    }

    #[test]
    fn config_round_trips_and_rejects_unknown_fields() {
        let cfg = WriteGuardConfig::default();
        let json = serde_json::to_value(&cfg).unwrap();
        assert_eq!(json["allow"], json!(["**"]));
        let back: WriteGuardConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, cfg);
        let partial: WriteGuardConfig =
            serde_json::from_value(json!({"allow": ["src/**"]})).unwrap();
        assert_eq!(partial.deny, WriteGuardConfig::default().deny);
        assert!(serde_json::from_value::<WriteGuardConfig>(json!({"alow": []})).is_err());
    }
}
