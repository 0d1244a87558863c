//! Reasons, verdict lines and input checks.

use std::path::Path;

use super::Lock;
use crate::paths;
use crate::shown::{one_line, show};

/// The reason for refusing a write of `raw` (resolved: `abs`) because of `lock`.
pub(super) fn denial(raw: &str, abs: &Path, lock: &Lock, root: &Path) -> String {
    if abs == lock.artifact {
        denial_text(&format!("{raw:?}"), lock)
    } else {
        let artifact = display_in(&lock.artifact, root);
        denial_text(&format!("{raw:?} is under {artifact}, which"), lock)
    }
}

/// `reviewer-lockout: <subject> was rejected by reviewer "r" (why); "a" wrote it and may not
/// write it again until another agent revises it`.
pub(super) fn denial_text(subject: &str, lock: &Lock) -> String {
    let why = match &lock.reason {
        Some(r) => format!(" ({})", one_line(r)),
        None => String::new(),
    };
    format!(
        "reviewer-lockout: {subject} was rejected by reviewer {:?}{why}; {:?} wrote it and may \
         not write it again until another agent revises it",
        lock.reviewer, lock.author
    )
}

/// An artifact for a reason: root-relative when inside the root, else absolute.
pub(super) fn display_in(artifact: &Path, root: &Path) -> String {
    match paths::inside(artifact, root) {
        Some(rel) if !rel.as_os_str().is_empty() => show(rel),
        _ => show(artifact),
    }
}

/// The `REJECTED: <artifact> [reason]` lines of a reviewer's message.
pub(super) fn verdict_lines(message: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    const PREFIX: &str = "rejected:";
    message.lines().filter_map(|line| {
        let line = line.trim_start();
        let head = line.get(..PREFIX.len())?;
        if !head.eq_ignore_ascii_case(PREFIX) {
            return None;
        }
        let rest = line[PREFIX.len()..].trim_start();
        let (artifact, reason) = match rest.chars().next() {
            Some(q @ ('`' | '"')) => {
                let body = &rest[1..];
                let end = body.find(q)?;
                (&body[..end], &body[end + 1..])
            }
            _ => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            }
        };
        let reason = reason
            .trim()
            .trim_start_matches(['-', '—', ':', '–'])
            .trim();
        (!artifact.is_empty()).then_some((artifact, (!reason.is_empty()).then_some(reason)))
    })
}

/// At most `max` characters of `s` (an ellipsis marks a cut).
pub(super) fn clip(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}
