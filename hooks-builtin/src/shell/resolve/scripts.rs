//! Where in its words a command keeps the script it runs: `su -c`, `sg`, `trap`, `find
//! -exec`, `ssh host cmd`, `vagrant ssh -c`, `nix run pkg -- args`.

use super::wrappers::{self, SSH_SHORT};
use super::{Opt, options, walk_options};

/// The script of `su [-] [user] -c 'script'` (and `runuser`).
pub(super) fn su_script(args: &[String]) -> Option<&str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if let Some(script) = arg
            .strip_prefix("--command=")
            .or_else(|| arg.strip_prefix("--session-command="))
        {
            return Some(script);
        }
        let short_c = arg.starts_with('-') && !arg.starts_with("--") && arg.ends_with('c');
        if short_c || arg == "--command" || arg == "--session-command" {
            return args.next().map(String::as_str);
        }
    }
    None
}

/// The script of `sg [-] group [-c] 'script'`, run by `/bin/sh -c`.
pub(super) fn sg_script(args: &[String]) -> Option<String> {
    let mut args = args.iter().skip_while(|a| *a == "-").skip(1).peekable();
    args.next_if(|a| *a == "-c");
    let script: Vec<&str> = args.map(String::as_str).collect();
    (!script.is_empty()).then(|| script.join(" "))
}

/// The body of `trap BODY SIGNAL…`, which runs when a signal or `EXIT` comes: not for
/// `trap -p`/`-l`, `trap - SIG` or `trap '' SIG`, nor `trap SIG` (a reset).
pub(super) fn trap_body(args: &[String]) -> Option<&str> {
    let mut listing = false;
    let options = walk_options(args, "", &[], false, |opt, _| {
        listing |= matches!(opt, Opt::Short('p' | 'l' | 'P'));
    });
    let operands = &args[options..];
    let body = operands.first()?;
    let reset = body == "-" || body.is_empty() || body.bytes().all(|b| b.is_ascii_digit());
    (!listing && !reset && operands.len() >= 2).then_some(body.as_str())
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions.
///
/// `{}` stands for each file found: a path under each of find's starting points (`find /etc
/// -exec sed -i … {} +` edits `/etc/{found}`), which the rules judge by place.
pub(super) fn find_actions(args: &[String]) -> Vec<Vec<String>> {
    // The starting points: the words before the expression (`.` when there are none).
    let roots: Vec<&str> = (args.iter().map(String::as_str))
        .take_while(|a| !a.starts_with('-') && !matches!(*a, "(" | "!" | ","))
        .filter(|a| !a.is_empty())
        .take(4)
        .collect();
    let roots = if roots.is_empty() { vec!["."] } else { roots };
    let mut actions = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command: Vec<&String> = words
                .by_ref()
                .take_while(|a| *a != ";" && *a != "+")
                .collect();
            if !command.iter().any(|w| w.contains("{}")) || arg.ends_with("dir") {
                actions.push(command.into_iter().cloned().collect());
                continue;
            }
            for root in &roots {
                let found = format!("{}/{{found}}", root.trim_end_matches('/'));
                actions.push(command.iter().map(|w| w.replace("{}", &found)).collect());
            }
        }
    }
    actions
}

/// fd's options that take a value.
const FD_VALUES: &[&str] = &[
    "-e",
    "--extension",
    "-t",
    "--type",
    "-d",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "-E",
    "--exclude",
    "-S",
    "--size",
    "--changed-within",
    "--changed-before",
    "-j",
    "--threads",
    "--base-directory",
    "-c",
    "--color",
    "-o",
    "--owner",
    "--ignore-file",
    "--max-results",
    "--search-path",
    "--path-separator",
    "--format",
    "--batch-size",
];

/// `fd [options] [PATTERN] [ROOT…] -x|-X CMD…` as the `find ROOT… -exec CMD {} +` that does
/// the same (`--search-path` roots too; `.` when none), or `None` without `-x`/`-X`.
pub(super) fn fd_as_find(args: &[String]) -> Option<Vec<String>> {
    let mut positional: Vec<&str> = Vec::new();
    let mut roots: Vec<&str> = Vec::new();
    let mut command: Option<Vec<String>> = None;
    let mut base: Option<&str> = None;
    let mut words = args.iter().map(String::as_str);
    let mut operands_only = false;
    while let Some(word) = words.next() {
        // `-xrm`, `--exec=rm`: the command's first word written on to the option.
        let attached = (word.strip_prefix("--exec-batch="))
            .or_else(|| word.strip_prefix("--exec="))
            .or_else(|| word.strip_prefix("-X").filter(|w| !w.is_empty()))
            .or_else(|| word.strip_prefix("-x").filter(|w| !w.is_empty()));
        match word {
            w if operands_only || w == "-" => positional.push(w),
            "--" => operands_only = true,
            "-x" | "--exec" | "-X" | "--exec-batch" => {
                command = Some(
                    (words.by_ref())
                        .take_while(|w| *w != ";")
                        .map(str::to_owned)
                        .collect(),
                );
            }
            _ if attached.is_some() && !word.starts_with("--") || word.starts_with("--exec") => {
                let first = attached.into_iter().map(str::to_owned);
                command = Some(
                    first
                        .chain(
                            (words.by_ref())
                                .take_while(|w| *w != ";")
                                .map(str::to_owned),
                        )
                        .collect(),
                );
            }
            "--search-path" => roots.extend(words.next()),
            w if w.starts_with("--search-path=") => roots.push(&w["--search-path=".len()..]),
            "--base-directory" => base = words.next(),
            w if w.starts_with("--base-directory=") => base = Some(&w["--base-directory=".len()..]),
            w if FD_VALUES.contains(&w) => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w => positional.push(w),
        }
    }
    let command = command.filter(|c| !c.is_empty())?;
    roots.extend(positional.iter().skip(1));
    if roots.is_empty() {
        roots.push(".");
    }
    // `--base-directory DIR`: the search, and relative roots, start there.
    let roots: Vec<String> = (roots.into_iter())
        .map(|root| match base {
            Some(base) if !root.starts_with(['/', '~']) => format!("{base}/{root}"),
            _ => root.to_owned(),
        })
        .collect();
    let mut find: Vec<String> = std::iter::once("find".to_owned()).chain(roots).collect();
    // A plain-word pattern selects the names holding it, as `-name '*word*'` does; any other
    // (a regular expression that may match every name: `.`, `$`, `x*`) selects nothing. Its
    // extensions select as `-name '*.EXT'`.
    let plain = |p: &str| {
        p.len() >= 2
            && p.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
    };
    if let Some(pattern) = positional.first().filter(|p| plain(p)) {
        find.extend(["-name".to_owned(), format!("*{pattern}*")]);
    }
    for (at, word) in args.iter().enumerate() {
        if matches!(word.as_str(), "-e" | "--extension")
            && let Some(extension) = args.get(at + 1)
        {
            find.extend(["-name".to_owned(), format!("*.{extension}")]);
        }
    }
    find.push("-exec".to_owned());
    let placeholder = command.iter().any(|w| w.contains("{}"));
    find.extend(command);
    if !placeholder {
        find.push("{}".to_owned());
    }
    find.push("+".to_owned());
    Some(find)
}

/// Whether `find ARGS` prints the paths it finds and nothing else (no action, `-print`,
/// `-print0`): not when an action prints something else or runs a command (`-printf`, `-ls`,
/// `-exec`).
pub(super) fn find_prints_paths(args: &[String]) -> bool {
    const OTHER_OUTPUT: &[&str] = &[
        "-printf", "-fprintf", "-fprint", "-fprint0", "-ls", "-fls", "-exec", "-execdir", "-ok",
        "-okdir",
    ];
    !args.iter().any(|a| OTHER_OUTPUT.contains(&a.as_str()))
}

/// The host and remote command of `ssh [options] host [options] [command …]`.
pub(super) fn ssh_remote(args: &[String]) -> Option<&[String]> {
    let host = options(args, SSH_SHORT, &[]);
    let rest = args.get(host + 1..)?;
    // Options may follow the host too (`ssh host -p 22 cmd`).
    let more = match rest.first() {
        Some(a) if a.starts_with('-') => options(rest, SSH_SHORT, &[]),
        _ => 0,
    };
    rest.get(more..)
}

/// The script `vagrant ssh` runs on the machine: `-c CMD` (`-cCMD`, `--command[=]CMD`), or
/// what follows `--`, which it hands to ssh as its command.
pub(super) fn vagrant_ssh_script(args: &[String]) -> Option<String> {
    let at = args.iter().position(|a| !a.starts_with('-'))?;
    if args[at] != "ssh" {
        return None;
    }
    let mut words = args[at + 1..].iter().map(String::as_str);
    while let Some(word) = words.next() {
        match word {
            "--" => {
                let tail: Vec<&str> = words.collect();
                return (!tail.is_empty()).then(|| tail.join(" "));
            }
            "-c" | "--command" => return words.next().map(str::to_owned),
            w if w.starts_with("--command=") => return Some(w["--command=".len()..].to_owned()),
            w if w.starts_with("-c") => return Some(w[2..].to_owned()),
            _ => {}
        }
    }
    None
}

/// The command `nix run INSTALLABLE [-- ARGS]` runs: the installable's program (its
/// attribute's last name: `bash` of `nixpkgs#bash`, of `nixpkgs#bash^out`, of `-f
/// '<nixpkgs>' bash`, of `--expr '(import <nixpkgs> {}).bash'`) and the words after `--`;
/// `None` for another subcommand, or an installable without an attribute (a flake's default
/// app).
pub(super) fn nix_run(args: &[String]) -> Option<Vec<String>> {
    // Options that take two values.
    const TWO: &[&str] = &[
        "--arg",
        "--argstr",
        "--option",
        "--override-input",
        "--override-flake",
    ];
    let nix = wrappers::find("nix")?;
    let global = walk_options(args, nix.global.0, nix.global.1, false, |_, _| {});
    if args.get(global).map(String::as_str) != Some("run") {
        return None;
    }
    let mut words = args[global + 1..].iter().map(String::as_str);
    let (mut file, mut expr, mut installable) = (false, None, None);
    // The words after the installable are the program's (`nix run nixpkgs#rimraf ~`), and a
    // `--` among the options ends them (`nix run -- nixpkgs#rimraf ~`).
    while let Some(word) = words.next() {
        match word {
            "--" => {
                if installable.is_none() && expr.is_none() {
                    installable = words.next();
                }
                break;
            }
            _ if installable.is_some() => {
                // The program's words start at the installable; a `--` after it only
                // separates them.
                let mut after: Vec<String> = vec![word.to_owned()];
                after.extend(words.by_ref().map(str::to_owned));
                return nix_program(installable, expr, file, after);
            }
            "-f" | "--file" => file = words.next().is_some(),
            "--expr" => expr = words.next(),
            w if TWO.contains(&w) => {
                words.next();
                words.next();
            }
            w if w.starts_with("--") && !w.contains('=') && nix.long.contains(&&w[2..]) => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w if installable.is_none() => installable = Some(w),
            _ => {}
        }
    }
    let after: Vec<String> = words.map(str::to_owned).collect();
    nix_program(installable, expr, file, after)
}

/// The program an installable names (`bash` of `nixpkgs#bash`), run with `after`.
fn nix_program(
    installable: Option<&str>,
    expr: Option<&str>,
    file: bool,
    after: Vec<String>,
) -> Option<Vec<String>> {
    // The main program of attributes named otherwise.
    const PROGRAMS: &[(&str, &str)] = &[("bashInteractive", "bash"), ("python3Full", "python3")];
    let attribute = match (installable, expr) {
        (Some(i), _) if file || expr.is_some() => i,
        (Some(i), _) => i.split_once('#')?.1,
        (None, Some(expr)) => expr.trim_end_matches([')', ' ']),
        (None, None) => return None,
    };
    let attribute = attribute.split('^').next().unwrap_or(attribute);
    let name = attribute.rsplit('.').next().filter(|p| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_+".contains(c))
    })?;
    let program = (PROGRAMS.iter().find(|(attr, _)| *attr == name)).map_or(name, |(_, p)| p);
    Some(std::iter::once(program.to_owned()).chain(after).collect())
}

/// The shell command npm's and pnpm's runners run instead of a package: `npx -c CMD`, `npm
/// exec --call CMD`, `pnpm exec -c CMD` (`--shell-mode`), `pnpm dlx -c CMD`, in every form
/// their parsers take: `-cCMD`, `-c=CMD`, bundled (`-yc CMD`), `--call=CMD`, an unambiguous
/// prefix (`--cal`), before or after the subcommand. The options end at the first operand
/// (the package, or `exec`'s command) or `--`.
pub(super) fn npm_shell_command<'a>(program: &str, args: &'a [String]) -> Option<&'a str> {
    // Long options that take a value: npx's (the wrapper table's), and pnpm's `--dir` and
    // `--filter`.
    let npx = wrappers::find("npx").map_or(&[][..], |w| w.long);
    let takes_value = |name: &str| npx.contains(&name) || matches!(name, "dir" | "filter");
    let mut sub_seen = matches!(program, "npx" | "pnpx");
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if !word.starts_with('-') || word == "-" {
            if !sub_seen && matches!(word, "exec" | "x" | "dlx") {
                sub_seen = true;
                continue;
            }
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            let shell = (name.len() >= 3 && "call".starts_with(name))
                || (name.len() >= 7 && "shell-mode".starts_with(name));
            if shell {
                return inline.or_else(|| words.next());
            }
            if inline.is_none() && takes_value(name) {
                words.next();
            }
            continue;
        }
        let cluster = &word[1..];
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            match c {
                'c' => {
                    let value = rest.strip_prefix('=').unwrap_or(rest);
                    return if value.is_empty() {
                        words.next()
                    } else {
                        Some(value)
                    };
                }
                'p' | 'w' | 'C' | 'F' => {
                    if rest.is_empty() {
                        words.next();
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    None
}

/// The command `bwrap OPTIONS cmd` runs: after its options, some of which take two values
/// (`--bind SRC DEST`), or after `--`.
pub(super) fn bwrap_command(args: &[String]) -> Option<&[String]> {
    const TWO: &[&str] = &[
        "--bind",
        "--bind-try",
        "--dev-bind",
        "--dev-bind-try",
        "--ro-bind",
        "--ro-bind-try",
        "--symlink",
        "--setenv",
        "--file",
        "--bind-data",
        "--ro-bind-data",
        "--chmod",
    ];
    const ONE: &[&str] = &[
        "--remount-ro",
        "--overlay-src",
        "--tmpfs",
        "--dir",
        "--proc",
        "--dev",
        "--mqueue",
        "--chdir",
        "--unsetenv",
        "--uid",
        "--gid",
        "--hostname",
        "--lock-file",
        "--sync-fd",
        "--info-fd",
        "--json-status-fd",
        "--block-fd",
        "--userns-block-fd",
        "--seccomp",
        "--add-seccomp-fd",
        "--userns",
        "--userns2",
        "--pidns",
        "--exec-label",
        "--file-label",
        "--args",
        "--cap-add",
        "--cap-drop",
        "--perms",
        "--size",
        "--argv0",
        "--overlay",
        "--tmp-overlay",
        "--ro-overlay",
    ];
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += match word.as_str() {
            "--" => return args.get(at + 1..).filter(|c| !c.is_empty()),
            w if TWO.contains(&w) => 3,
            w if ONE.contains(&w) => 2,
            w if w.starts_with("--") => 1,
            _ => return Some(&args[at..]),
        };
    }
    None
}

/// The command lines `concurrently` runs: each operand, the values of its options apart.
pub(super) fn concurrently_scripts(args: &[String]) -> Vec<&str> {
    const VALUES: &[&str] = &[
        "-n",
        "--names",
        "-c",
        "--prefix-colors",
        "-p",
        "--prefix",
        "-l",
        "--prefix-length",
        "-t",
        "--timestamp-format",
        "-m",
        "--max-processes",
        "-s",
        "--success",
        "--kill-signal",
        "--restart-tries",
        "--restart-after",
        "--default-input-target",
        "--name-separator",
        "--pad-prefix",
    ];
    let mut scripts = Vec::new();
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if word.starts_with('-') {
            if VALUES.contains(&word) {
                words.next();
            }
        } else {
            scripts.push(word);
        }
    }
    scripts
}

/// The command `pdsh`, `pssh`/`parallel-ssh` or `clush` runs on every host: its words after
/// the options, the values of those that take one apart.
pub(super) fn multi_host_command(program: &str, args: &[String]) -> String {
    let (short, long): (&str, &[&str]) = match program {
        "pdsh" | "prsh" => ("wxlRfgtuNMX", &[]),
        "clush" => (
            "wxgXflotuRNEBO",
            &[
                "nodes", "group", "exclude", "fanout", "user", "options", "worker", "remote",
                "rcopy", "dest", "pick", "topology", "conf",
            ],
        ),
        _ => (
            "hHlpoetOxX",
            &[
                "hosts",
                "host",
                "user",
                "par",
                "outdir",
                "errdir",
                "timeout",
                "option",
                "extra-args",
                "extra-arg",
            ],
        ),
    };
    let options = options(args, short, long);
    args[options..].join(" ")
}
