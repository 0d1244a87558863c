//! `secrets-guard`: no reading or printing of secrets files, through file tools or shell
//! commands.
//!
//! Hooks `pre_tool_use`. A path is a **secrets file** when it matches a rule below (anywhere
//! in its absolute path, case-insensitively) and no exception; the path is judged both as
//! written (`~` expanded, `..` applied) and as resolved through symlinks
//! ([`paths::resolve`]), so neither `src/../.env` nor a link named
//! `notes.txt` that points at `~/.ssh/id_rsa` gets through.
//!
//! | builtin rule | matches |
//! |---|---|
//! | `.env`, `.env.*` | dotenv files, except `.env.example`, `.env.sample`, `.env.template` |
//! | `*.pem`, `*.key` | PEM certificates and private keys |
//! | `id_rsa*`, `id_dsa*`, `id_ecdsa*`, `id_ed25519*` | SSH private keys, except `*.pub` |
//! | `*.p12`, `*.pfx`, `*.jks`, `*.keystore` | key stores |
//! | `.netrc` (`_netrc`), `.npmrc`, `.pypirc`, `.git-credentials`, `.pgpass` | credential files |
//! | `~/.ssh/**`, `~/.aws/**`, `~/.config/gcloud/**`, `~/.azure/**`, `~/.gnupg/**` | the directories and everything in them (`*.pub` excepted) |
//! | `~/.kube/config`, `~/.docker/config.json` | cluster and registry credentials |
//!
//! The `~/…` rules match any such directory (`/root/.ssh`, another user's home, a mounted
//! home), not just the current user's. Settings add rules (`deny`) and exceptions (`allow`,
//! which win over every rule), with `write-guard`'s glob syntax: relative globs match the path
//! relative to the project root (a `deny` glob also matches a path outside it, without the
//! leading `/`), `/…` and `~/…` globs match the absolute path. `builtin_rules: false` leaves
//! only the configured ones.
//!
//! # What is checked
//!
//! * **File tools.** Every path field ([`paths_in`]: `file_path`, `path`,
//!   `notebook_path`, `paths`, patch headers) of a call of a `read_tools` or `write_tools` tool
//!   (and, with `any_tool_paths`, the default, of every other non-shell tool: MCP file
//!   servers are covered without listing them). For `read_tools`, a `glob` or `include` filter
//!   that selects secrets files (`.env*`, `*.pem`, but not a catch-all like `*`) is denied.
//! * **Shell tools** (`shell_tools`; `command` is a string, or an argv list as Codex sends
//!   it). The command is parsed with [`crate::shell`], which sees through quotes, `bash -c`,
//!   `eval`, `$(…)`, pipes and `xargs`. **Every argument of every simple command, whatever the
//!   program, and every file redirection target** (`< .env`, `> .env`) is checked as a path:
//!   `cat .env`, `grep KEY .env`, `source .env`, `. .env`, `cp .env /tmp/x`,
//!   `base64 ~/.ssh/id_rsa`, `tar c ~/.aws`, `bash -c 'cat .env'`, `dd if=.env`. Being
//!   strict on purpose: `echo .env`, `ls .env` and `git add .env` are denied too, because
//!   telling a harmless mention from a read would need a model of every program (and
//!   `echo .env | xargs cat` reads it). Before matching, a leading `$HOME`/`${HOME}` becomes
//!   `~`, `$PWD`/`$(pwd)` the working directory, braces are expanded (`.{env,x}`), and
//!   wildcards are expanded against the file system as the shell would (`cat .en?`,
//!   `cat *.pem`; a leading `*` skips dotfiles, as in bash). A relative argument is judged
//!   against the working directory (`meta.cwd`), the tool's `workdir`/`cwd` input, and every `cd`/`pushd`
//!   target of the command line. Allowed: `ls`, `grep -r TODO src`, `cat .env.example`,
//!   `cat id_rsa.pub`.
//!
//! # Closed by default
//!
//! Denied: a command that cannot be parsed, a shell call without a command, a path that cannot
//! be resolved (a symlink loop), a malformed path field of a listed tool, a `glob` filter that
//! does not compile, and anything to judge when the working directory is not absolute or the
//! project root cannot be one ([`check_project_root`](crate::check_project_root): not
//! absolute, `/`, the home directory, a system directory; "cannot decide", naming the root).
//! Every deny names the rule that matched.
//!
//! The project root is [`ctx.meta.project_root()`](hooks_core::context::Meta::project_root);
//! relative paths start at the working directory `ctx.meta.cwd`, which the event gives.
//!
//! # What it does not catch
//!
//! Names computed at run time (`f=.env; cat $f`, `cat $(echo .env)`, `cat "$(ls -a | grep
//! env)"`), directory-wide reads that happen to include a secret (`grep -r KEY .`,
//! `tar c .`), programs that read secrets by themselves (`aws s3 ls` reads
//! `~/.aws/credentials`), and secrets in environment variables (`env`, `printenv`): pair it
//! with `pii-scrub` on tool output.
//!
//! # Example
//!
//! ```
//! use hooks_builtin::secrets_guard::SecretsGuard;
//! use hooks_core::context::{Meta, PreToolUse};
//! use hooks_core::points::pre_tool_use;
//! use hooks_core::runtime::Hooks;
//! use serde_json::json;
//!
//! let hooks = Hooks::builder()
//!     .ignore_env()
//!     .provider_at(-100, SecretsGuard::default())
//!     .build()?;
//! let meta = Meta::new("s1").with_cwd("/nonexistent/project");
//!
//! let mut ctx = PreToolUse::new(meta.clone(), "Bash", json!({"command": "grep KEY .env"}));
//! let out = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
//! assert!(out.verdict().reason().unwrap().contains("matches secrets rule \".env\""));
//!
//! let mut ctx = PreToolUse::new(meta, "Read", json!({"file_path": ".env.example"}));
//! assert!(!hooks.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod command;
mod rules;

use std::path::{Path, PathBuf};

use hooks_core::context::PreToolUse;
use hooks_core::runtime::HooksProvider;
use hooks_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConfigError;
use crate::paths::{self, resolve};
use crate::tools::{READ_TOOLS, SHELL_TOOLS, WRITE_TOOLS, owned, paths_in};

use rules::{BUILTIN_ALLOW, BUILTIN_DENY, Rules};

/// The policy's name in config files and [`ConfigError`]s.
const POLICY: &str = "secrets_guard";

/// Settings of [`SecretsGuard`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecretsGuardConfig {
    /// Tools that read files; their path fields and `glob`/`include` filters are checked.
    /// Default: [`READ_TOOLS`].
    pub read_tools: Vec<String>,
    /// Tools that write files; their path fields are checked. Default: [`WRITE_TOOLS`].
    pub write_tools: Vec<String>,
    /// Tools whose `command` is a shell command line. Default: [`SHELL_TOOLS`].
    pub shell_tools: Vec<String>,
    /// Also check the path fields of every other (non-shell) tool. Default: `true`.
    pub any_tool_paths: bool,
    /// Use the builtin rules and exceptions (see the module docs). Default: `true`.
    pub builtin_rules: bool,
    /// More secrets globs. Default: none.
    pub deny: Vec<String>,
    /// Exceptions: paths matching one of these globs are never secrets. Default: none.
    pub allow: Vec<String>,
}

impl Default for SecretsGuardConfig {
    fn default() -> Self {
        SecretsGuardConfig {
            read_tools: owned(READ_TOOLS),
            write_tools: owned(WRITE_TOOLS),
            shell_tools: owned(SHELL_TOOLS),
            any_tool_paths: true,
            builtin_rules: true,
            deny: Vec::new(),
            allow: Vec::new(),
        }
    }
}

/// The `secrets-guard` policy: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct SecretsGuard {
    read_tools: Vec<String>,
    write_tools: Vec<String>,
    shell_tools: Vec<String>,
    any_tool_paths: bool,
    builtin: Option<(Rules, Rules)>,
    deny: Rules,
    allow: Rules,
    home: Option<PathBuf>,
}

impl Default for SecretsGuard {
    fn default() -> Self {
        match Self::new(SecretsGuardConfig::default()) {
            Ok(guard) => guard,
            Err(e) => unreachable!("the default config is valid: {e}"),
        }
    }
}

impl SecretsGuard {
    /// Builds the guard, compiling its globs. `~` is the current user's home directory.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the first bad glob (`deny[1]`).
    pub fn new(config: SecretsGuardConfig) -> Result<Self, ConfigError> {
        Self::with_home(config, paths::home_dir())
    }

    /// Like [`new`](Self::new), with `home` as the directory `~` (and `$HOME`) expands to.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn with_home(
        config: SecretsGuardConfig,
        home: Option<PathBuf>,
    ) -> Result<Self, ConfigError> {
        let deny = Rules::configured("deny", &config.deny, true, home.as_deref())?;
        let allow = Rules::configured("allow", &config.allow, false, home.as_deref())?;
        let builtin = config
            .builtin_rules
            .then(|| (Rules::builtin(BUILTIN_DENY), Rules::builtin(BUILTIN_ALLOW)));
        Ok(SecretsGuard {
            read_tools: config.read_tools,
            write_tools: config.write_tools,
            shell_tools: config.shell_tools,
            any_tool_paths: config.any_tool_paths,
            builtin,
            deny,
            allow,
            home,
        })
    }

    /// The verdict on a call of `tool_name` with `input` in project `cwd`, which is also where
    /// relative paths start: [`check_in`](Self::check_in) with both set to `cwd`.
    pub fn check(&self, tool_name: &str, input: &Value, cwd: &Path) -> Verdict {
        self.check_in(tool_name, input, cwd, cwd)
    }

    /// The verdict on a call of `tool_name` with `input` made in `cwd`, in the project rooted
    /// at `root`: [`Verdict::Continue`], or [`Verdict::Deny`] naming the rule. Relative paths
    /// start at `cwd`; relative globs of the rules match paths relative to `root`.
    ///
    /// ```
    /// use std::path::Path;
    /// use hooks_builtin::secrets_guard::SecretsGuard;
    /// use serde_json::json;
    ///
    /// let guard = SecretsGuard::default();
    /// let root = Path::new("/nonexistent/project");
    /// let cat = json!({"command": "cat .env"});
    /// assert!(guard.check_in("Bash", &cat, root, &root.join("sub")).is_deny());
    /// // A root that holds the system protects nothing: the guard cannot decide.
    /// let ls = json!({"command": "ls"});
    /// let verdict = guard.check_in("Bash", &ls, Path::new("/"), Path::new("/"));
    /// assert!(verdict.reason().unwrap().contains("cannot decide"));
    /// ```
    pub fn check_in(&self, tool_name: &str, input: &Value, root: &Path, cwd: &Path) -> Verdict {
        match self.check_call(tool_name, input, root, cwd) {
            Ok(()) => Verdict::Continue,
            Err(reason) => {
                tracing::debug!(policy = POLICY, tool = tool_name, %reason, "secrets access denied");
                Verdict::deny(reason)
            }
        }
    }

    /// The name of the rule that makes `path` (absolute, in a project rooted at `root`) a
    /// secrets file, if any.
    pub fn secret_rule(&self, path: &Path, root: &Path) -> Option<&str> {
        if self.allow.first_match(path, root).is_some() {
            return None;
        }
        if let Some(rule) = self.deny.first_match(path, root) {
            return Some(rule);
        }
        let (deny, allow) = self.builtin.as_ref()?;
        if allow.first_match(path, root).is_some() {
            return None;
        }
        deny.first_match(path, root)
    }

    fn check_call(&self, tool: &str, input: &Value, root: &Path, cwd: &Path) -> Result<(), String> {
        let is = |list: &[String]| list.iter().any(|t| t == tool);
        if is(&self.shell_tools) {
            let root = self.root(root, cwd)?;
            return command::check(self, tool, input, cwd, &root);
        }
        let listed = is(&self.read_tools) || is(&self.write_tools);
        if !listed && !self.any_tool_paths {
            return Ok(());
        }
        if listed && let Some(field) = malformed_path_field(input) {
            return Err(format!(
                "secrets-guard: {tool} input field `{field}` is not a string (or list of \
                 strings); cannot tell which file it opens"
            ));
        }
        let raws: Vec<&str> = paths_in(input)
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect();
        let filters = if is(&self.read_tools) {
            glob_filters(input)
        } else {
            Vec::new()
        };
        if raws.is_empty() && filters.is_empty() {
            return Ok(());
        }
        let root = self.root(root, cwd)?;
        for raw in raws {
            self.check_path(raw, cwd, &root)
                .map_err(|finding| format!("secrets-guard: {tool}: {finding}"))?;
        }
        for (key, filter) in filters {
            self.check_filter(tool, key, filter, &root)?;
        }
        Ok(())
    }

    /// The resolved project root; an error when it cannot be one
    /// ([`check_project_root`](crate::check_project_root)) or `cwd` is not absolute.
    fn root(&self, root: &Path, cwd: &Path) -> Result<PathBuf, String> {
        if let Err(e) = paths::check_project_root(root, self.home.as_deref()) {
            return Err(format!(
                "secrets-guard: cannot decide: {}",
                one_line(&e.to_string())
            ));
        }
        if !cwd.is_absolute() {
            return Err(format!(
                "secrets-guard: the working directory {} is not an absolute path; cannot decide",
                show(cwd)
            ));
        }
        resolve(".", root, self.home.as_deref()).map_err(|e| {
            format!(
                "secrets-guard: the project root cannot be resolved ({}); cannot decide",
                one_line(&e.to_string())
            )
        })
    }

    /// Judges one path text relative to `base`: `Err` with `"<raw>" … matches secrets rule
    /// "<rule>"` when it is a secrets file (as written or resolved) or cannot be resolved.
    fn check_path(&self, raw: &str, base: &Path, root: &Path) -> Result<(), String> {
        if raw.contains('\0') {
            return Err(format!("{raw:?} contains a NUL byte"));
        }
        let home = self.home.as_deref();
        let lexical = rules::lexical(raw, base, home);
        if let Some(rule) = self.secret_rule(&lexical, root) {
            return Err(format!(
                "{raw:?}{} matches secrets rule {rule:?}",
                note(raw, &lexical, root)
            ));
        }
        match rules::resolved(raw, base, home) {
            Ok(Some(real)) if real != lexical => match self.secret_rule(&real, root) {
                Some(rule) => Err(format!(
                    "{raw:?}{} matches secrets rule {rule:?}",
                    note(raw, &real, root)
                )),
                None => Ok(()),
            },
            Ok(_) => Ok(()),
            Err(e) => Err(format!(
                "{raw:?} cannot be resolved ({})",
                one_line(&e.to_string())
            )),
        }
    }

    /// A read tool's `glob`/`include` filter that selects secrets files and nothing else.
    fn check_filter(&self, tool: &str, key: &str, filter: &str, root: &Path) -> Result<(), String> {
        let glob = globset::GlobBuilder::new(filter)
            .case_insensitive(true)
            .build()
            .map_err(|e| {
                format!(
                    "secrets-guard: {tool} `{key}` filter {filter:?} cannot be read ({}); \
                     cannot tell which files it selects",
                    e.kind()
                )
            })?
            .compile_matcher();
        const ORDINARY: &[&str] = &["main.rs", "README.md", "src/index.js", "notes.txt"];
        if ORDINARY.iter().any(|p| glob.is_match(p)) {
            return Ok(());
        }
        for probe in SECRET_PROBES {
            if !glob.is_match(probe) && !glob.is_match(Path::new("sub").join(probe)) {
                continue;
            }
            if let Some(rule) = self.secret_rule(&root.join(probe), root) {
                return Err(format!(
                    "secrets-guard: {tool} `{key}` filter {filter:?} selects secrets files \
                     ({probe:?} matches secrets rule {rule:?})"
                ));
            }
        }
        Ok(())
    }
}

impl HooksProvider for SecretsGuard {
    fn name(&self) -> &str {
        "builtin.secrets_guard"
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

/// File names a filter is tried on: one per builtin rule.
const SECRET_PROBES: &[&str] = &[
    ".env",
    ".env.local",
    "server.pem",
    "server.key",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "store.p12",
    "store.pfx",
    "store.jks",
    "release.keystore",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".ssh/config",
    ".aws/credentials",
    ".kube/config",
    ".docker/config.json",
];

/// The `glob` (Claude Code `Grep`) and `include` (Gemini CLI `search_file_content`) filters.
fn glob_filters(input: &Value) -> Vec<(&'static str, &str)> {
    ["glob", "include"]
        .into_iter()
        .filter_map(|k| Some((k, input.get(k)?.as_str()?)))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// The name of a path field of `input` whose value is neither a string nor absent/null.
fn malformed_path_field(input: &Value) -> Option<&'static str> {
    for key in ["file_path", "path", "notebook_path"] {
        match input.get(key) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => return Some(key),
        }
    }
    match input.get("paths") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => None,
        Some(_) => Some("paths"),
    }
}

/// ` (resolves to X)` when `path` is not what `raw` says, X root-relative when inside.
fn note(raw: &str, path: &Path, root: &Path) -> String {
    let shown = match paths::inside(path, root) {
        Some(rel) if !rel.as_os_str().is_empty() => rel,
        _ => path,
    };
    if Path::new(raw) == shown {
        String::new()
    } else {
        format!(" (resolves to {})", show(shown))
    }
}

fn show(p: &Path) -> String {
    one_line(&p.to_string_lossy())
}

/// `s` with control and bidi-override characters escaped.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else if matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
