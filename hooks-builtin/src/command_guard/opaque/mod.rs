//! What the guard cannot see into is asked, never allowed (`core.shell`, and
//! `rm-unknown-variable` in `core.filesystem`).
//!
//! The parser sees every command a line runs, but some commands run text that only exists
//! when the line runs: the output of a substitution, the value of a variable, a decoded
//! payload, a file just downloaded. Such a command could be anything, so these rules ask
//! (class `builtin_ask`: ask by default) instead of letting it through unjudged:
//!
//! | id | catches | does not catch |
//! |---|---|---|
//! | `eval-computed` | `eval` of text holding an expansion: `eval "$CMD"`, `eval $(…)`, `eval "$(cat f)"` | `eval` of literal text, parsed and judged as a script (`eval "echo hi"`); the output of well-known shell setup commands ([`SHELL_SETUP`]: `eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`, `eval "$(direnv hook bash)"`) |
//! | `substitution-run` | a command whose program is a substitution or a variable: `$(echo rm) -rf /`, `` `cat cmd.txt` ``, `"$(…)" args`, `$CMD args`, `${X}`, `"$@"` (variables are not expanded) | lookups the parser resolves (`$(which rm)` is `rm`), a variable directory before a literal name (`$VENV/bin/python` is `python`), shell setup output ([`SHELL_SETUP`]) |
//! | `source-substitution` | a script read from a process substitution or standard input: `source <(…)`, `. <(…)`, `source /dev/stdin`, `bash <(…)`, `sh < <(…)`, `python3 <(…)` | downloads (`source <(curl …)` is `curl-pipe-shell`, denied); shell setup ([`SHELL_SETUP`]: `source <(kubectl completion bash)`) |
//! | `decode-to-shell` | a shell or interpreter reading its script on standard input from anything but literal text: `base64 -d x \| sh`, `xxd -r -p \| bash`, `openssl enc -d … \| sh`, `gunzip -c x \| sh`, `rev \| sh`, `cat f \| sh`, `printf '\x72m …' \| sh` (escapes the parser does not decode); a substitution, `eval` or process substitution whose commands decode (`sh -c "$(echo … \| base64 -d)"`) | literal text, which the parser reads as the script and judges (`echo 'ls' \| sh`, `cat <<EOF \| sh`); for an interpreter, literal code is judged by the [`super::interp`] rules; downloads (`curl-pipe-shell`) |
//! | `download-then-run` | a file written by a downloader (`curl -o f`, `curl -O URL/f`, `wget URL/f`, `wget -O f`, `aria2c -o f`, `curl … > f`, `curl … \| tee f`) and run in the same command line: as a shell or interpreter script (`sh f`, `bash < f`, `python3 f`), sourced (`. f`), or as the program (`./f`) | a download that is not run (`curl -o f URL && cat f`); a file extracted from a downloaded archive; files are matched by name, in any order |
//! | `rm-unknown-variable` | a recursive delete (`rm -r`, `find … -delete`, interpreter deletions) of a path that starts with a variable: `rm -rf "$DIR/"*`, `rm -rf $X`, `${X:-}/`, `${X}/build`, `./$X` | `$HOME` and `$PWD` (known, judged as `~` and `.`), `$TMPDIR` when this process's `TMPDIR` is a temporary directory, `$(…)` (`rm-outside-project`) |
//! | `ifs-expansion` | a word that splits on `$IFS` (`rm${IFS}-rf${IFS}/`, `cat${IFS}/etc/passwd`); the command is also read again with `$IFS` as a space and that reading is judged, so `rm${IFS}-rf${IFS}/` is denied as `rm-root` | a word that is only `$IFS` (`echo "$IFS"`), assignments (`IFS=, read …`) |
//!
//! Variables are never expanded: `X=rm; $X -rf /` asks (`substitution-run`), and so does
//! `DIR=build; rm -rf "$DIR"` (`rm-unknown-variable`). A compound stage of a pipeline is
//! judged by the commands at its edges: `(base64 -d x) | sh` and `base64 -d x | (sh)` as
//! `base64 -d x | sh` ([`crate::shell::Pipeline`]).

use crate::shell::{self, Command, Pipeline, RedirectOp, Script, ShellScript};

use super::interp;
use super::rules::{
    self, DECODE_TO_SHELL, DOWNLOAD_THEN_RUN, DOWNLOADERS, EVAL_COMPUTED, Env, Hit, IFS_EXPANSION,
    PROGRAM_GLOB, RM_UNKNOWN_VARIABLE, SOURCE_SUBSTITUTION, SUBSTITUTION_RUN, WRITE_THEN_RUN, hit,
};
use super::user::wildcard;

mod downloads;
mod variables;

use downloads::download_then_run;
use variables::{command_variables, script_variables};

/// Commands whose output is shell setup meant to be evaluated or sourced, so `eval "$(…)"`,
/// `source <(…)` and `$(…)` of them do not ask: the program (its file name, exactly), then
/// the words its arguments must start with (`*` matches any run of characters in a word).
const SHELL_SETUP: &[&str] = &[
    // agents
    "ssh-agent",
    "gpg-agent",
    "keychain",
    // version managers and environments
    "direnv hook",
    "direnv export",
    "pyenv init",
    "pyenv virtualenv-init",
    "rbenv init",
    "nodenv init",
    "goenv init",
    "jenv init",
    "plenv init",
    "phpenv init",
    "pipenv --completion",
    "fnm env",
    "mise activate",
    "mise env",
    "rtx activate",
    "asdf exec",
    "opam env",
    "opam config env",
    "conda shell.* hook",
    "micromamba shell hook",
    "mamba shell hook",
    "brew shellenv",
    "path_helper",
    "luarocks path",
    "minikube docker-env",
    "docker-machine env",
    "dircolors",
    // prompts and shell tools
    "zoxide init",
    "starship init",
    "atuin init",
    "mcfly init",
    "thefuck --alias",
    "fzf --bash",
    "fzf --zsh",
    // completions
    "kubectl completion",
    "helm completion",
    "kind completion",
    "gh completion",
    "glab completion",
    "docker completion",
    "npm completion",
    "pnpm completion",
    "pip completion",
    "pip3 completion",
    "rustup completions",
    "poetry completions",
    "deno completions",
    "bun completions",
    "just --completions",
    "uv generate-shell-completion",
    "uvx --generate-shell-completion",
    "register-python-argcomplete",
    "terraform -install-autocomplete",
];

/// Programs that decode, decompress, decrypt or reverse their input: a payload piped from
/// them into a shell is hidden from the parser (any other producer asks too, with a plainer
/// reason).
const DECODERS: &[&str] = &[
    "base64",
    "base32",
    "basenc",
    "xxd",
    "uudecode",
    "openssl",
    "gpg",
    "age",
    "gunzip",
    "gzip",
    "zcat",
    "bzcat",
    "bunzip2",
    "bzip2",
    "xz",
    "xzcat",
    "unxz",
    "lzcat",
    "zstd",
    "zstdcat",
    "unzstd",
    "lz4",
    "lz4cat",
    "brotli",
    "uncompress",
    "rev",
    "tr",
    "iconv",
    "recode",
];

/// Files that are standard input.
const STDIN_FILES: &[&str] = &["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// Hits of the rules that look at the whole script (`download-then-run`, `decode-to-shell`).
pub(super) fn script_hits(script: &Script, env: &Env<'_>) -> Vec<Hit> {
    let mut hits: Vec<Hit> = script
        .pipelines
        .iter()
        .flat_map(|p| piped_scripts(p, env))
        .collect();
    hits.extend(download_then_run(script));
    hits.extend(script_variables(script, env));
    hits
}

/// Hits of the rules that look at one command (`eval-computed`, `substitution-run`,
/// `source-substitution`, `ifs-expansion`); `rm-unknown-variable` is [`unknown_variable`],
/// asked by the delete rules for each operand.
pub(super) fn command_hits(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    hits.extend(eval_computed(command));
    hits.extend(substitution_run(command));
    hits.extend(source_substitution(command));
    hits.extend(ifs_expansion(command, env));
    hits.extend(program_glob(command));
    hits.extend(command_variables(command, env));
    hits
}

/// `program-glob`: a program named by a glob (`/bin/r? -rf /`, `/???/?m`): which program the
/// shell picks depends on the files that exist when it runs.
fn program_glob(command: &Command) -> Option<Hit> {
    let program = command.program.as_str();
    let glob =
        program.contains(['*', '?']) || (program.contains('[') && !matches!(program, "[" | "[["));
    glob.then(|| {
        hit(
            PROGRAM_GLOB,
            format!("the program `{program}` is a glob; which program runs cannot be told"),
        )
    })
}

/// A shell glob of a file name as an anchored regular expression: `*`, `?`, `[…]` (`[!…]`
/// and `[^…]` negated); `None` for a bracket left open.
pub(super) fn glob_regex(glob: &str) -> Option<regex::Regex> {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                out.push('[');
                if chars.next_if(|&c| c == '!' || c == '^').is_some() {
                    out.push('^');
                }
                let mut closed = false;
                let mut first = true;
                for c in chars.by_ref() {
                    if c == ']' && !first {
                        closed = true;
                        break;
                    }
                    first = false;
                    if matches!(c, '\\' | '[' | ']' | '&' | '~' | '-' | '^') && c != '-' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                if !closed {
                    return None;
                }
                out.push(']');
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    regex::Regex::new(&out).ok()
}

/// `rm-unknown-variable`: the hit for deleting `operand` (`how`: `recursive delete`) when it
/// starts with a variable whose value cannot be known (`$DIR/*`, `${X:-}/`, `./$X`); `None`
/// for other operands, and for `$HOME`, `$PWD` (judged as `~` and `.`) and a `$TMPDIR` that
/// is known to be a temporary directory.
pub(super) fn unknown_variable(operand: &str, how: &str) -> Option<Hit> {
    let path = operand.strip_prefix("./").unwrap_or(operand);
    let Some(rest) = path.strip_prefix('$') else {
        return inner_variable(operand, how);
    };
    let (name, plain) = match rest.strip_prefix('{') {
        Some(inner) => {
            let name = crate::shell::variable_name(inner);
            let plain = inner[name.len()..].starts_with('}')
                && after_brace(inner).is_none_or(|r| r.is_empty() || r.starts_with('/'));
            (name, plain)
        }
        None if rest.starts_with('(') => return None,
        None => {
            let name = crate::shell::variable_name(rest);
            let tail = &rest[name.len()..];
            (name, tail.is_empty() || tail.starts_with('/'))
        }
    };
    let known = matches!(name, "HOME" | "PWD") && plain && path.len() == operand.len();
    // `$TMPDIR` is known only when this process's `TMPDIR` is a temporary directory.
    let temp = name == "TMPDIR" && plain && super::rules::tmpdir().is_some();
    if known || temp {
        return None;
    }
    let var = match name {
        "" => rest
            .chars()
            .next()
            .map_or("$".to_owned(), |c| format!("${c}")),
        name => format!("${name}"),
    };
    Some(hit(
        RM_UNKNOWN_VARIABLE,
        format!(
            "{how} of a path that starts with {var}, a variable the guard does not expand (`{operand}`)"
        ),
    ))
}

/// `rm-unknown-variable` for a variable later in the path (`.$X`, `..$X`, `build/$X/..`): its
/// value may hold `/` or `..` and take the path anywhere (`$X` empty makes `.$X` the project).
fn inner_variable(operand: &str, how: &str) -> Option<Hit> {
    let at = operand.match_indices('$').find_map(|(i, _)| {
        let next = operand[i + 1..].chars().next()?;
        (next == '{' || next == '_' || next.is_ascii_alphanumeric()).then_some(i)
    })?;
    let var: String = operand[at..].chars().take_while(|c| *c != '/').collect();
    Some(hit(
        RM_UNKNOWN_VARIABLE,
        format!(
            "{how} of a path holding {var}, a variable the guard does not expand: its value may \
             take the path anywhere (`{operand}`)"
        ),
    ))
}

/// What follows the `}` closing `${…`, given the text after `${`.
fn after_brace(inner: &str) -> Option<&str> {
    inner.find('}').map(|i| &inner[i + 1..])
}

/// The text of a word that is one substitution: `$(…)`, `` `…` `` or `<(…)`.
fn substitution_body(word: &str) -> Option<&str> {
    word.strip_prefix("$(")
        .or_else(|| word.strip_prefix("<("))
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| {
            word.strip_prefix('`')
                .and_then(|w| w.strip_suffix('`'))
                .filter(|w| !w.is_empty())
        })
}

/// What the commands of a substitution's text do, for choosing the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inner {
    /// Well-known shell setup ([`SHELL_SETUP`]).
    Setup,
    /// A download: `curl-pipe-shell` denies it.
    Download,
    /// Decodes (`base64 -d`, `printf '\x72m'`).
    Decode,
    /// Anything else, or text that does not parse.
    Other,
}

fn inner(text: &str) -> Inner {
    let Ok(script) = shell::parse(text) else {
        return Inner::Other;
    };
    let mut commands = script.commands();
    if script
        .commands()
        .any(|c| DOWNLOADERS.contains(&c.program.as_str()))
    {
        return Inner::Download;
    }
    if script.commands().any(decodes) {
        return Inner::Decode;
    }
    match (commands.next(), commands.next()) {
        (Some(c), None) if is_setup(c) => Inner::Setup,
        _ => Inner::Other,
    }
}

/// True when `command` is one of [`SHELL_SETUP`], with no expansion in its words.
fn is_setup(command: &Command) -> bool {
    let words = || std::iter::once(&command.program).chain(&command.args);
    if words().any(|w| w.contains(['$', '`'])) {
        return false;
    }
    SHELL_SETUP.iter().any(|entry| {
        let mut pattern = entry.split(' ');
        if pattern.next() != Some(command.program.as_str()) {
            return false;
        }
        let mut args = command.args.iter();
        pattern.all(|p| args.next().is_some_and(|a| wildcard(p, a)))
    })
}

/// True when `command` decodes its input or prints escapes the parser does not decode.
fn decodes(command: &Command) -> bool {
    DECODERS.contains(&command.program.as_str()) || literal_output(command).is_some_and(|t| t.1)
}

/// The text `echo`, `printf` or `cat` of a here-document print, and whether it holds escapes
/// that they decode and the parser does not (`\x72`, `\162`).
fn literal_output(command: &Command) -> Option<(String, bool)> {
    let escapes = |text: &str| text.replace("\\n", "").contains('\\');
    match command.program.as_str() {
        "echo" => {
            let flags = command.args.iter().take_while(|a| {
                a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
            });
            let text = command.args[flags.count()..].join(" ");
            let decoded = escapes(&text);
            Some((text, decoded))
        }
        "printf" => match command.args.split_first() {
            Some((format, values)) if format.contains('%') => {
                let decoded = escapes(format) || values.iter().any(|v| escapes(v));
                Some((values.join("\n"), decoded))
            }
            Some((format, _)) => Some((format.clone(), escapes(format))),
            None => None,
        },
        "cat" if command.args.is_empty() => command
            .redirects
            .iter()
            .rev()
            .find(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
            .map(|r| (r.target.clone(), false)),
        _ => None,
    }
}

/// `eval-computed`.
fn eval_computed(command: &Command) -> Option<Hit> {
    if command.program != "eval" {
        return None;
    }
    let text = command.args.join(" ");
    if !text.contains(['$', '`']) {
        return None;
    }
    let rule = match substitution_body(text.trim()).map(inner) {
        Some(Inner::Setup | Inner::Download) => return None,
        Some(Inner::Decode) => DECODE_TO_SHELL,
        _ => EVAL_COMPUTED,
    };
    Some(hit(
        rule,
        format!("eval runs text computed when it runs (`{}`)", cut(&text)),
    ))
}

/// `substitution-run`.
fn substitution_run(command: &Command) -> Option<Hit> {
    let program = command.program.as_str();
    if !program.contains(['$', '`']) || has_ifs(program) {
        return None;
    }
    let what = match substitution_body(program).map(inner) {
        Some(Inner::Setup | Inner::Download) => return None,
        Some(Inner::Decode) => {
            return Some(hit(
                DECODE_TO_SHELL,
                format!("runs a decoded payload as a command (`{}`)", cut(program)),
            ));
        }
        Some(Inner::Other) => format!("runs the output of `{}` as a command", cut(program)),
        None => format!(
            "runs a command named by `{}`, which the guard does not expand",
            cut(program)
        ),
    };
    Some(hit(SUBSTITUTION_RUN, what))
}

/// `source-substitution`.
fn source_substitution(command: &Command) -> Option<Hit> {
    let program = command.program.as_str();
    let mut scripts: Vec<&str> = Vec::new();
    if matches!(program, "source" | ".") {
        scripts.extend(command.args.first().map(String::as_str));
    }
    if let Some(ShellScript::File(file)) = command.shell_script() {
        scripts.push(file);
    }
    // bash's startup file given on the line (`bash --rcfile <(…) -i`) runs as a script too.
    if command.shell_script().is_some() {
        let mut args = command.args.iter().map(String::as_str);
        while let Some(arg) = args.next() {
            match arg {
                "--rcfile" | "--init-file" => scripts.extend(args.next()),
                a => scripts.extend(
                    (a.strip_prefix("--rcfile=")).or_else(|| a.strip_prefix("--init-file=")),
                ),
            }
        }
    }
    scripts.extend(interp::script_file(command));
    let reads_stdin = command.shell_script() == Some(ShellScript::Stdin)
        || interp::reads_code_from_stdin(command);
    if reads_stdin {
        scripts.extend(
            command
                .redirects
                .iter()
                .filter(|r| r.op == RedirectOp::In && r.fd.is_none_or(|fd| fd == 0))
                .map(|r| r.target.as_str()),
        );
    }
    for script in scripts {
        if STDIN_FILES.contains(&script) {
            return Some(hit(
                SOURCE_SUBSTITUTION,
                format!("{program} runs a script read from standard input ({script})"),
            ));
        }
        if !script.starts_with("<(") {
            continue;
        }
        let rule = match substitution_body(script).map_or(Inner::Other, inner) {
            Inner::Setup | Inner::Download => continue,
            Inner::Decode => DECODE_TO_SHELL,
            Inner::Other => SOURCE_SUBSTITUTION,
        };
        return Some(hit(
            rule,
            format!(
                "{program} runs the output of a process substitution (`{}`)",
                cut(script)
            ),
        ));
    }
    None
}

/// True when `word` holds `$IFS` or `${IFS…}`.
fn has_ifs(word: &str) -> bool {
    ifs_at(word, 0).is_some()
}

/// The first `$IFS` / `${IFS…}` in `word` at or after `from`: its start and end.
fn ifs_at(word: &str, from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(i) = word.get(at..)?.find('$').map(|i| i + at) {
        let rest = &word[i + 1..];
        if let Some(name) = rest.strip_prefix("IFS")
            && !name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            return Some((i, i + 4));
        }
        if let Some(inner) = rest.strip_prefix("{IFS")
            && inner.starts_with(['}', ':', '%', '#', '/', '^', ',', '@', '['])
        {
            let end = inner.find('}').map_or(word.len(), |e| i + 5 + e + 1);
            return Some((i, end));
        }
        at = i + 1;
    }
    None
}

/// `word` with every `$IFS` / `${IFS…}` read as a space.
fn replace_ifs(word: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    while let Some((start, end)) = ifs_at(word, at) {
        out.push_str(&word[at..start]);
        out.push(' ');
        at = end;
    }
    out.push_str(&word[at..]);
    out
}

/// `ifs-expansion`, and the hits of the command read with `$IFS` as a space.
fn ifs_expansion(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let words: Vec<&str> = std::iter::once(command.program.as_str())
        .chain(command.args.iter().map(String::as_str))
        .filter(|w| !w.is_empty())
        .collect();
    let splits = |w: &&&str| has_ifs(w) && !replace_ifs(w).trim().is_empty();
    let Some(word) = words.iter().find(splits) else {
        return Vec::new();
    };
    let mut hits = vec![hit(
        IFS_EXPANSION,
        format!("splits words on $IFS (`{}`)", cut(word)),
    )];
    let text: Vec<String> = words
        .iter()
        .map(|w| replace_ifs(&shell::quote(w)))
        .collect();
    let text = text.join(" ");
    if has_ifs(&text) {
        return hits;
    }
    if let Ok(script) = shell::parse(&text) {
        hits.extend(judge(&script, command, env));
    }
    hits
}

/// The hits of every rule on `script`, which `outer` runs (its directory and privilege carry
/// over to commands that do not set their own).
pub(super) fn judge(script: &Script, outer: &Command, env: &Env<'_>) -> Vec<Hit> {
    let mut hits = rules::script_hits(script, env);
    for c in script.commands() {
        let mut c = c.clone();
        if c.dir.is_none() {
            c.dir.clone_from(&outer.dir);
        }
        c.privileged |= outer.privileged;
        hits.extend(rules::command_hits(&c, env));
        env.push_nested(c);
    }
    hits
}

/// `decode-to-shell`: what a shell or an interpreter in `pipeline` reads on standard input
/// from the stage before it. Literal code fed to an interpreter is judged by the interpreter
/// rules.
fn piped_scripts(pipeline: &Pipeline, env: &Env<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (i, sink) in pipeline.commands.iter().enumerate().skip(1) {
        let shell = sink.shell_script() == Some(ShellScript::Stdin);
        if !(shell || interp::reads_code_from_stdin(sink)) || stdin_redirected(sink) {
            continue;
        }
        let before = &pipeline.commands[..i];
        if before
            .iter()
            .any(|c| DOWNLOADERS.contains(&c.program.as_str()))
        {
            continue; // curl-pipe-shell
        }
        let producer = &before[i - 1];
        match literal_output(producer) {
            Some((_, true)) => hits.push(hit(
                DECODE_TO_SHELL,
                format!(
                    "{} decodes escapes and pipes the result into {}",
                    producer.program, sink.program
                ),
            )),
            Some(_) if shell => {} // the parser reads it as the script
            Some((code, false)) => hits.extend(interp::code_hits(sink, &code, env)),
            None => {
                let what = if decodes(producer) {
                    format!(
                        "decodes with {} and pipes the result into {}",
                        producer.program, sink.program
                    )
                } else {
                    format!(
                        "pipes the output of `{}` into {}, which runs it as a script the guard cannot see",
                        cut(&producer.to_string()),
                        sink.program
                    )
                };
                hits.push(hit(DECODE_TO_SHELL, what));
            }
        }
    }
    hits
}

/// True when a redirection, not the pipe, gives `command` its standard input.
fn stdin_redirected(command: &Command) -> bool {
    command.redirects.iter().any(|r| r.reads_stdin())
}

/// `text` cut to 80 characters, for reasons.
fn cut(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
