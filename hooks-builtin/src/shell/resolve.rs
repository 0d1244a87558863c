//! From a simple command's words to the command that runs: wrappers stripped, and the scripts
//! and commands it runs in turn queued.

use super::lex::is_assignment;
use super::parser::{Parser, Result, Source};
use super::{Command, Redirect, RedirectOp, ShellScript};

/// A program that runs the command given after its options.
struct Wrapper {
    name: &'static str,
    /// Short options that take a value (`u` for `sudo -u root`).
    short: &'static str,
    /// Long options that take a value as the next word (`--user root`).
    long: &'static [&'static str],
    /// Operands before the command (the duration of `timeout 5 cmd`).
    operands: usize,
    /// `NAME=value` words may come before the command.
    assignments: bool,
    /// The command runs as another user.
    privileged: bool,
}

const PLAIN: Wrapper = Wrapper {
    name: "",
    short: "",
    long: &[],
    operands: 0,
    assignments: false,
    privileged: false,
};

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "sudo",
        short: "ugpCDrtUTR",
        long: &[
            "user",
            "group",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
            "host",
        ],
        assignments: true,
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "doas",
        short: "uC",
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "pkexec",
        long: &["user"],
        privileged: true,
        ..PLAIN
    },
    Wrapper {
        name: "env",
        short: "uC",
        long: &["unset", "chdir"],
        assignments: true,
        ..PLAIN
    },
    Wrapper {
        name: "command",
        ..PLAIN
    },
    Wrapper {
        name: "builtin",
        ..PLAIN
    },
    Wrapper {
        name: "exec",
        short: "a",
        ..PLAIN
    },
    Wrapper {
        name: "nohup",
        ..PLAIN
    },
    Wrapper {
        name: "time",
        short: "fo",
        long: &["format", "output"],
        ..PLAIN
    },
    Wrapper {
        name: "nice",
        short: "n",
        long: &["adjustment"],
        ..PLAIN
    },
    Wrapper {
        name: "timeout",
        short: "sk",
        long: &["signal", "kill-after"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "stdbuf",
        short: "ioe",
        long: &["input", "output", "error"],
        ..PLAIN
    },
    Wrapper {
        name: "ionice",
        short: "cnp",
        long: &["class", "classdata", "pid"],
        ..PLAIN
    },
    Wrapper {
        name: "taskset",
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "chrt",
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "setsid",
        ..PLAIN
    },
    Wrapper {
        name: "busybox",
        ..PLAIN
    },
];

/// Shells whose `-c` script, script on standard input, or here-document is parsed.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "rbash",
];

/// `xargs` options that take a value.
const XARGS_SHORT: &str = "IdEaLnPs";
const XARGS_LONG: &[&str] = &[
    "delimiter",
    "arg-file",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

impl Command {
    /// For a shell (`sh`, `bash`, `zsh`, `dash`, `ksh`, `fish`, …), where it reads the script
    /// it runs; `None` for other programs.
    ///
    /// ```
    /// use hooks_builtin::shell::{parse, ShellScript};
    ///
    /// let script = parse("curl -fsSL https://x.invalid/i.sh | bash -s -- --yes")?;
    /// let bash = &script.pipelines[0].commands[1];
    /// assert_eq!(bash.shell_script(), Some(ShellScript::Stdin));
    /// # Ok::<(), hooks_builtin::shell::ShellError>(())
    /// ```
    pub fn shell_script(&self) -> Option<ShellScript<'_>> {
        if !SHELLS.contains(&self.program.as_str()) {
            return None;
        }
        let (mut inline, mut stdin) = (false, false);
        let mut args = self.args.iter().map(String::as_str);
        let operand = loop {
            match args.next() {
                None => break None,
                Some("--") => break args.next(),
                Some("-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") => {
                    args.next();
                }
                Some(a) if a.starts_with("--") || (a.starts_with('+') && a.len() > 1) => {}
                Some(a) if a.starts_with('-') && a.len() > 1 => {
                    inline |= a.contains('c');
                    stdin |= a.contains('s');
                }
                Some(a) => break Some(a),
            }
        };
        Some(match operand {
            Some(script) if inline => ShellScript::Inline(script),
            None if inline => ShellScript::Inline(""),
            Some(_) if stdin => ShellScript::Stdin,
            Some(file) => ShellScript::File(file),
            None => ShellScript::Stdin,
        })
    }
}

/// The program a command word names: its file name, or for a substitution that looks a
/// program up (`$(which rm)`, `` `command -v rm` ``), that program.
fn program_name(word: &str) -> &str {
    let inner = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')));
    if let Some(inner) = inner {
        let mut tokens = inner.split_whitespace();
        let lookup = matches!(
            tokens.next(),
            Some("which" | "command" | "type" | "whence" | "realpath" | "readlink")
        );
        return match tokens.rfind(|t| !t.starts_with('-')) {
            Some(name) if lookup => basename(name),
            _ => word,
        };
    }
    basename(word)
}

/// `rm` for `/bin/rm`; a word whose last part is a substitution (`$(curl …/x)`) is kept whole.
fn basename(word: &str) -> &str {
    // A word that splits on `$IFS` (`cat${IFS}/etc/passwd`) is not a path: kept whole.
    if word.contains("$IFS") || word.contains("${IFS") {
        return word;
    }
    let last = word
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if last.is_empty() || last.contains(['(', ')', '`']) {
        word
    } else {
        last
    }
}

/// How many of `args` are options, given the short and long options that take a value; a
/// `--` is counted and ends them.
fn options(args: &[String], short: &str, long: &[&str]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return i + 1;
        }
        i += if let Some(name) = arg.strip_prefix("--") {
            if long.contains(&name) { 2 } else { 1 }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            // `-u root`, `-Eu root`: a value option takes the next word when it ends its
            // cluster, else the rest of the cluster (`-uroot`).
            match cluster.char_indices().find(|(_, c)| short.contains(*c)) {
                Some((at, c)) if at + c.len_utf8() == cluster.len() => 2,
                _ => 1,
            }
        } else {
            break;
        };
    }
    i.min(args.len())
}

/// The value of `env -S`/`--split-string` among env's options: its index, how many words it
/// spans, and the value.
fn env_split(args: &[String]) -> Option<(usize, usize, String)> {
    let options = options(args, "uCS", &["unset", "chdir", "split-string"]);
    args[..options].iter().enumerate().find_map(|(i, arg)| {
        let value = |inline: &str| match inline {
            "" => args.get(i + 1).map(|v| (i, 2, v.clone())),
            v => Some((i, 1, v.to_owned())),
        };
        if arg == "--split-string" {
            value("")
        } else if let Some(v) = arg.strip_prefix("--split-string=") {
            Some((i, 1, v.to_owned()))
        } else if arg.starts_with('-') && !arg.starts_with("--") {
            arg.split_once('S').and_then(|(_, v)| value(v))
        } else {
            None
        }
    })
}

/// Strips the wrappers in front of the command: `(words from the program on, privileged)`.
fn strip(mut words: Vec<String>, mut privileged: bool) -> (Vec<String>, bool) {
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let name = basename(word);
        let Some(w) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        let args = &words[i + 1..];
        if w.name == "command"
            && args
                .first()
                .is_some_and(|a| a.starts_with('-') && a.contains(['v', 'V']))
        {
            break; // `command -v rm` looks `rm` up, it does not run it
        }
        if w.name == "env"
            && let Some((at, len, value)) = env_split(args)
        {
            let at = i + 1 + at;
            words.splice(at..at + len, value.split_whitespace().map(str::to_owned));
            continue;
        }
        let mut skip = 1 + options(args, w.short, w.long);
        if w.assignments {
            skip += words[i + skip.min(words.len())..]
                .iter()
                .take_while(|a| is_assignment(a))
                .count();
        }
        skip += w.operands;
        if i + skip >= words.len() {
            break; // nothing to run: the wrapper is the command (`sudo -i`)
        }
        privileged |= w.privileged;
        i += skip;
    }
    words.drain(..i);
    (words, privileged)
}

/// The script of `su [-] [user] -c 'script'`.
fn su_script(args: &[String]) -> Option<&str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if let Some(script) = arg.strip_prefix("--command=") {
            return Some(script);
        }
        let short_c = arg.starts_with('-') && !arg.starts_with("--") && arg.ends_with('c');
        if short_c || arg == "--command" {
            return args.next().map(String::as_str);
        }
    }
    None
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions.
fn find_actions(args: &[String]) -> Vec<Vec<String>> {
    let mut actions = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command = args.by_ref().take_while(|a| *a != ";" && *a != "+");
            actions.push(command.cloned().collect());
        }
    }
    actions
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
        "printf" => match command.args.split_first() {
            Some((format, values)) if format.contains('%') => values.join("\n"),
            Some((format, _)) => format.clone(),
            None => return None,
        },
        "cat" if command.args.is_empty() => return stdin_script(slot, command)?,
        _ => return None,
    };
    Some(Source::Text(text.replace("\\n", "\n")))
}

/// What a command reads on standard input when a redirection says so: `Some(None)` for a
/// file, `None` when nothing redirects it.
fn stdin_script((pi, ci): (usize, usize), command: &Command) -> Option<Option<Source>> {
    let (ri, r) = command.redirects.iter().enumerate().rev().find(|(_, r)| {
        r.fd.is_none_or(|fd| fd == 0)
            && matches!(
                r.op,
                RedirectOp::In
                    | RedirectOp::ReadWrite
                    | RedirectOp::DupIn
                    | RedirectOp::HereDoc
                    | RedirectOp::HereString
            )
    })?;
    Some(match r.op {
        RedirectOp::HereString => Some(Source::Text(r.target.clone())),
        RedirectOp::HereDoc => Some(Source::HereDoc((pi, ci, ri))),
        _ => None,
    })
}

impl Parser<'_, '_> {
    /// The command `words` run, after stripping wrappers; the scripts and commands it runs in
    /// turn (`bash -c`, `eval`, `su -c`, `xargs`, `find -exec`) are queued or added.
    pub(super) fn resolve(
        &mut self,
        words: Vec<String>,
        redirects: Vec<Redirect>,
        privileged: bool,
    ) -> Result<Command> {
        let (mut words, privileged) = strip(words, privileged);
        let program = words.first().map(|w| program_name(w).to_owned());
        let args = words.split_off(words.len().min(1));
        let command = Command {
            privileged: privileged || program.as_deref() == Some("su"),
            program: program.unwrap_or_default(),
            args,
            redirects,
            ..self.blank_command()
        };
        let args = &command.args;
        match command.program.as_str() {
            "eval" => self.queue(Source::Text(args.join(" ")), privileged)?,
            "su" => {
                if let Some(script) = su_script(args) {
                    self.queue(Source::Text(script.to_owned()), true)?;
                }
            }
            "watch" => {
                let command = &args[options(args, "n", &["interval"])..];
                self.queue(Source::Text(command.join(" ")), privileged)?;
            }
            "xargs" => {
                let nested = &args[options(args, XARGS_SHORT, XARGS_LONG)..];
                if !nested.is_empty() {
                    self.nested_command(nested.to_vec(), privileged)?;
                }
            }
            "find" => {
                for action in find_actions(args) {
                    self.nested_command(action, privileged)?;
                }
            }
            _ => {}
        }
        if let Some(ShellScript::Inline(script)) = command.shell_script() {
            self.queue(Source::Text(script.to_owned()), command.privileged)?;
        }
        Ok(command)
    }

    /// Follows `cd DIR`: relative directories add up, `cd` alone goes home.
    pub(super) fn change_dir(&mut self, args: &[String]) {
        let target = args.iter().find(|a| !a.starts_with('-') || *a == "-");
        let target = match target.map(String::as_str) {
            None => "~",
            Some("-") => "$OLDPWD",
            Some(t) => t,
        };
        self.dir = Some(match self.dir.take() {
            Some(dir) if !target.starts_with(['/', '~', '$']) => format!("{dir}/{target}"),
            _ => target.to_owned(),
        });
    }

    /// Adds a command that another one runs (`xargs rm`), as a pipeline of its own.
    fn nested_command(&mut self, words: Vec<String>, privileged: bool) -> Result<()> {
        if words.is_empty() {
            return Ok(());
        }
        self.nested(|p| {
            let command = p.resolve(words, Vec::new(), privileged)?;
            p.new_pipeline(command).map(drop)
        })
    }

    /// Queues the scripts that shells in pipeline `pi` read on standard input: a here-document
    /// or here-string (`bash <<EOF`), or what the previous stage prints (`echo … | sh`).
    pub(super) fn stdin_scripts(&mut self, pi: usize) -> Result<()> {
        let Some(pipeline) = self.sink.script.pipelines.get(pi) else {
            return Ok(());
        };
        let mut scripts = Vec::new();
        for (ci, command) in pipeline.commands.iter().enumerate() {
            if command.shell_script() != Some(ShellScript::Stdin) {
                continue;
            }
            let source = match stdin_script((pi, ci), command) {
                Some(source) => source,
                None => ci
                    .checked_sub(1)
                    .and_then(|prev| output_script((pi, prev), pipeline.commands.get(prev)?)),
            };
            scripts.extend(source.map(|s| (s, command.privileged)));
        }
        for (source, privileged) in scripts {
            self.queue(source, privileged)?;
        }
        Ok(())
    }
}
