//! One dispatch of the configured hooks of a point: choose, gate, run, merge.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use hookrail_core::HookError;
use serde_json::Value;

use super::event::{CommandEvent, CommandRun, CommandSkipped, RunStatus};
use super::{EnvOverride, HookSet, Member, READ_CAP, Shared};
use crate::command::run::{CommandRequest, ExitStatusKind, run_command};
use crate::matcher::EventFacts;
use crate::protocol::{self, Answer, Decision, Merged, OUTPUT_CAP};
use crate::spec::{Handler, HookSpec, OnError, OnUnapproved};
use crate::trust::Admission;

/// What one hook came to.
pub(super) enum Reply {
    /// Its answer, to apply (boxed: an answer is large, and how large depends on
    /// serde_json's map, which `preserve_order` makes larger).
    Answer(Box<Answer>),
    /// Nothing to apply: failed open, or non-blocking.
    Nothing,
    /// The gate kept it from running and that decides nothing: this notice says so.
    Skipped(String),
}

/// What the hooks of one event came to: the merged answers of those that answered, the
/// first hook (in `(order, id)` order) that failed closed, if one did, and the notices of
/// hooks that were skipped without deciding.
pub(crate) struct Ran {
    pub(crate) merged: Merged,
    pub(crate) failure: Option<HookError>,
    pub(crate) notices: Vec<String>,
    /// The id of the hook whose failure or answer decided, for the outcome's `decided_by`
    /// (the core only knows the entry, `config`).
    pub(crate) decided_by: Option<String>,
}

impl Shared {
    /// Runs the hooks of `point` that match `input` (the hook input of the context) and
    /// merges their answers. The hooks get `sent` (the payload the agent sent, with earlier
    /// hooks' rewrites) when there is one, `input` otherwise.
    pub(crate) async fn run(
        self: &Arc<Self>,
        point: &'static str,
        input: Value,
        sent: Option<Value>,
    ) -> Ran {
        let done = |merged, failure| Ran {
            merged,
            failure,
            notices: Vec::new(),
            decided_by: None,
        };
        let set = self.set.load_full();
        let Some(members) = set.points.get(point) else {
            return done(Merged::default(), None);
        };
        let facts_paths = changed_paths(&input);
        let original = super::notices::payload(point);
        let facts = facts(
            point,
            &input,
            original.as_deref(),
            &facts_paths,
            &self.options.project_dir,
        );
        let mut matching: Vec<Arc<Member>> = Vec::new();
        for m in members.iter().filter(|m| m.matcher.matches(&facts)) {
            // Claude Code runs a handler declared twice once; copies that differ in how their
            // answers and failures count both run.
            if !matching.iter().any(|k| same_run(&k.spec, &m.spec)) {
                matching.push(m.clone());
            }
        }
        if matching.is_empty() {
            return done(Merged::default(), None);
        }
        // Read here, on the dispatching task: the hooks may run on tasks of their own.
        let env = super::notices::env();
        let mut input = sent.unwrap_or(input);
        let body = match to_body(&input) {
            Ok(body) => body,
            Err(e) => return done(Merged::default(), Some(e)),
        };
        if INFRA_POINTS.contains(&point) {
            // Seed 003: non-blocking hooks of the infra-only points never delay the loop.
            let (background, blocking): (Vec<_>, Vec<_>) =
                matching.into_iter().partition(|m| !m.spec.blocking);
            if !background.is_empty() {
                self.spawn_background(&set, background, point, &body, env.clone());
            }
            if blocking.is_empty() {
                return done(Merged::default(), None);
            }
            matching = blocking;
        }
        if set.sequential {
            let mut answers = Vec::new();
            let mut ids = Vec::new();
            let mut rewrites = (None, None);
            let mut failure = None;
            let mut failed = None;
            let mut notices = Vec::new();
            let mut body = body;
            for member in matching {
                let reply = match self
                    .run_one(&set, &member, point, &body, env.as_deref())
                    .await
                {
                    Ok(reply) => reply,
                    Err(e) => {
                        failure = Some(e);
                        failed = Some(member.spec.id.clone());
                        break;
                    }
                };
                let answer = match reply {
                    Reply::Answer(answer) => *answer,
                    Reply::Nothing => continue,
                    Reply::Skipped(notice) => {
                        notices.push(notice);
                        continue;
                    }
                };
                let stops = answer.decision == Decision::Deny
                    || (answer.stop.is_some() && member.guard && point != "stop");
                // Chain: the next hook sees this one's rewrite.
                let rewrote = answer.updated_input.is_some() || answer.updated_output.is_some();
                if let Some(new) = &answer.updated_input {
                    input["tool_input"] = Value::Object(new.clone());
                    rewrites.0 = answer.updated_input.clone();
                }
                if let Some(new) = &answer.updated_output {
                    input["tool_response"] = new.clone();
                    rewrites.1 = answer.updated_output.clone();
                }
                answers.push(answer);
                ids.push(member.spec.id.clone());
                if stops {
                    break;
                }
                if rewrote {
                    body = match to_body(&input) {
                        Ok(body) => body,
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    };
                }
            }
            let mut merged = protocol::merge(answers);
            (merged.answer.updated_input, merged.answer.updated_output) = rewrites;
            merged.dropped_rewrites = 0;
            let decided_by = failed.or_else(|| merged.decided_by.map(|i| ids[i].clone()));
            Ran {
                merged,
                failure,
                notices,
                decided_by,
            }
        } else {
            let body: Arc<[u8]> = body.into();
            let mut tasks = tokio::task::JoinSet::new();
            for (i, member) in matching.iter().enumerate() {
                let (shared, set, member, body, env) = (
                    self.clone(),
                    set.clone(),
                    member.clone(),
                    body.clone(),
                    env.clone(),
                );
                tasks.spawn(async move {
                    let reply = shared
                        .run_one(&set, &member, point, body, env.as_deref())
                        .await;
                    (i, reply)
                });
            }
            let mut replies: Vec<Option<Result<Reply, HookError>>> =
                (0..matching.len()).map(|_| None).collect();
            while let Some(joined) = tasks.join_next().await {
                match joined {
                    Ok((i, reply)) => replies[i] = Some(reply),
                    // A panic inside the runner itself, not in a hook: fail closed.
                    Err(e) => {
                        return done(
                            Merged::default(),
                            Some(HookError::new(format!(
                                "a configured hook's task failed: {e}"
                            ))),
                        );
                    }
                }
            }
            // Every answer is kept (a redaction by one hook stands when another fails); the
            // first hook in (order, id) order that failed closed is the one reported.
            let mut answers = Vec::new();
            let mut ids = Vec::new();
            let mut failure = None;
            let mut failed = None;
            let mut notices = Vec::new();
            for (reply, member) in replies.into_iter().zip(&matching) {
                let Some(reply) = reply else { continue };
                match reply {
                    Ok(Reply::Answer(answer)) => {
                        answers.push(*answer);
                        ids.push(&member.spec.id);
                    }
                    Ok(Reply::Nothing) => {}
                    Ok(Reply::Skipped(notice)) => notices.push(notice),
                    Err(e) => {
                        if failure.is_none() {
                            failure = Some(e);
                            failed = Some(member.spec.id.clone());
                        }
                    }
                }
            }
            let merged = protocol::merge(answers);
            let decided_by = failed.or_else(|| merged.decided_by.map(|i| ids[i].clone()));
            if merged.dropped_rewrites > 0 {
                tracing::warn!(
                    target: "hookrail_config::runner",
                    point,
                    dropped = merged.dropped_rewrites,
                    "parallel hooks rewrote the input differently; the first rewrite in (order, id) order was applied (set `sequential: true` to chain them)"
                );
            }
            Ran {
                merged,
                failure,
                notices,
                decided_by,
            }
        }
    }

    /// Runs one hook: the gate, the handler, the protocol, the failure policy. `env` is the
    /// dispatch's environment in place of the inherited one, if it has one.
    pub(super) async fn run_one(
        &self,
        set: &HookSet,
        member: &Member,
        point: &'static str,
        body: impl AsRef<[u8]>,
        env: Option<&EnvOverride>,
    ) -> Result<Reply, HookError> {
        let spec = &member.spec;
        let handler_text = handler_text(&spec.handler);
        if let Admission::Skipped { reason } = set.gate.check(spec, &self.options.project_dir) {
            return self.refused(member, point, handler_text, reason);
        }
        let timeout = spec.timeout.unwrap_or(self.options.default_timeout);
        let started = Instant::now();
        let ran = self.execute(spec, point, body.as_ref(), timeout, env).await;
        let duration = started.elapsed();
        let (status, stdout, stderr, truncated, read) = match ran {
            Ok(r) => r,
            Err(failure) => (
                RunStatus::NotStarted,
                String::new(),
                String::new(),
                false,
                Err(failure),
            ),
        };
        let closed = spec.blocking && spec.on_error.map_or(member.guard, |p| p == OnError::Deny);
        let (decision, failure) = match &read {
            Ok(answer) => (answer.decision, None),
            Err(failure) => (Decision::None, Some(failure.clone())),
        };
        let cut = |text: &str| text.chars().nth(OUTPUT_CAP).is_some();
        let truncated = truncated || cut(&stdout) || cut(&stderr);
        let event = CommandRun {
            hook_id: spec.id.clone(),
            point,
            handler: handler_text,
            status,
            duration,
            stdout: protocol::cap(&stdout),
            stderr: protocol::cap(&stderr),
            truncated,
            decision,
            failure: failure.clone(),
            failed_closed: failure.is_some() && closed,
            applied: spec.blocking,
        };
        match &failure {
            Some(f) => tracing::warn!(
                target: "hookrail_config::runner",
                hook = %spec.id, point, status = ?status, duration_ms = duration.as_millis() as u64,
                failed_closed = event.failed_closed, "hook_command failed: {f}"
            ),
            None => tracing::debug!(
                target: "hookrail_config::runner",
                hook = %spec.id, point, status = ?status, duration_ms = duration.as_millis() as u64,
                decision = ?decision, "hook_command"
            ),
        }
        self.emit(&CommandEvent::Ran(event));
        let read = read.map(|answer| self.take_signals(spec, point, answer));
        match read {
            Ok(answer) if spec.blocking => Ok(Reply::Answer(Box::new(answer))),
            Ok(_) => Ok(Reply::Nothing),
            Err(failure) if closed => Err(HookError::new(format!(
                "configured hook `{}` ({}) failed: {failure}",
                spec.id, spec.location
            ))),
            Err(_) => Ok(Reply::Nothing),
        }
    }

    /// A hook the gate refused: its event, and either a failure that fails closed (the
    /// default at guard points, `on_unapproved: deny` anywhere) or a notice.
    ///
    /// A refusal at a guard point is a failure, not a policy deny: the guard could not decide,
    /// so it fails closed exactly as a guard whose script crashed does (the outcome's
    /// `decided_by_failure`, the answer's failure list), and nothing downstream mistakes it
    /// for what the hook would have answered.
    fn refused(
        &self,
        member: &Member,
        point: &'static str,
        handler: String,
        reason: String,
    ) -> Result<Reply, HookError> {
        let spec = &member.spec;
        let choice = spec.on_unapproved.unwrap_or(if member.guard {
            OnUnapproved::Deny
        } else {
            OnUnapproved::Skip
        });
        // A non-blocking hook never decides, so its absence cannot either.
        let closed = spec.blocking && choice == OnUnapproved::Deny;
        tracing::warn!(
            target: "hookrail_config::runner",
            hook = %spec.id, point, %reason, failed_closed = closed, "hook_command_skipped"
        );
        self.emit(&CommandEvent::Skipped(CommandSkipped {
            hook_id: spec.id.clone(),
            point,
            handler,
            reason: reason.clone(),
            failed_closed: closed,
        }));
        // Addressed to a person: at guard points the reason also reaches the model, which must
        // not take it as an invitation to approve unreviewed code itself.
        let approve = format!(
            "a person must review it and approve it with `{}`",
            self.options.approve_command
        );
        if closed {
            return Err(HookError::new(format!(
                "configured hook `{}` ({}) was not run: {reason}; {approve}",
                spec.id, spec.location
            )));
        }
        let why = match (spec.blocking, spec.on_unapproved) {
            (false, _) => " (blocking: false)",
            (true, Some(OnUnapproved::Skip)) => " (on_unapproved: skip)",
            (true, _) => "",
        };
        Ok(Reply::Skipped(format!(
            "configured hook `{}` ({}) at {point} was not run{why}: {reason}; {approve}",
            spec.id, spec.location
        )))
    }

    /// Runs the handler; `Err` only when it could not be run at all.
    #[allow(clippy::type_complexity)]
    async fn execute(
        &self,
        spec: &HookSpec,
        point: &'static str,
        body: &[u8],
        timeout: Duration,
        overrides: Option<&EnvOverride>,
    ) -> Result<(RunStatus, String, String, bool, Result<Answer, String>), String> {
        match &spec.handler {
            Handler::Command(command) => {
                let (env, removed) = command_env(&self.options.env, &command.env, overrides);
                // Hooks run in the project directory, the directory the gate resolved and hashed
                // their scripts in; the event's own `cwd` is in its JSON.
                let request = CommandRequest {
                    line: &command.line,
                    env: &env,
                    env_remove: &removed,
                    cwd: &self.options.project_dir,
                    project_dir: &self.options.project_dir,
                    plugin_root: command.plugin_root.as_deref(),
                    stdin: body,
                    timeout,
                    output_cap: READ_CAP,
                };
                let out = run_command(&request).await.map_err(|e| e.to_string())?;
                let truncated = out.stdout_truncated || out.stderr_truncated;
                let (status, read) = match out.status {
                    // Claude Code does not honour exit 2 at every event (`PermissionRequest`
                    // decides through its JSON only): there it decides nothing.
                    ExitStatusKind::Code(2) if crate::claude_events::exit_2_ignored(spec.point) => {
                        tracing::info!(
                            target: "hookrail_config::runner",
                            hook = %spec.id,
                            point = spec.point,
                            "exit code 2 decides nothing at this event (as in Claude Code); answer with JSON to decide"
                        );
                        (RunStatus::Exited(2), Ok(Answer::default()))
                    }
                    ExitStatusKind::Code(code) => (
                        RunStatus::Exited(code),
                        read_logged(
                            spec,
                            point,
                            protocol::read_command(code, &out.stdout, &out.stderr),
                        ),
                    ),
                    ExitStatusKind::Signal(signal) => (
                        RunStatus::Signaled(signal),
                        Err(format!("killed by signal {signal}")),
                    ),
                    ExitStatusKind::TimedOut => (
                        RunStatus::TimedOut,
                        Err(format!("timed out after {} ms", timeout.as_millis())),
                    ),
                };
                Ok((status, out.stdout, out.stderr, truncated, read))
            }
            #[cfg(feature = "http")]
            Handler::Http(http) => {
                let client = self
                    .http
                    .get_or_init(|| crate::http::HttpClient::new().map_err(|e| e.to_string()))
                    .as_ref()
                    .map_err(Clone::clone)?;
                let request = crate::http::HttpRequest {
                    handler: http,
                    body,
                    timeout,
                    output_cap: READ_CAP,
                    // `${VAR}` in headers reads the environment as a command hook would.
                    env: &|name| match overrides.and_then(|o| o.get(name)) {
                        Some(value) => value.clone(),
                        None => std::env::var(name).ok(),
                    },
                };
                match client.post(&request).await {
                    Ok(out) => Ok((
                        RunStatus::Http(out.status),
                        out.body.clone(),
                        String::new(),
                        out.truncated,
                        read_logged(spec, point, protocol::read_http(out.status, &out.body)),
                    )),
                    Err(crate::http::HttpError::Timeout { .. }) => Ok((
                        RunStatus::TimedOut,
                        String::new(),
                        String::new(),
                        false,
                        Err(format!("timed out after {} ms", timeout.as_millis())),
                    )),
                    Err(e) => Err(e.to_string()),
                }
            }
            #[cfg(not(feature = "http"))]
            Handler::Http(_) => {
                Err("this build of hookrail-config lacks the `http` feature".to_owned())
            }
        }
    }

    fn emit(&self, event: &CommandEvent) {
        let subscribers = self
            .subscribers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for f in subscribers {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(event))).is_err() {
                tracing::error!(target: "hookrail_config::runner", "a CommandEvent subscriber panicked");
            }
        }
    }
}

/// The points whose hooks are infra-only (seed 003 `PostAbilityCall` and `SessionStop`): their
/// `blocking: false` hooks run in the background.
pub(crate) const INFRA_POINTS: [&str; 2] = ["post_tool_use", "session_end"];

/// A read answer, its seed 003 `logs` and `usage_recorded` logged with the hook's id (those of
/// a reported error too); the error as text.
fn read_logged(
    spec: &HookSpec,
    point: &'static str,
    read: Result<Answer, protocol::ProtocolError>,
) -> Result<Answer, String> {
    let (logs, usage) = match &read {
        Ok(answer) => (answer.logs.as_slice(), answer.usage_recorded),
        Err(protocol::ProtocolError::Reported { logs, .. }) => (logs.as_slice(), None),
        Err(_) => (&[][..], None),
    };
    for line in logs {
        tracing::info!(target: "hookrail_config::runner", hook = %spec.id, point, "hook log: {line}");
    }
    if let Some(recorded) = usage {
        tracing::debug!(target: "hookrail_config::runner", hook = %spec.id, point, usage_recorded = recorded, "hook_result");
    }
    read.map_err(|e| e.to_string())
}

/// A command hook's environment on top of what it inherits: the dispatch's `overrides` where
/// they set a variable (standing in for an inherited one), then the program's, then the hook's
/// own (the later wins); and the inherited variables the overrides remove.
fn command_env<'a>(
    program: &BTreeMap<String, String>,
    hook: &'a BTreeMap<String, String>,
    overrides: Option<&'a EnvOverride>,
) -> (Cow<'a, BTreeMap<String, String>>, Vec<&'a str>) {
    let Some(overrides) = overrides.filter(|o| !o.is_empty()) else {
        if program.is_empty() {
            return (Cow::Borrowed(hook), Vec::new());
        }
        let mut env = program.clone();
        env.extend(hook.iter().map(|(k, v)| (k.clone(), v.clone())));
        return (Cow::Owned(env), Vec::new());
    };
    let mut env: BTreeMap<String, String> = overrides
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
        .collect();
    env.extend(program.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.extend(hook.iter().map(|(k, v)| (k.clone(), v.clone())));
    let removed = overrides
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.as_str())
        .collect();
    (Cow::Owned(env), removed)
}

/// Whether two matching hooks are the same run: the same handler with the same say over the
/// outcome. The handler's equality takes in the plugin it came from (`plugin_root`, of
/// commands and URLs alike), so a plugin's copy stays separate from another plugin's and from
/// a settings file's, as in Claude Code.
fn same_run(a: &HookSpec, b: &HookSpec) -> bool {
    a.handler == b.handler
        && a.blocking == b.blocking
        && a.on_error == b.on_error
        && a.timeout == b.timeout
        && a.on_unapproved == b.on_unapproved
}

fn to_body(input: &Value) -> Result<Vec<u8>, HookError> {
    serde_json::to_vec(input).map_err(|e| HookError::new(format!("hook input: {e}")))
}

/// A handler as shown in events and listings.
fn handler_text(handler: &Handler) -> String {
    match handler {
        Handler::Command(c) => c.line.to_string(),
        Handler::Http(h) => h.url.clone(),
    }
}

/// The matcher facts of an event: the matcher's value read as Claude Code reads it from the
/// payload the agent sent (`original`) or, for a generic point, from its input (which is
/// that payload); from the point's own field of the hook input otherwise.
fn facts<'a>(
    point: &str,
    input: &'a Value,
    original: Option<&'a Value>,
    changed: &'a [String],
    project_dir: &'a Path,
) -> EventFacts<'a> {
    let source = original.unwrap_or(input);
    let target = if original.is_some() || crate::generic::NAMES.contains(&point) {
        crate::matcher::target_value(point, source)
    } else {
        crate::matcher::target_field(point)
            .and_then(|f| input.get(f))
            .and_then(Value::as_str)
    };
    EventFacts {
        target,
        event: source.get("hook_event_name").and_then(Value::as_str),
        tool_input: source.get("tool_input").or_else(|| input.get("tool_input")),
        cwd: source
            .get("cwd")
            .or_else(|| input.get("cwd"))
            .and_then(Value::as_str)
            .map(Path::new),
        duration_ms: input.get("duration_ms").and_then(Value::as_u64),
        changed_paths: changed,
        project_dir: Some(project_dir),
    }
}

fn changed_paths(input: &Value) -> Vec<String> {
    input
        .get("files_modified")
        .and_then(Value::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::same_run;
    use crate::file::{LoadedConfig, parse_claude};
    use crate::spec::HookSpec;

    /// The hooks of a settings file (`plugin: None`) or a plugin's `hooks.json` declaring
    /// `handler` once at `Stop`, with ids kept apart by `prefix`.
    fn declared(handler: serde_json::Value, plugin: Option<&str>, prefix: &str) -> HookSpec {
        let doc = serde_json::json!({ "hooks": { "Stop": [{ "hooks": [handler] }] } });
        let root = plugin.map(|name| Path::new("/plugins").join(name));
        let mut config: LoadedConfig = parse_claude(
            &doc.to_string(),
            Path::new(&format!("{prefix}.json")),
            root.as_deref(),
        )
        .unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        config.prefix_ids(prefix);
        config.hooks.remove(0)
    }

    fn copies(handler: &serde_json::Value) -> [HookSpec; 4] {
        [
            declared(handler.clone(), None, "user"),
            declared(handler.clone(), None, "project"),
            declared(handler.clone(), Some("fmt"), "a"),
            declared(handler.clone(), Some("lint"), "b"),
        ]
    }

    #[test]
    fn a_command_or_url_in_two_settings_files_runs_once_and_each_plugin_s_copy_apart() {
        for handler in [
            serde_json::json!({ "type": "command", "command": "./check.sh" }),
            serde_json::json!({ "type": "http", "url": "http://127.0.0.1:9/hook" }),
        ] {
            let [user, project, fmt, lint] = copies(&handler);
            assert!(same_run(&user, &project), "{handler}");
            assert!(
                !same_run(&user, &fmt),
                "{handler}: a plugin's copy and a settings file's"
            );
            assert!(!same_run(&fmt, &lint), "{handler}: two plugins' copies");
            assert!(same_run(&fmt, &fmt.clone()), "{handler}");
        }
    }

    #[test]
    fn another_say_over_the_outcome_runs_both() {
        let [user, project, ..] =
            copies(&serde_json::json!({ "type": "http", "url": "http://127.0.0.1:9/hook" }));
        let mut strict = project;
        strict.on_error = Some(crate::spec::OnError::Deny);
        assert!(!same_run(&user, &strict));
    }
}
