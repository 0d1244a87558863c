use hooks_core::context::{Meta, PreToolUse, SessionEnd, SessionEndReason};
use hooks_core::{Verdict, hook, points::{pre_tool_use, session_end}};

#[hook(pre_tool_use, order = 1)]
fn deny_sudo(ctx: &mut PreToolUse) -> Verdict {
    if ctx.command().is_some_and(|c| c.contains("sudo")) { Verdict::deny("no sudo") } else { Verdict::Continue }
}

#[hook(pre_tool_use, order = 2)]
async fn async_ask(ctx: &mut PreToolUse) -> Result<Verdict, std::io::Error> {
    let _ = ctx;
    Ok(Verdict::Continue)
}

#[hook(session_end)]
fn obs(_ctx: &SessionEnd) {}

#[test]
fn smoke() {
    let mut ctx = PreToolUse::new(Meta::new("s"), "Bash", serde_json::json!({"command": "sudo ls"}));
    let out = pre_tool_use::dispatch(&mut ctx);
    assert!(out.is_denied());
    let mut e = SessionEnd::new(Meta::new("s"), SessionEndReason::Completed, true);
    let _ = session_end::dispatch(&mut e);
    for h in hooks_core::registry::linked() { println!("{h:?}"); }
}
