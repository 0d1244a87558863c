//! Declaring hook points of your own: two of SecureYeoman's points, `memory_save_before` (a
//! guard that can veto or rewrite a memory before it is stored) and `auth_failure` (an observer
//! of failed logins), with hooks registered at them exactly as at the standard points.
//!
//! Run: `cargo run --example custom_points`

use std::sync::atomic::{AtomicU32, Ordering};

use hookrail_core::{Verdict, hook};

/// The points this application declares. Any crate can register hooks at them by path:
/// `#[hook(my_app::points::memory_save_before)]`.
pub mod points {
    use hookrail_core::context::Rewritable;

    /// A memory the agent wants to store.
    #[derive(Debug)]
    pub struct MemorySave {
        /// Where it goes.
        pub key: String,
        /// What is stored; guards may rewrite it (the original stays readable).
        pub value: Rewritable<String>,
    }

    /// A failed authentication attempt.
    #[derive(Debug)]
    pub struct AuthFailure {
        /// Who tried.
        pub user: String,
        /// From where.
        pub source_ip: String,
    }

    hookrail_core::hook_points! {
        /// Before a memory is saved: a deny vetoes the save; guards may rewrite the value.
        pub guard memory_save_before: MemorySave;
        /// After an authentication failure.
        pub observe auth_failure: AuthFailure;
    }
}

use points::{AuthFailure, MemorySave, auth_failure, memory_save_before};

/// Memories must not carry credentials.
#[hook(crate::points::memory_save_before, order = -10)]
fn no_credentials(ctx: &mut MemorySave) -> Verdict {
    if ctx.value.to_lowercase().contains("password") {
        return Verdict::deny("memories must not hold passwords");
    }
    Verdict::Continue
}

/// Long memories are trimmed to 80 characters.
#[hook(crate::points::memory_save_before)]
fn trim_long_memories(ctx: &mut MemorySave) -> Verdict {
    if ctx.value.chars().count() > 80 {
        let trimmed: String = ctx.value.chars().take(80).collect();
        ctx.value.set(trimmed);
    }
    Verdict::Continue
}

static FAILED_LOGINS: AtomicU32 = AtomicU32::new(0);

/// Counts failed logins; a real one would alert a SIEM.
#[hook(crate::points::auth_failure)]
fn count_failures(ctx: &AuthFailure) {
    let n = FAILED_LOGINS.fetch_add(1, Ordering::Relaxed) + 1;
    println!("  auth_failure #{n}: {} from {}", ctx.user, ctx.source_ip);
}

fn main() -> Result<(), hookrail_core::registry::RegistryError> {
    // Fail closed if the policy is not linked.
    hookrail_core::registry::require(["custom_points::no_credentials"])?;

    for (key, value) in [
        ("style", "prefer small commits"),
        ("db", "password=hunter2"),
        (
            "notes",
            "a very long memory that keeps going and going well past the limit that we allow for one entry",
        ),
    ] {
        let mut save = MemorySave {
            key: key.into(),
            value: value.to_owned().into(),
        };
        let out = memory_save_before::dispatch(&mut save);
        match &out.value {
            Verdict::Deny(reason) => println!("memory `{key}` refused: {reason}"),
            _ if save.value.is_rewritten() => {
                println!(
                    "memory `{key}` saved, trimmed to {} chars",
                    save.value.chars().count()
                )
            }
            _ => println!("memory `{key}` saved"),
        }
    }

    for user in ["alice", "mallory"] {
        let failure = AuthFailure {
            user: user.into(),
            source_ip: "203.0.113.7".into(),
        };
        let _ = auth_failure::dispatch(&failure);
    }

    println!("\nhooks at custom points:");
    for hook in hookrail_core::registry::linked() {
        if hook.point == "memory_save_before" || hook.point == "auth_failure" {
            println!("  {:<20} {:>4} {}", hook.point, hook.order, hook.name);
        }
    }
    Ok(())
}
