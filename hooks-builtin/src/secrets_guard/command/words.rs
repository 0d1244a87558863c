//! The words of a command that may name files, and how each is used (read or written).

use std::path::Path;

use super::super::Access;
use super::TESTERS;
use crate::shell::getopt::{self, Style};
use crate::shell::links;
use crate::shell::outputs;
use crate::shell::{Command, Escapes, RedirectOp, read_escapes};

/// How programs name the files they send, beyond a plain path and the `@file`/`<file` that
/// [`words`] reads in every program's arguments.
struct Sender {
    programs: &'static [&'static str],
    /// Options whose value may be `name@file` (`""`: every operand, as httpie's
    /// `field@file`).
    name_at: &'static [&'static str],
    /// Options whose value is sent as written: an `@` in it names no file.
    literal: &'static [&'static str],
}

const SENDERS: &[Sender] = &[
    Sender {
        programs: &["curl"],
        name_at: &["--data-urlencode", "--url-query", "--variable"],
        literal: &["--data-raw", "--form-string"],
    },
    Sender {
        programs: &["http", "https", "xh", "xhs"],
        name_at: &[""],
        literal: &[],
    },
];

/// The words of `cmd` that may name files, and how: every argument (and the value of
/// `--opt=value`, `if=value`, and of `-ivalue` short options), the file of each of those
/// written `@file` or `<file` (curl's `-d @f` and `-F x=<f`, httpie's `x=@f`, `gh api -F
/// x=@f`, `gcc @f`; a `;type=…` suffix dropped), the `name@file` forms of [`SENDERS`], all
/// read; and every file redirection target, written for `>`. With `code` (an interpreter, or
/// a stage that pipes into one), the words its code names too ([`code_words`]).
pub(super) fn words(
    cmd: &Command,
    redefined: &[&str],
    code: bool,
    lists_read: bool,
) -> Vec<(String, Access)> {
    // An argument of a program that may change its operands (`cp x ~/.ssh/config`,
    // `sed -i`, `rm hooks.yaml`, `tee`) is a write target: the read-only exceptions do not
    // apply to it. Only the programs of `READERS` read their operands.
    let arg_access = if reads_only(cmd) {
        Access::Read
    } else {
        Access::Write
    };
    let sender = SENDERS
        .iter()
        .find(|s| s.programs.contains(&cmd.program.as_str()));
    let mut out = Vec::with_capacity(cmd.args.len() * 2 + cmd.redirects.len());
    let mut previous: Option<&str> = None;
    // What a program's name says it does holds only for that program: not for a file of that
    // name run by path (`./test .env`) or a function or alias the script defines.
    let trusted = !cmd.by_path && !redefined.contains(&cmd.program.as_str());
    let names_only = trusted && names_only(cmd);
    let ssh = trusted && matches!(cmd.program.as_str(), "ssh" | "scp" | "sftp");
    // `git clean -e PATTERN` keeps what the pattern names: a name, not a file it touches.
    let clean = trusted && cmd.program == "git" && cmd.args.first().is_some_and(|a| a == "clean");
    // Names put in an ignore file (`echo .env >> .gitignore`) are written there as text; what
    // else prints a name is judged as if it read it, since a later command may (`cat $(echo
    // .env)`, `f=$(printf .env)`).
    let ignore_list = trusted && !lists_read && ignore_list(cmd);
    // grep's pattern (its first operand, without `-e` or `-f`) is no file it reads.
    let mut pattern = trusted && grep_pattern_first(cmd);
    let mut key_next = false;
    for arg in &cmd.args {
        if ignore_list || (pattern && !arg.starts_with('-')) {
            pattern = false;
            previous = Some(arg);
            continue;
        }
        // The operands of a program that uses only names; its options are still judged
        // (`git rm --cached --pathspec-from-file=.env` reads the file).
        let skip = (names_only
            && !arg.starts_with('-')
            && !previous.is_some_and(|p| p.starts_with("--pathspec")))
            // The identity file of `ssh -i KEY` (`-iKEY`); a word taken as `-i`'s value is
            // not itself a `-i` (`scp -i -i .env host:` sends `.env`).
            || (ssh && (key_next || arg == "-i" || (arg.starts_with("-i") && arg.len() > 2)))
            || (clean
                && (previous.is_some_and(|p| p == "-e" || p == "--exclude")
                    || arg.starts_with("--exclude=")
                    || (arg.starts_with("-e") && arg.len() > 2)));
        key_next = ssh && !key_next && arg == "-i";
        if skip {
            previous = Some(arg);
            continue;
        }
        let value_of = |opts: &[&str]| previous.is_some_and(|p| opts.contains(&p));
        let literal = sender.is_some_and(|s| value_of(s.literal));
        let name_at = sender.is_some_and(|s| {
            value_of(s.name_at) || (s.name_at.contains(&"") && !arg.starts_with('-'))
        });
        let mut forms = vec![arg.as_str()];
        if let Some((_, value)) = arg.split_once('=') {
            forms.push(value);
        }
        // A container's bind mount makes a host path readable inside it (`-v ~/.aws:/a`,
        // `--mount type=bind,src=~/.aws,dst=/a`).
        if let Some(source) = bind_source(cmd, previous, arg) {
            forms.push(source);
        }
        // git names a file in a commit or the index as `REV:path`, `:path`, `:0:path`
        // (`git show HEAD:.env`, `git cat-file -p :.env`).
        if cmd.program == "git" && !arg.contains("://") {
            let first = arg.split_once(':').map(|(_, path)| path);
            let last = arg.rsplit_once(':').map(|(_, path)| path);
            forms.extend(first.into_iter().chain(last).filter(|p| !p.is_empty()));
        }
        if let Some(rest) = arg.strip_prefix('-')
            && !rest.starts_with('-')
            && let Some((i, _)) = rest.char_indices().nth(1)
        {
            forms.push(&rest[i..]);
        }
        for form in forms {
            out.push((form.to_owned(), arg_access));
            if !literal && let Some(file) = form.strip_prefix(['@', '<']) {
                push_file(&mut out, file);
            }
        }
        if name_at
            && !literal
            && let Some((_, file)) = arg.split_once('@')
        {
            push_file(&mut out, file);
        }
        previous = Some(arg);
    }
    for r in &cmd.redirects {
        let file = match r.op {
            RedirectOp::HereDoc | RedirectOp::HereString => false,
            RedirectOp::DupIn | RedirectOp::DupOut => {
                !r.target.bytes().all(|b| b.is_ascii_digit() || b == b'-')
            }
            _ => true,
        };
        if file {
            let access = if r.writes_file() {
                Access::Write
            } else {
                Access::Read
            };
            out.push((r.target.clone(), access));
        }
    }
    out.extend((copied_into(cmd).into_iter()).map(|p| (p, Access::Write)));
    // sed's own commands read and write files (`sed 'r .env' x`, `sed -n 'w f' x`).
    if matches!(cmd.program.as_str(), "sed" | "gsed") {
        out.extend((crate::shell::sed::reads(&cmd.args).into_iter()).map(|p| (p, Access::Read)));
        out.extend((crate::shell::sed::writes(&cmd.args).into_iter()).map(|p| (p, Access::Write)));
    }
    out.extend((outputs::decompressed(cmd).into_iter()).map(|p| (p, Access::Write)));
    // An interpreter's code names the files it opens in string literals
    // (`python3 -c 'print(open(".env").read())'`, `node <<'EOF'`), and so does the text a
    // command pipes into one (`echo '…' | python3`): each is a word too.
    if code {
        let bodies = (cmd.redirects.iter())
            .filter(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
            .map(|r| r.target.as_str());
        let mut named = Vec::new();
        for code in cmd.args.iter().map(String::as_str).chain(bodies) {
            code_words(code, &cmd.program, 0, &mut named);
        }
        out.extend(named.into_iter().map(|w| (w, arg_access)));
    }
    // `git cat-file --batch` prints the objects its input names (`<<< HEAD:.env`).
    let batch = cmd.program == "git"
        && cmd.args.iter().any(|a| a == "cat-file")
        && cmd.args.iter().any(|a| a.starts_with("--batch"));
    if batch {
        let bodies = (cmd.redirects.iter())
            .filter(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
            .flat_map(|r| r.target.lines());
        for object in bodies.filter_map(|line| line.trim().split_once(':')) {
            let path = object.1.rsplit(':').next().unwrap_or(object.1);
            if !path.is_empty() {
                out.push((path.to_owned(), Access::Read));
            }
        }
    }
    out
}

/// Interpreters whose code is read for the files it names, beyond the versioned names of
/// [`VERSIONED`].
const INTERPRETERS: &[&str] = &[
    "irb",
    "jruby",
    "truffleruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ts-node",
    "tsx",
    "rscript",
    "r",
    "julia",
    "tclsh",
    "wish",
    "expect",
    "osascript",
    "pwsh",
    "powershell",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "jshell",
    "groovy",
    "micropython",
    "py",
];

/// Interpreters also under a versioned name (`python3.12`, `lua5.4`, `luajit-2.1`).
const VERSIONED: &[&str] = &[
    "python", "pypy", "ipython", "ruby", "perl", "php", "lua", "luajit", "node",
];

/// Whether `program` runs code it is given: [`INTERPRETERS`] and [`VERSIONED`].
pub(super) fn is_interpreter(program: &str) -> bool {
    let versioned = |name: &str| {
        program.strip_prefix(name).is_some_and(|v| {
            v.bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
        })
    };
    INTERPRETERS.contains(&program) || VERSIONED.iter().any(|name| versioned(name))
}

/// How deep [`code_words`] follows shell commands in literals that run more code.
const MAX_CODE_DEPTH: usize = 4;

/// The words interpreter `code` names: each string literal ([`string_literals`]), and when a
/// literal reads as a shell command line (`os.system("cat .env")`, `` `cat .env` ``), the
/// arguments and redirection targets of its commands, and the code of interpreters among
/// them. For IPython each line is also read as a shell command line: it runs `!cat .env`,
/// and `cat .env` itself as an alias. So is each line of PowerShell's code, which is a
/// command line of its own dialect (`gc $env:USERPROFILE\.ssh\id_rsa`,
/// [`crate::shell::windows::powershell_line`]).
fn code_words(code: &str, program: &str, depth: usize, out: &mut Vec<String>) {
    let lines: Vec<std::borrow::Cow<'_, str>> = match program {
        p if p.starts_with("ipython") => (code.lines())
            .map(|l| l.trim_start().trim_start_matches(['!', '%']).into())
            .collect(),
        "pwsh" | "powershell" => (code.lines())
            .map(|l| crate::shell::windows::powershell_line(l).into())
            .collect(),
        _ => Vec::new(),
    };
    let literals = string_literals(code).map(std::borrow::Cow::Borrowed);
    for literal in literals.chain(lines) {
        // Escapes read as most languages read them (`\".env\"`, `\x2eenv`).
        let literal = read_escapes(&literal, Escapes::Literal).into_owned();
        out.push(literal.clone());
        if depth >= MAX_CODE_DEPTH {
            continue;
        }
        let Some(script) = command_line(&literal) else {
            continue;
        };
        for cmd in script.commands() {
            // As the same command on the command line: `curl -d@.env` sends `.env`.
            out.extend(
                words(cmd, &[], false, true)
                    .into_iter()
                    .map(|(word, _)| word),
            );
            if is_interpreter(&cmd.program) {
                for arg in &cmd.args {
                    code_words(arg, &cmd.program, depth + 1, out);
                }
            }
        }
    }
}

/// The shell commands in the string literals of interpreter `code` that read as a command
/// line (`os.system("gh auth token")`, `` `printenv` ``), parsed.
pub(super) fn code_commands(code: &str) -> Vec<crate::shell::Command> {
    string_literals(code)
        .filter_map(|literal| command_line(&read_escapes(literal, Escapes::Literal)))
        .flat_map(|script| script.commands().cloned().collect::<Vec<_>>())
        .collect()
}

/// `literal` parsed, when it reads as a shell command line: words, or a pipe or redirection
/// (`"cat .env"`, `"env|sort"`, `"cat<.env"`).
fn command_line(literal: &str) -> Option<crate::shell::Script> {
    if !literal.contains(|c: char| c.is_whitespace() || "|;&<>".contains(c)) {
        return None;
    }
    crate::shell::parse(literal).ok()
}

/// The string literals of `code`: the text between a pair of `'`, `"` or `` ` `` on one line
/// (a quote escaped by a backslash does not close), Lua's long brackets (`[[…]]`, `[==[…]==]`)
/// and Perl's and Ruby's quote-like forms with a bracket (`q(…)`, `qq{…}`, `qx[…]`, `%q(…)`,
/// `%x(…)`, `%w(…)`), as written ([`code_words`] reads their escapes). A quote whose pair is on another line (an
/// apostrophe in a comment) starts nothing, so it does not throw the pairing of the quotes
/// after it off.
pub(super) fn string_literals(code: &str) -> impl Iterator<Item = &str> {
    let bytes = code.as_bytes();
    let mut i = 0;
    // Closings looked for in vain: none comes later either, so an unclosed opening repeated
    // (`[[ [[ [[ …`) is read in linear time.
    let mut absent: Vec<Vec<u8>> = Vec::new();
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if let Some((start, end, next)) = bracketed(bytes, i, &mut absent) {
                i = next;
                if end > start {
                    return code.get(start..end);
                }
                continue;
            }
            let quote = bytes[i];
            i += 1;
            if !matches!(quote, b'\'' | b'"' | b'`') {
                continue;
            }
            let start = i;
            let mut j = start;
            while j < bytes.len() && bytes[j] != b'\n' {
                match bytes[j] {
                    b'\\' => j += 2,
                    b if b == quote => break,
                    _ => j += 1,
                }
            }
            if j < bytes.len() && bytes[j] == quote {
                i = j + 1;
                if j > start {
                    return code.get(start..j);
                }
            }
        }
        None
    })
}

/// A bracketed literal starting at `at`: a Lua long bracket or a Perl/Ruby quote-like form
/// (see [`string_literals`]), as its text's start, its end and where the scan goes on.
fn bracketed(bytes: &[u8], at: usize, absent: &mut Vec<Vec<u8>>) -> Option<(usize, usize, usize)> {
    if bytes[at] == b'[' {
        let level = bytes[at + 1..].iter().take_while(|&&b| b == b'=').count();
        if bytes.get(at + 1 + level) != Some(&b'[') {
            return None;
        }
        let start = at + level + 2;
        let close: Vec<u8> = std::iter::once(b']')
            .chain(std::iter::repeat_n(b'=', level))
            .chain(std::iter::once(b']'))
            .collect();
        return closing(bytes, start, close, absent).map(|end| (start, end, end + level + 2));
    }
    let word_start = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
    if !word_start {
        return None;
    }
    let prefix = [
        &b"qq"[..],
        b"qx",
        b"qw",
        b"q",
        b"%q",
        b"%Q",
        b"%x",
        b"%w",
        b"%W",
        b"%i",
    ]
    .into_iter()
    .find(|p| bytes[at..].starts_with(p))?;
    let close = match *bytes.get(at + prefix.len())? {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        _ => return None,
    };
    let start = at + prefix.len() + 1;
    closing(bytes, start, vec![close], absent).map(|end| (start, end, end + 1))
}

/// Where `close` first occurs in `bytes` from `start`, remembering in `absent` a closing
/// that does not occur.
fn closing(bytes: &[u8], start: usize, close: Vec<u8>, absent: &mut Vec<Vec<u8>>) -> Option<usize> {
    if absent.contains(&close) {
        return None;
    }
    let found = (start..bytes.len()).find(|&j| bytes[j..].starts_with(&close));
    if found.is_none() {
        absent.push(close);
    }
    found
}

/// Files that list names for a tool to leave alone: a name written to one is text, not a file
/// read (`echo .env >> .gitignore`).
const IGNORE_FILES: &[&str] = &[
    ".gitignore",
    ".dockerignore",
    ".npmignore",
    ".prettierignore",
    ".eslintignore",
    ".ignore",
    ".rgignore",
    ".hgignore",
    ".helmignore",
    ".gcloudignore",
    ".vercelignore",
    ".slugignore",
    ".cfignore",
    "exclude",
];

/// Whether any command of `script` reads an ignore file ([`IGNORE_FILES`]) otherwise than
/// `echo`/`printf` printing into it or `grep -q` testing it: a name printed into one may then
/// be read as a file (`echo .env > .gitignore; xargs cat < .gitignore`), and no name printed
/// into one is exempt.
pub(super) fn ignore_lists_read(script: &crate::shell::Script) -> bool {
    let is_list = |word: &str| {
        let name = word.rsplit(['/', '=']).next().unwrap_or(word);
        IGNORE_FILES.contains(&name) && (name != "exclude" || word.ends_with(".git/info/exclude"))
    };
    script.commands().any(|cmd| {
        let quiet_test = matches!(cmd.program.as_str(), "grep" | "egrep" | "fgrep" | "rg")
            && (cmd.args.iter()).any(|a| {
                a == "--quiet"
                    || a == "--silent"
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('q'))
            });
        let printer = ignore_list(cmd);
        let named = cmd.args.iter().any(|a| is_list(a));
        let read_from = (cmd.redirects.iter()).any(|r| !r.writes_file() && is_list(&r.target));
        (named && !quiet_test && !printer) || read_from
    })
}

/// Whether `cmd` is `echo` or `printf` printing only into ignore files ([`IGNORE_FILES`]; `exclude`
/// only as `.git/info/exclude`).
fn ignore_list(cmd: &Command) -> bool {
    if !matches!(cmd.program.as_str(), "echo" | "printf") {
        return false;
    }
    let mut outputs = (cmd.redirects.iter())
        .filter(|r| r.fd.is_none_or(|fd| fd == 1))
        .peekable();
    outputs.peek().is_some()
        && outputs.all(|r| {
            let name = r.target.rsplit('/').next().unwrap_or(&r.target);
            matches!(r.op, RedirectOp::Out | RedirectOp::Append)
                && IGNORE_FILES.contains(&name)
                && (name != "exclude" || r.target.ends_with(".git/info/exclude"))
        })
}

/// Whether the first operand of `cmd` is a `grep` or `rg` pattern: no `-e`/`--regexp` or
/// `-f`/`--file` gives the patterns instead (in a cluster of short options too).
fn grep_pattern_first(cmd: &Command) -> bool {
    matches!(cmd.program.as_str(), "grep" | "egrep" | "fgrep" | "rg")
        && !cmd.args.iter().take_while(|a| *a != "--").any(|a| {
            a.starts_with("--regexp") || a.starts_with("--file") || {
                a.starts_with('-') && !a.starts_with("--") && a.contains(['e', 'f'])
            }
        })
}

/// Whether `cmd` uses its operands' names and never their contents: `test -f .env`,
/// `git rm --cached .env` (untracks it, the fix for a committed secret), `git check-ignore`.
/// Its redirections are still judged.
fn names_only(cmd: &Command) -> bool {
    if TESTERS.contains(&cmd.program.as_str()) {
        return true;
    }
    if cmd.program != "git" {
        return false;
    }
    // Git's own options before the subcommand (`-C dir`) are not looked through: such a call
    // is judged whole, as before.
    match cmd.args.first().map(String::as_str) {
        Some("check-ignore") => !cmd.args.iter().any(|a| a == "--stdin"),
        Some("rm") => cmd.args.iter().any(|a| a == "--cached"),
        _ => false,
    }
}

/// At most this many name filters of one search are judged; past it the guard cannot decide.
pub(super) const MAX_FILTERS: usize = 64;

/// The name filters of a search that reads or runs something on what it finds: `find`'s
/// `-name`/`-path` (and `-iname`, `-ipath`, `-wholename`) when it has an `-exec`/`-execdir`/
/// `-ok`/`-okdir` action (`find ~ -name 'id_*' -exec cat {} +`), and `grep`'s `--include`
/// and `rg`'s `-g`/`--glob`/`--iglob`, which choose the files read: each with its option.
pub(super) fn search_filters(cmd: &Command) -> Vec<(&str, &str)> {
    let args = &cmd.args;
    let pairs = args.iter().zip(args.iter().skip(1));
    match cmd.program.as_str() {
        "find" => {
            let acts = args
                .iter()
                .any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
            if !acts {
                return Vec::new();
            }
            const NAMES: &[&str] = &[
                "-name",
                "-iname",
                "-path",
                "-ipath",
                "-wholename",
                "-iwholename",
            ];
            pairs
                .filter(|(option, _)| NAMES.contains(&option.as_str()))
                .map(|(option, value)| (option.as_str(), value.as_str()))
                .collect()
        }
        // `rg --files` lists the files it would search, reading none.
        "rg" if args.iter().any(|a| a == "--files") => Vec::new(),
        "grep" | "egrep" | "fgrep" | "rg" => {
            let separate: &[&str] = if cmd.program == "rg" {
                &["-g", "--glob", "--iglob"]
            } else {
                &["--include"]
            };
            let mut out: Vec<(&str, &str)> = pairs
                .filter(|(option, _)| separate.contains(&option.as_str()))
                .map(|(option, value)| (option.as_str(), value.as_str()))
                .collect();
            for arg in args {
                for option in separate.iter().filter(|o| o.starts_with("--")) {
                    if let Some(value) = arg.strip_prefix(option).and_then(|v| v.strip_prefix('='))
                    {
                        out.push((option, value));
                    }
                }
                if cmd.program == "rg"
                    && let Some(value) = arg.strip_prefix("-g").filter(|v| !v.is_empty())
                {
                    out.push(("-g", value));
                }
            }
            // A negated glob (`-g '!*.env'`) leaves files out.
            out.retain(|(_, value)| !value.starts_with('!'));
            out
        }
        _ => Vec::new(),
    }
}

/// The host path of a container engine's bind mount in `arg` (after `previous`): the
/// part before the first `:` of a `-v`/`--volume` value, the `source=`/`src=` of a `--mount`.
fn bind_source<'a>(cmd: &Command, previous: Option<&str>, arg: &'a str) -> Option<&'a str> {
    if !matches!(
        cmd.program.as_str(),
        "docker" | "podman" | "nerdctl" | "finch"
    ) {
        return None;
    }
    let value = match previous {
        Some("-v" | "--volume" | "--mount") => arg,
        _ => (arg.strip_prefix("--volume="))
            .or_else(|| arg.strip_prefix("--mount="))
            .or_else(|| {
                arg.strip_prefix("-v")
                    .filter(|v| !v.is_empty() && !v.starts_with('-'))
            })?,
    };
    if previous == Some("--mount") || arg.starts_with("--mount=") {
        return value.split(',').find_map(|field| {
            (field.strip_prefix("source=")).or_else(|| field.strip_prefix("src="))
        });
    }
    value.split(':').next().filter(|s| !s.is_empty())
}

/// What `mv`, `cp`, `install` or `ln` write when their last operand, or the value of `-t`, is
/// a directory: each source's name in it (`mv /tmp/x/settings.json .claude/` and `ln -st
/// .claude x/settings.json` write `.claude/settings.json`). Judged whether or not it is one:
/// when it is not, the path names nothing. Options are read as getopt reads them.
fn copied_into(cmd: &Command) -> Vec<String> {
    if !matches!(cmd.program.as_str(), "mv" | "cp" | "install" | "ln") {
        return Vec::new();
    }
    let valued = links::copier_valued(&cmd.program);
    let words = getopt::read(&cmd.args, Style::Gnu, &[], |given| {
        valued.iter().any(|v| getopt::is(given, v))
    });
    let target = words.values(&["-t", "--target-directory"]).last();
    let (dest, sources) = match target {
        Some(dir) => (dir, &words.operands[..]),
        None => match words.operands.split_last() {
            Some((dest, sources)) => (dest.as_str(), sources),
            None => return Vec::new(),
        },
    };
    // A glob's names are the ones it matches where it is written, not in the destination.
    let glob = |w: &str| w.contains(['*', '?', '[']);
    if glob(dest) {
        return Vec::new();
    }
    sources
        .iter()
        .filter(|s| !glob(s))
        .filter_map(|s| Path::new(s).file_name()?.to_str())
        .map(|name| format!("{}/{name}", dest.trim_end_matches('/')))
        .collect()
}

/// Programs that only read (or print the names of) their operands, whatever the options:
/// for them a read-only exception applies (`cat ~/.ssh/config`, `grep Host ~/.ssh/config`,
/// `cat hooks.yaml`). A program that can write a file named by an option or operand (`sed
/// -i`, `sort -o`, `uniq in out`, `awk -i inplace`, `yq -i`, `git checkout`, `less -o`) is not
/// one, nor is any program not listed; `ssh` reads without `-E`, `rg` without `--pre` (which
/// hands each file to a program).
const READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "wc",
    "diff",
    "cmp",
    "file",
    "stat",
    "ls",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "bat",
    "od",
    "hexdump",
    "strings",
    "nl",
    "cut",
    "test",
    "[",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "echo",
    "printf",
    "jq",
];

/// `git` subcommands that do not write the working tree or a file named by an option.
const GIT_READERS: &[&str] = &["diff", "log", "show", "status", "blame", "ls-files", "add"];

/// Whether `cmd` only reads its operands ([`READERS`], `ssh` without `-E`, read-only `git`
/// subcommands without `--output`).
fn reads_only(cmd: &Command) -> bool {
    if READERS.contains(&cmd.program.as_str()) {
        return !(cmd.program == "rg" && cmd.args.iter().any(|a| a.starts_with("--pre")));
    }
    // `ssh -F ~/.ssh/config` reads it; `-E file` appends ssh's log to a file.
    if cmd.program == "ssh" {
        return !cmd
            .args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('E'));
    }
    cmd.program == "git"
        && cmd
            .args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|sub| GIT_READERS.contains(&sub.as_str()))
        && !cmd
            .args
            .iter()
            .any(|a| a.starts_with("--output") || a == "-o")
}

/// `file` as a word to judge, and its part before a `;` (curl's `-F x=@f;type=text/plain`).
fn push_file(out: &mut Vec<(String, Access)>, file: &str) {
    out.push((file.to_owned(), Access::Read));
    if let Some((head, _)) = file.split_once(';') {
        out.push((head.to_owned(), Access::Read));
    }
}

/// The local path a word names: `file://x` is `x`; other URLs name no local file. A URL's
/// scheme is case-insensitive (`FILE:///x` is read by curl as `file:///x`).
pub(super) fn local_path(word: &str) -> Option<&str> {
    const FILE: &str = "file://";
    if word
        .get(..FILE.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(FILE))
    {
        return word.get(FILE.len()..);
    }
    (!word.contains("://")).then_some(word)
}
