//! The scan: the calls in the tokens that delete or shell out, and their arguments.

use super::*;

/// What a call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Delete,
    DeleteMethod,
    Shell,
    Opaque,
    Code,
    Write,
    Open,
    Rename,
    Copy,
    WriteMethod,
    RenameMethod,
}

/// Names of functions that load a module (`require('fs').rmSync` is `fs.rmSync`).
pub(super) const LOADERS: &[&str] = &["require", "__import__", "importlib.import_module"];

pub(super) fn qualified(name: &str, entry: &str) -> bool {
    name == entry
        || name
            .strip_suffix(entry)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

pub(super) fn classify(lang: Lang, name: &str) -> Option<Kind> {
    // PHP's function names are case-insensitive (`System("…")` runs `system`); its tables
    // are written in lower case.
    let lower;
    let name = if lang == Lang::Php {
        lower = name.to_ascii_lowercase();
        lower.as_str()
    } else {
        name
    };
    let table = lang.table();
    let plain = name.trim_start_matches('.');
    if table.opaque.iter().any(|p| plain.starts_with(p)) {
        return Some(Kind::Opaque);
    }
    if table.delete.iter().any(|e| qualified(name, e)) || table.delete_bare.contains(&name) {
        return Some(Kind::Delete);
    }
    if table.delete_method.iter().any(|e| qualified(name, e)) {
        return Some(Kind::DeleteMethod);
    }
    if table.shell.iter().any(|e| qualified(name, e)) || table.shell_bare.contains(&name) {
        return Some(Kind::Shell);
    }
    if table.code_bare.contains(&name) {
        return Some(Kind::Code);
    }
    let listed = |list: &[&str]| list.iter().any(|e| qualified(name, e));
    if listed(table.write) {
        return Some(Kind::Write);
    }
    if listed(table.rename) {
        return Some(Kind::Rename);
    }
    if listed(table.open) {
        return Some(Kind::Open);
    }
    if listed(table.copy) {
        return Some(Kind::Copy);
    }
    if listed(table.write_method) {
        return Some(Kind::WriteMethod);
    }
    if listed(table.rename_method) {
        return Some(Kind::RenameMethod);
    }
    None
}

pub(super) struct Scan<'a, 'e> {
    pub(super) lang: Lang,
    pub(super) command: &'a Command,
    pub(super) env: &'a Env<'e>,
    pub(super) hits: Vec<Hit>,
}

/// Runs `f` one nesting level deeper, or returns `None` past [`MAX_NESTING`].
pub(super) fn nested<T>(f: impl FnOnce() -> T) -> Option<T> {
    struct Level;
    impl Drop for Level {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        }
    }
    if DEPTH.with(Cell::get) >= MAX_NESTING {
        return None;
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let _level = Level;
    Some(f())
}

impl Scan<'_, '_> {
    pub(super) fn run(mut self, code: &str) -> Vec<Hit> {
        if self.lang == Lang::Python && self.command.program.starts_with("ipython") {
            for (line, certain) in ipython_shell(code) {
                self.ipython_line(line, certain);
            }
        }
        let toks = lex(self.lang, code);
        if toks.last() == Some(&Tok::Exhausted) {
            self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!(
                    "{} code too large to read ({} characters of unclosed quotes)",
                    self.lang.name(),
                    code.len()
                ),
            ));
        }
        let imports = match self.lang {
            Lang::Python => python_imports(&toks),
            _ => Imports::default(),
        };
        for (i, tok) in toks.iter().enumerate() {
            match tok {
                Tok::Cmd { text, interp } => {
                    let args = if *interp {
                        vec![Arg::Opaque]
                    } else {
                        vec![Arg::Str(text.clone())]
                    };
                    self.shell_out("`…`", &args);
                }
                Tok::Name(name) => {
                    let name = imports.unalias(&resolve_name(&toks, i, name));
                    let found = classify(self.lang, &name).map(|kind| (name.clone(), kind));
                    // A bare name may come from a `from m import *`.
                    let found = found.or_else(|| {
                        (!name.contains('.')).then_some(())?;
                        imports.star.iter().find_map(|m| {
                            let full = format!("{m}.{name}");
                            classify(self.lang, &full).map(|kind| (full, kind))
                        })
                    });
                    if self.command.program.starts_with("ipython")
                        && self.lang == Lang::Python
                        && let Some(script) = ipython_call(&toks, i, &name)
                    {
                        self.shell_out(&name, &[script]);
                    } else if let Some((name, kind)) = found {
                        self.call(&toks, i, &name, kind);
                    } else if self.lang == Lang::Perl
                        && matches!(name.as_str(), "open" | "CORE.open")
                    {
                        self.perl_open(&toks, i);
                    }
                }
                _ => {}
            }
        }
        self.hits
    }

    fn call(&mut self, toks: &[Tok], i: usize, name: &str, kind: Kind) {
        let args = call_args(self.lang, toks, i + 1);
        let lang = self.lang.name();
        let shown = name.trim_start_matches('.');
        match (kind, args) {
            (Kind::Shell, _)
                if (name == "$" || name.ends_with(".$"))
                    && !matches!(toks.get(i + 1), Some(Tok::Str { template: true, .. })) => {}
            (Kind::DeleteMethod, args) if name.contains('.') => {
                // The path is the object the method is called on.
                match path_receiver(self.lang, toks, i) {
                    Some(path) => self.delete(shown, &[Arg::Str(path)]),
                    None if self.lang == Lang::Python && args.is_some() => {
                        self.hits.push(hit(
                            INTERPRETER_DELETE,
                            format!("{lang} {shown}() deletes a path computed when it runs"),
                        ));
                    }
                    None => {}
                }
            }
            // `Path('/etc/x').write_text(…)`, `Path('/root').rename('/tmp/x')`: the path is the
            // object the method is called on; on anything else the call is not about a file.
            (Kind::WriteMethod | Kind::RenameMethod, args) => {
                if let Some(path) = path_receiver(self.lang, toks, i) {
                    if kind == Kind::WriteMethod {
                        self.write(shown, &path, false);
                    } else {
                        let to = match args.as_deref() {
                            Some([Arg::Str(to), ..]) => Some(to.clone()),
                            _ => None,
                        };
                        self.rename(shown, &path, to.as_deref());
                    }
                }
            }
            // `eval { … }` (Perl's exception block, Ruby's block) is code already scanned here.
            (Kind::Code, _) if matches!(toks.get(i + 1), Some(Tok::Punct('{'))) => {}
            // The name is not called here (`f = os.system`): nothing runs at this point.
            (_, None) => {}
            (Kind::Delete | Kind::DeleteMethod, Some(args)) => self.delete(shown, &args),
            (Kind::Shell, Some(args)) => self.shell_out(shown, &args),
            (Kind::Opaque, Some(_)) => self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!("{lang} {shown} runs a program the guard cannot check"),
            )),
            (Kind::Code, Some(args)) => self.code(shown, &args),
            (Kind::Write, Some(args)) => {
                if let Some(Arg::Str(path)) = args.first() {
                    self.write(shown, path, false);
                }
            }
            // `open(p, 'w')`, `open(p, mode='w')`, `open(file=p, mode='w')`, and a path
            // object's `Path(p).open('w')`.
            (Kind::Open, Some(args)) => {
                let named = |key: &str| {
                    args.iter().find_map(|a| match a {
                        Arg::Named(k, v) if k == key => Some(v.as_str()),
                        _ => None,
                    })
                };
                let positional = |at: usize| match args.get(at) {
                    Some(Arg::Str(s)) => Some(s.as_str()),
                    _ => None,
                };
                let receiver = path_receiver(self.lang, toks, i);
                let (path, mode) = match receiver.as_deref() {
                    Some(path) => (Some(path), positional(0).or_else(|| named("mode"))),
                    None => (
                        positional(0).or_else(|| named("file")),
                        positional(1).or_else(|| named("mode")),
                    ),
                };
                // Flags for a write (`os.open(p, os.O_WRONLY | os.O_TRUNC)`, Ruby's
                // `File::WRONLY`) stand for a write mode.
                let mode = mode.or_else(|| write_flags(toks, i + 1).then_some("w"));
                if let (Some(path), Some(mode)) = (path, mode)
                    && mode.contains(['w', 'a', 'x', '+'])
                {
                    let path = path.to_owned();
                    self.write(shown, &path, mode.contains('a'));
                }
            }
            (Kind::Rename, Some(args)) => {
                if let Some(Arg::Str(from)) = args.first() {
                    let to = match args.get(1) {
                        Some(Arg::Str(to)) => Some(to.as_str()),
                        _ => None,
                    };
                    self.rename(shown, from, to);
                }
            }
            (Kind::Copy, Some(args)) => {
                if let [Arg::Str(from), Arg::Str(to), ..] = args.as_slice()
                    && !from.is_empty()
                    && !to.is_empty()
                {
                    let line = format!("cp -- {} {}", shell::quote(from), shell::quote(to));
                    self.judge_line(shown, line);
                }
            }
        }
    }

    /// The positional arguments that count: all of them in Perl and Ruby, else the first
    /// (and a JavaScript argv list after it: `spawnSync('rm', ['-rf', 'x'])`).
    fn positional(&self, args: &[Arg], shell: bool) -> Vec<Arg> {
        let positional: Vec<Arg> = args
            .iter()
            .take_while(|a| !matches!(a, Arg::Keyword | Arg::Named(..)))
            .filter(|a| **a != Arg::Num)
            .cloned()
            .collect();
        if self.lang.all_arguments() {
            return positional;
        }
        let mut first: Vec<Arg> = positional.iter().take(1).cloned().collect();
        if shell
            && self.lang == Lang::Js
            && let Some(list @ Arg::List(_)) = positional.get(1)
        {
            first.push(list.clone());
        }
        first
    }

    fn delete(&mut self, name: &str, args: &[Arg]) {
        let lang = self.lang.name();
        let positional = self.positional(args, false);
        let how = format!("recursive delete ({lang})");
        let dir = self.command.dir.as_deref();
        if positional.is_empty() || positional.contains(&Arg::Opaque) {
            self.hits.push(hit(
                INTERPRETER_DELETE,
                format!("{lang} {name} deletes a path computed when it runs"),
            ));
        }
        for arg in positional {
            let paths = match arg {
                Arg::Str(path) => vec![path],
                Arg::List(paths) => paths,
                _ => continue,
            };
            for path in paths.iter().filter(|p| !p.is_empty()) {
                self.hits.extend(self.env.delete_hit(path, dir, &how));
            }
        }
    }

    /// A write of the literal `path` (created, emptied, or appended to): judged as the
    /// shell's `: > PATH` (`: >> PATH`), by every rule.
    fn write(&mut self, name: &str, path: &str, append: bool) {
        if path.is_empty() {
            return;
        }
        let op = if append { ">>" } else { ">" };
        self.judge_line(name, format!(": {op} {}", shell::quote(path)));
    }

    /// A move of the literal `from` (to `to`, when literal): judged as `mv -- FROM TO`, by
    /// every rule.
    fn rename(&mut self, name: &str, from: &str, to: Option<&str>) {
        if from.is_empty() {
            return;
        }
        let to = to.filter(|t| !t.is_empty()).unwrap_or("moved");
        let line = format!("mv -- {} {}", shell::quote(from), shell::quote(to));
        self.judge_line(name, line);
    }

    /// Judges `line`, a shell command that does what the code's call `name` does.
    fn judge_line(&mut self, name: &str, line: String) {
        match self.judge_text(&line) {
            Some(Ok(hits)) => self.hits.extend(hits),
            _ => self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!(
                    "{} {name} works on a path that cannot be checked",
                    self.lang.name()
                ),
            )),
        }
    }

    /// `text` parsed as a shell script and judged as the command it runs in; `None` when
    /// commands are nested too deeply to check.
    fn judge_text(&self, text: &str) -> Option<Result<Vec<Hit>, shell::ShellError>> {
        let (command, env) = (self.command, self.env);
        nested(|| shell::parse(text).map(|script| opaque::judge(&script, command, env)))
    }

    /// Perl's `open` runs a command for a pipe mode (`open(F, "|-", "cmd")`, `"-|"`) or a
    /// two-argument mode string that starts or ends with `|` (`open(F, "cmd |")`); a file
    /// open runs nothing.
    fn perl_open(&mut self, toks: &[Tok], i: usize) {
        let Some(args) = call_args(self.lang, toks, i + 1) else {
            return;
        };
        // The handle, then the mode (and the command) or the two-argument string.
        let rest = args.get(1..).unwrap_or_default();
        // A file opened to be written: a three-argument mode (`">"`, `">>"`, `"+<"`), or a
        // two-argument string that starts with one (`">/etc/passwd"`).
        let write_mode = |m: &str| {
            matches!(m, ">" | ">>" | "+<" | "+>" | "+>>")
                || m.starts_with(['>', '+']) && m.contains(':')
        };
        match rest {
            [Arg::Str(mode), Arg::Str(path), ..] if write_mode(mode.trim()) => {
                return self.write("open", path.trim(), mode.contains(">>"));
            }
            [Arg::Str(spec)] if spec.trim_start().starts_with(['>', '+']) => {
                let spec = spec.trim_start();
                let append = spec.starts_with(">>") || spec.starts_with("+>>");
                let path = spec.trim_start_matches(['+', '>', '<']).trim();
                return self.write("open", path, append);
            }
            _ => {}
        }
        let (command, writes_to) = match rest {
            [Arg::Str(mode), command @ ..] if matches!(mode.trim(), "|-" | "-|") => {
                (command.to_vec(), mode.trim() == "|-")
            }
            [Arg::Str(spec)] => {
                let spec = spec.trim();
                match (spec.strip_prefix('|'), spec.strip_suffix('|')) {
                    (Some(command), _) => (vec![Arg::Str(command.trim().to_owned())], true),
                    (None, Some(command)) => (vec![Arg::Str(command.trim().to_owned())], false),
                    (None, None) => return,
                }
            }
            _ => return,
        };
        // What the program prints into a shell is its script: computed when it runs.
        if writes_to
            && let [Arg::Str(text)] = command.as_slice()
            && shell::parse(text).is_ok_and(|script| {
                script
                    .commands()
                    .any(|c| c.shell_script() == Some(shell::ShellScript::Stdin))
            })
        {
            self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!(
                    "perl open writes to a shell (`{text}`), which runs what the program prints"
                ),
            ));
        }
        self.shell_out("open", &command);
    }

    /// A line IPython may run as a shell command: judged when it parses as one; when it is
    /// one for certain, it asks if it does not parse or holds `{…}` (a Python expression
    /// IPython puts in).
    fn ipython_line(&mut self, line: &str, certain: bool) {
        if certain && line.contains('{') {
            self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!("ipython `!` runs a command computed when it runs (`{line}`)"),
            ));
            return;
        }
        if certain {
            self.shell_out("`!`", &[Arg::Str(line.to_owned())]);
            return;
        }
        if let Some(Ok(hits)) = self.judge_text(line) {
            self.hits.extend(hits);
        }
    }

    fn shell_out(&mut self, name: &str, args: &[Arg]) {
        let lang = self.lang.name();
        let positional = if self.lang == Lang::R && name.ends_with("system2") {
            // `system2(command, args)` pastes its command and arguments together unquoted and
            // runs that with `sh` (`system2("echo", c("x;", "rm -rf /"))` runs both); any
            // argument the scan cannot read (`args = x`, `stdout = TRUE`) leaves it unknown.
            let mut words = Vec::new();
            for arg in args {
                match arg {
                    Arg::Str(w) => words.push(w.clone()),
                    Arg::List(ws) => words.extend(ws.iter().cloned()),
                    _ => {
                        words.clear();
                        break;
                    }
                }
            }
            if words.is_empty() {
                vec![Arg::Opaque]
            } else {
                vec![Arg::Str(words.join(" "))]
            }
        } else {
            self.positional(args, true)
        };
        let text = match positional.as_slice() {
            [Arg::Str(script)] => Some(script.clone()),
            [] => None,
            words => {
                let mut argv = Vec::new();
                for word in words {
                    match word {
                        Arg::Str(w) => argv.push(shell::quote(w).into_owned()),
                        Arg::List(ws) => {
                            argv.extend(ws.iter().map(|w| shell::quote(w).into_owned()))
                        }
                        _ => {
                            argv.clear();
                            break;
                        }
                    }
                }
                (!argv.is_empty()).then(|| argv.join(" "))
            }
        };
        let Some(text) = text else {
            self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!("{lang} {name} runs a command computed when it runs"),
            ));
            return;
        };
        match self.judge_text(&text) {
            Some(Ok(hits)) => self.hits.extend(hits),
            Some(Err(e)) => self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!("{lang} {name} runs a command that cannot be checked ({e})"),
            )),
            None => self.hits.push(hit(
                INTERPRETER_SHELL_OUT,
                format!("{lang} {name} runs commands nested too deeply to check"),
            )),
        }
    }

    fn code(&mut self, name: &str, args: &[Arg]) {
        let lang = self.lang;
        match self.positional(args, false).first() {
            Some(Arg::Str(code)) => {
                let (command, env) = (self.command, self.env);
                let scan = Scan {
                    lang,
                    command,
                    env,
                    hits: Vec::new(),
                };
                match nested(|| scan.run(code)) {
                    Some(hits) => self.hits.extend(hits),
                    None => self.hits.push(hit(
                        INTERPRETER_SHELL_OUT,
                        format!(
                            "{} {name} runs code nested too deeply to check",
                            lang.name()
                        ),
                    )),
                }
            }
            _ => self.hits.push(hit(
                EVAL_COMPUTED,
                format!("{} {name} runs code computed when it runs", lang.name()),
            )),
        }
    }
}

/// Whether the parenthesized arguments starting at `toks[at]` name a flag that opens a file
/// for writing (`O_WRONLY`, `O_RDWR`, `O_TRUNC`, `O_APPEND`, `O_CREAT`; Ruby's
/// `File::WRONLY` and the like).
fn write_flags(toks: &[Tok], at: usize) -> bool {
    const FLAGS: &[&str] = &["WRONLY", "RDWR", "TRUNC", "APPEND", "CREAT"];
    if toks.get(at) != Some(&Tok::Punct('(')) {
        return false;
    }
    let mut depth = 0usize;
    for tok in &toks[at..] {
        match tok {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            Tok::Name(name) => {
                let last = name.rsplit('.').next().unwrap_or(name);
                let flag = last.strip_prefix("O_").unwrap_or(last);
                if FLAGS.contains(&flag) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}
