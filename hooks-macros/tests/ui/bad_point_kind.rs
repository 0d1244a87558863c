pub struct MemorySave;

hookrail_core::hook_points! {
    pub veto memory_save_before: MemorySave;
}

fn main() {}
