//! [`HooksProvider`]: a hook set as one object with a method per standard point.

use std::sync::Arc;

use crate::context::{
    ErrorOccurred, ModelStreamChunk, Notification, PostModelCall, PostQueueDrain, PostToolUse,
    PreCompact, PreModelCall, PreQueueDrain, PreToolUse, SessionEnd, SessionStart, StepEnd, Stop,
    SubagentStart, SubagentStop, UserPromptSubmit,
};
use crate::outcome::{HookName, HookResult, Recovery, Verdict};
use crate::point::HookPoint;
use crate::points;

use super::hook::{Arg, Callable, Hook, HookSource, Ret};

macro_rules! provider_trait {
    ($($point:ident: $ctx:ty, $arg:ty => $ret:ty = $neutral:expr;)*) => {
        /// A set of hooks as one object: one method per standard point, each a no-op by
        /// default (the interface of seed 000, in Rust).
        ///
        /// A provider added to a [`HooksBuilder`](super::HooksBuilder) takes part in every
        /// standard point under its [`name`](HooksProvider::name), merged with the point's
        /// other hooks (link-time `#[hook]` fns and runtime closures) by the point's rules:
        /// it is one more entry of each point, not a separate mechanism. Its methods are
        /// sync; do async work in an async [`Hook`] or an `async fn` `#[hook]`.
        ///
        /// ```
        /// use hookrail_core::context::PreToolUse;
        /// use hookrail_core::runtime::{Hooks, HooksProvider};
        /// use hookrail_core::{HookResult, Verdict};
        ///
        /// struct ReadOnlyAgent;
        ///
        /// impl HooksProvider for ReadOnlyAgent {
        ///     fn name(&self) -> &str {
        ///         "read_only_agent"
        ///     }
        ///
        ///     fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        ///         Ok(match ctx.tool_name.as_str() {
        ///             "Read" | "Grep" => Verdict::Continue,
        ///             other => Verdict::deny(format!("{other} is not allowed for this agent")),
        ///         })
        ///     }
        /// }
        ///
        /// let hooks = Hooks::builder().provider(ReadOnlyAgent).build()?;
        /// assert!(hooks.list().iter().any(|h| h.name == "read_only_agent"));
        /// # Ok::<(), hookrail_core::runtime::HooksError>(())
        /// ```
        pub trait HooksProvider: Send + Sync + 'static {
            /// The provider's name: the name of each of its entries (for ordering ties,
            /// `HOOKS_DISABLE`, enable/disable, listings and failure records). Defaults to the
            /// type's name.
            fn name(&self) -> &str {
                std::any::type_name::<Self>()
            }

            $(
                #[doc = concat!("The [`", stringify!($point), "`](crate::points::", stringify!($point), ") hook.")]
                fn $point(&self, ctx: $arg) -> HookResult<$ret> {
                    let _ = ctx;
                    Ok($neutral)
                }
            )*
        }

        /// The standard points: the ones a [`HooksProvider`] has a method for.
        pub(crate) trait Provided: HookPoint {
            fn call(provider: &dyn HooksProvider, arg: Arg<'_, Self>) -> HookResult<Ret<Self>>;
        }

        $(
            impl Provided for points::$point::Point {
                #[inline]
                fn call(provider: &dyn HooksProvider, arg: $arg) -> HookResult<$ret> {
                    provider.$point(arg)
                }
            }
        )*

        /// Calls `each` with the builder of every standard point's table.
        macro_rules! for_each_standard_point {
            ($each:ident) => {
                $( $each!(crate::points::$point::Point); )*
            };
        }
        pub(crate) use for_each_standard_point;
    };
}

provider_trait! {
    session_start: SessionStart, &mut SessionStart => () = ();
    session_end: SessionEnd, &SessionEnd => () = ();
    user_prompt_submit: UserPromptSubmit, &mut UserPromptSubmit => Verdict = Verdict::Continue;
    pre_model_call: PreModelCall, &mut PreModelCall => Verdict = Verdict::Continue;
    model_stream_chunk: ModelStreamChunk, &mut ModelStreamChunk => () = ();
    post_model_call: PostModelCall, &mut PostModelCall => () = ();
    pre_tool_use: PreToolUse, &mut PreToolUse => Verdict = Verdict::Continue;
    post_tool_use: PostToolUse, &mut PostToolUse => () = ();
    step_end: StepEnd, &StepEnd => () = ();
    stop: Stop, &mut Stop => Verdict = Verdict::Continue;
    pre_compact: PreCompact, &mut PreCompact => () = ();
    subagent_start: SubagentStart, &mut SubagentStart => Verdict = Verdict::Continue;
    subagent_stop: SubagentStop, &SubagentStop => () = ();
    error_occurred: ErrorOccurred, &ErrorOccurred => Option<Recovery> = None;
    notification: Notification, &Notification => () = ();
    pre_queue_drain: PreQueueDrain, &PreQueueDrain => () = ();
    post_queue_drain: PostQueueDrain, &PostQueueDrain => () = ();
}

/// The entry of `provider` at standard point `P`.
pub(crate) fn provider_hook<P: Provided>(
    provider: &Arc<dyn HooksProvider>,
    name: HookName,
    order: i32,
) -> Hook<P> {
    let p = Arc::clone(provider);
    let callable = Callable::Sync(Arc::new(move |arg| P::call(&*p, arg)));
    let mut hook = Hook::with(name, callable).order(order);
    hook.entry.source = HookSource::Provider;
    hook
}
