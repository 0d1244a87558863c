//! Test fixture: a crate whose hooks are never linked, because the integration tests list it as
//! a dependency but never name it. The startup check must report its hook as missing.

use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

/// Would deny everything, if it were linked.
#[hook(pre_tool_use)]
pub fn never_linked(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::deny("plugin-unlinked is linked after all")
}
