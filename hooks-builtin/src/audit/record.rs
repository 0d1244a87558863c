//! The records of the trail, and how values are capped before they are stored.

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use hookrail_core::context::Meta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One entry of the trail, as stored (the JSON of a JSONL line and of the SQLite `body`
/// column): `{"type": "tool_call", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditRecord {
    /// One hook ran at one point.
    HookRun(HookRunRecord),
    /// A tool call that ran, failed, was denied or needed approval.
    ToolCall(ToolCallRecord),
    /// A session event (`session_start`, `session_end`) or one recorded with
    /// [`Audit::record_event`](super::Audit::record_event).
    Event(EventRecord),
    /// Records were lost before this point (queue full past its deadline, or a failed write);
    /// written by the writer as soon as it can, so the trail itself shows the hole.
    Gap(GapRecord),
}

impl AuditRecord {
    /// The record's `type`: `hook_run`, `tool_call`, `event` or `gap`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AuditRecord::HookRun(_) => "hook_run",
            AuditRecord::ToolCall(_) => "tool_call",
            AuditRecord::Event(_) => "event",
            AuditRecord::Gap(_) => "gap",
        }
    }

    /// Who and where the record comes from (`None` for a gap).
    pub fn origin(&self) -> Option<&Origin> {
        match self {
            AuditRecord::HookRun(r) => Some(&r.origin),
            AuditRecord::ToolCall(r) => Some(&r.origin),
            AuditRecord::Event(r) => Some(&r.origin),
            AuditRecord::Gap(_) => None,
        }
    }

    /// The session id, when the record belongs to a session.
    pub fn session_id(&self) -> Option<&str> {
        self.origin()?.session_id.as_deref()
    }

    /// When the record was made, in milliseconds since the Unix epoch.
    pub fn ts_ms(&self) -> u64 {
        match self {
            AuditRecord::HookRun(r) => r.ts_ms,
            AuditRecord::ToolCall(r) => r.ts_ms,
            AuditRecord::Event(r) => r.ts_ms,
            AuditRecord::Gap(r) => r.ts_ms,
        }
    }

    /// The point (`hook_run`, `event`) or tool name (`tool_call`), for the indexed column.
    pub(crate) fn subject(&self) -> Option<&str> {
        match self {
            AuditRecord::HookRun(r) => Some(&r.point),
            AuditRecord::ToolCall(r) => Some(&r.tool_name),
            AuditRecord::Event(r) => Some(&r.point),
            AuditRecord::Gap(_) => None,
        }
    }

    /// The hook run's outcome or the tool call's status, for the indexed column.
    pub(crate) fn outcome(&self) -> Option<&str> {
        match self {
            AuditRecord::HookRun(r) => Some(&r.outcome),
            AuditRecord::ToolCall(r) => Some(r.status.as_str()),
            AuditRecord::Event(_) | AuditRecord::Gap(_) => None,
        }
    }
}

/// Who and where: the shared fields of the context ([`Meta`]) a record comes from. All `None`
/// for a hook run at a custom point whose context type the audit does not know.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Origin {
    /// The session's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The agent's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The tenant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The turn within the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

impl Origin {
    /// The origin of a context's shared fields.
    pub fn of(meta: &Meta) -> Self {
        Origin {
            session_id: Some(meta.session_id.to_string()),
            agent: Some(meta.agent_name.to_string()),
            tenant: meta.tenant.as_deref().map(str::to_owned),
            turn: Some(meta.turn),
        }
    }
}

/// One hook run (a [`HookRun`](hookrail_core::runtime::HookRun) delivered to the audit's
/// subscriber).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookRunRecord {
    /// When the run finished (ms since the Unix epoch).
    pub ts_ms: u64,
    /// Who and where.
    #[serde(flatten)]
    pub origin: Origin,
    /// The point.
    pub point: String,
    /// The point's kind: `guard`, `transform`, `observe` or `recover`.
    pub kind: String,
    /// The hook's name.
    pub hook: String,
    /// Where the hook came from: `static`, `provider` or `runtime`.
    pub source: String,
    /// How long it ran, in microseconds.
    pub duration_us: u64,
    /// `continue`, `allow`, `ask`, `deny` (guards), `recovery`, `no_recovery` (recoverers),
    /// `done` (transforms, observers) or `failed`.
    pub outcome: String,
    /// The reason of an ask or deny, the recovery (JSON), or the failure and the failure
    /// policy applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What became of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolStatus {
    /// It ran and succeeded.
    Ok,
    /// It ran and failed (`PostToolUse::error`).
    Error,
    /// A guard denied it (or failed closed); it did not run.
    Denied,
    /// A guard asked for approval. If it was approved, an `ok` or `error` record of the same
    /// call (verdict `ask`) follows.
    Asked,
}

impl ToolStatus {
    /// `ok`, `error`, `denied` or `asked`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Ok => "ok",
            ToolStatus::Error => "error",
            ToolStatus::Denied => "denied",
            ToolStatus::Asked => "asked",
        }
    }
}

/// One tool call, in the shape of AgentFS's `tools.record(name, started, ended, input,
/// output)` (seed 001), with the guards' verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// When the call ended or was refused (ms since the Unix epoch).
    pub ts_ms: u64,
    /// When it started (`ts_ms - duration_ms`).
    pub started_ms: u64,
    /// Who and where.
    #[serde(flatten)]
    pub origin: Origin,
    /// The tool's name.
    pub tool_name: String,
    /// The tool call's id, when the agent gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What became of it.
    pub status: ToolStatus,
    /// The guards' verdict: `continue`, `allow`, `ask` or `deny`.
    pub verdict: String,
    /// The reason of an ask or deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The hook that decided an allow, ask or deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The input the tool ran with (or would have), as JSON text; cut at
    /// `max_input_bytes` when `input_truncated`.
    pub input: String,
    /// True when `input` was cut.
    #[serde(default)]
    pub input_truncated: bool,
    /// The input as the model asked for it, when a guard rewrote it (capped like `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_input: Option<String>,
    /// The start of the tool's response as JSON text, cut at `max_output_bytes` (`None` when
    /// the tool did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The size of the whole response as compact JSON, in bytes.
    #[serde(default)]
    pub output_bytes: u64,
    /// True when `output` is only the start of the response.
    #[serde(default)]
    pub output_truncated: bool,
    /// The tool's error, when it failed (capped at `max_output_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the tool ran, in milliseconds (0 when it did not run).
    pub duration_ms: u64,
}

impl ToolCallRecord {
    /// The input parsed back into JSON; `None` when it was truncated.
    pub fn input_json(&self) -> Option<Value> {
        if self.input_truncated {
            return None;
        }
        serde_json::from_str(&self.input).ok()
    }

    /// The response parsed back into JSON; `None` when it was truncated or absent.
    pub fn output_json(&self) -> Option<Value> {
        if self.output_truncated {
            return None;
        }
        serde_json::from_str(self.output.as_deref()?).ok()
    }
}

/// A session event: `session_start` (model, source), `session_end` (reason, success, totals),
/// or a custom event from [`Audit::record_event`](super::Audit::record_event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EventRecord {
    /// When (ms since the Unix epoch).
    pub ts_ms: u64,
    /// Who and where.
    #[serde(flatten)]
    pub origin: Origin,
    /// The point or the event's name.
    pub point: String,
    /// Details (capped at `max_output_bytes`; a cut value is stored as a string).
    #[serde(default)]
    pub detail: Value,
}

/// Records were lost just before this point of the trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GapRecord {
    /// When the writer noticed (ms since the Unix epoch).
    pub ts_ms: u64,
    /// Records refused at the queue since the previous gap record (full past its deadline).
    pub dropped: u64,
    /// Records the writer failed to store since the previous gap record.
    pub failed: u64,
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Values nested deeper than this are not serialized: serde_json recurses once per level, and
/// a hostile value must not overflow the agent's stack inside the audit.
pub(crate) const MAX_DEPTH: usize = 128;

/// A JSON value as stored: its compact text, cut at a byte budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capped {
    /// The text (valid JSON unless `truncated`).
    pub(crate) text: String,
    /// The size of the whole compact JSON text.
    pub(crate) bytes: u64,
    /// True when `text` is only a prefix (or a placeholder for a value nested too deep).
    pub(crate) truncated: bool,
}

/// `value` as compact JSON, keeping at most `max` bytes (cut at a character boundary).
///
/// The full size is computed without building the full text, so a 100 MB tool output costs
/// one pass over it and `max` bytes of memory, not a 100 MB string in the agent loop.
pub(crate) fn cap_json(value: &Value, max: usize) -> Capped {
    let (bytes, depth) = json_size(value);
    if depth > MAX_DEPTH {
        return Capped {
            text: format!("[not recorded: JSON nested deeper than {MAX_DEPTH} levels]"),
            bytes,
            truncated: true,
        };
    }
    let mut out = CappedWriter {
        buf: Vec::with_capacity(usize::try_from(bytes).unwrap_or(max).min(max)),
        max,
        overflow: false,
    };
    // The writer's only error is the budget, so any other outcome means the text is whole.
    let _ = serde_json::to_writer(&mut out, value);
    let truncated = out.overflow;
    let mut buf = out.buf;
    let text = match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => {
            // The cut fell inside a multi-byte character: drop its first bytes.
            let valid = e.utf8_error().valid_up_to();
            buf = e.into_bytes();
            buf.truncate(valid);
            String::from_utf8(buf).unwrap_or_default()
        }
    };
    Capped {
        text,
        bytes,
        truncated,
    }
}

/// `s` cut at most `max` bytes, at a character boundary; true when it was cut.
pub(crate) fn cap_str(s: &str, max: usize) -> (String, bool) {
    if s.len() <= max {
        return (s.to_owned(), false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s[..end].to_owned(), true)
}

/// Keeps the first `max` bytes and refuses the rest (which stops serde_json early).
struct CappedWriter {
    buf: Vec<u8>,
    max: usize,
    overflow: bool,
}

impl io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.max - self.buf.len();
        if data.len() > room {
            self.buf.extend_from_slice(&data[..room]);
            self.overflow = true;
            return Err(io::Error::other("audit value over budget"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The exact length of `serde_json::to_string(value)` and the value's nesting depth, computed
/// without recursion.
pub(crate) fn json_size(value: &Value) -> (u64, usize) {
    let mut total: u64 = 0;
    let mut max_depth = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
    while let Some((v, depth)) = stack.pop() {
        max_depth = max_depth.max(depth);
        total += match v {
            Value::Null => 4,
            Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(n) => n.to_string().len() as u64,
            Value::String(s) => json_str_len(s),
            Value::Array(items) => {
                stack.extend(items.iter().map(|i| (i, depth + 1)));
                2 + items.len().saturating_sub(1) as u64
            }
            Value::Object(map) => {
                stack.extend(map.values().map(|i| (i, depth + 1)));
                let keys: u64 = map.keys().map(|k| json_str_len(k) + 1).sum();
                2 + keys + map.len().saturating_sub(1) as u64
            }
        };
    }
    (total, max_depth)
}

/// The length of `s` as a JSON string literal, escaped as serde_json escapes it.
fn json_str_len(s: &str) -> u64 {
    let escaped: u64 = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    2 + s.len() as u64 + escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            any::<String>().prop_map(Value::String),
            "[\u{0}-\u{1f}\"\\\\/é😀a]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn json_size_is_the_exact_length_of_compact_serialization(v in arb_json()) {
            let text = serde_json::to_string(&v).unwrap();
            prop_assert_eq!(json_size(&v).0, text.len() as u64);
        }

        #[test]
        fn capped_json_is_a_prefix_of_the_full_text_within_budget(v in arb_json(), max in 0usize..200) {
            let full = serde_json::to_string(&v).unwrap();
            let c = cap_json(&v, max);
            prop_assert!(c.text.len() <= max);
            prop_assert!(full.starts_with(&c.text));
            prop_assert_eq!(c.truncated, full.len() > max);
            prop_assert_eq!(c.bytes, full.len() as u64);
        }
    }

    #[test]
    fn a_value_nested_too_deep_is_replaced_by_a_placeholder_not_serialized() {
        let mut v = json!(1);
        for _ in 0..(MAX_DEPTH + 10) {
            v = Value::Array(vec![v]);
        }
        let c = cap_json(&v, 1 << 20);
        assert!(c.truncated);
        assert!(c.text.contains("nested deeper"), "{}", c.text);
        assert_eq!(c.bytes, serde_json::to_string(&v).unwrap().len() as u64);
    }

    #[test]
    fn cap_str_cuts_at_a_character_boundary() {
        let (s, cut) = cap_str("aé😀b", 4);
        assert_eq!((s.as_str(), cut), ("aé", true));
        assert_eq!(cap_str("abc", 3), ("abc".to_owned(), false));
    }

    #[test]
    fn records_round_trip_through_json_with_a_type_tag() {
        let r = AuditRecord::HookRun(HookRunRecord {
            ts_ms: 5,
            origin: Origin {
                session_id: Some("s".into()),
                agent: Some("a".into()),
                tenant: None,
                turn: Some(2),
            },
            point: "pre_tool_use".into(),
            kind: "guard".into(),
            hook: "g".into(),
            source: "runtime".into(),
            duration_us: 7,
            outcome: "deny".into(),
            detail: Some("no".into()),
        });
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.starts_with(r#"{"type":"hook_run","#), "{text}");
        assert!(!text.contains("tenant"));
        let back: AuditRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }
}
