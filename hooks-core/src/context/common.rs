use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The fields every context shares: who is running, where, and when.
///
/// Cloning is cheap (reference-counted strings), so an agent loop keeps one `Meta` per session
/// and stamps a copy into each context with [`Meta::next`].
///
/// # Project root and working directory
///
/// [`cwd`](Self::cwd) is where the agent runs: relative paths in tool calls start there. It
/// comes from the event (Claude Code's payload `cwd`), so whoever writes the event chooses it.
/// [`project_dir`](Self::project_dir) is the project root as the caller knows it
/// (`CLAUDE_PROJECT_DIR`, `--project`, the project file's directory); it is never read from an
/// event (it is not part of any wire format), so an event that says `cwd: /usr` does not make
/// `/usr` the project. Policies that protect "the project" use [`project_root`](Self::project_root):
/// the project dir when it is set, else `cwd` (a library user who sets only `cwd` keeps the
/// behaviour of earlier versions).
///
/// ```
/// use hookrail_core::context::Meta;
/// use std::path::Path;
///
/// let from_event = Meta::new("s1").with_cwd("/usr");
/// assert_eq!(from_event.project_root(), Path::new("/usr"));
/// let rooted = from_event.with_project_dir("/work/project");
/// assert_eq!(rooted.project_root(), Path::new("/work/project"));
/// assert_eq!(&*rooted.cwd, Path::new("/usr"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Meta {
    /// The session's id (Claude Code `session_id`).
    pub session_id: Arc<str>,
    /// The name of the agent that runs the session (Squad `agentName`, GWI `agentRole`).
    #[serde(default = "default_agent")]
    pub agent_name: Arc<str>,
    /// The working directory (Claude Code `cwd`, Squad `teamRoot`): where relative paths
    /// start. It is the project root too only when [`project_dir`](Self::project_dir) is not
    /// set; see [`project_root`](Self::project_root).
    pub cwd: Arc<Path>,
    /// The project root, as the caller knows it (an agent's project directory, a `--project`
    /// flag, the directory of the project file), never from the event: not serialized nor
    /// deserialized. `None`: [`cwd`](Self::cwd) is the root.
    #[serde(skip)]
    pub project_dir: Option<Arc<Path>>,
    /// When the event happened, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub timestamp_ms: u64,
    /// The turn (user prompt) number within the session, from 0.
    #[serde(default)]
    pub turn: u32,
    /// What started the work (seed 003 `caller.source`). Sent as `invocation_source`, because
    /// `source` is Claude Code's `SessionStart` field.
    #[serde(default, rename = "invocation_source")]
    pub source: InvocationSource,
    /// The tenant, for multi-tenant services (GWI `tenantId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<Arc<str>>,
    /// Where the transcript is stored (Claude Code `transcript_path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<Arc<Path>>,
    /// The permission mode (Claude Code `permission_mode`: `default`, `plan`, `acceptEdits`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<Arc<str>>,
}

/// `true`, for `#[serde(default = …)]` of flags that hold unless an event says otherwise.
pub(crate) fn yes() -> bool {
    true
}

fn default_agent() -> Arc<str> {
    Arc::from("agent")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Meta {
    /// Metadata for session `session_id`: agent `"agent"`, the process's current directory,
    /// turn 0, source [`InvocationSource::AiSession`], timestamped now.
    pub fn new(session_id: impl Into<Arc<str>>) -> Self {
        let cwd = std::env::current_dir().unwrap_or_default();
        Meta {
            session_id: session_id.into(),
            agent_name: default_agent(),
            cwd: Arc::from(cwd.as_path()),
            project_dir: None,
            timestamp_ms: now_ms(),
            turn: 0,
            source: InvocationSource::AiSession,
            tenant: None,
            transcript_path: None,
            permission_mode: None,
        }
    }

    /// Set the agent name.
    pub fn with_agent(mut self, name: impl Into<Arc<str>>) -> Self {
        self.agent_name = name.into();
        self
    }

    /// Set the working directory (the project root too, unless
    /// [`with_project_dir`](Self::with_project_dir) sets one).
    pub fn with_cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        self.cwd = Arc::from(cwd.as_ref());
        self
    }

    /// Set the project root, which [`project_root`](Self::project_root) then returns whatever
    /// `cwd` says.
    pub fn with_project_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.project_dir = Some(Arc::from(dir.as_ref()));
        self
    }

    /// The project root: [`project_dir`](Self::project_dir) when it is set, else
    /// [`cwd`](Self::cwd).
    pub fn project_root(&self) -> &Path {
        self.project_dir.as_deref().unwrap_or(&self.cwd)
    }

    /// Set the tenant.
    pub fn with_tenant(mut self, tenant: impl Into<Arc<str>>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// Set the invocation source.
    pub fn with_source(mut self, source: InvocationSource) -> Self {
        self.source = source;
        self
    }

    /// Set the turn number.
    pub fn with_turn(mut self, turn: u32) -> Self {
        self.turn = turn;
        self
    }

    /// A copy stamped with the current time, for the next event of the session.
    pub fn next(&self) -> Self {
        Meta {
            timestamp_ms: now_ms(),
            ..self.clone()
        }
    }
}

/// What started the agent's work (seed 003's `InvocationSource`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InvocationSource {
    /// An interactive AI session.
    #[default]
    AiSession,
    /// A background job.
    BackgroundJob,
    /// A CI pipeline.
    CiPipeline,
    /// A person at the command line.
    ManualCli,
}

impl InvocationSource {
    /// Every source, in the seed's order.
    pub const ALL: [InvocationSource; 4] = [
        InvocationSource::AiSession,
        InvocationSource::BackgroundJob,
        InvocationSource::CiPipeline,
        InvocationSource::ManualCli,
    ];

    /// The seed's name: `ai_session`, `background_job`, `ci_pipeline` or `manual_cli`.
    pub const fn as_str(self) -> &'static str {
        match self {
            InvocationSource::AiSession => "ai_session",
            InvocationSource::BackgroundJob => "background_job",
            InvocationSource::CiPipeline => "ci_pipeline",
            InvocationSource::ManualCli => "manual_cli",
        }
    }
}

impl std::fmt::Display for InvocationSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The error of parsing an [`InvocationSource`]: the text is none of the seed's names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown invocation source `{0}`; expected `ai_session`, `background_job`, `ci_pipeline` or `manual_cli`"
)]
pub struct UnknownSource(pub String);

impl std::str::FromStr for InvocationSource {
    type Err = UnknownSource;

    /// ```
    /// use hookrail_core::context::InvocationSource;
    ///
    /// assert_eq!("ci_pipeline".parse(), Ok(InvocationSource::CiPipeline));
    /// assert!("cron".parse::<InvocationSource>().unwrap_err().to_string().contains("`background_job`"));
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        InvocationSource::ALL
            .into_iter()
            .find(|source| source.as_str() == s)
            .ok_or_else(|| UnknownSource(s.to_owned()))
    }
}

/// Token counts of a model call, a subagent or a session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenUsage {
    /// Prompt (input) tokens.
    pub input: u64,
    /// Completion (output) tokens.
    pub output: u64,
}

impl TokenUsage {
    /// Usage of `input` prompt and `output` completion tokens.
    pub const fn new(input: u64, output: u64) -> Self {
        TokenUsage { input, output }
    }

    /// Input plus output.
    pub const fn total(&self) -> u64 {
        self.input.saturating_add(self.output)
    }
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, rhs: Self) {
        self.input = self.input.saturating_add(rhs.input);
        self.output = self.output.saturating_add(rhs.output);
    }
}

/// A value that hooks may rewrite, with the original kept beside it.
///
/// Claude Code hands later hooks only the rewritten tool input; here the original stays
/// readable ([`original`](Self::original)) after any number of rewrites. The original is saved
/// on the first write, so an untouched value costs nothing extra.
///
/// It serializes as the current value.
///
/// ```
/// use hookrail_core::context::Rewritable;
///
/// let mut cmd = Rewritable::new(String::from("rm -rf build"));
/// cmd.set("rm -rf ./build".into());
/// assert_eq!(cmd.get(), "rm -rf ./build");
/// assert_eq!(cmd.original(), "rm -rf build");
/// assert!(cmd.is_rewritten());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewritable<T> {
    current: T,
    original: Option<T>,
}

impl<T> Rewritable<T> {
    /// An unrewritten value.
    pub const fn new(value: T) -> Self {
        Rewritable {
            current: value,
            original: None,
        }
    }

    /// The current value.
    pub fn get(&self) -> &T {
        &self.current
    }

    /// The value before any rewrite.
    pub fn original(&self) -> &T {
        self.original.as_ref().unwrap_or(&self.current)
    }

    /// True once the value has been written.
    pub fn is_rewritten(&self) -> bool {
        self.original.is_some()
    }

    /// Replace the value, keeping the original.
    pub fn set(&mut self, value: T) {
        let previous = std::mem::replace(&mut self.current, value);
        if self.original.is_none() {
            self.original = Some(previous);
        }
    }

    /// The current value.
    pub fn into_inner(self) -> T {
        self.current
    }
}

impl<T: Clone> Rewritable<T> {
    /// Mutable access to the value; the first call saves a copy of the original.
    pub fn get_mut(&mut self) -> &mut T {
        if self.original.is_none() {
            self.original = Some(self.current.clone());
        }
        &mut self.current
    }
}

impl<T> std::ops::Deref for Rewritable<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.current
    }
}

impl<T> From<T> for Rewritable<T> {
    fn from(value: T) -> Self {
        Rewritable::new(value)
    }
}

impl<T: Serialize> Serialize for Rewritable<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.current.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Rewritable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Rewritable::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewritable_keeps_the_first_original_across_rewrites() {
        let mut v = Rewritable::new(1);
        assert!(!v.is_rewritten());
        v.set(2);
        v.set(3);
        *v.get_mut() += 1;
        assert_eq!((*v.get(), *v.original()), (4, 1));
    }

    #[test]
    fn rewritable_serializes_as_the_current_value() {
        let mut v = Rewritable::new("a".to_owned());
        v.set("b".into());
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"b\"");
        let back: Rewritable<String> = serde_json::from_str("\"b\"").unwrap();
        assert!(!back.is_rewritten());
    }

    #[test]
    fn meta_round_trips_through_json_with_snake_case_fields() {
        let m = Meta::new("s1")
            .with_agent("coder")
            .with_tenant("acme")
            .with_turn(3);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["session_id"], "s1");
        assert_eq!(json["agent_name"], "coder");
        assert_eq!(json["tenant"], "acme");
        assert_eq!(json["invocation_source"], "ai_session");
        let back: Meta = serde_json::from_value(json).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn invocation_source_names_are_the_serde_names_and_parse_back() {
        for source in InvocationSource::ALL {
            let json = serde_json::to_value(source).unwrap();
            assert_eq!(json, source.as_str());
            assert_eq!(source.as_str().parse::<InvocationSource>(), Ok(source));
        }
        assert_eq!(
            "cron".parse::<InvocationSource>(),
            Err(UnknownSource("cron".into()))
        );
    }

    #[test]
    fn project_dir_is_never_read_from_nor_written_to_the_wire() {
        let m = Meta::new("s1")
            .with_cwd("/work/p/sub")
            .with_project_dir("/work/p");
        assert_eq!(m.project_root(), Path::new("/work/p"));
        let json = serde_json::to_value(&m).unwrap();
        assert!(json.get("project_dir").is_none(), "{json}");
        // An event cannot choose the root: a `project_dir` field in it is ignored.
        let mut event = json;
        event["project_dir"] = "/".into();
        let back: Meta = serde_json::from_value(event).unwrap();
        assert_eq!(back.project_dir, None);
        assert_eq!(back.project_root(), Path::new("/work/p/sub"));
    }
}
