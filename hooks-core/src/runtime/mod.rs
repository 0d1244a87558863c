//! The runtime: a [`Hooks`] value merges every source of hooks into one dispatcher.
//!
//! Per point, and in one order (`(order, name)`), a [`Hooks`] value runs:
//!
//! - the link-time `#[hook]` fns (the default provider: every `Hooks` value has them),
//! - the methods of [`HooksProvider`] objects added to its builder,
//! - [`Hook`]s built from closures, on the builder or registered while the program runs.
//!
//! They are all entries of the same point and merge by the point's kind (a provider is not a
//! separate mechanism with rules of its own). Several `Hooks` values can live in one process,
//! for instance one per tenant, each with its own providers, closures and disabled hooks.
//!
//! ```
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::Verdict;
//!
//! let strict = Hooks::builder()
//!     .hook(Hook::<pre_tool_use::Point>::new("no_bash", |ctx| {
//!         if ctx.tool_name == "Bash" { Verdict::deny("no shell for this tenant") } else { Verdict::Continue }
//!     }))
//!     .build()?;
//! let relaxed = Hooks::builder().build()?;
//!
//! let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({"command": "ls"}));
//! assert!(strict.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//! assert!(!relaxed.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied());
//! # Ok::<(), hookrail_core::runtime::HooksError>(())
//! ```
//!
//! # Live changes
//!
//! [`Hooks::register`], [`Hooks::unregister`], [`Hooks::enable`], [`Hooks::disable`],
//! [`Hooks::subscribe`] and [`Hooks::unsubscribe`] may be called while other threads dispatch.
//! A change builds a new immutable snapshot of the hook set and swaps it in atomically
//! (`arc-swap`); a dispatch reads the snapshot current when it starts, without a lock, and runs
//! exactly that set. Writers are serialized by a mutex that dispatch never touches.
//!
//! # Environment
//!
//! Hooks are switched on and off, timed and debugged through environment variables with the
//! prefix `HOOKS_` (seed 001's `GWI_*` variables, in our vocabulary). They are read once, when
//! the value is built, from the process environment, from a lookup the embedder gives
//! ([`HooksBuilder::env_source`]), or not at all ([`HooksBuilder::ignore_env`]). Each has a
//! builder call that does the same in code.
//!
//! | variable | effect | invalid value | builder call |
//! |---|---|---|---|
//! | `HOOKS_DISABLE=name,name` | switches off the hooks and providers of these names | — | [`HooksBuilder::disable`] |
//! | `HOOKS_ENABLE=name,name` | switches on the opt-in hooks and providers of these names ([`Hook::enabled_by_default`], [`HooksProvider::enabled_by_default`]); `HOOKS_DISABLE` wins for a name in both | — | [`HooksBuilder::enable`] |
//! | `HOOKS_TIMEOUT_MS=N` | the timeout of hooks that set none of their own, at points without a builder default (replaces the built-in [`default_timeout`]) | not a whole number ≥ 1: one `warn` line naming the variable and the value; the built-in timeouts stay | [`HooksBuilder::global_timeout`] |
//! | `HOOKS_DEBUG=1` | logs every hook run at `info` level instead of `debug` | not `1/true/yes/on/0/false/no/off`: one `warn` line; stays off | [`HooksBuilder::debug`] |
//!
//! Names are the names in [`Hooks::list`] (a provider's [`HooksProvider::name`], a hook's
//! `name`); a listed hook that is off says so (`enabled: false`, and
//! `enabled_by_default: false` for an opt-in hook).
//!
//! **Security.** `HOOKS_DISABLE` switches hooks *off*, guards included: whoever sets the
//! environment can turn a guard off. It applies only where the embedder lets the environment
//! be read. A process whose environment the guarded agent controls (the `hooks` binary, the
//! daemon, anything an agent starts) must call [`HooksBuilder::ignore_env`], as the `hooks`
//! binary does; there none of these variables has any effect. `HOOKS_ENABLE` only ever switches
//! on hooks compiled into the program, and a `HOOKS_TIMEOUT_MS` that is too short makes guards
//! time out, which denies (they fail closed) unless the embedder set them to fail open.
//!
//! ```
//! use hookrail_core::context::{Meta, StepEnd, StepStatus};
//! use hookrail_core::points::step_end;
//! use hookrail_core::runtime::{Hook, Hooks};
//! use std::time::Duration;
//!
//! // Seed 001's configuration: the AgentFS audit is off unless enabled, 5 s per hook.
//! let env = [("HOOKS_ENABLE", "agentfs"), ("HOOKS_TIMEOUT_MS", "5000")];
//! let hooks = Hooks::builder()
//!     // The process environment in production; a fixed table here.
//!     .env_source(move |name| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
//!     .hook(Hook::<step_end::Point>::new("agentfs", |_step| ()).enabled_by_default(false))
//!     .hook(Hook::<step_end::Point>::new("beads", |_step| ()).enabled_by_default(false))
//!     .build()?;
//! let listed = |name: &str| hooks.list().into_iter().find(|h| h.name == name).unwrap();
//! assert!(listed("agentfs").enabled);
//! assert!(!listed("beads").enabled, "opt-in, not in HOOKS_ENABLE");
//! assert_eq!(listed("agentfs").timeout, Duration::from_millis(5000));
//! # Ok::<(), hookrail_core::runtime::HooksError>(())
//! ```
//!
//! # Per-session enablement
//!
//! A provider can also answer, per session, whether it takes part
//! ([`HooksProvider::is_enabled`], seed 001's `isEnabled`): asked at the first dispatch of a
//! session that reaches one of its points, remembered for the last
//! [`MAX_REMEMBERED_SESSIONS`] sessions. A provider that answers `false` is skipped for that
//! session with one `info` line naming it and the session, never a failure per call; one whose
//! answer panics stays enabled (a guard still runs and fails closed by its own policy).
//!
//! # Timeouts and failures
//!
//! Each hook has a timeout (its own, a builder override, or the point's
//! [`default_timeout`]) that bounds its async work, and a failure policy ([`OnError`]:
//! guards fail closed by default, the other kinds open). A panic, an error or a timeout
//! becomes a [`HookFailure`](crate::HookFailure) in [`Outcome::failures`], never a policy
//! decision.
//!
//! # Observability
//!
//! Every hook run is logged with `tracing` (target `hookrail_core::runtime::record`) and delivered
//! as a [`HookRun`] to the value's subscribers ([`Hooks::subscribe`],
//! [`Hooks::subscribe_to`]).

mod builder;
mod composite;
mod gate;
mod hook;
mod provider;
mod record;
mod run;
mod session;
mod settings;

pub use composite::{CompositeHooksProvider, MemberFailure};
pub use gate::MAX_REMEMBERED_SESSIONS;
pub use hook::{Arg, Hook, HookCtx, HookSource, Ret};
pub use provider::{HooksProvider, PointSet};
pub use record::{HookRun, RunResult, SubscriptionId};
pub use session::{
    AbilityRunner, AgentError, ApproveFn, ModelReply, QueueDrain, Session, SessionError,
    SessionStats, Subagent, ToolError, ToolErrorKind, ToolRun, TurnEnd, execute_ability,
    guard_passes,
};
pub use settings::{ENV_DEBUG, ENV_DISABLE, ENV_ENABLE, ENV_TIMEOUT_MS, ENV_VARS, default_timeout};

use std::any::{Any, TypeId};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use arc_swap::ArcSwap;

use crate::bus::Bus;
use crate::kind::{Kind, KindId};
use crate::outcome::{HookName, OnError, Outcome};
use crate::point::HookPoint;

use hook::Entry;
pub(crate) use provider::for_each_standard_point;
use provider::{Provided, ProviderSlot, provider_hook};
use record::{Subscriber, SubscriberFn};
use run::Sink;
use settings::{EnvLookup, EnvSwitches};

/// An error building or changing a [`Hooks`] value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HooksError {
    /// Two hooks at one point have the same name (names identify hooks for ordering ties,
    /// `HOOKS_DISABLE`, enable/disable and failure records, so they must be unique per point).
    #[error(
        "hook name `{name}` is used twice at point `{point}` (by a {first} hook and a {second} hook)"
    )]
    DuplicateName {
        /// The point.
        point: &'static str,
        /// The name.
        name: HookName,
        /// Where the first hook came from.
        first: HookSource,
        /// Where the second came from.
        second: HookSource,
    },
}

/// Identifies a hook registered with [`Hooks::register`], to remove it with
/// [`Hooks::unregister`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HookId(u64);

/// One hook of a [`Hooks`] value, as listed by [`Hooks::list`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct HookListing {
    /// The point.
    pub point: &'static str,
    /// The point's kind.
    pub kind: KindId,
    /// The hook's name.
    pub name: HookName,
    /// Its sort key.
    pub order: i32,
    /// Where it came from.
    pub source: HookSource,
    /// Whether it is async.
    pub is_async: bool,
    /// False when disabled (by name, `HOOKS_DISABLE` or [`Hooks::disable`]), or when the hook
    /// is opt-in and nothing enabled it.
    pub enabled: bool,
    /// False for an opt-in hook ([`Hook::enabled_by_default`],
    /// [`HooksProvider::enabled_by_default`]): off unless `HOOKS_ENABLE`, [`Hooks::enable`] or
    /// [`HooksBuilder::enable`] names it. Serialized only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub enabled_by_default: bool,
    /// The timeout in effect.
    pub timeout: Duration,
    /// The failure policy in effect.
    pub on_error: OnError,
    /// `file:line` of a `#[hook]` fn.
    pub location: Option<(&'static str, u32)>,
}

/// `serde` helper: skip a field that holds its usual value, `true`.
fn is_true(b: &bool) -> bool {
    *b
}

/// A set of hooks: link-time `#[hook]` fns, providers and runtime closures, merged per point.
/// Cheap to clone (clones share the set).
///
/// See the [module docs](self).
#[derive(Clone)]
pub struct Hooks {
    inner: Arc<Inner>,
}

struct Inner {
    snapshot: ArcSwap<Snapshot>,
    state: Mutex<State>,
    bus: Bus,
}

/// An immutable view of the hook set: what one dispatch runs.
struct Snapshot {
    /// `PointTable<P>` per point, by `TypeId` of `P`.
    tables: HashMap<TypeId, Box<dyn Any + Send + Sync>, BuildHasherDefault<TypeIdHasher>>,
    listing: Vec<HookListing>,
    subscribers: Box<[Subscriber]>,
    debug: bool,
}

/// The enabled entries of one point, in run order.
struct PointTable<P: HookPoint> {
    entries: Box<[Entry<P>]>,
}

/// Everything a snapshot is built from. Only writers touch it.
struct State {
    points: Vec<PointSlot>,
    providers: Vec<ProviderSlot>,
    runtime: Vec<RuntimeHook>,
    /// Names switched off: they win over `enabled`.
    disabled: HashSet<String>,
    /// Names switched on: opt-in hooks of these names run.
    enabled: HashSet<String>,
    timeouts: HashMap<String, Duration>,
    point_timeouts: HashMap<String, Duration>,
    /// The default timeout of hooks without one of their own, at points without a builder
    /// default (`HOOKS_TIMEOUT_MS`, [`HooksBuilder::global_timeout`]).
    global_timeout: Option<Duration>,
    on_error: HashMap<String, OnError>,
    subscribers: Vec<Subscriber>,
    debug: bool,
    next_id: u64,
}

/// A point the value knows, and how to build its table.
struct PointSlot {
    id: TypeId,
    build: fn(&State) -> Result<Built, HooksError>,
}

struct Built {
    table: Box<dyn Any + Send + Sync>,
    listing: Vec<HookListing>,
}

struct RuntimeHook {
    id: HookId,
    point: TypeId,
    /// An `Entry<P>` for the point `P` whose `TypeId` is `point`.
    entry: Box<dyn Any + Send + Sync>,
}

/// `TypeId` is already a hash; hashing it again with SipHash would cost more than the rest of
/// the lookup.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_ne_bytes(word);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(5) ^ n;
    }
}

/// Builds a [`Hooks`] value.
#[must_use]
pub struct HooksBuilder {
    state: State,
    read_env: bool,
    /// Where the switches are read from instead of the process environment.
    env_source: Option<Box<EnvLookup>>,
    bus: Option<Bus>,
}

impl Hooks {
    /// Start building a hook set.
    pub fn builder() -> HooksBuilder {
        let mut state = State {
            points: Vec::new(),
            providers: Vec::new(),
            runtime: Vec::new(),
            disabled: HashSet::new(),
            enabled: HashSet::new(),
            timeouts: HashMap::new(),
            point_timeouts: HashMap::new(),
            global_timeout: None,
            on_error: HashMap::new(),
            subscribers: Vec::new(),
            debug: false,
            next_id: 0,
        };
        macro_rules! standard {
            ($p:ty) => {
                state.points.push(PointSlot {
                    id: TypeId::of::<$p>(),
                    build: build_standard::<$p>,
                });
            };
        }
        for_each_standard_point!(standard);
        HooksBuilder {
            state,
            read_env: true,
            env_source: None,
            bus: None,
        }
    }

    /// A hook set with only the link-time `#[hook]` fns (and the environment switches).
    pub fn new() -> Hooks {
        // Link-time hooks alone cannot collide: the registry already drops duplicate names.
        match Hooks::builder().build() {
            Ok(hooks) => hooks,
            Err(e) => unreachable!("a builder without runtime hooks cannot fail: {e}"),
        }
    }

    /// Run every hook of point `P` on `ctx` synchronously and merge their results by the
    /// point's kind. An async hook found here is a failure
    /// ([`FailureCause::AsyncInSyncDispatch`](crate::FailureCause::AsyncInSyncDispatch)); use
    /// [`dispatch_async`](Hooks::dispatch_async) where a point has async hooks.
    ///
    /// Lock-free, and allocation-free unless a hook fails or allocates itself.
    pub fn dispatch<P: HookPoint>(&self, ctx: &mut P::Context) -> Outcome<<P::Kind as Kind>::Ret> {
        let snapshot = self.inner.snapshot.load();
        let outcome = match snapshot.table::<P>() {
            Some(table) => run::run_sync(&table.entries, ctx, &snapshot.sink()),
            None => {
                drop(snapshot);
                let snapshot = self.learn::<P>();
                match snapshot.table::<P>() {
                    Some(table) => run::run_sync(&table.entries, ctx, &snapshot.sink()),
                    None => Outcome::default(),
                }
            }
        };
        self.inner.bus.publish_point::<P>(ctx, &outcome);
        outcome
    }

    /// Run every hook of point `P` on `ctx`, sync and async, and merge their results by the
    /// point's kind: guards, transforms and recoverers one after another in order, observers
    /// concurrently (the sync ones first, in order). Each async hook is bounded by its timeout
    /// and every hook's panic is caught, so one hook cannot hang or crash the agent loop.
    ///
    /// Timeouts need a tokio runtime with its timer enabled; without one, hooks run unbounded
    /// (logged at `warn`).
    pub async fn dispatch_async<P: HookPoint>(
        &self,
        ctx: &mut P::Context,
    ) -> Outcome<<P::Kind as Kind>::Ret> {
        let mut snapshot = self.inner.snapshot.load_full();
        if snapshot.table::<P>().is_none() {
            snapshot = self.learn::<P>();
        }
        let outcome = match snapshot.table::<P>() {
            None => Outcome::default(),
            Some(table) if <P::Kind as Kind>::ID == KindId::Observe => {
                run::run_observers(&table.entries, ctx, &snapshot.sink()).await
            }
            Some(table) => run::run_in_order(&table.entries, ctx, &snapshot.sink()).await,
        };
        self.inner.bus.publish_point::<P>(ctx, &outcome);
        outcome
    }

    /// Add a hook while the program runs. It takes part in every dispatch that starts after
    /// this returns.
    ///
    /// # Errors
    ///
    /// [`HooksError::DuplicateName`] if the point already has a hook of that name.
    pub fn register<P: HookPoint>(&self, hook: Hook<P>) -> Result<HookId, HooksError> {
        let mut state = self.state();
        state.know::<P>();
        let id = state.push_hook(hook);
        match state.snapshot() {
            Ok(snapshot) => {
                self.inner.snapshot.store(Arc::new(snapshot));
                Ok(id)
            }
            Err(e) => {
                state.runtime.retain(|h| h.id != id);
                Err(e)
            }
        }
    }

    /// Remove a hook added with [`register`](Hooks::register) (or on the builder). Returns
    /// false if there was none with that id.
    pub fn unregister(&self, id: HookId) -> bool {
        self.change(|state| {
            let before = state.runtime.len();
            state.runtime.retain(|h| h.id != id);
            state.runtime.len() != before
        })
    }

    /// Enable the hooks named `name` at every point: undo [`disable`](Hooks::disable) or
    /// `HOOKS_DISABLE`, and switch on an opt-in hook of that name (as `HOOKS_ENABLE` does),
    /// including one registered later. Returns true if it was disabled, or if a hook of that
    /// name was off because it is opt-in.
    pub fn enable(&self, name: &str) -> bool {
        let opt_in_off = self
            .inner
            .snapshot
            .load()
            .listing
            .iter()
            .any(|h| h.name.as_str() == name && !h.enabled_by_default && !h.enabled);
        self.change(|state| {
            let was_disabled = state.disabled.remove(name);
            state.enabled.insert(name.to_owned());
            was_disabled || opt_in_off
        })
    }

    /// Disable the hooks named `name` at every point, including hooks of that name registered
    /// later. Returns true if a hook of that name exists now.
    pub fn disable(&self, name: &str) -> bool {
        let mut state = self.state();
        state.disabled.insert(name.to_owned());
        match state.snapshot() {
            Ok(snapshot) => {
                let exists = snapshot.listing.iter().any(|h| h.name.as_str() == name);
                self.inner.snapshot.store(Arc::new(snapshot));
                exists
            }
            Err(e) => {
                tracing::error!(error = %e, "hook set change not applied");
                false
            }
        }
    }

    /// Deliver every hook run at every point to `f`, after the hook finished (on the
    /// dispatching thread or task; keep it short, or hand the record to a channel).
    pub fn subscribe(&self, f: impl Fn(&HookRun<'_>) + Send + Sync + 'static) -> SubscriptionId {
        self.add_subscriber(None, Arc::new(f))
    }

    /// Deliver every hook run at point `P` to `f`.
    pub fn subscribe_to<P: HookPoint>(
        &self,
        f: impl Fn(&HookRun<'_>) + Send + Sync + 'static,
    ) -> SubscriptionId {
        self.add_subscriber(Some(P::NAME), Arc::new(f))
    }

    /// Remove a subscription. Returns false if there was none with that id.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        self.change(|state| {
            let before = state.subscribers.len();
            state.subscribers.retain(|s| s.id != id);
            state.subscribers.len() != before
        })
    }

    /// Every hook of every point this value knows (the standard points and the custom points
    /// dispatched or registered so far), enabled or not, in run order per point.
    pub fn list(&self) -> Vec<HookListing> {
        self.inner.snapshot.load().listing.clone()
    }

    /// Whether a hook named `name` is registered at `point`, enabled or not (a row of
    /// [`list`](Hooks::list)), looked up without copying the list.
    ///
    /// ```
    /// use hookrail_core::Verdict;
    /// use hookrail_core::points::pre_tool_use;
    /// use hookrail_core::runtime::{Hook, Hooks};
    ///
    /// let hooks = Hooks::new();
    /// hooks.register(Hook::<pre_tool_use::Point>::new("audit", |_ctx| Verdict::Continue))?;
    /// assert!(hooks.has_hook("pre_tool_use", "audit"));
    /// assert!(!hooks.has_hook("post_tool_use", "audit"));
    /// # Ok::<(), hookrail_core::runtime::HooksError>(())
    /// ```
    pub fn has_hook(&self, point: &str, name: &str) -> bool {
        (self.inner.snapshot.load().listing.iter())
            .any(|h| h.point == point && h.name.as_str() == name)
    }

    /// The event bus this value publishes every dispatched point on, after the point's hooks
    /// ran (see [`crate::bus`]).
    pub fn bus(&self) -> &Bus {
        &self.inner.bus
    }

    /// True when `HOOKS_DEBUG` was on when the value was built.
    pub fn debug(&self) -> bool {
        self.inner.snapshot.load().debug
    }

    fn add_subscriber(&self, point: Option<&'static str>, f: SubscriberFn) -> SubscriptionId {
        self.change(|state| {
            let id = SubscriptionId(state.next_id());
            state.subscribers.push(Subscriber { id, point, f });
            id
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the state was locked happened before its new snapshot was stored; the
        // state itself is only ever changed by whole, infallible steps.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Apply an infallible change and publish the new snapshot.
    fn change<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut state = self.state();
        let out = f(&mut state);
        match state.snapshot() {
            Ok(snapshot) => self.inner.snapshot.store(Arc::new(snapshot)),
            // Removing hooks or changing switches cannot create a duplicate name.
            Err(e) => tracing::error!(error = %e, "hook set change not applied"),
        }
        out
    }

    /// Make a custom point known (on its first dispatch) and return the snapshot with it.
    #[cold]
    fn learn<P: HookPoint>(&self) -> Arc<Snapshot> {
        let mut state = self.state();
        if state.know::<P>() {
            match state.snapshot() {
                Ok(snapshot) => self.inner.snapshot.store(Arc::new(snapshot)),
                Err(e) => tracing::error!(point = P::NAME, error = %e, "hook point not added"),
            }
        }
        self.inner.snapshot.load_full()
    }
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks::new()
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.inner.snapshot.load();
        f.debug_struct("Hooks")
            .field("hooks", &snapshot.listing.len())
            .field("subscribers", &snapshot.subscribers.len())
            .field("debug", &snapshot.debug)
            .finish()
    }
}

impl Snapshot {
    #[inline]
    fn table<P: HookPoint>(&self) -> Option<&PointTable<P>> {
        self.tables.get(&TypeId::of::<P>())?.downcast_ref()
    }

    fn sink(&self) -> Sink<'_> {
        Sink {
            subscribers: &self.subscribers,
            debug: self.debug,
        }
    }
}

impl State {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Add point `P` if it is new; true if it was.
    fn know<P: HookPoint>(&mut self) -> bool {
        let id = TypeId::of::<P>();
        if self.points.iter().any(|p| p.id == id) {
            return false;
        }
        self.points.push(PointSlot {
            id,
            build: build_custom::<P>,
        });
        true
    }

    fn push_hook<P: HookPoint>(&mut self, hook: Hook<P>) -> HookId {
        let id = HookId(self.next_id());
        self.runtime.push(RuntimeHook {
            id,
            point: TypeId::of::<P>(),
            entry: Box::new(hook.entry),
        });
        id
    }

    fn snapshot(&self) -> Result<Snapshot, HooksError> {
        let mut tables = HashMap::default();
        let mut listing = Vec::new();
        for slot in &self.points {
            let built = (slot.build)(self)?;
            tables.insert(slot.id, built.table);
            listing.extend(built.listing);
        }
        Ok(Snapshot {
            tables,
            listing,
            subscribers: self.subscribers.clone().into_boxed_slice(),
            debug: self.debug,
        })
    }

    /// Resolve an entry's settings: builder overrides by name, then the hook's own, then the
    /// builder's point default, the global default (`HOOKS_TIMEOUT_MS`), and the point's and
    /// the kind's defaults. Enabled: not disabled by name, and either on by default or
    /// enabled by name.
    fn resolve<P: HookPoint>(&self, mut e: Entry<P>) -> (Entry<P>, bool) {
        let name = e.name.as_str();
        e.timeout = Some(
            self.timeouts
                .get(name)
                .or(e.timeout.as_ref())
                .or_else(|| self.point_timeouts.get(P::NAME))
                .or(self.global_timeout.as_ref())
                .copied()
                .unwrap_or_else(|| default_timeout(P::NAME)),
        );
        e.on_error = Some(
            self.on_error
                .get(name)
                .copied()
                .or(e.on_error)
                .unwrap_or(OnError::default_for(<P::Kind as Kind>::ID)),
        );
        let enabled =
            !self.disabled.contains(name) && (e.enabled_by_default || self.enabled.contains(name));
        (e, enabled)
    }
}

fn build_standard<P: Provided>(state: &State) -> Result<Built, HooksError> {
    let providers = state
        .providers
        .iter()
        .filter(|slot| slot.points.contains(P::BIT))
        .map(|slot| provider_hook::<P>(slot).entry);
    build::<P>(state, providers)
}

fn build_custom<P: HookPoint>(state: &State) -> Result<Built, HooksError> {
    build::<P>(state, std::iter::empty())
}

fn build<P: HookPoint>(
    state: &State,
    providers: impl Iterator<Item = Entry<P>>,
) -> Result<Built, HooksError> {
    let id = TypeId::of::<P>();
    let statics = P::registry().hooks().iter().map(|e| Entry::from_static(e));
    let runtime = state
        .runtime
        .iter()
        .filter(|h| h.point == id)
        .filter_map(|h| h.entry.downcast_ref::<Entry<P>>().cloned());
    let mut all: Vec<(Entry<P>, bool)> = statics
        .chain(providers)
        .chain(runtime)
        .map(|e| state.resolve(e))
        .collect();
    all.sort_by(|(a, _), (b, _)| (a.order, a.name.as_str()).cmp(&(b.order, b.name.as_str())));
    let mut seen: HashMap<HookName, HookSource> = HashMap::with_capacity(all.len());
    for (e, _) in &all {
        if let Some(first) = seen.insert(e.name, e.source) {
            return Err(HooksError::DuplicateName {
                point: P::NAME,
                name: e.name,
                first,
                second: e.source,
            });
        }
    }
    let listing = all
        .iter()
        .map(|(e, enabled)| HookListing {
            point: P::NAME,
            kind: <P::Kind as Kind>::ID,
            name: e.name,
            order: e.order,
            source: e.source,
            is_async: e.callable.is_async(),
            enabled: *enabled,
            enabled_by_default: e.enabled_by_default,
            timeout: e.timeout.unwrap_or_else(|| default_timeout(P::NAME)),
            on_error: e
                .on_error
                .unwrap_or(OnError::default_for(<P::Kind as Kind>::ID)),
            location: e.location,
        })
        .collect();
    let entries = all
        .into_iter()
        .filter_map(|(e, enabled)| enabled.then_some(e))
        .collect();
    Ok(Built {
        table: Box::new(PointTable::<P> { entries }),
        listing,
    })
}
