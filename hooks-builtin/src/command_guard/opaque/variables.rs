//! `command-variable`: variables whose value a program runs as a command, loads code from,
//! or reads as its own options (`GIT_SSH_COMMAND='rm -rf /' git fetch`, `LD_PRELOAD=x.so`,
//! `TAR_OPTIONS`, `GIT_CONFIG_PARAMETERS`), set for one command or anywhere in the script.

use crate::shell::{Command, Script};
use std::borrow::Cow;

use super::cut;
use super::rules::{self, COMMAND_VARIABLE, Env, Hit, hit};

/// Variables whose value is a command some program runs (`GIT_SSH_COMMAND='…' git fetch`).
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "PAGER",
    "MANPAGER",
    "GIT_EDITOR",
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "PROMPT_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "SHELL",
    "RSYNC_RSH",
    "RSYNC_CONNECT_PROG",
    "CVS_RSH",
    // less runs its input preprocessor through the shell; a leading `|` (or `||`) only says
    // how it reads the output.
    "LESSOPEN",
    "LESSCLOSE",
    "SYSTEMD_PAGER",
    "BROWSER",
    // The compilers and tools make's built-in rules, configure scripts and cc-rs run
    // (`CC='rm -rf ~;' make`).
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "NM",
    "RANLIB",
    "STRIP",
    "OBJCOPY",
    "FC",
    "HOSTCC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
];

/// Whether `name` is a variable whose value a program runs as a command: one of
/// [`COMMAND_VARIABLES`], or Cargo's runner for a target (`CARGO_TARGET_<TRIPLE>_RUNNER`).
fn names_command(name: &str) -> bool {
    COMMAND_VARIABLES.contains(&name)
        || name
            .strip_prefix("CARGO_TARGET_")
            .is_some_and(|rest| rest.ends_with("_RUNNER"))
}

/// Variables that make a program load code from a file (`BASH_ENV=x.sh bash -c true`).
const LOADER_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "PERL5OPT",
    "PERL5LIB",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "RUBYOPT",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

/// Whether `name=value`, one of [`LOADER_VARIABLES`], makes a program load code the project
/// does not hold: a search path (`PYTHONPATH`, `PERL5LIB`, `LD_LIBRARY_PATH`) with a directory
/// outside the project's relative ones (`src`, `./lib`, `$PWD/build`; an empty entry is the
/// current directory), `NODE_OPTIONS` with an option that loads a module or opens the
/// debugger (`--require`, `-r`, `--import`, `--loader`, `--experimental-loader`,
/// `--inspect…`; not `--max-old-space-size=8192`), and any value of the others.
fn loads_code(name: &str, value: &str) -> bool {
    let in_project = |dir: &str| {
        let rel = ["$PWD", "${PWD}"]
            .iter()
            .find_map(|pwd| dir.strip_prefix(pwd))
            .map_or(dir, |rest| rest.trim_start_matches('/'));
        !rel.starts_with(['/', '~', '$']) && !rel.split('/').any(|c| c == "..")
    };
    match name {
        "PYTHONPATH" | "PERL5LIB" | "LD_LIBRARY_PATH" => !value.split(':').all(in_project),
        "NODE_OPTIONS" => value.split_whitespace().any(|option| {
            let option = option.split('=').next().unwrap_or(option);
            matches!(
                option,
                "-r" | "--require" | "--import" | "--loader" | "--experimental-loader"
            ) || option.starts_with("--inspect")
        }),
        _ => true,
    }
}

/// `command-variable`: a variable set for the command (or exported) whose value is a command
/// another program runs, judged as that command (`GIT_SSH_COMMAND='rm -rf /' git fetch` is
/// `rm-root`); one that makes a program load code from a file, or a `PATH` that puts a
/// relative or temporary directory first, asks.
pub(super) fn command_variables(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let exported = matches!(command.program.as_str(), "export" | "declare" | "typeset")
        .then_some(&command.args)
        .into_iter()
        .flatten()
        .filter(|a| a.contains('='));
    let mut hits = Vec::new();
    // make takes `NAME=value` arguments as its variables (`make CC='rm -rf ~'`).
    let make_variables = (matches!(command.program.as_str(), "make" | "gmake"))
        .then_some(&command.args)
        .into_iter()
        .flatten()
        .filter(|a| !a.starts_with('-') && a.contains('='));
    let mut assignments: Vec<(&str, &str)> = (command.assignments.iter())
        .chain(exported)
        .chain(make_variables)
        .filter_map(|a| a.split_once('='))
        .map(|(name, value)| (name.trim_end_matches('+'), value))
        .collect();
    // A git key's counterpart the script sets elsewhere (`export GIT_CONFIG_KEY_0=core.pager;
    // GIT_CONFIG_VALUE_0='…' git log`) pairs with the one set here.
    let counterparts: Vec<(String, String)> = (assignments.iter())
        .filter_map(|(name, _)| {
            let other = match (name.strip_prefix("GIT_CONFIG_KEY_"))
                .map(|n| ("GIT_CONFIG_VALUE_", n))
                .or_else(|| {
                    name.strip_prefix("GIT_CONFIG_VALUE_")
                        .map(|n| ("GIT_CONFIG_KEY_", n))
                }) {
                Some((prefix, n)) => format!("{prefix}{n}"),
                None => return None,
            };
            (!assignments.iter().any(|(o, _)| *o == other)).then_some(other)
        })
        .flat_map(|other| {
            (env.certain_readings(&format!("${other}")).into_iter())
                .map(move |v| (other.clone(), v))
        })
        .collect();
    assignments.extend(counterparts.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    for &(name, value) in &assignments {
        variable_hits(name, value, &assignments, env, &mut hits);
        // A value through a variable the shell certainly sets (`P='…'; PAGER=$P git log`).
        if value.contains('$') {
            for reading in env.certain_readings(value) {
                variable_hits(name, &reading, &assignments, env, &mut hits);
            }
        }
    }
    hits
}

/// The `command-variable` hits of `name=value`, among `assignments` (where a git key's value
/// is found).
fn variable_hits(
    name: &str,
    value: &str,
    assignments: &[(&str, &str)],
    env: &Env<'_>,
    hits: &mut Vec<Hit>,
) {
    // The command a variable makes a program run: its value (less's `|` and `||` say
    // how it reads the output, and a `-` after them that it reads standard input too),
    // or for `LESS`, what follows `+!` (`LESS='+!cmd'`, as `less '+!cmd'`); for a
    // variable that holds a program's options, that program with them.
    let command: Option<Cow<'_, str>> = if names_command(name) {
        Some(Cow::Borrowed(match name {
            "LESSOPEN" | "LESSCLOSE" => value.trim_start_matches('|').trim_start_matches('-'),
            _ => value,
        }))
    } else if name == "LESS" {
        (value.match_indices("+!").map(|(at, _)| at))
            .find(|&at| at == 0 || value[..at].ends_with(char::is_whitespace))
            .map(|at| Cow::Borrowed(value[at + 2..].trim()))
    } else {
        options_variable(name, value, assignments).map(Cow::Owned)
    };
    if let Some(command) = command {
        match crate::shell::parse(&command) {
            Ok(script) => {
                hits.extend(rules::script_hits(&script, env));
                for c in script.commands() {
                    hits.extend(rules::command_hits(c, env));
                    env.push_nested(c.clone());
                }
            }
            Err(e) => hits.push(hit(
                COMMAND_VARIABLE,
                format!("{name} names a command the guard cannot read ({e})"),
            )),
        }
    } else if LOADER_VARIABLES.contains(&name) && loads_code(name, value) {
        hits.push(hit(
            COMMAND_VARIABLE,
            format!("{name} makes the program load code from `{}`", cut(value)),
        ));
    } else if name == "PATH" {
        let first = value.split(':').next().unwrap_or_default();
        let path = std::path::Path::new(first);
        let unsafe_first = first.is_empty()
            || !first.starts_with(['/', '~', '$'])
            || rules::in_temp_dir(path)
            || ["/tmp", "/var/tmp", "/dev/shm"].contains(&first.trim_end_matches('/'));
        if unsafe_first {
            hits.push(hit(
                COMMAND_VARIABLE,
                format!(
                    "PATH puts `{first}` first, so a program there can take any command's name"
                ),
            ));
        }
    }
}

/// `command-variable` for variables the script sets on their own (`export
/// GIT_CONFIG_PARAMETERS; GIT_CONFIG_PARAMETERS='…'; git log`, `export GIT_CONFIG_KEY_0=…` in
/// one statement and its value in another): a variable that names a command or holds a
/// program's options is judged whether or not the guard saw it exported, which is only
/// stricter. One set in an `export` with its value was judged with that command (a git key
/// too, when the same `export` set the value it is paired with here).
pub(super) fn script_variables(script: &Script, env: &Env<'_>) -> Vec<Hit> {
    // Read once: a script may hold thousands of statements.
    let exports: Vec<Vec<(&str, &str)>> = (script.commands())
        .filter(|c| matches!(c.program.as_str(), "export" | "declare" | "typeset"))
        .map(|c| {
            (c.args.iter())
                .filter_map(|a| a.split_once('='))
                .map(|(n, v)| (n.trim_end_matches('+'), v))
                .collect()
        })
        .collect();
    let exported: std::collections::HashSet<(&str, &str)> =
        exports.iter().flatten().copied().collect();
    // The git keys an `export` set with their value (`export GIT_CONFIG_KEY_0=k
    // GIT_CONFIG_VALUE_0=v`): key, its setting, and the value.
    let exported_settings: std::collections::HashSet<(&str, &str, &str)> = (exports.iter())
        .flat_map(|set| {
            set.iter().filter_map(|&(name, key)| {
                let n = name.strip_prefix("GIT_CONFIG_KEY_")?;
                let (_, value) = (set.iter())
                    .find(|(other, _)| other.strip_prefix("GIT_CONFIG_VALUE_") == Some(n))?;
                Some((name, key, *value))
            })
        })
        .collect();
    // A git key's value, by its number, for the pairing (the last one set).
    let git_values: std::collections::HashMap<&str, (&str, &str)> = (script.variables.iter())
        .filter_map(|v| {
            let n = v.name.strip_prefix("GIT_CONFIG_VALUE_")?;
            Some((n, (v.name.as_str(), v.value.as_str())))
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::new();
    for v in &script.variables {
        let (name, value) = (v.name.as_str(), v.value.as_str());
        if !seen.insert((name, value)) {
            continue;
        }
        let pair: Vec<(&str, &str)> = (name.strip_prefix("GIT_CONFIG_KEY_"))
            .and_then(|n| git_values.get(n).copied())
            .into_iter()
            .collect();
        let judged =
            names_command(name) || name == "LESS" || options_variable(name, value, &pair).is_some();
        // What `command_variables` judged with its `export`: the variable as set there, a
        // git key with the value that `export` set (not one set in another statement).
        let judged_with_export = match pair.first() {
            Some(&(_, paired)) => exported_settings.contains(&(name, value, paired)),
            None => exported.contains(&(name, value)),
        };
        if judged && !judged_with_export {
            variable_hits(name, value, &pair, env, &mut hits);
        }
    }
    hits
}

/// The command line a variable that holds a program's options stands for: tar reads
/// `TAR_OPTIONS` before its own (`TAR_OPTIONS='--to-command=…'`), make `MAKEFLAGS`, and git reads
/// `GIT_CONFIG_PARAMETERS` (`'key=value'` words) and `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
/// pairs as `-c key=value`. The options that run a command are then judged as on the
/// command line.
fn options_variable(name: &str, value: &str, assignments: &[(&str, &str)]) -> Option<String> {
    let git = |settings: &mut dyn Iterator<Item = String>| {
        let mut line = "git".to_owned();
        for setting in settings {
            line.push_str(" -c ");
            line.push_str(&crate::shell::quote(&setting));
        }
        line
    };
    match name {
        "TAR_OPTIONS" => Some(format!("tar {value}")),
        "MAKEFLAGS" => Some(format!("make {value}")),
        // The value is written as shell words (git quotes each setting with `'`).
        "GIT_CONFIG_PARAMETERS" => {
            let words = match crate::shell::parse(&format!(": {value}")) {
                Ok(script) => script.commands().next()?.args.clone(),
                // What cannot be read as words is judged as written.
                Err(_) => vec![value.to_owned()],
            };
            Some(git(&mut words.into_iter()))
        }
        _ => {
            let n = name.strip_prefix("GIT_CONFIG_KEY_")?;
            let setting = (assignments.iter())
                .find(|(other, _)| other.strip_prefix("GIT_CONFIG_VALUE_") == Some(n))
                .map_or_else(|| value.to_owned(), |(_, v)| format!("{value}={v}"));
            Some(git(&mut std::iter::once(setting)))
        }
    }
}
