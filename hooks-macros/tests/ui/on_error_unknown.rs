use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use, on_error = "ignore")]
fn lenient(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
