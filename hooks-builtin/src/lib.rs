//! Builtin hook policies for [`hooks_core`], one cargo feature each.
//!
//! This crate holds no policies yet: they arrive with their own issue (command guard, write
//! guard, secrets guard, PII scrubbing, budget, rate limit, audit, context injection,
//! resilience, task tracking, reviewer lockout), each behind a cargo feature.
//!
//! Like every crate that only contains hooks, it must be named by the application to be linked:
//! `use hooks_builtin as _;` (see [`hooks_core::registry`]).
