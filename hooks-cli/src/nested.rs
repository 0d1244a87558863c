//! Recursion protection for `hooks claude`, which never switches a guard off.
//!
//! `hooks claude` runs configured scripts, and a script may run `hooks claude` again: a
//! settings file listing `hooks claude --settings <itself>` would recurse forever. So every
//! script `hooks claude` runs gets [`NESTED_ENV`] in its environment, saying what its
//! ancestors are already running:
//!
//! ```text
//! AGENT_HOOKS_CLAUDE_NESTED=1:<depth>:<key>,<key>,…
//! ```
//!
//! `1` is the format's version, `<depth>` how many `hooks claude` are running above the
//! script (1 for a script of the outermost one), and each `<key>` (32 lowercase hex digits)
//! the first 128 bits of SHA-256 over the event's identity (its `session_id`, its point and
//! its `tool_use_id` when it has one) and the canonical path of one config file whose scripts
//! an ancestor runs for that event.
//!
//! A nested `hooks claude`:
//!
//! - **always runs the compiled and builtin policies.** Nesting never switches them off.
//! - **skips the scripts of a config file an ancestor is already running for the same event**
//!   (its key is in the list): that is true recursion, and running them again would only
//!   recurse again. Everything skipped is said on stderr and in the answer (`systemMessage`).
//!   A nested agent session (another `session_id`) or another event runs everything.
//! - **past [`MAX_DEPTH`]** (a pathological chain: each level a different event or file),
//!   blocks at a point that can block (exit 2) and runs no script elsewhere.
//!
//! A value that does not parse (empty, garbage, another version, a bad key) skips nothing: it
//! is reported, and counts as its depth when that part reads, else as one level of nesting. A forged value can only name keys; a key
//! only skips the scripts of a file for the event it was computed for, and never a compiled
//! or builtin policy. A forged depth can only make the answer stricter.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use hookrail_config::file::LoadedConfig;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The environment variable that carries what the ancestors are running (`hooks-forward`
/// reads it too: a nested run is handed to `hooks claude`).
pub use hookrail_forward::NESTED_ENV;

/// The deepest nesting that still runs: a `hooks claude` with more ancestors than this blocks
/// at guard points and runs no script elsewhere.
pub const MAX_DEPTH: u32 = 8;

/// The version field of the value.
const VERSION: &str = "1";
/// The most keys a value may carry (more is unparseable: it skips nothing).
const MAX_KEYS: usize = 1024;
/// Hex digits per key.
const KEY_LEN: usize = 32;

/// What the ancestors of this process are running, read from [`NESTED_ENV`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ancestry {
    /// How many `hooks claude` run above this one (0: not nested).
    pub depth: u32,
    /// The keys of what they run.
    keys: BTreeSet<String>,
    /// Why the value was not understood, when it was not.
    pub unreadable: Option<String>,
}

/// Which event a key is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventId {
    session_id: String,
    point: &'static str,
    tool_use_id: String,
}

impl EventId {
    /// The identity of `payload`, fired at `point`.
    pub fn of(point: &'static str, payload: &Value) -> Self {
        let text = |field: &str| {
            payload
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        EventId {
            session_id: text("session_id"),
            point,
            tool_use_id: text("tool_use_id"),
        }
    }

    /// The key of this event and the config file `file`.
    pub fn key(&self, file: &Path) -> String {
        let mut hash = Sha256::new();
        for part in [
            "hooks-claude-nested/1".as_bytes(),
            self.session_id.as_bytes(),
            self.point.as_bytes(),
            self.tool_use_id.as_bytes(),
            canonical(file).as_os_str().as_encoded_bytes(),
        ] {
            // Length-prefixed, so that no two different tuples hash the same bytes.
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        hash.finalize()[..KEY_LEN / 2]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

fn canonical(file: &Path) -> PathBuf {
    std::fs::canonicalize(file).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|dir| dir.join(file))
            .unwrap_or_else(|_| file.to_path_buf())
    })
}

impl Ancestry {
    /// Reads [`NESTED_ENV`] from this process's environment.
    pub fn from_env() -> Self {
        Self::parse(std::env::var_os(NESTED_ENV).as_deref())
    }

    /// Reads a value of [`NESTED_ENV`] (`None`: unset).
    pub fn parse(value: Option<&OsStr>) -> Self {
        let Some(value) = value else {
            return Ancestry::default();
        };
        let Some(value) = value.to_str() else {
            return Ancestry::unreadable(1, "not UTF-8");
        };
        match read(value) {
            Ok((depth, keys)) => Ancestry {
                depth,
                keys,
                unreadable: None,
            },
            // Keys that do not parse skip nothing, but a readable depth still counts, so that
            // a chain whose hooks garble the keys still ends at the cap.
            Err(why) => Ancestry::unreadable(depth_of(value).unwrap_or(1), why),
        }
    }

    fn unreadable(depth: u32, why: &str) -> Self {
        Ancestry {
            depth,
            keys: BTreeSet::new(),
            unreadable: Some(format!(
                "{NESTED_ENV} is set but not understood ({why}); skipping no hook"
            )),
        }
    }

    /// This process's own depth (1 for the outermost `hooks claude`).
    pub fn own_depth(&self) -> u32 {
        self.depth.saturating_add(1)
    }

    /// Whether this process is nested deeper than [`MAX_DEPTH`].
    pub fn too_deep(&self) -> bool {
        self.depth > MAX_DEPTH
    }

    /// Takes out of `config` the hooks whose file an ancestor is already running for `event`,
    /// and returns them by file, plus the value of [`NESTED_ENV`] for the hooks that stay.
    pub fn skip_recursion(
        &self,
        config: &mut LoadedConfig,
        event: &EventId,
    ) -> (Vec<Skipped>, String) {
        let mut own = self.keys.clone();
        let mut skipped: Vec<Skipped> = Vec::new();
        let mut keys_of: Vec<(PathBuf, String)> = Vec::new();
        config.hooks.retain(|spec| {
            let file = spec.location.file.as_path();
            let key = match keys_of.iter().find(|(f, _)| f == file) {
                Some((_, key)) => key.clone(),
                None => {
                    let key = event.key(file);
                    keys_of.push((file.to_path_buf(), key.clone()));
                    key
                }
            };
            let running = self.keys.contains(&key);
            own.insert(key);
            if running {
                match skipped.iter_mut().find(|s| s.file == file) {
                    Some(s) => s.ids.push(spec.id.clone()),
                    None => skipped.push(Skipped {
                        file: file.to_path_buf(),
                        ids: vec![spec.id.clone()],
                    }),
                }
            }
            !running
        });
        let keys: Vec<String> = own.into_iter().collect();
        (
            skipped,
            format!("{VERSION}:{}:{}", self.own_depth(), keys.join(",")),
        )
    }
}

/// Hooks of one file left out because an ancestor runs them for the same event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The config file.
    pub file: PathBuf,
    /// The hooks' ids.
    pub ids: Vec<String>,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "skipped {} hook(s) of {} ({}): a `hooks claude` above this one already runs them for this event (recursion); the compiled and builtin policies ran",
            self.ids.len(),
            self.file.display(),
            self.ids.join(", ")
        )
    }
}

/// The depth of a value whose keys may not parse.
fn depth_of(value: &str) -> Option<u32> {
    let mut parts = value.splitn(3, ':');
    (parts.next()? == VERSION)
        .then(|| parts.next()?.parse().ok())
        .flatten()
        .filter(|d| *d > 0)
}

fn read(value: &str) -> Result<(u32, BTreeSet<String>), &'static str> {
    let mut parts = value.splitn(3, ':');
    let (Some(version), Some(depth), Some(keys)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err("not `1:<depth>:<keys>`");
    };
    if version != VERSION {
        return Err("unknown version");
    }
    let depth: u32 = depth.parse().map_err(|_| "the depth is not a number")?;
    if depth == 0 {
        return Err("a depth of 0");
    }
    let mut set = BTreeSet::new();
    for key in keys.split(',').filter(|k| !k.is_empty()) {
        let hex = key.len() == KEY_LEN
            && key
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !hex {
            return Err("a key is not 32 lowercase hex digits");
        }
        set.insert(key.to_owned());
        if set.len() > MAX_KEYS {
            return Err("too many keys");
        }
    }
    Ok((depth, set))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: &str) -> Ancestry {
        Ancestry::parse(Some(OsStr::new(value)))
    }

    #[test]
    fn unset_is_the_top_level() {
        let top = Ancestry::parse(None);
        assert_eq!((top.depth, top.own_depth(), top.too_deep()), (0, 1, false));
        assert!(top.unreadable.is_none());
    }

    #[test]
    fn what_does_not_parse_skips_nothing_and_says_so() {
        let k = "0".repeat(32);
        for value in [
            "",
            "1",
            "garbage",
            "2:1:",
            "1:x:",
            "1:0:",
            "1:1:ABC",
            &format!("1:1:{k}x"),
            "1:1",
        ] {
            let a = parse(value);
            assert!(a.keys.is_empty(), "{value:?}");
            assert_eq!(a.depth, 1, "{value:?}");
            assert!(a.unreadable.is_some(), "{value:?}");
        }
        let ok = parse(&format!("1:3:{k},{}", "a".repeat(32)));
        assert_eq!((ok.depth, ok.keys.len()), (3, 2));
        assert!(ok.unreadable.is_none());
        assert!(parse("1:9:").too_deep());
        // Keys that do not parse skip nothing, and the depth still counts.
        let garbled = parse("1:9:nonsense");
        assert!(garbled.keys.is_empty() && garbled.unreadable.is_some());
        assert!(garbled.too_deep());
        assert!(!parse("1:8:").too_deep());
    }

    #[test]
    fn keys_tell_events_and_files_apart() {
        let payload = json!({"session_id": "s", "tool_use_id": "t"});
        let pre = EventId::of("pre_tool_use", &payload);
        let file = Path::new("/nonexistent/settings.json");
        assert_eq!(pre.key(file), pre.key(file));
        assert_eq!(pre.key(file).len(), KEY_LEN);
        let other_session = EventId::of(
            "pre_tool_use",
            &json!({"session_id": "s2", "tool_use_id": "t"}),
        );
        let other_point = EventId::of("post_tool_use", &payload);
        let other_file = Path::new("/nonexistent/other.json");
        assert_ne!(pre.key(file), other_session.key(file));
        assert_ne!(pre.key(file), other_point.key(file));
        assert_ne!(pre.key(file), pre.key(other_file));
    }
}
