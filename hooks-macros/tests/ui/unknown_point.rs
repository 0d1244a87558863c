use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_usee)]
fn typo(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
