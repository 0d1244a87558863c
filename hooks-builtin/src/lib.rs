//! Builtin hook policies for [`hookrail_core`], one cargo feature each.
//!
//! Every policy is a value that implements [`HooksProvider`](hookrail_core::runtime::HooksProvider):
//! build it from its settings (in code, or deserialized from the `builtin:` section of a config
//! file) and add it to a [`Hooks`](hookrail_core::runtime::Hooks) builder. Policies are values,
//! not link-time hooks, so two tenants in one process can run the same policy with different
//! settings, and nothing is active unless you add it.
//!
//! Settings are checked when the policy is built: a bad glob or pattern is a [`ConfigError`]
//! that names the policy, the field and the problem. A guard that cannot decide denies.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod error;
pub mod paths;
mod set;
pub mod state;
pub mod tools;

pub use error::ConfigError;
pub use paths::{ProjectRootError, check_project_root};
pub use set::{BuiltinConfig, Builtins, NotBuilt, order};

#[cfg(any(feature = "command-guard", feature = "secrets-guard"))]
pub mod shell;

#[cfg(feature = "audit")]
pub mod audit;
#[cfg(feature = "budget")]
pub mod budget;
#[cfg(feature = "command-guard")]
pub mod command_guard;
#[cfg(feature = "context-inject")]
pub mod context_inject;
#[cfg(any(feature = "secrets-guard", feature = "write-guard"))]
mod globs;
#[cfg(feature = "pii-scrub")]
pub mod pii_scrub;
#[cfg(feature = "rate-limit")]
pub mod rate_limit;
#[cfg(feature = "resilience")]
pub mod resilience;
#[cfg(feature = "reviewer-lockout")]
pub mod reviewer_lockout;
#[cfg(feature = "secrets-guard")]
pub mod secrets_guard;
#[cfg(any(
    feature = "secrets-guard",
    feature = "write-guard",
    feature = "reviewer-lockout"
))]
mod shown;
#[cfg(feature = "task-tracker")]
pub mod task_tracker;
#[cfg(feature = "write-guard")]
pub mod write_guard;
