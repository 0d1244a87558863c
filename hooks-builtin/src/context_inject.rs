//! `context-inject`: decisions, notes and per-agent history injected at session start;
//! standing directives captured from prompts into the decisions file (seed 000, need 4:
//! "agents keep forgetting what we decided").
//!
//! # Points
//!
//! - `session_start`: the configured files are read and added, one context entry per file, to
//!   [`SessionStart::additional_context`]. The decisions file comes first (unless `files`
//!   lists it), so directives captured in one session reach the next.
//! - `subagent_start` (with `inject_subagents`, default on): the same files for the subagent,
//!   with `{agent}` its name; a subagent does not see its parent's context.
//! - `user_prompt_submit`: directives found in the prompt are recorded with
//!   [`UserPromptSubmit::add_directive`] (so later hooks see them) and appended to the
//!   decisions file. The policy never blocks a prompt ([`Verdict::Continue`]).
//!
//! # Files
//!
//! Each entry of `files` has a `path` (relative to the project root
//! [`meta.project_root()`](hookrail_core::context::Meta::project_root), absolute, or
//! `~/…`; resolved with [`crate::paths::resolve`], symlinks followed), an
//! optional `label`, an optional `max_bytes` cap and `keep: start | end` (which part survives
//! truncation; `end` suits logs and histories, whose newest lines are last). `{agent}` in a path
//! or label is replaced by the agent's name passed through [`sanitize_agent`], so an agent
//! named `../secrets` reads `.agents/___secrets/history.md`, never a file outside its directory.
//!
//! All files together give at most `max_total_bytes` of text, in order: a file that does not
//! fit is cut on a character boundary and says so with a `[… truncated N bytes]` line, and
//! the files after it get only that line. Invalid UTF-8 is read lossily. A missing file is
//! skipped (debug log); an unreadable one, a directory, a FIFO or a device is skipped with a
//! warning. Files are read synchronously when the session starts, so keep them small.
//!
//! Each entry is rendered as
//!
//! ```text
//! Decisions (.agents/decisions.md):
//! <contents>
//! ```
//!
//! # Directives
//!
//! [`detect_directives`] documents the heuristic: a sentence that starts with "always",
//! "never", "from now on", "going forward", "in (the) future", "don't ever" or "do not ever",
//! outside quotes and code, and is not a question. "never mind", "I never said that" and
//! "`\"always\"` is a keyword" are not directives. Each new directive is appended as one line,
//!
//! ```text
//! - 2025-06-01 (coder): never push to main
//! ```
//!
//! dated (UTC, from the prompt's timestamp) and attributed to the agent. A directive already in
//! the file (compared without case, spacing or punctuation) is not written again. The file and
//! its directories are created when missing (with a short header); each prompt's new lines go
//! out in one `O_APPEND` write, so concurrent sessions do not interleave lines. A write that
//! fails is logged and does not affect the prompt. The decisions file holds what users typed:
//! put a scrubbing hook that rewrites prompts before this one (a lower order) if prompts may
//! carry secrets; directives are read from the current, possibly rewritten, prompt.
//!
//! # What it does not do
//!
//! It does not understand language: a directive phrased without a trigger ("please stop
//! pushing to main") is missed, and a descriptive sentence that starts like one ("Always
//! green on CI, this one") can be captured; the decisions file is plain Markdown meant to be
//! reviewed and edited. It does not remove or reconcile contradicting directives. Two
//! sessions capturing the same new directive at the same instant may both write it.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::context_inject::{ContextInject, ContextInjectConfig};
//! use hookrail_core::context::{Meta, SessionStart, UserPromptSubmit};
//! use hookrail_core::points::{session_start, user_prompt_submit};
//! use hookrail_core::runtime::Hooks;
//!
//! let project = tempfile::tempdir()?;
//! let policy = ContextInject::new(ContextInjectConfig::default())?;
//! let hooks = Hooks::builder().ignore_env().provider_at(50, policy).build()?;
//! let meta = Meta::new("s1").with_agent("coder").with_cwd(project.path());
//!
//! // A prompt of session 1 carries a standing directive...
//! let mut prompt = UserPromptSubmit::new(meta, "Fix the build, and never push to main.");
//! assert!(!hooks.dispatch::<user_prompt_submit::Point>(&mut prompt).is_denied());
//! assert_eq!(prompt.directives, ["never push to main"]);
//!
//! // ...which session 2 starts with.
//! let meta = Meta::new("s2").with_agent("coder").with_cwd(project.path());
//! let mut start = SessionStart::new(meta, "claude-sonnet-4");
//! let _ = hooks.dispatch::<session_start::Point>(&mut start);
//! assert!(start.additional_context[0].starts_with("Decisions (.agents/decisions.md):"));
//! assert!(start.additional_context[0].contains("(coder): never push to main"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod directives;
mod files;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use hookrail_core::context::{Meta, SessionStart, SubagentStart, UserPromptSubmit};
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde::{Deserialize, Serialize};

use crate::ConfigError;
use crate::paths::{self, PathError};
use files::Loaded;
pub use files::sanitize_agent;

/// The policy's name in config files and errors.
pub const POLICY: &str = "context_inject";

/// The placeholder replaced by the (sanitized) agent name in paths and labels.
pub const AGENT_PLACEHOLDER: &str = "{agent}";

/// How much of an existing decisions file is read to find directives already recorded.
const MAX_DECISIONS_READ: u64 = 4 << 20;

/// The first lines of a decisions file this policy creates.
const DECISIONS_HEADER: &str = "# Decisions\n\nStanding directives captured from prompts by \
hookrail-builtin `context-inject` and injected at the start of every session. Edit or delete \
lines freely.\n\n";

/// Which part of a file is kept when it is truncated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// The beginning (notes, charters).
    #[default]
    Start,
    /// The end (histories and logs, whose newest entries are last).
    End,
}

/// A file injected at session start.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InjectFile {
    /// Relative to the project root (`meta.project_root()`), absolute, or `~/…`; `{agent}` is replaced by
    /// the sanitized agent name. Required.
    pub path: String,
    /// The heading the contents are shown under (`{agent}` is replaced too). Default: none
    /// (the path alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The most bytes taken from this file. Default: none (only `max_total_bytes` applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
    /// Which part is kept when the file is truncated. Default: `start`.
    #[serde(default)]
    pub keep: Keep,
}

impl InjectFile {
    /// The whole file at `path` (up to the total cap), shown under its path.
    pub fn new(path: impl Into<String>) -> Self {
        InjectFile {
            path: path.into(),
            label: None,
            max_bytes: None,
            keep: Keep::Start,
        }
    }

    /// Show the contents under `label`.
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Take at most `max_bytes` of the file, keeping `keep`.
    #[must_use]
    pub fn max_bytes(mut self, max_bytes: usize, keep: Keep) -> Self {
        self.max_bytes = Some(max_bytes);
        self.keep = keep;
        self
    }
}

/// Settings of [`ContextInject`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextInjectConfig {
    /// Files injected at session start, in order, after the decisions file. Default: the
    /// agent's history, `.agents/{agent}/history.md`, labelled `History of {agent}`, its
    /// last 8 KiB.
    pub files: Vec<InjectFile>,
    /// The most bytes of file contents injected in all. Default: 32768.
    pub max_total_bytes: usize,
    /// Where captured directives are appended (same path rules as `files`). Default:
    /// `.agents/decisions.md`.
    pub decisions_file: String,
    /// Inject the decisions file first at session start, labelled `Decisions`, keeping its
    /// end if it must be cut (newer directives supersede older ones); a `files` entry with the
    /// same path replaces this one. Default: true.
    pub inject_decisions: bool,
    /// Capture directives from prompts at `user_prompt_submit`. Default: true.
    pub capture_directives: bool,
    /// Inject the files at `subagent_start` too, with `{agent}` the subagent's name.
    /// Default: true.
    pub inject_subagents: bool,
}

impl Default for ContextInjectConfig {
    fn default() -> Self {
        ContextInjectConfig {
            files: vec![
                InjectFile::new(".agents/{agent}/history.md")
                    .label("History of {agent}")
                    .max_bytes(8 << 10, Keep::End),
            ],
            max_total_bytes: 32 << 10,
            decisions_file: ".agents/decisions.md".into(),
            inject_decisions: true,
            capture_directives: true,
            inject_subagents: true,
        }
    }
}

/// Appending directives to the decisions file failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The decisions file's path could not be resolved.
    #[error("decisions file: {0}")]
    Path(#[from] PathError),
    /// Reading, creating or appending to it failed.
    #[error("decisions file `{path}`: {source}")]
    Io {
        /// The resolved path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// The `context-inject` policy: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct ContextInject {
    config: ContextInjectConfig,
    /// The files injected, in order: the decisions file (when injected) and `files`.
    entries: Vec<InjectFile>,
}

impl ContextInject {
    /// Checks `config`: every path non-empty, without NUL and with no placeholder but
    /// `{agent}`; caps of at least one byte.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the field.
    pub fn new(config: ContextInjectConfig) -> Result<Self, ConfigError> {
        if config.max_total_bytes == 0 {
            return Err(ConfigError::new(
                POLICY,
                "max_total_bytes",
                "must be at least 1",
            ));
        }
        check_path(&config.decisions_file)
            .map_err(|m| ConfigError::new(POLICY, "decisions_file", m))?;
        for (i, f) in config.files.iter().enumerate() {
            check_path(&f.path)
                .map_err(|m| ConfigError::new(POLICY, format!("files[{i}].path"), m))?;
            if let Some(label) = &f.label {
                check_placeholders(label)
                    .map_err(|m| ConfigError::new(POLICY, format!("files[{i}].label"), m))?;
            }
            if f.max_bytes == Some(0) {
                return Err(ConfigError::new(
                    POLICY,
                    format!("files[{i}].max_bytes"),
                    "must be at least 1",
                ));
            }
        }
        let mut entries = Vec::with_capacity(config.files.len() + 1);
        if config.inject_decisions && !config.files.iter().any(|f| f.path == config.decisions_file)
        {
            entries.push(InjectFile {
                path: config.decisions_file.clone(),
                label: Some("Decisions".into()),
                max_bytes: None,
                keep: Keep::End,
            });
        }
        entries.extend(config.files.iter().cloned());
        Ok(ContextInject { config, entries })
    }

    /// The settings.
    pub fn config(&self) -> &ContextInjectConfig {
        &self.config
    }

    /// The context entries injected for `agent` in project root `root`: one per readable,
    /// non-empty file, in order, within the size caps.
    pub fn context_for(&self, agent: &str, root: &Path) -> Vec<String> {
        let home = paths::home_dir();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let mut remaining = self.config.max_total_bytes;
        let mut out = Vec::new();
        for entry in &self.entries {
            let shown = files::expand(&entry.path, agent);
            let path = match paths::resolve(&shown, root, home.as_deref()) {
                Ok(p) => p,
                Err(e) => {
                    tracing::warn!(policy = POLICY, path = %shown, error = %e, "context file skipped: its path cannot be resolved");
                    continue;
                }
            };
            if !seen.insert(path.clone()) {
                continue;
            }
            let limit = entry.max_bytes.unwrap_or(usize::MAX).min(remaining);
            let (text, truncated) = match files::load(&path, limit, entry.keep) {
                Ok(Loaded::Text { text, truncated }) => (text, truncated),
                Ok(Loaded::Missing) => {
                    tracing::debug!(policy = POLICY, path = %path.display(), "context file skipped: it does not exist");
                    continue;
                }
                Ok(Loaded::NotAFile) => {
                    tracing::warn!(policy = POLICY, path = %path.display(), "context file skipped: not a regular file");
                    continue;
                }
                Err(e) => {
                    tracing::warn!(policy = POLICY, path = %path.display(), error = %e, "context file skipped: it cannot be read");
                    continue;
                }
            };
            if text.trim().is_empty() && truncated == 0 {
                tracing::debug!(policy = POLICY, path = %path.display(), "context file skipped: it is empty");
                continue;
            }
            remaining = remaining.saturating_sub(text.len());
            out.push(render(entry, &shown, agent, &text, truncated));
        }
        out
    }

    /// Appends the `directives` not already in the decisions file to it, dated from
    /// `meta.timestamp_ms` and attributed to `meta.agent_name`, in one write. Returns how many
    /// lines were written.
    ///
    /// # Errors
    ///
    /// [`RecordError`] when the file cannot be resolved, read, created or appended to.
    pub fn record_directives(
        &self,
        meta: &Meta,
        directives: &[String],
    ) -> Result<usize, RecordError> {
        let shown = files::expand(&self.config.decisions_file, &meta.agent_name);
        // The project's file, wherever the event says the agent runs.
        let path = paths::resolve(&shown, meta.project_root(), paths::home_dir().as_deref())?;
        let io_err = |source| RecordError::Io {
            path: path.clone(),
            source,
        };
        let mut known = known_directives(&path).map_err(io_err)?;
        let date = utc_date(meta.timestamp_ms);
        let agent = sanitize_agent(&meta.agent_name);
        let mut lines = String::new();
        let mut written = 0;
        for d in directives {
            if known.insert(directives::key(d)) {
                let _ = writeln!(lines, "- {date} ({agent}): {d}");
                written += 1;
            }
        }
        if written == 0 {
            return Ok(0);
        }
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(io_err)?;
        }
        let mut batch = String::new();
        let mut file = match OpenOptions::new().append(true).create_new(true).open(&path) {
            Ok(f) => {
                batch.push_str(DECISIONS_HEADER);
                f
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let mut f = OpenOptions::new()
                    .read(true)
                    .append(true)
                    .open(&path)
                    .map_err(io_err)?;
                if !ends_with_newline(&mut f).map_err(io_err)? {
                    batch.push('\n');
                }
                f
            }
            Err(e) => return Err(io_err(e)),
        };
        batch.push_str(&lines);
        // One write of the whole batch: with O_APPEND, lines of concurrent sessions do not mix.
        file.write_all(batch.as_bytes()).map_err(io_err)?;
        Ok(written)
    }
}

/// The comparison keys of the directives already in the decisions file at `path` (none if
/// it does not exist). Lines written by this policy are compared without their date and
/// agent; other lines as they are, without a list marker.
fn known_directives(path: &Path) -> io::Result<HashSet<String>> {
    let mut bytes = Vec::new();
    match fs::File::open(path) {
        Ok(f) => {
            f.take(MAX_DECISIONS_READ).read_to_end(&mut bytes)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .map(|line| {
            let line = line.trim();
            let body = line
                .strip_prefix("- ")
                .or_else(|| line.strip_prefix("* "))
                .unwrap_or(line);
            let dated = body.len() > 10
                && body.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                && body.as_bytes()[4] == b'-';
            match body.find("): ") {
                Some(i) if dated => directives::key(&body[i + 3..]),
                _ => directives::key(body),
            }
        })
        .filter(|k| !k.is_empty())
        .collect())
}

/// Whether the (non-empty) file ends with a newline; an empty file counts as ending with one.
fn ends_with_newline(file: &mut fs::File) -> io::Result<bool> {
    if file.metadata()?.len() == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// One context entry: a heading line, then the text, with a note where text was cut.
fn render(entry: &InjectFile, shown: &str, agent: &str, text: &str, truncated: u64) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    match &entry.label {
        Some(label) => {
            let _ = writeln!(out, "{} ({shown}):", files::expand(label, agent));
        }
        None => {
            let _ = writeln!(out, "{shown}:");
        }
    }
    let note = format!("[… truncated {truncated} bytes]");
    if truncated > 0 && entry.keep == Keep::End {
        out.push_str(&note);
        out.push('\n');
    }
    out.push_str(text.trim_end_matches('\n'));
    if truncated > 0 && entry.keep == Keep::Start {
        if !text.is_empty() {
            out.push('\n');
        }
        out.push_str(&note);
    }
    out
}

/// A configured path: non-empty, no NUL, placeholders known.
fn check_path(path: &str) -> Result<(), String> {
    if path.trim().is_empty() {
        return Err("must not be empty".into());
    }
    if path.contains('\0') {
        return Err("must not contain a NUL byte".into());
    }
    check_placeholders(path)
}

/// Refuses `{name}` placeholders other than `{agent}` (a typo such as `{agent_name}` would
/// otherwise be read literally).
fn check_placeholders(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('}') else { break };
        let name = &rest[..close];
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name != "agent"
        {
            return Err(format!(
                "unknown placeholder `{{{name}}}`: only `{AGENT_PLACEHOLDER}` is supported"
            ));
        }
    }
    Ok(())
}

/// `YYYY-MM-DD` (UTC) of a Unix timestamp in milliseconds.
fn utc_date(timestamp_ms: u64) -> String {
    let days = i64::try_from(timestamp_ms / 86_400_000).unwrap_or(i64::MAX / 2);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The standing directives in `prompt`, in order, without duplicates (at most 16, each at
/// most 280 bytes, cut on a word boundary with `…`).
///
/// The heuristic, in order:
///
/// 1. Quoted text is ignored: fenced code blocks (```` ``` ```` or `~~~`), block-quote lines
///    (`> …`), inline code (`` `…` ``), and text in double quotes, curly quotes or single
///    quotes (an apostrophe inside a word, as in "don't", is not a quote). An unclosed quote
///    runs to the end of its line.
/// 2. The prompt is split into sentences at line breaks, `;`, and `.` `!` `?` followed by a
///    space or the end (so `Cargo.lock` does not end one), and sentences into clauses at `,`
///    `:` and ` - `. Questions (sentences ending in `?`) are skipped.
/// 3. A clause is a directive when it starts with a trigger, optionally after up to three
///    lead-ins: triggers are *always*, *never*, *from now on*, *going forward*, *in the
///    future*, *in future*, *don't ever*, *do not ever* (any case); lead-ins are *please*,
///    *and*, *also*, *but*, *so*, *ok(ay)*, *note*, *important*, *rule*, *nb*, *remember
///    (to)*, *make sure to/you/we*, *be sure to*, *you/we should*, *you/we must*, *you/we
///    need to*, *I want you to*. A trigger in the middle of a clause ("I never said that")
///    does not count.
/// 4. The word after the trigger must read as an instruction: not *mind*, *again*, an
///    article, a pronoun or a form of *be*/*have*/*do* ("never mind", "always the same",
///    "never been"), not a past tense ("we never tested": *-ed*, except *-eed*, *embed*,
///    *shed*, *shred*) and not a third person ("always fails": *-s*, except *-ss*, *-us*,
///    *-is*, *-as*).
/// 5. The directive runs from its clause to the end of the sentence or to the next
///    directive's clause. Subordinate clauses right before it stay with it ("If CI is red,
///    never merge"; they start with *if*, *when*, *before*, *unless*, *for*, *in*, …).
///    Framing lead-ins (*please*, *and*, *remember to*, …) are dropped from the text, modal
///    ones (*you must*) kept; whitespace is collapsed and trailing punctuation removed.
///
/// *Remember to …* alone is not a trigger: it is far more often a one-off reminder ("remember
/// to update the changelog") than a standing rule.
///
/// ```
/// use hookrail_builtin::context_inject::detect_directives;
///
/// assert_eq!(
///     detect_directives("Fix the tests, and never push to main. From now on, use pnpm!"),
///     ["never push to main", "From now on, use pnpm"]
/// );
/// assert!(detect_directives("never mind, I never said that").is_empty());
/// assert!(detect_directives("\"always\" is a keyword; does it always fail?").is_empty());
/// ```
pub fn detect_directives(prompt: &str) -> Vec<String> {
    directives::detect(prompt)
}

impl HooksProvider for ContextInject {
    fn name(&self) -> &str {
        "builtin.context_inject"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::SESSION_START | PointSet::SUBAGENT_START | PointSet::USER_PROMPT_SUBMIT
    }

    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        for text in self.context_for(&ctx.meta.agent_name, ctx.meta.project_root()) {
            ctx.add_context(text);
        }
        Ok(())
    }

    fn subagent_start(&self, ctx: &mut SubagentStart) -> HookResult<Verdict> {
        if self.config.inject_subagents {
            for text in self.context_for(&ctx.subagent_name, ctx.meta.project_root()) {
                ctx.add_context(text);
            }
        }
        Ok(Verdict::Continue)
    }

    fn user_prompt_submit(&self, ctx: &mut UserPromptSubmit) -> HookResult<Verdict> {
        if !self.config.capture_directives {
            return Ok(Verdict::Continue);
        }
        let found = detect_directives(ctx.prompt.get());
        if found.is_empty() {
            return Ok(Verdict::Continue);
        }
        for d in &found {
            if !ctx.directives.contains(d) {
                ctx.add_directive(d.clone());
            }
        }
        match self.record_directives(&ctx.meta, &found) {
            Ok(n) => tracing::debug!(
                policy = POLICY,
                found = found.len(),
                written = n,
                "directives captured"
            ),
            Err(e) => {
                tracing::warn!(policy = POLICY, error = %e, "directives not written to the decisions file")
            }
        }
        Ok(Verdict::Continue)
    }
}

#[cfg(test)]
mod tests;
