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

pub(super) const CONTAINERS: &[Wrapper] = &[
    // A command run in a container or a pod, judged there as `ssh host cmd`'s are:
    // `docker exec [options] CONTAINER cmd`, `kubectl exec [options] POD -- cmd`.
    Wrapper {
        name: "docker",
        short: "euw",
        long: &["env", "env-file", "user", "workdir", "detach-keys", "index"],
        operands: 1,
        chdir: ("w", &["workdir"]),
        sub: &["exec"],
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
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "podman",
        short: "euw",
        long: &[
            "env",
            "env-file",
            "user",
            "workdir",
            "detach-keys",
            "preserve-fd",
        ],
        operands: 1,
        chdir: ("w", &["workdir"]),
        sub: &["exec"],
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
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "nerdctl",
        short: "euw",
        long: &["env", "env-file", "user", "workdir"],
        operands: 1,
        chdir: ("w", &["workdir"]),
        sub: &["exec"],
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
        remote: true,
        ..PLAIN
    },
    Wrapper {
        name: "docker-compose",
        short: "euw",
        long: &["env", "user", "workdir", "index"],
        operands: 1,
        chdir: ("w", &["workdir"]),
        sub: &["exec"],
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
        remote: true,
        ..PLAIN
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
