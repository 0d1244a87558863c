//! The approvals file.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize};

use super::fingerprint::{Fingerprint, read_open};
use super::{MAX_STORE_BYTES, STORE_VERSION, TrustError};

/// The approvals file: handlers approved by `hooks trust`, by fingerprint.
///
/// JSON, `{"version": 1, "approvals": [ … ]}`, one [`Approval`] per approved handler. It lives
/// outside the repository ([`default_path`](TrustStore::default_path)), so a repository cannot
/// approve its own hooks. A file that cannot be read or parsed is an error, never an empty
/// store; a missing file is an empty store.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
    approvals: Vec<Approval>,
}

/// One approved handler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// [`Fingerprint::hash`]: what is approved.
    #[serde(deserialize_with = "sha256_hex")]
    pub hash: String,
    /// [`Fingerprint::handler`], for people: the command or the URL and header templates.
    pub handler: String,
    /// [`Fingerprint::project`].
    pub project: PathBuf,
    /// [`Fingerprint::scripts`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<PathBuf>,
    /// When, in RFC 3339 (UTC): `2026-01-31T12:00:00Z`.
    pub approved_at: String,
    /// Why, or by whom, when `hooks trust` was told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The [unhashed](Fingerprint::unhashed) parts this approval accepted, as displayed
    /// (`fragment: why`); empty when the fingerprint covered everything. An approval admits
    /// a fingerprint only if it accepted every unhashed part the fingerprint has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unhashed: Vec<String>,
}

impl Approval {
    /// Whether it was given although parts of the command could not be hashed ("approved,
    /// partly unhashed").
    pub fn is_partial(&self) -> bool {
        !self.unhashed.is_empty()
    }

    fn covers(&self, fp: &Fingerprint) -> bool {
        self.hash == fp.hash
            && fp
                .unhashed
                .iter()
                .all(|u| self.unhashed.contains(&u.to_string()))
    }
}

/// What [`TrustStore::try_approve`] does with a fingerprint that has
/// [unhashed](Fingerprint::unhashed) parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnhashed {
    /// Refuse to approve it ([`TrustError::Unhashed`]).
    Refuse,
    /// Approve it, recording the unhashed parts as accepted (`hooks trust --approve
    /// --accept-unhashed`).
    Accept,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    #[serde(deserialize_with = "supported_version")]
    #[allow(dead_code, reason = "checked while parsing")]
    version: u32,
    #[serde(default)]
    approvals: Vec<Approval>,
}

#[derive(Serialize)]
struct StoreFileRef<'a> {
    version: u32,
    approvals: &'a [Approval],
}

fn sha256_hex<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let hash = String::deserialize(d)?;
    if hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(hash)
    } else {
        Err(serde::de::Error::custom(format!(
            "`hash` must be 64 lower-case hex digits, found `{hash}`"
        )))
    }
}

fn supported_version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let version = u32::deserialize(d)?;
    if version == STORE_VERSION {
        Ok(version)
    } else {
        Err(serde::de::Error::custom(format!(
            "version {version} is not supported (this program reads version {STORE_VERSION})"
        )))
    }
}

impl TrustStore {
    /// Where the approvals file is by default: `$HOOKS_TRUST_FILE`, else
    /// `$XDG_CONFIG_HOME/agent-hooks/trust.json` (when absolute, as XDG asks), else
    /// `$HOME/.config/agent-hooks/trust.json`; `None` when none of these is set.
    pub fn default_path() -> Option<PathBuf> {
        hookrail_forward::locations::trust_file()
    }

    /// Reads an approvals file. A missing file is an empty store (saved to `path`); an
    /// unreadable, oversized (16 MiB) or invalid one is an error, with the line and column of
    /// what is wrong.
    pub fn load(path: &Path) -> Result<Self, TrustError> {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(TrustStore {
                    path: path.to_path_buf(),
                    approvals: Vec::new(),
                });
            }
            Err(source) => {
                return Err(TrustError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let bytes = read_open(file, path, MAX_STORE_BYTES)?;
        // serde would take a JSON array as a struct's fields in order: only an object is one.
        if let Some(at) = bytes.iter().position(|b| !b.is_ascii_whitespace())
            && bytes[at] != b'{'
        {
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            let column = at
                - bytes[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |nl| nl + 1)
                + 1;
            return Err(TrustError::Corrupt {
                path: path.to_path_buf(),
                line,
                column,
                message: "expected an object: {\"version\": 1, \"approvals\": [...]}".to_owned(),
            });
        }
        let parsed: StoreFile = serde_json::from_slice(&bytes).map_err(|e| {
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let message = e.to_string();
            TrustError::Corrupt {
                path: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
                message: message
                    .strip_suffix(&suffix)
                    .map_or_else(|| message.clone(), str::to_owned),
            }
        })?;
        Ok(TrustStore {
            path: path.to_path_buf(),
            approvals: parsed.approvals,
        })
    }

    /// The file this store was loaded from and is saved to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this exact fingerprint was approved, with every part of it that could not be
    /// hashed accepted.
    pub fn is_approved(&self, fp: &Fingerprint) -> bool {
        self.approval(fp).is_some()
    }

    /// The approval that admits this fingerprint, if any: to show whether it is partial.
    pub fn approval(&self, fp: &Fingerprint) -> Option<&Approval> {
        self.approvals.iter().find(|a| a.covers(fp))
    }

    /// An approval of this hash that does not accept all the fingerprint's unhashed parts
    /// (given before the scan reported them).
    pub(super) fn without_unhashed(&self, fp: &Fingerprint) -> Option<&Approval> {
        self.approvals
            .iter()
            .find(|a| a.hash == fp.hash && !a.covers(fp))
    }

    /// Approves a fingerprint unless it has [unhashed](Fingerprint::unhashed) parts and
    /// `on_unhashed` is [`OnUnhashed::Refuse`]: then nothing changes and the error lists
    /// them. Otherwise as [`approve`](TrustStore::approve).
    ///
    /// ```
    /// use hookrail_config::spec::{CommandHandler, CommandLine, Handler};
    /// use hookrail_config::trust::{fingerprint, OnUnhashed, TrustError, TrustStore};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let handler = Handler::Command(CommandHandler {
    ///     line: CommandLine::Shell("ls | xargs sh".into()),
    ///     env: Default::default(),
    ///     plugin_root: None,
    /// });
    /// let fp = fingerprint(&handler, dir.path())?;
    /// let mut store = TrustStore::load(&dir.path().join("trust.json"))?;
    /// let err = store.try_approve(&fp, None, OnUnhashed::Refuse).unwrap_err();
    /// assert!(matches!(err, TrustError::Unhashed { .. }));
    /// assert!(err.to_string().contains("unhashed: xargs sh: xargs appends the script from its input"), "{err}");
    /// let approval = store.try_approve(&fp, None, OnUnhashed::Accept)?;
    /// assert!(approval.is_partial());
    /// assert!(store.is_approved(&fp));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_approve(
        &mut self,
        fp: &Fingerprint,
        note: Option<String>,
        on_unhashed: OnUnhashed,
    ) -> Result<&Approval, TrustError> {
        if on_unhashed == OnUnhashed::Refuse && !fp.unhashed.is_empty() {
            return Err(TrustError::Unhashed {
                handler: fp.handler.clone(),
                parts: fp.unhashed.clone(),
            });
        }
        Ok(self.approve(fp, note))
    }

    /// Approves a fingerprint, now, replacing an earlier approval of the same one. Recorded:
    /// the hash, the handler text, the project, the scripts, the time, `note`, and the
    /// fingerprint's [unhashed](Fingerprint::unhashed) parts, which this accepts: a caller
    /// that must not approve those uses [`try_approve`](TrustStore::try_approve). Call
    /// [`save`](TrustStore::save) to keep it.
    pub fn approve(&mut self, fp: &Fingerprint, note: Option<String>) -> &Approval {
        self.approvals.retain(|a| a.hash != fp.hash);
        self.approvals.push(Approval {
            hash: fp.hash.clone(),
            handler: fp.handler.clone(),
            project: fp.project.clone(),
            scripts: fp.scripts.clone(),
            approved_at: rfc3339(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            ),
            note,
            unhashed: fp.unhashed.iter().map(ToString::to_string).collect(),
        });
        &self.approvals[self.approvals.len() - 1]
    }

    /// Withdraws the approval with this hash, returning it; `None` when there is none.
    pub fn revoke(&mut self, hash: &str) -> Option<Approval> {
        let at = self.approvals.iter().position(|a| a.hash == hash)?;
        Some(self.approvals.remove(at))
    }

    /// The approvals, oldest first.
    pub fn entries(&self) -> &[Approval] {
        &self.approvals
    }

    /// The latest approval of the same handler in the same project under another hash: what
    /// the handler was before its scripts (or plugin root) changed.
    pub(super) fn previous(&self, fp: &Fingerprint) -> Option<&Approval> {
        self.approvals
            .iter()
            .rev()
            .find(|a| a.handler == fp.handler && a.project == fp.project && a.hash != fp.hash)
    }

    /// Writes the store to its file, atomically: a new file in the same directory (mode 0600
    /// on Unix), flushed, then renamed over the old one, so a reader sees the old file or the
    /// new one, never a part. Creates missing parent directories; when the file is a symbolic
    /// link, its target is replaced.
    pub fn save(&self) -> Result<(), TrustError> {
        let fail = |source| TrustError::Write {
            path: self.path.clone(),
            source,
        };
        let mut text = serde_json::to_string_pretty(&StoreFileRef {
            version: STORE_VERSION,
            approvals: &self.approvals,
        })
        .map_err(|e| fail(io::Error::other(e)))?;
        text.push('\n');
        let target = fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let name = target.file_name().ok_or_else(|| {
            fail(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path names no file",
            ))
        })?;
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        fs::create_dir_all(dir).map_err(fail)?;
        static SAVES: AtomicU64 = AtomicU64::new(0);
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            SAVES.fetch_add(1, Ordering::Relaxed)
        ));
        let temp = dir.join(temp_name);
        let written = write_new(&temp, text.as_bytes()).and_then(|()| fs::rename(&temp, &target));
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(fail(e));
        }
        // Make the rename itself durable where the platform allows; the data is already safe.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Seconds since the Unix epoch as RFC 3339 UTC (the civil-from-days algorithm).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_path_prefers_the_variable_then_xdg_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let all = [
            ("HOOKS_TRUST_FILE", "/t/trust.json"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("HOME", "/home/me"),
        ];
        assert_eq!(
            hookrail_forward::locations::trust_file_from(env(&[
                ("HOOKS_TRUST_FILE", "/t/trust.json"),
                ("XDG_CONFIG_HOME", "/xdg"),
                ("HOME", "/home/me")
            ])),
            Some(PathBuf::from(all[0].1))
        );
        assert_eq!(
            hookrail_forward::locations::trust_file_from(env(&[
                ("HOOKS_TRUST_FILE", ""),
                ("XDG_CONFIG_HOME", "/xdg"),
                ("HOME", "/home/me")
            ])),
            Some(PathBuf::from("/xdg/agent-hooks/trust.json"))
        );
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        assert_eq!(
            hookrail_forward::locations::trust_file_from(env(&[
                ("XDG_CONFIG_HOME", "rel"),
                ("HOME", "/home/me")
            ])),
            Some(PathBuf::from("/home/me/.config/agent-hooks/trust.json"))
        );
        assert_eq!(hookrail_forward::locations::trust_file_from(env(&[])), None);
    }

    #[test]
    fn rfc3339_formats_utc_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339(4_102_444_800), "2100-01-01T00:00:00Z");
    }
}
