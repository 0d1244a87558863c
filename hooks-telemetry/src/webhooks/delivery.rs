//! The delivery thread: one task per endpoint, each POSTing its queue in order with retries.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime};

use serde::Serialize;
use tokio::sync::{mpsc, watch};

use super::config::Source;
use super::sender::{Endpoint, Outgoing, Phase, Shared};
use crate::signature::{SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, unix_seconds};

/// Header naming the event (hook point). Not covered by the signature: receivers read the
/// event from the verified envelope ([`Verified::event`](crate::signature::Verified::event)).
pub const EVENT_HEADER: &str = "X-Hooks-Event";
/// Header carrying the delivery id (the envelope's `"id"`, the same across retries). Not
/// covered by the signature: receivers read the id from the verified envelope
/// ([`Verified::id`](crate::signature::Verified::id)).
pub const DELIVERY_HEADER: &str = "X-Hooks-Delivery";

/// At most this much of a response body is read (to reuse the connection), the rest is dropped.
const MAX_RESPONSE_BODY: usize = 64 * 1024;

/// The JSON body of a delivery.
#[derive(Serialize)]
struct Envelope<'a> {
    id: &'a str,
    event: &'a str,
    timestamp: u64,
    seq: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a Source>,
    data: &'a serde_json::Value,
}

/// What one attempt came to.
enum Attempt {
    Sent,
    /// Worth another try: 5xx, 408, 429, timeout, connection or I/O error.
    Retry(String),
    /// Not worth another try: other statuses, or a request that cannot be built.
    Fail(String),
}

/// The delivery thread's main future: runs every endpoint's task to completion.
pub(crate) async fn run(
    shared: Arc<Shared>,
    client: reqwest::Client,
    receivers: Vec<mpsc::Receiver<Arc<Outgoing>>>,
) {
    let tasks: Vec<_> = receivers
        .into_iter()
        .enumerate()
        .map(|(index, rx)| {
            tokio::spawn(endpoint_task(
                Arc::clone(&shared),
                index,
                client.clone(),
                rx,
            ))
        })
        .collect();
    for task in tasks {
        if let Err(e) = task.await {
            tracing::error!(error = %e, "webhook endpoint task failed");
        }
    }
}

/// Resolves once the phase is at least `at_least`.
async fn reached(phase: &mut watch::Receiver<Phase>, at_least: Phase) {
    // An error means the sender is gone, which only happens when everything stops.
    let _ = phase.wait_for(|p| *p >= at_least).await;
}

async fn endpoint_task(
    shared: Arc<Shared>,
    index: usize,
    client: reqwest::Client,
    mut rx: mpsc::Receiver<Arc<Outgoing>>,
) {
    let endpoint = &shared.endpoints[index];
    let mut phase = shared.phase();
    let mut draining = false;
    loop {
        let current = *phase.borrow_and_update();
        if current == Phase::Abort {
            break;
        }
        if current >= Phase::Draining && !draining {
            // No more events in; the queued ones still come out of `recv`.
            rx.close();
            draining = true;
        }
        let next = tokio::select! {
            biased;
            changed = phase.changed() => match changed {
                Ok(()) => continue,
                // The sender is gone: everything is stopping.
                Err(_) => break,
            },
            next = rx.recv() => next,
        };
        let Some(event) = next else { break };
        deliver(&shared, endpoint, &client, &event, &mut phase).await;
    }
    // Aborted (or the queue ended): whatever is still queued was never attempted.
    rx.close();
    let mut left = 0;
    while rx.try_recv().is_ok() {
        left += 1;
    }
    if left > 0 {
        endpoint.counters.discarded.fetch_add(left, Relaxed);
        tracing::warn!(
            endpoint = %endpoint.display_url,
            dropped = left,
            "webhooks shut down with events still queued"
        );
    }
}

/// Delivers one event to one endpoint, retrying as configured; counts the outcome.
async fn deliver(
    shared: &Shared,
    endpoint: &Endpoint,
    client: &reqwest::Client,
    event: &Outgoing,
    phase: &mut watch::Receiver<Phase>,
) {
    let id = shared.delivery_id();
    let config = &endpoint.config;
    let mut retry = 0u32;
    loop {
        if *phase.borrow() >= Phase::Abort {
            abandon(endpoint, event, &id);
            return;
        }
        if retry > 0 {
            // Counted as the retry starts: one aborted during its backoff was never made.
            endpoint.counters.retried.fetch_add(1, Relaxed);
        }
        let outcome = tokio::select! {
            biased;
            () = reached(phase, Phase::Abort) => {
                abandon(endpoint, event, &id);
                return;
            }
            outcome = attempt(shared, endpoint, client, event, &id) => outcome,
        };
        let reason = match outcome {
            Attempt::Sent => {
                endpoint.counters.sent.fetch_add(1, Relaxed);
                tracing::trace!(endpoint = %endpoint.display_url, event = &*event.name, id, "webhook delivered");
                return;
            }
            Attempt::Fail(reason) => {
                give_up(shared, endpoint, event, &id, retry + 1, &reason);
                return;
            }
            Attempt::Retry(reason) => reason,
        };
        if retry >= config.max_retries {
            give_up(shared, endpoint, event, &id, retry + 1, &reason);
            return;
        }
        retry += 1;
        let delay = jitter(config.backoff_for(retry));
        tracing::debug!(
            endpoint = %endpoint.display_url,
            event = &*event.name,
            id,
            retry,
            delay_ms = delay.as_millis() as u64,
            reason,
            "webhook delivery failed; retrying"
        );
        tokio::select! {
            biased;
            () = reached(phase, Phase::Abort) => {
                abandon(endpoint, event, &id);
                return;
            }
            () = tokio::time::sleep(delay) => {}
        }
    }
}

/// One signed POST. The envelope is signed afresh for every attempt (new timestamp), with the
/// same id.
async fn attempt(
    shared: &Shared,
    endpoint: &Endpoint,
    client: &reqwest::Client,
    event: &Outgoing,
    id: &str,
) -> Attempt {
    let timestamp = unix_seconds(SystemTime::now());
    let envelope = Envelope {
        id,
        event: &event.name,
        timestamp,
        seq: event.seq,
        source: shared.source.as_ref(),
        data: &event.data,
    };
    let body = match serde_json::to_vec(&envelope) {
        Ok(body) => body,
        Err(e) => return Attempt::Fail(format!("cannot serialize the envelope: {e}")),
    };
    let mut request = client
        .post(endpoint.url.clone())
        .timeout(endpoint.config.timeout)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(TIMESTAMP_HEADER, timestamp)
        .header(EVENT_HEADER, &*event.name)
        .header(DELIVERY_HEADER, id);
    if let Some(secret) = &endpoint.config.secret {
        request = request.header(SIGNATURE_HEADER, sign(secret, &body));
    }
    match request.body(body).send().await {
        Ok(mut response) => {
            let status = response.status();
            // Read a little of the body so the connection can be reused; errors do not matter.
            let mut read = 0;
            while read < MAX_RESPONSE_BODY {
                match response.chunk().await {
                    Ok(Some(chunk)) => read += chunk.len(),
                    Ok(None) | Err(_) => break,
                }
            }
            if status.is_success() {
                Attempt::Sent
            } else if status.is_server_error()
                || status == reqwest::StatusCode::REQUEST_TIMEOUT
                || status == reqwest::StatusCode::TOO_MANY_REQUESTS
            {
                Attempt::Retry(format!("HTTP {status}"))
            } else {
                Attempt::Fail(format!("HTTP {status}"))
            }
        }
        Err(e) if e.is_builder() => Attempt::Fail(error_chain(&e.without_url())),
        Err(e) => Attempt::Retry(error_chain(&e.without_url())),
    }
}

fn give_up(
    shared: &Shared,
    endpoint: &Endpoint,
    event: &Outgoing,
    id: &str,
    attempts: u32,
    reason: &str,
) {
    let failed = endpoint.counters.failed.fetch_add(1, Relaxed) + 1;
    // One warning per endpoint and interval; the others at debug, with the same fields.
    macro_rules! gave_up {
        ($level:expr) => {
            tracing::event!(
                $level,
                endpoint = %endpoint.display_url,
                event = &*event.name,
                id,
                attempts,
                reason,
                failed,
                "webhook delivery failed; giving up on this event"
            )
        };
    }
    if !shared.warn_limited(&endpoint.warn_failed, || gave_up!(tracing::Level::WARN)) {
        gave_up!(tracing::Level::DEBUG);
    }
}

fn abandon(endpoint: &Endpoint, event: &Outgoing, id: &str) {
    endpoint.counters.failed.fetch_add(1, Relaxed);
    tracing::debug!(
        endpoint = %endpoint.display_url,
        event = &*event.name,
        id,
        "webhook delivery abandoned at shutdown"
    );
}

/// A delay drawn uniformly from `[delay/2, delay]`.
fn jitter(delay: Duration) -> Duration {
    let nanos = u64::try_from(delay.as_nanos()).unwrap_or(u64::MAX);
    let half = nanos / 2;
    Duration::from_nanos(half + fastrand::u64(..=nanos - half))
}

/// An error and its sources, `: `-separated.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = e.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_in_the_upper_half() {
        for ms in [0u64, 1, 10, 1000] {
            let d = Duration::from_millis(ms);
            for _ in 0..100 {
                let j = jitter(d);
                assert!(j <= d && j >= d / 2, "{j:?} for {d:?}");
            }
        }
    }
}
