//! How a word reads once the shell expands it: `$HOME` and `$PWD`, braces, and wildcards
//! against the directory (extglob groups are `shell::globbing`'s).

use std::path::{Component, Path, PathBuf};

use super::super::rules::{self, GlobCache, GlobUse};

/// Most words one brace expansion yields.
pub(super) const MAX_BRACE_WORDS: usize = 64;
/// Most paths one wildcard expands to.
const MAX_GLOB_MATCHES: usize = 256;
/// Most directory entries read per wildcard component and directory.
const MAX_DIR_ENTRIES: usize = 4096;

/// A leading `$HOME`/`${HOME}` becomes `~`; `$PWD`/`${PWD}`/`$(pwd)`/`` `pwd` ``/`~+`, and
/// the process's own working directory in `/proc` (`/proc/self/cwd`), become `.`; its root
/// there (`/proc/self/root/etc`) becomes `/`.
pub(super) fn substitute(word: &str) -> String {
    const HOME: [&str; 2] = ["${HOME}", "$HOME"];
    const PWD: [&str; 9] = [
        "${PWD}",
        "$PWD",
        "$(pwd)",
        "`pwd`",
        "~+",
        "/proc/self/cwd",
        "/proc/thread-self/cwd",
        "/proc/$$/cwd",
        "/proc/$BASHPID/cwd",
    ];
    const ROOT: [&str; 4] = [
        "/proc/self/root",
        "/proc/thread-self/root",
        "/proc/$$/root",
        "/proc/$BASHPID/root",
    ];
    let replace = |vars: &[&str], with: &str| {
        vars.iter().find_map(|v| {
            let rest = word.strip_prefix(v)?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{with}{rest}"))
        })
    };
    replace(&HOME, "~")
        .or_else(|| replace(&PWD, "."))
        .or_else(|| replace(&ROOT, "/"))
        .unwrap_or_else(|| word.to_owned())
}

/// Bash brace expansion of `a{b,c}d` (nested, at most [`MAX_BRACE_WORDS`] words); a word
/// without a `{…,…}` group is returned as it is.
pub(super) fn expand_braces(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into(word, &mut out);
    if out.is_empty() {
        out.push(word.to_owned());
    }
    out
}

fn expand_into(word: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_BRACE_WORDS {
        return;
    }
    let Some((open, close, commas)) = first_group(word) else {
        out.push(word.to_owned());
        return;
    };
    let (prefix, suffix) = (&word[..open], &word[close + 1..]);
    let mut start = open + 1;
    for end in commas.into_iter().chain(std::iter::once(close)) {
        let alt = &word[start..end];
        expand_into(&format!("{prefix}{alt}{suffix}"), out);
        start = end + 1;
    }
}

/// The first `{…}` group with a top-level comma: its braces' and commas' byte offsets.
fn first_group(word: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = word.as_bytes();
    let mut from = 0;
    while let Some(at) = word[from..].find('{') {
        let open = from + at;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if !commas.is_empty() {
                            return Some((open, i, commas));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        from = open + 1;
    }
    None
}

pub(super) fn has_wildcard(word: &str) -> bool {
    word.contains(['*', '?', '['])
}

/// The existing paths a word with wildcards expands to, as the shell would: a component
/// that does not start with `.` matches no dot names unless the line makes globs match them
/// (`dots`: `shopt -s dotglob`, [`shell::globbing::dot_names`]).
pub(super) fn expand_glob(
    word: &str,
    base: &Path,
    home: Option<&Path>,
    globs: &GlobCache,
    dots: bool,
) -> Vec<PathBuf> {
    let path = rules::lexical(word, base, home);
    let mut frontier = vec![PathBuf::new()];
    for comp in path.components() {
        let name = match comp {
            Component::Normal(name) => name,
            other => {
                frontier.iter_mut().for_each(|f| f.push(other.as_os_str()));
                continue;
            }
        };
        let Some(pattern) = name.to_str().filter(|n| has_wildcard(n)) else {
            frontier.iter_mut().for_each(|f| f.push(name));
            continue;
        };
        // A pattern the matcher cannot read, or whose POSIX classes it does not know
        // (`[[:punct:]]*`), matches every name (closed).
        let matcher = (!pattern.contains("[:"))
            .then(|| globs.get(pattern, GlobUse::Word).ok())
            .flatten();
        let dotfiles = dots || pattern.starts_with('.');
        let mut next = Vec::new();
        'dirs: for dir in &frontier {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.take(MAX_DIR_ENTRIES).flatten() {
                let file = entry.file_name();
                if !dotfiles && file.as_encoded_bytes().first() == Some(&b'.') {
                    continue;
                }
                if matcher
                    .as_ref()
                    .is_none_or(|m| m.is_match(Path::new(&file)))
                {
                    next.push(dir.join(&file));
                    if next.len() >= MAX_GLOB_MATCHES {
                        break 'dirs;
                    }
                }
            }
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    frontier
}
