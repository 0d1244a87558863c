//! Glue to the event bus: subscribe once, feed every endpoint's queue.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, PoisonError};

use hookrail_core::bus::{Bus, Event, Filter, Subscription};
use tokio::sync::watch;

use super::sender::{Phase, Shared, Webhooks};

impl Webhooks {
    /// Sends the events of `bus` to the endpoints that receive them, from now on until
    /// [`Webhooks::shutdown`] (or drop). For a [`Hooks`](hookrail_core::runtime::Hooks) value:
    /// `webhooks.attach(hooks.bus())`.
    ///
    /// Subscribes once, to the union of the endpoints' event names (every event if one of them
    /// takes `*`), and forwards on the delivery thread: the bus's publish stays a `try_send`,
    /// and the payload is serialized (`data` = [`Event::to_json`]) off the agent loop. The
    /// envelope's `seq` is the bus's sequence number. Events the bus itself dropped because
    /// this subscription was full are counted by [`Webhooks::missed`].
    ///
    /// A custom hook point reaches a name-based subscription only once the bus knows it:
    /// call [`Bus::declare`] for it.
    ///
    /// Returns true when it subscribed. Returns false, and does nothing, when this sender is
    /// already attached to `bus` (or a clone of it: attaching twice would deliver every event
    /// twice, under two delivery ids), when it has been shut down, or when it has no
    /// endpoints. Attaching to several buses is fine. The sender keeps a handle to each bus it
    /// is attached to, to recognise it, until it is shut down or dropped.
    pub fn attach(&self, bus: &Bus) -> bool {
        let shared = self.shared();
        if shared.endpoints.is_empty() {
            tracing::debug!("webhooks not attached to the bus: no endpoints");
            return false;
        }
        // Under the lock, so that two racing `attach`es to one bus subscribe once, and a
        // concurrent shutdown either comes first (closed) or releases the bus after us.
        let mut attached = shared
            .attached
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if shared.is_closed() {
            tracing::debug!("webhooks not attached to the bus: the sender is shut down");
            return false;
        }
        if attached.iter().any(|b| b.ptr_eq(bus)) {
            tracing::debug!("webhooks not attached to the bus: already attached to it");
            return false;
        }
        attached.push(bus.clone());
        // Subscribe here, not in the task, so that nothing published after `attach` returns
        // is missed.
        let subscription = bus.subscribe(filter(shared));
        tracing::debug!(?subscription, "webhooks attached to a bus");
        // If the delivery thread is already gone, the task is dropped unpolled: the
        // `Forwarder`'s drop still counts it out.
        let forwarder = Forwarder::new(Arc::clone(shared));
        shared.runtime.spawn(forward(forwarder, subscription));
        true
    }

    /// Events the attached buses dropped before the webhooks saw them (their subscription
    /// queue was full: the delivery thread could not keep up). Not part of [`Webhooks::stats`],
    /// which counts per endpoint.
    pub fn missed(&self) -> u64 {
        self.shared().missed.load(Relaxed)
    }
}

/// The names every endpoint receives, together.
fn filter(shared: &Shared) -> Filter {
    if shared.endpoints.iter().any(|e| e.config.receives_all()) {
        return Filter::all();
    }
    Filter::names(
        shared
            .endpoints
            .iter()
            .flat_map(|e| e.config.event_names().iter().cloned()),
    )
}

/// Counts a running forwarder, from `attach` until its task ends or is dropped.
struct Forwarder(Arc<Shared>);

impl Forwarder {
    fn new(shared: Arc<Shared>) -> Self {
        shared.forwarder_started();
        Forwarder(shared)
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.0.forwarder_done();
    }
}

/// Moves events from the bus subscription into the endpoint queues until shutdown.
async fn forward(forwarder: Forwarder, mut subscription: Subscription) {
    let shared = &*forwarder.0;
    let mut phase: watch::Receiver<Phase> = shared.phase();
    let mut missed = 0;
    loop {
        if *phase.borrow_and_update() != Phase::Running {
            break;
        }
        let event = tokio::select! {
            biased;
            changed = phase.changed() => match changed {
                Ok(()) => continue,
                Err(_) => break,
            },
            event = subscription.recv() => event,
        };
        let Some(event) = event else {
            // The bus is gone.
            break;
        };
        offer(shared, &event);
        count_missed(shared, &subscription, &mut missed);
    }
    // Shutting down: what the subscription already holds was published before `shutdown`;
    // offer it while the queues may still take it (if not, it is counted as dropped).
    while let Some(event) = subscription.try_recv() {
        offer(shared, &event);
    }
    count_missed(shared, &subscription, &mut missed);
    // Dropping the subscription unsubscribes; dropping the forwarder lets the endpoints drain.
    drop(subscription);
    drop(forwarder);
}

fn offer(shared: &Shared, event: &Event) {
    match event.to_json() {
        Ok(data) => {
            shared.offer(event.name(), event.seq(), data, true);
        }
        Err(e) => shared.unserializable(event.name(), &e),
    }
}

fn count_missed(shared: &Shared, subscription: &Subscription, seen: &mut u64) {
    let now = subscription.dropped();
    if now > *seen {
        shared.missed.fetch_add(now - *seen, Relaxed);
        *seen = now;
    }
}
