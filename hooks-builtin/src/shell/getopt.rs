//! A command's words read as getopt reads them: options anywhere before `--` (GNU's
//! permutation), short ones clustered, values written on or given as the next word, long
//! ones abbreviated; and the two other grammars the guards meet, tar's old bundle and
//! 7-Zip's whole switches.

/// How a program reads the words after its name (and subcommand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// getopt's: options anywhere before `--`, short ones clustered (`-ft DIR`, `-xvC DIR`,
    /// `-CDIR`), long ones as `--name VALUE` or `--name=VALUE`.
    Gnu,
    /// getopt's, and tar's old bundle as the first word (`tar xfC a.tar DIR`): its letters
    /// that take a value take the next words, in order.
    Tar,
    /// Whole switches with their values written on (7-Zip's `-sdel`, `-oDIR`).
    Switches,
}

/// Whether the option as given (`-t`, `--target-directory`, or a long one's prefix,
/// `--target`, `--t`) is `option`: getopt takes any unambiguous prefix.
pub(crate) fn is(given: &str, option: &str) -> bool {
    given == option || (given.len() >= 3 && given.starts_with("--") && option.starts_with(given))
}

/// A command's words, as the program reads them: its options (as given, `-t` or `--target`)
/// with their values, and its operands.
#[derive(Debug, Default)]
pub(crate) struct Words {
    pub(crate) options: Vec<(String, Option<String>)>,
    pub(crate) operands: Vec<String>,
}

impl Words {
    /// Whether an option given is `option`; `exactly`, a prefix does not count (an exemption
    /// is read closed).
    pub(crate) fn has(&self, option: &str, exactly: bool) -> bool {
        (self.options.iter()).any(|(given, _)| given == option || (!exactly && is(given, option)))
    }

    /// The values of the options given that are one of `names` (a long one abbreviated too).
    pub(crate) fn values<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a str> + 'a {
        (self.options.iter())
            .filter(move |(given, _)| names.iter().any(|n| is(given, n)))
            .filter_map(|(_, value)| value.as_deref())
    }
}

/// Reads `args` in `style`; `valued` says which options (as given: `-t`, `--target`) take a
/// value. With [`Style::Switches`], `switches` lists the ones whose value is written on.
pub(crate) fn read(
    args: &[String],
    style: Style,
    switches: &[&str],
    valued: impl Fn(&str) -> bool,
) -> Words {
    let mut words = Words::default();
    let mut i = 0;
    if style == Style::Tar
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
        } else if style == Style::Switches {
            let option = (switches.iter()).find(|v| arg.len() > v.len() && arg.starts_with(**v));
            words.options.push(match option {
                Some(v) => ((*v).to_owned(), Some(arg[v.len()..].to_owned())),
                // A switch that takes a value, given alone: the next word may be it.
                None if switches.contains(&arg.as_str()) => {
                    i += 1;
                    (arg.clone(), args.get(i - 1).cloned())
                }
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

#[cfg(test)]
mod tests {
    use super::{Style, is, read};

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_are_read_as_getopt_reads_them() {
        let valued = |o: &str| o == "-t" || is(o, "--target-directory");
        let read = |line: &str| read(&words(line), Style::Gnu, &[], valued);
        let w = read("-ft /tmp a b");
        assert_eq!(w.operands, ["a", "b"]);
        assert_eq!(w.values(&["-t"]).collect::<Vec<_>>(), ["/tmp"]);
        // Attached, abbreviated, after the operands, `--` ending them.
        assert_eq!(
            read("-t/tmp a").values(&["-t"]).collect::<Vec<_>>(),
            ["/tmp"]
        );
        let long = read("a --target /srv b");
        assert_eq!(long.operands, ["a", "b"]);
        assert_eq!(
            long.values(&["--target-directory"]).collect::<Vec<_>>(),
            ["/srv"]
        );
        assert_eq!(read("a -- -t b").operands, ["a", "-t", "b"]);
        assert!(read("-vf x").has("-v", true));
        // tar's old bundle and 7-Zip's switches.
        let tar = super::read(&words("xfC a.tar dir m"), Style::Tar, &[], |o| {
            o == "-f" || o == "-C"
        });
        assert_eq!(tar.values(&["-C"]).collect::<Vec<_>>(), ["dir"]);
        assert_eq!(tar.operands, ["m"]);
        let z = super::read(&words("-odir -sdel a.7z"), Style::Switches, &["-o"], |_| {
            false
        });
        assert_eq!(z.values(&["-o"]).collect::<Vec<_>>(), ["dir"]);
        assert!(z.has("-sdel", true));
    }
}
