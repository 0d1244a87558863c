use hookrail_core::{Verdict, hook};

pub mod points {
    pub struct MemorySave;
    hookrail_core::hook_points! {
        pub guard memory_save_before: MemorySave;
    }
}

#[hook(crate::points::memory_save_after)]
fn after(_ctx: &mut points::MemorySave) -> Verdict {
    Verdict::Continue
}

fn main() {}
