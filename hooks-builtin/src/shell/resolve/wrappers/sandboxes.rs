//! Sandboxes, namespaces and privilege tools: the command runs after their options in
//! another root, another namespace or as another user (`chroot DIR cmd`, `unshare -r cmd`,
//! `setpriv --reuid 0 cmd`).

use super::{PLAIN, Wrapper};

pub(super) const SANDBOXES: &[Wrapper] = &[
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
        name: "proot",
        short: "rRSbmwqk",
        long: &[
            "rootfs",
            "bind",
            "mount",
            "cwd",
            "pwd",
            "qemu",
            "kernel-release",
        ],
        chdir: ("w", &["cwd", "pwd"]),
        ..PLAIN
    },
    Wrapper {
        name: "setpriv",
        long: &[
            "reuid",
            "regid",
            "ruid",
            "euid",
            "rgid",
            "egid",
            "groups",
            "inh-caps",
            "ambient-caps",
            "bounding-set",
            "securebits",
            "pdeathsig",
            "selinux-label",
            "apparmor-profile",
            "landlock-access",
            "landlock-rule",
            "seccomp-filter",
        ],
        ..PLAIN
    },
    Wrapper {
        name: "chpst",
        short: "uUbe/nlLmdopfcrt",
        ..PLAIN
    },
    // `s6-setuidgid ACCOUNT cmd`.
    Wrapper {
        name: "s6-setuidgid",
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "with-contenv",
        ..PLAIN
    },
    Wrapper {
        name: "runcon",
        short: "urtl",
        long: &["user", "role", "type", "range"],
        context: true,
        ..PLAIN
    },
    Wrapper {
        name: "firejail",
        ..PLAIN
    },
    // `systemd-nspawn -D DIR cmd`: a container whose root is DIR (the host's, for `-D /`);
    // it needs root, so it runs under `sudo`, which is judged there.
    Wrapper {
        name: "systemd-nspawn",
        short: "DiMuSZLEp",
        long: &[
            "directory",
            "image",
            "machine",
            "user",
            "slice",
            "selinux-context",
            "selinux-apifs-context",
            "setenv",
            "port",
            "bind",
            "bind-ro",
            "tmpfs",
            "overlay",
            "overlay-ro",
            "chdir",
            "uuid",
            "property",
            "network-interface",
            "network-bridge",
            "network-zone",
            "capability",
            "drop-capability",
            "private-users",
            "hostname",
        ],
        ..PLAIN
    },
];
