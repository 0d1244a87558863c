//! How a command line's globs read, for both guards: whether they reach names that start
//! with a dot ([`dot_names`]), and the plain globs that extglob and zsh patterns stand for
//! ([`pattern_readings`]).
//!
//! By default a shell's `*`, `?` and `[…]` never match a leading dot: `rm -rf *` leaves
//! `.git`, `cat dir/*` skips `dir/.env`. A line can turn that off, and then every glob in it
//! reaches dot names: bash's `shopt -s dotglob` (also `bash -O dotglob`, `BASHOPTS=dotglob`
//! in a new bash's environment), a `GLOBIGNORE` set (bash turns dotglob on with it), zsh's
//! `setopt globdots` (`-o globdots`, `GLOB_DOTS`, `--glob-dots`, any case, `-4`), tcsh's
//! `set globdot`, ksh93's `FIGNORE`, or zsh's `D` glob qualifier on one word (`dir/*(D)`,
//! `*(#qD)`). The guards read the whole line that way when any of these appears anywhere in
//! it: which command the option reaches is not told apart, and a line that only mentions
//! one (`grep dotglob ~/.bashrc`) makes only its globs reach more (the closed reading).

use super::Script;

/// Whether the line makes globs match names that start with a dot (see the module docs).
/// `text` is the line as written: read by text too, because a nested shell's options are
/// words of a command the parser replaced (`bash -O dotglob -c 'cat *'`), and an
/// assignment in a new shell's environment is no option word (`BASHOPTS=dotglob bash`).
pub(crate) fn dot_names(script: &Script, text: &str) -> bool {
    // Without a lowered copy of the text, which every line would pay for.
    let has =
        |word: &[u8]| (text.as_bytes().windows(word.len())).any(|w| w.eq_ignore_ascii_case(word));
    // zsh reads `-` and `_` in option names alike and ignores their case; `-4` is its
    // one-letter GLOB_DOTS. tcsh's `set globdot` and ksh93's `FIGNORE` do the same.
    let zsh_four = text.contains('4')
        && (has(b"zsh") || has(b"setopt") || has(b"emulate"))
        && text.split_whitespace().any(|w| {
            let w = w.trim_matches(['\'', '"']);
            w.strip_prefix('-').is_some_and(|o| {
                !o.starts_with('-')
                    && o.contains('4')
                    && o.bytes().all(|b| b.is_ascii_alphanumeric())
            })
        });
    // Each spelling but the variables' holds `glob`: looked for once before the spellings.
    let glob = has(b"glob");
    text.contains("GLOBIGNORE")
        || text.contains("FIGNORE")
        || (glob && (has(b"dotglob") || has(b"globdot") || has(b"glob_dot") || has(b"glob-dot")))
        || zsh_four
        || script.commands().any(|c| {
            let option_setter = matches!(c.program.as_str(), "shopt" | "setopt" | "set");
            (option_setter
                && (c.args.iter()).any(|a| {
                    let a = a.to_ascii_lowercase().replace('_', "");
                    // An option named through a variable (`shopt -s $o`) may be this one.
                    a == "dotglob" || a == "globdots" || a.contains(['$', '`'])
                }))
                || (c.args.iter())
                    .chain(c.redirects.iter().map(|r| &r.target))
                    .any(|w| qualifier(w).is_some_and(|(_, q)| q.contains('D')))
        })
}

/// A word with zsh's glob qualifiers after it (`dir/*(D)`, `*(.om[1])`, `*(#qD)`): the
/// pattern without them, which zsh matches, and the qualifiers. Read for every word that
/// ends in a parenthesized group with no `|` in it and no `$` before it (a command
/// substitution): bash's extglob reads `*(D)` as "any number of `D`", which the guards read
/// apart.
pub(crate) fn qualifier(word: &str) -> Option<(&str, &str)> {
    let body = word.strip_suffix(')')?;
    let open = body.rfind('(')?;
    let (pattern, qualifiers) = (&body[..open], &body[open + 1..]);
    let before_ok = !pattern.is_empty() && !pattern.ends_with(['$', '(']);
    (before_ok && !qualifiers.contains(['|', '(', ')'])).then_some((pattern, qualifiers))
}

/// Whether the shell glob `glob` (`*`, `?`, bracket expressions with ranges and `!`/`^`
/// negation) matches all of `name`, as the shell matches one path component; the leading-dot
/// rule is the caller's. A POSIX class (`[[:punct:]]`) or an unclosed bracket matches any
/// character (closed). For the short names the guards test (a git path's parts, a service's
/// unit names, a settings directory's name).
pub(crate) fn name_matches(glob: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    matches_chars(&p, &n)
}

fn matches_chars(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|skip| matches_chars(&p[1..], &n[skip..])),
        Some('?') => !n.is_empty() && matches_chars(&p[1..], &n[1..]),
        Some('[') => {
            let Some(&c) = n.first() else {
                return false;
            };
            let negated = matches!(p.get(1), Some('!' | '^'));
            let start = 1 + usize::from(negated);
            // A `]` first in the class is one of its characters; a POSIX class's own `:]`
            // does not close it.
            let mut end = start + 1;
            while end < p.len() && !(p[end] == ']' && p[end - 1] != ':') {
                end += 1;
            }
            if end >= p.len() {
                return matches_chars(&p[1..], &n[1..]);
            }
            let class = &p[start..end];
            let hit = class.contains(&':') || {
                let mut i = 0;
                let mut hit = false;
                while i < class.len() {
                    if i + 2 < class.len() && class[i + 1] == '-' {
                        hit |= (class[i]..=class[i + 2]).contains(&c);
                        i += 3;
                    } else {
                        hit |= class[i] == c;
                        i += 1;
                    }
                }
                hit != negated
            };
            hit && matches_chars(&p[end + 1..], &n[1..])
        }
        Some(&x) => n.first() == Some(&x) && matches_chars(&p[1..], &n[1..]),
    }
}

/// Where the first extglob group of `word` opens.
fn first_group(word: &str) -> Option<usize> {
    ["@(", "?(", "*(", "+(", "!("]
        .iter()
        .filter_map(|g| word.find(g))
        .min()
}

/// Most readings [`pattern_readings`] gives one word.
const MAX_PATTERN_READINGS: usize = 64;

/// `word` read as the plain globs its pattern syntax stands for, for the guards that match
/// plain globs: each extglob group (`@(a|b)`, `?(…)`, `*(…)`, `+(…)`, `!(…)`, which bash
/// matches with `shopt -s extglob` and ksh always) as each of its alternatives and as `*`
/// (`?(…)` and `*(…)` also as nothing; `!(…)` as `*` alone): `cat ~/.@(aws)/credentials` is
/// `~/.aws/credentials`, `rm -rf .@(claude)` is `.claude`, `rm -rf !(keep)` is `*`. zsh's
/// extended globs too: a leading `^` (everything but) as `*`, and `pattern~exclusion` as
/// its pattern. Groups after the first are read the same way in turn, up to
/// [`MAX_PATTERN_READINGS`]; the reading with every group as `*` always. Empty when the
/// word has none of these.
pub(crate) fn pattern_readings(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    // zsh: a component `^x` is every name but `x`; `*~x` every match of `*` but `x`.
    let negated = |c: &str| c.len() > 1 && c.starts_with('^');
    if word.split('/').any(negated) {
        let read: Vec<&str> = (word.split('/'))
            .map(|c| if negated(c) { "*" } else { c })
            .collect();
        out.push(read.join("/"));
    }
    if let Some((pattern, _)) = word.split_once('~')
        && pattern.contains(['*', '?', '['])
    {
        out.push(pattern.to_owned());
    }
    if !word.contains('(') {
        return out;
    }
    // Every group as `*`: the widest reading, kept whatever the bound leaves out (last, so
    // that a reason names the group's own alternatives first).
    let mut widest = word.to_owned();
    while let Some(open) = first_group(&widest) {
        let Some(len) = widest[open + 2..].find(')') else {
            break;
        };
        widest.replace_range(open..open + 3 + len, "*");
    }
    let mut readings = vec![word.to_owned()];
    while let Some(current) = readings.pop() {
        let Some(open) = first_group(&current) else {
            if current != word && !out.contains(&current) {
                out.push(current);
            }
            continue;
        };
        let Some(len) = current[open + 2..].find(')') else {
            continue;
        };
        let (head, body, tail) = (
            &current[..open],
            &current[open + 2..open + 2 + len],
            &current[open + 3 + len..],
        );
        let kind = current.as_bytes()[open];
        let mut alternatives: Vec<&str> = match kind {
            b'!' => vec!["*"],
            _ => body.split('|').chain(["*"]).collect(),
        };
        if matches!(kind, b'?' | b'*') {
            alternatives.push("");
        }
        // In reverse, so that the group's own alternatives are read (and named) first.
        for alternative in alternatives.into_iter().rev() {
            if readings.len() + out.len() + 1 >= MAX_PATTERN_READINGS {
                break;
            }
            readings.push(format!("{head}{alternative}{tail}"));
        }
    }
    if widest != word && !out.contains(&widest) {
        out.push(widest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dots(line: &str) -> bool {
        dot_names(&crate::shell::parse(line).expect("parses"), line)
    }

    #[test]
    fn a_line_that_turns_dot_names_on_is_read_so_in_every_spelling() {
        for line in [
            "shopt -s dotglob; cat *",
            "shopt -s extglob dotglob && rm -rf *",
            "bash -O dotglob -c 'cat *'",
            "BASHOPTS=dotglob bash -c 'cat *'",
            "GLOBIGNORE=x; cat *",
            "export GLOBIGNORE=.:..; rm -rf *",
            "setopt globdots; cat *",
            "setopt GLOB_DOTS; cat *",
            "zsh -o globdots -c 'cat *'",
            "o=dotglob; shopt -s $o; cat *",
            "setopt $opt; cat *",
            "cat sub/*(D)",
            "cat sub/**/*(.D)",
            "cat sub/*(#qD)",
            "echo x > ?git/hooks/*(D)",
            "zsh -4 -c 'cat sub/*'",
            "zsh --glob-dots -c 'cat *'",
            "setopt glob-dots; cat *",
            "zsh -c 'emulate -R zsh -o globdots -c \"cat *\"'",
            "tcsh -c 'set globdot; cat *'",
            "ksh -c 'FIGNORE=x; cat *'",
        ] {
            assert!(dots(line), "{line}");
        }
        for line in [
            "cat *",
            "rm -rf build/*",
            "shopt -s extglob; rm -rf !(keep)",
            "setopt extendedglob; cat *",
            "cat $(ls)",
            "cat sub/*(.)",
            "echo $((1+2))",
            "tail -4 log",
            "zsh -c 'tail -n 40 log'",
        ] {
            assert!(!dots(line), "{line}");
        }
    }

    #[test]
    fn pattern_syntax_is_read_as_the_plain_globs_it_stands_for() {
        let has = |word: &str, reading: &str| pattern_readings(word).iter().any(|r| r == reading);
        assert!(has(".@(claude)", ".claude"));
        assert!(has(".@(claude)", ".*"));
        assert!(has("!(build|public)", "*"));
        assert!(has(".!(git)", ".*"));
        assert!(has("~/.@(aws)/credentials", "~/.aws/credentials"));
        assert!(has("sub/+(?)", "sub/*"));
        assert!(has("x?(y)z", "xz"));
        assert!(has("^x", "*"));
        assert!(has("dir/^x", "dir/*"));
        assert!(has("*~x", "*"));
        assert!(pattern_readings("plain/path").is_empty());
        assert!(pattern_readings("~/x").is_empty());
        let many = "@(a|b)@(a|b)@(a|b)@(a|b)@(a|b)@(a|b)@(a|b)";
        assert!(pattern_readings(many).len() <= MAX_PATTERN_READINGS);
        // Past the bound, every group as `*` is still read.
        assert!(has(many, "*******"));
    }

    #[test]
    fn bracket_expressions_match_as_the_shell_reads_them() {
        assert!(name_matches(".[g]it", ".git"));
        assert!(name_matches("[.]git", ".git"));
        assert!(name_matches(".g[h-j]t", ".git"));
        assert!(name_matches(".g[!x]t", ".git"));
        assert!(name_matches("[[:punct:]]git", ".git"));
        assert!(name_matches("h[o]oks", "hooks"));
        assert!(!name_matches("[s]ettings.json", ".gitconfig"));
        assert!(!name_matches(".g[!i]t", ".git"));
        assert!(!name_matches("[ab]", "hooks"));
    }

    #[test]
    fn whole_names_match_with_stars_and_marks() {
        assert!(name_matches("ss?.service", "ssh.service"));
        assert!(name_matches("ssh*", "sshd"));
        assert!(name_matches("*", ""));
        assert!(!name_matches("ssh", "sshd"));
        assert!(!name_matches("?", ""));
    }

    #[test]
    fn qualifiers_are_read_off_glob_words_only() {
        assert_eq!(qualifier("sub/*(D)"), Some(("sub/*", "D")));
        assert_eq!(qualifier("*(#qD)"), Some(("*", "#qD")));
        assert_eq!(qualifier("*(om[1])"), Some(("*", "om[1]")));
        assert_eq!(qualifier("@(a|b)"), None);
        assert_eq!(qualifier("$(ls)"), None);
        assert_eq!(qualifier("a$(ls)"), None);
        assert_eq!(qualifier("$((1+2))"), None);
        assert_eq!(qualifier("(D)"), None);
        assert_eq!(qualifier("plain"), None);
    }
}
