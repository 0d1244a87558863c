//! Environment and package runners: the command runs in a project's environment (`uv run`,
//! `poetry run`, `conda run`), through a package runner (`npm exec`, `bunx`), or on the host.

use super::{PLAIN, Wrapper};

/// `conda run -n ENV cmd`; mamba and micromamba read the same words.
const CONDA: Wrapper = Wrapper {
    name: "conda",
    sub: &["run"],
    short: "np",
    long: &["name", "prefix", "cwd"],
    chdir: ("", &["cwd"]),
    ..PLAIN
};

/// `npx rimraf@5 dist` (and `pnpx`): the package's program, after npm 10's `exec` options
/// and the common config ones. `-c`/`--call` run a shell command instead: taken as a value,
/// it leaves no command to unwrap, and `npx -c 'cmd'` is judged as a script (resolve.rs).
const NPX: Wrapper = Wrapper {
    name: "npx",
    short: "pcw",
    long: &[
        "package",
        "call",
        "workspace",
        "prefix",
        "registry",
        "loglevel",
        "cache",
        "userconfig",
    ],
    package: true,
    ..PLAIN
};

pub(super) const RUNNERS: &[Wrapper] = &[
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
        name: "rye",
        sub: &["run"],
        long: &["pyproject"],
        ..PLAIN
    },
    Wrapper {
        name: "pixi",
        sub: &["run", "exec"],
        short: "es",
        long: &[
            "environment",
            "manifest-path",
            "spec",
            "channel",
            "platform",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "devbox",
        sub: &["run"],
        short: "ce",
        long: &["config", "environment", "env-file", "env"],
        ..PLAIN
    },
    // `direnv exec DIR cmd`: the command runs here, with DIR's environment.
    Wrapper {
        name: "direnv",
        sub: &["exec"],
        operands: 1,
        ..PLAIN
    },
    // JavaScript package runners: the command is a package's program or one on the PATH.
    Wrapper {
        name: "npm",
        sub: &["exec", "x"],
        // `-c`/`--call` run a shell command instead: taken as a value, it leaves no command
        // to unwrap, and `npm exec -c 'cmd'` is judged as a script (resolve.rs).
        short: "wc",
        long: &[
            "package",
            "workspace",
            "prefix",
            "call",
            "registry",
            "loglevel",
            "cache",
            "userconfig",
        ],
        global: (
            "w",
            &[
                "prefix",
                "workspace",
                "registry",
                "loglevel",
                "cache",
                "userconfig",
            ],
        ),
        package: true,
        ..PLAIN
    },
    Wrapper {
        name: "pnpm",
        sub: &["exec", "dlx"],
        // `-c`/`--shell-mode` run the command in a shell: as for npm's `-c`.
        short: "Cc",
        long: &["dir", "filter", "package", "shell-mode"],
        global: ("CF", &["dir", "filter"]),
        chdir: ("C", &["dir"]),
        package: true,
        line_global: ("c", &["shell-mode"]),
        ..PLAIN
    },
    Wrapper {
        name: "yarn",
        sub: &["exec", "dlx"],
        short: "p",
        long: &["package", "cwd"],
        // `yarn workspace NAME exec …`, `yarn workspaces foreach -A exec …`: run in the
        // workspaces.
        group: &["workspace", "workspaces"],
        group_operands: 1,
        global: ("j", &["cwd", "include", "exclude", "from", "jobs"]),
        chdir: ("", &["cwd"]),
        package: true,
        line_subs: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "bun",
        sub: &["x"],
        short: "p",
        long: &["package", "cwd"],
        global: ("", &["filter", "cwd"]),
        package: true,
        ..PLAIN
    },
    NPX,
    Wrapper {
        name: "pnpx",
        ..NPX
    },
    // @antfu/ni's `nlx`, as npx.
    Wrapper { name: "nlx", ..NPX },
    // `cross-env X=1 cmd`: variables, then the command.
    Wrapper {
        name: "cross-env",
        assignments: true,
        ..PLAIN
    },
    // `dotenv -e .env.test -- jest` (dotenv-cli): the command after its options or `--`;
    // `dotenv -f .env run jest` (python-dotenv): after `run` and its options.
    Wrapper {
        name: "dotenv",
        short: "evpcfq",
        long: &["file", "quote", "export"],
        starts: &["--"],
        then: &["run"],
        own: &["list", "get", "set", "unset"],
        ..PLAIN
    },
    // `env-cmd -f .env.test jest`: the command after its options.
    Wrapper {
        name: "env-cmd",
        short: "fer",
        long: &["file", "environments", "rc-file"],
        ..PLAIN
    },
    // `perf stat -e cycles cmd`, `perf record -g -o x.data cmd`, `perf trace cmd`.
    Wrapper {
        name: "perf",
        sub: &["record", "stat", "trace"],
        short: "eptocFCGmrjxID",
        long: &[
            "event",
            "pid",
            "tid",
            "output",
            "count",
            "freq",
            "cpu",
            "cgroup",
            "mmap-pages",
            "repeat",
            "field-separator",
            "interval-print",
            "delay",
            "call-graph",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "dotenv-cli",
        short: "evpc",
        starts: &["--"],
        ..PLAIN
    },
    // `onchange 'src/**' -- cmd`: the command after `--`.
    Wrapper {
        name: "onchange",
        short: "idkjp",
        long: &[
            "initial",
            "delay",
            "kill",
            "jobs",
            "poll",
            "exclude",
            "cwd",
            "await-write-finish",
            "outpost",
        ],
        starts: &["--"],
        ..PLAIN
    },
    // `shx rm -rf dist`: shelljs's commands, run as the shell's would be.
    Wrapper {
        name: "shx",
        ..PLAIN
    },
    Wrapper {
        name: "bunx",
        short: "p",
        long: &["package"],
        package: true,
        ..PLAIN
    },
    CONDA,
    Wrapper {
        name: "mamba",
        ..CONDA
    },
    Wrapper {
        name: "micromamba",
        ..CONDA
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
    // `corepack pnpm exec …`: corepack runs the package manager named, with the rest.
    Wrapper {
        name: "corepack",
        sub: &["pnpm", "pnpx", "yarn", "yarnpkg", "npm", "npx"],
        sub_is_command: true,
        package: true,
        ..PLAIN
    },
    // `volta run --node 20 cmd`: the command runs with the tool versions named.
    Wrapper {
        name: "volta",
        sub: &["run"],
        long: &["node", "npm", "pnpm", "yarn", "env"],
        ..PLAIN
    },
    // `nix develop .#shell -c cmd`, `nix shell nixpkgs#x --command cmd`, and the old `nix
    // run -c cmd`: the command follows `-c`/`--command`, after the installables. (`nix-shell
    // --run 'script'` is a script: options.rs.)
    Wrapper {
        name: "nix",
        sub: &["develop", "shell", "run"],
        long: &[
            "arg",
            "argstr",
            "override-input",
            "profile",
            "file",
            "expr",
            "unset",
            "keep",
        ],
        global: (
            "Ij",
            &[
                "extra-experimental-features",
                "experimental-features",
                "store",
                "eval-store",
                "log-format",
                "max-jobs",
                "cores",
                "builders",
                "include",
            ],
        ),
        starts: &["-c", "--command"],
        ..PLAIN
    },
    // Secret injectors: the command runs with the secrets in its environment (`doppler run
    // -- cmd`, `op run -- cmd`), so what it prints of the environment is theirs.
    Wrapper {
        name: "doppler",
        sub: &["run"],
        short: "pc",
        long: &[
            "project",
            "config",
            "token",
            "scope",
            "mount",
            "mount-format",
            "mount-template",
            "name-transformer",
            "fallback",
            "fallback-passphrase",
            "passphrase",
            "api-host",
            "configuration",
            // `--command 'script'` runs a script instead (options.rs): taken as a value, it
            // leaves no command to unwrap.
            "command",
        ],
        global: (
            "",
            &[
                "configuration",
                "api-host",
                "dashboard-host",
                "token",
                "scope",
            ],
        ),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "op",
        sub: &["run"],
        long: &[
            "env-file", "account", "cache", "config", "encoding", "session",
        ],
        global: ("", &["account", "config", "encoding", "session", "cache"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "infisical",
        sub: &["run"],
        long: &[
            "env",
            "path",
            "projectId",
            "token",
            "tags",
            "domain",
            "watch-interval",
            "command",
        ],
        global: ("", &["domain", "token", "log-level"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "aws-vault",
        sub: &["exec"],
        short: "dt",
        long: &[
            "duration",
            "mfa-token",
            "region",
            "prompt",
            "backend",
            "config-file",
            "keychain",
            "pass-dir",
            "secret-service-collection",
        ],
        global: (
            "",
            &[
                "backend",
                "keychain",
                "pass-dir",
                "pass-cmd",
                "pass-prefix",
                "file-dir",
                "prompt",
                "secret-service-collection",
            ],
        ),
        operands: 1,
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "chamber",
        sub: &["exec"],
        short: "p",
        long: &["pristine", "strict-value"],
        global: ("rb", &["retries", "backend", "kms-key-alias", "role-arn"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "teller",
        sub: &["run"],
        short: "c",
        long: &["config"],
        global: ("c", &["config"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "dotenvx",
        sub: &["run"],
        short: "f",
        long: &["env-file", "env", "convention"],
        starts: &["--"],
        ..PLAIN
    },
    // Monorepo runners: `lerna exec -- cmd`, `nx exec -- cmd` run it in each project.
    Wrapper {
        name: "lerna",
        sub: &["exec"],
        long: &["scope", "ignore", "concurrency", "since", "loglevel"],
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "nx",
        sub: &["exec"],
        long: &["projects", "exclude", "parallel", "configuration"],
        starts: &["--"],
        ..PLAIN
    },
    // `envchain NAMESPACE cmd`.
    Wrapper {
        name: "envchain",
        operands: 1,
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
    // Process managers, version managers and watchers that run the command after their
    // options: `railway run cmd`, `foreman run cmd`, `mise exec node@20 -- cmd`, `nvm exec 20
    // cmd`, `pyenv exec cmd`, `scl enable COLLECTION 'cmd'`, `watchexec -w src -- cmd`.
    Wrapper {
        name: "railway",
        sub: &["run"],
        short: "se",
        long: &["service", "environment"],
        ..PLAIN
    },
    Wrapper {
        name: "foreman",
        sub: &["run"],
        short: "efd",
        long: &["env", "procfile", "root"],
        chdir: ("d", &["root"]),
        ..PLAIN
    },
    Wrapper {
        name: "honcho",
        sub: &["run"],
        short: "efd",
        long: &["env", "procfile", "app-root"],
        chdir: ("d", &["app-root"]),
        ..PLAIN
    },
    Wrapper {
        name: "mise",
        sub: &["exec", "x"],
        // `-c`/`--command` run a shell command line instead (options.rs).
        short: "Cjc",
        long: &["command", "cd", "jobs"],
        chdir: ("C", &["cd"]),
        global: ("C", &["cd"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "asdf",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "nvm",
        sub: &["exec", "run"],
        version: true,
        ..PLAIN
    },
    Wrapper {
        name: "pyenv",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "rbenv",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "nodenv",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "goenv",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "jenv",
        sub: &["exec"],
        ..PLAIN
    },
    Wrapper {
        name: "scl",
        sub: &["enable", "run"],
        starts: &["--"],
        last_line: true,
        ..PLAIN
    },
    Wrapper {
        name: "watchexec",
        // `-p` (`--postpone`) is a flag.
        short: "wefidsWoE",
        long: &[
            "watch",
            "exts",
            "filter",
            "ignore",
            "debounce",
            "signal",
            "shell",
            "project-origin",
            "workdir",
            "env",
            "delay-run",
            "poll",
            "on-busy-update",
            "filter-file",
            "ignore-file",
            "watch-non-recursive",
            "stop-signal",
            "stop-timeout",
            "timeout",
            "color",
        ],
        chdir: ("", &["workdir"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "reflex",
        // `-s` (start a service) is a flag; `-d` takes the decoration.
        short: "rRgGcd",
        long: &["regex", "inverse-regex", "glob", "inverse-glob", "config"],
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "nocache",
        ..PLAIN
    },
    // `dotnet tool run TOOL args`: the tool is the command.
    Wrapper {
        name: "dotnet",
        group: &["tool"],
        sub: &["run"],
        ..PLAIN
    },
];
