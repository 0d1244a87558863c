//! Per-session enablement of a provider: [`HooksProvider::is_enabled`], asked once per session
//! and remembered in a bounded map.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;

use crate::context::{Meta, meta_of};
use crate::dispatch::panic_cause;
use crate::outcome::HookName;

use super::HooksProvider;

/// How many sessions a provider's answers are remembered for. Past it the oldest answer is
/// forgotten (that session is asked again, and logged again, if it dispatches later).
pub const MAX_REMEMBERED_SESSIONS: usize = 4096;

/// The answers of one provider, shared by its entries at every point, so that the provider is
/// asked once per session whatever point that session reaches first.
///
/// Dispatch reads the answers without a lock (an `arc-swap` snapshot, as for the hook set); a
/// new answer copies the map under a writer mutex, once per session.
pub(crate) struct Gate {
    name: HookName,
    provider: Arc<dyn HooksProvider>,
    answers: ArcSwap<Answers>,
    writer: Mutex<()>,
}

#[derive(Default, Clone)]
struct Answers {
    by_session: HashMap<Arc<str>, bool>,
    /// Sessions in the order they were first asked about, to forget the oldest.
    order: VecDeque<Arc<str>>,
}

impl Gate {
    pub(crate) fn new(name: HookName, provider: Arc<dyn HooksProvider>) -> Self {
        Gate {
            name,
            provider,
            answers: ArcSwap::from_pointee(Answers::default()),
            writer: Mutex::new(()),
        }
    }

    /// Whether the provider takes part in the dispatch of `ctx`: its answer for the context's
    /// session (asked now if it is new). A context without a session (a custom point's) is
    /// always allowed.
    #[inline]
    pub(crate) fn allows(&self, ctx: &dyn Any) -> bool {
        let Some(meta) = meta_of(ctx) else {
            return true;
        };
        let known = self
            .answers
            .load()
            .by_session
            .get(&*meta.session_id)
            .copied();
        match known {
            Some(enabled) => enabled,
            None => self.ask(meta),
        }
    }

    /// Ask the provider about a new session and remember the answer. The lock is not held
    /// while the provider answers (it may dispatch hooks itself); two dispatches racing on a
    /// new session may both ask, and the first answer stored is the one kept and logged.
    #[cold]
    fn ask(&self, meta: &Meta) -> bool {
        let answer = catch_unwind(AssertUnwindSafe(|| self.provider.is_enabled(meta)));
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut answers = Answers::clone(&self.answers.load());
        if let Some(&enabled) = answers.by_session.get(&*meta.session_id) {
            return enabled;
        }
        let enabled = match answer {
            Ok(enabled) => enabled,
            Err(payload) => {
                // Never fail open: a provider that cannot say is treated as enabled, so its
                // hooks run (and a guard among them fails closed by its own policy).
                tracing::warn!(
                    provider = %self.name,
                    session = %meta.session_id,
                    error = %panic_cause(payload),
                    "hook provider's is_enabled panicked; it stays enabled for this session"
                );
                true
            }
        };
        if !enabled {
            tracing::info!(
                provider = %self.name,
                session = %meta.session_id,
                "hook provider is not enabled for this session (is_enabled returned false); \
                 its hooks are skipped"
            );
        }
        if answers.order.len() >= MAX_REMEMBERED_SESSIONS
            && let Some(oldest) = answers.order.pop_front()
        {
            answers.by_session.remove(&oldest);
        }
        answers.order.push_back(Arc::clone(&meta.session_id));
        answers
            .by_session
            .insert(Arc::clone(&meta.session_id), enabled);
        self.answers.store(Arc::new(answers));
        enabled
    }

    /// How many sessions have an answer remembered.
    #[cfg(test)]
    pub(crate) fn remembered(&self) -> usize {
        self.answers.load().by_session.len()
    }
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate")
            .field("provider", &self.name)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Stop;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counted {
        asked: AtomicUsize,
    }

    impl HooksProvider for Counted {
        fn is_enabled(&self, meta: &Meta) -> bool {
            self.asked.fetch_add(1, Ordering::Relaxed);
            !meta.session_id.starts_with("off")
        }
    }

    fn gate() -> (Gate, Arc<Counted>) {
        let p = Arc::new(Counted {
            asked: AtomicUsize::new(0),
        });
        let dyn_p: Arc<dyn HooksProvider> = p.clone();
        (Gate::new(HookName::intern("counted"), dyn_p), p)
    }

    #[test]
    fn each_session_is_asked_once() {
        let (gate, p) = gate();
        for _ in 0..3 {
            assert!(gate.allows(&Stop::new(Meta::new("on1"))));
            assert!(!gate.allows(&Stop::new(Meta::new("off1"))));
        }
        assert_eq!(p.asked.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_context_without_a_session_is_allowed_without_asking() {
        let (gate, p) = gate();
        assert!(gate.allows(&42_u8));
        assert_eq!(p.asked.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_map_is_bounded_and_forgets_the_oldest_session_first() {
        let (gate, p) = gate();
        for i in 0..MAX_REMEMBERED_SESSIONS + 10 {
            gate.allows(&Stop::new(Meta::new(format!("s{i}"))));
        }
        assert_eq!(gate.remembered(), MAX_REMEMBERED_SESSIONS);
        let asked = p.asked.load(Ordering::Relaxed);
        // The newest is still remembered, the oldest was forgotten and is asked again.
        gate.allows(&Stop::new(Meta::new(format!(
            "s{}",
            MAX_REMEMBERED_SESSIONS + 9
        ))));
        assert_eq!(p.asked.load(Ordering::Relaxed), asked);
        gate.allows(&Stop::new(Meta::new("s0")));
        assert_eq!(p.asked.load(Ordering::Relaxed), asked + 1);
    }
}
