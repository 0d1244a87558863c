//! Paths as the operating system will see them: `~` expanded, relative paths joined to the
//! working directory, `.` and `..` removed, and symlinks followed, so a policy matches the file
//! a tool will really touch and not the text it was given (`src/../.env`, a link that leaves the
//! project).
//!
//! It also says which directories cannot be a project root ([`check_project_root`]): `/`, the
//! home directory (or a parent of it) and system directories ([`is_system_dir`]), because the
//! guards treat everything under the root as the project's own files.

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
/// `~` and `~/…` expand to `home`; a Windows path is read as Git Bash reads it (`C:\Users` is
/// `/c/Users`, `.\sub\x` is `./sub/x`); a relative path is joined to `cwd`; then the components are
/// walked in order: `.` is dropped, `..` goes up from the directory reached so far (after the
/// symlinks before it were followed, as the kernel does), and every component that exists and
/// is a symlink is replaced by its target. Components that do not exist yet (a file about to be
/// written) are kept as written. `cwd` should be absolute; it is resolved too.
///
/// ```
/// use std::path::Path;
/// use hookrail_builtin::paths::resolve;
///
/// let p = resolve("src/../.env", Path::new("/nonexistent/project"), None)?;
/// assert_eq!(p, Path::new("/nonexistent/project/.env"));
///
/// let home = Path::new("/nonexistent/home/me");
/// let p = resolve("~/.ssh/id_ed25519", Path::new("/"), Some(home))?;
/// assert_eq!(p, home.join(".ssh/id_ed25519"));
///
/// let p = resolve(r"C:\nonexistent\me", Path::new("/"), None)?;
/// assert_eq!(p, Path::new("/c/nonexistent/me"));
/// # Ok::<(), hookrail_builtin::paths::PathError>(())
/// ```
pub fn resolve(raw: &str, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, PathError> {
    let expanded = expand_home(raw, home)?;
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    let mut walk = Walk::new();
    walk.push(&joined, &|| joined.clone())?;
    Ok(walk.out)
}

/// A directory resolved once, from which relative paths are resolved without walking it again.
///
/// The guards resolve every word of a command line against the same working directory, and
/// walking it costs a system call per component each time. [`Dir::resolve`] continues the walk
/// where the directory's own ended (the path reached, whether it is still on disk, the
/// symlinks passed), which is exactly where [`resolve`] of the joined path would be at that
/// point, so the answers (errors included) are the same.
// Only the secrets guard resolves many words against one directory.
#[cfg_attr(not(feature = "secrets-guard"), allow(dead_code))]
#[derive(Debug, Clone)]
pub(crate) struct Dir {
    given: PathBuf,
    walk: Walk,
}

#[cfg_attr(not(feature = "secrets-guard"), allow(dead_code))]
impl Dir {
    /// Walks `dir`. The error is that of `resolve(".", dir, _)`.
    pub(crate) fn new(dir: &Path) -> Result<Dir, PathError> {
        Dir::new_through(dir, None).map(|(dir, _)| dir)
    }

    /// Walks `dir`, and when `through` is one of its ancestors (or itself), also gives
    /// `resolve(".", through, None)`: the walk of `dir` passes through it, step for step.
    fn new_through(
        dir: &Path,
        through: Option<&Path>,
    ) -> Result<(Dir, Option<PathBuf>), PathError> {
        let whole = || dir.join(".");
        let mut walk = Walk::new();
        let mut passed = None;
        match through.and_then(|t| Some((t, dir.strip_prefix(t).ok()?))) {
            Some((through, rest)) => {
                walk.push(through, &whole)?;
                passed = Some(walk.out.clone());
                walk.push(rest, &whole)?;
            }
            None => walk.push(dir, &whole)?,
        }
        let dir = Dir {
            given: dir.to_owned(),
            walk,
        };
        Ok((dir, passed))
    }

    /// The directory as given.
    pub(crate) fn given(&self) -> &Path {
        &self.given
    }

    /// The directory resolved: `resolve(".", given, _)`.
    pub(crate) fn resolved(&self) -> &Path {
        &self.walk.out
    }

    /// `resolve(raw, given, home)`, without walking `given` again.
    pub(crate) fn resolve(&self, raw: &str, home: Option<&Path>) -> Result<PathBuf, PathError> {
        let expanded = expand_home(raw, home)?;
        if expanded.is_absolute() {
            let mut walk = Walk::new();
            walk.push(&expanded, &|| expanded.clone())?;
            return Ok(walk.out);
        }
        let mut walk = self.walk.clone();
        walk.push(&expanded, &|| self.given.join(&expanded))?;
        Ok(walk.out)
    }
}

/// `~` → `home`, `~/x` → `home/x`; a Windows path as Git Bash, MSYS2 and Cygwin read it
/// ([`windows_path`]); other paths unchanged.
fn expand_home(raw: &str, home: Option<&Path>) -> Result<PathBuf, PathError> {
    let windows = windows_path(raw);
    let raw = windows.as_deref().unwrap_or(raw);
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

/// A Windows path as Git Bash, MSYS2 and Cygwin read it: a drive letter is the directory of
/// that drive (`C:/Users` and `C:\Users` are `/c/Users`, as `/mnt/c` is WSL's), and in a
/// path that starts with a drive or with `.\` or `..\`, a backslash separates components
/// (`.\sub\.env` is `./sub/.env`). A backslash elsewhere is left alone: `\.env` is as
/// likely a pattern for `grep` as a path. `None` for any other path.
pub(crate) fn windows_path(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let drive = bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes.get(2), None | Some(b'/' | b'\\'));
    let dotted = raw.starts_with(".\\") || raw.starts_with("..\\");
    if !drive && !dotted {
        return None;
    }
    let path = raw.replace('\\', "/");
    Some(match drive {
        true => format!(
            "/{}{}",
            char::from(bytes[0].to_ascii_lowercase()),
            &path[2..]
        ),
        false => path,
    })
}

/// A walk through a path's components, following symlinks: where it is, whether that is still
/// on disk, and how many symlinks it passed.
#[derive(Debug, Clone)]
struct Walk {
    out: PathBuf,
    /// Once a component does not exist, nothing below it can be a symlink.
    on_disk: bool,
    hops: u32,
}

impl Walk {
    fn new() -> Walk {
        Walk {
            out: PathBuf::new(),
            on_disk: true,
            hops: 0,
        }
    }

    /// Appends `path`'s components, following symlinks; `whole` is the path a
    /// [`PathError::TooManyLinks`] names (built only then).
    fn push(&mut self, path: &Path, whole: &dyn Fn() -> PathBuf) -> Result<(), PathError> {
        for comp in path.components() {
            match comp {
                Component::Prefix(_) | Component::RootDir => {
                    self.out = PathBuf::from(comp.as_os_str());
                    self.on_disk = true;
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    self.out.pop();
                }
                Component::Normal(name) => {
                    self.out.push(name);
                    if !self.on_disk {
                        continue;
                    }
                    match std::fs::symlink_metadata(&self.out) {
                        Ok(meta) if meta.file_type().is_symlink() => {
                            self.hops += 1;
                            if self.hops > MAX_LINKS {
                                return Err(PathError::TooManyLinks(whole()));
                            }
                            let target =
                                std::fs::read_link(&self.out).map_err(|source| PathError::Io {
                                    path: self.out.clone(),
                                    source,
                                })?;
                            self.out.pop();
                            // The target is walked from the link's directory (an absolute one
                            // restarts at the root, its RootDir component), on disk again.
                            let mut inner = Walk {
                                out: std::mem::take(&mut self.out),
                                on_disk: true,
                                hops: self.hops,
                            };
                            inner.push(&target, &|| target.clone())?;
                            self.out = inner.out;
                            self.hops = inner.hops;
                        }
                        Ok(_) => {}
                        Err(_) => self.on_disk = false,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Directories under which a direct child is a system directory too (`/usr/lib`, `/etc/ssh`).
#[rustfmt::skip]
const SYSTEM_PARENTS: &[&str] = &[
    "usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "boot", "var", "opt",
    "root", "home", "Users", "System", "Library", "Applications", "private", "nix", "snap",
    "dev", "proc", "sys", "srv",
];

/// Directories whose whole tree belongs to the system (or the package manager): no project
/// lives anywhere inside them, at any depth (`/usr/lib/x86_64-linux-gnu`, `/usr/local/bin`,
/// `/var/lib/dpkg`, `/etc/apt/sources.list.d`).
const SYSTEM_TREES: &[&str] = &[
    "usr",
    "etc",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "boot",
    "dev",
    "proc",
    "sys",
    "run",
    "nix",
    "snap",
    "System",
    "var/lib",
    "var/cache",
    "var/log",
    "var/spool",
    "var/backups",
    "var/mail",
    "var/db",
    "private/etc",
    "private/var/db",
    // Windows's own directories, as Git Bash (`/c/…`, `C:/…`) and WSL (`/mnt/c/…`) reach them.
    "c/Windows",
    "c/Program Files",
    "c/Program Files (x86)",
    "mnt/c/Windows",
    "mnt/c/Program Files",
    "mnt/c/Program Files (x86)",
    // What macOS starts at boot and at every login.
    "Library/LaunchDaemons",
    "Library/LaunchAgents",
    "Library/StartupItems",
];

/// Trees inside [`SYSTEM_TREES`] where source code is kept by convention (FHS).
const SYSTEM_TREE_EXCEPTIONS: &[&str] = &["usr/local/src", "usr/src"];

/// Directories of the home directory that hold credentials: no project lives inside them.
const HOME_CREDENTIAL_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".claude",
    ".config/agent-hooks",
];

/// Directories of the home directory that hold every tool's settings: not a project
/// themselves (their subdirectories may be, `~/.config/nvim`).
const HOME_SETTINGS_DIRS: &[&str] = &[".config", ".local", ".local/share"];

/// `path` with `.` and `..` applied to its text and repeated slashes gone, without looking at
/// the disk (`/..` is `/`; a relative path loses the `..` it cannot go up from).
#[cfg(any(feature = "command-guard", feature = "secrets-guard"))]
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// True when the absolute, resolved `path` is a system directory: a top-level directory
/// (`/etc`, `/usr`, `/tmp`, `/work`) or a direct child of a system one (`/usr/lib`, `/etc/ssh`,
/// `/var/log`, `/home/alice`). `/` itself is not counted here (callers treat it apart).
///
/// This one list serves both `command-guard` (`rm -rf /usr/lib` is rule `rm-system`) and
/// [`check_project_root`].
///
/// ```
/// use std::path::Path;
/// use hookrail_builtin::paths::is_system_dir;
///
/// assert!(is_system_dir(Path::new("/usr/lib")));
/// assert!(is_system_dir(Path::new("/tmp")));
/// assert!(!is_system_dir(Path::new("/tmp/build")));
/// assert!(!is_system_dir(Path::new("/usr/lib/x/y")));
/// assert!(!is_system_dir(Path::new("/")));
/// ```
pub fn is_system_dir(path: &Path) -> bool {
    let mut normal = path.components().filter_map(|c| match c {
        Component::Normal(name) => Some(name),
        _ => None,
    });
    let first = normal.next();
    let second = normal.next();
    let third = normal.next();
    match (first, second, third) {
        (Some(_), None, _) => true,
        // In any case: macOS's and Windows's file systems find `/ETC/hosts` at `/etc/hosts`.
        (Some(first), Some(_), None) => first
            .to_str()
            .is_some_and(|f| SYSTEM_PARENTS.iter().any(|p| p.eq_ignore_ascii_case(f))),
        _ => false,
    }
}

/// Why a directory cannot be a project root.
///
/// Guards treat everything under the project root as the project's own files (`rm -rf` of
/// them is fine, writes to them are allowed), so a root that holds the system or the user's
/// home would turn them off for exactly the files they protect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectRootError {
    /// The root is not an absolute path, so where it is depends on who reads it.
    #[error("`{0}` cannot be a project root: it is not an absolute path")]
    NotAbsolute(PathBuf),
    /// The root (or a symlink on the way) cannot be resolved.
    #[error("`{root}` cannot be a project root: it cannot be resolved ({source})")]
    Unresolvable {
        /// The root as given.
        root: PathBuf,
        /// Why it cannot be resolved.
        source: PathError,
    },
    /// The root is `/`: every file would be the project's.
    #[error(
        "`{0}` cannot be a project root: it is the file system root, so every file on the machine would count as the project's"
    )]
    FileSystemRoot(PathBuf),
    /// The root is the home directory or a parent of it.
    #[error(
        "`{root}` cannot be a project root: it is the home directory `{home}` or a parent of it, so the user's own files (keys, settings) would count as the project's"
    )]
    Home {
        /// The root, resolved.
        root: PathBuf,
        /// The home directory, resolved.
        home: PathBuf,
    },
    /// The root is a system directory ([`is_system_dir`]) or inside one whose whole tree
    /// belongs to the system (`/usr/…`, `/etc/…`, `/var/lib/…`).
    #[error(
        "`{0}` cannot be a project root: it is a system directory or inside one, so the system's files would count as the project's"
    )]
    System(PathBuf),
    /// The root is inside a credentials or settings directory of the home directory
    /// (`~/.ssh`, `~/.aws`, `~/.claude`, `~/.config` itself, …).
    #[error(
        "`{0}` cannot be a project root: it is inside a credentials or settings directory of the home directory"
    )]
    Credentials(PathBuf),
}

/// Checks that `root` may be a project root: absolute, resolvable, and neither `/`, nor `home`
/// or a parent of it, nor a system directory ([`is_system_dir`]) or anywhere inside `/usr`,
/// `/etc`, `/var/lib` and the other trees that belong to the system, nor inside `~/.ssh`,
/// `~/.aws` or another credentials directory, after symlinks are followed
/// (a link to `/usr` is `/usr`). `home` is the user's home directory ([`home_dir`]), `None`
/// when there is none.
///
/// Builtin guards deny ("cannot decide") what they would judge against such a root, and the
/// `hooks` command line refuses it before any hook runs.
///
/// # Errors
///
/// [`ProjectRootError`], saying what the root is and why it is refused.
///
/// ```
/// use std::path::Path;
/// use hookrail_builtin::check_project_root;
///
/// let home = Some(Path::new("/home/alice"));
/// assert!(check_project_root(Path::new("/home/alice/src/app"), home).is_ok());
/// assert!(check_project_root(Path::new("/home/alice"), home).is_err());
/// let err = check_project_root(Path::new("/usr"), home).unwrap_err();
/// assert!(err.to_string().contains("`/usr` cannot be a project root: it is a system directory"));
/// assert!(check_project_root(Path::new("/"), None).is_err());
/// assert!(check_project_root(Path::new("project"), None).is_err());
/// ```
pub fn check_project_root(root: &Path, home: Option<&Path>) -> Result<(), ProjectRootError> {
    project_root(root, home).map(drop)
}

/// [`check_project_root`], giving the root walked: the guards resolve paths from it.
pub(crate) fn project_root(root: &Path, home: Option<&Path>) -> Result<Dir, ProjectRootError> {
    if !root.is_absolute() {
        return Err(ProjectRootError::NotAbsolute(root.to_owned()));
    }
    let home = home.filter(|h| h.is_absolute());
    // A root in the home directory (the usual place) resolves the home on its way.
    let (dir, home_resolved) =
        Dir::new_through(root, home).map_err(|source| ProjectRootError::Unresolvable {
            root: root.to_owned(),
            source,
        })?;
    let resolved = dir.resolved();
    if !resolved
        .components()
        .any(|c| matches!(c, Component::Normal(_)))
    {
        return Err(ProjectRootError::FileSystemRoot(resolved.to_owned()));
    }
    let home = home.map(|home| {
        home_resolved
            .unwrap_or_else(|| resolve(".", home, None).unwrap_or_else(|_| home.to_owned()))
    });
    if let Some(home) = &home
        && home.starts_with(resolved)
    {
        return Err(ProjectRootError::Home {
            root: resolved.to_owned(),
            home: home.clone(),
        });
    }
    // Every guard call checks its root: the first directory is compared as text before a tree
    // is compared component by component (most roots share it with no tree).
    let below_root = resolved.strip_prefix("/").ok();
    let top = below_root.and_then(|r| r.components().next());
    // In any case, as macOS's and Windows's file systems find them (`/USR/BIN`); the path is
    // lower-cased only for a root whose first directory is a tree's.
    let lower = std::cell::OnceCell::new();
    let in_tree = |tree: &&str| {
        let first = tree.split('/').next().unwrap_or(tree);
        top.is_some_and(|t| t.as_os_str().eq_ignore_ascii_case(first))
            && below_root.is_some_and(|r| {
                let lower =
                    lower.get_or_init(|| PathBuf::from(r.to_string_lossy().to_ascii_lowercase()));
                lower.starts_with(tree.to_ascii_lowercase())
            })
    };
    let in_system_tree =
        SYSTEM_TREES.iter().any(in_tree) && !SYSTEM_TREE_EXCEPTIONS.iter().any(in_tree);
    if is_system_dir(resolved) || in_system_tree {
        return Err(ProjectRootError::System(resolved.to_owned()));
    }
    // Under `home.join(dir)` is under `home`, then under `dir`.
    let below_home = home.as_ref().and_then(|h| resolved.strip_prefix(h).ok());
    if let Some(rest) = below_home
        && (HOME_CREDENTIAL_DIRS.iter().any(|dir| rest.starts_with(dir))
            || HOME_SETTINGS_DIRS.iter().any(|dir| rest == Path::new(dir)))
    {
        return Err(ProjectRootError::Credentials(resolved.to_owned()));
    }
    Ok(dir)
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
    fn project_roots_that_hold_the_system_or_the_home_are_refused() {
        let home = Some(Path::new("/home/alice"));
        for bad in [
            "/",
            "/usr",
            "/etc",
            "/usr/lib",
            "/home",
            "/home/alice",
            "/tmp",
            "/var/log",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/local/bin",
            "/var/lib/dpkg",
            "/etc/apt/sources.list.d",
            "/home/alice/.ssh",
            "/home/alice/.aws/sso",
            "/home/alice/.config/gcloud",
            "/home/alice/.config",
            "/home/alice/.claude",
            "/home/alice/.config/agent-hooks",
        ] {
            assert!(
                check_project_root(Path::new(bad), home).is_err(),
                "{bad} accepted"
            );
        }
        let err = check_project_root(Path::new("/home/alice"), home).unwrap_err();
        assert!(matches!(err, ProjectRootError::Home { .. }), "{err}");
        assert!(err.to_string().contains("home directory"), "{err}");
        let err = check_project_root(Path::new("/"), home).unwrap_err();
        assert!(err.to_string().contains("file system root"), "{err}");
        for good in [
            "/home/alice/app",
            "/work/project",
            "/tmp/build",
            "/usr/local/src/x",
            "/usr/src/linux",
            "/home/alice/.config/nvim",
            "/var/www/site",
        ] {
            assert!(check_project_root(Path::new(good), home).is_ok(), "{good}");
        }
        // A home outside the system directories is still protected.
        let home = Some(Path::new("/data/me"));
        assert!(check_project_root(Path::new("/data/me"), home).is_err());
        assert!(check_project_root(Path::new("/data/me/app"), home).is_ok());
    }

    #[test]
    fn a_project_root_that_links_to_a_system_directory_is_refused() {
        let (_d, dir) = tmp();
        symlink("/usr", dir.join("proj")).unwrap();
        let err = check_project_root(&dir.join("proj"), None).unwrap_err();
        assert!(err.to_string().starts_with("`/usr` cannot be"), "{err}");
        assert!(check_project_root(&dir, None).is_ok());
    }

    #[test]
    fn a_walked_dir_resolves_as_resolve_does() {
        let (_d1, root) = tmp();
        let (_d2, outside) = tmp();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir(outside.join("deep")).unwrap();
        symlink(outside.join("deep"), root.join("a/out")).unwrap();
        symlink("../target.txt", root.join("a/rel")).unwrap();
        symlink("b", root.join("a/to_b")).unwrap();
        symlink(root.join("loop2"), root.join("loop1")).unwrap();
        symlink(root.join("loop1"), root.join("loop2")).unwrap();
        let home = root.join("a/b");
        let bases = [
            root.clone(),
            root.join("a"),
            root.join("a/to_b"),
            root.join("a/out"),
            root.join("missing/x"),
            root.join("a/out/../b"),
            root.join("loop1/x"),
        ];
        let raws = [
            "x",
            ".env",
            "../x",
            "../../../x",
            "to_b/../../y",
            "out/../z",
            "rel",
            "a/rel",
            "missing/../to_b",
            "loop1",
            "loop2/z",
            "/etc/hosts",
            "~",
            "~/.ssh/id_rsa",
            "~u/x",
            ".",
            "./a/./b/",
        ];
        for base in &bases {
            for through in [root.as_path(), &root.join("a"), base, Path::new("/")] {
                match Dir::new_through(base, Some(through)) {
                    Ok((dir, passed)) => {
                        assert_eq!(
                            Some(dir.resolved()),
                            resolve(".", base, None).ok().as_deref()
                        );
                        if base.starts_with(through) {
                            assert_eq!(passed, resolve(".", through, None).ok(), "{through:?}");
                        } else {
                            assert_eq!(passed, None);
                        }
                    }
                    Err(e) => assert_eq!(
                        Some(e.to_string()),
                        resolve(".", base, None).err().map(|e| e.to_string())
                    ),
                }
            }
            let dir = Dir::new(base);
            let whole = resolve(".", base, None);
            match (&dir, &whole) {
                (Ok(dir), Ok(whole)) => assert_eq!(dir.resolved(), whole, "{base:?}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{base:?}"),
                _ => panic!("{base:?}: {dir:?} vs {whole:?}"),
            }
            let Ok(dir) = dir else { continue };
            for raw in raws {
                for home in [Some(home.as_path()), None] {
                    let fast = dir.resolve(raw, home).map_err(|e| e.to_string());
                    let slow = resolve(raw, base, home).map_err(|e| e.to_string());
                    assert_eq!(fast, slow, "{raw:?} in {base:?}");
                }
            }
        }
    }

    #[test]
    fn a_root_in_a_linked_home_is_judged_against_the_home_resolved() {
        let (_d, dir) = tmp();
        std::fs::create_dir_all(dir.join("real/.ssh/keys")).unwrap();
        std::fs::create_dir_all(dir.join("real/src/app")).unwrap();
        symlink(dir.join("real"), dir.join("home")).unwrap();
        let home = Some(dir.join("home"));
        let check = |root: &str| check_project_root(&dir.join(root), home.as_deref());
        assert!(check("home/src/app").is_ok());
        assert!(check("real/src/app").is_ok());
        for root in ["home/.ssh/keys", "real/.ssh/keys"] {
            assert!(
                matches!(check(root), Err(ProjectRootError::Credentials(_))),
                "{root}"
            );
        }
        for root in ["home", "real", "."] {
            assert!(
                matches!(check(root), Err(ProjectRootError::Home { .. })),
                "{root}"
            );
        }
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
