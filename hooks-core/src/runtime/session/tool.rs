//! Tool calls through a [`Session`]: [`Session::tool_call`], its result [`ToolRun`] and the
//! tool's typed error [`ToolError`].

use std::future::Future;
use std::time::Instant;

use serde_json::Value;

use crate::context::{Content, ContentBlock, PostToolUse, PreToolUse, SUPPRESSED_OUTPUT, ToolCall};
use crate::outcome::{BoxError, HookName};
use crate::points;
use crate::signal::TurnReady;

use super::{Session, SessionError, WRITE_TOOLS, closed, millis};

/// What kind of failure a [`ToolError`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The tool ran and failed.
    #[default]
    Failed,
    /// The input does not fit the tool (a missing field, a bad value): the model should
    /// correct the call.
    InvalidInput,
    /// The user or the runtime interrupted the tool (Claude Code's `is_interrupt`).
    Interrupted,
    /// The tool ran out of time.
    TimedOut,
}

/// A tool's failure, as the closure given to [`Session::tool_call`] returns it.
///
/// Its message is what the model and the `post_tool_use` hooks see ([`PostToolUse::error`]);
/// an [`Interrupted`](ToolErrorKind::Interrupted) failure also sets
/// [`PostToolUse::is_interrupt`]. `?` converts strings and I/O errors into it.
///
/// ```
/// use hookrail_core::runtime::{ToolError, ToolErrorKind};
///
/// let e = ToolError::invalid_input("`command` is missing");
/// assert_eq!((e.kind, e.to_string().as_str()), (ToolErrorKind::InvalidInput, "`command` is missing"));
/// let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer in 30 s");
/// assert_eq!(ToolError::from(io).kind, ToolErrorKind::TimedOut);
/// assert_eq!(ToolError::from("exit code 1").kind, ToolErrorKind::Failed);
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ToolError {
    /// What kind of failure.
    pub kind: ToolErrorKind,
    /// The message for the model.
    pub message: String,
    /// The underlying error, when there is one.
    #[source]
    pub source: Option<BoxError>,
}

impl ToolError {
    /// The tool failed: `message` says how.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::of_kind(ToolErrorKind::Failed, message)
    }

    /// A failure of `kind`.
    pub fn of_kind(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// The input does not fit the tool.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        ToolError::of_kind(ToolErrorKind::InvalidInput, message)
    }

    /// The tool was interrupted.
    pub fn interrupted(message: impl Into<String>) -> Self {
        ToolError::of_kind(ToolErrorKind::Interrupted, message)
    }

    /// The tool failed because of `error`; its text is the message and it stays the source.
    pub fn from_error(kind: ToolErrorKind, error: impl Into<BoxError>) -> Self {
        let error = error.into();
        ToolError {
            kind,
            message: error.to_string(),
            source: Some(error),
        }
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        let kind = match error.kind() {
            std::io::ErrorKind::TimedOut => ToolErrorKind::TimedOut,
            std::io::ErrorKind::Interrupted => ToolErrorKind::Interrupted,
            std::io::ErrorKind::InvalidInput => ToolErrorKind::InvalidInput,
            _ => ToolErrorKind::Failed,
        };
        ToolError::from_error(kind, error)
    }
}

/// The result of [`Session::tool_call`]: the tool ran, or a guard stopped it.
///
/// Exhaustive on purpose: whether the tool ran is a decision every caller must handle, and a
/// new case must be a compile error at each `match`, never a silent `_` arm (see
/// docs/decisions.md, "Which public enums are `#[non_exhaustive]`"). The variants' fields may
/// grow, so match `Denied` with `..`.
#[derive(Debug)]
pub enum ToolRun {
    /// The tool ran; the `post_tool_use` context after its transforms (a scrubbed response,
    /// added context, the error if the tool failed, the duration, the call's id, and whether
    /// a hook withheld the output from the model: [`ToolRun::output_suppressed`]).
    Ran(Box<PostToolUse>),
    /// A guard denied the call (or asked and nobody approved); the tool did not run. Report
    /// `reason` to the model ([`ToolRun::tool_result`] does).
    #[non_exhaustive]
    Denied {
        /// The deciding hook.
        by: Option<HookName>,
        /// The reason.
        reason: String,
        /// True when a failing guard caused the deny.
        failure: bool,
        /// The call's id, when it had one.
        tool_use_id: Option<String>,
    },
}

impl ToolRun {
    /// The call's id, when it had one.
    pub fn tool_use_id(&self) -> Option<&str> {
        match self {
            ToolRun::Ran(post) => post.tool_use_id.as_deref(),
            ToolRun::Denied { tool_use_id, .. } => tool_use_id.as_deref(),
        }
    }

    /// True when the tool ran and a `post_tool_use` hook asked to keep its output from the
    /// model ([`PostToolUse::output_suppressed`]).
    pub fn output_suppressed(&self) -> bool {
        matches!(self, ToolRun::Ran(post) if post.output_suppressed)
    }

    /// The `tool_result` block that answers the call, for the next message to the model:
    /// the response (a string as is, other JSON as its text) followed by the context the
    /// `post_tool_use` hooks added; the error if the tool failed; the reason if it was denied
    /// (both with `is_error`). `None` when the call had no id to answer.
    ///
    /// When a `post_tool_use` hook suppressed the output
    /// ([`PostToolUse::output_suppressed`], seed 000 `suppressOutput`), the response or error
    /// is replaced by [`SUPPRESSED_OUTPUT`] (a response's is still followed by the added
    /// context; a failure's is still `is_error`): the model learns that the call ran, not
    /// what it returned.
    ///
    /// ```
    /// # use hookrail_core::context::{ContentBlock, Meta, PostToolUse, SUPPRESSED_OUTPUT};
    /// # use hookrail_core::runtime::ToolRun;
    /// # use serde_json::json;
    /// let mut post = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("API_KEY=abc"), 3);
    /// post.tool_use_id = Some("toolu_01B".into());
    /// post.suppress_output();
    /// let run = ToolRun::Ran(Box::new(post));
    /// assert!(run.output_suppressed());
    /// assert_eq!(run.tool_result().unwrap(), ContentBlock::tool_result("toolu_01B", SUPPRESSED_OUTPUT));
    /// ```
    ///
    /// ```
    /// # use hookrail_core::context::{ContentBlock, Meta, PostToolUse};
    /// # use hookrail_core::runtime::ToolRun;
    /// # use serde_json::json;
    /// let mut post = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("fn main() {}"), 3);
    /// post.tool_use_id = Some("toolu_01A".into());
    /// let block = ToolRun::Ran(Box::new(post)).tool_result().unwrap();
    /// assert_eq!(block, ContentBlock::tool_result("toolu_01A", "fn main() {}"));
    /// ```
    pub fn tool_result(&self) -> Option<ContentBlock> {
        let id = self.tool_use_id()?.to_owned();
        Some(match self {
            ToolRun::Denied { reason, .. } => ContentBlock::tool_error(id, reason.clone()),
            ToolRun::Ran(post) => match &post.error {
                Some(_) if post.output_suppressed => {
                    ContentBlock::tool_error(id, SUPPRESSED_OUTPUT)
                }
                Some(error) => ContentBlock::tool_error(id, error.clone()),
                None => {
                    let response = match &post.tool_response {
                        _ if post.output_suppressed => SUPPRESSED_OUTPUT.to_owned(),
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let content = if post.additional_context.is_empty() {
                        Content::Text(response)
                    } else {
                        let added = post.additional_context.iter().cloned();
                        Content::Blocks(
                            std::iter::once(response)
                                .chain(added)
                                .map(ContentBlock::text)
                                .collect(),
                        )
                    };
                    ContentBlock::tool_result(id, content)
                }
            },
        })
    }
}

impl Session {
    /// One tool call the model made: `pre_tool_use` (which may deny, ask, or rewrite the
    /// input) and the `ability_guard` signals its hooks emitted (the first `ABILITY_DENIED`
    /// refuses the call: with `require_human` unless the approver agrees, without it the tool
    /// is also disabled for the rest of the session, see
    /// [`disabled_tools`](Session::disabled_tools)), then `run` with the input as the guards
    /// left it, unless denied, then
    /// `post_tool_use` with the response (or error) and the duration. The call's id is the
    /// `tool_use_id` of both contexts (an empty id counts as none), so hooks, subscribers and
    /// the audit can tie the call to its result.
    ///
    /// `run` is an async closure that borrows the input: no clone is needed to use it across
    /// an `.await`.
    ///
    /// ```
    /// use hookrail_core::context::{Meta, ToolCall};
    /// use hookrail_core::runtime::{Hooks, Session, ToolError, ToolRun};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut session = Session::start(Hooks::builder().build()?, Meta::new("s1"), "m").await?;
    /// let call = ToolCall::new("toolu_01A", "Read", json!({"file_path": "Cargo.toml"}));
    /// let run = session
    ///     .tool_call(call, async |input| {
    ///         let path = input["file_path"].as_str().ok_or(ToolError::invalid_input("no file_path"))?;
    ///         Ok(json!(format!("read {path}")))
    ///     })
    ///     .await?;
    /// let ToolRun::Ran(post) = &run else { unreachable!("no guard is installed") };
    /// assert_eq!(post.tool_use_id.as_deref(), Some("toolu_01A"));
    /// assert_eq!(post.tool_response, json!("read Cargo.toml"));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`SessionError::FailedClosed`] when a `post_tool_use` hook set to fail closed failed.
    /// A denial is not an error: it is [`ToolRun::Denied`], to report to the model.
    pub async fn tool_call<F>(&mut self, call: ToolCall, run: F) -> Result<ToolRun, SessionError>
    where
        F: AsyncFnOnce(&Value) -> Result<Value, ToolError>,
    {
        let ToolCall { id, name, input } = call;
        let mut pre = PreToolUse::new(self.meta.next(), name, input);
        pre.tool_use_id = (!id.is_empty()).then_some(id);
        self.run_tool(pre, run).await
    }

    /// One tool call without an id: as [`tool_call`](Session::tool_call), with
    /// `tool_use_id` left empty and a `String` error.
    ///
    /// # Errors
    ///
    /// As [`tool_call`](Session::tool_call).
    #[deprecated(
        note = "use `Session::tool_call(ToolCall::new(id, name, input), async |input| ...)`: it \
                carries the provider's tool-use id to hooks and the audit, the closure borrows \
                the input, and the error is a `ToolError`"
    )]
    pub async fn tool<F, Fut>(
        &mut self,
        name: &str,
        input: Value,
        run: F,
    ) -> Result<ToolRun, SessionError>
    where
        F: FnOnce(&Value) -> Fut,
        Fut: Future<Output = Result<Value, String>>,
    {
        let pre = PreToolUse::new(self.meta.next(), name, input);
        self.run_tool(pre, async move |input: &Value| {
            run(input).await.map_err(ToolError::new)
        })
        .await
    }

    async fn run_tool<F>(&mut self, pre: PreToolUse, run: F) -> Result<ToolRun, SessionError>
    where
        F: AsyncFnOnce(&Value) -> Result<Value, ToolError>,
    {
        let mut pre = pre;
        if let Some(reason) = self.disabled_reason(&pre.tool_name) {
            // Disabled by an earlier `ABILITY_DENIED`: refused before any hook runs.
            self.stats.denied_tool_calls += 1;
            self.set_turn_ready(TurnReady::for_ability(&pre.tool_name, false, Vec::new()));
            return Ok(ToolRun::Denied {
                by: None,
                reason,
                failure: false,
                tool_use_id: pre.tool_use_id,
            });
        }
        let out = self
            .hooks
            .dispatch_async::<points::pre_tool_use::Point>(&mut pre)
            .await;
        let passed = match self.pass("pre_tool_use", out) {
            Ok(()) => self.enforce_guards(&pre.tool_name, &pre.hook_signals),
            denied => denied,
        };
        let ready =
            TurnReady::for_ability(&pre.tool_name, passed.is_ok(), pre.hook_signals.clone());
        self.set_turn_ready(ready);
        if let Err(SessionError::Denied {
            by,
            reason,
            failure,
            ..
        }) = passed
        {
            self.stats.denied_tool_calls += 1;
            return Ok(ToolRun::Denied {
                by,
                reason,
                failure,
                tool_use_id: pre.tool_use_id,
            });
        }
        let started = Instant::now();
        let result = run(pre.tool_input.get()).await;
        let duration = millis(started.elapsed());
        let (response, error) = match result {
            Ok(v) => (v, None),
            Err(e) => (Value::Null, Some(e)),
        };
        let mut post = PostToolUse::after(&pre, response, duration);
        if let Some(error) = error {
            tracing::debug!(tool = %pre.tool_name, kind = ?error.kind, error = %error, "tool failed");
            post.is_interrupt = error.kind == ToolErrorKind::Interrupted;
            post.error = Some(error.message);
        }
        self.stats.tool_calls += 1;
        if post.error.is_none()
            && WRITE_TOOLS.contains(&pre.tool_name.as_str())
            && let Some(path) = pre.file_path()
        {
            self.stats.files_modified.insert(path.to_owned());
        }
        let out = self
            .hooks
            .dispatch_async::<points::post_tool_use::Point>(&mut post)
            .await;
        closed(out)?;
        Ok(ToolRun::Ran(Box::new(post)))
    }
}
