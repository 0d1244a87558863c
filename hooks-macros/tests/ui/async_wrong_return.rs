use hookrail_core::context::PostToolUse;
use hookrail_core::hook;

#[hook(post_tool_use)]
async fn redact(_ctx: &mut PostToolUse) -> String {
    String::new()
}

fn main() {}
