//! The builtin rules: what each one catches.

use std::cell::{OnceCell, RefCell};
use std::path::{Component, Path, PathBuf};

use crate::paths::{self, PathError};
use crate::shell::{self, Command, Pipeline, RedirectOp, Script, ShellScript};

use super::user::wildcard;

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
    }
    "core.git" {
        GIT_FORCE_PUSH_PROTECTED = "git-force-push-protected", Deny;
        GIT_RESET_HARD = "git-reset-hard", Ask;
        GIT_CLEAN = "git-clean", Ask;
        GIT_DISCARD = "git-discard", Ask;
        GIT_FORCE_PUSH = "git-force-push", Ask;
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
/// `find` tests that select some files, so a `-delete` does not take the whole tree (`-type`
/// does not: `find . -type f -delete` empties the tree).
#[rustfmt::skip]
const FIND_TESTS: &[&str] = &[
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer",
    "-size", "-empty", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum", "-lname",
    "-samefile", "-nouser", "-nogroup", "-used",
];

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
        }
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

    /// Where `operand` of a command running in `dir` (see [`Command::dir`]) points; a glob
    /// (`/*`, `*`, `~/{a,b}`) counts as its directory.
    pub(super) fn place(&self, operand: &str, dir: Option<&str>) -> (Place, PathBuf) {
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
        let home = home.as_deref();
        let base = dir.and_then(|d| paths::resolve(&expand_variables(d), self.cwd, home).ok());
        let operand = expand_variables(operand);
        let dir = glob_dir(&operand);
        let path = match paths::resolve(dir, base.as_deref().unwrap_or(self.cwd), home) {
            Ok(path) => path,
            Err(PathError::OtherUsersHome(_) | PathError::NoHome(_)) => {
                return (Place::Home, PathBuf::from(dir));
            }
            Err(_) => return (Place::Outside, PathBuf::from(dir)),
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

    /// The hit for deleting `operand` with everything under it (`how`: `recursive delete`).
    pub(super) fn delete_hit(&self, operand: &str, dir: Option<&str>, how: &str) -> Option<Hit> {
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

/// A block device: a disk, a partition, a volume (`/dev/sda1`, `/dev/nvme0n1`, `/dev/disk2`).
pub(super) fn is_disk(path: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
        "nbd", "root",
    ];
    path.strip_prefix("/dev/")
        .is_some_and(|name| DISKS.iter().any(|d| name.starts_with(d)))
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
        .filter(|r| r.writes_file() && is_disk(&r.target))
    {
        hits.push(hit(
            DEVICE_WRITE,
            format!("writes to disk device {}", r.target),
        ));
    }
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
                let (place, path) = env.place(operand, dir);
                if matches!(place, Place::Root | Place::Home | Place::System) {
                    hits.push(hit(
                        rule,
                        format!("recursive {program} of {}", path.display()),
                    ));
                }
            }
        }
        p if p.starts_with("mkfs") || matches!(p, "mke2fs" | "wipefs") => {
            hits.push(hit(MKFS, format!("{p} formats or wipes a disk")));
        }
        "dd" => hits.extend(
            operands
                .iter()
                .filter_map(|o| o.strip_prefix("of=").filter(|d| is_disk(d)))
                .map(|d| hit(DD_DEVICE, format!("dd writes to disk device {d}"))),
        ),
        "shred" => hits.extend(
            operands
                .iter()
                .filter(|o| is_disk(o))
                .map(|d| hit(SHRED_DEVICE, format!("shred overwrites disk device {d}"))),
        ),
        "tee" | "cp" => hits.extend(
            operands
                .iter()
                .filter(|o| is_disk(o))
                .map(|d| hit(DEVICE_WRITE, format!("{program} writes to disk device {d}"))),
        ),
        "git" => hits.extend(git(&command.args, env)),
        // `cargo run --bin hooks -- trust --approve` runs the same approval.
        "hooks" | "cargo" => {
            hits.extend(hooks_approve(&command.args));
            hits.extend(hooks_daemon(program, &command.args));
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
    hits
}

/// `find PATH -delete` or `find PATH -exec rm …`: with no test, the whole tree goes.
fn find_delete(args: &[String], dir: Option<&str>, env: &Env<'_>) -> Vec<Hit> {
    let mut rest = args.iter().map(String::as_str).peekable();
    while let Some(option) =
        rest.next_if(|a| matches!(*a, "-H" | "-L" | "-P" | "-D") || a.starts_with("-O"))
    {
        if option == "-D" {
            rest.next();
        }
    }
    let mut starts: Vec<&str> = Vec::new();
    while let Some(path) = rest.next_if(|a| !a.starts_with(['-', '(', '!', ')', ','])) {
        starts.push(path);
    }
    let expression: Vec<&str> = rest.collect();
    let deletes = outside_actions(&expression).any(|a| a == "-delete")
        || expression.windows(2).any(|w| {
            matches!(w[0], "-exec" | "-execdir" | "-ok" | "-okdir")
                && w[1].rsplit('/').next() == Some("rm")
        });
    if !deletes {
        return Vec::new();
    }
    if starts.is_empty() {
        starts.push(".");
    }
    let filtered = outside_actions(&expression).any(|a| FIND_TESTS.contains(&a));
    starts
        .into_iter()
        .filter_map(|start| {
            if !filtered {
                return env.delete_hit(start, dir, "recursive delete (find)");
            }
            if let Some(hit) = super::opaque::unknown_variable(start, "find deletes files") {
                return Some(hit);
            }
            let (place, path) = env.place(start, dir);
            if place == Place::Unknown {
                env.cannot_decide(start, &path);
                return None;
            }
            (!matches!(place, Place::Inside | Place::Project)).then(|| {
                hit(
                    RM_OUTSIDE_PROJECT,
                    format!(
                        "find deletes files outside the project root ({})",
                        path.display()
                    ),
                )
            })
        })
        .collect()
}

/// The words of a `find` expression that are not part of an `-exec`/`-execdir`/`-ok`/`-okdir`
/// command (`find . -exec echo -delete \;` runs `echo`; it does not delete).
fn outside_actions<'a>(expression: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    let mut in_action = false;
    expression.iter().copied().filter(move |word| {
        if in_action {
            in_action = !matches!(*word, ";" | "+");
            return false;
        }
        in_action = matches!(*word, "-exec" | "-execdir" | "-ok" | "-okdir");
        !in_action
    })
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

/// `git push --force` and friends, `git reset --hard`, `git clean -fd`, `git checkout -- .`.
fn git(args: &[String], env: &Env<'_>) -> Vec<Hit> {
    const WITH_VALUE: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--config-env",
        "--exec-path",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i).filter(|a| a.starts_with('-')) {
        i += if WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let Some((sub, rest)) = args.get(i..).and_then(<[String]>::split_first) else {
        return Vec::new();
    };
    let (flags, operands) = split_args(rest);
    let discards = |ops: &[&str]| {
        ops.iter()
            .any(|o| matches!(*o, "." | "./" | "*" | ":/" | ":/*" | ":(top)"))
    };
    match sub.as_str() {
        "push" => push(&flags, &operands, env),
        "reset" if has_long(&flags, "hard") => {
            vec![hit(
                GIT_RESET_HARD,
                "git reset --hard discards uncommitted changes",
            )]
        }
        "clean"
            if (has_short(&flags, 'f') || has_long(&flags, "force"))
                && ['d', 'x', 'X'].iter().any(|x| has_short(&flags, *x)) =>
        {
            vec![hit(
                GIT_CLEAN,
                "git clean deletes untracked directories or ignored files",
            )]
        }
        "checkout" if discards(&operands) => {
            vec![hit(
                GIT_DISCARD,
                "git checkout of every path discards uncommitted changes",
            )]
        }
        "restore"
            if discards(&operands)
                && (!(has_short(&flags, 'S') || has_long(&flags, "staged"))
                    || has_short(&flags, 'W')
                    || has_long(&flags, "worktree")) =>
        {
            vec![hit(
                GIT_DISCARD,
                "git restore of every path discards uncommitted changes",
            )]
        }
        _ => Vec::new(),
    }
}

fn push(flags: &[&str], operands: &[&str], env: &Env<'_>) -> Vec<Hit> {
    // A lease (`--force-with-lease`, `--force-if-includes` with it) refuses to overwrite work
    // the pusher has not seen, so it is only refused on protected branches.
    let hard = has_short(flags, 'f') || has_long(flags, "force") || has_long(flags, "mirror");
    let lease = has_long(flags, "force-with-lease");
    // `--prune` deletes the remote branches that have no local counterpart.
    let delete = has_short(flags, 'd') || has_long(flags, "delete") || has_long(flags, "prune");
    let all = ["all", "mirror", "branches"]
        .iter()
        .any(|f| has_long(flags, f));
    // (branch, force: hard or by lease, deleted); `None` is every branch, or a current
    // branch not known.
    let mut targets: Vec<(Option<String>, Option<Force>, bool)> = Vec::new();
    let force = if hard {
        Some(Force::Hard)
    } else if lease {
        Some(Force::Lease)
    } else {
        None
    };
    for spec in operands.iter().skip(1) {
        let (plus, spec) = match spec.strip_prefix('+') {
            Some(spec) => (true, spec),
            None => (false, *spec),
        };
        let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
        let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
        let branch = if dst == "HEAD" {
            env.current_branch()
        } else if dst.contains('*') {
            None // `refs/heads/*`: every branch
        } else {
            Some(dst.to_owned())
        };
        let forced = if plus { Some(Force::Hard) } else { force };
        targets.push((branch, forced, delete || src.is_empty()));
    }
    if targets.is_empty() && (force.is_some() || delete) {
        let branch = if all { None } else { env.current_branch() };
        targets.push((branch, force, delete));
    }
    targets
        .into_iter()
        .filter(|(_, forced, deleted)| forced.is_some() || *deleted)
        .filter_map(|(branch, forced, deleted)| {
            let verb = if deleted {
                "remote delete of"
            } else {
                "force push to"
            };
            Some(match branch {
                Some(b) if !env.is_protected(&b) => {
                    let hard = forced == Some(Force::Hard);
                    return (!deleted && hard)
                        .then(|| hit(GIT_FORCE_PUSH, format!("{verb} branch {b}")));
                }
                Some(b) => hit(
                    GIT_FORCE_PUSH_PROTECTED,
                    format!("{verb} protected branch {b}"),
                ),
                None => hit(
                    GIT_FORCE_PUSH_PROTECTED,
                    format!("{verb} every branch, or a current branch that cannot be told"),
                ),
            })
        })
        .collect()
}

/// How a push forces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Force {
    /// `--force`, `-f`, `--mirror`, `+refspec`: overwrites whatever is there.
    Hard,
    /// `--force-with-lease`: overwrites only what the pusher has seen.
    Lease,
}
