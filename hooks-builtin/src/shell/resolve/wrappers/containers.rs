//! Commands run in a container, a pod, a system container, a network namespace or on
//! another machine, judged there as `ssh host cmd`'s are.

use super::{PLAIN, Wrapper};

/// OrbStack's Linux machine: `orb cmd`, `orb -m ubuntu cmd` (and `orbctl run cmd`).
const ORB: Wrapper = Wrapper {
    name: "orb",
    short: "muw",
    long: &["machine", "user", "workdir"],
    chdir: ("w", &["workdir"]),
    remote: true,
    ..PLAIN
};

/// LXD's client; incus, its fork, reads the same words.
const LXC: Wrapper = Wrapper {
    name: "lxc",
    long: &["env", "user", "group", "cwd", "mode", "project"],
    operands: 1,
    sub: &["exec"],
    global: ("", &["project"]),
    chdir: ("", &["cwd"]),
    starts: &["--"],
    remote: true,
    ..PLAIN
};

/// `docker exec [options] CONTAINER cmd` and the clients that copy its `exec`: each adds its
/// own long options, groups and global options.
const CONTAINER_EXEC: Wrapper = Wrapper {
    short: "euw",
    operands: 1,
    chdir: ("w", &["workdir"]),
    sub: &["exec"],
    remote: true,
    ..PLAIN
};

pub(super) const CONTAINERS: &[Wrapper] = &[
    // Lima's and Colima's VMs: `lima CMD`, `limactl shell NAME CMD`, `colima ssh -- CMD`.
    Wrapper {
        name: "lima",
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "limactl",
        sub: &["shell"],
        long: &["workdir", "shell"],
        operands: 1,
        chdir: ("", &["workdir"]),
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "colima",
        sub: &["ssh"],
        short: "p",
        long: &["profile"],
        starts: &["--"],
        remote: true,
        ..PLAIN
    },
    // A command run in a container or a pod, judged there as `ssh host cmd`'s are:
    // `docker exec [options] CONTAINER cmd`, `kubectl exec [options] POD -- cmd`.
    Wrapper {
        name: "docker",
        long: &["env", "env-file", "user", "workdir", "detach-keys", "index"],
        group: &["container", "compose"],
        global: (
            "Hlcfp",
            &[
                "host",
                "file",
                "project-name",
                "project-directory",
                "profile",
                "ansi",
                "progress",
                "parallel",
                "log-level",
                "context",
                "config",
                "tlscacert",
                "tlscert",
                "tlskey",
            ],
        ),
        ..CONTAINER_EXEC
    },
    Wrapper {
        name: "podman",
        long: &[
            "env",
            "env-file",
            "user",
            "workdir",
            "detach-keys",
            "preserve-fd",
        ],
        group: &["container"],
        global: (
            "c",
            &[
                "connection",
                "url",
                "log-level",
                "root",
                "runroot",
                "identity",
            ],
        ),
        instead: ("l", &["latest"]),
        ..CONTAINER_EXEC
    },
    Wrapper {
        name: "nerdctl",
        long: &["env", "env-file", "user", "workdir"],
        group: &["container", "compose"],
        global: (
            "Han",
            &[
                "host",
                "address",
                "namespace",
                "snapshotter",
                "cgroup-manager",
            ],
        ),
        ..CONTAINER_EXEC
    },
    Wrapper {
        name: "docker-compose",
        long: &["env", "user", "workdir", "index"],
        global: (
            "fp",
            &[
                "file",
                "project-name",
                "project-directory",
                "profile",
                "env-file",
            ],
        ),
        ..CONTAINER_EXEC
    },
    Wrapper {
        name: "kubectl",
        short: "cfnv",
        long: &[
            "container",
            "filename",
            "pod-running-timeout",
            "namespace",
            "v",
            "request-timeout",
        ],
        operands: 1,
        sub: &["exec"],
        global: (
            "nsv",
            &[
                "namespace",
                "v",
                "context",
                "kubeconfig",
                "cluster",
                "user",
                "server",
                "as",
                "as-group",
                "token",
                "request-timeout",
            ],
        ),
        starts: &["--"],
        remote: true,
        ..PLAIN
    },
    // `lxc exec CONTAINER -- cmd`, and incus (its fork).
    LXC,
    Wrapper {
        name: "incus",
        ..LXC
    },
    // `distrobox enter BOX -- cmd`: a container that shares the home directory, so the
    // command runs where it was started.
    Wrapper {
        name: "distrobox-enter",
        short: "na",
        long: &["name", "additional-flags"],
        operands: 1,
        instead: ("n", &["name"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "distrobox",
        short: "na",
        long: &["name", "additional-flags"],
        operands: 1,
        sub: &["enter"],
        instead: ("n", &["name"]),
        starts: &["--"],
        ..PLAIN
    },
    Wrapper {
        name: "oc",
        short: "cfnv",
        long: &[
            "container",
            "filename",
            "pod-running-timeout",
            "namespace",
            "v",
            "request-timeout",
        ],
        operands: 1,
        sub: &["exec", "rsh"],
        global: (
            "nsv",
            &[
                "namespace",
                "v",
                "context",
                "kubeconfig",
                "cluster",
                "user",
                "server",
                "as",
                "token",
            ],
        ),
        starts: &["--"],
        remote: true,
        ..PLAIN
    },
    // `wsl -d Ubuntu -e cmd`, `wsl -- cmd`: the command runs in a WSL distribution, in its
    // user's home unless `--cd` says where.
    Wrapper {
        name: "wsl",
        short: "du",
        long: &[
            "distribution",
            "distribution-id",
            "user",
            "cd",
            "shell-type",
            // Management commands that take a distribution and run nothing in it: with
            // their value taken, wsl itself is the command (`wsl --unregister Ubuntu`).
            "unregister",
            "terminate",
            "export",
            "import",
            "set-default",
            "set-version",
            "mount",
            "unmount",
        ],
        chdir: ("", &["cd"]),
        remote: true,
        ..PLAIN
    },
    // `mosh host -- cmd`: ssh's command, through mosh.
    Wrapper {
        name: "mosh",
        short: "p",
        long: &[
            "client",
            "server",
            "ssh",
            "port",
            "predict",
            "family",
            "bind-server",
            "experimental-remote-ip",
        ],
        operands: 1,
        remote: true,
        ..PLAIN
    },
    // `ip netns exec NS cmd`: the command runs here, in a network namespace.
    // iproute2 takes any prefix of its words (`ip net e`); `-all` runs it in every namespace.
    Wrapper {
        name: "ip",
        operands: 1,
        sub: &["exec", "exe", "ex", "e"],
        group: &["netns", "netn", "net"],
        global: ("n", &[]),
        instead: ("a", &["all"]),
        ..PLAIN
    },
    // Virtual machines, dev containers and remote hosts that run the command after their
    // options: `multipass exec VM -- cmd`, `devcontainer exec --workspace-folder . cmd`,
    // `orb cmd` (OrbStack's Linux machine), `tsh ssh HOST cmd` (Teleport), `coder ssh WS
    // cmd`, `heroku run cmd` (a one-off dyno). (`knife ssh QUERY cmd`, whose options may
    // stand anywhere, is in remotes.rs.)
    Wrapper {
        name: "multipass",
        sub: &["exec"],
        // `-n` is `--no-map-working-directory`, a flag.
        short: "d",
        long: &["name", "working-directory"],
        chdir: ("d", &["working-directory"]),
        operands: 1,
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "devcontainer",
        sub: &["exec"],
        long: &[
            "workspace-folder",
            "container-id",
            "id-label",
            "config",
            "override-config",
            "docker-path",
            "docker-compose-path",
            "remote-env",
            "log-level",
            "log-format",
            "terminal-columns",
            "terminal-rows",
            "default-user-env-probe",
            "container-data-folder",
            "container-system-data-folder",
        ],
        remote: true,
        ..PLAIN
    },
    ORB,
    Wrapper {
        name: "orbctl",
        sub: &["run"],
        ..ORB
    },
    Wrapper {
        name: "tsh",
        sub: &["ssh"],
        // tsh's own options stand before `ssh` (`tsh --proxy p ssh host cmd`).
        global: (
            "li",
            &[
                "proxy",
                "user",
                "cluster",
                "login",
                "identity",
                "auth",
                "debug-level",
            ],
        ),
        short: "lpLRDoJ",
        long: &[
            "login",
            "user",
            "port",
            "proxy",
            "cluster",
            "forward",
            "local",
            "remote",
            "option",
            "jumphost",
            "dynamic-forward",
        ],
        operands: 1,
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "coder",
        sub: &["ssh"],
        short: "Re",
        long: &[
            "identity-agent",
            "workspace-poll-interval",
            "wait",
            "log-dir",
            "remote-forward",
            "env",
        ],
        operands: 1,
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "heroku",
        sub: &["run", "run:detached", "run:inside"],
        // `-x` (`--exit-code`) is a flag.
        short: "ares",
        long: &["app", "remote", "env", "size", "type"],
        remote: true,
        ..PLAIN
    },
];
