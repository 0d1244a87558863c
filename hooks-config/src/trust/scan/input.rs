//! Where a program read by an interpreter comes from: a pipe's producer, a redirection, a
//! substitution; and inline code of other languages.

use super::*;

impl Scan<'_> {
    /// What a command writes to a pipe, read as a program by the next one.
    pub(super) fn produced(&mut self, producer: &Simple, sh: &Shell) -> Input {
        let words: Vec<&Word> = producer
            .words
            .iter()
            .skip_while(|w| w.literal().is_some_and(|l| is_assignment(&l)))
            .collect();
        let program = words.first().and_then(|w| w.literal());
        let args: Option<Vec<String>> = words
            .iter()
            .skip(1)
            .map(|w| self.resolve(w, sh).ok())
            .collect();
        let opaque = || {
            Input::Opaque(format!(
                "its program comes from `{}`",
                abbreviate(&producer.raw)
            ))
        };
        match (program.as_deref().map(base_name), args) {
            (Some("cat"), Some(args)) if args.iter().all(|a| !a.starts_with('-') || a == "-") => {
                if args.is_empty() {
                    // `cat <f | sh`, `cat <<EOF | sh`
                    let mut input = Input::Opaque(format!(
                        "its program comes from `{}`, which reads the event",
                        abbreviate(&producer.raw)
                    ));
                    for r in &producer.redirects {
                        match &r.op {
                            Op::In if r.fd.unwrap_or(0) == 0 => {
                                input = self.file_input(&r.target, sh)
                            }
                            Op::HereDoc { quoted: true, body } => input = Input::Text(body.clone()),
                            Op::HereDoc { .. } | Op::HereString | Op::DupIn => input = opaque(),
                            _ => {}
                        }
                    }
                    input
                } else if args.iter().any(|a| is_stdin_path(a)) {
                    opaque()
                } else {
                    Input::Files(args)
                }
            }
            (Some("echo" | "printf"), Some(args)) if producer.redirects.is_empty() => {
                let args: Vec<&str> = args
                    .iter()
                    .map(String::as_str)
                    .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "--"))
                    .collect();
                Input::Text(args.join(" "))
            }
            _ => opaque(),
        }
    }

    pub(super) fn file_input(&self, target: &Word, sh: &Shell) -> Input {
        match self.resolve(target, sh) {
            Ok(path) if path == "/dev/null" => Input::Nothing,
            Ok(path) if is_stdin_path(&path) => sh.stdin.clone(),
            Ok(path) => Input::Files(vec![path]),
            Err(_) if target.only_substitution().is_some() => {
                Input::Opaque(format!("`{}` is produced at run time", target.raw))
            }
            Err(why) => Input::Opaque(why),
        }
    }

    /// Hashes the program an interpreter reads from `input` (`sh < f`, `cat f | sh`,
    /// `sh <<EOF`), or says why it cannot.
    pub(super) fn program_from(&mut self, input: &Input, lang: Lang, sh: &Shell, fragment: &str) {
        match input {
            Input::Files(files) => {
                for f in files {
                    self.hash_code(f, sh, fragment);
                    self.follow_found(Some(lang), sh);
                }
            }
            Input::Text(text) => self.inline(text, lang, sh, fragment),
            Input::Nothing => {}
            Input::Event => self.unhashed(
                fragment,
                "it reads its program from stdin, which is the event JSON",
            ),
            Input::Opaque(why) => {
                self.unhashed(fragment, format!("its program cannot be known: {why}"))
            }
        }
    }

    /// Inline code (`-c`, `-e`, a heredoc): a shell's is scanned as a command; another
    /// language's for what it imports or runs.
    pub(super) fn inline(&mut self, code: &str, lang: Lang, sh: &Shell, fragment: &str) {
        match lang {
            Lang::Shell => {
                let input = Input::Nothing;
                self.nested(code, sh, &input, fragment);
            }
            Lang::Uv => {}
            Lang::Python => {
                if let Some(word) = first_loading_word(code, loading_words(lang)) {
                    self.unhashed(
                        fragment,
                        format!(
                            "its inline code uses `{word}`, which loads code the scan cannot see"
                        ),
                    );
                }
                match python_imports(code) {
                    Ok(modules) => {
                        for m in modules {
                            self.python_module(&m, sh, fragment, false);
                        }
                    }
                    Err(stmt) => self.unhashed(fragment, format!("`{stmt}` is a relative import")),
                }
            }
            Lang::Node | Lang::Deno | Lang::Bun => {
                if let Some(word) = first_loading_word(code, loading_words(lang)) {
                    self.unhashed(
                        fragment,
                        format!(
                            "its inline code uses `{word}`, which loads code the scan cannot see"
                        ),
                    );
                }
                self.node_imports(code, sh, fragment, "its inline code");
            }
            _ => {
                if let Some(word) = first_loading_word(code, loading_words(lang)) {
                    self.unhashed(
                        fragment,
                        format!(
                            "its inline code uses `{word}`, which loads code the scan cannot see"
                        ),
                    );
                }
            }
        }
    }

    /// `require("x")`, `import("x")`, `from "x"`: a path is hashed, a builtin is fine, a
    /// package or a computed name is reported.
    /// `what` names the code in what is unhashed ("its inline code", "it" for a file).
    pub(super) fn node_imports(&mut self, code: &str, sh: &Shell, fragment: &str, what: &str) {
        const BUILTINS: &[&str] = &[
            "fs",
            "path",
            "os",
            "util",
            "crypto",
            "url",
            "events",
            "stream",
            "readline",
            "zlib",
            "assert",
            "buffer",
            "process",
            "http",
            "https",
            "net",
            "querystring",
            "string_decoder",
            "timers",
            "fs/promises",
            "stream/promises",
        ];
        for key in ["require", "import", "from"] {
            for (at, _) in code.match_indices(key) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    continue;
                }
                let rest = code[at + key.len()..].trim_start();
                let rest = rest.strip_prefix('(').map_or(rest, str::trim_start);
                let quote = rest.chars().next();
                let spec = match quote {
                    Some(q @ ('"' | '\'' | '`')) => {
                        rest[1..].split(q).next().filter(|s| !s.contains("${"))
                    }
                    _ => None,
                };
                match spec {
                    Some(s) if s.starts_with("node:") || BUILTINS.contains(&s) => {}
                    Some(s) if s.starts_with('.') || s.starts_with('/') => {
                        self.node_script(s, sh, fragment);
                    }
                    Some(s) => self.unhashed(
                        fragment,
                        format!("{what} loads the package `{s}`, whose files are not followed"),
                    ),
                    None if key == "from"
                        || key == "import"
                            && !code[at..].starts_with("import(")
                            && quote.is_none_or(|c| c.is_alphabetic() || c == '{' || c == '*') => {}
                    None => self.unhashed(
                        fragment,
                        format!("{what} calls `{key}` with a name known only at run time"),
                    ),
                }
            }
        }
    }
}
