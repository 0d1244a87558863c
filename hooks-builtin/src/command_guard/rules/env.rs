//! Where a command runs (the project root, the working directory, the home directory, the
//! values its line gives variables) and where its path operands land from there.

use std::cell::{OnceCell, RefCell};
use std::path::{Component, Path, PathBuf};

use super::*;

/// Where the command runs: the project root, the working directory, the home directory and
/// the git branch.
pub(in crate::command_guard) struct Env<'a> {
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
    /// The links the script makes, (link, what it reaches) ([`shell::links::links_made`]).
    links: Vec<(String, String)>,
    /// The script makes globs match dot files (`shopt -s dotglob`).
    dot_globs: bool,
    /// Commands found in code the builtin rules judged on their own (an interpreter's
    /// `os.system('…')`), for the pack and user rules to see too.
    nested: RefCell<Vec<shell::Command>>,
}

/// Where a path operand points, from most to least dangerous to delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::command_guard) enum Place {
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
    pub(in crate::command_guard) fn new(
        root: &'a Path,
        cwd: &'a Path,
        protected: &'a [String],
    ) -> Self {
        Env {
            root,
            cwd,
            resolved: OnceCell::new(),
            undecided: RefCell::new(None),
            protected,
            variables: shell::Variables::default(),
            links: Vec::new(),
            dot_globs: false,
            nested: RefCell::new(Vec::new()),
        }
    }

    /// Records a command found in code (see [`Env::take_nested`]).
    pub(in crate::command_guard) fn push_nested(&self, command: shell::Command) {
        self.nested.borrow_mut().push(command);
    }

    /// The commands found in code since the last call: the builtin rules judged them where
    /// they were found; the pack and user rules, which live in the guard, judge them here.
    pub(in crate::command_guard) fn take_nested(&self) -> Vec<shell::Command> {
        std::mem::take(&mut *self.nested.borrow_mut())
    }

    /// The values the command line gives variables: a deleted or written path that uses
    /// names with one value each is judged with them put in too (`X=/; rm -rf $X` is
    /// `rm-root`).
    pub(in crate::command_guard) fn with_variables(
        mut self,
        variables: shell::Variables<'a>,
    ) -> Self {
        self.variables = variables;
        self
    }

    /// The links the script makes (`ln -s / r`, `mount --bind /etc m`): a path through one is
    /// judged as where it leads too (`rm -rf r/*` is `rm -rf /*`).
    pub(in crate::command_guard) fn with_links(mut self, links: Vec<(String, String)>) -> Self {
        self.links = links;
        self
    }

    /// Whether globs match dot files too (`shopt -s dotglob`): a glob that reaches any
    /// depth (`**/objects`) may then reach the repository.
    pub(in crate::command_guard) fn with_dot_globs(mut self, dot_globs: bool) -> Self {
        self.dot_globs = dot_globs;
        self
    }

    /// Whether the line makes globs match dot names ([`shell::globbing::dot_names`]).
    pub(in crate::command_guard) fn dot_globs(&self) -> bool {
        self.dot_globs
    }

    /// The readings of `word` through variables the shell certainly makes
    /// ([`shell::Variables::certain`]), and as the plain globs its pattern syntax stands for
    /// ([`shell::globbing::pattern_readings`]: `.@(claude)`, `!(keep)`).
    /// Read through the links the script makes too (`ln -s / r; rm -rf r/*`), but not a link
    /// alone: `rm -rf r` deletes the link.
    pub(in crate::command_guard) fn certain_readings(&self, word: &str) -> Vec<String> {
        self.readings(word, false)
    }

    /// [`Env::certain_readings`], a link alone read through when `whole` (what a write
    /// follows: `ln -s /etc/passwd p; echo x > p`).
    pub(in crate::command_guard) fn readings(&self, word: &str, whole: bool) -> Vec<String> {
        let mut readings = self.variables.certain(word).unwrap_or_default();
        // The plain globs an extglob or zsh pattern stands for (`.@(claude)`, `!(keep)`).
        readings.extend(shell::globbing::pattern_readings(word));
        if !self.links.is_empty() {
            // A link to a link (`ln -s / a; ln -s a b`): until nothing new, one round per link
            // at most.
            let mut last: Vec<String> = std::iter::once(word.to_owned())
                .chain(readings.iter().cloned())
                .collect();
            for _ in 0..=self.links.len() {
                // A link made to a variable's value (`t=/; ln -s $t r`) reaches that value.
                let through: Vec<String> = (last.iter())
                    .flat_map(|w| {
                        shell::links::through_links(w, &self.links, whole, Some(self.cwd))
                    })
                    .flat_map(|w| {
                        let values = (w.contains('$'))
                            .then(|| self.variables.certain(&w))
                            .flatten()
                            .unwrap_or_default();
                        std::iter::once(w).chain(values)
                    })
                    .filter(|w| !readings.contains(w) && w != word)
                    .collect();
                if through.is_empty() {
                    break;
                }
                readings.extend(through.iter().cloned());
                last = through;
            }
        }
        readings
    }

    /// Why no verdict could be reached on a command that needs the project root, if so.
    pub(in crate::command_guard) fn undecided(&self) -> Option<String> {
        self.undecided.borrow().clone()
    }

    /// Records that deleting `operand` (at `path`) needs the project root, which is refused.
    pub(super) fn cannot_decide(&self, operand: &str, path: &Path) {
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
    pub(super) fn resolved(&self) -> (&Result<PathBuf, String>, Option<&Path>) {
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
    pub(in crate::command_guard) fn place(
        &self,
        operand: &str,
        dir: Option<&str>,
    ) -> (Place, PathBuf) {
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
        // dot files too, `@(*)`, `!(keep)`, `*~x`, `<1-9>`) is not read here: such a glob
        // stays its directory. `**` reaches any depth, none included (`**/.git` is `.git` in
        // zsh or with bash's globstar): read only in the project root, under both readings.
        let unread = |p: &&str| p.contains(['(', ')', '~', '^', '#', '|', '<', '>']);
        // zsh's `***` is `**` that follows links.
        let deep = |p: &str| p.len() >= 2 && p.chars().all(|c| c == '*');
        let globstar = parts.iter().any(|p| deep(p));
        // With dot files matched, `**` reaches into `.git`: such a glob stays its directory.
        if globstar && self.dot_globs {
            return false;
        }
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
                    let shallow: Vec<&str> = (parts.iter().copied()).filter(|p| !deep(p)).collect();
                    let dots = self.dot_globs;
                    return !could_match_kept(&parts, dots)
                        && !(globstar && (shallow.is_empty() || could_match_kept(&shallow, dots)));
                }
                if globstar {
                    return false;
                }
                // Each part could match the root's path below `dir`, and it stops at the root or
                // above: it could take the project.
                let takes_root = parts.len() <= below.len()
                    && parts.iter().zip(&below).all(|(p, b)| could_match(p, b));
                !takes_root
            }
            Place::System => !globstar && TEMP_DIRS.iter().any(|t| Path::new(t) == dir),
            _ => false,
        }
    }

    /// The hit for deleting `operand` with everything under it (`how`: `recursive delete`).
    /// An operand that uses variables the command line gives values is judged with them put in
    /// too, when the shell certainly reads it so ([`shell::Variables::certain`]: one
    /// assignment, or one loop's values), and is denied when such a reading is (a variable set
    /// elsewhere, or by several statements, still makes it `rm-unknown-variable`).
    pub(in crate::command_guard) fn delete_hit(
        &self,
        operand: &str,
        dir: Option<&str>,
        how: &str,
    ) -> Option<Hit> {
        // In a directory reached through a link (`ln -s / r && cd r && rm -rf *`), the
        // operand joined to it is read through the links too, from where the script started.
        let joined = dir
            .filter(|d| !d.starts_with(['/', '~', '$']) && !operand.starts_with(['/', '~', '$']))
            .map(|d| self.certain_readings(&format!("{d}/{operand}")))
            .unwrap_or_default();
        let denied = (self.certain_readings(operand).iter())
            .map(|known| (known, dir))
            .chain(joined.iter().map(|known| (known, None)))
            .filter_map(|(known, dir)| self.delete_hit_of(known, dir, how))
            .find(|hit| hit.rule.class == Class::Deny);
        denied.or_else(|| self.delete_hit_of(operand, dir, how))
    }

    /// [`Env::delete_hit`], for the operand as written.
    fn delete_hit_of(&self, operand: &str, dir: Option<&str>, how: &str) -> Option<Hit> {
        if let Some(hit) = super::super::opaque::unknown_variable(operand, how) {
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
        // A path that is a substitution's output (`$(find . -name 'tmp*')`, what `… | xargs rm
        // -rf` deletes) is computed when it runs: a glob in the command that computes it is
        // that command's, not a glob of this path.
        let expanded = expand_variables(operand);
        if expanded.starts_with("$(") || expanded.starts_with('`') {
            return Some(hit(
                RM_OUTSIDE_PROJECT,
                format!("{how} of a path computed when it runs (`{operand}`)"),
            ));
        }
        let (place, path) = self.place(operand, dir);
        if place == Place::Unknown {
            self.cannot_decide(operand, &path);
            return None;
        }
        let git_dir = place == Place::Inside && self.is_project_git_dir(&path);
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
            Place::System => hit(
                RM_SYSTEM,
                format!("{how} of {path}, a system directory or in one"),
            ),
            Place::Outside => hit(
                RM_OUTSIDE_PROJECT,
                format!("{how} outside the project root ({path})"),
            ),
            Place::Unknown | Place::Temp => return None,
            Place::Inside => {
                if git_dir {
                    return Some(hit(
                        RM_GIT_DIR,
                        format!(
                            "{how} of the project's repository, its whole history (`{operand}`)"
                        ),
                    ));
                }
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

    /// Whether `path` is the project root's `.git` or a wildcard of its entries (`.git/*`).
    fn is_project_git_dir(&self, path: &Path) -> bool {
        let (Ok(root), _) = self.resolved() else {
            return false;
        };
        // Case does not count: macOS's and Windows' disks take `.GIT` for `.git`.
        let is_git = |p: &Path| {
            p.parent() == Some(root.as_path())
                && p.file_name()
                    .is_some_and(|n| n.eq_ignore_ascii_case(".git"))
        };
        // The history is its objects and refs (`rm -rf .git/objects` loses it as surely as
        // `rm -rf .git`); a glob there may name them.
        is_git(path)
            || (path.parent().is_some_and(is_git)
                && path.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy().to_ascii_lowercase();
                    n.contains(['*', '?', '['])
                        || matches!(n.as_ref(), "objects" | "refs" | "packed-refs" | "head")
                }))
    }

    /// The current branch, from `.git/HEAD` of the repository holding the working directory.
    pub(super) fn current_branch(&self) -> Option<String> {
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

    pub(in crate::command_guard) fn is_protected(&self, branch: &str) -> bool {
        self.protected.iter().any(|p| wildcard(p, branch))
    }

    /// True when `path`, written in a command that runs in `dir`, is a disk device
    /// ([`is_disk`]): a relative path starts at that directory (`cd /dev && dd of=sda`).
    pub(in crate::command_guard) fn is_disk_at(&self, path: &str, dir: Option<&str>) -> bool {
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
pub(in crate::command_guard) fn in_temp_dir(path: &Path) -> bool {
    TEMP_DIRS
        .iter()
        .any(|t| path.starts_with(t) && path != Path::new(t))
}

/// `$TMPDIR` when this process's `TMPDIR` is known to be a temporary directory (`/tmp`, or
/// inside one of [`TEMP_DIRS`]); else it stays a variable the guard cannot know.
pub(in crate::command_guard) fn tmpdir() -> Option<String> {
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
pub(super) fn glob_parts(operand: &str) -> Vec<&str> {
    operand
        .split('/')
        .skip_while(|part| !part.contains(['*', '?', '[']))
        .filter(|part| !part.is_empty())
        .collect()
}

/// True when a glob component matches any name but for its dots: `*`, `.*`, `**`, `?*`,
/// `*.*`, `[a-z]*`; not `*.log` or `build*`.
pub(super) fn is_pure_wildcard(part: &str) -> bool {
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
/// it is the only one and matches one of [`KEPT_FILES`]. Names are matched as shells do
/// (a leading dot only by a pattern that starts with one: `.g*`, not `*/x`) unless the line
/// makes globs match dot names (`dots`: `shopt -s dotglob; rm -rf ?git`).
pub(super) fn could_match_kept(parts: &[&str], dots: bool) -> bool {
    let Some(first) = parts.first() else {
        return false;
    };
    // Case does not count: macOS's and Windows' disks take `.GIT` for `.git`.
    let first = first.to_ascii_lowercase();
    let matches = |name: &&str| {
        (dots || !name.starts_with('.') || first.starts_with(['.', '[']))
            && could_match(&first, name)
    };
    KEPT_DIRS.iter().any(matches) || (parts.len() == 1 && KEPT_FILES.iter().any(matches))
}

/// Directories at the project root that a glob deleting entries there must not be able to
/// take: the repository and the hooks' own configuration (DESIGN §8).
const KEPT_DIRS: &[&str] = &[".git", ".hooks", ".claude", ".gemini", ".codex", ".config"];

/// Files at the project root a glob must not be able to take: the hooks' project files.
const KEPT_FILES: &[&str] = &["hooks.toml", "hooks.yaml", "hooks.yml", "hooks.json"];
