//! Options and settings whose value a program runs as a shell command line: `git rebase -x`,
//! `git -c core.pager=…`, `tar --to-command`, `rsync -e`, `ssh -o ProxyCommand=…`, `man -P`,
//! an editor's `-c '!…'`, an awk program's `system("…")`, a sed script's `e` command, make's
//! `SHELL=` and `--eval`, a database client's shell escapes ([`embedded`](super::embedded)).
//! Each value is parsed and judged as a script run where the command runs.

use std::borrow::Cow;

use super::embedded;
use super::wrappers::TAR_SHORT;

/// A program's options whose value it runs as a shell command line.
struct CommandOptions {
    program: &'static str,
    /// The subcommand they belong to (`rebase` of `git`), when they are a subcommand's.
    sub: Option<&'static str>,
    /// The options: `--long` (`--long=v` or `--long v`), `-s` (`-s v` or `-sv`).
    options: &'static [&'static str],
}

const COMMAND_OPTIONS: &[CommandOptions] = &[
    CommandOptions {
        program: "git",
        sub: Some("rebase"),
        options: &["--exec", "-x"],
    },
    CommandOptions {
        program: "git",
        sub: Some("difftool"),
        options: &["--extcmd", "-x"],
    },
    CommandOptions {
        program: "git",
        sub: Some("mergetool"),
        options: &["--tool-cmd"],
    },
    CommandOptions {
        program: "git",
        sub: Some("filter-branch"),
        options: &[
            "--env-filter",
            "--tree-filter",
            "--index-filter",
            "--parent-filter",
            "--msg-filter",
            "--commit-filter",
            "--tag-name-filter",
        ],
    },
    CommandOptions {
        program: "tar",
        sub: None,
        options: &[
            "--to-command",
            "--use-compress-program",
            "-I",
            "--info-script",
            "--new-volume-script",
            "-F",
        ],
    },
    CommandOptions {
        program: "rsync",
        sub: None,
        options: &["--rsh", "-e", "--rsync-path"],
    },
    CommandOptions {
        program: "zip",
        sub: None,
        options: &["--unzip-command", "-TT"],
    },
    CommandOptions {
        program: "doppler",
        sub: Some("run"),
        options: &["--command"],
    },
    CommandOptions {
        program: "infisical",
        sub: Some("run"),
        options: &["--command"],
    },
    // `nodemon --exec CMD` and `chokidar GLOB -c CMD` run it on every change; rlwrap's
    // filter is a command line.
    CommandOptions {
        program: "mise",
        sub: Some("exec"),
        options: &["--command", "-c"],
    },
    CommandOptions {
        program: "mise",
        sub: Some("x"),
        options: &["--command", "-c"],
    },
    CommandOptions {
        program: "nodemon",
        sub: None,
        options: &["--exec", "-x"],
    },
    CommandOptions {
        program: "chokidar",
        sub: None,
        options: &["--command", "-c"],
    },
    CommandOptions {
        program: "rlwrap",
        sub: None,
        options: &["--filter", "-z"],
    },
    CommandOptions {
        program: "mosh",
        sub: None,
        options: &["--ssh", "--server"],
    },
    CommandOptions {
        program: "nix-shell",
        sub: None,
        options: &["--run", "--command"],
    },
    CommandOptions {
        program: "man",
        sub: None,
        options: &["--pager", "-P"],
    },
];

/// git settings whose value is a command line git runs (an alias only when it starts with
/// `!`). Matched case-insensitively, as git reads section and key names.
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.fsmonitor",
    "core.askpass",
    "sequence.editor",
    "diff.external",
    "gpg.program",
    "credential.helper",
];

/// Last parts of git keys whose value is a command, in any section.
const GIT_COMMAND_SUFFIXES: &[&str] = &[
    ".command",
    ".textconv",
    ".driver",
    ".clean",
    ".smudge",
    ".process",
    ".helper",
    ".tocmd",
    ".cccmd",
    ".sendmailcmd",
    ".uploadpack",
    ".receivepack",
    ".packobjectshook",
    ".gitproxy",
    ".defaultkeycommand",
    ".program",
    ".editor",
    ".sshcommand",
    ".cmd",
];

/// The ssh settings whose value runs on this machine (`-o ProxyCommand=…`).
const SSH_COMMAND_KEYS: &[&str] = &[
    "proxycommand",
    "localcommand",
    "knownhostscommand",
    "remotecommand",
];

/// The command lines `program` with `args` runs because an option or setting says so.
pub(super) fn option_commands<'a>(program: &str, args: &'a [String]) -> Vec<Cow<'a, str>> {
    let mut out: Vec<Cow<'a, str>> = Vec::new();
    let sub = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    for table in COMMAND_OPTIONS.iter().filter(|t| t.program == program) {
        if table.sub.is_some_and(|s| Some(s) != sub) {
            continue;
        }
        out.extend(option_values(args, table.options).map(Cow::Borrowed));
    }
    match program {
        "git" => out.extend(git_commands(args)),
        "ssh" | "scp" | "sftp" => {
            for value in option_values(args, &["-o"]) {
                let (key, rest) = value
                    .split_once(['=', ' ', '\t'])
                    .map_or((value, ""), |(k, v)| {
                        (k, v.trim_start_matches(['=', ' ', '\t']))
                    });
                if SSH_COMMAND_KEYS.contains(&key.to_ascii_lowercase().as_str()) {
                    out.push(Cow::Borrowed(rest));
                }
            }
        }
        // tar's old-style bundle without a dash (`tar cIf 'CMD' a .`): its letters that take a
        // value take the words after it, in order.
        "tar"
            if args.first().is_some_and(|a| {
                !a.starts_with('-') && !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphabetic())
            }) =>
        {
            let mut values = args[1..].iter();
            for letter in args[0].chars() {
                if TAR_SHORT.contains(letter) {
                    let value = values.next();
                    if matches!(letter, 'I' | 'F') {
                        out.extend(value.map(|v| Cow::Borrowed(v.as_str())));
                    }
                }
            }
            out.extend(
                option_values(args, &["--checkpoint-action"])
                    .filter_map(|v| v.strip_prefix("exec="))
                    .map(Cow::Borrowed),
            );
        }
        // tar's checkpoint action `exec=CMD`.
        "tar" => out.extend(
            option_values(args, &["--checkpoint-action"])
                .filter_map(|v| v.strip_prefix("exec="))
                .map(Cow::Borrowed),
        ),
        // gdb's `-ex 'shell CMD'` and `-ex '!CMD'`.
        "gdb" => out.extend(
            option_values(
                args,
                &[
                    "-ex",
                    "--ex",
                    "--eval-command",
                    "-eval-command",
                    "-iex",
                    "--iex",
                    "--init-eval-command",
                    "-init-eval-command",
                ],
            )
            .filter_map(|v| {
                let v = v.trim_start();
                v.strip_prefix('!').or_else(|| v.strip_prefix("shell "))
            })
            .map(Cow::Borrowed),
        ),
        // An awk program's `system("CMD")`, `print | "CMD"` and `"CMD" | getline`.
        "awk" | "gawk" | "mawk" | "nawk" => {
            if let Some(program) = awk_program(args) {
                out.extend(awk_commands(program).into_iter().map(Cow::Owned));
            }
        }
        // An editor's startup commands: vim's `-c '!CMD'`, `+'!CMD'`, `--cmd`, `call
        // system("CMD")`; emacs's `--eval '(shell-command "CMD")'`.
        "vim" | "vi" | "nvim" | "view" | "ex" | "gvim" | "emacs" => {
            let commands = option_values(args, &["-c", "--cmd", "--eval", "-eval", "--execute"])
                .chain(args.iter().filter_map(|a| a.strip_prefix('+')));
            for command in commands {
                let command = command.trim_start().trim_start_matches(':').trim_start();
                if let Some(script) = command.strip_prefix('!') {
                    out.push(Cow::Borrowed(script));
                }
                for call in ["system(", "shell-command ", "call-process-shell-command "] {
                    out.extend(
                        command
                            .match_indices(call)
                            .filter_map(|(at, _)| quoted(&command[at + call.len()..]))
                            .map(Cow::Owned),
                    );
                }
            }
        }
        // A sed script's `e CMD` and `s/…/CMD/e`.
        "sed" | "gsed" => {
            for script in embedded::sed_scripts(args) {
                out.extend(embedded::sed_commands(script).into_iter().map(Cow::Owned));
            }
        }
        // make's `SHELL=CMD`, and the recipes and `$(shell CMD)` of `--eval` text.
        "make" | "gmake" => out.extend(embedded::make_commands(args).into_iter().map(Cow::Owned)),
        // Cargo's `--config` settings that name a program it runs: a target's `runner`, the
        // rustc wrappers (`--config "target.x86_64-unknown-linux-gnu.runner='cmd'"`).
        "cargo" => out.extend(option_values(args, &["--config"]).filter_map(|setting| {
            let (key, value) = setting.split_once('=')?;
            let key = key.trim();
            let runs = key.ends_with(".runner")
                || matches!(key, "build.rustc-wrapper" | "build.rustc-workspace-wrapper");
            runs.then(|| Cow::Owned(value.trim().trim_matches(['\'', '"']).to_owned()))
        })),
        // A database client's shell escapes (`psql -c '\\! CMD'`, `sqlite3 db '.shell CMD'`).
        "psql" | "pgcli" | "mysql" | "mariadb" | "sqlite3" | "sqlite" | "duckdb" => out.extend(
            embedded::db_client_commands(program, args)
                .into_iter()
                .map(Cow::Owned),
        ),
        // less's and more's first command `+!CMD`.
        "less" | "more" => out.extend(
            args.iter()
                .filter_map(|a| a.strip_prefix("+!"))
                .map(Cow::Borrowed),
        ),
        _ => {}
    }
    out.retain(|c| !c.trim().is_empty());
    out
}

/// The program text of an awk command line: its first operand, after `-F fs`, `-v var=val`
/// and the like; none when it reads its program from a file (`-f`).
fn awk_program(args: &[String]) -> Option<&str> {
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        match word {
            "-f" | "--file" => return None,
            "-F" | "-v" | "--assign" | "--field-separator" => {
                words.next();
            }
            "--" => return words.next(),
            w if w.starts_with('-') && w.len() > 1 => {}
            w => return Some(w),
        }
    }
    None
}

/// The literal commands an awk program runs: `system("CMD")`, `print … | "CMD"` (`|&` too)
/// and `"CMD" | getline`.
fn awk_commands(program: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in program.match_indices("system") {
        let rest = program[at + "system".len()..].trim_start();
        if let Some(inner) = rest.strip_prefix('(') {
            out.extend(quoted(inner));
        }
    }
    for (at, _) in program.match_indices('|') {
        // `| "CMD"`: the command output goes to.
        let after = program[at + 1..].trim_start_matches('&').trim_start();
        out.extend(quoted(after));
        // `"CMD" | getline`: the command input comes from.
        let before = program[..at].trim_end();
        if before.ends_with('"') && program[at + 1..].trim_start().starts_with("getline") {
            let open = before[..before.len() - 1].rfind('"');
            if let Some(open) = open {
                out.extend(quoted(&before[open..]));
            }
        }
    }
    out
}

/// The double-quoted string `text` starts with, its escapes read (`\"`, `\\`, `\/`).
fn quoted(text: &str) -> Option<String> {
    let mut chars = text.trim_start().strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The values of `options` in `args`: `--long=v`, `--long v`, `-s v`, `-sv`.
fn option_values<'a>(
    args: &'a [String],
    options: &'static [&'static str],
) -> impl Iterator<Item = &'a str> {
    let mut words = args.iter().map(String::as_str).peekable();
    std::iter::from_fn(move || {
        while let Some(word) = words.next() {
            if word == "--" {
                return None;
            }
            for option in options {
                if word == *option {
                    return words.next();
                }
                let attached = if option.starts_with("--") {
                    // Programs take a long option by any prefix that names it alone
                    // (`--to-c` for `--to-command`): any prefix of two letters or more is
                    // read as it, which can only be stricter.
                    let (name, value) = word.split_once('=').unwrap_or((word, ""));
                    let prefix = name.len() >= 4 && option.starts_with(name);
                    if prefix && !word.contains('=') {
                        return words.next();
                    }
                    prefix.then_some(value).filter(|_| word.contains('='))
                } else {
                    word.strip_prefix(option).filter(|r| !r.is_empty())
                };
                if attached.is_some() {
                    return attached;
                }
            }
        }
        None
    })
}

/// The command a git setting runs: an `alias.*` that starts with `!`, a `pager.*`, and
/// [`GIT_COMMAND_KEYS`] (`credential.helper`'s `!cmd` form included).
fn setting_command<'a>(key: &str, value: &'a str) -> Option<&'a str> {
    let key = key.to_ascii_lowercase();
    if key.starts_with("alias.") {
        return value.strip_prefix('!');
    }
    // A driver's or a tool's command in any section (`diff.x.textconv`, `filter.x.smudge`,
    // `credential.https://h.helper`, `sendemail.toCmd`).
    let suffix = GIT_COMMAND_SUFFIXES.iter().any(|s| key.ends_with(s));
    (key.starts_with("pager.") || GIT_COMMAND_KEYS.contains(&key.as_str()) || suffix)
        .then(|| value.strip_prefix('!').unwrap_or(value))
}

/// What git runs because of a setting given on its command line (`git -c core.pager=CMD`,
/// `git config core.sshCommand CMD`), a `submodule foreach` command or a `bisect run`.
fn git_commands(args: &[String]) -> Vec<Cow<'_, str>> {
    let mut out: Vec<Cow<'_, str>> = Vec::new();
    let mut i = 0;
    // git's own options, before the subcommand: `-c key=value` any number of times.
    while let Some(a) = args
        .get(i)
        .map(String::as_str)
        .filter(|a| a.starts_with('-'))
    {
        let setting = match a {
            "-c" => {
                i += 1;
                args.get(i).map(String::as_str)
            }
            _ => a.strip_prefix("-c").filter(|v| v.contains('=')),
        };
        if let Some((key, value)) = setting.and_then(|kv| kv.split_once('=')) {
            out.extend(setting_command(key, value).map(Cow::Borrowed));
        }
        if matches!(
            a,
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            i += 1;
        }
        i += 1;
    }
    let rest = args.get(i..).unwrap_or_default();
    match rest.first().map(String::as_str) {
        Some("config") => {
            // `git config [options] KEY VALUE`, `git config set KEY VALUE`; the values of
            // `--file`/`-f`/`--blob`/`--type`/`--default` given as separate words are not operands.
            let mut operands = Vec::new();
            let mut words = rest[1..].iter().map(String::as_str);
            while let Some(w) = words.next() {
                if matches!(
                    w,
                    "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment"
                ) {
                    words.next();
                } else if !w.starts_with('-') {
                    operands.push(w);
                }
            }
            if operands.first() == Some(&"set") {
                operands.remove(0);
            }
            if let [key, value, ..] = operands[..] {
                out.extend(setting_command(key, value).map(Cow::Borrowed));
            }
        }
        // `git submodule foreach [--recursive] CMD…`: the words joined, run by the shell.
        Some("submodule") => {
            if let Some(at) = rest.iter().position(|a| a == "foreach") {
                let command: Vec<&str> = (rest[at + 1..].iter())
                    .map(String::as_str)
                    .skip_while(|a| a.starts_with("--"))
                    .collect();
                out.push(Cow::Owned(command.join(" ")));
            }
        }
        // `git bisect run CMD ARGS…`: an argv.
        Some("bisect") if rest.get(1).is_some_and(|a| a == "run") => {
            let argv: Vec<Cow<'_, str>> =
                rest[2..].iter().map(|w| crate::shell::quote(w)).collect();
            out.push(Cow::Owned(argv.join(" ")));
        }
        _ => {}
    }
    out
}
