use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook]
fn nowhere(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
