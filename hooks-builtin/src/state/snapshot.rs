//! Helpers of the policies' `PersistentState` impls: the snapshot header check, JSON
//! writing, the wall-clock rule and exact 128-bit numbers.

// Each helper serves some of the stateful policies; a build without all of them (CI builds
// `--features command-guard` and `--features rate-limit` alone) leaves some unused.
#![cfg_attr(
    not(all(
        feature = "rate-limit",
        feature = "budget",
        feature = "reviewer-lockout"
    )),
    allow(dead_code)
)]

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Dropped, Restored, StateError};

impl Restored {
    /// Record `entries` dropped for `reason` (nothing when `entries` is 0).
    pub(crate) fn drop_entries(&mut self, entries: usize, reason: impl Into<String>) {
        if entries > 0 {
            self.dropped.push(Dropped {
                entries,
                reason: reason.into(),
            });
        }
    }
}

impl StateError {
    /// A [`StateError::Malformed`] of `policy`.
    pub(crate) fn malformed(policy: &'static str, message: impl fmt::Display) -> Self {
        StateError::Malformed {
            policy,
            message: message.to_string(),
        }
    }
}

/// Milliseconds from `saved_at_ms` to `now_ms`: zero when the clock went backwards, so that
/// a clock set back never refills anything.
pub(crate) fn elapsed_ms(saved_at_ms: u64, now_ms: u64) -> u64 {
    now_ms.saturating_sub(saved_at_ms)
}

/// `snapshot` as JSON. Serializing plain structs of strings and numbers cannot fail; if it
/// ever did, the result is `null`, which every restore refuses loudly, and the error is
/// logged here.
pub(crate) fn to_json(policy: &'static str, snapshot: &impl serde::Serialize) -> Value {
    serde_json::to_value(snapshot).unwrap_or_else(|e| {
        tracing::error!(
            target: "hookrail_builtin::state",
            policy,
            error = %e,
            "the policy's state could not be written as JSON"
        );
        Value::Null
    })
}

/// Check `saved`'s `format` and `policy`, then parse it as `T`.
///
/// The header is read first, so a snapshot of a newer format is reported as such even when
/// its body would not parse as this format's.
pub(crate) fn parse<T: DeserializeOwned>(
    policy: &'static str,
    supported: u64,
    saved: &Value,
) -> Result<T, StateError> {
    let Some(object) = saved.as_object() else {
        return Err(StateError::malformed(policy, "not a JSON object"));
    };
    let format = match object.get("format") {
        Some(Value::Number(n)) => n
            .as_u64()
            .ok_or_else(|| StateError::malformed(policy, format!("`format` is {n}")))?,
        Some(other) => {
            return Err(StateError::malformed(
                policy,
                format!("`format` is {other}, not a number"),
            ));
        }
        None => return Err(StateError::malformed(policy, "no `format`")),
    };
    if format > supported {
        return Err(StateError::UnsupportedFormat {
            policy,
            found: format,
            supported,
        });
    }
    if format == 0 {
        return Err(StateError::malformed(policy, "`format` is 0"));
    }
    match object.get("policy").and_then(Value::as_str) {
        Some(name) if name == policy => {}
        Some(name) => {
            return Err(StateError::malformed(
                policy,
                format!("it is the state of policy `{name}`"),
            ));
        }
        None => return Err(StateError::malformed(policy, "no `policy` name")),
    }
    T::deserialize(saved).map_err(|e| StateError::malformed(policy, e))
}

/// A `u128` as a decimal string: exact, where a JSON number would go through `f64` in many
/// readers (and serde_json's `Value` holds at most 64 bits).
pub(crate) mod u128_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(crate) fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        // `parse` alone would take a leading `+`.
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(D::Error::custom(format!(
                "`{text}` is not a non-negative integer"
            )));
        }
        text.parse().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Body {
        format: u64,
        policy: String,
        #[serde(with = "u128_text")]
        n: u128,
    }

    #[test]
    fn the_header_is_checked_before_the_body() {
        let ok =
            json!({"format": 1, "policy": "p", "n": "340282366920938463463374607431768211455"});
        assert_eq!(parse::<Body>("p", 1, &ok).unwrap().n, u128::MAX);

        let newer = json!({"format": 2, "policy": "p", "whatever": true});
        let err = parse::<Body>("p", 1, &newer).unwrap_err();
        assert!(
            matches!(
                err,
                StateError::UnsupportedFormat {
                    policy: "p",
                    found: 2,
                    supported: 1
                }
            ),
            "{err}"
        );

        for (bad, says) in [
            (json!([]), "not a JSON object"),
            (json!({"policy": "p"}), "no `format`"),
            (json!({"format": "1", "policy": "p"}), "not a number"),
            (json!({"format": -1, "policy": "p"}), "`format` is -1"),
            (json!({"format": 0, "policy": "p"}), "`format` is 0"),
            (json!({"format": 1, "policy": "q", "n": "1"}), "policy `q`"),
            (json!({"format": 1, "n": "1"}), "no `policy`"),
            (
                json!({"format": 1, "policy": "p", "n": "+1"}),
                "not a non-negative",
            ),
            (
                json!({"format": 1, "policy": "p", "n": "-1"}),
                "not a non-negative",
            ),
            (json!({"format": 1, "policy": "p", "n": 1}), "invalid type"),
            (
                json!({"format": 1, "policy": "p", "n": "1", "extra": 0}),
                "unknown field",
            ),
        ] {
            let err = parse::<Body>("p", 1, &bad).unwrap_err();
            let message = match &err {
                StateError::Malformed {
                    policy: "p",
                    message,
                } => message,
                other => panic!("{bad}: expected Malformed, got {other:?}"),
            };
            assert!(message.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn a_clock_that_went_backwards_counts_as_no_time() {
        assert_eq!(elapsed_ms(1_000, 4_000), 3_000);
        assert_eq!(elapsed_ms(4_000, 1_000), 0);
    }
}
