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

/// The last component of `path`, unless it is computed (a variable, a glob).
fn base(path: &str) -> Option<&str> {
    let name = path.trim_end_matches('/').rsplit('/').next()?;
    (!name.is_empty() && name != "." && name != ".." && !computed(path)).then_some(name)
}

/// Whether `path` is computed when the command runs: a variable, a substitution, a glob.
fn computed(path: &str) -> bool {
    path.contains(['$', '`', '*', '?', '['])
}

/// The path a written or run file is known by: as written, joined to the directory its
/// command runs in (`cd /tmp; sh x.sh` runs `/tmp/x.sh`), `.` and `x/..` taken out. A file
/// spelt two ways (`x.sh`, `$PWD/x.sh`) is two names, and a run by the other spelling is not
/// judged by content.
fn key(path: &str, dir: Option<&str>) -> Option<String> {
    base(path)?;
    let joined = match dir {
        Some(dir) if !path.starts_with(['/', '~']) => format!("{dir}/{path}"),
        _ => path.to_owned(),
    };
    Some(crate::shell::links::normal(&joined))
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
            // dash's `echo` (and bash's with `xpg_echo`) reads backslash escapes.
            if args.iter().any(|a| a.contains('\\')) {
                return None;
            }
            let mut text = args.join(" ");
            if newline {
                text.push('\n');
            }
            text
        }
        // Escapes beyond `\n` and `\t` (octal, `\x`, `\0`) are not read here: not spelt out.
        "printf" => match command.args.as_slice() {
            [format]
                if !format.contains('%')
                    && !format.replace("\\n", "").replace("\\t", "").contains('\\') =>
            {
                format.replace("\\n", "\n").replace("\\t", "\t")
            }
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
    /// as its content: a shell's script (`sh t.sh`, `./t.sh`, `. t.sh`, one that parses; `written_as` is the program's word as written) is
    /// parsed as the line's own, an interpreter's (`python3 t.py`) is given to it inline
    /// (`python3 -c CODE`). Each file so judged is listed in `Script::known_files`, which
    /// `write-then-run` does not ask about, unless a file of that name also ran without its
    /// content judged. A file written any other way, on another descriptor or through a name
    /// computed when it runs, or named by a program that may change it (`sed -i`, `cp`,
    /// `mv`), is no longer known.
    pub(super) fn written_files(
        &mut self,
        command: &Command,
        written_as: Option<&str>,
        privileged: bool,
        dir: &Option<String>,
    ) -> Result<()> {
        // Most lines write no file: nothing to follow.
        if self.sink.written.is_empty() && !command.redirects.iter().any(|r| r.writes_file()) {
            return Ok(());
        }
        let here = dir.as_deref();
        // A run of a file: a script operand, a sourced file, an interpreter's script, or the
        // program itself, by its path.
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
        if let Some((file, inline)) = runs {
            let content = key(file, here).and_then(|k| known(&self.sink.written, &k));
            let judged = match (content, inline) {
                (Some(content), Some(option)) => {
                    let mut words = vec![command.program.clone(), option.to_owned(), content];
                    words.extend(command.args.iter().skip(1).cloned());
                    self.nested_command(words, privileged, dir)?;
                    true
                }
                // Only a script the guards can parse is judged by its content.
                (Some(content), None) if crate::shell::parse(&content).is_ok() => {
                    self.queue_task(Source::Text(content), privileged, dir.clone(), false)?;
                    true
                }
                _ => false,
            };
            self.note_run(file, judged);
        }
        // A file run by its path (`./t.sh`): a shell script unless its first line names
        // another interpreter.
        if command.by_path
            && let Some(path) = written_as.map(str::to_owned)
        {
            let content = key(&path, here).and_then(|k| known(&self.sink.written, &k));
            let mut judged = false;
            if let Some(content) = content {
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
                            self.queue_task(Source::Text(content), privileged, dir.clone(), false)?;
                            judged = true;
                        }
                    }
                    Some(program) => {
                        if let Some((_, option)) = INTERPRETERS.iter().find(|(p, _)| *p == program)
                        {
                            let mut words = vec![program.to_owned(), (*option).to_owned(), content];
                            words.extend(command.args.iter().cloned());
                            self.nested_command(words, privileged, dir)?;
                            judged = true;
                        }
                    }
                }
            }
            self.note_run(&path, judged);
        }
        // What this command writes. A write on another descriptor (`2> x.sh`, `exec 3>> x.sh`)
        // or a duplication of one (`1>&2`) makes its files' content unknown; a write to a name
        // computed when it runs (`> $f`) may be to any file: none stays known.
        let writes: Vec<&crate::shell::Redirect> = command
            .redirects
            .iter()
            .filter(|r| r.writes_file())
            .collect();
        if writes.iter().any(|r| computed(&r.target)) {
            let all: Vec<String> = self.sink.written.iter().map(|(k, _)| k.clone()).collect();
            self.sink.written.extend(all.into_iter().map(|k| (k, None)));
        }
        let plain = (command.redirects.iter()).all(|r| {
            r.fd.is_none_or(|fd| fd == 1) && !matches!(r.op, RedirectOp::DupOut | RedirectOp::DupIn)
        });
        // A function or alias of the printer's name prints what it likes.
        let redefined = (self.sink.bodies.iter()).any(|(name, _, _)| *name == command.program)
            || (self.sink.aliases.iter()).any(|(name, _)| *name == command.program);
        let text = (!writes.is_empty() && plain && !redefined)
            .then(|| printed(command))
            .flatten();
        for r in &writes {
            let Some(k) = key(&r.target, here) else {
                continue;
            };
            let content = match (
                &text,
                matches!(r.op, RedirectOp::Append | RedirectOp::AppendErr),
            ) {
                (Some(text), false) => Some(text.clone()),
                (Some(text), true) => known(&self.sink.written, &k).map(|before| before + text),
                (None, _) => None,
            };
            self.sink.charge(content.as_ref().map_or(0, String::len))?;
            // Every other spelling of a file of this name is no longer known either.
            self.forget(base(&r.target).unwrap_or_default(), Some(&k));
            self.sink.written.push((k, content));
        }
        // A program that may change a file it names (`sed -i`, `cp x t.sh`, `tee t.sh`): no
        // file of that name is known any more.
        if !LEAVE_AS_IS.contains(&command.program.as_str()) && !self.sink.written.is_empty() {
            let named: Vec<String> = (command.args.iter())
                .filter_map(|a| base(a.rsplit('=').next().unwrap_or(a)))
                .map(str::to_owned)
                .collect();
            for name in named {
                self.forget(&name, None);
            }
        }
        Ok(())
    }

    /// Makes every written file whose last component is `name` unknown (but `keep`).
    fn forget(&mut self, name: &str, keep: Option<&str>) {
        let gone: Vec<String> = (self.sink.written.iter())
            .filter(|(k, content)| {
                content.is_some() && base(k) == Some(name) && Some(k.as_str()) != keep
            })
            .map(|(k, _)| k.clone())
            .collect();
        self.sink
            .written
            .extend(gone.into_iter().map(|k| (k, None)));
    }

    /// Notes a run of `file`: judged by its content, or not (then no file of its name is
    /// known to `write-then-run`).
    fn note_run(&mut self, file: &str, judged: bool) {
        let Some(name) = base(file) else {
            return;
        };
        if judged {
            self.sink.script.known_files.push(name.to_owned());
        } else if (self.sink.written.iter()).any(|(k, _)| base(k) == Some(name)) {
            self.sink.unjudged.push(name.to_owned());
        }
    }
}
