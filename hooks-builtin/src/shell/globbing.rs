//! How a command line's globs treat names that start with a dot, for both guards.
//!
//! By default a shell's `*`, `?` and `[…]` never match a leading dot: `rm -rf *` leaves
//! `.git`, `cat dir/*` skips `dir/.env`. A line can turn that off, and then every glob in it
//! reaches dot names: bash's `shopt -s dotglob` (also `bash -O dotglob`, `BASHOPTS=dotglob`
//! in a new bash's environment), a `GLOBIGNORE` set (bash turns dotglob on with it), zsh's
//! `setopt globdots` (`-o globdots`, `GLOB_DOTS`, any case and underscores), or zsh's `D`
//! glob qualifier on one word (`dir/*(D)`, `*(#qD)`). The guards read the whole line that
//! way when any of these appears anywhere in it: which command the option reaches is not
//! told apart, and a line that only mentions one (`grep dotglob ~/.bashrc`) makes only its
//! globs reach more (the closed reading).

use super::Script;

/// Whether the line makes globs match names that start with a dot (see the module docs).
/// `text` is the line as written: read by text too, because a nested shell's options are
/// words of a command the parser replaced (`bash -O dotglob -c 'cat *'`), and an
/// assignment in a new shell's environment is no option word (`BASHOPTS=dotglob bash`).
pub(crate) fn dot_names(script: &Script, text: &str) -> bool {
    // Without a lowered copy of the text, which every line would pay for.
    let has =
        |word: &[u8]| (text.as_bytes().windows(word.len())).any(|w| w.eq_ignore_ascii_case(word));
    text.contains("GLOBIGNORE")
        || has(b"dotglob")
        || has(b"globdots")
        || has(b"glob_dots")
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
        ] {
            assert!(!dots(line), "{line}");
        }
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
