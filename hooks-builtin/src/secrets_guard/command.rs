//! The shell part: every word of every command a command line runs, judged as a path, and
//! the commands that print environment variables.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::rules::{GlobCache, GlobUse, HOOK_CONFIG, SETTINGS_DIRS};
use super::{Access, Base, ENV_DUMP, ENV_SECRET, EnvDumps, Judged, SecretsGuard, rules};
use crate::paths::Dir;
use crate::shell::{self, Command, RedirectOp};
use crate::shown::one_line;

/// Most working directories a command line is judged against (its own, the tool's, `cd`s).
const MAX_BASES: usize = 8;
/// Most words one brace expansion yields.
const MAX_BRACE_WORDS: usize = 64;
/// Most paths one wildcard expands to.
const MAX_GLOB_MATCHES: usize = 256;
/// Most directory entries read per wildcard component and directory.
const MAX_DIR_ENTRIES: usize = 4096;
/// Most path checks per command line; past it the command is denied as too large to check.
const MAX_CHECKS: usize = 20_000;
/// Longest command text quoted in a reason, in characters.
const MAX_SHOWN: usize = 200;

/// How programs name the files they send, beyond a plain path and the `@file`/`<file` that
/// [`words`] reads in every program's arguments.
struct Sender {
    programs: &'static [&'static str],
    /// Options whose value may be `name@file` (`""`: every operand, as httpie's
    /// `field@file`).
    name_at: &'static [&'static str],
    /// Options whose value is sent as written: an `@` in it names no file.
    literal: &'static [&'static str],
}

const SENDERS: &[Sender] = &[
    Sender {
        programs: &["curl"],
        name_at: &["--data-urlencode", "--url-query", "--variable"],
        literal: &["--data-raw", "--form-string"],
    },
    Sender {
        programs: &["http", "https", "xh", "xhs"],
        name_at: &[""],
        literal: &[],
    },
];

/// When a program prints environment variables ([`ENV_PRINTERS`]).
#[derive(Clone, Copy)]
enum Prints {
    /// Everything without an operand (`printenv`); with operands, the variables they name.
    AllOrNamed,
    /// Everything, unless it starts from an empty environment (`-i`): `env` is only left as
    /// the program when it has no command to run.
    AllUnlessCleared,
    /// Everything when it has no operand, only options (`export -p`, `declare -x`).
    AllWithoutOperands,
    /// Everything when it has no argument at all (`set`; `set -e` sets an option).
    AllWithoutArguments,
    /// Every process's environment with a BSD option cluster holding `e` (`ps eww`, `ps auxe`).
    BsdE,
}

/// The programs that print environment variables, and when.
const ENV_PRINTERS: &[(&str, Prints)] = &[
    ("printenv", Prints::AllOrNamed),
    ("env", Prints::AllUnlessCleared),
    ("export", Prints::AllWithoutOperands),
    ("declare", Prints::AllWithoutOperands),
    ("typeset", Prints::AllWithoutOperands),
    ("set", Prints::AllWithoutArguments),
    ("ps", Prints::BsdE),
];

/// Programs that only test a variable (`[ -n "$API_KEY" ]`), never print it, and only ask
/// about a file (`test -f .env`), never read it.
const TESTERS: &[&str] = &["test", "[", "[["];

/// Segments of a variable name (split on `_`, trailing digits dropped) that say it holds a
/// secret: `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWD`, `GH_PAT`.
const SECRET_SEGMENTS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "PRIVATE",
    "PAT",
];

/// Last segments that say the variable names or locates a secret rather than holding it:
/// `AWS_ACCESS_KEY_ID`, `SSH_KEY_PATH`, `TOKEN_FILE`.
const POINTER_SEGMENTS: &[&str] = &[
    "ID", "PATH", "FILE", "DIR", "NAME", "URL", "URI", "USER", "USERNAME", "HOST", "PORT", "TYPE",
];

/// Checks a shell tool call: `Err` with the reason when it names a secrets file, `Ok(Some(_))`
/// when it prints environment variables (and `env_dumps` looks at those).
pub(super) fn check(
    guard: &SecretsGuard,
    tool: &str,
    input: &Value,
    cwd: &Path,
    root: &Dir,
) -> Judged {
    let text = command_text(input).ok_or_else(|| {
        format!("secrets-guard: {tool} call has no `command` string; cannot tell what it runs")
    })?;
    let home = guard.home.as_deref();
    let mut run = Run {
        guard,
        root: root.resolved(),
        bases: vec![Base::in_root(cwd, root)],
        seen: HashSet::new(),
    };
    let script = match shell::parse(&text) {
        Ok(script) => script,
        Err(e) => return unparsed(&mut run, tool, &text, &e),
    };
    let env = guard.env_dumps != EnvDumps::Allow;
    let variables = script.variables_by_name();
    let links = symlinks_made(&script);
    let mut last: Option<&str> = None;
    // Names the script gives a meaning of its own: a call to one runs that.
    let redefined: Vec<&str> = (script.functions.iter())
        .map(|f| f.name.as_str())
        .chain(
            (script.commands())
                .filter(|c| c.program == "alias")
                .flat_map(|c| c.args.iter().filter_map(|a| Some(a.split_once('=')?.0))),
        )
        .collect();
    let mut ask = None;
    for key in ["workdir", "cwd", "dir"] {
        if let Some(dir) = input.get(key).and_then(Value::as_str) {
            run.add_base(rules::lexical(&substitute(dir), cwd, home));
        }
    }
    for cmd in script.commands() {
        // The directory the parser knows the command runs in: a wrapper's (`env -C dir`,
        // `sudo -D dir`, `git -C`-like ones) or a `cd` before it.
        if let Some(dir) = &cmd.dir {
            run.add_base(rules::lexical(&substitute(dir), cwd, home));
        }
        if let Some((raw, path)) = removed_settings_dir(cmd, cwd, run.root, home) {
            return Err(format!(
                "secrets-guard: `{}` removes or moves `{}`{}, which holds agent settings: secrets rule \"{HOOK_CONFIG}\"",
                shown(cmd),
                one_line(&raw),
                super::note(&raw, &path, run.root),
            ));
        }
        if matches!(cmd.program.as_str(), "cd" | "pushd") {
            match cmd.args.iter().find(|a| !a.starts_with('-')) {
                Some(dir) => run.add_base(rules::lexical(&substitute(dir), cwd, home)),
                None => {
                    if let Some(h) = home {
                        run.add_base(h.to_path_buf());
                    }
                }
            }
        }
        let mut judged = Vec::new();
        for (word, access) in words(cmd, &redefined) {
            let Some(mut variants) = variables.readings(&word) else {
                return Err(format!(
                    "secrets-guard: `{}` uses variables with more values than can be checked; \
                     cannot decide",
                    shown(cmd)
                ));
            };
            variants.extend(through_links(&word, &links));
            variants.extend(extglob_readings(&word));
            // `$_` is the last argument of the command before (`test -f .env && cat "$_"`).
            variants.extend(last_argument(&word, last));
            judged.extend(std::iter::once(word).chain(variants).map(|w| (w, access)));
        }
        last = cmd.args.last().map(String::as_str).or(last);
        for (word, access) in judged {
            let found = run
                .word(&word, access)
                .map_err(|finding| format!("secrets-guard: `{}` names {finding}", shown(cmd)))?;
            if let Some(finding) = found {
                ask.get_or_insert_with(|| {
                    format!(
                        "secrets-guard: rule {ENV_DUMP}: `{}` names {finding}",
                        shown(cmd)
                    )
                });
            }
        }
        let filters = search_filters(cmd);
        if filters.len() > MAX_FILTERS {
            return Err(format!(
                "secrets-guard: `{}` has more than {MAX_FILTERS} name filters; cannot decide",
                shown(cmd)
            ));
        }
        for (key, filter) in filters {
            guard.check_filter(&format!("`{}`", shown(cmd)), key, filter, run.root)?;
        }
        if env && ask.is_none() {
            ask = env_print(cmd);
        }
    }
    Ok(ask)
}

/// `word` with its first extglob group (`@(a|b)`, `?(…)`, `*(…)`, `+(…)`, `!(…)`, which bash
/// matches with `shopt -s extglob`) read as each of its alternatives (`?(…)` and `*(…)` also
/// as nothing; `!(…)` as `*`): `cat ~/.@(aws)/credentials` is `~/.aws/credentials`. Groups
/// after the first are read the same way in turn, up to a few.
fn extglob_readings(word: &str) -> Vec<String> {
    const MAX: usize = 64;
    if !word.contains('(') {
        return Vec::new();
    }
    let mut readings = vec![word.to_owned()];
    let mut out = Vec::new();
    while let Some(current) = readings.pop() {
        let Some(open) = ["@(", "?(", "*(", "+(", "!("]
            .iter()
            .filter_map(|g| current.find(g))
            .min()
        else {
            if current != word {
                out.push(current);
            }
            continue;
        };
        let Some(len) = current[open + 2..].find(')') else {
            continue;
        };
        let (head, body, tail) = (
            &current[..open],
            &current[open + 2..open + 2 + len],
            &current[open + 3 + len..],
        );
        let kind = current.as_bytes()[open];
        let mut alternatives: Vec<&str> = match kind {
            b'!' => vec!["*"],
            _ => body.split('|').collect(),
        };
        if matches!(kind, b'?' | b'*') {
            alternatives.push("");
        }
        for alternative in alternatives {
            if readings.len() + out.len() >= MAX {
                break;
            }
            readings.push(format!("{head}{alternative}{tail}"));
        }
    }
    out
}

/// `word` with `$_`/`${_}` put in as `last`, the last argument of the command before.
fn last_argument(word: &str, last: Option<&str>) -> Option<String> {
    shell::put_variable(word, "_", last?)
}

/// The symbolic links the script makes (`ln -s TARGET LINK`), as written: a later word
/// through LINK reaches TARGET, which is not there to resolve when the guard looks
/// (`ln -s .claude c && echo … > c/settings.local.json`).
fn symlinks_made(script: &shell::Script) -> Vec<(String, String)> {
    let mut links = Vec::new();
    for cmd in script.commands().filter(|c| c.program == "ln") {
        let symbolic = cmd.args.iter().any(|a| {
            a == "--symbolic" || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
        });
        let operands: Vec<&String> = cmd.args.iter().filter(|a| !a.starts_with('-')).collect();
        if let (true, [target, link]) = (symbolic, operands.as_slice()) {
            let link = link.trim_end_matches('/');
            if !link.is_empty() {
                links.push((link.to_owned(), target.to_string()));
            }
        }
    }
    links
}

/// `word` read through the links the script makes: its leading link replaced by the link's
/// target (`c/settings.json` after `ln -s .claude c` is `.claude/settings.json`).
fn through_links(word: &str, links: &[(String, String)]) -> Vec<String> {
    links
        .iter()
        .filter_map(|(link, target)| {
            let rest = word.strip_prefix(link.as_str())?;
            (rest.is_empty() || rest.starts_with('/'))
                .then(|| format!("{}{rest}", target.trim_end_matches('/')))
        })
        .collect()
}

/// Programs that remove, or move away, what they are given.
const REMOVERS: &[&str] = &["rm", "rmdir", "mv", "unlink", "shred", "trash", "trash-put"];

/// The operand of a [`REMOVERS`] command that is an agent's [`SETTINGS_DIRS`] directory, as
/// written and resolved (lexically). An agent reads its settings from the project root and
/// the home directory, so only a settings directory there (or in a parent of the root) counts:
/// a fixture's or a package's `.claude` is the agent's to change. `mv`'s destination is not
/// removed (`mv notes.md .claude/`); the settings files moved onto are judged as written.
fn removed_settings_dir(
    cmd: &Command,
    cwd: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let base = match &cmd.dir {
        Some(dir) => rules::lexical(&substitute(dir), cwd, home),
        None => cwd.to_path_buf(),
    };
    if cmd.program == "find" {
        return find_removes_settings(cmd, &base, root, home);
    }
    if !REMOVERS.contains(&cmd.program.as_str()) {
        return None;
    }
    let mut operands: Vec<&String> = Vec::new();
    let mut target_given = false;
    let mut args = cmd.args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--" => operands.extend(args.by_ref()),
            "-t" | "--target-directory" => {
                target_given = true;
                args.next();
            }
            a if a.starts_with("--target-directory=") => target_given = true,
            a if a.starts_with('-') && a.len() > 1 => {}
            _ => operands.push(arg),
        }
    }
    if cmd.program == "mv" && !target_given {
        operands.pop();
    }
    operands.into_iter().find_map(|arg| {
        let path = rules::lexical(&substitute(arg), &base, home);
        let name = path.file_name()?.to_str()?;
        let parent = path.parent()?;
        let read_there = root.starts_with(parent) || home.is_some_and(|h| h == parent);
        (read_there && SETTINGS_DIRS.iter().any(|d| d.eq_ignore_ascii_case(name)))
            .then(|| (arg.clone(), path))
    })
}

/// `find` that removes what it finds (`-delete`, or `-exec rm`/`-execdir mv`/… of a
/// [`REMOVERS`] program) by a name filter that matches a settings directory (`-name .claude`,
/// `-iname '.gem*'`), from a start directory above where the agent reads one (the project
/// root, a parent, the home directory): the start directory as written, and where the
/// settings directory it reaches is.
fn find_removes_settings(
    cmd: &Command,
    base: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let args = &cmd.args;
    let removes = args.iter().zip(args.iter().skip(1)).any(|(a, next)| {
        a == "-delete"
            || (matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && (Path::new(next).file_name().and_then(|n| n.to_str()))
                    .is_some_and(|n| REMOVERS.contains(&n)))
    }) || args.last().is_some_and(|a| a == "-delete");
    if !removes {
        return None;
    }
    // A name followed by `-prune` is kept out (`-name .claude -prune -o … -delete`).
    let names = args.windows(3).filter_map(|w| {
        (matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath") && w[2] != "-prune")
            .then_some(&w[1])
    });
    let names = names.chain(
        args.len()
            .checked_sub(2)
            .map(|at| &args[at..])
            .filter(|w| matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath"))
            .map(|w| &w[1]),
    );
    let settings = names.filter_map(|pattern| {
        let glob = globset::GlobBuilder::new(pattern.trim_start_matches("*/"))
            .case_insensitive(true)
            .build()
            .ok()?
            .compile_matcher();
        SETTINGS_DIRS.iter().find(|d| glob.is_match(d))
    });
    let dir = settings.into_iter().next()?;
    let starts: Vec<&String> = args
        .iter()
        .take_while(|a| !a.starts_with(['-', '(', '!']))
        .collect();
    let dot = String::from(".");
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    starts.into_iter().find_map(|start| {
        let path = rules::lexical(&substitute(start), base, home);
        let reaches = |place: &Path| place.starts_with(&path);
        if reaches(root) {
            Some((start.clone(), root.join(dir)))
        } else {
            home.filter(|h| reaches(h))
                .map(|h| (start.clone(), h.join(dir)))
        }
    })
}

/// A command the parser refused. Past the work bounds it is denied: it might read a secrets
/// file. After a syntax error (an unclosed quote) a shell would refuse it too, so it is denied
/// only when one of its words, read loosely, names a secrets file; otherwise this guard has no
/// opinion (the command guard asks about it).
fn unparsed(run: &mut Run<'_>, tool: &str, text: &str, e: &shell::ShellError) -> Judged {
    use shell::ShellError::{TooComplex, TooDeep, TooLong};
    let cannot = |why: &str| {
        format!(
            "secrets-guard: the {tool} command cannot be parsed ({}); denied, since {why}",
            one_line(&e.to_string())
        )
    };
    if matches!(e, TooComplex | TooDeep | TooLong(_)) {
        return Err(cannot("it might read a secrets file"));
    }
    let words = text
        .split(|c: char| c.is_whitespace() || ";|&()<>`".contains(c))
        .map(|w| w.replace(['\'', '"', '\\'], ""))
        .filter(|w| !w.is_empty());
    for word in words {
        // `--data=@.env`, `x=@.env`: the file is after the last `=` or `@`.
        let pieces = std::iter::once(word.as_str()).chain(word.rsplit(['=', '@']).next());
        for piece in pieces {
            // What the command does with the word cannot be told: no read-only exception.
            run.word(piece, Access::Write)
                .map_err(|finding| cannot(&format!("it names {finding}")))?;
        }
    }
    Ok(None)
}

/// The reason to ask about `cmd` when it prints the environment or a secret variable.
fn env_print(cmd: &Command) -> Option<String> {
    // Written out only for a reason: most commands print nothing.
    let command = || shown(cmd);
    let prints = ENV_PRINTERS
        .iter()
        .find(|(program, _)| *program == cmd.program)
        .map(|&(_, prints)| prints);
    let is_option = |a: &&String| a.starts_with('-') || a.starts_with('+');
    let operands = || cmd.args.iter().filter(|a| !is_option(a));
    let all = match prints {
        Some(Prints::AllOrNamed) => {
            if let Some(name) = operands().find(|n| secret_name(n)) {
                return Some(format!(
                    "secrets-guard: rule {ENV_SECRET}: `{}` prints {}, whose name says \
                     it holds a secret",
                    command(),
                    one_line(name)
                ));
            }
            operands().next().is_none()
        }
        Some(Prints::AllUnlessCleared) => !cmd.args.iter().any(|a| env_clears(a)),
        Some(Prints::AllWithoutOperands) => operands().next().is_none(),
        Some(Prints::AllWithoutArguments) => cmd.args.is_empty(),
        Some(Prints::BsdE) => cmd
            .args
            .first()
            .is_some_and(|a| a.contains('e') && a.bytes().all(|b| b.is_ascii_alphabetic())),
        None => false,
    };
    if all {
        return Some(format!(
            "secrets-guard: rule {ENV_DUMP}: `{}` prints the environment, secrets included",
            command()
        ));
    }
    if TESTERS.contains(&cmd.program.as_str()) {
        return None;
    }
    let words = std::iter::once(&cmd.program)
        .chain(&cmd.args)
        .chain(cmd.redirects.iter().map(|r| &r.target));
    let name = words.flat_map(|w| expanded(w)).find(|n| secret_name(n))?;
    Some(format!(
        "secrets-guard: rule {ENV_SECRET}: `{}` expands ${name}, whose name says it holds \
         a secret",
        command()
    ))
}

/// True when `arg` of an `env` with nothing to run empties the environment (`-i`, `-0i`,
/// `--ignore-environment`, `-`), so it prints only what it was given.
fn env_clears(arg: &str) -> bool {
    if arg == "-" || arg == "--ignore-environment" {
        return true;
    }
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return false;
    };
    // The letters after `-u`, `-C` or `-S` are that option's value (`-uPIN`), not flags.
    cluster
        .chars()
        .take_while(|c| !matches!(c, 'u' | 'C' | 'S'))
        .any(|c| c == 'i')
}

/// The names of the variables `word` expands (`$NAME`, `${NAME}`, `${NAME:-x}`), leaving out
/// `${#NAME}` (a length) and `${NAME:+x}` (whether it is set), which print no value.
fn expanded(word: &str) -> Vec<&str> {
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = word.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let braced = bytes.get(i + 1) == Some(&b'{');
        let mut start = i + 1 + usize::from(braced);
        if braced && bytes.get(start) == Some(&b'!') {
            start += 1;
        }
        let end = start + bytes[start..].iter().take_while(|&&b| is_name(b)).count();
        let name = &word[start..end];
        // `${#NAME}` leaves the name empty: `#` is not a name character.
        let tests_only = braced && (word[end..].starts_with(":+") || word[end..].starts_with('+'));
        if !name.is_empty() && !name.as_bytes()[0].is_ascii_digit() && !tests_only {
            out.push(name);
        }
        i = end.max(i + 1);
    }
    out
}

/// True when the variable `name` says it holds a secret: an upper-case name (the environment's
/// convention; lower-case ones are a script's own) with a [`SECRET_SEGMENTS`] segment, not
/// ending in a [`POINTER_SEGMENTS`] one.
fn secret_name(name: &str) -> bool {
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        return false;
    }
    let segments: Vec<&str> = name
        .split('_')
        .map(|s| s.trim_end_matches(|c: char| c.is_ascii_digit()))
        .filter(|s| !s.is_empty())
        .collect();
    let secret = segments.iter().any(|s| SECRET_SEGMENTS.contains(s));
    let pointer = segments
        .last()
        .is_some_and(|s| POINTER_SEGMENTS.contains(s));
    secret && !pointer
}

/// The state of one command line's check.
struct Run<'a> {
    guard: &'a SecretsGuard,
    root: &'a Path,
    bases: Vec<Base>,
    seen: HashSet<(String, usize, Access)>,
}

impl Run<'_> {
    fn add_base(&mut self, base: PathBuf) {
        if self.bases.len() < MAX_BASES && !self.bases.iter().any(|b| b.path() == base) {
            self.bases.push(Base::new(base));
        }
    }

    /// Judges one word against every working directory (once when it is absolute): the
    /// first environment file it names, if any, after every secrets check has passed.
    fn word(&mut self, word: &str, access: Access) -> Judged {
        let Some(word) = local_path(word) else {
            return Ok(None);
        };
        let word = substitute(word);
        let mut ask = None;
        for form in expand_braces(&word) {
            let absolute = form.starts_with('/') || form.starts_with('~');
            let bases = if absolute { 1 } else { self.bases.len() };
            for b in 0..bases {
                let found = self.one(&form, b, access)?;
                ask = ask.or(found);
                if !has_wildcard(&form) {
                    continue;
                }
                let base = self.bases[b].path().to_path_buf();
                let home = self.guard.home.as_deref();
                for path in expand_glob(&form, &base, home, &self.guard.globs) {
                    let text = path.to_string_lossy().into_owned();
                    let found = self
                        .one(&text, b, access)
                        .map_err(|finding| format!("{form:?}, which expands to {finding}"))?;
                    ask = ask.or(found.map(|f| format!("{form:?}, which expands to {f}")));
                }
            }
        }
        Ok(ask)
    }

    fn one(&mut self, raw: &str, base: usize, access: Access) -> Judged {
        if raw.is_empty() || !self.seen.insert((raw.to_owned(), base, access)) {
            return Ok(None);
        }
        if self.seen.len() > MAX_CHECKS {
            return Err(format!(
                "more than {MAX_CHECKS} paths; too large to check, denied"
            ));
        }
        self.guard
            .check_path(raw, &self.bases[base], self.root, access)
    }
}

/// The command line of a shell tool's input: a `command` string, or an argv list (Codex).
pub(super) fn command_text(input: &Value) -> Option<String> {
    match input.get("command")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) if !items.is_empty() => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let quoted: Vec<String> = words?
                .into_iter()
                .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
                .collect();
            Some(quoted.join(" "))
        }
        _ => None,
    }
}

/// The words of `cmd` that may name files, and how: every argument (and the value of
/// `--opt=value`, `if=value`, and of `-ivalue` short options), the file of each of those
/// written `@file` or `<file` (curl's `-d @f` and `-F x=<f`, httpie's `x=@f`, `gh api -F
/// x=@f`, `gcc @f`; a `;type=…` suffix dropped), the `name@file` forms of [`SENDERS`], all
/// read; and every file redirection target, written for `>`.
fn words(cmd: &Command, redefined: &[&str]) -> Vec<(String, Access)> {
    // An argument of a program that may change its operands (`cp x ~/.ssh/config`,
    // `sed -i`, `rm hooks.yaml`, `tee`) is a write target: the read-only exceptions do not
    // apply to it. Only the programs of `READERS` read their operands.
    let arg_access = if reads_only(cmd) {
        Access::Read
    } else {
        Access::Write
    };
    let sender = SENDERS
        .iter()
        .find(|s| s.programs.contains(&cmd.program.as_str()));
    let mut out = Vec::with_capacity(cmd.args.len() * 2 + cmd.redirects.len());
    let mut previous: Option<&str> = None;
    // What a program's name says it does holds only for that program: not for a file of that
    // name run by path (`./test .env`) or a function or alias the script defines.
    let trusted = !cmd.by_path && !redefined.contains(&cmd.program.as_str());
    let names_only = trusted && names_only(cmd);
    let ssh = trusted && matches!(cmd.program.as_str(), "ssh" | "scp" | "sftp");
    let mut key_next = false;
    for arg in &cmd.args {
        // The operands of a program that uses only names; its options are still judged
        // (`git rm --cached --pathspec-from-file=.env` reads the file).
        let skip = (names_only
            && !arg.starts_with('-')
            && !previous.is_some_and(|p| p.starts_with("--pathspec")))
            // The identity file of `ssh -i KEY` (`-iKEY`); a word taken as `-i`'s value is
            // not itself a `-i` (`scp -i -i .env host:` sends `.env`).
            || (ssh && (key_next || arg == "-i" || (arg.starts_with("-i") && arg.len() > 2)));
        key_next = ssh && !key_next && arg == "-i";
        if skip {
            previous = Some(arg);
            continue;
        }
        let value_of = |opts: &[&str]| previous.is_some_and(|p| opts.contains(&p));
        let literal = sender.is_some_and(|s| value_of(s.literal));
        let name_at = sender.is_some_and(|s| {
            value_of(s.name_at) || (s.name_at.contains(&"") && !arg.starts_with('-'))
        });
        let mut forms = vec![arg.as_str()];
        if let Some((_, value)) = arg.split_once('=') {
            forms.push(value);
        }
        // A container's bind mount makes a host path readable inside it (`-v ~/.aws:/a`,
        // `--mount type=bind,src=~/.aws,dst=/a`).
        if let Some(source) = bind_source(cmd, previous, arg) {
            forms.push(source);
        }
        // git names a file in a commit or the index as `REV:path`, `:path`, `:0:path`
        // (`git show HEAD:.env`, `git cat-file -p :.env`).
        if cmd.program == "git" && !arg.contains("://") {
            let first = arg.split_once(':').map(|(_, path)| path);
            let last = arg.rsplit_once(':').map(|(_, path)| path);
            forms.extend(first.into_iter().chain(last).filter(|p| !p.is_empty()));
        }
        if let Some(rest) = arg.strip_prefix('-')
            && !rest.starts_with('-')
            && let Some((i, _)) = rest.char_indices().nth(1)
        {
            forms.push(&rest[i..]);
        }
        for form in forms {
            out.push((form.to_owned(), arg_access));
            if !literal && let Some(file) = form.strip_prefix(['@', '<']) {
                push_file(&mut out, file);
            }
        }
        if name_at
            && !literal
            && let Some((_, file)) = arg.split_once('@')
        {
            push_file(&mut out, file);
        }
        previous = Some(arg);
    }
    for r in &cmd.redirects {
        let file = match r.op {
            RedirectOp::HereDoc | RedirectOp::HereString => false,
            RedirectOp::DupIn | RedirectOp::DupOut => {
                !r.target.bytes().all(|b| b.is_ascii_digit() || b == b'-')
            }
            _ => true,
        };
        if file {
            let access = if r.writes_file() {
                Access::Write
            } else {
                Access::Read
            };
            out.push((r.target.clone(), access));
        }
    }
    out.extend(copied_into(cmd).into_iter().map(|p| (p, Access::Write)));
    // `git cat-file --batch` prints the objects its input names (`<<< HEAD:.env`).
    let batch = cmd.program == "git"
        && cmd.args.iter().any(|a| a == "cat-file")
        && cmd.args.iter().any(|a| a.starts_with("--batch"));
    if batch {
        let bodies = (cmd.redirects.iter())
            .filter(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
            .flat_map(|r| r.target.lines());
        for object in bodies.filter_map(|line| line.trim().split_once(':')) {
            let path = object.1.rsplit(':').next().unwrap_or(object.1);
            if !path.is_empty() {
                out.push((path.to_owned(), Access::Read));
            }
        }
    }
    out
}

/// Whether `cmd` uses its operands' names and never their contents: `test -f .env`,
/// `git rm --cached .env` (untracks it, the fix for a committed secret), `git check-ignore`.
/// Its redirections are still judged.
fn names_only(cmd: &Command) -> bool {
    if TESTERS.contains(&cmd.program.as_str()) {
        return true;
    }
    if cmd.program != "git" {
        return false;
    }
    // Git's own options before the subcommand (`-C dir`) are not looked through: such a call
    // is judged whole, as before.
    match cmd.args.first().map(String::as_str) {
        Some("check-ignore") => !cmd.args.iter().any(|a| a == "--stdin"),
        Some("rm") => cmd.args.iter().any(|a| a == "--cached"),
        _ => false,
    }
}

/// At most this many name filters of one search are judged; past it the guard cannot decide.
const MAX_FILTERS: usize = 64;

/// The name filters of a search that reads or runs something on what it finds: `find`'s
/// `-name`/`-path` (and `-iname`, `-ipath`, `-wholename`) when it has an `-exec`/`-execdir`/
/// `-ok`/`-okdir` action (`find ~ -name 'id_*' -exec cat {} +`), and `grep`'s `--include`
/// and `rg`'s `-g`/`--glob`/`--iglob`, which choose the files read: each with its option.
fn search_filters(cmd: &Command) -> Vec<(&str, &str)> {
    let args = &cmd.args;
    let pairs = args.iter().zip(args.iter().skip(1));
    match cmd.program.as_str() {
        "find" => {
            let acts = args
                .iter()
                .any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
            if !acts {
                return Vec::new();
            }
            const NAMES: &[&str] = &[
                "-name",
                "-iname",
                "-path",
                "-ipath",
                "-wholename",
                "-iwholename",
            ];
            pairs
                .filter(|(option, _)| NAMES.contains(&option.as_str()))
                .map(|(option, value)| (option.as_str(), value.as_str()))
                .collect()
        }
        // `rg --files` lists the files it would search, reading none.
        "rg" if args.iter().any(|a| a == "--files") => Vec::new(),
        "grep" | "egrep" | "fgrep" | "rg" => {
            let separate: &[&str] = if cmd.program == "rg" {
                &["-g", "--glob", "--iglob"]
            } else {
                &["--include"]
            };
            let mut out: Vec<(&str, &str)> = pairs
                .filter(|(option, _)| separate.contains(&option.as_str()))
                .map(|(option, value)| (option.as_str(), value.as_str()))
                .collect();
            for arg in args {
                for option in separate.iter().filter(|o| o.starts_with("--")) {
                    if let Some(value) = arg.strip_prefix(option).and_then(|v| v.strip_prefix('='))
                    {
                        out.push((option, value));
                    }
                }
                if cmd.program == "rg"
                    && let Some(value) = arg.strip_prefix("-g").filter(|v| !v.is_empty())
                {
                    out.push(("-g", value));
                }
            }
            // A negated glob (`-g '!*.env'`) leaves files out.
            out.retain(|(_, value)| !value.starts_with('!'));
            out
        }
        _ => Vec::new(),
    }
}

/// The host path of a container engine's bind mount in `arg` (after `previous`): the
/// part before the first `:` of a `-v`/`--volume` value, the `source=`/`src=` of a `--mount`.
fn bind_source<'a>(cmd: &Command, previous: Option<&str>, arg: &'a str) -> Option<&'a str> {
    if !matches!(
        cmd.program.as_str(),
        "docker" | "podman" | "nerdctl" | "finch"
    ) {
        return None;
    }
    let value = match previous {
        Some("-v" | "--volume" | "--mount") => arg,
        _ => (arg.strip_prefix("--volume="))
            .or_else(|| arg.strip_prefix("--mount="))
            .or_else(|| {
                arg.strip_prefix("-v")
                    .filter(|v| !v.is_empty() && !v.starts_with('-'))
            })?,
    };
    if previous == Some("--mount") || arg.starts_with("--mount=") {
        return value.split(',').find_map(|field| {
            (field.strip_prefix("source=")).or_else(|| field.strip_prefix("src="))
        });
    }
    value.split(':').next().filter(|s| !s.is_empty())
}

/// What `mv`, `cp`, `install` or `ln` write when their last operand is a directory: each
/// source's name in it (`mv /tmp/x/settings.json .claude/` writes `.claude/settings.json`).
/// Judged whether or not it is one: when it is not, the path names nothing.
fn copied_into(cmd: &Command) -> Vec<String> {
    if !matches!(cmd.program.as_str(), "mv" | "cp" | "install" | "ln") {
        return Vec::new();
    }
    let operands: Vec<&str> = cmd
        .args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some((dest, sources)) = operands.split_last() else {
        return Vec::new();
    };
    // A glob's names are the ones it matches where it is written, not in the destination.
    let glob = |w: &&str| w.contains(['*', '?', '[']);
    if glob(dest) {
        return Vec::new();
    }
    sources
        .iter()
        .filter(|s| !glob(s))
        .filter_map(|s| Path::new(s).file_name()?.to_str())
        .map(|name| format!("{}/{name}", dest.trim_end_matches('/')))
        .collect()
}

/// Programs that only read (or print the names of) their operands, whatever the options:
/// for them a read-only exception applies (`cat ~/.ssh/config`, `grep Host ~/.ssh/config`,
/// `cat hooks.yaml`). A program that can write a file named by an option or operand (`sed
/// -i`, `sort -o`, `uniq in out`, `awk -i inplace`, `yq -i`, `git checkout`, `less -o`) is not
/// one, nor is any program not listed; `ssh` reads without `-E`, `rg` without `--pre` (which
/// hands each file to a program).
const READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "wc",
    "diff",
    "cmp",
    "file",
    "stat",
    "ls",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "bat",
    "od",
    "hexdump",
    "strings",
    "nl",
    "cut",
    "test",
    "[",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "echo",
    "printf",
    "jq",
];

/// `git` subcommands that do not write the working tree or a file named by an option.
const GIT_READERS: &[&str] = &["diff", "log", "show", "status", "blame", "ls-files", "add"];

/// Whether `cmd` only reads its operands ([`READERS`], `ssh` without `-E`, read-only `git`
/// subcommands without `--output`).
fn reads_only(cmd: &Command) -> bool {
    if READERS.contains(&cmd.program.as_str()) {
        return !(cmd.program == "rg" && cmd.args.iter().any(|a| a.starts_with("--pre")));
    }
    // `ssh -F ~/.ssh/config` reads it; `-E file` appends ssh's log to a file.
    if cmd.program == "ssh" {
        return !cmd
            .args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('E'));
    }
    cmd.program == "git"
        && cmd
            .args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|sub| GIT_READERS.contains(&sub.as_str()))
        && !cmd
            .args
            .iter()
            .any(|a| a.starts_with("--output") || a == "-o")
}

/// `file` as a word to judge, and its part before a `;` (curl's `-F x=@f;type=text/plain`).
fn push_file(out: &mut Vec<(String, Access)>, file: &str) {
    out.push((file.to_owned(), Access::Read));
    if let Some((head, _)) = file.split_once(';') {
        out.push((head.to_owned(), Access::Read));
    }
}

/// The local path a word names: `file://x` is `x`; other URLs name no local file. A URL's
/// scheme is case-insensitive (`FILE:///x` is read by curl as `file:///x`).
fn local_path(word: &str) -> Option<&str> {
    const FILE: &str = "file://";
    if word
        .get(..FILE.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(FILE))
    {
        return word.get(FILE.len()..);
    }
    (!word.contains("://")).then_some(word)
}

/// A leading `$HOME`/`${HOME}` becomes `~`; `$PWD`/`${PWD}`/`$(pwd)`/`` `pwd` `` becomes `.`.
fn substitute(word: &str) -> String {
    const HOME: [&str; 2] = ["${HOME}", "$HOME"];
    const PWD: [&str; 4] = ["${PWD}", "$PWD", "$(pwd)", "`pwd`"];
    let replace = |vars: &[&str], with: &str| {
        vars.iter().find_map(|v| {
            let rest = word.strip_prefix(v)?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{with}{rest}"))
        })
    };
    replace(&HOME, "~")
        .or_else(|| replace(&PWD, "."))
        .unwrap_or_else(|| word.to_owned())
}

/// Bash brace expansion of `a{b,c}d` (nested, at most [`MAX_BRACE_WORDS`] words); a word
/// without a `{…,…}` group is returned as it is.
fn expand_braces(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into(word, &mut out);
    if out.is_empty() {
        out.push(word.to_owned());
    }
    out
}

fn expand_into(word: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_BRACE_WORDS {
        return;
    }
    let Some((open, close, commas)) = first_group(word) else {
        out.push(word.to_owned());
        return;
    };
    let (prefix, suffix) = (&word[..open], &word[close + 1..]);
    let mut start = open + 1;
    for end in commas.into_iter().chain(std::iter::once(close)) {
        let alt = &word[start..end];
        expand_into(&format!("{prefix}{alt}{suffix}"), out);
        start = end + 1;
    }
}

/// The first `{…}` group with a top-level comma: its braces' and commas' byte offsets.
fn first_group(word: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = word.as_bytes();
    let mut from = 0;
    while let Some(at) = word[from..].find('{') {
        let open = from + at;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if !commas.is_empty() {
                            return Some((open, i, commas));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        from = open + 1;
    }
    None
}

fn has_wildcard(word: &str) -> bool {
    word.contains(['*', '?', '['])
}

/// The existing paths a word with wildcards expands to, as the shell would (a component that
/// does not start with `.` does not match dotfiles).
fn expand_glob(word: &str, base: &Path, home: Option<&Path>, globs: &GlobCache) -> Vec<PathBuf> {
    let path = rules::lexical(word, base, home);
    let mut frontier = vec![PathBuf::new()];
    for comp in path.components() {
        let name = match comp {
            Component::Normal(name) => name,
            other => {
                frontier.iter_mut().for_each(|f| f.push(other.as_os_str()));
                continue;
            }
        };
        let Some(pattern) = name.to_str().filter(|n| has_wildcard(n)) else {
            frontier.iter_mut().for_each(|f| f.push(name));
            continue;
        };
        let Ok(matcher) = globs.get(pattern, GlobUse::Word) else {
            return Vec::new();
        };
        let dotfiles = pattern.starts_with('.');
        let mut next = Vec::new();
        'dirs: for dir in &frontier {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.take(MAX_DIR_ENTRIES).flatten() {
                let file = entry.file_name();
                if !dotfiles && file.as_encoded_bytes().first() == Some(&b'.') {
                    continue;
                }
                if matcher.is_match(Path::new(&file)) {
                    next.push(dir.join(&file));
                    if next.len() >= MAX_GLOB_MATCHES {
                        break 'dirs;
                    }
                }
            }
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    frontier
}

/// `cmd` for a reason: escaped and at most [`MAX_SHOWN`] characters.
fn shown(cmd: &Command) -> String {
    let text = one_line(&cmd.to_string());
    match text.char_indices().nth(MAX_SHOWN) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_or_moving_a_settings_directory_is_found() {
        let cwd = Path::new("/p");
        let home = Some(Path::new("/h"));
        let removed = |src: &str| {
            let script = shell::parse(src).expect("parses");
            let found = script
                .commands()
                .find_map(|c| removed_settings_dir(c, cwd, cwd, home));
            found.map(|(_, path)| path.display().to_string())
        };
        assert_eq!(removed("rm -rf .claude").as_deref(), Some("/p/.claude"));
        assert_eq!(removed("rm -rf ./.Claude/").as_deref(), Some("/p/.Claude"));
        assert_eq!(
            removed("mv ~/.gemini /tmp/x").as_deref(),
            Some("/h/.gemini")
        );
        assert_eq!(
            removed("cd sub && rmdir ../.claude").as_deref(),
            Some("/p/.claude")
        );
        assert_eq!(
            removed("env -C /h rm -r .claude").as_deref(),
            Some("/h/.claude")
        );
        assert_eq!(removed("mv -t /tmp .claude").as_deref(), Some("/p/.claude"));
        for kept in [
            "rm .claude/commands/x.md",
            "ls .claude",
            "cp -r .claude /tmp",
            "rm -- -claude",
            // Moved into, not away.
            "mv review.md .claude/",
            "mv agents docs .claude",
            // Not where an agent reads its settings.
            "rm -rf packages/web/.claude",
            "env -C a rm -r .claude",
            "rm -rf /tmp/fixture/.gemini",
        ] {
            assert_eq!(removed(kept), None, "{kept}");
        }
    }

    #[test]
    fn braces_expand_nested_and_leave_plain_words_alone() {
        assert_eq!(expand_braces(".{env,x}"), [".env", ".x"]);
        assert_eq!(expand_braces("a{b,{c,d}}e"), ["abe", "ace", "ade"]);
        assert_eq!(expand_braces("{}"), ["{}"]);
        assert_eq!(expand_braces("x{a}y{1,2}"), ["x{a}y1", "x{a}y2"]);
        assert_eq!(expand_braces("{unclosed,"), ["{unclosed,"]);
        let many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
        assert_eq!(expand_braces(many).len(), MAX_BRACE_WORDS);
    }

    #[test]
    fn home_and_pwd_variables_are_substituted_only_as_a_leading_directory() {
        assert_eq!(substitute("$HOME/.ssh/id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(substitute("${HOME}"), "~");
        assert_eq!(substitute("$HOMEDIR/x"), "$HOMEDIR/x");
        assert_eq!(substitute("$(pwd)/.env"), "./.env");
        assert_eq!(substitute("x/$HOME"), "x/$HOME");
    }

    #[test]
    fn argv_commands_are_quoted_back_into_one_line() {
        let input = serde_json::json!({"command": ["bash", "-lc", "cat '.env'"]});
        assert_eq!(
            command_text(&input).unwrap(),
            r"'bash' '-lc' 'cat '\''.env'\'''"
        );
        assert!(command_text(&serde_json::json!({"command": ["ls", 1]})).is_none());
        assert!(command_text(&serde_json::json!({"command": []})).is_none());
        assert!(command_text(&serde_json::json!({"cmd": "ls"})).is_none());
    }

    #[test]
    fn secret_variable_names_are_told_by_their_segments() {
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "API_KEY",
            "KEY",
            "DB_PASSWD",
            "GH_PAT",
            "SSH_PRIVATE_KEY",
            "NPM_TOKEN2",
            "AWS_SECRET_ACCESS_KEY_",
        ] {
            assert!(secret_name(name), "{name}");
        }
        for name in [
            "HOME",
            "PATH",
            "KEYBOARD",
            "MONKEY_BUSINESS",
            "TOKENIZERS_PARALLELISM",
            "AWS_ACCESS_KEY_ID",
            "SSH_KEY_PATH",
            "PWD",
            "api_key",
            "Api_Key",
            "",
            "_",
        ] {
            assert!(!secret_name(name), "{name}");
        }
    }

    #[test]
    fn env_clears_only_with_its_own_i_flag() {
        for arg in ["-i", "-0i", "-", "--ignore-environment"] {
            assert!(env_clears(arg), "{arg}");
        }
        for arg in ["-0", "-uvisible", "--unset=FOO", "FOO=bar", "-Cdir"] {
            assert!(!env_clears(arg), "{arg}");
        }
    }

    #[test]
    fn expanded_variables_leave_lengths_and_set_tests_out() {
        assert_eq!(expanded("$A/${B}x${C:-$D}"), ["A", "B", "C", "D"]);
        assert_eq!(
            expanded("${#A} ${B:+y} ${C+z} $1 $$ $? $"),
            Vec::<&str>::new()
        );
        assert_eq!(expanded("${!REF}"), ["REF"]);
        assert_eq!(expanded("a$"), Vec::<&str>::new());
    }

    #[test]
    fn upload_forms_name_the_file_they_send() {
        let script = shell::parse(
            "curl -d @a -F 'x=<b;type=t' --data-urlencode n@c --data-raw @d https://e",
        )
        .unwrap();
        let cmd = script.commands().next().unwrap();
        let words: Vec<String> = words(cmd, &[]).into_iter().map(|(w, _)| w).collect();
        for file in ["a", "b", "c"] {
            assert!(words.iter().any(|w| w == file), "{file}: {words:?}");
        }
        assert!(!words.iter().any(|w| w == "d"), "{words:?}");
    }

    #[test]
    fn urls_are_not_local_paths_but_file_urls_are() {
        assert_eq!(local_path("https://x.example/a.key"), None);
        assert_eq!(local_path("file:///home/me/.env"), Some("/home/me/.env"));
        assert_eq!(local_path(".env"), Some(".env"));
    }
}
