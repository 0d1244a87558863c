//! Webhook signatures: the HMAC-SHA256 signer and the receiver-side verifier.
//!
//! This module is always built (no cargo feature), so a service that *receives* our webhooks
//! can verify them with nothing but this crate's default features: no HTTP client comes along.
//!
//! # The scheme
//!
//! Every webhook is a JSON envelope POSTed with two headers:
//!
//! ```text
//! X-Signature: sha256=<lowercase hex HMAC-SHA256(secret, body)>
//! X-Timestamp: <unix seconds>
//! ```
//!
//! and a body of the form
//!
//! ```json
//! {"id": "…", "event": "pre_tool_use", "timestamp": 1767225600, "seq": 7,
//!  "source": {"service": "…", "instance": "…"}, "data": { … }}
//! ```
//!
//! The HMAC covers the body only (byte for byte, as received). The timestamp is therefore bound
//! to the signature *through the body*: the envelope carries the same `"timestamp"` as the
//! header. [`Verifier::verify`] checks, in this order:
//!
//! 1. the HMAC, in constant time ([`hmac::Mac::verify_slice`]); nothing of the body is parsed
//!    before it is authenticated;
//! 2. the `X-Timestamp` header is within a tolerance of `now` (either direction, to allow for
//!    clock skew; default [`DEFAULT_TOLERANCE`], five minutes);
//! 3. the header timestamp equals the envelope's `"timestamp"` field, so an attacker who replays
//!    an old body with a fresh `X-Timestamp` header is rejected.
//!
//! The sender signs each delivery *attempt* afresh (a retry gets a new timestamp and a new
//! signature), but keeps the envelope's `"id"`: a receiver deduplicates retries by that id.
//! Replays inside the tolerance window are only caught by such deduplication.
//!
//! Every failure is a typed [`VerifyError`] that says which check failed. The secret never
//! appears in any error, nor in the `Debug` or `Display` of [`Secret`].
//!
//! # What the signature does not cover
//!
//! Only the body is signed. The sender's other headers, `X-Hooks-Event` (the event name) and
//! `X-Hooks-Delivery` (the delivery id), are a convenience for routing and logging and are
//! **not** covered: anyone on the path can change them without breaking the signature. A
//! receiver must read the event name and the delivery id from the verified envelope
//! ([`Verified::event`], [`Verified::id`]), never from those headers: route by
//! `Verified::event` and deduplicate by `Verified::id`.
//!
//! # Example
//!
//! ```
//! use std::time::{Duration, SystemTime, UNIX_EPOCH};
//! use hookrail_telemetry::signature::{sign, Secret, Verifier, VerifyError};
//!
//! let secret = Secret::new("s3cr3t").expect("not empty");
//! let now = SystemTime::now();
//! let ts = now.duration_since(UNIX_EPOCH).unwrap().as_secs();
//! let body = format!(r#"{{"id":"1","event":"stop","timestamp":{ts},"data":{{}}}}"#);
//!
//! // Sender side: the two header values.
//! let signature = sign(&secret, body.as_bytes());
//! assert!(signature.starts_with("sha256="));
//!
//! // Receiver side.
//! let verifier = Verifier::new(secret);
//! let verified = verifier.verify(body.as_bytes(), &signature, &ts.to_string(), now)?;
//! assert_eq!(verified.event(), Some("stop"));
//!
//! // A tampered body fails the HMAC check.
//! let tampered = body.replace("stop", "step");
//! let err = verifier.verify(tampered.as_bytes(), &signature, &ts.to_string(), now);
//! assert!(matches!(err, Err(VerifyError::Mismatch)));
//!
//! // An old delivery fails the timestamp check.
//! let later = now + Duration::from_secs(3600);
//! let err = verifier.verify(body.as_bytes(), &signature, &ts.to_string(), later);
//! assert!(matches!(err, Err(VerifyError::OutsideTolerance { .. })));
//! # Ok::<(), VerifyError>(())
//! ```

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Name of the header carrying the signature: `sha256=<lowercase hex HMAC-SHA256 of the body>`.
pub const SIGNATURE_HEADER: &str = "X-Signature";
/// Name of the header carrying the signing time, in unix seconds.
pub const TIMESTAMP_HEADER: &str = "X-Timestamp";
/// Prefix of the [`SIGNATURE_HEADER`] value.
pub const SIGNATURE_PREFIX: &str = "sha256=";
/// Default tolerance between the `X-Timestamp` header and the receiver's clock: five minutes.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// A webhook signing key.
///
/// Its `Debug` prints `Secret(***)` and its `Display` prints `[redacted]`: the key bytes never
/// reach a log line, a panic message or an error. The bytes are reachable only through
/// [`Secret::expose`], for code that really needs them.
///
/// Never empty ([`Secret::new`] and [`Secret::expand`] refuse an empty key). No `PartialEq`:
/// comparing keys with `==` would not be constant-time. (The key is not zeroized on drop.)
#[derive(Clone)]
pub struct Secret(Box<[u8]>);

impl Secret {
    /// A secret from a literal key (a string or raw bytes), used as is: no `${…}` expansion.
    ///
    /// An empty key is [`SecretError::Empty`]: anyone can compute an HMAC under it, so a
    /// signature made with it proves nothing.
    ///
    /// ```
    /// use hookrail_telemetry::signature::{Secret, SecretError};
    ///
    /// assert!(Secret::new("s3cr3t").is_ok());
    /// assert_eq!(Secret::new("").unwrap_err(), SecretError::Empty);
    /// ```
    pub fn new(key: impl Into<Vec<u8>>) -> Result<Self, SecretError> {
        let key = key.into();
        if key.is_empty() {
            return Err(SecretError::Empty);
        }
        Ok(Self(key.into_boxed_slice()))
    }

    /// A secret from a template in which every `${NAME}` is replaced by the value of the
    /// environment variable `NAME` (`"${WEBHOOK_SECRET}"`, or `"prefix-${PART}"`).
    ///
    /// The rule is the one of hookrail-config's header values (`hookrail_config::http::expand_env`):
    ///
    /// - `${NAME}` is replaced by the variable's value; `NAME` is `[A-Za-z_][A-Za-z0-9_]*`.
    ///   Substituted values are not expanded again.
    /// - An unset variable is [`SecretError::Unset`], naming the variable.
    /// - A `$` not followed by `{` is an ordinary character: `$HOME`, `$$` and a trailing `$`
    ///   stay as written. There is no escape, so a key cannot contain a literal `${`.
    /// - `${` without a closing `}`, and `${…}` around anything other than a variable name
    ///   (`${}`, `${A:-default}`), are [`SecretError::Malformed`], with the byte offset of
    ///   the `$`.
    /// - A template that expands to nothing is [`SecretError::Empty`] (`prefix-${X}` with `X`
    ///   empty is fine: the key is `prefix-`).
    ///
    /// Errors name the variable (or the offset), never a value.
    ///
    /// ```
    /// use hookrail_telemetry::signature::{Secret, SecretError};
    ///
    /// let env = |name: &str| Ok((name == "TOKEN").then(|| "abc".to_owned()));
    /// let key = |t: &str| Secret::expand_with(t, env).map(|s| s.expose().to_vec());
    /// assert_eq!(key("k-${TOKEN}").unwrap(), b"k-abc");
    /// assert_eq!(key("pa$$word $TOKEN").unwrap(), b"pa$$word $TOKEN");
    /// assert_eq!(key("${NOPE}").unwrap_err(), SecretError::Unset { name: "NOPE".into() });
    /// assert_eq!(key("x${A:-b}").unwrap_err(), SecretError::Malformed { offset: 1 });
    /// ```
    pub fn expand(template: &str) -> Result<Self, SecretError> {
        Self::expand_with(template, |name| match std::env::var(name) {
            Ok(value) => Ok(Some(value)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(SecretError::NotUnicode {
                name: name.to_owned(),
            }),
        })
    }

    /// Like [`Secret::expand`], with `lookup` in place of the process environment
    /// (`Ok(None)` = unset). Useful for tests and for secrets stores.
    pub fn expand_with<F>(template: &str, mut lookup: F) -> Result<Self, SecretError>
    where
        F: FnMut(&str) -> Result<Option<String>, SecretError>,
    {
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        let mut offset = 0;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let malformed = || SecretError::Malformed {
                offset: offset + start,
            };
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(malformed)?;
            let name = &after[..end];
            if !is_var_name(name) {
                return Err(malformed());
            }
            let value = lookup(name)?.ok_or_else(|| SecretError::Unset {
                name: name.to_owned(),
            })?;
            out.push_str(&value);
            let consumed = start + 2 + end + 1;
            offset += consumed;
            rest = &rest[consumed..];
        }
        out.push_str(rest);
        Self::new(out)
    }

    /// The key bytes. Keep them out of logs.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC accepts keys of any length: longer ones are hashed, shorter ones padded.
        <HmacSha256 as KeyInit>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Why a [`Secret`] could not be made (an empty key, or a template that does not expand).
/// Never contains a secret value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// `${NAME}` names an environment variable that is not set.
    #[error("secret template: environment variable `{name}` is not set")]
    Unset {
        /// The variable's name.
        name: String,
    },
    /// `${NAME}` names an environment variable whose value is not valid UTF-8.
    #[error("secret template: environment variable `{name}` is not valid UTF-8")]
    NotUnicode {
        /// The variable's name.
        name: String,
    },
    /// A `${` without a closing `}`, or with something other than a variable name inside.
    #[error("secret template: malformed `${{…}}` at byte {offset}")]
    Malformed {
        /// Byte offset of the `$` in the template.
        offset: usize,
    },
    /// The key is empty: given so to [`Secret::new`], or a template that expanded to
    /// nothing. An empty key would let anyone compute the signature.
    #[error("secret: the key is empty")]
    Empty,
}

/// The [`SIGNATURE_HEADER`] value for `body`: `sha256=` and the lowercase hex HMAC-SHA256 of
/// the body under `secret`.
pub fn sign(secret: &Secret, body: &[u8]) -> String {
    let mut mac = secret.mac();
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let mut out = String::with_capacity(SIGNATURE_PREFIX.len() + 2 * digest.len());
    out.push_str(SIGNATURE_PREFIX);
    out.push_str(&hex::encode(digest));
    out
}

/// Checks a [`SIGNATURE_HEADER`] value against `body` in constant time (the HMAC check alone;
/// [`Verifier::verify`] adds the timestamp checks).
pub fn verify_signature(secret: &Secret, body: &[u8], signature: &str) -> Result<(), VerifyError> {
    let hex_digest = signature
        .trim()
        .strip_prefix(SIGNATURE_PREFIX)
        .ok_or(VerifyError::MalformedSignature)?;
    let expected = hex::decode(hex_digest).map_err(|_| VerifyError::MalformedSignature)?;
    let mut mac = secret.mac();
    mac.update(body);
    mac.verify_slice(&expected)
        .map_err(|_| VerifyError::Mismatch)
}

/// Unix seconds of `time` (0 before the epoch).
pub fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Receiver-side verification of signed webhooks: see the [module docs](self) for the checks.
#[derive(Debug, Clone)]
pub struct Verifier {
    secret: Secret,
    tolerance: Duration,
}

impl Verifier {
    /// A verifier for `secret` with the [`DEFAULT_TOLERANCE`].
    pub fn new(secret: Secret) -> Self {
        Self {
            secret,
            tolerance: DEFAULT_TOLERANCE,
        }
    }

    /// Accept `X-Timestamp` values at most `tolerance` away from `now`, in either direction.
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The accepted distance between `X-Timestamp` and `now`.
    pub fn tolerance(&self) -> Duration {
        self.tolerance
    }

    /// Verifies a received webhook: `body` exactly as received, the values of the
    /// [`SIGNATURE_HEADER`] and [`TIMESTAMP_HEADER`] headers, and the receiver's clock.
    ///
    /// On success, returns the parsed envelope.
    pub fn verify(
        &self,
        body: &[u8],
        signature: &str,
        timestamp: &str,
        now: SystemTime,
    ) -> Result<Verified, VerifyError> {
        // 1. Authenticate before parsing anything from the body.
        verify_signature(&self.secret, body, signature)?;

        // 2. Freshness of the header timestamp.
        let header_ts: u64 = timestamp
            .trim()
            .parse()
            .map_err(|_| VerifyError::MalformedTimestamp)?;
        let now_ts = unix_seconds(now);
        let age_secs = i128::from(now_ts) - i128::from(header_ts);
        if age_secs.unsigned_abs() > u128::from(self.tolerance.as_secs()) {
            return Err(VerifyError::OutsideTolerance {
                age_secs: i64::try_from(age_secs).unwrap_or(i64::MAX),
                tolerance: self.tolerance,
            });
        }

        // 3. The header timestamp is the one that was signed, inside the body.
        let envelope: serde_json::Value =
            serde_json::from_slice(body).map_err(|_| VerifyError::MalformedEnvelope)?;
        let body_ts = envelope
            .get("timestamp")
            .and_then(serde_json::Value::as_u64)
            .ok_or(VerifyError::MalformedEnvelope)?;
        if body_ts != header_ts {
            return Err(VerifyError::TimestampMismatch {
                header: header_ts,
                body: body_ts,
            });
        }

        Ok(Verified {
            timestamp: header_ts,
            envelope,
        })
    }
}

/// A webhook that passed [`Verifier::verify`].
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// The signed timestamp, unix seconds.
    pub timestamp: u64,
    /// The whole envelope (`id`, `event`, `timestamp`, `seq`, `source`, `data`).
    pub envelope: serde_json::Value,
}

impl Verified {
    /// The delivery id: the same across retries of one event to one endpoint.
    pub fn id(&self) -> Option<&str> {
        self.envelope.get("id").and_then(serde_json::Value::as_str)
    }

    /// The event (hook point) name.
    pub fn event(&self) -> Option<&str> {
        self.envelope
            .get("event")
            .and_then(serde_json::Value::as_str)
    }

    /// The event's sequence number, if the envelope has one.
    pub fn seq(&self) -> Option<u64> {
        self.envelope.get("seq").and_then(serde_json::Value::as_u64)
    }

    /// The event payload.
    pub fn data(&self) -> Option<&serde_json::Value> {
        self.envelope.get("data")
    }
}

/// Which verification check failed. Never contains the secret (nor the received signature).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The signature header is not `sha256=` followed by hex.
    #[error("webhook signature: malformed `X-Signature` header (expected `sha256=<hex>`)")]
    MalformedSignature,
    /// The HMAC does not match the body: wrong secret, or a modified body.
    #[error("webhook signature: HMAC mismatch (wrong secret or modified body)")]
    Mismatch,
    /// The timestamp header is not unix seconds.
    #[error("webhook signature: malformed `X-Timestamp` header (expected unix seconds)")]
    MalformedTimestamp,
    /// The timestamp header is too far from the receiver's clock (a replay, or clock skew).
    #[error(
        "webhook signature: timestamp is {age_secs} s away from now, outside the tolerance of {} s",
        tolerance.as_secs()
    )]
    OutsideTolerance {
        /// `now - X-Timestamp`, in seconds (negative: from the future).
        age_secs: i64,
        /// The verifier's tolerance.
        tolerance: Duration,
    },
    /// The body is not a JSON object with an unsigned integer `"timestamp"` field.
    #[error("webhook signature: the body is not an envelope with a numeric `timestamp`")]
    MalformedEnvelope,
    /// The timestamp header differs from the signed one in the body: a replayed body with a
    /// fresh header.
    #[error(
        "webhook signature: `X-Timestamp` {header} differs from the signed envelope timestamp {body}"
    )]
    TimestampMismatch {
        /// The `X-Timestamp` header.
        header: u64,
        /// The envelope's `"timestamp"`.
        body: u64,
    },
}
