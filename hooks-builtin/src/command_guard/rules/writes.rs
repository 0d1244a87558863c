//! What a command writes (file redirections, `tee`, the destination of `cp`/`mv`/`install`/
//! `ln`/`rsync`/`scp`, the directory `tar` and `unzip` extract into, `dd of=`), judged by where
//! it lands: a system file, a git hook or config, a shell's startup file.

use super::git_paths::{git_glob_readings, git_runs_from};
use super::*;
use crate::command_guard::packs::operands;
use crate::paths::ProjectRootError;
use crate::shell::TAR_SHORT;

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
    ".zshrc.local",
    ".config/fish/config.fish",
    ".config/nushell/config.nu",
    ".config/nushell/env.nu",
    ".config/powershell/Microsoft.PowerShell_profile.ps1",
    ".config/powershell/profile.ps1",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    // PowerShell's profiles on Windows (Windows PowerShell 5, then PowerShell 7).
    "Documents/WindowsPowerShell/Microsoft.PowerShell_profile.ps1",
    "Documents/WindowsPowerShell/profile.ps1",
    "Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
    "Documents/PowerShell/profile.ps1",
];

/// Directories of the home directory whose files run at every shell or login: the
/// startup files' drop-in directories, fish's functions (one replaces the command of its
/// name), and the user's services and autostart entries.
const STARTUP_DIRS: &[&str] = &[
    ".bashrc.d",
    ".zshrc.d",
    ".config/fish/conf.d",
    ".config/fish/functions",
    ".oh-my-zsh/custom",
    ".config/nushell/autoload",
    ".config/systemd/user",
    ".config/autostart",
    // What starts at login on macOS and Windows.
    "Library/LaunchAgents",
    "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup",
];

/// Options of cp, mv, install and ln that take a value (`-S .bak`, `-m 644`), and the one
/// that names where they write (`-t DIR`).
const COPY_VALUES: &[&str] = &[
    "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group",
];
const COPY_TARGET: &[&str] = &["-t", "--target-directory"];
const NONE: &[&str] = &[];

/// The words before a `--` that are options.
fn split_flags(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter()
        .map(String::as_str)
        .take_while(|a| *a != "--")
        .filter(|a| a.len() > 1 && a.starts_with('-'))
}

/// The option that names where tar extracts (`-C DIR`); its value options are the
/// filesystem pack's `[options.tar]`.
const TAR_TARGET: &[&str] = &["-C", "--directory", "--one-top-level"];

/// unzip's options that take a value, and the one that names where it extracts (`-d DIR`).
const UNZIP_VALUES: &[&str] = &["-x", "-P", "-O", "-I"];
const UNZIP_TARGET: &[&str] = &["-d"];

/// tar's words with the old bundle without a dash (`tar xfC x.tar /`) written as options
/// (`-x -f x.tar -C /`): each of its letters that takes a value takes the next word, in
/// order.
pub(super) fn tar_words(args: &[String]) -> Vec<String> {
    let bundle = args.first().is_some_and(|a| {
        !a.starts_with('-') && !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphabetic())
    });
    if !bundle {
        return args.to_vec();
    }
    let mut words = Vec::with_capacity(args.len() + args[0].len());
    let mut rest = args[1..].iter();
    for letter in args[0].chars() {
        words.push(format!("-{letter}"));
        if TAR_SHORT.contains(letter)
            && let Some(value) = rest.next()
        {
            words.push(value.clone());
        }
    }
    words.extend(rest.cloned());
    words
}

/// What `zip -m` (`--move`, or `m` in a cluster: `zip -rm a.zip dir`) deletes once it is
/// archived: the operands after the archive. The values of zip's options are no operands,
/// nor are the patterns after `-x`/`-i` (up to the next option).
pub(super) fn zip_moves(args: &[String]) -> Vec<String> {
    const VALUES: &[&str] = &[
        "-b", "-n", "-t", "-tt", "-P", "-Z", "-O", "-s", "-sp", "-ll",
    ];
    let moves = args.iter().take_while(|a| *a != "--").any(|a| {
        a == "--move" || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains('m'))
    });
    if !moves {
        return Vec::new();
    }
    let mut operands = Vec::new();
    let mut words = args.iter();
    let (mut patterns, mut only) = (false, false);
    while let Some(word) = words.next() {
        if !only && word == "--" {
            only = true;
        } else if !only && word.starts_with('-') && word.len() > 1 {
            patterns = matches!(word.as_str(), "-x" | "-i" | "--exclude" | "--include");
            if VALUES.contains(&word.as_str()) {
                words.next();
            }
        } else if !patterns {
            operands.push(word.clone());
        }
    }
    operands.into_iter().skip(1).collect()
}

/// What `7z a -sdel ARCHIVE FILE…` deletes once it is archived: the files (7z's switches carry
/// their values attached: `-pSECRET`, `-mx9`).
pub(super) fn seven_zip_deletes(args: &[String]) -> Vec<String> {
    let switches = || args.iter().filter(|a| a.starts_with('-'));
    if args.first().is_none_or(|c| c != "a" && c != "u")
        || !switches().any(|a| a.eq_ignore_ascii_case("-sdel"))
    {
        return Vec::new();
    }
    (args.iter().skip(1))
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .cloned()
        .collect()
}

/// What `tar --remove-files` deletes once it has archived them: its operands, each where
/// the `-C DIR` before it says (`tar -cf x.tar -C / etc --remove-files` deletes `/etc`).
pub(super) fn tar_removes(args: &[String]) -> Vec<String> {
    let words = tar_words(args);
    let removes = split_flags(&words).any(|f| {
        f.strip_prefix("--")
            .is_some_and(|long| long.len() >= 3 && "remove-files".starts_with(long))
    });
    if !removes {
        return Vec::new();
    }
    // The files a list names (`-T list`, `--files-from=list`) are known only when it runs:
    // they stand as that list's contents would (`$(cat list)`), a path computed then.
    let lists = operands::split(&words, NONE, &["-T", "--files-from"]);
    let listed = lists
        .targets
        .iter()
        .map(|list| format!("$(cat {})", crate::shell::quote(list)));
    let tar = crate::command_guard::packs::builtin_options("tar");
    let takes_value = |name: &str| {
        (tar.iter())
            .flat_map(|o| o.values.iter().chain(&o.target))
            .any(|v| v == name)
    };
    let mut dir: Option<String> = None;
    let mut removed = Vec::new();
    let mut words = words.iter().map(String::as_str);
    let mut operands_only = false;
    while let Some(word) = words.next() {
        if operands_only || !word.starts_with('-') || word == "-" {
            removed.push(match &dir {
                Some(dir) if !word.starts_with('/') => format!("{dir}/{word}"),
                _ => word.to_owned(),
            });
            continue;
        }
        if word == "--" {
            operands_only = true;
            continue;
        }
        let (name, inline) = match word.split_once('=') {
            Some((name, value)) if word.starts_with("--") => (name, Some(value)),
            _ => (word, None),
        };
        let (option, value) = if name.starts_with("--") {
            (name.to_owned(), inline.map(str::to_owned))
        } else {
            // A cluster: the first letter that takes a value takes the rest, or the next word.
            match name[1..]
                .char_indices()
                .find(|(_, c)| TAR_SHORT.contains(*c))
            {
                Some((at, c)) => {
                    let rest = &name[1 + at + c.len_utf8()..];
                    (format!("-{c}"), (!rest.is_empty()).then(|| rest.to_owned()))
                }
                None => continue,
            }
        };
        if !takes_value(&option) {
            continue;
        }
        let value = value.or_else(|| words.next().map(str::to_owned));
        if matches!(option.as_str(), "-C" | "--directory")
            && let Some(value) = value
        {
            dir = Some(match dir {
                Some(dir) if !value.starts_with('/') => format!("{dir}/{value}"),
                _ => value,
            });
        }
    }
    removed.extend(listed);
    removed
}

/// Whether tar extracts: `-x`/`--extract`/`--get`, in a cluster before a letter that takes a
/// value (`-xzf a.tar`), or in the old bundle without a dash (`tar xzf a.tar`).
fn tar_extracts(args: &[String]) -> bool {
    let letters = |cluster: &str| {
        (cluster.chars())
            .take_while(|c| !TAR_SHORT.contains(*c))
            .any(|c| c == 'x')
    };
    let bundle = args.first().is_some_and(|a| {
        !a.starts_with('-') && !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphabetic())
    });
    if bundle && args[0].contains('x') {
        return true;
    }
    split_flags(args).any(|f| match f.strip_prefix("--") {
        Some(long) => matches!(long, "extract" | "get"),
        None => letters(&f[1..]),
    })
}

/// rsync's options that delete in the destination (not `--delay-updates`).
const RSYNC_DELETES: &[&str] = &[
    "--delete",
    "--del",
    "--delete-before",
    "--delete-during",
    "--delete-delay",
    "--delete-after",
    "--delete-excluded",
    "--delete-missing-args",
];

/// rsync's options whose value is a file it writes.
const RSYNC_WRITES: &[&str] = &["--log-file", "--write-batch", "--only-write-batch"];

/// scp's options that take a value (OpenSSH 9).
const SCP_VALUES: &[&str] = &["-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"];

/// The hits of what `command` writes.
pub(super) fn write_hits(command: &Command, operands: &[&str], env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let dir = command.dir.as_deref();
    let (all, mut by_place, links) = written(command, operands, env);
    // A path through variables is judged as the values the shell certainly puts in too
    // (`f=/etc/passwd; echo x > $f`), and through the links the script makes: a write
    // follows a link (`ln -s /etc/passwd p; echo x > p`), which ln and mv replace instead.
    let follows = shell::links::follows_links(command);
    // In a directory reached through a link (`ln -s /etc r; cd r && echo x > passwd`), the
    // path joined to it is read through the links too, from where the script started.
    let joined = |p: &str| {
        dir.filter(|d| !d.starts_with(['/', '~', '$']) && !p.starts_with(['/', '~', '$']))
            .map(|d| format!("{d}/{p}"))
    };
    let readings: Vec<String> = (all.iter().copied())
        .chain(by_place.iter().map(String::as_str))
        .flat_map(|p| std::iter::once(p.to_owned()).chain(joined(p)))
        .flat_map(|p| env.readings(&p, follows))
        .collect();
    let all: Vec<&str> = all
        .iter()
        .copied()
        .chain(readings.iter().map(String::as_str))
        .collect();
    by_place.extend(readings.iter().cloned());
    // As written, and where it lands (`cd .git && echo >> config`, `.git//hooks/x`), each
    // with what its globs could stand for (`.g*/hooks/pre-commit`).
    let git_path = |path: &str| {
        let landed = env.place(path, dir).1.to_string_lossy().into_owned();
        [path, landed.as_str()].into_iter().any(|p| {
            git_runs_from(p)
                || (git_glob_readings(p, env.dot_globs()).iter()).any(|r| git_runs_from(r))
        })
    };
    let mut git_paths: Vec<&str> = (all.iter().copied())
        .chain(by_place.iter().map(String::as_str))
        .filter(|p| git_path(p))
        .collect();
    git_paths.dedup();
    for path in git_paths {
        hits.push(hit(
            GIT_HOOK_WRITE,
            format!(
                "writes {path}: git runs its hooks, and the commands its config names, on a later git command"
            ),
        ));
    }
    let links = links.into_iter().map(|path| (path, true));
    for (path, link) in by_place.into_iter().map(|path| (path, false)).chain(links) {
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
        // An archive's entries right in the home directory may be its startup files (`tar
        // -xf x.tar -C ~` can bring a `.bashrc`).
        if let Some(into) = path.strip_suffix("/<archive entries>")
            && !into.is_empty()
            && env.place(into, dir).0 == Place::Home
        {
            hits.push(hit(
                SHELL_STARTUP_WRITE,
                format!("extracts an archive into {into}, where an entry can be a startup file every new shell runs"),
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
        // A glob counts as its directory (`/e*/passwd` as `/`, `~/.bash*` as `~`): one there
        // may name a system file or a startup file, whichever exists when it runs.
        let glob = path.contains(['*', '?', '[']) && !link;
        match place {
            Place::Root if glob => hits.push(hit(
                SYSTEM_FILE_WRITE,
                format!("writes {path}, a glob from `/` that can name a system file"),
            )),
            Place::Home if glob => hits.push(hit(
                SHELL_STARTUP_WRITE,
                format!("writes {path}, a glob in the home directory that can name a startup file"),
            )),
            // A link is judged only where it makes a shell run it (`ln -sf x ~/.bashrc`); in
            // system places, `ln-force-system-path` judges it.
            Place::Outside if link && env.is_shell_startup(&resolved) => hits.push(hit(
                SHELL_STARTUP_WRITE,
                format!("links {path} ({shown}), which every new shell runs"),
            )),
            _ if link => {}
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
) -> (Vec<&'a str>, Vec<String>, Vec<String>) {
    let mut links = Vec::new();
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
        // The names files get: util-linux's `rename FROM TO FILE…` (the first FROM in each
        // name becomes TO), Perl's `rename 's/FROM/TO/' FILE…` with literal parts, and
        // `mmv FROM TO…` (TO as written: its `#1` stand for what FROM's wildcards matched).
        "rename" | "prename" | "file-rename" | "perl-rename" | "rename.ul" | "mmv" => {
            by_place.extend(renamed_to(&command.program, operands));
        }
        // The packs judge its places (`truncate-system`, `truncate-shell-startup`); git's
        // files are judged here (`truncate -s0 .git/config`).
        "truncate" => {
            let values = crate::command_guard::packs::builtin_options("truncate");
            let split = operands::split(&command.args, values.map_or(&[][..], |o| &o.values), NONE);
            all.extend(split.operands);
        }
        "cp" | "mv" | "install" | "ln" | "link" | "rsync" | "scp" => {
            // The values of their options are no operands (`mv x /etc/passwd -S .bak`,
            // `install -m 644 x /etc/passwd`, `rsync x /etc/passwd --exclude y`), and `-t DIR`
            // is where cp, mv, install and ln write (rsync's `-t` keeps times).
            let copies = matches!(command.program.as_str(), "rsync" | "scp");
            // rsync's value options are the filesystem pack's list (`--max-delete 5` after the
            // destination is no destination).
            let rsync = crate::command_guard::packs::builtin_options("rsync");
            let split = match command.program.as_str() {
                "rsync" => {
                    operands::split(&command.args, rsync.map_or(&[][..], |o| &o.values), NONE)
                }
                "scp" => operands::split(&command.args, SCP_VALUES, NONE),
                _ => operands::split(&command.args, COPY_VALUES, COPY_TARGET),
            };
            // A dry run writes nothing (`-n` as an option, not as `--exclude`'s value).
            if command.program == "rsync"
                && split.flags.iter().any(|f| {
                    matches!(*f, "-n" | "--dry-run" | "--list-only")
                        || (!f.starts_with("--")
                            && f[1..]
                                .chars()
                                .take_while(|c| !"efTMB@".contains(*c))
                                .any(|c| c == 'n'))
                })
            {
                return (all, by_place, links);
            }
            // The files rsync's options name for it to write (`--log-file=/etc/passwd`).
            if command.program == "rsync" {
                let mut words = command.args.iter().map(String::as_str);
                while let Some(word) = words.next() {
                    for option in RSYNC_WRITES {
                        let value = match word.strip_prefix(option) {
                            Some("") => words.clone().next(),
                            Some(rest) => rest.strip_prefix('='),
                            None => None,
                        };
                        by_place.extend(value.map(str::to_owned));
                    }
                }
            }
            // With `--delete` the packs judge system places and the project (`rsync-delete-*`
            // says more than a write does); a shell's startup files are judged here.
            let deletes = command.program == "rsync"
                && split.flags.iter().any(|f| {
                    let name = f.split_once('=').map_or(*f, |(n, _)| n);
                    RSYNC_DELETES.contains(&name)
                });
            let operands = &split.operands[..];
            let target_dir = split.targets.last().copied();
            let (dest, sources) = match target_dir {
                Some(dir) => (Some(dir), operands),
                None => match operands.split_last() {
                    Some((dest, sources)) => (Some(*dest), sources),
                    None => (None, operands),
                },
            };
            // What a remote copy writes on another machine is no file here (`host:/etc`).
            let dest = dest.filter(|d| {
                !operands::is_remote(&command.program, d)
                    && !operands::may_be_remote(&command.program, d)
            });
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
            if (copies
                || matches!(
                    command.program.as_str(),
                    "cp" | "install" | "mv" | "ln" | "link"
                ))
                && !makes_dirs
                && !moves_system
                && let Some(dest) = dest
            {
                let into_dir = target_dir.is_some()
                    || dest.ends_with('/')
                    || sources.len() > 1
                    || env.place(dest, command.dir.as_deref()).1.is_dir();
                // `ln`'s files are judged only as shell startup files: linking `/etc/localtime`
                // is ordinary setup (`ln-force-system-path` asks about system places).
                let list = if matches!(command.program.as_str(), "ln" | "link") || deletes {
                    &mut links
                } else {
                    &mut by_place
                };
                if into_dir {
                    // A glob's names are the ones it matches where it is written. A source
                    // without a name of its own (`./`, `..`) is named for the directory it is
                    // (`rsync -a ./ /etc/` writes the project's entries into /etc).
                    let dir = command.dir.as_deref();
                    // A glob's entries are judged as one file in the destination.
                    list.extend(
                        sources
                            .iter()
                            .filter_map(|s| match Path::new(s).file_name() {
                                _ if s.contains(['*', '?', '[']) => {
                                    Some("<entries of a glob>".to_owned())
                                }
                                Some(name) => Some(name.to_str()?.to_owned()),
                                None => Some(env.place(s, dir).1.file_name()?.to_str()?.to_owned()),
                            })
                            .map(|name| format!("{}/{name}", dest.trim_end_matches('/'))),
                    );
                } else {
                    list.push(dest.to_owned());
                }
            }
        }
        // An archive extracted into a directory (`tar -xf x.tar -C /`, `unzip x.zip -d /etc`)
        // writes its entries there: judged as a file in it.
        "tar" | "gtar" | "bsdtar" | "unzip" => {
            let words = tar_words(&command.args);
            // tar reads `TAR_OPTIONS` before its own words (`TAR_OPTIONS='-C /' tar xf x.tar`,
            // or exported earlier in the script).
            let tar_args: Vec<String> = (command.assignments.iter())
                .filter_map(|a| a.strip_prefix("TAR_OPTIONS="))
                .map(str::to_owned)
                .chain(env.certain_readings("$TAR_OPTIONS"))
                .flat_map(|v| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
                .chain(words.iter().cloned())
                .collect();
            // unzip without `-d` extracts where it runs (`cd ~ && unzip x.zip`); `-l`, `-t`,
            // `-p`, `-v` and `-Z` only list, test or print.
            let into = if command.program == "unzip" {
                let split = operands::split(&command.args, UNZIP_VALUES, UNZIP_TARGET);
                let reads_only = (split.flags.iter())
                    .any(|f| !f.starts_with("--") && f.contains(['l', 't', 'p', 'v', 'Z']));
                (split.targets.last().map(|t| (*t).to_owned()))
                    .or_else(|| (!reads_only).then(|| ".".to_owned()))
            } else if tar_extracts(&tar_args) {
                // Without `-C`, where it runs (`cd / && tar -xf x.tar`). The pack's
                // value options are tar's, less `-C`, whose value is the target here (the
                // pack's target is the archive, `-f`).
                let tar = crate::command_guard::packs::builtin_options("tar");
                let values: Vec<&str> = (tar.iter())
                    .flat_map(|o| o.values.iter().chain(&o.target))
                    .map(String::as_str)
                    .filter(|o| !TAR_TARGET.contains(o))
                    .collect();
                let split = operands::split(&tar_args, &values, TAR_TARGET);
                // With absolute names kept (`-P`), an entry may land anywhere: as in `/`.
                let absolute = split_flags(&tar_args).any(|f| match f.strip_prefix("--") {
                    Some(long) => long.len() >= 3 && "absolute-names".starts_with(long),
                    None => (f[1..].chars())
                        .take_while(|c| !TAR_SHORT.contains(*c))
                        .any(|c| c == 'P'),
                });
                if absolute {
                    by_place.push("/<archive entries>".to_owned());
                }
                Some(
                    split
                        .targets
                        .last()
                        .map_or_else(|| ".".to_owned(), |t| (*t).to_owned()),
                )
            } else {
                None
            };
            if let Some(into) = into {
                by_place.push(format!("{}/<archive entries>", into.trim_end_matches('/')));
            }
        }

        // The other extractors, read as the secrets guard reads them (`shell/extract.rs`):
        // where they write their entries (`7z x x.7z -o/etc`, `cpio -idm -D /etc`, `pax -rw x
        // /etc`).
        program if shell::extract::EXTRACTORS.contains(&program) => {
            if let Some(extracted) = shell::extract::extracted_into(command) {
                let into = extracted.into.trim_end_matches('/');
                by_place.push(format!("{into}/<archive entries>"));
            }
        }
        "dd" => {
            let of = operands.iter().filter_map(|o| o.strip_prefix("of="));
            all.extend(of.clone());
            by_place.extend(of.map(str::to_owned));
        }
        program => {
            // Editors in place, programs that write the file an option or operand names
            // (writers.rs), and a decompressor's output named for its input.
            let (files, places) = super::writers::written(program, &command.args);
            all.extend(files.iter().copied());
            by_place.extend(files.iter().map(|f| (*f).to_owned()));
            by_place.extend(places);
            by_place.extend(crate::shell::outputs::decompressed(command));
        }
    }
    (all, by_place, links)
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
    /// or in one of its [`STARTUP_DIRS`], in any case: on a file system that ignores case
    /// (macOS's and Windows's defaults) `~/.BASHRC` and `/USERS/ALICE/.zshrc` are startup
    /// files.
    pub(in crate::command_guard) fn is_shell_startup(&self, path: &Path) -> bool {
        let (_, home) = self.resolved();
        let Some(home) = home else {
            return false;
        };
        // Compared as text, ASCII case ignored: both paths are resolved (no `.`, `..` or
        // repeated slashes), and every write target meets this, so nothing is allocated.
        let (path, home) = (path.to_string_lossy(), home.to_string_lossy());
        let home = home.trim_end_matches('/');
        let Some(rest) = crate::shell::strip_prefix_ignore_case(&path, home)
            .and_then(|rest| rest.strip_prefix('/'))
        else {
            return false;
        };
        SHELL_STARTUP.iter().any(|f| rest.eq_ignore_ascii_case(f))
            || STARTUP_DIRS.iter().any(|d| {
                crate::shell::strip_prefix_ignore_case(rest, d)
                    .is_some_and(|r| r.len() > 1 && r.starts_with('/'))
            })
    }
}

/// The names `rename` (util-linux's or Perl's) and `mmv` give files, as far as they can be
/// read from the words (see [`written`]): `mmv`'s TO patterns as written, `rename FROM TO
/// FILE…` as util-linux renames (the first FROM in each name becomes TO), and Perl's `rename
/// 's/FROM/TO/' FILE…` the same way when FROM is literal, else its TO as written (what a
/// name may become; `s#x#.git/hooks/pre-commit#` is still read).
fn renamed_to(program: &str, operands: &[&str]) -> Vec<String> {
    let perl = |expr: &str| -> Option<(String, String)> {
        let mut chars = expr.strip_prefix('s')?.chars();
        let delim = chars
            .next()
            .filter(|c| !c.is_alphanumeric() && !c.is_whitespace())?;
        let rest: String = chars.collect();
        let mut fields = rest.split(delim);
        Some((fields.next()?.to_owned(), fields.next()?.to_owned()))
    };
    if program == "mmv" {
        return (operands.iter().skip(1).step_by(2))
            .map(|to| (*to).to_owned())
            .collect();
    }
    if let [expr, files @ ..] = operands
        && let Some((from, to)) = perl(expr)
    {
        const REGEX: &[char] = &['\\', '$', '(', '[', '.', '*', '+', '?', '^', '|', '{', '@'];
        if from.contains(REGEX) || to.contains(['\\', '$', '@']) {
            return vec![to];
        }
        return files.iter().map(|f| f.replacen(&from, &to, 1)).collect();
    }
    match operands {
        [from, to, files @ ..] => files.iter().map(|f| f.replacen(from, to, 1)).collect(),
        _ => Vec::new(),
    }
}
