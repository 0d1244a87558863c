//! What the files a command loads load in turn: a shell script is scanned as the command is
//! (its sourced files, the scripts and modules it runs), a Python file's imports and a
//! JavaScript or TypeScript file's `require`s and `import`s are resolved to project files;
//! what cannot be resolved is unhashed. Each file is read once, at most
//! [`MAX_FOLLOW_DEPTH`] files deep.

use std::collections::HashSet;

use super::*;

/// How many files deep loads are followed (a script sourcing a file that runs a module that
/// imports …); deeper is unhashed.
pub(super) const MAX_FOLLOW_DEPTH: usize = 8;

/// How much of a file is looked at for a NUL byte, which makes it a binary (not followed).
const SNIFF_BYTES: usize = 8192;

/// Programs that never run code given in their arguments: a word of theirs known only at run
/// time cannot be a file they run. Any other program that is not an interpreter, a wrapper or
/// a project file may be (`tool "$F"`), so such a word is unhashed.
const INERT: &[&str] = &[
    "case",
    ":",
    "[",
    "[[",
    "test",
    "true",
    "false",
    "echo",
    "printf",
    "exit",
    "return",
    "shift",
    "set",
    "wait",
    "sleep",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "cat",
    "head",
    "tail",
    "wc",
    "cut",
    "tr",
    "sort",
    "uniq",
    "tee",
    "mkdir",
    "rmdir",
    "touch",
    "rm",
    "cp",
    "mv",
    "ln",
    "chmod",
    "chown",
    "stat",
    "ls",
    "du",
    "date",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "jq",
    "logger",
    "printenv",
    "mktemp",
    "diff",
    "cmp",
    "base64",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "curl",
    "wget",
    "notify-send",
    "kill",
    "id",
    "whoami",
    "hostname",
    "uname",
];

/// What a followed shell file knows of itself.
#[derive(Clone)]
pub(super) struct Script {
    /// `$0`: the script that was run, when it is known (a file sourced by the command itself
    /// has the command's shell's `$0`).
    zero: Option<PathBuf>,
    /// `${BASH_SOURCE[0]}`: the file being read.
    source: PathBuf,
}

/// `$(dirname "$0")`, `$(dirname -- "${BASH_SOURCE[0]}")`, `$(cd "$(dirname "$0")" && pwd)`
/// and their spellings, in a followed script: the directory of the script (or of the file
/// being read), which is known. Any other substitution is not.
pub(super) fn script_dir(body: &str, sh: &Shell) -> Option<String> {
    let script = sh.script.as_ref()?;
    let text: String = body.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let dir_of = |path: &Path| path.parent().map(|d| d.to_string_lossy().into_owned());
    let named = |arg: &str| match arg {
        "$0" | "${0}" => script.zero.as_deref().and_then(dir_of),
        "${BASH_SOURCE[0]}" | "$BASH_SOURCE" | "${BASH_SOURCE}" => dir_of(&script.source),
        _ => None,
    };
    if let Some(arg) = text.strip_prefix("dirname ") {
        return named(arg.strip_prefix("-- ").unwrap_or(arg));
    }
    // `cd "$(dirname "$0")" && pwd`, with `--`, `-P` and a silenced `cd`.
    let rest = text.strip_prefix("cd ")?;
    let rest = rest.strip_prefix("-- ").unwrap_or(rest);
    let inner = rest.strip_prefix("$(")?;
    let (inner, tail) = inner.split_once(')')?;
    let tail = tail
        .trim()
        .trim_start_matches(">/dev/null 2>&1")
        .trim_start_matches("> /dev/null 2>&1")
        .trim_start_matches(">/dev/null")
        .trim();
    matches!(tail, "&& pwd" | "&& pwd -P")
        .then(|| script_dir(inner, sh))
        .flatten()
}

/// What `what` says of a file given to `.` or `source` (see [`Scan::code_file`]).
pub(super) const SOURCED: &str = "the sourced file";

/// A file the command loads as code, to be read for what it loads in turn.
pub(super) struct Follow {
    path: PathBuf,
    /// Its language when the way it is loaded says (`python3 x`, `. x`); else its name or
    /// `#!` line says.
    lang: Option<Lang>,
    /// Where relative paths start in the shell that loads it (a shell script's `. ./lib.sh`
    /// is taken from there, not from the script's directory).
    dirs: Vec<PathBuf>,
    dir_unknown: Option<String>,
    path_dirs: Vec<Result<PathBuf, String>>,
    depth: usize,
    /// Its arguments, when known: a `#!` interpreter's is the script (`exec sh "$@"`).
    argument: Option<String>,
    /// Sourced (`.`, `source`): it runs in the loading shell, whose `$0` it keeps.
    sourced: bool,
    /// The loading shell's `$0`, when known.
    zero: Option<PathBuf>,
}

impl Scan<'_> {
    /// Queues the files the last [`Scan::hash`] found, to be read for what they load. The
    /// functions a shell file defines are known at once: a script calls what it sources
    /// before the sourced file is read.
    pub(super) fn follow_found(&mut self, lang: Option<Lang>, sh: &Shell) {
        for path in std::mem::take(&mut self.last_found) {
            if matches!(lang, None | Some(Lang::Shell))
                && self.in_roots(&path)
                && let Ok(bytes) =
                    super::super::fingerprint::read_limited(&path, super::super::MAX_SCRIPT_BYTES)
            {
                self.functions
                    .extend(function_names(&String::from_utf8_lossy(&bytes)));
            }
            self.queue.push_back(Follow {
                path,
                lang,
                dirs: sh.dirs.clone(),
                dir_unknown: sh.dir_unknown.clone(),
                path_dirs: sh.path_dirs.clone(),
                depth: self.follow_depth + 1,
                argument: None,
                sourced: false,
                zero: sh.script.as_ref().and_then(|s| s.zero.clone()),
            });
        }
    }

    /// Queues the files the last [`Scan::hash`] found as sourced into the shell `sh`.
    pub(super) fn follow_sourced(&mut self, sh: &Shell) {
        let start = self.queue.len();
        self.follow_found(Some(Lang::Shell), sh);
        for item in self.queue.range_mut(start..) {
            item.sourced = true;
        }
    }

    /// Queues a project interpreter named by the `#!` line of `script`: it runs with the
    /// script as its one argument.
    pub(super) fn follow_interpreter(&mut self, script: &Path, sh: &Shell) {
        let start = self.queue.len();
        self.follow_found(None, sh);
        for item in self.queue.range_mut(start..) {
            item.argument = Some(script.to_string_lossy().into_owned());
        }
    }

    /// Reads every queued file, and what those load, each once.
    pub(super) fn follow_all(&mut self) {
        let mut followed: HashSet<PathBuf> = HashSet::new();
        while let Some(item) = self.queue.pop_front() {
            if followed.insert(item.path.clone()) {
                self.follow(item);
            }
        }
    }

    /// The project's name for a file (relative to the project), as shown in `unhashed:`.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.project)
            .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
    }

    fn follow(&mut self, item: Follow) {
        // A system script (`/usr/bin/x`) is not project code: what it loads is not either.
        if !self.in_roots(&item.path) {
            return;
        }
        let shown = self.shown(&item.path);
        if item.depth > MAX_FOLLOW_DEPTH {
            self.unhashed(
                &shown,
                format!("it is loaded more than {MAX_FOLLOW_DEPTH} files deep; what it loads is not followed"),
            );
            return;
        }
        // Too large or unreadable: hashing it fails the fingerprint anyway.
        let Ok(bytes) =
            super::super::fingerprint::read_limited(&item.path, super::super::MAX_SCRIPT_BYTES)
        else {
            return;
        };
        if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
            return; // a binary: a compiled module, a library, a program
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let Some(lang) = item.lang.or_else(|| language_of(&item.path, &text)) else {
            return;
        };
        let dir = item
            .path
            .parent()
            .map_or_else(|| self.project.to_path_buf(), Path::to_path_buf);
        let mut vars = HashMap::new();
        if let Some(argument) = &item.argument {
            for name in ["1", "@", "*"] {
                vars.insert(
                    name.to_owned(),
                    Var::Value {
                        text: argument.clone(),
                        exported: false,
                    },
                );
            }
        }
        let mut sh = Shell {
            vars,
            dirs: item.dirs,
            dir_unknown: item.dir_unknown,
            fds: HashMap::new(),
            path_dirs: item.path_dirs,
            stdin: Input::Event,
            depth: 0,
            script: Some(Script {
                zero: if item.sourced {
                    item.zero
                } else {
                    Some(item.path.clone())
                },
                source: item.path.clone(),
            }),
        };
        let outer = (self.follow_depth, self.origin.take());
        self.follow_depth = item.depth;
        match lang {
            Lang::Shell => {
                self.origin = Some(shown);
                self.shell_text(&text, &mut sh);
            }
            Lang::Python => {
                // `sys.path[0]` is the script's directory; `-m` and imported modules add the
                // directories the command runs in.
                sh.dirs.insert(0, dir.clone());
                sh.dirs.dedup();
                self.loading_word(&text, lang, &shown);
                for import in python_file_imports(&text) {
                    match import {
                        PyImport::Absolute(module) => {
                            self.python_module(&module, &sh, &shown, false)
                        }
                        PyImport::From { module, names } => {
                            self.python_module(&module, &sh, &shown, false);
                            for name in names.iter().filter(|n| *n != "*") {
                                self.python_module(&format!("{module}.{name}"), &sh, &shown, false);
                            }
                        }
                        PyImport::Relative {
                            level,
                            module,
                            names,
                        } => self.relative_import(&dir, level, &module, &names, &sh, &shown),
                    }
                }
            }
            Lang::Node | Lang::Deno | Lang::Bun => {
                // A relative specifier is taken from the importing file's directory.
                sh.dirs = vec![dir];
                sh.dir_unknown = None;
                self.loading_word(&text, lang, &shown);
                self.node_imports(&text, &sh, &shown, "it");
            }
            Lang::Uv => {}
            _ => self.loading_word(&text, lang, &shown),
        }
        (self.follow_depth, self.origin) = outer;
    }

    /// Reports a word that makes code load or run code the scan cannot see.
    fn loading_word(&mut self, code: &str, lang: Lang, shown: &str) {
        if let Some(word) = first_loading_word(code, loading_words(lang)) {
            self.unhashed(
                shown,
                format!("it uses `{word}`, which loads or runs code the scan cannot see"),
            );
        }
    }

    /// `from ..pkg import mod` in the file of `dir`: the modules it may name, from the
    /// package `level` dots up.
    fn relative_import(
        &mut self,
        dir: &Path,
        level: usize,
        module: &str,
        names: &[String],
        sh: &Shell,
        shown: &str,
    ) {
        let mut base = dir.to_path_buf();
        for _ in 1..level {
            if !base.pop() || !base.starts_with(self.project) {
                self.unhashed(
                    shown,
                    format!(
                        "`from {}{module} import …` reaches above the project",
                        ".".repeat(level)
                    ),
                );
                return;
            }
        }
        let mut at = sh.clone();
        at.dirs = vec![base.clone()];
        at.dir_unknown = None;
        // The package itself is run first.
        self.hash(
            &base.join("__init__.py").to_string_lossy(),
            sh,
            shown,
            false,
        );
        self.follow_found(Some(Lang::Python), sh);
        if module.is_empty() {
            // `from . import a, b`: each may be a module (or a name in `__init__.py`).
            for name in names.iter().filter(|n| *n != "*") {
                self.python_module(name, &at, shown, false);
            }
        } else {
            self.python_module(module, &at, shown, false);
        }
    }

    /// What an unknown program (not a wrapper, an interpreter or a project file) may run: a
    /// later word naming an interpreter or wrapper is scanned as a command from there
    /// (`some-wrapper sh -c "$X"`); otherwise a word known only at run time may name a file
    /// it runs (`tool "$F"`) and is unhashed.
    #[allow(clippy::too_many_arguments, reason = "the command's whole context")]
    pub(super) fn unknown_program(
        &mut self,
        name: &str,
        rest: &[Word],
        fragment: &str,
        sh: &mut Shell,
        input: &Input,
        extra: Extra<'_>,
    ) {
        if INERT.contains(&name) || self.functions.contains(name) {
            return;
        }
        let runs = rest.iter().position(|w| {
            w.literal().is_some_and(|l| {
                let base = base_name(&l);
                !l.starts_with('-')
                    && (interpreter(&l).is_some()
                        || WRAPPERS.iter().any(|(n, ..)| *n == base)
                        || matches!(base, "eval" | "." | "source"))
            })
        });
        if let Some(k) = runs {
            self.command(rest, k, fragment, sh, input, extra);
            return;
        }
        for word in rest {
            if let Err(why) = self.resolve(word, sh) {
                self.unhashed(
                    fragment,
                    format!("`{name}` is given a word known only at run time ({why}): a file it runs from it would not be hashed"),
                );
                return;
            }
        }
    }
}

/// A file's language from its `#!` line, else its name; a file with neither is run by a
/// shell (`execve` fails with ENOEXEC, and the shell runs it itself).
fn language_of(path: &Path, text: &str) -> Option<Lang> {
    if let Some(line) = text.strip_prefix("#!") {
        let line = line.lines().next().unwrap_or_default();
        let mut words = line.split_whitespace();
        let mut program = words.next().unwrap_or_default();
        if base_name(program) == "env" {
            program = words.find(|w| !w.starts_with('-')).unwrap_or_default();
        }
        return interpreter(program).map(|i| i.lang);
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    Some(match ext {
        "py" => Lang::Python,
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Lang::Node,
        "rb" => Lang::Ruby,
        "pl" | "pm" => Lang::Perl,
        "php" => Lang::Php,
        "lua" => Lang::Lua,
        "json" | "toml" | "yaml" | "yml" | "txt" | "md" => return None,
        _ => Lang::Shell,
    })
}

/// The names of the shell functions `text` defines (`name() {`, `function name`): calling one
/// runs text the scan reads anyway.
pub(super) fn function_names(text: &str) -> Vec<String> {
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
    };
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("function ") {
            let name = rest
                .split(|c: char| c.is_whitespace() || c == '(' || c == '{')
                .next()
                .unwrap_or_default();
            if ident(name) {
                names.push(name.to_owned());
            }
        } else if let Some((name, _)) = line.split_once("()") {
            let name = name.trim_end();
            if ident(name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_file_imports_read_absolute_and_relative_forms() {
        let code = "import os, pkg.a as b\nfrom pkg.c import d\n    from . import e, f\nfrom ..g import (h,\nfrom .i.j import *\n";
        assert_eq!(
            python_file_imports(code),
            [
                PyImport::Absolute("os".into()),
                PyImport::Absolute("pkg.a".into()),
                PyImport::From {
                    module: "pkg.c".into(),
                    names: vec!["d".into()]
                },
                PyImport::Relative {
                    level: 1,
                    module: String::new(),
                    names: vec!["e".into(), "f".into()]
                },
                PyImport::Relative {
                    level: 2,
                    module: "g".into(),
                    names: vec!["h".into()]
                },
                PyImport::Relative {
                    level: 1,
                    module: "i.j".into(),
                    names: vec!["*".into()]
                },
            ]
        );
    }

    #[test]
    fn languages_come_from_the_shebang_then_the_name() {
        let p = Path::new("x");
        assert_eq!(
            language_of(p, "#!/usr/bin/env python3\n"),
            Some(Lang::Python)
        );
        assert_eq!(
            language_of(p, "#!/usr/bin/env -S node --x\n"),
            Some(Lang::Node)
        );
        assert_eq!(language_of(p, "#!/bin/bash -e\n"), Some(Lang::Shell));
        assert_eq!(language_of(p, "#!/usr/bin/jq -f\n"), None);
        assert_eq!(language_of(Path::new("a.py"), "pass\n"), Some(Lang::Python));
        assert_eq!(language_of(Path::new("a.ts"), "x\n"), Some(Lang::Node));
        assert_eq!(language_of(Path::new("lib"), "x=1\n"), Some(Lang::Shell));
        assert_eq!(language_of(Path::new("c.json"), "{}\n"), None);
    }

    #[test]
    fn function_names_are_read_from_definitions() {
        assert_eq!(
            function_names("log() { echo; }\nfunction die {\n  main () {\nx=1\n"),
            ["log", "die", "main"]
        );
    }
}
