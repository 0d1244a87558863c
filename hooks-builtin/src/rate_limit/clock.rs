//! [`Clock`]: the time source of the policies that measure time (rate limits, circuit breaker
//! cool-downs), injected so that tests move time by hand instead of sleeping.

use std::fmt;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic time source: the time elapsed since an origin of the clock's choosing.
///
/// Policies only subtract two readings of the same clock, so the origin does not matter; it
/// must never go backwards.
pub trait Clock: Send + Sync + 'static {
    /// The time since the clock's origin.
    fn now(&self) -> Duration;
}

/// The real monotonic clock ([`Instant`]). All `SystemClock`s share one origin, the first
/// reading in the process.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed()
    }
}

/// A clock that only moves when told to, for tests. Clones share the same time.
///
/// ```
/// # #[cfg(feature = "rate-limit")] use hookrail_builtin::rate_limit::{Clock, ManualClock};
/// # #[cfg(not(feature = "rate-limit"))] use hookrail_builtin::resilience::{Clock, ManualClock};
/// use std::time::Duration;
///
/// let clock = ManualClock::new();
/// let shared = clock.clone();
/// clock.advance(Duration::from_millis(1500));
/// assert_eq!(shared.now(), Duration::from_millis(1500));
/// ```
#[derive(Clone, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        ManualClock::default()
    }

    /// Move the clock forward by `by` (saturating at about 584 years).
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // fetch_update cannot fail with a closure that always returns Some.
        let _ = self
            .nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_add(by))
            });
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ManualClock").field(&self.now()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced_and_saturates() {
        let clock = ManualClock::new();
        assert_eq!(clock.now(), Duration::ZERO);
        clock.advance(Duration::from_secs(2));
        assert_eq!(clock.now(), Duration::from_secs(2));
        clock.advance(Duration::MAX);
        assert_eq!(clock.now(), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn system_clock_never_goes_backwards() {
        let a = SystemClock.now();
        let b = SystemClock.now();
        assert!(b >= a);
    }
}
