//! Which paths are secrets: the builtin rules, the configured ones, and how a path is matched.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use globset::{Candidate, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use super::POLICY;
use crate::ConfigError;
use crate::globs::{PathGlobs, strip_root};
use crate::paths::{self, PathError};

/// The builtin secrets rules: the name shown in reasons, and the globs matched (anywhere in
/// the absolute path, case-insensitively).
pub(super) const BUILTIN_DENY: &[(&str, &[&str])] = &[
    (".env", &["**/.env"]),
    (".env.*", &["**/.env.*"]),
    // direnv's `.envrc` exports the same variables a `.env` holds, and Cloudflare's
    // wrangler keeps a worker's secrets for `wrangler dev` in `.dev.vars`.
    (".envrc", &["**/.envrc"]),
    (".dev.vars", &["**/.dev.vars", "**/.dev.vars.*"]),
    ("*.pem", &["**/*.pem"]),
    ("*.key", &["**/*.key"]),
    ("id_rsa*", &["**/id_rsa*"]),
    ("id_dsa*", &["**/id_dsa*"]),
    ("id_ecdsa*", &["**/id_ecdsa*"]),
    ("id_ed25519*", &["**/id_ed25519*"]),
    ("*.p12", &["**/*.p12"]),
    ("*.pfx", &["**/*.pfx"]),
    ("*.jks", &["**/*.jks"]),
    ("*.keystore", &["**/*.keystore"]),
    (".netrc", &["**/.netrc", "**/_netrc"]),
    (".git-credentials", &["**/.git-credentials"]),
    (".pgpass", &["**/.pgpass"]),
    (".my.cnf", &["**/.my.cnf"]),
    (".vault-token", &["**/.vault-token"]),
    (".htpasswd", &["**/.htpasswd"]),
    // rclone's remotes, with their keys and tokens.
    ("rclone.conf", &["**/rclone/rclone.conf", "**/.rclone.conf"]),
    ("credentials.json", &["**/credentials.json"]),
    ("secrets.json", &["**/secrets.json"]),
    ("secrets.yml", &["**/secrets.yml"]),
    ("secrets.yaml", &["**/secrets.yaml"]),
    ("service-account*.json", &["**/service-account*.json"]),
    ("~/.ssh/**", &["**/.ssh", "**/.ssh/**"]),
    ("~/.aws/**", &["**/.aws", "**/.aws/**"]),
    (
        "~/.config/gcloud/**",
        &["**/.config/gcloud", "**/.config/gcloud/**"],
    ),
    ("~/.azure/**", &["**/.azure", "**/.azure/**"]),
    ("~/.gnupg/**", &["**/.gnupg", "**/.gnupg/**"]),
    ("~/.kube/config", &["**/.kube/config"]),
    ("~/.docker/config.json", &["**/.docker/config.json"]),
    ("~/.config/gh/hosts.yml", &["**/.config/gh/hosts.yml"]),
    ("~/.gem/credentials", &["**/.gem/credentials"]),
    ("~/.cargo/credentials*", &["**/.cargo/credentials*"]),
    ("~/.config/git/credentials", &["**/.config/git/credentials"]),
    // gh's tokens where it keeps them on Windows, hub's, and Terraform Cloud's.
    ("GitHub CLI/hosts.yml", &["**/GitHub CLI/hosts.yml"]),
    ("~/.config/hub", &["**/.config/hub"]),
    // s3cmd's keys.
    ("~/.s3cfg", &["**/.s3cfg"]),
    (
        "~/.terraform.d/credentials.tfrc.json",
        &["**/.terraform.d/credentials.tfrc.json"],
    ),
    // macOS's keychains: every saved password of the user, encrypted with the login one.
    ("~/Library/Keychains/**", &["**/Library/Keychains/**"]),
    // Shells' and clients' histories: tokens and passwords typed on a command line.
    (
        "shell and client histories",
        &[
            "**/.bash_history",
            "**/.histfile",
            "**/.local/share/atuin/history.db",
            "**/.zsh_history",
            "**/.zhistory",
            "**/.local/share/fish/fish_history",
            "**/.psql_history",
            "**/.mysql_history",
            "**/.sqlite_history",
            "**/.python_history",
            "**/.node_repl_history",
            "**/.rediscli_history",
            "**/.dbshell",
        ],
    ),
    // Agent CLIs' own sign-in tokens.
    (
        "~/.claude/.credentials.json",
        &["**/.claude/.credentials.json"],
    ),
    ("~/.codex/auth.json", &["**/.codex/auth.json"]),
    (
        "~/.gemini/oauth_creds.json",
        &["**/.gemini/oauth_creds.json"],
    ),
    // The system's password hashes, SSH host keys and a pod's service-account token.
    (
        "/etc/shadow",
        &[
            "**/etc/shadow",
            "**/etc/shadow-",
            "**/etc/gshadow",
            "**/etc/gshadow-",
        ],
    ),
    ("ssh_host_*_key", &["**/ssh_host_*_key"]),
    // The token is a link into a dated directory through `..data` (`..data/token`,
    // `..2026_11_28_00_00_00.1/token`); the directory whole (`tar c`, `cp -r`) holds it.
    (
        "kubernetes.io/serviceaccount/token",
        &[
            "**/kubernetes.io/serviceaccount/token",
            "**/kubernetes.io/serviceaccount/*/token",
            "**/kubernetes.io/serviceaccount",
            // EKS's web-identity token, and the directories that hold the tokens whole.
            "**/eks.amazonaws.com/serviceaccount/token",
            "**/eks.amazonaws.com/serviceaccount/*/token",
            "**/eks.amazonaws.com/serviceaccount",
            "**/run/secrets",
            // Docker's and Compose's secrets, one file each.
            "**/run/secrets/*",
            "**/run/secrets/kubernetes.io",
            "**/run/secrets/eks.amazonaws.com",
        ],
    ),
    // `hooks serve`'s bearer token and its daemon records: whoever holds the token can post
    // events to the daemon that guards the agent.
    (
        "~/.local/state/hookrail/**",
        &[
            "**/hookrail/token",
            "**/hookrail/daemons",
            "**/hookrail/daemons/**",
        ],
    ),
    // The hooks' own configuration (DESIGN §8): an agent that could edit it could switch its
    // guards off. Readable (`BUILTIN_READ_ALLOW`), never written, replaced or deleted by a tool
    // the guard sees; only a person changes it.
    (HOOK_CONFIG, HOOK_CONFIG_GLOBS),
];

/// The rule name of the hooks' own configuration files, shown in reasons.
pub(super) const HOOK_CONFIG: &str = "hook configuration (only a person may change it)";

/// The hooks' configuration: project files, the workspace and user hook directories, the
/// approvals file, Claude Code's and Gemini CLI's settings files, plugin hook files.
const HOOK_CONFIG_GLOBS: &[&str] = &[
    "**/hooks.yaml",
    "**/hooks.yml",
    "**/hooks.toml",
    "**/hooks.json",
    "**/.hooks",
    "**/.hooks/**",
    "**/.config/hookrail",
    "**/.config/hookrail/**",
    "**/.config/agent-hooks",
    "**/.config/agent-hooks/**",
    "**/.claude/settings.json",
    "**/.claude/settings.local.json",
    "**/managed-settings.json",
    "**/.gemini/settings.json",
];

/// The directories that hold agents' settings files: removing one, or moving it away,
/// removes its settings ([`super::command`]). Not a glob of [`HOOK_CONFIG_GLOBS`]: what else
/// they hold (commands, agents) is the agent's to work on, and a shell command's operands
/// count as written unless its program only reads (`cd .claude`, `find .claude` would be
/// refused).
pub(super) const SETTINGS_DIRS: &[&str] = &[".claude", ".gemini"];

/// Files that are secrets only when they hold a credential ([`credential_in`]): a project
/// `.npmrc` that sets `engine-strict` or a registry is common and harmless, one with an
/// `_authToken` is not.
pub(super) const BUILTIN_CONTENT: &[(&str, &[&str])] =
    &[(".npmrc", &["**/.npmrc"]), (".pypirc", &["**/.pypirc"])];

/// Files the builtin rules would match that hold no secret.
pub(super) const BUILTIN_ALLOW: &[(&str, &[&str])] = &[
    (".env.example", &["**/.env.example"]),
    (".env.sample", &["**/.env.sample"]),
    (".env.template", &["**/.env.template"]),
    // Symfony's committed template, and dotenv-defaults' committed defaults.
    (".env.dist", &["**/.env.dist"]),
    (".env.defaults", &["**/.env.defaults"]),
    ("*.pub", &["**/*.pub"]),
];

/// Files the builtin rules would match that hold no secret, but only for reading: writing
/// them is still denied (a `ProxyCommand` appended to `~/.ssh/config` runs on the next `ssh`),
/// since this guard is the only default one that sees shell redirections outside the project.
pub(super) const BUILTIN_READ_ALLOW: &[(&str, &[&str])] = &[
    (HOOK_CONFIG, HOOK_CONFIG_GLOBS),
    ("~/.ssh/config", &["**/.ssh/config"]),
    (
        "~/.ssh/known_hosts",
        &["**/.ssh/known_hosts", "**/.ssh/known_hosts.old"],
    ),
];

/// A process's environment, which holds every secret it was given (`/proc/self/environ`).
pub(super) const ENVIRON: &[&str] = &["/proc/*/environ", "/proc/*/task/*/environ"];

/// Keys whose value is a credential in an `.npmrc` or `.pypirc` (compared case-insensitively,
/// after the last `:` of npm's `//registry.example/:_authToken`).
const CREDENTIAL_KEYS: &[&str] = &[
    "_auth",
    "_authtoken",
    "_password",
    "password",
    "token",
    "authtoken",
];

/// The most bytes [`credential_in`] reads; a larger file is taken for a secret.
const MAX_CONTENT: u64 = 64 * 1024;

/// A compiled list of named rules ([`PathGlobs`]). Relative globs match the path relative to
/// the project root (or, outside it, the absolute path without its leading `/`); absolute ones
/// the absolute path.
#[derive(Debug, Clone)]
pub(super) struct Rules {
    names: Vec<String>,
    globs: PathGlobs,
    /// Relative globs also match paths outside the root (deny lists and builtin rules).
    relative_outside: bool,
}

impl Rules {
    /// The builtin `table`.
    pub(super) fn builtin(table: &[(&str, &[&str])]) -> Rules {
        let mut set = GlobSetBuilder::new();
        let (mut names, mut idx) = (Vec::new(), Vec::new());
        for (i, (name, globs)) in table.iter().enumerate() {
            names.push((*name).to_owned());
            for g in *globs {
                // The table is fixed and tested; a bad entry is skipped rather than panicking.
                if let Ok(glob) = GlobBuilder::new(g)
                    .literal_separator(true)
                    .case_insensitive(true)
                    .build()
                {
                    set.add(glob);
                    idx.push(i);
                }
            }
        }
        let set = set.build().unwrap_or_else(|_| GlobSet::empty());
        Rules {
            names,
            globs: PathGlobs::relative(set, idx),
            relative_outside: true,
        }
    }

    /// A configured list (`field`), compiled.
    pub(super) fn configured(
        field: &'static str,
        patterns: &[String],
        relative_outside: bool,
        home: Option<&Path>,
    ) -> Result<Rules, ConfigError> {
        Ok(Rules {
            names: patterns.to_vec(),
            globs: PathGlobs::compile(POLICY, field, patterns, true, home)?,
            relative_outside,
        })
    }

    /// The name of the first rule matching `subject`.
    pub(super) fn first_match(&self, subject: &Subject<'_>) -> Option<&str> {
        let rel = (subject.inside || self.relative_outside).then_some(&subject.relative);
        let i = self.globs.first(rel, &subject.absolute)?;
        self.names.get(i).map(String::as_str)
    }
}

/// A path to match against [`Rules`], prepared once for every list it is matched against.
pub(super) struct Subject<'a> {
    /// The path relative to the project root when it is inside, else without its leading `/`.
    relative: Candidate<'a>,
    /// Whether the path is inside the project root.
    inside: bool,
    absolute: Candidate<'a>,
}

impl<'a> Subject<'a> {
    /// `abs` (absolute, normalized) in a project rooted at `root`.
    pub(super) fn new(abs: &'a Path, root: &Path) -> Subject<'a> {
        let inside = paths::inside(abs, root);
        Subject {
            relative: Candidate::new(inside.unwrap_or_else(|| strip_root(abs))),
            inside: inside.is_some(),
            absolute: Candidate::new(abs),
        }
    }
}

/// `raw` as an absolute path without following symlinks: `~` expanded when there is a home
/// (else kept as a name), joined to `cwd`, `.` and `..` applied to the text.
pub(super) fn lexical(raw: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    // `C:\x`, `.\.claude`: as Git Bash reads them (`paths::windows_path`).
    let windows = paths::windows_path(raw);
    let raw = windows.as_deref().unwrap_or(raw);
    let expanded = match (raw.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_path_buf(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(raw),
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    paths::lexical(&joined)
}

/// A path resolved through symlinks ([`resolve`](crate::paths::resolve)); `Ok(None)` when it names another user's home
/// or `~` has nowhere to go (the lexical path is all there is to judge).
pub(super) fn resolved(
    resolution: Result<PathBuf, PathError>,
) -> Result<Option<PathBuf>, PathError> {
    match resolution {
        Ok(p) => Ok(Some(p)),
        Err(PathError::OtherUsersHome(_) | PathError::NoHome(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`ENVIRON`], compiled (an entry that does not compile is skipped: the table is fixed and
/// tested).
pub(super) fn environ() -> GlobSet {
    let mut set = GlobSetBuilder::new();
    for g in ENVIRON {
        if let Ok(glob) = GlobBuilder::new(g).literal_separator(true).build() {
            set.add(glob);
        }
    }
    set.build().unwrap_or_else(|_| GlobSet::empty())
}

/// How a glob taken from a call is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum GlobUse {
    /// One component of a shell word (`*.rs`): `*` stops at `/`, case as written.
    Word,
    /// A search tool's `glob`/`include` filter: case-insensitive.
    Filter,
}

/// Most compiled globs kept; past it the cache starts over (the patterns come from calls, so
/// their number is not ours to bound otherwise).
const MAX_CACHED_GLOBS: usize = 256;
/// Longest pattern kept, in bytes: a longer one is compiled for its call only, so that what the
/// cache holds stays small whatever the calls send.
const MAX_CACHED_PATTERN: usize = 256;

/// The globs of calls (`ls src/*.rs`, a `Grep` filter), compiled once per pattern: the same few
/// come back call after call, and compiling one costs more than the rest of a check.
#[derive(Debug, Default)]
pub(super) struct GlobCache {
    compiled: Mutex<HashMap<(GlobUse, String), Arc<GlobMatcher>>>,
}

impl GlobCache {
    /// `pattern` compiled for `used`, as `GlobBuilder` would compile it afresh.
    pub(super) fn get(
        &self,
        pattern: &str,
        used: GlobUse,
    ) -> Result<Arc<GlobMatcher>, globset::Error> {
        let compile = || {
            let mut builder = GlobBuilder::new(pattern);
            match used {
                GlobUse::Word => builder.literal_separator(true),
                GlobUse::Filter => builder.case_insensitive(true),
            };
            builder.build().map(|glob| Arc::new(glob.compile_matcher()))
        };
        if pattern.len() > MAX_CACHED_PATTERN {
            return compile();
        }
        let key = (used, pattern.to_owned());
        // A panic elsewhere while the lock was held leaves a map of whole entries.
        let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(matcher) = compiled.get(&key) {
            return Ok(Arc::clone(matcher));
        }
        let matcher = compile()?;
        if compiled.len() >= MAX_CACHED_GLOBS {
            compiled.clear();
        }
        compiled.insert(key, Arc::clone(&matcher));
        Ok(matcher)
    }
}

/// What a file of [`BUILTIN_CONTENT`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Content {
    /// No credential, or no file at all (nothing to read).
    Clean,
    /// A credential, under this key (the value is never shown).
    Credential(String),
    /// The file cannot be read, so it is taken for a secret: why.
    Unreadable(String),
}

/// Whether the `.npmrc`/`.pypirc`-style file at `path` holds a credential: a line
/// `key = value` or `key: value` whose key is one of [`CREDENTIAL_KEYS`] and whose value is
/// neither empty nor just a `${VARIABLE}` reference (npm reads those from the environment).
/// At most [`MAX_CONTENT`] bytes are read; a file that is larger, not a regular file, or
/// cannot be read is [`Content::Unreadable`], which the caller denies.
pub(super) fn credential_in(path: &Path) -> Content {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Content::Clean,
        Err(e) => return Content::Unreadable(e.to_string()),
    };
    // Checked before opening, so a FIFO or device named `.npmrc` cannot block the guard.
    if !meta.is_file() {
        return Content::Unreadable("not a regular file".to_owned());
    }
    let too_large = || Content::Unreadable(format!("larger than {MAX_CONTENT} bytes"));
    if meta.len() > MAX_CONTENT {
        return too_large();
    }
    let mut bytes = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| f.take(MAX_CONTENT + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return Content::Unreadable(e.to_string());
    }
    if bytes.len() as u64 > MAX_CONTENT {
        return too_large();
    }
    let text = String::from_utf8_lossy(&bytes);
    text.lines()
        .find_map(credential_line)
        .map_or(Content::Clean, Content::Credential)
}

/// The credential key of one line of an `.npmrc`/`.pypirc`, if it sets one.
fn credential_line(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with([';', '#', '[']) {
        return None;
    }
    // npm: `//host/:_authToken=…` (the key holds a `:`); INI: `password: …` or `password = …`.
    [line.split_once('='), line.split_once(':')]
        .into_iter()
        .flatten()
        .find_map(|(key, value)| {
            let name = key.trim().rsplit(':').next().unwrap_or_default();
            let value = value.trim().trim_matches(['"', '\'']);
            let is_key = CREDENTIAL_KEYS.iter().any(|k| name.eq_ignore_ascii_case(k));
            (is_key && !value.is_empty() && !is_reference(value)).then(|| name.to_owned())
        })
}

/// `${NAME}`: npm substitutes the environment variable; the file holds no secret itself.
fn is_reference(value: &str) -> bool {
    value
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .is_some_and(|name| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use globset::Glob;

    #[test]
    fn credential_lines_are_found_and_references_are_not_credentials() {
        for (line, key) in [
            ("//registry.npmjs.org/:_authToken=npm_abc", "_authToken"),
            (
                "  //npm.pkg.github.com/:_authToken = \"ghp_x\"",
                "_authToken",
            ),
            ("_auth=dXNlcjpwYXNz", "_auth"),
            ("//r.example/:_password=cGFzcw==", "_password"),
            ("password = pypi-AgEIcHlwaS5vcmc", "password"),
            ("password: hunter2", "password"),
            ("password:abc=def", "password"),
            ("TOKEN=x", "TOKEN"),
        ] {
            assert_eq!(credential_line(line).as_deref(), Some(key), "{line}");
        }
        for line in [
            "registry=https://registry.npmjs.org/",
            "engine-strict=true",
            "always-auth=true",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "_authToken=",
            "; password = x",
            "# _authToken=x",
            "[pypi]",
            "username = __token__",
            "repository: https://upload.pypi.org/legacy/",
            "",
        ] {
            assert_eq!(credential_line(line), None, "{line}");
        }
        assert!(is_reference("${NPM_TOKEN}"));
        assert!(!is_reference("${NPM_TOKEN}x"));
        assert!(!is_reference("${}"));
        assert!(!is_reference("$NPM_TOKEN"));
    }

    #[test]
    fn a_cached_glob_matches_as_a_fresh_one_and_the_cache_stays_bounded() {
        let cache = GlobCache::default();
        for (pattern, used, path, fresh) in [
            ("*.rs", GlobUse::Word, "main.rs", Glob::new("*.rs").unwrap()),
            (
                "*.RS",
                GlobUse::Filter,
                "src/main.rs",
                Glob::new("*.rs").unwrap(),
            ),
        ] {
            for _ in 0..2 {
                let cached = cache.get(pattern, used).unwrap();
                assert_eq!(
                    cached.is_match(path),
                    fresh.compile_matcher().is_match(path)
                );
            }
        }
        assert!(
            !cache
                .get("*.rs", GlobUse::Word)
                .unwrap()
                .is_match("src/main.rs")
        );
        assert!(cache.get("[", GlobUse::Word).is_err());
        for i in 0..(MAX_CACHED_GLOBS + 10) {
            cache.get(&format!("*.{i}"), GlobUse::Word).unwrap();
        }
        let long = "x".repeat(MAX_CACHED_PATTERN + 1) + "*";
        assert!(
            cache
                .get(&long, GlobUse::Word)
                .unwrap()
                .is_match(long.trim_end_matches('*'))
        );
        let held = cache.compiled.lock().unwrap();
        assert!(held.len() <= MAX_CACHED_GLOBS);
        assert!(held.keys().all(|(_, p)| p.len() <= MAX_CACHED_PATTERN));
    }

    #[test]
    fn every_environ_glob_compiles() {
        for g in ENVIRON {
            assert!(Glob::new(g).is_ok(), "{g}");
        }
        assert!(environ().is_match("/proc/self/environ"));
        assert!(!environ().is_match("/work/proc/self/environ"));
    }
}
