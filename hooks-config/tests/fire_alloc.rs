//! What `fire` allocates for a payload: the payload an agent sent flows through to
//! [`Fired::input`](hookrail_config::fire::Fired) without being copied.
//!
//! A counting allocator, in a test binary of its own: the bytes allocated while one event
//! is fired with a payload that holds one large field.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use hookrail_config::fire::fire;
use hookrail_core::runtime::Hooks;
use serde_json::json;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            BYTES.fetch_add(new_size.saturating_sub(layout.size()), Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is System's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_fired_payload_is_not_copied() {
    const FIELD: usize = 1 << 20;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let hooks = Hooks::builder().build().expect("no hooks");
    let payload = || {
        json!({
            "session_id": "s",
            "cwd": "/nonexistent/project",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": "x".repeat(FIELD) },
        })
    };
    // Once before counting: whatever is set up on first use.
    runtime
        .block_on(fire(&hooks, "pre_tool_use", payload()))
        .expect("fired");
    let input = payload();
    BYTES.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let fired = runtime.block_on(fire(&hooks, "pre_tool_use", input));
    COUNTING.store(false, Ordering::Relaxed);
    let fired = fired.expect("fired");
    let bytes = BYTES.load(Ordering::Relaxed);
    assert_eq!(
        fired.input["tool_input"]["command"].as_str().map(str::len),
        Some(FIELD)
    );
    // The context decoded from the payload holds the field once, and the context as the hooks
    // left it (`Fired::context`) once more; a copy of the payload would be a third.
    assert!(
        bytes < 2 * FIELD + FIELD / 2,
        "firing a payload with a {FIELD}-byte field allocated {bytes} bytes: the payload was copied"
    );
    assert!(
        bytes >= 2 * FIELD,
        "{bytes} bytes: the count is not counting"
    );
}
