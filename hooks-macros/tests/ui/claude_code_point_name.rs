use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

// Claude Code's name for the point.
#[hook(PreToolUse, order = 10)]
fn claude_name(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

// A seed runtime's name (SecureYeoman).
#[hook(before_llm_call)]
fn seed_name(_ctx: &mut hookrail_core::context::PreModelCall) -> Verdict {
    Verdict::Continue
}

fn main() {}
