//! [`PersistentState`] for [`RateLimit`]: the buckets that are not full, saved per limit.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Bucket, MIN_SWEEP};
use super::{CallKind, KeyPart, MAX_WINDOW_MS, POLICY, RateLimit, Rule, bucket_key};
use crate::state::snapshot::{elapsed_ms, parse, to_json, u128_text};
use crate::state::{PersistentState, Restored, StateError};

/// The snapshot format this build writes and the newest it reads.
const FORMAT: u64 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    format: u64,
    policy: String,
    saved_at_ms: u64,
    limits: Vec<SavedLimit>,
}

/// The point a saved limit applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    ToolCalls,
    ModelCalls,
}

/// A limit, by what it is rather than where it is in the list, and its buckets.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedLimit {
    kind: Kind,
    calls: u32,
    window_ms: u64,
    burst: u32,
    key: Vec<KeyPart>,
    tools: Vec<String>,
    buckets: Vec<SavedBucket>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedBucket {
    key: Vec<Option<String>>,
    #[serde(with = "u128_text")]
    level: u128,
}

impl SavedLimit {
    fn of(kind: CallKind, rule: &Rule) -> Self {
        SavedLimit {
            kind: match kind {
                CallKind::Tool => Kind::ToolCalls,
                CallKind::Model => Kind::ModelCalls,
            },
            calls: rule.calls,
            window_ms: rule.window_ms,
            burst: rule.burst,
            key: rule.key.clone(),
            tools: rule.tools.clone(),
            buckets: Vec::new(),
        }
    }

    /// Whether `rule` counts the same calls in the same units: the same numbers, the same
    /// key parts and the same tools, in any order (the order of a list changes no bucket).
    fn is(&self, kind: CallKind, rule: &Rule) -> bool {
        let same_kind = matches!(
            (self.kind, kind),
            (Kind::ToolCalls, CallKind::Tool) | (Kind::ModelCalls, CallKind::Model)
        );
        let same_set = |a: &[String], b: &[String]| {
            a.len() == b.len() && a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x))
        };
        same_kind
            && self.calls == rule.calls
            && self.window_ms == rule.window_ms
            && self.burst == rule.burst
            && self.key.len() == rule.key.len()
            && self.key.iter().all(|p| rule.key.contains(p))
            && same_set(&self.tools, &rule.tools)
    }

    /// `tool_calls limit of 5 calls per 60000 ms (burst 5, key [agent], tools [Bash])`.
    fn describe(&self) -> String {
        let kind = match self.kind {
            Kind::ToolCalls => "tool_calls",
            Kind::ModelCalls => "model_calls",
        };
        let key: Vec<&str> = self.key.iter().map(|p| p.as_str()).collect();
        let tools = if self.tools.is_empty() {
            String::new()
        } else {
            format!(", tools [{}]", self.tools.join(", "))
        };
        format!(
            "{kind} limit of {} calls per {} ms (burst {}, key [{}]{tools})",
            self.calls,
            self.window_ms,
            self.burst,
            key.join(", ")
        )
    }

    /// Refuse what the policy could never have saved, so that a damaged file is an error
    /// instead of a silently different limit.
    fn check(&self) -> Result<(), String> {
        let what = self.describe();
        if self.calls == 0 || self.burst == 0 {
            return Err(format!("{what}: zero calls or burst"));
        }
        if self.window_ms == 0 || self.window_ms > MAX_WINDOW_MS {
            return Err(format!("{what}: window out of range"));
        }
        for (i, part) in self.key.iter().enumerate() {
            if self.key[..i].contains(part) {
                return Err(format!("{what}: key part `{}` twice", part.as_str()));
            }
        }
        let capacity = u128::from(self.burst) * u128::from(self.window_ms) * 1_000_000;
        for bucket in &self.buckets {
            if bucket.key.len() != self.key.len() {
                return Err(format!(
                    "{what}: a bucket key has {} values for {} key parts",
                    bucket.key.len(),
                    self.key.len()
                ));
            }
            if bucket.level > capacity {
                return Err(format!(
                    "{what}: a bucket level {} is above the capacity {capacity}",
                    bucket.level
                ));
            }
        }
        Ok(())
    }
}

/// The rule index and key values of a bucket key made by [`bucket_key`].
fn decode_key(key: &str) -> Option<(usize, Vec<Option<String>>)> {
    let (idx, mut rest) = key.split_at(key.find('|').unwrap_or(key.len()));
    let idx = idx.parse().ok()?;
    let mut values = Vec::new();
    while !rest.is_empty() {
        rest = rest.strip_prefix('|')?;
        if let Some(after) = rest.strip_prefix('-') {
            values.push(None);
            rest = after;
            continue;
        }
        let (len, after) = rest.split_once(':')?;
        let len: usize = len.parse().ok()?;
        values.push(Some(after.get(..len)?.to_owned()));
        rest = &after[len..];
    }
    Some((idx, values))
}

impl RateLimit {
    /// Every rule with its global index (tool rules first, as in bucket keys) and kind.
    fn all_rules(&self) -> impl Iterator<Item = (usize, CallKind, &Rule)> {
        let tools = self.inner.tool_rules.iter().map(|r| (CallKind::Tool, r));
        let models = self.inner.model_rules.iter().map(|r| (CallKind::Model, r));
        tools
            .chain(models)
            .enumerate()
            .map(|(i, (kind, r))| (i, kind, r))
    }
}

impl PersistentState for RateLimit {
    fn state_name(&self) -> &'static str {
        POLICY
    }

    fn state_revision(&self) -> u64 {
        self.inner.revision.load(Ordering::Relaxed)
    }

    /// The buckets that are not full, with their levels now; a full bucket is the same as
    /// none. The snapshot (format 1) looks like this:
    ///
    /// ```json
    /// {"format": 1, "policy": "rate_limit", "saved_at_ms": 1767225600000,
    ///  "limits": [{"kind": "tool_calls", "calls": 5, "window_ms": 60000, "burst": 5,
    ///              "key": ["agent"], "tools": ["Bash"],
    ///              "buckets": [{"key": ["coder"], "level": "120000000000"}]}]}
    /// ```
    ///
    /// A bucket's `level` is in the limit's units (one call is `window_ms` × 10⁶ units), as a
    /// decimal string because it can exceed 64 bits; `null` in a bucket's `key` is a missing
    /// value (no tenant). The level is the one at `saved_at_ms`.
    fn save_state_at(&self, now_unix_ms: u64) -> Value {
        let mut limits: Vec<SavedLimit> = self
            .all_rules()
            .map(|(_, kind, rule)| SavedLimit::of(kind, rule))
            .collect();
        {
            let state = self.lock();
            let now = self.inner.clock.now().as_nanos();
            for (key, bucket) in &state.buckets {
                let Some((idx, values)) = decode_key(key) else {
                    continue;
                };
                let Some((_, _, rule)) = self.all_rules().nth(idx) else {
                    continue;
                };
                let level = rule.refilled(bucket, now);
                if level < rule.capacity
                    && let Some(limit) = limits.get_mut(idx)
                {
                    limit.buckets.push(SavedBucket { key: values, level });
                }
            }
        }
        limits.retain(|l| !l.buckets.is_empty());
        for limit in &mut limits {
            // A stable file for a stable state.
            limit.buckets.sort_by(|a, b| a.key.cmp(&b.key));
        }
        to_json(
            POLICY,
            &Snapshot {
                format: FORMAT,
                policy: POLICY.to_owned(),
                saved_at_ms: now_unix_ms,
                limits,
            },
        )
    }

    /// Buckets go back to the limits they were saved for (matched by what the limit is),
    /// refilled by the wall time since the save and never above their capacity; buckets of
    /// limits no longer configured are dropped. Past `max_buckets`, the fullest restored
    /// buckets are dropped first (they are the closest to a new one).
    fn restore_state_at(&self, saved: &Value, now_unix_ms: u64) -> Result<Restored, StateError> {
        let snapshot: Snapshot = parse(POLICY, FORMAT, saved)?;
        for limit in &snapshot.limits {
            limit
                .check()
                .map_err(|message| StateError::malformed(POLICY, message))?;
        }
        let elapsed_ns = u128::from(elapsed_ms(snapshot.saved_at_ms, now_unix_ms)) * 1_000_000;
        let mut restored = Restored::default();
        // Full key -> (level, capacity), the lower level when a key comes twice.
        let mut entries: HashMap<String, (u128, u128)> = HashMap::new();
        for limit in &snapshot.limits {
            let rules: Vec<(usize, &Rule)> = self
                .all_rules()
                .filter(|(_, kind, rule)| limit.is(*kind, rule))
                .map(|(i, _, rule)| (i, rule))
                .collect();
            if rules.is_empty() {
                let n = limit.buckets.len();
                restored.drop_entries(
                    n,
                    format!(
                        "{n} buckets of the {}: the limit is no longer configured",
                        limit.describe()
                    ),
                );
                continue;
            }
            restored.kept += limit.buckets.len();
            for bucket in &limit.buckets {
                for (idx, rule) in &rules {
                    // The values in the order of the current rule's key parts.
                    let values = rule.key.iter().map(|part| {
                        limit
                            .key
                            .iter()
                            .position(|p| p == part)
                            .and_then(|i| bucket.key.get(i))
                            .and_then(Option::as_deref)
                    });
                    let key = bucket_key(*idx, values);
                    let level = bucket
                        .level
                        .saturating_add(elapsed_ns.saturating_mul(u128::from(rule.calls)))
                        .min(rule.capacity);
                    match entries.entry(key) {
                        Entry::Occupied(mut e) => e.get_mut().0 = e.get().0.min(level),
                        Entry::Vacant(e) => {
                            e.insert((level, rule.capacity));
                        }
                    }
                }
            }
        }

        let mut state = self.lock();
        let now = self.inner.clock.now().as_nanos();
        let mut fresh = Vec::new();
        for (key, (level, capacity)) in entries {
            if level >= capacity {
                // Refilled while the process was down: the same as no bucket.
                continue;
            }
            match state.buckets.get_mut(&key) {
                Some(live) => {
                    // Both counted calls: the emptier bucket is the one to keep.
                    let live_level = self
                        .rule_of(&key)
                        .map_or(live.level, |r| r.refilled(live, now));
                    *live = Bucket {
                        level: live_level.min(level),
                        last: now,
                    };
                }
                None => fresh.push((key, level, capacity)),
            }
        }
        let room = self.inner.max_buckets.saturating_sub(state.buckets.len());
        if fresh.len() > room {
            // The emptiest first: dropping a bucket refills it, so drop the fullest.
            fresh.sort_by(|a, b| {
                let fill =
                    |(_, level, capacity): &(String, u128, u128)| *level as f64 / *capacity as f64;
                fill(a).total_cmp(&fill(b))
            });
            let n = fresh.len() - room;
            restored.drop_entries(
                n,
                format!(
                    "{n} buckets over max_buckets ({}), the fullest ones",
                    self.inner.max_buckets
                ),
            );
            restored.kept = restored.kept.saturating_sub(n);
            fresh.truncate(room);
        }
        for (key, level, _) in fresh {
            state.buckets.insert(key, Bucket { level, last: now });
        }
        state.sweep_at = (state.buckets.len() * 2).max(MIN_SWEEP);
        self.inner.revision.fetch_add(1, Ordering::Relaxed);
        Ok(restored)
    }
}

impl RateLimit {
    /// The rule of a bucket key.
    fn rule_of(&self, key: &str) -> Option<&Rule> {
        let (idx, _) = decode_key(key)?;
        self.all_rules().nth(idx).map(|(_, _, rule)| rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_keys_decode_to_their_values() {
        for values in [
            vec![],
            vec![None],
            vec![Some("coder"), None, Some("")],
            vec![Some("a|1:b"), Some("c|-"), Some("é:|")],
        ] {
            let key = bucket_key(7, values.iter().copied());
            let (idx, back) = decode_key(&key).unwrap();
            assert_eq!(idx, 7);
            assert_eq!(
                back,
                values
                    .iter()
                    .map(|v| v.map(str::to_owned))
                    .collect::<Vec<_>>()
            );
        }
        for bad in ["", "x", "1|", "1|3:ab", "1|x", "1|-|", "1|1:é"] {
            assert_eq!(decode_key(bad), None, "{bad}");
        }
    }
}
