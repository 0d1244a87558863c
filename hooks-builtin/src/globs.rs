//! Path globs as the path guards take them from a configuration: a relative glob (`src/**`)
//! matches the path relative to the project root, an absolute one (`/etc/**`, `~/.ssh/*`) the
//! absolute path, and each remembers its place in the configured list, so that the glob a
//! reason names is the first one configured that matches.

use std::path::{Component, Path};

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::ConfigError;
use crate::paths::resolve;

/// A compiled list of path globs.
#[derive(Debug, Clone)]
pub(crate) struct PathGlobs {
    relative: GlobSet,
    /// The configured index of each glob of `relative`.
    relative_idx: Vec<usize>,
    absolute: GlobSet,
    /// The configured index of each glob of `absolute`.
    absolute_idx: Vec<usize>,
}

impl PathGlobs {
    /// The list `field` of `policy`'s configuration, compiled (`*` and `?` do not cross `/`).
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming `field[i]` for the first glob that is empty, has a NUL byte, a
    /// relative one with `..`, an absolute one whose directories cannot be resolved, or one
    /// that does not compile.
    pub(crate) fn compile(
        policy: &'static str,
        field: &'static str,
        patterns: &[String],
        case_insensitive: bool,
        home: Option<&Path>,
    ) -> Result<PathGlobs, ConfigError> {
        let mut relative = GlobSetBuilder::new();
        let mut absolute = GlobSetBuilder::new();
        let (mut relative_idx, mut absolute_idx) = (Vec::new(), Vec::new());
        for (i, pattern) in patterns.iter().enumerate() {
            let err = |msg: String| ConfigError::new(policy, format!("{field}[{i}]"), msg);
            let (text, is_absolute) = prepare(pattern, home).map_err(err)?;
            let glob = GlobBuilder::new(&text)
                .literal_separator(true)
                .case_insensitive(case_insensitive)
                .build()
                .map_err(|e| err(e.kind().to_string()))?;
            if is_absolute {
                absolute.add(glob);
                absolute_idx.push(i);
            } else {
                relative.add(glob);
                relative_idx.push(i);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build()
                .map_err(|e| ConfigError::new(policy, field, e.to_string()))
        };
        Ok(PathGlobs {
            relative: build(relative)?,
            relative_idx,
            absolute: build(absolute)?,
            absolute_idx,
        })
    }

    /// Relative globs only, each with its index in the list it came from.
    #[cfg(feature = "secrets-guard")]
    pub(crate) fn relative(relative: GlobSet, relative_idx: Vec<usize>) -> PathGlobs {
        PathGlobs {
            relative,
            relative_idx,
            absolute: GlobSet::empty(),
            absolute_idx: Vec::new(),
        }
    }

    /// The index of the first glob matching: a relative one matching `rel` (when given), or
    /// an absolute one matching `abs`.
    pub(crate) fn first(&self, rel: Option<&Candidate<'_>>, abs: &Candidate<'_>) -> Option<usize> {
        let r = rel.and_then(|rel| first_in(&self.relative, &self.relative_idx, rel));
        let a = self.first_absolute(abs);
        match (r, a) {
            (Some(r), Some(a)) => Some(r.min(a)),
            (r, a) => r.or(a),
        }
    }

    /// The index of the first absolute glob matching `abs`.
    pub(crate) fn first_absolute(&self, abs: &Candidate<'_>) -> Option<usize> {
        first_in(&self.absolute, &self.absolute_idx, abs)
    }
}

/// The configured index of the first glob of `set` matching `path`.
fn first_in(set: &GlobSet, idx: &[usize], path: &Candidate<'_>) -> Option<usize> {
    if set.is_empty() || !set.is_match_candidate(path) {
        return None;
    }
    set.matches_candidate(path)
        .into_iter()
        .filter_map(|m| idx.get(m).copied())
        .min()
}

/// `abs` without its root (`/a/b` → `a/b`): what a relative glob matches outside the root.
pub(crate) fn strip_root(abs: &Path) -> &Path {
    let mut comps = abs.components();
    while matches!(
        comps.clone().next(),
        Some(Component::RootDir | Component::Prefix(_))
    ) {
        comps.next();
    }
    comps.as_path()
}

/// A configured glob as text to compile, and whether it is absolute (`/…`, `~/…`; the literal
/// directories before its first wildcard are resolved, so it matches resolved paths).
fn prepare(pattern: &str, home: Option<&Path>) -> Result<(String, bool), String> {
    if pattern.is_empty() {
        return Err("empty glob".to_owned());
    }
    if pattern.contains('\0') {
        return Err("glob contains a NUL byte".to_owned());
    }
    let is_absolute = pattern.starts_with('~') || Path::new(pattern).is_absolute();
    if !is_absolute {
        let text = pattern.trim_start_matches("./");
        if Path::new(text)
            .components()
            .any(|c| matches!(c, Component::ParentDir))
        {
            return Err(format!(
                "`{pattern}`: relative globs may not contain `..`; use an absolute glob (`/…` \
                 or `~/…`) for a place outside the project root"
            ));
        }
        if text.is_empty() {
            return Err(format!("`{pattern}` names no path"));
        }
        return Ok((text.to_owned(), false));
    }
    // Resolve the directories before the first wildcard, so the glob matches resolved paths.
    let meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
    let literal_end = match pattern.find(meta) {
        Some(at) => pattern[..at].rfind('/').unwrap_or(0),
        None => pattern.len(),
    };
    let (literal, rest) = pattern.split_at(literal_end);
    let literal = if literal.is_empty() { "/" } else { literal };
    let resolved = resolve(literal, Path::new("/"), home).map_err(|e| e.to_string())?;
    let resolved = resolved
        .to_str()
        .ok_or_else(|| format!("`{pattern}` expands to a path that is not UTF-8"))?;
    let mut text = globset::escape(resolved);
    let rest = rest.trim_start_matches('/');
    if !rest.is_empty() {
        if !text.ends_with('/') {
            text.push('/');
        }
        text.push_str(rest);
    }
    Ok((text, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_resolves_only_the_literal_prefix_of_absolute_globs() {
        let home = Path::new("/nonexistent/h[1]");
        assert_eq!(
            prepare("~/a/*.md", Some(home)).unwrap(),
            ("/nonexistent/h[[]1[]]/a/*.md".to_owned(), true)
        );
        assert_eq!(prepare("/x/y", None).unwrap(), ("/x/y".to_owned(), true));
        assert_eq!(prepare("/**", None).unwrap(), ("/**".to_owned(), true));
        assert_eq!(
            prepare("./src/**", None).unwrap(),
            ("src/**".to_owned(), false)
        );
    }

    #[test]
    fn relative_globs_with_dot_dot_or_nothing_and_empty_or_nul_globs_are_refused() {
        for bad in ["../x", "src/../../x", "./", "", "a\0b"] {
            assert!(prepare(bad, None).is_err(), "{bad:?}");
        }
        let err = PathGlobs::compile(
            "write_guard",
            "deny",
            &["ok/**".into(), "../x".into()],
            false,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("deny[1]") && err.contains("may not contain `..`"),
            "{err}"
        );
    }

    #[test]
    fn the_first_configured_glob_that_matches_is_the_one_named() {
        let globs = PathGlobs::compile(
            "write_guard",
            "deny",
            &["/etc/**".into(), "src/*.rs".into(), "src/**".into()],
            false,
            None,
        )
        .unwrap();
        let (rel, abs) = (Path::new("src/a.rs"), Path::new("/p/src/a.rs"));
        assert_eq!(
            globs.first(Some(&Candidate::new(rel)), &Candidate::new(abs)),
            Some(1)
        );
        assert_eq!(globs.first(None, &Candidate::new(abs)), None);
        let etc = Path::new("/etc/passwd");
        assert_eq!(
            globs.first(Some(&Candidate::new(strip_root(etc))), &Candidate::new(etc)),
            Some(0)
        );
        assert_eq!(globs.first_absolute(&Candidate::new(etc)), Some(0));
        assert_eq!(strip_root(Path::new("/a/b")), Path::new("a/b"));
    }
}
