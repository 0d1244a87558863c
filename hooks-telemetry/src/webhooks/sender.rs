//! The sender: per-endpoint bounded queues, counters, the delivery thread, shutdown.

use std::fmt;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hookrail_core::bus::Bus;
use tokio::sync::{mpsc, watch};

use super::config::{Source, Webhook};
use super::delivery;
use super::error::WebhookError;

/// How long [`Webhooks::shutdown`] waits for the delivery thread once it has told it to abort.
const ABORT_GRACE: Duration = Duration::from_secs(2);
/// At most one "queue full" (and one "delivery failed") warning per endpoint per interval.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// One event waiting for delivery; shared by every endpoint that receives it.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) name: Box<str>,
    pub(crate) seq: u64,
    pub(crate) data: serde_json::Value,
}

/// Lifecycle of the delivery thread, broadcast to its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    Running,
    /// No new events from users; the bus forwarders hand over what they hold, then stop.
    Closing,
    /// The forwarders are done: take no new events, deliver the queued ones.
    Draining,
    /// Stop now; count what is left.
    Abort,
}

/// Delivery counters of one endpoint, or of all of them ([`Webhooks::stats`]).
///
/// Every event routed to an endpoint is counted in exactly one of `sent`, `failed`, `dropped`
/// and `pending`; after [`Webhooks::shutdown`], `pending` is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookStats {
    /// Delivered: the endpoint answered 2xx.
    pub sent: u64,
    /// Given up: a non-retryable answer (4xx other than 408/429, 3xx, …), retries exhausted,
    /// or still in flight when the shutdown deadline passed.
    pub failed: u64,
    /// Retry attempts made (an event retried twice counts 2). Not part of the sum above.
    pub retried: u64,
    /// Never attempted: the endpoint's queue was full (or the sender shut down) when the event
    /// came, or the event was still queued when the shutdown deadline passed.
    pub dropped: u64,
    /// Queued or in flight right now.
    pub pending: u64,
}

impl WebhookStats {
    fn add(mut self, other: Self) -> Self {
        self.sent += other.sent;
        self.failed += other.failed;
        self.retried += other.retried;
        self.dropped += other.dropped;
        self.pending += other.pending;
        self
    }
}

/// The counters of one endpoint, with its URL (redacted: no credentials, query or fragment).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndpointStats {
    /// The endpoint URL, redacted.
    pub url: String,
    /// Its counters.
    pub stats: WebhookStats,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    accepted: AtomicU64,
    pub(crate) sent: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) retried: AtomicU64,
    /// Refused at enqueue.
    refused: AtomicU64,
    /// Accepted, then discarded unattempted at shutdown.
    pub(crate) discarded: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> WebhookStats {
        let sent = self.sent.load(Relaxed);
        let failed = self.failed.load(Relaxed);
        let discarded = self.discarded.load(Relaxed);
        let accepted = self.accepted.load(Relaxed);
        WebhookStats {
            sent,
            failed,
            retried: self.retried.load(Relaxed),
            dropped: self.refused.load(Relaxed) + discarded,
            pending: accepted.saturating_sub(sent + failed + discarded),
        }
    }
}

/// Lets one event through per interval, without locks.
#[derive(Debug)]
pub(crate) struct RateLimit {
    last_ms: AtomicU64,
}

impl RateLimit {
    const NEVER: u64 = u64::MAX;

    fn new() -> Self {
        Self {
            last_ms: AtomicU64::new(Self::NEVER),
        }
    }

    pub(crate) fn allow(&self, now_ms: u64) -> bool {
        let last = self.last_ms.load(Relaxed);
        let every = WARN_EVERY.as_millis() as u64;
        if last != Self::NEVER && now_ms.saturating_sub(last) < every {
            return false;
        }
        self.last_ms
            .compare_exchange(last, now_ms, Relaxed, Relaxed)
            .is_ok()
    }
}

pub(crate) struct Endpoint {
    pub(crate) config: Webhook,
    pub(crate) url: reqwest::Url,
    /// The URL for logs and stats: no credentials, query or fragment.
    pub(crate) display_url: String,
    tx: mpsc::Sender<Arc<Outgoing>>,
    pub(crate) counters: Counters,
    warn_dropped: RateLimit,
    pub(crate) warn_failed: RateLimit,
}

pub(crate) struct Shared {
    pub(crate) endpoints: Box<[Endpoint]>,
    pub(crate) source: Option<Source>,
    closed: AtomicBool,
    next_seq: AtomicU64,
    id_prefix: u64,
    next_id: AtomicU64,
    started: Instant,
    phase: watch::Sender<Phase>,
    pub(crate) runtime: tokio::runtime::Handle,
    /// Events the attached buses dropped before we saw them.
    pub(crate) missed: AtomicU64,
    /// Bus forwarders still running.
    forwarders: AtomicUsize,
    /// The buses attached to, to refuse attaching twice to one ([`Webhooks::attach`]). Holds
    /// them until the sender stops; emptied (and closed to new buses) by [`Webhooks::stop`].
    pub(crate) attached: Mutex<Vec<Bus>>,
}

impl Shared {
    pub(crate) fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A fresh delivery id: unique within this sender, random across senders.
    pub(crate) fn delivery_id(&self) -> String {
        let n = self.next_id.fetch_add(1, Relaxed);
        format!("{:016x}{n:016x}", self.id_prefix)
    }

    pub(crate) fn phase(&self) -> watch::Receiver<Phase> {
        self.phase.subscribe()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Relaxed)
    }

    /// A bus forwarder starts.
    pub(crate) fn forwarder_started(&self) {
        self.forwarders.fetch_add(1, SeqCst);
    }

    /// A bus forwarder is done; the last one lets the endpoints drain.
    pub(crate) fn forwarder_done(&self) {
        if self.forwarders.fetch_sub(1, SeqCst) == 1 {
            self.advance_to_draining();
        }
    }

    /// `Closing` becomes `Draining` once no forwarder runs: the endpoint queues close only
    /// after the forwarders handed over what they held.
    fn advance_to_draining(&self) {
        if self.forwarders.load(SeqCst) == 0 {
            self.phase.send_if_modified(|phase| {
                let closing = *phase == Phase::Closing;
                if closing {
                    *phase = Phase::Draining;
                }
                closing
            });
        }
    }

    /// Offers `event` to every endpoint that receives it; never blocks. Returns how many
    /// endpoints queued it. Once the sender is closed, only `draining` offers (events that
    /// came in before the shutdown) are tried.
    pub(crate) fn offer(
        &self,
        name: &str,
        seq: u64,
        data: serde_json::Value,
        draining: bool,
    ) -> usize {
        let mut data = Some(data);
        let mut event: Option<Arc<Outgoing>> = None;
        let mut queued = 0;
        for endpoint in self.endpoints.iter() {
            if !endpoint.config.receives(name) {
                continue;
            }
            if !draining && self.is_closed() {
                endpoint.counters.refused.fetch_add(1, Relaxed);
                continue;
            }
            let event = event
                .get_or_insert_with(|| {
                    Arc::new(Outgoing {
                        name: name.into(),
                        seq,
                        data: data.take().unwrap_or_default(),
                    })
                })
                .clone();
            // Count before sending, so that `pending` never goes below the truth.
            endpoint.counters.accepted.fetch_add(1, Relaxed);
            if endpoint.tx.try_send(event).is_ok() {
                queued += 1;
            } else {
                endpoint.counters.accepted.fetch_sub(1, Relaxed);
                let dropped = endpoint.counters.refused.fetch_add(1, Relaxed) + 1;
                self.warn_limited(&endpoint.warn_dropped, || {
                    tracing::warn!(
                        endpoint = %endpoint.display_url,
                        event = name,
                        dropped,
                        "webhook queue full (endpoint slow or down): dropping events"
                    );
                });
            }
        }
        queued
    }
}

impl Shared {
    /// An event whose payload does not serialize: a failed delivery for each endpoint that
    /// receives it.
    pub(crate) fn unserializable(&self, name: &str, error: &serde_json::Error) {
        for endpoint in self.endpoints.iter().filter(|e| e.config.receives(name)) {
            endpoint.counters.accepted.fetch_add(1, Relaxed);
            let failed = endpoint.counters.failed.fetch_add(1, Relaxed) + 1;
            self.warn_limited(&endpoint.warn_failed, || {
                tracing::warn!(
                    endpoint = %endpoint.display_url,
                    event = name,
                    failed,
                    error = %error,
                    "webhook event payload does not serialize to JSON; not sent"
                );
            });
        }
    }

    /// Runs `warn` if `limit` lets a warning through now (one per endpoint and interval).
    pub(crate) fn warn_limited(&self, limit: &RateLimit, warn: impl FnOnce()) -> bool {
        let allowed = limit.allow(self.now_ms());
        if allowed {
            warn();
        }
        allowed
    }
}

/// Builds a [`Webhooks`] sender: endpoints and the optional envelope `source`.
#[derive(Debug, Default)]
#[must_use]
pub struct WebhooksBuilder {
    endpoints: Vec<Webhook>,
    source: Option<Source>,
}

impl WebhooksBuilder {
    /// Adds an endpoint.
    pub fn endpoint(mut self, webhook: Webhook) -> Self {
        self.endpoints.push(webhook);
        self
    }

    /// Adds endpoints.
    pub fn endpoints(mut self, webhooks: impl IntoIterator<Item = Webhook>) -> Self {
        self.endpoints.extend(webhooks);
        self
    }

    /// Puts `"source": {"service": …, "instance": …}` in every envelope.
    pub fn source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    /// Checks the URLs, builds the HTTP client and starts the delivery thread.
    pub fn build(self) -> Result<Webhooks, WebhookError> {
        let mut urls = Vec::with_capacity(self.endpoints.len());
        for (index, webhook) in self.endpoints.iter().enumerate() {
            let url = reqwest::Url::parse(&webhook.url).map_err(|e| WebhookError::InvalidUrl {
                index,
                reason: e.to_string(),
            })?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(WebhookError::UnsupportedScheme {
                    index,
                    url: redact(&url),
                    scheme: url.scheme().to_owned(),
                });
            }
            urls.push(url);
        }

        // Redirects are not followed: a redirected POST would turn into a GET, or carry the
        // signed body to a host nobody configured. A 3xx is a failed delivery.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("hooks-telemetry/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| WebhookError::Client(delivery::error_chain(&e.without_url())))?;

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(WebhookError::Start)?;

        let mut endpoints = Vec::with_capacity(urls.len());
        let mut receivers = Vec::with_capacity(urls.len());
        for (config, url) in self.endpoints.into_iter().zip(urls) {
            let display_url = redact(&url);
            if config.secret.is_none() {
                tracing::warn!(
                    endpoint = %display_url,
                    "unsigned webhook endpoint {display_url}: receivers cannot verify it"
                );
            }
            let (tx, rx) = mpsc::channel(config.queue_capacity);
            receivers.push(rx);
            endpoints.push(Endpoint {
                display_url,
                url,
                config,
                tx,
                counters: Counters::default(),
                warn_dropped: RateLimit::new(),
                warn_failed: RateLimit::new(),
            });
        }

        let (phase, _) = watch::channel(Phase::Running);
        let shared = Arc::new(Shared {
            endpoints: endpoints.into_boxed_slice(),
            source: self.source,
            closed: AtomicBool::new(false),
            next_seq: AtomicU64::new(0),
            id_prefix: fastrand::u64(..),
            next_id: AtomicU64::new(0),
            started: Instant::now(),
            phase,
            runtime: runtime.handle().clone(),
            missed: AtomicU64::new(0),
            forwarders: AtomicUsize::new(0),
            attached: Mutex::new(Vec::new()),
        });

        let (done_tx, done) = std_mpsc::channel();
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("hooks-webhooks".into())
                .spawn(move || {
                    runtime.block_on(delivery::run(shared, client, receivers));
                    // Dropping the runtime cancels whatever else was spawned on it (bus glue).
                    drop(runtime);
                    let _ = done_tx.send(());
                })
                .map_err(WebhookError::Start)?
        };

        tracing::debug!(
            endpoints = shared.endpoints.len(),
            "webhook delivery thread started"
        );
        Ok(Webhooks {
            shared,
            worker: Mutex::new(Some(Worker { thread, done })),
        })
    }
}

struct Worker {
    thread: JoinHandle<()>,
    done: std_mpsc::Receiver<()>,
}

/// Signed outbound webhooks: per-endpoint bounded queues drained by a background thread.
///
/// [`Webhooks::enqueue`] never blocks and never awaits, so it is safe on the agent loop, sync
/// or async. The delivery runs on a dedicated thread (`hooks-webhooks`) with its own
/// current-thread tokio runtime, whether or not the caller has a runtime: webhook I/O never
/// competes with the agent's tasks, and a blocked agent loop never stalls deliveries.
///
/// Each endpoint delivers one event at a time, in queue order; see the
/// [module docs](super) for retries and signatures. Dropping a `Webhooks` aborts deliveries
/// without waiting (and warns with how many were abandoned); call [`Webhooks::shutdown`] to
/// drain first.
#[must_use = "dropping the sender abandons every delivery; keep it and call shutdown"]
pub struct Webhooks {
    shared: Arc<Shared>,
    /// In a mutex only so that `Webhooks` is `Sync` (the std receiver is not).
    worker: Mutex<Option<Worker>>,
}

impl Webhooks {
    /// A builder, for endpoints plus a [`Source`].
    pub fn builder() -> WebhooksBuilder {
        WebhooksBuilder::default()
    }

    /// A sender for these endpoints (no `source` in the envelopes).
    pub fn new(endpoints: impl IntoIterator<Item = Webhook>) -> Result<Self, WebhookError> {
        Self::builder().endpoints(endpoints).build()
    }

    /// Queues `data` as event `event` for every endpoint that receives it, without blocking.
    ///
    /// The envelope's `seq` comes from a counter of this sender. An endpoint whose queue is full
    /// drops the event and counts it (see [`WebhookStats::dropped`]). Returns how many endpoints
    /// queued it.
    pub fn enqueue(&self, event: &str, data: serde_json::Value) -> usize {
        let seq = self.shared.next_seq.fetch_add(1, Relaxed);
        self.shared.offer(event, seq, data, false)
    }

    /// The counters summed over all endpoints.
    pub fn stats(&self) -> WebhookStats {
        self.shared
            .endpoints
            .iter()
            .map(|e| e.counters.snapshot())
            .fold(WebhookStats::default(), WebhookStats::add)
    }

    /// The counters of each endpoint, in configuration order.
    pub fn endpoint_stats(&self) -> Vec<EndpointStats> {
        self.shared
            .endpoints
            .iter()
            .map(|e| EndpointStats {
                url: e.display_url.clone(),
                stats: e.counters.snapshot(),
            })
            .collect()
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Stops taking events, delivers what is queued (with retries) for at most `deadline`,
    /// then abandons the rest, and returns the final counters.
    ///
    /// Blocks the calling thread for up to `deadline` (plus a short grace for the abort);
    /// from async code, call it inside `spawn_blocking`.
    pub fn shutdown(mut self, deadline: Duration) -> WebhookStats {
        self.stop(Some(deadline));
        self.stats()
    }

    /// Stops the delivery thread: drains for `deadline`, or aborts at once with `None`.
    /// Returns false if it was already stopped.
    fn stop(&mut self, deadline: Option<Duration>) -> bool {
        {
            // Under the lock, so that `attach` either sees `closed` or has its bus released here.
            let mut attached = self
                .shared
                .attached
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.shared.closed.store(true, Relaxed);
            attached.clear();
        }
        let worker = self
            .worker
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(worker) = worker else {
            return false;
        };
        let Some(deadline) = deadline else {
            self.shared.phase.send_replace(Phase::Abort);
            return true;
        };
        self.shared.phase.send_replace(Phase::Closing);
        self.shared.advance_to_draining();
        let finished = match worker.done.recv_timeout(deadline) {
            Ok(()) | Err(std_mpsc::RecvTimeoutError::Disconnected) => true,
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                self.shared.phase.send_replace(Phase::Abort);
                match worker.done.recv_timeout(ABORT_GRACE) {
                    Ok(()) | Err(std_mpsc::RecvTimeoutError::Disconnected) => true,
                    Err(std_mpsc::RecvTimeoutError::Timeout) => false,
                }
            }
        };
        if finished {
            if worker.thread.join().is_err() {
                tracing::error!("webhook delivery thread panicked");
            }
        } else {
            tracing::warn!("webhook delivery thread did not stop in time; detaching it");
        }
        tracing::debug!(stats = ?self.stats(), "webhooks shut down");
        true
    }
}

impl Drop for Webhooks {
    fn drop(&mut self) {
        // Queued or in flight now: all of it is abandoned (counted as failed or dropped).
        let pending = self.stats().pending;
        if self.stop(None) && pending > 0 {
            tracing::warn!(
                abandoned = pending,
                "webhooks dropped without shutdown: abandoning {pending} deliveries \
                 (queued or in flight); keep the sender and call `shutdown` to deliver them"
            );
        }
    }
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhooks")
            .field("endpoints", &self.endpoint_stats())
            .field("source", &self.shared.source)
            .field("running", &!self.shared.is_closed())
            .finish()
    }
}

/// `url` without credentials, query or fragment.
pub(crate) fn redact(url: &reqwest::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// `url` redacted as by [`redact`], or a placeholder if it does not parse.
pub(crate) fn redact_str(url: &str) -> String {
    reqwest::Url::parse(url)
        .map(|u| redact(&u))
        .unwrap_or_else(|_| "<invalid url>".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sender_can_be_shared_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Webhooks>();
        send_sync::<WebhookStats>();
    }

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact_str("https://user:pw@example.com:8443/a/b?token=t#frag"),
            "https://example.com:8443/a/b"
        );
        assert_eq!(redact_str("not a url"), "<invalid url>");
    }

    #[test]
    fn rate_limit_lets_one_through_per_interval() {
        let limit = RateLimit::new();
        let every = WARN_EVERY.as_millis() as u64;
        assert!(limit.allow(0));
        assert!(!limit.allow(1));
        assert!(!limit.allow(every - 1));
        assert!(limit.allow(every));
        assert!(!limit.allow(every + 1));
    }
}
