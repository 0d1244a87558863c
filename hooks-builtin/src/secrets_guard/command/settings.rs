//! Commands that reach an agent's settings by another way than naming the file: a settings
//! directory removed or moved away, and links the same line makes to it.

use std::path::{Path, PathBuf};

use super::super::rules::{self, SETTINGS_DIRS};
use super::substitute;
use crate::shell::Command;
use crate::shell::extract;
use crate::shell::getopt::{self, Style, Words, is};

mod takers;

use takers::{GIT, TAKERS, Taker, Takes};

/// Programs that remove, or move away, what they are given.
const REMOVERS: &[&str] = &["rm", "rmdir", "mv", "unlink", "shred", "trash", "trash-put"];

/// Programs that rewrite or hide the files they are given (`find … -exec` of one).
const REWRITERS: &[&str] = &[
    "truncate", "sed", "perl", "cp", "tee", "chmod", "chown", "dd", "sponge",
];

/// Programs that hide a directory found by its name (`find . -name .claude -exec chmod 000
/// {} +`).
const HIDERS: &[&str] = &["chmod", "chown", "chgrp", "chattr", "setfacl"];

/// Other spellings of a word: what a variable holds, what a link the line makes reaches. With
/// `true` the word is a directory the command runs in, which a link alone leads to (`cd r`).
pub(super) type Also<'a> = dyn Fn(&str, bool) -> Vec<String> + 'a;

/// Reads `args` as `taker`'s program does ([`getopt::read`]). The options whose value is a
/// directory it takes may be abbreviated; the others are matched as written (`--compress` is
/// no prefix of rsync's `--compress-level`).
fn read(taker: &Taker, args: &[String]) -> Words {
    let switches: Vec<&str> = taker.values.iter().chain(taker.skips).copied().collect();
    getopt::read(args, taker.style, &switches, |given| {
        taker.values.iter().any(|option| is(given, option)) || taker.skips.contains(&given)
    })
}

/// The words after the subcommand `taker` names, and the directory they are relative to
/// (git's `-C DIR` before it moves it); all of them without a subcommand. 7-Zip's switches
/// before its command are its command's (`7z -o.claude x a.7z`). `None` when the command has
/// another subcommand. A global option the table does not list may take a value: the word
/// after it is read as its value when it is not the subcommand (`kubectl -n ns cp`,
/// `rclone --config f copy`), so that an unlisted option never hides the subcommand.
fn after_sub(
    taker: &Taker,
    args: &[String],
    base: &Path,
    home: Option<&Path>,
) -> Option<(Vec<String>, PathBuf)> {
    let Some(sub) = taker.sub else {
        return Some((args.to_vec(), base.to_path_buf()));
    };
    let mut base = base.to_path_buf();
    let mut before = Vec::new();
    let mut i = 0;
    loop {
        let arg = args.get(i)?;
        if !arg.starts_with('-') {
            // The value of an unlisted option before it (`-n ns`), unless it is the
            // subcommand itself.
            let unlisted = i > 0 && args[i - 1].starts_with('-') && !args[i - 1].contains('=');
            if arg == sub || !unlisted {
                break;
            }
            before.push(arg.clone());
            i += 1;
            continue;
        }
        i += 1;
        before.push(arg.clone());
        let valued = |option: &str| taker.lead.iter().any(|l| is(option, l));
        let (name, value) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, value.to_owned()),
            _ if valued(arg) => {
                i += 1;
                (arg.as_str(), args.get(i - 1)?.clone())
            }
            // `-Cdir`, `-ckey=value`.
            _ if !arg.starts_with("--")
                && arg.len() > 2
                && arg.is_char_boundary(2)
                && valued(&arg[..2]) =>
            {
                (&arg[..2], arg[2..].to_owned())
            }
            _ => continue,
        };
        if name == "-C" {
            base = rules::lexical(&substitute(&value), &base, home);
        }
    }
    if args.get(i)? != sub {
        return None;
    }
    let mut words = if taker.style == Style::Switches {
        before
    } else {
        Vec::new()
    };
    words.extend(args[i + 1..].iter().cloned());
    Some((words, base))
}

/// The operand of a command that takes a directory away ([`TAKERS`]) that is an agent's
/// [`SETTINGS_DIRS`] directory, as written and resolved (lexically). An agent reads its
/// settings from the project root and the home directory, so only a settings directory there
/// (or in a parent of the root) counts: a fixture's or a package's `.claude` is the agent's to
/// change. `mv`'s destination is not removed (`mv notes.md .claude/`); the settings files
/// moved onto are judged as written. Each word, and the directory the command runs in, is
/// read in its `also` spellings too (a variable's value, through a link the line makes).
pub(super) fn removed_settings_dir(
    cmd: &Command,
    cwd: &Path,
    root: &Path,
    home: Option<&Path>,
    also: &Also<'_>,
    dots: bool,
) -> Option<(String, PathBuf)> {
    let mut bases = vec![cwd.to_path_buf()];
    if let Some(dir) = &cmd.dir {
        bases = std::iter::once(dir.clone())
            .chain(also(dir, true))
            .map(|d| rules::lexical(&substitute(&d), cwd, home))
            .collect();
    }
    if cmd.program == "find" {
        return (bases.iter()).find_map(|base| find_removes_settings(cmd, base, root, home, also));
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
    let at = Place {
        root,
        home,
        also,
        dots,
    };
    // The extractors other than tar and unzip, read as the command guard reads them: an
    // archive's entries fill where they land; files passed through (`cpio -p`) are names
    // the line does not show.
    if let Some(extracted) = extract::extracted_into(cmd) {
        let candidate = [(extracted.into.clone(), extracted.copies)];
        return (bases.iter()).find_map(|base| first_taken(&candidate, false, base, &at));
    }
    TAKERS
        .iter()
        .filter(|t| t.program == cmd.program)
        .find_map(|t| bases.iter().find_map(|base| taken(t, cmd, base, &at)))
}

/// Where the agent's settings are read, and the other spellings of a word.
struct Place<'a> {
    root: &'a Path,
    home: Option<&'a Path>,
    also: &'a Also<'a>,
    /// Globs match dot names ([`crate::shell::globbing::dot_names`]).
    dots: bool,
}

/// The settings directory `cmd` takes away as `taker` says, if one.
fn taken(taker: &Taker, cmd: &Command, base: &Path, at: &Place<'_>) -> Option<(String, PathBuf)> {
    let home = at.home;
    let (args, base) = after_sub(taker, &cmd.args, base, home)?;
    let words = read(taker, &args);
    if (!taker.needs.is_empty() && !taker.needs.iter().any(|n| words.has(n, false)))
        || taker.unless.iter().any(|u| words.has(u, true))
    {
        return None;
    }
    let mut valued: Vec<String> = words.values(taker.values).map(str::to_owned).collect();
    let whole = words.has("-T", false) || words.has("--no-target-directory", false);
    let reference = words.has("--reference", false);
    // A remount changes the options of what is mounted there; it covers nothing.
    let covers = taker.covers
        && !(words.values(&["-o", "--options"])).any(|o| o.split(',').any(|o| o == "remount"));
    let mut operands = words.operands;
    // `chmod MODE DIR`: only a mode that takes the owner's read or search permission hides it
    // (`--reference=FILE` copies one the guard cannot see).
    if taker.mode {
        // chmod's mode may look like an option (`chmod -x .claude`): read apart.
        let (mode, rest) = chmod_words(&args);
        if mode.is_some_and(|m| !hides(&m)) && !reference {
            return None;
        }
        operands = rest;
    }
    // Each candidate, and whether what the command puts there may make or replace a settings
    // directory in it: a mount covers what is there, a copy of a directory's contents fills it
    // with names the guard cannot see (`cp -r t/. .` brings a `t/.claude` made beforehand).
    let candidates: Vec<(String, bool)> = match taker.takes {
        // Every operand, and each under a directory option given (`tar --remove-files -C ~
        // -cf x.tar .claude`).
        Takes::All => {
            let under: Vec<String> = (valued.iter())
                .flat_map(|dir| operands.iter().map(move |o| format!("{dir}/{o}")))
                .collect();
            (operands.into_iter().chain(under))
                .map(|o| (o, covers))
                .collect()
        }
        Takes::Sources if !valued.is_empty() => operands.into_iter().map(|o| (o, covers)).collect(),
        Takes::Sources => {
            operands.pop();
            operands.into_iter().map(|o| (o, covers)).collect()
        }
        Takes::Destination => {
            let here = (taker.here && valued.is_empty()).then(|| ".".to_owned());
            (operands.pop().into_iter())
                .chain(valued)
                .chain(here)
                .map(|o| (o, covers || taker.merges))
                .collect()
        }
        Takes::Into => {
            let destination = valued.pop().or_else(|| operands.pop());
            into(taker, &operands, destination, whole, at.dots)
        }
    };
    let git = taker.program == "git" && taker.lead == GIT;
    first_taken(&candidates, git, &base, at)
}

/// The first of `candidates` (each with whether what lands there covers or fills it) that is a
/// settings directory, or takes one: written relative to `base` (or, for git's top pathspecs,
/// the root), through its other spellings.
fn first_taken(
    candidates: &[(String, bool)],
    git: bool,
    base: &Path,
    at: &Place<'_>,
) -> Option<(String, PathBuf)> {
    let (root, home) = (at.root, at.home);
    let spellings = candidates.iter().flat_map(|(arg, covering)| {
        let also = (at.also)(arg, false);
        std::iter::once(arg.clone())
            .chain(also)
            .map(move |s| (arg.clone(), s, *covering))
    });
    for (arg, spelt, covering) in spellings {
        let path = match pathspec(git, &spelt) {
            Some((rest, true)) => rules::lexical(&substitute(rest), root, home),
            Some((rest, false)) => rules::lexical(&substitute(rest), base, home),
            None => continue,
        };
        if settings_dir_read_there(&path, root, home) {
            return Some((arg, path));
        }
        // Mounted over, or filled with unseen names, the directory a settings directory is read
        // in, or a parent of it.
        if covering && (root.starts_with(&path) || home.is_some_and(|h| h.starts_with(&path))) {
            return Some((arg, path));
        }
        let (Some(last), Some(parent)) = (path.file_name().and_then(|n| n.to_str()), path.parent())
        else {
            continue;
        };
        if !last.contains(['*', '?', '[']) {
            continue;
        }
        // A glob of its entries takes them all (`rm -rf .claude/*`, `rm .claude/settings*`).
        if settings_dir_read_there(parent, root, home) {
            return Some((arg, parent.to_path_buf()));
        }
        // A glob that matches it (`chmod 000 .c*`, `.*`).
        if let Some(dir) = (SETTINGS_DIRS.iter()).find(|d| glob_matches(last, d, at.dots)) {
            let path = parent.join(dir);
            if settings_dir_read_there(&path, root, home) {
                return Some((arg, path));
            }
        }
    }
    None
}

/// A git pathspec's path (when `git` reads the word) and whether it is written from the top
/// of the work tree: `:/.claude`, `:(top).claude`, `:(top,glob).cl*`; other magic
/// (`:(glob)x`, `:(icase)x`) is read from where git runs. `None` for an exclusion (`:!x`,
/// `:^x`, `:(exclude)x`), which takes nothing; a plain word is itself, not from the top.
fn pathspec(git: bool, word: &str) -> Option<(&str, bool)> {
    if !git || !word.starts_with(':') {
        return Some((word, false));
    }
    if word.starts_with(":!") || word.starts_with(":^") {
        return None;
    }
    if let Some(rest) = word.strip_prefix(":/") {
        return Some((rest, true));
    }
    let Some((magic, rest)) = word.strip_prefix(":(").and_then(|w| w.split_once(')')) else {
        return Some((word, false));
    };
    let magic: Vec<&str> = magic.split(',').map(str::trim).collect();
    if magic.contains(&"exclude") {
        return None;
    }
    Some((rest, magic.contains(&"top")))
}

/// Whether a shell glob (`*`, `?`, `[…]`) matches `name`; an unreadable one matches
/// (read closed). As the shell reads it, a leading dot is matched only by a dot (`*` is not
/// `.claude`, `.*` is), unless the line makes globs match dot names (`dots`).
fn glob_matches(glob: &str, name: &str, dots: bool) -> bool {
    if !dots && name.starts_with('.') && !glob.starts_with('.') {
        return false;
    }
    crate::shell::globbing::name_matches(glob, name)
}

/// Whether a `chmod` mode takes the owner's read or search permission from a directory
/// (`000`, `600`, `u-x`, `a=`, `-r`, `u-g`), or is not one the guard reads whole (`$MODE`,
/// macOS's `+a` ACLs): read closed. `700`, `u+w`, `go-w` do not hide it.
fn hides(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| b.is_ascii_digit()) {
        if mode.bytes().any(|b| b > b'7') || mode.len() > 4 {
            return true;
        }
        // The owner's digit: the third from the end (`0755`, `755`, `55` is `055`).
        let owner = (mode.len().checked_sub(3)).map_or(b'0', |at| mode.as_bytes()[at]);
        return (owner - b'0') & 0o5 != 0o5;
    }
    mode.split(',').any(|clause| {
        let who_end = clause.find(|c| !"ugoa".contains(c)).unwrap_or(clause.len());
        let (who, mut rest) = clause.split_at(who_end);
        let owner = who.is_empty() || who.contains(['u', 'a']);
        if rest.is_empty() {
            return true; // no operator: not a mode the guard reads
        }
        // One or more operations: `u+t-x`, `u=rwx-x`.
        let mut hides = false;
        while let Some(op) = rest.chars().next() {
            if !matches!(op, '+' | '-' | '=') {
                return true;
            }
            let perms_end = rest[1..]
                .find(['+', '-', '='])
                .map_or(rest.len(), |at| at + 1);
            let perms = &rest[1..perms_end];
            // `u-g`: another class's bits, which the guard cannot know.
            let copied = !perms.is_empty() && perms.chars().all(|c| "ugo".contains(c));
            if !copied && !perms.chars().all(|c| "rwxXst".contains(c)) {
                return true;
            }
            hides |= match op {
                '-' => copied || perms.contains(['r', 'x', 'X']),
                '=' => copied || !(perms.contains('r') && perms.contains(['x', 'X'])),
                _ => false,
            };
            rest = &rest[perms_end..];
        }
        owner && hides
    })
}

/// chmod's mode and operands: its options are only `-R`, `-v`, `-c`, `-f` and their long
/// spellings (a word such as `-x` or `-rwx` is a mode, as GNU chmod reads it); `None` for
/// the mode when `--reference` gives one.
fn chmod_words(args: &[String]) -> (Option<String>, Vec<String>) {
    let mut mode = None;
    let mut operands = Vec::new();
    let mut reference = false;
    let mut options_end = false;
    for arg in args {
        let option = !options_end
            && (matches!(
                arg.as_str(),
                "-R" | "-v" | "-c" | "-f" | "-H" | "-L" | "-P" | "-h"
            ) || (arg.starts_with('-')
                && arg.len() > 2
                && arg[1..].bytes().all(|b| b"RvcfHLPh".contains(&b)))
                || (arg.starts_with("--") && arg != "--"));
        if arg == "--" && !options_end {
            options_end = true;
        } else if option {
            reference |= arg.starts_with("--reference") || arg == "--ref";
        } else if mode.is_none() && !reference {
            mode = Some(arg.clone());
        } else {
            operands.push(arg.clone());
        }
    }
    (mode, operands)
}

/// What a copy or move of `sources` into `destination` fills with names the guard cannot see
/// or replaces: the destination itself when what lands in it is a directory's contents
/// (`cp -r x/. .claude/`, `rsync -a x/ .claude/`, `cp -rT x .claude`, anything `kubectl cp`
/// copies: [`Taker::merges`]), a glob, a variable or a settings file of unseen content; and the settings directory a source of that name makes
/// in it (`cp -r x/.claude .`; with `slash_contents`, as rsync reads it, `x/.claude/` is its
/// contents; a glob, `x/?claude` with `dots`, as the shell matches it). (`cp -r docs/commands
/// .claude/` makes `.claude/commands`.) A destination filled with a directory's contents is
/// marked: given the project root, the home directory or a parent of either, it may make or
/// replace the settings directory in it (`cp -r t/. .`).
fn into(
    taker: &Taker,
    sources: &[String],
    destination: Option<String>,
    whole: bool,
    dots: bool,
) -> Vec<(String, bool)> {
    let slash_contents = taker.slash_contents;
    let Some(destination) = destination else {
        return Vec::new();
    };
    // The name a source lands under: its last component, a remote one's too (`host:x`,
    // `pod:/x/settings.json`).
    let name = |source: &str| {
        let trimmed = source.trim_end_matches('/');
        let local = trimmed.rsplit('/').next().unwrap_or(trimmed);
        local.rsplit(':').next().unwrap_or(local).to_owned()
    };
    // A directory's contents, or a word whose names the guard cannot see: what lands may be a
    // settings directory.
    let contents = |source: &String| {
        let trimmed = source.trim_end_matches('/');
        (slash_contents && source.ends_with('/'))
            || trimmed.ends_with("/.")
            || trimmed == "."
            || trimmed.is_empty()
            || source.contains(['$', '`'])
    };
    let unknown = |source: &String| {
        contents(source)
            || source.contains(['*', '?', '['])
            || name(source).to_ascii_lowercase().starts_with("settings")
    };
    let mut taken = Vec::new();
    if !whole {
        let named = (sources.iter())
            .filter(|s| !(slash_contents && s.ends_with('/')))
            .map(|s| name(s))
            .filter(|n| {
                (SETTINGS_DIRS.iter())
                    .any(|d| d.eq_ignore_ascii_case(n) || glob_matches(n, d, dots))
            });
        taken.extend(named.map(|n| (format!("{}/{n}", destination.trim_end_matches('/')), false)));
    }
    let fills = whole || taker.merges || sources.iter().any(contents);
    if fills || sources.iter().any(unknown) {
        taken.push((destination, fills));
    }
    taken
}

/// Calls that remove, move or hide a path, in the languages whose one-liners the guard reads
/// (`shutil.rmtree`, `os.rename`, `fs.rmSync`, `FileUtils.rm_rf`, `File::Path::rmtree`,
/// `Remove-Item`, `os.chmod`).
#[rustfmt::skip]
const CODE_TAKERS: &[&str] = &[
    "rmtree", "rmdir", "remove", "unlink", "rename", "replace", "move", "rmSync", "rm_rf",
    "rm_r", "rm(", "mv(", "chmod", "Remove-Item", "Move-Item", "rimraf", "remove_dir",
    "deleteSync", "delete(",
];

/// In an interpreter's code that calls something that removes, moves or hides a path
/// ([`CODE_TAKERS`]), a string of it (`words`, each with its access) that is a settings
/// directory where an agent reads it: `python3 -c "import shutil; shutil.rmtree('.claude')"`.
pub(super) fn code_takes_settings(
    code: &str,
    words: &[String],
    base: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    if !CODE_TAKERS.iter().any(|call| code.contains(call)) {
        return None;
    }
    words.iter().find_map(|word| {
        let path = rules::lexical(&substitute(word.trim_end_matches('/')), base, home);
        settings_dir_read_there(&path, root, home).then(|| (word.clone(), path))
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
    also: &Also<'_>,
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
            // Through a link too (`ln -s ~/.claude c; find c/ -delete`).
            for spelt in std::iter::once((*start).clone()).chain(also(start, false)) {
                let path = rules::lexical(&substitute(&spelt), base, home);
                if settings_dir_read_there(&path, root, home) {
                    return Some(((*start).clone(), path));
                }
            }
        }
    }
    if !(deletes || runs(REMOVERS) || runs(HIDERS)) {
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
