//! How a pack rule reads a command's arguments: its flags, its operands, where it writes
//! (`-t DIR`), and which operands name another machine.

/// A command's arguments as a pack rule reads them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::command_guard) struct Split<'a> {
    /// The words that start with `-` (before a `--`).
    pub(in crate::command_guard) flags: Vec<&'a str>,
    /// The other words, in order, the values the rule's `values` and `target` options take
    /// left out.
    pub(in crate::command_guard) operands: Vec<&'a str>,
    /// The values of the rule's `target` options (`/srv` of `mv -t /srv a b`).
    pub(in crate::command_guard) targets: Vec<&'a str>,
}

/// Splits `args` into flags and operands. A word that `values` or `target` options take as
/// their value (`--exclude x`, `-e ssh`, `-t dir`; a short one ending its cluster, `-ae ssh`)
/// is neither; a value attached to its option (`--exclude=x`, `-tdir`) is part of the flag.
/// A `target` option's long name may be abbreviated (`--target` of `--target-directory`), as
/// GNU tools accept: reading a word as a target only makes the rule look at more places.
pub(in crate::command_guard) fn split<'a>(
    args: &'a [String],
    values: &[impl AsRef<str>],
    target: &[impl AsRef<str>],
) -> Split<'a> {
    fn long(list: &[impl AsRef<str>], name: &str) -> bool {
        list.iter()
            .filter_map(|o| o.as_ref().strip_prefix("--"))
            .any(|o| o == name)
    }
    fn short(list: &[impl AsRef<str>], c: char) -> bool {
        list.iter().any(|o| {
            o.as_ref()
                .strip_prefix('-')
                .is_some_and(|s| s.chars().eq([c]))
        })
    }
    let abbreviates = |name: &str| {
        !name.is_empty()
            && target
                .iter()
                .filter_map(|o| o.as_ref().strip_prefix("--"))
                .any(|o| o.starts_with(name))
    };
    let mut split = Split::default();
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        if arg == "--" {
            split.operands.extend(args.by_ref());
            break;
        }
        if let Some(name) = arg.strip_prefix("--") {
            split.flags.push(arg);
            let (name, attached) = match name.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (name, None),
            };
            let is_target = abbreviates(name);
            if is_target || long(values, name) {
                let value = attached.or_else(|| args.next());
                if is_target {
                    split.targets.extend(value);
                }
            }
        } else if arg.len() > 1 && arg.starts_with('-') {
            split.flags.push(arg);
            // A single-dash long option (`-out FILE`, `-out=FILE`: openssl's, Go's).
            let (name, attached) = arg
                .split_once('=')
                .map_or((arg, None), |(n, v)| (n, Some(v)));
            fn listed(list: &[impl AsRef<str>], name: &str) -> bool {
                name.len() > 2 && list.iter().any(|o| o.as_ref() == name)
            }
            if listed(values, name) || listed(target, name) {
                let value = attached.or_else(|| args.next());
                if listed(target, name) {
                    split.targets.extend(value);
                }
                continue;
            }
            let cluster = &arg[1..];
            // The first option of the cluster that takes a value takes the rest of it, or
            // the next word when it ends the cluster.
            if let Some((at, c)) = cluster
                .char_indices()
                .find(|&(_, c)| short(values, c) || short(target, c))
            {
                let rest = &cluster[at + c.len_utf8()..];
                let value = if rest.is_empty() {
                    args.next()
                } else {
                    Some(rest)
                };
                if short(target, c) {
                    split.targets.extend(value);
                }
            }
        } else {
            split.operands.push(arg);
        }
    }
    split
}

/// Whether `text` is written as an option: `-x`, `--name`, or a single-dash long option
/// (`-out`).
pub(super) fn is_option(text: &str) -> bool {
    let name = text.strip_prefix("--").or_else(|| text.strip_prefix('-'));
    name.is_some_and(|n| !n.is_empty() && !n.starts_with('-') && !n.contains(['=', ' ']))
}

/// Programs for which an operand with a `:` before any `/` names a place on another machine
/// (`host:/srv`, `[::1]:/`), never a local file.
const REMOTE_COPIES: &[&str] = &["rsync", "scp"];

/// Whether `operand` of `program` names a place on another machine (`host:/`, `[::1]:.`,
/// `rsync://host/m/`). Only a host name before the `:` makes it remote (`${X:-.}` and
/// `$HOME:` are local).
pub(in crate::command_guard) fn is_remote(program: &str, operand: &str) -> bool {
    REMOTE_COPIES.contains(&program)
        && (operand
            .get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("rsync://"))
            || remote_host(operand).is_some_and(is_host))
}

/// Whether `operand` of `program` may name a place on another machine through a variable
/// (`"$HOST:/var/www"`, `deploy@${HOST}:/srv`): a variable, closed, right before the `:`.
/// `${X:-/}` is not one (its `:` is inside the braces).
pub(in crate::command_guard) fn may_be_remote(program: &str, operand: &str) -> bool {
    REMOTE_COPIES.contains(&program)
        && remote_host(operand).is_some_and(|host| {
            let name = host.trim_end_matches('}');
            let start = name.rfind('$').map_or(name.len(), |at| at + 1);
            let var = name[start..].trim_start_matches('{');
            !var.is_empty()
                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && (host.ends_with('}') == name[start..].starts_with('{'))
        })
}

/// The text before the `:` of a remote copy's operand, an IPv6 address in brackets whole
/// (`[::1]` of `[::1]:/`).
fn remote_host(operand: &str) -> Option<&str> {
    match operand.find("]:") {
        Some(end) if operand[..end].contains('[') => Some(&operand[..=end]),
        _ => operand.split_once(':').map(|(host, _)| host),
    }
}

/// Whether `text` reads as a remote copy's `[user@]host` (`deploy@web1`, `[::1]`).
fn is_host(text: &str) -> bool {
    let host = text
        .rsplit_once('@')
        .map_or(text, |(user, host)| if user.is_empty() { "" } else { host });
    let name = |h: &str| {
        !h.is_empty()
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    let bracketed = |h: &str| {
        h.strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .is_some_and(|a| {
                !a.is_empty()
                    && a.chars().all(|c| {
                        c.is_ascii_hexdigit()
                            || matches!(c, ':' | '.' | '%')
                            || c.is_ascii_alphanumeric()
                    })
            })
    };
    name(host) || bracketed(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    fn list(options: &[&str]) -> Vec<String> {
        options.iter().map(|o| (*o).to_owned()).collect()
    }

    #[test]
    fn value_options_take_their_word_and_target_options_say_where_it_writes() {
        let values = list(&["-e", "--exclude", "-S"]);
        let target = list(&["-t", "--target-directory", "-out"]);
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("-a --delete src/ . --exclude x", &["src/", "."], &[]),
            ("-a --delete src/ . --exclude=x", &["src/", "."], &[]),
            ("-ae ssh --delete ./ dest/", &["./", "dest/"], &[]),
            ("-essh ./ dest/", &["./", "dest/"], &[]),
            ("-v -t /srv a b", &["a", "b"], &["/srv"]),
            ("-vt /srv a", &["a"], &["/srv"]),
            ("-t/srv a", &["a"], &["/srv"]),
            ("--target-directory /srv a", &["a"], &["/srv"]),
            ("--target=/srv a", &["a"], &["/srv"]),
            ("--t /srv a", &["a"], &["/srv"]),
            ("a -- -t b", &["a", "-t", "b"], &[]),
            // Not a listed option: its value stays an operand.
            ("--include x a b", &["x", "a", "b"], &[]),
            ("-x --delete", &[], &[]),
            ("-out /dev/sda -in x", &["x"], &["/dev/sda"]),
            ("-out=/dev/sda x", &["x"], &["/dev/sda"]),
            ("-e", &[], &[]),
        ];
        for (line, operands, targets) in cases {
            let args = words(line);
            let split = split(&args, &values, &target);
            assert_eq!(split.operands, *operands, "{line}");
            assert_eq!(split.targets, *targets, "{line}");
        }
    }

    #[test]
    fn only_a_host_before_the_colon_makes_a_remote_copys_operand_remote() {
        for o in [
            "host:/",
            "deploy@web-1.example.org:/srv",
            "[::1]:/",
            "user@[fe80::1%eth0]:x",
            "h::module",
            "rsync://host/m/",
            "RSYNC://host/m/",
        ] {
            assert!(is_remote("rsync", o), "{o}");
        }
        assert!(!is_remote("cp", "host:/"));
        for o in ["$HOST:/var/www", "deploy@${HOST}:/srv", "${USER}@$HOST:x"] {
            assert!(may_be_remote("rsync", o), "{o}");
        }
        for o in ["${NOPE:-/}", "${NOPE:-.}", "$X", "$HOST/x:y", "${X:?}"] {
            assert!(!may_be_remote("rsync", o), "{o}");
        }
        for o in [
            "${NOPE:-.}",
            "${HOME:?}",
            "$HOME:",
            "./a:b",
            "/x:y",
            "~:",
            ":/",
            "@h:/",
            "\"${PWD:0}\"",
        ] {
            assert!(!is_remote("rsync", o), "{o}");
        }
    }
}
