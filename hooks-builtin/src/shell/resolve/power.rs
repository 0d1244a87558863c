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
//!   sshd.service`, `MaskUnitFiles`, `EnqueueUnitJob poweroff.target start`), and a unit's
//!   own methods on its object path (`/org/freedesktop/systemd1/unit/ssh_2eservice`'s
//!   `Stop`). Read-only calls (`CanPowerOff`, properties, introspection) are none of these.
//! - The same power methods of ConsoleKit (and its `Stop`, `Restart`), and the desktop
//!   sessions' (GNOME's `SessionManager.Shutdown`, `Reboot`; KDE's `ksmserver logout`, whose
//!   second number is the shutdown type, and `org.kde.Shutdown`'s `logoutAndShutdown`).
//! - A BMC's chassis control: `ipmitool raw 0x00 0x02 N` (chassis control N: 0 power down, 2
//!   cycle, 3 reset, 4 diagnostic interrupt, 5 soft shutdown) and `ipmi-chassis
//!   --chassis-control=power-down`, as ipmitool's `power` command; a byte the guard cannot
//!   read is a power-off.

use crate::shell::getopt::{self, Style};

/// The command lines that do what `program args` does, when it is one of the above.
pub(super) fn stand_ins(program: &str, args: &[String]) -> Vec<String> {
    match program {
        "rtcwake" => rtcwake(args).map(str::to_owned).into_iter().collect(),
        "ipmitool" => ipmitool_raw(args).map(str::to_owned).into_iter().collect(),
        "ipmi-chassis" => ipmi_chassis(args).map(str::to_owned).into_iter().collect(),
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

/// IPMI chassis control's values, as ipmitool's power commands (`1` powers on).
const CHASSIS_CONTROL: &[(u8, Option<&str>)] = &[
    (0, Some("ipmitool power off")),
    (1, None),
    (2, Some("ipmitool power cycle")),
    (3, Some("ipmitool power reset")),
    (4, Some("ipmitool power diag")),
    (5, Some("ipmitool power soft")),
];

/// `ipmitool … raw 0x00 0x02 N`: the chassis control command (network function 0, command
/// 2), as the power command it is; another raw command is not read.
fn ipmitool_raw(args: &[String]) -> Option<&'static str> {
    let at = args.iter().position(|a| a == "raw")?;
    let byte = |word: &String| {
        let word = word.to_ascii_lowercase();
        let digits = word.strip_prefix("0x").unwrap_or(&word);
        u8::from_str_radix(digits, 16).ok()
    };
    let (netfn, command) = (byte(args.get(at + 1)?), byte(args.get(at + 2)?));
    if netfn != Some(0) || command != Some(2) {
        return None;
    }
    // Without a data byte ipmitool sends nothing the BMC acts on; one the guard cannot read
    // (`$N`) is read as a power-off.
    let data = byte(args.get(at + 3)?);
    match CHASSIS_CONTROL.iter().find(|(n, _)| Some(*n) == data) {
        Some((_, line)) => *line,
        None => Some("ipmitool power off"),
    }
}

/// `ipmi-chassis --chassis-control=CONTROL` (FreeIPMI), as ipmitool's power command.
fn ipmi_chassis(args: &[String]) -> Option<&'static str> {
    let control = super::option_value(args, &["--chassis-control"])?;
    match control.to_ascii_lowercase().as_str() {
        "power-up" => None,
        "power-cycle" => Some("ipmitool power cycle"),
        "hard-reset" => Some("ipmitool power reset"),
        "diagnostic-interrupt" => Some("ipmitool power diag"),
        "soft-shutdown" => Some("ipmitool power soft"),
        _ => Some("ipmitool power off"),
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
    ("FreezeUnit", "freeze"),
    ("EnqueueUnitJob", "start"),
];

/// A unit's own methods (`org.freedesktop.systemd1.Unit.Stop` on its object path), as the
/// systemctl subcommand that calls them.
const UNIT_OWN_METHODS: &[(&str, &str)] = &[
    ("Start", "start"),
    ("Restart", "restart"),
    ("TryRestart", "restart"),
    ("ReloadOrRestart", "restart"),
    ("ReloadOrTryRestart", "restart"),
    ("Stop", "stop"),
    ("Kill", "kill"),
    ("Freeze", "freeze"),
];

/// `EnqueueUnitJob`'s job types, as systemctl's subcommands.
const JOB_TYPES: &[(&str, &str)] = &[
    ("start", "start"),
    ("restart", "restart"),
    ("try-restart", "restart"),
    ("reload-or-restart", "restart"),
    ("reload-or-try-restart", "restart"),
    ("stop", "stop"),
];

/// Methods of the other session and power managers, as systemctl's commands: ConsoleKit's
/// (which has logind's power methods too), GNOME's session manager's and KDE's.
const SESSION_METHODS: &[(&str, &str, &str)] = &[
    ("ConsoleKit", "Stop", "systemctl poweroff"),
    ("ConsoleKit", "Restart", "systemctl reboot"),
    ("SessionManager", "Shutdown", "systemctl poweroff"),
    ("SessionManager", "Reboot", "systemctl reboot"),
    (
        "org.kde.Shutdown",
        "logoutAndShutdown",
        "systemctl poweroff",
    ),
    ("org.kde.Shutdown", "logoutAndReboot", "systemctl reboot"),
    (
        "org.kde.LogoutPrompt",
        "promptShutDown",
        "systemctl poweroff",
    ),
    ("org.kde.LogoutPrompt", "promptReboot", "systemctl reboot"),
];

/// The prefix of a systemd unit's object path; the rest is its name, each byte other than a
/// letter or digit written `_XX` (`ssh_2eservice`).
const UNIT_PATH: &str = "/org/freedesktop/systemd1/unit/";

/// The unit name an object path's last part escapes (`poweroff_2etarget`).
fn unit_of_path(escaped: &str) -> Option<String> {
    let mut out = Vec::new();
    let bytes = escaped.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'_' {
            let hex = escaped.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

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
    if let Some(lines) = session_call(args) {
        return lines;
    }
    if !args.iter().any(manager) {
        return Vec::new();
    }
    // A unit's own object path: its methods act on it.
    let unit = (args.iter())
        .filter_map(|a| a.rsplit(['=', ' ']).next()?.strip_prefix(UNIT_PATH))
        .find_map(unit_of_path);
    if let Some(unit) = unit {
        let method = (args.iter())
            .map(|a| a.strip_prefix("--method=").unwrap_or(a))
            .filter(|a| !a.starts_with('/'))
            .find_map(|a| {
                let method = a.rsplit('.').next().unwrap_or(a);
                UNIT_OWN_METHODS.iter().find(|(m, _)| *m == method)
            });
        if let Some((_, subcommand)) = method {
            let unit = crate::shell::quote(&unit).into_owned();
            return vec![format!("systemctl {subcommand} {unit}")];
        }
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
    let Some(&(_, mut subcommand)) = UNIT_METHODS.iter().find(|(m, _)| *m == method) else {
        return Vec::new();
    };
    // `EnqueueUnitJob UNIT TYPE MODE`: the job type says what it does; one the guard cannot
    // read is a start.
    if method == "EnqueueUnitJob" {
        let job = (values.iter()).find_map(|v| JOB_TYPES.iter().find(|(t, _)| t == v));
        subcommand = job.map_or("start", |(_, s)| *s);
    }
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

/// What a call to ConsoleKit or a desktop session manager does (`None`: it is not one).
fn session_call(args: &[String]) -> Option<Vec<String>> {
    // KDE's `qdbus org.kde.ksmserver /KSMServer logout CONFIRM TYPE MODE`: type 1 reboots, 2
    // halts; another (or one the guard cannot read) logs out, or takes the default.
    if args.iter().any(|a| a.contains("org.kde.ksmserver")) {
        let at = args
            .iter()
            .position(|a| a.rsplit('.').next() == Some("logout"))?;
        return Some(match args.get(at + 2).map(String::as_str) {
            Some("1") => vec!["systemctl reboot".to_owned()],
            Some("2") => vec!["systemctl poweroff".to_owned()],
            Some("0" | "3") => Vec::new(),
            _ => vec!["systemctl poweroff".to_owned()],
        });
    }
    let method = |m: &str| {
        args.iter().any(|a| {
            let a = a.strip_prefix("--method=").unwrap_or(a);
            a.rsplit('.').next() == Some(m)
        })
    };
    let lines: Vec<String> = (SESSION_METHODS.iter())
        .filter(|(service, m, _)| args.iter().any(|a| a.contains(service)) && method(m))
        .map(|(_, _, line)| (*line).to_owned())
        .collect();
    if !lines.is_empty() {
        return Some(lines);
    }
    // ConsoleKit also has logind's power methods; the other session managers' remaining
    // methods are read by the logind check (nothing, unless they name logind too).
    if args.iter().any(|a| a.contains("ConsoleKit")) {
        let lines: Vec<String> = (POWER_METHODS.iter())
            .filter(|(m, _)| method(m))
            .map(|(_, line)| (*line).to_owned())
            .collect();
        return Some(lines);
    }
    None
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
            "systemctl poweroff"
        );
        assert_eq!(
            read("qdbus", "org.kde.ksmserver /KSMServer logout 0 0 0"),
            ""
        );
        assert_eq!(
            read(
                "busctl",
                "call org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/poweroff_2etarget org.freedesktop.systemd1.Unit Start s replace"
            ),
            "systemctl start poweroff.target"
        );
        assert_eq!(
            read(
                "busctl",
                "call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager EnqueueUnitJob sss poweroff.target start replace"
            ),
            "systemctl start poweroff.target"
        );
        assert_eq!(
            read(
                "dbus-send",
                "--system --dest=org.freedesktop.ConsoleKit /org/freedesktop/ConsoleKit/Manager org.freedesktop.ConsoleKit.Manager.Stop"
            ),
            "systemctl poweroff"
        );
        assert_eq!(
            read(
                "gdbus",
                "call --session --dest org.gnome.SessionManager --object-path /org/gnome/SessionManager --method org.gnome.SessionManager.Reboot"
            ),
            "systemctl reboot"
        );
    }

    #[test]
    fn bmc_chassis_control_reads_as_ipmitool_power() {
        let read = |line: &str| ipmitool_raw(&words(line));
        assert_eq!(
            read("-H bmc raw 0x00 0x02 0x00"),
            Some("ipmitool power off")
        );
        assert_eq!(read("raw 0 2 3"), Some("ipmitool power reset"));
        assert_eq!(read("raw 0x00 0x02 0x01"), None);
        assert_eq!(read("raw 0x00 0x01"), None);
        assert_eq!(read("raw 0x06 0x01"), None);
        assert_eq!(read("raw 0x00 0x02 $N"), Some("ipmitool power off"));
        let chassis = |line: &str| ipmi_chassis(&words(line));
        assert_eq!(
            chassis("--chassis-control=power-down"),
            Some("ipmitool power off")
        );
        assert_eq!(chassis("--chassis-control POWER-UP"), None);
        assert_eq!(chassis("--get-chassis-status"), None);
    }
}
