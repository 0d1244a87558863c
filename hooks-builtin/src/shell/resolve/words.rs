//! A command's words: the program a word names, options and their values, and the directory
//! a relative path joins.

use std::borrow::Cow;

use super::wrappers;

/// The program a command word names: its file name ([`command_name`]), or for a substitution
/// that looks a program up (`$(which rm)`, `` `command -v rm` ``), that program.
pub(super) fn program_name(word: &str) -> Cow<'_, str> {
    let inner = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')));
    if let Some(inner) = inner {
        let mut tokens = inner.split_whitespace();
        let lookup = matches!(
            tokens.next(),
            Some("which" | "command" | "type" | "whence" | "realpath" | "readlink")
        );
        return match tokens.rfind(|t| !t.starts_with('-')) {
            Some(name) if lookup => folded(basename(name)),
            _ => Cow::Borrowed(word),
        };
    }
    command_name(word)
}

/// The value of the first of `names` in `args`: the next word, after `=` for a long one, or
/// written on to a short one (`-C'cmd'`).
pub(super) fn option_value<'a>(args: &'a [String], names: &'a [&'a str]) -> Option<&'a str> {
    option_values(args, names).next()
}

/// Every value of `names` in `args`, in order ([`option_value`]).
pub(super) fn option_values<'a>(
    args: &'a [String],
    names: &'a [&'a str],
) -> impl Iterator<Item = &'a str> + 'a {
    let mut words = args.iter().map(String::as_str);
    std::iter::from_fn(move || {
        while let Some(word) = words.next() {
            for name in names {
                if word == *name {
                    return Some(words.next());
                }
                let rest = word.strip_prefix(name);
                if name.starts_with("--") {
                    if let Some(value) = rest.and_then(|r| r.strip_prefix('=')) {
                        return Some(Some(value));
                    }
                } else if name.len() == 2
                    && let Some(value) = rest.filter(|r| !r.is_empty())
                {
                    return Some(Some(value));
                }
            }
        }
        None
    })
    .flatten()
}

/// The program a plain command word runs: its file name, and for zsh's `=rm` (the path of
/// `rm`), `rm`; in lower case and without `.exe` ([`folded`]); for a program that is another
/// under a new name ([`SAME_AS`]), that one.
pub(super) fn command_name(word: &str) -> Cow<'_, str> {
    let word = word
        .strip_prefix('=')
        .filter(|rest| !rest.is_empty() && !rest.starts_with(['=', '(']))
        .unwrap_or(word);
    let name = folded(basename(word));
    match SAME_AS.iter().find(|(alias, _)| *alias == name) {
        Some((_, program)) => Cow::Borrowed(program),
        // uutils' coreutils as some systems install them beside GNU's (`uu-rm`): the GNU
        // tool of the same name, as its `g` spelling is.
        None => match (name.strip_prefix("uu-")).and_then(|rest| {
            SAME_AS
                .iter()
                .find(|(alias, _)| alias.strip_prefix('g') == Some(rest))
        }) {
            Some((_, program)) => Cow::Borrowed(program),
            None => name,
        },
    }
}

/// A program's name as a file system that ignores case finds it, and without what Windows
/// adds or drops: `RM`, `Rm`, `rm.EXE`, `rm.cmd` and `rm.` all run `rm` on macOS's and
/// Windows's default file systems (Git Bash, MSYS2 and Cygwin take `rm.exe` for `rm`, WSL runs
/// `git.exe`, npm installs `.cmd` shims, and Win32 drops a name's trailing dots and spaces).
/// On a file system that keeps case, `RM` finds nothing and fails, so reading it as `rm`
/// costs nothing there. A word that is not a plain name (a substitution, `$IFS`) is kept as
/// it is.
pub(in crate::shell) fn folded(name: &str) -> Cow<'_, str> {
    if name.contains(['$', '(', '`']) {
        return Cow::Borrowed(name);
    }
    let trimmed = |n: &'_ str| -> usize { n.trim_end_matches(['.', ' ']).len() };
    let mut stem = &name[..trimmed(name)];
    // Windows's executable suffixes (`PATHEXT`), then what Win32 drops again (`rm.exe.`).
    for suffix in [".exe", ".com", ".cmd", ".bat"] {
        if let Some(at) = stem.len().checked_sub(suffix.len())
            && at > 0
            && stem.is_char_boundary(at)
            && stem[at..].eq_ignore_ascii_case(suffix)
        {
            stem = &stem[..at];
            stem = &stem[..trimmed(stem)];
            break;
        }
    }
    if stem.is_empty() {
        return Cow::Borrowed(name);
    }
    if stem.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(stem.to_ascii_lowercase())
    } else {
        Cow::Borrowed(stem)
    }
}

/// Programs that take another's arguments and run it: judged as that one. GNU's tools as
/// Homebrew installs them on macOS carry a `g` (`grm`, `gfind`, `gdd`); `bfs` is a
/// breadth-first `find` of the same expressions.
#[rustfmt::skip]
const SAME_AS: &[(&str, &str)] = &[
    ("kubecolor", "kubectl"), ("wsl.exe", "wsl"),
    ("grm", "rm"), ("grmdir", "rmdir"), ("gfind", "find"), ("bfs", "find"), ("gxargs", "xargs"), ("gdd", "dd"),
    ("gcp", "cp"), ("gmv", "mv"), ("gln", "ln"), ("ginstall", "install"), ("gtee", "tee"),
    ("gchmod", "chmod"), ("gchown", "chown"), ("gchgrp", "chgrp"), ("gtruncate", "truncate"),
    ("gshred", "shred"), ("gunlink", "unlink"), ("gsplit", "split"), ("gsort", "sort"),
    ("genv", "env"), ("gtimeout", "timeout"), ("gnice", "nice"), ("gnohup", "nohup"),
    ("gstdbuf", "stdbuf"), ("gchroot", "chroot"), ("gsed", "sed"),
    // Forensic dd's: dd's operands, and more (`wipe=`, `hof=`: the dd rule reads them).
    ("dcfldd", "dd"), ("dc3dd", "dd"),
];

/// `rm` for `/bin/rm`; a word whose last part is a substitution (`$(curl …/x)`) is kept whole.
fn basename(word: &str) -> &str {
    // A word that splits on `$IFS` (`cat${IFS}/etc/passwd`) is not a path: kept whole.
    if word.contains("$IFS") || word.contains("${IFS") {
        return word;
    }
    let last = word
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if last.is_empty() || last.contains(['(', ')', '`']) {
        word
    } else {
        last
    }
}

/// An option, as [`walk_options`] reports it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::shell) enum Opt<'a> {
    Short(char),
    Long(&'a str),
}

/// Walks the options at the start of `args`, given the short and long options that take a
/// value: `f` gets each option with its value (`None` for a flag). Returns how many words they
/// span; a `--` is counted and ends them. With `dash`, a lone `-` is an option.
pub(in crate::shell) fn walk_options<'a>(
    args: &'a [String],
    short: &str,
    long: &[&str],
    dash: bool,
    mut f: impl FnMut(Opt<'a>, Option<&'a str>),
) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return i + 1;
        }
        if let Some(name) = arg.strip_prefix("--") {
            i += match name.split_once('=') {
                Some((name, value)) => {
                    f(Opt::Long(name), Some(value));
                    1
                }
                None if long.contains(&name) => {
                    f(Opt::Long(name), args.get(i + 1).map(String::as_str));
                    2
                }
                None => {
                    f(Opt::Long(name), None);
                    1
                }
            };
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            // `-u root`, `-Eu root`: a value option takes the next word when it ends its
            // cluster, else the rest of the cluster (`-uroot`).
            let mut step = 1;
            for (at, c) in cluster.char_indices() {
                if short.contains(c) {
                    match cluster.get(at + c.len_utf8()..).unwrap_or_default() {
                        "" => {
                            f(Opt::Short(c), args.get(i + 1).map(String::as_str));
                            step = 2;
                        }
                        rest => f(Opt::Short(c), Some(rest)),
                    }
                    break;
                }
                f(Opt::Short(c), None);
            }
            i += step;
        } else if dash && arg == "-" {
            i += 1;
        } else {
            break;
        }
    }
    i.min(args.len())
}

/// How many of `args` are options, given the short and long options that take a value.
pub(super) fn options(args: &[String], short: &str, long: &[&str]) -> usize {
    walk_options(args, short, long, false, |_, _| {})
}

/// The value of `env -S`/`--split-string` among env's options: its index, how many words it
/// spans, and the value.
pub(super) fn env_split(
    env: &wrappers::Wrapper,
    args: &[String],
) -> Option<(usize, usize, String)> {
    let options = walk_options(args, env.short, env.long, env.dash, |_, _| {});
    args[..options].iter().enumerate().find_map(|(i, arg)| {
        let value = |inline: &str| match inline {
            "" => args.get(i + 1).map(|v| (i, 2, v.clone())),
            v => Some((i, 1, v.to_owned())),
        };
        if arg == "--split-string" {
            value("")
        } else if let Some(v) = arg.strip_prefix("--split-string=") {
            Some((i, 1, v.to_owned()))
        } else if arg.starts_with('-') && !arg.starts_with("--") {
            // The first value option of the cluster takes the rest: `-uS` is `-u S`.
            let cluster = &arg[1..];
            let first = cluster.find(|c| env.short.contains(c))?;
            cluster[first..].strip_prefix('S').and_then(value)
        } else {
            None
        }
    })
}

/// `dir` joined with `target`: a relative `target` adds to it (`cd a && cd b` is `a/b`).
pub(in crate::shell) fn join_dir(dir: Option<String>, target: &str) -> String {
    match dir {
        Some(dir) if !target.starts_with(['/', '~', '$']) => format!("{dir}/{target}"),
        _ => target.to_owned(),
    }
}
