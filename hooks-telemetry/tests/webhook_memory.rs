//! A dead endpoint and 100 000 events enqueued as fast as possible: every event is accounted
//! for (sent, failed or dropped, nothing silently lost), and memory stays flat. Live heap bytes
//! are counted by this binary's global allocator; no wall-clock assertion.
//!
//! This binary holds a single test, so no other test allocates while it measures.
#![cfg(feature = "webhooks")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::time::Duration;

use hookrail_telemetry::signature::Secret;
use hookrail_telemetry::webhooks::{Webhook, Webhooks};
use serde_json::json;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const EVENTS: u64 = 100_000;
const QUEUE: usize = 256;
/// Allowed growth of live heap bytes between 1 000 and 100 000 events. Retaining the events
/// (about 300 bytes each, payload and envelope) would grow it by ~30 MB.
const FLAT: isize = 256 * 1024;

fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
    // Closed here: connections to it are refused.
}

fn payload(i: u64) -> serde_json::Value {
    json!({"tool": "bash", "args": ["echo", i], "cwd": "/work/project", "pad": "x".repeat(160)})
}

#[test]
fn dead_endpoint_100k_events_every_event_accounted_for_and_memory_flat() {
    let hooks = Webhooks::new([
        Webhook::new(format!("http://127.0.0.1:{}/hook", dead_port()))
            .secret(Secret::new("memory-test-secret").unwrap())
            .queue_capacity(QUEUE)
            .max_retries(2)
            .backoff(Duration::from_millis(1), Duration::from_millis(4))
            .timeout(Duration::from_secs(1)),
    ])
    .unwrap();

    let baseline = LIVE.load(Relaxed);
    let mut queued = 0;
    for i in 0..1_000 {
        queued += hooks.enqueue("pre_tool_use", payload(i));
    }
    let after_1k = LIVE.load(Relaxed);
    for i in 1_000..EVENTS {
        queued += hooks.enqueue("pre_tool_use", payload(i));
    }
    let after_100k = LIVE.load(Relaxed);
    let running = hooks.stats();

    let end = hooks.shutdown(Duration::from_secs(60));
    let after_shutdown = LIVE.load(Relaxed);

    eprintln!(
        "live heap bytes: baseline {baseline}, after 1k events {after_1k} ({:+}), after 100k \
         {after_100k} ({:+} since 1k), after shutdown {after_shutdown}; queued {queued}, stats \
         while running {running:?}, at the end {end:?}",
        after_1k - baseline,
        after_100k - after_1k,
    );

    // Every event is in exactly one bucket; none is pending after shutdown.
    assert_eq!(end.pending, 0, "{end:?}");
    assert_eq!(end.sent, 0, "the endpoint is dead: {end:?}");
    assert_eq!(end.sent + end.failed + end.dropped, EVENTS, "{end:?}");
    assert!(end.dropped > 0 && end.failed > 0, "{end:?}");
    assert_eq!(
        end.failed,
        queued as u64 - (end.dropped - (EVENTS - queued as u64))
    );
    // Each failed event was tried 1 + max_retries times, unless abandoned at shutdown.
    assert!(end.retried <= 2 * end.failed, "{end:?}");

    // Memory: flat between 1k and 100k events.
    assert!(
        after_100k - after_1k <= FLAT,
        "live heap grew by {} bytes between 1k and 100k events",
        after_100k - after_1k
    );
}
