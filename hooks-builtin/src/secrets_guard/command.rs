//! The shell part: every word of every command a command line runs, judged as a path.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;
use serde_json::Value;

use super::{SecretsGuard, one_line, rules};
use crate::shell::{self, Command, RedirectOp};

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

/// Checks a shell tool call: `Err` with the reason when it names a secrets file.
pub(super) fn check(
    guard: &SecretsGuard,
    tool: &str,
    input: &Value,
    cwd: &Path,
    root: &Path,
) -> Result<(), String> {
    let text = command_text(input).ok_or_else(|| {
        format!("secrets-guard: {tool} call has no `command` string; cannot tell what it runs")
    })?;
    let script = shell::parse(&text).map_err(|e| {
        format!(
            "secrets-guard: the {tool} command cannot be parsed ({}); denied, since it might \
             read a secrets file",
            one_line(&e.to_string())
        )
    })?;
    let home = guard.home.as_deref();
    let mut run = Run {
        guard,
        root,
        bases: vec![cwd.to_path_buf()],
        seen: HashSet::new(),
    };
    for key in ["workdir", "cwd", "dir"] {
        if let Some(dir) = input.get(key).and_then(Value::as_str) {
            run.add_base(rules::lexical(&substitute(dir), cwd, home));
        }
    }
    for cmd in script.commands() {
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
        for word in words(cmd) {
            run.word(&word)
                .map_err(|finding| format!("secrets-guard: `{}` names {finding}", shown(cmd)))?;
        }
    }
    Ok(())
}

/// The state of one command line's check.
struct Run<'a> {
    guard: &'a SecretsGuard,
    root: &'a Path,
    bases: Vec<PathBuf>,
    seen: HashSet<(String, usize)>,
}

impl Run<'_> {
    fn add_base(&mut self, base: PathBuf) {
        if self.bases.len() < MAX_BASES && !self.bases.contains(&base) {
            self.bases.push(base);
        }
    }

    /// Judges one word against every working directory (once when it is absolute).
    fn word(&mut self, word: &str) -> Result<(), String> {
        let Some(word) = local_path(word) else {
            return Ok(());
        };
        let word = substitute(word);
        for form in expand_braces(&word) {
            let absolute = form.starts_with('/') || form.starts_with('~');
            let bases = if absolute { 1 } else { self.bases.len() };
            for b in 0..bases {
                self.one(&form, b)?;
                if !has_wildcard(&form) {
                    continue;
                }
                let base = self.bases[b].clone();
                for path in expand_glob(&form, &base, self.guard.home.as_deref()) {
                    let text = path.to_string_lossy().into_owned();
                    self.one(&text, b)
                        .map_err(|finding| format!("{form:?}, which expands to {finding}"))?;
                }
            }
        }
        Ok(())
    }

    fn one(&mut self, raw: &str, base: usize) -> Result<(), String> {
        if raw.is_empty() || !self.seen.insert((raw.to_owned(), base)) {
            return Ok(());
        }
        if self.seen.len() > MAX_CHECKS {
            return Err(format!(
                "more than {MAX_CHECKS} paths; too large to check, denied"
            ));
        }
        self.guard.check_path(raw, &self.bases[base], self.root)
    }
}

/// The command line of a shell tool's input: a `command` string, or an argv list (Codex).
fn command_text(input: &Value) -> Option<String> {
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

/// The words of `cmd` that may name files: every argument (and the value of `--opt=value`,
/// `if=value`, and of `-ivalue` short options), and every file redirection target.
fn words(cmd: &Command) -> Vec<String> {
    let mut out = Vec::with_capacity(cmd.args.len() + cmd.redirects.len());
    for arg in &cmd.args {
        out.push(arg.clone());
        if let Some((_, value)) = arg.split_once('=') {
            out.push(value.to_owned());
        }
        if let Some(rest) = arg.strip_prefix('-')
            && !rest.starts_with('-')
            && let Some((i, _)) = rest.char_indices().nth(1)
        {
            out.push(rest[i..].to_owned());
        }
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
            out.push(r.target.clone());
        }
    }
    out
}

/// The local path a word names: `file://x` is `x`; other URLs name no local file.
fn local_path(word: &str) -> Option<&str> {
    if let Some(rest) = word.strip_prefix("file://") {
        return Some(rest);
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
fn expand_glob(word: &str, base: &Path, home: Option<&Path>) -> Vec<PathBuf> {
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
        let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
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
    fn urls_are_not_local_paths_but_file_urls_are() {
        assert_eq!(local_path("https://x.example/a.key"), None);
        assert_eq!(local_path("file:///home/me/.env"), Some("/home/me/.env"));
        assert_eq!(local_path(".env"), Some(".env"));
    }
}
