//! The bounded queue between the agent loop and the writer thread, and the writer's loop.
//!
//! A `Mutex<VecDeque>` with condvars rather than `std::sync::mpsc::sync_channel`: senders need
//! a timed wait when the queue is full (`SyncSender` has none on stable), the writer takes
//! everything waiting in one lock (one transaction per batch), and `flush` waits for a count
//! of processed messages, which a channel cannot report.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::AuditError;
use super::record::{AuditRecord, GapRecord, now_ms};

/// What the agent side sends to the writer.
pub(crate) enum Msg {
    /// A trail record (boxed: the queue moves it twice, and holds thousands).
    Record(Box<AuditRecord>),
    /// Set a session's key.
    KvSet {
        session: String,
        key: String,
        value: Value,
        ts_ms: u64,
    },
    /// Read a session's key, after every message queued before it was applied.
    KvGet {
        session: String,
        key: String,
        reply: SyncSender<Result<Option<Value>, String>>,
    },
}

impl Msg {
    /// True for messages that store something (counted in `written` / `failed`).
    fn is_write(&self) -> bool {
        !matches!(self, Msg::KvGet { .. })
    }
}

/// A storage backend, owned by the writer thread.
pub(crate) trait Store: Send {
    /// Store `batch` (and `gap`, first) in one transaction or one write. Returns the answers
    /// of the batch's `KvGet` messages, in order. On error nothing of the batch is stored.
    fn apply(
        &mut self,
        batch: &[Msg],
        gap: Option<&GapRecord>,
    ) -> Result<Vec<Option<Value>>, String>;
}

/// Counters readable without the lock.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) written: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) batches: AtomicU64,
    pub(crate) write_errors: AtomicU64,
    /// Dropped + failed since the last `take_lost`.
    lost_dropped: AtomicU64,
    lost_failed: AtomicU64,
}

struct State {
    items: VecDeque<Msg>,
    /// Messages accepted since the start.
    accepted: u64,
    /// Messages the writer finished (stored or failed).
    processed: u64,
    closing: bool,
    writer_alive: bool,
    /// A sender timed out and nothing was accepted since: later senders do not wait, so a
    /// stuck writer costs the agent loop one deadline, not one per record.
    overflowing: bool,
    /// When the writer last took a batch or finished one.
    last_progress: Instant,
    last_error: Option<String>,
}

/// The queue shared by the agent side and the writer.
pub(crate) struct Queue {
    state: Mutex<State>,
    not_empty: Condvar,
    not_full: Condvar,
    progress: Condvar,
    capacity: usize,
    pub(crate) counters: Counters,
    warned_closed: AtomicBool,
}

/// How long a sender may wait for room.
#[derive(Clone, Copy)]
pub(crate) enum Wait {
    /// A record from the agent loop: wait while the writer makes progress, at most the
    /// deadline without progress, and not at all once a record was dropped that way (until the
    /// queue has room again).
    Record(Duration),
    /// A caller that gets the error back (`kv_set`, `kv_get`): wait while the writer makes
    /// progress, at most the deadline without progress.
    Call(Duration),
}

/// Why a message was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Closed,
    WriterDead,
    Full,
}

impl Queue {
    pub(crate) fn new(capacity: usize) -> Self {
        Queue {
            state: Mutex::new(State {
                items: VecDeque::with_capacity(capacity.min(4096)),
                accepted: 0,
                processed: 0,
                closing: false,
                writer_alive: true,
                overflowing: false,
                last_progress: Instant::now(),
                last_error: None,
            }),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            progress: Condvar::new(),
            capacity,
            counters: Counters::default(),
            warned_closed: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is changed by whole steps that cannot panic midway.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queue `msg`, waiting for room as `wait` allows. A refused record is counted as dropped
    /// (and logged).
    pub(crate) fn push(&self, msg: Msg, wait: Wait) -> Result<(), Refused> {
        let mut st = self.lock();
        let refused = loop {
            if st.closing {
                break Refused::Closed;
            }
            if !st.writer_alive {
                break Refused::WriterDead;
            }
            if st.items.len() < self.capacity {
                st.items.push_back(msg);
                st.accepted += 1;
                st.overflowing = false;
                drop(st);
                self.not_empty.notify_one();
                return Ok(());
            }
            let deadline = match wait {
                Wait::Record(_) if st.overflowing => break Refused::Full,
                Wait::Record(d) | Wait::Call(d) => d,
            };
            // The deadline runs while the writer makes no progress: a writer that is slow but
            // working throttles the agent (backpressure, nothing lost); one that is stuck
            // makes it drop.
            let started = Instant::now();
            let mut timed_out = false;
            while st.items.len() >= self.capacity && !st.closing && st.writer_alive {
                let since = st.last_progress.max(started);
                let left = deadline.saturating_sub(since.elapsed());
                if left.is_zero() {
                    timed_out = true;
                    break;
                }
                st = self
                    .not_full
                    .wait_timeout(st, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            if timed_out {
                if matches!(wait, Wait::Record(_)) && !st.overflowing {
                    st.overflowing = true;
                    tracing::warn!(
                        capacity = self.capacity,
                        deadline_ms = deadline.as_millis() as u64,
                        "audit queue full and its writer stalled past the deadline; dropping \
                         records (counted) until it takes some"
                    );
                }
                break Refused::Full;
            }
        };
        drop(st);
        // A caller that gets the error back (`kv_set`) has not lost anything silently.
        if matches!(wait, Wait::Record(_)) {
            self.count_dropped(refused);
        }
        Err(refused)
    }

    fn count_dropped(&self, why: Refused) {
        self.counters.dropped.fetch_add(1, Ordering::Relaxed);
        self.counters.lost_dropped.fetch_add(1, Ordering::Relaxed);
        if why == Refused::Closed && !self.warned_closed.swap(true, Ordering::Relaxed) {
            tracing::warn!("audit record after close(); dropped (counted in stats)");
        }
    }

    /// Wait until every message accepted before this call is processed.
    pub(crate) fn wait_processed(&self, timeout: Duration) -> Result<(), AuditError> {
        let started = Instant::now();
        let mut st = self.lock();
        let target = st.accepted;
        // Wake the writer even if it is between batches: it takes whatever is queued.
        self.not_empty.notify_one();
        while st.processed < target {
            if !st.writer_alive {
                return Err(AuditError::WriterDead {
                    last_error: st.last_error.clone(),
                });
            }
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(AuditError::Timeout(timeout));
            }
            st = self
                .progress
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        Ok(())
    }

    /// Records lost since the previous call, as an error (or `Ok` when none).
    pub(crate) fn take_lost(&self) -> Result<(), AuditError> {
        let dropped = self.counters.lost_dropped.swap(0, Ordering::Relaxed);
        let failed = self.counters.lost_failed.swap(0, Ordering::Relaxed);
        if dropped == 0 && failed == 0 {
            return Ok(());
        }
        Err(AuditError::Lost {
            dropped,
            failed,
            last_error: self.last_error(),
        })
    }

    pub(crate) fn last_error(&self) -> Option<String> {
        self.lock().last_error.clone()
    }

    pub(crate) fn queued(&self) -> usize {
        self.lock().items.len()
    }

    /// Refuse new messages and let the writer drain the queue and stop.
    pub(crate) fn close(&self) {
        let mut st = self.lock();
        st.closing = true;
        drop(st);
        self.not_empty.notify_all();
        self.not_full.notify_all();
    }

    /// Take the next batch, waiting for one; `None` when closing and drained.
    fn next_batch(&self, max: usize) -> Option<Vec<Msg>> {
        let mut st = self.lock();
        while st.items.is_empty() {
            if st.closing {
                return None;
            }
            st = self
                .not_empty
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let n = st.items.len().min(max);
        let batch: Vec<Msg> = st.items.drain(..n).collect();
        st.last_progress = Instant::now();
        drop(st);
        self.not_full.notify_all();
        Some(batch)
    }

    fn finish_batch(&self, n: usize, error: Option<String>) {
        let mut st = self.lock();
        st.processed += n as u64;
        st.last_progress = Instant::now();
        if let Some(e) = error {
            st.last_error = Some(e);
        }
        drop(st);
        self.progress.notify_all();
    }

    /// The writer is gone: what is still queued is lost.
    fn writer_stopped(&self, unexpectedly: bool) {
        let mut st = self.lock();
        st.writer_alive = false;
        let left = st.items.len();
        let writes = st.items.iter().filter(|m| m.is_write()).count() as u64;
        st.items.clear();
        st.processed += left as u64;
        if unexpectedly {
            st.last_error
                .get_or_insert_with(|| "the writer thread stopped unexpectedly".to_owned());
        }
        drop(st);
        if writes > 0 {
            self.counters.failed.fetch_add(writes, Ordering::Relaxed);
            self.counters
                .lost_failed
                .fetch_add(writes, Ordering::Relaxed);
        }
        if unexpectedly {
            tracing::error!(
                lost = writes,
                "audit writer thread stopped unexpectedly; further records are dropped"
            );
        }
        self.not_full.notify_all();
        self.progress.notify_all();
    }
}

/// Marks the writer dead when its thread ends, also by unwinding.
struct AliveGuard<'a> {
    queue: &'a Queue,
    clean: bool,
}

impl Drop for AliveGuard<'_> {
    fn drop(&mut self) {
        self.queue.writer_stopped(!self.clean);
    }
}

/// The writer thread's loop: take a batch, store it in one transaction, count, repeat, until
/// the queue is closed and drained.
pub(crate) fn run_writer(queue: Arc<Queue>, mut store: Box<dyn Store>, batch_size: usize) {
    let mut guard = AliveGuard {
        queue: &queue,
        clean: false,
    };
    let c = &queue.counters;
    // Losses already written down as gap records.
    let (mut gap_dropped, mut gap_failed) = (0u64, 0u64);
    while let Some(batch) = queue.next_batch(batch_size) {
        let writes = batch.iter().filter(|m| m.is_write()).count() as u64;
        let (dropped, failed) = (
            c.dropped.load(Ordering::Relaxed),
            c.failed.load(Ordering::Relaxed),
        );
        let gap = (dropped > gap_dropped || failed > gap_failed).then(|| GapRecord {
            ts_ms: now_ms(),
            dropped: dropped - gap_dropped,
            failed: failed - gap_failed,
        });
        // A panic in a backend (a bug) must not end the audit: it fails this batch only.
        let result = catch_unwind(AssertUnwindSafe(|| store.apply(&batch, gap.as_ref())))
            .unwrap_or_else(|_| Err("the audit backend panicked while writing a batch".into()));
        let error = match result {
            Ok(answers) => {
                if gap.is_some() {
                    (gap_dropped, gap_failed) = (dropped, failed);
                }
                c.written.fetch_add(writes, Ordering::Relaxed);
                c.batches.fetch_add(1, Ordering::Relaxed);
                let mut answers = answers.into_iter();
                for msg in &batch {
                    if let Msg::KvGet { reply, .. } = msg {
                        let _ = reply.try_send(Ok(answers.next().flatten()));
                    }
                }
                None
            }
            Err(e) => {
                c.failed.fetch_add(writes, Ordering::Relaxed);
                c.lost_failed.fetch_add(writes, Ordering::Relaxed);
                c.write_errors.fetch_add(1, Ordering::Relaxed);
                tracing::error!(error = %e, lost = writes, "audit batch not written");
                for msg in &batch {
                    if let Msg::KvGet { reply, .. } = msg {
                        let _ = reply.try_send(Err(e.clone()));
                    }
                }
                Some(e)
            }
        };
        queue.finish_batch(batch.len(), error);
    }
    guard.clean = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::{EventRecord, Origin};
    use std::sync::mpsc;

    fn record(n: u64) -> Msg {
        Msg::Record(Box::new(AuditRecord::Event(EventRecord {
            ts_ms: n,
            origin: Origin::default(),
            point: "test".into(),
            detail: Value::Null,
        })))
    }

    /// A backend that reports each batch (record timestamps and the gap it was given) and
    /// can be told to block or panic.
    struct Probe {
        seen: mpsc::Sender<(Vec<u64>, Option<GapRecord>)>,
        entered: Option<mpsc::Sender<()>>,
        go: Option<mpsc::Receiver<()>>,
        panic_first: bool,
    }

    impl Store for Probe {
        fn apply(
            &mut self,
            batch: &[Msg],
            gap: Option<&GapRecord>,
        ) -> Result<Vec<Option<Value>>, String> {
            if let Some(entered) = &self.entered {
                let _ = entered.send(());
            }
            if let Some(go) = &self.go {
                let _ = go.recv();
            }
            if std::mem::take(&mut self.panic_first) {
                panic!("backend bug");
            }
            let ts = batch
                .iter()
                .filter_map(|m| match m {
                    Msg::Record(r) => Some(r.ts_ms()),
                    _ => None,
                })
                .collect();
            let _ = self.seen.send((ts, gap.cloned()));
            Ok(Vec::new())
        }
    }

    fn start(capacity: usize, probe: Probe) -> (Arc<Queue>, std::thread::JoinHandle<()>) {
        let queue = Arc::new(Queue::new(capacity));
        let q = Arc::clone(&queue);
        let writer = std::thread::spawn(move || run_writer(q, Box::new(probe), 16));
        (queue, writer)
    }

    #[test]
    fn a_stalled_writer_makes_one_sender_wait_out_the_deadline_and_later_ones_drop_at_once() {
        let (seen_tx, seen) = mpsc::channel();
        let (entered_tx, entered) = mpsc::channel();
        let (go, go_rx) = mpsc::channel();
        let probe = Probe {
            seen: seen_tx,
            entered: Some(entered_tx),
            go: Some(go_rx),
            panic_first: false,
        };
        let (queue, writer) = start(1, probe);
        let wait = Wait::Record(Duration::from_millis(50));
        queue.push(record(1), wait).unwrap();
        entered.recv().unwrap(); // the writer holds record 1 and is stuck
        queue.push(record(2), wait).unwrap(); // fills the queue
        assert_eq!(queue.push(record(3), wait), Err(Refused::Full)); // after the deadline
        assert!(queue.lock().overflowing);
        assert_eq!(queue.push(record(4), wait), Err(Refused::Full)); // without waiting
        assert_eq!(queue.counters.dropped.load(Ordering::Relaxed), 2);
        for _ in 0..2 {
            go.send(()).unwrap();
        }
        queue.wait_processed(Duration::from_secs(60)).unwrap();
        assert_eq!(seen.recv().unwrap(), (vec![1], None));
        let (second, gap) = seen.recv().unwrap();
        assert_eq!(second, [2]);
        let gap = gap.unwrap();
        assert_eq!((gap.dropped, gap.failed), (2, 0));
        assert!(matches!(
            queue.take_lost(),
            Err(AuditError::Lost {
                dropped: 2,
                failed: 0,
                ..
            })
        ));
        // Room again: records are accepted (and waited for) as before.
        queue.push(record(5), wait).unwrap();
        assert!(!queue.lock().overflowing);
        drop(go);
        queue.close();
        writer.join().unwrap();
        assert_eq!(queue.counters.written.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_writer_that_keeps_up_slowly_throttles_senders_without_dropping() {
        let (seen_tx, seen) = mpsc::channel();
        let (go, go_rx) = mpsc::channel();
        let probe = Probe {
            seen: seen_tx,
            entered: None,
            go: Some(go_rx),
            panic_first: false,
        };
        let (queue, writer) = start(1, probe);
        // Each batch waits for a permit, handed out one at a time from another thread.
        let feeder = std::thread::spawn(move || {
            while go.send(()).is_ok() {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        for n in 0..200 {
            queue
                .push(record(n), Wait::Record(Duration::from_secs(10)))
                .unwrap();
        }
        queue.close();
        writer.join().unwrap();
        feeder.join().unwrap();
        let written: Vec<u64> = seen.try_iter().flat_map(|(ts, _)| ts).collect();
        assert_eq!(written, (0..200).collect::<Vec<_>>());
        assert_eq!(queue.counters.dropped.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_panicking_backend_fails_its_batch_only_and_the_next_batch_marks_the_gap() {
        let (seen_tx, seen) = mpsc::channel();
        let (entered_tx, entered) = mpsc::channel();
        let (go, go_rx) = mpsc::channel();
        let probe = Probe {
            seen: seen_tx,
            entered: Some(entered_tx),
            go: Some(go_rx),
            panic_first: true,
        };
        let (queue, writer) = start(8, probe);
        let wait = Wait::Record(Duration::from_secs(10));
        queue.push(record(1), wait).unwrap();
        entered.recv().unwrap();
        queue.push(record(2), wait).unwrap();
        go.send(()).unwrap();
        go.send(()).unwrap();
        queue.wait_processed(Duration::from_secs(60)).unwrap();
        let (ts, gap) = seen.recv().unwrap();
        assert_eq!(ts, [2]);
        assert_eq!(gap.map(|g| g.failed), Some(1));
        let c = &queue.counters;
        assert_eq!(
            (
                c.written.load(Ordering::Relaxed),
                c.failed.load(Ordering::Relaxed),
                c.write_errors.load(Ordering::Relaxed)
            ),
            (1, 1, 1)
        );
        assert!(queue.last_error().unwrap().contains("panicked"));
        drop(go);
        queue.close();
        writer.join().unwrap();
    }

    #[test]
    fn after_close_the_writer_drains_what_was_queued_and_refuses_the_rest() {
        let (seen_tx, seen) = mpsc::channel();
        let probe = Probe {
            seen: seen_tx,
            entered: None,
            go: None,
            panic_first: false,
        };
        let (queue, writer) = start(64, probe);
        for n in 0..50 {
            queue
                .push(record(n), Wait::Record(Duration::from_secs(10)))
                .unwrap();
        }
        queue.close();
        assert_eq!(
            queue.push(record(99), Wait::Record(Duration::from_secs(10))),
            Err(Refused::Closed)
        );
        writer.join().unwrap();
        let written: Vec<u64> = seen.try_iter().flat_map(|(ts, _)| ts).collect();
        assert_eq!(written, (0..50).collect::<Vec<_>>());
        assert!(matches!(
            queue.wait_processed(Duration::from_secs(1)),
            Ok(())
        ));
        assert_eq!(
            queue.push(record(100), Wait::Call(Duration::from_secs(1))),
            Err(Refused::Closed)
        );
        // Only the record from the agent loop counts as dropped; the caller got its error.
        assert_eq!(queue.counters.dropped.load(Ordering::Relaxed), 1);
    }
}
