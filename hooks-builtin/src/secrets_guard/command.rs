//! The shell part: every word of every command a command line runs, judged as a path, and
//! the commands that print environment variables.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::rules::HOOK_CONFIG;
use super::{Access, Base, ENV_DUMP, EnvDumps, Judged, SecretsGuard, rules};
use crate::paths::Dir;
use crate::shell::{self, Command};
use crate::shown::one_line;

mod code_env;
mod env;
mod expand;
mod printers;
mod settings;
mod words;

use crate::shell::links::{self, links_made, through_links};
use code_env::{env_in_code, indirect};
use env::env_print;
use expand::{expand_braces, expand_glob, has_wildcard, substitute};
use printers::credential_print;
use settings::{code_takes_settings, removed_settings_dir};
use words::{MAX_FILTERS, is_interpreter, local_path, search_filters, words};

/// Most working directories a command line is judged against (its own, the tool's, `cd`s).
const MAX_BASES: usize = 8;
/// Most path checks per command line; past it the command is denied as too large to check.
const MAX_CHECKS: usize = 20_000;
/// Longest command text quoted in a reason, in characters.
const MAX_SHOWN: usize = 200;

/// Programs that only test a variable (`[ -n "$API_KEY" ]`), never print it, and only ask
/// about a file (`test -f .env`), never read it.
const TESTERS: &[&str] = &["test", "[", "[["];

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
        dots: false,
    };
    let script = match shell::parse_kept(&text) {
        Ok(script) => script,
        Err(e) => return unparsed(&mut run, tool, &text, &e),
    };
    run.dots = shell::globbing::dot_names(&script, &text);
    let env = guard.env_dumps != EnvDumps::Allow;
    let variables = script.variables_by_name();
    let links = links_made(&script, Some(cwd));
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
    // Whose words hold code: an interpreter's, and those of the stages that pipe into one
    // after them (`echo 'print(open(".env").read())' | python3`).
    // The interpreter's program, so that its code is read in its language.
    let code: Vec<Option<&str>> = (script.pipelines.iter())
        .flat_map(|p| {
            let last = p.commands.iter().rposition(|c| is_interpreter(&c.program));
            let program = last.map(|l| p.commands[l].program.as_str());
            (0..p.commands.len()).map(move |k| program.filter(|_| last.is_some_and(|l| k <= l)))
        })
        .collect();
    // Whose output is piped into a login that reads a password on its input.
    let into_login: Vec<bool> = (script.pipelines.iter())
        .flat_map(|p| {
            (0..p.commands.len())
                .map(move |k| p.commands.get(k + 1).is_some_and(printers::reads_password))
        })
        .collect();
    let lists_read = words::ignore_lists_read(&script);
    for ((cmd, interpreter), into_login) in script.commands().zip(code).zip(into_login) {
        let code = interpreter.is_some();
        // The directory the parser knows the command runs in: a wrapper's (`env -C dir`,
        // `sudo -D dir`, `git -C`-like ones) or a `cd` before it.
        if let Some(dir) = &cmd.dir {
            run.add_base(rules::lexical(&substitute(dir), cwd, home));
        }
        // A word's other spellings: what a variable holds, the plain globs of its pattern
        // syntax (`.@(claude)`), what a link the line makes reaches
        // (the link itself only for a command that follows it: `chmod 000 c`, not `rm c`).
        let follows = links::follows_links(cmd);
        let also = |word: &str, dir: bool| -> Vec<String> {
            let mut spellings = variables.readings(word).unwrap_or_default();
            spellings.extend(shell::globbing::pattern_readings(word));
            let through: Vec<String> = std::iter::once(word.to_owned())
                .chain(spellings.iter().cloned())
                .flat_map(|w| through_links(&w, &links, follows || dir, Some(cwd)))
                .collect();
            spellings.extend(through);
            spellings
        };
        // Its words, once: the settings check of an interpreter's code and the path checks
        // below both read them.
        let cmd_words = words(cmd, &redefined, code, lists_read);
        let mut taken = removed_settings_dir(cmd, cwd, run.root, home, &also, run.dots);
        if taken.is_none() && code {
            // The strings of an interpreter's code (`shutil.rmtree('.claude')`).
            let text: Vec<&str> = (cmd.args.iter().map(String::as_str))
                .chain(cmd.redirects.iter().map(|r| r.target.as_str()))
                .collect();
            let strings: Vec<String> = (cmd_words.iter()).map(|(word, _)| word.clone()).collect();
            let base = (cmd.dir.as_deref()).map_or_else(
                || cwd.to_path_buf(),
                |d| rules::lexical(&substitute(d), cwd, home),
            );
            taken = code_takes_settings(&text.join(" "), &strings, &base, run.root, home);
        }
        if let Some((raw, path)) = taken {
            return Err(format!(
                "secrets-guard: `{}` removes, moves, hides or overwrites `{}`{}, which holds agent settings: secrets rule \"{HOOK_CONFIG}\"",
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
        for (word, access) in cmd_words {
            let Some(mut variants) = variables.readings(&word) else {
                return Err(format!(
                    "secrets-guard: `{}` uses variables with more values than can be checked; \
                     cannot decide",
                    shown(cmd)
                ));
            };
            variants.extend(through_links(&word, &links, true, Some(cwd)));
            variants.extend(shell::globbing::pattern_readings(&word));
            // What zsh matches under glob qualifiers (`cat dir/*(D)`).
            variants
                .extend(shell::globbing::qualifier(&word).map(|(pattern, _)| pattern.to_owned()));
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
            ask = env_print(cmd)
                .or_else(|| {
                    (!into_login)
                        .then(|| credential_print(cmd, || shown(cmd)))
                        .flatten()
                })
                .or_else(|| {
                    let program = interpreter?;
                    // The code an interpreter runs: its own words, and what is piped into it
                    // as text, not the words of other programs before it (`grep -rn
                    // os.environ src | python3 -c …`).
                    let own = is_interpreter(&cmd.program)
                        || CODE_SOURCES.contains(&cmd.program.as_str());
                    own.then(|| code_env(cmd, program, 0)).flatten()
                })
                .or_else(|| {
                    let testers = TESTERS.contains(&cmd.program.as_str());
                    let mut args = cmd.args.iter().filter(|_| !testers);
                    args.find_map(|word| indirect(word, || shown(cmd)))
                });
        }
    }
    Ok(ask)
}

/// Programs whose words can be the code piped into an interpreter after them (`echo
/// 'print(os.environ)' | python3`).
const CODE_SOURCES: &[&str] = &["echo", "printf", "cat"];

/// How deep [`code_env`] follows the commands in code's literals.
const MAX_CODE_ENV_DEPTH: usize = 3;

/// The reason to ask about the code `cmd` holds for `program` (its words, here-documents and
/// here-strings) when it reads the environment ([`env_in_code`]), or runs a command line that
/// prints it or a credential (`os.system("gh auth token")`).
fn code_env(cmd: &Command, program: &str, depth: usize) -> Option<String> {
    let command = || shown(cmd);
    let texts = || {
        cmd.args
            .iter()
            .chain(cmd.redirects.iter().map(|r| &r.target))
    };
    texts()
        .find_map(|text| env_in_code(text, program, command))
        .or_else(|| {
            texts()
                .flat_map(|text| words::code_commands(text))
                .find_map(|run| {
                    let found = env_print(&run)
                        .or_else(|| credential_print(&run, || shown(&run)))
                        .or_else(|| {
                            if !is_interpreter(&run.program) {
                                return None;
                            }
                            if depth >= MAX_CODE_ENV_DEPTH {
                                // Deeper code is not read: closed, and said.
                                return Some(format!(
                                    "secrets-guard: rule {ENV_DUMP}: `{}` nests interpreter code more than {MAX_CODE_ENV_DEPTH} deep; what it reads of the environment cannot be judged",
                                    shown(&run)
                                ));
                            }
                            code_env(&run, &run.program, depth + 1)
                        })?;
                    Some(format!("{found} (run by `{}`)", command()))
                })
        })
}

/// `word` with `$_`/`${_}` put in as `last`, the last argument of the command before.
fn last_argument(word: &str, last: Option<&str>) -> Option<String> {
    shell::put_variable(word, "_", last?)
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

/// The state of one command line's check.
struct Run<'a> {
    guard: &'a SecretsGuard,
    root: &'a Path,
    bases: Vec<Base>,
    seen: HashSet<(String, usize, Access)>,
    /// The line makes globs match dot names ([`shell::globbing::dot_names`]).
    dots: bool,
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
                for path in expand_glob(&form, &base, home, &self.guard.globs, self.dots) {
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

/// `cmd` for a reason: escaped and at most [`MAX_SHOWN`] characters.
fn shown(cmd: &Command) -> String {
    let text = one_line(&cmd.to_string());
    match text.char_indices().nth(MAX_SHOWN) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests;
