//! Command lines that cloud and machine tools run on another machine or in a container, as
//! data: judged there as `ssh host cmd`'s are, in its home directory.
//!
//! - An option's value: `gcloud compute ssh VM --command CMD`, `fly ssh console -C CMD`,
//!   `doctl compute ssh DROPLET --ssh-command CMD`, `mussh -h HOST -c CMD`, `az
//!   vm run-command invoke --scripts CMD`, `az container exec --exec-command CMD`, `aws ecs
//!   execute-command --command CMD`.
//! - ssh's arguments after `--`: `gcloud compute ssh VM -- -t CMD`, `az ssh vm … -- CMD`, `gh
//!   codespace ssh -- CMD`, `gitpod workspace ssh ID -- CMD`, `render ssh SERVICE -- CMD`.
//! - The words after the subcommand's options, or after `--`: `minikube ssh CMD`, `podman
//!   machine ssh [NAME] CMD` (the name is optional: both readings are judged), `pyinfra
//!   INVENTORY exec -- CMD`, `fab -H HOST -- CMD`.
//! - An operand after options that may stand anywhere: `knife ssh QUERY -x root CMD`, `knife
//!   winrm QUERY CMD`, `hcloud server ssh SERVER CMD`.
//! - The words after Go-style flags and an operand, run as they are (no shell): `nomad alloc
//!   exec [-task T] ALLOC cmd args…`.
//! - `aws ssm send-command --parameters commands=[…]`: each command of the document, of every
//!   `--parameters` given.
//! - ansible's modules ([`ansible_scripts`]).

use super::wrappers::SSH_SHORT;
use super::{option_values, options};

/// How a remote tool takes its command.
enum Given {
    /// The value of one of these options.
    Option(&'static [&'static str]),
    /// After `--`, ssh's options and then the command.
    SshArgs,
    /// The `commands` of a parameters option (`aws ssm send-command --parameters
    /// 'commands=["rm -rf /"]'`, or its JSON form).
    Parameters(&'static [&'static str]),
    /// The words after the subcommand and its options; with `name`, the first may be a
    /// machine's name.
    Words {
        short: &'static str,
        long: &'static [&'static str],
        name: bool,
    },
    /// The operands from this place on among the words after the subcommand, with its
    /// options (those listed take a value; long ones with their dashes) anywhere before `--`
    /// (`knife ssh QUERY -x root 'cmd'`).
    Operand {
        short: &'static str,
        long: &'static [&'static str],
        at: usize,
    },
    /// After Go's flags (one dash or two; those listed, without dashes, take a value as
    /// `-name value` or `-name=value`) and `operands` more words, the words of a command that
    /// runs without a shell: quoted into a command line, so each stays one word.
    Argv {
        values: &'static [&'static str],
        operands: usize,
    },
}

/// A tool, the words that must stand among its arguments (in order) for it to run a remote
/// command, and how it takes it.
struct Remote {
    program: &'static str,
    path: &'static [&'static str],
    given: Given,
}

const REMOTES: &[Remote] = &[
    Remote {
        program: "gcloud",
        path: &["ssh"],
        given: Given::Option(&["--command"]),
    },
    Remote {
        program: "gcloud",
        path: &["ssh"],
        given: Given::SshArgs,
    },
    Remote {
        program: "az",
        path: &["ssh"],
        given: Given::SshArgs,
    },
    Remote {
        program: "az",
        path: &["run-command", "invoke"],
        given: Given::Option(&["--scripts"]),
    },
    Remote {
        program: "az",
        path: &["run-command", "create"],
        given: Given::Option(&["--script"]),
    },
    Remote {
        program: "az",
        path: &["containerapp", "exec"],
        given: Given::Option(&["--command"]),
    },
    Remote {
        program: "az",
        path: &["aks", "command", "invoke"],
        given: Given::Option(&["--command", "-c"]),
    },
    Remote {
        program: "az",
        path: &["container", "exec"],
        given: Given::Option(&["--exec-command"]),
    },
    Remote {
        program: "aws",
        path: &["ecs", "execute-command"],
        given: Given::Option(&["--command"]),
    },
    Remote {
        program: "aws",
        path: &["ssm", "send-command"],
        given: Given::Parameters(&["--parameters", "--cli-input-json"]),
    },
    Remote {
        program: "aws",
        path: &["ssm", "start-session"],
        given: Given::Parameters(&["--parameters", "--cli-input-json"]),
    },
    Remote {
        program: "gh",
        path: &["ssh"],
        given: Given::SshArgs,
    },
    // `gh codespace ssh -c CS cmd`: without `--`, the words after the options.
    Remote {
        program: "gh",
        path: &["ssh"],
        given: Given::Words {
            short: "c",
            long: &[
                "codespace",
                "profile",
                "server-port",
                "repo",
                "repo-owner",
                "config",
            ],
            name: false,
        },
    },
    Remote {
        program: "gitpod",
        path: &["ssh"],
        given: Given::SshArgs,
    },
    Remote {
        program: "render",
        path: &["ssh"],
        given: Given::SshArgs,
    },
    Remote {
        program: "fly",
        path: &["ssh"],
        given: Given::Option(&["-C", "--command"]),
    },
    // `fly machine exec [ID] 'cmd'`: the machine is optional, both readings are judged.
    Remote {
        program: "fly",
        path: &["machine", "exec"],
        given: Given::Words {
            short: "a",
            long: &["app", "config", "timeout"],
            name: true,
        },
    },
    Remote {
        program: "minikube",
        path: &["ssh"],
        given: Given::Words {
            short: "np",
            long: &["node", "profile"],
            name: false,
        },
    },
    Remote {
        program: "pyinfra",
        path: &["server.shell"],
        given: Given::Words {
            short: "",
            long: &[],
            name: false,
        },
    },
    Remote {
        program: "pyinfra",
        path: &["exec"],
        given: Given::Words {
            short: "",
            long: &[],
            name: false,
        },
    },
    Remote {
        program: "fab",
        path: &[],
        given: Given::Words {
            short: "HiSu",
            long: &[
                "hosts",
                "identity",
                "ssh-config",
                "user",
                "roles",
                "prompt-for-login-password",
            ],
            name: false,
        },
    },
    Remote {
        program: "podman",
        path: &["machine", "ssh"],
        given: Given::Words {
            short: "",
            long: &["username"],
            name: true,
        },
    },
    // `knife ssh QUERY 'cmd'`, its options before, between or after them.
    Remote {
        program: "knife",
        path: &["ssh"],
        given: Given::Operand {
            short: "xPpiaCG",
            long: &[
                "--ssh-user",
                "--ssh-password",
                "--ssh-port",
                "--ssh-identity-file",
                "--attribute",
                "--concurrency",
                "--ssh-gateway",
                "--config",
            ],
            at: 1,
        },
    },
    // `knife winrm QUERY 'cmd'`: knife ssh's shape over WinRM, with its own options.
    Remote {
        program: "knife",
        path: &["winrm"],
        given: Given::Operand {
            short: "afipPRStxC",
            long: &[
                "--attribute",
                "--ca-trust-file",
                "--identity-file",
                "--keytab-file",
                "--winrm-port",
                "--winrm-password",
                "--kerberos-realm",
                "--returns",
                "--kerberos-service",
                "--session-timeout",
                "--winrm-transport",
                "--winrm-authentication-protocol",
                "--winrm-user",
                "--winrm-shell",
                "--concurrency",
                "--config",
            ],
            at: 1,
        },
    },
    // `hcloud server ssh SERVER cmd…`: cobra's flags may stand among the operands.
    Remote {
        program: "hcloud",
        path: &["server", "ssh"],
        given: Given::Operand {
            short: "pu",
            long: &[
                "--port",
                "--user",
                "--config",
                "--context",
                "--endpoint",
                "--poll-interval",
                "--debug-file",
            ],
            at: 1,
        },
    },
    Remote {
        program: "doctl",
        path: &["compute", "ssh"],
        given: Given::Option(&["--ssh-command"]),
    },
    // mussh appends every `-c` to the command it runs (`-C FILE` sends a local script file,
    // whose text the guard does not read, as with `bash FILE`).
    Remote {
        program: "mussh",
        path: &[],
        given: Given::Option(&["-c"]),
    },
    // `nomad alloc exec [options] ALLOC cmd args…` (`nomad exec`, its alias; with `-job`, the
    // operand is the job).
    Remote {
        program: "nomad",
        path: &["exec"],
        given: Given::Argv {
            values: &[
                "task",
                "e",
                "address",
                "region",
                "namespace",
                "ca-cert",
                "ca-path",
                "client-cert",
                "client-key",
                "tls-server-name",
                "token",
            ],
            operands: 1,
        },
    },
];

/// Tools installed under a second name, read as the first (`flyctl` is `fly`).
const ALIASES: &[(&str, &str)] = &[("flyctl", "fly")];

/// `program` under the name the table knows it by.
fn known_as(program: &str) -> &str {
    (ALIASES.iter())
        .find(|(alias, _)| *alias == program)
        .map_or(program, |(_, name)| name)
}

/// Whether any remote tool is called `program` (the resolver looks no further otherwise).
pub(super) fn is_remote_tool(program: &str) -> bool {
    let program = known_as(program);
    REMOTES.iter().any(|r| r.program == program)
}

/// The command lines `program` with `args` runs on another machine.
pub(super) fn remote_scripts(program: &str, args: &[String]) -> Vec<String> {
    let program = known_as(program);
    let mut scripts = Vec::new();
    for remote in REMOTES.iter().filter(|r| r.program == program) {
        // The path's words, in order, before any `--`.
        let before = args.iter().position(|a| a == "--").unwrap_or(args.len());
        let mut at = 0;
        for word in remote.path {
            match args[at..before].iter().position(|a| a == word) {
                Some(found) => at += found + 1,
                None => {
                    at = usize::MAX;
                    break;
                }
            }
        }
        if at == usize::MAX {
            continue;
        }
        match &remote.given {
            Given::Option(names) => {
                // Every value, and for az the words after it up to the next option
                // (`--scripts 'ls' 'rm -rf /'`).
                for (at, word) in args.iter().enumerate() {
                    if names.contains(&word.as_str()) {
                        // The next word is the value whatever it starts with (`--command
                        // '-x; rm -rf /'`).
                        scripts.extend(args.get(at + 1).cloned());
                        if program == "az" {
                            let more = args.iter().skip(at + 2);
                            scripts.extend(more.take_while(|w| !w.starts_with('-')).cloned());
                        }
                    }
                }
                scripts.extend(
                    option_values(args, names)
                        .filter(|v| !args.iter().any(|a| a == v))
                        .map(str::to_owned),
                );
            }
            Given::Parameters(names) => {
                // Given more than once (`--parameters executionTimeout=60 --parameters
                // commands=…`), each is read.
                scripts.extend(option_values(args, names).flat_map(commands_of));
            }
            Given::SshArgs => {
                if let Some(rest) = args.get(before + 1..) {
                    let command = &rest[options(rest, SSH_SHORT, &[])..];
                    if !command.is_empty() {
                        scripts.push(command.join(" "));
                    }
                }
            }
            Given::Operand {
                short,
                long,
                at: place,
            } => {
                let after = &args[at..before];
                let mut operands = Vec::new();
                let mut i = 0;
                while let Some(word) = after.get(i) {
                    i += 1;
                    if let Some(name) = word.strip_prefix("--") {
                        i += usize::from(!name.contains('=') && long.contains(&word.as_str()));
                    } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
                        // A value letter takes the rest of the cluster, or the next word.
                        if let Some(k) = cluster.find(|c| short.contains(c)) {
                            i += usize::from(k + 1 == cluster.len());
                        }
                    } else {
                        operands.push(word);
                    }
                }
                operands.extend(args.get(before + 1..).unwrap_or_default());
                // The operands from there are the command, joined (as knife joins them).
                if let Some(command) = operands.get(*place..).filter(|c| !c.is_empty()) {
                    let words: Vec<&str> = command.iter().map(|w| w.as_str()).collect();
                    scripts.push(words.join(" "));
                }
            }
            Given::Argv { values, operands } => {
                let after = &args[at..];
                // Go's flag package stops at the first word that is not a flag, or after `--`.
                let mut i = 0;
                while let Some(word) = after.get(i) {
                    i += 1;
                    if word == "--" {
                        break;
                    }
                    let Some(name) = (word.strip_prefix("--"))
                        .or_else(|| word.strip_prefix('-'))
                        .filter(|n| !n.is_empty() && !n.starts_with('-'))
                    else {
                        i -= 1;
                        break;
                    };
                    i += usize::from(!name.contains('=') && values.contains(&name));
                }
                if let Some(command) = after.get(i + operands..).filter(|c| !c.is_empty()) {
                    let words: Vec<String> = (command.iter())
                        .map(|w| crate::shell::quote(w).into_owned())
                        .collect();
                    scripts.push(words.join(" "));
                }
            }
            Given::Words { short, long, name } => {
                let after = &args[at..];
                let words = match after.iter().position(|a| a == "--") {
                    Some(dashdash) => &after[dashdash + 1..],
                    None => &after[options(after, short, long)..],
                };
                if !words.is_empty() {
                    scripts.push(words.join(" "));
                }
                if *name && words.len() > 1 {
                    scripts.push(words[1..].join(" "));
                }
            }
        }
    }
    scripts
}

/// The command lines `ansible HOSTS -m MODULE -a ARGS` runs on its hosts: the arguments of
/// the `command`, `shell` and `raw` modules (the default is `command`; `cmd=` and `argv=`
/// too), and other modules' deletes and writes as the shell commands that do the same (`-m
/// file -a 'path=/etc state=absent'` as `rm -rf -- /etc`; `-m copy -a 'dest=/etc/sudoers …'`
/// as a write of it; `-m apt -a 'name=openssh-server state=absent'` as its removal). The
/// last `-m` and `-a` count, as ansible reads them; arguments may be `key=value` words or a
/// JSON object. Any other module's arguments are judged as a command line too.
pub(super) fn ansible_scripts(args: &[String]) -> Vec<String> {
    let Some(margs) = option_values(args, &["-a", "--args"]).last() else {
        return Vec::new();
    };
    let module = (option_values(args, &["-m", "--module-name"]).last()).unwrap_or("command");
    let module = (module.strip_prefix("ansible.builtin."))
        .or_else(|| module.strip_prefix("ansible.legacy."))
        .unwrap_or(module);
    let pairs = module_arguments(margs);
    let value = |keys: &[&str]| {
        (pairs.iter())
            .find(|(key, _)| keys.contains(&key.as_str()))
            .map(|(_, value)| value.clone())
    };
    let quoted = |path: String| crate::shell::quote(&path).into_owned();
    let stand_in = |template: &str, keys: &[&str]| {
        value(keys)
            .map(|v| template.replace("{}", &quoted(v)))
            .into_iter()
            .collect()
    };
    match module {
        // `argv` as a comma-separated string is a list too (`argv=rm,-rf,/`).
        "command" | "shell" | "raw" => (value(&["cmd", "_raw_params"]).into_iter())
            .chain(value(&["argv"]))
            .chain(value(&["argv"]).map(|argv| argv.replace(',', " ")))
            .chain(std::iter::once(margs.to_owned()))
            .collect(),
        "file" => match value(&["state"]).as_deref() {
            Some("absent") => stand_in("rm -rf -- {}", &["path", "dest", "name"]),
            _ => Vec::new(),
        },
        "copy" | "template" | "lineinfile" | "blockinfile" | "replace" | "get_url" => stand_in(
            &format!("ansible.{module} > {{}}"),
            &["dest", "destfile", "path", "name"],
        ),
        "unarchive" => stand_in("tar -x -f x -C {}", &["dest"]),
        "apt" | "yum" | "dnf" | "package" | "pacman" | "apk" | "zypper" => {
            match value(&["state"]).as_deref() {
                Some("absent" | "removed") => stand_in("apt-get remove -y {}", &["name", "pkg"]),
                _ => Vec::new(),
            }
        }
        "systemd" | "service" | "systemd_service" => match value(&["state"]).as_deref() {
            Some("stopped") => stand_in("systemctl stop {}", &["name"]),
            _ => Vec::new(),
        },
        "user" => match (value(&["state"]).as_deref(), value(&["remove"]).as_deref()) {
            (Some("absent"), Some("yes" | "true" | "True")) => stand_in("userdel -r {}", &["name"]),
            (Some("absent"), _) => stand_in("userdel {}", &["name"]),
            _ => Vec::new(),
        },
        "synchronize" => match value(&["delete"]).as_deref() {
            Some("yes" | "true" | "True") => stand_in("rsync -a --delete x {}", &["dest"]),
            _ => Vec::new(),
        },
        _ => vec![margs.to_owned()],
    }
}

/// A module's arguments as (key, value) pairs: a JSON object, or `key=value` words (a value
/// may be quoted, with blanks in it).
fn module_arguments(margs: &str) -> Vec<(String, String)> {
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(margs.trim()) {
        return map
            .into_iter()
            .map(|(key, value)| {
                let value = match value {
                    serde_json::Value::String(s) => s,
                    // `"argv": ["rm", "-rf", "/"]`: the words, quoted into a command line.
                    serde_json::Value::Array(items) if items.iter().all(|i| i.is_string()) => {
                        (items.iter().filter_map(serde_json::Value::as_str))
                            .map(|w| crate::shell::quote(w).into_owned())
                            .collect::<Vec<_>>()
                            .join(" ")
                    }
                    other => other.to_string(),
                };
                (key, value)
            })
            .collect();
    }
    let Ok(script) = crate::shell::parse(&format!("x {margs}")) else {
        return Vec::new();
    };
    let words = script
        .commands()
        .next()
        .map(|c| c.args.clone())
        .unwrap_or_default();
    (words.into_iter())
        .filter_map(|word| {
            let (key, value) = word.split_once('=')?;
            Some((key.to_owned(), value.to_owned()))
        })
        .collect()
}

/// Most `command` keys read in one parameters value.
const MAX_COMMAND_KEYS: usize = 16;

/// The command lines of an SSM document's command parameters (`commands` of
/// AWS-RunShellScript, `command` of AWS-StartInteractiveCommand, `commandLine` of
/// AWS-RunRemoteScript), every time a key is given (JSON keeps the last of a key given twice;
/// the guard reads them all), in the CLI's shorthand (`commands=["a","b"]`, `commands=a,b`,
/// `commands=[a,b]`) or JSON (`{"commands":["a"]}`). A value the guard cannot read is judged
/// whole, as a command line; a shorthand list is judged whole and split at its commas.
fn commands_of(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A bounded number of keys: each reading copies the rest of the value at most once.
    for (at, _) in value.match_indices("command").take(MAX_COMMAND_KEYS) {
        let rest = &value[at + "command".len()..];
        let rest = (rest.strip_prefix("Line"))
            .or_else(|| rest.strip_prefix('s'))
            .unwrap_or(rest);
        if !rest.starts_with(['"', '\'', ':', '=', ' ']) {
            continue; // `commandId`, another key
        }
        let rest = rest.trim_start_matches(['"', '\'', ':', '=', ' ']);
        // A JSON list, read as JSON (a `]` inside a command does not end it).
        if rest.starts_with('[')
            && let Some(Ok(serde_json::Value::Array(items))) =
                serde_json::Deserializer::from_str(rest)
                    .into_iter::<serde_json::Value>()
                    .next()
            && items.iter().all(serde_json::Value::is_string)
        {
            out.extend((items.iter().filter_map(serde_json::Value::as_str)).map(str::to_owned));
            continue;
        }
        let list = match rest.strip_prefix('[') {
            Some(list) => &list[..list.find(']').unwrap_or(list.len())],
            // `commands=rm -rf /`: the rest, up to another parameter.
            None => {
                let end = rest.find(['}', ']']).unwrap_or(rest.len());
                rest[..end].trim_matches(['"', '\''])
            }
        };
        let quoted: Vec<String> = (list.split('"').skip(1).step_by(2))
            .map(str::to_owned)
            .collect();
        if quoted.is_empty() {
            out.push(list.to_owned());
            if list.contains(',') {
                out.extend(list.split(',').map(|c| c.trim().to_owned()));
            }
        } else {
            out.extend(quoted);
        }
    }
    out
}
