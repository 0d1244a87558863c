//! A scripted agent session that fires every standard hook point.
//!
//! A fake model plays back a fixed script; the tools are real (files are written and shell
//! commands run in a temporary directory). The agent loop drives a
//! [`Session`](hooks_core::runtime::Session), which fires every point at the right moment.
//!
//! The hooks come from all three sources a `Hooks` value merges:
//! - `#[hook]` fns (below): a destructive-command guard, directive capture, secret redaction of
//!   streamed text, retry on rate limits, a stop guard that insists on tests, and so on;
//! - a provider, `Trace`, which prints a line as each point fires and counts the firings;
//! - a closure registered at run time, which caps tool output for the reviewer subagent.
//!
//! A subscriber prints every hook run (hook, result, duration). The run ends with a table of
//! every point and how many times it fired, and fails if any point never fired.
//!
//! Run: `cargo run --example agent`

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::context::*;
use hooks_core::runtime::{
    AgentError, Hook, Hooks, HooksProvider, ModelReply, RunResult, Session, SessionError, ToolRun,
    TurnEnd,
};
use hooks_core::{HookResult, Recovery, Verdict, hook};
use hooks_examples::{ScriptedModel, ToolRequest, Turn, Workspace};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

/// Directives the user gave ("always …", "never …"), captured from prompts.
static DIRECTIVES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Set once a test command ran.
static TESTS_RAN: AtomicBool = AtomicBool::new(false);
/// Model calls so far, for the call budget.
static MODEL_CALLS: AtomicU64 = AtomicU64::new(0);

#[hook(session_start)]
fn team_notes(ctx: &mut SessionStart) {
    ctx.add_context("Team notes: services live in src/, every change needs a passing test.");
}

#[hook(user_prompt_submit)]
fn capture_directives(ctx: &mut UserPromptSubmit) -> Verdict {
    let found: Vec<String> = ctx
        .prompt
        .split_terminator(['.', '!'])
        .map(str::trim)
        .filter(|s| {
            let lower = s.to_lowercase();
            lower.starts_with("always ") || lower.starts_with("never ")
        })
        .map(str::to_owned)
        .collect();
    for d in found {
        ctx.add_directive(d.clone());
        DIRECTIVES.lock().unwrap_or_else(|e| e.into_inner()).push(d);
    }
    Verdict::Continue
}

#[hook(pre_model_call)]
fn model_call_budget(ctx: &mut PreModelCall) -> Verdict {
    if MODEL_CALLS.fetch_add(1, Ordering::Relaxed) >= 20 {
        return Verdict::deny("model call budget (20 per session) exhausted");
    }
    if ctx.meta.agent_name.as_ref() != "lead" {
        ctx.model.set("small-model".into());
    }
    Verdict::Continue
}

/// Redacts anything that looks like an API key before it is shown.
#[hook(model_stream_chunk)]
fn redact_keys(ctx: &mut ModelStreamChunk) {
    if ctx.chunk.contains("sk-") {
        ctx.chunk = ctx
            .chunk
            .split(' ')
            .map(|w| {
                if w.starts_with("sk-") {
                    "[REDACTED]"
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
}

#[hook(post_model_call)]
fn note_usage(ctx: &mut PostModelCall) {
    if ctx.usage.total() > 10_000 {
        ctx.stop_reason = Some("token budget".into());
    }
}

/// Refuses destructive shell commands.
#[hook(pre_tool_use, order = -100)]
fn deny_destructive(ctx: &mut PreToolUse) -> Verdict {
    let Some(cmd) = ctx.command() else {
        return Verdict::Continue;
    };
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let recursive = words.iter().any(|w| w.starts_with('-') && w.contains('r'));
    if words.first() == Some(&"rm") && recursive && words.contains(&"/") {
        return Verdict::deny("refusing to delete the filesystem root");
    }
    Verdict::Continue
}

/// Makes directory listings deterministic: `ls` becomes `ls -1`. Later hooks see the rewrite,
/// and the original stays visible. Rewriting is not an opinion on the call: `Continue`.
#[hook(pre_tool_use, order = 0)]
fn one_entry_per_line(ctx: &mut PreToolUse) -> Verdict {
    if ctx.command() == Some("ls") {
        ctx.tool_input.set(json!({ "command": "ls -1" }));
        ctx.add_context("`ls` was rewritten to `ls -1`");
    }
    Verdict::Continue
}

#[hook(post_tool_use)]
fn remember_tests(ctx: &mut PostToolUse) {
    if ctx.tool_input["command"]
        .as_str()
        .is_some_and(|c| c.contains("test"))
    {
        TESTS_RAN.store(true, Ordering::Relaxed);
    }
}

#[hook(post_tool_use, order = 10)]
fn truncate_output(ctx: &mut PostToolUse) {
    if let Some(out) = ctx.tool_response["stdout"].as_str()
        && out.len() > 200
    {
        let cut: String = out.chars().take(200).collect();
        ctx.tool_response["stdout"] = format!("{cut}… [truncated]").into();
    }
}

#[hook(step_end)]
fn slow_steps(ctx: &StepEnd) {
    if ctx.duration_ms > 5_000 {
        eprintln!("step {} was slow: {} ms", ctx.step_id, ctx.duration_ms);
    }
}

/// Keeps the agent working until the tests ran, when the user asked for that.
#[hook(stop)]
fn insist_on_tests(ctx: &mut Stop) -> Verdict {
    let wants_tests = DIRECTIVES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|d| d.to_lowercase().contains("test"));
    if wants_tests && !TESTS_RAN.load(Ordering::Relaxed) && !ctx.stop_hook_active {
        return Verdict::deny("you were asked to always run the tests: run them before stopping");
    }
    Verdict::Continue
}

#[hook(pre_compact)]
fn keep_directives(ctx: &mut PreCompact) {
    let directives = DIRECTIVES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    ctx.preserve.extend(directives);
}

#[hook(subagent_start)]
fn cheap_reviewers(ctx: &mut SubagentStart) -> Verdict {
    if ctx.subagent_name == "reviewer" {
        ctx.model.set("small-model".into());
    }
    Verdict::Allow
}

/// An async observer: a real one would write an audit record somewhere.
#[hook(subagent_stop)]
async fn audit_subagent(ctx: &SubagentStop) {
    tokio::task::yield_now().await;
    assert!(!ctx.subagent_name.is_empty());
}

#[hook(error_occurred)]
fn retry_rate_limits(ctx: &ErrorOccurred) -> Option<Recovery> {
    (ctx.kind.is_transient() && ctx.attempt <= 3).then(|| Recovery::Retry {
        backoff: Duration::from_millis(20 * u64::from(ctx.attempt)),
    })
}

#[hook(error_occurred, order = 10)]
fn fall_back_model(ctx: &ErrorOccurred) -> Option<Recovery> {
    (ctx.kind == ErrorKind::Model).then(|| Recovery::Fallback {
        model: "backup-model".into(),
        backoff: Duration::ZERO,
    })
}

#[hook(notification)]
fn desktop_notice(ctx: &Notification) {
    assert!(!ctx.message.is_empty());
}

#[hook(pre_queue_drain)]
fn queue_depth(ctx: &PreQueueDrain) {
    assert!(ctx.pending > 0);
}

#[hook(post_queue_drain)]
fn queue_done(_: &PostQueueDrain) {}

#[hook(session_end)]
async fn session_report(ctx: &SessionEnd) {
    tokio::task::yield_now().await;
    assert!(ctx.tool_calls > 0);
}

// ---------------------------------------------------------------------------------------------
// Tracing: a provider that sees every point fire, a subscriber that sees every hook run
// ---------------------------------------------------------------------------------------------

/// Prints a line as each point fires and counts the firings. It sorts first at every point, so
/// it runs even where a guard later stops the chain.
#[derive(Default)]
struct Trace {
    fired: Mutex<BTreeMap<&'static str, u32>>,
}

impl Trace {
    fn fire(&self, point: &'static str, what: impl std::fmt::Display) {
        *self
            .fired
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(point)
            .or_default() += 1;
        println!("{point:<20} {what}");
    }
}

impl HooksProvider for Trace {
    fn name(&self) -> &str {
        "trace"
    }
    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        self.fire("session_start", format!("model {}", ctx.model));
        Ok(())
    }
    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        let files = ctx.files_modified.join(", ");
        let summary = format!(
            "{} tool calls, {} tokens, files: {files}",
            ctx.tool_calls,
            ctx.tokens.total()
        );
        self.fire("session_end", summary);
        Ok(())
    }
    fn user_prompt_submit(&self, ctx: &mut UserPromptSubmit) -> HookResult<Verdict> {
        self.fire("user_prompt_submit", short(ctx.prompt.get()));
        Ok(Verdict::Continue)
    }
    fn pre_model_call(&self, ctx: &mut PreModelCall) -> HookResult<Verdict> {
        self.fire(
            "pre_model_call",
            format!("{} ({} messages)", ctx.model.get(), ctx.messages.len()),
        );
        Ok(Verdict::Continue)
    }
    fn model_stream_chunk(&self, ctx: &mut ModelStreamChunk) -> HookResult<()> {
        self.fire(
            "model_stream_chunk",
            format!("#{} {:?}", ctx.index, ctx.chunk),
        );
        Ok(())
    }
    fn post_model_call(&self, ctx: &mut PostModelCall) -> HookResult<()> {
        self.fire("post_model_call", short(&ctx.response));
        Ok(())
    }
    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        self.fire(
            "pre_tool_use",
            format!(
                "{} {}",
                ctx.tool_name,
                short(&ctx.tool_input.get().to_string())
            ),
        );
        Ok(Verdict::Continue)
    }
    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        let result = ctx
            .error
            .clone()
            .unwrap_or_else(|| short(&ctx.tool_response.to_string()));
        self.fire(
            "post_tool_use",
            format!("{} in {} ms: {result}", ctx.tool_name, ctx.duration_ms),
        );
        Ok(())
    }
    fn step_end(&self, ctx: &StepEnd) -> HookResult<()> {
        self.fire(
            "step_end",
            format!("{} ({} tool calls)", ctx.step_id, ctx.tool_calls),
        );
        Ok(())
    }
    fn stop(&self, ctx: &mut Stop) -> HookResult<Verdict> {
        self.fire(
            "stop",
            format!(
                "model wants to stop (blocked {} times)",
                ctx.consecutive_blocks
            ),
        );
        Ok(Verdict::Continue)
    }
    fn pre_compact(&self, ctx: &mut PreCompact) -> HookResult<()> {
        self.fire(
            "pre_compact",
            format!("{} of {} tokens", ctx.current_tokens, ctx.max_tokens),
        );
        Ok(())
    }
    fn subagent_start(&self, ctx: &mut SubagentStart) -> HookResult<Verdict> {
        self.fire(
            "subagent_start",
            format!("{}: {}", ctx.subagent_name, ctx.task),
        );
        Ok(Verdict::Continue)
    }
    fn subagent_stop(&self, ctx: &SubagentStop) -> HookResult<()> {
        let summary = format!(
            "{} {:?}, {} tool calls, {} tokens",
            ctx.subagent_name,
            ctx.status,
            ctx.tool_calls,
            ctx.tokens.total()
        );
        self.fire("subagent_stop", summary);
        Ok(())
    }
    fn error_occurred(&self, ctx: &ErrorOccurred) -> HookResult<Option<Recovery>> {
        self.fire(
            "error_occurred",
            format!("{:?} on attempt {}: {}", ctx.kind, ctx.attempt, ctx.error),
        );
        Ok(None)
    }
    fn notification(&self, ctx: &Notification) -> HookResult<()> {
        self.fire("notification", &ctx.message);
        Ok(())
    }
    fn pre_queue_drain(&self, ctx: &PreQueueDrain) -> HookResult<()> {
        self.fire(
            "pre_queue_drain",
            format!("{}: {} pending", ctx.queue, ctx.pending),
        );
        Ok(())
    }
    fn post_queue_drain(&self, ctx: &PostQueueDrain) -> HookResult<()> {
        self.fire(
            "post_queue_drain",
            format!("{}: {} drained", ctx.queue, ctx.drained),
        );
        Ok(())
    }
}

/// One line per hook run that had something to say (the trace provider's own runs and silent
/// `continue`/`done` results are left out to keep the trace readable).
fn print_run(run: &hooks_core::runtime::HookRun<'_>) {
    let quiet = matches!(
        run.result,
        RunResult::Done | RunResult::Recovery(None) | RunResult::Verdict(Verdict::Continue)
    );
    if run.hook != "trace" && !quiet {
        println!(
            "{:<20}   {} -> {} ({} µs)",
            "",
            run.hook,
            run.result,
            run.duration.as_micros()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The agent loop
// ---------------------------------------------------------------------------------------------

struct Agent {
    model: ScriptedModel,
    tools: Workspace,
}

impl Agent {
    /// One model call through the session (pre, stream chunks, post; errors go to
    /// `error_occurred`, whose recovery the session applies).
    async fn call(
        &mut self,
        session: &mut Session,
        messages: Vec<Message>,
    ) -> Result<(String, Vec<ToolRequest>), SessionError> {
        let mut tools = Vec::new();
        let post = session
            .call_model(messages, |pre| {
                let result = self.model.call(pre.estimated_input_tokens.max(300));
                let result = result
                    .map(|reply| {
                        tools = reply.tools.clone();
                        ModelReply {
                            chunks: reply.chunks,
                            usage: reply.usage,
                            stop_reason: Some("end_turn".into()),
                            tool_calls: reply.tools.iter().map(|t| t.name.clone()).collect(),
                        }
                    })
                    .map_err(|(kind, message)| AgentError::new(kind, message));
                std::future::ready(result)
            })
            .await?;
        Ok((post.response, tools))
    }

    /// Run the tools the model asked for; a denial goes back to the model as the tool result.
    async fn run_tools(
        &mut self,
        session: &mut Session,
        tools: &[ToolRequest],
    ) -> Result<Vec<String>, SessionError> {
        let mut results = Vec::new();
        for req in tools {
            let workspace = &self.tools;
            let run = session
                .tool(&req.name, req.input.clone(), |input| {
                    std::future::ready(workspace.run(&req.name, input))
                })
                .await?;
            results.push(match run {
                ToolRun::Ran(post) => post.tool_response.to_string(),
                ToolRun::Denied { reason, .. } => format!("denied: {reason}"),
            });
        }
        Ok(results)
    }

    /// Model ↔ tools until the model stops asking for tools and the stop guards let it stop.
    async fn run_prompt(
        &mut self,
        session: &mut Session,
        prompt: &str,
    ) -> Result<(), SessionError> {
        let submit = session.submit_prompt(prompt).await?;
        let mut messages = vec![Message::new(Role::User, submit.prompt.get().clone())];
        let mut step = 0;
        loop {
            step += 1;
            let (text, tools) = self.call(session, messages.clone()).await?;
            messages.push(Message::new(Role::Assistant, text.clone()));
            let results = self.run_tools(session, &tools).await?;
            for r in results {
                messages.push(Message::new(Role::Tool, r));
            }
            session
                .step_end(format!("step-{step}"), StepStatus::Completed)
                .await;
            if !tools.is_empty() {
                continue;
            }
            match session.request_stop(Some(text)).await {
                TurnEnd::Stop => return Ok(()),
                TurnEnd::KeepWorking { reason } => messages.push(Message::new(Role::User, reason)),
            }
        }
    }
}

fn short(s: &str) -> String {
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() > 40 {
        format!("{}…", one_line.chars().take(39).collect::<String>())
    } else {
        one_line
    }
}

fn script() -> Vec<Turn> {
    vec![
        Turn::Fail(ErrorKind::RateLimit, "429 Too Many Requests"),
        Turn::Reply {
            chunks: vec!["Let me look ", "at the project."],
            tools: vec![ToolRequest::bash("ls")],
        },
        Turn::Reply {
            chunks: vec!["Adding the endpoint."],
            tools: vec![ToolRequest::write(
                "src/health.rs",
                "pub fn health() -> &'static str { \"ok\" }\n",
            )],
        },
        Turn::Reply {
            chunks: vec!["Cleaning up."],
            tools: vec![ToolRequest::bash("rm -rf / --no-preserve-root")],
        },
        Turn::Reply {
            chunks: vec!["Done."],
            tools: vec![],
        },
        Turn::Reply {
            chunks: vec!["Running the tests."],
            tools: vec![ToolRequest::bash(
                "grep -q ok src/health.rs && echo 'test health ... ok'",
            )],
        },
        Turn::Reply {
            chunks: vec![
                "Tests pass. ",
                "Deployed with key sk-live-123abc ",
                "as configured.",
            ],
            tools: vec![],
        },
        // The reviewer subagent's single turn.
        Turn::Reply {
            chunks: vec!["Reviewed: looks good."],
            tools: vec![ToolRequest::read("src/health.rs")],
        },
    ]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    println!("Session in {}\n", dir.path().display());

    let trace = Arc::new(Trace::default());
    let hooks = Hooks::builder()
        .provider_arc(i32::MIN, trace.clone())
        .build()?;
    hooks.subscribe(print_run);

    let mut agent = Agent {
        model: ScriptedModel::new(script()),
        tools: Workspace::new(dir.path()),
    };
    let meta = Meta::new("demo-session")
        .with_agent("lead")
        .with_cwd(dir.path());
    let mut session = Session::start(hooks.clone(), meta, "large-model").await?;
    for note in session.start_context() {
        println!("{:<20}   context for the model: {note}", "");
    }

    // A prompt was queued while the agent started; feed the queue in.
    let queue = ["Add a /health endpoint. Always run the tests before you stop."];
    let drain = session.start_queue_drain("user", queue.len()).await;
    for prompt in queue {
        agent.run_prompt(&mut session, prompt).await?;
    }
    session.finish_queue_drain(drain, queue.len()).await;

    let compact = session.compact(CompactTrigger::Auto, 9_000, 10_000).await?;
    println!("{:<20}   preserved: {:?}", "", compact.preserve);

    // A reviewer subagent, with a runtime hook that caps the tool output it sees.
    let cap = hooks.register(Hook::<hooks_core::points::post_tool_use::Point>::new(
        "reviewer_output_cap",
        |ctx: &mut PostToolUse| {
            if ctx.meta.agent_name.as_ref() == "reviewer" {
                ctx.add_context("output capped at 1 KiB for reviewers");
            }
        },
    ))?;
    let mut reviewer = session
        .start_subagent("reviewer", "review src/health.rs")
        .await?;
    let (_, tools) = agent
        .call(
            &mut reviewer.session,
            vec![Message::new(Role::User, reviewer.start.task.clone())],
        )
        .await?;
    agent.run_tools(&mut reviewer.session, &tools).await?;
    session
        .finish_subagent(
            reviewer,
            SubagentStatus::Completed,
            Some("looks good".into()),
        )
        .await;
    hooks.unregister(cap);

    session
        .notify("agent_completed", "The /health endpoint is ready")
        .await;
    let end = session.end(SessionEndReason::Completed, true).await;

    println!(
        "\n{:<20} {:<10} {:>6} {:>6}",
        "point", "kind", "hooks", "fired"
    );
    let fired = trace
        .fired
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let listing = hooks.list();
    let mut missing = Vec::new();
    for point in hooks_core::registry::points() {
        let count = fired.get(point.name()).copied().unwrap_or(0);
        if count == 0 {
            missing.push(point.name());
        }
        let hooks_here = listing.iter().filter(|h| h.point == point.name()).count();
        println!(
            "{:<20} {:<10} {:>6} {:>6}",
            point.name(),
            point.kind(),
            hooks_here,
            count
        );
    }
    println!(
        "\nsession: {} tool calls, {} tokens, {} ms; hooks in the set: {}",
        end.tool_calls,
        end.tokens.total(),
        end.duration_ms,
        listing.len()
    );
    if !missing.is_empty() {
        return Err(format!("points that never fired: {missing:?}").into());
    }
    Ok(())
}
