//! Validation shared by both schemas: timeouts, command lines, environments, URLs, headers.

use std::collections::BTreeMap;
use std::time::Duration;

use super::fields::{self, Issues};
use super::node::{Node, Value};

/// The longest timeout a hook may ask for.
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// `timeout_ms`: a whole number of milliseconds, 1 to one hour.
pub(crate) fn timeout_ms(node: &Node, issues: &mut Issues) -> Option<Duration> {
    let max = MAX_TIMEOUT.as_millis() as i128;
    match &node.value {
        Value::Int(ms) if *ms <= 0 => {
            issues.push(
                node.pos,
                format!("`timeout_ms` must be positive, found {ms}"),
            );
            None
        }
        Value::Int(ms) if *ms > max => {
            issues.push(
                node.pos,
                format!("`timeout_ms` {ms} is longer than one hour ({max} ms)"),
            );
            None
        }
        _ => fields::integer(node, "timeout_ms", 1, max, issues)
            .and_then(|ms| u64::try_from(ms).ok())
            .map(Duration::from_millis),
    }
}

/// `timeout`: seconds, as Claude Code writes it (fractions allowed), 1 ms to one hour.
pub(crate) fn timeout_secs(node: &Node, issues: &mut Issues) -> Option<Duration> {
    let secs = fields::number(node, "timeout", issues)?;
    if !secs.is_finite() || secs <= 0.0 {
        issues.push(
            node.pos,
            format!("`timeout` (seconds) must be positive, found {secs}"),
        );
        return None;
    }
    if secs > MAX_TIMEOUT.as_secs_f64() {
        issues.push(
            node.pos,
            format!("`timeout` {secs} s is longer than one hour (3600 s)"),
        );
        return None;
    }
    if secs < 0.001 {
        issues.push(node.pos, format!("`timeout` {secs} s is shorter than 1 ms"));
        return None;
    }
    Some(Duration::from_secs_f64(secs))
}

/// A shell command line: not blank, no NUL.
pub(crate) fn command(node: &Node, field: &str, issues: &mut Issues) -> Option<String> {
    let command = fields::non_empty(node, field, issues)?;
    if command.contains('\0') {
        issues.push(node.pos, format!("`{field}` contains a NUL character"));
        return None;
    }
    Some(command.to_owned())
}

/// Exec-form arguments: a program that is not blank, then its arguments; no NUL anywhere.
pub(crate) fn args(node: &Node, field: &str, issues: &mut Issues) -> Option<Vec<String>> {
    let args = fields::strings(node, field, false, issues)?;
    match args.first() {
        None => {
            issues.push(
                node.pos,
                format!("`{field}` is empty: name the program to run"),
            );
            None
        }
        Some(program) if program.trim().is_empty() => {
            issues.push(
                node.pos,
                format!("`{field}`: the program (first item) is empty"),
            );
            None
        }
        Some(_) if args.iter().any(|a| a.contains('\0')) => {
            issues.push(node.pos, format!("`{field}` contains a NUL character"));
            None
        }
        Some(_) => Some(args),
    }
}

/// Environment variables: names without `=` or NUL, values without NUL.
pub(crate) fn env(node: &Node, issues: &mut Issues) -> Option<BTreeMap<String, String>> {
    let env = fields::string_map(node, "env", true, issues)?;
    let bad: Vec<&String> = env
        .iter()
        .filter(|(k, v)| k.is_empty() || k.contains(['=', '\0']) || v.contains('\0'))
        .map(|(k, _)| k)
        .collect();
    if let Some(name) = bad.first() {
        issues.push(
            node.pos,
            format!("`env`: invalid variable `{name}` (empty, or `=` or NUL in it)"),
        );
        return None;
    }
    Some(env)
}

/// An `http://` or `https://` URL with a host.
pub(crate) fn url(node: &Node, issues: &mut Issues) -> Option<String> {
    let url = fields::non_empty(node, "url", issues)?.trim();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest)
            if !rest.is_empty() && !rest.starts_with('/') && !url.contains(char::is_whitespace) =>
        {
            Some(url.to_owned())
        }
        Some(_) => {
            issues.push(node.pos, format!("`url` \"{url}\" has no host"));
            None
        }
        None => {
            issues.push(
                node.pos,
                format!("`url` \"{url}\" must start with http:// or https://"),
            );
            None
        }
    }
}

/// Request headers: token names, values without line breaks.
pub(crate) fn headers(node: &Node, issues: &mut Issues) -> Option<BTreeMap<String, String>> {
    let headers = fields::string_map(node, "headers", true, issues)?;
    let is_token = |name: &str| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    for (name, value) in &headers {
        if !is_token(name) {
            issues.push(node.pos, format!("`headers`: invalid header name `{name}`"));
            return None;
        }
        if value.contains(['\r', '\n', '\0']) {
            issues.push(
                node.pos,
                format!("`headers`: the value of `{name}` contains a line break or NUL"),
            );
            return None;
        }
    }
    Some(headers)
}

/// The `${VAR}` references in a string.
pub(crate) fn env_refs(value: &str) -> Vec<&str> {
    let mut refs = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                refs.push(&after[..end]);
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    refs
}
