use std::rc::Rc;

use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use)]
async fn holds_rc(_ctx: &mut PreToolUse) -> Verdict {
    let counter = Rc::new(1);
    std::future::ready(()).await;
    drop(counter);
    Verdict::Continue
}

fn main() {}
