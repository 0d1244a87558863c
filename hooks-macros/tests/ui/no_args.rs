use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use)]
fn nothing() -> Verdict {
    Verdict::Continue
}

fn main() {}
