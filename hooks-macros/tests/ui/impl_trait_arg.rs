use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use)]
fn anything(_ctx: impl std::fmt::Debug) -> Verdict {
    Verdict::Continue
}

fn main() {}
