use hookrail_core::context::PreToolUse;
use hookrail_core::hook;

#[hook(pre_tool_use)]
fn allow_all(_ctx: &mut PreToolUse) -> bool {
    true
}

fn main() {}
