//! Interpreter one-liners: `python -c`, `perl -e`, `ruby -e`, `node -e`, `lua -e`, `Rscript
//! -e` and here-documents fed to them (`core.shell`).
//!
//! The code an interpreter runs is read from its inline argument (`python3 -c`,
//! `python3.12 -c`, `perl -e`/`-E`/`-ne`, `ruby -e`, `node -e`/`--eval`/`-p`, `deno eval`,
//! `bun -e`, `php -r`, `lua -e`, `R -e`/`Rscript -e`), from a here-document or here-string on its standard input
//! (`python3 <<EOF`, `python3 - <<'EOF'`, `node <<< '…'`), or from literal text piped into it
//! (`echo '…' | python3`, see [`super::opaque`]). That code is scanned lexically,
//! string literals and all (single, double and triple quotes, raw and f-strings, template
//! literals, Perl's `q`/`qq`/`qw`/`qx`, Ruby's `%w`/`%x`; escapes decoded, code points by
//! number included: `\x72`, `\x{72}`, `\u0072`, `\u{72}`, `\U00000072`, octal `\162`), for
//! the calls in the tables below:
//!
//! - **deletions** ([`Table::delete`]: `shutil.rmtree`, `os.remove`, `os.unlink`, `os.rmdir`,
//!   `Path('x').unlink()`, `fs.rmSync`, `fs.rm`, `rimraf`, `FileUtils.rm_rf`, `File.delete`,
//!   Perl's `unlink` and `rmtree`, PHP's `unlink`, …). A literal path is judged like `rm -r` of
//!   that path, so `shutil.rmtree('/')` is `rm-root` (deny), `shutil.rmtree('/data/x')`
//!   `rm-outside-project` (ask) and `shutil.rmtree('build')` allowed; a path computed when the
//!   code runs (a variable, an f-string, `os.path.join(…)`) asks, rule `interpreter-delete`.
//! - **shell-outs** ([`Table::shell`]: `os.system`, `os.popen`, `subprocess.run`/`call`/
//!   `Popen`/`check_call`/`check_output`, `execSync`, `spawnSync`, `exec(`, `system(`,
//!   `Kernel.system`, `IO.popen`, `shell_exec`, `passthru`, backquotes, `qx(…)`, `%x(…)`,
//!   `` Bun.$`…` ``, Perl's `open` with a pipe mode or a `|` string: `open(F, "|-", "cmd")`,
//!   `open(F, "cmd |")`; one that writes into a shell asks, as what it prints is the script). A literal string is parsed as a shell script and judged by every rule,
//!   so `os.system('rm -rf /')` is `rm-root` (and the pack and user rules see its commands:
//!   `os.system('git stash clear')` is `git-stash-drop`); a list (`subprocess.run(['rm', '-rf', '/'])`) or
//!   several literal arguments (`system('rm', '-rf', '/')`) are joined as the argv; anything
//!   else asks, rule `interpreter-shell-out` (as do `os.exec*`, `os.spawn*` and
//!   `new Deno.Command`).
//! - **writes and moves** ([`Table::write`], [`Table::open`] with a mode that writes,
//!   [`Table::rename`], and `Path('x').write_text()`/`.rename()`: `os.truncate`,
//!   `open(p, 'w')`, `fs.writeFileSync`, `File.write`, `file_put_contents`, Perl's
//!   `open(F, ">p")`, `os.rename`, `shutil.move`, `fs.renameSync`, …). A literal path is
//!   judged as the shell's `: > PATH` (`: >> PATH` for an append) or `mv -- FROM TO`, so
//!   `open('/etc/passwd','w')` is `system-file-write` and `os.rename('/root', x)` `mv-system`;
//!   a computed path is not judged (writes to computed paths are what programs do).
//! - `eval` of a literal (Python's `exec` and `eval`, Perl's `eval q{…}`, Ruby's, PHP's,
//!   JavaScript's `eval` and `Function`) is scanned as the same language; of anything else
//!   asks, `eval-computed`, as does code that is a shell expansion (`python3 -c "$CODE"`).
//!   An `eval { … }` block (Perl's exception handling) is code scanned in place.
//!
//! Python's imports are followed: `import subprocess as sp; sp.run(…)`, `from os import
//! system as s; s(…)`, `from subprocess import run`, `from os import *; system(…)`.
//! IPython's shell escapes are shell-outs: a line's `!cmd` (also after any assignment: `x =
//! !cmd`, `a, b = !cmd`), the line magics that run their text (`%sx`, `%system`, `%time`,
//! `%timeit`, `%prun`, `%sc`, `%alias`; also without `%`), a
//! `%%bash`/`%%sh`/`%%script`/`%%sx`/`%%system`/`%%!` cell, and `get_ipython().system(…)`,
//! `.getoutput(…)`, `.run_line_magic("sx", …)`, `.run_cell_magic("bash", …)`; a `{…}` in one
//! asks (IPython puts a Python expression in). A line that starts with one of IPython's
//! shell aliases (`rm`, `mv`, `cp`, `cat`, `mkdir`, …) is judged as a shell command too:
//! IPython runs `rm -rf /`. Lines in a triple-quoted string or a text cell (`%%writefile`)
//! run nothing. Lua
//! (`os.execute`, `io.popen`, `os.remove`; long brackets `[[…]]` are strings, `--[[…]]`
//! comments, `\ddd` escapes decimal) and R (`system`, `system2` with its argument vector,
//! `unlink`, `file.remove`; raw strings `r"(…)"`, backquoted names) are scanned like the
//! others. Blanks may stand around a qualifier's dot (`os . system (…)`), and a literal in
//! parentheses is the literal. A path built from literals by the language's path functions
//! is that path (`os.path.join('/', 'etc')`, `Path('/etc', 'ssh')`, `path.join`,
//! `File.join`, R's `file.path`), and the home directory's functions are `~`
//! (`Path.home()`, `os.path.expanduser('~')`, `os.homedir()`, `Dir.home`).
//!
//! Other interpreters (`pwsh`, `julia`, `tclsh`, `wish`, `osascript`, `expect`) are not
//! scanned (PowerShell's `-EncodedCommand` asks whatever it holds): a
//! one-liner of theirs, or code they read from a here-document or literal text piped in,
//! that holds a word which may run a command or delete files (`exec`, `system`, `spawn`,
//! `Remove-Item`, …) asks, rule `interpreter-shell-out`.
//!
//! What it does not do: follow the code's own variables (`p = '/'; shutil.rmtree(p)` asks, it
//! is not denied), other languages' imports under another name
//! (`const {execSync: x} = require('child_process')`), `getattr` tricks, code in files (`python3 script.py`), or
//! interpreters started by a runner (`uv run python -c`, `poetry run`). Harmless one-liners
//! stay allowed: `python3 -c 'import sys; print(sys.version)'`, `node -e 'console.log(1)'`,
//! `perl -ne 'print if /x/' f`, `ruby -e 'puts 1'`, `python3 -m http.server`.
//!
//! The scan is linear in the code's length, and shell-outs nested in shell-outs are followed
//! [`MAX_NESTING`] levels deep at most (deeper ones ask).

use std::cell::Cell;

use crate::shell::{self, Command, RedirectOp};

use super::opaque;
use super::rules::{EVAL_COMPUTED, Env, Hit, INTERPRETER_DELETE, INTERPRETER_SHELL_OUT, hit};

/// How many shell-outs (and Python `exec`s) nested in one another are followed.
const MAX_NESTING: usize = 8;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// A language whose one-liners are scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Perl,
    Ruby,
    Js,
    Php,
    Lua,
    R,
}

impl Lang {
    fn of(program: &str) -> Option<Lang> {
        // `python3.12`, `lua5.4`, `luajit-2.1`.
        let versioned = |name: &str| {
            program.strip_prefix(name).is_some_and(|v| {
                v.bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
            })
        };
        Some(
            if versioned("python") || versioned("pypy") || versioned("ipython") {
                Lang::Python
            } else if versioned("perl") {
                Lang::Perl
            } else if versioned("ruby") || program == "jruby" {
                Lang::Ruby
            } else if matches!(
                program,
                "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node"
            ) {
                Lang::Js
            } else if versioned("php") {
                Lang::Php
            } else if versioned("lua") || versioned("luajit") {
                Lang::Lua
            } else if matches!(program, "r" | "rscript") {
                Lang::R
            } else {
                return None;
            },
        )
    }

    fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Perl => "perl",
            Lang::Ruby => "ruby",
            Lang::Js => "javascript",
            Lang::Php => "php",
            Lang::Lua => "lua",
            Lang::R => "r",
        }
    }

    fn table(self) -> &'static Table {
        match self {
            Lang::Python => &PYTHON,
            Lang::Perl => &PERL,
            Lang::Ruby => &RUBY,
            Lang::Js => &JS,
            Lang::Php => &PHP,
            Lang::Lua => &LUA,
            Lang::R => &R,
        }
    }

    /// Calls without parentheses (`system "ls"`, `FileUtils.rm_rf 'x'`, Lua's `os.execute
    /// "ls"`).
    fn bare_calls(self) -> bool {
        matches!(self, Lang::Perl | Lang::Ruby | Lang::Lua)
    }

    /// Every positional argument counts (`unlink "a", "b"`, `system("rm", "-rf", "x")`),
    /// not just the first.
    fn all_arguments(self) -> bool {
        matches!(self, Lang::Perl | Lang::Ruby)
    }
}

/// Interpreters that are not scanned, whose script files and standard input still count.
const OTHER_INTERPRETERS: &[&str] = &[
    "wish",
    "pwsh",
    "powershell",
    "julia",
    "tclsh",
    "osascript",
    "expect",
];

/// Words that, in code of a language the guard does not scan, may run a command or delete
/// files: such a one-liner is asked about.
const UNSCANNED_RISKY: &[&str] = &[
    "exec",
    "system",
    "spawn",
    "run(",
    "shell",
    "popen",
    "unlink",
    "remove",
    "delete",
    "rm ",
    "Remove-Item",
    // PowerShell's aliases of Remove-Item, Julia's `rm(`.
    "ri ",
    "del ",
    "rd ",
    "erase ",
    "rm(",
    "Invoke-Expression",
    "iex ",
    "Start-Process",
    "rmdir",
    "doShellScript",
    "`",
];

/// Where an interpreter reads the code it runs.
#[derive(Debug, PartialEq, Eq)]
enum Invocation<'a> {
    /// Inline code arguments.
    Inline(Vec<&'a str>),
    /// Standard input.
    Stdin,
    /// A script file.
    File(&'a str),
    /// Not code the guard could read (`python3 -m http.server`, `bun install`).
    Other,
}

fn invocation(command: &Command) -> Option<Invocation<'_>> {
    let program = command.program.as_str();
    let args = &command.args;
    Some(match Lang::of(program) {
        Some(Lang::Python) => python(args),
        // `perl -I dir` takes the next word too (`-Idir` its cluster's rest).
        Some(Lang::Perl) => perl_ruby(args, "eE", "MmIiFxdDCV", &["-I"]),
        Some(Lang::Ruby) => perl_ruby(args, "e", "rICEFKTWxi", &["-r", "-I", "-C", "-E"]),
        Some(Lang::Js) if program == "deno" => deno(args),
        Some(Lang::Js) if program == "bun" => bun(args),
        Some(Lang::Js) => node(args),
        Some(Lang::Php) => php(args),
        Some(Lang::Lua) => lua(args),
        Some(Lang::R) => r(args),
        None if OTHER_INTERPRETERS.contains(&program) => other(args),
        None => return None,
    })
}

fn python(args: &[String]) -> Invocation<'_> {
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-W" | "-X" | "--check-hash-based-pycs" => {
                args.next();
            }
            "-" => return Invocation::Stdin,
            "--" => return args.next().map_or(Invocation::Stdin, Invocation::File),
            a if a.starts_with("--") => {}
            a if a.len() > 1 && a.starts_with('-') => {
                for (at, c) in a[1..].char_indices() {
                    match c {
                        'c' => {
                            return match &a[1 + at + 1..] {
                                "" => Invocation::Inline(args.next().into_iter().collect()),
                                code => Invocation::Inline(vec![code]),
                            };
                        }
                        'm' => return Invocation::Other,
                        'W' | 'X' => break,
                        _ => {}
                    }
                }
            }
            a => return Invocation::File(a),
        }
    }
    Invocation::Stdin
}

/// Perl and Ruby: `code` letters take the code (the next word, or the rest of the cluster),
/// `valued` letters take the rest of their cluster, `separate` options the next word.
fn perl_ruby<'a>(
    args: &'a [String],
    code: &str,
    valued: &str,
    separate: &[&str],
) -> Invocation<'a> {
    let mut codes = Vec::new();
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-" if codes.is_empty() => return Invocation::Stdin,
            "--" | "-" => break,
            a if separate.contains(&a) => {
                args.next();
            }
            a if a.starts_with("--") => {}
            a if a.len() > 1 && a.starts_with('-') => {
                let cluster = &a[1..];
                let mut chars = cluster.char_indices().peekable();
                while let Some((at, c)) = chars.next() {
                    if code.contains(c) {
                        let rest = &cluster[at + 1..];
                        if rest.is_empty() {
                            codes.extend(args.next());
                        } else {
                            codes.push(rest);
                        }
                        break;
                    }
                    // `-l[octal]` and `-0[octal]` or `-0x[hex]` take digits, not letters:
                    // the `e` of `-le` is the code option, not a hex digit.
                    if c == '0' && chars.next_if(|(_, d)| matches!(d, 'x' | 'X')).is_some() {
                        while chars.next_if(|(_, d)| d.is_ascii_hexdigit()).is_some() {}
                    } else if c == '0' || c == 'l' {
                        while chars.next_if(|(_, d)| ('0'..='7').contains(d)).is_some() {}
                    } else if valued.contains(c) {
                        break;
                    }
                }
            }
            a if codes.is_empty() => return Invocation::File(a),
            _ => break,
        }
    }
    if codes.is_empty() {
        Invocation::Stdin
    } else {
        Invocation::Inline(codes)
    }
}

fn node(all: &[String]) -> Invocation<'_> {
    let mut args = all.iter().map(String::as_str).enumerate();
    // The previous word was a long option the guard does not know, without `=value`: it may
    // take this word as its value (`node --title x -e …`).
    let mut after_long = false;
    while let Some((at, arg)) = args.next() {
        let unknown_long = std::mem::replace(&mut after_long, false);
        match arg {
            "-e" | "--eval" | "-p" | "--print" | "-pe" => {
                return Invocation::Inline(args.next().map(|(_, a)| a).into_iter().collect());
            }
            "-r"
            | "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "-C"
            | "--conditions"
            | "--title"
            | "--env-file"
            | "--input-type"
            | "--inspect-port"
            | "--watch-path"
            | "--disable-warning"
            | "--redirect-warnings"
            | "--unhandled-rejections" => {
                args.next();
            }
            "-" => return Invocation::Stdin,
            "--" => {
                return args
                    .next()
                    .map_or(Invocation::Stdin, |(_, a)| Invocation::File(a));
            }
            a => {
                if let Some(code) = a
                    .strip_prefix("--eval=")
                    .or_else(|| a.strip_prefix("--print="))
                {
                    return Invocation::Inline(vec![code]);
                }
                if !a.starts_with('-') {
                    // Perhaps that option's value: if code follows, judge the code rather
                    // than miss it.
                    return match unknown_long.then(|| node(&all[at + 1..])) {
                        Some(Invocation::Inline(code)) if !code.is_empty() => {
                            Invocation::Inline(code)
                        }
                        _ => Invocation::File(a),
                    };
                }
                after_long = a.starts_with("--") && !a.contains('=');
            }
        }
    }
    Invocation::Stdin
}

/// The first word of `args` that is not an option.
fn first_operand<'a>(args: &mut impl Iterator<Item = &'a str>) -> Option<&'a str> {
    args.find(|a| !a.starts_with('-') || *a == "-")
}

fn is_script_name(word: &str) -> bool {
    [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
        .iter()
        .any(|ext| word.ends_with(ext))
}

fn deno(args: &[String]) -> Invocation<'_> {
    let mut words = args.iter().map(String::as_str);
    match words.next() {
        Some("eval") => Invocation::Inline(first_operand(&mut words).into_iter().collect()),
        Some("run") => match first_operand(&mut words) {
            Some("-") => Invocation::Stdin,
            Some(file) => Invocation::File(file),
            None => Invocation::Other,
        },
        Some(file) if is_script_name(file) => Invocation::File(file),
        _ => Invocation::Other,
    }
}

fn bun(args: &[String]) -> Invocation<'_> {
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        match word {
            "-e" | "--eval" | "-p" | "--print" => {
                return Invocation::Inline(words.next().into_iter().collect());
            }
            "run" => {
                return first_operand(&mut words).map_or(Invocation::Other, Invocation::File);
            }
            w if is_script_name(w) => return Invocation::File(w),
            w if w.starts_with('-') => {}
            _ => return Invocation::Other,
        }
    }
    Invocation::Other
}

fn php(args: &[String]) -> Invocation<'_> {
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-r" | "-B" | "-R" | "-E" => {
                return Invocation::Inline(args.next().into_iter().collect());
            }
            "-f" => return args.next().map_or(Invocation::Stdin, Invocation::File),
            "-S" => return Invocation::Other,
            "-d" | "-c" | "-z" | "-t" => {
                args.next();
            }
            "-" | "--" => return Invocation::Stdin,
            a if a.starts_with('-') => {}
            a => return Invocation::File(a),
        }
    }
    Invocation::Stdin
}

/// Lua: every `-e` chunk (run before the script), `-l` takes a library name.
fn lua(args: &[String]) -> Invocation<'_> {
    let mut codes = Vec::new();
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-e" => codes.extend(args.next()),
            "-l" => {
                args.next();
            }
            a if a.starts_with("-e") => codes.push(&a[2..]),
            "-" | "--" if codes.is_empty() => return Invocation::Stdin,
            a if a.starts_with('-') => {}
            a if codes.is_empty() => return Invocation::File(a),
            _ => break,
        }
    }
    if codes.is_empty() {
        Invocation::Stdin
    } else {
        Invocation::Inline(codes)
    }
}

/// `R` and `Rscript`: every `-e` expression, `-f`/`--file=` a script (`Rscript x.R` too);
/// `R CMD …` runs R's tools, not code.
fn r(args: &[String]) -> Invocation<'_> {
    let mut codes = Vec::new();
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "-e" => codes.extend(args.next()),
            "-f" => return args.next().map_or(Invocation::Stdin, Invocation::File),
            a if a.starts_with("--file=") => return Invocation::File(&a["--file=".len()..]),
            "CMD" if codes.is_empty() => return Invocation::Other,
            "-" if codes.is_empty() => return Invocation::Stdin,
            a if a.starts_with('-') => {}
            a if codes.is_empty() => return Invocation::File(a),
            _ => break,
        }
    }
    if codes.is_empty() {
        Invocation::Stdin
    } else {
        Invocation::Inline(codes)
    }
}

fn other(args: &[String]) -> Invocation<'_> {
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        match arg {
            // `pwsh -c -` and `-Command -` read the code on standard input.
            "-e" | "-E" | "--eval" | "--print" | "-c" | "-Command" | "-command" => {
                return match args.next() {
                    Some("-") => Invocation::Stdin,
                    code => Invocation::Inline(code.into_iter().collect()),
                };
            }
            // An option's value (`osascript -l JavaScript`, `-s o`), not a script.
            "-l" | "-s" => {
                args.next();
            }
            "-File" | "-file" | "-f" => {
                return args.next().map_or(Invocation::Stdin, Invocation::File);
            }
            "-" => return Invocation::Stdin,
            a if a.starts_with('-') => {}
            a => return Invocation::File(a),
        }
    }
    Invocation::Stdin
}

/// The script file an interpreter runs (`python3 x.py`, `node x.js`, `perl x.pl`).
pub(super) fn script_file(command: &Command) -> Option<&str> {
    match invocation(command)? {
        Invocation::File(file) => Some(file),
        _ => None,
    }
}

/// True when `command` is an interpreter that reads the code it runs on standard input
/// (`python3`, `python3 -`, `node`), wherever that input comes from.
pub(super) fn reads_code_from_stdin(command: &Command) -> bool {
    invocation(command) == Some(Invocation::Stdin)
}

/// Hits of the code an interpreter runs: deletions and shell-outs.
pub(super) fn command_hits(command: &Command, env: &Env<'_>) -> Vec<Hit> {
    let Some(lang) = Lang::of(&command.program) else {
        return unscanned(command).into_iter().collect();
    };
    match invocation(command) {
        Some(Invocation::Inline(codes)) => codes
            .into_iter()
            .flat_map(|code| code_hits_in(lang, command, code, env))
            .collect(),
        Some(Invocation::Stdin) => stdin_text(command)
            .map(|code| code_hits_in(lang, command, code, env))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `interpreter-shell-out` for a one-liner in a language the guard does not scan (`lua -e`,
/// `Rscript -e`, `pwsh -c`, `osascript -e`, …) whose code holds a word that may run a
/// command or delete files.
fn unscanned(command: &Command) -> Option<Hit> {
    // PowerShell's base64 code (`-EncodedCommand`, `-enc`, `-e`, `-ec`: any prefix) cannot
    // be read at all.
    let powershell = matches!(command.program.as_str(), "pwsh" | "powershell");
    let encoded = |a: &String| {
        let a = a.to_lowercase();
        (a.len() > 1 && "-encodedcommand".starts_with(&a)) || a == "-ec"
    };
    if powershell && command.args.iter().any(encoded) {
        return Some(hit(
            INTERPRETER_SHELL_OUT,
            format!(
                "{} runs encoded code the guard cannot read",
                command.program
            ),
        ));
    }
    let code = match invocation(command)? {
        Invocation::Inline(codes) => codes.join("\n"),
        // A here-document or here-string is its code (`tclsh <<< 'exec rm -rf /'`).
        Invocation::Stdin => stdin_text(command)?.to_owned(),
        _ => return None,
    };
    unscanned_code(command, &code)
}

/// The here-document or here-string `command` reads on standard input, if that is where
/// its input comes from.
fn stdin_text(command: &Command) -> Option<&str> {
    command
        .redirects
        .iter()
        .rev()
        .find(|r| r.reads_stdin())
        .filter(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
        .map(|r| r.target.as_str())
}

/// [`unscanned`] of `code`.
fn unscanned_code(command: &Command, code: &str) -> Option<Hit> {
    let lower = code.to_lowercase();
    // A word counts where it starts one (`system`, `os.system`), not inside another
    // (`filesystem`, `form(`).
    let starts_word = |w: &str| {
        lower.match_indices(w).any(|(at, _)| {
            !w.starts_with(char::is_alphanumeric)
                || !lower[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
    };
    let word = UNSCANNED_RISKY
        .iter()
        .find(|w| starts_word(&w.to_lowercase()))?;
    Some(hit(
        INTERPRETER_SHELL_OUT,
        format!(
            "{} code the guard does not read may run a command or delete files (`{}` in `{}`)",
            command.program,
            word.trim(),
            cut(code)
        ),
    ))
}

/// Hits of `code`, run by the interpreter `command` (literal text piped into it).
pub(super) fn code_hits(command: &Command, code: &str, env: &Env<'_>) -> Vec<Hit> {
    match Lang::of(&command.program) {
        Some(lang) => code_hits_in(lang, command, code, env),
        None if OTHER_INTERPRETERS.contains(&command.program.as_str()) => {
            unscanned_code(command, code).into_iter().collect()
        }
        None => Vec::new(),
    }
}

fn code_hits_in(lang: Lang, command: &Command, code: &str, env: &Env<'_>) -> Vec<Hit> {
    if single_expansion(lang, code) {
        return vec![hit(
            EVAL_COMPUTED,
            format!(
                "{} runs code computed when it runs (`{}`)",
                command.program,
                cut(code)
            ),
        )];
    }
    Scan {
        lang,
        command,
        env,
        hits: Vec::new(),
    }
    .run(code)
}

/// True when `code` is one shell expansion (`$CODE`, `${X}`, `$(cat x.py)`, `` `cat x` ``),
/// so the code is whatever it holds when the line runs. Backquotes count only for Python and
/// JavaScript: in Perl, Ruby and PHP they are a command in the code, scanned as such.
fn single_expansion(lang: Lang, code: &str) -> bool {
    let code = code.trim();
    if let Some(rest) = code.strip_prefix('$') {
        if rest.starts_with('(') && rest.ends_with(')') {
            return true;
        }
        if rest.starts_with('{') && rest.ends_with('}') && rest.matches('}').count() == 1 {
            return true;
        }
        return !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    }
    matches!(lang, Lang::Python | Lang::Js)
        && code.len() > 2
        && code.starts_with('`')
        && code.ends_with('`')
        && code.matches('`').count() == 2
}

/// `text` cut to 80 characters, for reasons.
fn cut(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

mod args;
mod ipython;
mod lex;
mod scan;
mod tables;

use args::*;
use ipython::*;
use lex::*;
use scan::*;
use tables::*;

#[cfg(test)]
mod tests;
