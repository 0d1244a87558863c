//! Commands that print environment variables, and variable names that say they hold a
//! secret.

use super::super::{ENV_DUMP, ENV_SECRET};
use super::{TESTERS, shown};
use crate::shell::Command;
use crate::shown::one_line;

/// When a program prints environment variables ([`ENV_PRINTERS`]).
#[derive(Clone, Copy)]
enum Prints {
    /// Everything without an operand (`printenv`); with operands, the variables they name.
    AllOrNamed,
    /// Everything, unless it starts from an empty environment (`-i`): `env` is only left as
    /// the program when it has no command to run.
    AllUnlessCleared,
    /// Everything when it has no operand, only options (`export -p`, `declare -x`).
    AllWithoutOperands,
    /// Everything when it has no argument at all (`set`; `set -e` sets an option).
    AllWithoutArguments,
    /// Every process's environment with a BSD option cluster holding `e` (`ps eww`, `ps auxe`).
    BsdE,
}

/// The programs that print environment variables, and when.
const ENV_PRINTERS: &[(&str, Prints)] = &[
    ("printenv", Prints::AllOrNamed),
    ("env", Prints::AllUnlessCleared),
    ("export", Prints::AllWithoutOperands),
    ("declare", Prints::AllWithoutOperands),
    ("typeset", Prints::AllWithoutOperands),
    ("set", Prints::AllWithoutArguments),
    ("ps", Prints::BsdE),
];

/// Segments of a variable name (split on `_`, trailing digits dropped) that say it holds a
/// secret: `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWD`, `GH_PAT`.
const SECRET_SEGMENTS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "PRIVATE",
    "PAT",
    "PWD",
    "AUTHTOKEN",
    "DSN",
    "PGPASSWORD",
];

/// Names of one segment or ending in a pointer segment that hold a secret all the same
/// (`DATABASE_URL` holds the password, `MYSQL_PWD` is one).
const SECRET_NAMES: &[&str] = &["DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL"];

/// Names that look like secrets and are none: the working directories (`PWD`, `OLDPWD`), and
/// the prefixes frameworks put on variables they build into public client code
/// (`NEXT_PUBLIC_SUPABASE_ANON_KEY`).
const NOT_SECRET: &[&str] = &["PWD", "OLDPWD"];
const PUBLIC_PREFIXES: &[&str] = &[
    "NEXT_PUBLIC_",
    "VITE_",
    "REACT_APP_",
    "EXPO_PUBLIC_",
    "PUBLIC_",
    "GATSBY_",
];

/// Last segments that say the variable names or locates a secret rather than holding it:
/// `AWS_ACCESS_KEY_ID`, `SSH_KEY_PATH`, `TOKEN_FILE`.
const POINTER_SEGMENTS: &[&str] = &[
    "ID", "PATH", "FILE", "DIR", "NAME", "URL", "URI", "USER", "USERNAME", "HOST", "PORT", "TYPE",
];

/// The reason to ask about `cmd` when it prints the environment or a secret variable.
pub(super) fn env_print(cmd: &Command) -> Option<String> {
    // Written out only for a reason: most commands print nothing.
    let command = || shown(cmd);
    let prints = ENV_PRINTERS
        .iter()
        .find(|(program, _)| *program == cmd.program)
        .map(|&(_, prints)| prints);
    let is_option = |a: &&String| a.starts_with('-') || a.starts_with('+');
    let operands = || cmd.args.iter().filter(|a| !is_option(a));
    let all = match prints {
        Some(Prints::AllOrNamed) => {
            if let Some(name) = operands().find(|n| secret_name(n)) {
                return Some(format!(
                    "secrets-guard: rule {ENV_SECRET}: `{}` prints {}, whose name says \
                     it holds a secret",
                    command(),
                    one_line(name)
                ));
            }
            operands().next().is_none()
        }
        Some(Prints::AllUnlessCleared) => !cmd.args.iter().any(|a| env_clears(a)),
        Some(Prints::AllWithoutOperands) => operands().next().is_none(),
        Some(Prints::AllWithoutArguments) => cmd.args.is_empty(),
        Some(Prints::BsdE) => cmd
            .args
            .first()
            .is_some_and(|a| a.contains('e') && a.bytes().all(|b| b.is_ascii_alphabetic())),
        None => false,
    };
    if all {
        return Some(format!(
            "secrets-guard: rule {ENV_DUMP}: `{}` prints the environment, secrets included",
            command()
        ));
    }
    if TESTERS.contains(&cmd.program.as_str()) {
        return None;
    }
    let words = std::iter::once(&cmd.program)
        .chain(&cmd.args)
        .chain(cmd.redirects.iter().map(|r| &r.target));
    let name = words.flat_map(|w| expanded(w)).find(|n| secret_name(n))?;
    Some(format!(
        "secrets-guard: rule {ENV_SECRET}: `{}` expands ${name}, whose name says it holds \
         a secret",
        command()
    ))
}

/// True when `arg` of an `env` with nothing to run empties the environment (`-i`, `-0i`,
/// `--ignore-environment`, `-`), so it prints only what it was given.
pub(super) fn env_clears(arg: &str) -> bool {
    if arg == "-" || arg == "--ignore-environment" {
        return true;
    }
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return false;
    };
    // The letters after `-u`, `-C` or `-S` are that option's value (`-uPIN`), not flags.
    cluster
        .chars()
        .take_while(|c| !matches!(c, 'u' | 'C' | 'S'))
        .any(|c| c == 'i')
}

/// The names of the variables `word` expands (`$NAME`, `${NAME}`, `${NAME:-x}`), leaving out
/// `${#NAME}` (a length) and `${NAME:+x}` (whether it is set), which print no value.
pub(super) fn expanded(word: &str) -> Vec<&str> {
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = word.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let braced = bytes.get(i + 1) == Some(&b'{');
        let mut start = i + 1 + usize::from(braced);
        if braced && bytes.get(start) == Some(&b'!') {
            start += 1;
        }
        let end = start + bytes[start..].iter().take_while(|&&b| is_name(b)).count();
        let name = &word[start..end];
        // `${#NAME}` leaves the name empty: `#` is not a name character.
        let tests_only = braced && (word[end..].starts_with(":+") || word[end..].starts_with('+'));
        if !name.is_empty() && !name.as_bytes()[0].is_ascii_digit() && !tests_only {
            out.push(name);
        }
        i = end.max(i + 1);
    }
    out
}

/// True when the variable `name` says it holds a secret: an upper-case name (the environment's
/// convention; lower-case ones are a script's own) with a [`SECRET_SEGMENTS`] segment, not
/// ending in a [`POINTER_SEGMENTS`] one.
pub(super) fn secret_name(name: &str) -> bool {
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        return false;
    }
    if SECRET_NAMES.contains(&name) {
        return true;
    }
    if NOT_SECRET.contains(&name) || PUBLIC_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    let segments: Vec<&str> = name
        .split('_')
        .map(|s| s.trim_end_matches(|c: char| c.is_ascii_digit()))
        .filter(|s| !s.is_empty())
        .collect();
    let secret = segments.iter().any(|s| SECRET_SEGMENTS.contains(s));
    let pointer = segments
        .last()
        .is_some_and(|s| POINTER_SEGMENTS.contains(s));
    secret && !pointer
}
