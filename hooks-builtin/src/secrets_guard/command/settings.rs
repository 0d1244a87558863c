//! Commands that reach an agent's settings by another way than naming the file: a settings
//! directory removed or moved away, and links the same line makes to it.

use std::path::{Path, PathBuf};

use super::super::rules::{self, SETTINGS_DIRS};
use super::substitute;
use crate::shell::Command;

/// Programs that remove, or move away, what they are given.
const REMOVERS: &[&str] = &["rm", "rmdir", "mv", "unlink", "shred", "trash", "trash-put"];

/// Programs that rewrite or hide the files they are given (`find … -exec` of one).
const REWRITERS: &[&str] = &[
    "truncate", "sed", "perl", "cp", "tee", "chmod", "chown", "dd", "sponge",
];

/// Which of a command's operands it takes a settings directory away by: removes, moves, hides
/// (`chmod 000`), or fills with files whose names the guard cannot see (`cp -r x/. .claude/`,
/// `tar -x -C .claude`, `mount --bind x .claude`).
#[derive(Clone, Copy)]
enum Takes {
    /// Every operand.
    All,
    /// All but the last (the sources of `mv`, `git mv`, `rsync`); every one with `-t`.
    Sources,
    /// The last (the destination of `mount`, `tar -x -C`), and the value of `-t`.
    Destination,
    /// The destination, when what lands in it has names the guard cannot see: a directory's
    /// contents (`cp -r x/. .claude/`, `rsync -a x/ .claude/`, `cp -rT x .claude`), a glob
    /// or a variable; and a settings directory copied or moved in under its own name
    /// (`cp -r x/.claude .`). (`cp -r docs/commands .claude/` makes `.claude/commands`.)
    Into,
}

/// How a program reads the words after its name (and subcommand).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// getopt's: options anywhere before `--`, short ones clustered (`-ft DIR`, `-xvC DIR`,
    /// `-CDIR`), long ones as `--name VALUE`, `--name=VALUE` or an unambiguous prefix.
    Gnu,
    /// getopt's, and tar's old bundle as the first word (`tar xfC a.tar DIR`): its letters
    /// that take a value take the next words, in order.
    Tar,
    /// Whole switches with their values written on (7-Zip's `-sdel`, `-oDIR`).
    Switches,
}

/// A program that takes a directory away: its name (and subcommand, and the options before
/// it that take a value), the options one of which it needs to (empty: none) and those with
/// which it does not, the options whose value is a directory it takes, the other options that
/// take a value (so that the value is not read as an operand), and which operands it takes.
struct Taker {
    program: &'static str,
    sub: Option<&'static str>,
    /// Options before the subcommand that take a value; `-C DIR` is a directory to run in
    /// (git's), which the operands after it are relative to.
    lead: &'static [&'static str],
    needs: &'static [&'static str],
    unless: &'static [&'static str],
    values: &'static [&'static str],
    skips: &'static [&'static str],
    style: Style,
    takes: Takes,
}

const fn taker(program: &'static str, takes: Takes) -> Taker {
    Taker {
        program,
        sub: None,
        lead: &[],
        needs: &[],
        unless: &[],
        values: &[],
        skips: &[],
        style: Style::Gnu,
        takes,
    }
}

/// git's own options before its subcommand that take a value.
const GIT: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

/// tar's options that take a value, but for `-C`/`--directory` (GNU tar, bsdtar).
#[rustfmt::skip]
const TAR: &[&str] = &[
    "-f", "-b", "-T", "-X", "-g", "-K", "-N", "-V", "-L", "-F", "-H", "-I", "--file",
    "--files-from", "--exclude-from", "--exclude", "--blocking-factor", "--listed-incremental",
    "--starting-file", "--newer", "--newer-mtime", "--after-date", "--label", "--tape-length",
    "--info-script", "--new-volume-script", "--format", "--use-compress-program", "--transform",
    "--xform", "--owner", "--group", "--mode", "--mtime", "--suffix", "--to-command",
    "--checkpoint-action", "--record-size", "--strip-components", "--exclude-tag",
    "--exclude-tag-under", "--exclude-tag-all", "--occurrence", "--sort", "--quoting-style",
    "--rmt-command", "--rsh-command", "--volno-file", "--owner-map", "--group-map",
];

/// rsync's options that take a value.
#[rustfmt::skip]
const RSYNC: &[&str] = &[
    "-e", "-f", "-B", "-T", "-M", "--rsh", "--rsync-path", "--filter", "--exclude", "--include",
    "--exclude-from", "--include-from", "--files-from", "--temp-dir", "--partial-dir",
    "--backup-dir", "--suffix", "--compare-dest", "--copy-dest", "--link-dest", "--chmod",
    "--chown", "--usermap", "--groupmap", "--log-file", "--log-file-format", "--out-format",
    "--password-file", "--port", "--timeout", "--contimeout", "--bwlimit", "--max-size",
    "--min-size", "--max-delete", "--modify-window", "--block-size", "--compress-level",
    "--compress-choice", "--checksum-choice", "--iconv", "--remote-option", "--sockopts",
    "--outbuf", "--protocol", "--stop-after", "--stop-at", "--max-alloc", "--write-batch",
    "--read-batch", "--only-write-batch", "--info", "--debug", "--address", "--skip-compress",
];

/// mount's options that take a value, but for `--target`.
#[rustfmt::skip]
const MOUNT: &[&str] = &[
    "-o", "-t", "-O", "-L", "-U", "-N", "-T", "--options", "--types", "--test-opts", "--label",
    "--uuid", "--namespace", "--fstab", "--source", "--target-prefix", "--options-mode",
    "--options-source", "--map-users", "--map-groups",
];

#[rustfmt::skip]
const TAKERS: &[Taker] = &[
    taker("rm", Takes::All),
    taker("rmdir", Takes::All),
    taker("unlink", Takes::All),
    Taker { skips: &["-n", "-s", "--iterations", "--size", "--random-source"], ..taker("shred", Takes::All) },
    taker("trash", Takes::All),
    taker("trash-put", Takes::All),
    taker("gvfs-trash", Takes::All),
    taker("rip", Takes::All),
    taker("rmtrash", Takes::All),
    Taker { sub: Some("trash"), ..taker("gio", Takes::All) },
    Taker { sub: Some("remove"), ..taker("gio", Takes::All) },
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix"], ..taker("mv", Takes::Sources) },
    // Moved or installed into it under a settings file's name, or of names unseen.
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix"], ..taker("mv", Takes::Into) },
    Taker { values: &["-t", "--target-directory"], skips: &["-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "--strip-program"], ..taker("install", Takes::Into) },
    // A mode or owner of the directory itself (`chmod 000 .claude`) hides what is in it.
    Taker { skips: &["--reference"], ..taker("chmod", Takes::All) },
    Taker { skips: &["--reference", "--from"], ..taker("chown", Takes::All) },
    Taker { skips: &["--reference"], ..taker("chgrp", Takes::All) },
    Taker { skips: &["-v", "-p"], ..taker("chattr", Takes::All) },
    Taker { skips: &["-m", "-M", "-x", "-X", "--modify", "--modify-file", "--remove", "--remove-file", "--set", "--set-file"], ..taker("setfacl", Takes::All) },
    Taker { sub: Some("mv"), lead: GIT, ..taker("git", Takes::Sources) },
    Taker { sub: Some("rm"), lead: GIT, unless: &["--cached"], skips: &["--pathspec-from-file"], ..taker("git", Takes::All) },
    // `git stash push -- .claude` takes its changes out of the work tree.
    Taker { sub: Some("stash"), lead: GIT, skips: &["-m", "--message", "--pathspec-from-file"], ..taker("git", Takes::All) },
    // Archived and removed: `tar --remove-files`, `zip -m`, `rsync --remove-source-files`.
    Taker { needs: &["--remove-files"], skips: TAR, style: Style::Tar, ..taker("tar", Takes::All) },
    Taker { needs: &["--remove-files"], skips: TAR, style: Style::Tar, ..taker("gtar", Takes::All) },
    Taker { needs: &["--remove-files"], skips: TAR, style: Style::Tar, ..taker("bsdtar", Takes::All) },
    Taker { needs: &["-sdel"], style: Style::Switches, ..taker("7z", Takes::All) },
    Taker { sub: Some("move"), ..taker("rclone", Takes::Sources) },
    Taker { sub: Some("moveto"), ..taker("rclone", Takes::Sources) },
    Taker { needs: &["-m", "--move"], skips: &["-b", "-n", "-P", "-O", "--temp-path", "--suffixes", "--password", "--output-file"], ..taker("zip", Takes::All) },
    Taker { needs: &["--remove-source-files", "--remove-sent-files"], skips: RSYNC, ..taker("rsync", Takes::Sources) },
    // Filled with files of unknown names: a directory's copy, an archive, a mount.
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix", "--sparse", "--no-preserve"], ..taker("cp", Takes::Into) },
    Taker { skips: RSYNC, ..taker("rsync", Takes::Into) },
    Taker { values: &["--target"], skips: MOUNT, ..taker("mount", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("tar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("gtar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("bsdtar", Takes::Destination) },
    Taker { sub: Some("x"), values: &["-o"], style: Style::Switches, ..taker("7z", Takes::Destination) },
    Taker { needs: &["-d"], values: &["-d"], skips: &["-P"], ..taker("unzip", Takes::Destination) },
];

/// Whether the option as given (`-t`, `--target-directory`, or a long one's prefix of three
/// letters or more, `--target`) is `option` of a table: getopt takes any unambiguous prefix,
/// and a shorter one is rarely that.
fn is(given: &str, option: &str) -> bool {
    given == option || (given.len() >= 5 && option.starts_with("--") && option.starts_with(given))
}

/// A command's words after its name (and subcommand), as the program reads them: its
/// options with their values, and its operands.
#[derive(Default)]
struct Words {
    options: Vec<(String, Option<String>)>,
    operands: Vec<String>,
}

impl Words {
    /// Whether an option given is `option`; `exactly`, a prefix does not count (an exemption
    /// is read closed).
    fn has(&self, option: &str, exactly: bool) -> bool {
        (self.options.iter()).any(|(given, _)| given == option || (!exactly && is(given, option)))
    }
}

/// Reads `args` as `taker`'s program does: getopt's permutation (options anywhere before
/// `--`), clusters, values written on or given as the next word, tar's old bundle.
fn read(taker: &Taker, args: &[String]) -> Words {
    let valued =
        |given: &str| (taker.values.iter().chain(taker.skips)).any(|option| is(given, option));
    let mut words = Words::default();
    let mut i = 0;
    if taker.style == Style::Tar
        && let Some(bundle) = args.first().filter(|a| !a.starts_with('-'))
    {
        i = 1;
        for c in bundle.chars() {
            let option = format!("-{c}");
            let value = valued(&option).then(|| args.get(i).cloned()).flatten();
            i += usize::from(value.is_some());
            words.options.push((option, value));
        }
    }
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            words.operands.extend(args[i..].iter().cloned());
            break;
        }
        if arg.len() < 2 || !arg.starts_with('-') {
            words.operands.push(arg.clone());
        } else if taker.style == Style::Switches {
            let option = (taker.values.iter().chain(taker.skips))
                .find(|v| arg.len() > v.len() && arg.starts_with(**v));
            words.options.push(match option {
                Some(v) => ((*v).to_owned(), Some(arg[v.len()..].to_owned())),
                None => (arg.clone(), None),
            });
        } else if arg.starts_with("--") {
            words.options.push(match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None if valued(arg) => {
                    i += 1;
                    (arg.clone(), args.get(i - 1).cloned())
                }
                None => (arg.clone(), None),
            });
        } else {
            // `-ft DIR`, `-xvCDIR`: the first letter that takes a value takes the rest of the
            // cluster, or the next word.
            for (at, c) in arg.char_indices().skip(1) {
                let option = format!("-{c}");
                if valued(&option) {
                    let value = match &arg[at + c.len_utf8()..] {
                        "" => {
                            i += 1;
                            args.get(i - 1).cloned()
                        }
                        rest => Some(rest.to_owned()),
                    };
                    words.options.push((option, value));
                    break;
                }
                words.options.push((option, None));
            }
        }
    }
    words
}

/// The words after the subcommand `taker` names, and the directory they are relative to
/// (git's `-C DIR` before it moves it); all of them without a subcommand. `None` when the
/// command has another subcommand.
fn after_sub<'a>(
    taker: &Taker,
    args: &'a [String],
    base: &Path,
    home: Option<&Path>,
) -> Option<(&'a [String], PathBuf)> {
    let Some(sub) = taker.sub else {
        return Some((args, base.to_path_buf()));
    };
    let mut base = base.to_path_buf();
    let mut i = 0;
    while let Some(arg) = args.get(i).filter(|a| a.starts_with('-')) {
        i += 1;
        let valued = |option: &str| taker.lead.iter().any(|l| is(option, l));
        let (name, value) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, value.to_owned()),
            _ if valued(arg) => {
                i += 1;
                (arg.as_str(), args.get(i - 1)?.clone())
            }
            // `-Cdir`, `-ckey=value`.
            _ if !arg.starts_with("--") && arg.len() > 2 && valued(&arg[..2]) => {
                (&arg[..2], arg[2..].to_owned())
            }
            _ => continue,
        };
        if name == "-C" {
            base = rules::lexical(&substitute(&value), &base, home);
        }
    }
    (args.get(i)? == sub).then(|| (&args[i + 1..], base))
}

/// The operand of a command that takes a directory away ([`TAKERS`]) that is an agent's
/// [`SETTINGS_DIRS`] directory, as written and resolved (lexically). An agent reads its
/// settings from the project root and the home directory, so only a settings directory there
/// (or in a parent of the root) counts: a fixture's or a package's `.claude` is the agent's to
/// change. `mv`'s destination is not removed (`mv notes.md .claude/`); the settings files
/// moved onto are judged as written.
pub(super) fn removed_settings_dir(
    cmd: &Command,
    cwd: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let base = match &cmd.dir {
        Some(dir) => rules::lexical(&substitute(dir), cwd, home),
        None => cwd.to_path_buf(),
    };
    if cmd.program == "find" {
        return find_removes_settings(cmd, &base, root, home);
    }
    // `git stash --all` (`-a`) stashes the ignored files too, and takes the settings files no
    // one commits (`.claude/settings.local.json`) out of the work tree.
    if cmd.program == "git"
        && cmd.args.first().is_some_and(|a| a == "stash")
        && cmd.args.iter().any(|a| a == "--all" || a == "-a")
    {
        return (SETTINGS_DIRS.iter())
            .map(|d| (d.to_string(), root.join(d)))
            .find(|(_, dir)| dir.exists());
    }
    TAKERS
        .iter()
        .filter(|t| t.program == cmd.program)
        .find_map(|t| taken(t, cmd, &base, root, home))
}

/// The settings directory `cmd` takes away as `taker` says, if one.
fn taken(
    taker: &Taker,
    cmd: &Command,
    base: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let (args, base) = after_sub(taker, &cmd.args, base, home)?;
    let words = read(taker, args);
    if (!taker.needs.is_empty() && !taker.needs.iter().any(|n| words.has(n, false)))
        || taker.unless.iter().any(|u| words.has(u, true))
    {
        return None;
    }
    let mut valued: Vec<String> = (words.options.iter())
        .filter(|(given, _)| taker.values.iter().any(|v| is(given, v)))
        .filter_map(|(_, value)| value.clone())
        .collect();
    let whole = words.has("-T", false) || words.has("--no-target-directory", false);
    let mut operands = words.operands;
    let candidates: Vec<String> = match taker.takes {
        Takes::All => operands,
        Takes::Sources if !valued.is_empty() => operands,
        Takes::Sources => {
            operands.pop();
            operands
        }
        Takes::Destination => operands.pop().into_iter().chain(valued).collect(),
        Takes::Into => {
            let destination = valued.pop().or_else(|| operands.pop());
            into(&operands, destination, whole)
        }
    };
    candidates.into_iter().find_map(|arg| {
        let path = rules::lexical(&substitute(&arg), &base, home);
        if settings_dir_read_there(&path, root, home) {
            return Some((arg, path));
        }
        // A glob of its entries takes them all (`rm -rf .claude/*`, `rm .claude/settings*`).
        let last = path.file_name()?.to_str()?;
        let parent = path.parent()?;
        (last.contains(['*', '?', '[']) && settings_dir_read_there(parent, root, home))
            .then(|| (arg.clone(), parent.to_path_buf()))
    })
}

/// What a copy or move of `sources` into `destination` fills with names the guard cannot see
/// or replaces: the destination itself when what lands in it is a directory's contents
/// (`cp -r x/. .claude/`, `rsync -a x/ .claude/`, `cp -rT x .claude`), a glob, a variable or
/// a settings file of unseen content; and the settings directory a source of that name makes
/// in it (`cp -r x/.claude .`). (`cp -r docs/commands .claude/` makes `.claude/commands`.)
fn into(sources: &[String], destination: Option<String>, whole: bool) -> Vec<String> {
    let Some(destination) = destination else {
        return Vec::new();
    };
    let name = |source: &str| {
        let trimmed = source.trim_end_matches('/');
        trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
    };
    let unknown = |source: &String| {
        source.ends_with('/')
            || source.ends_with("/.")
            || source.as_str() == "."
            || source.contains(['*', '?', '[', '$', '`'])
            || name(source).to_ascii_lowercase().starts_with("settings")
    };
    let mut taken = Vec::new();
    if !whole {
        let named = (sources.iter())
            .filter(|s| !s.ends_with('/'))
            .map(|s| name(s))
            .filter(|n| SETTINGS_DIRS.iter().any(|d| d.eq_ignore_ascii_case(n)));
        taken.extend(named.map(|n| format!("{}/{n}", destination.trim_end_matches('/'))));
    }
    if whole || sources.iter().any(unknown) {
        taken.push(destination);
    }
    taken
}

/// Whether `path` is a [`SETTINGS_DIRS`] directory where an agent reads it: in the project
/// root, a parent of it, or the home directory.
fn settings_dir_read_there(path: &Path, root: &Path, home: Option<&Path>) -> bool {
    let (Some(name), Some(parent)) = (path.file_name().and_then(|n| n.to_str()), path.parent())
    else {
        return false;
    };
    let read_there = root.starts_with(parent) || home.is_some_and(|h| h == parent);
    read_there && SETTINGS_DIRS.iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// `find` that removes what it finds (`-delete`, or `-exec rm`/`-execdir mv`/… of a
/// [`REMOVERS`] program) by a name filter that matches a settings directory (`-name .claude`,
/// `-iname '.gem*'`), from a start directory above where the agent reads one (the project
/// root, a parent, the home directory): the start directory as written, and where the
/// settings directory it reaches is.
fn find_removes_settings(
    cmd: &Command,
    base: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let args = &cmd.args;
    let runs = |programs: &[&str]| {
        args.iter().zip(args.iter().skip(1)).any(|(a, next)| {
            matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && (Path::new(next).file_name().and_then(|n| n.to_str()))
                    .is_some_and(|n| programs.contains(&n))
        })
    };
    let deletes = args.iter().any(|a| a == "-delete");
    // find's own options before the starting points (`-L`, `-H`, `-P`, `-D x`, `-O3`).
    let mut lead = 0;
    while let Some(a) = args.get(lead) {
        match a.as_str() {
            "-H" | "-L" | "-P" => lead += 1,
            "-D" => lead += 2,
            a if a.starts_with("-O") => lead += 1,
            _ => break,
        }
    }
    let starts: Vec<&String> = (args.iter().skip(lead))
        .take_while(|a| !a.starts_with(['-', '(', '!']))
        .collect();
    // Started in a settings directory, what it finds there is the settings: deleted or
    // rewritten (`find .claude -type f -exec truncate -s 0 {} +`).
    if deletes || runs(REMOVERS) || runs(REWRITERS) {
        for start in &starts {
            let path = rules::lexical(&substitute(start), base, home);
            if settings_dir_read_there(&path, root, home) {
                return Some(((*start).clone(), path));
            }
        }
    }
    if !(deletes || runs(REMOVERS)) {
        return None;
    }
    // A name followed by `-prune` is kept out (`-name .claude -prune -o … -delete`).
    let names = args.windows(3).filter_map(|w| {
        (matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath") && w[2] != "-prune")
            .then_some(&w[1])
    });
    let names = names.chain(
        args.len()
            .checked_sub(2)
            .map(|at| &args[at..])
            .filter(|w| matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath"))
            .map(|w| &w[1]),
    );
    let settings = names.filter_map(|pattern| {
        let glob = globset::GlobBuilder::new(pattern.trim_start_matches("*/"))
            .case_insensitive(true)
            .build()
            .ok()?
            .compile_matcher();
        // The directory's name, a path through it (`-path './.claude/*'`), or a settings
        // file's name (`-name settings.json`: the agents keep theirs in their directory).
        let lower = pattern.to_ascii_lowercase();
        SETTINGS_DIRS.iter().find(|d| {
            glob.is_match(d)
                || lower.split('/').any(|part| part == **d)
                || (glob.is_match("settings.json") || glob.is_match("settings.local.json"))
        })
    });
    // A regular expression (`-regex`, and fd's pattern read as one) is not matched here: one
    // that names a settings directory's name at all counts (`fd -H '^.claude$' -X rm -rf`).
    let regexes = (args.windows(2))
        .filter(|w| matches!(w[0].as_str(), "-regex" | "-iregex"))
        .map(|w| w[1].to_ascii_lowercase());
    let settings = settings.chain(regexes.filter_map(|pattern| {
        SETTINGS_DIRS
            .iter()
            .find(|d| pattern.contains(d.trim_start_matches('.')))
    }));
    let dir = settings.into_iter().next()?;
    let dot = String::from(".");
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    starts.into_iter().find_map(|start| {
        let path = rules::lexical(&substitute(start), base, home);
        let reaches = |place: &Path| place.starts_with(&path);
        if reaches(root) {
            Some((start.clone(), root.join(dir)))
        } else {
            home.filter(|h| reaches(h))
                .map(|h| (start.clone(), h.join(dir)))
        }
    })
}
