use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook]
fn nowhere(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
