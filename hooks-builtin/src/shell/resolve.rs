//! From a simple command's words to the command that runs: wrappers stripped, and the scripts
//! and commands it runs in turn queued.

use std::borrow::Cow;
use std::rc::Rc;

use super::parser::{ItemsFor, Parser, Result, Sink, Source, XargsHereDoc};
use super::terminals::Runs;
use super::{Command, Redirect, RedirectOp, ShellScript, quote};

/// A program that runs the command given after its options.
struct Wrapper {
    name: &'static str,
    /// Short options that take a value (`u` for `sudo -u root`).
    short: &'static str,
    /// Long options that take a value as the next word (`--user root`).
    long: &'static [&'static str],
    /// Operands before the command (the duration of `timeout 5 cmd`).
    operands: usize,
    /// `NAME=value` words may come before the command.
    assignments: bool,
    /// The command runs as another user.
    privileged: bool,
    /// A lone `-` is an option (`env -`, the same as `env -i`).
    dash: bool,
    /// The options whose value is the directory the command runs in (`env -C dir`): short
    /// letters, and long names.
    chdir: (&'static str, &'static [&'static str]),
    /// The subcommand that makes it a wrapper (`uv run cmd`; `uv pip …` runs nothing); empty
    /// for a wrapper by name alone.
    sub: &'static [&'static str],
    /// The subcommand is the command run (`k3s kubectl …` runs `kubectl …`).
    sub_is_command: bool,
}

const PLAIN: Wrapper = Wrapper {
    name: "",
    short: "",
    long: &[],
    operands: 0,
    assignments: false,
    privileged: false,
    dash: false,
    chdir: ("", &[]),
    sub: &[],
    sub_is_command: false,
};

/// Wrappers whose command follows their options, by name. `runuser` is one only with `-u`
/// (else it works like `su`); `flock FILE -c 'script'` runs a script.
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "sudo",
        short: "ugpCDrtUTR",
        long: &[
            "user",
            "group",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
            "host",
        ],
        assignments: true,
        privileged: true,
        chdir: ("D", &["chdir"]),
        ..PLAIN
    },
    Wrapper {
        name: "doas",
        short: "uC",
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "pkexec",
        long: &["user"],
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "run0",
        short: "ugD",
        long: &[
            "user",
            "group",
            "chdir",
            "setenv",
            "unit",
            "property",
            "description",
            "slice",
            "nice",
            "machine",
            "background",
        ],
        privileged: true,
        chdir: ("D", &["chdir"]),
        ..PLAIN
    },
    Wrapper {
        name: "runuser",
        short: "ugGws",
        long: &[
            "user",
            "group",
            "supp-group",
            "whitelist-environment",
            "shell",
        ],
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "gosu",
        operands: 1,
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "su-exec",
        operands: 1,
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "env",
        short: "uCSPLUa",
        long: &["unset", "chdir", "split-string", "argv0"],
        assignments: true,
        dash: true,
        chdir: ("C", &["chdir"]),
        ..PLAIN
    },
    Wrapper {
        name: "command",
        ..PLAIN
    },
    Wrapper {
        name: "builtin",
        ..PLAIN
    },
    Wrapper {
        name: "exec",
        short: "a",
        ..PLAIN
    },
    Wrapper {
        name: "coproc",
        ..PLAIN
    },
    // zsh: `noglob cmd`, `nocorrect cmd`, `- cmd`, `repeat 3 cmd`.
    Wrapper {
        name: "noglob",
        ..PLAIN
    },
    Wrapper {
        name: "nocorrect",
        ..PLAIN
    },
    Wrapper { name: "-", ..PLAIN },
    Wrapper {
        name: "repeat",
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "nohup",
        ..PLAIN
    },
    Wrapper {
        name: "time",
        short: "fo",
        long: &["format", "output"],
        ..PLAIN
    },
    Wrapper {
        name: "nice",
        short: "n",
        long: &["adjustment"],
        ..PLAIN
    },
    Wrapper {
        name: "timeout",
        short: "sk",
        long: &["signal", "kill-after"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "stdbuf",
        short: "ioe",
        long: &["input", "output", "error"],
        ..PLAIN
    },
    Wrapper {
        name: "ionice",
        short: "cnpPu",
        long: &["class", "classdata", "pid", "pgid", "uid"],
        ..PLAIN
    },
    Wrapper {
        name: "taskset",
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "chrt",
        short: "TPD",
        long: &["sched-runtime", "sched-period", "sched-deadline"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "setsid",
        ..PLAIN
    },
    // Environment runners: the command runs in a project's environment or on the host.
    Wrapper {
        name: "uv",
        sub: &["run"],
        short: "p",
        long: &[
            "with",
            "python",
            "project",
            "directory",
            "env-file",
            "package",
            "extra",
            "group",
            "index",
            "from",
            "with-requirements",
            "with-editable",
        ],
        chdir: ("", &["directory"]),
        ..PLAIN
    },
    Wrapper {
        name: "poetry",
        sub: &["run"],
        short: "CP",
        long: &["directory", "project"],
        chdir: ("C", &["directory"]),
        ..PLAIN
    },
    Wrapper {
        name: "pipx",
        sub: &["run"],
        long: &["spec", "python", "pip-args", "index-url"],
        ..PLAIN
    },
    Wrapper {
        name: "pdm",
        sub: &["run"],
        short: "pg",
        long: &["project", "venv"],
        ..PLAIN
    },
    Wrapper {
        name: "hatch",
        sub: &["run"],
        ..PLAIN
    },
    Wrapper {
        name: "pipenv",
        sub: &["run"],
        ..PLAIN
    },
    Wrapper {
        name: "conda",
        sub: &["run"],
        short: "np",
        long: &["name", "prefix", "cwd"],
        chdir: ("", &["cwd"]),
        ..PLAIN
    },
    Wrapper {
        name: "mamba",
        sub: &["run"],
        short: "np",
        long: &["name", "prefix", "cwd"],
        chdir: ("", &["cwd"]),
        ..PLAIN
    },
    Wrapper {
        name: "micromamba",
        sub: &["run"],
        short: "np",
        long: &["name", "prefix", "cwd"],
        chdir: ("", &["cwd"]),
        ..PLAIN
    },
    Wrapper {
        name: "bundle",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "k3s",
        sub: &["kubectl", "crictl", "ctr"],
        sub_is_command: true,
        ..PLAIN
    },
    Wrapper {
        name: "minikube",
        sub: &["kubectl"],
        sub_is_command: true,
        ..PLAIN
    },
    // `uv tool run`: runs the tool named, with the rest of the words.
    Wrapper {
        name: "uvx",
        short: "p",
        long: &[
            "from",
            "with",
            "python",
            "with-requirements",
            "index",
            "index-url",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "daemonize",
        short: "ceoplEu",
        chdir: ("c", &[]),
        ..PLAIN
    },
    Wrapper {
        name: "microk8s",
        sub: &["kubectl", "helm", "helm3", "ctr"],
        sub_is_command: true,
        ..PLAIN
    },
    Wrapper {
        name: "toolbox",
        sub: &["run"],
        short: "cdr",
        long: &["container", "distro", "release"],
        ..PLAIN
    },
    Wrapper {
        name: "flatpak-spawn",
        long: &[
            "directory",
            "env",
            "forward-fd",
            "sandbox-expose",
            "sandbox-expose-ro",
        ],
        chdir: ("", &["directory"]),
        ..PLAIN
    },
    Wrapper {
        name: "distrobox-host-exec",
        ..PLAIN
    },
    Wrapper {
        name: "dbus-launch",
        ..PLAIN
    },
    Wrapper {
        name: "dbus-run-session",
        ..PLAIN
    },
    Wrapper {
        name: "entr",
        ..PLAIN
    },
    Wrapper {
        name: "busybox",
        ..PLAIN
    },
    Wrapper {
        name: "toybox",
        ..PLAIN
    },
    Wrapper {
        name: "flock",
        short: "wE",
        long: &["timeout", "wait", "conflict-exit-code"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "chroot",
        long: &["userspec", "groups"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "unshare",
        short: "RwSG",
        long: &[
            "root",
            "wd",
            "setuid",
            "setgid",
            "propagation",
            "setgroups",
            "monotonic",
            "boottime",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
        ],
        chdir: ("w", &["wd"]),
        ..PLAIN
    },
    Wrapper {
        name: "nsenter",
        short: "tSGW",
        long: &["target", "setuid", "setgid", "wdns"],
        chdir: ("W", &["wd", "wdns"]),
        ..PLAIN
    },
    Wrapper {
        name: "systemd-run",
        short: "upEHM",
        long: &[
            "unit",
            "property",
            "description",
            "slice",
            "service-type",
            "uid",
            "gid",
            "nice",
            "working-directory",
            "setenv",
            "host",
            "machine",
            "on-active",
            "on-boot",
            "on-startup",
            "on-unit-active",
            "on-unit-inactive",
            "on-calendar",
            "timer-property",
            "path-property",
            "socket-property",
        ],
        // As a system service, as root, unless `--user`.
        privileged: true,
        chdir: ("", &["working-directory"]),
        ..PLAIN
    },
    Wrapper {
        name: "systemd-inhibit",
        long: &["what", "who", "why", "mode"],
        ..PLAIN
    },
    Wrapper {
        name: "dbus-run-session",
        long: &["config-file", "dbus-daemon"],
        ..PLAIN
    },
    Wrapper {
        name: "firejail",
        ..PLAIN
    },
    Wrapper {
        name: "proxychains",
        short: "f",
        ..PLAIN
    },
    Wrapper {
        name: "proxychains4",
        short: "f",
        ..PLAIN
    },
    Wrapper {
        name: "torsocks",
        short: "upaP",
        long: &["user", "pass", "address", "port"],
        ..PLAIN
    },
    Wrapper {
        name: "torify",
        ..PLAIN
    },
    Wrapper {
        name: "strace",
        short: "abeEIoOpPsSuXU",
        long: &[
            "output",
            "trace",
            "signal",
            "status",
            "user",
            "env",
            "attach",
            "trace-path",
            "string-limit",
            "summary-sort-by",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "ltrace",
        short: "aADeFlnopsuwx",
        long: &["output", "library"],
        ..PLAIN
    },
    Wrapper {
        name: "valgrind",
        ..PLAIN
    },
    Wrapper {
        name: "caffeinate",
        short: "tw",
        ..PLAIN
    },
    Wrapper {
        name: "xvfb-run",
        short: "efnpsw",
        long: &[
            "error-file",
            "auth-file",
            "server-num",
            "xauth-protocol",
            "server-args",
            "wait",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "faketime",
        short: "p",
        long: &["date-prog"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "fakeroot",
        short: "lsi",
        long: &["lib", "faked"],
        ..PLAIN
    },
    Wrapper {
        name: "eatmydata",
        ..PLAIN
    },
    Wrapper {
        name: "tini",
        short: "pe",
        ..PLAIN
    },
    Wrapper {
        name: "dumb-init",
        short: "r",
        long: &["rewrite"],
        ..PLAIN
    },
    Wrapper {
        name: "unbuffer",
        ..PLAIN
    },
    Wrapper {
        name: "sshpass",
        short: "pfdP",
        ..PLAIN
    },
    Wrapper {
        name: "numactl",
        short: "CNmip",
        long: &[
            "cpunodebind",
            "physcpubind",
            "membind",
            "interleave",
            "preferred",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "cpulimit",
        short: "lpe",
        long: &["limit", "pid", "exe"],
        ..PLAIN
    },
    Wrapper {
        name: "prlimit",
        short: "p",
        long: &["pid"],
        ..PLAIN
    },
    Wrapper {
        name: "cgexec",
        short: "g",
        ..PLAIN
    },
    Wrapper {
        name: "catchsegv",
        ..PLAIN
    },
    Wrapper {
        name: "chronic",
        ..PLAIN
    },
    Wrapper {
        name: "ifne",
        ..PLAIN
    },
];

/// Shells whose `-c` script, script on standard input, or here-document is parsed; `$SHELL`
/// and `$BASH` name one too.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "rbash", "csh", "tcsh",
    "$SHELL", "${SHELL}", "$BASH", "${BASH}",
];

/// `xargs` options that take a value.
const XARGS_SHORT: &str = "IdEaLnPs";
const XARGS_LONG: &[&str] = &[
    "delimiter",
    "arg-file",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// `parallel` options that take a value.
const PARALLEL_SHORT: &str = "jSadEINnLPsC";
const PARALLEL_LONG: &[&str] = &[
    "jobs",
    "sshlogin",
    "sshloginfile",
    "arg-file",
    "delimiter",
    "eof",
    "max-args",
    "max-replace-args",
    "max-lines",
    "max-procs",
    "max-chars",
    "colsep",
    "delay",
    "timeout",
    "joblog",
    "results",
    "tmpdir",
    "workdir",
    "wd",
    "retries",
    "memfree",
    "load",
    "tagstring",
    "env",
    "basefile",
    "transfer",
    "return",
    "header",
    "termseq",
    "arg-sep",
    "arg-file-sep",
];

/// `ssh` options that take a value.
const SSH_SHORT: &str = "BbcDEeFIiJLlmOopQRSWw";

/// `watch` options that take a value.
const WATCH_SHORT: &str = "nq";
const WATCH_LONG: &[&str] = &["interval", "equexit"];

/// `script` options that take a value (util-linux, then BSD and macOS).
const SCRIPT_SHORT: &str = "IOBTmEoc";
const SCRIPT_LONG: &[&str] = &[
    "log-in",
    "log-out",
    "log-io",
    "log-timing",
    "logging-format",
    "echo",
    "output-limit",
    "command",
];
const SCRIPT_BSD_SHORT: &str = "Ft";

impl Command {
    /// For a shell (`sh`, `bash`, `zsh`, `dash`, `ksh`, `fish`, …), where it reads the script
    /// it runs; `None` for other programs.
    ///
    /// ```
    /// use hookrail_builtin::shell::{parse, ShellScript};
    ///
    /// let script = parse("curl -fsSL https://x.invalid/i.sh | bash -s -- --yes")?;
    /// let bash = &script.pipelines[0].commands[1];
    /// assert_eq!(bash.shell_script(), Some(ShellScript::Stdin));
    /// # Ok::<(), hookrail_builtin::shell::ShellError>(())
    /// ```
    pub fn shell_script(&self) -> Option<ShellScript<'_>> {
        if !SHELLS.contains(&self.program.as_str()) {
            return None;
        }
        let (mut inline, mut stdin) = (false, false);
        let mut args = self.args.iter().map(String::as_str);
        let operand = loop {
            match args.next() {
                None => break None,
                Some("--") => break args.next(),
                Some("--rcfile" | "--init-file") => {
                    args.next();
                }
                // A lone `-` ends the options; the script is then read on standard input.
                Some("-") => break None,
                Some(a) if a.starts_with("--") => {}
                // `-o NAME` and `-O NAME` take the next word, also at the end of a cluster
                // (`-euo pipefail`).
                Some(a) if a.starts_with('+') && a.len() > 1 => {
                    if a.contains(['o', 'O']) {
                        args.next();
                    }
                }
                Some(a) if a.starts_with('-') && a.len() > 1 => {
                    inline |= a.contains('c');
                    stdin |= a.contains('s');
                    if a.contains(['o', 'O']) {
                        args.next();
                    }
                }
                Some(a) => break Some(a),
            }
        };
        Some(match operand {
            Some(script) if inline => ShellScript::Inline(script),
            None if inline => ShellScript::Inline(""),
            Some(_) if stdin => ShellScript::Stdin,
            Some(file) => ShellScript::File(file),
            None => ShellScript::Stdin,
        })
    }
}

/// The program a command word names: its file name, or for a substitution that looks a
/// program up (`$(which rm)`, `` `command -v rm` ``), that program.
fn program_name(word: &str) -> &str {
    let inner = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')));
    if let Some(inner) = inner {
        let mut tokens = inner.split_whitespace();
        let lookup = matches!(
            tokens.next(),
            Some("which" | "command" | "type" | "whence" | "realpath" | "readlink")
        );
        return match tokens.rfind(|t| !t.starts_with('-')) {
            Some(name) if lookup => basename(name),
            _ => word,
        };
    }
    command_name(word)
}

/// The value of the first of `names` in `args`: the next word, or after `=` for a long one.
fn option_value<'a>(args: &'a [String], names: &[&str]) -> Option<&'a str> {
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        for name in names {
            if word == *name {
                return words.next();
            }
            if let Some(value) = word
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('='))
                .filter(|_| name.starts_with("--"))
            {
                return Some(value);
            }
        }
    }
    None
}

/// The program a plain command word runs: its file name, and for zsh's `=rm` (the path of
/// `rm`), `rm`; for a program that is another under a new name ([`SAME_AS`]), that one.
fn command_name(word: &str) -> &str {
    let word = word
        .strip_prefix('=')
        .filter(|rest| !rest.is_empty() && !rest.starts_with(['=', '(']))
        .unwrap_or(word);
    let name = basename(word);
    SAME_AS
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, program)| program)
}

/// Programs that take another's arguments and run it: judged as that one.
const SAME_AS: &[(&str, &str)] = &[("kubecolor", "kubectl")];

/// `rm` for `/bin/rm`; a word whose last part is a substitution (`$(curl …/x)`) is kept whole.
fn basename(word: &str) -> &str {
    // A word that splits on `$IFS` (`cat${IFS}/etc/passwd`) is not a path: kept whole.
    if word.contains("$IFS") || word.contains("${IFS") {
        return word;
    }
    let last = word
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if last.is_empty() || last.contains(['(', ')', '`']) {
        word
    } else {
        last
    }
}

/// An option, as [`walk_options`] reports it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Opt<'a> {
    Short(char),
    Long(&'a str),
}

/// Walks the options at the start of `args`, given the short and long options that take a
/// value: `f` gets each option with its value (`None` for a flag). Returns how many words they
/// span; a `--` is counted and ends them. With `dash`, a lone `-` is an option.
pub(super) fn walk_options<'a>(
    args: &'a [String],
    short: &str,
    long: &[&str],
    dash: bool,
    mut f: impl FnMut(Opt<'a>, Option<&'a str>),
) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return i + 1;
        }
        if let Some(name) = arg.strip_prefix("--") {
            i += match name.split_once('=') {
                Some((name, value)) => {
                    f(Opt::Long(name), Some(value));
                    1
                }
                None if long.contains(&name) => {
                    f(Opt::Long(name), args.get(i + 1).map(String::as_str));
                    2
                }
                None => {
                    f(Opt::Long(name), None);
                    1
                }
            };
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            // `-u root`, `-Eu root`: a value option takes the next word when it ends its
            // cluster, else the rest of the cluster (`-uroot`).
            let mut step = 1;
            for (at, c) in cluster.char_indices() {
                if short.contains(c) {
                    match cluster.get(at + c.len_utf8()..).unwrap_or_default() {
                        "" => {
                            f(Opt::Short(c), args.get(i + 1).map(String::as_str));
                            step = 2;
                        }
                        rest => f(Opt::Short(c), Some(rest)),
                    }
                    break;
                }
                f(Opt::Short(c), None);
            }
            i += step;
        } else if dash && arg == "-" {
            i += 1;
        } else {
            break;
        }
    }
    i.min(args.len())
}

/// How many of `args` are options, given the short and long options that take a value.
fn options(args: &[String], short: &str, long: &[&str]) -> usize {
    walk_options(args, short, long, false, |_, _| {})
}

/// The value of `env -S`/`--split-string` among env's options: its index, how many words it
/// spans, and the value.
fn env_split(args: &[String]) -> Option<(usize, usize, String)> {
    let env = WRAPPERS.iter().find(|w| w.name == "env")?;
    let options = walk_options(args, env.short, env.long, true, |_, _| {});
    args[..options].iter().enumerate().find_map(|(i, arg)| {
        let value = |inline: &str| match inline {
            "" => args.get(i + 1).map(|v| (i, 2, v.clone())),
            v => Some((i, 1, v.to_owned())),
        };
        if arg == "--split-string" {
            value("")
        } else if let Some(v) = arg.strip_prefix("--split-string=") {
            Some((i, 1, v.to_owned()))
        } else if arg.starts_with('-') && !arg.starts_with("--") {
            // The first value option of the cluster takes the rest: `-uS` is `-u S`.
            let cluster = &arg[1..];
            let first = cluster.find(|c| env.short.contains(c))?;
            cluster[first..].strip_prefix('S').and_then(value)
        } else {
            None
        }
    })
}

/// `dir` joined with `target`: a relative `target` adds to it (`cd a && cd b` is `a/b`).
pub(super) fn join_dir(dir: Option<String>, target: &str) -> String {
    match dir {
        Some(dir) if !target.starts_with(['/', '~', '$']) => format!("{dir}/{target}"),
        _ => target.to_owned(),
    }
}

/// A command with its wrappers stripped.
struct Stripped {
    /// The words from the program on.
    words: Vec<String>,
    privileged: bool,
    /// The directory a wrapper runs it in (`env -C dir`), relative to where it was run.
    dir: Option<String>,
    /// The assignments of the wrappers (`env X=1`, `sudo X=1`).
    assignments: Vec<String>,
}

/// Strips the wrappers in front of the command.
fn strip(mut words: Vec<String>, mut privileged: bool, sink: &mut Sink) -> Result<Stripped> {
    let mut i = 0;
    let mut dir = None;
    while let Some(word) = words.get(i) {
        let name = command_name(word);
        let Some(w) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        let sub = usize::from(!w.sub.is_empty());
        if sub == 1
            && !words
                .get(i + 1)
                .is_some_and(|a| w.sub.contains(&a.as_str()))
        {
            break; // `uv pip install`: not the subcommand that runs a command
        }
        if w.sub_is_command {
            privileged |= w.privileged;
            i += 1;
            continue;
        }
        let args = &words[i + 1 + sub..];
        if w.name == "command"
            && args
                .first()
                .is_some_and(|a| a.starts_with('-') && a.contains(['v', 'V']))
        {
            break; // `command -v rm` looks `rm` up, it does not run it
        }
        if w.name == "env"
            && let Some((at, len, value)) = env_split(args)
        {
            // The splice moves every word after it.
            sink.charge(words.len() - i)?;
            let at = i + 1 + at;
            words.splice(at..at + len, value.split_whitespace().map(str::to_owned));
            continue;
        }
        let (mut chdir, mut user, mut user_unit) = (None, false, false);
        let options = walk_options(args, w.short, w.long, w.dash, |opt, value| {
            let (short, long) = w.chdir;
            match opt {
                Opt::Short(c) if short.contains(c) => chdir = value,
                Opt::Long(l) if long.contains(&l) => chdir = value,
                _ => {}
            }
            user |= matches!(opt, Opt::Short('u') | Opt::Long("user"));
            user_unit |= opt == Opt::Long("user");
        });
        if w.name == "runuser" && !user {
            break; // `runuser bob -c 'script'` works like `su`
        }
        let mut skip = 1 + sub + options;
        if w.assignments {
            skip += words[(i + skip).min(words.len())..]
                .iter()
                .take_while(|a| is_env_assignment(a))
                .count();
        }
        skip += w.operands;
        if i + skip >= words.len() {
            break; // nothing to run: the wrapper is the command (`sudo -i`)
        }
        if w.name == "flock"
            && (words[i + skip].starts_with("-c") || words[i + skip].starts_with("--command"))
        {
            break; // `flock FILE -c 'script'`
        }
        privileged |= w.privileged && !(w.name == "systemd-run" && user_unit);
        if let Some(target) = chdir {
            let joined = join_dir(dir, target);
            sink.charge(joined.len())?;
            dir = Some(joined);
        }
        i += skip;
    }
    let assignments = words.drain(..i).filter(|w| is_env_assignment(w)).collect();
    Ok(Stripped {
        words,
        privileged,
        dir,
        assignments,
    })
}

/// The script of `su [-] [user] -c 'script'` (and `runuser`).
fn su_script(args: &[String]) -> Option<&str> {
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
fn sg_script(args: &[String]) -> Option<String> {
    let mut args = args.iter().skip_while(|a| *a == "-").skip(1).peekable();
    args.next_if(|a| *a == "-c");
    let script: Vec<&str> = args.map(String::as_str).collect();
    (!script.is_empty()).then(|| script.join(" "))
}

/// The body of `trap BODY SIGNAL…`, which runs when a signal or `EXIT` comes: not for
/// `trap -p`/`-l`, `trap - SIG` or `trap '' SIG`, nor `trap SIG` (a reset).
fn trap_body(args: &[String]) -> Option<&str> {
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
fn find_actions(args: &[String]) -> Vec<Vec<String>> {
    let mut actions = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command = args.by_ref().take_while(|a| *a != ";" && *a != "+");
            actions.push(command.cloned().collect());
        }
    }
    actions
}

/// The host and remote command of `ssh [options] host [options] [command …]`.
fn ssh_remote(args: &[String]) -> Option<&[String]> {
    let host = options(args, SSH_SHORT, &[]);
    let rest = args.get(host + 1..)?;
    // Options may follow the host too (`ssh host -p 22 cmd`).
    let more = match rest.first() {
        Some(a) if a.starts_with('-') => options(rest, SSH_SHORT, &[]),
        _ => 0,
    };
    rest.get(more..)
}

/// The scripts `parallel` runs: its command with each input (`::: a b`; without those, each
/// line of `stdin` when it is known) put in place of `{}` (quoted, as parallel does) or added
/// at the end, or each input itself when there is no command. `max` bounds the bytes
/// produced; `None` past it.
fn parallel_scripts(args: &[String], stdin: Option<&str>, max: usize) -> Option<Vec<String>> {
    let (mut replace, mut arg_sep, mut file_sep) = (None, ":::", "::::");
    let mut quoted = false;
    let options = walk_options(
        args,
        PARALLEL_SHORT,
        PARALLEL_LONG,
        false,
        |opt, value| match (opt, value) {
            (Opt::Short('I'), Some(v)) => replace = Some(v),
            (Opt::Long("arg-sep"), Some(v)) => arg_sep = v,
            (Opt::Long("arg-file-sep"), Some(v)) => file_sep = v,
            // `-q` keeps the command's words as they are (`parallel -q sh -c 'rm {}'`).
            (Opt::Short('q') | Opt::Long("quote"), _) => quoted = true,
            _ => {}
        },
    );
    let rest = &args[options..];
    let is_sep = |a: &str| {
        a == arg_sep
            || a == file_sep
            || a.strip_suffix('+')
                .is_some_and(|a| a == arg_sep || a == file_sep)
    };
    let end = rest.iter().position(|a| is_sep(a)).unwrap_or(rest.len());
    let template = if quoted {
        let words: Vec<Cow<'_, str>> = rest[..end].iter().map(|w| quote(w)).collect();
        words.join(" ")
    } else {
        rest[..end].join(" ")
    };
    let mut inputs = Vec::new();
    let mut values = false;
    // `:::: -` (or `/dev/stdin`) reads the inputs from standard input too.
    let mut from_stdin = end == rest.len();
    for arg in &rest[end..] {
        if is_sep(arg) {
            values = arg.trim_end_matches('+') == arg_sep;
        } else if values {
            inputs.push(arg.as_str());
        } else if matches!(arg.as_str(), "-" | "/dev/stdin" | "/dev/fd/0") {
            from_stdin = true;
        }
    }
    // With no `:::` input, parallel reads its inputs from standard input, a line each.
    if from_stdin && let Some(stdin) = stdin {
        inputs.extend(stdin.lines().filter(|l| !l.trim().is_empty()));
    }
    if template.is_empty() {
        return Some(inputs.into_iter().map(str::to_owned).collect());
    }
    if inputs.is_empty() {
        return Some(vec![template]);
    }
    let mut slots: Vec<&str> = vec!["{}", "{.}", "{/}", "{//}", "{/.}"];
    slots.extend([
        "{1}", "{2}", "{3}", "{4}", "{5}", "{6}", "{7}", "{8}", "{9}",
    ]);
    slots.extend(replace);
    let mut budget = max;
    let mut scripts = Vec::with_capacity(inputs.len());
    for input in inputs {
        budget = budget.checked_sub(template.len() + input.len() + 1)?;
        let value = quote(input);
        let mut script = template.clone();
        for slot in &slots {
            if script.contains(slot) {
                script = script.replace(slot, &value);
            }
        }
        if script == template {
            script = format!("{template} {value}");
        }
        budget = budget.checked_sub(script.len())?;
        scripts.push(script);
    }
    Some(scripts)
}

/// An assignment to `env` or `sudo`: any word with a `=` after its first character, a name
/// the shell would not take included (`BASH_FUNC_ls%%=…`), as both programs read it.
fn is_env_assignment(word: &str) -> bool {
    word.find('=').is_some_and(|at| at > 0)
}

/// What `xargs` runs, given the input it reads: one command with every input word added, or
/// with `-I R`, one per input line with `R` replaced by it. `max` bounds the bytes produced;
/// `None` past it.
fn xargs_runs(args: &[String], input: &str, max: usize) -> Option<Vec<Vec<String>>> {
    let mut replace = None;
    let mut quotes = true;
    let options = walk_options(
        args,
        XARGS_SHORT,
        XARGS_LONG,
        false,
        |opt, value| match opt {
            Opt::Short('I') => replace = value,
            Opt::Short('i') | Opt::Long("replace") => replace = Some(value.unwrap_or("{}")),
            // A delimiter turns quote processing off.
            Opt::Short('0' | 'd') | Opt::Long("null" | "delimiter") => quotes = false,
            _ => {}
        },
    );
    let command = &args[options..];
    if command.is_empty() {
        return Some(Vec::new()); // `echo`
    }
    let size: usize = command.iter().map(|w| w.len() + 1).sum();
    match replace.filter(|r| !r.is_empty()) {
        Some(r) => {
            let lines = input.lines().map(str::trim_start).filter(|l| !l.is_empty());
            let mut budget = max;
            let mut runs = Vec::new();
            for line in lines {
                budget = budget.checked_sub(size + line.len())?;
                let line = if quotes {
                    xargs_words(line, false).concat()
                } else {
                    line.to_owned()
                };
                let run: Vec<String> = command.iter().map(|w| w.replace(r, &line)).collect();
                budget = budget.checked_sub(run.iter().map(String::len).sum())?;
                runs.push(run);
            }
            Some(runs)
        }
        None => {
            max.checked_sub(size + input.len())?;
            let mut words = command.to_vec();
            if quotes {
                words.extend(xargs_words(input, true));
            } else {
                words.extend(input.split_whitespace().map(str::to_owned));
            }
            Some(vec![words])
        }
    }
}

/// The items xargs reads from `input` by default: blank-separated (`split`; with `-I` a line
/// is one item), with `'…'` and `"…"` quoting (no escapes inside) and a backslash escaping the
/// next character outside them.
fn xargs_words(input: &str, split: bool) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = input.chars();
    while let Some(c) = chars.next() {
        match c {
            c if split && c.is_whitespace() => words.extend(word.take()),
            '\'' | '"' => {
                let text = word.get_or_insert_with(String::new);
                text.extend(chars.by_ref().take_while(|&q| q != c));
            }
            '\\' => {
                let text = word.get_or_insert_with(String::new);
                text.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// What a command writes to standard output when it is a literal script: `echo` and
/// `printf` text, and `cat` of a here-document or here-string.
fn output_script(slot: (usize, usize), command: &Command) -> Option<Source> {
    let text = match command.program.as_str() {
        "echo" => {
            let flags = command.args.iter().take_while(|a| {
                a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
            });
            command.args[flags.count()..].join(" ")
        }
        "printf" => match command.args.split_first() {
            Some((format, values)) => printf(format, values),
            None => return None,
        },
        "cat" if command.args.is_empty() => return stdin_script(slot, command)?,
        _ => return None,
    };
    Some(Source::Text(text.replace("\\n", "\n")))
}

/// What `script` prints when it is one `echo` or `printf` of literal words.
fn literal_script_output(script: &str) -> Option<String> {
    let parsed = super::parse(script).ok()?;
    match &parsed.pipelines[..] {
        [pipeline] => match &pipeline.commands[..] {
            [command] => literal_output(command),
            _ => None,
        },
        _ => None,
    }
}

/// What an `echo` or `printf` of literal words prints, newline included; `None` for any
/// other command.
pub(super) fn literal_output(command: &Command) -> Option<String> {
    let echo_newline = command.program == "echo"
        && !command
            .args
            .iter()
            .take_while(|a| a.len() > 1 && a.starts_with('-'))
            .any(|a| a.contains('n'));
    match output_script((0, 0), command)? {
        Source::Text(text) if command.program != "cat" => {
            Some(if echo_newline { text + "\n" } else { text })
        }
        _ => None,
    }
}

/// What `printf FORMAT VALUES…` prints: each conversion (`%s`, `%d`, `%b`, `%-10s`, …) takes
/// the next value, and the format is reused while values remain, as the shell does.
fn printf(format: &str, values: &[String]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            if chars.peek() == Some(&'%') {
                chars.next();
                out.push('%');
                continue;
            }
            // Flags, width and precision, then the conversion letter.
            while chars.next_if(|c| "-+ #0123456789.*".contains(*c)).is_some() {}
            chars.next();
            used = true;
            if let Some(value) = values.next() {
                out.push_str(value);
            }
        }
        if !used || values.len() == 0 {
            return out;
        }
    }
}

/// What a command reads on standard input when a redirection says so: `Some(None)` for a
/// file, `None` when nothing redirects it.
fn stdin_script((pi, ci): (usize, usize), command: &Command) -> Option<Option<Source>> {
    let (ri, r) = command
        .redirects
        .iter()
        .enumerate()
        .rev()
        .find(|(_, r)| r.reads_stdin())?;
    Some(match r.op {
        RedirectOp::HereString => Some(Source::Text(r.target.clone())),
        RedirectOp::HereDoc => Some(Source::HereDoc((pi, ci, ri))),
        _ => None,
    })
}

/// The script a shell reads from one of its own descriptors (`bash 3<<<'…' /dev/fd/3`,
/// `sh /proc/self/fd/4 4<<EOF`): the here-string or here-document on it.
fn fd_script((pi, ci): (usize, usize), command: &Command) -> Option<Source> {
    let Some(ShellScript::File(file)) = command.shell_script() else {
        return None;
    };
    let fd: u32 = (file.strip_prefix("/dev/fd/"))
        .or_else(|| file.strip_prefix("/proc/self/fd/"))?
        .parse()
        .ok()?;
    // The last redirection of that descriptor is the one it holds.
    let reads = |op| {
        matches!(
            op,
            RedirectOp::In
                | RedirectOp::ReadWrite
                | RedirectOp::DupIn
                | RedirectOp::HereDoc
                | RedirectOp::HereString
        )
    };
    let (ri, r) = (command.redirects.iter().enumerate().rev())
        .find(|(_, r)| r.fd.unwrap_or(if reads(r.op) { 0 } else { 1 }) == fd)?;
    match r.op {
        RedirectOp::HereString => Some(Source::Text(r.target.clone())),
        RedirectOp::HereDoc => Some(Source::HereDoc((pi, ci, ri))),
        _ => None,
    }
}

/// `crontab -` (or `crontab` with no file) installs the table it reads on standard input.
fn crontab_reads_stdin(args: &[String]) -> bool {
    let n = options(args, "u", &[]);
    let other = (args[..n].iter()).any(|a| !a.starts_with("--") && a.contains(['l', 'r', 'e']));
    !other && args.len() <= n + 1 && args.get(n).is_none_or(|a| a == "-")
}

/// The commands of a crontab: each entry's text after its schedule (five fields, or one
/// `@reboot`-like word), up to its first unescaped `%` (the rest is the command's input). The
/// commands run in the home directory. Comments and `NAME=value` lines run nothing.
fn crontab_commands(table: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in table.lines().map(str::trim_start) {
        if line.is_empty() || line.starts_with('#') || super::lex::is_assignment(line) {
            continue;
        }
        let fields = if line.starts_with('@') { 1 } else { 5 };
        let mut rest = line;
        for _ in 0..fields {
            rest = rest.trim_start();
            rest = rest.find(char::is_whitespace).map_or("", |at| &rest[at..]);
        }
        let mut command = String::new();
        let mut chars = rest.trim().chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('%') => command.push('%'),
                    Some(n) => {
                        command.push('\\');
                        command.push(n);
                    }
                    None => command.push('\\'),
                },
                '%' => break,
                c => command.push(c),
            }
        }
        if !command.is_empty() {
            out.push(command);
        }
    }
    out
}

/// A command that runs the script it reads on standard input.
struct StdinReader {
    privileged: bool,
    /// On another machine (`ssh host`), in its home directory.
    remote: bool,
}

impl Parser<'_, '_> {
    /// The command `words` run, after stripping wrappers; the scripts and commands it runs in
    /// turn (`bash -c`, `eval`, `su -c`, `trap`, `xargs`, `find -exec`, `ssh`, …) are queued or
    /// added.
    pub(super) fn resolve(
        &mut self,
        words: Vec<String>,
        redirects: Vec<Redirect>,
        privileged: bool,
    ) -> Result<Command> {
        // A name `hash -p` bound runs that program (the shell's own lookup: not after a
        // wrapper, which looks the name up itself).
        let mut words = words;
        if let Some(first) = words.first_mut()
            && let Some((_, path)) = self
                .sink
                .hashed
                .iter()
                .rev()
                .find(|(name, _)| name == first)
        {
            *first = path.clone();
        }
        let stripped = strip(words, privileged, self.sink)?;
        let (mut words, privileged) = (stripped.words, stripped.privileged);
        let dir = match stripped.dir {
            Some(target) => Some(join_dir(self.dir.clone(), &target)),
            None => self.dir.clone(),
        };
        let program = words.first().map(|w| program_name(w).to_owned());
        let by_path = words.first().is_some_and(|w| w.contains('/'));
        let args = words.split_off(words.len().min(1));
        let program = program.unwrap_or_default();
        let command = Command {
            privileged: privileged || matches!(program.as_str(), "su" | "runuser"),
            program,
            by_path,
            args,
            redirects,
            dir,
            assignments: stripped.assignments,
        };
        let (args, dir) = (&command.args, &command.dir);
        let text = |s: &str| Source::Text(s.to_owned());
        match command.program.as_str() {
            "eval" => self.queue_task(text(&args.join(" ")), privileged, dir.clone(), false)?,
            "su" | "runuser" => {
                if let Some(script) = su_script(args) {
                    self.queue_task(text(script), true, dir.clone(), false)?;
                }
            }
            "sg" => {
                if let Some(script) = sg_script(args) {
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            "trap" => {
                if let Some(body) = trap_body(args) {
                    self.queue_task(text(body), privileged, dir.clone(), false)?;
                }
            }
            "alias" => {
                for value in args.iter().filter_map(|a| a.split_once('=')) {
                    self.queue_task(text(value.1), privileged, dir.clone(), false)?;
                }
            }
            "watch" => {
                let mut exec = false;
                let n = walk_options(args, WATCH_SHORT, WATCH_LONG, false, |opt, _| {
                    exec |= matches!(opt, Opt::Short('x') | Opt::Long("exec"));
                });
                if exec {
                    self.nested_command(args[n..].to_vec(), privileged, dir)?;
                } else if n < args.len() {
                    let script = args[n..].join(" ");
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            "xterm" | "uxterm" | "rxvt" | "urxvt" | "alacritty" | "konsole" | "st" | "tmux"
            | "screen" => match super::terminals::runs(&command.program, args) {
                Some(Runs::Words(words)) => self.nested_command(words, privileged, dir)?,
                Some(Runs::Scripts(scripts)) => {
                    for script in scripts {
                        self.queue_task(Source::Text(script), privileged, dir.clone(), false)?;
                    }
                }
                None => {}
            },
            // `npx -c 'cmd'`, `npm exec -c 'cmd'` (`npm x`) run a shell command.
            "npx" | "npm"
                if command.program == "npx"
                    || args
                        .first()
                        .is_some_and(|a| matches!(a.as_str(), "exec" | "x")) =>
            {
                if let Some(script) = option_value(args, &["-c", "--call"]) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            // `mapfile -C cmd` runs cmd (with words added) every `-c` lines.
            "mapfile" | "readarray" => {
                let mut callback = None;
                walk_options(args, "dnOsuCc", &[], false, |opt, value| {
                    if opt == Opt::Short('C') {
                        callback = value;
                    }
                });
                if let Some(callback) = callback {
                    self.queue_task(text(callback), privileged, dir.clone(), false)?;
                }
            }
            "xargs" => {
                let nested = &args[options(args, XARGS_SHORT, XARGS_LONG)..];
                self.nested_command(nested.to_vec(), privileged, dir)?;
                // `xargs -a <(echo /) rm -rf`: the items are what a literal substitution prints.
                if let Some(input) = option_value(args, &["-a", "--arg-file"])
                    .and_then(|file| file.strip_prefix("<(")?.strip_suffix(')'))
                    .and_then(literal_script_output)
                {
                    let runs = xargs_runs(args, &input, self.sink.fuel())
                        .ok_or(super::ShellError::TooComplex)?;
                    for run in runs {
                        self.nested_command(run, privileged, dir)?;
                    }
                }
            }
            "parallel" => {
                let scripts = parallel_scripts(args, None, self.sink.fuel())
                    .ok_or(super::ShellError::TooComplex)?;
                for script in scripts {
                    self.queue_task(Source::Text(script), privileged, dir.clone(), false)?;
                }
            }
            "find" => {
                for action in find_actions(args) {
                    self.nested_command(action, privileged, dir)?;
                }
            }
            "ssh" => {
                if let Some(remote) = ssh_remote(args).filter(|r| !r.is_empty()) {
                    let script = remote.join(" ");
                    self.queue_script(text(&script), false, Some("~".into()), false, None)?;
                }
            }
            // Other ways to run a command on another machine, judged there as `ssh host cmd`
            // is: `gcloud compute ssh VM --command CMD`, `ansible HOSTS -a CMD` (the `command`,
            // `shell` and `raw` modules take a command line).
            "gcloud" | "ansible" => {
                let script = if command.program == "gcloud" {
                    args.iter()
                        .any(|a| a == "ssh")
                        .then(|| option_value(args, &["--command"]))
                        .flatten()
                } else {
                    option_value(args, &["-a", "--args"])
                };
                if let Some(script) = script {
                    self.queue_script(text(script), false, Some("~".into()), false, None)?;
                }
            }
            "script" => {
                let mut script = None;
                walk_options(args, SCRIPT_SHORT, SCRIPT_LONG, false, |opt, value| {
                    if matches!(opt, Opt::Short('c') | Opt::Long("command")) {
                        script = value;
                    }
                });
                if let Some(script) = script {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
                // BSD and macOS: `script [options] FILE COMMAND…`.
                let operands = &args[options(args, SCRIPT_BSD_SHORT, &[])..];
                if let Some(nested) = operands.get(1..).filter(|n| !n.is_empty()) {
                    self.nested_command(nested.to_vec(), privileged, dir)?;
                }
            }
            "flock" => {
                let file = options(args, "wE", &["timeout", "wait", "conflict-exit-code"]);
                let script = match args.get(file + 1).map(String::as_str) {
                    Some("-c" | "--command") => args.get(file + 2).map(String::as_str),
                    Some(a) => a
                        .strip_prefix("--command=")
                        .or_else(|| a.strip_prefix("-c").filter(|s| !s.is_empty())),
                    None => None,
                };
                if let Some(script) = script {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            _ => {}
        }
        if let Some(ShellScript::Inline(script)) = command.shell_script() {
            // `sh -c 'script' name arg…`: `$0` is `name`, `$1` is the first `arg`.
            let at = args.iter().position(|a| std::ptr::eq(a.as_str(), script));
            let operands = at.map_or(&[][..], |at| &args[at + 1..]);
            self.sink.charge(operands.iter().map(String::len).sum())?;
            let positional: Rc<[String]> = match operands {
                [] => Rc::from([command.program.clone()]),
                operands => operands.into(),
            };
            let source = text(script);
            let privileged = command.privileged;
            self.queue_script(source, privileged, dir.clone(), false, Some(positional))?;
        }
        Ok(command)
    }

    /// Follows `cd DIR`: relative directories add up, `cd` alone goes home.
    pub(super) fn change_dir(&mut self, args: &[String], cdpath: bool) {
        let target = args.iter().find(|a| !a.starts_with('-') || *a == "-");
        let target = match target.map(String::as_str) {
            None => "~",
            Some("-") => "$OLDPWD",
            // With `CDPATH` set, `cd usr` may go to `/usr`: where is not known.
            Some(t) if cdpath && !t.starts_with(['/', '~', '.', '$']) => {
                self.dir = Some(join_dir(self.dir.take(), &format!("$CDPATH/{t}")));
                return;
            }
            Some(t) => t,
        };
        self.dir = Some(join_dir(self.dir.take(), target));
    }

    /// Adds a command that another one runs (`xargs rm`), running in `dir`, as a pipeline of
    /// its own.
    fn nested_command(
        &mut self,
        words: Vec<String>,
        privileged: bool,
        dir: &Option<String>,
    ) -> Result<()> {
        if words.is_empty() {
            return Ok(());
        }
        self.sink.charge(words.iter().map(|w| w.len() + 1).sum())?;
        let outer = std::mem::replace(&mut self.dir, dir.clone());
        let result = self.nested(|p| {
            let command = p.resolve(words, Vec::new(), privileged)?;
            p.new_pipeline(command).map(drop)
        });
        self.dir = outer;
        result
    }

    /// When `command` runs the script it reads on standard input: a shell with no script
    /// operand (`bash`, `sh -s`), `ssh host` with no remote command or one that is such a shell
    /// (`ssh host 'sudo bash'`), and `at`/`batch`.
    fn stdin_reader(&mut self, command: &Command) -> Result<Option<StdinReader>> {
        if command.shell_script() == Some(ShellScript::Stdin) {
            return Ok(Some(StdinReader {
                privileged: command.privileged,
                remote: false,
            }));
        }
        Ok(match command.program.as_str() {
            "at" | "batch" => {
                let from_file = command
                    .args
                    .iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('f'));
                (!from_file).then_some(StdinReader {
                    privileged: command.privileged,
                    remote: false,
                })
            }
            "ssh" => {
                let Some(remote) = ssh_remote(&command.args) else {
                    return Ok(None);
                };
                // Wrappers, the program and its options are enough to tell.
                let words: Vec<String> = remote
                    .iter()
                    .flat_map(|w| w.split_whitespace())
                    .take(64)
                    .map(str::to_owned)
                    .collect();
                let stripped = strip(words, false, self.sink)?;
                let shell = match stripped.words.split_first() {
                    None => true,
                    Some((program, args)) => {
                        let remote = Command {
                            program: program_name(program).to_owned(),
                            args: args.to_vec(),
                            ..Command::default()
                        };
                        remote.shell_script() == Some(ShellScript::Stdin)
                    }
                };
                shell.then_some(StdinReader {
                    privileged: stripped.privileged,
                    remote: true,
                })
            }
            _ => None,
        })
    }

    /// Queues the scripts that commands in pipeline `pi` read on standard input: a
    /// here-document or here-string (`bash <<EOF`), or what the previous stage prints
    /// (`echo … | sh`); and adds what `xargs` runs with such input (`echo / | xargs rm -rf`).
    pub(super) fn stdin_scripts(&mut self, pi: usize) -> Result<()> {
        let Some(pipeline) = self.sink.script.pipelines.get(pi) else {
            return Ok(());
        };
        let candidates: Vec<usize> = (pipeline.commands.iter().enumerate())
            .filter(|(_, c)| {
                let program = c.program.as_str();
                SHELLS.contains(&program)
                    || matches!(
                        program,
                        "at" | "batch" | "ssh" | "xargs" | "parallel" | "crontab"
                    )
            })
            .map(|(ci, _)| ci)
            .collect();
        let mut scripts = Vec::new();
        let mut runs = Vec::new();
        for ci in candidates {
            let command = self.sink.script.pipelines[pi].commands[ci].clone();
            self.sink.charge(command.args.len())?;
            if let Some(source) = fd_script((pi, ci), &command) {
                scripts.push((source, command.privileged, command.dir.clone()));
                continue;
            }
            let reader = self.stdin_reader(&command)?;
            let takes_items = matches!(command.program.as_str(), "xargs" | "parallel")
                || (command.program == "crontab" && crontab_reads_stdin(&command.args));
            if reader.is_none() && !takes_items {
                continue;
            }
            let pipeline = &self.sink.script.pipelines[pi];
            let source = match stdin_script((pi, ci), &command) {
                Some(source) => source,
                None => ci
                    .checked_sub(1)
                    .and_then(|prev| output_script((pi, prev), pipeline.commands.get(prev)?)),
            };
            match (reader, source) {
                (Some(reader), Some(source)) => {
                    let dir = if reader.remote {
                        Some("~".to_owned())
                    } else {
                        command.dir.clone()
                    };
                    scripts.push((source, reader.privileged, dir));
                }
                (None, Some(Source::Text(input))) if command.program == "crontab" => {
                    self.sink.charge(input.len())?;
                    for script in crontab_commands(&input) {
                        let source = Source::Text(script);
                        scripts.push((source, command.privileged, Some("~".to_owned())));
                    }
                }
                (None, Some(Source::Text(input))) if command.program == "parallel" => {
                    self.sink.charge(input.len())?;
                    let parallel = parallel_scripts(&command.args, Some(&input), self.sink.fuel());
                    for script in parallel.ok_or(super::ShellError::TooComplex)? {
                        let source = Source::Text(script);
                        scripts.push((source, command.privileged, command.dir.clone()));
                    }
                }
                (None, Some(Source::Text(input))) => {
                    self.sink.charge(input.len())?;
                    let xargs = xargs_runs(&command.args, &input, self.sink.fuel());
                    for run in xargs.ok_or(super::ShellError::TooComplex)? {
                        runs.push((run, command.privileged, command.dir.clone()));
                    }
                }
                // Its body comes after the line: what xargs runs is added once it is read.
                (None, Some(Source::HereDoc(input))) => {
                    let reads = match command.program.as_str() {
                        "parallel" => ItemsFor::Parallel,
                        "crontab" => ItemsFor::Crontab,
                        _ => ItemsFor::Xargs,
                    };
                    self.xargs_heredocs.push(XargsHereDoc {
                        input,
                        reads,
                        args: command.args.clone(),
                        privileged: command.privileged,
                        dir: command.dir.clone(),
                    });
                }
                _ => {}
            }
        }
        for (source, privileged, dir) in scripts {
            self.queue_task(source, privileged, dir, false)?;
        }
        for (words, privileged, dir) in runs {
            self.nested_command(words, privileged, &dir)?;
        }
        Ok(())
    }

    /// Adds what `xargs ARGS` (or `parallel ARGS`) runs with `input` on its standard input.
    pub(super) fn xargs_runs_of(&mut self, xargs: &XargsHereDoc, input: &str) -> Result<()> {
        let XargsHereDoc {
            args,
            privileged,
            dir,
            reads,
            ..
        } = xargs;
        self.sink.charge(input.len())?;
        let scripts = match reads {
            ItemsFor::Xargs => None,
            ItemsFor::Parallel => Some(
                parallel_scripts(args, Some(input), self.sink.fuel())
                    .ok_or(super::ShellError::TooComplex)?,
            ),
            ItemsFor::Crontab => Some(crontab_commands(input)),
        };
        if let Some(scripts) = scripts {
            let dir = if *reads == ItemsFor::Crontab {
                Some("~".to_owned())
            } else {
                dir.clone()
            };
            for script in scripts {
                self.queue_task(Source::Text(script), *privileged, dir.clone(), false)?;
            }
            return Ok(());
        }
        let privileged = *privileged;
        let runs =
            xargs_runs(args, input, self.sink.fuel()).ok_or(super::ShellError::TooComplex)?;
        for run in runs {
            self.nested_command(run, privileged, dir)?;
        }
        Ok(())
    }
}
