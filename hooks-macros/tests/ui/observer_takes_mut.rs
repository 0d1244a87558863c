use hookrail_core::context::SessionEnd;
use hookrail_core::hook;

// Observers get `&Context`: they cannot change anything.
#[hook(session_end)]
fn tamper(ctx: &mut SessionEnd) {
    ctx.tool_calls = 0;
}

fn main() {}
