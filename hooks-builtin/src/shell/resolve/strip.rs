//! Taking the wrappers off a command (`sudo`, `env`, `timeout`, `docker exec`, `npm exec`,
//! …): what runs, as whom, where, with which variables.

use std::borrow::Cow;

use super::*;

/// A command with its wrappers stripped.
pub(super) struct Stripped {
    /// The words from the program on.
    pub(super) words: Vec<String>,
    pub(super) privileged: bool,
    /// The directory a wrapper runs it in (`env -C dir`), relative to where it was run.
    pub(super) dir: Option<String>,
    /// The assignments of the wrappers (`env X=1`, `sudo X=1`).
    pub(super) assignments: Vec<String>,
    /// The command lines the wrappers' own options run (`mosh --ssh=CMD`).
    pub(super) scripts: Vec<String>,
}

/// Strips the wrappers in front of the command.
pub(super) fn strip(
    mut words: Vec<String>,
    mut privileged: bool,
    sink: &mut Sink,
) -> Result<Stripped> {
    let mut i = 0;
    let mut dir = None;
    let mut scripts = Vec::new();
    while let Some(word) = words.get(i) {
        let name = command_name(word);
        let Some(w) = wrappers::find(&name) else {
            break;
        };
        if w.lead && words.get(i + 1).is_some_and(|a| !a.starts_with('-')) {
            words.remove(i + 1);
        }
        if !w.program_option.is_empty()
            && let Some(program) = (words.get(i + 1))
                .and_then(|a| a.strip_prefix(w.program_option))
                .map(str::to_owned)
        {
            sink.charge(program.len())?;
            words[i + 1] = program;
        }
        let sub = usize::from(!w.sub.is_empty());
        // Options between the name and the subcommand (`kubectl -n prod exec`); one of
        // `chdir`'s there says where the command runs too (`pnpm -C / exec …`).
        let mut global_chdir: Option<String> = None;
        // An option there may stand in for the operands too (`ip -all netns exec cmd`).
        let mut global_instead = false;
        // Or make the command's words one shell command line (`pnpm -c exec 'cmd'`).
        let mut global_line = false;
        // Without a subcommand there is nothing to look past; with one, options without a
        // value may stand before it in any case (`doppler --debug run`).
        let global = match w.global {
            ("", []) if w.sub.is_empty() => 0,
            (short, long) => {
                let after = &words[i + 1..];
                let n = walk_options(after, short, long, false, |opt, value| {
                    if names(w.chdir, opt) {
                        global_chdir = value.map(str::to_owned);
                    }
                    global_instead |= names(w.instead, opt);
                    global_line |= names(w.line_global, opt);
                });
                // A `--` ends them; it is no subcommand.
                if after.get(n.saturating_sub(1)).is_some_and(|a| a == "--") {
                    break;
                }
                n
            }
        };
        let grouped = words
            .get(i + 1 + global)
            .is_some_and(|a| w.group.contains(&a.as_str()));
        // The group's operands and own options come after it (`docker compose -f x.yml
        // exec`, `yarn workspace web exec`).
        let global = if grouped {
            let start = (i + 2 + global + w.group_operands).min(words.len());
            let after = &words[start..];
            global
                + 1
                + (start - (i + 2 + global))
                + walk_options(after, w.global.0, w.global.1, false, |_, _| {})
        } else {
            global
        };
        // A package manager may be pinned where it is the subcommand (`corepack pnpm@8 …`).
        let sub_word = |a: &String| {
            let a = a.as_str();
            w.sub.contains(&a)
                || (w.package && package_name(a).is_some_and(|name| w.sub.contains(&name)))
        };
        if sub == 1 && !words.get(i + 1 + global).is_some_and(sub_word) {
            break; // `uv pip install`: not the subcommand that runs a command
        }
        if w.sub_is_command {
            privileged |= w.privileged;
            // What follows is the subcommand's: `corepack pnpm exec …` is `pnpm exec …`.
            let at = i + 1 + global;
            if let Some(name) = package_name(&words[at]) {
                words[at] = name.to_owned();
            }
            i = at;
            continue;
        }
        let args = &words[i + 1 + global + sub..];
        if !w.lookup.is_empty()
            && args
                .first()
                .is_some_and(|a| a.starts_with('-') && a.contains(|c| w.lookup.contains(c)))
        {
            break; // `command -v rm` looks `rm` up, it does not run it
        }
        if w.split_string
            && let Some((at, len, value)) = env_split(w, args)
        {
            // The splice moves every word after it.
            sink.charge(words.len() - i)?;
            let at = i + 1 + at;
            words.splice(at..at + len, value.split_whitespace().map(str::to_owned));
            continue;
        }
        let (mut chdir, mut instead) = (global_chdir.as_deref(), global_instead);
        let (mut runs, mut as_caller) = (w.only_with == ("", &[]), false);
        let options = walk_options(args, w.short, w.long, w.dash, |opt, value| {
            if names(w.chdir, opt) {
                chdir = value;
            }
            instead |= names(w.instead, opt);
            runs |= names(w.only_with, opt);
            as_caller |= matches!(opt, Opt::Long(l) if w.as_caller.contains(&l));
        });
        if !runs {
            break; // `runuser bob -c 'script'` works like `su`
        }
        let mut skip = 1 + global + sub + options;
        if w.assignments {
            skip += words[(i + skip).min(words.len())..]
                .iter()
                .take_while(|a| is_env_assignment(a))
                .count();
        }
        if !instead {
            skip += w.operands;
        }
        if w.version && words.get(i + skip).is_some_and(|a| looks_like_version(a)) {
            skip += 1;
        }
        if words
            .get(i + skip)
            .is_some_and(|a| w.own.contains(&a.as_str()))
        {
            break; // `dotenv list`: the wrapper's own subcommand
        }
        if words
            .get(i + skip)
            .is_some_and(|a| w.then.contains(&a.as_str()))
        {
            skip += 1;
            skip += (words[i + skip..].iter())
                .take_while(|a| a.starts_with("--") && a.len() > 2)
                .count();
        }
        if w.context && options == 0 && words.get(i + skip).is_some_and(|a| a.contains(':')) {
            skip += 1;
        }
        // `kubectl exec POD -- cmd`: a `--` after the operands ends them.
        if w.operands > 0 && words.get(i + skip).is_some_and(|a| a == "--") {
            skip += 1;
        }
        // `kubectl exec pod -c app -- cmd`: the command follows the `--`, wherever it is.
        // A start word that is an option (`nix develop -c cmd`) is one only before a `--`
        // (`nix run pkg -- -c x` gives `-c` to the package's program), and without it the
        // wrapper runs no command of its words (`nix develop`, `nix run pkg`: resolve.rs).
        if !w.starts.is_empty() {
            let dashdash = w.starts.contains(&"--");
            let start = (words[i + 1 + global + sub..].iter())
                .take_while(|a| dashdash || *a != "--")
                .position(|a| w.starts.contains(&a.as_str()));
            match start {
                Some(at) => skip = 1 + global + sub + at + 1,
                None if !dashdash => break,
                // `scl enable c1 c2 'cmd'`: the last word is the command line.
                None if w.last_line => {
                    if let Some(line) = words.last().filter(|_| words.len() > i + skip) {
                        scripts.push(line.clone());
                    }
                    break;
                }
                None => {}
            }
        }
        if i + skip >= words.len() {
            break; // nothing to run: the wrapper is the command (`sudo -i`)
        }
        if (w.line_options.iter()).any(|o| words[i + skip].starts_with(o)) {
            break; // `flock FILE -c 'script'`
        }
        privileged |= w.privileged && !as_caller;
        if w.remote {
            // Another machine's or a container's directories: its home, or where it says.
            dir = Some(chdir.unwrap_or("~").to_owned());
        } else if let Some(target) = chdir {
            let joined = join_dir(dir, target);
            sink.charge(joined.len())?;
            dir = Some(joined);
        }
        // A package runner's command is a package, maybe pinned (`bunx rimraf@5 /`): the
        // program is the package's name.
        if w.package
            && let Some(name) = package_name(&words[i + skip])
        {
            words[i + skip] = name.to_owned();
        }
        // `yarn exec 'rm -rf ~'`, `pnpm -c exec 'cmd'`: the words are a shell command line
        // (after pnpm's subcommand, `-c` takes the command as its value: resolve.rs).
        if global_line
            || (sub == 1
                && words
                    .get(i + 1 + global)
                    .is_some_and(|s| w.line_subs.contains(&s.as_str())))
        {
            scripts.push(words[i + skip..].join(" "));
        }
        scripts.extend(
            super::options::option_commands(w.name, &words[i + 1..i + skip])
                .into_iter()
                .map(Cow::into_owned),
        );
        i += skip;
    }
    // A wrapper whose command is one word with blanks in it (`lerna exec 'rm -rf ~'`,
    // `pnpm exec 'cmd'`) names no program: the runners that take one run it as a shell
    // command line, and it is judged as one too.
    if i > 0
        && let Some(program) = words.get(i)
        && program.contains(char::is_whitespace)
    {
        scripts.push(words[i..].join(" "));
    }
    let assignments = words.drain(..i).filter(|w| is_env_assignment(w)).collect();
    Ok(Stripped {
        words,
        privileged,
        dir,
        assignments,
        scripts,
    })
}

/// Whether `opt` is one of a wrapper's options given as short letters and long names
/// ([`Wrapper::chdir`], [`Wrapper::instead`]).
fn names((short, long): (&str, &[&str]), opt: Opt<'_>) -> bool {
    match opt {
        Opt::Short(c) => short.contains(c),
        Opt::Long(l) => long.contains(&l),
    }
}

/// The name of a pinned package (`rimraf` of `rimraf@5`, `@scope/tool` of
/// `@scope/tool@latest`); `None` when it names no version.
fn package_name(word: &str) -> Option<&str> {
    let at = word.get(1..)?.rfind('@')? + 1;
    Some(&word[..at])
}

/// A version a version manager takes (`20`, `v20.1`, `lts/iron`, `node`, `stable`, `system`).
fn looks_like_version(word: &str) -> bool {
    let digits = word.trim_start_matches('v');
    (!digits.is_empty() && digits.starts_with(|c: char| c.is_ascii_digit()))
        || word.starts_with("lts/")
        || matches!(
            word,
            "node" | "stable" | "system" | "iojs" | "latest" | "default"
        )
}
