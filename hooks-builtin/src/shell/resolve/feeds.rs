//! What a command reads on standard input can be what it runs: a script piped or
//! here-documented into a shell, `ssh` or `at`, the items `xargs` and `parallel` add to their
//! command, the entries of a table fed to `crontab -`.

use std::borrow::Cow;

use crate::shell::{Escapes, read_escapes};

use super::scripts::find_prints_paths;
use super::wrappers::{PARALLEL_LONG, PARALLEL_SHORT, SHELLS, XARGS_LONG, XARGS_SHORT};
use super::{Opt, options, program_name, ssh_remote, strip, walk_options};
use crate::shell::parser::{ItemsFor, Parser, Result, Source, XargsHereDoc};
use crate::shell::{Command, RedirectOp, ShellScript, quote};

/// Programs that pass on lines of their input, some or all, changed or not, as paths would
/// be (`sort`, `grep -v x`, `head`, `tr '\n' '\0'`).
pub(super) const PASS_LINES: &[&str] = &[
    "sort", "uniq", "grep", "egrep", "fgrep", "rg", "head", "tail", "cat", "tac", "tee", "tr",
    "shuf", "sed", "awk", "cut",
];

/// What `parallel` reads on standard input.
#[derive(Clone, Copy)]
pub(super) enum Stdin<'a> {
    /// Nothing the line shows (the agent's own input).
    Unknown,
    /// Literal text: its lines are the inputs.
    Text(&'a str),
    /// The output of a command (`ls | parallel rm -rf`): its inputs are computed when it
    /// runs, and stand in the script as the substitution of that command would.
    Output(&'a str),
}

/// The scripts `parallel` runs: its command with each input (`::: a b`; without those, each
/// line of `stdin` when it is known) put in place of `{}` (quoted, as parallel does) or added
/// at the end, or each input itself when there is no command. `max` bounds the bytes
/// produced; `None` past it.
pub(super) fn parallel_scripts(
    args: &[String],
    stdin: Stdin<'_>,
    max: usize,
) -> Option<Vec<String>> {
    let (mut replace, mut arg_sep, mut file_sep) = (None, ":::", "::::");
    let mut quoted = false;
    let options = walk_options(
        args,
        PARALLEL_SHORT,
        PARALLEL_LONG,
        false,
        |opt, value| match (opt, value) {
            (Opt::Short('I'), Some(v)) => replace = Some(v),
            (Opt::Long("arg-sep"), Some(v)) => arg_sep = v,
            (Opt::Long("arg-file-sep"), Some(v)) => file_sep = v,
            // `-q` keeps the command's words as they are (`parallel -q sh -c 'rm {}'`).
            (Opt::Short('q') | Opt::Long("quote"), _) => quoted = true,
            _ => {}
        },
    );
    let rest = &args[options..];
    let is_sep = |a: &str| {
        a == arg_sep
            || a == file_sep
            || a.strip_suffix('+')
                .is_some_and(|a| a == arg_sep || a == file_sep)
    };
    let end = rest.iter().position(|a| is_sep(a)).unwrap_or(rest.len());
    let template = if quoted {
        let words: Vec<Cow<'_, str>> = rest[..end].iter().map(|w| quote(w)).collect();
        words.join(" ")
    } else {
        rest[..end].join(" ")
    };
    // Each input, and whether it is the substitution of a command's output (it stands in the
    // script as written) or literal text (quoted, as parallel quotes it).
    let mut inputs: Vec<(Cow<'_, str>, bool)> = Vec::new();
    let mut values = false;
    // `:::: -` (or `/dev/stdin`) reads the inputs from standard input too.
    let mut from_stdin = end == rest.len();
    for arg in &rest[end..] {
        if is_sep(arg) {
            values = arg.trim_end_matches('+') == arg_sep;
        } else if values {
            inputs.push((Cow::Borrowed(arg.as_str()), false));
        } else if matches!(arg.as_str(), "-" | "/dev/stdin" | "/dev/fd/0") {
            from_stdin = true;
        }
    }
    // With no `:::` input, parallel reads its inputs from standard input, a line each.
    // Without reading standard input, the scripts are the ones of `Stdin::Unknown`, which
    // the command's own reading gives.
    if !from_stdin && !matches!(stdin, Stdin::Unknown) {
        return Some(Vec::new());
    }
    if from_stdin {
        match stdin {
            Stdin::Text(text) => {
                let lines = text.lines().filter(|l| !l.trim().is_empty());
                inputs.extend(lines.map(|l| (Cow::Borrowed(l), false)));
            }
            Stdin::Output(command) => inputs.push((Cow::Owned(format!("\"$({command})\"")), true)),
            Stdin::Unknown => {}
        }
    }
    if template.is_empty() {
        return Some(inputs.into_iter().map(|(i, _)| i.into_owned()).collect());
    }
    if inputs.is_empty() {
        return Some(vec![template]);
    }
    let mut slots: Vec<&str> = vec!["{}", "{.}", "{/}", "{//}", "{/.}"];
    slots.extend([
        "{1}", "{2}", "{3}", "{4}", "{5}", "{6}", "{7}", "{8}", "{9}",
    ]);
    slots.extend(replace);
    let mut budget = max;
    let mut scripts = Vec::with_capacity(inputs.len());
    for (input, computed) in inputs {
        budget = budget.checked_sub(template.len() + input.len() + 1)?;
        let value = if computed {
            input
        } else {
            quote(&input).into_owned().into()
        };
        let mut script = template.clone();
        for slot in &slots {
            if script.contains(slot) {
                script = script.replace(slot, &value);
            }
        }
        if script == template {
            script = format!("{template} {value}");
        }
        budget = budget.checked_sub(script.len())?;
        scripts.push(script);
    }
    Some(scripts)
}

/// What `xargs`' options say, read in one walk over its words.
pub(super) struct Xargs<'a> {
    /// The command it runs before items are added; empty, it runs `echo`.
    pub(super) command: &'a [String],
    /// `-I R` (`-i`, `--replace`): one command per item, `R` replaced by it.
    replace: Option<&'a str>,
    /// BSD's `-J R`: the items put in where the word `R` is, instead of after the command.
    insert: Option<&'a str>,
    /// `-0`, `-d X`: items are what lies between the delimiters. `None`: blanks separate
    /// items, and quotes are read.
    delimiter: Option<char>,
    /// `-n N`, `-L N`, `-l`: a command per so many items (or lines).
    per_run: Option<usize>,
    /// `-a FILE`: where the items come from instead of standard input.
    pub(super) arg_file: Option<&'a str>,
}

impl<'a> Xargs<'a> {
    pub(super) fn read(args: &'a [String]) -> Self {
        let mut xargs = Xargs {
            command: &[],
            replace: None,
            insert: None,
            delimiter: None,
            per_run: None,
            arg_file: None,
        };
        let options = walk_options(
            args,
            XARGS_SHORT,
            XARGS_LONG,
            false,
            |opt, value| match opt {
                // Of `-I` and BSD's `-J`, the last given counts.
                Opt::Short('I') => (xargs.replace, xargs.insert) = (value, None),
                Opt::Short('J') => (xargs.insert, xargs.replace) = (value, None),
                Opt::Short('i') | Opt::Long("replace") => {
                    (xargs.replace, xargs.insert) = (Some(value.unwrap_or("{}")), None);
                }
                Opt::Short('0') | Opt::Long("null") => xargs.delimiter = Some('\0'),
                Opt::Short('d') | Opt::Long("delimiter") => {
                    xargs.delimiter = Some(value.map_or('\n', delimiter_char));
                }
                Opt::Short('n' | 'L') | Opt::Long("max-args" | "max-lines") => {
                    xargs.per_run = value
                        .and_then(|v| v.parse::<usize>().ok())
                        .filter(|n| *n > 0);
                }
                Opt::Short('l') => xargs.per_run = Some(1),
                Opt::Short('a') | Opt::Long("arg-file") => xargs.arg_file = value,
                _ => {}
            },
        );
        xargs.command = &args[options..];
        xargs.replace = xargs.replace.filter(|r| !r.is_empty());
        xargs.insert = xargs.insert.filter(|r| !r.is_empty());
        xargs
    }

    /// What it runs, given the input it reads: one command with every input item added, or
    /// with `-I R`, one per input item with `R` replaced by it. Items are blank-separated
    /// words with quotes read (with `-I`, lines). With `-0`/`-d X` they are what lies between
    /// the delimiters, as they are (`echo 'rm -rf /' | xargs -0 sh -c` runs `sh -c 'rm -rf
    /// /⏎'`); the blank-separated words, quotes kept, are judged too, so that a trailing
    /// newline does not hide a path (`echo / | xargs -0 rm -rf`). `max` bounds the bytes
    /// produced; `None` past it.
    pub(super) fn runs(&self, input: &str, max: usize) -> Option<Vec<Vec<String>>> {
        let command = self.command;
        if command.is_empty() {
            return Some(Vec::new()); // `echo`
        }
        let lines = || input.lines().map(str::trim_start).filter(|l| !l.is_empty());
        let mut readings: Vec<Vec<String>> = Vec::new();
        match (self.delimiter, self.replace) {
            (None, None) => readings.push(xargs_words(input, true)),
            (None, Some(_)) => {
                readings.push(lines().map(|l| xargs_words(l, false).concat()).collect());
            }
            (Some(d), _) => {
                let items = input.split(d).filter(|item| !item.is_empty());
                readings.push(items.map(str::to_owned).collect());
                let blanks: Vec<String> = match self.replace {
                    Some(_) => lines().map(str::to_owned).collect(),
                    None => input.split_whitespace().map(str::to_owned).collect(),
                };
                if readings[0] != blanks {
                    readings.push(blanks);
                }
            }
        }
        let size: usize = command.iter().map(|w| w.len() + 1).sum();
        let mut budget = max;
        let mut runs = Vec::new();
        for items in readings {
            match self.replace {
                Some(r) => {
                    for item in items {
                        budget = budget.checked_sub(size + item.len())?;
                        let run: Vec<String> =
                            command.iter().map(|w| w.replace(r, &item)).collect();
                        budget = budget.checked_sub(run.iter().map(String::len).sum())?;
                        runs.push(run);
                    }
                }
                None => {
                    // The items in one command, and with `-n`/`-L` also so many in each: the
                    // guard judges both groupings (`printf 'ls\nrm -rf ~' | xargs -d '\n' -n1
                    // sh -c` runs `sh -c 'rm -rf ~'`).
                    // The command once per group and once whole; the items twice in all.
                    let groups = self.per_run.map_or(0, |n| items.len().div_ceil(n));
                    let bytes = size
                        .checked_mul(1 + groups)?
                        .checked_add(input.len().checked_mul(2)?)?;
                    budget = budget.checked_sub(bytes)?;
                    // `-J R`: the items in place of the first word that is R (as BSD's
                    // xargs does), else after the command.
                    let with = |chunk: &[String]| {
                        let at = self
                            .insert
                            .and_then(|r| command.iter().position(|w| w == r));
                        match at {
                            Some(at) => (command[..at].iter())
                                .chain(chunk)
                                .chain(&command[at + 1..])
                                .cloned()
                                .collect(),
                            None => command.iter().chain(chunk).cloned().collect::<Vec<_>>(),
                        }
                    };
                    if let Some(n) = self.per_run {
                        runs.extend(items.chunks(n).map(with));
                    }
                    runs.push(with(&items));
                }
            }
        }
        Some(runs)
    }

    /// What it runs with items the guard cannot read: `items` (a substitution that stands for
    /// them) put where `-I R` says, or after the command.
    pub(super) fn unknown_run(&self, items: &str) -> Vec<String> {
        if self.command.is_empty() {
            return Vec::new(); // `echo`
        }
        match self.replace {
            Some(r) => self.command.iter().map(|w| w.replace(r, items)).collect(),
            None => {
                let mut run = self.command.to_vec();
                run.push(items.to_owned());
                run
            }
        }
    }
}

/// The delimiter `xargs -d` reads from its value: a character, or an escape (`\n`, `\t`,
/// `\0`, `\\`, `\x0a`, `\012`; any other escaped character is itself).
fn delimiter_char(value: &str) -> char {
    read_escapes(value, Escapes::Literal)
        .chars()
        .next()
        .unwrap_or('\n')
}

/// The items xargs reads from `input` by default: blank-separated (`split`; with `-I` a line
/// is one item), with `'…'` and `"…"` quoting (no escapes inside) and a backslash escaping the
/// next character outside them.
fn xargs_words(input: &str, split: bool) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = input.chars();
    while let Some(c) = chars.next() {
        match c {
            c if split && c.is_whitespace() => words.extend(word.take()),
            '\'' | '"' => {
                let text = word.get_or_insert_with(String::new);
                text.extend(chars.by_ref().take_while(|&q| q != c));
            }
            '\\' => {
                let text = word.get_or_insert_with(String::new);
                text.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// What a command writes to standard output when it is a literal script: `echo` and
/// `printf` text, and `cat` of a here-document or here-string.
fn output_script(slot: (usize, usize), command: &Command) -> Option<Source> {
    let text = match command.program.as_str() {
        "echo" => {
            let flags = command.args.iter().take_while(|a| {
                a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
            });
            command.args[flags.count()..].join(" ")
        }
        // `printf -- FORMAT …` ends its options before the format.
        "printf" => {
            let args = match command.args.split_first() {
                Some((first, rest)) if first == "--" => rest,
                _ => &command.args[..],
            };
            match args.split_first() {
                Some((format, values)) => printf(&read_escapes(format, Escapes::Printf), values),
                None => return None,
            }
        }
        "cat" if command.args.is_empty() => return stdin_script(slot, command)?,
        _ => return None,
    };
    Some(Source::Text(text.replace("\\n", "\n")))
}

/// What `script` prints when it is one `echo` or `printf` of literal words.
pub(super) fn literal_script_output(script: &str) -> Option<String> {
    let parsed = crate::shell::parse(script).ok()?;
    match &parsed.pipelines[..] {
        [pipeline] => match &pipeline.commands[..] {
            [command] => literal_output(command),
            _ => None,
        },
        _ => None,
    }
}

/// What an `echo` or `printf` of literal words prints, newline included; `None` for any
/// other command.
pub(in crate::shell) fn literal_output(command: &Command) -> Option<String> {
    let echo_newline = command.program == "echo"
        && !command
            .args
            .iter()
            .take_while(|a| a.len() > 1 && a.starts_with('-'))
            .any(|a| a.contains('n'));
    match output_script((0, 0), command)? {
        Source::Text(text) if command.program != "cat" => {
            Some(if echo_newline { text + "\n" } else { text })
        }
        _ => None,
    }
}

/// What `printf FORMAT VALUES…` prints: each conversion (`%s`, `%d`, `%b`, `%-10s`, …) takes
/// the next value, and the format is reused while values remain, as the shell does.
fn printf(format: &str, values: &[String]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            if chars.peek() == Some(&'%') {
                chars.next();
                out.push('%');
                continue;
            }
            // Flags, width and precision, then the conversion letter.
            while chars.next_if(|c| "-+ #0123456789.*".contains(*c)).is_some() {}
            chars.next();
            used = true;
            if let Some(value) = values.next() {
                out.push_str(value);
            }
        }
        if !used || values.len() == 0 {
            return out;
        }
    }
}

/// What a command reads on standard input when a redirection says so: `Some(None)` for a
/// file, `None` when nothing redirects it.
fn stdin_script((pi, ci): (usize, usize), command: &Command) -> Option<Option<Source>> {
    let (ri, r) = command
        .redirects
        .iter()
        .enumerate()
        .rev()
        .find(|(_, r)| r.reads_stdin())?;
    Some(match r.op {
        RedirectOp::HereString => Some(Source::Text(r.target.clone())),
        RedirectOp::HereDoc => Some(Source::HereDoc((pi, ci, ri))),
        _ => None,
    })
}

/// The script a shell reads from one of its own descriptors (`bash 3<<<'…' /dev/fd/3`,
/// `sh /proc/self/fd/4 4<<EOF`): the here-string or here-document on it.
fn fd_script((pi, ci): (usize, usize), command: &Command) -> Option<Source> {
    let Some(ShellScript::File(file)) = command.shell_script() else {
        return None;
    };
    let fd: u32 = (file.strip_prefix("/dev/fd/"))
        .or_else(|| file.strip_prefix("/proc/self/fd/"))?
        .parse()
        .ok()?;
    // The last redirection of that descriptor is the one it holds.
    let reads = |op| {
        matches!(
            op,
            RedirectOp::In
                | RedirectOp::ReadWrite
                | RedirectOp::DupIn
                | RedirectOp::HereDoc
                | RedirectOp::HereString
        )
    };
    let (ri, r) = (command.redirects.iter().enumerate().rev())
        .find(|(_, r)| r.fd.unwrap_or(if reads(r.op) { 0 } else { 1 }) == fd)?;
    match r.op {
        RedirectOp::HereString => Some(Source::Text(r.target.clone())),
        RedirectOp::HereDoc => Some(Source::HereDoc((pi, ci, ri))),
        _ => None,
    }
}

/// `crontab -` (or `crontab` with no file) installs the table it reads on standard input.
fn crontab_reads_stdin(args: &[String]) -> bool {
    let n = options(args, "u", &[]);
    let other = (args[..n].iter()).any(|a| !a.starts_with("--") && a.contains(['l', 'r', 'e']));
    !other && args.len() <= n + 1 && args.get(n).is_none_or(|a| a == "-")
}

/// The commands of a crontab: each entry's text after its schedule (five fields, or one
/// `@reboot`-like word), up to its first unescaped `%` (the rest is the command's input). The
/// commands run in the home directory. Comments and `NAME=value` lines run nothing.
fn crontab_commands(table: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in table.lines().map(str::trim_start) {
        if line.is_empty() || line.starts_with('#') || crate::shell::lex::is_assignment(line) {
            continue;
        }
        let fields = if line.starts_with('@') { 1 } else { 5 };
        let mut rest = line;
        for _ in 0..fields {
            rest = rest.trim_start();
            rest = rest.find(char::is_whitespace).map_or("", |at| &rest[at..]);
        }
        let mut command = String::new();
        let mut chars = rest.trim().chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('%') => command.push('%'),
                    Some(n) => {
                        command.push('\\');
                        command.push(n);
                    }
                    None => command.push('\\'),
                },
                '%' => break,
                c => command.push(c),
            }
        }
        if !command.is_empty() {
            out.push(command);
        }
    }
    out
}

/// A command that runs the script it reads on standard input.
struct StdinReader {
    privileged: bool,
    /// On another machine (`ssh host`), in its home directory.
    remote: bool,
}

impl Parser<'_, '_> {
    /// When `command` runs the script it reads on standard input: a shell with no script
    /// operand (`bash`, `sh -s`), `ssh host` with no remote command or one that is such a shell
    /// (`ssh host 'sudo bash'`), and `at`/`batch`.
    fn stdin_reader(&mut self, command: &Command) -> Result<Option<StdinReader>> {
        if command.shell_script() == Some(ShellScript::Stdin) {
            return Ok(Some(StdinReader {
                privileged: command.privileged,
                remote: false,
            }));
        }
        Ok(match command.program.as_str() {
            "at" | "batch" => {
                let from_file = command
                    .args
                    .iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('f'));
                (!from_file).then_some(StdinReader {
                    privileged: command.privileged,
                    remote: false,
                })
            }
            "ssh" => {
                let Some(remote) = ssh_remote(&command.args) else {
                    return Ok(None);
                };
                // Wrappers, the program and its options are enough to tell.
                let words: Vec<String> = remote
                    .iter()
                    .flat_map(|w| w.split_whitespace())
                    .take(64)
                    .map(str::to_owned)
                    .collect();
                let stripped = strip(words, false, self.sink)?;
                let shell = match stripped.words.split_first() {
                    None => true,
                    Some((program, args)) => {
                        let remote = Command {
                            program: program_name(program).into_owned(),
                            args: args.to_vec(),
                            ..Command::default()
                        };
                        remote.shell_script() == Some(ShellScript::Stdin)
                    }
                };
                shell.then_some(StdinReader {
                    privileged: stripped.privileged,
                    remote: true,
                })
            }
            _ => None,
        })
    }

    /// Queues the scripts that commands in pipeline `pi` read on standard input: a
    /// here-document or here-string (`bash <<EOF`), or what the previous stage prints
    /// (`echo … | sh`); and adds what `xargs` runs with such input (`echo / | xargs rm -rf`).
    pub(in crate::shell) fn stdin_scripts(&mut self, pi: usize) -> Result<()> {
        let Some(pipeline) = self.sink.script.pipelines.get(pi) else {
            return Ok(());
        };
        let candidates: Vec<usize> = (pipeline.commands.iter().enumerate())
            .filter(|(_, c)| {
                let program = c.program.as_str();
                SHELLS.contains(&program)
                    || matches!(
                        program,
                        "at" | "batch" | "ssh" | "xargs" | "parallel" | "crontab" | "kill"
                    )
            })
            .map(|(ci, _)| ci)
            .collect();
        let mut scripts = Vec::new();
        let mut runs = Vec::new();
        for ci in candidates {
            let command = self.sink.script.pipelines[pi].commands[ci].clone();
            self.sink.charge(command.args.len())?;
            // `pgrep sshd | while read p; do kill $p; done` (kill.rs).
            if command.program == "kill" {
                let pipeline = &self.sink.script.pipelines[pi];
                if let Some(run) = super::kill::fed_kill(pipeline, ci, &command) {
                    self.sink.charge(run.len())?;
                    runs.push((run, command.privileged, command.dir.clone()));
                }
                continue;
            }
            if let Some(source) = fd_script((pi, ci), &command) {
                scripts.push((source, command.privileged, command.dir.clone()));
                continue;
            }
            let reader = self.stdin_reader(&command)?;
            let takes_items = matches!(command.program.as_str(), "xargs" | "parallel")
                || (command.program == "crontab" && crontab_reads_stdin(&command.args));
            if reader.is_none() && !takes_items {
                continue;
            }
            let pipeline = &self.sink.script.pipelines[pi];
            let source = match stdin_script((pi, ci), &command) {
                Some(source) => source,
                None => ci
                    .checked_sub(1)
                    .and_then(|prev| output_script((pi, prev), pipeline.commands.get(prev)?)),
            };
            match (reader, source) {
                (Some(reader), Some(source)) => {
                    let dir = if reader.remote {
                        Some("~".to_owned())
                    } else {
                        command.dir.clone()
                    };
                    scripts.push((source, reader.privileged, dir));
                }
                (None, Some(Source::Text(input))) if command.program == "crontab" => {
                    self.sink.charge(input.len())?;
                    for script in crontab_commands(&input) {
                        let source = Source::Text(script);
                        scripts.push((source, command.privileged, Some("~".to_owned())));
                    }
                }
                (None, Some(Source::Text(input))) if command.program == "parallel" => {
                    self.sink.charge(input.len())?;
                    let parallel =
                        parallel_scripts(&command.args, Stdin::Text(&input), self.sink.fuel());
                    for script in parallel.ok_or(crate::shell::ShellError::TooComplex)? {
                        let source = Source::Text(script);
                        scripts.push((source, command.privileged, command.dir.clone()));
                    }
                }
                (None, Some(Source::Text(input))) => {
                    self.sink.charge(input.len())?;
                    let xargs = Xargs::read(&command.args).runs(&input, self.sink.fuel());
                    for run in xargs.ok_or(crate::shell::ShellError::TooComplex)? {
                        runs.push((run, command.privileged, command.dir.clone()));
                    }
                }
                // Items from a program's output (`ls | xargs rm -rf`, `ls | parallel rm -rf`) or
                // a file: what xargs or parallel runs gets them as a substitution would (`rm
                // -rf $(ls)`), paths computed when it runs.
                (None, None)
                    if command.program == "parallel"
                        || (command.program == "xargs"
                            && Xargs::read(&command.args).arg_file.is_none()) =>
                {
                    let file = (command.redirects.iter().rev())
                        .find(|r| r.op == crate::shell::RedirectOp::In && r.reads_stdin());
                    let prev = ci
                        .checked_sub(1)
                        .and_then(|prev| pipeline.commands.get(prev));
                    let from = match (prev, file) {
                        (_, Some(file)) => format!("cat {}", crate::shell::quote(&file.target)),
                        (Some(_), None) => super::kill::feeding_stages(pipeline, ci),
                        // Standard input is the agent's: nothing is piped in.
                        (None, None) => continue,
                    };
                    // `find /etc -type f | xargs rm -f` does what `find /etc -type f -exec rm
                    // -f {} +` does, and is judged as that: the find rules know which trees a
                    // find empties. Unless both sides split on NUL (`-print0 | xargs -0`), a
                    // name with blanks, quotes or a newline in it becomes other paths too (a
                    // file called `x /etc`): the items are judged as computed paths as well.
                    // Through stages that pass lines on (`find / | sort | xargs rm -f`): what
                    // reaches xargs is some of find's paths, judged as all of them.
                    let mut source = ci.checked_sub(1);
                    while let Some(at) = source
                        && at > 0
                        && PASS_LINES.contains(&pipeline.commands[at].program.as_str())
                    {
                        source = Some(at - 1);
                    }
                    let direct = source == ci.checked_sub(1);
                    let find = (source.and_then(|at| pipeline.commands.get(at)))
                        .filter(|p| {
                            command.program == "xargs"
                                && file.is_none()
                                && p.program == "find"
                                && p.dir == command.dir
                                && find_prints_paths(&p.args)
                        })
                        .map(|p| p.args.clone());
                    self.sink.charge(from.len())?;
                    if let Some(mut find) = find {
                        let xargs = Xargs::read(&command.args);
                        // With `-I`, the item goes where the command says, into a script too
                        // (`xargs -0 -I X sh -c X`): the computed reading stays.
                        let exact = direct
                            && xargs.replace.is_none()
                            && xargs.delimiter == Some('\0')
                            && find.iter().any(|a| a == "-print0");
                        let run = xargs.unknown_run("{}");
                        if !run.is_empty() {
                            self.sink.charge(find.len() + run.len())?;
                            find.insert(0, "find".to_owned());
                            find.push("-exec".to_owned());
                            find.extend(run);
                            find.push(if xargs.replace.is_some() { ";" } else { "+" }.to_owned());
                            runs.push((find, command.privileged, command.dir.clone()));
                        }
                        if exact {
                            continue;
                        }
                    }
                    if command.program == "parallel" {
                        let parallel =
                            parallel_scripts(&command.args, Stdin::Output(&from), self.sink.fuel());
                        for script in parallel.ok_or(crate::shell::ShellError::TooComplex)? {
                            let source = Source::Text(script);
                            scripts.push((source, command.privileged, command.dir.clone()));
                        }
                        continue;
                    }
                    let run = Xargs::read(&command.args).unknown_run(&format!("$({from})"));
                    if !run.is_empty() {
                        runs.push((run, command.privileged, command.dir.clone()));
                    }
                }
                // Its body comes after the line: what xargs runs is added once it is read.
                (None, Some(Source::HereDoc(input))) => {
                    let reads = match command.program.as_str() {
                        "parallel" => ItemsFor::Parallel,
                        "crontab" => ItemsFor::Crontab,
                        _ => ItemsFor::Xargs,
                    };
                    self.xargs_heredocs.push(XargsHereDoc {
                        input,
                        reads,
                        args: command.args.clone(),
                        privileged: command.privileged,
                        dir: command.dir.clone(),
                    });
                }
                _ => {}
            }
        }
        for (source, privileged, dir) in scripts {
            self.queue_task(source, privileged, dir, false)?;
        }
        for (words, privileged, dir) in runs {
            self.nested_command(words, privileged, &dir)?;
        }
        Ok(())
    }

    /// Adds what `xargs ARGS` (or `parallel ARGS`) runs with `input` on its standard input.
    pub(in crate::shell) fn xargs_runs_of(
        &mut self,
        xargs: &XargsHereDoc,
        input: &str,
    ) -> Result<()> {
        let XargsHereDoc {
            args,
            privileged,
            dir,
            reads,
            ..
        } = xargs;
        self.sink.charge(input.len())?;
        let scripts = match reads {
            ItemsFor::Xargs => None,
            ItemsFor::Parallel => Some(
                parallel_scripts(args, Stdin::Text(input), self.sink.fuel())
                    .ok_or(crate::shell::ShellError::TooComplex)?,
            ),
            ItemsFor::Crontab => Some(crontab_commands(input)),
        };
        if let Some(scripts) = scripts {
            let dir = if *reads == ItemsFor::Crontab {
                Some("~".to_owned())
            } else {
                dir.clone()
            };
            for script in scripts {
                self.queue_task(Source::Text(script), *privileged, dir.clone(), false)?;
            }
            return Ok(());
        }
        let privileged = *privileged;
        let runs = Xargs::read(args)
            .runs(input, self.sink.fuel())
            .ok_or(crate::shell::ShellError::TooComplex)?;
        for run in runs {
            self.nested_command(run, privileged, dir)?;
        }
        Ok(())
    }
}
