//! Combining loaded files into one set, with unique ids.

use super::{LoadedConfig, Problem};
use crate::spec::{HookSpec, WebhookSpec};

impl LoadedConfig {
    /// Combines several loaded files (the project file, `.hooks/`, Claude Code settings, …)
    /// into one set, in the order given.
    ///
    /// `enabled` and `sequential` are true when any part's is; `allow` entries, hooks,
    /// problems and files are concatenated. Ids must be unique across all parts: a later hook
    /// with an id already taken is skipped and reported, unless it is the same hook declared
    /// again (same everything but its location), which runs once, as in Claude Code. A second
    /// `builtin:` section is reported and ignored.
    ///
    /// ```
    /// use hookrail_config::file::{parse_claude, LoadedConfig};
    /// use std::path::Path;
    ///
    /// let json = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./a.sh"}]}]}}"#;
    /// let other = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./b.sh"}]}]}}"#;
    /// let user = parse_claude(json, Path::new("user.json"), None).unwrap();
    /// let project = parse_claude(other, Path::new("project.json"), None).unwrap();
    /// let merged = LoadedConfig::merge([user, project]);
    /// assert_eq!(merged.hooks.len(), 1);
    /// assert_eq!(
    ///     merged.problems[0].to_string(),
    ///     "project.json:1:32: duplicate hook id `Stop[0].hooks[0]` (first declared at user.json:1:32); skipped"
    /// );
    /// ```
    pub fn merge(parts: impl IntoIterator<Item = LoadedConfig>) -> LoadedConfig {
        let mut merged = LoadedConfig::default();
        for part in parts {
            merged.enabled |= part.enabled;
            merged.sequential |= part.sequential;
            merged.allow.extend(part.allow);
            match (&merged.builtin, part.builtin) {
                (None, builtin) => merged.builtin = builtin,
                (Some(first), Some(second)) => merged.problems.push(Problem {
                    message: format!(
                        "`builtin` settings are already given at {}; these are ignored",
                        first.location
                    ),
                    location: second.location,
                    hook_id: None,
                }),
                (Some(_), None) => {}
            }
            merged.problems.extend(part.problems);
            merged.notes.extend(part.notes);
            merged.files.extend(part.files);
            merged.layer_files.extend(part.layer_files);
            for spec in part.hooks {
                merged.insert(spec, true, true);
            }
            for spec in part.dormant {
                merged.insert(spec, false, true);
            }
            let webhooks = part.webhooks.into_iter().map(|w| (w, true));
            for (webhook, active) in
                webhooks.chain(part.dormant_webhooks.into_iter().map(|w| (w, false)))
            {
                merged.insert_webhook(webhook, active);
            }
        }
        merged
    }

    /// Puts `prefix` before every hook id (to keep two Claude Code settings files, whose ids
    /// come from positions, apart).
    ///
    /// ```
    /// let mut config = hookrail_config::file::parse_claude(
    ///     r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./a.sh"}]}]}}"#,
    ///     "settings.json".as_ref(),
    ///     None,
    /// ).unwrap();
    /// config.prefix_ids("user:");
    /// assert_eq!(config.hooks[0].id, "user:Stop[0].hooks[0]");
    /// ```
    pub fn prefix_ids(&mut self, prefix: &str) {
        for spec in self.hooks.iter_mut().chain(&mut self.dormant) {
            spec.id.insert_str(0, prefix);
        }
        for problem in self.problems.iter_mut().chain(&mut self.notes) {
            if let Some(id) = &mut problem.hook_id {
                id.insert_str(0, prefix);
            }
        }
    }

    /// Adds a hook read from one file: a duplicate id is always a problem there.
    pub(super) fn add(&mut self, spec: HookSpec, active: bool) {
        self.insert(spec, active, false);
    }

    fn insert(&mut self, spec: HookSpec, active: bool, same_runs_once: bool) {
        let first = self
            .hooks
            .iter()
            .chain(&self.dormant)
            .find(|h| h.id == spec.id);
        let Some(first) = first else {
            if active {
                self.hooks.push(spec);
            } else {
                self.dormant.push(spec);
            }
            return;
        };
        if same_runs_once && same_hook(first, &spec) {
            tracing::debug!(
                id = %spec.id,
                first = %first.location,
                again = %spec.location,
                "the same hook is declared twice: it runs once"
            );
            return;
        }
        let message = format!(
            "duplicate hook id `{}` (first declared at {}); skipped",
            spec.id, first.location
        );
        self.problems.push(Problem {
            location: spec.location,
            hook_id: Some(spec.id),
            message,
        });
    }
}

fn same_hook(a: &HookSpec, b: &HookSpec) -> bool {
    let mut b = b.clone();
    b.location = a.location.clone();
    *a == b
}

impl LoadedConfig {
    /// Adds a webhook unless its id is taken (then it is reported and skipped).
    fn insert_webhook(&mut self, webhook: WebhookSpec, active: bool) {
        let taken = self
            .webhooks
            .iter()
            .chain(&self.dormant_webhooks)
            .find(|w| w.id == webhook.id);
        if let Some(first) = taken {
            self.problems.push(Problem {
                message: format!(
                    "duplicate webhook id `{}` (first declared at {}); skipped",
                    webhook.id, first.location
                ),
                location: webhook.location.clone(),
                hook_id: Some(webhook.id.clone()),
            });
        } else if active {
            self.webhooks.push(webhook);
        } else {
            self.dormant_webhooks.push(webhook);
        }
    }
}
