//! What travels on the bus: events, their typed payloads, and the topics that name them.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use serde::Serialize;

use crate::dispatch::Semantics;
use crate::kind::Kind;
use crate::outcome::{HookName, OnError, Outcome, Recovery, Verdict};
use crate::point::HookPoint;
use crate::runtime::RunResult;

/// Something that can be published on a [`Bus`](super::Bus): a name and a payload type.
///
/// Every hook point whose context is `Clone + Serialize` is a topic (all standard points are);
/// its payload is a [`PointEvent`]: the context after the point's hooks ran, and their merged
/// outcome. Custom events are plain types that name themselves:
///
/// ```
/// use hookrail_core::bus::{Bus, Topic};
///
/// #[derive(Debug, serde::Serialize)]
/// struct Deployed {
///     service: String,
///     version: String,
/// }
///
/// impl Topic for Deployed {
///     const NAME: &'static str = "deployed";
///     type Payload = Self;
/// }
///
/// let bus = Bus::new();
/// let mut sub = bus.subscribe(hookrail_core::bus::Filter::topic::<Deployed>());
/// bus.emit(Deployed { service: "api".into(), version: "1.2.0".into() });
///
/// let event = sub.try_recv().expect("one event queued");
/// assert_eq!(event.name(), "deployed");
/// assert_eq!(event.payload::<Deployed>().unwrap().version, "1.2.0");
/// ```
pub trait Topic: 'static {
    /// The event's name: the point's name for hook points (`"pre_tool_use"`).
    const NAME: &'static str;
    /// What subscribers receive.
    type Payload: Serialize + Send + Sync + 'static;

    /// How to turn a hook point's context into this payload; `None` for custom events.
    #[doc(hidden)]
    fn __point() -> Option<PointTap> {
        None
    }
}

impl<P> Topic for P
where
    P: HookPoint,
    P::Context: Clone + Serialize,
{
    const NAME: &'static str = P::NAME;
    type Payload = PointEvent<P::Context>;

    fn __point() -> Option<PointTap> {
        Some(PointTap {
            point: TypeId::of::<P>(),
            make: make_point_event::<P>,
        })
    }
}

/// How the bus publishes one hook point: which point, and how its context becomes a payload.
/// Registered by typed subscriptions ([`Filter::topic`](super::Filter::topic)) and, for the
/// standard points, by every bus.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct PointTap {
    pub(crate) point: TypeId,
    pub(crate) make: fn(&dyn Any, EventOutcome) -> Option<Payload>,
}

impl fmt::Debug for PointTap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PointTap").finish_non_exhaustive()
    }
}

fn make_point_event<P>(ctx: &dyn Any, outcome: EventOutcome) -> Option<Payload>
where
    P: HookPoint,
    P::Context: Clone + Serialize,
{
    let context = ctx.downcast_ref::<P::Context>()?.clone();
    Some(Box::new(PointEvent { context, outcome }))
}

/// The payload of a hook point's event.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct PointEvent<C> {
    /// The context after every hook of the point ran (rewrites applied).
    pub context: C,
    /// What the hooks decided.
    pub outcome: EventOutcome,
}

/// The merged outcome of one dispatch, as published on the bus.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EventOutcome {
    /// A guard point's merged verdict (`Continue` when no hook objected); `None` at other
    /// kinds of points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// A recover point's answer, if a hook gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// The hook whose answer is the verdict or recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<HookName>,
    /// Every hook that failed, in the order they ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<EventFailure>,
}

/// One hook failure of a dispatch, as published on the bus.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EventFailure {
    /// The failing hook.
    pub hook: HookName,
    /// What went wrong (`panicked: …`, `timed out after …`).
    pub cause: String,
    /// The failure policy that was applied.
    pub policy: OnError,
}

impl EventOutcome {
    pub(crate) fn of<P: HookPoint>(outcome: &Outcome<<P::Kind as Kind>::Ret>) -> Self {
        let mut out = EventOutcome {
            decided_by: outcome.decided_by,
            failures: outcome
                .failures
                .iter()
                .map(|f| EventFailure {
                    hook: f.hook,
                    cause: f.cause.to_string(),
                    policy: f.policy,
                })
                .collect(),
            ..EventOutcome::default()
        };
        match <P::Kind as Semantics>::describe(&outcome.value) {
            RunResult::Verdict(v) => out.verdict = Some(v.clone()),
            RunResult::Recovery(r) => out.recovery = r.cloned(),
            RunResult::Done | RunResult::Failed { .. } => {}
        }
        out
    }
}

/// A payload with its type erased: downcast for typed subscribers, serialized for the rest.
pub(crate) type Payload = Box<dyn ErasedPayload>;

#[doc(hidden)]
pub trait ErasedPayload: Send + Sync {
    fn as_any(&self) -> &(dyn Any + Send + Sync);
    fn to_json(&self) -> serde_json::Result<serde_json::Value>;
}

impl<T: Serialize + Send + Sync + 'static> ErasedPayload for T {
    fn as_any(&self) -> &(dyn Any + Send + Sync) {
        self
    }

    fn to_json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }
}

/// One event on the bus: a hook point that was dispatched, or a custom event that was
/// emitted. Cheap to clone (every subscriber of one event shares it).
#[derive(Clone)]
pub struct Event(Arc<Inner>);

struct Inner {
    name: &'static str,
    is_point: bool,
    seq: u64,
    time: SystemTime,
    payload: Payload,
}

impl Event {
    pub(crate) fn new(name: &'static str, is_point: bool, seq: u64, payload: Payload) -> Self {
        Event(Arc::new(Inner {
            name,
            is_point,
            seq,
            time: SystemTime::now(),
            payload,
        }))
    }

    /// The point's or the custom event's name.
    pub fn name(&self) -> &'static str {
        self.0.name
    }

    /// True for a hook point's event (its payload is a [`PointEvent`]).
    pub fn is_point(&self) -> bool {
        self.0.is_point
    }

    /// The event's number on its bus, unique and starting at 1. Events published by one thread
    /// are numbered in order; events of threads publishing at the same time may reach a
    /// subscriber out of numbering order.
    pub fn seq(&self) -> u64 {
        self.0.seq
    }

    /// When it was published.
    pub fn time(&self) -> SystemTime {
        self.0.time
    }

    /// The typed payload, if this is an event of topic `T`.
    pub fn payload<T: Topic>(&self) -> Option<&T::Payload> {
        if self.0.name != T::NAME {
            return None;
        }
        self.0.payload.as_any().downcast_ref()
    }

    /// The payload, type-erased.
    pub fn payload_any(&self) -> &(dyn Any + Send + Sync) {
        self.0.payload.as_any()
    }

    /// The payload as JSON (a point's event: `{"context": …, "outcome": …}`).
    ///
    /// # Errors
    ///
    /// When the payload's `Serialize` implementation fails.
    pub fn to_json(&self) -> serde_json::Result<serde_json::Value> {
        self.0.payload.to_json()
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("name", &self.0.name)
            .field("seq", &self.0.seq)
            .field("is_point", &self.0.is_point)
            .finish_non_exhaustive()
    }
}
