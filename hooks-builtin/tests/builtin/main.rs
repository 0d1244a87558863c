//! hookrail-builtin's integration tests: each policy through a real `Hooks` value and
//! `Session`, and the shell parser's properties. They are one test binary, not one per file:
//! it is compiled and linked once, and its slow parts (the audit's concurrency and crash
//! tests) run beside the rest. Each module compiles only with the features it needs; pick
//! one with a module filter: `cargo test -p hookrail-builtin --features full --test builtin --
//! audit::`. The command corpus is its own binary (`--test corpus`).

mod audit;
mod budget;
mod builtins;
#[cfg(any(feature = "budget", feature = "resilience"))]
mod capture;
mod command_guard;
mod context_inject;
mod pii_scrub;
#[cfg(any(feature = "secrets-guard", feature = "write-guard"))]
mod pre_tool;
mod project_root;
mod rate_limit;
mod resilience;
mod reviewer_lockout;
mod secrets_guard;
mod shell_props;
mod state;
mod state_store;
mod task_tracker;
mod write_guard;
