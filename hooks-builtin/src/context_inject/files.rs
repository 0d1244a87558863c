//! Reading a file for injection: size-capped, cut on a character boundary, lossy UTF-8; and
//! the `{agent}` placeholder, expanded so an agent name cannot leave its directory.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use super::Keep;

/// What reading a file gave.
#[derive(Debug)]
pub(super) enum Loaded {
    /// The text kept, and how many bytes of the file were left out.
    Text { text: String, truncated: u64 },
    /// There is no such file.
    Missing,
    /// The path is a directory, a FIFO, a device…: it is not read.
    NotAFile,
}

/// Reads at most `limit` bytes of the file at `path`: its start or its end (`keep`), cut so
/// that no UTF-8 character is split. Invalid UTF-8 is read lossily (U+FFFD).
pub(super) fn load(path: &Path, limit: usize, keep: Keep) -> io::Result<Loaded> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::Missing),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    // A FIFO or a device (`/dev/zero`) could block or never end.
    if !meta.is_file() {
        return Ok(Loaded::NotAFile);
    }
    let len = meta.len();
    let limit64 = u64::try_from(limit).unwrap_or(u64::MAX);
    match keep {
        Keep::Start => {
            // One byte more than the limit tells whether the cut splits a character.
            let mut buf = Vec::new();
            file.take(limit64.saturating_add(1)).read_to_end(&mut buf)?;
            if buf.len() <= limit {
                return Ok(text(&buf, 0));
            }
            // When the first byte left out continues a character, cut before that character's
            // lead byte; stray continuation bytes (invalid UTF-8) are cut where the limit says.
            let mut cut = limit;
            let mut lead = limit;
            while lead > 0 && limit - lead < 3 && is_continuation(buf[lead]) {
                lead -= 1;
            }
            if lead < limit && buf[lead] >= 0xC0 {
                cut = lead;
            }
            let kept = u64::try_from(cut).unwrap_or(u64::MAX);
            let total = len.max(u64::try_from(buf.len()).unwrap_or(u64::MAX));
            Ok(text(&buf[..cut], total - kept))
        }
        Keep::End => {
            let skip = len.saturating_sub(limit64);
            file.seek(SeekFrom::Start(skip))?;
            let mut buf = Vec::new();
            file.take(limit64).read_to_end(&mut buf)?;
            let mut start = 0;
            if skip > 0 {
                while start < buf.len().min(3) && is_continuation(buf[start]) {
                    start += 1;
                }
            }
            let dropped = u64::try_from(start).unwrap_or(u64::MAX);
            Ok(text(&buf[start..], skip + dropped))
        }
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0b1100_0000 == 0b1000_0000
}

fn text(bytes: &[u8], truncated: u64) -> Loaded {
    Loaded::Text {
        text: String::from_utf8_lossy(bytes).into_owned(),
        truncated,
    }
}

/// Longest agent name used in a path, in bytes.
const MAX_AGENT_BYTES: usize = 64;

/// `agent` as one safe path component: ASCII letters, digits, `_`, `-` and `.` are kept,
/// anything else (`/`, `\`, NUL, spaces, non-ASCII) becomes `_`, leading dots become `_` (so
/// `..` and hidden names are impossible), an empty name is `_`, and it is at most 64 bytes.
///
/// ```
/// # use hookrail_builtin::context_inject::sanitize_agent;
/// assert_eq!(sanitize_agent("coder"), "coder");
/// assert_eq!(sanitize_agent("../secrets"), "___secrets");
/// assert_eq!(sanitize_agent(".."), "__");
/// ```
pub fn sanitize_agent(agent: &str) -> String {
    let mut out: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(MAX_AGENT_BYTES)
        .collect();
    let dots = out.len() - out.trim_start_matches('.').len();
    out.replace_range(..dots, &"_".repeat(dots));
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// `template` with every `{agent}` replaced by the sanitized `agent`.
pub(super) fn expand(template: &str, agent: &str) -> String {
    if template.contains(super::AGENT_PLACEHOLDER) {
        template.replace(super::AGENT_PLACEHOLDER, &sanitize_agent(agent))
    } else {
        template.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn loaded(path: &Path, limit: usize, keep: Keep) -> (String, u64) {
        match load(path, limit, keep).unwrap() {
            Loaded::Text { text, truncated } => (text, truncated),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_file_under_the_limit_is_read_whole() {
        let (_d, p) = file("héllo".as_bytes());
        assert_eq!(loaded(&p, 100, Keep::Start), ("héllo".into(), 0));
        assert_eq!(loaded(&p, 6, Keep::End), ("héllo".into(), 0));
    }

    #[test]
    fn the_start_is_cut_before_a_character_the_limit_would_split() {
        // "aé€" is 1 + 2 + 3 bytes; a limit of 4 falls inside the euro sign.
        let (_d, p) = file("aé€z".as_bytes());
        assert_eq!(loaded(&p, 4, Keep::Start), ("aé".into(), 4));
        assert_eq!(loaded(&p, 2, Keep::Start), ("a".into(), 6));
        assert_eq!(loaded(&p, 6, Keep::Start), ("aé€".into(), 1));
    }

    #[test]
    fn the_end_is_cut_after_a_character_the_limit_would_split() {
        let (_d, p) = file("aé€z".as_bytes());
        assert_eq!(loaded(&p, 3, Keep::End), ("z".into(), 6));
        assert_eq!(loaded(&p, 4, Keep::End), ("€z".into(), 3));
    }

    #[test]
    fn invalid_utf8_is_read_lossily_and_still_capped() {
        let (_d, p) = file(&[b'o', b'k', 0xff, 0xfe, b'!', 0x80, 0x80, 0x80, 0x80]);
        let (t, n) = loaded(&p, 5, Keep::Start);
        assert_eq!(t, "ok\u{FFFD}\u{FFFD}!");
        assert_eq!(n, 4);
        let (t, n) = loaded(&p, 100, Keep::Start);
        assert!(t.starts_with("ok"));
        assert_eq!(n, 0);
    }

    #[test]
    fn missing_files_and_directories_are_reported_as_such() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            load(&dir.path().join("nope"), 10, Keep::Start).unwrap(),
            Loaded::Missing
        ));
        assert!(matches!(
            load(dir.path(), 10, Keep::Start).unwrap(),
            Loaded::NotAFile
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_not_read() {
        let p = Path::new("/dev/zero");
        if p.exists() {
            assert!(matches!(
                load(p, 10, Keep::Start).unwrap(),
                Loaded::NotAFile
            ));
        }
    }

    #[test]
    fn agent_names_cannot_leave_their_directory() {
        for evil in [
            "..",
            "../..",
            "../x",
            "a/../../b",
            "/etc/passwd",
            "..\\..\\win",
            "",
            ".",
            ".hidden",
            "a\0b",
        ] {
            let s = sanitize_agent(evil);
            assert!(
                !s.contains('/') && !s.contains('\\') && !s.contains('\0'),
                "{evil:?} -> {s:?}"
            );
            assert!(!s.starts_with('.') && !s.is_empty(), "{evil:?} -> {s:?}");
        }
        assert_eq!(sanitize_agent("reviewer-2.b"), "reviewer-2.b");
        assert_eq!(sanitize_agent("dé jà"), "d__j_");
        assert_eq!(sanitize_agent(&"x".repeat(500)).len(), MAX_AGENT_BYTES);
    }

    #[test]
    fn expand_replaces_every_agent_placeholder() {
        assert_eq!(
            expand(".agents/{agent}/history.md", "../x"),
            ".agents/___x/history.md"
        );
        assert_eq!(expand("{agent}-{agent}.md", "a"), "a-a.md");
        assert_eq!(expand("notes.md", "a"), "notes.md");
    }
}
