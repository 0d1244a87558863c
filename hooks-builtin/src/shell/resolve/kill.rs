//! Ways to end a machine's ways in (the SSH server, dropbear, tailscaled) other than naming
//! them to `pkill`, `killall` or `systemctl`, read as the command line that names them, so
//! that the system pack's rules (`ssh-server-kill`, `ssh-service-stop`) judge them under
//! their own ids:
//!
//! - a `kill` of the process ids a lookup prints, as the killer that looks them up itself
//!   (`kill $(pgrep sshd)` as `pkill sshd`, `$(ps -C sshd -o pid=)` as `killall sshd`,
//!   `$(systemctl show -p MainPID --value ssh)` as `systemctl kill ssh`);
//! - a pattern (`pkill 'ss.d'`, `killall -r 'ssh.*'`, `pkill -f 'ssh[d]'`) or a name read
//!   without case (`killall -I SSHD`) that could match a way in's process, as `killall NAME`;
//! - a glob service or unit name that could match one (`systemctl stop 'ss?.service'`,
//!   `/etc/init.d/ssh* stop`), as each name it could match.
//!
//! A signal whose default action neither ends nor stops a process (`0`, `CONT`, `WINCH`,
//! `URG`, `CHLD`) kills nothing: `kill -0 $(pgrep sshd)` only asks whether it runs. `HUP`,
//! `USR1` and `USR2` are kills: their default action ends a process, and sshd re-executing
//! itself on `HUP` exits when its configuration does not load.

/// The ways in `ssh-server-kill` is about: their process names, and their command lines as
/// `pkill -f` matches them.
const WAYS_IN: &[(&str, &[&str])] = &[
    (
        "sshd",
        &["/usr/sbin/sshd -D", "sshd: /usr/sbin/sshd -D [listener]"],
    ),
    ("dropbear", &["/usr/sbin/dropbear -F -R"]),
    (
        "tailscaled",
        &["/usr/sbin/tailscaled --state=/var/lib/tailscale/tailscaled.state"],
    ),
];

/// The services `ssh-service-stop` is about, as a glob unit or service name could match them
/// (with `.service` or `.socket` after them, or without).
const WAY_IN_SERVICES: &[&str] = &[
    "ssh",
    "sshd",
    "dropbear",
    "tinysshd",
    "tailscaled",
    "amazon-ssm-agent",
    "google-guest-agent",
    "teleport",
    "zerotier-one",
];

/// Signals whose default action neither ends nor stops a process.
const HARMLESS: &[&str] = &["0", "CONT", "WINCH", "URG", "CHLD", "CLD"];

/// Signal names (without `SIG`) as `kill -l` lists them across Linux and the BSDs; a word
/// that is none of these (nor a number, nor `RTMIN+n`) is no signal.
const SIGNALS: &[&str] = &[
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "EMT", "FPE", "KILL", "USR1",
    "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP",
    "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR", "INFO",
    "LOST", "SYS", "UNUSED", "THR", "LIBRT",
];

/// Whether `spec` (`9`, `HUP`, `SIGcont`) names a signal, and if so whether it is harmless.
/// procps and util-linux read names without case.
fn signal(spec: &str) -> Option<bool> {
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        return Some(name.bytes().all(|b| b == b'0'));
    }
    let realtime = name.starts_with("RTMIN") || name.starts_with("RTMAX");
    (SIGNALS.contains(&name) || realtime).then(|| HARMLESS.contains(&name))
}

/// Whether `word` is a signal written as an option (`-HUP`, `-9`, `-SIGcont`).
pub(super) fn is_signal_word(word: &str) -> bool {
    word.strip_prefix('-').is_some_and(|s| signal(s).is_some())
}

/// The options of the kill family that take a signal as their value.
fn signal_options(program: &str) -> &'static [&'static str] {
    match program {
        "kill" => &["-s", "-n", "--signal"],
        "killall" => &["-s", "--signal"],
        _ => &["--signal"],
    }
}

/// Whether `program ARGS` (`kill`, `pkill`, `killall`) sends only harmless signals: at least
/// one given, every one given readable and harmless. Any `-WORD` that names a signal counts
/// as one given (`pkill -io` is `SIGIO` to procps), so this is read closed.
pub(super) fn ends_nothing(program: &str, args: &[String]) -> bool {
    let valued = signal_options(program);
    let mut given = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        // util-linux's `kill --timeout MS SIGNAL` sends a second signal later.
        if word.starts_with("--timeout") {
            return false;
        }
        if valued.contains(&word.as_str()) {
            given.push(words.next().and_then(|v| signal(v)));
        } else if let Some(value) = word.strip_prefix("--signal=") {
            given.push(signal(value));
        } else if let Some(spec) = word.strip_prefix('-')
            && let Some(harmless) = signal(spec)
        {
            given.push(Some(harmless));
        }
    }
    !given.is_empty() && given.iter().all(|g| *g == Some(true))
}

/// Whether `kill ARGS` only lists signals (`kill -l`, `kill -L 15`): it sends none.
fn lists_signals(args: &[String]) -> bool {
    (args.iter().take_while(|a| *a != "--")).any(|a| {
        matches!(a.as_str(), "-l" | "-L" | "--list" | "--table") || a.starts_with("--list=")
    })
}

/// Pid files' suffix: `/run/sshd.pid` holds the id of `sshd`.
const PID_FILE: &str = ".pid";

/// The service a pid file names (`sshd` of `/run/sshd.pid`).
fn pid_file_service(file: &str) -> Option<&str> {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.strip_suffix(PID_FILE).filter(|s| !s.is_empty())
}

/// The killers that do what `kill ARGS` does when its process ids are what a lookup prints:
/// `pgrep ARGS` is `pkill ARGS`, `pidof NAMES` is `killall NAMES`, `ps -C NAMES` is `killall
/// NAMES`, a pid file read (`cat /run/sshd.pid`, `$(< /run/sshd.pid)`) is `killall sshd`,
/// `lsof -t -i :PORT` is `fuser -k PORT/tcp`, `systemctl show … UNIT` (its `MainPID`) is
/// `systemctl kill UNIT`, and `ps … | grep PATTERN` is `pkill -f PATTERN`. The substitution
/// is read as a command line, wrappers and all (`$(sudo pgrep -f sshd)`), also as a process
/// group (`kill -- -$(pgrep -o sshd)`). A harmless signal (`kill -0`) or a signal list (`kill
/// -l`) kills nothing.
pub(super) fn kill_lookups(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if ends_nothing("kill", args) || lists_signals(args) {
        return out;
    }
    for arg in args {
        // `-$(pgrep sshd)`: the process group whose leader the lookup prints.
        let arg = arg.strip_prefix('-').unwrap_or(arg);
        let inner = (arg.strip_prefix("$(").and_then(|a| a.strip_suffix(')')))
            .or_else(|| arg.strip_prefix('`').and_then(|a| a.strip_suffix('`')));
        let Some(script) = inner.and_then(|inner| crate::shell::parse(inner).ok()) else {
            continue;
        };
        let quoted = |words: &[String]| -> String {
            (words.iter())
                .map(|w| crate::shell::quote(w).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut listed = false;
        for command in script.commands() {
            let args = &command.args;
            match command.program.as_str() {
                "pgrep" => out.push(format!("pkill {}", quoted(args))),
                "pidof" => out.push(format!("killall {}", quoted(args))),
                "ps" => {
                    listed = true;
                    // `ps -C sshd,dropbear`: the processes of those names.
                    let names = super::option_values(args, &["-C"]).flat_map(|v| v.split(','));
                    for name in names.filter(|n| !n.is_empty()) {
                        out.push(format!("killall {}", crate::shell::quote(name)));
                    }
                }
                // `systemctl show -p MainPID --value ssh`: the unit's processes.
                "systemctl" if args.iter().any(|a| a == "show") => {
                    let mut words = args.iter().skip_while(|a| *a != "show").skip(1);
                    while let Some(word) = words.next() {
                        if matches!(word.as_str(), "-p" | "--property" | "-P") {
                            words.next();
                        } else if !word.starts_with('-') {
                            out.push(format!("systemctl kill {}", crate::shell::quote(word)));
                        }
                    }
                }
                // `ps aux | grep sshd`: the lines that match are the processes killed.
                "grep" | "egrep" | "fgrep" if listed => {
                    let inverted = (args.iter()).any(|a| {
                        a == "--invert-match"
                            || a.starts_with('-') && !a.starts_with("--") && a.contains('v')
                    });
                    let pattern = super::option_value(args, &["-e", "--regexp"]).or_else(|| {
                        args.iter()
                            .map(String::as_str)
                            .find(|a| !a.starts_with('-'))
                    });
                    if let Some(pattern) = pattern.filter(|_| !inverted) {
                        out.push(format!("pkill -f {}", crate::shell::quote(pattern)));
                    }
                }
                "lsof"
                    if args
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('t')) =>
                {
                    let ports = (super::option_values(args, &["-i"]))
                        .filter_map(|spec| spec.rsplit_once(':').map(|(_, port)| port));
                    for port in ports {
                        out.push(format!("fuser -k {}/tcp", crate::shell::quote(port)));
                    }
                }
                _ => {}
            }
            // A pid file read by `cat FILE` or `$(< FILE)`.
            let files = (command.redirects.iter())
                .filter(|r| r.reads_stdin())
                .map(|r| r.target.as_str())
                .chain(
                    (command.program == "cat")
                        .then_some(args.iter().map(String::as_str))
                        .into_iter()
                        .flatten(),
                );
            for service in files.filter_map(pid_file_service) {
                out.push(format!("killall {}", crate::shell::quote(service)));
            }
        }
    }
    out
}

/// The stages of `pipeline` that feed stage `ci`, as one command line: the previous one,
/// and before it those it passes lines on from (`ps aux | grep sshd | awk '{print $2}'`), so
/// that a lookup filtered on its way (`… | xargs kill`) is read whole.
pub(super) fn feeding_stages(pipeline: &crate::shell::Pipeline, ci: usize) -> String {
    let mut start = ci.saturating_sub(1);
    while start > 0
        && (pipeline.commands.get(start))
            .is_some_and(|c| super::feeds::PASS_LINES.contains(&c.program.as_str()))
    {
        start -= 1;
    }
    (pipeline.commands[start..ci].iter())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `kill ARGS` in stage `ci` of `pipeline` with a variable among its words (`pgrep sshd |
/// while read p; do kill $p; done`): the ids it holds are lines the previous stages print,
/// read as their substitution (`kill $(pgrep sshd)`, which the kill lookups judge).
pub(super) fn fed_kill(
    pipeline: &crate::shell::Pipeline,
    ci: usize,
    command: &crate::shell::Command,
) -> Option<Vec<String>> {
    if ci == 0 || !command.args.iter().any(|a| a.starts_with('$')) {
        return None;
    }
    let from = feeding_stages(pipeline, ci);
    let mut run = vec!["kill".to_owned()];
    run.extend(command.args.iter().map(|a| match a.starts_with('$') {
        true => format!("$({from})"),
        false => a.clone(),
    }));
    Some(run)
}

/// pkill's options that take a value (`-s` is the session, not a signal).
const PKILL_VALUES: &[&str] = &[
    "-g",
    "--pgroup",
    "-G",
    "--group",
    "-P",
    "--parent",
    "-s",
    "--session",
    "-t",
    "--terminal",
    "-u",
    "--euid",
    "-U",
    "--uid",
    "-F",
    "--pidfile",
    "--ns",
    "--nslist",
    "--signal",
    "-r",
    "--runstates",
    "--cgroup",
    "-O",
    "--older",
    "-q",
    "--queue",
    "--env",
];

/// killall's options that take a value.
const KILLALL_VALUES: &[&str] = &[
    "-s",
    "--signal",
    "-u",
    "--user",
    "-o",
    "--older-than",
    "-y",
    "--younger-than",
    "-n",
    "--ns",
    "-Z",
    "--context",
];

/// `killall NAME` for each way in whose process `pkill ARGS` or `killall ARGS` could end
/// when it names them by a pattern or without case (`pkill 'ss.d'`, `pkill -f 'ssh[d]'`,
/// `killall -r 'ssh.*'`, `killall -I SSHD`) or by a pid file (`pkill -F /run/sshd.pid`).
/// `pkill -v` ends every process its pattern does not match: read closed, as matching.
pub(super) fn pattern_kills(program: &str, args: &[String]) -> Vec<String> {
    if !matches!(program, "pkill" | "killall") || ends_nothing(program, args) {
        return Vec::new();
    }
    let valued = if program == "pkill" {
        PKILL_VALUES
    } else {
        KILLALL_VALUES
    };
    // Signals written as options (`-HUP`, `-9`) are not option clusters.
    let args: Vec<String> = (args.iter())
        .filter(|a| !is_signal_word(a))
        .cloned()
        .collect();
    let words = crate::shell::getopt::read(&args, crate::shell::getopt::Style::Gnu, &[], |o| {
        valued.iter().any(|v| crate::shell::getopt::is(o, v))
    });
    let flag = |short: &str, long: &str| words.has(short, true) || words.has(long, false);
    let mut out = Vec::new();
    let mut kill = |name: &str| {
        let line = format!("killall {name}");
        if !out.contains(&line) {
            out.push(line);
        }
    };
    if program == "pkill" {
        for service in words
            .values(&["-F", "--pidfile"])
            .filter_map(pid_file_service)
        {
            kill(service);
        }
        let Some(pattern) = words.operands.first() else {
            return out;
        };
        let (full, exact) = (flag("-f", "--full"), flag("-x", "--exact"));
        let caseless = flag("-i", "--ignore-case");
        let negated = flag("-v", "--inverse");
        for (name, lines) in WAYS_IN {
            let candidates = std::iter::once(*name).chain(lines.iter().copied().filter(|_| full));
            if negated || could_match(pattern, exact, caseless, candidates) {
                kill(name);
            }
        }
    } else {
        let regexp = flag("-r", "--regexp");
        let caseless = flag("-I", "--ignore-case");
        for pattern in &words.operands {
            for (name, _) in WAYS_IN {
                let hit = match regexp {
                    true => could_match(pattern, false, caseless, std::iter::once(*name)),
                    // A path names the program's file: its last part is the name.
                    false => {
                        let base = pattern.rsplit('/').next().unwrap_or(pattern);
                        caseless && base.eq_ignore_ascii_case(name)
                    }
                };
                if hit {
                    kill(name);
                }
            }
        }
    }
    out
}

/// Whether the extended regular expression `pattern` matches one of `candidates` (whole,
/// with `exact`); one the guard cannot read matches (closed).
#[cfg(feature = "command-guard")]
fn could_match<'a>(
    pattern: &str,
    exact: bool,
    caseless: bool,
    mut candidates: impl Iterator<Item = &'a str>,
) -> bool {
    let source = match exact {
        true => format!("^(?:{pattern})$"),
        false => pattern.to_owned(),
    };
    match regex::RegexBuilder::new(&source)
        .case_insensitive(caseless)
        .size_limit(1 << 20)
        .build()
    {
        Ok(re) => candidates.any(|c| re.is_match(c)),
        Err(_) => true,
    }
}

/// Without the command guard nothing judges these readings: every pattern is read as
/// matching (closed).
#[cfg(not(feature = "command-guard"))]
fn could_match<'a>(
    _pattern: &str,
    _exact: bool,
    _caseless: bool,
    _candidates: impl Iterator<Item = &'a str>,
) -> bool {
    true
}

/// For `systemctl` and `service` given a glob unit or service name (`systemctl stop
/// 'ss?.service'`, `service ssh* stop`), the same command with each way-in service the glob
/// could match in its place: systemctl matches its glob against the units it has loaded,
/// and the shell an init script's glob against the scripts there.
pub(super) fn service_globs(program: &str, args: &[String]) -> Vec<String> {
    if !matches!(program, "systemctl" | "service") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (at, word) in args.iter().enumerate() {
        if word.starts_with('-') || !word.contains(['*', '?', '[']) {
            continue;
        }
        for service in WAY_IN_SERVICES {
            let names = [
                (*service).to_owned(),
                format!("{service}.service"),
                format!("{service}.socket"),
            ];
            let Some(name) = names
                .iter()
                .find(|n| crate::shell::globbing::name_matches(word, n))
            else {
                continue;
            };
            let mut line = vec![program.to_owned()];
            line.extend(args.iter().enumerate().map(|(i, a)| match i == at {
                true => name.clone(),
                false => crate::shell::quote(a).into_owned(),
            }));
            out.push(line.join(" "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn harmless_signals_end_nothing() {
        assert!(ends_nothing("kill", &words("-0 123")));
        assert!(ends_nothing("kill", &words("-s CONT 123")));
        assert!(ends_nothing("pkill", &words("-SIGWINCH sshd")));
        assert!(ends_nothing("pkill", &words("--signal=0 sshd")));
        assert!(!ends_nothing("pkill", &words("-HUP sshd")));
        assert!(!ends_nothing("pkill", &words("-0 -9 sshd")));
        assert!(!ends_nothing("pkill", &words("-0 -io sshd")));
        assert!(!ends_nothing("kill", &words("-s $S 123")));
        assert!(!ends_nothing("kill", &words("123")));
        assert!(!ends_nothing("kill", &words("--timeout 100 KILL -0 1")));
        // pkill's `-s` is the session.
        assert!(!ends_nothing("pkill", &words("-s 0 sshd")));
    }

    #[test]
    fn lookups_read_as_their_killers() {
        let read = |line: &str| kill_lookups(&[line.to_owned()]).join("; ");
        assert_eq!(read("-$(pgrep -o sshd)"), "pkill -o sshd");
        assert_eq!(
            read("$(ps -C sshd,dropbear -o pid=)"),
            "killall sshd; killall dropbear"
        );
        assert_eq!(
            read("$(systemctl show -p MainPID --value ssh)"),
            "systemctl kill ssh"
        );
        assert!(kill_lookups(&words("-0 $(pgrep sshd)")).is_empty());
        assert!(kill_lookups(&words("-l $(pgrep sshd)")).is_empty());
    }

    #[test]
    fn patterns_that_could_match_a_way_in() {
        let read = |program: &str, line: &str| pattern_kills(program, &words(line)).join("; ");
        assert_eq!(read("pkill", "ss.d"), "killall sshd");
        assert_eq!(read("pkill", "-f ssh[d]"), "killall sshd");
        assert_eq!(read("pkill", "-HUP -f ssh[d]"), "killall sshd");
        assert_eq!(read("pkill", "-i SSHD"), "killall sshd");
        assert_eq!(read("pkill", "SSHD"), "");
        assert_eq!(read("pkill", "-x ssh"), "");
        assert_eq!(read("pkill", "-f python.*server"), "");
        assert_eq!(read("pkill", "-u bob node"), "");
        assert_eq!(read("pkill", "-0 ss.d"), "");
        assert_eq!(read("pkill", "-F /run/sshd.pid"), "killall sshd");
        assert_eq!(read("killall", "-r ssh.*"), "killall sshd");
        assert_eq!(read("killall", "--regexp ss.d"), "killall sshd");
        assert_eq!(read("killall", "-I SSHD"), "killall sshd");
        assert_eq!(read("killall", "node"), "");
        assert_eq!(read("killall", "-r ^node$"), "");
    }

    #[test]
    fn glob_service_names_read_as_the_ways_in_they_match() {
        let read = |program: &str, line: &str| service_globs(program, &words(line)).join("; ");
        assert_eq!(
            read("systemctl", "stop ss?.service"),
            "systemctl stop ssh.service"
        );
        assert_eq!(
            read("service", "ssh* stop"),
            "service ssh stop; service sshd stop"
        );
        assert_eq!(read("systemctl", "stop [s]shd"), "systemctl stop sshd");
        assert_eq!(read("systemctl", "stop docker*"), "");
        assert_eq!(read("systemctl", "stop nginx"), "");
    }
}
