pub struct MemorySave;

hooks_core::hook_points! {
    pub veto memory_save_before: MemorySave;
}

fn main() {}
