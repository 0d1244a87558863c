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
//! - After `--` only operands exempt.

use super::super::user::wildcard;

/// Options that take no value in any program the packs name, read as flags without a table:
/// `aws s3 rm s3://b --recursive --dryrun` is a dry run. (`-d`, `-f`, `-a`, `-m` take a
/// value in some: `psql -d DB`, `tar -f FILE`, `pulumi -m MESSAGE`.)
const NO_VALUE: &[&str] = &[
    "-r",
    "-R",
    "--recursive",
    "-y",
    "--yes",
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "--force",
    "--all",
    "--cached",
    "--dry-run",
    "--dryrun",
    "-n",
    "--help",
    "-h",
    "--delete",
    "--purge",
    "--wait",
    "--now",
    "--no-wait",
    "--interactive",
    "-i",
];

/// Whether `exemption` is given in `args`; `values` lists the program's options that take a
/// value, `None` when the pack has no table for it.
pub(super) fn given(exemption: &str, args: &[String], values: Option<&[String]>) -> bool {
    let takes_value = |option: &str| match values {
        Some(values) => values.iter().any(|o| o == option),
        None => !NO_VALUE.contains(&option),
    };
    let mut operands_only = false;
    let mut may_be_value = false;
    for arg in args.iter().map(String::as_str) {
        let value_here = std::mem::take(&mut may_be_value);
        if operands_only || arg == "-" || !arg.starts_with('-') {
            if !value_here && !exemption.starts_with('-') && wildcard(exemption, arg) {
                return true;
            }
            continue;
        }
        if arg == "--" {
            operands_only = !value_here;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            may_be_value = value.is_none() && takes_value(&format!("--{name}"));
            if !value_here && exemption.strip_prefix("--") == Some(name) && !value.is_some_and(off)
            {
                return true;
            }
            continue;
        }
        // A cluster (`-avn`), or a word spelt with one dash (`-help`).
        if !value_here && arg == exemption && exemption.chars().count() > 2 {
            return true;
        }
        let cluster = &arg[1..];
        for (at, letter) in cluster.char_indices() {
            let rest = &cluster[at + letter.len_utf8()..];
            if let Some(value) = rest.strip_prefix('=') {
                // `-n=false`: the letter's value follows the `=`.
                if !value_here && is_letter(exemption, letter) && !off(value) {
                    return true;
                }
                break;
            }
            if !value_here && is_letter(exemption, letter) {
                return true;
            }
            // A letter that may take a value takes the rest of the cluster, or the next word;
            // without a table the word may be one option spelt with one dash, which takes the
            // next word (`terraform state rm -backup PATH`, Go's flags).
            if takes_value(&format!("-{letter}")) {
                may_be_value = rest.is_empty() || values.is_none();
                break;
            }
        }
    }
    false
}

/// Whether `exemption` is the short option `letter` (`-n`).
fn is_letter(exemption: &str, letter: char) -> bool {
    let mut chars = exemption.chars();
    chars.next() == Some('-') && chars.next() == Some(letter) && chars.next().is_none()
}

/// A value that turns a flag off.
fn off(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "none" | "false" | "0" | "no" | "off"
    )
}

#[cfg(test)]
mod tests {
    use super::given;

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
            // Turned off.
            ("-h", "delete cluster prod -h=false"),
            ("--dry-run", "delete ns prod --dry-run=none"),
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
        let rsync: Vec<String> = ["-e", "--exclude", "--log-file"]
            .map(str::to_owned)
            .to_vec();
        let rsync = Some(&rsync[..]);
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
}
