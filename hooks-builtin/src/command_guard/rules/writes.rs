//! What a command writes (file redirections, `tee`, the destination of `cp`/`mv`/`install`/
//! `ln`, `dd of=`), judged by where it lands: a system file, a git hook or config, a shell's
//! startup file.

use super::*;
use crate::paths::ProjectRootError;

/// Files a write to runs nothing and breaks nothing: the null device, the standard streams,
/// the terminal, and bash's network pseudo-devices. Prefixes end in `/`.
const HARMLESS: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/fd/",
    "/proc/self/fd/",
    "/dev/shm/",
    "/dev/pts/",
    "/dev/tcp/",
    "/dev/udp/",
    "/run/user/",
];

/// The startup files a shell reads, relative to the home directory: what is written there
/// runs in every new shell (and the agent's next command).
const SHELL_STARTUP: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".bash_aliases",
    ".config/fish/config.fish",
];

/// Directories of the home directory whose files run at every shell or login: the
/// startup files' drop-in directories, fish's functions (one replaces the command of its
/// name), and the user's services and autostart entries.
const STARTUP_DIRS: &[&str] = &[
    ".bashrc.d",
    ".zshrc.d",
    ".config/fish/conf.d",
    ".config/fish/functions",
    ".config/systemd/user",
    ".config/autostart",
];

/// The hits of what `command` writes.
pub(super) fn write_hits(command: &Command, operands: &[&str], env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let dir = command.dir.as_deref();
    let (all, mut by_place) = written(command, operands, env);
    // A path through variables is judged as the values the shell certainly puts in too
    // (`f=/etc/passwd; echo x > $f`).
    let readings: Vec<String> = (all.iter().copied())
        .chain(by_place.iter().map(String::as_str))
        .flat_map(|p| env.certain_readings(p))
        .collect();
    let all: Vec<&str> = all
        .iter()
        .copied()
        .chain(readings.iter().map(String::as_str))
        .collect();
    by_place.extend(readings.iter().cloned());
    // As written, and where it lands (`cd .git && echo >> config`, `.git//hooks/x`).
    let git_path = |path: &str| {
        git_runs_from(path) || git_runs_from(&env.place(path, dir).1.to_string_lossy())
    };
    for path in all.iter().filter(|p| git_path(p)) {
        hits.push(hit(
            GIT_HOOK_WRITE,
            format!(
                "writes {path}: git runs its hooks, and the commands its config names, on a later git command"
            ),
        ));
    }
    for path in by_place {
        if harmless(&path) || env.is_disk_at(&path, dir) {
            continue;
        }
        // `~user/…` (another user's home: `~root/../etc/passwd`, `~bin/sh`) and `~-/…` (the
        // last directory) go where the guard does not resolve.
        if path.starts_with('~')
            && !path.starts_with("~/")
            && path != "~"
            && !path.starts_with("~+")
        {
            hits.push(hit(
                SYSTEM_PATH_WRITE,
                format!("writes {path}, under another user's home or a directory the guard cannot resolve"),
            ));
            continue;
        }
        let (place, resolved) = env.place(&path, dir);
        let shown = resolved.display();
        // A device other than a disk (`/dev/console`, `/dev/kmsg`, `/dev/mem`) is no file the
        // system runs: asked about, not denied.
        let place = match place {
            Place::System if resolved.starts_with("/dev") => Place::Outside,
            place => place,
        };
        match place {
            // A file right under a system directory (`/etc/passwd`, `/etc/sudoers`, `/boot/x`).
            Place::System => hits.push(hit(
                SYSTEM_FILE_WRITE,
                format!("writes {path} ({shown}), a file the system runs or reads"),
            )),
            Place::Outside if env.in_system_tree(&resolved) => hits.push(hit(
                SYSTEM_PATH_WRITE,
                format!("writes {path} ({shown}), in a system tree"),
            )),
            Place::Outside if env.is_shell_startup(&resolved) => hits.push(hit(
                SHELL_STARTUP_WRITE,
                format!("writes {path} ({shown}), which every new shell runs"),
            )),
            _ => {}
        }
    }
    hits
}

/// What `command` writes: every path it writes (for `git-hook-write`: file redirections,
/// `tee`'s files, the destination of `cp`, `mv`, `install`, `ln` and `dd of=`), and the
/// files among them judged by place. Moves and links into system places are the pack rules'
/// (`mv-system-path`, `ln-force-system-path`); a copy into a directory writes each source's
/// name there (`cp x /etc/cron.d/` writes `/etc/cron.d/x`).
fn written<'a>(
    command: &'a Command,
    operands: &[&'a str],
    env: &Env<'_>,
) -> (Vec<&'a str>, Vec<String>) {
    let redirects = command
        .redirects
        .iter()
        .filter(|r| r.writes_file())
        .map(|r| r.target.as_str());
    let mut all: Vec<&str> = redirects.clone().collect();
    let mut by_place: Vec<String> = redirects.map(str::to_owned).collect();
    match command.program.as_str() {
        "tee" => {
            all.extend(operands);
            by_place.extend(operands.iter().map(|o| (*o).to_owned()));
        }
        "cp" | "mv" | "install" | "ln" => {
            // The values of their options are no operands (`mv x /etc/passwd -S .bak`,
            // `install -m 644 x /etc/passwd`), and `-t DIR` is where they write.
            const VALUES: &[&str] = &[
                "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group",
            ];
            const TARGET: &[&str] = &["-t", "--target-directory"];
            let split = crate::command_guard::packs::operands::split(&command.args, VALUES, TARGET);
            let operands = &split.operands[..];
            let target_dir = split.targets.last().copied();
            let (dest, sources) = match target_dir {
                Some(dir) => (Some(dir), operands),
                None => match operands.split_last() {
                    Some((dest, sources)) => (Some(*dest), sources),
                    None => (None, operands),
                },
            };
            all.extend(dest);
            // `install -d DIR…` only makes directories.
            let makes_dirs = command.program == "install"
                && (command.args.iter()).any(|a| {
                    a == "--directory"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('d'))
                });
            // `ln`'s destination is the pack's (`ln-force-system-path`: linking
            // `/etc/localtime` is ordinary setup).
            // Moving system files about is the pack's (`mv-system`, `mv-system-path`): a move
            // is judged here unless all it moves is in a system place (`/dev/shm` is none).
            let moves_system = command.program == "mv"
                && !sources.is_empty()
                && sources.iter().all(|s| {
                    let (place, path) = env.place(s, command.dir.as_deref());
                    matches!(place, Place::Root | Place::Home | Place::System)
                        || (place != Place::Temp && env.in_system_tree(&path))
                });
            if matches!(command.program.as_str(), "cp" | "install" | "mv")
                && !makes_dirs
                && !moves_system
                && let Some(dest) = dest
            {
                let into_dir = target_dir.is_some()
                    || dest.ends_with('/')
                    || sources.len() > 1
                    || env.place(dest, command.dir.as_deref()).1.is_dir();
                if into_dir {
                    // A glob's names are the ones it matches where it is written.
                    by_place.extend(
                        sources
                            .iter()
                            .filter(|s| !s.contains(['*', '?', '[']))
                            .filter_map(|s| Path::new(s).file_name()?.to_str())
                            .map(|name| format!("{}/{name}", dest.trim_end_matches('/'))),
                    );
                } else {
                    by_place.push(dest.to_owned());
                }
            }
        }
        "dd" => {
            let of = operands.iter().filter_map(|o| o.strip_prefix("of="));
            all.extend(of.clone());
            by_place.extend(of.map(str::to_owned));
        }
        _ => {}
    }
    (all, by_place)
}

/// A write to `path` that runs and breaks nothing ([`HARMLESS`]), judged on its text.
fn harmless(path: &str) -> bool {
    let path = paths::lexical(Path::new(path));
    let Some(path) = path.to_str() else {
        return false;
    };
    HARMLESS.iter().any(|h| match h.strip_suffix('/') {
        Some(dir) => path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/')),
        None => path == *h,
    })
}

/// A git hook (`.git/hooks/…`, or the directory itself), a repository's config
/// (`.git/config`, `config.worktree`, a submodule's under `.git/modules/`) or the user's
/// (`~/.gitconfig`, `~/.config/git/config`): git runs what they hold or name
/// (`core.fsmonitor`, `core.hooksPath`, aliases) on a later git command. A bare repository's
/// (`x.git/hooks/`) counts too.
fn git_runs_from(path: &str) -> bool {
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

impl Env<'_> {
    /// True when the absolute, resolved `path` lies in a tree that belongs to the system
    /// (`/etc/ssh/sshd_config`, `/usr/local/bin/x`), and not in the home directory.
    pub(in crate::command_guard) fn in_system_tree(&self, path: &Path) -> bool {
        let (_, home) = self.resolved();
        !home.is_some_and(|h| path.starts_with(h))
            && matches!(
                paths::check_project_root(path, None),
                Err(ProjectRootError::System(_))
            )
    }

    /// True when the resolved `path` is one of the home directory's [`SHELL_STARTUP`] files,
    /// or in one of its [`STARTUP_DIRS`].
    fn is_shell_startup(&self, path: &Path) -> bool {
        let (_, home) = self.resolved();
        home.and_then(|h| path.strip_prefix(h).ok())
            .is_some_and(|rest| {
                SHELL_STARTUP.iter().any(|f| rest == Path::new(f))
                    || STARTUP_DIRS
                        .iter()
                        .any(|d| rest.starts_with(d) && rest != Path::new(d))
            })
    }
}
