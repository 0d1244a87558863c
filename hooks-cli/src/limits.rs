//! The limits of `hooks claude` and `hooks fire`: how much payload they read, for how long,
//! and how long they wait for webhook deliveries before exiting.
//!
//! | option | variable | default |
//! |---|---|---|
//! | `--max-payload SIZE` (`16M`, `512K`, bytes) | `HOOKS_MAX_PAYLOAD` | 16 MiB |
//! | `--payload-timeout DURATION` (`10s`, `500ms`) | `HOOKS_PAYLOAD_TIMEOUT` | 10 s |
//! | `--webhook-flush DURATION` | `HOOKS_WEBHOOK_FLUSH` | 2 s |
//!
//! The option wins over the variable. A variable that does not parse is an error (it names
//! the variable), not a silent default.

use std::time::Duration;

use clap::Args;
use hookrail_config::payload::Limits;

use crate::CliError;

/// The variable for `--max-payload`.
pub const MAX_PAYLOAD_ENV: &str = "HOOKS_MAX_PAYLOAD";
/// The variable for `--payload-timeout`.
pub const PAYLOAD_TIMEOUT_ENV: &str = "HOOKS_PAYLOAD_TIMEOUT";
/// The variable for `--webhook-flush`.
pub const WEBHOOK_FLUSH_ENV: &str = "HOOKS_WEBHOOK_FLUSH";
/// How long webhook deliveries may take after the event, by default.
pub const DEFAULT_WEBHOOK_FLUSH: Duration = Duration::from_secs(2);

/// Options bounding one run.
#[derive(Debug, Clone, Default, Args)]
pub struct LimitArgs {
    /// The largest payload read, in bytes (`16M`, `512K`); one byte more is refused.
    /// Default: $HOOKS_MAX_PAYLOAD, else 16M.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_payload: Option<usize>,
    /// How long reading the payload may take (`10s`, `500ms`); a sender that keeps the
    /// stream open longer is refused. Default: $HOOKS_PAYLOAD_TIMEOUT, else 10s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub payload_timeout: Option<Duration>,
    /// How long configured webhooks may keep delivering after the event before the command
    /// exits (undelivered events are reported). Default: $HOOKS_WEBHOOK_FLUSH, else 2s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub webhook_flush: Option<Duration>,
}

impl LimitArgs {
    /// The payload limits.
    ///
    /// # Errors
    ///
    /// [`CliError::Input`] when a variable does not parse.
    pub fn payload(&self) -> Result<Limits, CliError> {
        let defaults = Limits::default();
        Ok(Limits {
            max_bytes: pick(self.max_payload, MAX_PAYLOAD_ENV, parse_size)?
                .unwrap_or(defaults.max_bytes),
            timeout: pick(self.payload_timeout, PAYLOAD_TIMEOUT_ENV, parse_duration)?
                .unwrap_or(defaults.timeout),
        })
    }

    /// How long webhooks may deliver before exit.
    ///
    /// # Errors
    ///
    /// [`CliError::Input`] when the variable does not parse.
    pub fn webhook_flush(&self) -> Result<Duration, CliError> {
        Ok(pick(self.webhook_flush, WEBHOOK_FLUSH_ENV, parse_duration)?
            .unwrap_or(DEFAULT_WEBHOOK_FLUSH))
    }
}

fn pick<T>(
    given: Option<T>,
    variable: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Option<T>, CliError> {
    if given.is_some() {
        return Ok(given);
    }
    match std::env::var(variable) {
        Ok(text) => parse(&text)
            .map(Some)
            .map_err(|e| CliError::Input(format!("${variable}: {e}"))),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(CliError::Input(format!("${variable}: not UTF-8")))
        }
    }
}

/// `1048576`, `512K`, `16M`, `1G` (binary multiples).
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size (bytes, or with K, M or G)"))?;
    let factor: usize = match unit.trim() {
        "" | "B" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        other => return Err(format!("`{other}` is not a size unit (K, M or G)")),
    };
    let bytes = n
        .checked_mul(factor)
        .ok_or_else(|| format!("`{text}` is too large"))?;
    if bytes == 0 {
        return Err("a size of 0 would refuse every payload".to_owned());
    }
    Ok(bytes)
}

/// `10s`, `500ms`, `2m`; a bare number is seconds.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (`10s`, `500ms`)"))?;
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => Ok(Duration::from_secs(n.saturating_mul(60))),
        other => Err(format!("`{other}` is not a duration unit (ms, s or m)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("soon").is_err());
    }
}
