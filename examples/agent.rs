//! A scripted agent session that fires every standard hook point.
//!
//! A fake model plays back a fixed script; the tools are real (files are written and shell
//! commands run in a temporary directory). The hooks below are ordinary `#[hook]` fns: a
//! destructive-command guard, directive capture, secret redaction of streamed text, retry on
//! rate limits, a stop guard that insists on tests, and so on. The loop prints a trace of every
//! dispatch and ends with a table of every point and how many times it fired.
//!
//! Run: `cargo run --example agent`

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hooks_core::context::*;
use hooks_core::points::*;
use hooks_core::{HookPoint, Kind, Outcome, Recovery, Verdict, hook};
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
// The agent loop
// ---------------------------------------------------------------------------------------------

/// Fires points, prints one trace line per dispatch, and counts dispatches per point.
#[derive(Default)]
struct Tracer {
    fired: BTreeMap<&'static str, u32>,
}

impl Tracer {
    async fn fire<P: HookPoint>(
        &mut self,
        ctx: &mut P::Context,
        what: &str,
    ) -> Outcome<<P::Kind as Kind>::Ret>
    where
        <P::Kind as Kind>::Ret: std::fmt::Debug,
    {
        *self.fired.entry(P::NAME).or_default() += 1;
        let out = hooks_core::dispatch_async::<P>(ctx).await;
        let by = out
            .decided_by
            .map(|h| format!(" by {h}"))
            .unwrap_or_default();
        println!("  {:<20} {what:<44} -> {:?}{by}", P::NAME, out.value);
        for f in &out.failures {
            println!("  {:<20} FAILURE: {f}", "");
        }
        out
    }
}

struct Agent {
    tracer: Tracer,
    meta: Meta,
    model: ScriptedModel,
    tools: Workspace,
    totals: SessionEnd,
    step: u32,
}

impl Agent {
    /// One model call with streaming, recovery from errors, and the pre/post points.
    async fn model_call(
        &mut self,
        model: &str,
        messages: Vec<Message>,
    ) -> Option<hooks_examples::Reply> {
        let mut pre = PreModelCall::new(self.meta.next(), model, messages);
        pre.estimated_input_tokens = 300;
        if self
            .tracer
            .fire::<pre_model_call::Point>(&mut pre, model)
            .await
            .is_denied()
        {
            return None;
        }
        let mut model = pre.model.get().clone();
        let mut attempt = 1;
        let reply = loop {
            match self.model.call(pre.estimated_input_tokens) {
                Ok(reply) => break reply,
                Err((kind, msg)) => {
                    let mut err = ErrorOccurred::new(self.meta.next(), kind, msg);
                    err.model = Some(model.clone());
                    err.attempt = attempt;
                    let out = self
                        .tracer
                        .fire::<error_occurred::Point>(&mut err, "model call failed")
                        .await;
                    match out.value {
                        Some(Recovery::Retry { backoff }) => tokio::time::sleep(backoff).await,
                        Some(Recovery::Fallback { model: m, backoff }) => {
                            tokio::time::sleep(backoff).await;
                            model = m;
                        }
                        Some(Recovery::GiveUp { .. }) | None => return None,
                    }
                    attempt += 1;
                }
            }
        };
        let started = Instant::now();
        let mut text = String::new();
        for (i, chunk) in reply.chunks.iter().enumerate() {
            let mut c =
                ModelStreamChunk::new(self.meta.next(), model.clone(), i as u64, chunk.clone());
            self.tracer
                .fire::<model_stream_chunk::Point>(&mut c, &format!("chunk {i}"))
                .await;
            text.push_str(&c.chunk);
        }
        let elapsed = started.elapsed().as_millis() as u64;
        let mut post =
            PostModelCall::new(self.meta.next(), model, text.clone(), reply.usage, elapsed);
        post.tool_calls = reply.tools.iter().map(|t| t.name.clone()).collect();
        let what = short(&post.response);
        self.tracer
            .fire::<post_model_call::Point>(&mut post, &what)
            .await;
        self.totals.tokens += reply.usage;
        Some(reply)
    }

    /// One tool call: pre (guard) → run unless denied → post.
    async fn tool_call(&mut self, req: &ToolRequest) {
        let mut pre = PreToolUse::new(self.meta.next(), req.name.clone(), req.input.clone());
        let what = format!("{} {}", req.name, short(&req.input.to_string()));
        let verdict = self
            .tracer
            .fire::<pre_tool_use::Point>(&mut pre, &what)
            .await
            .value;
        if pre.tool_input.is_rewritten() {
            println!(
                "  {:<20} rewritten: {} -> {}",
                "",
                pre.tool_input.original(),
                pre.tool_input.get()
            );
        }
        if !matches!(verdict, Verdict::Continue | Verdict::Allow) {
            return; // denied, or needs a human we do not have in a scripted run
        }
        let started = Instant::now();
        let result = self.tools.run(&pre.tool_name, pre.tool_input.get());
        let elapsed = started.elapsed().as_millis() as u64;
        let mut post = PostToolUse::after(&pre, result.clone().unwrap_or_default(), elapsed);
        post.error = result.err();
        self.tracer
            .fire::<post_tool_use::Point>(&mut post, &what)
            .await;
        self.totals.tool_calls += 1;
        if pre.tool_name == "Write"
            && let Some(path) = pre.file_path()
        {
            self.totals.files_modified.push(path.to_owned());
        }
    }

    /// Model ↔ tools until the model stops asking for tools and the stop guard lets it stop.
    async fn run_prompt(&mut self, prompt: &str) {
        let mut submit = UserPromptSubmit::new(self.meta.next(), prompt);
        if self
            .tracer
            .fire::<user_prompt_submit::Point>(&mut submit, &short(prompt))
            .await
            .is_denied()
        {
            return;
        }
        let mut messages = vec![Message::new(Role::User, submit.prompt.get().clone())];
        let mut blocks = 0;
        loop {
            self.step += 1;
            let started = Instant::now();
            let Some(reply) = self.model_call("large-model", messages.clone()).await else {
                return;
            };
            let text = reply.chunks.concat();
            for tool in &reply.tools {
                self.tool_call(tool).await;
            }
            let mut step = StepEnd::new(
                self.meta.next(),
                format!("step-{}", self.step),
                StepStatus::Completed,
            );
            step.duration_ms = started.elapsed().as_millis() as u64;
            step.tool_calls = reply.tools.len() as u32;
            step.tokens = reply.usage;
            let what = step.step_id.clone();
            self.tracer.fire::<step_end::Point>(&mut step, &what).await;
            messages.push(Message::new(Role::Assistant, text.clone()));
            if !reply.tools.is_empty() {
                continue;
            }
            let mut stop = Stop::new(self.meta.next());
            stop.last_assistant_message = Some(text);
            stop.stop_hook_active = blocks > 0;
            stop.consecutive_blocks = blocks;
            let out = self
                .tracer
                .fire::<stop::Point>(&mut stop, "model wants to stop")
                .await;
            match out.value {
                Verdict::Deny(reason) if blocks < 8 => {
                    blocks += 1;
                    messages.push(Message::new(Role::User, reason.into_owned()));
                }
                _ => return,
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
    let meta = Meta::new("demo-session")
        .with_agent("lead")
        .with_cwd(dir.path());
    println!("Session in {}\n", dir.path().display());

    let mut agent = Agent {
        tracer: Tracer::default(),
        totals: SessionEnd::new(meta.next(), SessionEndReason::Completed, true),
        meta,
        model: ScriptedModel::new(script()),
        tools: Workspace::new(dir.path()),
        step: 0,
    };
    let started = Instant::now();

    let mut start = SessionStart::new(agent.meta.next(), "large-model");
    agent
        .tracer
        .fire::<session_start::Point>(&mut start, "startup")
        .await;

    // A prompt was queued while the agent started; feed the queue in.
    let queue = ["Add a /health endpoint. Always run the tests before you stop."];
    let mut pre_drain = PreQueueDrain::new(agent.meta.next(), "user", queue.len());
    agent
        .tracer
        .fire::<pre_queue_drain::Point>(&mut pre_drain, "1 queued prompt")
        .await;
    let drain_started = Instant::now();
    for prompt in queue {
        agent.run_prompt(prompt).await;
    }
    let mut post_drain = PostQueueDrain::new(
        agent.meta.next(),
        "user",
        queue.len(),
        drain_started.elapsed().as_millis() as u64,
    );
    agent
        .tracer
        .fire::<post_queue_drain::Point>(&mut post_drain, "drained")
        .await;

    let mut compact = PreCompact::new(agent.meta.next(), CompactTrigger::Auto, 9_000, 10_000);
    compact.strategy = "summarize-oldest".into();
    agent
        .tracer
        .fire::<pre_compact::Point>(&mut compact, "context at 90%")
        .await;

    // A reviewer subagent.
    let mut sub = SubagentStart::new(
        agent.meta.next(),
        "reviewer",
        "large-model",
        "review src/health.rs",
    );
    if !agent
        .tracer
        .fire::<subagent_start::Point>(&mut sub, "reviewer")
        .await
        .is_denied()
    {
        let sub_started = Instant::now();
        let reviewer = agent.meta.next().with_agent("reviewer");
        let parent = std::mem::replace(&mut agent.meta, reviewer);
        let model = sub.model.get().clone();
        let reply = agent
            .model_call(&model, vec![Message::new(Role::User, sub.task.clone())])
            .await;
        let mut tool_calls = 0;
        if let Some(reply) = &reply {
            for tool in &reply.tools {
                agent.tool_call(tool).await;
                tool_calls += 1;
            }
        }
        agent.meta = parent;
        let mut stop = SubagentStop::new(
            agent.meta.next(),
            "reviewer",
            model,
            SubagentStatus::Completed,
        );
        stop.duration_ms = sub_started.elapsed().as_millis() as u64;
        stop.tool_calls = tool_calls;
        stop.tokens = reply.map(|r| r.usage).unwrap_or_default();
        agent
            .tracer
            .fire::<subagent_stop::Point>(&mut stop, "reviewer done")
            .await;
    }

    let mut note = Notification::new(
        agent.meta.next(),
        "agent_completed",
        "The /health endpoint is ready",
    );
    agent
        .tracer
        .fire::<notification::Point>(&mut note, "agent_completed")
        .await;

    let mut end = agent.totals.clone();
    end.meta = agent.meta.next();
    end.duration_ms = started.elapsed().as_millis() as u64;
    let summary = format!(
        "{} tool calls, {} tokens",
        end.tool_calls,
        end.tokens.total()
    );
    agent
        .tracer
        .fire::<session_end::Point>(&mut end, &summary)
        .await;

    println!(
        "\n{:<20} {:<10} {:>6} {:>6}",
        "point", "kind", "hooks", "fired"
    );
    let mut missing = Vec::new();
    for point in hooks_core::registry::points() {
        let fired = agent.tracer.fired.get(point.name()).copied().unwrap_or(0);
        if fired == 0 {
            missing.push(point.name());
        }
        println!(
            "{:<20} {:<10} {:>6} {:>6}",
            point.name(),
            point.kind(),
            point.hooks().len(),
            fired
        );
    }
    println!("\nlinked hooks: {}", hooks_core::registry::linked().len());
    if !missing.is_empty() {
        return Err(format!("points that never fired: {missing:?}").into());
    }
    Ok(())
}
