//! The builtin rules: what each one catches.

use std::cell::{OnceCell, RefCell};
use std::path::{Component, Path, PathBuf};

use crate::paths::{self, PathError};
use crate::shell::{self, Command, Pipeline, RedirectOp, Script, ShellScript};

use super::user::wildcard;

mod find;
mod git;
mod writes;

use find::find_delete;
use git::git;
pub(super) use writes::in_system_tree;
use writes::write_hits;

/// How a builtin rule decides by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Always denies.
    Deny,
    /// Decides as `builtin_ask` says (ask by default).
    Ask,
    /// Decides as `privileged` says (deny by default).
    Privileged,
}

/// A builtin rule: its stable id (in reasons and in `disable_builtin`), the core pack it
/// belongs to, and its class.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) pack: &'static str,
    pub(super) class: Class,
}

macro_rules! rules {
    ($($pack:literal { $($name:ident = $id:literal, $class:ident;)* })*) => {
        $($(pub(super) const $name: &Rule = &Rule { id: $id, pack: $pack, class: Class::$class };)*)*
        /// Every builtin rule.
        pub(super) const ALL: &[&Rule] = &[$($($name),*),*];
    };
}

rules! {
    "core.filesystem" {
        RM_ROOT = "rm-root", Deny;
        RM_HOME = "rm-home", Deny;
        RM_PROJECT = "rm-project", Deny;
        RM_SYSTEM = "rm-system", Deny;
        MKFS = "mkfs", Deny;
        DD_DEVICE = "dd-device", Deny;
        DEVICE_WRITE = "device-write", Deny;
        SHRED_DEVICE = "shred-device", Deny;
        CHMOD_ROOT = "chmod-root", Deny;
        CHOWN_ROOT = "chown-root", Deny;
        RM_OUTSIDE_PROJECT = "rm-outside-project", Ask;
        RM_UNKNOWN_VARIABLE = "rm-unknown-variable", Ask;
        SYSTEM_FILE_WRITE = "system-file-write", Deny;
        SYSTEM_PATH_WRITE = "system-path-write", Ask;
    }
    "core.git" {
        GIT_FORCE_PUSH_PROTECTED = "git-force-push-protected", Deny;
        GIT_RESET_HARD = "git-reset-hard", Ask;
        GIT_CLEAN = "git-clean", Ask;
        GIT_CLEAN_FILES = "git-clean-files", Ask;
        GIT_DISCARD = "git-discard", Ask;
        GIT_FORCE_PUSH = "git-force-push", Ask;
        GIT_HOOK_WRITE = "git-hook-write", Ask;
        GIT_PAGER_CONFIG = "git-pager-config", Ask;
    }
    "core.shell" {
        FORK_BOMB = "fork-bomb", Deny;
        CURL_PIPE_SHELL = "curl-pipe-shell", Deny;
        HOOKS_APPROVE = "hooks-approve", Deny;
        HOOKS_DAEMON = "hooks-daemon", Deny;
        SUDO = "sudo", Privileged;
        EVAL_COMPUTED = "eval-computed", Ask;
        SUBSTITUTION_RUN = "substitution-run", Ask;
        SOURCE_SUBSTITUTION = "source-substitution", Ask;
        DECODE_TO_SHELL = "decode-to-shell", Ask;
        SHELL_STARTUP_WRITE = "shell-startup-write", Ask;
        EDITOR_STARTUP_COMMAND = "editor-startup-command", Ask;
        DOWNLOAD_THEN_RUN = "download-then-run", Ask;
        WRITE_THEN_RUN = "write-then-run", Ask;
        IFS_EXPANSION = "ifs-expansion", Ask;
        PROGRAM_GLOB = "program-glob", Ask;
        COMMAND_VARIABLE = "command-variable", Ask;
        INTERPRETER_DELETE = "interpreter-delete", Ask;
        INTERPRETER_SHELL_OUT = "interpreter-shell-out", Ask;
    }
}

/// A builtin rule that matched, and what it saw.
pub(super) struct Hit {
    pub(super) rule: &'static Rule,
    pub(super) what: String,
}

pub(super) fn hit(rule: &'static Rule, what: impl Into<String>) -> Hit {
    Hit {
        rule,
        what: what.into(),
    }
}

/// Programs that download.
pub(super) const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];
/// Programs that run code and are not shells (shells are known to [`Command::shell_script`]).
const INTERPRETERS: &[&str] = &[
    "perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "pwsh", "Rscript",
];

/// Programs that format or wipe a disk, besides the `mkfs*` family (`mkfs.ext4`, `mkfs.vfat`).
const FORMATTERS: &[&str] = &["mke2fs", "mkdosfs", "mkexfatfs", "mkntfs", "wipefs"];

/// Where the command runs: the project root, the working directory, the home directory and
/// the git branch.
pub(super) struct Env<'a> {
    /// The project root: what `rm-project` protects and `rm-outside-project` asks about.
    root: &'a Path,
    /// Where relative operands start (and git finds its repository).
    cwd: &'a Path,
    /// The project root (or why it cannot be one) and the home directory, resolved when a
    /// path is first checked.
    resolved: OnceCell<(Result<PathBuf, String>, Option<PathBuf>)>,
    /// The first operand whose place needed a project root that was refused, and why.
    undecided: RefCell<Option<String>>,
    protected: &'a [String],
    /// The values the command line gives variables ([`shell::Script::variables`]).
    variables: shell::Variables<'a>,
}

/// Where a path operand points, from most to least dangerous to delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Root,
    Home,
    Project,
    System,
    Outside,
    /// Inside a temporary directory (`/tmp/x`, `/var/tmp/x`, `$TMPDIR/x`), not the directory
    /// itself.
    Temp,
    Inside,
    /// Not `/`, the home directory or a system directory, and the project root is refused,
    /// so whether it is the project's cannot be told.
    Unknown,
}

impl<'a> Env<'a> {
    pub(super) fn new(root: &'a Path, cwd: &'a Path, protected: &'a [String]) -> Self {
        Env {
            root,
            cwd,
            resolved: OnceCell::new(),
            undecided: RefCell::new(None),
            protected,
            variables: shell::Variables::default(),
        }
    }

    /// The values the command line gives variables: a deleted or written path that uses
    /// names with one value each is judged with them put in too (`X=/; rm -rf $X` is
    /// `rm-root`).
    pub(super) fn with_variables(mut self, variables: shell::Variables<'a>) -> Self {
        self.variables = variables;
        self
    }

    /// The readings of `word` through variables the shell certainly makes
    /// ([`shell::Variables::certain`]).
    pub(super) fn certain_readings(&self, word: &str) -> Vec<String> {
        self.variables.certain(word).unwrap_or_default()
    }

    /// Why no verdict could be reached on a command that needs the project root, if so.
    pub(super) fn undecided(&self) -> Option<String> {
        self.undecided.borrow().clone()
    }

    /// Records that deleting `operand` (at `path`) needs the project root, which is refused.
    fn cannot_decide(&self, operand: &str, path: &Path) {
        let why = match self.resolved.get() {
            Some((Err(why), _)) => why.as_str(),
            _ => "the project root is unknown",
        };
        self.undecided.borrow_mut().get_or_insert_with(|| {
            format!(
                "whether deleting `{operand}` ({}) is safe depends on the project root, and {why}",
                path.display()
            )
        });
    }

    /// The project root (or why it cannot be one) and the home directory, resolved once.
    fn resolved(&self) -> (&Result<PathBuf, String>, Option<&Path>) {
        let (root, home) = self.resolved.get_or_init(|| {
            let home = paths::home_dir().map(|h| paths::resolve(".", &h, None).unwrap_or(h));
            let root =
                match paths::check_project_root(self.root, home.as_deref()) {
                    Ok(()) => Ok(paths::resolve(".", self.root, None)
                        .unwrap_or_else(|_| self.root.to_owned())),
                    Err(e) => Err(e.to_string()),
                };
            (root, home)
        });
        (root, home.as_deref())
    }

    /// Where `operand` of a command running in `dir` (see [`Command::dir`]) points. A glob
    /// counts as its directory (`/*`, `*`, `~/{a,b}`, `/u*`), unless [`Env::glob_entries`]
    /// says it takes entries of the directory only (`*.log`, `/tmp/pytest-*`).
    pub(super) fn place(&self, operand: &str, dir: Option<&str>) -> (Place, PathBuf) {
        let (_, home) = self.resolved();
        let base = dir.and_then(|d| paths::resolve(&expand_variables(d), self.cwd, home).ok());
        let base = base.as_deref().unwrap_or(self.cwd);
        let operand = expand_variables(operand);
        let dir = glob_dir(&operand);
        let (place, path) = self.locate(dir, base);
        if dir != operand && self.glob_entries(&operand, place, &path) {
            return self.locate(&operand, base);
        }
        (place, path)
    }

    /// Where the path `raw`, relative to `base`, points.
    fn locate(&self, raw: &str, base: &Path) -> (Place, PathBuf) {
        let (root, home) = self.resolved();
        let path = match paths::resolve(raw, base, home) {
            Ok(path) => path,
            Err(PathError::OtherUsersHome(_) | PathError::NoHome(_)) => {
                return (Place::Home, PathBuf::from(raw));
            }
            Err(_) => return (Place::Outside, PathBuf::from(raw)),
        };
        let is_root = !path.components().any(|c| matches!(c, Component::Normal(_)));
        let place = if is_root {
            Place::Root
        } else if home.is_some_and(|h| h.starts_with(&path)) {
            Place::Home
        } else if root.is_err() {
            if paths::is_system_dir(&path) {
                Place::System
            } else {
                Place::Unknown
            }
        } else if let Ok(root) = root
            && root.starts_with(&path)
        {
            Place::Project
        } else if let Ok(root) = root
            && path.starts_with(root)
        {
            Place::Inside
        } else if home.is_some_and(|h| path.starts_with(h)) {
            Place::Outside
        } else if in_temp_dir(&path) {
            Place::Temp
        } else if paths::is_system_dir(&path) {
            Place::System
        } else {
            Place::Outside
        };
        (place, path)
    }

    /// True when the glob `operand`, whose directory (the part before its first wildcard) is
    /// `dir` at `place`, takes entries of that directory and not everything in it, so it is
    /// judged as a path inside it: `*.egg-info`, `build*` and `*/node_modules` in the project,
    /// `pytest-*` in a temporary directory. Its last component must hold text besides
    /// wildcards (`*`, `.*`, `?*` take everything), and it must not be able to match what
    /// deleting would be worse: the project root or a parent of it (`/work/pro*`), the
    /// repository or the hooks' configuration (`.g*`, `hooks*`). A glob in `/`, the home
    /// directory or a system directory (`/*bin`, `/u*`, `~/.ss*`) stays the directory: what
    /// it can match there is protected, but for scratch in a temporary directory.
    fn glob_entries(&self, operand: &str, place: Place, dir: &Path) -> bool {
        let parts = glob_parts(operand);
        let Some(last) = parts.last() else {
            return false;
        };
        // `*/..` is the directory itself again. zsh's and ksh's glob syntax (`*(D)` takes
        // dot files too, `@(*)`, `!(keep)`, `*~x`, `<1-9>`) is not read here, and `**` reaches
        // any depth (`**/.git`): such a glob stays its directory.
        let unread = |p: &&str| *p == "**" || p.contains(['(', ')', '~', '^', '#', '|', '<', '>']);
        if is_pure_wildcard(last)
            || parts.iter().any(|p| matches!(*p, "." | ".."))
            || parts.iter().any(unread)
        {
            return false;
        }
        match place {
            Place::Project => {
                let Ok(root) = self.resolved().0 else {
                    return false;
                };
                let Ok(below) = root.strip_prefix(dir) else {
                    return false;
                };
                let below: Vec<_> = below.iter().map(|c| c.to_string_lossy()).collect();
                if below.is_empty() {
                    return !could_match_kept(&parts);
                }
                // Each part could match the root's path below `dir`, and it stops at the root or
                // above: it could take the project.
                let takes_root = parts.len() <= below.len()
                    && parts.iter().zip(&below).all(|(p, b)| could_match(p, b));
                !takes_root
            }
            Place::System => TEMP_DIRS.iter().any(|t| Path::new(t) == dir),
            _ => false,
        }
    }

    /// The hit for deleting `operand` with everything under it (`how`: `recursive delete`).
    /// An operand that uses variables the command line gives values is judged with them put in
    /// too, when the shell certainly reads it so ([`shell::Variables::certain`]: one
    /// assignment, or one loop's values), and is denied when such a reading is (a variable set
    /// elsewhere, or by several statements, still makes it `rm-unknown-variable`).
    pub(super) fn delete_hit(&self, operand: &str, dir: Option<&str>, how: &str) -> Option<Hit> {
        let denied = (self.certain_readings(operand).iter())
            .filter_map(|known| self.delete_hit_of(known, dir, how))
            .find(|hit| hit.rule.class == Class::Deny);
        denied.or_else(|| self.delete_hit_of(operand, dir, how))
    }

    /// [`Env::delete_hit`], for the operand as written.
    fn delete_hit_of(&self, operand: &str, dir: Option<&str>, how: &str) -> Option<Hit> {
        if let Some(hit) = super::opaque::unknown_variable(operand, how) {
            return Some(hit);
        }
        if let Some(dir) = dir.filter(|d| unknown_dir(d))
            && !operand.starts_with(['/', '~'])
            && expand_variables(operand) == operand
        {
            return Some(hit(
                RM_UNKNOWN_VARIABLE,
                format!("{how} of `{operand}` in a directory the guard cannot know (`cd {dir}`)"),
            ));
        }
        let (place, path) = self.place(operand, dir);
        if place == Place::Unknown {
            self.cannot_decide(operand, &path);
            return None;
        }
        let path = path.display();
        Some(match place {
            Place::Root if operand == "/" => hit(RM_ROOT, format!("{how} of /")),
            Place::Root => hit(RM_ROOT, format!("{how} of / (`{operand}`)")),
            Place::Home => hit(
                RM_HOME,
                format!("{how} of the home directory or a parent of it (`{operand}`)"),
            ),
            Place::Project => hit(
                RM_PROJECT,
                format!("{how} of the project root or a parent of it (`{operand}`)"),
            ),
            Place::System => hit(RM_SYSTEM, format!("{how} of system directory {path}")),
            Place::Outside => hit(
                RM_OUTSIDE_PROJECT,
                format!("{how} outside the project root ({path})"),
            ),
            Place::Unknown | Place::Temp => return None,
            Place::Inside => {
                let expanded = expand_variables(operand);
                if !(expanded.contains("$(") || expanded.contains('`')) {
                    return None;
                }
                hit(
                    RM_OUTSIDE_PROJECT,
                    format!("{how} of a path computed when it runs (`{operand}`)"),
                )
            }
        })
    }

    /// The current branch, from `.git/HEAD` of the repository holding the working directory.
    fn current_branch(&self) -> Option<String> {
        let git = self
            .cwd
            .ancestors()
            .map(|d| d.join(".git"))
            .find(|g| g.exists())?;
        let git = if git.is_file() {
            let link = std::fs::read_to_string(&git).ok()?;
            let dir = link.strip_prefix("gitdir:")?.trim();
            git.parent()?.join(dir)
        } else {
            git
        };
        let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
        Some(head.trim().strip_prefix("ref: refs/heads/")?.to_owned())
    }

    pub(super) fn is_protected(&self, branch: &str) -> bool {
        self.protected.iter().any(|p| wildcard(p, branch))
    }

    /// True when `path`, written in a command that runs in `dir`, is a disk device
    /// ([`is_disk`]): a relative path starts at that directory (`cd /dev && dd of=sda`).
    pub(super) fn is_disk_at(&self, path: &str, dir: Option<&str>) -> bool {
        let base = match dir {
            Some(dir) => self.cwd.join(expand_variables(dir)),
            None => self.cwd.to_owned(),
        };
        // Through variables too, as the shell certainly reads them (`X=/dev/sda; … of=$X`).
        let at = |p: &str| is_disk(&base.join(p).to_string_lossy());
        at(path) || self.certain_readings(path).iter().any(|p| at(p))
    }
}

/// True when a `cd` target cannot be known before the command runs: it holds a variable other
/// than the ones [`expand_variables`] knows, a substitution, or `$OLDPWD` (`cd -`).
fn unknown_dir(dir: &str) -> bool {
    let expanded = expand_variables(dir);
    expanded.contains(['$', '`'])
}

/// The temporary directories: what is under them is scratch space, not "outside the project".
const TEMP_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/tmp",
    "/var/folders",
    "/private/var/folders",
    "/dev/shm",
];

/// True when `path` is strictly inside a temporary directory (`/tmp/x`, not `/tmp`).
pub(super) fn in_temp_dir(path: &Path) -> bool {
    TEMP_DIRS
        .iter()
        .any(|t| path.starts_with(t) && path != Path::new(t))
}

/// `$TMPDIR` when this process's `TMPDIR` is known to be a temporary directory (`/tmp`, or
/// inside one of [`TEMP_DIRS`]); else it stays a variable the guard cannot know.
pub(super) fn tmpdir() -> Option<String> {
    let dir = std::env::var("TMPDIR").ok()?;
    let dir = dir.trim_end_matches('/');
    let path = Path::new(dir);
    let temp = path.is_absolute()
        && !path.components().any(|c| c == Component::ParentDir)
        && TEMP_DIRS.iter().any(|t| path.starts_with(t));
    temp.then(|| dir.to_owned())
}

/// `$HOME`, `${HOME}` → `~`; `$PWD`, `${PWD}`, `$(pwd)`, `` `pwd` ``, `~+` → `.`; `$TMPDIR`,
/// `${TMPDIR}` → its value when that is a temporary directory; when they start the operand.
fn expand_variables(operand: &str) -> String {
    const VARS: &[(&str, &str)] = &[
        ("$HOME", "~"),
        ("${HOME}", "~"),
        ("$PWD", "."),
        ("${PWD}", "."),
        ("$(pwd)", "."),
        ("`pwd`", "."),
        ("~+", "."),
    ];
    for (var, value) in VARS {
        if let Some(rest) = operand.strip_prefix(var)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{value}{rest}");
        }
    }
    for var in ["$TMPDIR", "${TMPDIR}"] {
        if let Some(rest) = operand.strip_prefix(var)
            && (rest.is_empty() || rest.starts_with('/'))
            && let Some(dir) = tmpdir()
        {
            return format!("{dir}{rest}");
        }
    }
    operand.to_owned()
}

/// The directory part of a glob: `/` for `/*`, `.` for `*` or `.*`, `~` for `~/*`.
fn glob_dir(operand: &str) -> &str {
    // Braces are not globs here: the parser also reads a command with its braces expanded
    // (`rm -rf {build,dist}` is `rm -rf build dist` too), and that reading is judged.
    let is_glob = |part: &str| part.contains(['*', '?', '[']);
    let mut offset = 0;
    for part in operand.split('/') {
        if is_glob(part) {
            return match operand.get(..offset).unwrap_or_default() {
                "" => ".",
                dir => match dir.trim_end_matches('/') {
                    "" => "/",
                    dir => dir,
                },
            };
        }
        offset += part.len() + 1;
    }
    operand
}

/// The components of a glob from the first one with a wildcard on (`*.log` in `./*.log`,
/// `*`, `node_modules` in `*/node_modules`), empty ones left out.
fn glob_parts(operand: &str) -> Vec<&str> {
    operand
        .split('/')
        .skip_while(|part| !part.contains(['*', '?', '[']))
        .filter(|part| !part.is_empty())
        .collect()
}

/// True when a glob component matches any name but for its dots: `*`, `.*`, `**`, `?*`,
/// `*.*`, `[a-z]*`; not `*.log` or `build*`.
fn is_pure_wildcard(part: &str) -> bool {
    let mut class = false;
    part.chars().all(|c| {
        match c {
            '[' => class = true,
            ']' => class = false,
            _ => {}
        }
        class || matches!(c, '*' | '?' | '.' | ']')
    })
}

/// True when the glob component `pattern` could match `name`; a bracket class is taken to
/// match anything.
fn could_match(pattern: &str, name: &str) -> bool {
    pattern.contains('[') || wildcard(pattern, name)
}

/// True when the parts of a glob in the project root ([`glob_parts`]) could take the
/// repository or the hooks' configuration: the first part matches one of [`KEPT_DIRS`], or
/// it is the only one and matches one of [`KEPT_FILES`]. Names are matched as shells do by
/// default: a leading dot only by a pattern that starts with one (`.g*`, not `*/x`).
fn could_match_kept(parts: &[&str]) -> bool {
    let Some(first) = parts.first() else {
        return false;
    };
    let matches = |name: &&str| {
        (!name.starts_with('.') || first.starts_with(['.', '['])) && could_match(first, name)
    };
    KEPT_DIRS.iter().any(matches) || (parts.len() == 1 && KEPT_FILES.iter().any(matches))
}

/// Directories at the project root that a glob deleting entries there must not be able to
/// take: the repository and the hooks' own configuration (DESIGN §8).
const KEPT_DIRS: &[&str] = &[".git", ".hooks", ".claude", ".gemini", ".codex", ".config"];

/// Files at the project root a glob must not be able to take: the hooks' project files.
const KEPT_FILES: &[&str] = &["hooks.toml", "hooks.yaml", "hooks.yml", "hooks.json"];

/// Flags (before `--`) and operands of `args`.
pub(super) fn split_args(args: &[String]) -> (Vec<&str>, Vec<&str>) {
    let (mut flags, mut operands) = (Vec::new(), Vec::new());
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "--" => operands.extend(args.by_ref()),
            a if a.len() > 1 && a.starts_with('-') => flags.push(a),
            a => operands.push(a),
        }
    }
    (flags, operands)
}

/// True when `flags` hold `-x`, alone or in a cluster (`-rf`).
pub(super) fn has_short(flags: &[&str], x: char) -> bool {
    flags
        .iter()
        .any(|f| !f.starts_with("--") && f.get(1..).is_some_and(|c| c.contains(x)))
}

/// True when `flags` hold `--name` or `--name=…`.
pub(super) fn has_long(flags: &[&str], name: &str) -> bool {
    flags.iter().any(|f| {
        f.strip_prefix("--")
            .and_then(|f| f.strip_prefix(name))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    })
}

/// True when `flags` hold `--name`, or an abbreviation of it at least `min` letters long, as
/// GNU tools accept (`rm --rec`). Only for detecting an action: an exemption (`--dry-run`)
/// must be spelt out.
pub(super) fn has_long_abbreviated(flags: &[&str], name: &str, min: usize) -> bool {
    flags.iter().any(|f| {
        f.strip_prefix("--")
            .map(|f| f.split_once('=').map_or(f, |(n, _)| n))
            .is_some_and(|given| given.len() >= min && name.starts_with(given))
    })
}

/// A block device: a disk, a partition, a volume (`/dev/sda1`, `/dev/nvme0n1`, `/dev/disk2`,
/// `/dev/mapper/x`, LVM's `/dev/vg/lv`, `/dev/block/8:0`, `/dev/disk/by-id/…`). The path is
/// read lexically (`/dev//sda`, `/dev/./sda`, `/dev/x/../sda` are `/dev/sda`); a relative one
/// is no device (see [`Env::is_disk_at`]).
pub(super) fn is_disk(path: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "nbd",
        "root", "zd", "rbd", "drbd", "bcache",
    ];
    // Directories of /dev that hold no disk: descriptors, terminals, shared memory, bash's
    // sockets (`/dev/tcp/host/port`), and character devices; every other one (`mapper`,
    // `block`, `disk`, an LVM volume group, `zvol`) holds volumes.
    #[rustfmt::skip]
    const NOT_DISKS: &[&str] = &[
        "fd", "pts", "shm", "tcp", "udp", "mqueue", "hugepages", "net", "snd", "input", "dri",
        "char", "bus", "cpu", "usb", "serial", "vfio", "v4l", "hidraw", "dma_heap",
    ];
    let path = paths::lexical(Path::new(path));
    let Ok(name) = path.strip_prefix("/dev") else {
        return false;
    };
    let names: Vec<_> = name.iter().map(|c| c.to_string_lossy()).collect();
    match names.as_slice() {
        [name] => DISKS.iter().any(|d| name.starts_with(d)),
        [dir, _, ..] => !NOT_DISKS.contains(&dir.as_ref()),
        [] => false,
    }
}

/// The hits of script-wide rules: fork bombs, downloads piped into an interpreter, and the
/// script-wide [`opaque`](super::opaque) rules.
pub(super) fn script_hits(script: &Script, env: &Env<'_>) -> Vec<Hit> {
    let mut hits: Vec<Hit> = script
        .functions
        .iter()
        .filter(|f| f.calls.contains(&f.name))
        .map(|f| {
            hit(
                FORK_BOMB,
                format!("function `{}` calls itself (a fork bomb)", f.name),
            )
        })
        .collect();
    hits.extend(script.pipelines.iter().filter_map(pipe_to_interpreter));
    hits.extend(super::opaque::script_hits(script, env));
    hits
}

/// `curl … | sh`: a download piped into an interpreter that reads code on standard input.
fn pipe_to_interpreter(pipeline: &Pipeline) -> Option<Hit> {
    let download = pipeline
        .commands
        .iter()
        .position(|c| DOWNLOADERS.contains(&c.program.as_str()))?;
    let runner = pipeline.commands[download + 1..]
        .iter()
        .find(|c| matches!(code_of(c), Some(Code::Stdin)))?;
    Some(hit(
        CURL_PIPE_SHELL,
        format!(
            "downloads with {} and pipes it into {}",
            pipeline.commands[download].program, runner.program
        ),
    ))
}

/// Where an interpreter reads the code it runs.
enum Code<'a> {
    Stdin,
    /// These words are (or name) code.
    Words(Vec<&'a str>),
}

fn code_of(command: &Command) -> Option<Code<'_>> {
    if let Some(script) = command.shell_script() {
        return Some(match script {
            ShellScript::Stdin => Code::Stdin,
            ShellScript::Inline(s) | ShellScript::File(s) => Code::Words(vec![s]),
        });
    }
    let program = command.program.as_str();
    match program {
        "eval" => {
            return Some(Code::Words(
                command.args.iter().map(String::as_str).collect(),
            ));
        }
        "source" | "." => {
            return Some(Code::Words(
                command.args.iter().take(1).map(String::as_str).collect(),
            ));
        }
        _ if !(INTERPRETERS.contains(&program) || program.starts_with("python")) => return None,
        _ => {}
    }
    let mut args = command.args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-" => return Some(Code::Stdin),
            "-c" | "-e" | "-E" | "-r" | "--eval" => {
                return Some(Code::Words(args.next().into_iter().collect()));
            }
            "-m" => return None,
            a if a.starts_with('-') => {}
            a => return Some(Code::Words(vec![a])),
        }
    }
    Some(Code::Stdin)
}

/// True when `word` holds a substitution (`$(…)`, backquotes, `<(…)`) that downloads.
fn downloads(word: &str) -> bool {
    word.contains(['`', '('])
        && shell::parse(word).is_ok_and(|s| {
            s.commands()
                .any(|c| DOWNLOADERS.contains(&c.program.as_str()))
        })
}

/// `cargo clean` removes its target directory with everything in it: `--target-dir DIR`, or
/// `CARGO_TARGET_DIR` set for the command.
fn cargo_clean(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut args = command.args.iter().map(String::as_str);
    if !args.clone().any(|a| a == "clean") {
        return Vec::new();
    }
    let mut targets: Vec<String> = command
        .assignments
        .iter()
        .filter_map(|a| a.strip_prefix("CARGO_TARGET_DIR="))
        .map(str::to_owned)
        .collect();
    while let Some(arg) = args.next() {
        if arg == "--target-dir" {
            targets.extend(args.next().map(str::to_owned));
        } else if let Some(dir) = arg.strip_prefix("--target-dir=") {
            targets.push(dir.to_owned());
        }
    }
    let dir = command.dir.as_deref();
    targets
        .iter()
        .filter_map(|t| env.delete_hit(t, dir, "recursive delete (cargo clean)"))
        .collect()
}

/// The hits of one simple command.
pub(super) fn command_hits(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let program = command.program.as_str();
    let (flags, operands) = split_args(&command.args);
    let dir = command.dir.as_deref();
    if command.privileged || matches!(program, "sudo" | "doas" | "su" | "pkexec" | "run0") {
        hits.push(hit(SUDO, "runs a command as another user (sudo, doas, su)"));
    }
    for r in command
        .redirects
        .iter()
        .filter(|r| r.writes_file() && env.is_disk_at(&r.target, dir))
    {
        hits.push(hit(
            DEVICE_WRITE,
            format!("writes to disk device {}", r.target),
        ));
    }
    hits.extend(write_hits(command, &operands, env));
    hits.extend(editor_startup_command(command));
    match program {
        "rm" if has_short(&flags, 'r')
            || has_short(&flags, 'R')
            || has_long_abbreviated(&flags, "recursive", 3) =>
        {
            let operands = operands.iter().filter(|o| !o.is_empty());
            hits.extend(operands.filter_map(|o| env.delete_hit(o, dir, "recursive delete")));
        }
        "find" => hits.extend(find_delete(&command.args, dir, env)),
        "chmod" | "chown" | "chgrp"
            if has_short(&flags, 'R') || has_long_abbreviated(&flags, "recursive", 3) =>
        {
            let rule = if program == "chmod" {
                CHMOD_ROOT
            } else {
                CHOWN_ROOT
            };
            // The first operand is the mode or owner, unless `--reference` or a mode written
            // like a flag (`chmod -R -w /`) took its place.
            let mode_flag = |f: &&str| f.bytes().skip(1).all(|b| b"rwxXst".contains(&b));
            let skip = usize::from(!has_long(&flags, "reference") && !flags.iter().any(mode_flag));
            for operand in operands.iter().skip(skip) {
                // Through variables too, as the shell certainly reads them (`X=/; chmod -R … $X`).
                let readings =
                    std::iter::once(operand.to_string()).chain(env.certain_readings(operand));
                for reading in readings {
                    let (place, path) = env.place(&reading, dir);
                    if matches!(place, Place::Root | Place::Home | Place::System) {
                        hits.push(hit(
                            rule,
                            format!("recursive {program} of {}", path.display()),
                        ));
                        break;
                    }
                }
            }
        }
        p if p.starts_with("mkfs") || FORMATTERS.contains(&p) => {
            hits.push(hit(MKFS, format!("{p} formats or wipes a disk")));
        }
        "dd" => hits.extend(
            operands
                .iter()
                .filter_map(|o| o.strip_prefix("of=").filter(|d| env.is_disk_at(d, dir)))
                .map(|d| hit(DD_DEVICE, format!("dd writes to disk device {d}"))),
        ),
        "shred" => hits.extend(
            operands
                .iter()
                .filter(|o| env.is_disk_at(o, dir))
                .map(|d| hit(SHRED_DEVICE, format!("shred overwrites disk device {d}"))),
        ),
        "tee" | "cp" => hits.extend(
            operands
                .iter()
                .filter(|o| env.is_disk_at(o, dir))
                .map(|d| hit(DEVICE_WRITE, format!("{program} writes to disk device {d}"))),
        ),
        "git" => {
            hits.extend(git(&command.args, env));
            hits.extend(git::pager_config(&command.args));
        }
        // `cargo run --bin hooks -- trust --approve` runs the same approval.
        "hooks" | "cargo" => {
            hits.extend(hooks_approve(&command.args));
            hits.extend(hooks_daemon(program, &command.args));
            if program == "cargo" {
                hits.extend(cargo_clean(command, env));
            }
        }
        // Recursive deletes by other names: a global `rimraf`, `cmake -E rm -r`.
        "rimraf" | "del-cli" => hits.extend(
            operands
                .iter()
                .filter_map(|o| env.delete_hit(o, dir, "recursive delete")),
        ),
        "cmake" if command.args.first().is_some_and(|a| a == "-E") => {
            let sub = command.args.get(1).map(String::as_str);
            let recursive = match sub {
                Some("remove_directory" | "rm_rf") => true,
                Some("rm") => command.args[2..]
                    .iter()
                    .any(|a| a.starts_with('-') && a.contains(['r', 'R'])),
                _ => false,
            };
            if recursive {
                let paths = command.args[2..].iter().filter(|a| !a.starts_with('-'));
                hits.extend(paths.filter_map(|o| env.delete_hit(o, dir, "recursive delete")));
            }
        }
        _ => {}
    }
    if downloads(program) {
        hits.push(hit(
            CURL_PIPE_SHELL,
            "runs the output of a download as a command",
        ));
    }
    if let Some(Code::Words(code)) = code_of(command) {
        let herestrings = command
            .redirects
            .iter()
            .filter(|r| r.op == RedirectOp::HereString)
            .map(|r| r.target.as_str());
        if code.into_iter().chain(herestrings).any(downloads) {
            hits.push(hit(
                CURL_PIPE_SHELL,
                format!("{program} runs code downloaded by a substitution"),
            ));
        }
    }
    hits.extend(super::opaque::command_hits(command, env));
    hits.extend(super::interp::command_hits(command, env));
    // The first hit of each rule is the one reported: a command with thousands of
    // redirections to system files is one finding, not thousands of reasons that each
    // quote it.
    let mut seen: Vec<&str> = Vec::new();
    hits.retain(|hit| {
        let first = !seen.contains(&hit.rule.id);
        seen.push(hit.rule.id);
        first
    });
    hits
}

/// vi's family: what a `+cmd` argument runs is an ex command.
const VI_EDITORS: &[&str] = &[
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "vimdiff",
    "gvim",
    "rvim",
    "evim",
    "vim.basic",
    "vim.tiny",
];

/// `vim +cmd`: any ex command can run a shell one (`+!cmd`, `+r !cmd`, `+5!cmd`,
/// `+call system(…)`, `+/x/!cmd`). Only `+`, `+N`, `+$` and a search with nothing after it
/// (`+/pattern`, `+?pattern`, no `|` and no second delimiter) just move the cursor. Each
/// argument is judged alone (`vim +/x 'a|b.txt'` is a search and a file).
fn editor_startup_command(command: &Command) -> Option<Hit> {
    if !VI_EDITORS.contains(&command.program.as_str()) {
        return None;
    }
    let moves_only = |cmd: &str| {
        if cmd.is_empty() || cmd == "$" || cmd.bytes().all(|b| b.is_ascii_digit()) {
            return true;
        }
        let Some(delimiter) = cmd.chars().next().filter(|c| matches!(c, '/' | '?')) else {
            return false;
        };
        let mut escaped = false;
        for c in cmd.chars().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '|' => return false,
                c if c == delimiter => return false,
                _ => {}
            }
        }
        true
    };
    let arg = (command.args.iter())
        .take_while(|a| *a != "--")
        .filter_map(|a| a.strip_prefix('+'))
        .find(|cmd| !moves_only(cmd))?;
    Some(hit(
        EDITOR_STARTUP_COMMAND,
        format!(
            "{} runs the ex command `{}` given on its command line, and an ex command can run a shell one (`+!cmd`, `+r !cmd`, `+call system(…)`); only `+N` and `+/pattern` just move the cursor",
            command.program,
            arg.escape_debug()
        ),
    ))
}

/// `hooks trust … --approve`: approving hooks is a person's review of what they run; an agent
/// that approves its own edited hook has switched that guard off.
fn hooks_approve(args: &[String]) -> Option<Hit> {
    let trust = args.iter().any(|a| a == "trust");
    let approves = args
        .iter()
        .any(|a| a == "--approve" || a == "--accept-unhashed" || a.starts_with("--approve="));
    (trust && approves).then(|| {
        hit(
            HOOKS_APPROVE,
            "approving hooks is for a person to do after reviewing them, in their own terminal",
        )
    })
}

/// `hooks serve` and `hooks install`: the daemon that answers for every agent of the user, and
/// the agent's own hook settings, are the guard's; an agent that starts its own daemon or
/// rewrites the entries has replaced the guard that watches it.
fn hooks_daemon(program: &str, args: &[String]) -> Option<Hit> {
    // `cargo run … -- serve`: what follows `--` is the binary's command line.
    let args = if program == "cargo" {
        let run = args.iter().any(|a| a == "run");
        let after = args.iter().position(|a| a == "--")?;
        if !run {
            return None;
        }
        &args[after + 1..]
    } else {
        args
    };
    let sub = args.iter().find(|a| !a.starts_with('-'))?;
    matches!(sub.as_str(), "serve" | "install").then(|| {
        hit(
            HOOKS_DAEMON,
            format!(
                "`hooks {sub}` starts or rewires the hooks that guard this agent; a person does that, in their own terminal"
            ),
        )
    })
}

#[cfg(test)]
mod tests;
