use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

struct Policy;

impl Policy {
    #[hook(pre_tool_use)]
    fn check(&self, _ctx: &mut PreToolUse) -> Verdict {
        Verdict::Continue
    }
}

fn main() {}
