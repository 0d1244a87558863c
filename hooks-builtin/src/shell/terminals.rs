//! Programs that run a command in a terminal window or a multiplexer, or type it into one:
//! `xterm -e cmd`, `tmux new-session -d 'cmd'`, `tmux send-keys 'cmd' Enter`,
//! `screen -dm cmd`, `screen -X stuff 'cmd^M'`.

use super::resolve::{Opt, walk_options};

/// What such a program runs.
pub(super) enum Runs {
    /// A command, as words (`xterm -e rm -rf x`).
    Words(Vec<String>),
    /// Shell scripts (`tmux new-window 'make; sh'`, text typed into a pane).
    Scripts(Vec<String>),
}

/// tmux's own options that take a value (`-c` is a shell command it runs).
const TMUX_SHORT: &str = "cfLST";

/// tmux commands that run a shell command given as their last words, and their options that
/// take a value.
const TMUX_RUNNERS: &[(&[&str], &str)] = &[
    (&["new-session", "new"], "cefFnstxy"),
    (&["new-window", "neww"], "ceFnt"),
    (&["split-window", "splitw"], "ceFlt"),
    (&["respawn-pane", "respawnp"], "cet"),
    (&["respawn-window", "respawnw"], "cet"),
    (&["run-shell", "run"], "cdt"),
    (&["display-popup", "popup"], "bcdehsStTwxy"),
    (&["pipe-pane", "pipep"], "t"),
    (&["if-shell", "if"], "t"),
];

/// Keys `send-keys` names rather than types: they end or edit the line.
const KEY_NAMES: &[&str] = &[
    "Enter", "C-m", "C-j", "KPEnter", "Escape", "C-c", "C-d", "Space",
];

/// `screen`'s options that take a value.
const SCREEN_SHORT: &str = "cehpsStTX";

/// What `program` (one of the terminals or multiplexers) runs with `args`, when it is told.
pub(super) fn runs(program: &str, args: &[String]) -> Option<Runs> {
    match program {
        "tmux" => tmux(args),
        "screen" => screen(args),
        // Terminal emulators: the command after `-e` (or `--`), as words.
        _ => {
            let at = args.iter().position(|a| a == "-e" || a == "--")?;
            let words = args[at + 1..].to_vec();
            (!words.is_empty()).then_some(Runs::Words(words))
        }
    }
}

/// `tmux [-c cmd] COMMAND …`: the shell command of a command that runs one, or the text
/// `send-keys` types (a pane's shell runs it on `Enter`). Commands chained with `;` are each
/// looked at.
fn tmux(args: &[String]) -> Option<Runs> {
    let mut scripts = Vec::new();
    let n = walk_options(args, TMUX_SHORT, &[], false, |opt, value| {
        if let (Opt::Short('c'), Some(cmd)) = (opt, value) {
            scripts.push(cmd.to_owned());
        }
    });
    for command in args[n..].split(|a| a == ";" || a == "\\;") {
        let Some((sub, rest)) = command.split_first() else {
            continue;
        };
        if matches!(sub.as_str(), "send-keys" | "send") {
            let n = walk_options(rest, "Nt", &[], false, |_, _| {});
            let typed: Vec<&str> = rest[n..]
                .iter()
                .map(String::as_str)
                .filter(|k| !KEY_NAMES.contains(k))
                .collect();
            if !typed.is_empty() {
                scripts.push(typed.join(" "));
            }
            continue;
        }
        let Some((_, short)) = TMUX_RUNNERS
            .iter()
            .find(|(names, _)| names.contains(&sub.as_str()))
        else {
            continue;
        };
        let n = walk_options(rest, short, &[], false, |_, _| {});
        let words = &rest[n..];
        // `if-shell CMD TMUX-COMMAND…`: only its first word is a shell command.
        let words = if matches!(sub.as_str(), "if-shell" | "if") {
            &words[..words.len().min(1)]
        } else {
            words
        };
        if !words.is_empty() {
            scripts.push(words.join(" "));
        }
    }
    (!scripts.is_empty()).then_some(Runs::Scripts(scripts))
}

/// `screen [options] cmd args…` runs its command in a new window; `screen -X stuff TEXT` types
/// TEXT into a running one (`^M` or a newline ends its line); `-X exec cmd` and `-X screen cmd`
/// run cmd in it.
fn screen(args: &[String]) -> Option<Runs> {
    let mut remote = None;
    let n = walk_options(args, SCREEN_SHORT, &[], false, |opt, value| {
        if opt == Opt::Short('X') {
            remote = value;
        }
    });
    if let Some(first) = remote {
        // `-X stuff TEXT`: the screen command's name, then its words.
        let words: Vec<&str> = std::iter::once(first)
            .chain(args[n..].iter().map(String::as_str))
            .collect();
        return match words.split_first() {
            Some((&"stuff", text)) if !text.is_empty() => Some(Runs::Scripts(vec![
                text.join(" ").replace("^M", "\n").replace("\\n", "\n"),
            ])),
            // `-X exec cmd` and `-X screen cmd` run a command in the session.
            Some((&("exec" | "screen"), command)) if !command.is_empty() => Some(Runs::Words(
                command.iter().map(|w| (*w).to_owned()).collect(),
            )),
            _ => None,
        };
    }
    let words = args[n..].to_vec();
    (!words.is_empty()).then_some(Runs::Words(words))
}
