//! Programs that print a stored credential (`gh auth token`), and interpreter code that reads
//! the whole environment (`print(os.environ)`) or a variable whose name says it holds a
//! secret (`os.environ["GITHUB_TOKEN"]`): tables, so that a new one is a line.

use super::super::{CREDENTIAL_PRINT, ENV_DUMP, ENV_SECRET};
use super::env::secret_name;
use crate::shell::Command;

/// What else a [`CREDENTIAL_PRINTERS`] command needs before it prints the credential.
#[derive(Clone, Copy)]
enum Needs {
    /// Nothing: its subcommand prints it.
    Nothing,
    /// An argument that starts with one of these (`kubectl config view --raw`; without it
    /// the credentials are redacted).
    Option(&'static [&'static str]),
    /// An argument that holds this text (`docker inspect --format '{{.Config.Env}}'`).
    Holding(&'static str),
    /// A last operand that names a secret (`aws configure get aws_secret_access_key`, not
    /// `region`), by [`secret_name`] on its last `.` segment in upper case.
    SecretOperand,
}

/// A program, the subcommand words that make it print a credential (found in this order among
/// its first operands, so that global options and their values may come between:
/// `aws --profile prod configure get …`), what else it needs, the rule it answers under, and
/// what it prints.
type Printer = (
    &'static str,
    &'static [&'static str],
    Needs,
    &'static str,
    &'static str,
);

/// The programs that print a stored credential or a container's environment to their output,
/// which is the agent's transcript.
#[rustfmt::skip]
const CREDENTIAL_PRINTERS: &[Printer] = &[
    ("gh", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the GitHub token"),
    ("gh", &["auth", "status"], Needs::Option(&["--show-token", "-t"]), CREDENTIAL_PRINT, "the GitHub token"),
    ("glab", &["auth", "status"], Needs::Option(&["--show-token", "-t"]), CREDENTIAL_PRINT, "the GitLab token"),
    ("aws", &["configure", "get"], Needs::SecretOperand, CREDENTIAL_PRINT, "an AWS secret"),
    ("aws", &["configure", "export-credentials"], Needs::Nothing, CREDENTIAL_PRINT, "the AWS credentials"),
    ("aws", &["sts", "get-session-token"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("aws", &["ecr", "get-login-password"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("aws", &["secretsmanager", "get-secret-value"], Needs::Nothing, CREDENTIAL_PRINT, "a stored secret"),
    ("gcloud", &["auth", "print-access-token"], Needs::Nothing, CREDENTIAL_PRINT, "a Google access token"),
    ("gcloud", &["auth", "print-identity-token"], Needs::Nothing, CREDENTIAL_PRINT, "a Google identity token"),
    ("gcloud", &["secrets", "versions", "access"], Needs::Nothing, CREDENTIAL_PRINT, "a stored secret"),
    ("az", &["account", "get-access-token"], Needs::Nothing, CREDENTIAL_PRINT, "an Azure access token"),
    ("kubectl", &["config", "view"], Needs::Option(&["--raw"]), CREDENTIAL_PRINT, "the cluster credentials"),
    ("kubectl", &["get", "secret"], Needs::Option(&["-o", "--output"]), CREDENTIAL_PRINT, "a secret's data"),
    ("kubectl", &["get", "secrets"], Needs::Option(&["-o", "--output"]), CREDENTIAL_PRINT, "secrets' data"),
    ("oc", &["config", "view"], Needs::Option(&["--raw"]), CREDENTIAL_PRINT, "the cluster credentials"),
    ("oc", &["get", "secret"], Needs::Option(&["-o", "--output"]), CREDENTIAL_PRINT, "a secret's data"),
    ("oc", &["get", "secrets"], Needs::Option(&["-o", "--output"]), CREDENTIAL_PRINT, "secrets' data"),
    ("oc", &["whoami"], Needs::Option(&["-t", "--show-token"]), CREDENTIAL_PRINT, "the cluster token"),
    ("git", &["credential", "fill"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("security", &["find-generic-password"], Needs::Option(&["-w", "-g"]), CREDENTIAL_PRINT, "a keychain password"),
    ("security", &["find-internet-password"], Needs::Option(&["-w", "-g"]), CREDENTIAL_PRINT, "a keychain password"),
    ("secret-tool", &["lookup"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("keyring", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("op", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a 1Password secret"),
    ("vault", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a Vault secret"),
    ("vault", &["kv", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a Vault secret"),
    ("pass", &["show"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("heroku", &["auth:token"], Needs::Nothing, CREDENTIAL_PRINT, "the Heroku token"),
    ("fly", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the Fly.io token"),
    ("flyctl", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the Fly.io token"),
    ("docker", &["inspect"], Needs::Holding(".Config.Env"), ENV_DUMP, "a container's environment"),
    ("podman", &["inspect"], Needs::Holding(".Config.Env"), ENV_DUMP, "a container's environment"),
];

/// How many operands past its subcommand words' count a printer's words are looked for in:
/// room for the values of global options (`-n prod`, `--profile prod`).
const OPERAND_SLACK: usize = 3;

/// The reason to ask about `cmd` when it is one of the [`CREDENTIAL_PRINTERS`].
pub(super) fn credential_print(cmd: &Command, shown: impl Fn() -> String) -> Option<String> {
    let operands: Vec<&str> = (cmd.args.iter())
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (_, _, _, rule, what) =
        CREDENTIAL_PRINTERS
            .iter()
            .find(|(program, words, needs, ..)| {
                *program == cmd.program
                    && in_order(&operands, words)
                    && match needs {
                        Needs::Nothing => true,
                        Needs::Option(options) => (cmd.args.iter()).any(|a| {
                            options.iter().any(|o| {
                                a == o
                                    || a.strip_prefix(o).is_some_and(|rest| {
                                        // `--output=json`, and a short option's value or cluster
                                        // (`-ojson`, `-gw`), not a longer option (`--rawx`).
                                        rest.starts_with('=') || !o.starts_with("--")
                                    })
                            })
                        }),
                        Needs::Holding(text) => cmd.args.iter().any(|a| a.contains(text)),
                        Needs::SecretOperand => operands.last().is_some_and(|last| {
                            let name = last.rsplit('.').next().unwrap_or(last);
                            secret_name(&name.to_ascii_uppercase())
                        }),
                    }
            })?;
    Some(format!(
        "secrets-guard: rule {rule}: `{}` prints {what}",
        shown()
    ))
}

/// Whether `words` are among the first operands, in order: a subcommand word matches an
/// operand that is it or names one of its kind (`secret/db` for `secret`).
fn in_order(operands: &[&str], words: &[&str]) -> bool {
    let mut rest = operands.iter().take(words.len() + OPERAND_SLACK);
    words.iter().all(|word| {
        rest.any(|op| {
            *op == *word
                || op
                    .strip_prefix(word)
                    .is_some_and(|named| named.starts_with('/'))
        })
    })
}

/// How code names the whole environment, and what follows it when one variable is read
/// instead (`os.environ["HOME"]`, `process.env.HOME`): the variable is then judged by its
/// name.
struct Environment {
    /// The text that names it (`os.environ`), matched where no name character comes before.
    names: &'static str,
    /// Texts after it (blanks skipped) that read one variable, or only the names
    /// (`os.environ.keys()`), or write one.
    one: &'static [&'static str],
    /// Program names (a prefix: `ruby3.3`) whose code names it so; empty for any language,
    /// for names no other language or shell text uses.
    languages: &'static [&'static str],
}

/// Whole-environment objects of the languages the guard reads code of, as data.
const ENVIRONMENTS: &[Environment] = &[
    // Python.
    Environment {
        names: "os.environ",
        one: &[
            "[",
            ".get(",
            ".setdefault(",
            ".pop(",
            ".__getitem__(",
            ".__contains__(",
            ".keys(",
        ],
        languages: &[],
    },
    // JavaScript: Node, Bun.
    Environment {
        names: "process.env",
        one: &[".", "[", "?.["],
        languages: &[],
    },
    Environment {
        names: "Bun.env",
        one: &[".", "[", "?.["],
        languages: &[],
    },
    Environment {
        names: "Deno.env.toObject",
        one: &[],
        languages: &[],
    },
    // Perl: `%ENV` is the hash, `$ENV{X}` one value (not this text).
    Environment {
        names: "%ENV",
        one: &[],
        languages: &[],
    },
    // Ruby: `ENV` alone is the whole environment; `ENV["X"]` and `ENV.fetch` read one.
    Environment {
        names: "ENV",
        one: &[
            "[",
            ".fetch",
            ".key?",
            ".has_key?",
            ".include?",
            ".member?",
            ".keys",
            ".delete",
            ".store",
            "=",
        ],
        languages: &["ruby", "irb", "jruby", "truffleruby"],
    },
    // PHP.
    Environment {
        names: "$_ENV",
        one: &["["],
        languages: &[],
    },
    Environment {
        names: "$_SERVER",
        one: &["["],
        languages: &[],
    },
    Environment {
        names: "phpinfo(",
        one: &[],
        languages: &[],
    },
    // `getenv()` with no argument: PHP's and R's `Sys.getenv()` give every variable.
    Environment {
        names: "getenv(",
        one: &["\"", "'", "$", "[A-Za-z_]"],
        languages: &[],
    },
];

/// The reason to ask about interpreter `code` (an argument of an interpreter, a here-document
/// it reads, or what is piped into it) when it reads the whole environment, or one variable
/// whose name says it holds a secret (`os.environ["GITHUB_TOKEN"]`, `process.env.API_KEY`,
/// `os.getenv("AWS_SECRET_ACCESS_KEY")`, `$ENV{GITHUB_TOKEN}`).
pub(super) fn env_in_code(code: &str, program: &str, shown: impl Fn() -> String) -> Option<String> {
    for env in ENVIRONMENTS {
        if !env.languages.is_empty() && !env.languages.iter().any(|l| program.starts_with(l)) {
            continue;
        }
        for (at, _) in code.match_indices(env.names) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| {
                c.is_alphanumeric()
                    || c == '_'
                    || (env.names == "ENV" && matches!(c, '$' | '%' | '.' | '@'))
            }) {
                continue;
            }
            let after = &code[at + env.names.len()..];
            // A longer name (`process.envelope`, `ENVIRONMENT`).
            let name_ends = env.names.ends_with(|c: char| c.is_alphanumeric());
            if name_ends && after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = after.trim_start();
            let one = env.one.iter().any(|o| match *o {
                "[A-Za-z_]" => rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
                "=" => rest.starts_with('=') && !rest.starts_with("=="),
                o => rest.starts_with(o),
            });
            if !one {
                return Some(format!(
                    "secrets-guard: rule {ENV_DUMP}: `{}` reads the whole environment (`{}`), secrets included",
                    shown(),
                    env.names.trim_end_matches('(')
                ));
            }
        }
    }
    let name = named_variables(code).find(|n| secret_name(n))?;
    Some(format!(
        "secrets-guard: rule {ENV_SECRET}: `{}` reads the variable {name}, whose name says it holds a secret",
        shown()
    ))
}

/// The texts after which code names one environment variable, quoted or not:
/// `os.environ["X"]`, `os.getenv("X")`, `process.env.X`, `ENV["X"]`, `ENV.fetch("X")`,
/// `$ENV{X}`, `Sys.getenv("X")`, `getenv('X')`, `$_ENV['X']`.
const ONE_VARIABLE: &[&str] = &[
    "environ[",
    "environ.get(",
    "environ.pop(",
    "getenv(",
    "process.env.",
    "process.env[",
    "process.env?.[",
    "Bun.env.",
    "Bun.env[",
    "Deno.env.get(",
    "ENV[",
    "ENV.fetch(",
    "$ENV{",
    "$_ENV[",
    "$_SERVER[",
];

/// The names of the variables `code` reads one by one ([`ONE_VARIABLE`]).
fn named_variables(code: &str) -> impl Iterator<Item = &str> {
    ONE_VARIABLE.iter().flat_map(move |prefix| {
        code.match_indices(prefix).filter_map(move |(at, _)| {
            let rest = code[at + prefix.len()..].trim_start();
            let rest = rest.trim_start_matches(['"', '\'', '`', ':']);
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            Some(&rest[..end]).filter(|n| !n.is_empty())
        })
    })
}

/// The reason to ask about a word that expands a variable named by another (`${!v}`), as
/// `compgen -v | while read v; do echo "$v=${!v}"; done` prints every variable: which one
/// it prints is not known until it runs. `${!prefix*}`, `${!prefix@}` and `${!array[@]}`
/// give names and indices, not values.
pub(super) fn indirect(word: &str, shown: impl Fn() -> String) -> Option<String> {
    let found = word.match_indices("${!").any(|(at, _)| {
        let rest = &word[at + 3..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        end > 0 && !rest[end..].starts_with(['*', '@', '['])
    });
    found.then(|| {
        format!(
            "secrets-guard: rule {ENV_SECRET}: `{}` expands a variable whose name another one holds (`${{!…}}`), which may hold a secret",
            shown()
        )
    })
}
