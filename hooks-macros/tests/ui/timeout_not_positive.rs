use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use, timeout_ms = 0)]
fn instant(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
