//! The wrappers and the options of the programs whose command the parser follows, as data:
//! a new wrapper is a table entry, not code.

/// A program that runs the command given after its options.
pub(super) struct Wrapper {
    pub(super) name: &'static str,
    /// Short options that take a value (`u` for `sudo -u root`).
    pub(super) short: &'static str,
    /// Long options that take a value as the next word (`--user root`).
    pub(super) long: &'static [&'static str],
    /// Operands before the command (the duration of `timeout 5 cmd`).
    pub(super) operands: usize,
    /// `NAME=value` words may come before the command.
    pub(super) assignments: bool,
    /// The command runs as another user.
    pub(super) privileged: bool,
    /// A lone `-` is an option (`env -`, the same as `env -i`).
    pub(super) dash: bool,
    /// The options whose value is the directory the command runs in (`env -C dir`): short
    /// letters, and long names.
    pub(super) chdir: (&'static str, &'static [&'static str]),
    /// The subcommand that makes it a wrapper (`uv run cmd`; `uv pip …` runs nothing); empty
    /// for a wrapper by name alone.
    pub(super) sub: &'static [&'static str],
    /// The subcommand is the command run (`k3s kubectl …` runs `kubectl …`).
    pub(super) sub_is_command: bool,
    /// Options that may stand between the name and the subcommand (`kubectl -n prod exec`,
    /// `docker -H host exec`): short letters and long names that take a value.
    pub(super) global: (&'static str, &'static [&'static str]),
    /// Words that may stand right before the subcommand (`docker container exec`, `docker
    /// compose exec`).
    pub(super) group: &'static [&'static str],
    /// Operands of the group word before its options (`NAME` of `yarn workspace NAME exec`,
    /// `foreach` of `yarn workspaces foreach -A exec`).
    pub(super) group_operands: usize,
    /// Options that stand in for the operands (`podman exec -l`: the latest container):
    /// short letters and long names.
    pub(super) instead: (&'static str, &'static [&'static str]),
    /// Words after the subcommand that start the command, whatever stands before them:
    /// `--` for `kubectl exec pod -c app -- cmd` (options may follow the pod), `-c` for `nix
    /// develop .#shell -c cmd`.
    pub(super) starts: &'static [&'static str],
    /// The command runs on another machine or in a container: in its home directory (`~`),
    /// unless a `chdir` option says where (`docker exec -w /app`), as `ssh host cmd` does.
    pub(super) remote: bool,
    /// The command is a package, which may be pinned to a version (`bunx rimraf@5`).
    pub(super) package: bool,
    /// An operand that stands before its options unless it looks like one (the architecture
    /// of `setarch ARCH -R cmd`).
    pub(super) lead: bool,
    /// An option, given first, whose value is the program run (`coreutils
    /// --coreutils-prog=rm -rf x` runs `rm -rf x`).
    pub(super) program_option: &'static str,
    /// Short options with which it runs nothing (`command -v rm` looks `rm` up).
    pub(super) lookup: &'static str,
    /// `-S STRING`/`--split-string=STRING` gives the command as one string, split into words
    /// (`env -S 'rm -rf /'`).
    pub(super) split_string: bool,
    /// Options without which it runs no command of its words (`runuser -u bob cmd`;
    /// `runuser bob -c 'script'` works like `su`): short letters and long names.
    pub(super) only_with: (&'static str, &'static [&'static str]),
    /// Without options, a first operand with a `:` is a context before the command (`runcon
    /// user_u:role_r:type_t cmd`).
    pub(super) context: bool,
    /// Options after the operands that run a shell command line instead of a command (`flock
    /// FILE -c 'script'`: the script is judged in resolve.rs).
    pub(super) line_options: &'static [&'static str],
    /// Long options that make a privileged wrapper run the command as the caller
    /// (`systemd-run --user cmd`).
    pub(super) as_caller: &'static [&'static str],
    /// Subcommands that run their words as one shell command line (`yarn exec 'rm -rf ~'`).
    pub(super) line_subs: &'static [&'static str],
    /// Options before the subcommand that make its words one shell command line (`pnpm -c
    /// exec 'cmd'`, `pnpm --shell-mode exec …`): short letters and long names.
    pub(super) line_global: (&'static str, &'static [&'static str]),
    /// A first operand that names a version may stand before the command (`nvm exec 20
    /// cmd`, `nvm exec lts/iron cmd`; `nvm exec cmd` takes the version from `.nvmrc`).
    pub(super) version: bool,
    /// Without a `--`, its last word is the command line and the words before it operands,
    /// however many (`scl enable c1 c2 'cmd'`; `scl enable c1 c2 -- cmd args`).
    pub(super) last_line: bool,
    /// Words that may follow its options before the command, skipped with the long options
    /// after them (python-dotenv's `dotenv -f F run --override cmd`, where dotenv-cli's
    /// `dotenv -e F -- cmd` has none).
    pub(super) then: &'static [&'static str],
    /// Its own subcommands, which in the command's place run nothing: it is the command
    /// (python-dotenv's `dotenv list`, `dotenv get KEY`).
    pub(super) own: &'static [&'static str],
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
    global: ("", &[]),
    group: &[],
    group_operands: 0,
    instead: ("", &[]),
    starts: &[],
    remote: false,
    package: false,
    lead: false,
    program_option: "",
    lookup: "",
    split_string: false,
    only_with: ("", &[]),
    context: false,
    line_options: &[],
    as_caller: &[],
    line_subs: &[],
    line_global: ("", &[]),
    version: false,
    last_line: false,
    then: &[],
    own: &[],
};

use std::collections::HashMap;
use std::sync::LazyLock;

mod containers;
mod runners;
mod sandboxes;

/// Every wrapper: the ones below, the environment and package runners ([`runners`]), the
/// container and pod shells ([`containers`]) and the sandboxes ([`sandboxes`]).
fn all() -> impl Iterator<Item = &'static Wrapper> {
    WRAPPERS
        .iter()
        .chain(runners::RUNNERS)
        .chain(containers::CONTAINERS)
        .chain(sandboxes::SANDBOXES)
}

/// The wrapper called `name`, if there is one. Every command of a script asks, so the ~120
/// wrappers are looked up by name rather than walked.
pub(super) fn find(name: &str) -> Option<&'static Wrapper> {
    static BY_NAME: LazyLock<HashMap<&'static str, &'static Wrapper>> =
        LazyLock::new(|| all().map(|w| (w.name, w)).collect());
    BY_NAME.get(name).copied()
}

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
        only_with: ("u", &["user"]),
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
        split_string: true,
        ..PLAIN
    },
    Wrapper {
        name: "command",
        lookup: "vV",
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
    // Git Bash's console wrapper for Windows programs (`winpty node`).
    Wrapper {
        name: "winpty",
        long: &["title"],
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
        name: "entr",
        ..PLAIN
    },
    Wrapper {
        name: "busybox",
        ..PLAIN
    },
    // `setarch ARCH [options] cmd` (the architecture: strip.rs), and its aliases by
    // architecture name; `fakechroot cmd`; `host-spawn cmd` (a toolbox's host).
    Wrapper {
        name: "setarch",
        lead: true,
        ..PLAIN
    },
    Wrapper {
        name: "linux32",
        ..PLAIN
    },
    Wrapper {
        name: "linux64",
        ..PLAIN
    },
    Wrapper {
        name: "fakechroot",
        short: "ebcdls",
        long: &[
            "environment",
            "bindir",
            "config-dir",
            "use-system-libs",
            "lib",
            "library",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "host-spawn",
        ..PLAIN
    },
    // `machinectl shell [USER@]MACHINE cmd`: in a container, as root unless a user is named.
    Wrapper {
        name: "machinectl",
        sub: &["shell"],
        global: (
            "MpoHn",
            &[
                "machine", "property", "output", "host", "lines", "uid", "setenv",
            ],
        ),
        long: &["uid", "setenv"],
        short: "E",
        operands: 1,
        remote: true,
        ..PLAIN
    },
    // GNU coreutils built as one program (`coreutils rm -rf x`; `--coreutils-prog=rm`:
    // strip.rs).
    Wrapper {
        name: "coreutils",
        program_option: "--coreutils-prog=",
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
        line_options: &["-c", "--command"],
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
        as_caller: &["user"],
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
        name: "rlwrap",
        short: "bCDefFgHlMOPqsStwz",
        long: &[
            "break-chars",
            "command-name",
            "file",
            "history-filename",
            "histsize",
            "forget-matching",
            "filter",
            "prompt-colour",
            "substitute-prompt",
            "set-term-name",
            "extra-char-after-completion",
            "extra-char-before-completion",
            "multi-line",
            "multi-line-ext",
            "logfile",
            "polling",
        ],
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
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "rbash", "csh", "tcsh",
    "$SHELL", "${SHELL}", "$BASH", "${BASH}",
    // Shells of other grammars, whose `-c` commands read alike (`nu -c 'rm -rf ~'`).
    "nu", "xonsh", "elvish", "rc", "osh", "ysh", "oil", "es", "posh", "oksh", "loksh",
];

/// `xargs` options that take a value (GNU's, and BSD's `-J`, `-R`, `-S`).
pub(super) const XARGS_SHORT: &str = "IdEaLnPsJRS";
pub(super) const XARGS_LONG: &[&str] = &[
    "delimiter",
    "arg-file",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// `parallel` options that take a value.
pub(super) const PARALLEL_SHORT: &str = "jSadEINnLPsC";
pub(super) const PARALLEL_LONG: &[&str] = &[
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

/// tar's short options that take a value (GNU tar 1.35): in a cluster the first of them takes
/// the next word, in the old bundle without a dash (`tar cIf 'CMD' a .`) each takes the next
/// word in turn. The filesystem pack's `[options.tar]` lists the same letters (a test checks).
pub(crate) const TAR_SHORT: &str = "bCfFgHIKLNTVX";

/// `ssh` options that take a value.
pub(super) const SSH_SHORT: &str = "BbcDEeFIiJLlmOopQRSWw";

/// `watch` options that take a value.
pub(super) const WATCH_SHORT: &str = "nq";
pub(super) const WATCH_LONG: &[&str] = &["interval", "equexit"];

/// `script` options that take a value (util-linux, then BSD and macOS).
pub(super) const SCRIPT_SHORT: &str = "IOBTmEoc";
pub(super) const SCRIPT_LONG: &[&str] = &[
    "log-in",
    "log-out",
    "log-io",
    "log-timing",
    "logging-format",
    "echo",
    "output-limit",
    "command",
];
pub(super) const SCRIPT_BSD_SHORT: &str = "Ft";

#[cfg(test)]
mod tests {
    use super::*;

    /// A second entry of one name would never be found: the first would shadow it.
    #[test]
    fn every_wrapper_has_its_own_name() {
        let mut seen = std::collections::HashSet::new();
        for w in all() {
            assert!(seen.insert(w.name), "`{}` is listed twice", w.name);
        }
        assert_eq!(find("sudo").map(|w| w.name), Some("sudo"));
        assert!(find("rm").is_none());
    }
}
