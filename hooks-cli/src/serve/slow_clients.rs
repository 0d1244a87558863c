//! `--header-timeout`: a client that takes too long to send a request's headers (slowloris)
//! loses its connection, without a timer per request.
//!
//! hyper's own `header_read_timeout` starts a timer for every request. On a keep-alive
//! connection that is a timer registered with the runtime's driver on every request, which
//! wakes a parked worker thread each time (on this project's 2-vCPU VM, a trip through the
//! hypervisor on the path of every decision). Here each connection keeps only the time its
//! wait for headers began ([`Clock`], one clock read per request), and one task per listener
//! ([`Sweeper`]) looks at every connection every quarter of the timeout (at least once a
//! second) and cuts off the late ones. So an idle daemon's sweepers wake once a second each:
//! waking a sweeper only when a connection arrives would instead add a wake-up of the
//! runtime to every new connection, which is every forwarded event.
//!
//! The wait begins when the connection is accepted and when an answer is ready (the connection
//! is then ready for its next request); it ends when a request's headers have arrived. An idle
//! keep-alive connection is cut off too, as with hyper's timer. A client is cut off between
//! the timeout and the timeout plus one sweep period (a quarter of the timeout, at most 1 s).
//!
//! At the listener's connection cap, the connection that has waited longest is cut off at
//! once for a new one ([`Sweeper::evict_longest_waiting`]): connections need no token, so
//! without it anyone on the machine could hold every slot and keep the agent's hooks waiting
//! in the backlog, reconnecting each time one is swept.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// No wait under way: a request's headers have arrived and it is being answered.
const ANSWERING: u64 = u64::MAX;

/// The longest time between two sweeps.
const MAX_PERIOD: Duration = Duration::from_secs(1);

/// One connection's wait for headers.
#[derive(Debug)]
pub(super) struct Clock {
    /// Milliseconds since the sweeper's epoch when the wait began, or [`ANSWERING`].
    since: AtomicU64,
    /// Told when the connection is to be closed.
    cut: Notify,
    /// Cut off to make room for a new connection ([`Sweeper::evict_longest_waiting`]), not
    /// for its own slowness; cleared when its next wait begins.
    evicted: AtomicBool,
    epoch: Instant,
}

impl Clock {
    /// A request's headers have arrived: no deadline while it is answered.
    pub(super) fn headers_arrived(&self) {
        self.since.store(ANSWERING, Ordering::Relaxed);
    }

    /// The answer is ready: the connection waits for its next request's headers from now.
    pub(super) fn waiting(&self) {
        self.evicted.store(false, Ordering::Relaxed);
        self.since.store(millis(self.epoch), Ordering::Relaxed);
    }

    /// Whether the cut-off was to make room for a new connection.
    pub(super) fn evicted(&self) -> bool {
        self.evicted.load(Ordering::Relaxed)
    }

    /// Whether a request is being answered (its headers arrived).
    pub(super) fn answering(&self) -> bool {
        self.since.load(Ordering::Relaxed) == ANSWERING
    }

    /// Resolves when the sweeper cut this connection off. The sweeper may have read the
    /// clock just before a request's headers arrived: check [`Clock::answering`] then.
    pub(super) async fn cut_off(&self) {
        self.cut.notified().await;
    }
}

/// The connections of one listener, swept for late ones.
#[derive(Debug)]
pub(super) struct Sweeper {
    timeout: Duration,
    epoch: Instant,
    clocks: Mutex<Vec<Weak<Clock>>>,
}

impl Sweeper {
    pub(super) fn new(timeout: Duration) -> Arc<Sweeper> {
        Arc::new(Sweeper {
            timeout,
            epoch: Instant::now(),
            clocks: Mutex::new(Vec::new()),
        })
    }

    /// The clock of a connection just accepted (its wait begins now).
    pub(super) fn clock(&self) -> Arc<Clock> {
        let clock = Arc::new(Clock {
            since: AtomicU64::new(millis(self.epoch)),
            cut: Notify::new(),
            evicted: AtomicBool::new(false),
            epoch: self.epoch,
        });
        self.clocks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::downgrade(&clock));
        clock
    }

    /// Sweeps until the task is aborted.
    pub(super) async fn run(self: Arc<Self>) {
        let period = (self.timeout / 4).clamp(Duration::from_millis(1), MAX_PERIOD);
        let mut ticks = tokio::time::interval(period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            self.sweep();
        }
    }

    /// At the connection cap: cuts off the connection that has waited longest for a request's
    /// headers (not one being answered, nor one already cut off for room), so that a new one
    /// can be served. False when there is none.
    pub(super) fn evict_longest_waiting(&self) -> bool {
        let clocks = self.clocks.lock().unwrap_or_else(PoisonError::into_inner);
        let longest = clocks
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|clock| !clock.evicted())
            .map(|clock| (clock.since.load(Ordering::Relaxed), clock))
            .filter(|(since, _)| *since != ANSWERING)
            .min_by_key(|(since, _)| *since);
        let Some((_, clock)) = longest else {
            return false;
        };
        clock.evicted.store(true, Ordering::Relaxed);
        clock.cut.notify_one();
        true
    }

    /// Cuts off every connection whose wait is over the timeout, and forgets closed ones (a
    /// connection cut off is forgotten once it closes; one whose request arrived meanwhile
    /// stays).
    fn sweep(&self) {
        let now = millis(self.epoch);
        let limit = u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX);
        self.clocks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|clock| {
                let Some(clock) = clock.upgrade() else {
                    return false;
                };
                let since = clock.since.load(Ordering::Relaxed);
                if since != ANSWERING && now.saturating_sub(since) > limit {
                    clock.cut.notify_one();
                }
                true
            });
    }
}

fn millis(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn at_the_cap_the_connection_waiting_longest_makes_room() {
        let sweeper = Sweeper::new(Duration::from_secs(60));
        let oldest = sweeper.clock();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (answering, newer) = (sweeper.clock(), sweeper.clock());
        answering.headers_arrived();
        let patience = Duration::from_secs(10);
        // The oldest first; one being answered never.
        assert!(sweeper.evict_longest_waiting());
        tokio::time::timeout(patience, oldest.cut_off())
            .await
            .expect("the oldest is cut off");
        assert!(oldest.evicted() && !newer.evicted() && !answering.evicted());
        // A connection already cut off for room is not chosen again.
        assert!(sweeper.evict_longest_waiting());
        tokio::time::timeout(patience, newer.cut_off())
            .await
            .expect("then the newer one");
        assert!(
            !sweeper.evict_longest_waiting(),
            "only a request being answered is left"
        );
        // One whose request arrived as it was chosen is a candidate again after its answer.
        newer.headers_arrived();
        newer.waiting();
        assert!(!newer.evicted());
        assert!(sweeper.evict_longest_waiting());
    }

    #[tokio::test]
    async fn a_connection_is_cut_off_only_while_it_waits_for_headers() {
        let timeout = Duration::from_millis(200);
        // Generous: a loaded machine may sweep late, never early.
        let patience = Duration::from_secs(10);
        let sweeper = Sweeper::new(timeout);
        let sweeping = tokio::spawn(Arc::clone(&sweeper).run());
        let started = Instant::now();
        let (idle, answering, answered) = (sweeper.clock(), sweeper.clock(), sweeper.clock());
        answering.headers_arrived();
        answered.headers_arrived();
        tokio::time::sleep(timeout / 2).await;
        let waiting = Instant::now();
        answered.waiting();
        tokio::time::timeout(patience, idle.cut_off())
            .await
            .expect("the idle connection is cut off");
        assert!(started.elapsed() >= timeout, "cut off early");
        // The one answered later waits from its answer on.
        tokio::time::timeout(patience, answered.cut_off())
            .await
            .expect("the answered connection's wait for its next request runs out");
        assert!(waiting.elapsed() >= timeout, "cut off early");
        // A request being answered has no deadline.
        let answering_cut = tokio::time::timeout(timeout * 2, answering.cut_off()).await;
        assert!(answering_cut.is_err(), "cut off while answering");
        assert!(answering.answering() && !idle.answering());
        // A connection cut off is kept until it closes: headers that arrived just as it was
        // swept make it one being answered, which its task checks before closing it.
        assert_eq!(sweeper.clocks.lock().unwrap().len(), 3);
        answered.headers_arrived();
        assert!(answered.answering());
        // Closed connections are forgotten.
        drop((idle, answered, answering));
        tokio::time::timeout(patience, async {
            while !sweeper.clocks.lock().unwrap().is_empty() {
                tokio::time::sleep(timeout / 4).await;
            }
        })
        .await
        .expect("the closed connection is forgotten");
        sweeping.abort();
    }
}
