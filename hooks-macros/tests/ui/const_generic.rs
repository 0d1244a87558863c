use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use)]
fn limited<const N: usize>(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
