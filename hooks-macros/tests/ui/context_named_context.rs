// A context type may be called `Context` (or `Point`): the point's own items must not shadow it.
// This case must fail only because the hook returns the wrong type.
pub struct Context;

hookrail_core::hook_points! {
    pub guard checked: Context;
}

#[hookrail_core::hook(crate::checked)]
fn wrong(_ctx: &mut Context) {}

fn main() {}
