//! Commands run in a container, a pod or a system container, judged there as `ssh host cmd`'s
//! are.

use super::{PLAIN, Wrapper};

/// LXD's client; incus, its fork, reads the same words.
const LXC: Wrapper = Wrapper {
    name: "lxc",
    long: &["env", "user", "group", "cwd", "mode", "project"],
    operands: 1,
    sub: &["exec"],
    global: ("", &["project"]),
    chdir: ("", &["cwd"]),
    dashdash: true,
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
        dashdash: true,
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
        dashdash: true,
        ..PLAIN
    },
    Wrapper {
        name: "distrobox",
        short: "na",
        long: &["name", "additional-flags"],
        operands: 1,
        sub: &["enter"],
        instead: ("n", &["name"]),
        dashdash: true,
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
        dashdash: true,
        remote: true,
        ..PLAIN
    },
];
