use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use, name = my_hook)]
fn named(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
