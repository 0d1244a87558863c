//! Test fixture: declares two custom points (from SecureYeoman's catalog) and registers hooks at
//! a standard point and at its own points. The integration tests reference it by path.

use std::sync::atomic::AtomicUsize;

use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

/// Points this crate declares.
pub mod points {
    /// A memory about to be saved.
    #[derive(Debug, Default)]
    pub struct MemorySave {
        /// The memory's key.
        pub key: String,
        /// The memory's value.
        pub value: String,
        /// Hooks append their names here, to show the order they ran in.
        pub trail: Vec<&'static str>,
    }

    /// A failed authentication.
    #[derive(Debug, Default)]
    pub struct AuthFailure {
        /// Who tried.
        pub user: String,
    }

    hookrail_core::hook_points! {
        /// Before a memory is saved; a deny vetoes the save.
        pub guard memory_save_before: MemorySave;
        /// After an authentication failure.
        pub observe auth_failure: AuthFailure;
    }
}

/// Failed logins seen by plugin-b's observer (kept here so that the tests never name plugin-b).
pub static AUTH_FAILURES_SEEN: AtomicUsize = AtomicUsize::new(0);

/// Records that it ran, then lets the call through.
#[hook(pre_tool_use, order = 10)]
pub fn trail_a(ctx: &mut PreToolUse) -> Verdict {
    ctx.add_context("plugin_a::trail_a");
    Verdict::Continue
}

/// Refuses memories holding passwords.
#[hook(crate::points::memory_save_before, order = 0)]
pub fn no_passwords(ctx: &mut points::MemorySave) -> Verdict {
    ctx.trail.push("plugin_a::no_passwords");
    if ctx.value.contains("password") {
        Verdict::deny("memories must not hold passwords")
    } else {
        Verdict::Continue
    }
}
