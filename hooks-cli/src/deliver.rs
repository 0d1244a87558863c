//! Webhooks in a process that answers one event (`hooks claude`, `hooks fire`): started
//! before the event, flushed for a bounded time after it, and every entry that was not
//! started or whose delivery did not finish reported.

use std::time::Duration;

use hookrail_config::runner::{ConfigHooks, ConfigWebhooks};

use crate::load::Pipeline;

/// The configured webhooks of one run.
#[derive(Debug)]
pub struct Delivery {
    started: Option<ConfigWebhooks>,
    flush: Duration,
    configured: ConfigHooks,
}

/// The longest a one-event process waits for background hooks before exiting: the longest a
/// hook runs by default.
const BACKGROUND_LIMIT: Duration = hookrail_config::runner::DEFAULT_TIMEOUT;

impl Delivery {
    /// Starts the configured webhooks on the pipeline's bus; returns what to report about
    /// entries that could not start.
    pub fn start(pipeline: &Pipeline, flush: Duration) -> (Self, Vec<String>) {
        let mut notes = Vec::new();
        let started = match pipeline
            .configured
            .start_webhooks(pipeline.hooks.bus(), None)
        {
            Ok(started) => {
                for (id, reason) in &started.skipped {
                    notes.push(format!("webhook `{id}` not started: {reason}"));
                }
                Some(started)
            }
            Err(e) => {
                notes.push(format!("webhooks not started: {e}"));
                None
            }
        };
        let configured = pipeline.configured.clone();
        (
            Delivery {
                started,
                flush,
                configured,
            },
            notes,
        )
    }

    /// Waits for the `blocking: false` hooks of `post_tool_use` and `session_end` that run in
    /// the background (bounded by their own timeouts: exiting would kill them), then at most
    /// the flush deadline for the deliveries, and reports what was not delivered.
    pub async fn finish(self) -> Vec<String> {
        let mut notes = Vec::new();
        let left = self.configured.wait_background(BACKGROUND_LIMIT).await;
        if left > 0 {
            notes.push(format!(
                "{left} background hook(s) (blocking: false) still running after {} s were stopped at exit",
                BACKGROUND_LIMIT.as_secs()
            ));
        }
        notes.extend(self.flush().await);
        notes
    }

    /// Waits at most the flush deadline for the deliveries, and reports what was not
    /// delivered.
    async fn flush(self) -> Vec<String> {
        let Some(ConfigWebhooks {
            sender: Some(sender),
            started,
            ..
        }) = self.started
        else {
            return Vec::new();
        };
        let flush = self.flush;
        let missed = sender.missed();
        // `shutdown` blocks the calling thread for up to `flush`.
        let stats = match tokio::task::spawn_blocking(move || sender.shutdown(flush)).await {
            Ok(stats) => stats,
            Err(e) => return vec![format!("webhooks: the flush did not finish: {e}")],
        };
        let lost = stats.failed + stats.dropped + missed;
        if lost == 0 {
            return Vec::new();
        }
        vec![format!(
            "webhooks ({}): {} delivered, {} failed, {} dropped{} within the {} ms flush (raise it with --webhook-flush or ${})",
            started.join(", "),
            stats.sent,
            stats.failed,
            stats.dropped,
            if missed > 0 {
                format!(", {missed} missed")
            } else {
                String::new()
            },
            flush.as_millis(),
            crate::limits::WEBHOOK_FLUSH_ENV,
        )]
    }
}
