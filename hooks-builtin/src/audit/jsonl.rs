//! The JSONL backend: a header line, then one JSON object per line (records, `kv` sets and
//! gaps), appended one batch per `write` call.
//!
//! A batch reaches the OS in one `write_all` on an `O_APPEND` file, so a killed process loses
//! at most the batch being written, and at worst leaves one torn last line; the reader reports
//! that line and reads the rest. Reopening for writing ends a torn line with a newline first,
//! so the next record starts on a line of its own.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::queue::{Msg, Store};
use super::record::{AuditRecord, GapRecord, ToolCallRecord, now_ms};
use super::{AuditError, Synchronous};

/// The schema this build writes and reads (the header's `schema_version`).
pub(crate) const SCHEMA_VERSION: i64 = 1;

/// The header's `format`.
const FORMAT: &str = "hooks-audit";

/// A header longer than this is not ours.
const MAX_HEADER: u64 = 64 * 1024;

#[derive(Serialize, Deserialize)]
struct Header {
    #[serde(rename = "type")]
    kind: String,
    format: String,
    schema_version: i64,
    #[serde(default)]
    created_ms: u64,
}

/// A `kv` line.
#[derive(Serialize)]
struct KvLine<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    ts_ms: u64,
    session_id: &'a str,
    key: &'a str,
    value: &'a Value,
}

#[derive(Deserialize)]
struct KvLineOwned {
    session_id: String,
    key: String,
    value: Value,
}

/// One parsed line.
#[expect(
    clippy::large_enum_variant,
    reason = "one line at a time, handed on at once; never stored in bulk"
)]
enum Line {
    Header,
    Record(AuditRecord),
    Kv(KvLineOwned),
}

fn parse_line(bytes: &[u8]) -> Result<Line, String> {
    // Lines this crate writes start with their type: one parse instead of two.
    if bytes.starts_with(br#"{"type":"kv""#) {
        if let Ok(kv) = serde_json::from_slice(bytes) {
            return Ok(Line::Kv(kv));
        }
    } else if bytes.starts_with(br#"{"type":"header""#) {
        return Ok(Line::Header);
    } else if let Ok(record) = serde_json::from_slice(bytes) {
        return Ok(Line::Record(record));
    }
    // Anything else (hand-edited, or broken) gets the precise error.
    let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .ok_or("no `type` field")?;
    match kind {
        "header" => Ok(Line::Header),
        "kv" => serde_json::from_value(value)
            .map(Line::Kv)
            .map_err(|e| e.to_string()),
        "hook_run" | "tool_call" | "event" | "gap" => serde_json::from_value(value)
            .map(Line::Record)
            .map_err(|e| e.to_string()),
        other => Err(format!("unknown record type `{other}`")),
    }
}

/// Check the header of an existing file.
fn read_header(file: &mut File, path: &Path) -> Result<(), AuditError> {
    let not_audit = |message: String| AuditError::NotAudit {
        path: path.to_owned(),
        message,
    };
    file.seek(SeekFrom::Start(0))
        .map_err(|e| read_error(path, e))?;
    let mut first = Vec::new();
    BufReader::new(&mut *file)
        .take(MAX_HEADER)
        .read_until(b'\n', &mut first)
        .map_err(|e| read_error(path, e))?;
    if first.last() != Some(&b'\n') {
        return Err(not_audit("the first line is not a complete header".into()));
    }
    let header: Header = serde_json::from_slice(&first)
        .map_err(|e| not_audit(format!("the first line is not a header: {e}")))?;
    if header.kind != "header" || header.format != FORMAT {
        return Err(not_audit(format!(
            "the header's format is `{}`, not `{FORMAT}`",
            header.format
        )));
    }
    if header.schema_version > SCHEMA_VERSION {
        return Err(AuditError::NewerSchema {
            path: path.to_owned(),
            found: header.schema_version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

fn read_error(path: &Path, e: impl std::fmt::Display) -> AuditError {
    AuditError::Read {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn open_error(path: &Path, e: impl std::fmt::Display) -> AuditError {
    AuditError::Open {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// The writer's file.
pub(crate) struct JsonlStore {
    path: PathBuf,
    file: File,
    /// The file's length after the last complete batch.
    len: u64,
    sync: Synchronous,
    buf: Vec<u8>,
    /// Latest value per (session, key), loaded on the first `kv_get`.
    kv: Option<HashMap<(String, String), Value>>,
}

impl JsonlStore {
    pub(crate) fn open(path: &Path, sync: Synchronous) -> Result<Self, AuditError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| open_error(path, e))?;
        let mut len = file.metadata().map_err(|e| open_error(path, e))?.len();
        if len == 0 {
            let header = Header {
                kind: "header".into(),
                format: FORMAT.into(),
                schema_version: SCHEMA_VERSION,
                created_ms: now_ms(),
            };
            let mut line = serde_json::to_vec(&header).map_err(|e| open_error(path, e))?;
            line.push(b'\n');
            file.write_all(&line).map_err(|e| open_error(path, e))?;
            file.sync_all().map_err(|e| open_error(path, e))?;
            len = line.len() as u64;
        } else {
            read_header(&mut file, path)?;
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))
                .and_then(|_| file.read_exact(&mut last))
                .map_err(|e| open_error(path, e))?;
            if last[0] != b'\n' {
                tracing::warn!(
                    path = %path.display(),
                    "audit file ends with a torn line (a crash mid-write); it is kept and \
                     reported by the reader, new records start on the next line"
                );
                file.write_all(b"\n").map_err(|e| open_error(path, e))?;
                len += 1;
            }
        }
        Ok(JsonlStore {
            path: path.to_owned(),
            file,
            len,
            sync,
            buf: Vec::with_capacity(64 * 1024),
            kv: None,
        })
    }

    fn load_kv(&self) -> Result<HashMap<(String, String), Value>, String> {
        let mut map = HashMap::new();
        let file = File::open(&self.path).map_err(|e| e.to_string())?;
        let mut reader = BufReader::new(file).take(self.len);
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader
                .read_until(b'\n', &mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                break;
            }
            // Lines are written with `type` first, so other lines are skipped unparsed.
            if line.starts_with(br#"{"type":"kv""#)
                && line.last() == Some(&b'\n')
                && let Ok(Line::Kv(kv)) = parse_line(&line)
            {
                map.insert((kv.session_id, kv.key), kv.value);
            }
        }
        Ok(map)
    }

    fn encode(
        &mut self,
        batch: &[Msg],
        gap: Option<&GapRecord>,
    ) -> Result<Vec<Option<Value>>, String> {
        let mut answers = Vec::new();
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let result = (|| {
            if let Some(gap) = gap {
                line(&mut buf, &AuditRecord::Gap(gap.clone()))?;
            }
            if self.kv.is_none() && batch.iter().any(|m| matches!(m, Msg::KvGet { .. })) {
                self.kv = Some(self.load_kv()?);
            }
            for msg in batch {
                match msg {
                    Msg::Record(r) => line(&mut buf, r)?,
                    Msg::KvSet {
                        session,
                        key,
                        value,
                        ts_ms,
                    } => {
                        let kv = KvLine {
                            kind: "kv",
                            ts_ms: *ts_ms,
                            session_id: session,
                            key,
                            value,
                        };
                        line(&mut buf, &kv)?;
                        if let Some(map) = &mut self.kv {
                            map.insert((session.clone(), key.clone()), value.clone());
                        }
                    }
                    Msg::KvGet { session, key, .. } => answers.push(
                        self.kv
                            .as_ref()
                            .and_then(|m| m.get(&(session.clone(), key.clone())))
                            .cloned(),
                    ),
                }
            }
            Ok(answers)
        })();
        self.buf = buf;
        result
    }
}

/// Append `v` as one JSON line.
fn line<T: Serialize>(buf: &mut Vec<u8>, v: &T) -> Result<(), String> {
    serde_json::to_writer(&mut *buf, v).map_err(|e| e.to_string())?;
    buf.push(b'\n');
    Ok(())
}

impl Store for JsonlStore {
    fn apply(
        &mut self,
        batch: &[Msg],
        gap: Option<&GapRecord>,
    ) -> Result<Vec<Option<Value>>, String> {
        let answers = match self.encode(batch, gap) {
            Ok(a) => a,
            Err(e) => {
                // The in-memory index may hold sets that were never written.
                self.kv = None;
                return Err(e);
            }
        };
        if let Err(e) = self.file.write_all(&self.buf) {
            // Cut a partial batch off, so the file does not end in a torn line.
            let _ = self.file.set_len(self.len);
            self.kv = None;
            return Err(format!("writing {}: {e}", self.path.display()));
        }
        self.len += self.buf.len() as u64;
        if self.sync == Synchronous::Full
            && let Err(e) = self.file.sync_data()
        {
            // The bytes are in the OS; only their power-loss durability is in doubt.
            return Err(format!("syncing {}: {e}", self.path.display()));
        }
        Ok(answers)
    }
}

/// A line the reader could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineProblem {
    /// The line number, from 1 (the header is line 1).
    pub line: u64,
    /// Where the line starts in the file.
    pub offset: u64,
    /// Why it could not be read.
    pub message: String,
    /// True for a last line without a newline: a write cut short by a crash (or one in
    /// progress).
    pub torn: bool,
}

/// The JSONL side of [`AuditReader`](super::AuditReader): every query reads the file from the
/// start, so it sees records appended since the reader was opened.
pub(crate) struct JsonlReader {
    path: PathBuf,
}

impl JsonlReader {
    pub(crate) fn open(path: &Path) -> Result<(Self, Vec<LineProblem>), AuditError> {
        let mut file = File::open(path).map_err(|e| open_error(path, e))?;
        read_header(&mut file, path)?;
        let reader = JsonlReader {
            path: path.to_owned(),
        };
        let problems = reader.scan(|_| {})?;
        Ok((reader, problems))
    }

    /// Read every line; `each` gets the good ones, the bad ones are returned.
    fn scan(&self, each: impl FnMut(Line)) -> Result<Vec<LineProblem>, AuditError> {
        self.scan_matching(None, each)
    }

    /// As `scan`, skipping unparsed the lines that cannot belong to `session` (they do not
    /// contain its id as a JSON string).
    fn scan_matching(
        &self,
        session: Option<&str>,
        mut each: impl FnMut(Line),
    ) -> Result<Vec<LineProblem>, AuditError> {
        let needle = session.map(|s| Value::from(s).to_string().into_bytes());
        let file = File::open(&self.path).map_err(|e| read_error(&self.path, e))?;
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        let mut problems = Vec::new();
        let mut line = Vec::new();
        let (mut number, mut offset) = (0u64, 0u64);
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| read_error(&self.path, e))?;
            if n == 0 {
                break;
            }
            number += 1;
            let torn = line.last() != Some(&b'\n');
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            let skip = body.iter().all(u8::is_ascii_whitespace)
                || needle.as_deref().is_some_and(|n| !contains(body, n));
            if skip {
                offset += n as u64;
                continue;
            }
            match parse_line(body) {
                Ok(l) if !torn => each(l),
                Ok(_) => problems.push(LineProblem {
                    line: number,
                    offset,
                    message: "the last line has no newline (a write cut short)".into(),
                    torn,
                }),
                Err(message) => problems.push(LineProblem {
                    line: number,
                    offset,
                    message,
                    torn,
                }),
            }
            offset += n as u64;
        }
        Ok(problems)
    }

    pub(crate) fn records(
        &self,
        session: Option<&str>,
        mut keep: impl FnMut(&AuditRecord) -> bool,
    ) -> Result<Vec<AuditRecord>, AuditError> {
        let mut out = Vec::new();
        self.scan_matching(session, |l| {
            if let Line::Record(r) = l
                && keep(&r)
            {
                out.push(r);
            }
        })?;
        Ok(out)
    }

    pub(crate) fn trail(&self, session: &str) -> Result<Vec<AuditRecord>, AuditError> {
        self.records(Some(session), |r| r.session_id() == Some(session))
    }

    pub(crate) fn tool_calls(&self, session: &str) -> Result<Vec<ToolCallRecord>, AuditError> {
        Ok(self
            .records(Some(session), |r| {
                matches!(r, AuditRecord::ToolCall(_)) && r.session_id() == Some(session)
            })?
            .into_iter()
            .filter_map(|r| match r {
                AuditRecord::ToolCall(t) => Some(t),
                _ => None,
            })
            .collect())
    }

    pub(crate) fn kv(&self, session: &str) -> Result<Vec<(String, Value)>, AuditError> {
        let mut map = std::collections::BTreeMap::new();
        self.scan_matching(Some(session), |l| {
            if let Line::Kv(kv) = l
                && kv.session_id == session
            {
                map.insert(kv.key, kv.value);
            }
        })?;
        Ok(map.into_iter().collect())
    }

    pub(crate) fn sessions(&self) -> Result<Vec<String>, AuditError> {
        let mut set = std::collections::BTreeSet::new();
        self.scan(|l| match l {
            Line::Record(r) => {
                if let Some(s) = r.session_id() {
                    set.insert(s.to_owned());
                }
            }
            Line::Kv(kv) => {
                set.insert(kv.session_id);
            }
            Line::Header => {}
        })?;
        Ok(set.into_iter().collect())
    }

    pub(crate) fn count(&self) -> Result<u64, AuditError> {
        let mut n = 0;
        self.scan(|l| {
            if let Line::Record(_) = l {
                n += 1;
            }
        })?;
        Ok(n)
    }

    pub(crate) fn problems(&self) -> Result<Vec<LineProblem>, AuditError> {
        self.scan(|_| {})
    }
}

/// True when `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let mut at = 0;
    while let Some(i) = haystack[at..].iter().position(|&b| b == first) {
        let start = at + i + 1;
        if haystack[start..].starts_with(rest) {
            return true;
        }
        at = start;
    }
    false
}
