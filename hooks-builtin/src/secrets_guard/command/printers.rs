//! Programs that print a stored credential (`gh auth token`, `gpg -d`): a table, so that a
//! new one is a line. Interpreter code that reads the environment is [`super::code_env`].

use super::super::{CREDENTIAL_PRINT, ENV_DUMP};
use super::env::secret_name;
use crate::shell::Command;
use std::collections::HashMap;
use std::sync::LazyLock;

/// What else a [`CREDENTIAL_PRINTERS`] command needs before it prints the credential.
#[derive(Clone, Copy)]
enum Needs {
    /// Nothing: its subcommand prints it.
    Nothing,
    /// An argument that starts with one of these (`kubectl config view --raw`; without it
    /// the credentials are redacted).
    Option(&'static [&'static str]),
    /// An output option (`-o`, `--output`, attached or not) whose format starts with one of
    /// these (`-o yaml`, not `-o name`), or `--template`.
    Output(&'static [&'static str]),
    /// `docker inspect` without a format (its JSON holds `Config.Env`) or with one that
    /// prints the environment or the whole configuration.
    Inspect,
    /// An operand after the words that names a secret (`aws configure get
    /// aws_secret_access_key`, not `region`), by [`secret_name`] on its last `.` segment in
    /// upper case, or holds one of these (`npm config get //registry/:_authToken`).
    SecretOperand(&'static [&'static str]),
    /// A first operand that is none of these subcommands (`pass github` shows it).
    NotSubcommand(&'static [&'static str]),
    /// No operand (`doppler secrets` prints them all), or a first operand that is none of
    /// these subcommands.
    BareOrNotSubcommand(&'static [&'static str]),
    /// An argument that is one of these, whole (`openssl enc -d`, not `-des3`).
    Exact(&'static [&'static str]),
    /// An option before the first operand (`php -i`, not `php script.php -i`).
    LeadingOption(&'static [&'static str]),
    /// `--raw` with a path to secrets (`kubectl get --raw /api/v1/namespaces/x/secrets`).
    RawSecrets,
}

/// A program, the subcommand words that make it print a credential (its first operands, in
/// order; the values of options may come before and between them: `aws --profile prod
/// configure get …`), what else it needs, the rule it answers under, and what it prints.
type Printer = (
    &'static str,
    &'static [&'static str],
    Needs,
    &'static str,
    &'static str,
);

/// Output formats of `kubectl get` that print a secret's data.
const KUBE_DATA: Needs = Needs::Output(&[
    "json",
    "yaml",
    "jsonpath",
    "go-template",
    "template",
    "custom-columns",
]);

/// The programs that print a stored credential or an environment to their output, which is
/// the agent's transcript.
#[rustfmt::skip]
const CREDENTIAL_PRINTERS: &[Printer] = &[
    ("gh", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the GitHub token"),
    ("gh", &["auth", "status"], Needs::Option(&["--show-token", "-t"]), CREDENTIAL_PRINT, "the GitHub token"),
    ("gh", &["auth", "git-credential"], Needs::Nothing, CREDENTIAL_PRINT, "the GitHub token"),
    ("gh", &["config", "get"], Needs::SecretOperand(&["token"]), CREDENTIAL_PRINT, "the GitHub token"),
    ("glab", &["auth", "status"], Needs::Option(&["--show-token", "-t"]), CREDENTIAL_PRINT, "the GitLab token"),
    ("glab", &["config", "get"], Needs::SecretOperand(&["token"]), CREDENTIAL_PRINT, "the GitLab token"),
    ("aws", &["configure", "get"], Needs::SecretOperand(&[]), CREDENTIAL_PRINT, "an AWS secret"),
    ("aws", &["configure", "export-credentials"], Needs::Nothing, CREDENTIAL_PRINT, "the AWS credentials"),
    ("aws", &["sts", "get-session-token"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("aws", &["sts", "assume-role"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("aws", &["sts", "assume-role-with-web-identity"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("aws", &["sts", "get-federation-token"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("aws", &["ecr", "get-login-password"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("aws", &["ecr", "get-authorization-token"], Needs::Nothing, CREDENTIAL_PRINT, "a registry token"),
    ("aws", &["ecr-public", "get-login-password"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("aws", &["codeartifact", "get-authorization-token"], Needs::Nothing, CREDENTIAL_PRINT, "a registry token"),
    ("aws", &["ssm", "get-parameter"], Needs::Option(&["--with-decryption"]), CREDENTIAL_PRINT, "a decrypted parameter"),
    ("aws", &["ssm", "get-parameters"], Needs::Option(&["--with-decryption"]), CREDENTIAL_PRINT, "decrypted parameters"),
    ("aws", &["ssm", "get-parameters-by-path"], Needs::Option(&["--with-decryption"]), CREDENTIAL_PRINT, "decrypted parameters"),
    ("aws", &["iam", "create-access-key"], Needs::Nothing, CREDENTIAL_PRINT, "a new secret access key"),
    ("aws", &["eks", "get-token"], Needs::Nothing, CREDENTIAL_PRINT, "a cluster token"),
    ("aws", &["rds", "generate-db-auth-token"], Needs::Nothing, CREDENTIAL_PRINT, "a database token"),
    ("aws", &["secretsmanager", "get-secret-value"], Needs::Nothing, CREDENTIAL_PRINT, "a stored secret"),
    ("aws", &["secretsmanager", "batch-get-secret-value"], Needs::Nothing, CREDENTIAL_PRINT, "stored secrets"),
    ("gcloud", &["auth", "print-access-token"], Needs::Nothing, CREDENTIAL_PRINT, "a Google access token"),
    ("gcloud", &["auth", "print-identity-token"], Needs::Nothing, CREDENTIAL_PRINT, "a Google identity token"),
    ("gcloud", &["auth", "application-default", "print-access-token"], Needs::Nothing, CREDENTIAL_PRINT, "a Google access token"),
    ("gcloud", &["config", "config-helper"], Needs::Nothing, CREDENTIAL_PRINT, "a Google access token"),
    ("gcloud", &["sql", "generate-login-token"], Needs::Nothing, CREDENTIAL_PRINT, "a database token"),
    ("gcloud", &["secrets", "versions", "access"], Needs::Nothing, CREDENTIAL_PRINT, "a stored secret"),
    ("az", &["account", "get-access-token"], Needs::Nothing, CREDENTIAL_PRINT, "an Azure access token"),
    ("az", &["keyvault", "secret", "show"], Needs::Nothing, CREDENTIAL_PRINT, "a Key Vault secret"),
    ("az", &["storage", "account", "keys", "list"], Needs::Nothing, CREDENTIAL_PRINT, "storage account keys"),
    ("az", &["acr", "login"], Needs::Option(&["--expose-token"]), CREDENTIAL_PRINT, "a registry token"),
    ("az", &["acr", "credential", "show"], Needs::Nothing, CREDENTIAL_PRINT, "registry passwords"),
    ("az", &["ad", "sp", "create-for-rbac"], Needs::Nothing, CREDENTIAL_PRINT, "a new service principal's password"),
    ("doctl", &["kubernetes", "cluster", "kubeconfig", "show"], Needs::Nothing, CREDENTIAL_PRINT, "the cluster credentials"),
    ("kubectl", &["config", "view"], Needs::Option(&["--raw"]), CREDENTIAL_PRINT, "the cluster credentials"),
    ("kubectl", &["get", "secret"], KUBE_DATA, CREDENTIAL_PRINT, "a secret's data"),
    ("kubectl", &["get", "secrets"], KUBE_DATA, CREDENTIAL_PRINT, "secrets' data"),
    ("kubectl", &["create", "token"], Needs::Nothing, CREDENTIAL_PRINT, "a service account token"),
    ("oc", &["config", "view"], Needs::Option(&["--raw"]), CREDENTIAL_PRINT, "the cluster credentials"),
    ("oc", &["get", "secret"], KUBE_DATA, CREDENTIAL_PRINT, "a secret's data"),
    ("oc", &["get", "secrets"], KUBE_DATA, CREDENTIAL_PRINT, "secrets' data"),
    ("oc", &["whoami"], Needs::Option(&["-t", "--show-token"]), CREDENTIAL_PRINT, "the cluster token"),
    ("oc", &["create", "token"], Needs::Nothing, CREDENTIAL_PRINT, "a service account token"),
    ("git", &["credential", "fill"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git", &["credential-store", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git", &["credential-cache", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git", &["credential-osxkeychain", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git", &["credential-libsecret", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git-credential-store", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git-credential-cache", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git-credential-osxkeychain", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("git-credential-libsecret", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("docker-credential-desktop", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("docker-credential-pass", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("docker-credential-osxkeychain", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("docker-credential-secretservice", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("docker-credential-ecr-login", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("docker-credential-gcloud", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a registry password"),
    ("security", &["find-generic-password"], Needs::Option(&["-w", "-g"]), CREDENTIAL_PRINT, "a keychain password"),
    ("security", &["find-internet-password"], Needs::Option(&["-w", "-g"]), CREDENTIAL_PRINT, "a keychain password"),
    ("security", &["dump-keychain"], Needs::Option(&["-d"]), CREDENTIAL_PRINT, "the keychain's passwords"),
    ("secret-tool", &["lookup"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("keyring", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("op", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a 1Password secret"),
    ("op", &["item", "get"], Needs::Option(&["--reveal", "--fields"]), CREDENTIAL_PRINT, "a 1Password secret"),
    ("bw", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a Bitwarden secret"),
    ("lpass", &["show"], Needs::Nothing, CREDENTIAL_PRINT, "a LastPass secret"),
    ("gopass", &["show"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("gopass", &["cat"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("vault", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a Vault secret"),
    ("vault", &["kv", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a Vault secret"),
    ("vault", &["print", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the Vault token"),
    ("pass", &["show"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("pass", &[], Needs::NotSubcommand(&["init", "ls", "list", "find", "search", "grep", "insert", "add", "edit", "generate", "rm", "remove", "delete", "mv", "rename", "cp", "copy", "git", "help", "version", "otp"]), CREDENTIAL_PRINT, "a stored password"),
    ("npm", &["config", "get"], Needs::SecretOperand(&["_auth", "token", "password"]), CREDENTIAL_PRINT, "a registry token"),
    ("yarn", &["config", "get"], Needs::SecretOperand(&["_auth", "token", "password"]), CREDENTIAL_PRINT, "a registry token"),
    ("terraform", &["output"], Needs::Option(&["-raw", "-json"]), CREDENTIAL_PRINT, "outputs, sensitive ones included"),
    ("terraform", &["show"], Needs::Option(&["-json"]), CREDENTIAL_PRINT, "the state, sensitive values included"),
    ("terraform", &["state", "pull"], Needs::Nothing, CREDENTIAL_PRINT, "the state, sensitive values included"),
    ("tofu", &["output"], Needs::Option(&["-raw", "-json"]), CREDENTIAL_PRINT, "outputs, sensitive ones included"),
    ("tofu", &["state", "pull"], Needs::Nothing, CREDENTIAL_PRINT, "the state, sensitive values included"),
    ("pulumi", &["stack", "output"], Needs::Option(&["--show-secrets"]), CREDENTIAL_PRINT, "stack outputs, secrets included"),
    ("heroku", &["auth:token"], Needs::Nothing, CREDENTIAL_PRINT, "the Heroku token"),
    ("heroku", &["config"], Needs::Nothing, CREDENTIAL_PRINT, "the app's configuration variables"),
    ("heroku", &["config:get"], Needs::Nothing, CREDENTIAL_PRINT, "an app's configuration variable"),
    ("fly", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the Fly.io token"),
    ("flyctl", &["auth", "token"], Needs::Nothing, CREDENTIAL_PRINT, "the Fly.io token"),
    ("docker", &["inspect"], Needs::Inspect, ENV_DUMP, "a container's environment"),
    ("docker", &["container", "inspect"], Needs::Inspect, ENV_DUMP, "a container's environment"),
    ("podman", &["inspect"], Needs::Inspect, ENV_DUMP, "a container's environment"),
    ("podman", &["container", "inspect"], Needs::Inspect, ENV_DUMP, "a container's environment"),
    ("docker", &["compose", "config"], Needs::Nothing, ENV_DUMP, "the compose file with its environment filled in"),
    ("docker-compose", &["config"], Needs::Nothing, ENV_DUMP, "the compose file with its environment filled in"),
    ("php", &[], Needs::LeadingOption(&["-i", "--info"]), ENV_DUMP, "phpinfo(), the environment included"),
    ("kubectl", &["get"], Needs::RawSecrets, CREDENTIAL_PRINT, "secrets' data"),
    ("oc", &["get"], Needs::RawSecrets, CREDENTIAL_PRINT, "secrets' data"),
    ("docker", &["compose", "convert"], Needs::Nothing, ENV_DUMP, "the compose file with its environment filled in"),
    ("tofu", &["show"], Needs::Option(&["-json"]), CREDENTIAL_PRINT, "the state, sensitive values included"),
    ("pnpm", &["config", "get"], Needs::SecretOperand(&["_auth", "token", "password"]), CREDENTIAL_PRINT, "a registry token"),
    ("git", &["credential-manager", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a stored password"),
    ("python3", &["keyring", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("python", &["keyring", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a keyring secret"),
    ("pulumi", &["config"], Needs::Option(&["--show-secrets"]), CREDENTIAL_PRINT, "configuration secrets"),
    ("pulumi", &["stack", "export"], Needs::Option(&["--show-secrets"]), CREDENTIAL_PRINT, "the stack's secrets"),
    ("aws", &["sso", "get-role-credentials"], Needs::Nothing, CREDENTIAL_PRINT, "AWS session credentials"),
    ("az", &["storage", "account", "show-connection-string"], Needs::Nothing, CREDENTIAL_PRINT, "a storage account key"),
    ("systemctl", &["show-environment"], Needs::Nothing, ENV_DUMP, "the service manager's environment"),
    ("tmux", &["show-environment"], Needs::Nothing, ENV_DUMP, "the session's environment"),
    ("gpg", &[], Needs::Option(&["--export-secret-keys", "--export-secret-key", "--export-secret-subkeys", "--export-secret-subkey"]), CREDENTIAL_PRINT, "private keys"),
    ("gpg2", &[], Needs::Option(&["--export-secret-keys", "--export-secret-key", "--export-secret-subkeys", "--export-secret-subkey"]), CREDENTIAL_PRINT, "private keys"),
    ("rclone", &["config", "show"], Needs::Nothing, CREDENTIAL_PRINT, "the remotes' keys and tokens"),
    ("rclone", &["config", "dump"], Needs::Nothing, CREDENTIAL_PRINT, "the remotes' keys and tokens"),
    ("ansible-vault", &["decrypt"], Needs::Option(&["--output"]), CREDENTIAL_PRINT, "a vault's decrypted content, to a file or the output"),
    ("sops", &[], Needs::Option(&["-d", "--decrypt"]), CREDENTIAL_PRINT, "decrypted secrets"),
    ("sops", &["decrypt"], Needs::Nothing, CREDENTIAL_PRINT, "decrypted secrets"),
    ("ansible-vault", &["view"], Needs::Nothing, CREDENTIAL_PRINT, "a vault's decrypted content"),
    ("doppler", &["secrets", "download"], Needs::Option(&["--no-file"]), CREDENTIAL_PRINT, "the project's secrets"),
    ("doppler", &["secrets", "get"], Needs::Nothing, CREDENTIAL_PRINT, "a secret"),
    ("railway", &["variables"], Needs::Nothing, CREDENTIAL_PRINT, "the service's variables"),
    ("keyctl", &["print"], Needs::Nothing, CREDENTIAL_PRINT, "a kernel keyring secret"),
    ("keyctl", &["pipe"], Needs::Nothing, CREDENTIAL_PRINT, "a kernel keyring secret"),
    ("keyctl", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a kernel keyring secret"),
    ("gpg", &[], Needs::Option(&["-d", "--decrypt", "--decr", "--decry", "--decryp"]), CREDENTIAL_PRINT, "decrypted content"),
    ("gpg2", &[], Needs::Option(&["-d", "--decrypt", "--decr", "--decry", "--decryp"]), CREDENTIAL_PRINT, "decrypted content"),
    ("doppler", &["secrets"], Needs::BareOrNotSubcommand(&["set", "delete", "upload", "names", "substitute", "download", "get"]), CREDENTIAL_PRINT, "the project's secrets"),
    ("infisical", &["export"], Needs::Nothing, CREDENTIAL_PRINT, "the project's secrets"),
    ("infisical", &["secrets"], Needs::BareOrNotSubcommand(&["set", "delete", "folders", "generate-example-env"]), CREDENTIAL_PRINT, "the project's secrets"),
    ("aws-vault", &["export"], Needs::Nothing, CREDENTIAL_PRINT, "AWS credentials"),
    ("chamber", &["export"], Needs::Nothing, CREDENTIAL_PRINT, "a service's secrets"),
    ("chamber", &["read"], Needs::Nothing, CREDENTIAL_PRINT, "a secret"),
    ("teller", &["export"], Needs::Nothing, CREDENTIAL_PRINT, "the secrets"),
    ("teller", &["show"], Needs::Nothing, CREDENTIAL_PRINT, "the secrets"),
    ("dotenvx", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "decrypted variables"),
    ("dotenv", &["list"], Needs::Nothing, CREDENTIAL_PRINT, "the variables of its file"),
    ("dotenv", &["get"], Needs::Nothing, CREDENTIAL_PRINT, "a variable of its file"),
    ("dotenvx", &["decrypt"], Needs::Option(&["--stdout"]), CREDENTIAL_PRINT, "decrypted variables"),
    ("op", &["inject"], Needs::Nothing, CREDENTIAL_PRINT, "a template with its secrets filled in, to the output unless -o names a file"),
    ("age", &[], Needs::Option(&["-d", "--decrypt"]), CREDENTIAL_PRINT, "decrypted content"),
    ("openssl", &["enc"], Needs::Exact(&["-d"]), CREDENTIAL_PRINT, "decrypted content"),
    ("rage", &[], Needs::Option(&["-d", "--decrypt"]), CREDENTIAL_PRINT, "decrypted content"),
];

/// The [`CREDENTIAL_PRINTERS`] rows of `program`, in the table's order (the first that
/// matches decides). Every command of a line asks, so the ~140 rows are grouped by program
/// once rather than walked.
fn printers_of(program: &str) -> &'static [&'static Printer] {
    static BY_PROGRAM: LazyLock<HashMap<&'static str, Vec<&'static Printer>>> =
        LazyLock::new(|| {
            let mut by_program: HashMap<&'static str, Vec<&'static Printer>> = HashMap::new();
            for row in CREDENTIAL_PRINTERS {
                by_program.entry(row.0).or_default().push(row);
            }
            by_program
        });
    BY_PROGRAM.get(program).map_or(&[], Vec::as_slice)
}

/// The reason to ask about `cmd` when it is one of the [`CREDENTIAL_PRINTERS`].
pub(super) fn credential_print(cmd: &Command, shown: impl Fn() -> String) -> Option<String> {
    // Help prints no credential (`gh auth token --help`, `vault read -help`).
    if cmd.args.iter().any(|a| a == "--help" || a == "-help") {
        return None;
    }
    // An output option exempts only when it names a file (`-o -`, `-out /dev/stdout` print).
    let stdout = |v: Option<&String>| {
        v.is_some_and(|v| {
            matches!(
                v.as_str(),
                "-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1"
            )
        })
    };
    if UNLESS.iter().any(|(program, options)| {
        *program == cmd.program
            && (cmd.args.iter().enumerate())
                .any(|(k, a)| options.contains(&a.as_str()) && !stdout(cmd.args.get(k + 1)))
    }) {
        return None;
    }
    let (_, _, _, rule, what) =
        printers_of(&cmd.program)
            .iter()
            .find(|(_, words, needs, ..)| {
                subcommand(&cmd.args, words).is_some_and(|after| needs_met(cmd, *needs, after))
            })?;
    Some(format!(
        "secrets-guard: rule {rule}: `{}` prints {what}",
        shown()
    ))
}

/// Options after which a [`CREDENTIAL_PRINTERS`] program prints no credential: `pass -c`
/// copies it to the clipboard, `docker compose config --services` lists names.
#[rustfmt::skip]
const UNLESS: &[(&str, &[&str])] = &[
    ("pass", &["-c", "--clip", "-q", "--qrcode"]),
    // Decrypted into a file, not the output.
    ("gpg", &["-o", "--output"]),
    ("gpg2", &["-o", "--output"]),
    ("age", &["-o", "--output"]),
    ("rage", &["-o", "--output"]),
    ("openssl", &["-out"]),
    ("gopass", &["-c", "--clip", "-q", "--qr"]),
    ("docker", &["--services", "--volumes", "--images", "--profiles", "--networks", "--hash", "-q", "--quiet"]),
    ("docker-compose", &["--services", "--volumes", "--images", "--profiles", "--networks", "--hash", "-q", "--quiet"]),
];

/// Registry clients whose `login` reads a password on standard input with `--password-stdin`
/// (`aws ecr get-login-password | docker login --password-stdin`).
const LOGINS: &[&str] = &[
    "docker", "podman", "nerdctl", "finch", "buildah", "skopeo", "helm", "oras", "crane",
];

/// Whether `cmd` is a registry login that reads its password on standard input: a credential
/// piped into it is not printed. Any other program given `--password-stdin` is not one (`sh -c
/// cat --password-stdin` prints what it reads).
pub(super) fn reads_password(cmd: &Command) -> bool {
    LOGINS.contains(&cmd.program.as_str())
        && cmd.args.iter().any(|a| a == "login")
        && cmd.args.iter().any(|a| a == "--password-stdin")
}

/// Whether `cmd`, whose subcommand words end before `args[after]`, has what `needs` asks.
fn needs_met(cmd: &Command, needs: Needs, after: usize) -> bool {
    let args = &cmd.args;
    let operands = || args[after..].iter().filter(|a| !a.starts_with('-'));
    match needs {
        Needs::Nothing => true,
        Needs::Option(options) => args.iter().any(|a| {
            options.iter().any(|o| {
                a == o
                    || a.strip_prefix(o).is_some_and(|rest| {
                        // `--output=json`, and a short option's value or cluster (`-gw`), not
                        // a longer option (`--rawx`).
                        rest.starts_with('=') || !o.starts_with("--")
                    })
                    // A short option anywhere in a cluster of letters (`gpg -qd`).
                    || (o.len() == 2 && !o.starts_with("--"))
                        && a.strip_prefix('-').is_some_and(|cluster| {
                            !cluster.starts_with('-')
                                && cluster.chars().all(|c| c.is_ascii_alphabetic())
                                && cluster.contains(&o[1..])
                        })
            })
        }),
        Needs::Output(formats) => args.iter().enumerate().any(|(k, a)| {
            let value = match a.as_str() {
                "-o" | "--output" | "--template" => args.get(k + 1).map(String::as_str),
                _ => (a.strip_prefix("--output="))
                    .or_else(|| a.strip_prefix("--template="))
                    .or_else(|| a.strip_prefix("-o")),
            };
            let template = a.starts_with("--template");
            value.is_some_and(|v| {
                let v = v.trim_start_matches('=');
                // A template prints what it names: the data (`{.data.password}`,
                // `{{.data}}`) or the whole object (`{.}`, `{@}`), not `.metadata.name`.
                let named = v.replace("metadata", "");
                let data = ["data", "Data", "{.}", "{@}", "{{.}}", "{{json"]
                    .iter()
                    .any(|d| named.contains(d));
                let kind = v.split(['=', ' ']).next().unwrap_or(v);
                match kind {
                    "json" | "yaml" => true,
                    // A template read from a file is not seen: closed.
                    k if k.ends_with("-file") => true,
                    k if formats.contains(&k) => data,
                    _ => template && data,
                }
            })
        }),
        Needs::Inspect => {
            let format = args.iter().enumerate().find_map(|(k, a)| match a.as_str() {
                "-f" | "--format" => args.get(k + 1).map(String::as_str),
                _ => a
                    .strip_prefix("--format=")
                    .or_else(|| a.strip_prefix("-f"))
                    .filter(|v| !v.is_empty()),
            });
            // Without a format the JSON holds `Config.Env`; a format prints it when it names
            // it, the whole object (`{{.}}`, `{{json .}}`, `{{json $}}`) or the whole
            // configuration (`{{.Config}}`, `{{.Config | json}}`).
            format.is_none_or(|f| {
                let f = f.replace(' ', "");
                ["Env", "{{.}}", "{{json.}}", "$}}", ".Config}}", ".Config|"]
                    .iter()
                    .any(|p| f.contains(p))
            })
        }
        Needs::SecretOperand(holding) => operands().any(|op| {
            let name = op.rsplit(['.', '/', ':']).next().unwrap_or(op);
            let lower = op.to_ascii_lowercase();
            secret_name(&name.to_ascii_uppercase())
                || holding
                    .iter()
                    .any(|h| lower.contains(&h.to_ascii_lowercase()))
        }),
        Needs::Exact(options) => args.iter().any(|a| options.contains(&a.as_str())),
        Needs::LeadingOption(options) => args
            .iter()
            .take_while(|a| a.starts_with('-'))
            .any(|a| options.contains(&a.as_str())),
        Needs::RawSecrets => args.iter().enumerate().any(|(k, a)| {
            let path = match a.as_str() {
                "--raw" => args.get(k + 1).map(String::as_str),
                _ => a.strip_prefix("--raw="),
            };
            path.is_some_and(|p| p.contains("/secrets"))
        }),
        Needs::NotSubcommand(subcommands) => operands()
            .next()
            .is_some_and(|first| !subcommands.contains(&first.as_str())),
        Needs::BareOrNotSubcommand(subcommands) => operands()
            .next()
            .is_none_or(|first| !subcommands.contains(&first.as_str())),
    }
}

/// Options of the printers' programs that take a value (`-n prod`, `--profile prod`).
const VALUE_OPTIONS: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--cluster",
    "--user",
    "--kubeconfig",
    "-l",
    "--selector",
    "--profile",
    "--region",
    "--project",
    "--account",
    "--configuration",
    "-R",
    "--repo",
    "--hostname",
    "-o",
    "--output",
    "--format",
    "--endpoint-url",
    "-c",
    "-C",
    "-a",
    "--app",
];

/// Where `words` are `args`' subcommand: the index past the last one, when its operands start
/// with them in order, with only the values of options before and between them (an operand
/// right after an option without `=`: `-n prod`, `--profile prod`). A word matches an
/// operand that is it or names one of its kind, in any case (`Secret`, `secret/db`,
/// `secrets.v1`, `cm,secret`).
fn subcommand(args: &[String], words: &[&str]) -> Option<usize> {
    let mut words = words.iter().peekable();
    let mut after_option = false;
    for (k, arg) in args.iter().enumerate() {
        let Some(word) = words.peek() else {
            return Some(k);
        };
        if arg.starts_with('-') {
            after_option = !arg.contains('=');
            continue;
        }
        // The value of an option known to take one is never a subcommand word (`kubectl get
        // -n secrets pods`); after another option it may be either.
        let value = k > 0 && VALUE_OPTIONS.contains(&args[k - 1].as_str());
        if value {
            after_option = false;
            continue;
        }
        let names = |kind: &str| {
            kind.split(',').any(|part| {
                part.split(['/', '.'])
                    .next()
                    .is_some_and(|p| p.eq_ignore_ascii_case(word))
            })
        };
        if arg == *word || names(arg) {
            words.next();
        } else if !after_option {
            return None;
        }
        after_option = false;
    }
    words.peek().is_none().then_some(args.len())
}
