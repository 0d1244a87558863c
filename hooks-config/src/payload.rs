//! Reading an agent's hook payload with limits: a size cap, a deadline, and no duplicate keys.
//!
//! A hook payload comes from another process (an agent CLI, a client of a daemon), so it is
//! read as untrusted input:
//!
//! - **Size.** At most [`Limits::max_bytes`] are read; one byte more and the payload is refused
//!   ([`PayloadError::TooLarge`]) without reading (or buffering) the rest. Memory stays bounded
//!   by the cap whatever the sender writes.
//! - **Time.** The whole read must finish within [`Limits::timeout`]; a sender that holds the
//!   stream open without closing it is refused ([`PayloadError::TimedOut`]) instead of hanging
//!   the reader forever.
//! - **Duplicate keys.** JSON parsers disagree on `{"a": 1, "a": 2}` (serde_json keeps the
//!   last, others the first), so a payload whose second `hook_event_name` turns a `PreToolUse`
//!   into another event means different things to the agent and to us. An object with a key
//!   twice, at any depth, is refused ([`PayloadError::DuplicateKey`]). Keys are compared after
//!   unescaping, so `"a"` and `"\u0061"` are the same key.
//!
//! ```
//! use hookrail_config::payload::{Limits, PayloadError, parse, read_bounded};
//!
//! let value = parse(br#"{"hook_event_name": "PreToolUse", "tool_input": {"command": "ls"}}"#).unwrap();
//! assert_eq!(value["tool_input"]["command"], "ls");
//!
//! let twice = parse(br#"{"hook_event_name": "PreToolUse", "x": {"k": 1, "k": 2}}"#).unwrap_err();
//! assert!(matches!(&twice, PayloadError::DuplicateKey { key, path } if key == "k" && path == "$.x"));
//!
//! let big = vec![b' '; 1025];
//! assert!(matches!(read_bounded(&big[..], 1024), Err(PayloadError::TooLarge { limit: 1024 })));
//! ```

use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::time::Duration;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The default size cap: 16 MiB (a payload carries a tool's input or output, which can be a
/// whole file, but not more than an agent would send).
/// (One value with `hooks-forward`, which reads a payload before any of this crate runs.)
pub const DEFAULT_MAX_BYTES: usize = hookrail_forward::payload::DEFAULT_MAX_BYTES;

/// The default deadline for reading the whole payload: 10 s (an agent writes its payload at
/// once and closes the stream).
pub const DEFAULT_TIMEOUT: Duration = hookrail_forward::payload::DEFAULT_TIMEOUT;

/// How much of a payload is read, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes accepted; a payload of one byte more is refused.
    pub max_bytes: usize,
    /// The deadline for the whole read.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: DEFAULT_MAX_BYTES,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Why a payload was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The stream could not be read.
    #[error("cannot read the payload: {0}")]
    Read(#[from] std::io::Error),
    /// More than the cap was sent.
    #[error(
        "the payload is larger than {limit} bytes; refused (raise the limit if this is expected)"
    )]
    TooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The stream was not closed within the deadline.
    #[error(
        "the payload was not read within {} (the sender did not close the stream); refused",
        format_duration(*after)
    )]
    TimedOut {
        /// The deadline.
        after: Duration,
    },
    /// Not one valid JSON document.
    #[error("the payload is not JSON: {0}")]
    Json(serde_json::Error),
    /// An object has the same key twice.
    #[error(
        "the payload has the key `{key}` twice in the object at {path}; refused (a parser that keeps the first and one that keeps the last would read different events)"
    )]
    DuplicateKey {
        /// The repeated key.
        key: String,
        /// Where the object is: `$` for the top level, `$.tool_input`, `$.items[2]`.
        path: String,
    },
}

fn format_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Reads at most `max_bytes` from `reader`, refusing the payload if there is more.
///
/// Reads `max_bytes + 1` at the most, so a sender of gigabytes costs this much memory.
///
/// # Errors
///
/// [`PayloadError::TooLarge`] when there is more, [`PayloadError::Read`] when reading fails.
pub fn read_bounded(reader: impl Read, max_bytes: usize) -> Result<Vec<u8>, PayloadError> {
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes)?;
    if bytes.len() > max_bytes {
        return Err(PayloadError::TooLarge { limit: max_bytes });
    }
    Ok(bytes)
}

/// Reads a payload from a blocking `reader` (a process's stdin) within `limits` and parses it
/// ([`parse`]).
///
/// The read runs on a thread of its own so that the deadline holds even when `reader` blocks.
/// When the deadline passes, that thread is left blocked on `reader` until it yields or the
/// process exits: meant for a process that exits after answering (`hooks claude`). A
/// long-lived server should use [`read_async`] on its connection instead.
///
/// # Errors
///
/// Every [`PayloadError`].
pub fn read_blocking<R: Read + Send + 'static>(
    reader: R,
    limits: Limits,
) -> Result<Value, PayloadError> {
    parse(&read_bytes_blocking(reader, limits)?)
}

/// Reads a payload's bytes from a blocking `reader` within `limits`, without parsing them
/// (for a process that hands them on, as `hooks claude` does to a daemon); the thread and
/// the deadline are those of [`read_blocking`].
///
/// # Errors
///
/// [`PayloadError::TooLarge`], [`PayloadError::TimedOut`], [`PayloadError::Read`].
pub fn read_bytes_blocking<R: Read + Send + 'static>(
    reader: R,
    limits: Limits,
) -> Result<Vec<u8>, PayloadError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let max = limits.max_bytes;
    std::thread::Builder::new()
        .name("hooks-payload".to_owned())
        .spawn(move || {
            // The receiver is gone only after a timeout; nothing is waiting then.
            let _ = tx.send(read_bounded(reader, max));
        })?;
    match rx.recv_timeout(limits.timeout) {
        Ok(read) => read,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(PayloadError::TimedOut {
            after: limits.timeout,
        }),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(PayloadError::Read(
            std::io::Error::other("the payload reader stopped without an answer"),
        )),
    }
}

/// Reads a payload from an async `reader` within `limits` and parses it ([`parse`]).
///
/// # Errors
///
/// Every [`PayloadError`].
pub async fn read_async<R>(reader: R, limits: Limits) -> Result<Value, PayloadError>
where
    R: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let limit = u64::try_from(limits.max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    let read =
        tokio::time::timeout(limits.timeout, reader.take(limit).read_to_end(&mut bytes)).await;
    match read {
        Err(_elapsed) => Err(PayloadError::TimedOut {
            after: limits.timeout,
        }),
        Ok(Err(e)) => Err(PayloadError::Read(e)),
        Ok(Ok(_)) if bytes.len() > limits.max_bytes => Err(PayloadError::TooLarge {
            limit: limits.max_bytes,
        }),
        Ok(Ok(_)) => parse(&bytes),
    }
}

/// Parses one JSON document (after an optional UTF-8 byte-order mark), refusing any object
/// with a key twice.
///
/// # Errors
///
/// [`PayloadError::DuplicateKey`] for a repeated key, [`PayloadError::Json`] for anything else
/// that is not one JSON document.
pub fn parse(bytes: &[u8]) -> Result<Value, PayloadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = Unique {
        at: At::Root,
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match parsed {
        Ok(value) => Ok(value),
        Err(e) => match duplicate.into_inner() {
            Some((key, path)) => Err(PayloadError::DuplicateKey { key, path }),
            None => Err(PayloadError::Json(e)),
        },
    }
}

/// Builds a [`Value`] like serde_json's own, but fails on a repeated key and records it (the
/// error itself can only carry a message through serde_json).
struct Unique<'a> {
    /// Where this value is, for the error.
    at: At<'a>,
    /// The first repeated key found, and its object's path.
    duplicate: &'a RefCell<Option<(String, String)>>,
}

/// Where a value is in the document (`$`, `$.tool_input`, `$.edits[2]`), as links to its
/// parent: written out only for the error, since every payload has many values and almost
/// none a repeated key.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Root => f.write_str("$"),
            At::Key(parent, key) => write!(f, "{parent}.{key}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // serde_json never yields a non-finite float from JSON text.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let seed = Unique {
                at: At::Index(&self.at, items.len()),
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let path = self.at.to_string();
                let message = format!("duplicate key `{key}` at {path}");
                *self.duplicate.borrow_mut() = Some((key, path));
                return Err(de::Error::custom(message));
            }
            let seed = Unique {
                at: At::Key(&self.at, &key),
                duplicate: self.duplicate,
            };
            let value = map.next_value_seed(seed)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_like_serde_json_without_duplicates() {
        let text = br#"{"a": [1, -2, 3.5, true, null, "x", {"b": {}}], "c": "\u00e9"}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
        assert_eq!(parse(b"\xEF\xBB\xBF{\"a\": 1}").unwrap(), json!({"a": 1}));
    }

    #[test]
    fn refuses_a_repeated_key_at_any_depth() {
        let cases: [(&[u8], &str, &str); 4] = [
            (
                br#"{"hook_event_name": "PreToolUse", "hook_event_name": "Other"}"#,
                "hook_event_name",
                "$",
            ),
            (br#"{"t": {"c": 1, "c": 1}}"#, "c", "$.t"),
            (br#"{"l": [0, {"k": 1, "k": 2}]}"#, "k", "$.l[1]"),
            // Escapes are decoded before keys are compared.
            (br#"{"ab": 1, "\u0061b": 2}"#, "ab", "$"),
        ];
        for (text, want_key, want_path) in cases {
            match parse(text) {
                Err(PayloadError::DuplicateKey { key, path }) => {
                    assert_eq!((key.as_str(), path.as_str()), (want_key, want_path));
                }
                other => panic!("{}: {other:?}", String::from_utf8_lossy(text)),
            }
        }
    }

    #[test]
    fn refuses_what_is_not_one_document() {
        for text in [&b"{"[..], b"{} {}", b"nope", b"", b"{\"a\": \xff}"] {
            assert!(
                matches!(parse(text), Err(PayloadError::Json(_))),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn the_cap_is_exact() {
        let at = [b' '; 8];
        assert_eq!(read_bounded(&at[..], 8).unwrap().len(), 8);
        let over = [b' '; 9];
        assert!(matches!(
            read_bounded(&over[..], 8),
            Err(PayloadError::TooLarge { limit: 8 })
        ));
    }

    /// Never ends: the cap must stop the read, not the end of the input.
    struct Endless;

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b' ');
            Ok(buf.len())
        }
    }

    #[test]
    fn an_endless_stream_is_refused_at_the_cap() {
        let limits = Limits {
            max_bytes: 1024,
            timeout: Duration::from_secs(60),
        };
        assert!(matches!(
            read_blocking(Endless, limits),
            Err(PayloadError::TooLarge { limit: 1024 })
        ));
    }

    /// Blocks forever, like a stdin held open.
    struct Stuck(std::sync::mpsc::Receiver<()>);

    impl Read for Stuck {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            let _ = self.0.recv();
            Ok(0)
        }
    }

    #[test]
    fn a_held_open_stream_times_out() {
        let (_keep, rx) = std::sync::mpsc::channel();
        let limits = Limits {
            max_bytes: 1024,
            timeout: Duration::from_millis(50),
        };
        let err = read_blocking(Stuck(rx), limits).unwrap_err();
        assert!(matches!(err, PayloadError::TimedOut { .. }), "{err}");
        assert!(err.to_string().contains("50 ms"), "{err}");
    }

    #[tokio::test]
    async fn async_reads_have_the_same_limits() {
        let limits = Limits {
            max_bytes: 16,
            timeout: Duration::from_millis(50),
        };
        assert_eq!(
            read_async(&b"{\"a\": 1}"[..], limits).await.unwrap(),
            json!({"a": 1})
        );
        assert!(matches!(
            read_async(&[b' '; 17][..], limits).await,
            Err(PayloadError::TooLarge { limit: 16 })
        ));
        assert!(matches!(
            read_async(&b"{\"a\": 1, \"a\": 1}"[..], limits).await,
            Err(PayloadError::DuplicateKey { .. })
        ));
        let (_writer, reader) = tokio::io::duplex(64);
        assert!(matches!(
            read_async(reader, limits).await,
            Err(PayloadError::TimedOut { .. })
        ));
    }
}
