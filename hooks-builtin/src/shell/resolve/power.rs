//! Ways to power the machine off, reboot or suspend it, or to stop its services, other than
//! the commands the system pack names, read as the `systemctl` command that does the same:
//! the rules about that one (`power-off`, `reboot-host`, `suspend-host`, `power-off-target`,
//! `ssh-service-stop`) then judge them, under their own ids.
//!
//! - `rtcwake -m MODE`: `off` powers off, `disk` hibernates, `standby`, `freeze` and `mem`
//!   (and no mode: standby) suspend; `no`, `on`, `disable` and `show` only set or show the
//!   alarm, and neither does a dry run. A mode the guard cannot read (`-m "$M"`) is read as
//!   `off`.
//! - D-Bus calls (`dbus-send`, `busctl call`, `gdbus call`, `qdbus`) to logind or systemd:
//!   their power methods (`PowerOff`, `Reboot`, `Suspend`, … and their `WithFlags` forms,
//!   `ScheduleShutdown`) and the unit methods (`StartUnit poweroff.target`, `StopUnit
//!   sshd.service`, `MaskUnitFiles`). Read-only calls (`CanPowerOff`, properties,
//!   introspection) are none of these.

use crate::shell::getopt::{self, Style};

/// The command lines that do what `program args` does, when it is one of the above.
pub(super) fn stand_ins(program: &str, args: &[String]) -> Vec<String> {
    match program {
        "rtcwake" => rtcwake(args).map(str::to_owned).into_iter().collect(),
        _ => dbus_call(program, args),
    }
}

/// rtcwake's options that take a value.
const RTCWAKE_VALUES: &[&str] = &[
    "-A",
    "--adjfile",
    "-d",
    "--device",
    "-m",
    "--mode",
    "-s",
    "--seconds",
    "-t",
    "--time",
    "--date",
];

/// What `rtcwake ARGS` does to the machine, as systemctl's command.
fn rtcwake(args: &[String]) -> Option<&'static str> {
    let words = getopt::read(args, Style::Gnu, &[], |o| {
        RTCWAKE_VALUES.iter().any(|v| getopt::is(o, v))
    });
    // Read closed: only these, as written, do nothing to the machine.
    let inert = [
        "-n",
        "--dry-run",
        "-h",
        "--help",
        "-V",
        "--version",
        "--list-modes",
    ];
    if inert.iter().any(|o| words.has(o, true)) {
        return None;
    }
    // The last mode given counts; without one, rtcwake suspends (standby).
    let mode = words.values(&["-m", "--mode"]).last().unwrap_or("standby");
    match mode {
        "no" | "on" | "disable" | "show" => None,
        "standby" | "freeze" | "mem" => Some("systemctl suspend"),
        "disk" => Some("systemctl hibernate"),
        _ => Some("systemctl poweroff"),
    }
}

/// The D-Bus methods of logind's and systemd's managers that power the machine off, reboot or
/// suspend it, as systemctl's commands.
const POWER_METHODS: &[(&str, &str)] = &[
    ("PowerOff", "systemctl poweroff"),
    ("Halt", "systemctl halt"),
    ("Reboot", "systemctl reboot"),
    ("KExec", "systemctl kexec"),
    ("SoftReboot", "systemctl soft-reboot"),
    ("Suspend", "systemctl suspend"),
    ("Hibernate", "systemctl hibernate"),
    ("HybridSleep", "systemctl hybrid-sleep"),
    ("SuspendThenHibernate", "systemctl suspend-then-hibernate"),
    ("Sleep", "systemctl sleep"),
    ("Exit", "systemctl exit"),
];

/// systemd's methods on units, as the systemctl subcommand that calls them.
const UNIT_METHODS: &[(&str, &str)] = &[
    ("StartUnit", "start"),
    ("StartUnitReplace", "start"),
    ("RestartUnit", "restart"),
    ("TryRestartUnit", "restart"),
    ("ReloadOrRestartUnit", "restart"),
    ("ReloadOrTryRestartUnit", "restart"),
    ("StopUnit", "stop"),
    ("KillUnit", "kill"),
    ("DisableUnitFiles", "disable"),
    ("MaskUnitFiles", "mask"),
];

/// `ScheduleShutdown`'s kinds, as systemctl's commands (the `dry-` ones do nothing).
const SHUTDOWN_KINDS: &[(&str, Option<&str>)] = &[
    ("poweroff", Some("systemctl poweroff")),
    ("halt", Some("systemctl halt")),
    ("reboot", Some("systemctl reboot")),
    ("kexec", Some("systemctl kexec")),
    ("soft-reboot", Some("systemctl soft-reboot")),
    ("dry-poweroff", None),
    ("dry-halt", None),
    ("dry-reboot", None),
    ("dry-kexec", None),
    ("dry-soft-reboot", None),
];

/// What a D-Bus call to logind or systemd does, as systemctl's command lines; nothing for
/// another bus name, a read-only method, or a subcommand that calls nothing.
fn dbus_call(program: &str, args: &[String]) -> Vec<String> {
    // busctl's and gdbus's other subcommands (`introspect`, `list`, `status`) call nothing.
    if matches!(program, "busctl" | "gdbus") && !args.iter().any(|a| a == "call") {
        return Vec::new();
    }
    let manager = |a: &String| {
        a.contains("freedesktop.login1")
            || a.contains("freedesktop/login1")
            || a.contains("freedesktop.systemd1")
            || a.contains("freedesktop/systemd1")
    };
    if !args.iter().any(manager) {
        return Vec::new();
    }
    // The method: the first word whose last dotted part names one (`…Manager.PowerOff` of
    // dbus-send, gdbus's `--method` value, busctl's and qdbus's own word).
    let named = |word: &str| {
        let word = word.strip_prefix("--method=").unwrap_or(word);
        let method = word.rsplit('.').next().unwrap_or(word);
        let method = method.strip_suffix("WithFlags").unwrap_or(method);
        (POWER_METHODS.iter().map(|(m, _)| *m))
            .chain(UNIT_METHODS.iter().map(|(m, _)| *m))
            .chain(["ScheduleShutdown"])
            .find(|m| *m == method)
    };
    let Some((at, method)) =
        (args.iter().enumerate()).find_map(|(at, word)| named(word).map(|method| (at, method)))
    else {
        return Vec::new();
    };
    // Its arguments, without their type prefixes (`string:`, `array:string:`) and list
    // commas.
    let values: Vec<&str> = (args[at + 1..].iter())
        .flat_map(|a| a.rsplit(':').next().unwrap_or(a).split(','))
        .map(|v| v.trim_matches(['"', '\'']))
        .filter(|v| !v.is_empty())
        .collect();
    if let Some((_, line)) = POWER_METHODS.iter().find(|(m, _)| *m == method) {
        return vec![(*line).to_owned()];
    }
    if method == "ScheduleShutdown" {
        // A kind the guard cannot read is read as a power-off.
        let kind = (values.iter()).find_map(|v| SHUTDOWN_KINDS.iter().find(|(k, _)| k == v));
        return match kind {
            Some((_, line)) => line.iter().map(|l| (*l).to_owned()).collect(),
            None => vec!["systemctl poweroff".to_owned()],
        };
    }
    let Some((_, subcommand)) = UNIT_METHODS.iter().find(|(m, _)| *m == method) else {
        return Vec::new();
    };
    // The unit names among the arguments (`ss sshd.service replace`: the signature and the
    // mode are not units).
    let units: Vec<String> = (values.iter())
        .filter(|v| v.contains('.') && !v.starts_with(['-', '/']))
        .map(|v| crate::shell::quote(v).into_owned())
        .collect();
    if units.is_empty() {
        return Vec::new();
    }
    vec![format!("systemctl {subcommand} {}", units.join(" "))]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn rtcwake_modes_read_as_systemctl() {
        let read = |line: &str| rtcwake(&words(line));
        assert_eq!(read("-m off -s 60"), Some("systemctl poweroff"));
        assert_eq!(read("--mode=disk -s 60"), Some("systemctl hibernate"));
        assert_eq!(read("-s 60"), Some("systemctl suspend"));
        assert_eq!(read("-m show"), None);
        assert_eq!(read("-m no -t 1700000000"), None);
        assert_eq!(read("-n -m off -s 60"), None);
        assert_eq!(read("-m show -m off -s 1"), Some("systemctl poweroff"));
        assert_eq!(read("-m $M -s 1"), Some("systemctl poweroff"));
        assert_eq!(read("--mo off -s 1"), Some("systemctl poweroff"));
    }

    #[test]
    fn dbus_calls_read_as_systemctl() {
        let read = |program: &str, line: &str| dbus_call(program, &words(line)).join("; ");
        assert_eq!(
            read(
                "busctl",
                "call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager Reboot b true"
            ),
            "systemctl reboot"
        );
        assert_eq!(
            read(
                "dbus-send",
                "--system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.PowerOffWithFlags uint64:0"
            ),
            "systemctl poweroff"
        );
        assert_eq!(
            read(
                "gdbus",
                "call --system --dest org.freedesktop.systemd1 --object-path /org/freedesktop/systemd1 --method org.freedesktop.systemd1.Manager.StopUnit sshd.service replace"
            ),
            "systemctl stop sshd.service"
        );
        assert_eq!(
            read(
                "busctl",
                "call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager ScheduleShutdown st dry-reboot 0"
            ),
            ""
        );
        assert_eq!(
            read(
                "busctl",
                "call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager CanPowerOff"
            ),
            ""
        );
        assert_eq!(
            read(
                "busctl",
                "introspect org.freedesktop.login1 /org/freedesktop/login1"
            ),
            ""
        );
        assert_eq!(
            read(
                "qdbus",
                "--system org.freedesktop.login1 /org/freedesktop/login1 PowerOff true"
            ),
            "systemctl poweroff"
        );
        assert_eq!(
            read("qdbus", "org.kde.ksmserver /KSMServer logout 0 2 2"),
            ""
        );
    }
}
