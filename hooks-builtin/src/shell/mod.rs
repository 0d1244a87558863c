//! A parser for the shell command lines agents send, so guards judge the commands a shell
//! would really run and not the text they were given.
//!
//! [`parse`] reads the POSIX/bash subset agents use (quotes of every kind, escapes, `;`, `&&`,
//! `||`, `|`, `&`, newlines, comments, subshells, groups, `if`/`for`/`while`/`case`, functions,
//! redirections and here-documents) and returns a [`Script`]: every simple command it would run,
//! flattened. Flattening sees through what hides a command from a naive reader:
//!
//! - quoting and escapes (`\rm`, `'r'm`, `"rm"`, `$'\x72m'`) are removed;
//! - a variable's value that holds a command substitution kept from running at the
//!   assignment (`x='$(cmd)'`, `x="\$(cmd)"`) is parsed as a script too: bash runs it wherever
//!   it expands the value again (`${x@P}`, `PS4` under `set -x`, `(( x ))` with
//!   `x='a[$(cmd)]'`, `eval "$x"`); `mapfile -C cmd` runs its callback;
//! - a name `hash -p PATH NAME` bound runs PATH from then on (`hash -p /bin/rm ls; ls -rf /`
//!   runs `rm`); a `cd` to a relative name with `CDPATH` set goes where the guard cannot know
//!   (its [`Command::dir`] starts with `$CDPATH/`);
//! - wrappers are stripped and their options skipped, wherever a command can follow them:
//!   `/bin/rm`, zsh's `=rm`, `command`, `builtin`, `exec`, `coproc`, `nohup`, `time`, `nice`,
//!   `env` (`-`, `-i`, `-0`, `-u X`, `-P dir`, `-S '…'`, `X=1 …`), `timeout`, `stdbuf`,
//!   `ionice`, `taskset`, `chrt`, `setsid`, `busybox`, `toybox`, `flock FILE`, `chroot DIR`,
//!   `unshare`, `nsenter`, `firejail`, `proxychains`, `torsocks`, `strace`, `ltrace`,
//!   `valgrind`, `caffeinate`, `xvfb-run`, `faketime TIME`, `fakeroot`, `eatmydata`, `tini`,
//!   `dumb-init`, `unbuffer`, `sshpass`, `numactl`, `cpulimit`, `prlimit`, `cgexec`,
//!   `systemd-inhibit`, `dbus-run-session`, `chronic`, `ifne`, zsh's `noglob`, `nocorrect`,
//!   `-` and `repeat N`; and, setting [`Command::privileged`], `sudo`, `doas`, `pkexec`,
//!   `run0`, `runuser -u`, `gosu`, `su-exec` and `systemd-run` (without `--user`, it runs a
//!   system service);
//! - wrappers that change directory set [`Command::dir`] (`env -C dir`, `sudo -D dir`,
//!   `unshare -w dir`, `systemd-run --working-directory=dir`);
//! - commands inside `$(…)`, backticks, `<(…)`/`>(…)`, `${x:-$(…)}`, `$((…))` and the body of
//!   an expanding here-document (`cat <<EOF` with `$(…)` in it; not `<<'EOF'`) are included;
//! - scripts run by `bash -c`/`sh -c`/`zsh -c`/`$SHELL -c`/…, `su -c`, `runuser … -c`,
//!   `sg group -c`, `script -c`, `flock FILE -c`, `eval`, `trap 'body' SIG` (not `trap -p`,
//!   `trap - SIG`, `trap '' SIG`), `alias x='…'`, `watch` (`watch -x` runs its words
//!   directly), `parallel` (its command with each `:::` input in place of `{}`, or each input
//!   when there is no command), `xargs cmd` and `find … -exec`/`-execdir`/`-ok`/`-okdir cmd
//!   {} ;` are parsed in turn, as are here-documents, here-strings and `echo`/`printf` output
//!   fed to a program that reads its script from standard input (or from another descriptor
//!   it names as its script file, `bash 3<<<'…' /dev/fd/3`) (`bash <<EOF`,
//!   `echo 'rm -rf /' | sh`, `at now <<< …`, `ssh host <<EOF`), and `echo`/`printf`/here-string
//!   input to `xargs` is added to its command (`echo / | xargs rm -rf` runs `rm -rf /`; so is
//!   what a literal process substitution prints, `xargs -a <(echo /) rm -rf`; with `-0` or
//!   `-d X` an item is what lies between delimiters, `echo 'rm -rf /' | xargs -0 sh -c`);
//!   `find … | xargs cmd` runs as `find … -exec cmd {} +` (and, unless `-print0 | xargs -0`
//!   keeps names whole, with the items a substitution of the find too), and to
//!   `parallel`'s a line at a time when it has no `:::` inputs or reads `:::: -`
//!   (`echo / | parallel rm -rf`; with `-q` its command's words are kept as they are);
//!   the entries of a table piped or here-documented into `crontab -` run their commands
//!   (after the schedule, up to the first `%`) in the home directory;
//! - terminals and multiplexers run what they are given: `xterm -e cmd` (and `uxterm`,
//!   `rxvt`, `urxvt`, `alacritty`, `konsole`, `st`; `--` too), `screen [-dmS name] cmd`,
//!   `screen -X stuff 'text^M'`, `tmux -c 'cmd'`, the shell command of `tmux new-session`,
//!   `new-window`, `split-window`, `respawn-*`, `run-shell`, `display-popup`, `pipe-pane` and
//!   `if-shell`, and the text `tmux send-keys` types (chained `\;` commands each);
//! - `ssh host cmd …` runs its remaining words, joined with spaces, as a script on the remote
//!   host: its commands run in the remote home directory ([`Command::dir`] is `~`), so
//!   `ssh host rm -rf build` is not a delete in the project; so do other tools' remote
//!   commands (`resolve/remotes.rs`): `gcloud compute ssh VM -- CMD` and `--command`, `az ssh
//!   vm -- CMD`, `az vm run-command invoke --scripts`, `aws ecs execute-command --command`,
//!   `aws ssm send-command --parameters commands=[…]`,
//!   `gh codespace ssh -- CMD`, `fly ssh console -C`, `minikube ssh CMD`, `podman machine ssh
//!   CMD`, `pyinfra … exec -- CMD`, `fab -- CMD`, ansible's `-a` (the file, copy and template
//!   modules as the deletes and writes they make); and remote wrappers (`tsh ssh`, `knife
//!   ssh`, `coder ssh`, `multipass exec`, `devcontainer exec`, `orb`, `heroku run`);
//! - options and settings a program runs as a command line are parsed as scripts run where
//!   the command runs: git's `-c` and `git config` settings that run commands (an alias
//!   starting with `!`, `core.sshCommand`, `core.pager`, `core.editor`, `core.fsmonitor`,
//!   `diff.external`, `credential.helper`, `pager.*`, …), `git rebase -x`, `difftool -x`,
//!   `filter-branch`'s filters, `submodule foreach`, `bisect run`; tar's `--to-command`,
//!   `-I`, `--checkpoint-action=exec=`; `rsync -e`; ssh's `-o ProxyCommand=`/`LocalCommand=`;
//!   `zip -TT`; `gdb -ex 'shell …'`; `less +!…`; `man -P`; an editor's `-c '!…'`, `+'!…'`,
//!   `call system("…")`, `(shell-command "…")`; an awk program's `system("…")`, `print |
//!   "…"` and `"…" | getline` (`resolve/options.rs`); a sed script's `e CMD` and the
//!   replacement of `s/…/CMD/e` (`-e`, `--expression` or the first operand); make's `SHELL=`
//!   and the recipes and `$(shell …)` of `--eval`/`-E` text (`resolve/embedded.rs`);
//! - `docker exec [options] CONTAINER cmd …` (also `docker container exec`, `docker compose
//!   exec`, `docker-compose`, `podman`, `nerdctl`, global options such as `-H host` before
//!   `exec`) and `kubectl [-n ns] exec … POD -- cmd …` (also `oc`) are wrappers: the command
//!   keeps its pipe and here-documents and runs in the container's or pod's home directory
//!   (or `-w`'s), as `ssh host cmd` does on a remote host;
//! - in `sh -c 'script' name arg…`, the positional parameters are known, and put in the words
//!   that use them (`sh -c 'rm -rf "$1"' sh /` runs `rm -rf /`), unless the script can
//!   change them (`shift`, `set` with operands, a function, whose `$1` is its own argument):
//!   then `$1` stays a variable the guards do not know.
//!
//! A construct that shells read differently is parsed under every reading, and guards judge
//! the commands of all of them, so the most dangerous reading decides:
//!
//! - `((…))` in command position is arithmetic in bash and zsh, but two nested subshells in
//!   dash (this is how `sh -c '((rm -rf /))'` runs `rm`); `$((…))` is arithmetic, or a command
//!   substitution of a subshell. The text is parsed as arithmetic (its substitutions included)
//!   and again as subshells;
//! - `[[ … ]]` is a test in bash, and in dash a command named `[[` whose `&&`, `||`, `;` and
//!   redirections are shell syntax (`[[ x && rm -rf / ]]` runs `rm`): both are parsed;
//! - brace expansion: bash and zsh run `{rm,-rf,/}` as `rm -rf /`, dash runs it as written.
//!   A command with unquoted braces is added once more with them expanded (sequences such as
//!   `{1..3}` and `{a..c}` included);
//! - `time` and `coproc` are reserved words before a compound command (`time { …; }`) and
//!   programs before a simple one (`time -f %e cmd` is `/usr/bin/time` in `sh`).
//!
//! A reading that is not valid shell syntax is no reading: it adds nothing, and does not make
//! the parse fail.
//!
//! A `cd` is followed, so [`Command::dir`] says where a later command runs (`cd / && rm -rf *`).
//! `cd -` goes to `$OLDPWD`, which is not known: a `cd` before it may have failed. `popd` and
//! a `cd` inside `eval` leave the directory unknown too.
//! Words keep the text of what the shell expands at run time (`$HOME`, `${HOME}`, `$(pwd)`,
//! `~`, globs), so a guard can treat `$HOME` as `~` and `$(pwd)` as the working directory.
//!
//! The parser never panics and its work is bounded: input longer than [`MAX_LEN`] or nesting
//! deeper than [`MAX_DEPTH`] levels is an error, and so is work beyond a budget proportional
//! to the input length (8 units a byte, on top of a fixed allowance for short commands). Work
//! is charged where it is not linear in the input: every byte of every script parsed (a
//! nested `bash -c` or `eval` script, an alternative reading), the scan ahead of each `((`,
//! every command and argument found (so the result, and the guards' work on it, stay
//! proportional to the input), copies of a long working directory, the words that brace
//! expansion, `parallel` and `xargs` produce, and the rewriting of `env -S` strings. Over the
//! budget the parse fails with [`ShellError::TooComplex`], and guards deny what they cannot
//! parse. The parser does not expand variables (but for known positional parameters), so
//! `X=rm; $X -rf /` is seen as a command named `$X`. An alias's value is parsed where it is
//! defined, and again with the words of each later use (`alias x='rm -rf'; x ~` runs
//! `rm -rf ~`), where it is not expanded again.
//!
//! ```
//! use hookrail_builtin::shell;
//!
//! let script = shell::parse(r#"cd /tmp && sudo env X=1 \rm -rf "$HOME" | bash -c 'eval "ls -l"'"#)?;
//! let programs: Vec<&str> = script.commands().map(|c| c.program.as_str()).collect();
//! assert_eq!(programs, ["cd", "rm", "bash", "eval", "ls"]);
//! let rm = script.commands().find(|c| c.program == "rm").unwrap();
//! assert_eq!(rm.args, ["-rf", "$HOME"]);
//! assert!(rm.privileged);
//! # Ok::<(), hookrail_builtin::shell::ShellError>(())
//! ```

mod brace;
mod escapes;
pub(crate) mod extract;
pub(crate) mod getopt;
pub(crate) mod globbing;
mod lex;
pub(crate) mod links;
pub(crate) mod outputs;
mod parser;
mod resolve;
pub(crate) mod sed;
mod terminals;
pub(crate) mod windows;

pub(crate) use escapes::{Escapes, read_escapes};
#[cfg(feature = "command-guard")]
pub(crate) use resolve::TAR_SHORT;

use std::borrow::Cow;
use std::fmt;

/// The longest command line [`parse`] accepts, in bytes (1 MiB).
pub const MAX_LEN: usize = 1 << 20;

/// How deeply subshells, substitutions and re-parsed scripts (`bash -c`, `eval`, …) may nest.
pub const MAX_DEPTH: usize = 32;

/// A command line could not be parsed. Guards deny such commands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShellError {
    /// A quote, substitution, group or similar construct is not closed.
    #[error("unterminated {0}")]
    Unterminated(&'static str),
    /// A token appears where the grammar does not allow it (`| ls`, `ls &&`, `)`).
    #[error("syntax error near `{0}`")]
    Unexpected(String),
    /// A construct the parser does not support, named.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// Nesting is deeper than [`MAX_DEPTH`].
    #[error("nested more than {MAX_DEPTH} levels deep")]
    TooDeep,
    /// The input is longer than [`MAX_LEN`] bytes.
    #[error("{0} bytes long, more than the {MAX_LEN} accepted")]
    TooLong(usize),
    /// Parsing (nested scripts, readings, expansions) would cost more than the work bound
    /// allows.
    #[error("too complex to check")]
    TooComplex,
}

/// Everything a command line runs, flattened: the pipelines typed at top level and the ones
/// nested in substitutions, subshells, functions and re-parsed scripts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// Every pipeline, nested ones included. A single command is a pipeline of one.
    pub pipelines: Vec<Pipeline>,
    /// Every function definition (`f() { …; }`, `function f { …; }`).
    pub functions: Vec<Function>,
    /// The values the script gives variable names, as written with quotes removed, in order:
    /// `f=.env`, `export f=.env` (and `declare`, `local`, `readonly`, `typeset`), and each
    /// word of `for f in a b` (not `f=.env cmd`, which sets it for `cmd` alone). The parser expands no variable; a guard
    /// that wants to see through `f=.env; cat $f` substitutes these. A name given more than
    /// one value has each, and which one a word sees is not known.
    pub variables: Vec<Variable>,
    /// The files the line writes with content it spells out and then runs (`echo 'print(1)' >
    /// t.py; python3 t.py`), by their last component: what runs was parsed as the line's own
    /// script, or given to the interpreter inline, so a guard can judge it instead of asking
    /// about a file it cannot read.
    pub known_files: Vec<String>,
}

/// A value a script gives a variable name ([`Script::variables`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The name (an array's, for `a[0]=…`).
    pub name: String,
    /// The value, as written with quotes removed.
    pub value: String,
    /// The statement that gave it: the words of one `for` loop share one, so a name whose
    /// values all come from one statement takes each of them in turn.
    pub statement: usize,
}

impl Script {
    /// Every simple command, in pipeline order.
    pub fn commands(&self) -> impl Iterator<Item = &Command> {
        self.pipelines.iter().flat_map(|p| &p.commands)
    }
}

/// Commands joined by `|`, each reading the previous one's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The stages, in order. A compound stage (`( … )`, `{ …; }`, a loop) has its commands
    /// in pipelines of their own; those that read its input (when something pipes into it)
    /// and those that write its output (when it pipes into something) are stages here too,
    /// in its place: `echo x | (cat; sh)` has the stages `echo x`, `cat`, `sh`.
    pub commands: Vec<Command>,
}

/// A simple command, as it will run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// The program's file name after wrappers are stripped (`rm` for `sudo /bin/rm`), in lower
    /// case and without Windows's `.exe` ([`program_key`]: `RM` and `rm.exe` are `rm`), or the word's
    /// text when it is a substitution (`$(which rm)` becomes `rm`, other ones stay as
    /// written). Empty for a command that only redirects (`> /dev/sda`).
    pub program: String,
    /// The program was named by a path (`./test`, `/usr/bin/ssh`), not by a name the shell
    /// looks up: a guard that trusts what a builtin's name does (`test` reads nothing) trusts
    /// only the name.
    pub by_path: bool,
    /// The arguments, with quotes removed and escapes applied.
    pub args: Vec<String>,
    /// The redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Runs as another user: under `sudo`, `doas`, `pkexec`, `run0`, `runuser`, `gosu`,
    /// `su-exec` or `systemd-run`, or in an `su -c` script (`su` and `runuser` themselves too).
    pub privileged: bool,
    /// The directory it runs in, when a `cd` earlier in the script or a wrapper (`env -C`)
    /// changed it: as written (`/tmp`, `~/x`, `$HOME`), relative ones joined (`cd a && cd b`
    /// gives `a/b`). A `cd` in a subshell or substitution ends with it; `bash -c` scripts start
    /// where they were run; a remote command (`ssh host cmd`) runs in `~`.
    pub dir: Option<String>,
    /// The variables set for it, as written with quotes removed (`GIT_PAGER=less` in
    /// `GIT_PAGER=less git log`, `env X=1 cmd`, `sudo X=1 cmd`): some name a command
    /// (`GIT_SSH_COMMAND`, `PAGER`, `PROMPT_COMMAND`).
    pub assignments: Vec<String>,
}

impl fmt::Display for Command {
    /// The command as a shell would read it back: program and arguments, quoted when needed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if !self.program.is_empty() {
            for word in std::iter::once(&self.program).chain(&self.args) {
                write!(f, "{sep}{}", quote(word))?;
                sep = " ";
            }
        }
        for r in &self.redirects {
            write!(f, "{sep}{r}")?;
            sep = " ";
        }
        Ok(())
    }
}

/// A redirection of one of a command's file descriptors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor written before the operator (`2` in `2>&1`), if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The file, descriptor (`1` in `2>&1`), here-string, or here-document body.
    pub target: String,
}

impl Redirect {
    /// True when the redirection gives the command its standard input (`< f`, `<> f`,
    /// `<&3`, a here-document or a here-string, on descriptor 0).
    pub fn reads_stdin(&self) -> bool {
        self.fd.is_none_or(|fd| fd == 0)
            && matches!(
                self.op,
                RedirectOp::In
                    | RedirectOp::ReadWrite
                    | RedirectOp::DupIn
                    | RedirectOp::HereDoc
                    | RedirectOp::HereString
            )
    }

    /// True when the redirection opens `target` as a file for writing (`>`, `>>`, `>|`, `<>`,
    /// `&>`, `&>>`, and `>&file`).
    pub fn writes_file(&self) -> bool {
        match self.op {
            RedirectOp::Out
            | RedirectOp::Append
            | RedirectOp::ReadWrite
            | RedirectOp::OutErr
            | RedirectOp::AppendErr => true,
            RedirectOp::DupOut => !self.target.bytes().all(|b| b.is_ascii_digit() || b == b'-'),
            RedirectOp::In | RedirectOp::DupIn | RedirectOp::HereDoc | RedirectOp::HereString => {
                false
            }
        }
    }
}

impl fmt::Display for Redirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(fd) = self.fd {
            write!(f, "{fd}")?;
        }
        match self.op {
            RedirectOp::HereDoc => f.write_str("<<EOF"),
            op => write!(f, "{}{}", op.as_str(), quote(&self.target)),
        }
    }
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedirectOp {
    /// `<`
    In,
    /// `>` and `>|`
    Out,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<&`
    DupIn,
    /// `>&` (with a file as target, `>&file` writes stdout and stderr to it)
    DupOut,
    /// `&>`
    OutErr,
    /// `&>>`
    AppendErr,
    /// `<<` and `<<-`; the target is the body.
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirectOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectOp::In => "<",
            RedirectOp::Out => ">",
            RedirectOp::Append => ">>",
            RedirectOp::ReadWrite => "<>",
            RedirectOp::DupIn => "<&",
            RedirectOp::DupOut => ">&",
            RedirectOp::OutErr => "&>",
            RedirectOp::AppendErr => "&>>",
            RedirectOp::HereDoc => "<<",
            RedirectOp::HereString => "<<<",
        }
    }
}

/// Where a shell reads the script it runs (see [`Command::shell_script`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellScript<'a> {
    /// `-c 'script'`: the script is this argument.
    Inline(&'a str),
    /// No script operand, or `-s`: the script is read on standard input.
    Stdin,
    /// A script file.
    File(&'a str),
}

/// A shell function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// The programs its body runs (nested commands included), in order.
    pub calls: Vec<String>,
}

/// Parses a command line into the commands it runs.
///
/// ```
/// let script = hookrail_builtin::shell::parse("git log --oneline | head -n 5 > /tmp/log")?;
/// assert_eq!(script.pipelines.len(), 1);
/// assert_eq!(script.pipelines[0].commands[1].to_string(), "head -n 5 >/tmp/log");
/// assert!(hookrail_builtin::shell::parse("echo 'unclosed").is_err());
/// # Ok::<(), hookrail_builtin::shell::ShellError>(())
/// ```
pub fn parse(src: &str) -> Result<Script, ShellError> {
    parser::parse(src)
}

/// A program's name as [`Command::program`] holds it: in lower case, without Windows's
/// executable suffixes (`.exe`, `.com`, `.cmd`, `.bat`) and the trailing dots and spaces Win32
/// drops, as a file system that ignores case finds it (`RM`, `rm.exe`, `rm.` run `rm` on
/// macOS's and Windows's defaults, in Git Bash, MSYS2, Cygwin and WSL; npm's shims are
/// `.cmd`). Tables keyed by program name fold their keys with it.
///
/// ```
/// use hookrail_builtin::shell::{parse, program_key};
///
/// assert_eq!(program_key("RM"), "rm");
/// assert_eq!(program_key("Git.EXE"), "git");
/// assert_eq!(program_key("npx.cmd"), "npx");
/// assert_eq!(program_key("rm.exe."), "rm");
/// assert_eq!(program_key("rm"), "rm");
/// let script = parse("/BIN/RM.exe -rf build")?;
/// assert_eq!(script.pipelines[0].commands[0].program, "rm");
/// # Ok::<(), hookrail_builtin::shell::ShellError>(())
/// ```
pub fn program_key(name: &str) -> Cow<'_, str> {
    resolve::folded(name)
}

/// `text` after `prefix`, ASCII case ignored (mysql's client commands, paths as a file system
/// that ignores case compares them).
pub(crate) fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// Lines longer than this are not kept for the next guard.
#[cfg(all(feature = "command-guard", feature = "secrets-guard"))]
const MAX_KEPT: usize = 64 * 1024;

/// A parse [`parse_and_keep`] kept on this thread, with its text.
#[cfg(feature = "secrets-guard")]
type Kept = Option<(Box<str>, Result<std::rc::Rc<Script>, ShellError>)>;

#[cfg(feature = "secrets-guard")]
thread_local! {
    static KEPT: std::cell::RefCell<Kept> = const { std::cell::RefCell::new(None) };
}

/// [`parse`], keeping the parse on this thread for the next guard that judges the same tool
/// call ([`parse_kept`]). The command guard parses a command line first, then the secrets
/// guard takes its parse on the same thread (the builtin guards run at one order, in that
/// sequence) instead of parsing the line again. A parse depends on the text alone and is never
/// changed once made, so the two read the same script either way. (Without the secrets guard
/// built in, nothing is kept.)
#[cfg(feature = "command-guard")]
pub(crate) fn parse_and_keep(src: &str) -> Result<std::rc::Rc<Script>, ShellError> {
    let parsed = parser::parse(src).map(std::rc::Rc::new);
    #[cfg(feature = "secrets-guard")]
    if src.len() <= MAX_KEPT {
        KEPT.with(|kept| *kept.borrow_mut() = Some((src.into(), parsed.clone())));
    }
    parsed
}

/// The parse of `src` that [`parse_and_keep`] kept on this thread, taken out of it; parsed
/// here when there is none for this text. Taking it means a parse is used once: the next tool
/// call parses its line again, the same line too, so no benchmark of one repeated command
/// gains what a real stream would not.
#[cfg(feature = "secrets-guard")]
pub(crate) fn parse_kept(src: &str) -> Result<std::rc::Rc<Script>, ShellError> {
    match KEPT.with(|kept| kept.borrow_mut().take()) {
        Some((text, parsed)) if *text == *src => parsed,
        _ => parser::parse(src).map(std::rc::Rc::new),
    }
}

/// The values a script gives its variables ([`Script::variables`]), by name: what
/// [`Variables::readings`] and [`Variables::certain`] put in a word.
#[derive(Debug, Default)]
pub struct Variables<'a> {
    by_name: std::collections::HashMap<&'a str, Vec<&'a Variable>>,
}

impl Script {
    /// The values this script gives its variables, by name.
    pub fn variables_by_name(&self) -> Variables<'_> {
        let mut by_name: std::collections::HashMap<&str, Vec<&Variable>> = Default::default();
        for variable in &self.variables {
            by_name.entry(&variable.name).or_default().push(variable);
        }
        Variables { by_name }
    }
}

/// Past this many variables used in one word, its readings are not written out.
const MAX_USED: usize = 256;

/// The most bytes [`Variables::readings`] writes out for one word.
pub const MAX_READING_BYTES: usize = 1 << 20;

/// At most this many readings of a word through variables are certain
/// ([`Variables::certain`]); past it, none is.
const MAX_CERTAIN: usize = 64;

impl Variables<'_> {
    /// `word` read with the values its variables are given put in (`cat $f` after
    /// `f=.env`, `for f in .env; do cat "$f"; done`): each value of each name it uses, one at
    /// a time, and every name at once at its first value. Empty when it uses none of them. A
    /// value is put in as written: `$` in it is not expanded again. A word that is empty once
    /// its values are in is left out (`rm -rf "$X"` after `X=` removes nothing).
    ///
    /// ```
    /// use hookrail_builtin::shell::parse;
    ///
    /// let script = parse("f=.env; d=~/.aws; cat $f ${d}/credentials")?;
    /// let vars = script.variables_by_name();
    /// assert_eq!(vars.readings("$f").unwrap(), [".env"]);
    /// assert_eq!(vars.readings("${d}/credentials").unwrap(), ["~/.aws/credentials"]);
    /// assert!(vars.readings("$fe").unwrap().is_empty());
    /// # Ok::<(), hookrail_builtin::shell::ShellError>(())
    /// ```
    ///
    /// `None` when the readings would take more than [`MAX_READING_BYTES`] to write out (a
    /// loop of thousands of values into a word that uses its variable thousands of times), or
    /// the word uses more than 256 of the variables: a guard that must judge every reading
    /// cannot decide.
    pub fn readings(&self, word: &str) -> Option<Vec<String>> {
        let used = self.used(word);
        if used.is_empty() {
            return Some(Vec::new());
        }
        if used.len() > MAX_USED {
            return None;
        }
        let dollars = word.matches('$').count();
        let size: usize = (used.iter())
            .flat_map(|(_, values)| values.iter())
            .map(|v| {
                word.len()
                    .saturating_add(v.value.len().saturating_mul(dollars))
            })
            .fold(0usize, usize::saturating_add);
        if size > MAX_READING_BYTES {
            return None;
        }
        let mut out = Vec::new();
        let mut all = word.to_owned();
        for (name, values) in &used {
            for value in values.iter() {
                out.extend(put_variable(word, name, &value.value));
            }
            if let Some(more) = values
                .first()
                .and_then(|v| put_variable(&all, name, &v.value))
            {
                all = more;
            }
        }
        if all != word && !out.contains(&all) {
            out.push(all);
        }
        out.retain(|w| !w.is_empty());
        Some(out)
    }

    /// The readings of `word` the shell certainly makes: with its variables put in when each
    /// one it uses got its values from one statement (one assignment, or one `for` loop, whose
    /// body takes each in turn). A name given values by several statements (set again, two
    /// loops) may hold any of them where the word is: `None` then, or when it uses none, or
    /// past 64 readings. Empty readings are left out.
    ///
    /// ```
    /// use hookrail_builtin::shell::parse;
    ///
    /// let script = parse("X=/; Y=a; Y=b; for d in b /; do rm -rf $X $Y $d; done")?;
    /// let vars = script.variables_by_name();
    /// assert_eq!(vars.certain("$X"), Some(vec!["/".to_owned()]));
    /// assert_eq!(vars.certain("$Y"), None);
    /// assert_eq!(vars.certain("$d"), Some(vec!["b".to_owned(), "/".to_owned()]));
    /// # Ok::<(), hookrail_builtin::shell::ShellError>(())
    /// ```
    pub fn certain(&self, word: &str) -> Option<Vec<String>> {
        let used = self.used(word);
        if used.len() > MAX_CERTAIN {
            return None;
        }
        if used.is_empty()
            || used
                .iter()
                .any(|(_, values)| values.iter().any(|v| v.statement != values[0].statement))
        {
            return None;
        }
        let mut readings = vec![word.to_owned()];
        for (name, values) in used {
            if readings.len() * values.len() > MAX_CERTAIN {
                return None;
            }
            readings = readings
                .iter()
                .flat_map(|r| {
                    values
                        .iter()
                        .filter_map(move |v| put_variable(r, name, &v.value))
                })
                .collect();
        }
        readings.retain(|r| !r.is_empty());
        Some(readings)
    }

    /// The names `word` uses (`$name`, `${name}`) that have values, with those values.
    fn used(&self, word: &str) -> Vec<(&str, &[&Variable])> {
        let mut used: Vec<(&str, &[&Variable])> = Vec::new();
        if self.by_name.is_empty() || !word.contains('$') {
            return used;
        }
        let mut rest = word;
        while let Some(at) = rest.find('$') {
            let after = &rest[at + 1..];
            let braced = after.strip_prefix('{');
            let name = match braced {
                Some(inner) => {
                    Some(variable_name(inner)).filter(|n| inner[n.len()..].starts_with('}'))
                }
                None => Some(variable_name(after)),
            };
            if let Some((key, values)) = name
                .filter(|n| !n.is_empty())
                .and_then(|n| self.by_name.get_key_value(n))
                && !used.iter().any(|(n, _)| n == key)
            {
                used.push((key, values));
                // Past this many names a word's readings are too many to write out anyway.
                if used.len() > MAX_USED {
                    break;
                }
            }
            rest = after;
        }
        used
    }
}

/// The variable name at the start of `text` (letters, digits, `_`; empty when none).
pub(crate) fn variable_name(text: &str) -> &str {
    let len = text
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    &text[..len]
}

/// `word` with `$name` and `${name}` replaced by `value`, when it uses them.
pub(crate) fn put_variable(word: &str, name: &str, value: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len() + value.len());
    let mut rest = word;
    let mut changed = false;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let braced = after
            .strip_prefix('{')
            .and_then(|a| a.strip_prefix(name))
            .and_then(|a| a.strip_prefix('}'));
        let bare = after
            .strip_prefix(name)
            .filter(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
        match braced.or(bare) {
            Some(next) => {
                out.push_str(value);
                rest = next;
                changed = true;
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `word` as a shell reads it back as one word: unchanged when that is safe, else
/// single-quoted. Expansions (`$HOME`, `*`) are left unquoted, as they were written.
///
/// ```
/// use hookrail_builtin::shell::quote;
///
/// assert_eq!(quote("src/main.rs"), "src/main.rs");
/// assert_eq!(quote("it's here"), r"'it'\''s here'");
/// ```
pub fn quote(word: &str) -> Cow<'_, str> {
    let plain = !word.is_empty()
        && word.bytes().all(|b| {
            b.is_ascii_alphanumeric() || b"-_./=:,+@%^~$*?{}[]!#".contains(&b) || b >= 0x80
        });
    if plain {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests;
