use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use)]
fn any_ctx<C>(_ctx: &mut C) -> Verdict {
    Verdict::Continue
}

fn main() {}
