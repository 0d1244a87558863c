//! Files the line writes with content it spells out (`echo 'print(1)' > t.py`, `cat > x.sh
//! <<'EOF' … EOF`), then runs: what runs is that content, read as the script or code it is.

use super::program_name;
use crate::shell::parser::{Parser, Result, Source};
use crate::shell::{Command, RedirectOp, ShellScript};

/// Programs that may name a written file between its writing and its run without changing
/// what it holds.
const LEAVE_AS_IS: &[&str] = &[
    "chmod", "ls", "stat", "cat", "test", "[", "wc", "head", "tail", "file", "echo",
];

/// Interpreters that run a script file given as their first operand, and the option that
/// gives them code inline instead.
const INTERPRETERS: &[(&str, &str)] = &[
    ("python", "-c"),
    ("python3", "-c"),
    ("node", "-e"),
    ("ruby", "-e"),
    ("perl", "-e"),
    ("php", "-r"),
];

/// The name a written file is known by: its last component (`./t.sh`, `/tmp/t.sh`, `t.sh`
/// are one file as far as the words tell).
fn key(path: &str) -> Option<&str> {
    let name = path.trim_end_matches('/').rsplit('/').next()?;
    (!name.is_empty() && name != "." && name != ".." && !name.contains(['$', '`', '*', '?']))
        .then_some(name)
}

/// What `command` prints, when its words spell it out: `echo` (with `-n` at most), `printf`
/// with a format alone and no `%`, `cat` of a here-string. Text with `$` or
/// a backquote in it may be expanded as it is written: not spelt out.
fn printed(command: &Command) -> Option<String> {
    let text = match command.program.as_str() {
        "echo" => {
            let (newline, args) = match command.args.first().map(String::as_str) {
                Some("-n") => (false, &command.args[1..]),
                _ => (true, &command.args[..]),
            };
            if args.first().is_some_and(|a| a.starts_with('-')) {
                return None;
            }
            let mut text = args.join(" ");
            if newline {
                text.push('\n');
            }
            text
        }
        "printf" => match command.args.as_slice() {
            [format] if !format.contains('%') => format
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\\\", "\\"),
            _ => return None,
        },
        // A here-document's body is read after its line, once this command was resolved:
        // not known here (`cat > x.sh <<'EOF'` stays `write-then-run`).
        "cat" if command.args.iter().all(|a| a == "-") => {
            let mut inputs = (command.redirects.iter())
                .filter(|r| r.reads_stdin() || r.op == RedirectOp::HereString);
            let input = inputs.next()?;
            if inputs.next().is_some() || input.op != RedirectOp::HereString {
                return None;
            }
            format!("{}\n", input.target)
        }
        _ => return None,
    };
    (!text.contains(['$', '`'])).then_some(text)
}

/// The content the line spells out for the file known as `name`, if it is known.
fn known(written: &[(String, Option<String>)], name: &str) -> Option<String> {
    (written.iter().rev())
        .find(|(n, _)| n == name)
        .and_then(|(_, content)| content.clone())
}

impl Parser<'_, '_> {
    /// Follows the files the line writes with content it spells out, and judges a run of one
    /// as its content: a shell's script (`sh t.sh`, `./t.sh`, `. t.sh`, one that parses) is
    /// parsed as the line's own, an interpreter's (`python3 t.py`) is given to it inline
    /// (`python3 -c CODE`). Each file so judged is listed in `Script::known_files`, which
    /// `write-then-run` does not ask about. A file written any other way, or named by a
    /// program that may change it (`sed -i`, `cp`, `mv`), is no longer known.
    pub(super) fn written_files(
        &mut self,
        command: &Command,
        privileged: bool,
        dir: &Option<String>,
    ) -> Result<()> {
        // Most lines write no file: nothing to follow.
        if self.sink.written.is_empty() && !command.redirects.iter().any(|r| r.writes_file()) {
            return Ok(());
        }
        // A run of a known file.
        let runs: Option<(&str, Option<&str>)> = match command.shell_script() {
            Some(ShellScript::File(file)) => Some((file, None)),
            _ if matches!(command.program.as_str(), "." | "source") => {
                command.args.first().map(|f| (f.as_str(), None))
            }
            _ => (INTERPRETERS.iter())
                .find(|(name, _)| *name == command.program)
                .and_then(|(_, inline)| {
                    let first = command.args.first()?;
                    (!first.starts_with('-')).then_some((first.as_str(), Some(*inline)))
                }),
        };
        if let Some((file, inline)) = runs
            && let Some(name) = key(file)
            && let Some(content) = known(&self.sink.written, name)
        {
            match inline {
                Some(option) => {
                    let mut words = vec![command.program.clone(), option.to_owned(), content];
                    words.extend(command.args.iter().skip(1).cloned());
                    self.sink.script.known_files.push(name.to_owned());
                    self.nested_command(words, privileged, dir)?;
                }
                // Only a script the guards can parse is judged by its content.
                None if crate::shell::parse(&content).is_ok() => {
                    self.sink.script.known_files.push(name.to_owned());
                    self.queue_task(Source::Text(content), privileged, dir.clone(), false)?;
                }
                None => {}
            }
        }
        // A file run by its path (`./t.sh`): a shell script unless its first line names
        // another interpreter.
        if command.by_path
            && let Some(content) = known(&self.sink.written, &command.program)
        {
            let name = command.program.clone();
            let shebang = content.strip_prefix("#!").and_then(|l| l.lines().next());
            let interpreter = shebang.map(|line| {
                let mut words = line.split_whitespace();
                let first = words.next().unwrap_or_default();
                // `#!/usr/bin/env python3`
                match program_name(first).as_ref() {
                    "env" => words.next().unwrap_or_default().to_owned(),
                    other => other.to_owned(),
                }
            });
            match interpreter.as_deref() {
                None | Some("sh" | "bash" | "dash" | "zsh" | "ksh") => {
                    if crate::shell::parse(&content).is_ok() {
                        self.sink.script.known_files.push(name.clone());
                        self.queue_task(Source::Text(content), privileged, dir.clone(), false)?;
                    }
                }
                Some(program) => {
                    if let Some((_, option)) = INTERPRETERS.iter().find(|(p, _)| *p == program) {
                        let mut words = vec![program.to_owned(), (*option).to_owned(), content];
                        words.extend(command.args.iter().cloned());
                        self.sink.script.known_files.push(name.clone());
                        self.nested_command(words, privileged, dir)?;
                    }
                }
            }
        }
        // What this command writes.
        let outputs: Vec<&str> = (command.redirects.iter())
            .filter(|r| r.writes_file() && r.fd.is_none_or(|fd| fd == 1))
            .filter_map(|r| key(&r.target))
            .collect();
        let appends = |name: &str| {
            (command.redirects.iter()).any(|r| {
                matches!(r.op, RedirectOp::Append | RedirectOp::AppendErr)
                    && key(&r.target) == Some(name)
            })
        };
        let text = (!outputs.is_empty()).then(|| printed(command)).flatten();
        for name in &outputs {
            let content = match (&text, appends(name)) {
                (Some(text), false) => Some(text.clone()),
                (Some(text), true) => known(&self.sink.written, name).map(|before| before + text),
                (None, _) => None,
            };
            self.sink.charge(content.as_ref().map_or(0, String::len))?;
            self.sink.written.push(((*name).to_owned(), content));
        }
        // A program that may change a file it names (`sed -i`, `cp x t.sh`, `tee t.sh`): the
        // file is no longer known.
        if !LEAVE_AS_IS.contains(&command.program.as_str()) && !self.sink.written.is_empty() {
            let named: Vec<String> = (command.args.iter())
                .filter_map(|a| key(a.rsplit('=').next().unwrap_or(a)))
                .filter(|n| self.sink.written.iter().any(|(w, _)| w == n))
                .filter(|n| !outputs.contains(n))
                .map(str::to_owned)
                .collect();
            for name in named {
                self.sink.written.push((name, None));
            }
        }
        Ok(())
    }
}
