//! The paths git runs what they hold or name from (its hooks and configs), as written or
//! through a glob that could stand for one.

use super::env::is_pure_wildcard;

/// A git hook (`.git/hooks/…`, or the directory itself), a repository's config
/// (`.git/config`, `config.worktree`, a submodule's under `.git/modules/`) or the user's
/// (`~/.gitconfig`, `~/.config/git/config`): git runs what they hold or name
/// (`core.fsmonitor`, `core.hooksPath`, aliases) on a later git command. A bare repository's
/// (`x.git/hooks/`) counts too.
pub(super) fn git_runs_from(path: &str) -> bool {
    let path = path.trim_end_matches('/').to_ascii_lowercase();
    let in_modules = path.contains(".git/modules/");
    path.contains(".git/hooks/")
        || path.ends_with(".git/hooks")
        || path.ends_with(".git/config")
        || path.ends_with(".git/config.worktree")
        || (in_modules && (path.contains("/hooks/") || path.ends_with("/config")))
        // The user's own: every repository reads them.
        || path.ends_with("/.gitconfig")
        || path == ".gitconfig"
        || path.ends_with(".config/git/config")
}

/// The names of [`git_runs_from`]'s paths that a glob component may stand for.
const GIT_NAMES: &[&str] = &[
    ".git",
    "x.git",
    "hooks",
    "config",
    "config.worktree",
    "modules",
    ".gitconfig",
    ".config",
    "git",
];

/// Most readings of one path's globs; past it the path is read as a git path (closed).
const MAX_GIT_READINGS: usize = 256;

/// `path` with each glob component read as each of [`GIT_NAMES`] it could match, as the shell
/// matches names (a leading dot only by a pattern that starts with one, unless `dots`):
/// `.g*/hooks/pre-commit` is `.git/hooks/pre-commit`, `*/hooks/x` is one only with dot names
/// matched. A bare repository's name (`x.git`) is read for a pattern that could end with
/// `.git` and is not all wildcards (`repo.gi?`), so that `*/config` is no repository's
/// config. Empty without globs; past [`MAX_GIT_READINGS`], `.git/hooks/` (closed).
pub(super) fn git_glob_readings(path: &str, dots: bool) -> Vec<String> {
    let glob = |c: &str| c.contains(['*', '?', '[']);
    if !glob(path) {
        return Vec::new();
    }
    let mut readings = vec![String::new()];
    for (i, component) in path.split('/').enumerate() {
        let mut names = vec![component];
        if glob(component) {
            let pattern = component.to_ascii_lowercase();
            names.extend(GIT_NAMES.iter().copied().filter(|name| {
                (dots || !name.starts_with('.') || pattern.starts_with(['.', '[']))
                    && if *name == "x.git" {
                        !is_pure_wildcard(&pattern) && could_end_with(&pattern, ".git")
                    } else {
                        crate::shell::globbing::name_matches(&pattern, name)
                    }
            }));
        }
        if readings.len() * names.len() > MAX_GIT_READINGS {
            return vec![".git/hooks/".to_owned()];
        }
        readings = (readings.iter())
            .flat_map(|r| {
                let sep = if i == 0 { "" } else { "/" };
                names.iter().map(move |n| format!("{r}{sep}{n}"))
            })
            .collect();
    }
    readings
}

/// Whether the glob component `pattern` (`*`, `?`; a bracket class matches anything) could
/// match a name that ends with `suffix` and has more before it: `repo.gi?` and `r*` could
/// name a bare repository (`x.git`); `?git` could not (it is at most `.git` itself).
fn could_end_with(pattern: &str, suffix: &str) -> bool {
    if pattern.contains('[') {
        return true;
    }
    // Read from the end: the pattern must take the whole suffix, and what is left of it at
    // least one more character.
    let (p, s): (Vec<char>, Vec<char>) = (
        pattern.chars().rev().collect(),
        suffix.chars().rev().collect(),
    );
    let mut states = vec![(0usize, 0usize)];
    let mut seen = std::collections::HashSet::new();
    while let Some((i, j)) = states.pop() {
        if j == s.len() {
            if i < p.len() {
                return true;
            }
            continue;
        }
        if i == p.len() || !seen.insert((i, j)) {
            continue;
        }
        match p[i] {
            '*' => states.extend([(i + 1, j), (i, j + 1)]),
            '?' => states.push((i + 1, j + 1)),
            c if c == s[j] => states.push((i + 1, j + 1)),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_is_read_as_each_git_name_it_could_match() {
        let hits = |path: &str, dots: bool| {
            (git_glob_readings(path, dots).iter()).any(|r| git_runs_from(r))
        };
        for path in [
            ".g*/hooks/pre-commit",
            ".git/hook?/x",
            ".git/*/x",
            ".git/conf*",
            "~/.gitconf*",
            "repo.gi?/hooks/post-update",
            "r*/hooks/x",
            "a/.git/modules/*/hooks/x",
            ".[g]it/hooks/x",
            ".git/[h]ooks/x",
        ] {
            assert!(hits(path, false), "{path}");
        }
        for path in [
            "*/hooks/x",
            "?git/config",
            "*/config",
            "build/*/config",
            "tools/*/hooks/x",
            ".claude/[s]ettings.json",
        ] {
            assert!(!hits(path, false), "{path}");
        }
        // With dot names matched, `*` and `?git` reach the repository.
        assert!(hits("*/hooks/x", true));
        assert!(hits("?git/config", true));
        assert!(git_glob_readings("plain/path", true).is_empty());
        // Past the bound, read as a git path (closed).
        assert!(hits("*/*/*/*/*/*/*/*", false));
    }

    #[test]
    fn a_pattern_could_end_with_a_suffix_when_its_tail_can_take_it() {
        assert!(could_end_with("repo.gi?", ".git"));
        assert!(could_end_with("r*", ".git"));
        assert!(could_end_with("*t", ".git"));
        assert!(could_end_with("[ab]", ".git"));
        assert!(!could_end_with("repo.gix", ".git"));
        assert!(!could_end_with("*.gif", ".git"));
        assert!(!could_end_with("??", ".git"));
        assert!(!could_end_with("?git", ".git"));
        assert!(!could_end_with(".git", ".git"));
    }
}
