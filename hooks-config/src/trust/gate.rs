//! The gate: the one check made before a handler runs.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::path::Path;

use super::allow::{Found, command_text};
use super::{AllowList, Fingerprint, TrustStore, fingerprint};
use crate::spec::{Handler, HookSpec};

/// Decides, for each configured hook, whether its handler may run: the one check the runner
/// makes before running a command or calling a URL (seed 004's single chokepoint), so the
/// allow-list and the approvals are applied the same way by every caller.
#[derive(Debug, Clone)]
pub struct Gate {
    allow: AllowList,
    store: Option<TrustStore>,
}

/// The gate's answer for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// The handler may run.
    Allowed {
        /// What admitted it.
        by: AllowedBy,
    },
    /// The handler must not run: report `reason` (a `hook_command_skipped` event).
    Skipped {
        /// For people: what was refused, why (not listed, not approved, changed since its
        /// approval, unreadable script…), and the command or entry that would allow it.
        reason: String,
    },
}

impl Admission {
    /// Whether the handler may run.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Admission::Allowed { .. })
    }
}

/// What admitted a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedBy {
    /// An allow entry, as written.
    Pattern(String),
    /// An approval in the approvals file.
    Approval {
        /// The approved [`Fingerprint::hash`].
        hash: String,
    },
}

impl fmt::Display for AllowedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowedBy::Pattern(pattern) => write!(f, "allow entry `{pattern}`"),
            AllowedBy::Approval { hash } => write!(f, "approval {}", short(hash)),
        }
    }
}

impl Gate {
    /// A gate over an allow-list and, when there is one, the approvals file. Without a store,
    /// only the allow-list admits.
    pub fn new(allow: AllowList, store: Option<TrustStore>) -> Self {
        Gate { allow, store }
    }

    /// The allow-list it checks first.
    pub fn allow(&self) -> &AllowList {
        &self.allow
    }

    /// Whether `spec`'s handler may run in the project `base_dir` (see [`fingerprint`]).
    ///
    /// The allow-list is tried first (no file is read); then the approvals, which read and
    /// hash the scripts on every call, so an edited script is refused from the next call on.
    /// Anything that cannot be checked is skipped, with the reason.
    pub fn check(&self, spec: &HookSpec, base_dir: &Path) -> Admission {
        let handler = &spec.handler;
        let what = match handler {
            Handler::Command(c) => format!("command `{}`", abbreviate(&command_text(c))),
            Handler::Http(h) => format!("HTTP hook `{}`", abbreviate(&h.url)),
        };
        let trust = format!("`hooks trust {}`", spec.location.file.display());
        let (refusal, allow_hint) = match self.allow.find(handler) {
            Found::Admitted(pattern) => {
                return Admission::Allowed {
                    by: AllowedBy::Pattern(pattern.to_owned()),
                };
            }
            Found::NeedsExact(pattern) => {
                let names = match handler {
                    Handler::Http(h) => h
                        .headers
                        .iter()
                        .filter(|(_, v)| v.contains('$'))
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    Handler::Command(_) => String::new(),
                };
                (
                    format!(
                        "{what} matches allow entry `{pattern}`, but its headers ({names}) expand environment variables, which only an exact URL entry or an approval admits"
                    ),
                    "add its exact URL as an `allow:` entry",
                )
            }
            Found::Nothing => (
                format!("{what} is not on the allow-list"),
                "add an `allow:` entry",
            ),
        };
        let skipped = |reason: String| Admission::Skipped { reason };
        let Some(store) = &self.store else {
            return skipped(format!(
                "{refusal}, and no approvals file is available (set HOOKS_TRUST_FILE or HOME); {allow_hint}"
            ));
        };
        let fp = match fingerprint(handler, base_dir) {
            Ok(fp) => fp,
            Err(e) => {
                return skipped(format!(
                    "{refusal}, and its approval cannot be checked: {e}; {allow_hint}"
                ));
            }
        };
        if store.is_approved(&fp) {
            return Admission::Allowed {
                by: AllowedBy::Approval { hash: fp.hash },
            };
        }
        let identity = identity(&fp);
        if let Some(before) = store.without_unhashed(&fp) {
            return skipped(format!(
                "{refusal}; it was approved at {}, but that approval does not accept the parts of it whose files cannot be determined ({identity}); review them and approve it with `hooks trust --approve --accept-unhashed {}`",
                before.approved_at,
                spec.location.file.display(),
            ));
        }
        match store.previous(&fp) {
            Some(before) => skipped(format!(
                "{refusal}; it was approved at {}, but {} changed since ({identity}); review it and approve it again with {trust}",
                before.approved_at,
                match fp.scripts.len() {
                    0 => "what it runs has",
                    1 => "its script has",
                    _ => "one of its scripts has",
                },
            )),
            None if !fp.unhashed.is_empty() => skipped(format!(
                "{refusal} and not approved ({identity}); what its unhashed parts load cannot be determined, so an approval would not cover it: review them and approve it with `hooks trust --approve --accept-unhashed {}`, or {allow_hint}",
                spec.location.file.display()
            )),
            None => skipped(format!(
                "{refusal} and not approved ({identity}); approve it with {trust} or {allow_hint}"
            )),
        }
    }
}

/// `script /p/x.sh, sha256 0123456789ab…`
fn identity(fp: &Fingerprint) -> String {
    let mut text = String::new();
    match fp.scripts.as_slice() {
        [] => {}
        [one] => {
            let _ = write!(text, "script {}, ", one.display());
        }
        many => {
            let list: Vec<_> = many.iter().map(|p| p.display().to_string()).collect();
            let _ = write!(text, "scripts {}, ", list.join(" "));
        }
    }
    let _ = write!(text, "sha256 {}", short(&fp.hash));
    for part in &fp.unhashed {
        let _ = write!(text, "; unhashed: {part}");
    }
    text
}

fn short(hash: &str) -> String {
    match hash.get(..12) {
        Some(prefix) if hash.len() > 12 => format!("{prefix}…"),
        _ => hash.to_owned(),
    }
}

/// Long or multi-line handler texts, shortened for one-line reasons.
fn abbreviate(text: &str) -> Cow<'_, str> {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(120) {
        Some((i, _)) => Cow::Owned(format!("{}…", &line[..i])),
        None if line.len() < text.len() => Cow::Owned(format!("{line}…")),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_keep_one_line() {
        assert_eq!(abbreviate("./a.sh"), "./a.sh");
        assert_eq!(abbreviate("a\nb"), "a…");
        let long = "x".repeat(200);
        assert_eq!(abbreviate(&long).chars().count(), 121);
    }
}
