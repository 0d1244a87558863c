//! Starting the `webhooks:` entries of the configuration, and webhooks registered from code
//! (feature `webhooks`).

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
        plugin_root: None,
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

/// A webhook registered from code: its point, URL and sender.
pub(crate) struct RuntimeWebhook {
    point: &'static str,
    url: String,
    sender: Webhooks,
}

impl ConfigHooks {
    /// Registers a webhook at run time (seed 002's `ExtensionManager.registerWebhook(hook,
    /// url, secret)`): from now on every event of `point` on `bus` is POSTed to `url`, signed
    /// with `secret` (HMAC-SHA256) when one is given, by its own `hookrail-telemetry` sender.
    ///
    /// `point` is any accepted event name (ours, Claude Code's or the seeds'). The URL goes
    /// through the same gate as a `webhooks:` entry: the allow-list (the program's patterns
    /// and the files' `allow:` entries) must admit it, or nothing is registered.
    ///
    /// ```
    /// use hookrail_config::runner::ConfigHooks;
    /// use hookrail_core::runtime::Hooks;
    ///
    /// let configured = ConfigHooks::builder(".")
    ///     .allow("https://siem.example.com/*")
    ///     .build(Default::default())
    ///     .unwrap();
    /// let hooks = Hooks::builder().ignore_env().build().unwrap();
    /// configured.register_webhook(hooks.bus(), "PreToolUze", "https://siem.example.com/in", None)
    ///     .unwrap_err(); // an unknown event name (the error says "did you mean")
    /// configured.register_webhook(hooks.bus(), "PreToolUse", "https://siem.example.com/in", None).unwrap();
    /// assert!(configured.register_webhook(hooks.bus(), "stop", "https://elsewhere.example/", None).is_err());
    /// assert_eq!(configured.runtime_webhooks(), [("pre_tool_use", "https://siem.example.com/in".to_owned())]);
    /// let sender = configured.remove_webhook("pre_tool_use", "https://siem.example.com/in").unwrap();
    /// sender.shutdown(std::time::Duration::from_secs(1)); // deliver what is queued
    /// assert!(configured.runtime_webhooks().is_empty());
    /// ```
    ///
    /// # Errors
    ///
    /// [`RunnerError::WebhookPoint`] for an unknown or unsupported event name,
    /// [`RunnerError::WebhookNotAllowed`] when the allow-list does not admit the URL,
    /// [`RunnerError::WebhookRegistered`] when this URL is already registered at this point,
    /// [`RunnerError::Webhooks`] when the sender cannot start.
    pub fn register_webhook(
        &self,
        bus: &Bus,
        point: &str,
        url: &str,
        secret: Option<Secret>,
    ) -> Result<(), RunnerError> {
        let point = crate::events::resolve(point).map_err(|source| RunnerError::WebhookPoint {
            url: url.to_owned(),
            source,
        })?;
        let as_http = Handler::Http(HttpHandler {
            url: url.to_owned(),
            headers: BTreeMap::new(),
            plugin_root: None,
        });
        if self
            .shared
            .set
            .load()
            .gate
            .allow()
            .matching(&as_http)
            .is_none()
        {
            return Err(RunnerError::WebhookNotAllowed {
                point,
                url: url.to_owned(),
            });
        }
        let mut registered = self
            .shared
            .runtime_webhooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if registered.iter().any(|w| w.point == point && w.url == url) {
            return Err(RunnerError::WebhookRegistered {
                point,
                url: url.to_owned(),
            });
        }
        let mut webhook = Webhook::new(url).event(point);
        if let Some(secret) = secret {
            webhook = webhook.secret(secret);
        }
        let sender = Webhooks::new([webhook]).map_err(RunnerError::Webhooks)?;
        if !sender.attach(bus) {
            tracing::warn!(%point, %url, "runtime webhook not attached to the bus: nothing will be sent");
        }
        tracing::info!(%point, %url, "webhook registered");
        registered.push(RuntimeWebhook {
            point,
            url: url.to_owned(),
            sender,
        });
        Ok(())
    }

    /// Removes a webhook registered with [`register_webhook`](Self::register_webhook) (seed
    /// 002's `removeWebhook(hook, url)`): it is no longer listed, and its sender is handed
    /// back. The sender stops taking events when the caller [shuts it
    /// down](Webhooks::shutdown) (delivering what is queued, blocking up to a deadline) or
    /// drops it (abandoning what is queued, with a `warn`). `None` when nothing was registered
    /// for this point (any accepted name) and URL.
    pub fn remove_webhook(&self, point: &str, url: &str) -> Option<Webhooks> {
        let point = crate::events::resolve(point).ok()?;
        let mut registered = self
            .shared
            .runtime_webhooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let i = registered
            .iter()
            .position(|w| w.point == point && w.url == url)?;
        let removed = registered.remove(i);
        tracing::info!(%point, %url, "webhook removed");
        Some(removed.sender)
    }

    /// The webhooks registered from code, as (point, URL), in registration order.
    pub fn runtime_webhooks(&self) -> Vec<(&'static str, String)> {
        self.shared
            .runtime_webhooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|w| (w.point, w.url.clone()))
            .collect()
    }
}
