//! A real rig agent, guarded by hookrail's builtin policies.
//!
//! ```sh
//! cargo run -p hookrail-rig --example rig_agent
//! ```
//!
//! The model is a local OpenAI-compatible server this example starts on 127.0.0.1 (no network,
//! no key): its scripted replies first ask the agent to run `rm -rf /`, then to read a log file
//! that holds an AWS access key, then answer. The rig agent talks to it with rig's own OpenAI
//! client; [`RigHooks`] runs the command guard and the PII scrubber at rig's tool boundary.
//!
//! It exits non-zero unless `rm -rf /` was denied and never reached the tool, the model was
//! told why, and the key was scrubbed from what the model got back.

#[path = "../tests/support/mod.rs"]
mod support;

use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};

use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::context::{Meta, SessionEnd};
use hookrail_core::points::session_end;
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_rig::RigHooks;
use serde_json::json;
use support::{MockOpenAi, ReadFile, Reply, Shell, tool_result};

/// A well-formed AWS access key id (AWS's documentation example), as a leaked one would look.
const SECRET: &str = "AKIAIOSFODNN7EXAMPLE";

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    // A file whose content carries a secret, as a deploy log might.
    let dir = std::env::temp_dir().join(format!("hookrail-rig-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("deploy.log");
    std::fs::write(
        &log,
        format!("deploy ok\nexport AWS_ACCESS_KEY_ID={SECRET}\nregion eu-west-1\n"),
    )?;
    let result = run(&log.to_string_lossy()).await;
    std::fs::remove_dir_all(&dir)?;
    result
}

async fn run(log: &str) -> Result<(), Box<dyn Error>> {
    let server = MockOpenAi::start(vec![
        Reply::tool("call_1", "bash", json!({"command": "rm -rf /"})),
        Reply::tool("call_2", "read_file", json!({"path": log})),
        Reply::text("The root filesystem is intact and the deploy log is read."),
    ])
    .await?;

    // The builtin guards: the command guard on shell tools, the scrubber on tool output.
    let config: BuiltinConfig =
        serde_json::from_value(json!({"command_guard": {}, "pii_scrub": {}}))?;
    let ended: Arc<Mutex<Option<SessionEnd>>> = Arc::default();
    let seen = ended.clone();
    let builder = Hooks::builder().hook(Hook::<session_end::Point>::new("report", move |end| {
        *seen.lock().unwrap_or_else(PoisonError::into_inner) = Some(end.clone());
    }));
    let hooks = Builtins::new(config)?.install(builder)?;

    let shell = Shell::default();
    let agent = server.agent(|builder| {
        builder
            .tool(shell.clone())
            .tool(ReadFile)
            .add_hook(
                RigHooks::new(hooks, support::MODEL).with_meta(Meta::new("").with_agent("ops")),
            )
            .build()
    });
    let answer = agent
        .prompt("Free some disk space, then check the deploy log.")
        .max_turns(5)
        .await?;
    println!("answer: {}", answer.output());

    // What the tool ran, and what the model was sent, decide whether the guards worked.
    let ran = shell
        .ran
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let requests = server.requests();
    let denial = requests.get(1).and_then(|r| tool_result(r, "call_1"));
    let read = requests.get(2).and_then(|r| tool_result(r, "call_2"));
    println!("the shell tool ran: {ran:?}");
    println!("the model was told about `rm -rf /`: {denial:?}");
    println!("the model got back from read_file: {read:?}");
    let end = ended.lock().unwrap_or_else(PoisonError::into_inner).clone();

    let mut failed = Vec::new();
    if !ran.is_empty() {
        failed.push(format!("the shell tool ran {ran:?}"));
    }
    match &denial {
        Some(text) if text.contains("denied") && text.contains("command_guard") => {}
        other => failed.push(format!(
            "the model was not told why `rm -rf /` was refused: {other:?}"
        )),
    }
    match &read {
        Some(text) if !text.contains(SECRET) && text.contains("[REDACTED:aws_access_key]") => {}
        other => failed.push(format!(
            "the key was not scrubbed from the tool result: {other:?}"
        )),
    }
    if requests.iter().any(|r| r.to_string().contains(SECRET)) {
        failed.push("the key reached the model in some request".into());
    }
    match &end {
        Some(end) if end.success && end.tool_calls == 1 => {
            println!(
                "session_end: {} tool call(s), {} tokens, agent `{}`",
                end.tool_calls,
                end.tokens.total(),
                end.meta.agent_name
            );
        }
        other => failed.push(format!(
            "session_end did not report one tool call: {other:?}"
        )),
    }
    if failed.is_empty() {
        println!("ok: `rm -rf /` denied and never run, the model told why, the key scrubbed");
        Ok(())
    } else {
        Err(failed.join("; ").into())
    }
}
