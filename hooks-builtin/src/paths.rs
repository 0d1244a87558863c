//! Paths as the operating system will see them: `~` expanded, relative paths joined to the
//! working directory, `.` and `..` removed, and symlinks followed, so a policy matches the file
//! a tool will really touch and not the text it was given (`src/../.env`, a link that leaves the
//! project).

use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one path may pass through before it is refused (Linux's `MAXSYMLINKS`).
const MAX_LINKS: u32 = 40;

/// A path could not be resolved. Guards deny such paths.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path passes through more than 40 symlinks (a loop, most likely).
    #[error("`{0}` passes through too many symlinks")]
    TooManyLinks(PathBuf),
    /// `~user/...` names another user's home directory, which is not looked up.
    #[error("`{0}`: `~user` paths are not supported")]
    OtherUsersHome(String),
    /// `~` was used and there is no home directory.
    #[error("`{0}`: there is no home directory to expand `~` to")]
    NoHome(String),
    /// A symlink on the way could not be read.
    #[error("`{path}`: {source}")]
    Io {
        /// The link that could not be read.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// The current user's home directory (`$HOME` on Unix).
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|h| h.is_absolute())
}

/// Resolves `raw` the way the OS would when a tool running in `cwd` opens it.
///
/// `~` and `~/…` expand to `home`; a relative path is joined to `cwd`; then the components are
/// walked in order: `.` is dropped, `..` goes up from the directory reached so far (after the
/// symlinks before it were followed, as the kernel does), and every component that exists and
/// is a symlink is replaced by its target. Components that do not exist yet (a file about to be
/// written) are kept as written. `cwd` should be absolute; it is resolved too.
///
/// ```
/// use std::path::Path;
/// use hooks_builtin::paths::resolve;
///
/// let p = resolve("src/../.env", Path::new("/nonexistent/project"), None)?;
/// assert_eq!(p, Path::new("/nonexistent/project/.env"));
///
/// let home = Path::new("/nonexistent/home/me");
/// let p = resolve("~/.ssh/id_ed25519", Path::new("/"), Some(home))?;
/// assert_eq!(p, home.join(".ssh/id_ed25519"));
/// # Ok::<(), hooks_builtin::paths::PathError>(())
/// ```
pub fn resolve(raw: &str, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, PathError> {
    let expanded = expand_home(raw, home)?;
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    let mut hops = 0;
    walk(PathBuf::new(), &joined, &mut hops)
}

/// `~` → `home`, `~/x` → `home/x`; other paths unchanged.
fn expand_home(raw: &str, home: Option<&Path>) -> Result<PathBuf, PathError> {
    let Some(rest) = raw.strip_prefix('~') else {
        return Ok(PathBuf::from(raw));
    };
    let rest = match rest.strip_prefix('/') {
        Some(rest) => rest,
        None if rest.is_empty() => "",
        None => return Err(PathError::OtherUsersHome(raw.to_owned())),
    };
    let home = home.ok_or_else(|| PathError::NoHome(raw.to_owned()))?;
    Ok(home.join(rest))
}

/// Appends `path`'s components to the resolved directory `base`, following symlinks.
fn walk(mut out: PathBuf, path: &Path, hops: &mut u32) -> Result<PathBuf, PathError> {
    // Once a component does not exist, nothing below it can be a symlink.
    let mut on_disk = true;
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => {
                out = PathBuf::from(comp.as_os_str());
                on_disk = true;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if !on_disk {
                    continue;
                }
                match std::fs::symlink_metadata(&out) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *hops += 1;
                        if *hops > MAX_LINKS {
                            return Err(PathError::TooManyLinks(path.to_owned()));
                        }
                        let target = std::fs::read_link(&out).map_err(|source| PathError::Io {
                            path: out.clone(),
                            source,
                        })?;
                        out.pop();
                        // An absolute target restarts at the root (its RootDir component).
                        out = walk(out, &target, hops)?;
                    }
                    Ok(_) => {}
                    Err(_) => on_disk = false,
                }
            }
        }
    }
    Ok(out)
}

/// `path` relative to `root`, if it is inside it (`root` itself gives an empty path).
pub fn inside<'a>(path: &'a Path, root: &Path) -> Option<&'a Path> {
    path.strip_prefix(root).ok()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn dot_dot_and_dot_are_removed() {
        let p = resolve("./a/b/../../c/./d", Path::new("/x/y"), None).unwrap();
        assert_eq!(p, Path::new("/x/y/c/d"));
        let p = resolve("../../../../etc/passwd", Path::new("/x/y"), None).unwrap();
        assert_eq!(p, Path::new("/etc/passwd"));
    }

    #[test]
    fn absolute_paths_ignore_cwd() {
        let p = resolve("/etc/hosts", Path::new("/x"), None).unwrap();
        assert_eq!(p, Path::new("/etc/hosts"));
    }

    #[test]
    fn home_forms() {
        let home = Path::new("/h");
        assert_eq!(resolve("~", Path::new("/"), Some(home)).unwrap(), home);
        assert!(matches!(
            resolve("~root/x", Path::new("/"), Some(home)),
            Err(PathError::OtherUsersHome(_))
        ));
        assert!(matches!(
            resolve("~/x", Path::new("/"), None),
            Err(PathError::NoHome(_))
        ));
        // Only a leading `~` is special, as in the shell.
        let p = resolve("a/~/b", Path::new("/r"), Some(home)).unwrap();
        assert_eq!(p, Path::new("/r/a/~/b"));
    }

    #[test]
    fn a_symlink_that_leaves_the_root_is_followed() {
        let (_d1, root) = tmp();
        let (_d2, outside) = tmp();
        symlink(&outside, root.join("escape")).unwrap();
        let p = resolve("escape/secret.txt", &root, None).unwrap();
        assert_eq!(p, outside.join("secret.txt"));
        assert!(inside(&p, &root).is_none());
    }

    #[test]
    fn dot_dot_after_a_symlink_goes_up_from_its_target() {
        let (_d1, root) = tmp();
        let (_d2, outside) = tmp();
        std::fs::create_dir(outside.join("deep")).unwrap();
        symlink(outside.join("deep"), root.join("link")).unwrap();
        // Lexically this is `root/x`; the kernel goes to `outside/x`.
        let p = resolve("link/../x", &root, None).unwrap();
        assert_eq!(p, outside.join("x"));
    }

    #[test]
    fn dangling_and_relative_links_resolve_to_where_a_write_lands() {
        let (_d1, root) = tmp();
        std::fs::create_dir(root.join("sub")).unwrap();
        symlink("../target.txt", root.join("sub/rel")).unwrap();
        let p = resolve("sub/rel", &root, None).unwrap();
        assert_eq!(p, root.join("target.txt"));
    }

    #[test]
    fn symlink_loops_are_refused() {
        let (_d, root) = tmp();
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        assert!(matches!(
            resolve("a/x", &root, None),
            Err(PathError::TooManyLinks(_))
        ));
    }
}
