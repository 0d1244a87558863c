//! Whether what is configured will run: the standing `hooks list`, `hooks validate` and
//! `hooks claude` report, so that a setup that protects nothing says so.
//!
//! | standing | when |
//! |---|---|
//! | `active` | it runs |
//! | `off (enabled is false)` | the entry says `enabled: false` |
//! | `off (no enabled: true)` | its project file does not switch config hooks on |
//! | `denies (not approved)` | the gate refuses it (not allow-listed, not approved, or changed since its approval) and it fails closed: a guard by default, or `on_unapproved: deny` |
//! | `skipped (not approved)` | the gate refuses it and the agent goes on without it (`on_unapproved: skip`, `blocking: false`, or a point that cannot block) |
//! | `not started (URL not allowed)` | a webhook whose URL is not on the allow-list |
//! | `not started (VAR unset)` | a webhook whose `secret` names an unset variable |
//!
//! The gate is the runner's ([`hookrail_config::trust::Gate`]), used read-only: the same
//! allow-list entries and approvals decide here as when the hooks run.

use std::collections::BTreeMap;
use std::path::Path;

use hookrail_config::file::LoadedConfig;
use hookrail_config::spec::{Handler, HookSpec, HttpHandler, OnUnapproved, WebhookSpec};
use hookrail_config::trust::{Admission, AllowList, Gate, TrustStore};
use hookrail_telemetry::signature::{Secret, SecretError};
use serde::Serialize;

/// Whether one configured hook or webhook will run, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// The short label (see the module docs).
    pub status: String,
    /// Whether it runs.
    pub active: bool,
    /// What admitted it, or the full reason it does not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Standing {
    fn active(detail: Option<String>) -> Self {
        Standing {
            status: "active".to_owned(),
            active: true,
            detail,
        }
    }

    fn inactive(status: impl Into<String>, detail: impl Into<String>) -> Self {
        Standing {
            status: status.into(),
            active: false,
            detail: Some(detail.into()),
        }
    }
}

const NOT_SWITCHED_ON: &str = "off (no enabled: true)";
const NOT_SWITCHED_ON_DETAIL: &str =
    "its project file does not say `enabled: true`, so none of its hooks or webhooks run";

/// The gate the runner would use for `config`: its `allow:` entries and the approvals.
pub fn gate(config: &LoadedConfig, store: Option<TrustStore>) -> Gate {
    let (allow, errors) = AllowList::from_entries(&config.allow);
    for e in errors {
        tracing::warn!("{e}");
    }
    Gate::new(allow, store)
}

/// The standing of a hook; `switched_on`: whether its project is (`enabled: true`).
pub fn hook(spec: &HookSpec, switched_on: bool, gate: &Gate, project: &Path) -> Standing {
    if !spec.enabled {
        return Standing::inactive("off (enabled is false)", "the entry says `enabled: false`");
    }
    if !switched_on {
        return Standing::inactive(NOT_SWITCHED_ON, NOT_SWITCHED_ON_DETAIL);
    }
    match gate.check(spec, project) {
        Admission::Allowed { by } => Standing::active(Some(format!("admitted by {by}"))),
        Admission::Skipped { reason } if fails_closed(spec) => Standing::inactive(
            "denies (not approved)",
            format!(
                "{reason}; until a person approves it, every call it matches is denied (`on_unapproved: skip` goes on without it)"
            ),
        ),
        Admission::Skipped { reason } => Standing::inactive("skipped (not approved)", reason),
    }
}

/// Whether the runner fails closed when the gate refuses `spec` (its `on_unapproved`, by
/// default `deny` at guard points; a `blocking: false` hook never decides).
fn fails_closed(spec: &HookSpec) -> bool {
    let guard = hookrail_config::events::kind_of(spec.point) == Some(hookrail_core::KindId::Guard);
    let choice = spec.on_unapproved.unwrap_or(if guard {
        OnUnapproved::Deny
    } else {
        OnUnapproved::Skip
    });
    spec.blocking && choice == OnUnapproved::Deny
}

/// The standing of a webhook in `hooks claude` and `hooks fire` (which start it as
/// [`ConfigHooks::start_webhooks`](hookrail_config::runner::ConfigHooks::start_webhooks) does).
pub fn webhook(spec: &WebhookSpec, switched_on: bool, allow: &AllowList) -> Standing {
    if !spec.enabled {
        return Standing::inactive("off (enabled is false)", "the entry says `enabled: false`");
    }
    if !switched_on {
        return Standing::inactive(NOT_SWITCHED_ON, NOT_SWITCHED_ON_DETAIL);
    }
    let as_http = Handler::Http(HttpHandler {
        url: spec.url.clone(),
        headers: BTreeMap::new(),
        plugin_root: None,
    });
    if allow.matching(&as_http).is_none() {
        return Standing::inactive(
            "not started (URL not allowed)",
            format!(
                "its URL `{}` is not on the allow-list; add an `allow:` entry for it",
                spec.url
            ),
        );
    }
    if let Some(template) = &spec.secret
        && let Err(e) = Secret::expand(template)
    {
        let status = match &e {
            SecretError::Unset { name } => format!("not started ({name} unset)"),
            _ => "not started (bad secret)".to_owned(),
        };
        return Standing::inactive(status, format!("its `secret`: {e}"));
    }
    Standing::active(None)
}

/// What to say about `names` (non-empty) in a process that answers one event.
pub fn stateful_note(names: &[&str]) -> String {
    format!(
        "builtin {}: state (counts, spend, locks, breakers) lasts one event in `hooks claude`, a process per event, so {} never trigger there; start `hooks serve` for the project (`hooks claude` then forwards to it)",
        names.join(", "),
        if names.len() == 1 {
            "it can"
        } else {
            "they can"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stateful_note_names_the_policies_and_says_what_it_means() {
        let note = stateful_note(&["budget", "rate_limit"]);
        assert!(note.contains("budget, rate_limit"), "{note}");
        assert!(note.contains("lasts one event"), "{note}");
    }
}
