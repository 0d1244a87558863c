//! A scripted agent session that fires every standard hook point, with every builtin policy
//! on.
//!
//! A fake model plays back a fixed script; the tools are real (files are written and shell
//! commands run in a temporary project directory). The agent loop drives a
//! [`Session`](hookrail_core::runtime::Session), which fires every point at the right moment.
//!
//! The hooks come from every source a `Hooks` value merges:
//! - the builtin policies of `hookrail-builtin` (feature `full`), configured from one settings
//!   document ([`SETTINGS`], the `builtin:` section of a config file): the command, write and
//!   secrets guards, the reviewer lockout, the budget, rate limits, context injection,
//!   resilience (retry and model fallback), PII scrubbing, task tracking and the audit trail;
//! - `#[hook]` fns (below): a rewrite of `ls`, a stop guard that insists on tests when the
//!   user asked for them, and small observers;
//! - a provider, `Trace`, which prints a line as each point fires and counts the firings;
//! - closures registered at run time: PII scrubbing of streamed chunks with the same policy
//!   value, and an output note for the reviewer subagent;
//! - a command hook declared in the project's `hooks.yaml` (`hookrail-config`), speaking Claude
//!   Code's protocol: a shell script that logs every file write and answers with context for
//!   the model. The project allow-lists it; anything else would be skipped.
//!
//! A subscriber prints every hook run that decided something (hook, result, duration) and every
//! change a hook made to what the agent was about to do (a rewritten command, a switched
//! model). The run starts with a legend, and ends with the audit trail read back from SQLite,
//! the budget's spend report, and a table of every point and how many times it fired, each
//! with a line saying how to read it; it fails if any point never fired, or if the rewrite or
//! the budget's model switch went unreported.
//!
//! Run: `cargo run --example agent` (set `RUST_LOG=debug` to see the policies' logs).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use hookrail_builtin::audit::AuditReader;
use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_config::file::Sources;
use hookrail_config::runner::{CommandEvent, ConfigHooks};
use hookrail_core::context::*;
use hookrail_core::runtime::{
    AgentError, Hook, Hooks, HooksProvider, ModelReply, Session, SessionError, ToolRun, TurnEnd,
};
use hookrail_core::{HookResult, Recovery, Verdict, hook};
use hookrail_examples::narrate::Narrator;
use hookrail_examples::{ScriptedModel, ToolRequest, Turn, Workspace};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// The builtin policies' settings
// ---------------------------------------------------------------------------------------------

/// The `builtin:` section of a config file, as JSON. `{project}` is the session's directory.
const SETTINGS: &str = r#"{
    "command_guard": { "ask": ["git reset --hard"] },
    "write_guard": { "allow": ["src/**", "tests/**"] },
    "secrets_guard": {},
    "reviewer_lockout": {},
    "budget": {
        "prices": {
            "large-model": { "input_usd_per_mtok": 15.0, "output_usd_per_mtok": 75.0 },
            "small-model": { "input_usd_per_mtok": 0.25, "output_usd_per_mtok": 1.25 },
            "backup-model": { "input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0 }
        },
        "session": { "soft_usd": 0.005, "hard_usd": 1.0 },
        "cheaper_model": "small-model"
    },
    "rate_limit": { "tool_calls": [{ "calls": 20, "window_ms": 60000 }] },
    "context_inject": { "files": [{ "path": ".agents/notes.md", "label": "Team notes" }] },
    "resilience": { "max_attempts": 3, "base_backoff_ms": 20, "fallback": ["backup-model"] },
    "pii_scrub": {},
    "task_tracker": {},
    "audit": { "path": "{project}/.agents/audit.db" }
}"#;

/// The project's config file: one command hook after every file write.
const HOOKS_YAML: &str = r#"enabled: true
allow: ["sh ./scripts/*"]
hooks:
  - id: log_writes
    event_type: PostToolUse
    match: { matcher: "Write|Edit" }
    handler: { command: sh ./scripts/log_writes.sh }
    timeout_ms: 5000
"#;

/// The hook: appends the event to `.agents/writes.jsonl`, answers with context.
const LOG_WRITES_SH: &str = r#"event=$(cat)
printf '%s\n' "$event" >> "$CLAUDE_PROJECT_DIR/.agents/writes.jsonl"
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "write logged by a command hook"}}'
"#;

// ---------------------------------------------------------------------------------------------
// Hooks of this program
// ---------------------------------------------------------------------------------------------

/// Directives the user gave, as `context-inject` captured them.
static DIRECTIVES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Set once a test command ran.
static TESTS_RAN: AtomicBool = AtomicBool::new(false);

/// Runs after `context-inject` (order 50), which found the directives in the prompt.
#[hook(user_prompt_submit, order = 60)]
fn remember_directives(ctx: &mut UserPromptSubmit) -> Verdict {
    let mut directives = DIRECTIVES.lock().unwrap_or_else(|e| e.into_inner());
    for d in &ctx.directives {
        if !directives.contains(d) {
            directives.push(d.clone());
        }
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
    if ctx.error.is_none()
        && ctx.tool_input["command"]
            .as_str()
            .is_some_and(|c| c.contains("test"))
    {
        TESTS_RAN.store(true, Ordering::Relaxed);
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

/// An async observer.
#[hook(subagent_stop)]
async fn subagent_done(ctx: &SubagentStop) {
    tokio::task::yield_now().await;
    assert!(!ctx.subagent_name.is_empty());
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
        self.fire(
            "post_model_call",
            format!("{}: {}", ctx.model, short(&ctx.response)),
        );
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
    fn permission_request(&self, ctx: &mut PermissionRequest) -> HookResult<Verdict> {
        self.fire(
            "permission_request",
            format!("{} wants permission", ctx.tool_name),
        );
        Ok(Verdict::Continue)
    }
    fn post_tool_batch(&self, ctx: &mut PostToolBatch) -> HookResult<Verdict> {
        self.fire(
            "post_tool_batch",
            format!("{} tool calls", ctx.tool_calls.len()),
        );
        Ok(Verdict::Continue)
    }
    fn pre_model_switch(&self, ctx: &mut PreModelSwitch) -> HookResult<Verdict> {
        self.fire(
            "pre_model_switch",
            format!("{} -> {}", ctx.from_model, ctx.to_model),
        );
        Ok(Verdict::Continue)
    }
}

/// What the trace means, printed before the session.
const LEGEND: &str = "\
The model is scripted: a fake plays back a fixed list of replies, errors and tool calls (no
network, no API key), so every run is the same. The tools are real: files are written and
shell commands run in a temporary project directory. Every builtin policy is on.

How to read the trace:
  point                what fired        a hook point fired, with what it carries (printed by
                                         the `trace` provider, which runs first at every point)
                         hook -> result  a hook that decided something (allow, ask, deny, a
                                         retry or fallback), and how long it ran; hooks that
                                         only said \"no opinion\" are not shown
                         hook changed    a hook changed what the agent is about to do: a
                                         command rewritten before it runs, a model switched
                                         (the budget's soft limit moves model calls to a
                                         cheaper model); later hooks see the change
A WARN line on stderr is a policy's log: the task tracker's `bd` is not installed here, so it
says so once and tracks nothing.
";

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
                        ModelReply::new(reply.chunks)
                            .with_usage(reply.usage)
                            .with_stop_reason("end_turn")
                            .with_tool_calls(reply.tools.iter().map(ToolRequest::call))
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
                .tool_call(req.call(), async |input| {
                    Ok(workspace.run(&req.name, input)?)
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
        // resilience: a rate limit is retried with backoff.
        Turn::Fail(ErrorKind::RateLimit, "429 Too Many Requests"),
        Turn::Reply {
            chunks: vec!["Let me look ", "at the project."],
            // secrets-guard: reading `.env` through the shell is denied.
            tools: vec![ToolRequest::bash("ls"), ToolRequest::bash("cat .env")],
        },
        // resilience: a model error falls back to the next model of the chain.
        Turn::Fail(ErrorKind::Model, "500 model overloaded"),
        Turn::Reply {
            chunks: vec!["Adding the endpoint."],
            // write-guard: src/ is allowed, a file outside the project is not.
            tools: vec![
                ToolRequest::write(
                    "src/health.rs",
                    "pub fn health() -> &'static str { \"ok\" }\n",
                ),
                ToolRequest::write("../outside.txt", "escaped"),
            ],
        },
        Turn::Reply {
            chunks: vec!["Cleaning up."],
            // command-guard sees through quotes, `\rm` and `sh -c`; `git reset --hard` asks.
            tools: vec![
                ToolRequest::bash(r"sh -c '\rm -fr  /'"),
                ToolRequest::bash("git reset --hard"),
            ],
        },
        Turn::Reply {
            chunks: vec!["Done."],
            tools: vec![],
        },
        Turn::Reply {
            chunks: vec!["Running the tests."],
            // pii-scrub: the e-mail address in the output is redacted before the model sees it.
            tools: vec![ToolRequest::bash(
                "grep -q ok src/health.rs && echo 'test health ... ok (owner: jane.doe@example.com)'",
            )],
        },
        Turn::Reply {
            chunks: vec![
                "Tests pass. ",
                "Deployed with key AKIAIOSFODNN7EXAMPLE ",
                "as configured.",
            ],
            tools: vec![],
        },
        // The reviewer subagent's turn: it reads the file and rejects it.
        Turn::Reply {
            chunks: vec!["REJECTED: src/health.rs no test covers it"],
            tools: vec![ToolRequest::read("src/health.rs")],
        },
        // Back to the lead, whose rewrite of the rejected file is locked out.
        Turn::Reply {
            chunks: vec!["Fixing it myself."],
            tools: vec![ToolRequest::write(
                "src/health.rs",
                "pub fn health() -> &'static str { \"OK\" }\n",
            )],
        },
        Turn::Reply {
            chunks: vec!["Another agent has to revise src/health.rs."],
            tools: vec![],
        },
    ]
}

/// The project the session works in: team notes for `context-inject` and a `.env` for
/// `secrets-guard` to protect.
fn project() -> Result<tempfile::TempDir, std::io::Error> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join(".agents"))?;
    std::fs::write(
        dir.path().join(".agents/notes.md"),
        "Services live in src/; every change needs a passing test.\n",
    )?;
    std::fs::write(dir.path().join(".env"), "DATABASE_PASSWORD=hunter2\n")?;
    // A Claude-Code-style command hook: event JSON on stdin, JSON answer on stdout.
    std::fs::write(dir.path().join("hooks.yaml"), HOOKS_YAML)?;
    std::fs::create_dir_all(dir.path().join("scripts"))?;
    std::fs::write(dir.path().join("scripts/log_writes.sh"), LOG_WRITES_SH)?;
    Ok(dir)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The policies log through `tracing` (a missing `bd` for the task tracker, a circuit
    // breaker that opens); show warnings unless RUST_LOG says otherwise.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();

    let dir = project()?;
    let root = dir.path().canonicalize()?;
    println!("{LEGEND}\nSession in {}\n", root.display());

    // Every builtin policy, from one settings document; `install` adds them at their
    // documented orders and attaches the audit trail to the built set.
    let settings = SETTINGS.replace("{project}", &root.display().to_string());
    let config: BuiltinConfig = serde_json::from_str(&settings)?;
    let builtins = Builtins::new(config)?;
    let trace = Arc::new(Trace::default());
    let hooks = builtins.install(Hooks::builder().provider_arc(i32::MIN, trace.clone()))?;
    // What each hook run decided or changed, under the point's line (the trace's own runs left
    // out: they are the point's line).
    let narrator = Arc::new(Narrator::new("trace"));
    let narrate = narrator.clone();
    hooks.subscribe(move |run| {
        for line in narrate.lines(run) {
            println!("{:<20}   {line}", "");
        }
    });

    // The command hooks of the project's hooks.yaml join the same set, one `config` entry at
    // each point that has some; every run is reported as a `hook_command` event.
    let sources = Sources::new().project(&root);
    let declared = sources
        .load()
        .map_err(|problems| format!("hooks.yaml: {problems:?}"))?;
    let configured = ConfigHooks::builder(&root).build(declared)?;
    let command_runs = Arc::new(Mutex::new(Vec::new()));
    let runs = command_runs.clone();
    configured.subscribe(move |event| {
        if let CommandEvent::Ran(run) = event {
            runs.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(run.clone());
        }
    });
    configured.attach(&hooks)?;

    // The same PII policy value scrubs streamed chunks too, through a runtime closure. It
    // runs first (before the trace, which sorts after it by name), so nothing shows a secret.
    if let Some(pii) = builtins.pii_scrub().cloned() {
        let scrub = Hook::<hookrail_core::points::model_stream_chunk::Point>::new(
            "scrub_stream",
            move |ctx: &mut ModelStreamChunk| {
                if let std::borrow::Cow::Owned(clean) = pii.scrub_str(&ctx.chunk) {
                    ctx.chunk = clean;
                }
            },
        );
        hooks.register(scrub.order(i32::MIN))?;
    }

    let mut agent = Agent {
        model: ScriptedModel::new(script()),
        tools: Workspace::new(&root),
    };
    let meta = Meta::new("demo-session")
        .with_agent("lead")
        .with_tenant("acme")
        .with_cwd(&root);
    // Nobody is there to approve `ask` verdicts: say so, and refuse.
    let session = Session::start(hooks.clone(), meta, "large-model").await?;
    let mut session = session.with_approver(|point, reason| {
        println!("{:<20}   approval asked ({point}): {reason} -> refused", "");
        false
    });
    for note in session.start_context() {
        println!("{:<20}   context for the model: {}", "", short(note));
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

    // A reviewer subagent, with a runtime hook that notes the reviewer's tool output.
    let note = hooks.register(Hook::<hookrail_core::points::post_tool_use::Point>::new(
        "reviewer_note",
        |ctx: &mut PostToolUse| {
            if ctx.meta.agent_name.as_ref() == "reviewer" {
                ctx.add_context("reviewers see files read-only");
            }
        },
    ))?;
    let mut reviewer = session
        .start_subagent("reviewer", "review src/health.rs")
        .await?;
    let (verdict, tools) = agent
        .call(
            &mut reviewer.session,
            vec![Message::new(Role::User, reviewer.start.task.clone())],
        )
        .await?;
    agent.run_tools(&mut reviewer.session, &tools).await?;
    // reviewer-lockout reads the `REJECTED: …` line of the reviewer's last message.
    session
        .finish_subagent(reviewer, SubagentStatus::Completed, Some(verdict))
        .await;
    hooks.unregister(note);

    agent
        .run_prompt(&mut session, "Address the review of src/health.rs.")
        .await?;

    session
        .notify("agent_completed", "The /health endpoint is ready")
        .await;
    // Points whose moment is the agent's own, not the session's: a permission prompt the
    // agent is about to show, the end of a batch of parallel tool calls, a model switch the
    // user asked for. The agent dispatches them on the session's hooks.
    let meta = session.meta().next();
    let points = session.hooks();
    let mut permission =
        PermissionRequest::new(meta.clone(), "Bash", json!({"command": "cargo publish"}));
    points
        .dispatch_async::<hookrail_core::points::permission_request::Point>(&mut permission)
        .await;
    let mut batch = PostToolBatch::new(meta.clone(), vec![json!({"tool_name": "Read"})]);
    points
        .dispatch_async::<hookrail_core::points::post_tool_batch::Point>(&mut batch)
        .await;
    let mut switch = PreModelSwitch::new(meta, session.model(), "claude-sonnet");
    points
        .dispatch_async::<hookrail_core::points::pre_model_switch::Point>(&mut switch)
        .await;
    let end = session.end(SessionEndReason::Completed, true).await;

    // The audit trail, read back from SQLite.
    if let Some(audit) = builtins.audit() {
        audit.flush()?;
        let reader = AuditReader::open(root.join(".agents/audit.db"))?;
        println!("\naudit trail: {} records", reader.count()?);
        println!(
            "Every tool call the model asked for, as the audit recorded it: status `ok` (it ran),\n\
             `denied` (a guard refused it) or `asked` (a guard asked a person, and nobody was\n\
             there to approve); the reason is the deciding policy's."
        );
        println!("{:<8} {:<9} {:<42} reason", "tool", "status", "input");
        let calls = reader.tool_calls("demo-session")?;
        let statuses: Vec<&str> = calls.iter().map(|c| c.status.as_str()).collect();
        // The script's calls, as the policies must have decided them (CI runs this example).
        let expected = [
            "ok", "denied", "ok", "denied", "denied", "asked", "ok", "ok", "denied",
        ];
        if statuses != expected {
            return Err(format!("audit trail: {statuses:?}, expected {expected:?}").into());
        }
        for call in calls {
            println!(
                "{:<8} {:<9} {:<42} {}",
                call.tool_name,
                call.status.as_str(),
                short(&call.input),
                call.reason.as_deref().map(short).unwrap_or_default()
            );
        }
    }
    if let Some(report) = builtins.budget().and_then(|b| b.report("demo-session")) {
        println!(
            "\nspend: ${:.4} for {} tokens; {} calls moved to the cheaper model; limits hit: {:?}",
            report.cost_usd(),
            report.tokens.total(),
            report.downgraded_calls,
            report.limits_hit
        );
    }
    let command_runs = command_runs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    println!("\ncommand hooks (hooks.yaml): {} runs", command_runs.len());
    for run in &command_runs {
        println!(
            "  {} at {}: {:?} in {} ms",
            run.hook_id,
            run.point,
            run.status,
            run.duration.as_millis()
        );
    }
    let logged = std::fs::read_to_string(root.join(".agents/writes.jsonl")).unwrap_or_default();
    if command_runs.is_empty() || logged.lines().count() != command_runs.len() {
        return Err(format!(
            "the command hook ran {} times and logged {} writes",
            command_runs.len(),
            logged.lines().count()
        )
        .into());
    }
    if let Ok(decisions) = std::fs::read_to_string(root.join(".agents/decisions.md")) {
        println!("\n.agents/decisions.md:\n{}", decisions.trim_end());
    }

    println!(
        "\nEvery standard point: its kind, how many hooks it has in this set (linked #[hook] fns,\n\
         providers that implement it, closures, the hooks.yaml entry) and how many times it\n\
         fired. The run fails if one never fired."
    );
    println!(
        "{:<20} {:<10} {:>6} {:>6}",
        "point", "kind", "hooks", "fired"
    );
    let fired = trace
        .fired
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let listing = hooks.list();
    let mut missing = Vec::new();
    // The standard catalog; Claude Code's own events (`config_change`, …: hookrail-config's
    // generic points) are served by `hooks claude`, not fired by an agent loop.
    for point in hookrail_core::registry::points()
        .into_iter()
        .filter(|p| hookrail_core::points::NAMES.contains(&p.name()))
    {
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
    // The legend promises these lines; the script makes both happen.
    let (rewrites, switches) = (narrator.rewrites(), narrator.model_switches());
    if rewrites == 0 || switches == 0 {
        return Err(format!(
            "the trace showed {rewrites} rewritten commands and {switches} model switches"
        )
        .into());
    }
    Ok(())
}
