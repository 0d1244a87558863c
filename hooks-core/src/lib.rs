//! Typed hook points for AI agent runtimes.
//!
//! Annotate a plain `fn` or `async fn` in any crate of your build with
//! [`#[hook(...)]`](macro@hook). It is registered at link time (no central list, no setup code),
//! its signature is checked at compile time against the point's typed context, and the static
//! dispatcher runs it at the right point of the agent loop in a deterministic order.
//!
//! ```
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::{Verdict, hook, points::pre_tool_use};
//!
//! /// Refuse `sudo` in shell commands.
//! #[hook(pre_tool_use, order = -10, name = "no_sudo")]
//! fn no_sudo(ctx: &mut PreToolUse) -> Verdict {
//!     match ctx.command() {
//!         Some(cmd) if cmd.split_whitespace().any(|w| w == "sudo") => {
//!             Verdict::deny("sudo is not allowed in this project")
//!         }
//!         _ => Verdict::Continue,
//!     }
//! }
//!
//! let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({"command": "sudo rm x"}));
//! let outcome = pre_tool_use::dispatch(&mut ctx);
//! assert!(outcome.is_denied());
//! assert_eq!(outcome.decided_by.as_deref(), Some("no_sudo"));
//! ```
//!
//! # Hook points and their semantics
//!
//! The [standard catalog](points) has 20 points, from `session_start` to `pre_model_switch`.
//! Each point has a typed [context] and one of four [kinds](kind): a **guard** returns a
//! [`Verdict`] and may change its context (a deny stops the chain; the most restrictive verdict
//! wins), a **transform** changes its context in order, an **observe** hook only reads, and a
//! **recover** hook may return a [`Recovery`] (the first one wins). Crates can declare their own
//! points with [`hook_points!`].
//!
//! # The runtime
//!
//! The static dispatcher runs the link-time hooks. A [`runtime::Hooks`] value merges them with
//! [`runtime::HooksProvider`] objects and closures registered at run time, per point and in one
//! order; it can change while other threads dispatch, bounds async hooks by timeouts, applies
//! each hook's failure policy ([`OnError`]) and delivers a record of every run to `tracing` and
//! to subscribers. It also publishes every dispatched point, with its merged outcome, on an
//! event [`bus`] that programs extend with events of their own. [`runtime::Session`] wires a `Hooks` value into an agent loop so that every
//! point fires with a filled context.
//!
//! The runtime and the bus are the `runtime` cargo feature (on by default), the part that needs
//! tokio and arc-swap. A crate that only writes `#[hook]`s and calls the static dispatcher can
//! depend on `hookrail-core` with `default-features = false`: `#[hook]` (`async fn` hooks
//! included, through [`dispatch_async`]), the contexts, the registry and [`hook_points!`] stay,
//! and the build has no tokio.
//!
//! [`prelude`] holds the common imports: `use hookrail_core::prelude::*;`.
//!
//! # The linking rule
//!
//! **A crate that nothing references is not linked, and its hooks silently vanish.** If a crate
//! only contains hooks, name it once in the binary: `use my_hooks as _;`. Check at startup that
//! the hooks you rely on are there with [`registry::require`]; list what is linked with
//! [`registry::linked`]. See [`registry`] for details.
//!
//! # Cost
//!
//! Dispatching a point with no hooks is one relaxed atomic load. Synchronous dispatch performs
//! no heap allocation. Each `async fn` hook costs one boxed future per call. Figures are in
//! `BENCHMARKS.md`.
//!
//! # Backends
//!
//! Hooks are collected with [`linkme`](https://docs.rs/linkme) link sections by default (no code
//! runs before `main`). The `inventory` cargo feature switches to
//! [`inventory`](https://docs.rs/inventory)'s pre-main constructors, for targets linkme does not
//! support (wasm, some BSDs, Miri). Both behave the same; the choice is made inside hookrail-core,
//! so hook crates need no feature of their own.

#![warn(missing_docs)]
// Without the runtime, the docs still name its types where they explain the static path.
#![cfg_attr(not(feature = "runtime"), allow(rustdoc::broken_intra_doc_links))]

// Lets `#[hook]` and `hook_points!` expand inside this crate's own tests.
extern crate self as hookrail_core;

#[cfg(feature = "runtime")]
pub mod bus;
pub mod context;
pub mod dispatch;
pub mod kind;
mod outcome;
mod point;
pub mod points;
pub mod prelude;
pub mod registry;
#[cfg(feature = "runtime")]
pub mod runtime;
pub mod signal;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use dispatch::{dispatch, dispatch_async, dispatch_shared, dispatch_shared_async};
pub use kind::{BoxFuture, Guard, Kind, KindId, Observe, Recover, Transform};
pub use outcome::{
    BoxError, FailureCause, Failures, HookError, HookFailure, HookName, HookResult, IntoHookResult,
    OnError, Outcome, Recovery, UnknownOnError, Verdict,
};
pub use point::{HookEntry, HookFn, HookInfo, HookPoint, Registry};
pub use registry::PointInfo;

/// Registers a `fn` or `async fn` as a hook at a point.
///
/// ```text
/// #[hook(<point> [, order = <i32>] [, name = "<name>"] [, crate = <path>])]
/// ```
///
/// - `<point>`: a standard point by name (`pre_tool_use`, …; see [`points`]), or the path of a
///   point declared with [`hook_points!`] in any crate (`my_crate::points::auth_failure`).
/// - `order`: lower runs first; default 0. Ties are broken by name.
/// - `name`: default `module::path::fn_name`. Names must be unique per point.
/// - `crate`: the path to `hookrail_core`, if you renamed it.
///
/// The function takes exactly one argument, the point's context (`&mut Ctx` for guards and
/// transforms, `&Ctx` for observers and recoverers), and returns the kind's result (`Verdict`,
/// `()`, or `Option<Recovery>`) or a `Result` of it. An `async fn`'s future must be `Send`.
/// Mistakes are reported at the function, at compile time.
///
/// ```
/// use hookrail_core::context::{PostToolUse, SessionEnd};
/// use hookrail_core::hook;
///
/// #[hook(post_tool_use, order = 100, name = "redact_tokens")]
/// fn redact(ctx: &mut PostToolUse) {
///     if let Some(text) = ctx.tool_response.as_str() {
///         ctx.tool_response = text.replace("sk-secret", "[REDACTED]").into();
///     }
/// }
///
/// #[hook(session_end)]
/// async fn report(ctx: &SessionEnd) -> Result<(), std::io::Error> {
///     // write a report somewhere…
///     Ok(())
/// }
/// # fn main() {}
/// ```
pub use hookrail_macros::hook;

/// Declares hook points of your own, usable with `#[hook(path::to::point)]`.
///
/// ```text
/// hook_points! {
///     /// docs
///     <vis> <kind> <name>: <ContextType>;
///     ...
/// }
/// ```
///
/// `<kind>` is `guard`, `transform`, `observe` or `recover` (see [`kind`]). Each point becomes
/// a module `<name>` with a `Point` marker type, a `Context` alias and `dispatch` /
/// `dispatch_async` functions, exactly like the standard points. The context type must be
/// `Send + Sync + 'static`.
///
/// ```
/// pub mod points {
///     /// A memory the agent is about to save.
///     pub struct MemorySave { pub key: String, pub value: String }
///     /// A failed login.
///     pub struct AuthFailure { pub user: String }
///
///     hookrail_core::hook_points! {
///         /// Before a memory is saved; a deny vetoes the save.
///         pub guard memory_save_before: MemorySave;
///         /// After an authentication failure.
///         pub observe auth_failure: AuthFailure;
///     }
/// }
///
/// #[hookrail_core::hook(crate::points::memory_save_before)]
/// fn no_secrets(ctx: &mut points::MemorySave) -> hookrail_core::Verdict {
///     if ctx.value.contains("password") {
///         hookrail_core::Verdict::deny("memories must not hold passwords")
///     } else {
///         hookrail_core::Verdict::Continue
///     }
/// }
///
/// # fn main() {
/// let mut save = points::MemorySave { key: "k".into(), value: "password=x".into() };
/// assert!(points::memory_save_before::dispatch(&mut save).is_denied());
/// # }
/// ```
pub use hookrail_macros::hook_points;
