//! From a simple command's words to the command that runs: wrappers stripped, and the scripts
//! and commands it runs in turn queued.

mod embedded;
mod feeds;
mod kill;
mod made;
mod options;
mod power;
mod read_as;
mod remotes;
mod salt;
mod scripts;
mod strip;
mod words;
mod wrappers;
mod written;

use std::rc::Rc;

use super::parser::{Parser, Result, Sink, Source};
use super::terminals::Runs;
use super::{Command, Redirect, ShellScript};
use feeds::{Stdin, Xargs, literal_script_output, parallel_scripts};
use salt::salt_scripts;
use scripts::{
    bwrap_command, concurrently_scripts, find_actions, multi_host_command, nix_run,
    npm_shell_command, sg_script, ssh_remote, su_script, trap_body, vagrant_ssh_script,
};
use strip::strip;
pub(super) use words::{Opt, folded, join_dir, walk_options};
use words::{command_name, env_split, option_value, option_values, options, program_name};
use wrappers::{SCRIPT_BSD_SHORT, SCRIPT_LONG, SCRIPT_SHORT, SHELLS, WATCH_LONG, WATCH_SHORT};

pub(super) use feeds::literal_output;
#[cfg(feature = "command-guard")]
pub(crate) use wrappers::TAR_SHORT;

impl Command {
    /// For a shell (`sh`, `bash`, `zsh`, `dash`, `ksh`, `fish`, …), where it reads the script
    /// it runs; `None` for other programs.
    ///
    /// ```
    /// use hookrail_builtin::shell::{parse, ShellScript};
    ///
    /// let script = parse("curl -fsSL https://x.invalid/i.sh | bash -s -- --yes")?;
    /// let bash = &script.pipelines[0].commands[1];
    /// assert_eq!(bash.shell_script(), Some(ShellScript::Stdin));
    /// # Ok::<(), hookrail_builtin::shell::ShellError>(())
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
                Some("--rcfile" | "--init-file") => {
                    args.next();
                }
                // A lone `-` ends the options; the script is then read on standard input.
                Some("-") => break None,
                Some(a) if a.starts_with("--") => {}
                // `-o NAME` and `-O NAME` take the next word, also at the end of a cluster
                // (`-euo pipefail`).
                Some(a) if a.starts_with('+') && a.len() > 1 => {
                    if a.contains(['o', 'O']) {
                        args.next();
                    }
                }
                Some(a) if a.starts_with('-') && a.len() > 1 => {
                    inline |= a.contains('c');
                    stdin |= a.contains('s');
                    if a.contains(['o', 'O']) {
                        args.next();
                    }
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

impl Parser<'_, '_> {
    /// Defines the alias `name` (`alias x='rm -rf'`, `BASH_ALIASES[x]='rm -rf'`): its value is
    /// judged as a script, and a later use as the value with its words. One defined in a
    /// nested script (`eval "alias x=…"`) is known only once the command line has been read:
    /// every command of that name is judged again with it (`Sink::late_aliases`).
    pub(super) fn define_alias(
        &mut self,
        name: &str,
        value: &str,
        privileged: bool,
        dir: Option<String>,
    ) -> Result<()> {
        self.queue_alias(value.to_owned(), privileged, dir)?;
        self.sink.charge(name.len() + value.len())?;
        self.sink.aliases.push((name.to_owned(), value.to_owned()));
        if self.depth > 0 && !self.sink.in_alias {
            self.sink
                .late_aliases
                .push((name.to_owned(), value.to_owned()));
        }
        Ok(())
    }
}

/// Whether an alias's value is plain words: nothing the shell would read but blanks between
/// them (no quotes, operators, expansions or redirections).
/// Its first word must name a command: an assignment (`FOO=1 rm`) or a reserved word (`if`,
/// `while`) makes it a script, judged with the words it is used with instead.
fn is_plain(value: &str) -> bool {
    const RESERVED: &[&str] = &[
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
        "do", "done", "in", "function", "time", "coproc",
    ];
    let first = value.split_whitespace().next().unwrap_or_default();
    !first.is_empty()
        && !first.contains('=')
        && !RESERVED.contains(&first)
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " \t_-./=,:+@%".contains(c))
}

/// An assignment to `env` or `sudo`: any word with a `=` after its first character, a name
/// the shell would not take included (`BASH_FUNC_ls%%=…`), as both programs read it.
fn is_env_assignment(word: &str) -> bool {
    word.find('=').is_some_and(|at| at > 0)
}

impl Parser<'_, '_> {
    /// The command `words` run, after stripping wrappers; the scripts and commands it runs in
    /// turn (`bash -c`, `eval`, `su -c`, `trap`, `xargs`, `find -exec`, `ssh`, …) are queued or
    /// added.
    pub(super) fn resolve(
        &mut self,
        words: Vec<String>,
        redirects: Vec<Redirect>,
        privileged: bool,
    ) -> Result<Command> {
        // A name `hash -p` bound runs that program (the shell's own lookup: not after a
        // wrapper, which looks the name up itself).
        let mut words = words;
        if let Some(first) = words.first_mut()
            && let Some((_, path)) = self
                .sink
                .hashed
                .iter()
                .rev()
                .find(|(name, _)| name == first)
        {
            *first = path.clone();
        }
        // An alias whose value is plain words (`alias x='bash'`, `alias y='x -s'`) is put in
        // place, where the command stands in its pipeline (`echo 'rm -rf ~' | x` runs
        // `bash`), following a chain of aliases once each, as bash does. Other values are
        // judged with the words they are used with (below).
        // A value that ends in a blank makes the word after it expand too (`alias s='sudo '`,
        // `alias r='rm '; alias f='-rf ~'; r f`).
        let mut expanded: Vec<String> = Vec::new();
        let mut at = 0;
        while !self.sink.in_alias
            && let Some(word) = words.get(at)
            && !expanded.contains(word)
            && let Some((name, value)) = (self.sink.aliases.iter().rev())
                .find(|(name, value)| name == word && is_plain(value))
                .cloned()
        {
            self.sink.charge(value.len())?;
            expanded.push(name);
            let value_words: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
            let next = at + value_words.len();
            words.splice(at..=at, value_words);
            if value.ends_with([' ', '\t']) {
                at = next;
            }
        }
        // After a value that ends in a blank, an alias that is more than plain words
        // (`alias f='-rf ~'`) is judged in a line of its own, the value put in as text.
        if at > 0
            && !self.sink.in_alias
            && let Some(word) = words.get(at)
            && let Some((_, value)) = (self.sink.aliases.iter().rev())
                .find(|(name, value)| name == word && !is_plain(value))
        {
            let quoted = |w: &String| crate::shell::quote(w).into_owned();
            let mut line: Vec<String> = words[..at].iter().map(quoted).collect();
            line.push(value.clone());
            line.extend(words[at + 1..].iter().map(quoted));
            let line = line.join(" ");
            self.queue_alias(line, privileged, self.dir.clone())?;
        }
        let stripped = strip(words, privileged, self.sink)?;
        // A stripped wrapper's own options that run a command line (`mosh --ssh=CMD host --
        // cmd`), run where the wrapper runs.
        for script in &stripped.scripts {
            self.queue(Source::Text(script.clone()), privileged)?;
        }
        let (mut words, privileged) = (stripped.words, stripped.privileged);
        let dir = match stripped.dir {
            Some(target) => Some(join_dir(self.dir.clone(), &target)),
            None => self.dir.clone(),
        };
        // `autossh` is ssh, `/etc/init.d/ssh stop` is `service ssh stop` (read_as.rs); what
        // one reading gives may be read again (`start cmd /c …`), a few times at most.
        for _ in 0..4 {
            let Some(read) = read_as::read_as(&words, dir.as_deref()) else {
                break;
            };
            self.sink.charge(read.len())?;
            words = read;
        }
        let program = words.first().map(|w| program_name(w).into_owned());
        let by_path = words.first().is_some_and(|w| w.contains('/'));
        let args = words.split_off(words.len().min(1));
        let program = program.unwrap_or_default();
        let command = Command {
            privileged: privileged || matches!(program.as_str(), "su" | "runuser"),
            program,
            by_path,
            args,
            redirects,
            dir,
            assignments: stripped.assignments,
        };
        let (args, dir) = (&command.args, &command.dir);
        // A program the line made under this name (`cp /bin/rm x; ./x -rf /`) runs what it
        // was made from: judged as that too, since the name may still find another program
        // (on the PATH, or when the copy failed). Not again inside such a reading, so that a
        // loop of copies (`cp a b; cp b a`) ends.
        if !self.sink.in_made && !self.sink.made.is_empty() {
            // A subcommand git, cargo, kubectl or gh finds as a program of its own (`cargo
            // x` runs `cargo-x`, `git x` runs `git-x`), with the words after it.
            let plugin = (matches!(command.program.as_str(), "git" | "cargo" | "kubectl" | "gh"))
                .then(|| args.first().filter(|a| !a.starts_with('-')))
                .flatten()
                .map(|sub| (format!("{}-{sub}", command.program), &args[1..]));
            let readings = std::iter::once((command.program.clone(), &args[..])).chain(plugin);
            let mut runs: Vec<(String, Vec<String>)> = Vec::new();
            for (name, rest) in readings {
                for source in made::made_from(&self.sink.made, &name) {
                    if program_name(&source) != name {
                        runs.push((source, rest.to_vec()));
                    }
                }
            }
            for (source, rest) in runs {
                let words: Vec<String> = std::iter::once(source).chain(rest).collect();
                self.sink.in_made = true;
                let judged = self.nested_command(words, privileged, dir);
                self.sink.in_made = false;
                judged?;
            }
        }
        self.sink.made.extend(made::programs_made(&command));
        self.written_files(&command, words.first().map(String::as_str), privileged, dir)?;
        // A call of a function the script defines runs its body with the call's arguments
        // as `$1`, `$@`, …: judged so (the body was judged once where it was defined, with
        // the parameters it had there).
        if !command.by_path
            && !args.is_empty()
            && self.sink.function_calls < super::parser::MAX_FUNCTION_CALLS
            && let Some((_, body, _)) =
                (self.sink.bodies.iter().rev()).find(|(name, _, _)| *name == command.program)
        {
            self.sink.function_calls += 1;
            let body = body.clone();
            let positional: Option<Rc<[String]>> = (!changes_positional(&body)).then(|| {
                std::iter::once(command.program.clone())
                    .chain(args.iter().cloned())
                    .collect()
            });
            self.sink.charge(args.iter().map(String::len).sum())?;
            self.queue_script(
                Source::Text(body),
                privileged,
                dir.clone(),
                false,
                positional,
            )?;
        }
        let text = |s: &str| Source::Text(s.to_owned());
        // An alias defined before (`alias x='rm -rf'; x ~`) runs its value with the words it
        // is used with. bash expands one only on a later line, with `expand_aliases` when not
        // interactive; judging every use after the definition is only stricter.
        let alias = (self.sink.aliases.iter().rev())
            .find(|(name, _)| {
                expanded.is_empty() && !self.sink.in_alias && *name == command.program
            })
            .map(|(_, value)| value.clone());
        if let Some(value) = alias {
            let mut args = args.iter();
            let mut line = value;
            // A value that ends in a blank makes the next word an alias too, put in as its
            // value (`alias x='rm -rf '; alias h='~'; x h`).
            if line.ends_with([' ', '\t'])
                && let Some(next) = args.clone().next()
                && let Some((_, next_value)) =
                    (self.sink.aliases.iter().rev()).find(|(name, _)| name == next)
            {
                line.push_str(next_value);
                args.next();
            }
            for arg in args {
                line.push(' ');
                line.push_str(&crate::shell::quote(arg));
            }
            self.queue_alias(line, privileged, dir.clone())?;
        }
        // Options and settings the program runs as a command line (`git rebase -x CMD`,
        // `tar --to-command=CMD`, `ssh -o ProxyCommand=CMD`), run where the command runs.
        for script in options::option_commands(&command.program, args) {
            self.queue_task(text(&script), privileged, dir.clone(), false)?;
        }
        match command.program.as_str() {
            "eval" => {
                self.queue_task(text(&args.join(" ")), privileged, dir.clone(), false)?;
                // The script is parsed on its own: a `cd` in it (`eval cd ..`) moves this
                // shell to where the guard cannot follow.
                let moves = (args
                    .iter()
                    .flat_map(|a| a.split(|c: char| c.is_whitespace() || ";&|(){}`".contains(c))))
                .any(|w| matches!(w, "cd" | "pushd" | "popd"));
                if moves {
                    self.dir = Some("$PWD_AFTER_EVAL".to_owned());
                }
            }
            "su" | "runuser" => {
                if let Some(script) = su_script(args) {
                    self.queue_task(text(script), true, dir.clone(), false)?;
                }
            }
            "sg" => {
                if let Some(script) = sg_script(args) {
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            "trap" => {
                if let Some(body) = trap_body(args) {
                    self.queue_task(text(body), privileged, dir.clone(), false)?;
                }
            }
            "alias" => {
                for (name, value) in args.iter().filter_map(|a| a.split_once('=')) {
                    self.define_alias(name, value, privileged, dir.clone())?;
                }
            }
            // PowerShell's `-Command` (`-c`, `-Com`, any case): the rest of the words are its
            // code, each line of which is a command line in PowerShell's dialect
            // (`windows::powershell_line`); one that does not parse adds nothing.
            "pwsh" | "powershell" => {
                let at = args.iter().position(|a| {
                    let name = a.trim_start_matches(['-', '/']).to_ascii_lowercase();
                    a.starts_with(['-', '/']) && !name.is_empty() && "command".starts_with(&name)
                });
                if let Some(at) = at {
                    let code = args[at + 1..].join(" ");
                    for line in code.lines() {
                        let line = super::windows::powershell_line(line);
                        self.queue_task(Source::Text(line), privileged, dir.clone(), true)?;
                    }
                }
            }
            // `hyperfine 'cmd1' 'cmd2'`: each operand is a command line it runs (as are the
            // values of `--setup`, `--prepare` and `--cleanup`); every word that is no option
            // is judged as one.
            "hyperfine" => {
                // `-L NAME a,b` runs each command once per value put in for `{NAME}`.
                let mut lists: Vec<(&str, Vec<&str>)> = Vec::new();
                for (i, arg) in args.iter().enumerate() {
                    if matches!(arg.as_str(), "-L" | "--parameter-list")
                        && let (Some(name), Some(values)) = (args.get(i + 1), args.get(i + 2))
                    {
                        lists.push((name, values.split(',').collect()));
                    }
                }
                for script in args.iter().filter(|a| !a.starts_with('-')) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                    for (name, values) in &lists {
                        let slot = format!("{{{name}}}");
                        if script.contains(&slot) {
                            for value in values {
                                let run = script.replace(&slot, value);
                                self.queue_task(text(&run), privileged, dir.clone(), false)?;
                            }
                        }
                    }
                }
            }
            "watch" => {
                let mut exec = false;
                let n = walk_options(args, WATCH_SHORT, WATCH_LONG, false, |opt, _| {
                    exec |= matches!(opt, Opt::Short('x') | Opt::Long("exec"));
                });
                if exec {
                    self.nested_command(args[n..].to_vec(), privileged, dir)?;
                } else if n < args.len() {
                    let script = args[n..].join(" ");
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            "xterm" | "uxterm" | "rxvt" | "urxvt" | "alacritty" | "konsole" | "st" | "tmux"
            | "screen" => match super::terminals::runs(&command.program, args) {
                Some(Runs::Words(words)) => self.nested_command(words, privileged, dir)?,
                Some(Runs::Scripts(scripts)) => {
                    for script in scripts {
                        self.queue_task(Source::Text(script), privileged, dir.clone(), false)?;
                    }
                }
                None => {}
            },
            // `npx -c 'cmd'`, `npm exec -c 'cmd'` (`npm x`), `pnpm exec -c 'cmd'` and `pnpm
            // dlx -c 'cmd'` run a shell command.
            "npx" | "pnpx" | "npm" | "pnpm" => {
                if let Some(script) = npm_shell_command(&command.program, args) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
                // A package script set here runs on `npm run` or an install hook (`npm pkg
                // set scripts.x='cmd'`, `npm set-script x 'cmd'`): judged as it is set.
                let scripts: Vec<&str> = match args.first().map(String::as_str) {
                    Some("pkg") if args.get(1).is_some_and(|a| a == "set") => (args[2..].iter())
                        .filter_map(|a| a.strip_prefix("scripts.")?.split_once('='))
                        .map(|(_, script)| script)
                        .collect(),
                    Some("set-script") => args.get(2).map(String::as_str).into_iter().collect(),
                    _ => Vec::new(),
                };
                for script in scripts {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            // `mapfile -C cmd` runs cmd (with words added) every `-c` lines.
            "mapfile" | "readarray" => {
                let mut callback = None;
                walk_options(args, "dnOsuCc", &[], false, |opt, value| {
                    if opt == Opt::Short('C') {
                        callback = value;
                    }
                });
                if let Some(callback) = callback {
                    self.queue_task(text(callback), privileged, dir.clone(), false)?;
                }
            }
            "xargs" => {
                let xargs = Xargs::read(args);
                self.nested_command(xargs.command.to_vec(), privileged, dir)?;
                // `xargs -a <(echo /) rm -rf`: the items are what a literal substitution prints;
                // from any other file (`-a list.txt`, `-a <(ls ~)`), they are computed when it
                // runs, as `$(cat list.txt)` is.
                if let Some(file) = xargs.arg_file {
                    let substitution = file.strip_prefix("<(").and_then(|f| f.strip_suffix(')'));
                    match substitution.and_then(literal_script_output) {
                        Some(input) => {
                            let runs = xargs
                                .runs(&input, self.sink.fuel())
                                .ok_or(super::ShellError::TooComplex)?;
                            for run in runs {
                                self.nested_command(run, privileged, dir)?;
                            }
                        }
                        None => {
                            let source = match substitution {
                                Some(command) => format!("$({command})"),
                                None => format!("$(cat {})", super::quote(file)),
                            };
                            let run = xargs.unknown_run(&source);
                            if !run.is_empty() {
                                self.nested_command(run, privileged, dir)?;
                            }
                        }
                    }
                }
            }
            "parallel" => {
                let scripts = parallel_scripts(args, Stdin::Unknown, self.sink.fuel())
                    .ok_or(super::ShellError::TooComplex)?;
                for script in scripts {
                    self.queue_task(Source::Text(script), privileged, dir.clone(), false)?;
                }
            }
            "find" => {
                for action in find_actions(args) {
                    self.nested_command(action, privileged, dir)?;
                }
            }
            // `fd PATTERN ROOT -x CMD` runs CMD on what it finds, as find's `-exec` does: judged
            // as that find (`fd . / -X rm -rf` is `find / -exec rm -rf {} +`).
            "fd" | "fdfind" => {
                if let Some(find) = scripts::fd_as_find(args) {
                    self.nested_command(find, privileged, dir)?;
                }
            }
            // Commands run on many hosts at once (`pdsh -w h[1-5] cmd`, `pssh -h hosts cmd`,
            // `clush -a cmd`), judged there as `ssh host cmd`'s are.
            "pdsh" | "pssh" | "parallel-ssh" | "clush" | "prsh" => {
                let script = multi_host_command(&command.program, args);
                if !script.is_empty() {
                    self.queue_script(text(&script), false, Some("~".into()), false, None)?;
                }
            }
            // `kill $(pgrep sshd)` kills what `pkill sshd` kills: judged as that too, also
            // through a variable the line sets (`p=$(pgrep sshd); kill $p`, `for p in
            // $(pgrep sshd)`), each value it is given read (kill.rs).
            "kill" => {
                let mut read = args.clone();
                for arg in args {
                    let name = (arg.strip_prefix("${").and_then(|a| a.strip_suffix('}')))
                        .or_else(|| arg.strip_prefix('$'));
                    let Some(name) = name else { continue };
                    let values = (self.sink.script.variables.iter())
                        .filter(|v| v.name == name)
                        .map(|v| v.value.clone());
                    read.extend(values);
                }
                self.sink.charge(read.len())?;
                for script in kill::kill_lookups(&read) {
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            // A pattern that could match the SSH server's name (`pkill 'ss.d'`), and a glob
            // unit that could name its service (`systemctl stop 'ss?'`), judged as the
            // names they could match (kill.rs).
            "pkill" | "killall" | "systemctl" | "service" => {
                let lines = (kill::pattern_kills(&command.program, args).into_iter())
                    .chain(kill::service_globs(&command.program, args));
                for script in lines {
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            // rtcwake's modes and D-Bus calls to the login and service managers, judged as
            // the systemctl command that does the same (power.rs).
            "rtcwake" | "dbus-send" | "busctl" | "gdbus" | "qdbus" | "qdbus6" | "qdbus-qt5"
            | "qdbus-qt6" | "ipmitool" | "ipmi-chassis" => {
                for script in power::stand_ins(&command.program, args) {
                    self.queue_task(text(&script), privileged, dir.clone(), false)?;
                }
            }
            "ssh" => {
                if let Some(remote) = ssh_remote(args).filter(|r| !r.is_empty()) {
                    let script = remote.join(" ");
                    self.queue_script(text(&script), false, Some("~".into()), false, None)?;
                }
            }
            // Other ways to run a command on another machine, judged there as `ssh host cmd`
            // is: `ansible HOSTS -a CMD` (the `command`,
            // `shell` and `raw` modules take a command line), `vagrant ssh -c CMD`, `salt
            // TARGET cmd.run CMD`.
            "salt" | "salt-ssh" => {
                for run in salt_scripts(&command.program, args) {
                    let dir = Some(run.dir.unwrap_or_else(|| "~".into()));
                    self.queue_script(text(&run.script), false, dir, false, None)?;
                }
            }
            // Cloud and machine tools (remotes.rs): `gcloud compute ssh VM -- CMD`, `fly ssh
            // console -C CMD`, `minikube ssh CMD`.
            program if remotes::is_remote_tool(program) => {
                for script in remotes::remote_scripts(program, args) {
                    self.queue_script(text(&script), false, Some("~".into()), false, None)?;
                }
            }
            "ansible" | "vagrant" => {
                let scripts: Vec<String> = match command.program.as_str() {
                    "vagrant" => vagrant_ssh_script(args).into_iter().collect(),
                    _ => remotes::ansible_scripts(args),
                };
                for script in scripts {
                    self.queue_script(text(&script), false, Some("~".into()), false, None)?;
                }
            }
            // `sops exec-env FILE CMD` (`exec-file`): a script run with the decrypted values.
            "sops" if args.iter().any(|a| a == "exec-env" || a == "exec-file") => {
                let at = args
                    .iter()
                    .position(|a| a == "exec-env" || a == "exec-file");
                let mut operands = Vec::new();
                let mut words = args[at.map_or(0, |at| at + 1)..].iter();
                while let Some(word) = words.next() {
                    match word.as_str() {
                        "--user" | "--filename" | "--input-type" | "--output-type" => {
                            words.next();
                        }
                        w if w.starts_with('-') => {}
                        w => operands.push(w),
                    }
                }
                if let Some(script) = operands.get(1) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            // `nix run INSTALLABLE -- ARGS` runs the installable's program with the words
            // after `--`: the program is its attribute's last name (`bash` of
            // `nixpkgs#bash`, `black` of `nixpkgs#python3Packages.black`).
            "nix" => {
                if let Some(words) = nix_run(args) {
                    self.nested_command(words, privileged, dir)?;
                }
            }
            // `salt-call cmd.run CMD` runs it on this machine (`file.remove PATH` deletes here),
            // and so does `salt-run salt.cmd cmd.run CMD` (on the master).
            "salt-call" | "salt-run" => {
                for run in salt_scripts(&command.program, args) {
                    let dir = match run.dir {
                        Some(target) => Some(join_dir(dir.clone(), &target)),
                        None => dir.clone(),
                    };
                    self.queue_task(text(&run.script), privileged, dir, false)?;
                }
            }
            "script" => {
                let mut script = None;
                walk_options(args, SCRIPT_SHORT, SCRIPT_LONG, false, |opt, value| {
                    if matches!(opt, Opt::Short('c') | Opt::Long("command")) {
                        script = value;
                    }
                });
                // util-linux reads options after the file too (`script -q /dev/null -c CMD`).
                if let Some(script) = script.or_else(|| option_value(args, &["-c", "--command"])) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
                // BSD and macOS: `script [options] FILE COMMAND…`.
                let operands = &args[options(args, SCRIPT_BSD_SHORT, &[])..];
                if let Some(nested) = operands.get(1..).filter(|n| !n.is_empty()) {
                    self.nested_command(nested.to_vec(), privileged, dir)?;
                }
            }
            // `capsh [options] -- ARGS` runs `/bin/bash ARGS` (`capsh -- -c 'cmd'`).
            "capsh" => {
                if let Some(at) = args.iter().position(|a| a == "--") {
                    let bash = std::iter::once("bash".to_owned()).chain(args[at + 1..].to_vec());
                    self.nested_command(bash.collect(), privileged, dir)?;
                }
            }
            // `bwrap --bind / / cmd`: a sandbox whose options take one or two values, then
            // the command.
            "bwrap" => {
                if let Some(words) = bwrap_command(args) {
                    self.nested_command(words.to_vec(), privileged, dir)?;
                }
            }
            // `concurrently 'cmd1' 'cmd2'` runs each operand as a shell command line;
            // `cross-env-shell X=1 'cmd'` its words after the variables as one.
            "concurrently" => {
                for script in concurrently_scripts(args) {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            "cross-env-shell" => {
                let script: Vec<&str> = (args.iter())
                    .skip_while(|a| is_env_assignment(a))
                    .map(String::as_str)
                    .collect();
                if !script.is_empty() {
                    self.queue_task(text(&script.join(" ")), privileged, dir.clone(), false)?;
                }
            }
            "flock" => {
                let file = options(args, "wE", &["timeout", "wait", "conflict-exit-code"]);
                let script = match args.get(file + 1).map(String::as_str) {
                    Some("-c" | "--command") => args.get(file + 2).map(String::as_str),
                    Some(a) => a
                        .strip_prefix("--command=")
                        .or_else(|| a.strip_prefix("-c").filter(|s| !s.is_empty())),
                    None => None,
                };
                if let Some(script) = script {
                    self.queue_task(text(script), privileged, dir.clone(), false)?;
                }
            }
            _ => {}
        }
        if let Some(ShellScript::Inline(script)) = command.shell_script() {
            // `sh -c 'script' name arg…`: `$0` is `name`, `$1` is the first `arg`.
            let at = args.iter().position(|a| std::ptr::eq(a.as_str(), script));
            let operands = at.map_or(&[][..], |at| &args[at + 1..]);
            self.sink.charge(operands.iter().map(String::len).sum())?;
            let positional: Rc<[String]> = match operands {
                [] => Rc::from([command.program.clone()]),
                operands => operands.into(),
            };
            // A script that can change its parameters (`shift`, `set -- …`, a function's
            // own) leaves `$1` unknown: which value a word sees depends on the order it runs.
            let positional = (!changes_positional(script)).then_some(positional);
            let source = text(script);
            let privileged = command.privileged;
            self.queue_script(source, privileged, dir.clone(), false, positional)?;
        }
        Ok(command)
    }

    /// Follows `cd DIR`: relative directories add up, `cd` alone goes home.
    pub(super) fn change_dir(&mut self, args: &[String], cdpath: bool) {
        let target = args.iter().find(|a| !a.starts_with('-') || *a == "-");
        let target = match target.map(String::as_str) {
            None => "~",
            Some("-") => "$OLDPWD",
            // With `CDPATH` set, `cd usr` may go to `/usr`: where is not known.
            Some(t) if cdpath && !t.starts_with(['/', '~', '.', '$']) => {
                self.dir = Some(join_dir(self.dir.take(), &format!("$CDPATH/{t}")));
                return;
            }
            Some(t) => t,
        };
        self.dir = Some(join_dir(self.dir.take(), target));
    }

    /// Adds a command that another one runs (`xargs rm`), running in `dir`, as a pipeline of
    /// its own.
    fn nested_command(
        &mut self,
        words: Vec<String>,
        privileged: bool,
        dir: &Option<String>,
    ) -> Result<()> {
        if words.is_empty() {
            return Ok(());
        }
        self.sink.charge(words.iter().map(|w| w.len() + 1).sum())?;
        let outer = std::mem::replace(&mut self.dir, dir.clone());
        let result = self.nested(|p| {
            let command = p.resolve(words, Vec::new(), privileged)?;
            p.new_pipeline(command).map(drop)
        });
        self.dir = outer;
        result
    }
}

/// Whether `script` may change its positional parameters, read loosely from its text: a
/// `shift`, a `set` with operands (`set -- /`, `set a b`; not `set -e` or `set -o
/// pipefail`), or a function (whose body sees the call's arguments as `$1`).
fn changes_positional(script: &str) -> bool {
    // Quotes and backslashes do not hide the words from the shell (`"shift"`, `\set`,
    // `sh\ift`), nor does an alias (`alias s=shift`).
    let plain: String = script
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect();
    if plain.contains("()") {
        return true;
    }
    let statements = plain.split([';', '&', '|', '(', ')', '{', '}', '\n']);
    statements.map(str::trim).any(|statement| {
        let words: Vec<&str> = (statement.split(|c: char| c.is_whitespace() || c == '='))
            .filter(|w| !w.is_empty())
            .collect();
        words.iter().any(|w| matches!(*w, "shift" | "function"))
            || words.iter().enumerate().any(|(i, w)| {
                *w == "set"
                    && words[i + 1..]
                        .iter()
                        .scan(false, |value_next, a| {
                            // `-o NAME`'s NAME (`-euo pipefail` too) is an option's value, not
                            // an operand.
                            let operand =
                                !*value_next && (*a == "--" || !a.starts_with(['-', '+']));
                            *value_next =
                                *a != "--" && a.starts_with(['-', '+']) && a.ends_with('o');
                            Some(operand)
                        })
                        .any(|operand| operand)
            })
    })
}
