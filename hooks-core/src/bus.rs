//! The event bus: every hook point a [`Hooks`](crate::runtime::Hooks) value dispatches, and
//! custom events, delivered as typed events to in-process subscribers.
//!
//! A [`Hooks`](crate::runtime::Hooks) value publishes each dispatch of a point on its bus
//! ([`Hooks::bus`](crate::runtime::Hooks::bus)) after the point's hooks ran: the context as
//! they left it and their merged outcome ([`PointEvent`]). Programs publish their own events
//! with [`Bus::emit`]. Subscribers pick one topic, several, or all ([`Filter`]), and either
//! read a queue ([`Bus::subscribe`]) or have a closure called on a thread of their own
//! ([`Bus::on`], [`Bus::on_filter`]).
//!
//! ```
//! use hookrail_core::bus::Filter;
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::Verdict;
//!
//! let hooks = Hooks::builder()
//!     .ignore_env()
//!     .hook(Hook::<pre_tool_use::Point>::new("no_bash", |ctx| {
//!         if ctx.tool_name == "Bash" { Verdict::deny("no shell") } else { Verdict::Continue }
//!     }))
//!     .build()?;
//! let mut tool_calls = hooks.bus().subscribe(Filter::topic::<pre_tool_use::Point>());
//!
//! let mut ctx = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({"command": "ls"}));
//! hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
//!
//! let event = tool_calls.try_recv().expect("the dispatch was published");
//! let call = event.payload::<pre_tool_use::Point>().expect("a pre_tool_use payload");
//! assert_eq!(call.context.tool_name, "Bash");
//! assert!(call.outcome.verdict.as_ref().is_some_and(|v| v.is_deny()));
//! # Ok::<(), hookrail_core::runtime::HooksError>(())
//! ```
//!
//! # Slow subscribers never block dispatch
//!
//! Each subscription has a bounded queue ([`DEFAULT_CAPACITY`] events unless set). Publishing
//! never waits: when a subscriber's queue is full, the event is dropped for that subscriber and
//! its drop counter goes up ([`Subscription::dropped`], [`Listener::dropped`], and the
//! bus-wide [`Bus::dropped`]); drops are logged at `warn` (the 1st, 2nd, 4th, 8th… of each
//! subscription). Other subscribers still get the event.
//!
//! # Cost
//!
//! With no subscriber on a bus, a dispatch pays one relaxed atomic load for it and allocates
//! nothing. With a subscriber for the point, publishing clones the context once (shared by
//! every subscriber) and builds the outcome summary.
//!
//! # Which points are published
//!
//! Every standard point. A custom point (declared with [`hook_points!`](crate::hook_points))
//! is published once the bus knows how to copy its context: after a typed subscription to it
//! ([`Filter::topic`], [`Bus::on`]) or [`Bus::declare`]; its context must be
//! `Clone + Serialize`. Only dispatches through a [`Hooks`](crate::runtime::Hooks) value are
//! published; the static dispatcher (`points::pre_tool_use::dispatch`) has no bus.

mod event;

#[doc(hidden)]
pub use event::{ErasedPayload, PointTap};
pub use event::{Event, EventFailure, EventOutcome, PointEvent, Topic};

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;

use arc_swap::ArcSwap;
use tokio::sync::mpsc;

use crate::kind::Kind;
use crate::outcome::Outcome;
use crate::point::HookPoint;

/// A subscription's queue length unless given: [`Bus::with_capacity`],
/// [`Bus::subscribe_with_capacity`].
pub const DEFAULT_CAPACITY: usize = 1024;

/// An error of the bus.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BusError {
    /// The thread of a [`Listener`] could not be started.
    #[error("could not start the listener thread: {0}")]
    Spawn(#[source] std::io::Error),
}

/// Which events a subscription receives: all, or the listed topics and names.
#[derive(Clone, Debug)]
pub struct Filter {
    /// `None`: every event.
    names: Option<Vec<Cow<'static, str>>>,
    taps: Vec<PointTap>,
}

impl Filter {
    /// Every event: every point, every custom event.
    pub fn all() -> Self {
        Filter {
            names: None,
            taps: Vec::new(),
        }
    }

    /// The events of topic `T` (a hook point or a custom event type).
    pub fn topic<T: Topic>() -> Self {
        Filter::none().and::<T>()
    }

    /// The events named `name` (a point's name or a custom event's [`Topic::NAME`]), for
    /// subscribers configured by name, like webhooks read from a file.
    pub fn name(name: impl Into<Cow<'static, str>>) -> Self {
        Filter::none().and_name(name)
    }

    /// The events named by any of `names`.
    pub fn names<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        names.into_iter().fold(Filter::none(), Filter::and_name)
    }

    /// Also the events of topic `T`.
    pub fn and<T: Topic>(mut self) -> Self {
        if let Some(tap) = T::__point() {
            self.taps.push(tap);
        }
        self.and_name(T::NAME)
    }

    /// Also the events named `name`.
    pub fn and_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        if let Some(names) = &mut self.names {
            let name = name.into();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        self
    }

    /// True when an event named `name` passes.
    pub fn matches(&self, name: &str) -> bool {
        self.names
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    fn none() -> Self {
        Filter {
            names: Some(Vec::new()),
            taps: Vec::new(),
        }
    }
}

/// An in-process event bus. Cheap to clone (clones share the bus); several
/// [`Hooks`](crate::runtime::Hooks) values can publish on one bus
/// ([`HooksBuilder::bus`](crate::runtime::HooksBuilder::bus)).
///
/// See the [module docs](self).
#[derive(Clone)]
pub struct Bus {
    inner: Arc<Inner>,
}

struct Inner {
    /// Any subscriber at all: the one check a dispatch makes when nobody listens.
    active: AtomicBool,
    routes: ArcSwap<Routes>,
    /// Serializes changes; the next subscription id.
    writer: Mutex<u64>,
    seq: AtomicU64,
    dropped: AtomicU64,
    capacity: usize,
}

/// An immutable view of the subscribers: what one publish sends to.
#[derive(Clone, Default)]
struct Routes {
    routes: Vec<Arc<Route>>,
    /// How to copy the context of each point the bus publishes.
    taps: HashMap<TypeId, PointTap>,
}

struct Route {
    id: u64,
    filter: Filter,
    tx: mpsc::Sender<Event>,
    dropped: Arc<AtomicU64>,
}

impl Bus {
    /// A bus whose subscriptions queue up to [`DEFAULT_CAPACITY`] events each.
    pub fn new() -> Self {
        Bus::with_capacity(DEFAULT_CAPACITY)
    }

    /// A bus whose subscriptions queue up to `capacity` events each (at least 1) unless they
    /// set their own.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut routes = Routes::default();
        macro_rules! standard {
            ($p:ty) => {
                if let Some(tap) = <$p as Topic>::__point() {
                    routes.taps.insert(tap.point, tap);
                }
            };
        }
        crate::runtime::for_each_standard_point!(standard);
        Bus {
            inner: Arc::new(Inner {
                active: AtomicBool::new(false),
                routes: ArcSwap::from_pointee(routes),
                writer: Mutex::new(0),
                seq: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
                capacity: capacity.max(1),
            }),
        }
    }

    /// Receive the events that pass `filter` through a queue of the bus's capacity.
    pub fn subscribe(&self, filter: Filter) -> Subscription {
        self.subscribe_with_capacity(filter, self.inner.capacity)
    }

    /// Receive the events that pass `filter` through a queue of `capacity` events (at least 1).
    pub fn subscribe_with_capacity(&self, filter: Filter, capacity: usize) -> Subscription {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        let id = self.add_route(filter, tx, dropped.clone());
        Subscription {
            id,
            rx,
            dropped,
            bus: Arc::downgrade(&self.inner),
        }
    }

    /// Call `f` with every event of topic `T`, on a thread of the listener's own (so `f` may
    /// keep state: it is `FnMut`, called by one thread, one event at a time, in order).
    ///
    /// ```
    /// use hookrail_core::bus::Bus;
    /// use hookrail_core::points::session_start;
    ///
    /// let bus = Bus::new();
    /// let listener = bus.on::<session_start::Point>(|_event, start| {
    ///     tracing::info!(session = %start.context.meta.session_id, "session started");
    /// })?;
    /// listener.off(); // handles what was queued, then stops
    /// # Ok::<(), hookrail_core::bus::BusError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BusError::Spawn`] when the thread cannot be started.
    pub fn on<T: Topic>(
        &self,
        mut f: impl FnMut(&Event, &T::Payload) + Send + 'static,
    ) -> Result<Listener, BusError> {
        self.on_filter(Filter::topic::<T>(), move |event| {
            if let Some(payload) = event.payload::<T>() {
                f(event, payload);
            }
        })
    }

    /// Call `f` with every event that passes `filter`, on a thread of the listener's own.
    ///
    /// # Errors
    ///
    /// [`BusError::Spawn`] when the thread cannot be started.
    pub fn on_filter(
        &self,
        filter: Filter,
        mut f: impl FnMut(&Event) + Send + 'static,
    ) -> Result<Listener, BusError> {
        let mut sub = self.subscribe(filter);
        let id = sub.id;
        let dropped = sub.dropped.clone();
        let thread = std::thread::Builder::new()
            .name(format!("hooks-bus-{id}"))
            .spawn(move || {
                while let Some(event) = sub.rx.blocking_recv() {
                    if catch_unwind(AssertUnwindSafe(|| f(&event))).is_err() {
                        tracing::error!(
                            event = event.name(),
                            listener = id,
                            "a bus listener panicked"
                        );
                    }
                }
            });
        match thread {
            Ok(thread) => Ok(Listener {
                id,
                dropped,
                bus: Arc::downgrade(&self.inner),
                thread: Some(thread),
            }),
            Err(e) => {
                self.remove_route(id);
                Err(BusError::Spawn(e))
            }
        }
    }

    /// Publish a custom event to the subscribers of its topic. Never blocks; does nothing
    /// (not even allocate) when nobody subscribed to it.
    pub fn emit<T>(&self, event: T)
    where
        T: Topic<Payload = T> + serde::Serialize + Send + Sync,
    {
        if !self.inner.active.load(Ordering::Relaxed) {
            return;
        }
        let routes = self.inner.routes.load();
        self.send(&routes, T::NAME, false, || Some(Box::new(event)));
    }

    /// Publish the custom point `P` from now on (standard points always are). Needed only for
    /// subscribers that name the point by string or take every event; a typed subscription
    /// declares it by itself.
    pub fn declare<P>(&self)
    where
        P: HookPoint + Topic,
    {
        if let Some(tap) = P::__point() {
            self.change(|routes| {
                routes.taps.insert(tap.point, tap);
            });
        }
    }

    /// Events dropped so far because a subscriber's queue was full, over all subscriptions.
    pub fn dropped(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// True when `self` and `other` are the same bus (clones of one another).
    pub fn ptr_eq(&self, other: &Bus) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The number of live subscriptions and listeners.
    pub fn subscribers(&self) -> usize {
        self.inner.routes.load().routes.len()
    }

    /// Publish a dispatch of point `P`. The hot path: one relaxed load when nobody listens.
    #[inline]
    pub(crate) fn publish_point<P: HookPoint>(
        &self,
        ctx: &P::Context,
        outcome: &Outcome<<P::Kind as Kind>::Ret>,
    ) {
        if self.inner.active.load(Ordering::Relaxed) {
            self.publish_point_slow::<P>(ctx, outcome);
        }
    }

    #[cold]
    #[inline(never)]
    fn publish_point_slow<P: HookPoint>(
        &self,
        ctx: &P::Context,
        outcome: &Outcome<<P::Kind as Kind>::Ret>,
    ) {
        let routes = self.inner.routes.load();
        if !routes.routes.iter().any(|r| r.filter.matches(P::NAME)) {
            return;
        }
        let Some(tap) = routes.taps.get(&TypeId::of::<P>()) else {
            tracing::debug!(
                point = P::NAME,
                "custom point not published: the bus does not know it (Bus::declare)"
            );
            return;
        };
        let make = tap.make;
        self.send(&routes, P::NAME, true, || {
            make(ctx, event::EventOutcome::of::<P>(outcome))
        });
    }

    /// Send the event `make` builds to the matching subscribers. A subscriber whose queue is
    /// full misses it before it is built: a stuck subscriber costs a dispatch a capacity check,
    /// not a copy of the context. Nothing is built when no queue has room.
    fn send(
        &self,
        routes: &Routes,
        name: &'static str,
        is_point: bool,
        make: impl FnOnce() -> Option<event::Payload>,
    ) {
        let matching = || routes.routes.iter().filter(|r| r.filter.matches(name));
        // Which of the first 64 matching routes were found full (and counted) in the first
        // pass; later ones, if any, are only tried in the second.
        let mut full: u64 = 0;
        let mut open = false;
        for (i, route) in matching().enumerate() {
            if i < 64 && route.tx.capacity() == 0 {
                full |= 1 << i;
                self.count_drop(route, name);
            } else {
                open = true;
            }
        }
        if !open {
            return;
        }
        let Some(payload) = make() else {
            return;
        };
        let seq = self.inner.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let event = Event::new(name, is_point, seq, payload);
        for (i, route) in matching().enumerate() {
            if i < 64 && full & (1 << i) != 0 {
                continue;
            }
            match route.tx.try_send(event.clone()) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => self.count_drop(route, name),
                // The subscription is being removed: nobody will read it.
                Err(mpsc::error::TrySendError::Closed(_)) => {}
            }
        }
    }

    fn count_drop(&self, route: &Route, name: &'static str) {
        let n = route.dropped.fetch_add(1, Ordering::Relaxed) + 1;
        self.inner.dropped.fetch_add(1, Ordering::Relaxed);
        if n.is_power_of_two() {
            tracing::warn!(
                event = name,
                subscription = route.id,
                dropped = n,
                "bus subscriber too slow: its queue is full, events dropped"
            );
        }
    }

    fn add_route(&self, filter: Filter, tx: mpsc::Sender<Event>, dropped: Arc<AtomicU64>) -> u64 {
        let mut next = self.writer();
        *next += 1;
        let id = *next;
        self.change_locked(|routes| {
            for tap in &filter.taps {
                routes.taps.insert(tap.point, *tap);
            }
            routes.routes.push(Arc::new(Route {
                id,
                filter,
                tx,
                dropped,
            }));
        });
        id
    }

    fn remove_route(&self, id: u64) {
        let _writer = self.writer();
        self.change_locked(|routes| routes.routes.retain(|r| r.id != id));
    }

    fn change(&self, f: impl FnOnce(&mut Routes)) {
        let _writer = self.writer();
        self.change_locked(f);
    }

    /// Apply `f` to a copy of the routes and publish it. The caller holds the writer lock.
    fn change_locked(&self, f: impl FnOnce(&mut Routes)) {
        let mut routes = Routes::clone(&self.inner.routes.load());
        f(&mut routes);
        self.inner
            .active
            .store(!routes.routes.is_empty(), Ordering::Relaxed);
        self.inner.routes.store(Arc::new(routes));
    }

    fn writer(&self) -> std::sync::MutexGuard<'_, u64> {
        // Changes are whole-or-nothing swaps; a panic under the lock left nothing half-done.
        self.inner
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for Bus {
    fn default() -> Self {
        Bus::new()
    }
}

impl fmt::Debug for Bus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bus")
            .field("subscribers", &self.subscribers())
            .field("capacity", &self.inner.capacity)
            .field("dropped", &self.dropped())
            .finish()
    }
}

/// Unsubscribe `id` from the bus behind `bus`, if it is still alive.
fn unsubscribe(bus: &Weak<Inner>, id: u64) {
    if let Some(inner) = bus.upgrade() {
        Bus { inner }.remove_route(id);
    }
}

/// A queue of the events that pass a [`Filter`]. Dropping it unsubscribes.
#[must_use = "a subscription receives nothing once dropped"]
pub struct Subscription {
    id: u64,
    rx: mpsc::Receiver<Event>,
    dropped: Arc<AtomicU64>,
    bus: Weak<Inner>,
}

impl Subscription {
    /// The next event; `None` once the bus is gone and the queue is empty.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.recv().await
    }

    /// The next event, blocking the thread until there is one; `None` once the bus is gone
    /// and the queue is empty.
    ///
    /// # Panics
    ///
    /// When called from inside an async runtime (use [`recv`](Subscription::recv) there).
    pub fn blocking_recv(&mut self) -> Option<Event> {
        self.rx.blocking_recv()
    }

    /// The next event if one is queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }

    /// The number of events waiting in the queue.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    /// True when no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    /// Events this subscription missed because its queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        unsubscribe(&self.bus, self.id);
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("queued", &self.len())
            .field("dropped", &self.dropped())
            .finish()
    }
}

/// A closure called with events on a thread of its own ([`Bus::on`], [`Bus::on_filter`]).
/// Dropping it unsubscribes; the thread handles what was already queued, then ends.
#[must_use = "dropping a Listener unsubscribes it"]
pub struct Listener {
    id: u64,
    dropped: Arc<AtomicU64>,
    bus: Weak<Inner>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Events this listener missed because its queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Unsubscribe, and wait until the events already queued have been handled (unless called
    /// from the listener's own closure).
    ///
    /// Blocks the calling thread while it waits; from async code, call it inside
    /// `tokio::task::spawn_blocking` (or drop the listener, which does not wait).
    pub fn off(mut self) {
        unsubscribe(&self.bus, self.id);
        if let Some(thread) = self.thread.take()
            && thread.thread().id() != std::thread::current().id()
        {
            // A panicking closure is caught inside the thread; the thread itself cannot panic.
            let _ = thread.join();
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        unsubscribe(&self.bus, self.id);
    }
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listener")
            .field("id", &self.id)
            .field("dropped", &self.dropped())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Serialize)]
    struct Ping(u32);

    impl Topic for Ping {
        const NAME: &'static str = "ping";
        type Payload = Self;
    }

    #[test]
    fn the_active_flag_follows_the_subscribers() {
        let bus = Bus::new();
        assert!(!bus.inner.active.load(Ordering::Relaxed));
        let sub = bus.subscribe(Filter::all());
        assert!(bus.inner.active.load(Ordering::Relaxed));
        drop(sub);
        assert!(!bus.inner.active.load(Ordering::Relaxed));
        assert_eq!(bus.subscribers(), 0);
    }

    #[test]
    fn a_full_queue_drops_and_counts_without_blocking() {
        let bus = Bus::new();
        let mut slow = bus.subscribe_with_capacity(Filter::topic::<Ping>(), 2);
        let mut fast = bus.subscribe_with_capacity(Filter::topic::<Ping>(), 100);
        for i in 0..10 {
            bus.emit(Ping(i));
        }
        assert_eq!(slow.len(), 2);
        assert_eq!(slow.dropped(), 8);
        assert_eq!(fast.dropped(), 0);
        assert_eq!(bus.dropped(), 8);
        // The slow one kept the oldest events, in order; the fast one has every event.
        let got: Vec<u32> = std::iter::from_fn(|| slow.try_recv())
            .map(|e| e.payload::<Ping>().map_or(u32::MAX, |p| p.0))
            .collect();
        assert_eq!(got, [0, 1]);
        assert_eq!(std::iter::from_fn(|| fast.try_recv()).count(), 10);
    }
}
