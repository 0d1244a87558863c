//! What salt runs on its targets (or here, for `salt-call` and `salt-run`), as command lines
//! the guard judges: `cmd.run CMD` and its kin, `cmd.exec_code LANG CODE`, the file module's
//! deletes and writes as the shell commands that do the same (`file.remove P` as `rm -rf --
//! P`), `state.single FUNCTION …`, compound calls, and `salt-ssh -r CMD`.

use crate::shell::quote;

/// Functions that run their command line: the first argument that is no other keyword
/// (`runas=root`), or `cmd=`; `cmd.run_chroot ROOT CMD` takes the root first.
const RUNS: &[&str] = &[
    "cmd.run",
    "cmd.shell",
    "cmd.run_all",
    "cmd.run_stdout",
    "cmd.run_stderr",
    "cmd.run_bg",
    "cmd.run_chroot",
    "cmd.retcode",
    "cmd.script",
    "cmd.script_retcode",
    "cmd.powershell",
];

/// Functions that run code in a language: `cmd.exec_code LANG CODE`.
const CODE: &[&str] = &["cmd.exec_code", "cmd.exec_code_all"];

/// The file module's functions (and states) as the shell command that does the same: `{0}`
/// and `{1}` are the first two arguments (`path=`/`name=` and `dest=` too), and the keyword
/// that must be true for it to do that (`file.rmdir … recurse=True`). A function that writes
/// a file is its own name redirected to the file (`file.write > {0}`), so a reason quotes the
/// salt function, not a stand-in.
#[rustfmt::skip]
const FILES: &[(&str, &str, Option<&str>)] = &[
    ("file.remove", "rm -rf -- {0}", None),
    ("file.absent", "rm -rf -- {0}", None),
    ("file.rmdir", "rm -rf -- {0}", Some("recurse")),
    ("file.directory", "rm -rf -- {0}", Some("clean")),
    ("file.write", "file.write > {0}", None),
    ("file.append", "file.append >> {0}", None),
    ("file.managed", "file.managed > {0}", None),
    ("file.truncate", "truncate -s 0 -- {0}", None),
    ("file.copy", "cp -- {0} {1}", None),
    ("file.rename", "mv -- {0} {1}", None),
    ("file.move", "mv -- {0} {1}", None),
    ("file.set_mode", "chmod {1} -- {0}", None),
    ("file.chown", "chown {1} -- {0}", None),
    ("file.symlink", "ln -sf -- {0} {1}", None),
    ("file.replace", "file.replace > {0}", None),
    ("file.sed", "file.sed > {0}", None),
    ("file.line", "file.line > {0}", None),
    ("file.blockreplace", "file.blockreplace > {0}", None),
    ("file.patch", "file.patch > {0}", None),
    ("file.manage_file", "file.manage_file > {0}", None),
    ("file.psed", "file.psed > {0}", None),
    ("file.comment", "file.comment > {0}", None),
    ("file.uncomment", "file.uncomment > {0}", None),
    ("file.prepend", "file.prepend > {0}", None),
    ("cp.get_file", "cp.get_file > {1}", None),
    ("cp.get_url", "cp.get_url > {1}", None),
    ("cp.get_template", "cp.get_template > {1}", None),
    ("cp.get_dir", "cp.get_dir > {1}/x", None),
    ("archive.extracted", "tar -x -f x -C {0}", None),
];

/// Functions whose command line is an argument at a position: `cron.set_job USER MINUTE HOUR
/// DAYMONTH MONTH DAYWEEK CMD`, `cron.set_special USER SPECIAL CMD`.
const COMMAND_AT: &[(&str, usize)] = &[("cron.set_job", 6), ("cron.set_special", 2), ("at.at", 1)];

/// A command line salt runs, and the directory it runs in when a keyword says (`cwd=/`).
pub(super) struct SaltRun {
    pub(super) script: String,
    pub(super) dir: Option<String>,
}

/// The command lines `salt`, `salt-ssh`, `salt-call` or `salt-run` with `args` runs.
pub(super) fn salt_scripts(program: &str, args: &[String]) -> Vec<SaltRun> {
    let run = |script: String, dir: Option<&str>| SaltRun {
        script,
        dir: dir.map(str::to_owned),
    };
    // `salt-ssh TARGET -r CMD`: a raw shell command.
    if program == "salt-ssh"
        && args
            .iter()
            .any(|a| matches!(a.as_str(), "-r" | "--raw" | "--raw-shell"))
    {
        let operands: Vec<&str> = (args.iter().map(String::as_str))
            .filter(|a| !a.starts_with('-'))
            .collect();
        return operands
            .get(1..)
            .map_or_else(Vec::new, |cmd| vec![run(cmd.join(" "), None)]);
    }
    let known = |f: &str| {
        RUNS.contains(&f)
            || CODE.contains(&f)
            || COMMAND_AT.iter().any(|(name, _)| *name == f)
            || f == "state.single"
            || FILES.iter().any(|(name, ..)| *name == f)
    };
    let Some(at) = args.iter().position(|a| a.split(',').any(known)) else {
        return Vec::new();
    };
    let functions: Vec<&str> = args[at].split(',').filter(|f| !f.is_empty()).collect();
    let rest = &args[at + 1..];
    // `runas=root` is a keyword; `X=1 rm -rf /` (a blank in it) is a script.
    let is_keyword = |a: &str| {
        !a.contains(char::is_whitespace)
            && a.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    // The keywords read here, whose values may hold blanks (`cmd='rm -rf /'`).
    const NAMED: &[&str] = &[
        "cmd", "name", "path", "dest", "target", "root", "cwd", "lang", "code", "recurse", "clean",
    ];
    let named = |a: &str| {
        a.split_once('=')
            .is_some_and(|(name, _)| NAMED.contains(&name))
    };
    let keyword = |name: &str| (rest.iter()).find_map(|a| a.strip_prefix(name)?.strip_prefix('='));
    let mut positional: Vec<&str> = (rest.iter().map(String::as_str))
        .filter(|a| !is_keyword(a) && !named(a) && !a.starts_with('-'))
        .collect();
    // A compound call groups its arguments by a separator (`,`, or `--args-separator`):
    // each argument, and each piece of it, is judged as a command line, and as a path the
    // file functions among them act on.
    if functions.len() > 1 {
        let separator = args_separator(args);
        let mut runs = Vec::new();
        for word in positional {
            let whole = word
                .trim_start_matches(separator.as_str())
                .trim_end_matches(separator.as_str());
            let pieces = std::iter::once(whole).chain(word.split(separator.as_str()));
            for piece in pieces.map(|p| p.trim()).filter(|p| !p.is_empty()) {
                runs.push(run(piece.to_owned(), None));
                for f in &functions {
                    if let Some((_, template, _)) = FILES.iter().find(|(name, ..)| name == f) {
                        runs.push(run(fill(template, &[piece]), None));
                    }
                }
            }
        }
        return runs;
    }
    let mut function = functions.first().copied().unwrap_or_default();
    // `state.single FUNCTION name=… …`: the state function, its name the first argument.
    if function == "state.single" {
        if positional.is_empty() {
            return Vec::new();
        }
        function = positional.remove(0);
        if let Some(name) = keyword("name") {
            positional.insert(0, name);
        }
    }
    let cwd = keyword("cwd");
    if RUNS.contains(&function) {
        let (script, dir) = if function == "cmd.run_chroot" {
            let root = keyword("root").or_else(|| positional.first().copied());
            let skip = usize::from(keyword("root").is_none());
            (
                keyword("cmd").or_else(|| positional.get(skip).copied()),
                root,
            )
        } else {
            let named = keyword("cmd").or_else(|| keyword("name"));
            (named.or_else(|| positional.first().copied()), cwd)
        };
        return script.map(|s| run(s.to_owned(), dir)).into_iter().collect();
    }
    if let Some((_, at)) = COMMAND_AT.iter().find(|(name, _)| *name == function) {
        let script = keyword("cmd").or_else(|| positional.get(*at).copied());
        return script
            .map(|s| run(s.to_owned(), None))
            .into_iter()
            .collect();
    }
    if CODE.contains(&function) {
        let lang = keyword("lang").or_else(|| positional.first().copied());
        let code = keyword("code").or_else(|| positional.get(1).copied());
        let (Some(lang), Some(code)) = (lang, code) else {
            return Vec::new();
        };
        let flag = match lang.rsplit('/').next().unwrap_or(lang) {
            l if l.starts_with("perl") || l.starts_with("ruby") || l.starts_with("node") => "-e",
            _ => "-c",
        };
        return vec![run(format!("{} {flag} {}", quote(lang), quote(code)), cwd)];
    }
    if let Some((_, template, needs)) = FILES.iter().find(|(name, ..)| *name == function) {
        if needs.is_some_and(|k| !keyword(k).is_some_and(|v| v.eq_ignore_ascii_case("true"))) {
            return Vec::new();
        }
        let first = keyword("path").or_else(|| keyword("name"));
        let mut operands: Vec<&str> = first.into_iter().chain(positional).collect();
        if let Some(dest) = keyword("dest").or_else(|| keyword("target")) {
            operands.insert(1.min(operands.len()), dest);
        }
        if operands.is_empty() {
            return Vec::new();
        }
        return vec![run(fill(template, &operands), cwd)];
    }
    Vec::new()
}

/// The separator of a compound call's arguments: `--args-separator=S` or `--args-separator
/// S`; `,` by default.
fn args_separator(args: &[String]) -> String {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some(value) = word.strip_prefix("--args-separator=") {
            return value.to_owned();
        }
        if word == "--args-separator"
            && let Some(value) = words.next()
        {
            return value.clone();
        }
    }
    ",".to_owned()
}

/// `template` with `{0}` and `{1}` replaced by the quoted operands (an operand not given
/// leaves its place empty).
fn fill(template: &str, operands: &[&str]) -> String {
    let at = |n: usize| {
        operands
            .get(n)
            .map_or_else(String::new, |o| quote(o).into_owned())
    };
    template.replace("{0}", &at(0)).replace("{1}", &at(1))
}
