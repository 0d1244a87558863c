//! [`HooksProvider`]: a hook set as one object with a method per standard point.

use std::sync::Arc;

use crate::context::{
    ErrorOccurred, Meta, ModelStreamChunk, Notification, PermissionRequest, PostModelCall,
    PostQueueDrain, PostToolBatch, PostToolUse, PreCompact, PreModelCall, PreModelSwitch,
    PreQueueDrain, PreToolUse, SessionEnd, SessionStart, StepEnd, Stop, SubagentStart,
    SubagentStop, UserPromptSubmit,
};
use crate::outcome::{HookName, HookResult, Recovery, Verdict};
use crate::point::HookPoint;
use crate::points;

use super::gate::Gate;
use super::hook::{Arg, Callable, Hook, HookSource, Ret};

macro_rules! provider_trait {
    ($($point:ident / $bit:ident: $ctx:ty, $arg:ty => $ret:ty = $neutral:expr;)*) => {
        /// Bit positions of the standard points in a [`PointSet`].
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        enum Bit {
            $($point,)*
        }

        /// Every standard point's name, by bit position.
        const BIT_NAMES: &[&str] = &[$(stringify!($point)),*];

        /// A set of standard points: the points a [`HooksProvider`] implements, from
        /// [`HooksProvider::points`]. Built from the constants, one per point, with `|`.
        ///
        /// ```
        /// use hookrail_core::runtime::PointSet;
        ///
        /// let tools = PointSet::PRE_TOOL_USE | PointSet::POST_TOOL_USE;
        /// assert!(tools.contains(PointSet::PRE_TOOL_USE));
        /// assert!(tools.contains_name("post_tool_use") && !tools.contains_name("stop"));
        /// assert_eq!(tools.names().collect::<Vec<_>>(), ["pre_tool_use", "post_tool_use"]);
        /// assert_eq!(PointSet::ALL.len(), 20);
        /// ```
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct PointSet(u32);

        impl PointSet {
            /// No point.
            pub const NONE: PointSet = PointSet(0);
            /// Every standard point (the default of [`HooksProvider::points`]).
            pub const ALL: PointSet = PointSet((1 << BIT_NAMES.len()) - 1);
            $(
                #[doc = concat!("[`", stringify!($point), "`](crate::points::", stringify!($point), ") alone.")]
                pub const $bit: PointSet = PointSet(1 << Bit::$point as u32);
            )*

            /// Both sets (also `a | b`).
            #[must_use]
            pub const fn union(self, other: PointSet) -> PointSet {
                PointSet(self.0 | other.0)
            }

            /// Whether every point of `other` is in this set.
            pub const fn contains(self, other: PointSet) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether the standard point named `name` is in this set (`false` for any other
            /// name).
            pub fn contains_name(self, name: &str) -> bool {
                PointSet::named(name).is_some_and(|p| self.contains(p))
            }

            /// The standard point named `name`, alone; `None` for a name that is not one.
            pub fn named(name: &str) -> Option<PointSet> {
                BIT_NAMES.iter().position(|n| *n == name).map(|i| PointSet(1 << i))
            }

            /// The names of the points in the set, in the catalog's order.
            pub fn names(self) -> impl Iterator<Item = &'static str> {
                BIT_NAMES
                    .iter()
                    .enumerate()
                    .filter(move |(i, _)| self.0 & (1 << i) != 0)
                    .map(|(_, n)| *n)
            }

            /// How many points are in the set.
            pub const fn len(self) -> usize {
                self.0.count_ones() as usize
            }

            /// Whether the set has no point.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
        }

        /// A set of hooks as one object: one method per standard point, each a no-op by
        /// default (the interface of seed 000, in Rust).
        ///
        /// A provider added to a [`HooksBuilder`](super::HooksBuilder) takes part in the
        /// standard points it declares in [`points`](HooksProvider::points) (all of them
        /// unless it says otherwise) under its [`name`](HooksProvider::name), merged with the
        /// point's other hooks (link-time `#[hook]` fns and runtime closures) by the point's
        /// rules: it is one more entry of each of those points, not a separate mechanism. At
        /// the other points it is not entered at all, so subscribers, traces and the audit
        /// see no run of it there. Its methods are sync; do async work in an async [`Hook`]
        /// or an `async fn` `#[hook]`.
        ///
        /// ```
        /// use hookrail_core::context::PreToolUse;
        /// use hookrail_core::runtime::{Hooks, HooksProvider, PointSet};
        /// use hookrail_core::{HookResult, Verdict};
        ///
        /// struct ReadOnlyAgent;
        ///
        /// impl HooksProvider for ReadOnlyAgent {
        ///     fn name(&self) -> &str {
        ///         "read_only_agent"
        ///     }
        ///
        ///     // Entered at `pre_tool_use` only: no no-op runs at the other 16 points.
        ///     fn points(&self) -> PointSet {
        ///         PointSet::PRE_TOOL_USE
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
        /// let hooks = Hooks::builder().ignore_env().provider(ReadOnlyAgent).build()?;
        /// let entries: Vec<_> = hooks.list().into_iter().filter(|h| h.name == "read_only_agent").collect();
        /// assert_eq!(entries.len(), 1);
        /// assert_eq!(entries[0].point, "pre_tool_use");
        /// # Ok::<(), hookrail_core::runtime::HooksError>(())
        /// ```
        pub trait HooksProvider: Send + Sync + 'static {
            /// The provider's name: the name of each of its entries (for ordering ties,
            /// `HOOKS_DISABLE`, enable/disable, listings and failure records). Defaults to the
            /// type's name.
            fn name(&self) -> &str {
                std::any::type_name::<Self>()
            }

            /// The standard points this provider implements: it is entered at these and no
            /// other. Asked once, when the provider is added. Defaults to
            /// [`PointSet::ALL`], which enters it at every point, a method left at its
            /// default included (a default method cannot be told from a deliberate no-op).
            fn points(&self) -> PointSet {
                PointSet::ALL
            }

            /// Whether the provider runs unless switched on by name: `false` makes it opt-in,
            /// off until `HOOKS_ENABLE` lists its [`name`](HooksProvider::name) (where the
            /// embedder lets the environment be read) or the embedder calls
            /// [`HooksBuilder::enable`](super::HooksBuilder::enable) or
            /// [`Hooks::enable`](super::Hooks::enable). `HOOKS_DISABLE` still wins. Asked
            /// once, when the provider is added. Defaults to `true`.
            ///
            /// This is for hooks a deployment chooses to run (seed 001's AgentFS audit and
            /// Beads tracking are off unless `GWI_AGENTFS_ENABLED` / `GWI_BEADS_ENABLED`); a
            /// guard that must always run keeps the default.
            fn enabled_by_default(&self) -> bool {
                true
            }

            /// Whether the provider takes part in the session `meta` belongs to (seed 001's
            /// `isEnabled`): `false` skips every one of its hooks for that session, for
            /// instance when the tool it drives is not installed. Defaults to `true`.
            ///
            /// Asked once per session, at the first dispatch of that session that reaches one
            /// of the provider's points (`meta` is that context's), and remembered for the
            /// last [`MAX_REMEMBERED_SESSIONS`](super::MAX_REMEMBERED_SESSIONS) sessions. A
            /// `false` is logged once, at `info` level, naming the provider and the session;
            /// the skipped hooks leave no run records and no failures. Keep it cheap: it runs
            /// on the dispatching thread (a check that needs I/O can probe once when the
            /// provider is built and answer from a field).
            ///
            /// A panic here never switches the provider off: it is logged once at `warn`
            /// level and the provider stays enabled for the session, so a guard provider
            /// still runs and fails closed by its own policy.
            ///
            /// ```
            /// use hookrail_core::context::{Meta, StepEnd, StepStatus};
            /// use hookrail_core::points::step_end;
            /// use hookrail_core::runtime::{Hooks, HooksProvider, PointSet};
            /// use hookrail_core::HookResult;
            ///
            /// /// Seed 001's Beads hook: tracks work with the `bd` CLI, when it is installed.
            /// struct Beads {
            ///     bd_installed: bool,
            /// }
            ///
            /// impl HooksProvider for Beads {
            ///     fn name(&self) -> &str {
            ///         "beads"
            ///     }
            ///     fn points(&self) -> PointSet {
            ///         PointSet::STEP_END
            ///     }
            ///     fn is_enabled(&self, _meta: &Meta) -> bool {
            ///         self.bd_installed
            ///     }
            ///     fn step_end(&self, _ctx: &StepEnd) -> HookResult<()> {
            ///         unreachable!("never called while `bd` is missing")
            ///     }
            /// }
            ///
            /// let hooks = Hooks::builder()
            ///     .ignore_env()
            ///     .provider(Beads { bd_installed: false })
            ///     .build()?;
            /// let mut step = StepEnd::new(Meta::new("run-1"), "step-1", StepStatus::Completed);
            /// // Skipped, with one `info` line for the session; never a failure.
            /// for _ in 0..3 {
            ///     assert!(hooks.dispatch::<step_end::Point>(&mut step).failures.is_empty());
            /// }
            /// # Ok::<(), hookrail_core::runtime::HooksError>(())
            /// ```
            fn is_enabled(&self, meta: &Meta) -> bool {
                let _ = meta;
                true
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
            /// The point in a [`PointSet`].
            const BIT: PointSet;

            fn call(provider: &dyn HooksProvider, arg: Arg<'_, Self>) -> HookResult<Ret<Self>>;
        }

        $(
            impl Provided for points::$point::Point {
                const BIT: PointSet = PointSet::$bit;
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
    session_start / SESSION_START: SessionStart, &mut SessionStart => () = ();
    session_end / SESSION_END: SessionEnd, &SessionEnd => () = ();
    user_prompt_submit / USER_PROMPT_SUBMIT: UserPromptSubmit, &mut UserPromptSubmit => Verdict = Verdict::Continue;
    pre_model_call / PRE_MODEL_CALL: PreModelCall, &mut PreModelCall => Verdict = Verdict::Continue;
    model_stream_chunk / MODEL_STREAM_CHUNK: ModelStreamChunk, &mut ModelStreamChunk => () = ();
    post_model_call / POST_MODEL_CALL: PostModelCall, &mut PostModelCall => () = ();
    pre_tool_use / PRE_TOOL_USE: PreToolUse, &mut PreToolUse => Verdict = Verdict::Continue;
    post_tool_use / POST_TOOL_USE: PostToolUse, &mut PostToolUse => () = ();
    step_end / STEP_END: StepEnd, &StepEnd => () = ();
    stop / STOP: Stop, &mut Stop => Verdict = Verdict::Continue;
    pre_compact / PRE_COMPACT: PreCompact, &mut PreCompact => () = ();
    subagent_start / SUBAGENT_START: SubagentStart, &mut SubagentStart => Verdict = Verdict::Continue;
    subagent_stop / SUBAGENT_STOP: SubagentStop, &SubagentStop => () = ();
    error_occurred / ERROR_OCCURRED: ErrorOccurred, &ErrorOccurred => Option<Recovery> = None;
    notification / NOTIFICATION: Notification, &Notification => () = ();
    pre_queue_drain / PRE_QUEUE_DRAIN: PreQueueDrain, &PreQueueDrain => () = ();
    post_queue_drain / POST_QUEUE_DRAIN: PostQueueDrain, &PostQueueDrain => () = ();
    permission_request / PERMISSION_REQUEST: PermissionRequest, &mut PermissionRequest => Verdict = Verdict::Continue;
    post_tool_batch / POST_TOOL_BATCH: PostToolBatch, &mut PostToolBatch => Verdict = Verdict::Continue;
    pre_model_switch / PRE_MODEL_SWITCH: PreModelSwitch, &mut PreModelSwitch => Verdict = Verdict::Continue;
}

/// The entry of a provider at standard point `P`.
pub(crate) fn provider_hook<P: Provided>(slot: &ProviderSlot) -> Hook<P> {
    let p = Arc::clone(&slot.provider);
    let callable = Callable::Sync(Arc::new(move |arg| P::call(&*p, arg)));
    let mut hook = Hook::with(slot.name, callable)
        .order(slot.order)
        .enabled_by_default(slot.enabled_by_default);
    hook.entry.source = HookSource::Provider;
    hook.entry.gate = Some(Arc::clone(&slot.gate));
    hook
}

/// A provider added to a builder, with what was asked of it once, when it was added.
pub(crate) struct ProviderSlot {
    pub(crate) order: i32,
    pub(crate) name: HookName,
    pub(crate) points: PointSet,
    pub(crate) enabled_by_default: bool,
    pub(crate) provider: Arc<dyn HooksProvider>,
    /// Its per-session answers, shared by its entries at every point.
    pub(crate) gate: Arc<Gate>,
}

impl ProviderSlot {
    pub(crate) fn new(order: i32, provider: Arc<dyn HooksProvider>) -> Self {
        let name = HookName::intern(provider.name());
        ProviderSlot {
            order,
            name,
            points: provider.points(),
            enabled_by_default: provider.enabled_by_default(),
            gate: Arc::new(Gate::new(name, Arc::clone(&provider))),
            provider,
        }
    }
}

impl Default for PointSet {
    /// [`PointSet::NONE`].
    fn default() -> Self {
        PointSet::NONE
    }
}

impl std::ops::BitOr for PointSet {
    type Output = PointSet;

    fn bitor(self, other: PointSet) -> PointSet {
        self.union(other)
    }
}

impl std::ops::BitOrAssign for PointSet {
    fn bitor_assign(&mut self, other: PointSet) {
        *self = self.union(other);
    }
}

impl std::fmt::Debug for PointSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}
