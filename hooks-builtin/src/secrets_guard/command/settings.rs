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
    /// or a variable. (`cp -r docs/commands .claude/` makes `.claude/commands`.)
    Into,
}

/// A program that takes a directory away: its name (and subcommand), the options one of which
/// it needs to (empty: none) and those with which it does not, the options whose value is a
/// directory it takes, and which operands it takes.
struct Taker {
    program: &'static str,
    sub: Option<&'static str>,
    needs: &'static [&'static str],
    unless: &'static [&'static str],
    values: &'static [&'static str],
    takes: Takes,
}

const fn taker(program: &'static str, takes: Takes) -> Taker {
    Taker {
        program,
        sub: None,
        needs: &[],
        unless: &[],
        values: &[],
        takes,
    }
}

#[rustfmt::skip]
const TAKERS: &[Taker] = &[
    taker("rm", Takes::All),
    taker("rmdir", Takes::All),
    taker("unlink", Takes::All),
    taker("shred", Takes::All),
    taker("trash", Takes::All),
    taker("trash-put", Takes::All),
    taker("gvfs-trash", Takes::All),
    taker("rip", Takes::All),
    taker("rmtrash", Takes::All),
    Taker { sub: Some("trash"), ..taker("gio", Takes::All) },
    Taker { sub: Some("remove"), ..taker("gio", Takes::All) },
    Taker { values: &["-t", "--target-directory"], ..taker("mv", Takes::Sources) },
    // Moved or installed into it under a settings file's name, or of names unseen.
    Taker { values: &["-t", "--target-directory"], ..taker("mv", Takes::Into) },
    Taker { values: &["-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"], ..taker("install", Takes::Into) },
    // A mode or owner of the directory itself (`chmod 000 .claude`) hides what is in it.
    taker("chmod", Takes::All),
    taker("chown", Takes::All),
    taker("chgrp", Takes::All),
    taker("chattr", Takes::All),
    taker("setfacl", Takes::All),
    Taker { sub: Some("mv"), ..taker("git", Takes::Sources) },
    Taker { sub: Some("rm"), unless: &["--cached"], ..taker("git", Takes::All) },
    // `git stash push -- .claude` takes its changes out of the work tree.
    Taker { sub: Some("stash"), ..taker("git", Takes::All) },
    // Archived and removed: `tar --remove-files`, `zip -m`, `rsync --remove-source-files`.
    Taker { needs: &["--remove-files"], ..taker("tar", Takes::All) },
    Taker { needs: &["--remove-files"], ..taker("gtar", Takes::All) },
    Taker { needs: &["--remove-files"], ..taker("bsdtar", Takes::All) },
    Taker { needs: &["-sdel"], ..taker("7z", Takes::All) },
    Taker { sub: Some("move"), ..taker("rclone", Takes::Sources) },
    Taker { sub: Some("moveto"), ..taker("rclone", Takes::Sources) },
    Taker { needs: &["-m", "--move"], ..taker("zip", Takes::All) },
    Taker { needs: &["--remove-source-files", "--remove-sent-files"], ..taker("rsync", Takes::Sources) },
    // Filled with files of unknown names: a directory's copy, an archive, a mount.
    Taker { values: &["-t", "--target-directory", "-S", "--suffix"], ..taker("cp", Takes::Into) },
    taker("rsync", Takes::Into),
    taker("mount", Takes::Destination),
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], ..taker("tar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], ..taker("gtar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory"], ..taker("bsdtar", Takes::Destination) },
    Taker { sub: Some("x"), values: &["-o"], ..taker("7z", Takes::Destination) },
    Taker { needs: &["-d"], values: &["-d"], ..taker("unzip", Takes::Destination) },
];

/// Whether `flags` give `option`: a long one as written (or with `=value`), a short one
/// anywhere in a cluster.
fn has(args: &[String], option: &str) -> bool {
    args.iter().any(|a| match option.strip_prefix("--") {
        Some(long) => a
            .strip_prefix("--")
            .is_some_and(|f| f == long || f.starts_with(&format!("{long}="))),
        None => {
            let letter = option.trim_start_matches('-');
            !a.starts_with("--") && a.starts_with('-') && a[1..].contains(letter)
        }
    })
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
    let args = match taker.sub {
        Some(sub) => {
            let at = cmd.args.iter().position(|a| !a.starts_with('-'))?;
            (cmd.args[at] == sub).then(|| &cmd.args[at + 1..])?
        }
        None => &cmd.args[..],
    };
    // tar's old bundle without a dash (`tar xf a.tar -C .claude`) reads as a cluster.
    let bundle: Vec<String>;
    let args = match args.first() {
        Some(first) if taker.program == "tar" && !first.starts_with('-') => {
            bundle = std::iter::once(format!("-{first}"))
                .chain(args[1..].iter().cloned())
                .collect();
            &bundle[..]
        }
        _ => args,
    };
    if (!taker.needs.is_empty() && !taker.needs.iter().any(|n| has(args, n)))
        || taker.unless.iter().any(|u| has(args, u))
    {
        return None;
    }
    let mut operands: Vec<&String> = Vec::new();
    let mut valued: Vec<&String> = Vec::new();
    let mut attached: Vec<String> = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.as_str() {
            "--" => operands.extend(words.by_ref()),
            a if taker.values.contains(&a) => valued.extend(words.next()),
            a if a
                .split_once('=')
                .is_some_and(|(name, _)| taker.values.contains(&name)) =>
            {
                valued.push(arg)
            }
            // A short option's value written on to it (`7z x -o.claude`, `cp -t.claude`).
            a if taker
                .values
                .iter()
                .any(|v| v.len() == 2 && a.len() > 2 && a.starts_with(v)) =>
            {
                attached.push(a[2..].to_owned());
            }
            a if a.starts_with('-') && a.len() > 1 => {}
            _ => operands.push(arg),
        }
    }
    let mut valued: Vec<String> = (valued.into_iter())
        .map(|v| v.split_once('=').map_or(v.as_str(), |(_, v)| v).to_owned())
        .chain(attached)
        .collect();
    let candidates: Vec<String> = match taker.takes {
        Takes::All => operands.into_iter().cloned().collect(),
        Takes::Sources if !valued.is_empty() => operands.into_iter().cloned().collect(),
        Takes::Sources => {
            operands.pop();
            operands.into_iter().cloned().collect()
        }
        Takes::Destination => (operands.last().map(|o| (*o).clone()).into_iter())
            .chain(valued)
            .collect(),
        Takes::Into => {
            let whole = has(args, "-T") || has(args, "--no-target-directory");
            let destination = match valued.pop() {
                Some(target) => Some(target),
                None => operands.pop().cloned(),
            };
            let unknown = |source: &&String| {
                let name = source
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(source);
                source.ends_with('/')
                    || source.ends_with("/.")
                    || source.as_str() == "."
                    || source.contains(['*', '?', '[', '$', '`'])
                    || name.to_ascii_lowercase().starts_with("settings")
            };
            (whole || operands.iter().any(unknown))
                .then_some(destination)
                .flatten()
                .into_iter()
                .collect()
        }
    };
    candidates.into_iter().find_map(|arg| {
        let path = rules::lexical(&substitute(&arg), base, home);
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
