//! Whether a rule's exemption (`unless = ["--dry-run", "-n", "help"]`) is given, read closed:
//! an exemption is the one place a misread word turns a deny into an allow, so a word that
//! may be something else exempts nothing.
//!
//! - A word that may be the value of the option before it is not an exemption: `--query
//!   help`, `--log-file --dry-run`, `-C -n`. With an options table for the program
//!   (`[options.rsync]`, from any builtin pack), the options it lists take a value; without
//!   one, every option without `=` may, but those in [`NO_VALUE`].
//! - In a cluster of short options, a letter after one that may take a value may be that
//!   value: `-bn` is `-b n` for all the guard knows.
//! - An option turned off is none: `--dry-run=false`, `--dry-run=none` (kubectl), `-n=0`.
//! - After `--` only operands exempt, and after the image of `docker run` (and the kin in
//!   [`COMMAND_AFTER`]) nothing does: those words are the container's command's.

use super::super::user::wildcard;
use super::ProgramOptions;

/// Options that take no value in any program the packs name, read as flags without a table:
/// `aws s3 rm s3://b --recursive --dryrun` is a dry run. (`-n`, `-h`, `-i`, `-v`, `-d`, `-a`
/// and `-m` take a value in some: `kubectl -n NS`, `psql -h HOST`, `ssh -i KEY`, `docker -v
/// VOL`, `psql -d DB`, `pulumi -m MESSAGE`.)
#[rustfmt::skip]
const NO_VALUE: &[&str] = &[
    "-r", "-R", "--recursive", "-y", "--yes", "-q", "--quiet", "--verbose", "-f", "--force",
    "--all", "-A", "--all-namespaces", "--cached", "--dry-run", "--dryrun", "--help",
    "--delete", "--purge", "--wait", "--now", "--no-wait", "--interactive",
    "--ignore-not-found", "--skip-preview", "--checksum", "--fast-list", "--only-show-errors",
    "--debug", "--keep-history", "--ignore-daemonsets", "--delete-emptydir-data", "--record",
    "--progress", "--no-color", "--non-interactive", "--confirm",
];

/// Whether `exemption` is given in `args`; `values` lists the program's options that take a
/// value, `None` when the pack has no table for it. The last word that gives or takes it back
/// counts (`--dry-run --dry-run=none`, `--dry-run --no-dry-run` run for real).
/// Programs whose operands after the subcommand and one more (an image) are a command of
/// their own (`docker run IMAGE CMD --help`): no word there exempts.
const COMMAND_AFTER: &[&str] = &[
    "docker",
    "podman",
    "nerdctl",
    "finch",
    "lima",
    "nerdctl.lima",
];

/// Whether `exemption` is given in `args` of `program` ([`given`]).
pub(super) fn given_to(
    program: &str,
    exemption: &str,
    args: &[String],
    values: Option<&ProgramOptions>,
) -> bool {
    if !COMMAND_AFTER.contains(&program) {
        return given(exemption, args, values);
    }
    // The words up to the earliest the image can be: the second without a dash (an option's
    // value may be it, but reading it so exempts less).
    let end = (args.iter().enumerate())
        .filter(|(_, a)| !a.starts_with('-'))
        .nth(1)
        .map_or(args.len(), |(at, _)| at + 1);
    given(exemption, &args[..end], values)
}

pub(super) fn given(exemption: &str, args: &[String], values: Option<&ProgramOptions>) -> bool {
    let takes_value = |option: &str| match values {
        Some(known) => (known.values.iter().chain(&known.target)).any(|o| o == option),
        None => !NO_VALUE.contains(&option),
    };
    // An exemption that is one of the program's modes is taken back by a mode given after
    // it (`shutdown -c -h now` powers off).
    let modes: &[String] = match values {
        Some(known) if known.modes.iter().any(|m| m == exemption) => &known.modes,
        _ => &[],
    };
    // getopt takes a long option's prefix (`--pow` is `--poweroff`): one that may be another
    // mode is one.
    let other_mode = |option: &str| {
        option != exemption
            && (modes.iter()).any(|m| {
                m == option
                    || (option.starts_with("--") && option.len() >= 3 && m.starts_with(option))
            })
    };
    let long = exemption.strip_prefix("--");
    let mut state = None;
    let mut operands_only = false;
    let mut may_be_value = false;
    for arg in args.iter().map(String::as_str) {
        let value_here = std::mem::take(&mut may_be_value);
        if operands_only || arg == "-" || !arg.starts_with('-') {
            // A word the shell fills in (`$X`, `` `…` ``, a glob) may be another mode.
            if !modes.is_empty() && !operands_only && arg.contains(['$', '`', '*', '?', '[']) {
                state = Some(false);
            }
            if !value_here && !exemption.starts_with('-') && wildcard(exemption, arg) {
                state = Some(true);
            }
            continue;
        }
        // `--` ends the options, even after one that could take it as a value: the reading
        // that exempts less.
        if arg == "--" {
            operands_only = true;
            continue;
        }
        if let Some(given) = arg.strip_prefix("--") {
            let (name, value) = match given.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (given, None),
            };
            may_be_value = value.is_none() && takes_value(&format!("--{name}"));
            if value_here {
                continue;
            }
            if long == Some(name) {
                state = Some(!value.is_some_and(off));
            } else if long.is_some_and(|l| name.strip_prefix("no-") == Some(l))
                || other_mode(&format!("--{name}"))
            {
                state = Some(false);
            }
            continue;
        }
        // A word spelt with one dash (`-help`, terraform's `-dry-run=false`).
        if !value_here && exemption.chars().count() > 2 && !exemption.starts_with("--") {
            match arg.split_once('=') {
                Some((name, value)) if name == exemption => {
                    state = Some(!off(value));
                    continue;
                }
                None if arg == exemption => {
                    state = Some(true);
                    continue;
                }
                _ => {}
            }
        }
        let cluster = &arg[1..];
        for (at, letter) in cluster.char_indices() {
            let rest = &cluster[at + letter.len_utf8()..];
            if let Some(value) = rest.strip_prefix('=') {
                // `-n=false`: the letter's value follows the `=`.
                if !value_here && is_letter(exemption, letter) {
                    state = Some(!off(value));
                }
                break;
            }
            if !value_here && is_letter(exemption, letter) {
                state = Some(true);
            } else if !value_here && other_mode(&format!("-{letter}")) {
                state = Some(false);
            }
            // A letter that may take a value takes the rest of the cluster, or the next word;
            // without a table the word may be one option spelt with one dash, which takes the
            // next word (`terraform state rm -backup PATH`, Go's flags), unless its value is
            // in it (`-lock=false`).
            if takes_value(&format!("-{letter}")) {
                may_be_value = rest.is_empty() || (values.is_none() && !cluster.contains('='));
                break;
            }
        }
    }
    state == Some(true)
}

/// Whether `exemption` is the short option `letter` (`-n`).
fn is_letter(exemption: &str, letter: char) -> bool {
    let mut chars = exemption.chars();
    chars.next() == Some('-') && chars.next() == Some(letter) && chars.next().is_none()
}

/// A value that turns a flag off, or one the guard cannot read (`--dry-run=$X`). Go's flags
/// take `f` and `F` for false too.
fn off(value: &str) -> bool {
    value.contains(['$', '`'])
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "none" | "false" | "f" | "0" | "no" | "n" | "off"
        )
}

#[cfg(test)]
mod tests {
    use super::{ProgramOptions, given};

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn an_exemption_given_plainly_exempts() {
        for (exemption, line) in [
            ("--dry-run", "delete ns prod --dry-run"),
            ("--dry-run", "delete ns prod --dry-run=client"),
            ("-n", "sync -n src dst"),
            ("-n", "-nv src dst"),
            ("help", "rds delete-db-instance help"),
            ("--help", "destroy --help"),
            ("-help", "terraform destroy -help"),
            (
                "--dry-run",
                "delete ns x --ignore-not-found --dry-run=client",
            ),
            ("-dry-run", "state rm -lock=false -dry-run x"),
            ("-n", "rm -rf -n src"),
            ("help", "x -- help"),
        ] {
            assert!(
                given(exemption, &words(line), None),
                "{exemption} in {line}"
            );
        }
    }

    #[test]
    fn a_word_that_may_be_something_else_exempts_nothing() {
        for (exemption, line) in [
            // The value of the option before it.
            ("help", "rds delete-db-instance --query help"),
            ("--dry-run", "delete ns prod --cache-dir --dry-run"),
            ("-n", "-r ext4 -C -n"),
            ("-n", "rsync -d -r -x -n ./empty gs://prod"),
            // A later letter of a cluster, which may be an earlier letter's value.
            ("-n", "bulk-delete -bn backups --force"),
            // A word spelt with one dash may be one option that takes the next word.
            (
                "--dry-run",
                "state rm -backup --dry-run aws_db_instance.prod",
            ),
            // Turned off, or taken back later: the last word counts.
            ("-h", "delete cluster prod -h=false"),
            ("--dry-run", "delete ns prod --dry-run=none"),
            ("--dry-run", "delete ns prod --dry-run --dry-run=none"),
            ("--dry-run", "terminate-instances --dry-run --no-dry-run"),
            ("--dry-run", "delete ns prod --dry-run=f"),
            ("--help", "repo delete o/r --yes --help=f"),
            ("--dry-run", "delete ns prod --dry-run=$X"),
            ("-dry-run", "state rm -dry-run -dry-run=false x"),
            // `-n` takes kubectl's namespace.
            ("--dry-run", "delete ns prod -n --dry-run"),
            // An option after `--` is an operand.
            ("--dry-run", "x -- --dry-run"),
            // Not given at all.
            ("-n", "sync src dst"),
        ] {
            assert!(
                !given(exemption, &words(line), None),
                "{exemption} in {line}"
            );
        }
    }

    #[test]
    fn a_table_of_value_options_reads_the_rest_as_flags() {
        let rsync = ProgramOptions {
            values: ["-e", "--exclude", "--log-file"]
                .map(str::to_owned)
                .to_vec(),
            ..ProgramOptions::default()
        };
        let rsync = Some(&rsync);
        // `-a` and `-v` take no value: `-n` later in the cluster, or after `--verbose`, is
        // an option.
        assert!(given("-n", &words("-avn --delete src/ /etc"), rsync));
        assert!(given(
            "--dry-run",
            &words("--verbose --dry-run src/ /etc"),
            rsync
        ));
        // `-e` and `--log-file` do.
        assert!(!given("-n", &words("-aen --delete src/ /etc"), rsync));
        assert!(!given("-n", &words("-e -n --delete src/ /etc"), rsync));
        assert!(!given(
            "--dry-run",
            &words("--log-file --dry-run src/ /etc"),
            rsync
        ));
    }

    #[test]
    fn a_mode_given_after_an_exempting_one_takes_it_back() {
        let shutdown = ProgramOptions {
            modes: ["-c", "-r", "--reboot", "-h", "-P", "--poweroff"]
                .map(str::to_owned)
                .to_vec(),
            ..ProgramOptions::default()
        };
        let shutdown = Some(&shutdown);
        assert!(given("-c", &words("-h now -c"), shutdown));
        assert!(given("-c", &words("-hc"), shutdown));
        assert!(!given("-c", &words("-c -h now"), shutdown));
        assert!(!given("-c", &words("-ch now"), shutdown));
        assert!(!given("-r", &words("-r --poweroff now"), shutdown));
        assert!(given("--reboot", &words("-P --reboot now"), shutdown));
        // Not a mode: `-k` only warns, whatever comes after it.
        assert!(given("-k", &words("-k -h now"), shutdown));
        // A word the shell fills in may be a mode, and so may a long option's prefix.
        assert!(!given("-c", &words("-c $X"), shutdown));
        assert!(!given("-c", &words("-c --pow now"), shutdown));
        assert!(!given("-c", &words("-c *"), shutdown));
    }
}
