use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

struct Policy;

impl Policy {
    #[hook(pre_tool_use)]
    fn check(&self, _ctx: &mut PreToolUse) -> Verdict {
        Verdict::Continue
    }
}

fn main() {}
