//! `git`: force pushes, hard resets, cleans and discards.

use super::*;

/// `git push --force` and friends, `git reset --hard`, `git clean -fd`, `git checkout -- .`.
pub(super) fn git(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let args = &command.args;
    const WITH_VALUE: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--config-env",
        "--exec-path",
    ];
    let mut i = 0;
    // Where the work tree is, when the global options, the environment or the directory say
    // (`--work-tree=/`, `-C ~`, `-c core.worktree=/`, `GIT_WORK_TREE=/`, `cd /etc && git …`).
    // An exported `GIT_WORK_TREE` counts as one set for the command (`export GIT_WORK_TREE=~;
    // git clean -fdx`).
    let exported = env.certain_readings("$GIT_WORK_TREE");
    let mut trees: Vec<&str> = (command.assignments.iter())
        .filter_map(|a| a.strip_prefix("GIT_WORK_TREE="))
        .chain(exported.iter().map(String::as_str))
        .chain(command.dir.as_deref())
        .collect();
    while let Some(arg) = args.get(i).filter(|a| a.starts_with('-')) {
        if let Some(tree) = arg.strip_prefix("--work-tree=") {
            trees.push(tree);
        } else if matches!(arg.as_str(), "--work-tree" | "-C") {
            trees.extend(args.get(i + 1).map(String::as_str));
        } else if arg == "-c"
            && let Some(tree) = args.get(i + 1).and_then(|v| {
                let (key, value) = v.split_once('=')?;
                key.eq_ignore_ascii_case("core.worktree").then_some(value)
            })
        {
            trees.push(tree);
        }
        i += if WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let Some((sub, rest)) = args.get(i..).and_then(<[String]>::split_first) else {
        return Vec::new();
    };
    let (flags, operands) = split_args(rest);
    let discards = |ops: &[&str]| {
        ops.iter()
            .any(|o| matches!(*o, "." | "./" | "*" | ":/" | ":/*" | ":(top)"))
    };
    match sub.as_str() {
        "push"
            if dry_run(
                rest,
                "o",
                &["--push-option", "--repo", "--receive-pack", "--exec"],
            ) =>
        {
            Vec::new()
        }
        "push" => push(&flags, &operands, env),
        "reset" if has_long_abbreviated(&flags, "hard", 2) => {
            vec![hit(
                GIT_RESET_HARD,
                "git reset --hard discards uncommitted changes",
            )]
        }
        "clean"
            if (has_short(&flags, 'f') || has_long_abbreviated(&flags, "force", 3))
                && !dry_run(rest, "e", &["--exclude"]) =>
        {
            // A clean of a work tree that is `/`, the home or a system directory deletes what
            // is there that git does not track: all of it, for `/`.
            let places: Vec<Hit> = (trees.iter())
                .filter_map(|tree| env.delete_hit(tree, None, "git clean of the work tree"))
                .filter(|hit| matches!(hit.rule.id, "rm-root" | "rm-home" | "rm-system"))
                .collect();
            if !places.is_empty() {
                return places;
            }
            if ['d', 'x', 'X'].iter().any(|x| has_short(&flags, *x)) {
                vec![hit(
                    GIT_CLEAN,
                    "git clean deletes untracked directories or ignored files",
                )]
            } else {
                vec![hit(GIT_CLEAN_FILES, "git clean -f deletes untracked files")]
            }
        }
        "checkout" if discards(&operands) => {
            vec![hit(
                GIT_DISCARD,
                "git checkout of every path discards uncommitted changes",
            )]
        }
        "restore"
            if discards(&operands)
                && (!(has_short(&flags, 'S') || has_long(&flags, "staged"))
                    || has_short(&flags, 'W')
                    || has_long_abbreviated(&flags, "worktree", 3)) =>
        {
            vec![hit(
                GIT_DISCARD,
                "git restore of every path discards uncommitted changes",
            )]
        }
        _ => Vec::new(),
    }
}

/// `-n`/`--dry-run` of `git clean` or `git push`, which wins over `-f`: git only lists what
/// it would do. The last of `-n`, `--dry-run` and `--no-dry-run` counts; the value of an
/// option that takes one (`-e`/`--exclude` of clean, `-o`/`--push-option` of push: `-e -n`,
/// `-enode_modules`) is no option.
fn dry_run(args: &[String], short_values: &str, long_values: &[&str]) -> bool {
    let mut dry = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        // git takes a long option by any unambiguous prefix (`--dry`, `--no-d`, `--exc`).
        let long = |name: &str, min: usize| arg.len() >= min && name.starts_with(arg.as_str());
        match arg.as_str() {
            "--" => break,
            _ if long("--dry-run", 3) => dry = true,
            _ if long("--no-dry-run", 6) => dry = false,
            a if a.starts_with("--")
                && !a.contains('=')
                && long_values.iter().any(|v| long(v, 4)) =>
            {
                words.next();
            }
            a if a.starts_with("--") => {}
            a if a.starts_with('-') => {
                let cluster = &a[1..];
                for (at, c) in cluster.char_indices() {
                    if c == 'n' {
                        dry = true;
                    } else if short_values.contains(c) {
                        // The rest of the cluster, or the next word, is its value.
                        if at + 1 == cluster.len() {
                            words.next();
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    dry
}

fn push(flags: &[&str], operands: &[&str], env: &Env<'_>) -> Vec<Hit> {
    // A lease (`--force-with-lease`, `--force-if-includes` with it) refuses to overwrite work
    // the pusher has not seen, so it is only refused on protected branches.
    // git takes a long option by any unambiguous prefix (`--force-w`, `--mirr`); an
    // ambiguous one (`--forc`) is refused by git and judged here as the harder force.
    let long = |name: &str| has_long_abbreviated(flags, name, 2);
    let hard = has_short(flags, 'f') || long("force") || long("mirror");
    let lease = long("force-with-lease");
    // `--prune` deletes the remote branches that have no local counterpart.
    let delete = has_short(flags, 'd') || long("delete") || long("prune");
    let all = ["all", "mirror", "branches"].iter().any(|f| long(f));
    // (branch, force: hard or by lease, deleted); `None` is every branch, or a current
    // branch not known.
    let mut targets: Vec<(Option<String>, Option<Force>, bool)> = Vec::new();
    let force = if hard {
        Some(Force::Hard)
    } else if lease {
        Some(Force::Lease)
    } else {
        None
    };
    for spec in operands.iter().skip(1) {
        let (plus, spec) = match spec.strip_prefix('+') {
            Some(spec) => (true, spec),
            None => (false, *spec),
        };
        let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
        let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
        let branch = if dst == "HEAD" {
            env.current_branch()
        } else if dst.contains('*') {
            None // `refs/heads/*`: every branch
        } else {
            Some(dst.to_owned())
        };
        let forced = if plus { Some(Force::Hard) } else { force };
        targets.push((branch, forced, delete || src.is_empty()));
    }
    if targets.is_empty() && (force.is_some() || delete) {
        let branch = if all { None } else { env.current_branch() };
        targets.push((branch, force, delete));
    }
    targets
        .into_iter()
        .filter(|(_, forced, deleted)| forced.is_some() || *deleted)
        .filter_map(|(branch, forced, deleted)| {
            let verb = if deleted {
                "remote delete of"
            } else {
                "force push to"
            };
            Some(match branch {
                Some(b) if !env.is_protected(&b) => {
                    let hard = forced == Some(Force::Hard);
                    return (!deleted && hard)
                        .then(|| hit(GIT_FORCE_PUSH, format!("{verb} branch {b}")));
                }
                Some(b) => hit(
                    GIT_FORCE_PUSH_PROTECTED,
                    format!("{verb} protected branch {b}"),
                ),
                None => hit(
                    GIT_FORCE_PUSH_PROTECTED,
                    format!("{verb} every branch, or a current branch that cannot be told"),
                ),
            })
        })
        .collect()
}

/// How a push forces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Force {
    /// `--force`, `-f`, `--mirror`, `+refspec`: overwrites whatever is there.
    Hard,
    /// `--force-with-lease`: overwrites only what the pusher has seen.
    Lease,
}

/// Pagers that run nothing else: a pager setting of one of these, with only option flags
/// (`less -FRX`), or `true`/`false`/empty (no pager) is left alone.
const PAGERS: &[&str] = &[
    "cat",
    "less",
    "more",
    "most",
    "delta",
    "diff-so-fancy",
    "bat",
    "true",
    "false",
];

/// `core.pager` or `pager.<cmd>` set to a command git runs on every paged command, later and
/// outside the agent's turn (`git config core.pager 'cat; curl … | sh'`, `git -c
/// core.pager=… log`, `--config-env`, whose value is the name of a variable): asked about
/// unless it is a known pager with only flags ([`PAGERS`]). Each value is judged as the one
/// argument it is, not the command line's joined text.
pub(super) fn pager_config(args: &[String]) -> Option<Hit> {
    let is_pager_key = |key: &str| {
        let key = key.to_ascii_lowercase();
        key == "core.pager" || key.strip_prefix("pager.").is_some_and(|k| !k.is_empty())
    };
    // Known pagers with flags (`less --tabs=4 -RFX`), piped into one another
    // (`diff-so-fancy | less -RFX`).
    let safe = |value: &str| {
        value.split('|').all(|part| {
            let mut words = part.split_whitespace();
            let pager_ok = words.next().is_none_or(|w| PAGERS.contains(&w));
            let flag = |b: u8| b.is_ascii_alphanumeric() || b"-=,._".contains(&b);
            pager_ok && words.all(|w| w.starts_with('-') && w[1..].bytes().all(flag))
        })
    };
    let mut settings: Vec<(String, Option<String>)> = Vec::new();
    let mut words = args.iter().peekable();
    // git's own options: `-c key=value`, `-ckey=value`, `--config-env key=VAR`.
    while let Some(arg) = words.next_if(|a| a.starts_with('-')) {
        let (option, value) = match arg.as_str() {
            "-c" | "--config-env" => (arg.as_str(), words.next().map(String::as_str)),
            a if a.starts_with("--config-env=") => {
                ("--config-env", a.strip_prefix("--config-env="))
            }
            a if a.starts_with("-c") => ("-c", a.strip_prefix("-c")),
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => {
                words.next();
                continue;
            }
            _ => continue,
        };
        let Some((key, value)) = value.and_then(|v| v.split_once('=')) else {
            continue;
        };
        if is_pager_key(key) {
            let value = (option == "-c").then(|| value.to_owned());
            settings.push((key.to_owned(), value));
        }
    }
    // `git config [options] KEY VALUE`, `git config set KEY VALUE`.
    if words.next().is_some_and(|sub| sub == "config") {
        let rest: Vec<&String> = words.collect();
        if let Some(at) = rest.iter().position(|w| is_pager_key(w))
            && let Some(value) = rest.get(at + 1)
        {
            settings.push((rest[at].to_string(), Some(value.to_string())));
        }
    }
    let (key, value) = settings
        .into_iter()
        .find(|(_, value)| !value.as_deref().is_some_and(safe))?;
    Some(hit(
        GIT_PAGER_CONFIG,
        match value {
            Some(value) => format!(
                "sets {key} to `{}`, which git runs on every paged command, later and outside the agent's turn",
                value.escape_debug()
            ),
            None => format!("sets {key} from a variable, which git runs on every paged command"),
        },
    ))
}
