//! Starting the `webhooks:` entries of the configuration (feature `webhooks`).

use std::collections::BTreeMap;

use hookrail_core::bus::Bus;
use hookrail_telemetry::signature::Secret;
use hookrail_telemetry::webhooks::{Source, Webhook, Webhooks};

use super::{ConfigHooks, RunnerError};
use crate::spec::{Handler, HttpHandler, WebhookSpec};

/// The webhooks started from a configuration: the sender, and every entry that was not
/// started, with the reason.
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "dropping the sender abandons every delivery; keep it and call shutdown"]
pub struct ConfigWebhooks {
    /// The sender, attached to the bus; `None` when no entry was started.
    pub sender: Option<Webhooks>,
    /// The ids of the entries that were started.
    pub started: Vec<String>,
    /// Entries not started: their id and why (not on the allow-list, disabled, a secret whose
    /// variable is unset).
    pub skipped: Vec<(String, String)>,
}

impl ConfigHooks {
    /// Starts the `webhooks:` entries of the current configuration and attaches them to
    /// `bus` (usually [`Hooks::bus`](hookrail_core::runtime::Hooks::bus) of the value this set
    /// is attached to). `source` names this agent process in every envelope.
    ///
    /// Secure by default, as for HTTP hooks: an entry is started only if the allow-list (the
    /// program's patterns and, unless ignored, the files' `allow:` entries) admits its URL,
    /// and only if its secret expands (an entry is never sent unsigned because
    /// `${WEBHOOK_SECRET}` was unset; the file must say `unsigned: true` to send without a
    /// signature). Every entry left out is logged at `warn` and
    /// listed in [`ConfigWebhooks::skipped`]. Disabled entries (`enabled: false`) and those of
    /// a project that is not switched on are not started either.
    ///
    /// Webhooks are started once: a later [`replace`](ConfigHooks::replace) (a hot reload)
    /// does not change them (it logs a `warn` when the entries changed); start a new set and
    /// shut the old one down for that.
    ///
    /// # Errors
    ///
    /// [`RunnerError::Webhooks`] when the sender cannot start (its thread or HTTP client).
    pub fn start_webhooks(
        &self,
        bus: &Bus,
        source: Option<Source>,
    ) -> Result<ConfigWebhooks, RunnerError> {
        let set = self.shared.set.load();
        let mut started = Vec::new();
        let mut skipped = Vec::new();
        let mut endpoints = Vec::new();
        for spec in &set.config.webhooks {
            match endpoint(spec, &set.gate) {
                Ok(webhook) => {
                    started.push(spec.id.clone());
                    endpoints.push(webhook);
                }
                Err(reason) => {
                    tracing::warn!(
                        webhook = %spec.id,
                        location = %spec.location,
                        "webhook not started: {reason}"
                    );
                    skipped.push((spec.id.clone(), reason));
                }
            }
        }
        if endpoints.is_empty() {
            return Ok(ConfigWebhooks {
                sender: None,
                started,
                skipped,
            });
        }
        let mut builder = Webhooks::builder().endpoints(endpoints);
        if let Some(source) = source {
            builder = builder.source(source);
        }
        let sender = builder.build().map_err(RunnerError::Webhooks)?;
        // A fresh sender with endpoints always attaches; false would mean it is already on
        // this bus, which a new sender cannot be.
        if !sender.attach(bus) {
            tracing::warn!("webhooks not attached to the bus: nothing will be sent");
        }
        Ok(ConfigWebhooks {
            sender: Some(sender),
            started,
            skipped,
        })
    }
}

/// The sender's endpoint for one entry, or why it is not started.
fn endpoint(spec: &WebhookSpec, gate: &crate::trust::Gate) -> Result<Webhook, String> {
    if !spec.enabled {
        return Err("disabled (`enabled: false`)".to_owned());
    }
    let as_http = Handler::Http(HttpHandler {
        url: spec.url.clone(),
        headers: BTreeMap::new(),
    });
    if gate.allow().matching(&as_http).is_none() {
        return Err(format!(
            "its URL is not on the allow-list; add an `allow:` entry for it (declared at {})",
            spec.location
        ));
    }
    let mut webhook = Webhook::new(spec.url.clone()).events(spec.event_names());
    if let Some(template) = &spec.secret {
        let secret = Secret::expand(template).map_err(|e| format!("its `secret`: {e}"))?;
        webhook = webhook.secret(secret);
    }
    if let Some(timeout) = spec.timeout {
        webhook = webhook.timeout(timeout);
    }
    if let Some(retries) = spec.retries {
        webhook = webhook.max_retries(retries);
    }
    if let Some(queue) = spec.queue {
        webhook = webhook.queue_capacity(queue);
    }
    Ok(webhook)
}
